// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dired.c - the one directory editor (dired.h): free slots found in a
 * directory as the plan leaves it, and a directory grown by a cluster.
 *
 * Consumes: a device, a plan, a geometry (layout/) and the caller's FAT
 * reader and edits.  Produces: slot offsets, and edits through the ops.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/dired.h"
#include "exfat/exfat.h"
#include "fat/fat.h"

uint32_t dired_plan_link(void *ctx, uint32_t c)
{
	const struct dired *d = ctx;
	const struct layout *g = d->g;
	unsigned bits = g->fat_bits;
	uint64_t at = bits == 12 ? (uint64_t)c + c / 2 : (uint64_t)c * (bits / 8);	/* FAT12: the two bytes holding it */
	uint8_t e[4];

	if (plan_view_read(d->dev, d->plan, g->fat_byte + at, e, bits == 12 ? 2 : bits / 8) < 0)
		return LAYOUT_UNREADABLE;
	return layout_fat_value(g, layout_cell_get(e, bits, c));
}

static bool slot_free(const struct layout *g, const uint8_t *e)
{
	if (g->type == FSC_TYPE_EXFAT)
		return !(e[EXFAT_ENTRY_TYPE] & EXFAT_TYPE_IN_USE);
	return e[FAT_DIR_NAME] == 0x00 || e[FAT_DIR_NAME] == FAT_DIR_FREE;
}

/*
 * One stretch of entries (a cluster, or the FAT12/16 root area) read at
 * base: each to each, free runs counted (a run does not go on into the
 * next stretch); true when an end mark stops the scan (to_end).
 */
static bool scan(const struct dired *d, struct dired_slots *s, const uint8_t *buf, size_t len, uint64_t base,
		 uint32_t cluster)
{
	unsigned run = 0;

	for (size_t i = 0; i + 32 <= len; i += 32) {
		const uint8_t *e = buf + i;

		if (s->each)
			s->each(s->ctx, e, base + i, cluster, (uint32_t)(i / 32));
		run = slot_free(d->g, e) ? run + 1 : 0;
		if (!s->found && run && run <= s->want)
			s->slot[run - 1] = base + i;
		s->found |= run == s->want;
		if (s->to_end && e[0] == 0x00)
			return true;
	}
	return false;
}

int dired_find(const struct dired *d, uint32_t first, struct dired_slots *s)
{
	const struct layout *g = d->g;
	struct layout_chain it;
	uint32_t c;
	bool ended = false;
	uint8_t *buf;

	s->found = s->broken = false;
	s->last = 0;
	if (s->want < 1 || s->want > DIRED_MAX_RUN)
		return -EINVAL;
	if (!first && g->type != FSC_TYPE_EXFAT && g->fat_bits != 32) {	/* the fixed root area */
		if (!(buf = malloc(g->root_bytes)))
			return -ENOMEM;
		if (plan_view_read(d->dev, d->plan, g->root_byte, buf, g->root_bytes) < 0)
			s->broken = true;
		else
			scan(d, s, buf, g->root_bytes, g->root_byte, 0);
		free(buf);
		return 0;
	}
	if (!(buf = malloc(g->cluster_bytes)))
		return -ENOMEM;
	layout_chain_begin(&it, g, d->next ? d->next : dired_plan_link, d->next ? d->next_ctx : (void *)d,
			   first ? first : g->root_cluster, g->held, false);
	while (!ended && layout_chain_next(&it, &c)) {	/* each cluster once, a looping directory too */
		if (plan_view_read(d->dev, d->plan, layout_cluster_byte(g, c), buf, g->cluster_bytes) < 0) {
			s->broken = true;
			break;
		}
		ended = scan(d, s, buf, g->cluster_bytes, layout_cluster_byte(g, c), c);
		s->last = c;
	}
	if (!ended && it.end != LAYOUT_CHAIN_END)
		s->broken = true;
	free(buf);
	return 0;
}

/* The end marks at the end of cluster last made unused entries (an exFAT File entry not in use, 0x05; FAT's 0xE5): the directory goes on. */
static int unmark_end(const struct dired *d, const struct dired_ops *ops, uint32_t last)
{
	const struct layout *g = d->g;
	uint32_t cb = g->cluster_bytes, z = cb;
	uint8_t *buf = malloc(cb);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	if (plan_view_read(d->dev, d->plan, layout_cluster_byte(g, last), buf, cb) < 0) {
		free(buf);
		return -EIO;
	}
	while (z >= 32 && buf[z - 32] == 0x00)
		z -= 32;
	for (uint32_t i = z; i < cb; i += 32)
		buf[i] = g->type == FSC_TYPE_EXFAT ? EXFAT_T_FILE & ~EXFAT_TYPE_IN_USE : FAT_DIR_FREE;
	if (z < cb)
		r = ops->put(ops->ctx, layout_cluster_byte(g, last) + z, buf + z, cb - z,
			     "unused entries: the directory goes on");
	free(buf);
	return r;
}

int dired_grow(const struct dired *d, const struct dired_ops *ops, struct dired_slots *s)
{
	const struct layout *g = d->g;
	uint8_t *zero;
	uint32_t c;
	int r;

	if (!s->last)
		return -ENOSPC;		/* the FAT12/16 root area, or nothing read */
	if (!(zero = calloc(1, g->cluster_bytes)))
		return -ENOMEM;
	if (!(c = ops->take(ops->ctx))) {
		free(zero);
		return -ENOSPC;
	}
	r = unmark_end(d, ops, s->last);
	if (!r)
		r = ops->put(ops->ctx, layout_cluster_byte(g, c), zero, g->cluster_bytes,
			     "zero the directory's new cluster");
	free(zero);
	if (!r)
		r = ops->link(ops->ctx, s->last, c);
	if (r)
		return r;
	for (unsigned i = 0; i < s->want; i++)
		s->slot[i] = layout_cluster_byte(g, c) + 32ull * i;
	s->found = true;
	s->last = c;
	return 0;
}
