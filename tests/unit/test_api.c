// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_api.c - promises of the public API that callers compile against:
 * problem codes are fixed numbers (unique, and those recorded here never
 * change); fix kinds are an enum whose names are problems.def's; the
 * accessors of the opaque probe; fsc_check fills the caller's list, the
 * probe's findings first, and leaves the probe alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"

/* Every entry of problems.def, as the header sees it. */
static const struct def_entry {
	const char *name;
	int code;
	const char *fix;		/* as written in problems.def */
} defs[] = {
#define PROBLEM(code, name, sev, fix, flags, msg, expl, repair) { #name, code, #fix },
#include "fatscope/problems.def"
#undef PROBLEM
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))

/*
 * The codes of the problems there were when codes became fixed.  A line
 * here never changes.  A problem added later needs no line (the test above
 * covers it); retiring one removes its FSC_PR_ constant, an API change
 * said in NEWS, and only then its line, and its code is never reused.
 */
static const struct recorded {
	const char *name;
	int header;			/* the enum constant */
	int code;			/* the number recorded */
} recorded[] = {
	{ "EXFAT_BACKUP_CHECKSUM", FSC_PR_EXFAT_BACKUP_CHECKSUM, 0 },
	{ "EXFAT_BACKUP_DIFFERS", FSC_PR_EXFAT_BACKUP_DIFFERS, 1 },
	{ "EXFAT_BACKUP_UNREADABLE", FSC_PR_EXFAT_BACKUP_UNREADABLE, 2 },
	{ "EXFAT_BOOT_CHECKSUM", FSC_PR_EXFAT_BOOT_CHECKSUM, 3 },
	{ "EXFAT_BOOT_CLUSTER_COUNT", FSC_PR_EXFAT_BOOT_CLUSTER_COUNT, 4 },
	{ "EXFAT_BOOT_CLUSTER_SHIFT", FSC_PR_EXFAT_BOOT_CLUSTER_SHIFT, 5 },
	{ "EXFAT_BOOT_EXT_SIGNATURE", FSC_PR_EXFAT_BOOT_EXT_SIGNATURE, 6 },
	{ "EXFAT_BOOT_FAT_LENGTH", FSC_PR_EXFAT_BOOT_FAT_LENGTH, 7 },
	{ "EXFAT_BOOT_FAT_OFFSET", FSC_PR_EXFAT_BOOT_FAT_OFFSET, 8 },
	{ "EXFAT_BOOT_FSNAME", FSC_PR_EXFAT_BOOT_FSNAME, 9 },
	{ "EXFAT_BOOT_HEAP_OFFSET", FSC_PR_EXFAT_BOOT_HEAP_OFFSET, 10 },
	{ "EXFAT_BOOT_JUMP", FSC_PR_EXFAT_BOOT_JUMP, 11 },
	{ "EXFAT_BOOT_MEDIA_FAILURE", FSC_PR_EXFAT_BOOT_MEDIA_FAILURE, 12 },
	{ "EXFAT_BOOT_MUSTBEZERO", FSC_PR_EXFAT_BOOT_MUSTBEZERO, 13 },
	{ "EXFAT_BOOT_NUM_FATS", FSC_PR_EXFAT_BOOT_NUM_FATS, 14 },
	{ "EXFAT_BOOT_PERCENT_IN_USE", FSC_PR_EXFAT_BOOT_PERCENT_IN_USE, 15 },
	{ "EXFAT_BOOT_REVISION", FSC_PR_EXFAT_BOOT_REVISION, 16 },
	{ "EXFAT_BOOT_ROOT_CLUSTER", FSC_PR_EXFAT_BOOT_ROOT_CLUSTER, 17 },
	{ "EXFAT_BOOT_SECTOR_SHIFT", FSC_PR_EXFAT_BOOT_SECTOR_SHIFT, 18 },
	{ "EXFAT_BOOT_SIGNATURE", FSC_PR_EXFAT_BOOT_SIGNATURE, 19 },
	{ "EXFAT_BOOT_TEXFAT", FSC_PR_EXFAT_BOOT_TEXFAT, 20 },
	{ "EXFAT_BOOT_TRUNCATED", FSC_PR_EXFAT_BOOT_TRUNCATED, 21 },
	{ "EXFAT_BOOT_VOLUME_DIRTY", FSC_PR_EXFAT_BOOT_VOLUME_DIRTY, 22 },
	{ "EXFAT_BOOT_VOLUME_FLAGS", FSC_PR_EXFAT_BOOT_VOLUME_FLAGS, 23 },
	{ "EXFAT_BOOT_VOLUME_LENGTH", FSC_PR_EXFAT_BOOT_VOLUME_LENGTH, 24 },
	{ "EXFAT_MAIN_BOOT_LOST", FSC_PR_EXFAT_MAIN_BOOT_LOST, 94 },
	{ "EXFAT_UPCASE_CLUSTER", FSC_PR_EXFAT_UPCASE_CLUSTER, 95 },
	{ "FAT_OEM_EXFAT", FSC_PR_FAT_OEM_EXFAT, 96 },
	{ "FAT_FAT_UNREADABLE", FSC_PR_FAT_FAT_UNREADABLE, 97 },
	{ "FAT_FAT0", FSC_PR_FAT_FAT0, 98 },
	{ "FAT_FAT1_FLAGS", FSC_PR_FAT_FAT1_FLAGS, 99 },
	{ "FAT_COPIES_DIFFER", FSC_PR_FAT_COPIES_DIFFER, 100 },
	{ "FAT_CHAIN_RANGE", FSC_PR_FAT_CHAIN_RANGE, 101 },
	{ "FAT_CHAIN_LOOP", FSC_PR_FAT_CHAIN_LOOP, 102 },
	{ "FAT_CROSS_LINK", FSC_PR_FAT_CROSS_LINK, 103 },
	{ "FAT_CHAIN_FREE", FSC_PR_FAT_CHAIN_FREE, 104 },
	{ "FAT_CHAIN_BAD", FSC_PR_FAT_CHAIN_BAD, 105 },
	{ "FAT_CHAIN_SHORT", FSC_PR_FAT_CHAIN_SHORT, 106 },
	{ "FAT_CHAIN_LONG", FSC_PR_FAT_CHAIN_LONG, 107 },
	{ "FAT_LOST_CLUSTERS", FSC_PR_FAT_LOST_CLUSTERS, 108 },
	{ "FAT32_FSINFO_FREE_COUNT", FSC_PR_FAT32_FSINFO_FREE_COUNT, 109 },
	{ "FAT32_FSINFO_NEXT_FREE", FSC_PR_FAT32_FSINFO_NEXT_FREE, 110 },
	{ "FAT_DOT_MISSING", FSC_PR_FAT_DOT_MISSING, 111 },
	{ "FAT_DOT_CLUSTER", FSC_PR_FAT_DOT_CLUSTER, 112 },
	{ "FAT_SHORT_NAME", FSC_PR_FAT_SHORT_NAME, 113 },
	{ "FAT_SHORT_NAME_UNUSUAL", FSC_PR_FAT_SHORT_NAME_UNUSUAL, 114 },
	{ "FAT_NAME_DUPLICATE", FSC_PR_FAT_NAME_DUPLICATE, 115 },
	{ "FAT_LFN_SEQUENCE", FSC_PR_FAT_LFN_SEQUENCE, 116 },
	{ "FAT_LFN_CHECKSUM", FSC_PR_FAT_LFN_CHECKSUM, 117 },
	{ "FAT_LFN_ORPHAN", FSC_PR_FAT_LFN_ORPHAN, 118 },
	{ "FAT_LFN_UTF16", FSC_PR_FAT_LFN_UTF16, 119 },
	{ "FAT_AFTER_END", FSC_PR_FAT_AFTER_END, 120 },
	{ "FAT_DIR_SIZE", FSC_PR_FAT_DIR_SIZE, 121 },
	{ "FAT_DIR_NO_CLUSTER", FSC_PR_FAT_DIR_NO_CLUSTER, 122 },
	{ "FAT_LABEL_ENTRY", FSC_PR_FAT_LABEL_ENTRY, 123 },
	{ "FAT_LABEL_MISMATCH", FSC_PR_FAT_LABEL_MISMATCH, 124 },
	{ "FAT_ATTRIBUTES", FSC_PR_FAT_ATTRIBUTES, 125 },
	{ "FAT_TIMESTAMP", FSC_PR_FAT_TIMESTAMP, 126 },
	{ "FAT_DIR_UNREADABLE", FSC_PR_FAT_DIR_UNREADABLE, 127 },
	{ "FAT_LOST_DIRECTORY", FSC_PR_FAT_LOST_DIRECTORY, 128 },
	{ "EXFAT_DEVICE_SECTOR_SIZE", FSC_PR_EXFAT_DEVICE_SECTOR_SIZE, 25 },
	{ "EXFAT_VOLUME_BEYOND_DEVICE", FSC_PR_EXFAT_VOLUME_BEYOND_DEVICE, 26 },
	{ "EXFAT_BITMAP_CLUSTERS_FREE", FSC_PR_EXFAT_BITMAP_CLUSTERS_FREE, 27 },
	{ "EXFAT_BITMAP_MISSING", FSC_PR_EXFAT_BITMAP_MISSING, 28 },
	{ "EXFAT_BITMAP_SIZE", FSC_PR_EXFAT_BITMAP_SIZE, 29 },
	{ "EXFAT_LABEL_LENGTH", FSC_PR_EXFAT_LABEL_LENGTH, 30 },
	{ "EXFAT_ROOT_CHAIN", FSC_PR_EXFAT_ROOT_CHAIN, 31 },
	{ "EXFAT_ROOT_UNREADABLE", FSC_PR_EXFAT_ROOT_UNREADABLE, 32 },
	{ "EXFAT_UPCASE_CHECKSUM", FSC_PR_EXFAT_UPCASE_CHECKSUM, 33 },
	{ "EXFAT_UPCASE_MISSING", FSC_PR_EXFAT_UPCASE_MISSING, 34 },
	{ "EXFAT_UPCASE_SHORT", FSC_PR_EXFAT_UPCASE_SHORT, 35 },
	{ "EXFAT_BITMAP_TRAILING", FSC_PR_EXFAT_BITMAP_TRAILING, 36 },
	{ "EXFAT_BITMAP_UNMARKED", FSC_PR_EXFAT_BITMAP_UNMARKED, 37 },
	{ "EXFAT_CHAIN_BAD", FSC_PR_EXFAT_CHAIN_BAD, 38 },
	{ "EXFAT_CHAIN_FREE", FSC_PR_EXFAT_CHAIN_FREE, 39 },
	{ "EXFAT_CHAIN_LONG", FSC_PR_EXFAT_CHAIN_LONG, 40 },
	{ "EXFAT_CHAIN_LOOP", FSC_PR_EXFAT_CHAIN_LOOP, 41 },
	{ "EXFAT_CHAIN_RANGE", FSC_PR_EXFAT_CHAIN_RANGE, 42 },
	{ "EXFAT_CHAIN_SHORT", FSC_PR_EXFAT_CHAIN_SHORT, 43 },
	{ "EXFAT_CROSS_LINK", FSC_PR_EXFAT_CROSS_LINK, 44 },
	{ "EXFAT_FAT_ENTRY0", FSC_PR_EXFAT_FAT_ENTRY0, 45 },
	{ "EXFAT_FAT_ENTRY1", FSC_PR_EXFAT_FAT_ENTRY1, 46 },
	{ "EXFAT_FAT_UNREADABLE", FSC_PR_EXFAT_FAT_UNREADABLE, 47 },
	{ "EXFAT_LOST_CLUSTERS", FSC_PR_EXFAT_LOST_CLUSTERS, 48 },
	{ "EXFAT_OEM_PARAMETERS", FSC_PR_EXFAT_OEM_PARAMETERS, 49 },
	{ "EXFAT_PERCENT_IN_USE_WRONG", FSC_PR_EXFAT_PERCENT_IN_USE_WRONG, 50 },
	{ "EXFAT_UPCASE_MANDATORY", FSC_PR_EXFAT_UPCASE_MANDATORY, 51 },
	{ "EXFAT_AFTER_END", FSC_PR_EXFAT_AFTER_END, 52 },
	{ "EXFAT_ATTRIBUTES", FSC_PR_EXFAT_ATTRIBUTES, 53 },
	{ "EXFAT_DIR_SIZE", FSC_PR_EXFAT_DIR_SIZE, 54 },
	{ "EXFAT_DUPLICATE_ROOT_ENTRY", FSC_PR_EXFAT_DUPLICATE_ROOT_ENTRY, 55 },
	{ "EXFAT_FIRST_CLUSTER", FSC_PR_EXFAT_FIRST_CLUSTER, 56 },
	{ "EXFAT_GUID_ENTRY", FSC_PR_EXFAT_GUID_ENTRY, 57 },
	{ "EXFAT_NAME_CHARS", FSC_PR_EXFAT_NAME_CHARS, 58 },
	{ "EXFAT_NAME_DUPLICATE", FSC_PR_EXFAT_NAME_DUPLICATE, 59 },
	{ "EXFAT_NAME_ENTRIES", FSC_PR_EXFAT_NAME_ENTRIES, 60 },
	{ "EXFAT_NAME_HASH", FSC_PR_EXFAT_NAME_HASH, 61 },
	{ "EXFAT_NAME_LENGTH", FSC_PR_EXFAT_NAME_LENGTH, 62 },
	{ "EXFAT_ROOT_ONLY_ENTRY", FSC_PR_EXFAT_ROOT_ONLY_ENTRY, 63 },
	{ "EXFAT_SET_CHECKSUM", FSC_PR_EXFAT_SET_CHECKSUM, 64 },
	{ "EXFAT_SET_COUNT", FSC_PR_EXFAT_SET_COUNT, 65 },
	{ "EXFAT_STRAY_SECONDARY", FSC_PR_EXFAT_STRAY_SECONDARY, 66 },
	{ "EXFAT_STREAM_FLAGS", FSC_PR_EXFAT_STREAM_FLAGS, 67 },
	{ "EXFAT_STREAM_MISSING", FSC_PR_EXFAT_STREAM_MISSING, 68 },
	{ "EXFAT_TIMESTAMP", FSC_PR_EXFAT_TIMESTAMP, 69 },
	{ "EXFAT_UNKNOWN_BENIGN", FSC_PR_EXFAT_UNKNOWN_BENIGN, 70 },
	{ "EXFAT_UNKNOWN_CRITICAL", FSC_PR_EXFAT_UNKNOWN_CRITICAL, 71 },
	{ "EXFAT_UTC_OFFSET", FSC_PR_EXFAT_UTC_OFFSET, 72 },
	{ "EXFAT_VALID_DATA_LENGTH", FSC_PR_EXFAT_VALID_DATA_LENGTH, 73 },
	{ "FAT32_BACKUP_DIFFERS", FSC_PR_FAT32_BACKUP_DIFFERS, 74 },
	{ "FAT32_FSINFO_SIGNATURE", FSC_PR_FAT32_FSINFO_SIGNATURE, 75 },
	{ "FAT32_FSVER", FSC_PR_FAT32_FSVER, 76 },
	{ "FAT32_ROOT_CLUSTER", FSC_PR_FAT32_ROOT_CLUSTER, 77 },
	{ "FAT_BOOT_DATA_START", FSC_PR_FAT_BOOT_DATA_START, 78 },
	{ "FAT_BOOT_FAT_SIZE", FSC_PR_FAT_BOOT_FAT_SIZE, 79 },
	{ "FAT_BOOT_FSTYPE", FSC_PR_FAT_BOOT_FSTYPE, 80 },
	{ "FAT_BOOT_JUMP", FSC_PR_FAT_BOOT_JUMP, 81 },
	{ "FAT_BOOT_MEDIA", FSC_PR_FAT_BOOT_MEDIA, 82 },
	{ "FAT_BOOT_NUM_FATS", FSC_PR_FAT_BOOT_NUM_FATS, 83 },
	{ "FAT_BOOT_ROOT_ENTRIES", FSC_PR_FAT_BOOT_ROOT_ENTRIES, 84 },
	{ "FAT_BOOT_SIGNATURE", FSC_PR_FAT_BOOT_SIGNATURE, 85 },
	{ "FAT_BOOT_TOTAL_SECTORS", FSC_PR_FAT_BOOT_TOTAL_SECTORS, 86 },
	{ "FAT_CLUSTER_COUNT_EDGE", FSC_PR_FAT_CLUSTER_COUNT_EDGE, 87 },
	{ "FAT_DIRTY", FSC_PR_FAT_DIRTY, 88 },
	{ "FAT_TYPE_MISMATCH", FSC_PR_FAT_TYPE_MISMATCH, 89 },
	{ "FAT_VOLUME_BEYOND_DEVICE", FSC_PR_FAT_VOLUME_BEYOND_DEVICE, 90 },
	{ "MBR_BPB_OVERLAP", FSC_PR_MBR_BPB_OVERLAP, 91 },
	{ "FAT32_MAIN_BOOT_LOST", FSC_PR_FAT32_MAIN_BOOT_LOST, 129 },
	{ "EXFAT_LABEL_CHARS", FSC_PR_EXFAT_LABEL_CHARS, 130 },
	{ "FAT_LABEL_ROOT_MISSING", FSC_PR_FAT_LABEL_ROOT_MISSING, 131 },
	{ "FAT_LFN_RESERVED", FSC_PR_FAT_LFN_RESERVED, 132 },
	{ "FAT_FILE_DIR_BIT", FSC_PR_FAT_FILE_DIR_BIT, 139 },
	{ "FAT_LFN_LENGTH", FSC_PR_FAT_LFN_LENGTH, 140 },
	{ "FAT32_FSINFO_SECTOR", FSC_PR_FAT32_FSINFO_SECTOR, 133 },
	{ "EXFAT_CHAIN_END_VALUE", FSC_PR_EXFAT_CHAIN_END_VALUE, 134 },
	{ "EXFAT_BITMAP_CLUSTER", FSC_PR_EXFAT_BITMAP_CLUSTER, 135 },
	{ "EXFAT_BITMAP_FRAGMENTED", FSC_PR_EXFAT_BITMAP_FRAGMENTED, 136 },
	{ "EXFAT_UPCASE_FRAGMENTED", FSC_PR_EXFAT_UPCASE_FRAGMENTED, 137 },
};

#define NRECORDED (sizeof(recorded) / sizeof(recorded[0]))

static void test_codes_unique(void **state)
{
	size_t used = 0;
	int highest = -1;

	(void)state;
	for (size_t i = 0; i < NDEFS; i++) {
		const struct fsc_problem_info *pi = fsc_problem_info((enum fsc_problem)defs[i].code);

		assert_in_range(defs[i].code, 0, FSC_PR_COUNT - 1);
		for (size_t k = 0; k < i; k++) {
			if (defs[k].code == defs[i].code || strcmp(defs[k].name, defs[i].name) == 0) {
				print_error("%s (%d) and %s (%d) share a code or a name\n", defs[k].name,
					    defs[k].code, defs[i].name, defs[i].code);
				fail();
			}
		}
		assert_non_null(pi);
		assert_string_equal(pi->name, defs[i].name);
		assert_int_equal(fsc_problem_lookup(defs[i].name), defs[i].code);
		if (defs[i].code > highest)
			highest = defs[i].code;
	}
	/* FSC_PR_COUNT is one more than the highest code; codes nobody has give NULL. */
	assert_int_equal(FSC_PR_COUNT, highest + 1);
	for (int c = 0; c < FSC_PR_COUNT; c++)
		used += fsc_problem_info((enum fsc_problem)c) != NULL;
	assert_int_equal(used, NDEFS);
	assert_null(fsc_problem_info((enum fsc_problem)FSC_PR_COUNT));
	assert_null(fsc_problem_info((enum fsc_problem)-1));
	assert_int_equal(fsc_problem_lookup("NO_SUCH_PROBLEM"), -1);
}

static void test_codes_recorded(void **state)
{
	(void)state;
	for (size_t i = 0; i < NRECORDED; i++) {
		const struct recorded *r = &recorded[i];
		const struct fsc_problem_info *pi = fsc_problem_info((enum fsc_problem)r->code);

		if (r->header != r->code || fsc_problem_lookup(r->name) != r->code || !pi ||
		    strcmp(pi->name, r->name) != 0) {
			print_error("%s: recorded code %d, enum %d, library %d (%s)\n", r->name, r->code,
				    r->header, fsc_problem_lookup(r->name), pi ? pi->name : "none");
			fail();
		}
	}
	assert_int_equal(NRECORDED, 138);
}

/* Each problem's fix kind is the one problems.def gives, and its name is that word. */
static void test_fix_kinds(void **state)
{
	unsigned seen = 0;

	(void)state;
	for (size_t i = 0; i < NDEFS; i++) {
		const struct fsc_problem_info *pi = fsc_problem_info((enum fsc_problem)defs[i].code);

		assert_non_null(pi);
		assert_string_equal(fsc_fix_name(pi->fix), defs[i].fix);
		seen |= 1u << pi->fix;
	}
	assert_int_equal(seen, 0x3F);	/* every kind is used */
	assert_string_equal(fsc_fix_name(FSC_FIX_NONE), "NONE");
	assert_string_equal(fsc_fix_name(FSC_FIX_RECOMPUTE), "RECOMPUTE");
	assert_string_equal(fsc_fix_name(FSC_FIX_FROM_BACKUP), "FROM_BACKUP");
	assert_string_equal(fsc_fix_name(FSC_FIX_RENAME), "RENAME");
	assert_string_equal(fsc_fix_name((enum fsc_fix)99), "?");
	assert_string_equal(fsc_fix_name(FSC_FIX_CLEAR), "CLEAR");
	assert_string_equal(fsc_fix_name(FSC_FIX_MANUAL), "MANUAL");
	assert_string_equal(fsc_fix_name((enum fsc_fix)6), "?");
	assert_string_equal(fsc_fix_name((enum fsc_fix)-1), "?");
}

static struct fsc_probe *probe(struct img *im)
{
	struct fsc_probe *p = img_probe(im);

	assert_non_null(p);
	return p;
}

/* What callers read of a probe, type by type; a structure of another type is NULL. */
static void test_probe_accessors(void **state)
{
	struct fsc_probe *p;
	struct img im;
	const char *why;
	size_t len;

	(void)state;
	build_exfat_tree(&im);
	p = probe(&im);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_EXFAT);
	assert_int_equal(fsc_probe_dev_size(p), im.len);
	assert_int_equal(fsc_probe_dev_sector_size(p), 512);
	assert_string_equal(fsc_probe_label(p), "TEST");
	assert_string_equal(fsc_probe_serial(p), "1234-ABCD");
	assert_non_null(fsc_probe_exfat(p));
	assert_int_equal(fsc_probe_exfat(p)->serial, 0x1234ABCD);
	assert_int_equal(fsc_probe_exfat(p)->sector_shift, 9);
	assert_null(fsc_probe_fat(p));
	assert_null(fsc_probe_mbr(p));
	assert_false(fsc_probe_ntfs_blkid_ok(p, &why));
	assert_string_equal(why, "not NTFS");
	assert_memory_equal(fsc_probe_sector0(p, &len), im.buf, 4096);
	assert_int_equal(len, 4096);
	assert_int_equal(fsc_findings_count(fsc_probe_findings(p)), 0);
	fsc_probe_free(p);
	img_free(&im);

	build_fat(&im, 16);
	p = probe(&im);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_FAT16);
	assert_string_equal(fsc_probe_label(p), "TESTFAT");
	assert_string_equal(fsc_probe_serial(p), "CAFE-1234");
	assert_null(fsc_probe_exfat(p));
	assert_non_null(fsc_probe_fat(p));
	assert_int_equal(fsc_probe_fat(p)->bytes_per_sector, 512);
	assert_int_equal(fsc_probe_fat(p)->root_entries, 512);
	assert_null(fsc_probe_mbr(p));
	fsc_probe_free(p);
	img_free(&im);

	build_mbr(&im, 0);
	p = probe(&im);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_MBR);
	assert_null(fsc_probe_label(p));
	assert_null(fsc_probe_serial(p));
	assert_non_null(fsc_probe_mbr(p));
	assert_int_equal(fsc_probe_mbr(p)[0].status, 0x80);
	assert_int_equal(fsc_probe_mbr(p)[0].type, 0x0C);
	assert_int_equal(fsc_probe_mbr(p)[0].start, 2048);
	assert_int_equal(fsc_probe_mbr(p)[1].type, 0);
	assert_null(fsc_probe_exfat(p));
	assert_null(fsc_probe_fat(p));
	fsc_probe_free(p);
	img_free(&im);

	build_ntfs(&im);
	p = probe(&im);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_NTFS);
	assert_string_equal(fsc_probe_serial(p), "0123456789ABCDEF");
	assert_true(fsc_probe_ntfs_blkid_ok(p, &why));
	assert_true(fsc_probe_ntfs_blkid_ok(p, NULL));
	fsc_probe_free(p);
	memset(im.buf + 4 * 8 * 512, 0, 4);	/* no FILE record at $MFT */
	p = probe(&im);
	assert_false(fsc_probe_ntfs_blkid_ok(p, &why));
	assert_string_equal(why, "no FILE record at $MFT");
	fsc_probe_free(p);
	img_free(&im);

	build_zero(&im, 1024, 0);
	p = probe(&im);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_BLANK);
	assert_non_null(fsc_probe_sector0(p, &len));
	assert_int_equal(len, 1024);
	assert_int_equal(fsc_probe_dev_size(p), 1024);
	assert_null(fsc_probe_exfat(p));
	assert_null(fsc_probe_fat(p));
	assert_null(fsc_probe_mbr(p));
	fsc_probe_free(p);
	img_free(&im);
}

/* Probe im, then fsc_check it into fs; returns fsc_check's result. */
static int probe_check(struct img *im, struct fsc_probe **p, struct fsc_findings *fs,
		       struct fsc_check_summary *sum)
{
	struct fsc_dev *dev;
	int r;

	assert_int_equal(fsc_dev_open_mem(im->buf, im->len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, p), 0);
	memset(sum, 0xAB, sizeof(*sum));
	r = fsc_check(dev, *p, NULL, fs, sum);
	fsc_dev_close(dev);
	return r;
}

/*
 * Options carry their size: zeroed (no size) is refused, an older and
 * smaller struct reads as the defaults past its end, a newer and larger
 * one passes when its unknown tail is zero and is refused when it is not;
 * fsc_plan_repair holds both of its structs to it.
 */
static void test_opts_size(void **state)
{
	struct { struct fsc_check_opts o; uint64_t more; } big = { FSC_CHECK_OPTS_INIT, 0 };
	struct { size_t size; fsc_progress_fn progress; void *ctx; } old = { sizeof(old), NULL, NULL };
	struct fsc_repair_opts ro = FSC_REPAIR_OPTS_INIT, ro0 = { 0 };
	struct fsc_check_opts zero = { 0 };
	struct fsc_findings *fs;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_probe *p;
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;
	struct img im;

	(void)state;
	build_exfat_tree(&im);
	assert_int_equal(fsc_dev_open_mem(im.buf, im.len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_non_null(fs = fsc_findings_new());
	assert_int_equal(fsc_check(dev, p, &zero, fs, &sum), -EINVAL);
	assert_int_equal(fsc_findings_count(fs), 0);
	assert_int_equal(fsc_check(dev, p, (const struct fsc_check_opts *)(const void *)&old, fs, &sum), 0);
	assert_int_equal(sum.files, 3);
	fsc_findings_free(fs);
	big.o.size = sizeof(big);
	assert_non_null(fs = fsc_findings_new());
	assert_int_equal(fsc_check(dev, p, &big.o, fs, &sum), 0);
	assert_int_equal(sum.files, 3);
	fsc_findings_free(fs);
	big.more = 1;
	assert_non_null(fs = fsc_findings_new());
	assert_int_equal(fsc_check(dev, p, &big.o, fs, &sum), -E2BIG);
	assert_int_equal(fsc_plan_repair(dev, p, NULL, &ro0, fs, &sum, plan), -EINVAL);
	assert_int_equal(fsc_plan_repair(dev, p, &big.o, &ro, fs, &sum, plan), -E2BIG);
	assert_int_equal(fsc_findings_count(fs), 0);
	assert_int_equal(fsc_plan_repair(dev, p, NULL, NULL, fs, &sum, plan), 0);
	assert_int_equal(fsc_plan_count(plan), 0);
	fsc_findings_free(fs);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	img_free(&im);
}

static int count_entry(void *ctx, const struct fsc_dirent *d)
{
	(*(unsigned *)ctx)++;
	return d->struct_size == sizeof(*d) ? 0 : -1;
}

/*
 * Results carry their size too: a struct whose size is not set is refused
 * and left as it was; an older, smaller one gets its members and not a
 * byte past them; a newer, larger one keeps its tail as the caller set it.
 */
static void test_results_size(void **state)
{
	struct { struct { size_t size; uint64_t files; } s; uint64_t guard; } small = { { sizeof(small.s), 0 }, 7 };
	struct { struct fsc_check_summary s; uint64_t more; } big = { FSC_CHECK_SUMMARY_INIT, 5 };
	struct fsc_check_summary zero = { 0 };
	struct fsc_geometry g0 = { 0 }, g = FSC_GEOMETRY_INIT;
	struct fsc_alloc_summary a0 = { 0 };
	struct fsc_owner o0 = { 0 };
	struct fsc_chain_stop st0 = { 0 };
	struct fsc_ids ids0 = { 0 };
	struct fsc_dirent d0 = { 0 }, d = FSC_DIRENT_INIT;
	unsigned n0 = 0, n1 = 0;
	struct fsc_findings *fs;
	struct fsc_probe *p;
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;
	struct img im;
	char buf[256];

	(void)state;
	build_exfat_tree(&im);
	assert_int_equal(fsc_dev_open_mem(im.buf, im.len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_non_null(fs = fsc_findings_new());
	zero.files = 42;
	assert_int_equal(fsc_check(dev, p, NULL, fs, &zero), -EINVAL);
	assert_int_equal(fsc_plan_repair(dev, p, NULL, NULL, fs, &zero, plan), -EINVAL);
	assert_int_equal(zero.files, 42);
	assert_int_equal(fsc_findings_count(fs), 0);
	assert_int_equal(fsc_check(dev, p, NULL, fs, (struct fsc_check_summary *)(void *)&small.s), 0);
	assert_int_equal(small.s.files, 3);
	assert_int_equal(small.guard, 7);
	fsc_findings_free(fs);
	assert_non_null(fs = fsc_findings_new());
	big.s.size = sizeof(big);
	assert_int_equal(fsc_plan_repair(dev, p, NULL, NULL, fs, &big.s, plan), 0);
	assert_int_equal(big.s.files, 3);
	assert_int_equal(big.more, 5);
	assert_int_equal(fsc_volume_geometry(dev, p, &g0), -EINVAL);
	assert_int_equal(g0.sector_size, 0);
	assert_int_equal(fsc_volume_geometry(dev, p, &g), 0);
	assert_int_equal(g.sector_size, 512);
	assert_int_equal(fsc_alloc_summary(dev, p, &a0), -EINVAL);
	assert_int_equal(fsc_cluster_owner(dev, p, 2, &o0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(fsc_extents(dev, p, g.root_cluster, 0, false, NULL, NULL, &st0), -EINVAL);
	assert_int_equal(fsc_ids_read(dev, p, &ids0), -EINVAL);
	assert_int_equal(a0.clusters + o0.clusters + st0.from + ids0.serial, 0);
	/* a dirent: filled by fsc_lookup only when its struct_size is set; read only when it is */
	assert_int_equal(fsc_lookup(dev, p, "/", 0, &d0, buf, sizeof(buf)), -EINVAL);
	assert_null(d0.path);
	assert_int_equal(fsc_lookup(dev, p, "/", 0, &d, buf, sizeof(buf)), 0);
	assert_string_equal(d.path, "/");
	assert_int_equal(fsc_walk_dir(dev, p, &d0, 0, NULL, NULL), -EINVAL);
	d0 = d;
	d0.depth = 5;
	d0.first_cluster = 9;
	d0.struct_size = offsetof(struct fsc_dirent, depth);	/* an older caller's: depth (0, the root) past its end */
	assert_int_equal(fsc_walk_dir(dev, p, &d0, 0, count_entry, &n0), 0);
	assert_int_equal(fsc_walk_tree(dev, p, 0, count_entry, &n1), 0);
	assert_true(n0 > 3);
	assert_int_equal(n0, n1);
	fsc_findings_free(fs);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	img_free(&im);
}

static void test_check_ledger(void **state)
{
	struct fsc_findings *fs = fsc_findings_new();
	const struct fsc_findings *pf;
	const struct fsc_finding *f;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_probe *p;
	struct img im;
	uint64_t loc = 7;
	uint32_t entry = 7;

	(void)state;
	assert_non_null(fs);
	assert_int_equal(fsc_findings_count(fs), 0);
	assert_null(fsc_findings_at(fs, 0));
	/* exFAT: VolumeDirty (the probe's), a lost cluster and so PercentInUse (the check's) */
	build_exfat_tree(&im);
	im.buf[106] |= 2;
	exfat_mark(&im, 20, 1);
	assert_int_equal(probe_check(&im, &p, fs, &sum), 0);
	pf = fsc_probe_findings(p);
	assert_int_equal(fsc_findings_count(pf), 1);
	assert_int_equal(fsc_finding_id(fsc_findings_at(pf, 0)), FSC_PR_EXFAT_BOOT_VOLUME_DIRTY);
	assert_int_equal(fsc_findings_count(fs), 3);
	assert_ptr_not_equal(fsc_findings_at(fs, 0), fsc_findings_at(pf, 0));
	assert_int_equal(fsc_finding_id(fsc_findings_at(fs, 0)), FSC_PR_EXFAT_BOOT_VOLUME_DIRTY);
	assert_int_equal(fsc_finding_id(fsc_findings_at(fs, 1)), FSC_PR_EXFAT_LOST_CLUSTERS);
	assert_int_equal(fsc_finding_id(fsc_findings_at(fs, 2)), FSC_PR_EXFAT_PERCENT_IN_USE_WRONG);
	assert_null(fsc_findings_at(fs, 3));
	assert_int_equal(fsc_findings_dropped(fs), 0);
	/* the accessors: VolumeFlags at byte 106, no path; the lost cluster's number */
	f = fsc_findings_at(fs, 0);
	assert_int_equal(fsc_finding_loc(f, &loc, &entry), FSC_LOC_BYTE);
	assert_int_equal(loc, 106);
	assert_string_equal(fsc_finding_field(f), "VolumeFlags");
	assert_null(fsc_finding_path(f));
	assert_false(fsc_finding_planned(f));
	f = fsc_findings_at(fs, 1);
	assert_int_equal(fsc_finding_loc(f, NULL, NULL), FSC_LOC_CLUSTER);
	assert_string_equal(fsc_finding_actual(f), "1");
	assert_string_equal(fsc_finding_expected(f), "");
	assert_non_null(fsc_finding_detail(f));
	assert_false(fsc_findings_has(pf, FSC_PR_EXFAT_LOST_CLUSTERS));
	assert_int_equal(sum.files, 3);
	assert_int_equal(sum.dirs, 1);
	fsc_findings_free(fs);
	fsc_probe_free(p);
	img_free(&im);

	/* FAT: the probe's findings first, then the check's; the summary counts the tree */
	build_fat(&im, 16);
	im.buf[510] = 0;
	assert_non_null(fs = fsc_findings_new());
	assert_int_equal(probe_check(&im, &p, fs, &sum), 0);
	pf = fsc_probe_findings(p);
	assert_true(fsc_findings_count(pf) > 0);
	assert_int_equal(fsc_findings_count(fs), fsc_findings_count(pf));
	assert_int_equal(fsc_finding_id(fsc_findings_at(fs, 0)), fsc_finding_id(fsc_findings_at(pf, 0)));
	assert_int_equal(sum.clusters_total, 16223);
	assert_int_equal(sum.files + sum.dirs, 0);
	fsc_findings_free(fs);
	fsc_probe_free(p);
	img_free(&im);

	/* Not a filesystem fatscope checks */
	build_ntfs(&im);
	assert_non_null(fs = fsc_findings_new());
	assert_int_equal(probe_check(&im, &p, fs, &sum), -EINVAL);
	assert_int_equal(fsc_findings_count(fs), fsc_findings_count(fsc_probe_findings(p)));
	fsc_findings_free(fs);
	fsc_findings_free(NULL);
	fsc_probe_free(p);
	img_free(&im);
}

int unit_api(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_unique),
		cmocka_unit_test(test_codes_recorded),
		cmocka_unit_test(test_fix_kinds),
		cmocka_unit_test(test_probe_accessors),
		cmocka_unit_test(test_check_ledger),
		cmocka_unit_test(test_opts_size),
		cmocka_unit_test(test_results_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
