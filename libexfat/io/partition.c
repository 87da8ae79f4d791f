// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * partition.c - partitions of a whole-disk image (MBR, GPT) through
 * libblkid's partition probing on the device's own descriptor, inside its
 * window; an evidence container's (no descriptor) through parttable.c.
 * Memory devices (tests, fuzzers) report no partitions.
 *
 * Consumes: a device.  Produces: an array of struct fsc_partition with
 * byte offsets and sizes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>

#include "io/io.h"

static int fill(blkid_partlist ls, struct fsc_partition **out)
{
	int n = blkid_partlist_numof_partitions(ls);
	struct fsc_partition *v;

	if (n <= 0)
		return 0;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		const char *ts = blkid_partition_get_type_string(par), *nm = blkid_partition_get_name(par);

		v[i].struct_size = sizeof(v[i]);
		v[i].partno = blkid_partition_get_partno(par);
		v[i].offset = (uint64_t)blkid_partition_get_start(par) * 512;
		v[i].size = (uint64_t)blkid_partition_get_size(par) * 512;
		if (ts)
			snprintf(v[i].type, sizeof(v[i].type), "%s", ts);
		else
			snprintf(v[i].type, sizeof(v[i].type), "0x%x", blkid_partition_get_type(par));
		if (nm)
			snprintf(v[i].name, sizeof(v[i].name), "%s", nm);
	}
	*out = v;
	return n;
}

FSC_EXPORT const struct fsc_partition *fsc_partition_at(const struct fsc_partition *v, size_t i)
{
	return (const struct fsc_partition *)(const void *)((const char *)v + i * v->struct_size);
}

FSC_EXPORT int fsc_partitions(struct fsc_dev *dev, struct fsc_partition **out)
{
	blkid_probe pr;
	blkid_partlist ls;
	int fd = fsc_dev_fd(dev), n;

	*out = NULL;
	if (fd < 0)	/* containers: their table read through them; memory devices: none */
		return fsc_dev_container(dev) ? parttable_read(dev, out) : 0;
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)fsc_dev_offset(dev),
				   (blkid_loff_t)fsc_dev_size(dev)) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_probe_get_partitions(pr);
	n = ls ? fill(ls, out) : 0;
	blkid_free_probe(pr);
	return n;
}
