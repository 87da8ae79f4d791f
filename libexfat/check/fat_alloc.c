// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_alloc.c - FAT12/16/32 allocation passes.  Pass 2 reads the active
 * FAT once, in large sequential reads, with every other copy beside it:
 * the copies are compared entry by entry, entries 0 and 1 checked (the
 * media byte, FAT[1]'s clean-shutdown and hard-error bits), and each
 * entry of clusters 2 .. count+1 counted as free or set in the used set
 * (bad clusters are neither).  Pass 4 compares the used set with what the
 * tree walk claimed (lost clusters) and the FSInfo sector with the FAT.
 *
 * Consumes: struct fvol with its geometry.  Produces: findings, the used
 * set (one bit per cluster), the free count.  Memory: two chunks of FAT
 * whatever the volume's size.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fat_check.h"
#include "fat/fat.h"

/* FAT read at a time (FAT12 is read whole: its entries straddle bytes). */
#define FAT_CHUNK (1u << 20)

uint32_t fv_next(void *ctx, uint32_t c)
{
	struct fvol *v = ctx;
	uint32_t n = fatreader_next(&v->fr, c);

	return n == LAYOUT_UNREADABLE || n == LAYOUT_END ? CK_END : n == LAYOUT_BAD ? CK_BAD : n;
}

const struct ck_chain_ids fv_chain_ids = {
	.range = FSC_PR_FAT_CHAIN_RANGE, .loop = FSC_PR_FAT_CHAIN_LOOP,
	.cross = FSC_PR_FAT_CROSS_LINK, .free = FSC_PR_FAT_CHAIN_FREE,
	.bad = FSC_PR_FAT_CHAIN_BAD, .shorter = FSC_PR_FAT_CHAIN_SHORT,
	.longer = FSC_PR_FAT_CHAIN_LONG,
};

/* Entry i of a FAT whose bytes from entry base on are in buf. */
static uint32_t entry_at(const uint8_t *buf, unsigned bits, uint64_t base, uint64_t i)
{
	if (bits == 32)
		return get_le32(buf, 4 * (i - base));
	if (bits == 16)
		return get_le16(buf, 2 * (i - base));
	uint16_t two = get_le16(buf, (size_t)(i * 3 / 2));	/* FAT12: base is 0 */

	return i & 1 ? two >> 4 : two & 0xFFF;
}

static uint64_t copy_byte(const struct fvol *v, unsigned k)
{
	return (uint64_t)v->b->reserved * v->b->bytes_per_sector +
	       (uint64_t)k * v->b->fat_size * v->b->bytes_per_sector;
}

struct scan {
	uint64_t bytes;			/* FAT bytes holding entries 0 .. cc + 1 */
	uint64_t chunk;
	uint8_t *act, *other;
	uint64_t differ[16];		/* entries differing, per copy */
	uint32_t first_diff[16];
	struct fv_scan_memo keep;	/* a repair's first check: what each block held (free NULL: not kept) */
	const struct fv_scan_memo *known;	/* a later one's: the first check's (or NULL) */
};

struct fv_scan_key fv_scan_key_of(const struct fsc_fat_bpb *b, const struct layout *lay, uint32_t cc,
				  unsigned active, bool mirrored)
{
	return (struct fv_scan_key){ (uint64_t)b->reserved * b->bytes_per_sector,
				     (uint64_t)b->fat_size * b->bytes_per_sector, cc, lay->fat_bits, active,
				     mirrored ? (b->num_fats < 16 ? b->num_fats : 16) : 1 };
}

bool fv_scan_key_same(const struct fv_scan_key *a, const struct fv_scan_key *b)
{
	return a->copy0 == b->copy0 && a->stride == b->stride && a->cc == b->cc && a->bits == b->bits &&
	       a->active == b->active && a->copies == b->copies;
}

/* Entries 0 and 1 (fatgen103 "FAT Data Structure"). */
static void check_head(struct fvol *v, const uint8_t *buf)
{
	unsigned bits = v->lay.fat_bits;
	uint32_t mask = bits == 12 ? 0xFFF : bits == 16 ? 0xFFFF : 0x0FFFFFFF;
	uint32_t e0 = entry_at(buf, bits, 0, 0) & mask, want = (mask & ~0xFFu) | v->b->media;
	uint32_t clean = bits == 16 ? 0x8000 : 0x08000000, hard = bits == 16 ? 0x4000 : 0x04000000;
	struct fsc_finding *f;

	v->fat1 = entry_at(buf, bits, 0, 1);
	/* (an invalid BPB_Media is FAT_BOOT_MEDIA already: FAT[0] may well hold the right one) */
	if (e0 != want && !fsc_findings_has(&v->p->findings, FSC_PR_FAT_BOOT_MEDIA) && (f = ck_add(&v->ck, FSC_PR_FAT_FAT0, FSC_LOC_BYTE, copy_byte(v, v->active), "FAT[0]"))) {
		finding_actual(f, "0x%0*x", bits / 4, e0);
		finding_expected(f, "0x%02x", v->b->media);
	}
	if (bits == 12 || ((v->fat1 & clean) && (v->fat1 & hard)))
		return;
	f = ck_add(&v->ck, FSC_PR_FAT_FAT1_FLAGS, FSC_LOC_BYTE, copy_byte(v, v->active) + bits / 8, "FAT[1]");
	if (!f)
		return;
	finding_actual(f, "0x%0*x", bits / 4, v->fat1 & mask);
	finding_detail(f, "%s%s%s", !(v->fat1 & clean) ? "not cleanly dismounted" : "",
		       !(v->fat1 & clean) && !(v->fat1 & hard) ? ", " : "",
		       !(v->fat1 & hard) ? "a disk error was recorded" : "");
}

/* Cluster c's entry x (masked to the FAT's width): free, bad, or in the used set. */
static inline void tally(struct fvol *v, uint64_t c, uint32_t x, uint32_t bad, uint64_t *nfree)
{
	if (!x)
		(*nfree)++;
	else if (x != bad)
		bit_set(v->used, c - 2);
}

/* The entries of one chunk of the active copy: free count and used set (as layout_fat_value reads them). */
static void count_chunk(struct fvol *v, const uint8_t *buf, uint64_t first, uint64_t last, uint64_t base)
{
	unsigned bits = v->lay.fat_bits;
	uint32_t mask = bits == 12 ? 0xFFF : bits == 16 ? 0xFFFF : 0x0FFFFFFF, bad = mask & ~8u;
	uint64_t nfree = 0, c = first < 2 ? 2 : first;

	if (bits == 32)		/* (most of a scan: the width known outside the loop) */
		for (; c <= last; c++)
			tally(v, c, get_le32(buf, 4 * (c - base)) & mask, bad, &nfree);
	else
		for (; c <= last; c++)
			tally(v, c, entry_at(buf, bits, base, c) & mask, bad, &nfree);
	v->free_clusters += nfree;
}

/* Copy k's chunk against the active one's: differing entries counted. */
static void compare_chunk(struct fvol *v, struct scan *s, unsigned k, uint64_t first, uint64_t last, uint64_t base,
			  size_t len)
{
	unsigned bits = v->lay.fat_bits;

	if (memcmp(s->act, s->other, len) == 0)
		return;
	for (uint64_t c = first; c <= last; c++) {
		if (entry_at(s->act, bits, base, c) == entry_at(s->other, bits, base, c))
			continue;
		if (!s->differ[k]++)
			s->first_diff[k] = (uint32_t)c;
		if (v->differ && c >= 2)
			bit_set(v->differ, c - 2);
	}
}

static int unreadable(struct fvol *v, unsigned k, uint64_t off, uint64_t len)
{
	struct fsc_finding *f = ck_add(&v->ck, FSC_PR_FAT_FAT_UNREADABLE, FSC_LOC_BYTE, off, NULL);

	finding_detail(f, "copy %u, %llu bytes at byte %llu, the image has %llu", k, (unsigned long long)len,
		       (unsigned long long)off, (unsigned long long)fsc_dev_size(v->dev));
	return -EIO;
}

/* The clusters of FAT bytes [off, off + len): first .. last (their entries, within 2 .. cc + 1). */
static void range_clusters(const struct fvol *v, uint64_t off, uint64_t len, uint64_t *first, uint64_t *last)
{
	*first = off * 8 / v->lay.fat_bits;
	*last = (off + len) * 8 / v->lay.fat_bits - 1;
	if (*last > (uint64_t)v->cc + 1)
		*last = (uint64_t)v->cc + 1;
}

/* FAT bytes [off, off + len) of each copy compared, read, counted (and, kept, what each block held). */
static int scan_range(struct fvol *v, struct scan *s, uint64_t off, size_t len)
{
	unsigned bits = v->lay.fat_bits;
	uint64_t base, last, b0 = off / FV_SCAN_BLOCK;

	range_clusters(v, off, len, &base, &last);
	if (fsc_dev_read(v->dev, copy_byte(v, v->active) + off, s->act, len) < 0)
		return unreadable(v, v->active, copy_byte(v, v->active) + off, len);
	if (off == 0)
		check_head(v, s->act);
	if (!s->keep.free)
		count_chunk(v, s->act, base, last, bits == 12 ? 0 : base);
	for (uint64_t at = 0; s->keep.free && at < len; at += FV_SCAN_BLOCK) {	/* (FAT16 and FAT32: whole entries a block) */
		uint64_t free0 = v->free_clusters, first, end;

		range_clusters(v, off + at, len - at < FV_SCAN_BLOCK ? len - at : FV_SCAN_BLOCK, &first, &end);
		count_chunk(v, s->act, first, end, base);
		s->keep.free[b0 + at / FV_SCAN_BLOCK] = off + at ? (uint32_t)(v->free_clusters - free0) : FV_SCAN_READ;
	}
	for (unsigned k = 0; v->mirrored && k < v->b->num_fats && k < 16; k++) {
		if (k == v->active)
			continue;
		if (fsc_dev_read(v->dev, copy_byte(v, k) + off, s->other, len) < 0)
			return unreadable(v, k, copy_byte(v, k) + off, len);
		compare_chunk(v, s, k, base, last, bits == 12 ? 0 : base, len);
		for (uint64_t at = 0; s->keep.free && at < len; at += FV_SCAN_BLOCK)
			if (memcmp(s->act + at, s->other + at, len - at < FV_SCAN_BLOCK ? len - at : FV_SCAN_BLOCK))
				s->keep.free[b0 + at / FV_SCAN_BLOCK] = FV_SCAN_READ;
	}
	ck_progress(&v->ck, len);
	return 0;
}

/* Bits [from, from + n) of src set in dst as they are there. */
static void copy_bits(uint64_t *dst, const uint64_t *src, uint64_t from, uint64_t n)
{
	for (uint64_t w = from / 64; n && w <= (from + n - 1) / 64; w++) {
		uint64_t lo = w * 64 < from ? from - w * 64 : 0, hi = (from + n - w * 64) < 64 ? from + n - w * 64 : 64;
		uint64_t mask = (hi - lo == 64 ? ~0ull : ((1ull << (hi - lo)) - 1)) << lo;

		dst[w] = (dst[w] & ~mask) | (src[w] & mask);
	}
}

/*
 * Block i (a later check): as the first check found it when its copies
 * agreed there and the plan changes none of its bytes in any copy
 * compared; then counted from the memo, not read.
 */
static bool block_known(struct fvol *v, const struct scan *s, uint64_t i)
{
	uint64_t off = i * FV_SCAN_BLOCK, len = s->bytes - off < FV_SCAN_BLOCK ? s->bytes - off : FV_SCAN_BLOCK;
	uint64_t first, last;

	if (!s->known || s->known->free[i] == FV_SCAN_READ)
		return false;
	for (unsigned k = 0; k < s->known->key.copies; k++)	/* (one copy compared: the active one) */
		if (!v->hooks->memo.unchanged(v->hooks->ctx, copy_byte(v, s->known->key.copies == 1 ? v->active : k) + off, len))
			return false;
	range_clusters(v, off, len, &first, &last);
	v->free_clusters += s->known->free[i];
	if (last >= first)
		copy_bits(v->used, s->known->used, first - 2, last - first + 1);
	ck_progress(&v->ck, len);
	return true;
}

static int scan_chunks(struct fvol *v, struct scan *s)
{
	uint64_t step = s->known ? FV_SCAN_BLOCK : s->chunk, run = 0;	/* run: bytes before off still to read */
	int r = 0;

	for (uint64_t off = 0; off < s->bytes && r == 0; off += step) {
		uint64_t len = s->bytes - off < step ? s->bytes - off : step;

		if (s->known && block_known(v, s, off / FV_SCAN_BLOCK)) {	/* (counted: the run before it is read) */
			r = run ? scan_range(v, s, off - run, (size_t)run) : 0;
			run = 0;
			continue;
		}
		run += len;
		if (run >= s->chunk || off + len >= s->bytes) {
			r = scan_range(v, s, off + len - run, (size_t)run);
			run = 0;
		}
	}
	return r;
}

uint32_t fv_predecessor(struct fvol *v, uint32_t c)
{
	if (v->pred_scans >= FV_PRED_SCANS)
		return 0;
	v->pred_scans++;
	for (uint32_t p = 2; fv_cluster_valid(v, p); p++)
		if (p != c && fv_next(v, p) == c)
			return p;
	return 0;
}

/* A repair's checks (FAT16 and FAT32): the first keeps what each block held, a later one asks for it. */
static void scan_memo(struct fvol *v, struct scan *s)
{
	struct fv_scan_key key = fv_scan_key_of(v->b, &v->lay, v->cc, v->active, v->mirrored);
	const struct fv_scan_memo *m;

	if (!v->hooks || v->lay.fat_bits == 12)
		return;
	if (v->hooks->memo.scan_sound) {
		s->keep.key = key;
		s->keep.nblocks = (s->bytes + FV_SCAN_BLOCK - 1) / FV_SCAN_BLOCK;
		s->keep.free = malloc(s->keep.nblocks * sizeof(*s->keep.free));	/* (none: nothing kept) */
	} else if (v->hooks->memo.scan_known && v->hooks->memo.unchanged && (m = v->hooks->memo.scan_known(v->hooks->ctx)) &&
		   fv_scan_key_same(&m->key, &key) && m->nblocks == (s->bytes + FV_SCAN_BLOCK - 1) / FV_SCAN_BLOCK) {
		s->known = m;
	}
}

int fv_scan_fats(struct fvol *v)
{
	struct scan s = { 0 };
	struct fsc_finding *f;
	uint64_t words = ((uint64_t)v->cc + 63) / 64 + 1;
	bool differ = false;
	int r;

	s.bytes = layout_fat_bytes(&v->lay, (uint64_t)v->cc + 2);
	s.chunk = v->lay.fat_bits == 12 || s.bytes < FAT_CHUNK ? s.bytes : FAT_CHUNK;
	if (!ck_pass(&v->ck, 2, s.bytes))
		return -ETIMEDOUT;	/* the budget ran out: the summary says so */
	v->used = calloc(words, 8);
	if (v->hooks && v->hooks->claimed && v->mirrored && v->b->num_fats > 1)
		v->differ = calloc(((uint64_t)v->cc + 63) / 64 + 1, 8);
	s.act = malloc(s.chunk + 4);
	s.other = malloc(s.chunk + 4);
	scan_memo(v, &s);
	r = v->used && s.act && s.other && (v->differ || !(v->hooks && v->hooks->claimed && v->mirrored &&
							    v->b->num_fats > 1)) ? scan_chunks(v, &s) : -ENOMEM;
	if (r == 0 && s.keep.free && (s.keep.used = malloc(words * 8))) {
		memcpy(s.keep.used, v->used, words * 8);
		v->hooks->memo.scan_sound(v->hooks->ctx, &s.keep);	/* (which takes the arrays) */
	} else {
		free(s.keep.free);
	}
	for (unsigned k = 0; r == 0 && k < v->b->num_fats && k < 16; k++) {
		if (!s.differ[k] || !(f = ck_add(&v->ck, FSC_PR_FAT_COPIES_DIFFER, FSC_LOC_BYTE, copy_byte(v, k), NULL)))
			continue;
		finding_actual(f, "%llu", (unsigned long long)s.differ[k]);
		finding_expected(f, "%u", s.first_diff[k]);
		finding_detail(f, "%u", k + 1);
	}
	free(s.act);
	free(s.other);
	for (unsigned k = 0; k < 16; k++)
		differ |= s.differ[k] != 0;
	if (!differ) {			/* (the copies agree: no chain passes a difference) */
		free(v->differ);
		v->differ = NULL;
	}
	return r;
}

/* FSInfo (and its backup) against the FAT, when the whole volume is there to count. */
static void check_fsinfo(struct fvol *v)
{
	const struct fsc_fat_bpb *b = v->b;
	struct fat_fsinfo fi;
	struct fsc_finding *f;
	uint8_t s[512];

	if (!b->bpb32 || !b->fsinfo_read || b->fsinfo_lead != 0x41615252 || b->fsinfo_struc != 0x61417272 ||
	    fsc_dev_read(v->dev, (uint64_t)b->fsinfo_sector * b->bytes_per_sector, s, sizeof(s)) < 0)
		return;
	fat_fsinfo_decode(s, &fi);
	if (v->cc == v->lay.clusters && fi.free_count != 0xFFFFFFFFu && fi.free_count != v->free_clusters &&
	    (f = ck_add(&v->ck, FSC_PR_FAT32_FSINFO_FREE_COUNT, FSC_LOC_SECTOR, b->fsinfo_sector, "FSI_Free_Count"))) {
		finding_actual(f, "%u", fi.free_count);
		finding_expected(f, "%llu", (unsigned long long)v->free_clusters);
	}
	if (fi.next_free != 0xFFFFFFFFu && (fi.next_free < 2 || fi.next_free > v->lay.clusters + 1) &&
	    (f = ck_add(&v->ck, FSC_PR_FAT32_FSINFO_NEXT_FREE, FSC_LOC_SECTOR, b->fsinfo_sector, "FSI_Nxt_Free"))) {
		finding_actual(f, "%u", fi.next_free);
		finding_expected(f, "%u", v->lay.clusters + 1);
	}
	/* The backup FSInfo, in the backup boot region at the same distance. */
	uint32_t bk = (uint32_t)b->backup_sector + b->fsinfo_sector;

	if (!b->backup_sector || b->backup_sector == 0xFFFF || bk >= b->reserved ||
	    fsc_dev_read(v->dev, (uint64_t)bk * b->bytes_per_sector, s, sizeof(s)) < 0)
		return;
	fat_fsinfo_decode(s, &fi);
	if ((fi.lead_sig != 0x41615252 || fi.struc_sig != 0x61417272 || fi.trail_sig != 0xAA550000) &&
	    (f = ck_add(&v->ck, FSC_PR_FAT32_FSINFO_SIGNATURE, FSC_LOC_SECTOR, bk, "FSInfo")))
		finding_detail(f, "%u", bk);
}

/* Lost chain heads read at most, looking for lost directories (many small lost files stay quick). */
#define MAX_LOST_HEADS 65536u

static bool bit_at(const uint64_t *set, uint32_t c)
{
	return set[(c - 2) / 64] >> ((c - 2) % 64) & 1;
}

static bool lost_at(const struct fvol *v, uint32_t c)
{
	return fv_cluster_valid(v, c) && bit_at(v->used, c) && !bit_at(v->ck.claimed, c);
}

/* Is p the first cluster of a directory the walk reached (0, or the FAT32 root cluster: the root)? */
static bool live_dir(const struct fvol *v, uint32_t p)
{
	uint8_t d[64];
	uint32_t up;

	if (p == 0 || (v->b->bpb32 && p == v->lay.root_cluster))	/* (a FAT32 root the walk could not read is none) */
		return !v->b->bpb32 || (fv_cluster_valid(v, v->lay.root_cluster) && bit_at(v->ck.claimed, v->lay.root_cluster));
	return fv_cluster_valid(v, p) && bit_at(v->ck.claimed, p) &&
	       fsc_dev_read(v->dev, layout_cluster_byte(&v->lay, p), d, sizeof(d)) == 0 &&
	       fat_dir_start(d, p, v->lay.fat_bits, &up);
}

/* The last parent named: the lost children of one directory ask for it once, not a walk of the tree each. */
struct parent_name {
	uint32_t up;			/* 0: none yet */
	char detail[sizeof(((struct fsc_finding *)0)->detail)];
};

/* A lost directory's finding: its cluster, and the directory its .. names by path (else by cluster). */
static void name_parent(struct fvol *v, struct fsc_finding *f, uint32_t c, uint32_t up, struct parent_name *last)
{
	struct fsc_owner o = FSC_OWNER_INIT;
	char buf[1024];

	finding_actual(f, "%u", c);
	if (up == 0 || (v->b->bpb32 && up == v->lay.root_cluster)) {
		finding_detail(f, "/ (the root)");
		return;
	}
	if (last->up != up) {
		last->up = up;
		if (fsc_cluster_owner(v->dev, v->p, up, &o, buf, sizeof(buf)) == 0 && o.kind == FSC_OWNER_DIR && o.path[0])
			snprintf(last->detail, sizeof(last->detail), "%s", o.path);
		else
			snprintf(last->detail, sizeof(last->detail), "the directory at cluster %u", up);
	}
	finding_detail(f, "%s", last->detail);
}

/*
 * Lost directories: the heads of lost chains (lost clusters no lost
 * cluster links to) that start a directory of their own whose .. names a
 * live directory.  A bit a cluster more, only while there are lost ones.
 */
static void lost_dirs(struct fvol *v)
{
	uint64_t words = ((uint64_t)v->cc + 63) / 64, reads = 0;
	uint64_t *linked = calloc(words ? words : 1, sizeof(*linked));
	struct parent_name last = { 0 };
	uint8_t d[64];

	if (!linked)
		return;		/* (an advisory finding: without memory it is not looked for) */
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t w = 0; w < words && reads < MAX_LOST_HEADS; w++) {
			uint64_t x = v->used[w] & ~v->ck.claimed[w];

			while (x && reads < MAX_LOST_HEADS) {
				uint32_t c = (uint32_t)(w * 64 + (unsigned)__builtin_ctzll(x) + 2), next, up;
				struct fsc_finding *f;

				x &= x - 1;
				if (!pass) {
					next = fv_next(v, c);
					if (next != c && lost_at(v, next))
						linked[(next - 2) / 64] |= 1ull << ((next - 2) % 64);
					continue;
				}
				if (bit_at(linked, c))
					continue;
				if (!(++reads & 255) && ck_out_of_time(&v->ck))
					goto out;	/* (a volume of many lost chains on a slow card: the budget holds) */
				if (fsc_dev_read(v->dev, layout_cluster_byte(&v->lay, c), d, sizeof(d)) < 0 ||
				    !fat_dir_start(d, c, v->lay.fat_bits, &up) || up == c || !live_dir(v, up))
					continue;
				if (v->hooks && v->hooks->lost_dir)
					v->hooks->lost_dir(v->hooks->ctx, c, up);
				if ((f = ck_add(&v->ck, FSC_PR_FAT_LOST_DIRECTORY, FSC_LOC_CLUSTER, c, NULL)))
					name_parent(v, f, c, up, &last);
			}
		}
out:
	free(linked);
}

void fv_compare(struct fvol *v)
{
	struct ck_runs lost = { 0 };
	uint64_t words = ((uint64_t)v->cc + 63) / 64;

	for (uint64_t w = 0; w < words; w++) {
		uint64_t x = v->used[w] & ~v->ck.claimed[w];

		v->ck.sum->clusters_used += (uint64_t)__builtin_popcountll(v->ck.claimed[w]);
		v->ck.sum->clusters_marked += (uint64_t)__builtin_popcountll(v->used[w]);
		while (x) {
			unsigned bit = (unsigned)__builtin_ctzll(x);

			x &= x - 1;
			ck_runs_add(&lost, w * 64 + bit + 2);
			if (v->hooks && v->hooks->lost)
				v->hooks->lost(v->hooks->ctx, (uint32_t)(w * 64 + bit + 2));
		}
	}
	v->ck.sum->lost_clusters = lost.count;
	if (v->hooks && v->hooks->counted)
		v->hooks->counted(v->hooks->ctx, v->free_clusters, v->cc);
	ck_runs_report(&v->ck, FSC_PR_FAT_LOST_CLUSTERS, &lost);
	if (lost.count)
		lost_dirs(v);
	check_fsinfo(v);
}
