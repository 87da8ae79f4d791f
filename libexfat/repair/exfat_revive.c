// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_revive.c - a file entry set whose SecondaryCount was damaged made
 * whole again, never deleted.  The count is taken from the in-use
 * secondary entries that follow the primary in its cluster, and only when
 * the stored SetChecksum proves it: the checksum covers the count byte, so
 * the count it was computed with is the one that gives it back.  The
 * file's chain is then claimed (before lost clusters are looked for, so
 * that they are not saved twice).  Without a proof, the count the entries
 * bear out (the stream and the name entries NameLength needs) is taken,
 * and the checksum recomputed.  Directories are left: their contents
 * were not walked.
 *
 * Entries after an end-of-directory mark: when, from the mark to the end
 * of its cluster, the entries in use are whole file sets with sound
 * checksums (files, not directories), the stray 0x00 entries before them
 * are what is wrong: they become unused entries (0x05), and the files are
 * visible again, their chains claimed.  Otherwise the entries in use
 * after the mark (in its cluster) are marked unused: their bytes stay.
 *
 * Consumes: EXFAT_SET_COUNT, EXFAT_STREAM_MISSING and EXFAT_AFTER_END findings.  Produces: plan
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
		if ((f->entry == at->entry && (f->id == FSC_PR_EXFAT_SET_COUNT || f->id == FSC_PR_EXFAT_SET_CHECKSUM ||
					       f->id == FSC_PR_EXFAT_NAME_ENTRIES || f->id == FSC_PR_EXFAT_NAME_LENGTH ||
					       f->id == FSC_PR_EXFAT_NAME_HASH)) ||
		    (f->id == FSC_PR_EXFAT_STRAY_SECONDARY && f->entry > at->entry && f->entry <= at->entry + sc))
			f->planned = true;
	}
}

/* Claim the revived file's clusters, as the walk would have. */
static void claim_file(struct xvol *v, const uint8_t *set, unsigned n, const char *name)
{
	struct exfat_set d;
	struct owner who = { "/", name, 0, 0, NULL, 0, false, 0 };
	struct chain_res res;

	exfat_set_decode(set, n, &d);
	if (d.first_cluster && d.size)
		ck_claim(&v->ck, &who, d.first_cluster, d.size, d.flags & 2, &res, NULL, NULL);
}

/*
 * Without a proof, the count the entries bear out: the stream, then as
 * many name entries as NameLength needs (in use, or marked unused right
 * after the stream: a deleted set would start with a file entry), then any
 * benign secondaries in use; 0 when they are not there.  The name entries
 * are made in use in set.
 */
static unsigned structural_count(uint8_t *set, unsigned room)
{
	unsigned names = (set[32 + 3] + 14u) / 15u, sc = 1;

	if (!names)
		return 0;
	for (; sc <= names; sc++)
		if (sc + 1 >= room || (set[32 * (sc + 1)] | 0x80) != EXFAT_T_NAME)
			return 0;
	for (sc = 1; sc <= names; sc++)
		set[32 * (sc + 1)] = EXFAT_T_NAME;
	while (sc + 1 < room && set[32 * (sc + 1)] >= 0xE0)
		sc++;
	return sc;
}

/* The file set at f's entry, up to 256 entries within its cluster: its offset, entries there (*room). */
static bool read_here(struct rp *r, struct xvol *v, const struct fsc_finding *f, uint8_t *set, uint64_t *off,
		      unsigned *room)
{
	*off = xv_cluster_byte(v, (uint32_t)f->loc) + 32ull * f->entry;
	*room = v->cb / 32 - f->entry < 256 ? v->cb / 32 - f->entry : 256;
	return plan_view_read(r->dev, r->plan, *off, set, 32ull * *room) >= 0 && set[0] == EXFAT_T_FILE;
}

/* May entry e, in a set's range, be rebuilt as a name entry: not the start or a member of another set in use? */
static bool replaceable(const uint8_t *e)
{
	return e[0] == EXFAT_T_NAME || !(e[0] & 0x80) || ((e[0] & 0x40) && e[0] != EXFAT_T_STREAM) ||
	       (e[0] != EXFAT_T_FILE && e[0] != EXFAT_T_BITMAP && e[0] != EXFAT_T_UPCASE && e[0] != EXFAT_T_LABEL &&
		e[0] != EXFAT_T_GUID);
}

/*
 * A set whose stream extension is there but one of its name entries was
 * overwritten: when the entries NameLength needs lie where SecondaryCount
 * says, the last of them a name entry in use (so the range is the set's,
 * not what follows it), each damaged one is made a name entry of '_'
 * characters.  The file keeps its data and most of its name.  The number
 * of secondaries, or 0.
 */
static unsigned rebuilt_names(uint8_t *set, unsigned room)
{
	unsigned nl = set[32 + 3], names = (nl + 14u) / 15u, sc = 1u + names, fixed = 0;

	if (!names || set[1] != sc || sc + 1 > room || set[32 * sc] != EXFAT_T_NAME)
		return 0;
	for (unsigned i = 2; i <= sc; i++)
		if (!replaceable(set + 32 * i))
			return 0;
	for (unsigned i = 2; i <= sc; i++) {
		uint8_t *e = set + 32 * i;

		if (e[0] == EXFAT_T_NAME)
			continue;
		memset(e, 0, 32);
		e[0] = EXFAT_T_NAME;
		for (unsigned u = 0; u < 15 && 15 * (i - 2) + u < nl; u++)
			put_le16(e, 2 + 2 * u, '_');
		fixed++;
	}
	return fixed ? sc : 0;
}

/*
 * The name entries in use right after the stream, fewer than NameLength
 * needs: the set ends after them and its name is what they hold (cut
 * short).  The number of secondaries, or 0 (not one name entry).
 */
static unsigned shortened_name(uint8_t *set, unsigned k)
{
	unsigned names = 0;

	while (names + 1 < k && set[32 * (names + 2)] == EXFAT_T_NAME)
		names++;
	if (!names)
		return 0;
	if (set[32 + 3] > 15 * names)
		set[32 + 3] = (uint8_t)(15 * names);
	return names + 1;
}

/* NameHash and SetChecksum of a set of sc secondaries (the hash only when the names can be up-cased). */
static void reseal(struct xvol *v, uint8_t *set, unsigned sc)
{
	struct exfat_set d;
	bool ascii = true;

	exfat_set_decode(set, sc + 1, &d);
	for (unsigned i = 0; i < d.nl; i++)
		ascii &= d.name[i] < 0x80;
	if (v->upcase_ok || ascii)
		put_le16(set, 32 + 4, fsc_exfat_name_hash(d.name, d.nl, v->upcase));
	put_le16(set, 2, fsc_exfat_set_checksum(set, sc + 1));
}

/*
 * A set that cannot be used (no stream extension in use after it) set
 * aside: its primary and the secondaries in use right after it, up to its
 * count, marked unused.  Their bytes stay for undelete tools; its
 * clusters, owned by nothing, are lost clusters, which -y saves.
 */
static void set_aside(struct rp *r, uint8_t *set, unsigned k, uint64_t off)
{
	unsigned n = 1 + (k < set[1] ? k : set[1]);

	for (unsigned i = 0; i < n; i++)
		set[32 * i] &= 0x7F;
	put(r, off, set, 32ull * n, "mark a set cut short before its stream extension unused (its bytes stay)",
	    false);
}

/*
 * A file set that the walk found cut short (SecondaryCount larger than
 * its entries) or with fewer name entries than NameLength needs, mended
 * in the first way that fits: the count the stored checksum proves; the
 * count the entries bear out; damaged name entries rebuilt; the name cut
 * to the name entries there; else the set set aside.  A mended file's
 * chain is claimed now; a mended directory is walked by the next round.
 */
static void revive_one(struct rp *r, struct xvol *v, struct fsc_finding *f)
{
	unsigned room, k = 0, sc = 0;
	uint8_t set[256 * 32];
	uint64_t off;
	char why[120];
	bool proven = false;

	if (!read_here(r, v, f, set, &off, &room) || !wanted(r, f))
		return;
	while (k + 1 < room && (set[32 * (k + 1)] & 0xC0) == 0xC0)
		k++;
	if (k < 1 || set[32] != EXFAT_T_STREAM) {
		if (f->id == FSC_PR_EXFAT_SET_COUNT)
			set_aside(r, set, k, off);
		f->planned = f->id == FSC_PR_EXFAT_SET_COUNT;
		return;
	}
	if (k >= 2 && (sc = proven_count(set, k)) != 0) {
		proven = sc != set[1];
		snprintf(why, sizeof(why), "SecondaryCount %u, as the set's checksum proves", sc);
	} else if ((sc = structural_count(set, room)) != 0) {
		snprintf(why, sizeof(why), "SecondaryCount %u (the stream and the name entries NameLength needs)", sc);
	} else if ((sc = rebuilt_names(set, room)) != 0) {
		snprintf(why, sizeof(why), "damaged name entries rebuilt ('_' for each character lost)");
	} else if ((sc = shortened_name(set, k)) != 0) {
		snprintf(why, sizeof(why), "the name cut to the %u name entries there", sc - 1);
	} else {
		set_aside(r, set, k, off);
		f->planned = true;
		return;
	}
	if (sc == set[1] && !proven && !strstr(why, "rebuilt") && !strstr(why, "cut"))
		return;
	set[1] = (uint8_t)sc;
	if (proven) {
		put(r, off + 1, set + 1, 1, why, false);
	} else {
		reseal(v, set, sc);
		put(r, off, set, 32ull * (sc + 1), why, false);
	}
	if (!(get_le16(set, 4) & 0x10)) {
		claim_file(v, set, sc + 1, "a revived file");
		r->allocated = true;	/* its clusters may be free in the bitmap */
	} else {
		r->defer_lost = true;	/* its tree is walked next round: nothing of it is lost */
	}
	mark_revived(r, f, sc);
}

/*
 * A file entry whose first secondary is no stream extension: when the
 * stored checksum proves that the entry was one (only its type byte
 * changed), its type comes back and the file with it; else the set's
 * entries (in its cluster) are marked unused: its bytes stay, for undelete
 * tools, and its clusters, owned by nothing, are lost clusters, which -y
 * saves.
 */
static void revive_stream(struct rp *r, struct xvol *v, struct fsc_finding *f)
{
	unsigned room, n;
	uint8_t set[256 * 32], keep;
	uint64_t off;

	if (!read_here(r, v, f, set, &off, &room) || (n = set[1] + 1u) < 3 || n > room || set[32] == EXFAT_T_STREAM ||
	    !wanted(r, f))
		return;
	keep = set[32];
	set[32] = EXFAT_T_STREAM;
	if (!(get_le16(set, 4) & 0x10) && fsc_exfat_set_checksum(set, n) == get_le16(set, 2)) {
		put(r, off + 32, set + 32, 1, "a stream extension again, as the set's checksum proves", false);
		claim_file(v, set, n, "a revived file");
		r->allocated = true;
	} else {
		set[32] = keep;
		for (unsigned i = 0; i < n; i++)
			set[32 * i] &= 0x7F;
		put(r, off, set, 32ull * n, "mark a set without a stream extension unused (its bytes stay)", false);
	}
	f->planned = true;
	for (size_t i = 0; i < r->out->n; i++)	/* the set's checksum goes with it */
		if (r->out->v[i].id == FSC_PR_EXFAT_SET_CHECKSUM && r->out->v[i].loc_kind == FSC_LOC_ENTRY &&
		    r->out->v[i].loc == f->loc && r->out->v[i].entry == f->entry)
			r->out->v[i].planned = true;
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
		if (f->id == FSC_PR_EXFAT_SET_COUNT || f->id == FSC_PR_EXFAT_NAME_ENTRIES)
			revive_one(r, v, f);
		else if (f->id == FSC_PR_EXFAT_STREAM_MISSING)
			revive_stream(r, v, f);
		else if (f->id == FSC_PR_EXFAT_AFTER_END)
			revive_after_end(r, v, f);
	}
}
