// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan.c - the only way fatscope writes: a plan of byte edits (offset, old
 * bytes, new bytes, why), and the device as the plan would leave it
 * (what planners read).  apply.c verifies and writes it, undo.c records
 * and restores.
 *
 * Consumes: edits from the planners.  Produces: the plan.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

struct fsc_plan {
	struct fsc_edit *v;
	size_t n, cap;
};

FSC_EXPORT struct fsc_plan *fsc_plan_new(void)
{
	return calloc(1, sizeof(struct fsc_plan));
}

FSC_EXPORT void fsc_plan_free(struct fsc_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n; i++) {
		free((void *)plan->v[i].old);
		free((void *)plan->v[i].why);
	}
	free(plan->v);
	free(plan);
}

FSC_EXPORT int fsc_plan_add(struct fsc_plan *plan, uint64_t off, const void *old, const void *data, size_t len,
			    const char *why, bool sync_before)
{
	uint8_t *bytes;
	char *w;

	if (plan->n == plan->cap) {
		size_t cap = plan->cap ? 2 * plan->cap : 16;
		struct fsc_edit *v = realloc(plan->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		plan->v = v;
		plan->cap = cap;
	}
	bytes = malloc(2 * len + 1);
	w = strdup(why ? why : "");
	if (!bytes || !w) {
		free(bytes);
		free(w);
		return -ENOMEM;
	}
	memcpy(bytes, old, len);
	memcpy(bytes + len, data, len);
	plan->v[plan->n++] = (struct fsc_edit){ off, len, bytes, bytes + len, w, sync_before };
	return 0;
}

FSC_EXPORT size_t fsc_plan_count(const struct fsc_plan *plan)
{
	return plan->n;
}

FSC_EXPORT const struct fsc_edit *fsc_plan_edit(const struct fsc_plan *plan, size_t i)
{
	return i < plan->n ? &plan->v[i] : NULL;
}

void overlay(uint8_t *buf, uint64_t boff, size_t blen, const uint8_t *bytes, uint64_t off, size_t len)
{
	uint64_t lo = off > boff ? off : boff, hi = off + len < boff + blen ? off + len : boff + blen;

	if (lo < hi)
		memcpy(buf + (lo - boff), bytes + (lo - off), (size_t)(hi - lo));
}

int plan_prefix_read(struct fsc_dev *dev, const struct fsc_plan *plan, size_t n, uint64_t off, void *buf,
		     size_t len)
{
	int r = fsc_dev_read(dev, off, buf, len);

	for (size_t j = 0; r == 0 && j < n && j < plan->n; j++)
		overlay(buf, off, len, plan->v[j].data, plan->v[j].offset, plan->v[j].len);
	return r;
}

int plan_view_read(struct fsc_dev *dev, const struct fsc_plan *plan, uint64_t off, void *buf, size_t len)
{
	return plan_prefix_read(dev, plan, plan->n, off, buf, len);
}

void plan_truncate(struct fsc_plan *plan, size_t n)
{
	while (plan->n > n) {
		plan->n--;
		free((void *)plan->v[plan->n].old);
		free((void *)plan->v[plan->n].why);
	}
}

void plan_sync_before(struct fsc_plan *plan, size_t i)
{
	if (i < plan->n)
		plan->v[i].sync_before = true;
}

int plan_put(struct fsc_dev *dev, struct fsc_plan *plan, uint64_t off, const void *data, size_t len,
	     const char *why, bool sync)
{
	uint8_t *old = malloc(len);
	int r;

	if (!old)
		return -ENOMEM;
	r = plan_view_read(dev, plan, off, old, len);	/* what this edit will find */
	if (r == 0 && memcmp(old, data, len) != 0)
		r = fsc_plan_add(plan, off, old, data, len, why, sync);
	free(old);
	return r;
}
