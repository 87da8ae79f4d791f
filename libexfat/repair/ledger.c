// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ledger.c - what a repair planner asks of the findings and adds to the
 * plan: whether a finding may be fixed (the level, the caller's answer),
 * marking it planned, and edits that keep the first error.  Used by
 * exfat_repair.c and exfat_lost.c.
 */
#include "config.h"

#include "repair/repair.h"

/* May the finding be fixed: the level allows it and the caller says yes. */
bool wanted(const struct rp *r, const struct fsc_finding *f)
{
	const struct fsc_problem_info *pi = fsc_problem_info(f->id);

	if (!pi || (r->o->level == FSC_REPAIR_PREEN && !pi->preen))
		return false;
	return !r->o->ask || r->o->ask(r->o->ctx, f);
}

/* The first finding id (any location), or NULL. */
struct fsc_finding *find(const struct rp *r, enum fsc_problem id)
{
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == id)
			return &r->out->v[i];
	return NULL;
}

/* Is there a finding id, fixable and wanted?  Marks it (and any other of id) planned. */
bool take(const struct rp *r, enum fsc_problem id)
{
	struct fsc_finding *f = find(r, id);

	if (!f || !wanted(r, f))
		return false;
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == id)
			r->out->v[i].planned = true;
	return true;
}

/* An edit of the plan (nothing when the bytes are there already); the first error is kept. */
void put(struct rp *r, uint64_t off, const void *data, size_t len, const char *why, bool sync)
{
	if (!r->err)
		r->err = plan_put(r->dev, r->plan, off, data, len, why, sync);
}
