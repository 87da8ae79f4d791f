// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_label.c - labels, serials and GUIDs changed through plans on
 * volumes built in memory: the result reads back, checks clean, and the
 * edge cases hold (a full root directory grows by a cluster, a stale plan
 * writes nothing, damaged structures are refused, undo restores).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "base/bytes.h"
#include "report/report.h"

/* Plan with fn, apply to the image in place; returns the plan's result. */
static int change(struct img *im, int (*fn)(struct fsc_dev *, const struct fsc_probe *, struct fsc_plan *, const void *),
		  const void *arg)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan = fsc_plan_new();
	int r;

	assert_int_equal(fsc_dev_open_mem_rw(im->buf, im->len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	r = fn(dev, p, plan, arg);
	if (r == 0)
		r = fsc_plan_apply(dev, plan, NULL);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	return r;
}

static int set_label(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl, const void *a)
{
	char err[200];

	return fsc_plan_label(d, p, a, 1577934245, pl, err, sizeof(err));
}

static int set_serial(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl, const void *a)
{
	char err[200];

	return fsc_plan_serial(d, p, *(const uint32_t *)a, pl, err, sizeof(err));
}

static int set_guid(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl, const void *a)
{
	char err[200];

	return fsc_plan_guid(d, p, a, pl, err, sizeof(err));
}

/* Probe and check: the ids, and no finding at all. */
static void read_back(struct img *im, struct fsc_ids *ids)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings fs = { 0 };
	char msg[256];

	assert_int_equal(fsc_dev_open_mem(im->buf, im->len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	/* the probe's findings, then the check's */
	assert_int_equal(fsc_check(dev, p, NULL, &fs, &sum), 0);
	for (size_t i = 0; i < fs.n; i++) {
		fsc_finding_message(&fs.v[i], msg, sizeof(msg));
		print_error("unexpected %s: %s\n", fsc_problem_info(fs.v[i].id)->name, msg);
	}
	assert_int_equal(fs.n, 0);
	assert_int_equal(fsc_ids_read(dev, p, ids), 0);
	finding_list_clear(&fs);
	fsc_probe_free(p);
	fsc_dev_close(dev);
}

static void test_exfat_label_serial_guid(void **state)
{
	(void)state;
	/* 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0, and as the GUID entry stores it */
	static const uint8_t guid[16] = { 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96,
					  0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 };
	static const uint8_t disk[16] = { 0x3c, 0x2d, 0x1e, 0x0f, 0x5a, 0x4b, 0x78, 0x69, 0x87, 0x96,
					  0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 };
	uint32_t serial = 0xCAFEF00D;
	struct img im;
	struct fsc_ids ids = FSC_IDS_INIT;
	unsigned n = 0;

	build_exfat_tree(&im);
	assert_int_equal(change(&im, set_label, "Été 2020"), 0);
	assert_int_equal(change(&im, set_serial, &serial), 0);
	assert_int_equal(change(&im, set_guid, guid), 0);
	read_back(&im, &ids);
	assert_string_equal(ids.label, "Été 2020");
	assert_string_equal(ids.serial_text, "CAFE-F00D");
	assert_true(ids.has_guid);
	assert_memory_equal(ids.guid, guid, 16);
	while (n < im.cb / 32 && exfat_root_entry(&im, n)[0] != 0xA0)
		n++;
	assert_true(n < im.cb / 32);
	assert_memory_equal(exfat_root_entry(&im, n) + 6, disk, 16);
	/* Both boot regions carry the serial with a valid checksum; VolumeDirty is clear again. */
	assert_int_equal(get_le32(im.buf, 12 * 512 + 100), serial);
	assert_int_equal(get_le16(im.buf, 106) & 2, 0);
	assert_int_equal(change(&im, set_label, "TWELVE CHARS"), -EINVAL);
	for (const char *c = "\"*/:<>?\\|"; *c; c++) {	/* EXSPEC 7.7.3's file name characters */
		char bad[4] = { 'A', *c, 'B', 0 };

		assert_int_equal(change(&im, set_label, bad), -EINVAL);
	}
	read_back(&im, &ids);
	assert_string_equal(ids.label, "Été 2020");	/* nothing written */
	assert_int_equal(change(&im, set_label, ""), 0);
	read_back(&im, &ids);
	assert_false(ids.has_label);
	img_free(&im);
}

/* A root directory without a free slot grows by one cluster. */
static void test_exfat_full_root(void **state)
{
	struct img im;
	struct fsc_ids ids = FSC_IDS_INIT;
	unsigned slots;

	(void)state;
	build_exfat(&im, 2 << 20, 9, 0);	/* 512-byte clusters: 16 root slots, a one-cluster bitmap */
	slots = im.cb / 32;
	for (unsigned i = 3; i < slots; i++)
		exfat_root_entry(&im, i)[0] = 0xA1;	/* TexFAT padding: in use */
	exfat_root_entry(&im, 0)[0] = 0xA1;		/* no label entry either */
	assert_int_equal(change(&im, set_label, "GROWN"), 0);
	read_back(&im, &ids);
	assert_string_equal(ids.label, "GROWN");
	assert_int_equal(get_le32(im.buf, im.fat_byte + 4 * 4), 5);	/* root chain 4 -> 5 */
	img_free(&im);
}

/*
 * Growing the root can move PercentInUse: 35 of 3584 clusters in use is
 * 0 %, 36 is 1 %.  A volume with two FATs is refused (its second FAT and
 * bitmap are not maintained here), and nothing is written.
 */
static void test_exfat_full_root_percent(void **state)
{
	struct img im;
	struct fsc_ids ids = FSC_IDS_INIT;
	uint8_t *copy;

	(void)state;
	build_exfat(&im, 2 << 20, 9, 0);
	assert_int_equal(im.cluster_count, 3584);
	for (unsigned i = 6; i < im.cb / 32; i++)
		exfat_root_entry(&im, i)[0] = 0xA1;
	exfat_root_entry(&im, 0)[0] = 0xA1;	/* no label entry */
	exfat_put_file(&im, 4, 3, "f.bin", 0x20, 5, 31ull * im.cb, 0x03);	/* clusters 5-35 */
	for (uint32_t c = 5; c <= 35; c++)
		exfat_mark(&im, c, 1);
	im.buf[112] = 0;
	exfat_resign(&im);
	read_back(&im, &ids);			/* 34 clusters in use: 0 % */
	exfat_mark(&im, 36, 1);			/* 35 */
	put_le64(exfat_entry(&im, 4, 3), 32 + 24, 32ull * im.cb);
	put_le64(exfat_entry(&im, 4, 3), 32 + 8, 32ull * im.cb);
	exfat_fix_set(&im, 4, 3);
	read_back(&im, &ids);
	assert_int_equal(change(&im, set_label, "GROWN"), 0);
	read_back(&im, &ids);
	assert_string_equal(ids.label, "GROWN");
	assert_int_equal(im.buf[112], 1);

	copy = malloc(im.len);
	assert_non_null(copy);
	for (unsigned i = 0; i < im.cb / 32; i++)	/* full again (the label too); now with two FATs */
		exfat_entry(&im, 37, i)[0] = 0xA1;
	im.buf[110] = 2;
	exfat_resign(&im);
	memcpy(copy, im.buf, im.len);
	assert_int_equal(change(&im, set_label, "AGAIN"), -ENOTSUP);
	assert_memory_equal(copy, im.buf, im.len);
	free(copy);
	img_free(&im);
}

static void test_fat_labels(void **state)
{
	static const int bits[] = { 12, 16, 32 };

	(void)state;
	for (int b = 0; b < 3; b++) {
		struct img im;
		struct fsc_ids ids = FSC_IDS_INIT;
		uint32_t serial = 0x0BADF00D;

		build_fat(&im, bits[b]);
		assert_int_equal(change(&im, set_label, "new label"), 0);
		assert_int_equal(change(&im, set_serial, &serial), 0);
		read_back(&im, &ids);
		assert_string_equal(ids.label, "NEW LABEL");
		assert_string_equal(ids.boot_label, "NEW LABEL");
		assert_string_equal(ids.serial_text, "0BAD-F00D");
		if (bits[b] == 32)	/* the backup boot sector follows */
			assert_memory_equal(im.buf + 6 * 512 + 71, "NEW LABEL  ", 11);
		assert_int_equal(change(&im, set_label, "A:B"), -EINVAL);
		assert_int_equal(change(&im, set_guid, "0123456789abcdef"), -EINVAL);
		assert_int_equal(change(&im, set_label, ""), 0);
		read_back(&im, &ids);
		assert_false(ids.has_label);
		assert_false(ids.has_boot_label);
		img_free(&im);
	}
}

/* Damaged structures are refused; a plan made stale writes nothing. */
static void test_refusals(void **state)
{
	struct img im;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan = fsc_plan_new();
	char err[200];
	uint8_t *before;

	(void)state;
	build_exfat_tree(&im);
	exfat_set_fat(&im, 4, 0);	/* root chain broken */
	assert_int_equal(change(&im, set_label, "X"), -EUCLEAN);
	img_free(&im);

	build_exfat_tree(&im);
	before = malloc(im.len);
	memcpy(before, im.buf, im.len);
	assert_int_equal(fsc_dev_open_mem_rw(im.buf, im.len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_int_equal(fsc_plan_label(dev, p, "STALE", 0, plan, err, sizeof(err)), 0);
	im.buf[im.root_byte + 2] ^= 1;	/* someone changed the label entry since */
	before[im.root_byte + 2] ^= 1;
	assert_int_equal(fsc_plan_apply(dev, plan, NULL), -ESTALE);
	assert_memory_equal(im.buf, before, im.len);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	free(before);
	img_free(&im);
}

/* The undo log puts an image file back byte for byte. */
static void test_undo(void **state)
{
	char path[] = "/tmp/fatscope-test-XXXXXX", undo[64];
	struct img im;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan = fsc_plan_new();
	uint8_t *back;
	char err[200];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	build_exfat_tree(&im);
	assert_int_equal(write(fd, im.buf, im.len), (ssize_t)im.len);
	close(fd);
	snprintf(undo, sizeof(undo), "%s.undo", path);
	assert_int_equal(fsc_dev_open(path, FSC_DEV_WRITE, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_int_equal(fsc_plan_label(dev, p, "UNDONE", 0, plan, err, sizeof(err)), 0);
	assert_int_equal(fsc_plan_serial(dev, p, 1, plan, err, sizeof(err)), 0);
	assert_int_equal(fsc_plan_apply(dev, plan, undo), 0);
	assert_int_equal(fsc_plan_apply(dev, plan, undo), -ESTALE);	/* applied already */
	assert_true(fsc_undo_apply(dev, undo) > 0);
	back = malloc(im.len);
	assert_int_equal(fsc_dev_read(dev, 0, back, im.len), 0);
	assert_memory_equal(back, im.buf, im.len);
	assert_int_equal(fsc_undo_apply(dev, "/nonexistent/undo"), -ENOENT);
	free(back);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	unlink(path);
	unlink(undo);
	img_free(&im);
}

/* Plan with fn on a file copy of im, apply with an undo log, undo it, and read the file back into im. */
static void undo_round_trip(struct img *im, int (*fn)(struct fsc_dev *, const struct fsc_probe *, struct fsc_plan *,
							  const void *), const void *arg)
{
	char path[] = "/tmp/fatscope-test-XXXXXX", undo[64];
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;
	struct fsc_probe *p;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, im->buf, im->len), (ssize_t)im->len);
	close(fd);
	snprintf(undo, sizeof(undo), "%s.undo", path);
	assert_int_equal(fsc_dev_open(path, FSC_DEV_WRITE, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_int_equal(fn(dev, p, plan, arg), 0);
	assert_int_equal(fsc_plan_apply(dev, plan, undo), 0);
	assert_true(fsc_undo_apply(dev, undo) > 0);
	assert_int_equal(fsc_dev_read(dev, 0, im->buf, im->len), 0);
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	unlink(path);
	unlink(undo);
}

/* Label and GUID planned together, as `fatscope label --guid G IMG LABEL` does. */
static int set_label_and_guid(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl, const void *a)
{
	static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	char err[200];
	int r = fsc_plan_label(d, p, a, 1577934245, pl, err, sizeof(err));

	return r ? r : fsc_plan_guid(d, p, guid, pl, err, sizeof(err));
}

/*
 * Two root entries in one plan: the second change sees the slot, or the
 * new root cluster, that the first one took (they collided, and the plan
 * was refused as stale).  Once with free slots, once in a full root
 * (one new cluster holds both), with the undo log restoring every byte.
 */
static void test_exfat_label_and_guid(void **state)
{
	(void)state;
	for (int full = 0; full < 2; full++) {
		struct img im;
		struct fsc_ids ids = FSC_IDS_INIT;
		uint8_t *orig;

		build_exfat(&im, 2 << 20, 9, 0);
		exfat_root_entry(&im, 0)[0] = 0x03;	/* no label entry: the slot is free */
		for (unsigned i = 3; full && i < im.cb / 32; i++)
			exfat_root_entry(&im, i)[0] = 0xA1;
		if (full)
			exfat_root_entry(&im, 0)[0] = 0xA1;
		orig = malloc(im.len);
		assert_non_null(orig);
		memcpy(orig, im.buf, im.len);
		undo_round_trip(&im, set_label_and_guid, "BOTH");	/* the undo log restores every byte */
		assert_memory_equal(im.buf, orig, im.len);
		assert_int_equal(change(&im, set_label_and_guid, "BOTH"), 0);
		read_back(&im, &ids);
		assert_string_equal(ids.label, "BOTH");
		assert_true(ids.has_guid);
		assert_int_equal(ids.guid[15], 16);
		if (full) {
			assert_int_equal(get_le32(im.buf, im.fat_byte + 4 * 4), 5);	/* root 4 -> 5, once */
			assert_int_equal(get_le32(im.buf, im.fat_byte + 4 * 5), 0xFFFFFFFF);
			assert_int_equal(exfat_entry(&im, 5, 0)[0], 0x83);
			assert_int_equal(exfat_entry(&im, 5, 1)[0], 0xA0);
		} else {
			assert_int_equal(exfat_root_entry(&im, 0)[0], 0x83);
			assert_int_equal(exfat_root_entry(&im, 3)[0], 0xA0);
		}
		free(orig);
		img_free(&im);
	}
}

int unit_label(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exfat_label_serial_guid),
		cmocka_unit_test(test_exfat_full_root),
		cmocka_unit_test(test_exfat_label_and_guid),
		cmocka_unit_test(test_exfat_full_root_percent),
		cmocka_unit_test(test_fat_labels),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_undo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
