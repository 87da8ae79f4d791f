// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_tree.c - pass 3: the directory tree, walked with an explicit
 * stack from the root.  Every directory cluster is read whole: up to the
 * end marker here, and the rest (where entries must be 0x00 too) through
 * dirtail.c; entry sets are parsed across cluster boundaries and
 * checked: checksum, SecondaryCount, stream extension, names (count,
 * characters, hash, and duplicates under the volume's up-case table:
 * exfat_names.c), attributes, timestamps, sizes, and the root-only
 * entries.  Each allocation is claimed through exfat_alloc.c.  The walk's
 * state is in exfat_walk.h.
 *
 * Consumes: struct xvol with FAT, bitmap and up-case loaded.  Produces:
 * findings, counts, the claimed set.  A directory whose first cluster was
 * already claimed is not read again, so cycles end; memory is one node per
 * directory (parent and name) and the names of the directory being read.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/exfat_walk.h"
#include "io/io.h"

/* Ask for len bytes of j's first cluster now: the kernel fetches them while the walk goes on. */
static void ask_head(struct walk *w, struct job *j, uint32_t len)
{
	j->head = len;
	if (ck_cluster_valid(&w->v->ck, j->first))
		dev_willneed(w->v->dev, xv_cluster_byte(w->v, j->first), len);
}

/* Read whole (no to_end_marker): asked for at once; else ask_ahead() asks once a sibling shows how much. */
static void push_job(struct walk *w, size_t node, uint32_t first, uint64_t size, bool nofat, bool odd, bool held)
{
	struct job *j = dirwalk_push(&w->dw, &(struct job){ node, first, size, nofat, w->as.at, w->nofat, odd, 0, held });

	if (j && !ck_to_end_marker(&w->v->ck) && dev_ask_ahead(&w->warmth))
		ask_head(w, j, w->v->cb < XV_DIR_CHUNK ? w->v->cb : XV_DIR_CHUNK);
}

#define SIBLINGS_AHEAD 1024u	/* siblings asked for at a time (held by the page cache) */

/* fsck -p, a directory read: ask for its first child's head, then for its waiting siblings' heads, */
/* as many bytes as it took (a tree's levels look alike): one request a directory, each job once. */
static void ask_ahead(struct walk *w)
{
	size_t parent = w->dw.nodes.v[w->node].parent;
	uint32_t chunk = w->v->cb < XV_DIR_CHUNK ? w->v->cb : XV_DIR_CHUNK;
	uint32_t len = (w->used + DIR_HEAD - 1) / DIR_HEAD * DIR_HEAD;
	struct job *top = w->dw.njobs > w->siblings ? dirwalk_job(&w->dw, w->dw.njobs - 1) : NULL;

	if (!ck_to_end_marker(&w->v->ck) || !dev_ask_ahead(&w->warmth))
		return;
	if (top && !top->head)
		ask_head(w, top, w->v->cb < DIR_HEAD ? w->v->cb : DIR_HEAD);
	for (size_t k = w->siblings, n = 0; !w->is_root && len && k-- > 0 && n++ < SIBLINGS_AHEAD;) {
		struct job *j = dirwalk_job(&w->dw, k);

		if (j->head || w->dw.nodes.v[j->node].parent != parent)
			break;
		ask_head(w, j, len < chunk ? len : chunk);
	}
}

/* ---- timestamps (EXSPEC 7.4.8) ---- */

static const char *ts_problem(uint32_t ts, unsigned ms10)
{
	static const uint8_t mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned sec2 = ts & 0x1F, min = (ts >> 5) & 0x3F, hour = (ts >> 11) & 0x1F;
	unsigned day = (ts >> 16) & 0x1F, month = (ts >> 21) & 0xF;

	unsigned year = 1980 + (ts >> 25);
	bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

	if (month < 1 || month > 12 || day < 1 || day > mdays[month - 1] || (month == 2 && day == 29 && !leap))
		return "date";
	if (hour > 23 || min > 59 || sec2 > 29)
		return "time";
	if (ms10 > 199)
		return "10 ms field";
	return NULL;
}

static const char *fname(struct fileinfo *fi);

static void check_times(struct walk *w, struct fileinfo *fi)
{
	static const char *const what[] = { "create", "last modified", "last accessed" };
	struct fsc_finding *f;

	for (int i = 0; i < 3; i++) {
		uint32_t ts = fi->d.time[i];
		const char *bad = ts_problem(ts, i < 2 ? fi->d.ms10[i] : 0);
		uint8_t utc = fi->d.utc_raw[i];
		int off = (utc & 0x40) ? (int)(utc & 0x7F) - 128 : (int)(utc & 0x7F);

		if (bad && (f = AT_SET(w, EXFAT_TIMESTAMP, fname(fi)))) {
			finding_actual(f, "%s 0x%08x", bad, ts);
			finding_detail(f, "%s", what[i]);
			return;		/* one finding per set */
		}
		if ((utc & 0x80) && (off < -48 || off > 56) && (f = AT_SET(w, EXFAT_UTC_OFFSET, fname(fi)))) {
			finding_actual(f, "%+d minutes", off * 15);
			finding_detail(f, "%s", what[i]);
			return;
		}
	}
}

/* ---- file entry sets (EXSPEC 7.4-7.7) ---- */


/* The UTF-8 name, converted when first needed (findings, directories). */
static const char *fname(struct fileinfo *fi)
{
	if (!fi->named) {
		uint8_t le[510];

		for (unsigned i = 0; i < fi->d.nl; i++)
			put_le16(le, 2 * i, fi->d.name[i]);
		utf16le_to_utf8(le, fi->d.nl, fi->name, sizeof(fi->name));
		fi->named = true;
	}
	return fi->name;
}

/* Structure of the set: count, stream, names.  False when it cannot be used. */
static bool set_structure(struct walk *w, struct fileinfo *fi)
{
	const uint8_t *s = w->as.set;
	const struct exfat_set *d = &fi->d;
	unsigned sc = exfat_secondary_count(s), names = (d->name_length + 14u) / 15u;
	struct fsc_finding *f;

	if (sc < 2) {
		if ((f = AT_SET(w, EXFAT_SET_COUNT, NULL)))
			finding_detail(f, "has SecondaryCount %u, at least 2 needed", sc);
		return false;
	}
	if (s[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM) {
		if ((f = AT_SET(w, EXFAT_STREAM_MISSING, NULL)))
			finding_actual(f, "%02x", s[EXFAT_SET_STREAM_AT]);
		return false;
	}
	if (d->name_entries < names && (f = AT_SET(w, EXFAT_NAME_ENTRIES, NULL))) {
		finding_actual(f, "%u", d->name_length);
		finding_expected(f, "%u", names);
		finding_detail(f, "the set has %u", d->name_entries);
	}
	for (unsigned i = 1 + d->name_entries; i < sc; i++) {	/* secondaries after the names */
		uint8_t t = s[EXFAT_ENTRY_AT(i + 1)];

		if ((t & 0x20) == 0 && t != EXFAT_T_NAME && (f = AT_SET(w, EXFAT_UNKNOWN_CRITICAL, fname(fi))))
			finding_actual(f, "%02x", t);
	}
	return true;
}

static void set_fields(struct walk *w, struct fileinfo *fi, uint16_t hash)
{
	struct fsc_finding *f;
	bool dir = fi->d.attr & EXFAT_ATTR_DIRECTORY;

	if (fi->d.nl == 0)
		AT_SET(w, EXFAT_NAME_LENGTH, NULL);
	if (fi->d.nl) {
		uint16_t want;
		bool ascii;
		unsigned bad = xw_take_name(w, fi->d.name, fi->d.nl, &want, &ascii);

		if (bad < fi->d.nl && (f = AT_SET(w, EXFAT_NAME_CHARS, fname(fi))))
			finding_actual(f, "%04X", fi->d.name[bad]);
		if (fi->d.name[0] == '.' && (fi->d.nl == 1 || (fi->d.nl == 2 && fi->d.name[1] == '.')) &&
		    (f = AT_SET(w, EXFAT_NAME_DOT, fname(fi))))
			finding_actual(f, "%s", fi->d.nl == 1 ? "." : "..");
		w->bad_name = bad < fi->d.nl || (fi->d.name[0] == '.' && (fi->d.nl == 1 ||
							  (fi->d.nl == 2 && fi->d.name[1] == '.')));
		/*
		 * Without the volume's own up-case table (missing, or failing its
		 * checksum) only ASCII is known to up-case; other names are not judged.
		 */
		if (want != hash && (w->v->upcase_ok || ascii)) {
			w->want_hash = want;
			if ((f = AT_SET(w, EXFAT_NAME_HASH, fname(fi)))) {
				finding_actual(f, "0x%04x", hash);
				finding_expected(f, "0x%04x", want);
			}
		}
	}
	w->bad_flags = (fi->d.attr & 0xFFC8) || !(fi->d.flags & 1) || (fi->d.flags & 0xFC) || exfat_set_empty_contiguous(&fi->d);
	if ((fi->d.attr & 0xFFC8) && (f = AT_SET(w, EXFAT_ATTRIBUTES, fname(fi))))
		finding_actual(f, "0x%04x", fi->d.attr);
	if ((!(fi->d.flags & 1) || (fi->d.flags & 0xFC)) && (f = AT_SET(w, EXFAT_STREAM_FLAGS, fname(fi)))) {
		finding_actual(f, "0x%02x", fi->d.flags);
		finding_detail(f, "%s", !(fi->d.flags & 1) ? "AllocationPossible is 0" : "reserved bits set");
	}
	if (exfat_set_empty_contiguous(&fi->d) && (f = AT_SET(w, EXFAT_EMPTY_NO_FAT_CHAIN, fname(fi))))
		finding_actual(f, "0x%02x", fi->d.flags);
	if (fi->d.valid_size > fi->d.size && (f = AT_SET(w, EXFAT_VALID_DATA_LENGTH, fname(fi)))) {
		finding_actual(f, "%llu", (unsigned long long)fi->d.valid_size);
		finding_expected(f, "%llu", (unsigned long long)fi->d.size);
	}
	if ((fi->d.first_cluster == 0) != (fi->d.size == 0) && (f = AT_SET(w, EXFAT_FIRST_CLUSTER, fname(fi)))) {
		finding_actual(f, "%u", fi->d.first_cluster);
		finding_expected(f, "%llu", (unsigned long long)fi->d.size);
	}
	if (dir && (fi->d.size == 0 || fi->d.size % w->v->cb || fi->d.size > MAX_DIR_BYTES || fi->d.valid_size != fi->d.size) &&
	    (f = AT_SET(w, EXFAT_DIR_SIZE, fname(fi)))) {
		finding_actual(f, "%llu", (unsigned long long)fi->d.size);
		finding_detail(f, "%s", fi->d.size == 0 ? "a directory needs at least one cluster" :
			       fi->file_shaped ? "a file's size for its clusters: a file whose attributes say directory" :
			       fi->d.size % w->v->cb ? "not a multiple of the cluster size" :
			       fi->d.size > MAX_DIR_BYTES ? "larger than 256 MiB" : "ValidDataLength differs");
	}
	check_times(w, fi);
}

/*
 * A set whose structure is sound (stream, enough name entries) and whose
 * SetChecksum, NameHash or ValidDataLength is wrong: the repair planner
 * decides; the path is the set's own.
 */
static void offer_set(struct walk *w, struct fileinfo *fi, uint16_t sum, const struct chain_res *chain)
{
	char path[4096 + 800];
	uint64_t need = (fi->d.size + w->v->cb - 1) / w->v->cb;
	/* (neither ended nor broken: on past its size into another's cluster, where the walk stopped) */
	bool chain_bad = chain && (chain->crossed || chain->broken || !chain->ended || chain->clusters != need);
	bool bad_first = (fi->d.first_cluster == 0) != (fi->d.size == 0);
	bool bad_length = fi->d.name_entries && (fi->d.name_length == 0 || fi->d.name_entries * 15 < fi->d.name_length);

	if (!w->v->fix || w->v->ck.owners_pass || (!bad_length && fi->d.nl == 0))
		return;
	if (sum == exfat_primary_set_checksum(w->as.set) && w->want_hash < 0 && fi->d.valid_size <= fi->d.size && !chain_bad &&
	    !w->bad_name && !w->bad_flags && !bad_first && !bad_length)
		return;
	snprintf(path, sizeof(path), "%s%s%s", w->dw.path, strcmp(w->dw.path, "/") ? "/" : "", fname(fi));
	w->dm.unsound = true;
	w->v->fix->set(w->v->fix->ctx, w->v, &w->as, w->want_hash, chain_bad ? chain : NULL, path);
}

/*
 * The allocations of the set's benign secondaries after its names: the
 * Generic Secondary template's (EXSPEC 6.4: AllocationPossible,
 * FirstCluster, DataLength, NoFatChain) of a Vendor Allocation entry
 * (7.9) or of one of a type no one here knows.  Linux frees them with the
 * set (fs/exfat/dir.c, exfat_free_benign_secondary_clusters, since 6.3),
 * so they are the file's: claimed as such, they are neither lost clusters
 * that -y would save as files nor free for another.  Only in a set its
 * SetChecksum proves: bytes that merely look like such an entry claim
 * nothing.
 */
static void claim_benign(struct walk *w, struct fileinfo *fi, const uint8_t *set, unsigned sc)
{
	struct xvol *v = w->v;

	for (unsigned k = EXFAT_SET_FIRST_NAME + fi->d.name_entries; k <= sc; k++) {
		const uint8_t *e = set + EXFAT_ENTRY_AT(k);
		uint32_t first = get_le32(e, EXFAT_SECONDARY_FIRST_CLUSTER);
		uint64_t len = get_le64(e, EXFAT_SECONDARY_DATA_LENGTH);
		char name[800];
		struct owner who = { w->dw.path, name, w->as.at.cluster, w->as.at.entry, NULL, 0, false, 0, 0 };
		struct chain_res res;

		if ((e[EXFAT_ENTRY_TYPE] & EXFAT_TYPE_BENIGN_SECONDARY) != EXFAT_TYPE_BENIGN_SECONDARY ||
		    !(e[EXFAT_SECONDARY_FLAGS] & EXFAT_STREAM_FLAG_ALLOC_POSSIBLE) || !first || !len)
			continue;
		w->hold.ok = false;	/* (not replayed: exfat_replay.c) */
		snprintf(name, sizeof(name), "%s (its secondary entry %u, type 0x%02X)", fi->d.nl ? fname(fi) : "?", k,
			 e[EXFAT_ENTRY_TYPE]);
		ck_claim(&v->ck, &who, first, len, e[EXFAT_SECONDARY_FLAGS] & EXFAT_STREAM_FLAG_NO_FAT_CHAIN, &res, NULL,
			 NULL);
		ck_progress(&v->ck, res.clusters);
	}
}

/*
 * The repair planner hears of a directory it must mend without its walk:
 * one whose entry gives it no cluster (res: none), or a file whose
 * FileAttributes say directory (res: the chain it was claimed by).
 */
static void tell_dir(struct walk *w, struct fileinfo *fi, const struct chain_res *res)
{
	char path[4096 + 800];

	snprintf(path, sizeof(path), "%s%s%s", w->dw.path, strcmp(w->dw.path, "/") ? "/" : "", fname(fi));
	w->dm.unsound = true;
	w->v->fix->dir(w->v->fix->ctx, &w->as.at, w->nofat, res, fi->file_shaped, path);
}

/*
 * A "directory" whose DataLength is no whole number of clusters but is a
 * file's for the clusters it has (in a row, or a FAT chain of exactly
 * that many, ended), ValidDataLength no larger: a file whose directory
 * bit the damage set (0x20 -> 0x30; a 4 MiB-aligned volume, seed 13 #0),
 * when its first byte cannot start a directory either (a file set, one
 * not in use, the end marker).  A directory's size flipped is over its
 * chain's clusters, or a whole number of them; one in a row has no chain
 * to tell, and its first entry does.  Not walked: its bytes are no
 * entries.
 */
static bool file_dir_bit(struct walk *w, const struct exfat_set *d)
{
	struct xvol *v = w->v;
	uint64_t need = (d->size + v->cb - 1) / v->cb;
	struct layout_chain it;
	uint8_t t;
	uint32_t c;

	if (!(d->attr & EXFAT_ATTR_DIRECTORY) || !d->size || !(d->size % v->cb) || d->valid_size > d->size ||
	    !xv_cluster_valid(v, d->first_cluster) || need > v->cc ||
	    fsc_dev_read(v->dev, xv_cluster_byte(v, d->first_cluster), &t, 1) < 0 || t == EXFAT_T_FILE ||
	    t == (EXFAT_T_FILE & 0x7F) || t == 0x00)
		return false;
	if (d->flags & 2)
		return (uint64_t)d->first_cluster + need - 1 <= (uint64_t)v->cc + 1;
	layout_chain_begin(&it, &v->lay, fatreader_link, &v->fr, d->first_cluster, 0, false);
	while (it.n <= need && layout_chain_next(&it, &c))
		;
	return it.n == need && it.end == LAYOUT_CHAIN_END;
}

static void finish_file_set(struct walk *w)
{
	struct xvol *v = w->v;
	const uint8_t *set = w->as.set;
	unsigned sc = exfat_secondary_count(set);
	/* (known: the set's bytes are as the first check found them sound) */
	uint16_t stored = exfat_primary_set_checksum(set), sum = w->dm.known ? stored : fsc_exfat_set_checksum(set, sc + 1);
	struct fileinfo *fi = &w->fi;
	struct fsc_finding *f;
	bool usable;

	exfat_set_decode(set, sc + 1, &fi->d);
	fi->named = false;
	fi->file_shaped = file_dir_bit(w, &fi->d);
	usable = set_structure(w, fi);
	if (sum != stored && (f = AT_SET(w, EXFAT_SET_CHECKSUM, fi->d.nl ? fname(fi) : NULL))) {
		finding_actual(f, "0x%04x", stored);
		finding_expected(f, "0x%04x", sum);
	}
	if (!usable)
		return;
	w->want_hash = -1;
	w->bad_name = false;
	w->bad_flags = false;
	if (!w->dm.known)
		set_fields(w, fi, fi->d.name_hash);
	if ((fi->d.attr & EXFAT_ATTR_DIRECTORY) && !fi->file_shaped) {
		offer_set(w, fi, sum, NULL);
		v->ck.sum->dirs++;
		/*
		 * A size that is no whole number of clusters (reported above)
		 * counts whole ones only; size 0 (reported): a FAT chain is
		 * followed to its end, clusters in a row count as one.
		 */
		uint64_t dl = fi->d.size >= v->cb ? fi->d.size - fi->d.size % v->cb :
			      fi->d.size ? fi->d.size : (fi->d.flags & 2) ? v->cb : 0;
		bool odd = fi->d.size == 0 || fi->d.size % v->cb || fi->d.valid_size != fi->d.size ||
			   fi->d.size > MAX_DIR_BYTES;

		/*
		 * Its first cluster is claimed now, not when it is walked: an
		 * entry read later (deeper, in the depth-first walk) that points
		 * there is the one that crosses it (seed 677, pop-many #17: a
		 * torn write left in /d06 a copy of the root's entry of /d05;
		 * /d06/d05, walked first, took /d05's tree, and /d05 was made
		 * empty).
		 */
		struct owner who = { w->dw.path, NULL, w->as.at.cluster, w->as.at.entry, fi->d.name, fi->d.nl, false, 0, 0 };

		if (fi->d.first_cluster) {
			push_job(w, dirwalk_add(&w->dw, w->node, fi->d.nl ? fname(fi) : "?"), fi->d.first_cluster, dl,
				 fi->d.flags & 2, odd, ck_hold_head(&v->ck, &who, fi->d.first_cluster));
			xw_hold_dir(w, &fi->d, dl, odd, fi->d.nl ? fname(fi) : "?");
		} else if (v->fix && v->fix->dir && !v->ck.owners_pass)	/* a directory with no cluster (size 0 too) */
			tell_dir(w, fi, &(struct chain_res){ 0 });
	} else {
		struct owner who = { w->dw.path, NULL, w->as.at.cluster, w->as.at.entry, fi->d.name, fi->d.nl, false, 0,
				     fi->d.valid_size < fi->d.size ? fi->d.valid_size : 0 };
		struct chain_res res;

		v->ck.sum->files++;
		xw_hold_file(w, &fi->d);
		if (fi->d.first_cluster && fi->d.size) {
			ck_claim(&v->ck, &who, fi->d.first_cluster, fi->d.size, fi->d.flags & 2, &res, NULL, NULL);
			if (!res.contiguous)
				v->ck.sum->fragmented++;
			ck_progress(&v->ck, res.clusters);
			offer_set(w, fi, sum, res.good || res.crossed || res.broken ? &res : NULL);
			/* (a file that says directory: the planner's directory fixes make it a file again) */
			if (fi->file_shaped && v->fix && v->fix->dir && !v->ck.owners_pass)
				tell_dir(w, fi, &res);
		} else {
			offer_set(w, fi, sum, NULL);
		}
	}
	if (sum == stored)
		claim_benign(w, fi, set, sc);
}

/* ---- entries outside file sets ---- */

static void root_entry(struct walk *w, const uint8_t *e)
{
	static const char *const what[] = { "allocation bitmap", "up-case table", "volume label" };
	struct fsc_finding *f;
	unsigned *count = e[0] == EXFAT_T_BITMAP ? &w->n_bitmap : e[0] == EXFAT_T_UPCASE ? &w->n_upcase :
			  e[0] == EXFAT_T_LABEL ? &w->n_label : &w->n_guid;
	unsigned max = e[0] == EXFAT_T_BITMAP ? (w->v->p->ex.num_fats == 2 ? 2 : 1) : 1;

	if (++*count > max && (f = AT_ENTRY(w, EXFAT_DUPLICATE_ROOT_ENTRY)))
		finding_detail(f, "%s", e[0] == EXFAT_T_GUID ? "volume GUID" : what[e[0] - EXFAT_T_BITMAP]);
	if (e[0] == EXFAT_T_GUID && *count == 1) {
		const char *bad = e[EXFAT_GUID_SECONDARY_COUNT] != 0 ? "SecondaryCount is not 0" :
				  (exfat_primary_flags(e) & EXFAT_PRIMARY_FLAG_ALLOC_POSSIBLE) ? "AllocationPossible is set" :
				  bytes_all(e, EXFAT_GUID_VOLUME_GUID, 16, 0) ? "the GUID is null" :
				  fsc_exfat_set_checksum(e, 1) != exfat_primary_set_checksum(e) ? "checksum mismatch" : NULL;

		if (bad && (f = AT_ENTRY(w, EXFAT_GUID_ENTRY)))
			finding_detail(f, "%s", bad);
	}
}

/* A primary that opens no file set: root-only entries, TexFAT padding. */
static void primary_entry(struct walk *w, const uint8_t *e)
{
	static const char *const root_names[] = { "allocation bitmap", "up-case table", "volume label" };
	uint8_t t = e[0];
	struct fsc_finding *f;

	if (t == EXFAT_T_PADDING)
		return;
	if (w->is_root) {
		root_entry(w, e);
	} else if ((f = AT_ENTRY(w, EXFAT_ROOT_ONLY_ENTRY))) {
		finding_actual(f, "%02x", t);
		finding_detail(f, "%s", t == EXFAT_T_GUID ? "volume GUID" : root_names[t - EXFAT_T_BITMAP]);
	}
}

/* A primary of a type this checker does not know: its secondaries are skipped with it. */
static void unknown_primary(struct walk *w, uint8_t t)
{
	struct fsc_finding *f;

	f = xw_entry_finding(w, (t & 0x20) ? FSC_PR_EXFAT_UNKNOWN_BENIGN : FSC_PR_EXFAT_UNKNOWN_CRITICAL,
			  w->cluster, w->entry, NULL);
	if (f)
		finding_actual(f, "%02x", t);
}

static void cut_short(struct walk *w)
{
	struct fsc_finding *f;

	if (w->as.set[0] == EXFAT_T_FILE && (f = AT_SET(w, EXFAT_SET_COUNT, NULL)))
		finding_detail(f, "has SecondaryCount %u but is cut short by %s", exfat_secondary_count(w->as.set),
			       exfat_cut_name(w->as.cut_by));
}

static void one_entry(struct walk *w, const uint8_t *e)
{
	struct exfat_where at = { w->cluster, w->entry, xv_cluster_byte(w->v, w->cluster) + 32ull * w->entry };
	enum exfat_ev ev;
	struct fsc_finding *f;

	while ((ev = exfat_asm_feed(&w->as, e, &at)) == EXA_CUT)
		cut_short(w);
	switch (ev) {
	case EXA_END:
		w->end_seen = true;
		if (w->marks && w->dirs < w->capmarks)
			w->marks[w->dirs] = (struct dir_mark){ w->cluster, w->entry, w->nofat };
		break;
	case EXA_STRAY:
		if ((f = AT_ENTRY(w, EXFAT_STRAY_SECONDARY)))
			finding_actual(f, "%02x", e[0]);
		break;
	case EXA_PRIMARY:
		primary_entry(w, e);
		break;
	case EXA_BEGIN:
		if (e[0] != EXFAT_T_FILE)
			unknown_primary(w, e[0]);
		break;
	case EXA_SET:
		if (w->as.set[0] == EXFAT_T_FILE)
			finish_file_set(w);
		else if (w->as.count == 1)
			unknown_primary(w, e[0]);
		break;
	default:
		break;
	}
}

/* Past the end marker only 0x00 may follow: n entries of d, already read. */
static void after_end(struct walk *w, const uint8_t *d, uint32_t n, uint32_t first)
{
	uint32_t i = dt_first_used(d, n);

	if (i < n) {
		dirtail_note(w->tail, w->node, w->dirs, w->cluster, first + i, d[EXFAT_ENTRY_AT(i)]);
		w->after_end_told = true;
		w->dm.unsound = true;	/* (what follows its end marker is not free: not kept) */
	}
}

/*
 * A part of the directory read, before its entries are parsed: recorded
 * (a repair's first check: dir_sound); or, in a later check, one of the
 * parts the first check read, in the same order (dir_known).
 *
 * While it is, the entries are as the first check found them: the same
 * bytes, parsed from the same state, under the same judge (the key), so
 * with no finding of their own nor duplicate names, and they are not
 * judged again.  The parts come as they came then: the same first
 * cluster, the same bytes up to the same end marker, the same FAT entries
 * between the clusters; what the walk may do otherwise is stop sooner (a
 * cluster claimed by another first, a read that fails), and fewer entries
 * of a directory without findings have none either.
 */
static uint32_t note_part(struct walk *w, uint32_t c, uint32_t at, uint32_t len)
{
	if (!w->v->fix)
		return len;
	return ck_memo_part(&w->dm, xv_cluster_byte(w->v, c) + at, w->nofat ? 0 : w->v->fat_byte + 4ull * c, len);
}

/*
 * One cluster of a directory: the entries up to the end marker are parsed
 * here; the rest of what was read is scanned at once, and what lies beyond
 * goes to dirtail.c unread.  While resolving cross-links nothing past the
 * end marker matters (no findings are made).  With to_end_marker (fsck
 * -p) what lies beyond is not read at all, and the reads before the
 * marker double from DIR_HEAD (a large directory in few reads, at most
 * twice what it uses).
 */
static bool dir_cluster(void *ctx, uint32_t c)
{
	struct walk *w = ctx;
	struct xvol *v = w->v;
	bool to_end = ck_to_end_marker(&v->ck);
	uint32_t chunk = v->cb < XV_DIR_CHUNK ? v->cb : XV_DIR_CHUNK;
	uint32_t len = v->cb < DIR_HEAD ? v->cb : DIR_HEAD;

	w->cluster = c;
	for (uint32_t at = 0; at < v->cb; at += len, len = ck_next_read(v->cb - at, len, to_end, chunk)) {
		const uint8_t *d = v->dirbuf;
		uint32_t i = 0, n, rd;

		if (w->end_seen) {
			if (!to_end)	/* (kept for a repair's later checks: exfat_replay.c) */
				xw_hold_tail(w, c, at);
			if (to_end)
				w->tail_unread = true;
			else if (w->tail && !w->after_end_told &&
				 !(v->fix && v->fix->memo.tail_known &&
				   v->fix->memo.tail_known(v->fix->ctx, xv_cluster_byte(v, c) + at, v->cb - at)))
				dirtail_add(w->tail, xv_cluster_byte(v, c) + at, v->cb - at, w->node, w->dirs,
					    c, at / 32, dev_ask_ahead(&w->warmth) && !w->first_cluster);
			break;
		}
		rd = note_part(w, c, at, len);		/* (len, or a known part's bytes up to its end marker) */
		if (dev_warmth_read(&w->warmth, v->dev, xv_cluster_byte(v, c) + at, v->dirbuf, rd) < 0) {
			w->dm.unsound = true;
			return false;
		}
		for (n = rd / 32; i < n && !w->end_seen; i++) {
			w->entry = at / 32 + i;
			one_entry(w, d + 32 * i);
		}
		if (w->end_seen)
			ck_memo_end(&w->dm, 32 * i);
		if (i < n && w->tail && !w->after_end_told)
			after_end(w, d + 32 * i, n - i, at / 32 + i);
		w->used = w->first_cluster ? at + rd : w->used;
	}
	w->first_cluster = false;
	ck_progress(&v->ck, 1);
	return true;
}

/*
 * A sound directory done again from what the first check kept
 * (exfat_replay.c): its chain claimed, then its files' allocations, its
 * subdirectories held and pushed, none of it read.
 */
static bool replay_dir(struct walk *w, const struct job *j)
{
	struct xvol *v = w->v;
	uint64_t raised = v->ck.raised;
	struct ck_rec_it it;
	struct ck_rec_ent x;
	bool tail_unread;

	if (!xw_replay_begin(w, j, &it, &tail_unread))
		return false;
	while (v->ck.raised == raised && !it.bad && ck_rec_next(&it, &x)) {
		if (x.kind == CK_REC_FILE) {
			xw_replay_file(w, &it, &x);
		} else if (x.kind == CK_REC_DIR && (!x.clusters || x.clusters > MAX_DIR_BYTES / v->cb)) {
			it.bad = true;
		} else if (x.kind == CK_REC_DIR) {
			struct owner who = { w->dw.path, x.name, x.cl, x.ent, NULL, 0, false, 0, 0 };

			w->as.at = (struct exfat_where){ x.cl, x.ent, xv_cluster_byte(v, x.cl) + 32ull * x.ent };
			v->ck.sum->dirs++;
			push_job(w, dirwalk_add(&w->dw, w->node, x.name), x.first, x.clusters * v->cb, x.nofat, false,
				 ck_hold_head(&v->ck, &who, x.first));
		}
	}
	xw_replay_end(w, &it, tail_unread, raised);
	return true;
}

static void read_dir(struct walk *w, const struct job *j)
{
	struct owner who = { w->dw.path, NULL, j->at.cluster, j->at.entry, NULL, 0, false, 0, 0 };
	struct chain_res res;
	struct xvol *v = w->v;

	w->node = j->node;
	w->is_root = j->node == 0;
	w->nofat = j->nofat;
	w->end_seen = w->after_end_told = w->tail_unread = false;
	w->warmth.first = !w->is_root;	/* (the probe read the root: it tells nothing) */
	w->first_cluster = true;
	w->used = 0;
	if (v->fix)
		ck_memo_begin(&w->dm, &v->ck, &(struct ck_dir_key){ j->size, w->judge, j->first, j->nofat },
			      v->fix->memo.dir_sound != NULL, v->fix->memo.dir_known, v->fix->ctx);
	if (v->fix && v->fix->end_mark && !v->ck.owners_pass &&
	    grow((void **)&w->marks, &w->capmarks, (size_t)w->dirs + 1, sizeof(*w->marks)))
		w->marks[w->dirs].cluster = 0;
	if (v->fix) {
		xw_hold_begin(w, j);
		if (replay_dir(w, j))
			return;
	}
	exfat_asm_restart(&w->as);	/* (the walk's init: xv_walk_tree) */
	if (w->is_root) {
		who.name = "root directory";
		who.chain_told = !v->p->root.chain_ok && v->p->root.read;
	}
	ck_claim_held(&v->ck, &who, j->first, j->size, j->nofat, j->held, &res, dir_cluster, w);
	if (exfat_asm_flush(&w->as))
		cut_short(w);
	/* The repair hears of a directory whose chain or size is not as its entry says. */
	if (v->fix && v->fix->dir && !v->ck.owners_pass &&
	    (j->odd || res.broken || res.crossed || (j->size && res.ended && res.clusters != j->size / v->cb))) {
		w->dm.unsound = true;
		v->fix->dir(v->fix->ctx, w->is_root ? NULL : &j->at, j->parent_nofat, &res, false, w->dw.path);
	}
	if (!j->nofat && !res.contiguous)
		v->ck.sum->fragmented++;
	xw_check_duplicates(w);
	if (v->fix && ck_memo_sound(&w->dm, &v->ck)) {
		v->fix->memo.dir_sound(v->fix->ctx, &w->dm.key, w->dm.kept, w->dm.n);
		xw_hold_end(w);
	}
	ask_ahead(w);
	w->dirs++;
	v->ck.sum->dirs_to_end_marker += w->tail_unread && !v->ck.owners_pass;
}

/* The first entry in use past the end marker of each directory, in walk order. */
static void report_tails(struct walk *w)
{
	const struct tail_hit *h;
	size_t n = dirtail_finish(w->tail, &h);
	struct fsc_finding *f;

	for (size_t i = 0; i < n; i++) {
		if (i && h[i].dir == h[i - 1].dir)
			continue;
		dirwalk_path(&w->dw, h[i].node);
		if ((f = xw_entry_finding(w, FSC_PR_EXFAT_AFTER_END, h[i].cluster, h[i].entry, NULL)))
			finding_actual(f, "%02x", h[i].type);
		if (w->marks && h[i].dir < w->capmarks && w->marks[h[i].dir].cluster)
			w->v->fix->end_mark(w->v->fix->ctx, w->marks[h[i].dir].cluster, w->marks[h[i].dir].entry,
					    w->marks[h[i].dir].nofat, h[i].cluster, h[i].entry);
	}
}

/* Is c the held first cluster of a directory waiting to be walked (engine.h pending_head)? */
static bool pending_head(void *ctx, uint32_t c)
{
	struct walk *w = ctx;

	for (size_t k = w->dw.njobs; k-- > 0;) {
		const struct job *j = dirwalk_job(&w->dw, k);

		if (j->held && j->first == c)
			return true;
	}
	return false;
}

/* What judges a directory's entries beside their own bytes: the up-case table, whether it is the volume's, the geometry. */
static uint64_t walk_judge(const struct xvol *v)
{
	const uint64_t g[] = { v->cb, v->cc, v->heap_byte, v->fat_byte, v->upcase_ok };

	return ck_judge(v->upcase, g, sizeof(g) / sizeof(g[0]));
}

int xv_walk_tree(struct xvol *v)
{
	struct walk *w = calloc(1, sizeof(*w));
	int r = 0;

	if (!w)
		return -ENOMEM;
	w->v = v;
	w->warmth.waited = 1;
	exfat_asm_init(&w->as, EXA_KEEP_UNKNOWN, 0);
	if (dirwalk_init(&w->dw, sizeof(struct job), NULL) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (!v->ck.owners_pass) {
		w->tail = dirtail_new(v->dev, v->cb, !(v->ck.o && v->ck.o->threads == 1));
		if (!w->tail) {
			r = -ENOMEM;
			goto out;
		}
		if (v->fix && v->fix->memo.tails_free)
			dirtail_record(w->tail);
	}
	if (v->fix && (v->fix->memo.dir_sound || v->fix->memo.dir_known))
		w->judge = walk_judge(v);
	dev_random(v->dev, true);	/* (directories: small reads all over the volume, no readahead) */
	v->ck.pending_head = pending_head;
	v->ck.pending_ctx = w;
	push_job(w, 0, v->p->ex.root_cluster, 0, false, false, v->root_held);
	for (struct job j; w->dw.njobs && !ck_out_of_time(&v->ck) && dirwalk_pop(&w->dw, &j);) {
		w->siblings = w->dw.njobs;
		read_dir(w, &j);
	}
	if (w->tail && v->ck.sum->incomplete)
		dirtail_drop(w->tail);	/* out of time: the reads still waiting are not begun */
	if (w->tail)
		report_tails(w);
	if (w->tail && v->fix && v->fix->memo.tails_free && !v->ck.sum->incomplete) {
		const struct dt_span *sp;
		size_t n = dirtail_free_spans(w->tail, &sp);

		v->fix->memo.tails_free(v->fix->ctx, sp, n);
	}
	dev_random(v->dev, false);
out:
	v->ck.pending_head = NULL;
	dirtail_free(w->tail);
	dirwalk_free(&w->dw);
	free(w->names);
	free(w->arena);
	free(w->given);
	free(w->marks);
	free(w->dm.kept);
	free(w->hold.v);
	free(w);
	return r;
}
