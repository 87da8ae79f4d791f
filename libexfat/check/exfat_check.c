// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_check.c - the exFAT checker: its passes in order, the finding cap,
 * progress, and the name hash.
 *
 *   pass 1  boot region: the probe's findings (fields, geometry, checksum,
 *           extended signatures, backup, flags) plus the OEM parameters
 *   pass 2  FAT entries 0 and 1, the allocation bitmap (read once, its own
 *           clusters claimed), the up-case table (decompressed, fixed
 *           mappings)
 *   pass 3  the directory tree (exfat_tree.c), claiming every allocation
 *   pass 4  what was claimed against the bitmap: clusters used but free,
 *           lost clusters, PercentInUse
 *
 * Consumes: a device and its exFAT probe.  Produces: findings appended to
 * the caller's list (fsc_check put the probe's there first) and a summary.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/exfat_check.h"

FSC_EXPORT uint16_t fsc_exfat_name_hash(const uint16_t *name, size_t n, const uint16_t *upcase)
{
	uint16_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = xv_name_hash_step(h, upcase[name[i]]);
	return h;
}

struct fsc_finding *xv_add(struct xvol *v, enum fsc_problem id, enum fsc_loc_kind kind,
			   uint64_t loc, const char *field)
{
	if (v->resolving)
		return NULL;
	if (v->per_id[id]++ >= v->max_per_id) {
		v->sum->suppressed++;
		return NULL;
	}
	return finding_add(v->out, id, kind, loc, field);
}

void owner_path(const struct owner *who, char *path, size_t len)
{
	char name[800];

	if (!who->name && who->name16) {
		uint8_t le[510];

		for (unsigned i = 0; i < who->name16_len && i < 255; i++)
			put_le16(le, 2 * i, who->name16[i]);
		utf16le_to_utf8(le, who->name16_len < 255 ? who->name16_len : 255, name, sizeof(name));
		snprintf(path, len, "%s%s%s", who->dir, strcmp(who->dir, "/") ? "/" : "", name);
	} else if (who->name && who->cluster)
		snprintf(path, len, "%s%s%s", who->dir, strcmp(who->dir, "/") ? "/" : "", who->name);
	else if (who->name)
		snprintf(path, len, "%s (%s)", who->dir, who->name);
	else
		snprintf(path, len, "%s", who->dir);
}

struct fsc_finding *xv_add_owner(struct xvol *v, enum fsc_problem id, const struct owner *who)
{
	struct fsc_finding *f = xv_add(v, id, who->cluster ? FSC_LOC_ENTRY : FSC_LOC_NONE,
				       who->cluster, NULL);
	char path[4096 + 800];

	if (!f)
		return NULL;
	f->entry = who->entry;
	owner_path(who, path, sizeof(path));
	finding_path(f, path);
	return f;
}

/*
 * Name the first owner of each cross-linked cluster: walk the bitmap, the
 * up-case table and the tree again in the same order, claiming into the
 * (no longer needed) bitmap copy.
 */
static int resolve_cross_links(struct xvol *v)
{
	struct fsc_check_summary keep = *v->sum;
	const struct fsc_exfat_root *r = &v->p->root;
	struct owner bm = { "/", "allocation bitmap", 0, 0, NULL, 0, false }, up = { "/", "up-case table", 0, 0, NULL, 0, false };
	struct chain_res res;
	int rc;

	memset(v->marked, 0, (((uint64_t)v->cc + 63) / 64) * 8);
	v->resolving = true;
	if (r->bitmap_found && xv_cluster_valid(v, r->bitmap_cluster))
		xv_claim(v, &bm, r->bitmap_cluster, r->bitmap_length, false, &res, NULL, NULL);
	if (r->upcase_found)
		xv_claim(v, &up, r->upcase_cluster, r->upcase_length, false, &res, NULL, NULL);
	rc = xv_walk_tree(v);
	v->resolving = false;
	*v->sum = keep;
	return rc;
}

void xv_progress(struct xvol *v, uint64_t step)
{
	if (v->resolving)
		return;
	v->progress_done += step;
	if (v->o && v->o->progress)
		v->o->progress(v->o->ctx, v->pass, XV_NPASSES, v->progress_done, v->progress_total);
}

static void pass(struct xvol *v, int n, uint64_t total)
{
	v->pass = n;
	v->progress_done = 0;
	v->progress_total = total;
	xv_progress(v, 0);
}

/* Sector 9: ten 48-byte parameter records; a null GUID means unused (EXSPEC 3.3). */
static void check_oem(struct xvol *v)
{
	uint32_t ss = 1u << v->shift;
	uint8_t s[4096];
	struct fsc_finding *f;

	if (fsc_dev_read(v->dev, 9ull * ss, s, ss) < 0)
		return;
	for (unsigned i = 0; i < 10; i++) {
		const uint8_t *rec = s + 48 * i;

		if (bytes_all(rec, 0, 16, 0) && !bytes_all(rec, 16, 32, 0) &&
		    (f = xv_add(v, FSC_PR_EXFAT_OEM_PARAMETERS, FSC_LOC_SECTOR, 9, NULL)))
			finding_actual(f, "%u", i);
	}
}

/* The boot region must be usable before anything else is read through it. */
static bool geometry_usable(const struct fsc_probe *p)
{
	static const enum fsc_problem fatal[] = {
		FSC_PR_EXFAT_BOOT_SECTOR_SHIFT, FSC_PR_EXFAT_BOOT_CLUSTER_SHIFT,
		FSC_PR_EXFAT_BOOT_FAT_LENGTH, FSC_PR_EXFAT_BOOT_HEAP_OFFSET,
		FSC_PR_EXFAT_BOOT_CLUSTER_COUNT, FSC_PR_EXFAT_BOOT_ROOT_CLUSTER,
		FSC_PR_EXFAT_BOOT_TRUNCATED, FSC_PR_EXFAT_BOOT_NUM_FATS,
	};
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fsc_findings_has(&p->findings, fatal[i]))
			return false;
	return true;
}

int exfat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		struct fsc_findings *out, struct fsc_check_summary *sum)
{
	struct xvol v = { 0 };
	int r = 0;

	memset(sum, 0, sizeof(*sum));
	if (p->type != FSC_TYPE_EXFAT)
		return -EINVAL;
	v.dev = dev;
	v.p = p;
	v.out = out;
	v.o = o;
	v.sum = sum;
	v.max_per_id = o && o->max_per_problem ? o->max_per_problem : 100;
	v.shift = p->ex.sector_shift;
	pass(&v, 1, 1);
	if (!geometry_usable(p))
		return 0;	/* the boot region findings say why nothing more can be read */
	v.cb = 1u << (v.shift + p->ex.cluster_shift);
	v.heap_byte = (uint64_t)p->ex.heap_offset << v.shift;
	sum->clusters_total = p->ex.cluster_count;
	/*
	 * Bookkeeping covers the clusters the device really holds: a boot
	 * sector claiming 2^32 clusters on a 1 MiB image costs bits for the
	 * clusters that exist, not 1 GiB (EXFAT_VOLUME_BEYOND_DEVICE says why).
	 */
	v.cc = p->ex.cluster_count;
	if (v.heap_byte >= fsc_dev_size(dev))
		v.cc = 0;
	else if ((fsc_dev_size(dev) - v.heap_byte) / v.cb < v.cc)
		v.cc = (uint32_t)((fsc_dev_size(dev) - v.heap_byte) / v.cb);
	check_oem(&v);

	pass(&v, 2, 3);
	v.used = calloc(((uint64_t)v.cc + 63) / 64 + 1, 8);
	v.upcase = malloc(65536 * sizeof(*v.upcase));
	v.dirbuf = malloc(v.cb < XV_DIR_CHUNK ? v.cb : XV_DIR_CHUNK);
	if (!v.used || !v.upcase || !v.dirbuf) {
		r = -ENOMEM;
		goto out;
	}
	if (xv_load_fat(&v) < 0)
		goto out;	/* EXFAT_FAT_UNREADABLE */
	r = xv_load_bitmap(&v);
	if (r < 0)
		goto out;
	xv_load_upcase(&v);

	pass(&v, 3, p->ex.cluster_count);
	r = xv_walk_tree(&v);
	if (r < 0)
		goto out;
	pass(&v, 4, 1);
	xv_compare_bitmap(&v);
	if (v.nxlinks)
		r = resolve_cross_links(&v);
out:
	free(v.used);
	free(v.marked);
	free(v.upcase);
	free(v.dirbuf);
	free(v.fc);
	return r;
}
