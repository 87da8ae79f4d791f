/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * layout/layout.h - where things are on a volume, whatever its filesystem
 * (layout.c), and the one FAT reader (fatreader.c); not installed.
 *
 * exfat/layout.c fills a layout from an exFAT boot sector, fat/layout.c
 * from a FAT BPB; everything above reads clusters and FAT entries through
 * this interface only.
 */
#ifndef FSC_LAYOUT_H
#define FSC_LAYOUT_H

#include "base/base.h"

/* FAT values as fatreader_next and layout_fat_value return them, for every FAT width. */
#define LAYOUT_FREE		0u		/* a free cluster */
#define LAYOUT_BAD		0xFFFFFFF7u	/* a bad cluster */
#define LAYOUT_END		0xFFFFFFFFu	/* the end of a chain (any end-of-chain value) */
#define LAYOUT_UNREADABLE	0xFFFFFFFEu	/* the entry could not be read (fatreader_next) */

/*
 * One FAT cell: the raw value of cluster c's entry from the bytes that hold
 * it (FAT12: the two bytes cluster c * 3 / 2 starts; FAT16: 2; FAT32 and
 * exFAT: 4), and the bytes with the value v written in.  FAT12 keeps the
 * neighbour's nibble, FAT32 its top 4 reserved bits (fatgen103 section 4).
 */
static inline uint32_t layout_cell_get(const uint8_t *p, unsigned bits, uint32_t c)
{
	if (bits == 12)
		return (c & 1) ? get_le_n(p, 2) >> 4 : get_le_n(p, 2) & 0xFFFu;
	return get_le_n(p, bits / 8);
}

static inline void layout_cell_put(uint8_t *p, unsigned bits, uint32_t c, uint32_t v)
{
	uint32_t old = get_le_n(p, bits == 12 ? 2 : bits / 8);

	if (bits == 12)
		put_le_n(p, 2, c & 1 ? (old & 0x000F) | (v & 0xFFF) << 4 : (old & 0xF000) | (v & 0xFFF));
	else if (bits == 16)
		put_le_n(p, 2, v & 0xFFFF);
	else
		put_le_n(p, 4, (old & 0xF0000000u) | (v & 0x0FFFFFFFu));
}

struct layout {
	struct fsc_dev *dev;
	enum fsc_type type;		/* FSC_TYPE_EXFAT, or FAT12/16/32 as the BPB's style reads */
	uint32_t sector_bytes;
	uint32_t cluster_bytes;
	uint32_t clusters;		/* data clusters as the boot sector says */
	uint32_t held;			/* of those, the ones inside the device (the clamp) */
	uint64_t data_byte;		/* cluster 2 */
	uint64_t fat_byte;		/* the first (active) FAT */
	unsigned fat_bits;		/* entry width: 12, 16 or 32 (exFAT: type says which flavour) */
	uint32_t root_cluster;		/* exFAT, FAT32; 0 otherwise */
	uint64_t root_byte;		/* FAT12/16: the fixed root directory area */
	uint32_t root_bytes;
};

/*
 * A cluster of the data area that the device holds: the clusters walked
 * and counted (memory and time bounded by the device, not by the boot
 * sector's claim).
 */
static inline bool layout_cluster_valid(const struct layout *l, uint32_t c)
{
	return c >= 2 && (uint64_t)c < (uint64_t)l->held + 2;
}

/* A cluster number the boot sector allows, inside the device or not. */
static inline bool layout_cluster_declared(const struct layout *l, uint32_t c)
{
	return c >= 2 && (uint64_t)c < (uint64_t)l->clusters + 2;
}

/* Byte offset of cluster c (c >= 2) in the volume. */
static inline uint64_t layout_cluster_byte(const struct layout *l, uint32_t c)
{
	return l->data_byte + (uint64_t)(c - 2) * l->cluster_bytes;
}

/* layout.c */
/* Set l->held from l->clusters, l->data_byte, l->cluster_bytes (> 0) and the device's size. */
void layout_clamp(struct layout *l);
/* Bytes of FAT holding entries 0 .. n - 1 (FAT12: the last half byte rounded up). */
uint64_t layout_fat_bytes(const struct layout *l, uint64_t n);
/*
 * A raw FAT entry value (12, 16 or 32 bits as stored) normalised:
 * LAYOUT_END, LAYOUT_BAD, LAYOUT_FREE, or the next cluster (FAT32: the
 * upper 4 bits ignored), which may lie outside the data area.  exFAT
 * (EXSPEC 4.1): FFFFFFF7 bad, FFFFFFF8..FFFFFFFF end, as Linux reads
 * them; FAT12/16/32 (fatgen103 "FAT Data Structure"): xF7 bad, xF8..xFF
 * end.  Inline: it runs once per cluster in whole-FAT scans.
 */
static inline uint32_t layout_fat_value(const struct layout *l, uint32_t raw)
{
	uint32_t mask, v;

	if (l->type == FSC_TYPE_EXFAT)
		return raw >= 0xFFFFFFF8u ? LAYOUT_END : raw;	/* FFFFFFF7 is LAYOUT_BAD already */
	mask = l->fat_bits == 12 ? 0xFFF : l->fat_bits == 16 ? 0xFFFF : 0x0FFFFFFF;
	v = raw & mask;
	if (v >= (mask & ~7u))
		return LAYOUT_END;
	if (v == (mask & ~8u))
		return LAYOUT_BAD;
	return v;
}

/* chain.c */
/*
 * The one chain iterator.  next gives the FAT entry of a cluster as
 * layout_fat_value says (or LAYOUT_UNREADABLE); contiguous chains
 * (exFAT's NoFatChain) have no FAT.  Begin with the first cluster and
 * the clusters the loop test looks at (limit: the chain's expected
 * length, or l->held for any loop; 0 for none), then call
 * layout_chain_next until it returns false: end says why, link is the
 * entry that ended it (the cluster a loop goes back to, the value out of
 * range), cur the last cluster given and n how many were given.
 */
enum layout_chain_end {
	LAYOUT_CHAIN_ON,		/* not ended */
	LAYOUT_CHAIN_END,		/* an end-of-chain entry */
	LAYOUT_CHAIN_FREE,		/* a free entry */
	LAYOUT_CHAIN_BAD,		/* a bad-cluster entry */
	LAYOUT_CHAIN_UNREADABLE,	/* the entry could not be read */
	LAYOUT_CHAIN_RANGE,		/* a link (or the first cluster) outside the data area */
	LAYOUT_CHAIN_LOOP,		/* the link goes back to number mu of the chain (loop_to) */
	LAYOUT_CHAIN_LONG,		/* more clusters than the volume holds: a loop past the test's limit */
};

typedef uint32_t (*layout_next_fn)(void *ctx, uint32_t c);

struct layout_chain {
	const struct layout *l;
	layout_next_fn next;
	void *ctx;
	bool contiguous;
	enum layout_chain_end end;
	uint32_t cur;			/* the cluster last given */
	uint32_t link;			/* the entry after it, once read */
	uint64_t n;			/* clusters given */
	uint64_t mu, lam;		/* a loop (lam > 0): number mu is met again after mu + lam clusters */
	uint32_t loop_to;		/* cluster number mu, once given */
};

void layout_chain_begin(struct layout_chain *it, const struct layout *l, layout_next_fn next, void *ctx,
			uint32_t first, uint64_t limit, bool contiguous);
/* The chain's next cluster into *c: true; false once it ended (end says why). */
bool layout_chain_next(struct layout_chain *it, uint32_t *c);

/* The cluster last given links back into the chain (the next call ends with LAYOUT_CHAIN_LOOP). */
static inline bool layout_chain_at_loop(const struct layout_chain *it)
{
	return it->lam && it->n == it->mu + it->lam;
}

/* fatreader.c */
/*
 * The FAT read in 16 KiB blocks through a direct-mapped cache of a fixed
 * number of blocks (1 MiB at most, whatever the volume's size; allocated
 * at the first read), with fsc_dev_read: chains, which mostly run
 * forward, cost one read per block.  Entries 0 .. clusters + 1 can be
 * read, as far as the device holds them.  (Blocks of 64 KiB, 32 of them:
 * a walk of a damaged 100,000-file FAT32 volume, whose chains jump all
 * over its FAT, read 16 MiB of FAT in 249 reads for its 8 MiB FAT, and
 * held 2 MiB.)
 */
#define FATREADER_BLOCK (16u * 1024)
#define FATREADER_SLOTS 64

struct fatreader {
	struct layout l;		/* a copy */
	uint64_t avail;			/* FAT bytes that can be read (inside the FAT and the device) */
	uint64_t tag[FATREADER_SLOTS];	/* block number + 1; 0: empty */
	uint8_t *data;			/* FATREADER_SLOTS blocks, or NULL before the first read */
	int err;			/* the first error: -EIO, -ERANGE, -ENOMEM; 0: none */
};

/* Start reading l's FAT; allocates nothing (fatreader_free all the same). */
void fatreader_init(struct fatreader *fr, const struct layout *l);
void fatreader_free(struct fatreader *fr);
/*
 * The raw entry of cluster c in *v (12, 16 or 32 bits as stored).
 * Returns 0, -ERANGE (c > clusters + 1), -EIO (beyond the device, or the
 * read failed) or -ENOMEM; an error is also kept in fr->err.
 */
int fatreader_raw(struct fatreader *fr, uint32_t c, uint32_t *v);
/* The next cluster after c as layout_fat_value says, or LAYOUT_UNREADABLE (fr->err says why). */
uint32_t fatreader_next(struct fatreader *fr, uint32_t c);
/* fatreader_next as a layout_next_fn (ctx: the struct fatreader). */
uint32_t fatreader_link(void *fr, uint32_t c);

#endif
