// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_chain.c - a file's cluster chain repaired: cut where it breaks or
 * where its size ends (fix_chain), or given its own copies of clusters
 * another file claimed first (fix_cross).  Each returns the SF_ bits of
 * what it changed in the set's bytes and planned in the FAT and heap;
 * exfat_repair.c writes the set.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

/* The clusters after c in its chain (at most n) are no longer the file's: lost, for saving or freeing. */
void xr_unclaim_after(struct rp *r, struct xvol *v, uint32_t c, uint64_t n)
{
	struct layout_chain it;
	uint32_t x;

	xr_chain(&it, v, c, false);
	layout_chain_next(&it, &x);	/* (c itself) */
	while (it.n <= n && layout_chain_next(&it, &x) && cluster_owned(v, x)) {
		cluster_unclaim(v, x);
		r->unclaimed = true;
	}
}

/* The size of the copies a cross-link repair may hold in its plan. */
#define MAX_COPY_BYTES (64ull << 20)

/* A contiguous file's own clusters [from, to] written as a FAT chain ending in last (after a sync: first). */
static void chain_run(struct rp *r, struct xvol *v, uint32_t from, uint32_t to, uint32_t last, const char *why,
		      bool sync)
{
	uint8_t e[4];

	if (!xv_cluster_valid(v, from) || !xv_cluster_valid(v, to))
		return;
	for (uint32_t c = from; c <= to && c >= from; c++) {
		exfat_fat_cell_put(e, c < to ? c + 1 : last);
		rp_put(r, v->fat_byte + 4ull * c, e, 4, why, sync && c == from);
	}
}

/* Copies of the shared clusters src[0..m) into new clusters dst, chained and written; false: no room. */
static bool copy_clusters(struct rp *r, struct xvol *v, const uint32_t *src, uint32_t *dst, uint64_t m,
			  uint32_t then, const char *path)
{
	uint8_t *buf = malloc(v->cb), e[4];
	char why[200];
	bool ok = buf && rp_alloc_clusters(r, v, dst, m, "chain the copies of shared clusters");

	snprintf(why, sizeof(why), "copy of a cross-linked cluster for %.160s", path);
	for (uint64_t i = 0; ok && i < m; i++) {
		if (fsc_dev_read(v->dev, xv_cluster_byte(v, src[i]), buf, v->cb) < 0) {
			r->err = -EIO;	/* the plan holds a part of the copies: it must not be written */
			ok = false;
		}
		rp_put(r, xv_cluster_byte(v, dst[i]), buf, v->cb, why, false);
	}
	if (ok && then) {
		exfat_fat_cell_put(e, then);
		rp_put(r, v->fat_byte + 4ull * dst[m - 1], e, 4, "chain the copies to the file's own clusters", false);
	}
	if (!buf)
		r->err = -ENOMEM;
	free(buf);
	return ok;
}

/*
 * A file that runs into clusters another file claimed first gets its own
 * copies of them (the first shared run, up to its size), then goes on in
 * its own clusters: both files keep every byte.  The copies are written
 * and chained first, then linked after a sync (the link before the
 * cross-link, or FirstCluster).  A contiguous file (NoFatChain) becomes a
 * FAT chain.  Not when the copies would not fit in the free clusters or in
 * MAX_COPY_BYTES: then the cross-link is left.
 */
unsigned xr_fix_cross(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch,
			  uint8_t *set, const char *path)
{
	uint64_t need = (exfat_stream_data_length(EXFAT_STREAM_OF(set)) + v->cb - 1) / v->cb, m = ch->shared;
	bool nofat = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
	uint32_t first = exfat_stream_first_cluster(EXFAT_STREAM_OF(set));
	uint32_t x = ch->good == 0 ? first : nofat ? ch->last_good + 1 : xv_fat(v, ch->last_good);
	uint32_t *src, *dst;
	struct layout_chain it;
	uint8_t e[4];
	char why[200];
	bool ok = true;

	/* A contiguous file running past the heap (CHAIN_RANGE too) is left: its size is wrong as well. */
	if (nofat && (!xv_cluster_valid(v, first) || need > (uint64_t)v->cc + 2 - first))
		return 0;
	if (!m || ch->good + m > need || m * v->cb > MAX_COPY_BYTES || !rp_set_wanted(r, FSC_PR_EXFAT_CROSS_LINK, &a->at))
		return 0;
	src = malloc(m * sizeof(*src));
	dst = malloc(m * sizeof(*dst));
	xr_chain(&it, v, x, nofat);
	for (uint64_t i = 0; ok && src && i < m; i++)	/* the shared clusters, in the file's order */
		ok = layout_chain_next(&it, &src[i]);
	ok = ok && src && dst && copy_clusters(r, v, src, dst, m, ch->after_shared, path);
	snprintf(why, sizeof(why), "link the copies: %.160s", path);
	if (ok && nofat && ch->after_shared)	/* the own clusters after the copies, as a chain */
		chain_run(r, v, ch->after_shared, first + (uint32_t)need - 1, 0xFFFFFFFF, why, false);
	if (ok && nofat && ch->good)
		chain_run(r, v, first, ch->last_good, dst[0], why, true);
	if (ok && ch->good && !nofat) {
		exfat_fat_cell_put(e, dst[0]);
		rp_put(r, v->fat_byte + 4ull * ch->last_good, e, 4, why, true);
	}
	if (ok && !ch->good)
		exfat_stream_put_first_cluster(EXFAT_STREAM_OF(set), dst[0]);
	if (ok)
		EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
	if ((!src || !dst) && !r->err)
		r->err = -ENOMEM;
	free(src);
	free(dst);
	return ok ? SF_CROSS : 0;
}

/* The answer for the chain's problem (one a chain), found at the set's primary. */
static bool chain_wanted(struct rp *r, const struct exfat_where *at)
{
	static const enum fsc_problem ids[] = {
		FSC_PR_EXFAT_CHAIN_FREE, FSC_PR_EXFAT_CHAIN_BAD, FSC_PR_EXFAT_CHAIN_RANGE,
		FSC_PR_EXFAT_CHAIN_LOOP, FSC_PR_EXFAT_CHAIN_SHORT, FSC_PR_EXFAT_CHAIN_LONG,
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (rp_set_finding(r, ids[i], at))
			return rp_set_wanted(r, ids[i], at);
	return r->o->level == FSC_REPAIR_ALL;
}

/*
 * A file's chain cut where it breaks (a free, bad or out-of-range link, a
 * loop) or where its size ends, and its size cut to the clusters it has:
 * what lay past a break was unreachable already; the clusters past the
 * size stay allocated, as lost clusters, for saving.  Not after a
 * cross-link: cutting there would take the tail from one of two files.
 */
unsigned xr_fix_chain(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch,
			  uint8_t *set, const char *path)
{
	uint64_t size = exfat_stream_data_length(EXFAT_STREAM_OF(set)), have = ch->good * v->cb;
	bool nofat = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
	uint32_t end_at = ch->broken && !nofat ? ch->last_good : 0;
	uint8_t e[4];
	char why[200];

	if (!chain_wanted(r, &a->at))
		return 0;
	if (ch->ended && ch->clusters > ch->good)
		return 0;
	if (!nofat && (xr_relink_by_flip(r, v, ch, (size + v->cb - 1) / v->cb, path) ||
		       xr_relink_into_xlink(r, v, exfat_stream_first_cluster(EXFAT_STREAM_OF(set)), ch,
					    (size + v->cb - 1) / v->cb, path)))
		return SF_CHAIN;
	if (!ch->broken && ch->ended && ch->good * v->cb >= size) {
		if (nofat || !ch->at_need)	/* longer than the size: end it there */
			return 0;
		end_at = ch->at_need;
		xr_unclaim_after(r, v, end_at, ch->clusters);
	}
	/* (its end mark hit: on past its size into a cluster the walk gave another first, where it stopped) */
	if (!ch->broken && !ch->ended && !ch->crossed && !nofat && ch->at_need && ch->good * v->cb >= size) {
		exfat_fat_cell_put(e, 0xFFFFFFFF);
		snprintf(why, sizeof(why), "end the cluster chain after its size: %.160s", path);
		rp_put(r, v->fat_byte + 4ull * ch->at_need, e, 4, why, false);
		return SF_CHAIN | SF_CROSS;
	}
	if (end_at) {
		exfat_fat_cell_put(e, 0xFFFFFFFF);
		snprintf(why, sizeof(why), "end the cluster chain: %.160s", path);
		rp_put(r, v->fat_byte + 4ull * end_at, e, 4, why, false);
	}
	if (have < size) {
		exfat_stream_put_data_length(EXFAT_STREAM_OF(set), have);
		if (exfat_stream_valid_data_length(EXFAT_STREAM_OF(set)) > have)
			exfat_stream_put_valid_data_length(EXFAT_STREAM_OF(set), have);
	}
	return SF_CHAIN;
}

/* ---- a file's place or size mended from what its entry still says ---- */

/* Would a size of sz bytes fit the clusters the file has (in a row: before a break; by the FAT: exactly)? */
static bool size_fits(const struct xvol *v, const struct chain_res *ch, uint64_t sz, bool nofat)
{
	uint64_t n = (sz + v->cb - 1) / v->cb;

	return sz && (nofat ? n <= ch->good : ch->ended && !ch->broken && !ch->crossed && n == ch->clusters);
}

/*
 * The size the file's other fields give it when its DataLength cannot be
 * right (0: none): ValidDataLength, when it is below DataLength (in a row)
 * or differs from it (by the FAT) and fits the clusters; else DataLength
 * with the bits above the heap's size cleared (a flipped high bit), when
 * that fits.
 */
static uint64_t mended_size(const struct xvol *v, const struct chain_res *ch, const uint8_t *set)
{
	const uint8_t *st = EXFAT_STREAM_OF(set);
	uint64_t size = exfat_stream_data_length(st), vdl = exfat_stream_valid_data_length(st);
	uint64_t heap = (uint64_t)v->cc * v->cb, mask = 1;
	bool nofat = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN;

	if (vdl && vdl != size && (!nofat || vdl < size) && size_fits(v, ch, vdl, nofat))
		return vdl;
	while (mask < heap)
		mask <<= 1;
	if (size > heap && size_fits(v, ch, size & (mask - 1), nofat))
		return size & (mask - 1);
	return 0;
}

/* Clusters first + from .. first + to - 1 of a run the walk gave a file, nobody's again (a mended size ends before them). */
static void release_run(struct rp *r, struct xvol *v, uint32_t first, uint64_t from, uint64_t to)
{
	for (uint64_t k = from; k < to && xv_cluster_valid(v, first + (uint32_t)k); k++)
		if (cluster_owned(v, first + (uint32_t)k)) {
			cluster_unclaim(v, first + (uint32_t)k);
			r->unclaimed = true;
		}
}

void xr_release_past(struct rp *r, struct xvol *v, const uint8_t *was, const uint8_t *now, const struct chain_res *ch)
{
	const uint8_t *ws = EXFAT_STREAM_OF(was), *ns = EXFAT_STREAM_OF(now);
	uint64_t old = exfat_stream_data_length(ws), size = exfat_stream_data_length(ns);
	uint32_t wf = exfat_stream_first_cluster(ws), nf = exfat_stream_first_cluster(ns);
	uint64_t on = (old + v->cb - 1) / v->cb, nn = (size + v->cb - 1) / v->cb;

	/* (a run past the heap: the walk claimed it up to another's cluster, as ch says; unknown, nothing) */
	if (old > (uint64_t)v->cc * v->cb)
		on = ch && ch->readable ? ch->good : 0;
	if (!(ws[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) || !xv_cluster_valid(v, wf))
		return;
	if (!(ns[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) || nf != wf)
		nn = 0;		/* (another place: none of the old run is the file's) */
	release_run(r, v, wf, nn, on);
}

/*
 * Before a chain is cut or copied: a file whose entry is what is wrong.
 *   - FirstCluster outside the heap: the lost allocation of the file's
 *     length one or two flipped bits away, when there is exactly one;
 *     else the file is emptied (its name stays; its clusters, if any are
 *     left, are lost clusters, which -y saves);
 *   - a size the file's clusters contradict (past them, or short of
 *     them): DataLength becomes ValidDataLength, or itself without the
 *     bits above the heap's size, when that fits the clusters it has.
 * The SF_ bits of what changed in set, 0 when neither fits.
 */
unsigned xr_fix_extent(struct rp *r, struct xvol *v, const struct exfat_asm *a, const struct chain_res *ch, uint8_t *set)
{
	uint64_t size = exfat_stream_data_length(EXFAT_STREAM_OF(set)), need = (size + v->cb - 1) / v->cb, sz;
	uint32_t first = exfat_stream_first_cluster(EXFAT_STREAM_OF(set)), c;
	bool nofat = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN;

	if (!chain_wanted(r, &a->at) || !size)
		return 0;
	if (!xv_cluster_valid(v, first)) {
		if (need && need <= v->cc && (c = xr_first_by_flip(v, first, need, nofat)) != 0) {
			exfat_stream_put_first_cluster(EXFAT_STREAM_OF(set), c);
			xr_claim_run(v, c, need, nofat);
			r->allocated = true;
			return SF_FIRST | SF_CHAIN;
		}
		exfat_stream_put_first_cluster(EXFAT_STREAM_OF(set), 0);
		exfat_stream_put_valid_data_length(EXFAT_STREAM_OF(set), 0);
		exfat_stream_put_data_length(EXFAT_STREAM_OF(set), 0);
		/* no clusters: no NoFatChain (fsck.exfat refuses the pair) */
		EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
		return SF_FIRST | SF_CHAIN;
	}
	if (!(sz = mended_size(v, ch, set)))
		return 0;
	exfat_stream_put_data_length(EXFAT_STREAM_OF(set), sz);
	/*
	 * Clusters in a row the walk gave the file past its mended size are
	 * nobody's yet: released now, so that the files after it that hold
	 * them are not taken for cross-links (and copied), nor the bitmap
	 * marked for them.
	 */
	if (nofat)
		release_run(r, v, first, (sz + v->cb - 1) / v->cb, ch->good);
	return SF_CHAIN;
}

/*
 * Sizes and a place a file can have: ValidDataLength at most DataLength,
 * within the heap, a first cluster in the heap exactly when there are
 * bytes, and a run in a row inside the heap (NoFatChain).
 */
static bool extent_sound(const struct xvol *v, const uint8_t *st)
{
	uint64_t size = exfat_stream_data_length(st), need = (size + v->cb - 1) / v->cb;
	uint32_t first = exfat_stream_first_cluster(st);

	if (exfat_stream_valid_data_length(st) > size || size > (uint64_t)v->cc * v->cb || (size == 0) != (first == 0))
		return false;
	if (!size)
		return true;
	return xv_cluster_valid(v, first) &&
	       (!(st[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) || (uint64_t)first + need - 1 <= (uint64_t)v->cc + 1);
}

/* The bitmap marks the extent's clusters (a run in a row whole; by the FAT, its first): where a file's bytes are. */
static bool extent_marked(const struct xvol *v, const uint8_t *st)
{
	uint64_t size = exfat_stream_data_length(st), need = (size + v->cb - 1) / v->cb;
	uint32_t first = exfat_stream_first_cluster(st);

	if (!size || !v->bitmap_ok)
		return false;
	if (!(st[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN))
		need = 1;
	for (uint64_t k = 0; k < need; k++)
		if (!bit_get(v->marked, first + k - 2))
			return false;
	return true;
}

/*
 * No cluster of the extent is another allocation's: a cluster the walk
 * gave an allocation is the damaged extent's own (from old, old_need of
 * them in a row) or nobody's.
 */
static bool extent_free_of_others(const struct xvol *v, const uint8_t *st, uint32_t old, uint64_t old_need)
{
	uint64_t size = exfat_stream_data_length(st), need = (size + v->cb - 1) / v->cb;
	uint32_t first = exfat_stream_first_cluster(st);

	if (!(st[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN))
		need = size ? 1 : 0;
	for (uint64_t k = 0; k < need; k++) {
		uint32_t c = first + (uint32_t)k;

		if (cluster_owned(v, c) && (c < old || c - old >= old_need))
			return false;
	}
	return true;
}

/*
 * The bits searched: the extent's (ValidDataLength, DataLength,
 * FirstCluster: 160, the three-bit search's), then the stream entry's
 * reserved bytes (56): a flip there changes the checksum too, and left
 * out, a pair of an extent bit and another could read like it (seed 79,
 * pop-small #40: ValidDataLength and Reserved2 flipped; FirstCluster 71 ->
 * 7, onto /sizes, gave the same checksum).
 */
#define UNDO_EXTENT_BITS 160
#define UNDO_BITS (UNDO_EXTENT_BITS + 56)

/* A search of xr_undo_size_flip: the set, its checksum, the bits searched, the old extent. */
struct undo {
	const struct xvol *v;
	uint8_t *set;
	unsigned n;
	uint16_t want;
	unsigned bit[UNDO_BITS];
	uint32_t old_first;
	uint64_t old_need;
	uint64_t stay_need;		/* the clusters own to a change that keeps old_first (at least old_need) */
};

#define UNDO_FLIP(u, b) ((u)->set[(b) / 8] ^= (uint8_t)(1u << ((b) % 8)))

/*
 * A change that fits: a sound extent, the checksum, and a place that is
 * the old one or lies on clusters the bitmap marks and no other
 * allocation holds (a change that moves a file onto another's clusters
 * does not fit, however the checksum reads); *equal when its sizes agree,
 * *held when then its clusters are so marked and free.
 */
static bool undo_fits(const struct undo *u, bool *equal, bool *held)
{
	const uint8_t *st = EXFAT_STREAM_OF(u->set);
	bool placed;

	if (!extent_sound(u->v, st) || fsc_exfat_set_checksum(u->set, u->n) != u->want)
		return false;
	placed = extent_marked(u->v, st) &&
		 extent_free_of_others(u->v, st, u->old_first,
				       exfat_stream_first_cluster(st) == u->old_first ? u->stay_need : u->old_need);
	if (!placed && exfat_stream_first_cluster(st) != u->old_first)
		return false;
	*equal = exfat_stream_valid_data_length(st) == exfat_stream_data_length(st);
	*held = *equal && placed;
	return true;
}

/*
 * Three bits flipped back, one at least of the extent's (the others may
 * be reserved ones), when no change of one or two fits: the one change of three that fits with equal sizes on clusters
 * the bitmap marks and no other allocation holds (all three, or none is
 * taken).  True: set holds it.
 */
static bool undo_three_in(struct undo *u, unsigned nbits)
{
	unsigned held = 0, pick[3] = { 0, 0, 0 };
	bool eq, hd;

	for (unsigned i = 0; i < UNDO_EXTENT_BITS && held < 2; i++) {
		UNDO_FLIP(u, u->bit[i]);
		for (unsigned j = i + 1; j < nbits && held < 2; j++) {
			UNDO_FLIP(u, u->bit[j]);
			for (unsigned k = j + 1; k < nbits && held < 2; k++) {
				UNDO_FLIP(u, u->bit[k]);
				if (undo_fits(u, &eq, &hd) && hd)
					held++, pick[0] = i, pick[1] = j, pick[2] = k;
				UNDO_FLIP(u, u->bit[k]);
			}
			UNDO_FLIP(u, u->bit[j]);
		}
		UNDO_FLIP(u, u->bit[i]);
	}
	if (held != 1)
		return false;
	for (unsigned i = 0; i < 3; i++)
		UNDO_FLIP(u, u->bit[pick[i]]);
	return true;
}

/*
 * The extent's bits alone first; when no change of three of them fits,
 * the stream's reserved bits with them (seed 173, pop-many #50: Reserved2
 * with two of the sizes'), which alone could make more changes alike.
 */
static bool undo_three(struct undo *u)
{
	return undo_three_in(u, UNDO_EXTENT_BITS) || undo_three_in(u, UNDO_BITS);
}

/* The set in t (n entries, its name's hash set when known): may xr_undo_size_flip change it? */
static bool undo_may(const struct xvol *v, uint8_t *t, unsigned n, int32_t want_hash, bool sound_too)
{
	if (n < 2 || n > 256 || t[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM)
		return false;
	/* (the name's hash is known: a flip of it is no flip to search for, and could look like one of the extent's) */
	if (want_hash >= 0)
		exfat_stream_put_name_hash(EXFAT_STREAM_OF(t), (uint16_t)want_hash);
	return (sound_too || !extent_sound(v, EXFAT_STREAM_OF(t))) &&
	       fsc_exfat_set_checksum(t, n) != exfat_primary_set_checksum(t);
}

bool xr_undo_possible(const struct xvol *v, const uint8_t *set, unsigned n, int32_t want_hash, bool sound_too)
{
	uint8_t t[256 * 32];

	if (n < 2 || n > 256)
		return false;
	memcpy(t, set, 32ull * n);
	return undo_may(v, t, n, want_hash, sound_too);
}

/* The search's old extent (what of it is the file's own) and its bits, from the damaged set in u->set. */
static void undo_begin(struct undo *u, const struct chain_res *ch)
{
	static const struct { unsigned at, bits; } field[6] = {
		{ EXFAT_STREAM_VALID_DATA_LENGTH, 64 }, { EXFAT_STREAM_DATA_LENGTH, 64 }, { EXFAT_STREAM_FIRST_CLUSTER, 32 },
		{ EXFAT_STREAM_RESERVED1, 8 }, { EXFAT_STREAM_RESERVED2, 16 }, { EXFAT_STREAM_RESERVED3, 32 },
	};
	const struct xvol *v = u->v;
	const uint8_t *st = EXFAT_STREAM_OF(u->set);
	unsigned nbits = 0;

	u->old_first = exfat_stream_first_cluster(st);
	/* (what the walk may have given the damaged extent: none of a size past the heap, which it did not claim) */
	u->old_need = exfat_stream_data_length(st) > (uint64_t)v->cc * v->cb ? 0 :
		      st[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN ?
		      (exfat_stream_data_length(st) + v->cb - 1) / v->cb : 1;
	/*
	 * (a run in a row past the heap: the walk claimed it up to the first
	 * cluster another allocation had, and says how many; those stay the
	 * file's to a change that leaves it where it is, not to one that
	 * moves it, since a file read before others claims their clusters:
	 * seed 137, pop-small #30, DataLength + 2^44 + 2^21 and ValidDataLength
	 * + 2^60 flipped, the file's own cluster was taken for another's)
	 */
	u->stay_need = !u->old_need && ch && ch->readable ? ch->good : u->old_need;
	/*
	 * (a first cluster that was another's: what the walk gave the run
	 * after it is no surer the file's own, to a change that moves it:
	 * seed 101, pop-c32m #40, FirstCluster 6 -> 4, the root's)
	 */
	if (ch && !ch->readable)
		u->old_need = 0;
	for (unsigned f = 0; f < 6; f++)	/* as bit numbers of the set */
		for (unsigned b = 0; b < field[f].bits; b++)
			u->bit[nbits++] = 8 * (EXFAT_SET_STREAM_AT + field[f].at) + b;
}

static bool undo_search(const struct xvol *v, uint8_t *set, unsigned n, int32_t want_hash, const struct chain_res *ch,
			bool sound_too, unsigned *triples, bool flags_cleared)
{
	uint8_t t[256 * 32];
	const uint8_t *st = EXFAT_STREAM_OF(t);
	unsigned nbits = UNDO_BITS, found = 0, equal = 0, held = 0, stay = 0;
	unsigned pick[2] = { 0, 0 }, pick_eq[2] = { 0, 0 }, pick_held[2] = { 0, 0 }, pick_stay[2] = { 0, 0 };
	struct undo u = { .v = v, .set = t, .n = n, .want = exfat_primary_set_checksum(set) };
	bool eq, hd, ok = false;

	memcpy(t, set, 32ull * n);
	if (flags_cleared)
		EXFAT_STREAM_OF(t)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAGS_RESERVED;
	if (!undo_may(v, t, n, want_hash, sound_too))
		return false;
	undo_begin(&u, ch);
	/* (i == j: one bit flipped; the checksum's rotations make some pairs look alike, so all are counted) */
	/* (one bit at least the extent's, the first: reserved bits alone change nothing a file has) */
	for (unsigned i = 0; i < UNDO_EXTENT_BITS; i++) {
		UNDO_FLIP(&u, u.bit[i]);
		for (unsigned j = i; j < nbits; j++) {
			if (j != i)
				UNDO_FLIP(&u, u.bit[j]);
			if (undo_fits(&u, &eq, &hd)) {
				found++, pick[0] = i, pick[1] = j;
				if (eq)
					equal++, pick_eq[0] = i, pick_eq[1] = j;
				if (hd)
					held++, pick_held[0] = i, pick_held[1] = j;
				if (hd && exfat_stream_first_cluster(st) == u.old_first)
					stay++, pick_stay[0] = i, pick_stay[1] = j;
			}
			if (j != i)
				UNDO_FLIP(&u, u.bit[j]);
		}
		UNDO_FLIP(&u, u.bit[i]);
	}
	/*
	 * One change that fits; or of several, the one whose sizes agree (what
	 * writers leave but for preallocation); or of those, the one on
	 * clusters the bitmap marks and no other allocation holds; or of
	 * those, the one that leaves the file where it was.
	 */
	if (!found && *triples) {
		--*triples;
		ok = undo_three(&u);
	} else if (found == 1 || equal == 1 || held == 1 || stay == 1) {
		if (found != 1 && equal == 1)
			pick[0] = pick_eq[0], pick[1] = pick_eq[1];
		else if (found != 1 && held == 1)
			pick[0] = pick_held[0], pick[1] = pick_held[1];
		else if (found != 1)
			pick[0] = pick_stay[0], pick[1] = pick_stay[1];
		UNDO_FLIP(&u, u.bit[pick[0]]);
		if (pick[1] != pick[0])
			UNDO_FLIP(&u, u.bit[pick[1]]);
		ok = true;
	}
	if (ok)
		memcpy(set, t, 32ull * n);
	return ok;
}

/*
 * (reserved bits of GeneralSecondaryFlags, which must be 0, are cleared
 * first when set: a third flipped bit there; seed 24, a packed-bitmap
 * volume #50: flags 0x03 -> 0x83, FirstCluster 5 -> 13 and DataLength
 * + 2^39 in /docs's stream; the search found nothing, and /docs's "fix"
 * went over 11 clusters of files)
 */
static bool undo_sizes(const struct xvol *v, uint8_t *set, unsigned n, int32_t want_hash, const struct chain_res *ch,
		       bool sound_too, unsigned *triples)
{
	bool reserved = EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAGS_RESERVED;

	return (reserved && undo_search(v, set, n, want_hash, ch, sound_too, triples, true)) ||
	       undo_search(v, set, n, want_hash, ch, sound_too, triples, false);
}

/*
 * The units of the set's name before its first U+0000 when NameLength
 * is a bit away from that count and every unit past it, to NameLength,
 * is U+0000 (a flipped NameLength bit: the name is whole before it); 0
 * otherwise.
 */
static unsigned name_length_flipped(const uint8_t *set, unsigned n)
{
	unsigned nl = EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH], real = nl;

	if (n < 2u + (nl + 14u) / 15u)
		return 0;
	for (unsigned u = 0; u < nl; u++) {
		uint16_t x = exfat_name_unit(set + EXFAT_ENTRY_SIZE * (2 + u / 15), u % 15);

		if (!x && real == nl)
			real = u;
		else if (x && real != nl)
			return 0;
	}
	return real && real != nl && __builtin_popcount(real ^ nl) == 1 ? real : 0;
}

/*
 * (a NameLength bit flipped too, shown by U+0000 units at the name's end:
 * the search is made with the length the name has, its stored NameHash
 * kept; seed 932, pop-c32m #30: /sub's NameLength 3 -> 7 and FirstCluster
 * 8 -> 72, past the heap: its directory was left cut off, its name
 * '_'s)
 */
bool xr_undo_size_flip(const struct xvol *v, uint8_t *set, unsigned n, int32_t want_hash, const struct chain_res *ch,
		       bool sound_too, unsigned *triples)
{
	uint8_t *st = EXFAT_STREAM_OF(set), keep;
	unsigned real;

	if (n < 2 || n > 256)
		return false;
	if ((real = name_length_flipped(set, n)) != 0) {
		keep = st[EXFAT_STREAM_NAME_LENGTH];
		st[EXFAT_STREAM_NAME_LENGTH] = (uint8_t)real;
		if (undo_sizes(v, set, n, -1, ch, sound_too, triples))
			return true;
		st[EXFAT_STREAM_NAME_LENGTH] = keep;
	}
	return undo_sizes(v, set, n, want_hash, ch, sound_too, triples);
}

/* Would fix_extent change this set (a FirstCluster outside the heap, a size its other fields correct)? */
bool xr_fix_extent_possible(struct xvol *v, const struct chain_res *ch, const uint8_t *set)
{
	const uint8_t *st = EXFAT_STREAM_OF(set);

	return exfat_stream_data_length(st) && (!xv_cluster_valid(v, exfat_stream_first_cluster(st)) || mended_size(v, ch, set));
}

/*
 * The allocation bitmap's or the up-case table's chain broken after the
 * clusters its DataLength needs (a free, bad or out-of-range link where
 * the end mark should be), or running on from there into another
 * allocation (the root's first cluster, say: the end mark hit): ended
 * there.  A break before them is left to the bitmap's rebuild or the
 * table's replacement.
 */
static void end_structure(struct rp *r, struct xvol *v, const struct chain_res *ch, uint64_t len, const char *name)
{
	uint64_t need = (len + v->cb - 1) / v->cb;
	uint8_t e[4];
	char why[64];

	/* (into another allocation right after its need, the walk stops there: neither ended nor broken) */
	if (!(ch->broken || ch->crossed || !ch->ended) || !need || r->o->level != FSC_REPAIR_ALL ||
	    (ch->broken && !ch->crossed && xr_relink_by_flip(r, v, ch, need, name)) || ch->good < need || !ch->at_need)
		return;
	exfat_fat_cell_put(e, 0xFFFFFFFF);
	snprintf(why, sizeof(why), "end the chain of the %s", name);
	rp_put(r, v->fat_byte + 4ull * ch->at_need, e, 4, why, false);
}

void xr_fix_structure_chains(struct rp *r, struct xvol *v)
{
	const struct fsc_exfat_root *rt = &v->p->root;

	if (rt->bitmap_found && !r->new_bitmap && !r->bitmap_moved)	/* (moved back: its chain is another's) */
		end_structure(r, v, &v->bitmap_chain, rt->bitmap_length, "allocation bitmap");
	if (rt->upcase_found && !r->new_upcase && !r->upcase_moved)
		end_structure(r, v, &v->upcase_chain, rt->upcase_length, "up-case table");
}

void xr_fix_end_values(struct rp *r, struct xvol *v)
{
	uint8_t e[4];

	if (!v->ck.nodd_ends || !rp_take(r, FSC_PR_EXFAT_CHAIN_END_VALUE))
		return;
	exfat_fat_cell_put(e, 0xFFFFFFFF);
	for (size_t i = 0; i < v->ck.nodd_ends; i++)
		rp_put(r, v->fat_byte + 4ull * v->ck.odd_ends[i], e, 4, "the end of a chain as FFFFFFFF", false);
}

bool xr_row_checksum(struct xvol *v, uint32_t first, uint64_t len, uint32_t *sum)
{
	uint8_t *buf = malloc(v->cb);
	bool ok = buf != NULL;

	*sum = 0;
	for (uint64_t done = 0, k = 0; ok && done < len; k++) {
		size_t n = len - done < v->cb ? (size_t)(len - done) : v->cb;

		ok = fsc_dev_read(v->dev, xv_cluster_byte(v, first + (uint32_t)k), buf, n) == 0;
		*sum = fsc_exfat_table_checksum(buf, n, *sum);
		done += n;
	}
	free(buf);
	return ok;
}

/* Is x among the n clusters of the chain from c? */
static bool chain_holds(struct xvol *v, uint32_t c, uint64_t n, uint32_t x)
{
	struct layout_chain it;

	for (xr_chain(&it, v, c, false); it.n < n && layout_chain_next(&it, &c);)
		if (c == x)
			return true;
	return false;
}

bool xr_relink_upcase_in_row(struct rp *r, struct xvol *v)
{
	const struct fsc_exfat_root *rt = &v->p->root;
	const struct chain_res *ch = &v->upcase_chain;
	uint64_t len = rt->upcase_length, need = (len + v->cb - 1) / v->cb, p = 0;
	uint32_t first = rt->upcase_cluster, c = 0, sum;
	struct layout_chain it;
	uint8_t e[4];

	/* (broken, or turned into another allocation's chain by a flipped link and cut short there) */
	if (!rt->upcase_found || r->new_upcase || r->upcase_moved || !(ch->broken || ch->crossed || ch->clusters < need) || !need ||
	    need > v->cc || r->o->level != FSC_REPAIR_ALL ||
	    !xv_cluster_valid(v, first) || (uint64_t)first + need - 1 > (uint64_t)v->cc + 1)
		return false;
	/* the chain's first clusters in a row; c, the one after them */
	for (xr_chain(&it, v, first, false); p < ch->good && layout_chain_next(&it, &c) && c == first + p;)
		p++;
	if (!p || p >= need)
		return false;
	/* (the row's clusters nobody owns, but for the table's own chain past the row: seed 293, pop-c512 #44) */
	for (uint64_t k = p; k < need; k++)
		if (cluster_owned(v, first + (uint32_t)k) && !chain_holds(v, c, ch->good - p, first + (uint32_t)k))
			return false;
	/*
	 * The row is the table's when its checksum says so, or when the link
	 * that left the row is a bit or two from the row's next cluster (the
	 * table's own bytes hit too: its checksum fails, and the next round
	 * replaces it; seed 283, pop-c512 #9: link 6 -> 7 flipped to 15, the
	 * root's first cluster, and two bits of the table flipped).
	 */
	if ((p < ch->good || __builtin_popcount(xv_fat(v, first + (uint32_t)p - 1) ^ (first + (uint32_t)p)) > 2) &&
	    (!xr_row_checksum(v, first, len, &sum) || sum != rt->upcase_checksum_stored))
		return false;
	/* What the chain took past the row is nobody's again; the row is the table's. */
	for (xr_chain(&it, v, c, false); it.n < ch->good - p && layout_chain_next(&it, &c);)
		cluster_unclaim(v, c);
	for (uint64_t k = p - 1; k < need; k++) {
		exfat_fat_cell_put(e, k + 1 < need ? first + (uint32_t)k + 1 : 0xFFFFFFFF);
		rp_put(r, v->fat_byte + 4ull * (first + k), e, 4, "the up-case table's chain in a row again, as its checksum says",
		       false);
	}
	xr_claim_run(v, first + (uint32_t)p, need - p, false);
	r->allocated = true;
	return true;
}
