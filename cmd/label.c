// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * label.c - fatscope label: show or change the label, the serial and the
 * exFAT volume GUID, saying how blkid will show each.
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
#include "report.h"
#include "json.h"

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
	fputs(_("Usage:\n"
		" fatscope label [options] DEVICE|IMAGE [NEW-LABEL]\n\n"
		"Show or change the volume label, the serial and the exFAT volume GUID.\n\n"
		"Options:\n"
		" -s, --serial=SERIAL    set the serial: XXXX-XXXX, 8 hex digits, or 'random'\n"
		" -g, --guid=GUID        set the exFAT volume GUID: a UUID, 'random' or 'time'\n"
		"     --dry-run          print the bytes that would change, write nothing\n"
		"     --undo FILE        keep every overwritten byte in FILE (see fatscope undo)\n"
		" -J, --json             JSON output\n"), stdout);
	common_options_help(23);
	fputs(_("\nAn empty NEW-LABEL (\"\") removes the label.\n"
		"Exit status: 0 done, 1 invalid new value, 2 not an exFAT or FAT volume,\n"
		"4 the structures to change are damaged (run fsck), 8 operational error, 16 usage.\n\n"
		"See fatscope-label(8).\n"), stdout);
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

enum { OPT_DRY_RUN = OPT_CMD_BASE, OPT_UNDO };

static int parse_args(struct label_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "serial", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN }, { "undo", required_argument, NULL, OPT_UNDO },
		{ "json", no_argument, NULL, 'J' }, COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "s:g:J" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_serial(optarg, &ctl->serial) < 0)
				return usage_error(&label_cmd, _("invalid serial '%s' (XXXX-XXXX, 8 hex digits or random)"), optarg);
			ctl->set_serial = true;
			break;
		case 'g':
			if (parse_guid(optarg, ctl->guid) < 0)
				return usage_error(&label_cmd, _("invalid GUID '%s' (a UUID, random or time)"), optarg);
			ctl->set_guid = true;
			break;
		case 'J': ctl->json = true; break;
		case OPT_DRY_RUN: ctl->dry_run = true; break;
		case OPT_UNDO: ctl->undo = optarg; break;
		default:
			if ((r = common_option(&label_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&label_cmd, argc, 2, &ctl->sel)))
		return r;
	if (optind + 1 < argc)
		ctl->new_label = argv[optind + 1];
	return 0;
}

static void show(const struct label_ctl *ctl, const char *path, const struct fsc_probe *p, const struct fsc_ids *ids)
{
	char g[37] = "", esc[4 * 48 + 1];
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
	/* labels are bytes from the disk: control bytes and invalid UTF-8 escaped */
	if (ids->has_label)
		printf(_("label:       %s  (blkid: LABEL=\"%s\")\n"), report_escape_buf(esc, sizeof(esc), ids->label),
		       esc);
	else
		printf(_("label:       none  (blkid: no LABEL)\n"));
	if (fat)
		printf(_("boot label:  %s  (%s)\n"),
		       ids->has_boot_label ? report_escape_buf(esc, sizeof(esc), ids->boot_label) : _("none"),
		       ids->has_boot_label ? _("blkid: LABEL_FATBOOT; Windows shows the root label") : _("BS_VolLab is NO NAME or absent"));
	if (ids->has_serial)
		printf(_("serial:      %s  (blkid: UUID=\"%s\")\n"), ids->serial_text, ids->serial_text);
	else
		printf(_("serial:      none  (blkid: no UUID)\n"));
	if (!fat)
		printf(_("volume GUID: %s  (blkid does not show it)\n"), ids->has_guid ? g : _("none"));
}

static void print_plan(const char *path, const struct fsc_plan *plan)
{
	printf(P_("%s: %zu change planned, nothing written (--dry-run):\n",
		  "%s: %zu changes planned, nothing written (--dry-run):\n", fsc_plan_count(plan)),
	       path, fsc_plan_count(plan));
	report_plan(stdout, plan);
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
		return r == -EUCLEAN ? LABEL_DAMAGED : LABEL_OPERROR;
	}
	if (r < 0) {
		errmsg(path, _("cannot plan the change: %s"), strerror(-r));
		return LABEL_OPERROR;
	}
	return 0;
}

/* Apply the plan and read the volume back. */
static int apply(const struct label_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_plan *plan)
{
	int r = volume_apply(&label_cmd, path, dev, plan, ctl->undo, N_("change"));
	struct fsc_probe *p2;
	struct fsc_ids ids = FSC_IDS_INIT;

	if (r)
		return r;
	if (fsc_probe_volume(dev, &p2) < 0) {
		errmsg(path, _("cannot read the volume back"));
		return LABEL_OPERROR;
	}
	fsc_ids_read(dev, p2, &ids);
	if ((ctl->set_serial && ids.serial != ctl->serial) || (ctl->set_guid && memcmp(ids.guid, ctl->guid, 16)) ||
	    (ctl->new_label && strcasecmp(ids.has_label ? ids.label : "", ctl->new_label) != 0) ||
	    fsc_findings_has(fsc_probe_findings(p2), FSC_PR_EXFAT_BOOT_CHECKSUM)) {
		errmsg(path, _("the change did not read back as written"));
		fsc_probe_free(p2);
		return LABEL_OPERROR;
	}
	if (!ctl->json) {
		char where[64] = "";

		if (ctl->sel.partition)
			snprintf(where, sizeof(where), "--partition %d ", ctl->sel.partition);
		else if (ctl->sel.has_offset)
			snprintf(where, sizeof(where), "--offset %llu ", (unsigned long long)ctl->sel.offset);
		printf(P_("%s: %zu change written", "%s: %zu changes written", fsc_plan_count(plan)), path,
		       fsc_plan_count(plan));
		if (ctl->undo)
			printf(_("; undo with: fatscope undo %s%s %s"), where, ctl->undo, path);
		putchar('\n');
	}
	show(ctl, path, p2, &ids);
	fsc_probe_free(p2);
	return 0;
}

static int label_path(struct label_ctl *ctl, const char *path)
{
	bool change = ctl->new_label || ctl->set_serial || ctl->set_guid;
	struct volume v;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_plan *plan = NULL;
	struct fsc_ids ids = FSC_IDS_INIT;
	int code = volume_open(&label_cmd, path, &ctl->sel, change && !ctl->dry_run ? VOL_WRITE : 0, &v);

	if (code)
		return code;
	dev = v.dev;
	p = v.p;
	if (fsc_ids_read(dev, p, &ids) < 0) {
		errmsg(path, _("not an exFAT or FAT volume (%s)"), fsc_type_name(fsc_probe_type(p)));
		code = LABEL_NOTFS;
	} else if (!change) {
		show(ctl, path, p, &ids);
	} else if (!(plan = fsc_plan_new())) {
		code = LABEL_OPERROR;
	} else if (!(code = plan_changes(ctl, path, dev, p, plan))) {
		if (fsc_plan_count(plan) == 0)
			printf(_("%s: nothing to change\n"), path);
		else if (ctl->dry_run)
			print_plan(path, plan);
		else
			code = apply(ctl, path, dev, plan);
	}
	fsc_plan_free(plan);
	volume_close(&v);
	return code;
}

static int cmd_label(int argc, char **argv)
{
	struct label_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(LABEL_OK, LABEL_OPERROR) : r;
	return close_stdout_checked(label_path(&ctl, argv[optind]), LABEL_OPERROR);
}

const struct cmd_desc label_cmd = {
	.name = "label", .summary = N_("show or change the label, serial and volume GUID"),
	.run = cmd_label, .help = label_help,
	.usage = LABEL_USAGE, .operror = LABEL_OPERROR, .too_small = LABEL_NOTFS,
};
