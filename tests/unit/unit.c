// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit.c - the unit tests, one program: each test_*.c file is a group, run
 * in turn, or only the groups named (tests/unit/unit plan problems).  It
 * links the library's objects (libfatscope-core), so that a test may call
 * an internal function.  One program rather than one a file: linking a
 * program through libtool costs about a second of CPU here, most of what
 * building the tests took.
 *
 * Exit status as the test harness reads it: 0 every test passed, 1 some
 * failed, 99 (a hard error) a group name that does not exist.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

static const struct {
	const char *name;
	int (*run)(void);
} groups[] = {
	{ "api", unit_api }, { "drivers", unit_drivers }, { "fault", unit_fault }, { "fields", unit_fields },
	{ "findings", unit_findings }, { "hash", unit_hash }, { "label", unit_label }, { "layout", unit_layout },
	{ "plan", unit_plan }, { "problems", unit_problems }, { "random", unit_random }, { "read", unit_read },
	{ "scan", unit_scan }, { "tree", unit_tree }, { "upcase", unit_upcase },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static int run_group(size_t i)
{
	int failed;

	printf("== test_%s.c\n", groups[i].name);
	fflush(stdout);
	failed = groups[i].run();
	fflush(stdout);
	if (failed)
		fprintf(stderr, "unit: %s: %d test%s failed\n", groups[i].name, failed, failed == 1 ? "" : "s");
	return failed;
}

int main(int argc, char **argv)
{
	int failed = 0;

	for (int a = 1; a < argc; a++) {
		size_t i = 0;

		while (i < NGROUPS && strcmp(argv[a], groups[i].name) != 0)
			i++;
		if (i == NGROUPS) {
			fprintf(stderr, "unit: no group %s (the groups:", argv[a]);
			for (i = 0; i < NGROUPS; i++)
				fprintf(stderr, " %s", groups[i].name);
			fprintf(stderr, ")\n");
			return 99;
		}
	}
	for (size_t i = 0; i < NGROUPS; i++) {
		bool named = argc == 1;

		for (int a = 1; a < argc && !named; a++)
			named = strcmp(argv[a], groups[i].name) == 0;
		if (named)
			failed += run_group(i) != 0;
	}
	return failed ? 1 : 0;
}
