// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault.c - the fault-injecting backend: a device over another one that
 * fails the k-th read or write with -EIO, or cuts the power before the
 * k-th write or sync, and counts and logs every call.
 *
 * Consumes: a lower device (its window is this device's whole) and a
 * fault configuration.  Produces: a device for tests of the writer, the
 * undo log and repairs.  A cut makes that write and every later write and
 * sync fail with -EIO without changing anything; with a volatile cache the
 * writes since the last successful sync are undone at the cut as well,
 * except those the configuration keeps (a cache that wrote some of them
 * back, in any order).  Reads go on after the cut and see what survived.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/io.h"
#include "fatscope/fatscope-fault.h"

/* A write since the last sync: what it replaced, for the cut to put back. */
struct pending {
	uint64_t off;
	size_t len;
	uint8_t *old, *new;
};

struct fault_dev {
	struct fsc_dev *lower;
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st;
	struct pending *v;
	size_t n, cap;
};

static const struct dev_ops fault_ops;

static void note(struct fault_dev *f, enum fsc_fault_op op, uint64_t index, uint64_t off, size_t len, int result)
{
	struct fsc_fault_event ev = { op, index, off, len, result };

	if (f->cfg.log)
		f->cfg.log(f->cfg.ctx, &ev);
}

static void pending_clear(struct fault_dev *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].old);
	f->n = 0;
}

/* Remember what a write at off is about to replace. */
static int pending_add(struct fault_dev *f, uint64_t off, const void *buf, size_t len)
{
	struct pending *p;
	int r;

	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;

		p = realloc(f->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->v = p;
		f->cap = cap;
	}
	p = &f->v[f->n];
	p->old = malloc(2 * len + 1);
	if (!p->old)
		return -ENOMEM;
	p->new = p->old + len;
	r = fsc_dev_read(f->lower, off, p->old, len);
	if (r < 0) {
		free(p->old);
		return r;
	}
	memcpy(p->new, buf, len);
	p->off = off;
	p->len = len;
	f->n++;
	return 0;
}

/* Write through to the lower device, remembered when the cache is volatile. */
static int pass_write(struct fault_dev *f, uint64_t off, const void *buf, size_t len)
{
	int r = f->cfg.volatile_cache ? pending_add(f, off, buf, len) : 0;

	return r < 0 ? r : fsc_dev_write(f->lower, off, buf, len);
}

/*
 * Power off.  A volatile cache loses the writes since the last sync: put
 * back what they replaced, last first, then lay the kept ones over again
 * in their order.
 */
static int cut(struct fault_dev *f)
{
	uint64_t lost = 0;
	int r = 0;

	if (f->st.cut)
		return 0;
	f->st.cut = true;
	for (size_t i = f->n; r == 0 && i-- > 0;)
		r = fsc_dev_write(f->lower, f->v[i].off, f->v[i].old, f->v[i].len);
	for (size_t i = 0; r == 0 && i < f->n; i++) {
		if (i < 64 && (f->cfg.cache_keep >> i) & 1)
			r = fsc_dev_write(f->lower, f->v[i].off, f->v[i].new, f->v[i].len);
		else
			lost++;
	}
	pending_clear(f);
	f->st.lost = lost;
	note(f, FSC_FAULT_CUT, f->st.writes, 0, (size_t)lost, r);
	return r < 0 ? r : (int)(lost > INT32_MAX ? INT32_MAX : lost);
}

static int fault_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	struct fault_dev *f = d->priv;
	uint64_t i = f->st.reads++;
	int r;

	if (f->cfg.read_delay_us) {
		struct timespec ts = { f->cfg.read_delay_us / 1000000, (long)(f->cfg.read_delay_us % 1000000) * 1000 };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	r = i == f->cfg.fail_read ? -EIO : fsc_dev_read(f->lower, off, buf, len);

	note(f, FSC_FAULT_READ, i, off, len, r);
	return r;
}

static int fault_write(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	struct fault_dev *f = d->priv;
	uint64_t i = f->st.writes;
	int r = -EIO;

	if (!f->st.cut && i == f->cfg.cut_write) {
		if (f->cfg.torn)	/* the head of this write lands before the power goes */
			r = pass_write(f, off, buf, len < f->cfg.torn ? len : f->cfg.torn);
		cut(f);
		r = r < 0 && r != -EIO ? r : -EIO;
	} else if (!f->st.cut && i != f->cfg.fail_write) {
		r = pass_write(f, off, buf, len);
	}
	f->st.writes++;
	note(f, FSC_FAULT_WRITE, i, off, len, r);
	return r;
}

static int fault_sync(struct fsc_dev *d)
{
	struct fault_dev *f = d->priv;
	uint64_t i = f->st.syncs++;
	int r = -EIO;

	if (!f->st.cut && i == f->cfg.cut_sync)
		cut(f);
	else if (!f->st.cut)
		r = fsc_dev_sync(f->lower);
	if (r == 0)
		pending_clear(f);	/* on stable storage now */
	note(f, FSC_FAULT_SYNC, i, 0, 0, r);
	return r;
}

static void fault_close(struct fsc_dev *d)
{
	struct fault_dev *f = d->priv;

	pending_clear(f);
	free(f->v);
	free(f);
}

static const struct dev_ops fault_ops = {
	.name = "fault",
	.read = fault_read,
	.write = fault_write,
	.sync = fault_sync,
	.close = fault_close,
};

FSC_EXPORT void fsc_fault_config_init(struct fsc_fault_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fail_read = cfg->fail_write = cfg->cut_write = cfg->cut_sync = FSC_FAULT_NEVER;
}

FSC_EXPORT int fsc_dev_open_fault(struct fsc_dev *lower, const struct fsc_fault_config *cfg, struct fsc_dev **out)
{
	struct fault_dev *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f || !(*out = dev_new(&fault_ops, f, fsc_dev_size(lower)))) {
		free(f);
		return -ENOMEM;
	}
	f->lower = lower;
	if (cfg)
		f->cfg = *cfg;
	else
		fsc_fault_config_init(&f->cfg);
	(*out)->writable = lower->writable;
	(*out)->sector_size = lower->sector_size;
	(*out)->container = lower->container;
	return 0;
}

FSC_EXPORT int fsc_fault_stats(const struct fsc_dev *dev, struct fsc_fault_stats *out)
{
	if (dev->ops != &fault_ops)
		return -EINVAL;
	*out = ((const struct fault_dev *)dev->priv)->st;
	return 0;
}

FSC_EXPORT int fsc_fault_cut(struct fsc_dev *dev)
{
	if (dev->ops != &fault_ops)
		return -EINVAL;
	return cut(dev->priv);
}
