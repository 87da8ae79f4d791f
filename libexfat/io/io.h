/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io/io.h - devices as the backends see them (dev.c, file.c, fault.c,
 * remap.c; the evidence containers of container.h); not installed.
 *
 * A device is a byte window over a backend.  dev.c checks the window and
 * the write permission once, then calls the backend with offsets from the
 * start of the backend's bytes (the window start added); a backend never
 * sees a range outside [0, full_size).
 */
#ifndef FSC_IO_H
#define FSC_IO_H

#include "base/base.h"

struct dev_ops {
	const char *name;
	int (*read)(struct fsc_dev *d, uint64_t off, void *buf, size_t len);
	int (*write)(struct fsc_dev *d, uint64_t off, const void *buf, size_t len);
	int (*sync)(struct fsc_dev *d);
	/*
	 * A pointer to len bytes at off that stays valid until close, or
	 * -ENOTSUP: dev.c then reads them into a buffer of its own.  May be NULL.
	 */
	int (*map)(struct fsc_dev *d, uint64_t off, size_t len, const uint8_t **out);
	void (*close)(struct fsc_dev *d);	/* free priv; may be NULL */
};

struct dev_buf {
	uint8_t *buf;
	struct dev_buf *next;
};

struct fsc_dev {
	const struct dev_ops *ops;
	void *priv;			/* the backend's state */
	uint64_t full_size;
	uint64_t win_off, win_size;
	uint32_t sector_size;
	int fd;				/* the backend's descriptor, or -1 */
	bool blockdev, writable;
	struct dev_buf *bufs;		/* fsc_dev_map's buffers, freed at close */
	const struct fsc_container_info *container;	/* the evidence container read (the backend's), or NULL */
};

/* A device of size bytes over ops and priv, 512-byte sectors, read-only; NULL without memory. */
struct fsc_dev *dev_new(const struct dev_ops *ops, void *priv, uint64_t size);

/*
 * remap.c: a read-only view of lower (the caller keeps it open longer)
 * whose bytes 0 .. len - 1 are lower's src .. src + len - 1; the rest is
 * lower's.  NULL when out of memory.
 */
struct fsc_dev *dev_remap(struct fsc_dev *lower, uint64_t len, uint64_t src);

/*
 * parttable.c: the MBR or GPT partitions of dev's window read through
 * the device, as libblkid lists them (partition.c's way for a device with
 * no descriptor: evidence containers).  The count and a malloc'd array
 * in *out, or -errno.
 */
int parttable_read(struct fsc_dev *dev, struct fsc_partition **out);

/*
 * The next bytes of the window at or after off that may hold data: *data
 * (the window's size when only a hole is left) up to *end, from the
 * image's holes (SEEK_DATA, SEEK_HOLE); anything but a regular file is
 * data throughout.  Bytes in a hole read as zeros.  0 or -errno.
 */
int dev_next_data(struct fsc_dev *dev, uint64_t off, uint64_t *data, uint64_t *end);
/* The window will be read from start to end (posix_fadvise): a hint only. */
void dev_sequential(struct fsc_dev *dev);
/*
 * Reads of the window will be small and scattered (directories): no
 * readahead past what is asked (random true), or the kernel's default
 * again (false).  A hint only.
 */
void dev_random(struct fsc_dev *dev, bool random);
/*
 * fsc_dev_read, and whether the bytes came from the page cache without
 * waiting for the device: 1 (or a device in memory), 0 (read from the
 * device, or not known), or -errno.
 */
int dev_read_cached(struct fsc_dev *dev, uint64_t off, void *buf, size_t len);
/* len bytes at off will be read soon: the kernel starts reading them now (a hint only). */
void dev_willneed(struct fsc_dev *dev, uint64_t off, uint64_t len);

/*
 * Is asking ahead worth it?  On a warm page cache a hint costs a system
 * call and a walk of the cache for nothing (a tenth of a hot check); on a
 * cold or slow device it keeps several reads in flight.  The answer: did
 * any of the last 32 directory reads wait for the device (a bit each)?
 */
struct dev_warmth {
	uint32_t waited;		/* start at 1: ask ahead until reads show the cache warm */
	bool first;			/* a directory's first read is still to come: it is the one noted */
};

/* fsc_dev_read; the first read of a directory (w->first) tries the cache alone and is noted. */
static inline int dev_warmth_read(struct dev_warmth *w, struct fsc_dev *dev, uint64_t off, void *buf, size_t len)
{
	int r;

	if (!w->first)
		return fsc_dev_read(dev, off, buf, len);
	w->first = false;
	r = dev_read_cached(dev, off, buf, len);
	if (r >= 0)
		w->waited = w->waited << 1 | (r != 1);
	return r < 0 ? r : 0;
}

static inline bool dev_ask_ahead(const struct dev_warmth *w)
{
	return w->waited != 0;
}

#endif
