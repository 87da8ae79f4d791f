// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_boot.c - the FAT repair's fixes of the boot sector region and the
 * choice among differing FAT copies: the copy whose chains agree best
 * with the directories (fewest errors when the volume is checked through
 * it) made every copy, before anything else; a FAT32
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
		     id == FSC_PR_FAT32_FSVER || id == FSC_PR_FAT32_ROOT_CLUSTER || id == FSC_PR_FAT32_FSINFO_SECTOR))
			return true;
		/* (more than two FATs: advisory alone, but a flipped bit of a backup's 2 reads so) */
		if (id == FSC_PR_FAT_BOOT_NUM_FATS && p->fat.num_fats > FR_MAX_COPIES)
			return true;
	}
	return false;
}

/*
 * No error, but a sign of damage the backup may not share: a cluster count
 * on FAT16's side under a FAT32 BPB (a flipped bit of BPB_TotSec32 or
 * BPB_SecPerClus shrinks the volume so).  A volume made so has a backup
 * that agrees, and is left as it is.
 */
static bool boot_suspect(const struct fsc_probe *p)
{
	return fsc_findings_has(&p->findings, FSC_PR_FAT_TYPE_MISMATCH);
}

static bool backup_at(const struct fsc_fat_bpb *b, uint32_t *sector)
{
	*sector = b->backup_sector;
	return b->bpb32 && b->backup_sector && b->backup_sector != 0xFFFF && b->backup_sector < b->reserved &&
	       b->bytes_per_sector >= 512;
}

/*
 * The volume as the restore planned after edit start leaves it: *view and
 * *p2 when that is a FAT32 volume with no error in its boot sector (and,
 * with was, the reserved area the damaged sector gave and its size or
 * one at most two bits away from it: a backup from another format of the
 * device is left; with typed, a cluster count that makes it FAT32); else
 * the restore is dropped again.
 */
static bool restored_view(struct rp *r, size_t start, struct fsc_dev **view, struct fsc_probe **p2,
			  const struct fsc_fat_bpb *was, bool typed)
{
	if (fsc_plan_count(r->plan) == start)
		return false;
	*view = plan_overlay(r->dev, r->plan);
	if (*view && fsc_probe_volume(*view, p2) == 0 && (*p2)->type == FSC_TYPE_FAT32) {
		bool sound = true;

		for (size_t i = 0; i < (*p2)->findings.n; i++)
			sound &= fsc_problem_info((*p2)->findings.v[i].id)->severity < FSC_SEV_ERROR;
		/* (the size one or two flipped bits away: the main sector's is what is damaged, the backup sound) */
		if (sound && (!was || (__builtin_popcount((*p2)->fat.total_sectors ^ was->total_sectors) <= 2 &&
				       (*p2)->fat.reserved == was->reserved)) &&
		    (!typed || !boot_suspect(*p2)))
			return true;
	}
	fsc_probe_free(*p2);
	fsc_dev_close(*view);
	*p2 = NULL;
	*view = NULL;
	plan_truncate(r->plan, start);
	return false;
}

/*
 * FAT32: the main boot sector has field errors and the backup, probed in
 * its place, is a FAT32 boot sector with no error at all: the restore is
 * planned (sector 0 from the backup) and *view and *p2 are the volume as
 * it leaves it (the caller frees both).  false: nothing planned.
 */
/*
 * A damaged sector 0 that reads as a FAT12/16 BPB (one flipped bit of
 * BPB_FATSz16 makes a FAT32 BPB one: seed 73, pop-fat32 #58) has no
 * backup by its own fields; the FAT32 field BPB_BkBootSec names one all
 * the same.  Its place read as FAT32 would: restored when it is a sound
 * FAT32 sector whose BPB is a bit or two from sector 0's (else another
 * format's leftover, or no backup at all).
 */
static bool restore_as_fat32(struct rp *r, size_t start, struct fsc_dev **view, struct fsc_probe **p2)
{
	const uint8_t *s0 = r->p->sector0;
	uint32_t ss = get_le16(s0, FAT_BPB_BYTS_PER_SEC), bk = get_le16(s0, FAT32_BPB_BK_BOOT_SEC);
	uint8_t *sec;
	bool near = false;

	if (r->p->sector0_len < FAT32_BS_FIL_SYS_TYPE || ss < 512 || ss > 4096 || (ss & (ss - 1)) || !bk ||
	    bk >= get_le16(s0, FAT_BPB_RSVD_SEC_CNT) || r->o->level != FSC_REPAIR_ALL || !(sec = malloc(ss)))
		return false;
	if (fsc_dev_read(r->dev, (uint64_t)bk * ss, sec, ss) == 0 && bytes_bits_apart(s0, sec, FAT32_BS_FIL_SYS_TYPE) <= 2) {
		rp_put(r, 0, sec, ss, "the boot sector restored from its backup", false);
		near = true;
	}
	free(sec);
	return near && restored_view(r, start, view, p2, NULL, false);
}

static size_t errors_through(struct fsc_dev *dev, const struct fsc_probe *p, unsigned k);

/*
 * A sector 0 with no error whose geometry (BPB_BytsPerSec to BPB_BkBootSec)
 * is a bit or two from its sound backup's: one of them was hit, and
 * mkfs and label tools never make them differ there.  The backup is
 * restored when the volume checks with fewer errors through it (seed
 * 251, pop-fat32 #8: BPB_FATSz32 + 8 moved the second FAT copy and the
 * data area, and the copy choice wrote over 43 clusters of files).
 */
static bool restore_geometry(struct rp *r, size_t start, uint32_t bk, struct fsc_dev **view, struct fsc_probe **p2)
{
	uint32_t ss = r->p->fat.bytes_per_sector;
	uint8_t *sec = malloc(ss);
	unsigned d;
	bool ok = false;

	if (!sec || fsc_dev_read(r->dev, (uint64_t)bk * ss, sec, ss) < 0) {
		free(sec);
		return false;
	}
	d = bytes_bits_apart(r->p->sector0 + FAT_BPB_BYTS_PER_SEC, sec + FAT_BPB_BYTS_PER_SEC,
		       FAT32_BPB_RESERVED - FAT_BPB_BYTS_PER_SEC);
	if (d >= 1 && d <= 2) {
		rp_put(r, 0, sec, ss, "the boot sector restored from its backup (its geometry the volume's)", false);
		ok = restored_view(r, start, view, p2, NULL, false) &&
		     errors_through(*view, *p2, 0) < errors_through(r->dev, r->p, 0);
	}
	free(sec);
	if (!ok && *view) {
		fsc_probe_free(*p2);
		fsc_dev_close(*view);
		*p2 = NULL;
		*view = NULL;
		plan_truncate(r->plan, start);
	}
	return ok;
}

bool fr_boot_restore(struct rp *r, struct fsc_dev **view, struct fsc_probe **p2)
{
	const struct fsc_fat_bpb *b = &r->p->fat;
	uint32_t bk, ss = b->bytes_per_sector;
	uint8_t *sec;
	size_t start = fsc_plan_count(r->plan);
	bool damaged, near = false;

	*view = NULL;
	*p2 = NULL;
	/* sector 0 lost over a sound backup (the probe found it at sector 6) */
	if (r->p->backup_type == FSC_TYPE_FAT32) {
		const struct fsc_finding *x = NULL;

		for (size_t i = 0; i < r->p->findings.n && !x; i++)
			if (r->p->findings.v[i].id == FSC_PR_FAT32_MAIN_BOOT_LOST)
				x = &r->p->findings.v[i];
		if (!x || r->o->level != FSC_REPAIR_ALL || (r->o->ask && !r->o->ask(r->o->ctx, x)) ||
		    !(sec = malloc(r->p->backup_len)))
			return false;
		if (fsc_dev_read(r->dev, r->p->backup_byte, sec, r->p->backup_len) == 0)
			rp_put(r, 0, sec, r->p->backup_len, "sector 0 restored from the backup boot sector (sector 6)", false);
		free(sec);
		return restored_view(r, start, view, p2, NULL, false);
	}
	damaged = boot_damaged(r->p);
	if (damaged && !b->bpb32)
		return restore_as_fat32(r, start, view, p2);
	if (!damaged && !boot_suspect(r->p) && backup_at(b, &bk) && r->o->level == FSC_REPAIR_ALL &&
	    fsc_findings_has(&r->p->findings, FSC_PR_FAT32_BACKUP_DIFFERS))
		return restore_geometry(r, start, bk, view, p2);
	if (!backup_at(b, &bk) || !(damaged || boot_suspect(r->p)) ||
	    !fsc_findings_has(&r->p->findings, FSC_PR_FAT32_BACKUP_DIFFERS) || r->o->level != FSC_REPAIR_ALL ||
	    !(sec = malloc(ss)))
		return false;
	if (fsc_dev_read(r->dev, (uint64_t)bk * ss, sec, ss) == 0) {
		rp_put(r, 0, sec, ss, "the boot sector restored from its backup", false);
		near = bytes_bits_apart(r->p->sector0, sec, FAT32_BS_FIL_SYS_TYPE) <= 2;
	}
	free(sec);
	/*
	 * (a suspect main sector: the backup only when it is FAT32 by its
	 * cluster count, whatever its size; a damaged one whose BPB is a bit
	 * or two from the backup's: whatever field the bits are in)
	 */
	return restored_view(r, start, view, p2, damaged && !near ? b : NULL, !damaged);
}

/* The FSInfo sector at s: signatures written; free count and hint "unknown" when they were garbage. */
static void fsinfo_signatures(struct rp *r, uint64_t off, bool reset)
{
	uint8_t s[FAT_FSI_SIZE];

	if (plan_view_read(r->dev, r->plan, off, s, sizeof(s)) < 0)
		return;
	if (reset || get_le32(s, FAT_FSI_LEAD_SIG) != FAT_FSI_LEAD_SIG_VALUE) {
		put_le32(s, FAT_FSI_FREE_COUNT, FAT_FSI_UNKNOWN);
		put_le32(s, FAT_FSI_NXT_FREE, FAT_FSI_UNKNOWN);
	}
	put_le32(s, FAT_FSI_LEAD_SIG, FAT_FSI_LEAD_SIG_VALUE);
	put_le32(s, FAT_FSI_STRUC_SIG, FAT_FSI_STRUC_SIG_VALUE);
	put_le32(s, FAT_FSI_TRAIL_SIG, FAT_FSI_TRAIL_SIG_VALUE);
	rp_put(r, off, s, sizeof(s), "FSInfo signatures", false);
}

/* Fields of a FAT32 boot sector no formatter writes: a BS_BootSig other than 0x28 or 0x29, a BPB_Reserved not zero. */
static unsigned oddities(const uint8_t *s)
{
	return (s[FAT32_BS_BOOT_SIG] != 0x28 && s[FAT32_BS_BOOT_SIG] != 0x29) +
	       !bytes_all(s, FAT32_BPB_RESERVED, 12, 0);
}

/*
 * The main sector (main, as the plan leaves it) a few bits from its
 * backup (bk), with a field no formatter writes that the backup has
 * right: the main one was hit, and takes the backup's bytes (its state
 * byte kept: the repair's dirty mark).  Seed 359, pop-fat32 #59:
 * BS_BootSig 0x29 -> 0x2D, a BPB_Reserved byte and a boot code byte hit;
 * the backup was made the damaged main one, and fsck.fat read no label.
 */
static bool main_from_backup(struct frp *f, uint8_t *main, uint32_t bk, uint32_t ss)
{
	uint8_t *sec = malloc(ss);
	bool ok = sec && plan_view_read(f->r.dev, f->r.plan, (uint64_t)bk * ss, sec, ss) == 0 &&
		  oddities(sec) < oddities(main);

	if (ok) {
		sec[FAT32_BS_RESERVED1] = main[FAT32_BS_RESERVED1];
		ok = bytes_bits_apart(main, sec, ss) <= 4;
	}
	if (ok)
		rp_put(&f->r, 0, sec, ss, "the boot sector from its backup (fields no formatter writes were hit)", true);
	free(sec);
	return ok;
}

/*
 * Last: 0x55AA at the end of sector 0, the FSInfo signatures, and the
 * backup boot sector (and its FSInfo) made the main ones once the main
 * sector is sound; or the main one the backup's, when the main one was
 * hit where the backup was not (main_from_backup).
 */
void fr_boot_fixes(struct frp *f)
{
	const struct fsc_fat_bpb *b = f->b;
	uint32_t bk, ss = b->bytes_per_sector;
	uint8_t sig[2] = { 0x55, 0xAA }, *sec;

	if (rp_take(&f->r, FSC_PR_FAT_BOOT_SIGNATURE))
		rp_put(&f->r, FAT_BS_SIGNATURE, sig, 2, "the boot signature", false);
	/* BPB_FSInfo past the reserved area and no backup to restore: sector 1 when it is an FSInfo sector */
	if (b->bpb32 && b->reserved > 1 && rp_find(&f->r, FSC_PR_FAT32_FSINFO_SECTOR) && (sec = malloc(ss))) {
		if (plan_view_read(f->r.dev, f->r.plan, ss, sec, ss) == 0 &&
		    get_le32(sec, FAT_FSI_LEAD_SIG) == FAT_FSI_LEAD_SIG_VALUE &&
		    get_le32(sec, FAT_FSI_STRUC_SIG) == FAT_FSI_STRUC_SIG_VALUE &&
		    plan_view_read(f->r.dev, f->r.plan, 0, sec, ss) == 0 &&
		    rp_take(&f->r, FSC_PR_FAT32_FSINFO_SECTOR)) {
			put_le16(sec, FAT32_BPB_FS_INFO, 1);
			rp_put(&f->r, 0, sec, ss, "BPB_FSInfo: sector 1, the FSInfo sector", false);
		}
		free(sec);
	}
	if (b->bpb32 && rp_take(&f->r, FSC_PR_FAT32_FSINFO_SIGNATURE)) {
		if (b->fsinfo_sector && b->fsinfo_sector < b->reserved)
			fsinfo_signatures(&f->r, (uint64_t)b->fsinfo_sector * ss, false);
		if (backup_at(b, &bk) && bk + b->fsinfo_sector < b->reserved)
			fsinfo_signatures(&f->r, (uint64_t)(bk + b->fsinfo_sector) * ss, false);
	}
	if (!backup_at(b, &bk) || boot_damaged(f->r.p) || boot_suspect(f->r.p) ||
	    !rp_take(&f->r, FSC_PR_FAT32_BACKUP_DIFFERS) ||
	    !(sec = malloc(ss)))
		return;
	/* (its state byte stays the backup's own: the main one's is the repair's dirty mark meanwhile) */
	if (plan_view_read(f->r.dev, f->r.plan, 0, sec, ss) == 0 && !main_from_backup(f, sec, bk, ss) &&
	    plan_view_read(f->r.dev, f->r.plan, (uint64_t)bk * ss + FAT32_BS_RESERVED1, sec + FAT32_BS_RESERVED1, 1) == 0)
		rp_put(&f->r, (uint64_t)bk * ss, sec, ss, "the backup boot sector from the main one", true);
	free(sec);
}

/*
 * What is wrong with the volume read through FAT copy k: the errors a
 * check finds (COPIES_DIFFER aside), its boot sector's errors, and its
 * lost clusters, which a copy
 * that cuts a directory's chain leaves as warnings only (seed 271,
 * pop-fat32 #29: through copy 1, 6 errors and 437 clusters of /many's
 * tree lost; through copy 2, 44 errors, all in the one directory sector
 * the damage hit, which copy 1 never reached, and 2 lost).  SIZE_MAX:
 * no check ran.
 */
static size_t errors_through(struct fsc_dev *dev, const struct fsc_probe *p, unsigned k)
{
	struct fsc_check_opts o = { .max_per_problem = UINT32_MAX, .threads = 1 };
	struct fat_hooks h = { .copy_plus1 = k + 1 };
	struct fsc_findings fs = { 0 };
	struct fsc_check_summary s;
	size_t n = 0;

	if (fat_check(dev, p, &o, &fs, &s, &h) < 0) {
		finding_list_clear(&fs);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < fs.n; i++)
		n += fs.v[i].id != FSC_PR_FAT_COPIES_DIFFER && fsc_problem_info(fs.v[i].id)->severity >= FSC_SEV_ERROR;
	/* (and the boot sector's own: BPB_TotSec32 + 16 of 4 KiB sectors, past the device, is no error of the tree) */
	for (size_t i = 0; i < p->findings.n; i++)
		n += fsc_problem_info(p->findings.v[i].id)->severity >= FSC_SEV_ERROR;
	finding_list_clear(&fs);
	return n + s.lost_clusters;
}

/*
 * Whether a check through another copy could find less wrong than the
 * first check found through copy 0 (errors_through), told without that
 * check where it can be.  Only allocations whose chain passes an entry
 * where the copies differ can change: when each of those is a file whose
 * chain through copy 0 is whole (an end mark after exactly the clusters
 * its size needs; the first check tells, fat_hooks.claimed) and no
 * cross-link was found, the other copy can only keep or add errors, and
 * no cluster of the tree becomes lost through copy 0 only (a differing
 * entry outside every chain, a lost cluster either way, is left to the
 * lost-cluster fixes).  A directory among them (what the walk reads
 * depends on its chain) or a cross-link needs the check.
 */
static bool may_beat(const struct frp *f)
{
	return rp_find(&f->r, FSC_PR_FAT_CROSS_LINK) || f->copy_may_matter;
}

/*
 * FAT copies that differ (mirroring on): the copy through which the
 * volume has the least wrong (errors_through), if less than through the first
 * (which drivers read), is copied over every other one, sector by sector
 * where they differ, first of all; true when that is planned.  A copy
 * that cannot do better (may_beat) is not checked.
 */
bool fr_choose_copy(struct frp *f, struct fsc_dev *dev, size_t errors_first)
{
	struct rp *r = &f->r;
	const struct fsc_probe *p = r->p;
	const struct fsc_fat_bpb *b = &p->fat;
	struct fsc_finding *x = rp_find(r, FSC_PR_FAT_COPIES_DIFFER);
	uint32_t ss = b->bytes_per_sector;
	size_t best = errors_first, n, start = fsc_plan_count(r->plan);
	unsigned k, pick = 0;
	uint8_t *a, *o;

	if (!x || (b->bpb32 && (b->ext_flags & 0x80)) || r->o->level != FSC_REPAIR_ALL || !rp_wanted(r, x))
		return false;
	for (k = 1; best && k < fr_copies(b); k++)
		if (may_beat(f) && (n = errors_through(dev, p, k)) < best)
			best = n, pick = k;
	if (!pick)
		return false;
	a = malloc(ss);
	o = malloc(ss);
	if (!a || !o) {
		free(a);
		free(o);
		r->err = -ENOMEM;
		return false;
	}
	for (k = 0; k < fr_copies(b) && !r->err; k++)
		for (uint64_t at = 0; k != pick && at < (uint64_t)b->fat_size * ss && !r->err; at += ss) {
			uint64_t from = (uint64_t)b->reserved * ss + (uint64_t)pick * b->fat_size * ss + at;
			uint64_t to = (uint64_t)b->reserved * ss + (uint64_t)k * b->fat_size * ss + at;

			if (fsc_dev_read(dev, from, a, ss) < 0 || fsc_dev_read(dev, to, o, ss) < 0)
				break;
			if (memcmp(a, o, ss))
				rp_put(r, to, a, ss, "the FAT copy that agrees with the directories, in every copy", false);
		}
	free(a);
	free(o);
	return fsc_plan_count(r->plan) > start;
}
