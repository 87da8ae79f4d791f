// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_entries.c - exFAT entries outside any file set, after the walk:
 * stray secondaries, root-only entries elsewhere, second root entries of
 * a kind, unknown critical and benign primaries marked unused (their
 * bytes stay); the volume label's length and characters; duplicate
 * names renamed.
 *
 * Consumes: the check's findings (their entry's place).  Produces: plan
 * edits, the findings planned.
 */
#include "config.h"

#include <stdio.h>

#include "repair/repair.h"

/*
 * Entries that belong to nothing (a secondary outside any set; a bitmap,
 * up-case, label or GUID entry outside the root) marked not in use: they
 * describe nothing reachable, and their bytes stay for a later look.  Not
 * a secondary shortly after a set cut short (SecondaryCount too small, too
 * few name entries): it may be that set's rest, for a later repair to join
 * again.
 */
static bool after_cut_set(const struct rp *r, const struct fsc_finding *f)
{
	for (size_t i = 0; i < r->out->n; i++) {
		const struct fsc_finding *g = &r->out->v[i];

		if ((g->id == FSC_PR_EXFAT_SET_COUNT || g->id == FSC_PR_EXFAT_NAME_ENTRIES) &&
		    g->loc_kind == FSC_LOC_ENTRY && g->loc == f->loc && g->entry < f->entry && f->entry - g->entry <= 18)
			return true;
	}
	return false;
}

static bool orphan_id(enum fsc_problem id)
{
	return id == FSC_PR_EXFAT_STRAY_SECONDARY || id == FSC_PR_EXFAT_ROOT_ONLY_ENTRY ||
	       id == FSC_PR_EXFAT_DUPLICATE_ROOT_ENTRY || id == FSC_PR_EXFAT_UNKNOWN_CRITICAL ||
	       id == FSC_PR_EXFAT_UNKNOWN_BENIGN;
}

void repair_orphan_entries(struct rp *r, struct xvol *v)
{
	static const char *const why[] = {
		"mark a stray secondary entry unused", "mark a root-only entry outside the root unused",
		"mark a second root entry of its kind unused (the first is the one drivers use)",
		"mark an unknown critical entry set unused", "mark an unknown benign entry set unused",
	};
	uint8_t e[256 * 32];

	for (size_t i = 0; i < r->out->n; i++) {
		struct fsc_finding *f = &r->out->v[i];
		unsigned k = f->id == FSC_PR_EXFAT_STRAY_SECONDARY ? 0 : f->id == FSC_PR_EXFAT_ROOT_ONLY_ENTRY ? 1 :
			     f->id == FSC_PR_EXFAT_DUPLICATE_ROOT_ENTRY ? 2 : f->id == FSC_PR_EXFAT_UNKNOWN_CRITICAL ? 3 : 4;
		unsigned n = 1;
		uint64_t off;

		if (!orphan_id(f->id) || f->loc_kind != FSC_LOC_ENTRY || !xv_cluster_valid(v, (uint32_t)f->loc) ||
		    !rp_wanted(r, f))
			continue;
		off = xv_cluster_byte(v, (uint32_t)f->loc) + 32ull * f->entry;
		if (f->id == FSC_PR_EXFAT_STRAY_SECONDARY && after_cut_set(r, f))
			continue;
		if (plan_view_read(r->dev, r->plan, off, e, 32) < 0 || !(e[0] & EXFAT_TYPE_IN_USE))
			continue;
		/*
		 * An unknown critical primary goes with its secondaries (in its
		 * cluster): those in use right after it, as the walk took them, up
		 * to its SecondaryCount; the first entry that is no secondary in
		 * use ends them (its count may be damaged: what follows may be
		 * sound sets).  One inside a file set is left.
		 */
		if (k >= 3 && ((e[0] & EXFAT_TYPE_SECONDARY) || e[0] == EXFAT_T_FILE))
			continue;
		if (k >= 3 && (n = 1u + exfat_secondary_count(e)) > v->cb / 32 - f->entry)
			n = v->cb / 32 - f->entry;
		if (n > 1 && plan_view_read(r->dev, r->plan, off, e, 32ull * n) < 0)
			continue;
		for (unsigned j = 1; j < n; j++)
			if ((e[EXFAT_ENTRY_AT(j)] & EXFAT_TYPE_IN_USE_SECONDARY) != EXFAT_TYPE_IN_USE_SECONDARY) {
				n = j;
				break;
			}
		for (unsigned j = 0; j < n; j++)
			e[EXFAT_ENTRY_AT(j)] = exfat_type_unused(e[EXFAT_ENTRY_AT(j)]);
		rp_put(r, off, e, 32ull * n, why[k], false);
		f->planned = true;
	}
}

/* A volume label longer than 11 characters cut to its first 11, or before a U+0000 among them. */
void repair_label_length(struct rp *r, struct xvol *v)
{
	uint64_t off;
	uint8_t e[32], n = 0;

	if (!rp_find(r, FSC_PR_EXFAT_LABEL_LENGTH) || !(off = rp_root_entry_of(r, v, EXFAT_T_LABEL)) ||
	    plan_view_read(r->dev, r->plan, off, e, 32) < 0 || !rp_take(r, FSC_PR_EXFAT_LABEL_LENGTH))
		return;
	while (n < 11 && exfat_label_unit(e, n))
		n++;
	rp_put(r, off + EXFAT_LABEL_CHARACTER_COUNT, &n, 1,
	       n == 11 ? "volume label cut to 11 characters" : "volume label cut before its first U+0000",
	    false);
}

/* A volume label's characters a file name may not hold (EXSPEC 7.3.2, 7.7.3) made '_'. */
void repair_label_chars(struct rp *r, struct xvol *v)
{
	uint8_t e[32];
	uint64_t off;

	if (!rp_find(r, FSC_PR_EXFAT_LABEL_CHARS) || !(off = rp_root_entry_of(r, v, EXFAT_T_LABEL)) ||
	    plan_view_read(r->dev, r->plan, off, e, 32) < 0 || !rp_take(r, FSC_PR_EXFAT_LABEL_CHARS))
		return;
	for (unsigned i = 0; i < e[EXFAT_LABEL_CHARACTER_COUNT] && i < EXFAT_LABEL_MAX_UNITS; i++)
		if (!exfat_name_char_ok(exfat_label_unit(e, i)))
			exfat_label_put_unit(e, i, '_');
	rp_put(r, off + EXFAT_LABEL_VOLUME_LABEL, e + EXFAT_LABEL_VOLUME_LABEL, 2 * EXFAT_LABEL_MAX_UNITS,
	       "volume label: '_' for each forbidden character", false);
}

/*
 * A duplicate name renamed in place: one unit (the last before the
 * extension's dot) becomes a digit or letter no other name of the
 * directory has there (the walk chose it); NameHash and SetChecksum
 * follow, the set read and written across the directory's clusters.  Not
 * without the volume's up-case table for a name beyond ASCII.
 */
void xr_fix_duplicates(struct rp *r, struct xvol *v)
{
	uint8_t set[256 * 32];
	struct exfat_set d;

	for (size_t i = 0; i < r->ndups; i++) {
		const struct dup_rename *u = &r->dups[i];
		struct exfat_where at = { u->cluster, u->entry, xv_cluster_byte(v, u->cluster) + 32ull * u->entry };
		struct fsc_finding *f = rp_set_finding(r, FSC_PR_EXFAT_NAME_DUPLICATE, &at);
		struct xr_span sp;
		bool ascii = true;
		unsigned n;
		char why[96];

		/* (a set may go on into the directory's next cluster: seed 569, pop-c512 #40, 512-byte clusters) */
		if (!f || !rp_wanted(r, f) || !xr_read_here(r, v, f, set, &sp))
			continue;
		n = exfat_secondary_count(set) + 1u;
		if (n < 3 || n > sp.room || set[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM)
			continue;
		exfat_set_decode(set, n, &d);
		if (u->pos >= d.nl)
			continue;
		d.name[u->pos] = u->unit;
		for (unsigned k = 0; k < d.nl; k++)
			ascii &= d.name[k] < 0x80;
		if (!v->upcase_ok && !ascii)
			continue;
		put_le16(set, exfat_set_name_unit_at(u->pos), u->unit);
		exfat_stream_put_name_hash(EXFAT_STREAM_OF(set), fsc_exfat_name_hash(d.name, d.nl, v->upcase));
		exfat_primary_put_set_checksum(set, fsc_exfat_set_checksum(set, n));
		snprintf(why, sizeof(why), "rename a duplicate name (character %u becomes %c)", u->pos + 1, u->unit);
		xr_put_span(r, &sp, set, 0, n, why);
		f->planned = true;
	}
}
