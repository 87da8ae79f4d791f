// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * undo.c - fatscope undo: put back the bytes a change recorded with
 * --undo FILE (libexfat checks the log, the volume's size and window, and
 * that the volume still holds what the change left).  The volume is not
 * probed: what is restored may be a damaged boot sector.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static void undo_help(void)
{
	fputs(_("Usage:\n"
		" fatscope undo [options] UNDO-FILE DEVICE|IMAGE\n\n"
		"Put back the bytes a change recorded with --undo; the volume must hold\n"
		"exactly what the change left.\n\n"
		"Options:\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 restored, 8 error, 16 usage.\n\nSee fatscope-undo(8).\n"), stdout);
}

static int parse_args(struct vol_select *sel, int argc, char **argv)
{
	static const struct option opts[] = { COMMON_LONGOPTS };
	int c, r;

	while ((c = getopt_long(argc, argv, COMMON_SHORTOPTS, opts, NULL)) != -1)
		if ((r = common_option(&undo_cmd, c, optarg, sel)))
			return r;
	if (optind + 2 != argc)
		return usage_error(&undo_cmd, _("an undo file and a device or image are needed"));
	return check_select(&undo_cmd, sel);
}

static int cmd_undo(int argc, char **argv)
{
	struct vol_select sel = { 0 };
	struct volume v;
	const char *log, *path;
	int r = parse_args(&sel, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(UNDO_OK, UNDO_ERROR) : r;
	log = argv[optind];
	path = argv[optind + 1];
	if ((r = volume_refuse_busy(&undo_cmd, path)) ||
	    (r = volume_open(&undo_cmd, path, &sel, VOL_WRITE | VOL_NO_PROBE, &v)))
		return r;
	r = fsc_undo_apply(v.dev, log);
	volume_close(&v);
	if (r < 0) {
		errmsg(log, "%s", r == -EINVAL ? _("not an undo file for this volume, or damaged") :
		       r == -ESTALE ? _("the volume no longer holds what the change wrote; nothing restored") :
		       strerror(-r));
		return UNDO_ERROR;
	}
	printf(P_("%s: %d range restored from %s\n", "%s: %d ranges restored from %s\n", r), path, r, log);
	return close_stdout_checked(UNDO_OK, UNDO_ERROR);
}

/* Nothing is probed, so nothing is too small: the undo log's size check says so. */
const struct cmd_desc undo_cmd = {
	.name = "undo", .summary = N_("put back what a change recorded with --undo FILE"),
	.run = cmd_undo, .help = undo_help,
	.usage = UNDO_USAGE, .operror = UNDO_ERROR, .too_small = UNDO_ERROR,
};
