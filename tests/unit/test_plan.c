// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_plan.c - plans and the undo log over the fault-injecting device
 * (test_fault.c tests the device): for changes of several edits, a failed
 * read or write and a power cut before every write (torn or not, with and
 * without a volatile write cache); the undo log then restores the
 * original byte for byte, a second apply completes or writes nothing, and
 * what a cut leaves is a state the order of writes and syncs promises.
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

#include "builder.h"
#include "base/bytes.h"
#include "report/report.h"
#include "fatscope/fatscope-fault.h"
#include "write/write.h"

/* Every call a fault device logs. */
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

struct tmp {
	char dir[256];
	char undo[300], undo2[300];	/* the change's log, a second apply's */
};

static int group_setup(void **state)
{
	const char *t = getenv("TMPDIR");
	struct tmp *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->dir, sizeof(d->dir), "%s/fatscope-plan-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(d->dir)) {
		free(d);
		return -1;
	}
	snprintf(d->undo, sizeof(d->undo), "%s/undo", d->dir);
	snprintf(d->undo2, sizeof(d->undo2), "%s/undo2", d->dir);
	*state = d;
	return 0;
}

static int group_teardown(void **state)
{
	struct tmp *d = *state;

	unlink(d->undo);
	unlink(d->undo2);
	rmdir(d->dir);
	free(d);
	return 0;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

typedef int (*plan_fn)(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_plan *plan);

struct pcase {
	const char *name;
	void (*build)(struct img *im);
	plan_fn plan;
};

/* A change, planned on orig; final is orig with the whole plan applied. */
struct setup {
	const struct pcase *c;
	struct img orig;
	uint8_t *final, *work, *cut;	/* cut: a copy kept while work is changed */
	struct fsc_plan *plan;
	size_t n;
	uint64_t reads, writes, syncs;	/* of an uninterrupted apply */
	unsigned *group;		/* per edit: syncs before it in the plan */
};

/* Two images the same, byte for byte (cmocka's memory compare is slow on megabytes). */
#define assert_same(a, b, len) assert_same_at((a), (b), (len), __FILE__, __LINE__)

static void assert_same_at(const uint8_t *a, const uint8_t *b, size_t len, const char *file, int line)
{
	size_t i = 0;

	if (memcmp(a, b, len) == 0)
		return;
	while (a[i] == b[i])
		i++;
	print_error("%s:%d: images differ first at byte %zu (0x%02x, 0x%02x)\n", file, line, i, a[i], b[i]);
	fail();
}

static void copy_orig(struct setup *s)
{
	memcpy(s->work, s->orig.buf, s->orig.len);
}

/* Apply the plan to s->work over a fault device with cfg; the stats in *st. */
static int apply_fault(struct setup *s, const struct fsc_plan *plan, const struct fsc_fault_config *cfg,
		       const char *undo, struct fsc_fault_stats *st)
{
	struct fsc_dev *lower, *dev;
	int r;

	assert_int_equal(fsc_dev_open_mem_rw(s->work, s->orig.len, &lower), 0);
	assert_int_equal(fsc_dev_open_fault(lower, cfg, &dev), 0);
	r = fsc_plan_apply(dev, plan, undo);
	assert_int_equal(fsc_fault_stats(dev, st), 0);
	fsc_dev_close(dev);
	fsc_dev_close(lower);
	return r;
}

/* Undo (after a restart: a fresh device) over buf; the result of fsc_undo_apply. */
static int undo_mem(uint8_t *buf, size_t len, const char *undo)
{
	struct fsc_dev *dev;
	int r;

	assert_int_equal(fsc_dev_open_mem_rw(buf, len, &dev), 0);
	r = fsc_undo_apply(dev, undo);
	fsc_dev_close(dev);
	return r;
}

/* Watches an apply: at the first write the undo log must already restore the device. */
struct watch {
	struct evlog log;
	struct setup *s;
	const char *undo;
	int undo_at_first_write;
	bool seen_write;
};

static void watch_event(void *ctx, const struct fsc_fault_event *ev)
{
	struct watch *w = ctx;

	record(&w->log, ev);
	if (ev->op == FSC_FAULT_WRITE && !w->seen_write) {
		uint8_t *copy = img_buf_alloc(w->s->orig.len, false);

		w->seen_write = true;
		if (!copy)
			return;
		memcpy(copy, w->s->work, w->s->orig.len);	/* the first edit is on the device */
		w->undo_at_first_write = undo_mem(copy, w->s->orig.len, w->undo);
		if (memcmp(copy, w->s->orig.buf, w->s->orig.len) != 0)
			w->undo_at_first_write = -EBADMSG;
		free(copy);
	}
}

/*
 * The writer's order, from the log of an uninterrupted apply: every read
 * first, then per edit a sync when it asks for one and its write, then a
 * final sync and a read of each edit's bytes; the undo log restores the
 * device from the first write on.
 */
static void check_order(struct setup *s, const struct watch *w)
{
	size_t at = s->reads;

	assert_true(w->log.n <= MAX_EVENTS);
	for (size_t i = 0; i < at; i++)
		assert_int_equal(w->log.v[i].op, FSC_FAULT_READ);
	for (size_t i = 0; i < s->n; i++) {
		const struct fsc_edit *e = fsc_plan_edit(s->plan, i);

		if (e->sync_before)
			assert_int_equal(w->log.v[at++].op, FSC_FAULT_SYNC);
		assert_int_equal(w->log.v[at].op, FSC_FAULT_WRITE);
		assert_int_equal(w->log.v[at].offset, e->offset);
		assert_int_equal(w->log.v[at++].len, e->len);
	}
	assert_int_equal(w->log.v[at++].op, FSC_FAULT_SYNC);
	/* then every edit read back, and nothing more */
	for (size_t i = 0; i < s->n; i++)
		assert_int_equal(w->log.v[at++].op, FSC_FAULT_READ);
	assert_int_equal(at, w->log.n);
	assert_int_equal(w->undo_at_first_write, (int)s->n);
}

static void setup_case(struct setup *s, const struct pcase *c, struct tmp *t)
{
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct watch w = { .s = s, .undo = t->undo };
	unsigned g = 0;

	unlink(t->undo);	/* left by a test that failed */
	unlink(t->undo2);
	memset(s, 0, sizeof(*s));
	s->c = c;
	c->build(&s->orig);
	s->plan = fsc_plan_new();
	assert_non_null(s->plan);
	assert_int_equal(fsc_dev_open_mem(s->orig.buf, s->orig.len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	assert_int_equal(c->plan(dev, p, s->plan), 0);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	s->n = fsc_plan_count(s->plan);
	assert_true(s->n >= 3);				/* several edits */
	s->group = calloc(s->n, sizeof(*s->group));
	s->final = img_buf_alloc(s->orig.len, false);	/* (huge pages: page faults were this test's cost) */
	s->work = img_buf_alloc(s->orig.len, false);
	s->cut = img_buf_alloc(s->orig.len, false);
	assert_non_null(s->cut);
	assert_non_null(s->group);
	assert_non_null(s->final);
	assert_non_null(s->work);
	for (size_t i = 0; i < s->n; i++)
		s->group[i] = g += fsc_plan_edit(s->plan, i)->sync_before;
	fsc_fault_config_init(&cfg);
	cfg.log = watch_event;
	cfg.ctx = &w;
	copy_orig(s);
	assert_int_equal(apply_fault(s, s->plan, &cfg, t->undo, &st), 0);
	s->reads = st.reads - s->n;	/* before the writes; the n after read them back */
	s->writes = st.writes;
	s->syncs = st.syncs;
	assert_int_equal(s->writes, s->n);
	check_order(s, &w);
	memcpy(s->final, s->work, s->orig.len);
	assert_int_equal(unlink(t->undo), 0);
}

static void free_case(struct setup *s)
{
	fsc_plan_free(s->plan);
	free(s->group);
	free(s->final);
	free(s->work);
	free(s->cut);
	img_free(&s->orig);
}

/*
 * After an interrupted apply (s->work): (i) the undo log restores the
 * original byte for byte, and (ii) applying the plan again completes to
 * the uninterrupted result when nothing had been written, and otherwise
 * is refused as stale without writing a byte or creating its undo log.
 */
static void check_after(struct setup *s, struct tmp *t)
{
	size_t len = s->orig.len;
	uint8_t *cut = s->cut;
	struct fsc_dev *dev;
	int r;

	memcpy(cut, s->work, len);
	assert_int_equal(fsc_dev_open_mem_rw(s->work, len, &dev), 0);
	r = fsc_plan_apply(dev, s->plan, t->undo2);
	fsc_dev_close(dev);
	if (memcmp(cut, s->orig.buf, len) == 0) {
		assert_int_equal(r, 0);
		assert_same(s->work, s->final, len);
		assert_int_equal(unlink(t->undo2), 0);
	} else {
		assert_int_equal(r, -ESTALE);
		assert_same(s->work, cut, len);
		assert_false(exists(t->undo2));
	}
	memcpy(s->work, cut, len);
	assert_int_equal(undo_mem(s->work, len, t->undo), (int)s->n);
	assert_same(s->work, s->orig.buf, len);
	assert_int_equal(unlink(t->undo), 0);
}

/* Cut the power before write k, for every k, whole or torn in the middle. */
static void run_cuts(struct setup *s, struct tmp *t)
{
	for (uint64_t k = 0; k <= s->writes; k++) {
		for (int torn = 0; torn < 2; torn++) {
			struct fsc_fault_config cfg;
			struct fsc_fault_stats st;
			int r;

			fsc_fault_config_init(&cfg);
			cfg.cut_write = k;
			if (torn && k < s->n)
				cfg.torn = fsc_plan_edit(s->plan, k)->len / 2;
			if (torn && !cfg.torn)
				continue;
			copy_orig(s);
			r = apply_fault(s, s->plan, &cfg, t->undo, &st);
			assert_int_equal(r, k == s->writes ? 0 : -EIO);
			assert_int_equal(st.cut, k < s->writes);
			if (k == 0 && !torn)
				assert_same(s->work, s->orig.buf, s->orig.len);
			if (k == s->writes)
				assert_same(s->work, s->final, s->orig.len);
			check_after(s, t);
		}
	}
}

/* The k-th read or the k-th write fails: an error, and the undo log (when written) restores. */
static void run_failures(struct setup *s, struct tmp *t)
{
	for (uint64_t k = 0; k < s->reads + s->writes; k++) {
		struct fsc_fault_config cfg;
		struct fsc_fault_stats st;

		fsc_fault_config_init(&cfg);
		if (k < s->reads)
			cfg.fail_read = k;
		else
			cfg.fail_write = k - s->reads;
		copy_orig(s);
		assert_int_equal(apply_fault(s, s->plan, &cfg, t->undo, &st), -EIO);
		if (k < s->reads) {	/* while verifying: nothing written, no log */
			assert_same(s->work, s->orig.buf, s->orig.len);
			assert_false(exists(t->undo));
			assert_int_equal(st.writes, 0);
			continue;
		}
		assert_int_equal(st.writes, k - s->reads + 1);	/* stopped at the failed write */
		check_after(s, t);
	}
	for (uint64_t k = 0; k < s->n; k++) {	/* a read-back fails: an error, everything written */
		struct fsc_fault_config cfg;
		struct fsc_fault_stats st;

		fsc_fault_config_init(&cfg);
		cfg.fail_read = s->reads + k;
		copy_orig(s);
		assert_int_equal(apply_fault(s, s->plan, &cfg, t->undo, &st), -EIO);
		assert_int_equal(st.writes, s->n);
		assert_same(s->work, s->final, s->orig.len);
		unlink(t->undo);
	}
}

/*
 * The undo's order: its reads, then the old bytes of each edit, last
 * first, with a sync after those of an edit the change synced before (it
 * ends a stretch the change had ordered after the ones before), and a
 * final sync.
 */
static void check_undo_order(const struct setup *s, const struct evlog *l, bool synced)
{
	size_t at = 0;

	assert_true(l->n <= MAX_EVENTS);
	while (at < l->n && l->v[at].op == FSC_FAULT_READ)
		at++;
	for (size_t i = s->n; i-- > 0;) {
		const struct fsc_edit *e = fsc_plan_edit(s->plan, i);

		assert_int_equal(l->v[at].op, FSC_FAULT_WRITE);
		assert_int_equal(l->v[at].offset, e->offset);
		assert_int_equal(l->v[at++].len, e->len);
		if (synced && e->sync_before && i > 0)
			assert_int_equal(l->v[at++].op, FSC_FAULT_SYNC);
	}
	assert_int_equal(l->v[at++].op, FSC_FAULT_SYNC);
	assert_int_equal(at, l->n);
}

/* An undo cut short at each of its writes, or failing a read, is run again and restores. */
static void run_undo_cuts(struct setup *s, struct tmp *t)
{
	size_t len = s->orig.len;

	for (uint64_t k = 0; k <= s->n + 1; k++) {
		struct fsc_fault_config cfg;
		struct fsc_fault_stats st;
		struct fsc_dev *lower, *dev;
		struct evlog log = { .n = 0 };
		int r;

		fsc_fault_config_init(&cfg);
		cfg.log = record;
		cfg.ctx = &log;
		if (k < s->n)
			cfg.cut_write = k;
		else if (k == s->n)
			cfg.fail_read = 0;
		cfg.torn = k < s->n ? fsc_plan_edit(s->plan, s->n - 1 - k)->len / 2 : 0;
		copy_orig(s);
		assert_int_equal(apply_fault(s, s->plan, NULL, t->undo, &st), 0);
		assert_int_equal(fsc_dev_open_mem_rw(s->work, len, &lower), 0);
		assert_int_equal(fsc_dev_open_fault(lower, &cfg, &dev), 0);
		r = fsc_undo_apply(dev, t->undo);
		fsc_dev_close(dev);
		fsc_dev_close(lower);
		if (k < s->n) {
			assert_int_equal(r, -EIO);
		} else if (k == s->n) {			/* a read failed: nothing written */
			assert_int_equal(r, -EIO);
			assert_same(s->work, s->final, len);
		} else {
			assert_int_equal(r, (int)s->n);
			check_undo_order(s, &log, true);
		}
		assert_int_equal(undo_mem(s->work, len, t->undo), (int)s->n);	/* again */
		assert_same(s->work, s->orig.buf, len);
		assert_int_equal(unlink(t->undo), 0);
	}
}

static void overlay(uint8_t *buf, uint64_t boff, size_t blen, const struct fsc_edit *e)
{
	for (size_t k = 0; k < e->len; k++)
		if (e->offset + k >= boff && e->offset + k < boff + blen)
			buf[e->offset + k - boff] = e->data[k];
}

/* Does img hold, over every range, orig with the edits of groups before g and those of keep in group g? */
static bool holds_state(const struct setup *s, const uint8_t *img, unsigned g, uint64_t keep)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct fsc_edit *e = fsc_plan_edit(s->plan, i);
		uint8_t *buf = malloc(e->len);
		size_t first = 0;
		bool same;

		assert_non_null(buf);
		memcpy(buf, s->orig.buf + e->offset, e->len);
		while (s->group[first] < g)
			first++;
		for (size_t j = 0; j < s->n; j++)
			if (s->group[j] < g || (s->group[j] == g && j - first < 64 && (keep >> (j - first)) & 1))
				overlay(buf, e->offset, e->len, fsc_plan_edit(s->plan, j));
		same = memcmp(buf, img + e->offset, e->len) == 0;
		free(buf);
		if (!same)
			return false;
	}
	return true;
}

/*
 * Is img a state the order promises: the edits before some sync all
 * there, none after the next, and of those between any subset?  Bytes
 * outside the ranges are the original's.
 */
static bool ordered_state(const struct setup *s, const uint8_t *img)
{
	for (size_t b = 0; b < s->orig.len; b++) {
		bool inside = false;

		if (b % 4096 == 0 && s->orig.len - b >= 4096 && memcmp(img + b, s->orig.buf + b, 4096) == 0) {
			b += 4095;
			continue;
		}
		if (img[b] == s->orig.buf[b])
			continue;
		for (size_t i = 0; i < s->n && !inside; i++) {
			const struct fsc_edit *e = fsc_plan_edit(s->plan, i);

			inside = b >= e->offset && b - e->offset < e->len;
		}
		if (!inside)
			return false;
	}
	for (unsigned g = 0; g <= s->group[s->n - 1]; g++) {
		size_t m = 0;

		for (size_t i = 0; i < s->n; i++)
			m += s->group[i] == g;
		for (uint64_t keep = 0; keep < (1ull << m); keep++)
			if (holds_state(s, img, g, keep))
				return true;
	}
	return false;
}

/*
 * What an exFAT change promises at any cut: one boot region at least
 * with a valid checksum, and while VolumeDirty is clear a volume that
 * checks clean but for the boot regions being between two serials.
 */
static bool exfat_sound(const struct setup *s, const uint8_t *img)
{
	size_t ss = s->orig.ss;
	bool main_ok = fsc_exfat_boot_checksum(img, ss) == get_le32(img, 11 * ss);
	bool backup_ok = fsc_exfat_boot_checksum(img + 12 * ss, ss) == get_le32(img, 23 * ss);
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_findings fs = { 0 };
	bool ok = true;

	if (!main_ok && !backup_ok)
		return false;
	if (get_le16(img, 106) & 2)
		return true;
	assert_int_equal(fsc_dev_open_mem(img, s->orig.len, &dev), 0);
	assert_int_equal(fsc_probe_volume(dev, &p), 0);
	if (fsc_probe_type(p) == FSC_TYPE_EXFAT)
		fsc_check(dev, p, NULL, &fs, &sum);
	for (size_t i = 0; i < fs.n; i++) {
		enum fsc_problem id = fs.v[i].id;

		if (id != FSC_PR_EXFAT_BOOT_CHECKSUM && id != FSC_PR_EXFAT_BACKUP_CHECKSUM &&
		    id != FSC_PR_EXFAT_BACKUP_DIFFERS)
			ok = false;
	}
	finding_list_clear(&fs);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	return ok;
}

/*
 * With a volatile cache, cut the power before every write and every sync
 * of plan, keeping every subset of the writes the cache held: the undo
 * log restores the original each time.  Returns how many of the states
 * were not ordered (the plan's own order) or not sound (exFAT).
 */
static unsigned run_volatile(struct setup *s, struct tmp *t, const struct fsc_plan *plan, bool exfat)
{
	uint64_t points = s->writes + s->syncs;
	unsigned bad = 0;

	for (uint64_t c = 0; c < points; c++) {
		uint64_t masks = 1;

		for (uint64_t keep = 0; keep < masks; keep++) {
			struct fsc_fault_config cfg;
			struct fsc_fault_stats st;

			fsc_fault_config_init(&cfg);
			cfg.volatile_cache = true;
			cfg.cache_keep = keep;
			if (c < s->writes)
				cfg.cut_write = c;
			else
				cfg.cut_sync = c - s->writes;
			copy_orig(s);
			assert_int_equal(apply_fault(s, plan, &cfg, t->undo, &st), -EIO);
			assert_true(st.cut);
			if (keep == 0) {		/* the first run says how many the cache held */
				assert_true(st.lost < 12);
				masks = 1ull << st.lost;
			}
			if ((plan == s->plan && !ordered_state(s, s->work)) || (exfat && !exfat_sound(s, s->work)))
				bad++;
			assert_int_equal(undo_mem(s->work, s->orig.len, t->undo), (int)s->n);
			assert_same(s->work, s->orig.buf, s->orig.len);
			assert_int_equal(unlink(t->undo), 0);
		}
	}
	return bad;
}

/* The whole undo log file, or its length in *len. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static uint32_t crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/*
 * An undo refuses a device that changed since (a byte no run of the
 * change could leave), a damaged log, and a log made for another window;
 * a log without the sync bits (as written before they were recorded)
 * still restores, without the syncs.
 */
static void run_undo_refusals(struct setup *s, struct tmp *t)
{
	const struct fsc_edit *e = fsc_plan_edit(s->plan, 1);
	struct fsc_fault_config cfg;
	struct fsc_fault_stats st;
	struct fsc_dev *dev, *lower;
	struct evlog log = { .n = 0 };
	size_t len, pos = 36;
	uint8_t *u, v = 0;

	fsc_fault_config_init(&cfg);
	cfg.cut_write = 2;				/* edits 0 and 1 written */
	copy_orig(s);
	assert_int_equal(apply_fault(s, s->plan, &cfg, t->undo, &st), -EIO);
	while (v == e->old[0] || v == e->data[0])
		v++;
	s->work[e->offset] = v;				/* someone wrote there since */
	memcpy(s->cut, s->work, s->orig.len);
	assert_int_equal(undo_mem(s->work, s->orig.len, t->undo), -ESTALE);
	assert_same(s->work, s->cut, s->orig.len);
	s->work[e->offset] = e->data[0];
	assert_int_equal(fsc_dev_open_mem_rw(s->work, s->orig.len, &dev), 0);
	assert_int_equal(fsc_dev_set_window(dev, 512, 0), 0);
	assert_int_equal(fsc_undo_apply(dev, t->undo), -EINVAL);	/* another window */
	fsc_dev_close(dev);

	u = slurp(t->undo, &len);
	u[len / 2] ^= 0x40;				/* damaged */
	spill(t->undo, u, len);
	assert_int_equal(undo_mem(s->work, s->orig.len, t->undo), -EINVAL);
	u[len / 2] ^= 0x40;
	for (size_t i = 0; i < s->n; i++) {		/* no sync bits */
		uint32_t l = get_le32(u, pos + 8) & 0x7FFFFFFFu;

		assert_int_equal(l, fsc_plan_edit(s->plan, i)->len);
		put_le32(u, pos + 8, l);
		pos += 12 + 2 * (size_t)l;
	}
	put_le32(u, len - 4, crc32(u, len - 4));
	spill(t->undo, u, len);
	cfg.cut_write = FSC_FAULT_NEVER;
	cfg.log = record;
	cfg.ctx = &log;
	assert_int_equal(fsc_dev_open_mem_rw(s->work, s->orig.len, &lower), 0);
	assert_int_equal(fsc_dev_open_fault(lower, &cfg, &dev), 0);
	assert_int_equal(fsc_undo_apply(dev, t->undo), (int)s->n);
	fsc_dev_close(dev);
	fsc_dev_close(lower);
	check_undo_order(s, &log, false);
	assert_same(s->work, s->orig.buf, s->orig.len);
	assert_int_equal(unlink(t->undo), 0);
	free(u);
}

/* ---- the changes ---- */

static int plan_exfat_label_serial(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl)
{
	char err[200];
	int r = fsc_plan_label(d, p, "Été 2020", 1577934245, pl, err, sizeof(err));

	return r ? r : fsc_plan_serial(d, p, 0xCAFEF00D, pl, err, sizeof(err));
}

static int plan_exfat_label_guid(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl)
{
	static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	char err[200];
	int r = fsc_plan_label(d, p, "BOTH", 1577934245, pl, err, sizeof(err));

	return r ? r : fsc_plan_guid(d, p, guid, pl, err, sizeof(err));
}

static int plan_fat_label_serial(struct fsc_dev *d, const struct fsc_probe *p, struct fsc_plan *pl)
{
	char err[200];
	int r = fsc_plan_label(d, p, "new label", 1577934245, pl, err, sizeof(err));

	return r ? r : fsc_plan_serial(d, p, 0x0BADF00D, pl, err, sizeof(err));
}

/* exFAT, 512-byte clusters, a root without a free slot or a label: the label and GUID grow it. */
static void build_full_root(struct img *im)
{
	build_exfat(im, 2 << 20, 9, 0);
	for (unsigned i = 3; i < im->cb / 32; i++)
		exfat_root_entry(im, i)[0] = 0xA1;
	exfat_root_entry(im, 0)[0] = 0xA1;
}

static void build_fat12(struct img *im)
{
	build_fat(im, 12);
}

static void build_fat32(struct img *im)
{
	build_fat(im, 32);
}

static const struct pcase cases[] = {
	{ "exFAT label and serial", build_exfat_tree, plan_exfat_label_serial },
	{ "exFAT label and GUID, root grown", build_full_root, plan_exfat_label_guid },
	{ "FAT12 label and serial", build_fat12, plan_fat_label_serial },
	{ "FAT32 label and serial, backup boot sector", build_fat32, plan_fat_label_serial },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Every cut, torn or not; every failed read and write; every undo cut short. */
static void test_plan_cuts(void **state)
{
	for (size_t c = 0; c < NCASES; c++) {
		struct setup s;

		print_message("%s\n", cases[c].name);
		setup_case(&s, &cases[c], *state);
		run_cuts(&s, *state);
		run_failures(&s, *state);
		run_undo_cuts(&s, *state);
		run_undo_refusals(&s, *state);
		free_case(&s);
	}
}

/*
 * A volatile cache: every state left is one the order promises, and the
 * exFAT changes stay sound; without their syncs, some states are not.
 */
static void test_plan_volatile(void **state)
{
	for (size_t c = 0; c < NCASES; c++) {
		bool exfat = cases[c].plan != plan_fat_label_serial;
		struct setup s;

		print_message("%s\n", cases[c].name);
		setup_case(&s, &cases[c], *state);
		assert_int_equal(run_volatile(&s, *state, s.plan, exfat), 0);
		if (exfat) {
			struct fsc_plan *nosync = fsc_plan_new();

			for (size_t i = 0; i < s.n; i++) {
				const struct fsc_edit *e = fsc_plan_edit(s.plan, i);

				assert_int_equal(fsc_plan_add(nosync, e->offset, e->old, e->data, e->len, e->why, false), 0);
			}
			s.syncs = 1;
			assert_true(run_volatile(&s, *state, nosync, true) > 0);
			fsc_plan_free(nosync);
		}
		free_case(&s);
	}
}

/* A plan whose undo log fsc_undo_apply would not read back is refused before anything is written. */
static void test_plan_too_big(void **state)
{
	struct tmp *t = *state;
	size_t len = (32u << 20) + 1;
	uint8_t *buf = img_buf_alloc(len, true), *ones = img_buf_alloc(len, false);
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;

	assert_non_null(buf);
	assert_non_null(ones);
	memset(ones, 1, len);
	assert_int_equal(fsc_plan_add(plan, 0, buf, ones, len, "everything", false), 0);
	assert_int_equal(fsc_dev_open_mem_rw(buf, len, &dev), 0);
	assert_int_equal(fsc_plan_apply(dev, plan, t->undo), -EFBIG);
	assert_false(exists(t->undo));
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[len - 1], 0);
	fsc_dev_close(dev);
	fsc_plan_free(plan);
	free(ones);
	free(buf);
}

/*
 * plan_put plans only the bytes that change: a 32 MiB cluster written for
 * three bytes of entries is a three-byte edit, whose undo log a repair
 * can keep (a volume of 32 MiB clusters could not be repaired with an
 * undo log: salvage seed 41, pop-c32m #29).
 */
static void test_plan_put_changed(void **state)
{
	size_t len = 32u << 20;
	uint8_t *buf = img_buf_alloc(len, true), *data = img_buf_alloc(len, true);
	struct fsc_plan *plan = fsc_plan_new();
	struct fsc_dev *dev;

	(void)state;
	assert_non_null(buf);
	assert_non_null(data);
	memcpy(data + 100, "abc", 3);
	assert_int_equal(fsc_dev_open_mem(buf, len, &dev), 0);
	assert_int_equal(plan_put(dev, plan, 4096, data, len - 4096, "a cluster", false), 0);
	assert_int_equal(fsc_plan_count(plan), 1);
	assert_int_equal(fsc_plan_edit(plan, 0)->offset, 4096 + 100);
	assert_int_equal(fsc_plan_edit(plan, 0)->len, 3);
	assert_memory_equal(fsc_plan_edit(plan, 0)->data, "abc", 3);
	assert_int_equal(plan_put(dev, plan, 4096, data, len - 4096, "the same again", false), 0);
	assert_int_equal(fsc_plan_count(plan), 1);	/* nothing changes: no edit */
	fsc_dev_close(dev);
	fsc_plan_free(plan);
	free(data);
	free(buf);
}

int unit_plan(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_cuts),
		cmocka_unit_test(test_plan_volatile),
		cmocka_unit_test(test_plan_too_big),
		cmocka_unit_test(test_plan_put_changed),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
