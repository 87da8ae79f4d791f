/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fat_check.h - the state shared by the FAT12/16/32 check passes
 * (fat_check.c, fat_alloc.c, fat_tree.c, fat_names.c); not installed.
 */
#ifndef FSC_FAT_CHECK_H
#define FSC_FAT_CHECK_H

#include "probe/probe.h"
#include "check/engine.h"

/*
 * The FAT scan (pass 2) a block of FV_SCAN_BLOCK bytes at a time, as a
 * repair's first check made it, for the checks of its later rounds: a
 * block whose bytes no edit of the plan changes, in the active copy or
 * any other it is compared with, counts as it did (its free entries, its
 * used set) and is not read again.  Blocks where the copies differed,
 * and block 0 (entries 0 and 1 are judged), are read again all the same.
 * Memory: a bit a cluster and 4 bytes a block (some 0.3 MiB for 2^21
 * clusters).
 */
#define FV_SCAN_BLOCK 4096u
#define FV_SCAN_READ UINT32_MAX		/* a block read again */
struct fv_scan_key {			/* what the scan was made under */
	uint64_t copy0, stride;		/* the first copy's byte, and bytes from one copy to the next */
	uint32_t cc;
	unsigned bits, active, copies;	/* copies compared: the number of copies when mirrored, else 1 */
};
struct fv_scan_memo {
	struct fv_scan_key key;
	uint64_t nblocks;
	uint32_t *free;			/* each block's free entries, or FV_SCAN_READ */
	uint64_t *used;			/* the used set (bit c - 2) */
};
struct fv_scan_key fv_scan_key_of(const struct fsc_fat_bpb *b, const struct layout *lay, uint32_t cc,
				  unsigned active, bool mirrored);
bool fv_scan_key_same(const struct fv_scan_key *a, const struct fv_scan_key *b);

/*
 * What a repair planner hears from a check (repair/fat_repair.c): during
 * the walk, long-name parts to re-attach to their 8.3 entry (sum >= 0: the
 * checksum to write into each) or to mark deleted (sum < 0), and the 0x00
 * entries before entries in use past a directory's end marker, with the
 * first byte each should have (0xE5, deleted; or a long-name part's
 * sequence number where the rest of the part and the next entry say
 * which): they let those entries be seen again; at the end, each lost
 * cluster and the free count.  finding: the index in the findings list of
 * the finding that says why.  Any callback may be NULL.
 */
struct fat_hooks {
	void (*lfn)(void *ctx, size_t finding, const uint64_t *off, size_t n, int sum);
	void (*revive)(void *ctx, size_t finding, const uint64_t *off, const uint8_t *first, size_t n);
	/* A file (its 8.3 entry at off) that claimed clusters another allocation had: how its chain went. */
	void (*cross)(void *ctx, size_t finding, uint64_t off, uint32_t first, const struct chain_res *res);
	/*
	 * A subdirectory (its 8.3 entry at off) with no first cluster, one
	 * outside the data area, or one another allocation has (a cycle) or
	 * that lies inside another chain with no . entry: parent is the first
	 * cluster its .. should hold.  Also one walked whose first slot holds
	 * no . at all (finding: that FAT_DOT_MISSING): a cluster field that
	 * may have been flipped off the directory's own tree.
	 */
	void (*dir_astray)(void *ctx, size_t finding, uint64_t off, uint32_t parent);
	/* An 8.3 name (entry at off) invalid or a duplicate: raw is a new one, unique in its directory. */
	void (*rename)(void *ctx, size_t finding, uint64_t off, const uint8_t raw[11], const uint64_t *parts,
		       size_t nparts);
	void (*lost)(void *ctx, uint32_t c);
	/* A lost chain that starts a directory of its own (first cluster c) whose .. is the live directory parent (0: the root). */
	void (*lost_dir)(void *ctx, uint32_t c, uint32_t parent);
	/*
	 * Each allocation the walk claims from a valid first cluster: a
	 * file's of size bytes, or a directory's (dir); differs: its chain
	 * passes an entry where the FAT copies differ; whole: a file's chain
	 * ends after exactly the clusters its size needs.
	 */
	void (*claimed)(void *ctx, uint32_t first, uint32_t size, bool dir, bool differs, bool whole);
	/*
	 * A file (its 8.3 entry at off, size bytes) whose first cluster another
	 * allocation claimed too, after it, and lies inside a chain (a FAT
	 * entry links to it, fv_predecessor): the file came first (told in the
	 * owners pass, when cross-links were found).
	 */
	void (*shared_head)(void *ctx, uint64_t off, uint32_t first, uint32_t size);
	/* The active copy counted: its free entries, of the clusters checked (those the device and the FAT hold). */
	void (*counted)(void *ctx, uint64_t free_clusters, uint32_t clusters);
	struct ck_memo_hooks memo;	/* a repair's memo (check/engine.h) */
	void *ctx;
	/*
	 * Not a report but the repair's one request: read FAT copy
	 * copy_plus1 - 1 instead of the active one (0: the BPB's).
	 */
	unsigned copy_plus1;
};

struct fvol {
	struct fsc_dev *dev;
	const struct fsc_probe *p;
	const struct fsc_fat_bpb *b;
	struct ck_engine ck;		/* findings, progress, the claimed set */
	struct layout lay;		/* geometry (fat/layout.c), fat_byte the active FAT */
	struct fatreader fr;		/* the active FAT through a bounded block cache */
	uint32_t cc;			/* clusters the device holds (at most the BPB's count) */
	uint32_t cb;			/* cluster bytes */
	unsigned active;		/* the FAT copy drivers read */
	bool mirrored;			/* every copy must equal the active one */
	uint64_t *used;			/* FAT entry of c not free: bit c - 2 */
	uint64_t *differ;		/* for the claimed hook: c's entry differs between copies (bit c - 2; NULL: none) */
	uint64_t free_clusters;		/* free entries among 2 .. cc + 1 */
	uint32_t fat1;			/* FAT[1] as stored */
	uint16_t *upcase;		/* 65536 entries: long names compared without case */
	uint8_t *dirbuf;		/* one chunk of a directory */
	struct fat_hooks *hooks;	/* or NULL */
	unsigned pred_scans;		/* fv_predecessor's scans of the FAT so far */
};

#define FV_NPASSES 4
/* FAT_DOT_MISSING's detail for a .. slot that holds .. with a damaged name (the repair names it again). */
#define FV_DOTDOT_DAMAGED "the second entry is .. with a damaged name"
/* ... and for a . slot that holds . with a few bits flipped (its name, its cluster). */
#define FV_DOT_DAMAGED "the first entry is . with a few bits flipped"
/* Bytes of directory read at a time. */
#define FV_DIR_CHUNK (256u * 1024)
/* Read first with to_end_marker (fsck -p): most directories end within it. */
#define FV_DIR_HEAD 4096u

static inline bool fv_cluster_valid(const struct fvol *v, uint32_t c)
{
	return c >= 2 && (uint64_t)c <= (uint64_t)v->cc + 1;
}

/* fat_alloc.c */
extern const struct ck_chain_ids fv_chain_ids;
/* The FAT entry of c normalised for the engine (CK_END, CK_BAD, CK_FREE or a cluster). */
uint32_t fv_next(void *v, uint32_t c);
/*
 * A cluster whose FAT entry points to c (c lies inside a chain, not at its
 * head), or 0: none, or FV_PRED_SCANS whole scans of the FAT made already
 * in this check (each reads every entry: asked only of a damaged
 * directory, they are bounded all the same).
 */
#define FV_PRED_SCANS 16u
uint32_t fv_predecessor(struct fvol *v, uint32_t c);
/* Pass 2: every copy read once, compared; entries 0 and 1; the used set and the free count. */
int fv_scan_fats(struct fvol *v);
/* Pass 4: lost clusters, and FSInfo against the FAT. */
void fv_compare(struct fvol *v);

/* fat_tree.c: pass 3, the directory tree from the root, claiming every allocation. */
int fv_walk_tree(struct fvol *v);

/*
 * fat_names.c: what is wrong with an 8.3 name (NULL: nothing), and what is
 * unusual (WARN); plain: neither has anything to say of it (one test a
 * byte; a name with a first byte 0x05 is not plain, and is judged whole).
 */
bool fv_sfn_plain(const uint8_t raw[11]);
const char *fv_sfn_invalid(const uint8_t raw[11]);
const char *fv_sfn_unusual(const uint8_t raw[11]);
/* A DOS date or time that is not a real one: its description, or NULL. */
const char *fv_date_problem(uint16_t date);
const char *fv_time_problem(uint16_t time);
/*
 * Long-name parts e[0..n) (as read, last part first) that make one whole
 * name (sequence numbers n..1, the first with 0x40) whose 8.3 alias raw
 * could be: the 8.3 base a prefix of the long name upper-cased without
 * spaces and dots ('_' and a '~' tail standing for what 8.3 cannot hold),
 * and its extension the long name's first three after its last dot.
 */
bool fv_lfn_fits(const uint8_t (*e)[32], unsigned n, const uint8_t raw[11]);
/* An 8.3 name as UTF-8 for findings ("NAME.EXT", the code page set, bytes below 0x20 as '?'). */
void fv_sfn_text(const uint8_t raw[11], char out[40]);

/*
 * fat_check.c: the checker, for fsc_check (out holds the probe's findings
 * already); after (may be NULL) hears of lost clusters and the free count.
 */
int fat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	      struct fsc_findings *out, struct fsc_check_summary *sum, struct fat_hooks *after);

/* dispatch.c: fsc_check of a FAT volume with a repair planner's hooks (may be NULL). */
int fat_check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		   struct fsc_findings *out, struct fsc_check_summary *sum, struct fat_hooks *hooks);

#endif
