// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * walk.c - the directory tree of exFAT and FAT volumes as a sequence of
 * entries (struct fsc_dirent), deleted ones included on request: exFAT
 * entry sets with InUse clear, FAT 0xE5 entries with their long-name
 * fragments (the lost first character found through the LFN checksum).
 * For deleted entries it says how much of their data is left (read.c),
 * and with deleted entries asked for, it reads the deleted directories
 * whose clusters are intact.  The walk starts at the root or at any
 * directory, and may stop at that directory's own entries.
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

#include "fat/fat.h"
#include "vol/geo.h"

struct wjob {
	size_t node;		/* (first: dirwalk.c) */
	uint32_t first;
	uint64_t size;		/* 0: by the chain */
	bool nofat;
	bool root;		/* the volume's root (FAT12/16: the fixed area) */
	bool deleted;		/* a deleted directory: all it holds is deleted */
	unsigned depth;
};

struct wk {
	struct vol_src src;	/* the FAT (its layout in src.fr.l) and the bitmap */
	const struct layout *l;	/* &src.fr.l */
	const struct fsc_probe *p;
	unsigned flags;
	fsc_dirent_fn fn;
	void *ctx;
	int stop;
	bool looped;		/* a live directory's chain came back to a cluster read already */
	uint64_t *seen;		/* directory clusters already read */
	struct dirwalk dw;	/* the directories met and waiting; dw.path: the one being read */
	/* the directory being read */
	struct wjob cur;
	struct exfat_asm as;	/* exFAT set being assembled */
	struct fat_lfn lfn;	/* FAT long name being assembled */
};

/* A deleted entry's recovery (read.c); for a directory, how to read it when intact. */
static void recovery(struct wk *w, struct fsc_dirent *d, struct wjob *j)
{
	struct vol_runs r;

	if (vol_runs_of(&w->src, d, &r) < 0)
		r.state = FSC_REC_UNKNOWN;
	d->recovery = r.state;
	d->recoverable = r.state == FSC_REC_INTACT || r.state == FSC_REC_PARTIAL ? 1 :
			 r.state == FSC_REC_OVERWRITTEN ? 0 : -1;
	j->nofat = d->nofat || r.contiguous;
	j->size = d->size ? d->size : w->l->type == FSC_TYPE_EXFAT ? 0 : w->l->cluster_bytes;
	vol_runs_free(&r);
}

static void emit(struct wk *w, struct fsc_dirent *d)
{
	char path[4096 + 800];
	struct wjob j = { 0, d->first_cluster, d->size, d->nofat, false, true, w->cur.depth + 1 };

	snprintf(path, sizeof(path), "%s%s%s", w->dw.path, strcmp(w->dw.path, "/") ? "/" : "", d->name);
	d->struct_size = sizeof(*d);
	d->path = path;
	d->depth = w->cur.depth + 1;
	d->parent_id = w->cur.node;
	d->deleted |= w->cur.deleted;
	d->recovery = FSC_REC_LIVE;
	d->recoverable = -1;
	if (d->deleted)
		recovery(w, d, &j);
	if (d->dir && d->first_cluster && !(w->flags & FSC_WALK_ONE) &&
	    (!d->deleted || d->recovery == FSC_REC_INTACT)) {
		j.node = dirwalk_add(&w->dw, w->cur.node, d->name);
		d->id = j.node == SIZE_MAX ? 0 : j.node;
		j.deleted = d->deleted;
		if (!d->deleted)
			j.size = d->size;
		dirwalk_push(&w->dw, &j);
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
		for (unsigned k = 0; k < (hi ? 2u : 1u); k++)	/* a surrogate pair: both units */
			put_le16(le, 2 * k, u[i + k]);
		utf16le_to_utf8(le, hi ? 2 : 1, out + o, len - o);
		i += hi;
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
	unsigned n = e[EXFAT_LABEL_CHARACTER_COUNT] > 15 ? 15 : e[EXFAT_LABEL_CHARACTER_COUNT];

	for (unsigned i = 0; i < n; i++)
		units[i] = exfat_label_unit(e, i);
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
	else if (ev == EXA_PRIMARY && e[0] == EXFAT_T_LABEL && w->cur.root)
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
	bool deleted = e[FAT_DIR_NAME] == FAT_DIR_FREE, found = false;

	memcpy(raw, e + FAT_DIR_NAME, FAT_DIR_NAME_LEN);
	if (raw[0] == 0x05)
		raw[0] = FAT_DIR_FREE;
	if (deleted)
		found = fat_lost_first_byte(&w->lfn, raw);
	if (deleted && !found)
		raw[0] = '?';
	sn = fat_sfn_units(raw, e[FAT_DIR_NT_RES], su);
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
	d.attr = e[FAT_DIR_ATTR];
	d.dir = e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY;
	d.first_cluster = fat_entry_first(e, w->l->fat_bits);
	d.size = d.valid_size = d.dir ? 0 : fat_dirent_file_size(e);
	d.ctime = fat_dirent_stamp(e, FAT_DIR_CRT_DATE, FAT_DIR_CRT_TIME);
	d.ctime_10ms = e[FAT_DIR_CRT_TIME_TENTH];
	d.mtime = fat_dirent_stamp(e, FAT_DIR_WRT_DATE, FAT_DIR_WRT_TIME);
	d.atime = (uint32_t)get_le16(e, FAT_DIR_LST_ACC_DATE) << 16;
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
		if (deleted_too && (e[FAT_DIR_ATTR] & FAT_ATTR_DIR_LABEL) != FAT_ATTR_VOLUME_ID)
			break;
		fat_lfn_reset(&w->lfn);
		return true;
	case FAT_E_DOT:
		fat_lfn_reset(&w->lfn);
		return true;	/* . and .. */
	case FAT_E_LABEL:
		fat_lfn_reset(&w->lfn);
		if (w->cur.root) {
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
	struct layout_chain it;
	const uint8_t *d;
	uint32_t c;

	exfat_asm_init(&w->as, (w->flags & FSC_WALK_DELETED) ? EXA_DELETED : 0, 18);
	fat_lfn_reset(&w->lfn);
	if (j->root && w->l->type != FSC_TYPE_EXFAT && w->l->fat_bits != 32) {
		if (fsc_dev_map(w->l->dev, w->l->root_byte, w->l->root_bytes, &d) == 0)
			area(w, d, w->l->root_bytes, 0, w->l->root_byte);
		return;
	}
	/* (no loop test of its own: a cluster read already ends the directory, below) */
	layout_chain_begin(&it, w->l, fatreader_link, &w->src.fr, j->first, 0, j->nofat);
	while (it.n < need && layout_chain_next(&it, &c)) {
		if (bit_test_set(w->seen, c - 2)) {
			w->looped |= !j->deleted;
			return;	/* read already: a cycle or a cross-link */
		}
		if (fsc_dev_map(w->l->dev, layout_cluster_byte(w->l, c), w->l->cluster_bytes, &d) < 0 ||
		    !area(w, d, w->l->cluster_bytes, c, layout_cluster_byte(w->l, c)))
			return;
	}
}

/* The first job: the root, or dir (a directory, read as its recovery says when deleted). */
static int start_job(struct wk *w, const struct fsc_dirent *dir, struct wjob *j)
{
	memset(j, 0, sizeof(*j));
	if (!dir || dir->depth == 0) {
		j->first = w->l->root_cluster;
		j->root = true;
		return 0;
	}
	if (!dir->dir || dir->label)
		return -ENOTDIR;
	if (dir->path && strcmp(dir->path, "/"))
		snprintf(w->dw.prefix, sizeof(w->dw.prefix), "%s", dir->path);
	j->first = dir->first_cluster;
	j->size = dir->size;
	j->nofat = dir->nofat;
	j->depth = dir->depth;
	if (dir->deleted) {
		struct fsc_dirent copy = *dir;

		recovery(w, &copy, j);
		j->deleted = true;
		if (copy.recovery != FSC_REC_INTACT)
			j->first = 0;	/* nothing to read */
	}
	return 0;
}

FSC_EXPORT int fsc_walk_dir(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_dirent *caller,
			    unsigned flags, fsc_dirent_fn fn, void *ctx)
{
	struct fsc_dirent own;
	const struct fsc_dirent *dir = caller ? &own : NULL;
	struct wk *w;
	struct wjob j;
	int r;

	if (caller && (r = sized_copy(&own, sizeof(own), caller)) < 0)
		return r;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	r = vol_src_open(&w->src, dev, p);
	if (r < 0)
		goto out;
	w->l = &w->src.fr.l;
	w->p = p;
	w->flags = flags;
	w->fn = fn;
	w->ctx = ctx;
	w->seen = calloc(((uint64_t)w->l->held + 63) / 64 + 1, 8);
	if (!w->seen || dirwalk_init(&w->dw, sizeof(struct wjob), NULL) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = start_job(w, dir, &j)) < 0)
		goto out;
	dirwalk_push(&w->dw, &j);
	while (!w->stop && dirwalk_pop(&w->dw, &w->cur))
		read_dir(w);
	r = w->stop ? w->stop : w->looped && (flags & FSC_WALK_LOOPS) ? -ELOOP : 0;
out:
	vol_src_close(&w->src);
	dirwalk_free(&w->dw);
	free(w->seen);
	free(w);
	return r;
}

FSC_EXPORT int fsc_walk_tree(struct fsc_dev *dev, const struct fsc_probe *p, unsigned flags,
			     fsc_dirent_fn fn, void *ctx)
{
	return fsc_walk_dir(dev, p, NULL, flags & ~(unsigned)FSC_WALK_ONE, fn, ctx);
}
