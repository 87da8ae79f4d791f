// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bootsec.c - classify the first sector of a volume and run the decoder
 * of its kind: exFAT (exfat_boot.c, exfat_root.c), FAT12/16/32
 * (fat_bpb.c), NTFS, MBR and GPT protective MBR (here), blank, unknown.
 *
 * Order matters: a name magic wins ("EXFAT   ", "NTFS    "), then a FAT
 * BPB that passes the basic field rules, then an exFAT boot sector that
 * lost its name (zero BPB area and coherent geometry), then a partition
 * table.  Every test checks many bytes, so random sectors stay unknown.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "probe/probe.h"

static const char *const type_names[FSC_TYPE_COUNT] = {
	[FSC_TYPE_UNKNOWN] = "unknown", [FSC_TYPE_BLANK] = "blank",
	[FSC_TYPE_EXFAT] = "exfat", [FSC_TYPE_FAT12] = "fat12",
	[FSC_TYPE_FAT16] = "fat16", [FSC_TYPE_FAT32] = "fat32",
	[FSC_TYPE_NTFS] = "ntfs", [FSC_TYPE_MBR] = "mbr", [FSC_TYPE_GPT] = "gpt",
};

FSC_EXPORT const char *fsc_type_name(enum fsc_type t)
{
	return (unsigned)t < FSC_TYPE_COUNT ? type_names[t] : "unknown";
}

FSC_EXPORT bool fsc_type_is_fat(enum fsc_type t)
{
	return t == FSC_TYPE_FAT12 || t == FSC_TYPE_FAT16 || t == FSC_TYPE_FAT32;
}

FSC_EXPORT const char *fsc_version(void)
{
	return PACKAGE_VERSION;
}

/* The MBR's partition table: four 16-byte entries before the signature word. */
#define MBR_TABLE	446
#define MBR_ENTRY_SIZE	16
#define MBR_STATUS	0	/* 1: 0x80 active, 0x00 not */
#define MBR_TYPE	4	/* 1 */
#define MBR_LBA_START	8	/* 4 */
#define MBR_LBA_SIZE	12	/* 4 */
#define MBR_TYPE_GPT	0xEE	/* the protective MBR of a GPT disk */

/* The NTFS boot sector's own fields past the BPB NTFS shares with FAT (NTFS leaves the rest zero). */
#define NTFS_TOTAL_SECTORS		40	/* 8 */
#define NTFS_MFT_CLUSTER		48	/* 8 */
#define NTFS_MFT_MIRROR_CLUSTER		56	/* 8 */
#define NTFS_CLUSTERS_PER_MFT_RECORD	64	/* 1, signed: negative is 2^-v bytes */
#define NTFS_SERIAL			72	/* 8 */

static bool mbr_plausible(const uint8_t *s)
{
	if (get_le16(s, FAT_BS_SIGNATURE) != FAT_BS_SIGNATURE_VALUE)
		return false;
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = s + MBR_TABLE + MBR_ENTRY_SIZE * i;

		if (e[MBR_STATUS] != 0x00 && e[MBR_STATUS] != 0x80)
			return false;
		if (e[MBR_TYPE] != 0 && get_le32(e, MBR_LBA_SIZE) == 0)
			return false;
	}
	return true;
}

static void mbr_decode(struct fsc_probe *p)
{
	const uint8_t *s = p->sector0;

	p->type = FSC_TYPE_MBR;
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = s + MBR_TABLE + MBR_ENTRY_SIZE * i;

		p->mbr[i].status = e[MBR_STATUS];
		p->mbr[i].type = e[MBR_TYPE];
		p->mbr[i].start = get_le32(e, MBR_LBA_START);
		p->mbr[i].size = get_le32(e, MBR_LBA_SIZE);
		if (e[MBR_TYPE] == MBR_TYPE_GPT)
			p->type = FSC_TYPE_GPT;
	}
	/* (bytes 11..63: where a BPB would lie) */
	if (!bytes_all(s, FAT_BPB_BYTS_PER_SEC, FAT32_BS_DRV_NUM - FAT_BPB_BYTS_PER_SEC, 0)) {
		struct fsc_finding *f = finding_add(&p->findings, FSC_PR_MBR_BPB_OVERLAP,
						    FSC_LOC_BYTE, 16, "boot code");
		finding_actual(f, "0x%02x", s[16]);
	}
}

/*
 * The ntfs prober of libblkid: BPB fields NTFS leaves zero, a sane cluster
 * and MFT record size, $MFT inside the volume and "FILE" at its record 0.
 */
static void ntfs_decode(struct fsc_dev *dev, struct fsc_probe *p)
{
	const uint8_t *s = p->sector0;
	uint16_t bps = get_le16(s, FAT_BPB_BYTS_PER_SEC);
	uint32_t spc = s[FAT_BPB_SEC_PER_CLUS];
	int8_t cpmr = (int8_t)s[NTFS_CLUSTERS_PER_MFT_RECORD];
	uint64_t nsec = get_le64(s, NTFS_TOTAL_SECTORS), mft = get_le64(s, NTFS_MFT_CLUSTER);
	uint64_t mirr = get_le64(s, NTFS_MFT_MIRROR_CLUSTER);
	uint8_t rec[4];

	p->ntfs_serial = get_le64(s, NTFS_SERIAL);
	snprintf(p->serial, sizeof(p->serial), "%016llX", (unsigned long long)p->ntfs_serial);
	p->has_serial = true;
	if (spc > 128) {		/* 240..249: 2^(256-v) sectors */
		if (spc < 240 || spc > 249)
			spc = 0;
		else
			spc = 1u << (256 - spc);
	}
	if (bps < 256 || bps > 4096 || !is_pow2_u32(spc)) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "sector or cluster size invalid");
		return;
	}
	if (get_le16(s, FAT_BPB_RSVD_SEC_CNT) || s[FAT_BPB_NUM_FATS] || get_le16(s, FAT_BPB_ROOT_ENT_CNT) ||
	    get_le16(s, FAT_BPB_TOT_SEC16) || get_le16(s, FAT_BPB_FAT_SZ16) || get_le32(s, FAT_BPB_TOT_SEC32)) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "BPB fields NTFS keeps zero are set");
		return;
	}
	if (cpmr == 0 || (cpmr < 0 && (cpmr < -31))) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "bad MFT record size");
		return;
	}
	if (mft > nsec / spc || mirr > nsec / spc) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "$MFT outside the volume");
		return;
	}
	if (fsc_dev_read(dev, mft * spc * bps, rec, 4) < 0) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "$MFT cannot be read");
		return;
	}
	if (memcmp(rec, "FILE", 4) != 0) {
		snprintf(p->ntfs_blkid_why, sizeof(p->ntfs_blkid_why), "no FILE record at $MFT");
		return;
	}
	p->ntfs_blkid_ok = true;
}

/*
 * A FAT BPB as vfat would take it: bytes an exFAT boot sector keeps zero
 * (11..63) hold a plausible BPB, a media byte and one or two FATs.
 */
static bool fat_bpb_whole(const uint8_t *s)
{
	return fat_bpb_plausible(s) && (s[FAT_BPB_MEDIA] == 0xF0 || s[FAT_BPB_MEDIA] >= 0xF8) &&
	       s[FAT_BPB_NUM_FATS] <= 2 && (get_le16(s, FAT_BPB_TOT_SEC16) != 0 || get_le32(s, FAT_BPB_TOT_SEC32) != 0);
}

enum fsc_type probe_classify(const uint8_t *s)
{
	/* The name is one vote: a whole FAT BPB where exFAT keeps zeros makes it FAT (FAT_OEM_EXFAT). */
	if (memcmp(s + 3, "EXFAT   ", 8) == 0 && !fat_bpb_whole(s))
		return FSC_TYPE_EXFAT;
	if (memcmp(s + 3, "NTFS    ", 8) == 0)
		return FSC_TYPE_NTFS;
	if (fat_bpb_plausible(s))
		return FSC_TYPE_FAT16;	/* refined by fat_bpb_check() */
	if (exfat_lookalike(s))
		return FSC_TYPE_EXFAT;
	if (mbr_plausible(s))
		return FSC_TYPE_MBR;
	if (bytes_all(s, 0, 512, 0x00) || bytes_all(s, 0, 512, 0xFF))
		return FSC_TYPE_BLANK;
	return FSC_TYPE_UNKNOWN;
}

/*
 * Everything probe_classify() calls exFAT or FAT has one of: the name
 * "EXFAT   ", a power-of-two BytsPerSec from 512 to 4096 (fat_bpb_plausible),
 * or zeros at 11..12 with a BytesPerSectorShift of 9 to 12 (exfat_lookalike).
 * A few byte loads, so that a scan can pass over every sector of a disk.
 */
bool probe_maybe_volume(const uint8_t *s)
{
	uint16_t bps = get_le16(s, FAT_BPB_BYTS_PER_SEC);

	if (bps == 0)
		return s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT] >= 9 && s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT] <= 12;
	return (bps == 512 || bps == 1024 || bps == 2048 || bps == 4096) ||
	       memcmp(s + 3, "EXFAT   ", 8) == 0;
}

/*
 * Sector 0 holds nothing a driver takes (blank, or unknown bytes): is a
 * sound exFAT backup boot region at sector 12, for some sector size?
 */
static void lost_main_region(struct fsc_dev *dev, struct fsc_probe *p)
{
	uint8_t *b = malloc(12 * 4096);
	struct fsc_finding *f;

	for (unsigned ss = 512; b && ss <= 4096; ss *= 2) {
		/* the name first (one sector), the whole region only then */
		if (fsc_dev_size(dev) < 24ull * ss || fsc_dev_read(dev, 12ull * ss, b, 512) < 0 ||
		    memcmp(b + EXFAT_BOOT_FILE_SYSTEM_NAME, "EXFAT   ", 8) != 0 ||
		    fsc_dev_read(dev, 12ull * ss, b, 12ull * ss) < 0 ||
		    !exfat_region_sound(b, ss))
			continue;
		f = finding_add(&p->findings, FSC_PR_EXFAT_MAIN_BOOT_LOST, FSC_LOC_SECTOR, 12, NULL);
		if (f)
			finding_detail(f, "%u-byte sectors", ss);
		p->backup_type = FSC_TYPE_EXFAT;
		p->backup_byte = 12ull * ss;
		p->backup_len = 12 * ss;
		break;
	}
	free(b);
}

/*
 * The same for FAT32 (fatgen103: BPB_BkBootSec, 6 as every formatter
 * writes it, since sector 0 no longer says): a sector 6 that, probed in
 * sector 0's place, is a FAT32 boot sector naming itself the backup, with
 * no error finding.
 */
static void lost_fat32_main(struct fsc_dev *dev, struct fsc_probe *p)
{
	struct fsc_probe *t = calloc(1, sizeof(*t));
	struct fsc_finding *f;

	for (unsigned ss = 512; t && ss <= 4096; ss *= 2) {
		bool sound = true;

		memset(t, 0, sizeof(*t));
		t->dev_sector_size = p->dev_sector_size;
		t->dev_size = p->dev_size;
		t->sector0_len = ss;
		if (p->dev_size < (FAT32_BK_BOOT_SEC_USUAL + 1ull) * ss ||
		    fsc_dev_read(dev, FAT32_BK_BOOT_SEC_USUAL * (uint64_t)ss, t->sector0, ss) < 0 ||
		    !fat_bpb_plausible(t->sector0) || get_le16(t->sector0, FAT_BPB_BYTS_PER_SEC) != ss ||
		    get_le16(t->sector0, FAT_BPB_FAT_SZ16) != 0 ||
		    get_le16(t->sector0, FAT32_BPB_BK_BOOT_SEC) != FAT32_BK_BOOT_SEC_USUAL)
			continue;
		fat_bpb_check(dev, t);
		for (size_t i = 0; i < t->findings.n; i++)
			sound &= fsc_problem_info(t->findings.v[i].id)->severity < FSC_SEV_ERROR;
		finding_list_clear(&t->findings);
		if (t->type != FSC_TYPE_FAT32 || !sound)
			continue;
		f = finding_add(&p->findings, FSC_PR_FAT32_MAIN_BOOT_LOST, FSC_LOC_SECTOR, 6, NULL);
		if (f)
			finding_detail(f, "%u-byte sectors", ss);
		p->backup_type = FSC_TYPE_FAT32;
		p->backup_byte = 6ull * ss;
		p->backup_len = ss;
		break;
	}
	free(t);
}

/* Sector 0 is no boot sector: is the volume's backup there? */
static void lost_boot_sector(struct fsc_dev *dev, struct fsc_probe *p)
{
	lost_main_region(dev, p);
	if (p->backup_type == FSC_TYPE_UNKNOWN)
		lost_fat32_main(dev, p);
}

/* A partition table with no partition in it. */
static bool mbr_empty(const struct fsc_probe *p)
{
	for (int i = 0; i < 4; i++)
		if (p->mbr[i].type != 0)
			return false;
	return true;
}

void probe_decode(struct fsc_dev *dev, struct fsc_probe *p)
{
	p->type = probe_classify(p->sector0);
	switch (p->type) {
	case FSC_TYPE_EXFAT:
		exfat_boot_check(dev, p);
		break;
	case FSC_TYPE_FAT16:
		fat_bpb_check(dev, p);
		if (memcmp(p->sector0 + 3, "EXFAT   ", 8) == 0)
			finding_add(&p->findings, FSC_PR_FAT_OEM_EXFAT, FSC_LOC_BYTE, 3, "BS_OEMName");
		break;
	case FSC_TYPE_NTFS:
		ntfs_decode(dev, p);
		break;
	case FSC_TYPE_MBR:
		mbr_decode(p);
		/*
		 * An empty partition table is also what a superfloppy exFAT boot
		 * sector with a damaged name looks like (zeros in its boot code,
		 * 55 AA): a sound backup region behind it says which it is.
		 */
		if (mbr_empty(p))
			lost_boot_sector(dev, p);
		break;
	case FSC_TYPE_BLANK:
	case FSC_TYPE_UNKNOWN:
		lost_boot_sector(dev, p);
		break;
	default:
		break;
	}
}

FSC_EXPORT int fsc_probe_volume(struct fsc_dev *dev, struct fsc_probe **out)
{
	struct fsc_probe *p;
	uint64_t size = fsc_dev_size(dev);
	int r;

	*out = NULL;
	if (size < 512)
		return -ENODATA;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dev_sector_size = fsc_dev_sector_size(dev);
	p->dev_size = size;
	p->sector0_len = size < sizeof(p->sector0) ? (size_t)size : sizeof(p->sector0);
	r = fsc_dev_read(dev, 0, p->sector0, p->sector0_len);
	if (r < 0) {
		free(p);
		return r;
	}
	probe_decode(dev, p);
	*out = p;
	return 0;
}

FSC_EXPORT enum fsc_type fsc_probe_backup_type(const struct fsc_probe *p)
{
	return p->backup_type;
}

FSC_EXPORT enum fsc_type fsc_probe_volume_type(const struct fsc_probe *p)
{
	return p->backup_type != FSC_TYPE_UNKNOWN ? p->backup_type : p->type;
}

FSC_EXPORT int fsc_probe_backup_view(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_dev **view,
				     struct fsc_probe **vp)
{
	int r;

	*view = NULL;
	*vp = NULL;
	if (p->backup_type == FSC_TYPE_UNKNOWN)
		return -ENOENT;
	if (!(*view = dev_remap(dev, p->backup_len, p->backup_byte)))
		return -ENOMEM;
	r = fsc_probe_volume(*view, vp);
	if (r == 0 && (*vp)->type != p->backup_type)
		r = -EIO;	/* the device changed since p was probed */
	if (r < 0) {
		fsc_probe_free(*vp);
		fsc_dev_close(*view);
		*vp = NULL;
		*view = NULL;
	}
	return r;
}

FSC_EXPORT void fsc_probe_free(struct fsc_probe *p)
{
	if (!p)
		return;
	finding_list_clear(&p->findings);
	free(p);
}

/* ---- the accessors of the opaque struct fsc_probe ---- */

FSC_EXPORT enum fsc_type fsc_probe_type(const struct fsc_probe *p)
{
	return p->type;
}

FSC_EXPORT uint32_t fsc_probe_dev_sector_size(const struct fsc_probe *p)
{
	return p->dev_sector_size;
}

FSC_EXPORT uint64_t fsc_probe_dev_size(const struct fsc_probe *p)
{
	return p->dev_size;
}

FSC_EXPORT const char *fsc_probe_label(const struct fsc_probe *p)
{
	return p->has_label ? p->label : NULL;
}

FSC_EXPORT const char *fsc_probe_serial(const struct fsc_probe *p)
{
	return p->has_serial ? p->serial : NULL;
}

FSC_EXPORT const struct fsc_findings *fsc_probe_findings(const struct fsc_probe *p)
{
	return &p->findings;
}

FSC_EXPORT const struct fsc_exfat_boot *fsc_probe_exfat(const struct fsc_probe *p)
{
	return p->type == FSC_TYPE_EXFAT ? &p->ex : NULL;
}

FSC_EXPORT const struct fsc_fat_bpb *fsc_probe_fat(const struct fsc_probe *p)
{
	return fsc_type_is_fat(p->type) ? &p->fat : NULL;
}

FSC_EXPORT const struct fsc_mbr_entry *fsc_probe_mbr(const struct fsc_probe *p)
{
	return p->type == FSC_TYPE_MBR || p->type == FSC_TYPE_GPT ? p->mbr : NULL;
}

FSC_EXPORT bool fsc_probe_ntfs_blkid_ok(const struct fsc_probe *p, const char **why)
{
	if (why)
		*why = p->type != FSC_TYPE_NTFS ? "not NTFS" : p->ntfs_blkid_ok ? "" : p->ntfs_blkid_why;
	return p->type == FSC_TYPE_NTFS && p->ntfs_blkid_ok;
}

FSC_EXPORT const uint8_t *fsc_probe_sector0(const struct fsc_probe *p, size_t *len)
{
	if (len)
		*len = p->sector0_len;
	return p->sector0;
}

FSC_EXPORT bool fsc_probe_spec_valid(const struct fsc_probe *p)
{
	if (p->type != FSC_TYPE_EXFAT && !fsc_type_is_fat(p->type))
		return false;
	return fsc_findings_worst(&p->findings) < FSC_SEV_ERROR;
}
