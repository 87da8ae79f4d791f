// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_names.c - the names of the directory the exFAT walk reads: each
 * set's name checked, up-cased under the volume's table and hashed as it
 * is read (xw_take_name), and once the directory is read its duplicates
 * found (EXFAT_NAME_DUPLICATE), each given a unique variant for the
 * repair planner's rename hook.
 *
 * Consumes: the walk's sets.  Produces: NameHash values, findings, the
 * rename hook's calls.  Memory: the directory's names (an arena of
 * up-cased units), freed of nothing until the walk ends.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/exfat_walk.h"

/*
 * The name of the set, in one pass: its characters are checked, up-cased
 * into the arena (for the duplicate check) and hashed.  Returns the index
 * of the first forbidden character, or n; *hash is the NameHash it should
 * have.  Under memory pressure the name is hashed but not remembered.
 */
unsigned xw_take_name(struct walk *w, const uint16_t *units, unsigned n, uint16_t *hash, bool *ascii)
{
	const uint16_t *up = w->v->upcase;
	unsigned bad = n;
	uint16_t any = 0;
	uint16_t h = 0, *to = NULL;
	struct nameref *r;

	if (grow((void **)&w->names, &w->capnames, w->nnames + 1, sizeof(*w->names)) &&
	    grow((void **)&w->arena, &w->acap, w->alen + n, sizeof(*w->arena))) {
		r = &w->names[w->nnames++];
		r->len = (uint16_t)n;
		r->off = w->alen;
		r->cluster = w->as.at.cluster;
		r->entry = w->as.at.entry;
		to = w->arena + w->alen;
		w->alen += n;
	}
	for (unsigned i = 0; i < n; i++) {
		uint16_t u = up[units[i]];

		if (bad == n && !exfat_name_unit_ok(units, n, i))
			bad = i;
		any |= units[i];
		h = xv_name_hash_step(h, u);
		if (to)
			to[i] = u;
	}
	if (to)
		w->names[w->nnames - 1].hash = h;
	*hash = h;
	*ascii = any < 0x80;
	return bad;
}

static int cmp_names(const void *a, const void *b, void *ctx)
{
	const struct nameref *x = a, *y = b;
	const struct walk *w = ctx;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(w->arena + x->off, w->arena + y->off, x->len * 2u);
}

/*
 * A unique name for the duplicate names[i], for the repair planner: one
 * up-cased unit replaced (the last before the extension's dot, else the
 * last) by a digit or letter that no name of the directory, nor a name
 * given already, has there.  false when none is free.
 */
/* Is key's name among the directory's (sorted) names, or among those given to duplicates? */
static bool name_taken(const struct walk *w, const struct nameref *key)
{
	size_t lo = 0, hi = w->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_names(&w->names[mid], key, (void *)w);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < w->ngiven; k++)
		if (cmp_names(&w->given[k], key, (void *)w) == 0)
			return true;
	return false;
}

static bool unique_variant(struct walk *w, size_t i, unsigned *pos, uint16_t *unit)
{
	static const char repl[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
	const struct nameref *x = &w->names[i];
	const uint16_t *u = w->arena + x->off;
	unsigned p = x->len - 1;
	struct nameref key;

	for (unsigned k = x->len; k-- > 1;)
		if (u[k] == '.') {
			p = k - 1;
			break;
		}
	if (!grow((void **)&w->arena, &w->acap, w->alen + x->len, sizeof(*w->arena)))
		return false;
	u = w->arena + x->off;	/* the arena may have moved */
	for (const char *c = repl; *c; c++) {
		uint16_t h = 0;

		memcpy(w->arena + w->alen, u, x->len * 2u);
		w->arena[w->alen + p] = (uint16_t)*c;
		for (unsigned k = 0; k < x->len; k++)
			h = xv_name_hash_step(h, w->arena[w->alen + k]);
		key = (struct nameref){ h, x->len, w->alen, 0, 0 };
		if (name_taken(w, &key))
			continue;
		if (!grow((void **)&w->given, &w->capgiven, w->ngiven + 1, sizeof(*w->given)))
			return false;
		w->given[w->ngiven++] = key;	/* a later duplicate must not take it too */
		w->alen += x->len;
		*pos = p;
		*unit = (uint16_t)*c;
		return true;
	}
	return false;
}

void xw_check_duplicates(struct walk *w)
{
	char name[1024];
	struct fsc_finding *f;

	if (w->nnames > 24) {
		qsort_r(w->names, w->nnames, sizeof(*w->names), cmp_names, w);
	} else {		/* most directories are small: insertion sort, no allocation */
		for (size_t i = 1; i < w->nnames; i++) {
			struct nameref x = w->names[i];
			size_t k = i;

			for (; k && cmp_names(&w->names[k - 1], &x, w) > 0; k--)
				w->names[k] = w->names[k - 1];
			w->names[k] = x;
		}
	}
	for (size_t i = 1; i < w->nnames; i++) {
		if (cmp_names(&w->names[i - 1], &w->names[i], w) != 0)
			continue;
		{
			uint8_t le[510];
			unsigned n = w->names[i].len;

			for (unsigned k = 0; k < n; k++)
				put_le16(le, 2 * k, w->arena[w->names[i].off + k]);
			utf16le_to_utf8(le, n, name, sizeof(name));
		}
		f = xw_entry_finding(w, FSC_PR_EXFAT_NAME_DUPLICATE, w->names[i].cluster, w->names[i].entry, NULL);
		if (f)
			finding_detail(f, "%s", name);
		if (w->v->fix && !w->v->ck.owners_pass) {
			unsigned pos;
			uint16_t unit;

			w->dm.unsound = true;
			if (unique_variant(w, i, &pos, &unit))
				w->v->fix->rename(w->v->fix->ctx, w->names[i].cluster, w->names[i].entry, pos, unit);
		}
	}
	w->nnames = w->alen = w->ngiven = 0;
}
