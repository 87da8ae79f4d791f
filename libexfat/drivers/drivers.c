// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * drivers/drivers.c - the driver table: each model's public description
 * (struct fsc_driver, stable ID first) with the function that judges it
 * and the variant that function is given.  Judging is a look-up of the
 * table row and a call; adding a model is adding a row.  The models live
 * in exfat.c (staging, fs/exfat, exfat-fuse) and fat.c (fs/fat,
 * libblkid).  Rules and citations: shared/mount-rules.md.
 *
 * Consumes: a probed volume and a driver of this table.  Produces: a
 * verdict.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "drivers/drivers.h"

/* A row: the public part first; fsc_driver_at hands out &pub. */
struct drv_model {
	struct fsc_driver pub;
	drv_judge_fn *judge;
	int variant;
};

static const struct drv_model models[] = {
	{ { "staging-5.4-vfat", "staging exFAT driver with EXFAT_DONT_MOUNT_VFAT=n (FAT path active)",
	    "Linux 5.4 (non-default config; also the first staging commit)",
	    "c48c9f7ff32b, 58985a9d2d03", FSC_FAM_EXFAT, false, true },
	  judge_staging, STAGING_FAT_PATH },
	{ { "staging-5.4", "staging exFAT driver, default EXFAT_DONT_MOUNT_VFAT=y",
	    "Linux 5.4", "58985a9d2d03 (drivers/staging/exfat)", FSC_FAM_EXFAT, false, false },
	  judge_staging, STAGING_NO_VFAT },
	{ { "staging-5.5", "staging exFAT driver with FAT support removed",
	    "Linux 5.5-5.6", "\"Remove FAT/VFAT mount support\" parts 1-4; 1a3c0509ce83",
	    FSC_FAM_EXFAT, false, false },
	  judge_staging, STAGING_NO_FAT },
	{ { "linux-exfat-5.7", "fs/exfat as first merged (no name or checksum check)",
	    "Linux 5.7", "719c1e182916", FSC_FAM_EXFAT, false, false },
	  judge_exfat57, 0 },
	{ { "linux-exfat", "fs/exfat with boot region verification",
	    "Linux 5.8 and later", "476189c0ef3b, 33404a159828, 99f9a97dce39, 79c1587b6cda",
	    FSC_FAM_EXFAT, true, false },
	  judge_exfat, 0 },
	{ { "linux-vfat", "fs/fat (vfat and msdos)", "Linux 4.16 and later",
	    "fs/fat/inode.c fat_fill_super", FSC_FAM_FAT, true, false },
	  judge_vfat, 0 },
	{ { "exfat-fuse", "relan/exfat FUSE driver", "exfat-fuse 1.3-1.4",
	    "relan/exfat 8cffe412 libexfat/mount.c, node.c", FSC_FAM_EXFAT, true, false },
	  judge_fuse, 0 },
	{ { "blkid-2.38", "libblkid type detection (what udev and mount(8) pick)",
	    "util-linux up to 2.38 (Debian 12)", "v2.38.1 superblocks/exfat.c, vfat.c, ntfs.c",
	    FSC_FAM_BLKID, true, false },
	  judge_blkid, BLKID_2_38 },
	{ { "blkid", "libblkid type detection with exFAT boot checks",
	    "util-linux 2.39 and later", "81bbdd0b3, 1a73b23e3, 1bdfbe9a7", FSC_FAM_BLKID, true, false },
	  judge_blkid, BLKID_MODERN },
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

FSC_EXPORT size_t fsc_driver_count(void)
{
	return NMODELS;
}

FSC_EXPORT const struct fsc_driver *fsc_driver_at(size_t i)
{
	return i < NMODELS ? &models[i].pub : NULL;
}

FSC_EXPORT int fsc_driver_lookup(const char *id)
{
	for (size_t i = 0; i < NMODELS; i++)
		if (strcmp(models[i].pub.id, id) == 0)
			return (int)i;
	return -1;
}

/*
 * The row of drv: the one fsc_driver_at handed out, or for a copy the
 * row of the same ID; NULL for a driver this table does not hold.
 */
static const struct drv_model *model_of(const struct fsc_driver *drv)
{
	int i;

	for (size_t k = 0; k < NMODELS; k++)
		if (&models[k].pub == drv)
			return &models[k];
	i = drv && drv->id ? fsc_driver_lookup(drv->id) : -1;
	return i < 0 ? NULL : &models[i];
}

void drivers_judge(const struct fsc_probe *p, const struct fsc_driver *drv, struct fsc_verdict *v)
{
	const struct drv_model *m = model_of(drv);

	memset(v, 0, sizeof(*v));
	v->drv = drv;
	if (!m) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "no such driver model");
		return;
	}
	m->judge(p, v, m->variant);
}
