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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

/* The count that the stored checksum proves, among 2..k; 0 when none does. */
static unsigned proven_count(uint8_t *set, unsigned k)
{
	uint8_t keep = exfat_secondary_count(set);

	for (unsigned sc = 2; sc <= k; sc++) {
		set[EXFAT_FILE_SECONDARY_COUNT] = (uint8_t)sc;
		if (fsc_exfat_set_checksum(set, sc + 1) == exfat_primary_set_checksum(set)) {
			set[EXFAT_FILE_SECONDARY_COUNT] = keep;
			return sc;
		}
	}
	set[EXFAT_FILE_SECONDARY_COUNT] = keep;
	return 0;
}

/* The findings the revived set answers: its own, and the strays it takes back. */
static void mark_revived(struct rp *r, const struct fsc_finding *at, unsigned sc)
{
	for (uint32_t e = at->entry; e <= at->entry + sc; e++) {
		struct fsc_finding *f;
		size_t k = 0;

		while ((f = rp_at_next(r, at->loc, e, &k)))
			if ((e == at->entry && (f->id == FSC_PR_EXFAT_SET_COUNT || f->id == FSC_PR_EXFAT_SET_CHECKSUM ||
						f->id == FSC_PR_EXFAT_NAME_ENTRIES || f->id == FSC_PR_EXFAT_NAME_LENGTH ||
						f->id == FSC_PR_EXFAT_NAME_HASH || f->id == FSC_PR_EXFAT_UNKNOWN_CRITICAL)) ||
			    (e > at->entry && f->id == FSC_PR_EXFAT_STRAY_SECONDARY))
				f->planned = true;
	}
}

/* Claim the revived file's clusters, as the walk would have. */
static void claim_file(struct xvol *v, const uint8_t *set, unsigned n, const char *name)
{
	struct exfat_set d;
	struct owner who = { "/", name, 0, 0, NULL, 0, false, 0, 0 };
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
	unsigned names = (EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH] + 14u) / 15u, sc = 1;

	if (!names)
		return 0;
	for (; sc <= names; sc++)
		if (sc + 1 >= room || (set[EXFAT_ENTRY_AT(sc + 1)] | EXFAT_TYPE_IN_USE) != EXFAT_T_NAME)
			return 0;
	for (sc = 1; sc <= names; sc++)
		set[EXFAT_ENTRY_AT(sc + 1)] = EXFAT_T_NAME;
	while (sc + 1 < room && set[EXFAT_ENTRY_AT(sc + 1)] >= EXFAT_TYPE_BENIGN_SECONDARY)
		sc++;
	return sc;
}

/*
 * The cluster after c in a directory: its FAT link, or the next one when
 * the FAT entry is free (a directory whose clusters lie in a row); 0 at
 * the chain's end.
 */
static uint32_t dir_next(struct xvol *v, uint32_t c)
{
	uint32_t n = xv_fat(v, c);

	if (xv_cluster_valid(v, n))
		return n;
	return n == 0 && xv_cluster_valid(v, c + 1) ? c + 1 : 0;
}

bool xr_read_here(struct rp *r, struct xvol *v, const struct fsc_finding *f, uint8_t *set, struct xr_span *sp)
{
	uint32_t c = (uint32_t)f->loc, e = f->entry, per = v->cb / 32;

	sp->room = 0;
	for (unsigned hops = 0; hops < 3 && c && sp->room < 256; hops++, c = dir_next(v, c), e = 0) {
		unsigned n = per - e < 256 - sp->room ? per - e : 256 - sp->room;

		if (plan_view_read(r->dev, r->plan, xv_cluster_byte(v, c) + 32ull * e, set + 32 * sp->room, 32ull * n) < 0)
			break;
		for (unsigned i = 0; i < n; i++)
			sp->pos[sp->room + i] = xv_cluster_byte(v, c) + 32ull * (e + i);
		sp->room += n;
		/* on into the next cluster only for what the set may still need (a file set has 19 at most) */
		if (sp->room >= (1u + exfat_secondary_count(set) < 19u ? 1u + exfat_secondary_count(set) : 19u))
			break;
	}
	return sp->room && set[0] == EXFAT_T_FILE;
}

void xr_put_span(struct rp *r, const struct xr_span *sp, const uint8_t *set, unsigned from, unsigned n,
		     const char *why)
{
	for (unsigned i = from, j; i < from + n; i = j) {
		for (j = i + 1; j < from + n && sp->pos[j] == sp->pos[j - 1] + 32; j++)
			;
		rp_put(r, sp->pos[i], set + 32 * i, 32ull * (j - i), why, false);
	}
}

/* May entry e, in a set's range, be rebuilt as a name entry: not the start or a member of another set in use? */
static bool replaceable(const uint8_t *e)
{
	return e[0] == EXFAT_T_NAME || !(e[0] & EXFAT_TYPE_IN_USE) || ((e[0] & EXFAT_TYPE_SECONDARY) && e[0] != EXFAT_T_STREAM) ||
	       (e[0] != EXFAT_T_FILE && e[0] != EXFAT_T_BITMAP && e[0] != EXFAT_T_UPCASE && e[0] != EXFAT_T_LABEL &&
		e[0] != EXFAT_T_GUID);
}

/*
 * A set whose stream extension is there but one of its name entries was
 * damaged: when the entries NameLength needs lie where SecondaryCount
 * says, the last of them a name entry in use or all of them secondaries in
 * use (k of them: so the range is the set's, not what follows it), each
 * damaged one is made a name entry again.  When the stored checksum
 * proves that only type bytes changed, they keep their characters, as
 * they do when it proves that the units past NameLength changed too
 * (zeros in a sound set; seed 439, pop-small #49: ReadMe.txt's name entry
 * 0xC1 -> 0xC9 and a unit past its 10 flipped), or when the NameHash and
 * the checksum prove one bit of the name flipped too (REBUILT_PROVEN: the
 * name is the one it had).  Without a proof, a damaged entry keeps its
 * characters when they read as a name (each unit one a name may hold,
 * zeros past NameLength: REBUILT_AS_READ; seed 912, pop-full #50, where
 * six flips of the name fit both sums); else it becomes '_' characters
 * (REBUILT_BLANK).  The file keeps its data and most of its name.  The
 * number of secondaries, or 0.
 */
enum rebuilt { REBUILT_PROVEN, REBUILT_AS_READ, REBUILT_BLANK };

/* Do the name entries of the set (secondaries 2..sc) read as a name of nl units? */
static bool names_read_as_name(const uint8_t *set, unsigned sc, unsigned nl)
{
	uint16_t units[255];

	for (unsigned i = 2; i <= sc; i++)
		for (unsigned u = 0; u < 15; u++) {
			unsigned at = 15 * (i - 2) + u;
			uint16_t x = exfat_name_unit(set + EXFAT_ENTRY_SIZE * i, u);

			if (at >= nl && x)
				return false;
			if (at < nl)
				units[at] = x;
		}
	for (unsigned u = 0; u < nl; u++)
		if (!exfat_name_unit_ok(units, nl, u))
			return false;
	return true;
}

static unsigned rebuilt_names(const struct xvol *v, uint8_t *set, unsigned room, unsigned k, enum rebuilt *how)
{
	unsigned nl = EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH], names = (nl + 14u) / 15u, sc = 1u + names;
	uint32_t damaged = 0;		/* bit i: entry i's type was not a name entry's (sc is 18 at most) */
	uint8_t keep[256 * 32];

	if (!names || exfat_secondary_count(set) != sc || sc + 1 > room || (set[EXFAT_ENTRY_AT(sc)] != EXFAT_T_NAME && k < sc))
		return 0;
	for (unsigned i = 2; i <= sc; i++)
		if (!replaceable(set + 32 * i))
			return 0;
	for (unsigned i = 2; i <= sc; i++)
		if (set[EXFAT_ENTRY_AT(i)] != EXFAT_T_NAME) {
			set[EXFAT_ENTRY_AT(i)] = EXFAT_T_NAME;
			damaged |= 1u << i;
		}
	memcpy(keep, set, 32ull * (sc + 1));	/* (the types made right) */
	*how = REBUILT_PROVEN;
	if (!damaged || fsc_exfat_set_checksum(set, sc + 1) == exfat_primary_set_checksum(set))
		return damaged ? sc : 0;
	if (xr_undo_name_flip(v, set, sc + 1))
		return sc;
	xr_zero_name_tail(set, sc + 1);
	if (fsc_exfat_set_checksum(set, sc + 1) == exfat_primary_set_checksum(set))
		return sc;
	memcpy(set, keep, 32ull * (sc + 1));
	*how = REBUILT_AS_READ;
	if (names_read_as_name(set, sc, nl))
		return sc;
	*how = REBUILT_BLANK;
	for (unsigned i = 2; i <= sc; i++) {
		uint8_t *e = set + 32 * i;

		if (!(damaged & (1u << i)))
			continue;
		memset(e, 0, 32);
		e[0] = EXFAT_T_NAME;
		for (unsigned u = 0; u < 15 && 15 * (i - 2) + u < nl; u++)
			exfat_name_put_unit(e, u, '_');
	}
	return sc;
}

/* Is a name entry of the set damaged where NameLength and SecondaryCount agree (rebuilt_names' case)? */
bool xr_revive_names_damaged(const uint8_t *set, unsigned count)
{
	unsigned names = (EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH] + 14u) / 15u;

	if (!names || exfat_secondary_count(set) != 1u + names || count != exfat_secondary_count(set) + 1u ||
	    set[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM)
		return false;
	for (unsigned i = 2; i < count; i++)
		if (set[EXFAT_ENTRY_AT(i)] != EXFAT_T_NAME)
			return true;
	return false;
}

/*
 * The name entries in use right after the stream, fewer than NameLength
 * needs: the set ends after them and its name is what they hold (cut
 * short).  The number of secondaries, or 0 (not one name entry).
 */
static unsigned shortened_name(uint8_t *set, unsigned k)
{
	unsigned names = 0;

	while (names + 1 < k && set[EXFAT_ENTRY_AT(names + 2)] == EXFAT_T_NAME)
		names++;
	if (!names)
		return 0;
	if (EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH] > 15 * names)
		EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH] = (uint8_t)(15 * names);
	return names + 1;
}

/*
 * A set being rewritten: the units of its name entries past NameLength
 * zeroed (a damaged unit there makes fsck.exfat count a longer name).
 */
void xr_zero_name_tail(uint8_t *set, unsigned n)
{
	unsigned nl = EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH];

	for (unsigned k = 2; k < n && set[EXFAT_ENTRY_AT(k)] == EXFAT_T_NAME; k++)
		for (unsigned u = 0; u < 15; u++)
			if (15 * (k - 2) + u >= nl)
				exfat_name_put_unit(set + EXFAT_ENTRY_SIZE * k, u, 0);
}

/* NameHash and SetChecksum of a set of sc secondaries (the hash only when the names can be up-cased). */
static void reseal(struct xvol *v, uint8_t *set, unsigned sc)
{
	struct exfat_set d;
	bool ascii = true;

	/* (a name entry's flags are 0; its units past NameLength too: fsck.exfat counts them) */
	for (unsigned k = 2; k <= sc; k++)
		if (set[EXFAT_ENTRY_AT(k)] == EXFAT_T_NAME)
			set[EXFAT_ENTRY_AT(k) + EXFAT_NAME_FLAGS] = 0;
	xr_zero_name_tail(set, sc + 1);
	exfat_set_decode(set, sc + 1, &d);
	for (unsigned i = 0; i < d.nl; i++)
		ascii &= d.name[i] < 0x80;
	if (v->upcase_ok || ascii)
		exfat_stream_put_name_hash(EXFAT_STREAM_OF(set), fsc_exfat_name_hash(d.name, d.nl, v->upcase));
	exfat_primary_put_set_checksum(set, fsc_exfat_set_checksum(set, sc + 1));
}

/*
 * A set that cannot be used (no stream extension in use after it) set
 * aside: its primary and the secondaries in use right after it, up to its
 * count, marked unused.  Their bytes stay for undelete tools; its
 * clusters, owned by nothing, are lost clusters, which -y saves.
 */
static void set_aside(struct rp *r, uint8_t *set, unsigned k, const struct xr_span *sp)
{
	unsigned n = 1 + (k < exfat_secondary_count(set) ? k : exfat_secondary_count(set));

	for (unsigned i = 0; i < n; i++)
		set[EXFAT_ENTRY_AT(i)] = exfat_type_unused(set[EXFAT_ENTRY_AT(i)]);
	xr_put_span(r, sp, set, 0, n, "mark a set cut short before its stream extension unused (its bytes stay)");
}

/*
 * A file set that the walk found cut short (SecondaryCount larger than
 * its entries) or with fewer name entries than NameLength needs, mended
 * in the first way that fits: the count the stored checksum proves; the
 * count the entries bear out; damaged name entries rebuilt; the name cut
 * to the name entries there; else the set set aside.  A mended file's
 * chain is claimed now; a mended directory is walked by the next round.
 */
static void revive_one(struct rp *r, struct xvol *v, size_t at)
{
	struct fsc_finding *f = &r->out->v[at];
	unsigned room, k = 0, sc = 0;
	uint8_t set[256 * 32], was[19 * 32];
	struct xr_span sp;
	char why[120];
	bool proven = false, names_damaged;
	enum rebuilt how;

	if (!xr_read_here(r, v, f, set, &sp) || !rp_wanted(r, f))
		return;
	room = sp.room;
	memcpy(was, set, 32ull * (room < 19 ? room : 19));
	while (k + 1 < room && (set[EXFAT_ENTRY_AT(k + 1)] & EXFAT_TYPE_IN_USE_SECONDARY) == EXFAT_TYPE_IN_USE_SECONDARY)
		k++;
	if (k < 1 || set[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM) {
		if (f->id == FSC_PR_EXFAT_SET_COUNT)
			set_aside(r, set, k, &sp);
		f->planned = f->id == FSC_PR_EXFAT_SET_COUNT;
		return;
	}
	/*
	 * (a set whose own count the checksum proves is sound: what follows
	 * it is not its own, and is left to the stray-entry fixes; seed 439,
	 * pop-small #49: garbage of type 0xF2 after ReadMe.txt's set, taken in
	 * as a benign secondary, and fsck.exfat found no name entry there);
	 * unless its name entries are what is wrong: two flipped bits can
	 * leave the checksum right (seed 912, pop-full #50: a name entry's
	 * type 0xC1 -> 0xD1 and 'f' -> 'b' two bytes on, +16 and -4 that the
	 * sum's rotation cancels)
	 */
	sc = k >= 2 ? proven_count(set, k) : 0;
	names_damaged = sc && sc == exfat_secondary_count(set) && xr_revive_names_damaged(set, sc + 1);
	if (sc && sc == exfat_secondary_count(set) && !names_damaged)
		return;
	if (sc && !names_damaged) {
		proven = true;
		snprintf(why, sizeof(why), "SecondaryCount %u, as the set's checksum proves", sc);
	} else if ((sc = structural_count(set, room)) != 0) {
		snprintf(why, sizeof(why), "SecondaryCount %u (the stream and the name entries NameLength needs)", sc);
	} else if ((sc = rebuilt_names(v, set, room, k, &how)) != 0) {
		snprintf(why, sizeof(why), "damaged name entries rebuilt (%s)",
			 how == REBUILT_PROVEN ? "their types, and a flipped bit of the name the sums prove" :
			 how == REBUILT_AS_READ ? "their types; the characters as read" : "'_' for each character lost");
	} else if ((sc = shortened_name(set, k)) != 0) {
		snprintf(why, sizeof(why), "the name cut to the %u name entries there", sc - 1);
	} else {
		set_aside(r, set, k, &sp);
		f->planned = true;
		return;
	}
	if (sc == exfat_secondary_count(set) && !memcmp(was, set, 32ull * (sc + 1 < 19 ? sc + 1 : 19)))
		return;	/* nothing to mend after all */
	set[EXFAT_FILE_SECONDARY_COUNT] = (uint8_t)sc;
	if (proven) {
		rp_put(r, sp.pos[0] + EXFAT_FILE_SECONDARY_COUNT, set + EXFAT_FILE_SECONDARY_COUNT, 1, why, false);
	} else {
		reseal(v, set, sc);
		xr_put_span(r, &sp, set, 0, sc + 1, why);
	}
	if (f->id != FSC_PR_EXFAT_SET_COUNT) {
		/* (the walk used the set, its count and stream sound: its clusters are claimed) */
	} else if (!(exfat_file_attributes(set) & EXFAT_ATTR_DIRECTORY)) {
		claim_file(v, set, sc + 1, "a revived file");	/* (it may add findings: f moves) */
		f = &r->out->v[at];
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
static void revive_stream(struct rp *r, struct xvol *v, size_t at)
{
	struct fsc_finding *f = &r->out->v[at];
	unsigned n;
	uint8_t set[256 * 32], keep;
	struct xr_span sp;

	if (!xr_read_here(r, v, f, set, &sp) || (n = exfat_secondary_count(set) + 1u) < 3 || n > sp.room ||
	    set[EXFAT_SET_STREAM_AT] == EXFAT_T_STREAM ||
	    !rp_wanted(r, f))
		return;
	keep = set[EXFAT_SET_STREAM_AT];
	set[EXFAT_SET_STREAM_AT] = EXFAT_T_STREAM;
	if (!(exfat_file_attributes(set) & EXFAT_ATTR_DIRECTORY) &&
	    fsc_exfat_set_checksum(set, n) == exfat_primary_set_checksum(set)) {
		rp_put(r, sp.pos[1], EXFAT_STREAM_OF(set), 1, "a stream extension again, as the set's checksum proves", false);
		claim_file(v, set, n, "a revived file");	/* (it may add findings: f moves) */
		f = &r->out->v[at];
		r->allocated = true;
	} else {
		set[EXFAT_SET_STREAM_AT] = keep;
		for (unsigned i = 0; i < n; i++)
			set[EXFAT_ENTRY_AT(i)] = exfat_type_unused(set[EXFAT_ENTRY_AT(i)]);
		xr_put_span(r, &sp, set, 0, n, "mark a set without a stream extension unused (its bytes stay)");
	}
	f->planned = true;
	for (size_t i = 0; i < r->out->n; i++)	/* the set's checksum goes with it */
		if (r->out->v[i].id == FSC_PR_EXFAT_SET_CHECKSUM && r->out->v[i].loc_kind == FSC_LOC_ENTRY &&
		    r->out->v[i].loc == f->loc && r->out->v[i].entry == f->entry)
			r->out->v[i].planned = true;
}

/* Is the file set at s (within n - e entries of its cluster) whole and sound: its checksum verifies? */
static bool sound_set(const uint8_t *s, unsigned e, unsigned n)
{
	unsigned sc = exfat_secondary_count(s);

	if (s[0] != EXFAT_T_FILE || sc < 2 || e + sc >= n || s[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM)
		return false;
	for (unsigned k = 1; k <= sc; k++)
		if ((s[EXFAT_ENTRY_AT(k)] & EXFAT_TYPE_IN_USE_SECONDARY) != EXFAT_TYPE_IN_USE_SECONDARY)
			return false;
	return fsc_exfat_set_checksum(s, sc + 1) == exfat_primary_set_checksum(s);
}

/*
 * Does every cluster of the set s's allocation belong to others already
 * (the walk's claims)?  Then it is a stale copy of their entries (a torn
 * write, seed 993 on a nearly full volume: a directory cluster's old
 * entries, of files that live elsewhere): made visible, it would only
 * cross-link them, and its bytes are theirs.  An empty file, or one with
 * a cluster nobody owns, is not.
 */
static bool claimed(const void *v, uint32_t c)
{
	return cluster_owned(v, c);
}

static bool owned_by_others(struct xvol *v, const uint8_t *s)
{
	const uint8_t *st = EXFAT_STREAM_OF(s);
	uint64_t need = (exfat_stream_data_length(st) + v->cb - 1) / v->cb;
	struct layout_chain it;

	if (!need || !xv_cluster_valid(v, exfat_stream_first_cluster(st)))
		return false;
	xr_chain(&it, v, exfat_stream_first_cluster(st), st[EXFAT_STREAM_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN);
	return rp_chain_owned(&it, need, false, claimed, v);
}

/* Entries [from, n) of the cluster in d: is one of them a sound file set that is not a stale copy? */
static bool any_sound(struct xvol *v, const uint8_t *d, unsigned from, unsigned n)
{
	for (unsigned e = from; e < n; e++)
		if (sound_set(d + 32ull * e, e, n) && !owned_by_others(v, d + 32ull * e))
			return true;
	return false;
}

void xr_revive_note_mark(void *ctx, uint32_t mark_cluster, uint32_t mark_entry, bool nofat, uint32_t hit_cluster,
			 uint32_t hit_entry)
{
	struct rp *r = ctx;

	if (!grow((void **)&r->marks, &r->capmarks, r->nmarks + 1, sizeof(*r->marks))) {
		r->err = -ENOMEM;
		return;
	}
	r->marks[r->nmarks++] = (struct end_mark_rec){ hit_cluster, hit_entry, mark_cluster, mark_entry, nofat };
}

/* The end marker of the directory whose first entry in use after it is f's, or NULL. */
static const struct end_mark_rec *mark_of(const struct rp *r, const struct fsc_finding *f)
{
	for (size_t i = 0; i < r->nmarks; i++)
		if (r->marks[i].hit_cluster == (uint32_t)f->loc && r->marks[i].hit_entry == f->entry)
			return &r->marks[i];
	return NULL;
}

/* In cluster c (its bytes in d), the 0x00 entries from entry from to entry to (inclusive) made unused (0x05). */
static void unmark_ends(struct rp *r, struct xvol *v, uint32_t c, uint8_t *d, unsigned from, unsigned to)
{
	unsigned first = to + 1, last = 0;

	for (unsigned e = from; e <= to; e++)
		if (d[EXFAT_ENTRY_AT(e)] == 0x00) {
			d[EXFAT_ENTRY_AT(e)] = 0x05;
			first = e < first ? e : first;
			last = e;
		}
	if (first <= last)
		rp_put(r, xv_cluster_byte(v, c) + 32ull * first, d + 32ull * first, 32ull * (last + 1 - first),
		    "unused entries for the stray end marks: the entries after them are visible again", false);
}

/*
 * The clusters of the directory from the marker's to the hit's (in
 * chain order, at most the cluster count of them), their 0x00 entries
 * from the marker on made unused; false when the hit's cluster is not
 * reached.
 */
static bool unmark_before(struct rp *r, struct xvol *v, const struct end_mark_rec *m, uint8_t *d)
{
	struct layout_chain it;
	uint32_t c;

	for (xr_chain(&it, v, m->mark_cluster, m->nofat); layout_chain_next(&it, &c);) {
		if (c == m->hit_cluster)
			return true;
		if (plan_view_read(r->dev, r->plan, xv_cluster_byte(v, c), d, v->cb) < 0)
			return false;
		unmark_ends(r, v, c, d, it.n == 1 ? m->mark_entry : 0, v->cb / 32 - 1);
	}
	return false;
}

/*
 * Entries in use after a directory's end marker.  When one of them (in
 * the cluster of the first) is a sound file set, the end marks are what
 * is wrong: every 0x00 entry from the marker to the last entry in use of
 * that cluster becomes an unused entry (0x05), and the sets are visible
 * again (their files claimed now; a directory among them is walked by the
 * next round, which also sees what is still wrong among them).
 * Otherwise the entries in use after the mark, in that cluster, are
 * marked unused: their bytes stay.
 */
static void revive_after_end(struct rp *r, struct xvol *v, size_t at)
{
	struct fsc_finding *f = &r->out->v[at];
	const struct end_mark_rec *m = mark_of(r, f);
	uint64_t base = xv_cluster_byte(v, (uint32_t)f->loc);
	unsigned n = v->cb / 32, from, last = f->entry;
	uint8_t *d = malloc(v->cb);
	bool sound, here;

	if (!d || !m || !rp_wanted(r, f))
		goto out;
	here = m->mark_cluster == (uint32_t)f->loc;
	if (plan_view_read(r->dev, r->plan, base, d, v->cb) < 0)
		goto out;
	for (unsigned e = f->entry; e < n; e++)
		if (d[EXFAT_ENTRY_AT(e)])
			last = e;
	sound = any_sound(v, d, f->entry, n);
	if (sound) {
		if (!here && !unmark_before(r, v, m, d))
			goto out;
		if (!here && plan_view_read(r->dev, r->plan, base, d, v->cb) < 0)
			goto out;
		from = here ? m->mark_entry : 0;
		unmark_ends(r, v, (uint32_t)f->loc, d, from, last);
		for (unsigned e = f->entry; e <= last; e++) {
			/*
			 * (a file set there that is not sound, made visible all
			 * the same: the next round mends it and its file claims
			 * its clusters, so none of them is saved as lost now;
			 * seed 933, pop-full #19: fill-014.bin's name hit, its
			 * clusters went to FOUND.000 and a cross-link was left)
			 */
			if (d[EXFAT_ENTRY_AT(e)] == EXFAT_T_FILE && !sound_set(d + 32ull * e, e, n))
				r->defer_lost = true;
			if (!sound_set(d + 32ull * e, e, n))
				continue;
			if (owned_by_others(v, d + 32ull * e)) {	/* a stale copy: unused, its bytes kept */
				unsigned k = exfat_secondary_count(d + EXFAT_ENTRY_AT(e)) + 1u;

				for (unsigned i = 0; i < k; i++)
					d[EXFAT_ENTRY_AT(e + i)] = exfat_type_unused(d[EXFAT_ENTRY_AT(e + i)]);
				rp_put(r, base + 32ull * e, d + EXFAT_ENTRY_AT(e), 32ull * k,
				       "mark unused a stale copy of entries after the end mark (its clusters are others')",
				       false);
				e += k - 1;
				continue;
			}
			if (exfat_file_attributes(d + 32ull * e) & EXFAT_ATTR_DIRECTORY)
				r->defer_lost = true;	/* its tree is walked next round */
			else
				claim_file(v, d + EXFAT_ENTRY_AT(e), exfat_secondary_count(d + EXFAT_ENTRY_AT(e)) + 1u,
					   "a file after a stray end mark");
			f = &r->out->v[at];	/* (claim_file may add findings: f moves) */
			e += exfat_secondary_count(d + EXFAT_ENTRY_AT(e));
		}
		r->allocated = true;
	} else {
		for (unsigned e = f->entry; e <= last; e++)
			d[EXFAT_ENTRY_AT(e)] = 0x00;	/* not sound: end marks again, their other bytes kept */
		rp_put(r, base + 32ull * f->entry, d + 32ull * f->entry, 32ull * (last + 1 - f->entry),
		    "end marks again after the end mark (none of the entries there a sound set; their other bytes stay)",
		    false);
	}
	f->planned = true;
out:
	free(d);
}

void xr_revive_sets(struct rp *r, struct xvol *v)
{
	for (size_t i = 0; i < r->out->n && !r->err; i++) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->loc_kind != FSC_LOC_ENTRY || !xv_cluster_valid(v, (uint32_t)f->loc))
			continue;
		if (f->id == FSC_PR_EXFAT_SET_COUNT || f->id == FSC_PR_EXFAT_NAME_ENTRIES ||
		    f->id == FSC_PR_EXFAT_UNKNOWN_CRITICAL)
			revive_one(r, v, i);
		else if (f->id == FSC_PR_EXFAT_STREAM_MISSING)
			revive_stream(r, v, i);
		else if (f->id == FSC_PR_EXFAT_AFTER_END)
			revive_after_end(r, v, i);
	}
}
