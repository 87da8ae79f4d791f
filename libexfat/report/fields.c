// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fields.c - every on-disk boot structure described once as a field table
 * (name, offset, width, format, meaning with its specification section):
 * the exFAT boot sector (EXSPEC 3.1), the FAT BPB and the FAT12/16 and
 * FAT32 extended BPBs (FATGEN "Boot Sector and BPB"), FSInfo (FATGEN
 * "FAT32 FSInfo Sector Structure").  dump prints from these tables, the
 * boot region check names differing bytes with them, and a unit test
 * checks offsets and widths tile each structure.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/report.h"

#define U FSC_FMT_UINT
#define H FSC_FMT_HEX
#define T FSC_FMT_TEXT
#define B FSC_FMT_BYTES

static const struct fsc_field exfat_boot[] = {
	{ "JumpBoot", 0, 3, B, "jump instruction, EB 76 90 (3.1.1)" },
	{ "FileSystemName", 3, 8, T, "\"EXFAT   \" (3.1.2)" },
	{ "MustBeZero", 11, 53, B, "zero, covers the FAT BPB (3.1.3)" },
	{ "PartitionOffset", 64, 8, U, "media-relative sector of the volume, 0 to ignore (3.1.4)" },
	{ "VolumeLength", 72, 8, U, "volume size in sectors (3.1.5)" },
	{ "FatOffset", 80, 4, U, "first FAT sector (3.1.6)" },
	{ "FatLength", 84, 4, U, "sectors per FAT (3.1.7)" },
	{ "ClusterHeapOffset", 88, 4, U, "first cluster heap sector (3.1.8)" },
	{ "ClusterCount", 92, 4, U, "clusters in the heap (3.1.9)" },
	{ "FirstClusterOfRootDirectory", 96, 4, U, "root directory cluster (3.1.10)" },
	{ "VolumeSerialNumber", 100, 4, H, "volume serial number (3.1.11)" },
	{ "FileSystemRevision", 104, 2, H, "major.minor, 1.00 (3.1.12)" },
	{ "VolumeFlags", 106, 2, H, "ActiveFat, VolumeDirty, MediaFailure, ClearToZero (3.1.13)" },
	{ "BytesPerSectorShift", 108, 1, U, "log2 of the sector size, 9..12 (3.1.14)" },
	{ "SectorsPerClusterShift", 109, 1, U, "log2 of sectors per cluster (3.1.15)" },
	{ "NumberOfFats", 110, 1, U, "1, or 2 for TexFAT (3.1.16)" },
	{ "DriveSelect", 111, 1, H, "INT 13h drive number (3.1.17)" },
	{ "PercentInUse", 112, 1, U, "percent of the heap allocated, 0xFF unknown (3.1.18)" },
	{ "Reserved", 113, 7, B, "reserved (3.1)" },
	{ "BootCode", 120, 390, B, "boot code, F4 when none (3.1.19)" },
	{ "BootSignature", 510, 2, H, "AA55 (3.1.20)" },
};

static const struct fsc_field fat_bpb[] = {
	{ "BS_jmpBoot", 0, 3, B, "jump instruction, EB xx 90 or E9 xx xx" },
	{ "BS_OEMName", 3, 8, T, "name of the formatting system (informational)" },
	{ "BPB_BytsPerSec", 11, 2, U, "bytes per sector: 512, 1024, 2048, 4096" },
	{ "BPB_SecPerClus", 13, 1, U, "sectors per cluster, a power of two" },
	{ "BPB_RsvdSecCnt", 14, 2, U, "reserved sectors before the first FAT" },
	{ "BPB_NumFATs", 16, 1, U, "number of FATs, usually 2" },
	{ "BPB_RootEntCnt", 17, 2, U, "FAT12/16 root directory entries; 0 on FAT32" },
	{ "BPB_TotSec16", 19, 2, U, "total sectors if < 65536, else 0" },
	{ "BPB_Media", 21, 1, H, "media type: F0, F8-FF" },
	{ "BPB_FATSz16", 22, 2, U, "FAT12/16 sectors per FAT; 0 on FAT32" },
	{ "BPB_SecPerTrk", 24, 2, U, "sectors per track (INT 13h)" },
	{ "BPB_NumHeads", 26, 2, U, "heads (INT 13h)" },
	{ "BPB_HiddSec", 28, 4, U, "sectors before the volume" },
	{ "BPB_TotSec32", 32, 4, U, "total sectors if TotSec16 is 0" },
};

static const struct fsc_field fat16_ebpb[] = {
	{ "BS_DrvNum", 36, 1, H, "INT 13h drive number" },
	{ "BS_Reserved1", 37, 1, H, "reserved; Linux keeps its dirty bit here" },
	{ "BS_BootSig", 38, 1, H, "0x29: the next three fields are present" },
	{ "BS_VolID", 39, 4, H, "volume serial number" },
	{ "BS_VolLab", 43, 11, T, "volume label (the root entry is the one Windows shows)" },
	{ "BS_FilSysType", 54, 8, T, "\"FAT12   \", \"FAT16   \" or \"FAT     \" (informational)" },
	{ "BootCode", 62, 448, B, "boot code" },
	{ "Signature", 510, 2, H, "AA55" },
};

static const struct fsc_field fat32_ebpb[] = {
	{ "BPB_FATSz32", 36, 4, U, "sectors per FAT" },
	{ "BPB_ExtFlags", 40, 2, H, "bits 0-3 active FAT, bit 7 mirroring disabled" },
	{ "BPB_FSVer", 42, 2, H, "version 0.0" },
	{ "BPB_RootClus", 44, 4, U, "root directory cluster, usually 2" },
	{ "BPB_FSInfo", 48, 2, U, "FSInfo sector, usually 1" },
	{ "BPB_BkBootSec", 50, 2, U, "backup boot sector, usually 6" },
	{ "BPB_Reserved", 52, 12, B, "reserved, zero" },
	{ "BS_DrvNum", 64, 1, H, "INT 13h drive number" },
	{ "BS_Reserved1", 65, 1, H, "reserved; Linux keeps its dirty bit here" },
	{ "BS_BootSig", 66, 1, H, "0x29: the next three fields are present" },
	{ "BS_VolID", 67, 4, H, "volume serial number" },
	{ "BS_VolLab", 71, 11, T, "volume label (the root entry is the one Windows shows)" },
	{ "BS_FilSysType", 82, 8, T, "\"FAT32   \" (informational)" },
	{ "BootCode", 90, 420, B, "boot code" },
	{ "Signature", 510, 2, H, "AA55" },
};

static const struct fsc_field fsinfo[] = {
	{ "FSI_LeadSig", 0, 4, H, "0x41615252" },
	{ "FSI_Reserved1", 4, 480, B, "zero" },
	{ "FSI_StrucSig", 484, 4, H, "0x61417272" },
	{ "FSI_Free_Count", 488, 4, U, "free clusters, 0xFFFFFFFF unknown" },
	{ "FSI_Nxt_Free", 492, 4, U, "where to look for a free cluster, 0xFFFFFFFF unknown" },
	{ "FSI_Reserved2", 496, 12, B, "zero" },
	{ "FSI_TrailSig", 508, 4, H, "0xAA550000" },
};

#define TABLE(t) { t, sizeof(t) / sizeof(t[0]) }
static const struct { const struct fsc_field *v; size_t n; } tables[FSC_TABLE_COUNT] = {
	[FSC_TABLE_EXFAT_BOOT] = TABLE(exfat_boot), [FSC_TABLE_FAT_BPB] = TABLE(fat_bpb),
	[FSC_TABLE_FAT16_EBPB] = TABLE(fat16_ebpb), [FSC_TABLE_FAT32_EBPB] = TABLE(fat32_ebpb),
	[FSC_TABLE_FSINFO] = TABLE(fsinfo),
};

FSC_EXPORT const struct fsc_field *fsc_field_table(enum fsc_table t, size_t *n)
{
	if ((unsigned)t >= FSC_TABLE_COUNT) {
		*n = 0;
		return NULL;
	}
	*n = tables[t].n;
	return tables[t].v;
}

FSC_EXPORT const struct fsc_field *fsc_field_at(enum fsc_table t, unsigned off)
{
	size_t n;
	const struct fsc_field *v = fsc_field_table(t, &n);

	for (size_t i = 0; i < n; i++)
		if (off >= v[i].offset && off < v[i].offset + v[i].width)
			return &v[i];
	return NULL;
}

FSC_EXPORT uint64_t fsc_field_uint(const struct fsc_field *f, const uint8_t *s)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < f->width && i < 8; i++)
		v |= (uint64_t)s[f->offset + i] << (8 * i);
	return v;
}

FSC_EXPORT void fsc_field_value(const struct fsc_field *f, const uint8_t *s, char *buf, size_t len)
{
	size_t o = 0;

	switch (f->fmt) {
	case FSC_FMT_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)fsc_field_uint(f, s));
		return;
	case FSC_FMT_HEX:
		snprintf(buf, len, "0x%0*llx", 2 * f->width, (unsigned long long)fsc_field_uint(f, s));
		return;
	case FSC_FMT_TEXT:
		buf[o++] = '"';
		for (unsigned i = 0; i < f->width && o + 6 < len; i++) {
			uint8_t c = s[f->offset + i];

			if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
				buf[o++] = (char)c;
			else
				o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		}
		snprintf(buf + o, len - o, "\"");
		return;
	case FSC_FMT_BYTES:
		if (bytes_all(s, f->offset, f->width, s[f->offset]) && f->width > 4) {
			snprintf(buf, len, "%u x %02X", f->width, s[f->offset]);
			return;
		}
		buf[0] = '\0';
		for (unsigned i = 0; i < f->width && i < 16 && o + 4 < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%02X", i ? " " : "", s[f->offset + i]);
		if (f->width > 16 && o < len)
			snprintf(buf + o, len - o, " ... (%u bytes)", f->width);
		return;
	}
}
