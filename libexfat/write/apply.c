// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply.c - the writer: a plan is verified against the device before
 * anything is written (every edit finds its old bytes, the earlier edits
 * of the plan laid over the device), recorded in an undo log (undo.c,
 * durable first), then written in order with the syncs the plan asks for
 * and a final one.
 *
 * Consumes: a plan.  Produces: the writes, in order; an interrupted apply
 * leaves the device as undo.c accepts it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/* 1 when edit i finds its old bytes (the earlier edits applied), 0 when not, or -errno. */
static int expect_before(struct fsc_dev *dev, const struct fsc_plan *plan, size_t i)
{
	const struct fsc_edit *e = fsc_plan_edit(plan, i);
	uint8_t *buf = malloc(e->len ? e->len : 1);
	int r;

	if (!buf)
		return -ENOMEM;
	r = plan_prefix_read(dev, plan, i, e->offset, buf, e->len);
	if (r == 0)
		r = memcmp(buf, e->old, e->len) == 0 ? 1 : 0;
	free(buf);
	return r;
}

FSC_EXPORT int fsc_plan_apply(struct fsc_dev *dev, const struct fsc_plan *plan, const char *undo_path)
{
	size_t n = fsc_plan_count(plan);
	int r;

	for (size_t i = 0; i < n; i++) {
		r = expect_before(dev, plan, i);
		if (r <= 0)
			return r < 0 ? r : -ESTALE;
	}
	if (undo_path && (r = undo_write(dev, plan, undo_path)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, i);

		if (e->sync_before && (r = fsc_dev_sync(dev)) < 0)
			return r;
		r = fsc_dev_write(dev, e->offset, e->data, e->len);
		if (r < 0)
			return r;
	}
	return fsc_dev_sync(dev);
}
