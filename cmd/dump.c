// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dump.c - fatscope dump: every on-disk structure of an exFAT or FAT
 * volume for examiners, read-only: the boot sector field by field from
 * libexfat's field tables (deviations marked), FSInfo, the backup boot
 * region, the allocation summary, the directory tree (long listing,
 * deleted entries and whether their clusters are still free), the
 * extents of one file or chain, a hex dump of one sector; text
 * (libsmartcols tables and trees) or JSON.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>

#include "common.h"
#include "dump.h"
#include "json.h"

static void dump_help(void)
{
	fputs("Usage:\n"
	      " fatscope dump [options] DEVICE|IMAGE\n\n"
	      "Show the on-disk structures of an exFAT or FAT volume (read-only).\n\n"
	      "Options:\n"
	      " -b, --boot             the boot sector field by field, FSInfo, the backup (default)\n"
	      " -s, --summary          used, free and bad clusters (default)\n"
	      " -t, --tree             the directory tree\n"
	      " -l, --long             the tree with attributes, sizes, clusters, times, locations\n"
	      " -d, --deleted          the tree with deleted entries and whether they can be recovered\n"
	      "     --path PATH        the extents of one file or directory\n"
	      "     --cluster N        the chain starting at cluster N\n"
	      "     --sector N         a hex dump of sector N of the volume\n"
	      " -J, --json             JSON output\n"
	      "     --offset BYTES     the volume starts at this byte of the image\n"
	      "     --partition N      partition N of a whole-disk image\n"
	      "     --sector-size N    the device's logical sector size\n"
	      " -h, --help             display this help\n"
	      " -V, --version          display version\n\n"
	      "Exit status: 0 shown, 2 not an exFAT or FAT volume, 8 operational error, 16 usage.\n\n"
	      "See fatscope-dump(8).\n", stdout);
}

enum { OPT_OFFSET = VOL_OPT_BASE, OPT_PARTITION, OPT_SECTOR_SIZE, OPT_PATH, OPT_CLUSTER, OPT_SECTOR };

static int parse_args(struct dump_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "boot", no_argument, NULL, 'b' }, { "summary", no_argument, NULL, 's' },
		{ "tree", no_argument, NULL, 't' }, { "long", no_argument, NULL, 'l' },
		{ "deleted", no_argument, NULL, 'd' }, { "path", required_argument, NULL, OPT_PATH },
		{ "cluster", required_argument, NULL, OPT_CLUSTER },
		{ "sector", required_argument, NULL, OPT_SECTOR }, { "json", no_argument, NULL, 'J' },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "bstldJhV", opts, NULL)) != -1) {
		switch (c) {
		case 'b': ctl->what |= DUMP_BOOT; break;
		case 's': ctl->what |= DUMP_SUMMARY; break;
		case 't': ctl->what |= DUMP_TREE; break;
		case 'l': ctl->what |= DUMP_TREE; ctl->longlist = true; break;
		case 'd': ctl->what |= DUMP_TREE; ctl->deleted = true; break;
		case 'J': ctl->json = true; break;
		case OPT_PATH: ctl->what |= DUMP_EXTENTS; ctl->path = optarg; break;
		case OPT_CLUSTER:
			if (parse_size(optarg, &v) < 0 || v < 2 || v > 0xFFFFFFF6u)
				return usage_error("dump", "invalid cluster '%s'", optarg);
			ctl->what |= DUMP_EXTENTS;
			ctl->cluster = (uint32_t)v;
			break;
		case OPT_SECTOR:
			if (parse_size(optarg, &v) < 0)
				return usage_error("dump", "invalid sector '%s'", optarg);
			ctl->what |= DUMP_SECTOR;
			ctl->sector = v;
			break;
		case OPT_OFFSET: case OPT_PARTITION: case OPT_SECTOR_SIZE:
			if (parse_vol_option("dump", c - OPT_OFFSET, optarg, &ctl->sel) < 0)
				return EXIT_USAGE;
			break;
		case 'h': dump_help(); return -1;
		case 'V': printf("fatscope dump from fatscope %s\n", fsc_version()); return -1;
		default: return usage_error("dump", "invalid option");
		}
	}
	if ((r = check_operands("dump", argc, 1, &ctl->sel)))
		return r;
	if (ctl->path && ctl->cluster)
		return usage_error("dump", "--path and --cluster are mutually exclusive");
	if (!ctl->what)
		ctl->what = DUMP_BOOT | DUMP_SUMMARY;
	return 0;
}

static int dump_path(struct dump_ctl *ctl, const char *path)
{
	struct fsc_partition part;
	int code = open_volume(path, &ctl->sel, &ctl->dev, &part), r;

	if (code)
		return code;
	ctl->image = path;
	r = fsc_probe_volume(ctl->dev, &ctl->p);
	if (r < 0) {
		errmsg(path, r == -ENODATA ? "too small to hold a boot sector" : "read error: %s", strerror(-r));
		code = r == -ENODATA ? EXIT_PROBE_NOTFS : EXIT_OPERROR;
	} else if (fsc_probe_type(ctl->p) != FSC_TYPE_EXFAT && !fsc_type_is_fat(fsc_probe_type(ctl->p)) &&
		   ctl->what != DUMP_SECTOR) {
		errmsg(path, "not an exFAT or FAT volume (%s); --sector still works",
		       fsc_type_name(fsc_probe_type(ctl->p)));
		code = EXIT_PROBE_NOTFS;
	} else {
		code = dump_volume(ctl);
	}
	fsc_probe_free(ctl->p);
	fsc_dev_close(ctl->dev);
	return code;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(0) : r;
	return close_stdout_checked(dump_path(&ctl, argv[optind]));
}
