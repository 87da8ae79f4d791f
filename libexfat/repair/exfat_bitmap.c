// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_bitmap.c - a bitmap entry whose DataLength is too short for
 * ClusterCount over a chain that holds every bit gets its length; a
 * missing allocation bitmap, one whose entry points outside the heap, one
 * not in a row (Linux reads it so), or a chain too short, is built anew
 * (-y): a bit set for every cluster the tree owns
 * (and every cluster the repair allocates), in new clusters, then the
 * bitmap entry written (a new one in a free root slot, or the old one
 * pointed at the new clusters).  Without a bitmap nothing says which of
 * the clusters no file owns were in use, so they are free in the new one;
 * the new bitmap's own clusters are taken only where the FAT holds
 * nothing (or the chain this repair writes, so that a repair cut short
 * takes the same ones again): a cluster with a FAT link may hold a lost
 * file, and is not written over.  Not on a volume with two FATs (TexFAT:
 * two bitmaps).
 *
 * Write order: the clusters chained and filled, then (after a sync) the
 * entry that links them; PercentInUse follows.  Cut before the link, the
 * next repair builds the same bitmap in the same clusters.
 *
 * Consumes: EXFAT_BITMAP_MISSING, _CLUSTER, _FRAGMENTED and _SIZE, the claimed set.
 * Produces: plan edits; every bitmap finding planned.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

static const enum fsc_problem bitmap_ids[] = {
	FSC_PR_EXFAT_BITMAP_MISSING, FSC_PR_EXFAT_BITMAP_SIZE, FSC_PR_EXFAT_BITMAP_CLUSTER, FSC_PR_EXFAT_BITMAP_FRAGMENTED,
};

bool xr_bitmap_rebuild_wanted(struct rp *r)
{
	bool any = false;

	if (r->new_bitmap)
		return true;
	if (r->p->ex.num_fats != 1)
		return false;
	for (size_t i = 0; i < sizeof(bitmap_ids) / sizeof(bitmap_ids[0]); i++)
		any |= rp_take(r, bitmap_ids[i]);
	return r->new_bitmap = any;
}

static void give_up(struct rp *r)
{
	for (size_t i = 0; i < sizeof(bitmap_ids) / sizeof(bitmap_ids[0]); i++)
		rp_unplan(r, bitmap_ids[i]);
	r->new_bitmap = false;
}

/*
 * Do the n clusters from first hold a bitmap of this volume as the tree
 * sees it (with take, its bits into v->marked then)?
 */
static bool bitmap_fits_at(struct xvol *v, uint32_t first, uint64_t n, bool take)
{
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8;
	uint8_t *buf = malloc(n * v->cb);
	bool ok = buf && fsc_dev_read(v->dev, xv_cluster_byte(v, first), buf, n * v->cb) == 0;

	for (uint64_t k = 0; ok && k < n; k++)		/* its own clusters: marked, nobody else's */
		ok = !cluster_owned(v, first + (uint32_t)k) && ((buf[(first + k - 2) / 8] >> ((first + k - 2) % 8)) & 1);
	for (uint64_t i = 0; ok && i < v->cc; i++)	/* every cluster the tree owns marked */
		ok = !bit_get(v->ck.claimed, i) || ((buf[i / 8] >> (i % 8)) & 1);
	for (uint64_t i = v->cc; ok && i < 8 * bytes; i++)	/* nothing past ClusterCount */
		ok = !((buf[i / 8] >> (i % 8)) & 1);
	for (uint64_t i = 0; ok && take && i < v->cc; i++)
		if ((buf[i / 8] >> (i % 8)) & 1)
			bit_set(v->marked, i);
		else
			bit_clear(v->marked, i);
	free(buf);
	return ok;
}

/*
 * The bitmap's entry lost, the bitmap itself where formatters put it
 * (cluster 2, in a row): when its bits mark every cluster the tree owns
 * and its own, and nothing past ClusterCount, it is the volume's, and
 * its marks are the one word left on what the files no entry reaches
 * held.  It stays where it is, its marks kept; the entry comes back.
 * (seed 409, pop-c512 #53: random bytes over the root's first cluster;
 * a bitmap made from the tree alone freed the trees of the directories
 * whose entries were hit, and their clusters were taken for new ones.)
 */
static bool old_bitmap_in_place(struct rp *r, struct xvol *v, uint64_t n)
{
	if (v->p->root.bitmap_found || n > v->cc || !v->marked || !bitmap_fits_at(v, 2, n, true))
		return false;
	rp_chain_run(r, v, 2, n, "chain the allocation bitmap found in place");
	r->bitmap_first = 2;
	return true;
}

static bool bitmap_at(void *ctx, uint32_t c)
{
	struct xvol *v = ctx;
	uint64_t n = (((uint64_t)v->cc + 7) / 8 + v->cb - 1) / v->cb;

	return xv_cluster_valid(v, c) && (uint64_t)c + n - 1 <= (uint64_t)v->cc + 1 && bitmap_fits_at(v, c, n, false);
}

/*
 * The bitmap entry's FirstCluster moved by a flipped bit or two onto
 * another allocation's cluster (its chain broken or crossed there): when
 * exactly one cluster that many bits away, in a row with the clusters
 * the bitmap needs, holds a bitmap of this volume that no allocation
 * claims (its own bits set, every owned cluster marked, nothing past
 * ClusterCount), the entry points to it again.  Nothing else of the
 * bitmap is planned in that round: the bits are the next round's, read
 * where they are (seed 571, pop-c32m #29: FirstCluster 2 -> 6, big.bin's
 * 32 MiB cluster, which the bitmap's "fix" then wrote over).
 */
bool xr_bitmap_back(struct rp *r, struct xvol *v)
{
	const struct fsc_exfat_root *rt = &v->p->root;
	uint64_t n = (((uint64_t)v->cc + 7) / 8 + v->cb - 1) / v->cb;
	bool about = false;

	for (size_t i = 0; i < r->out->n && !about; i++)
		about = xr_about_structure(&r->out->v[i], "/ (allocation bitmap)", rt->bitmap_cluster);
	return about && rt->bitmap_found && v->p->ex.num_fats == 1 && n && n <= v->cc && r->o->level == FSC_REPAIR_ALL &&
	       xr_point_back(r, v, EXFAT_T_BITMAP, "allocation bitmap", rt->bitmap_cluster, bitmap_at, v);
}

void xr_bitmap_rebuild_prepare(struct rp *r, struct xvol *v)
{
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8, n = (bytes + v->cb - 1) / v->cb;
	uint64_t words = ((uint64_t)v->cc + 63) / 64;
	struct layout_chain it;

	if (!xr_bitmap_rebuild_wanted(r))
		return;
	/* Too short a DataLength over a chain that holds every bit: only the length is wrong. */
	if (!rp_find(r, FSC_PR_EXFAT_BITMAP_MISSING) && !rp_find(r, FSC_PR_EXFAT_BITMAP_FRAGMENTED) && v->bitmap_ok) {
		r->bitmap_length_only = true;
		r->new_bitmap = false;
		return;
	}
	if (n && old_bitmap_in_place(r, v, n)) {
		r->bitmap_marks_kept = v->bitmap_ok = true;
		return;
	}
	/* (the old bitmap read whole, only not in a row: its marks stand, so no lost cluster is taken) */
	if (!n || !(r->bitmap_first = rp_alloc_run(r, v, n, v->bitmap_ok, "chain the new allocation bitmap"))) {
		give_up(r);
		return;
	}
	/* The old bitmap's clusters (too few, or not in a row) are no longer the bitmap's: free in the new one. */
	xr_chain(&it, v, v->p->root.bitmap_cluster, false);
	for (uint32_t c; v->p->root.bitmap_found && it.n < n && layout_chain_next(&it, &c);) {
		cluster_unclaim(v, c);
		bit_clear(v->marked, c - 2);
	}
	/*
	 * From here the bitmap is what the tree owns (nothing is lost,
	 * allocations see it), but for an old one read whole: its marks
	 * stand, and the clusters they mark that nothing owns are lost ones,
	 * saved or freed as usual.
	 */
	r->bitmap_marks_kept = v->bitmap_ok;
	if (!v->bitmap_ok)
		memcpy(v->marked, v->ck.claimed, words * 8);
	for (uint64_t k = 0; k < n; k++)
		bit_set(v->marked, r->bitmap_first + k - 2);
	v->bitmap_ok = true;
}

/*
 * The new bitmap's bytes: every owned cluster (the old up-case table's
 * released ones excepted), and the lost ones the old bitmap marked when
 * it was read whole and lost clusters are not freed.
 */
static void write_bits(struct rp *r, struct xvol *v, uint64_t *marked)
{
	bool keep = r->bitmap_marks_kept && !(r->o->free_lost && !r->defer_lost);
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8, n = (bytes + v->cb - 1) / v->cb;
	uint8_t *buf = calloc(1, v->cb);

	*marked = 0;
	if (!buf) {
		r->err = -ENOMEM;
		return;
	}
	for (uint64_t k = 0; k < n; k++) {
		memset(buf, 0, v->cb);
		for (uint64_t i = 0; i < v->cb && k * v->cb + i < bytes; i++)
			for (unsigned b = 0; b < 8; b++) {
				uint64_t bit = 8 * (k * v->cb + i) + b;

				if (bit < v->cc && (bit_get(v->ck.claimed, bit) || (keep && bit_get(v->marked, bit))) &&
				    !(r->freed && bit_get(r->freed, bit))) {
					buf[i] |= (uint8_t)(1u << b);
					++*marked;
				}
			}
		rp_put(r, xv_cluster_byte(v, r->bitmap_first + (uint32_t)k), buf, v->cb, "the new allocation bitmap",
		    false);
	}
	free(buf);
}

void xr_bitmap_rebuild_link(struct rp *r, struct xvol *v)
{
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8, off = rp_root_entry_of(r, v, EXFAT_T_BITMAP), slot = 0, marked;
	uint32_t last = 0;
	uint8_t e[32];

	if (r->bitmap_length_only) {
		if (!off || plan_view_read(r->dev, r->plan, off, e, 32) < 0) {
			give_up(r);
			return;
		}
		put_le64(e, EXFAT_BITMAP_DATA_LENGTH, bytes);
		rp_put(r, off + EXFAT_BITMAP_DATA_LENGTH, e + EXFAT_BITMAP_DATA_LENGTH, 8, "allocation bitmap DataLength",
		       false);
		return;
	}
	if (!r->new_bitmap)
		return;
	/* The entry's place first: a new root cluster is owned, so the bits include it. */
	if (!off && !xr_root_slots(r, v, 1, &slot, &last, NULL, NULL) && !(last && xr_extend_root(r, v, last, 1, &slot))) {
		give_up(r);
		return;
	}
	write_bits(r, v, &marked);
	/* (a fresh entry: the old one's flags and reserved bytes may be what was damaged) */
	memset(e, 0, sizeof(e));
	e[0] = EXFAT_T_BITMAP;
	put_le32(e, EXFAT_BITMAP_FIRST_CLUSTER, r->bitmap_first);
	put_le64(e, EXFAT_BITMAP_DATA_LENGTH, bytes);
	rp_put(r, off ? off : slot, e, 32, "link the new allocation bitmap", true);
	rp_put_percent_in_use(r, marked);
	(void)rp_take(r, FSC_PR_EXFAT_BITMAP_UNMARKED);
	(void)rp_take(r, FSC_PR_EXFAT_BITMAP_CLUSTERS_FREE);
	(void)rp_take(r, FSC_PR_EXFAT_BITMAP_TRAILING);
	(void)rp_take(r, FSC_PR_EXFAT_PERCENT_IN_USE_WRONG);
	(void)rp_take(r, FSC_PR_EXFAT_BOOT_PERCENT_IN_USE);
}
