// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_dups.c - the names of the directory being walked, kept as its
 * entries are read: equal 8.3 names, and names as shown (long, or 8.3)
 * that differ only in case, found once the directory is read.  For a
 * repair, each 8.3 name that is invalid or a duplicate gets a new one,
 * unique in the directory (fat_hooks rename), its long-name parts' checksum
 * following, so that the long name stays with it.
 *
 * Consumes: the names of one directory.  Produces: findings, renames
 * offered.  Memory: the names of one directory.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fat_walk.h"
#include "fat/fat.h"


static uint64_t fold_hash(const uint16_t *u, unsigned n)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < n; i++)
		h = (h ^ u[i]) * 1099511628211ull;
	return h;
}

void fw_keep_name(struct ftree *t, const uint8_t *raw, const uint16_t *u, unsigned n, bool lfn, size_t bad, bool same)
{
	size_t np = lfn && hooked(t) ? t->run.n : 0;
	struct dent *d;

	/* (the arena one unit more: never NULL, though a name may have no unit) */
	if (!grow((void **)&t->names, &t->capnames, t->nnames + 1, sizeof(*t->names)) ||
	    !grow((void **)&t->arena, &t->acap, t->alen + n + 1, sizeof(*t->arena)) ||
	    !grow((void **)&t->parts, &t->capparts, t->nparts + np + 1, sizeof(*t->parts)))
		return;
	d = &t->names[t->nnames++];
	memcpy(d->raw, raw, 11);
	if (d->raw[0] == 0x05)
		d->raw[0] = 0xE5;
	d->cl = t->cl;
	d->ent = t->ent;
	d->byte = t->byte;
	d->off = t->alen;
	d->len = (uint16_t)n;
	d->sfn_off = cur_byte(t);
	d->poff = t->nparts;
	d->nparts = np;
	d->finding = bad;
	d->same = same && bad != SIZE_MAX;
	if (np)
		memcpy(t->parts + t->nparts, t->run.off, np * sizeof(*t->parts));
	t->nparts += np;
	for (unsigned i = 0; i < n; i++)
		t->arena[t->alen++] = t->v->upcase[u[i]];
	d->hash = fold_hash(t->arena + d->off, n);
}

static int cmp_raw(const void *a, const void *b)
{
	int c = memcmp(((const struct dent *)a)->raw, ((const struct dent *)b)->raw, 11);

	return c ? c : ((const struct dent *)a)->off < ((const struct dent *)b)->off ? -1 : 1;
}

static int cmp_hash(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : 1;
}

static void dup_finding(struct ftree *t, struct dent *d, const char *what, bool rename)
{
	uint8_t le[2 * FAT_LFN_CAP_UNITS];
	char name[3 * FAT_LFN_CAP_UNITS + 1];
	unsigned n = d->len < FAT_LFN_CAP_UNITS ? d->len : FAT_LFN_CAP_UNITS;
	struct fsc_finding *f;

	for (unsigned i = 0; i < n; i++)
		put_le16(le, 2 * i, t->arena[d->off + i]);
	utf16le_to_utf8(le, n, name, sizeof(name));
	t->cl = d->cl;
	t->ent = d->ent;
	t->byte = d->byte;
	if ((f = at_entry(t, FSC_PR_FAT_NAME_DUPLICATE, name))) {
		finding_actual(f, "%s", name);
		finding_detail(f, "%s", what);
		if (rename && d->finding == SIZE_MAX)
			d->finding = (size_t)(f - t->v->ck.out->v);
		/* names equal but for case: the later one's long name goes (its 8.3 name, unique, shows) */
		if (!rename && d->nparts && hooked(t) && t->v->hooks->lfn)
			t->v->hooks->lfn(t->v->hooks->ctx, (size_t)(f - t->v->ck.out->v), t->parts + d->poff,
					 d->nparts, -1);
	}
}

/* Is raw (0x05 first read as 0xE5) the 8.3 name of an entry (v sorted by name), or one given already? */
static bool taken(const struct dent *v, size_t n, const uint8_t (*given)[11], size_t ngiven, const uint8_t *raw)
{
	size_t lo = 0, hi = n;

	for (size_t i = 0; i < ngiven; i++)
		if (!memcmp(given[i], raw, 11))
			return true;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = memcmp(v[mid].raw, raw, 11);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * A new 8.3 name for raw, unique in the directory: what Windows refuses
 * made '_', then NAME~N.EXT (the base cut to make room) until it is free.
 * false: none (a million tried).
 */
static bool new_name(const struct dent *v, size_t n, const uint8_t (*given)[11], size_t ngiven, const uint8_t *raw,
		     uint8_t *out)
{
	uint8_t s[11];
	char tail[9];

	memcpy(s, raw, 11);
	for (int i = 0; i < 11; i++)
		if ((s[i] < 0x20 && !(i == 0 && s[i] == 0xE5)) || s[i] == 0x7F || (s[i] && strchr("\"*./:<>?\\|", s[i])))
			s[i] = '_';
	if (s[0] == ' ')
		s[0] = '_';
	memcpy(out, s, 11);
	for (unsigned k = 1; k < 1000000 && taken(v, n, given, ngiven, out); k++) {
		int len = snprintf(tail, sizeof(tail), "~%u", k), base = 8;

		while (base > 0 && s[base - 1] == ' ')
			base--;
		if (base > 8 - len)
			base = 8 - len;
		memcpy(out, s, (size_t)base);
		memcpy(out + base, tail, (size_t)len);
		memset(out + base + len, ' ', (size_t)(8 - base - len));
	}
	return !taken(v, n, given, ngiven, out);
}

/* Each entry a finding asks to rename gets a new 8.3 name, offered to the repair. */
static void offer_renames(struct ftree *t)
{
	const struct fat_hooks *h = t->v->hooks;
	uint8_t (*given)[11] = NULL, raw[11];
	size_t ngiven = 0;

	if (!hooked(t) || !h->rename)
		return;
	for (size_t i = 0; i < t->nnames; i++) {
		struct dent *d = &t->names[i];

		if (d->finding == SIZE_MAX)
			continue;
		if (!(given = realloc(given, (ngiven + 1) * sizeof(*given))))
			break;
		if (d->same)
			memcpy(raw, d->raw, 11);
		else if (!new_name(t->names, t->nnames, (const uint8_t (*)[11])given, ngiven, d->raw, raw))
			continue;
		memcpy(given[ngiven++], raw, 11);
		if (raw[0] == 0xE5)
			raw[0] = 0x05;		/* as stored */
		h->rename(h->ctx, d->finding, d->sfn_off, raw, t->parts + d->poff, d->nparts);
	}
	free(given);
}

/* Equal 8.3 names, then equal names as shown (long, or 8.3) but for case; the later entry is named. */
void fw_check_duplicates(struct ftree *t)
{
	struct dent *v = t->names;
	size_t n = t->nnames;

	if (n >= 1)
		qsort(v, n, sizeof(*v), cmp_raw);
	for (size_t i = 1; i < n; i++)
		if (!memcmp(v[i].raw, v[i - 1].raw, 11))
			dup_finding(t, &v[i], "8.3 names", true);
	offer_renames(t);	/* (v sorted by 8.3 name: what new names are checked against) */
	if (n < 2) {
		t->nnames = t->alen = t->nparts = 0;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_hash);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && v[j].hash == v[i].hash; j++)
			if (v[j].len == v[i].len && memcmp(v[j].raw, v[i].raw, 11) &&
			    !memcmp(t->arena + v[j].off, t->arena + v[i].off, 2u * v[i].len))
				dup_finding(t, &v[j], "names that differ only in case", false);
	t->nnames = t->alen = t->nparts = 0;
}

