/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * builder.h - build volumes in memory for the unit tests: healthy exFAT
 * and FAT12/16/32 volumes that every model accepts, NTFS, MBR and GPT
 * sectors, and small byte patches on top of them.
 */
#ifndef FSC_TEST_BUILDER_H
#define FSC_TEST_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fatscope/fatscope.h"

struct img {
	uint8_t *buf;
	size_t len;
	uint32_t dev_sector;		/* device logical sector size, 512 by default */
	/* exFAT layout, filled by build_exfat */
	uint32_t ss, cb;		/* sector and cluster bytes */
	uint64_t fat_byte, heap_byte;
	uint32_t cluster_count;
	uint64_t root_byte;		/* first root directory cluster */
};

/* A buffer of size bytes for an image (zeroed when zero), huge pages when
 * big; a copy of buf in one.  free() releases them; they never fail (abort). */
void *img_buf_alloc(size_t size, bool zero);
void *img_buf_dup(const void *buf, size_t size);
/* exFAT, size bytes, 2^bps-byte sectors, 2^spc sectors per cluster, label "TEST". */
void build_exfat(struct img *im, size_t size, unsigned bps, unsigned spc);
/* Recompute the main boot checksum; copy the main region to the backup. */
void exfat_resign(struct img *im);
/* Recompute the main boot checksum only (the backup keeps its bytes). */
void exfat_resign_main(struct img *im);
/* Recompute the backup region's own checksum. */
void exfat_resign_backup(struct img *im);
/* Byte offset of root directory entry slot n. */
uint8_t *exfat_root_entry(struct img *im, unsigned n);
/* Set exFAT FAT entry of cluster c. */
void exfat_set_fat(struct img *im, uint32_t c, uint32_t v);

/* FAT12 floppy (1440 KiB), FAT16 (8 MiB), FAT32 (34 MiB): mkfs.fat-like. */
void build_fat(struct img *im, int bits);
/*
 * A FAT volume with the given BPB numbers (bits: 12/16 use FATSz16 and a
 * fixed root; 32 uses FATSz16 = 0).
 */
void build_fat_custom(struct img *im, int bits, uint32_t total, uint8_t spc, uint16_t rsvd,
		      uint16_t root_entries, uint32_t fat_size);

/*
 * builder_fat.c: a populated FAT volume of the given width (build_fat's
 * geometry; the tree is described at build_fat_tree in builder_fat.c).
 * fsck finds nothing on it.
 */
void build_fat_tree(struct img *im, int bits);
/* Directory entry slot n of cluster c (0: the FAT12/16 root area). */
uint8_t *fat_dirent(struct img *im, uint32_t c, unsigned n);
/* builder_fat.c: the img fields fat_dirent and the others use, from the BPB build_fat made (build_fat_tree calls it). */
void fat_geometry(struct img *im);
/* The root's cluster for fat_dirent: 0 (FAT12/16) or 2 (FAT32). */
uint32_t fat_root(const struct img *im);
/* The end-of-chain value of the volume's FAT width. */
uint32_t fat_eoc(const struct img *im);
/* FAT entry of cluster c in both copies, or in copy k only. */
void fat_set(struct img *im, uint32_t c, uint32_t v);
void fat_set_copy(struct img *im, unsigned k, uint32_t c, uint32_t v);
/*
 * Long-name parts for lfn (ASCII; NULL: none) and the 8.3 entry sfn (11
 * bytes as stored) from slot n of dir, dated 2024-01-01; the entries
 * written.
 */
unsigned fat_put_entry(struct img *im, uint32_t dir, unsigned n, const char *sfn, const char *lfn, uint8_t attr,
		       uint32_t first, uint32_t size);

void build_ntfs(struct img *im);
/* An MBR with boot code in bytes 0..445 (byte 16 = b16) and one partition. */
void build_mbr(struct img *im, uint8_t b16);
void build_gpt_pmbr(struct img *im);
/* size bytes of zeros; with_sig puts 0x55AA at 510. */
void build_zero(struct img *im, size_t size, int with_sig);

void img_free(struct img *im);

/* The next number of one fixed pseudo-random sequence (xorshift64*): the same on every run. */
uint64_t test_rand(void);

/* Probe the image (as a memory device with im->dev_sector). */
struct fsc_probe *img_probe(struct img *im);

#endif

/*
 * A populated exFAT volume (4 MiB, 4 KiB clusters): the root holds the
 * label, bitmap and up-case entries, hello.txt (100 bytes, cluster 5) at
 * slot 3 and directory sub (cluster 6) at slot 6; sub holds a.bin (4097
 * bytes, FAT chain 7 -> 8) at slot 0 and b.bin (8192 bytes, NoFatChain
 * 9-10) at slot 3.  fsck finds nothing on it.
 */
void build_exfat_tree(struct img *im);
/* Entry slot n of cluster c. */
uint8_t *exfat_entry(struct img *im, uint32_t c, unsigned n);
/*
 * Write a file entry set (file, stream, names) for an ASCII name at slot n
 * of cluster c with a valid hash, timestamps and checksum; returns the
 * number of entries written.
 */
unsigned exfat_put_file(struct img *im, uint32_t c, unsigned n, const char *name, uint16_t attr,
			uint32_t first, uint64_t size, uint8_t flags);
/* Recompute the SetChecksum of the set starting at slot n of cluster c. */
void exfat_fix_set(struct img *im, uint32_t c, unsigned n);
/* Mark cluster c used (on) or free in the allocation bitmap. */
void exfat_mark(struct img *im, uint32_t c, int on);
