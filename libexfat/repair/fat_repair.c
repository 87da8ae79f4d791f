// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_repair.c - the FAT12/16/32 repair planner.  The check runs first
 * (fat_check.c); each finding the level and the caller allow is then
 * answered by edits, read and written through the plan so that two fixes
 * of one entry or one FAT byte compose:
 *
 *   FAT_DIR_SIZE, FAT_DOT_CLUSTER     the entry's field set
 *   FAT_FAT0                           FAT[0] from the media byte, every copy
 *   FAT_COPIES_DIFFER                  the other copies made the active one
 *   FAT_CHAIN_*                        a chain ended before its break, its
 *                                      loop or where the size ends; a size
 *                                      cut to the chain (no cluster freed:
 *                                      what is cut off stays allocated, lost)
 *   FAT_LOST_CLUSTERS                  with --lost=free only: freed
 *   FAT32_FSINFO_*                     from the FAT as the plan leaves it
 *
 * The volume is checked again through the plan (plan_overlay) to learn
 * the lost clusters and the free count the plan leaves, and whether an
 * error is left.  The fixes are bracketed by the dirty bits (the state
 * byte's bit 0, FAT[1]'s ClnShutBit on FAT16/32), set and synced before
 * the first and cleared after the last only when no error is left.
 * Cross-linked chains, names, long names, labels and lost chains to save
 * are left (and said so by their findings).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "fat/fat.h"

static void fix_fat0(struct frp *f)
{
	uint32_t mask = f->lay.fat_bits == 12 ? 0xFFF : f->lay.fat_bits == 16 ? 0xFFFF : 0x0FFFFFFF;

	if (rp_take(&f->r, FSC_PR_FAT_FAT0))
		fr_fat_set(f, 0, (mask & ~0xFFu) | f->b->media, "FAT[0] from the media byte");
}

/* The entries the plan set in the active copy, set in every other copy too. */
static void mirror_written(struct frp *f)
{
	for (size_t i = 0; i < f->nwritten && !f->r.err; i++) {
		uint8_t e[4];
		size_t w;
		uint64_t off = fr_entry_off(f, f->active, f->written[i], &w);

		if (plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0) {
			f->r.err = -EIO;
			return;
		}
		for (unsigned k = 0; k < fr_copies(f->b); k++)
			if (k != f->active) {
				off = fr_entry_off(f, k, f->written[i], &w);
				rp_put(&f->r, off, e, w, "the other FAT copies follow", false);
			}
	}
}

/*
 * The first round's scan of the FAT copies, when it is this round's and
 * was made through this plan (not a later round's, over another): it
 * says where the copies agreed.
 */
static const struct fv_scan_memo *first_scan(const struct frp *f)
{
	const struct fv_scan_memo *m = f->r.memo && f->r.memo->first ? f->r.memo->scan : NULL;
	struct fv_scan_key key = fv_scan_key_of(f->b, &f->lay, f->cc, f->active, f->mirrored);

	return m && fv_scan_key_same(&m->key, &key) ? m : NULL;
}

/* FAT bytes [at, at + len) where the first check found copy k equal to the active one, and no edit lies since. */
static bool copies_agree(const struct frp *f, const struct fv_scan_memo *m, unsigned k, uint64_t at, uint64_t len,
			 uint64_t bytes)
{
	/* (the scan compared whole entries: the sector past the last one is compared here) */
	if (!m || at + len > bytes || m->free[at / FV_SCAN_BLOCK] == FV_SCAN_READ)
		return false;
	return !plan_touches(f->r.plan, fr_copy_byte(f, f->active) + at, len) &&
	       !plan_touches(f->r.plan, fr_copy_byte(f, k) + at, len);
}

/*
 * The other copies follow the active one: every sector where they differ
 * when FAT_COPIES_DIFFER is fixed, else the entries the plan set.  The
 * blocks where the first check found the copies agreeing, and no edit
 * since, are not read again.
 */
#define COPY_CHUNK (64u << 10)
static void fix_copies(struct frp *f)
{
	uint32_t ss = f->b->bytes_per_sector;
	uint64_t bytes = layout_fat_bytes(&f->lay, (uint64_t)f->cc + 2);
	const struct fv_scan_memo *m = first_scan(f);
	/* (sectors compared a chunk at a time, or a block, and written a sector each) */
	size_t chunk = m && FV_SCAN_BLOCK % ss == 0 ? FV_SCAN_BLOCK : COPY_CHUNK / ss * ss;
	uint8_t *a = malloc(chunk), *o = malloc(chunk);

	if (chunk != FV_SCAN_BLOCK)
		m = NULL;
	if (f->mirrored && !f->copies_taken)
		mirror_written(f);
	if (a && o && f->mirrored && f->copies_taken)
		for (unsigned k = 0; k < fr_copies(f->b) && !f->r.err; k++)
			for (uint64_t at = 0; k != f->active && at < bytes && !f->r.err; at += chunk) {
				size_t len = bytes - at < chunk ? (size_t)((bytes - at + ss - 1) / ss * ss) : chunk;

				if (copies_agree(f, m, k, at, len, bytes))
					continue;
				if (plan_view_read(f->r.dev, f->r.plan, fr_copy_byte(f, f->active) + at, a, len) < 0 ||
				    plan_view_read(f->r.dev, f->r.plan, fr_copy_byte(f, k) + at, o, len) < 0) {
					f->r.err = -EIO;
					break;
				}
				if (!memcmp(a, o, len))
					continue;
				for (size_t s = 0; s < len; s += ss)
					if (memcmp(a + s, o + s, ss))
						rp_put(&f->r, fr_copy_byte(f, k) + at + s, a + s, ss, "FAT copy made the active one",
						       false);
			}
	if (!a || !o)
		f->r.err = -ENOMEM;
	free(a);
	free(o);
}

static void note_lost(void *ctx, uint32_t c)
{
	struct frp *f = ctx;

	if (!grow((void **)&f->lost, &f->caplost, f->nlost + 1, sizeof(*f->lost)))
		f->r.err = -ENOMEM;
	else
		f->lost[f->nlost++] = c;
}

static void note_counted(void *ctx, uint64_t free_clusters, uint32_t clusters)
{
	struct frp *f = ctx;

	f->counted_free = free_clusters;
	f->counted_clusters = clusters;
}

static void note_alloc(void *ctx, uint32_t first, uint32_t size, bool dir, bool differs, bool whole)
{
	struct frp *f = ctx;

	(void)first;
	(void)size;
	f->copy_may_matter |= differs && (dir || !whole);
}

static void note_lost_dir(void *ctx, uint32_t c, uint32_t parent)
{
	struct frp *f = ctx;

	if (!grow((void **)&f->lostdirs, &f->caplostdirs, f->nlostdirs + 1, sizeof(*f->lostdirs)))
		f->r.err = -ENOMEM;
	else
		f->lostdirs[f->nlostdirs++] = (struct lost_dir){ c, parent };
}

/*
 * The check of the plan's view, for what the planner needs of it: the
 * lost clusters and directories it finds, the free count, and whether
 * errors are left; a problem of the list it no longer finds is planned.
 */
static bool recheck(struct frp *f)
{
	struct fsc_dev *ov = plan_overlay(f->r.dev, f->r.plan);
	struct fsc_check_opts o = { .max_per_problem = 1, .threads = 1,
				    .to_end_marker = f->to_end_marker };
	struct fsc_findings fs = { 0 };
	struct fsc_check_summary s;
	struct fat_hooks after = { .lost = note_lost, .lost_dir = note_lost_dir, .counted = note_counted, .ctx = f };
	bool errors = false, seen[FSC_PR_COUNT] = { false };

	f->nlost = f->nlostdirs = 0;
	if (!ov || fat_check(ov, f->r.p, &o, &fs, &s, &after) < 0)
		f->r.err = f->r.err ? f->r.err : -ENOMEM;
	for (size_t i = 0; i < fs.n; i++) {
		/* (the other copies follow the active one at the end: their differences are no error then) */
		if (fs.v[i].id == FSC_PR_FAT_COPIES_DIFFER && f->mirrored &&
		    (f->copies_taken || !rp_find(&f->r, FSC_PR_FAT_COPIES_DIFFER)))
			continue;
		errors |= fsc_problem_info(fs.v[i].id)->severity >= FSC_SEV_ERROR;
		seen[fs.v[i].id] = true;
	}
	/* A problem of the check's the plan leaves none of (lost clusters a revived entry owns, say) is fixed by it. */
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (!seen[x->id] && !fsc_findings_has(&f->r.p->findings, x->id) && x->id != FSC_PR_FAT_DIRTY &&
		    x->id != FSC_PR_FAT_FAT1_FLAGS)
			x->planned = true;
	}
	for (size_t i = 0; i < f->r.p->findings.n; i++) {	/* the boot sector's, unless a fix is planned */
		const struct fsc_finding *x = rp_find(&f->r, f->r.p->findings.v[i].id);

		errors |= fsc_problem_info(f->r.p->findings.v[i].id)->severity >= FSC_SEV_ERROR && !(x && x->planned);
	}
	finding_list_clear(&fs);
	fsc_dev_close(ov);
	return errors;
}

/* FSInfo from the FAT as the plan leaves it (when the whole volume was there to count). */
static void fix_fsinfo(struct frp *f, uint64_t freed)
{
	const struct fsc_fat_bpb *b = f->b;
	uint64_t off = (uint64_t)b->fsinfo_sector * b->bytes_per_sector;
	bool count = rp_take(&f->r, FSC_PR_FAT32_FSINFO_FREE_COUNT) || freed || f->taken_after;
	bool next = rp_take(&f->r, FSC_PR_FAT32_FSINFO_NEXT_FREE);
	uint8_t s[FAT_FSI_SIZE];

	if (!b->bpb32 || !b->fsinfo_read || b->fsinfo_lead != FAT_FSI_LEAD_SIG_VALUE ||
	    b->fsinfo_struc != FAT_FSI_STRUC_SIG_VALUE ||
	    plan_view_read(f->r.dev, f->r.plan, off + FAT_FSI_FREE_COUNT, s + FAT_FSI_FREE_COUNT, 8) < 0)
		return;
	if (count && f->counted_clusters == f->lay.clusters && get_le32(s, FAT_FSI_FREE_COUNT) != FAT_FSI_UNKNOWN)
		put_le32(s, FAT_FSI_FREE_COUNT, (uint32_t)(f->counted_free + freed - f->taken_after));
	if (next)
		put_le32(s, FAT_FSI_NXT_FREE, FAT_FSI_UNKNOWN);	/* "no hint": drivers search from the start */
	rp_put(&f->r, off + FAT_FSI_FREE_COUNT, s + FAT_FSI_FREE_COUNT, 8, "FSInfo free count and next-free hint", false);
}

/*
 * The dirty bits: the state byte's bit 0 (with an extended BPB) and, on
 * FAT16/32, FAT[1]'s ClnShutBit (clear: dirty); cleaning also sets the
 * hard-error bit when its finding is fixed.
 */
static void dirty_bits(struct frp *f, bool dirty, bool hard, const char *why)
{
	uint64_t at = f->b->bpb32 ? FAT32_BS_RESERVED1 : FAT16_BS_RESERVED1;
	uint32_t clean = f->lay.fat_bits == 16 ? 0x8000 : 0x08000000, v;
	uint8_t s;

	if ((f->b->boot_sig == 0x29 || f->b->boot_sig == 0x28) &&
	    plan_view_read(f->r.dev, f->r.plan, at, &s, 1) == 0) {
		s = (uint8_t)(dirty ? s | 1 : s & ~1);
		rp_put(&f->r, at, &s, 1, why, false);
	}
	if (f->lay.fat_bits == 12)
		return;
	v = fr_fat_get(f, 1);
	v = dirty ? v & ~clean : v | clean | (hard ? clean >> 1 : 0);
	fr_fat_set_all(f, 1, v, why);
}

/* What the walk offered, dropped (the volume is checked again, through another FAT copy). */
static void forget_walk(struct frp *f)
{
	for (size_t i = 0; i < f->nreqs; i++) {
		free(f->reqs[i].off);
		free(f->reqs[i].first);
	}
	f->nreqs = f->ncross = f->nastray = f->nlost = f->nheads = 0;
}

/* The fixes of the findings: entries, chains, cross-links, directories astray. */
static void fix_findings(struct frp *f)
{
	fr_relink_heads(f);		/* (first: what the walk read past such a cross-link is read again) */
	/* First the directories whose cluster was free: what the walk read there is nobody's. */
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->id == FSC_PR_FAT_CHAIN_FREE && !fr_under_emptied(f, x) && rp_wanted(&f->r, x))
			fr_fix_chain(f, x);
	}
	fr_apply_reqs(f);
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->planned || fr_under_emptied(f, x) || !rp_wanted(&f->r, x))
			continue;
		if (x->id == FSC_PR_FAT_DIR_SIZE || x->id == FSC_PR_FAT_DOT_CLUSTER || x->id == FSC_PR_FAT_FILE_DIR_BIT)
			fr_fix_field(f, x);
		else if (x->id == FSC_PR_FAT_LABEL_ENTRY)
			fr_fix_label(f, x);
		else if (x->id == FSC_PR_FAT_DOT_MISSING)
			fr_fix_dots(f, x);
		else if (x->id == FSC_PR_FAT_ATTRIBUTES)
			fr_fix_attributes(f, x);
		else if (x->id == FSC_PR_FAT_LFN_RESERVED)
			fr_fix_lfn_reserved(f, x);
		else if (x->id >= FSC_PR_FAT_CHAIN_RANGE && x->id <= FSC_PR_FAT_CHAIN_LONG &&
			 x->id != FSC_PR_FAT_CROSS_LINK)
			fr_fix_chain(f, x);
	}
	fr_fix_crosslinks(f);
	fr_relink_dirs(f);
}

/*
 * Fixes whose effect on the allocations is known without a check of the
 * plan: they edit entries' names, sizes, dot clusters and long-name parts,
 * the FAT's first entries, the copies and the boot sector, or cut chains
 * (fr_release says what the cut takes off).  Any other fix (entries
 * revived, set aside or relinked, clusters copied for a cross-link,
 * directories made) changes what the tree claims in ways only a check
 * sees.  Advisory findings that nothing fixes change nothing.
 */
static bool known_effect(enum fsc_problem id)
{
	switch (id) {
	case FSC_PR_FAT_DIRTY: case FSC_PR_FAT_FAT0: case FSC_PR_FAT_FAT1_FLAGS: case FSC_PR_FAT_COPIES_DIFFER:
	case FSC_PR_FAT_CHAIN_RANGE: case FSC_PR_FAT_CHAIN_LOOP: case FSC_PR_FAT_CHAIN_FREE: case FSC_PR_FAT_CHAIN_BAD:
	case FSC_PR_FAT_CHAIN_SHORT: case FSC_PR_FAT_CHAIN_LONG: case FSC_PR_FAT_LOST_CLUSTERS:
	case FSC_PR_FAT_DOT_CLUSTER: case FSC_PR_FAT_SHORT_NAME: case FSC_PR_FAT_SHORT_NAME_UNUSUAL:
	case FSC_PR_FAT_NAME_DUPLICATE: case FSC_PR_FAT_LFN_SEQUENCE: case FSC_PR_FAT_LFN_CHECKSUM:
	case FSC_PR_FAT_LFN_ORPHAN: case FSC_PR_FAT_LFN_RESERVED: case FSC_PR_FAT_LFN_LENGTH:
	case FSC_PR_FAT_DIR_SIZE: case FSC_PR_FAT_FILE_DIR_BIT:
	case FSC_PR_FAT_LABEL_MISMATCH: case FSC_PR_FAT_LABEL_ROOT_MISSING: case FSC_PR_FAT32_FSINFO_FREE_COUNT:
	case FSC_PR_FAT32_FSINFO_NEXT_FREE:
		return true;
	default:
		return fsc_problem_info(id)->severity < FSC_SEV_ERROR && fsc_problem_info(id)->fix == FSC_FIX_NONE;
	}
}

/* Does x allow the volume as the plan leaves it to be known without a check (no error of it left)? */
static bool foreseen(const struct fsc_finding *x)
{
	return known_effect(x->id) && (x->planned || fsc_problem_info(x->id)->severity < FSC_SEV_ERROR);
}

/*
 * Can the check of the plan be foreseen?  Every finding's fix has a
 * known effect and every error is planned; nothing was revived, copied,
 * relinked or made empty.
 */
static bool foreseeable(const struct frp *f)
{
	if (f->r.err || f->ncross || f->nastray || f->nemptied || f->nrecut || f->nlostdirs)
		return false;
	for (size_t i = 0; i < f->nreqs; i++)
		if (f->reqs[i].sum == -2)
			return false;
	for (size_t i = 0; i < f->r.out->n; i++)
		if (!foreseen(&f->r.out->v[i]))
			return false;
	for (size_t i = 0; i < f->r.p->findings.n; i++) {
		const struct fsc_finding *x = rp_find(&f->r, f->r.p->findings.v[i].id);

		if (!foreseen(x ? x : &f->r.p->findings.v[i]))
			return false;
	}
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * What a check of the plan would tell, foreseen: no error left; the lost
 * clusters those of the first check and those the cuts released (but
 * those the plan set: taken since); the free count the first check's,
 * moved by every entry the plan set in the active copy.
 */
static void foresee(struct frp *f)
{
	uint64_t free_now = f->counted_free;
	size_t n = 0;

	for (size_t i = 0; i < f->nwritten; i++) {
		uint32_t c = f->written[i];
		bool was = layout_fat_value(&f->lay, f->prior[i]) == LAYOUT_FREE;
		bool is = layout_fat_value(&f->lay, fr_fat_get(f, c)) == LAYOUT_FREE;

		if (c >= 2)
			free_now = free_now + is - was;
	}
	f->counted_free = free_now;
	free(f->lost);
	f->caplost = f->nlost0 + f->nreleased;
	f->lost = f->caplost ? malloc(f->caplost * sizeof(*f->lost)) : NULL;
	if (f->caplost && !f->lost) {
		f->r.err = -ENOMEM;
		f->caplost = 0;
	}
	for (size_t i = 0; f->lost && i < f->nlost0; i++)
		f->lost[n++] = f->lost0[i];
	for (size_t i = 0; f->lost && i < f->nreleased; i++)
		f->lost[n++] = f->released[i];
	if (n)
		qsort(f->lost, n, sizeof(*f->lost), cmp_u32);
	f->nlost = 0;
	for (size_t i = 0; i < n; i++)
		if ((!f->nlost || f->lost[f->nlost - 1] != f->lost[i]) && f->lost[i] &&
		    !(f->written_set && bit_get(f->written_set, f->lost[i])))
			f->lost[f->nlost++] = f->lost[i];
}

/* Every fix of an entry, a chain, the FAT and FSInfo; false when nothing else can be planned. */
/* The planner of the passes below. */
struct fr_pass {
	struct frp *f;
	bool errors;			/* an error is left for the next round: the volume stays dirty */
	bool aside;			/* entries set aside: the next round sees the tree without them */
	bool foreseen;			/* the plan's check foreseen, not run */
	uint64_t freed;			/* clusters the plan frees */
};

/* Each pass as a step of the table: fn(f), or fn(x) for the passes that take the planner whole. */
#define FR_STEP(fn) RP_STEP(fr_pass, fn, x->f)
#define FR_PASS_STEP(fn) RP_STEP(fr_pass, fn, x)

static void copies_taken(struct fr_pass *x)
{
	x->f->copies_taken = x->f->mirrored && rp_take(&x->f->r, FSC_PR_FAT_COPIES_DIFFER);
}

static void set_aside(struct fr_pass *x)
{
	x->errors = x->aside = fr_set_aside(x->f) != 0;
}

/* (a field the fixes themselves leave wrong, the .. of a new empty directory, say: the next round's) */
static void check_plan(struct fr_pass *x)
{
	if (foreseeable(x->f)) {	/* (the session's next round checks the plan) */
		x->errors = false;
		x->foreseen = true;
		foresee(x->f);
	} else {
		x->errors = recheck(x->f);
	}
}

/*
 * Lost directories linked back: their trees, and whatever else is left,
 * are the session's next round (the check of the plan's view, then what
 * it still finds planned).  Lost clusters wait for it: the trees linked
 * back own some of them.
 */
static void lost_dirs(struct fr_pass *x)
{
	if (!x->errors && !x->f->r.err && x->f->nlostdirs && fr_relink_lost_dirs(x->f))
		x->errors = true;
}

static void lost_chains(struct fr_pass *x)
{
	x->freed = fr_handle_lost(x->f, x->errors);
}

static void fsinfo(struct fr_pass *x)
{
	fix_fsinfo(x->f, x->freed);
}

FR_PASS_STEP(copies_taken)
FR_STEP(fr_relink_undotted)
FR_PASS_STEP(set_aside)
FR_STEP(fix_findings)
FR_STEP(fr_fix_labels)
FR_STEP(fix_fat0)
FR_STEP(fr_boot_fixes)
FR_PASS_STEP(check_plan)
FR_PASS_STEP(lost_dirs)
FR_PASS_STEP(lost_chains)
FR_STEP(fix_copies)
FR_PASS_STEP(fsinfo)

static bool aside(const void *p)
{
	return ((const struct fr_pass *)p)->aside;
}

static bool aside_or_foreseen(const void *p)
{
	return ((const struct fr_pass *)p)->aside || ((const struct fr_pass *)p)->foreseen;
}

/*
 * The FAT passes after the first check, in order.  An entry the walk read
 * where a flipped cluster field pointed is pointed back first (what was
 * read there is no entry to set aside); entries set aside end the round
 * but for the FAT copies (the next sees the tree without them); the
 * plan's check (or what it foresees) before lost directories and chains
 * are saved; the copies and FSInfo last.
 */
static const struct rp_step fat_steps[] = {
	{ "FAT copies that differ: which one is taken", step_copies_taken, NULL },
	{ "entries flipped off their own tree, pointed back", step_fr_relink_undotted, NULL },
	{ "entries set aside", step_set_aside, NULL },
	{ "the findings' fields, names, chains and cross-links", step_fix_findings, aside },
	{ "labels", step_fr_fix_labels, aside },
	{ "FAT[0]", step_fix_fat0, aside },
	{ "the boot sector and its backup", step_fr_boot_fixes, aside },
	{ "the plan checked, or foreseen", step_check_plan, aside },
	{ "lost directories linked back", step_lost_dirs, aside_or_foreseen },
	{ "lost chains saved", step_lost_chains, aside },
	{ "the other FAT copies", step_fix_copies, NULL },
	{ "FSInfo", step_fsinfo, aside },
};

static void plan_fixes(struct frp *f, bool *errors)
{
	struct fr_pass x = { .f = f };

	rp_run_steps(fat_steps, sizeof(fat_steps) / sizeof(fat_steps[0]), &x);
	*errors = x.errors;
}

static bool geometry(struct frp *f)
{
	char why[96];

	if (fat_layout(&f->lay, f->r.dev, f->b, why, sizeof(why)) < 0 || !f->b->num_fats || !f->b->fat_size)
		return false;
	f->mirrored = !(f->b->bpb32 && (f->b->ext_flags & 0x80));
	f->active = f->mirrored || (f->b->ext_flags & 0xF) >= f->b->num_fats ? 0 : f->b->ext_flags & 0xF;
	f->cc = f->lay.held;
	if ((uint64_t)f->cc + 2 > (uint64_t)f->b->fat_size * f->b->bytes_per_sector * 8 / f->lay.fat_bits)
		f->cc = (uint32_t)((uint64_t)f->b->fat_size * f->b->bytes_per_sector * 8 / f->lay.fat_bits - 2);
	f->chain_lay = f->lay;
	f->chain_lay.held = f->cc;
	return true;
}

/*
 * A check with the walk's offers (the findings from out->n on); made again
 * without replays when a replayed directory's entry met what needs its
 * name (check/fat_replay.c): what the walk offered is dropped.
 */
static int check_offers(struct frp *f, struct fsc_dev *dev, const struct fsc_check_opts *o,
			struct fsc_check_summary *sum, struct fat_hooks *hooks)
{
	size_t n0 = f->r.out->n;
	int ret = fat_check_with(dev, f->r.p, o, f->r.out, sum, hooks);

	if (ret >= 0 && f->r.memo && f->r.memo->replay_lost) {
		f->r.memo->replay_lost = false;
		rp_findings_cut(&f->r, n0);
		forget_walk(f);
		f->copy_may_matter = false;
		ret = fat_check_with(dev, f->r.p, o, f->r.out, sum, hooks);
	}
	return ret;
}

/*
 * The first check, with the walk's offers; when the FAT copies differ and
 * another copy agrees better with the directories, that copy is planned
 * over the others and the volume checked again through the plan (the
 * difference listed as fixed).
 */
static int first_check(struct frp *f, struct fsc_dev **view, const struct fsc_check_opts *o,
		       struct fsc_check_summary *sum, struct fat_hooks *hooks)
{
	struct fsc_findings *out = f->r.out;
	size_t n0 = out->n, errors = 0;
	struct fsc_finding differs;
	int ret;
	bool chosen;

	hooks->claimed = note_alloc;
	f->copy_may_matter = false;
	ret = check_offers(f, *view ? *view : f->r.dev, o, sum, hooks);
	hooks->claimed = NULL;
	for (size_t i = n0; i < out->n; i++)
		errors += out->v[i].id != FSC_PR_FAT_COPIES_DIFFER && !fsc_findings_has(&f->r.p->findings, out->v[i].id) &&
			  fsc_problem_info(out->v[i].id)->severity >= FSC_SEV_ERROR;
	chosen = ret >= 0 && !f->r.err && rp_find(&f->r, FSC_PR_FAT_COPIES_DIFFER) &&
		 fr_choose_copy(f, *view ? *view : f->r.dev, errors + sum->lost_clusters);
	if (!chosen)
		return ret;
	differs = *rp_find(&f->r, FSC_PR_FAT_COPIES_DIFFER);
	differs.path = NULL;
	differs.planned = true;
	rp_findings_cut(&f->r, n0);
	forget_walk(f);
	fsc_dev_close(*view);
	if (!(*view = plan_overlay(f->r.dev, f->r.plan)))
		return -ENOMEM;
	ret = check_offers(f, *view, o, sum, hooks);
	if (ret >= 0 && !rp_find(&f->r, FSC_PR_FAT_COPIES_DIFFER)) {
		struct fsc_finding *y = finding_add(out, differs.id, differs.loc_kind, differs.loc, NULL);

		if (y)
			*y = differs;
	}
	return ret;
}

/* The findings of the damaged boot sector the restore answers: listed, and fixed. */
static void restored_findings(struct fsc_findings *out, const struct fsc_probe *p, const struct fsc_probe *p2)
{
	for (size_t i = 0; i < p->findings.n; i++) {
		const struct fsc_finding *x = &p->findings.v[i];
		struct fsc_finding *y;

		if (fsc_findings_has(&p2->findings, x->id) || !(y = finding_add(out, x->id, x->loc_kind, x->loc, NULL)))
			continue;
		*y = *x;
		y->path = x->path ? strdup(x->path) : NULL;
		y->planned = true;
	}
}

static void frp_free(struct frp *f)
{
	for (size_t i = 0; i < f->nreqs; i++) {
		free(f->reqs[i].off);
		free(f->reqs[i].first);
	}
	free(f->reqs);
	free(f->cross);
	free(f->heads);
	free(f->astray);
	free(f->lost0);
	free(f->lost);
	free(f->lostdirs);
	free(f->emptied);
	free(f->recut);
	free(f->written);
	free(f->prior);
	free(f->released);
	free(f->win);
	free(f->written_set);
}

int fat_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		    const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		    struct fsc_plan *plan, struct rp_memo *memo)
{
	struct fsc_check_opts o = co ? *co : (struct fsc_check_opts){ 0 };
	struct frp f = { .r = { .dev = dev, .p = p, .o = ro, .plan = plan, .out = out, .memo = memo }, .b = &p->fat };
	struct fsc_dev *view = NULL;
	struct fsc_probe *p2 = NULL;
	size_t start, marked, fixes;
	struct fat_hooks hooks = { .lfn = fr_hook_lfn, .revive = fr_hook_revive, .cross = fr_hook_cross,
				   .dir_astray = fr_hook_astray, .rename = fr_hook_rename, .shared_head = fr_hook_shared_head,
				   .lost = note_lost, .counted = note_counted, .ctx = &f };
	bool errors = true;
	int ret;

	o.max_per_problem = UINT32_MAX;	/* every finding counts: a fix needs its own */
	f.to_end_marker = o.to_end_marker;
	if (memo)
		rp_memo_hook(&hooks.memo, memo);
	/* A damaged FAT32 boot sector first: the rest is checked as the restore leaves it. */
	if (fr_boot_restore(&f.r, &view, &p2)) {
		f.r.p = p2;
		f.b = &p2->fat;
		restored_findings(out, p, p2);
	} else if (p->backup_type == FSC_TYPE_FAT32 || p->fat.num_fats > FR_MAX_COPIES) {
		/*
		 * Sector 0 lost and not restored; or more than two FATs, which
		 * fsck.fat refuses and a flipped bit of BPB_NumFATs makes (the
		 * data area then read as FAT copies): read-only.
		 */
		return check_with(dev, p, co, out, sum);
	}
	start = fsc_plan_count(plan);
	ret = first_check(&f, &view, &o, sum, &hooks);
	start = fsc_plan_count(plan);	/* (after what the choice of a FAT copy planned) */
	f.lost0 = f.lost;		/* the first check's lost clusters; the rechecks gather their own */
	f.nlost0 = f.nlost;
	f.lost = NULL;
	f.nlost = f.caplost = 0;
	/* (no finding at all: nothing to plan, and no second check to read the volume again) */
	if (ret < 0 || !out->n || fsc_findings_has(out, FSC_PR_FAT_FAT_UNREADABLE) || !geometry(&f)) {
		frp_free(&f);
		fsc_probe_free(p2);
		fsc_dev_close(view);
		return ret;	/* nothing can be planned without the FAT */
	}
	dirty_bits(&f, true, false, "mark the volume dirty while repairing");
	marked = fsc_plan_count(plan) - start;
	plan_fixes(&f, &errors);
	fixes = fsc_plan_count(plan) - start - marked;
	/* A fix the dirty mark made already (copies that differed in FAT[1] alone) is a fix all the same. */
	for (size_t i = 0; i < out->n && !fixes; i++)
		fixes = out->v[i].planned;
	if (!fixes)
		plan_truncate(plan, start);
	else if (marked)
		plan_sync_before(plan, start + marked);
	/* Clean again only when no error is left: after a sync, the last writes. */
	if (!errors && !f.r.err) {
		bool dirty = rp_take(&f.r, FSC_PR_FAT_DIRTY), hard = rp_take(&f.r, FSC_PR_FAT_FAT1_FLAGS);
		size_t at = fsc_plan_count(plan);

		if (fixes || dirty || hard)
			dirty_bits(&f, false, hard, "mark the volume clean");
		if (fixes && fsc_plan_count(plan) > at)
			plan_sync_before(plan, at);
	}
	frp_free(&f);
	fsc_probe_free(p2);
	fsc_dev_close(view);
	return f.r.err ? f.r.err : ret;
}
