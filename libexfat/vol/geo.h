/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vol/geo.h - the layout of a probed exFAT or FAT volume, for the tree
 * walker, extents, the allocation summary and the label planner (geo.c);
 * not installed.
 */
#ifndef FSC_VOLGEO_H
#define FSC_VOLGEO_H

#include "probe/probe.h"

/*
 * The layout of p's volume: exFAT in its own sector size (which must be
 * 512..4096 bytes), FAT by its BPB.  Returns 0, or -EINVAL (not exFAT or
 * FAT, or unusable geometry).
 */
int vol_geometry(struct layout *l, struct fsc_dev *dev, const struct fsc_probe *p);
/*
 * The same, and the FAT entries of the clusters the device holds must lie
 * inside the device: 0, -EINVAL, or -EIO (that part of the FAT lies
 * beyond the device).
 */
int vol_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_probe *p);

/*
 * What decides where a file's bytes are and whether a cluster is in use:
 * the layout (in fr.l), the one FAT reader and, on exFAT, the allocation
 * bitmap (mapped; NULL when the volume has none that can be read).
 */
struct vol_src {
	struct fatreader fr;
	const uint8_t *bitmap;
};
/* vol_layout's errors; vol_src_close it after success. */
int vol_src_open(struct vol_src *s, struct fsc_dev *dev, const struct fsc_probe *p);
void vol_src_close(struct vol_src *s);
/* Is cluster c (valid) free: exFAT by the bitmap (false without one), FAT by its FAT entry. */
bool vol_cluster_free(struct vol_src *s, uint32_t c);

/* read.c: the clusters of one file or directory as runs, in file order. */
struct vol_run {
	uint32_t first;			/* 0: clusters that are gone (read as zeros) */
	uint32_t count;
	uint64_t byte;			/* where the run starts in the file */
};
struct vol_runs {
	struct vol_run *v;
	size_t n, cap;
	uint64_t clusters;		/* in all runs */
	uint64_t reused;		/* of those, gone: a deleted file's clusters in use again */
	enum fsc_recovery state;	/* FSC_REC_LIVE, or how much of a deleted file is left */
	bool contiguous;		/* a deleted file read as a contiguous run (not by its chain) */
	char why[128];			/* what is wrong with the chain, or "" */
};
/*
 * The runs of d's allocation (first_cluster, size, nofat, dir, deleted):
 * a live file by its FAT chain (or contiguous with nofat) as far as size
 * needs (a FAT directory: to the chain's end); a deleted one by its chain
 * when that is still whole and free (exFAT), else as the contiguous run
 * from its first cluster (a FAT directory: one cluster), the clusters in
 * use again marked gone, and state saying how much is left.  Returns 0;
 * for a live entry -ELOOP (the chain comes back to itself) or -EUCLEAN
 * (it leaves the data area, meets a free or bad entry, ends early, or a
 * FAT entry cannot be read), with why filled; -ENOMEM.  vol_runs_free r
 * whatever it returns.
 */
int vol_runs_of(struct vol_src *s, const struct fsc_dirent *d, struct vol_runs *r);
void vol_runs_free(struct vol_runs *r);
/*
 * len bytes from byte off of the allocation r (inside its clusters) into
 * buf: gone runs give zeros.  0 or the device's -errno.
 */
int vol_runs_read(struct vol_src *s, const struct vol_runs *r, uint64_t off, void *buf, size_t len);

#endif
