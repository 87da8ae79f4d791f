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
	struct exfat_asm as;	/* exFAT set being assembled */
	struct fat_lfn lfn;	/* FAT long name being assembled */
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

/* ---- exFAT ---- */

static void exfat_set_done(struct wk *w)
{
	struct exfat_set f;
	char name[1024];
	struct fsc_dirent d;

	exfat_set_decode(w->as.set, w->as.count, &f);
	if (!f.has_stream)
		return;
	name_utf8(f.name, f.nl, name, sizeof(name));
	memset(&d, 0, sizeof(d));
	d.name = name;
	d.deleted = w->as.deleted;
	d.attr = f.attr;
	d.dir = d.attr & 0x10;
	d.nofat = f.flags & 2;
	d.valid_size = f.valid_size;
	d.first_cluster = f.first_cluster;
	d.size = f.size;
	d.ctime = f.time[0];
	d.mtime = f.time[1];
	d.atime = f.time[2];
	d.ctime_10ms = f.ms10[0];
	d.mtime_10ms = f.ms10[1];
	d.ctime_utc = f.utc[0];
	d.mtime_utc = f.utc[1];
	d.atime_utc = f.utc[2];
	d.entry_cluster = w->as.at.cluster;
	d.entry_offset = w->as.at.offset;
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

/* One 32-byte exFAT entry; false at the end of the directory.  Broken sets are dropped. */
static bool exfat_entry(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	struct exfat_where at = { c, 0, off };
	enum exfat_ev ev;

	while ((ev = exfat_asm_feed(&w->as, e, &at)) == EXA_CUT)
		;
	if (ev == EXA_END)
		return false;
	if (ev == EXA_SET)
		exfat_set_done(w);
	else if (ev == EXA_PRIMARY && e[0] == EXFAT_T_LABEL && w->cur.node == 0)
		exfat_label(w, e, c, off);
	return true;
}

/* ---- FAT ---- */

static void fat_short(struct wk *w, const uint8_t *e, uint32_t c, uint64_t off)
{
	char name[1024], sfn[40];
	uint8_t raw[11];
	uint16_t su[13];
	struct fsc_dirent d;
	unsigned n = 0, sn;
	const uint16_t *lfn;
	bool deleted = e[0] == 0xE5, found = false;

	memcpy(raw, e, 11);
	if (raw[0] == 0x05)
		raw[0] = 0xE5;
	if (deleted)
		found = fat_lost_first_byte(&w->lfn, raw);
	if (deleted && !found)
		raw[0] = '?';
	sn = fat_sfn_units(raw, e[12], su);
	name_utf8(su, sn, sfn, sizeof(sfn));
	if ((!deleted || found) && (n = fat_lfn_name(&w->lfn, raw, deleted, &lfn)) > 0)
		name_utf8(lfn, n, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", sfn);
	fat_lfn_reset(&w->lfn);
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
	bool deleted_too = w->flags & FSC_WALK_DELETED;
	char name[12];

	switch (fat_entry_kind(e)) {
	case FAT_E_END:
		return false;
	case FAT_E_LFN_DELETED:
		if (deleted_too)
			fat_lfn_add(&w->lfn, e);
		return true;
	case FAT_E_LFN:
		fat_lfn_add(&w->lfn, e);
		return true;
	case FAT_E_DELETED:
		if (deleted_too && (e[11] & 0x18) != 0x08)
			break;
		fat_lfn_reset(&w->lfn);
		return true;
	case FAT_E_DOT:
		fat_lfn_reset(&w->lfn);
		return true;	/* . and .. */
	case FAT_E_LABEL:
		fat_lfn_reset(&w->lfn);
		if (w->cur.node == 0) {
			fat_label_text(e, name);
			emit_label(w, name, c, off);
		}
		return true;
	case FAT_E_FILE:
		break;
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

	exfat_asm_init(&w->as, (w->flags & FSC_WALK_DELETED) ? EXA_DELETED : 0, 18);
	fat_lfn_reset(&w->lfn);
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
