// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat/bpb.c - the FAT boot sector and BPB decoded into struct fsc_fat_bpb
 * (fatgen103 section 3), with the FAT type by cluster count and by the
 * BPB's style, the FSInfo sector decoded (fatgen103 section 5), and the
 * plausibility test used by classification.  The offsets are those of
 * the field tables in report/fields.c; tests/unit/test_fields.c checks
 * that the two agree.
 */
#include "config.h"

#include <string.h>

#include "fat/fat.h"

static bool fat_fstype_magic(const uint8_t *s)
{
	static const char *const m[] = { "FAT12   ", "FAT16   ", "FAT     ", "MSDOS", "MSWIN" };

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (memcmp(s + 54, m[i], strlen(m[i])) == 0)
			return true;
	return memcmp(s + 82, "FAT32   ", 8) == 0 || memcmp(s + 82, "MSWIN", 5) == 0;
}

bool fat_bpb_plausible(const uint8_t *s)
{
	uint16_t bps = get_le16(s, 11);
	bool jump = (s[0] == 0xEB && s[2] == 0x90) || s[0] == 0xE9;

	return (jump || fat_fstype_magic(s)) && bps >= 512 && bps <= 4096 &&
	       is_pow2_u32(bps) && is_pow2_u32(s[13]) && get_le16(s, 14) != 0 && s[16] != 0;
}

void fat_text(char *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7F) ? (char)src[i] : '?';
	dst[n] = '\0';
}

void fat_text_trim(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static enum fsc_type type_by_count(uint64_t clusters)
{
	return clusters < 4085 ? FSC_TYPE_FAT12 : clusters < 65525 ? FSC_TYPE_FAT16 : FSC_TYPE_FAT32;
}

void fat_bpb_decode(const uint8_t *s, struct fsc_fat_bpb *b)
{
	unsigned ext;

	memset(b, 0, sizeof(*b));
	memcpy(b->jump, s, 3);
	fat_text(b->oem, s + 3, 8);
	b->bytes_per_sector = get_le16(s, 11);
	b->sec_per_clus = s[13];
	b->reserved = get_le16(s, 14);
	b->num_fats = s[16];
	b->root_entries = get_le16(s, 17);
	b->total16 = get_le16(s, 19);
	b->media = s[21];
	b->fat_size16 = get_le16(s, 22);
	b->hidden = get_le32(s, 28);
	b->total32 = get_le32(s, 32);
	b->signature = get_le16(s, 510);
	b->bpb32 = b->fat_size16 == 0;
	ext = b->bpb32 ? 64 : 36;
	if (b->bpb32) {
		b->fat_size32 = get_le32(s, 36);
		b->ext_flags = get_le16(s, 40);
		b->fs_version = get_le16(s, 42);
		b->root_cluster = get_le32(s, 44);
		b->fsinfo_sector = get_le16(s, 48);
		b->backup_sector = get_le16(s, 50);
	}
	b->drive = s[ext];
	b->state = s[ext + 1];
	b->boot_sig = s[ext + 2];
	b->serial = get_le32(s, ext + 3);
	fat_text(b->boot_label, s + ext + 7, 11);
	fat_text(b->fs_type, s + ext + 18, 8);

	b->fat_size = b->bpb32 ? b->fat_size32 : b->fat_size16;
	b->total_sectors = b->total16 ? b->total16 : b->total32;
	b->root_dir_sectors = ((uint32_t)b->root_entries * 32 + b->bytes_per_sector - 1) /
			      b->bytes_per_sector;
	b->data_start = b->reserved + (uint64_t)b->num_fats * b->fat_size + b->root_dir_sectors;
	b->geometry_ok = b->data_start < b->total_sectors;
	if (b->geometry_ok)
		b->clusters = (b->total_sectors - b->data_start) / b->sec_per_clus;
	b->spec_type = type_by_count(b->clusters);
	b->bpb_type = (b->bpb32 && b->fat_size32) ? FSC_TYPE_FAT32 :
		      b->clusters > 4084 ? FSC_TYPE_FAT16 : FSC_TYPE_FAT12;
	if (!b->geometry_ok)
		b->spec_type = b->bpb_type;
}

void fat_fsinfo_decode(const uint8_t *s, struct fat_fsinfo *fi)
{
	fi->lead_sig = get_le32(s, 0);
	fi->struc_sig = get_le32(s, 484);
	fi->free_count = get_le32(s, 488);
	fi->next_free = get_le32(s, 492);
	fi->trail_sig = get_le32(s, 508);
}
