// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * files.c - the salvage test's view of a volume's files: every live file
 * read in full through the library's walker and reader (its size and a
 * hash of its bytes), the directory clusters (for the damage generator),
 * the files of a damaged volume that are sound (bytes equal to a file of
 * the undamaged one), and how many of them a repaired volume lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salvage.h"

void hash_feed(struct hash2 *h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h->a = (h->a ^ p[i]) * 0x100000001B3ull;
		h->b = ((h->b << 7 | h->b >> 57) ^ p[i]) * 0x9E3779B97F4A7C15ull + i;
	}
}

/* ---- the files of a volume ---- */

void files_free(struct files *fl)
{
	for (size_t i = 0; i < fl->n; i++)
		free(fl->v[i].path);
	free(fl->v);
	free(fl->dirs);
	free(fl->data);
	memset(fl, 0, sizeof(*fl));
}

void regions_add(struct region **v, size_t *n, size_t *cap, uint64_t off, uint64_t len)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = realloc(*v, *cap * sizeof(**v));
		if (!*v) {
			fprintf(stderr, "salvage: out of memory\n");
			exit(99);
		}
	}
	(*v)[(*n)++] = (struct region){ off, len };
}

struct ext_ctx {
	struct files *fl;
	uint64_t data_off;
	uint32_t csize;
	bool data;			/* a file's clusters (else a directory's) */
};

static void on_extent(void *ctx, uint32_t first, uint32_t count)
{
	struct ext_ctx *e = ctx;

	for (uint32_t k = 0; k < count; k++)
		regions_add(e->data ? &e->fl->data : &e->fl->dirs, e->data ? &e->fl->ndata : &e->fl->ndirs,
			    e->data ? &e->fl->capdata : &e->fl->capdirs,
			    e->data_off + (uint64_t)(first + k - 2) * e->csize, e->csize);
}

static void add_regions(struct files *fl, uint32_t first, uint64_t size, bool nofat, bool data)
{
	struct fsc_geometry g = FSC_GEOMETRY_INIT;
	struct ext_ctx e = { fl, 0, 0, data };

	if (fsc_volume_geometry(fl->dev, fl->p, &g) < 0 || first < 2)
		return;
	e.data_off = g.data_offset;
	e.csize = g.cluster_size;
	fsc_extents(fl->dev, fl->p, first, size, nofat, on_extent, &e, NULL);
}

static void dir_regions(struct files *fl, uint32_t first, uint64_t size, bool nofat)
{
	add_regions(fl, first, size, nofat, false);
}

static int on_entry(void *ctx, const struct fsc_dirent *d)
{
	struct files *fl = ctx;
	struct file *f;
	struct fsc_file *fh;
	int64_t got;
	uint64_t total = 0;

	if (d->label)
		return 0;
	if (d->dir) {
		if (fl->want_dirs)
			dir_regions(fl, d->first_cluster, fsc_type_is_fat(fsc_probe_type(fl->p)) ? 0 : d->size,
				    d->nofat);
		return 0;
	}
	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? 2 * fl->cap : 256;
		fl->v = realloc(fl->v, fl->cap * sizeof(*fl->v));
		if (!fl->v) {
			fprintf(stderr, "salvage: out of memory\n");
			exit(99);
		}
	}
	if (fl->want_dirs && d->size)
		add_regions(fl, d->first_cluster, d->size, d->nofat, true);
	f = &fl->v[fl->n++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(d->path);
	f->size = d->size;
	f->h = (struct hash2){ 0xCBF29CE484222325ull, 0x1234567ull };
	f->in_found = !strncmp(d->path, "/FOUND.", 7);
	if (fsc_file_open(fl->r, d, &fh, NULL, 0) < 0)
		return 0;
	while ((got = fsc_file_read(fh, total, fl->buf, 1 << 16)) > 0) {
		hash_feed(&f->h, fl->buf, (size_t)got);
		total += (uint64_t)got;
	}
	f->readable = got == 0 && total == fsc_file_size(fh) && total == d->size;
	fsc_file_close(fh);
	return 0;
}

/*
 * The live files of the volume in buf (read-only), each read in full;
 * with want_dirs also the directory clusters (the root's included).
 * false when the volume is not one the library can walk.
 */
bool files_read(const uint8_t *buf, size_t len, bool want_dirs, struct files *fl)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	bool ok = false;

	memset(fl, 0, sizeof(*fl));
	fl->want_dirs = want_dirs;
	if (fsc_dev_open_mem(buf, len, &dev) < 0)
		return false;
	if (fsc_probe_volume(dev, &p) == 0) {
		enum fsc_type t = fsc_probe_type(p);

		fl->dev = dev;
		fl->p = p;
		fl->buf = xmalloc(1 << 16);
		if ((t == FSC_TYPE_EXFAT || fsc_type_is_fat(t)) && fsc_reader_open(dev, p, 0, &fl->r) == 0) {
			struct fsc_geometry g = FSC_GEOMETRY_INIT;

			if (want_dirs && fsc_volume_geometry(dev, p, &g) == 0) {
				if (g.root_cluster)
					dir_regions(fl, g.root_cluster, 0, false);
				else
					regions_add(&fl->dirs, &fl->ndirs, &fl->capdirs, g.root_offset, g.root_size);
			}
			ok = fsc_walk_tree(dev, p, 0, on_entry, fl) >= 0 || fl->n > 0;
			fsc_reader_close(fl->r);
		}
		free(fl->buf);
		fsc_probe_free(p);
	}
	fsc_dev_close(dev);
	fl->dev = NULL;
	fl->p = NULL;
	fl->r = NULL;
	fl->buf = NULL;
	return ok;
}

/* A file of the volume in buf whose first size bytes hash to h (a .CHK holding a file). */
static bool prefix_matches(const uint8_t *buf, size_t len, const char *path, uint64_t size, struct hash2 want)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_reader *r;
	struct fsc_dirent d = FSC_DIRENT_INIT;
	struct fsc_file *fh;
	char name[4096];
	uint8_t *chunk = xmalloc(1 << 16);
	bool ok = false;

	if (fsc_dev_open_mem(buf, len, &dev) < 0) {
		free(chunk);
		return false;
	}
	if (fsc_probe_volume(dev, &p) == 0) {
		if (fsc_reader_open(dev, p, 0, &r) == 0) {
			if (fsc_lookup(dev, p, path, 0, &d, name, sizeof(name)) == 0 &&
			    fsc_file_open(r, &d, &fh, NULL, 0) == 0) {
				struct hash2 h = { 0xCBF29CE484222325ull, 0x1234567ull };
				uint64_t total = 0;
				int64_t got;

				while (total < size && (got = fsc_file_read(fh, total, chunk,
									    size - total < (1 << 16) ? size - total : (1 << 16))) > 0) {
					hash_feed(&h, chunk, (size_t)got);
					total += (uint64_t)got;
				}
				ok = total == size && h.a == want.a && h.b == want.b;
				fsc_file_close(fh);
			}
			fsc_reader_close(r);
		}
		fsc_probe_free(p);
	}
	fsc_dev_close(dev);
	free(chunk);
	return ok;
}

int files_cmp_hash(const void *x, const void *y)
{
	const struct file *a = x, *b = y;

	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->h.a != b->h.a)
		return a->h.a < b->h.a ? -1 : 1;
	return a->h.b < b->h.b ? -1 : a->h.b > b->h.b;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * An empty file of dmg that is one of the original's empty files: at the
 * same path (the bytes of any empty file equal those of any other, so a
 * garbage entry of size 0 would match otherwise).
 */
static bool empty_original(const struct files *orig_sorted, const struct file *f)
{
	const struct file *hit = bsearch(f, orig_sorted->v, orig_sorted->n, sizeof(*f), files_cmp_hash);
	size_t at;

	if (!hit)
		return false;
	at = (size_t)(hit - orig_sorted->v);
	while (at > 0 && !files_cmp_hash(&orig_sorted->v[at - 1], f))
		at--;
	for (; at < orig_sorted->n && !files_cmp_hash(&orig_sorted->v[at], f); at++)
		if (!strcmp(orig_sorted->v[at].path, f->path))
			return true;
	return false;
}

/*
 * The files of dmg that are sound: read in full, bytes equal to a file of
 * the original (orig sorted by hash); an empty one also at an original
 * empty file's path.
 */
/*
 * Does the original volume hold another file at f's path (other bytes)?
 * Then f reads bytes that are not its own (a cluster field flipped onto
 * another file's), however they match that file's: it is not sound.
 */
static bool other_bytes_there(const struct files *orig, const struct file *f)
{
	for (size_t i = 0; i < orig->n; i++)
		if (!strcmp(orig->v[i].path, f->path) && files_cmp_hash(&orig->v[i], f))
			return true;
	return false;
}

void sound_files(const struct files *orig_sorted, const struct files *dmg, struct files *sound)
{
	memset(sound, 0, sizeof(*sound));
	for (size_t i = 0; i < dmg->n; i++) {
		const struct file *f = &dmg->v[i];

		if (!f->readable || f->in_found ||
		    !bsearch(f, orig_sorted->v, orig_sorted->n, sizeof(*f), files_cmp_hash) ||
		    (f->size == 0 && !empty_original(orig_sorted, f)) || other_bytes_there(orig_sorted, f))
			continue;
		if (sound->n == sound->cap) {
			sound->cap = sound->cap ? 2 * sound->cap : 256;
			sound->v = realloc(sound->v, sound->cap * sizeof(*sound->v));
			if (!sound->v)
				exit(99);
		}
		sound->v[sound->n] = *f;
		sound->v[sound->n].path = xstrdup(f->path);
		sound->v[sound->n].used = false;
		sound->n++;
	}
}

/*
 * How many sound files the repaired volume lost: each is looked for under
 * its path, then anywhere with the same bytes (an empty one: the same
 * name), then as the head of a longer file in FOUND.nnn.  Lost paths are
 * printed when report is set.
 */
size_t count_lost(struct files *sound, struct files *after, const uint8_t *img, size_t len,
			 const char *report)
{
	size_t lost = 0;

	for (size_t i = 0; i < after->n; i++)
		after->v[i].used = false;
	for (size_t i = 0; i < sound->n; i++) {
		struct file *s = &sound->v[i];

		s->used = false;
		for (size_t j = 0; j < after->n && !s->used; j++) {
			struct file *a = &after->v[j];

			if (!a->used && a->readable && !strcmp(a->path, s->path) && !files_cmp_hash(a, s))
				a->used = s->used = true;
		}
	}
	for (size_t i = 0; i < sound->n; i++) {
		struct file *s = &sound->v[i];

		for (size_t j = 0; j < after->n && !s->used; j++) {
			struct file *a = &after->v[j];

			if (a->used || !a->readable || files_cmp_hash(a, s))
				continue;
			/* an empty file (its name is all it has): the same name, or another empty one in its directory (renamed) */
			if (s->size == 0 && strcmp(base_name(a->path), base_name(s->path)) &&
			    (base_name(a->path) - a->path != base_name(s->path) - s->path ||
			     strncmp(a->path, s->path, (size_t)(base_name(s->path) - s->path))))
				continue;
			a->used = s->used = true;
		}
		for (size_t j = 0; j < after->n && !s->used && s->size; j++) {
			struct file *a = &after->v[j];

			if (!a->used && a->in_found && a->size > s->size &&
			    prefix_matches(img, len, a->path, s->size, s->h))
				a->used = s->used = true;
		}
		if (!s->used) {
			lost++;
			if (report)
				printf("  %s lost %s (%llu bytes)\n", report, s->path, (unsigned long long)s->size);
		}
	}
	return lost;
}

