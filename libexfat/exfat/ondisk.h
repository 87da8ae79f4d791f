/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exfat/ondisk.h - every exFAT on-disk field the library reads or writes,
 * named once (EXSPEC: Microsoft's exFAT file system specification): the
 * boot sector (3.1), the FAT's first entries (4.1), the directory entries
 * (6, 7.1-7.7), as byte offsets with the specification's field names, the
 * flag bits, and small accessors that take one 32-byte entry.
 *
 * No packed structs: bytes are read with get_le16/32/64(buf, OFFSET)
 * (base/bytes.h).  The _Static_asserts at the end check that the fields
 * of each structure follow one another, do not overlap and tile it;
 * tests/unit/test_fields.c checks the boot sector's names against
 * report/fields.c's table, and tests/layering.sh keeps numeric offsets out
 * of the code outside exfat/ and fat/.
 */
#ifndef FSC_EXFAT_ONDISK_H
#define FSC_EXFAT_ONDISK_H

#include <stdint.h>
#include "base/bytes.h"

/* ---- The main and backup boot regions (EXSPEC 3) */
#define EXFAT_BOOT_REGION_SECTORS	12	/* boot, 8 extended, OEM, reserved, checksum */
#define EXFAT_BOOT_CHECKSUM_SECTOR	11	/* the boot checksum, repeated over the sector */

/* The boot sector (EXSPEC 3.1). */
#define EXFAT_BOOT_JUMP_BOOT			0	/* 3 */
#define EXFAT_BOOT_FILE_SYSTEM_NAME		3	/* 8 */
#define EXFAT_BOOT_MUST_BE_ZERO			11	/* 53 */
#define EXFAT_BOOT_PARTITION_OFFSET		64	/* 8 */
#define EXFAT_BOOT_VOLUME_LENGTH		72	/* 8 */
#define EXFAT_BOOT_FAT_OFFSET			80	/* 4 */
#define EXFAT_BOOT_FAT_LENGTH			84	/* 4 */
#define EXFAT_BOOT_CLUSTER_HEAP_OFFSET		88	/* 4 */
#define EXFAT_BOOT_CLUSTER_COUNT		92	/* 4 */
#define EXFAT_BOOT_FIRST_CLUSTER_OF_ROOT	96	/* 4 */
#define EXFAT_BOOT_VOLUME_SERIAL_NUMBER		100	/* 4 */
#define EXFAT_BOOT_FILE_SYSTEM_REVISION		104	/* 2 */
#define EXFAT_BOOT_VOLUME_FLAGS			106	/* 2 */
#define EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT	108	/* 1 */
#define EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT	109	/* 1 */
#define EXFAT_BOOT_NUMBER_OF_FATS		110	/* 1 */
#define EXFAT_BOOT_DRIVE_SELECT			111	/* 1 */
#define EXFAT_BOOT_PERCENT_IN_USE		112	/* 1 */
#define EXFAT_BOOT_RESERVED			113	/* 7 */
#define EXFAT_BOOT_BOOT_CODE			120	/* 390 */
#define EXFAT_BOOT_BOOT_SIGNATURE		510	/* 2 */
#define EXFAT_BOOT_SIGNATURE_VALUE		0xAA55
#define EXFAT_BOOT_SECTOR_SIZE			512	/* (the fields; a sector may be larger) */

/* VolumeFlags (EXSPEC 3.1.13.1-4). */
#define EXFAT_VOLUME_FLAG_ACTIVE_FAT		0x0001
#define EXFAT_VOLUME_FLAG_VOLUME_DIRTY		0x0002
#define EXFAT_VOLUME_FLAG_MEDIA_FAILURE		0x0004
#define EXFAT_VOLUME_FLAG_CLEAR_TO_ZERO		0x0008

/* The last 4 bytes of each of the 8 extended boot sectors of ss bytes (EXSPEC 3.2.1). */
#define EXFAT_EXTENDED_BOOT_SIGNATURE		0xAA550000u
#define EXFAT_EXTENDED_BOOT_SIGNATURE_AT(ss)	((ss) - 4)

/* ---- The FAT (EXSPEC 4.1): 32-bit entries; FatEntry[0] holds the media type. */
#define EXFAT_FAT_ENTRY_SIZE	4
#define EXFAT_FAT_ENTRY0	0xFFFFFFF8u	/* F8h media type, then FFh */
#define EXFAT_FAT_ENTRY1	0xFFFFFFFFu
#define EXFAT_FAT_EOC		0xFFFFFFFFu	/* end of a cluster chain */

/* FatEntry[i] of a FAT read into fat (i at most the entries it holds). */
static inline uint32_t exfat_fat_entry(const uint8_t *fat, uint32_t i)
{
	return get_le32(fat, (size_t)i * EXFAT_FAT_ENTRY_SIZE);
}

/* One FAT entry into its own 4-byte buffer (cell), to be written at 4 * cluster. */
static inline void exfat_fat_cell_put(uint8_t *cell, uint32_t v)
{
	put_le32(cell, 0, v);
}

/* ---- Directory entries (EXSPEC 6): 32 bytes each. */
#define EXFAT_ENTRY_SIZE	32
#define EXFAT_ENTRY_TYPE	0	/* 1: EntryType */
#define EXFAT_ENTRY_AT(k)	((size_t)EXFAT_ENTRY_SIZE * (k))	/* byte of entry k of a run of entries */

/* EntryType's bits (EXSPEC 6.2.1). */
#define EXFAT_TYPE_IN_USE	0x80
#define EXFAT_TYPE_SECONDARY	0x40	/* TypeCategory: a secondary entry */
#define EXFAT_TYPE_IMPORTANCE	0x20	/* TypeImportance: benign */
#define EXFAT_TYPE_CODE_MASK	0x1F
#define EXFAT_TYPE_IN_USE_SECONDARY	(EXFAT_TYPE_IN_USE | EXFAT_TYPE_SECONDARY)	/* 0xC0 */
#define EXFAT_TYPE_BENIGN_SECONDARY	(EXFAT_TYPE_IN_USE_SECONDARY | EXFAT_TYPE_IMPORTANCE)	/* 0xE0 */

/*
 * An EntryType no longer in use: InUse cleared (EXSPEC 6.2.1.4), the
 * other bits kept; but 0x80, all InUse, becomes 0x01, not 0x00, which
 * would end the directory and hide every entry after it (seed 409,
 * pop-c512 #53: random bytes over a root cluster held a 0x80).
 */
static inline uint8_t exfat_type_unused(uint8_t t)
{
	t &= (uint8_t)~EXFAT_TYPE_IN_USE;
	return t ? t : 0x01;
}

/* Every primary entry of a set (EXSPEC 6.3): the file, volume GUID entries. */
#define EXFAT_PRIMARY_SECONDARY_COUNT	1	/* 1 */
#define EXFAT_PRIMARY_SET_CHECKSUM	2	/* 2 */
#define EXFAT_PRIMARY_FLAGS		4	/* 2: GeneralPrimaryFlags */
#define EXFAT_PRIMARY_FLAG_ALLOC_POSSIBLE	0x0001

/* Every primary and secondary entry that names an allocation (EXSPEC 6.3, 6.4). */
#define EXFAT_ENTRY_FIRST_CLUSTER	20	/* 4 */
#define EXFAT_ENTRY_DATA_LENGTH		24	/* 8 */

/* The Allocation Bitmap entry, 0x81 (EXSPEC 7.1). */
#define EXFAT_BITMAP_FLAGS		1	/* 1: BitmapFlags, bit 0: the second FAT's */
#define EXFAT_BITMAP_RESERVED		2	/* 18 */
#define EXFAT_BITMAP_FIRST_CLUSTER	EXFAT_ENTRY_FIRST_CLUSTER
#define EXFAT_BITMAP_DATA_LENGTH	EXFAT_ENTRY_DATA_LENGTH

/* The Up-case Table entry, 0x82 (EXSPEC 7.2). */
#define EXFAT_UPCASE_RESERVED1		1	/* 3 */
#define EXFAT_UPCASE_TABLE_CHECKSUM	4	/* 4 */
#define EXFAT_UPCASE_RESERVED2		8	/* 12 */
#define EXFAT_UPCASE_FIRST_CLUSTER	EXFAT_ENTRY_FIRST_CLUSTER
#define EXFAT_UPCASE_DATA_LENGTH	EXFAT_ENTRY_DATA_LENGTH

/* The Volume Label entry, 0x83 (EXSPEC 7.3). */
#define EXFAT_LABEL_CHARACTER_COUNT	1	/* 1 */
#define EXFAT_LABEL_VOLUME_LABEL	2	/* 22: 11 UTF-16 units */
#define EXFAT_LABEL_RESERVED		24	/* 8 */
#define EXFAT_LABEL_MAX_UNITS		11

/* The File entry, 0x85 (EXSPEC 7.4). */
#define EXFAT_FILE_SECONDARY_COUNT		EXFAT_PRIMARY_SECONDARY_COUNT	/* 1 */
#define EXFAT_FILE_SET_CHECKSUM			EXFAT_PRIMARY_SET_CHECKSUM	/* 2 */
#define EXFAT_FILE_ATTRIBUTES			4	/* 2 */
#define EXFAT_FILE_RESERVED1			6	/* 2 */
#define EXFAT_FILE_CREATE_TIMESTAMP		8	/* 4 */
#define EXFAT_FILE_LAST_MODIFIED_TIMESTAMP	12	/* 4 */
#define EXFAT_FILE_LAST_ACCESSED_TIMESTAMP	16	/* 4 */
#define EXFAT_FILE_CREATE_10MS_INCREMENT	20	/* 1 */
#define EXFAT_FILE_LAST_MODIFIED_10MS_INCREMENT	21	/* 1 */
#define EXFAT_FILE_CREATE_UTC_OFFSET		22	/* 1 */
#define EXFAT_FILE_LAST_MODIFIED_UTC_OFFSET	23	/* 1 */
#define EXFAT_FILE_LAST_ACCESSED_UTC_OFFSET	24	/* 1 */
#define EXFAT_FILE_RESERVED2			25	/* 7 */
/* The three timestamps, and the three UTC offsets, follow one another. */
#define EXFAT_FILE_TIMESTAMP_SIZE		4

/* FileAttributes (EXSPEC 7.4.4). */
#define EXFAT_ATTR_READ_ONLY	0x0001
#define EXFAT_ATTR_HIDDEN	0x0002
#define EXFAT_ATTR_SYSTEM	0x0004
#define EXFAT_ATTR_RESERVED1	0x0008
#define EXFAT_ATTR_DIRECTORY	0x0010
#define EXFAT_ATTR_ARCHIVE	0x0020
#define EXFAT_ATTR_DEFINED	0x0037	/* the bits a file may have set */
#define EXFAT_ATTR_RESERVED	0xFFC8	/* Reserved1 and Reserved2: zero */
/* An OffsetValid bit of a UTC offset field (EXSPEC 7.4.10): 0x80 alone is UTC. */
#define EXFAT_UTC_OFFSET_VALID	0x80

/* The Volume GUID entry, 0xA0 (EXSPEC 7.5). */
#define EXFAT_GUID_SECONDARY_COUNT	EXFAT_PRIMARY_SECONDARY_COUNT	/* 1 */
#define EXFAT_GUID_SET_CHECKSUM		EXFAT_PRIMARY_SET_CHECKSUM	/* 2 */
#define EXFAT_GUID_PRIMARY_FLAGS	EXFAT_PRIMARY_FLAGS		/* 2 */
#define EXFAT_GUID_VOLUME_GUID		6	/* 16 */
#define EXFAT_GUID_RESERVED		22	/* 10 */

/* The Stream Extension entry, 0xC0 (EXSPEC 7.6). */
#define EXFAT_STREAM_FLAGS		1	/* 1: GeneralSecondaryFlags */
#define EXFAT_STREAM_RESERVED1		2	/* 1 */
#define EXFAT_STREAM_NAME_LENGTH	3	/* 1 */
#define EXFAT_STREAM_NAME_HASH		4	/* 2 */
#define EXFAT_STREAM_RESERVED2		6	/* 2 */
#define EXFAT_STREAM_VALID_DATA_LENGTH	8	/* 8 */
#define EXFAT_STREAM_RESERVED3		16	/* 4 */
#define EXFAT_STREAM_FIRST_CLUSTER	EXFAT_ENTRY_FIRST_CLUSTER
#define EXFAT_STREAM_DATA_LENGTH	EXFAT_ENTRY_DATA_LENGTH

/* Every secondary entry (EXSPEC 6.4, the Generic Secondary template): its flags, and an allocation's fields. */
#define EXFAT_SECONDARY_FLAGS		1	/* 1: GeneralSecondaryFlags */
#define EXFAT_SECONDARY_FIRST_CLUSTER	EXFAT_ENTRY_FIRST_CLUSTER
#define EXFAT_SECONDARY_DATA_LENGTH	EXFAT_ENTRY_DATA_LENGTH

/* GeneralSecondaryFlags (EXSPEC 6.4.2), the stream's and every secondary's. */
#define EXFAT_STREAM_FLAG_ALLOC_POSSIBLE	0x01
#define EXFAT_STREAM_FLAG_NO_FAT_CHAIN		0x02
#define EXFAT_STREAM_FLAGS_RESERVED		0xFC

/* The File Name entry, 0xC1 (EXSPEC 7.7). */
#define EXFAT_NAME_FLAGS	1	/* 1: GeneralSecondaryFlags */
#define EXFAT_NAME_FILE_NAME	2	/* 30: 15 UTF-16 units */
#define EXFAT_NAME_UNITS	15

/* A file entry set (EXSPEC 6.3): the File entry, the Stream Extension, then the names. */
#define EXFAT_SET_STREAM	1	/* entry index of the stream extension */
#define EXFAT_SET_FIRST_NAME	2	/* entry index of the first file name entry */
#define EXFAT_SET_STREAM_AT	(EXFAT_SET_STREAM * EXFAT_ENTRY_SIZE)	/* its byte in the set */
#define EXFAT_STREAM_OF(set)	((set) + EXFAT_SET_STREAM_AT)		/* the set's stream entry */

/* Byte offset in a file set of name unit i (0 .. 254). */
static inline size_t exfat_set_name_unit_at(unsigned i)
{
	return (size_t)(EXFAT_SET_FIRST_NAME + i / EXFAT_NAME_UNITS) * EXFAT_ENTRY_SIZE + EXFAT_NAME_FILE_NAME +
	       2 * (i % EXFAT_NAME_UNITS);
}

/* ---- Accessors: e is one 32-byte entry of the type named. */
/* A primary entry's (file, volume GUID) SetChecksum. */
static inline uint16_t exfat_primary_set_checksum(const uint8_t *e)
{
	return get_le16(e, EXFAT_PRIMARY_SET_CHECKSUM);
}

static inline void exfat_primary_put_set_checksum(uint8_t *e, uint16_t v)
{
	put_le16(e, EXFAT_PRIMARY_SET_CHECKSUM, v);
}

/* A primary entry's SecondaryCount. */
static inline unsigned exfat_secondary_count(const uint8_t *e)
{
	return e[EXFAT_PRIMARY_SECONDARY_COUNT];
}

/* A primary entry's GeneralPrimaryFlags. */
static inline uint16_t exfat_primary_flags(const uint8_t *e)
{
	return get_le16(e, EXFAT_PRIMARY_FLAGS);
}

static inline uint16_t exfat_file_attributes(const uint8_t *e)
{
	return get_le16(e, EXFAT_FILE_ATTRIBUTES);
}

static inline void exfat_file_put_attributes(uint8_t *e, uint16_t v)
{
	put_le16(e, EXFAT_FILE_ATTRIBUTES, v);
}

static inline uint8_t exfat_stream_flags(const uint8_t *e)
{
	return e[EXFAT_STREAM_FLAGS];
}

static inline uint8_t exfat_stream_name_length(const uint8_t *e)
{
	return e[EXFAT_STREAM_NAME_LENGTH];
}

static inline void exfat_stream_put_name_hash(uint8_t *e, uint16_t v)
{
	put_le16(e, EXFAT_STREAM_NAME_HASH, v);
}

static inline uint64_t exfat_stream_valid_data_length(const uint8_t *e)
{
	return get_le64(e, EXFAT_STREAM_VALID_DATA_LENGTH);
}

static inline void exfat_stream_put_valid_data_length(uint8_t *e, uint64_t v)
{
	put_le64(e, EXFAT_STREAM_VALID_DATA_LENGTH, v);
}

static inline uint32_t exfat_stream_first_cluster(const uint8_t *e)
{
	return get_le32(e, EXFAT_STREAM_FIRST_CLUSTER);
}

static inline void exfat_stream_put_first_cluster(uint8_t *e, uint32_t v)
{
	put_le32(e, EXFAT_STREAM_FIRST_CLUSTER, v);
}

static inline uint64_t exfat_stream_data_length(const uint8_t *e)
{
	return get_le64(e, EXFAT_STREAM_DATA_LENGTH);
}

static inline void exfat_stream_put_data_length(uint8_t *e, uint64_t v)
{
	put_le64(e, EXFAT_STREAM_DATA_LENGTH, v);
}

/* Unit i (0 .. 10) of a Volume Label entry's VolumeLabel. */
static inline uint16_t exfat_label_unit(const uint8_t *e, unsigned i)
{
	return get_le16(e, EXFAT_LABEL_VOLUME_LABEL + 2 * (size_t)i);
}

static inline void exfat_label_put_unit(uint8_t *e, unsigned i, uint16_t u)
{
	put_le16(e, EXFAT_LABEL_VOLUME_LABEL + 2 * (size_t)i, u);
}

/* Unit i (0 .. 14) of a File Name entry's FileName. */
static inline uint16_t exfat_name_unit(const uint8_t *e, unsigned i)
{
	return get_le16(e, EXFAT_NAME_FILE_NAME + 2 * (size_t)i);
}

static inline void exfat_name_put_unit(uint8_t *e, unsigned i, uint16_t u)
{
	put_le16(e, EXFAT_NAME_FILE_NAME + 2 * (size_t)i, u);
}

/* ---- Each field ends where the next begins; the last ends with the structure. */
#define EXFAT_NEXT(a, width, b) _Static_assert((a) + (width) == (b), #a " ends where " #b " begins")

EXFAT_NEXT(EXFAT_BOOT_JUMP_BOOT, 3, EXFAT_BOOT_FILE_SYSTEM_NAME);
EXFAT_NEXT(EXFAT_BOOT_FILE_SYSTEM_NAME, 8, EXFAT_BOOT_MUST_BE_ZERO);
EXFAT_NEXT(EXFAT_BOOT_MUST_BE_ZERO, 53, EXFAT_BOOT_PARTITION_OFFSET);
EXFAT_NEXT(EXFAT_BOOT_PARTITION_OFFSET, 8, EXFAT_BOOT_VOLUME_LENGTH);
EXFAT_NEXT(EXFAT_BOOT_VOLUME_LENGTH, 8, EXFAT_BOOT_FAT_OFFSET);
EXFAT_NEXT(EXFAT_BOOT_FAT_OFFSET, 4, EXFAT_BOOT_FAT_LENGTH);
EXFAT_NEXT(EXFAT_BOOT_FAT_LENGTH, 4, EXFAT_BOOT_CLUSTER_HEAP_OFFSET);
EXFAT_NEXT(EXFAT_BOOT_CLUSTER_HEAP_OFFSET, 4, EXFAT_BOOT_CLUSTER_COUNT);
EXFAT_NEXT(EXFAT_BOOT_CLUSTER_COUNT, 4, EXFAT_BOOT_FIRST_CLUSTER_OF_ROOT);
EXFAT_NEXT(EXFAT_BOOT_FIRST_CLUSTER_OF_ROOT, 4, EXFAT_BOOT_VOLUME_SERIAL_NUMBER);
EXFAT_NEXT(EXFAT_BOOT_VOLUME_SERIAL_NUMBER, 4, EXFAT_BOOT_FILE_SYSTEM_REVISION);
EXFAT_NEXT(EXFAT_BOOT_FILE_SYSTEM_REVISION, 2, EXFAT_BOOT_VOLUME_FLAGS);
EXFAT_NEXT(EXFAT_BOOT_VOLUME_FLAGS, 2, EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT);
EXFAT_NEXT(EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT, 1, EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT);
EXFAT_NEXT(EXFAT_BOOT_SECTORS_PER_CLUSTER_SHIFT, 1, EXFAT_BOOT_NUMBER_OF_FATS);
EXFAT_NEXT(EXFAT_BOOT_NUMBER_OF_FATS, 1, EXFAT_BOOT_DRIVE_SELECT);
EXFAT_NEXT(EXFAT_BOOT_DRIVE_SELECT, 1, EXFAT_BOOT_PERCENT_IN_USE);
EXFAT_NEXT(EXFAT_BOOT_PERCENT_IN_USE, 1, EXFAT_BOOT_RESERVED);
EXFAT_NEXT(EXFAT_BOOT_RESERVED, 7, EXFAT_BOOT_BOOT_CODE);
EXFAT_NEXT(EXFAT_BOOT_BOOT_CODE, 390, EXFAT_BOOT_BOOT_SIGNATURE);
EXFAT_NEXT(EXFAT_BOOT_BOOT_SIGNATURE, 2, EXFAT_BOOT_SECTOR_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_BITMAP_FLAGS);
EXFAT_NEXT(EXFAT_BITMAP_FLAGS, 1, EXFAT_BITMAP_RESERVED);
EXFAT_NEXT(EXFAT_BITMAP_RESERVED, 18, EXFAT_BITMAP_FIRST_CLUSTER);
EXFAT_NEXT(EXFAT_BITMAP_FIRST_CLUSTER, 4, EXFAT_BITMAP_DATA_LENGTH);
EXFAT_NEXT(EXFAT_BITMAP_DATA_LENGTH, 8, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_UPCASE_RESERVED1);
EXFAT_NEXT(EXFAT_UPCASE_RESERVED1, 3, EXFAT_UPCASE_TABLE_CHECKSUM);
EXFAT_NEXT(EXFAT_UPCASE_TABLE_CHECKSUM, 4, EXFAT_UPCASE_RESERVED2);
EXFAT_NEXT(EXFAT_UPCASE_RESERVED2, 12, EXFAT_UPCASE_FIRST_CLUSTER);
EXFAT_NEXT(EXFAT_UPCASE_FIRST_CLUSTER, 4, EXFAT_UPCASE_DATA_LENGTH);
EXFAT_NEXT(EXFAT_UPCASE_DATA_LENGTH, 8, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_LABEL_CHARACTER_COUNT);
EXFAT_NEXT(EXFAT_LABEL_CHARACTER_COUNT, 1, EXFAT_LABEL_VOLUME_LABEL);
EXFAT_NEXT(EXFAT_LABEL_VOLUME_LABEL, 2 * EXFAT_LABEL_MAX_UNITS, EXFAT_LABEL_RESERVED);
EXFAT_NEXT(EXFAT_LABEL_RESERVED, 8, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_FILE_SECONDARY_COUNT);
EXFAT_NEXT(EXFAT_FILE_SECONDARY_COUNT, 1, EXFAT_FILE_SET_CHECKSUM);
EXFAT_NEXT(EXFAT_FILE_SET_CHECKSUM, 2, EXFAT_FILE_ATTRIBUTES);
EXFAT_NEXT(EXFAT_FILE_ATTRIBUTES, 2, EXFAT_FILE_RESERVED1);
EXFAT_NEXT(EXFAT_FILE_RESERVED1, 2, EXFAT_FILE_CREATE_TIMESTAMP);
EXFAT_NEXT(EXFAT_FILE_CREATE_TIMESTAMP, EXFAT_FILE_TIMESTAMP_SIZE, EXFAT_FILE_LAST_MODIFIED_TIMESTAMP);
EXFAT_NEXT(EXFAT_FILE_LAST_MODIFIED_TIMESTAMP, EXFAT_FILE_TIMESTAMP_SIZE, EXFAT_FILE_LAST_ACCESSED_TIMESTAMP);
EXFAT_NEXT(EXFAT_FILE_LAST_ACCESSED_TIMESTAMP, EXFAT_FILE_TIMESTAMP_SIZE, EXFAT_FILE_CREATE_10MS_INCREMENT);
EXFAT_NEXT(EXFAT_FILE_CREATE_10MS_INCREMENT, 1, EXFAT_FILE_LAST_MODIFIED_10MS_INCREMENT);
EXFAT_NEXT(EXFAT_FILE_LAST_MODIFIED_10MS_INCREMENT, 1, EXFAT_FILE_CREATE_UTC_OFFSET);
EXFAT_NEXT(EXFAT_FILE_CREATE_UTC_OFFSET, 1, EXFAT_FILE_LAST_MODIFIED_UTC_OFFSET);
EXFAT_NEXT(EXFAT_FILE_LAST_MODIFIED_UTC_OFFSET, 1, EXFAT_FILE_LAST_ACCESSED_UTC_OFFSET);
EXFAT_NEXT(EXFAT_FILE_LAST_ACCESSED_UTC_OFFSET, 1, EXFAT_FILE_RESERVED2);
EXFAT_NEXT(EXFAT_FILE_RESERVED2, 7, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_GUID_SECONDARY_COUNT);
EXFAT_NEXT(EXFAT_GUID_SECONDARY_COUNT, 1, EXFAT_GUID_SET_CHECKSUM);
EXFAT_NEXT(EXFAT_GUID_SET_CHECKSUM, 2, EXFAT_GUID_PRIMARY_FLAGS);
EXFAT_NEXT(EXFAT_GUID_PRIMARY_FLAGS, 2, EXFAT_GUID_VOLUME_GUID);
EXFAT_NEXT(EXFAT_GUID_VOLUME_GUID, 16, EXFAT_GUID_RESERVED);
EXFAT_NEXT(EXFAT_GUID_RESERVED, 10, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_STREAM_FLAGS);
EXFAT_NEXT(EXFAT_STREAM_FLAGS, 1, EXFAT_STREAM_RESERVED1);
EXFAT_NEXT(EXFAT_STREAM_RESERVED1, 1, EXFAT_STREAM_NAME_LENGTH);
EXFAT_NEXT(EXFAT_STREAM_NAME_LENGTH, 1, EXFAT_STREAM_NAME_HASH);
EXFAT_NEXT(EXFAT_STREAM_NAME_HASH, 2, EXFAT_STREAM_RESERVED2);
EXFAT_NEXT(EXFAT_STREAM_RESERVED2, 2, EXFAT_STREAM_VALID_DATA_LENGTH);
EXFAT_NEXT(EXFAT_STREAM_VALID_DATA_LENGTH, 8, EXFAT_STREAM_RESERVED3);
EXFAT_NEXT(EXFAT_STREAM_RESERVED3, 4, EXFAT_STREAM_FIRST_CLUSTER);
EXFAT_NEXT(EXFAT_STREAM_FIRST_CLUSTER, 4, EXFAT_STREAM_DATA_LENGTH);
EXFAT_NEXT(EXFAT_STREAM_DATA_LENGTH, 8, EXFAT_ENTRY_SIZE);

EXFAT_NEXT(EXFAT_ENTRY_TYPE, 1, EXFAT_NAME_FLAGS);
EXFAT_NEXT(EXFAT_NAME_FLAGS, 1, EXFAT_NAME_FILE_NAME);
EXFAT_NEXT(EXFAT_NAME_FILE_NAME, 2 * EXFAT_NAME_UNITS, EXFAT_ENTRY_SIZE);

#undef EXFAT_NEXT

#endif
