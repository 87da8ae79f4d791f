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
	fputs(_("Usage:\n"
		" fatscope probe [options] DEVICE|IMAGE...\n\n"
		"Identify the volume and predict what each Linux-era driver does with it.\n\n"
		"Options:\n"
		" -J, --json              JSON output\n"
		" -o, --output COLUMNS    print only the driver table, with these columns\n"
		" -n, --noheadings        print only the driver table, without headings\n"
		" -r, --raw               print only the driver table, raw\n"
		" -s, --summary           print one line a volume: type, label, verdict, drivers at risk\n"
		"     --drivers ID,...    models to apply: IDs, 'current' or 'all' (default)\n"
		"     --verify            hash an evidence container's media against the hashes it stores\n"), stdout);
	common_options_help(24);
	/* The names of -o and the driver IDs: never translated. */
	fputs("\nColumns: VOLUME TYPE LABEL VERDICT AT-RISK RISK DRIVER ACTION AS ERRNO WHY EFFECT WARNING\n"
	      "         CURRENT VERSIONS (report: DRIVER,ACTION,AS,ERRNO,WHY; table only:\n"
	      "         VOLUME,TYPE,DRIVER,ACTION,AS,ERRNO,RISK; -s: VOLUME,TYPE,LABEL,VERDICT,AT-RISK)\n\n"
	      "Drivers:\n", stdout);
	for (size_t i = 0; i < fsc_driver_count(); i++)
		printf(" %-17s %s (%s)\n", fsc_driver_at(i)->id, fsc_driver_at(i)->name,
		       fsc_driver_at(i)->versions);
	fputs(_("\nExit status: 0 no driver at risk, 1 a driver at risk, 2 not an exFAT/FAT volume,\n"
		"4 a stored hash does not match (--verify), 8 operational error, 16 usage error.\n\n"
		"See fatscope-probe(8).\n"), stdout);
}

static int parse_drivers(struct probe_ctl *ctl, const char *arg)
{
	char *dup = strdup(arg), *save = NULL;

	if (!dup)
		return -1;
	memset(ctl->drv_sel, 0, sizeof(ctl->drv_sel));
	ctl->drivers_given = true;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = fsc_driver_lookup(t);

		if (strcmp(t, "all") == 0 || strcmp(t, "current") == 0) {
			for (size_t k = 0; k < fsc_driver_count(); k++)
				if (t[0] == 'a' || fsc_driver_at(k)->current)
					ctl->drv_sel[k] = true;
		} else if (i >= 0) {
			ctl->drv_sel[i] = true;
		} else {
			usage_error(&probe_cmd, _("unknown driver '%s'"), t);
			free(dup);
			return -1;
		}
	}
	free(dup);
	return 0;
}

enum { OPT_DRIVERS = OPT_CMD_BASE, OPT_VERIFY };

static int parse_args(struct probe_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' }, { "output", required_argument, NULL, 'o' },
		{ "noheadings", no_argument, NULL, 'n' }, { "raw", no_argument, NULL, 'r' },
		{ "summary", no_argument, NULL, 's' },
		{ "drivers", required_argument, NULL, OPT_DRIVERS }, { "verify", no_argument, NULL, OPT_VERIFY },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "Jo:nrs" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'J': ctl->json = true; break;
		case 's': ctl->summary = true; break;
		case 'n': ctl->noheadings = true; break;
		case 'r': ctl->raw = true; break;
		case 'o':
			if (probe_parse_columns(ctl, optarg) < 0)
				return usage_error(&probe_cmd, _("unknown column in '%s'"), optarg);
			break;
		case OPT_DRIVERS:
			if (parse_drivers(ctl, optarg) < 0)
				return PROBE_USAGE;
			break;
		case OPT_VERIFY: ctl->verify = true; break;
		default:
			if ((r = common_option(&probe_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&probe_cmd, argc, 0, &ctl->sel)))
		return r;
	if (ctl->summary && (ctl->json || ctl->ncols))
		return usage_error(&probe_cmd, _("--summary has its own columns: not with --json or --output"));
	ctl->table_mode = !ctl->json && (ctl->ncols || ctl->raw || ctl->noheadings || ctl->summary);
	return 0;
}

/* Probe the volume in dev's current window and print it; returns its exit code. */
static int probe_window(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev,
			const struct fsc_partition *part)
{
	struct fsc_probe *p;
	int code = volume_probe(&probe_cmd, path, dev, &p);

	if (code)
		return code;
	code = probe_report(ctl, path, dev, part, p);
	fsc_probe_free(p);
	return code;
}

/* How much a per-volume code counts: operational error, a hash mismatch, risk, not-a-volume. */
static int rank(int code)
{
	switch (code) {
	case PROBE_OK: return 0;
	case PROBE_NOTFS: return 1;
	case PROBE_RISK: return 2;
	case PROBE_MISMATCH: return 3;
	default: return 4;
	}
}

static int worse(int a, int b)
{
	return rank(a) >= rank(b) ? a : b;
}

static int probe_disk(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev, int code)
{
	struct fsc_partition *parts;
	int n = fsc_partitions(dev, &parts), sub = -1;

	if (n < 0) {
		errmsg(path, _("cannot read the partition table: %s"), strerror(-n));
		return PROBE_OPERROR;
	}
	for (int i = 0; i < n; i++) {
		const struct fsc_partition *pt = fsc_partition_at(parts, i);
		int c;

		if (fsc_dev_set_window(dev, pt->offset, pt->size) < 0) {
			errmsg(path, _("partition %d lies beyond the end of the image"), pt->partno);
			c = PROBE_OPERROR;
		} else {
			c = probe_window(ctl, path, dev, pt);
		}
		sub = sub < 0 ? c : worse(sub, c);
	}
	free(parts);
	fsc_dev_set_window(dev, 0, 0);
	if (sub < 0)
		return code;
	/* The table itself is "not a volume"; what counts is its partitions and any risk. */
	return code == PROBE_RISK ? worse(sub, code) : sub;
}

static int probe_path(struct probe_ctl *ctl, const char *path)
{
	struct volume v;
	int code = volume_open(&probe_cmd, path, &ctl->sel, 0, &v);
	bool whole = !ctl->sel.has_offset && !ctl->sel.partition;

	if (code)
		return code;
	ctl->container_shown = false;
	ctl->ver.result = VERIFY_NOT_ASKED;
	if (ctl->verify && (code = probe_verify(path, v.dev, &ctl->ver))) {
		volume_close(&v);
		return code;
	}
	ctl->last_type = FSC_TYPE_UNKNOWN;
	code = probe_report(ctl, path, v.dev, v.part.partno ? &v.part : NULL, v.p);
	fsc_probe_free(v.p);
	v.p = NULL;
	if (whole && (ctl->last_type == FSC_TYPE_MBR || ctl->last_type == FSC_TYPE_GPT))
		code = probe_disk(ctl, path, v.dev, code);
	volume_close(&v);
	return ctl->ver.result == VERIFY_MISMATCH ? worse(code, PROBE_MISMATCH) : code;
}

static int cmd_probe(int argc, char **argv)
{
	struct probe_ctl ctl = { 0 };
	int code = -1, r;

	for (size_t i = 0; i < fsc_driver_count(); i++)
		ctl.drv_sel[i] = true;
	r = parse_args(&ctl, argc, argv);
	if (r)
		return r < 0 ? close_stdout_checked(PROBE_OK, PROBE_OPERROR) : r;
	if (ctl.json) {
		json_init(&ctl.j, stdout);
		json_open(&ctl.j, NULL, '{');
		probe_formats_json(&ctl.j);
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
	return close_stdout_checked(code, PROBE_OPERROR);
}

const struct cmd_desc probe_cmd = {
	.name = "probe", .summary = N_("identify volumes and predict what each driver does with them"),
	.run = cmd_probe, .help = probe_help,
	.usage = PROBE_USAGE, .operror = PROBE_OPERROR, .too_small = PROBE_NOTFS,
};
