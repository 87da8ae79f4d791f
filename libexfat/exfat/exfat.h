/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exfat/exfat.h - exFAT on-disk knowledge (EXSPEC); not installed. */
#ifndef FSC_EXFAT_H
#define FSC_EXFAT_H

#include "report/report.h"

/* boot.c */
void exfat_boot_decode(const uint8_t *s, struct fsc_exfat_boot *ex);
bool exfat_lookalike(const uint8_t *s);

#endif
