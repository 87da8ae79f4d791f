// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat_alloc.c - exFAT allocation passes: the FAT (entries 0 and 1, the
 * chains of every allocation: range, loops, free and bad links, length,
 * cross-links), the allocation bitmap (read once; compared with what the
 * tree walk claimed: clusters in use but free, lost clusters, trailing
 * bits, PercentInUse) and the up-case table (decompressed for name hashes
 * and duplicate names; the fixed first 128 mappings).
 *
 * Consumes: the geometry in struct xvol.  Produces: findings, the claimed
 * set (one bit per cluster) and the on-disk bitmap (one bit per cluster).
 * A chain walk never takes more than ClusterCount steps and needs no
 * memory: a loop is told from a cross-link by walking the chain again.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/exfat_check.h"

#define EXFAT_BAD	0xFFFFFFF7u
#define EXFAT_EOC	0xFFFFFFF8u	/* F8..FF end a chain (Linux); the spec writes FFFFFFFF */

/* The raw entry of c through the layout's FAT reader; an unreadable block reads as end of chain. */
uint32_t xv_fat(struct xvol *v, uint32_t c)
{
	uint32_t raw;

	return fatreader_raw(&v->fr, c, &raw) < 0 ? 0xFFFFFFFFu : raw;	/* checked readable at load */
}

int xv_load_fat(struct xvol *v)
{
	const struct fsc_exfat_boot *ex = &v->p->ex;
	uint64_t off = (uint64_t)ex->fat_offset << v->shift, len = ((uint64_t)v->cc + 2) * 4;
	uint64_t claimed = ((uint64_t)ex->cluster_count + 2) * 4;	/* for the message */
	struct fsc_finding *f;
	uint8_t head[8];
	int r = off > fsc_dev_size(v->dev) || len > fsc_dev_size(v->dev) - off ? -ENXIO :
		fsc_dev_read(v->dev, off, head, sizeof(head));

	v->fat_byte = off;
	if (r < 0) {
		f = ck_add(&v->ck, FSC_PR_EXFAT_FAT_UNREADABLE, FSC_LOC_SECTOR, ex->fat_offset, "FAT");
		if (f)
			finding_detail(f, "%llu bytes at byte %llu, the image has %llu", (unsigned long long)claimed,
				       (unsigned long long)off, (unsigned long long)fsc_dev_size(v->dev));
		return r;
	}
	fatreader_init(&v->fr, &v->lay);
	if (exfat_fat_entry(head, 0) != EXFAT_FAT_ENTRY0 &&
	    (f = ck_add(&v->ck, FSC_PR_EXFAT_FAT_ENTRY0, FSC_LOC_BYTE, off, "FatEntry[0]")))
		finding_actual(f, "0x%08x", exfat_fat_entry(head, 0));
	if (exfat_fat_entry(head, 1) != EXFAT_FAT_ENTRY1 &&
	    (f = ck_add(&v->ck, FSC_PR_EXFAT_FAT_ENTRY1, FSC_LOC_BYTE, off + EXFAT_FAT_ENTRY_SIZE, "FatEntry[1]")))
		finding_actual(f, "0x%08x", exfat_fat_entry(head, 1));
	return 0;
}

uint32_t xv_next(void *ctx, uint32_t c)
{
	uint32_t next = xv_fat(ctx, c);

	return next == 0xFFFFFFFFu ? CK_END : next >= EXFAT_EOC ? CK_END_ODD : next == EXFAT_BAD ? CK_BAD : next;
}

uint32_t xv_raw(void *ctx, uint32_t c)
{
	return xv_fat(ctx, c);
}

const struct ck_chain_ids xv_chain_ids = {
	.range = FSC_PR_EXFAT_CHAIN_RANGE, .loop = FSC_PR_EXFAT_CHAIN_LOOP,
	.cross = FSC_PR_EXFAT_CROSS_LINK, .free = FSC_PR_EXFAT_CHAIN_FREE,
	.bad = FSC_PR_EXFAT_CHAIN_BAD, .shorter = FSC_PR_EXFAT_CHAIN_SHORT,
	.longer = FSC_PR_EXFAT_CHAIN_LONG, .end_value = FSC_PR_EXFAT_CHAIN_END_VALUE,
};

int xv_load_bitmap(struct xvol *v)
{
	const struct fsc_exfat_root *r = &v->p->root;
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8, words = ((uint64_t)v->cc + 63) / 64, copied = 0;
	struct owner who = { "/", "allocation bitmap", 0, 0, NULL, 0, false, 0, 0 };
	uint32_t c = r->bitmap_cluster;
	uint8_t *dst;
	uint64_t trailing = 0;
	struct fsc_finding *f;

	v->marked = calloc(words ? words : 1, 8);
	if (!v->marked)
		return -ENOMEM;
	if (!r->bitmap_found || !xv_cluster_valid(v, c))
		return 0;	/* reported by the probe; everything will look lost */
	dst = (uint8_t *)v->marked;
	/* Claim the bitmap's clusters and copy ClusterCount bits as we go. */
	for (uint64_t n = 0; copied < bytes && n < v->cc; n++) {
		uint64_t take = bytes - copied < v->cb ? bytes - copied : v->cb;

		if (fsc_dev_read(v->dev, xv_cluster_byte(v, c), dst + copied, (size_t)take) < 0)
			break;
		if (take < v->cb && copied + take == bytes) {	/* the rest of the bitmap's last cluster */
			uint64_t in_entry = r->bitmap_length > copied + take ? r->bitmap_length - copied - take : 0;
			uint64_t rest = in_entry < v->cb - take ? in_entry : v->cb - take;
			uint8_t tail[512];

			for (uint64_t o = 0; o < rest; o += sizeof(tail)) {
				size_t k = rest - o < sizeof(tail) ? (size_t)(rest - o) : sizeof(tail);

				if (fsc_dev_read(v->dev, xv_cluster_byte(v, c) + take + o, tail, k) < 0)
					break;
				for (size_t i = 0; i < k; i++)
					trailing += (uint64_t)__builtin_popcount(tail[i]);
			}
		}
		copied += take;
		c = xv_fat(v, c);
		if (!xv_cluster_valid(v, c))
			break;
	}
	v->bitmap_ok = copied >= bytes;
	if (r->bitmap_self_checked && !r->bitmap_self_allocated)
		bit_set(v->marked, r->bitmap_cluster - 2);	/* EXFAT_BITMAP_CLUSTERS_FREE said so: once is enough */
	if (v->cc % 8 && copied >= bytes) {	/* bits of the last byte past ClusterCount */
		uint8_t extra = (uint8_t)(dst[bytes - 1] & (0xFF << (v->cc % 8)));

		trailing += (uint64_t)__builtin_popcount(extra);
		dst[bytes - 1] &= (uint8_t)~extra;
	}
	if (trailing && (f = ck_add(&v->ck, FSC_PR_EXFAT_BITMAP_TRAILING, FSC_LOC_CLUSTER, r->bitmap_cluster, NULL)))
		finding_actual(f, "%llu", (unsigned long long)trailing);
	ck_claim(&v->ck, &who, r->bitmap_cluster, r->bitmap_length, false, &v->bitmap_chain, NULL, NULL);
	return 0;
}

/* Read an allocation of len bytes following its chain into a new buffer. */
static uint8_t *read_chain(struct xvol *v, uint32_t c, uint64_t len)
{
	uint8_t *buf = malloc(len ? (size_t)len : 1);

	if (!buf)
		return NULL;
	for (uint64_t done = 0, n = 0; done < len; n++) {
		uint64_t take = len - done < v->cb ? len - done : v->cb;

		if (n >= v->cc || !xv_cluster_valid(v, c) ||
		    fsc_dev_read(v->dev, xv_cluster_byte(v, c), buf + done, (size_t)take) < 0) {
			free(buf);
			return NULL;
		}
		done += take;
		c = xv_fat(v, c);
	}
	return buf;
}

/* The volume's own table, or the ASCII default; the claim of its chain in upcase_chain. */
static void xv_read_upcase(struct xvol *v)
{
	const struct fsc_exfat_root *r = &v->p->root;
	struct owner who = { "/", "up-case table", 0, 0, NULL, 0, false, 0, 0 };
	struct exfat_upcase_rd rd = { 0, false };
	uint8_t *t;
	struct fsc_finding *f;

	exfat_upcase_default(v->upcase);
	/* No table, or none to claim (a FirstCluster outside the heap: the probe's EXFAT_UPCASE_CLUSTER) */
	if (!r->upcase_found || !xv_cluster_valid(v, r->upcase_cluster))
		return;
	ck_claim(&v->ck, &who, r->upcase_cluster, r->upcase_length, false, &v->upcase_chain, NULL, NULL);
	/* The probe read and checksummed it; a broken table keeps the default. */
	if (!r->upcase_read || r->upcase_checksum_computed != r->upcase_checksum_stored)
		return;
	t = read_chain(v, r->upcase_cluster, r->upcase_length);
	if (!t)
		return;
	exfat_upcase_feed(&rd, t, (size_t)r->upcase_length, v->upcase);
	free(t);
	v->upcase_ok = true;
	for (uint32_t i = 0; i < 128; i++) {
		uint16_t want = (uint16_t)((i >= 'a' && i <= 'z') ? i - 32 : i);

		if (v->upcase[i] != want) {
			f = ck_add(&v->ck, FSC_PR_EXFAT_UPCASE_MANDATORY, FSC_LOC_CLUSTER, r->upcase_cluster, NULL);
			if (f) {
				finding_actual(f, "%04X", i);
				finding_expected(f, "%04X", v->upcase[i]);
			}
			break;
		}
	}
}

/*
 * Decompress the volume's up-case table; the ASCII default where it is
 * missing or broken.  When a repair will write the recommended table,
 * the names are judged by that one.
 */
void xv_load_upcase(struct xvol *v)
{
	xv_read_upcase(v);
	if (v->fix && v->fix->upcase && v->fix->upcase(v->fix->ctx, v)) {
		exfat_upcase_recommended_map(v->upcase);
		v->upcase_ok = true;
	}
}

void xv_compare_bitmap(struct xvol *v)
{
	struct ck_runs unmarked = { 0 }, lost = { 0 };
	uint64_t words = ((uint64_t)v->cc + 63) / 64, marked = 0, used = 0;
	uint8_t piu = v->p->ex.percent_in_use;
	uint64_t cc = v->p->ex.cluster_count;
	struct fsc_finding *f;

	for (uint64_t w = 0; w < words; w++) {
		uint64_t u = v->ck.claimed[w], m = v->marked[w], d = (u & ~m) | (m & ~u);

		marked += (uint64_t)__builtin_popcountll(m);
		used += (uint64_t)__builtin_popcountll(u);
		while (d) {
			unsigned b = (unsigned)__builtin_ctzll(d);
			uint64_t cluster = w * 64 + b + 2;

			ck_runs_add((u >> b) & 1 ? &unmarked : &lost, cluster);
			d &= d - 1;
		}
	}
	v->ck.sum->clusters_used = used;
	if (!v->bitmap_ok) {
		/* No bitmap to compare with (EXFAT_BITMAP_MISSING, or unreadable): what the tree owns. */
		v->ck.sum->clusters_marked = used;
		return;
	}
	ck_runs_report(&v->ck, FSC_PR_EXFAT_BITMAP_UNMARKED, &unmarked);
	ck_runs_report(&v->ck, FSC_PR_EXFAT_LOST_CLUSTERS, &lost);
	v->ck.sum->clusters_marked = marked;
	v->ck.sum->lost_clusters = lost.count;
	/* PercentInUse is of ClusterCount as the boot sector says, though the image may hold fewer. */
	if (piu != 0xFF && piu <= 100 && cc) {
		uint64_t lo;

		if (!xv_percent_fits(piu, marked, cc, &lo) &&
		    (f = ck_add(&v->ck, FSC_PR_EXFAT_PERCENT_IN_USE_WRONG, FSC_LOC_BYTE, 112, "PercentInUse"))) {
			finding_actual(f, "%u", piu);
			finding_expected(f, "%llu", (unsigned long long)lo);
		}
	}
}
