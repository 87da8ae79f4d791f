// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_root.c - what the mount paths read from the exFAT root directory:
 * its cluster chain, the allocation bitmap (0x81) and up-case table
 * (0x82) entries, the volume label (0x83) and GUID (0xA0), and the entry
 * parse exfat-fuse does at mount (entry types, file entry sets).
 *
 * Consumes: the decoded boot sector and a sector shift (the volume's own,
 * or the device's to see what the staging driver sees).  Produces: struct
 * fsc_exfat_root; exfat_root_findings() turns it into findings.
 * Every walk is bounded by what fits in the device: O(1) memory for the
 * chain besides the FAT reader's bounded cache, at most one cluster
 * buffer at a time.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"

#define UPCASE_MAX	(128u * 1024)	/* 64 Ki units uncompressed: the longest table */

/*
 * The scan's view of the volume: the layout in the sector size asked
 * for (fr.l), the FAT read through the one FAT reader, and the bound of
 * every chain walk.  The reader's cache changes as chains are read while
 * the view stays const, hence the pointer.  dev and cluster_bytes repeat
 * fr.l's under the names the scan below uses.
 */
struct geo {
	struct fatreader fr;
	struct fatreader *reader;	/* &fr */
	struct fsc_dev *dev;
	uint32_t cluster_bytes;
	uint64_t max_chain;		/* clusters that fit in the device */
};

static bool geo_init(struct geo *g, struct fsc_dev *dev, const struct fsc_exfat_boot *ex,
		     unsigned shift, char *err, size_t errlen)
{
	uint64_t size = fsc_dev_size(dev);
	struct layout l;

	if (exfat_layout(&l, dev, ex, shift, err, errlen) < 0)
		return false;
	if (l.cluster_bytes > size) {
		snprintf(err, errlen, "a cluster (2^%u bytes) is larger than the image",
			 shift + ex->cluster_shift);
		return false;
	}
	fatreader_init(&g->fr, &l);
	g->reader = &g->fr;
	g->dev = dev;
	g->cluster_bytes = l.cluster_bytes;
	g->max_chain = size / l.cluster_bytes + 1;
	if (g->max_chain > (uint64_t)l.clusters)
		g->max_chain = l.clusters;
	return true;
}

/* The drivers read any cluster ClusterCount allows; one beyond the device is a read error. */
static bool cluster_valid(const struct geo *g, uint32_t c)
{
	return layout_cluster_declared(&g->fr.l, c);
}

static uint64_t cluster_byte(const struct geo *g, uint32_t c)
{
	return layout_cluster_byte(&g->fr.l, c);
}

/*
 * Next cluster of a chain: 1 and *next set, 0 at end of chain, -1 with
 * err filled when the chain is broken.
 */
static int chain_next(const struct geo *g, uint32_t c, uint32_t *next, char *err, size_t errlen)
{
	uint32_t v = fatreader_next(g->reader, c);

	if (v == LAYOUT_UNREADABLE) {
		snprintf(err, errlen, "FAT entry of cluster %u cannot be read", c);
		return -1;
	}
	if (v == LAYOUT_END)
		return 0;
	if (v == LAYOUT_BAD || v == LAYOUT_FREE) {
		snprintf(err, errlen, "cluster %u is followed by a %s cluster", c,
			 v ? "bad" : "free");
		return -1;
	}
	if (!cluster_valid(g, v)) {
		snprintf(err, errlen, "cluster %u points to %u, outside the heap", c, v);
		return -1;
	}
	*next = v;
	return 1;
}

/* State of the streaming entry parse over the whole root chain. */
struct scan {
	struct fsc_exfat_root *r;
	bool end_in_cluster, end_seen;
	struct exfat_asm as;		/* exfat-fuse's lenient view of sets */
	uint8_t buf[64 * 1024];		/* one chunk of a root cluster */
};

__attribute__((format(printf, 2, 3)))
static void fuse_fail(struct scan *st, const char *fmt, ...)
{
	va_list ap;

	if (st->r->fuse_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(st->r->fuse_error, sizeof(st->r->fuse_error), fmt, ap);
	va_end(ap);
}

/* exfat-fuse's checks of one complete file entry set. */
static void fuse_check_set(struct scan *st)
{
	const uint8_t *s = st->as.set;
	unsigned sc = exfat_secondary_count(s), names;
	uint8_t flags = EXFAT_STREAM_OF(s)[EXFAT_STREAM_FLAGS], nl = EXFAT_STREAM_OF(s)[EXFAT_STREAM_NAME_LENGTH];

	if (sc < 2) {
		fuse_fail(st, "file entry set with %u secondary entries", sc);
		return;
	}
	if (s[EXFAT_SET_STREAM_AT] != EXFAT_T_STREAM) {
		fuse_fail(st, "file entry followed by entry type 0x%02x", s[EXFAT_SET_STREAM_AT]);
		return;
	}
	if (flags & ~3u) {
		fuse_fail(st, "stream extension flags 0x%02x", flags);
		return;
	}
	names = (nl + 14u) / 15u;
	if (names > sc - 1) {
		fuse_fail(st, "%u name entries missing", names - (sc - 1));
		return;
	}
	for (unsigned i = 0; i < names; i++)
		if (s[(EXFAT_SET_FIRST_NAME + i) * EXFAT_ENTRY_SIZE] != EXFAT_T_NAME) {
			fuse_fail(st, "name entry of type 0x%02x", s[64 + 32 * i]);
			return;
		}
	if (fsc_exfat_set_checksum(s, sc + 1) != exfat_primary_set_checksum(s)) {
		fuse_fail(st, "entry set checksum 0x%04x is wrong", exfat_primary_set_checksum(s));
		return;
	}
	if (exfat_stream_valid_data_length(EXFAT_STREAM_OF(s)) > exfat_stream_data_length(EXFAT_STREAM_OF(s)))
		fuse_fail(st, "valid data length beyond data length");
}

static void note_label(struct fsc_exfat_root *r, const uint8_t *e)
{
	unsigned n = e[EXFAT_LABEL_CHARACTER_COUNT];

	r->label_found = true;
	r->label_chars = e[EXFAT_LABEL_CHARACTER_COUNT];
	utf16le_to_utf8(e + 2, n > 11 ? 11 : n, r->label, sizeof(r->label));
	/*
	 * EXSPEC 7.3.2: a file name's characters (7.7.3).  With a count past
	 * 11 (EXFAT_LABEL_LENGTH) the label ends at a U+0000: one cause, one
	 * finding (and that repair cuts it there).
	 */
	for (unsigned i = 0; i < n && i < 11; i++) {
		uint16_t u = exfat_label_unit(e, i);

		if (n > 11 && !u)
			break;
		if (exfat_name_char_ok(u))
			continue;
		if (!r->label_bad_chars++) {
			r->label_bad_unit = u;
			r->label_bad_at = (uint8_t)i;
		}
	}
}

static void scan_primary(struct scan *st, const uint8_t *e)
{
	struct fsc_exfat_root *r = st->r;

	switch (e[0]) {
	case EXFAT_T_BITMAP:
		if (!r->bitmap_found && !(e[EXFAT_BITMAP_FLAGS] & 1)) {
			r->bitmap_found = true;
			r->bitmap_after_end = st->end_in_cluster;
			r->bitmap_cluster = get_le32(e, EXFAT_BITMAP_FIRST_CLUSTER);
			r->bitmap_length = get_le64(e, EXFAT_BITMAP_DATA_LENGTH);
		}
		break;
	case EXFAT_T_UPCASE:
		if (!r->upcase_found) {
			r->upcase_found = true;
			r->upcase_after_end = st->end_in_cluster;
			r->upcase_checksum_stored = get_le32(e, EXFAT_UPCASE_TABLE_CHECKSUM);
			r->upcase_cluster = get_le32(e, EXFAT_UPCASE_FIRST_CLUSTER);
			r->upcase_length = get_le64(e, EXFAT_UPCASE_DATA_LENGTH);
		}
		break;
	case EXFAT_T_LABEL:
		if (!r->label_found && !st->end_seen)
			note_label(r, e);
		break;
	default:
		if (e[0] == EXFAT_T_GUID && !r->guid_found) {
			r->guid_found = true;
			memcpy(r->guid, e + 6, 16);
		}
		if (!r->fuse_bad_type)
			r->fuse_bad_type = e[0];
		break;
	}
}

static void scan_entry(struct scan *st, const uint8_t *e)
{
	switch (exfat_asm_feed(&st->as, e, &(struct exfat_where){ 0, 0, 0 })) {
	case EXA_END:
		st->end_in_cluster = st->end_seen = true;
		break;
	case EXA_SET:
		fuse_check_set(st);
		break;
	case EXA_PRIMARY:
	case EXA_STRAY:
		scan_primary(st, e);
		break;
	default:
		break;		/* deleted or unused: every driver skips it */
	}
}

static bool scan_cluster(const struct geo *g, struct scan *st, uint32_t c)
{
	uint32_t chunk = g->cluster_bytes < sizeof(st->buf) ? g->cluster_bytes : (uint32_t)sizeof(st->buf);

	st->end_in_cluster = false;
	for (uint32_t at = 0; at < g->cluster_bytes; at += chunk) {
		if (fsc_dev_read(g->dev, cluster_byte(g, c) + at, st->buf, chunk) < 0)
			return false;
		for (uint32_t off = 0; off < chunk; off += 32)
			scan_entry(st, st->buf + off);
	}
	return true;
}

/* Up-case table: checksum over DataLength bytes and code point coverage. */
static void read_upcase(const struct geo *g, struct fsc_exfat_root *r)
{
	uint64_t len = r->upcase_length;
	uint32_t c = r->upcase_cluster, first = c, sum = 0;
	struct exfat_upcase_rd rd = { 0, false };
	char err[96];
	uint8_t *buf;

	r->upcase_length_bad = len == 0 ? "no table" : (len & 1) ? "an odd number of bytes"
			       : len > UPCASE_MAX ? "more than 65536 code points" : NULL;
	if (!cluster_valid(g, c) || r->upcase_length_bad)
		return;
	buf = malloc(g->cluster_bytes < UPCASE_MAX ? g->cluster_bytes : UPCASE_MAX);
	if (!buf)
		return;
	for (uint64_t done = 0, steps = 0; done < len; steps++) {
		uint32_t n = len - done < g->cluster_bytes ? (uint32_t)(len - done) : g->cluster_bytes;

		if (steps > g->max_chain || fsc_dev_read(g->dev, cluster_byte(g, c), buf, n) < 0)
			goto out;
		sum = fsc_exfat_table_checksum(buf, n, sum);
		exfat_upcase_feed(&rd, buf, n, NULL);
		done += n;
		if (done < len && chain_next(g, c, &c, err, sizeof(err)) != 1)
			goto out;
		r->upcase_fragmented |= done < len && c != first + steps + 1;
	}
	r->upcase_read = true;
	r->upcase_checksum_computed = sum;
	r->upcase_coverage = rd.idx;	/* >= 0xFFFF: complete */
out:
	free(buf);
}

/* Are the bitmap's own clusters marked used in the bitmap (EX-BMAP)? */
static void check_bitmap_self(const struct geo *g, struct fsc_exfat_root *r)
{
	uint64_t nclus = (r->bitmap_length + g->cluster_bytes - 1) / g->cluster_bytes;
	uint32_t *chain, c = r->bitmap_cluster;
	char err[96];

	if (!cluster_valid(g, c) || nclus == 0 || nclus > g->max_chain)
		return;
	chain = malloc(nclus * sizeof(*chain));
	if (!chain)
		return;
	for (uint64_t i = 0; i < nclus; i++) {
		chain[i] = c;
		if (i + 1 < nclus && chain_next(g, c, &c, err, sizeof(err)) != 1)
			goto out;
	}
	r->bitmap_self_checked = true;
	r->bitmap_self_allocated = true;
	for (uint64_t i = 1; i < nclus; i++)
		r->bitmap_fragmented |= chain[i] != chain[0] + i;
	for (uint64_t i = 0; i < nclus; i++) {
		uint64_t bit = chain[i] - 2, byte = bit / 8;
		uint8_t v;

		if (byte >= r->bitmap_length ||
		    fsc_dev_read(g->dev, cluster_byte(g, chain[byte / g->cluster_bytes]) +
				 byte % g->cluster_bytes, &v, 1) < 0) {
			r->bitmap_self_checked = false;
			break;
		}
		if (!(v & (1u << (bit % 8)))) {
			r->bitmap_self_allocated = false;
			break;
		}
	}
out:
	free(chain);
}

void exfat_root_scan(struct fsc_dev *dev, const struct fsc_exfat_boot *ex,
		     unsigned shift, struct fsc_exfat_root *r)
{
	struct geo g;
	struct scan *st;
	uint32_t c = ex->root_cluster;
	int rc = 1;

	memset(r, 0, sizeof(*r));
	if (!geo_init(&g, dev, ex, shift, r->error, sizeof(r->error)))
		return;
	if (!cluster_valid(&g, c)) {
		snprintf(r->error, sizeof(r->error), "root cluster %u is outside the heap", c);
		return;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return;
	st->r = r;
	exfat_asm_init(&st->as, EXA_LENIENT, 0);
	r->chain_ok = true;
	for (uint64_t steps = 0; rc == 1; steps++) {
		if (steps >= g.max_chain) {
			snprintf(r->error, sizeof(r->error), "chain does not end after %llu clusters (loop)",
				 (unsigned long long)steps);
			r->chain_ok = false;
			break;
		}
		if (!scan_cluster(&g, st, c)) {
			snprintf(r->error, sizeof(r->error), "cluster %u lies beyond the end of the image", c);
			break;
		}
		r->read = true;
		r->clusters++;
		rc = chain_next(&g, c, &c, r->error, sizeof(r->error));
		if (rc < 0)
			r->chain_ok = false;
	}
	if (r->upcase_found)
		read_upcase(&g, r);
	if (r->bitmap_found)
		check_bitmap_self(&g, r);
	free(st);
	fatreader_free(&g.fr);
}

#define ADD(id, kind, loc, field) finding_add(&p->findings, FSC_PR_##id, FSC_LOC_##kind, loc, field)

/* EXFAT_LABEL_CHARS: the first forbidden character (a control one as U+00XX) and its place. */
static void label_chars_finding(struct fsc_probe *p, const struct fsc_exfat_root *r)
{
	struct fsc_finding *f = ADD(EXFAT_LABEL_CHARS, NONE, 0, "VolumeLabel");
	char what[16], more[48] = "";

	if (r->label_bad_unit < 0x20)
		snprintf(what, sizeof(what), "U+%04X", r->label_bad_unit);
	else
		snprintf(what, sizeof(what), "'%c'", (char)r->label_bad_unit);
	if (r->label_bad_chars > 1)
		snprintf(more, sizeof(more), " and %u more", r->label_bad_chars - 1u);
	finding_detail(f, "%s (character %u)%s", what, r->label_bad_at + 1u, more);
}

void exfat_root_findings(struct fsc_probe *p)
{
	const struct fsc_exfat_root *r = &p->root;
	uint64_t need = ((uint64_t)p->ex.cluster_count + 7) / 8;
	/* (a writer may round DataLength up within the clusters the bitmap fills; past them it is damage) */
	unsigned shift = p->ex.sector_shift + p->ex.cluster_shift;
	uint64_t cb = shift < 40 ? 1ull << shift : 1, whole = (need + cb - 1) / cb * cb;
	struct fsc_finding *f;

	if (!r->read) {
		f = ADD(EXFAT_ROOT_UNREADABLE, CLUSTER, p->ex.root_cluster, NULL);
		finding_detail(f, "%s", r->error[0] ? r->error : "no root cluster could be read");
		return;
	}
	if (!r->chain_ok) {
		f = ADD(EXFAT_ROOT_CHAIN, CLUSTER, p->ex.root_cluster, NULL);
		finding_detail(f, "%s", r->error);
	}
	if (!r->bitmap_found) {
		ADD(EXFAT_BITMAP_MISSING, CLUSTER, p->ex.root_cluster, NULL);
	} else if (r->bitmap_cluster < 2 || r->bitmap_cluster > (uint64_t)p->ex.cluster_count + 1) {
		f = ADD(EXFAT_BITMAP_CLUSTER, CLUSTER, p->ex.root_cluster, "FirstCluster");
		finding_actual(f, "%u", r->bitmap_cluster);
		finding_expected(f, "%llu", (unsigned long long)p->ex.cluster_count + 1);
	} else if (r->bitmap_length < need || r->bitmap_length > whole) {
		f = ADD(EXFAT_BITMAP_SIZE, CLUSTER, r->bitmap_cluster, "DataLength");
		finding_actual(f, "%llu", (unsigned long long)r->bitmap_length);
		finding_expected(f, "%llu", (unsigned long long)need);
	} else if (r->bitmap_self_checked && !r->bitmap_self_allocated) {
		f = ADD(EXFAT_BITMAP_CLUSTERS_FREE, CLUSTER, r->bitmap_cluster, NULL);
		finding_actual(f, "%u", r->bitmap_cluster);
	}
	if (r->bitmap_fragmented)
		ADD(EXFAT_BITMAP_FRAGMENTED, CLUSTER, r->bitmap_cluster, NULL);
	if (!r->upcase_found) {
		ADD(EXFAT_UPCASE_MISSING, CLUSTER, p->ex.root_cluster, NULL);
	} else if (r->upcase_cluster < 2 || r->upcase_cluster > (uint64_t)p->ex.cluster_count + 1) {
		f = ADD(EXFAT_UPCASE_CLUSTER, CLUSTER, p->ex.root_cluster, "FirstCluster");
		finding_actual(f, "%u", r->upcase_cluster);
		finding_expected(f, "%llu", (unsigned long long)p->ex.cluster_count + 1);
	} else if (r->upcase_length_bad) {
		f = ADD(EXFAT_UPCASE_LENGTH, CLUSTER, r->upcase_cluster, "DataLength");
		finding_actual(f, "%llu", (unsigned long long)r->upcase_length);
		finding_detail(f, "%s", r->upcase_length_bad);
	} else if (r->upcase_read && r->upcase_checksum_computed != r->upcase_checksum_stored) {
		f = ADD(EXFAT_UPCASE_CHECKSUM, CLUSTER, r->upcase_cluster, "TableChecksum");
		finding_actual(f, "0x%08x", r->upcase_checksum_computed);
		finding_expected(f, "0x%08x", r->upcase_checksum_stored);
	} else if (r->upcase_read && r->upcase_coverage < 0xFFFF) {
		f = ADD(EXFAT_UPCASE_SHORT, CLUSTER, r->upcase_cluster, NULL);
		finding_actual(f, "%u", r->upcase_coverage);
	}
	if (r->upcase_read && r->upcase_fragmented)
		ADD(EXFAT_UPCASE_FRAGMENTED, CLUSTER, r->upcase_cluster, NULL);
	if (r->label_found && r->label_chars > 11) {
		f = ADD(EXFAT_LABEL_LENGTH, NONE, 0, "VolumeLabel");
		finding_actual(f, "%u", r->label_chars);
	}
	if (r->label_found && r->label_bad_chars)
		label_chars_finding(p, r);
}
