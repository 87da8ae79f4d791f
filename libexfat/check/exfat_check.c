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

/* The root's first cluster, held until the walk reads it (engine.h pending_head). */
static bool root_pending(void *ctx, uint32_t c)
{
	const struct xvol *v = ctx;

	return v->root_held && c == v->p->ex.root_cluster;
}

/*
 * The root's first cluster is the root's before the bitmap's and the
 * up-case table's chains are claimed: the boot sector names it, and a
 * flipped link of theirs that runs into it crosses it, not the other way
 * round (seed 283, pop-c512 #9: the up-case chain's link 6 -> 7 flipped
 * to 15, the root's first cluster; the root was read as a cross-link and
 * the whole tree was lost from view).
 */
static void hold_root(struct xvol *v)
{
	struct owner who = { "/", "root directory", 0, 0, NULL, 0, false, 0, 0 };

	v->root_held = ck_hold_head(&v->ck, &who, v->p->ex.root_cluster);
	v->ck.pending_head = root_pending;
	v->ck.pending_ctx = v;
}

/*
 * Walk the allocations again in the first walk's order, for the owners
 * pass: the root's first cluster, the bitmap, the up-case table, the tree.
 */
static int walk_allocations(void *ctx)
{
	struct xvol *v = ctx;
	const struct fsc_exfat_root *r = &v->p->root;
	struct owner bm = { "/", "allocation bitmap", 0, 0, NULL, 0, false, 0, 0 };
	struct owner up = { "/", "up-case table", 0, 0, NULL, 0, false, 0, 0 };
	struct chain_res res;

	hold_root(v);
	if (r->bitmap_found && xv_cluster_valid(v, r->bitmap_cluster))
		ck_claim(&v->ck, &bm, r->bitmap_cluster, r->bitmap_length, false, &res, NULL, NULL);
	if (r->upcase_found)
		ck_claim(&v->ck, &up, r->upcase_cluster, r->upcase_length, false, &res, NULL, NULL);
	return xv_walk_tree(v);
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
		    (f = ck_add(&v->ck, FSC_PR_EXFAT_OEM_PARAMETERS, FSC_LOC_SECTOR, 9, NULL)))
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

/*
 * The geometry, with the cluster count cut to what the device holds: a
 * boot sector claiming 2^32 clusters on a 1 MiB image costs bits for the
 * clusters that exist, not 1 GiB (EXFAT_VOLUME_BEYOND_DEVICE says why).
 */
static int geometry(struct xvol *v)
{
	char why[96];

	if (exfat_layout(&v->lay, v->dev, &v->p->ex, v->shift, why, sizeof(why)) < 0)
		return -EINVAL;		/* geometry_usable() said so first */
	v->cb = v->lay.cluster_bytes;
	v->heap_byte = v->lay.data_byte;
	v->cc = v->lay.held;
	return 0;
}

/* Passes 2 to 4, and the owners pass when cross-links were found: 1 when all ran. */
static int passes(struct xvol *v)
{
	int r;

	if (!ck_pass(&v->ck, 2, 3))
		return 0;
	v->upcase = malloc(65536 * sizeof(*v->upcase));
	v->dirbuf = malloc(v->cb < XV_DIR_CHUNK ? v->cb : XV_DIR_CHUNK);
	if (!v->upcase || !v->dirbuf || ck_init_clusters(&v->ck, v->cc, v->cb, xv_next, v, &xv_chain_ids) < 0)
		return -ENOMEM;
	v->ck.next_raw = xv_raw;
	if (xv_load_fat(v) < 0)
		return 0;	/* EXFAT_FAT_UNREADABLE */
	hold_root(v);
	r = xv_load_bitmap(v);
	if (r < 0)
		return r;
	xv_load_upcase(v);

	if (!ck_pass(&v->ck, 3, v->p->ex.cluster_count))
		return 0;
	r = xv_walk_tree(v);
	if (r < 0)
		return r;
	if (!ck_pass(&v->ck, 4, 1))
		return 0;	/* out of time: no lost clusters from a partial tree, no repair */
	xv_compare_bitmap(v);
	if (!v->fix) {
		free(v->marked);	/* the owners pass needs a set of its own: still two bits a cluster */
		v->marked = NULL;
	}
	r = ck_name_owners(&v->ck, walk_allocations, v);
	return r < 0 ? r : 1;
}

void xv_free(struct xvol *v)
{
	if (!v)
		return;
	ck_free(&v->ck);
	free(v->marked);
	free(v->upcase);
	free(v->dirbuf);
	fatreader_free(&v->fr);
	free(v);
}

int exfat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		struct fsc_findings *out, struct fsc_check_summary *sum, const struct xv_fix *fix,
		struct xvol **kept)
{
	struct xvol *v;
	int r = 0;

	memset(sum, 0, sizeof(*sum));
	if (kept)
		*kept = NULL;
	if (p->type != FSC_TYPE_EXFAT)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->dev = dev;
	v->p = p;
	v->shift = p->ex.sector_shift;
	v->fix = fix;
	ck_init(&v->ck, out, sum, o, XV_NPASSES);
	ck_pass(&v->ck, 1, 1);
	/* (an unusable boot region: its findings say why nothing more can be read) */
	if (geometry_usable(p) && geometry(v) == 0) {
		sum->clusters_total = p->ex.cluster_count;
		check_oem(v);
		r = passes(v);
	}
	if (r > 0 && kept) {
		*kept = v;
		return 0;
	}
	xv_free(v);
	return r < 0 ? r : 0;
}
