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
 * Entries after an end-of-directory mark: when, from the mark to the end
 * of its cluster, the entries in use are whole file sets with sound
 * checksums (files, not directories), the stray 0x00 entries before them
 * are what is wrong: they become unused entries (0x05), and the files are
 * visible again, their chains claimed.  Otherwise the entries in use
 * after the mark (in its cluster) are marked unused: their bytes stay.
 *
 * Consumes: EXFAT_SET_COUNT and EXFAT_AFTER_END findings.  Produces: plan
 * edits, the files' chains claimed, the findings planned.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Entries [from, n) of the cluster in d: whole, sound file sets (not directories) and unused ones only? */
static bool sound_files(const uint8_t *d, unsigned from, unsigned n)
{
	for (unsigned e = from; e < n;) {
		const uint8_t *s = d + 32ull * e;
		unsigned sc = s[1];

		if (!(s[0] & 0x80)) {
			e++;
			continue;
		}
		if (s[0] != EXFAT_T_FILE || sc < 2 || e + sc >= n || (get_le16(s, 4) & 0x10) ||
		    s[32] != EXFAT_T_STREAM || fsc_exfat_set_checksum(s, sc + 1) != get_le16(s, 2))
			return false;
		for (unsigned k = 1; k <= sc; k++)
			if ((s[32 * k] & 0xC0) != 0xC0)
				return false;
		e += sc + 1;
	}
	return true;
}

static void revive_after_end(struct rp *r, struct xvol *v, struct fsc_finding *f)
{
	uint64_t base = xv_cluster_byte(v, (uint32_t)f->loc);
	unsigned n = v->cb / 32, z = f->entry, last = f->entry;
	uint8_t *d = malloc(v->cb);
	bool sound;

	if (!d || plan_view_read(r->dev, r->plan, base, d, v->cb) < 0)
		goto out;
	while (z > 0 && d[32 * (z - 1)] == 0x00)
		z--;
	/* Only a mark in this cluster, after something: one before it would still end the directory. */
	if (z == 0 || z == f->entry || !wanted(r, f))
		goto out;
	for (unsigned e = f->entry; e < n; e++)
		if (d[32 * e])
			last = e;
	sound = sound_files(d, f->entry, n);
	for (unsigned e = z; e <= last; e++)	/* the directory goes on to last: no end mark before it */
		if (d[32 * e] == 0x00)
			d[32 * e] = 0x05;
		else if (!sound)
			d[32 * e] &= 0x7F;	/* not sound: kept, but unused */
	put(r, base + 32ull * z, d + 32ull * z, 32ull * (last + 1 - z),
	    sound ? "unused entries for the stray end marks: the files after them are visible again" :
		    "unused entries from the stray end mark on (the entries after it were not sound sets)", false);
	f->planned = true;
	for (unsigned e = f->entry; sound && e <= last;)
		if (d[32 * e] == EXFAT_T_FILE) {
			claim_file(v, d + 32ull * e, d[32 * e + 1] + 1u, "a file after a stray end mark");
			e += d[32 * e + 1] + 1u;
		} else {
			e++;
		}
	r->allocated = true;
out:
	free(d);
}

void revive_sets(struct rp *r, struct xvol *v)
{
	for (size_t i = 0; i < r->out->n && !r->err; i++) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->loc_kind != FSC_LOC_ENTRY || !xv_cluster_valid(v, (uint32_t)f->loc))
			continue;
		if (f->id == FSC_PR_EXFAT_SET_COUNT)
			revive_one(r, v, f);
		else if (f->id == FSC_PR_EXFAT_AFTER_END)
			revive_after_end(r, v, f);
	}
}
