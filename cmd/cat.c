// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cat.c - fatscope cat: the bytes of one file of an exFAT or FAT volume
 * to standard output, read-only; with --deleted a deleted file as much
 * of it as is left.  A damaged chain (a loop, a cut, a cluster outside
 * the volume) gives the bytes up to the break (each cluster once), and
 * one error line that says where they stop.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "files.h"
#include "report.h"

struct cat_ctl {
	bool deleted;
	struct vol_select sel;
	const char *image, *path;
};

static void cat_help(void)
{
	fputs(_("Usage:\n"
		" fatscope cat [options] DEVICE|IMAGE PATH\n\n"
		"Write the bytes of a file of an exFAT or FAT volume to standard output (read-only).\n\n"
		"Options:\n"
		" -d, --deleted          PATH may name a deleted file: what is left of it\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 written, 1 a deleted file only partly recovered (zeros for the rest),\n"
		"2 not an exFAT or FAT volume, 4 the file's chain is damaged (its bytes up to the break\n"
		"written) or nothing of it is left, 8 operational error (also: no such file, a directory),\n"
		"16 usage.\n\nSee fatscope-cat(8).\n"),
	      stdout);
}

static int parse_args(struct cat_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "deleted", no_argument, NULL, 'd' },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "d" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		if (c == 'd')
			ctl->deleted = true;
		else if ((r = common_option(&cat_cmd, c, optarg, &ctl->sel)))
			return r;
	}
	if ((r = check_operands(&cat_cmd, argc, 2, &ctl->sel)))
		return r;
	if (optind + 2 != argc)
		return usage_error(&cat_cmd, _("no file path given"));
	ctl->image = argv[optind];
	ctl->path = argv[optind + 1];
	return 0;
}

static int to_stdout(void *ctx, const void *buf, size_t len)
{
	(void)ctx;	/* always stdout */
	return fwrite(buf, 1, len, stdout) == len ? 0 : -EIO;
}

/* What is left of a deleted file decides: CAT_DAMAGED when nothing, CAT_PARTIAL, or 0. */
static int deleted_state(const struct cat_ctl *ctl, const struct fsc_dirent *d, struct fsc_file *f)
{
	char what[128], esc[4400];
	enum fsc_recovery st = fsc_file_recovery(f);

	if (!d->deleted || st == FSC_REC_INTACT)
		return 0;
	file_recovery_text(f, what, sizeof(what));
	errmsg(ctl->image, st == FSC_REC_PARTIAL ? _("%s: deleted, %s") : _("%s: deleted, %s: nothing written"),
	       report_escape_buf(esc, sizeof(esc), d->path), what);
	return st == FSC_REC_PARTIAL ? CAT_PARTIAL : CAT_DAMAGED;
}

static int cat_file(struct cat_ctl *ctl, const struct volume *v)
{
	struct fsc_dirent d = FSC_DIRENT_INIT;
	struct fsc_reader *rd;
	struct fsc_file *f;
	char buf[4400];
	int code, r;

	if ((code = volume_lookup(&cat_cmd, ctl->image, v, ctl->path, ctl->deleted ? FSC_LOOKUP_DELETED : 0,
				  &d, buf, sizeof(buf))))
		return code;
	if (d.dir) {
		errmsg(ctl->image, _("%s: is a directory"), ctl->path);
		return CAT_OPERROR;
	}
	if ((r = fsc_reader_open(v->dev, v->p, FSC_READER_TO_BREAK, &rd)) < 0) {
		errmsg(ctl->image, _("cannot read the volume: %s"), strerror(-r));
		return CAT_OPERROR;
	}
	if ((r = file_open(ctl->image, rd, &d, &f)) < 0) {
		fsc_reader_close(rd);
		return r == -ENOMEM ? CAT_OPERROR : CAT_DAMAGED;
	}
	code = r ? CAT_DAMAGED : deleted_state(ctl, &d, f);	/* (a damaged chain: its bytes up to the break) */
	if ((r || code != CAT_DAMAGED) && file_copy(ctl->image, d.path, f, to_stdout, NULL) < 0)
		code = CAT_OPERROR;	/* a write error is said once, at exit */
	fsc_file_close(f);
	fsc_reader_close(rd);
	return code;
}

static int cmd_cat(int argc, char **argv)
{
	struct cat_ctl ctl = { 0 };
	struct volume v;
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(CAT_OK, CAT_OPERROR) : r;
	if ((r = volume_open(&cat_cmd, ctl.image, &ctl.sel, VOL_BACKUP_VIEW, &v)))
		return r;
	if (!(r = volume_need_fs(ctl.image, &v, CAT_NOTFS)))
		r = cat_file(&ctl, &v);
	volume_close(&v);
	return close_stdout_checked(r, CAT_OPERROR);
}

const struct cmd_desc cat_cmd = {
	.name = "cat", .summary = N_("write a file of a volume to standard output (read-only)"),
	.run = cmd_cat, .help = cat_help,
	.usage = CAT_USAGE, .operror = CAT_OPERROR, .too_small = CAT_NOTFS,
};
