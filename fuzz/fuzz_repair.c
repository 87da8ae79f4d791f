// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_repair.c - harness: fsc_plan_repair (every fix, lost clusters
 * saved) on whatever the probe takes for exFAT, the plan applied to a copy
 * of the input through the memory backend, then the copy probed, checked
 * and planned again (driver in fuzz_main.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fatscope/fatscope.h"
#include "fuzz.h"

/* Plan every repair of buf; apply it when apply is set.  The plan's size. */
static size_t repair(uint8_t *buf, size_t len, bool apply)
{
	struct fsc_repair_opts ro = { .size = sizeof(struct fsc_repair_opts), .level = FSC_REPAIR_ALL, .now = 1700000000 };
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings *fs = fsc_findings_new();
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;
	struct fsc_probe *p;
	size_t n = 0;

	if (!plan || !fs || fsc_dev_open_mem_rw(buf, len, &dev) < 0) {
		fsc_plan_free(plan);
		fsc_findings_free(fs);
		return 0;
	}
	if (fsc_probe_volume(dev, &p) == 0) {
		if (fsc_plan_repair(dev, p, NULL, &ro, fs, &sum, plan) == 0) {
			n = fsc_plan_count(plan);
			if (apply)
				fsc_plan_apply(dev, plan, NULL);
		}
		fuzz_render_findings(fs);
		fsc_probe_free(p);
	}
	fsc_findings_free(fs);
	fsc_dev_close(dev);
	fsc_plan_free(plan);
	return n;
}

int FUZZ_ENTRY(repair)(const uint8_t *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, len);
	if (repair(copy, len, true))
		repair(copy, len, false);	/* the repaired volume, read again */
	free(copy);
	return 0;
}
