// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck_args.c - fatscope fsck's options and help.  Run as fsck.exfat it
 * also takes exfatprogs' -s and -b; run as fsck.fat, fsck.vfat or
 * fsck.msdos, dosfstools' -V (a verification pass), -l, -f, -c, -r, -w
 * and -t, as fsck.fat(8) defines them.  Any other option is a usage error
 * (exit 16) under every name, and so are options that cannot go together.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsck.h"

void fsck_help(void)
{
	fputs(_("Usage:\n"
		" fatscope fsck [options] DEVICE|IMAGE\n"
		" fatscope fsck --explain PROBLEM-ID\n\n"
		"Check and repair an exFAT or FAT12/16/32 volume (--explain ID: what a repair does about a problem).\n\n"
		"Options:\n"
		" -n, --no              check only, answer no to every repair (default without a terminal)\n"
		" -p, -a, --preen       repair what is safe: no data lost, no choice to make\n"
		"                        (every volume is checked, marked dirty or not)\n"
		" -y, --yes             repair everything fatscope can repair\n"
		"     --dry-run         with -p or -y: print the repair plan, write nothing\n"
		"     --undo FILE       keep every overwritten byte in FILE (see fatscope undo)\n"
		"     --lost=keep|free  lost clusters: save them in /FOUND.nnn with -y (keep, the default), or free them\n"
		"     --lost-to DIR     with -y: copy each lost chain to a new DIR/FILEnnnn.CHK, then free it\n"
		"     --recheck         after a repair, check the whole volume again (that check gives the exit status)\n"
		"     --budget SECONDS  stop the check after the pass (or directory) where SECONDS run out:\n"
		"                        exit 4, nothing written (default: $FATSCOPE_FSCK_BUDGET, else none)\n"
		" -f, --force           accepted (e2fsck's): every volume is checked anyway\n"
		" -v, --verbose         name each pass\n"
		" -C, --progress FD     fsck(8) progress lines on FD (an open descriptor); 0: a bar on a terminal's stderr\n"
		" -J, --json            JSON output\n"
		"     --explain ID      print what a problem ID means ('list': every ID)\n"
		" -r, -l, -M, -T        accepted as fsck(8) may pass them, ignored\n"), stdout);
	common_options_help(22);
	fputs(_("\nRun as fsck.exfat, also exfatprogs' options:\n"
		" -s                    with -p too: save lost clusters in /FOUND.nnn\n"
		" -b                    check through the backup boot region when the main one is lost\n"
		"                        (fatscope always does)\n"
		"\nRun as fsck.fat, fsck.vfat or fsck.msdos, dosfstools' options:\n"
		" -V                    a verification pass after the repair (--recheck)\n"
		" -l                    list the path of each file and directory\n"
		" -f                    with -p too: save lost clusters in /FOUND.nnn\n"
		" -c PAGE               the code page of 8.3 names (--codepage)\n"
		" -r                    ask on a terminal (the default), else check only\n"
		" -w                    accepted: the repair is written once, in a safe order\n"
		" -t                    accepted: data clusters are not read, so none is marked bad\n"
		"     --version         display version\n"), stdout);
	fputs(_("\nWithout -n, -p or -y and with a terminal on standard input, each fix is asked\n"
		"for: y(es), n(o), a(ll), q(uit: write nothing).\n"
		"\nExit status (fsck(8), a sum): 0 no errors, 1 errors corrected, 4 errors left\n"
		"uncorrected, 8 operational error, 16 usage error, 32 cancelled.\n\n"
		"See fatscope-fsck(8).\n"), stdout);
}

enum { OPT_EXPLAIN = OPT_CMD_BASE, OPT_DRY_RUN, OPT_UNDO, OPT_LOST, OPT_RECHECK, OPT_LOST_TO, OPT_BUDGET };

/* SECONDS: a decimal number, 0 or more (at most a day). */
static int parse_budget(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0 && v <= 86400) || arg[strspn(arg, "0123456789.")])
		return -1;
	*out = v;
	return 0;
}

/* The short options of each name: fatscope fsck's, and the peers' where they differ. */
static const char *short_options(enum fsck_name as)
{
	switch (as) {
	case AS_EXFAT: return "npayfvC:JrlMTsb" COMMON_SHORTOPTS;
	case AS_FAT: return "npayfvC:JrlMTwtc:V" "h";
	default: return "npayfvC:JrlMT" COMMON_SHORTOPTS;
	}
}

/* A short option only some names have (-V as dosfstools', -l, -f, -c, -s, -b, -w, -t): 1 when taken. */
static int name_option(const struct cmd_desc *d, struct fsck_ctl *ctl, int c, const char *arg, int *r)
{
	*r = 0;
	if (ctl->as == AS_FAT) {
		switch (c) {
		case 'V': ctl->recheck = true; return 1;
		case 'l': ctl->list_paths = true; return 1;
		case 'f': ctl->save_lost = true; return 1;
		case 'c': *r = common_option(d, OPT_CODEPAGE, arg, &ctl->sel); return 1;
		case 'w': case 't': return 1;
		default: return 0;
		}
	}
	if (ctl->as == AS_EXFAT && (c == 's' || c == 'b')) {
		ctl->save_lost |= c == 's';
		return 1;
	}
	return 0;
}

/* A descriptor for -C: 0 (a bar), or one open for writing now. */
static int progress_fd(const struct cmd_desc *d, const char *arg, int *out)
{
	unsigned long v;
	int fl;

	if (parse_uint(arg, 1023, &v) < 0)
		return usage_error(d, _("invalid progress descriptor '%s'"), arg);
	fl = v ? fcntl((int)v, F_GETFL) : O_RDONLY;
	if (fl < 0 || (v && (fl & O_ACCMODE) == O_RDONLY))
		return usage_error(d, _("progress descriptor %lu is not open for writing"), v);
	*out = (int)v;
	return 0;
}

static int one_option(const struct cmd_desc *d, struct fsck_ctl *ctl, int c, const char *arg)
{
	int r;

	if (name_option(d, ctl, c, arg, &r))
		return r;
	switch (c) {
	case 'n': case 'p': case 'a': case 'y': {
		enum mode m = c == 'n' ? MODE_CHECK : c == 'y' ? MODE_YES : MODE_PREEN;

		if (ctl->mode_given && ctl->mode != m)
			return usage_error(d, _("-n, -p (-a) and -y exclude one another"));
		ctl->mode = m;
		ctl->mode_given = true;
		return 0;
	}
	/*
	 * -r: e2fsck's "interactive" (asking is the default on a terminal,
	 * -n without); -l, -M, -T are fsck(8)'s own (lock the disk, skip
	 * mounted volumes, no title): fsck(8) has done them already.
	 */
	case 'r': case 'l': case 'M': case 'T': return 0;
	case OPT_DRY_RUN: ctl->dry_run = true; return 0;
	case OPT_UNDO: ctl->undo = arg; return 0;
	case OPT_RECHECK: ctl->recheck = true; return 0;
	case OPT_LOST_TO: ctl->lost_to = arg; ctl->free_lost = ctl->lost_given = true; return 0;
	case OPT_LOST:
		if (strcmp(arg, "free") && strcmp(arg, "keep"))
			return usage_error(d, _("invalid --lost '%s' (keep or free)"), arg);
		ctl->free_lost = strcmp(arg, "free") == 0;
		ctl->lost_given = true;
		return 0;
	case 'f': ctl->force = true; return 0;
	case 'v': ctl->verbose = true; return 0;
	case 'J': ctl->json = true; return 0;
	case 'C': return progress_fd(d, arg, &ctl->progress_fd);
	case OPT_EXPLAIN: ctl->explain = arg; return 0;
	case OPT_BUDGET:
		if (parse_budget(arg, &ctl->budget) < 0)
			return usage_error(d, _("invalid --budget '%s' (seconds, 0 or more)"), arg);
		return 0;
	default:
		return common_option(d, c, arg, &ctl->sel);
	}
}

/* Options that cannot go together, once the mode is known. */
static int check_combination(const struct cmd_desc *d, const struct fsck_ctl *ctl)
{
	if ((ctl->dry_run || ctl->undo) && ctl->mode == MODE_CHECK)
		return usage_error(d, _("--dry-run and --undo need -p, -y or a terminal to ask on"));
	if (ctl->lost_to && ctl->mode == MODE_CHECK)
		return usage_error(d, _("--lost-to needs -y (or a terminal to ask on): -n writes nothing anywhere"));
	if (ctl->save_lost && ctl->free_lost && ctl->lost_given)
		return usage_error(d, _("saving lost clusters (-%c) and freeing them (--lost=free, --lost-to) "
					"exclude one another"), ctl->as == AS_FAT ? 'f' : 's');
	return 0;
}

int fsck_parse_args(const struct cmd_desc *d, struct fsck_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no", no_argument, NULL, 'n' }, { "preen", no_argument, NULL, 'p' },
		{ "yes", no_argument, NULL, 'y' }, { "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' }, { "progress", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' }, { "explain", required_argument, NULL, OPT_EXPLAIN },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN }, { "undo", required_argument, NULL, OPT_UNDO },
		{ "lost", required_argument, NULL, OPT_LOST }, { "recheck", no_argument, NULL, OPT_RECHECK },
		{ "lost-to", required_argument, NULL, OPT_LOST_TO }, { "budget", required_argument, NULL, OPT_BUDGET },
		COMMON_LONGOPTS,
	};
	const char *env = getenv("FATSCOPE_FSCK_BUDGET");
	int c, r;

	for (int idx = -1; (c = getopt_long(argc, argv, short_options(ctl->as), opts, &idx)) != -1; idx = -1) {
		/* --version under dosfstools' names, whose -V is the verification pass */
		if (c == 'V' && idx >= 0)
			r = common_option(d, 'V', NULL, &ctl->sel);
		else
			r = one_option(d, ctl, c, optarg);
		if (r)
			return r;
	}
	if (ctl->explain)
		return 0;
	if (ctl->budget < 0 && env && *env && parse_budget(env, &ctl->budget) < 0)
		return usage_error(d, _("invalid FATSCOPE_FSCK_BUDGET '%s' (seconds, 0 or more)"), env);
	if ((r = check_operands(d, argc, 1, &ctl->sel)))
		return r;
	if (!ctl->mode_given && isatty(STDIN_FILENO) && !ctl->json)
		ctl->mode = MODE_ASK;
	return check_combination(d, ctl);
}
