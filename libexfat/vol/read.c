// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read.c - the bytes of files: where a file's clusters are (its FAT chain,
 * or the contiguous run of exFAT's NoFatChain, EXSPEC 6.3.4.2 and 7.6.2),
 * bounded; what is left of a deleted file (exFAT: its chain while that is
 * whole and free; FAT, whose chains are cleared on deletion: the
 * contiguous clusters from its first, as forensic tools read them); and
 * reading at any offset, exFAT's bytes past ValidDataLength as zeros
 * (EXSPEC 7.6.4).
 *
 * Consumes: a struct vol_src (layout, FAT reader, allocation bitmap) and a
 * directory entry.  Produces: runs, recovery states, bytes.  Every chain
 * is bounded by the file's size and by the volume's cluster count, and
 * followed through the one chain iterator (layout/chain.c), whose loop
 * test cuts a loop where it closes, so a damaged chain never gives
 * endless or repeated bytes.  Memory: one run per fragment.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vol/geo.h"

FSC_EXPORT const char *fsc_recovery_name(enum fsc_recovery r)
{
	static const char *const names[] = { "live", "intact", "partial", "overwritten", "unknown" };

	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

void vol_runs_free(struct vol_runs *r)
{
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

static void runs_reset(struct vol_runs *r)
{
	r->n = 0;
	r->clusters = r->reused = 0;
}

/* One more cluster at the end (gone: in use again, read as zeros). */
static int add(struct vol_runs *r, uint32_t c, bool gone, uint32_t cb)
{
	struct vol_run *last = r->n ? &r->v[r->n - 1] : NULL;

	if (last && (gone ? last->first == 0 : last->first && c == last->first + last->count) &&
	    last->count < UINT32_MAX) {
		last->count++;
	} else {
		if (!grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
			return -ENOMEM;
		r->v[r->n++] = (struct vol_run){ gone ? 0 : c, 1, r->clusters * cb };
	}
	r->clusters++;
	r->reused += gone;
	return 0;
}

enum stop { ST_DONE, ST_END, ST_BROKEN, ST_LOOP, ST_USED, ST_NOMEM };

/*
 * Follow the chain from first into r until need clusters (0: to its end),
 * through the one chain iterator, so that no cluster is taken twice;
 * free_only: stop at a cluster in use (a deleted file's).  The stop, with
 * why for a broken chain or a loop.
 */
static enum stop follow(struct vol_src *s, uint32_t first, uint64_t need, bool free_only, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;
	struct layout_chain it;
	uint32_t c;

	layout_chain_begin(&it, l, fatreader_link, &s->fr, first, need && need < l->held ? need : l->held, false);
	while (layout_chain_next(&it, &c)) {
		if (free_only && !vol_cluster_free(s, c))
			return ST_USED;
		if (add(r, c, false, l->cluster_bytes) < 0)
			return ST_NOMEM;
		if (r->clusters == need && !layout_chain_at_loop(&it))
			return ST_DONE;
	}
	switch (it.end) {
	case LAYOUT_CHAIN_END:
		return ST_END;
	case LAYOUT_CHAIN_LOOP:
	case LAYOUT_CHAIN_LONG:
		snprintf(r->why, sizeof(r->why), "the chain loops back to cluster %u after %llu clusters",
			 it.end == LAYOUT_CHAIN_LOOP ? it.loop_to : it.link, (unsigned long long)r->clusters);
		return ST_LOOP;
	case LAYOUT_CHAIN_RANGE:
		snprintf(r->why, sizeof(r->why), "cluster %u is outside the data area", it.link);
		return ST_BROKEN;
	default:
		snprintf(r->why, sizeof(r->why), "cluster %u is followed by %s", it.cur,
			 it.end == LAYOUT_CHAIN_FREE ? "a free entry" : it.end == LAYOUT_CHAIN_BAD ? "a bad entry" :
			 "an entry that cannot be read");
		return ST_BROKEN;
	}
}

/* A live file's chain, need clusters (0: a FAT directory, to its end): 0, -ELOOP, -EUCLEAN, -ENOMEM. */
static int live_chain(struct vol_src *s, uint32_t first, uint64_t need, struct vol_runs *r)
{
	switch (follow(s, first, need, false, r)) {
	case ST_NOMEM:
		return -ENOMEM;
	case ST_BROKEN:
		return -EUCLEAN;
	case ST_LOOP:
		return -ELOOP;
	case ST_END:
		if (!need)
			return 0;
		snprintf(r->why, sizeof(r->why), "the chain ends after %llu of %llu clusters",
			 (unsigned long long)r->clusters, (unsigned long long)need);
		return -EUCLEAN;
	default:
		return 0;
	}
}

/* A live NoFatChain run: every cluster inside the data area. */
static int live_contiguous(struct vol_src *s, uint32_t first, uint64_t need, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;

	if (!layout_cluster_valid(l, first) || need > (uint64_t)l->held + 2 - first) {
		snprintf(r->why, sizeof(r->why), "clusters %u to %llu are not all in the data area", first,
			 (unsigned long long)(first + need - 1));
		return -EUCLEAN;
	}
	r->v = malloc(sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	r->cap = r->n = 1;
	r->v[0] = (struct vol_run){ first, (uint32_t)need, 0 };
	r->clusters = need;
	return 0;
}

/* A deleted file as the contiguous run from first, clusters in use again gone. */
static int deleted_contiguous(struct vol_src *s, uint32_t first, uint64_t need, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;

	runs_reset(r);
	r->contiguous = true;
	for (uint64_t i = 0; i < need; i++) {
		uint32_t c = (uint32_t)(first + i);
		bool valid = first + i <= UINT32_MAX && layout_cluster_valid(l, c);

		if (add(r, valid ? c : 0, !valid || !vol_cluster_free(s, c), l->cluster_bytes) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A deleted file: its chain if whole and free (exFAT), else the contiguous guess. */
static int deleted(struct vol_src *s, const struct fsc_dirent *d, uint64_t need, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;
	int e;

	if (!layout_cluster_valid(l, d->first_cluster) || need > l->held ||
	    (l->type == FSC_TYPE_EXFAT && !s->bitmap)) {
		r->state = FSC_REC_UNKNOWN;
		return 0;
	}
	if (l->type == FSC_TYPE_EXFAT && !d->nofat) {
		enum stop st = follow(s, d->first_cluster, need, true, r);

		if (st == ST_NOMEM)
			return -ENOMEM;
		if (st == ST_DONE) {
			r->state = FSC_REC_INTACT;
			return 0;
		}
	}
	if ((e = deleted_contiguous(s, d->first_cluster, need, r)) < 0)
		return e;
	r->state = !r->reused ? FSC_REC_INTACT : r->reused == r->clusters ? FSC_REC_OVERWRITTEN : FSC_REC_PARTIAL;
	r->why[0] = '\0';
	return 0;
}

int vol_runs_of(struct vol_src *s, const struct fsc_dirent *d, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;
	bool fatdir = d->dir && l->type != FSC_TYPE_EXFAT;
	uint64_t need = (d->size + l->cluster_bytes - 1) / l->cluster_bytes;

	memset(r, 0, sizeof(*r));
	r->state = d->deleted ? FSC_REC_INTACT : FSC_REC_LIVE;
	if (fatdir)
		need = d->deleted ? 1 : 0;	/* a FAT directory has no size: to its chain's end */
	if (!d->first_cluster || (!need && !fatdir)) {
		if (need && !d->deleted) {
			snprintf(r->why, sizeof(r->why), "no clusters for %llu bytes", (unsigned long long)d->size);
			return -EUCLEAN;
		}
		if (need)
			r->state = FSC_REC_UNKNOWN;
		return 0;	/* empty */
	}
	if (d->deleted)
		return deleted(s, d, need, r);
	if (need > l->held) {
		snprintf(r->why, sizeof(r->why), "%llu bytes do not fit in the volume", (unsigned long long)d->size);
		return -EUCLEAN;
	}
	if (d->nofat && l->type == FSC_TYPE_EXFAT)
		return live_contiguous(s, d->first_cluster, need, r);
	return live_chain(s, d->first_cluster, need, r);
}

/* The run holding byte off (off inside r's clusters): binary search. */
static size_t run_at(const struct vol_runs *r, uint64_t off)
{
	size_t lo = 0, hi = r->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].byte <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int vol_runs_read(struct vol_src *s, const struct vol_runs *r, uint64_t off, void *buf, size_t len)
{
	const struct layout *l = &s->fr.l;
	uint8_t *out = buf;

	while (len) {
		const struct vol_run *run = &r->v[run_at(r, off)];
		uint64_t in = off - run->byte, left = (uint64_t)run->count * l->cluster_bytes - in;
		size_t n = left < len ? (size_t)left : len;
		int e;

		if (!run->first)
			memset(out, 0, n);
		else if ((e = fsc_dev_read(l->dev, layout_cluster_byte(l, run->first) + in, out, n)) < 0)
			return e;
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * A live allocation vol_runs_of refused (a loop, a break): its clusters
 * from the first up to the break, each once, so that the bytes before
 * the damage can be read.  r keeps its why (a loop: where it closes,
 * counted in the clusters kept).  0 or -ENOMEM.
 */
static int runs_to_break(struct vol_src *s, const struct fsc_dirent *d, struct vol_runs *r)
{
	const struct layout *l = &s->fr.l;
	uint64_t need = (d->size + l->cluster_bytes - 1) / l->cluster_bytes;

	runs_reset(r);
	if (!layout_cluster_valid(l, d->first_cluster))
		return 0;	/* no cluster to read */
	if (d->nofat && l->type == FSC_TYPE_EXFAT) {
		uint64_t room = (uint64_t)l->held + 2 - d->first_cluster;

		if (!grow((void **)&r->v, &r->cap, 1, sizeof(*r->v)))
			return -ENOMEM;
		r->clusters = need < room ? need : room;
		r->v[0] = (struct vol_run){ d->first_cluster, (uint32_t)r->clusters, 0 };
		r->n = 1;
		return 0;
	}
	/* (follow takes no cluster twice: a loop is cut where it closes, its why said) */
	return follow(s, d->first_cluster, need && need < l->held ? need : l->held, false, r) == ST_NOMEM ? -ENOMEM : 0;
}

/* ---- the public reader ---- */

struct fsc_reader {
	struct vol_src src;
	unsigned flags;
	uint64_t *claimed;		/* FSC_READER_CROSSLINKS: clusters of the live files opened */
};

struct fsc_file {
	struct fsc_reader *rd;
	struct vol_runs runs;
	uint64_t size, valid;		/* bytes, and those before ValidDataLength */
	int damage;			/* FSC_READER_TO_BREAK: -ELOOP, -EUCLEAN, or 0 */
	uint32_t shared;		/* FSC_READER_CROSSLINKS: the first cluster an earlier file has */
};

FSC_EXPORT int fsc_reader_open(struct fsc_dev *dev, const struct fsc_probe *p, unsigned flags,
			       struct fsc_reader **out)
{
	struct fsc_reader *rd = calloc(1, sizeof(*rd));
	int r;

	*out = NULL;
	if (!rd)
		return -ENOMEM;
	r = vol_src_open(&rd->src, dev, p);
	if (r < 0) {
		free(rd);
		return r;
	}
	rd->flags = flags;
	if (flags & FSC_READER_CROSSLINKS &&
	    !(rd->claimed = calloc(((uint64_t)rd->src.fr.l.held + 63) / 64 + 1, sizeof(uint64_t)))) {
		fsc_reader_close(rd);
		return -ENOMEM;
	}
	*out = rd;
	return 0;
}

FSC_EXPORT void fsc_reader_close(struct fsc_reader *rd)
{
	if (!rd)
		return;
	vol_src_close(&rd->src);
	free(rd->claimed);
	free(rd);
}

/* Claim the file's clusters: the first one a file opened before has (0: none). */
static uint32_t claim(struct fsc_reader *rd, const struct vol_runs *r)
{
	uint32_t shared = 0;

	for (size_t i = 0; i < r->n; i++)
		for (uint32_t k = 0; r->v[i].first && k < r->v[i].count; k++)
			if (bit_test_set(rd->claimed, r->v[i].first + k - 2) && !shared)
				shared = r->v[i].first + k;
	return shared;
}

FSC_EXPORT int fsc_file_open(struct fsc_reader *rd, const struct fsc_dirent *caller, struct fsc_file **out,
			     char *why, size_t whylen)
{
	struct fsc_dirent own;
	const struct fsc_dirent *d = &own;
	struct fsc_file *f;
	int r;

	*out = NULL;
	if (why && whylen)
		why[0] = '\0';
	if ((r = sized_copy(&own, sizeof(own), caller)) < 0 || !caller)
		return r < 0 ? r : -EINVAL;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	f->rd = rd;
	r = vol_runs_of(&rd->src, d, &f->runs);
	if ((r == -ELOOP || r == -EUCLEAN) && (rd->flags & FSC_READER_TO_BREAK) && !d->deleted) {
		f->damage = r;
		r = runs_to_break(&rd->src, d, &f->runs);
		if (why && whylen)
			snprintf(why, whylen, "%s", f->runs.why);
	}
	if (r == 0 && rd->claimed && !d->deleted)
		f->shared = claim(rd, &f->runs);
	if (r < 0) {
		if (why && whylen)
			snprintf(why, whylen, "%s", f->runs.why[0] ? f->runs.why : "out of memory");
		fsc_file_close(f);
		return r;
	}
	f->size = d->dir && rd->src.fr.l.type != FSC_TYPE_EXFAT ? f->runs.clusters * rd->src.fr.l.cluster_bytes :
		  d->size;
	if (f->size > f->runs.clusters * rd->src.fr.l.cluster_bytes)	/* a deleted file not known */
		f->size = f->runs.clusters * rd->src.fr.l.cluster_bytes;
	f->valid = rd->src.fr.l.type == FSC_TYPE_EXFAT && d->valid_size < f->size ? d->valid_size : f->size;
	*out = f;
	return 0;
}

FSC_EXPORT int fsc_file_damage(const struct fsc_file *f)
{
	return f->damage;
}

FSC_EXPORT uint32_t fsc_file_shared(const struct fsc_file *f)
{
	return f->shared;
}

FSC_EXPORT uint64_t fsc_file_size(const struct fsc_file *f)
{
	return f->size;
}

FSC_EXPORT enum fsc_recovery fsc_file_recovery(const struct fsc_file *f)
{
	return f->runs.state;
}

FSC_EXPORT uint64_t fsc_file_clusters(const struct fsc_file *f, uint64_t *reused)
{
	if (reused)
		*reused = f->runs.reused;
	return f->runs.clusters;
}

FSC_EXPORT int64_t fsc_file_read(struct fsc_file *f, uint64_t off, void *buf, size_t len)
{
	uint64_t n;
	int r;

	if (off >= f->size)
		return 0;
	n = f->size - off < len ? f->size - off : len;
	if (n > INT64_MAX)
		n = INT64_MAX;
	if (off < f->valid) {
		uint64_t k = f->valid - off < n ? f->valid - off : n;

		if ((r = vol_runs_read(&f->rd->src, &f->runs, off, buf, (size_t)k)) < 0)
			return r;
		memset((uint8_t *)buf + k, 0, (size_t)(n - k));
	} else {
		memset(buf, 0, (size_t)n);
	}
	return (int64_t)n;
}

FSC_EXPORT void fsc_file_close(struct fsc_file *f)
{
	if (!f)
		return;
	vol_runs_free(&f->runs);
	free(f);
}
