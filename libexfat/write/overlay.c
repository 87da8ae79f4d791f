// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * overlay.c - a read-only device that shows another device as it will be
 * once the edits a plan has now are applied (later ones are not shown):
 * what a planner reads when its later steps must see its earlier ones (a boot region restored before the rest is
 * checked).  Reads cost the lower read plus one pass over the plan's
 * edits.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "io/io.h"
#include "write/write.h"

struct overlay {
	struct fsc_dev *lower;
	const struct fsc_plan *plan;
	size_t n;			/* the edits it shows: those made before it */
};

static int ov_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	const struct overlay *o = d->priv;

	return plan_prefix_read(o->lower, o->plan, o->n, off, buf, len);
}

static int ov_write(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	(void)d, (void)off, (void)buf, (void)len;
	return -EROFS;
}

static int ov_sync(struct fsc_dev *d)
{
	(void)d;
	return 0;
}

static void ov_close(struct fsc_dev *d)
{
	free(d->priv);
}

static const struct dev_ops overlay_ops = { "overlay", ov_read, ov_write, ov_sync, NULL, ov_close };

struct fsc_dev *plan_overlay(struct fsc_dev *lower, const struct fsc_plan *plan)
{
	struct overlay *o = malloc(sizeof(*o));
	struct fsc_dev *d;

	if (!o)
		return NULL;
	o->lower = lower;
	o->plan = plan;
	o->n = fsc_plan_count(plan);
	d = dev_new(&overlay_ops, o, fsc_dev_size(lower));
	if (!d) {
		free(o);
		return NULL;
	}
	d->sector_size = fsc_dev_sector_size(lower);
	return d;
}
