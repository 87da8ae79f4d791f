// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ls.c - fatscope ls: one directory of an exFAT or FAT volume (or one
 * file) in the manner of ls(1), read-only: names sorted, hidden entries
 * (the Hidden attribute, a leading dot) with -a only, -l with attributes,
 * size, first cluster and modification time, -R every directory below,
 * --deleted the deleted entries with how much of each is left; -J JSON.
 * Names are bytes from the disk: escaped in text (report.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "entry.h"
#include "json.h"
#include "report.h"

struct ls_ent {
	struct fsc_dirent d;		/* path and name point to the strings below */
	char *path, *name, *parent;
};

struct ls_ctl {
	bool longlist, all, recursive, deleted, json;
	struct vol_select sel;
	const char *image, *path;
	struct ls_ent *v;
	size_t n, cap;
	size_t *hidden;			/* ids of hidden directories (their entries are hidden too) */
	size_t nhidden, caphidden;
	int err;			/* -ENOMEM while collecting */
	bool looped;			/* a directory's chain came back to a cluster read already */
};

static void ls_help(void)
{
	fputs(_("Usage:\n"
		" fatscope ls [options] DEVICE|IMAGE [PATH]\n\n"
		"List a directory (or a file) of an exFAT or FAT volume, as ls(1) does (read-only).\n\n"
		"Options:\n"
		" -l, --long             attributes, size, first cluster and modification time\n"
		" -a, --all              also hidden entries (Hidden attribute, a leading dot)\n"
		" -R, --recursive        every directory below, each under its path\n"
		" -d, --deleted          also deleted entries, with how much of each is left\n"
		" -J, --json             JSON output\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 listed, 2 not an exFAT or FAT volume, 4 a directory's chain loops or is\n"
		"shared (each entry listed once), 8 operational error (also: no such path), 16 usage.\n\n"
		"See fatscope-ls(8).\n"), stdout);
}

static int parse_args(struct ls_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "long", no_argument, NULL, 'l' }, { "all", no_argument, NULL, 'a' },
		{ "recursive", no_argument, NULL, 'R' }, { "deleted", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'J' },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "laRdJ" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'l': ctl->longlist = true; break;
		case 'a': ctl->all = true; break;
		case 'R': ctl->recursive = true; break;
		case 'd': ctl->deleted = true; break;
		case 'J': ctl->json = true; break;
		default:
			if ((r = common_option(&ls_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&ls_cmd, argc, 2, &ctl->sel)))
		return r;
	ctl->image = argv[optind];
	ctl->path = optind + 1 < argc ? argv[optind + 1] : "/";
	return 0;
}

static bool is_hidden(struct ls_ctl *ctl, const struct fsc_dirent *d)
{
	for (size_t i = 0; i < ctl->nhidden; i++)
		if (ctl->hidden[i] == d->parent_id)
			return true;
	return (d->attr & 0x02) || d->name[0] == '.';
}

/* Keep a copy of d (its strings too), or skip it. */
static int collect(void *vctx, const struct fsc_dirent *d)
{
	struct ls_ctl *ctl = vctx;
	struct ls_ent *e;
	size_t cut;

	if (d->label)
		return 0;
	if (!ctl->all && is_hidden(ctl, d)) {
		if (d->id && grow_array((void **)&ctl->hidden, &ctl->caphidden, ctl->nhidden + 1, sizeof(size_t)))
			ctl->hidden[ctl->nhidden++] = d->id;
		return 0;
	}
	if (!grow_array((void **)&ctl->v, &ctl->cap, ctl->n + 1, sizeof(*ctl->v)))
		return ctl->err = -ENOMEM;
	e = &ctl->v[ctl->n];
	e->d = *d;
	e->path = strdup(d->path);
	e->name = strdup(d->name);
	/* the path less "/name" (a name may hold a '/' of its own): "/a/b" -> "/a", "/a" -> "/" */
	cut = strlen(d->path) > strlen(d->name) + 1 ? strlen(d->path) - strlen(d->name) - 1 : 1;
	e->parent = strndup(d->path, cut);
	if (!e->path || !e->name || !e->parent) {
		free(e->path), free(e->name), free(e->parent);
		return ctl->err = -ENOMEM;
	}
	ctl->n++;
	return 0;
}

/* Compare paths a component at a time, so that a directory's tree follows it ("/a", "/a/x", "/a-b"). */
static int cmp_path(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	if (*a == *b)
		return 0;
	if (!*a || !*b)
		return *a ? 1 : -1;	/* a directory before what lies below it */
	return *a == '/' ? -1 : *b == '/' ? 1 : (unsigned char)*a < (unsigned char)*b ? -1 : 1;
}

static int cmp_ent(const void *x, const void *y)
{
	const struct ls_ent *a = x, *b = y;
	int c = cmp_path(a->parent, b->parent);

	return c ? c : strcmp(a->name, b->name);
}

/* Widths of the SIZE and CLUSTER columns. */
static void widths(const struct ls_ctl *ctl, int *ws, int *wc)
{
	*ws = *wc = 1;
	for (size_t i = 0; i < ctl->n; i++) {
		char b[24];
		int n = snprintf(b, sizeof(b), "%" PRIu64, ctl->v[i].d.size);

		*ws = n > *ws ? n : *ws;
		n = snprintf(b, sizeof(b), "%u", ctl->v[i].d.first_cluster);
		*wc = n > *wc ? n : *wc;
	}
}

static void print_line(const struct ls_ctl *ctl, const struct fsc_dirent *d, const char *name, int ws, int wc)
{
	char attr[8], ts[64];

	if (ctl->longlist) {
		entry_attr(d, attr, sizeof(attr));
		entry_timestamp(d->mtime, d->mtime_10ms, INT16_MIN, ts, sizeof(ts));
		ts[19] = '\0';	/* to the second, as ls -l shows it; -J has the rest */
		printf("%s %*" PRIu64 " %*u %-19s ", attr, ws, d->size, wc, d->first_cluster, ts);
		if (ctl->deleted)
			printf("%-11s ", d->deleted ? fsc_recovery_name(d->recovery) : "-");
	}
	report_escaped(stdout, name);
	if (!ctl->longlist && d->deleted)
		printf(_("  (deleted, %s)"), fsc_recovery_name(d->recovery));
	putchar('\n');
}

static void print_text(struct ls_ctl *ctl, const struct fsc_dirent *top)
{
	const char *group = NULL;
	int ws, wc;

	widths(ctl, &ws, &wc);
	if (!top->dir) {
		print_line(ctl, &ctl->v[0].d, top->path, ws, wc);
		return;
	}
	if (ctl->recursive) {	/* ls -R: every directory under its path, the first one too */
		report_escaped(stdout, top->path);
		fputs(":\n", stdout);
		group = top->path;
	}
	for (size_t i = 0; i < ctl->n; i++) {
		const struct ls_ent *e = &ctl->v[i];

		if (ctl->recursive && strcmp(e->parent, group) != 0) {
			group = e->parent;
			putchar('\n');
			report_escaped(stdout, group);
			fputs(":\n", stdout);
		}
		print_line(ctl, &e->d, e->name, ws, wc);
	}
}

static void print_json(struct ls_ctl *ctl, const struct volume *v, const struct fsc_dirent *top)
{
	struct json j;

	json_init(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "path", ctl->image);
	json_u64(&j, "offset", fsc_dev_offset(v->dev));
	json_str(&j, "type", fsc_type_name(fsc_probe_type(v->p)));
	json_str(&j, "directory", top->dir ? top->path : NULL);
	json_open(&j, "entries", '[');
	for (size_t i = 0; i < ctl->n; i++)
		entry_json(&j, &ctl->v[i].d);
	json_close(&j, ']');
	if (ctl->looped)
		json_str(&j, "error", "directory loop");
	json_close(&j, '}');
	putchar('\n');
}

/* The entries to show: the file itself, or the directory's (and below with -R). */
static int list(struct ls_ctl *ctl, const struct volume *v, const struct fsc_dirent *top)
{
	unsigned flags = (ctl->recursive ? 0 : FSC_WALK_ONE) | (ctl->deleted ? FSC_WALK_DELETED : 0) | FSC_WALK_LOOPS;
	int r;

	if (!top->dir)
		return collect(ctl, top);
	r = fsc_walk_dir(v->dev, v->p, top, flags, collect, ctl);
	if (r == -ELOOP) {	/* (listed all the same, each entry once; said after the listing) */
		ctl->looped = true;
		r = 0;
	}
	if (r == 0 && ctl->err)
		r = ctl->err;
	for (size_t i = 0; r == 0 && i < ctl->n; i++) {	/* the strings moved with grow(): point again */
		ctl->v[i].d.path = ctl->v[i].path;
		ctl->v[i].d.name = ctl->v[i].name;
	}
	if (r == 0 && ctl->n)
		qsort(ctl->v, ctl->n, sizeof(*ctl->v), cmp_ent);
	return r;
}

static int ls_volume(struct ls_ctl *ctl)
{
	struct volume v;
	struct fsc_dirent top;
	char buf[4400];
	int code = volume_open(&ls_cmd, ctl->image, &ctl->sel, VOL_BACKUP_VIEW, &v), r;

	if (code)
		return code;
	if (!(code = volume_need_fs(ctl->image, &v, LS_NOTFS)) &&
	    !(code = volume_lookup(&ls_cmd, ctl->image, &v, ctl->path, ctl->deleted ? FSC_LOOKUP_DELETED : 0,
				   &top, buf, sizeof(buf)))) {
		r = list(ctl, &v, &top);
		if (r < 0) {
			errmsg(ctl->image, _("cannot read the directory: %s"), strerror(-r));
			code = LS_OPERROR;
		} else if (ctl->json) {
			print_json(ctl, &v, &top);
		} else {
			print_text(ctl, &top);
		}
		if (r >= 0 && ctl->looped) {
			fflush(stdout);
			if (!ctl->json)	/* (the object's error member says it) */
				errmsg(ctl->image, _("a directory's chain loops or shares clusters with another directory: "
					     "each entry is listed once (fatscope fsck says more)"));
			code = LS_DAMAGED;
		}
	}
	for (size_t i = 0; i < ctl->n; i++)
		free(ctl->v[i].path), free(ctl->v[i].name), free(ctl->v[i].parent);
	free(ctl->v);
	free(ctl->hidden);
	volume_close(&v);
	return code;
}

static int cmd_ls(int argc, char **argv)
{
	struct ls_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(LS_OK, LS_OPERROR) : r;
	return close_stdout_checked(ls_volume(&ctl), LS_OPERROR);
}

const struct cmd_desc ls_cmd = {
	.name = "ls", .summary = N_("list a directory of a volume, as ls(1) does (read-only)"),
	.run = cmd_ls, .help = ls_help,
	.usage = LS_USAGE, .operror = LS_OPERROR, .too_small = LS_NOTFS,
};
