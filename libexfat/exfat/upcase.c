// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat/upcase.c - the up-case table (EXSPEC 7.2): the compressed form
 * (a run of identity mappings is 0xFFFF followed by its length) expanded
 * piece by piece, as fs/exfat/nls.c walks it; the ASCII-only default
 * used when a volume's own table is missing or broken; the recommended
 * table (7.2.5) from its ranges (upcase_rec.c), expanded or compressed.
 *
 * Consumes: the table's bytes in order, in pieces of any even length.
 * Produces: the 65536-entry mapping (or only the count of code points the
 * table covers); the recommended table's bytes.
 */
#include "config.h"

#include <stdlib.h>

#include "exfat/exfat.h"

void exfat_upcase_default(uint16_t *table)
{
	for (uint32_t i = 0; i < 65536; i++)
		table[i] = (uint16_t)((i >= 'a' && i <= 'z') ? i - 32 : i);
}

void exfat_upcase_feed(struct exfat_upcase_rd *r, const uint8_t *buf, size_t n, uint16_t *table)
{
	for (size_t i = 0; i + 1 < n && r->idx < 65536; i += 2) {
		uint16_t u = get_le16(buf, i);

		if (r->skip) {
			uint32_t end = r->idx + u < 65536 ? r->idx + u : 65536;

			for (; table && r->idx < end; r->idx++)	/* without a table: only the count */
				table[r->idx] = (uint16_t)r->idx;
			r->idx = end;
			r->skip = false;
		} else if (u == 0xFFFF && r->idx != 0xFFFF) {
			r->skip = true;
		} else {
			if (table)
				table[r->idx] = u;
			r->idx++;
		}
	}
}

void exfat_upcase_recommended_map(uint16_t *table)
{
	for (uint32_t c = 0; c < 65536; c++)
		table[c] = (uint16_t)c;
	for (size_t i = 0; i < exfat_upcase_rec_nranges; i++) {
		const struct exfat_upcase_range *g = &exfat_upcase_rec_ranges[i];

		for (uint32_t k = 0, c = g->first; k < g->count && c < 65536; k++, c += g->step)
			table[c] = (uint16_t)(c + g->delta);
	}
}

size_t exfat_upcase_recommended(uint8_t *out)
{
	uint16_t *map = malloc(65536 * sizeof(*map));
	size_t n = 0;

	if (!map)
		return 0;
	exfat_upcase_recommended_map(map);
	for (uint32_t c = 0, run; c < 65536; c += run) {
		for (run = 0; c + run < 65536 && map[c + run] == c + run; run++)
			;
		if (run > EXFAT_UPCASE_RUN_MIN) {
			put_le16(out, n, 0xFFFF);
			put_le16(out, n + 2, (uint16_t)run);
			n += 4;
		} else {
			put_le16(out, n, map[c]);
			n += 2;
			run = 1;
		}
	}
	free(map);
	return n;
}
