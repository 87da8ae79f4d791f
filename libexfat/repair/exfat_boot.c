// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_boot.c - the main boot region (sectors 0-11) restored from the
 * backup (sectors 12-23), only after the backup verifies: its signature,
 * name, sector size and checksum, then a probe of the volume as the
 * restore leaves it, whose boot region checks must find no error.  The
 * rest of the repair then reads the volume through that view.  The
 * restore is the plan's first edit, before VolumeDirty is set (the flag
 * lives in the region being replaced).
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

/* The first field error, or NULL. */
static const struct fsc_finding *first_field_error(const struct fsc_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (boot_field_error(&fs->v[i]))
			return &fs->v[i];
	return NULL;
}

/* The 12 sectors of ss bytes at sector 12: a sound exFAT boot region for this sector size? */
static bool backup_sound(const uint8_t *b, unsigned ss)
{
	uint32_t sum = fsc_exfat_boot_checksum(b, ss);

	if (memcmp(b + 3, "EXFAT   ", 8) != 0 || get_le16(b, 510) != 0xAA55 || b[108] >= 32 || (1u << b[108]) != ss)
		return false;
	for (unsigned i = 0; i < ss; i += 4)
		if (get_le32(b + 11ull * ss, i) != sum)
			return false;
	return true;
}

/* The main region's field errors (and the difference from the backup), in the repair's list, planned. */
static int note_fixed(struct rp *r, const struct fsc_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct fsc_finding *f;

		if (!boot_field_error(&fs->v[i]) && fs->v[i].id != FSC_PR_EXFAT_BACKUP_DIFFERS)
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

bool boot_restore(struct rp *r, struct fsc_dev **dev2, struct fsc_probe **p2)
{
	static const unsigned sizes[] = { 512, 1024, 2048, 4096 };
	const struct fsc_findings *fs = &r->p->findings;
	size_t start = fsc_plan_count(r->plan);
	uint8_t *b = malloc(12 * 4096);
	unsigned ss = 0;

	*dev2 = NULL;
	*p2 = NULL;
	const struct fsc_finding *why = first_field_error(fs);

	for (size_t i = 0; b && why && i < sizeof(sizes) / sizeof(sizes[0]) && !ss; i++)
		if (fsc_dev_read(r->dev, 12ull * sizes[i], b, 12ull * sizes[i]) == 0 && backup_sound(b, sizes[i]))
			ss = sizes[i];
	if (ss && r->o->level == FSC_REPAIR_ALL && (!r->o->ask || r->o->ask(r->o->ctx, why)))
		put(r, 0, b, 12ull * ss, "restore the main boot region from the verified backup (sectors 12-23)", false);
	free(b);
	if (fsc_plan_count(r->plan) == start)
		return false;
	*dev2 = plan_overlay(r->dev, r->plan);
	if (*dev2 && fsc_probe_volume(*dev2, p2) == 0 && (*p2)->type == FSC_TYPE_EXFAT &&
	    !first_field_error(&(*p2)->findings) && note_fixed(r, fs) == 0)
		return true;
	fsc_probe_free(*p2);	/* the restored region would not be sound either: leave it */
	fsc_dev_close(*dev2);
	*dev2 = NULL;
	*p2 = NULL;
	plan_truncate(r->plan, start);
	return false;
}
