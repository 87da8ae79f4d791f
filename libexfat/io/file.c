// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * file.c - the image file and block device backend.
 *
 * Consumes: a path.  Produces: a device over the file's bytes, read with
 * pread (retried on EINTR, a short read is -EIO) or through one read-only
 * mapping of the whole file; written with pwrite, synced with fsync.
 * Opens read-only unless FSC_DEV_WRITE; writers take a block device
 * exclusively (O_EXCL), which the kernel refuses while it is mounted.
 * A regular file that is an evidence container goes to container.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "io/container.h"

struct file_dev {
	const uint8_t *map;		/* whole file mapped read-only, or NULL */
	bool map_failed;
};

static int file_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		size_t chunk = len > (size_t)INT_MAX ? (size_t)INT_MAX : len;
		ssize_t r = pread(d->fd, p, chunk, (off_t)off);

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

static int file_write(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = pwrite(d->fd, p, len, (off_t)off);

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

static int file_sync(struct fsc_dev *d)
{
	return fsync(d->fd) < 0 ? -errno : 0;
}

static int file_map(struct fsc_dev *d, uint64_t off, size_t len, const uint8_t **out)
{
	struct file_dev *f = d->priv;

	(void)len;
	if (!f->map && !f->map_failed && d->full_size && d->full_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)d->full_size, PROT_READ, MAP_SHARED, d->fd, 0);

		if (m == MAP_FAILED)
			f->map_failed = true;
		else
			f->map = m;
	}
	if (!f->map)
		return -ENOTSUP;
	*out = f->map + off;
	return 0;
}

static void file_close(struct fsc_dev *d)
{
	struct file_dev *f = d->priv;

	if (f->map)
		munmap((void *)f->map, d->full_size);
	free(f);
	close(d->fd);
}

static const struct dev_ops file_ops = {
	.name = "file",
	.read = file_read,
	.write = file_write,
	.sync = file_sync,
	.map = file_map,
	.close = file_close,
};

/* The size of what fd opens, and for a block device its logical sector size. */
static int file_size(int fd, const struct stat *st, uint64_t *size, uint32_t *ssize)
{
	uint64_t bytes = 0;
	int ssz = 512;

	if (!S_ISBLK(st->st_mode)) {
		*size = (uint64_t)st->st_size;
		return 0;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		return -errno;
	if (ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz >= 512 && ssz <= 65536)
		*ssize = (uint32_t)ssz;
	*size = bytes;
	return 0;
}

FSC_EXPORT int fsc_dev_open(const char *path, int flags, struct fsc_dev **out)
{
	return fsc_dev_open_why(path, flags, out, NULL, 0);
}

FSC_EXPORT int fsc_dev_open_why(const char *path, int flags, struct fsc_dev **out, char *why, size_t whylen)
{
	struct stat st;
	struct file_dev *f = NULL;
	uint64_t size = 0;
	uint32_t ssize = 512;
	int oflags = (flags & FSC_DEV_WRITE) ? O_RDWR : O_RDONLY;
	int fd, err;

	*out = NULL;
	if (why && whylen)
		why[0] = '\0';
	/* An evidence container: its own backend (container.c), read-only. */
	err = container_open(path, flags, out, why, whylen);
	if (err)
		return err < 0 ? err : 0;
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
	if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		err = -EINVAL;
	else
		err = file_size(fd, &st, &size, &ssize);
	if (err)
		goto fail;
	f = calloc(1, sizeof(*f));
	if (!f || !(*out = dev_new(&file_ops, f, size))) {
		err = -ENOMEM;
		goto fail;
	}
	(*out)->fd = fd;
	(*out)->writable = flags & FSC_DEV_WRITE;
	(*out)->blockdev = S_ISBLK(st.st_mode);
	(*out)->sector_size = ssize;
	return 0;
fail:
	free(f);
	close(fd);
	return err;
}
