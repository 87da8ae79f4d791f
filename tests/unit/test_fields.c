// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fields.c - the field tables of report/fields.c (what dump prints
 * and findings name) and the decoders (exfat_boot_decode, fat_bpb_decode,
 * fat_fsinfo_decode) describe the same bytes.  For every field of every
 * table: write a distinctive value at the table's offset and width into
 * an otherwise neutral sector, decode, and check that the member the
 * field names holds that value and that no other decoded member moved.
 * Then the other way round: every member a decoder fills from the sector
 * is named by a field.  Moving an offset on either side fails here.
 * Then the constants of exfat/ondisk.h and fat/ondisk.h against the
 * tables.  Last, the byte helpers of base/bytes.h the walks share.
 *
 * The decoders are internal, so this test is built from their sources
 * (see tests/Makemodule.am), not against the installed API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "exfat/exfat.h"
#include "fat/fat.h"

enum kind {
	K_UINT,		/* little-endian integer, member as wide as the field */
	K_TEXT,		/* on-disk text, member one byte longer (NUL) */
	K_BYTES,	/* raw bytes, member as wide as the field */
	K_MBZ,		/* exFAT MustBeZero: member holds the first non-zero offset */
	K_NONE,		/* not decoded (boot code, reserved, CHS geometry) */
};

/* A decoded member and the field (by name) it comes from. */
struct member {
	const char *field;
	size_t off, size;
	enum kind kind;
};

#define M(type, mem, field, kind) \
	{ field, offsetof(type, mem), sizeof(((type *)0)->mem), kind }
#define NOT_DECODED(field) { field, 0, 0, K_NONE }

/* A member computed from others, not read from a field of its own. */
struct span {
	const char *name;
	size_t off, size;
};

#define D(type, mem) { #mem, offsetof(type, mem), sizeof(((type *)0)->mem) }

#define EX struct fsc_exfat_boot
static const struct member exfat_members[] = {
	M(EX, jump, "JumpBoot", K_BYTES),
	M(EX, fs_name, "FileSystemName", K_TEXT),
	M(EX, mbz_first, "MustBeZero", K_MBZ),
	M(EX, partition_offset, "PartitionOffset", K_UINT),
	M(EX, volume_length, "VolumeLength", K_UINT),
	M(EX, fat_offset, "FatOffset", K_UINT),
	M(EX, fat_length, "FatLength", K_UINT),
	M(EX, heap_offset, "ClusterHeapOffset", K_UINT),
	M(EX, cluster_count, "ClusterCount", K_UINT),
	M(EX, root_cluster, "FirstClusterOfRootDirectory", K_UINT),
	M(EX, serial, "VolumeSerialNumber", K_UINT),
	M(EX, revision, "FileSystemRevision", K_UINT),
	M(EX, volume_flags, "VolumeFlags", K_UINT),
	M(EX, sector_shift, "BytesPerSectorShift", K_UINT),
	M(EX, cluster_shift, "SectorsPerClusterShift", K_UINT),
	M(EX, num_fats, "NumberOfFats", K_UINT),
	M(EX, drive_select, "DriveSelect", K_UINT),
	M(EX, percent_in_use, "PercentInUse", K_UINT),
	NOT_DECODED("Reserved"),
	NOT_DECODED("BootCode"),
	M(EX, signature, "BootSignature", K_UINT),
};

#define FB struct fsc_fat_bpb
static const struct member fat_members[] = {
	M(FB, jump, "BS_jmpBoot", K_BYTES),
	M(FB, oem, "BS_OEMName", K_TEXT),
	M(FB, bytes_per_sector, "BPB_BytsPerSec", K_UINT),
	M(FB, sec_per_clus, "BPB_SecPerClus", K_UINT),
	M(FB, reserved, "BPB_RsvdSecCnt", K_UINT),
	M(FB, num_fats, "BPB_NumFATs", K_UINT),
	M(FB, root_entries, "BPB_RootEntCnt", K_UINT),
	M(FB, total16, "BPB_TotSec16", K_UINT),
	M(FB, media, "BPB_Media", K_UINT),
	M(FB, fat_size16, "BPB_FATSz16", K_UINT),
	NOT_DECODED("BPB_SecPerTrk"),
	NOT_DECODED("BPB_NumHeads"),
	M(FB, hidden, "BPB_HiddSec", K_UINT),
	M(FB, total32, "BPB_TotSec32", K_UINT),
	M(FB, fat_size32, "BPB_FATSz32", K_UINT),
	M(FB, ext_flags, "BPB_ExtFlags", K_UINT),
	M(FB, fs_version, "BPB_FSVer", K_UINT),
	M(FB, root_cluster, "BPB_RootClus", K_UINT),
	M(FB, fsinfo_sector, "BPB_FSInfo", K_UINT),
	M(FB, backup_sector, "BPB_BkBootSec", K_UINT),
	NOT_DECODED("BPB_Reserved"),
	M(FB, drive, "BS_DrvNum", K_UINT),
	M(FB, state, "BS_Reserved1", K_UINT),
	M(FB, boot_sig, "BS_BootSig", K_UINT),
	M(FB, serial, "BS_VolID", K_UINT),
	M(FB, boot_label, "BS_VolLab", K_TEXT),
	M(FB, fs_type, "BS_FilSysType", K_TEXT),
	NOT_DECODED("BootCode"),
	M(FB, signature, "Signature", K_UINT),
};

static const struct span fat_derived[] = {
	D(FB, bpb32), D(FB, fat_size), D(FB, total_sectors), D(FB, root_dir_sectors),
	D(FB, data_start), D(FB, clusters), D(FB, spec_type), D(FB, bpb_type), D(FB, geometry_ok),
};

#define FI struct fat_fsinfo
static const struct member fsinfo_members[] = {
	M(FI, lead_sig, "FSI_LeadSig", K_UINT),
	NOT_DECODED("FSI_Reserved1"),
	M(FI, struc_sig, "FSI_StrucSig", K_UINT),
	M(FI, free_count, "FSI_Free_Count", K_UINT),
	M(FI, next_free, "FSI_Nxt_Free", K_UINT),
	NOT_DECODED("FSI_Reserved2"),
	M(FI, trail_sig, "FSI_TrailSig", K_UINT),
};

/*
 * Decoders fill a struct that was first set to 0xA5 everywhere, so bytes
 * a decoder leaves alone (padding, members it does not own) compare equal
 * between two decodes.
 */
static void dec_exfat(const uint8_t *s, void *out)
{
	memset(out, 0xA5, sizeof(struct fsc_exfat_boot));
	exfat_boot_decode(s, out);
}

static void dec_fat(const uint8_t *s, void *out)
{
	memset(out, 0xA5, sizeof(struct fsc_fat_bpb));
	fat_bpb_decode(s, out);
}

static void dec_fsinfo(const uint8_t *s, void *out)
{
	memset(out, 0xA5, sizeof(struct fat_fsinfo));
	fat_fsinfo_decode(s, out);
}

/* Room for any decoded struct, suitably aligned. */
union decoded {
	struct fsc_exfat_boot ex;
	struct fsc_fat_bpb fat;
	struct fat_fsinfo fi;
	uint8_t b[1];
};

struct decoder {
	const char *name;
	void (*decode)(const uint8_t *s, void *out);
	size_t size;
	const struct member *m;
	size_t nm;
	const struct span *derived;
	size_t nd;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct decoder exfat_dec = { "exfat_boot_decode", dec_exfat, sizeof(EX),
					  exfat_members, N(exfat_members), NULL, 0 };
static const struct decoder fat_dec = { "fat_bpb_decode", dec_fat, sizeof(FB),
					fat_members, N(fat_members), fat_derived, N(fat_derived) };
static const struct decoder fsinfo_dec = { "fat_fsinfo_decode", dec_fsinfo, sizeof(FI),
					   fsinfo_members, N(fsinfo_members), NULL, 0 };

/* Neutral sectors: zero, plus what selects the layout (FAT: sector size, FATSz16). */
static void base_zero(uint8_t *s)
{
	memset(s, 0, 512);
}

static void base_fat16(uint8_t *s)
{
	memset(s, 0, 512);
	s[11] = 0x00, s[12] = 0x02;	/* 512 bytes per sector */
	s[13] = 1;
	s[22] = 1;			/* BPB_FATSz16 != 0: FAT12/16 layout */
}

static void base_fat32(uint8_t *s)
{
	memset(s, 0, 512);
	s[11] = 0x00, s[12] = 0x02;
	s[13] = 1;			/* BPB_FATSz16 = 0: FAT32 layout */
}

/* A table, the decoder for it, and the sector it is written into. */
struct table_case {
	const char *name;
	enum fsc_table table;
	const struct decoder *dec;
	void (*base)(uint8_t *s);
};

static const struct table_case cases[] = {
	{ "exFAT boot sector", FSC_TABLE_EXFAT_BOOT, &exfat_dec, base_zero },
	{ "FAT BPB (FAT12/16)", FSC_TABLE_FAT_BPB, &fat_dec, base_fat16 },
	{ "FAT BPB (FAT32)", FSC_TABLE_FAT_BPB, &fat_dec, base_fat32 },
	{ "FAT12/16 extended BPB", FSC_TABLE_FAT16_EBPB, &fat_dec, base_fat16 },
	{ "FAT32 extended BPB", FSC_TABLE_FAT32_EBPB, &fat_dec, base_fat32 },
	{ "FSInfo", FSC_TABLE_FSINFO, &fsinfo_dec, base_zero },
};

static const struct member *member_of(const struct decoder *d, const char *field)
{
	for (size_t i = 0; i < d->nm; i++)
		if (strcmp(d->m[i].field, field) == 0)
			return &d->m[i];
	return NULL;
}

/* Byte i of the distinctive value: printable for text, never 0. */
static uint8_t pattern(enum kind k, unsigned i)
{
	return k == K_TEXT ? (uint8_t)('a' + i % 26) : (uint8_t)(0x80 | (0x41 + 7 * i));
}

static uint64_t member_uint(const uint8_t *out, const struct member *m)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (m->size) {
	case 1: memcpy(&u8, out + m->off, 1); return u8;
	case 2: memcpy(&u16, out + m->off, 2); return u16;
	case 4: memcpy(&u32, out + m->off, 4); return u32;
	case 8: memcpy(&u64, out + m->off, 8); return u64;
	}
	fail_msg("member of field %s is %zu bytes", m->field, m->size);
	return 0;
}

/* The member holds what was written at the field. */
static void check_member(const struct fsc_field *f, const struct member *m, const uint8_t *s,
			 const uint8_t *out)
{
	char text[64];
	uint64_t want = 0;

	switch (m->kind) {
	case K_UINT:
		assert_true(f->width <= 8);
		for (unsigned i = 0; i < f->width; i++)
			want |= (uint64_t)s[f->offset + i] << (8 * i);
		if (m->size != f->width)
			fail_msg("%s: field is %u bytes, member %zu", f->name, f->width, m->size);
		if (member_uint(out, m) != want)
			fail_msg("%s: wrote 0x%llx at %u, decoded 0x%llx", f->name, (unsigned long long)want,
				 f->offset, (unsigned long long)member_uint(out, m));
		break;
	case K_TEXT:
		assert_int_equal(m->size, f->width + 1);
		assert_true(f->width < sizeof(text));
		memcpy(text, s + f->offset, f->width);
		text[f->width] = '\0';
		if (memcmp(out + m->off, text, f->width + 1) != 0)
			fail_msg("%s: wrote \"%s\" at %u, decoded \"%.*s\"", f->name, text, f->offset,
				 (int)f->width, (const char *)out + m->off);
		break;
	case K_BYTES:
		assert_int_equal(m->size, f->width);
		if (memcmp(out + m->off, s + f->offset, f->width) != 0)
			fail_msg("%s: bytes at %u not decoded", f->name, f->offset);
		break;
	case K_MBZ:
		if (member_uint(out, m) != f->offset)
			fail_msg("%s: first non-zero byte is %u, decoded %llu", f->name, f->offset,
				 (unsigned long long)member_uint(out, m));
		break;
	case K_NONE:
		break;
	}
}

/* Every member other than m (NULL: every member) is as decoded from the base. */
static void check_others(const struct table_case *l, const struct fsc_field *f, const struct member *m,
			 const uint8_t *out, const uint8_t *base_out)
{
	const struct decoder *d = l->dec;

	for (size_t i = 0; i < d->nm; i++) {
		const struct member *o = &d->m[i];

		if (o == m || o->kind == K_NONE)
			continue;
		if (memcmp(out + o->off, base_out + o->off, o->size) != 0)
			fail_msg("%s: writing %s (%u..%u) changed %s's member too", l->name, f->name,
				 f->offset, f->offset + f->width - 1, o->field);
	}
}

/* The exFAT MustBeZero range ends where the table says. */
static void check_mbz_end(const struct table_case *l, const struct fsc_field *f, const struct member *m)
{
	uint8_t s[512];
	union decoded u;
	const uint8_t *out = (const uint8_t *)&u;

	l->base(s);
	s[f->offset + f->width - 1] = 0x01;
	l->dec->decode(s, &u);
	if (member_uint(out, m) != (uint64_t)f->offset + f->width - 1)
		fail_msg("%s: a non-zero last byte %u decodes as %llu", f->name, f->offset + f->width - 1,
			 (unsigned long long)member_uint(out, m));
}

static void test_decode_each_field(void **state)
{
	uint8_t s[512];
	union decoded u, base_u;
	const uint8_t *out = (const uint8_t *)&u, *base_out = (const uint8_t *)&base_u;
	unsigned checked = 0;

	(void)state;
	for (size_t li = 0; li < N(cases); li++) {
		const struct table_case *l = &cases[li];
		size_t n;
		const struct fsc_field *t = fsc_field_table(l->table, &n);

		assert_true(l->dec->size <= sizeof(u));
		l->base(s);
		l->dec->decode(s, &base_u);
		for (size_t i = 0; i < n; i++) {
			const struct fsc_field *f = &t[i];
			const struct member *m = member_of(l->dec, f->name);

			if (!m)
				fail_msg("%s: field %s has no member in the test's map", l->name, f->name);
			assert_true(f->offset + f->width <= 512);
			l->base(s);
			for (unsigned k = 0; k < f->width; k++)
				s[f->offset + k] = pattern(m->kind, k);
			l->dec->decode(s, &u);
			check_member(f, m, s, out);
			check_others(l, f, m, out, base_out);
			if (m->kind == K_MBZ)
				check_mbz_end(l, f, m);
			checked += m->kind != K_NONE;
		}
	}
	/* Decoded fields: 19 exFAT, 2 x 12 BPB, 7 FAT12/16 and 13 FAT32 eBPB, 5 FSInfo. */
	assert_int_equal(checked, 19 + 2 * 12 + 7 + 13 + 5);
}

static const struct decoder *const decoders[] = { &exfat_dec, &fat_dec, &fsinfo_dec };

static bool decoder_has_field(const struct decoder *d, const char *name)
{
	for (size_t li = 0; li < N(cases); li++) {
		size_t n;
		const struct fsc_field *t = fsc_field_table(cases[li].table, &n);

		for (size_t k = 0; k < n && cases[li].dec == d; k++)
			if (strcmp(t[k].name, name) == 0)
				return true;
	}
	return false;
}

/* Every entry of the map names a field of a table its decoder serves. */
static void test_map_names_fields(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(decoders); i++)
		for (size_t k = 0; k < decoders[i]->nm; k++)
			if (!decoder_has_field(decoders[i], decoders[i]->m[k].field))
				fail_msg("%s: the map names %s, no table has it", decoders[i]->name,
					 decoders[i]->m[k].field);
}

static bool byte_named(const struct decoder *d, size_t b)
{
	for (size_t i = 0; i < d->nm; i++)
		if (d->m[i].kind != K_NONE && b >= d->m[i].off && b < d->m[i].off + d->m[i].size)
			return true;
	for (size_t i = 0; i < d->nd; i++)
		if (b >= d->derived[i].off && b < d->derived[i].off + d->derived[i].size)
			return true;
	return false;
}

/*
 * Every byte of the decoded struct that depends on the sector belongs to
 * a member the map ties to a field (or to a derived member): a decoder
 * that fills a new member from a byte no field describes fails here.
 */
static void test_every_member_has_field(void **state)
{
	uint8_t s[512];
	union decoded u, base_u;
	const uint8_t *out = (const uint8_t *)&u, *base_out = (const uint8_t *)&base_u;

	(void)state;
	for (size_t li = 0; li < N(cases); li++) {
		const struct table_case *l = &cases[li];

		for (int pat = 0; pat < 2; pat++) {
			l->base(s);
			l->dec->decode(s, &base_u);
			for (unsigned i = 0; i < 512; i++)
				s[i] = pat ? (uint8_t)(i * 37 + 11) | 1 : 0xFF;
			if (l->base == base_fat32)
				s[22] = s[23] = 0;	/* keep the FAT32 layout */
			l->dec->decode(s, &u);
			for (size_t b = 0; b < l->dec->size; b++)
				if (out[b] != base_out[b] && !byte_named(l->dec, b))
					fail_msg("%s: %s fills byte %zu of its struct from no field",
						 l->name, l->dec->name, b);
		}
	}
}

/*
 * The offsets exfat/ondisk.h and fat/ondisk.h name (what the code reads
 * and writes) are the field tables' (what dump prints, what findings
 * name): every field of every table has its constant, at its offset, as
 * wide as the table says.  Moving either fails here.
 */
struct named {
	enum fsc_table table;
	const char *field, *constant;
	unsigned offset, width;
};

#define NAMED(t, field, c, w) { t, field, #c, c, w }
static const struct named named[] = {
	NAMED(FSC_TABLE_EXFAT_BOOT, "JumpBoot", EXFAT_BOOT_JUMP_BOOT, 3),
	NAMED(FSC_TABLE_EXFAT_BOOT, "FileSystemName", EXFAT_BOOT_FILE_SYSTEM_NAME, 8),
	NAMED(FSC_TABLE_EXFAT_BOOT, "MustBeZero", EXFAT_BOOT_MUST_BE_ZERO, 53),
	NAMED(FSC_TABLE_EXFAT_BOOT, "PartitionOffset", EXFAT_BOOT_PARTITION_OFFSET, 8),
	NAMED(FSC_TABLE_EXFAT_BOOT, "VolumeLength", EXFAT_BOOT_VOLUME_LENGTH, 8),
	NAMED(FSC_TABLE_EXFAT_BOOT, "FatOffset", EXFAT_BOOT_FAT_OFFSET, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "FatLength", EXFAT_BOOT_FAT_LENGTH, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "ClusterHeapOffset", EXFAT_BOOT_CLUSTER_HEAP_OFFSET, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "ClusterCount", EXFAT_BOOT_CLUSTER_COUNT, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "FirstClusterOfRootDirectory", EXFAT_BOOT_FIRST_CLUSTER_OF_ROOT, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "VolumeSerialNumber", EXFAT_BOOT_VOLUME_SERIAL_NUMBER, 4),
	NAMED(FSC_TABLE_EXFAT_BOOT, "FileSystemRevision", EXFAT_BOOT_FILE_SYSTEM_REVISION, 2),
	NAMED(FSC_TABLE_EXFAT_BOOT, "VolumeFlags", EXFAT_BOOT_VOLUME_FLAGS, 2),
	NAMED(FSC_TABLE_EXFAT_BOOT, "BytesPerSectorShift", EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT, 1),
	NAMED(FSC_TABLE_EXFAT_BOOT, "SectorsPerClusterShift", EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT, 1),
	NAMED(FSC_TABLE_EXFAT_BOOT, "NumberOfFats", EXFAT_BOOT_NUMBER_OF_FATS, 1),
	NAMED(FSC_TABLE_EXFAT_BOOT, "DriveSelect", EXFAT_BOOT_DRIVE_SELECT, 1),
	NAMED(FSC_TABLE_EXFAT_BOOT, "PercentInUse", EXFAT_BOOT_PERCENT_IN_USE, 1),
	NAMED(FSC_TABLE_EXFAT_BOOT, "Reserved", EXFAT_BOOT_RESERVED, 7),
	NAMED(FSC_TABLE_EXFAT_BOOT, "BootCode", EXFAT_BOOT_BOOT_CODE, 390),
	NAMED(FSC_TABLE_EXFAT_BOOT, "BootSignature", EXFAT_BOOT_BOOT_SIGNATURE, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BS_jmpBoot", FAT_BS_JMP_BOOT, 3),
	NAMED(FSC_TABLE_FAT_BPB, "BS_OEMName", FAT_BS_OEM_NAME, 8),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_BytsPerSec", FAT_BPB_BYTS_PER_SEC, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_SecPerClus", FAT_BPB_SEC_PER_CLUS, 1),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_RsvdSecCnt", FAT_BPB_RSVD_SEC_CNT, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_NumFATs", FAT_BPB_NUM_FATS, 1),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_RootEntCnt", FAT_BPB_ROOT_ENT_CNT, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_TotSec16", FAT_BPB_TOT_SEC16, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_Media", FAT_BPB_MEDIA, 1),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_FATSz16", FAT_BPB_FAT_SZ16, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_SecPerTrk", FAT_BPB_SEC_PER_TRK, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_NumHeads", FAT_BPB_NUM_HEADS, 2),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_HiddSec", FAT_BPB_HIDD_SEC, 4),
	NAMED(FSC_TABLE_FAT_BPB, "BPB_TotSec32", FAT_BPB_TOT_SEC32, 4),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_DrvNum", FAT16_BS_DRV_NUM, 1),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_Reserved1", FAT16_BS_RESERVED1, 1),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_BootSig", FAT16_BS_BOOT_SIG, 1),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_VolID", FAT16_BS_VOL_ID, 4),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_VolLab", FAT16_BS_VOL_LAB, 11),
	NAMED(FSC_TABLE_FAT16_EBPB, "BS_FilSysType", FAT16_BS_FIL_SYS_TYPE, 8),
	NAMED(FSC_TABLE_FAT16_EBPB, "BootCode", FAT16_BS_BOOT_CODE, 448),
	NAMED(FSC_TABLE_FAT16_EBPB, "Signature", FAT_BS_SIGNATURE, 2),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_FATSz32", FAT32_BPB_FAT_SZ32, 4),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_ExtFlags", FAT32_BPB_EXT_FLAGS, 2),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_FSVer", FAT32_BPB_FS_VER, 2),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_RootClus", FAT32_BPB_ROOT_CLUS, 4),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_FSInfo", FAT32_BPB_FS_INFO, 2),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_BkBootSec", FAT32_BPB_BK_BOOT_SEC, 2),
	NAMED(FSC_TABLE_FAT32_EBPB, "BPB_Reserved", FAT32_BPB_RESERVED, 12),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_DrvNum", FAT32_BS_DRV_NUM, 1),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_Reserved1", FAT32_BS_RESERVED1, 1),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_BootSig", FAT32_BS_BOOT_SIG, 1),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_VolID", FAT32_BS_VOL_ID, 4),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_VolLab", FAT32_BS_VOL_LAB, 11),
	NAMED(FSC_TABLE_FAT32_EBPB, "BS_FilSysType", FAT32_BS_FIL_SYS_TYPE, 8),
	NAMED(FSC_TABLE_FAT32_EBPB, "BootCode", FAT32_BS_BOOT_CODE, 420),
	NAMED(FSC_TABLE_FAT32_EBPB, "Signature", FAT_BS_SIGNATURE, 2),
	NAMED(FSC_TABLE_FSINFO, "FSI_LeadSig", FAT_FSI_LEAD_SIG, 4),
	NAMED(FSC_TABLE_FSINFO, "FSI_Reserved1", FAT_FSI_RESERVED1, 480),
	NAMED(FSC_TABLE_FSINFO, "FSI_StrucSig", FAT_FSI_STRUC_SIG, 4),
	NAMED(FSC_TABLE_FSINFO, "FSI_Free_Count", FAT_FSI_FREE_COUNT, 4),
	NAMED(FSC_TABLE_FSINFO, "FSI_Nxt_Free", FAT_FSI_NXT_FREE, 4),
	NAMED(FSC_TABLE_FSINFO, "FSI_Reserved2", FAT_FSI_RESERVED2, 12),
	NAMED(FSC_TABLE_FSINFO, "FSI_TrailSig", FAT_FSI_TRAIL_SIG, 4),
};

static void test_named_offsets(void **state)
{
	(void)state;
	for (enum fsc_table t = 0; t < FSC_TABLE_COUNT; t++) {
		size_t n;
		const struct fsc_field *v = fsc_field_table(t, &n);

		for (size_t i = 0; i < n; i++) {
			unsigned hits = 0;

			for (size_t k = 0; k < N(named); k++) {
				if (named[k].table != t || strcmp(named[k].field, v[i].name) != 0)
					continue;
				hits++;
				if (named[k].offset != v[i].offset || named[k].width != v[i].width)
					fail_msg("%s is %u (%u bytes); table %d's %s is at %u (%u bytes)", named[k].constant,
						 named[k].offset, named[k].width, (int)t, v[i].name, v[i].offset, v[i].width);
			}
			if (hits != 1)
				fail_msg("table %d's %s: %u constants name it (1 should)", (int)t, v[i].name, hits);
		}
	}
	for (size_t k = 0; k < N(named); k++) {
		const struct fsc_field *f = fsc_field_at(named[k].table, named[k].offset);

		if (!f || f->offset != named[k].offset || strcmp(f->name, named[k].field) != 0)
			fail_msg("%s: table %d has no field %s at %u", named[k].constant, (int)named[k].table,
				 named[k].field, named[k].offset);
	}
}

/* bytes_zero_tail: the zeros a buffer ends in, at every length and alignment around a word. */
static void test_zero_tail(void **state)
{
	uint8_t b[80];

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(bytes_zero_tail(b, 0), 0);
	for (size_t len = 1; len <= 40; len++) {
		assert_int_equal(bytes_zero_tail(b + 3, len), len);	/* all zeros, unaligned */
		for (size_t at = 0; at < len; at++) {
			b[3 + at] = 0x80;
			assert_int_equal(bytes_zero_tail(b + 3, len), len - at - 1);
			b[3 + at] = 0;
		}
	}
	/* the last byte set: no zeros; bits_apart on the same bytes */
	b[10] = 1;
	assert_int_equal(bytes_zero_tail(b, 11), 0);
	assert_int_equal(bytes_bits_apart(b, b + 40, 11), 1);
}

int unit_fields(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_each_field),
		cmocka_unit_test(test_map_names_fields),
		cmocka_unit_test(test_every_member_has_field),
		cmocka_unit_test(test_named_offsets),
		cmocka_unit_test(test_zero_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
