// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_random.c - false positives: one million seeded pseudo-random
 * 512-byte sectors; none may be classified as exFAT or FAT.  The count of
 * each class is printed.  FSC_RANDOM_SECTORS overrides the count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "fatscope/fatscope.h"


static void test_random_sectors(void **state)
{
	unsigned long n = 1000000, counts[FSC_TYPE_COUNT] = { 0 };
	const char *env = getenv("FSC_RANDOM_SECTORS");
	uint8_t sec[512];

	(void)state;
	if (env)
		n = strtoul(env, NULL, 10);
	for (unsigned long i = 0; i < n; i++) {
		struct fsc_dev *dev;
		struct fsc_probe *p;

		for (int k = 0; k < 512; k += 8) {
			uint64_t v = test_rand();

			for (int b = 0; b < 8; b++)
				sec[k + b] = (uint8_t)(v >> (8 * b));
		}
		assert_int_equal(fsc_dev_open_mem(sec, sizeof(sec), &dev), 0);
		assert_int_equal(fsc_probe_volume(dev, &p), 0);
		counts[fsc_probe_type(p)]++;
		fsc_probe_free(p);
		fsc_dev_close(dev);
	}
	print_message("%lu random sectors:", n);
	for (int t = 0; t < FSC_TYPE_COUNT; t++)
		if (counts[t])
			print_message(" %s %lu", fsc_type_name((enum fsc_type)t), counts[t]);
	print_message("\n");
	assert_int_equal(counts[FSC_TYPE_EXFAT] + counts[FSC_TYPE_FAT12] + counts[FSC_TYPE_FAT16] +
			 counts[FSC_TYPE_FAT32], 0);
}

int unit_random(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_random_sectors) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
