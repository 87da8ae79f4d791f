// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * busy.c - is a device or image in use: mounted itself, through one of
 * its partitions, through a loop device backed by the image, or by a FUSE
 * driver given the image file.
 *
 * Consumes: a path, /proc/self/mountinfo and /sys/block.  Produces: 0 or
 * -EBUSY with what holds the device, for the writers to refuse.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/base.h"

/*
 * Is a file system mounted from the block device dev, or (file != NULL)
 * from that file itself, as FUSE drivers mount an image file given by
 * path (mount.exfat-fuse IMAGE DIR: the source field of mountinfo)?
 */
static bool mounted_from(dev_t dev, const struct stat *file, char *why, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char mnt[2048], src[4096];
		const char *sep = strstr(line, " - ");
		struct stat sst;

		if (sscanf(line, "%*d %*d %u:%u %*s %2047s", &maj, &min, mnt) != 3)
			continue;
		if (dev && maj == major(dev) && min == minor(dev))
			found = true;
		else if (file && sep && sscanf(sep + 3, "%*s %4095s", src) == 1 && src[0] == '/' &&
			 stat(src, &sst) == 0 && sst.st_dev == file->st_dev && sst.st_ino == file->st_ino)
			found = true;
		if (found)
			snprintf(why, len, "mounted on %s", mnt);
	}
	fclose(f);
	return found;
}

/* The device number in a sysfs "dev" file ("MAJ:MIN"). */
static bool sysfs_dev(const char *dir, dev_t *out)
{
	char p[600], buf[64];
	unsigned maj, min;
	FILE *f;
	bool ok;

	snprintf(p, sizeof(p), "%s/dev", dir);
	f = fopen(p, "re");
	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (ok)
		*out = makedev(maj, min);
	return ok;
}

/*
 * The block device whose sysfs directory is dir, or one of its partitions
 * (subdirectories with a "partition" file: sda1, loop0p1), mounted?
 * name is the device's name for the message.
 */
static bool disk_mounted(const char *dir, const char *name, char *why, size_t len)
{
	char mwhy[2100], sub[600];
	struct dirent *de;
	dev_t d;
	DIR *dd;
	bool busy = false;

	if (sysfs_dev(dir, &d) && mounted_from(d, NULL, mwhy, sizeof(mwhy))) {
		snprintf(why, len, "%s%s", name, mwhy);
		return true;
	}
	dd = opendir(dir);
	if (!dd)
		return false;
	while (!busy && (de = readdir(dd)) != NULL) {
		struct stat pst;

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/partition", dir, de->d_name);
		if (stat(sub, &pst) < 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (sysfs_dev(sub, &d) && mounted_from(d, NULL, mwhy, sizeof(mwhy))) {
			snprintf(why, len, "%spartition /dev/%s is %s", name, de->d_name, mwhy);
			busy = true;
		}
	}
	closedir(dd);
	return busy;
}

/*
 * Mounted, directly or through a partition; for an image file also through
 * a loop device backed by it (or one of the loop device's partitions), or
 * by a FUSE driver given the file itself.
 */
FSC_EXPORT int fsc_dev_busy(const char *path, char *why, size_t len)
{
	struct stat st, bst;
	DIR *d;
	struct dirent *de;
	char mwhy[2100];
	int busy = 0;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		char dir[64];

		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
		if (disk_mounted(dir, "", why, len))
			return -EBUSY;
		/* No sysfs (a container): the device itself, from mountinfo alone. */
		return mounted_from(st.st_rdev, NULL, why, len) ? -EBUSY : 0;
	}
	if (mounted_from(0, &st, why, len))
		return -EBUSY;
	d = opendir("/sys/block");
	if (!d)
		return 0;
	while (!busy && (de = readdir(d)) != NULL) {
		char p[512], backing[4096];
		FILE *f;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (!fgets(backing, sizeof(backing), f))
			backing[0] = '\0';
		fclose(f);
		backing[strcspn(backing, "\n")] = '\0';
		if (stat(backing, &bst) < 0 || bst.st_dev != st.st_dev || bst.st_ino != st.st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s", de->d_name);
		if (disk_mounted(p, "", mwhy, sizeof(mwhy))) {
			snprintf(why, len, "attached to /dev/%s, %s", de->d_name, mwhy);
			busy = -EBUSY;
		}
	}
	closedir(d);
	return busy;
}
