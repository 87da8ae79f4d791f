/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* drivers.h - shared by the driver model files; not installed. */
#ifndef FSC_DRIVERS_H
#define FSC_DRIVERS_H

#include "probe/probe.h"

void verdict_set(struct fsc_verdict *v, enum fsc_action a, enum fsc_type as, int err,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append "; text" to a note field (why, effect, warning). */
void verdict_note(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *drv_vol_name(const struct fsc_probe *p);

void judge_vfat(const struct fsc_probe *p, struct fsc_verdict *v);
void judge_blkid(const struct fsc_probe *p, struct fsc_verdict *v, bool modern);

#endif
