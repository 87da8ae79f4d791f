// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_repair.c - fsc_plan_repair for exFAT: the checker runs with a
 * planner beside it (struct xv_fix), and each fix becomes edits of one
 * plan.  Salvage first: no fix here deletes an entry or frees a cluster
 * that something owns.
 *
 *   before the walk  a broken up-case table to be replaced: names are
 *                    judged by the recommended table (exfat_upcase.c)
 *   during the walk  the walk reports the sets and directories to fix
 *                    (struct xv_fix, exfat_offers.c); nothing is planned
 *                    inside it
 *   after the walk   the sets' fields (exfat_sets.c), their chains and
 *                    cross-links, the directories; the volume label cut to 11 characters, its forbidden
 *                    characters made '_'; the new up-case table, the old one's clusters freed,
 *                    its entry; FAT entries 0 and 1; the allocation bitmap
 *                    (a bit set for every owned cluster, trailing bits
 *                    cleared, lost clusters freed only with free_lost);
 *                    PercentInUse; the main boot checksum when every
 *                    field is sound; VolumeFlags; the backup boot region
 *                    from a sound main one, last
 *
 * Write order (EXSPEC 8.1): VolumeDirty set and synced first, the fixes,
 * then VolumeDirty cleared (synced before) only when no error is left
 * unplanned, then the backup boot region.
 *
 * Consumes: a device, its exFAT probe, the level and the caller's answers.
 * Produces: the findings of the check, each fixed one with planned set,
 * and the plan.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

/* ---- file sets, offered by the walk ---- */

static bool is_chain_problem(enum fsc_problem id)
{
	return id == FSC_PR_EXFAT_CHAIN_FREE || id == FSC_PR_EXFAT_CHAIN_BAD || id == FSC_PR_EXFAT_CHAIN_RANGE ||
	       id == FSC_PR_EXFAT_CHAIN_LOOP || id == FSC_PR_EXFAT_CHAIN_SHORT || id == FSC_PR_EXFAT_CHAIN_LONG;
}

/* The first owners the cross-link findings name (their detail), sorted; added to as findings come. */
struct owners {
	char **v;
	size_t n, cap, built;		/* built: the findings looked at */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void owners_free(struct owners *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i]);
	free(o->v);
	*o = (struct owners){ 0 };
}

/* The owners of the findings made since the last call added (every one again after a cut). */
static bool owners_build(const struct rp *r, struct owners *o)
{
	size_t from = o->built, had;

	if (from > r->out->n) {
		owners_free(o);
		from = 0;
	}
	had = o->n;
	for (size_t i = from; i < r->out->n; i++) {
		if (r->out->v[i].id != FSC_PR_EXFAT_CROSS_LINK)
			continue;
		if (!grow((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v)) || !(o->v[o->n] = strdup(r->out->v[i].detail))) {
			owners_free(o);
			return false;
		}
		o->n++;
	}
	if (o->n > had)
		qsort(o->v, o->n, sizeof(*o->v), cmp_str);
	o->built = r->out->n;
	return true;
}

/* Does a cross-link name the allocation at path as the first owner of its cluster? */
static bool first_owner(const struct rp *r, struct owners *o, const char *path)
{
	if (!path)
		return false;
	if (owners_build(r, o))
		return o->n && bsearch(&path, o->v, o->n, sizeof(*o->v), cmp_str) != NULL;
	for (size_t i = 0; i < r->out->n; i++)	/* (out of memory for the index) */
		if (r->out->v[i].id == FSC_PR_EXFAT_CROSS_LINK && !strcmp(r->out->v[i].detail, path))
			return true;
	return false;
}

/*
 * A file's flipped link into another's cluster (xr_relink_into_xlink)
 * taken back before anything is cut or copied: the other, a directory
 * most of all, is whole again (seed 3, pop-4k #94: the directory given an
 * empty cluster before, its files lost).
 */
static bool relink_first(struct rp *r, struct xvol *v, const struct deferred *d, const uint8_t *set)
{
	const uint8_t *s = EXFAT_STREAM_OF(set);

	return d->chain.broken && !(s[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) &&
	       xr_relink_into_xlink_possible(r, v, exfat_stream_first_cluster(s), &d->chain,
					     (exfat_stream_data_length(s) + v->cb - 1) / v->cb);
}

/* The sets that had nothing to wait for, planned in the order the walk met them; the others stay in r->defer. */
static void plan_now(struct rp *r, struct xvol *v)
{
	struct exfat_asm *t = malloc(sizeof(*t));
	size_t kept = 0;

	if (!t) {
		r->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < r->ndefer; i++) {
		struct deferred *d = &r->defer[i];

		if (!d->now) {
			r->defer[kept++] = *d;
			continue;
		}
		xr_plan_set(r, v, xr_defer_set(d, t), d->want_hash, NULL, d->path);
		free(d->bytes);
		free(d->path);
	}
	r->ndefer = kept;
	free(t);
}

/*
 * First the files whose entry is what is wrong (a size or FirstCluster
 * their other fields contradict): mended, they may no longer cross or
 * break anything (a directory they ran into included), so no chain is cut
 * or copied in this round; the next round checks the mended volume.
 * Returns true when one was.
 */
static bool mend_deferred(struct rp *r, struct xvol *v)
{
	uint8_t probe[256 * 32];
	struct owners owners = { 0 };
	struct exfat_asm *t = malloc(sizeof(*t));
	bool mended = r->size_undone || r->upcase_relinked || r->bitmap_moved || r->upcase_moved || r->dirs_relinked;

	if (!t) {
		r->err = -ENOMEM;
		return false;
	}
	for (size_t i = 0; i < r->ndefer && !r->dirs_relinked; i++) {
		struct deferred *d = &r->defer[i];

		unsigned n = d->head.count < d->n ? d->head.count : d->n;

		memcpy(probe, d->bytes, 32ull * n);
		/* (a sound extent too, when the set is a cross-link's first owner or its run crossed another's) */
		r->undo_sound = first_owner(r, &owners, d->path) || (d->chained && d->chain.crossed);
		if ((!d->chained || (!xr_fix_extent_possible(v, &d->chain, probe) && !relink_first(r, v, d, probe))) &&
		    !xr_undo_size_flip(v, probe, n, d->want_hash, d->chained ? &d->chain : NULL, r->undo_sound,
				       &r->undo_triples)) {
			r->undo_sound = false;
			continue;
		}
		xr_plan_set(r, v, xr_defer_set(d, t), d->want_hash, d->chained ? &d->chain : NULL, d->path);
		r->undo_sound = false;
		d->done = mended = true;
	}
	for (size_t i = 0; mended && i < r->ndefer; i++) {
		struct deferred *d = &r->defer[i];

		if (!d->done && !r->dirs_relinked)	/* (a directory relinked: its sets are read whole next round) */
			xr_plan_set(r, v, xr_defer_set(d, t), d->want_hash, NULL, d->path);
		free(d->bytes);
		free(d->path);
	}
	free(t);
	owners_free(&owners);
	if (mended)
		r->ndefer = 0;
	return mended;
}

/* Did the set's chain run on past its size into a cluster another had first (its end mark hit)? */
static bool ran_on(const struct xvol *v, const struct deferred *d)
{
	const struct chain_res *ch = &d->chain;

	return d->chained && !ch->crossed && !ch->broken && !ch->ended &&
	       ch->good * v->cb >= exfat_stream_data_length(EXFAT_STREAM_OF(d->bytes));
}

/*
 * The sets that waited: cross-linked files get their copies first; then,
 * when every cross-link was copied apart, the broken chains are cut (else
 * a cut could take a cluster that is still another file's).
 */
static void plan_deferred(struct rp *r, struct xvol *v, size_t copied)
{
	struct exfat_asm *t = malloc(sizeof(*t));
	size_t crosses = 0;

	if (!t) {
		r->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < r->out->n; i++)
		crosses += r->out->v[i].id == FSC_PR_EXFAT_CROSS_LINK;
	for (size_t i = 0; i < r->ndefer; i++) {
		struct deferred *d = &r->defer[i];
		size_t before = r->nsets;

		if (!d->chain.crossed && !ran_on(v, d))
			continue;
		xr_plan_set(r, v, xr_defer_set(d, t), d->want_hash, d->chained ? &d->chain : NULL, d->path);
		copied += r->nsets > before && (r->sets[r->nsets - 1].ids & SF_CROSS);
	}
	for (size_t i = 0; i < r->ndefer; i++) {
		struct deferred *d = &r->defer[i];

		if (!d->chain.crossed && !ran_on(v, d))
			xr_plan_set(r, v, xr_defer_set(d, t), d->want_hash, copied == crosses && d->chained ? &d->chain : NULL,
				 d->path);
		free(d->bytes);
		free(d->path);
	}
	free(t);
	r->ndefer = 0;
}

static int cmp_sets(const void *x, const void *y)
{
	const struct set_fixed *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* Mark the findings of the fixed sets planned. */
static void mark_sets(struct rp *r, struct xvol *v)
{
	if (!r->nsets)
		return;
	qsort(r->sets, r->nsets, sizeof(*r->sets), cmp_sets);
	for (size_t i = 0; i < r->out->n; i++) {
		struct fsc_finding *f = &r->out->v[i];
		unsigned bit = f->id == FSC_PR_EXFAT_SET_CHECKSUM ? SF_CHECKSUM :
			       f->id == FSC_PR_EXFAT_NAME_HASH ? SF_HASH :
			       f->id == FSC_PR_EXFAT_VALID_DATA_LENGTH ? SF_VDL :
			       is_chain_problem(f->id) ? SF_CHAIN :
			       f->id == FSC_PR_EXFAT_NAME_CHARS || f->id == FSC_PR_EXFAT_NAME_DOT ? SF_NAME :
			       f->id == FSC_PR_EXFAT_CROSS_LINK ? SF_CROSS :
			       f->id == FSC_PR_EXFAT_ATTRIBUTES ? SF_ATTR :
			       f->id == FSC_PR_EXFAT_STREAM_FLAGS ? SF_FLAGS :
			       f->id == FSC_PR_EXFAT_EMPTY_NO_FAT_CHAIN ? SF_NOFAT :
			       f->id == FSC_PR_EXFAT_DIR_SIZE ? SF_DIRSIZE :
			       f->id == FSC_PR_EXFAT_FIRST_CLUSTER ? SF_FIRST :
			       f->id == FSC_PR_EXFAT_NAME_ENTRIES || f->id == FSC_PR_EXFAT_NAME_LENGTH ? SF_NAMELEN : 0;
		struct set_fixed key, *hit;

		if (!bit || f->loc_kind != FSC_LOC_ENTRY || !xv_cluster_valid(v, (uint32_t)f->loc))
			continue;
		key.off = xv_cluster_byte(v, (uint32_t)f->loc) + 32ull * f->entry;
		hit = bsearch(&key, r->sets, r->nsets, sizeof(*r->sets), cmp_sets);
		if (hit && (hit->ids & bit))
			f->planned = true;
	}
}

/* ---- the allocation bitmap ---- */

/* Byte i of a bit set (bit n of the set is bit n % 8 of byte n / 8, little-endian words). */
static inline uint8_t set_byte(const uint64_t *set, uint64_t i)
{
	return (uint8_t)(set[i / 8] >> (8 * (i % 8)));
}

/* The bits of byte i below n: a mask. */
static inline uint8_t below(uint64_t i, uint64_t n)
{
	return 8 * i >= n ? 0 : n - 8 * i >= 8 ? 0xFF : (uint8_t)((1u << (n - 8 * i)) - 1);
}

/* The new byte i of the bitmap (ClusterCount bits; clusters past the device's end kept). */
static uint8_t bitmap_byte(const struct xvol *v, const uint64_t *freed, uint64_t i, uint8_t old, bool set_owned,
			   bool free_lost, bool clear_trailing)
{
	uint8_t held = below(i, v->cc);
	uint8_t owned = held ? set_byte(v->ck.claimed, i) & held : 0;
	uint8_t gone = held && freed ? set_byte(freed, i) & held : 0;

	old &= (uint8_t)~gone;	/* released by the repair (exfat_upcase.c) */
	if (set_owned)
		old |= owned;
	if (free_lost)
		old &= (uint8_t)(owned | ~held);
	if (clear_trailing)
		old &= below(i, v->p->ex.cluster_count);
	return old;
}

/* Bytes of the bitmap in cluster k of its chain: [*from, *to). */
static void bitmap_span(const struct xvol *v, uint64_t k, uint64_t len, uint64_t *from, uint64_t *to)
{
	*from = k * v->cb;
	*to = *from + v->cb < len ? *from + v->cb : len;
}

/* Rewrite the bitmap cluster by cluster (r->freed cleared); count the clusters it marks. */
static void fix_bitmap(struct rp *r, struct xvol *v, bool set_owned, bool free_lost, bool trailing,
		       uint64_t *marked)
{
	const struct fsc_exfat_root *rt = &v->p->root;
	/* The clusters ClusterCount bits take, at most: a DataLength past them is not followed. */
	uint64_t need = ((uint64_t)v->p->ex.cluster_count + 7) / 8, from, to;
	uint64_t len = rt->bitmap_length < (need + v->cb - 1) / v->cb * v->cb ? rt->bitmap_length
									   : (need + v->cb - 1) / v->cb * v->cb;
	uint8_t *old = malloc(v->cb), *neu = malloc(v->cb);
	struct layout_chain it;
	uint32_t c;

	*marked = 0;
	xr_chain(&it, v, rt->bitmap_cluster, false);
	while (old && neu && !r->err && it.n * v->cb < len && layout_chain_next(&it, &c)) {
		uint64_t k = it.n - 1;

		bitmap_span(v, k, len, &from, &to);
		if (fsc_dev_read(v->dev, xv_cluster_byte(v, c), old, (size_t)(to - from)) < 0) {
			r->err = -EIO;
			break;
		}
		for (uint64_t i = from; i < to; i++) {
			neu[i - from] = bitmap_byte(v, r->freed, i, old[i - from], set_owned, free_lost, trailing);
			*marked += (uint64_t)__builtin_popcount(neu[i - from] &
								bitmap_byte(v, NULL, i, 0xFF, false, false, true));
		}
		for (uint64_t i = 0, j; i < to - from; i = j) {	/* one edit a run of changed bytes */
			for (; i < to - from && old[i] == neu[i]; i++)
				;
			for (j = i; j < to - from && (old[j] != neu[j] || (j + 1 < to - from && old[j + 1] != neu[j + 1])); j++)
				;
			if (j > i)
				rp_put(r, xv_cluster_byte(v, c) + i, neu + i, (size_t)(j - i), "allocation bitmap", false);
		}
	}
	if (!old || !neu)
		r->err = -ENOMEM;
	free(old);
	free(neu);
}

/* Are errors left that the plan does not fix? */
static bool errors_left(const struct rp *r)
{
	if (r->out->dropped)
		return true;
	for (size_t i = 0; i < r->out->n; i++)
		if (!r->out->v[i].planned && fsc_problem_info(r->out->v[i].id)->severity >= FSC_SEV_ERROR)
			return true;
	return false;
}

static void fix_fat_head(struct rp *r, struct xvol *v)
{
	uint8_t e[4];

	if (rp_take(r, FSC_PR_EXFAT_FAT_ENTRY0)) {
		exfat_fat_cell_put(e, EXFAT_FAT_ENTRY0);
		rp_put(r, v->fat_byte, e, EXFAT_FAT_ENTRY_SIZE, "FAT entry 0", false);
	}
	if (rp_take(r, FSC_PR_EXFAT_FAT_ENTRY1)) {
		exfat_fat_cell_put(e, EXFAT_FAT_ENTRY1);
		rp_put(r, v->fat_byte + EXFAT_FAT_ENTRY_SIZE, e, EXFAT_FAT_ENTRY_SIZE, "FAT entry 1", false);
	}
}

static void fix_allocation(struct rp *r, struct xvol *v)
{
	if (r->new_bitmap || r->bitmap_length_only)
		xr_bitmap_rebuild_link(r, v);
	if (r->new_bitmap || r->bitmap_moved)	/* (moved back: the bits are read where they are next round) */
		return;
	bool set_owned = rp_take_either(r, FSC_PR_EXFAT_BITMAP_UNMARKED, FSC_PR_EXFAT_BITMAP_CLUSTERS_FREE) ||
			 r->allocated;
	bool free_lost = r->o->free_lost && !r->defer_lost && (rp_take(r, FSC_PR_EXFAT_LOST_CLUSTERS) || r->unclaimed);
	bool trailing = rp_take(r, FSC_PR_EXFAT_BITMAP_TRAILING), freed = r->freed != NULL;
	uint8_t piu = v->p->ex.percent_in_use;
	uint64_t marked = v->ck.sum->clusters_marked, cc = v->p->ex.cluster_count;

	if (v->bitmap_ok && (set_owned || free_lost || trailing || freed))
		fix_bitmap(r, v, set_owned, free_lost, trailing, &marked);
	/* PercentInUse follows the bitmap as planned (it is outside the boot checksum). */
	bool bad_piu = rp_take(r, FSC_PR_EXFAT_BOOT_PERCENT_IN_USE);	/* over 100, not 0xFF */

	if (cc && (bad_piu || (piu <= 100 && (rp_take(r, FSC_PR_EXFAT_PERCENT_IN_USE_WRONG) || set_owned || free_lost ||
					      freed))))
		rp_put_percent_in_use(r, marked);
}

/* The clusters the repair released (r->freed) cleared in the bitmap, after a sync: nothing else yet. */
static void free_released(struct rp *r, struct xvol *v)
{
	size_t at = fsc_plan_count(r->plan);
	uint64_t marked;

	if (!r->freed || r->err)
		return;
	fix_bitmap(r, v, false, false, false, &marked);
	if (fsc_plan_count(r->plan) > at)
		plan_sync_before(r->plan, at);
}



/*
 * A chain problem left unplanned (a cross-link, a break, the root's chain):
 * the walk did not see what lies past it, so what it calls lost may be a
 * cut directory's files; nothing is saved (or freed) as lost this run
 * (seed 79, pop-c512 #24 without the up-case fix: the root cut by the
 * table's chain, and every run saved its files' clusters in a new
 * FOUND.nnn).
 */
static bool walk_unsettled(const struct rp *r)
{
	for (size_t i = 0; i < r->out->n; i++) {
		enum fsc_problem id = r->out->v[i].id;

		if (!r->out->v[i].planned && fsc_problem_info(id)->severity >= FSC_SEV_ERROR &&
		    (id == FSC_PR_EXFAT_CROSS_LINK || id == FSC_PR_EXFAT_ROOT_CHAIN || id == FSC_PR_EXFAT_CHAIN_FREE ||
		     id == FSC_PR_EXFAT_CHAIN_BAD || id == FSC_PR_EXFAT_CHAIN_RANGE || id == FSC_PR_EXFAT_CHAIN_LOOP))
			return true;
	}
	return false;
}

/*
 * After the check has returned, on the state it handed over (its claimed
 * set, the on-disk bitmap, the up-case table): what the walk's hooks could
 * not plan alone, then the FAT head, the allocation, the boot checksum and
 * the flags they leave.
 */
/* The planner of the passes below: the repair and the state the check handed over. */
struct xr_pass {
	struct rp *r;
	struct xvol *v;
};

/* Each pass as a step of the table: fn(r, v). */
#define XR_STEP(fn) RP_STEP(xr_pass, fn, x->r, x->v)

static void relink_dirs(struct rp *r, struct xvol *v)
{
	r->dirs_relinked = xr_relink_dirs_first(r, v);
}

static void bitmap_back(struct rp *r, struct xvol *v)
{
	r->bitmap_moved = xr_bitmap_back(r, v);
}

static void upcase_in_row(struct rp *r, struct xvol *v)
{
	r->upcase_relinked = xr_relink_upcase_in_row(r, v);
}

/*
 * A file's size or place mended: what the walk saw past it (a directory
 * it crossed, cut short there) is seen again next round; nothing is set
 * aside, revived or saved as lost on this round's view.
 */
static void mend(struct rp *r, struct xvol *v)
{
	r->mended = mend_deferred(r, v);
	if (r->mended)
		r->defer_lost = true;
}

static void dirs_and_chains(struct rp *r, struct xvol *v)
{
	plan_deferred(r, v, plan_dirs(r, v));
}

static void settle(struct rp *r, struct xvol *v)
{
	(void)v;
	if (walk_unsettled(r))
		r->defer_lost = true;
}

static void boot_region(struct rp *r, struct xvol *v)
{
	uint16_t flags = v->p->ex.volume_flags;

	r->boot_changed = xr_fix_revision(r);
	r->boot_changed |= xr_fix_boot_sectors(r, 1u << v->shift);
	if ((rp_find(r, FSC_PR_EXFAT_BOOT_CHECKSUM) && xr_boot_fields_sound(r) && rp_take(r, FSC_PR_EXFAT_BOOT_CHECKSUM)) ||
	    r->boot_changed)
		xr_fix_boot_checksum(r, 1u << v->shift);
	if (rp_take(r, FSC_PR_EXFAT_BOOT_VOLUME_FLAGS))
		flags &= (uint16_t)(0x0006 | (v->p->ex.num_fats >= 2 ? 1 : 0));
	r->flags = flags;
}

XR_STEP(xr_upcase_plan_choice)
XR_STEP(relink_dirs)
XR_STEP(plan_now)
XR_STEP(bitmap_back)
XR_STEP(xr_bitmap_rebuild_prepare)
XR_STEP(upcase_in_row)
XR_STEP(mend)
XR_STEP(dirs_and_chains)
XR_STEP(mark_sets)
XR_STEP(repair_orphan_entries)
XR_STEP(repair_label_length)
XR_STEP(repair_label_chars)
XR_STEP(xr_fix_duplicates)
XR_STEP(fix_fat_head)
XR_STEP(xr_fix_end_values)
XR_STEP(xr_fix_structure_chains)
XR_STEP(xr_revive_sets)
XR_STEP(settle)
XR_STEP(xr_upcase_prepare)
XR_STEP(free_released)
XR_STEP(xr_upcase_link)
XR_STEP(xr_lost_prepare)
XR_STEP(xr_lost_link)
XR_STEP(xr_lost_export)
XR_STEP(fix_allocation)
XR_STEP(boot_region)

static bool dirs_relinked(const void *p)
{
	return ((const struct xr_pass *)p)->r->dirs_relinked;
}

static bool mended(const void *p)
{
	return ((const struct xr_pass *)p)->r->mended;
}

/*
 * The exFAT passes after the check, in order.  What is planned first
 * shapes what follows: a flipped link taken back before any set is
 * planned over it, the bitmap to be built before anything is allocated,
 * a revived file before lost clusters are looked for (it owns its own),
 * a new up-case table's clusters freed before its entry, the recovery
 * directory linked before the bitmap marks it (exfat_lost.c), the boot
 * region last but the flags (finish_plan).
 */
static const struct rp_step exfat_steps[] = {
	{ "the up-case table the check chose", step_xr_upcase_plan_choice, NULL },
	{ "directory links flipped away, taken back", step_relink_dirs, NULL },
	{ "file sets the walk found wrong", step_plan_now, dirs_relinked },
	{ "the bitmap entry pointed back", step_bitmap_back, NULL },
	{ "a new allocation bitmap", step_xr_bitmap_rebuild_prepare, NULL },
	{ "the up-case chain in a row again", step_upcase_in_row, NULL },
	{ "sizes and links mended by a flip", step_mend, NULL },
	{ "directories, cut chains and cross-links", step_dirs_and_chains, mended },
	{ "the findings of the sets fixed", step_mark_sets, NULL },
	{ "entries outside any set", step_repair_orphan_entries, mended },
	{ "the label's length", step_repair_label_length, NULL },
	{ "the label's characters", step_repair_label_chars, NULL },
	{ "duplicate names", step_xr_fix_duplicates, mended },
	{ "FAT[0] and FAT[1]", step_fix_fat_head, NULL },
	{ "chain ends written as FFFFFFFF", step_xr_fix_end_values, NULL },
	{ "the bitmap's and up-case table's chains ended at their length", step_xr_fix_structure_chains, NULL },
	{ "sets revived after an end marker", step_xr_revive_sets, mended },
	{ "lost clusters wait while the walk is unsettled", step_settle, NULL },
	{ "a new up-case table written", step_xr_upcase_prepare, NULL },
	{ "released clusters freed", step_free_released, NULL },
	{ "the new up-case table's entry", step_xr_upcase_link, NULL },
	{ "lost clusters saved as files", step_xr_lost_prepare, NULL },
	{ "the recovery directory linked", step_xr_lost_link, NULL },
	{ "lost bytes exported", step_xr_lost_export, NULL },
	{ "the allocation bitmap and PercentInUse", step_fix_allocation, NULL },
	{ "the boot region", step_boot_region, NULL },
};

static int repair_done(struct rp *r, struct xvol *v)
{
	struct xr_pass x = { r, v };

	r->done = true;
	rp_run_steps(exfat_steps, sizeof(exfat_steps) / sizeof(exfat_steps[0]), &x);
	return r->err;
}

/*
 * Close the plan: the fixes bracketed by VolumeDirty (set and synced
 * before the first, cleared last only when no error is left unplanned,
 * else left set), then the backup boot region from the sound main one.
 * With no fix at all, only the flags change, if they do.
 */
static void finish_plan(struct rp *r, size_t start, bool dirty_added)
{
	uint16_t orig = r->p->ex.volume_flags, flags = r->flags;
	size_t fixes = fsc_plan_count(r->plan) - start - dirty_added;
	/* (a difference a restore from the backup answered is planned already: nothing to copy back) */
	const struct fsc_finding *differs = rp_find(r, FSC_PR_EXFAT_BACKUP_DIFFERS);
	bool backup = xr_main_boot_sound(r) &&
		      (rp_find(r, FSC_PR_EXFAT_BACKUP_CHECKSUM) || xr_backup_geometry_agrees(r, 1u << r->p->ex.sector_shift)) &&
		      (((rp_find(r, FSC_PR_EXFAT_BACKUP_CHECKSUM) || (differs && !differs->planned)) &&
			rp_take_either(r, FSC_PR_EXFAT_BACKUP_CHECKSUM, FSC_PR_EXFAT_BACKUP_DIFFERS)) ||
		       r->boot_changed);
	uint8_t f2[2];

	if (!errors_left(r) && (flags & 2) && rp_take(r, FSC_PR_EXFAT_BOOT_VOLUME_DIRTY))
		flags &= (uint16_t)~2;
	else if (errors_left(r) && fixes)
		flags |= EXFAT_VOLUME_FLAG_VOLUME_DIRTY;
	if (!fixes)
		plan_truncate(r->plan, start);
	else if (dirty_added)
		plan_sync_before(r->plan, start + 1);
	put_le_n(f2, sizeof(f2), flags);
	if (flags != orig || fixes)
		rp_put(r, EXFAT_BOOT_VOLUME_FLAGS, f2, 2, "VolumeFlags", fixes != 0);
	if (backup)
		xr_fix_backup(r, 1u << r->p->ex.sector_shift);
}

int exfat_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		      const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		      struct fsc_plan *plan, struct rp_memo *memo)
{
	struct fsc_check_opts o = co ? *co : (struct fsc_check_opts){ 0 };
	struct rp r = { .dev = dev, .p = p, .o = ro, .plan = plan, .out = out, .undo_triples = 16, .memo = memo };
	struct xv_fix fix = xr_offers;
	struct fsc_dev *restored = NULL;
	struct fsc_probe *p2 = NULL;
	struct xvol *v = NULL;
	size_t start;
	uint8_t f2[2];
	int ret;

	/* A FAT32 sector 0 lost over its backup: checked through the backup, nothing planned. */
	if (p->backup_type == FSC_TYPE_FAT32)
		return check_with(dev, p, co, out, sum);
	if (p->type != FSC_TYPE_EXFAT && !fsc_findings_has(&p->findings, FSC_PR_EXFAT_MAIN_BOOT_LOST)) {
		memset(sum, 0, sizeof(*sum));
		return -EINVAL;
	}
	/* Every finding counts: a fix needs its own, not the first hundred. */
	o.max_per_problem = UINT32_MAX;
	fix.ctx = &r;
	if (memo)
		rp_memo_hook(&fix.memo, memo);
	r.at_index = calloc(1, sizeof(*r.at_index));	/* (NULL: rp_set_finding scans) */
	/* A damaged main boot region first: the rest is checked as the restore leaves it. */
	if (xr_boot_restore(&r, &restored, &p2))
		r.p = p = p2;
	/* VolumeDirty next (dropped again when no fix comes). */
	start = fsc_plan_count(plan);
	put_le_n(f2, sizeof(f2), p->ex.volume_flags | EXFAT_VOLUME_FLAG_VOLUME_DIRTY);
	rp_put(&r, EXFAT_BOOT_VOLUME_FLAGS, f2, 2, "set VolumeDirty while repairing", start > 0);
	/*
	 * Every other fix reads and writes where the boot region says: with a
	 * field of it wrong (or a volume larger than its device) and no sound
	 * backup restored, nothing is planned; the check only reports.
	 */
	if (p->type != FSC_TYPE_EXFAT)	/* (no restore: the backup view is only checked) */
		ret = check_with(dev, p, &o, out, sum);
	else
		ret = xr_check_offers(&r, restored ? restored : dev, &o, sum, xr_geometry_sound(p) ? &fix : NULL, &v);
	if (ret >= 0 && v && v->fix)
		ret = repair_done(&r, v);
	xv_free(v);
	if (ret >= 0 && r.err)
		ret = r.err;
	if (ret >= 0 && r.done)
		finish_plan(&r, start, fsc_plan_count(plan) > start && fsc_plan_edit(plan, start)->offset == EXFAT_BOOT_VOLUME_FLAGS &&
				       !(p->ex.volume_flags & 2));
	else
		plan_truncate(plan, start);
	fsc_probe_free(p2);
	fsc_dev_close(restored);
	xr_forget_offers(&r);	/* (what is left when the walk stopped early) */
	free(r.defer);
	free(r.sets);
	free(r.dups);
	free(r.freed);
	free(r.marks);
	rp_at_index_free(r.at_index);
	return ret < 0 ? ret : r.err;
}
