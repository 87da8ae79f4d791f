// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * scan.c - exFAT and FAT12/16/32 volumes at any sector of a disk whose
 * partition table is gone or wrong (fsc_scan).
 *
 * One pass over the window in order, in SCAN_CHUNK reads, holes of a
 * sparse image passed over; every sector goes through the probe's own
 * classifier (probe_maybe_volume, then probe_classify).  A sector it calls
 * exFAT or FAT is tried as a main boot sector and as a backup (EXSPEC 3.1:
 * the backup boot region 12 sectors after the main one; fatgen103: the
 * FAT32 copy at BPB_BkBootSec), so that a volume whose sector 0 is
 * destroyed is reported where it starts.  Cross-checks, cheapest first:
 * the exFAT boot region's checksum; FAT[0] holding the media byte with its
 * other bits set, in either of the first two FATs (exFAT: F8 FF FF FF,
 * EXSPEC 4.1); then the probe run on
 * the volume as it would be (probe_decode), whose geometry findings reject
 * what does not fit; last the root directory (exFAT: the bitmap and
 * up-case entries found by the probe's root scan; FAT: the first entries
 * plausible), which gives high confidence.  Only a volume found with high
 * confidence has its extent passed over, and only as far as it uses it
 * (to its last cluster in use, within the partition declared where it
 * starts): a volume in the unused rest of a claimed extent is found.
 *
 * Consumes: a device (its window).  Produces: struct fsc_scan_hit for each
 * volume, struct fsc_scan_stats.  Memory: one read buffer and the hits.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "probe/probe.h"

#define SCAN_CHUNK (4u << 20)

struct scan_ctx {
	struct fsc_dev *dev;
	struct fsc_partition *parts;	/* the table's, to bound a volume's extent by its partition */
	int nparts;
	uint64_t win_off, win_size;	/* the caller's window, put back after each check */
	uint32_t step;			/* boot sectors are looked for at multiples of this */
	struct fsc_scan_hit *hits;
	size_t n, cap;
	struct fsc_scan_stats st;
	uint8_t region[12 * 4096];	/* an exFAT boot region */
};

/* Where a volume would start if the sector found were its main boot sector, or its backup. */
struct hyp {
	uint64_t start;
	unsigned how;
};

FSC_EXPORT const char *fsc_scan_confidence_name(enum fsc_scan_confidence c)
{
	return c == FSC_SCAN_HIGH ? "high" : "medium";
}

/*
 * FAT[0] of the volume at start holds the media byte with every other bit
 * set, in the first FAT or in the second (fat_bytes apart) when there is one.
 */
static bool fat0_matches(struct fsc_dev *dev, uint64_t start, const struct layout *l, uint64_t fat_bytes,
			 unsigned fats, uint8_t media)
{
	uint32_t mask = l->type == FSC_TYPE_EXFAT ? 0xFFFFFFFFu : l->fat_bits == 12 ? 0xFFFu :
			l->fat_bits == 16 ? 0xFFFFu : 0x0FFFFFFFu;
	uint8_t b[4];

	for (unsigned k = 0; k < fats && k < 2; k++)
		if (fsc_dev_read(dev, start + l->fat_byte + k * fat_bytes, b, sizeof(b)) == 0 &&
		    (layout_cell_get(b, 32, 0) & mask) == ((mask & ~0xFFu) | media))
			return true;
	return false;
}

/* The boot sector s, if it starts a volume at start: does that volume's FAT[0] say so? */
static bool boot_fat0(struct fsc_dev *dev, const uint8_t *s, enum fsc_type t, uint64_t start)
{
	struct fsc_exfat_boot ex;
	struct fsc_fat_bpb b;
	struct layout l;
	char why[96];

	if (t == FSC_TYPE_EXFAT) {
		exfat_boot_decode(s, &ex);
		return exfat_layout(&l, dev, &ex, ex.sector_shift, why, sizeof(why)) == 0 &&
		       fat0_matches(dev, start, &l, (uint64_t)ex.fat_length << ex.sector_shift, ex.num_fats, 0xF8);
	}
	fat_bpb_decode(s, &b);
	return fat_layout(&l, dev, &b, why, sizeof(why)) == 0 &&
	       fat0_matches(dev, start, &l, (uint64_t)b.fat_size * b.bytes_per_sector, b.num_fats, b.media);
}

/*
 * Where the volume of boot sector s (at byte at) may start: here, and
 * where its main boot sector would be if s were the backup.  An exFAT
 * sector counts only when its boot region's checksum is right.
 */
static size_t hypotheses(struct scan_ctx *c, uint64_t at, const uint8_t *s, enum fsc_type t, struct hyp *h)
{
	size_t ss = (size_t)1 << (s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT] & 15);
	struct fsc_fat_bpb b;
	uint64_t back;

	if (t == FSC_TYPE_EXFAT) {
		if (s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT] < 9 || s[EXFAT_BOOT_BYTES_PER_SECTOR_SHIFT] > 12 ||
		    fsc_dev_read(c->dev, at, c->region, 12 * ss) < 0 ||
		    !exfat_region_sound(c->region, (unsigned)ss))
			return 0;
		back = 12 * ss;
	} else {
		fat_bpb_decode(s, &b);
		back = b.bpb32 && b.backup_sector && b.backup_sector < b.reserved ?
		       (uint64_t)b.backup_sector * b.bytes_per_sector : 0;
	}
	h[0] = (struct hyp){ at, FSC_SCAN_MAIN };
	if (!back || back > at)
		return 1;
	h[1] = (struct hyp){ at - back, FSC_SCAN_BACKUP };
	return 2;
}

/* Findings of the probe that say the boot sector's geometry cannot be a volume's. */
static const enum fsc_problem unfit[] = {
	FSC_PR_EXFAT_BOOT_SECTOR_SHIFT, FSC_PR_EXFAT_BOOT_CLUSTER_SHIFT, FSC_PR_EXFAT_BOOT_NUM_FATS,
	FSC_PR_EXFAT_BOOT_FAT_OFFSET, FSC_PR_EXFAT_BOOT_FAT_LENGTH, FSC_PR_EXFAT_BOOT_HEAP_OFFSET,
	FSC_PR_EXFAT_BOOT_ROOT_CLUSTER, FSC_PR_FAT_BOOT_DATA_START, FSC_PR_FAT_BOOT_FAT_SIZE,
	FSC_PR_FAT_BOOT_MEDIA, FSC_PR_FAT_BOOT_ROOT_ENTRIES, FSC_PR_FAT_BOOT_TOTAL_SECTORS,
	FSC_PR_FAT32_ROOT_CLUSTER,
};

static bool geometry_fits(const struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = &p->ex;

	for (size_t i = 0; i < sizeof(unfit) / sizeof(unfit[0]); i++)
		if (fsc_findings_has(&p->findings, unfit[i]))
			return false;
	if (p->type != FSC_TYPE_EXFAT)
		return p->fat.clusters > 0;
	/* ClusterCount may be smaller than the heap (a writer's rounding), never larger. */
	return ex->cluster_count <= (ex->volume_length - ex->heap_offset) >> ex->cluster_shift;
}

/* One entry of a FAT root directory, as a writer leaves it. */
static bool fat_entry_plausible(const uint8_t *e, uint32_t clusters, bool fat32)
{
	uint32_t first = fat_entry_first(e, fat32 ? 32 : 16);

	switch (fat_entry_kind(e)) {
	case FAT_E_LFN:
		return (e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) >= 1 && (e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) <= FAT_LFN_MAX_PARTS &&
		       e[FAT_LDIR_TYPE] == 0 && get_le16(e, FAT_LDIR_FST_CLUS_LO) == 0;
	case FAT_E_DOT:
		return false;	/* no . or .. in a root */
	case FAT_E_LABEL:
	case FAT_E_FILE:
		if ((e[FAT_DIR_ATTR] & FAT_ATTR_RESERVED) || e[FAT_DIR_NAME] == ' ' ||
		    (!fat32 && get_le16(e, FAT_DIR_FST_CLUS_HI)))
			return false;
		for (int i = 0; i < 11; i++)
			if ((e[i] < 0x20 && !(i == 0 && e[i] == 0x05)) || e[i] == 0x7F ||
			    strchr("\"*+,./:;<=>?[\\]|", e[i]))
				return false;
		return first == 0 || (first >= 2 && first <= (uint64_t)clusters + 1);
	default:
		return true;	/* the end marker, deleted entries */
	}
}

/* The first sector of a FAT root directory (FAT32: an allocated cluster) holds plausible entries. */
static bool fat_root_plausible(struct fsc_dev *dev, const struct fsc_fat_bpb *b)
{
	struct layout l;
	uint8_t e[512], v[4];
	uint64_t off;
	char why[96];
	bool fat32;

	if (fat_layout(&l, dev, b, why, sizeof(why)) < 0)
		return false;
	fat32 = l.fat_bits == 32;
	if (fat32) {
		if (!layout_cluster_valid(&l, l.root_cluster) ||
		    fsc_dev_read(dev, l.fat_byte + 4ull * l.root_cluster, v, 4) < 0)
			return false;
		switch (layout_fat_value(&l, layout_cell_get(v, 32, l.root_cluster))) {
		case LAYOUT_FREE: case LAYOUT_BAD:
			return false;
		}
		off = layout_cluster_byte(&l, l.root_cluster);
	} else {
		off = l.root_byte;
	}
	if (fsc_dev_read(dev, off, e, sizeof(e)) < 0)
		return false;
	for (unsigned i = 0; i < sizeof(e) && e[i]; i += 32)
		if (!fat_entry_plausible(e + i, l.clusters, fat32))
			return false;
	return true;
}

/* The probe's view of the volume as a hit: what it is, where, and how sure. */
static void hit_fill(struct fsc_dev *dev, const struct fsc_probe *p, const struct hyp *h, uint64_t room,
		     struct fsc_scan_hit *hit)
{
	const struct fsc_exfat_root *r = &p->root;

	memset(hit, 0, sizeof(*hit));
	hit->offset = h->start;
	hit->type = p->type;
	hit->how = h->how;
	if (p->type == FSC_TYPE_EXFAT) {
		hit->sector_size = 1u << p->ex.sector_shift;
		hit->size = p->ex.volume_length << p->ex.sector_shift;
		hit->confidence = r->read && r->bitmap_found && r->upcase_found && !r->bitmap_after_end &&
				  !r->upcase_after_end ? FSC_SCAN_HIGH : FSC_SCAN_MEDIUM;
	} else {
		hit->sector_size = p->fat.bytes_per_sector;
		hit->size = (uint64_t)p->fat.total_sectors * p->fat.bytes_per_sector;
		hit->confidence = fat_root_plausible(dev, &p->fat) ? FSC_SCAN_HIGH : FSC_SCAN_MEDIUM;
	}
	hit->truncated = hit->size > room;
	if (p->has_label) {
		hit->has_label = true;
		memcpy(hit->label, p->label, sizeof(hit->label));
	}
	if (p->has_serial) {
		hit->has_serial = true;
		memcpy(hit->serial, p->serial, sizeof(hit->serial));
	}
}

/* The last cluster set in exFAT's allocation bitmap (contiguous, as Linux reads it): 1 for none, 0 unreadable. */
static uint32_t bitmap_last(struct fsc_dev *dev, const struct layout *l, const struct fsc_exfat_root *r)
{
	uint8_t buf[4096];
	uint64_t len = r->bitmap_length, at, bits = (uint64_t)l->held;
	uint32_t last = 1;

	if (!r->bitmap_found || !layout_cluster_valid(l, r->bitmap_cluster))
		return 0;
	if (len > (bits + 7) / 8)
		len = (bits + 7) / 8;
	at = layout_cluster_byte(l, r->bitmap_cluster);
	for (uint64_t off = 0; off < len; off += sizeof(buf)) {
		size_t n = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);

		if (fsc_dev_read(dev, at + off, buf, n) < 0)
			return 0;
		for (size_t i = 0; i < n; i++)
			for (unsigned b = 0; buf[i] >> b; b++)
				if ((buf[i] >> b & 1) && (off + i) * 8 + b < bits)
					last = (uint32_t)((off + i) * 8 + b + 2);
	}
	return last;
}

/*
 * Where the volume probed as p (on a window from its start) stops using
 * its extent: the end of its last cluster in use (exFAT: set in its
 * allocation bitmap; FAT: a FAT entry not free, looked for from the
 * end), its metadata when none is.  Past it the scan goes on, so that a
 * volume made over the unused end of another (a partition cut short, a
 * new one after it, the table then lost) is found.  0: not known (the
 * whole extent is passed over).
 */
static uint64_t used_end(struct fsc_dev *dev, const struct fsc_probe *p)
{
	struct layout l;
	struct fatreader fr;
	char why[96];
	uint32_t last = 1, v;

	if ((p->type == FSC_TYPE_EXFAT ? exfat_layout(&l, dev, &p->ex, p->ex.sector_shift, why, sizeof(why)) :
	     fat_layout(&l, dev, &p->fat, why, sizeof(why))) < 0)
		return 0;
	if (p->type == FSC_TYPE_EXFAT) {
		last = bitmap_last(dev, &l, &p->root);
	} else {
		fatreader_init(&fr, &l);
		for (uint32_t c = l.held + 1; c >= 2 && last == 1; c--) {
			if (fatreader_raw(&fr, c, &v) < 0)
				last = 0;
			else if (layout_fat_value(&l, v) != LAYOUT_FREE)
				last = c;
		}
		fatreader_free(&fr);
	}
	if (!last)
		return 0;
	return last < 2 ? l.data_byte : layout_cluster_byte(&l, last) + l.cluster_bytes;
}

/*
 * The volume that would start at h->start, boot sector s at byte at:
 * FAT[0], then the probe on a window from h->start.  Returns its
 * confidence with *hit filled (and, with high confidence, *used: how
 * far the volume uses its extent, 0 not known), or -1 for a chance match.
 */
static int verify(struct scan_ctx *c, uint64_t at, const uint8_t *s, enum fsc_type t, const struct hyp *h,
		  struct fsc_scan_hit *hit, uint64_t *used)
{
	uint64_t room = c->win_size - h->start;
	struct fsc_probe *p;
	int level = -1;

	if (!boot_fat0(c->dev, s, t, h->start))
		return -1;
	p = calloc(1, sizeof(*p));
	if (!p || fsc_dev_set_window(c->dev, c->win_off + h->start, room) < 0) {
		free(p);
		return -1;
	}
	p->dev_sector_size = fsc_dev_sector_size(c->dev);
	p->dev_size = room;
	p->sector0_len = room - (at - h->start) < sizeof(p->sector0) ? (size_t)(room - (at - h->start)) :
			 sizeof(p->sector0);
	if (fsc_dev_read(c->dev, at - h->start, p->sector0, p->sector0_len) == 0) {
		probe_decode(c->dev, p);
		if ((p->type == FSC_TYPE_EXFAT || fsc_type_is_fat(p->type)) && geometry_fits(p)) {
			hit_fill(c->dev, p, h, room, hit);
			level = (int)hit->confidence;
			*used = level == FSC_SCAN_HIGH ? used_end(c->dev, p) : 0;
		}
	}
	fsc_probe_free(p);
	fsc_dev_set_window(c->dev, c->win_off, c->win_size);
	return level;
}

/* Record a hit; the same volume found again (through its other boot sector) is merged. */
static void hit_add(struct scan_ctx *c, const struct fsc_scan_hit *hit)
{
	for (size_t i = 0; i < c->n; i++) {
		struct fsc_scan_hit *o = &c->hits[i];

		if (o->offset != hit->offset || o->type != hit->type)
			continue;
		if (hit->confidence > o->confidence) {
			unsigned how = o->how;

			*o = *hit;
			o->how |= how;
		}
		o->how |= hit->how;
		return;
	}
	if (c->n >= FSC_SCAN_MAX_HITS || !grow((void **)&c->hits, &c->cap, c->n + 1, sizeof(*c->hits))) {
		c->st.dropped++;
		return;
	}
	c->hits[c->n++] = *hit;
}

/*
 * Where the scan goes on after a volume found with high confidence: its
 * end, or sooner: the end of its last cluster in use (used, 0 not known),
 * the end of the declared partition that starts where it does.
 */
static uint64_t skip_to(const struct scan_ctx *c, const struct fsc_scan_hit *hit, uint64_t used)
{
	uint64_t len = used && used < hit->size ? used : hit->size;

	for (int i = 0; i < c->nparts; i++)
		if (c->parts[i].offset == hit->offset && c->parts[i].size && c->parts[i].size < len)
			len = c->parts[i].size;
	return hit->offset + len;
}

/*
 * A sector at byte at (its bytes s): a volume's boot sector?  Returns the
 * byte where the scan goes on when a volume was found with high
 * confidence (skip_to), 0 otherwise.
 */
static uint64_t candidate(struct scan_ctx *c, uint64_t at, const uint8_t *s)
{
	enum fsc_type t = probe_classify(s);
	struct fsc_scan_hit hit, best;
	struct hyp h[2];
	uint64_t used = 0, best_used = 0;
	size_t nh;
	int level = -1;

	if (t != FSC_TYPE_EXFAT && !fsc_type_is_fat(t))
		return 0;
	c->st.candidates++;
	nh = hypotheses(c, at, s, t, h);
	for (size_t i = 0; i < nh; i++) {
		int l = verify(c, at, s, t, &h[i], &hit, &used);

		if (l > level) {
			level = l;
			best = hit;
			best_used = used;
		}
	}
	if (level < 0) {
		c->st.rejected++;
		return 0;
	}
	hit_add(c, &best);
	return level == FSC_SCAN_HIGH ? skip_to(c, &best, best_used) : 0;
}

/* The sectors of buf (len bytes read at pos) in turn; where the pass goes on. */
static uint64_t scan_chunk(struct scan_ctx *c, const uint8_t *buf, uint64_t pos, uint64_t len)
{
	uint64_t off = 0, skip;

	while (off + 512 <= len) {
		if (!probe_maybe_volume(buf + off) || !(skip = candidate(c, pos + off, buf + off))) {
			off += c->step;
			continue;
		}
		skip += c->step - 1;
		skip -= skip % c->step;
		if (skip >= pos + len) {
			c->st.inside += skip - (pos + len);
			return skip;
		}
		off = skip - pos;	/* the volume ends inside this chunk */
	}
	return pos + len;
}

/* The sequential pass: the data of the window in order, SCAN_CHUNK at a time. */
static int scan_pass(struct scan_ctx *c, uint8_t *buf)
{
	uint64_t pos = 0, data, end = 0, size = c->win_size, len;
	int r;

	dev_sequential(c->dev);
	while (pos + 512 <= size) {
		if (pos >= end) {
			if ((r = dev_next_data(c->dev, pos, &data, &end)) < 0)
				return r;
			data -= data % c->step;
			if (data > pos) {
				c->st.holes += (data < size ? data : size) - pos;
				pos = data;
			}
			if (pos + 512 > size)
				break;
			if (end < pos + c->step)
				end = pos + c->step;
		}
		len = end - pos < SCAN_CHUNK ? end - pos : SCAN_CHUNK;
		len = len < size - pos ? len : size - pos;
		len -= len % c->step;
		if (len < 512)
			len = size - pos < c->step ? size - pos : c->step;
		if ((r = fsc_dev_read(c->dev, pos, buf, len)) < 0)
			return r;
		c->st.read += len;
		pos = scan_chunk(c, buf, pos, len);
	}
	return 0;
}

/* Declared partitions: their first sectors are tried too, and hits that start one name it. */
static void scan_partitions(struct scan_ctx *c, uint8_t *buf)
{
	struct fsc_partition *parts = c->parts;
	int n = c->nparts;

	for (int i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < c->n && c->hits[k].offset != parts[i].offset; k++)
			;
		if (k == c->n && parts[i].offset + 512 <= c->win_size &&
		    fsc_dev_read(c->dev, parts[i].offset, buf, 512) == 0 && probe_maybe_volume(buf))
			candidate(c, parts[i].offset, buf);
	}
	for (size_t k = 0; k < c->n; k++)
		for (int i = 0; i < n; i++)
			if (c->hits[k].offset == parts[i].offset) {
				c->hits[k].partno = parts[i].partno;
				c->hits[k].part_size_matches = c->hits[k].size == parts[i].size;
			}
}

static int by_offset(const void *a, const void *b)
{
	const struct fsc_scan_hit *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

FSC_EXPORT const struct fsc_scan_hit *fsc_scan_hit_at(const struct fsc_scan_hit *v, size_t i)
{
	return (const struct fsc_scan_hit *)(const void *)((const char *)v + i * v->struct_size);
}

FSC_EXPORT int fsc_scan(struct fsc_dev *dev, struct fsc_scan_hit **hits, size_t *n, struct fsc_scan_stats *stats)
{
	struct scan_ctx *c;
	uint8_t *buf;
	int r;

	*hits = NULL;
	*n = 0;
	if (stats && !sized_out_ok(stats))
		return -EINVAL;
	if (fsc_dev_size(dev) < 512)
		return -ENODATA;
	c = calloc(1, sizeof(*c));
	buf = malloc(SCAN_CHUNK);
	if (!c || !buf) {
		free(c);
		free(buf);
		return -ENOMEM;
	}
	c->dev = dev;
	c->win_off = fsc_dev_offset(dev);
	c->win_size = c->st.bytes = fsc_dev_size(dev);
	c->step = fsc_dev_sector_size(dev);
	c->nparts = fsc_partitions(dev, &c->parts);
	r = scan_pass(c, buf);
	if (r == 0)
		scan_partitions(c, buf);
	free(buf);
	if (r == 0) {
		if (c->n)
			qsort(c->hits, c->n, sizeof(*c->hits), by_offset);
		for (size_t i = 0; i < c->n; i++)
			c->hits[i].struct_size = sizeof(c->hits[i]);
		*hits = c->hits;
		*n = c->n;
	} else {
		free(c->hits);
	}
	if (stats)
		(void)sized_out(stats, &c->st, sizeof(c->st), 0);
	if (c->nparts > 0)
		free(c->parts);
	free(c);
	return r;
}
