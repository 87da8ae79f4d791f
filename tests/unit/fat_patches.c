// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fat_patches.c - one patch of the populated FAT16 volume (build_fat_tree)
 * per FAT check problem; FAT12 and FAT32 where the problem is theirs.
 * test_problems.c lists what each must give.
 */
#include <string.h>

#include "fat_patches.h"
#include "base/bytes.h"

static void t16(struct img *im) { build_fat_tree(im, 16); }
static uint8_t *hello(struct img *im) { return fat_dirent(im, 0, 2); }
static uint8_t *sub(struct img *im, unsigned n) { return fat_dirent(im, 4, n); }

void pf_fat_unreadable(struct img *im) { t16(im); im->len = 512 + 2; }
void pf_fat0(struct img *im) { t16(im); fat_set(im, 0, 0xFFF0); }
void pf_fat1_flags(struct img *im) { t16(im); fat_set(im, 1, 0x7FFF); }
void pf_copies_differ(struct img *im) { t16(im); fat_set_copy(im, 1, 9, 0xFFFF); }
void pf_chain_range(struct img *im) { t16(im); fat_set(im, 7, 60000); }
void pf_chain_loop(struct img *im) { t16(im); fat_set(im, 8, 7); }
void pf_cross_link(struct img *im) { t16(im); put_le16(hello(im), 26, 7); put_le32(hello(im), 28, 600); }
void pf_chain_free(struct img *im) { t16(im); fat_set(im, 8, 0); }
void pf_chain_bad(struct img *im) { t16(im); fat_set(im, 8, 0xFFF7); }
void pf_chain_short(struct img *im) { t16(im); fat_set(im, 7, 0xFFFF); }
void pf_chain_long(struct img *im) { t16(im); fat_set(im, 3, 9); fat_set(im, 9, 0xFFFF); }
void pf_chain_zero_size(struct img *im) { t16(im); put_le32(hello(im), 28, 0); }
void pf_lost(struct img *im) { t16(im); fat_set(im, 20, 21); fat_set(im, 21, 0xFFFF); fat_set(im, 30, 0xFFFF); }
void pf_fsinfo_free(struct img *im) { build_fat_tree(im, 32); put_le32(im->buf, 512 + 488, 5); }
void pf_fsinfo_next(struct img *im) { build_fat_tree(im, 32); put_le32(im->buf, 512 + 492, 0x0FFFFFF0); }
void pf_fsinfo_backup(struct img *im) { build_fat_tree(im, 32); put_le32(im->buf, 7 * 512, 0); }
void pf_dot_missing(struct img *im) { t16(im); sub(im, 0)[0] = 0xE5; }
/*
 * Garbage over both dot slots of sub: a "file" with a reserved attribute
 * bit (one field no file could have) where . was, and where .. was an
 * invalid name with directory and label bits at once (two).
 */
void pf_dots_garbage(struct img *im)
{
	t16(im);
	memset(sub(im, 0), 0, 64);
	memcpy(sub(im, 0), "GARBAGE0BIN", 11);
	sub(im, 0)[11] = 0x60;
	memcpy(sub(im, 1), "GAR\nAGE1BIN", 11);
	sub(im, 1)[11] = 0x18;
}
void pf_dot_cluster(struct img *im) { t16(im); put_le16(sub(im, 1), 26, 5); }
void pf_short_name(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "A*B        ", NULL, 0x20, 0, 0); }
/* byte 12's "no 8.3 name" flag on a sound name with no long name (fsck.fat: a bad name) */
void pf_short_no83(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "PLAIN   TXT", NULL, 0x20, 0, 0); fat_dirent(im, 0, 7)[12] |= 0x20; }
void pf_short_unusual(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "abc     TXT", NULL, 0x20, 0, 0); }
void pf_name_dup(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "HELLO   TXT", NULL, 0x20, 0, 0); }
void pf_name_case_dup(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "HELLO~1 TXT", "HELLO.txt", 0x20, 0, 0); }
void pf_lfn_sequence(struct img *im) { t16(im); fat_dirent(im, 0, 5)[0] = 0x03; }
/* a long-name part's type byte and cluster field not 0 (fsck.fat: damaged) */
void pf_lfn_reserved(struct img *im) { t16(im); fat_dirent(im, 0, 4)[12] = 4; put_le16(fat_dirent(im, 0, 5), 26, 0x208); }
void pf_lfn_checksum(struct img *im) { t16(im); fat_dirent(im, 0, 4)[13] ^= 1; fat_dirent(im, 0, 5)[13] ^= 1; }

void pf_lfn_orphan(struct img *im)
{
	t16(im);
	fat_put_entry(im, 0, 7, "ORPHAN     ", "orphan", 0x20, 0, 0);
	fat_dirent(im, 0, 8)[0] = 0xE5;		/* its 8.3 entry deleted */
}

/* a 255-character long name whose 0x0000 after the last character became one: 256 */
void pf_lfn_length(struct img *im)
{
	char name[256];

	t16(im);
	memset(name, 'n', 255);
	name[255] = 0;
	fat_put_entry(im, 0, 7, "NNNNNN~1   ", name, 0x20, 0, 0);
	put_le16(fat_dirent(im, 0, 7), 20, 'x');	/* (part 20, unit 256) */
}

void pf_lfn_utf16(struct img *im) { t16(im); put_le16(fat_dirent(im, 0, 1), 1, 0xD800); }
void pf_after_end(struct img *im) { t16(im); fat_put_entry(im, 0, 8, "STRAY   TXT", NULL, 0x20, 0, 0); }
void pf_dir_size(struct img *im) { t16(im); put_le32(fat_dirent(im, 0, 3), 28, 512); }
void pf_dir_no_cluster(struct img *im) { t16(im); fat_put_entry(im, 0, 7, "EMPTY      ", NULL, 0x10, 0, 0); }
void pf_label_entry(struct img *im) { t16(im); fat_put_entry(im, 4, 4, "SUBLABEL   ", NULL, 0x08, 0, 0); }
/* a "label" in /SUB whose cluster is /SUB's own (garbage of a torn write reads so): no file to make of it */
void pf_label_entry_owned(struct img *im) { t16(im); fat_put_entry(im, 4, 4, "?A? ?F?I?L?", NULL, 0x08, 4, 15233); }
void pf_label_mismatch(struct img *im) { t16(im); memcpy(im->buf + 43, "OTHER      ", 11); }
/* BS_BootSig 0x28 (a serial, no label field): fsck.fat reads the boot label as empty, unlike the root's */
void pf_label_sig28(struct img *im) { t16(im); im->buf[38] = 0x28; }
/* the same in a FAT32 main boot sector only, one bit from the backup's 0x29 (seed 499, pop-fat32 #18) */
void pf_label_sig28_f32(struct img *im) { build_fat_tree(im, 32); im->buf[66] = 0x28; }
/* The root's label entry (slot 0) deleted: the boot sector's label is left alone. */
void pf_label_root_missing(struct img *im) { t16(im); fat_dirent(im, 0, 0)[0] = 0xE5; }
void pf_attributes(struct img *im) { t16(im); hello(im)[11] = 0x60; }
/* hello.txt's ATTR_DIRECTORY set (0x20 -> 0x30): its size and a cluster with no . entry say file */
void pf_file_dir_bit(struct img *im) { t16(im); hello(im)[11] |= 0x10; }
/* a long-name part with 0x40 set in its attributes: Linux and fsck.fat read an 8.3 entry there */
void pf_lfn_attributes(struct img *im) { t16(im); fat_dirent(im, 0, 4)[11] = 0x4F; }
void pf_timestamp(struct img *im) { t16(im); put_le16(hello(im), 24, (uint16_t)(44 << 9 | 13 << 5 | 1)); }
/* The image ends inside the root area. */
void pf_dir_unreadable(struct img *im) { t16(im); im->len = im->root_byte + 1024; }

/* FAT12: chains through odd clusters (entries straddling bytes) and a short one. */
void pf_fat12_odd(struct img *im)
{
	build_fat_tree(im, 12);
	fat_set(im, 7, 9);
	fat_set(im, 9, 11);
	fat_set(im, 11, 0xFFF);
	fat_set(im, 8, 0);
}

void pf_f32_tree(struct img *im) { build_fat_tree(im, 32); }
void pf_f12_tree(struct img *im) { build_fat_tree(im, 12); }

/* FAT32 with mirroring off and FAT 2 active: the copies may differ, FAT 2 is read. */
void pf_inactive_copy(struct img *im)
{
	build_fat_tree(im, 32);
	put_le16(im->buf, 40, 0x81);
	memcpy(im->buf + 6 * 512, im->buf, 512);
	fat_set_copy(im, 0, 20, 0x0FFFFFFF);	/* a lost cluster in the inactive copy: not reported */
}

/* /SUB/INNER points to cluster 9, free in the FAT and all zeros (no . and ..): dosfstools #175. */
void pf_dir_free_sub(struct img *im)
{
	t16(im);
	fat_put_entry(im, 4, 4, "INNER      ", NULL, 0x10, 9, 0);
}

/* SUB's entry lost its cluster number: its tree (cluster 4 and A.BIN's 7-8) is lost, its .. is the root. */
void pf_dir_astray(struct img *im) { t16(im); put_le16(fat_dirent(im, 0, 3), 26, 0); }
/* SUB's entry points to the root's... no: to hello.txt's cluster 3, which the root claimed first. */
void pf_dir_cycle(struct img *im) { t16(im); put_le16(fat_dirent(im, 0, 3), 26, 3); }
/*
 * SUB's cluster field damaged into the second cluster of A.BIN, a file in SUB itself (7 -> 8): no . there, a
 * chain runs into it, and no walk claims it before SUB's does (A.BIN is reached only through SUB's own cluster).
 */
/* SUB's cluster field damaged out of the data area. */
void pf_dir_range(struct img *im) { t16(im); put_le16(fat_dirent(im, 0, 3), 26, 60000); memset(fat_dirent(im, 8, 0), 'x', 64); }
void pf_dir_into_file(struct img *im) { t16(im); put_le16(fat_dirent(im, 0, 3), 26, 8); memset(fat_dirent(im, 8, 0), 'x', 64); }

/* SUB's entry deleted while its clusters stayed: a lost directory whose .. is the root, its entry there still. */
void pf_lost_dir(struct img *im) { t16(im); fat_dirent(im, 0, 3)[0] = 0xE5; }
/* The same, and A.BIN (in SUB) has a chain shorter than its size: a problem only a walk of the tree relinked sees. */
void pf_lost_dir_damaged(struct img *im) { pf_lost_dir(im); fat_set(im, 7, 0xFFFF); }

/* FAT32: a directory INNER (cluster 9, holding c.bin at 10) whose entry in SUB is gone, not even deleted. */
void pf_lost_subdir(struct img *im)
{
	build_fat_tree(im, 32);
	fat_put_entry(im, 9, 0, ".          ", NULL, 0x10, 9, 0);
	fat_put_entry(im, 9, 1, "..         ", NULL, 0x10, 4, 0);
	fat_put_entry(im, 9, 2, "C       BIN", "c.bin", 0x20, 10, 100);
	fat_set(im, 9, fat_eoc(im));
	fat_set(im, 10, fat_eoc(im));
	put_le32(im->buf, 512 + 488, im->cluster_count - 9);	/* clusters 2..10 used */
	put_le32(im->buf, 512 + 492, 11);
	memcpy(im->buf + 7 * 512, im->buf + 512, 512);
}

/* The first FAT copy (the one drivers read) lost A.BIN's link; the second is whole. */
void pf_copies_wrong(struct img *im) { t16(im); fat_set_copy(im, 0, 7, 0); }
