/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fat/fat.h - FAT12/16/32 on-disk knowledge (fatgen103); not installed. */
#ifndef FSC_FAT_H
#define FSC_FAT_H

#include "report/report.h"

/* The FSInfo sector (fatgen103 section 5), as decoded. */
struct fat_fsinfo {
	uint32_t lead_sig, struc_sig;	/* 0x41615252, 0x61417272 */
	uint32_t free_count, next_free;	/* 0xFFFFFFFF: unknown */
	uint32_t trail_sig;		/* 0xAA550000 */
};

/* bpb.c */
bool fat_bpb_plausible(const uint8_t *s);
/* Sector 0 into b (zeroed first); BPB_BytsPerSec must not be 0. */
void fat_bpb_decode(const uint8_t *s, struct fsc_fat_bpb *b);
/* A 512-byte FSInfo sector into fi. */
void fat_fsinfo_decode(const uint8_t *s, struct fat_fsinfo *fi);
/* n bytes of on-disk text, non-printable bytes as '?', NUL-terminated (dst holds n + 1). */
void fat_text(char *dst, const uint8_t *src, size_t n);
/* Drop trailing spaces. */
void fat_text_trim(char *s);

#endif
