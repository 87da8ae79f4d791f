/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check/exfat_walk.h - the exFAT tree walk's state (exfat_tree.c) and the
 * parts of it in other files (exfat_names.c: a directory's names and their
 * duplicates); not installed.  Prefix xw_.
 */
#ifndef FSC_EXFAT_WALK_H
#define FSC_EXFAT_WALK_H

#include "check/exfat_check.h"
#include "io/io.h"

#define MAX_DIR_BYTES (256ull << 20)
/* Read first from each directory cluster: most directories end within it. */
#define DIR_HEAD 4096u

struct job {
	size_t node;		/* (first: dirwalk.c) */
	uint32_t first;
	uint64_t size;		/* 0: the root, by its chain */
	bool nofat;
	struct exfat_where at;	/* the directory's set in its parent (the root: none) */
	bool parent_nofat;	/* the parent's clusters lie in a row */
	bool odd;		/* its size or FirstCluster was reported (a repair looks at it) */
	uint32_t head;		/* bytes of its first cluster asked for ahead (0: none yet) */
	bool held;		/* its first cluster claimed for it when its entry was read (ck_hold_head) */
};

struct nameref {
	uint16_t hash, len;
	size_t off;		/* in the arena of up-cased units */
	uint32_t cluster, entry;
};

struct fileinfo {
	struct exfat_set d;		/* the set decoded */
	bool named;			/* name[] holds the UTF-8 name */
	bool file_shaped;		/* a "directory" a file's size and clusters make a file (file_dir_bit) */
	char name[766];
};

/* Where a directory's end-of-directory marker lies (cluster 0: none seen). */
struct dir_mark {
	uint32_t cluster, entry;
	bool nofat;
};

struct walk {
	struct xvol *v;
	struct dirwalk dw;		/* the directories met and waiting; dw.path: the one being read */
	struct dirtail *tail;		/* NULL while resolving cross-links */
	uint32_t dirs;			/* directories read */
	/* the directory being read */
	size_t node;
	bool is_root, end_seen, after_end_told, nofat;
	bool tail_unread;		/* to_end_marker: bytes past the end marker left unread */
	bool first_cluster;		/* the directory's first cluster (asked for ahead: push_job, ask_ahead) */
	uint32_t used;			/* bytes of its first cluster read */
	size_t siblings;		/* the stack's height when it was taken: its siblings below */
	struct dev_warmth warmth;	/* whether its reads wait for the device: ask ahead then */
	uint32_t cluster, entry;
	struct exfat_asm as;		/* the entry set being assembled */
	unsigned n_bitmap, n_upcase, n_label, n_guid;
	struct nameref *names;
	size_t nnames, capnames;
	uint16_t *arena;
	size_t alen, acap;
	struct fileinfo fi;		/* the set being checked */
	int32_t want_hash;		/* the NameHash the set's name gives, when it differs; else -1 */
	struct nameref *given;		/* new names given to duplicates (units in the arena) */
	size_t ngiven, capgiven;
	struct dir_mark *marks;		/* a repair: each directory's end marker, by walk order */
	size_t capmarks;
	bool bad_name;			/* the set's name is . or .., or holds a forbidden character */
	bool bad_flags;			/* reserved FileAttributes bits, or bad stream flags */
	/* a repair's rounds (the memo hooks, engine.h struct ck_memo_hooks): */
	uint64_t judge;			/* the walk's */
	struct ck_dir_memo dm;		/* the directory being read */
	struct ck_rec hold;		/* what it holds for the walk (exfat_replay.c) */
	bool replay_off;		/* a replay made a finding: none since */
};

/* A finding at an entry of the directory being read (name: the set's, or NULL). */
static inline struct fsc_finding *xw_entry_finding(struct walk *w, enum fsc_problem id, uint32_t cluster,
						   uint32_t entry, const char *name)
{
	struct owner who = { w->dw.path, name, cluster, entry, NULL, 0, false, 0, 0 };

	return ck_add_owner(&w->v->ck, id, &who);
}
#define AT_SET(w, id, name) xw_entry_finding(w, FSC_PR_##id, (w)->as.at.cluster, (w)->as.at.entry, name)
#define AT_ENTRY(w, id) xw_entry_finding(w, FSC_PR_##id, (w)->cluster, (w)->entry, NULL)

/*
 * exfat_names.c: the set's name in one pass: its characters checked,
 * up-cased into the arena (for the duplicate check) and hashed; the index
 * of the first forbidden character, or n; *hash the NameHash it should
 * have.  xw_check_duplicates: the directory's names, once it is read.
 */
/*
 * exfat_replay.c: a repair's first check: what the directory begun (job
 * j) holds, kept as the walk claims and pushes (and its parts past the
 * end marker, checked free), handed to the hook dir_held when it is
 * found sound.  A later check: the record of a directory to replay
 * instead of reading it (false: it is read; else its chain is claimed
 * and *tail_unread is the first check's), a file of it claimed, and the
 * end (raised: the findings made before it began; one made since ends
 * the replays).
 */
void xw_hold_begin(struct walk *w, const struct job *j);
void xw_hold_file(struct walk *w, const struct exfat_set *d);
void xw_hold_dir(struct walk *w, const struct exfat_set *d, uint64_t size, bool odd, const char *name);
void xw_hold_tail(struct walk *w, uint32_t c, uint32_t at);
void xw_hold_end(struct walk *w);
bool xw_replay_begin(struct walk *w, const struct job *j, struct ck_rec_it *it, bool *tail_unread);
void xw_replay_file(struct walk *w, struct ck_rec_it *it, const struct ck_rec_ent *x);
void xw_replay_end(struct walk *w, const struct ck_rec_it *it, bool tail_unread, uint64_t raised);

unsigned xw_take_name(struct walk *w, const uint16_t *units, unsigned n, uint16_t *hash, bool *ascii);
void xw_check_duplicates(struct walk *w);

#endif
