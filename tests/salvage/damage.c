// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damage.c - seeded random damage of an exFAT or FAT volume in memory,
 * for the salvage test (salvage.c).
 *
 * Consumes: the undamaged volume's layout (layout_read: its directory
 * clusters, found by the library's walk; the FAT; exFAT's bitmap and
 * up-case table, from the root's entries; which clusters are in use) and
 * a seed.  Produces: the same bytes with damage of one kind, or two to
 * four at once (DMG_MULTI), and a line saying what was hit.  Independent
 * of the library's checker on purpose: it reads entry types and FAT
 * entries by their specification (EXSPEC 6, 7; fatgen103) only to choose
 * where to hit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salvage.h"

static const char *const names[DMG_COUNT] = {
	"entry-flip", "entry-garbage", "sector-zero", "sector-random", "fat-flip", "bitmap-flip",
	"upcase-flip", "torn-write", "boot-flip", "multi",
};

const char *damage_name(unsigned kind)
{
	return kind < DMG_COUNT ? names[kind] : "?";
}

int damage_lookup(const char *name)
{
	for (unsigned k = 0; k < DMG_COUNT; k++)
		if (!strcmp(name, names[k]))
			return (int)k;
	return -1;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool slot_in_use(enum fsc_type t, const uint8_t *e)
{
	return t == FSC_TYPE_EXFAT ? (e[0] & 0x80) != 0 : e[0] != 0 && e[0] != 0xE5;
}

/* exFAT: the bitmap (0x81) and up-case (0x82) entries of the root's first cluster. */
static void exfat_structures(struct layout *lay, const uint8_t *img, size_t len)
{
	const struct region *root = lay->ndirs ? &lay->dirs[0] : NULL;

	for (uint64_t o = 0; root && o + 32 <= root->len && root->off + o + 32 <= len; o += 32) {
		const uint8_t *e = img + root->off + o;
		struct region r = { lay->data_off + (uint64_t)(le32(e + 20) - 2) * lay->csize, le64(e + 24) };

		if (le32(e + 20) < 2 || r.off + r.len > len)
			continue;
		if (e[0] == 0x81 && !lay->bitmap.len)
			lay->bitmap = r;
		else if (e[0] == 0x82 && !lay->upcase.len)
			lay->upcase = r;
	}
}

bool layout_allocated(const struct layout *lay, const uint8_t *img, uint32_t c)
{
	if (c < 2 || c >= lay->clusters + 2u)
		return false;
	if (lay->type == FSC_TYPE_EXFAT) {
		uint64_t bit = c - 2;

		return bit / 8 < lay->bitmap.len && (img[lay->bitmap.off + bit / 8] >> (bit % 8) & 1);
	} else {
		uint64_t pos = (uint64_t)c * lay->fat_bits;
		uint32_t v = le32(img + lay->fat_off + pos / 8) >> (pos % 8);

		v &= lay->fat_bits == 32 ? 0x0FFFFFFF : (1u << lay->fat_bits) - 1;
		return v != 0;
	}
}

/* Which clusters are in use: exFAT's bitmap, FAT's entries. */
static void used_clusters(struct layout *lay, const uint8_t *img)
{
	lay->used = xmalloc(lay->clusters + 2u);
	memset(lay->used, 0, lay->clusters + 2u);
	for (uint32_t c = 2; c < lay->clusters + 2; c++)
		lay->used[c] = layout_allocated(lay, img, c);
}

void layout_read(struct layout *lay, struct fsc_dev *dev, const struct fsc_probe *p, const uint8_t *img, size_t len,
		 struct region **dirs, size_t ndirs)
{
	struct fsc_geometry g = FSC_GEOMETRY_INIT;
	size_t cap = 0;

	memset(lay, 0, sizeof(*lay));
	lay->type = fsc_probe_type(p);
	if (fsc_volume_geometry(dev, p, &g) < 0)
		return;
	lay->sector = g.sector_size;
	lay->csize = g.cluster_size;
	lay->clusters = g.clusters_on_device;
	lay->data_off = g.data_offset;
	lay->fat_off = g.fat_offset;
	lay->fat_bits = g.fat_bits;
	if (lay->type == FSC_TYPE_EXFAT) {
		const struct fsc_exfat_boot *b = fsc_probe_exfat(p);

		lay->fat_len = (uint64_t)b->fat_length << b->sector_shift;
		lay->nfats = b->num_fats;
	} else {
		const struct fsc_fat_bpb *b = fsc_probe_fat(p);

		lay->fat_len = (uint64_t)b->fat_size * b->bytes_per_sector;
		lay->nfats = b->num_fats;
	}
	lay->dirs = *dirs;
	lay->ndirs = ndirs;
	*dirs = NULL;
	for (size_t i = 0; i < lay->ndirs; i++) {
		const struct region *r = &lay->dirs[i];

		for (uint64_t o = 0; o + 32 <= r->len && r->off + o + 32 <= len; o += 32) {
			if (!slot_in_use(lay->type, img + r->off + o))
				continue;
			if (lay->nslots == cap) {
				cap = cap ? 2 * cap : 256;
				lay->slots = realloc(lay->slots, cap * sizeof(*lay->slots));
				if (!lay->slots)
					exit(99);
			}
			lay->slots[lay->nslots++] = r->off + o;
		}
	}
	if (lay->type == FSC_TYPE_EXFAT)
		exfat_structures(lay, img, len);
	used_clusters(lay, img);
}

void layout_free(struct layout *lay)
{
	free(lay->dirs);
	free(lay->slots);
	free(lay->used);
	memset(lay, 0, sizeof(*lay));
}

static bool has_torn_target(const struct layout *lay)
{
	for (size_t i = 0; i < lay->ndirs; i++)
		if (lay->dirs[i].len >= 2ull * lay->sector)
			return true;
	return false;
}

bool damage_fits(const struct layout *lay, unsigned kind)
{
	switch (kind) {
	case DMG_ENTRY_FLIP:
	case DMG_ENTRY_GARBAGE:
		return lay->nslots > 0;
	case DMG_SECTOR_ZERO:
	case DMG_SECTOR_RANDOM:
		return lay->ndirs > 0;
	case DMG_FAT_FLIP:
		return lay->fat_len > 0 && lay->clusters > 0;
	case DMG_BITMAP_FLIP:
		return lay->bitmap.len > 0;
	case DMG_UPCASE_FLIP:
		return lay->upcase.len > 0;
	case DMG_TORN:
		return has_torn_target(lay);
	case DMG_BOOT_FLIP:
		return lay->type == FSC_TYPE_EXFAT || lay->type == FSC_TYPE_FAT32;
	case DMG_MULTI:
		return lay->nslots > 0;
	}
	return false;
}

static void flip(uint8_t *img, uint64_t byte, unsigned bit)
{
	img[byte] ^= (uint8_t)(1u << (bit & 7));
}

/* Append to desc. */
__attribute__((format(printf, 3, 4))) static void say(char *desc, size_t len, const char *fmt, ...)
{
	size_t n = strlen(desc);
	va_list ap;

	if (n + 2 < len) {
		if (n)
			desc[n++] = ';', desc[n++] = ' ';
		va_start(ap, fmt);
		vsnprintf(desc + n, len - n, fmt, ap);
		va_end(ap);
	}
}

static void entry_flip(const struct layout *lay, uint8_t *img, uint64_t *st, char *desc, size_t dl)
{
	uint64_t off = lay->slots[sv_below(st, lay->nslots)];
	unsigned n = 1 + (unsigned)sv_below(st, 3);

	for (unsigned i = 0; i < n; i++) {
		unsigned bit = (unsigned)sv_below(st, 256);

		flip(img, off + bit / 8, bit);
	}
	say(desc, dl, "%u bits flipped in the entry at byte %llu", n, (unsigned long long)off);
}

static void entry_garbage(const struct layout *lay, uint8_t *img, uint64_t *st, char *desc, size_t dl)
{
	uint64_t off = lay->slots[sv_below(st, lay->nslots)];

	for (unsigned i = 0; i < 32; i++)
		img[off + i] = (uint8_t)sv_rand(st);
	say(desc, dl, "random bytes over the entry at byte %llu", (unsigned long long)off);
}

/* A sector of a directory: its byte offset. */
static uint64_t dir_sector(const struct layout *lay, uint64_t *st)
{
	const struct region *r = &lay->dirs[sv_below(st, lay->ndirs)];
	uint64_t nsec = r->len / lay->sector;

	return r->off + (nsec ? sv_below(st, nsec) : 0) * lay->sector;
}

static void sector_fill(const struct layout *lay, uint8_t *img, uint64_t *st, bool random, char *desc, size_t dl)
{
	uint64_t off = dir_sector(lay, st);

	for (uint32_t i = 0; i < lay->sector; i++)
		img[off + i] = random ? (uint8_t)sv_rand(st) : 0;
	say(desc, dl, "%s the directory sector at byte %llu", random ? "random bytes over" : "zeroed",
	    (unsigned long long)off);
}

/* A cluster to hit: one in use, mostly. */
static uint32_t some_cluster(const struct layout *lay, uint64_t *st)
{
	uint32_t c = 2;

	for (int tries = 0; tries < 64; tries++) {
		c = 2 + (uint32_t)sv_below(st, lay->clusters);
		if (lay->used[c])
			break;
	}
	return c;
}

static void fat_flip(const struct layout *lay, uint8_t *img, uint64_t *st, char *desc, size_t dl)
{
	unsigned n = 1 + (unsigned)sv_below(st, 2), width = lay->fat_bits == 32 ? 28 : lay->fat_bits, low = 1;

	while ((1ull << low) < lay->clusters + 2ull && low < width)
		low++;
	for (unsigned i = 0; i < n; i++) {
		uint32_t c = some_cluster(lay, st);
		/* half the flips among the bits a cluster number uses: a link elsewhere in the volume */
		unsigned b = (unsigned)sv_below(st, sv_below(st, 2) ? low : width);
		uint64_t pos = (uint64_t)c * lay->fat_bits + b;

		flip(img, lay->fat_off + pos / 8, (unsigned)(pos % 8));
		say(desc, dl, "FAT entry of cluster %u: bit %u flipped", c, b);
	}
}

static void region_flip(const struct region *r, uint64_t limit_bits, uint8_t *img, uint64_t *st, const char *what,
			char *desc, size_t dl)
{
	unsigned n = 1 + (unsigned)sv_below(st, 3);
	uint64_t bits = limit_bits && limit_bits < r->len * 8 ? limit_bits : r->len * 8;

	for (unsigned i = 0; i < n; i++) {
		uint64_t b = sv_below(st, bits);

		flip(img, r->off + b / 8, (unsigned)(b % 8));
	}
	say(desc, dl, "%u bits flipped in the %s at byte %llu", n, what, (unsigned long long)r->off);
}

/*
 * A torn write of a directory cluster: its first k sectors as they were,
 * the rest from another directory cluster (a cluster being written with
 * other contents when the power went), or zeros when there is none.
 */
static void torn(const struct layout *lay, uint8_t *img, uint64_t *st, char *desc, size_t dl)
{
	const struct region *r, *o = NULL;
	uint64_t nsec, k;

	do
		r = &lay->dirs[sv_below(st, lay->ndirs)];
	while (r->len < 2ull * lay->sector);
	nsec = r->len / lay->sector;
	k = 1 + sv_below(st, nsec - 1);
	for (int tries = 0; tries < 16 && lay->ndirs > 1; tries++) {
		o = &lay->dirs[sv_below(st, lay->ndirs)];
		if (o != r && o->len >= r->len)
			break;
		o = NULL;
	}
	for (uint64_t s = k; s < nsec; s++) {
		uint8_t *dst = img + r->off + s * lay->sector;

		if (o)
			memmove(dst, img + o->off + s * lay->sector, lay->sector);
		else
			memset(dst, 0, lay->sector);
	}
	say(desc, dl, "torn write of the directory cluster at byte %llu after sector %llu", (unsigned long long)r->off,
	    (unsigned long long)k);
}

static void boot_flip(const struct layout *lay, uint8_t *img, uint64_t *st, char *desc, size_t dl)
{
	unsigned n = 1 + (unsigned)sv_below(st, 3);

	for (unsigned i = 0; i < n; i++) {
		unsigned b = (unsigned)sv_below(st, 512 * 8);

		flip(img, b / 8, b % 8);
	}
	say(desc, dl, "%u bits flipped in the main boot sector", n);
	(void)lay;
}

static void apply_one(const struct layout *lay, uint8_t *img, unsigned kind, uint64_t *st, char *desc, size_t dl)
{
	switch (kind) {
	case DMG_ENTRY_FLIP: entry_flip(lay, img, st, desc, dl); break;
	case DMG_ENTRY_GARBAGE: entry_garbage(lay, img, st, desc, dl); break;
	case DMG_SECTOR_ZERO: sector_fill(lay, img, st, false, desc, dl); break;
	case DMG_SECTOR_RANDOM: sector_fill(lay, img, st, true, desc, dl); break;
	case DMG_FAT_FLIP: fat_flip(lay, img, st, desc, dl); break;
	case DMG_BITMAP_FLIP:
		region_flip(&lay->bitmap, lay->clusters, img, st, "allocation bitmap",
			    desc, dl);
		break;
	case DMG_UPCASE_FLIP:
		region_flip(&lay->upcase, 0, img, st, "up-case table", desc, dl);
		break;
	case DMG_TORN: torn(lay, img, st, desc, dl); break;
	case DMG_BOOT_FLIP: boot_flip(lay, img, st, desc, dl); break;
	default: break;
	}
}

void damage_apply(const struct layout *lay, uint8_t *img, size_t len, unsigned kind, uint64_t seed, char *desc,
		  size_t desclen)
{
	uint64_t st = seed;

	(void)len;
	desc[0] = 0;
	if (kind != DMG_MULTI) {
		apply_one(lay, img, kind, &st, desc, desclen);
		return;
	}
	for (unsigned n = 2 + (unsigned)sv_below(&st, 3); n; n--) {
		unsigned k;

		do
			k = (unsigned)sv_below(&st, DMG_MULTI);
		while (!damage_fits(lay, k));
		apply_one(lay, img, k, &st, desc, desclen);
	}
}
