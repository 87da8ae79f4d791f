// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_probe.c - harness: classification, every driver model and the
 * verdict, through the memory backend (driver in fuzz_main.c).
 */
#include "config.h"

#include "fatscope/fatscope.h"
#include <string.h>

#include "fuzz.h"

int FUZZ_ENTRY(probe)(const uint8_t *data, size_t len)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_judgement *j;

	if (fsc_dev_open_mem(data, len, &dev) < 0)
		return 0;
	if (fsc_probe_volume(dev, &p) == 0) {
		j = fsc_judge(p, NULL);
		for (size_t i = 0; j && i < fsc_judgement_risks(j); i++)
			(void)strlen(fsc_risk_why(fsc_judgement_risk(j, i)));
		fsc_judgement_free(j);
		fuzz_render_findings(fsc_probe_findings(p));
		fsc_probe_free(p);
	}
	fsc_dev_close(dev);
	return 0;
}

