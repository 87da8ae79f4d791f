// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * crc32.c - CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the
 * checksum of the undo log and of GPT headers and partition arrays (UEFI
 * specification 2.10, 5.3.2).  Bitwise: what it checks is small.
 */
#include "config.h"

#include "base/base.h"

uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}
