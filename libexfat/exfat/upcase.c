// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat/upcase.c - the up-case table (EXSPEC 7.2): the compressed form
 * (a run of identity mappings is 0xFFFF followed by its length) expanded
 * piece by piece, as fs/exfat/nls.c walks it, and the ASCII-only default
 * used when a volume's own table is missing or broken.
 *
 * Consumes: the table's bytes in order, in pieces of any even length.
 * Produces: the 65536-entry mapping (or only the count of code points the
 * table covers).
 */
#include "config.h"

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
