/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fat/ondisk.h - every FAT12/16/32 on-disk field the library reads or
 * writes, named once after Microsoft's FAT specification (fatgen103): the
 * boot sector and BPB (section 3), the FSInfo sector (section 5), the 8.3
 * directory entry (section 6) and the long-name entry (section 7), as byte
 * offsets, with the attribute bits, the signatures and small accessors.
 *
 * No packed structs: bytes are read with get_le16/32(buf, OFFSET)
 * (base/bytes.h).  The _Static_asserts at the end check that the fields
 * of each structure follow one another, do not overlap and tile it;
 * tests/unit/test_fields.c checks the BPB and FSInfo names against
 * report/fields.c's tables, and tests/layering.sh keeps numeric offsets
 * out of the code outside exfat/ and fat/.
 */
#ifndef FSC_FAT_ONDISK_H
#define FSC_FAT_ONDISK_H

#include <stdbool.h>
#include <stdint.h>
#include "base/bytes.h"

/* ---- The boot sector and BPB, all FAT types (fatgen103 section 3.1). */
#define FAT_BS_JMP_BOOT		0	/* 3 */
#define FAT_BS_OEM_NAME		3	/* 8 */
#define FAT_BPB_BYTS_PER_SEC	11	/* 2 */
#define FAT_BPB_SEC_PER_CLUS	13	/* 1 */
#define FAT_BPB_RSVD_SEC_CNT	14	/* 2 */
#define FAT_BPB_NUM_FATS	16	/* 1 */
#define FAT_BPB_ROOT_ENT_CNT	17	/* 2 */
#define FAT_BPB_TOT_SEC16	19	/* 2 */
#define FAT_BPB_MEDIA		21	/* 1 */
#define FAT_BPB_FAT_SZ16	22	/* 2 */
#define FAT_BPB_SEC_PER_TRK	24	/* 2 */
#define FAT_BPB_NUM_HEADS	26	/* 2 */
#define FAT_BPB_HIDD_SEC	28	/* 4 */
#define FAT_BPB_TOT_SEC32	32	/* 4 */
#define FAT_BPB_END		36	/* where the extended BPB begins */

/* FAT12/16 from byte 36 (section 3.2). */
#define FAT16_BS_DRV_NUM	36	/* 1 */
#define FAT16_BS_RESERVED1	37	/* 1 */
#define FAT16_BS_BOOT_SIG	38	/* 1 */
#define FAT16_BS_VOL_ID		39	/* 4 */
#define FAT16_BS_VOL_LAB	43	/* 11 */
#define FAT16_BS_FIL_SYS_TYPE	54	/* 8 */
#define FAT16_BS_BOOT_CODE	62	/* 448 */

/* FAT32 from byte 36 (section 3.3). */
#define FAT32_BPB_FAT_SZ32	36	/* 4 */
#define FAT32_BPB_EXT_FLAGS	40	/* 2 */
#define FAT32_BPB_FS_VER	42	/* 2 */
#define FAT32_BPB_ROOT_CLUS	44	/* 4 */
#define FAT32_BPB_FS_INFO	48	/* 2 */
#define FAT32_BPB_BK_BOOT_SEC	50	/* 2 */
#define FAT32_BPB_RESERVED	52	/* 12 */
#define FAT32_BS_DRV_NUM	64	/* 1 */
#define FAT32_BS_RESERVED1	65	/* 1 */
#define FAT32_BS_BOOT_SIG	66	/* 1 */
#define FAT32_BS_VOL_ID		67	/* 4 */
#define FAT32_BS_VOL_LAB	71	/* 11 */
#define FAT32_BS_FIL_SYS_TYPE	82	/* 8 */
#define FAT32_BS_BOOT_CODE	90	/* 420 */

/* Both: the signature word (section 3.2, "Signature_word"). */
#define FAT_BS_SIGNATURE	510	/* 2 */
#define FAT_BS_SIGNATURE_VALUE	0xAA55
#define FAT_BS_SECTOR_SIZE	512

/* Where the FAT32 boot sector's copy usually lies (BPB_BkBootSec). */
#define FAT32_BK_BOOT_SEC_USUAL	6

/* ---- The FSInfo sector (section 5). */
#define FAT_FSI_LEAD_SIG	0	/* 4 */
#define FAT_FSI_RESERVED1	4	/* 480 */
#define FAT_FSI_STRUC_SIG	484	/* 4 */
#define FAT_FSI_FREE_COUNT	488	/* 4 */
#define FAT_FSI_NXT_FREE	492	/* 4 */
#define FAT_FSI_RESERVED2	496	/* 12 */
#define FAT_FSI_TRAIL_SIG	508	/* 4 */
#define FAT_FSI_SIZE		512

#define FAT_FSI_LEAD_SIG_VALUE	0x41615252u
#define FAT_FSI_STRUC_SIG_VALUE	0x61417272u
#define FAT_FSI_TRAIL_SIG_VALUE	0xAA550000u
#define FAT_FSI_UNKNOWN		0xFFFFFFFFu	/* FSI_Free_Count, FSI_Nxt_Free: not known */

/* ---- The 8.3 directory entry (section 6): 32 bytes. */
#define FAT_DIR_ENTRY_SIZE	32
#define FAT_DIR_NAME		0	/* 11 */
#define FAT_DIR_ATTR		11	/* 1 */
#define FAT_DIR_NT_RES		12	/* 1 */
#define FAT_DIR_CRT_TIME_TENTH	13	/* 1 */
#define FAT_DIR_CRT_TIME	14	/* 2 */
#define FAT_DIR_CRT_DATE	16	/* 2 */
#define FAT_DIR_LST_ACC_DATE	18	/* 2 */
#define FAT_DIR_FST_CLUS_HI	20	/* 2 */
#define FAT_DIR_WRT_TIME	22	/* 2 */
#define FAT_DIR_WRT_DATE	24	/* 2 */
#define FAT_DIR_FST_CLUS_LO	26	/* 2 */
#define FAT_DIR_FILE_SIZE	28	/* 4 */
#define FAT_DIR_NAME_LEN	11

/* DIR_Name[0] (section 6.1). */
#define FAT_DIR_FREE		0xE5	/* a deleted entry */
#define FAT_DIR_LAST_FREE	0x00	/* no entry follows */

/* DIR_Attr (section 6). */
#define FAT_ATTR_READ_ONLY	0x01
#define FAT_ATTR_HIDDEN		0x02
#define FAT_ATTR_SYSTEM		0x04
#define FAT_ATTR_VOLUME_ID	0x08
#define FAT_ATTR_DIRECTORY	0x10
#define FAT_ATTR_ARCHIVE	0x20
#define FAT_ATTR_LONG_NAME	0x0F	/* READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID */
#define FAT_ATTR_LONG_NAME_MASK	0x3F
#define FAT_ATTR_RESERVED	0xC0	/* the two high bits: zero */
#define FAT_ATTR_DIR_LABEL	(FAT_ATTR_DIRECTORY | FAT_ATTR_VOLUME_ID)	/* both: neither a file nor a label */

/* DIR_NTRes: Windows NT's lower-case flags, the rest reserved. */
#define FAT_NT_RES_LOWER_BASE	0x08
#define FAT_NT_RES_LOWER_EXT	0x10
#define FAT_NT_RES_NO_SFN	0x20	/* Linux patches: a long name alone, no 8.3 name of its own */

/* ---- The long-name entry (section 7): 32 bytes, 13 UTF-16 units. */
#define FAT_LDIR_ORD		0	/* 1 */
#define FAT_LDIR_NAME1		1	/* 10: units 1-5 */
#define FAT_LDIR_ATTR		11	/* 1: ATTR_LONG_NAME */
#define FAT_LDIR_TYPE		12	/* 1: zero */
#define FAT_LDIR_CHKSUM		13	/* 1 */
#define FAT_LDIR_NAME2		14	/* 12: units 6-11 */
#define FAT_LDIR_FST_CLUS_LO	26	/* 2: zero */
#define FAT_LDIR_NAME3		28	/* 4: units 12-13 */
#define FAT_LDIR_UNITS		13
#define FAT_LFN_MAX_UNITS	255	/* a long name's characters at most (20 parts, the last ending in 0x0000) */
#define FAT_LFN_MAX_PARTS	20	/* a long name's parts at most */
/* Units a name of FAT_LFN_MAX_PARTS full parts holds: what a buffer for a read name (too long or not) needs. */
#define FAT_LFN_CAP_UNITS	(FAT_LFN_MAX_PARTS * FAT_LDIR_UNITS)

#define FAT_LAST_LONG_ENTRY	0x40	/* LDIR_Ord of the name's last part (stored first) */
#define FAT_LDIR_ORD_MASK	0x1F	/* the part's number, 1 .. 20 */

/* Byte offset in a long-name entry of its unit i (0 .. 12): Name1, Name2, Name3 in turn. */
static inline size_t fat_ldir_unit_at(unsigned i)
{
	return i < 5 ? FAT_LDIR_NAME1 + 2 * i : i < 11 ? FAT_LDIR_NAME2 + 2 * (i - 5) : FAT_LDIR_NAME3 + 2 * (i - 11);
}

/* BPB_TotSec16, or BPB_TotSec32 when it is 0: the volume's sectors. */
static inline uint32_t fat_bpb_tot_sec(const uint8_t *s)
{
	return get_le16(s, FAT_BPB_TOT_SEC16) ? get_le16(s, FAT_BPB_TOT_SEC16) : get_le32(s, FAT_BPB_TOT_SEC32);
}

/* Is e a long-name entry (LDIR_Attr ATTR_LONG_NAME under ATTR_LONG_NAME_MASK)? */
static inline bool fat_is_long_name(const uint8_t *e)
{
	return (e[FAT_LDIR_ATTR] & FAT_ATTR_LONG_NAME_MASK) == FAT_ATTR_LONG_NAME;
}

/* ---- Accessors: e is one 32-byte 8.3 entry. */
static inline uint32_t fat_dirent_file_size(const uint8_t *e)
{
	return get_le32(e, FAT_DIR_FILE_SIZE);
}

static inline void fat_dirent_put_file_size(uint8_t *e, uint32_t v)
{
	put_le32(e, FAT_DIR_FILE_SIZE, v);
}

/* DIR_FstClusLO and, on FAT32, DIR_FstClusHI. */
static inline void fat_dirent_put_first_cluster(uint8_t *e, uint32_t c, bool fat32)
{
	put_le16(e, FAT_DIR_FST_CLUS_LO, (uint16_t)c);
	if (fat32)
		put_le16(e, FAT_DIR_FST_CLUS_HI, (uint16_t)(c >> 16));
}

/* A DOS date << 16 | time from the date and time fields at date and time. */
static inline uint32_t fat_dirent_stamp(const uint8_t *e, size_t date, size_t time)
{
	return (uint32_t)get_le16(e, date) << 16 | get_le16(e, time);
}

/* ---- Each field ends where the next begins; the last ends with the structure. */
#define FAT_NEXT(a, width, b) _Static_assert((a) + (width) == (b), #a " ends where " #b " begins")

FAT_NEXT(FAT_BS_JMP_BOOT, 3, FAT_BS_OEM_NAME);
FAT_NEXT(FAT_BS_OEM_NAME, 8, FAT_BPB_BYTS_PER_SEC);
FAT_NEXT(FAT_BPB_BYTS_PER_SEC, 2, FAT_BPB_SEC_PER_CLUS);
FAT_NEXT(FAT_BPB_SEC_PER_CLUS, 1, FAT_BPB_RSVD_SEC_CNT);
FAT_NEXT(FAT_BPB_RSVD_SEC_CNT, 2, FAT_BPB_NUM_FATS);
FAT_NEXT(FAT_BPB_NUM_FATS, 1, FAT_BPB_ROOT_ENT_CNT);
FAT_NEXT(FAT_BPB_ROOT_ENT_CNT, 2, FAT_BPB_TOT_SEC16);
FAT_NEXT(FAT_BPB_TOT_SEC16, 2, FAT_BPB_MEDIA);
FAT_NEXT(FAT_BPB_MEDIA, 1, FAT_BPB_FAT_SZ16);
FAT_NEXT(FAT_BPB_FAT_SZ16, 2, FAT_BPB_SEC_PER_TRK);
FAT_NEXT(FAT_BPB_SEC_PER_TRK, 2, FAT_BPB_NUM_HEADS);
FAT_NEXT(FAT_BPB_NUM_HEADS, 2, FAT_BPB_HIDD_SEC);
FAT_NEXT(FAT_BPB_HIDD_SEC, 4, FAT_BPB_TOT_SEC32);
FAT_NEXT(FAT_BPB_TOT_SEC32, 4, FAT_BPB_END);

FAT_NEXT(FAT_BPB_END, 0, FAT16_BS_DRV_NUM);
FAT_NEXT(FAT16_BS_DRV_NUM, 1, FAT16_BS_RESERVED1);
FAT_NEXT(FAT16_BS_RESERVED1, 1, FAT16_BS_BOOT_SIG);
FAT_NEXT(FAT16_BS_BOOT_SIG, 1, FAT16_BS_VOL_ID);
FAT_NEXT(FAT16_BS_VOL_ID, 4, FAT16_BS_VOL_LAB);
FAT_NEXT(FAT16_BS_VOL_LAB, 11, FAT16_BS_FIL_SYS_TYPE);
FAT_NEXT(FAT16_BS_FIL_SYS_TYPE, 8, FAT16_BS_BOOT_CODE);
FAT_NEXT(FAT16_BS_BOOT_CODE, 448, FAT_BS_SIGNATURE);

FAT_NEXT(FAT_BPB_END, 0, FAT32_BPB_FAT_SZ32);
FAT_NEXT(FAT32_BPB_FAT_SZ32, 4, FAT32_BPB_EXT_FLAGS);
FAT_NEXT(FAT32_BPB_EXT_FLAGS, 2, FAT32_BPB_FS_VER);
FAT_NEXT(FAT32_BPB_FS_VER, 2, FAT32_BPB_ROOT_CLUS);
FAT_NEXT(FAT32_BPB_ROOT_CLUS, 4, FAT32_BPB_FS_INFO);
FAT_NEXT(FAT32_BPB_FS_INFO, 2, FAT32_BPB_BK_BOOT_SEC);
FAT_NEXT(FAT32_BPB_BK_BOOT_SEC, 2, FAT32_BPB_RESERVED);
FAT_NEXT(FAT32_BPB_RESERVED, 12, FAT32_BS_DRV_NUM);
FAT_NEXT(FAT32_BS_DRV_NUM, 1, FAT32_BS_RESERVED1);
FAT_NEXT(FAT32_BS_RESERVED1, 1, FAT32_BS_BOOT_SIG);
FAT_NEXT(FAT32_BS_BOOT_SIG, 1, FAT32_BS_VOL_ID);
FAT_NEXT(FAT32_BS_VOL_ID, 4, FAT32_BS_VOL_LAB);
FAT_NEXT(FAT32_BS_VOL_LAB, 11, FAT32_BS_FIL_SYS_TYPE);
FAT_NEXT(FAT32_BS_FIL_SYS_TYPE, 8, FAT32_BS_BOOT_CODE);
FAT_NEXT(FAT32_BS_BOOT_CODE, 420, FAT_BS_SIGNATURE);
FAT_NEXT(FAT_BS_SIGNATURE, 2, FAT_BS_SECTOR_SIZE);

FAT_NEXT(FAT_FSI_LEAD_SIG, 4, FAT_FSI_RESERVED1);
FAT_NEXT(FAT_FSI_RESERVED1, 480, FAT_FSI_STRUC_SIG);
FAT_NEXT(FAT_FSI_STRUC_SIG, 4, FAT_FSI_FREE_COUNT);
FAT_NEXT(FAT_FSI_FREE_COUNT, 4, FAT_FSI_NXT_FREE);
FAT_NEXT(FAT_FSI_NXT_FREE, 4, FAT_FSI_RESERVED2);
FAT_NEXT(FAT_FSI_RESERVED2, 12, FAT_FSI_TRAIL_SIG);
FAT_NEXT(FAT_FSI_TRAIL_SIG, 4, FAT_FSI_SIZE);

FAT_NEXT(FAT_DIR_NAME, FAT_DIR_NAME_LEN, FAT_DIR_ATTR);
FAT_NEXT(FAT_DIR_ATTR, 1, FAT_DIR_NT_RES);
FAT_NEXT(FAT_DIR_NT_RES, 1, FAT_DIR_CRT_TIME_TENTH);
FAT_NEXT(FAT_DIR_CRT_TIME_TENTH, 1, FAT_DIR_CRT_TIME);
FAT_NEXT(FAT_DIR_CRT_TIME, 2, FAT_DIR_CRT_DATE);
FAT_NEXT(FAT_DIR_CRT_DATE, 2, FAT_DIR_LST_ACC_DATE);
FAT_NEXT(FAT_DIR_LST_ACC_DATE, 2, FAT_DIR_FST_CLUS_HI);
FAT_NEXT(FAT_DIR_FST_CLUS_HI, 2, FAT_DIR_WRT_TIME);
FAT_NEXT(FAT_DIR_WRT_TIME, 2, FAT_DIR_WRT_DATE);
FAT_NEXT(FAT_DIR_WRT_DATE, 2, FAT_DIR_FST_CLUS_LO);
FAT_NEXT(FAT_DIR_FST_CLUS_LO, 2, FAT_DIR_FILE_SIZE);
FAT_NEXT(FAT_DIR_FILE_SIZE, 4, FAT_DIR_ENTRY_SIZE);

FAT_NEXT(FAT_LDIR_ORD, 1, FAT_LDIR_NAME1);
FAT_NEXT(FAT_LDIR_NAME1, 10, FAT_LDIR_ATTR);
FAT_NEXT(FAT_LDIR_ATTR, 1, FAT_LDIR_TYPE);
FAT_NEXT(FAT_LDIR_TYPE, 1, FAT_LDIR_CHKSUM);
FAT_NEXT(FAT_LDIR_CHKSUM, 1, FAT_LDIR_NAME2);
FAT_NEXT(FAT_LDIR_NAME2, 12, FAT_LDIR_FST_CLUS_LO);
FAT_NEXT(FAT_LDIR_FST_CLUS_LO, 2, FAT_LDIR_NAME3);
FAT_NEXT(FAT_LDIR_NAME3, 4, FAT_DIR_ENTRY_SIZE);
_Static_assert(10 + 12 + 4 == 2 * FAT_LDIR_UNITS, "LDIR_Name1, Name2, Name3 hold 13 units");
_Static_assert(FAT_LDIR_ATTR == FAT_DIR_ATTR, "a long-name entry's attributes lie where an 8.3 entry's do");

#undef FAT_NEXT

#endif
