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
	fputs(_("Usage:\n"
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
		"     --owner N          which file or structure owns cluster N, and its entry\n"
		"     --sector N         a hex dump of sector N of the volume\n"
		" -J, --json             JSON output\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 shown, 2 not an exFAT or FAT volume, 4 the chain listed loops or is cut,\n"
	      "8 operational error, 16 usage.\n\n"
		"See fatscope-dump(8).\n"), stdout);
}

enum { OPT_PATH = OPT_CMD_BASE, OPT_CLUSTER, OPT_SECTOR, OPT_OWNER };

static int parse_args(struct dump_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "boot", no_argument, NULL, 'b' }, { "summary", no_argument, NULL, 's' },
		{ "tree", no_argument, NULL, 't' }, { "long", no_argument, NULL, 'l' },
		{ "deleted", no_argument, NULL, 'd' }, { "path", required_argument, NULL, OPT_PATH },
		{ "cluster", required_argument, NULL, OPT_CLUSTER },
		{ "sector", required_argument, NULL, OPT_SECTOR }, { "json", no_argument, NULL, 'J' },
		{ "owner", required_argument, NULL, OPT_OWNER },
		COMMON_LONGOPTS,
	};
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "bstldJ" COMMON_SHORTOPTS, opts, NULL)) != -1) {
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
				return usage_error(&dump_cmd, _("invalid cluster '%s'"), optarg);
			ctl->what |= DUMP_EXTENTS;
			ctl->cluster = (uint32_t)v;
			break;
		case OPT_OWNER:
			if (parse_size(optarg, &v) < 0 || v < 2 || v > 0xFFFFFFF6u)
				return usage_error(&dump_cmd, "invalid cluster '%s'", optarg);
			ctl->what |= DUMP_OWNER;
			ctl->owner = (uint32_t)v;
			break;
		case OPT_SECTOR:
			if (parse_size(optarg, &v) < 0)
				return usage_error(&dump_cmd, _("invalid sector '%s'"), optarg);
			ctl->what |= DUMP_SECTOR;
			ctl->sector = v;
			break;
		default:
			if ((r = common_option(&dump_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&dump_cmd, argc, 1, &ctl->sel)))
		return r;
	if (ctl->path && ctl->cluster)
		return usage_error(&dump_cmd, _("--path and --cluster are mutually exclusive"));
	if (!ctl->what)
		ctl->what = DUMP_BOOT | DUMP_SUMMARY;
	return 0;
}

static int dump_path(struct dump_ctl *ctl, const char *path)
{
	struct volume v;
	int code = volume_open(&dump_cmd, path, &ctl->sel, VOL_BACKUP_VIEW, &v);

	if (code)
		return code;
	ctl->image = path;
	ctl->dev = v.dev;
	ctl->p = v.p;
	ctl->main_p = v.main_p;
	ctl->offset = fsc_dev_offset(v.main_dev ? v.main_dev : v.dev);
	if (fsc_probe_type(ctl->p) != FSC_TYPE_EXFAT && !fsc_type_is_fat(fsc_probe_type(ctl->p)) && ctl->what != DUMP_SECTOR) {
		errmsg(path, _("not an exFAT or FAT volume (%s); --sector still works"), fsc_type_name(fsc_probe_type(ctl->p)));
		code = DUMP_NOTFS;
	} else {
		code = dump_volume(ctl);
	}
	ctl->dev = NULL;
	ctl->p = NULL;
	ctl->main_p = NULL;
	volume_close(&v);
	return code;
}

static int cmd_dump(int argc, char **argv)
{
	struct dump_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(DUMP_OK, DUMP_OPERROR) : r;
	return close_stdout_checked(dump_path(&ctl, argv[optind]), DUMP_OPERROR);
}

const struct cmd_desc dump_cmd = {
	.name = "dump", .summary = N_("show every on-disk structure of a volume (read-only)"),
	.run = cmd_dump, .help = dump_help,
	.usage = DUMP_USAGE, .operror = DUMP_OPERROR, .too_small = DUMP_NOTFS,
};
