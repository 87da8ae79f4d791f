// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owner.c - who owns one cluster of an exFAT or FAT volume, for
 * examiners (fatscope dump --owner): the area the cluster's bytes fall in
 * when the geometry puts it over the boot region, a FAT or the FAT12/16
 * root area; exFAT's allocation bitmap and up-case table (EXSPEC 7.1,
 * 7.2); the root directory; the live file or directory whose chain holds
 * it, with the directory entry that points to the chain's head; else
 * free (with the deleted entry whose data it held, if one is found), bad
 * or lost (allocated, owned by nothing).
 *
 * Consumes: a probe and the device.  Produces: struct fsc_owner.  The
 * tree is walked once (twice for a free cluster: the deleted entries)
 * and each chain followed until the cluster is met: no per-cluster owner
 * map is built, so memory is the walker's and the FAT reader's.  Every
 * chain is bounded by its size and the cluster count, and followed
 * through the chain iterator (layout/chain.c), whose loop test costs at
 * most a few times the chain's length.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vol/geo.h"

/*
 * The position of target in the allocation from first (contiguous with
 * nofat), need clusters (0: to the chain's end): its index, or -1 when
 * the allocation does not hold it.  Through the chain iterator: each
 * cluster once, a loop ends the walk.
 */
static int64_t chain_index(struct fatreader *fr, uint32_t first, uint64_t need, bool nofat, uint32_t target)
{
	const struct layout *l = &fr->l;
	struct layout_chain it;
	uint32_t c;

	if (!need || need > l->held)
		need = l->held;
	if (nofat)
		return target >= first && (uint64_t)target - first < need &&
		       layout_cluster_valid(l, target) ? (int64_t)(target - first) : -1;
	layout_chain_begin(&it, l, fatreader_link, fr, first, need, false);
	while (it.n < need && layout_chain_next(&it, &c))
		if (c == target)
			return (int64_t)(it.n - 1);
	return -1;
}

struct odir {
	uint32_t first;
	uint64_t size;
	bool nofat;
};

struct own {
	struct vol_src src;
	const struct layout *l;
	const struct fsc_probe *p;
	uint32_t target;
	const char *besides;		/* an entry passed over (its path), or NULL */
	bool deleted_pass;
	struct fsc_owner *out;
	char *buf;
	size_t len;
	struct odir *dirs;		/* by directory id: where each directory's entries are */
	size_t ndirs;
	int err;
};

static uint64_t clusters_of(const struct layout *l, uint64_t size)
{
	return (size + l->cluster_bytes - 1) / l->cluster_bytes;
}

/* Where d's entry lies in its directory: the index of its 32-byte slot, or -1. */
static int64_t entry_index(struct own *o, const struct fsc_dirent *d)
{
	const struct layout *l = o->l;
	struct odir root = { l->root_cluster, 0, false }, *dir = &root;
	int64_t pos;

	if (!d->entry_cluster)	/* the FAT12/16 root area */
		return d->entry_offset >= l->root_byte ? (int64_t)((d->entry_offset - l->root_byte) / 32) : -1;
	if (d->parent_id && d->parent_id < o->ndirs)
		dir = &o->dirs[d->parent_id];
	else if (d->parent_id)
		return -1;
	pos = chain_index(&o->src.fr, dir->first, dir->size ? clusters_of(l, dir->size) : 0, dir->nofat,
			  d->entry_cluster);
	if (pos < 0 || d->entry_offset < layout_cluster_byte(l, d->entry_cluster))
		return -1;
	return pos * (int64_t)(l->cluster_bytes / 32) +
	       (int64_t)((d->entry_offset - layout_cluster_byte(l, d->entry_cluster)) / 32);
}

/* Copy s into the caller's buffer: a pointer to it there, or "" when it is full. */
static const char *keep(struct own *o, const char *s)
{
	size_t n = strlen(s) + 1;
	char *at;

	if (n > o->len)
		return "";
	at = o->buf;
	memcpy(at, s, n);
	o->buf += n;
	o->len -= n;
	return at;
}

static void found(struct own *o, const struct fsc_dirent *d, uint64_t index, enum fsc_recovery rec)
{
	struct fsc_owner *out = o->out;
	const char *slash = strrchr(d->path, '/');
	char dir[4096];

	out->kind = d->deleted ? FSC_OWNER_DELETED : d->dir ? FSC_OWNER_DIR : FSC_OWNER_FILE;
	out->head = d->first_cluster;
	out->index = index;
	out->path = keep(o, d->path);
	snprintf(dir, sizeof(dir), "%.*s", slash && slash != d->path ? (int)(slash - d->path) : 1, d->path);
	out->dir = keep(o, dir);
	out->entry_byte = d->entry_offset;
	out->entry_cluster = d->entry_cluster;
	out->entry_index = entry_index(o, d);
	out->recovery = rec;
}

/* The deleted pass: d's data as read.c would recover it. */
static bool deleted_holds(struct own *o, const struct fsc_dirent *d, uint64_t *index)
{
	struct vol_runs r;
	bool hit = false;

	if (vol_runs_of(&o->src, d, &r) < 0) {
		vol_runs_free(&r);
		return false;
	}
	for (size_t i = 0; i < r.n && !hit; i++)
		if (r.v[i].first && o->target >= r.v[i].first && o->target - r.v[i].first < r.v[i].count) {
			*index = r.v[i].byte / o->l->cluster_bytes + (o->target - r.v[i].first);
			hit = true;
		}
	o->out->recovery = r.state;
	vol_runs_free(&r);
	return hit;
}

static int visit(void *ctx, const struct fsc_dirent *d)
{
	struct own *o = ctx;
	const struct layout *l = o->l;
	bool fatdir = d->dir && l->type != FSC_TYPE_EXFAT;
	uint64_t index = 0;
	int64_t at;

	if (d->id) {	/* parents come before their entries: a deleted one read as a contiguous run */
		if (!grow((void **)&o->dirs, &o->ndirs, d->id + 1, sizeof(*o->dirs)))
			return o->err = -ENOMEM;
		o->dirs[d->id] = (struct odir){ d->first_cluster, !fatdir ? d->size : d->deleted ? l->cluster_bytes : 0,
						d->nofat || (d->deleted && fatdir) };
	}
	if (d->label || !d->first_cluster || d->deleted != o->deleted_pass ||
	    (o->besides && strcmp(d->path, o->besides) == 0))
		return 0;
	if (o->deleted_pass) {
		if (!deleted_holds(o, d, &index))
			return 0;
		found(o, d, index, o->out->recovery);
		return 1;
	}
	at = chain_index(&o->src.fr, d->first_cluster, fatdir ? 0 : clusters_of(l, d->size),
			 d->nofat && l->type == FSC_TYPE_EXFAT, o->target);
	if (fatdir || d->size)
		if (at >= 0) {
			found(o, d, (uint64_t)at, FSC_REC_LIVE);
			return 1;
		}
	return 0;
}

/* The metadata that is not a directory entry: areas before the heap, exFAT's bitmap and up-case table, the root. */
static bool metadata(struct own *o)
{
	const struct layout *l = o->l;
	const struct fsc_exfat_root *rt = &o->p->root;
	uint64_t byte = layout_cluster_byte(l, o->target), fat_start, fat_end;
	int64_t at;

	if (l->type == FSC_TYPE_EXFAT) {
		fat_start = (uint64_t)o->p->ex.fat_offset * l->sector_bytes;
		fat_end = fat_start + (uint64_t)o->p->ex.fat_length * l->sector_bytes * (o->p->ex.num_fats == 2 ? 2 : 1);
	} else {
		fat_start = (uint64_t)o->p->fat.reserved * l->sector_bytes;
		fat_end = fat_start + (uint64_t)o->p->fat.fat_size * l->sector_bytes * o->p->fat.num_fats;
	}
	if (byte < fat_start) {
		o->out->kind = FSC_OWNER_RESERVED;
		return true;
	}
	if (byte < fat_end) {
		o->out->kind = FSC_OWNER_FAT;
		return true;
	}
	if (l->root_bytes && byte < l->root_byte + l->root_bytes && byte + l->cluster_bytes > l->root_byte) {
		o->out->kind = FSC_OWNER_ROOT_AREA;
		return true;
	}
	if (l->type == FSC_TYPE_EXFAT && rt->bitmap_found &&
	    (at = chain_index(&o->src.fr, rt->bitmap_cluster, clusters_of(l, rt->bitmap_length), false, o->target)) >= 0) {
		o->out->kind = FSC_OWNER_BITMAP;
		o->out->head = rt->bitmap_cluster;
		o->out->index = (uint64_t)at;
		return true;
	}
	if (l->type == FSC_TYPE_EXFAT && rt->upcase_found &&
	    (at = chain_index(&o->src.fr, rt->upcase_cluster, clusters_of(l, rt->upcase_length), false, o->target)) >= 0) {
		o->out->kind = FSC_OWNER_UPCASE;
		o->out->head = rt->upcase_cluster;
		o->out->index = (uint64_t)at;
		return true;
	}
	if (l->root_cluster && (at = chain_index(&o->src.fr, l->root_cluster, 0, false, o->target)) >= 0) {
		o->out->kind = FSC_OWNER_ROOT;
		o->out->head = l->root_cluster;
		o->out->index = (uint64_t)at;
		return true;
	}
	return false;
}

static int cluster_owner(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t cluster, const char *besides,
			 struct fsc_owner *out, char *buf, size_t len)
{
	struct own o = { .p = p, .target = cluster, .besides = besides, .out = out, .buf = buf, .len = len };
	uint32_t next;
	int r;

	out->cluster = cluster;
	out->path = out->dir = "";
	out->entry_index = -1;
	if (len)
		buf[0] = '\0';
	r = vol_src_open(&o.src, dev, p);
	if (r < 0)
		return r;
	o.l = &o.src.fr.l;
	out->clusters = o.l->held;
	if (!layout_cluster_valid(o.l, cluster)) {
		vol_src_close(&o.src);
		return -ERANGE;
	}
	out->byte = layout_cluster_byte(o.l, cluster);
	next = fatreader_next(&o.src.fr, cluster);
	out->next = next;
	out->allocated = o.l->type == FSC_TYPE_EXFAT ? o.src.bitmap && !vol_cluster_free(&o.src, cluster) :
			 next != LAYOUT_FREE && next != LAYOUT_BAD && next != LAYOUT_UNREADABLE;
	out->bitmap_known = o.l->type != FSC_TYPE_EXFAT || o.src.bitmap;
	if (!metadata(&o)) {
		r = fsc_walk_tree(dev, p, 0, visit, &o);
		if (r == 0 && !o.err && next != LAYOUT_BAD && !out->allocated) {
			o.deleted_pass = true;
			o.ndirs = 0;
			free(o.dirs);
			o.dirs = NULL;
			r = fsc_walk_tree(dev, p, FSC_WALK_DELETED, visit, &o);
		}
		if (r == 1)
			r = 0;
		else if (r == 0 && !o.err)
			out->kind = next == LAYOUT_BAD ? FSC_OWNER_BAD : out->allocated ? FSC_OWNER_LOST : FSC_OWNER_FREE;
	}
	if (o.err)
		r = o.err;
	free(o.dirs);
	vol_src_close(&o.src);
	return r;
}

FSC_EXPORT int fsc_cluster_owner_besides(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t cluster,
					 const char *besides, struct fsc_owner *out, char *buf, size_t len)
{
	struct fsc_owner own = FSC_OWNER_INIT;

	if (!sized_out_ok(out))
		return -EINVAL;
	return sized_out(out, &own, sizeof(own), cluster_owner(dev, p, cluster, besides, &own, buf, len));
}

FSC_EXPORT int fsc_cluster_owner(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t cluster,
				 struct fsc_owner *out, char *buf, size_t len)
{
	return fsc_cluster_owner_besides(dev, p, cluster, NULL, out, buf, len);
}

FSC_EXPORT const char *fsc_owner_kind_name(enum fsc_owner_kind k)
{
	static const char *const names[] = {
		[FSC_OWNER_NONE] = "none", [FSC_OWNER_RESERVED] = "reserved", [FSC_OWNER_FAT] = "fat",
		[FSC_OWNER_ROOT_AREA] = "root-area", [FSC_OWNER_BITMAP] = "bitmap", [FSC_OWNER_UPCASE] = "upcase",
		[FSC_OWNER_ROOT] = "root", [FSC_OWNER_FILE] = "file", [FSC_OWNER_DIR] = "directory",
		[FSC_OWNER_DELETED] = "deleted", [FSC_OWNER_FREE] = "free", [FSC_OWNER_BAD] = "bad",
		[FSC_OWNER_LOST] = "lost",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "?";
}
