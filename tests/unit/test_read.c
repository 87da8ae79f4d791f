// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_read.c - reading files (vol/read.c) and finding them (lookup.c) on
 * volumes built in memory: a FAT chain and a NoFatChain run read back,
 * bytes past ValidDataLength as zeros, a loop within the file and one
 * right after its end refused, and read up to the break (each cluster
 * once) with FSC_READER_TO_BREAK, as is a chain that meets a free entry;
 * a cross-link opened whole and its shared cluster named with
 * FSC_READER_CROSSLINKS; a deleted fragmented exFAT file whose chain is
 * still whole and free is intact and read through its chain (the
 * contiguous guess ran into the live file between its clusters), and
 * with its chain cleared it is partial, the taken cluster read as zeros;
 * lookups fold case, take "/" and refuse a file as a directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "fatscope/fatscope.h"
#include "base/bytes.h"

struct vol {
	struct img im;
	struct fsc_dev *dev;
	struct fsc_probe *p;
};

static void fill(struct img *im, uint32_t c, uint8_t v)
{
	memset(im->buf + im->heap_byte + (uint64_t)(c - 2) * im->cb, v, im->cb);
}

/*
 * build_exfat_tree, and in /sub: live.bin (FAT chain 13 -> 15) and the
 * deleted frag.bin (12 -> 14 -> 16, three clusters, InUse clear, its
 * clusters free in the bitmap), its chain kept unless clear_chain.
 */
static void build(struct vol *v, bool clear_chain)
{
	struct img *im = &v->im;
	unsigned n;

	build_exfat_tree(im);
	exfat_put_file(im, 6, 6, "live.bin", 0x20, 13, 2ull * im->cb, 0x01);
	n = exfat_put_file(im, 6, 9, "frag.bin", 0x20, 12, 3ull * im->cb, 0x01);
	for (unsigned i = 0; i < n; i++)
		exfat_entry(im, 6, 9 + i)[0] &= 0x7F;
	exfat_set_fat(im, 13, 15);
	exfat_set_fat(im, 15, 0xFFFFFFFF);
	exfat_set_fat(im, 12, clear_chain ? 0 : 14);
	exfat_set_fat(im, 14, clear_chain ? 0 : 16);
	exfat_set_fat(im, 16, clear_chain ? 0 : 0xFFFFFFFF);
	exfat_mark(im, 13, 1);
	exfat_mark(im, 15, 1);
	fill(im, 12, 'A');
	fill(im, 14, 'B');
	fill(im, 16, 'C');
	fill(im, 13, 'X');
	fill(im, 15, 'Y');
	fill(im, 9, '9');
	fill(im, 10, '0');
}

static void open_vol(struct vol *v)
{
	assert_int_equal(fsc_dev_open_mem(v->im.buf, v->im.len, &v->dev), 0);
	assert_int_equal(fsc_probe_volume(v->dev, &v->p), 0);
}

static void close_vol(struct vol *v)
{
	fsc_probe_free(v->p);
	fsc_dev_close(v->dev);
	img_free(&v->im);
}

/* The whole file at path (deleted ones too) into a new buffer; *len its size; the open's result. */
static int read_all(struct vol *v, const char *path, unsigned rflags, uint8_t **out, uint64_t *len,
		    enum fsc_recovery *rec)
{
	struct fsc_dirent d = FSC_DIRENT_INIT;
	struct fsc_reader *rd;
	struct fsc_file *f;
	char buf[512];
	int r;

	assert_int_equal(fsc_lookup(v->dev, v->p, path, FSC_LOOKUP_DELETED, &d, buf, sizeof(buf)), 0);
	assert_int_equal(fsc_reader_open(v->dev, v->p, rflags, &rd), 0);
	r = fsc_file_open(rd, &d, &f, buf, sizeof(buf));
	if (r == 0) {
		*len = fsc_file_size(f);
		*out = malloc(*len + 1);
		assert_int_equal(fsc_file_read(f, 0, *out, *len + 1), (int64_t)*len);
		assert_int_equal(fsc_file_read(f, *len, *out, 1), 0);
		if (rec)
			*rec = fsc_file_recovery(f);
		fsc_file_close(f);
	}
	fsc_reader_close(rd);
	return r;
}

static void test_chain_and_nofat(void **state)
{
	struct vol v;
	uint8_t *b;
	uint64_t n;

	(void)state;
	build(&v, false);
	open_vol(&v);
	assert_int_equal(read_all(&v, "/sub/live.bin", 0, &b, &n, NULL), 0);
	assert_int_equal(n, 2ull * v.im.cb);
	assert_int_equal(b[0], 'X');
	assert_int_equal(b[v.im.cb], 'Y');
	free(b);
	assert_int_equal(read_all(&v, "/sub/b.bin", 0, &b, &n, NULL), 0);	/* NoFatChain 9-10 */
	assert_int_equal(b[0], '9');
	assert_int_equal(b[n - 1], '0');
	free(b);
	close_vol(&v);
}

static void test_valid_data_length(void **state)
{
	struct vol v;
	uint8_t *b;
	uint64_t n;

	(void)state;
	build(&v, false);
	put_le64(exfat_entry(&v.im, 6, 6) + 32, 8, 10);	/* live.bin: 10 valid bytes */
	exfat_fix_set(&v.im, 6, 6);
	open_vol(&v);
	assert_int_equal(read_all(&v, "/sub/live.bin", 0, &b, &n, NULL), 0);
	assert_int_equal(n, 2ull * v.im.cb);
	assert_int_equal(b[9], 'X');
	assert_int_equal(b[10], 0);
	assert_int_equal(b[n - 1], 0);
	free(b);
	close_vol(&v);
}

static void test_loops(void **state)
{
	struct vol v;
	uint8_t *b = NULL;
	uint64_t n;

	(void)state;
	build(&v, false);
	exfat_set_fat(&v.im, 15, 13);	/* live.bin: 13 -> 15 -> 13, right after its end */
	open_vol(&v);
	assert_int_equal(read_all(&v, "/sub/live.bin", 0, &b, &n, NULL), -ELOOP);
	close_vol(&v);
	build(&v, false);
	exfat_set_fat(&v.im, 15, 13);	/* and a size of 500 clusters: found within */
	put_le64(exfat_entry(&v.im, 6, 6) + 32, 8, 500ull * v.im.cb);
	put_le64(exfat_entry(&v.im, 6, 6) + 32, 24, 500ull * v.im.cb);
	exfat_fix_set(&v.im, 6, 6);
	open_vol(&v);
	assert_int_equal(read_all(&v, "/sub/live.bin", 0, &b, &n, NULL), -ELOOP);
	assert_null(b);
	close_vol(&v);
}

/* Opened through FSC_READER_TO_BREAK: f, its damage, and its bytes (*len of them) in *out. */
static int read_to_break(struct vol *v, const char *path, uint8_t **out, uint64_t *len, char *why, size_t wl)
{
	struct fsc_dirent d = FSC_DIRENT_INIT;
	struct fsc_reader *rd;
	struct fsc_file *f;
	char buf[512];
	int dmg;

	assert_int_equal(fsc_lookup(v->dev, v->p, path, 0, &d, buf, sizeof(buf)), 0);
	assert_int_equal(fsc_reader_open(v->dev, v->p, FSC_READER_TO_BREAK, &rd), 0);
	assert_int_equal(fsc_file_open(rd, &d, &f, why, wl), 0);
	dmg = fsc_file_damage(f);
	*len = fsc_file_size(f);
	*out = malloc(*len + 1);
	assert_int_equal(fsc_file_read(f, 0, *out, *len + 1), (int64_t)*len);
	fsc_file_close(f);
	fsc_reader_close(rd);
	return dmg;
}

/* A loop and a break, read up to where the chain goes wrong, each cluster once. */
static void test_to_break(void **state)
{
	struct vol v;
	uint8_t *b;
	uint64_t n;
	char why[128];

	(void)state;
	build(&v, false);
	exfat_set_fat(&v.im, 15, 13);	/* 13 -> 15 -> 13 with a size of 5 clusters: 13, 15 */
	put_le64(exfat_entry(&v.im, 6, 6) + 32, 8, 5ull * v.im.cb);
	put_le64(exfat_entry(&v.im, 6, 6) + 32, 24, 5ull * v.im.cb);
	exfat_fix_set(&v.im, 6, 6);
	open_vol(&v);
	assert_int_equal(read_to_break(&v, "/sub/live.bin", &b, &n, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "loops back to cluster 13"));
	assert_int_equal(n, 2ull * v.im.cb);
	assert_int_equal(b[0], 'X');
	assert_int_equal(b[n - 1], 'Y');
	free(b);
	close_vol(&v);

	build(&v, false);
	exfat_set_fat(&v.im, 15, 13);	/* the loop closes right after its 2 clusters: all of it */
	open_vol(&v);
	assert_int_equal(read_to_break(&v, "/sub/live.bin", &b, &n, why, sizeof(why)), -ELOOP);
	assert_int_equal(n, 2ull * v.im.cb);
	free(b);
	close_vol(&v);

	build(&v, false);
	exfat_set_fat(&v.im, 13, 0);	/* 13 then a free entry: one cluster */
	open_vol(&v);
	assert_int_equal(read_to_break(&v, "/sub/live.bin", &b, &n, why, sizeof(why)), -EUCLEAN);
	assert_non_null(strstr(why, "free entry"));
	assert_int_equal(n, v.im.cb);
	assert_int_equal(b[n - 1], 'X');
	free(b);
	assert_int_equal(read_to_break(&v, "/hello.txt", &b, &n, why, sizeof(why)), 0);	/* a sound one */
	assert_string_equal(why, "");
	free(b);
	close_vol(&v);
}

static void test_crosslink(void **state)
{
	struct vol v;
	struct fsc_dirent d = FSC_DIRENT_INIT;
	struct fsc_reader *rd;
	struct fsc_file *f;
	char buf[512], why[128];

	(void)state;
	build(&v, false);
	put_le32(exfat_entry(&v.im, 4, 3) + 32, 20, 15);	/* hello.txt at live.bin's second cluster */
	exfat_fix_set(&v.im, 4, 3);
	open_vol(&v);
	assert_int_equal(fsc_reader_open(v.dev, v.p, FSC_READER_CROSSLINKS, &rd), 0);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/sub/live.bin", 0, &d, buf, sizeof(buf)), 0);
	assert_int_equal(fsc_file_open(rd, &d, &f, why, sizeof(why)), 0);
	assert_int_equal(fsc_file_shared(f), 0);
	fsc_file_close(f);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/hello.txt", 0, &d, buf, sizeof(buf)), 0);
	assert_int_equal(fsc_file_open(rd, &d, &f, why, sizeof(why)), 0);	/* opened whole, */
	assert_int_equal(fsc_file_shared(f), 15);				/* the shared cluster named */
	assert_int_equal(fsc_file_damage(f), 0);
	fsc_file_close(f);
	fsc_reader_close(rd);
	close_vol(&v);
}

static int find_frag(void *ctx, const struct fsc_dirent *d)
{
	if (strcmp(d->path, "/sub/frag.bin") == 0)
		*(enum fsc_recovery *)ctx = d->recovery;
	return 0;
}

static void test_deleted_fragmented(void **state)
{
	struct vol v;
	enum fsc_recovery walked = FSC_REC_LIVE, read;
	uint8_t *b;
	uint64_t n;

	(void)state;
	build(&v, false);
	open_vol(&v);
	assert_int_equal(fsc_walk_tree(v.dev, v.p, FSC_WALK_DELETED, find_frag, &walked), 0);
	assert_int_equal(walked, FSC_REC_INTACT);
	assert_int_equal(read_all(&v, "/sub/frag.bin", 0, &b, &n, &read), 0);
	assert_int_equal(read, FSC_REC_INTACT);
	assert_int_equal(n, 3ull * v.im.cb);
	assert_int_equal(b[0], 'A');
	assert_int_equal(b[v.im.cb], 'B');
	assert_int_equal(b[2 * v.im.cb], 'C');
	free(b);
	close_vol(&v);

	build(&v, true);	/* its FAT entries cleared: the contiguous run 12-14, 13 taken */
	open_vol(&v);
	assert_int_equal(fsc_walk_tree(v.dev, v.p, FSC_WALK_DELETED, find_frag, &walked), 0);
	assert_int_equal(walked, FSC_REC_PARTIAL);
	assert_int_equal(read_all(&v, "/sub/frag.bin", 0, &b, &n, &read), 0);
	assert_int_equal(read, FSC_REC_PARTIAL);
	assert_int_equal(b[0], 'A');
	assert_int_equal(b[v.im.cb], 0);
	assert_int_equal(b[2 * v.im.cb], 'B');
	free(b);
	close_vol(&v);
}

static void test_lookup(void **state)
{
	struct vol v;
	struct fsc_dirent d = FSC_DIRENT_INIT;
	char buf[512];

	(void)state;
	build(&v, false);
	open_vol(&v);
	assert_int_equal(fsc_lookup(v.dev, v.p, "//SUB/A.Bin", 0, &d, buf, sizeof(buf)), 0);
	assert_string_equal(d.path, "/sub/a.bin");
	assert_int_equal(d.first_cluster, 7);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/", 0, &d, buf, sizeof(buf)), 0);
	assert_true(d.dir);
	assert_int_equal(d.depth, 0);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/hello.txt/x", 0, &d, buf, sizeof(buf)), -ENOTDIR);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/nope", 0, &d, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/sub/frag.bin", 0, &d, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(fsc_lookup(v.dev, v.p, "/sub/frag.bin", FSC_LOOKUP_DELETED, &d, buf, sizeof(buf)), 0);
	assert_true(d.deleted);
	close_vol(&v);
}

int unit_read(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_and_nofat),
		cmocka_unit_test(test_valid_data_length),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_to_break),
		cmocka_unit_test(test_crosslink),
		cmocka_unit_test(test_deleted_fragmented),
		cmocka_unit_test(test_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
