/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe/probe.h - the probe (struct fsc_probe, opaque in fatscope.h) and
 * what it found in the exFAT root; classification and the probe's checks
 * of boot sectors and roots.  Not installed.
 */
#ifndef FSC_PROBE_H
#define FSC_PROBE_H

#include "exfat/exfat.h"
#include "fat/fat.h"

/* What a directory scan of the exFAT root found (probe-level view). */
struct fsc_exfat_root {
	bool read;			/* scanned at all */
	char error[96];			/* why not, or why the chain broke */
	bool chain_ok;
	uint32_t clusters;		/* clusters in the root chain */
	bool bitmap_found;		/* first 0x81 with BitmapFlags bit 0 clear */
	bool bitmap_after_end;		/* only found past a 0x00 entry */
	uint32_t bitmap_cluster;
	uint64_t bitmap_length;
	bool bitmap_self_allocated;	/* its own clusters are marked used */
	bool bitmap_self_checked;
	bool bitmap_fragmented;		/* its chain (whole) is not in a row, as Linux reads it */
	bool upcase_found;
	bool upcase_after_end;
	uint32_t upcase_cluster;
	uint64_t upcase_length;
	uint32_t upcase_checksum_stored, upcase_checksum_computed;
	bool upcase_read;		/* table read and checksummed */
	bool upcase_fragmented;		/* its chain is not in a row, as Linux reads it */
	uint32_t upcase_coverage;	/* code points covered */
	const char *upcase_length_bad;	/* why DataLength cannot be a table, or NULL */
	bool label_found;		/* first 0x83 before the end marker */
	uint8_t label_chars;
	uint8_t label_bad_chars;	/* of the first min(label_chars, 11) units, those a file name may not hold */
	uint16_t label_bad_unit;	/* the first of them, */
	uint8_t label_bad_at;		/* at this index */
	char label[48];			/* UTF-8 */
	bool guid_found;
	uint8_t guid[16];		/* as stored (Windows' GUID layout) */
	uint8_t fuse_bad_type;		/* first in-use type exfat-fuse rejects, 0 if none */
	char fuse_error[96];		/* first entry-set error exfat-fuse reports */
};

/* What fsc_probe_volume() found; opaque to callers (fatscope.h's accessors in probe.c). */
struct fsc_probe {
	enum fsc_type type;
	uint32_t dev_sector_size;
	uint64_t dev_size;
	uint8_t sector0[4096];		/* first min(4096, size) bytes */
	size_t sector0_len;
	struct fsc_findings findings;
	bool has_label, has_serial;
	char label[48];
	char serial[24];		/* as blkid's UUID shows it */
	struct fsc_exfat_boot ex;
	struct fsc_exfat_root root;	/* volume geometry from the boot sector */
	struct fsc_exfat_root root_dev;	/* geometry in device sectors (staging) */
	bool root_dev_differs;
	struct fsc_fat_bpb fat;
	struct fsc_mbr_entry mbr[4];
	uint64_t ntfs_serial;
	bool ntfs_blkid_ok;		/* passes blkid's ntfs prober */
	char ntfs_blkid_why[80];
	/* sector 0 destroyed over a sound backup (EXFAT_MAIN_BOOT_LOST, FAT32_MAIN_BOOT_LOST) */
	enum fsc_type backup_type;	/* FSC_TYPE_EXFAT or FSC_TYPE_FAT32; FSC_TYPE_UNKNOWN: none */
	uint64_t backup_byte;		/* where the backup is */
	uint32_t backup_len;		/* the bytes it stands in for at byte 0 */
};

/* probe.c */
/* What sector s (512 bytes) is, by its bytes alone (fsc_probe_volume's first step). */
enum fsc_type probe_classify(const uint8_t *s);
/* false when probe_classify(s) cannot be exFAT or FAT; cheap, for scans. */
bool probe_maybe_volume(const uint8_t *s);
/*
 * Classify p->sector0 (p->sector0_len, dev_size and dev_sector_size set)
 * and run its decoder and checks on dev, as fsc_probe_volume does.
 */
void probe_decode(struct fsc_dev *dev, struct fsc_probe *p);

/* exfat_boot.c -> exfat_root.c */
void exfat_boot_check(struct fsc_dev *dev, struct fsc_probe *p);
void exfat_root_scan(struct fsc_dev *dev, const struct fsc_exfat_boot *ex,
		     unsigned sector_shift, struct fsc_exfat_root *r);
void exfat_root_findings(struct fsc_probe *p);

/* fat_bpb.c */
void fat_bpb_check(struct fsc_dev *dev, struct fsc_probe *p);

#endif
