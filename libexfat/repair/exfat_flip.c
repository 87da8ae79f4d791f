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
#include <string.h>

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

uint32_t xr_only_flip(uint32_t x, bool (*fits)(void *ctx, uint32_t c), void *ctx)
{
	struct rp_flips it;
	uint32_t c, found = 0;
	unsigned bits, hits = 0;

	for (rp_flips_begin(&it, x, 32); hits < 2 && rp_flips_next(&it, &c, &bits);)
		if (fits(ctx, c)) {
			found = c;
			hits++;
		}
	return hits == 1 ? found : 0;
}

struct lost_alloc {
	struct xvol *v;
	uint64_t need;
	bool nofat;
};

static bool lost_alloc_at(void *ctx, uint32_t c)
{
	const struct lost_alloc *a = ctx;

	return lost_allocation(a->v, c, a->need, a->nofat);
}

/*
 * A FirstCluster outside the heap whose bits, one or two of them flipped
 * back, give a cluster where a lost allocation of the file's length
 * starts: that cluster (0 when none, or more than one, does).
 */
uint32_t xr_first_by_flip(struct xvol *v, uint32_t first, uint64_t need, bool nofat)
{
	struct lost_alloc a = { v, need, nofat };

	return xr_only_flip(first, lost_alloc_at, &a);
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
	struct rp_flips it;
	uint32_t y = 0, cand;
	unsigned bits, hits = 0;

	if (!linked)
		return 0;
	for (uint32_t c = rp_next_cluster(v, 1, true); c; c = rp_next_cluster(v, c, true)) {
		uint32_t next = xv_fat(v, c);

		if (next != c && xv_cluster_valid(v, next) && lost_cluster(v, next))
			bit_set(linked, next - 2);
	}
	for (rp_flips_begin(&it, x, 32); hits < 2 && rp_flips_next(&it, &cand, &bits) && !(bits == 2 && hits);)
		if ((n = lost_chain(v, linked, cand)) != 0) {
			y = cand;
			*len = n;
			hits++;
		}
	free(linked);
	return hits == 1 ? y : 0;
}

/*
 * A chain broken after a cluster x that another allocation claims too:
 * the link into x flipped, when one or two of its bits, flipped back,
 * give the only cluster where a lost chain ending in an end mark starts,
 * of the clusters the rest of need takes (need 0, a directory's: any).
 * Seed 487, pop-c512 #59: the root's link 26 -> 33 flipped to 41, a
 * contiguous file's first cluster, whose free FAT entry then broke the
 * root; the root's end mark went after 41, and /FOUND.000's entry over
 * the file's bytes.  Seed 3, pop-4k #94: a file's link 88 -> 90 flipped
 * to 74, a contiguous directory's cluster, which the file kept and the
 * directory lost.  The link taken back, the lost chain claimed.
 */
static uint32_t xlink_target(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch, uint64_t need,
			     uint32_t *prev, uint64_t *len)
{
	uint32_t x = ch->last_good, c = 0;
	struct layout_chain it;

	*prev = 0;
	/*
	 * (crossed, not broken, at the cluster its own last one links to: a
	 * directory's first cluster held for it, ck_hold_head; seed 761,
	 * pop-c512 #54: the root's link 20 -> 26 flipped to 18, /dir-03's)
	 */
	if (ch->crossed && !ch->broken && x && v->bitmap_ok && xlinked(r, c = xv_fat(v, x)) && (!need || need > ch->good)) {
		*prev = x;
		*len = need ? need - ch->good : 0;
		return need ? xr_first_by_flip(v, c, *len, false) : lost_head_by_flip(v, c, len);
	}
	/* (x another's: claimed twice, or a FAT entry no chain's cluster has, free: seed 583, pop-c512 #44) */
	if (!ch->broken || !x || (!xlinked(r, x) && xv_fat(v, x) != 0) || !v->bitmap_ok)
		return 0;
	for (xr_chain(&it, v, first, false); layout_chain_next(&it, &c) && c != x;)
		*prev = c;
	if (!*prev || c != x || (need && need < it.n))
		return 0;
	*len = need ? need - it.n + 1 : 0;
	return need ? xr_first_by_flip(v, x, *len, false) : lost_head_by_flip(v, x, len);
}

bool xr_relink_into_xlink_possible(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch,
				   uint64_t need)
{
	uint32_t prev;
	uint64_t len = 0;

	return xlink_target(r, v, first, ch, need, &prev, &len) != 0;
}

bool xr_relink_into_xlink(struct rp *r, struct xvol *v, uint32_t first, const struct chain_res *ch, uint64_t need,
			  const char *what)
{
	uint32_t prev, y;
	uint64_t len = 0;
	uint8_t e[4];
	char why[256];

	if (!(y = xlink_target(r, v, first, ch, need, &prev, &len)))
		return false;
	exfat_fat_cell_put(e, y);
	snprintf(why, sizeof(why), "a flipped link of the chain taken back (to cluster %u): %.140s", y, what);
	rp_put(r, v->fat_byte + 4ull * prev, e, 4, why, false);
	xr_claim_run(v, y, len, false);
	r->allocated = true;
	return true;
}

/* Unit u of the set's name (in its name entries from entry 2 on), and the same set to v. */
static uint16_t unit_get(const uint8_t *set, unsigned u)
{
	return get_le16(set, exfat_set_name_unit_at(u));
}

static void unit_flip(uint8_t *set, unsigned u, unsigned b)
{
	put_le16(set, exfat_set_name_unit_at(u), (uint16_t)(unit_get(set, u) ^ (1u << b)));
}

/* The NameHash before one more up-cased unit u, from the one after it: xv_name_hash_step undone. */
static uint16_t name_hash_unstep(uint16_t h, uint16_t u)
{
	h = (uint16_t)(h - (u >> 8));
	h = (uint16_t)(h << 1 | h >> 15);
	h = (uint16_t)(h - (u & 0xFF));
	return (uint16_t)(h << 1 | h >> 15);
}

/* Are the set's nl name units all ones a name may hold? */
static bool name_ok(const uint8_t *set, unsigned nl)
{
	uint16_t units[255];

	for (unsigned u = 0; u < nl; u++)
		units[u] = unit_get(set, u);
	for (unsigned u = 0; u < nl; u++)
		if (!exfat_name_unit_ok(units, nl, u))
			return false;
	return true;
}

/*
 * A name whose one bit flipped: the unit bit that, flipped back, makes
 * both the stored NameHash and the stored SetChecksum right and leaves
 * units a name may hold, when exactly one does, or exactly one of them
 * gives an ASCII unit.  (Both sums rotate a bit a byte: a bit eight units
 * on, in the high byte, can look alike to both; seed 569, pop-c512 #40:
 * '0' -> '2' of file-with-a-longer-name-104.txt matched so with a unit
 * made non-ASCII.)  The set (n entries, names in use after its stream) is
 * changed; false when no such bit, or more than one, exists.
 */
bool xr_undo_name_flip(const struct xvol *v, uint8_t *set, unsigned n)
{
	unsigned nl = EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH], hits = 0, plain = 0, at = 0, bit = 0;
	unsigned pat = 0, pbit = 0;
	uint16_t want = get_le16(EXFAT_STREAM_OF(set), EXFAT_STREAM_NAME_HASH);
	/* before[u]: the hash of units 0 .. u-1; after[u]: the one they must give for the rest to end in want */
	uint16_t before[256], after[256];

	if (!v->upcase || !nl || n < 2u + (nl + 14u) / 15u)
		return false;
	for (unsigned k = 2; k < 2u + (nl + 14u) / 15u; k++)
		if (set[EXFAT_ENTRY_AT(k)] != EXFAT_T_NAME)
			return false;
	before[0] = 0;
	after[nl] = want;
	for (unsigned u = 0; u < nl; u++)
		before[u + 1] = xv_name_hash_step(before[u], v->upcase[unit_get(set, u)]);
	for (unsigned u = nl; u-- > 0;)
		after[u] = name_hash_unstep(after[u + 1], v->upcase[unit_get(set, u)]);
	for (unsigned u = 0; u < nl; u++)
		for (unsigned b = 0; b < 16; b++) {
			unit_flip(set, u, b);
			/* (the whole name's hash is want: one unit changed, the rest as they were) */
			if (xv_name_hash_step(before[u], v->upcase[unit_get(set, u)]) == after[u + 1] &&
			    fsc_exfat_set_checksum(set, n) == exfat_primary_set_checksum(set) && name_ok(set, nl)) {
				hits++, at = u, bit = b;
				if (unit_get(set, u) < 0x80)
					plain++, pat = u, pbit = b;
			}
			unit_flip(set, u, b);
		}
	if (hits != 1 && plain != 1)
		return false;
	if (hits != 1)
		at = pat, bit = pbit;
	unit_flip(set, at, bit);
	return true;
}

bool xr_point_back(struct rp *r, struct xvol *v, uint8_t type, const char *what, uint32_t f,
		   bool (*fits)(void *ctx, uint32_t c), void *ctx)
{
	return xr_point_back_to(r, v, type, what, f, xr_only_flip(f, fits, ctx));
}

bool xr_point_back_to(struct rp *r, struct xvol *v, uint8_t type, const char *what, uint32_t f, uint32_t found)
{
	uint64_t off;
	uint8_t e[32];
	char why[96], owner[48];

	if (!found || !(off = rp_root_entry_of(r, v, type)) || plan_view_read(r->dev, r->plan, off, e, 32) < 0)
		return false;
	put_le32(e, EXFAT_ENTRY_FIRST_CLUSTER, found);
	snprintf(why, sizeof(why), "FirstCluster of the %s: a flipped bit taken back", what);
	rp_put(r, off + EXFAT_ENTRY_FIRST_CLUSTER, e + EXFAT_ENTRY_FIRST_CLUSTER, 4, why, false);
	snprintf(owner, sizeof(owner), "/ (%s)", what);
	xr_plan_about_structure(r, owner, f);
	return true;
}

bool xr_about_structure(const struct fsc_finding *f, const char *owner, uint32_t first)
{
	return (f->path && !strcmp(f->path, owner)) ||
	       (f->id == FSC_PR_EXFAT_CROSS_LINK && (!strcmp(f->detail, owner) || strtoul(f->actual, NULL, 10) == first));
}

void xr_plan_about_structure(struct rp *r, const char *owner, uint32_t first)
{
	for (size_t i = 0; i < r->out->n; i++)
		if (xr_about_structure(&r->out->v[i], owner, first) && rp_wanted(r, &r->out->v[i]))
			r->out->v[i].planned = true;
}
