/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check/fat_walk.h - the state of the FAT tree walk (fat_tree.c) and of the
 * names it keeps per directory for duplicates and renames (fat_dups.c);
 * not installed.
 */
#ifndef FSC_FAT_WALK_H
#define FSC_FAT_WALK_H

#include "check/fat_check.h"
#include "io/io.h"

struct job {
	size_t node;			/* (first: dirwalk.c) */
	uint32_t first;			/* 0: the FAT12/16 root area */
	uint32_t parent;		/* the parent's first cluster as .. holds it (0: the root) */
	uint32_t cl, ent;		/* the directory's entry in its parent */
	uint64_t byte;			/* ... when the parent is the FAT12/16 root area */
	bool later;			/* read after every other directory: its cluster does not start as one */
};

/* A name of the directory being read, for duplicates. */
struct dent {
	uint8_t raw[11];
	uint32_t cl, ent;
	uint64_t byte;
	uint64_t hash;			/* of the folded display name */
	size_t off;			/* its units in the arena */
	uint16_t len;
	uint64_t sfn_off;		/* the 8.3 entry's byte */
	size_t poff, nparts;		/* its long name's parts (in parts), for a rename */
	size_t finding;			/* a finding that asks for a new 8.3 name, or SIZE_MAX */
	bool same;			/* (that finding is of byte 12 only: the name stays) */
};

struct ftree {
	struct fvol *v;
	struct dirwalk dw;		/* the directories met and waiting; dw.path: the one being read */
	struct job *later;		/* directories whose cluster holds no . and .. entries, in walk order */
	size_t nlater, caplater;
	/* the directory being read */
	struct job cur;
	bool is_root, end_seen;
	bool tail_unread;		/* to_end_marker: bytes past the end marker left unread */
	bool dir_unread;		/* a part of the directory could not be read */
	struct dev_warmth warmth;	/* whether its reads wait for the device: ask ahead then */
	uint32_t head;			/* the cluster whose first read dirbuf holds already (0: none) */
	uint32_t head_len;		/* ... its bytes */
	bool touched;			/* the directory being read passes an entry where the FAT copies differ */
	size_t no_dot;			/* its first slot holds no . at all (no damaged one either): that finding */
	uint64_t index;			/* entries read so far */
	uint32_t cl, ent;		/* where the entry lies: cluster and index, */
	uint64_t byte;			/* or its byte in the root area (cl 0) */
	uint64_t after_end;		/* entries in use after the end marker */
	struct owner after_at;
	unsigned labels;
	/* the long name being assembled */
	struct fat_lfn lfn;
	bool lfn_on;
	bool lfn_skip;			/* the rest of a name found broken: its parts are not reported again */
	unsigned lfn_next, lfn_parts;
	uint8_t lfn_sum;
	struct owner lfn_at;
	/* the long-name parts read since the last other entry, for a repair */
	struct {
		uint64_t *off;
		size_t n, cap;
		uint8_t e[FAT_LFN_MAX_PARTS][32];	/* the first FAT_LFN_MAX_PARTS */
		size_t finding;		/* the finding about them, or SIZE_MAX */
	} run;
	/* the 0x00 entries past the end marker before one in use (revive), and those after the last */
	uint64_t *zeros;
	uint8_t *zfirst;		/* the first byte each should have */
	size_t nzeros, capzeros, capzfirst, zeros_kept;
	size_t zlfn;			/* the last entry read was a 0x00 one with a long-name part's body (its index) */
	struct zrun {			/* 0x00 entries not in zeros yet (first byte 0xE5 each): in a row from byte */
		uint64_t byte;
		size_t n;
	} *zruns;			/* (most directories end in them: listed only when an entry in use follows) */
	size_t nzruns, capzruns;
	int prev_seq;			/* the last entry read past the marker was a part: its number, and checksum */
	uint8_t prev_sum;
	bool revive_bad;		/* an entry past the marker that is no plausible one */
	size_t plausible_files;		/* 8.3 entries past the marker that could be a file's */
	uint64_t *used;			/* the entries in use past the marker (to end them again) */
	uint8_t *uzero;			/* as many 0x00 bytes */
	size_t nused, capused, capuzero;
	struct dent *names;
	size_t nnames, capnames;
	uint64_t *parts;		/* the long-name parts of the names kept */
	size_t nparts, capparts;
	uint16_t *arena;
	size_t alen, acap;
	/* a repair's rounds (the memo hooks, engine.h; each other hook the walk calls comes with a finding): */
	uint64_t judge;			/* the walk's */
	struct ck_dir_memo dm;		/* the directory being read */
	/* ... what it holds for the walk (fat_replay.c) */
	struct ck_rec hold;
	uint32_t hold_parent;
	bool replay_off;		/* a replay made a finding: none since */
	bool replay_tail_unread;
};

/* ---- findings at the current entry ---- */

static inline struct owner here(const struct ftree *t, const char *name)
{
	return (struct owner){ t->dw.path, name, t->cl, t->ent, NULL, 0, false, t->cl ? 0 : t->byte, 0 };
}

static inline struct fsc_finding *at_entry(struct ftree *t, enum fsc_problem id, const char *name)
{
	struct owner who = here(t, name);

	return ck_add_owner(&t->v->ck, id, &who);
}

static inline uint64_t cur_byte(const struct ftree *t)
{
	return t->cl ? layout_cluster_byte(&t->v->lay, t->cl) + 32ull * t->ent : t->byte;
}

static inline bool hooked(const struct ftree *t)
{
	return t->v->hooks && !t->v->ck.owners_pass;
}

/*
 * fat_replay.c: a repair's first check: what the directory begun (job j)
 * holds, kept as the walk claims (name: a subdirectory's) and handed to
 * the hook dir_held when it is found sound.  A later check: the record of
 * a directory to replay instead of reading it (false: it is read; its
 * chain is claimed), its entries one by one (a file's size: one of the
 * clusters it had; t->cl and t->ent: a subdirectory's entry), and the end
 * (raised: the findings made before it began; one made since ends the
 * replays).
 */
void fw_hold_begin(struct ftree *t, const struct job *j);
void fw_hold(struct ftree *t, const char *name, uint32_t first, uint32_t size);
void fw_hold_end(struct ftree *t);
bool fw_replay_begin(struct ftree *t, const struct job *j, struct ck_rec_it *it);
bool fw_replay_next(struct ftree *t, struct ck_rec_it *it, struct ck_rec_ent *x, uint32_t *size);
void fw_replay_end(struct ftree *t, const struct ck_rec_it *it, uint64_t raised);
/* fat_dups.c: the directory's names, kept as its entries are read; checked once it is read. */
/*
 * The entry just read (8.3 name raw, name as shown u/n); lfn: it has a long
 * name, whose parts are the walk's run; bad: the index of a finding that
 * its 8.3 name is invalid, or SIZE_MAX.
 */
void fw_keep_name(struct ftree *t, const uint8_t *raw, const uint16_t *u, unsigned n, bool lfn, size_t bad, bool same);
void fw_check_duplicates(struct ftree *t);
/* fat_dots.c: the . and .. slots (true: one holds a damaged . or .., not walked), and a . or .. entry. */
bool fw_dots_present(struct ftree *t, const uint8_t *e, enum fat_kind k);
void fw_dot_entry(struct ftree *t, const uint8_t *e);
/* ... a directory entry (size bytes) whose first cluster holds no . naming it: a file (FILE_DIR_BIT). */
bool fw_file_dir_bit(struct ftree *t, const struct owner *who, uint32_t first, uint32_t size);
/* ... a volume label entry; and, the root read, the label the boot sector names but the root lacks. */
void fw_label_entry(struct ftree *t, const uint8_t *e);
void fw_root_label_missing(struct ftree *t);
/* fat_after_end.c: an entry past the end marker: counted, and for a repair listed (see there). */
void fw_past_end(struct ftree *t, const uint8_t *e);
/* n entries of zeros past the end marker, the first at the current entry: as n calls of fw_past_end. */
void fw_past_end_zeros(struct ftree *t, size_t n);

#endif
