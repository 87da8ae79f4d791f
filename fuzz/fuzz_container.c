// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_container.c - harness: the evidence container backends (the
 * recognition in container.c, split.c, ewf.c, vhd.c, vmdk.c, and the
 * partition table read through a container, parttable.c), which read
 * files, not memory: the input is written to a temporary directory.  An
 * input that starts with an EWF, VHDX, VHD or VMDK signature (or ends with
 * a VHD footer) is one file named for its format (in.E01, in.vhd,
 * in.vmdk); any other is cut into a split raw set of three segments
 * (in.001 .. in.003, the last the shortest, maybe empty).  Then what a
 * command does with a device: the container's info, a writer refused,
 * the partitions, the probe of the disk and of each partition, and
 * reads of the first and last MiB of the media.  Driver in fuzz_main.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatscope/fatscope.h"
#include "fuzz.h"

static char dir[64];
static const char *const names[] = { "in.E01", "in.vhd", "in.vmdk", "in.001", "in.002", "in.003" };

static void cleanup(void)
{
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static int write_file(const char *name, const uint8_t *p, size_t len)
{
	char path[128];
	int fd;
	ssize_t w = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (len && (w = write(fd, p, len)) > 0) {
		p += w;
		len -= (size_t)w;
	}
	close(fd);
	return w < 0 ? -1 : 0;
}

static bool starts(const uint8_t *d, size_t len, const char *magic, size_t n)
{
	return len >= n && memcmp(d, magic, n) == 0;
}

/* Write the input as its format's file(s): the name to open (in path), or NULL. */
static const char *lay_out(const uint8_t *d, size_t len, char *path, size_t plen)
{
	size_t seg = (len + 2) / 3;
	const char *name = "in.002";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, plen, "%s/%s", dir, names[i]);
		unlink(path);
	}
	if (starts(d, len, "EVF", 3) || starts(d, len, "LVF", 3) || starts(d, len, "EVF2", 4) ||
	    starts(d, len, "LEF2", 4))
		name = write_file("in.E01", d, len) ? NULL : "in.E01";
	else if (starts(d, len, "conectix", 8) || starts(d, len, "vhdxfile", 8) ||
		 (len >= 1024 && memcmp(d + len - 512, "conectix", 8) == 0))
		name = write_file("in.vhd", d, len) ? NULL : "in.vhd";
	else if (starts(d, len, "KDMV", 4) || starts(d, len, "COWD", 4) || starts(d, len, "# Disk", 6))
		name = write_file("in.vmdk", d, len) ? NULL : "in.vmdk";
	else if (write_file("in.001", d, seg) || write_file("in.002", d + seg, seg < len - seg ? seg : len - seg) ||
		 write_file("in.003", d + 2 * seg, len > 2 * seg ? len - 2 * seg : 0))
		name = NULL;
	if (name)
		snprintf(path, plen, "%s/%s", dir, name);
	return name;
}

static void read_ends(struct fsc_dev *dev)
{
	static uint8_t buf[65536];
	uint64_t size = fsc_dev_size(dev);

	for (uint64_t off = 0; off < size && off < (1u << 20); off += sizeof(buf))
		fsc_dev_read(dev, off, buf, size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf));
	for (uint64_t off = size > (1u << 20) ? size - (1u << 20) : size; off < size; off += sizeof(buf))
		fsc_dev_read(dev, off, buf, size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf));
}

static void probe_window(struct fsc_dev *dev)
{
	struct fsc_probe *p;

	if (fsc_probe_volume(dev, &p) == 0) {
		fuzz_render_findings(fsc_probe_findings(p));
		fsc_probe_free(p);
	}
}

int FUZZ_ENTRY(container)(const uint8_t *data, size_t len)
{
	const struct fsc_container_info *ci;
	struct fsc_partition *parts;
	struct fsc_dev *dev;
	char why[256], name[128];
	int n;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/fsc-fuzz-container.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (strlen(dir) >= sizeof(dir) - 1 || !mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	if (!lay_out(data, len, name, sizeof(name)))
		return 0;
	/* A writer never gets a container. */
	if (fsc_dev_open_why(name, FSC_DEV_WRITE, &dev, why, sizeof(why)) == 0) {
		if (fsc_dev_container(dev))
			abort();
		fsc_dev_close(dev);
	}
	if (fsc_dev_open_why(name, 0, &dev, why, sizeof(why)) < 0)
		return 0;
	ci = fsc_dev_container(dev);
	if (ci && (ci->nfiles < 1 || ci->media_size != fsc_dev_size(dev)))
		abort();
	read_ends(dev);
	probe_window(dev);
	n = fsc_partitions(dev, &parts);
	for (int i = 0; i < n; i++) {
		const struct fsc_partition *pt = fsc_partition_at(parts, i);

		if (fsc_dev_set_window(dev, pt->offset, pt->size) == 0)
			probe_window(dev);
	}
	free(parts);
	fsc_dev_close(dev);
	return 0;
}
