// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dev.c - devices: one handle with a byte window (--offset, a partition)
 * over a backend (file.c: image files and block devices; here: memory;
 * fault.c: faults injected into another device).
 *
 * Consumes: a backend.  Produces: bounded reads and writes, and where the
 * data of a sparse image lies (SEEK_DATA, SEEK_HOLE) for scans.  A read never
 * strays out of the window and a short read is an error, never undefined
 * bytes; writes need a writable device.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io/io.h"

struct fsc_dev *dev_new(const struct dev_ops *ops, void *priv, uint64_t size)
{
	struct fsc_dev *d = calloc(1, sizeof(*d));

	if (d) {
		d->ops = ops;
		d->priv = priv;
		d->fd = -1;
		d->sector_size = 512;
		d->full_size = d->win_size = size;
	}
	return d;
}

FSC_EXPORT void fsc_dev_close(struct fsc_dev *dev)
{
	if (!dev)
		return;
	while (dev->bufs) {
		struct dev_buf *b = dev->bufs;

		dev->bufs = b->next;
		free(b->buf);
		free(b);
	}
	if (dev->ops->close)
		dev->ops->close(dev);
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

static bool in_window(const struct fsc_dev *dev, uint64_t off, size_t len)
{
	return off <= dev->win_size && len <= dev->win_size - off;
}

FSC_EXPORT int fsc_dev_read(struct fsc_dev *dev, uint64_t off, void *buf, size_t len)
{
	if (!in_window(dev, off, len))
		return -ENXIO;
	return dev->ops->read(dev, dev->win_off + off, buf, len);
}

FSC_EXPORT int fsc_dev_map(struct fsc_dev *dev, uint64_t off, size_t len, const uint8_t **out)
{
	struct dev_buf *b;
	int r = -ENOTSUP;

	if (!in_window(dev, off, len))
		return -ENXIO;
	if (dev->ops->map)
		r = dev->ops->map(dev, dev->win_off + off, len, out);
	if (r != -ENOTSUP)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b || !(b->buf = malloc(len ? len : 1))) {
		free(b);
		return -ENOMEM;
	}
	r = fsc_dev_read(dev, off, b->buf, len);
	if (r < 0) {
		free(b->buf);
		free(b);
		return r;
	}
	b->next = dev->bufs;
	dev->bufs = b;
	*out = b->buf;
	return 0;
}

FSC_EXPORT int fsc_dev_write(struct fsc_dev *dev, uint64_t off, const void *buf, size_t len)
{
	if (!dev->writable)
		return -EBADF;
	if (!in_window(dev, off, len))
		return -ENXIO;
	return dev->ops->write(dev, dev->win_off + off, buf, len);
}

FSC_EXPORT int fsc_dev_sync(struct fsc_dev *dev)
{
	return dev->ops->sync ? dev->ops->sync(dev) : 0;
}

int dev_next_data(struct fsc_dev *dev, uint64_t off, uint64_t *data, uint64_t *end)
{
	off_t d, h;

	*data = off;
	*end = dev->win_size;
	if (off >= dev->win_size || dev->fd < 0 || dev->blockdev)
		return 0;
	d = lseek(dev->fd, (off_t)(dev->win_off + off), SEEK_DATA);
	if (d < 0) {
		if (errno == ENXIO)	/* only a hole up to the end of the file */
			*data = dev->win_size;
		return errno == ENXIO || errno == EINVAL ? 0 : -errno;
	}
	h = lseek(dev->fd, d, SEEK_HOLE);
	if (h < 0)
		return errno == EINVAL ? 0 : -errno;
	*data = (uint64_t)d < dev->win_off + dev->win_size ? (uint64_t)d - dev->win_off : dev->win_size;
	if ((uint64_t)h < dev->win_off + dev->win_size)
		*end = (uint64_t)h - dev->win_off;
	return 0;
}

void dev_sequential(struct fsc_dev *dev)
{
	if (dev->fd >= 0)
		posix_fadvise(dev->fd, (off_t)dev->win_off, (off_t)dev->win_size, POSIX_FADV_SEQUENTIAL);
}

int dev_read_cached(struct fsc_dev *dev, uint64_t off, void *buf, size_t len)
{
#ifdef RWF_NOWAIT
	struct iovec v = { buf, len };
	ssize_t r;

	if (dev->fd >= 0 && in_window(dev, off, len) && len <= (size_t)INT_MAX) {
		r = preadv2(dev->fd, &v, 1, (off_t)(dev->win_off + off), RWF_NOWAIT);
		if (r == (ssize_t)len)
			return 1;
		if (r > 0) {		/* (a part was there: the rest is read as usual) */
			int e = fsc_dev_read(dev, off + (uint64_t)r, (uint8_t *)buf + r, len - (size_t)r);

			return e < 0 ? e : 0;
		}
	}
#endif
	int e = fsc_dev_read(dev, off, buf, len);

	return e < 0 ? e : dev->fd < 0;
}

void dev_random(struct fsc_dev *dev, bool random)
{
	if (dev->fd >= 0)
		posix_fadvise(dev->fd, (off_t)dev->win_off, (off_t)dev->win_size,
			      random ? POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
}

void dev_willneed(struct fsc_dev *dev, uint64_t off, uint64_t len)
{
	if (dev->fd >= 0 && off < dev->win_size)
		posix_fadvise(dev->fd, (off_t)(dev->win_off + off),
			      (off_t)(len < dev->win_size - off ? len : dev->win_size - off), POSIX_FADV_WILLNEED);
}

/* ---- memory ---- */

static int mem_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, (const uint8_t *)d->priv + off, len);
	return 0;
}

static int mem_write(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	memcpy((uint8_t *)d->priv + off, buf, len);	/* writable only when opened so */
	return 0;
}

static int mem_map(struct fsc_dev *d, uint64_t off, size_t len, const uint8_t **out)
{
	(void)len;
	*out = (const uint8_t *)d->priv + off;
	return 0;
}

static const struct dev_ops mem_ops = {
	.name = "memory",
	.read = mem_read,
	.write = mem_write,
	.map = mem_map,
};

FSC_EXPORT int fsc_dev_open_mem(const void *buf, size_t len, struct fsc_dev **out)
{
	*out = dev_new(&mem_ops, (void *)buf, len);
	return *out ? 0 : -ENOMEM;
}

FSC_EXPORT int fsc_dev_open_mem_rw(void *buf, size_t len, struct fsc_dev **out)
{
	int r = fsc_dev_open_mem(buf, len, out);

	if (r == 0)
		(*out)->writable = true;
	return r;
}
