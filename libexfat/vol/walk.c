// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * walk.c - the directory tree of exFAT and FAT volumes as a sequence of
 * entries (struct fsc_dirent), deleted ones included on request: exFAT
 * entry sets with InUse clear, FAT 0xE5 entries with their long-name
 * fragments (the lost first character found through the LFN checksum).
 * For deleted entries it says whether their clusters are still free.
 *
 * Consumes: a probe and the device.  Produces: callbacks, parents before
 * children.  Explicit stack; a directory cluster seen twice is not read
 * again (one bit per cluster); every chain bounded by the cluster count.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vol/geo.h"

struct wjob {
	size_t node;
	uint32_t first;
	uint64_t size;		/* 0: by the chain */
	bool nofat;
	unsigned depth;
};

struct wk {
	struct fatreader fr;	/* the FAT, and in fr.l the layout */
	const struct layout *l;	/* &fr.l */
	const struct fsc_probe *p;
	unsigned flags;
	fsc_dirent_fn fn;
	void *ctx;
	int stop;
	uint64_t *seen;		/* directory clusters already read */
	const uint8_t *bitmap;	/* exFAT allocation bitmap, or NULL */
	struct pathtab nodes;
	struct wjob *stack;
	size_t nstack, capstack;
	/* the directory being read */
	struct wjob cur;
	char dir[4096];
	/* exFAT set being collected */
	uint8_t set[19 * 32];
	unsigned have, need;
	bool set_deleted;
	uint32_t set_cluster;
	uint64_t set_offset;
	/* FAT long name being collected */
	uint16_t lfn[20 * 13];
	unsigned lfn_parts;
	uint8_t lfn_sum;
	bool lfn_deleted;
};

static void push(struct wk *w, size_t node, uint32_t first, uint64_t size, bool nofat, unsigned depth)
{
	if (node == SIZE_MAX)
		return;
	if (w->nstack == w->capstack) {
		size_t cap = w->capstack ? 2 * w->capstack : 64;
		struct wjob *v = realloc(w->stack, cap * sizeof(*v));

		if (!v)
			return;
		w->stack = v;
		w->capstack = cap;
	}
	w->stack[w->nstack++] = (struct wjob){ node, first, size, nofat, depth };
}

static bool cluster_free(struct wk *w, uint32_t c)
{
	if (w->l->type == FSC_TYPE_EXFAT)
		return w->bitmap && !((w->bitmap[(c - 2) / 8] >> ((c - 2) % 8)) & 1);
	return fatreader_next(&w->fr, c) == LAYOUT_FREE;
}

/*
 * Deleted entry: are the clusters it pointed at still free?  (Contiguous
 * guess; a FAT directory records no size: its first cluster at least.)
 */
static int recoverable(struct wk *w, uint32_t first, uint64_t size, bool dir)
{
	uint64_t n = (size + w->l->cluster_bytes - 1) / w->l->cluster_bytes;

	if (!n && dir && first)
		n = 1;
	if (!n)
		return 1;
	if (!layout_cluster_valid(w->l, first) || (w->l->type == FSC_TYPE_EXFAT && !w->bitmap))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		if (!layout_cluster_valid(w->l, (uint32_t)(first + i)))
			return -1;
		if (!cluster_free(w, (uint32_t)(first + i)))
			return 0;
	}
	return 1;
}

static void emit(struct wk *w, struct fsc_dirent *d)
{
	char path[4096 + 800];

	snprintf(path, sizeof(path), "%s%s%s", w->dir, strcmp(w->dir, "/") ? "/" : "", d->name);
	d->path = path;
	d->depth = w->cur.depth + 1;
	d->parent_id = w->cur.node;
	if (d->deleted)
		d->recoverable = recoverable(w, d->first_cluster, d->size, d->dir);
	else
		d->recoverable = -1;
	if (d->dir && !d->deleted && d->first_cluster) {
		size_t node = pathtab_add(&w->nodes, w->cur.node, d->name);

		d->id = node == SIZE_MAX ? 0 : node;
		push(w, node, d->first_cluster, d->size, d->nofat, w->cur.depth + 1);
	}
	if (!w->stop)
		w->stop = w->fn(w->ctx, d);
}

/* UTF-16 units to UTF-8, unpaired surrogates as \uXXXX. */
static void name_utf8(const uint16_t *u, unsigned n, char *out, size_t len)
{
	size_t o = 0;

	for (unsigned i = 0; i < n && o + 8 < len; i++) {
		uint8_t le[4];
		bool hi = u[i] >= 0xD800 && u[i] < 0xDC00, lo = u[i] >= 0xDC00 && u[i] < 0xE000;

		if ((hi && (i + 1 >= n || u[i + 1] < 0xDC00 || u[i + 1] >= 0xE000)) || lo) {
			o += (size_t)snprintf(out + o, len - o, "\\u%04X", u[i]);
			continue;
		}
		put_le16(le, 0, u[i]);
		if (hi) {
			put_le16(le, 2, u[++i]);
			utf16le_to_utf8(le, 2, out + o, len - o);
		} else {
			utf16le_to_utf8(le, 1, out + o, len - o);
		}
		o += strlen(out + o);
	}
	out[o] = '\0';
}

static int16_t utc_minutes(uint8_t b)
{
	if (!(b & 0x80))
		return INT16_MIN;
	return (int16_t)(((b & 0x40) ? (int)(b & 0x7F) - 128 : (int)(b & 0x7F)) * 15);
}

/* ---- exFAT ---- */

static void exfat_set_done(struct wk *w)
{
	const uint8_t *s = w->set;
	unsigned sc = s[1], nl = s[35], k;
	uint16_t units[255];
	char name[1024];
	struct fsc_dirent d;

	w->have = w->need = 0;
	if (sc < 2 || (s[32] & 0x7F) != 0x40)
		return;
	for (k = 0; k < sc - 1 && (s[64 + 32 * k] & 0x7F) == 0x41; k++)
		;
	if (nl > 15 * k)
		nl = 15 * k;
	for (unsigned i = 0; i < nl; i++)
		units[i] = get_le16(s, 64 + 32 * (i / 15) + 2 + 2 * (i % 15));
	name_utf8(units, nl, name, sizeof(name));
	memset(&d, 0, sizeof(d));
	d.name = name;
	d.deleted = w->set_deleted;
	d.attr = get_le16(s, 4);
	d.dir = d.attr & 0x10;
	d.nofat = s[33] & 2;
	d.valid_size = get_le64(s, 40);
	d.first_cluster = get_le32(s, 52);
	d.size = get_le64(s, 56);
	d.ctime = get_le32(s, 8);
	d.mtime = get_le32(s, 12);
	d.atime = get_le32(s, 16);
	d.ctime_10ms = s[20];
	d.mtime_10ms = s[21];
	d.ctime_utc = utc_minutes(s[22]);
	d.mtime_utc = utc_minutes(s[23]);
	d.atime_utc = utc_minutes(s[24]);
	d.entry_cluster = w->set_cluster;
	d.entry_offset = w->set_offset;
	emit(w, &d);
}

static void emit_label(struct wk *w, const char *name, uint32_t c, uint64_t off)
{
	struct fsc_dirent d;

	memset(&d, 0, sizeof(d));
	d.name = name;
	d.label = true;
	d.entry_cluster = c;
	d.entry_offset = off;
	d.ctime_utc = d.mtime_utc = d.atime_utc = INT16_MIN;
	emit(w, &d);
}

static void exfat_label(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	uint16_t units[15];
	char name[128];
	unsigned n = e[1] > 15 ? 15 : e[1];

	for (unsigned i = 0; i < n; i++)
		units[i] = get_le16(e, 2 + 2 * i);
	name_utf8(units, n, name, sizeof(name));
	emit_label(w, name, c, off);
}

/* One 32-byte exFAT entry; false at the end of the directory. */
static bool exfat_entry(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	uint8_t t = e[0];
	bool deleted = !(t & 0x80);

	if (t == 0x00)
		return false;
	if (w->have && w->have < w->need) {
		if ((t & 0x40) && deleted == w->set_deleted) {
			memcpy(w->set + 32 * w->have++, e, 32);
			if (w->have == w->need)
				exfat_set_done(w);
			return true;
		}
		w->have = w->need = 0;	/* broken set: dropped */
	}
	if ((t & 0x7F) == 0x05 && (!deleted || (w->flags & FSC_WALK_DELETED)) && e[1] >= 2 && e[1] <= 18) {
		memcpy(w->set, e, 32);
		w->have = 1;
		w->need = e[1] + 1u;
		w->set_deleted = deleted;
		w->set_cluster = c;
		w->set_offset = off;
	} else if (t == 0x83 && w->cur.node == 0) {
		exfat_label(w, e, c, off);
	}
	return true;
}

/* ---- FAT ---- */

static uint8_t sfn_checksum(const uint8_t *n)
{
	uint8_t s = 0;

	for (int i = 0; i < 11; i++)
		s = (uint8_t)(((s & 1) << 7) + (s >> 1) + n[i]);
	return s;
}

static void fat_lfn(struct wk *w, const uint8_t *e)
{
	static const uint8_t pos[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	bool deleted = e[0] == 0xE5;
	unsigned seq = e[0] & 0x1F;

	if (!deleted && (e[0] & 0x40)) {	/* the last part comes first */
		w->lfn_parts = 0;
		w->lfn_sum = e[13];
		w->lfn_deleted = false;
		memset(w->lfn, 0xFF, sizeof(w->lfn));
	} else if (deleted && (!w->lfn_parts || !w->lfn_deleted || e[13] != w->lfn_sum)) {
		w->lfn_parts = 0;
		w->lfn_sum = e[13];
		w->lfn_deleted = true;
		memset(w->lfn, 0xFF, sizeof(w->lfn));
	} else if (e[13] != w->lfn_sum) {
		w->lfn_parts = 0;
		return;
	}
	if (deleted)	/* sequence numbers are gone: parts come last-first */
		memmove(w->lfn + 13, w->lfn, sizeof(w->lfn) - 26);
	else if (seq < 1 || seq > 20)
		return;
	for (int i = 0; i < 13; i++)
		w->lfn[(deleted ? 0 : 13 * (seq - 1)) + i] = get_le16(e, pos[i]);
	/* A name has at most 20 parts (255 units); more (repeated sequence numbers,
	   a run of deleted parts) must not count past what lfn[] holds. */
	if (w->lfn_parts < 20)
		w->lfn_parts++;
}

/* Code page 850 (mtools' default; DOS in Western Europe) for 8.3 bytes 0x80-0xFF. */
static const uint16_t cp850[128] = {
	0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
	0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
	0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
	0x00FF, 0x00D6, 0x00DC, 0x00F8, 0x00A3, 0x00D8, 0x00D7, 0x0192,
	0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
	0x00BF, 0x00AE, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
	0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x00C1, 0x00C2, 0x00C0,
	0x00A9, 0x2563, 0x2551, 0x2557, 0x255D, 0x00A2, 0x00A5, 0x2510,
	0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x00E3, 0x00C3,
	0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x00A4,
	0x00F0, 0x00D0, 0x00CA, 0x00CB, 0x00C8, 0x0131, 0x00CD, 0x00CE,
	0x00CF, 0x2518, 0x250C, 0x2588, 0x2584, 0x00A6, 0x00CC, 0x2580,
	0x00D3, 0x00DF, 0x00D4, 0x00D2, 0x00F5, 0x00D5, 0x00B5, 0x00FE,
	0x00DE, 0x00DA, 0x00DB, 0x00D9, 0x00FD, 0x00DD, 0x00AF, 0x00B4,
	0x00AD, 0x00B1, 0x2017, 0x00BE, 0x00B6, 0x00A7, 0x00F7, 0x00B8,
	0x00B0, 0x00A8, 0x00B7, 0x00B9, 0x00B3, 0x00B2, 0x25A0, 0x00A0,
};

/* An 8.3 name (raw, 11 bytes) as UTF-16 units, "NAME.EXT", lower-case flags applied. */
static unsigned sfn_units(const uint8_t *raw, uint8_t flags, uint16_t *u)
{
	unsigned n = 0;

	for (int i = 0; i < 11; i++) {
		uint8_t c = raw[i];
		bool lower = i < 8 ? flags & 0x08 : flags & 0x10;

		if (i == 8) {
			if (raw[8] == ' ')
				break;
			u[n++] = '.';
		}
		if (c == ' ' && (i < 8 ? bytes_all(raw, (size_t)i, 8 - (size_t)i, ' ') : true))
			continue;
		uint16_t v = c >= 0x80 ? cp850[c - 0x80] : c < 0x20 ? '?' : c;

		/* The lower-case flags (Windows NT) lower the Latin letters too. */
		if (lower && ((v >= 'A' && v <= 'Z') || (v >= 0xC0 && v <= 0xDE && v != 0xD7)))
			v += 0x20;
		u[n++] = v;
	}
	return n;
}

static void fat_short(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	char name[1024], sfn[40];
	uint8_t raw[11];
	uint16_t su[13];
	struct fsc_dirent d;
	unsigned n = 0, sn;
	bool deleted = e[0] == 0xE5, found = false;

	memcpy(raw, e, 11);
	if (raw[0] == 0x05)
		raw[0] = 0xE5;
	if (deleted && w->lfn_parts && w->lfn_deleted) {
		for (unsigned ch = 0x01; ch <= 0xFF && !found; ch++) {	/* find the lost first byte */
			raw[0] = (uint8_t)ch;
			found = ch != 0xE5 && sfn_checksum(raw) == w->lfn_sum;
		}
	}
	if (deleted && !found)
		raw[0] = '?';
	sn = sfn_units(raw, e[12], su);
	name_utf8(su, sn, sfn, sizeof(sfn));
	if (w->lfn_parts && w->lfn_deleted == deleted && (!deleted || found) && sfn_checksum(raw) == w->lfn_sum) {
		while (n < 13 * w->lfn_parts && w->lfn[n] != 0x0000 && w->lfn[n] != 0xFFFF)
			n++;
		name_utf8(w->lfn, n, name, sizeof(name));
	} else {
		snprintf(name, sizeof(name), "%s", sfn);
	}
	w->lfn_parts = 0;
	memset(&d, 0, sizeof(d));
	d.name = name;
	snprintf(d.short_name, sizeof(d.short_name), "%s", sfn);
	d.deleted = deleted;
	d.attr = e[11];
	d.dir = e[11] & 0x10;
	d.first_cluster = (uint32_t)get_le16(e, 26) | (w->l->fat_bits == 32 ? (uint32_t)get_le16(e, 20) << 16 : 0);
	d.size = d.valid_size = d.dir ? 0 : get_le32(e, 28);
	d.ctime = (uint32_t)get_le16(e, 16) << 16 | get_le16(e, 14);
	d.ctime_10ms = e[13];
	d.mtime = (uint32_t)get_le16(e, 24) << 16 | get_le16(e, 22);
	d.atime = (uint32_t)get_le16(e, 18) << 16;
	d.ctime_utc = d.mtime_utc = d.atime_utc = INT16_MIN;
	d.entry_cluster = c;
	d.entry_offset = off;
	emit(w, &d);
}

/* One 32-byte FAT entry; false at the end of the directory. */
static bool fat_entry(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	if (e[0] == 0x00)
		return false;
	if ((e[11] & 0x3F) == 0x0F) {
		if (e[0] != 0xE5 || (w->flags & FSC_WALK_DELETED))
			fat_lfn(w, e);
		return true;
	}
	if (e[0] == 0xE5 && !(w->flags & FSC_WALK_DELETED)) {
		w->lfn_parts = 0;
		return true;
	}
	if (e[0] == '.' && (e[1] == ' ' || e[1] == '.')) {
		w->lfn_parts = 0;
		return true;	/* . and .. */
	}
	if ((e[11] & 0x18) == 0x08) {	/* volume label */
		char name[16];

		w->lfn_parts = 0;
		if (e[0] == 0xE5 || w->cur.node != 0)
			return true;
		for (int i = 0; i < 11; i++)
			name[i] = (e[i] >= 0x20 && e[i] < 0x7F) ? (char)e[i] : '?';
		name[11] = '\0';
		for (int i = 10; i >= 0 && name[i] == ' '; i--)
			name[i] = '\0';
		emit_label(w, name, c, off);
		return true;
	}
	fat_short(w, e, c, off);
	return true;
}

/* Entries of one directory area; false when the directory ended. */
static bool area(struct wk *w, const uint8_t *d, size_t len, uint32_t c, uint64_t off)
{
	for (size_t i = 0; i + 32 <= len && !w->stop; i += 32) {
		bool more = w->l->type == FSC_TYPE_EXFAT ? exfat_entry(w, d + i, c, off + i) : fat_entry(w, d + i, c, off + i);

		if (!more)
			return false;
	}
	return true;
}

static void read_dir(struct wk *w)
{
	const struct wjob *j = &w->cur;
	uint64_t need = j->size ? (j->size + w->l->cluster_bytes - 1) / w->l->cluster_bytes : UINT64_MAX;
	uint32_t c = j->first;
	const uint8_t *d;

	w->have = w->need = 0;
	w->lfn_parts = 0;
	pathtab_path(&w->nodes, j->node, w->dir, sizeof(w->dir));
	if (j->node == 0 && w->l->type != FSC_TYPE_EXFAT && w->l->fat_bits != 32) {
		if (fsc_dev_map(w->l->dev, w->l->root_byte, w->l->root_bytes, &d) == 0)
			area(w, d, w->l->root_bytes, 0, w->l->root_byte);
		return;
	}
	for (uint64_t n = 0; n < need && n < w->l->held && layout_cluster_valid(w->l, c); n++) {
		if (bit_test_set(w->seen, c - 2))
			return;	/* read already: a cycle or a cross-link */
		if (fsc_dev_map(w->l->dev, layout_cluster_byte(w->l, c), w->l->cluster_bytes, &d) < 0 ||
		    !area(w, d, w->l->cluster_bytes, c, layout_cluster_byte(w->l, c)))
			return;
		c = j->nofat ? c + 1 : fatreader_next(&w->fr, c);
	}
}

FSC_EXPORT int fsc_walk_tree(struct fsc_dev *dev, const struct fsc_probe *p, unsigned flags,
			     fsc_dirent_fn fn, void *ctx)
{
	struct wk *w = calloc(1, sizeof(*w));
	struct layout l;
	int r;

	if (!w)
		return -ENOMEM;
	r = vol_layout(&l, dev, p);
	if (r < 0)
		goto out;
	fatreader_init(&w->fr, &l);
	w->l = &w->fr.l;
	w->p = p;
	w->flags = flags;
	w->fn = fn;
	w->ctx = ctx;
	w->seen = calloc(((uint64_t)w->l->held + 63) / 64 + 1, 8);
	if (!w->seen || pathtab_init(&w->nodes) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (w->l->type == FSC_TYPE_EXFAT && p->root.bitmap_found &&
	    layout_cluster_valid(w->l, p->root.bitmap_cluster) &&
	    fsc_dev_map(dev, layout_cluster_byte(w->l, p->root.bitmap_cluster),
			((size_t)w->l->held + 7) / 8, &w->bitmap) < 0)
		w->bitmap = NULL;
	push(w, 0, w->l->root_cluster, 0, false, 0);
	while (w->nstack && !w->stop) {
		w->cur = w->stack[--w->nstack];
		read_dir(w);
	}
	r = w->stop;
out:
	fatreader_free(&w->fr);
	pathtab_free(&w->nodes);
	free(w->stack);
	free(w->seen);
	free(w);
	return r;
}
