// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_upcase.c - a broken up-case table (EXSPEC 7.2: TableChecksum
 * wrong, too short, DataLength impossible, the fixed first 128 mappings
 * changed, or no table entry at all) replaced by the specification's
 * recommended table (exfat/upcase_rec.c, 7.2.5), the one mkfs.exfat
 * writes.  -y only: the findings have no PREEN flag.
 *
 * Names are judged by the table that will be on disk: as soon as the
 * checker has loaded the broken table, upcase_choose puts the recommended
 * one in its place, so that every NameHash (non-ASCII names included),
 * duplicate name and rename of this repair follows the new table, and a
 * check after the repair (which reads that table) agrees.  When the table
 * cannot be written after all (no free cluster for it, or no root slot
 * and no cluster for one), its findings are left, and the names stay
 * judged by the recommended table: the one Linux falls back to when a
 * volume's table is broken.
 *
 * Write order (DESIGN.md): the new table's clusters (chained in the FAT,
 * as the up-case entry has no NoFatChain flag) and its bytes; after a
 * sync, the old table's clusters freed in the bitmap; after another, the
 * up-case entry (TableChecksum, FirstCluster, DataLength) rewritten, or a
 * new one in a free root slot; then (exfat_repair.c) the bitmap marks the
 * new clusters.  The old clusters are freed before the entry stops
 * owning them, so that a repair cut between the two never finds them
 * marked and owned by nothing (lost clusters, saved as a file): cut
 * before the entry, the old entry still owns them, unmarked, and the next
 * repair takes the same new clusters and frees nothing more; cut after
 * it, the new clusters are owned and unmarked, which any repair marks.
 * They held only the broken table, no user data; they are not freed when
 * the volume has a cross-link (they might be a file's too): a later
 * repair then finds them lost.  Without a readable allocation bitmap
 * nothing is done (a cluster no file owns may still hold a lost one).
 *
 * Consumes: the checker's findings, claimed set and on-disk bitmap.
 * Produces: plan edits; the new clusters claimed, the old ones unclaimed
 * and set in r->freed (exfat_repair.c clears their bits); the findings
 * planned.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

static const enum fsc_problem upcase_ids[] = {
	FSC_PR_EXFAT_UPCASE_CHECKSUM, FSC_PR_EXFAT_UPCASE_MISSING, FSC_PR_EXFAT_UPCASE_SHORT,
	FSC_PR_EXFAT_UPCASE_LENGTH, FSC_PR_EXFAT_UPCASE_MANDATORY, FSC_PR_EXFAT_UPCASE_CLUSTER,
	FSC_PR_EXFAT_UPCASE_FRAGMENTED,
};
#define NIDS (sizeof(upcase_ids) / sizeof(upcase_ids[0]))

struct upcase_new {
	uint8_t table[EXFAT_UPCASE_REC_BYTES];
	size_t len;
	uint64_t entry;			/* the up-case entry's byte (0: a new entry) */
	uint64_t slot;			/* where the entry goes */
	uint32_t first;			/* the table's first cluster */
};

/* Does no allocation claim the n clusters from c (the walk's claims so far)? */
static bool row_free(const struct xvol *v, uint32_t c, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		if (cluster_owned(v, c + (uint32_t)k))
			return false;
	return true;
}

static bool table_at(void *ctx, uint32_t c)
{
	struct xvol *v = ctx;
	const struct fsc_exfat_root *rt = &v->p->root;
	uint64_t need = (rt->upcase_length + v->cb - 1) / v->cb;
	uint32_t sum;

	return xv_cluster_valid(v, c) && (uint64_t)c + need - 1 <= (uint64_t)v->cc + 1 && row_free(v, c, need) &&
	       xr_row_checksum(v, c, rt->upcase_length, &sum) && sum == rt->upcase_checksum_stored;
}

/*
 * The up-case entry's FirstCluster moved by a flipped bit or two: the
 * table read there fails its checksum, and exactly one cluster that many
 * bits away starts a row nobody claims whose bytes give the stored
 * TableChecksum.  The entry points to it again, the table's findings and
 * its chain's are planned, and the round mends: the names are judged by
 * the recommended table meanwhile, the tree is read again next round
 * (a cross-link with the file whose clusters the entry pointed to is
 * then gone; no table is written over them).
 */
static uint32_t upcase_back(struct rp *r, struct xvol *v)
{
	const struct fsc_exfat_root *rt = &v->p->root;
	uint64_t need = (rt->upcase_length + v->cb - 1) / v->cb;

	if (!rt->upcase_found || !rp_find(r, FSC_PR_EXFAT_UPCASE_CHECKSUM) || !need || need > v->cc ||
	    r->o->level != FSC_REPAIR_ALL || !xv_cluster_valid(v, rt->upcase_cluster) ||
	    !rp_root_entry_of(r, v, EXFAT_T_UPCASE))
		return 0;
	return xr_only_flip(rt->upcase_cluster, table_at, v);
}

bool xr_upcase_choose(void *ctx, struct xvol *v)
{
	struct rp *r = ctx;

	/* Without the bitmap, a cluster nothing owns may hold a lost file: nothing is allocated. */
	if (!v->bitmap_ok && !xr_bitmap_rebuild_wanted(r))
		return false;
	if ((r->upcase_back_to = upcase_back(r, v)))
		return r->upcase_moved = true;
	for (size_t i = 0; i < NIDS; i++) {
		const struct fsc_finding *f = rp_find(r, upcase_ids[i]);

		if (f && rp_wanted(r, f))
			r->new_upcase = true;
	}
	return r->new_upcase;
}

void xr_upcase_plan_choice(struct rp *r, struct xvol *v)
{
	if (r->upcase_moved)
		r->upcase_moved = xr_point_back_to(r, v, EXFAT_T_UPCASE, "up-case table", v->p->root.upcase_cluster,
						   r->upcase_back_to);
	if (r->upcase_moved || r->new_upcase)
		for (size_t i = 0; i < NIDS; i++)
			(void)rp_take(r, upcase_ids[i]);
}

/* The table is not written after all: its findings left, and nothing for xr_upcase_link to link. */
static void give_up(struct rp *r)
{
	for (size_t i = 0; i < NIDS; i++)
		rp_unplan(r, upcase_ids[i]);
	r->new_upcase = false;
	free(r->upcase);
	r->upcase = NULL;
}

/* The root's first up-case entry (ctx: its byte), as the probe took it. */
static void note_upcase(void *ctx, const struct exfat_asm *as, enum exfat_ev ev, const uint8_t *e, uint64_t off)
{
	uint64_t *at = ctx;

	(void)as;
	(void)ev;
	if (e[0] == EXFAT_T_UPCASE && !*at)
		*at = off;
}

/* Are there n clusters free (neither owned nor marked)? */
static bool room(const struct xvol *v, uint64_t n)
{
	uint32_t c = 0;

	for (uint64_t i = 0; i < n; i++)
		if (!(c = rp_next_cluster(v, c, false)))
			return false;
	return true;
}

/*
 * The old table's clusters owned by nothing from now on: its chain as the
 * checker claimed it (up to the first break) unclaimed, then any more of
 * the chain that is marked and owned by nothing (past a DataLength too
 * short); all unmarked in the view of the bitmap and set in r->freed.
 * Not with a cross-link on the volume, nor without the bitmap to free
 * them in.
 */
static void release_old(struct rp *r, struct xvol *v, uint64_t keep)
{
	const struct chain_res *ch = &v->upcase_chain;
	struct layout_chain it;
	uint32_t c;

	if (!v->p->root.upcase_found || !v->bitmap_ok || !ch->good || rp_find(r, FSC_PR_EXFAT_CROSS_LINK))
		return;
	r->freed = calloc(((uint64_t)v->cc + 63) / 64, 8);
	if (!r->freed) {
		r->err = -ENOMEM;
		return;
	}
	for (xr_chain(&it, v, v->p->root.upcase_cluster, false); layout_chain_next(&it, &c);) {
		uint64_t k = it.n - 1;

		if (k < keep)
			continue;	/* (the new table's, in place) */
		if (k < ch->good)
			cluster_unclaim(v, c);
		else if (cluster_owned(v, c) || !bit_get(v->marked, c - 2))
			break;
		bit_clear(v->marked, c - 2);
		bit_set(r->freed, c - 2);
	}
}

/*
 * The old table's own clusters for the new one, when its first n lie in a
 * row and the check claimed them for it: no free cluster is taken, which
 * may hold a file's bytes that no entry or bitmap bit tells of any more
 * (seed 41, pop-c32m #29: a 32 MiB cluster of such a file became the new
 * table).  The first of them, or 0.
 */
static uint32_t in_place(struct rp *r, struct xvol *v, uint64_t n)
{
	const struct chain_res *ch = &v->upcase_chain;
	uint32_t first = v->p->root.upcase_cluster;

	if (!v->p->root.upcase_found || !v->bitmap_ok || ch->good < n || !xv_cluster_valid(v, first) ||
	    (uint64_t)first + n - 1 > (uint64_t)v->cc + 1 || rp_find(r, FSC_PR_EXFAT_CROSS_LINK))
		return 0;
	for (uint64_t k = 0; k + 1 < n; k++)
		if (xv_fat(v, first + (uint32_t)k) != first + (uint32_t)k + 1)
			return 0;
	return first;
}

/*
 * The up-case entry lost, the table where formatters put it: right after
 * the allocation bitmap's clusters, n of them in a row that nothing owns,
 * holding the recommended table byte for byte.  It is the volume's own;
 * it stays there, to be claimed and chained (its marks in the old bitmap,
 * kept when the bitmap's entry was lost too, would make it a lost file).
 * It takes no free cluster: on a full volume, it is the only way back
 * (seed 981, pop-c32m #59: the entry overwritten, every cluster in use).
 * The first of them, or 0.
 */
static uint32_t found_after_bitmap(struct rp *r, struct xvol *v, uint64_t n, const struct upcase_new *u)
{
	const struct fsc_exfat_root *rt = &v->p->root;
	uint64_t bm = ((uint64_t)v->cc + 7) / 8, at;
	uint32_t first = r->bitmap_first ? r->bitmap_first : rt->bitmap_found ? rt->bitmap_cluster : 0;
	uint8_t *buf;
	bool same;

	at = (uint64_t)first + (bm + v->cb - 1) / v->cb;
	if (rt->upcase_found || !first || !v->bitmap_ok || at + n - 1 > (uint64_t)v->cc + 1)
		return 0;
	for (uint64_t k = 0; k < n; k++)
		if (cluster_owned(v, (uint32_t)(at + k)))
			return 0;
	buf = malloc(n * v->cb);
	same = buf && fsc_dev_read(v->dev, xv_cluster_byte(v, (uint32_t)at), buf, u->len) == 0 &&
	       !memcmp(buf, u->table, u->len);
	free(buf);
	return same ? (uint32_t)at : 0;
}

void xr_upcase_prepare(struct rp *r, struct xvol *v)
{
	struct upcase_new *u;
	uint32_t last = 0, *cl, kept, found;
	uint64_t n;
	bool slot;

	if (!r->new_upcase || r->err)
		return;
	u = r->upcase = calloc(1, sizeof(*u));
	if (!u || !(u->len = exfat_upcase_recommended(u->table))) {
		r->err = -ENOMEM;
		return;
	}
	n = (u->len + v->cb - 1) / v->cb;
	slot = xr_root_slots(r, v, 1, &u->slot, &last, note_upcase, &u->entry);
	if (r->err)
		return;
	/*
	 * Room for the table (none when it goes in the old one's clusters: a
	 * full volume, seed 89, pop-c32m #49), and a root cluster when a new
	 * entry has no slot; else left.
	 */
	kept = in_place(r, v, n);
	found = kept ? 0 : found_after_bitmap(r, v, n, u);
	if ((v->p->root.upcase_found && !u->entry) || (!u->entry && !slot && !last) ||
	    !room(v, (kept || found ? 0 : n) + (!u->entry && !slot))) {
		give_up(r);
		return;
	}
	if (!(cl = malloc(n * sizeof(*cl)))) {
		r->err = -ENOMEM;
		return;
	}
	/* In a row: Linux and fsck.exfat read the table from its first cluster on, not by the FAT. */
	if (kept) {
		uint8_t e[4];

		cl[0] = kept;
		exfat_fat_cell_put(e, 0xFFFFFFFF);	/* (the rest of the old chain is freed) */
		rp_put(r, v->fat_byte + 4ull * (kept + n - 1), e, 4, "end the up-case table's chain", false);
	} else if (found) {
		cl[0] = found;
		rp_chain_run(r, v, found, n, "chain the up-case table found in place");
	} else if (!(cl[0] = rp_alloc_run(r, v, n, true, "chain the new up-case table"))) {
		free(cl);
		give_up(r);
		return;
	}
	for (uint64_t i = 1; i < n; i++)
		cl[i] = cl[0] + (uint32_t)i;
	r->allocated = true;
	if (!u->entry && !slot && !xr_extend_root(r, v, last, 1, &u->slot)) {
		free(cl);
		r->err = r->err ? r->err : -ENOSPC;	/* room() counted them */
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		rp_put(r, xv_cluster_byte(v, cl[i]), u->table + i * v->cb,
		    u->len - i * v->cb < v->cb ? (size_t)(u->len - i * v->cb) : v->cb,
		    "the specification's recommended up-case table", false);
	u->slot = u->entry ? u->entry : u->slot;
	u->first = cl[0];
	free(cl);
	release_old(r, v, kept ? n : 0);
}

/* The findings of the old table's chain (its path names it) go with it. */
static void plan_chain_findings(struct rp *r)
{
	for (size_t i = 0; i < r->out->n; i++) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->path && !strcmp(f->path, "/up-case table") && f->id != FSC_PR_EXFAT_CROSS_LINK)
			f->planned = true;
	}
}

void xr_upcase_link(struct rp *r, struct xvol *v)
{
	struct upcase_new *u = r->upcase;
	uint8_t e[32];

	(void)v;
	if (!u)
		return;
	if (!r->err) {
		memset(e, 0, sizeof(e));
		if (u->entry && plan_view_read(r->dev, r->plan, u->entry, e, sizeof(e)) < 0)
			r->err = -EIO;
		e[0] = EXFAT_T_UPCASE;
		put_le32(e, EXFAT_UPCASE_TABLE_CHECKSUM, fsc_exfat_table_checksum(u->table, u->len, 0));
		put_le32(e, EXFAT_UPCASE_FIRST_CLUSTER, u->first);
		put_le64(e, EXFAT_UPCASE_DATA_LENGTH, u->len);
		rp_put(r, u->slot, e, sizeof(e), u->entry ? "up-case table entry: the new table" :
			"a new up-case table entry", true);
		plan_chain_findings(r);
	}
	free(u);
	r->upcase = NULL;
}
