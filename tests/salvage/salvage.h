/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * salvage.h - the random-damage salvage test (salvage.c) and its damage
 * generator (damage.c).
 */
#ifndef SALVAGE_H
#define SALVAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fatscope/fatscope.h"

struct region {
	uint64_t off, len;
};

/* Where the metadata of an undamaged volume lies: what damage.c may hit. */
struct layout {
	enum fsc_type type;
	uint32_t sector, csize, clusters;
	uint64_t data_off;
	uint64_t fat_off, fat_len;	/* the first FAT */
	unsigned fat_bits, nfats;
	struct region *dirs;		/* directory clusters and the FAT12/16 root area */
	size_t ndirs;
	uint64_t *slots;		/* byte offsets of the entries in use */
	size_t nslots;
	struct region bitmap, upcase;	/* exFAT */
	uint8_t *used;			/* a byte a cluster: in use on the undamaged volume */
};

enum damage_kind {
	DMG_ENTRY_FLIP, DMG_ENTRY_GARBAGE, DMG_SECTOR_ZERO, DMG_SECTOR_RANDOM, DMG_FAT_FLIP, DMG_BITMAP_FLIP,
	DMG_UPCASE_FLIP, DMG_TORN, DMG_BOOT_FLIP, DMG_MULTI, DMG_COUNT
};

void layout_read(struct layout *lay, struct fsc_dev *dev, const struct fsc_probe *p, const uint8_t *img, size_t len,
		 struct region **dirs, size_t ndirs);
void layout_free(struct layout *lay);
/* Is cluster c allocated in img (an image of the volume lay describes): its bitmap bit, its FAT entry? */
bool layout_allocated(const struct layout *lay, const uint8_t *img, uint32_t c);
const char *damage_name(unsigned kind);
int damage_lookup(const char *name);
/* Can this kind hit this volume (exFAT-only structures, a boot backup, a cluster of two sectors)? */
bool damage_fits(const struct layout *lay, unsigned kind);
/* Damage img as kind says, from seed; what was done into desc. */
void damage_apply(const struct layout *lay, uint8_t *img, size_t len, unsigned kind, uint64_t seed, char *desc,
		  size_t desclen);

/* ---- files.c ---- */

/* Two independent 64-bit lanes over the bytes: equal contents, equal pair. */
struct hash2 {
	uint64_t a, b;
};

struct file {
	char *path;
	uint64_t size;
	struct hash2 h;
	bool readable;		/* read in full */
	bool used;		/* matched already */
	bool in_found;		/* below a FOUND.nnn directory */
};

struct files {
	struct file *v;
	size_t n, cap;
	/* directory regions, gathered on the undamaged image */
	struct region *dirs;
	size_t ndirs, capdirs;
	struct region *data;		/* with want_dirs: the files' clusters (each exclusively a file's) */
	size_t ndata, capdata;
	bool want_dirs;
	struct fsc_dev *dev;
	const struct fsc_probe *p;
	struct fsc_reader *r;
	uint8_t *buf;
};

void hash_feed(struct hash2 *h, const uint8_t *p, size_t n);
void files_free(struct files *fl);
/* The live files of the volume in buf, each read in full; with want_dirs the directory clusters too. */
bool files_read(const uint8_t *buf, size_t len, bool want_dirs, struct files *fl);
/* By size, then hash. */
int files_cmp_hash(const void *x, const void *y);
/*
 * The files of dmg read in full whose bytes equal a file of the original
 * (orig sorted by hash), but those at the path of an original file with
 * other bytes (they read another file's).
 */
void sound_files(const struct files *orig_sorted, const struct files *dmg, struct files *sound);
/* The sound files a repaired volume lost; their paths printed after report (may be NULL). */
size_t count_lost(struct files *sound, struct files *after, const uint8_t *img, size_t len, const char *report);

void regions_add(struct region **v, size_t *n, size_t *cap, uint64_t off, uint64_t len);
uint64_t sv_mix(uint64_t x);
uint64_t sv_rand(uint64_t *state);
uint64_t sv_below(uint64_t *state, uint64_t n);
void *xmalloc(size_t n);
char *xstrdup(const char *s);

#endif
