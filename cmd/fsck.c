// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck.c - fatscope fsck: check and repair an exFAT volume the way fsck(8)
 * expects (options, exit codes, progress).  A repair is the library's plan
 * (fsc_plan_repair): shown with --dry-run, kept in an undo log with
 * --undo, written and read back by fsc_plan_apply; the findings it left
 * decide the exit status, or with --recheck a second check of the volume.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fsck_progress.h"
#include "json.h"
#include "report.h"

enum mode { MODE_CHECK, MODE_PREEN, MODE_YES, MODE_ASK };

struct fsck_ctl {
	enum mode mode;
	bool mode_given;
	bool force, verbose, json, dry_run, free_lost, recheck;
	const char *undo;
	const char *lost_to;		/* --lost-to DIR */
	int progress_fd;		/* -1: none */
	struct vol_select sel;
	const char *explain;
	double budget;			/* --budget SECONDS (or FATSCOPE_FSCK_BUDGET); < 0: none */
	uint64_t deadline;		/* CLOCK_MONOTONIC ns the check must end by; 0: none */
};

static void fsck_help(void)
{
	fputs(_("Usage:\n"
		" fatscope fsck [options] DEVICE|IMAGE\n"
		" fatscope fsck --explain PROBLEM-ID\n\n"
		"Check and repair an exFAT or FAT12/16/32 volume (FAT repair covers part of the checks so far).\n\n"
		"Options:\n"
		" -n, --no              check only, answer no to every repair (default without a terminal)\n"
		" -p, -a, --preen       repair what is safe: no data lost, no choice to make\n"
		" -y, --yes             repair everything fatscope can repair\n"
		"     --dry-run         with -p or -y: print the repair plan, write nothing\n"
		"     --undo FILE       keep every overwritten byte in FILE (see fatscope undo)\n"
		"     --lost=keep|free  lost clusters: save them in /FOUND.nnn with -y (keep, the default), or free them\n"
		"     --lost-to DIR     with -y: copy each lost chain to DIR/FILEnnnn.CHK, then free it\n"
		"     --recheck         after a repair, check the whole volume again (that check gives the exit status)\n"
		"     --budget SECONDS  stop the check after the pass (or directory) where SECONDS run out:\n"
		"                        exit 4, nothing written (default: $FATSCOPE_FSCK_BUDGET, else none)\n"
		" -f, --force           check fully even in preen mode on a clean volume\n"
		" -v, --verbose         name each pass\n"
		" -C, --progress FD     fsck(8) progress lines on FD; 0: a bar on a terminal's stderr\n"
		" -J, --json            JSON output\n"
		"     --explain ID      print what a problem ID means ('list': every ID)\n"
		" -r, -l, -M, -T        accepted as fsck(8) may pass them, ignored\n"), stdout);
	common_options_help(22);
	fputs(_("\nWithout -n, -p or -y and with a terminal on standard input, each fix is asked\n"
		"for: y(es), n(o), a(ll), q(uit: write nothing).\n"
		"\nExit status (fsck(8), a sum): 0 no errors, 1 errors corrected, 4 errors left\n"
		"uncorrected, 8 operational error, 16 usage error, 32 cancelled.\n\n"
		"See fatscope-fsck(8).\n"), stdout);
}

static int explain(const char *arg)
{
	char id[64];
	size_t n = 0;
	int i;
	const struct fsc_problem_info *pi;

	if (strcmp(arg, "list") == 0) {	/* every ID, one a line (the bash completion reads them) */
		for (i = 0; i < FSC_PR_COUNT; i++)
			if ((pi = fsc_problem_info((enum fsc_problem)i)))	/* (a retired code has none) */
				puts(pi->name);
		return close_stdout_checked(FSCK_OK, FSCK_OPERROR);
	}
	/* IDs are upper case; any case is accepted */
	for (; arg[n] && n + 1 < sizeof(id); n++)
		id[n] = (char)(arg[n] >= 'a' && arg[n] <= 'z' ? arg[n] - 32 : arg[n]);
	id[n] = '\0';
	i = arg[n] ? -1 : fsc_problem_lookup(id);

	if (i < 0)
		return usage_error(&fsck_cmd, _("unknown problem ID '%s'"), arg);
	pi = fsc_problem_info((enum fsc_problem)i);
	printf(_("%s\n  severity: %s\n  message:  %s\n  fix:      %s%s%s\n  repair:   %s\n  %s\n"), pi->name,
	       fsc_severity_name(pi->severity), pi->message, fsc_fix_name(pi->fix),
	       pi->preen ? _(" (safe for -p)") : "", pi->data_loss ? _(" (may cut file data)") : "", pi->repair,
	       pi->explanation);
	return close_stdout_checked(FSCK_OK, FSCK_OPERROR);
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

/* The deadline of the check: the budget from now (fatscope's start, near enough). */
static void set_deadline(struct fsck_ctl *ctl)
{
	struct timespec ts;

	if (ctl->budget < 0 || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return;
	ctl->deadline = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uint64_t)(ctl->budget * 1e9);
}

static int parse_args(struct fsck_ctl *ctl, int argc, char **argv)
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
	unsigned long v;
	int c, r;

	while ((c = getopt_long(argc, argv, "npayfvC:JrlMT" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'n': case 'p': case 'a': case 'y': {
			enum mode m = c == 'n' ? MODE_CHECK : c == 'y' ? MODE_YES : MODE_PREEN;

			if (ctl->mode_given && ctl->mode != m)
				return usage_error(&fsck_cmd, _("-n, -p (-a) and -y exclude one another"));
			ctl->mode = m;
			ctl->mode_given = true;
			break;
		}
		/*
		 * -r: e2fsck's "interactive" (asking is the default on a terminal,
		 * -n without); -l, -M, -T are fsck(8)'s own (lock the disk, skip
		 * mounted volumes, no title): fsck(8) has done them already.
		 */
		case 'r': case 'l': case 'M': case 'T': break;
		case OPT_DRY_RUN: ctl->dry_run = true; break;
		case OPT_UNDO: ctl->undo = optarg; break;
		case OPT_RECHECK: ctl->recheck = true; break;
		case OPT_LOST_TO: ctl->lost_to = optarg; ctl->free_lost = true; break;
		case OPT_LOST:
			if (strcmp(optarg, "free") && strcmp(optarg, "keep"))
				return usage_error(&fsck_cmd, _("invalid --lost '%s' (keep or free)"), optarg);
			ctl->free_lost = strcmp(optarg, "free") == 0;
			break;
		case 'f': ctl->force = true; break;
		case 'v': ctl->verbose = true; break;
		case 'J': ctl->json = true; break;
		case 'C':
			if (parse_uint(optarg, 1023, &v) < 0)
				return usage_error(&fsck_cmd, _("invalid progress descriptor '%s'"), optarg);
			ctl->progress_fd = (int)v;
			break;
		case OPT_EXPLAIN: ctl->explain = optarg; break;
		case OPT_BUDGET:
			if (parse_budget(optarg, &ctl->budget) < 0)
				return usage_error(&fsck_cmd, _("invalid --budget '%s' (seconds, 0 or more)"), optarg);
			break;
		default:
			if ((r = common_option(&fsck_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if (ctl->explain)
		return 0;
	if (ctl->budget < 0 && getenv("FATSCOPE_FSCK_BUDGET") && *getenv("FATSCOPE_FSCK_BUDGET") &&
	    parse_budget(getenv("FATSCOPE_FSCK_BUDGET"), &ctl->budget) < 0)
		return usage_error(&fsck_cmd, _("invalid FATSCOPE_FSCK_BUDGET '%s' (seconds, 0 or more)"),
				   getenv("FATSCOPE_FSCK_BUDGET"));
	if ((r = check_operands(&fsck_cmd, argc, 1, &ctl->sel)))
		return r;
	if (!ctl->mode_given && isatty(STDIN_FILENO) && !ctl->json)
		ctl->mode = MODE_ASK;
	if ((ctl->dry_run || ctl->undo) && ctl->mode == MODE_CHECK)
		return usage_error(&fsck_cmd, _("--dry-run and --undo need -p, -y or a terminal to ask on"));
	return 0;
}

/*
 * The exit code from the ledger: errors left make it 4; warnings (advisory
 * fields, VolumeDirty alone) are reported but never fail a check, so a
 * volume fresh from mkfs checks clean.  Findings that could not be kept
 * count as errors.
 */
static int ledger_code(const struct fsc_findings *fs, unsigned *left)
{
	*left = fs->dropped ? 1 : 0;
	for (size_t i = 0; i < fs->n; i++)
		if (fsc_problem_info(fs->v[i].id)->severity >= FSC_SEV_ERROR)
			(*left)++;
	return *left ? FSCK_UNCORRECTED : FSCK_OK;
}

/* A check the budget cut short is not clean, whatever it found. */
static int budget_code(const struct fsc_check_summary *s, int code)
{
	return s->incomplete ? code | FSCK_UNCORRECTED : code;
}

/* The one line that says what the budget left unchecked. */
static void incomplete_text(const struct fsck_ctl *ctl, const char *prefix, const struct fsc_check_summary *s)
{
	char passes[40];

	if (s->incomplete < s->npasses)
		snprintf(passes, sizeof(passes), _("passes %d-%d"), s->incomplete, s->npasses);
	else
		snprintf(passes, sizeof(passes), _("pass %d"), s->incomplete);
	printf(_("%sbudget of %g s ran out: %s of %d not checked%s; not known to be clean\n"), prefix, ctl->budget,
	       passes, s->npasses, s->incomplete_partly ? _(" (the first of them in part, up to a directory)") : "");
}

/* The summary line; before: it is the check's from before a repair. */
static void summary_text(const char *path, const struct fsc_check_summary *s, bool before)
{
	uint64_t objects = s->files + s->dirs + 1;

	printf("%s: %s", path, before ? _("before the repair: ") : "");
	printf(P_("%llu file, ", "%llu files, ", s->files), (unsigned long long)s->files);
	printf(P_("%llu directory, ", "%llu directories, ", s->dirs), (unsigned long long)s->dirs);
	printf(_("%llu/%llu clusters used (%.1f%% non-contiguous)"),
	       (unsigned long long)s->clusters_marked, (unsigned long long)s->clusters_total,
	       100.0 * (double)s->fragmented / (double)objects);
	/* -p reads each directory to its end marker: the rest is a full check's (-n, -y). */
	if (s->dirs_to_end_marker)
		printf(P_(", %llu directory read to the end marker only", ", %llu directories read to the end marker only",
			  s->dirs_to_end_marker), (unsigned long long)s->dirs_to_end_marker);
	putchar('\n');
}

/* What a repair did, for report_json; NULL for a check. */
struct repair_json {
	const struct fsc_findings *before;
	const struct fsc_plan *plan;
	bool written;
	const char *undo;
};

static void report_json(const char *path, const struct fsc_probe *p, const struct fsc_findings *fs,
			const struct fsc_check_summary *s, bool checked, int code, const struct repair_json *rj)
{
	struct json j;

	json_init(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "path", path);
	json_str(&j, "type", fsc_type_name(fsc_probe_volume_type(p)));
	json_bool(&j, "checked", checked);
	report_findings_json(&j, fs);
	json_open(&j, "summary", '{');
	json_u64(&j, "files", s->files);
	json_u64(&j, "directories", s->dirs);
	json_u64(&j, "clusters_total", s->clusters_total);
	json_u64(&j, "clusters_used", s->clusters_used);
	json_u64(&j, "clusters_marked", s->clusters_marked);
	json_u64(&j, "lost_clusters", s->lost_clusters);
	json_u64(&j, "fragmented", s->fragmented);
	if (s->dirs_to_end_marker)	/* (-p) */
		json_u64(&j, "dirs_to_end_marker", s->dirs_to_end_marker);
	json_u64(&j, "findings_not_listed", s->suppressed);
	if (s->incomplete) {
		json_int(&j, "not_checked_from_pass", s->incomplete);
		json_bool(&j, "pass_checked_in_part", s->incomplete_partly);
	}
	json_close(&j, '}');
	if (rj)
		report_repair_json(&j, rj->before, rj->plan, rj->written, rj->undo);
	json_int(&j, "exit_code", code);
	json_close(&j, '}');
}

/* The findings (unless list is false: shown already), the summary and the closing line. */
static void report_text(const struct fsck_ctl *ctl, const char *path, const struct fsc_findings *fs,
			const struct fsc_check_summary *s, int code, unsigned left, bool list, bool before)
{
	char prefix[4200];

	snprintf(prefix, sizeof(prefix), "%s: ", path);
	for (size_t i = 0; list && i < fs->n; i++)
		report_finding_line(stdout, ctl->mode == MODE_PREEN ? prefix : "", &fs->v[i]);
	if (s->suppressed)
		printf(_("%s%llu more findings of the same kinds not listed\n"), prefix,
		       (unsigned long long)s->suppressed);
	summary_text(path, s, before);
	if (s->incomplete) {
		incomplete_text(ctl, prefix, s);
		if (!left)
			return;
	}
	if (code == FSCK_OK) {
		size_t warn = 0;

		for (size_t i = 0; i < fs->n; i++)
			warn += fsc_problem_info(fs->v[i].id)->severity == FSC_SEV_WARN;
		if (warn)
			printf(P_("%sno errors; %zu warning (advisory: the volume is usable as it is)\n",
				  "%sno errors; %zu warnings (advisory: the volume is usable as it is)\n", warn),
			       prefix, warn);
		return;
	}
	printf(P_("%s%u problem left uncorrected%s\n", "%s%u problems left uncorrected%s\n", left), prefix, left,
	       ctl->mode == MODE_CHECK ? _(" (checked read-only)") : "");
}

/* The check's options: threads, progress. */
static void check_opts(const struct fsck_ctl *ctl, const char *path, struct fsc_check_opts *o,
		       struct progress *pr)
{
	const char *threads = getenv("FATSCOPE_THREADS");

	/* FATSCOPE_THREADS=1: no second thread (for timing, or a debugger). */
	if (threads && strcmp(threads, "1") == 0)
		o->threads = 1;
	o->deadline = ctl->deadline;
	/* Preen (fsck(8) at boot, automounters): each directory read only to its end marker. */
	o->to_end_marker = ctl->mode == MODE_PREEN;
	if (ctl->progress_fd == 0 && isatty(STDERR_FILENO) && !ctl->json)
		pr->mode = PROGRESS_BAR;
	else if (ctl->progress_fd > 0)
		*pr = (struct progress){ PROGRESS_FD, ctl->progress_fd, path, -1, 0 };
	if (pr->mode != PROGRESS_OFF) {
		o->progress = progress_update;
		o->ctx = pr;
	}
}

/* Preen without -f: a volume not marked dirty with a sound boot region is clean. */
static bool preen_skip(const struct fsck_ctl *ctl, const struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = fsc_probe_exfat(p);	/* NULL: a lost main region */

	return ctl->mode == MODE_PREEN && !ctl->force && ex && !(ex->volume_flags & 2) &&
	       fsc_findings_worst(fsc_probe_findings(p)) < FSC_SEV_WARN;
}

/* The interactive mode's answers so far, and where --lost-to writes. */
struct asker {
	bool all, quit;
	const char *lost_to;
	int dirfd, fd;			/* -1: not open */
	unsigned files;
};

/* --lost-to DIR: lost chain n becomes DIR/FILEnnnn.CHK (a new file), written as the planner reads it. */
static int lost_out(void *ctx, unsigned chain, uint64_t off, const void *buf, size_t len)
{
	struct asker *a = ctx;
	const uint8_t *p = buf;
	char name[32];

	if (off == 0) {
		if (a->fd >= 0 && (fsync(a->fd) < 0 || close(a->fd) < 0)) {
			a->fd = -1;
			errmsg(a->lost_to, _("cannot write FILE%04u.CHK: %s"), chain - 1, strerror(errno));
			return -1;
		}
		snprintf(name, sizeof(name), "FILE%04u.CHK", chain);
		a->fd = openat(a->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (a->fd < 0) {
			errmsg(a->lost_to, _("cannot create %s: %s"), name, strerror(errno));
			return -1;
		}
		a->files++;
	}
	while (len) {
		ssize_t w = pwrite(a->fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errmsg(a->lost_to, _("cannot write FILE%04u.CHK: %s"), chain, w < 0 ? strerror(errno) : _("no space"));
			return -1;
		}
		p += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

/* The files of --lost-to durable (the last one, and their names), before anything frees their clusters. */
static int lost_out_close(struct asker *a)
{
	int bad = 0;

	if (a->fd >= 0 && (fsync(a->fd) < 0 || close(a->fd) < 0))
		bad = errno ? errno : EIO;
	if (a->dirfd >= 0 && fsync(a->dirfd) < 0 && errno != EINVAL)
		bad = errno;
	if (a->dirfd >= 0)
		close(a->dirfd);
	a->fd = a->dirfd = -1;
	if (bad)
		errmsg(a->lost_to, _("cannot make the saved lost chains durable: %s"), strerror(bad));
	return bad ? -1 : 0;
}

static bool ask_fix(void *ctx, const struct fsc_finding *f)
{
	struct asker *a = ctx;
	char line[64];

	const struct fsc_problem_info *pi = fsc_problem_info(f->id);

	if (a->all || a->quit)
		return a->all;
	report_finding_line(stderr, "", f);
	/* what the fix does (the plan's edits come from it), and whether file data may be cut */
	fprintf(stderr, _("  fix: %s%s\n"), pi->repair, pi->data_loss ? _(" (may cut file data)") : "");
	for (;;) {
		/* TRANSLATORS: the answers read are y, n, a and q, in any language. */
		fputs(_("Fix? [y/n/a/q] "), stderr);
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin)) {
			a->quit = true;
			return false;
		}
		switch (line[0]) {
		case 'y': case 'Y': return true;
		case 'n': case 'N': return false;
		case 'a': case 'A': a->all = true; return true;
		case 'q': case 'Q': a->quit = true; return false;
		default: break;
		}
	}
}

/* The findings of a repair: each with "fixed" or "left" before it. */
static void repair_findings(const struct fsck_ctl *ctl, const char *path, const struct fsc_findings *fs,
			    size_t *fixed)
{
	char prefix[4200];

	*fixed = 0;
	for (size_t i = 0; i < fs->n; i++) {
		snprintf(prefix, sizeof(prefix), "%s%s%-6s", ctl->mode == MODE_PREEN ? path : "",
			 ctl->mode == MODE_PREEN ? ": " : "", fs->v[i].planned ? _("fixed") : _("left"));
		*fixed += fs->v[i].planned;
		if (!ctl->json)
			report_finding_line(stdout, prefix, &fs->v[i]);
	}
}

/* The findings the repair left (not planned), for the report and the exit status. */
static int left_findings(const struct fsc_findings *before, struct fsc_findings *out)
{
	*out = (struct fsc_findings){ 0 };
	out->dropped = before->dropped;
	out->v = calloc(before->n ? before->n : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < before->n; i++)
		if (!before->v[i].planned)
			out->v[out->n++] = before->v[i];	/* borrowed: not freed here */
	return 0;
}

/* "N problems fixed, M changes written" (how: after "written"), the undo command, then end. */
static void print_written(const struct fsck_ctl *ctl, const char *path, const struct fsc_plan *plan, size_t fixed,
			  const char *how, const char *end)
{
	printf(P_("%s: %zu problem fixed, ", "%s: %zu problems fixed, ", fixed), path, fixed);
	printf(P_("%zu change written%s", "%zu changes written%s", fsc_plan_count(plan)), fsc_plan_count(plan), how);
	if (ctl->undo)
		printf(_("; undo with: fatscope undo %s %s"), ctl->undo, path);
	fputs(end, stdout);
}

/*
 * Written and read back (fsc_plan_apply): what is left is what the plan
 * did not fix; the summary is the check's, from before the repair.
 */
static int repair_report(const struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p,
			 struct fsc_plan *plan,
			 const struct fsc_findings *before, const struct fsc_check_summary *s, size_t fixed)
{
	struct repair_json rj = { before, plan, true, ctl->undo };
	struct fsc_findings left_fs;
	unsigned left;
	int code;

	if (left_findings(before, &left_fs) < 0) {
		errmsg(path, _("out of memory"));
		return FSCK_OPERROR;
	}
	code = FSCK_CORRECTED | ledger_code(&left_fs, &left);
	if (ctl->json) {
		struct fsc_probe *now = NULL;	/* the type as written (a lost main region restored) */

		report_json(path, fsc_probe_volume(dev, &now) == 0 ? now : p, &left_fs, s, true, code, &rj);
		fsc_probe_free(now);
	} else {
		print_written(ctl, path, plan, fixed, _(" and read back"), "\n");
		report_text(ctl, path, &left_fs, s, code & ~FSCK_CORRECTED, left, false, true);
	}
	free(left_fs.v);
	return code;
}

/* Write the plan; with --recheck, check again: that check is the exit status. */
static int repair_apply(const struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p0,
			struct fsc_plan *plan, const struct fsc_findings *before, const struct fsc_check_summary *s0,
			size_t fixed)
{
	struct repair_json rj = { before, plan, true, ctl->undo };
	struct fsc_check_opts o = { 0 };
	struct fsc_check_summary s = { 0 };
	struct fsc_findings fs = { 0 };
	struct fsc_probe *p2 = NULL;
	unsigned left;
	int code = volume_apply(&fsck_cmd, path, dev, plan, ctl->undo, N_("repair"));

	if (code)
		return code;
	if (!ctl->recheck)
		return repair_report(ctl, path, dev, p0, plan, before, s0, fixed);
	if (fsc_probe_volume(dev, &p2) < 0 || fsc_check(dev, p2, &o, &fs, &s) < 0) {
		errmsg(path, _("cannot check the volume again after the repair"));
		fsc_probe_free(p2);
		fsc_findings_free(&fs);
		return FSCK_OPERROR;
	}
	code = FSCK_CORRECTED | ledger_code(&fs, &left);
	if (ctl->json) {
		report_json(path, p2, &fs, &s, true, code, &rj);
	} else {
		print_written(ctl, path, plan, fixed, "", _("\nChecked again:\n"));
		report_text(ctl, path, &fs, &s, code & ~FSCK_CORRECTED, left, true, false);
	}
	fsc_probe_free(p2);
	fsc_findings_free(&fs);
	return code;
}

/* -p, -y or asking: plan the repair, show it, write it. */
static int repair_volume(struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p)
{
	struct progress pr = { PROGRESS_OFF, -1, path, -1, 0 };
	const char *now = getenv("FATSCOPE_NOW");
	struct fsc_repair_opts ro = { ctl->mode == MODE_PREEN ? FSC_REPAIR_PREEN : FSC_REPAIR_ALL, ctl->free_lost,
				      now ? strtoll(now, NULL, 10) : (int64_t)time(NULL), NULL, NULL, NULL };
	struct fsc_check_opts o = { 0 };
	struct fsc_check_summary s = { 0 };
	struct fsc_findings fs = { 0 };
	struct fsc_plan *plan = fsc_plan_new();
	struct asker a = { false, false, ctl->lost_to, -1, -1, 0 };
	size_t fixed;
	unsigned left;
	int r, code;

	if (ctl->mode == MODE_ASK) {
		ro.ask = ask_fix;
		ro.ctx = &a;
	}
	/* --lost-to: the chains go to DIR while planning (not with --dry-run), durable before any write. */
	if (ctl->lost_to && !ctl->dry_run) {
		a.dirfd = open(ctl->lost_to, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (a.dirfd < 0) {
			errmsg(ctl->lost_to, _("cannot open the --lost-to directory: %s"), strerror(errno));
			fsc_plan_free(plan);
			return FSCK_OPERROR;
		}
		ro.lost_bytes = lost_out;
		ro.ctx = &a;
	}
	check_opts(ctl, path, &o, &pr);
	r = plan ? fsc_plan_repair(dev, p, &o, &ro, &fs, &s, plan) : -ENOMEM;
	progress_done(&pr);
	if (a.dirfd >= 0 && lost_out_close(&a) < 0 && r >= 0)
		r = -ECANCELED;
	if (r == -ECANCELED) {
		errmsg(path, _("lost clusters could not be saved to %s: nothing written"), ctl->lost_to);
		code = FSCK_OPERROR;
	} else if (r < 0) {
		errmsg(path, _("check failed: %s"), strerror(-r));
		code = FSCK_OPERROR;
	} else if (a.quit) {
		printf(_("%s: cancelled, nothing written\n"), path);
		code = FSCK_CANCELLED;
	} else if (repair_findings(ctl, path, &fs, &fixed), fsc_plan_count(plan) == 0 || ctl->dry_run) {
		code = budget_code(&s, ledger_code(&fs, &left));
		if (ctl->json)
			report_json(path, p, &fs, &s, true, code, &(struct repair_json){ &fs, plan, false, NULL });
		else
			report_text(ctl, path, &fs, &s, code, left, false, false);
		if (ctl->dry_run && fsc_plan_count(plan) && !ctl->json) {
			printf(P_("%s: %zu change planned, nothing written (--dry-run):\n",
				  "%s: %zu changes planned, nothing written (--dry-run):\n", fsc_plan_count(plan)),
			       path, fsc_plan_count(plan));
			report_plan(stdout, plan);
		}
	} else {
		code = repair_apply(ctl, path, dev, p, plan, &fs, &s, fixed);
	}
	fsc_findings_free(&fs);
	fsc_plan_free(plan);
	return code;
}

static int check_volume(struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p)
{
	struct progress pr = { PROGRESS_OFF, -1, path, -1, 0 };
	struct fsc_check_opts o = { 0 };
	struct fsc_check_summary s = { 0 };
	struct fsc_findings fs = { 0 };
	unsigned left;
	int r, code;

	if (ctl->verbose && !ctl->json && fsc_type_is_fat(fsc_probe_volume_type(p)))
		fputs(_("Pass 1: boot sector\nPass 2: FAT copies\n"
			"Pass 3: directory tree\nPass 4: allocation against the FAT, FSInfo\n"), stderr);
	else if (ctl->verbose && !ctl->json)
		fputs(_("Pass 1: boot region\nPass 2: FAT, allocation bitmap, up-case table\n"
			"Pass 3: directory tree\nPass 4: allocation against the bitmap\n"), stderr);
	if (preen_skip(ctl, p)) {
		code = ledger_code(fsc_probe_findings(p), &left);
		if (ctl->json)
			report_json(path, p, fsc_probe_findings(p), &s, false, code, NULL);
		else
			printf(_("%s: clean (not marked dirty; -f checks fully)\n"), path);
		return code;
	}
	if (ctl->mode != MODE_CHECK)
		return repair_volume(ctl, path, dev, p);
	check_opts(ctl, path, &o, &pr);
	r = fsc_check(dev, p, &o, &fs, &s);
	progress_done(&pr);
	if (r < 0) {
		fsc_findings_free(&fs);
		errmsg(path, _("check failed: %s"), strerror(-r));
		return FSCK_OPERROR;
	}
	code = budget_code(&s, ledger_code(&fs, &left));
	if (ctl->json)
		report_json(path, p, &fs, &s, true, code, NULL);
	else
		report_text(ctl, path, &fs, &s, code, left, true, false);
	fsc_findings_free(&fs);
	return code;
}

/* A volume fsck will not check: with -J, an object that says so (an error member, exit_code 8). */
static int json_refusal(const struct fsck_ctl *ctl, const char *path, const struct fsc_probe *p, const char *why)
{
	struct json j;

	if (ctl->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "path", path);
		json_str(&j, "type", fsc_type_name(fsc_probe_type(p)));
		json_bool(&j, "checked", false);
		json_str(&j, "error", why);
		json_int(&j, "exit_code", FSCK_OPERROR);
		json_close(&j, '}');
	}
	return FSCK_OPERROR;
}

static int fsck_path(struct fsck_ctl *ctl, const char *path)
{
	struct volume v;
	struct fsc_probe *p;
	int code = volume_open(&fsck_cmd, path, &ctl->sel,
			       ctl->mode != MODE_CHECK && !ctl->dry_run ? VOL_WRITE : 0, &v);

	if (code)
		return code;
	p = v.p;
	if (fsc_probe_type(p) == FSC_TYPE_EXFAT || fsc_type_is_fat(fsc_probe_type(p)) ||
	    fsc_probe_backup_type(p) != FSC_TYPE_UNKNOWN) {
		code = check_volume(ctl, path, v.dev, p);
	} else {
		errmsg(path, _("not an exFAT or FAT volume (%s); see fatscope probe"), fsc_type_name(fsc_probe_type(p)));
		code = json_refusal(ctl, path, p, "not an exFAT or FAT volume");
	}
	volume_close(&v);
	return code;
}

static int cmd_fsck(int argc, char **argv)
{
	struct fsck_ctl ctl = { .mode = MODE_CHECK, .progress_fd = -1, .budget = -1 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(FSCK_OK, FSCK_OPERROR) : r;
	set_deadline(&ctl);
	if (ctl.explain)
		return explain(ctl.explain);
	r = fsck_path(&ctl, argv[optind]);
	return close_stdout_checked(r, FSCK_OPERROR);
}

/* A volume too small for a boot sector is an operational error to fsck(8)'s callers. */
const struct cmd_desc fsck_cmd = {
	.name = "fsck", .summary = N_("check and repair exFAT and FAT volumes (fsck(8) options and exit codes)"),
	.run = cmd_fsck, .help = fsck_help,
	.usage = FSCK_USAGE, .operror = FSCK_OPERROR, .too_small = FSCK_OPERROR,
};
