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

#endif
