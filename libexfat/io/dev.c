// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * io.c - devices: image files, block devices and memory, behind one
 * handle with a byte window (--offset, a partition).
 *
 * Consumes: a path or a buffer.  Produces: bounded reads.  Opens read-only
 * unless FSC_DEV_WRITE; a read never strays out of the window and a short
 * read is an error, never undefined bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "base/base.h"

struct fsc_dev {
	int fd;				/* -1 for memory */
	const uint8_t *mem;
	uint8_t *mem_rw;		/* the same buffer, when writable */
	uint64_t full_size;
	uint64_t win_off, win_size;
	uint32_t sector_size;
	bool blockdev, writable;
	const uint8_t *map;		/* whole file mapped read-only, or NULL */
	bool map_failed;
	struct fallback { uint8_t *buf; struct fallback *next; } *fallbacks;
};

static struct fsc_dev *dev_new(void)
{
	struct fsc_dev *d = calloc(1, sizeof(*d));

	if (d) {
		d->fd = -1;
		d->sector_size = 512;
	}
	return d;
}

FSC_EXPORT int fsc_dev_open(const char *path, int flags, struct fsc_dev **out)
{
	struct stat st;
	struct fsc_dev *d;
	int oflags = (flags & FSC_DEV_WRITE) ? O_RDWR : O_RDONLY;
	int fd, err;

	*out = NULL;
	/* Writers take block devices exclusively: the kernel refuses a mounted one. */
	if ((flags & FSC_DEV_WRITE) && stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		oflags |= O_EXCL;
	fd = open(path, oflags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		err = -EINVAL;
		goto fail;
	}
	d = dev_new();
	if (!d) {
		err = -ENOMEM;
		goto fail;
	}
	d->fd = fd;
	d->writable = flags & FSC_DEV_WRITE;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;
		int ssz = 512;

		d->blockdev = true;
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			err = -errno;
			free(d);
			goto fail;
		}
		if (ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz >= 512 && ssz <= 65536)
			d->sector_size = (uint32_t)ssz;
		d->full_size = bytes;
	} else {
		d->full_size = (uint64_t)st.st_size;
	}
	d->win_size = d->full_size;
	*out = d;
	return 0;
fail:
	close(fd);
	return err;
}

FSC_EXPORT int fsc_dev_open_mem(const void *buf, size_t len, struct fsc_dev **out)
{
	struct fsc_dev *d = dev_new();

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->mem = buf;
	d->full_size = d->win_size = len;
	*out = d;
	return 0;
}

FSC_EXPORT int fsc_dev_open_mem_rw(void *buf, size_t len, struct fsc_dev **out)
{
	int r = fsc_dev_open_mem(buf, len, out);

	if (r == 0) {
		(*out)->mem_rw = buf;
		(*out)->writable = true;
	}
	return r;
}

FSC_EXPORT void fsc_dev_close(struct fsc_dev *dev)
{
	if (!dev)
		return;
	if (dev->map)
		munmap((void *)dev->map, dev->full_size);
	while (dev->fallbacks) {
		struct fallback *f = dev->fallbacks;

		dev->fallbacks = f->next;
		free(f->buf);
		free(f);
	}
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev);
}

FSC_EXPORT int fsc_dev_set_window(struct fsc_dev *dev, uint64_t offset, uint64_t size)
{
	if (offset > dev->full_size)
		return -ERANGE;
	if (size == 0)
		size = dev->full_size - offset;
	if (size > dev->full_size - offset)
		return -ERANGE;
	dev->win_off = offset;
	dev->win_size = size;
	return 0;
}

FSC_EXPORT int fsc_dev_set_sector_size(struct fsc_dev *dev, uint32_t size)
{
	if (size < 512 || size > 4096 || !is_pow2_u32(size))
		return -EINVAL;
	dev->sector_size = size;
	return 0;
}

FSC_EXPORT uint64_t fsc_dev_size(const struct fsc_dev *dev) { return dev->win_size; }
FSC_EXPORT uint64_t fsc_dev_offset(const struct fsc_dev *dev) { return dev->win_off; }
FSC_EXPORT uint64_t fsc_dev_full_size(const struct fsc_dev *dev) { return dev->full_size; }
FSC_EXPORT uint32_t fsc_dev_sector_size(const struct fsc_dev *dev) { return dev->sector_size; }
FSC_EXPORT int fsc_dev_fd(const struct fsc_dev *dev) { return dev->fd; }
FSC_EXPORT bool fsc_dev_is_blockdev(const struct fsc_dev *dev) { return dev->blockdev; }

FSC_EXPORT int fsc_dev_read(struct fsc_dev *dev, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (off > dev->win_size || len > dev->win_size - off)
		return -ENXIO;
	off += dev->win_off;
	if (dev->mem) {
		memcpy(p, dev->mem + off, len);
		return 0;
	}
	while (len) {
		size_t chunk = len > (size_t)INT_MAX ? (size_t)INT_MAX : len;
		ssize_t r = pread(dev->fd, p, chunk, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;	/* the file shrank under us */
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

FSC_EXPORT int fsc_dev_map(struct fsc_dev *dev, uint64_t off, size_t len, const uint8_t **out)
{
	struct fallback *f;
	int r;

	if (off > dev->win_size || len > dev->win_size - off)
		return -ENXIO;
	if (dev->mem) {
		*out = dev->mem + dev->win_off + off;
		return 0;
	}
	if (!dev->map && !dev->map_failed && dev->full_size && dev->full_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)dev->full_size, PROT_READ, MAP_SHARED, dev->fd, 0);

		if (m == MAP_FAILED) {
			dev->map_failed = true;
		} else {
			dev->map = m;
		}
	}
	if (dev->map) {
		*out = dev->map + dev->win_off + off;
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->buf = malloc(len ? len : 1))) {
		free(f);
		return -ENOMEM;
	}
	r = fsc_dev_read(dev, off, f->buf, len);
	if (r < 0) {
		free(f->buf);
		free(f);
		return r;
	}
	f->next = dev->fallbacks;
	dev->fallbacks = f;
	*out = f->buf;
	return 0;
}

FSC_EXPORT int fsc_dev_write(struct fsc_dev *dev, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!dev->writable)
		return -EBADF;
	if (off > dev->win_size || len > dev->win_size - off)
		return -ENXIO;
	off += dev->win_off;
	if (dev->mem_rw) {
		memcpy(dev->mem_rw + off, p, len);
		return 0;
	}
	while (len) {
		ssize_t r = pwrite(dev->fd, p, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

FSC_EXPORT int fsc_dev_sync(struct fsc_dev *dev)
{
	if (dev->fd >= 0 && fsync(dev->fd) < 0)
		return -errno;
	return 0;
}

/* Is block device number dev mounted (a line of /proc/self/mountinfo names it)? */
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
