// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_replay.c - a sound FAT directory's part of the walk, kept by a
 * repair's first check and done again from that record by the checks of
 * its later rounds (check/engine.h struct ck_replay, which replay.c
 * writes and reads; repair/memo.c keeps it).
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
 * either order) the replay ends (engine.h says why), and the planner
 * makes the check again without replays.  A file's size is given back as
 * one of as many clusters, which is all its claim judges while it makes
 * no finding.
 */
#include "config.h"

#include "check/fat_walk.h"

/* ---- the first check: the record ---- */

void fw_hold_begin(struct ftree *t, const struct job *j)
{
	ck_rec_begin(&t->hold, j->first, t->dm.keep && !t->is_root && !j->later && t->v->hooks->memo.dir_held);
	t->hold_parent = j->parent;
}

/* The entry at t->cl, t->ent: a file's allocation (name NULL) or a subdirectory. */
void fw_hold(struct ftree *t, const char *name, uint32_t first, uint32_t size)
{
	struct ck_rec_ent x = { name ? CK_REC_DIR : CK_REC_FILE, false, first, 0, t->cl, t->ent, name };

	if (!t->hold.ok)
		return;		/* (every check but a repair's first: nothing kept) */
	x.clusters = name ? 0 : ((uint64_t)size + t->v->cb - 1) / t->v->cb;
	ck_rec_put(&t->hold, &x);
}

/* The directory read was found sound: what it holds, to the hook. */
void fw_hold_end(struct ftree *t)
{
	const struct ck_replay r = ck_rec_made(&t->hold, t->hold_parent, t->tail_unread);

	if (t->hold.ok)
		t->v->hooks->memo.dir_held(t->v->hooks->ctx, &t->dm.key, &r);
}

/* ---- a later check: the replay ---- */

bool fw_replay_begin(struct ftree *t, const struct job *j, struct ck_rec_it *it)
{
	struct fvol *v = t->v;
	struct owner who = { t->dw.path, NULL, j->cl, j->ent, NULL, 0, false, 0, 0 };
	struct chain_res res;
	struct ck_replay r;

	/* (copies that differ: the walk tells the planner which allocations pass them, read) */
	if (!t->dm.known || t->replay_off || t->is_root || j->later || v->differ || !hooked(t) ||
	    !v->hooks->memo.dir_replay || !v->hooks->memo.replay_lost || !v->hooks->memo.dir_replay(v->hooks->ctx, &t->dm.key, &r) ||
	    r.parent != j->parent)
		return false;
	ck_rec_read(it, &r, j->first);
	t->replay_tail_unread = r.tail_unread;
	v->ck.sum->dirs++;
	ck_claim(&v->ck, &who, j->first, 0, false, &res, ck_rec_cluster, &v->ck);
	if (v->hooks->claimed)
		v->hooks->claimed(v->hooks->ctx, j->first, 0, true, false, false);
	if (!res.contiguous)
		v->ck.sum->fragmented++;
	return true;
}

bool fw_replay_next(struct ftree *t, struct ck_rec_it *it, struct ck_rec_ent *x, uint32_t *size)
{
	if (!ck_rec_next(it, x))
		return false;
	if (x->kind == CK_REC_TAIL || x->nofat || x->clusters > ((uint64_t)UINT32_MAX + t->v->cb - 1) / t->v->cb) {
		it->bad = true;		/* (not a FAT walk's record) */
		return false;
	}
	*size = x->clusters ? (uint32_t)((x->clusters - 1) * t->v->cb + 1) : 0;
	t->cl = x->cl;
	t->ent = x->ent;
	return true;
}

void fw_replay_end(struct ftree *t, const struct ck_rec_it *it, uint64_t raised)
{
	struct fvol *v = t->v;

	v->ck.sum->dirs_to_end_marker += t->replay_tail_unread;
	if (v->ck.raised != raised || it->bad) {
		t->replay_off = true;
		v->hooks->memo.replay_lost(v->hooks->ctx);
	}
}
