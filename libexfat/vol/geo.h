/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* volgeo.h - where things are on an exFAT or FAT volume (volgeo.c); not installed. */
#ifndef FSC_VOLGEO_H
#define FSC_VOLGEO_H

#include "probe/probe.h"

#define VG_EOC 0xFFFFFFFFu
#define VG_BAD 0xFFFFFFF7u

struct volgeo {
	struct fsc_dev *dev;
	enum fsc_type type;
	uint32_t cb, count;		/* cluster bytes, data clusters */
	uint64_t data_byte;		/* cluster 2 */
	uint64_t fat_byte, fat_len;
	const uint8_t *fat;		/* mapped */
	unsigned bits;			/* FAT entry width: 12, 16, 32 */
	uint32_t root_cluster;		/* exFAT, FAT32 */
	uint64_t root_byte;		/* FAT12/16 fixed root */
	uint32_t root_bytes;
};

/* 0, -EINVAL (not exFAT/FAT or unusable geometry), -EIO (FAT beyond the image). */
int volgeo_init(struct volgeo *g, struct fsc_dev *dev, const struct fsc_probe *p);
/* Next cluster, VG_EOC, VG_BAD or 0 (free); other values may be out of range. */
uint32_t volgeo_next(const struct volgeo *g, uint32_t c);
/* The same for a 32-bit FAT entry value v read elsewhere (exFAT, FAT32). */
uint32_t volgeo_entry32(const struct volgeo *g, uint32_t v);

static inline bool volgeo_valid(const struct volgeo *g, uint32_t c)
{
	return c >= 2 && (uint64_t)c < (uint64_t)g->count + 2;
}

static inline uint64_t volgeo_cluster_byte(const struct volgeo *g, uint32_t c)
{
	return g->data_byte + (uint64_t)(c - 2) * g->cb;
}

#endif
