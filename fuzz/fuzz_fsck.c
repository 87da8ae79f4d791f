// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_fsck.c - harness: the exFAT model, the tree walk and every check
 * pass (fsc_check) on whatever the probe takes for exFAT, findings
 * rendered; through the memory backend (driver in fuzz_main.c).
 */
#include "config.h"

#include "fatscope/fatscope.h"
#include "fuzz.h"

int FUZZ_ENTRY(fsck)(const uint8_t *data, size_t len)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings *fs = fsc_findings_new();

	if (!fs || fsc_dev_open_mem(data, len, &dev) < 0) {
		fsc_findings_free(fs);
		return 0;
	}
	if (fsc_probe_volume(dev, &p) == 0) {
		fsc_check(dev, p, NULL, fs, &sum);	/* not exFAT: the probe's findings only */
		fuzz_render_findings(fs);
		fsc_probe_free(p);
	}
	fsc_findings_free(fs);
	fsc_dev_close(dev);
	return 0;
}
