// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_bpb.c - the FAT12/16/32 boot sector (FATGEN "Boot Sector and BPB"):
 * decode the BPB and extended BPB, decide the FAT type both by the
 * specification (cluster count) and as Linux, Windows and blkid do
 * (BPB_FATSz16 = 0 means FAT32), check every field, FSInfo and the FAT32
 * backup boot sector, and find the root directory's volume label.
 *
 * Consumes: sector 0 (already read) and the device.  Produces: struct
 * fsc_fat_bpb, findings, label and serial.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"

#define ADD(id, kind, loc, field) finding_add(&p->findings, FSC_PR_##id, FSC_LOC_##kind, loc, field)

static void check_fields(struct fsc_probe *p)
{
	const struct fsc_fat_bpb *b = &p->fat;
	struct fsc_finding *f;

	if (!((b->jump[0] == 0xEB && b->jump[2] == 0x90) || b->jump[0] == 0xE9)) {
		f = ADD(FAT_BOOT_JUMP, BYTE, FAT_BS_JMP_BOOT, "BS_jmpBoot");
		finding_actual(f, "%02X %02X %02X", b->jump[0], b->jump[1], b->jump[2]);
	}
	if (b->signature != 0xAA55) {
		f = ADD(FAT_BOOT_SIGNATURE, BYTE, FAT_BS_SIGNATURE, "Signature");
		finding_actual(f, "%02X %02X", p->sector0[FAT_BS_SIGNATURE], p->sector0[FAT_BS_SIGNATURE + 1]);
	}
	if (b->media != 0xF0 && b->media < 0xF8) {
		f = ADD(FAT_BOOT_MEDIA, BYTE, FAT_BPB_MEDIA, "BPB_Media");
		finding_actual(f, "%02X", b->media);
	}
	if (b->num_fats != 2) {
		f = ADD(FAT_BOOT_NUM_FATS, BYTE, FAT_BPB_NUM_FATS, "BPB_NumFATs");
		finding_actual(f, "%u", b->num_fats);
	}
	if (b->bpb32 ? b->root_entries != 0 :
	    (b->root_entries == 0 || (b->root_entries * 32u) % b->bytes_per_sector)) {
		f = ADD(FAT_BOOT_ROOT_ENTRIES, BYTE, FAT_BPB_ROOT_ENT_CNT, "BPB_RootEntCnt");
		finding_actual(f, "%u", b->root_entries);
		finding_expected(f, "%s", b->bpb32 ? "must be 0 with a FAT32 BPB" :
				 "its entries must fill whole sectors");
	}
	if (!b->total16 && !b->total32) {
		f = ADD(FAT_BOOT_TOTAL_SECTORS, BYTE, FAT_BPB_TOT_SEC16, "BPB_TotSec16");
		finding_detail(f, "BPB_TotSec16 and BPB_TotSec32 are both 0");
	} else if (b->spec_type == FSC_TYPE_FAT32 && b->total16) {
		f = ADD(FAT_BOOT_TOTAL_SECTORS, BYTE, FAT_BPB_TOT_SEC16, "BPB_TotSec16");
		finding_detail(f, "BPB_TotSec16 is %u, must be 0 on FAT32", b->total16);
	} else if (b->total16 && b->total32 && b->total16 != b->total32) {
		f = ADD(FAT_BOOT_TOTAL_SECTORS, BYTE, FAT_BPB_TOT_SEC16, "BPB_TotSec16");
		finding_detail(f, "BPB_TotSec16 %u and BPB_TotSec32 %u disagree", b->total16, b->total32);
	}
}

static const char *type_label(enum fsc_type t)
{
	return t == FSC_TYPE_FAT12 ? "FAT12" : t == FSC_TYPE_FAT16 ? "FAT16" : "FAT32";
}

static void check_geometry(struct fsc_probe *p)
{
	const struct fsc_fat_bpb *b = &p->fat;
	struct fsc_finding *f;
	unsigned bits = b->bpb_type == FSC_TYPE_FAT32 ? 32 : b->bpb_type == FSC_TYPE_FAT16 ? 16 : 12;
	uint64_t need;

	if (!b->geometry_ok) {
		f = ADD(FAT_BOOT_DATA_START, NONE, 0, "BPB");
		finding_actual(f, "%llu", (unsigned long long)b->data_start);
		finding_expected(f, "%u", b->total_sectors);
		return;
	}
	need = (((b->clusters + 2) * bits + 7) / 8 + b->bytes_per_sector - 1) / b->bytes_per_sector;
	if (b->fat_size < need) {
		f = ADD(FAT_BOOT_FAT_SIZE, BYTE, b->bpb32 ? 36 : 22, b->bpb32 ? "BPB_FATSz32" : "BPB_FATSz16");
		finding_actual(f, "%u", b->fat_size);
		finding_expected(f, "%llu", (unsigned long long)need);
	}
	if (b->spec_type != b->bpb_type) {
		f = ADD(FAT_TYPE_MISMATCH, BYTE, FAT_BPB_FAT_SZ16, "BPB_FATSz16");
		finding_actual(f, "%llu", (unsigned long long)b->clusters);
		finding_expected(f, "%s", type_label(b->spec_type));
		finding_detail(f, "%s", b->bpb32 ? "FAT32-style (BPB_FATSz16 = 0)" :
			       "FAT12/16-style (BPB_FATSz16 != 0), which Linux refuses past 65524 clusters");
	}
	if (b->clusters == 4084 || b->clusters == 65524) {
		f = ADD(FAT_CLUSTER_COUNT_EDGE, NONE, 0, "cluster count");
		finding_actual(f, "%llu", (unsigned long long)b->clusters);
		finding_detail(f, "%s", b->clusters == 4084 ? "blkid reports FAT16, the specification FAT12" :
			       "blkid reports no FAT version, the specification FAT16");
	}
	if ((uint64_t)b->total_sectors * b->bytes_per_sector > p->dev_size) {
		f = ADD(FAT_VOLUME_BEYOND_DEVICE, BYTE, b->total16 ? 19 : 32,
			b->total16 ? "BPB_TotSec16" : "BPB_TotSec32");
		finding_actual(f, "%llu", (unsigned long long)b->total_sectors * b->bytes_per_sector);
		finding_expected(f, "%llu", (unsigned long long)p->dev_size);
	}
}

static void check_fstype(struct fsc_probe *p)
{
	const struct fsc_fat_bpb *b = &p->fat;
	const char *want = b->spec_type == FSC_TYPE_FAT32 ? "FAT32   " :
			   b->spec_type == FSC_TYPE_FAT16 ? "FAT16   " : "FAT12   ";
	struct fsc_finding *f;

	if (b->boot_sig != 0x29 || strncmp(b->fs_type, "FAT", 3) != 0)
		return;
	if (strcmp(b->fs_type, want) == 0 ||
	    (strcmp(b->fs_type, "FAT     ") == 0 && b->spec_type != FSC_TYPE_FAT32))
		return;
	f = ADD(FAT_BOOT_FSTYPE, BYTE, b->bpb32 ? 82 : 54, "BS_FilSysType");
	finding_actual(f, "%s", b->fs_type);
	finding_expected(f, "%s", type_label(b->spec_type));
}

static void check_fat32(struct fsc_dev *dev, struct fsc_probe *p)
{
	struct fsc_fat_bpb *b = &p->fat;
	uint32_t bps = b->bytes_per_sector;
	struct fat_fsinfo fi = { 0 };
	uint8_t *sec;
	struct fsc_finding *f;

	if (b->fs_version) {
		f = ADD(FAT32_FSVER, BYTE, FAT32_BPB_FS_VER, "BPB_FSVer");
		finding_actual(f, "%u.%u", b->fs_version >> 8, b->fs_version & 0xFF);
	}
	if (b->geometry_ok && (b->root_cluster < 2 || b->root_cluster > b->clusters + 1)) {
		f = ADD(FAT32_ROOT_CLUSTER, BYTE, FAT32_BPB_ROOT_CLUS, "BPB_RootClus");
		finding_actual(f, "%u", b->root_cluster);
		finding_expected(f, "%llu", (unsigned long long)b->clusters + 1);
	}
	sec = malloc(bps);
	if (!sec)
		return;
	/*
	 * (past the reserved area: an error, and the sector is read only for
	 * what the drivers make of it; Linux and blkid read it wherever it is)
	 */
	if (b->fsinfo_sector && b->fsinfo_sector != 0xFFFF) {
		bool inside = b->fsinfo_sector < b->reserved;

		if (!inside) {
			f = ADD(FAT32_FSINFO_SECTOR, BYTE, FAT32_BPB_FS_INFO, "BPB_FSInfo");
			finding_actual(f, "%u", b->fsinfo_sector);
			finding_expected(f, "%u", b->reserved ? b->reserved - 1u : 0);
		}
		if (fsc_dev_read(dev, (uint64_t)b->fsinfo_sector * bps, sec, bps) == 0) {
			fat_fsinfo_decode(sec, &fi);
			b->fsinfo_read = inside;
			b->fsinfo_far = !inside;
			b->fsinfo_lead = fi.lead_sig;
			b->fsinfo_struc = fi.struc_sig;
		} else {
			b->fsinfo_lost = !inside;
		}
	}
	if (b->fsinfo_read && (fi.lead_sig != 0x41615252 || fi.struc_sig != 0x61417272 ||
			       fi.trail_sig != 0xAA550000)) {
		f = ADD(FAT32_FSINFO_SIGNATURE, SECTOR, b->fsinfo_sector, "FSInfo");
		finding_detail(f, "%u", b->fsinfo_sector);
	}
	if (b->backup_sector && b->backup_sector != 0xFFFF && b->backup_sector < b->reserved &&
	    fsc_dev_read(dev, (uint64_t)b->backup_sector * bps, sec, 512) == 0) {
		for (unsigned i = 0; i < 512; i++) {
			if (i == 65 || sec[i] == p->sector0[i])	/* 65: Linux's mounted state */
				continue;
			f = ADD(FAT32_BACKUP_DIFFERS, SECTOR, b->backup_sector, NULL);
			finding_detail(f, "%u (first at byte %u)", b->backup_sector, i);
			break;
		}
	}
	free(sec);
}

/* The root directory's volume-label entry, as blkid and Windows read it. */
static void find_root_label(struct fsc_dev *dev, struct fsc_fat_bpb *b)
{
	uint32_t bps = b->bytes_per_sector, cb = bps * b->sec_per_clus;
	uint64_t start, len;
	uint8_t *buf;

	if (!b->geometry_ok)
		return;
	if (b->bpb_type == FSC_TYPE_FAT32) {
		if (b->root_cluster < 2 || b->root_cluster > b->clusters + 1)
			return;
		start = (b->data_start + (uint64_t)(b->root_cluster - 2) * b->sec_per_clus) * bps;
		len = cb;	/* the label is in the first cluster on every writer seen */
	} else {
		start = ((uint64_t)b->reserved + (uint64_t)b->num_fats * b->fat_size) * bps;
		len = (uint64_t)b->root_entries * 32;
	}
	if (len > 1u << 21)
		len = 1u << 21;
	buf = malloc(len ? len : 1);
	if (!buf || fsc_dev_read(dev, start, buf, len) < 0) {
		free(buf);
		return;
	}
	for (uint64_t o = 0; o + 32 <= len; o += 32) {
		const uint8_t *e = buf + o;

		enum fat_kind k = fat_entry_kind(e);

		if (k == FAT_E_END)
			break;
		if (k != FAT_E_LABEL)
			continue;
		fat_label_text(e, b->root_label);
		b->root_label_found = true;
		break;
	}
	free(buf);
}

void fat_bpb_check(struct fsc_dev *dev, struct fsc_probe *p)
{
	struct fsc_fat_bpb *b = &p->fat;

	fat_bpb_decode(p->sector0, b);
	p->type = b->spec_type;
	check_fields(p);
	check_geometry(p);
	check_fstype(p);
	if (b->bpb32)
		check_fat32(dev, p);
	if (b->state & 1) {
		struct fsc_finding *f = ADD(FAT_DIRTY, BYTE, b->bpb32 ? 65 : 37, "BS_Reserved1");

		finding_actual(f, "0x%02x", b->state);
	}
	find_root_label(dev, b);
	if (b->root_label_found) {
		snprintf(p->label, sizeof(p->label), "%s", b->root_label);
		p->has_label = true;
	}
	if (b->bpb32 || b->boot_sig == 0x28 || b->boot_sig == 0x29) {
		snprintf(p->serial, sizeof(p->serial), "%04X-%04X", b->serial >> 16, b->serial & 0xFFFF);
		p->has_serial = true;
	}
}
