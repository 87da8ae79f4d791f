// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_revive.c - a file entry set whose SecondaryCount was damaged made
 * whole again, never deleted.  The count is taken from the in-use
 * secondary entries that follow the primary in its cluster, and only when
 * the stored SetChecksum proves it: the checksum covers the count byte, so
 * the count it was computed with is the one that gives it back.  The
 * file's chain is then claimed (before lost clusters are looked for, so
 * that they are not saved twice).  Directories are left: their contents
 * were not walked.
 *
 * Consumes: EXFAT_SET_COUNT findings.  Produces: a one-byte edit per set,
 * its chain claimed, the set's findings (count, checksum, the stray
 * entries it takes back) planned.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "repair/repair.h"

/* The count that the stored checksum proves, among 2..k; 0 when none does. */
static unsigned proven_count(uint8_t *set, unsigned k)
{
	uint8_t keep = set[1];

	for (unsigned sc = 2; sc <= k; sc++) {
		set[1] = (uint8_t)sc;
		if (fsc_exfat_set_checksum(set, sc + 1) == get_le16(set, 2)) {
			set[1] = keep;
			return sc;
		}
	}
	set[1] = keep;
	return 0;
}

/* The findings the revived set answers: its own, and the strays it takes back. */
static void mark_revived(struct rp *r, const struct fsc_finding *at, unsigned sc)
{
	for (size_t i = 0; i < r->out->n; i++) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->loc_kind != FSC_LOC_ENTRY || f->loc != at->loc)
			continue;
		if ((f->entry == at->entry && (f->id == FSC_PR_EXFAT_SET_COUNT || f->id == FSC_PR_EXFAT_SET_CHECKSUM)) ||
		    (f->id == FSC_PR_EXFAT_STRAY_SECONDARY && f->entry > at->entry && f->entry <= at->entry + sc))
			f->planned = true;
	}
}

/* Claim the revived file's clusters, as the walk would have. */
static void claim_file(struct xvol *v, const uint8_t *set, unsigned n, const char *name)
{
	struct exfat_set d;
	struct owner who = { "/", name, 0, 0, NULL, 0, false };
	struct chain_res res;

	exfat_set_decode(set, n, &d);
	if (d.first_cluster && d.size)
		ck_claim(&v->ck, &who, d.first_cluster, d.size, d.flags & 2, &res, NULL, NULL);
}

static void revive_one(struct rp *r, struct xvol *v, struct fsc_finding *f)
{
	uint64_t off = xv_cluster_byte(v, (uint32_t)f->loc) + 32ull * f->entry;
	unsigned room = v->cb / 32 - f->entry, k = 0, sc;
	uint8_t set[256 * 32];
	char why[96];

	if (room > 256)
		room = 256;
	if (plan_view_read(r->dev, r->plan, off, set, 32ull * room) < 0 || set[0] != EXFAT_T_FILE ||
	    (get_le16(set, 4) & 0x10))
		return;
	while (k + 1 < room && (set[32 * (k + 1)] & 0xC0) == 0xC0)
		k++;
	if (k < 2 || set[32] != EXFAT_T_STREAM || !(sc = proven_count(set, k)) || sc == set[1] || !wanted(r, f))
		return;
	set[1] = (uint8_t)sc;
	snprintf(why, sizeof(why), "SecondaryCount %u, as the set's checksum proves", sc);
	put(r, off + 1, set + 1, 1, why, false);
	claim_file(v, set, sc + 1, "a revived file");
	r->allocated = true;	/* its clusters may be free in the bitmap */
	mark_revived(r, f, sc);
}

void revive_sets(struct rp *r, struct xvol *v)
{
	for (size_t i = 0; i < r->out->n && !r->err; i++)
		if (r->out->v[i].id == FSC_PR_EXFAT_SET_COUNT && r->out->v[i].loc_kind == FSC_LOC_ENTRY &&
		    xv_cluster_valid(v, (uint32_t)r->out->v[i].loc))
			revive_one(r, v, &r->out->v[i]);
}
