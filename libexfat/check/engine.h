/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check/engine.h - the filesystem-neutral part of a check: findings with a
 * per-problem cap, progress by pass, the claimed-cluster set (one bit per
 * cluster) with chain walks that find loops and cross-links, the owners
 * pass that names the first owner of each cross-linked cluster, and runs
 * of clusters for lost-cluster findings.  The exFAT passes use it; the
 * FAT passes will.  Not installed.
 */
#ifndef FSC_CHECK_ENGINE_H
#define FSC_CHECK_ENGINE_H

#include "report/report.h"

/* Who owns an allocation, for findings: a directory path and a name. */
struct owner {
	const char *dir;		/* path of the directory holding the entry */
	const char *name;		/* UTF-8 name, or a description ("root directory") */
	uint32_t cluster, entry;	/* where the entry lies (cluster 0: not an entry) */
	const uint16_t *name16;		/* or the UTF-16 name, converted only for a finding */
	unsigned name16_len;
	bool chain_told;		/* its chain's break was reported already */
	uint64_t byte;			/* an entry outside any cluster (the FAT12/16 root): its byte */
	/*
	 * Clusters in a row whose size runs past the heap (reported): the
	 * size to claim instead, when its clusters fit (exFAT: the file's
	 * ValidDataLength), so that a damaged DataLength does not claim the
	 * clusters of the files after it; 0: up to the heap's end.
	 */
	uint64_t fallback;
};

/* What a FAT entry says, normalised by the filesystem's reader. */
#define CK_FREE	0u
#define CK_BAD	0xFFFFFFF7u
#define CK_END	0xFFFFFFFFu
#define CK_END_ODD	0xFFFFFFFEu	/* an end, by a value the format does not give for one (exFAT's F8..FE) */

/* The problems a chain walk reports, named by each filesystem. */
struct ck_chain_ids {
	enum fsc_problem range, loop, cross, free, bad, shorter, longer;
	enum fsc_problem end_value;	/* a chain ended by CK_END_ODD (when next gives it) */
};

struct ck_xlink {
	uint32_t cluster;
	size_t finding;			/* index in the findings list */
	bool named;
};

struct ck_engine {
	struct fsc_findings *out;
	struct fsc_check_summary *sum;
	const struct fsc_check_opts *o;
	unsigned per_id[FSC_PR_COUNT];
	unsigned max_per_id;
	uint64_t raised;		/* findings made, listed or over the cap (not in the owners pass) */
	int pass, npasses;
	uint64_t done, total;
	/* allocation: clusters 2 .. count + 1 */
	uint32_t count, cluster_bytes;
	uint64_t *claimed;
	uint32_t (*next)(void *ctx, uint32_t c);	/* CK_FREE, CK_BAD, CK_END or a cluster */
	void *next_ctx;
	uint32_t (*next_raw)(void *ctx, uint32_t c);	/* the FAT entry as stored, for messages (may be NULL) */
	const struct ck_chain_ids *ids;
	/* the owners pass: claims go to a fresh set, no finding is made */
	bool owners_pass;
	uint64_t *owners_set;
	struct ck_xlink xlinks[64];
	unsigned nxlinks;
	/* clusters whose FAT entry ended a chain by CK_END_ODD (each once: a claim takes a cluster once) */
	uint32_t *odd_ends;
	size_t nodd_ends, capodd_ends;
	/* Is c a directory's first cluster held for it (ck_hold_head) and not walked yet?  May be NULL. */
	bool (*pending_head)(void *ctx, uint32_t c);
	void *pending_ctx;
};

/*
 * Set up: findings go to out (capped at o->max_per_problem a problem, 100
 * by default), npasses for progress; the claimed set is allocated for
 * count clusters.  0 or -ENOMEM.
 */
int ck_init(struct ck_engine *e, struct fsc_findings *out, struct fsc_check_summary *sum,
	    const struct fsc_check_opts *o, int npasses);
/* The allocation side: count clusters of cluster_bytes, FAT entries through next(ctx, c). */
int ck_init_clusters(struct ck_engine *e, uint32_t count, uint32_t cluster_bytes,
		     uint32_t (*next)(void *ctx, uint32_t c), void *ctx, const struct ck_chain_ids *ids);
void ck_free(struct ck_engine *e);

/* fsck -p: directories read only to their end marker (fsc_check_opts.to_end_marker). */
static inline bool ck_to_end_marker(const struct ck_engine *e)
{
	return e->o && e->o->to_end_marker;
}

/*
 * The next read of a directory with left bytes left after a read of last
 * bytes: to the end marker only, twice the last (a large directory in few
 * reads, at most twice what it uses); else chunk.
 */
static inline uint32_t ck_next_read(uint64_t left, uint32_t last, bool to_end, uint32_t chunk)
{
	uint64_t r = to_end && 2ull * last < chunk ? 2ull * last : chunk;

	return left < r ? (uint32_t)left : (uint32_t)r;
}

static inline bool ck_cluster_valid(const struct ck_engine *e, uint32_t c)
{
	return c >= 2 && (uint64_t)c <= (uint64_t)e->count + 1;
}

/* A finding under the cap; NULL when over it (counted) or in the owners pass. */
struct fsc_finding *ck_add(struct ck_engine *e, enum fsc_problem id, enum fsc_loc_kind kind,
			   uint64_t loc, const char *field);
/* The same for an entry or an allocation: location and path from who. */
struct fsc_finding *ck_add_owner(struct ck_engine *e, enum fsc_problem id, const struct owner *who);
void ck_owner_path(const struct owner *who, char *path, size_t len);

/*
 * Start pass n of total units: false when the budget (o->deadline) has run
 * out, and the pass must not run (the summary says where the check
 * stopped).  Count step more units done.
 */
bool ck_pass(struct ck_engine *e, int n, uint64_t total);
void ck_progress(struct ck_engine *e, uint64_t step);
/* Inside a pass, at a boundary where it may stop (a directory): true when the budget has run out. */
bool ck_out_of_time(struct ck_engine *e);

/*
 * A directory a repair's first check read and found sound, kept for the
 * checks of its later rounds (repair/memo.c; the hooks dir_sound and
 * dir_known of each family): its key, as its parent's entry gives it (the
 * root: size 0), with what judges its entries beside their own bytes
 * (judge: a hash of the up-case table the names are judged by and of the
 * geometry); and each part of it that was parsed, with the FAT entry of
 * its cluster (fat; 0: the clusters lie in a row, no entry is read).
 */
struct ck_dir_key {
	uint64_t size, judge;
	uint32_t first;
	bool nofat;
};
struct ck_part {
	uint64_t off, fat;
	uint32_t len;
	uint32_t used;			/* its bytes up to the end of the directory's end marker (else len) */
};
/*
 * A key's judge: the up-case table (65536 entries) and n more words,
 * hashed (a multiply and a shift a word, some 20 us: two walks that differ
 * in them differ in it but for about one chance in 2^64).
 */
uint64_t ck_judge(const uint16_t *upcase, const uint64_t *g, size_t n);

/*
 * The directory a walk is reading, for a repair's memo: its key, the
 * parts read (kept for the hook dir_sound), whether they are the parts
 * the first check read (the hook dir_known's), in order.  ck_memo_begin
 * as it is begun; ck_memo_part for each part, before it is read: the
 * bytes to read (a known part's: those up to its end marker, since what
 * follows was found free and is as it was); ck_memo_end when the part
 * read holds the end marker; ck_memo_sound once it is read: kept, with no
 * finding made since it was begun and nothing that made it unsound (a
 * repair hook called, a part that could not be kept or read, an entry in
 * use after the end marker).
 */
struct ck_dir_memo {
	struct ck_dir_key key;
	uint64_t raised;
	const struct ck_part *first;	/* its parts as the first check read them, or NULL */
	size_t nfirst;
	bool keep, known, unsound;
	size_t n;			/* parts read */
	struct ck_part *kept;
	size_t cap;
};
void ck_memo_begin(struct ck_dir_memo *d, const struct ck_engine *e, const struct ck_dir_key *key, bool keep,
		   const struct ck_part *(*dir_known)(void *ctx, const struct ck_dir_key *key, size_t *n), void *ctx);
uint32_t ck_memo_part(struct ck_dir_memo *d, uint64_t off, uint64_t fat, uint32_t len);
/* What ck_memo_part would return for that part, without counting it; UINT32_MAX: it is not known. */
uint32_t ck_memo_next(const struct ck_dir_memo *d, uint64_t off, uint64_t fat, uint32_t len);
void ck_memo_end(struct ck_dir_memo *d, uint32_t used);
bool ck_memo_sound(const struct ck_dir_memo *d, const struct ck_engine *e);

/*
 * What a sound directory held for the walk (check/replay.c), kept by a
 * repair's first check with its parts (the hooks dir_held of each family)
 * so that a later check that finds it known (dir_known) and reaches it as
 * before does the walk's part again without reading it: each file's
 * allocation claimed, each subdirectory pushed, and (exFAT) each part
 * past its end marker checked free.  Only a walk that makes no finding
 * while it replays is the walk's: a replayed entry has no name to give a
 * finding, nor the place of its entry to a repair's offer, so a replay
 * that makes one stops the replays (the hook replay_lost) and the
 * planner makes that check again without them.
 *
 * The record: an entry after another, in unsigned LEB128 numbers (7 bits
 * a byte).  A head, (z << 3) | nofat << 2 | kind, where z is the zigzag
 * of the entry's cluster less the one expected (the cluster after the
 * last file's clusters: files mostly lie one after the other); then a
 * file's or a subdirectory's size in clusters, which is all the claims
 * judge while they make no finding; a subdirectory's entry (its cluster
 * less the directory's first, its index) and its name with its NUL
 * (length, bytes); a part past the end marker: its cluster (z from the
 * directory's first cluster) and the entry it begins at, up to the end of
 * its cluster.  The parts past the end marker come after every file and
 * subdirectory (a walk parses no entry past the marker), from tail_at:
 * a replay asks whether they are all known free before it claims
 * anything, and each byte is decoded once.  About 2 bytes a file.
 */
struct ck_replay {
	uint32_t parent;		/* FAT: the parent's first cluster as the walk had it (.. agreed with it) */
	bool tail_unread;		/* to_end_marker: the part past its end marker was not read */
	const uint8_t *rec;		/* its entries, encoded */
	size_t len;
	size_t tail_at;			/* where the parts past the end marker begin in rec (len: none) */
};
enum ck_rec_kind { CK_REC_FILE, CK_REC_DIR, CK_REC_TAIL };

/*
 * The one contract between a check and a repair's memo (repair/memo.c):
 * the hooks through which the memo hears a repair's first check and
 * answers its later ones, the same in both families (xv_fix.memo,
 * fat_hooks.memo), each called with the family hooks' ctx.  Any may be
 * NULL; a family calls those its walk has.
 */
struct dt_span;
struct fv_scan_memo;
struct ck_memo_hooks {
	/*
	 * The first check: a directory read with no finding made and no
	 * repair hook called while it was (its key and the parts of it that
	 * were parsed, in the order they were read), and what it held for
	 * the walk.
	 */
	void (*dir_sound)(void *ctx, const struct ck_dir_key *key, const struct ck_part *p, size_t n);
	void (*dir_held)(void *ctx, const struct ck_dir_key *key, const struct ck_replay *r);
	/*
	 * A later check: the parts the first check parsed of the directory
	 * key (*n of them) when neither their bytes nor their FAT entries are
	 * changed since, else NULL; that directory's record, or false; and a
	 * replay that made a finding (this check's findings are not to be
	 * used: it must be made again, without replays).
	 */
	const struct ck_part *(*dir_known)(void *ctx, const struct ck_dir_key *key, size_t *n);
	bool (*dir_replay)(void *ctx, const struct ck_dir_key *key, struct ck_replay *r);
	void (*replay_lost)(void *ctx);
	/*
	 * exFAT: the parts past the end markers the first check read whole
	 * and found free (once it is over); a later check: is [off, off +
	 * len) one of them, and the plan leaves it as it was?
	 */
	void (*tails_free)(void *ctx, const struct dt_span *s, size_t n);
	bool (*tail_known)(void *ctx, uint64_t off, uint64_t len);
	/*
	 * FAT: the first check's scan of the FAT, whole (the hook takes m's
	 * arrays); a later check: that scan (used when its key is the
	 * check's), and whether the plan leaves [off, off + len) as it was.
	 */
	void (*scan_sound)(void *ctx, struct fv_scan_memo *m);
	const struct fv_scan_memo *(*scan_known)(void *ctx);
	bool (*unchanged)(void *ctx, uint64_t off, uint64_t len);
};
struct ck_rec_ent {
	enum ck_rec_kind kind;
	bool nofat;
	uint32_t first;			/* the first cluster (a tail: its cluster) */
	uint64_t clusters;		/* a file's or subdirectory's size in clusters */
	uint32_t cl, ent;		/* a subdirectory's entry; a tail's first entry (ent) */
	const char *name;		/* a subdirectory's */
};
struct ck_rec {				/* one being written */
	uint8_t *v;
	size_t n, cap;
	size_t tail_at;			/* (SIZE_MAX: no part past the end marker put yet) */
	uint32_t base, pred;
	bool ok;			/* false: out of memory, or not to be kept */
};
/* Begin a directory's record (base: its first cluster); put its entries in walk order; the record made. */
void ck_rec_begin(struct ck_rec *r, uint32_t base, bool keep);
void ck_rec_put(struct ck_rec *r, const struct ck_rec_ent *x);
struct ck_replay ck_rec_made(const struct ck_rec *r, uint32_t parent, bool tail_unread);
struct ck_rec_it {
	const uint8_t *p, *end;
	uint32_t base, pred;
	bool bad;			/* not a record ck_rec_put wrote (cut short, a number out of range) */
};
/* The files and subdirectories of r (base: the directory's first cluster); its parts past the end marker. */
void ck_rec_read(struct ck_rec_it *it, const struct ck_replay *r, uint32_t base);
void ck_rec_read_tails(struct ck_rec_it *it, const struct ck_replay *r, uint32_t base);
bool ck_rec_next(struct ck_rec_it *it, struct ck_rec_ent *x);
/* A cluster of a replayed directory's chain (the claim's visit, ctx the engine): counted as read. */
bool ck_rec_cluster(void *engine, uint32_t c);

struct chain_res {
	uint64_t clusters;		/* clusters claimed */
	bool contiguous;
	bool readable;			/* the first cluster is this allocation's own */
	/* where a repair would cut (repair/): */
	bool broken;			/* a link to a free, bad or out-of-range cluster, or a loop */
	bool crossed;			/* a cluster another allocation claimed first */
	bool ended;			/* the chain reached its end mark */
	uint64_t good;			/* clusters before the break, the loop or the cross-link */
	uint32_t last_good;		/* the last of them (0: none) */
	uint32_t at_need;		/* the cluster the size ends in (0: not reached) */
	uint64_t shared;		/* clusters from the cross-link on that were claimed already */
	uint32_t after_shared;		/* the allocation's own cluster after them (0: none) */
};
/* Sees each cluster of an allocation in order; false stops the visits. */
typedef bool (*cluster_fn)(void *ctx, uint32_t c);
/*
 * Walk and claim an allocation (FAT chain, or contiguous with nofat) of
 * size bytes; size 0 with !nofat: follow the chain to its end (a
 * directory known by its chain).  visit (may be NULL) sees each cluster
 * up to the first problem.  Reports range, loop, cross-link, free and bad
 * links and a length that disagrees with size.
 */
void ck_claim(struct ck_engine *e, const struct owner *who, uint32_t first, uint64_t size, bool nofat,
	      struct chain_res *res, cluster_fn visit, void *ctx);
/*
 * A subdirectory's first cluster c claimed for it (who: its entry) when
 * its entry is read, though its chain is claimed only when it is walked
 * (then with ck_claim_held): what a deeper entry or a later file claims
 * there crosses it, not the other way round.  False when c is another's
 * already (or no cluster of the heap).
 */
bool ck_hold_head(struct ck_engine *e, const struct owner *who, uint32_t c);
/* ck_claim of a directory whose first cluster ck_hold_head held for it (held: true). */
void ck_claim_held(struct ck_engine *e, const struct owner *who, uint32_t first, uint64_t size, bool nofat, bool held,
		   struct chain_res *res, cluster_fn visit, void *ctx);

/*
 * The owners pass: when cross-links were found, walk (ctx) claims every
 * allocation again in the order of the first walk; the first claim of
 * each cross-linked cluster names its owner in the cross-link finding.
 * The summary is left as the first walk made it.  Returns walk's value.
 */
int ck_name_owners(struct ck_engine *e, int (*walk)(void *ctx), void *ctx);
/* In the owners pass: is c a cross-linked cluster that no allocation has claimed yet (this one is its first)? */
bool ck_first_of_xlink(const struct ck_engine *e, uint32_t c);

/* "5-9, 20, 33-40 (14 clusters in 3 runs)": clusters added in increasing order. */
struct ck_runs {
	char text[88];
	uint64_t count, nruns, start, last, first;
	bool open;
};
void ck_runs_add(struct ck_runs *r, uint64_t cluster);
/* One finding for all the runs (loc: the first cluster), if any. */
void ck_runs_report(struct ck_engine *e, enum fsc_problem id, struct ck_runs *r);

#endif
