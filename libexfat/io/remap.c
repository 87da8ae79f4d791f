// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * remap.c - a read-only device that shows another one with its first len
 * bytes read from elsewhere on it (bytes src .. src + len): a volume
 * whose main boot region is destroyed, seen through its backup, so that
 * dump and fsck -n read it as the drivers would once it is restored,
 * without writing a byte.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "io/io.h"

struct remap {
	struct fsc_dev *lower;
	uint64_t len, src;
};

static int rm_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	const struct remap *m = d->priv;
	uint8_t *out = buf;
	int r;

	if (off < m->len) {
		size_t n = m->len - off < len ? (size_t)(m->len - off) : len;

		if ((r = fsc_dev_read(m->lower, m->src + off, out, n)) < 0)
			return r;
		out += n;
		off += n;
		len -= n;
	}
	return len ? fsc_dev_read(m->lower, off, out, len) : 0;
}

static int rm_write(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	(void)d, (void)off, (void)buf, (void)len;
	return -EROFS;
}

static int rm_sync(struct fsc_dev *d)
{
	(void)d;
	return 0;
}

static void rm_close(struct fsc_dev *d)
{
	free(d->priv);
}

static const struct dev_ops remap_ops = { "remap", rm_read, rm_write, rm_sync, NULL, rm_close };

struct fsc_dev *dev_remap(struct fsc_dev *lower, uint64_t len, uint64_t src)
{
	struct remap *m = malloc(sizeof(*m));
	struct fsc_dev *d;

	if (!m)
		return NULL;
	*m = (struct remap){ lower, len, src };
	d = dev_new(&remap_ops, m, fsc_dev_size(lower));
	if (!d) {
		free(m);
		return NULL;
	}
	d->sector_size = fsc_dev_sector_size(lower);
	d->container = lower->container;
	return d;
}
