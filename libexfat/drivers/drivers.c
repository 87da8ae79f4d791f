// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * drivers.c - the driver table and the exFAT-family models: the staging
 * driver of Linux 5.4-5.6 (three configurations), fs/exfat as merged in
 * 5.7 and as today, and relan's exfat-fuse.  Rules and citations:
 * shared/mount-rules.md sections 1, 2 and 4.  FAT and blkid models live
 * in drivers_fat.c.
 *
 * Consumes: a probed volume (struct fsc_probe), never the device: every
 * byte a model needs was read by the probe.  Produces: a verdict.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"

static const struct fsc_driver drivers[] = {
	{ "staging-5.4-vfat", "staging exFAT driver with EXFAT_DONT_MOUNT_VFAT=n (FAT path active)",
	  "Linux 5.4 (non-default config; also the first staging commit)",
	  "c48c9f7ff32b, 58985a9d2d03", FSC_FAM_EXFAT, false },
	{ "staging-5.4", "staging exFAT driver, default EXFAT_DONT_MOUNT_VFAT=y",
	  "Linux 5.4", "58985a9d2d03 (drivers/staging/exfat)", FSC_FAM_EXFAT, false },
	{ "staging-5.5", "staging exFAT driver with FAT support removed",
	  "Linux 5.5-5.6", "\"Remove FAT/VFAT mount support\" parts 1-4; 1a3c0509ce83",
	  FSC_FAM_EXFAT, false },
	{ "linux-exfat-5.7", "fs/exfat as first merged (no name or checksum check)",
	  "Linux 5.7", "719c1e182916", FSC_FAM_EXFAT, false },
	{ "linux-exfat", "fs/exfat with boot region verification",
	  "Linux 5.8 and later", "476189c0ef3b, 33404a159828, 99f9a97dce39, 79c1587b6cda",
	  FSC_FAM_EXFAT, true },
	{ "linux-vfat", "fs/fat (vfat and msdos)", "Linux 4.16 and later",
	  "fs/fat/inode.c fat_fill_super", FSC_FAM_FAT, true },
	{ "exfat-fuse", "relan/exfat FUSE driver", "exfat-fuse 1.3-1.4",
	  "relan/exfat 8cffe412 libexfat/mount.c, node.c", FSC_FAM_EXFAT, true },
	{ "blkid-2.38", "libblkid type detection (what udev and mount(8) pick)",
	  "util-linux up to 2.38 (Debian 12)", "v2.38.1 superblocks/exfat.c, vfat.c, ntfs.c",
	  FSC_FAM_BLKID, true },
	{ "blkid", "libblkid type detection with exFAT boot checks",
	  "util-linux 2.39 and later", "81bbdd0b3, 1a73b23e3, 1bdfbe9a7", FSC_FAM_BLKID, true },
};

#define NDRIVERS (sizeof(drivers) / sizeof(drivers[0]))

FSC_EXPORT size_t fsc_driver_count(void)
{
	return NDRIVERS;
}

FSC_EXPORT const struct fsc_driver *fsc_driver_at(size_t i)
{
	return i < NDRIVERS ? &drivers[i] : NULL;
}

FSC_EXPORT int fsc_driver_lookup(const char *id)
{
	for (size_t i = 0; i < NDRIVERS; i++)
		if (strcmp(drivers[i].id, id) == 0)
			return (int)i;
	return -1;
}

FSC_EXPORT const char *fsc_action_name(enum fsc_action a)
{
	return a == FSC_MOUNTS ? "mounts" : a == FSC_REFUSES ? "refuses" : "misreads";
}

static void vset(char *dst, size_t len, const char *fmt, va_list ap)
{
	vsnprintf(dst, len, fmt, ap);
}

void verdict_set(struct fsc_verdict *v, enum fsc_action a, enum fsc_type as, int err,
		 const char *fmt, ...)
{
	va_list ap;

	v->action = a;
	v->as = as;
	v->err = err;
	va_start(ap, fmt);
	vset(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

void verdict_note(char *dst, size_t len, const char *fmt, ...)
{
	size_t used = strlen(dst);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		dst[used++] = ';';
		dst[used++] = ' ';
		dst[used] = '\0';
	}
	va_start(ap, fmt);
	vset(dst + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *vol_name(const struct fsc_probe *p)
{
	static const char *const names[FSC_TYPE_COUNT] = {
		[FSC_TYPE_UNKNOWN] = "an unrecognised sector", [FSC_TYPE_BLANK] = "a blank sector",
		[FSC_TYPE_EXFAT] = "an exFAT boot sector", [FSC_TYPE_FAT12] = "a FAT12 boot sector",
		[FSC_TYPE_FAT16] = "a FAT16 boot sector", [FSC_TYPE_FAT32] = "a FAT32 boot sector",
		[FSC_TYPE_NTFS] = "an NTFS boot sector", [FSC_TYPE_MBR] = "an MBR partition table",
		[FSC_TYPE_GPT] = "a GPT protective MBR",
	};
	return names[p->type];
}

const char *drv_vol_name(const struct fsc_probe *p)
{
	return vol_name(p);
}

/* ---- staging driver (mount-rules 1.3-1.6) ---- */

/* fat16_mount / fat32_mount: checks BPB_NumFATs only, device sectors for the rest. */
static void staging_fat(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	uint32_t ds = p->dev_sector_size, spc = s[13];
	bool fat16 = get_le16(s, 22) != 0;
	enum fsc_type as = FSC_TYPE_FAT32;
	const char *path = fat16 ? "fat16_mount" : "fat32_mount";

	if (s[16] == 0) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "bytes 11..63 are not zero, so %s; BPB_NumFATs (byte 16) is 0", path);
		return;
	}
	if (fat16) {
		uint32_t rds = (get_le16(s, 17) * 32u + ds - 1) / ds;
		uint64_t data = get_le16(s, 14) + (uint64_t)s[16] * get_le16(s, 22) + rds;
		uint32_t total = get_le16(s, 19) ? get_le16(s, 19) : get_le32(s, 32);
		uint64_t n = total >= data && spc ? ((total - data) >> ilog2_u32(spc)) + 2 : 0;

		as = n < 4087 ? FSC_TYPE_FAT12 : FSC_TYPE_FAT16;
	}
	if (!fsc_type_is_fat(p->type)) {
		verdict_set(v, FSC_MISREADS, as, 0,
			    "%s takes %s for a FAT boot sector (byte 16 = 0x%02x) and mounts it as %s "
			    "with geometry from bytes that are not a BPB", path, vol_name(p), s[16],
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
	uint16_t flags = get_le16(s, 108 - 2);

	if (s[110] == 0) {
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
			    "exfat_mount takes %s for an exFAT boot sector", vol_name(p));
	else if (s[108] != dev_shift)
		verdict_set(v, FSC_MISREADS, FSC_TYPE_EXFAT, 0,
			    "it ignores BytesPerSectorShift (%u-byte sectors) and reads the volume in "
			    "the device's %u-byte sectors", s[108] < 32 ? 1u << s[108] : 0,
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

static void judge_staging(const struct fsc_probe *p, struct fsc_verdict *v, int variant)
{
	const uint8_t *s = p->sector0;

	if (get_le16(s, 510) != 0xAA55) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "no 0xAA55 at byte 510");
		return;
	}
	if (!bytes_all(s, 11, 53, 0)) {
		if (variant == 0) {
			staging_fat(p, v);
			return;
		}
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO,
			    "bytes 11..63 are not zero: \"Attempted to mount VFAT filesystem\" (%s)",
			    variant == 1 ? "EXFAT_DONT_MOUNT_VFAT=y" : "FAT support removed");
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

static void exfat_upcase_note(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const struct fsc_exfat_root *r = &p->root;

	if (!r->upcase_found || (r->upcase_read && (r->upcase_checksum_computed != r->upcase_checksum_stored ||
						     r->upcase_coverage < 0xFFFF)))
		verdict_note(v->why, sizeof(v->why), "falls back to its built-in up-case table");
}

static void judge_exfat57(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const uint8_t *s = p->sector0;
	unsigned bps = s[108];

	if (get_le16(s, 510) != 0xAA55) {
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
	if (!bytes_all(s, 11, 53, 0)) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bytes 11..63 (MustBeZero) are not zero");
		return;
	}
	if (s[110] == 0) {
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus number of FAT structure");
		return;
	}
	if (p->type != FSC_TYPE_EXFAT) {
		verdict_set(v, FSC_MISREADS, FSC_TYPE_EXFAT, 0, "takes %s for exFAT", vol_name(p));
		return;
	}
	if (!exfat_root_steps(p, v, false))
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
	unsigned bps = s[108];

	if (get_le16(s, 510) != 0xAA55)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "invalid boot record signature");
	else if (memcmp(s + 3, "EXFAT   ", 8) != 0)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "invalid fs_name");
	else if (!bytes_all(s, 11, 53, 0))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bytes 11..63 (MustBeZero) are not zero");
	else if (s[110] != 1 && s[110] != 2)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus number of FAT structure");
	else if (bps < 9 || bps > 12)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EINVAL, "bogus sector size bits");
	else if (s[109] > 25 - bps)
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

static void judge_exfat(const struct fsc_probe *p, struct fsc_verdict *v)
{
	if (!exfat_boot_steps(p, v))
		return;
	if (!exfat_root_steps(p, v, true))
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
	unsigned bps = s[108], spc = s[109];

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

static void judge_fuse(const struct fsc_probe *p, struct fsc_verdict *v)
{
	const struct fsc_exfat_root *r = &p->root;
	uint64_t need = ((uint64_t)p->ex.cluster_count + 7) / 8;

	if (!fuse_boot_steps(p, v))
		return;
	if (!r->read || !r->chain_ok)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "root directory: %s", r->error);
	else if (r->fuse_bad_type)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "unknown entry type 0x%02x", r->fuse_bad_type);
	else if (r->fuse_error[0])
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "%s", r->fuse_error);
	else if (r->label_found && r->label_chars > 11)
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "too long label (%u chars)", r->label_chars);
	else if (!r->upcase_found || r->upcase_length < 2 || r->upcase_length > 131072 || (r->upcase_length & 1))
		verdict_set(v, FSC_REFUSES, FSC_TYPE_UNKNOWN, EIO, "%s", r->upcase_found ?
			    "bad upcase table size" : "upcase table is not found");
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

FSC_EXPORT void fsc_driver_judge(const struct fsc_probe *p, const struct fsc_driver *drv,
				 struct fsc_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->drv = drv;
	if (strcmp(drv->id, "staging-5.4-vfat") == 0)
		judge_staging(p, v, 0);
	else if (strcmp(drv->id, "staging-5.4") == 0)
		judge_staging(p, v, 1);
	else if (strcmp(drv->id, "staging-5.5") == 0)
		judge_staging(p, v, 2);
	else if (strcmp(drv->id, "linux-exfat-5.7") == 0)
		judge_exfat57(p, v);
	else if (strcmp(drv->id, "linux-exfat") == 0)
		judge_exfat(p, v);
	else if (strcmp(drv->id, "exfat-fuse") == 0)
		judge_fuse(p, v);
	else if (strcmp(drv->id, "linux-vfat") == 0)
		judge_vfat(p, v);
	else
		judge_blkid(p, v, strcmp(drv->id, "blkid") == 0);
}
