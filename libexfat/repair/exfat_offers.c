// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_offers.c - what the exFAT walk offers the planner (the xv_fix
 * hooks of a repair, xr_offers): the file sets it reports, kept until the
 * walk is over (nothing is planned inside it); the renames of duplicate
 * names; with exfat_dir.c's directories and exfat_revive.c's end markers.
 * And the check that gathers them, made again without replays when a
 * replayed directory made a finding (check/exfat_replay.c).
 *
 * Consumes: the walk's reports.  Produces: r->defer, r->dups (and through
 * the other files r->dirs, r->marks), dropped again with the findings
 * when the check is made again.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

/* Keep a for later in d (its entries and places, not the 12 KiB struct); false: no memory. */
static bool defer_keep(struct deferred *d, const struct exfat_asm *a)
{
	unsigned n = a->count > a->have ? a->count : a->have;

	d->n = n > 256 ? 256 : n;
	d->head = (struct exfat_asm_head){ a->have, a->need, a->count, a->flags, a->max_secondary, a->deleted,
					   a->cut_by, a->at };
	if (!(d->bytes = malloc(d->n * (32 + sizeof(*a->pos)) + 1)))
		return false;
	memcpy(d->bytes, a->set, 32ull * d->n);
	memcpy(d->bytes + 32ull * d->n, a->pos, d->n * sizeof(*a->pos));
	return true;
}

/* The set d keeps, made whole again in t. */
const struct exfat_asm *xr_defer_set(const struct deferred *d, struct exfat_asm *t)
{
	const struct exfat_asm_head *h = &d->head;

	t->have = h->have;
	t->need = h->need;
	t->count = h->count;
	t->flags = h->flags;
	t->max_secondary = h->max_secondary;
	t->deleted = h->deleted;
	t->cut_by = h->cut_by;
	t->at = h->at;
	memcpy(t->set, d->bytes, 32ull * d->n);
	memcpy(t->pos, d->bytes + 32ull * d->n, d->n * sizeof(*t->pos));
	return t;
}

/*
 * The walk reports a set; nothing is planned inside it.  A set offered
 * with a broken chain waits for the whole walk: a cut is planned only
 * when no cross-link was found anywhere (a cut cluster could be another
 * file's).  So does a set whose extent its checksum may take back
 * (xr_undo_size_flip): a change that moves the file fits only onto
 * clusters no other allocation holds, which only the whole walk knows.
 * The rest (now) is planned first once the walk is over (plan_now).
 * What a kept set takes (its entries, their places, its path: some 400
 * bytes for a file with a short name) is of the order of the edits it
 * will plan, so none is planned in the walk, however many there are.
 */
static void fix_set(void *ctx, const struct xvol *v, const struct exfat_asm *a, int32_t want_hash,
		    const struct chain_res *chain, const char *path)
{
	struct rp *r = ctx;
	struct deferred *d;

	if (!grow((void **)&r->defer, &r->capdefer, r->ndefer + 1, sizeof(*r->defer))) {
		r->err = -ENOMEM;
		return;
	}
	d = &r->defer[r->ndefer];
	d->path = strdup(path);
	if (!d->path || !defer_keep(d, a)) {
		free(d->path);
		r->err = -ENOMEM;
		return;
	}
	d->done = false;
	d->now = !chain && !xr_undo_possible(v, a->set, a->count, want_hash, true);
	d->want_hash = want_hash;
	d->chained = chain != NULL;
	d->chain = chain ? *chain : (struct chain_res){ 0 };
	r->ndefer++;
}

static void note_rename(void *ctx, uint32_t cluster, uint32_t entry, unsigned pos, uint16_t unit)
{
	struct rp *r = ctx;

	if (!grow((void **)&r->dups, &r->capdups, r->ndups + 1, sizeof(*r->dups))) {
		r->err = -ENOMEM;
		return;
	}
	r->dups[r->ndups++] = (struct dup_rename){ cluster, entry, pos, unit };
}

/* What the walk offered, dropped (the volume is checked again). */
void xr_forget_offers(struct rp *r)
{
	for (size_t i = 0; i < r->ndefer; i++) {
		free(r->defer[i].bytes);
		free(r->defer[i].path);
	}
	r->ndefer = r->ndups = r->nmarks = 0;
	xr_free_dirs(r);
	r->upcase_moved = r->new_upcase = false;
	r->upcase_back_to = 0;
}

/*
 * The check with the walk's offers; made again without replays when a
 * replayed directory made a finding (check/exfat_replay.c): what the walk
 * offered and the findings it made are dropped.
 */
int xr_check_offers(struct rp *r, struct fsc_dev *dev, const struct fsc_check_opts *o,
		    struct fsc_check_summary *sum, const struct xv_fix *fix, struct xvol **v)
{
	size_t n0 = r->out->n;
	int ret = exfat_check_with(dev, r->p, o, r->out, sum, fix, v);

	if (ret < 0 || !r->memo || !r->memo->replay_lost)
		return ret;
	r->memo->replay_lost = false;
	xv_free(*v);
	*v = NULL;
	rp_findings_cut(r, n0);
	xr_forget_offers(r);
	return exfat_check_with(dev, r->p, o, r->out, sum, fix, v);
}

const struct xv_fix xr_offers = {
	.set = fix_set, .rename = note_rename, .dir = xr_note_dir, .upcase = xr_upcase_choose,
	.end_mark = xr_revive_note_mark,
};

