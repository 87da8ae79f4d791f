/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * base/base.h - the lowest layer of libexfat: the export attribute, bit
 * sets, growable arrays, UTF-16 <-> UTF-8 and the path table of tree
 * walks.  Knows nothing of any filesystem; not installed.
 */
#ifndef FSC_BASE_H
#define FSC_BASE_H

#include <stdlib.h>
#include <time.h>

#include "fatscope/fatscope.h"
#include "base/bytes.h"

#define FSC_EXPORT __attribute__((visibility("default")))

/* now (seconds since the epoch, UTC) as a DOS date << 16 | time; 0 before 1980. */
static inline uint32_t dos_datetime(int64_t now)
{
	time_t t = (time_t)now;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || tm.tm_year < 80 || tm.tm_year > 207)
		return 0;
	return (uint32_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday) << 16 |
	       (uint32_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
}

/* Make room in *p (of *cap elements of elem bytes) for need: doubles; false when out of memory. */
static inline bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc;
	void *np;

	if (need <= *cap)
		return true;
	nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, nc * elem);
	if (!np)
		return false;
	*p = np;
	*cap = nc;
	return true;
}

static inline bool bit_get(const uint64_t *b, uint64_t i)
{
	return (b[i >> 6] >> (i & 63)) & 1;
}

static inline void bit_set(uint64_t *b, uint64_t i)
{
	b[i >> 6] |= 1ull << (i & 63);
}

/* Set bit i; return whether it was set before. */
static inline void bit_clear(uint64_t *b, uint64_t i)
{
	b[i / 64] &= ~(1ull << (i % 64));
}

static inline bool bit_test_set(uint64_t *b, uint64_t i)
{
	bool was = bit_get(b, i);

	bit_set(b, i);
	return was;
}

static inline char tolower_ascii(uint8_t c)
{
	return (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
}

/*
 * dirwalk.c: the one core of every directory-tree walk (the exFAT and FAT
 * checks, fsc_walk_tree): the directories met, as (parent, name) nodes of
 * a path table (node 0 is the root), and the stack of directories waiting
 * to be read, parents before children.  A job is the walker's own record
 * of job_size bytes whose first member is its node (size_t).  Each family
 * decodes its own entries and pushes the directories they name.
 */
struct pathnode {
	size_t parent;
	char *name;
};
struct pathtab {
	struct pathnode *v;
	size_t n, cap;
};
int pathtab_init(struct pathtab *t);
/* The new node's index, or SIZE_MAX when out of memory. */
size_t pathtab_add(struct pathtab *t, size_t parent, const char *name);
/* "/a/b" for node n; a path too long for buf is cut at the front ("./b"). */
void pathtab_path(const struct pathtab *t, size_t n, char *buf, size_t len);
void pathtab_free(struct pathtab *t);

struct dirwalk {
	struct pathtab nodes;
	unsigned char *jobs;		/* waiting: the last pushed is read next */
	size_t job_size, njobs, capjobs;
	char prefix[4096];		/* the path of the directory the walk starts at ("" for the root) */
	char path[4096];		/* the directory being read: prefix and its path below it */
};
/* prefix: the start directory's path, or NULL for the root.  0, or -ENOMEM. */
int dirwalk_init(struct dirwalk *w, size_t job_size, const char *prefix);
void dirwalk_free(struct dirwalk *w);
/* A directory met in parent's entries: its node, or SIZE_MAX when out of memory. */
static inline size_t dirwalk_add(struct dirwalk *w, size_t parent, const char *name)
{
	return pathtab_add(&w->nodes, parent, name);
}
/* job waits to be read (copied); its slot, or NULL (its node SIZE_MAX, or out of memory: not read). */
void *dirwalk_push(struct dirwalk *w, const void *job);
/* The k-th job waiting from the bottom (k < njobs). */
static inline void *dirwalk_job(const struct dirwalk *w, size_t k)
{
	return w->jobs + k * w->job_size;
}
/* The next job into *job, with path set to its directory's; false when none waits. */
bool dirwalk_pop(struct dirwalk *w, void *job);
/* The path of node n (prefix, then its path below) into path. */
void dirwalk_path(struct dirwalk *w, size_t n);

/*
 * sized.c: a caller's struct that begins with its size (size_t size, as
 * the _INIT macros of fatscope.h set it) into dst, the library's version
 * of dsize bytes: members the caller's lacks are zero, dst's size is
 * dsize; src NULL gives all defaults.  0; -EINVAL when the size is not
 * set; -E2BIG when the caller's struct is larger and sets a member past
 * dsize (one this library does not know).
 */
int sized_copy(void *dst, size_t dsize, const void *src);
/*
 * A result struct of the caller's (dst, its size member first): whether
 * its size is set (a struct made with its _INIT macro); then its members
 * from the library's whole one (src, ssize bytes), as many as dst holds.
 * Members of a newer caller's past ssize keep what the caller set.
 * Returns r (the call's result, so that a public call ends with
 * "return sized_out(out, &own, sizeof(own), call(..., &own))").
 */
bool sized_out_ok(const void *dst);
int sized_out(void *dst, const void *src, size_t ssize, int r);

/* crc32.c: CRC-32 (IEEE) of n bytes at p, continuing crc (0 to start). */
uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n);

/* unicode.c: UTF-16LE -> UTF-8, invalid units as U+FFFD; always NUL-terminates. */
void utf16le_to_utf8(const uint8_t *in, size_t units, char *out, size_t outlen);
/* UTF-8 to UTF-16 units; the count, or -1 on invalid UTF-8 or more than max units. */
int utf8_to_utf16(const char *in, uint16_t *out, size_t max);

#endif
