// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_boot.c - the FAT repair's fixes of the boot sector region: a FAT32
 * boot sector whose fields are wrong restored from its backup
 * (BPB_BkBootSec) when the backup, probed as sector 0, is a sound FAT32
 * boot sector; the 0x55AA signature; the FSInfo signatures (main and
 * backup); the backup boot sector rewritten from a sound main one.
 *
 * The restore is planned first and the rest of the repair reads the
 * volume as it leaves it (a view through the plan, and its probe); the
 * other boot fixes come last, with the backup after the main sector.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "fat/fat.h"

/* A field error of the boot sector that the backup may not share: the sector is damaged. */
static bool boot_damaged(const struct fsc_probe *p)
{
	for (size_t i = 0; i < p->findings.n; i++) {
		enum fsc_problem id = p->findings.v[i].id;

		/* (a missing signature has its own fix; a volume beyond its device, no sound backup) */
		if (fsc_problem_info(id)->severity >= FSC_SEV_ERROR && id != FSC_PR_FAT_BOOT_SIGNATURE &&
		    ((id >= FSC_PR_FAT_BOOT_DATA_START && id < FSC_PR_FAT_VOLUME_BEYOND_DEVICE) ||
		     id == FSC_PR_FAT32_FSVER || id == FSC_PR_FAT32_ROOT_CLUSTER))
			return true;
	}
	return false;
}

static bool backup_at(const struct fsc_fat_bpb *b, uint32_t *sector)
{
	*sector = b->backup_sector;
	return b->bpb32 && b->backup_sector && b->backup_sector != 0xFFFF && b->backup_sector < b->reserved &&
	       b->bytes_per_sector >= 512;
}

/*
 * FAT32: the main boot sector has field errors and the backup, probed in
 * its place, is a FAT32 boot sector with no error at all: the restore is
 * planned (sector 0 from the backup) and *view and *p2 are the volume as
 * it leaves it (the caller frees both).  false: nothing planned.
 */
bool fr_boot_restore(struct rp *r, struct fsc_dev **view, struct fsc_probe **p2)
{
	const struct fsc_fat_bpb *b = &r->p->fat;
	uint32_t bk, ss = b->bytes_per_sector;
	uint8_t *sec;
	size_t start = fsc_plan_count(r->plan);

	*view = NULL;
	*p2 = NULL;
	if (!backup_at(b, &bk) || !boot_damaged(r->p) || !fsc_findings_has(&r->p->findings, FSC_PR_FAT32_BACKUP_DIFFERS) ||
	    r->o->level != FSC_REPAIR_ALL || !(sec = malloc(ss)))
		return false;
	if (fsc_dev_read(r->dev, (uint64_t)bk * ss, sec, ss) == 0)
		put(r, 0, sec, ss, "the boot sector restored from its backup", false);
	free(sec);
	if (fsc_plan_count(r->plan) == start)
		return false;
	*view = plan_overlay(r->dev, r->plan);
	if (*view && fsc_probe_volume(*view, p2) == 0 && (*p2)->type == FSC_TYPE_FAT32) {
		bool sound = true;

		for (size_t i = 0; i < (*p2)->findings.n; i++)
			sound &= fsc_problem_info((*p2)->findings.v[i].id)->severity < FSC_SEV_ERROR;
		if (sound && (*p2)->fat.total_sectors == b->total_sectors && (*p2)->fat.reserved == b->reserved)
			return true;
	}
	fsc_probe_free(*p2);
	fsc_dev_close(*view);
	*p2 = NULL;
	*view = NULL;
	plan_truncate(r->plan, start);
	return false;
}

/* The FSInfo sector at s: signatures written; free count and hint "unknown" when they were garbage. */
static void fsinfo_signatures(struct rp *r, uint64_t off, bool reset)
{
	uint8_t s[512];

	if (plan_view_read(r->dev, r->plan, off, s, sizeof(s)) < 0)
		return;
	if (reset || get_le32(s, 0) != 0x41615252) {
		put_le32(s, 488, 0xFFFFFFFFu);
		put_le32(s, 492, 0xFFFFFFFFu);
	}
	put_le32(s, 0, 0x41615252);
	put_le32(s, 484, 0x61417272);
	put_le32(s, 508, 0xAA550000);
	put(r, off, s, sizeof(s), "FSInfo signatures", false);
}

/*
 * Last: 0x55AA at the end of sector 0, the FSInfo signatures, and the
 * backup boot sector (and its FSInfo) made the main ones once the main
 * sector is sound.
 */
void fr_boot_fixes(struct frp *f)
{
	const struct fsc_fat_bpb *b = f->b;
	uint32_t bk, ss = b->bytes_per_sector;
	uint8_t sig[2] = { 0x55, 0xAA }, *sec;

	if (take(&f->r, FSC_PR_FAT_BOOT_SIGNATURE))
		put(&f->r, 510, sig, 2, "the boot signature", false);
	if (b->bpb32 && take(&f->r, FSC_PR_FAT32_FSINFO_SIGNATURE)) {
		if (b->fsinfo_sector && b->fsinfo_sector < b->reserved)
			fsinfo_signatures(&f->r, (uint64_t)b->fsinfo_sector * ss, false);
		if (backup_at(b, &bk) && bk + b->fsinfo_sector < b->reserved)
			fsinfo_signatures(&f->r, (uint64_t)(bk + b->fsinfo_sector) * ss, false);
	}
	if (!backup_at(b, &bk) || boot_damaged(f->r.p) || !take(&f->r, FSC_PR_FAT32_BACKUP_DIFFERS) ||
	    !(sec = malloc(ss)))
		return;
	/* (its state byte stays the backup's own: the main one's is the repair's dirty mark meanwhile) */
	if (plan_view_read(f->r.dev, f->r.plan, 0, sec, ss) == 0 &&
	    plan_view_read(f->r.dev, f->r.plan, (uint64_t)bk * ss + 65, sec + 65, 1) == 0)
		put(&f->r, (uint64_t)bk * ss, sec, ss, "the backup boot sector from the main one", true);
	free(sec);
}
