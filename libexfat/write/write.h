/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * write/write.h - plans as the planners inside the library see them
 * (plan.c), and the undo log as the writer sees it (undo.c); not installed.
 */
#ifndef FSC_WRITE_H
#define FSC_WRITE_H

#include "base/base.h"

/* Lay bytes (at off) over buf (at boff, blen) where they overlap. */
void plan_overlay_bytes(uint8_t *buf, uint64_t boff, size_t blen, const uint8_t *bytes, uint64_t off, size_t len);
/* Drop the edits of a plan after the first n. */
void plan_truncate(struct fsc_plan *plan, size_t n);
/* Have edit i written only once everything before it is on stable storage. */
void plan_sync_before(struct fsc_plan *plan, size_t i);
/*
 * Read as the device will be once the plan so far is applied: what a
 * planner must look at, so that two changes in one plan (a label and a
 * GUID in a root without either) do not both take the same free slot.
 */
int plan_view_read(struct fsc_dev *dev, const struct fsc_plan *plan, uint64_t off, void *buf, size_t len);
/* Does an edit of the plan lie over a byte of [off, off + len)? */
bool plan_touches(const struct fsc_plan *plan, uint64_t off, uint64_t len);
/* The same through the first n edits only (what edit n must find). */
int plan_prefix_read(struct fsc_dev *dev, const struct fsc_plan *plan, size_t n, uint64_t off, void *buf,
		     size_t len);

/*
 * Add an edit of len bytes at off to data, its old bytes read as the
 * device will be once the plan so far is applied: of the bytes from the
 * first that changes to the last (nothing when they are data already).
 * 0 or -errno.
 */
int plan_put(struct fsc_dev *dev, struct fsc_plan *plan, uint64_t off, const void *data, size_t len,
	     const char *why, bool sync);

/*
 * A read-only device (close it with fsc_dev_close) over lower's window as
 * it will be once the edits plan has now are applied (edits added later
 * are not shown); lower and plan must outlive it.  NULL without memory.
 */
struct fsc_dev *plan_overlay(struct fsc_dev *lower, const struct fsc_plan *plan);

/*
 * Write the undo log of plan for dev to path (a new file: -EEXIST when it
 * exists), and make it durable: the file and its name.  On failure
 * nothing is left at path.  -EFBIG for a log fsc_undo_apply would not read.
 */
int undo_write(struct fsc_dev *dev, const struct fsc_plan *plan, const char *path);

#endif
