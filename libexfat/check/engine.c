// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check/engine.c - what every check needs whatever the filesystem: the
 * finding cap, progress, the claimed-cluster set and chain walks over it
 * (range, loops, cross-links, free and bad links, length), the owners
 * pass, runs of clusters for findings.
 *
 * Consumes: FAT entries through the filesystem's reader (normalised to
 * CK_FREE, CK_BAD, CK_END, CK_END_ODD or a cluster).  Produces: findings and the
 * claimed set.  A chain walk never takes more than count steps and needs
 * no memory: a loop is told from a cross-link by walking the chain again.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/engine.h"

int ck_init(struct ck_engine *e, struct fsc_findings *out, struct fsc_check_summary *sum,
	    const struct fsc_check_opts *o, int npasses)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->sum = sum;
	e->o = o;
	e->npasses = npasses;
	e->max_per_id = o && o->max_per_problem ? o->max_per_problem : 100;
	sum->npasses = npasses;
	return 0;
}

int ck_init_clusters(struct ck_engine *e, uint32_t count, uint32_t cluster_bytes,
		     uint32_t (*next)(void *ctx, uint32_t c), void *ctx, const struct ck_chain_ids *ids)
{
	e->count = count;
	e->cluster_bytes = cluster_bytes;
	e->next = next;
	e->next_ctx = ctx;
	e->ids = ids;
	e->claimed = calloc(((uint64_t)count + 63) / 64 + 1, 8);
	return e->claimed ? 0 : -ENOMEM;
}

void ck_free(struct ck_engine *e)
{
	free(e->claimed);
	free(e->owners_set);
	free(e->odd_ends);
	e->claimed = e->owners_set = NULL;
	e->odd_ends = NULL;
	e->nodd_ends = e->capodd_ends = 0;
}

struct fsc_finding *ck_add(struct ck_engine *e, enum fsc_problem id, enum fsc_loc_kind kind,
			   uint64_t loc, const char *field)
{
	if (e->owners_pass)
		return NULL;
	e->raised++;
	if (e->per_id[id]++ >= e->max_per_id) {
		e->sum->suppressed++;
		return NULL;
	}
	return finding_add(e->out, id, kind, loc, field);
}

void ck_owner_path(const struct owner *who, char *path, size_t len)
{
	char name[800];

	if (!who->name && who->name16) {
		uint8_t le[510];

		for (unsigned i = 0; i < who->name16_len && i < 255; i++)
			put_le16(le, 2 * i, who->name16[i]);
		utf16le_to_utf8(le, who->name16_len < 255 ? who->name16_len : 255, name, sizeof(name));
		snprintf(path, len, "%s%s%s", who->dir, strcmp(who->dir, "/") ? "/" : "", name);
	} else if (who->name && (who->cluster || who->byte))
		snprintf(path, len, "%s%s%s", who->dir, strcmp(who->dir, "/") ? "/" : "", who->name);
	else if (who->name)
		snprintf(path, len, "%s (%s)", who->dir, who->name);
	else
		snprintf(path, len, "%s", who->dir);
}

struct fsc_finding *ck_add_owner(struct ck_engine *e, enum fsc_problem id, const struct owner *who)
{
	struct fsc_finding *f = ck_add(e, id, who->cluster ? FSC_LOC_ENTRY : who->byte ? FSC_LOC_BYTE : FSC_LOC_NONE,
				       who->cluster ? who->cluster : who->byte, NULL);
	char path[4096 + 800];

	if (!f)
		return NULL;
	f->entry = who->entry;
	ck_owner_path(who, path, sizeof(path));
	finding_path(f, path);
	return f;
}

uint64_t ck_judge(const uint16_t *upcase, const uint64_t *g, size_t n)
{
	uint64_t h = 0, x;

	for (size_t i = 0; i < 65536 + 4 * n; i += 4) {
		if (i < 65536)
			memcpy(&x, upcase + i, sizeof(x));
		else
			x = g[(i - 65536) / 4];
		h = (h ^ x) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	return h;
}

void ck_memo_begin(struct ck_dir_memo *d, const struct ck_engine *e, const struct ck_dir_key *key, bool keep,
		   const struct ck_part *(*dir_known)(void *ctx, const struct ck_dir_key *key, size_t *n), void *ctx)
{
	d->key = *key;
	d->raised = e->raised;
	d->first = dir_known && !e->owners_pass ? dir_known(ctx, key, &d->nfirst) : NULL;
	d->known = d->first != NULL;
	d->keep = keep && !e->owners_pass;
	d->unsound = false;
	d->n = 0;
}

uint32_t ck_memo_next(const struct ck_dir_memo *d, uint64_t off, uint64_t fat, uint32_t len)
{
	const struct ck_part *f = d->known && d->n < d->nfirst ? &d->first[d->n] : NULL;

	if (!f || f->off != off || f->len != len || f->fat != fat)
		return UINT32_MAX;
	return f->used < len ? f->used : len;
}

uint32_t ck_memo_part(struct ck_dir_memo *d, uint64_t off, uint64_t fat, uint32_t len)
{
	const struct ck_part p = { off, fat, len, len };
	uint32_t rd = ck_memo_next(d, off, fat, len);

	if (d->keep && grow((void **)&d->kept, &d->cap, d->n + 1, sizeof(*d->kept)))
		d->kept[d->n] = p;
	else if (d->keep)
		d->unsound = true;	/* (no memory: not kept) */
	d->known = rd != UINT32_MAX;
	d->n++;
	return d->known ? rd : len;
}

void ck_memo_end(struct ck_dir_memo *d, uint32_t used)
{
	if (d->keep && !d->unsound && d->n)
		d->kept[d->n - 1].used = used;
}

bool ck_memo_sound(const struct ck_dir_memo *d, const struct ck_engine *e)
{
	return d->keep && !d->unsound && d->n && e->raised == d->raised;
}

void ck_progress(struct ck_engine *e, uint64_t step)
{
	if (e->owners_pass)
		return;
	e->done += step;
	if (e->o && e->o->progress)
		e->o->progress(e->o->ctx, e->pass, e->npasses, e->done, e->total);
}

static bool past_deadline(const struct ck_engine *e)
{
	struct timespec ts;

	if (!e->o || !e->o->deadline)
		return false;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return true;	/* no clock: a budget cannot be kept, so nothing more is begun */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= e->o->deadline;
}

bool ck_out_of_time(struct ck_engine *e)
{
	if (e->owners_pass)
		return false;	/* begun only after pass 4, which ran in time */
	if (!e->sum->incomplete && past_deadline(e)) {
		e->sum->incomplete = e->pass;
		e->sum->incomplete_partly = true;
	}
	return e->sum->incomplete != 0;
}

bool ck_pass(struct ck_engine *e, int n, uint64_t total)
{
	if (!e->sum->incomplete && n > 1 && past_deadline(e))
		e->sum->incomplete = n;
	if (e->sum->incomplete)
		return false;
	e->pass = n;
	e->done = 0;
	e->total = total;
	ck_progress(e, 0);
	return true;
}

/* Was cluster c reached earlier by the chain from first (within steps)? */
static bool in_chain(const struct ck_engine *e, uint32_t first, bool nofat, uint64_t steps, uint32_t c)
{
	uint32_t x = first;

	for (uint64_t i = 0; i < steps; i++) {
		if (x == c)
			return true;
		if (nofat) {
			x++;
			continue;
		}
		x = e->next(e->next_ctx, x);
		if (!ck_cluster_valid(e, x))
			return false;
	}
	return false;
}

static void chain_problem(struct ck_engine *e, enum fsc_problem id, const struct owner *who,
			  uint64_t n, const char *detail)
{
	struct fsc_finding *f;

	if (who->chain_told)
		return;
	f = ck_add_owner(e, id, who);
	if (!f)
		return;
	finding_actual(f, "%llu", (unsigned long long)n);
	if (detail)
		finding_detail(f, "%s", detail);
}

/* The owners pass: the allocation claiming a cross-linked cluster first is named in its finding. */
static void name_first_owner(struct ck_engine *e, const struct owner *who, uint32_t c)
{
	char path[4096 + 800];

	for (unsigned k = 0; k < e->nxlinks; k++) {
		struct ck_xlink *x = &e->xlinks[k];

		if (x->cluster != c || x->named)
			continue;
		ck_owner_path(who, path, sizeof(path));
		finding_detail(&e->out->v[x->finding], "%s", path);
		x->named = true;
	}
}

bool ck_first_of_xlink(const struct ck_engine *e, uint32_t c)
{
	if (!e->owners_pass || !ck_cluster_valid(e, c) || bit_get(e->owners_set, (uint64_t)c - 2))
		return false;
	for (unsigned k = 0; k < e->nxlinks; k++)
		if (e->xlinks[k].cluster == c)
			return true;
	return false;
}

enum claim { CLAIMED, LOOP, CROSSED };

bool ck_hold_head(struct ck_engine *e, const struct owner *who, uint32_t c)
{
	uint64_t *claimed = e->owners_pass ? e->owners_set : e->claimed;

	if (!ck_cluster_valid(e, c) || bit_get(claimed, (uint64_t)c - 2))
		return false;
	bit_set(claimed, (uint64_t)c - 2);
	if (e->owners_pass)
		name_first_owner(e, who, c);
	return true;
}

/*
 * Claim cluster c for the allocation.  A loop is reported and ends the
 * walk; a cross-link is reported once per allocation (crossed is set), and
 * the caller goes on claiming the rest of the chain so that its tail does
 * not also show up as lost clusters.
 */
static enum claim claim_one(struct ck_engine *e, const struct owner *who, uint32_t first, bool nofat,
			    uint64_t step, uint32_t c, bool crossed, bool held)
{
	uint64_t i = (uint64_t)c - 2;
	uint64_t *claimed = e->owners_pass ? e->owners_set : e->claimed;
	struct fsc_finding *f;

	if (step == 0 && held)
		return CLAIMED;		/* (held for it when its entry was read: ck_hold_head) */
	if (!bit_get(claimed, i)) {
		bit_set(claimed, i);
		if (e->owners_pass)
			name_first_owner(e, who, c);
		return CLAIMED;
	}
	if (crossed)
		return CROSSED;		/* the shared tail goes on: said already */
	if (in_chain(e, first, nofat, step, c)) {
		chain_problem(e, e->ids->loop, who, c, NULL);
		return LOOP;
	}
	if ((f = ck_add_owner(e, e->ids->cross, who))) {
		finding_actual(f, "%u", c);
		finding_detail(f, "another file or directory checked earlier");
		if (e->nxlinks < sizeof(e->xlinks) / sizeof(e->xlinks[0]))
			e->xlinks[e->nxlinks++] = (struct ck_xlink){ c, (size_t)(f - e->out->v), false };
	}
	return CROSSED;
}

static void length_check(struct ck_engine *e, const struct owner *who, uint64_t have, uint64_t need, bool ended)
{
	struct fsc_finding *f;

	if (have == need || need == 0 || !ended)
		return;
	f = ck_add_owner(e, have < need ? e->ids->shorter : e->ids->longer, who);
	if (f) {
		finding_actual(f, "%llu", (unsigned long long)have);
		finding_expected(f, "%llu", (unsigned long long)need);
	}
}

/* The first cluster, and the size of a contiguous allocation, inside the clusters there are. */
static bool claim_start(struct ck_engine *e, const struct owner *who, uint32_t first, bool nofat,
			uint64_t *need)
{
	char msg[80];

	if (!ck_cluster_valid(e, first)) {
		snprintf(msg, sizeof(msg), "first cluster %u", first);
		chain_problem(e, e->ids->range, who, first, msg);
		return false;
	}
	if (nofat && *need > (uint64_t)e->count + 2 - first) {
		snprintf(msg, sizeof(msg), "%llu contiguous clusters from %u", (unsigned long long)*need, first);
		chain_problem(e, e->ids->range, who, first, msg);
		*need = (who->fallback + e->cluster_bytes - 1) / e->cluster_bytes;
		if (!*need || *need > (uint64_t)e->count + 2 - first)
			*need = (uint64_t)e->count + 2 - first;
	}
	return true;
}

/* The link after c: true to go on with *c; false at the end (*ended) or a broken link (reported). */
static bool claim_next(struct ck_engine *e, const struct owner *who, uint64_t n, uint32_t *c, bool *ended,
		       struct chain_res *res)
{
	uint32_t next = e->next(e->next_ctx, *c);
	char msg[80];

	if (next == CK_END_ODD && !e->owners_pass) {
		snprintf(msg, sizeof(msg), "0x%08x", e->next_raw ? e->next_raw(e->next_ctx, *c) : next);
		chain_problem(e, e->ids->end_value, who, *c, msg);
		if (grow((void **)&e->odd_ends, &e->capodd_ends, e->nodd_ends + 1, sizeof(*e->odd_ends)))
			e->odd_ends[e->nodd_ends++] = *c;
	}
	if (next == CK_END || next == CK_END_ODD) {
		*ended = true;
		return false;
	}
	if (next == CK_FREE || next == CK_BAD) {
		chain_problem(e, next ? e->ids->bad : e->ids->free, who, n, NULL);
		res->broken = true;
		return false;
	}
	if (!ck_cluster_valid(e, next)) {
		snprintf(msg, sizeof(msg), "cluster %u points to 0x%08x", *c, next);
		chain_problem(e, e->ids->range, who, next, msg);
		res->broken = true;
		return false;
	}
	if (next != *c + 1)
		res->contiguous = false;
	*c = next;
	return true;
}

void ck_claim_held(struct ck_engine *e, const struct owner *who, uint32_t first, uint64_t size, bool nofat, bool held,
		   struct chain_res *res, cluster_fn visit, void *ctx)
{
	uint64_t need = (size + e->cluster_bytes - 1) / e->cluster_bytes, n = 0, asked = need;
	uint32_t c = first;
	bool ended = false, visiting = visit != NULL, crossed = false, shadow = false;

	memset(res, 0, sizeof(*res));
	res->contiguous = true;
	if (!claim_start(e, who, first, nofat, &need)) {
		res->broken = true;	/* a first cluster outside the heap (reported) */
		return;
	}
	for (;;) {
		enum claim cl = shadow ? CROSSED : claim_one(e, who, first, nofat, n, c, crossed, held);

		res->broken |= cl == LOOP;
		/*
		 * After a cross-link: claim the rest up to DataLength, read
		 * nothing more; but clusters in a row whose DataLength runs past
		 * the heap (a damaged size) claim nothing past the cross-link:
		 * the files that hold those clusters are not taken for
		 * cross-links with a size that cannot be.
		 */
		if (cl == CROSSED && nofat && first - 2ull + asked > e->count) {
			res->crossed = true;
			break;
		}
		if (cl == LOOP || (cl == CROSSED && (size == 0 || n >= need || n >= e->count))) {
			res->crossed |= cl == CROSSED && size == 0;	/* (a chain known by its end: the cross-link ends it) */
			break;
		}
		if (cl == CROSSED) {
			/* (a directory's first cluster held for it, not walked yet: the rest is counted, its to claim) */
			shadow |= !crossed && e->pending_head && e->pending_head(e->pending_ctx, c);
			crossed = res->crossed = true;
			visiting = false;
		}
		if (crossed && !res->after_shared && n < need) {	/* the first shared run, and what follows it */
			if (cl == CROSSED)
				res->shared++;
			else
				res->after_shared = c;
		}
		if (n == 0 && cl == CLAIMED)
			res->readable = true;
		if (!crossed) {
			res->good = n + 1;
			res->last_good = c;
		}
		if (n + 1 == need)
			res->at_need = c;
		n++;
		if (visiting && !visit(ctx, c))
			visiting = false;
		if (nofat) {
			ended = n >= need;
			if (ended)
				break;
			c++;
		} else if (!claim_next(e, who, n, &c, &ended, res)) {
			break;
		}
	}
	res->clusters = n;
	res->ended = ended;
	length_check(e, who, n, need, ended);
}

void ck_claim(struct ck_engine *e, const struct owner *who, uint32_t first, uint64_t size, bool nofat,
	      struct chain_res *res, cluster_fn visit, void *ctx)
{
	ck_claim_held(e, who, first, size, nofat, false, res, visit, ctx);
}

int ck_name_owners(struct ck_engine *e, int (*walk)(void *ctx), void *ctx)
{
	struct fsc_check_summary keep = *e->sum;
	int rc;

	if (!e->nxlinks)
		return 0;
	e->owners_set = calloc(((uint64_t)e->count + 63) / 64 + 1, 8);
	if (!e->owners_set)
		return -ENOMEM;
	e->owners_pass = true;
	rc = walk(ctx);
	e->owners_pass = false;
	*e->sum = keep;
	return rc;
}

static void runs_flush(struct ck_runs *r)
{
	size_t o = strlen(r->text);

	if (!r->open)
		return;
	r->open = false;
	r->nruns++;
	if (r->nruns > 6 || o + 24 > sizeof(r->text))
		return;
	if (r->start == r->last)
		snprintf(r->text + o, sizeof(r->text) - o, "%s%llu", o ? ", " : "", (unsigned long long)r->start);
	else
		snprintf(r->text + o, sizeof(r->text) - o, "%s%llu-%llu", o ? ", " : "",
			 (unsigned long long)r->start, (unsigned long long)r->last);
}

void ck_runs_add(struct ck_runs *r, uint64_t cluster)
{
	if (r->open && cluster == r->last + 1) {
		r->last = cluster;
	} else {
		runs_flush(r);
		if (!r->count)
			r->first = cluster;
		r->open = true;
		r->start = r->last = cluster;
	}
	r->count++;
}

void ck_runs_report(struct ck_engine *e, enum fsc_problem id, struct ck_runs *r)
{
	struct fsc_finding *f;

	runs_flush(r);
	if (!r->count || !(f = ck_add(e, id, FSC_LOC_CLUSTER, r->first, NULL)))
		return;
	finding_actual(f, "%llu", (unsigned long long)r->count);
	finding_detail(f, "%s%s (%llu cluster%s in %llu run%s)", r->text, r->nruns > 6 ? ", ..." : "",
		       (unsigned long long)r->count, r->count == 1 ? "" : "s",
		       (unsigned long long)r->nruns, r->nruns == 1 ? "" : "s");
}
