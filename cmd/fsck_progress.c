// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck_progress.c - progress for fatscope fsck: fsck(8)'s protocol on a
 * descriptor ("PASS DONE TOTAL DEVICE" lines, as e2fsck -C FD writes
 * them), or a bar on stderr when that is a terminal.  Never stdout.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsck_progress.h"

static void bar(struct progress *pr, int pass, int npasses, uint64_t done, uint64_t total)
{
	/* Overall fraction: passes 1, 2 and 4 are short, pass 3 (the tree) is the work. */
	static const double start[] = { 0, 0, 0.02, 0.10, 0.98 }, span[] = { 0, 0.02, 0.08, 0.88, 0.02 };
	double frac = pass >= 1 && pass <= 4 ? start[pass] + span[pass] * (total ? (double)done / (double)total : 1) : 1;
	int permille = (int)(frac * 1000), width = 40, fill = (int)(frac * width);
	char line[64];

	if (permille == pr->last)
		return;
	pr->last = permille;
	memset(line, '=', (size_t)fill);
	memset(line + fill, ' ', (size_t)(width - fill));
	line[width] = '\0';
	fprintf(stderr, "\r%s: |%s| %5.1f%%", pr->device, line, frac * 100);
	(void)npasses;
}

void progress_update(void *ctx, int pass, int npasses, uint64_t done, uint64_t total)
{
	struct progress *pr = ctx;
	char buf[4200];
	int n, permille;

	if (pr->mode == PROGRESS_BAR) {
		bar(pr, pass, npasses, done, total);
		return;
	}
	/* fsck(8) protocol: throttle to one line per pass-permille. */
	permille = total ? (int)(done * 1000 / total) : 1000;
	if (pass == pr->last_pass && permille == pr->last)
		return;
	pr->last_pass = pass;
	pr->last = permille;
	n = snprintf(buf, sizeof(buf), "%d %llu %llu %s\n", pass, (unsigned long long)done,
		     (unsigned long long)(total ? total : 1), pr->device);
	if (n > 0 && write(pr->fd, buf, (size_t)n) < 0)
		pr->mode = PROGRESS_OFF;	/* the reader went away: stop quietly */
}

void progress_done(struct progress *pr)
{
	if (pr->mode == PROGRESS_BAR && pr->last >= 0)
		fprintf(stderr, "\r%*s\r", (int)strlen(pr->device) + 52, "");
}
