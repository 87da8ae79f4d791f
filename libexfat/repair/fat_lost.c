// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_lost.c - the lost clusters of a FAT volume, once the other fixes are
 * planned and no error is left: saved, not freed, by default (Windows
 * chkdsk's convention, as the exFAT repair does): every lost chain becomes
 * a file FILEnnnn.CHK, in FAT order from its head, of a new directory
 * FOUND.nnn in the root (the first number free); with --lost-to DIR each
 * chain is read out to the caller and then freed; with --lost=free they
 * are freed.  A chain ends where its next link leaves the lost clusters
 * or joins a chain taken already (that link becomes an end mark); chains
 * that loop are taken from their lowest cluster.
 *
 * Write order: the chains' end marks, the new directory's clusters (filled
 * and chained in the active FAT), a root cluster more where the FAT32 root
 * is full, then after a sync the one root entry that links it all; the
 * other FAT copies follow at the end (fat_repair.c).  Cut before the link,
 * the new clusters are lost in the active copy and free in the others:
 * the next repair leaves them out of the chains to save and takes them
 * again (fr_next_free), so it converges to the same tree.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "repair/dired.h"
#include "fat/fat.h"

#define MAX_SAVED 65000u		/* a FAT directory holds 65536 entries */

struct lchain {
	uint32_t head;
	uint64_t n;
};

/* Index of c in the sorted list (SIZE_MAX: not in it). */
static size_t lost_index(const uint32_t *v, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] == c)
			return mid;
		if (v[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* Walk one chain from head while it stays lost and untaken; its end marked. */
static struct lchain take_chain(struct frp *f, uint8_t *taken, uint32_t head, bool mark)
{
	struct lchain ch = { head, 0 };
	struct layout_chain it;
	uint32_t c = head, next;
	size_t i;

	fr_chain(&it, f, head);
	layout_chain_next(&it, &c);	/* (head itself: a lost cluster) */
	for (;;) {
		taken[lost_index(f->lost, f->nlost, c)] = 1;
		ch.n++;
		if (!layout_chain_next(&it, &next) || (i = lost_index(f->lost, f->nlost, next)) == SIZE_MAX || taken[i])
			break;
		c = next;
	}
	if (mark && layout_fat_value(&f->lay, fr_fat_get(f, c)) != LAYOUT_END)
		fr_fat_set(f, c, fr_eoc(f), "end a lost chain");
	return ch;
}

/* The lost chains: heads (lost clusters no lost cluster links to) first, then what loops. */
static struct lchain *find_chains(struct frp *f, size_t *nchains, bool mark)
{
	uint8_t *linked = calloc(f->nlost + 1, 1), *taken = calloc(f->nlost + 1, 1);
	struct lchain *v = calloc(f->nlost + 1, sizeof(*v));
	size_t n = 0;

	if (!linked || !taken || !v) {
		free(v);
		v = NULL;
		goto out;
	}
	for (size_t i = 0; i < f->nlost; i++) {
		uint32_t next = fr_step(f, f->lost[i]);
		size_t k = next ? lost_index(f->lost, f->nlost, next) : SIZE_MAX;

		if (k != SIZE_MAX && k != i)
			linked[k] = 1;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f->nlost && n < MAX_SAVED; i++)
			if (!taken[i] && (pass || !linked[i]))
				v[n++] = take_chain(f, taken, f->lost[i], mark);
out:
	*nchains = n;
	free(linked);
	free(taken);
	return v;
}

/* --lost-to: each chain's bytes, cluster by cluster, to the caller. */
static void export_chains(struct frp *f, const struct lchain *v, size_t n)
{
	uint32_t cb = f->lay.cluster_bytes;
	uint8_t *buf = malloc(cb);

	for (size_t i = 0; buf && i < n && !f->r.err; i++) {
		struct layout_chain it;
		uint32_t c;

		for (fr_chain(&it, f, v[i].head); it.n < v[i].n && !f->r.err && layout_chain_next(&it, &c);) {
			if (plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), buf, cb) < 0)
				f->r.err = -EIO;
			else if (f->r.o->lost_bytes(f->r.o->ctx, (unsigned)i, (it.n - 1) * cb, buf, cb))
				f->r.err = -ECANCELED;
		}
	}
	if (!buf)
		f->r.err = -ENOMEM;
	free(buf);
}

/* An 8.3 entry name (11 bytes) attr, first cluster, size, dated now. */
static void new_entry(const struct frp *f, uint8_t *e, const char *name11, uint8_t attr, uint32_t first,
		      uint32_t size)
{
	fr_dot_entry(f, e, false, first);	/* the dates and first cluster */
	memcpy(e + FAT_DIR_NAME, name11, FAT_DIR_NAME_LEN);
	e[FAT_DIR_ATTR] = attr;
	fat_dirent_put_file_size(e, size);
}

/*
 * A directory's slots as the plan leaves it: the first free one, the
 * FOUND.nnn and DIRnnnn.CHK names taken, and (want) a deleted directory
 * entry that points to cluster want, with the deleted long-name parts
 * right before it.
 */
struct dir_scan {
	uint32_t want;
	uint64_t slot;			/* a free or deleted slot (0: none) */
	uint8_t found[1000];		/* FOUND.nnn taken */
	uint8_t chk[10000];		/* DIRnnnn.CHK taken */
	uint64_t revive;		/* the deleted entry of want (0: none) */
	uint8_t raw[11];		/* its name, the first byte found through the parts' checksum or '_' */
	uint64_t part[20];		/* its long-name parts, nearest first */
	unsigned nparts;
	struct fat_lfn lfn;		/* the deleted parts read last */
	uint64_t run[FAT_LFN_MAX_PARTS];
	unsigned nrun;
};

static unsigned digits(const uint8_t *s, unsigned n)
{
	unsigned v = 0;

	for (unsigned i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return UINT_MAX;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static void scan_entry(const struct frp *f, const uint8_t *e, uint64_t at, struct dir_scan *rs)
{
	enum fat_kind k = fat_entry_kind(e);
	unsigned n;

	if (!memcmp(e, "FOUND   ", 8) && (n = digits(e + 8, 3)) != UINT_MAX)
		rs->found[n] = 1;
	if (!memcmp(e, "DIR", 3) && !memcmp(e + 8, "CHK", 3) && (n = digits(e + 3, 4)) != UINT_MAX && e[7] == ' ')
		rs->chk[n] = 1;
	if (k == FAT_E_LFN_DELETED) {
		fat_lfn_add(&rs->lfn, e);
		if (rs->lfn.parts == 1)
			rs->nrun = 0;		/* (a new name began) */
		if (rs->nrun < FAT_LFN_MAX_PARTS) {
			memmove(rs->run + 1, rs->run, rs->nrun * sizeof(*rs->run));
			rs->run[0] = at;
		}
		rs->nrun++;		/* (past 20, too many for one name: none is revived) */
		return;
	}
	if (k == FAT_E_DELETED && rs->want && !rs->revive && (e[FAT_DIR_ATTR] & FAT_ATTR_DIR_LABEL) == FAT_ATTR_DIRECTORY &&
	    fat_entry_first(e, f->lay.fat_bits) == rs->want) {
		rs->revive = at;
		memcpy(rs->raw, e, 11);
		rs->nparts = 0;
		if (fat_lost_first_byte(&rs->lfn, rs->raw) && rs->lfn.parts == rs->nrun) {
			rs->nparts = rs->nrun;
			memcpy(rs->part, rs->run, sizeof(rs->part));
		} else {
			rs->raw[0] = '_';
		}
	}
	fat_lfn_reset(&rs->lfn);
	rs->nrun = 0;
}

/* The directory editor's reader and edits in a FAT repair (ctx: a struct fr_dired). */
struct fr_dired {
	struct frp *f;
	struct dir_scan *rs;
	bool taken;			/* the new cluster counts in taken_after (no check follows) */
};

static void fd_entry(void *ctx, const uint8_t *e, uint64_t off, uint32_t cluster, uint32_t index)
{
	struct fr_dired *fd = ctx;

	(void)cluster;
	(void)index;
	scan_entry(fd->f, e, off, fd->rs);
}

static int fd_put(void *ctx, uint64_t off, const void *data, size_t len, const char *why)
{
	struct frp *f = ((struct fr_dired *)ctx)->f;

	rp_put(&f->r, off, data, len, why, false);
	return f->r.err;
}

static uint32_t fd_take(void *ctx)
{
	struct fr_dired *fd = ctx;
	uint32_t nw = fr_next_free(fd->f);

	if (nw) {
		fr_fat_set(fd->f, nw, fr_eoc(fd->f), "a new directory cluster");
		fd->f->taken_after += fd->taken;
	}
	return nw;
}

static int fd_link(void *ctx, uint32_t c, uint32_t next)
{
	struct frp *f = ((struct fr_dired *)ctx)->f;

	fr_fat_set(f, c, next, "the directory's chain goes on");
	return f->r.err;
}

/*
 * A slot in directory dir (0: the root) for a new entry, through the
 * directory editor: scanned whole (each entry to scan_entry); a directory
 * in the data area that is full grows a cluster (taken counts it when no
 * check follows); false: no room (a full FAT12/16 root).
 */
static bool dir_slot(struct frp *f, uint32_t dir, struct dir_scan *rs, bool taken)
{
	struct layout l = f->lay;	/* the active copy, the clusters checked */
	struct fr_dired fd = { f, rs, taken };
	struct dired d = { .dev = f->r.dev, .plan = f->r.plan, .g = &l };
	struct dired_ops ops = { fd_put, fd_take, fd_link, &fd };
	struct dired_slots s = { .want = 1, .each = fd_entry, .ctx = &fd };

	l.fat_byte = fr_copy_byte(f, f->active);
	l.held = f->cc;
	if (dired_find(&d, dir, &s) < 0) {
		f->r.err = -ENOMEM;
		return false;
	}
	if (!s.found && !f->r.err) {
		int e = dired_grow(&d, &ops, &s);

		if (e < 0 && e != -ENOSPC && !f->r.err)	/* (-ENOSPC: no free cluster, or a full fixed root) */
			f->r.err = e;
	}
	rs->slot = s.found ? s.slot[0] : 0;
	return rs->slot != 0;
}

/*
 * Lost directory c linked into parent (0: the root), the directory its ..
 * names: under its old name where a deleted entry there still points to
 * it (its long-name parts revived with it when their checksum gave the
 * first byte back), else as DIRnnnn.CHK.  False: no room.
 */
static bool relink_dir(struct frp *f, uint32_t c, uint32_t parent)
{
	struct dir_scan rs = { .want = c };
	unsigned num = 0;
	uint8_t e[32];
	char name[12];

	if (!dir_slot(f, parent, &rs, false))
		return false;
	if (rs.revive) {
		for (unsigned j = 0; j < rs.nparts && !f->r.err; j++) {
			uint8_t seq = (uint8_t)((j + 1) | (j + 1 == rs.nparts ? 0x40 : 0));

			rp_put(&f->r, rs.part[j], &seq, 1, "a lost directory's long-name part in use again", false);
		}
		rp_put(&f->r, rs.revive, rs.raw, 1, "a lost directory's deleted entry in use again (the first letter as recovered)",
		    false);
		return true;
	}
	while (num < 10000 && rs.chk[num])
		num++;
	if (num == 10000)
		return false;
	snprintf(name, sizeof(name), "DIR%04u CHK", num);
	new_entry(f, e, name, 0x10, c, 0);
	rp_put(&f->r, rs.slot, e, 32, "an entry for a lost directory, in the directory its .. names", false);
	return true;
}

size_t fr_relink_lost_dirs(struct frp *f)
{
	size_t done = 0;

	for (size_t i = 0; i < f->nlostdirs && !f->r.err; i++) {
		const struct lost_dir *q = &f->lostdirs[i];
		struct fsc_finding *x = NULL;

		if (fr_free_in_last(f, q->c))
			continue;	/* (a directory a repair cut short made, before its entry: see drop_fresh) */
		for (size_t k = 0; k < f->r.out->n && !x; k++)
			if (f->r.out->v[k].id == FSC_PR_FAT_LOST_DIRECTORY && f->r.out->v[k].loc == q->c)
				x = &f->r.out->v[k];
		if (!x && (x = finding_add(f->r.out, FSC_PR_FAT_LOST_DIRECTORY, FSC_LOC_CLUSTER, q->c, NULL))) {
			finding_actual(x, "%u", q->c);		/* (found below a directory linked back) */
			if (q->parent)
				finding_detail(x, "the directory at cluster %u", q->parent);
			else
				finding_detail(x, "/ (the root)");
		}
		if (!x || !rp_wanted(&f->r, x) || !relink_dir(f, q->c, q->parent))
			continue;
		x->planned = true;
		done++;
	}
	f->nlostdirs = 0;
	return done;
}

/* The new directory: its clusters (taken, chained) and entries: . and .., FILEnnnn.CHK for each chain. */
static uint32_t write_found(struct frp *f, const struct lchain *v, size_t n)
{
	uint32_t cb = f->lay.cluster_bytes;
	uint64_t nclus = ((n + 2) * 32 + cb - 1) / cb;
	uint32_t *dc = malloc(nclus * sizeof(*dc));
	uint8_t *d = calloc(nclus, cb);
	uint32_t first = 0;
	char name[12];

	if (!dc || !d || !fr_take_free(f, dc, nclus))
		goto out;
	fr_dot_entry(f, d, false, dc[0]);
	fr_dot_entry(f, d + 32, true, 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t bytes = v[i].n * cb;

		snprintf(name, sizeof(name), "FILE%04zuCHK", i % 10000);
		new_entry(f, d + 32 * (i + 2), name, 0x20, v[i].head, bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)bytes);
	}
	for (uint64_t k = 0; k < nclus; k++) {
		rp_put(&f->r, layout_cluster_byte(&f->lay, dc[k]), d + k * cb, cb, "the FOUND directory", false);
		fr_fat_set(f, dc[k], k + 1 < nclus ? dc[k + 1] : fr_eoc(f), "the FOUND directory's chain");
	}
	f->taken_after += nclus;
	first = dc[0];
out:
	free(dc);
	free(d);
	return first;
}

/* Every lost chain saved as /FOUND.nnn/FILEnnnn.CHK; false when there is no room (left lost). */
static bool save_chains(struct frp *f)
{
	struct dir_scan rs = { 0 };
	struct lchain *v;
	size_t n, at;
	unsigned num = 0;
	uint32_t dir;
	uint8_t e[32];
	char name[12];

	if (!dir_slot(f, 0, &rs, true))
		return false;
	while (num < 1000 && rs.found[num])
		num++;
	if (num == 1000 || !(v = find_chains(f, &n, true)))
		return false;
	dir = n ? write_found(f, v, n) : 0;
	free(v);
	if (!dir)
		return false;
	snprintf(name, sizeof(name), "FOUND   %03u", num);
	new_entry(f, e, name, 0x10, dir, 0);
	at = fsc_plan_count(f->r.plan);
	rp_put(&f->r, rs.slot, e, 32, "the FOUND directory's entry, which links the saved chains", false);
	if (fsc_plan_count(f->r.plan) > at)
		plan_sync_before(f->r.plan, at);
	return true;
}

/*
 * A lost cluster the plan cannot tell from one a repair cut short took
 * (lost in the active copy, free in the copy written last) is left out of
 * the chains: the new repair takes it again for its own directory.
 */
static void drop_fresh(struct frp *f)
{
	size_t k = 0;

	for (size_t i = 0; i < f->nlost; i++)
		if (!fr_free_in_last(f, f->lost[i]))
			f->lost[k++] = f->lost[i];
	f->nlost = k;
}

uint64_t fr_handle_lost(struct frp *f, bool errors)
{
	struct fsc_finding *x = rp_find(&f->r, FSC_PR_FAT_LOST_CLUSTERS);
	bool freeing = f->r.o->free_lost;
	struct lchain *v;
	size_t n;

	if (!freeing)
		drop_fresh(f);
	if (errors || !f->nlost || (f->r.o->level != FSC_REPAIR_ALL && !f->r.o->preen_saves_lost) ||
	    (x && !rp_take(&f->r, FSC_PR_FAT_LOST_CLUSTERS)))
		return 0;
	if (!freeing) {
		if (!save_chains(f))
			rp_unplan(&f->r, FSC_PR_FAT_LOST_CLUSTERS);
		return 0;
	}
	if (f->r.o->lost_bytes) {
		if (!(v = find_chains(f, &n, false))) {
			f->r.err = -ENOMEM;
			return 0;
		}
		export_chains(f, v, n);
		free(v);
	}
	for (size_t i = 0; i < f->nlost && !f->r.err; i++)
		fr_fat_set(f, f->lost[i], 0, f->r.o->lost_bytes ? "free a lost cluster (read out to --lost-to)" :
								  "free a lost cluster (--lost=free)");
	return f->nlost;
}

bool fr_root_slot(struct frp *f, uint64_t *slot)
{
	struct dir_scan *rs = calloc(1, sizeof(*rs));
	bool ok;

	if (!rs) {
		f->r.err = -ENOMEM;
		return false;
	}
	ok = dir_slot(f, 0, rs, true);
	*slot = rs->slot;
	free(rs);
	return ok && *slot;
}
