/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exfat/exfat.h - exFAT on-disk knowledge (EXSPEC); not installed. */
#ifndef FSC_EXFAT_H
#define FSC_EXFAT_H

#include "report/report.h"
#include "layout/layout.h"

/* boot.c */
void exfat_boot_decode(const uint8_t *s, struct fsc_exfat_boot *ex);
bool exfat_lookalike(const uint8_t *s);

/* layout.c */
/*
 * Fill l from the boot sector read with 2^shift-byte sectors, on dev.
 * Returns 0, or -EINVAL with why filled (a sector or cluster size out of
 * range).  ClusterCount is taken as it is; l->held counts the clusters
 * the device holds.
 */
int exfat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_exfat_boot *ex, unsigned shift,
		 char *why, size_t whylen);

#endif
