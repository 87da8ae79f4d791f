// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_ledger.c - what the FAT repair planner reads and writes through its
 * plan: FAT entries (12, 16 or 32 bits, in the active copy first and the
 * others at the end), 8.3 entries and their first cluster, dot entries,
 * chains walked as the plan leaves them, and free clusters to take.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "fat/fat.h"

uint64_t fr_copy_byte(const struct frp *f, unsigned k)
{
	return (uint64_t)f->b->reserved * f->b->bytes_per_sector + (uint64_t)k * f->b->fat_size * f->b->bytes_per_sector;
}

uint32_t fr_eoc(const struct frp *f)
{
	return f->lay.fat_bits == 32 ? 0x0FFFFFFF : f->lay.fat_bits == 16 ? 0xFFFF : 0xFFF;
}

/* The byte of FAT entry c and its width in bytes (FAT12: the two bytes holding it). */
uint64_t fr_entry_off(const struct frp *f, unsigned k, uint32_t c, size_t *w)
{
	*w = f->lay.fat_bits == 12 ? 2 : f->lay.fat_bits / 8;
	return fr_copy_byte(f, k) + (f->lay.fat_bits == 12 ? (uint64_t)c * 3 / 2 : (uint64_t)c * *w);
}

/* FAT entry c of the active copy as the plan leaves it (raw). */
/* Entry c from the bytes fr_entry_off gives for it (raw, 12, 16 or 32 bits as stored). */
static uint32_t entry_value(const struct frp *f, const uint8_t *e, uint32_t c)
{
	return layout_cell_get(e, f->lay.fat_bits, c);
}

uint32_t fr_fat_get(struct frp *f, uint32_t c)
{
	uint8_t e[4] = { 0 };
	size_t w;
	uint64_t off = fr_entry_off(f, f->active, c, &w);

	return plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0 ? 0xFFFFFFFF : entry_value(f, e, c);
}

/* FAT entry c set to v in copy k; FAT32 keeps its top 4 bits. */
static void fat_set_copy(struct frp *f, unsigned k, uint32_t c, uint32_t v, const char *why)
{
	uint8_t e[4] = { 0 };
	size_t w;
	uint64_t off = fr_entry_off(f, k, c, &w);

	if (plan_view_read(f->r.dev, f->r.plan, off, e, w) < 0) {
		f->r.err = -EIO;
		return;
	}
	layout_cell_put(e, f->lay.fat_bits, c, v);
	rp_put(&f->r, off, e, w, why, false);
}

/*
 * FAT entry c set to v in the active copy; the other copies follow at the
 * end of the fixes (fix_copies), all of them after every write to the
 * active one: a cut before then leaves them as they were, so that a new
 * repair finds the same clusters free there (fr_next_free) and converges.
 */
void fr_fat_set(struct frp *f, uint32_t c, uint32_t v, const char *why)
{
	/* (a bit a cluster for fr_next_free's test, and the list, each entry once, for fix_copies) */
	if ((!f->written_set && !(f->written_set = calloc(((uint64_t)f->cc + 2) / 64 + 1, 8))) ||
	    !grow((void **)&f->written, &f->capwritten, f->nwritten + 1, sizeof(*f->written)) ||
	    !grow((void **)&f->prior, &f->capprior, f->nwritten + 1, sizeof(*f->prior))) {
		f->r.err = -ENOMEM;
		return;
	}
	if (c <= (uint64_t)f->cc + 1 && !bit_test_set(f->written_set, c)) {
		f->prior[f->nwritten] = fr_fat_get(f, c);
		f->written[f->nwritten++] = c;
	}
	fat_set_copy(f, f->active, c, v, why);
}

/* The same in every copy at once (FAT[1]'s dirty bits). */
void fr_fat_set_all(struct frp *f, uint32_t c, uint32_t v, const char *why)
{
	for (unsigned k = 0; k < fr_copies(f->b); k++)
		if (f->mirrored || k == f->active)
			fat_set_copy(f, k, c, v, why);
}

/* The 8.3 entry a finding is about: its byte (false: the FAT32 root, or no entry). */
bool fr_entry_of(const struct frp *f, const struct fsc_finding *x, uint64_t *off)
{
	if (x->loc_kind == FSC_LOC_ENTRY) {
		*off = layout_cluster_byte(&f->lay, (uint32_t)x->loc) + 32ull * x->entry;
		return true;
	}
	if (x->loc_kind == FSC_LOC_BYTE && x->path && x->loc >= f->lay.root_byte &&
	    x->loc < f->lay.root_byte + f->lay.root_bytes) {
		*off = x->loc;
		return true;
	}
	return false;
}

bool fr_read_entry(struct frp *f, uint64_t off, uint8_t e[32])
{
	if (plan_view_read(f->r.dev, f->r.plan, off, e, 32) == 0)
		return true;
	f->r.err = -EIO;
	return false;
}

uint32_t fr_entry_first(const struct frp *f, const uint8_t *e)
{
	return fat_entry_first(e, f->lay.fat_bits);
}

void fr_set_first(const struct frp *f, uint8_t *e, uint32_t c)
{
	fat_dirent_put_first_cluster(e, c, f->lay.fat_bits == 32);
}

/* A dot entry (. or ..) of cluster c, dated now. */
void fr_dot_entry(const struct frp *f, uint8_t *e, bool dotdot, uint32_t c)
{
	uint32_t dt = dos_datetime(f->r.o->now);

	memset(e, 0, 32);	/* (a whole new entry: nothing of what the slot held) */
	memcpy(e + FAT_DIR_NAME, dotdot ? "..         " : ".          ", FAT_DIR_NAME_LEN);
	e[FAT_DIR_ATTR] = FAT_ATTR_DIRECTORY;
	fr_set_first(f, e, c);
	put_le16(e, FAT_DIR_CRT_TIME, (uint16_t)dt);
	put_le16(e, FAT_DIR_CRT_DATE, (uint16_t)(dt >> 16));
	put_le16(e, FAT_DIR_LST_ACC_DATE, (uint16_t)(dt >> 16));
	put_le16(e, FAT_DIR_WRT_TIME, (uint16_t)dt);
	put_le16(e, FAT_DIR_WRT_DATE, (uint16_t)(dt >> 16));
}

/* Has the plan set c's FAT entry? */
static bool written(const struct frp *f, uint32_t c)
{
	return f->written_set && bit_get(f->written_set, c);
}

/*
 * (lost0 is in increasing order, but for the clusters a relink took, made
 * 0 where they were: the search steps over them, else a 0 met halfway
 * would send it the wrong way and a lost cluster would not be found)
 */
bool fr_was_lost(const struct frp *f, uint32_t c)
{
	size_t lo = 0, hi = f->nlost0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2, m = mid;

		while (m < hi && !f->lost0[m])
			m++;
		if (m == hi)
			hi = mid;
		else if (f->lost0[m] == c)
			return true;
		else if (f->lost0[m] < c)
			lo = m + 1;
		else
			hi = mid;
	}
	return false;
}

bool fr_free_in_last(struct frp *f, uint32_t c)
{
	bool two = f->mirrored && f->b->num_fats > 1;
	unsigned last = f->active ? 0 : fr_copies(f->b) - 1u;
	uint8_t e[4] = { 0 };
	size_t w;
	uint64_t off;

	if (!two)
		return false;
	off = fr_entry_off(f, last, c, &w);
	return fsc_dev_read(f->r.dev, off, e, w) == 0 && layout_fat_value(&f->lay, entry_value(f, e, c)) == LAYOUT_FREE;
}

/*
 * The next cluster a fix may take: not set by this plan yet, and free in
 * the active copy as the plan leaves it.  With a second copy, which the
 * plan writes only at its end (fix_copies), it must be free there, and in
 * the active copy it may also be lost: that is what a repair cut short
 * leaves (the clusters it had taken, linked in the active copy only), so a
 * new repair takes the same clusters again and converges.  0: none.
 */
/*
 * Is FAT entry c free in the active copy?  Read a window at a time (the
 * search goes over every used entry before the first free one): the
 * window may be older than the plan's last edits, but only entries
 * fr_fat_set wrote change between free and used, and the search skips
 * those; a free one is read again all the same.
 */
#define FREE_WINDOW 16384u
static bool free_in_window(struct frp *f, uint32_t c)
{
	size_t w;
	uint64_t at = fr_entry_off(f, f->active, c, &w), end, from;

	if (!f->win || at < f->win_at || at + w > f->win_at + f->win_len) {
		from = fr_entry_off(f, f->active, c & ~1u, &w);	/* (FAT12: a window starts at an entry's first byte) */
		end = fr_entry_off(f, f->active, f->cc + 1, &w) + w;
		if (!f->win && !(f->win = malloc(FREE_WINDOW)))
			return layout_fat_value(&f->lay, fr_fat_get(f, c)) == LAYOUT_FREE;
		f->win_len = end - from < FREE_WINDOW ? (size_t)(end - from) : FREE_WINDOW;
		f->win_at = from;
		if (plan_view_read(f->r.dev, f->r.plan, from, f->win, f->win_len) < 0) {
			f->win_len = 0;
			return layout_fat_value(&f->lay, fr_fat_get(f, c)) == LAYOUT_FREE;
		}
	}
	return layout_fat_value(&f->lay, entry_value(f, f->win + (at - f->win_at), c)) == LAYOUT_FREE;
}

/*
 * fr_was_lost for fr_next_free, whose clusters only grow: a place in lost0
 * that only moves on, not a search a cluster (the search goes over every
 * used cluster before the first free one).
 */
static bool lost_from(struct frp *f, uint32_t c)
{
	while (f->lost_at < f->nlost0 && (!f->lost0[f->lost_at] || f->lost0[f->lost_at] < c))
		f->lost_at++;
	return f->lost_at < f->nlost0 && f->lost0[f->lost_at] == c;
}

uint32_t fr_next_free(struct frp *f)
{
	bool two = f->mirrored && f->b->num_fats > 1;

	for (uint32_t c = f->free_at < 2 ? 2 : f->free_at; c <= f->cc + 1; c++) {
		bool active_free = free_in_window(f, c);

		if (written(f, c) || (!active_free && (!two || !lost_from(f, c))) || (two && !fr_free_in_last(f, c)))
			continue;
		if (active_free && layout_fat_value(&f->lay, fr_fat_get(f, c)) != LAYOUT_FREE && (!two || !lost_from(f, c)))
			continue;
		f->free_at = c + 1;
		return c;
	}
	f->free_at = f->cc + 2;
	return 0;
}

/* n free clusters into nw (allocated in the FAT as the caller links them); false when there are fewer. */
bool fr_take_free(struct frp *f, uint32_t *nw, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!(nw[i] = fr_next_free(f)))
			return false;
	return true;
}

/* Is x about an entry in (or below) a directory the plan made empty? */
bool fr_under_emptied(const struct frp *f, const struct fsc_finding *x)
{
	for (size_t i = 0; i < f->nemptied; i++) {
		size_t n = strlen(f->emptied[i]);

		if (x->path && !strncmp(x->path, f->emptied[i], n) && x->path[n] == '/')
			return true;
	}
	for (size_t i = 0; i < f->nrecut; i++) {
		size_t n = strlen(f->recut[i]);

		if (x->path && !strncmp(x->path, f->recut[i], n) && (x->path[n] == '/' || !x->path[n]))
			return true;
	}
	return false;
}

uint32_t fr_step(struct frp *f, uint32_t c)
{
	uint32_t v = layout_fat_value(&f->lay, fr_fat_get(f, c));

	return v >= 2 && v <= f->cc + 1 ? v : 0;
}

/* fr_fat_get as the chain iterator reads a FAT (ctx: the struct frp). */
static uint32_t plan_link(void *f, uint32_t c)
{
	return layout_fat_value(&((struct frp *)f)->lay, fr_fat_get(f, c));
}

void fr_chain(struct layout_chain *it, struct frp *f, uint32_t first)
{
	layout_chain_begin(it, &f->chain_lay, plan_link, f, first, f->chain_lay.held, false);
}

void fr_release(struct frp *f, uint32_t c)
{
	struct layout_chain it;
	uint32_t x;

	if (!layout_cluster_valid(&f->chain_lay, c))
		return;
	fr_chain(&it, f, c);
	while (layout_chain_next(&it, &x) && !f->r.err)
		if (!grow((void **)&f->released, &f->capreleased, f->nreleased + 1, sizeof(*f->released)))
			f->r.err = -ENOMEM;
		else
			f->released[f->nreleased++] = x;
}

/* The chain from first as the plan leaves it, through the one chain iterator (its loop test needs no memory). */
void fr_chain_walk(struct frp *f, uint32_t first, uint64_t need, struct cwalk *w)
{
	struct layout_chain it;
	uint32_t c;

	memset(w, 0, sizeof(*w));
	if (!layout_cluster_valid(&f->chain_lay, first)) {	/* no chain: first alone */
		w->n = 1;
		w->last = first;
		w->at_need = need == 1 ? first : 0;
		w->ended = plan_link(f, first) == LAYOUT_END;
		return;
	}
	fr_chain(&it, f, first);
	while (layout_chain_next(&it, &c)) {
		if (it.n == need)
			w->at_need = c;
		w->last = c;
	}
	w->n = it.n;
	w->ended = it.end == LAYOUT_CHAIN_END;
}
