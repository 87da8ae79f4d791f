// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_tree.c - pass 3 of the FAT check: the directory tree, walked with an
 * explicit stack from the root (the fixed root area of FAT12/16, the root
 * cluster chain of FAT32).  Every byte of each directory is read; each
 * entry is checked where it stands: . and .., 8.3 names, long-name parts
 * (order, checksum, orphans, UTF-16), volume labels, attributes, dates,
 * directory sizes, what follows the end marker; each file's and
 * directory's chain is claimed through the engine (range, loops, free and
 * bad links, cross-links, length against the size).  Duplicate names are
 * found per directory once it is read.
 *
 * Consumes: struct fvol with the FAT scanned.  Produces: findings, counts,
 * the claimed set.  A directory whose first cluster was claimed already is
 * not read again, so cycles end; memory is one node per directory and the
 * names of the directory being read.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fat_walk.h"
#include "io/io.h"
#include "fat/fat.h"

/*
 * ---- long names (fatgen103 section 7) ----
 * In a directory a repair's first check found sound (t->dm.known) the
 * parts are only gathered: the same bytes hold no finding.
 */

static void run_add(struct ftree *t, const uint8_t *e)
{
	if (!hooked(t) || !grow((void **)&t->run.off, &t->run.cap, t->run.n + 1, sizeof(*t->run.off)))
		return;
	if (t->run.n < 20)
		memcpy(t->run.e[t->run.n], e, 32);
	t->run.off[t->run.n++] = cur_byte(t);
}

/* The run of parts has a finding: the first one says why they will be changed. */
static void run_flag(struct ftree *t, const struct fsc_finding *f)
{
	if (f && t->run.finding == SIZE_MAX)
		t->run.finding = (size_t)(f - t->v->ck.out->v);
}

/* The parts end (at the 8.3 entry raw, or NULL): a run with a finding is offered to the repair. */
static void run_flush(struct ftree *t, const uint8_t *raw)
{
	const struct fat_hooks *h = t->v->hooks;

	if (hooked(t) && h->lfn && t->run.n && t->run.finding != SIZE_MAX)
		h->lfn(h->ctx, t->run.finding, t->run.off, t->run.n,
		       raw && t->run.n <= FAT_LFN_MAX_PARTS && fv_lfn_fits((const uint8_t (*)[32])t->run.e, (unsigned)t->run.n, raw) ?
		       fat_sfn_checksum(raw) : -1);
	t->run.n = 0;
	t->run.finding = SIZE_MAX;
}

static void lfn_orphan(struct ftree *t)
{
	struct fsc_finding *f;

	if (t->lfn_on && (f = ck_add_owner(&t->v->ck, FSC_PR_FAT_LFN_ORPHAN, &t->lfn_at)))
		finding_actual(f, "%u", t->lfn_parts);
	if (t->lfn_on)
		run_flag(t, f);
	t->lfn_on = false;
}

__attribute__((format(printf, 3, 4)))
static void lfn_broken(struct ftree *t, unsigned seq, const char *fmt, ...)
{
	struct fsc_finding *f = at_entry(t, FSC_PR_FAT_LFN_SEQUENCE, NULL);
	va_list ap;

	if (f) {
		finding_actual(f, "%u", seq);
		va_start(ap, fmt);
		vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
		va_end(ap);
	}
	run_flag(t, f);
	t->lfn_on = false;
	t->lfn_skip = true;
}

/* A part of a directory found sound: the parts come in order, under one checksum (gathered only). */
static void known_part(struct ftree *t, const uint8_t *e)
{
	if (e[0] & 0x40) {
		fat_lfn_reset(&t->lfn);
		t->lfn_on = true;
		t->lfn_next = (e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) - 1u;
		t->lfn_parts = 1;
		t->lfn_sum = e[FAT_LDIR_CHKSUM];
		t->lfn_at = here(t, NULL);
	} else {
		t->lfn_next--;
		t->lfn_parts++;
	}
	fat_lfn_add(&t->lfn, e);
}

static void lfn_part(struct ftree *t, const uint8_t *e)
{
	unsigned seq = e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK;
	struct fsc_finding *f;
	uint8_t type = e[FAT_LDIR_TYPE];
	uint16_t clus = get_le16(e, FAT_LDIR_FST_CLUS_LO);

	if (t->dm.known)
		return known_part(t, e);
	if ((type || clus) && (f = at_entry(t, FSC_PR_FAT_LFN_RESERVED, NULL))) {
		finding_actual(f, type ? "%02x" : "%04x", type ? type : clus);
		finding_detail(f, "%s", type ? "type byte (12)" : "cluster field (26-27)");
	}
	/* (Linux and fsck.fat take a long-name part only with attributes 0x0F exactly: an 8.3 entry otherwise) */
	if (e[FAT_LDIR_ATTR] != FAT_ATTR_LONG_NAME && (f = at_entry(t, FSC_PR_FAT_ATTRIBUTES, NULL))) {
		finding_actual(f, "%02x", e[FAT_LDIR_ATTR]);
		finding_detail(f, "%s", "reserved bits set in a long-name part");
	}

	if (e[0] & 0x40) {
		lfn_orphan(t);
		run_flush(t, NULL);
		t->lfn_skip = false;
	}
	run_add(t, e);
	if (e[0] & 0x40) {
		if (seq < 1 || seq > 20)
			return lfn_broken(t, seq, "a name has parts 1 to 20 (last part 0x%02x)", e[0]);
		fat_lfn_reset(&t->lfn);
		t->lfn_on = true;
		t->lfn_next = seq - 1;
		t->lfn_parts = 1;
		t->lfn_sum = e[FAT_LDIR_CHKSUM];
		t->lfn_at = here(t, NULL);
	} else if (!t->lfn_on) {
		if (!t->lfn_skip)
			lfn_broken(t, seq, "no last part (0x%02x) before it", 0x40 | seq);
		return;
	} else if (seq != t->lfn_next || e[FAT_LDIR_CHKSUM] != t->lfn_sum) {
		if (seq != t->lfn_next)
			return lfn_broken(t, seq, "part %u was expected", t->lfn_next);
		return lfn_broken(t, seq, "its checksum differs from the name's last part (0x%02x)", t->lfn_sum);
	} else {
		t->lfn_next--;
		t->lfn_parts++;
	}
	fat_lfn_add(&t->lfn, e);
}

/* The long name of the 8.3 entry raw: its length (units in *u), or 0. */
static unsigned lfn_close(struct ftree *t, const uint8_t *raw, const uint16_t **u)
{
	struct fsc_finding *f;
	unsigned n;

	if (!t->lfn_on)
		return 0;
	t->lfn_on = false;
	if (t->dm.known)	/* (its parts all there, its checksum the 8.3 name's, its length and UTF-16 sound) */
		return fat_lfn_name(&t->lfn, raw, false, u);
	if (t->lfn_next) {
		lfn_broken(t, t->lfn_next, "part %u is missing before the 8.3 entry", t->lfn_next);
		return 0;
	}
	if (fat_sfn_checksum(raw) != t->lfn_sum) {
		if ((f = at_entry(t, FSC_PR_FAT_LFN_CHECKSUM, NULL))) {
			finding_actual(f, "0x%02x", t->lfn_sum);
			finding_expected(f, "0x%02x", fat_sfn_checksum(raw));
		}
		run_flag(t, f);
		return 0;
	}
	n = fat_lfn_name(&t->lfn, raw, false, u);
	if (n > FAT_LFN_MAX_UNITS && (f = at_entry(t, FSC_PR_FAT_LFN_LENGTH, NULL))) {
		finding_actual(f, "%u", n);
		run_flag(t, f);
	}
	for (unsigned i = 0; i < n; i++) {
		bool hi = (*u)[i] >= 0xD800 && (*u)[i] <= 0xDBFF, lo = (*u)[i] >= 0xDC00 && (*u)[i] <= 0xDFFF;

		if (lo || (hi && (i + 1 >= n || (*u)[i + 1] < 0xDC00 || (*u)[i + 1] > 0xDFFF))) {
			if ((f = at_entry(t, FSC_PR_FAT_LFN_UTF16, NULL)))
				finding_actual(f, "%04x", (*u)[i]);
			break;
		}
		i += hi;
	}
	return n;
}

/* ---- entries ---- */

static uint32_t first_cluster(const struct fvol *v, const uint8_t *e)
{
	return fat_entry_first(e, v->lay.fat_bits);
}


static void check_times(struct ftree *t, const uint8_t *e, const struct owner *who)
{
	static const struct { unsigned off; bool date; const char *what; } ts[] = {
		{ FAT_DIR_WRT_DATE, true, "write date" }, { FAT_DIR_WRT_TIME, false, "write time" },
		{ FAT_DIR_CRT_DATE, true, "creation date" }, { FAT_DIR_CRT_TIME, false, "creation time" },
		{ FAT_DIR_LST_ACC_DATE, true, "access date" },
	};
	struct fsc_finding *f;

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		uint16_t x = get_le16(e, ts[i].off);
		const char *bad = ts[i].date ? fv_date_problem(x) : fv_time_problem(x);

		if (!bad)
			continue;
		if ((f = ck_add_owner(&t->v->ck, FSC_PR_FAT_TIMESTAMP, who))) {
			finding_actual(f, "0x%04x, %s", x, bad);
			finding_detail(f, "%s", ts[i].what);
		}
		return;
	}
}

/*
 * The 8.3 name's own rules; false when the entry is no file or directory
 * at all.  *same: the name is sound, only byte 12's "no 8.3 name" flag
 * (0x20, of Linux patches that wrote long names alone) is set with no long
 * name before it: fsck.fat calls that a bad name, the repair clears it.
 */
static bool check_short(struct ftree *t, const uint8_t *e, const struct owner *who, bool lfn, size_t *bad_finding,
			bool *same)
{
	bool plain = fv_sfn_plain(e);
	const char *bad = plain ? NULL : fv_sfn_invalid(e), *odd = bad || plain ? NULL : fv_sfn_unusual(e);
	enum fsc_problem id = bad ? FSC_PR_FAT_SHORT_NAME : FSC_PR_FAT_SHORT_NAME_UNUSUAL;
	struct fsc_finding *f;
	uint8_t attr = e[FAT_DIR_ATTR];
	char sfn[40];

	*bad_finding = SIZE_MAX;
	*same = false;
	if (!bad && !lfn && (e[FAT_DIR_NT_RES] & FAT_NT_RES_NO_SFN)) {
		bad = "byte 12 says it has none (0x20), and no long name comes before it";
		id = FSC_PR_FAT_SHORT_NAME;
		*same = true;
	}
	if ((bad || odd) && (f = ck_add_owner(&t->v->ck, id, who))) {
		fv_sfn_text(e, sfn);
		finding_actual(f, "%s", sfn);
		finding_detail(f, "%s", bad ? bad : odd);
		if (bad)
			*bad_finding = (size_t)(f - t->v->ck.out->v);
	}
	if ((attr & FAT_ATTR_DIR_LABEL) == FAT_ATTR_DIR_LABEL || (attr & FAT_ATTR_RESERVED)) {
		if ((f = ck_add_owner(&t->v->ck, FSC_PR_FAT_ATTRIBUTES, who))) {
			finding_actual(f, "%02x", attr);
			finding_detail(f, "%s", (attr & FAT_ATTR_DIR_LABEL) == FAT_ATTR_DIR_LABEL ?
				       "a directory and a volume label at once" : "reserved bits set");
		}
		return (attr & FAT_ATTR_DIR_LABEL) != FAT_ATTR_DIR_LABEL;
	}
	return true;
}

/* The first read of len bytes of directory (a cluster, or the FAT12/16 root area): fsck -p begins small. */
static uint32_t first_read(const struct fvol *v, uint64_t len)
{
	uint32_t r = ck_to_end_marker(&v->ck) ? FV_DIR_HEAD : FV_DIR_CHUNK;

	return len < r ? (uint32_t)len : r;
}

static void push_job(struct ftree *t, const struct job *j)
{
	if (!dirwalk_push(&t->dw, j))
		return;
	/* Its first read comes soon: the kernel may fetch it while the walk goes on (more reads in flight). */
	if (fv_cluster_valid(t->v, j->first) && dev_ask_ahead(&t->warmth))
		dev_willneed(t->v->dev, layout_cluster_byte(&t->v->lay, j->first), first_read(t->v, t->v->cb));
}

static void dir_entry(struct ftree *t, const char *name, uint32_t first, uint32_t size)
{
	struct fsc_finding *f;
	struct job j;

	if (size && (f = at_entry(t, FSC_PR_FAT_DIR_SIZE, name)))
		finding_actual(f, "%u", size);
	if (!first) {
		f = at_entry(t, FSC_PR_FAT_DIR_NO_CLUSTER, name);
		if (f && hooked(t) && t->v->hooks->dir_astray)
			t->v->hooks->dir_astray(t->v->hooks->ctx, (size_t)(f - t->v->ck.out->v), cur_byte(t),
						t->is_root ? 0 : t->cur.first);
		return;
	}
	j = (struct job){ dirwalk_add(&t->dw, t->cur.node, name), first, t->is_root ? 0 : t->cur.first,
			  t->cl, t->ent, t->cl ? 0 : t->byte, false };
	push_job(t, &j);
}

/* The cross-link finding the claim of the entry here just made (its index), or SIZE_MAX. */
/* The index of the finding id that the last claim gave owner who (among the last 8), or SIZE_MAX. */
static size_t owner_finding(const struct ftree *t, const struct owner *who, enum fsc_problem id)
{
	const struct fsc_findings *out = t->v->ck.out;

	for (size_t i = out->n, k = 0; i-- > 0 && k < 8; k++) {
		const struct fsc_finding *x = &out->v[i];

		if (x->id == id && x->loc == (who->cluster ? who->cluster : who->byte) &&
		    (!who->cluster || x->entry == who->entry))
			return i;
	}
	return SIZE_MAX;
}

/* A cluster of the allocation being claimed: does its entry differ between the FAT copies? */
struct touch {
	const uint64_t *differ;
	bool touched;
};

static bool touch(void *ctx, uint32_t c)
{
	struct touch *w = ctx;

	w->touched |= bit_get(w->differ, c - 2);
	return true;
}

/* A file's allocation claimed; who: its entry, named in UTF-8 or (who.name NULL) in UTF-16 units. */
static void claim_file(struct ftree *t, struct owner who, uint32_t first, uint32_t size)
{
	struct fvol *v = t->v;
	struct touch w = { v->differ, false };
	struct chain_res res;
	struct fsc_finding *f;
	size_t x;

	v->ck.sum->files++;
	if (!first) {
		if (size && (f = ck_add_owner(&v->ck, FSC_PR_FAT_CHAIN_SHORT, &who))) {
			finding_actual(f, "0");
			finding_expected(f, "%llu", ((unsigned long long)size + v->cb - 1) / v->cb);
		}
		return;
	}
	if (v->hooks && v->hooks->shared_head && ck_first_of_xlink(&v->ck, first) && fv_predecessor(v, first))
		v->hooks->shared_head(v->hooks->ctx, cur_byte(t), first, size);
	ck_claim(&v->ck, &who, first, size, false, &res, v->differ ? touch : NULL, &w);
	if (hooked(t) && v->hooks->claimed && fv_cluster_valid(v, first))
		v->hooks->claimed(v->hooks->ctx, first, size, false, w.touched,
				  res.ended && !res.broken && !res.crossed && res.clusters == ((uint64_t)size + v->cb - 1) / v->cb);
	if (!res.contiguous)
		v->ck.sum->fragmented++;
	/* (crossed, or on past its size into another's cluster: neither ended nor broken) */
	if ((res.crossed || (!res.broken && !res.ended && res.at_need)) && hooked(t) && v->hooks->cross && (x = owner_finding(t, &who, FSC_PR_FAT_CROSS_LINK)) != SIZE_MAX)
		v->hooks->cross(v->hooks->ctx, x, cur_byte(t), first, &res);
	if (!size && res.ended && res.clusters && (f = ck_add_owner(&v->ck, FSC_PR_FAT_CHAIN_LONG, &who))) {
		finding_actual(f, "%llu", (unsigned long long)res.clusters);
		finding_expected(f, "0");
	}
}

static void file_entry(struct ftree *t, const uint8_t *e)
{
	const uint16_t *lu = NULL;
	unsigned n = lfn_close(t, e, &lu);
	uint16_t su[12];
	uint8_t le[2 * FAT_LFN_CAP_UNITS];
	char name[3 * FAT_LFN_CAP_UNITS + 1] = "";
	bool dir = e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY;
	uint32_t first = first_cluster(t->v, e), size = fat_dirent_file_size(e);
	bool lfn = n > 0, file, same;
	struct owner who = here(t, NULL);
	size_t bad;

	if (!n) {
		n = fat_sfn_units(e, e[FAT_DIR_NT_RES], su);
		lu = su;
	}
	/* (named in UTF-16, made UTF-8 for a finding only; now for a directory's path, or a name findings cut short) */
	who.name16 = lu;
	who.name16_len = n;
	if (dir || n > 255) {
		for (unsigned i = 0; i < n; i++)
			put_le16(le, 2 * i, lu[i]);
		utf16le_to_utf8(le, n, name, sizeof(name));
		who.name = name;
	}
	if (t->dm.known) {	/* (as the first check found it: no finding, nor a duplicate; see note_part) */
		file = (e[FAT_DIR_ATTR] & FAT_ATTR_DIR_LABEL) != FAT_ATTR_DIR_LABEL;
		run_flush(t, e);
		if (!file)
			return;
	} else {
		file = check_short(t, e, &who, lfn, &bad, &same);
		fw_keep_name(t, e, lu, n, lfn, bad, same);
		run_flush(t, e);
		if (!file)
			return;
		check_times(t, e, &who);
	}
	dir = dir && !fw_file_dir_bit(t, &who, first, size);
	fw_hold(t, dir ? name : NULL, first, size);
	if (dir)
		dir_entry(t, name, first, size);
	else
		claim_file(t, who, first, size);
}

static void one_entry(struct ftree *t, const uint8_t *e)
{
	enum fat_kind k = fat_entry_kind(e);

	if (t->end_seen)
		return fw_past_end(t, e);
	if (!t->is_root && t->index < 2 && fw_dots_present(t, e, k)) {
		t->index++;
		return;
	}
	if (k != FAT_E_LFN)
		t->lfn_skip = false;
	if (k != FAT_E_LFN && k != FAT_E_FILE) {
		lfn_orphan(t);
		/* (a label entry with a cluster may be a file whose attributes say label: its name may fit) */
		run_flush(t, k == FAT_E_LABEL && first_cluster(t->v, e) ? e : NULL);
	}
	switch (k) {
	case FAT_E_END:
		t->end_seen = true;
		fw_past_end(t, e);
		break;
	case FAT_E_LFN:
		lfn_part(t, e);
		break;
	case FAT_E_DOT:
		fw_dot_entry(t, e);
		break;
	case FAT_E_LABEL:
		fw_label_entry(t, e);
		break;
	case FAT_E_FILE:
		file_entry(t, e);
		break;
	default:
		break;
	}
	t->index++;
}

/* ---- reading directories ---- */

static void unreadable(struct ftree *t, const struct owner *who, uint64_t byte, uint64_t len)
{
	t->dir_unread = true;
	struct fsc_finding *f = ck_add_owner(&t->v->ck, FSC_PR_FAT_DIR_UNREADABLE, who);

	finding_detail(f, "%llu bytes at byte %llu, the image has %llu", (unsigned long long)len,
		       (unsigned long long)byte, (unsigned long long)fsc_dev_size(t->v->dev));
}

/*
 * n entries read at byte, the first the directory's entry ent0 (t->cl
 * set).  The zeros they end in (most of a directory: 80 of the 100 MB a
 * check of a 100,000-file FAT32 volume reads) are taken in one step once
 * past the end marker, not entry by entry.
 */
static void read_entries(struct ftree *t, const uint8_t *buf, size_t n, uint32_t ent0, uint64_t byte)
{
	size_t live = n - bytes_zero_tail(buf, 32 * n) / 32;

	for (size_t i = 0; i < n; i++) {
		t->ent = ent0 + (uint32_t)i;
		t->byte = byte + 32 * i;
		if (i >= live && t->end_seen) {
			fw_past_end_zeros(t, n - i);
			break;
		}
		one_entry(t, buf + 32 * i);
	}
}

/* Where cluster c's entry of the active FAT begins (the part of a memo that links c on). */
static uint64_t fat_entry_byte(const struct fvol *v, uint32_t c)
{
	return v->lay.fat_byte + (uint64_t)c * v->lay.fat_bits / 8;
}

/*
 * A part of the directory read (len bytes at byte, of cluster c): kept,
 * or known to be a part the first check read, as exFAT's (exfat_tree.c
 * note_part, which says why its entries are then not judged again).
 */
static uint32_t note_part(struct ftree *t, uint32_t c, uint64_t byte, uint32_t len)
{
	return t->v->hooks ? ck_memo_part(&t->dm, byte, fat_entry_byte(t->v, c), len) : len;
}

/*
 * One cluster of a directory, whole; with to_end_marker (fsck -p) only up
 * to the end marker, in reads doubling from FV_DIR_HEAD (a large directory
 * in few reads, at most twice what it uses).
 */
static bool dir_cluster(void *ctx, uint32_t c)
{
	struct ftree *t = ctx;
	struct fvol *v = t->v;
	bool to_end = ck_to_end_marker(&v->ck);

	if (v->differ)
		t->touched |= bit_get(v->differ, c - 2);
	for (uint32_t at = 0, len = first_read(v, v->cb); at < v->cb;
	     at += len, len = ck_next_read(v->cb - at, len, to_end, FV_DIR_CHUNK)) {
		uint64_t byte = layout_cluster_byte(&v->lay, c) + at;

		if (t->end_seen && to_end) {
			t->tail_unread = true;
			break;
		}
		uint32_t rd = note_part(t, c, byte, len);	/* (len, or a known part's bytes up to its end marker) */
		uint64_t index = t->index;
		bool ended = t->end_seen;

		if (c == t->head && at == 0 && rd <= t->head_len) {
			t->head = 0;	/* (read_dir read it to look for . and ..) */
		} else if (!rd) {
			continue;	/* (a known part wholly past the end marker) */
		} else if (dev_warmth_read(&t->warmth, v->dev, byte, v->dirbuf, rd) < 0) {
			struct owner who = { t->dw.path, NULL, 0, 0, NULL, 0, false, 0, 0 };

			unreadable(t, &who, byte, rd);
			return false;
		}
		t->cl = c;
		read_entries(t, v->dirbuf, rd / 32, at / 32, byte);
		if (!ended && t->end_seen)	/* (the entries up to the marker: it counts the marker, not past it) */
			ck_memo_end(&t->dm, (uint32_t)(t->index - index) * 32);
		else if (ended)
			ck_memo_end(&t->dm, 0);
	}
	ck_progress(&v->ck, 1);
	return true;
}

/* The FAT12/16 root: a fixed area after the FATs. */
static void read_root_area(struct ftree *t)
{
	struct fvol *v = t->v;
	uint64_t base = v->lay.root_byte, len = v->lay.root_bytes;
	struct owner who = { "/", "root directory", 0, 0, NULL, 0, false, 0, 0 };
	bool to_end = ck_to_end_marker(&v->ck);

	for (uint64_t o = 0, n = first_read(v, len); o < len;
	     o += n, n = ck_next_read(len - o, (uint32_t)n, to_end, FV_DIR_CHUNK)) {
		if (t->end_seen && to_end) {
			t->tail_unread = true;
			break;
		}
		if (fsc_dev_read(v->dev, base + o, v->dirbuf, n) < 0) {
			unreadable(t, &who, base + o, n);
			return;
		}
		t->cl = 0;
		read_entries(t, v->dirbuf, (size_t)n / 32, (uint32_t)(o / 32), base + o);
	}
}

/*
 * A subdirectory entry whose first cluster holds no . entry naming it and
 * lies inside another chain (some FAT entry points to it): a damaged
 * cluster field, most likely, that points into a file.  Reported as a
 * cross-link and not walked, so that neither the check nor a repair takes
 * the file's bytes for entries; a repair points the entry to its own lost
 * tree (the dir_astray hook).  A directory whose first cluster starts one
 * is walked as before, whatever points to it.
 */
static bool not_a_dir(struct ftree *t, const struct job *j, const struct owner *who, bool starts)
{
	struct fvol *v = t->v;
	struct fsc_finding *f;
	uint32_t pred;

	if (starts || !fv_cluster_valid(v, j->first) || !(pred = fv_predecessor(v, j->first)))
		return false;
	f = ck_add_owner(&v->ck, FSC_PR_FAT_CROSS_LINK, who);
	if (f) {
		finding_actual(f, "%u", j->first);
		finding_detail(f, "the chain through cluster %u; it holds no . entry, so it is not this directory's", pred);
	}
	if (f && hooked(t) && v->hooks->dir_astray)
		v->hooks->dir_astray(v->hooks->ctx, (size_t)(f - v->ck.out->v),
				     j->cl ? layout_cluster_byte(&v->lay, j->cl) + 32ull * j->ent : j->byte, j->parent);
	return true;
}

/*
 * A subdirectory's first read, which the walk of its first cluster then
 * uses (one read, not two): false when the directory is put off or is
 * not one.  A cluster that holds no . and .. entries may be another's (a
 * cluster field flipped onto a file's first cluster): read after every
 * other directory, so that what claims it rightly has it first, and this
 * entry is the one taken for astray.
 */
static bool dir_or_later(struct ftree *t, const struct job *j, const struct owner *who)
{
	struct fvol *v = t->v;
	uint32_t up, len = first_read(v, v->cb), known = UINT32_MAX;
	bool head, starts, elsewhere;

	/* (a known directory: its first part up to its end marker, which is all its walk reads of it) */
	if (fv_cluster_valid(v, j->first))
		known = ck_memo_next(&t->dm, layout_cluster_byte(&v->lay, j->first), fat_entry_byte(v, j->first), len);
	if (known != UINT32_MAX && known >= 2 * FAT_DIR_ENTRY_SIZE)
		len = known;
	head = fv_cluster_valid(v, j->first) &&
	       dev_warmth_read(&t->warmth, v->dev, layout_cluster_byte(&v->lay, j->first), v->dirbuf, len) == 0;
	t->head_len = len;
	starts = !head || fat_dir_start(v->dirbuf, j->first, v->lay.fat_bits, &up);
	/*
	 * (a directory whose .. names another parent: maybe a stale copy of
	 * that one's entry, which a torn write leaves; put off too, so that
	 * the entry its .. names reads it first)
	 */
	elsewhere = head && starts && up != j->parent &&
		    !(j->parent == 0 && v->lay.fat_bits == 32 && up == v->lay.root_cluster);

	t->head = head ? j->first : 0;
	if ((!starts || elsewhere) && !j->later &&
	    grow((void **)&t->later, &t->caplater, t->nlater + 1, sizeof(*t->later))) {
		t->later[t->nlater] = *j;
		t->later[t->nlater++].later = true;
		return false;
	}
	v->ck.sum->dirs++;
	return !not_a_dir(t, j, who, starts);
}

/*
 * A sound directory done again from what the first check kept
 * (fat_replay.c): its chain claimed, then its files' allocations, its
 * subdirectories pushed, none of its entries read.
 */
static bool replay_dir(struct ftree *t, const struct job *j)
{
	uint64_t raised = t->v->ck.raised;
	struct ck_rec_it it;
	struct ck_rec_ent x;
	uint32_t size;

	if (!fw_replay_begin(t, j, &it))
		return false;
	while (t->v->ck.raised == raised && fw_replay_next(t, &it, &x, &size)) {
		if (x.kind == CK_REC_DIR)
			dir_entry(t, x.name, x.first, 0);
		else
			claim_file(t, here(t, NULL), x.first, size);
	}
	fw_replay_end(t, &it, raised);
	return true;
}

static void read_dir(struct ftree *t, const struct job *j)
{
	struct fvol *v = t->v;
	struct owner who = { t->dw.path, NULL, j->cl, j->ent, NULL, 0, false, j->cl ? 0 : j->byte, 0 };
	struct chain_res res;
	struct fsc_finding *f;
	size_t x;

	t->cur = *j;
	t->is_root = j->node == 0;
	t->end_seen = t->lfn_on = t->lfn_skip = t->revive_bad = t->tail_unread = t->dir_unread = false;
	t->warmth.first = !t->is_root;
	t->head = 0;
	t->index = t->after_end = 0;
	t->nzeros = t->zeros_kept = t->nused = t->plausible_files = t->nzruns = 0;
	t->zlfn = SIZE_MAX;
	t->prev_seq = -1;
	if (v->hooks) {
		ck_memo_begin(&t->dm, &v->ck, &(struct ck_dir_key){ 0, t->judge, j->first, false }, v->hooks->memo.dir_sound != NULL,
			      j->first ? v->hooks->memo.dir_known : NULL, v->hooks->ctx);
		fw_hold_begin(t, j);
		if (replay_dir(t, j))
			return;
	}
	if (t->is_root && v->lay.fat_bits != 32) {
		read_root_area(t);
	} else {
		if (t->is_root) {
			who.name = "root directory";
			who.chain_told = fsc_findings_has(&v->p->findings, FSC_PR_FAT32_ROOT_CLUSTER);
		} else if (!dir_or_later(t, j, &who)) {
			return;
		}
		t->touched = false;
		t->no_dot = SIZE_MAX;
		ck_claim(&v->ck, &who, j->first, 0, false, &res, dir_cluster, t);
		t->head = 0;
		if (hooked(t) && v->hooks->claimed && fv_cluster_valid(v, j->first))
			v->hooks->claimed(v->hooks->ctx, j->first, 0, true, t->touched, false);
		if (!res.contiguous)
			v->ck.sum->fragmented++;
		/* (a first cluster another's, or one outside the data area: a damaged cluster field) */
		if (!t->is_root && !res.readable && hooked(t) && v->hooks->dir_astray &&
		    ((x = owner_finding(t, &who, FSC_PR_FAT_CROSS_LINK)) != SIZE_MAX ||
		     (!fv_cluster_valid(v, j->first) && (x = owner_finding(t, &who, FSC_PR_FAT_CHAIN_RANGE)) != SIZE_MAX)))
			v->hooks->dir_astray(v->hooks->ctx, x,
					     j->cl ? layout_cluster_byte(&v->lay, j->cl) + 32ull * j->ent : j->byte, j->parent);
		/* (no . at all: the entry's cluster field may have been flipped off its own tree, which is lost) */
		else if (!t->is_root && t->no_dot != SIZE_MAX && hooked(t) && v->hooks->dir_astray)
			v->hooks->dir_astray(v->hooks->ctx, t->no_dot,
					     j->cl ? layout_cluster_byte(&v->lay, j->cl) + 32ull * j->ent : j->byte, j->parent);
	}
	lfn_orphan(t);
	run_flush(t, NULL);
	if (t->after_end && (f = ck_add_owner(&v->ck, FSC_PR_FAT_AFTER_END, &t->after_at))) {
		finding_actual(f, "%llu", (unsigned long long)t->after_end);
		/*
		 * For a repair: the entries come back (the 0x00 ones before them
		 * made unused) when they are plausible ones, or when at least one
		 * of them could be a file's (the others are judged in the next
		 * round); else they become end marks again (their other bytes kept).
		 */
		if (hooked(t) && v->hooks->revive && (!t->revive_bad || t->plausible_files))
			v->hooks->revive(v->hooks->ctx, (size_t)(f - v->ck.out->v), t->zeros, t->zfirst,
					 t->zeros_kept);
		else if (hooked(t) && v->hooks->revive)
			v->hooks->revive(v->hooks->ctx, (size_t)(f - v->ck.out->v), t->used, t->uzero, t->nused);
	}
	if (t->is_root && !t->dir_unread && (v->lay.fat_bits != 32 || (res.readable && !res.broken)))
		fw_root_label_missing(t);
	fw_check_duplicates(t);
	v->ck.sum->dirs_to_end_marker += t->tail_unread && !v->ck.owners_pass;
	if (v->hooks && ck_memo_sound(&t->dm, &v->ck)) {
		v->hooks->memo.dir_sound(v->hooks->ctx, &t->dm.key, t->dm.kept, t->dm.n);
		fw_hold_end(t);
	}
}

int fv_walk_tree(struct fvol *v)
{
	struct ftree *t = calloc(1, sizeof(*t));
	struct job root = { 0, v->lay.fat_bits == 32 ? v->lay.root_cluster : 0, 0, 0, 0, 0, false };
	int r = 0;

	if (!t || dirwalk_init(&t->dw, sizeof(struct job), NULL) < 0) {
		free(t);
		return -ENOMEM;
	}
	t->v = v;
	t->warmth.waited = 1;
	t->run.finding = SIZE_MAX;
	if (v->hooks && (v->hooks->memo.dir_sound || v->hooks->memo.dir_known)) {
		/* (what judges the entries beside their bytes: the table names are compared by, the geometry) */
		const uint64_t g[] = { v->cb, v->cc, v->lay.fat_byte, v->lay.fat_bits, layout_cluster_byte(&v->lay, 2) };

		t->judge = ck_judge(v->upcase, g, sizeof(g) / sizeof(g[0]));
	}
	dev_random(v->dev, true);	/* (directories: small reads all over the volume, no readahead) */
	push_job(t, &root);
	for (size_t next = 0;;) {
		for (struct job j; t->dw.njobs && !ck_out_of_time(&v->ck) && dirwalk_pop(&t->dw, &j);)
			read_dir(t, &j);
		if (next == t->nlater || ck_out_of_time(&v->ck))
			break;
		push_job(t, &t->later[next++]);		/* (the ones put off, in walk order, each with its tree) */
	}
	dev_random(v->dev, false);
	dirwalk_free(&t->dw);
	free(t->later);
	free(t->names);
	free(t->arena);
	free(t->run.off);
	free(t->parts);
	free(t->zeros);
	free(t->zfirst);
	free(t->zruns);
	free(t->used);
	free(t->uzero);
	free(t->dm.kept);
	free(t->hold.v);
	free(t);
	return r;
}
