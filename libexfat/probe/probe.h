/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* probe/probe.h - classification and the probe's checks of boot sectors and roots; not installed. */
#ifndef FSC_PROBE_H
#define FSC_PROBE_H

#include "exfat/exfat.h"
#include "fat/fat.h"

/* exfat_boot.c -> exfat_root.c */
void exfat_boot_check(struct fsc_dev *dev, struct fsc_probe *p);
void exfat_root_scan(struct fsc_dev *dev, const struct fsc_exfat_boot *ex,
		     unsigned sector_shift, struct fsc_exfat_root *r);
void exfat_root_findings(struct fsc_probe *p);

/* fat_bpb.c */
void fat_bpb_check(struct fsc_dev *dev, struct fsc_probe *p);

#endif
