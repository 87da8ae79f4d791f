/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * repair/dired.h - the one directory editor, for every change that adds
 * an entry to a directory: the label and GUID entries (edit/label.c),
 * the recovery directories and the entries of lost chains and relinked
 * directories (repair/exfat_lost.c, repair/fat_lost.c), the bitmap and
 * up-case entries rebuilt (repair/exfat_bitmap.c, exfat_upcase.c).
 *
 * A directory is read as the plan leaves it (plan_view_read, its chain
 * through the caller's FAT as the plan leaves it), so that several edits
 * of one plan compose: an earlier one's entries and new clusters are seen
 * by the next.  Free slots are exFAT's entries with InUse clear (EXSPEC
 * 6.2.1.1) and FAT's 0x00 and 0xE5 entries (fatgen103 "Directory
 * Structure").  A directory grows by a cluster the caller takes (its FAT
 * end mark and bitmap bit, the caller's own bookkeeping), zeroed and
 * chained after the last; end marks at the end of the last cluster become
 * unused entries first, so that the new cluster does not lie past the
 * directory's end.  The writes go through the caller's ops (a plan_put,
 * or a repair ledger's rp_put); the dirty bracket around them is the
 * caller's (label.c's VolumeDirty, the repair session's).  Not installed.
 */
#ifndef FSC_DIRED_H
#define FSC_DIRED_H

#include "layout/layout.h"
#include "write/write.h"

#define DIRED_MAX_RUN 3		/* the longest run of slots asked for: an exFAT set of 3 entries */

struct dired {
	struct fsc_dev *dev;
	const struct fsc_plan *plan;	/* read through it */
	const struct layout *g;
	layout_next_fn next;		/* the FAT as the plan leaves it (NULL: dired_plan_link over g's FAT) */
	void *next_ctx;
};

/* The directory's edits, the caller's way (a failure the caller keeps, and reports by returning < 0). */
struct dired_ops {
	int (*put)(void *ctx, uint64_t off, const void *data, size_t len, const char *why);
	/* A free cluster taken for the directory, its FAT entry an end mark (and its bitmap bit set); 0: none. */
	uint32_t (*take)(void *ctx);
	/* FAT entry c set to next (the directory's chain goes on; last of the growth's writes). */
	int (*link)(void *ctx, uint32_t c, uint32_t next);
	void *ctx;
};

/* Each entry read, in order: its bytes, its byte offset, its cluster (0: the FAT12/16 root area) and index there. */
typedef void (*dired_entry_fn)(void *ctx, const uint8_t *e, uint64_t off, uint32_t cluster, uint32_t index);

struct dired_slots {
	unsigned want;			/* free slots wanted in a row, in one cluster (1 .. DIRED_MAX_RUN) */
	bool to_end;			/* stop after the first end mark (0x00) */
	dired_entry_fn each;		/* may be NULL */
	void *ctx;
	/* found: */
	uint64_t slot[DIRED_MAX_RUN];	/* the first run of want free slots, when found */
	bool found;
	uint32_t last;			/* the directory's last cluster read (0: the FAT12/16 root area, none) */
	bool broken;			/* a read failed, or the chain broke or looped before an end */
};

/*
 * The directory from its first cluster (0: the root, the fixed area of
 * FAT12/16 or g->root_cluster) scanned for s->want free slots.  Returns
 * 0, or -ENOMEM.
 */
int dired_find(const struct dired *d, uint32_t first, struct dired_slots *s);
/*
 * The directory s was found in grown by one cluster after s->last: its
 * first s->want slots into s->slot (found).  Returns 0, -ENOSPC (the
 * FAT12/16 root area is fixed, or no cluster was free), or the ops' error.
 */
int dired_grow(const struct dired *d, const struct dired_ops *ops, struct dired_slots *s);
/* A layout_next_fn over g's FAT as the plan leaves it (ctx: the struct dired). */
uint32_t dired_plan_link(void *d, uint32_t c);

#endif
