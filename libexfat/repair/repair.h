/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * repair/repair.h - a repair being planned beside the exFAT checker
 * (exfat_repair.c) and the saving of lost clusters (exfat_lost.c), and the
 * FAT repair planner (fat_repair.c, which uses struct rp's ledger part);
 * not installed.
 */
#ifndef FSC_REPAIR_H
#define FSC_REPAIR_H

#include "check/exfat_check.h"
#include "write/write.h"

/*
 * A family's repair passes after its check, in the order they run (as
 * e2fsck's passes are): one table per family (exfat_repair.c, and
 * fat_repair.c), run by rp_run_steps.  Each step plans from the state the
 * check handed over and what the steps before it planned; it runs unless
 * its skip says so (NULL: always).  fam is the family's planner.
 */
struct rp_step {
	const char *name;		/* what the step plans */
	void (*run)(void *fam);
	bool (*skip)(const void *fam);
};
void rp_run_steps(const struct rp_step *steps, size_t n, void *fam);
/*
 * The values one flipped bit from x, then two, within its low width bits
 * (a cluster number's 28 or 32), for the repairs that take a flipped bit
 * back: rp_flips_begin, then rp_flips_next until it returns false; *bits
 * tells how many bits the value is from x.
 */
struct rp_flips {
	uint32_t x;
	unsigned width, i, j;
};
void rp_flips_begin(struct rp_flips *f, uint32_t x, unsigned width);
bool rp_flips_next(struct rp_flips *f, uint32_t *c, unsigned *bits);

/* A pass as a step: step_fn(fam) calls fn with the arguments given, taken from x, the family's planner. */
#define RP_STEP(planner, fn, ...) \
	static void step_##fn(void *fam) \
	{ \
		struct planner *x = fam; \
		fn(__VA_ARGS__); \
	}

/* A set whose chain is to be cut, waiting for the end of the walk. */
/* (the set's entries and their places only: a whole struct exfat_asm is 12 KiB) */
struct deferred {
	uint8_t *bytes;			/* n entries, then their n places (struct exfat_where) */
	unsigned n;
	struct exfat_asm_head { unsigned have, need, count, flags, max_secondary; bool deleted;
				enum exfat_cut cut_by; struct exfat_where at; } head;
	int32_t want_hash;
	struct chain_res chain;
	bool chained;			/* chain is the walk's (else the set waited for its checksum's undo) */
	char *path;
	bool done;			/* planned already */
	bool now;			/* nothing to wait for: planned first, once the walk is over */
};

/* A duplicate name made unique: the set's primary, and the unit to change. */
struct dup_rename {
	uint32_t cluster, entry;
	unsigned pos;
	uint16_t unit;
};

/* A file set fixed: its primary entry's byte, and which of its findings. */
struct set_fixed {
	uint64_t off;
	unsigned ids;			/* SF_* */
};
enum { SF_CHECKSUM = 1, SF_HASH = 2, SF_VDL = 4, SF_CHAIN = 8, SF_NAME = 16, SF_CROSS = 32, SF_ATTR = 64, SF_FLAGS = 128,
       SF_DIRSIZE = 256, SF_FIRST = 512, SF_NAMELEN = 1024, SF_NOFAT = 2048 };

/* A directory whose chain or size is to be repaired (exfat_dir.c), waiting for the end of the walk. */
struct dir_fix {
	struct exfat_where at;		/* its set in the parent; cluster 0: the root */
	bool parent_nofat;
	bool file;			/* a file whose attributes say directory, claimed as a file (chain) */
	struct chain_res chain;
	char *path;
};

/* A directory's end-of-directory marker with entries in use after it (the walk's end_mark). */
struct end_mark_rec {
	uint32_t hit_cluster, hit_entry;	/* the first entry in use after it (the finding's place) */
	uint32_t mark_cluster, mark_entry;
	bool nofat;
};

/*
 * The findings at entries, by place (ledger.c): rp_set_finding's index,
 * so that a repair of many sets asks each in constant time.  Built as
 * asked, over the findings made so far (they are only ever appended).
 */
struct rp_at_index {
	size_t *head;			/* open addressing by (cluster, entry): the latest finding there + 1, 0: none */
	size_t cap;			/* slots, a power of two */
	size_t *prev;			/* each indexed finding: the one before it at the same place + 1 */
	size_t n, capprev;		/* findings indexed */
	size_t *named;			/* the findings with a path, by problem and path (rp_take_owned) */
	size_t nnamed, named_n;		/* ... of the first named_n findings */
};

struct rp {
	struct fsc_dev *dev;
	struct rp_at_index *at_index;	/* (a pointer: rp_set_finding extends it through a const rp) */
	struct rp_memo *memo;		/* the session's, or NULL */
	const struct fsc_probe *p;
	const struct fsc_repair_opts *o;
	struct fsc_plan *plan;
	struct fsc_findings *out;
	struct set_fixed *sets;
	size_t nsets, capsets;
	bool done;			/* the last pass ran: the plan can be closed */
	bool unclaimed;			/* a cut chain left clusters that nothing owns */
	struct deferred *defer;
	size_t ndefer, capdefer;
	uint16_t flags;			/* VolumeFlags the fixes leave */
	bool allocated;			/* clusters newly owned: the bitmap must follow */
	struct end_mark_rec *marks;	/* end markers with entries after them (exfat_revive.c) */
	size_t nmarks, capmarks;
	bool defer_lost;
	bool mended;			/* a file's size or place mended: the rest waits for the next round */
	bool size_undone;		/* a set's sizes taken back by its checksum (xr_undo_size_flip): mended */
	unsigned undo_triples;		/* three-bit searches left to xr_undo_size_flip (bounded work) */
	bool undo_sound;		/* the set planned is a cross-link's first owner: a sound extent is searched too */
	bool bitmap_moved;		/* the bitmap entry's FirstCluster taken back (xr_bitmap_back): mended */
	bool dirs_relinked;		/* a directory's flipped link taken back (xr_relink_dirs_first): no set planned */
	bool upcase_moved;		/* the up-case entry's FirstCluster taken back (xr_upcase_choose): mended */
	uint32_t upcase_back_to;	/* ... to this cluster (xr_upcase_plan_choice plans it) */
	bool upcase_relinked;		/* the up-case chain made its row again (xr_relink_upcase_in_row): mended */		/* a directory revived: lost clusters wait for the round that walks it */
	struct lost_save *lost;		/* exfat_lost.c, between lost_prepare and lost_link */
	bool new_upcase;		/* the recommended up-case table replaces the volume's */
	struct upcase_new *upcase;	/* exfat_upcase.c, between upcase_prepare and upcase_link */
	bool boot_changed;		/* sectors 1-9 fixed: the checksum and the backup follow */
	bool new_bitmap;		/* a new allocation bitmap is built (exfat_bitmap.c) */
	bool bitmap_length_only;	/* or only its DataLength is set */
	uint32_t bitmap_first;		/* the new bitmap's first cluster (a run) */
	bool bitmap_marks_kept;		/* the old bitmap was read whole: its marks of lost clusters carry over */
	uint64_t *freed;		/* clusters to clear in the bitmap (the old table's), or NULL */
	struct dup_rename *dups;	/* duplicate names to make unique, at the end */
	size_t ndups, capdups;
	struct dir_fix *dirs;		/* directories to repair, at the end */
	size_t ndirs, capdirs;
	int err;
};

/* May the finding be fixed: the level allows it and the caller says yes. */
bool rp_wanted(const struct rp *r, const struct fsc_finding *f);
/* The first finding id (any location), or NULL. */
struct fsc_finding *rp_find(const struct rp *r, enum fsc_problem id);

/*
 * An index of a findings list, sorted by problem and place, for finding
 * the same problem again in another list at the same place (rounds of
 * one repair compare so: a renamed file's path changes).  v is NULL when
 * the list is empty; free(v).  The index points into the list: appending
 * to it ends the index.
 */
struct rp_findex {
	const struct fsc_finding **v;
	size_t n;
};
int rp_findex_make(struct rp_findex *ix, const struct fsc_findings *fs);
/* The order of such an index, on findings themselves (for qsort and bsearch). */
int rp_finding_cmp_place(const void *x, const void *y);
const struct fsc_finding *rp_findex_find(const struct rp_findex *ix, const struct fsc_finding *f);
/* Is there a finding id, fixable and wanted?  Marks it (and any other of id) planned. */
bool rp_take(const struct rp *r, enum fsc_problem id);
/* rp_take() of both a and b (the second is taken whatever the first gives): either one. */
bool rp_take_either(const struct rp *r, enum fsc_problem a, enum fsc_problem b);
/*
 * Is every cluster of the chain it (begun) another's, as owned(ctx, c)
 * says, for need clusters (to_end: to its end mark, however many)?  The
 * test of an entry made visible again (a revive) that would only
 * cross-link what lives there: exFAT's owned_by_others, FAT's stale_copy.
 */
bool rp_chain_owned(struct layout_chain *it, uint64_t need, bool to_end, bool (*owned)(const void *ctx, uint32_t c),
		    const void *ctx);
/* rp_take of the findings of id about path only ("/ (root directory)"). */
bool rp_take_owned(const struct rp *r, enum fsc_problem id, const char *path);
/* The findings id are not planned after all (rp_take() said they would be). */
void rp_unplan(const struct rp *r, enum fsc_problem id);
/* An edit of the plan (nothing when the bytes are there already); the first error is kept. */
void rp_put(struct rp *r, uint64_t off, const void *data, size_t len, const char *why, bool sync);

/*
 * The one chain iterator (layout/chain.c) over the FAT as the check read
 * it, from first (in a row with nofat), without a loop test: the repair's
 * walks are bounded by the counts the check gave.
 */
static inline void xr_chain(struct layout_chain *it, struct xvol *v, uint32_t first, bool nofat)
{
	layout_chain_begin(it, &v->lay, fatreader_link, &v->fr, first, 0, nofat);
}

static inline bool cluster_owned(const struct xvol *v, uint32_t c)
{
	return bit_get(v->ck.claimed, c - 2);
}

static inline void cluster_claim(struct xvol *v, uint32_t c)
{
	bit_set(v->ck.claimed, c - 2);
}

static inline void cluster_unclaim(struct xvol *v, uint32_t c)
{
	bit_clear(v->ck.claimed, c - 2);
}

/* An error in a field of the main boot region (not its checksum, not the device's size). */
bool rp_boot_field_error(const struct fsc_finding *f);

/*
 * The first cluster after c that is free (nothing owns it, the bitmap does
 * not mark it) or, with lost, lost (marked, owned by nothing); 0: none.
 */
uint32_t rp_next_cluster(const struct xvol *v, uint32_t c, bool lost);
/*
 * n free clusters into out, claimed and chained in the FAT (the last with
 * an end mark; what: why, for the plan); false when there are fewer.
 */
bool rp_alloc_clusters(struct rp *r, struct xvol *v, uint32_t *out, uint64_t n, const char *what);
/*
 * The first run of n clusters in a row that nothing owns, the bitmap
 * does not mark (with marks; a bitmap being rebuilt says nothing) and
 * whose FAT entries are free (or already the chain the run gets: a repair
 * cut short takes the same ones again); 0: none.  For the structures drivers
 * read in a row whatever the FAT says: the allocation bitmap and the
 * up-case table (Linux and fsck.exfat read both from their first
 * cluster on).
 */
uint32_t rp_find_run(struct xvol *v, uint64_t n, bool marks);
/* Such a run claimed and chained in the FAT (what: why, for the plan); its first cluster, 0: none. */
uint32_t rp_alloc_run(struct rp *r, struct xvol *v, uint64_t n, bool marks, const char *what);
/* The n clusters from first claimed and chained in a row in the FAT (what a structure found in place needs). */
void rp_chain_run(struct rp *r, struct xvol *v, uint32_t first, uint64_t n, const char *what);

/* The finding id at the set whose primary lies at at (the latest), or NULL. */
struct fsc_finding *rp_set_finding(const struct rp *r, enum fsc_problem id, const struct exfat_where *at);
/* The findings at entry (loc, entry), the latest first: *k 0 to begin; NULL ends. */
struct fsc_finding *rp_at_next(const struct rp *r, uint64_t loc, uint32_t entry, size_t *k);
void rp_at_index_free(struct rp_at_index *ix);
/* r's findings cut back to the first n (a check made again adds its own), its indexes with them. */
void rp_findings_cut(struct rp *r, size_t n);
/* May the set's finding id be fixed?  Without the finding (over a cap): the level decides. */
bool rp_set_wanted(struct rp *r, enum fsc_problem id, const struct exfat_where *at);

/* ledger.c: a set's entries as set has them (links: after a sync); the fixed set's ids, for marking. */
void rp_write_set(struct rp *r, const struct exfat_asm *a, const uint8_t *set, const char *why, bool links);
void rp_remember_set(struct rp *r, uint64_t off, unsigned ids);

/* ledger.c: PercentInUse for marked clusters (nothing when the byte there rounds to it). */
void rp_put_percent_in_use(struct rp *r, uint64_t marked);
/* ledger.c: the first entry of type t in the root before its end marker (the plan's view); 0: none. */
uint64_t rp_root_entry_of(struct rp *r, struct xvol *v, uint8_t t);

/* exfat_dir.c: directories noted by the walk; planned at its end (the number of cross-links answered). */
void xr_note_dir(void *ctx, const struct exfat_where *at, bool parent_nofat, const struct chain_res *chain,
		 bool file, const char *path);
size_t plan_dirs(struct rp *r, struct xvol *v);
/* A new empty cluster, claimed, ended in the FAT and zeroed, for path; 0 when there is no room. */
uint32_t xr_empty_cluster(struct rp *r, struct xvol *v, const char *path);
void xr_free_dirs(struct rp *r);

/* exfat_sets.c: one set's fields planned once the walk is over (chain: how its chain went, or NULL). */
void xr_plan_set(struct rp *r, struct xvol *v, const struct exfat_asm *a, int32_t want_hash,
		 const struct chain_res *chain, const char *path);
/* exfat_chain.c: the clusters after c in its chain (at most n) are no longer owned: lost. */
void xr_unclaim_after(struct rp *r, struct xvol *v, uint32_t c, uint64_t n);
/* exfat_chain.c: the chain of the file whose set is being planned (set: its bytes, to change). */
unsigned xr_fix_cross(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch,
		   uint8_t *set, const char *path);
/* A set being rewritten (n entries): its name entries' units past NameLength zeroed. */
void xr_zero_name_tail(uint8_t *set, unsigned n);
unsigned xr_fix_chain(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch,
		   uint8_t *set, const char *path);
/*
 * exfat_flip.c: allocations a flipped bit hid.  xr_first_by_flip: the
 * only cluster one or two bits from first where a lost allocation of need
 * clusters (in a row with nofat) starts, or 0; xr_claim_run claims such
 * an allocation.  xr_relink_by_flip: a chain broken before its need by a
 * flipped link taken back; xr_relink_into_xlink: a chain (from first;
 * need 0: a directory's) broken after a cluster another allocation claims
 * too.  True when the link was taken back; xr_relink_into_xlink_possible
 * only tells whether it would be.
 */
uint32_t xr_first_by_flip(struct xvol *v, uint32_t first, uint64_t need, bool nofat);
/* The only value one or two flipped bits from x that fits says yes to (0: none, or more than one). */
uint32_t xr_only_flip(uint32_t x, bool (*fits)(void *ctx, uint32_t c), void *ctx);
void xr_claim_run(struct xvol *v, uint32_t c, uint64_t need, bool nofat);
bool xr_relink_by_flip(struct rp *r, struct xvol *v, const struct chain_res *ch, uint64_t need, const char *what);
bool xr_relink_into_xlink(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch, uint64_t need,
			  const char *what);
/*
 * Is f about the bitmap's or the up-case table's chain (owner: its path,
 * "/ (allocation bitmap)"), or a cross-link of it (its first owner, or
 * its first cluster)?  xr_plan_about_structure: every such finding that
 * may be fixed, planned (the structure pointed back to its own clusters).
 */
bool xr_about_structure(const struct fsc_finding *f, const char *owner, uint32_t first);
/*
 * The root entry of type (the bitmap's, the up-case table's: what) whose
 * FirstCluster f a flipped bit or two moved: pointed to the only cluster
 * that far that fits says is the structure's; its findings planned.
 * xr_point_back_to: to found, as a search before decided.
 */
bool xr_point_back(struct rp *r, struct xvol *v, uint8_t type, const char *what, uint32_t f,
		   bool (*fits)(void *ctx, uint32_t c), void *ctx);
bool xr_point_back_to(struct rp *r, struct xvol *v, uint8_t type, const char *what, uint32_t f, uint32_t found);
void xr_plan_about_structure(struct rp *r, const char *owner, uint32_t first);
/* exfat_chain.c: the up-case table's bytes read in a row from first: their TableChecksum (false: a read failed). */
bool xr_row_checksum(struct xvol *v, uint32_t first, uint64_t len, uint32_t *sum);
/* exfat_dir.c: directories crossed into another's first cluster by a flipped link, the link taken back first. */
bool xr_relink_dirs_first(struct rp *r, struct xvol *v);
bool xr_relink_into_xlink_possible(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch,
				   uint64_t need);
/* Where the entries of a set lie: a set may go on in the directory's next cluster. */
struct xr_span {
	uint64_t pos[256];
	unsigned room;			/* entries read */
};
/*
 * exfat_revive.c: the file set at f's entry, up to 256 entries from it (on
 * into the directory's next cluster, and the one after, when the set
 * needs it: its FAT link, or the next cluster when that entry is free),
 * their places in sp; false when its first entry is no file entry.
 * xr_put_span: entries [from, from + n) of set written where they lie.
 */
bool xr_read_here(struct rp *r, struct xvol *v, const struct fsc_finding *f, uint8_t *set, struct xr_span *sp);
void xr_put_span(struct rp *r, const struct xr_span *sp, const uint8_t *set, unsigned from, unsigned n,
		 const char *why);
/* exfat_entries.c: the duplicate names the walk gave a unique variant renamed so. */
void xr_fix_duplicates(struct rp *r, struct xvol *v);
/* exfat_flip.c: a bit of the set's name flipped back, which its NameHash and SetChecksum prove (see there). */
bool xr_undo_name_flip(const struct xvol *v, uint8_t *set, unsigned n);
/* exfat_chain.c: the bitmap's and up-case table's chains ended where their length ends (a link broken there). */
void xr_fix_structure_chains(struct rp *r, struct xvol *v);
/* exfat_chain.c: a FirstCluster flipped out of the heap, or a size ValidDataLength corrects (first). */
bool xr_fix_extent_possible(struct xvol *v, const struct chain_res *ch, const uint8_t *set);
/*
 * A set of n entries whose sizes or place no file can have (ValidDataLength
 * past DataLength, a size past the heap, a first cluster outside it or a
 * run in a row past its end) and whose SetChecksum is not that of its
 * entries: ValidDataLength, DataLength and FirstCluster one or two flipped
 * bits away, when exactly one such change gives the entries the checksum
 * the set holds and a sound extent, or of several exactly one gives equal
 * sizes (the checksum's rotations make some pairs of flips alike), or of
 * those exactly one lies on clusters the bitmap marks; when none fits,
 * three bits (one at least of the extent's, the others may be the stream
 * entry's reserved bits, which the one- and two-bit search also covers),
 * while *triples (the searches left to this repair, each about 1,600,000
 * candidates, most refused by the extent's soundness alone) lasts, taken
 * only when exactly one change gives equal sizes on marked clusters.  ch (may be NULL): how the walk claimed
 * the damaged extent, whose clusters stay the file's own.  sound_too: the
 * extent may be one a file can have (its run or chain came first to
 * clusters other allocations claim too: a flipped size bit can do that).
 * True:
 * set holds them now (a flip undone, the set whole).
 */
bool xr_undo_size_flip(const struct xvol *v, uint8_t *set, unsigned n, int32_t want_hash, const struct chain_res *ch,
		       bool sound_too, unsigned *triples);
/*
 * Could xr_undo_size_flip change the set (a checksum that is not its
 * entries', and an extent no file can have, or with sound_too any)?
 */
bool xr_undo_possible(const struct xvol *v, const uint8_t *set, unsigned n, int32_t want_hash, bool sound_too);
/*
 * A set in a row whose extent went from was's to now's: the clusters of
 * the old run not in the new nobody's again (ch, may be NULL: how the walk
 * claimed the old run, which tells how much of a run past the heap it gave).
 */
void xr_release_past(struct rp *r, struct xvol *v, const uint8_t *was, const uint8_t *now, const struct chain_res *ch);
/*
 * The up-case table's chain broken (a flipped link, a free one) where its
 * clusters in a row still hold it: Linux and fsck.exfat read the table in
 * a row from its first cluster, and when those bytes give its
 * TableChecksum the chain is made that row again; what the chain took
 * past the row is nobody's again.  True when planned (the round is then
 * mended: files it crossed are judged again next round, not copied).
 */
bool xr_relink_upcase_in_row(struct rp *r, struct xvol *v);
/* EXFAT_CHAIN_END_VALUE: each chain the walk saw end by FFFFFFF8..FFFFFFFE ended by FFFFFFFF instead. */
void xr_fix_end_values(struct rp *r, struct xvol *v);
unsigned xr_fix_extent(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch, uint8_t *set);

/* exfat_entries.c: entries outside any set marked unused; the label's length and characters. */
void repair_orphan_entries(struct rp *r, struct xvol *v);
void repair_label_length(struct rp *r, struct xvol *v);
void repair_label_chars(struct rp *r, struct xvol *v);

/* exfat_revive.c: sets whose SecondaryCount the checksum proves wrong, made whole; their files claimed. */
void xr_revive_sets(struct rp *r, struct xvol *v);
/* exfat_revive.c: a name entry damaged where NameLength and SecondaryCount agree (revive_sets mends it). */
bool xr_revive_names_damaged(const uint8_t *set, unsigned count);
/* exfat_revive.c: the walk's hook for an end marker with entries in use after it. */
void xr_revive_note_mark(void *ctx, uint32_t mark_cluster, uint32_t mark_entry, bool nofat, uint32_t hit_cluster,
			 uint32_t hit_entry);

/*
 * exfat_boot.c: when the main boot region has field errors and the backup
 * verifies, plan the restore; true with the volume as restored (*dev2, a
 * read-only view, and *p2, its probe: the caller frees both).
 */
bool xr_boot_restore(struct rp *r, struct fsc_dev **dev2, struct fsc_probe **p2);
/* exfat_boot.c: the boot region's layout can be trusted (else nothing is planned but a restore). */
bool xr_geometry_sound(const struct fsc_probe *p);
/* No field error in the main region (its checksum may be wrong); sound once the plan is applied. */
bool xr_boot_fields_sound(const struct rp *r);
bool xr_main_boot_sound(const struct rp *r);
/* exfat_boot.c: the main checksum (sector 11) recomputed; sectors 1-9 fixed (true: changed). */
void xr_fix_boot_checksum(struct rp *r, unsigned ss);
bool xr_fix_boot_sectors(struct rp *r, unsigned ss);
/* exfat_boot.c: FileSystemRevision 1.00 when it is not 1.xx (true: planned). */
bool xr_fix_revision(struct rp *r);
/* exfat_boot.c: main and backup agree on the geometry; the backup rewritten from the main region. */
bool xr_backup_geometry_agrees(struct rp *r, unsigned ss);
void xr_fix_backup(struct rp *r, unsigned ss);

/*
 * exfat_bitmap.c: whether a missing or too short bitmap is to be fixed
 * (its findings taken); its new clusters chosen and the claimed set made
 * the bitmap (first in the done pass); then the bits and the entry that
 * links them (in place of the bitmap's other fixes).
 */
bool xr_bitmap_rebuild_wanted(struct rp *r);
/* A bitmap entry's FirstCluster a flipped bit moved onto another allocation, taken back (a round of its own). */
bool xr_bitmap_back(struct rp *r, struct xvol *v);
void xr_bitmap_rebuild_prepare(struct rp *r, struct xvol *v);
void xr_bitmap_rebuild_link(struct rp *r, struct xvol *v);

/* exfat_lost.c: the root's free slots, for an entry set to be added there. */
typedef void (*root_entry_fn)(void *ctx, const struct exfat_asm *as, enum exfat_ev ev, const uint8_t *e,
			      uint64_t off);
/*
 * The root as the plan leaves it: each entry to each (may be NULL), the
 * first n (1..3) free slots in a row in one cluster into slot, the last
 * cluster into *last (0: none read); false: no such slots.
 */
bool xr_root_slots(struct rp *r, struct xvol *v, unsigned n, uint64_t *slot, uint32_t *last, root_entry_fn each,
		void *ctx);
/* A new root cluster, zeroed and chained after last (its end marks made unused): its first n slots. */
bool xr_extend_root(struct rp *r, struct xvol *v, uint32_t last, unsigned n, uint64_t *slot);

/* exfat_lost.c: lost chains as files FILEnnnn.CHK of a new root directory FOUND.nnn. */
/* The chains ended, the directory's clusters allocated (claimed, chained) and written. */
void xr_lost_prepare(struct rp *r, struct xvol *v);
/*
 * exfat_lostdir.c: the lost chain from head (its length in *clusters) and
 * the tree below it claimed when it is a sound directory whose whole tree
 * is lost; else false and nothing claimed.
 */
bool xr_adopt_dir(struct rp *r, struct xvol *v, uint32_t head, uint64_t *clusters);
/* Then the directory's entry in the root, which links it all; the bitmap is planned after. */
void xr_lost_link(struct rp *r, struct xvol *v);
/* exfat_lost.c, with free_lost and a lost_bytes callback: every lost chain read out, before it is freed. */
void xr_lost_export(struct rp *r, struct xvol *v);

/*
 * exfat_upcase.c: a broken or missing up-case table replaced by the
 * recommended one.  upcase_choose: the checker's hook once the table is
 * loaded (xv_fix.upcase): decides, with a finding wanted, that the
 * recommended table judges the names (a new one written, or the entry
 * pointed back), and plans nothing; upcase_plan_choice, first after the
 * check: that choice planned.  upcase_prepare: its clusters allocated
 * and written, the old ones released (r->freed).  upcase_link, after the
 * bitmap frees them: the entry that links the new table.
 */
bool xr_upcase_choose(void *ctx, struct xvol *v);
void xr_upcase_plan_choice(struct rp *r, struct xvol *v);
void xr_upcase_prepare(struct rp *r, struct xvol *v);
void xr_upcase_link(struct rp *r, struct xvol *v);

/*
 * What a repair's first check found sound, kept across its rounds
 * (session.c) for the checks of the later ones, on the plan's view:
 *   tails  the parts of directory clusters past their end markers, read
 *          whole and found free: read again only where an edit of the
 *          plan lies over them.  Most of a directory's bytes are such
 *          parts, and reading them is most of a check (dirtail.c).
 *   dirs   the directories read with no finding (the memo hook dir_sound), and
 *          the parts of each that were parsed: their entries are not
 *          judged again where no edit lies over them nor over their FAT
 *          entries.  Judging them is most of what a check does besides
 *          reading.
 *   held   what each sound directory held for the walk (its files'
 *          allocations, its subdirectories; exFAT: its parts past the end
 *          marker: check/engine.h struct ck_replay): a later check claims
 *          them again without reading the directory, unless that round's
 *          check met a replayed entry it had to name (replay_lost: that
 *          check is made again without).
 *   scan   FAT: what each 4 KiB block of the FAT held when the copies
 *          agreed there (check/fat_check.h): not read again where no
 *          edit lies over it in any copy.
 */
struct fv_scan_memo;
struct rp_memo_dir {			/* (a key but its judge, kept once: 32 bytes) */
	uint64_t size;
	uint32_t first, at, n;		/* its parts: parts[at .. at + n) */
	uint32_t held;			/* FAT: what it held, in held (UINT32_MAX: none) */
	bool nofat;
};
struct rp_memo_held {			/* (20 bytes) */
	uint32_t parent;
	uint32_t at, len;		/* its record: rec[at .. at + len) */
	uint32_t tail_at;		/* ... its parts past the end marker from rec[at + tail_at] */
	bool tail_unread;
};
struct rp_memo {
	struct dt_span *tails;		/* sorted by where each ends */
	size_t ntails;
	struct rp_memo_dir *dirs;	/* in walk order, then sorted by key (rp_memo_dir_known) */
	size_t ndirs, capdirs;
	uint64_t judge;			/* theirs (one walk's) */
	bool sorted;
	struct ck_part *parts;
	size_t nparts, capparts;
	struct fv_scan_memo *scan;	/* FAT: the first round's scan of the FAT copies (or NULL) */
	struct rp_memo_held *held;
	size_t nheld, capheld;
	uint8_t *rec;			/* their records (check/fat_replay.c encodes them) */
	size_t nrec, caprec;
	bool no_replay;			/* a later check met a replayed entry it had to name: none replayed since */
	bool replay_lost;		/* ... in the check just made (the planner makes it again) */
	bool first;			/* the first round: keep what its check found */
	const struct fsc_plan *over;	/* a later round: the plan its view lays over */
};
/* memo.c */
void rp_memo_keep_tails(struct rp_memo *m, const struct dt_span *s, size_t n);
bool rp_memo_tail_known(const struct rp_memo *m, uint64_t off, uint64_t len);
void rp_memo_keep_dir(struct rp_memo *m, const struct ck_dir_key *key, const struct ck_part *p, size_t n);
const struct ck_part *rp_memo_dir_known(struct rp_memo *m, const struct ck_dir_key *key, size_t *n);
void rp_memo_keep_scan(struct rp_memo *m, struct fv_scan_memo *scan);
/* What the directory of key (the last one kept) held for the walk; and later, that record when it is known. */
void rp_memo_keep_held(struct rp_memo *m, const struct ck_dir_key *key, const struct ck_replay *r);
bool rp_memo_replay(struct rp_memo *m, const struct ck_dir_key *key, struct ck_replay *r);
/* The check's hooks that keep (the first round) or use (a later one) m, for a round whose struct rp has it. */
void rp_memo_hook(struct ck_memo_hooks *h, const struct rp_memo *m);
void rp_memo_free(struct rp_memo *m);

/*
 * exfat_offers.c: the hooks through which a repair's check offers sets,
 * renames, directories, the up-case choice and end markers; a set kept
 * (deferred) made whole again in t; the check with those hooks (made
 * again without replays when one made a finding); and what the walk
 * offered, dropped.
 */
extern const struct xv_fix xr_offers;
const struct exfat_asm *xr_defer_set(const struct deferred *d, struct exfat_asm *t);
int xr_check_offers(struct rp *r, struct fsc_dev *dev, const struct fsc_check_opts *o,
		    struct fsc_check_summary *sum, const struct xv_fix *fix, struct xvol **v);
void xr_forget_offers(struct rp *r);

/* exfat_repair.c: one round of fsc_plan_repair for an exFAT volume (session.c runs the rounds; memo may be NULL). */
int exfat_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		      const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		      struct fsc_plan *plan, struct rp_memo *memo);
/* fat_repair.c: one round of fsc_plan_repair for a FAT12/16/32 volume (memo may be NULL). */
int fat_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		    const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		    struct fsc_plan *plan, struct rp_memo *memo);

#endif
