// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_check.c - the FAT12/16/32 checker: its passes in order.
 *
 *   pass 1  boot sector: the probe's findings (BPB fields, geometry, type,
 *           FAT32 backup boot sector, FSInfo signatures, the state byte)
 *   pass 2  the FAT: the active copy read once with every other copy
 *           beside it (fat_alloc.c): copies compared, entries 0 and 1,
 *           the used set and the free count
 *   pass 3  the directory tree (fat_tree.c), claiming every allocation
 *   pass 4  the used set against what was claimed: lost clusters; FSInfo
 *           against the FAT
 *
 * Consumes: a device and its FAT probe.  Produces: findings appended to
 * the caller's list (fsc_check put the probe's there first) and a
 * summary.  Memory: two bits a cluster, a bounded FAT cache and buffers.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fat_check.h"
#include "exfat/exfat.h"
#include "fat/fat.h"

/* The boot sector must describe a layout before anything is read through it. */
static bool geometry_usable(const struct fsc_probe *p)
{
	static const enum fsc_problem fatal[] = {
		FSC_PR_FAT_BOOT_DATA_START, FSC_PR_FAT_BOOT_ROOT_ENTRIES, FSC_PR_FAT_BOOT_TOTAL_SECTORS,
	};
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fsc_findings_has(&p->findings, fatal[i]))
			return false;
	return p->fat.num_fats > 0 && p->fat.fat_size > 0;
}

/*
 * The layout, the active FAT (FAT32 with mirroring off: BPB_ExtFlags bits
 * 0-3), and the clusters checked: those the device holds and the FAT has
 * entries for (drivers clamp to both).
 */
static int geometry(struct fvol *v)
{
	const struct fsc_fat_bpb *b = v->b;
	uint64_t entries;
	char why[96];

	if (fat_layout(&v->lay, v->dev, b, why, sizeof(why)) < 0)
		return -EINVAL;
	v->mirrored = !(b->bpb32 && (b->ext_flags & 0x80));
	v->active = v->mirrored || (b->ext_flags & 0xF) >= b->num_fats ? 0 : b->ext_flags & 0xF;
	if (v->hooks && v->hooks->copy_plus1 && v->hooks->copy_plus1 <= b->num_fats)
		v->active = v->hooks->copy_plus1 - 1;	/* (a repair weighing the copies) */
	v->lay.fat_byte += (uint64_t)v->active * b->fat_size * b->bytes_per_sector;
	v->cb = v->lay.cluster_bytes;
	v->cc = v->lay.held;
	entries = (uint64_t)b->fat_size * b->bytes_per_sector * 8 / v->lay.fat_bits;
	if (entries < 2)
		return -EINVAL;
	if ((uint64_t)v->cc + 2 > entries)
		v->cc = (uint32_t)(entries - 2);
	v->lay.held = v->cc;
	return 0;
}

static int walk_again(void *ctx)
{
	return fv_walk_tree(ctx);
}

static int passes(struct fvol *v)
{
	int r;

	v->upcase = malloc(65536 * sizeof(*v->upcase));
	v->dirbuf = malloc(FV_DIR_CHUNK);
	if (!v->upcase || !v->dirbuf || ck_init_clusters(&v->ck, v->cc, v->cb, fv_next, v, &fv_chain_ids) < 0)
		return -ENOMEM;
	exfat_upcase_recommended_map(v->upcase);
	r = fv_scan_fats(v);
	if (r == -EIO || r == -ETIMEDOUT)
		return 0;	/* FAT_FAT_UNREADABLE, or out of time */
	if (r < 0)
		return r;
	fatreader_init(&v->fr, &v->lay);
	if (!ck_pass(&v->ck, 3, v->cc))
		return 0;
	r = fv_walk_tree(v);
	if (r < 0)
		return r;
	if (!ck_pass(&v->ck, 4, 1))
		return 0;	/* out of time: no lost clusters from a partial tree */
	fv_compare(v);
	free(v->used);		/* the owners pass needs a set of its own: still two bits a cluster */
	v->used = NULL;
	return ck_name_owners(&v->ck, walk_again, v);
}

int fat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	      struct fsc_findings *out, struct fsc_check_summary *sum, struct fat_hooks *after)
{
	struct fvol v = { 0 };
	int r;

	memset(sum, 0, sizeof(*sum));
	if (!fsc_type_is_fat(p->type))
		return -EINVAL;
	v.dev = dev;
	v.p = p;
	v.b = &p->fat;
	v.hooks = after;
	ck_init(&v.ck, out, sum, o, FV_NPASSES);
	ck_pass(&v.ck, 1, 1);
	if (!geometry_usable(p) || geometry(&v) < 0)
		return 0;	/* the boot sector's findings say why nothing more can be read */
	sum->clusters_total = v.lay.clusters;
	r = passes(&v);
	ck_free(&v.ck);
	free(v.used);
	free(v.differ);
	free(v.upcase);
	free(v.dirbuf);
	fatreader_free(&v.fr);
	return r;
}
