// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lookup.c - a path on the volume to its directory entry, one directory
 * read per component (walk.c with FSC_WALK_ONE), names compared as the
 * drivers compare them: exFAT through the volume's up-case table (EXSPEC
 * 7.2; the recommended table of 7.2.5 when the volume's is missing or
 * damaged), FAT long names through the recommended table too, FAT 8.3
 * names ("LONGFI~1.TXT") in any case.
 *
 * Consumes: a probe, the device, a path.  Produces: one struct fsc_dirent
 * with its strings in the caller's buffer.  Memory: the 128 KiB mapping.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vol/geo.h"

#define NAME_UNITS 255

struct lk {
	const uint16_t *up;		/* the up-case mapping, 65536 entries */
	uint16_t want[NAME_UNITS];	/* the component, up-cased */
	int nwant;
	unsigned flags;
	bool found;
	struct fsc_dirent hit;
	char path[4096], name[1024];
};

/* The volume's up-case table into up when it was read whole and its checksum holds. */
static bool volume_upcase(struct fsc_dev *dev, const struct fsc_probe *p, uint16_t *up)
{
	const struct fsc_exfat_root *rt = &p->root;
	struct fsc_dirent d = { .first_cluster = rt->upcase_cluster, .size = rt->upcase_length };
	struct exfat_upcase_rd rd = { 0, false };
	struct vol_src s;
	struct vol_runs r = { 0 };
	uint8_t *buf;
	bool ok = false;

	if (p->type != FSC_TYPE_EXFAT || !rt->upcase_read || rt->upcase_checksum_computed != rt->upcase_checksum_stored ||
	    rt->upcase_coverage < 0xFFFF || rt->upcase_length > 65536 * 4 || vol_src_open(&s, dev, p) < 0)
		return false;
	buf = malloc(rt->upcase_length);
	if (buf && vol_runs_of(&s, &d, &r) == 0 && vol_runs_read(&s, &r, 0, buf, rt->upcase_length) == 0) {
		for (uint32_t i = 0; i < 65536; i++)
			up[i] = (uint16_t)i;
		exfat_upcase_feed(&rd, buf, rt->upcase_length, up);
		ok = true;
	}
	vol_runs_free(&r);
	free(buf);
	vol_src_close(&s);
	return ok;
}

/* s (UTF-8) up-cased into u: its length, or -1 (not UTF-8, too long). */
static int fold(const uint16_t *up, const char *s, uint16_t *u)
{
	int n = utf8_to_utf16(s, u, NAME_UNITS);

	for (int i = 0; i < n; i++)
		u[i] = up[u[i]];
	return n;
}

static bool same(const struct lk *k, const char *name)
{
	uint16_t u[NAME_UNITS];
	int n = name[0] ? fold(k->up, name, u) : -1;

	return n == k->nwant && memcmp(u, k->want, (size_t)n * sizeof(u[0])) == 0;
}

static int match(void *ctx, const struct fsc_dirent *d)
{
	struct lk *k = ctx;

	if (d->label || (d->deleted && !(k->flags & FSC_LOOKUP_DELETED)) || (d->deleted && k->found))
		return 0;
	if (!same(k, d->name) && !(d->short_name[0] && same(k, d->short_name)))
		return 0;
	k->hit = *d;
	snprintf(k->path, sizeof(k->path), "%s", d->path);
	snprintf(k->name, sizeof(k->name), "%s", d->name);
	k->hit.path = k->path;
	k->hit.name = k->name;
	k->found = true;
	return !d->deleted;	/* a live entry ends the search; a deleted one may be bettered */
}

/* The root as an entry. */
static int root_entry(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_dirent *d)
{
	struct layout l;
	int r = vol_layout(&l, dev, p);

	memset(d, 0, sizeof(*d));
	d->struct_size = sizeof(*d);
	d->dir = true;
	d->attr = 0x10;
	d->path = "/";
	d->name = "";
	d->first_cluster = l.root_cluster;
	d->ctime_utc = d->mtime_utc = d->atime_utc = INT16_MIN;
	return r;
}

/* Each component of path in turn, from the root, into k->hit. */
static int descend(struct fsc_dev *dev, const struct fsc_probe *p, const char *path, struct lk *k)
{
	char comp[NAME_UNITS * 4 + 1];
	unsigned walk = FSC_WALK_ONE | (k->flags & FSC_LOOKUP_DELETED ? FSC_WALK_DELETED : 0);
	struct lk *prev = malloc(sizeof(*prev));
	int r = 0;

	if (!prev)
		return -ENOMEM;
	prev->hit = k->hit;
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 0) {
			path++;
			continue;
		}
		if (n >= sizeof(comp) || (!prev->hit.dir && (r = -ENOTDIR)))
			break;
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n;
		if ((k->nwant = fold(k->up, comp, k->want)) < 0) {
			r = -ENAMETOOLONG;
			break;
		}
		k->found = false;
		r = fsc_walk_dir(dev, p, &prev->hit, walk, match, k);
		if (r < 0 || (r = k->found ? 0 : -ENOENT) < 0)
			break;
		memcpy(prev, k, sizeof(*prev));	/* the strings too: the next walk starts there */
		prev->hit.path = prev->path;
		prev->hit.name = prev->name;
	}
	if (r == 0 && *path)
		r = -ENAMETOOLONG;	/* a component too long */
	free(prev);
	return r;
}

FSC_EXPORT int fsc_lookup(struct fsc_dev *dev, const struct fsc_probe *p, const char *path, unsigned flags,
			  struct fsc_dirent *out, char *buf, size_t len)
{
	struct lk *k;
	uint16_t *up;
	int r;

	if (!sized_out_ok(out))
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	up = malloc(65536 * sizeof(*up));
	if (!k || !up) {
		r = -ENOMEM;
		goto out;
	}
	if (!volume_upcase(dev, p, up))
		exfat_upcase_recommended_map(up);
	k->up = up;
	k->flags = flags;
	if ((r = root_entry(dev, p, &k->hit)) < 0 || (r = descend(dev, p, path, k)) < 0)
		goto out;
	if (strlen(k->hit.path) + strlen(k->hit.name) + 2 > len) {
		r = -ENAMETOOLONG;
		goto out;
	}
	k->hit.path = strcpy(buf, k->hit.path);
	k->hit.name = strcpy(buf + strlen(buf) + 1, k->hit.name);
	(void)sized_out(out, &k->hit, sizeof(k->hit), 0);
out:
	free(up);
	free(k);
	return r;
}
