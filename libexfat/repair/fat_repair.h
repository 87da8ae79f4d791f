/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * repair/fat_repair.h - the FAT repair planner's state and the helpers its
 * files share: fat_ledger.c (the FAT and entries read and written through
 * the plan, free clusters), fat_fixes.c (the fixes of entries, chains,
 * cross-links and directories), fat_repair.c (the order of it all, the
 * check of the plan, the dirty bits); not installed.
 */
#ifndef FSC_FAT_REPAIR_H
#define FSC_FAT_REPAIR_H

#include "repair/repair.h"
#include "check/fat_check.h"

/* Entries the walk offered to change: long-name parts (sum >= 0: re-attach), or 0x00 entries to revive. */
struct ent_req {
	size_t finding;
	uint64_t *off;
	uint8_t *first;			/* revive: the first byte each gets */
	size_t n;
	int sum;			/* -1: mark deleted; -2: revive; -3: rename (raw at sfn, parts follow) */
	uint64_t sfn;
	uint8_t raw[11];
};

/* A file that shares clusters with one read before it: its own copies of the shared run are planned. */
struct cross_req {
	size_t finding;
	uint64_t off;			/* its 8.3 entry */
	uint32_t first, last_good, after;
	uint64_t good, shared;
};

/* The most a repair copies for cross-linked files (the exFAT repair's cap). */
#define MAX_COPY_BYTES (64ull << 20)

/* A file that came first to a cluster another allocation claimed after it (fat_hooks.shared_head). */
struct head_req {
	uint64_t off;			/* its 8.3 entry */
	uint32_t first, size;
};

/* A directory entry astray (no cluster, or an ancestor's): relinked to its own lost directory. */
struct astray_req {
	size_t finding;
	uint64_t off;
	uint32_t parent;
};

/* A lost directory (first cluster c) whose .. names the live directory parent (0: the root). */
struct lost_dir {
	uint32_t c, parent;
};

struct frp {
	struct rp r;
	/*
	 * The first check claimed a directory, or a file whose chain is not
	 * whole, through an entry where the FAT copies differ: a check
	 * through another copy might find fewer errors (fr_choose_copy).
	 */
	bool copy_may_matter;
	struct lost_dir *lostdirs;	/* of the last check of the plan */
	size_t nlostdirs, caplostdirs;
	struct astray_req *astray;
	size_t nastray, capastray;
	uint32_t *lost0;		/* the lost clusters of the first check */
	size_t nlost0;
	size_t lost_at;			/* (fr_next_free's place in lost0) */
	struct cross_req *cross;
	size_t ncross, capcross;
	struct head_req *heads;
	size_t nheads, capheads;
	uint32_t free_at;		/* where the search for a free cluster goes on */
	uint8_t *win;			/* that search's window of the active copy as the plan left it */
	uint64_t win_at;		/* (its byte on the volume, and length) */
	size_t win_len;
	uint64_t copied;		/* bytes copied for cross-links */
	uint64_t taken_after;		/* clusters taken after the check of the plan (saving lost chains) */
	uint64_t counted_free;		/* the last check's free entries (or what foresee makes of them) */
	uint32_t counted_clusters;	/* ... of the clusters it checked */
	struct ent_req *reqs;
	size_t nreqs, capreqs;
	const struct fsc_fat_bpb *b;
	struct layout lay;
	unsigned active;
	bool mirrored;
	bool to_end_marker;		/* the check's: the checks of the plan read as far (fsck -p) */
	uint32_t cc;			/* clusters checked */
	struct layout chain_lay;	/* lay, holding the cc clusters the FAT has: what fr_chain follows */
	uint32_t *written;		/* FAT entries the plan sets in the active copy (each once) */
	uint32_t *prior;		/* the value each had before (raw) */
	size_t capprior;
	uint64_t *written_set;		/* the same as bits: entry c is bit c */
	size_t nwritten, capwritten;
	bool copies_taken;		/* FAT_COPIES_DIFFER is fixed: every copy made the active one */
	uint32_t *lost;			/* the lost clusters of the check through the plan */
	size_t nlost, caplost;
	uint32_t *released;		/* clusters fixes took out of their allocation's chain (fr_release) */
	size_t nreleased, capreleased;
	const char **emptied;		/* directories made empty: what the walk read in them is gone */
	size_t nemptied, capemptied;
	const char **recut;		/* allocations the walk cut at a cross-link the plan undoes: read whole next round */
	size_t nrecut, caprecut;
};

struct cwalk {
	uint64_t n;			/* clusters before the end, the break or the loop back */
	uint32_t last;			/* the last of them */
	uint32_t at_need;		/* the need'th (0: not reached) */
	bool ended;			/* at an end mark */
};

/*
 * The FAT copies a repair writes: at most two.  fsck.fat takes no more,
 * and a BPB_NumFATs flipped up (2 -> 6) would make data clusters "copies"
 * that the other copies' fixes overwrite (seed 193, pop-fat32 #8).
 */
#define FR_MAX_COPIES 2u
static inline unsigned fr_copies(const struct fsc_fat_bpb *b)
{
	return b->num_fats < FR_MAX_COPIES ? b->num_fats : FR_MAX_COPIES;
}

/* fat_ledger.c */
uint64_t fr_copy_byte(const struct frp *f, unsigned k);
uint32_t fr_eoc(const struct frp *f);
/* The byte of FAT entry c in copy k and its width in bytes (FAT12: the two bytes holding it). */
uint64_t fr_entry_off(const struct frp *f, unsigned k, uint32_t c, size_t *w);
/* FAT entry c of the active copy as the plan leaves it (raw). */
uint32_t fr_fat_get(struct frp *f, uint32_t c);
/* Entry c set in the active copy (the others follow at the end: fix_copies), or in every copy at once. */
void fr_fat_set(struct frp *f, uint32_t c, uint32_t v, const char *why);
void fr_fat_set_all(struct frp *f, uint32_t c, uint32_t v, const char *why);
/* The 8.3 entry a finding is about: its byte (false: the FAT32 root, or no entry). */
bool fr_entry_of(const struct frp *f, const struct fsc_finding *x, uint64_t *off);
bool fr_read_entry(struct frp *f, uint64_t off, uint8_t e[32]);
uint32_t fr_entry_first(const struct frp *f, const uint8_t *e);
void fr_set_first(const struct frp *f, uint8_t *e, uint32_t c);
/* A . or .. entry for cluster c, dated now: all 32 bytes of e. */
void fr_dot_entry(const struct frp *f, uint8_t *e, bool dotdot, uint32_t c);
/* The next cluster a fix may rp_take (0: none); n of them into nw (false: fewer). */
uint32_t fr_next_free(struct frp *f);
/* Was c lost at the first check (in nobody's chain)? */
bool fr_was_lost(const struct frp *f, uint32_t c);
/* With a second FAT copy: is c free in the copy the plan writes last, as it is on disk? */
bool fr_free_in_last(struct frp *f, uint32_t c);
bool fr_take_free(struct frp *f, uint32_t *nw, uint64_t n);
/* Is x about an entry in (or below) a directory the plan made empty, or about (or below) one in f->recut? */
bool fr_under_emptied(const struct frp *f, const struct fsc_finding *x);
/* The link after c when it stays in the data area (else 0); a chain walked through the plan. */
uint32_t fr_step(struct frp *f, uint32_t c);
void fr_chain_walk(struct frp *f, uint32_t first, uint64_t need, struct cwalk *w);
/* The one chain iterator (layout/chain.c) over the FAT as the plan leaves it, from first, with its loop test. */
void fr_chain(struct layout_chain *it, struct frp *f, uint32_t first);
/*
 * The chain from c, as the plan leaves it before the fix that cuts it
 * off, in nobody's allocation from then on: listed in f->released, so
 * that the lost clusters the plan leaves are known without a check.
 */
void fr_release(struct frp *f, uint32_t c);

/* fat_fixes.c */
void fr_hook_lfn(void *ctx, size_t finding, const uint64_t *off, size_t n, int sum);
void fr_hook_revive(void *ctx, size_t finding, const uint64_t *off, const uint8_t *first, size_t n);
void fr_hook_astray(void *ctx, size_t finding, uint64_t off, uint32_t parent);
void fr_hook_rename(void *ctx, size_t finding, uint64_t off, const uint8_t raw[11], const uint64_t *parts,
		    size_t nparts);
void fr_hook_cross(void *ctx, size_t finding, uint64_t off, uint32_t first, const struct chain_res *res);
void fr_hook_shared_head(void *ctx, uint64_t off, uint32_t first, uint32_t size);
void fr_apply_reqs(struct frp *f);
void fr_fix_field(struct frp *f, struct fsc_finding *x);
void fr_fix_label(struct frp *f, struct fsc_finding *x);
void fr_fix_dots(struct frp *f, struct fsc_finding *x);
void fr_fix_attributes(struct frp *f, struct fsc_finding *x);
/* FAT_LFN_RESERVED: the long-name part's type byte and cluster field made 0. */
void fr_fix_lfn_reserved(struct frp *f, struct fsc_finding *x);
void fr_fix_chain(struct frp *f, struct fsc_finding *x);
void fr_relink_dirs(struct frp *f);
/* Directories walked with no . whose cluster field a flipped bit moved off their own lost tree: pointed back. */
void fr_relink_undotted(struct frp *f);
void fr_fix_crosslinks(struct frp *f);
/* fat_heads.c: files that came first to another's cluster: a first cluster a flipped bit or two from their lost chain taken back. */
void fr_relink_heads(struct frp *f);
/* fat_heads.c: old copies of live files' entries among those a revive of AFTER_END x made visible: deleted. */
void fr_set_aside_stale(struct frp *f, const struct fsc_finding *x);
/* The volume label: the root's and the boot sector's made one (FAT_LABEL_MISMATCH, FAT_LABEL_ROOT_MISSING). */
void fr_fix_labels(struct frp *f);
/* fat_lost.c: a free slot in the root directory (a full FAT32 root grows a cluster); false: none. */
bool fr_root_slot(struct frp *f, uint64_t *slot);
/* Entries that are no file marked deleted (or made . and .. again); how many: nothing else this round then. */
size_t fr_set_aside(struct frp *f);

/*
 * fat_lost.c: the lost clusters of the check of the plan (f->lost), when
 * no error is left: saved as /FOUND.nnn/FILEnnnn.CHK, or read out to
 * --lost-to and freed, or freed (--lost=free); the clusters freed.
 */
uint64_t fr_handle_lost(struct frp *f, bool errors);
/*
 * fat_lost.c: each lost directory of the last check, when its finding is
 * wanted, linked into the directory its .. names (its deleted entry there
 * in use again, else a new DIRnnnn.CHK); how many were.
 */
size_t fr_relink_lost_dirs(struct frp *f);

/* fat_boot.c: the FAT32 boot sector restored from its backup (first); the boot region's other fixes (last). */
bool fr_boot_restore(struct rp *r, struct fsc_dev **view, struct fsc_probe **p2);
void fr_boot_fixes(struct frp *f);
/*
 * fat_boot.c: the FAT copy that agrees best with the directories made
 * every copy (planned: true); dev the volume as first checked,
 * errors_first its errors.
 */
bool fr_choose_copy(struct frp *f, struct fsc_dev *dev, size_t errors_first);

#endif
