// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_findings.c - the findings list when it cannot grow.  finding_add
 * then returns NULL and counts the finding as dropped, leaves the list's
 * storage untouched, and every setter takes the NULL without writing
 * anywhere (the library once handed out a shared static finding instead,
 * written through by every caller).  A list that grows normally keeps
 * every finding in order.
 *
 * finding_add is internal, so this test is built from report/problems.c
 * (see tests/Makemodule.am).  Growth is made to fail without touching
 * malloc: a list that claims to be as large as memory can hold cannot
 * double, which takes the same path as realloc returning NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "report/report.h"

static void test_growth_keeps_every_finding(void **state)
{
	struct fsc_findings fs = { 0 };
	char want[32];

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		struct fsc_finding *f = finding_add(&fs, (enum fsc_problem)(i % FSC_PR_COUNT),
						    FSC_LOC_CLUSTER, 1000 + i, "Field");

		assert_non_null(f);
		finding_actual(f, "a%u", i);
		finding_expected(f, "e%u", i);
		finding_detail(f, "d%u", i);
		finding_path(f, "/dir/file");
	}
	assert_int_equal(fs.n, 100);
	assert_true(fs.cap >= 100);
	assert_int_equal(fs.dropped, 0);
	for (unsigned i = 0; i < 100; i++) {
		const struct fsc_finding *f = &fs.v[i];

		assert_int_equal(f->id, i % FSC_PR_COUNT);
		assert_int_equal(f->loc, 1000 + i);
		assert_string_equal(f->field, "Field");
		snprintf(want, sizeof(want), "a%u", i);
		assert_string_equal(f->actual, want);
		snprintf(want, sizeof(want), "d%u", i);
		assert_string_equal(f->detail, want);
		assert_string_equal(f->path, "/dir/file");
	}
	finding_list_clear(&fs);
	assert_null(fs.v);
	assert_int_equal(fs.n + fs.cap + fs.dropped, 0);
}

/* A full list of cap entries, claimed over a small real array. */
static void growth_fails(size_t cap)
{
	struct fsc_finding slots[4], before[4];
	struct fsc_findings fs = { slots, cap, cap, 0 };
	struct fsc_finding *f;

	memset(slots, 0x5A, sizeof(slots));
	memcpy(before, slots, sizeof(slots));
	for (unsigned i = 1; i <= 3; i++) {
		f = finding_add(&fs, FSC_PR_EXFAT_BOOT_CHECKSUM, FSC_LOC_SECTOR, 11, "BootChecksum");
		assert_null(f);
		/* What callers do with the result: nothing may be written. */
		finding_actual(f, "0x%08x", 0x12345678u);
		finding_expected(f, "0x%08x", 0u);
		finding_detail(f, "%s", "dropped");
		finding_path(f, "/lost");
		assert_int_equal(fs.dropped, i);
		assert_ptr_equal(fs.v, slots);
		assert_int_equal(fs.n, cap);
		assert_int_equal(fs.cap, cap);
	}
	assert_memory_equal(slots, before, sizeof(slots));
	/* A list that lost findings is not a clean one (keep only the count). */
	fs.v = NULL;
	fs.n = fs.cap = 0;
	assert_int_equal(fsc_findings_worst(&fs), FSC_SEV_ERROR);
}

static void test_growth_fails(void **state)
{
	(void)state;
	/* Doubling would need more bytes than a size_t counts. */
	growth_fails(SIZE_MAX / sizeof(struct fsc_finding) / 2 + 1);
	/* Doubling the count itself wraps around. */
	growth_fails(SIZE_MAX / 2 + 1);
}

static void test_dropped_only(void **state)
{
	struct fsc_findings fs = { 0 };

	(void)state;
	assert_int_equal(fsc_findings_worst(&fs), -1);
	fs.dropped = 1;
	assert_int_equal(fsc_findings_worst(&fs), FSC_SEV_ERROR);
	finding_list_clear(&fs);
	assert_int_equal(fs.dropped, 0);
	assert_int_equal(fsc_findings_worst(&fs), -1);
}

int unit_findings(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth_keeps_every_finding),
		cmocka_unit_test(test_growth_fails),
		cmocka_unit_test(test_dropped_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
