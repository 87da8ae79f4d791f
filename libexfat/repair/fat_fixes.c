// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_fixes.c - the FAT repair's fixes of one thing each: an entry's field
 * (directory size, a dot entry's cluster, a label that is a file), long-name
 * parts and entries past an end marker that the walk offered (fat_hooks),
 * missing dot entries, a chain cut before its break or where its file ends,
 * a directory on a free cluster made empty, a cross-linked file given its
 * own copies, a directory entry astray pointed to its own lost tree.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "fat/fat.h"

/* FAT_DIR_SIZE, FAT_FILE_DIR_BIT and FAT_DOT_CLUSTER: one field of the entry. */
void fr_fix_field(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32];

	if (!fr_entry_of(f, x, &off) || !fr_read_entry(f, off, e))
		return;
	if (x->id == FSC_PR_FAT_DIR_SIZE) {
		fat_dirent_put_file_size(e, 0);
	} else if (x->id == FSC_PR_FAT_FILE_DIR_BIT) {
		e[FAT_DIR_ATTR] &= (uint8_t)~FAT_ATTR_DIRECTORY;
	} else {
		fr_set_first(f, e, (uint32_t)strtoul(x->expected, NULL, 10));
		e[FAT_DIR_ATTR] |= FAT_ATTR_DIRECTORY;
	}
	rp_put(&f->r, off, e, 32, x->id == FSC_PR_FAT_DIR_SIZE ? "directory size 0" :
		   x->id == FSC_PR_FAT_FILE_DIR_BIT ? "a file again: ATTR_DIRECTORY cleared" : "the dot entry's cluster", false);
	x->planned = true;
}

static void note_req(struct frp *f, size_t finding, const uint64_t *off, const uint8_t *first, size_t n, int sum)
{
	struct ent_req q = { finding, malloc((n ? n : 1) * sizeof(*off)), first ? malloc(n ? n : 1) : NULL, n, sum, 0,
			     { 0 } };

	if (!q.off || (first && !q.first) ||
	    !grow((void **)&f->reqs, &f->capreqs, f->nreqs + 1, sizeof(*f->reqs))) {
		free(q.off);
		free(q.first);
		f->r.err = -ENOMEM;
		return;
	}
	if (n) {
		memcpy(q.off, off, n * sizeof(*off));
		if (first)
			memcpy(q.first, first, n);
	}
	f->reqs[f->nreqs++] = q;
}

void fr_hook_lfn(void *ctx, size_t finding, const uint64_t *off, size_t n, int sum)
{
	note_req(ctx, finding, off, NULL, n, sum);
}

void fr_hook_revive(void *ctx, size_t finding, const uint64_t *off, const uint8_t *first, size_t n)
{
	note_req(ctx, finding, off, first, n, -2);
}

void fr_hook_rename(void *ctx, size_t finding, uint64_t off, const uint8_t raw[11], const uint64_t *parts,
		    size_t nparts)
{
	struct frp *f = ctx;

	note_req(f, finding, parts, NULL, nparts, -3);
	if (!f->r.err) {
		f->reqs[f->nreqs - 1].sfn = off;
		memcpy(f->reqs[f->nreqs - 1].raw, raw, 11);
	}
}

void fr_hook_astray(void *ctx, size_t finding, uint64_t off, uint32_t parent)
{
	struct frp *f = ctx;

	if (grow((void **)&f->astray, &f->capastray, f->nastray + 1, sizeof(*f->astray)))
		f->astray[f->nastray++] = (struct astray_req){ finding, off, parent };
}

void fr_hook_cross(void *ctx, size_t finding, uint64_t off, uint32_t first, const struct chain_res *res)
{
	struct frp *f = ctx;

	/* (shared 0: on past its size into another's cluster, its end mark hit; cut, not copied) */
	if ((!res->shared && (res->broken || res->ended || !res->at_need)) ||
	    !grow((void **)&f->cross, &f->capcross, f->ncross + 1, sizeof(*f->cross)))
		return;	/* (out of memory: the cross-link is left) */
	f->cross[f->ncross++] = (struct cross_req){ finding, off, first, res->last_good, res->after_shared,
						    res->good, res->shared };
}

void fr_hook_shared_head(void *ctx, uint64_t off, uint32_t first, uint32_t size)
{
	struct frp *f = ctx;

	if (grow((void **)&f->heads, &f->capheads, f->nheads + 1, sizeof(*f->heads)))
		f->heads[f->nheads++] = (struct head_req){ off, first, size };
}

/*
 * The new 8.3 name written (the lower-case flags dropped: they described
 * the old one; and the "no 8.3 name" flag 0x20); false: not read.
 */
static bool rename_entry(struct frp *f, const struct ent_req *q)
{
	uint8_t e[32];

	if (!fr_read_entry(f, q->sfn, e))
		return false;
	memcpy(e + FAT_DIR_NAME, q->raw, FAT_DIR_NAME_LEN);
	e[FAT_DIR_NT_RES] &= (uint8_t)~(FAT_NT_RES_LOWER_BASE | FAT_NT_RES_LOWER_EXT | FAT_NT_RES_NO_SFN);
	rp_put(&f->r, q->sfn, e, 32, "a new 8.3 name, unique in the directory", false);
	return true;
}

/*
 * FAT_LFN_LENGTH: the part that holds units 256-260 (number 20) ends the
 * name after 255: the 0x0000 terminator, then 0xFFFF padding.
 */
static void cut_name(struct frp *f, const struct ent_req *q, struct fsc_finding *x)
{
	const unsigned first = FAT_LFN_MAX_UNITS % FAT_LDIR_UNITS, part = FAT_LFN_MAX_UNITS / FAT_LDIR_UNITS + 1;
	uint8_t e[32];

	for (size_t k = 0; k < q->n; k++) {
		if (!fr_read_entry(f, q->off[k], e) || !fat_is_long_name(e) || (e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) != part)
			continue;
		for (unsigned i = first; i < FAT_LDIR_UNITS; i++)
			put_le16(e, fat_ldir_unit_at(i), i == first ? 0x0000 : 0xFFFF);
		rp_put(&f->r, q->off[k], e, 32, "the long name cut to 255 characters", false);
		x->planned = true;
		return;
	}
}

/*
 * Long-name parts re-attached (their checksum the 8.3 entry's: they
 * were whole and name an alias of it) or marked deleted (bytes kept: the
 * file keeps its 8.3 name); 0x00 entries before entries in use marked
 * deleted, so that what follows them counts again.
 */
void fr_apply_reqs(struct frp *f)
{
	static const char *const why[] = { "revive the entries after the end marker", "long-name part left unused",
					   "long-name part re-attached to its 8.3 entry" };

	for (size_t i = 0; i < f->nreqs && !f->r.err; i++) {
		struct ent_req *q = &f->reqs[i];
		struct fsc_finding *x = &f->r.out->v[q->finding];

		if (fr_under_emptied(f, x) || !rp_wanted(&f->r, x))
			continue;
		if (q->sum == -3 && !rename_entry(f, q))
			continue;
		if (x->id == FSC_PR_FAT_LFN_LENGTH) {
			cut_name(f, q, x);
			continue;
		}
		for (size_t k = 0; k < q->n; k++) {
			uint8_t b[FAT_LDIR_CHKSUM + 1];

			if (plan_view_read(f->r.dev, f->r.plan, q->off[k], b, sizeof(b)) < 0) {
				f->r.err = -EIO;
				return;
			}
			if (q->sum == -3)
				b[FAT_LDIR_CHKSUM] = fat_sfn_checksum(q->raw);
			else if (q->sum >= 0)
				b[FAT_LDIR_CHKSUM] = (uint8_t)q->sum;
			else
				b[FAT_LDIR_ORD] = q->first ? q->first[k] : FAT_DIR_FREE;
			rp_put(&f->r, q->off[k], b, sizeof(b), q->sum == -3 ? "the long name follows its new 8.3 name" :
				    why[q->sum + 2 > 2 ? 2 : q->sum + 2], false);
		}
		if (q->sum == -2 && x->id == FSC_PR_FAT_AFTER_END)
			fr_set_aside_stale(f, x);
		x->planned = true;
	}
}

/*
 * FAT_LABEL_ENTRY: an entry whose cluster starts a lost chain is a file
 * whose attributes say label (ATTR_ARCHIVE again: its cluster and long
 * name count again); one without a cluster, or with one another
 * allocation owns, is a stray label (or garbage), marked deleted.
 */
void fr_fix_label(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32];

	if (!fr_entry_of(f, x, &off) || !fr_read_entry(f, off, e))
		return;
	/*
	 * (a file only when nothing else owns its first cluster: garbage a
	 * torn write left in /names, read as a label whose "cluster" was the
	 * directory's own, became a file cross-linked with it; seed 193,
	 * pop-fat16 #19)
	 */
	if (fr_entry_first(f, e) >= 2 && fr_entry_first(f, e) <= f->cc + 1 && fr_was_lost(f, fr_entry_first(f, e)))
		e[FAT_DIR_ATTR] = FAT_ATTR_ARCHIVE;
	else
		e[FAT_DIR_NAME] = FAT_DIR_FREE;
	rp_put(&f->r, off, e, 32, e[FAT_DIR_NAME] == FAT_DIR_FREE ? "stray volume label entry left unused" :
	       "a file again, not a label", false);
	x->planned = true;
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

	fr_chain_walk(f, first, need, &w);
	if (need && w.at_need && w.n > need) {	/* longer than the size: it ends where the size does */
		fr_release(f, fr_step(f, w.at_need));
		fr_fat_set(f, w.at_need, fr_eoc(f), "end the chain where the file ends");
		w.n = need;
	} else if (!w.ended) {			/* a break or a loop (else an earlier fix cut it) */
		fr_fat_set(f, w.last, fr_eoc(f), "end the chain before its break");
	}
	if (!dir && e && fat_dirent_file_size(e) > w.n * cb)
		fat_dirent_put_file_size(e, (uint32_t)(w.n * cb));
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
	garbage = memcmp(head, ".          ", 11) || memcmp(head + 32, "..         ", 11) ||
		  !(head[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) || fr_entry_first(f, head) != c;
	if (garbage) {
		fr_dot_entry(f, d, false, c);
		fr_dot_entry(f, d + 32, true, 0);
		rp_put(&f->r, at, d, f->lay.cluster_bytes, "an empty directory where a free cluster was", false);
	}
	free(d);
	return garbage;
}

/*
 * FAT_ATTRIBUTES: the reserved bits 0x40 and 0x80 cleared; an entry both
 * directory and label with a cluster becomes the directory its cluster
 * starts (. is that cluster), or else a file; without one it is left.
 */
void fr_fix_attributes(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32], d[32];
	uint32_t c;

	if (!fr_entry_of(f, x, &off) || !fr_read_entry(f, off, e))
		return;
	c = fr_entry_first(f, e);
	e[FAT_DIR_ATTR] &= (uint8_t)~FAT_ATTR_RESERVED;
	if ((e[FAT_DIR_ATTR] & FAT_ATTR_DIR_LABEL) == FAT_ATTR_DIR_LABEL) {
		if (c < 2 || c > f->cc + 1 ||
		    plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), d, sizeof(d)) < 0)
			return;
		e[FAT_DIR_ATTR] = (uint8_t)(e[FAT_DIR_ATTR] & ~FAT_ATTR_DIR_LABEL) |
				  (!memcmp(d, ".          ", 11) && fr_entry_first(f, d) == c ? FAT_ATTR_DIRECTORY :
				   FAT_ATTR_ARCHIVE);
	}
	rp_put(&f->r, off, e, 32, "attributes a file or directory can have", false);
	x->planned = true;
}

void fr_fix_lfn_reserved(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[32];

	if (!fr_entry_of(f, x, &off) || !fr_read_entry(f, off, e) || !fat_is_long_name(e))
		return;
	e[FAT_LDIR_TYPE] = 0;
	put_le16(e, FAT_LDIR_FST_CLUS_LO, 0);
	rp_put(&f->r, off, e, 32, "a long-name part's reserved fields made 0", false);
	x->planned = true;
}

/*
 * FAT_DOT_MISSING: a . or .. written into the first or second slot when
 * that slot is free or deleted (.. points to the root until the second
 * round sets it from the walk of the plan); left when a file is there.
 */
void fr_fix_dots(struct frp *f, struct fsc_finding *x)
{
	uint64_t off;
	uint8_t e[64];
	bool both = !strcmp(x->detail, "the directory has no . and .. entries");

	/* (.. with a damaged name: named again, its cluster and dates kept) */
	if (x->loc_kind == FSC_LOC_ENTRY && x->entry == 1 && !strcmp(x->detail, FV_DOTDOT_DAMAGED) &&
	    fr_entry_of(f, x, &off) && fr_read_entry(f, off, e)) {
		memcpy(e + FAT_DIR_NAME, "..         ", FAT_DIR_NAME_LEN);
		e[FAT_DIR_ATTR] = FAT_ATTR_DIRECTORY;
		rp_put(&f->r, off, e, 32, "the .. entry's name", false);
		x->planned = true;
		return;
	}
	/* (. with bits flipped: its name and its own cluster again, its dates kept) */
	if (x->loc_kind == FSC_LOC_ENTRY && x->entry == 0 && !strcmp(x->detail, FV_DOT_DAMAGED) &&
	    fr_entry_of(f, x, &off) && fr_read_entry(f, off, e)) {
		memcpy(e + FAT_DIR_NAME, ".          ", FAT_DIR_NAME_LEN);
		e[FAT_DIR_ATTR] = FAT_ATTR_DIRECTORY;
		fr_set_first(f, e, (uint32_t)x->loc);
		rp_put(&f->r, off, e, 32, "the . entry's name and cluster", false);
		x->planned = true;
		return;
	}
	if (x->loc_kind != FSC_LOC_ENTRY || x->entry > 1 || !fr_entry_of(f, x, &off) ||
	    plan_view_read(f->r.dev, f->r.plan, off, e, both ? 64 : 32) < 0 ||
	    (e[FAT_DIR_NAME] && e[FAT_DIR_NAME] != FAT_DIR_FREE) ||
	    (both && e[FAT_DIR_ENTRY_SIZE] && e[FAT_DIR_ENTRY_SIZE] != FAT_DIR_FREE))
		return;
	if (both || x->entry == 0)
		fr_dot_entry(f, e, false, (uint32_t)x->loc);
	if (both || x->entry == 1)
		fr_dot_entry(f, both ? e + 32 : e, true, 0);
	rp_put(&f->r, off, e, both ? 64 : 32, "a missing . or .. entry", false);
	x->planned = true;
}

void fr_fix_chain(struct frp *f, struct fsc_finding *x)
{
	uint64_t off = 0, cb = f->lay.cluster_bytes;
	bool root = !fr_entry_of(f, x, &off), dir;
	uint8_t e[32] = { 0 }, before[32];	/* (the root has no entry: e stays zeros) */
	uint32_t first;

	if (crossed(f, x) || (root && (f->lay.fat_bits != 32 || !x->path || strcmp(x->path, "/ (root directory)"))))
		return;
	if (!root && !fr_read_entry(f, off, e))
		return;
	memcpy(before, e, 32);
	dir = root || (e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY);
	first = root ? f->lay.root_cluster : fr_entry_first(f, e);
	if (first < 2 || first > f->cc + 1) {	/* no cluster of its own: a file keeps nothing */
		if (dir)
			return;
		fr_set_first(f, e, 0);
		fat_dirent_put_file_size(e, 0);
	} else if (x->id == FSC_PR_FAT_CHAIN_LONG && !dir && fat_dirent_file_size(e) == 0) {
		fr_release(f, first);
		fr_set_first(f, e, 0);		/* size 0: the clusters become lost ones, not the file's */
	} else {
		bool was_free = layout_fat_value(&f->lay, fr_fat_get(f, first)) == LAYOUT_FREE;

		cut_chain(f, root ? NULL : e, first, dir, dir ? 0 : (fat_dirent_file_size(e) + cb - 1) / cb);
		if (dir && !root && was_free && x->id == FSC_PR_FAT_CHAIN_FREE && empty_dir(f, first) && x->path &&
		    grow((void **)&f->emptied, &f->capemptied, f->nemptied + 1, sizeof(*f->emptied)))
			f->emptied[f->nemptied++] = x->path;
	}
	if (!root && memcmp(before, e, 32))
		rp_put(&f->r, off, e, 32, "the entry's size or first cluster", false);
	x->planned = true;
}

/* Does cluster c start a directory of its own (. is c) whose .. is parent? */
static bool own_dir(struct frp *f, uint32_t c, uint32_t parent)
{
	uint8_t d[64];
	uint32_t up;

	return plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), d, sizeof(d)) == 0 &&
	       fat_dir_start(d, c, f->lay.fat_bits, &up) &&
	       (up == parent || (parent == 0 && up == f->lay.root_cluster && f->lay.fat_bits == 32));
}

/*
 * A directory walked whose first slot holds no . at all (FAT_DOT_MISSING,
 * offered as astray): when exactly one lost cluster a bit or two from its
 * first cluster starts a directory of its own whose .. is this entry's
 * directory, the cluster field was flipped off that tree: the entry is
 * pointed back to it, and what the walk read where it pointed (a file's
 * bytes: seed 641, pop-fat16 #50, /unicode 72 -> 73, café.txt's cluster,
 * read as entries to set aside) waits for the next round.  Else the dots
 * are made as before.  Runs before any entry is set aside.
 */
void fr_relink_undotted(struct frp *f)
{
	for (size_t i = 0; i < f->nastray && !f->r.err; i++) {
		struct astray_req *q = &f->astray[i];
		struct fsc_finding *x = &f->r.out->v[q->finding];
		size_t found = SIZE_MAX, n = 0;
		uint32_t cur;
		uint8_t e[32];

		if (x->id != FSC_PR_FAT_DOT_MISSING || x->planned || fr_under_emptied(f, x) || !rp_wanted(&f->r, x) ||
		    !fr_read_entry(f, q->off, e))
			continue;
		cur = fr_entry_first(f, e);
		for (size_t k = 0; k < f->nlost0 && n < 2; k++)
			if (f->lost0[k] && __builtin_popcount(f->lost0[k] ^ cur) <= 2 && own_dir(f, f->lost0[k], q->parent))
				found = k, n++;
		if (n != 1)
			continue;
		fr_set_first(f, e, f->lost0[found]);
		f->lost0[found] = 0;	/* taken */
		rp_put(&f->r, q->off, e, 32, "the directory's entry pointed back to its own lost tree (a flipped cluster field)",
		       false);
		x->planned = true;
		if (x->path && grow((void **)&f->recut, &f->caprecut, f->nrecut + 1, sizeof(*f->recut)))
			f->recut[f->nrecut++] = x->path;
	}
}

/* A free cluster made an empty directory under parent, its number in entry e; false: no room. */
static bool new_empty_dir(struct frp *f, uint8_t *e, uint32_t parent)
{
	uint32_t c = fr_next_free(f);
	uint8_t *d = c ? calloc(1, f->lay.cluster_bytes) : NULL;

	if (!d)
		return false;
	fr_dot_entry(f, d, false, c);
	fr_dot_entry(f, d + 32, true, parent);
	rp_put(&f->r, layout_cluster_byte(&f->lay, c), d, f->lay.cluster_bytes, "a new empty directory", false);
	fr_fat_set(f, c, fr_eoc(f), "a new empty directory's cluster");
	fr_set_first(f, e, c);
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
void fr_relink_dirs(struct frp *f)
{
	for (size_t i = 0; i < f->nastray && !f->r.err; i++) {
		struct astray_req *q = &f->astray[i];
		struct fsc_finding *x = &f->r.out->v[q->finding];
		size_t found = SIZE_MAX, n = 0;
		uint8_t e[32];

		if (x->id == FSC_PR_FAT_DOT_MISSING || fr_under_emptied(f, x) || !rp_wanted(&f->r, x))
			continue;
		for (size_t k = 0; k < f->nlost0 && n < 2; k++)
			if (f->lost0[k] && own_dir(f, f->lost0[k], q->parent))
				found = k, n++;
		if (n > 1 || !fr_read_entry(f, q->off, e))
			continue;
		if (n == 1) {
			fr_set_first(f, e, f->lost0[found]);
			f->lost0[found] = 0;	/* taken */
		} else if (!new_empty_dir(f, e, q->parent)) {
			continue;
		}
		rp_put(&f->r, q->off, e, 32, n ? "the directory's entry pointed to its own lost tree" :
					     "the directory's entry pointed to a new empty directory", false);
		x->planned = true;
	}
}

/*
 * The shared run copied into new clusters, chained in its place: the file
 * reached second keeps every byte, the first owner keeps its clusters.
 * Left when the free space, or MAX_COPY_BYTES of copies, is too small.
 */
static void copy_shared(struct frp *f, const struct cross_req *q)
{
	uint64_t cb = f->lay.cluster_bytes, i;
	uint32_t *nw = malloc(2 * q->shared * sizeof(*nw)), *src = nw ? nw + q->shared : NULL;
	uint8_t *buf = malloc(cb), e[32];
	struct layout_chain it;

	if (!nw || !buf || f->copied + q->shared * cb > MAX_COPY_BYTES)
		goto out;
	/* the shared run, in the file's order: whole, or nothing is copied */
	fr_chain(&it, f, q->good ? layout_fat_value(&f->lay, fr_fat_get(f, q->last_good)) : q->first);
	for (i = 0; i < q->shared && layout_chain_next(&it, &src[i]);)
		i++;
	if (i < q->shared || !fr_take_free(f, nw, q->shared))
		goto out;
	for (i = 0; i < q->shared && !f->r.err; i++) {
		if (plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, src[i]), buf, cb) < 0) {
			f->r.err = f->r.err ? f->r.err : -EIO;
			goto out;
		}
		rp_put(&f->r, layout_cluster_byte(&f->lay, nw[i]), buf, cb, "a copy of a cross-linked cluster", false);
		fr_fat_set(f, nw[i], i + 1 < q->shared ? nw[i + 1] : q->after ? q->after : fr_eoc(f), "chain the copies");
	}
	if (q->good) {
		fr_fat_set(f, q->last_good, nw[0], "link the copies into the file's chain");
	} else if (fr_read_entry(f, q->off, e)) {
		fr_set_first(f, e, nw[0]);
		rp_put(&f->r, q->off, e, 32, "the file's first cluster: its copy", false);
	}
	f->copied += q->shared * cb;
	f->r.out->v[q->finding].planned = true;
out:
	free(nw);
	free(buf);
}

/*
 * A file's chain that ran on past its size into a cluster another had
 * first (its end mark hit): ended where its size ends; what follows is
 * the other's, not released.
 */
static void end_at_size(struct frp *f, const struct cross_req *q)
{
	uint64_t cb = f->lay.cluster_bytes;
	uint8_t e[32];
	struct cwalk w;

	if (!fr_read_entry(f, q->off, e) || (e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY))
		return;
	fr_chain_walk(f, q->first, ((uint64_t)fat_dirent_file_size(e) + cb - 1) / cb, &w);
	if (!w.at_need)
		return;
	fr_fat_set(f, w.at_need, fr_eoc(f), "end the chain where the file ends (it ran on into another's)");
	f->r.out->v[q->finding].planned = true;
}

void fr_fix_crosslinks(struct frp *f)
{
	for (size_t i = 0; i < f->ncross && !f->r.err; i++) {
		const struct cross_req *q = &f->cross[i];

		if (fr_under_emptied(f, &f->r.out->v[q->finding]) || !rp_wanted(&f->r, &f->r.out->v[q->finding]))
			continue;
		if (q->shared)
			copy_shared(f, q);
		else
			end_at_size(f, q);
	}
}

/* ---- entries that are no file at all ---- */

/*
 * How many of an 8.3 entry's fields no file could have: a name Windows
 * refuses, reserved attribute bits (or directory and label at once), a
 * first cluster outside the data area (or none for a file with bytes), a
 * directory with a size, a file larger than the volume.  One is damage to
 * a file; two or more, an entry that is no file (garbage where an entry
 * was, a torn sector).
 */
static unsigned entry_defects(const struct frp *f, const uint8_t *e)
{
	uint32_t c = fr_entry_first(f, e), size = fat_dirent_file_size(e);
	uint8_t attr = e[FAT_DIR_ATTR];
	bool dir = attr & FAT_ATTR_DIRECTORY;

	return (fv_sfn_invalid(e) != NULL) +
	       ((attr & FAT_ATTR_RESERVED) || (attr & FAT_ATTR_DIR_LABEL) == FAT_ATTR_DIR_LABEL) +
	       (c == 1 || c > f->cc + 1 || (!c && size && !dir)) + (dir && size) +
	       (!dir && (uint64_t)size > (uint64_t)f->cc * f->lay.cluster_bytes);
}

/*
 * Does the directory entry e name a directory whose first cluster says so
 * itself (its . entry there, naming that cluster)?  Such an entry is a
 * directory's however damaged its name and size: setting it aside would
 * lose the tree, which a lost-directory relink would then bring back
 * through the same entry, round after round.
 */
static bool names_real_dir(struct frp *f, const uint8_t *e)
{
	uint32_t c = fr_entry_first(f, e);
	uint8_t d[32];

	return (e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) && c >= 2 && c <= f->cc + 1 &&
	       plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), d, sizeof(d)) == 0 &&
	       !memcmp(d, ".          ", 11) && (d[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) && fr_entry_first(f, d) == c;
}

/* Is the entry at off slot 0 or 1 of a directory's first cluster (its other dot entry there)?  0, 1, or -1. */
static int dot_slot(struct frp *f, const struct fsc_finding *x)
{
	uint8_t d[64];

	if (x->loc_kind != FSC_LOC_ENTRY || x->entry > 1 ||
	    plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, (uint32_t)x->loc), d, sizeof(d)) < 0)
		return -1;
	if (x->entry == 1 && !memcmp(d, ".          ", 11) && fr_entry_first(f, d) == (uint32_t)x->loc)
		return 1;
	if (x->entry == 0 && !memcmp(d + 32, "..         ", 11))
		return 0;
	return -1;
}

/*
 * Entries that are no file (entry_defects: two or more) set aside: marked
 * deleted (their other bytes kept, for undelete tools); what their
 * clusters were, if any were theirs, is lost clusters, which -y saves.
 * One where a directory's . or .. belongs becomes that entry again (..
 * names the root until a later round sets it from the walk).  Nothing
 * else is fixed in a round that set one aside: what the walk read through
 * such an entry (a "directory" of garbage, a cross-link with a real file)
 * is not there in the next round.  The number set aside.
 */
size_t fr_set_aside(struct frp *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];
		uint64_t off;
		uint8_t e[32];
		int dot;

		if ((x->id != FSC_PR_FAT_SHORT_NAME && x->id != FSC_PR_FAT_ATTRIBUTES && x->id != FSC_PR_FAT_CHAIN_RANGE &&
		     x->id != FSC_PR_FAT_DIR_SIZE && x->id != FSC_PR_FAT_DOT_MISSING) || fr_under_emptied(f, x) ||
		    !fr_entry_of(f, x, &off) ||
		    !fr_read_entry(f, off, e) || e[FAT_DIR_NAME] == FAT_DIR_FREE || e[FAT_DIR_NAME] == FAT_DIR_LAST_FREE ||
		    fat_is_long_name(e))
			continue;
		/*
		 * where . or .. belongs, one field no file could have is enough:
		 * the walk's FAT_DOT_MISSING says the slot is one (its other dot
		 * slot may be garbage too), else the other dot entry there does
		 */
		dot = x->id == FSC_PR_FAT_DOT_MISSING && x->loc_kind == FSC_LOC_ENTRY && x->entry <= 1 ? (int)x->entry :
		      dot_slot(f, x);
		if (entry_defects(f, e) < (dot >= 0 ? 1u : 2u) || (dot < 0 && names_real_dir(f, e)) || !rp_wanted(&f->r, x))
			continue;
		if (dot >= 0) {
			fr_dot_entry(f, e, dot == 1, dot == 1 ? 0 : (uint32_t)x->loc);
			rp_put(&f->r, off, e, 32, dot ? "a .. entry again where garbage was" : "a . entry again where garbage was",
			    false);
		} else {
			e[FAT_DIR_NAME] = FAT_DIR_FREE;
			rp_put(&f->r, off, e, 32, "set aside an entry that is no file (marked deleted; its bytes stay)", false);
		}
		x->planned = true;
		n++;
	}
	return n;
}

/* ---- the volume label ---- */

/*
 * Could fsck.fat and Windows take these 11 bytes as a label: no control
 * character, none of " * + , . / : ; < = > ? [ \ ] |, no lower case, no
 * byte past 0x7F (fsck.fat 4.2 refuses them), not blank, no leading space?
 */
static bool label_ok(const uint8_t *l)
{
	bool any = false;

	if (l[0] == ' ')
		return false;
	for (unsigned i = 0; i < 11; i++) {
		if (l[i] < 0x20 || l[i] >= 0x80 || (l[i] >= 'a' && l[i] <= 'z') || strchr("\"*+,./:;<=>?[\\]|", l[i]))
			return false;
		any |= l[i] != ' ';
	}
	return any;
}

/*
 * BS_VolLab (and the FAT32 backup's) set to the 11 bytes l.  A boot
 * sector whose BS_BootSig is 0x28 has a serial but no label field: it
 * gets one (0x29, and BS_FilSysType when it does not name the FAT), its
 * serial kept, where fsck.fat sets the serial to 0.
 */
static void put_boot_label(struct frp *f, const uint8_t *l, const char *why)
{
	const struct fsc_fat_bpb *b = f->b;
	uint64_t lab = b->bpb32 ? FAT32_BS_VOL_LAB : FAT16_BS_VOL_LAB;
	uint64_t sig = b->bpb32 ? FAT32_BS_BOOT_SIG : FAT16_BS_BOOT_SIG;
	uint64_t type = b->bpb32 ? FAT32_BS_FIL_SYS_TYPE : FAT16_BS_FIL_SYS_TYPE;
	const char *name = f->lay.fat_bits == 32 ? "FAT32   " : f->lay.fat_bits == 16 ? "FAT16   " : "FAT12   ";
	static const uint8_t sig29 = 0x29;
	bool backup = b->bpb32 && b->backup_sector && b->backup_sector < b->reserved;

	for (unsigned k = 0; k < 1u + backup; k++) {
		uint64_t base = k ? (uint64_t)b->backup_sector * b->bytes_per_sector : 0;

		if (b->boot_sig == 0x28) {
			rp_put(&f->r, base + sig, &sig29, 1, "BS_BootSig 0x29: the boot sector gets a label field", false);
			if (strncmp(b->fs_type, name, 5) != 0)
				rp_put(&f->r, base + type, name, 8, "BS_FilSysType with the label field", false);
		}
		rp_put(&f->r, base + lab, l, 11, why, false);
	}
}

static void label_mismatch(struct frp *f, struct fsc_finding *x, const uint8_t *boot)
{
	uint64_t off;
	uint8_t e[32];

	if (!fr_entry_of(f, x, &off) || !fr_read_entry(f, off, e))
		return;
	if (label_ok(e)) {
		put_boot_label(f, e, "the root's volume label in the boot sector (Windows and blkid show the root's)");
	} else if (f->b->boot_sig == 0x29 && label_ok(boot)) {
		memcpy(e, boot, 11);
		rp_put(&f->r, off, e, 32, "the boot sector's volume label in the root (the root's was damaged)", false);
	} else {
		return;
	}
	x->planned = true;
}

static void label_root_missing(struct frp *f, struct fsc_finding *x, const uint8_t *boot)
{
	uint64_t slot;
	uint8_t e[32];

	if (label_ok(boot) && fr_root_slot(f, &slot)) {
		fr_dot_entry(f, e, false, 0);	/* (the dates) */
		memcpy(e + FAT_DIR_NAME, boot, FAT_DIR_NAME_LEN);
		e[FAT_DIR_ATTR] = FAT_ATTR_VOLUME_ID;
		rp_put(&f->r, slot, e, 32, "the boot sector's volume label in the root again", false);
	} else if (!f->r.err) {
		put_boot_label(f, (const uint8_t *)"NO NAME    ", "no volume label in the boot sector either (NO NAME)");
	}
	x->planned = true;
}

/*
 * FAT_LABEL_MISMATCH and FAT_LABEL_ROOT_MISSING (-y): the two labels made
 * one, as fsck.fat and Windows agree: the root's wins, unless it is one no
 * label can be and the boot sector's is sound; a boot sector label with
 * no root entry is written to the root again.
 */
void fr_fix_labels(struct frp *f)
{
	uint8_t boot[11];

	if (f->r.o->level != FSC_REPAIR_ALL || (f->b->boot_sig != 0x29 && f->b->boot_sig != 0x28) ||
	    plan_view_read(f->r.dev, f->r.plan, f->b->bpb32 ? FAT32_BS_VOL_LAB : FAT16_BS_VOL_LAB, boot, 11) < 0)
		return;
	for (size_t i = 0; i < f->r.out->n && !f->r.err; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->id == FSC_PR_FAT_LABEL_MISMATCH && rp_wanted(&f->r, x))
			label_mismatch(f, x, boot);
		else if (x->id == FSC_PR_FAT_LABEL_ROOT_MISSING && rp_wanted(&f->r, x))
			label_root_missing(f, x, boot);
	}
}
