// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dirtail.c - the part of a directory past its end marker, where every
 * entry must be free (EntryType 0x00, EXSPEC 6.2.1.1).
 *
 * That part is most of the directory data: ten files take 1.3 KiB of a
 * 32 KiB cluster.  Reading it is the largest cost of a check, and it needs
 * nothing from the walk but a byte range, so the walker hands the ranges
 * over here.  They wait in a bounded ring; a second thread drains it once
 * there is enough queued to be worth a thread, and the walker takes the
 * oldest range itself whenever the ring is full or the walk is over.  The
 * answer (the first entry in use of each range, in the order the ranges
 * were added) is the same with or without the thread.
 *
 * With threads disabled (fsc_check_opts.threads 1), or when the thread
 * cannot be started, the walker does it all.  Memory: the ring (DT_RING
 * ranges, 40 KiB) and one read buffer of up to 256 KiB a thread.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check/exfat_check.h"
#include "io/io.h"

#define DT_RING 1024			/* ranges waiting */
#define DT_START_BYTES (4u << 20)	/* queued before a thread is worth starting */
#define DT_BATCH 32			/* ranges queued before a sleeping thread is woken */

struct dt_range {
	uint64_t off, len;
	uint64_t seq;
	size_t node;			/* the directory, in the walk's path table */
	uint32_t dir, cluster, entry;
};

struct dirtail {
	struct fsc_dev *dev;
	uint32_t chunk;			/* bytes read at a time */
	bool may_thread, started, done, sleeping;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;		/* to the thread: a range was added, or done */
	struct dt_range ring[DT_RING];
	size_t head, count;		/* oldest, number waiting */
	uint64_t queued_bytes, seq;
	size_t busy;			/* ranges taken and not finished */
	pthread_cond_t idle;		/* busy dropped to 0 */
	uint8_t *mybuf;			/* the walker's buffer (the thread has its own) */
	struct tail_hit *hits;
	size_t nhits, caphits;
	bool record;			/* keep the ranges found free (dirtail_record) */
	struct dt_span *spans;
	size_t nspans, capspans;
};

/* Index of the first entry of n whose EntryType is not 0x00, or n. */
uint32_t dt_first_used(const uint8_t *d, uint32_t n)
{
	uint32_t i = 0;

	/* Eight type bytes a step, no branch between them. */
	for (; i + 8 <= n; i += 8) {
		const uint8_t *p = d + 32 * i;

		if (p[0] | p[32] | p[64] | p[96] | p[128] | p[160] | p[192] | p[224])
			break;
	}
	for (; i < n; i++)
		if (d[EXFAT_ENTRY_AT(i)])
			return i;
	return n;
}

static void add_hit(struct dirtail *t, const struct dt_range *r, uint32_t i, uint8_t type)
{
	if (t->nhits == t->caphits) {
		size_t nc = t->caphits ? 2 * t->caphits : 16;
		struct tail_hit *nh = realloc(t->hits, nc * sizeof(*nh));

		if (!nh)
			return;		/* a lost hit under memory pressure; the range is still "checked" */
		t->hits = nh;
		t->caphits = nc;
	}
	t->hits[t->nhits++] = (struct tail_hit){ r->seq, r->node, r->dir, r->cluster, r->entry + i, type };
}

/* Read and scan one range; called without the lock held, which add_hit needs. */
static void scan_range(struct dirtail *t, const struct dt_range *r, uint8_t *buf)
{
	for (uint64_t at = 0; at < r->len; at += t->chunk) {
		uint32_t len = r->len - at < t->chunk ? (uint32_t)(r->len - at) : t->chunk;
		uint32_t n = len / 32, i;
		int e = fsc_dev_read(t->dev, r->off + at, buf, len);

		if (e < 0)
			return;		/* as in the walk: an unreadable cluster stops the reading */
		i = dt_first_used(buf, n);
		if (i < n) {
			struct dt_range at_r = *r;

			at_r.entry += (uint32_t)(at / 32);
			pthread_mutex_lock(&t->lock);
			add_hit(t, &at_r, i, buf[EXFAT_ENTRY_AT(i)]);
			pthread_mutex_unlock(&t->lock);
			return;		/* the first one of the range is enough */
		}
	}
	if (t->record) {
		pthread_mutex_lock(&t->lock);
		if (grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(*t->spans)))
			t->spans[t->nspans++] = (struct dt_span){ r->off, r->len };
		pthread_mutex_unlock(&t->lock);
	}
}

void dirtail_record(struct dirtail *t)
{
	t->record = true;
}

size_t dirtail_free_spans(const struct dirtail *t, const struct dt_span **out)
{
	*out = t->spans;
	return t->nspans;
}

/* Take the oldest range (lock held); false when none waits. */
static bool take(struct dirtail *t, struct dt_range *out)
{
	if (!t->count)
		return false;
	*out = t->ring[t->head];
	t->head = (t->head + 1) % DT_RING;
	t->count--;
	t->busy++;
	return true;
}

static void finished(struct dirtail *t)
{
	pthread_mutex_lock(&t->lock);
	if (--t->busy == 0)
		pthread_cond_broadcast(&t->idle);
	pthread_mutex_unlock(&t->lock);
}

static void *worker(void *arg)
{
	struct dirtail *t = arg;
	uint8_t *buf = malloc(t->chunk);
	struct dt_range r;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		if (!buf || !take(t, &r)) {
			if (t->done || !buf)
				break;
			t->sleeping = true;
			pthread_cond_wait(&t->more, &t->lock);
			t->sleeping = false;
			continue;
		}
		pthread_mutex_unlock(&t->lock);
		scan_range(t, &r, buf);
		finished(t);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	free(buf);
	return NULL;
}

struct dirtail *dirtail_new(struct fsc_dev *dev, uint32_t cluster_bytes, bool may_thread)
{
	struct dirtail *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->dev = dev;
	t->chunk = cluster_bytes < XV_DIR_CHUNK ? cluster_bytes : XV_DIR_CHUNK;
	t->may_thread = may_thread;
	t->mybuf = malloc(t->chunk);
	if (!t->mybuf || pthread_mutex_init(&t->lock, NULL)) {
		free(t->mybuf);
		free(t);
		return NULL;
	}
	pthread_cond_init(&t->more, NULL);
	pthread_cond_init(&t->idle, NULL);
	return t;
}

/* The walker does the oldest waiting range itself (lock held on entry and exit). */
static void help(struct dirtail *t)
{
	struct dt_range r;

	if (!take(t, &r))
		return;
	pthread_mutex_unlock(&t->lock);
	scan_range(t, &r, t->mybuf);
	finished(t);
	pthread_mutex_lock(&t->lock);
}

void dirtail_add(struct dirtail *t, uint64_t off, uint64_t len, size_t node, uint32_t dir,
		 uint32_t cluster, uint32_t entry, bool ahead)
{
	if (!len)
		return;
	/* Read soon, by the thread or the walker: the kernel may begin (more reads in flight on a slow device). */
	if (ahead)
		dev_willneed(t->dev, off, len);
	pthread_mutex_lock(&t->lock);
	while (t->count == DT_RING)
		help(t);
	t->ring[(t->head + t->count) % DT_RING] =
		(struct dt_range){ off, len, t->seq++, node, dir, cluster, entry };
	t->count++;
	t->queued_bytes += len;
	if (t->started) {
		/* A wake-up costs a system call on each side: wake it for a batch, not a range. */
		if (t->sleeping && t->count >= DT_BATCH)
			pthread_cond_signal(&t->more);
	} else if (t->may_thread && t->queued_bytes >= DT_START_BYTES) {
		pthread_attr_t attr;

		/* The worker needs little stack: 256 KiB, not the default 8 MiB of address space. */
		t->started = pthread_attr_init(&attr) == 0;
		if (t->started) {
			pthread_attr_setstacksize(&attr, 256 * 1024);
			t->started = pthread_create(&t->thread, &attr, worker, t) == 0;
			pthread_attr_destroy(&attr);
		}
		if (!t->started)
			t->may_thread = false;		/* the walker does it all */
	}
	pthread_mutex_unlock(&t->lock);
}

void dirtail_note(struct dirtail *t, size_t node, uint32_t dir, uint32_t cluster, uint32_t entry,
		  uint8_t type)
{
	struct dt_range r = { 0, 0, 0, node, dir, cluster, entry };

	pthread_mutex_lock(&t->lock);
	r.seq = t->seq++;
	add_hit(t, &r, 0, type);
	pthread_mutex_unlock(&t->lock);
}

static int cmp_hits(const void *a, const void *b)
{
	const struct tail_hit *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void dirtail_drop(struct dirtail *t)
{
	pthread_mutex_lock(&t->lock);
	t->head = (t->head + t->count) % DT_RING;
	t->count = 0;
	pthread_mutex_unlock(&t->lock);
}

size_t dirtail_finish(struct dirtail *t, const struct tail_hit **out)
{
	pthread_mutex_lock(&t->lock);
	while (t->count)
		help(t);
	while (t->busy)
		pthread_cond_wait(&t->idle, &t->lock);
	t->done = true;
	pthread_cond_broadcast(&t->more);
	pthread_mutex_unlock(&t->lock);
	if (t->started) {
		pthread_join(t->thread, NULL);
		t->started = false;
	}
	if (t->nhits > 1)
		qsort(t->hits, t->nhits, sizeof(*t->hits), cmp_hits);
	*out = t->hits;
	return t->nhits;
}

void dirtail_free(struct dirtail *t)
{
	if (!t)
		return;
	if (t->started) {
		const struct tail_hit *h;

		dirtail_finish(t, &h);
	}
	pthread_cond_destroy(&t->more);
	pthread_cond_destroy(&t->idle);
	pthread_mutex_destroy(&t->lock);
	free(t->mybuf);
	free(t->hits);
	free(t->spans);
	free(t);
}
