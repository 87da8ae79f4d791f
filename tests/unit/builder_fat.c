// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * builder_fat.c - populated FAT12/16/32 volumes for the unit tests: the
 * tree build_fat_tree() makes (see builder.h), directory entries with long
 * names, FAT entries in every copy or in one.
 */
#include <string.h>

#include "builder.h"
#include "base/bytes.h"

#define DATE_2024_01_01 (uint16_t)((2024 - 1980) << 9 | 1 << 5 | 1)
#define TIME_12_00 (uint16_t)(12 << 11)

static unsigned fat_bits_of(const struct img *im)
{
	return get_le16(im->buf, 22) == 0 ? 32 : im->cluster_count < 4085 ? 12 : 16;
}

/* The layout from the BPB, into the img fields the exFAT builder uses. */
void fat_geometry(struct img *im)
{
	const uint8_t *s = im->buf;
	uint32_t fsz = get_le16(s, 22) ? get_le16(s, 22) : get_le32(s, 36);
	uint32_t total = get_le16(s, 19) ? get_le16(s, 19) : get_le32(s, 32);
	uint32_t root_secs = (get_le16(s, 17) * 32u + 511) / 512;

	im->ss = 512;
	im->cb = 512u * s[13];
	im->fat_byte = 512ull * get_le16(s, 14);
	im->root_byte = im->fat_byte + 512ull * s[16] * fsz;
	im->heap_byte = im->root_byte + 512ull * root_secs;
	im->cluster_count = (uint32_t)((total - im->heap_byte / 512) / s[13]);
}

void fat_set_copy(struct img *im, unsigned copy, uint32_t c, uint32_t v)
{
	uint32_t fsz = get_le16(im->buf, 22) ? get_le16(im->buf, 22) : get_le32(im->buf, 36);
	uint8_t *fat = im->buf + im->fat_byte + 512ull * fsz * copy;
	unsigned bits = fat_bits_of(im);

	if (bits == 32) {
		put_le32(fat, 4ull * c, v);
	} else if (bits == 16) {
		put_le16(fat, 2ull * c, (uint16_t)v);
	} else {
		uint16_t two = get_le16(fat, c * 3 / 2);

		two = c & 1 ? (uint16_t)((two & 0x000F) | (v & 0xFFF) << 4) : (uint16_t)((two & 0xF000) | (v & 0xFFF));
		put_le16(fat, c * 3 / 2, two);
	}
}

void fat_set(struct img *im, uint32_t c, uint32_t v)
{
	fat_set_copy(im, 0, c, v);
	fat_set_copy(im, 1, c, v);
}

uint32_t fat_eoc(const struct img *im)
{
	unsigned bits = fat_bits_of(im);

	return bits == 32 ? 0x0FFFFFFF : bits == 16 ? 0xFFFF : 0xFFF;
}

uint32_t fat_root(const struct img *im)
{
	return fat_bits_of(im) == 32 ? 2 : 0;
}

uint8_t *fat_dirent(struct img *im, uint32_t c, unsigned n)
{
	if (c == 0)
		return im->buf + im->root_byte + 32ull * n;
	return im->buf + im->heap_byte + (uint64_t)(c - 2) * im->cb + 32ull * n;
}

static uint8_t sfn_sum(const uint8_t *n)
{
	uint8_t s = 0;

	for (int i = 0; i < 11; i++)
		s = (uint8_t)(((s & 1) << 7) + (s >> 1) + n[i]);
	return s;
}

unsigned fat_put_entry(struct img *im, uint32_t dir, unsigned n, const char *sfn, const char *lfn, uint8_t attr,
		       uint32_t first, uint32_t size)
{
	static const uint8_t pos[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	unsigned len = lfn ? (unsigned)strlen(lfn) : 0, parts = (len + 12) / 13;
	uint8_t *e;

	for (unsigned p = parts; p >= 1; p--) {		/* the last part first */
		e = fat_dirent(im, dir, n++);
		memset(e, 0, 32);
		e[0] = (uint8_t)(p | (p == parts ? 0x40 : 0));
		e[11] = 0x0F;
		e[13] = sfn_sum((const uint8_t *)sfn);
		for (unsigned i = 0; i < 13; i++) {
			unsigned k = 13 * (p - 1) + i;

			put_le16(e, pos[i], k < len ? (uint8_t)lfn[k] : k == len ? 0 : 0xFFFF);
		}
	}
	e = fat_dirent(im, dir, n);
	memset(e, 0, 32);
	memcpy(e, sfn, 11);
	e[11] = attr;
	put_le16(e, 14, TIME_12_00);
	put_le16(e, 16, DATE_2024_01_01);
	put_le16(e, 18, DATE_2024_01_01);
	put_le16(e, 20, (uint16_t)(first >> 16));
	put_le16(e, 22, TIME_12_00);
	put_le16(e, 24, DATE_2024_01_01);
	put_le16(e, 26, (uint16_t)first);
	put_le32(e, 28, size);
	return parts + 1;
}

/*
 * Clusters 3.. hold the tree (cluster 2 is FAT32's root):
 *   /hello.txt (LFN, 8.3 HELLO.TXT)       100 bytes, cluster 3
 *   /SUB                                  directory, cluster 4
 *   /Long File Name.dat (8.3 LONGFI~1.DAT) 1000 bytes, clusters 5 -> 6
 *   /SUB/A.BIN                             600 bytes, clusters 7 -> 8
 *   /SUB/B                                 0 bytes, no cluster
 * Root slots: 0 label, 1-2 hello.txt, 3 SUB, 4-6 Long File Name.dat;
 * SUB slots: 0 ., 1 .., 2 A.BIN, 3 B.  FAT32's FSInfo holds the right
 * free count and next-free hint.
 */
void build_fat_tree(struct img *im, int bits)
{
	uint32_t root, eoc;
	unsigned n = 1;

	build_fat(im, bits);
	fat_geometry(im);
	root = fat_root(im);
	eoc = fat_eoc(im);
	n += fat_put_entry(im, root, n, "HELLO   TXT", "hello.txt", 0x20, 3, 100);
	n += fat_put_entry(im, root, n, "SUB        ", NULL, 0x10, 4, 0);
	fat_put_entry(im, root, n, "LONGFI~1DAT", "Long File Name.dat", 0x20, 5, 1000);
	fat_put_entry(im, 4, 0, ".          ", NULL, 0x10, 4, 0);
	fat_put_entry(im, 4, 1, "..         ", NULL, 0x10, 0, 0);
	fat_put_entry(im, 4, 2, "A       BIN", NULL, 0x20, 7, 600);
	fat_put_entry(im, 4, 3, "B          ", NULL, 0x20, 0, 0);
	fat_set(im, 3, eoc);
	fat_set(im, 4, eoc);
	fat_set(im, 5, 6);
	fat_set(im, 6, eoc);
	fat_set(im, 7, 8);
	fat_set(im, 8, eoc);
	if (bits == 32) {
		put_le32(im->buf, 512 + 488, im->cluster_count - 7);	/* clusters 2..8 used */
		put_le32(im->buf, 512 + 492, 9);
		memcpy(im->buf + 7 * 512, im->buf + 512, 512);
	}
}
