// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * label.c - labels, serials and the exFAT volume GUID: read them, and plan
 * their change as byte edits for plan.c (nothing is written here).
 *
 * exFAT (EXSPEC 3.1.11, 7.3, 7.5): the label entry (0x83, up to 11 UTF-16
 * units) and GUID entry (0xA0, with its set checksum) in the root, a free
 * slot used when they are absent and a new root cluster when there is
 * none; the serial in both boot regions with both checksums; VolumeDirty
 * set before directory changes and restored after (EXSPEC 8.1).
 * FAT (FATGEN): the root directory's label entry (the one Windows shows),
 * BS_VolLab in the boot sector and the FAT32 backup, BS_VolID; labels in
 * upper case, "NO NAME    " when removed, the characters Windows refuses
 * refused; exFAT labels refuse the characters file names may not hold
 * (EXSPEC 7.7.3: U+0000-U+001F and " * / : < > ? \ |), as Windows does.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vol/geo.h"
#include "write/write.h"
#include "repair/dired.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/*
 * The exFAT VolumeGuid is stored in Windows' GUID layout (Data1, Data2 and
 * Data3 little-endian, Data4 as is); the API speaks RFC 4122 byte order.
 * The swap is its own inverse.
 */
static void guid_swap(uint8_t out[16], const uint8_t in[16])
{
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	for (int i = 0; i < 16; i++)
		out[i] = in[order[i]];
}

static int ids_read(const struct fsc_probe *p, struct fsc_ids *ids)
{
	if (p->type == FSC_TYPE_EXFAT) {
		ids->has_label = p->root.label_found && p->root.label_chars > 0;
		snprintf(ids->label, sizeof(ids->label), "%s", p->root.label);
		ids->has_guid = p->root.guid_found;
		guid_swap(ids->guid, p->root.guid);
		ids->has_serial = true;
		ids->serial = p->ex.serial;
	} else if (fsc_type_is_fat(p->type)) {
		ids->has_label = p->fat.root_label_found;
		snprintf(ids->label, sizeof(ids->label), "%s", p->fat.root_label);
		ids->has_boot_label = p->fat.boot_sig == 0x29 && strcmp(p->fat.boot_label, "NO NAME    ") != 0;
		snprintf(ids->boot_label, sizeof(ids->boot_label), "%s", p->fat.boot_label);
		for (int i = 10; i >= 0 && ids->boot_label[i] == ' '; i--)
			ids->boot_label[i] = '\0';
		ids->has_serial = p->has_serial;
		ids->serial = p->fat.serial;
	} else {
		return -EINVAL;
	}
	if (ids->has_serial)
		snprintf(ids->serial_text, sizeof(ids->serial_text), "%04X-%04X", ids->serial >> 16,
			 ids->serial & 0xFFFF);
	return 0;
}

FSC_EXPORT int fsc_ids_read(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_ids *out)
{
	struct fsc_ids own = FSC_IDS_INIT;

	(void)dev;
	if (!sized_out_ok(out))
		return -EINVAL;
	return sized_out(out, &own, sizeof(own), ids_read(p, &own));
}

/* ---- directory slots ---- */

/* The root's slots for a label or GUID entry (exFAT, FAT32: through its chain; FAT12/16: the fixed root). */
struct slot {
	uint64_t label_off, guid_off, free_off;	/* byte offsets; UINT64_MAX: none */
	uint32_t last_cluster;
	bool broken;
	struct exfat_asm *as;		/* exFAT: the entry-set parser over the root */
	enum fsc_type type;
};

/* One root entry, up to the end mark: the label entry (and exFAT's GUID entry), through exFAT's set parser. */
static void note_slot(void *ctx, const uint8_t *e, uint64_t off, uint32_t cluster, uint32_t index)
{
	struct slot *s = ctx;
	enum exfat_ev ev;

	(void)cluster;
	(void)index;
	if (s->type != FSC_TYPE_EXFAT) {
		if (fat_entry_kind(e) == FAT_E_LABEL && s->label_off == UINT64_MAX)
			s->label_off = off;
		return;
	}
	while ((ev = exfat_asm_feed(s->as, e, &(struct exfat_where){ 0, 0, off })) == EXA_CUT)
		;
	if (ev == EXA_PRIMARY && e[0] == EXFAT_T_LABEL && s->label_off == UINT64_MAX)
		s->label_off = off;
	else if (ev == EXA_PRIMARY && e[0] == EXFAT_T_GUID && s->guid_off == UINT64_MAX)
		s->guid_off = off;
}

/* The root as the plan so far leaves it (an earlier change may have taken a slot or grown it). */
static void find_slots(struct fsc_dev *dev, const struct fsc_plan *plan, const struct layout *g,
		       struct slot *s)
{
	struct dired d = { .dev = dev, .plan = plan, .g = g };
	struct dired_slots ds = { .want = 1, .to_end = true, .each = note_slot, .ctx = s };

	s->label_off = s->guid_off = s->free_off = UINT64_MAX;
	s->type = g->type;
	s->as = g->type == FSC_TYPE_EXFAT ? malloc(sizeof(*s->as)) : NULL;
	if (s->as)
		exfat_asm_init(s->as, 0, 0);
	s->broken = (g->type == FSC_TYPE_EXFAT && !s->as) || dired_find(&d, 0, &ds) < 0 || ds.broken;
	free(s->as);
	s->as = NULL;
	s->free_off = ds.found ? ds.slot[0] : UINT64_MAX;
	s->last_cluster = ds.last;
}

/* ---- exFAT ---- */

static int exfat_usable(const struct fsc_probe *p, char *err, size_t errlen)
{
	if (fsc_findings_has(&p->findings, FSC_PR_EXFAT_ROOT_CHAIN) ||
	    fsc_findings_has(&p->findings, FSC_PR_EXFAT_ROOT_UNREADABLE) ||
	    fsc_findings_has(&p->findings, FSC_PR_EXFAT_BITMAP_MISSING)) {
		snprintf(err, errlen, "the root directory is damaged; run fatscope fsck first");
		return -EUCLEAN;
	}
	return 0;
}

/* A new root cluster for the directory editor: plan_put's edits (ctx: a struct label_grow). */
struct label_grow {
	struct fsc_dev *dev;
	struct fsc_plan *plan;
	const struct layout *g;
	uint64_t bitmap_byte;		/* the allocation bitmap's first byte */
	uint8_t bits;			/* the bitmap's byte that holds c's bit */
	uint32_t c;			/* the cluster to take */
	uint8_t piu;			/* PercentInUse with c (0xFF: leave it) */
	int err;
};

static int lg_put(void *ctx, uint64_t off, const void *data, size_t len, const char *why)
{
	struct label_grow *lg = ctx;

	return plan_put(lg->dev, lg->plan, off, data, len, why, false);
}

static uint32_t lg_take(void *ctx)
{
	struct label_grow *lg = ctx;
	uint32_t c = lg->c;
	uint8_t e[4], b = (uint8_t)(lg->bits | (1u << ((c - 2) % 8)));

	exfat_fat_cell_put(e, 0xFFFFFFFF);
	lg->err = plan_put(lg->dev, lg->plan, lg->g->fat_byte + 4ull * c, e, 4, "end the root chain at the new cluster",
			   false);
	if (!lg->err)
		lg->err = plan_put(lg->dev, lg->plan, lg->bitmap_byte + (c - 2) / 8, &b, 1, "mark the new root cluster used",
				   false);
	if (!lg->err && lg->piu != 0xFF)
		lg->err = plan_put(lg->dev, lg->plan, EXFAT_BOOT_PERCENT_IN_USE, &lg->piu, 1, "update PercentInUse", false);
	return lg->err ? 0 : c;
}

/* The link last, after a sync: the new cluster is whole before the root reaches it. */
static int lg_link(void *ctx, uint32_t c, uint32_t next)
{
	struct label_grow *lg = ctx;
	uint8_t e[4];

	exfat_fat_cell_put(e, next);
	return plan_put(lg->dev, lg->plan, lg->g->fat_byte + 4ull * c, e, 4, "link the new root cluster", true);
}

/*
 * A new root cluster, through the directory editor: the first free one in
 * the bitmap, zeroed, chained after the last; PercentInUse follows the
 * new count (it is outside the boot checksum, EXSPEC 3.1.13 and 3.4).
 * Not on TexFAT volumes: their second FAT and bitmap would have to change
 * too.
 */
static int exfat_extend_root(struct fsc_dev *dev, const struct fsc_probe *p, const struct layout *g,
			     const struct slot *s, struct fsc_plan *plan, uint64_t *slot_off, char *err, size_t errlen)
{
	struct label_grow lg = { dev, plan, g, 0, 0, 0, 0xFF, 0 };
	struct dired d = { .dev = dev, .plan = plan, .g = g };
	struct dired_ops ops = { lg_put, lg_take, lg_link, &lg };
	struct dired_slots ds = { .want = 1, .last = s->last_cluster };
	uint64_t used = 0, cc = p->ex.cluster_count;
	uint8_t *bm;
	int r;

	if (p->ex.num_fats != 1) {
		snprintf(err, errlen, "the root directory is full, and growing it on a volume with two FATs "
			 "is not supported");
		return -ENOTSUP;
	}
	if (!p->root.bitmap_found || !layout_cluster_valid(g, p->root.bitmap_cluster))
		bm = NULL;
	else if ((bm = malloc(((size_t)g->held + 7) / 8)) == NULL)
		return -ENOMEM;
	lg.bitmap_byte = bm ? layout_cluster_byte(g, p->root.bitmap_cluster) : 0;
	if (!bm || plan_view_read(dev, plan, lg.bitmap_byte, bm, ((size_t)g->held + 7) / 8) < 0) {
		free(bm);
		snprintf(err, errlen, "the allocation bitmap cannot be read; run fatscope fsck first");
		return -EUCLEAN;
	}
	for (uint32_t i = 0; i < g->held; i++) {
		if ((bm[i / 8] >> (i % 8)) & 1)
			used++;
		else if (!lg.c)
			lg.c = i + 2;
	}
	if (lg.c)
		lg.bits = bm[(lg.c - 2) / 8];
	free(bm);
	if (!lg.c) {
		snprintf(err, errlen, "the root directory is full and the volume has no free cluster");
		return -ENOSPC;
	}
	if (p->ex.percent_in_use <= 100 && cc)	/* of ClusterCount as the boot sector says, as fsck judges it */
		lg.piu = (uint8_t)((used + 1) * 100 / cc);
	r = dired_grow(&d, &ops, &ds);
	if (r == -ENOSPC && !lg.err)
		snprintf(err, errlen, "the root directory is full and cannot grow");
	*slot_off = ds.slot[0];
	return lg.err ? lg.err : r;
}

/* Directory edits on exFAT, bracketed by VolumeDirty (EXSPEC 8.1). */
static int exfat_dir_edit(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_plan *plan,
			  int (*body)(struct fsc_dev *, const struct fsc_probe *, const struct layout *,
				      struct fsc_plan *, const void *, char *, size_t),
			  const void *arg, char *err, size_t errlen)
{
	struct layout g;
	uint8_t flags[2], dirty[2];
	size_t start, before;
	int r = exfat_usable(p, err, errlen);

	if (r < 0)
		return r;
	if (vol_layout(&g, dev, p) < 0) {
		snprintf(err, errlen, "the volume geometry is unusable; run fatscope fsck first");
		return -EUCLEAN;
	}
	put_le_n(flags, sizeof(flags), p->ex.volume_flags);
	put_le_n(dirty, sizeof(dirty), p->ex.volume_flags | EXFAT_VOLUME_FLAG_VOLUME_DIRTY);
	start = fsc_plan_count(plan);
	r = plan_put(dev, plan, EXFAT_BOOT_VOLUME_FLAGS, dirty, 2, "set VolumeDirty before changing the directory", false);
	before = fsc_plan_count(plan);
	if (!r)
		r = body(dev, p, &g, plan, arg, err, errlen);
	if (!r && fsc_plan_count(plan) == before) {	/* nothing to change after all */
		plan_truncate(plan, start);
		return 0;
	}
	/* VolumeDirty on stable storage before the first change it covers: a cache may reorder. */
	if (!r && before > start)
		plan_sync_before(plan, before);
	if (!r && !(p->ex.volume_flags & EXFAT_VOLUME_FLAG_VOLUME_DIRTY))
		r = fsc_plan_add(plan, EXFAT_BOOT_VOLUME_FLAGS, dirty, flags, 2, "clear VolumeDirty again", true);
	return r;
}

/* A root entry to write: the label (0x83) or the GUID (0xA0), in place or in a free slot. */
struct root_put {
	uint8_t e[32];
	const char *what;
};

static int exfat_root_put(struct fsc_dev *dev, const struct fsc_probe *p, const struct layout *g,
			  struct fsc_plan *plan, const void *arg, char *err, size_t errlen)
{
	const struct root_put *rp = arg;
	struct slot s;
	uint64_t have, off;
	char why[64];
	int r = 0;

	find_slots(dev, plan, g, &s);
	if (s.broken) {
		snprintf(err, errlen, "the root directory chain is broken; run fatscope fsck first");
		return -EUCLEAN;
	}
	have = rp->e[EXFAT_ENTRY_TYPE] == EXFAT_T_LABEL ? s.label_off : s.guid_off;
	off = have != UINT64_MAX ? have : s.free_off;
	if (have == UINT64_MAX && rp->e[EXFAT_ENTRY_TYPE] == EXFAT_T_LABEL && rp->e[EXFAT_LABEL_CHARACTER_COUNT] == 0)
		return 0;	/* no label, none wanted */
	if (off == UINT64_MAX)
		r = exfat_extend_root(dev, p, g, &s, plan, &off, err, errlen);
	snprintf(why, sizeof(why), "%s the %s entry", have != UINT64_MAX ? "update" : "create", rp->what);
	if (!r)
		r = plan_put(dev, plan, off, rp->e, 32, why, true);
	return r;
}

/* The serial in one boot region (sectors base..base+11) with its checksum recomputed. */
static int exfat_serial_region(struct fsc_dev *dev, unsigned shift, unsigned base, uint32_t serial,
			       struct fsc_plan *plan, bool sync, const char *which)
{
	size_t ss = (size_t)1 << shift;
	uint8_t *r12 = malloc(12 * ss), why[64];
	uint32_t sum;
	int r;

	if (!r12)
		return -ENOMEM;
	r = fsc_dev_read(dev, (uint64_t)base * ss, r12, 12 * ss);
	if (r == 0) {
		put_le32(r12, EXFAT_BOOT_VOLUME_SERIAL_NUMBER, serial);
		sum = fsc_exfat_boot_checksum(r12, ss);
		for (size_t i = 0; i < ss; i += 4)
			put_le32(r12, EXFAT_BOOT_CHECKSUM_SECTOR * ss + i, sum);
		snprintf((char *)why, sizeof(why), "%s boot sector: VolumeSerialNumber", which);
		r = plan_put(dev, plan, (uint64_t)base * ss + EXFAT_BOOT_VOLUME_SERIAL_NUMBER,
			     r12 + EXFAT_BOOT_VOLUME_SERIAL_NUMBER, 4, (char *)why, sync);
		snprintf((char *)why, sizeof(why), "%s boot checksum (sector %u)", which, base + EXFAT_BOOT_CHECKSUM_SECTOR);
		if (!r)
			r = plan_put(dev, plan, ((uint64_t)base + EXFAT_BOOT_CHECKSUM_SECTOR) * ss,
				     r12 + EXFAT_BOOT_CHECKSUM_SECTOR * ss, ss, (char *)why, false);
	}
	free(r12);
	return r;
}

/* ---- FAT ---- */

/*
 * The label's UTF-16 units in *units (malloc'd, the caller frees): their
 * count, or after the message in err -EINVAL for invalid UTF-8.
 */
static int label_units(const char *label, uint16_t **units, char *err, size_t errlen)
{
	size_t len = strlen(label);
	int n;

	*units = malloc((len ? len : 1) * sizeof(**units));
	if (!*units)
		return -ENOMEM;
	n = utf8_to_utf16(label, *units, len);	/* never more units than bytes */
	if (n < 0) {
		free(*units);
		*units = NULL;
		return ERR("the label is not valid UTF-8");
	}
	return n;
}

/* The first non-ASCII character of a valid UTF-8 label, as its bytes, into c. */
static void first_non_ascii(const char *label, char c[5])
{
	const unsigned char *u = (const unsigned char *)label;
	size_t k = 1;

	while (*u && *u < 0x80)
		u++;
	while (k < 4 && (u[k] & 0xC0) == 0x80)
		k++;
	memcpy(c, u, k);
	c[k] = '\0';
}

/* Each reason a FAT label is refused, checked in this order: UTF-8, ASCII, length in characters, characters. */
static int fat_label_bytes(const char *label, uint8_t out[11], char *err, size_t errlen)
{
	uint16_t *units;
	char c[5];
	int n = label_units(label, &units, err, errlen);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if (units[i] >= 0x80) {
			free(units);
			first_non_ascii(label, c);
			return ERR("non-ASCII characters such as '%s' are not supported in a FAT label", c);
		}
	free(units);
	if (n > 11)
		return ERR("a FAT label has at most 11 characters (this one has %d)", n);
	memset(out, ' ', 11);
	for (int i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)label[i];

		if (ch < 0x20)
			return ERR("control characters are not allowed in a label");
		if (strchr("\"*+,./:;<=>?[\\]|", ch))
			return ERR("'%c' is not allowed in a FAT label", ch);
		out[i] = (uint8_t)((ch >= 'a' && ch <= 'z') ? ch - 32 : ch);
	}
	if (n && out[0] == ' ')
		return ERR("a FAT label cannot start with a space");
	return 0;
}

static void dos_time(int64_t now, uint8_t *e)
{
	uint32_t dt = dos_datetime(now);

	if (!dt)
		return;
	put_le16(e, FAT_DIR_WRT_TIME, (uint16_t)dt);
	put_le16(e, FAT_DIR_WRT_DATE, (uint16_t)(dt >> 16));
}

static int fat_label(struct fsc_dev *dev, const struct fsc_probe *p, const char *label, int64_t now,
		     struct fsc_plan *plan, char *err, size_t errlen)
{
	const struct fsc_fat_bpb *b = &p->fat;
	struct layout g;
	struct slot s;
	uint8_t name[11], e[32] = { 0 };
	unsigned lab = b->bpb32 ? FAT32_BS_VOL_LAB : FAT16_BS_VOL_LAB;
	int r = fat_label_bytes(label, name, err, errlen);

	if (r < 0)
		return r;
	if (vol_layout(&g, dev, p) < 0) {
		snprintf(err, errlen, "the BPB is unusable; run fsck.fat first");
		return -EUCLEAN;
	}
	find_slots(dev, plan, &g, &s);
	if (s.broken) {
		snprintf(err, errlen, "the root directory cannot be read; run fsck.fat first");
		return -EUCLEAN;
	}
	if (s.label_off != UINT64_MAX) {
		if (fsc_dev_read(dev, s.label_off, e, 32) < 0)
			return -EIO;
		if (label[0]) {
			memcpy(e + FAT_DIR_NAME, name, FAT_DIR_NAME_LEN);
			dos_time(now, e);
		} else {
			e[FAT_DIR_NAME] = FAT_DIR_FREE;
		}
		r = plan_put(dev, plan, s.label_off, e, 32, label[0] ? "update the root label entry" :
			     "delete the root label entry", false);
	} else if (label[0]) {
		if (s.free_off == UINT64_MAX) {
			snprintf(err, errlen, "the root directory has no free entry for the label");
			return -ENOSPC;
		}
		memcpy(e + FAT_DIR_NAME, name, FAT_DIR_NAME_LEN);
		e[FAT_DIR_ATTR] = FAT_ATTR_VOLUME_ID;
		dos_time(now, e);
		r = plan_put(dev, plan, s.free_off, e, 32, "create the root label entry", false);
	}
	if (!r && b->boot_sig == 0x29) {
		const uint8_t *boot = label[0] ? name : (const uint8_t *)"NO NAME    ";

		r = plan_put(dev, plan, lab, boot, 11, "boot sector BS_VolLab", true);
		if (!r && b->bpb32 && b->backup_sector && b->backup_sector < b->reserved)
			r = plan_put(dev, plan, (uint64_t)b->backup_sector * b->bytes_per_sector + lab, boot, 11,
				     "backup boot sector BS_VolLab", true);
	}
	return r;
}

static int fat_serial(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t serial, struct fsc_plan *plan,
		      char *err, size_t errlen)
{
	const struct fsc_fat_bpb *b = &p->fat;
	unsigned id = b->bpb32 ? FAT32_BS_VOL_ID : FAT16_BS_VOL_ID;
	uint8_t v[4];
	int r;

	if (b->boot_sig != 0x29 && b->boot_sig != 0x28)
		return ERR("this FAT boot sector has no serial number field (BS_BootSig is 0x%02x)", b->boot_sig);
	put_le_n(v, sizeof(v), serial);
	r = plan_put(dev, plan, id, v, 4, "boot sector BS_VolID", false);
	if (!r && b->bpb32 && b->backup_sector && b->backup_sector < b->reserved)
		r = plan_put(dev, plan, (uint64_t)b->backup_sector * b->bytes_per_sector + id, v, 4,
			     "backup boot sector BS_VolID", true);
	return r;
}

/* ---- public ---- */

FSC_EXPORT int fsc_plan_label(struct fsc_dev *dev, const struct fsc_probe *p, const char *label, int64_t now,
			      struct fsc_plan *plan, char *err, size_t errlen)
{
	struct root_put rp = { { 0 }, "volume label" };
	uint16_t *units;
	int n;

	err[0] = '\0';
	if (fsc_type_is_fat(p->type))
		return fat_label(dev, p, label, now, plan, err, errlen);
	if (p->type != FSC_TYPE_EXFAT)
		return ERR("not an exFAT or FAT volume");
	n = label_units(label, &units, err, errlen);
	if (n < 0)
		return n;
	for (int i = 0; i < n && n <= 11; i++) {	/* the characters file names may not hold (EXSPEC 7.7.3) */
		if (units[i] < 0x20 || !exfat_name_char_ok(units[i])) {
			n = units[i] < 0x20 ?
				ERR("control characters are not allowed in a label") :
				ERR("'%c' is not allowed in an exFAT label", (char)units[i]);
			break;
		}
		exfat_label_put_unit(rp.e, (unsigned)i, units[i]);
	}
	free(units);
	if (n > 11)
		return ERR("an exFAT label has at most 11 UTF-16 characters (this one has %d)", n);
	if (n < 0)
		return n;
	rp.e[EXFAT_ENTRY_TYPE] = EXFAT_T_LABEL;
	rp.e[EXFAT_LABEL_CHARACTER_COUNT] = (uint8_t)n;
	return exfat_dir_edit(dev, p, plan, exfat_root_put, &rp, err, errlen);
}

FSC_EXPORT int fsc_plan_serial(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t serial,
			       struct fsc_plan *plan, char *err, size_t errlen)
{
	int r;

	err[0] = '\0';
	if (fsc_type_is_fat(p->type))
		return fat_serial(dev, p, serial, plan, err, errlen);
	if (p->type != FSC_TYPE_EXFAT)
		return ERR("not an exFAT or FAT volume");
	if (!p->ex.checksum_known || fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_CHECKSUM) ||
	    fsc_findings_has(&p->findings, FSC_PR_EXFAT_BOOT_SECTOR_SHIFT)) {
		snprintf(err, errlen, "the main boot region is damaged; run fatscope fsck first");
		return -EUCLEAN;
	}
	r = exfat_serial_region(dev, p->ex.sector_shift, 0, serial, plan, false, "main");
	/* The backup region last, and only where it can be read. */
	if (!r && !fsc_findings_has(&p->findings, FSC_PR_EXFAT_BACKUP_UNREADABLE))
		r = exfat_serial_region(dev, p->ex.sector_shift, 12, serial, plan, true, "backup");
	return r;
}

FSC_EXPORT int fsc_plan_guid(struct fsc_dev *dev, const struct fsc_probe *p, const uint8_t guid[16],
			     struct fsc_plan *plan, char *err, size_t errlen)
{
	struct root_put rp = { { 0 }, "volume GUID" };

	err[0] = '\0';
	if (p->type != FSC_TYPE_EXFAT)
		return ERR("only exFAT volumes have a volume GUID");
	if (bytes_all(guid, 0, 16, 0))
		return ERR("the volume GUID cannot be null");
	rp.e[EXFAT_ENTRY_TYPE] = EXFAT_T_GUID;
	guid_swap(rp.e + EXFAT_GUID_VOLUME_GUID, guid);
	exfat_primary_put_set_checksum(rp.e, fsc_exfat_set_checksum(rp.e, 1));
	return exfat_dir_edit(dev, p, plan, exfat_root_put, &rp, err, errlen);
}
