// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * drivers/fat.c - the FAT-side models: Linux fs/fat (vfat and msdos share
 * fat_fill_super, mount-rules 3) and libblkid's type detection as udev
 * and mount(8) see it (mount-rules 5), in its 2.38 and current forms
 * (one function, the variant tells them apart).  The table that names
 * them is drivers.c.
 *
 * Consumes: a probed volume.  Produces: a verdict.  Both models apply to
 * any sector, since that is the question: what they make of bytes that
 * may not be a FAT boot sector at all.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"

static bool media_valid(uint8_t m)
{
	return m == 0xF0 || m >= 0xF8;
}

/* fat_read_bpb's field rules (mount-rules 3 step 2); NULL when they pass. */
static const char *vfat_bpb_error(const uint8_t *s, char *buf, size_t len)
{
	uint16_t bps = get_le16(s, FAT_BPB_BYTS_PER_SEC);

	if (get_le16(s, FAT_BPB_RSVD_SEC_CNT) == 0)
		return "bogus number of reserved sectors";
	if (s[FAT_BPB_NUM_FATS] == 0)
		return "bogus number of FAT structure";
	if (!media_valid(s[FAT_BPB_MEDIA])) {
		snprintf(buf, len, "invalid media value (0x%02x)", s[FAT_BPB_MEDIA]);
		return buf;
	}
	if (bps < 512 || bps > 4096 || !is_pow2_u32(bps)) {
		snprintf(buf, len, "bogus logical sector size %u", bps);
		return buf;
	}
	if (!is_pow2_u32(s[FAT_BPB_SEC_PER_CLUS])) {
		snprintf(buf, len, "bogus sectors per cluster %u", s[FAT_BPB_SEC_PER_CLUS]);
		return buf;
	}
	return NULL;
}

void judge_vfat(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	const uint8_t *s = p->sector0;
	char buf[64];
	const char *e = vfat_bpb_error(s, buf, sizeof(buf));
	uint32_t bps = get_le16(s, FAT_BPB_BYTS_PER_SEC), spc = s[FAT_BPB_SEC_PER_CLUS];
	uint32_t fatlen = get_le16(s, FAT_BPB_FAT_SZ16);
	bool fat32 = fatlen == 0 && get_le32(s, FAT32_BPB_FAT_SZ32) != 0;
	uint64_t total, data, clusters, fat_clusters, max;
	unsigned bits;
	enum fsc_type as;

	(void)variant;	/* one configuration */
	if (e) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "%s", e);
		return;
	}
	if (bps < p->dev_sector_size) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "logical sector size too small for device");
		return;
	}
	if (fat32)
		fatlen = get_le32(s, FAT32_BPB_FAT_SZ32);
	if (!fat32 && get_le16(s, FAT_BPB_ROOT_ENT_CNT) % (bps / 32)) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus number of directory entries (%u)",
			    get_le16(s, FAT_BPB_ROOT_ENT_CNT));
		return;
	}
	total = fat_bpb_tot_sec(s);
	data = get_le16(s, FAT_BPB_RSVD_SEC_CNT) + (uint64_t)s[FAT_BPB_NUM_FATS] * fatlen +
	       get_le16(s, FAT_BPB_ROOT_ENT_CNT) * 32u / bps;
	clusters = total >= data ? (total - data) / spc : UINT64_MAX / spc;
	bits = fat32 ? 32 : clusters > 4084 ? 16 : 12;
	fat_clusters = (uint64_t)fatlen * bps * 8 / bits;
	if (fat_clusters >= 2 && clusters > fat_clusters - 2)
		clusters = fat_clusters - 2;
	max = fat32 ? 0x0FFFFFF6 : bits == 16 ? 0xFFF4 : 0xFF4;
	if (clusters > max) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "count of clusters too big (%llu)",
			    (unsigned long long)clusters);
		return;
	}
	as = fat32 ? FSC_TYPE_FAT32 : bits == 16 ? FSC_TYPE_FAT16 : FSC_TYPE_FAT12;
	if (!fsc_type_is_fat(p->type))
		verdict_set(v, FSC_MISREADS, as, 0, "takes %s for a %s boot sector", drv_vol_name(p),
			    fsc_type_name(as));
	else if (total < data)
		verdict_set(v, FSC_MISREADS, as, 0, "the data area starts past the end of the volume");
	else
		verdict_set(v, FSC_MOUNTS, as, 0, "%s", fat32 ? "BPB_FATSz16 = 0: FAT32" :
			    "BPB_FATSz16 != 0: FAT12/16 by cluster count");
	/* (fat_fill_super reads the sector BPB_FSInfo names, wherever it is) */
	if (fat32 && p->fat.fsinfo_lost) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "bread failed, FSINFO block (sector = %u)",
			    p->fat.fsinfo_sector);
		return;
	}
	if (fat32 && (p->fat.fsinfo_read || p->fat.fsinfo_far) &&
	    (p->fat.fsinfo_lead != 0x41615252 || p->fat.fsinfo_struc != 0x61417272))
		verdict_note(v->warning, sizeof(v->warning), "Invalid FSINFO signature");
	if (s[fat32 ? 65 : 37] & 1)
		verdict_note(v->warning, sizeof(v->warning),
			     "Volume was not properly unmounted (read-write mounts)");
}

/* ---- libblkid ---- */

/* superblocks/exfat.c; modern: 2.39 boot checks plus the 2.41 ranges. */
static bool blkid_exfat(const struct fsc_probe *p, bool modern, char *why, size_t len)
{
	const uint8_t *s = p->sector0;
	const struct fsc_exfat_boot *ex = &p->ex;
	unsigned bps = s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT], spc = s[EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT];

	if (memcmp(s + 3, "EXFAT   ", 8) != 0)
		return false;
	if (!modern) {
		if (bps + spc >= 32) {
			snprintf(why, len, "exfat: cluster size overflows");
			return false;
		}
		return true;
	}
	if (get_le16(s, EXFAT_BOOT_BOOT_SIGNATURE) != EXFAT_BOOT_SIGNATURE_VALUE || memcmp(s, "\xEB\x76\x90", 3) != 0 ||
	    !bytes_all(s, EXFAT_BOOT_MUST_BE_ZERO, 53, 0))
		snprintf(why, len, "exfat: signature, jump or MustBeZero check fails");
	else if (ex->num_fats < 1 || ex->num_fats > 2 || bps < 9 || bps > 12 || spc > 25 - bps ||
		 ex->fat_offset < 24 ||
		 ex->fat_offset > ex->heap_offset - (uint64_t)ex->fat_length * ex->num_fats ||
		 ex->heap_offset < ex->fat_offset + (uint64_t)ex->fat_length * ex->num_fats ||
		 ex->heap_offset > 1u << 31 || ex->root_cluster < 2 ||
		 ex->root_cluster > (uint64_t)ex->cluster_count + 1)
		snprintf(why, len, "exfat: geometry check fails (2.41)");
	else if (!ex->checksum_known || fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_CHECKSUM))
		snprintf(why, len, "exfat: boot checksum mismatch");
	else
		return true;
	return false;
}

static bool vfat_magic(const uint8_t *s, bool *byte_magic)
{
	static const struct { const char *m; size_t len, off; } mags[] = {
		{ "MSWIN", 5, 0x52 }, { "FAT32   ", 8, 0x52 }, { "MSDOS", 5, 0x36 },
		{ "FAT16   ", 8, 0x36 }, { "FAT12   ", 8, 0x36 }, { "FAT     ", 8, 0x36 },
		{ "\353", 1, 0 }, { "\351", 1, 0 }, { "\125\252", 2, 0x1fe },
	};

	for (size_t i = 0; i < sizeof(mags) / sizeof(mags[0]); i++)
		if (memcmp(s + mags[i].off, mags[i].m, mags[i].len) == 0) {
			*byte_magic = mags[i].len <= 2;
			return true;
		}
	return false;
}

/* superblocks/vfat.c (same rules 2.38 to today). */
static bool blkid_vfat(const struct fsc_probe *p, enum fsc_type *as, char *why, size_t len)
{
	const uint8_t *s = p->sector0;
	bool byte_magic;
	uint32_t bps = get_le16(s, FAT_BPB_BYTS_PER_SEC), spc = s[FAT_BPB_SEC_PER_CLUS];
	uint32_t fatlen = get_le16(s, FAT_BPB_FAT_SZ16), total = fat_bpb_tot_sec(s), meta, count, max;
	bool fat32 = fatlen == 0 && get_le32(s, FAT32_BPB_FAT_SZ32) != 0;

	if (!vfat_magic(s, &byte_magic))
		return false;
	if (byte_magic && (get_le16(s, FAT_BS_SIGNATURE) != FAT_BS_SIGNATURE_VALUE ||
			   memcmp(s + FAT16_BS_FIL_SYS_TYPE, "JFS     ", 8) == 0 ||
			   memcmp(s + FAT16_BS_FIL_SYS_TYPE, "HPFS    ", 8) == 0))
		return false;
	if (!s[FAT_BPB_NUM_FATS] || !get_le16(s, FAT_BPB_RSVD_SEC_CNT) || !media_valid(s[FAT_BPB_MEDIA]) ||
	    !is_pow2_u32(spc) ||
	    bps < 512 || bps > 4096 || !is_pow2_u32(bps) || memcmp(s + 3, "-FVE-FS-", 8) == 0) {
		snprintf(why, len, "vfat: BPB fields invalid");
		return false;
	}
	if (fat32)
		fatlen = get_le32(s, FAT32_BPB_FAT_SZ32);
	meta = get_le16(s, FAT_BPB_RSVD_SEC_CNT) + s[FAT_BPB_NUM_FATS] * fatlen +
	       (get_le16(s, FAT_BPB_ROOT_ENT_CNT) * 32 + bps - 1) / bps;
	count = (total - meta) / spc;	/* unsigned, as blkid computes it */
	max = fat32 ? 0x0FFFFFF6 : count > 0xFF4 ? 0xFFF4 : 0xFF4;
	if (count > max) {
		snprintf(why, len, "vfat: cluster count %u too large", count);
		return false;
	}
	if (fat32 && get_le16(s, FAT32_BPB_FS_INFO) && p->fat.fsinfo_lost) {
		snprintf(why, len, "vfat: FSInfo sector %u past the device", get_le16(s, FAT32_BPB_FS_INFO));
		return false;
	}
	if (fat32 && get_le16(s, FAT32_BPB_FS_INFO) && (p->fat.fsinfo_read || p->fat.fsinfo_far) &&
	    !(p->fat.fsinfo_lead == 0x41615252 || p->fat.fsinfo_lead == 0x41645252 || !p->fat.fsinfo_lead)) {
		snprintf(why, len, "vfat: FSInfo signature invalid");
		return false;
	}
	*as = fat32 ? FSC_TYPE_FAT32 : count < 0xFF4 ? FSC_TYPE_FAT12 : FSC_TYPE_FAT16;
	return true;
}

void judge_blkid(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	bool modern = variant == BLKID_MODERN;
	char why_ex[80] = "", why_fat[80] = "";
	enum fsc_type fat_as = FSC_TYPE_UNKNOWN;
	bool ex = blkid_exfat(p, modern, why_ex, sizeof(why_ex));
	bool fat = blkid_vfat(p, &fat_as, why_fat, sizeof(why_fat));
	bool ntfs = p->type == FSC_TYPE_NTFS && p->ntfs_blkid_ok;
	int hits = ex + fat + ntfs;

	/* libblkid probes no filesystem on a device of 1 KiB or less (blkid -p on such an image: no TYPE) */
	if (p->dev_size <= 1024) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, 0, "no TYPE: the device is %llu bytes, 1 KiB or less",
			    (unsigned long long)p->dev_size);
		return;
	}
	if (hits > 1) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, 0, "ambivalent result (%s%s%s)",
			    ex ? "exfat " : "", fat ? "vfat " : "", ntfs ? "ntfs" : "");
	} else if (ex) {
		verdict_set(v, FSC_MOUNTS, FSC_TYPE_EXFAT, 0, "TYPE=exfat");
		if (!modern && get_le16(p->sector0, FAT_BS_SIGNATURE) == FAT_BS_SIGNATURE_VALUE)
			verdict_note(v->why, sizeof(v->why), "also PTTYPE=dos");
	} else if (fat) {
		verdict_set(v, FSC_MOUNTS, fat_as, 0, "TYPE=vfat VERSION=%s", fat_as == FSC_TYPE_FAT32 ? "FAT32" :
			    fat_as == FSC_TYPE_FAT16 ? "FAT16" : "FAT12");
	} else if (ntfs) {
		verdict_set(v, FSC_MOUNTS, FSC_TYPE_NTFS, 0, "TYPE=ntfs");
	} else {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, 0, "no TYPE%s%s%s%s",
			    why_ex[0] || why_fat[0] || p->ntfs_blkid_why[0] ? ": " : "",
			    why_ex[0] ? why_ex : why_fat[0] ? why_fat : p->ntfs_blkid_why,
			    p->type == FSC_TYPE_MBR ? "; PTTYPE=dos" : "",
			    p->type == FSC_TYPE_GPT ? "; PTTYPE=gpt" : "");
	}
}
