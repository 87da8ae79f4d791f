// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ledger.c - what a repair planner asks of the findings and adds to the
 * plan: whether a finding may be fixed (the level, the caller's answer),
 * marking it planned, and edits that keep the first error.  Used by
 * every file of repair/; and the writing of a fixed file set.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"

void rp_run_steps(const struct rp_step *steps, size_t n, void *fam)
{
	for (size_t i = 0; i < n; i++)
		if (!steps[i].skip || !steps[i].skip(fam))
			steps[i].run(fam);
}

/* What a restore from the backup cures: the boot region's field errors (codes in problems.def order). */
bool rp_boot_field_error(const struct fsc_finding *f)
{
	return f->id >= FSC_PR_EXFAT_BOOT_CLUSTER_COUNT && f->id <= FSC_PR_EXFAT_BOOT_VOLUME_LENGTH &&
	       fsc_problem_info(f->id)->severity >= FSC_SEV_ERROR;
}

/* May the finding be fixed: the level allows it (preen_saves_lost: lost clusters too) and the caller says yes. */
bool rp_wanted(const struct rp *r, const struct fsc_finding *f)
{
	const struct fsc_problem_info *pi = fsc_problem_info(f->id);
	bool lost = f->id == FSC_PR_EXFAT_LOST_CLUSTERS || f->id == FSC_PR_FAT_LOST_CLUSTERS;

	if (!pi || (r->o->level == FSC_REPAIR_PREEN && !pi->preen && !(lost && r->o->preen_saves_lost)))
		return false;
	return !r->o->ask || r->o->ask(r->o->ctx, f);
}

/* The first finding id (any location), or NULL. */
struct fsc_finding *rp_find(const struct rp *r, enum fsc_problem id)
{
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == id)
			return &r->out->v[i];
	return NULL;
}

static int cmp_place(const struct fsc_finding *a, const struct fsc_finding *b)
{
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->loc_kind != b->loc_kind)
		return a->loc_kind < b->loc_kind ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

int rp_finding_cmp_place(const void *x, const void *y)
{
	return cmp_place(x, y);
}

static int cmp_place_ptr(const void *x, const void *y)
{
	return cmp_place(*(const struct fsc_finding *const *)x, *(const struct fsc_finding *const *)y);
}

int rp_findex_make(struct rp_findex *ix, const struct fsc_findings *fs)
{
	ix->n = 0;
	ix->v = fs->n ? malloc(fs->n * sizeof(*ix->v)) : NULL;
	if (fs->n && !ix->v)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n; i++)
		ix->v[ix->n++] = &fs->v[i];
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_place_ptr);
	return 0;
}

const struct fsc_finding *rp_findex_find(const struct rp_findex *ix, const struct fsc_finding *f)
{
	const struct fsc_finding **hit = ix->n ? bsearch(&f, ix->v, ix->n, sizeof(*ix->v), cmp_place_ptr) : NULL;

	return hit ? *hit : NULL;
}

/* Is there a finding id, fixable and wanted?  Marks it (and any other of id) planned. */
bool rp_take(const struct rp *r, enum fsc_problem id)
{
	struct fsc_finding *f = rp_find(r, id);

	if (!f || !rp_wanted(r, f))
		return false;
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == id)
			r->out->v[i].planned = true;
	return true;
}

bool rp_chain_owned(struct layout_chain *it, uint64_t need, bool to_end, bool (*owned)(const void *ctx, uint32_t c),
		    const void *ctx)
{
	uint32_t c;

	while ((to_end || it->n < need) && layout_chain_next(it, &c))
		if (!owned(ctx, c))
			return false;
	return to_end ? it->end == LAYOUT_CHAIN_END : it->n == need;
}

/* Order by problem, then path, then place in the list (ctx). */
static int cmp_named(const void *x, const void *y, void *ctx)
{
	const struct fsc_findings *out = ctx;
	const struct fsc_finding *a = &out->v[*(const size_t *)x], *b = &out->v[*(const size_t *)y];
	int c = a->id != b->id ? (a->id < b->id ? -1 : 1) : strcmp(a->path, b->path);

	return c ? c : *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* The findings with a path sorted by problem and path, when findings were added since (false: no memory). */
static bool named_index(struct rp_at_index *ix, const struct fsc_findings *out)
{
	if (ix->named && ix->named_n == out->n)
		return true;
	free(ix->named);
	ix->nnamed = 0;
	if (!(ix->named = malloc((out->n ? out->n : 1) * sizeof(*ix->named))))
		return false;
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].path)
			ix->named[ix->nnamed++] = i;
	qsort_r(ix->named, ix->nnamed, sizeof(*ix->named), cmp_named, (void *)out);
	ix->named_n = out->n;
	return true;
}

/* The findings id of path planned, those the level lets be fixed: through the index, else a scan of all. */
bool rp_take_owned(const struct rp *r, enum fsc_problem id, const char *path)
{
	struct rp_at_index *ix = r->at_index;
	size_t lo = 0, hi, i;
	bool any = false;

	if (!ix || !named_index(ix, r->out)) {
		for (i = 0; i < r->out->n; i++) {
			struct fsc_finding *f = &r->out->v[i];

			if (f->id == id && f->path && !strcmp(f->path, path) && rp_wanted(r, f))
				any = f->planned = true;
		}
		return any;
	}
	for (hi = ix->nnamed; lo < hi;) {	/* the first of id and path */
		size_t mid = (lo + hi) / 2;
		const struct fsc_finding *f = &r->out->v[ix->named[mid]];

		if (f->id < id || (f->id == id && strcmp(f->path, path) < 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ix->nnamed; i++) {
		struct fsc_finding *f = &r->out->v[ix->named[i]];

		if (f->id != id || strcmp(f->path, path))
			break;
		if (rp_wanted(r, f))
			any = f->planned = true;
	}
	return any;
}

bool rp_take_either(const struct rp *r, enum fsc_problem a, enum fsc_problem b)
{
	bool ta = rp_take(r, a);
	bool tb = rp_take(r, b);

	return ta || tb;
}

void rp_flips_begin(struct rp_flips *f, uint32_t x, unsigned width)
{
	*f = (struct rp_flips){ x, width, 0, 0 };
}

bool rp_flips_next(struct rp_flips *f, uint32_t *c, unsigned *bits)
{
	if (f->j == 0 && f->i < f->width) {		/* one bit: i */
		*c = f->x ^ (1u << f->i);
		*bits = 1;
		if (++f->i == f->width) {
			f->i = 0;
			f->j = 1;
		}
		return true;
	}
	if (f->j >= f->width && ++f->i < f->width)	/* two bits: i < j */
		f->j = f->i + 1;
	if (f->i + 1 >= f->width || f->j >= f->width)
		return false;
	*c = f->x ^ (1u << f->i) ^ (1u << f->j);
	*bits = 2;
	f->j++;
	return true;
}

/* An edit of the plan (nothing when the bytes are there already); the first error is kept. */
void rp_put(struct rp *r, uint64_t off, const void *data, size_t len, const char *why, bool sync)
{
	if (!r->err)
		r->err = plan_put(r->dev, r->plan, off, data, len, why, sync);
}

/* Clusters nothing owns or marks, after c (0: none left). */
uint32_t rp_next_cluster(const struct xvol *v, uint32_t c, bool lost)
{
	uint64_t words = ((uint64_t)v->cc + 63) / 64, i = c < 2 ? 0 : (uint64_t)c - 1;	/* bit of c + 1 */

	for (uint64_t w = i / 64; w < words; w++) {	/* a word of the two bit sets at a time */
		uint64_t f = lost ? v->marked[w] & ~v->ck.claimed[w] : ~(v->marked[w] | v->ck.claimed[w]);

		if (w == i / 64)
			f &= ~0ull << (i % 64);
		if (f) {
			uint64_t bit = w * 64 + (uint64_t)__builtin_ctzll(f);

			return bit < v->cc ? (uint32_t)(bit + 2) : 0;
		}
	}
	return 0;
}

/*
 * May cluster k of a run of n (from c - k) hold a new structure: owned by
 * nothing, unmarked in the bitmap (unless marks is false: a bitmap being
 * rebuilt says nothing), no FAT link but the one it gets?
 */
static bool run_usable(struct xvol *v, uint32_t c, uint64_t k, uint64_t n, bool marks)
{
	uint32_t fat;

	if (!xv_cluster_valid(v, c) || cluster_owned(v, c) || (marks && bit_get(v->marked, c - 2)))
		return false;
	fat = xv_fat(v, c);
	return fat == 0 || fat == (k + 1 < n ? c + 1 : 0xFFFFFFFF);
}

uint32_t rp_find_run(struct xvol *v, uint64_t n, bool marks)
{
	uint64_t have = 0;

	for (uint32_t c = 2; n && (uint64_t)c <= (uint64_t)v->cc + 1; c++) {
		have = run_usable(v, c, have, n, marks) ? have + 1 : 0;
		if (have == n)
			return (uint32_t)(c - n + 1);
	}
	return 0;
}

void rp_chain_run(struct rp *r, struct xvol *v, uint32_t first, uint64_t n, const char *what)
{
	uint8_t e[4];

	for (uint64_t k = 0; k < n; k++) {
		uint32_t c = first + (uint32_t)k;

		cluster_claim(v, c);
		exfat_fat_cell_put(e, k + 1 < n ? c + 1 : 0xFFFFFFFF);
		rp_put(r, v->fat_byte + 4ull * c, e, 4, what, false);	/* (nothing where the FAT says so already) */
	}
}

uint32_t rp_alloc_run(struct rp *r, struct xvol *v, uint64_t n, bool marks, const char *what)
{
	uint32_t first = rp_find_run(v, n, marks);

	if (first)
		rp_chain_run(r, v, first, n, what);
	return first;
}

/* n free clusters into out, claimed and chained in the FAT; false when there are fewer. */
bool rp_alloc_clusters(struct rp *r, struct xvol *v, uint32_t *out, uint64_t n, const char *what)
{
	uint8_t e[4];
	uint32_t c = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (!(c = rp_next_cluster(v, c, false)))
			return false;
		out[i] = c;
	}
	for (uint64_t i = 0; i < n; i++) {
		cluster_claim(v, out[i]);
		exfat_fat_cell_put(e, i + 1 < n ? out[i + 1] : 0xFFFFFFFF);
		rp_put(r, v->fat_byte + 4ull * out[i], e, 4, what, false);
	}
	r->allocated = true;
	return true;
}

void rp_unplan(const struct rp *r, enum fsc_problem id)
{
	for (size_t i = 0; i < r->out->n; i++)
		if (r->out->v[i].id == id)
			r->out->v[i].planned = false;
}

static size_t at_slot(const struct rp_at_index *ix, const struct fsc_findings *out, uint64_t loc, uint32_t entry)
{
	size_t i = (size_t)(((loc << 20) ^ entry) * 0x9E3779B97F4A7C15ull >> 17) & (ix->cap - 1);

	while (ix->head[i] && (out->v[ix->head[i] - 1].loc != loc || out->v[ix->head[i] - 1].entry != entry))
		i = (i + 1) & (ix->cap - 1);
	return i;
}

/* The index over every finding made so far (false: out of memory). */
static bool at_index_extend(struct rp_at_index *ix, const struct fsc_findings *out)
{
	if (ix->n > out->n)
		ix->n = 0;	/* (findings cut: indexed again) */
	if (ix->n == out->n)
		return true;
	if (!grow((void **)&ix->prev, &ix->capprev, out->n, sizeof(*ix->prev)))
		return false;
	if (!ix->n || 2 * out->n > ix->cap) {	/* (at most half full: every finding may be at its own entry) */
		size_t cap = 1024;

		while (cap < 2 * out->n)
			cap *= 2;
		free(ix->head);
		if (!(ix->head = calloc(cap, sizeof(*ix->head))))
			return false;
		ix->cap = cap;
		ix->n = 0;
	}
	for (; ix->n < out->n; ix->n++) {
		const struct fsc_finding *f = &out->v[ix->n];
		size_t s;

		if (f->loc_kind != FSC_LOC_ENTRY)
			continue;
		s = at_slot(ix, out, f->loc, f->entry);
		ix->prev[ix->n] = ix->head[s];
		ix->head[s] = ix->n + 1;
	}
	return true;
}

void rp_findings_cut(struct rp *r, size_t n)
{
	while (r->out->n > n)
		free(r->out->v[--r->out->n].path);
	if (r->at_index) {		/* (the findings it indexed are gone: made again as they come) */
		free(r->at_index->head);
		free(r->at_index->prev);
		free(r->at_index->named);
		*r->at_index = (struct rp_at_index){ 0 };
	}
}

void rp_at_index_free(struct rp_at_index *ix)
{
	if (!ix)
		return;
	free(ix->head);
	free(ix->prev);
	free(ix->named);
	free(ix);
}

/*
 * The findings at the entry (loc, entry), the latest first: *k is 0 to
 * begin, and NULL ends.  Through the index; a scan of every finding when
 * it cannot be had.  No finding may be added while one is being gone
 * through.
 */
struct fsc_finding *rp_at_next(const struct rp *r, uint64_t loc, uint32_t entry, size_t *k)
{
	struct rp_at_index *ix = r->at_index;
	size_t i;

	if (ix && (*k ? ix->n == r->out->n : at_index_extend(ix, r->out))) {
		i = *k ? ix->prev[*k - 1] : ix->head[at_slot(ix, r->out, loc, entry)];
		*k = i;
		return i ? &r->out->v[i - 1] : NULL;
	}
	for (i = *k ? *k - 1 : r->out->n; i-- > 0;) {
		struct fsc_finding *f = &r->out->v[i];

		if (f->loc_kind == FSC_LOC_ENTRY && f->loc == loc && f->entry == entry) {
			*k = i + 1;
			return f;
		}
	}
	return NULL;
}

/* The finding id at the set whose primary lies at at, the latest first. */
struct fsc_finding *rp_set_finding(const struct rp *r, enum fsc_problem id, const struct exfat_where *at)
{
	struct fsc_finding *f;
	size_t k = 0;

	while ((f = rp_at_next(r, at->cluster, at->entry, &k)))
		if (f->id == id)
			return f;
	return NULL;
}

/* May the set's finding id be fixed? */
bool rp_set_wanted(struct rp *r, enum fsc_problem id, const struct exfat_where *at)
{
	struct fsc_finding *f = rp_set_finding(r, id, at);

	/* A finding over the cap is not in the list: the level alone decides. */
	if (!f) {
		const struct fsc_problem_info *pi = fsc_problem_info(id);

		return r->o->level == FSC_REPAIR_ALL || pi->preen;
	}
	return rp_wanted(r, f);
}

void rp_remember_set(struct rp *r, uint64_t off, unsigned ids)
{
	if (!grow((void **)&r->sets, &r->capsets, r->nsets + 1, sizeof(*r->sets))) {
		r->err = -ENOMEM;
		return;
	}
	r->sets[r->nsets++] = (struct set_fixed){ off, ids };
}

/*
 * The set a's entries as set has them: from the first changed entry to the
 * last, one edit per run of entries that lie in a row (a set in one
 * cluster is one write, whole or not at all); after a sync (links: it
 * links clusters written for it).
 *
 * set was made from a->set, the copy the walk read; an earlier step of
 * this round may have planned another fix of the same set since (a
 * directory's new FirstCluster, then a rename: seed 932, pop-c32m #30).
 * So each byte the caller left as read is taken from the plan's view, and
 * a caller's sound SetChecksum is made again over the merged set: the
 * later fix does not undo the earlier one.
 */
void rp_write_set(struct rp *r, const struct exfat_asm *a, const uint8_t *set, const char *why, bool links)
{
	unsigned n = a->count;
	uint8_t *now = malloc(2 * 32ull * n), *out = now + 32ull * n;
	bool merged = false;

	if (!now) {
		r->err = -ENOMEM;
		return;
	}
	for (unsigned i = 0, j; i < n; i = j) {	/* (a read per run of entries in a row: a set, most often) */
		for (j = i + 1; j < n && a->pos[j].offset == a->pos[j - 1].offset + 32; j++)
			;
		if (plan_view_read(r->dev, r->plan, a->pos[i].offset, now + 32 * i, 32ull * (j - i)) < 0)
			memcpy(now + 32 * i, a->set + 32 * i, 32ull * (j - i));
	}
	for (size_t b = 0; b < 32ull * n; b++) {
		out[b] = set[b] != a->set[b] ? set[b] : now[b];
		merged |= out[b] != set[b];
	}
	if (merged && exfat_primary_set_checksum(set) == fsc_exfat_set_checksum(set, n))
		exfat_primary_put_set_checksum(out, fsc_exfat_set_checksum(out, n));
	for (unsigned i = 0, j; i < n; i = j) {
		unsigned last = i;

		for (j = i; j < n && (j == i || a->pos[j].offset == a->pos[j - 1].offset + 32); j++)
			if (memcmp(out + 32 * j, now + 32 * j, 32))
				last = j + 1;
		if (last > i)
			rp_put(r, a->pos[i].offset, out + 32 * i, 32ull * (last - i), why, links && i == 0);
	}
	free(now);
}

/* The first entry of type t in the root before its end marker, as the plan leaves it; 0: none. */
uint64_t rp_root_entry_of(struct rp *r, struct xvol *v, uint8_t t)
{
	struct layout_chain it;
	uint32_t c;
	uint8_t e[32];

	layout_chain_begin(&it, &v->lay, fatreader_link, &v->fr, v->p->ex.root_cluster, v->cc, false);
	while (layout_chain_next(&it, &c))	/* each cluster once, a looping root too */
		for (uint32_t i = 0; i < v->cb; i += 32) {
			uint64_t off = xv_cluster_byte(v, c) + i;

			if (plan_view_read(r->dev, r->plan, off, e, 32) < 0 || e[0] == 0x00)
				return 0;
			if (e[0] == t)
				return off;
		}
	return 0;
}

/*
 * PercentInUse for marked clusters, unless the value there already rounds
 * to it (either way: drivers round up or down), so that a repair cut short
 * and done again leaves the same byte.
 */
void rp_put_percent_in_use(struct rp *r, uint64_t marked)
{
	uint64_t lo;
	uint8_t want;

	if (xv_percent_fits(r->p->ex.percent_in_use, marked, r->p->ex.cluster_count, &lo))
		return;
	want = (uint8_t)lo;
	rp_put(r, EXFAT_BOOT_PERCENT_IN_USE, &want, 1, "PercentInUse", false);
}
