// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * label.c - fatscope label: show or change the label, the serial and the
 * exFAT volume GUID, saying how blkid will show each; and fatscope undo.
 * Every change is a libexfat plan: --dry-run prints it, --undo FILE keeps
 * the old bytes, a mounted volume is refused, and the result is read back.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uuid/uuid.h>

#include "common.h"
#include "json.h"

enum { LABEL_OK = 0, LABEL_BADVALUE = 1, LABEL_NOTFS = 2, LABEL_DAMAGED = 4 };

struct label_ctl {
	struct vol_select sel;
	bool json, dry_run;
	const char *undo;
	const char *new_label;		/* NULL: unchanged */
	bool set_serial, set_guid;
	uint32_t serial;
	uint8_t guid[16];		/* RFC 4122 byte order */
};

static void label_help(void)
{
	fputs("Usage:\n"
	      " fatscope label [options] DEVICE|IMAGE [NEW-LABEL]\n\n"
	      "Show or change the volume label, the serial and the exFAT volume GUID.\n\n"
	      "Options:\n"
	      " -s, --serial=SERIAL    set the serial: XXXX-XXXX, 8 hex digits, or 'random'\n"
	      " -g, --guid=GUID        set the exFAT volume GUID: a UUID, 'random' or 'time'\n"
	      "     --dry-run          print the bytes that would change, write nothing\n"
	      "     --undo FILE        keep every overwritten byte in FILE (see fatscope undo)\n"
	      " -J, --json             JSON output\n"
	      "     --offset BYTES     the volume starts at this byte of the image\n"
	      "     --partition N      partition N of a whole-disk image\n"
	      "     --sector-size N    the device's logical sector size\n"
	      " -h, --help             display this help\n"
	      " -V, --version          display version\n\n"
	      "An empty NEW-LABEL (\"\") removes the label.\n"
	      "Exit status: 0 done, 1 invalid new value, 2 not an exFAT or FAT volume,\n"
	      "4 the structures to change are damaged (run fsck), 8 operational error, 16 usage.\n\n"
	      "See fatscope-label(8).\n", stdout);
}

static int parse_serial(const char *s, uint32_t *out)
{
	char hex[9];
	size_t n = 0;
	char *end;

	if (strcmp(s, "random") == 0) {
		uuid_t u;

		uuid_generate_random(u);
		*out = (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
		return 0;
	}
	/* Exactly XXXX-XXXX or XXXXXXXX, hexadecimal digits only. */
	if (strlen(s) == 9 && s[4] == '-') {
		memcpy(hex, s, 4);
		memcpy(hex + 4, s + 5, 4);
	} else if (strlen(s) == 8) {
		memcpy(hex, s, 8);
	} else {
		return -1;
	}
	hex[8] = '\0';
	for (n = 0; n < 8; n++)
		if (!isxdigit((unsigned char)hex[n]))
			return -1;
	*out = (uint32_t)strtoul(hex, &end, 16);
	return 0;
}

static int parse_guid(const char *s, uint8_t g[16])
{
	if (strcmp(s, "random") == 0)
		uuid_generate_random(g);
	else if (strcmp(s, "time") == 0)
		uuid_generate_time(g);
	else if (uuid_parse(s, g) < 0)
		return -1;
	return 0;
}

enum { OPT_OFFSET = VOL_OPT_BASE, OPT_PARTITION, OPT_SECTOR_SIZE, OPT_DRY_RUN, OPT_UNDO };

static int parse_args(struct label_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "serial", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN }, { "undo", required_argument, NULL, OPT_UNDO },
		{ "json", no_argument, NULL, 'J' }, { "offset", required_argument, NULL, OPT_OFFSET },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "s:g:JhV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_serial(optarg, &ctl->serial) < 0)
				return usage_error("label", "invalid serial '%s' (XXXX-XXXX, 8 hex digits or random)", optarg);
			ctl->set_serial = true;
			break;
		case 'g':
			if (parse_guid(optarg, ctl->guid) < 0)
				return usage_error("label", "invalid GUID '%s' (a UUID, random or time)", optarg);
			ctl->set_guid = true;
			break;
		case 'J': ctl->json = true; break;
		case OPT_DRY_RUN: ctl->dry_run = true; break;
		case OPT_UNDO: ctl->undo = optarg; break;
		case OPT_OFFSET: case OPT_PARTITION: case OPT_SECTOR_SIZE:
			if (parse_vol_option("label", c - OPT_OFFSET, optarg, &ctl->sel) < 0)
				return EXIT_USAGE;
			break;
		case 'h': label_help(); return -1;
		case 'V': printf("fatscope label from fatscope %s\n", fsc_version()); return -1;
		default: return usage_error("label", "invalid option");
		}
	}
	if ((r = check_operands("label", argc, 2, &ctl->sel)))
		return r;
	if (optind + 1 < argc)
		ctl->new_label = argv[optind + 1];
	return 0;
}

static void show(const struct label_ctl *ctl, const char *path, const struct fsc_probe *p, const struct fsc_ids *ids)
{
	char g[37] = "";
	bool fat = fsc_type_is_fat(fsc_probe_type(p));

	if (ids->has_guid)
		uuid_unparse_lower(ids->guid, g);
	if (ctl->json) {
		struct json j;

		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "path", path);
		json_str(&j, "type", fsc_type_name(fsc_probe_type(p)));
		json_str(&j, "label", ids->has_label ? ids->label : NULL);
		if (fat)
			json_str(&j, "boot_label", ids->has_boot_label ? ids->boot_label : NULL);
		json_str(&j, "serial", ids->has_serial ? ids->serial_text : NULL);
		if (!fat)
			json_str(&j, "guid", ids->has_guid ? g : NULL);
		json_open(&j, "blkid", '{');
		json_str(&j, "LABEL", ids->has_label ? ids->label : NULL);
		if (fat)
			json_str(&j, "LABEL_FATBOOT", ids->has_boot_label ? ids->boot_label : NULL);
		json_str(&j, "UUID", ids->has_serial ? ids->serial_text : NULL);
		json_close(&j, '}');
		json_close(&j, '}');
		return;
	}
	if (ids->has_label)
		printf("label:       %s  (blkid: LABEL=\"%s\")\n", ids->label, ids->label);
	else
		printf("label:       none  (blkid: no LABEL)\n");
	if (fat)
		printf("boot label:  %s  (%s)\n", ids->has_boot_label ? ids->boot_label : "none",
		       ids->has_boot_label ? "blkid: LABEL_FATBOOT; Windows shows the root label" : "BS_VolLab is NO NAME or absent");
	if (ids->has_serial)
		printf("serial:      %s  (blkid: UUID=\"%s\")\n", ids->serial_text, ids->serial_text);
	else
		printf("serial:      none  (blkid: no UUID)\n");
	if (!fat)
		printf("volume GUID: %s  (blkid does not show it)\n", ids->has_guid ? g : "none");
}

static void print_plan(const char *path, const struct fsc_plan *plan)
{
	printf("%s: %zu change%s planned, nothing written (--dry-run):\n", path, fsc_plan_count(plan),
	       fsc_plan_count(plan) == 1 ? "" : "s");
	for (size_t i = 0; i < fsc_plan_count(plan); i++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, i);
		size_t show = e->len > 16 ? 16 : e->len, diff = 0;

		for (size_t k = 0; k < e->len; k++)
			diff += e->old[k] != e->data[k];
		printf("  byte %llu, %zu bytes, %zu differ: %s%s\n", (unsigned long long)e->offset,
		       e->len, diff, e->why, e->sync_before ? " [after a sync]" : "");
		printf("    old:");
		for (size_t k = 0; k < show; k++)
			printf(" %02x", e->old[k]);
		printf("%s\n    new:", e->len > show ? " ..." : "");
		for (size_t k = 0; k < show; k++)
			printf(" %02x", e->data[k]);
		printf("%s\n", e->len > show ? " ..." : "");
	}
}

static int plan_changes(const struct label_ctl *ctl, const char *path, struct fsc_dev *dev,
			const struct fsc_probe *p, struct fsc_plan *plan)
{
	const char *now_env = getenv("FATSCOPE_NOW");
	int64_t now = now_env ? strtoll(now_env, NULL, 10) : (int64_t)time(NULL);
	char err[200];
	int r = 0;

	if (ctl->new_label)
		r = fsc_plan_label(dev, p, ctl->new_label, now, plan, err, sizeof(err));
	if (!r && ctl->set_serial)
		r = fsc_plan_serial(dev, p, ctl->serial, plan, err, sizeof(err));
	if (!r && ctl->set_guid)
		r = fsc_plan_guid(dev, p, ctl->guid, plan, err, sizeof(err));
	if (r == -EINVAL) {
		errmsg(path, "%s", err);
		return LABEL_BADVALUE;
	}
	if (r == -EUCLEAN || r == -ENOSPC) {
		errmsg(path, "%s", err);
		return r == -EUCLEAN ? LABEL_DAMAGED : EXIT_OPERROR;
	}
	if (r < 0) {
		errmsg(path, "cannot plan the change: %s", strerror(-r));
		return EXIT_OPERROR;
	}
	return 0;
}

/* Apply the plan and read the volume back. */
static int apply(const struct label_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_plan *plan)
{
	char why[2200];
	int r = fsc_dev_busy(path, why, sizeof(why));
	struct fsc_probe *p2;
	struct fsc_ids ids;

	if (r == -EBUSY) {
		errmsg(path, "%s; unmount it first", why);
		return EXIT_OPERROR;
	}
	r = fsc_plan_apply(dev, plan, ctl->undo);
	if (r < 0) {
		errmsg(path, r == -EEXIST ? "the undo file %s exists already" :
		       r == -ESTALE ? "the volume changed while the change was planned; nothing written%s" :
		       "write failed: %s", r == -EEXIST ? ctl->undo : r == -ESTALE ? "" : strerror(-r));
		return EXIT_OPERROR;
	}
	if (fsc_probe_volume(dev, &p2) < 0) {
		errmsg(path, "cannot read the volume back");
		return EXIT_OPERROR;
	}
	fsc_ids_read(dev, p2, &ids);
	if ((ctl->set_serial && ids.serial != ctl->serial) || (ctl->set_guid && memcmp(ids.guid, ctl->guid, 16)) ||
	    (ctl->new_label && strcasecmp(ids.has_label ? ids.label : "", ctl->new_label) != 0) ||
	    fsc_findings_has(fsc_probe_findings(p2), FSC_PR_EXFAT_BOOT_CHECKSUM)) {
		errmsg(path, "the change did not read back as written");
		fsc_probe_free(p2);
		return EXIT_OPERROR;
	}
	if (!ctl->json) {
		char where[64] = "";

		if (ctl->sel.partition)
			snprintf(where, sizeof(where), "--partition %d ", ctl->sel.partition);
		else if (ctl->sel.has_offset)
			snprintf(where, sizeof(where), "--offset %llu ", (unsigned long long)ctl->sel.offset);
		printf("%s: %zu change%s written", path, fsc_plan_count(plan), fsc_plan_count(plan) == 1 ? "" : "s");
		if (ctl->undo)
			printf("; undo with: fatscope undo %s%s %s", where, ctl->undo, path);
		putchar('\n');
	}
	show(ctl, path, p2, &ids);
	fsc_probe_free(p2);
	return 0;
}

static int label_path(struct label_ctl *ctl, const char *path)
{
	bool change = ctl->new_label || ctl->set_serial || ctl->set_guid;
	struct fsc_partition part;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan = NULL;
	struct fsc_ids ids;
	int code = change && !ctl->dry_run ? open_volume_rw(path, &ctl->sel, &dev, &part) :
		   open_volume(path, &ctl->sel, &dev, &part);

	if (code)
		return code;
	if ((code = fsc_probe_volume(dev, &p)) < 0) {
		errmsg(path, code == -ENODATA ? "too small to hold a boot sector" : "read error");
		fsc_dev_close(dev);
		return code == -ENODATA ? LABEL_NOTFS : EXIT_OPERROR;
	}
	if (fsc_ids_read(dev, p, &ids) < 0) {
		errmsg(path, "not an exFAT or FAT volume (%s)", fsc_type_name(fsc_probe_type(p)));
		code = LABEL_NOTFS;
	} else if (!change) {
		show(ctl, path, p, &ids);
	} else if (!(plan = fsc_plan_new())) {
		code = EXIT_OPERROR;
	} else if (!(code = plan_changes(ctl, path, dev, p, plan))) {
		if (fsc_plan_count(plan) == 0)
			printf("%s: nothing to change\n", path);
		else if (ctl->dry_run)
			print_plan(path, plan);
		else
			code = apply(ctl, path, dev, plan);
	}
	fsc_plan_free(plan);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	return code;
}

int cmd_label(int argc, char **argv)
{
	struct label_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(0) : r;
	return close_stdout_checked(label_path(&ctl, argv[optind]));
}

/* ---- fatscope undo ---- */

int cmd_undo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, VOL_OPT_BASE },
		{ "partition", required_argument, NULL, VOL_OPT_BASE + 1 },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct vol_select sel = { 0 };
	struct fsc_partition part;
	struct fsc_dev *dev;
	char why[2200];
	int c, r;

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		if (c == VOL_OPT_BASE || c == VOL_OPT_BASE + 1) {
			if (parse_vol_option("undo", c - VOL_OPT_BASE, optarg, &sel) < 0)
				return EXIT_USAGE;
		} else if (c == 'h') {
			fputs("Usage:\n fatscope undo [--offset BYTES|--partition N] UNDO-FILE DEVICE|IMAGE\n\n"
			      "Put back the bytes a change recorded with --undo; the volume must hold\n"
			      "exactly what the change left.\n\nExit status: 0 restored, 8 error, 16 usage.\n",
			      stdout);
			return close_stdout_checked(0);
		} else if (c == 'V') {
			printf("fatscope undo from fatscope %s\n", fsc_version());
			return close_stdout_checked(0);
		} else {
			return usage_error("undo", "invalid option");
		}
	}
	if (optind + 2 != argc)
		return usage_error("undo", "an undo file and a device or image are needed");
	if (fsc_dev_busy(argv[optind + 1], why, sizeof(why)) == -EBUSY) {
		errmsg(argv[optind + 1], "%s; unmount it first", why);
		return EXIT_OPERROR;
	}
	if (open_volume_rw(argv[optind + 1], &sel, &dev, &part))
		return EXIT_OPERROR;
	r = fsc_undo_apply(dev, argv[optind]);
	fsc_dev_close(dev);
	if (r < 0) {
		errmsg(argv[optind], "%s", r == -EINVAL ? "not an undo file for this volume, or damaged" :
		       r == -ESTALE ? "the volume no longer holds what the change wrote; nothing restored" :
		       strerror(-r));
		return EXIT_OPERROR;
	}
	printf("%s: %d range%s restored from %s\n", argv[optind + 1], r, r == 1 ? "" : "s", argv[optind]);
	return close_stdout_checked(0);
}
