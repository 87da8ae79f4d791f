// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memo.c - what a repair's first check found sound (struct rp_memo),
 * kept across the rounds of session.c so that the check of a later
 * round, on the plan's view, does again only what the plan changes:
 *
 *   tails  a directory cluster's part past its end marker, found free:
 *          not read again unless an edit lies over it.
 *   dirs   a directory read with no finding and no repair hook called,
 *          and the parts of it that were parsed, in order: a later
 *          check reading the same directory (the same key: its entry's
 *          FirstCluster, DataLength and NoFatChain, and the same up-case
 *          table and geometry) sees its part k where the first saw it,
 *          with no edit over those bytes nor over the FAT entry of their
 *          cluster, so the same bytes parsed from the same state: the
 *          entries hold no finding of their own, and are not judged
 *          again.  What is not their own (names compared, allocations
 *          claimed, the tree below) the later check still does.
 *
 * Memory: 16 bytes a part, 40 a directory (about 0.6 MiB for 10,000
 * directories); under memory pressure less is kept, and more is done
 * again.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

static int cmp_span_end(const void *x, const void *y)
{
	const struct dt_span *a = x, *b = y;

	return a->off + a->len < b->off + b->len ? -1 : a->off + a->len > b->off + b->len;
}

/* The first round's parts found free, sorted by where they end (none kept without memory: all are read). */
void rp_memo_keep_tails(struct rp_memo *m, const struct dt_span *s, size_t n)
{
	free(m->tails);
	m->tails = n ? malloc(n * sizeof(*s)) : NULL;
	m->ntails = m->tails ? n : 0;
	if (!m->ntails)
		return;
	memcpy(m->tails, s, n * sizeof(*s));
	qsort(m->tails, n, sizeof(*s), cmp_span_end);
}

/* Is [off, off + len) within a part the first round found free, and no edit of the plan over it? */
bool rp_memo_tail_known(const struct rp_memo *m, uint64_t off, uint64_t len)
{
	size_t lo = 0, hi = m->ntails;

	if (m->first || !m->over || !len)
		return false;
	while (lo < hi) {		/* the part that ends where this one does */
		size_t mid = (lo + hi) / 2;

		if (m->tails[mid].off + m->tails[mid].len < off + len)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->ntails && m->tails[lo].off + m->tails[lo].len == off + len && m->tails[lo].off <= off &&
	       !plan_touches(m->over, off, len);
}

/* A directory the first round found sound, and its parts (not kept without memory: it is judged again). */
void rp_memo_keep_dir(struct rp_memo *m, const struct xv_dir_key *key, const struct dt_span *s, size_t n)
{
	if (!n || !grow((void **)&m->dirs, &m->capdirs, m->ndirs + 1, sizeof(*m->dirs)) ||
	    !grow((void **)&m->spans, &m->capspans, m->nspans + n, sizeof(*m->spans)))
		return;
	memcpy(m->spans + m->nspans, s, n * sizeof(*s));
	m->dirs[m->ndirs++] = (struct rp_memo_dir){ *key, m->nspans, n };
	m->nspans += n;
	m->sorted = false;
}

static int cmp_key(const struct xv_dir_key *a, const struct xv_dir_key *b)
{
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->nofat != b->nofat)
		return a->nofat ? 1 : -1;
	return a->judge < b->judge ? -1 : a->judge > b->judge;
}

static int cmp_dir(const void *x, const void *y)
{
	return cmp_key(&((const struct rp_memo_dir *)x)->key, &((const struct rp_memo_dir *)y)->key);
}

/* The directory kept under key (the first of them: two with one key hold the same bytes), or NULL. */
static const struct rp_memo_dir *find_dir(struct rp_memo *m, const struct xv_dir_key *key)
{
	size_t lo = 0, hi = m->ndirs;

	if (!m->ndirs)
		return NULL;
	if (!m->sorted) {
		qsort(m->dirs, m->ndirs, sizeof(*m->dirs), cmp_dir);
		m->sorted = true;
		m->last = m->ndirs;
	}
	if (m->last < m->ndirs && !cmp_key(&m->dirs[m->last].key, key))
		return &m->dirs[m->last];	/* (its parts come in a row) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_key(&m->dirs[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->ndirs || cmp_key(&m->dirs[lo].key, key))
		return NULL;
	m->last = lo;
	return &m->dirs[lo];
}

/*
 * In a later round: is [off, off + len) the part k of the directory key
 * that the first round found sound, with no edit of the plan over it nor
 * over the FAT entry at fat (0: none)?
 */
bool rp_memo_chunk_known(struct rp_memo *m, const struct xv_dir_key *key, size_t k, uint64_t off, uint64_t len,
			 uint64_t fat)
{
	const struct rp_memo_dir *d;
	const struct dt_span *s;

	if (m->first || !m->over || !(d = find_dir(m, key)) || k >= d->n)
		return false;
	s = &m->spans[d->at + k];
	return s->off == off && s->len == len && !plan_touches(m->over, off, len) &&
	       !(fat && plan_touches(m->over, fat, 4));
}

/* ---- the check's hooks (ctx: the struct rp of the round) ---- */

static void keep_tails(void *ctx, const struct dt_span *s, size_t n)
{
	rp_memo_keep_tails(((struct rp *)ctx)->memo, s, n);
}

static void keep_dir(void *ctx, const struct xv_dir_key *key, const struct dt_span *s, size_t n)
{
	rp_memo_keep_dir(((struct rp *)ctx)->memo, key, s, n);
}

static bool tail_known(void *ctx, uint64_t off, uint64_t len)
{
	return rp_memo_tail_known(((struct rp *)ctx)->memo, off, len);
}

static bool chunk_known(void *ctx, const struct xv_dir_key *key, size_t k, uint64_t off, uint64_t len, uint64_t fat)
{
	return rp_memo_chunk_known(((struct rp *)ctx)->memo, key, k, off, len, fat);
}

void rp_memo_hook(struct xv_fix *fix, const struct rp_memo *m)
{
	if (m->first) {
		fix->tails_free = keep_tails;
		fix->dir_sound = keep_dir;
	} else {
		fix->tail_known = tail_known;
		fix->chunk_known = chunk_known;
	}
}

void rp_memo_free(struct rp_memo *m)
{
	free(m->tails);
	free(m->dirs);
	free(m->spans);
	*m = (struct rp_memo){ 0 };
}
