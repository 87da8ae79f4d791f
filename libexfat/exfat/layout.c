// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat/layout.c - the layout of an exFAT volume from its boot sector
 * (EXSPEC 3.1.5-3.1.10, 3.1.14-3.1.15): sector and cluster sizes, FAT,
 * cluster heap, ClusterCount and the clusters of it the device holds,
 * the root directory's first cluster.
 *
 * Consumes: struct fsc_exfat_boot, a sector shift (the volume's own, or
 * the device's for what the staging driver sees) and the device.
 * Produces: struct layout.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exfat/exfat.h"

int exfat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_exfat_boot *ex, unsigned shift,
		 char *why, size_t whylen)
{
	memset(l, 0, sizeof(*l));
	if (shift < 9) {
		snprintf(why, whylen, "sector size 2^%u is out of range", shift);
		return -EINVAL;
	}
	if (shift + ex->cluster_shift > 25) {
		snprintf(why, whylen, "cluster size 2^%u is out of range", shift + ex->cluster_shift);
		return -EINVAL;
	}
	l->dev = dev;
	l->type = FSC_TYPE_EXFAT;
	l->sector_bytes = 1u << shift;
	l->cluster_bytes = 1u << (shift + ex->cluster_shift);
	l->clusters = ex->cluster_count;
	l->data_byte = (uint64_t)ex->heap_offset << shift;
	l->fat_byte = (uint64_t)ex->fat_offset << shift;
	l->fat_bits = 32;
	l->root_cluster = ex->root_cluster;
	layout_clamp(l);
	return 0;
}
