// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common.c - error lines, number parsing and volume opening shared by
 * the subcommands.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void errmsg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fatscope: %s%s", what ? what : "", what ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fatscope %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fatscope %s --help' for more information.\n", cmd);
	return EXIT_USAGE;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suf; unsigned shift; } sufs[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "T", 40 }, { "TiB", 40 },
	};
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
		if (strcmp(end, sufs[i].suf) != 0)
			continue;
		if (sufs[i].shift && v > (~0ull >> sufs[i].shift))
			return -1;
		*out = (uint64_t)v << sufs[i].shift;
		return 0;
	}
	return -1;
}

int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_vol_option(const char *cmd, int which, const char *arg, struct vol_select *sel)
{
	unsigned long v;

	switch (which) {
	case 0:
		if (parse_size(arg, &sel->offset) < 0)
			break;
		sel->has_offset = true;
		return 0;
	case 1:
		if (parse_uint(arg, 4096, &v) < 0 || v == 0)
			break;
		sel->partition = (int)v;
		return 0;
	default:
		if (parse_uint(arg, 4096, &v) < 0 || v < 512 || (v & (v - 1)))
			break;
		sel->sector_size = (uint32_t)v;
		return 0;
	}
	usage_error(cmd, "invalid %s '%s'", which == 0 ? "offset" : which == 1 ? "partition number" :
		    "sector size", arg);
	return -1;
}

int check_operands(const char *cmd, int argc, int max, const struct vol_select *sel)
{
	if (optind >= argc)
		return usage_error(cmd, "no device or image specified");
	if (max && argc - optind > max)
		return usage_error(cmd, max == 1 ? "only one device or image at a time" : "too many arguments");
	if (sel->has_offset && sel->partition)
		return usage_error(cmd, "--offset and --partition are mutually exclusive");
	return 0;
}

static int select_partition(const char *path, struct fsc_dev *dev, int partno,
			    struct fsc_partition *part)
{
	struct fsc_partition *parts;
	int n = fsc_partitions(dev, &parts), rc = -1;

	if (n < 0) {
		errmsg(path, "cannot read the partition table: %s", strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (parts[i].partno == partno) {
			rc = fsc_dev_set_window(dev, parts[i].offset, parts[i].size);
			*part = parts[i];
		}
	if (rc < 0)
		errmsg(path, n ? "no partition %d (the table has %d)" :
		       "no partition %d: no partition table found", partno, n);
	free(parts);
	return rc;
}

static int open_flags(const char *path, const struct vol_select *sel, struct fsc_dev **dev,
		      struct fsc_partition *part, int flags)
{
	int r = fsc_dev_open(path, flags, dev);

	memset(part, 0, sizeof(*part));
	if (r < 0) {
		if (r == -EBUSY)
			errmsg(path, "is in use (mounted?): it cannot be opened for writing");
		else if (r == -EISDIR)
			errmsg(path, "is a directory");
		else if (r == -EINVAL)
			errmsg(path, "not a regular file or block device");
		else
			errmsg(path, "%s", strerror(-r));
		return EXIT_OPERROR;
	}
	if (sel->sector_size && fsc_dev_set_sector_size(*dev, sel->sector_size) < 0) {
		errmsg(path, "invalid sector size %u", sel->sector_size);
		goto fail;
	}
	if (sel->has_offset && fsc_dev_set_window(*dev, sel->offset, 0) < 0) {
		errmsg(path, "offset %llu is beyond the end (%llu bytes)",
		       (unsigned long long)sel->offset, (unsigned long long)fsc_dev_full_size(*dev));
		goto fail;
	}
	if (sel->partition && select_partition(path, *dev, sel->partition, part) < 0)
		goto fail;
	return 0;
fail:
	fsc_dev_close(*dev);
	*dev = NULL;
	return EXIT_OPERROR;
}

int open_volume(const char *path, const struct vol_select *sel, struct fsc_dev **dev,
		struct fsc_partition *part)
{
	return open_flags(path, sel, dev, part, 0);
}

int open_volume_rw(const char *path, const struct vol_select *sel, struct fsc_dev **dev,
		   struct fsc_partition *part)
{
	return open_flags(path, sel, dev, part, FSC_DEV_WRITE);
}

int close_stdout_checked(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno != EPIPE)
			errmsg(NULL, "write error on standard output: %s", strerror(errno));
		return EXIT_OPERROR;
	}
	return code;
}
