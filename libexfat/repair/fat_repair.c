// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_repair.c - the FAT12/16/32 repair planner.  The check runs first
 * (fat_check.c); each finding the level and the caller allow is then
 * answered by edits, read and written through the plan so that two fixes
 * of one entry or one FAT byte compose:
 *
 *   FAT_DIR_SIZE, FAT_DOT_CLUSTER     the entry's field set
 *   FAT_FAT0                           FAT[0] from the media byte, every copy
 *   FAT_COPIES_DIFFER                  the other copies made the active one
 *   FAT_CHAIN_*                        a chain ended before its break, its
 *                                      loop or where the size ends; a size
 *                                      cut to the chain (no cluster freed:
 *                                      what is cut off stays allocated, lost)
 *   FAT_LOST_CLUSTERS                  with --lost=free only: freed
 *   FAT32_FSINFO_*                     from the FAT as the plan leaves it
 *
 * The volume is checked again through the plan (plan_overlay) to learn
 * the lost clusters and the free count the plan leaves, and whether an
 * error is left.  The fixes are bracketed by the dirty bits (the state
 * byte's bit 0, FAT[1]'s ClnShutBit on FAT16/32), set and synced before
 * the first and cleared after the last only when no error is left.
 * Cross-linked chains, names, long names, labels and lost chains to save
 * are left (and said so by their findings).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"
#include "check/fat_check.h"
#include "fat/fat.h"

/* Entries the walk offered to change: long-name parts (sum >= 0: re-attach), or 0x00 entries to revive. */
struct ent_req {
	size_t finding;
	uint64_t *off;
	uint8_t *first;			/* revive: the first byte each gets */
	size_t n;
	int sum;			/* -1: mark deleted; -2: revive */
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

/* A directory entry astray (no cluster, or an ancestor's): relinked to its own lost directory. */
struct astray_req {
	size_t finding;
	uint64_t off;
	uint32_t parent;
};

struct frp {
	struct rp r;
	struct astray_req *astray;
	size_t nastray, capastray;
	uint32_t *lost0;		/* the lost clusters of the first check */
	size_t nlost0;
	struct cross_req *cross;
	size_t ncross, capcross;
	uint32_t free_at;		/* where the search for a free cluster goes on */
	uint64_t copied;		/* bytes copied for cross-links */
	struct ent_req *reqs;
	size_t nreqs, capreqs;
	const struct fsc_fat_bpb *b;
	struct layout lay;
	unsigned active;
	bool mirrored;
	uint32_t cc;			/* clusters checked */
	uint32_t *written;		/* FAT entries the plan sets in the active copy */
	size_t nwritten, capwritten;
	bool copies_taken;		/* FAT_COPIES_DIFFER is fixed: every copy made the active one */
	uint32_t *lost;			/* the lost clusters of the check through the plan */
	size_t nlost, caplost;
	const char **emptied;		/* directories made empty: what the walk read in them is gone */
	size_t nemptied, capemptied;
};

/* Is x about an entry in (or below) a directory the plan made empty? */
static bool under_emptied(const struct frp *f, const struct fsc_finding *x)
{
	for (size_t i = 0; i < f->nemptied; i++) {
		size_t n = strlen(f->emptied[i]);

		if (x->path && !strncmp(x->path, f->emptied[i], n) && x->path[n] == '/')
			return true;
	}
	return false;
}

static uint64_t copy_byte(const struct frp *f, unsigned k)
{
	return (uint64_t)f->b->reserved * f->b->bytes_per_sector + (uint64_t)k * f->b->fat_size * f->b->bytes_per_sector;
}

static uint32_t eoc(const struct frp *f)
{
	return f->lay.fat_bits == 32 ? 0x0FFFFFFF : f->lay.fat_bits == 16 ? 0xFFFF : 0xFFF;
}

/* The byte of FAT entry c and its width in bytes (FAT12: the two bytes holding it). */
static uint64_t entry_off(const struct frp *f, unsigned k, uint32_t c, size_t *w)
{
	*w = f->lay.fat_bits == 12 ? 2 : f->lay.fat_bits / 8;
	return copy_byte(f, k) + (f->lay.fat_bits == 12 ? (uint64_t)c * 3 / 2 : (uint64_t)c * *w);
}

/* FAT entry c of the active copy as the plan leaves it (raw). */
static uint32_t fat_get(struct frp *f, uint32_t c)
{
	uint8_t e[4] = { 0 };
	size_t w;
	uint64_t off = entry_off(f, f->active, c, &w);

	if (plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0)
		return 0xFFFFFFFF;
	if (f->lay.fat_bits == 12)
		return c & 1 ? get_le16(e, 0) >> 4 : get_le16(e, 0) & 0xFFF;
	return f->lay.fat_bits == 16 ? get_le16(e, 0) : get_le32(e, 0);
}

/* FAT entry c set to v in copy k; FAT32 keeps its top 4 bits. */
static void fat_set_copy(struct frp *f, unsigned k, uint32_t c, uint32_t v, const char *why)
{
	uint8_t e[4] = { 0 };
	size_t w;
	uint64_t off = entry_off(f, k, c, &w);

	if (plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0) {
		f->r.err = -EIO;
		return;
	}
	if (f->lay.fat_bits == 12)
		put_le16(e, 0, (uint16_t)(c & 1 ? (get_le16(e, 0) & 0x000F) | (v & 0xFFF) << 4 :
						  (get_le16(e, 0) & 0xF000) | (v & 0xFFF)));
	else if (f->lay.fat_bits == 16)
		put_le16(e, 0, (uint16_t)v);
	else
		put_le32(e, 0, (get_le32(e, 0) & 0xF0000000u) | (v & 0x0FFFFFFFu));
	put(&f->r, off, e, w, why, false);
}

/*
 * FAT entry c set to v in the active copy; the other copies follow at the
 * end of the fixes (fix_copies), all of them after every write to the
 * active one: a cut before then leaves them as they were, so that a new
 * repair finds the same clusters free there (next_free) and converges.
 */
static void fat_set(struct frp *f, uint32_t c, uint32_t v, const char *why)
{
	if (!grow((void **)&f->written, &f->capwritten, f->nwritten + 1, sizeof(*f->written))) {
		f->r.err = -ENOMEM;
		return;
	}
	f->written[f->nwritten++] = c;
	fat_set_copy(f, f->active, c, v, why);
}

/* The same in every copy at once (FAT[1]'s dirty bits). */
static void fat_set_all(struct frp *f, uint32_t c, uint32_t v, const char *why)
{
	for (unsigned k = 0; k < f->b->num_fats; k++)
		if (f->mirrored || k == f->active)
			fat_set_copy(f, k, c, v, why);
}

/* ---- entries ---- */

/* The 8.3 entry a finding is about: its byte (false: the FAT32 root, or no entry). */
static bool entry_of(const struct frp *f, const struct fsc_finding *x, uint64_t *off)
{
	if (x->loc_kind == FSC_LOC_ENTRY) {
		*off = layout_cluster_byte(&f->lay, (uint32_t)x->loc) + 32ull * x->entry;
		return true;
	}
	if (x->loc_kind == FSC_LOC_BYTE && x->path && x->loc >= f->lay.root_byte &&
	    x->loc < f->lay.root_byte + f->lay.root_bytes) {
		*off = x->loc;
		return true;
	}
	return false;
}

static bool read_entry(struct frp *f, uint64_t off, uint8_t e[32])
{
	if (plan_view_read(f->r.dev, f->r.plan, off, e, 32) == 0)
		return true;
	f->r.err = -EIO;
	return false;
}

static uint32_t entry_first(const struct frp *f, const uint8_t *e)
{
	return get_le16(e, 26) | (f->lay.fat_bits == 32 ? (uint32_t)get_le16(e, 20) << 16 : 0);
}

static void set_first(const struct frp *f, uint8_t *e, uint32_t c)
{
	put_le16(e, 26, (uint16_t)c);
	if (f->lay.fat_bits == 32)
		put_le16(e, 20, (uint16_t)(c >> 16));
}

/* FAT_DIR_SIZE and FAT_DOT_CLUSTER: one field of the entry. */
static void fix_field(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32];

	if (!entry_of(f, x, &off) || !read_entry(f, off, e))
		return;
	if (x->id == FSC_PR_FAT_DIR_SIZE) {
		put_le32(e, 28, 0);
	} else {
		set_first(f, e, (uint32_t)strtoul(x->expected, NULL, 10));
		e[11] |= 0x10;
	}
	put(&f->r, off, e, 32, x->id == FSC_PR_FAT_DIR_SIZE ? "directory size 0" : "the dot entry's cluster", false);
	x->planned = true;
}

/* ---- entries the walk offered ---- */

static void note_req(struct frp *f, size_t finding, const uint64_t *off, const uint8_t *first, size_t n, int sum)
{
	struct ent_req q = { finding, malloc((n ? n : 1) * sizeof(*off)), first ? malloc(n ? n : 1) : NULL, n, sum };

	if (!q.off || (first && !q.first) ||
	    !grow((void **)&f->reqs, &f->capreqs, f->nreqs + 1, sizeof(*f->reqs))) {
		free(q.off);
		free(q.first);
		f->r.err = -ENOMEM;
		return;
	}
	memcpy(q.off, off, n * sizeof(*off));
	if (first)
		memcpy(q.first, first, n);
	f->reqs[f->nreqs++] = q;
}

static void hook_lfn(void *ctx, size_t finding, const uint64_t *off, size_t n, int sum)
{
	note_req(ctx, finding, off, NULL, n, sum);
}

static void hook_revive(void *ctx, size_t finding, const uint64_t *off, const uint8_t *first, size_t n)
{
	note_req(ctx, finding, off, first, n, -2);
}

static void hook_astray(void *ctx, size_t finding, uint64_t off, uint32_t parent)
{
	struct frp *f = ctx;

	if (grow((void **)&f->astray, &f->capastray, f->nastray + 1, sizeof(*f->astray)))
		f->astray[f->nastray++] = (struct astray_req){ finding, off, parent };
}

static void hook_cross(void *ctx, size_t finding, uint64_t off, uint32_t first, const struct chain_res *res)
{
	struct frp *f = ctx;

	if (!res->shared || !grow((void **)&f->cross, &f->capcross, f->ncross + 1, sizeof(*f->cross)))
		return;	/* (out of memory: the cross-link is left) */
	f->cross[f->ncross++] = (struct cross_req){ finding, off, first, res->last_good, res->after_shared,
						    res->good, res->shared };
}

/*
 * Long-name parts re-attached (their checksum the 8.3 entry's: they
 * were whole and name an alias of it) or marked deleted (bytes kept: the
 * file keeps its 8.3 name); 0x00 entries before entries in use marked
 * deleted, so that what follows them counts again.
 */
static void apply_reqs(struct frp *f)
{
	static const char *const why[] = { "revive the entries after the end marker", "long-name part left unused",
					   "long-name part re-attached to its 8.3 entry" };

	for (size_t i = 0; i < f->nreqs && !f->r.err; i++) {
		struct ent_req *q = &f->reqs[i];
		struct fsc_finding *x = &f->r.out->v[q->finding];

		if (under_emptied(f, x) || !wanted(&f->r, x))
			continue;
		for (size_t k = 0; k < q->n; k++) {
			uint8_t b[14];

			if (plan_view_read(f->r.dev, f->r.plan, q->off[k], b, sizeof(b)) < 0) {
				f->r.err = -EIO;
				return;
			}
			if (q->sum >= 0)
				b[13] = (uint8_t)q->sum;
			else
				b[0] = q->first ? q->first[k] : 0xE5;
			put(&f->r, q->off[k], b, sizeof(b), why[q->sum + 2 > 2 ? 2 : q->sum + 2], false);
		}
		x->planned = true;
	}
}

/*
 * FAT_LABEL_ENTRY: an entry with a cluster is a file whose attributes say
 * label (ATTR_ARCHIVE again: its cluster and long name count again); one
 * without, a stray label, is marked deleted.
 */
static void fix_label(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32];

	if (!entry_of(f, x, &off) || !read_entry(f, off, e))
		return;
	if (entry_first(f, e) >= 2 && entry_first(f, e) <= f->cc + 1)
		e[11] = 0x20;
	else
		e[0] = 0xE5;
	put(&f->r, off, e, 32, e[0] == 0xE5 ? "stray volume label entry left unused" : "a file again, not a label", false);
	x->planned = true;
}

/* ---- chains ---- */

struct cwalk {
	uint64_t n;			/* clusters before the end, the break or the loop back */
	uint32_t last;			/* the last of them */
	uint32_t at_need;		/* the need'th (0: not reached) */
	bool ended;			/* at an end mark */
};

static uint32_t step(struct frp *f, uint32_t c)
{
	uint32_t v = layout_fat_value(&f->lay, fat_get(f, c));

	return v >= 2 && v <= f->cc + 1 ? v : 0;
}

/* The chain from first as the plan leaves it, its loop found with Floyd's two pointers (no memory). */
static void chain_walk(struct frp *f, uint32_t first, uint64_t need, struct cwalk *w)
{
	uint32_t slow = first, fast = first, c = first;
	uint64_t total = UINT64_MAX, mu = 0, lam = 1;

	while ((fast = step(f, fast)) && (fast = step(f, fast)) && (slow = step(f, slow)) != fast)
		;
	if (fast) {			/* a loop: where it starts (mu), its length (lam) */
		for (slow = first; slow != fast; mu++) {
			slow = step(f, slow);
			fast = step(f, fast);
		}
		for (fast = step(f, slow); fast != slow; lam++)
			fast = step(f, fast);
		total = mu + lam;
	}
	memset(w, 0, sizeof(*w));
	for (w->n = 1; ; w->n++) {
		if (w->n == need)
			w->at_need = c;
		w->last = c;
		if (w->n == total)
			return;
		uint32_t next = step(f, c);

		if (!next) {
			w->ended = layout_fat_value(&f->lay, fat_get(f, c)) == LAYOUT_END;
			return;
		}
		c = next;
	}
}

/*
 * A cross-link on this chain, as its second owner (the same entry) or its
 * first (named in the finding's detail): the chain is left whole, since a
 * cut would take clusters from the other file (the exFAT repair's rule).
 */
static bool crossed(const struct frp *f, const struct fsc_finding *x)
{
	for (size_t i = 0; i < f->r.out->n; i++) {
		const struct fsc_finding *y = &f->r.out->v[i];

		if (y->id != FSC_PR_FAT_CROSS_LINK)
			continue;
		if ((y->loc_kind == x->loc_kind && y->loc == x->loc && y->entry == x->entry) ||
		    (x->path && !strcmp(y->detail, x->path)))
			return true;
	}
	return false;
}

/* End the chain after its last good cluster; a file's size no longer than what it keeps. */
static void cut_chain(struct frp *f, uint8_t *e, uint32_t first, bool dir, uint64_t need)
{
	struct cwalk w;
	uint64_t cb = f->lay.cluster_bytes;

	chain_walk(f, first, need, &w);
	if (need && w.at_need && w.n > need) {	/* longer than the size: it ends where the size does */
		fat_set(f, w.at_need, eoc(f), "end the chain where the file ends");
		w.n = need;
	} else if (!w.ended) {			/* a break or a loop (else an earlier fix cut it) */
		fat_set(f, w.last, eoc(f), "end the chain before its break");
	}
	if (!dir && e && get_le32(e, 28) > w.n * cb)
		put_le32(e, 28, (uint32_t)(w.n * cb));
}

/* A dot entry (. or ..) of cluster c, dated now. */
static void dot_entry(const struct frp *f, uint8_t *e, bool dotdot, uint32_t c)
{
	uint32_t dt = dos_datetime(f->r.o->now);

	memcpy(e, dotdot ? "..         " : ".          ", 11);
	e[11] = 0x10;
	set_first(f, e, c);
	put_le16(e, 14, (uint16_t)dt);
	put_le16(e, 16, (uint16_t)(dt >> 16));
	put_le16(e, 18, (uint16_t)(dt >> 16));
	put_le16(e, 22, (uint16_t)dt);
	put_le16(e, 24, (uint16_t)(dt >> 16));
}

/*
 * A directory whose first cluster was free in the FAT (dosfstools #175,
 * where fsck.fat makes it an invalid directory the next run deletes):
 * when that cluster does not start with its . and .. it holds nobody's
 * entries, and becomes a valid empty directory (.. is set from the walk of
 * the plan, in the second round).
 */
static bool empty_dir(struct frp *f, uint32_t c)
{
	uint64_t at = layout_cluster_byte(&f->lay, c);
	uint8_t head[64], *d = calloc(1, f->lay.cluster_bytes);

	bool garbage;

	if (!d || plan_view_read(f->r.dev, f->r.plan, at, head, sizeof(head)) < 0) {
		free(d);
		f->r.err = d ? -EIO : -ENOMEM;
		return false;
	}
	garbage = memcmp(head, ".          ", 11) || memcmp(head + 32, "..         ", 11) || !(head[11] & 0x10) ||
		  entry_first(f, head) != c;
	if (garbage) {
		dot_entry(f, d, false, c);
		dot_entry(f, d + 32, true, 0);
		put(&f->r, at, d, f->lay.cluster_bytes, "an empty directory where a free cluster was", false);
	}
	free(d);
	return garbage;
}

/*
 * FAT_DOT_MISSING: a . or .. written into the first or second slot when
 * that slot is free or deleted (.. points to the root until the second
 * round sets it from the walk of the plan); left when a file is there.
 */
static void fix_dots(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[64];
	bool both = !strcmp(x->detail, "the directory has no . and .. entries");

	if (x->loc_kind != FSC_LOC_ENTRY || x->entry > 1 || !entry_of(f, x, &off) ||
	    plan_view_read(f->r.dev, f->r.plan, off, e, both ? 64 : 32) < 0 ||
	    (e[0] && e[0] != 0xE5) || (both && e[32] && e[32] != 0xE5))
		return;
	if (both || x->entry == 0)
		dot_entry(f, e, false, (uint32_t)x->loc);
	if (both || x->entry == 1)
		dot_entry(f, both ? e + 32 : e, true, 0);
	put(&f->r, off, e, both ? 64 : 32, "a missing . or .. entry", false);
	x->planned = true;
}

static void fix_fat_chain(struct frp *f, struct fsc_finding *x)
{
	uint64_t off = 0, cb = f->lay.cluster_bytes;
	bool root = !entry_of(f, x, &off), dir;
	uint8_t e[32], before[32];
	uint32_t first;

	if (crossed(f, x) || (root && (f->lay.fat_bits != 32 || !x->path || strcmp(x->path, "/ (root directory)"))))
		return;
	if (!root && !read_entry(f, off, e))
		return;
	memcpy(before, e, 32);
	dir = root || (e[11] & 0x10);
	first = root ? f->lay.root_cluster : entry_first(f, e);
	if (first < 2 || first > f->cc + 1) {	/* no cluster of its own: a file keeps nothing */
		if (dir)
			return;
		set_first(f, e, 0);
		put_le32(e, 28, 0);
	} else if (x->id == FSC_PR_FAT_CHAIN_LONG && !dir && get_le32(e, 28) == 0) {
		set_first(f, e, 0);		/* size 0: the clusters become lost ones, not the file's */
	} else {
		bool was_free = layout_fat_value(&f->lay, fat_get(f, first)) == LAYOUT_FREE;

		cut_chain(f, root ? NULL : e, first, dir, dir ? 0 : (get_le32(e, 28) + cb - 1) / cb);
		if (dir && !root && was_free && x->id == FSC_PR_FAT_CHAIN_FREE && empty_dir(f, first) && x->path &&
		    grow((void **)&f->emptied, &f->capemptied, f->nemptied + 1, sizeof(*f->emptied)))
			f->emptied[f->nemptied++] = x->path;
	}
	if (!root && memcmp(before, e, 32))
		put(&f->r, off, e, 32, "the entry's size or first cluster", false);
	x->planned = true;
}

/* ---- directories astray ---- */

/* Does cluster c start a directory of its own (. is c) whose .. is parent? */
static bool own_dir(struct frp *f, uint32_t c, uint32_t parent)
{
	uint8_t d[64];
	uint32_t up;

	if (plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), d, sizeof(d)) < 0)
		return false;
	up = entry_first(f, d + 32);
	return !memcmp(d, ".          ", 11) && (d[11] & 0x10) && entry_first(f, d) == c &&
	       !memcmp(d + 32, "..         ", 11) && (d[43] & 0x10) &&
	       (up == parent || (parent == 0 && up == f->lay.root_cluster && f->lay.fat_bits == 32));
}

static uint32_t next_free(struct frp *f);

/* A free cluster made an empty directory under parent, its number in entry e; false: no room. */
static bool new_empty_dir(struct frp *f, uint8_t *e, uint32_t parent)
{
	uint32_t c = next_free(f);
	uint8_t *d = c ? calloc(1, f->lay.cluster_bytes) : NULL;

	if (!d)
		return false;
	dot_entry(f, d, false, c);
	dot_entry(f, d + 32, true, parent);
	put(&f->r, layout_cluster_byte(&f->lay, c), d, f->lay.cluster_bytes, "a new empty directory", false);
	fat_set(f, c, eoc(f), "a new empty directory's cluster");
	set_first(f, e, c);
	free(d);
	return true;
}

/*
 * A subdirectory entry with no first cluster, or whose first cluster is an
 * ancestor's: when exactly one lost cluster starts a directory of its own
 * whose .. is this entry's directory, that is its tree, and the entry is
 * pointed to it (the cluster field was damaged); when none does, it gets
 * a new empty directory (a cycle is cut, no file is lost); when several
 * do, left.
 */
static void relink_dirs(struct frp *f)
{
	for (size_t i = 0; i < f->nastray && !f->r.err; i++) {
		struct astray_req *q = &f->astray[i];
		struct fsc_finding *x = &f->r.out->v[q->finding];
		size_t found = SIZE_MAX, n = 0;
		uint8_t e[32];

		if (under_emptied(f, x) || !wanted(&f->r, x))
			continue;
		for (size_t k = 0; k < f->nlost0 && n < 2; k++)
			if (f->lost0[k] && own_dir(f, f->lost0[k], q->parent))
				found = k, n++;
		if (n > 1 || !read_entry(f, q->off, e))
			continue;
		if (n == 1) {
			set_first(f, e, f->lost0[found]);
			f->lost0[found] = 0;	/* taken */
		} else if (!new_empty_dir(f, e, q->parent)) {
			continue;
		}
		put(&f->r, q->off, e, 32, n ? "the directory's entry pointed to its own lost tree" :
					     "the directory's entry pointed to a new empty directory", false);
		x->planned = true;
	}
}

/* ---- cross-links: the second owner gets copies ---- */

/* Has the plan set c's FAT entry? */
static bool written(const struct frp *f, uint32_t c)
{
	for (size_t i = 0; i < f->nwritten; i++)
		if (f->written[i] == c)
			return true;
	return false;
}

/* Was c lost at the first check (in nobody's chain)?  lost0 is in increasing order. */
static bool was_lost(const struct frp *f, uint32_t c)
{
	size_t lo = 0, hi = f->nlost0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->lost0[mid] == c)
			return true;
		if (f->lost0[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * The next cluster a fix may take: not set by this plan yet, and free in
 * the active copy as the plan leaves it.  With a second copy, which the
 * plan writes only at its end (fix_copies), it must be free there, and in
 * the active copy it may also be lost: that is what a repair cut short
 * leaves (the clusters it had taken, linked in the active copy only), so a
 * new repair takes the same clusters again and converges.  0: none.
 */
static uint32_t next_free(struct frp *f)
{
	bool two = f->mirrored && f->b->num_fats > 1;
	unsigned last = !two ? f->active : f->active ? 0 : f->b->num_fats - 1u;

	for (uint32_t c = f->free_at < 2 ? 2 : f->free_at; c <= f->cc + 1; c++) {
		bool active_free = layout_fat_value(&f->lay, fat_get(f, c)) == LAYOUT_FREE;
		uint8_t e[4] = { 0 };
		size_t w;
		uint32_t raw;

		if (written(f, c) || (!active_free && (!two || !was_lost(f, c))))
			continue;
		if (two) {
			uint64_t off = entry_off(f, last, c, &w);

			if (fsc_dev_read(f->r.dev, off, e, w) < 0)
				continue;
			raw = f->lay.fat_bits == 12 ? (c & 1 ? get_le16(e, 0) >> 4 : get_le16(e, 0) & 0xFFF) :
			      f->lay.fat_bits == 16 ? get_le16(e, 0) : get_le32(e, 0);
			if (layout_fat_value(&f->lay, raw) != LAYOUT_FREE)
				continue;
		}
		f->free_at = c + 1;
		return c;
	}
	f->free_at = f->cc + 2;
	return 0;
}

/* n free clusters into nw (allocated in the FAT as the caller links them); false when there are fewer. */
static bool take_free(struct frp *f, uint32_t *nw, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!(nw[i] = next_free(f)))
			return false;
	return true;
}

/*
 * The shared run copied into new clusters, chained in its place: the file
 * reached second keeps every byte, the first owner keeps its clusters.
 * Left when the free space, or MAX_COPY_BYTES of copies, is too small.
 */
static void copy_shared(struct frp *f, const struct cross_req *q)
{
	uint64_t cb = f->lay.cluster_bytes;
	uint32_t *nw = malloc(q->shared * sizeof(*nw)), src;
	uint8_t *buf = malloc(cb), e[32];

	if (!nw || !buf || f->copied + q->shared * cb > MAX_COPY_BYTES || !take_free(f, nw, q->shared))
		goto out;
	src = q->good ? layout_fat_value(&f->lay, fat_get(f, q->last_good)) : q->first;
	for (uint64_t i = 0; i < q->shared && !f->r.err; i++) {
		if (!src || plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, src), buf, cb) < 0) {
			f->r.err = f->r.err ? f->r.err : -EIO;
			goto out;
		}
		put(&f->r, layout_cluster_byte(&f->lay, nw[i]), buf, cb, "a copy of a cross-linked cluster", false);
		fat_set(f, nw[i], i + 1 < q->shared ? nw[i + 1] : q->after ? q->after : eoc(f), "chain the copies");
		src = step(f, src);
	}
	if (q->good) {
		fat_set(f, q->last_good, nw[0], "link the copies into the file's chain");
	} else if (read_entry(f, q->off, e)) {
		set_first(f, e, nw[0]);
		put(&f->r, q->off, e, 32, "the file's first cluster: its copy", false);
	}
	f->copied += q->shared * cb;
	f->r.out->v[q->finding].planned = true;
out:
	free(nw);
	free(buf);
}

static void fix_crosslinks(struct frp *f)
{
	for (size_t i = 0; i < f->ncross && !f->r.err; i++)
		if (!under_emptied(f, &f->r.out->v[f->cross[i].finding]) && wanted(&f->r, &f->r.out->v[f->cross[i].finding]))
			copy_shared(f, &f->cross[i]);
}

/* ---- the FAT itself ---- */

static void fix_fat0(struct frp *f)
{
	uint32_t mask = f->lay.fat_bits == 12 ? 0xFFF : f->lay.fat_bits == 16 ? 0xFFFF : 0x0FFFFFFF;

	if (take(&f->r, FSC_PR_FAT_FAT0))
		fat_set(f, 0, (mask & ~0xFFu) | f->b->media, "FAT[0] from the media byte");
}

/* The entries the plan set in the active copy, set in every other copy too. */
static void mirror_written(struct frp *f)
{
	for (size_t i = 0; i < f->nwritten && !f->r.err; i++) {
		uint8_t e[4];
		size_t w;
		uint64_t off = entry_off(f, f->active, f->written[i], &w);

		if (plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0) {
			f->r.err = -EIO;
			return;
		}
		for (unsigned k = 0; k < f->b->num_fats; k++)
			if (k != f->active) {
				off = entry_off(f, k, f->written[i], &w);
				put(&f->r, off, e, w, "the other FAT copies follow", false);
			}
	}
}

/*
 * The other copies follow the active one: every sector where they differ
 * when FAT_COPIES_DIFFER is fixed, else the entries the plan set.
 */
static void fix_copies(struct frp *f)
{
	uint32_t ss = f->b->bytes_per_sector;
	uint64_t bytes = layout_fat_bytes(&f->lay, (uint64_t)f->cc + 2);
	uint8_t *a = malloc(ss), *o = malloc(ss);

	if (f->mirrored && !f->copies_taken)
		mirror_written(f);
	if (a && o && f->mirrored && f->copies_taken)
		for (unsigned k = 0; k < f->b->num_fats && !f->r.err; k++)
			for (uint64_t at = 0; k != f->active && at < bytes && !f->r.err; at += ss) {
				if (plan_view_read(f->r.dev, f->r.plan, copy_byte(f, f->active) + at, a, ss) < 0 ||
				    plan_view_read(f->r.dev, f->r.plan, copy_byte(f, k) + at, o, ss) < 0) {
					f->r.err = -EIO;
					break;
				}
				if (memcmp(a, o, ss))
					put(&f->r, copy_byte(f, k) + at, a, ss, "FAT copy made the active one", false);
			}
	if (!a || !o)
		f->r.err = -ENOMEM;
	free(a);
	free(o);
}

/* ---- the volume as the plan leaves it ---- */

static void note_lost(void *ctx, uint32_t c)
{
	struct frp *f = ctx;

	if (!grow((void **)&f->lost, &f->caplost, f->nlost + 1, sizeof(*f->lost)))
		f->r.err = -ENOMEM;
	else
		f->lost[f->nlost++] = c;
}

/* Check through the plan: the lost clusters, the free count; whether an error is left. */
/* (keep, when not NULL, receives the findings; the caller frees them) */
static bool recheck(struct frp *f, struct fat_hooks *after, struct fsc_findings *keep)
{
	struct fsc_dev *ov = plan_overlay(f->r.dev, f->r.plan);
	struct fsc_check_opts o = { .max_per_problem = keep ? UINT32_MAX : 1, .threads = 1 };
	struct fsc_findings fs = { 0 };
	struct fsc_check_summary s;
	bool errors = false, seen[FSC_PR_COUNT] = { false };

	after->lost = note_lost;
	after->ctx = f;
	if (!ov || fat_check(ov, f->r.p, &o, &fs, &s, after) < 0)
		f->r.err = f->r.err ? f->r.err : -ENOMEM;
	for (size_t i = 0; i < fs.n; i++) {
		/* (the other copies follow the active one at the end: their differences are no error then) */
		if (fs.v[i].id == FSC_PR_FAT_COPIES_DIFFER && f->mirrored &&
		    (f->copies_taken || !find(&f->r, FSC_PR_FAT_COPIES_DIFFER)))
			continue;
		errors |= fsc_problem_info(fs.v[i].id)->severity >= FSC_SEV_ERROR;
		seen[fs.v[i].id] = true;
	}
	/* A problem of the check's the plan leaves none of (lost clusters a revived entry owns, say) is fixed by it. */
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (!seen[x->id] && !fsc_findings_has(&f->r.p->findings, x->id) && x->id != FSC_PR_FAT_DIRTY &&
		    x->id != FSC_PR_FAT_FAT1_FLAGS)
			x->planned = true;
	}
	if (keep) {
		*keep = fs;
		fs = (struct fsc_findings){ 0 };
	}
	for (size_t i = 0; i < f->r.p->findings.n; i++)	/* the boot sector's: no fix for them yet */
		errors |= fsc_problem_info(f->r.p->findings.v[i].id)->severity >= FSC_SEV_ERROR;
	fsc_findings_free(&fs);
	fsc_dev_close(ov);
	return errors;
}

/*
 * --lost=free: the lost clusters freed (those the check found, and those
 * the cuts left), only when the repair leaves no error: with one left (a
 * cross-link, entries after an end marker, an entry no longer a file),
 * the lost clusters may well be the data a damaged entry still names.
 */
static uint64_t free_lost(struct frp *f, bool errors)
{
	struct fsc_finding *x = find(&f->r, FSC_PR_FAT_LOST_CLUSTERS);

	if (errors || !f->nlost || !f->r.o->free_lost || f->r.o->level != FSC_REPAIR_ALL ||
	    (x && !take(&f->r, FSC_PR_FAT_LOST_CLUSTERS)))
		return 0;
	for (size_t i = 0; i < f->nlost; i++)
		fat_set(f, f->lost[i], 0, "free a lost cluster (--lost=free)");
	return f->nlost;
}

/* FSInfo from the FAT as the plan leaves it (when the whole volume was there to count). */
static void fix_fsinfo(struct frp *f, const struct fat_hooks *after, uint64_t freed)
{
	const struct fsc_fat_bpb *b = f->b;
	uint64_t off = (uint64_t)b->fsinfo_sector * b->bytes_per_sector;
	bool count = take(&f->r, FSC_PR_FAT32_FSINFO_FREE_COUNT) || freed;
	bool next = take(&f->r, FSC_PR_FAT32_FSINFO_NEXT_FREE);
	uint8_t s[8];

	if (!b->bpb32 || !b->fsinfo_read || b->fsinfo_lead != 0x41615252 || b->fsinfo_struc != 0x61417272 ||
	    plan_view_read(f->r.dev, f->r.plan, off + 488, s, 8) < 0)
		return;
	if (count && after->clusters == f->lay.clusters && get_le32(s, 0) != 0xFFFFFFFFu)
		put_le32(s, 0, (uint32_t)(after->free_clusters + freed));
	if (next)
		put_le32(s, 4, 0xFFFFFFFFu);	/* "no hint": drivers search from the start */
	put(&f->r, off + 488, s, 8, "FSInfo free count and next-free hint", false);
}

/*
 * The dirty bits: the state byte's bit 0 (with an extended BPB) and, on
 * FAT16/32, FAT[1]'s ClnShutBit (clear: dirty); cleaning also sets the
 * hard-error bit when its finding is fixed.
 */
static void dirty_bits(struct frp *f, bool dirty, bool hard, const char *why)
{
	uint64_t at = f->b->bpb32 ? 65 : 37;
	uint32_t clean = f->lay.fat_bits == 16 ? 0x8000 : 0x08000000, v;
	uint8_t s;

	if ((f->b->boot_sig == 0x29 || f->b->boot_sig == 0x28) &&
	    plan_view_read(f->r.dev, f->r.plan, at, &s, 1) == 0) {
		s = (uint8_t)(dirty ? s | 1 : s & ~1);
		put(&f->r, at, &s, 1, why, false);
	}
	if (f->lay.fat_bits == 12)
		return;
	v = fat_get(f, 1);
	v = dirty ? v & ~clean : v | clean | (hard ? clean >> 1 : 0);
	fat_set_all(f, 1, v, why);
}

/* Every fix of an entry, a chain, the FAT and FSInfo; false when nothing else can be planned. */
static void plan_fixes(struct frp *f, bool *errors)
{
	struct fat_hooks after = { 0 };
	struct fsc_findings again = { 0 };
	bool redo = false;
	uint64_t freed;

	/* First the directories whose cluster was free: what the walk read there is nobody's. */
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->id == FSC_PR_FAT_CHAIN_FREE && !under_emptied(f, x) && wanted(&f->r, x))
			fix_fat_chain(f, x);
	}
	f->copies_taken = f->mirrored && take(&f->r, FSC_PR_FAT_COPIES_DIFFER);
	apply_reqs(f);
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->planned || under_emptied(f, x) || !wanted(&f->r, x))
			continue;
		if (x->id == FSC_PR_FAT_DIR_SIZE || x->id == FSC_PR_FAT_DOT_CLUSTER)
			fix_field(f, x);
		else if (x->id == FSC_PR_FAT_LABEL_ENTRY)
			fix_label(f, x);
		else if (x->id == FSC_PR_FAT_DOT_MISSING)
			fix_dots(f, x);
		else if (x->id >= FSC_PR_FAT_CHAIN_RANGE && x->id <= FSC_PR_FAT_CHAIN_LONG &&
			 x->id != FSC_PR_FAT_CROSS_LINK)
			fix_fat_chain(f, x);
	}
	fix_crosslinks(f);
	relink_dirs(f);
	fix_fat0(f);
	*errors = recheck(f, &after, &again);
	/* The second round: a field the fixes themselves leave wrong (the .. of a new empty directory). */
	for (size_t i = 0; i < again.n && !f->r.err; i++)
		if (again.v[i].id == FSC_PR_FAT_DOT_CLUSTER && f->r.o->level == FSC_REPAIR_ALL) {
			fix_field(f, &again.v[i]);
			redo = true;
		}
	fsc_findings_free(&again);
	if (redo) {
		f->nlost = 0;
		*errors = recheck(f, &after, NULL);
	}
	freed = free_lost(f, *errors);
	fix_copies(f);
	fix_fsinfo(f, &after, freed);
}

static bool geometry(struct frp *f)
{
	char why[96];

	if (fat_layout(&f->lay, f->r.dev, f->b, why, sizeof(why)) < 0 || !f->b->num_fats || !f->b->fat_size)
		return false;
	f->mirrored = !(f->b->bpb32 && (f->b->ext_flags & 0x80));
	f->active = f->mirrored || (f->b->ext_flags & 0xF) >= f->b->num_fats ? 0 : f->b->ext_flags & 0xF;
	f->cc = f->lay.held;
	if ((uint64_t)f->cc + 2 > (uint64_t)f->b->fat_size * f->b->bytes_per_sector * 8 / f->lay.fat_bits)
		f->cc = (uint32_t)((uint64_t)f->b->fat_size * f->b->bytes_per_sector * 8 / f->lay.fat_bits - 2);
	return true;
}

static void frp_free(struct frp *f)
{
	for (size_t i = 0; i < f->nreqs; i++) {
		free(f->reqs[i].off);
		free(f->reqs[i].first);
	}
	free(f->reqs);
	free(f->cross);
	free(f->astray);
	free(f->lost0);
	free(f->lost);
	free(f->emptied);
	free(f->written);
}

int fat_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		    const struct fsc_repair_opts *ro, struct fsc_findings *out, struct fsc_check_summary *sum,
		    struct fsc_plan *plan)
{
	struct fsc_check_opts o = co ? *co : (struct fsc_check_opts){ 0 };
	struct frp f = { .r = { .dev = dev, .p = p, .o = ro, .plan = plan, .out = out }, .b = &p->fat };
	size_t start = fsc_plan_count(plan), marked, fixes;
	struct fat_hooks hooks = { .lfn = hook_lfn, .revive = hook_revive, .cross = hook_cross,
				   .dir_astray = hook_astray, .lost = note_lost, .ctx = &f };
	bool errors = true;
	int ret;

	o.max_per_problem = UINT32_MAX;	/* every finding counts: a fix needs its own */
	ret = fat_check_with(dev, p, &o, out, sum, &hooks);
	f.lost0 = f.lost;		/* the first check's lost clusters; the rechecks gather their own */
	f.nlost0 = f.nlost;
	f.lost = NULL;
	f.nlost = f.caplost = 0;
	if (ret < 0 || fsc_findings_has(out, FSC_PR_FAT_FAT_UNREADABLE) || !geometry(&f)) {
		frp_free(&f);
		return ret;	/* nothing can be planned without the FAT */
	}
	dirty_bits(&f, true, false, "mark the volume dirty while repairing");
	marked = fsc_plan_count(plan) - start;
	plan_fixes(&f, &errors);
	fixes = fsc_plan_count(plan) - start - marked;
	/* A fix the dirty mark made already (copies that differed in FAT[1] alone) is a fix all the same. */
	for (size_t i = 0; i < out->n && !fixes; i++)
		fixes = out->v[i].planned;
	if (!fixes)
		plan_truncate(plan, start);
	else if (marked)
		plan_sync_before(plan, start + marked);
	/* Clean again only when no error is left: after a sync, the last writes. */
	if (!errors && !f.r.err) {
		bool dirty = take(&f.r, FSC_PR_FAT_DIRTY), hard = take(&f.r, FSC_PR_FAT_FAT1_FLAGS);
		size_t at = fsc_plan_count(plan);

		if (fixes || dirty || hard)
			dirty_bits(&f, false, hard, "mark the volume clean");
		if (fixes && fsc_plan_count(plan) > at)
			plan_sync_before(plan, at);
	}
	frp_free(&f);
	return f.r.err ? f.r.err : ret;
}
