// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dirwalk.c - the one core of the directory-tree walks: the directories
 * met, one node each (parent and name), so that any path can be built on
 * demand without keeping a string per pending directory (node 0 is the
 * root), and the stack of directories waiting, so that a walk goes depth
 * first with no recursion and no bound on depth.  The walkers (check/
 * exfat_tree.c and fat_tree.c, vol/walk.c) decode entries; this holds
 * the order and the names.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int pathtab_init(struct pathtab *t)
{
	memset(t, 0, sizeof(*t));
	return pathtab_add(t, 0, "") == 0 ? 0 : -1;
}

size_t pathtab_add(struct pathtab *t, size_t parent, const char *name)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct pathnode *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return SIZE_MAX;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].parent = parent;
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return SIZE_MAX;
	return t->n++;
}

void pathtab_path(const struct pathtab *t, size_t n, char *buf, size_t len)
{
	size_t o = len - 1;

	buf[o] = '\0';
	while (n != 0 && n < t->n && o > 1) {
		const char *name = t->v[n].name;
		size_t l = strlen(name);

		if (l + 1 > o) {
			buf[--o] = '.';
			break;
		}
		o -= l;
		memcpy(buf + o, name, l);
		buf[--o] = '/';
		n = t->v[n].parent;
	}
	if (o == len - 1)
		buf[--o] = '/';
	memmove(buf, buf + o, len - o);
}

void pathtab_free(struct pathtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int dirwalk_init(struct dirwalk *w, size_t job_size, const char *prefix)
{
	memset(w, 0, sizeof(*w));
	w->job_size = job_size;
	if (prefix && strcmp(prefix, "/"))
		snprintf(w->prefix, sizeof(w->prefix), "%s", prefix);
	return pathtab_init(&w->nodes) < 0 ? -ENOMEM : 0;
}

void dirwalk_free(struct dirwalk *w)
{
	pathtab_free(&w->nodes);
	free(w->jobs);
	w->jobs = NULL;
	w->njobs = w->capjobs = 0;
}

void *dirwalk_push(struct dirwalk *w, const void *job)
{
	size_t node;

	memcpy(&node, job, sizeof(node));
	if (node == SIZE_MAX)
		return NULL;
	if (w->njobs == w->capjobs) {
		size_t cap = w->capjobs ? 2 * w->capjobs : 64;
		unsigned char *v = realloc(w->jobs, cap * w->job_size);

		if (!v)
			return NULL;
		w->jobs = v;
		w->capjobs = cap;
	}
	memcpy(dirwalk_job(w, w->njobs), job, w->job_size);
	return dirwalk_job(w, w->njobs++);
}

bool dirwalk_pop(struct dirwalk *w, void *job)
{
	size_t node;

	if (!w->njobs)
		return false;
	memcpy(job, dirwalk_job(w, --w->njobs), w->job_size);
	memcpy(&node, job, sizeof(node));
	dirwalk_path(w, node);
	return true;
}

void dirwalk_path(struct dirwalk *w, size_t n)
{
	char rel[sizeof(w->path)];
	size_t a = strlen(w->prefix), b;

	pathtab_path(&w->nodes, n, rel, sizeof(rel));
	if (!a) {	/* the walk's own paths */
		memcpy(w->path, rel, sizeof(rel));
		return;
	}
	b = strcmp(rel, "/") ? strlen(rel) : 0;
	if (a + b >= sizeof(w->path))
		b = a < sizeof(w->path) ? sizeof(w->path) - 1 - a : 0;	/* cut, as pathtab_path does */
	memcpy(w->path, w->prefix, a);
	memcpy(w->path + a, rel, b);
	w->path[a + b] = '\0';
}
