// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_heads.c - entries whose clusters are another allocation's: a file
 * whose first cluster a flipped bit moved into another allocation's chain
 * (fat_hooks.shared_head) pointed back to its own lost chain; old copies
 * of live files' entries past an end mark left deleted.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "repair/fat_repair.h"
#include "fat/fat.h"

/* Candidates for a file's own first cluster kept at most. */
#define MAX_HEADS 16
/* Clusters of the other allocation read for entries that name a candidate, at most. */
#define MAX_NAMING_READ 4096

/* The clusters of the chain from c when every one was lost and it ends in an end mark within max (else 0). */
static uint64_t lost_chain_length(struct frp *f, uint32_t c, uint64_t max)
{
	for (uint64_t n = 1; n <= max && fr_was_lost(f, c); n++) {
		uint32_t v = layout_fat_value(&f->lay, fr_fat_get(f, c));

		if (v == LAYOUT_END)
			return n;
		if (v < 2 || v > f->cc + 1)
			return 0;
		c = v;
	}
	return 0;
}

/* Does no lost cluster link to c (the head of its lost chain)? */
static bool lost_head(struct frp *f, uint32_t c)
{
	for (size_t k = 0; k < f->nlost0; k++)
		if (f->lost0[k] && fr_step(f, f->lost0[k]) == c)
			return false;
	return true;
}

/* The CROSS_LINK finding about cluster c, or NULL. */
static struct fsc_finding *cross_at(struct frp *f, uint32_t c)
{
	for (size_t i = 0; i < f->r.out->n; i++) {
		struct fsc_finding *x = &f->r.out->v[i];

		if (x->id == FSC_PR_FAT_CROSS_LINK && strtoul(x->actual, NULL, 10) == c)
			return x;
	}
	return NULL;
}

/*
 * Is the 8.3 entry e a file's whose first cluster is c and whose size
 * takes the n clusters of the lost chain there?  (A name Windows takes,
 * no reserved attribute bit, not a directory, a label or a long-name part.)
 */
static bool names_chain(const struct frp *f, const uint8_t *e, uint32_t c, uint64_t n)
{
	uint64_t cb = f->lay.cluster_bytes;

	return e[0] && e[0] != FAT_DIR_FREE && !(e[FAT_DIR_ATTR] & (FAT_ATTR_RESERVED | FAT_ATTR_DIR_LABEL)) &&
	       !fv_sfn_invalid(e) &&
	       fr_entry_first(f, e) == c && ((uint64_t)fat_dirent_file_size(e) + cb - 1) / cb == n;
}

/*
 * Candidates that an entry in the chain from first names (the other
 * allocation is a directory: its clusters past the one the file took
 * were never walked, so the files they hold look lost): those are the
 * other files' own clusters, dropped from heads.  Returns how many are
 * left.
 */
static unsigned drop_named(struct frp *f, uint32_t first, uint32_t *heads, const uint64_t *lens, unsigned n)
{
	uint64_t cb = f->lay.cluster_bytes;
	uint8_t *buf = malloc(cb);
	bool named[MAX_HEADS] = { false };
	struct layout_chain it;
	unsigned left = 0;
	uint32_t c;

	if (!buf) {
		f->r.err = -ENOMEM;
		return 0;
	}
	for (fr_chain(&it, f, first); it.n < MAX_NAMING_READ && layout_chain_next(&it, &c);) {
		if (plan_view_read(f->r.dev, f->r.plan, layout_cluster_byte(&f->lay, c), buf, cb) < 0)
			break;
		for (uint64_t o = 0; o < cb; o += 32)
			for (unsigned i = 0; i < n; i++)
				named[i] |= names_chain(f, buf + o, heads[i], lens[i]);
	}
	free(buf);
	for (unsigned i = 0; i < n; i++)
		if (!named[i])
			heads[left++] = heads[i];
	return left;
}

/*
 * The heads of lost chains of exactly need clusters one or two flipped
 * bits from first (at most MAX_HEADS; their lengths in lens).
 */
static unsigned lost_heads_near(struct frp *f, uint32_t first, uint64_t need, uint32_t *heads, uint64_t *lens)
{
	struct rp_flips it;
	unsigned n = 0, bits;
	uint32_t c;

	for (rp_flips_begin(&it, first, 28); n < MAX_HEADS && rp_flips_next(&it, &c, &bits);)
		if (c >= 2 && c <= f->cc + 1 && lost_chain_length(f, c, need) == need && lost_head(f, c)) {
			lens[n] = need;
			heads[n++] = c;
		}
	return n;
}

/*
 * A file that came first to a cluster inside another allocation's chain
 * (a directory's second cluster, say: some FAT entry links to it, which
 * no file's first cluster has; the check tells, fat_hooks.shared_head):
 * when its first cluster is one or two flipped bits from the head of a
 * lost chain of exactly the clusters its size needs, and from no other
 * such head, the flip is taken back: the file's own clusters were the
 * lost ones, and the other allocation keeps its cluster (seed 97,
 * pop-fat32 #10: FstClusLO 584 -> 72, /names's second cluster; /names was
 * cut there and one of its files lost from view).  Heads that an entry
 * in the other allocation's unwalked clusters names are that entry's
 * file's, not this one's (seed 617, pop-fat32 #10: 425 -> 489, inside
 * /many, whose files past 489 made seven one-cluster chains near 489
 * look lost).
 */
void fr_relink_heads(struct frp *f)
{
	for (size_t i = 0; i < f->nheads && !f->r.err; i++) {
		const struct head_req *h = &f->heads[i];
		uint64_t need = ((uint64_t)h->size + f->lay.cluster_bytes - 1) / f->lay.cluster_bytes, lens[MAX_HEADS];
		struct fsc_finding *x = cross_at(f, h->first);
		uint32_t heads[MAX_HEADS];
		unsigned n;
		uint8_t e[32];

		if (!need || need > f->cc || !x || x->planned || !rp_wanted(&f->r, x))
			continue;
		n = lost_heads_near(f, h->first, need, heads, lens);
		if (n > 1 && n < MAX_HEADS)
			n = drop_named(f, h->first, heads, lens, n);
		if (n != 1 || !fr_read_entry(f, h->off, e) || fr_entry_first(f, e) != h->first)
			continue;
		fr_set_first(f, e, heads[0]);
		rp_put(&f->r, h->off, e, 32, "the file's first cluster: a flipped bit taken back (its own were lost)", false);
		x->planned = true;
		/* (what the walk read of the other one stopped there: its findings wait for the next round) */
		if (x->path && grow((void **)&f->recut, &f->caprecut, f->nrecut + 1, sizeof(*f->recut)))
			f->recut[f->nrecut++] = x->path;
	}
}

/*
 * Is the entry e, in use past an end mark, an old copy of a live file's
 * entry: every cluster of its chain (its size's worth, a directory's to
 * its end) allocated to what the check walked, none of them lost?  Made
 * visible, it would only cross-link that file; a file of its own there
 * has lost clusters, or none.
 */
static bool not_lost(const void *f, uint32_t c)
{
	return !fr_was_lost(f, c);
}

static bool stale_copy(struct frp *f, const uint8_t *e)
{
	uint32_t first = fr_entry_first(f, e);
	bool dir = e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY;
	uint64_t need = ((uint64_t)fat_dirent_file_size(e) + f->lay.cluster_bytes - 1) / f->lay.cluster_bytes;
	struct layout_chain it;

	if (!layout_cluster_valid(&f->chain_lay, first) || (!dir && !need))
		return false;
	fr_chain(&it, f, first);
	return rp_chain_owned(&it, need, dir, not_lost, f);
}

/*
 * The entries a revive made visible (from the first in use after the end
 * mark to the next 0x00, in its cluster): each old copy of a live file's
 * entry (stale_copy) marked deleted with its long-name parts, their other
 * bytes kept, as the exFAT repair does (revive_after_end).  A torn write
 * leaves such copies of a directory cluster's old contents; on a nearly
 * full volume the cross-links they make have no room for copies (seed
 * 993, #37 of a helper's 16 MiB exFAT volume; FAT the same).
 */
void fr_set_aside_stale(struct frp *f, const struct fsc_finding *x)
{
	uint64_t off, end, parts = 0;
	uint8_t e[32];

	if (!fr_entry_of(f, x, &off))
		return;
	end = x->loc_kind == FSC_LOC_ENTRY ? layout_cluster_byte(&f->lay, (uint32_t)x->loc) + f->lay.cluster_bytes
					   : f->lay.root_byte + f->lay.root_bytes;
	for (; off < end && fr_read_entry(f, off, e) && e[FAT_DIR_NAME] != FAT_DIR_LAST_FREE; off += 32) {
		enum fat_kind k = fat_entry_kind(e);

		if (k == FAT_E_LFN) {
			parts = parts ? parts : off;
			continue;
		}
		if (k == FAT_E_FILE && stale_copy(f, e))
			for (uint64_t at = parts ? parts : off; at <= off; at += 32) {
				uint8_t b = FAT_DIR_FREE;

				rp_put(&f->r, at, &b, 1, "mark deleted an old copy of a live file's entry after the end mark",
				       false);
			}
		parts = 0;
	}
}
