// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_boot.c - the main boot region (sectors 0-11) with a field error,
 * describing a volume larger than its device, or failing its checksum
 * where it differs from the backup, restored from the backup
 * (sectors 12-23), only after the backup verifies: its signature,
 * name, sector size and checksum, then a probe of the volume as the
 * restore leaves it, whose boot region checks must find no error.  The
 * rest of the repair then reads the volume through that view.  The
 * restore is the plan's first edit, before VolumeDirty is set (the flag
 * lives in the region being replaced).  Also the rest of the boot region:
 * whether its layout can be trusted at all, the checksum recomputed, the
 * extended signatures and unused OEM records of sectors 1-9, and the
 * backup rewritten from a sound main region when the two agree on the
 * geometry.
 *
 * Consumes: the probe (its boot region findings) and the device.
 * Produces: one plan edit, the probe of the restored volume, and the
 * main region's findings, marked planned, in the repair's list.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

/* What a restore cures: a field error, or a volume said to be larger than its device. */
static bool restore_cures(const struct fsc_finding *f)
{
	return rp_boot_field_error(f) || f->id == FSC_PR_EXFAT_VOLUME_BEYOND_DEVICE || f->id == FSC_PR_EXFAT_MAIN_BOOT_LOST;
}

/* The first finding a restore cures, or NULL. */
static const struct fsc_finding *first_field_error(const struct fsc_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (restore_cures(&fs->v[i]))
			return &fs->v[i];
	return NULL;
}

/*
 * The main region's field errors (and the difference from the backup, and
 * a TexFAT NumberOfFats the backup does not have), in the repair's list,
 * planned.
 */
static int note_fixed(struct rp *r, const struct fsc_findings *fs, const struct fsc_probe *p2)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct fsc_finding *f;

		if (!restore_cures(&fs->v[i]) && fs->v[i].id != FSC_PR_EXFAT_BACKUP_DIFFERS &&
		    (fs->v[i].id != FSC_PR_EXFAT_BOOT_CHECKSUM || fsc_findings_has(&p2->findings, FSC_PR_EXFAT_BOOT_CHECKSUM)) &&
		    (fs->v[i].id != FSC_PR_EXFAT_BOOT_TEXFAT || fsc_findings_has(&p2->findings, FSC_PR_EXFAT_BOOT_TEXFAT)))
			continue;
		if (!grow((void **)&r->out->v, &r->out->cap, r->out->n + 1, sizeof(*r->out->v)))
			return -ENOMEM;
		f = &r->out->v[r->out->n];
		*f = fs->v[i];
		if (f->path && !(f->path = strdup(f->path)))
			return -ENOMEM;
		f->planned = true;
		r->out->n++;
	}
	return 0;
}

/*
 * NumberOfFats 2 in the main region, 1 in a backup that differs, and no
 * second FAT where the main one puts it (its entries 0 and 1 are not
 * 0xFFFFFFF8 and 0xFFFFFFFF): the main region's count is the one that
 * changed.  That finding, or NULL.
 */
static const struct fsc_finding *texfat_doubt(struct rp *r, const struct fsc_findings *fs, unsigned ss)
{
	const struct fsc_exfat_boot *ex = &r->p->ex;
	uint8_t b[512], h[8];

	if (!fsc_findings_has(fs, FSC_PR_EXFAT_BACKUP_DIFFERS) || ex->num_fats != 2 ||
	    fsc_dev_read(r->dev, 12ull * ss, b, sizeof(b)) < 0 || b[EXFAT_BOOT_NUMBER_OF_FATS] != 1 ||
	    fsc_dev_read(r->dev, ((uint64_t)ex->fat_offset + ex->fat_length) * ss, h, sizeof(h)) < 0 ||
	    (exfat_fat_entry(h, 0) == EXFAT_FAT_ENTRY0 && exfat_fat_entry(h, 1) == EXFAT_FAT_ENTRY1))
		return NULL;
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].id == FSC_PR_EXFAT_BOOT_TEXFAT)
			return &fs->v[i];
	return NULL;
}

bool xr_boot_restore(struct rp *r, struct fsc_dev **dev2, struct fsc_probe **p2)
{
	static const unsigned sizes[] = { 512, 1024, 2048, 4096 };
	const struct fsc_findings *fs = &r->p->findings;
	size_t start = fsc_plan_count(r->plan);
	uint8_t *b = malloc(12 * 4096);
	unsigned ss = 0;

	*dev2 = NULL;
	*p2 = NULL;
	const struct fsc_finding *why = first_field_error(fs);

	if (!why && r->p->type == FSC_TYPE_EXFAT && r->p->ex.sector_shift >= 9 && r->p->ex.sector_shift <= 12)
		why = texfat_doubt(r, fs, 1u << r->p->ex.sector_shift);
	/*
	 * A checksum the main region fails while the backup differs from it:
	 * bytes of the main region changed (a flipped bit in a field no check
	 * can call wrong, FatOffset one sector off, moves the whole volume);
	 * the backup that verifies is the region as it was written.
	 */
	if (!why && fsc_findings_has(fs, FSC_PR_EXFAT_BACKUP_DIFFERS))
		for (size_t i = 0; i < fs->n && !why; i++)
			if (fs->v[i].id == FSC_PR_EXFAT_BOOT_CHECKSUM)
				why = &fs->v[i];

	for (size_t i = 0; b && why && i < sizeof(sizes) / sizeof(sizes[0]) && !ss; i++)
		if (fsc_dev_read(r->dev, 12ull * sizes[i], b, 12ull * sizes[i]) == 0 && exfat_region_sound(b, sizes[i]))
			ss = sizes[i];
	if (ss && r->o->level == FSC_REPAIR_ALL && (!r->o->ask || r->o->ask(r->o->ctx, why)))
		rp_put(r, 0, b, 12ull * ss, "restore the main boot region from the verified backup (sectors 12-23)", false);
	free(b);
	if (fsc_plan_count(r->plan) == start)
		return false;
	*dev2 = plan_overlay(r->dev, r->plan);
	if (*dev2 && fsc_probe_volume(*dev2, p2) == 0 && (*p2)->type == FSC_TYPE_EXFAT &&
	    !first_field_error(&(*p2)->findings) && note_fixed(r, fs, *p2) == 0)
		return true;
	fsc_probe_free(*p2);	/* the restored region would not be sound either: leave it */
	fsc_dev_close(*dev2);
	*dev2 = NULL;
	*p2 = NULL;
	plan_truncate(r->plan, start);
	return false;
}

/* ---- the boot region ---- */

/* No boot region error but the checksum: a recomputed checksum makes the region sound. */
bool xr_boot_fields_sound(const struct rp *r)
{
	for (size_t i = 0; i < r->out->n; i++) {
		const struct fsc_finding *f = &r->out->v[i];

		if ((rp_boot_field_error(f) || f->id == FSC_PR_EXFAT_VOLUME_BEYOND_DEVICE) && !f->planned)
			return false;
	}
	return true;
}

/*
 * A FileSystemRevision other than 1.xx, with no backup restored: 1.00, the
 * only revision defined (every formatter writes it).  True when planned:
 * the checksum follows.
 */
bool xr_fix_revision(struct rp *r)
{
	static const uint8_t rev[2] = { 0x00, 0x01 };

	if (!rp_find(r, FSC_PR_EXFAT_BOOT_REVISION) || rp_find(r, FSC_PR_EXFAT_BOOT_REVISION)->planned ||
	    !rp_take(r, FSC_PR_EXFAT_BOOT_REVISION))
		return false;
	rp_put(r, EXFAT_BOOT_FILE_SYSTEM_REVISION, rev, 2, "FileSystemRevision 1.00", false);
	return true;
}

/* The main boot region is sound once the plan is applied (a copy for the backup). */
bool xr_main_boot_sound(const struct rp *r)
{
	const struct fsc_finding *f = rp_find(r, FSC_PR_EXFAT_BOOT_CHECKSUM);

	return xr_boot_fields_sound(r) && (!f || f->planned);
}

/* Sectors 0..10 as the plan leaves them, and their checksum repeated in sector 11. */
void xr_fix_boot_checksum(struct rp *r, unsigned ss)
{
	uint8_t *s = malloc(12ull * ss);

	if (!s) {
		r->err = -ENOMEM;
		return;
	}
	if (plan_view_read(r->dev, r->plan, 0, s, EXFAT_BOOT_CHECKSUM_SECTOR * (uint64_t)ss) < 0) {
		r->err = -EIO;
	} else {
		uint32_t sum = fsc_exfat_boot_checksum(s, ss);

		for (unsigned i = 0; i < ss; i += 4)
			put_le32(s + EXFAT_BOOT_CHECKSUM_SECTOR * (size_t)ss, i, sum);
		rp_put(r, EXFAT_BOOT_CHECKSUM_SECTOR * (uint64_t)ss, s + EXFAT_BOOT_CHECKSUM_SECTOR * (size_t)ss, ss,
		       "boot checksum (sector 11)", false);
	}
	free(s);
}

/*
 * Sectors 1-9 of a main region whose fields are sound: the extended boot
 * signatures written where they lack, and OEM parameter records with a
 * null GUID but contents zeroed (EXSPEC 3.3, 3.4: such a record is
 * unused).  True when something changed: the checksum and the backup must
 * follow.
 */
bool xr_fix_boot_sectors(struct rp *r, unsigned ss)
{
	static const uint8_t sig[4] = { 0x00, 0x00, 0x55, 0xAA };
	uint8_t s[4096];
	bool changed = false;

	if (!xr_boot_fields_sound(r))
		return false;
	for (size_t i = 0; i < r->out->n; i++) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->id == FSC_PR_EXFAT_BOOT_EXT_SIGNATURE && f->loc >= 1 && f->loc <= 8 && rp_wanted(r, f)) {
			rp_put(r, f->loc * ss + ss - 4, sig, 4, "extended boot signature", false);
			f->planned = changed = true;
		}
	}
	if (rp_find(r, FSC_PR_EXFAT_OEM_PARAMETERS) && ss <= sizeof(s) && plan_view_read(r->dev, r->plan, 9ull * ss, s, ss) >= 0 &&
	    rp_take(r, FSC_PR_EXFAT_OEM_PARAMETERS)) {
		for (unsigned i = 0; i < 10; i++)
			if (bytes_all(s, 48 * i, 16, 0))
				memset(s + 48 * i + 16, 0, 32);
		rp_put(r, 9ull * ss, s, ss, "unused OEM parameter records zeroed", false);
		changed = true;
	}
	return changed;
}

/*
 * Do the main region (as planned) and the backup agree on the volume's
 * geometry (PartitionOffset to FirstClusterOfRootDirectory,
 * FileSystemRevision, the shifts, NumberOfFats, DriveSelect)?  When they
 * do not, which one is right cannot be told: the backup is not written
 * over (it may be the only good copy).
 */
bool xr_backup_geometry_agrees(struct rp *r, unsigned ss)
{
	uint8_t m[512], b[512];

	if (plan_view_read(r->dev, r->plan, 0, m, sizeof(m)) < 0 ||
	    plan_view_read(r->dev, r->plan, 12ull * ss, b, sizeof(b)) < 0)
		return false;
	return !memcmp(m + 64, b + 64, 100 - 64) && !memcmp(m + 104, b + 104, 2) && !memcmp(m + 108, b + 108, 4);
}

/* The backup region (sectors 12..23) as a copy of the main one once planned. */
void xr_fix_backup(struct rp *r, unsigned ss)
{
	uint8_t *s = malloc(12ull * ss);

	if (!s) {
		r->err = -ENOMEM;
		return;
	}
	if (plan_view_read(r->dev, r->plan, 0, s, 12ull * ss) < 0)
		r->err = -EIO;
	else
		rp_put(r, 12ull * ss, s, 12ull * ss, "backup boot region from the main one", true);
	free(s);
}

/*
 * Can the boot region's layout be trusted: no error in a field that places
 * the FAT, the heap or the root, and no volume larger than its device
 * that only the main region describes (the backup differs)?
 */
bool xr_geometry_sound(const struct fsc_probe *p)
{
	bool differs = fsc_findings_has(&p->findings, FSC_PR_EXFAT_BACKUP_DIFFERS);

	for (size_t i = 0; i < p->findings.n; i++)
		switch (p->findings.v[i].id) {
		case FSC_PR_EXFAT_BOOT_CLUSTER_COUNT: case FSC_PR_EXFAT_BOOT_CLUSTER_SHIFT:
		case FSC_PR_EXFAT_BOOT_FAT_LENGTH: case FSC_PR_EXFAT_BOOT_FAT_OFFSET:
		case FSC_PR_EXFAT_BOOT_HEAP_OFFSET: case FSC_PR_EXFAT_BOOT_ROOT_CLUSTER:
		case FSC_PR_EXFAT_BOOT_SECTOR_SHIFT: case FSC_PR_EXFAT_BOOT_NUM_FATS:
			return false;
		case FSC_PR_EXFAT_VOLUME_BEYOND_DEVICE:
			if (differs)
				return false;
			break;
		default:
			break;
		}
	return true;
}
