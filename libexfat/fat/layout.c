// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat/layout.c - the layout of a FAT12/16/32 volume from its BPB
 * (fatgen103 "Boot Sector and BPB", "FAT Data Structure"): reserved
 * sectors, the first FAT, the fixed root directory of FAT12/16 or the
 * root cluster of FAT32, the data area and its clusters.
 *
 * Consumes: struct fsc_fat_bpb (decoded and derived) and the device.
 * Produces: struct layout.  The FAT's width follows the BPB's style as
 * every driver reads it (FATSz16 = 0 with FATSz32 set: 32 bits; else by
 * the cluster count), not the specification's type by count alone.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fat/fat.h"

/* The most clusters a 28-bit FAT entry can address. */
#define FAT_MAX_CLUSTERS 0x0FFFFFF5u

int fat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_fat_bpb *b, char *why, size_t whylen)
{
	memset(l, 0, sizeof(*l));
	if (!b->bytes_per_sector || !b->sec_per_clus) {
		snprintf(why, whylen, "%s is 0", b->bytes_per_sector ? "BPB_SecPerClus" : "BPB_BytsPerSec");
		return -EINVAL;
	}
	if (!b->geometry_ok) {
		snprintf(why, whylen, "the data area starts at sector %llu, beyond the volume's %u sectors",
			 (unsigned long long)b->data_start, b->total_sectors);
		return -EINVAL;
	}
	l->dev = dev;
	l->type = b->bpb_type;
	l->sector_bytes = b->bytes_per_sector;
	l->cluster_bytes = (uint32_t)b->bytes_per_sector * b->sec_per_clus;
	l->clusters = b->clusters > FAT_MAX_CLUSTERS ? FAT_MAX_CLUSTERS : (uint32_t)b->clusters;
	l->data_byte = b->data_start * b->bytes_per_sector;
	l->fat_byte = (uint64_t)b->reserved * b->bytes_per_sector;
	l->fat_bits = b->bpb_type == FSC_TYPE_FAT32 ? 32 : b->bpb_type == FSC_TYPE_FAT16 ? 16 : 12;
	if (l->fat_bits == 32) {
		l->root_cluster = b->root_cluster;
	} else {
		l->root_byte = l->fat_byte + (uint64_t)b->num_fats * b->fat_size * b->bytes_per_sector;
		l->root_bytes = (uint32_t)b->root_entries * 32;
	}
	layout_clamp(l);
	return 0;
}
