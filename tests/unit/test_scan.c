// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_scan.c - fsc_scan: volumes built in memory (exFAT, FAT12/16/32) at
 * odd sectors of a larger buffer are found where they start, also through
 * their backup when the main boot sector is zeroed; and no false
 * candidate: one million seeded pseudo-random sectors, one million more
 * made to look like boot sectors (every one reaches the cross-checks, none
 * passes them), and every fixture image (tests/fixtures/img, decompressed
 * into tests/work/img as tests/cli/lib.sh does) gives volumes only where
 * the fixture has one.  FSC_RANDOM_SECTORS overrides the counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "fatscope/fatscope.h"

#define BLOCK_SECTORS 32768u	/* 16 MiB scanned at a time */


static void fill_random(uint8_t *s, size_t len)
{
	for (size_t k = 0; k < len; k += 8) {
		uint64_t v = test_rand();

		memcpy(s + k, &v, 8);
	}
}

static unsigned long sector_count(void)
{
	const char *env = getenv("FSC_RANDOM_SECTORS");

	return env ? strtoul(env, NULL, 10) : 1000000;
}

/*
 * fsc_partitions' array steps by its elements' struct_size: an MBR disk
 * with two partitions (in a file: the table is read through libblkid).
 */
static void test_partition_array(void **state)
{
	char path[] = "/tmp/fsc-unit-parts-XXXXXX";
	uint8_t mbr[512] = { 0 };
	const uint32_t start[2] = { 2048, 6144 }, sectors[2] = { 4096, 2048 };
	struct fsc_partition *v;
	struct fsc_dev *dev;
	int fd = mkstemp(path), n;

	(void)state;
	assert_true(fd >= 0);
	for (int i = 0; i < 2; i++) {
		uint8_t *e = mbr + 446 + 16 * i;

		e[4] = 0x07;
		memcpy(e + 8, &start[i], 4);	/* (little-endian hosts: the tests' own) */
		memcpy(e + 12, &sectors[i], 4);
	}
	mbr[510] = 0x55;
	mbr[511] = 0xAA;
	assert_int_equal(pwrite(fd, mbr, sizeof(mbr), 0), (ssize_t)sizeof(mbr));
	assert_int_equal(ftruncate(fd, 8192 * 512), 0);
	close(fd);
	assert_int_equal(fsc_dev_open(path, 0, &dev), 0);
	n = fsc_partitions(dev, &v);
	unlink(path);
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		const struct fsc_partition *pt = fsc_partition_at(v, (size_t)i);

		assert_int_equal(pt->struct_size, sizeof(*pt));
		assert_int_equal(pt->partno, i + 1);
		assert_int_equal(pt->offset, (uint64_t)start[i] * 512);
		assert_int_equal(pt->size, (uint64_t)sectors[i] * 512);
	}
	free(v);
	fsc_dev_close(dev);
}

/* Scan len bytes of memory: the hits' count, stats in *st. */
static size_t scan_mem(const uint8_t *buf, size_t len, struct fsc_scan_hit **hits, struct fsc_scan_stats *st)
{
	struct fsc_dev *dev;
	size_t n;

	assert_int_equal(fsc_dev_open_mem(buf, len, &dev), 0);
	assert_int_equal(fsc_scan(dev, hits, &n, st), 0);
	fsc_dev_close(dev);
	return n;
}

/* A sector that the classifier takes for a FAT BPB (every 8th: an exFAT boot sector), the rest random. */
static void lookalike(uint8_t *s, unsigned long i)
{
	if (i % 8 == 0) {
		memcpy(s, "\xEB\x76\x90" "EXFAT   ", 11);
		memset(s + 11, 0, 53);
		s[108] = 9;
		s[109] &= 7;
		s[110] = 1;
		s[510] = 0x55;
		s[511] = 0xAA;
		return;
	}
	memcpy(s, "\xEB\x3C\x90", 3);
	s[11] = 0;
	s[12] = 2;			/* 512 bytes a sector */
	s[13] = (uint8_t)(1u << (s[13] & 7));
	s[14] |= 1;			/* reserved sectors */
	s[16] = 2;
	s[21] = 0xF8;
	if (i % 3 == 0) {		/* FAT32 style, backup at 6 */
		s[22] = s[23] = 0;
		s[17] = s[18] = 0;
		s[50] = 6;
		s[51] = 0;
		s[14] = 32;
	}
}

static void random_run(bool looking_alike)
{
	unsigned long total = sector_count(), done = 0, candidates = 0;
	uint8_t *buf = malloc((size_t)BLOCK_SECTORS * 512);

	assert_non_null(buf);
	while (done < total) {
		unsigned long k = total - done < BLOCK_SECTORS ? total - done : BLOCK_SECTORS;
		struct fsc_scan_hit *hits;
		struct fsc_scan_stats st = FSC_SCAN_STATS_INIT;

		fill_random(buf, k * 512);
		for (unsigned long i = 0; looking_alike && i < k; i++)
			lookalike(buf + i * 512, done + i);
		assert_int_equal(scan_mem(buf, k * 512, &hits, &st), 0);
		assert_int_equal(st.read, k * 512);
		if (looking_alike)
			assert_int_equal(st.candidates, k);
		candidates += st.candidates;
		free(hits);
		done += k;
	}
	print_message("%lu %s sectors: %lu candidates, none a volume\n", total,
		      looking_alike ? "boot-sector-like" : "random", candidates);
	free(buf);
}

static void test_random_sectors(void **state)
{
	(void)state;
	random_run(false);
}

static void test_lookalike_sectors(void **state)
{
	(void)state;
	random_run(true);
}

struct placed {
	uint64_t sector;
	enum fsc_type type;
	bool zero_main;
};

/*
 * Volumes copied to odd sectors of one buffer, some with the main boot
 * sector zeroed, one inside the unused part of another's extent (a
 * partition cut short, a new one made after it): all found.
 */
static void test_placed(void **state)
{
	struct placed want[] = {
		{ 2049, FSC_TYPE_EXFAT, false }, { 20011, FSC_TYPE_FAT16, false }, { 40001, FSC_TYPE_FAT12, false },
		{ 50003, FSC_TYPE_FAT16, false }, { 70001, FSC_TYPE_FAT32, true },
		{ 150007, FSC_TYPE_EXFAT, true },
	};
	size_t len = 250000ull * 512, n;
	uint8_t *disk = calloc(1, len);
	struct fsc_scan_hit *hits;
	struct fsc_scan_stats st = FSC_SCAN_STATS_INIT;

	(void)state;
	assert_non_null(disk);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct img im = { 0 };

		if (want[i].type == FSC_TYPE_EXFAT)
			build_exfat(&im, 16u << 20, 9, 3);
		else
			build_fat(&im, want[i].type == FSC_TYPE_FAT12 ? 12 : want[i].type == FSC_TYPE_FAT16 ? 16 : 32);
		assert_true(want[i].sector * 512 + im.len <= len);
		memcpy(disk + want[i].sector * 512, im.buf, im.len);
		if (want[i].zero_main)
			memset(disk + want[i].sector * 512, 0, 512);
		img_free(&im);
	}
	n = scan_mem(disk, len, &hits, &st);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		const struct fsc_scan_hit *h = fsc_scan_hit_at(hits, i);

		assert_int_equal(h->struct_size, sizeof(*h));
		assert_int_equal(h->offset, want[i].sector * 512);
		assert_int_equal(h->type, want[i].type);
		assert_int_equal(h->how, want[i].zero_main ? FSC_SCAN_BACKUP : FSC_SCAN_MAIN);
		assert_int_equal(h->confidence, FSC_SCAN_HIGH);
	}
	/* the FAT16 volume at 20011 lies inside the exFAT one's extent (to 34817), where it uses no cluster */
	assert_true(st.inside == 0);
	free(hits);
	free(disk);
}

/* The volumes a fixture holds: at 0, or at its partitions (the whole-disk fixtures). */
static bool expected_at(const char *name, uint64_t off)
{
	if (strcmp(name, "gpt-disk.img") == 0)
		return off == 1048576 || off == 5242880;
	if (strcmp(name, "mbr-disk.img") == 0)
		return off == 1048576 || off == 9437184;
	return off == 0;
}

/* tests/work/img/NAME, decompressed from tests/fixtures/img/NAME.zst unless it is there already. */
static bool fixture_path(const char *src, const char *bld, const char *zname, char *path, size_t len)
{
	char cmd[6 * 4096 + 256];
	struct stat a, b;
	size_t nl = strlen(zname) - 4;

	snprintf(path, len, "%s/tests/work/img/%.*s", bld, (int)nl, zname);
	snprintf(cmd, sizeof(cmd), "%s/tests/fixtures/img/%s", src, zname);
	if (stat(cmd, &a) == 0 && stat(path, &b) == 0 && b.st_mtime >= a.st_mtime)
		return true;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tests/work/img' && zstd -q -d -f -o '%s.tmp.%d' '%s/tests/fixtures/img/%s' && "
		 "mv -f '%s.tmp.%d' '%s'", bld, path, (int)getpid(), src, zname, path, (int)getpid(), path);
	return system(cmd) == 0;
}

static void test_fixtures(void **state)
{
	const char *src = getenv("top_srcdir"), *bld = getenv("top_builddir");
	char dirpath[4096], path[4096];
	struct dirent *de;
	unsigned files = 0, volumes = 0;
	DIR *d;

	(void)state;
	if (!src || !bld)
		skip();
	snprintf(dirpath, sizeof(dirpath), "%s/tests/fixtures/img", src);
	assert_non_null(d = opendir(dirpath));
	while ((de = readdir(d))) {
		struct fsc_dev *dev;
		struct fsc_scan_hit *hits;
		size_t n, l = strlen(de->d_name);

		if (l < 9 || strcmp(de->d_name + l - 8, ".img.zst") != 0)
			continue;
		assert_true(fixture_path(src, bld, de->d_name, path, sizeof(path)));
		assert_int_equal(fsc_dev_open(path, 0, &dev), 0);
		assert_int_equal(fsc_scan(dev, &hits, &n, NULL), 0);
		for (size_t i = 0; i < n; i++) {
			if (!expected_at(strrchr(path, '/') + 1, fsc_scan_hit_at(hits, i)->offset))
				fail_msg("%s: a volume at byte %llu", path, (unsigned long long)fsc_scan_hit_at(hits, i)->offset);
			assert_true(fsc_scan_hit_at(hits, i)->type == FSC_TYPE_EXFAT || fsc_type_is_fat(fsc_scan_hit_at(hits, i)->type));
		}
		volumes += n;
		files++;
		free(hits);
		fsc_dev_close(dev);
	}
	closedir(d);
	print_message("%u fixtures: %u volumes, each where the fixture has one\n", files, volumes);
	assert_true(files > 50 && volumes > 50);
}

int unit_scan(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placed),
		cmocka_unit_test(test_partition_array),
		cmocka_unit_test(test_random_sectors),
		cmocka_unit_test(test_lookalike_sectors),
		cmocka_unit_test(test_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
