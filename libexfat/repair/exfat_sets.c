// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_sets.c - one file set's fields planned, once the walk that
 * reported it is over: its chain or extent (exfat_chain.c), NameLength,
 * the name's forbidden characters, GeneralSecondaryFlags, a FirstCluster
 * with no size, NameHash, ValidDataLength, then SetChecksum.
 *
 * Consumes: the set as the walk assembled it, the hash its name should
 * have, how its chain went.  Produces: the set's edits in the plan, the
 * set remembered (rp_remember_set) with what was fixed in it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "repair/repair.h"

/*
 * A NameLength that the name entries do not bear out (more units than
 * they hold, or 0) recomputed from them: the units up to the first U+0000.
 * Entries that hold no name at all give the set the name _C_E (its
 * cluster and entry in hex: unique in the directory).  NameHash follows;
 * not without the volume's up-case table for a name beyond ASCII.
 */
static unsigned fix_name_length(struct rp *r, struct xvol *v, const struct exfat_asm *a, uint8_t *set)
{
	struct exfat_set d;
	unsigned cap, nl = 0;
	bool ascii = true;
	char gen[24];

	exfat_set_decode(set, a->count, &d);
	cap = 15 * d.name_entries < 255 ? 15 * d.name_entries : 255;
	if (!cap || (d.name_length && d.name_length <= cap) ||
	    !rp_set_wanted(r, d.name_length ? FSC_PR_EXFAT_NAME_ENTRIES : FSC_PR_EXFAT_NAME_LENGTH, &a->at))
		return 0;
	for (uint16_t u; nl < cap && (u = get_le16(set, exfat_set_name_unit_at(nl))); nl++)
		ascii &= u < 0x80;
	if (!v->upcase_ok && !ascii)
		return 0;
	if (nl == 0) {
		snprintf(gen, sizeof(gen), "_%X_%X", a->at.cluster, a->at.entry);
		for (nl = 0; gen[nl]; nl++)
			put_le16(set, exfat_set_name_unit_at(nl), (uint8_t)gen[nl]);
	}
	EXFAT_STREAM_OF(set)[EXFAT_STREAM_NAME_LENGTH] = (uint8_t)nl;
	exfat_set_decode(set, a->count, &d);
	exfat_stream_put_name_hash(EXFAT_STREAM_OF(set), fsc_exfat_name_hash(d.name, d.nl, v->upcase));
	return SF_NAMELEN | SF_NAME | SF_HASH;
}

/*
 * A name that is . or .., or holds forbidden characters, renamed in place:
 * each such character (every dot of . and ..) becomes '_', so the name
 * keeps its length, its entries and its extension; the NameHash follows.
 * Not without the volume's up-case table for a name beyond ASCII.
 */
static unsigned fix_name(struct rp *r, struct xvol *v, const struct exfat_asm *a, uint8_t *set)
{
	struct exfat_set d;
	bool dot, ascii = true, changed = false;

	exfat_set_decode(set, a->count, &d);
	dot = d.nl && d.name[0] == '.' && (d.nl == 1 || (d.nl == 2 && d.name[1] == '.'));
	for (unsigned i = 0; i < d.nl; i++)
		if (dot || !exfat_name_unit_ok(d.name, d.nl, i)) {
			d.name[i] = 0xFFFF;	/* (made '_' below: its neighbour's pairing is judged on the old unit) */
			changed = true;
		}
	for (unsigned i = 0; i < d.nl; i++) {
		if (d.name[i] == 0xFFFF)
			d.name[i] = '_';
		ascii &= d.name[i] < 0x80;
	}
	if (!changed || (!v->upcase_ok && !ascii) ||
	    !rp_set_wanted(r, dot ? FSC_PR_EXFAT_NAME_DOT : FSC_PR_EXFAT_NAME_CHARS, &a->at))
		return 0;
	for (unsigned i = 0; i < d.nl; i++)
		put_le16(set, exfat_set_name_unit_at(i), d.name[i]);
	exfat_stream_put_name_hash(EXFAT_STREAM_OF(set), fsc_exfat_name_hash(d.name, d.nl, v->upcase));
	return SF_NAME | SF_HASH;
}

/* Reserved FileAttributes bits cleared; stream flags: AllocationPossible set, reserved bits cleared, NoFatChain of an empty file cleared. */
static unsigned fix_flags(struct rp *r, const struct exfat_asm *a, uint8_t *set)
{
	uint8_t *sf = EXFAT_STREAM_OF(set) + EXFAT_STREAM_FLAGS;
	unsigned ids = 0;

	if ((exfat_file_attributes(set) & EXFAT_ATTR_RESERVED) && rp_set_wanted(r, FSC_PR_EXFAT_ATTRIBUTES, &a->at)) {
		exfat_file_put_attributes(set, exfat_file_attributes(set) & EXFAT_ATTR_DEFINED);
		ids |= SF_ATTR;
	}
	if ((!(*sf & EXFAT_STREAM_FLAG_ALLOC_POSSIBLE) || (*sf & EXFAT_STREAM_FLAGS_RESERVED)) &&
	    rp_set_wanted(r, FSC_PR_EXFAT_STREAM_FLAGS, &a->at)) {
		*sf = (uint8_t)((*sf & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) | EXFAT_STREAM_FLAG_ALLOC_POSSIBLE);
		ids |= SF_FLAGS;
	}
	/* (no cluster, so no run in a row: Linux writes an empty file's flags so) */
	if ((*sf & EXFAT_STREAM_FLAG_NO_FAT_CHAIN) && !exfat_stream_first_cluster(EXFAT_STREAM_OF(set)) &&
	    !exfat_stream_data_length(EXFAT_STREAM_OF(set)) && rp_set_wanted(r, FSC_PR_EXFAT_EMPTY_NO_FAT_CHAIN, &a->at)) {
		*sf &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
		ids |= SF_NOFAT;
	}
	return ids;
}

/*
 * A file whose FirstCluster and DataLength disagree (one is 0): with no
 * cluster, its size becomes 0 (there are no bytes to keep); with a cluster
 * and size 0, FirstCluster becomes 0 and the chain is lost clusters,
 * which -y saves.  A directory's is exfat_dir.c's.
 */
static unsigned fix_first(struct rp *r, const struct exfat_asm *a, uint8_t *set)
{
	uint32_t first = exfat_stream_first_cluster(EXFAT_STREAM_OF(set));
	uint64_t size = exfat_stream_data_length(EXFAT_STREAM_OF(set));

	if ((first == 0) == (size == 0) || (exfat_file_attributes(set) & EXFAT_ATTR_DIRECTORY) ||
	    !rp_set_wanted(r, FSC_PR_EXFAT_FIRST_CLUSTER, &a->at))
		return 0;
	exfat_stream_put_first_cluster(EXFAT_STREAM_OF(set), 0);
	exfat_stream_put_valid_data_length(EXFAT_STREAM_OF(set), 0);
	exfat_stream_put_data_length(EXFAT_STREAM_OF(set), 0);
	/* no clusters: no NoFatChain (fsck.exfat refuses the pair) */
	EXFAT_STREAM_OF(set)[EXFAT_STREAM_FLAGS] &= (uint8_t)~EXFAT_STREAM_FLAG_NO_FAT_CHAIN;
	return SF_FIRST;
}

void xr_plan_set(struct rp *r, struct xvol *v, const struct exfat_asm *a, int32_t want_hash,
		 const struct chain_res *chain, const char *path)
{
	unsigned n = a->count, ids = 0;
	uint8_t set[256 * 32];
	char why[320];

	/* A name entry damaged where the count and NameLength agree: exfat_revive.c rebuilds the set whole. */
	if (xr_revive_names_damaged(a->set, n))
		return;
	memcpy(set, a->set, 32ull * n);
	/* Sizes a flipped bit made contradict, taken back by the set's checksum: what the walk claimed for them is stale. */
	if (rp_set_wanted(r, FSC_PR_EXFAT_VALID_DATA_LENGTH, &a->at) && xr_undo_size_flip(v, set, n, want_hash, chain, r->undo_sound, &r->undo_triples)) {
		ids = SF_VDL | SF_CHAIN;
		r->size_undone = true;
		xr_release_past(r, v, a->set, set, chain);
	} else if (chain && (ids = xr_fix_extent(r, v, a, chain, set)) != 0)
		;
	else if (chain && chain->crossed)
		ids |= xr_fix_cross(r, v, a, chain, set, path);
	else if (chain)
		ids |= xr_fix_chain(r, v, a, chain, set, path);
	ids |= fix_name_length(r, v, a, set);
	/* (a name bit flipped: the stored NameHash and SetChecksum prove which; the set is then what it was) */
	if (want_hash >= 0 && rp_set_wanted(r, FSC_PR_EXFAT_NAME_HASH, &a->at) && xr_undo_name_flip(v, set, n)) {
		want_hash = -1;
		ids |= SF_HASH | SF_CHECKSUM;
	}
	ids |= fix_name(r, v, a, set);
	ids |= fix_flags(r, a, set);
	ids |= fix_first(r, a, set);
	if (!(ids & SF_NAME) && want_hash >= 0 && rp_set_wanted(r, FSC_PR_EXFAT_NAME_HASH, &a->at)) {
		exfat_stream_put_name_hash(EXFAT_STREAM_OF(set), (uint16_t)want_hash);
		ids |= SF_HASH;
	}
	if (exfat_stream_valid_data_length(EXFAT_STREAM_OF(set)) > exfat_stream_data_length(EXFAT_STREAM_OF(set)) &&
	    rp_set_wanted(r, FSC_PR_EXFAT_VALID_DATA_LENGTH, &a->at)) {
		exfat_stream_put_valid_data_length(EXFAT_STREAM_OF(set), exfat_stream_data_length(EXFAT_STREAM_OF(set)));
		ids |= SF_VDL;
	}
	if (fsc_exfat_set_checksum(a->set, n) != exfat_primary_set_checksum(a->set) &&
	    (ids || rp_set_wanted(r, FSC_PR_EXFAT_SET_CHECKSUM, &a->at)))
		ids |= SF_CHECKSUM;
	if (!ids)
		return;
	xr_zero_name_tail(set, n);
	if (!(ids & ~(SF_CHAIN | SF_CROSS)) && !memcmp(set, a->set, 32ull * n)) {	/* only the FAT changed */
		rp_remember_set(r, a->at.offset, ids);
		return;
	}
	exfat_primary_put_set_checksum(set, fsc_exfat_set_checksum(set, n));
	if (exfat_primary_set_checksum(set) != exfat_primary_set_checksum(a->set))
		ids |= SF_CHECKSUM;
	snprintf(why, sizeof(why), "%s%s%s%s%s%s%s: %.120s", ids & SF_NAMELEN ? "NameLength from the name entries, " : "",
		 ids & SF_NAME ? "rename ('_' for each forbidden character), " : "",
		 ids & (SF_CHAIN | SF_FIRST) ? "DataLength, " : "", ids & SF_FIRST ? "FirstCluster, " : "",
		 ids & SF_HASH ? "NameHash, " : "", ids & SF_VDL ? "ValidDataLength, " : "", "SetChecksum", path);
	rp_write_set(r, a, set, why, ids & SF_CROSS);
	rp_remember_set(r, a->at.offset, ids);
}

