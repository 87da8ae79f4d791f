/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fatscope-fault.h - fault injection: a device that fails, slows down or
 * loses power, for the tests of writers and readers (the unit tests,
 * fatscope's FATSCOPE_* test variables).  Not installed: the symbols are
 * in the library, but no program outside this tree should build on them,
 * and they may change in any release.
 */
#ifndef FATSCOPE_FAULT_H
#define FATSCOPE_FAULT_H

#include "fatscope/fatscope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Fault injection: a device that fails, for tests of writers          */

#define FSC_FAULT_NEVER	UINT64_MAX

/* What a fault device was asked to do, as its log callback sees it. */
enum fsc_fault_op { FSC_FAULT_READ, FSC_FAULT_WRITE, FSC_FAULT_SYNC, FSC_FAULT_CUT };

struct fsc_fault_event {
	enum fsc_fault_op op;
	uint64_t index;			/* of this read, write or sync, from 0; CUT: of the next write */
	uint64_t offset;		/* byte in the fault device (READ, WRITE) */
	size_t len;			/* bytes (READ, WRITE); CUT: writes lost */
	int result;			/* what the call returned: 0 or -errno */
};

/* Called after every read, write and sync, and at the cut. */
typedef void (*fsc_fault_log_fn)(void *ctx, const struct fsc_fault_event *ev);

struct fsc_fault_config {
	uint64_t fail_read;		/* this read (from 0) fails with -EIO */
	uint64_t fail_write;		/* this write fails with -EIO and changes nothing */
	uint64_t cut_write;		/* the power is cut before this write... */
	uint64_t cut_sync;		/* ...or before this sync */
	size_t torn;			/* at a cut before a write: its first torn bytes land */
	bool volatile_cache;		/* at the cut, the writes since the last sync are lost too... */
	uint64_t cache_keep;		/* ...but the i-th of them survives when bit i is set */
	fsc_fault_log_fn log;		/* may be NULL */
	void *ctx;
	uint32_t read_delay_us;		/* every read waits this long first: a slow device (0: none) */
};

struct fsc_fault_stats {
	uint64_t reads, writes, syncs;	/* calls made, the failed ones included */
	bool cut;			/* the power is off */
	uint64_t lost;			/* writes the volatile cache lost at the cut */
};

/* No fault at all: every index FSC_FAULT_NEVER, no cache, no log. */
void fsc_fault_config_init(struct fsc_fault_config *cfg);

/*
 * A device over lower (borrowed: it must outlive the fault device; its
 * window is the fault device's whole, its sector size and writability
 * carry over) that fails as cfg says (copied; NULL: never).  Counts from
 * 0: the k-th read, write or sync is the one with index k.
 *
 * fail_read and fail_write fail one call, which changes nothing; later
 * calls work.  A cut (cut_write, cut_sync or fsc_fault_cut) fails that
 * call and every later write and sync with -EIO without changing
 * anything, except that at a cut before a write its first torn bytes are
 * written (a torn write).  With volatile_cache the writes since the last
 * successful sync are undone at the cut (the torn head included), except
 * the i-th of them (i < 64) when bit i of cache_keep is set: a disk cache
 * that wrote those back, in any order, before the power went.  Reads keep
 * working after the cut and see what survived.  Writes go through to
 * lower at once; a volatile cache keeps a copy of what each replaced
 * until the next sync.
 * Returns 0 and *out (free with fsc_dev_close) or -ENOMEM.
 */
int fsc_dev_open_fault(struct fsc_dev *lower, const struct fsc_fault_config *cfg, struct fsc_dev **out);

/* The counters of a fault device; -EINVAL for another device. */
int fsc_fault_stats(const struct fsc_dev *dev, struct fsc_fault_stats *out);

/*
 * Cut the power now.  Returns the number of writes the volatile cache
 * lost (0 when the power was off already), -EINVAL for another device,
 * or the lower device's error while putting bytes back.
 */
int fsc_fault_cut(struct fsc_dev *dev);

#ifdef __cplusplus
}
#endif
#endif
