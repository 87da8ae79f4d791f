// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * volgeo.c - one view of where things are on exFAT and FAT12/16/32
 * volumes: cluster size and count, the data area, the FAT (mapped) and
 * its entry width, the root directory; the next cluster of a chain with
 * end, bad and free normalised; extents of an allocation; the
 * used/free/bad summary.
 *
 * Consumes: a probe.  Produces: struct volgeo for walk.c and dump.
 * FAT entry width follows the BPB (FATSz16 = 0: 32 bits), as every
 * driver reads it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vol/geo.h"

int volgeo_init(struct volgeo *g, struct fsc_dev *dev, const struct fsc_probe *p)
{
	memset(g, 0, sizeof(*g));
	g->dev = dev;
	g->type = p->type;
	if (p->type == FSC_TYPE_EXFAT) {
		const struct fsc_exfat_boot *ex = &p->ex;

		if (ex->sector_shift < 9 || ex->sector_shift > 12 || ex->cluster_shift > 25 - ex->sector_shift)
			return -EINVAL;
		g->cb = 1u << (ex->sector_shift + ex->cluster_shift);
		g->count = ex->cluster_count;
		g->data_byte = (uint64_t)ex->heap_offset << ex->sector_shift;
		g->fat_byte = (uint64_t)ex->fat_offset << ex->sector_shift;
		g->bits = 32;
		g->root_cluster = ex->root_cluster;
	} else if (fsc_type_is_fat(p->type)) {
		const struct fsc_fat_bpb *b = &p->fat;

		if (!b->geometry_ok || !b->sec_per_clus)
			return -EINVAL;
		g->cb = (uint32_t)b->bytes_per_sector * b->sec_per_clus;
		g->count = b->clusters > 0x0FFFFFF5 ? 0x0FFFFFF5 : (uint32_t)b->clusters;
		g->data_byte = b->data_start * b->bytes_per_sector;
		g->fat_byte = (uint64_t)b->reserved * b->bytes_per_sector;
		g->bits = b->bpb_type == FSC_TYPE_FAT32 ? 32 : b->bpb_type == FSC_TYPE_FAT16 ? 16 : 12;
		if (g->bits == 32) {
			g->root_cluster = b->root_cluster;
		} else {
			g->root_byte = g->fat_byte + (uint64_t)b->num_fats * b->fat_size * b->bytes_per_sector;
			g->root_bytes = (uint32_t)b->root_entries * 32;
		}
	} else {
		return -EINVAL;
	}
	/* Only clusters the device holds are walked or counted (bounded memory and time). */
	if (g->data_byte >= fsc_dev_size(dev))
		g->count = 0;
	else if ((fsc_dev_size(dev) - g->data_byte) / g->cb < g->count)
		g->count = (uint32_t)((fsc_dev_size(dev) - g->data_byte) / g->cb);
	g->fat_len = ((uint64_t)g->count + 2) * g->bits / 8 + 1;
	if (fsc_dev_map(dev, g->fat_byte, (size_t)g->fat_len, &g->fat) < 0)
		return -EIO;
	return 0;
}

uint32_t volgeo_next(const struct volgeo *g, uint32_t c)
{
	uint32_t v;

	if ((uint64_t)c * g->bits / 8 + (g->bits + 7) / 8 > g->fat_len)
		return VG_BAD;
	switch (g->bits) {
	case 12:
		v = get_le16(g->fat, c + c / 2);
		v = (c & 1) ? v >> 4 : v & 0xFFF;
		return v >= 0xFF8 ? VG_EOC : v == 0xFF7 ? VG_BAD : v;
	case 16:
		v = get_le16(g->fat, 2 * (size_t)c);
		return v >= 0xFFF8 ? VG_EOC : v == 0xFFF7 ? VG_BAD : v;
	default:
		return volgeo_entry32(g, get_le32(g->fat, 4 * (size_t)c));
	}
}

uint32_t volgeo_entry32(const struct volgeo *g, uint32_t v)
{
	if (g->type == FSC_TYPE_EXFAT)
		return v >= 0xFFFFFFF8u ? VG_EOC : v == 0xFFFFFFF7u ? VG_BAD : v;
	v &= 0x0FFFFFFF;
	return v >= 0x0FFFFFF8 ? VG_EOC : v == 0x0FFFFFF7 ? VG_BAD : v;
}

FSC_EXPORT int64_t fsc_extents(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t first, uint64_t size,
			       bool nofat, fsc_extent_fn fn, void *ctx, char *broken, size_t brokenlen)
{
	struct volgeo g;
	uint64_t need, n = 0;
	uint32_t c = first, run_start = first, run_len = 0;
	int r = volgeo_init(&g, dev, p);
	char dummy[8];

	if (r < 0)
		return r;
	if (!broken) {
		broken = dummy;
		brokenlen = sizeof(dummy);
	}
	broken[0] = '\0';
	need = size ? (size + g.cb - 1) / g.cb : UINT64_MAX;
	while (n < need) {
		uint32_t next;

		if (!volgeo_valid(&g, c)) {
			snprintf(broken, brokenlen, "cluster %u is outside the data area", c);
			break;
		}
		if (n >= g.count) {
			snprintf(broken, brokenlen, "the chain does not end (loop)");
			break;
		}
		if (run_len && c == run_start + run_len) {
			run_len++;
		} else {
			if (run_len && fn)
				fn(ctx, run_start, run_len);
			run_start = c;
			run_len = 1;
		}
		n++;
		if (nofat) {
			c++;
			continue;
		}
		next = volgeo_next(&g, c);
		if (next == VG_EOC) {
			if (size && n < need)
				snprintf(broken, brokenlen, "the chain ends after %llu of %llu clusters",
					 (unsigned long long)n, (unsigned long long)need);
			break;
		}
		if (next == VG_BAD || next == 0) {
			snprintf(broken, brokenlen, "cluster %u is followed by a %s entry", c, next ? "bad" : "free");
			break;
		}
		c = next;
	}
	if (run_len && fn)
		fn(ctx, run_start, run_len);
	return (int64_t)n;
}

static void count_run(struct fsc_alloc_summary *s, uint64_t *run)
{
	if (!*run)
		return;
	s->free_runs++;
	if (*run > s->largest_free_run)
		s->largest_free_run = *run;
	*run = 0;
}

FSC_EXPORT int fsc_alloc_summary(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_alloc_summary *s)
{
	struct volgeo g;
	const uint8_t *bm = NULL;
	uint64_t run = 0;
	int r = volgeo_init(&g, dev, p);

	memset(s, 0, sizeof(*s));
	if (r < 0)
		return r;
	s->clusters = g.count;
	s->cluster_bytes = g.cb;
	if (g.type == FSC_TYPE_EXFAT) {
		const struct fsc_exfat_root *rt = &p->root;

		if (!rt->bitmap_found || !volgeo_valid(&g, rt->bitmap_cluster) ||
		    fsc_dev_map(dev, volgeo_cluster_byte(&g, rt->bitmap_cluster), ((size_t)g.count + 7) / 8, &bm) < 0)
			return -EIO;	/* a fragmented bitmap: rare; not summarised */
	}
	for (uint32_t c = 2; (uint64_t)c < (uint64_t)g.count + 2; c++) {
		uint32_t next = volgeo_next(&g, c);
		bool used = bm ? (bm[(c - 2) / 8] >> ((c - 2) % 8)) & 1 : next != 0;

		if (next == VG_BAD) {
			s->bad++;
			count_run(s, &run);
		} else if (used) {
			s->used++;
			count_run(s, &run);
		} else {
			s->free++;
			run++;
		}
	}
	count_run(s, &run);
	return 0;
}
