// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * builder.c - test volumes built in memory (see builder.h).  The exFAT
 * volume follows EXSPEC: boot region with extended signatures and
 * checksum, backup region, FAT, bitmap (cluster 2), a compressed up-case
 * table (cluster 3) and the root directory (cluster 4).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "builder.h"
#include "base/bytes.h"

/*
 * A buffer for an image: from 2 MiB on, aligned to 2 MiB and asked to be
 * backed by huge pages, so that filling a 34 MiB FAT32 image takes some
 * 17 page faults instead of 8,700 (faults were most of test_problems'
 * time on a small virtual machine).  free() releases it.
 */
void *img_buf_alloc(size_t size, bool zero)
{
	const size_t huge = (size_t)2 << 20;
	void *p = NULL;

	if (size >= huge && posix_memalign(&p, huge, (size + huge - 1) & ~(huge - 1)) == 0) {
		(void)madvise(p, (size + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
		if (zero)
			memset(p, 0, size);
	} else {
		p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
	}
	if (!p)
		abort();
	return p;
}

void *img_buf_dup(const void *buf, size_t size)
{
	return memcpy(img_buf_alloc(size, false), buf, size);
}

static void img_alloc(struct img *im, size_t size)
{
	memset(im, 0, sizeof(*im));
	im->buf = img_buf_alloc(size, true);
	im->len = size;
	im->dev_sector = 512;
	if (!im->buf)
		abort();
}

void img_free(struct img *im)
{
	free(im->buf);
	im->buf = NULL;
}

struct fsc_probe *img_probe(struct img *im)
{
	struct fsc_dev *dev;
	struct fsc_probe *p = NULL;

	if (fsc_dev_open_mem(im->buf, im->len, &dev) < 0)
		abort();
	fsc_dev_set_sector_size(dev, im->dev_sector);
	if (fsc_probe_volume(dev, &p) < 0)
		p = NULL;
	fsc_dev_close(dev);
	return p;
}

/* Identity except a-z -> A-Z, compressed: FFFF 0061, 26 mappings, FFFF 65413. */
static size_t upcase_table(uint8_t *t)
{
	size_t n = 0;

	put_le16(t, 2 * n++, 0xFFFF);
	put_le16(t, 2 * n++, 0x61);
	for (unsigned c = 'A'; c <= 'Z'; c++)
		put_le16(t, 2 * n++, (uint16_t)c);
	put_le16(t, 2 * n++, 0xFFFF);
	put_le16(t, 2 * n++, (uint16_t)(0x10000 - 0x7B));
	return 2 * n;
}

void exfat_resign_main(struct img *im)
{
	uint32_t sum = fsc_exfat_boot_checksum(im->buf, im->ss);

	for (uint32_t i = 0; i < im->ss; i += 4)
		put_le32(im->buf, 11 * im->ss + i, sum);
}

void exfat_resign_backup(struct img *im)
{
	uint8_t *b = im->buf + 12 * im->ss;
	uint32_t sum = fsc_exfat_boot_checksum(b, im->ss);

	for (uint32_t i = 0; i < im->ss; i += 4)
		put_le32(b, 11 * im->ss + i, sum);
}

void exfat_resign(struct img *im)
{
	exfat_resign_main(im);
	memcpy(im->buf + 12 * im->ss, im->buf, 12 * im->ss);
}

uint8_t *exfat_root_entry(struct img *im, unsigned n)
{
	return im->buf + im->root_byte + 32 * n;
}

void exfat_set_fat(struct img *im, uint32_t c, uint32_t v)
{
	put_le32(im->buf, im->fat_byte + 4 * (uint64_t)c, v);
}

static void exfat_boot_sector(struct img *im, unsigned bps, unsigned spc, uint32_t fat_len)
{
	uint8_t *s = im->buf;

	memcpy(s, "\xEB\x76\x90" "EXFAT   ", 11);
	put_le64(s, 72, im->len >> bps);
	put_le32(s, 80, (uint32_t)(im->fat_byte >> bps));
	put_le32(s, 84, fat_len);
	put_le32(s, 88, (uint32_t)(im->heap_byte >> bps));
	put_le32(s, 92, im->cluster_count);
	put_le32(s, 96, 4);
	put_le32(s, 100, 0x1234ABCD);
	put_le16(s, 104, 0x0100);
	s[108] = (uint8_t)bps;
	s[109] = (uint8_t)spc;
	s[110] = 1;
	s[111] = 0x80;
	memset(s + 120, 0xF4, 390);
	put_le16(s, 510, 0xAA55);
	for (unsigned i = 1; i <= 8; i++)
		put_le32(s, i * im->ss + im->ss - 4, 0xAA550000u);
}

void build_exfat(struct img *im, size_t size, unsigned bps, unsigned spc)
{
	uint8_t *e, up[64];
	size_t uplen = upcase_table(up);
	uint32_t fat_len;

	img_alloc(im, size);
	im->ss = 1u << bps;
	im->cb = im->ss << spc;
	im->fat_byte = 128 * 1024;
	im->heap_byte = 256 * 1024;
	im->cluster_count = (uint32_t)((size - im->heap_byte) / im->cb);
	fat_len = (uint32_t)((((uint64_t)im->cluster_count + 2) * 4 + im->ss - 1) / im->ss);
	im->root_byte = im->heap_byte + 2ull * im->cb;
	exfat_boot_sector(im, bps, spc, fat_len);

	exfat_set_fat(im, 0, 0xFFFFFFF8);
	exfat_set_fat(im, 1, 0xFFFFFFFF);
	for (uint32_t c = 2; c <= 4; c++)
		exfat_set_fat(im, c, 0xFFFFFFFF);
	im->buf[im->heap_byte] = 0x07;				/* clusters 2, 3, 4 used */
	memcpy(im->buf + im->heap_byte + im->cb, up, uplen);	/* up-case table */

	e = exfat_root_entry(im, 0);				/* volume label "TEST" */
	e[0] = 0x83;
	e[1] = 4;
	for (int i = 0; i < 4; i++)
		put_le16(e, 2 + 2 * i, (uint16_t)"TEST"[i]);
	e = exfat_root_entry(im, 1);				/* allocation bitmap */
	e[0] = 0x81;
	put_le32(e, 20, 2);
	put_le64(e, 24, (im->cluster_count + 7) / 8);
	e = exfat_root_entry(im, 2);				/* up-case table */
	e[0] = 0x82;
	put_le32(e, 4, fsc_exfat_table_checksum(up, uplen, 0));
	put_le32(e, 20, 3);
	put_le64(e, 24, uplen);
	exfat_resign(im);
}

static void fat_fill_bpb(struct img *im, int bits, uint32_t total, uint8_t spc, uint16_t rsvd,
			 uint16_t root_entries, uint32_t fat_size)
{
	uint8_t *s = im->buf;
	unsigned ext = bits == 32 ? 64 : 36;

	memcpy(s, "\xEB\x3C\x90" "mkfs.fat", 11);
	put_le16(s, 11, 512);
	s[13] = spc;
	put_le16(s, 14, rsvd);
	s[16] = 2;
	put_le16(s, 17, root_entries);
	if (total < 65536 && bits != 32)
		put_le16(s, 19, (uint16_t)total);
	else
		put_le32(s, 32, total);
	s[21] = bits == 12 ? 0xF0 : 0xF8;
	put_le16(s, 24, 32);
	put_le16(s, 26, 2);
	if (bits == 32) {
		put_le32(s, 36, fat_size);
		put_le32(s, 44, 2);
		put_le16(s, 48, 1);
		put_le16(s, 50, 6);
	} else {
		put_le16(s, 22, (uint16_t)fat_size);
	}
	s[ext] = 0x80;
	s[ext + 2] = 0x29;
	put_le32(s, ext + 3, 0xCAFE1234);
	memcpy(s + ext + 7, "TESTFAT    ", 11);
	memcpy(s + ext + 18, bits == 32 ? "FAT32   " : bits == 16 ? "FAT16   " : "FAT12   ", 8);
	put_le16(s, 510, 0xAA55);
}

void build_fat_custom(struct img *im, int bits, uint32_t total, uint8_t spc, uint16_t rsvd,
		      uint16_t root_entries, uint32_t fat_size)
{
	uint64_t fat0 = (uint64_t)rsvd * 512, root;
	uint8_t *e;

	img_alloc(im, (size_t)total * 512);
	fat_fill_bpb(im, bits, total, spc, rsvd, root_entries, fat_size);
	for (int f = 0; f < 2; f++) {
		uint8_t *fat = im->buf + fat0 + (uint64_t)f * fat_size * 512;

		if (bits == 12) {
			memcpy(fat, "\xF0\xFF\xFF", 3);
		} else if (bits == 16) {
			put_le32(fat, 0, 0xFFFFFFF8);
		} else {
			put_le32(fat, 0, 0x0FFFFFF8);
			put_le32(fat, 4, 0x0FFFFFFF);
			put_le32(fat, 8, 0x0FFFFFFF);	/* root cluster 2 */
		}
	}
	root = fat0 + 2ull * fat_size * 512;
	if (bits == 32) {
		uint8_t *fsi = im->buf + 512;

		put_le32(fsi, 0, 0x41615252);
		put_le32(fsi, 484, 0x61417272);
		put_le32(fsi, 488, 0xFFFFFFFF);
		put_le32(fsi, 492, 0xFFFFFFFF);
		put_le32(fsi, 508, 0xAA550000);
		memcpy(im->buf + 6 * 512, im->buf, 1024);	/* backup boot + FSInfo */
	}
	e = im->buf + root;		/* the root's volume label entry */
	memcpy(e, "TESTFAT    ", 11);
	e[11] = 0x08;
}

void build_fat(struct img *im, int bits)
{
	if (bits == 12)
		build_fat_custom(im, 12, 2880, 1, 1, 224, 9);
	else if (bits == 16)
		build_fat_custom(im, 16, 16384, 1, 1, 512, 64);
	else
		build_fat_custom(im, 32, 69632, 1, 32, 0, 537);
}

void build_ntfs(struct img *im)
{
	uint8_t *s;

	img_alloc(im, 1 << 20);
	s = im->buf;
	memcpy(s, "\xEB\x52\x90" "NTFS    ", 11);
	put_le16(s, 11, 512);
	s[13] = 8;
	s[21] = 0xF8;
	put_le16(s, 24, 63);
	put_le16(s, 26, 255);
	put_le64(s, 40, 2047);
	put_le64(s, 48, 4);		/* $MFT at cluster 4 */
	put_le64(s, 56, 2);
	s[64] = 0xF6;			/* 1024-byte records */
	s[68] = 1;
	put_le64(s, 72, 0x0123456789ABCDEFull);
	put_le16(s, 510, 0xAA55);
	memcpy(s + 4 * 8 * 512, "FILE", 4);
	memcpy(s + 4 * 8 * 512 + 3 * 1024, "FILE", 4);
}

void build_mbr(struct img *im, uint8_t b16)
{
	uint8_t *s;

	img_alloc(im, 1 << 20);
	s = im->buf;
	for (int i = 0; i < 446; i++)
		s[i] = (uint8_t)(i * 37 + 11);
	s[16] = b16;
	s[22] = 0x12;
	s[446] = 0x80;
	s[446 + 4] = 0x0C;
	put_le32(s, 446 + 8, 2048);
	put_le32(s, 446 + 12, 1);
	put_le16(s, 510, 0xAA55);
}

void build_gpt_pmbr(struct img *im)
{
	uint8_t *s;

	img_alloc(im, 1 << 20);
	s = im->buf;
	s[446 + 4] = 0xEE;
	put_le32(s, 446 + 8, 1);
	put_le32(s, 446 + 12, 2047);
	put_le16(s, 510, 0xAA55);
	memcpy(s + 512, "EFI PART", 8);
}

void build_zero(struct img *im, size_t size, int with_sig)
{
	img_alloc(im, size);
	if (with_sig)
		put_le16(im->buf, 510, 0xAA55);
}

uint8_t *exfat_entry(struct img *im, uint32_t c, unsigned n)
{
	return im->buf + im->heap_byte + (uint64_t)(c - 2) * im->cb + 32 * n;
}

void exfat_fix_set(struct img *im, uint32_t c, unsigned n)
{
	uint8_t *e = exfat_entry(im, c, n);

	put_le16(e, 2, fsc_exfat_set_checksum(e, e[1] + 1u));
}

void exfat_mark(struct img *im, uint32_t c, int on)
{
	uint8_t *b = im->buf + im->heap_byte + (c - 2) / 8;

	if (on)
		*b |= (uint8_t)(1u << ((c - 2) % 8));
	else
		*b &= (uint8_t)~(1u << ((c - 2) % 8));
}

unsigned exfat_put_file(struct img *im, uint32_t c, unsigned n, const char *name, uint16_t attr,
			uint32_t first, uint64_t size, uint8_t flags)
{
	static uint16_t up[65536];
	uint16_t units[255];
	size_t nl = strlen(name);
	unsigned names = (unsigned)(nl + 14) / 15;
	uint8_t *e = exfat_entry(im, c, n);
	const uint32_t ts = 40u << 25 | 1u << 21 | 2u << 16 | 3u << 11 | 4u << 5 | 3u;

	for (uint32_t i = 0; i < 65536; i++)
		up[i] = (uint16_t)((i >= 'a' && i <= 'z') ? i - 32 : i);
	memset(e, 0, 32 * (2 + names));
	e[0] = 0x85;
	e[1] = (uint8_t)(1 + names);
	put_le16(e, 4, attr);
	put_le32(e, 8, ts);
	put_le32(e, 12, ts);
	put_le32(e, 16, ts);
	e[22] = e[23] = e[24] = 0x80;
	e[32] = 0xC0;
	e[33] = flags;
	e[35] = (uint8_t)nl;
	for (size_t i = 0; i < nl; i++)
		units[i] = (uint16_t)(unsigned char)name[i];
	put_le16(e, 36, fsc_exfat_name_hash(units, nl, up));
	put_le64(e, 40, size);
	put_le32(e, 52, first);
	put_le64(e, 56, size);
	for (unsigned k = 0; k < names; k++) {
		uint8_t *ne = e + 64 + 32 * k;

		ne[0] = 0xC1;
		for (unsigned i = 0; i < 15 && 15 * k + i < nl; i++)
			put_le16(ne, 2 + 2 * i, units[15 * k + i]);
	}
	exfat_fix_set(im, c, n);
	return 2 + names;
}

void build_exfat_tree(struct img *im)
{
	build_exfat(im, 4 << 20, 9, 3);
	exfat_put_file(im, 4, 3, "hello.txt", 0x20, 5, 100, 0x01);
	exfat_put_file(im, 4, 6, "sub", 0x10, 6, im->cb, 0x03);
	exfat_put_file(im, 6, 0, "a.bin", 0x20, 7, im->cb + 1, 0x01);
	exfat_put_file(im, 6, 3, "b.bin", 0x20, 9, 2ull * im->cb, 0x03);
	exfat_set_fat(im, 5, 0xFFFFFFFF);
	exfat_set_fat(im, 6, 0xFFFFFFFF);
	exfat_set_fat(im, 7, 8);
	exfat_set_fat(im, 8, 0xFFFFFFFF);
	for (uint32_t c = 5; c <= 10; c++)
		exfat_mark(im, c, 1);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

uint64_t test_rand(void)	/* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}
