// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fault.c - the fault-injecting device: counting and logging, the
 * window, one failed read or write, a power cut (torn or not) and a
 * volatile write cache.  test_plan.c runs plans and the undo log over it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "fatscope/fatscope-fault.h"

#define MAX_EVENTS 256

struct evlog {
	struct fsc_fault_event v[MAX_EVENTS];
	size_t n;
};

static void record(void *ctx, const struct fsc_fault_event *ev)
{
	struct evlog *l = ctx;

	if (l->n < MAX_EVENTS)
		l->v[l->n] = *ev;
	l->n++;
}

static void assert_event(const struct evlog *l, size_t i, enum fsc_fault_op op, uint64_t index, uint64_t off,
			 size_t len, int result)
{
	assert_true(i < l->n);
	assert_int_equal(l->v[i].op, op);
	assert_int_equal(l->v[i].index, index);
	assert_int_equal(l->v[i].offset, off);
	assert_int_equal(l->v[i].len, len);
	assert_int_equal(l->v[i].result, result);
}

/* A fault device over a writable memory device of 8 KiB filled with 0xEE. */
struct rig {
	uint8_t mem[8192];
	struct fsc_dev *lower, *dev;
	struct evlog log;
};

static void rig_open(struct rig *g, struct fsc_fault_config *cfg)
{
	memset(g->mem, 0xEE, sizeof(g->mem));
	g->log.n = 0;
	cfg->log = record;
	cfg->ctx = &g->log;
	assert_int_equal(fsc_dev_open_mem_rw(g->mem, sizeof(g->mem), &g->lower), 0);
	assert_int_equal(fsc_dev_open_fault(g->lower, cfg, &g->dev), 0);
}

static void rig_close(struct rig *g)
{
	fsc_dev_close(g->dev);
	fsc_dev_close(g->lower);
}

static const uint8_t *fill(uint8_t *buf, uint8_t v, size_t len)
{
	memset(buf, v, len);
	return buf;
}

/* Every call is counted and logged in order, with its offset, length and result. */
static void test_fault_counts(void **state)
{
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st = { 0 };
	struct rig g;
	uint8_t b[512];
	const uint8_t *m;

	(void)state;
	fsc_fault_config_init(&cfg);
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_size(g.dev), sizeof(g.mem));
	assert_int_equal(fsc_dev_fd(g.dev), -1);
	assert_int_equal(fsc_dev_read(g.dev, 0, b, 16), 0);
	assert_int_equal(fsc_dev_write(g.dev, 512, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_sync(g.dev), 0);
	assert_int_equal(fsc_dev_map(g.dev, 1000, 24, &m), 0);	/* a read too, into a buffer */
	assert_int_equal(m[0], 1);
	assert_int_equal(fsc_dev_write(g.dev, 8000, fill(b, 2, 192), 192), 0);
	assert_int_equal(fsc_dev_read(g.dev, 8000, b, 193), -ENXIO);	/* outside: not passed on */
	assert_int_equal(fsc_fault_stats(g.dev, &st), 0);
	assert_int_equal(st.reads, 2);
	assert_int_equal(st.writes, 2);
	assert_int_equal(st.syncs, 1);
	assert_false(st.cut);
	assert_int_equal(g.log.n, 5);
	assert_event(&g.log, 0, FSC_FAULT_READ, 0, 0, 16, 0);
	assert_event(&g.log, 1, FSC_FAULT_WRITE, 0, 512, 512, 0);
	assert_event(&g.log, 2, FSC_FAULT_SYNC, 0, 0, 0, 0);
	assert_event(&g.log, 3, FSC_FAULT_READ, 1, 1000, 24, 0);
	assert_event(&g.log, 4, FSC_FAULT_WRITE, 1, 8000, 192, 0);
	assert_int_equal(g.mem[511], 0xEE);
	assert_int_equal(g.mem[512], 1);
	assert_int_equal(g.mem[8191], 2);
	assert_int_equal(fsc_fault_stats(g.lower, &st), -EINVAL);
	assert_int_equal(fsc_fault_cut(g.lower), -EINVAL);
	rig_close(&g);
}

/* The window of the fault device, read-only lowers, and sizes carried over. */
static void test_fault_window(void **state)
{
	uint8_t mem[4096], b[8];
	struct fsc_dev *lower, *dev;

	(void)state;
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)i;
	assert_int_equal(fsc_dev_open_mem(mem, sizeof(mem), &lower), 0);
	assert_int_equal(fsc_dev_set_window(lower, 1024, 2048), 0);
	assert_int_equal(fsc_dev_set_sector_size(lower, 1024), 0);
	assert_int_equal(fsc_dev_open_fault(lower, NULL, &dev), 0);
	assert_int_equal(fsc_dev_size(dev), 2048);
	assert_int_equal(fsc_dev_sector_size(dev), 1024);
	assert_int_equal(fsc_dev_set_window(dev, 512, 512), 0);
	assert_int_equal(fsc_dev_read(dev, 0, b, 8), 0);	/* byte 1024 + 512 of mem */
	assert_int_equal(b[0], (uint8_t)(1536 & 0xFF));
	assert_int_equal(b[7], (uint8_t)(1543 & 0xFF));
	assert_int_equal(fsc_dev_read(dev, 510, b, 4), -ENXIO);
	assert_int_equal(fsc_dev_write(dev, 0, b, 1), -EBADF);	/* the lower is read-only */
	fsc_dev_close(dev);
	fsc_dev_close(lower);
}

/* The k-th read and the k-th write fail, once, changing nothing. */
static void test_fault_fail_one(void **state)
{
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st = { 0 };
	struct rig g;
	uint8_t b[64];
	const uint8_t *m;

	(void)state;
	fsc_fault_config_init(&cfg);
	cfg.fail_read = 1;
	cfg.fail_write = 1;
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_read(g.dev, 0, b, 64), 0);
	fill(b, 0x55, sizeof(b));
	assert_int_equal(fsc_dev_read(g.dev, 0, b, 64), -EIO);
	assert_int_equal(b[0], 0x55);				/* nothing read */
	assert_int_equal(fsc_dev_read(g.dev, 0, b, 64), 0);
	assert_int_equal(b[0], 0xEE);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 64), 64), 0);
	assert_int_equal(fsc_dev_write(g.dev, 64, fill(b, 2, 64), 64), -EIO);
	assert_int_equal(fsc_dev_write(g.dev, 128, fill(b, 3, 64), 64), 0);
	assert_int_equal(fsc_dev_sync(g.dev), 0);
	assert_int_equal(g.mem[0], 1);
	assert_int_equal(g.mem[64], 0xEE);			/* the failed write changed nothing */
	assert_int_equal(g.mem[127], 0xEE);
	assert_int_equal(g.mem[128], 3);
	assert_event(&g.log, 1, FSC_FAULT_READ, 1, 0, 64, -EIO);
	assert_event(&g.log, 4, FSC_FAULT_WRITE, 1, 64, 64, -EIO);
	rig_close(&g);

	cfg.fail_write = FSC_FAULT_NEVER;
	cfg.fail_read = 0;					/* a mapping is a read, and fails */
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_map(g.dev, 0, 16, &m), -EIO);
	assert_int_equal(fsc_dev_map(g.dev, 0, 16, &m), 0);
	assert_int_equal(fsc_fault_stats(g.dev, &st), 0);
	assert_int_equal(st.reads, 2);
	rig_close(&g);
}

/* A cut before write k: that write and every later write and sync fail and change nothing. */
static void test_fault_cut(void **state)
{
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st = { 0 };
	struct rig g;
	uint8_t b[512];

	(void)state;
	fsc_fault_config_init(&cfg);
	cfg.cut_write = 2;
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 512, fill(b, 2, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 1024, fill(b, 3, 512), 512), -EIO);
	assert_int_equal(fsc_dev_write(g.dev, 1536, fill(b, 4, 512), 512), -EIO);
	assert_int_equal(fsc_dev_sync(g.dev), -EIO);
	assert_int_equal(fsc_dev_read(g.dev, 512, b, 512), 0);	/* reads go on */
	assert_int_equal(b[0], 2);
	assert_int_equal(g.mem[1024], 0xEE);
	assert_int_equal(g.mem[1536], 0xEE);
	assert_int_equal(fsc_fault_stats(g.dev, &st), 0);
	assert_true(st.cut);
	assert_int_equal(st.writes, 4);
	assert_int_equal(st.syncs, 1);
	assert_int_equal(st.lost, 0);
	assert_event(&g.log, 2, FSC_FAULT_CUT, 2, 0, 0, 0);
	assert_event(&g.log, 3, FSC_FAULT_WRITE, 2, 1024, 512, -EIO);
	assert_event(&g.log, 5, FSC_FAULT_SYNC, 0, 0, 0, -EIO);
	assert_int_equal(fsc_fault_cut(g.dev), 0);		/* off already */
	rig_close(&g);

	cfg.torn = 100;						/* the head of write 2 lands */
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 512, fill(b, 2, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 1024, fill(b, 3, 512), 512), -EIO);
	assert_int_equal(g.mem[1024 + 99], 3);
	assert_int_equal(g.mem[1024 + 100], 0xEE);
	rig_close(&g);
}

/*
 * A volatile cache loses the writes since the last sync at the cut, and
 * keeps those cache_keep names, laid over the synced state in order.
 */
static void test_fault_volatile(void **state)
{
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st = { 0 };
	struct rig g;
	uint8_t b[512];

	(void)state;
	fsc_fault_config_init(&cfg);
	cfg.volatile_cache = true;
	cfg.cut_write = 3;
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_sync(g.dev), 0);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 2, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 256, fill(b, 3, 512), 512), 0);
	assert_int_equal(g.mem[0], 2);				/* through to the lower device */
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 4, 512), 512), -EIO);
	assert_int_equal(g.mem[0], 1);				/* back to the synced state */
	assert_int_equal(g.mem[511], 1);
	assert_int_equal(g.mem[512], 0xEE);
	assert_int_equal(fsc_fault_stats(g.dev, &st), 0);
	assert_int_equal(st.lost, 2);
	assert_event(&g.log, 4, FSC_FAULT_CUT, 3, 0, 2, 0);
	rig_close(&g);

	cfg.cache_keep = 0x2;					/* the second unsynced write survives */
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_sync(g.dev), 0);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 2, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 256, fill(b, 3, 512), 512), 0);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 4, 512), 512), -EIO);
	assert_int_equal(g.mem[0], 1);				/* the first is lost... */
	assert_int_equal(g.mem[255], 1);
	assert_int_equal(g.mem[256], 3);			/* ...the second is not */
	assert_int_equal(g.mem[767], 3);
	assert_int_equal(g.mem[768], 0xEE);
	rig_close(&g);

	fsc_fault_config_init(&cfg);				/* a cut before a sync, and one by hand */
	cfg.volatile_cache = true;
	cfg.cut_sync = 1;
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_dev_sync(g.dev), 0);
	assert_int_equal(fsc_dev_write(g.dev, 512, fill(b, 2, 512), 512), 0);
	assert_int_equal(fsc_dev_sync(g.dev), -EIO);
	assert_int_equal(g.mem[0], 1);
	assert_int_equal(g.mem[512], 0xEE);
	rig_close(&g);
	fsc_fault_config_init(&cfg);
	cfg.volatile_cache = true;
	rig_open(&g, &cfg);
	assert_int_equal(fsc_dev_write(g.dev, 0, fill(b, 1, 512), 512), 0);
	assert_int_equal(fsc_fault_cut(g.dev), 1);
	assert_int_equal(g.mem[0], 0xEE);
	assert_int_equal(fsc_dev_write(g.dev, 0, b, 512), -EIO);
	rig_close(&g);
}

int unit_fault(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_counts),
		cmocka_unit_test(test_fault_window),
		cmocka_unit_test(test_fault_fail_one),
		cmocka_unit_test(test_fault_cut),
		cmocka_unit_test(test_fault_volatile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
