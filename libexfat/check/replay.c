// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay.c - the record of what a sound directory held for the walk
 * (engine.h struct ck_replay, which says what it holds and how it is
 * written): written by a repair's first check, read by the checks of its
 * later rounds (fat_replay.c; exfat_tree.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/engine.h"
#include "base/base.h"

void ck_rec_begin(struct ck_rec *r, uint32_t base, bool keep)
{
	r->n = 0;
	r->tail_at = SIZE_MAX;
	r->base = r->pred = base;
	r->ok = keep;
}

static void put_num(struct ck_rec *r, uint64_t v)
{
	if (!r->ok || !grow((void **)&r->v, &r->cap, r->n + 10, 1)) {
		r->ok = false;		/* (no memory: the directory is read again) */
		return;
	}
	for (; v >= 0x80; v >>= 7)
		r->v[r->n++] = (uint8_t)(v | 0x80);
	r->v[r->n++] = (uint8_t)v;
}

static uint64_t zigzag(uint32_t v, uint32_t from)
{
	return v >= from ? 2 * (uint64_t)(v - from) : 2 * (uint64_t)(from - v) - 1;
}

void ck_rec_put(struct ck_rec *r, const struct ck_rec_ent *x)
{
	size_t len = x->kind == CK_REC_DIR ? strlen(x->name) + 1 : 0;

	if (!r->ok)
		return;
	if (x->kind == CK_REC_TAIL && r->tail_at == SIZE_MAX)
		r->tail_at = r->n;
	put_num(r, zigzag(x->first, x->kind == CK_REC_TAIL ? r->base : r->pred) << 3 | (uint64_t)x->nofat << 2 | x->kind);
	if (x->kind == CK_REC_TAIL) {
		put_num(r, x->ent);
		return;
	}
	put_num(r, x->clusters);
	if (x->kind == CK_REC_FILE) {
		r->pred = x->first + (uint32_t)x->clusters;
		return;
	}
	put_num(r, zigzag(x->cl, r->base));
	put_num(r, x->ent);
	put_num(r, len);
	if (r->ok && grow((void **)&r->v, &r->cap, r->n + len, 1)) {
		memcpy(r->v + r->n, x->name, len);
		r->n += len;
	} else {
		r->ok = false;
	}
	r->pred = x->first + 1;
}

struct ck_replay ck_rec_made(const struct ck_rec *r, uint32_t parent, bool tail_unread)
{
	return (struct ck_replay){ parent, tail_unread, r->v, r->n, r->tail_at < r->n ? r->tail_at : r->n };
}

void ck_rec_read(struct ck_rec_it *it, const struct ck_replay *r, uint32_t base)
{
	size_t at = r->tail_at < r->len ? r->tail_at : r->len;

	*it = (struct ck_rec_it){ r->rec, r->rec + at, base, base, false };
}

void ck_rec_read_tails(struct ck_rec_it *it, const struct ck_replay *r, uint32_t base)
{
	size_t at = r->tail_at < r->len ? r->tail_at : r->len;

	*it = (struct ck_rec_it){ r->rec + at, r->rec + r->len, base, base, false };
}

static bool get_num(struct ck_rec_it *it, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; it->p < it->end && shift < 64; shift += 7) {
		uint8_t b = *it->p++;

		*v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* from plus the zigzag number z, when that is a cluster number. */
static bool unzigzag(uint64_t z, uint32_t from, uint32_t *v)
{
	uint64_t d = (z + 1) / 2;

	if (z & 1 ? d > from : d > UINT32_MAX - from)
		return false;
	*v = z & 1 ? from - (uint32_t)d : from + (uint32_t)d;
	return true;
}

bool ck_rec_next(struct ck_rec_it *it, struct ck_rec_ent *x)
{
	uint64_t head, a, b, len;

	if (it->bad || it->p == it->end)
		return false;
	memset(x, 0, sizeof(*x));
	if (!get_num(it, &head) || (head & 3) > CK_REC_TAIL ||
	    !unzigzag(head >> 3, (head & 3) == CK_REC_TAIL ? it->base : it->pred, &x->first) || !get_num(it, &a))
		goto bad;
	x->kind = (enum ck_rec_kind)(head & 3);
	x->nofat = head & 4;
	if (x->kind == CK_REC_TAIL) {
		if (a > UINT32_MAX)
			goto bad;
		x->ent = (uint32_t)a;
		return true;
	}
	x->clusters = a;
	if (x->kind == CK_REC_FILE) {
		it->pred = x->first + (uint32_t)a;
		return true;
	}
	if (!get_num(it, &a) || !unzigzag(a, it->base, &x->cl) || !get_num(it, &b) ||
	    b > UINT32_MAX || !get_num(it, &len) || !len || len > (uint64_t)(it->end - it->p) || it->p[len - 1])
		goto bad;
	x->ent = (uint32_t)b;
	x->name = (const char *)it->p;
	it->p += len;
	it->pred = x->first + 1;
	return true;
bad:
	it->bad = true;
	return false;
}

bool ck_rec_cluster(void *engine, uint32_t c)
{
	(void)c;
	ck_progress(engine, 1);
	return true;
}
