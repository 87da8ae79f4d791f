// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * geo.c - the layout of a probed volume (exfat/layout.c or fat/layout.c
 * by its type) for the walker, label planner and dump; extents of an
 * allocation; the used/free/bad summary; the public geometry.
 *
 * Consumes: a probe and the device.  Produces: struct layout, extents,
 * struct fsc_alloc_summary, struct fsc_geometry.  The FAT is read through
 * the one FAT reader (layout/fatreader.c): memory stays bounded whatever
 * the volume's size.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vol/geo.h"

int vol_geometry(struct layout *l, struct fsc_dev *dev, const struct fsc_probe *p)
{
	char why[96];

	if (p->type == FSC_TYPE_EXFAT) {
		if (p->ex.sector_shift < 9 || p->ex.sector_shift > 12) {
			memset(l, 0, sizeof(*l));
			return -EINVAL;
		}
		return exfat_layout(l, dev, &p->ex, p->ex.sector_shift, why, sizeof(why));
	}
	if (fsc_type_is_fat(p->type))
		return fat_layout(l, dev, &p->fat, why, sizeof(why));
	memset(l, 0, sizeof(*l));
	return -EINVAL;
}

int vol_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_probe *p)
{
	uint64_t size = fsc_dev_size(dev), fat;
	int r = vol_geometry(l, dev, p);

	if (r < 0)
		return r;
	fat = layout_fat_bytes(l, (uint64_t)l->held + 2);
	if (l->fat_byte > size || fat > size - l->fat_byte)
		return -EIO;
	return 0;
}

/* A reader over the FAT of p's volume (vol_layout's errors); fatreader_free it. */
static int open_fat(struct fatreader *fr, struct fsc_dev *dev, const struct fsc_probe *p)
{
	struct layout l;
	int r = vol_layout(&l, dev, p);

	if (r < 0)
		return r;
	fatreader_init(fr, &l);
	return 0;
}

int vol_src_open(struct vol_src *s, struct fsc_dev *dev, const struct fsc_probe *p)
{
	const struct layout *l = &s->fr.l;
	int r = open_fat(&s->fr, dev, p);

	s->bitmap = NULL;
	if (r < 0)
		return r;
	/* A fragmented bitmap (rare) is not read: no bitmap then. */
	if (l->type == FSC_TYPE_EXFAT && p->root.bitmap_found && layout_cluster_valid(l, p->root.bitmap_cluster) &&
	    fsc_dev_map(dev, layout_cluster_byte(l, p->root.bitmap_cluster), ((size_t)l->held + 7) / 8, &s->bitmap) < 0)
		s->bitmap = NULL;
	return 0;
}

void vol_src_close(struct vol_src *s)
{
	fatreader_free(&s->fr);
	s->bitmap = NULL;
}

bool vol_cluster_free(struct vol_src *s, uint32_t c)
{
	if (s->fr.l.type == FSC_TYPE_EXFAT)
		return s->bitmap && !((s->bitmap[(c - 2) / 8] >> ((c - 2) % 8)) & 1);
	return fatreader_next(&s->fr, c) == LAYOUT_FREE;
}

/* The listing ended at a loop: cluster from links back to cluster to, the chain's number index + 1. */
static void stop_loop(struct fsc_chain_stop *stop, uint32_t from, uint32_t to, uint64_t index)
{
	stop->end = FSC_CHAIN_LOOP;
	stop->from = from;
	stop->to = to;
	stop->to_index = index;
	snprintf(stop->why, sizeof(stop->why), "the chain loops: cluster %u links back to cluster %u (number %llu of the chain)",
		 from, to, (unsigned long long)index + 1);
}

/* Why the chain stopped before need clusters (it ended), in stop. */
static void stop_why(struct fsc_chain_stop *stop, const struct layout_chain *it, uint64_t need, bool sized)
{
	switch (it->end) {
	case LAYOUT_CHAIN_END:
		if (sized && it->n < need)
			snprintf(stop->why, sizeof(stop->why), "the chain ends after %llu of %llu clusters",
				 (unsigned long long)it->n, (unsigned long long)need);
		break;
	case LAYOUT_CHAIN_UNREADABLE:
		snprintf(stop->why, sizeof(stop->why), "the FAT entry of cluster %u cannot be read", it->cur);
		break;
	case LAYOUT_CHAIN_BAD:
	case LAYOUT_CHAIN_FREE:
		snprintf(stop->why, sizeof(stop->why), "cluster %u is followed by a %s entry", it->cur,
			 it->end == LAYOUT_CHAIN_BAD ? "bad" : "free");
		break;
	case LAYOUT_CHAIN_RANGE:
		snprintf(stop->why, sizeof(stop->why), "cluster %u is outside the data area", it->link);
		break;
	case LAYOUT_CHAIN_LONG:
		snprintf(stop->why, sizeof(stop->why), "the chain does not end (loop)");
		break;
	default:
		break;
	}
}

static int64_t extents(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t first, uint64_t size,
		       bool nofat, fsc_extent_fn fn, void *ctx, struct fsc_chain_stop *stop)
{
	struct fatreader fr;
	const struct layout *l = &fr.l;
	struct layout_chain it;
	uint64_t need;
	uint32_t c, run_start = 0, run_len = 0;
	int r = open_fat(&fr, dev, p);

	if (r < 0)
		return r;
	need = size ? (size + l->cluster_bytes - 1) / l->cluster_bytes : UINT64_MAX;
	layout_chain_begin(&it, l, fatreader_link, &fr, first, need < l->held ? need : l->held, nofat);
	/* need clusters, and past them only to see that the last one closes a loop */
	while ((it.n < need || layout_chain_at_loop(&it)) && layout_chain_next(&it, &c)) {
		if (run_len && c == run_start + run_len) {
			run_len++;
		} else {
			if (run_len && fn)
				fn(ctx, run_start, run_len);
			run_start = c;
			run_len = 1;
		}
	}
	if (run_len && fn)
		fn(ctx, run_start, run_len);
	if (it.end == LAYOUT_CHAIN_LOOP)
		stop_loop(stop, it.cur, it.loop_to, it.mu);
	else
		stop_why(stop, &it, need, size != 0);
	if (stop->why[0] && it.end != LAYOUT_CHAIN_LOOP)
		stop->end = FSC_CHAIN_BROKEN;
	fatreader_free(&fr);
	return (int64_t)it.n;
}

FSC_EXPORT int64_t fsc_extents(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t first, uint64_t size,
			       bool nofat, fsc_extent_fn fn, void *ctx, struct fsc_chain_stop *stop)
{
	struct fsc_chain_stop own = FSC_CHAIN_STOP_INIT;
	int64_t r;

	if (stop && !sized_out_ok(stop))
		return -EINVAL;
	r = extents(dev, p, first, size, nofat, fn, ctx, &own);
	if (stop)
		(void)sized_out(stop, &own, sizeof(own), 0);
	return r;
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

static int alloc_summary(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_alloc_summary *s)
{
	struct vol_src src;
	const struct layout *l = &src.fr.l;
	uint64_t run = 0;
	int r = vol_src_open(&src, dev, p);

	if (r < 0)
		return r;
	s->clusters = l->held;
	s->cluster_bytes = l->cluster_bytes;
	if (l->type == FSC_TYPE_EXFAT && !src.bitmap) {
		vol_src_close(&src);
		return -EIO;	/* a fragmented bitmap: rare; not summarised */
	}
	for (uint32_t c = 2; (uint64_t)c < (uint64_t)l->held + 2; c++) {
		uint32_t next = fatreader_next(&src.fr, c);
		const uint8_t *bm = src.bitmap;
		bool used = bm ? (bm[(c - 2) / 8] >> ((c - 2) % 8)) & 1 : next != LAYOUT_FREE;

		if (next == LAYOUT_UNREADABLE) {
			r = src.fr.err;
			break;
		}
		if (next == LAYOUT_BAD) {
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
	vol_src_close(&src);
	return r;
}

FSC_EXPORT int fsc_alloc_summary(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_alloc_summary *out)
{
	struct fsc_alloc_summary own = FSC_ALLOC_SUMMARY_INIT;

	if (!sized_out_ok(out))
		return -EINVAL;
	return sized_out(out, &own, sizeof(own), alloc_summary(dev, p, &own));
}

static int volume_geometry(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_geometry *g)
{
	struct layout l;
	int r = vol_geometry(&l, dev, p);

	if (p->type == FSC_TYPE_EXFAT && p->ex.sector_shift >= 9 && p->ex.sector_shift <= 12)
		g->sector_size = 1u << p->ex.sector_shift;
	else if (fsc_type_is_fat(p->type))
		g->sector_size = p->fat.bytes_per_sector;
	else
		g->sector_size = fsc_dev_sector_size(dev);
	if (r < 0)
		return r;
	g->cluster_size = l.cluster_bytes;
	g->clusters = l.clusters;
	g->clusters_on_device = l.held;
	g->data_offset = l.data_byte;
	g->fat_offset = l.fat_byte;
	g->fat_bits = l.fat_bits;
	g->root_cluster = l.root_cluster;
	g->root_offset = l.root_byte;
	g->root_size = l.root_bytes;
	return 0;
}

FSC_EXPORT int fsc_volume_geometry(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_geometry *out)
{
	struct fsc_geometry own = FSC_GEOMETRY_INIT;

	if (!sized_out_ok(out))
		return -EINVAL;
	return sized_out(out, &own, sizeof(own), volume_geometry(dev, p, &own));
}
