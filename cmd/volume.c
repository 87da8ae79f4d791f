// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * volume.c - the one step every subcommand takes to reach a volume: open
 * the device or image (or evidence container: read-only, a writer is
 * refused), apply --sector-size, --offset or --partition, probe the boot
 * sector; each failure is one line "fatscope: FILE: what is wrong" and
 * the exit code the command's description gives for it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fatscope/fatscope-fault.h"

static int select_partition(const char *path, struct fsc_dev *dev, int partno,
			    struct fsc_partition *part)
{
	struct fsc_partition *parts;
	int n = fsc_partitions(dev, &parts), rc = -1;

	if (n < 0) {
		errmsg(path, _("cannot read the partition table: %s"), strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct fsc_partition *pt = fsc_partition_at(parts, i);

		if (pt->partno == partno) {
			rc = fsc_dev_set_window(dev, pt->offset, pt->size);
			*part = *pt;
		}
	}
	if (rc < 0)
		errmsg(path, n ? _("no partition %d (the table has %d)") :
		       _("no partition %d: no partition table found"), partno, n);
	free(parts);
	return rc;
}

static void open_error(const char *path, int r, const char *why)
{
	if (r == -EMEDIUMTYPE)
		errmsg(path, _("evidence container (%s): fatscope never writes to one, nothing written"), why);
	else if (why[0])
		errmsg(path, "%s", why);
	else if (r == -EBUSY)
		errmsg(path, _("is in use (mounted?): it cannot be opened for writing"));
	else if (r == -EISDIR)
		errmsg(path, _("is a directory"));
	else if (r == -EINVAL)
		errmsg(path, _("not a regular file or block device"));
	else
		errmsg(path, "%s", strerror(-r));
}

/* sel's sector size, offset or partition on an open device: 0 or -1 after the message. */
static int apply_select(const char *path, const struct vol_select *sel, struct volume *v)
{
	if (sel->sector_size && fsc_dev_set_sector_size(v->dev, sel->sector_size) < 0) {
		errmsg(path, _("invalid sector size %u"), sel->sector_size);
		return -1;
	}
	if (sel->has_offset && fsc_dev_set_window(v->dev, sel->offset, 0) < 0) {
		errmsg(path, _("offset %llu is beyond the end (%llu bytes)"),
		       (unsigned long long)sel->offset, (unsigned long long)fsc_dev_full_size(v->dev));
		return -1;
	}
	if (sel->partition && select_partition(path, v->dev, sel->partition, &v->part) < 0)
		return -1;
	return 0;
}

int volume_probe(const struct cmd_desc *d, const char *path, struct fsc_dev *dev, struct fsc_probe **p)
{
	int r = fsc_probe_volume(dev, p);

	if (r == -ENODATA) {
		errmsg(path, _("too small to hold a boot sector (%llu bytes)"),
		       (unsigned long long)fsc_dev_size(dev));
		return d->too_small;
	}
	if (r < 0) {
		errmsg(path, _("read error: %s"), strerror(-r));
		return d->operror;
	}
	return 0;
}

/*
 * FATSCOPE_TEST_READ_DELAY_US=n (for the test suite: a slow card without
 * root): every read of a volume opened read-only waits n microseconds.
 */
static int slow_down(struct volume *v)
{
	const char *us = getenv("FATSCOPE_TEST_READ_DELAY_US");
	struct fsc_fault_config cfg;
	struct fsc_dev *slow;
	int r;

	if (!us || !*us)
		return 0;
	fsc_fault_config_init(&cfg);
	cfg.read_delay_us = (uint32_t)strtoul(us, NULL, 10);
	if ((r = fsc_dev_open_fault(v->dev, &cfg, &slow)) < 0)
		return r;
	v->slow_lower = v->dev;
	v->dev = slow;
	return 0;
}

int volume_open(const struct cmd_desc *d, const char *path, const struct vol_select *sel,
		unsigned flags, struct volume *v)
{
	char why[512];
	int r;

	memset(v, 0, sizeof(*v));
	r = fsc_dev_open_why(path, flags & VOL_WRITE ? FSC_DEV_WRITE : 0, &v->dev, why, sizeof(why));
	if (r < 0) {
		open_error(path, r, why);
		v->dev = NULL;
		return d->operror;
	}
	if (apply_select(path, sel, v) < 0)
		r = d->operror;
	else if (!(flags & VOL_WRITE) && slow_down(v) < 0)
		r = d->operror;
	else if (!(flags & VOL_NO_PROBE))
		r = volume_probe(d, path, v->dev, &v->p);
	if (!r && flags & VOL_BACKUP_VIEW && fsc_probe_backup_type(v->p) != FSC_TYPE_UNKNOWN) {
		struct fsc_dev *view;
		struct fsc_probe *vp;
		int e = fsc_probe_backup_view(v->dev, v->p, &view, &vp);

		if (e < 0) {
			errmsg(path, "cannot read the volume through its backup boot sector: %s", strerror(-e));
			r = d->operror;
		} else {
			v->main_dev = v->dev;
			v->main_p = v->p;
			v->dev = view;
			v->p = vp;
		}
	}
	if (r)
		volume_close(v);
	return r;
}

void volume_close(struct volume *v)
{
	fsc_probe_free(v->p);
	if (v->dev)
		fsc_dev_close(v->dev);
	fsc_probe_free(v->main_p);
	if (v->main_dev)
		fsc_dev_close(v->main_dev);
	if (v->slow_lower)
		fsc_dev_close(v->slow_lower);
	memset(v, 0, sizeof(*v));
}

int volume_need_fs(const char *path, const struct volume *v, int notfs)
{
	enum fsc_type t = fsc_probe_type(v->p);

	if (t == FSC_TYPE_EXFAT || fsc_type_is_fat(t))
		return 0;
	errmsg(path, _("not an exFAT or FAT volume (%s)"), fsc_type_name(t));
	return notfs;
}

const char *lookup_text(int err)
{
	switch (err) {
	case -ENOENT: return N_("no such file or directory on the volume");
	case -ENOTDIR: return N_("a file where the path needs a directory");
	case -ENAMETOOLONG: return N_("a name too long, or not UTF-8");
	default: return strerror(-err);
	}
}

int volume_lookup(const struct cmd_desc *d, const char *image, const struct volume *v, const char *path,
		  unsigned flags, struct fsc_dirent *out, char *buf, size_t len)
{
	int r = fsc_lookup(v->dev, v->p, path, flags, out, buf, len);

	if (r == 0)
		return 0;
	errmsg(image, "%s: %s", path, _(lookup_text(r)));
	return d->operror;
}

int volume_refuse_busy(const struct cmd_desc *d, const char *path)
{
	char why[2200];

	if (fsc_dev_busy(path, why, sizeof(why)) != -EBUSY)
		return 0;
	errmsg(path, _("%s; unmount it first"), why);
	return d->operror;
}

/*
 * FATSCOPE_TEST_CUT_WRITE=k (for the test suite's power-cut runs over the
 * fixtures): the power is cut before the plan's k-th write (from 0), with
 * the writes since the last sync lost too when FATSCOPE_TEST_CUT_CACHE=1.
 */
static int apply_maybe_cut(struct fsc_dev *dev, const struct fsc_plan *plan, const char *undo)
{
	const char *cut = getenv("FATSCOPE_TEST_CUT_WRITE"), *cache = getenv("FATSCOPE_TEST_CUT_CACHE");
	struct fsc_fault_config cfg;
	struct fsc_dev *fd;
	int r;

	if (!cut || !*cut)
		return fsc_plan_apply(dev, plan, undo);
	fsc_fault_config_init(&cfg);
	cfg.cut_write = strtoull(cut, NULL, 10);
	cfg.volatile_cache = cache && strcmp(cache, "1") == 0;
	if ((r = fsc_dev_open_fault(dev, &cfg, &fd)) < 0)
		return r;
	r = fsc_plan_apply(fd, plan, undo);
	fsc_dev_close(fd);
	return r;
}

int volume_apply(const struct cmd_desc *d, const char *path, struct fsc_dev *dev, const struct fsc_plan *plan,
		 const char *undo, const char *what)
{
	int r = volume_refuse_busy(d, path);

	if (r)
		return r;
	r = apply_maybe_cut(dev, plan, undo);
	if (r == -EEXIST)
		errmsg(path, _("the undo file %s exists already"), undo);
	else if (r == -ESTALE)
		errmsg(path, _("the volume changed while the %s was planned; nothing written"), _(what));
	else if (r < 0)
		errmsg(path, _("write failed: %s"), strerror(-r));
	return r < 0 ? d->operror : 0;
}
