/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fat/fat.h - FAT12/16/32 on-disk knowledge (fatgen103); not installed. */
#ifndef FSC_FAT_H
#define FSC_FAT_H

#include "report/report.h"
#include "layout/layout.h"

/* bpb.c */
bool fat_bpb_plausible(const uint8_t *s);
void fat_bpb_decode(const uint8_t *s, struct fsc_fat_bpb *b);
/* n bytes of on-disk text, non-printable bytes as '?', NUL-terminated (dst holds n + 1). */
void fat_text(char *dst, const uint8_t *src, size_t n);
/* Drop trailing spaces. */
void fat_text_trim(char *s);

/* layout.c */
/*
 * Fill l from the BPB b, on dev.  Returns 0, or -EINVAL with why filled
 * (a zero sector or cluster size, the data area beyond the volume).
 */
int fat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_fat_bpb *b, char *why, size_t whylen);

#endif
