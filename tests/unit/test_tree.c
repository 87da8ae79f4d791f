// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tree.c - the directory walk of the exFAT check on trees large
 * enough for the second thread (dirtail.c): entries in use past the end
 * marker are found wherever they lie (in the first 4 KiB read by the
 * walker, in the rest of the cluster, in a later cluster, in the last
 * entry), only the EntryType byte counts, one finding per directory, and
 * the findings are the same, in the same order, with and without the
 * thread.  And the walk core every tree walk shares (base/dirwalk.c):
 * depth-first order, the paths of nodes, a start below the root, a path
 * too long for the buffer.
 */
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
#include "fatscope/fatscope.h"
#include "report/report.h"
#include "base/bytes.h"
#include "base/base.h"

/* Where a test plants a byte: entry `entry` of the n-th directory made (-1: the root). */
struct plant {
	int dir;
	unsigned entry, byte;
	uint8_t value;
};

struct tree {
	struct img im;
	uint32_t *first;		/* first cluster of each directory made */
	unsigned ndirs;
	uint32_t big;			/* a two-cluster directory with a FAT chain, at the end */
};

/*
 * Root -> top directories t000.. -> (sub > 0) sub directories sNNN in
 * each: one cluster each, NoFatChain, all empty; then "big", two
 * clusters chained in the FAT.  Clusters are handed out from 5 on.
 */
static void make_tree(struct tree *t, size_t size, unsigned spc, unsigned top, unsigned sub)
{
	uint32_t next = 5;
	char name[16];

	build_exfat(&t->im, size, 9, spc);
	t->ndirs = 0;
	t->first = calloc(top * (1 + sub) + 1, sizeof(*t->first));
	assert_non_null(t->first);
	for (unsigned a = 0; a < top; a++) {
		uint32_t ca = next++;

		snprintf(name, sizeof(name), "t%03u", a);
		exfat_put_file(&t->im, 4, 3 + 3 * a, name, 0x10, ca, t->im.cb, 0x03);
		exfat_mark(&t->im, ca, 1);
		t->first[t->ndirs++] = ca;
		for (unsigned b = 0; b < sub; b++) {
			uint32_t cb = next++;

			snprintf(name, sizeof(name), "s%03u", b);
			exfat_put_file(&t->im, ca, 3 * b, name, 0x10, cb, t->im.cb, 0x03);
			exfat_mark(&t->im, cb, 1);
			t->first[t->ndirs++] = cb;
		}
	}
	t->big = next;
	exfat_put_file(&t->im, 4, 3 + 3 * top, "big", 0x10, next, 2ull * t->im.cb, 0x01);
	exfat_set_fat(&t->im, next, next + 1);
	exfat_set_fat(&t->im, next + 1, 0xFFFFFFFF);
	exfat_mark(&t->im, next, 1);
	exfat_mark(&t->im, next + 1, 1);
	assert_true(next + 1 < t->im.cluster_count + 2);
	t->im.buf[112] = 0xFF;		/* PercentInUse: not known */
	exfat_resign(&t->im);
}

static void plant(struct tree *t, const struct plant *pl, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t c = pl[i].dir < 0 ? 4 : t->first[pl[i].dir];

		exfat_entry(&t->im, c, pl[i].entry)[pl[i].byte] = pl[i].value;
	}
}

/* Check with threads = 0 (automatic) or 1 (none); findings as text, one per line. */
static char *check(struct tree *t, unsigned threads, size_t *nfind)
{
	struct fsc_probe *p = img_probe(&t->im);
	struct fsc_check_opts o = { .size = sizeof(o), .threads = threads };
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings fs = { 0 };
	struct fsc_dev *dev;
	size_t len = 0, cap = 1;
	char *out = calloc(1, 1), line[512], msg[256], loc[128];

	assert_non_null(p);
	assert_int_equal(fsc_probe_type(p), FSC_TYPE_EXFAT);
	assert_int_equal(fsc_dev_open_mem(t->im.buf, t->im.len, &dev), 0);
	assert_int_equal(fsc_check(dev, p, &o, &fs, &sum), 0);
	fsc_dev_close(dev);
	assert_int_equal(sum.dirs, t->ndirs + 1);
	for (size_t i = 0; i < fs.n; i++) {
		const struct fsc_finding *f = &fs.v[i];
		int n;

		fsc_finding_message(f, msg, sizeof(msg));
		fsc_finding_location(f, loc, sizeof(loc));
		n = snprintf(line, sizeof(line), "%s %s %s: %s\n", fsc_problem_info(f->id)->name,
			     f->path ? f->path : "-", loc, msg);
		if (len + (size_t)n + 1 > cap) {
			cap = 2 * (len + (size_t)n + 1);
			out = realloc(out, cap);
			assert_non_null(out);
		}
		memcpy(out + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	*nfind = fs.n;
	finding_list_clear(&fs);
	fsc_probe_free(p);
	return out;
}

/* Both ways, several times (the thread's timing varies): the same text every time. */
static char *check_both(struct tree *t, size_t *nfind)
{
	size_t n1;
	char *one = check(t, 1, &n1);

	for (int k = 0; k < 4; k++) {
		size_t n0;
		char *auto_ = check(t, 0, &n0);

		assert_string_equal(auto_, one);
		assert_int_equal(n0, n1);
		free(auto_);
	}
	*nfind = n1;
	return one;
}

static void tree_free(struct tree *t)
{
	free(t->first);
	img_free(&t->im);
}

static unsigned count_lines(const char *s, const char *prefix)
{
	unsigned n = 0;

	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/* 32 KiB clusters, 200 directories: 6.3 MiB past the end markers, enough for the thread. */
static void test_after_end_places(void **state)
{
	static const struct plant pl[] = {
		{ 10, 1, 0, 0x85 },	/* right after the end marker, in the first 4 KiB */
		{ 20, 127, 0, 0x05 },	/* the last entry of the first 4 KiB */
		{ 30, 128, 0, 0xC1 },	/* the first entry the walker hands over */
		{ 40, 1023, 0, 0x01 },	/* the last entry of the cluster */
		{ 50, 200, 0, 0x83 },	/* two in one directory: the first is reported */
		{ 50, 900, 0, 0x81 },
		{ 60, 300, 5, 0xFF },	/* not an EntryType byte: free entries may hold anything else */
		{ 199, 1000, 0, 0x40 },	/* the last directory walked */
		{ -1, 1020, 0, 0xA0 },	/* the root, past its 200 directories */
	};
	struct tree t;
	size_t n;
	char *text;

	(void)state;
	make_tree(&t, 12u << 20, 6, 200, 0);
	text = check_both(&t, &n);
	if (n) print_message("%s", text);
	assert_int_equal(n, 0);		/* healthy first */
	free(text);

	plant(&t, pl, sizeof(pl) / sizeof(pl[0]));
	exfat_entry(&t.im, t.big + 1, 7)[0] = 0x20;	/* big: in its second cluster */
	text = check_both(&t, &n);
	/* The walk is depth-first from the last directory pushed; the findings follow it. */
	assert_int_equal(n, 8);
	assert_string_equal(text,
		"EXFAT_AFTER_END / cluster 4 entry 1020: /: entry of type 0xa0 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /big cluster 206 entry 7: /big: entry of type 0x20 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t199 cluster 204 entry 1000: /t199: entry of type 0x40 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t050 cluster 55 entry 200: /t050: entry of type 0x83 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t040 cluster 45 entry 1023: /t040: entry of type 0x01 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t030 cluster 35 entry 128: /t030: entry of type 0xc1 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t020 cluster 25 entry 127: /t020: entry of type 0x05 after the end-of-directory marker\n"
		"EXFAT_AFTER_END /t010 cluster 15 entry 1: /t010: entry of type 0x85 after the end-of-directory marker\n");
	free(text);
	tree_free(&t);
}

/*
 * 8 KiB clusters, 40 x 40 directories: more ranges than the queue holds
 * (the walker takes its turn when it is full), and a directory read
 * between two of them.
 */
static void test_after_end_many(void **state)
{
	struct tree t;
	size_t n;
	char *text;
	unsigned planted = 0;

	(void)state;
	make_tree(&t, 16u << 20, 4, 40, 40);
	text = check_both(&t, &n);
	if (n)
		print_message("%s", text);
	assert_int_equal(n, 0);
	free(text);
	for (unsigned d = 3; d < t.ndirs; d += 97) {
		if (d % 41 == 0)
			continue;	/* a top directory: its entries are in use */
		exfat_entry(&t.im, t.first[d], 1 + d % 255)[0] = (uint8_t)(0x80 | d);
		planted++;
	}
	text = check_both(&t, &n);
	assert_int_equal(count_lines(text, "EXFAT_AFTER_END "), planted);
	free(text);
	tree_free(&t);
}

struct tjob {
	size_t node;
	int tag;
};

/* Last pushed, first read; each pop sets the path of its node; SIZE_MAX nodes are not pushed. */
static void test_dirwalk_order(void **state)
{
	struct dirwalk w;
	struct tjob j = { 0, 0 };
	size_t a, b;

	(void)state;
	assert_int_equal(dirwalk_init(&w, sizeof(struct tjob), NULL), 0);
	assert_non_null(dirwalk_push(&w, &j));
	assert_true(dirwalk_pop(&w, &j));
	assert_string_equal(w.path, "/");
	a = dirwalk_add(&w, 0, "a");
	b = dirwalk_add(&w, a, "b");
	assert_non_null(dirwalk_push(&w, &(struct tjob){ a, 1 }));
	assert_non_null(dirwalk_push(&w, &(struct tjob){ b, 2 }));
	assert_null(dirwalk_push(&w, &(struct tjob){ SIZE_MAX, 3 }));
	assert_int_equal(w.njobs, 2);
	assert_int_equal(((struct tjob *)dirwalk_job(&w, 0))->tag, 1);
	assert_true(dirwalk_pop(&w, &j));
	assert_int_equal(j.tag, 2);
	assert_string_equal(w.path, "/a/b");
	assert_true(dirwalk_pop(&w, &j));
	assert_int_equal(j.tag, 1);
	assert_string_equal(w.path, "/a");
	assert_false(dirwalk_pop(&w, &j));
	for (int i = 0; i < 1000; i++)	/* (the stack grows) */
		assert_non_null(dirwalk_push(&w, &(struct tjob){ b, i }));
	for (int i = 999; i >= 0; i--) {
		assert_true(dirwalk_pop(&w, &j));
		assert_int_equal(j.tag, i);
	}
	dirwalk_free(&w);
}

/* A walk from /x/y: its paths begin there; "/" as the start is the root; a long path is cut. */
static void test_dirwalk_paths(void **state)
{
	struct dirwalk w;
	char name[301];
	size_t n = 0;

	(void)state;
	assert_int_equal(dirwalk_init(&w, sizeof(struct tjob), "/x/y"), 0);
	dirwalk_path(&w, 0);
	assert_string_equal(w.path, "/x/y");
	dirwalk_path(&w, dirwalk_add(&w, 0, "z"));
	assert_string_equal(w.path, "/x/y/z");
	dirwalk_free(&w);
	assert_int_equal(dirwalk_init(&w, sizeof(struct tjob), "/"), 0);
	dirwalk_path(&w, dirwalk_add(&w, 0, "z"));
	assert_string_equal(w.path, "/z");
	memset(name, 'n', 300);
	name[300] = '\0';
	for (int i = 0; i < 20; i++)	/* 20 * 301 bytes: past the 4096 of path */
		n = dirwalk_add(&w, n, name);
	dirwalk_path(&w, n);
	assert_true(strlen(w.path) < sizeof(w.path));
	assert_memory_equal(w.path, "./", 2);	/* cut at the front: the leaf stays */
	assert_memory_equal(w.path + strlen(w.path) - 300, name, 300);
	dirwalk_free(&w);
}

int unit_tree(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirwalk_order),
		cmocka_unit_test(test_dirwalk_paths),
		cmocka_unit_test(test_after_end_places),
		cmocka_unit_test(test_after_end_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
