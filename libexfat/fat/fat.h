/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fat/fat.h - FAT12/16/32 on-disk knowledge (fatgen103); not installed. */
#ifndef FSC_FAT_H
#define FSC_FAT_H

#include "report/report.h"
#include "layout/layout.h"
#include "fat/ondisk.h"

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

/* dirent.c: what a 32-byte directory entry is. */
enum fat_kind {
	FAT_E_END,		/* 0x00: no entry follows */
	FAT_E_LFN,		/* a long-name part in use */
	FAT_E_LFN_DELETED,	/* a long-name part of a deleted name */
	FAT_E_DELETED,		/* 0xE5: a deleted 8.3 entry */
	FAT_E_DOT,		/* . or .. */
	FAT_E_LABEL,		/* the volume label (ATTR_VOLUME_ID without ATTR_DIRECTORY) */
	FAT_E_FILE,		/* a file or directory in use */
};
enum fat_kind fat_entry_kind(const uint8_t *e);
/* A label entry's 11 bytes as text, non-printable bytes as '?', trailing spaces dropped. */
void fat_label_text(const uint8_t *e, char out[12]);
/* The checksum of an 8.3 name that its long-name parts carry. */
uint8_t fat_sfn_checksum(const uint8_t *name11);
/* An 8.3 name (raw, 11 bytes) as UTF-16 units "NAME.EXT" (the code page set, 850 by default), NT lower-case flags applied. */
unsigned fat_sfn_units(const uint8_t *raw, uint8_t nt_flags, uint16_t *u);

/* A long name being assembled from its parts (last part first). */
struct fat_lfn {
	uint16_t units[FAT_LFN_CAP_UNITS];	/* those from span on read as 0xFFFF */
	unsigned parts, span;
	uint8_t sum;
	bool deleted;
};
void fat_lfn_reset(struct fat_lfn *l);
void fat_lfn_add(struct fat_lfn *l, const uint8_t *e);
/*
 * The long name for the 8.3 entry raw (deleted or not), when the parts
 * collected belong to it: its length in units (*units points into l), or 0.
 */
unsigned fat_lfn_name(const struct fat_lfn *l, const uint8_t raw[11], bool deleted, const uint16_t **units);
/* A deleted entry's lost first byte, found through the parts' checksum: true and raw[0] set. */
bool fat_lost_first_byte(const struct fat_lfn *l, uint8_t raw[11]);
/* An entry's first cluster (the high word only on FAT32). */
uint32_t fat_entry_first(const uint8_t *e, unsigned fat_bits);
/*
 * Do the first two entries d[0..64) start the directory whose first
 * cluster is c (. names c, .. follows, both directories)?  *parent: what
 * .. names (0: the root).
 */
bool fat_dir_start(const uint8_t d[64], uint32_t c, unsigned fat_bits, uint32_t *parent);
/* layout.c */
/*
 * Fill l from the BPB b, on dev.  Returns 0, or -EINVAL with why filled
 * (a zero sector or cluster size, the data area beyond the volume).
 */
int fat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_fat_bpb *b, char *why, size_t whylen);

#endif
