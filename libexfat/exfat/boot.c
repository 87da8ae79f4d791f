// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat/boot.c - the exFAT boot sector decoded into struct fsc_exfat_boot
 * (EXSPEC 3.1), the look-alike test used by classification, and the
 * checksums of the boot region (3.4), entry sets (6.3.3) and tables (7.2.2).
 * The decoder's offsets are those of the field table in report/fields.c;
 * tests/unit/test_fields.c checks that the two agree.
 */
#include "config.h"

#include <string.h>

#include "exfat/exfat.h"

FSC_EXPORT uint32_t fsc_exfat_boot_checksum(const uint8_t *sectors, size_t sector_size)
{
	uint32_t sum = 0;

	/* Bytes 106, 107 (VolumeFlags) and 112 (PercentInUse) are left out. */
	for (size_t i = 0; i < 106; i++)
		sum = (sum << 31 | sum >> 1) + sectors[i];
	for (size_t i = 108; i < 112; i++)
		sum = (sum << 31 | sum >> 1) + sectors[i];
	for (size_t i = 113; i < 11 * sector_size; i++)
		sum = (sum << 31 | sum >> 1) + sectors[i];
	return sum;
}

FSC_EXPORT uint16_t fsc_exfat_set_checksum(const uint8_t *entries, size_t count)
{
	uint16_t sum = 0;

	if (!count)
		return 0;
	/* Bytes 2 and 3 (SetChecksum itself) are left out. */
	sum = (uint16_t)(((uint32_t)sum << 15 | sum >> 1) + entries[0]);
	sum = (uint16_t)(((uint32_t)sum << 15 | sum >> 1) + entries[1]);
	for (size_t i = 4; i < count * 32; i++)
		sum = (uint16_t)(((uint32_t)sum << 15 | sum >> 1) + entries[i]);
	return sum;
}

FSC_EXPORT uint32_t fsc_exfat_table_checksum(const uint8_t *data, size_t len, uint32_t sum)
{
	for (size_t i = 0; i < len; i++)
		sum = (sum << 31 | sum >> 1) + data[i];
	return sum;
}

void exfat_boot_decode(const uint8_t *s, struct fsc_exfat_boot *ex)
{
	memcpy(ex->jump, s, 3);
	for (int i = 0; i < 8; i++)
		ex->fs_name[i] = (s[3 + i] >= 0x20 && s[3 + i] < 0x7F) ? (char)s[3 + i] : '?';
	ex->fs_name[8] = '\0';
	ex->mbz_first = 0;
	for (unsigned i = 11; i < 64; i++)
		if (s[i]) {
			ex->mbz_first = i;
			break;
		}
	ex->partition_offset = get_le64(s, 64);
	ex->volume_length = get_le64(s, 72);
	ex->fat_offset = get_le32(s, 80);
	ex->fat_length = get_le32(s, 84);
	ex->heap_offset = get_le32(s, 88);
	ex->cluster_count = get_le32(s, 92);
	ex->root_cluster = get_le32(s, 96);
	ex->serial = get_le32(s, 100);
	ex->revision = get_le16(s, 104);
	ex->volume_flags = get_le16(s, 106);
	ex->sector_shift = s[108];
	ex->cluster_shift = s[109];
	ex->num_fats = s[110];
	ex->drive_select = s[111];
	ex->percent_in_use = s[112];
	ex->signature = get_le16(s, 510);
}

/*
 * A sector without the name but otherwise an exFAT boot sector: bytes
 * 11..63 zero and a geometry no random data satisfies by chance.
 */
bool exfat_lookalike(const uint8_t *s)
{
	struct fsc_exfat_boot ex;

	if (!bytes_all(s, 11, 53, 0))
		return false;
	exfat_boot_decode(s, &ex);
	return ex.sector_shift >= 9 && ex.sector_shift <= 12 &&
	       ex.cluster_shift <= 25 - ex.sector_shift &&
	       (ex.num_fats == 1 || ex.num_fats == 2) && ex.fat_offset >= 24 &&
	       ex.fat_length > 0 && ex.heap_offset > ex.fat_offset &&
	       ex.cluster_count > 0 && ex.volume_length > ex.heap_offset &&
	       ex.root_cluster >= 2 && ex.root_cluster <= ex.cluster_count + 1;
}

bool exfat_region_sound(const uint8_t *b, unsigned ss)
{
	uint32_t sum;

	if (memcmp(b + 3, "EXFAT   ", 8) != 0 || get_le16(b, 510) != 0xAA55 || b[108] >= 32 || (1u << b[108]) != ss)
		return false;
	sum = fsc_exfat_boot_checksum(b, ss);
	for (unsigned i = 0; i < ss; i += 4)
		if (get_le32(b + 11ull * ss, i) != sum)
			return false;
	return true;
}
