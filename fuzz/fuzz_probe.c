// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_probe.c - harness: classification, every driver model and the
 * verdict, through the memory backend (driver in fuzz_main.c).
 */
#include "config.h"

#include "fatscope/fatscope.h"
#include "fuzz.h"

int FUZZ_ENTRY(probe)(const uint8_t *data, size_t len)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_verdict v[16];
	struct fsc_risk r[32];
	size_t n = fsc_driver_count();

	if (fsc_dev_open_mem(data, len, &dev) < 0)
		return 0;
	if (fsc_probe_volume(dev, &p) == 0) {
		for (size_t i = 0; i < n && i < 16; i++)
			fsc_driver_judge(p, fsc_driver_at(i), &v[i]);
		fsc_risks(p, v, n < 16 ? n : 16, r, 32);
		fuzz_render_findings(fsc_probe_findings(p));
		fsc_probe_free(p);
	}
	fsc_dev_close(dev);
	return 0;
}

