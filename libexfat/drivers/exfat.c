// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * drivers/exfat.c - the exFAT-family models: the staging driver of Linux
 * 5.4-5.6 (three configurations, one function with a variant), fs/exfat
 * as merged in 5.7 and as today, and relan's exfat-fuse.  Rules and
 * citations: shared/mount-rules.md sections 1, 2 and 4.  The table that
 * names them is drivers.c; the FAT and blkid models are fat.c.
 *
 * Consumes: a probed volume (struct fsc_probe), never the device: every
 * byte a model needs was read by the probe.  Produces: a verdict.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"

/* ---- staging driver (mount-rules 1.3-1.6) ---- */

/* fat16_mount / fat32_mount: checks BPB_NumFATs only, device sectors for the rest. */
static void staging_fat(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	uint32_t ds = p->dev_sector_size, spc = s[FAT_BPB_SEC_PER_CLUS];
	bool fat16 = get_le16(s, FAT_BPB_FAT_SZ16) != 0;
	enum fsc_type as = FSC_TYPE_FAT32;
	const char *path = fat16 ? "fat16_mount" : "fat32_mount";

	if (s[FAT_BPB_NUM_FATS] == 0) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "bytes 11..63 are not zero, so %s; BPB_NumFATs (byte 16) is 0", path);
		return;
	}
	if (fat16) {
		uint32_t rds = (get_le16(s, FAT_BPB_ROOT_ENT_CNT) * 32u + ds - 1) / ds;
		uint64_t data = get_le16(s, FAT_BPB_RSVD_SEC_CNT) +
				(uint64_t)s[FAT_BPB_NUM_FATS] * get_le16(s, FAT_BPB_FAT_SZ16) + rds;
		uint32_t total = fat_bpb_tot_sec(s);
		uint64_t n = total >= data && spc ? ((total - data) >> ilog2_u32(spc)) + 2 : 0;

		as = n < 4087 ? FSC_TYPE_FAT12 : FSC_TYPE_FAT16;
	}
	if (!fsc_type_is_fat(p->type)) {
		verdict_set(v, FSC_MISREADS, as, 0,
			    "%s takes %s for a FAT boot sector (byte 16 = 0x%02x) and mounts it as %s "
			    "with geometry from bytes that are not a BPB", path, drv_vol_name(p), s[FAT_BPB_NUM_FATS],
			    fsc_type_name(as));
	} else if (!is_pow2_u32(spc) || p->fat.bytes_per_sector != ds) {
		verdict_set(v, FSC_MISREADS, as, 0,
			    "%s mounts it as %s but %s", path, fsc_type_name(as),
			    !is_pow2_u32(spc) ? "derives its cluster shift from a BPB_SecPerClus that is not a power of two" :
			    "uses the device's sector size, not BPB_BytsPerSec");
	} else {
		verdict_set(v, FSC_MOUNTS, as, 0,
			    "the exFAT driver mounts it through its own FAT code (%s, checks only BPB_NumFATs)",
			    path);
	}
}

/* exfat_mount, load_alloc_bitmap, load_upcase_table: device sectors throughout. */
static void staging_exfat(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	const struct fsc_exfat_root *r = &p->root_dev;
	unsigned dev_shift = ilog2_u32(p->dev_sector_size);
	uint16_t flags = get_le16(s, EXFAT_BOOT_VOLUME_FLAGS);
	unsigned shift = s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT];

	if (s[EXFAT_BOOT_NUMBER_OF_FATS] == 0) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "bytes 11..63 are zero, so exfat_mount; NumberOfFats (byte 110) is 0");
		return;
	}
	if (r->read && !r->bitmap_found) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "load_alloc_bitmap finds no allocation bitmap entry in the root directory");
		return;
	}
	if (p->type != FSC_TYPE_EXFAT)
		verdict_set(v, FSC_MISREADS, FSC_TYPE_EXFAT, 0,
			    "exfat_mount takes %s for an exFAT boot sector", drv_vol_name(p));
	else if (shift != dev_shift)
		verdict_set(v, FSC_MISREADS, FSC_TYPE_EXFAT, 0,
			    "it ignores BytesPerSectorShift (%u-byte sectors) and reads the volume in "
			    "the device's %u-byte sectors", shift < 32 ? 1u << shift : 0,
			    p->dev_sector_size);
	else
		verdict_set(v, FSC_MOUNTS, FSC_TYPE_EXFAT, 0, "exfat_mount checks only NumberOfFats != 0");
	if (!r->read)
		verdict_note(v->why, sizeof(v->why), "root directory not read (%s): bitmap load assumed to succeed",
			     r->error);
	else if (!r->upcase_found || (r->upcase_read && (r->upcase_checksum_computed != r->upcase_checksum_stored ||
							  r->upcase_coverage < 0xFFFF)))
		verdict_note(v->why, sizeof(v->why), "falls back to its built-in up-case table");
	if (r->bitmap_found && r->bitmap_length < ((uint64_t)p->ex.cluster_count + 7) / 8)
		verdict_note(v->why, sizeof(v->why), "bitmap shorter than ClusterCount bits is indexed past its end");
	if (flags)
		snprintf(v->effect, sizeof(v->effect),
			 "rewrites VolumeFlags 0x%04x as 0x0000 at its first sync or unmount%s", flags,
			 (flags & 6) ? ", clearing VolumeDirty/MediaFailure unchecked" : "");
}

void judge_staging(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	const uint8_t *s = p->sector0;

	if (get_le16(s, EXFAT_BOOT_BOOT_SIGNATURE) != EXFAT_BOOT_SIGNATURE_VALUE) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "no 0xAA55 at byte 510");
		return;
	}
	if (!bytes_all(s, EXFAT_BOOT_MUST_BE_ZERO, 53, 0)) {
		if (variant == STAGING_FAT_PATH) {
			staging_fat(p, v);
			return;
		}
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "bytes 11..63 are not zero: \"Attempted to mount VFAT filesystem\" (%s)",
			    variant == STAGING_NO_VFAT ? "EXFAT_DONT_MOUNT_VFAT=y" : "FAT support removed");
		return;
	}
	staging_exfat(p, v);
}

/* ---- fs/exfat (mount-rules 2) ---- */

/* Root directory steps shared by 5.7 and today: bitmap and up-case. */
static bool exfat_root_steps(const struct fsc_probe *p, struct fsc_verdict *v, bool current)
{
	const struct fsc_exfat_root *r = &p->root;
	uint64_t need = ((uint64_t)p->ex.cluster_count + 7) / 8;

	if (!r->read) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "root directory: %s", r->error);
		return false;
	}
	if (!r->chain_ok) {
		verdict_set(v, current ? FSC_REFUSES : FSC_MISREADS, current ? FSC_TYPE_UNKNOWN : FSC_TYPE_EXFAT,
			    current ? EIO : 0, "root directory chain: %s%s", r->error,
			    current ? "" : " (no loop check before 2025)");
		return !current;
	}
	if (!r->bitmap_found) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "no allocation bitmap entry in the root directory");
		return false;
	}
	if (r->bitmap_length < need) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "allocation bitmap is %llu bytes, %llu needed",
			    (unsigned long long)r->bitmap_length, (unsigned long long)need);
		return false;
	}
	if (r->bitmap_cluster < 2 || r->bitmap_cluster > (uint64_t)p->ex.cluster_count + 1) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "allocation bitmap cluster %u is invalid",
			    r->bitmap_cluster);
		return false;
	}
	if (current && r->bitmap_self_checked && !r->bitmap_self_allocated) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "the allocation bitmap's own clusters are not marked used (79c1587b6cda)");
		return false;
	}
	return true;
}

static void exfat_warnings(const struct fsc_probe *p, struct fsc_verdict *v, bool current)
{
	uint16_t flags = p->ex.volume_flags;

	if (flags & 2)
		verdict_note(v->warning, sizeof(v->warning), "Volume was not properly unmounted");
	if (current && (flags & 4))
		verdict_note(v->warning, sizeof(v->warning), "Medium has reported failures");
	if (current && fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_EXT_SIGNATURE))
		verdict_note(v->warning, sizeof(v->warning), "Invalid exboot-signature");
}

/*
 * exfat_create_upcase_table (fs/exfat/nls.c, 5.7 on) reads every sector
 * from FirstCluster's, computed without a range check ((u32)(clu - 2) <<
 * shift, past the device for cluster 0 or 1), for ((DataLength - 1) >>
 * block bits) + 1 sectors; a read that fails is EIO and fails the mount
 * (a wrong checksum only falls back to the built-in table).
 */
static bool exfat_upcase_readable(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const struct fsc_exfat_root *r = &p->root;
	unsigned bps = p->ex.sector_shift;
	uint64_t sector, n, dev;

	if (!r->upcase_found || bps < 9 || bps > 12)
		return true;
	sector = ((uint64_t)(uint32_t)(r->upcase_cluster - 2) << p->ex.cluster_shift) + p->ex.heap_offset;
	n = ((r->upcase_length - 1) >> bps) + 1;
	dev = p->dev_size >> bps;
	if (sector < dev && n <= dev - sector)
		return true;
	verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
		    "failed to load upcase table: cluster %u, %llu bytes reach past the device", r->upcase_cluster,
		    (unsigned long long)r->upcase_length);
	return false;
}

static void exfat_upcase_note(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const struct fsc_exfat_root *r = &p->root;

	if (!r->upcase_found || (r->upcase_read && (r->upcase_checksum_computed != r->upcase_checksum_stored ||
						     r->upcase_coverage < 0xFFFF)))
		verdict_note(v->why, sizeof(v->why), "falls back to its built-in up-case table");
}

void judge_exfat57(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	const uint8_t *s = p->sector0;
	unsigned bps = s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT];

	(void)variant;	/* one configuration */
	if (get_le16(s, EXFAT_BOOT_BOOT_SIGNATURE) != EXFAT_BOOT_SIGNATURE_VALUE) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "invalid boot record signature");
		return;
	}
	if (bps < 9 || bps > 12) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "bogus logical sector size (shift %u)", bps);
		return;
	}
	if ((1u << bps) < p->dev_sector_size) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "logical sector size too small for device");
		return;
	}
	if (!bytes_all(s, EXFAT_BOOT_MUST_BE_ZERO, 53, 0)) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bytes 11..63 (MustBeZero) are not zero");
		return;
	}
	if (s[EXFAT_BOOT_NUMBER_OF_FATS] == 0) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus number of FAT structure");
		return;
	}
	if (p->type != FSC_TYPE_EXFAT) {
		verdict_set(v, FSC_MISREADS, FSC_TYPE_EXFAT, 0, "takes %s for exFAT", drv_vol_name(p));
		return;
	}
	if (!exfat_root_steps(p, v, false) || !exfat_upcase_readable(p, v))
		return;
	if (v->action != FSC_MISREADS)
		verdict_set(v, FSC_MOUNTS, FSC_TYPE_EXFAT, 0, "%s",
			    bps + p->ex.cluster_shift > 25 ? "cluster shift unchecked" :
			    "no FileSystemName or boot checksum check in 5.7");
	exfat_upcase_note(p, v);
	exfat_warnings(p, v, false);
}

/* Boot sector steps 1-9 of today's __exfat_fill_super (mount-rules 2.3). */
static bool exfat_boot_steps(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	const struct fsc_exfat_boot *ex = &p->ex;
	unsigned bps = s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT];

	if (get_le16(s, EXFAT_BOOT_BOOT_SIGNATURE) != EXFAT_BOOT_SIGNATURE_VALUE)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "invalid boot record signature");
	else if (memcmp(s + 3, "EXFAT   ", 8) != 0)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "invalid fs_name");
	else if (!bytes_all(s, EXFAT_BOOT_MUST_BE_ZERO, 53, 0))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bytes 11..63 (MustBeZero) are not zero");
	else if (s[EXFAT_BOOT_NUMBER_OF_FATS] != 1 && s[EXFAT_BOOT_NUMBER_OF_FATS] != 2)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus number of FAT structure");
	else if (bps < 9 || bps > 12)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus sector size bits");
	else if (s[EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT] > 25 - bps)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus sectors bits per cluster");
	else if (((uint64_t)ex->fat_length << bps) < ((uint64_t)ex->cluster_count + 2) * 4)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus fat length");
	else if (ex->heap_offset < ex->fat_offset + (uint64_t)ex->fat_length * ex->num_fats)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus data start sector");
	else if ((1u << bps) < p->dev_sector_size)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "logical sector size too small for device");
	else if (!ex->checksum_known)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "boot region (sectors 0..11) cannot be read");
	else if (fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_CHECKSUM))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "Invalid boot checksum");
	else
		return true;
	return false;
}

void judge_exfat(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	(void)variant;	/* one configuration */
	if (!exfat_boot_steps(p, v))
		return;
	if (!exfat_root_steps(p, v, true) || !exfat_upcase_readable(p, v))
		return;
	verdict_set(v, FSC_MOUNTS, FSC_TYPE_EXFAT, 0, "passes the boot region, root chain and bitmap checks");
	if (fsc_findings_has(&p->findings, FSC_PR_EXFAT_VOLUME_BEYOND_DEVICE))
		verdict_note(v->why, sizeof(v->why), "VolumeLength beyond the device is not checked");
	exfat_upcase_note(p, v);
	exfat_warnings(p, v, true);
}

/* ---- relan/exfat FUSE driver (mount-rules 4) ---- */

static bool fuse_boot_steps(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	const struct fsc_exfat_boot *ex = &p->ex;
	unsigned bps = s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT], spc = s[EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT];

	if (memcmp(s + 3, "EXFAT   ", 8) != 0)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "exFAT file system is not found");
	else if (bps < 9)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "too small sector size: 2^%u", bps);
	else if (bps + spc > 25)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "too big cluster size: 2^%u", bps + spc);
	else if (!ex->checksum_known)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "boot region cannot be read");
	else if (fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_CHECKSUM))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "invalid VBR checksum");
	else if (ex->revision != 0x0100)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "unsupported exFAT version: %u.%u",
			    ex->revision >> 8, ex->revision & 0xFF);
	else if (ex->num_fats != 1)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "unsupported FAT count: %u", ex->num_fats);
	else if (((uint64_t)ex->cluster_count << (bps + spc)) > p->dev_size)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "file system in clusters is larger than device");
	else
		return true;
	return false;
}

void judge_fuse(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	const struct fsc_exfat_root *r = &p->root;
	uint64_t need = ((uint64_t)p->ex.cluster_count + 7) / 8;

	(void)variant;	/* one configuration */
	if (!fuse_boot_steps(p, v))
		return;
	if (!r->read || !r->chain_ok)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "root directory: %s", r->error);
	else if (r->fuse_bad_type)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "unknown entry type 0x%02x", r->fuse_bad_type);
	else if (r->fuse_error[0])
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "%s", r->fuse_error);
	/* relan's own limit is EXFAT_ENAME_MAX (15), not the specification's 11: a 12-character label mounts */
	else if (r->label_found && r->label_chars > 15)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "too long label (%u chars)", r->label_chars);
	else if (!r->upcase_found || r->upcase_length < 2 || r->upcase_length > 131072 || (r->upcase_length & 1))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "%s", r->upcase_found ?
			    "bad upcase table size" : "upcase table is not found");
	else if (r->upcase_cluster < 2 || r->upcase_cluster > (uint64_t)p->ex.cluster_count + 1)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "invalid cluster 0x%x in upcase table",
			    r->upcase_cluster);
	else if (!r->bitmap_found || r->bitmap_length < need)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "%s", r->bitmap_found ?
			    "invalid clusters bitmap size" : "clusters bitmap is not found");
	else
		verdict_set(v, FSC_MOUNTS, FSC_TYPE_EXFAT, 0, "passes the name, checksum and root directory checks%s",
			    fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_SIGNATURE) ||
			    fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_MUSTBEZERO) ?
			    " (it never tests 0x55AA or MustBeZero)" : "");
	if (v->action != FSC_MOUNTS)
		return;
	if ((p->ex.volume_length << p->ex.sector_shift) > p->dev_size)
		verdict_note(v->warning, sizeof(v->warning), "file system is larger than underlying device");
	if (p->ex.volume_flags & 2)
		verdict_note(v->warning, sizeof(v->warning), "volume was not unmounted cleanly");
}
