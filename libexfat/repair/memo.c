// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memo.c - what a repair's first check found sound (struct rp_memo),
 * kept across the rounds of session.c so that the check of a later
 * round, on the plan's view, does again only what the plan changes:
 *
 *   tails  a directory cluster's part past its end marker, found free:
 *          not read again unless an edit lies over it.
 *   dirs   a directory read with no finding and no repair hook called,
 *          and the parts of it that were parsed, in order, each with the
 *          FAT entry of its cluster: a later check reading the same
 *          directory (the same key: its entry's FirstCluster, DataLength
 *          and NoFatChain, and the same up-case table and geometry) with
 *          no edit over those bytes nor those FAT entries parses the same
 *          bytes from the same state: its entries hold no finding of their
 *          own nor duplicate names, and are not judged again.  What is
 *          not theirs alone (the allocations claimed, the tree below) the
 *          later check still does.
 *
 *   held   what a sound directory below the root held for the walk
 *          (check/engine.h struct ck_replay): a later check that finds it
 *          known claims its files' allocations and pushes its
 *          subdirectories from this record, without reading it
 *          (check/fat_replay.c, check/exfat_replay.c).
 *
 * Memory: 24 bytes a part, 32 a directory (about 0.6 MiB for 10,000
 * directories); the records: 20 more a directory, some 2 a file, 5 and
 * its name a subdirectory, exFAT 2 or 3 a part past an end marker (about
 * 0.4 MiB for 100,000 files in 10,000 directories); under memory pressure
 * less is kept, and more is done again.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"
#include "check/fat_check.h"

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

/*
 * A directory the first round found sound, and its parts (not kept
 * without memory: it is judged again).  One of another judge comes from
 * a walk of the first round that replaces the one before (FAT: the check
 * through another FAT copy): what that one kept is dropped.
 */
void rp_memo_keep_dir(struct rp_memo *m, const struct ck_dir_key *key, const struct ck_part *p, size_t n)
{
	if (m->ndirs && key->judge != m->judge)
		m->ndirs = m->nparts = m->nheld = m->nrec = 0;
	if (!n || n > UINT32_MAX || m->nparts > UINT32_MAX - n ||
	    !grow((void **)&m->dirs, &m->capdirs, m->ndirs + 1, sizeof(*m->dirs)) ||
	    !grow((void **)&m->parts, &m->capparts, m->nparts + n, sizeof(*m->parts)))
		return;
	memcpy(m->parts + m->nparts, p, n * sizeof(*p));
	m->judge = key->judge;
	m->dirs[m->ndirs++] = (struct rp_memo_dir){ key->size, key->first, (uint32_t)m->nparts, (uint32_t)n, UINT32_MAX,
						    key->nofat };
	m->nparts += n;
	m->sorted = false;
}

/* Order by FirstCluster, DataLength, NoFatChain. */
static int cmp_key(const void *x, const void *y)
{
	const struct rp_memo_dir *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->nofat != b->nofat ? (a->nofat ? 1 : -1) : 0;
}


/* In a later round: the directory of key the first round kept, or NULL. */
static const struct rp_memo_dir *find_dir(struct rp_memo *m, const struct ck_dir_key *key)
{
	struct rp_memo_dir want = { key->size, key->first, 0, 0, 0, key->nofat };
	size_t lo = 0, hi = m->ndirs;

	if (m->first || !m->over || !m->ndirs || key->judge != m->judge)
		return NULL;
	if (!m->sorted) {
		qsort(m->dirs, m->ndirs, sizeof(*m->dirs), cmp_key);
		m->sorted = true;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_key(&m->dirs[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == m->ndirs || cmp_key(&m->dirs[lo], &want) ? NULL : &m->dirs[lo];
}

/*
 * In a later round: the parts of the directory key the first round found
 * sound, when the plan changes none of their bytes nor the FAT entries
 * of their clusters; else NULL.  (Two directories of one key are one
 * directory's entry seen twice, a cross-link the first round reported:
 * neither was kept.)
 */
const struct ck_part *rp_memo_dir_known(struct rp_memo *m, const struct ck_dir_key *key, size_t *n)
{
	const struct rp_memo_dir *d = find_dir(m, key);
	const struct ck_part *p;

	if (!d)
		return NULL;
	p = m->parts + d->at;
	for (size_t k = 0; k < d->n; k++)
		if (plan_touches(m->over, p[k].off, p[k].len) || (p[k].fat && plan_touches(m->over, p[k].fat, 4)))
			return NULL;
	*n = d->n;
	return p;
}

/*
 * What the directory of key held for the walk, kept with it when it is
 * the last directory kept (none kept without memory: it is read again).
 */
void rp_memo_keep_held(struct rp_memo *m, const struct ck_dir_key *key, const struct ck_replay *r)
{
	struct rp_memo_dir *d = m->ndirs ? &m->dirs[m->ndirs - 1] : NULL;

	if (!d || m->sorted || d->first != key->first || d->size != key->size || d->nofat != key->nofat ||
	    d->held != UINT32_MAX || m->nheld >= UINT32_MAX || r->len > UINT32_MAX - m->nrec ||
	    !grow((void **)&m->held, &m->capheld, m->nheld + 1, sizeof(*m->held)) ||
	    (r->len && !grow((void **)&m->rec, &m->caprec, m->nrec + r->len, 1)))
		return;
	if (r->len)
		memcpy(m->rec + m->nrec, r->rec, r->len);
	m->held[m->nheld] = (struct rp_memo_held){ r->parent, (uint32_t)m->nrec, (uint32_t)r->len,
						   (uint32_t)(r->tail_at < r->len ? r->tail_at : r->len), r->tail_unread };
	d->held = (uint32_t)m->nheld++;
	m->nrec += r->len;
}

/* In a later round: what the directory of key held (dir_known has found it known), unless replays are off. */
bool rp_memo_replay(struct rp_memo *m, const struct ck_dir_key *key, struct ck_replay *r)
{
	const struct rp_memo_dir *d = m->no_replay ? NULL : find_dir(m, key);
	const struct rp_memo_held *h;

	if (!d || d->held == UINT32_MAX)
		return false;
	h = &m->held[d->held];
	*r = (struct ck_replay){ h->parent, h->tail_unread, m->rec + h->at, h->len, h->tail_at };
	return true;
}

/* The first round's scan of the FAT copies: m takes its arrays. */
void rp_memo_keep_scan(struct rp_memo *m, struct fv_scan_memo *scan)
{
	if (m->scan) {
		free(m->scan->free);
		free(m->scan->used);
	} else if (!(m->scan = malloc(sizeof(*m->scan)))) {
		free(scan->free);
		free(scan->used);
		return;
	}
	*m->scan = *scan;
}

/* ---- the check's hooks (ctx: the struct rp of the round) ---- */

static void keep_tails(void *ctx, const struct dt_span *s, size_t n)
{
	rp_memo_keep_tails(((struct rp *)ctx)->memo, s, n);
}

static void keep_dir(void *ctx, const struct ck_dir_key *key, const struct ck_part *p, size_t n)
{
	rp_memo_keep_dir(((struct rp *)ctx)->memo, key, p, n);
}

static bool tail_known(void *ctx, uint64_t off, uint64_t len)
{
	return rp_memo_tail_known(((struct rp *)ctx)->memo, off, len);
}

static const struct ck_part *dir_known(void *ctx, const struct ck_dir_key *key, size_t *n)
{
	return rp_memo_dir_known(((struct rp *)ctx)->memo, key, n);
}

static void keep_held(void *ctx, const struct ck_dir_key *key, const struct ck_replay *r)
{
	rp_memo_keep_held(((struct rp *)ctx)->memo, key, r);
}

static bool dir_replay(void *ctx, const struct ck_dir_key *key, struct ck_replay *r)
{
	return rp_memo_replay(((struct rp *)ctx)->memo, key, r);
}

static void replay_lost(void *ctx)
{
	struct rp_memo *m = ((struct rp *)ctx)->memo;

	m->no_replay = m->replay_lost = true;
}

static void keep_scan(void *ctx, struct fv_scan_memo *scan)
{
	rp_memo_keep_scan(((struct rp *)ctx)->memo, scan);
}

static const struct fv_scan_memo *scan_known(void *ctx)
{
	const struct rp_memo *m = ((struct rp *)ctx)->memo;

	return m->first || !m->over ? NULL : m->scan;
}

static bool unchanged(void *ctx, uint64_t off, uint64_t len)
{
	return !plan_touches(((struct rp *)ctx)->memo->over, off, len);
}

void rp_memo_hook(struct ck_memo_hooks *h, const struct rp_memo *m)
{
	if (m->first) {
		h->dir_sound = keep_dir;
		h->dir_held = keep_held;
		h->tails_free = keep_tails;
		h->scan_sound = keep_scan;
	} else {
		h->dir_known = dir_known;
		h->dir_replay = dir_replay;
		h->replay_lost = replay_lost;
		h->tail_known = tail_known;
		h->scan_known = scan_known;
		h->unchanged = unchanged;
	}
}

void rp_memo_free(struct rp_memo *m)
{
	free(m->tails);
	free(m->dirs);
	free(m->parts);
	free(m->held);
	free(m->rec);
	if (m->scan) {
		free(m->scan->free);
		free(m->scan->used);
		free(m->scan);
	}
	*m = (struct rp_memo){ 0 };
}
