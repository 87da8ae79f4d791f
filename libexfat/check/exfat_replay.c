// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_replay.c - a sound exFAT directory's part of the walk, kept by a
 * repair's first check and done again from that record by the checks of
 * its later rounds (check/engine.h struct ck_replay, which replay.c
 * writes and reads; repair/memo.c keeps it), as fat_replay.c does for
 * FAT.
 *
 * The first check keeps, for each directory below the root it found
 * sound (dir_sound), what the walk did with its sets besides judging
 * them: each file's allocation claimed, each subdirectory's first
 * cluster held and pushed (with its set's place and its name), and where
 * each part of it past the end marker began (those parts were read and,
 * but where dirtail.c found an entry in use, found free).  A directory
 * with a benign secondary that claims clusters is not kept.  A later
 * check that finds the directory known (dir_known), every such part
 * known free (tail_known), and the volume's up-case table sound claims
 * the directory's chain, then its files' allocations, holds and pushes
 * its subdirectories, and reads nothing of it (exfat_tree.c replay_dir).
 *
 * As in FAT's: the claims are the walk's but for the directory's own
 * clusters, claimed first; a replay that makes a finding ends the
 * replays (engine.h says why) and the planner makes the check again
 * without them.
 */
#include "config.h"

#include "check/exfat_walk.h"

/* ---- the first check: the record ---- */

void xw_hold_begin(struct walk *w, const struct job *j)
{
	ck_rec_begin(&w->hold, j->first, w->dm.keep && !w->is_root && w->v->fix->memo.dir_held && !w->v->ck.owners_pass);
}

/* A file's set (d) as its claim judges it: its first cluster and its clusters (none: 0, 0). */
void xw_hold_file(struct walk *w, const struct exfat_set *d)
{
	struct ck_rec_ent x = { CK_REC_FILE, d->flags & EXFAT_STREAM_FLAG_NO_FAT_CHAIN, 0, 0, 0, 0, NULL };

	if (!w->hold.ok)
		return;		/* (every check but a repair's first: nothing kept) */
	if (d->first_cluster && d->size) {
		x.first = d->first_cluster;
		x.clusters = (d->size + w->v->cb - 1) / w->v->cb;
	}
	ck_rec_put(&w->hold, &x);
}

/* A subdirectory's set (d) pushed with size bytes (odd: its entry was reported; not kept then), named name. */
void xw_hold_dir(struct walk *w, const struct exfat_set *d, uint64_t size, bool odd, const char *name)
{
	const struct ck_rec_ent x = { CK_REC_DIR, d->flags & EXFAT_STREAM_FLAG_NO_FAT_CHAIN, d->first_cluster,
				      size / w->v->cb, w->as.at.cluster, w->as.at.entry, name };

	w->hold.ok &= !odd;
	ck_rec_put(&w->hold, &x);
}

/* The part of cluster c from byte at on, past the end marker (it went to dirtail.c). */
void xw_hold_tail(struct walk *w, uint32_t c, uint32_t at)
{
	const struct ck_rec_ent x = { CK_REC_TAIL, false, c, 0, 0, at / 32, NULL };

	ck_rec_put(&w->hold, &x);
}

/* The directory read was found sound: what it holds, to the hook. */
void xw_hold_end(struct walk *w)
{
	const struct ck_replay r = ck_rec_made(&w->hold, 0, w->tail_unread);

	if (w->hold.ok)
		w->v->fix->memo.dir_held(w->v->fix->ctx, &w->dm.key, &r);
}

/* ---- a later check: the replay ---- */

/* Is every part past the end marker the record names known free? */
static bool tails_known(struct walk *w, const struct ck_replay *r, uint32_t base)
{
	struct xvol *v = w->v;
	struct ck_rec_it it;
	struct ck_rec_ent x;

	for (ck_rec_read_tails(&it, r, base); ck_rec_next(&it, &x);)
		if (x.kind == CK_REC_TAIL &&
		    (!xv_cluster_valid(v, x.first) || x.ent >= v->cb / 32 ||
		     !v->fix->memo.tail_known(v->fix->ctx, xv_cluster_byte(v, x.first) + 32ull * x.ent, v->cb - 32ull * x.ent)))
			return false;
	return !it.bad;
}

bool xw_replay_begin(struct walk *w, const struct job *j, struct ck_rec_it *it, bool *tail_unread)
{
	struct xvol *v = w->v;
	struct owner who = { w->dw.path, NULL, j->at.cluster, j->at.entry, NULL, 0, false, 0, 0 };
	struct chain_res res;
	struct ck_replay r;

	if (!w->dm.known || w->replay_off || w->is_root || j->odd || !v->upcase_ok || v->ck.owners_pass ||
	    !v->fix->memo.dir_replay || !v->fix->memo.replay_lost || !v->fix->memo.tail_known ||
	    !v->fix->memo.dir_replay(v->fix->ctx, &w->dm.key, &r) || !tails_known(w, &r, j->first))
		return false;
	ck_rec_read(it, &r, j->first);
	*tail_unread = r.tail_unread;
	ck_claim_held(&v->ck, &who, j->first, j->size, j->nofat, j->held, &res, ck_rec_cluster, &v->ck);
	if (!j->nofat && !res.contiguous)
		v->ck.sum->fragmented++;
	/* (what a repair would hear of, read: not a replay's) */
	if (res.broken || res.crossed || (j->size && res.ended && res.clusters != j->size / v->cb))
		it->bad = true;
	return true;
}

void xw_replay_file(struct walk *w, struct ck_rec_it *it, const struct ck_rec_ent *x)
{
	struct xvol *v = w->v;
	struct owner who = { w->dw.path, NULL, 0, 0, NULL, 0, false, 0, 0 };
	struct chain_res res;

	v->ck.sum->files++;
	if (!x->first && !x->clusters)
		return;
	if (!x->first || !x->clusters || x->clusters > v->cc) {
		it->bad = true;		/* (not an exFAT walk's record) */
		return;
	}
	ck_claim(&v->ck, &who, x->first, (x->clusters - 1) * v->cb + 1, x->nofat, &res, NULL, NULL);
	if (!res.contiguous)
		v->ck.sum->fragmented++;
	ck_progress(&v->ck, res.clusters);
	if (res.crossed || res.broken || !res.ended || res.clusters != x->clusters)
		it->bad = true;		/* (a chain the planner would hear of) */
}

void xw_replay_end(struct walk *w, const struct ck_rec_it *it, bool tail_unread, uint64_t raised)
{
	struct xvol *v = w->v;

	w->dirs++;
	v->ck.sum->dirs_to_end_marker += tail_unread;
	if (v->ck.raised != raised || it->bad) {
		w->replay_off = true;
		v->fix->memo.replay_lost(v->fix->ctx);
	}
}
