// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_flip.c - allocations a flipped bit hid: a FirstCluster or a FAT
 * link whose one or two bits, flipped back, give the only cluster where a
 * lost allocation of the right length (or, for a directory, any lost
 * chain ending in an end mark) starts.  The damage test's bit flips make
 * these; taking the lost allocation back keeps a file's bytes where
 * cutting the chain would lose them.
 *
 * Consumes: the checker's claimed set and on-disk bitmap, the FAT.
 * Produces: FAT edits (the link taken back) and the allocation claimed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "repair/repair.h"

/* Is c lost: marked in the bitmap (when there is one), owned by nothing? */
static bool lost_cluster(const struct xvol *v, uint32_t c)
{
	return xv_cluster_valid(v, c) && !cluster_owned(v, c) && (!v->bitmap_ok || bit_get(v->marked, c - 2));
}

/* Are the need clusters from c (in a row, or by the FAT) all lost, the FAT chain ending after them? */
static bool lost_allocation(struct xvol *v, uint32_t c, uint64_t need, bool nofat)
{
	struct layout_chain it;
	uint32_t x;

	for (xr_chain(&it, v, c, nofat); it.n < need && layout_chain_next(&it, &x);)
		if (!lost_cluster(v, x))
			return false;
	return it.n == need && (nofat || (!layout_chain_next(&it, &x) && it.end == LAYOUT_CHAIN_END));
}

/*
 * A FirstCluster outside the heap whose bits, one or two of them flipped
 * back, give a cluster where a lost allocation of the file's length
 * starts: that cluster (0 when none, or more than one, does).
 */
uint32_t xr_first_by_flip(struct xvol *v, uint32_t first, uint64_t need, bool nofat)
{
	uint32_t found = 0;
	unsigned hits = 0;

	for (unsigned i = 0; i < 32 && hits < 2; i++)
		for (unsigned j = i; j < 32 && hits < 2; j++) {
			uint32_t c = first ^ (1u << i) ^ (i == j ? 0 : 1u << j);

			if (c != found && lost_allocation(v, c, need, nofat)) {
				found = c;
				hits++;
			}
		}
	return hits == 1 ? found : 0;
}

/* Claim the file's clusters (the allocation found for it), as the walk would have. */
void xr_claim_run(struct xvol *v, uint32_t c, uint64_t need, bool nofat)
{
	struct layout_chain it;

	for (xr_chain(&it, v, c, nofat); it.n < need && layout_chain_next(&it, &c);)
		cluster_claim(v, c);
}

/*
 * A FAT chain broken before its length by a link out of the heap or to a
 * free cluster: the link taken back when one or two of its bits, flipped
 * back, give the only cluster where a lost allocation of the rest (ending
 * in an end mark) starts.  True when it was (the rest claimed).
 */
bool xr_relink_by_flip(struct rp *r, struct xvol *v, const struct chain_res *ch, uint64_t need, const char *what)
{
	uint32_t c;
	uint8_t e[4];
	char why[256];

	if (!ch->broken || ch->crossed || !ch->last_good || ch->good >= need || need - ch->good > v->cc ||
	    !(c = xr_first_by_flip(v, xv_fat(v, ch->last_good), need - ch->good, false)))
		return false;
	exfat_fat_cell_put(e, c);
	snprintf(why, sizeof(why), "a flipped link of the chain taken back (to cluster %u): %.140s", c, what);
	rp_put(r, v->fat_byte + 4ull * ch->last_good, e, 4, why, false);
	xr_claim_run(v, c, need - ch->good, false);
	r->allocated = true;
	return true;
}

/* Does a cross-link finding name cluster c (claimed by two allocations)? */
static bool xlinked(const struct rp *r, uint32_t c)
{
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == FSC_PR_EXFAT_CROSS_LINK && strtoul(r->out->v[i].actual, NULL, 10) == c)
			return true;
	return false;
}

/*
 * The clusters of the lost chain from c when c heads it (no lost cluster
 * links to c: linked) and it ends in an end mark, every one of them lost;
 * else 0.
 */
static uint64_t lost_chain(struct xvol *v, const uint64_t *linked, uint32_t c)
{
	struct layout_chain it;
	uint32_t x;

	if (!xv_cluster_valid(v, c) || bit_get(linked, c - 2))
		return 0;
	for (xr_chain(&it, v, c, false); layout_chain_next(&it, &x);)
		if (!lost_cluster(v, x))
			return 0;
	return it.end == LAYOUT_CHAIN_END ? it.n : 0;
}

/*
 * The only head of a lost chain one bit from x (or, with none such, two
 * bits), its length in *len; 0 when there is none or more than one.
 */
static uint32_t lost_head_by_flip(struct xvol *v, uint32_t x, uint64_t *len)
{
	uint64_t *linked = calloc(((uint64_t)v->cc + 63) / 64 + 1, 8), n;
	uint32_t y = 0;
	unsigned hits = 0;

	if (!linked)
		return 0;
	for (uint32_t c = rp_next_cluster(v, 1, true); c; c = rp_next_cluster(v, c, true)) {
		uint32_t next = xv_fat(v, c);

		if (next != c && xv_cluster_valid(v, next) && lost_cluster(v, next))
			bit_set(linked, next - 2);
	}
	for (unsigned bits = 1; bits <= 2 && !hits; bits++)
		for (unsigned i = 0; i < 32 && hits < 2; i++)
			for (unsigned j = bits == 1 ? i : i + 1; j < (bits == 1 ? i + 1 : 32) && hits < 2; j++) {
				uint32_t cand = x ^ (1u << i) ^ (bits == 1 ? 0 : 1u << j);

				if ((n = lost_chain(v, linked, cand)) != 0) {
					y = cand;
					*len = n;
					hits++;
				}
			}
	free(linked);
	return hits == 1 ? y : 0;
}

/*
 * A directory's chain broken after a cluster x that another allocation
 * claims too: the link into x flipped, when one or two of its bits,
 * flipped back, give the only cluster where a lost chain ending in an end
 * mark starts (seed 487, pop-c512 #59: the root's link 26 -> 33 flipped
 * to 41, a contiguous file's first cluster, whose free FAT entry then
 * broke the root; the root's end mark went after 41, and /FOUND.000's
 * entry over the file's bytes).  The link taken back, the lost chain
 * claimed for the directory.
 */
bool xr_relink_dir_by_flip(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch, const char *what)
{
	uint32_t x = ch->last_good, prev = 0, c = 0, y;
	struct layout_chain it;
	uint64_t len = 0;
	uint8_t e[4];
	char why[256];

	if (!ch->broken || !x || !xlinked(r, x) || !v->bitmap_ok)
		return false;
	for (xr_chain(&it, v, first, false); layout_chain_next(&it, &c) && c != x;)
		prev = c;
	if (!prev || c != x || !(y = lost_head_by_flip(v, x, &len)))
		return false;
	exfat_fat_cell_put(e, y);
	snprintf(why, sizeof(why), "a flipped link of the chain taken back (to cluster %u): %.140s", y, what);
	rp_put(r, v->fat_byte + 4ull * prev, e, 4, why, false);
	xr_claim_run(v, y, len, false);
	r->allocated = true;
	return true;
}
