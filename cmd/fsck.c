// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck.c - fatscope fsck: check and repair an exFAT volume the way fsck(8)
 * expects (options, exit codes, progress).  A repair is the library's plan
 * (fsc_plan_repair): shown with --dry-run, kept in an undo log with
 * --undo, written and read back by fsc_plan_apply; the findings it left
 * decide the exit status, or with --recheck a second check of the volume.
 * Preen checks every volume, marked dirty or not (FAT and exFAT keep no
 * state a check could trust).  The words follow the deeds: a finding is
 * "fixed" only once its bytes were written and read back, "would fix"
 * before (--dry-run), and a mounted volume is refused before the check.
 * Options and help: fsck_args.c; --lost-to's files: fsck_lost.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsck.h"
#include "fsck_progress.h"
#include "json.h"
#include "report.h"

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

/* The deadline of the check: the budget from now (fatscope's start, near enough). */
static void set_deadline(struct fsck_ctl *ctl)
{
	struct timespec ts;

	if (ctl->budget < 0 || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return;
	ctl->deadline = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uint64_t)(ctl->budget * 1e9);
}

/*
 * The exit code from the ledger: errors left make it 4; warnings (advisory
 * fields, VolumeDirty alone) are reported but never fail a check, so a
 * volume fresh from mkfs checks clean.  Findings that could not be kept
 * count as errors.
 */
static int ledger_code(const struct finding_view *fv, unsigned *left)
{
	*left = fv->dropped ? 1 : 0;
	for (size_t i = 0; i < fv->n; i++)
		if (fsc_problem_info(fsc_finding_id(fv->v[i]))->severity >= FSC_SEV_ERROR)
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

static void report_json(const char *path, const struct fsc_probe *p, const struct finding_view *fs,
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
static void report_text(const struct fsck_ctl *ctl, const char *path, const struct finding_view *fs,
			const struct fsc_check_summary *s, int code, unsigned left, bool list, bool before)
{
	char prefix[4200];

	snprintf(prefix, sizeof(prefix), "%s: ", path);
	for (size_t i = 0; list && i < fs->n; i++)
		report_finding_line(stdout, ctl->mode == MODE_PREEN ? prefix : "", fs->v[i]);
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
			warn += fsc_problem_info(fsc_finding_id(fs->v[i]))->severity == FSC_SEV_WARN;
		if (warn)
			printf(P_("%sno errors; %zu warning (advisory: the volume is usable as it is)\n",
				  "%sno errors; %zu warnings (advisory: the volume is usable as it is)\n", warn),
			       prefix, warn);
		return;
	}
	printf(P_("%s%u problem left uncorrected%s\n", "%s%u problems left uncorrected%s\n", left), prefix, left,
	       ctl->mode == MODE_CHECK ? _(" (checked read-only)") :
	       ctl->dry_run ? _(" (--dry-run: nothing written)") : "");
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

/* The interactive mode's answers so far, and where --lost-to writes. */
struct asker {
	bool all, quit;
	struct lost_dir lost;		/* --lost-to */
};

static int lost_out(void *ctx, unsigned chain, uint64_t off, const void *buf, size_t len)
{
	(void)chain;
	return lost_dir_write(&((struct asker *)ctx)->lost, off, buf, len);
}

static bool ask_fix(void *ctx, const struct fsc_finding *f)
{
	struct asker *a = ctx;
	char line[64];

	const struct fsc_problem_info *pi = fsc_problem_info(fsc_finding_id(f));

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

/*
 * The findings of a repair, each with what became of it: "fixed" once
 * the plan was written and read back, "would fix" when it was not
 * (--dry-run), "left" when the plan has no fix for it.
 */
static void repair_findings(const struct fsck_ctl *ctl, const char *path, const struct fsc_findings *fs,
			    bool written, size_t *fixed)
{
	const char *yes = written ? _("fixed") : _("would fix"), *no = _("left");
	size_t width = strlen(no), any = 0;
	char prefix[4200];

	for (size_t i = 0; i < fsc_findings_count(fs); i++)
		any += fsc_finding_planned(fsc_findings_at(fs, i));
	/* the words line up: "fixed " and "left  " as ever, "would fix " and "left      " */
	width = 1 + (strlen(any ? yes : _("fixed")) > width ? strlen(any ? yes : _("fixed")) : width);
	*fixed = 0;
	for (size_t i = 0; i < fsc_findings_count(fs); i++) {
		const struct fsc_finding *f = fsc_findings_at(fs, i);

		snprintf(prefix, sizeof(prefix), "%s%s%-*s", ctl->mode == MODE_PREEN ? path : "",
			 ctl->mode == MODE_PREEN ? ": " : "", (int)width, fsc_finding_planned(f) ? yes : no);
		*fixed += fsc_finding_planned(f);
		if (!ctl->json)
			report_finding_line(stdout, prefix, f);
	}
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
	struct finding_view left_fs = { 0 };
	unsigned left;
	int code;

	/* what is left is what the plan did not fix */
	if (finding_view_add(&left_fs, before, true) < 0) {
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
	finding_view_free(&left_fs);
	return code;
}

/* A volume fsck will not check or repair: with -J, an object that says so (an error member, exit_code 8). */
static int json_refusal(const struct fsck_ctl *ctl, const char *path, const struct fsc_probe *p, bool checked,
			const char *why)
{
	struct json j;

	if (ctl->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "path", path);
		json_str(&j, "type", fsc_type_name(fsc_probe_type(p)));
		json_bool(&j, "checked", checked);
		json_str(&j, "error", why);
		json_int(&j, "exit_code", FSCK_OPERROR);
		json_close(&j, '}');
	}
	return FSCK_OPERROR;
}

/*
 * Write the plan, then say what was fixed; with --recheck, check again:
 * that check is the exit status.  A write refused or failed (one line on
 * standard error) calls nothing fixed.
 */
static int repair_apply(const struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p0,
			struct fsc_plan *plan, const struct fsc_findings *before, const struct fsc_check_summary *s0)
{
	struct repair_json rj = { before, plan, true, ctl->undo };
	struct fsc_check_opts o = FSC_CHECK_OPTS_INIT;
	struct fsc_check_summary s = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings *fs = NULL;
	struct finding_view fv = { 0 };
	struct fsc_probe *p2 = NULL;
	size_t fixed;
	unsigned left;
	int code = volume_apply(&fsck_cmd, path, dev, plan, ctl->undo, N_("repair"));

	if (code)
		return json_refusal(ctl, path, p0, true, "the repair was not written");
	repair_findings(ctl, path, before, true, &fixed);
	if (!ctl->recheck)
		return repair_report(ctl, path, dev, p0, plan, before, s0, fixed);
	if (!(fs = fsc_findings_new()) || fsc_probe_volume(dev, &p2) < 0 || fsc_check(dev, p2, &o, fs, &s) < 0 ||
	    finding_view_add(&fv, fs, false) < 0) {
		errmsg(path, _("cannot check the volume again after the repair"));
		fsc_probe_free(p2);
		fsc_findings_free(fs);
		return FSCK_OPERROR;
	}
	code = FSCK_CORRECTED | ledger_code(&fv, &left);
	if (ctl->json) {
		report_json(path, p2, &fv, &s, true, code, &rj);
	} else {
		print_written(ctl, path, plan, fixed, "", _("\nChecked again:\n"));
		report_text(ctl, path, &fv, &s, code & ~FSCK_CORRECTED, left, true, false);
	}
	fsc_probe_free(p2);
	finding_view_free(&fv);
	fsc_findings_free(fs);
	return code;
}

/* Nothing to write, or --dry-run: the findings (would fix, left), the summary, and the plan. */
static int repair_unwritten(const struct fsck_ctl *ctl, const char *path, struct fsc_probe *p,
			    const struct fsc_plan *plan, const struct fsc_findings *fs,
			    const struct fsc_check_summary *s)
{
	struct finding_view fv = { 0 };
	unsigned left;
	size_t fixed;
	int code;

	if (finding_view_add(&fv, fs, false) < 0) {
		errmsg(path, _("out of memory"));
		return FSCK_OPERROR;
	}
	code = budget_code(s, ledger_code(&fv, &left));
	repair_findings(ctl, path, fs, false, &fixed);
	if (ctl->json)
		report_json(path, p, &fv, s, true, code, &(struct repair_json){ fs, plan, false, NULL });
	else
		report_text(ctl, path, &fv, s, code, left, false, false);
	finding_view_free(&fv);
	if (ctl->json)
		return code;
	if (ctl->dry_run && fsc_plan_count(plan)) {
		printf(P_("%s: %zu change planned, nothing written (--dry-run):\n",
			  "%s: %zu changes planned, nothing written (--dry-run):\n", fsc_plan_count(plan)),
		       path, fsc_plan_count(plan));
		report_plan(stdout, plan);
	}
	return code;
}

/* The repair's options: the level, lost clusters, asking, and --lost-to's directory (opened here). */
static int repair_opts(const struct fsck_ctl *ctl, struct fsc_repair_opts *ro, struct asker *a)
{
	const char *now = getenv("FATSCOPE_NOW");

	*ro = (struct fsc_repair_opts){
		.size = sizeof(*ro),
		.level = ctl->mode == MODE_PREEN ? FSC_REPAIR_PREEN : FSC_REPAIR_ALL,
		.free_lost = ctl->free_lost && !ctl->save_lost,
		.now = now ? strtoll(now, NULL, 10) : (int64_t)time(NULL),
		.preen_saves_lost = ctl->save_lost,
	};
	*a = (struct asker){ .lost = { .dirfd = -1, .fd = -1 } };
	if (ctl->mode == MODE_ASK) {
		ro->ask = ask_fix;
		ro->ctx = a;
	}
	/* --lost-to: the chains go to DIR while planning (not with --dry-run), durable before any write. */
	if (ctl->lost_to && !ctl->dry_run) {
		if (lost_dir_open(&a->lost, ctl->lost_to) < 0) {
			errmsg(ctl->lost_to, _("cannot save lost clusters there: %s"), a->lost.err);
			return -1;
		}
		ro->lost_bytes = lost_out;
		ro->ctx = a;
	}
	return 0;
}

/* -p, -y or asking: plan the repair, then write it, or show it (--dry-run). */
static int repair_volume(struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p)
{
	struct progress pr = { PROGRESS_OFF, -1, path, -1, 0 };
	struct fsc_repair_opts ro;
	struct fsc_check_opts o = FSC_CHECK_OPTS_INIT;
	struct fsc_check_summary s = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings *fs;
	struct fsc_plan *plan;
	struct asker a;
	int r, code;

	if (repair_opts(ctl, &ro, &a) < 0)
		return FSCK_OPERROR;
	plan = fsc_plan_new();
	fs = fsc_findings_new();
	check_opts(ctl, path, &o, &pr);
	r = plan && fs ? fsc_plan_repair(dev, p, &o, &ro, fs, &s, plan) : -ENOMEM;
	progress_done(&pr);
	if (ctl->lost_to && !ctl->dry_run && lost_dir_close(&a.lost) < 0 && r >= 0)
		r = -ECANCELED;
	if (r == -ECANCELED) {
		errmsg(path, _("lost clusters could not be saved to %s (%s): nothing written"), ctl->lost_to,
		       a.lost.err);
		code = FSCK_OPERROR;
	} else if (r < 0) {
		errmsg(path, _("check failed: %s"), strerror(-r));
		code = FSCK_OPERROR;
	} else if (a.quit) {
		printf(_("%s: cancelled, nothing written\n"), path);
		code = FSCK_CANCELLED;
	} else if (fsc_plan_count(plan) == 0 || ctl->dry_run) {
		code = repair_unwritten(ctl, path, p, plan, fs, &s);
	} else {
		code = repair_apply(ctl, path, dev, p, plan, fs, &s);
	}
	fsc_findings_free(fs);
	fsc_plan_free(plan);
	return code;
}

/* fsck.fat -l: each path of the tree, before the check. */
static int list_path(void *ctx, const struct fsc_dirent *d)
{
	(void)ctx;
	if (!d->label) {
		fputs(_("Checking file "), stdout);
		report_escaped(stdout, d->path);
		putchar('\n');
	}
	return 0;
}

static int check_volume(struct fsck_ctl *ctl, const char *path, struct fsc_dev *dev, struct fsc_probe *p)
{
	struct progress pr = { PROGRESS_OFF, -1, path, -1, 0 };
	struct fsc_check_opts o = FSC_CHECK_OPTS_INIT;
	struct fsc_check_summary s = FSC_CHECK_SUMMARY_INIT;
	struct fsc_findings *fs;
	struct finding_view fv = { 0 };
	unsigned left;
	int r, code;

	if (ctl->verbose && !ctl->json && fsc_type_is_fat(fsc_probe_volume_type(p)))
		fputs(_("Pass 1: boot sector\nPass 2: FAT copies\n"
			"Pass 3: directory tree\nPass 4: allocation against the FAT, FSInfo\n"), stderr);
	else if (ctl->verbose && !ctl->json)
		fputs(_("Pass 1: boot region\nPass 2: FAT, allocation bitmap, up-case table\n"
			"Pass 3: directory tree\nPass 4: allocation against the bitmap\n"), stderr);
	if (ctl->list_paths && !ctl->json)
		fsc_walk_tree(dev, p, 0, list_path, NULL);	/* what cannot be walked, the check reports */
	if (ctl->mode != MODE_CHECK)
		return repair_volume(ctl, path, dev, p);
	check_opts(ctl, path, &o, &pr);
	fs = fsc_findings_new();
	r = fs ? fsc_check(dev, p, &o, fs, &s) : -ENOMEM;
	progress_done(&pr);
	if (r >= 0 && finding_view_add(&fv, fs, false) < 0)
		r = -ENOMEM;
	if (r < 0) {
		fsc_findings_free(fs);
		errmsg(path, _("check failed: %s"), strerror(-r));
		return FSCK_OPERROR;
	}
	code = budget_code(&s, ledger_code(&fv, &left));
	if (ctl->json)
		report_json(path, p, &fv, &s, true, code, NULL);
	else
		report_text(ctl, path, &fv, &s, code, left, true, false);
	finding_view_free(&fv);
	fsc_findings_free(fs);
	return code;
}

static int fsck_path(struct fsck_ctl *ctl, const char *path)
{
	bool writes = ctl->mode != MODE_CHECK && !ctl->dry_run;
	char why[2200];
	struct volume v;
	struct fsc_probe *p;
	int code = volume_open(&fsck_cmd, path, &ctl->sel, writes ? VOL_WRITE : 0, &v);

	if (code)
		return code;
	p = v.p;
	if (fsc_probe_type(p) != FSC_TYPE_EXFAT && !fsc_type_is_fat(fsc_probe_type(p)) &&
	    fsc_probe_backup_type(p) == FSC_TYPE_UNKNOWN) {
		errmsg(path, _("not an exFAT or FAT volume (%s); see fatscope probe"), fsc_type_name(fsc_probe_type(p)));
		code = json_refusal(ctl, path, p, false, "not an exFAT or FAT volume");
	} else if (writes && fsc_dev_busy(path, why, sizeof(why)) == -EBUSY) {
		/* a repair of a mounted volume: refused before anything is checked or said fixed */
		errmsg(path, _("%s; unmount it first"), why);
		code = json_refusal(ctl, path, p, false, why);
	} else {
		code = check_volume(ctl, path, v.dev, p);
	}
	volume_close(&v);
	return code;
}

static int run_fsck(const struct cmd_desc *d, enum fsck_name as, int argc, char **argv)
{
	struct fsck_ctl ctl = { .as = as, .mode = MODE_CHECK, .progress_fd = -1, .budget = -1 };
	int r = fsck_parse_args(d, &ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(FSCK_OK, FSCK_OPERROR) : r;
	set_deadline(&ctl);
	if (ctl.explain)
		return explain(ctl.explain);
	r = fsck_path(&ctl, argv[optind]);
	return close_stdout_checked(r, FSCK_OPERROR);
}

static int cmd_fsck(int argc, char **argv)
{
	return run_fsck(&fsck_cmd, AS_FATSCOPE, argc, argv);
}

static int cmd_fsck_exfat(int argc, char **argv)
{
	return run_fsck(&fsck_exfat_cmd, AS_EXFAT, argc, argv);
}

static int cmd_fsck_fat(int argc, char **argv)
{
	return run_fsck(&fsck_fat_cmd, AS_FAT, argc, argv);
}

/* A volume too small for a boot sector is an operational error to fsck(8)'s callers. */
const struct cmd_desc fsck_cmd = {
	.name = "fsck", .summary = N_("check and repair exFAT and FAT volumes (fsck(8) options and exit codes)"),
	.run = cmd_fsck, .help = fsck_help,
	.usage = FSCK_USAGE, .operror = FSCK_OPERROR, .too_small = FSCK_OPERROR,
};

/* fatscope run as fsck.exfat, and as fsck.fat, fsck.vfat or fsck.msdos: the peers' own options too. */
const struct cmd_desc fsck_exfat_cmd = {
	.name = "fsck", .summary = N_("check and repair exFAT and FAT volumes (fsck(8) options and exit codes)"),
	.run = cmd_fsck_exfat, .help = fsck_help,
	.usage = FSCK_USAGE, .operror = FSCK_OPERROR, .too_small = FSCK_OPERROR,
};

const struct cmd_desc fsck_fat_cmd = {
	.name = "fsck", .summary = N_("check and repair exFAT and FAT volumes (fsck(8) options and exit codes)"),
	.run = cmd_fsck_fat, .help = fsck_help,
	.usage = FSCK_USAGE, .operror = FSCK_OPERROR, .too_small = FSCK_OPERROR,
};
