/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * drivers/drivers.h - shared by the driver model files; not installed.
 *
 * Who calls whom (no file calls back into one that calls it):
 *   verdict.c -> drivers.c (the table) -> exfat.c, fat.c (the models)
 *   -> verdict_set.c (building a verdict).
 */
#ifndef FSC_DRIVERS_H
#define FSC_DRIVERS_H

#include "probe/probe.h"

/* A verdict and a risk, opaque to callers of the library (fatscope.h's accessors). */
struct fsc_verdict {
	const struct fsc_driver *drv;
	enum fsc_action action;
	enum fsc_type as;		/* FSC_TYPE_UNKNOWN when refused */
	int err;			/* errno user space sees, 0 if mounted */
	char why[256];
	char effect[160];		/* what the driver does to the volume, or "" */
	char warning[160];		/* what it warns about at mount, or "" */
};

struct fsc_risk {
	const struct fsc_driver *drv;
	enum fsc_risk_kind kind;
	char why[320];
};

/* drivers.c: apply one model to a probed volume, into v. */
void drivers_judge(const struct fsc_probe *p, const struct fsc_driver *drv, struct fsc_verdict *v);
/* verdict.c: every risk the nv verdicts v carry (all judged on p); at most max into out; how many in all. */
size_t drivers_risks(const struct fsc_probe *p, const struct fsc_verdict *v, size_t nv, struct fsc_risk *out,
		     size_t max);

/* verdict_set.c: building a verdict, for the models and the risk text. */
void verdict_set(struct fsc_verdict *v, enum fsc_action a, enum fsc_type as, int err,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append "; text" to a note field (why, effect, warning). */
void verdict_note(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "an exFAT boot sector", "an MBR partition table", ... */
const char *drv_vol_name(const struct fsc_probe *p);

/*
 * A model: judge the probed volume p into v (zeroed, v->drv set).
 * variant tells apart the configurations one model function covers.
 */
typedef void drv_judge_fn(const struct fsc_probe *p, struct fsc_verdict *v, int variant);

/* exfat.c: the exFAT-family models. */
enum staging_variant {
	STAGING_FAT_PATH,	/* EXFAT_DONT_MOUNT_VFAT=n: FAT sectors go to its FAT code */
	STAGING_NO_VFAT,	/* EXFAT_DONT_MOUNT_VFAT=y (5.4 default) */
	STAGING_NO_FAT,		/* 5.5-5.6: FAT support removed */
};
drv_judge_fn judge_staging;
drv_judge_fn judge_exfat57;
drv_judge_fn judge_exfat;
drv_judge_fn judge_fuse;

/* fat.c: fs/fat and libblkid. */
enum blkid_variant { BLKID_2_38, BLKID_MODERN };
drv_judge_fn judge_vfat;
drv_judge_fn judge_blkid;

#endif
