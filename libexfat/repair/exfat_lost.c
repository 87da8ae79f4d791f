// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_lost.c - lost clusters saved, not freed (Windows chkdsk's
 * convention): every chain of clusters that the bitmap marks used and no
 * file owns becomes a file FILEnnnn.CHK, in FAT order from its head, in a
 * new directory FOUND.nnn of the root (the first number free); a chain
 * that is a sound directory whose whole tree is lost too becomes a
 * directory DIRnnnn, with its tree (exfat_lostdir.c).  A chain
 * ends where its next link leaves the lost clusters or joins a chain saved
 * already; that link becomes an end mark.  Chains that loop back on
 * themselves are saved from the first cluster found.
 *
 * Write order: the chains' end marks and the new directory (its clusters
 * filled and chained in the FAT), then, after a sync, the one root entry
 * set that links it, then (exfat_repair.c) the bitmap with the new
 * clusters marked.  Cut before the link, the new clusters are still free
 * and the next repair takes the same ones again; cut after it, they are
 * owned but unmarked, which the next repair (even -p) marks.  Either way
 * it converges to the same tree; marking first would leave a cut repair a
 * marked, unlinked directory, saved next time as one more lost chain.
 *
 * Consumes: the checker's claimed set and on-disk bitmap.  Produces: plan
 * edits, the saved clusters claimed (so that the bitmap and PercentInUse
 * follow), EXFAT_LOST_CLUSTERS planned.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"
#include "repair/dired.h"

#define MAX_SAVED 65536u		/* chains saved in one repair; the rest stay lost */
#define SET_BYTES 96u			/* file, stream and one name entry */

struct lost_chain {
	uint32_t head;
	uint64_t clusters;
	bool dir;			/* a lost directory, with its tree (exfat_lostdir.c) */
	bool nofat;			/* a run in a row that no FAT entry chains (a NoFatChain file's clusters) */
};

struct lost_save {
	struct lost_chain *v;
	size_t n, cap, max;		/* chains found; at most max saved (room for the directory) */
	uint32_t *dir;			/* the new directory's clusters */
	uint64_t ndir;
	uint64_t slot[3];		/* where its entry set goes in the root (three slots in a row) */
	unsigned number;		/* FOUND.number */
	bool export;			/* only read out to the caller (lost_export), then freed */
	uint8_t *buf;			/* one cluster, while exporting */
};

static bool lost(const struct xvol *v, uint32_t c)
{
	return xv_cluster_valid(v, c) && bit_get(v->marked, c - 2) && !cluster_owned(v, c);
}

/* A lost cluster whose FAT entry is free: a NoFatChain file's (the bitmap alone marks it). */
static bool lost_in_row(struct xvol *v, uint32_t c)
{
	return lost(v, c) && xv_fat(v, c) == 0;
}

/* Follow a chain from head while it stays lost; claim it; end it with an end mark. */
static void take_chain(struct rp *r, struct xvol *v, uint32_t head)
{
	struct lost_save *ls = r->lost;
	struct layout_chain it;
	uint32_t c = head, next;
	uint64_t n = 0;
	uint8_t e[4];
	char why[96];
	/*
	 * (clusters in a row with free FAT entries: one file in a row, as it
	 * was, not a file a cluster; nothing written to the FAT for it)
	 */
	bool row = lost_in_row(v, head);

	xr_chain(&it, v, head, row);
	layout_chain_next(&it, &c);	/* (head itself: a lost cluster) */
	for (;;) {
		cluster_claim(v, c);
		if (ls->export && !r->err) {
			if (fsc_dev_read(v->dev, xv_cluster_byte(v, c), ls->buf, v->cb) < 0)
				r->err = -EIO;
			else if (r->o->lost_bytes(r->o->ctx, (unsigned)ls->n, n * v->cb, ls->buf, v->cb))
				r->err = -ECANCELED;
		}
		n++;
		if (n >= v->cc || !layout_chain_next(&it, &next) || (row ? !lost_in_row(v, next) : !lost(v, next)))
			break;
		c = next;
	}
	if (!row && xv_fat(v, c) != 0xFFFFFFFF && !ls->export) {
		exfat_fat_cell_put(e, 0xFFFFFFFF);
		snprintf(why, sizeof(why), "end lost chain %u at cluster %u", head, c);
		rp_put(r, v->fat_byte + 4ull * c, e, 4, why, false);
	}
	ls->v[ls->n++] = (struct lost_chain){ head, n, false, row };
}

/* The lost chains, heads first (clusters no lost cluster links to), then what loops. */
static int find_chains(struct rp *r, struct xvol *v)
{
	uint64_t words = ((uint64_t)v->cc + 63) / 64;
	uint64_t *linked = calloc(words ? words : 1, 8);
	struct lost_save *ls = r->lost;

	if (!linked)
		return -ENOMEM;
	for (uint32_t c = rp_next_cluster(v, 1, true); c; c = rp_next_cluster(v, c, true)) {
		uint32_t next = xv_fat(v, c);

		if (lost(v, next) && next != c)
			bit_set(linked, next - 2);
	}
	/*
	 * Lost directories first, each with its tree: a run in a row taken
	 * before would swallow a directory that follows it (seed 2, pop-small
	 * #44); then the chains from their heads, then what loops.
	 */
	for (int round = ls->export ? 1 : 0; round < 3; round++)
		for (uint32_t c = rp_next_cluster(v, 1, true); c && ls->n < ls->max && !r->err; c = rp_next_cluster(v, c, true)) {
			uint64_t n;

			if (round < 2 && bit_get(linked, c - 2))
				continue;
			if (!grow((void **)&ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v))) {
				free(linked);
				return -ENOMEM;
			}
			if (round == 0 && xr_adopt_dir(r, v, c, &n))
				ls->v[ls->n++] = (struct lost_chain){ c, n, true, false };
			else if (round > 0)
				take_chain(r, v, c);
		}
	free(linked);
	return 0;
}

/* A file entry set for an ASCII name of at most 15 characters (file, stream, one name entry). */
static void make_set(const struct xvol *v, uint8_t *s, const char *name, uint16_t attr, uint32_t first,
		     uint64_t size, bool nofat, uint32_t when)
{
	uint16_t units[15];
	unsigned nl = (unsigned)strlen(name);
	uint8_t *stream = s + EXFAT_SET_STREAM_AT, *names = s + EXFAT_SET_FIRST_NAME * EXFAT_ENTRY_SIZE;

	memset(s, 0, SET_BYTES);
	s[EXFAT_ENTRY_TYPE] = EXFAT_T_FILE;
	s[EXFAT_FILE_SECONDARY_COUNT] = 2;
	exfat_file_put_attributes(s, attr);
	for (unsigned i = 0; i < 3; i++)
		put_le32(s, EXFAT_FILE_CREATE_TIMESTAMP + EXFAT_FILE_TIMESTAMP_SIZE * i, when);
	s[EXFAT_FILE_CREATE_UTC_OFFSET] = s[EXFAT_FILE_LAST_MODIFIED_UTC_OFFSET] = s[EXFAT_FILE_LAST_ACCESSED_UTC_OFFSET] =
		EXFAT_UTC_OFFSET_VALID;	/* UTC */
	stream[EXFAT_ENTRY_TYPE] = EXFAT_T_STREAM;
	stream[EXFAT_STREAM_FLAGS] = EXFAT_STREAM_FLAG_ALLOC_POSSIBLE | (nofat ? EXFAT_STREAM_FLAG_NO_FAT_CHAIN : 0);
	stream[EXFAT_STREAM_NAME_LENGTH] = (uint8_t)nl;
	for (unsigned i = 0; i < nl && i < 15; i++)
		units[i] = (uint8_t)name[i];
	exfat_stream_put_name_hash(stream, fsc_exfat_name_hash(units, nl, v->upcase));
	exfat_stream_put_valid_data_length(stream, size);
	exfat_stream_put_first_cluster(stream, first);
	exfat_stream_put_data_length(stream, size);
	names[EXFAT_ENTRY_TYPE] = EXFAT_T_NAME;
	for (unsigned i = 0; i < nl && i < 15; i++)
		exfat_name_put_unit(names, i, units[i]);
	exfat_primary_put_set_checksum(s, fsc_exfat_set_checksum(s, 3));
}

/*
 * The directory's clusters, each written whole: the sets packed one after
 * the other (a set may run on into the next cluster: no end mark between
 * two sets), zeros after the last.
 */
static void write_dir(struct rp *r, struct xvol *v, uint32_t when)
{
	struct lost_save *ls = r->lost;
	uint8_t *buf = calloc(ls->ndir, v->cb);
	char name[32];

	if (!buf) {
		r->err = -ENOMEM;
		return;
	}
	for (size_t k = 0; k < ls->n; k++) {
		snprintf(name, sizeof(name), ls->v[k].dir ? "DIR%04zu" : "FILE%04zu.CHK", k);
		make_set(v, buf + k * SET_BYTES, name, ls->v[k].dir ? EXFAT_ATTR_DIRECTORY : EXFAT_ATTR_ARCHIVE, ls->v[k].head,
			 ls->v[k].clusters * v->cb, ls->v[k].nofat, when);
	}
	for (uint64_t i = 0; i < ls->ndir; i++)
		rp_put(r, xv_cluster_byte(v, ls->dir[i]), buf + i * v->cb, v->cb, "recovery directory contents", false);
	free(buf);
}

/* The root's sets named FOUND.nnn (ASCII, any case): bit nnn of used. */
static void note_found(const struct exfat_asm *as, uint64_t *used)
{
	struct exfat_set d;
	char n[16];

	if (as->set[0] != EXFAT_T_FILE || as->count < 3)
		return;
	exfat_set_decode(as->set, as->count, &d);
	if (d.nl != 9)
		return;
	for (unsigned i = 0; i < 9; i++)
		n[i] = (char)(d.name[i] >= 'a' && d.name[i] <= 'z' ? d.name[i] - 32 : d.name[i] < 128 ? d.name[i] : '?');
	n[9] = '\0';
	if (!strncmp(n, "FOUND.", 6) && n[6] >= '0' && n[6] <= '9' && n[7] >= '0' && n[7] <= '9' && n[8] >= '0' &&
	    n[8] <= '9')
		bit_set(used, (uint64_t)atoi(n + 6));
}

/* The root's sets named FOUND.nnn: bit nnn of used (ctx). */
static void note_found_entry(void *ctx, const struct exfat_asm *as, enum exfat_ev ev, const uint8_t *e, uint64_t off)
{
	(void)e;
	(void)off;
	if (ev == EXA_SET)
		note_found(as, ctx);
}

/* The assembler over the root's entries, for the caller's each. */
struct root_feed {
	struct exfat_asm *as;
	root_entry_fn each;
	void *ctx;
};

static void root_feed(void *ctx, const uint8_t *e, uint64_t off, uint32_t cluster, uint32_t index)
{
	struct root_feed *rf = ctx;
	enum exfat_ev ev = exfat_asm_feed(rf->as, e, &(struct exfat_where){ cluster, index, off });

	rf->each(rf->ctx, rf->as, ev, e, off);
}

/*
 * The root as the plan leaves it, through the directory editor: each
 * entry to each (with what the assembler made of it; may be NULL), the
 * first n (1..3) free slots in a row in one cluster into slot (zeros:
 * none), the root's last cluster into *last (0: none read).  False: no
 * such slots.
 */
bool xr_root_slots(struct rp *r, struct xvol *v, unsigned n, uint64_t *slot, uint32_t *last, root_entry_fn each,
		   void *ctx)
{
	struct dired d = { .dev = r->dev, .plan = r->plan, .g = &v->lay };
	struct root_feed rf = { each ? malloc(sizeof(*rf.as)) : NULL, each, ctx };
	struct dired_slots s = { .want = n, .each = each ? root_feed : NULL, .ctx = &rf };

	*last = 0;
	memset(slot, 0, n * sizeof(*slot));
	if (rf.as)
		exfat_asm_init(rf.as, 0, 0);
	if ((each && !rf.as) || dired_find(&d, v->p->ex.root_cluster, &s) < 0) {
		free(rf.as);
		r->err = -ENOMEM;
		return false;
	}
	free(rf.as);
	*last = s.last;
	if (s.found)
		memcpy(slot, s.slot, n * sizeof(*slot));
	return s.found;
}

/* The directory editor's edits in a repair: through the ledger (ctx: a struct rp_dired). */
struct rp_dired {
	struct rp *r;
	struct xvol *v;
};

static int rd_put(void *ctx, uint64_t off, const void *data, size_t len, const char *why)
{
	struct rp *r = ((struct rp_dired *)ctx)->r;

	rp_put(r, off, data, len, why, false);
	return r->err;
}

static uint32_t rd_take(void *ctx)
{
	struct rp_dired *rd = ctx;
	uint32_t c;

	return rp_alloc_clusters(rd->r, rd->v, &c, 1, "end the root directory's new cluster") ? c : 0;
}

static int rd_link(void *ctx, uint32_t c, uint32_t next)
{
	struct rp_dired *rd = ctx;
	uint8_t e[4];

	exfat_fat_cell_put(e, next);
	rp_put(rd->r, rd->v->fat_byte + 4ull * c, e, 4, "link the root directory's new cluster", false);
	return rd->r->err;
}

/* A new root cluster, zeroed and chained after last (its end marks made unused): its first n slots. */
bool xr_extend_root(struct rp *r, struct xvol *v, uint32_t last, unsigned n, uint64_t *slot)
{
	struct dired d = { .dev = r->dev, .plan = r->plan, .g = &v->lay };
	struct rp_dired rd = { r, v };
	struct dired_ops ops = { rd_put, rd_take, rd_link, &rd };
	struct dired_slots s = { .want = n, .last = last };
	int e = dired_grow(&d, &ops, &s);

	if (e < 0 && e != -ENOSPC && !r->err)
		r->err = e;
	if (e == 0)
		memcpy(slot, s.slot, n * sizeof(*slot));
	return e == 0;
}

/* How many chains fit: a directory of their sets, and a root cluster, in the free clusters. */
static size_t room_for(const struct xvol *v)
{
	uint64_t free_clusters = 0, per = v->cb / SET_BYTES, words = ((uint64_t)v->cc + 63) / 64;

	for (uint64_t w = 0; w < words; w++) {	/* neither marked nor owned, within the clusters held */
		uint64_t f = ~(v->marked[w] | v->ck.claimed[w]);

		if (w == words - 1 && v->cc % 64)
			f &= (1ull << (v->cc % 64)) - 1;
		free_clusters += (uint64_t)__builtin_popcountll(f);
	}
	if (free_clusters < 2)
		return 0;
	return (free_clusters - 1) * per < MAX_SAVED ? (size_t)((free_clusters - 1) * per) : MAX_SAVED;
}

void xr_lost_prepare(struct rp *r, struct xvol *v)
{
	uint64_t used[1000 / 64 + 1] = { 0 };
	struct lost_save *ls;
	uint32_t last = 0;

	if (!v->bitmap_ok || r->o->free_lost || r->err || r->defer_lost ||
	    !(rp_take(r, FSC_PR_EXFAT_LOST_CLUSTERS) || (r->unclaimed && r->o->level == FSC_REPAIR_ALL)))
		return;
	ls = r->lost = calloc(1, sizeof(*ls));
	if (!ls) {
		r->err = -ENOMEM;
		return;
	}
	if (!(ls->max = room_for(v)) || (!xr_root_slots(r, v, 3, ls->slot, &last, note_found_entry, used) && !last)) {
		rp_unplan(r, FSC_PR_EXFAT_LOST_CLUSTERS);	/* no room, or no root to link it: left */
		return;
	}
	for (ls->number = 0; ls->number < 1000 && bit_get(used, ls->number); ls->number++)
		;
	if (ls->number == 1000)
		rp_unplan(r, FSC_PR_EXFAT_LOST_CLUSTERS);
	if (ls->number == 1000 || (r->err = find_chains(r, v)) < 0 || !ls->n)
		return;
	ls->ndir = (ls->n * SET_BYTES + v->cb - 1) / v->cb;
	if (!(ls->dir = malloc(ls->ndir * sizeof(*ls->dir)))) {
		r->err = -ENOMEM;
		return;
	}
	if (!rp_alloc_clusters(r, v, ls->dir, ls->ndir, "chain the recovery directory") ||
	    (!ls->slot[2] && !xr_extend_root(r, v, last, 3, ls->slot))) {
		r->err = -ENOSPC;	/* room_for counted them */
		return;
	}
	write_dir(r, v, dos_datetime(r->o->now));
}

void xr_lost_link(struct rp *r, struct xvol *v)
{
	struct lost_save *ls = r->lost;
	uint8_t set[SET_BYTES];
	char name[16], why[64];

	if (!ls)
		return;
	if (ls->n && ls->dir && !r->err) {
		snprintf(name, sizeof(name), "FOUND.%03u", ls->number);
		make_set(v, set, name, EXFAT_ATTR_DIRECTORY, ls->dir[0], ls->ndir * v->cb, false, dos_datetime(r->o->now));
		snprintf(why, sizeof(why), "link /%s (%zu lost chains saved)", name, ls->n);
		rp_put(r, ls->slot[0], set, SET_BYTES, why, true);	/* one write: the set whole or not at all */
	}
	free(ls->v);
	free(ls->dir);
	free(ls);
	r->lost = NULL;
}

/*
 * --lost-to: every lost chain read out to the caller (lost_bytes), cluster
 * by cluster in FAT order, then given back to the lost set: free_lost
 * then clears their bits.  An error or a refusal stops the repair.
 */
void xr_lost_export(struct rp *r, struct xvol *v)
{
	struct lost_save ls = { .export = true, .max = SIZE_MAX };

	if (!v->bitmap_ok || !r->o->free_lost || !r->o->lost_bytes || r->err || r->defer_lost ||
	    r->o->level != FSC_REPAIR_ALL ||
	    !(rp_find(r, FSC_PR_EXFAT_LOST_CLUSTERS) || r->unclaimed))
		return;
	if (!(ls.buf = malloc(v->cb))) {
		r->err = -ENOMEM;
		return;
	}
	r->lost = &ls;
	if (find_chains(r, v) < 0 && !r->err)
		r->err = -ENOMEM;
	for (size_t i = 0; i < ls.n; i++) {	/* unclaimed again: lost, for free_lost */
		struct layout_chain it;
		uint32_t c;

		for (xr_chain(&it, v, ls.v[i].head, ls.v[i].nofat); it.n < ls.v[i].clusters && layout_chain_next(&it, &c);)
			cluster_unclaim(v, c);
	}
	r->lost = NULL;
	free(ls.v);
	free(ls.buf);
}
