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

/*
 * The FAT is read in 64 KiB blocks through a direct-mapped cache of 32
 * blocks: 2 MiB at most, whatever the volume's size, and chains, which
 * mostly run forward, cost one read per block.
 */
#define FC_BLOCK (64u * 1024)
#define FC_SLOTS 32

struct fatcache {
	uint64_t tag[FC_SLOTS];		/* block number + 1, 0: empty */
	uint8_t data[FC_SLOTS][FC_BLOCK];
};

uint32_t xv_fat(const struct xvol *v, uint32_t c)
{
	struct fatcache *fc = v->fc;
	uint64_t off = 4ull * c, blk = off / FC_BLOCK;
	unsigned slot = (unsigned)(blk % FC_SLOTS);

	if (fc->tag[slot] != blk + 1) {
		uint64_t start = blk * FC_BLOCK, end = ((uint64_t)v->cc + 2) * 4;
		size_t len = end - start < FC_BLOCK ? (size_t)(end - start) : FC_BLOCK;

		if (fsc_dev_read(v->dev, v->fat_byte + start, fc->data[slot], len) < 0)
			memset(fc->data[slot], 0xFF, len);	/* checked readable at load */
		fc->tag[slot] = blk + 1;
	}
	return get_le32(fc->data[slot], (size_t)(off % FC_BLOCK));
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
		f = xv_add(v, FSC_PR_EXFAT_FAT_UNREADABLE, FSC_LOC_SECTOR, ex->fat_offset, "FAT");
		if (f)
			finding_detail(f, "%llu bytes at byte %llu, the image has %llu", (unsigned long long)claimed,
				       (unsigned long long)off, (unsigned long long)fsc_dev_size(v->dev));
		return r;
	}
	v->fc = calloc(1, sizeof(*v->fc));
	if (!v->fc)
		return -ENOMEM;
	if (get_le32(head, 0) != 0xFFFFFFF8u && (f = xv_add(v, FSC_PR_EXFAT_FAT_ENTRY0, FSC_LOC_BYTE, off, "FatEntry[0]")))
		finding_actual(f, "0x%08x", get_le32(head, 0));
	if (get_le32(head, 4) != 0xFFFFFFFFu && (f = xv_add(v, FSC_PR_EXFAT_FAT_ENTRY1, FSC_LOC_BYTE, off + 4, "FatEntry[1]")))
		finding_actual(f, "0x%08x", get_le32(head, 4));
	return 0;
}

/* Was cluster c reached earlier by the chain from first (within steps)? */
static bool in_chain(const struct xvol *v, uint32_t first, bool nofat, uint64_t steps, uint32_t c)
{
	uint32_t x = first;

	for (uint64_t i = 0; i < steps; i++) {
		if (x == c)
			return true;
		if (nofat) {
			x++;
			continue;
		}
		x = xv_fat(v, x);
		if (!xv_cluster_valid(v, x))
			return false;
	}
	return false;
}

static void chain_problem(struct xvol *v, enum fsc_problem id, const struct owner *who,
			  uint64_t n, const char *detail)
{
	struct fsc_finding *f;

	if (who->chain_told)
		return;
	f = xv_add_owner(v, id, who);
	if (!f)
		return;
	finding_actual(f, "%llu", (unsigned long long)n);
	if (detail)
		finding_detail(f, "%s", detail);
}

/* While resolving: the owner claiming a cross-linked cluster first is named in its finding. */
static void name_first_owner(struct xvol *v, const struct owner *who, uint32_t c)
{
	char path[4096 + 800];

	for (unsigned k = 0; k < v->nxlinks; k++) {
		struct xlink *x = &v->xlinks[k];

		if (x->cluster != c || x->named)
			continue;
		owner_path(who, path, sizeof(path));
		finding_detail(&v->out->v[x->finding], "%s", path);
		x->named = true;
	}
}

enum claim { CLAIMED, LOOP, CROSSED };

/*
 * Claim cluster c for the allocation.  A loop is reported and ends the
 * walk; a cross-link is reported once per allocation (crossed is set), and
 * the caller goes on claiming the rest of the chain so that its tail does
 * not also show up as lost clusters.
 */
static enum claim claim_one(struct xvol *v, const struct owner *who, uint32_t first, bool nofat,
			    uint64_t step, uint32_t c, bool crossed)
{
	uint64_t i = (uint64_t)c - 2;
	uint64_t *claimed = v->resolving ? v->marked : v->used;
	struct fsc_finding *f;

	if (!bit_get(claimed, i)) {
		bit_set(claimed, i);
		if (v->resolving)
			name_first_owner(v, who, c);
		return CLAIMED;
	}
	if (crossed)
		return CROSSED;		/* the shared tail goes on: said already */
	if (in_chain(v, first, nofat, step, c)) {
		if (!v->resolving)
			chain_problem(v, FSC_PR_EXFAT_CHAIN_LOOP, who, c, NULL);
		return LOOP;
	}
	if (v->resolving)
		return CROSSED;
	if ((f = xv_add_owner(v, FSC_PR_EXFAT_CROSS_LINK, who))) {
		finding_actual(f, "%u", c);
		finding_detail(f, "another file or directory checked earlier");
		if (v->nxlinks < sizeof(v->xlinks) / sizeof(v->xlinks[0]))
			v->xlinks[v->nxlinks++] = (struct xlink){ c, (size_t)(f - v->out->v), false };
	}
	return CROSSED;
}

static void length_check(struct xvol *v, const struct owner *who, uint64_t have, uint64_t need, bool ended)
{
	struct fsc_finding *f;

	if (have == need || need == 0 || !ended)
		return;
	f = xv_add_owner(v, have < need ? FSC_PR_EXFAT_CHAIN_SHORT : FSC_PR_EXFAT_CHAIN_LONG, who);
	if (f) {
		finding_actual(f, "%llu", (unsigned long long)have);
		finding_expected(f, "%llu", (unsigned long long)need);
	}
}

void xv_claim(struct xvol *v, const struct owner *who, uint32_t first, uint64_t size, bool nofat,
	      struct chain_res *res, cluster_fn visit, void *ctx)
{
	uint64_t need = (size + v->cb - 1) / v->cb, n = 0;
	uint32_t c = first;
	char msg[80];
	bool ended = false, visiting = visit != NULL, crossed = false;

	memset(res, 0, sizeof(*res));
	res->contiguous = true;
	if (!xv_cluster_valid(v, first)) {
		snprintf(msg, sizeof(msg), "first cluster %u", first);
		chain_problem(v, FSC_PR_EXFAT_CHAIN_RANGE, who, first, msg);
		return;
	}
	if (nofat && need > (uint64_t)v->cc + 2 - first) {
		snprintf(msg, sizeof(msg), "%llu contiguous clusters from %u", (unsigned long long)need, first);
		chain_problem(v, FSC_PR_EXFAT_CHAIN_RANGE, who, first, msg);
		need = (uint64_t)v->cc + 2 - first;
	}
	for (;;) {
		enum claim cl = claim_one(v, who, first, nofat, n, c, crossed);

		/* After a cross-link: claim the rest up to DataLength, read nothing more. */
		if (cl == LOOP || (cl == CROSSED && (size == 0 || n >= need || n >= v->cc)))
			break;
		if (cl == CROSSED) {
			crossed = true;
			visiting = false;
		}
		if (n == 0 && cl == CLAIMED)
			res->readable = true;
		n++;
		if (visiting && !visit(v, c, ctx))
			visiting = false;
		if (nofat) {
			if (n >= need) {
				ended = true;
				break;
			}
			c++;
			continue;
		}
		uint32_t next = xv_fat(v, c);

		if (next >= EXFAT_EOC) {
			ended = true;
			break;
		}
		if (next == 0 || next == EXFAT_BAD) {
			chain_problem(v, next ? FSC_PR_EXFAT_CHAIN_BAD : FSC_PR_EXFAT_CHAIN_FREE, who, n, NULL);
			break;
		}
		if (!xv_cluster_valid(v, next)) {
			snprintf(msg, sizeof(msg), "cluster %u points to 0x%08x", c, next);
			chain_problem(v, FSC_PR_EXFAT_CHAIN_RANGE, who, next, msg);
			break;
		}
		if (next != c + 1)
			res->contiguous = false;
		c = next;
	}
	res->clusters = n;
	length_check(v, who, n, need, ended);
}

int xv_load_bitmap(struct xvol *v)
{
	const struct fsc_exfat_root *r = &v->p->root;
	uint64_t bytes = ((uint64_t)v->cc + 7) / 8, words = ((uint64_t)v->cc + 63) / 64, copied = 0;
	struct owner who = { "/", "allocation bitmap", 0, 0, NULL, 0, false };
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
	if (trailing && (f = xv_add(v, FSC_PR_EXFAT_BITMAP_TRAILING, FSC_LOC_CLUSTER, r->bitmap_cluster, NULL)))
		finding_actual(f, "%llu", (unsigned long long)trailing);
	{
		struct chain_res res;

		xv_claim(v, &who, r->bitmap_cluster, r->bitmap_length, false, &res, NULL, NULL);
	}
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

/* Decompress the volume's up-case table; the ASCII default where it is missing or broken. */
void xv_load_upcase(struct xvol *v)
{
	const struct fsc_exfat_root *r = &v->p->root;
	struct owner who = { "/", "up-case table", 0, 0, NULL, 0, false };
	struct chain_res res;
	uint8_t *t;
	uint32_t idx = 0;
	bool skip = false;
	struct fsc_finding *f;

	for (uint32_t i = 0; i < 65536; i++)
		v->upcase[i] = (uint16_t)((i >= 'a' && i <= 'z') ? i - 32 : i);
	if (!r->upcase_found)
		return;
	xv_claim(v, &who, r->upcase_cluster, r->upcase_length, false, &res, NULL, NULL);
	/* The probe read and checksummed it; a broken table keeps the default. */
	if (!r->upcase_read || r->upcase_checksum_computed != r->upcase_checksum_stored)
		return;
	t = read_chain(v, r->upcase_cluster, r->upcase_length);
	if (!t)
		return;
	for (uint64_t i = 0; i + 1 < r->upcase_length && idx < 65536; i += 2) {
		uint16_t u = get_le16(t, i);

		if (skip) {
			for (uint32_t k = 0; k < u && idx < 65536; k++, idx++)
				v->upcase[idx] = (uint16_t)idx;
			skip = false;
		} else if (u == 0xFFFF && idx != 0xFFFF) {
			skip = true;
		} else {
			v->upcase[idx++] = u;
		}
	}
	free(t);
	v->upcase_ok = true;
	for (uint32_t i = 0; i < 128; i++) {
		uint16_t want = (uint16_t)((i >= 'a' && i <= 'z') ? i - 32 : i);

		if (v->upcase[i] != want) {
			f = xv_add(v, FSC_PR_EXFAT_UPCASE_MANDATORY, FSC_LOC_CLUSTER, r->upcase_cluster, NULL);
			if (f) {
				finding_actual(f, "%04X", i);
				finding_expected(f, "%04X", v->upcase[i]);
			}
			break;
		}
	}
}

/* "5-9, 20, 33-40 (14 clusters in 3 runs)" for the bits set in a & ~b. */
struct runs {
	char text[88];
	uint64_t count, nruns, start, last, first;
	bool open;
};

static void runs_flush(struct runs *r)
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

static void runs_add(struct runs *r, uint64_t cluster)
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

static void runs_report(struct xvol *v, enum fsc_problem id, struct runs *r)
{
	struct fsc_finding *f;

	runs_flush(r);
	if (!r->count || !(f = xv_add(v, id, FSC_LOC_CLUSTER, r->first, NULL)))
		return;
	finding_actual(f, "%llu", (unsigned long long)r->count);
	finding_detail(f, "%s%s (%llu cluster%s in %llu run%s)", r->text, r->nruns > 6 ? ", ..." : "",
		       (unsigned long long)r->count, r->count == 1 ? "" : "s",
		       (unsigned long long)r->nruns, r->nruns == 1 ? "" : "s");
}

void xv_compare_bitmap(struct xvol *v)
{
	struct runs unmarked = { 0 }, lost = { 0 };
	uint64_t words = ((uint64_t)v->cc + 63) / 64, marked = 0, used = 0;
	uint8_t piu = v->p->ex.percent_in_use;
	uint64_t cc = v->p->ex.cluster_count;
	struct fsc_finding *f;

	for (uint64_t w = 0; w < words; w++) {
		uint64_t u = v->used[w], m = v->marked[w], d = (u & ~m) | (m & ~u);

		marked += (uint64_t)__builtin_popcountll(m);
		used += (uint64_t)__builtin_popcountll(u);
		while (d) {
			unsigned b = (unsigned)__builtin_ctzll(d);
			uint64_t cluster = w * 64 + b + 2;

			runs_add((u >> b) & 1 ? &unmarked : &lost, cluster);
			d &= d - 1;
		}
	}
	v->sum->clusters_used = used;
	if (!v->bitmap_ok) {
		/* No bitmap to compare with (EXFAT_BITMAP_MISSING, or unreadable): what the tree owns. */
		v->sum->clusters_marked = used;
		return;
	}
	runs_report(v, FSC_PR_EXFAT_BITMAP_UNMARKED, &unmarked);
	runs_report(v, FSC_PR_EXFAT_LOST_CLUSTERS, &lost);
	v->sum->clusters_marked = marked;
	v->sum->lost_clusters = lost.count;
	/* PercentInUse is of ClusterCount as the boot sector says, though the image may hold fewer. */
	if (piu != 0xFF && piu <= 100 && cc) {
		uint64_t lo = marked * 100 / cc, hi = (marked * 100 + cc - 1) / cc;

		if ((piu < lo || piu > hi) &&
		    (f = xv_add(v, FSC_PR_EXFAT_PERCENT_IN_USE_WRONG, FSC_LOC_BYTE, 112, "PercentInUse"))) {
			finding_actual(f, "%u", piu);
			finding_expected(f, "%llu", (unsigned long long)lo);
		}
	}
}
