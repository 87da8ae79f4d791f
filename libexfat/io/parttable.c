// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parttable.c - the partition table of a disk held in an evidence
 * container, read through the device (libblkid, partition.c, reads
 * tables only from a descriptor, and a container has none): MBR primary
 * and logical partitions (the EBR chain), or GPT (UEFI 2.10, 5.3: the
 * primary header and array, else the backup at the last LBA, each with
 * its CRC-32).  Partitions are numbered and typed as libblkid does on a
 * raw image, so that a container lists what its raw image lists:
 * primaries 1-4 (an empty entry keeps its number), logical ones from 5,
 * GPT entries by index (unused ones keep theirs); type "0xNN" or the GPT
 * type GUID in lower case; the GPT name in UTF-8.  A sector 0 that is a
 * FAT, exFAT or NTFS boot sector holds no table.
 *
 * Consumes: a device.  Produces: struct fsc_partition entries.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

#define MBR_SIG		510
#define MBR_ENTRIES	446
#define EBR_MAX		1024		/* logical partitions followed at most */
#define GPT_ENTRY	128
#define GPT_ARRAY_MAX	(1u << 20)	/* bytes of partition array read at most */

struct plist {
	struct fsc_partition *v;
	size_t n, cap;
	uint32_t ssz;			/* logical sector size: the unit of every LBA */
};

static int add(struct plist *l, int partno, uint64_t lba, uint64_t sectors, const char *type)
{
	struct fsc_partition *p;

	if (!grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	p = &l->v[l->n++];
	memset(p, 0, sizeof(*p));
	p->struct_size = sizeof(*p);
	p->partno = partno;
	p->offset = lba * l->ssz;
	p->size = sectors * l->ssz;
	snprintf(p->type, sizeof(p->type), "%s", type);
	return 0;
}

static bool has_start(const struct plist *l, uint64_t lba)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].offset == lba * l->ssz)
			return true;
	return false;
}

static bool extended(uint8_t type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

/* A boot sector, not a partition table (libblkid's dos prober steps aside for these too). */
static bool boot_sector(const uint8_t *s)
{
	return memcmp(s + 3, "EXFAT   ", 8) == 0 || memcmp(s + 3, "NTFS    ", 8) == 0 ||
	       memcmp(s + 54, "FAT12   ", 8) == 0 || memcmp(s + 54, "FAT16   ", 8) == 0 ||
	       memcmp(s + 54, "FAT     ", 8) == 0 || memcmp(s + 82, "FAT32   ", 8) == 0;
}

/* Data partitions of one EBR at lba (entries relative to it), numbered from *next. */
static int ebr_data(struct plist *l, const uint8_t *s, uint64_t lba, uint64_t cur_size, uint64_t ext,
		    uint64_t ext_size, int *next)
{
	char type[8];
	int r;

	for (int i = 0; i < 4; i++) {
		const uint8_t *e = s + MBR_ENTRIES + 16 * i;
		uint64_t start = get_le32(e, 8), size = get_le32(e, 12), abs = lba + start;

		if (!size || extended(e[4]))
			continue;
		/* The third and fourth entries count only inside the extended partition. */
		if (i >= 2 && (start + size > cur_size || abs < ext || abs + size > ext + ext_size))
			continue;
		if (has_start(l, abs))
			continue;
		snprintf(type, sizeof(type), "0x%x", e[4]);
		if ((r = add(l, (*next)++, abs, size, type)) < 0)
			return r;
	}
	return 0;
}

/* The logical partitions of the extended partition at ext (sectors). */
static int logical(struct fsc_dev *dev, struct plist *l, uint64_t ext, uint64_t ext_size, int *next)
{
	uint8_t s[512];
	uint64_t cur = ext, cur_size = ext_size;
	int r;

	if (!ext)
		return 0;
	for (int hops = 0; hops < EBR_MAX; hops++) {
		int i;

		if (fsc_dev_read(dev, cur * l->ssz, s, sizeof(s)) < 0 || s[MBR_SIG] != 0x55 || s[MBR_SIG + 1] != 0xAA)
			return 0;
		if ((r = ebr_data(l, s, cur, cur_size, ext, ext_size, next)) < 0)
			return r;
		for (i = 0; i < 4; i++)		/* the first extended entry links to the next EBR */
			if (get_le32(s + MBR_ENTRIES + 16 * i, 12) && extended(s[MBR_ENTRIES + 16 * i + 4]))
				break;
		if (i == 4 || !get_le32(s + MBR_ENTRIES + 16 * i, 8))
			return 0;
		cur = ext + get_le32(s + MBR_ENTRIES + 16 * i, 8);
		cur_size = get_le32(s + MBR_ENTRIES + 16 * i, 12);
	}
	return 0;
}

static int mbr(struct fsc_dev *dev, struct plist *l, const uint8_t *s)
{
	int next = 5, r;
	char type[8];

	for (int i = 0; i < 4; i++) {
		const uint8_t *e = s + MBR_ENTRIES + 16 * i;

		if (!get_le32(e, 12))
			continue;
		snprintf(type, sizeof(type), "0x%x", e[4]);
		if ((r = add(l, i + 1, get_le32(e, 8), get_le32(e, 12), type)) < 0)
			return r;
	}
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = s + MBR_ENTRIES + 16 * i;

		if (get_le32(e, 12) && extended(e[4]) &&
		    (r = logical(dev, l, get_le32(e, 8), get_le32(e, 12), &next)) < 0)
			return r;
	}
	return 0;
}

/* The GPT header at lba, checked (signature, size, CRC, its own LBA, usable range, array shape). */
static bool gpt_header(struct fsc_dev *dev, const struct plist *l, uint64_t lba, uint64_t last, uint8_t *h)
{
	uint32_t hsize, crc;

	if (fsc_dev_read(dev, lba * l->ssz, h, l->ssz) < 0 || memcmp(h, "EFI PART", 8) != 0)
		return false;
	hsize = get_le32(h, 12);
	if (hsize < 92 || hsize > l->ssz)
		return false;
	crc = get_le32(h, 16);
	put_le32(h, 16, 0);
	if (crc32_update(0, h, hsize) != crc)
		return false;
	return get_le64(h, 24) == lba && get_le64(h, 40) <= get_le64(h, 48) && get_le64(h, 48) <= last &&
	       get_le32(h, 84) == GPT_ENTRY && get_le32(h, 80) && get_le32(h, 80) <= GPT_ARRAY_MAX / GPT_ENTRY;
}

static void gpt_type(const uint8_t *g, char *out, size_t len)
{
	snprintf(out, len, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", get_le32(g, 0), get_le16(g, 4),
		 get_le16(g, 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static int gpt_entries(struct plist *l, const uint8_t *h, const uint8_t *a)
{
	uint64_t fu = get_le64(h, 40), lu = get_le64(h, 48);
	static const uint8_t unused[16];
	char type[40];
	int r;

	for (uint32_t i = 0; i < get_le32(h, 80); i++) {
		const uint8_t *e = a + (size_t)i * GPT_ENTRY;
		uint64_t start = get_le64(e, 32), end = get_le64(e, 40);

		if (memcmp(e, unused, 16) == 0 || start < fu || end > lu || start > end)
			continue;
		gpt_type(e, type, sizeof(type));
		if ((r = add(l, (int)i + 1, start, end - start + 1, type)) < 0)
			return r;
		utf16le_to_utf8(e + 56, 36, l->v[l->n - 1].name, sizeof(l->v[l->n - 1].name));
	}
	return 0;
}

/* The primary GPT, else the backup: 0 (none valid: no partitions) or -errno. */
static int gpt(struct fsc_dev *dev, struct plist *l)
{
	uint64_t last = fsc_dev_size(dev) / l->ssz - 1, lba[2] = { 1, last };
	uint8_t *h = malloc(l->ssz), *a = NULL;
	int r = h ? 0 : -ENOMEM;

	for (int k = 0; !r && k < 2 && !a; k++) {
		size_t len;

		if (!gpt_header(dev, l, lba[k], last, h))
			continue;
		len = (size_t)get_le32(h, 80) * GPT_ENTRY;
		if (!(a = malloc(len)))
			r = -ENOMEM;
		else if (fsc_dev_read(dev, get_le64(h, 72) * l->ssz, a, len) < 0 ||
			 crc32_update(0, a, len) != get_le32(h, 88)) {
			free(a);
			a = NULL;
		}
	}
	if (!r && a)
		r = gpt_entries(l, h, a);
	free(h);
	free(a);
	return r;
}

int parttable_read(struct fsc_dev *dev, struct fsc_partition **out)
{
	struct plist l = { .ssz = fsc_dev_sector_size(dev) };
	uint8_t s[512];
	bool protective = false;
	int r;

	*out = NULL;
	if (fsc_dev_size(dev) < 2 * (uint64_t)l.ssz || fsc_dev_read(dev, 0, s, sizeof(s)) < 0 ||
	    s[MBR_SIG] != 0x55 || s[MBR_SIG + 1] != 0xAA || boot_sector(s))
		return 0;
	for (int i = 0; i < 4; i++) {
		uint8_t boot = s[MBR_ENTRIES + 16 * i];

		if (boot != 0 && boot != 0x80)
			return 0;
		protective |= s[MBR_ENTRIES + 16 * i + 4] == 0xEE;
	}
	r = protective ? gpt(dev, &l) : mbr(dev, &l, s);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*out = l.v;
	return (int)l.n;
}
