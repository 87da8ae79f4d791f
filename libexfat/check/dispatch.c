// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dispatch.c - fsc_check, the one public way into the checkers: the
 * probe's findings first, then the checker of the volume's filesystem.
 *
 * Consumes: a device, its probe and the caller's (empty) findings list.
 * Produces: the probe's findings copied into that list, the checker's
 * appended after them (exfat_check.c, fat_check.c), and a summary.
 * A repair planner comes in through its family's own door with its
 * hooks: exfat_check_with (xv_fix, the check's state handed over after
 * the last pass) and fat_check_with (fat_hooks).  (Two hook contracts:
 * one is the open part of issue 22.)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/exfat_check.h"
#include "check/fat_check.h"

/* Append copies of src's findings (paths duplicated) to dst. */
static int findings_append(struct fsc_findings *dst, const struct fsc_findings *src)
{
	if (dst->cap - dst->n < src->n) {
		size_t cap = dst->n + src->n;
		struct fsc_finding *v = realloc(dst->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		dst->v = v;
		dst->cap = cap;
	}
	for (size_t i = 0; i < src->n; i++) {
		struct fsc_finding *f = &dst->v[dst->n];

		*f = src->v[i];
		if (f->path && !(f->path = strdup(f->path)))
			return -ENOMEM;
		dst->n++;
	}
	return 0;
}

int check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	       struct fsc_findings *out, struct fsc_check_summary *sum)
{
	int r;

	memset(sum, 0, sizeof(*sum));
	r = findings_append(out, &p->findings);
	if (r < 0)
		return r;
	if (p->type == FSC_TYPE_EXFAT)
		return exfat_check(dev, p, o, out, sum, NULL, NULL);
	/*
	 * A main boot region lost over a sound backup: checked through the
	 * backup, read-only (a repair restores the region first, or only
	 * reports); the view's own findings follow the probe's.
	 */
	if (p->backup_type != FSC_TYPE_UNKNOWN) {
		struct fsc_dev *view;
		struct fsc_probe *vp;

		if (fsc_probe_backup_view(dev, p, &view, &vp) < 0)
			return 0;
		r = check_with(view, vp, o, out, sum);
		fsc_probe_free(vp);
		fsc_dev_close(view);
		return r;
	}
	if (fsc_type_is_fat(p->type))
		return fat_check(dev, p, o, out, sum, NULL);
	return -EINVAL;
}

int exfat_check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		     struct fsc_findings *out, struct fsc_check_summary *sum, const struct xv_fix *fix,
		     struct xvol **kept)
{
	int r;

	memset(sum, 0, sizeof(*sum));
	*kept = NULL;
	r = findings_append(out, &p->findings);
	return r < 0 ? r : exfat_check(dev, p, o, out, sum, fix, kept);
}

int fat_check_with(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
		   struct fsc_findings *out, struct fsc_check_summary *sum, struct fat_hooks *hooks)
{
	int r;

	memset(sum, 0, sizeof(*sum));
	r = findings_append(out, &p->findings);
	return r < 0 ? r : fat_check(dev, p, o, out, sum, hooks);
}

FSC_EXPORT int fsc_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
			 struct fsc_findings *out, struct fsc_check_summary *sum)
{
	struct fsc_check_opts own;
	struct fsc_check_summary s = FSC_CHECK_SUMMARY_INIT;
	int r;

	if (!sized_out_ok(sum))
		return -EINVAL;
	r = sized_copy(&own, sizeof(own), o);
	if (r == 0)
		r = check_with(dev, p, &own, out, &s);
	return sized_out(sum, &s, sizeof(s), r);
}
