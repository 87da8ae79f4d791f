/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exfat/exfat.h - exFAT on-disk knowledge (EXSPEC); not installed. */
#ifndef FSC_EXFAT_H
#define FSC_EXFAT_H

#include "report/report.h"
#include "layout/layout.h"
#include "exfat/ondisk.h"

/* boot.c */
void exfat_boot_decode(const uint8_t *s, struct fsc_exfat_boot *ex);
bool exfat_lookalike(const uint8_t *s);
/*
 * The 12 sectors of ss bytes in b: a sound exFAT boot region for this
 * sector size (signature, name, BytesPerSectorShift, checksum)?
 */
bool exfat_region_sound(const uint8_t *b, unsigned ss);

/* Entry types (EXSPEC 6.2, 7.1-7.7). */
#define EXFAT_T_BITMAP	0x81
#define EXFAT_T_UPCASE	0x82
#define EXFAT_T_LABEL	0x83
#define EXFAT_T_FILE	0x85
#define EXFAT_T_GUID	0xA0
#define EXFAT_T_PADDING	0xA1	/* TexFAT */
#define EXFAT_T_STREAM	0xC0
#define EXFAT_T_NAME	0xC1

/* dirent.c: where an entry lies. */
struct exfat_where {
	uint32_t cluster, entry;	/* cluster and entry index in it */
	uint64_t offset;		/* byte in the volume */
};

/* What exfat_asm_feed made of an entry. */
enum exfat_ev {
	EXA_END,		/* 0x00: the end-of-directory marker */
	EXA_UNUSED,		/* not in use (deleted or free), outside any set */
	EXA_STRAY,		/* a secondary in use with no set open */
	EXA_PRIMARY,		/* a primary that opens no set: the caller's to judge */
	EXA_BEGIN,		/* a primary that opens a set: its secondaries follow */
	EXA_MEMBER,		/* one more entry of the open set */
	EXA_SET,		/* a set is complete: set[0 .. count-1] */
	EXA_CUT,		/* the open set was cut short by this entry (cut_by): feed it again */
};
enum exfat_cut { EXA_CUT_END, EXA_CUT_UNUSED, EXA_CUT_PRIMARY };

#define EXA_DELETED		0x1	/* assemble file sets with InUse clear too */
#define EXA_LENIENT		0x2	/* exfat-fuse: skip unused entries inside a set */
#define EXA_KEEP_UNKNOWN	0x4	/* unknown primaries keep their secondaries */

struct exfat_asm {
	uint8_t set[256 * 32];		/* the set: primary first */
	unsigned have, need;		/* entries assembled and expected (open set) */
	unsigned count;			/* EXA_SET / EXA_CUT: entries in set[] */
	bool deleted;			/* the set's InUse is clear */
	enum exfat_cut cut_by;
	struct exfat_where at;		/* where the set's primary lies */
	struct exfat_where pos[256];	/* where each entry of set[] lies (pos[0] == at) */
	unsigned flags, max_secondary;
};

/*
 * Start assembling (flags EXA_*).  max_secondary 0: any SecondaryCount;
 * otherwise file sets must have 2..max_secondary secondaries to count.
 */
void exfat_asm_init(struct exfat_asm *a, unsigned flags, unsigned max_secondary);
/*
 * Start again with the same flags, for another directory: what init
 * sets but the bytes of the last set (set[], pos[]), which only a set
 * assembled since is read from (some 10 KiB not zeroed a directory).
 */
void exfat_asm_restart(struct exfat_asm *a);
/* The next entry of the directory; at: where it lies (kept for a primary). */
enum exfat_ev exfat_asm_feed(struct exfat_asm *a, const uint8_t *e, const struct exfat_where *at);
/* The directory ended: true when a set was open (cut by the end; count set). */
bool exfat_asm_flush(struct exfat_asm *a);
/* "the end of the directory", "an unused entry", "another primary entry" */
const char *exfat_cut_name(enum exfat_cut why);

/* A file entry set decoded (EXSPEC 7.4, 7.6, 7.7). */
struct exfat_set {
	unsigned secondary_count;
	uint16_t checksum, attr;
	uint32_t time[3];		/* create, modify, access: DOS date << 16 | time */
	uint8_t ms10[2];		/* create, modify: 10 ms increments */
	uint8_t utc_raw[3];
	int16_t utc[3];			/* minutes east of UTC; INT16_MIN: not given */
	bool has_stream;		/* the first secondary is a stream extension */
	uint8_t stream_type, flags, name_length;
	uint16_t name_hash;
	uint64_t valid_size, size;
	uint32_t first_cluster;
	unsigned name_entries;		/* file name entries right after the stream */
	unsigned nl;			/* name units there: min(NameLength, 15 * name_entries) */
	uint16_t name[255];
};
/* A file with no cluster whose stream says its clusters lie in a row (NoFatChain; Linux writes 0x01 there). */
static inline bool exfat_set_empty_contiguous(const struct exfat_set *d)
{
	return (d->flags & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) && !d->first_cluster && !d->size;
}
/* May a file name hold this UTF-16 unit (EXSPEC 7.7.3)?  (Inline: every unit of every name is asked.) */
static inline bool exfat_name_char_ok(uint16_t u)
{
	/* Bit per ASCII code: control characters and " * / : < > ? \\ | are not allowed. */
	static const uint32_t bad[4] = { 0xFFFFFFFFu, 0xD4008404u, 0x10000000u, 0x10000000u };

	return u >= 0x80 || !((bad[u >> 5] >> (u & 31)) & 1);
}
/*
 * Unit i of a name of n units: a character a name may hold, and not half
 * of a surrogate pair without its other half (no UTF-8 can spell it: the
 * Linux driver cannot open such a name, fsck.exfat calls it corrupt).
 */
static inline bool exfat_name_unit_ok(const uint16_t *name, unsigned n, unsigned i)
{
	uint16_t u = name[i];

	if (u >= 0xD800 && u <= 0xDBFF)		/* a high surrogate needs a low one after it */
		return i + 1 < n && name[i + 1] >= 0xDC00 && name[i + 1] <= 0xDFFF;
	if (u >= 0xDC00 && u <= 0xDFFF)		/* a low one a high one before it */
		return i > 0 && name[i - 1] >= 0xD800 && name[i - 1] <= 0xDBFF;
	return exfat_name_char_ok(u);
}

/* Decode count entries of a file set (InUse bits ignored). */
void exfat_set_decode(const uint8_t *set, unsigned count, struct exfat_set *out);

/* upcase.c: the ASCII-only mapping (65536 entries). */
void exfat_upcase_default(uint16_t *table);
/* Expanding a compressed table: zero it, then feed the bytes in order. */
struct exfat_upcase_rd {
	uint32_t idx;			/* code points mapped so far (65536: all) */
	bool skip;			/* the next unit is the length of an identity run */
};
/* table (65536 entries) may be NULL: only idx counts. */
void exfat_upcase_feed(struct exfat_upcase_rd *r, const uint8_t *buf, size_t n, uint16_t *table);
/*
 * upcase_rec.c (generated by tools/gen-upcase.py): the specification's
 * recommended table (EXSPEC 7.2.5), the one mkfs.exfat writes, as ranges:
 * for k < count, first + k * step maps to itself plus delta (mod 65536);
 * every other code point maps to itself.
 */
struct exfat_upcase_range {
	uint16_t first, count, delta;
	uint8_t step;
};
extern const struct exfat_upcase_range exfat_upcase_rec_ranges[];
extern const size_t exfat_upcase_rec_nranges;
/* upcase.c: the recommended mapping into table (65536 entries). */
void exfat_upcase_recommended_map(uint16_t *table);
/* Its compressed form: identity runs longer than EXFAT_UPCASE_RUN_MIN as 0xFFFF and a length. */
#define EXFAT_UPCASE_RUN_MIN		512u
#define EXFAT_UPCASE_REC_BYTES		5836u
#define EXFAT_UPCASE_REC_CHECKSUM	0xE619D30Du
/*
 * The compressed table into out (EXFAT_UPCASE_REC_BYTES bytes), as
 * mkfs.exfat writes it; returns its length in bytes, or 0 when memory for
 * the work ran out.
 */
size_t exfat_upcase_recommended(uint8_t *out);
/* layout.c */
/*
 * Fill l from the boot sector read with 2^shift-byte sectors, on dev.
 * Returns 0, or -EINVAL with why filled (a sector or cluster size out of
 * range).  ClusterCount is taken as it is; l->held counts the clusters
 * the device holds.
 */
int exfat_layout(struct layout *l, struct fsc_dev *dev, const struct fsc_exfat_boot *ex, unsigned shift,
		 char *why, size_t whylen);

#endif
