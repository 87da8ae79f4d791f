// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session.c - fsc_plan_repair: the one way into the repair of either
 * family, and the loop that makes one run finish the job.
 *
 *   round 0   the family's planner checks the volume and plans its fixes
 *             (exfat_repair.c, fat_repair.c)
 *   round k   the same planner runs on the volume as the plan leaves it
 *             (plan_overlay): what it still finds and can fix is planned
 *             after the earlier rounds' edits (whose new bytes are its old
 *             ones, so the writer verifies the rounds in order); a round
 *             that plans nothing ends the loop, and its check is the
 *             volume as the repair leaves it
 *
 * At most REPAIR_ROUNDS rounds; if the last of them still planned, one
 * more check of the plan's view gives the state.  The findings the
 * caller gets: round 0's, then each later round's new ones; a finding is
 * planned (said fixed) exactly when the final check no longer finds it,
 * and the final check's own findings that nobody listed are added as
 * left.  So the exit status comes from what the volume will be, not from
 * what the planners meant to do, and a second repair finds nothing to do.
 *
 * Consumes: a device, its probe, the caller's options.  Produces: the
 * findings and one plan (nothing is written here).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"
#include "report/report.h"

/*
 * (the one convergence loop of both families: FAT's planner had rounds of
 * its own, for lost directories linked back and for what its fixes
 * uncovered, and now leaves them to these.  Garbage over a FAT12 root
 * (seed 163, pop-fat12 #9: entries set aside, their label gone, the label
 * made, the trees linked back checked) takes eight; ten leave a margin.
 * A round runs only while the one before planned something.)
 */
#define REPAIR_ROUNDS 10

/* One round of the family's planner. */
static int plan_round(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		      const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		      struct fsc_plan *plan, struct rp_memo *memo)
{
	if (fsc_type_is_fat(p->type) || p->backup_type == FSC_TYPE_FAT32)
		return fat_plan_repair(dev, p, co, ro, out, sum, plan, memo);
	return exfat_plan_repair(dev, p, co, ro, out, sum, plan, memo);
}

/* Append a copy of f (its path duplicated) to out. */
static int finding_copy(struct fsc_findings *out, const struct fsc_finding *f, bool planned)
{
	struct fsc_finding *y = finding_add(out, f->id, f->loc_kind, f->loc, NULL);

	if (!y)
		return -ENOMEM;
	*y = *f;
	y->planned = planned;
	if (f->path && !(y->path = strdup(f->path)))
		return -ENOMEM;
	return 0;
}

/*
 * The dirty marks a repair sets while it works: a later round that finds
 * one finds the repair's own bracket, not a problem of the volume.
 */
static bool own_bracket(enum fsc_problem id)
{
	return id == FSC_PR_EXFAT_BOOT_VOLUME_DIRTY || id == FSC_PR_FAT_DIRTY || id == FSC_PR_FAT_FAT1_FLAGS;
}

/*
 * The findings of fs that out does not have appended to out (but the
 * repair's own dirty marks when merging a round), planned as fs has them
 * (merging) or left.  The index points into out: the copies are made
 * after it is gone, since appending moves out's findings.
 */
static int append_missing(struct fsc_findings *out, const struct fsc_findings *fs, bool merging)
{
	struct rp_findex ix;
	size_t *add = fs->n ? malloc(fs->n * sizeof(*add)) : NULL, nadd = 0;
	int r = fs->n && !add ? -ENOMEM : rp_findex_make(&ix, out);

	if (fs->n && !add)
		return r;
	for (size_t i = 0; r == 0 && i < fs->n; i++)
		if (!(merging && own_bracket(fs->v[i].id)) && !rp_findex_find(&ix, &fs->v[i]))
			add[nadd++] = i;
	if (r == 0)
		free(ix.v);
	for (size_t k = 0; r == 0 && k < nadd; k++)
		r = finding_copy(out, &fs->v[add[k]], merging && fs->v[add[k]].planned);
	free(add);
	return r;
}

/* The findings of fs that out does not have (but the repair's own dirty marks), appended to it. */
static int merge_new(struct fsc_findings *out, const struct fsc_findings *fs)
{
	return append_missing(out, fs, true);
}

/*
 * The state the repair leaves is final's: each finding of out it still
 * has is left, each it lacks is fixed (when anything is written at all);
 * its own findings out lacks are added, left.
 */
static int settle(struct fsc_findings *out, const struct fsc_findings *final, bool writes)
{
	struct rp_findex ix;
	int r = rp_findex_make(&ix, final);

	for (size_t i = 0; r == 0 && i < out->n; i++)
		out->v[i].planned = writes && !rp_findex_find(&ix, &out->v[i]);
	free(ix.v);
	return r ? r : append_missing(out, final, false);
}

/* ---- the caller's answers and lost chains, across rounds ---- */

struct session {
	const struct fsc_repair_opts *user;
	struct fsc_finding *declined;	/* what the caller said no to (keys only): asked once */
	size_t ndeclined, capdeclined;
	bool sorted;
	unsigned chain_base, chains;	/* lost chains numbered on across rounds */
	struct rp_memo memo;		/* what the first round's check found sound */
	int err;
};

static bool session_ask(void *ctx, const struct fsc_finding *f)
{
	struct session *s = ctx;
	struct fsc_finding *k;

	if (!s->user->ask)
		return true;
	if (s->ndeclined && !s->sorted) {
		qsort(s->declined, s->ndeclined, sizeof(*s->declined), rp_finding_cmp_place);
		s->sorted = true;
	}
	if (s->ndeclined && bsearch(f, s->declined, s->ndeclined, sizeof(*s->declined), rp_finding_cmp_place))
		return false;	/* asked in an earlier round: the answer stands */
	if (s->user->ask(s->user->ctx, f))
		return true;
	if (!grow((void **)&s->declined, &s->capdeclined, s->ndeclined + 1, sizeof(*s->declined))) {
		s->err = -ENOMEM;
		return false;
	}
	k = &s->declined[s->ndeclined++];
	*k = *f;
	k->path = NULL;
	s->sorted = false;
	return false;
}

static int session_lost(void *ctx, unsigned chain, uint64_t off, const void *buf, size_t len)
{
	struct session *s = ctx;

	if (s->chain_base + chain + 1 > s->chains)
		s->chains = s->chain_base + chain + 1;
	return s->user->lost_bytes(s->user->ctx, s->chain_base + chain, off, buf, len);
}

/* The caller's options with its answers and lost chains going through the session. */
static struct fsc_repair_opts session_opts(struct session *s, const struct fsc_repair_opts *ro)
{
	struct fsc_repair_opts o = *ro;

	s->user = ro;
	o.ask = session_ask;
	o.lost_bytes = ro->lost_bytes ? session_lost : NULL;
	o.ctx = s;
	return o;
}

/* The edits of more appended to plan, in order, with their syncs. */
static int plan_append(struct fsc_plan *plan, const struct fsc_plan *more)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < fsc_plan_count(more); i++) {
		const struct fsc_edit *e = fsc_plan_edit(more, i);

		r = fsc_plan_add(plan, e->offset, e->old, e->data, e->len, e->why, e->sync_before || i == 0);
	}
	return r;
}

/*
 * One later round on the plan's view: its findings into fs, its edits
 * appended to plan.  Returns the number of edits it added, or -errno.
 */
static long later_round(struct fsc_dev *dev, const struct fsc_check_opts *co, const struct fsc_repair_opts *ro,
			struct fsc_plan *plan, struct fsc_findings *fs, struct rp_memo *memo)
{
	struct fsc_dev *view = plan_overlay(dev, plan);
	struct fsc_plan *more = fsc_plan_new();
	struct fsc_probe *pv = NULL;
	struct fsc_check_summary sum;
	long r = view && more ? fsc_probe_volume(view, &pv) : -ENOMEM;

	memo->first = false;
	memo->over = plan;	/* (what the view lays over: read again where an edit lies) */
	if (r == 0 && (pv->type == FSC_TYPE_EXFAT || fsc_type_is_fat(pv->type)))
		r = plan_round(view, pv, co, ro, fs, &sum, more, memo);
	else if (r == 0)
		r = -EINVAL;	/* the plan leaves no volume: nothing more to do */
	if (r >= 0 && sum.incomplete)
		r = -ETIME;
	if (r >= 0 && fsc_plan_count(more))
		r = plan_append(plan, more);
	if (r >= 0)
		r = (long)fsc_plan_count(more);
	fsc_probe_free(pv);
	fsc_plan_free(more);
	fsc_dev_close(view);
	return r;
}

/* The check of the plan's view (when the last round still planned). */
static int final_check(struct fsc_dev *dev, const struct fsc_check_opts *co, struct fsc_plan *plan,
		       struct fsc_findings *fs)
{
	struct fsc_dev *view = plan_overlay(dev, plan);
	struct fsc_probe *pv = NULL;
	struct fsc_check_summary sum;
	int r = view ? fsc_probe_volume(view, &pv) : -ENOMEM;

	if (r == 0)
		r = check_with(view, pv, co, fs, &sum);
	fsc_probe_free(pv);
	fsc_dev_close(view);
	return r;
}

/* An edit of len bytes at off of view's volume: the bits set and cleared (nothing when they are so already). */
static int flip_bits(struct fsc_dev *view, struct fsc_plan *plan, uint64_t off, size_t len, uint32_t set,
		     uint32_t clear, const char *why)
{
	uint8_t old[4], now[4];
	uint32_t v;
	int r = fsc_dev_read(view, off, old, len);

	if (r < 0)
		return r;
	v = (get_le_n(old, len) | set) & ~clear;
	memcpy(now, old, sizeof(now));
	put_le_n(now, len, v);
	return memcmp(old, now, len) ? fsc_plan_add(plan, off, old, now, len, why, true) : 0;
}

/*
 * Errors left after the last round on a volume an earlier round marked
 * clean: the dirty marks set again, last (exFAT's VolumeDirty; FAT's
 * boot sector bit and FAT[1]'s clean bit in every copy), so that the
 * volume says what it is; the findings of those marks are left then.
 */
static int keep_dirty(struct fsc_dev *dev, struct fsc_plan *plan, struct fsc_findings *out)
{
	static const char why[] = "leave the volume marked dirty: errors are left";
	struct fsc_dev *view;
	struct fsc_probe *pv = NULL;
	bool errors = false;
	int r;

	for (size_t i = 0; i < out->n; i++)
		errors |= !out->v[i].planned && !own_bracket(out->v[i].id) &&
			  fsc_problem_info(out->v[i].id)->severity >= FSC_SEV_ERROR;
	if (!errors || !(view = plan_overlay(dev, plan)))
		return errors ? -ENOMEM : 0;
	r = fsc_probe_volume(view, &pv);
	if (r == 0 && pv->type == FSC_TYPE_EXFAT) {
		r = flip_bits(view, plan, EXFAT_BOOT_VOLUME_FLAGS, 2, EXFAT_VOLUME_FLAG_VOLUME_DIRTY, 0, why);
	} else if (r == 0 && fsc_type_is_fat(pv->type)) {
		const struct fsc_fat_bpb *b = &pv->fat;
		bool f32 = pv->type == FSC_TYPE_FAT32;

		if (b->boot_sig == 0x28 || b->boot_sig == 0x29)
			r = flip_bits(view, plan, b->bpb32 ? FAT32_BS_RESERVED1 : FAT16_BS_RESERVED1, 1, 1, 0, why);
		for (unsigned i = 0; r >= 0 && pv->type != FSC_TYPE_FAT12 && i < b->num_fats && i < 2; i++)
			r = flip_bits(view, plan, ((uint64_t)b->reserved + (uint64_t)i * b->fat_size) * b->bytes_per_sector +
					  (f32 ? 4 : 2), f32 ? 4 : 2, 0, f32 ? 0x08000000 : 0x8000, why);
	}
	for (size_t i = 0; r >= 0 && i < out->n; i++)
		if (own_bracket(out->v[i].id))
			out->v[i].planned = false;
	fsc_probe_free(pv);
	fsc_dev_close(view);
	return r < 0 ? r : 0;
}

/* Rounds after the first until one plans nothing; out settled by the last check. */
static int converge(struct fsc_dev *dev, const struct fsc_check_opts *co, struct session *s,
		    const struct fsc_repair_opts *rro, struct fsc_findings *out, struct fsc_plan *plan)
{
	struct fsc_findings last = { 0 };
	bool settled = false;
	long r = 0;

	for (int round = 1; round < REPAIR_ROUNDS && r >= 0; round++) {
		finding_list_clear(&last);
		s->chain_base = s->chains;
		r = later_round(dev, co, rro, plan, &last, &s->memo);
		if (r >= 0 && s->err)
			r = s->err;
		if (r == 0)
			settled = true;
		if (r <= 0)
			break;
		r = merge_new(out, &last);
	}
	if (r == -EINVAL || r == -ETIME)
		r = 0;		/* no volume in the view, a budget spent: the rounds so far stand */
	if (r >= 0 && !settled) {
		finding_list_clear(&last);
		r = final_check(dev, co, plan, &last);
	}
	if (r >= 0)
		r = settle(out, &last, true);
	if (r >= 0)
		r = keep_dirty(dev, plan, out);
	finding_list_clear(&last);
	return (int)r;
}

/*
 * A check the budget cut short plans nothing: what it did not see could
 * change every fix.  A plan with no edit fixes nothing, whatever its
 * planners meant.
 */
static int plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		       const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		       struct fsc_plan *plan)
{
	struct fsc_check_opts o, co2;
	struct fsc_repair_opts ro2, rro;
	struct session s = { 0 };
	size_t start = fsc_plan_count(plan);
	int ret = sized_copy(&co2, sizeof(co2), co);

	if (ret == 0)
		ret = sized_copy(&ro2, sizeof(ro2), ro);
	if (ret < 0)
		return ret;
	o = co2;
	rro = session_opts(&s, &ro2);
	s.memo.first = true;
	ret = plan_round(dev, p, &co2, &rro, out, sum, plan, &s.memo);

	if (ret >= 0 && s.err)
		ret = s.err;
	if (ret >= 0 && sum->incomplete) {
		plan_truncate(plan, start);
		for (size_t i = 0; i < out->n; i++)
			out->v[i].planned = false;
	} else if (ret < 0 || fsc_plan_count(plan) == start) {
		for (size_t i = 0; i < out->n; i++)
			out->v[i].planned = false;
	} else {
		o.max_per_problem = UINT32_MAX;
		o.progress = NULL;
		ret = converge(dev, &o, &s, &rro, out, plan);
		if (ret < 0)
			plan_truncate(plan, start);
	}
	free(s.declined);
	rp_memo_free(&s.memo);
	return ret;
}

FSC_EXPORT int fsc_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
			       const struct fsc_repair_opts *ro, struct fsc_findings *out,
			       struct fsc_check_summary *sum, struct fsc_plan *plan)
{
	struct fsc_check_summary own = FSC_CHECK_SUMMARY_INIT;

	if (!sized_out_ok(sum))
		return -EINVAL;
	return sized_out(sum, &own, sizeof(own), plan_repair(dev, p, co, ro, out, &own, plan));
}
