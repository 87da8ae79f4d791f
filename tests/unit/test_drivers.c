// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_drivers.c - every row of shared/mount-rules.md section 7 as an
 * image built in memory, and every driver model's cell asserted: action,
 * the type it mounts as, and the errno user space sees.  Then the verdict
 * (risks) for the rows where it matters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "base/bytes.h"
#include "drivers/drivers.h"

#define ANY FSC_TYPE_COUNT
#define M(t) { FSC_MOUNTS, FSC_TYPE_##t, 0 }
#define X(t) { FSC_MISREADS, t, 0 }
#define R(e) { FSC_REFUSES, FSC_TYPE_UNKNOWN, e }
#define NOTYPE R(0)

struct cell { enum fsc_action a; enum fsc_type as; int err; };

/*
 * Column order = the driver table's order; test_columns fails when the
 * table gains a driver that has no column here.
 */
#define NCOLS 9
static const char *const ids[NCOLS] = {
	"staging-5.4-vfat", "staging-5.4", "staging-5.5", "linux-exfat-5.7", "linux-exfat",
	"linux-vfat", "exfat-fuse", "blkid-2.38", "blkid",
};

static void mk_exfat(struct img *im) { build_exfat(im, 4 << 20, 9, 3); }
static void mk_fat12(struct img *im) { build_fat(im, 12); }
static void mk_fat16(struct img *im) { build_fat(im, 16); }
static void mk_fat32(struct img *im) { build_fat(im, 32); }
static void mk_ntfs(struct img *im) { build_ntfs(im); }
static void mk_mbr(struct img *im) { build_mbr(im, 0x5B); }
static void mk_mbr_b16_zero(struct img *im) { build_mbr(im, 0); }
static void mk_gpt(struct img *im) { build_gpt_pmbr(im); }
static void mk_zero_sig(struct img *im) { build_zero(im, 1 << 20, 1); }

static void mk_ex_badsum(struct img *im)
{
	mk_exfat(im);
	im->buf[200] ^= 0x55;
}

static void mk_ex_fsname(struct img *im)
{
	mk_exfat(im);
	memcpy(im->buf + 3, "EXFAX   ", 8);
	exfat_resign_main(im);
}

static void mk_ex_mbz16(struct img *im)
{
	mk_exfat(im);
	im->buf[16] = 1;
	exfat_resign_main(im);
}

static void mk_ex_mbz40(struct img *im)
{
	mk_exfat(im);
	im->buf[40] = 1;
	exfat_resign_main(im);
}

static void mk_fat32bpb_fat16count(struct img *im)
{
	build_fat_custom(im, 32, 32768, 1, 32, 0, 252);
}

/*
 * BPB_FSInfo flipped past the reserved area, to a sector that holds other
 * bytes: Linux reads it there (and warns), blkid gives up on the volume.
 */
static void mk_fat32_fsinfo_far(struct img *im)
{
	build_fat(im, 32);
	put_le16(im->buf, 48, 0x1001);
	memcpy(im->buf + 0x1001 * 512, "GARBAGE!", 8);
}

static void mk_fat16_fstype32(struct img *im)
{
	mk_fat16(im);
	memcpy(im->buf + 54, "FAT32   ", 8);
}

static void mk_ex_beyond(struct img *im)
{
	mk_exfat(im);
	im->len = (4 << 20) - (64 << 10);	/* clusters still fit: exfat-fuse only warns */
}

static void mk_ex_dirty(struct img *im)
{
	mk_exfat(im);
	im->buf[106] |= 2;
}

static void mk_ex_backup(struct img *im)
{
	mk_exfat(im);
	im->buf[12 * 512 + 100] ^= 0xFF;
	exfat_resign_backup(im);
}

static void mk_ex_nosig(struct img *im)
{
	mk_exfat(im);
	put_le16(im->buf, 510, 0);
	exfat_resign_main(im);
}

static void mk_fat16_nosig(struct img *im)
{
	mk_fat16(im);
	put_le16(im->buf, 510, 0);
}

static void mk_ex_jump(struct img *im)
{
	mk_exfat(im);
	memcpy(im->buf, "\xEB\x58\x90", 3);
	exfat_resign_main(im);
}

static void mk_ex_2fats(struct img *im)
{
	mk_exfat(im);
	im->buf[110] = 2;
	exfat_resign_main(im);
}

/* A 12-character label: over the specification's 11, within exfat-fuse's own limit of 15 (it mounts). */
static void mk_ex_label12(struct img *im)
{
	mk_exfat(im);
	exfat_root_entry(im, 0)[1] = 12;
}

/* A FAT16 volume whose OEM name reads EXFAT: FAT drivers mount it, exFAT ones refuse it. */
static void mk_fat16_oem_exfat(struct img *im)
{
	build_fat(im, 16);
	memcpy(im->buf + 3, "EXFAT   ", 8);
}

/* The up-case entry's FirstCluster 0: Linux reads past the device (EIO), exfat-fuse refuses the cluster. */
static void mk_ex_upcase0(struct img *im)
{
	mk_exfat(im);
	put_le32(exfat_root_entry(im, 2), 20, 0);
}

static void mk_ex_4k_on_512(struct img *im)
{
	build_exfat(im, 8 << 20, 12, 0);
}

static void mk_ex_512_on_4k(struct img *im)
{
	mk_exfat(im);
	im->dev_sector = 4096;
}

static const struct row {
	const char *name;
	void (*make)(struct img *im);
	struct cell c[NCOLS];
} rows[] = {
	{ "healthy exFAT", mk_exfat,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	{ "healthy FAT12", mk_fat12,
	  { M(FAT12), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT12), R(EIO), M(FAT12), M(FAT12) } },
	{ "healthy FAT16", mk_fat16,
	  { M(FAT16), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT16), R(EIO), M(FAT16), M(FAT16) } },
	{ "healthy FAT32", mk_fat32,
	  { M(FAT32), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT32), R(EIO), M(FAT32), M(FAT32) } },
	{ "NTFS boot sector", mk_ntfs,
	  { R(EIO), R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EIO), M(NTFS), M(NTFS) } },
	{ "MBR, boot code in 11..63, byte 16 != 0", mk_mbr,
	  { X(ANY), R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EIO), NOTYPE, NOTYPE } },
	{ "MBR, boot code, byte 16 = 0", mk_mbr_b16_zero,
	  { R(EIO), R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EIO), NOTYPE, NOTYPE } },
	{ "GPT protective MBR", mk_gpt,
	  { R(EIO), R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EIO), NOTYPE, NOTYPE } },
	{ "exFAT, bad boot checksum", mk_ex_badsum,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), R(EINVAL), R(EIO), M(EXFAT), NOTYPE } },
	{ "exFAT, FileSystemName wrong", mk_ex_fsname,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), R(EINVAL), R(EIO), NOTYPE, NOTYPE } },
	{ "exFAT, non-zero MustBeZero byte 16", mk_ex_mbz16,
	  { X(FSC_TYPE_FAT32), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EINVAL), M(EXFAT), M(EXFAT), NOTYPE } },
	{ "exFAT, non-zero MustBeZero byte 40", mk_ex_mbz40,
	  { R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EINVAL), M(EXFAT), M(EXFAT), NOTYPE } },
	{ "FAT, FAT16 count, FATSz16 = 0", mk_fat32bpb_fat16count,
	  { M(FAT32), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT32), R(EIO), M(FAT32), M(FAT32) } },
	{ "FAT16 with BS_FilSysType FAT32", mk_fat16_fstype32,
	  { M(FAT16), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT16), R(EIO), M(FAT16), M(FAT16) } },
	{ "zeroed sector + 0x55AA", mk_zero_sig,
	  { R(EIO), R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EIO), NOTYPE, NOTYPE } },
	{ "exFAT, VolumeLength > device", mk_ex_beyond,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	{ "exFAT, VolumeDirty", mk_ex_dirty,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	{ "exFAT, backup boot region differs", mk_ex_backup,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	{ "exFAT without 0x55AA", mk_ex_nosig,
	  { R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), R(EINVAL), M(EXFAT), M(EXFAT), NOTYPE } },
	{ "FAT16 without 0x55AA", mk_fat16_nosig,
	  { R(EIO), R(EIO), R(EIO), R(EINVAL), R(EINVAL), M(FAT16), R(EIO), M(FAT16), M(FAT16) } },
	{ "exFAT, JumpBoot != EB 76 90", mk_ex_jump,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), NOTYPE } },
	{ "exFAT, 12-character label", mk_ex_label12,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	/* blkid 2.38 finds both exfat and vfat: "ambivalent result" (checked with blkid -p on such an image) */
	{ "FAT16 with OEM name EXFAT", mk_fat16_oem_exfat,
	  { M(FAT16), R(EIO), R(EIO), R(EIO), R(EINVAL), M(FAT16), R(EIO), NOTYPE, M(FAT16) } },
	{ "exFAT, up-case table at cluster 0", mk_ex_upcase0,
	  { M(EXFAT), M(EXFAT), M(EXFAT), R(EIO), R(EIO), R(EINVAL), R(EIO), M(EXFAT), M(EXFAT) } },
	{ "exFAT, NumberOfFats = 2", mk_ex_2fats,
	  { M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), M(EXFAT), R(EINVAL), R(EIO), M(EXFAT), M(EXFAT) } },
	/*
	 * Sector size field != device's: the staging driver walks the root in
	 * device sectors, lands outside the root and finds no bitmap (EIO).
	 */
	{ "exFAT 4096-byte sectors on a 512-byte device", mk_ex_4k_on_512,
	  { R(EIO), R(EIO), R(EIO), M(EXFAT), M(EXFAT), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
	{ "exFAT 512-byte sectors on a 4096-byte device", mk_ex_512_on_4k,
	  { R(EIO), R(EIO), R(EIO), R(EIO), R(EIO), R(EINVAL), M(EXFAT), M(EXFAT), M(EXFAT) } },
};

static void check_row(const struct row *row)
{
	struct img im;
	struct fsc_probe *p;

	row->make(&im);
	p = img_probe(&im);
	assert_non_null(p);
	for (int i = 0; i < NCOLS; i++) {
		int d = fsc_driver_lookup(ids[i]);
		struct fsc_verdict v;
		const struct cell *c = &row->c[i];

		assert_true(d >= 0);
		drivers_judge(p, fsc_driver_at((size_t)d), &v);
		if (v.action != c->a || (c->a != FSC_REFUSES && c->as != ANY && v.as != c->as) ||
		    v.err != c->err) {
			print_error("row '%s', driver %s: got %s as %s errno %d (%s); want %s as %s errno %d\n",
				    row->name, ids[i], fsc_action_name(v.action), fsc_type_name(v.as),
				    v.err, v.why, fsc_action_name(c->a), fsc_type_name(c->as), c->err);
			fail();
		}
	}
	fsc_probe_free(p);
	img_free(&im);
}

static void test_matrix(void **state)
{
	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		check_row(&rows[r]);
	print_message("%zu rows x %d drivers checked\n", sizeof(rows) / sizeof(rows[0]), NCOLS);
}

/* The matrix has one column per driver of the table, in its order. */
static void test_columns(void **state)
{
	(void)state;
	if (fsc_driver_count() != NCOLS) {
		print_error("the driver table has %zu drivers, the matrix %d columns\n",
			    fsc_driver_count(), NCOLS);
		fail();
	}
	for (size_t i = 0; i < NCOLS; i++)
		assert_string_equal(fsc_driver_at(i)->id, ids[i]);
}

/* Risks of one image: the set of "driver:kind" strings, space-separated. */
static void risks_of(void (*make)(struct img *), char *out, size_t len)
{
	struct img im;
	struct fsc_probe *p;
	size_t nd = fsc_driver_count();
	struct fsc_judgement *j;

	make(&im);
	p = img_probe(&im);
	assert_non_null(p);
	j = fsc_judge(p, NULL);
	assert_non_null(j);
	assert_int_equal(fsc_judgement_verdicts(j), nd);
	assert_null(fsc_judgement_verdict(j, nd));
	assert_null(fsc_judgement_risk(j, fsc_judgement_risks(j)));
	out[0] = '\0';
	for (size_t i = 0; i < fsc_judgement_risks(j); i++) {
		const struct fsc_risk *r = fsc_judgement_risk(j, i);
		size_t o = strlen(out);

		assert_non_null(fsc_risk_why(r));
		snprintf(out + o, len - o, "%s%s:%s", o ? " " : "", fsc_risk_driver(r)->id,
			 fsc_risk_kind_name(fsc_risk_kind_of(r)));
	}
	fsc_judgement_free(j);
	fsc_probe_free(p);
	img_free(&im);
}

static void test_verdict(void **state)
{
	(void)state;
	static const struct { void (*make)(struct img *); const char *want; } cases[] = {
		{ mk_exfat, "" },
		{ mk_fat16, "staging-5.4-vfat:wrong-driver" },
		{ mk_mbr, "staging-5.4-vfat:wrong-driver" },
		{ mk_ntfs, "" },
		{ mk_ex_badsum, "staging-5.4-vfat:accepts-corrupt staging-5.4:accepts-corrupt "
				"staging-5.5:accepts-corrupt linux-exfat-5.7:accepts-corrupt "
				"blkid-2.38:accepts-corrupt" },
		{ mk_ex_mbz16, "staging-5.4-vfat:wrong-driver exfat-fuse:accepts-corrupt "
			       "blkid-2.38:accepts-corrupt" },
		{ mk_ex_dirty, "staging-5.4-vfat:accepts-corrupt staging-5.4:accepts-corrupt "
			       "staging-5.5:accepts-corrupt" },
		{ mk_fat32bpb_fat16count, "staging-5.4-vfat:wrong-driver "
					  "linux-vfat:misreads blkid-2.38:misreads blkid:misreads" },
		{ mk_ex_backup, "" },
		{ mk_fat32_fsinfo_far, "staging-5.4-vfat:wrong-driver linux-vfat:accepts-corrupt" },
	};
	char got[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		risks_of(cases[i].make, got, sizeof(got));
		if (strcmp(got, cases[i].want) != 0) {
			print_error("case %zu: risks '%s', want '%s'\n", i, got, cases[i].want);
			fail();
		}
	}
}

/* Through the public accessors: a judgement of the two drivers selected, in the table's order. */
static void test_staging_effect(void **state)
{
	bool sel[64] = { false };
	int staging = fsc_driver_lookup("staging-5.4"), mainline = fsc_driver_lookup("linux-exfat");
	const struct fsc_verdict *v;
	struct fsc_judgement *j;
	struct fsc_probe *p;
	struct img im;

	(void)state;
	assert_true(staging >= 0 && staging < mainline && (size_t)mainline < 64);
	sel[staging] = sel[mainline] = true;
	mk_ex_dirty(&im);
	p = img_probe(&im);
	j = fsc_judge(p, sel);
	assert_non_null(j);
	assert_int_equal(fsc_judgement_verdicts(j), 2);
	v = fsc_judgement_verdict(j, 0);
	assert_ptr_equal(fsc_verdict_driver(v), fsc_driver_at((size_t)staging));
	assert_int_equal(fsc_verdict_action(v), FSC_MOUNTS);
	assert_int_equal(fsc_verdict_as(v), FSC_TYPE_EXFAT);
	assert_int_equal(fsc_verdict_errno(v), 0);
	assert_non_null(strstr(fsc_verdict_effect(v), "VolumeFlags 0x0002 as 0x0000"));
	v = fsc_judgement_verdict(j, 1);
	assert_ptr_equal(fsc_verdict_driver(v), fsc_driver_at((size_t)mainline));
	assert_string_equal(fsc_verdict_effect(v), "");
	assert_non_null(strstr(fsc_verdict_warning(v), "not properly unmounted"));
	assert_true(strlen(fsc_verdict_why(v)) > 0);
	/* the staging driver mounts it dirty and clears the flag: a risk of its, none of mainline's */
	assert_true(fsc_judgement_risks(j) > 0);
	for (size_t i = 0; i < fsc_judgement_risks(j); i++)
		assert_ptr_equal(fsc_risk_driver(fsc_judgement_risk(j, i)), fsc_driver_at((size_t)staging));
	fsc_judgement_free(j);
	fsc_judgement_free(NULL);
	fsc_probe_free(p);
	img_free(&im);
}

int unit_drivers(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_staging_effect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
