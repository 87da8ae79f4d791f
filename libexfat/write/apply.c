// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply.c - the writer: a plan is verified against the device before
 * anything is written (every edit finds its old bytes, the earlier edits
 * of the plan laid over the device), recorded in an undo log (undo.c,
 * durable first), then written in order with the syncs the plan asks for
 * and a final one, then read back: every byte must be as the plan left it.
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

static int cmp_offset(const void *x, const void *y, void *ctx)
{
	const struct fsc_plan *plan = ctx;
	uint64_t a = fsc_plan_edit(plan, *(const size_t *)x)->offset, b = fsc_plan_edit(plan, *(const size_t *)y)->offset;

	return a < b ? -1 : a > b;
}

static int cmp_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/* Edit j, when it comes after edit i and overlaps it, as over[m]; 1 when it does. */
static size_t later(const struct fsc_plan *plan, size_t i, size_t j, size_t **over, size_t *cap, size_t m)
{
	const struct fsc_edit *a = fsc_plan_edit(plan, i), *b = fsc_plan_edit(plan, j);

	if (j <= i || b->offset >= a->offset + a->len || b->offset + b->len <= a->offset)
		return 0;
	if (!grow((void **)over, cap, m + 1, sizeof(**over)))
		return 0;	/* without memory the edit is not laid over: read_back then fails safe (-EIO) */
	(*over)[m] = j;
	return 1;
}

/*
 * After the last sync: every edit's bytes read back as the plan leaves
 * them (its data, with the later edits that overlap it laid over).  A
 * device that drops or misplaces a write fails here: -EIO.  Edits sorted
 * by offset, so that the later edits overlapping one are found among its
 * neighbours.
 */
static int read_back(struct fsc_dev *dev, const struct fsc_plan *plan)
{
	size_t n = fsc_plan_count(plan), *ix = malloc((n ? n : 1) * sizeof(*ix));
	uint64_t longest = 0;
	uint8_t *want = NULL, *got = NULL;
	size_t cap = 0, *over = NULL, nover = 0, m;
	int r = ix ? 0 : -ENOMEM;

	for (size_t i = 0; ix && i < n; i++) {
		ix[i] = i;
		if (fsc_plan_edit(plan, i)->len > longest)
			longest = fsc_plan_edit(plan, i)->len;
	}
	if (ix)
		qsort_r(ix, n, sizeof(*ix), cmp_offset, (void *)plan);
	for (size_t k = 0; r == 0 && k < n; k++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, ix[k]);

		if (e->len > cap) {
			free(want);
			free(got);
			want = malloc(e->len);
			got = malloc(e->len);
			cap = e->len;
			if (!want || !got) {
				r = -ENOMEM;
				break;
			}
		}
		memcpy(want, e->data, e->len);
		/* the later edits that overlap it (from those starting up to longest bytes before it), in order */
		m = 0;
		for (size_t j = k; j-- > 0 && fsc_plan_edit(plan, ix[j])->offset + longest > e->offset;)
			m += later(plan, ix[k], ix[j], &over, &nover, m);
		for (size_t j = k + 1; j < n && fsc_plan_edit(plan, ix[j])->offset < e->offset + e->len; j++)
			m += later(plan, ix[k], ix[j], &over, &nover, m);
		if (m > 1)
			qsort(over, m, sizeof(*over), cmp_index);
		for (size_t j = 0; j < m; j++)
			plan_overlay_bytes(want, e->offset, e->len, fsc_plan_edit(plan, over[j])->data,
				fsc_plan_edit(plan, over[j])->offset, fsc_plan_edit(plan, over[j])->len);
		r = fsc_dev_read(dev, e->offset, got, e->len);
		if (r == 0 && memcmp(want, got, e->len))
			r = -EIO;
	}
	free(want);
	free(got);
	free(ix);
	free(over);
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
	r = fsc_dev_sync(dev);
	return r < 0 ? r : read_back(dev, plan);
}
