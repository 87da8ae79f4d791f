// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * layout.c - the filesystem-neutral part of a volume's layout: the clamp
 * of the cluster count to the clusters the device holds and the size of
 * a FAT of n entries (FAT values are normalised in layout.h).
 *
 * Consumes: a struct layout filled by exfat/layout.c or fat/layout.c.
 * Produces: numbers.
 */
#include "config.h"

#include "layout/layout.h"

void layout_clamp(struct layout *l)
{
	uint64_t size = fsc_dev_size(l->dev);

	l->held = l->clusters;
	if (l->data_byte >= size)
		l->held = 0;
	else if ((size - l->data_byte) / l->cluster_bytes < l->held)
		l->held = (uint32_t)((size - l->data_byte) / l->cluster_bytes);
}

uint64_t layout_fat_bytes(const struct layout *l, uint64_t n)
{
	return (n * l->fat_bits + 7) / 8;
}
