// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_boot.c - the exFAT boot region (EXSPEC 3.1-3.4): decode the main
 * boot sector, check every field's range and the geometry, the boot
 * checksum, the extended boot signatures, and the backup region against
 * the main one.  Then hand over to exfat_root.c for what the mount paths
 * read in the root directory.
 *
 * Consumes: sector 0 (already read) and the device.  Produces: the decoded
 * struct fsc_exfat_boot and findings.  Reads sectors 0..23 at most.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"

static const char *exfat_field_at(unsigned off)
{
	const struct fsc_field *f = fsc_field_at(FSC_TABLE_EXFAT_BOOT, off);

	return f ? f->name : "ExcessSpace";
}

#define ADD(id, kind, loc, field) finding_add(&p->findings, FSC_PR_##id, FSC_LOC_##kind, loc, field)

static void check_fixed_fields(struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = &p->ex;
	struct fsc_finding *f;

	if (memcmp(ex->jump, "\xEB\x76\x90", 3) != 0) {
		f = ADD(EXFAT_BOOT_JUMP, BYTE, EXFAT_BOOT_JUMP_BOOT, "JumpBoot");
		finding_actual(f, "%02X %02X %02X", ex->jump[0], ex->jump[1], ex->jump[2]);
	}
	if (memcmp(p->sector0 + 3, "EXFAT   ", 8) != 0) {
		f = ADD(EXFAT_BOOT_FSNAME, BYTE, EXFAT_BOOT_FILE_SYSTEM_NAME, "FileSystemName");
		finding_actual(f, "%s", ex->fs_name);
	}
	if (ex->mbz_first) {
		f = ADD(EXFAT_BOOT_MUSTBEZERO, BYTE, ex->mbz_first, "MustBeZero");
		finding_actual(f, "%u", ex->mbz_first);
	}
	if (ex->signature != 0xAA55) {
		f = ADD(EXFAT_BOOT_SIGNATURE, BYTE, EXFAT_BOOT_BOOT_SIGNATURE, "BootSignature");
		finding_actual(f, "%02X %02X", p->sector0[EXFAT_BOOT_BOOT_SIGNATURE],
			       p->sector0[EXFAT_BOOT_BOOT_SIGNATURE + 1]);
	}
	if (ex->num_fats == 0 || ex->num_fats > 2) {
		f = ADD(EXFAT_BOOT_NUM_FATS, BYTE, EXFAT_BOOT_NUMBER_OF_FATS, "NumberOfFats");
		finding_actual(f, "%u", ex->num_fats);
	} else if (ex->num_fats == 2) {
		ADD(EXFAT_BOOT_TEXFAT, BYTE, EXFAT_BOOT_NUMBER_OF_FATS, "NumberOfFats");
	}
	if (ex->revision >> 8 != 1 || (ex->revision & 0xFF) > 99) {
		f = ADD(EXFAT_BOOT_REVISION, BYTE, EXFAT_BOOT_FILE_SYSTEM_REVISION, "FileSystemRevision");
		finding_actual(f, "%u.%02u", ex->revision >> 8, ex->revision & 0xFF);
		finding_expected(f, "must be 1.00 to 1.99");
	}
	if (ex->percent_in_use > 100 && ex->percent_in_use != 0xFF) {
		f = ADD(EXFAT_BOOT_PERCENT_IN_USE, BYTE, EXFAT_BOOT_PERCENT_IN_USE, "PercentInUse");
		finding_actual(f, "%u", ex->percent_in_use);
	}
}

static void check_flags(struct fsc_probe *p)
{
	uint16_t fl = p->ex.volume_flags;
	struct fsc_finding *f;

	if (fl & 0x0002)
		ADD(EXFAT_BOOT_VOLUME_DIRTY, BYTE, EXFAT_BOOT_VOLUME_FLAGS, "VolumeFlags");
	if (fl & 0x0004)
		ADD(EXFAT_BOOT_MEDIA_FAILURE, BYTE, EXFAT_BOOT_VOLUME_FLAGS, "VolumeFlags");
	if ((fl & 0xFFF8) || ((fl & 1) && p->ex.num_fats < 2)) {
		f = ADD(EXFAT_BOOT_VOLUME_FLAGS, BYTE, EXFAT_BOOT_VOLUME_FLAGS, "VolumeFlags");
		finding_actual(f, "0x%04x", fl);
		finding_detail(f, "%s", (fl & 1) && p->ex.num_fats < 2 ?
			       "ActiveFat set with one FAT" : "reserved bits set");
	}
}

/* Geometry: VolumeLength, FAT and heap placement, ClusterCount, root. */
static void check_geometry(struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = &p->ex;
	unsigned bps = ex->sector_shift, spc = ex->cluster_shift;
	uint64_t fat_end = ex->fat_offset + (uint64_t)ex->fat_length * ex->num_fats;
	uint64_t need_fat = (((uint64_t)ex->cluster_count + 2) * 4 + (1u << bps) - 1) >> bps;
	struct fsc_finding *f;

	if (ex->volume_length < (1u << 20) >> bps) {
		f = ADD(EXFAT_BOOT_VOLUME_LENGTH, BYTE, EXFAT_BOOT_VOLUME_LENGTH, "VolumeLength");
		finding_actual(f, "%llu", (unsigned long long)ex->volume_length);
		finding_expected(f, "at least %u needed (1 MiB)", (1u << 20) >> bps);
	}
	if (ex->fat_offset < 24) {
		f = ADD(EXFAT_BOOT_FAT_OFFSET, BYTE, EXFAT_BOOT_FAT_OFFSET, "FatOffset");
		finding_actual(f, "%u", ex->fat_offset);
		finding_expected(f, "must be at least 24");
	}
	if (ex->fat_length < need_fat) {
		f = ADD(EXFAT_BOOT_FAT_LENGTH, BYTE, EXFAT_BOOT_FAT_LENGTH, "FatLength");
		finding_actual(f, "%u", ex->fat_length);
		finding_expected(f, "at least %llu needed", (unsigned long long)need_fat);
	}
	if (ex->heap_offset < fat_end || ex->heap_offset >= ex->volume_length) {
		f = ADD(EXFAT_BOOT_HEAP_OFFSET, BYTE, EXFAT_BOOT_CLUSTER_HEAP_OFFSET, "ClusterHeapOffset");
		finding_actual(f, "%u", ex->heap_offset);
		if (ex->heap_offset < fat_end)
			finding_expected(f, "must be at least %llu (after the FATs)",
					 (unsigned long long)fat_end);
		else
			finding_expected(f, "must lie inside the volume (%llu sectors)",
					 (unsigned long long)ex->volume_length);
	} else if (spc <= 25 - bps) {
		uint64_t cc = (ex->volume_length - ex->heap_offset) >> spc;

		if (cc > 0xFFFFFFF5ull)
			cc = 0xFFFFFFF5ull;
		if (ex->cluster_count != cc) {
			f = ADD(EXFAT_BOOT_CLUSTER_COUNT, BYTE, EXFAT_BOOT_CLUSTER_COUNT, "ClusterCount");
			finding_actual(f, "%u", ex->cluster_count);
			finding_expected(f, "%llu", (unsigned long long)cc);
		}
	}
	if (ex->root_cluster < 2 || ex->root_cluster > (uint64_t)ex->cluster_count + 1) {
		f = ADD(EXFAT_BOOT_ROOT_CLUSTER, BYTE, EXFAT_BOOT_FIRST_CLUSTER_OF_ROOT, "FirstClusterOfRootDirectory");
		finding_actual(f, "%u", ex->root_cluster);
		finding_expected(f, "%llu", (unsigned long long)ex->cluster_count + 1);
	}
}

static void check_device(struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = &p->ex;
	uint64_t end = ex->volume_length << ex->sector_shift;
	struct fsc_finding *f;

	if ((ex->volume_length >> (64 - ex->sector_shift)) || end > p->dev_size) {
		f = ADD(EXFAT_VOLUME_BEYOND_DEVICE, BYTE, EXFAT_BOOT_VOLUME_LENGTH, "VolumeLength");
		if (ex->volume_length >> (64 - ex->sector_shift))
			finding_actual(f, "%llu << %u", (unsigned long long)ex->volume_length,
				       ex->sector_shift);
		else
			finding_actual(f, "%llu", (unsigned long long)end);
		finding_expected(f, "%llu", (unsigned long long)p->dev_size);
	}
	if ((1u << ex->sector_shift) != p->dev_sector_size) {
		f = ADD(EXFAT_DEVICE_SECTOR_SIZE, BYTE, EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT, "BytesPerSectorShift");
		finding_actual(f, "%u", 1u << ex->sector_shift);
		finding_expected(f, "%u", p->dev_sector_size);
	}
}

static uint32_t region_stored_checksum(const uint8_t *region, size_t ss, bool *uniform)
{
	uint32_t first = get_le32(region, EXFAT_BOOT_CHECKSUM_SECTOR * ss);

	*uniform = true;
	for (size_t i = 4; i < ss; i += 4)
		if (get_le32(region, EXFAT_BOOT_CHECKSUM_SECTOR * ss + i) != first)
			*uniform = false;
	return first;
}

static void check_main_region(struct fsc_probe *p, const uint8_t *r, size_t ss)
{
	bool uniform;
	uint32_t stored = region_stored_checksum(r, ss, &uniform);
	struct fsc_finding *f;

	p->ex.checksum_known = true;
	p->ex.checksum_stored = stored;
	p->ex.checksum_computed = fsc_exfat_boot_checksum(r, ss);
	if (stored != p->ex.checksum_computed || !uniform) {
		f = ADD(EXFAT_BOOT_CHECKSUM, SECTOR, 11, "BootChecksum");
		finding_actual(f, "0x%08x%s", stored, uniform ? "" : " (not repeated)");
		finding_expected(f, "0x%08x", p->ex.checksum_computed);
	}
	for (unsigned s = 1; s <= 8; s++) {
		if (get_le32(r, s * ss + EXFAT_EXTENDED_BOOT_SIGNATURE_AT(ss)) != EXFAT_EXTENDED_BOOT_SIGNATURE) {
			f = ADD(EXFAT_BOOT_EXT_SIGNATURE, SECTOR, s, "ExtendedBootSignature");
			finding_detail(f, "%u", s);
		}
	}
}

static void check_backup_region(struct fsc_probe *p, const uint8_t *m, const uint8_t *b, size_t ss)
{
	bool uniform;
	uint32_t stored = region_stored_checksum(b, ss, &uniform);
	uint32_t sum = fsc_exfat_boot_checksum(b, ss);
	struct fsc_finding *f;

	if (stored != sum || !uniform) {
		f = ADD(EXFAT_BACKUP_CHECKSUM, SECTOR, 23, "BootChecksum");
		finding_actual(f, "0x%08x", stored);
		finding_expected(f, "0x%08x", sum);
		return;
	}
	for (size_t i = 0; i < 12 * ss; i++) {
		if (i == EXFAT_BOOT_VOLUME_FLAGS || i == EXFAT_BOOT_VOLUME_FLAGS + 1 || i == EXFAT_BOOT_PERCENT_IN_USE || m[i] == b[i])
			continue;
		f = ADD(EXFAT_BACKUP_DIFFERS, SECTOR, 12 + i / ss, NULL);
		if (i < ss)
			finding_detail(f, "byte %zu (%s) is 0x%02x, main has 0x%02x", i,
				       exfat_field_at((unsigned)i), b[i], m[i]);
		else
			finding_detail(f, "sector %zu byte %zu is 0x%02x, main has 0x%02x",
				       12 + i / ss, i % ss, b[i], m[i]);
		return;
	}
}

/* Sectors 0..23: checksum, extended signatures, backup. */
static void check_regions(struct fsc_dev *dev, struct fsc_probe *p)
{
	size_t ss = (size_t)1 << p->ex.sector_shift;
	uint8_t *buf = malloc(24 * ss);
	struct fsc_finding *f;

	if (!buf)
		return;
	if (fsc_dev_read(dev, 0, buf, 12 * ss) < 0) {
		f = ADD(EXFAT_BOOT_TRUNCATED, NONE, 0, NULL);
		finding_detail(f, "%llu bytes, %zu needed", (unsigned long long)p->dev_size, 12 * ss);
		free(buf);
		return;
	}
	check_main_region(p, buf, ss);
	if (fsc_dev_read(dev, 12 * ss, buf + 12 * ss, 12 * ss) < 0) {
		f = ADD(EXFAT_BACKUP_UNREADABLE, SECTOR, 12, NULL);
		finding_detail(f, "the image ends at byte %llu", (unsigned long long)p->dev_size);
	} else {
		check_backup_region(p, buf, buf + 12 * ss, ss);
	}
	free(buf);
}

static void set_identity(struct fsc_probe *p)
{
	const uint8_t *s = p->sector0;
	uint32_t serial;

	serial = get_le32(s, EXFAT_BOOT_VOLUME_SERIAL_NUMBER);
	snprintf(p->serial, sizeof(p->serial), "%04X-%04X", (unsigned)(serial >> 16), (unsigned)(serial & 0xFFFF));
	p->has_serial = true;
	if (p->root.label_found && p->root.label_chars > 0) {
		snprintf(p->label, sizeof(p->label), "%s", p->root.label);
		p->has_label = true;
	}
}

void exfat_boot_check(struct fsc_dev *dev, struct fsc_probe *p)
{
	struct fsc_exfat_boot *ex = &p->ex;
	struct fsc_finding *f;
	unsigned dev_shift = ilog2_u32(p->dev_sector_size);

	exfat_boot_decode(p->sector0, ex);
	check_fixed_fields(p);
	check_flags(p);
	if (ex->sector_shift < 9 || ex->sector_shift > 12) {
		f = ADD(EXFAT_BOOT_SECTOR_SHIFT, BYTE, EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT, "BytesPerSectorShift");
		finding_actual(f, "%u", ex->sector_shift);
	} else {
		if (ex->cluster_shift > 25 - ex->sector_shift) {
			f = ADD(EXFAT_BOOT_CLUSTER_SHIFT, BYTE, EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT, "SectorsPerClusterShift");
			finding_actual(f, "%u", ex->cluster_shift);
			finding_expected(f, "%u", 25 - ex->sector_shift);
		}
		check_geometry(p);
		check_device(p);
		check_regions(dev, p);
		exfat_root_scan(dev, ex, ex->sector_shift, &p->root);
		exfat_root_findings(p);
	}
	/* The staging driver walks the root in device sectors, whatever the field says. */
	if (ex->sector_shift != dev_shift) {
		p->root_dev_differs = true;
		exfat_root_scan(dev, ex, dev_shift, &p->root_dev);
	} else {
		p->root_dev = p->root;
	}
	set_identity(p);
}
