// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_layout.c - the volume layout (layout/, exfat/layout.c,
 * fat/layout.c) and the one FAT reader: layouts of built exFAT and
 * FAT12/16/32 volumes field by field, FAT entries planted as literal
 * bytes and read back exactly (FAT12 at odd offsets and across a 64 KiB
 * block, FAT16, FAT32 with its upper 4 bits, exFAT), END/BAD/FREE
 * normalisation, a FAT beyond the device, cache eviction, the clamp of a
 * boot sector claiming 2^32 - 1 clusters on a 1 MiB image, and the
 * public fsc_volume_geometry.
 *
 * The layout sources are compiled into this program (their symbols are
 * not exported by the library).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "builder.h"
#include "exfat/exfat.h"
#include "fat/fat.h"
#include "probe/probe.h"

/* A device over the image and the probe of it. */
struct vol {
	struct img im;
	struct fsc_dev *dev;
	struct fsc_probe *p;
};

static void vol_open(struct vol *v)
{
	assert_int_equal(fsc_dev_open_mem(v->im.buf, v->im.len, &v->dev), 0);
	assert_int_equal(fsc_probe_volume(v->dev, &v->p), 0);
}

static void vol_close(struct vol *v)
{
	fsc_probe_free(v->p);
	fsc_dev_close(v->dev);
	img_free(&v->im);
}

/* A hand-made layout over a zeroed memory device of size bytes (for FATs larger than any builder makes). */
struct raw {
	uint8_t *buf;
	size_t size;
	struct fsc_dev *dev;
	struct layout l;
};

static void raw_open(struct raw *r, size_t size, enum fsc_type type, unsigned bits, uint64_t fat_byte,
		     uint32_t clusters)
{
	r->buf = calloc(1, size);
	assert_non_null(r->buf);
	r->size = size;
	assert_int_equal(fsc_dev_open_mem(r->buf, size, &r->dev), 0);
	memset(&r->l, 0, sizeof(r->l));
	r->l.dev = r->dev;
	r->l.type = type;
	r->l.fat_bits = bits;
	r->l.fat_byte = fat_byte;
	r->l.clusters = clusters;
	r->l.cluster_bytes = 512;
	r->l.data_byte = size;		/* no data area: only the FAT matters */
	layout_clamp(&r->l);
}

static void raw_close(struct raw *r)
{
	fsc_dev_close(r->dev);
	free(r->buf);
}

static uint32_t raw_of(struct fatreader *fr, uint32_t c)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(fatreader_raw(fr, c, &v), 0);
	return v;
}

static void test_fat12(void **state)
{
	struct vol v = { 0 };
	struct fatreader fr;
	struct layout l;
	char why[96];
	uint8_t *fat;

	(void)state;
	build_fat(&v.im, 12);
	fat = v.im.buf + 512;
	/* entries 2..9: 003 FF8 FF7 000 ABC 123 FF6 FFF (two entries in three bytes) */
	memcpy(fat + 3, "\x03\x80\xFF\xF7\x0F\x00\xBC\x3A\x12\xF6\xFF\xFF", 12);
	vol_open(&v);
	assert_int_equal(fat_layout(&l, v.dev, &v.p->fat, why, sizeof(why)), 0);
	assert_int_equal(l.type, FSC_TYPE_FAT12);
	assert_int_equal(l.fat_bits, 12);
	assert_int_equal(l.sector_bytes, 512);
	assert_int_equal(l.cluster_bytes, 512);
	assert_int_equal(l.clusters, 2847);	/* (2880 - 33) / 1 */
	assert_int_equal(l.held, 2847);
	assert_int_equal(l.fat_byte, 512);
	assert_int_equal(l.root_byte, 9728);	/* 512 + 2 * 9 * 512 */
	assert_int_equal(l.root_bytes, 7168);
	assert_int_equal(l.data_byte, 16896);	/* sector 33 */
	assert_int_equal(l.root_cluster, 0);

	fatreader_init(&fr, &l);
	assert_int_equal(raw_of(&fr, 0), 0xFF0);	/* media byte F0 */
	assert_int_equal(raw_of(&fr, 1), 0xFFF);
	assert_int_equal(raw_of(&fr, 2), 0x003);
	assert_int_equal(raw_of(&fr, 3), 0xFF8);	/* odd: the high nibble and the next byte */
	assert_int_equal(raw_of(&fr, 6), 0xABC);
	assert_int_equal(raw_of(&fr, 7), 0x123);
	assert_int_equal(fatreader_next(&fr, 2), 3);
	assert_int_equal(fatreader_next(&fr, 3), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 4), LAYOUT_BAD);
	assert_int_equal(fatreader_next(&fr, 5), LAYOUT_FREE);
	assert_int_equal(fatreader_next(&fr, 6), 0xABC);	/* beyond the data area: passed on */
	assert_int_equal(fatreader_next(&fr, 7), 0x123);
	assert_int_equal(fatreader_next(&fr, 8), 0xFF6);
	assert_int_equal(fatreader_next(&fr, 9), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 2848), LAYOUT_FREE);	/* the last entry */
	assert_int_equal(fatreader_next(&fr, 2849), LAYOUT_UNREADABLE);	/* past ClusterCount + 1 */
	assert_int_equal(fr.err, -ERANGE);
	fatreader_free(&fr);
	vol_close(&v);
}

/*
 * A FAT12 reading of a FAT longer than 64 KiB: entries that meet a block
 * boundary (byte 65536 starts a block), and a block that shares a slot
 * with the one at byte 65536 (2 MiB on, a multiple of the cache's size).
 */
static void test_fat12_block_boundary(void **state)
{
	struct raw r;
	struct fatreader fr;
	uint8_t *fat;

	(void)state;
	raw_open(&r, 4096 + 34 * 65536, FSC_TYPE_FAT12, 12, 4096, 1441800);
	fat = r.buf + 4096;
	assert_int_equal(65536 % FATREADER_BLOCK, 0);
	assert_int_equal((32 * 65536) % (FATREADER_SLOTS * FATREADER_BLOCK), 0);
	fat[33 * 65536] = 0x0F;	/* 1441792 (even) starts a block in the slot of the block at byte 65536 */
	fat[65533] = 0xA0;	/* 43689 (odd): high nibble of 65533 and 65534 -> BCA */
	fat[65534] = 0xBC;
	fat[65535] = 0x34;	/* 43690 (even): 65535 and the low nibble of 65536 -> 234 */
	fat[65536] = 0x52;	/* 43691 (odd): high nibble of 65536 and 65537 -> 675 */
	fat[65537] = 0x67;
	fatreader_init(&fr, &r.l);
	assert_int_equal(fatreader_next(&fr, 43691), 0x675);	/* the second block first */
	assert_int_equal(fatreader_next(&fr, 43690), 0x234);
	assert_int_equal(fatreader_next(&fr, 43689), 0xBCA);
	fatreader_free(&fr);
	fatreader_init(&fr, &r.l);	/* that block in the slot the straddling entry needs: reloaded */
	assert_int_equal(fatreader_next(&fr, 1441792), 0x00F);
	assert_int_equal(fatreader_next(&fr, 43690), 0x234);
	assert_int_equal(fatreader_next(&fr, 43691), 0x675);
	assert_int_equal(fr.err, 0);
	fatreader_free(&fr);
	raw_close(&r);
}

static void test_fat16(void **state)
{
	struct vol v = { 0 };
	struct fatreader fr;
	struct layout l;
	char why[96];
	uint8_t *fat;

	(void)state;
	build_fat(&v.im, 16);
	fat = v.im.buf + 512;
	/* entries 2..8: 0003 FFF8 FFFF FFF7 FFF6 0000 3FA1 */
	memcpy(fat + 4, "\x03\x00\xF8\xFF\xFF\xFF\xF7\xFF\xF6\xFF\x00\x00\xA1\x3F", 14);
	vol_open(&v);
	assert_int_equal(fat_layout(&l, v.dev, &v.p->fat, why, sizeof(why)), 0);
	assert_int_equal(l.type, FSC_TYPE_FAT16);
	assert_int_equal(l.fat_bits, 16);
	assert_int_equal(l.clusters, 16223);	/* 16384 - (1 + 2 * 64 + 32) */
	assert_int_equal(l.held, 16223);
	assert_int_equal(l.root_byte, 66048);
	assert_int_equal(l.root_bytes, 16384);
	assert_int_equal(l.data_byte, 82432);

	fatreader_init(&fr, &l);
	assert_int_equal(raw_of(&fr, 3), 0xFFF8);
	assert_int_equal(fatreader_next(&fr, 2), 3);
	assert_int_equal(fatreader_next(&fr, 3), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 4), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 5), LAYOUT_BAD);
	assert_int_equal(fatreader_next(&fr, 6), 0xFFF6);
	assert_int_equal(fatreader_next(&fr, 7), LAYOUT_FREE);
	assert_int_equal(fatreader_next(&fr, 8), 0x3FA1);
	assert_int_equal(fr.err, 0);
	fatreader_free(&fr);
	vol_close(&v);
}

static void test_fat32(void **state)
{
	struct vol v = { 0 };
	struct fatreader fr;
	struct layout l;
	char why[96];
	uint8_t *fat;

	(void)state;
	build_fat(&v.im, 32);
	fat = v.im.buf + 32 * 512;
	/* entries 3..9 */
	memcpy(fat + 12, "\x05\x00\x00\xF0" "\x00\x00\x00\xF0" "\xF7\xFF\xFF\x0F" "\xF7\xFF\xFF\xFF"
	       "\xF8\xFF\xFF\x0F" "\xFF\xFF\xFF\x1F" "\x44\x33\x22\x01", 28);
	vol_open(&v);
	assert_int_equal(fat_layout(&l, v.dev, &v.p->fat, why, sizeof(why)), 0);
	assert_int_equal(l.type, FSC_TYPE_FAT32);
	assert_int_equal(l.fat_bits, 32);
	assert_int_equal(l.clusters, 68526);	/* 69632 - (32 + 2 * 537) */
	assert_int_equal(l.fat_byte, 16384);
	assert_int_equal(l.data_byte, 566272);
	assert_int_equal(l.root_cluster, 2);
	assert_int_equal(l.root_bytes, 0);

	fatreader_init(&fr, &l);
	assert_int_equal(fatreader_next(&fr, 2), LAYOUT_END);	/* the root: 0FFFFFFF */
	assert_int_equal(raw_of(&fr, 3), 0xF0000005);		/* raw keeps the upper 4 bits */
	assert_int_equal(fatreader_next(&fr, 3), 5);		/* ... next ignores them */
	assert_int_equal(fatreader_next(&fr, 4), LAYOUT_FREE);
	assert_int_equal(fatreader_next(&fr, 5), LAYOUT_BAD);
	assert_int_equal(fatreader_next(&fr, 6), LAYOUT_BAD);
	assert_int_equal(fatreader_next(&fr, 7), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 8), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 9), 0x01223344);
	fatreader_free(&fr);
	vol_close(&v);
}

static void test_exfat(void **state)
{
	struct vol v = { 0 };
	struct fatreader fr;
	struct layout l;
	char why[96];

	(void)state;
	build_exfat(&v.im, 1 << 20, 9, 3);
	exfat_set_fat(&v.im, 5, 6);
	exfat_set_fat(&v.im, 6, 0xFFFFFFF7);
	exfat_set_fat(&v.im, 7, 0x0FFFFFF8);	/* a cluster number on exFAT, not an end */
	exfat_set_fat(&v.im, 8, 0xFFFFFFFA);
	exfat_set_fat(&v.im, 9, 0xFFFFFFF6);
	vol_open(&v);
	assert_int_equal(exfat_layout(&l, v.dev, &v.p->ex, v.p->ex.sector_shift, why, sizeof(why)), 0);
	assert_int_equal(l.type, FSC_TYPE_EXFAT);
	assert_int_equal(l.fat_bits, 32);
	assert_int_equal(l.sector_bytes, 512);
	assert_int_equal(l.cluster_bytes, 4096);
	assert_int_equal(l.clusters, 192);	/* (1 MiB - 256 KiB) / 4 KiB */
	assert_int_equal(l.held, 192);
	assert_int_equal(l.fat_byte, 131072);
	assert_int_equal(l.data_byte, 262144);
	assert_int_equal(l.root_cluster, 4);
	assert_int_equal(layout_cluster_byte(&l, 4), 262144 + 2 * 4096);

	fatreader_init(&fr, &l);
	assert_int_equal(raw_of(&fr, 0), 0xFFFFFFF8);
	assert_int_equal(fatreader_next(&fr, 0), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 4), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 5), 6);
	assert_int_equal(fatreader_next(&fr, 6), LAYOUT_BAD);
	assert_int_equal(fatreader_next(&fr, 7), 0x0FFFFFF8);
	assert_int_equal(fatreader_next(&fr, 8), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 9), 0xFFFFFFF6);
	assert_int_equal(fatreader_next(&fr, 10), LAYOUT_FREE);
	fatreader_free(&fr);

	/* The staging driver's view in 4096-byte device sectors: the heap moves past the device. */
	assert_int_equal(exfat_layout(&l, v.dev, &v.p->ex, 12, why, sizeof(why)), 0);
	assert_int_equal(l.cluster_bytes, 32768);
	assert_int_equal(l.data_byte, 2097152);	/* HeapOffset 512 sectors of 4096 bytes */
	assert_int_equal(l.clusters, 192);
	assert_int_equal(l.held, 0);
	assert_false(layout_cluster_valid(&l, 2));
	assert_true(layout_cluster_declared(&l, 193));
	vol_close(&v);
}

/* One slot holds block 0 and block FATREADER_SLOTS in turn: both read back right. */
static void test_eviction(void **state)
{
	uint32_t far = FATREADER_SLOTS * (FATREADER_BLOCK / 4) + 10;
	struct fatreader fr;
	struct raw r;

	(void)state;
	raw_open(&r, 512 + 4 * (size_t)(far + 100), FSC_TYPE_FAT32, 32, 512, far + 90);
	memcpy(r.buf + 512 + 4 * 10, "\x11\x11\x11\x01", 4);
	memcpy(r.buf + 512 + 4 * (size_t)far, "\x22\x22\x22\x02", 4);
	fatreader_init(&fr, &r.l);
	assert_int_equal(fatreader_next(&fr, 10), 0x01111111);
	assert_int_equal(fatreader_next(&fr, far), 0x02222222);
	assert_int_equal(fatreader_next(&fr, 10), 0x01111111);
	assert_int_equal(fatreader_next(&fr, far + 1), LAYOUT_FREE);
	assert_int_equal(fr.err, 0);
	fatreader_free(&fr);
	raw_close(&r);
}

static void test_fat_beyond_device(void **state)
{
	struct fatreader fr;
	struct raw r;
	uint32_t v;

	(void)state;
	/* The whole FAT past the end. */
	raw_open(&r, 1 << 20, FSC_TYPE_EXFAT, 32, 1 << 20, 100);
	fatreader_init(&fr, &r.l);
	assert_int_equal(fatreader_next(&fr, 2), LAYOUT_UNREADABLE);
	assert_int_equal(fr.err, -EIO);
	assert_int_equal(fatreader_raw(&fr, 0, &v), -EIO);
	fatreader_free(&fr);
	raw_close(&r);

	/* 10 bytes of FAT32 inside: entries 0 and 1 read, entry 2 does not. */
	raw_open(&r, 1 << 20, FSC_TYPE_FAT32, 32, (1 << 20) - 10, 100);
	memcpy(r.buf + (1 << 20) - 10, "\xF8\xFF\xFF\x0F\x07\x00\x00\x00", 8);
	fatreader_init(&fr, &r.l);
	assert_int_equal(fatreader_next(&fr, 0), LAYOUT_END);
	assert_int_equal(fatreader_next(&fr, 1), 7);
	assert_int_equal(fr.err, 0);
	assert_int_equal(fatreader_next(&fr, 2), LAYOUT_UNREADABLE);
	assert_int_equal(fr.err, -EIO);
	fatreader_free(&fr);
	raw_close(&r);

	/* FAT12 with 2 bytes inside: entry 0 (bytes 0-1) reads, entry 1 (bytes 1-2) does not. */
	raw_open(&r, 4096, FSC_TYPE_FAT12, 12, 4094, 100);
	memcpy(r.buf + 4094, "\xF0\x5F", 2);
	fatreader_init(&fr, &r.l);
	assert_int_equal(raw_of(&fr, 0), 0xFF0);
	assert_int_equal(fatreader_next(&fr, 1), LAYOUT_UNREADABLE);
	assert_int_equal(fr.err, -EIO);
	fatreader_free(&fr);
	raw_close(&r);
}

/* A boot sector claiming 2^32 - 1 clusters on a 1 MiB image: only the 192 there are count. */
static void test_clamp(void **state)
{
	struct vol v = { 0 };
	struct fsc_geometry g = FSC_GEOMETRY_INIT;
	struct fatreader fr;
	struct layout l;
	char why[96];

	(void)state;
	build_exfat(&v.im, 1 << 20, 9, 3);
	memcpy(v.im.buf + 92, "\xFF\xFF\xFF\xFF", 4);	/* ClusterCount */
	exfat_resign(&v.im);
	vol_open(&v);
	assert_int_equal(v.p->ex.cluster_count, 0xFFFFFFFFu);
	assert_int_equal(exfat_layout(&l, v.dev, &v.p->ex, 9, why, sizeof(why)), 0);
	assert_int_equal(l.clusters, 0xFFFFFFFFu);
	assert_int_equal(l.held, 192);
	assert_true(layout_cluster_valid(&l, 193));
	assert_false(layout_cluster_valid(&l, 194));
	assert_false(layout_cluster_valid(&l, 1));
	assert_true(layout_cluster_declared(&l, 0xFFFFFFFFu));
	assert_false(layout_cluster_declared(&l, 1));
	fatreader_init(&fr, &l);
	assert_int_equal(fatreader_next(&fr, 193), LAYOUT_FREE);
	assert_int_equal(fatreader_next(&fr, 0x10000000), LAYOUT_UNREADABLE);	/* its entry is at 1 GiB */
	assert_int_equal(fr.err, -EIO);
	fatreader_free(&fr);

	assert_int_equal(fsc_volume_geometry(v.dev, v.p, &g), 0);
	assert_int_equal(g.clusters, 0xFFFFFFFFu);
	assert_int_equal(g.clusters_on_device, 192);
	assert_int_equal(g.cluster_size, 4096);
	assert_int_equal(g.sector_size, 512);
	assert_int_equal(g.data_offset, 262144);
	assert_int_equal(g.fat_offset, 131072);
	assert_int_equal(g.fat_bits, 32);
	assert_int_equal(g.root_cluster, 4);
	vol_close(&v);
}

static void test_errors(void **state)
{
	struct fsc_exfat_boot ex = { 0 };
	struct fsc_fat_bpb b = { 0 };
	struct layout l;
	struct raw r;
	char why[96] = "";

	(void)state;
	raw_open(&r, 4096, FSC_TYPE_EXFAT, 32, 0, 0);
	ex.cluster_shift = 16;
	assert_int_equal(exfat_layout(&l, r.dev, &ex, 9, why, sizeof(why)), 0);
	assert_int_equal(l.cluster_bytes, 33554432);	/* 32 MiB: the largest */
	assert_int_equal(l.held, 0);
	assert_int_equal(exfat_layout(&l, r.dev, &ex, 10, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "cluster size 2^26 is out of range");
	assert_int_equal(exfat_layout(&l, r.dev, &ex, 8, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "sector size 2^8 is out of range");

	b.bytes_per_sector = 512;
	b.sec_per_clus = 4;
	b.data_start = 5000;
	b.total_sectors = 4000;
	assert_int_equal(fat_layout(&l, r.dev, &b, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the data area starts at sector 5000, beyond the volume's 4000 sectors");
	b.sec_per_clus = 0;
	assert_int_equal(fat_layout(&l, r.dev, &b, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "BPB_SecPerClus is 0");
	raw_close(&r);
}

/* The public geometry of FAT12 and of what is neither exFAT nor FAT. */
static void test_public_geometry(void **state)
{
	struct vol v = { 0 };
	struct fsc_geometry g = FSC_GEOMETRY_INIT;

	(void)state;
	build_fat(&v.im, 12);
	vol_open(&v);
	assert_int_equal(fsc_volume_geometry(v.dev, v.p, &g), 0);
	assert_int_equal(g.sector_size, 512);
	assert_int_equal(g.cluster_size, 512);
	assert_int_equal(g.clusters, 2847);
	assert_int_equal(g.clusters_on_device, 2847);
	assert_int_equal(g.data_offset, 16896);
	assert_int_equal(g.fat_offset, 512);
	assert_int_equal(g.fat_bits, 12);
	assert_int_equal(g.root_cluster, 0);
	assert_int_equal(g.root_offset, 9728);
	assert_int_equal(g.root_size, 7168);
	vol_close(&v);

	build_ntfs(&v.im);
	vol_open(&v);
	assert_int_equal(fsc_dev_set_sector_size(v.dev, 4096), 0);
	assert_int_equal(fsc_volume_geometry(v.dev, v.p, &g), -EINVAL);
	assert_int_equal(g.sector_size, 4096);	/* the device's */
	assert_int_equal(g.cluster_size, 0);
	vol_close(&v);
}

/* ---- the one chain iterator (layout/chain.c), over a FAT in an array */
struct fake_fat {
	uint32_t v[16];			/* v[c]: the entry of cluster c as layout_fat_value says */
	unsigned reads;
};

static uint32_t fake_link(void *ctx, uint32_t c)
{
	struct fake_fat *f = ctx;

	f->reads++;
	return c < 16 ? f->v[c] : LAYOUT_UNREADABLE;
}

/* Iterate from first; the clusters given into got (at most 16), their number returned. */
static unsigned walk(struct fake_fat *f, uint32_t held, uint32_t first, uint64_t limit, bool contiguous,
		     uint32_t *got, struct layout_chain *it)
{
	static struct layout l;
	unsigned n = 0;
	uint32_t c;

	memset(&l, 0, sizeof(l));
	l.held = l.clusters = held;
	layout_chain_begin(it, &l, fake_link, f, first, limit, contiguous);
	while (n < 16 && layout_chain_next(it, &c))
		got[n++] = c;
	assert_false(layout_chain_next(it, &c));	/* an ended chain stays ended */
	return n;
}

static void test_chain_iterator(void **state)
{
	struct fake_fat f = { .v = { 0 } };
	struct layout_chain it;
	uint32_t got[16];
	(void)state;

	/* 2 -> 3 -> 4 -> end */
	f.v[2] = 3, f.v[3] = 4, f.v[4] = LAYOUT_END;
	assert_int_equal(walk(&f, 10, 2, 10, false, got, &it), 3);
	assert_int_equal(got[0], 2), assert_int_equal(got[2], 4);
	assert_int_equal(it.end, LAYOUT_CHAIN_END), assert_int_equal(it.lam, 0);

	/* 2 -> 3 -> 4 -> 5 -> 3: four clusters, then back to number 1 (cluster 3) */
	f.v[4] = 5, f.v[5] = 3;
	assert_int_equal(walk(&f, 10, 2, 10, false, got, &it), 4);
	assert_int_equal(it.end, LAYOUT_CHAIN_LOOP);
	assert_int_equal(it.mu, 1), assert_int_equal(it.lam, 3);
	assert_int_equal(it.loop_to, 3), assert_int_equal(it.link, 3), assert_int_equal(it.cur, 5);
	/* the loop test reads at most 3 * limit + 3 entries before the walk's own */
	f.reads = 0;
	walk(&f, 10, 2, 10, false, got, &it);
	assert_true(f.reads <= 3 * 10 + 3 + 3 * 4 + 4);

	/* the same loop past the test's limit: every cluster of the volume, then LONG */
	assert_int_equal(walk(&f, 4, 2, 2, false, got, &it), 4);
	assert_int_equal(it.lam, 0), assert_int_equal(it.end, LAYOUT_CHAIN_LONG);

	/* a cluster linking to itself */
	f.v[6] = 6;
	assert_int_equal(walk(&f, 10, 6, 10, false, got, &it), 1);
	assert_int_equal(it.end, LAYOUT_CHAIN_LOOP), assert_int_equal(it.loop_to, 6), assert_int_equal(it.mu, 0);

	/* free, bad and unreadable entries, a link out of the data area, a first cluster out of it */
	f.v[7] = 8, f.v[8] = LAYOUT_FREE;
	assert_int_equal(walk(&f, 10, 7, 10, false, got, &it), 2), assert_int_equal(it.end, LAYOUT_CHAIN_FREE);
	f.v[8] = LAYOUT_BAD;
	assert_int_equal(walk(&f, 10, 7, 10, false, got, &it), 2), assert_int_equal(it.end, LAYOUT_CHAIN_BAD);
	f.v[8] = LAYOUT_UNREADABLE;
	assert_int_equal(walk(&f, 10, 7, 10, false, got, &it), 2), assert_int_equal(it.end, LAYOUT_CHAIN_UNREADABLE);
	assert_int_equal(it.cur, 8);
	f.v[8] = 12;	/* held 10: clusters 2..11 */
	assert_int_equal(walk(&f, 10, 7, 10, false, got, &it), 2), assert_int_equal(it.end, LAYOUT_CHAIN_RANGE);
	assert_int_equal(it.link, 12);
	assert_int_equal(walk(&f, 10, 1, 10, false, got, &it), 0), assert_int_equal(it.end, LAYOUT_CHAIN_RANGE);
	assert_int_equal(it.link, 1);

	/* contiguous (NoFatChain): no FAT read, to the end of the data area */
	f.reads = 0;
	assert_int_equal(walk(&f, 10, 9, 10, true, got, &it), 3);
	assert_int_equal(got[2], 11), assert_int_equal(it.end, LAYOUT_CHAIN_RANGE), assert_int_equal(f.reads, 0);

	/* the last cluster a caller wants closes the loop: at_loop says so before the next call */
	f.v[2] = 3, f.v[3] = 2;
	layout_chain_begin(&it, &(struct layout){ .held = 10, .clusters = 10 }, fake_link, &f, 2, 2, false);
	{
		uint32_t c;

		assert_true(layout_chain_next(&it, &c) && !layout_chain_at_loop(&it));
		assert_true(layout_chain_next(&it, &c) && layout_chain_at_loop(&it));
		assert_false(layout_chain_next(&it, &c));
		assert_int_equal(it.end, LAYOUT_CHAIN_LOOP), assert_int_equal(it.loop_to, 2);
	}
}

int unit_layout(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat12),
		cmocka_unit_test(test_fat12_block_boundary),
		cmocka_unit_test(test_fat16),
		cmocka_unit_test(test_fat32),
		cmocka_unit_test(test_exfat),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_fat_beyond_device),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_public_geometry),
		cmocka_unit_test(test_chain_iterator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
