/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsck_progress.h - fsck's progress reporting (fsck_progress.c). */
#ifndef FSC_FSCK_PROGRESS_H
#define FSC_FSCK_PROGRESS_H

#include <stdint.h>

enum progress_mode { PROGRESS_OFF, PROGRESS_FD, PROGRESS_BAR };

struct progress {
	enum progress_mode mode;
	int fd;
	const char *device;
	int last, last_pass;
};

/* An fsc_progress_fn: ctx is a struct progress. */
void progress_update(void *ctx, int pass, int npasses, uint64_t done, uint64_t total);
/* Erase the bar, if one was drawn. */
void progress_done(struct progress *pr);

#endif
