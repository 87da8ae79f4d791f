// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * split.c - a split raw image (dd, split(1), FTK Imager) as one device:
 * NAME.001, NAME.002, ... (or .000 first; two or three digits) or
 * NAME.aa, NAME.ab, ... (two or three lower-case letters), joined in
 * order.  Any segment may be named; the set is every file of the same
 * stem and suffix shape in its directory, and it is one when there are
 * two at least and the first or the second of the sequence is among them
 * (so that "disk.img" beside "disk.vhd" is no set of three letters).
 *
 * Consumes: a path.  Produces: a read-only device, or one line saying
 * which segment is missing or has the wrong size (every segment but the
 * last as long as the first, the last no longer).  A lone segment is not
 * a set: the caller opens it as a plain file.  At most SPLIT_OPEN
 * segments are open at once.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/container.h"

#define SPLIT_OPEN 64		/* descriptors kept open at most */

/* How a segment's name is made: stem (up to and with the dot), then the index in width digits or letters. */
struct split_name {
	const char *path;
	size_t stem;			/* bytes of path before the suffix */
	unsigned width;
	bool letters;
};

struct split {
	struct cinfo c;
	struct split_name sn;
	uint64_t seg;			/* bytes of every segment but the last */
	size_t n;
	int *fds;			/* -1: not open */
	size_t nopen, victim;
	pthread_mutex_t lock;
};

/* Parse path's suffix: true and its index when it names a segment. */
static bool parse_name(const char *path, struct split_name *sn, uint64_t *index)
{
	const char *base = strrchr(path, '/'), *dot, *c;
	uint64_t i = 0;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return false;
	sn->path = path;
	sn->stem = (size_t)(dot + 1 - path);
	sn->width = (unsigned)strlen(dot + 1);
	sn->letters = dot[1] >= 'a' && dot[1] <= 'z';
	if (sn->width < 2 || sn->width > 3)
		return false;
	for (c = dot + 1; *c; c++) {
		if (sn->letters ? *c < 'a' || *c > 'z' : *c < '0' || *c > '9')
			return false;
		i = i * (sn->letters ? 26 : 10) + (uint64_t)(sn->letters ? *c - 'a' : *c - '0');
	}
	*index = i;
	return true;
}

/* The name of segment i (malloc'd). */
static char *seg_name(const struct split_name *sn, uint64_t i)
{
	char *out = malloc(sn->stem + sn->width + 1);

	if (!out)
		return NULL;
	memcpy(out, sn->path, sn->stem);
	for (unsigned k = sn->width; k-- > 0; i /= sn->letters ? 26 : 10)
		out[sn->stem + k] = (char)(sn->letters ? 'a' + i % 26 : '0' + i % 10);
	out[sn->stem + sn->width] = '\0';
	return out;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The indices of the segments beside path with its stem and suffix shape, sorted: their count or -errno. */
static long list_segments(const struct split_name *sn, uint64_t **out)
{
	const char *slash = strrchr(sn->path, '/');
	char *dir = slash ? strndup(sn->path, (size_t)(slash - sn->path) + 1) : strdup(".");
	const char *stem = slash ? slash + 1 : sn->path;
	size_t stemlen = sn->stem - (size_t)(stem - sn->path), n = 0, cap = 0;
	struct split_name other;
	struct dirent *e;
	uint64_t idx;
	DIR *d = dir ? opendir(dir) : NULL;
	int err = dir ? -errno : -ENOMEM;

	free(dir);
	*out = NULL;
	if (!d)
		return err;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, stem, stemlen) == 0 && parse_name(e->d_name, &other, &idx) &&
		    other.stem == stemlen && other.width == sn->width && other.letters == sn->letters) {
			if (!grow((void **)out, &cap, n + 1, sizeof(**out))) {
				closedir(d);
				return -ENOMEM;
			}
			(*out)[n++] = idx;
		}
	closedir(d);
	qsort(*out, n, sizeof(**out), cmp_u64);
	return (long)n;
}

/* The index of the first segment: .aa, .000 when there is one, else .001. */
static uint64_t first_index(const struct split_name *sn, const uint64_t *idx)
{
	return !sn->letters && idx[0] != 0 ? 1 : 0;
}

/* Every segment from the first to the last found present: 0, or -ENOENT naming the first missing. */
static int check_run(const struct split_name *sn, const uint64_t *idx, size_t n, char *why, size_t whylen)
{
	uint64_t want = first_index(sn, idx);

	for (size_t i = 0; i < n; i++, want++)
		if (idx[i] != want) {
			char *missing = seg_name(sn, want), *last = seg_name(sn, idx[n - 1]);

			cont_why(why, whylen, "split raw set: segment %s is missing (the set goes up to %s)",
				 missing ? missing : "?", last ? last : "?");
			free(missing);
			free(last);
			return -ENOENT;
		}
	return 0;
}

static int sizes_fail(char *why, size_t whylen, const char *name, uint64_t size, const char *first, uint64_t want)
{
	cont_why(why, whylen, "split raw set: segment %s has %llu bytes where %s has %llu: truncated, or not of this set",
		 name, (unsigned long long)size, first, (unsigned long long)want);
	return -EINVAL;
}

/* Keep the segments' names and check their sizes: the media size in s->c.info, or -errno. */
static int add_segments(struct split *s, uint64_t first, char *why, size_t whylen)
{
	uint64_t total = 0;
	struct stat st;
	int r;

	for (size_t i = 0; i < s->n; i++) {
		char *name = seg_name(&s->sn, first + i);

		if (!name || (r = cinfo_file(&s->c, name)) < 0) {
			free(name);
			return -ENOMEM;
		}
		free(name);
		name = s->c.files[i];
		r = stat(name, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
		if (r < 0) {
			cont_why(why, whylen, "split raw set: segment %s: %s", name,
				 r == -EINVAL ? "not a regular file" : strerror(-r));
			return r;
		}
		if (i == 0)
			s->seg = (uint64_t)st.st_size;
		else if ((uint64_t)st.st_size > s->seg || (i < s->n - 1 && (uint64_t)st.st_size != s->seg))
			return sizes_fail(why, whylen, name, (uint64_t)st.st_size, s->c.files[0], s->seg);
		if (total > UINT64_MAX - (uint64_t)st.st_size)
			return -EFBIG;
		total += (uint64_t)st.st_size;
	}
	if (s->seg == 0) {
		cont_why(why, whylen, "split raw set: segment %s is empty", s->c.files[0]);
		return -EINVAL;
	}
	s->c.info.media_size = total;
	return 0;
}

/* Segment i's descriptor, opened (and another closed) when needed; the lock is held. */
static int seg_fd(struct split *s, size_t i)
{
	if (s->fds[i] >= 0)
		return s->fds[i];
	if (s->nopen >= SPLIT_OPEN) {
		while (s->fds[s->victim % s->n] < 0 || s->victim % s->n == i)
			s->victim++;
		close(s->fds[s->victim % s->n]);
		s->fds[s->victim++ % s->n] = -1;
		s->nopen--;
	}
	s->fds[i] = open(s->c.files[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (s->fds[i] < 0)
		return -errno;
	s->nopen++;
	return s->fds[i];
}

static int split_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	struct split *s = d->priv;
	uint8_t *p = buf;
	int r = 0;

	pthread_mutex_lock(&s->lock);
	while (len && r >= 0) {
		size_t i = (size_t)(off / s->seg);
		uint64_t in = off % s->seg;
		size_t chunk = s->seg - in < len ? (size_t)(s->seg - in) : len;
		ssize_t got;

		if (chunk > (size_t)INT_MAX)
			chunk = (size_t)INT_MAX;
		if ((r = seg_fd(s, i)) < 0)
			break;
		got = pread(r, p, chunk, (off_t)in);
		if (got < 0 && errno == EINTR)
			continue;
		r = got < 0 ? -errno : got == 0 ? -EIO : 0;	/* 0: a segment shrank under us */
		p += got > 0 ? got : 0;
		off += got > 0 ? (uint64_t)got : 0;
		len -= got > 0 ? (size_t)got : 0;
	}
	pthread_mutex_unlock(&s->lock);
	return r < 0 ? r : 0;
}

static void split_close(struct fsc_dev *d)
{
	struct split *s = d->priv;

	for (size_t i = 0; s->fds && i < s->n; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	free(s->fds);
	pthread_mutex_destroy(&s->lock);
	cinfo_free(&s->c);
	free(s);
}

static const struct dev_ops split_ops = {
	.name = "split",
	.read = split_read,
	.write = cont_nowrite,
	.close = split_close,
};

/* The set path belongs to, checked: s->n segments from index *first; 0 when path is no set of two or more. */
static int find_set(struct split *s, const char *path, uint64_t *first, char *why, size_t whylen)
{
	uint64_t *idx, me;
	long n;
	int r;

	if (!parse_name(path, &s->sn, &me))
		return 0;
	n = list_segments(&s->sn, &idx);
	if (n < 0)
		return (int)n;
	if (n < 2 || idx[0] > first_index(&s->sn, idx) + 1)
		r = 0;		/* not a set */
	else if ((r = check_run(&s->sn, idx, (size_t)n, why, whylen)) == 0) {
		s->n = (size_t)n;
		*first = idx[0];
		r = 1;
	}
	free(idx);
	return r;
}

int split_open(const char *path, struct fsc_dev **out, char *why, size_t whylen)
{
	struct split *s = calloc(1, sizeof(*s));
	uint64_t first = 0;
	int r;

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->c.info.format = FSC_CONTAINER_SPLIT;
	r = find_set(s, path, &first, why, whylen);
	if (r > 0 && (r = add_segments(s, first, why, whylen)) == 0)
		r = (s->fds = malloc(s->n * sizeof(*s->fds))) ? 1 : -ENOMEM;
	if (r > 0) {
		for (size_t i = 0; i < s->n; i++)
			s->fds[i] = -1;
		if ((*out = cont_dev_new(&split_ops, s, &s->c)))
			return 1;
		r = -ENOMEM;
	}
	split_close(&(struct fsc_dev){ .priv = s });
	return r;
}
