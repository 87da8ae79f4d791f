// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_dump.c - harness: what fatscope dump reads and renders: every field
 * table over the boot sector, the allocation summary, the tree walk with
 * deleted entries, the extents of every entry (driver in fuzz_main.c).
 */
#include "config.h"

#include <string.h>

#include "fatscope/fatscope.h"
#include "fuzz.h"

struct ctx {
	struct fsc_dev *dev;
	const struct fsc_probe *p;
	unsigned n;
};

static void extent(void *c, uint32_t first, uint32_t count)
{
	(void)c;
	(void)first;
	(void)count;
}

static int entry(void *vc, const struct fsc_dirent *d)
{
	struct ctx *c = vc;
	struct fsc_chain_stop stop = FSC_CHAIN_STOP_INIT;

	if (c->n++ < 64 && d->first_cluster)
		fsc_extents(c->dev, c->p, d->first_cluster, d->size, d->nofat, extent, NULL, &stop);
	return strlen(d->path) > 100000;	/* never: keeps the path read */
}

int FUZZ_ENTRY(dump)(const uint8_t *data, size_t len)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_alloc_summary s = FSC_ALLOC_SUMMARY_INIT;
	char buf[256];

	if (fsc_dev_open_mem(data, len, &dev) < 0)
		return 0;
	if (fsc_probe_volume(dev, &p) == 0) {
		struct ctx c = { dev, p, 0 };

		for (int t = 0; t < FSC_TABLE_COUNT; t++) {
			size_t n;
			const struct fsc_field *f = fsc_field_table((enum fsc_table)t, &n);

			for (size_t i = 0; i < n && f[i].offset + f[i].width <= 512; i++)
				fsc_field_value(&f[i], fsc_probe_sector0(p, NULL), buf, sizeof(buf));
		}
		fsc_alloc_summary(dev, p, &s);
		fsc_walk_tree(dev, p, FSC_WALK_DELETED, entry, &c);
		fsc_probe_free(p);
	}
	fsc_dev_close(dev);
	return 0;
}
