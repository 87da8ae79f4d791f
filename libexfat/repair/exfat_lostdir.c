// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_lostdir.c - a lost chain that is a directory comes back as a
 * directory, with its tree (Windows chkdsk's DIRnnnn), instead of a heap
 * of FILEnnnn.CHK pieces.  A chain of lost clusters is taken as a
 * directory only when every entry in use up to its end marker belongs to a
 * sound file set (a stream extension, name entries for NameLength, a
 * matching SetChecksum; no root-only or unknown entry), there is at least
 * one, and every cluster of every file and directory below it is lost too
 * (marked in the bitmap, owned by nothing, not taken by another lost
 * chain): then nothing is owned twice when it is linked.  Otherwise
 * nothing of it is kept, and its chains are saved as files.
 *
 * Consumes: the claimed set, the on-disk bitmap, the plan's view of the
 * clusters.  Produces: the tree claimed (the caller links it), or nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

#define MAX_ADOPT_DIRS 4096u	/* directories in one lost tree */

struct adopt {
	uint32_t *taken;		/* clusters claimed so far (to give back on failure) */
	size_t n, cap;
	struct { uint32_t first; uint64_t clusters; bool nofat; } *dirs;	/* to read */
	size_t ndirs, capdirs;
	uint8_t *buf;			/* one cluster */
	bool bad;
};

static bool lost_here(const struct xvol *v, uint32_t c)
{
	return xv_cluster_valid(v, c) && bit_get(v->marked, c - 2) && !cluster_owned(v, c);
}

static void take_one(struct adopt *ad, struct xvol *v, uint32_t c)
{
	if (!grow((void **)&ad->taken, &ad->cap, ad->n + 1, sizeof(*ad->taken))) {
		ad->bad = true;
		return;
	}
	cluster_claim(v, c);
	ad->taken[ad->n++] = c;
}

/* An allocation below the directory: every cluster lost, then taken; false when one is not. */
static bool take_alloc(struct adopt *ad, struct xvol *v, uint32_t first, uint64_t clusters, bool nofat)
{
	struct layout_chain it;
	uint32_t c;

	for (xr_chain(&it, v, first, nofat); it.n < clusters && !ad->bad && layout_chain_next(&it, &c);) {
		if (!lost_here(v, c))
			return false;
		take_one(ad, v, c);
	}
	return !ad->bad && it.n == clusters && (nofat || xv_fat(v, it.cur) == 0xFFFFFFFF);
}

/* One sound file set of a directory being adopted: its allocation taken, a directory queued. */
static bool adopt_set(struct adopt *ad, struct xvol *v, const struct exfat_asm *as)
{
	struct exfat_set d;
	uint64_t clusters;

	exfat_set_decode(as->set, as->count, &d);
	if (as->set[0] != EXFAT_T_FILE || !d.has_stream || as->set[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM || d.nl == 0 ||
	    d.name_entries * 15 < d.name_length || fsc_exfat_set_checksum(as->set, as->count) != d.checksum ||
	    (d.first_cluster == 0) != (d.size == 0) || d.valid_size > d.size)
		return false;
	if (!d.first_cluster)
		return true;
	clusters = (d.size + v->cb - 1) / v->cb;
	if ((d.attr & EXFAT_ATTR_DIRECTORY) && (d.size % v->cb || clusters > (256ull << 20) / v->cb))
		return false;
	if (!take_alloc(ad, v, d.first_cluster, clusters, d.flags & 2))
		return false;
	if (d.attr & EXFAT_ATTR_DIRECTORY) {
		if (ad->ndirs >= MAX_ADOPT_DIRS ||
		    !grow((void **)&ad->dirs, &ad->capdirs, ad->ndirs + 1, sizeof(*ad->dirs)))
			return false;
		ad->dirs[ad->ndirs].first = d.first_cluster;
		ad->dirs[ad->ndirs].clusters = clusters;
		ad->dirs[ad->ndirs++].nofat = d.flags & 2;
	}
	return true;
}

/* The entries of a directory's clusters: sound sets only, up to the end marker; how many sets. */
static bool read_entries(struct rp *r, struct adopt *ad, struct xvol *v, uint32_t first, uint64_t clusters,
			 bool nofat, unsigned *sets)
{
	struct exfat_asm *as = malloc(sizeof(*as));
	struct layout_chain it;
	bool ok = as != NULL, end = false;
	uint32_t c;

	if (as)
		exfat_asm_init(as, 0, 0);
	for (xr_chain(&it, v, first, nofat); ok && !end && it.n < clusters && layout_chain_next(&it, &c);) {
		ok = plan_view_read(r->dev, r->plan, xv_cluster_byte(v, c), ad->buf, v->cb) >= 0;
		for (uint32_t i = 0; ok && !end && i < v->cb; i += 32) {
			enum exfat_ev ev = exfat_asm_feed(as, ad->buf + i,
							  &(struct exfat_where){ c, i / 32, xv_cluster_byte(v, c) + i });

			end = ev == EXA_END;
			ok = ev == EXA_END || ev == EXA_UNUSED || ev == EXA_BEGIN || ev == EXA_MEMBER ||
			     (ev == EXA_SET && adopt_set(ad, v, as));
			*sets += ev == EXA_SET;
		}
	}
	ok = ok && (end || it.n == clusters) && !exfat_asm_flush(as);	/* (a chain that ends early: no directory) */
	free(as);
	return ok && !ad->bad;
}

bool xr_adopt_dir(struct rp *r, struct xvol *v, uint32_t head, uint64_t *clusters)
{
	struct adopt ad = { 0 };
	unsigned sets = 0;
	struct layout_chain it;
	uint64_t n = 0;
	uint32_t c = head, next;
	bool ok;

	uint8_t e0;

	/* A directory's first entry is a file entry, in use or deleted: one byte says no to most chains. */
	if (plan_view_read(r->dev, r->plan, xv_cluster_byte(v, head), &e0, 1) < 0 ||
	    (e0 != EXFAT_T_FILE && e0 != (EXFAT_T_FILE & 0x7F)))
		return false;
	if (!(ad.buf = malloc(v->cb))) {
		r->err = -ENOMEM;
		return false;
	}
	/* The head's chain, while it stays lost, is the directory. */
	xr_chain(&it, v, head, false);
	layout_chain_next(&it, &c);	/* (head itself: a lost cluster) */
	for (;;) {
		take_one(&ad, v, c);
		n++;
		if (ad.bad || n >= (256ull << 20) / v->cb || !layout_chain_next(&it, &next) || !lost_here(v, next))
			break;
		c = next;
	}
	ok = !ad.bad && read_entries(r, &ad, v, head, n, false, &sets) && sets > 0;
	for (size_t i = 0; ok && i < ad.ndirs; i++)	/* the directories below, as they were queued */
		ok = read_entries(r, &ad, v, ad.dirs[i].first, ad.dirs[i].clusters, ad.dirs[i].nofat, &sets);
	if (ok && xv_fat(v, c) != 0xFFFFFFFF) {
		uint8_t e[4];

		exfat_fat_cell_put(e, 0xFFFFFFFF);
		rp_put(r, v->fat_byte + 4ull * c, e, 4, "end a lost directory's chain", false);
	}
	for (size_t i = 0; !ok && i < ad.n; i++)
		cluster_unclaim(v, ad.taken[i]);
	*clusters = n;
	free(ad.taken);
	free(ad.dirs);
	free(ad.buf);
	return ok;
}
