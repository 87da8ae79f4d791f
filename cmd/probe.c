// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe.c - fatscope probe: what each volume is, what every driver model
 * does with it, and which of them put it at risk.  Argument parsing and
 * printing only; every byte is read by libexfat.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>

#include "common.h"
#include "json.h"
#include "probe_out.h"

static void probe_help(void)
{
	fputs("Usage:\n"
	      " fatscope probe [options] DEVICE|IMAGE...\n\n"
	      "Identify the volume and predict what each Linux-era driver does with it.\n\n"
	      "Options:\n"
	      " -J, --json              JSON output\n"
	      " -o, --output COLUMNS    print only the driver table, with these columns\n"
	      " -n, --noheadings        print only the driver table, without headings\n"
	      " -r, --raw               print only the driver table, raw\n"
	      "     --drivers ID,...    models to apply: IDs, 'current' or 'all' (default)\n"
	      "     --offset BYTES      the volume starts at this byte of the image\n"
	      "     --partition N       probe partition N of a whole-disk image\n"
	      "     --sector-size N     the device's logical sector size (default: the device's, 512 for images)\n"
	      " -h, --help              display this help\n"
	      " -V, --version           display version\n\n"
	      "Columns: VOLUME TYPE RISK DRIVER ACTION AS ERRNO WHY EFFECT WARNING CURRENT VERSIONS\n"
	      "         (report: DRIVER,ACTION,AS,ERRNO,WHY; table only: VOLUME,TYPE,DRIVER,ACTION,AS,ERRNO,RISK)\n\n"
	      "Drivers:\n", stdout);
	for (size_t i = 0; i < fsc_driver_count(); i++)
		printf(" %-17s %s (%s)\n", fsc_driver_at(i)->id, fsc_driver_at(i)->name,
		       fsc_driver_at(i)->versions);
	fputs("\nExit status: 0 no driver at risk, 1 a driver at risk, 2 not an exFAT/FAT volume,\n"
	      "8 operational error, 16 usage error.\n\nSee fatscope-probe(8).\n", stdout);
}

static int parse_drivers(struct probe_ctl *ctl, const char *arg)
{
	char *dup = strdup(arg), *save = NULL;

	if (!dup)
		return -1;
	memset(ctl->drv_sel, 0, sizeof(ctl->drv_sel));
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = fsc_driver_lookup(t);

		if (strcmp(t, "all") == 0 || strcmp(t, "current") == 0) {
			for (size_t k = 0; k < fsc_driver_count(); k++)
				if (t[0] == 'a' || fsc_driver_at(k)->current)
					ctl->drv_sel[k] = true;
		} else if (i >= 0) {
			ctl->drv_sel[i] = true;
		} else {
			usage_error("probe", "unknown driver '%s'", t);
			free(dup);
			return -1;
		}
	}
	free(dup);
	return 0;
}

enum { OPT_OFFSET = VOL_OPT_BASE, OPT_PARTITION, OPT_SECTOR_SIZE, OPT_DRIVERS };

static int parse_args(struct probe_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' }, { "output", required_argument, NULL, 'o' },
		{ "noheadings", no_argument, NULL, 'n' }, { "raw", no_argument, NULL, 'r' },
		{ "drivers", required_argument, NULL, OPT_DRIVERS },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "Jo:nrhV", opts, NULL)) != -1) {
		switch (c) {
		case 'J': ctl->json = true; break;
		case 'n': ctl->noheadings = true; break;
		case 'r': ctl->raw = true; break;
		case 'o':
			if (probe_parse_columns(ctl, optarg) < 0)
				return usage_error("probe", "unknown column in '%s'", optarg);
			break;
		case OPT_DRIVERS:
			if (parse_drivers(ctl, optarg) < 0)
				return EXIT_USAGE;
			break;
		case OPT_OFFSET: case OPT_PARTITION: case OPT_SECTOR_SIZE:
			if (parse_vol_option("probe", c - OPT_OFFSET, optarg, &ctl->sel) < 0)
				return EXIT_USAGE;
			break;
		case 'h': probe_help(); return -1;
		case 'V': printf("fatscope probe from fatscope %s\n", fsc_version()); return -1;
		default: return usage_error("probe", "invalid option");
		}
	}
	if ((r = check_operands("probe", argc, 0, &ctl->sel)))
		return r;
	ctl->table_mode = !ctl->json && (ctl->ncols || ctl->raw || ctl->noheadings);
	return 0;
}

/* Probe the volume in dev's current window and print it; returns its exit code. */
static int probe_window(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev,
			const struct fsc_partition *part)
{
	struct fsc_probe *p;
	int r = fsc_probe_volume(dev, &p), code;

	if (r == -ENODATA) {
		errmsg(path, "too small to hold a boot sector (%llu bytes)",
		       (unsigned long long)fsc_dev_size(dev));
		return EXIT_PROBE_NOTFS;
	}
	if (r < 0) {
		errmsg(path, "read error: %s", strerror(-r));
		return EXIT_OPERROR;
	}
	code = probe_report(ctl, path, dev, part, p);
	fsc_probe_free(p);
	return code;
}

/* Combine two per-volume codes: operational error, then risk, then not-a-volume. */
static int worse(int a, int b)
{
	static const int rank[] = { [0] = 0, [2] = 1, [1] = 2, [8] = 3 };

	if (a > 8 || b > 8)
		return a > b ? a : b;
	return rank[a] >= rank[b] ? a : b;
}

static int probe_disk(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev, int code)
{
	struct fsc_partition *parts;
	int n = fsc_partitions(dev, &parts), sub = -1;

	if (n < 0) {
		errmsg(path, "cannot read the partition table: %s", strerror(-n));
		return EXIT_OPERROR;
	}
	for (int i = 0; i < n; i++) {
		int c;

		if (fsc_dev_set_window(dev, parts[i].offset, parts[i].size) < 0) {
			errmsg(path, "partition %d lies beyond the end of the image", parts[i].partno);
			c = EXIT_OPERROR;
		} else {
			c = probe_window(ctl, path, dev, &parts[i]);
		}
		sub = sub < 0 ? c : worse(sub, c);
	}
	free(parts);
	fsc_dev_set_window(dev, 0, 0);
	if (sub < 0)
		return code;
	/* The table itself is "not a volume"; what counts is its partitions and any risk. */
	return code == EXIT_PROBE_RISK ? worse(sub, code) : sub;
}

static int probe_path(struct probe_ctl *ctl, const char *path)
{
	struct fsc_dev *dev;
	struct fsc_partition part;
	int code = open_volume(path, &ctl->sel, &dev, &part);
	bool whole;

	if (code)
		return code;
	whole = !ctl->sel.has_offset && !ctl->sel.partition;
	ctl->last_type = FSC_TYPE_UNKNOWN;
	code = probe_window(ctl, path, dev, part.partno ? &part : NULL);
	if (whole && (ctl->last_type == FSC_TYPE_MBR || ctl->last_type == FSC_TYPE_GPT))
		code = probe_disk(ctl, path, dev, code);
	fsc_dev_close(dev);
	return code;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_ctl ctl = { 0 };
	int code = -1, r;

	for (size_t i = 0; i < fsc_driver_count(); i++)
		ctl.drv_sel[i] = true;
	r = parse_args(&ctl, argc, argv);
	if (r)
		return r < 0 ? close_stdout_checked(0) : r;
	if (ctl.json) {
		json_init(&ctl.j, stdout);
		json_open(&ctl.j, NULL, '{');
		json_open(&ctl.j, "volumes", '[');
	}
	for (int i = optind; i < argc; i++) {
		int c = probe_path(&ctl, argv[i]);

		code = code < 0 ? c : worse(code, c);
	}
	probe_table_flush(&ctl);
	if (ctl.json) {
		json_close(&ctl.j, ']');
		json_close(&ctl.j, '}');
	}
	return close_stdout_checked(code);
}
