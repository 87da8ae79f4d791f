// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_label.c - harness: label, serial and GUID changes planned and
 * applied on an in-memory copy of the input, then the copy probed and
 * (exFAT) checked again (driver in fuzz_main.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fatscope/fatscope.h"
#include "fuzz.h"

int FUZZ_ENTRY(label)(const uint8_t *data, size_t len)
{
	static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	uint8_t *copy;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	char err[200];

	if (len > (64u << 20) || !(copy = malloc(len ? len : 1)))
		return 0;
	memcpy(copy, data, len);
	if (fsc_dev_open_mem_rw(copy, len, &dev) < 0) {
		free(copy);
		return 0;
	}
	plan = fsc_plan_new();
	if (plan && fsc_probe_volume(dev, &p) == 0) {
		int r = fsc_plan_label(dev, p, len & 1 ? "FUZZ LABEL" : "", 1577934245, plan, err, sizeof(err));

		if (r == 0)
			r = fsc_plan_serial(dev, p, 0x12345678, plan, err, sizeof(err));
		if (r == 0 && fsc_probe_type(p) == FSC_TYPE_EXFAT)
			r = fsc_plan_guid(dev, p, guid, plan, err, sizeof(err));
		if (r == 0)
			fsc_plan_apply(dev, plan, NULL);
		fsc_probe_free(p);
		if (fsc_probe_volume(dev, &p) == 0) {
			struct fsc_findings *fs = fsc_findings_new();

			if (fs && fsc_probe_type(p) == FSC_TYPE_EXFAT)
				fsc_check(dev, p, NULL, fs, &sum);
			fsc_findings_free(fs);
			fsc_probe_free(p);
		}
	}
	fsc_plan_free(plan);
	fsc_dev_close(dev);
	free(copy);
	return 0;
}
