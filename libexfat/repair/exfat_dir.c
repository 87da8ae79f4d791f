// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_dir.c - a directory's chain and size repaired.  The walk reports
 * each directory it read (note_dir); at its end a directory whose chain
 * breaks (a free, bad or out-of-range link, a loop), runs into clusters
 * another allocation claimed first (a cycle back to an ancestor, a cluster
 * of a file), or whose size disagrees with its chain keeps the clusters it
 * has up to the problem: its chain is ended there and DataLength and
 * ValidDataLength become those clusters; with no break, the size follows
 * the chain (the walk read all of it).  Nothing is copied for a
 * directory: a copy of entries would give every file in them two owners.
 * A directory left with no cluster of its own gets a new, empty one, so
 * that its entry stays valid (what it pointed to is still its first
 * owner's); so does a directory whose entry gives it no cluster.  The clusters a cut directory claimed past the cut are lost
 * clusters, which -y saves.  The root's chain (it has no size) is ended
 * at its break.
 *
 * Consumes: the walk's chain results and the DIR_SIZE, CHAIN_*, CROSS_LINK
 * and ROOT_CHAIN findings.  Produces: plan edits (FAT end marks, a new
 * cluster, the directory's set), the findings planned.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

static bool dir_problem(enum fsc_problem id)
{
	return id == FSC_PR_EXFAT_DIR_SIZE || id == FSC_PR_EXFAT_CROSS_LINK || id == FSC_PR_EXFAT_CHAIN_FREE ||
	       id == FSC_PR_EXFAT_CHAIN_BAD || id == FSC_PR_EXFAT_CHAIN_RANGE || id == FSC_PR_EXFAT_CHAIN_LOOP ||
	       id == FSC_PR_EXFAT_CHAIN_SHORT || id == FSC_PR_EXFAT_CHAIN_LONG || id == FSC_PR_EXFAT_FIRST_CLUSTER;
}

/* Any finding about the directory's set at at; with wanted_only, one that may be fixed. */
static bool dir_findings(const struct rp *r, const struct exfat_where *at, bool wanted_only)
{
	for (size_t i = 0; i < r->out->n; i++) {
		const struct fsc_finding *f = &r->out->v[i];

		if (dir_problem(f->id) && f->loc_kind == FSC_LOC_ENTRY && f->loc == at->cluster &&
		    f->entry == at->entry && (!wanted_only || rp_wanted(r, f)))
			return true;
	}
	return false;
}

void xr_note_dir(void *ctx, const struct exfat_where *at, bool parent_nofat, const struct chain_res *chain,
		 bool file, const char *path)
{
	struct rp *r = ctx;
	struct dir_fix *d;

	if (!chain->broken && !chain->crossed && (!at || !dir_findings(r, at, false)))
		return;
	if (!grow((void **)&r->dirs, &r->capdirs, r->ndirs + 1, sizeof(*r->dirs)) || !(path = strdup(path))) {
		r->err = -ENOMEM;
		return;
	}
	d = &r->dirs[r->ndirs++];
	d->at = at ? *at : (struct exfat_where){ 0, 0, 0 };
	d->parent_nofat = parent_nofat;
	d->chain = *chain;
	d->file = file;
	d->path = (char *)path;
}

/*
 * The set whose primary lies at at, as the plan so far leaves it, its
 * entries found along the parent's clusters (in a row, or by the FAT).
 */
static bool read_set(struct rp *r, struct xvol *v, const struct exfat_where *at, bool parent_nofat,
		     struct exfat_asm *a)
{
	struct exfat_where w = *at;
	struct layout_chain it;
	unsigned n = 1;

	a->count = 0;
	a->at = *at;
	xr_chain(&it, v, w.cluster, parent_nofat);
	if (!layout_chain_next(&it, &w.cluster))
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (i && ++w.entry == v->cb / 32) {
			if (!layout_chain_next(&it, &w.cluster))
				return false;
			w.entry = 0;
		}
		w.offset = xv_cluster_byte(v, w.cluster) + 32ull * w.entry;
		if (plan_view_read(r->dev, r->plan, w.offset, a->set + 32 * i, 32) < 0)
			return false;
		if (i == 0)
			n = exfat_secondary_count(a->set) + 1u;
		a->pos[i] = w;
	}
	a->count = n;
	return n >= 3 && a->set[0] == EXFAT_T_FILE && a->set[EXFAT_SET_STREAM_AT] == EXFAT_T_STREAM &&
	       (exfat_file_attributes(a->set) & EXFAT_ATTR_DIRECTORY);
}

/*
 * The root: a flipped link into another allocation taken back; else its
 * chain ended at its last cluster before the break, or before the
 * directory whose first cluster it ran into.
 */
static void fix_root(struct rp *r, struct xvol *v, const struct dir_fix *d)
{
	uint8_t e[4];

	if (!d->chain.last_good ||
	    !(d->chain.crossed ? rp_take_owned(r, FSC_PR_EXFAT_CROSS_LINK, "/ (root directory)") :
				 rp_take(r, FSC_PR_EXFAT_ROOT_CHAIN)) ||
	    xr_relink_into_xlink(r, v, v->p->ex.root_cluster, &d->chain, 0, "the root directory"))
		return;
	exfat_fat_cell_put(e, 0xFFFFFFFF);
	rp_put(r, v->fat_byte + 4ull * d->chain.last_good, e, 4, "end the root directory's cluster chain", false);
}

/* A new empty cluster for a directory left without one; 0 when there is no room. */
uint32_t xr_empty_cluster(struct rp *r, struct xvol *v, const char *path)
{
	uint32_t c;
	uint8_t *zero = calloc(1, v->cb);
	char why[200];

	if (!zero) {
		r->err = -ENOMEM;
		return 0;
	}
	if (!rp_alloc_clusters(r, v, &c, 1, "a new cluster for a directory that has none of its own"))
		c = 0;
	snprintf(why, sizeof(why), "an empty cluster for %.160s", path);
	if (c)
		rp_put(r, xv_cluster_byte(v, c), zero, v->cb, why, false);
	free(zero);
	return c;
}

/* One directory: returns true when a cross-link of it was answered. */
static bool fix_one(struct rp *r, struct xvol *v, const struct dir_fix *d)
{
	struct exfat_asm *a = malloc(sizeof(*a));
	const struct chain_res *ch = &d->chain;
	uint8_t set[256 * 32];
	bool cut = ch->broken || ch->crossed, nofat, ok = false;
	uint64_t kept;
	uint32_t end_at = 0, first = 0;
	char why[320];

	if (!a) {
		r->err = -ENOMEM;
		return false;
	}
	if (!dir_findings(r, &d->at, true) || !read_set(r, v, &d->at, d->parent_nofat, a))
		goto out;
	memcpy(set, a->set, 32ull * a->count);
	nofat = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
	/* Uncut, the size follows the chain: the walk read every cluster of it. */
	kept = cut ? ch->good : ch->clusters;
	if (kept > (256ull << 20) / v->cb)
		goto out;
	if (!nofat && kept && cut)
		end_at = ch->last_good;
	/*
	 * No cluster and DataLength 0: no directory ever had that (it needs a
	 * cluster), an empty file has it all the time: the directory bit of
	 * FileAttributes is what is wrong (seed 139, pop-c32m #10: empty.txt
	 * a "directory"); it becomes the empty file again, and no cluster is
	 * taken for it.
	 */
	if ((!ch->clusters && !exfat_stream_first_cluster(EXFAT_STREAM_OF(set)) &&
	     !exfat_stream_data_length(EXFAT_STREAM_OF(set))) || d->file) {
		bool empty = !ch->clusters;

		exfat_file_put_attributes(set, exfat_file_attributes(set) & (uint16_t)~EXFAT_ATTR_DIRECTORY);
		if (empty)
			EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
		exfat_primary_put_set_checksum(set, fsc_exfat_set_checksum(set, a->count));
		snprintf(why, sizeof(why), "FileAttributes (a file: %s), SetChecksum: %.160s",
			 empty ? "no cluster, no size" : "a file's size for its clusters", d->path);
		rp_write_set(r, a, set, why, false);
		rp_remember_set(r, d->at.offset, SF_DIRSIZE | SF_CHECKSUM);
		goto out;
	}
	if (ch->crossed && ch->after_shared) {	/* its own clusters past the shared ones: lost */
		cluster_unclaim(v, ch->after_shared);
		xr_unclaim_after(r, v, ch->after_shared, ch->clusters);
		r->unclaimed = true;
	}
	if (!kept && !(first = xr_empty_cluster(r, v, d->path)))
		goto out;
	if (end_at) {
		uint8_t e[4];

		exfat_fat_cell_put(e, 0xFFFFFFFF);
		snprintf(why, sizeof(why), "end the directory's cluster chain: %.160s", d->path);
		rp_put(r, v->fat_byte + 4ull * end_at, e, 4, why, false);
	}
	if (first) {
		exfat_stream_put_first_cluster(EXFAT_STREAM_OF(set), first);
		EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
		kept = 1;
	}
	exfat_stream_put_valid_data_length(EXFAT_STREAM_OF(set), kept * v->cb);
	exfat_stream_put_data_length(EXFAT_STREAM_OF(set), kept * v->cb);
	exfat_primary_put_set_checksum(set, fsc_exfat_set_checksum(set, a->count));
	snprintf(why, sizeof(why), "%sDataLength, ValidDataLength, SetChecksum: %.160s",
		 first ? "FirstCluster (a new empty cluster), " : "", d->path);
	rp_write_set(r, a, set, why, first != 0);
	rp_remember_set(r, d->at.offset, SF_CHAIN | SF_CROSS | SF_DIRSIZE | SF_FIRST);
	ok = ch->crossed;
out:
	free(a);
	return ok;
}

/*
 * Directories whose chain crossed another allocation's first cluster (a
 * directory's, held for it when its entry was read) by a link one or two
 * flipped bits from the only lost chain head there: the link taken back
 * before anything else is planned, the round a mended one (what the walk
 * read short of the rest, a set cut by the directory's end, waits for the
 * next).  True when one was.
 */
bool xr_relink_dirs_first(struct rp *r, struct xvol *v)
{
	struct exfat_asm *a = malloc(sizeof(*a));
	bool any = false;

	if (!a) {
		r->err = -ENOMEM;
		return false;
	}
	for (size_t i = 0; i < r->ndirs && !r->err; i++) {
		const struct dir_fix *d = &r->dirs[i];
		char owner[4200];
		uint32_t first;

		if (!d->chain.crossed || d->chain.broken || d->file)
			continue;
		if (!d->at.cluster) {
			first = v->p->ex.root_cluster;
			snprintf(owner, sizeof(owner), "/ (root directory)");
		} else if (read_set(r, v, &d->at, d->parent_nofat, a) &&
			   !(EXFAT_STREAM_OF(a->set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN)) {
			first = exfat_stream_first_cluster(EXFAT_STREAM_OF(a->set));
			snprintf(owner, sizeof(owner), "%s", d->path);
		} else {
			continue;
		}
		if (xr_relink_into_xlink_possible(r, v, first, &d->chain, 0) &&
		    xr_relink_into_xlink(r, v, first, &d->chain, 0, d->path)) {
			(void)rp_take_owned(r, FSC_PR_EXFAT_CROSS_LINK, owner);
			any = true;
		}
	}
	free(a);
	return any;
}

size_t plan_dirs(struct rp *r, struct xvol *v)
{
	size_t crossed = 0;

	for (size_t i = 0; i < r->ndirs; i++) {
		struct dir_fix *d = &r->dirs[i];

		if (!d->at.cluster)
			fix_root(r, v, d);
		else
			crossed += fix_one(r, v, d);
	}
	return crossed;
}

void xr_free_dirs(struct rp *r)
{
	for (size_t i = 0; i < r->ndirs; i++)
		free(r->dirs[i].path);
	free(r->dirs);
	r->dirs = NULL;
	r->ndirs = 0;
}
