/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exfat_check.h - the state shared by the exFAT check passes
 * (exfat_check.c, exfat_alloc.c, exfat_tree.c); not installed.
 */
#ifndef FSC_EXFAT_CHECK_H
#define FSC_EXFAT_CHECK_H

#include "probe/probe.h"
#include "check/engine.h"

struct xvol;

/* A byte range of the device (dirtail.c: a directory cluster's part past its end marker). */
struct dt_span {
	uint64_t off, len;
};

/*
 * The repair planner's view of a check (repair/): set is offered each file
 * set whose structure is sound but whose SetChecksum, NameHash (want_hash:
 * the right one, or -1), ValidDataLength or cluster chain (chain: how the
 * walk of a file's chain went, a cross-link included; NULL for a directory
 * or a sound chain) is wrong.  The hooks only note and plan what the
 * walk shows; the rest of the repair runs after the check has returned,
 * on the state it hands over (exfat_check's kept).
 */
struct xv_fix {
	/*
	 * Every hook gets ctx first, as FAT's (fat_hooks) do, and reports:
	 * the checker's state is its own.  set and upcase read through the
	 * checker's v, and answer.
	 */
	void (*set)(void *ctx, const struct xvol *v, const struct exfat_asm *a, int32_t want_hash,
		    const struct chain_res *chain, const char *path);
	/* A duplicate name (the set's primary at cluster, entry) made unique: unit pos up-cased becomes unit. */
	void (*rename)(void *ctx, uint32_t cluster, uint32_t entry, unsigned pos, uint16_t unit);
	/*
	 * A directory read: its set in the parent (at; NULL for the root),
	 * whether the parent lies in a row, how the walk of its chain went;
	 * or one not read: with no cluster (chain: none), or a file whose
	 * attributes say directory (file; chain: how it was claimed as one).
	 */
	void (*dir)(void *ctx, const struct exfat_where *at, bool parent_nofat, const struct chain_res *chain,
		    bool file, const char *path);
	/*
	 * The volume's up-case table is loaded (v->upcase, its findings made):
	 * true when the repair will write the recommended table (or point the
	 * entry back to a sound one): the checker then judges the names by
	 * the recommended table, as they will be judged after the repair.
	 * The hook decides only; what it decides is planned after the check.
	 */
	bool (*upcase)(void *ctx, struct xvol *v);
	/*
	 * Entries in use after a directory's end-of-directory marker: the
	 * marker (mark_cluster, mark_entry), whether the directory's clusters
	 * lie in a row, and the first entry in use after it (hit).  May be NULL.
	 */
	void (*end_mark)(void *ctx, uint32_t mark_cluster, uint32_t mark_entry, bool nofat, uint32_t hit_cluster,
			 uint32_t hit_entry);
	struct ck_memo_hooks memo;	/* a repair's memo (check/engine.h) */
	void *ctx;
};

struct xvol {
	struct fsc_dev *dev;
	const struct fsc_probe *p;
	struct ck_engine ck;		/* findings, progress, the claimed set */
	unsigned shift;			/* sector shift */
	uint32_t cb;			/* cluster bytes */
	uint32_t cc;			/* clusters the device holds (at most ClusterCount) */
	uint64_t heap_byte;
	uint64_t fat_byte;		/* where the FAT starts */
	struct layout lay;		/* geometry (exfat/layout.c) */
	struct fatreader fr;		/* the FAT through a bounded block cache */
	uint8_t *dirbuf;		/* one chunk of a directory cluster */
	uint64_t *marked;		/* the on-disk bitmap, bit c-2 */
	uint16_t *upcase;		/* 65536 entries */
	bool upcase_ok;			/* the volume's table (else the ASCII default) */
	struct chain_res upcase_chain;	/* how the claim of the table's chain went */
	struct chain_res bitmap_chain;	/* ... and of the allocation bitmap's */
	bool bitmap_ok;			/* marked holds the whole on-disk bitmap */
	bool root_held;			/* the root's first cluster was held for it before any chain was claimed */
	const struct xv_fix *fix;	/* a repair is being planned, or NULL */
};

#define XV_NPASSES 4

static inline bool xv_cluster_valid(const struct xvol *v, uint32_t c)
{
	return c >= 2 && (uint64_t)c <= (uint64_t)v->cc + 1;
}

/* NameHash (EXSPEC 7.6.4) of one more up-cased unit. */
static inline uint16_t xv_name_hash_step(uint16_t h, uint16_t u)
{
	h = (uint16_t)(((uint32_t)h << 15 | h >> 1) + (u & 0xFF));
	return (uint16_t)(((uint32_t)h << 15 | h >> 1) + (u >> 8));
}

/*
 * Does PercentInUse piu say marked of cc clusters?  Drivers round either
 * way, so both the value rounded down (*lo) and the one rounded up count.
 */
static inline bool xv_percent_fits(uint8_t piu, uint64_t marked, uint64_t cc, uint64_t *lo)
{
	*lo = cc ? marked * 100 / cc : 0;
	return !cc || (piu >= *lo && piu <= (marked * 100 + cc - 1) / cc);
}

/* FAT entry of cluster c (c <= cc + 1); reads go through a small block cache. */
uint32_t xv_fat(struct xvol *v, uint32_t c);

/* Bytes of directory clusters read at a time. */
#define XV_DIR_CHUNK (256u * 1024)

static inline uint64_t xv_cluster_byte(const struct xvol *v, uint32_t c)
{
	return v->heap_byte + (uint64_t)(c - 2) * v->cb;
}

/* exfat_alloc.c */
/* The FAT entry of c normalised for the engine (CK_END; CK_END_ODD for F8..FE; CK_BAD, CK_FREE or a cluster). */
uint32_t xv_next(void *v, uint32_t c);
/* The FAT entry of c as stored (for messages; v: the struct xvol). */
uint32_t xv_raw(void *v, uint32_t c);
extern const struct ck_chain_ids xv_chain_ids;
int xv_load_fat(struct xvol *v);
int xv_load_bitmap(struct xvol *v);
void xv_load_upcase(struct xvol *v);
void xv_compare_bitmap(struct xvol *v);

/* dirtail.c: the free entries past each directory's end marker, checked beside the walk */
struct tail_hit {
	uint64_t seq;			/* order of the range (and so of the directory) */
	size_t node;			/* the directory in the walk's path table */
	uint32_t dir;			/* the directory's number in walk order */
	uint32_t cluster, entry;	/* the first entry in use */
	uint8_t type;
};
struct dirtail;
uint32_t dt_first_used(const uint8_t *d, uint32_t n);
/* may_thread: a second thread may share the reading (the answer is the same). */
struct dirtail *dirtail_new(struct fsc_dev *dev, uint32_t cluster_bytes, bool may_thread);
/* len bytes at off (a whole number of entries, from entry on in cluster) must be free; ahead: ask the kernel for them now. */
void dirtail_add(struct dirtail *t, uint64_t off, uint64_t len, size_t node, uint32_t dir,
		 uint32_t cluster, uint32_t entry, bool ahead);
/* An entry in use that the walker found itself, in a range it had read already. */
void dirtail_note(struct dirtail *t, size_t node, uint32_t dir, uint32_t cluster, uint32_t entry,
		  uint8_t type);
/* The ranges still waiting are dropped, unread (a check out of time); those being read finish. */
void dirtail_drop(struct dirtail *t);
/* Waits for every range; the first entry in use of each range, in the order added. */
size_t dirtail_finish(struct dirtail *t, const struct tail_hit **out);
/* Keep the ranges read whole and found free (a repair's first check: its later checks need not read them again). */
void dirtail_record(struct dirtail *t);
/* After dirtail_finish: the ranges kept (in no order). */
size_t dirtail_free_spans(const struct dirtail *t, const struct dt_span **out);
void dirtail_free(struct dirtail *t);

/* exfat_tree.c */
int xv_walk_tree(struct xvol *v);

/*
 * exfat_check.c: the checker, for fsc_check (out holds the probe's findings
 * already); fix (may be NULL) plans a repair beside it.  With kept, a check
 * that ran every pass hands its state to the caller (*kept; NULL when it
 * stopped early): the claimed set, the on-disk bitmap, the up-case table,
 * the FAT reader.  The caller owns it then and frees it with xv_free; o,
 * out and sum must outlive it.
 */
int exfat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		struct fsc_findings *out, struct fsc_check_summary *sum, const struct xv_fix *fix,
		struct xvol **kept);
void xv_free(struct xvol *v);
/* dispatch.c: fsc_check, for the library's own callers. */
int check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	       struct fsc_findings *out, struct fsc_check_summary *sum);
/* dispatch.c: the exFAT check with a repair planner's hooks, its state kept (exfat_check). */
int exfat_check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		     struct fsc_findings *out, struct fsc_check_summary *sum, const struct xv_fix *fix,
		     struct xvol **kept);

#endif
