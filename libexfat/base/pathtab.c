// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pathtab.c - the directories met by a tree walk, one node each (parent
 * and name), so that any path can be built on demand without keeping a
 * string per pending directory.  Node 0 is the root.
 */
#include "config.h"

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
