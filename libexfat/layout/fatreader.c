// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fatreader.c - the one FAT reader: entries of a FAT12, FAT16, FAT32 or
 * exFAT FAT through a bounded block cache, never a map of the whole FAT.
 *
 * Consumes: a struct layout.  Produces: raw and normalised entries
 * (layout_fat_value).  Memory: FATREADER_SLOTS blocks of FATREADER_BLOCK
 * bytes at most; every read goes through fsc_dev_read, so a FAT that
 * lies partly beyond the device reads as far as the device goes and is
 * an error after that.  A FAT12 entry may straddle two blocks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

void fatreader_init(struct fatreader *fr, const struct layout *l)
{
	struct layout copy = *l;	/* l may point into fr */
	uint64_t size = fsc_dev_size(l->dev), fat = layout_fat_bytes(l, (uint64_t)l->clusters + 2);

	memset(fr, 0, sizeof(*fr));
	fr->l = copy;
	fr->avail = l->fat_byte >= size ? 0 : size - l->fat_byte < fat ? size - l->fat_byte : fat;
}

void fatreader_free(struct fatreader *fr)
{
	free(fr->data);
	fr->data = NULL;
	memset(fr->tag, 0, sizeof(fr->tag));
}

static int fail(struct fatreader *fr, int err)
{
	if (!fr->err)
		fr->err = err;
	return err;
}

/* Block blk of the FAT in *d, read into its slot unless it is there. */
static int block(struct fatreader *fr, uint64_t blk, const uint8_t **d)
{
	uint64_t start = blk * FATREADER_BLOCK;
	unsigned slot = (unsigned)(blk % FATREADER_SLOTS);
	uint8_t *b;

	if (!fr->data && !(fr->data = malloc((size_t)FATREADER_SLOTS * FATREADER_BLOCK)))
		return fail(fr, -ENOMEM);
	b = fr->data + (size_t)slot * FATREADER_BLOCK;
	if (fr->tag[slot] != blk + 1) {
		size_t len = fr->avail - start < FATREADER_BLOCK ? (size_t)(fr->avail - start) : FATREADER_BLOCK;

		fr->tag[slot] = 0;
		if (fsc_dev_read(fr->l.dev, fr->l.fat_byte + start, b, len) < 0)
			return fail(fr, -EIO);
		fr->tag[slot] = blk + 1;
	}
	*d = b;
	return 0;
}

/* The width bytes at FAT byte off (off + width <= avail) into e, across a block boundary if need be. */
static int entry_bytes(struct fatreader *fr, uint64_t off, unsigned width, uint8_t *e)
{
	size_t in = (size_t)(off % FATREADER_BLOCK), first = FATREADER_BLOCK - in;
	const uint8_t *d;
	int r = block(fr, off / FATREADER_BLOCK, &d);

	if (r < 0)
		return r;
	if (first >= width) {
		memcpy(e, d + in, width);
		return 0;
	}
	memcpy(e, d + in, first);	/* a FAT12 entry across two blocks */
	r = block(fr, off / FATREADER_BLOCK + 1, &d);
	if (r < 0)
		return r;
	memcpy(e + first, d, width - first);
	return 0;
}

/* fatreader_raw's body, inlined into fatreader_next: whole-FAT scans call it once per cluster. */
static inline int read_raw(struct fatreader *fr, uint32_t c, uint32_t *v)
{
	unsigned bits = fr->l.fat_bits, width = bits == 12 ? 2 : bits / 8;
	uint64_t off = bits == 12 ? (uint64_t)c + c / 2 : (uint64_t)c * width;
	unsigned slot = (unsigned)(off / FATREADER_BLOCK % FATREADER_SLOTS);
	size_t in = (size_t)(off % FATREADER_BLOCK);
	uint8_t e[4];
	const uint8_t *p;
	int r;

	if ((uint64_t)c > (uint64_t)fr->l.clusters + 1)
		return fail(fr, -ERANGE);
	if (off + width > fr->avail)
		return fail(fr, -EIO);
	if (fr->tag[slot] == off / FATREADER_BLOCK + 1 && in + width <= FATREADER_BLOCK) {
		p = fr->data + (size_t)slot * FATREADER_BLOCK + in;	/* cached: the common case */
	} else {
		r = entry_bytes(fr, off, width, e);
		if (r < 0)
			return r;
		p = e;
	}
	*v = layout_cell_get(p, bits, c);
	return 0;
}

int fatreader_raw(struct fatreader *fr, uint32_t c, uint32_t *v)
{
	return read_raw(fr, c, v);
}

uint32_t fatreader_next(struct fatreader *fr, uint32_t c)
{
	uint32_t v;

	if (read_raw(fr, c, &v) < 0)
		return LAYOUT_UNREADABLE;
	return layout_fat_value(&fr->l, v);
}

uint32_t fatreader_link(void *fr, uint32_t c)
{
	return fatreader_next(fr, c);
}
