// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_replay.c - a sound directory's part of the walk, kept by a repair's
 * first check and done again from that record by the checks of its later
 * rounds (check/fat_check.h struct fv_replay; repair/memo.c keeps it).
 *
 * The first check hands the hook dir_held, for each directory below the
 * root it found sound (dir_sound), what the walk did with its entries
 * besides judging them: each file's allocation claimed, each
 * subdirectory pushed.  A later check that finds the directory known
 * (dir_known: the plan leaves its bytes and the FAT entries of its
 * clusters as they were) and reaches it from the same parent (so that its
 * .. is judged as before) claims the directory's chain, then its files'
 * allocations, and pushes its subdirectories, reading none of its
 * entries (fat_tree.c replay_dir): a check of the plan's view reads only
 * what the plan changed, and the directories below it.
 *
 * The claims are those the walk would make, in the same order but for
 * the directory's own clusters, which are all claimed first.  With no
 * finding the claimed set is the same set.  With one (the plan changed a
 * replayed file's chain, or laid a cross-link over it: there is one in
 * either order), the replayed entry has no name to give it, nor the walk
 * the place of its entry for a repair's offer: the walk replays no more
 * and says so (the hook replay_lost), and the planner makes that check
 * again without replays.
 *
 * The record, an entry after another, in unsigned LEB128 numbers (7 bits
 * a byte): a head, (z << 1) | dir, where z is the zigzag of the entry's
 * first cluster less the one expected (the cluster after the last file's
 * clusters: files mostly lie one after the other); then a file's size in
 * clusters, which is all its claim judges while it makes no finding; or a
 * subdirectory's entry (its cluster less the directory's first, its
 * index) and its name with its NUL (length, bytes).  About 2 bytes a
 * file, where the entries read are 64 or more.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/fat_walk.h"

/* ---- the first check: the record ---- */

void fw_hold_begin(struct ftree *t, const struct job *j)
{
	t->nhrec = 0;
	t->hold = t->dm.keep && !t->is_root && !j->later && t->v->hooks->dir_held;
	t->hold_parent = j->parent;
	t->hold_base = t->hold_pred = j->first;
}

static void put_num(struct ftree *t, uint64_t v)
{
	if (!t->hold || !grow((void **)&t->hrec, &t->caphrec, t->nhrec + 10, 1)) {
		t->hold = false;	/* (no memory: the directory is read again) */
		return;
	}
	for (; v >= 0x80; v >>= 7)
		t->hrec[t->nhrec++] = (uint8_t)(v | 0x80);
	t->hrec[t->nhrec++] = (uint8_t)v;
}

static uint64_t zigzag(uint32_t v, uint32_t from)
{
	return v >= from ? 2 * (uint64_t)(v - from) : 2 * (uint64_t)(from - v) - 1;
}

/* The entry at t->cl, t->ent: a file's allocation (name NULL) or a subdirectory. */
void fw_hold(struct ftree *t, const char *name, uint32_t first, uint32_t size)
{
	uint64_t need = ((uint64_t)size + t->v->cb - 1) / t->v->cb;
	size_t len = name ? strlen(name) + 1 : 0;

	if (!t->hold)
		return;
	put_num(t, zigzag(first, t->hold_pred) << 1 | (name != NULL));
	if (!name) {
		put_num(t, need);
		t->hold_pred = first + (uint32_t)need;
		return;
	}
	put_num(t, zigzag(t->cl, t->hold_base));
	put_num(t, t->ent);
	put_num(t, len);
	if (t->hold && grow((void **)&t->hrec, &t->caphrec, t->nhrec + len, 1)) {
		memcpy(t->hrec + t->nhrec, name, len);
		t->nhrec += len;
	} else {
		t->hold = false;
	}
	t->hold_pred = first + 1;
}

/* The directory read was found sound: what it holds, to the hook. */
void fw_hold_end(struct ftree *t)
{
	const struct fv_replay r = { t->hold_parent, t->tail_unread, t->hrec, t->nhrec };

	if (t->hold)
		t->v->hooks->dir_held(t->v->hooks->ctx, &t->dm.key, &r);
}

void fw_hold_free(struct ftree *t)
{
	free(t->hrec);
}

/* ---- a later check: the replay ---- */

/* A cluster of a replayed directory's chain: counted as read. */
static bool replayed_cluster(void *ctx, uint32_t c)
{
	struct ftree *t = ctx;

	(void)c;
	ck_progress(&t->v->ck, 1);
	return true;
}

bool fw_replay_begin(struct ftree *t, const struct job *j, struct fw_replay_it *it)
{
	struct fvol *v = t->v;
	struct owner who = { t->dw.path, NULL, j->cl, j->ent, NULL, 0, false, 0, 0 };
	struct chain_res res;
	struct fv_replay r;

	/* (copies that differ: the walk tells the planner which allocations pass them, read) */
	if (!t->dm.known || t->replay_off || t->is_root || j->later || v->differ || !hooked(t) ||
	    !v->hooks->dir_replay || !v->hooks->replay_lost || !v->hooks->dir_replay(v->hooks->ctx, &t->dm.key, &r) ||
	    r.parent != j->parent)
		return false;
	*it = (struct fw_replay_it){ r.rec, r.rec + r.len, j->first, j->first, v->cb, r.tail_unread, false };
	v->ck.sum->dirs++;
	ck_claim(&v->ck, &who, j->first, 0, false, &res, replayed_cluster, t);
	if (v->hooks->claimed)
		v->hooks->claimed(v->hooks->ctx, j->first, 0, true, false, false);
	if (!res.contiguous)
		v->ck.sum->fragmented++;
	return true;
}

static bool get_num(struct fw_replay_it *it, uint64_t *v)
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

/* from plus the zigzag number z, when it is a cluster number. */
static bool unzigzag(uint64_t z, uint32_t from, uint32_t *v)
{
	uint64_t d = (z + 1) / 2;

	if (z & 1 ? d > from : d > UINT32_MAX - from)
		return false;
	*v = z & 1 ? from - (uint32_t)d : from + (uint32_t)d;
	return true;
}

bool fw_replay_next(struct fw_replay_it *it, struct fw_replayed *x)
{
	uint64_t head, a, b, len;

	if (it->bad || it->p == it->end)
		return false;
	if (!get_num(it, &head) || !unzigzag(head >> 1, it->pred, &x->first) || !get_num(it, &a))
		goto bad;
	if (!(head & 1)) {
		if (a > ((uint64_t)UINT32_MAX + it->cb - 1) / it->cb)
			goto bad;
		x->size = a ? (uint32_t)((a - 1) * it->cb + 1) : 0;	/* (a size of a clusters) */
		x->name = NULL;
		x->cl = x->ent = 0;
		it->pred = x->first + (uint32_t)a;
		return true;
	}
	if (!unzigzag(a, it->base, &x->cl) || !get_num(it, &b) || b > UINT32_MAX || !get_num(it, &len) || !len ||
	    len > (uint64_t)(it->end - it->p) || it->p[len - 1])
		goto bad;
	x->ent = (uint32_t)b;
	x->size = 0;
	x->name = (const char *)it->p;
	it->p += len;
	it->pred = x->first + 1;
	return true;
bad:
	it->bad = true;		/* (not a record this file wrote: nothing more is replayed) */
	return false;
}

void fw_replay_end(struct ftree *t, const struct fw_replay_it *it, uint64_t raised)
{
	struct fvol *v = t->v;

	v->ck.sum->dirs_to_end_marker += it->tail_unread;
	if (v->ck.raised != raised || it->bad) {
		t->replay_off = true;
		v->hooks->replay_lost(v->hooks->ctx);
	}
}
