// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan.c - the only way fatscope writes: a plan of byte edits (offset, old
 * bytes, new bytes, why), and the device as the plan would leave it
 * (what planners read, through an index of the pages each edit touches).
 * apply.c verifies and writes it, undo.c records and restores.
 *
 * Consumes: edits from the planners.  Produces: the plan.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/*
 * The edits touching one 4 KiB page of the device, in plan order: reads
 * through the plan lay over only the edits of the pages they touch, so a
 * read costs what overlaps it, not the whole plan (a plan of 100,000
 * edits read a thousand times is not 10^8 overlays).
 */
#define PAGE_SHIFT 12

struct page_edits {
	uint64_t key;			/* page number + 1; 0: a free slot */
	uint32_t *v;
	uint32_t n, cap;
};

struct fsc_plan {
	struct fsc_edit *v;
	size_t n, cap;
	struct page_edits *tab;		/* open addressing, a power of two in size */
	size_t tabcap, tabused;
	bool index_lost;		/* an index could not grow: reads lay over every edit */
};

static struct page_edits *page_slot(struct page_edits *tab, size_t cap, uint64_t page)
{
	size_t i = (size_t)((page * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);

	while (tab[i].key && tab[i].key != page + 1)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static struct page_edits *page_find(const struct fsc_plan *plan, uint64_t page)
{
	struct page_edits *s;

	if (!plan->tabcap)
		return NULL;
	s = page_slot(plan->tab, plan->tabcap, page);
	return s->key ? s : NULL;
}

static bool index_grow(struct fsc_plan *plan)
{
	size_t cap = plan->tabcap ? 2 * plan->tabcap : 256;
	struct page_edits *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return false;
	for (size_t i = 0; i < plan->tabcap; i++)
		if (plan->tab[i].key)
			*page_slot(tab, cap, plan->tab[i].key - 1) = plan->tab[i];
	free(plan->tab);
	plan->tab = tab;
	plan->tabcap = cap;
	return true;
}

/* Edit i (just added) noted in the pages it touches. */
static void index_add(struct fsc_plan *plan, size_t i)
{
	const struct fsc_edit *e = &plan->v[i];

	for (uint64_t p = e->offset >> PAGE_SHIFT; e->len && p <= (e->offset + e->len - 1) >> PAGE_SHIFT; p++) {
		struct page_edits *s;

		if ((plan->tabused + 1) * 2 > plan->tabcap && !index_grow(plan)) {
			plan->index_lost = true;
			return;
		}
		s = page_slot(plan->tab, plan->tabcap, p);
		if (!s->key) {
			s->key = p + 1;
			plan->tabused++;
		}
		if (s->n == s->cap) {
			uint32_t cap = s->cap ? 2 * s->cap : 2;
			uint32_t *v = realloc(s->v, cap * sizeof(*v));

			if (!v) {
				plan->index_lost = true;
				return;
			}
			s->v = v;
			s->cap = cap;
		}
		s->v[s->n++] = (uint32_t)i;
	}
}

/* The last edit (being dropped) taken out of its pages (it is the last of each). */
static void index_drop_last(struct fsc_plan *plan)
{
	const struct fsc_edit *e = &plan->v[plan->n - 1];

	for (uint64_t p = e->offset >> PAGE_SHIFT; e->len && p <= (e->offset + e->len - 1) >> PAGE_SHIFT; p++) {
		struct page_edits *s = page_find(plan, p);

		if (s && s->n && s->v[s->n - 1] == plan->n - 1)
			s->n--;
	}
}

FSC_EXPORT struct fsc_plan *fsc_plan_new(void)
{
	return calloc(1, sizeof(struct fsc_plan));
}

FSC_EXPORT void fsc_plan_free(struct fsc_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n; i++) {
		free((void *)plan->v[i].old);
		free((void *)plan->v[i].why);
	}
	for (size_t i = 0; i < plan->tabcap; i++)
		free(plan->tab[i].v);
	free(plan->tab);
	free(plan->v);
	free(plan);
}

FSC_EXPORT int fsc_plan_add(struct fsc_plan *plan, uint64_t off, const void *old, const void *data, size_t len,
			    const char *why, bool sync_before)
{
	uint8_t *bytes;
	char *w;

	if (plan->n == plan->cap) {
		size_t cap = plan->cap ? 2 * plan->cap : 16;
		struct fsc_edit *v = realloc(plan->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		plan->v = v;
		plan->cap = cap;
	}
	bytes = malloc(2 * len + 1);
	w = strdup(why ? why : "");
	if (!bytes || !w) {
		free(bytes);
		free(w);
		return -ENOMEM;
	}
	memcpy(bytes, old, len);
	memcpy(bytes + len, data, len);
	plan->v[plan->n++] = (struct fsc_edit){ off, len, bytes, bytes + len, w, sync_before };
	if (plan->n > UINT32_MAX)
		plan->index_lost = true;
	if (!plan->index_lost)
		index_add(plan, plan->n - 1);
	return 0;
}

FSC_EXPORT size_t fsc_plan_count(const struct fsc_plan *plan)
{
	return plan->n;
}

FSC_EXPORT const struct fsc_edit *fsc_plan_edit(const struct fsc_plan *plan, size_t i)
{
	return i < plan->n ? &plan->v[i] : NULL;
}

void plan_overlay_bytes(uint8_t *buf, uint64_t boff, size_t blen, const uint8_t *bytes, uint64_t off, size_t len)
{
	uint64_t lo = off > boff ? off : boff, hi = off + len < boff + blen ? off + len : boff + blen;

	if (lo < hi)
		memcpy(buf + (lo - boff), bytes + (lo - off), (size_t)(hi - lo));
}

bool plan_touches(const struct fsc_plan *plan, uint64_t off, uint64_t len)
{
	if (!len || !plan->n)
		return false;
	if (plan->index_lost) {
		for (size_t j = 0; j < plan->n; j++)
			if (plan->v[j].offset < off + len && off < plan->v[j].offset + plan->v[j].len)
				return true;
		return false;
	}
	for (uint64_t p = off >> PAGE_SHIFT; p <= (off + len - 1) >> PAGE_SHIFT; p++) {
		const struct page_edits *s = page_find(plan, p);

		for (uint32_t k = 0; s && k < s->n; k++) {
			const struct fsc_edit *e = &plan->v[s->v[k]];

			if (e->offset < off + len && off < e->offset + e->len)
				return true;
		}
	}
	return false;
}

int plan_prefix_read(struct fsc_dev *dev, const struct fsc_plan *plan, size_t n, uint64_t off, void *buf,
		     size_t len)
{
	int r = fsc_dev_read(dev, off, buf, len);

	if (r < 0 || !len || !plan->n || !n)
		return r;
	if (plan->index_lost) {
		for (size_t j = 0; j < n && j < plan->n; j++)
			plan_overlay_bytes(buf, off, len, plan->v[j].data, plan->v[j].offset, plan->v[j].len);
		return 0;
	}
	/* page by page, each page's edits in plan order, laid over that page's part of buf only */
	for (uint64_t p = off >> PAGE_SHIFT; p <= (off + len - 1) >> PAGE_SHIFT; p++) {
		const struct page_edits *s = page_find(plan, p);
		uint64_t lo = p << PAGE_SHIFT > off ? p << PAGE_SHIFT : off;
		uint64_t hi = (p + 1) << PAGE_SHIFT < off + len ? (p + 1) << PAGE_SHIFT : off + len;

		for (uint32_t k = 0; s && k < s->n && s->v[k] < n; k++) {
			const struct fsc_edit *e = &plan->v[s->v[k]];

			plan_overlay_bytes((uint8_t *)buf + (lo - off), lo, (size_t)(hi - lo), e->data, e->offset, e->len);
		}
	}
	return 0;
}

int plan_view_read(struct fsc_dev *dev, const struct fsc_plan *plan, uint64_t off, void *buf, size_t len)
{
	return plan_prefix_read(dev, plan, plan->n, off, buf, len);
}

void plan_truncate(struct fsc_plan *plan, size_t n)
{
	while (plan->n > n) {
		if (!plan->index_lost)
			index_drop_last(plan);
		plan->n--;
		free((void *)plan->v[plan->n].old);
		free((void *)plan->v[plan->n].why);
	}
}

void plan_sync_before(struct fsc_plan *plan, size_t i)
{
	if (i < plan->n)
		plan->v[i].sync_before = true;
}

int plan_put(struct fsc_dev *dev, struct fsc_plan *plan, uint64_t off, const void *data, size_t len,
	     const char *why, bool sync)
{
	uint8_t *old = malloc(len);
	int r;

	if (!old)
		return -ENOMEM;
	r = plan_view_read(dev, plan, off, old, len);	/* what this edit will find */
	if (r == 0 && memcmp(old, data, len) != 0) {
		const uint8_t *d = data;
		size_t from = 0, to = len;

		/* only the bytes that change: a cluster written for a few entries is a small edit (and undo record) */
		while (old[from] == d[from])
			from++;
		while (old[to - 1] == d[to - 1])
			to--;
		r = fsc_plan_add(plan, off + from, old + from, d + from, to - from, why, sync);
	}
	free(old);
	return r;
}
