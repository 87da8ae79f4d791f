// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ls.c - fatscope ls: directories of an exFAT or FAT volume (or files) in
 * the manner of ls(1), read-only: the files named first, then each
 * directory under its path; names sorted, hidden entries (the Hidden
 * attribute, a leading dot) with -a only, -l with attributes, size, first
 * cluster and modification time, -R every directory below, --deleted the
 * deleted entries with how much of each is left, --hash a digest of each
 * file's bytes (as cat reads them), --bodyfile The Sleuth Kit's body file
 * (bodyfile.c); -J JSON.  Names are bytes from the disk: escaped in text
 * (report.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodyfile.h"
#include "common.h"
#include "entry.h"
#include "files.h"
#include "hash.h"
#include "json.h"
#include "report.h"

struct ls_ent {
	struct fsc_dirent d;		/* path and name point to the strings below */
	char *path, *name, *parent;
	char *hash[HASH_COUNT];		/* --hash: a file's digests, NULL: none */
	uint64_t size;			/* --bodyfile: a FAT directory's clusters' bytes, else d.size */
};

struct ls_ctl {
	bool longlist, all, recursive, deleted, json, slash, bodyfile;
	unsigned hashes;		/* --hash: 1 << HASH_* */
	struct vol_select sel;
	const char *image;
	char **paths;			/* the operands after the image ("/" without one) */
	int npaths;
	struct ls_ent *v;
	size_t n, cap;
	size_t *hidden;			/* ids of hidden directories (their entries are hidden too) */
	size_t nhidden, caphidden;
	int err;			/* -ENOMEM while collecting */
	bool looped;			/* a directory's chain came back to a cluster read already */
	bool damaged;			/* --hash: a file's chain is damaged */
	bool printed;			/* a group was printed (an empty line before the next) */
	char *dirpath;			/* the one directory listed, as the volume spells its path */
	struct volume vol;
	struct fsc_reader *rd;		/* --hash, --bodyfile */
	struct json j;
};

enum { OPT_HASH = OPT_CMD_BASE, OPT_BODYFILE };

static void ls_help(void)
{
	fputs(_("Usage:\n"
		" fatscope ls [options] DEVICE|IMAGE [PATH...]\n\n"
		"List directories (or files) of an exFAT or FAT volume, as ls(1) does (read-only).\n\n"
		"Options:\n"
		" -l, --long             attributes, size, first cluster and modification time\n"
		" -a, --all              also hidden entries (Hidden attribute, a leading dot)\n"
		" -R, --recursive        every directory below, each under its path\n"
		" -d, --deleted          also deleted entries, with how much of each is left\n"
		" -p                     a '/' after the name of a directory\n"
		"     --hash ALGO        a digest of each file's bytes: md5, sha1 or sha256 (again for more)\n"
		"     --bodyfile         The Sleuth Kit's body file (mactime -b), deleted and hidden\n"
		"                        entries too\n"
		" -J, --json             JSON output\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 listed, 2 not an exFAT or FAT volume, 4 a directory's chain loops or is\n"
		"shared (each entry listed once), or a file's chain is damaged (--hash), 8 operational\n"
		"error (also: no such path), 16 usage.\n\n"
		"See fatscope-ls(8).\n"), stdout);
}

static int parse_args(struct ls_ctl *ctl, int argc, char **argv)
{
	static char *root[] = { (char *)"/" };
	static const struct option opts[] = {
		{ "long", no_argument, NULL, 'l' }, { "all", no_argument, NULL, 'a' },
		{ "recursive", no_argument, NULL, 'R' }, { "deleted", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'J' }, { "hash", required_argument, NULL, OPT_HASH },
		{ "bodyfile", no_argument, NULL, OPT_BODYFILE },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "laRdJp" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'l': ctl->longlist = true; break;
		case 'a': ctl->all = true; break;
		case 'R': ctl->recursive = true; break;
		case 'd': ctl->deleted = true; break;
		case 'J': ctl->json = true; break;
		case 'p': ctl->slash = true; break;
		case OPT_BODYFILE: ctl->bodyfile = ctl->all = ctl->deleted = true; break;
		case OPT_HASH:
			if ((r = hash_parse(optarg)) < 0)
				return usage_error(&ls_cmd, _("unknown hash '%s' (md5, sha1, sha256)"), optarg);
			ctl->hashes |= 1u << r;
			break;
		default:
			if ((r = common_option(&ls_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&ls_cmd, argc, 0, &ctl->sel)))
		return r;
	if (ctl->bodyfile && ctl->json)
		return usage_error(&ls_cmd, _("--bodyfile and --json are two outputs: give one"));
	ctl->image = argv[optind];
	ctl->paths = optind + 1 < argc ? argv + optind + 1 : root;
	ctl->npaths = optind + 1 < argc ? argc - optind - 1 : 1;
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

	if (d->label && !ctl->bodyfile)
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
	e->size = d->size;
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

/* --hash: the digests of file e's bytes, as cat gives them (up to a break; nothing for what is gone). */
static void hash_entry(struct ls_ctl *ctl, struct ls_ent *e)
{
	struct fsc_file *f;
	struct file_hasher fh = { .next = NULL };
	char hex[HASH_COUNT][HASH_HEX_MAX];
	enum fsc_recovery st;
	int r = file_open(ctl->image, ctl->rd, &e->d, &f);

	if (r < 0) {
		ctl->damaged |= r != -ENOMEM;
		ctl->err = r == -ENOMEM ? r : ctl->err;
		return;
	}
	ctl->damaged |= r > 0;
	st = fsc_file_recovery(f);
	hash_init(&fh.h, ctl->hashes);
	if ((st == FSC_REC_LIVE || st == FSC_REC_INTACT || st == FSC_REC_PARTIAL) &&
	    file_copy(ctl->image, e->d.path, f, file_hash_sink, &fh) == 0) {
		hash_final(&fh.h, hex);
		for (int a = 0; a < HASH_COUNT; a++)
			if (ctl->hashes & 1u << a && !(e->hash[a] = strdup(hex[a])))
				ctl->err = -ENOMEM;
	}
	fsc_file_close(f);
}

/* What the listing needs besides the walk: digests (--hash), FAT directories' sizes (--bodyfile). */
static void complete(struct ls_ctl *ctl)
{
	for (size_t i = 0; i < ctl->n; i++) {
		struct ls_ent *e = &ctl->v[i];
		struct fsc_file *f;

		if (ctl->hashes && !e->d.dir && !e->d.label)
			hash_entry(ctl, e);
		if (ctl->bodyfile && e->d.dir && fsc_probe_type(ctl->vol.p) != FSC_TYPE_EXFAT &&
		    fsc_file_open(ctl->rd, &e->d, &f, NULL, 0) == 0) {
			e->size = fsc_file_size(f);
			fsc_file_close(f);
		}
	}
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

static void print_hashes(const struct ls_ctl *ctl, const struct ls_ent *e)
{
	static const int width[HASH_COUNT] = { 32, 40, 64 };

	for (int a = 0; a < HASH_COUNT; a++)
		if (ctl->hashes & 1u << a)
			printf("%-*s ", width[a], e->hash[a] ? e->hash[a] : "-");
	if (!ctl->longlist)
		putchar(' ');	/* "DIGEST  NAME", as sha256sum writes it */
}

static void print_line(const struct ls_ctl *ctl, const struct ls_ent *e, const char *name, int ws, int wc)
{
	const struct fsc_dirent *d = &e->d;
	char attr[8], ts[64];

	if (ctl->longlist) {
		entry_attr(d, attr, sizeof(attr));
		entry_timestamp(d->mtime, d->mtime_10ms, INT16_MIN, ts, sizeof(ts));
		ts[19] = '\0';	/* to the second, as ls -l shows it; -J has the rest */
		printf("%s %*" PRIu64 " %*u %-19s ", attr, ws, d->size, wc, d->first_cluster, ts);
		if (ctl->deleted)
			printf("%-11s ", d->deleted ? fsc_recovery_name(d->recovery) : "-");
	}
	if (ctl->hashes)
		print_hashes(ctl, e);
	report_escaped(stdout, name);
	if (ctl->slash && d->dir)
		putchar('/');
	if (!ctl->longlist && d->deleted)
		printf(_("  (deleted, %s)"), fsc_recovery_name(d->recovery));
	putchar('\n');
}

/* One group: files named (top NULL, under their paths), or a directory's entries under its path. */
static void print_text(struct ls_ctl *ctl, const struct fsc_dirent *top)
{
	const char *group = NULL;
	bool headers = top && (ctl->recursive || ctl->npaths > 1);
	int ws, wc;

	widths(ctl, &ws, &wc);
	if (ctl->printed && (top || ctl->n))
		putchar('\n');
	ctl->printed |= top || ctl->n;
	if (headers) {	/* ls -R, or several operands: every directory under its path, the first one too */
		report_escaped(stdout, top->path);
		fputs(":\n", stdout);
		group = top->path;
	}
	for (size_t i = 0; i < ctl->n; i++) {
		const struct ls_ent *e = &ctl->v[i];

		if (headers && strcmp(e->parent, group) != 0) {
			group = e->parent;
			putchar('\n');
			report_escaped(stdout, group);
			fputs(":\n", stdout);
		}
		print_line(ctl, e, top ? e->name : e->path, ws, wc);
	}
}

static void print_group(struct ls_ctl *ctl, const struct fsc_dirent *top)
{
	for (size_t i = 0; i < ctl->n; i++) {
		struct ls_ent *e = &ctl->v[i];

		if (ctl->bodyfile) {
			body_line(stdout, &e->d, e->hash[HASH_MD5], e->size);
		} else if (ctl->json) {
			json_open(&ctl->j, NULL, '{');
			entry_json_members(&ctl->j, &e->d);
			for (int a = 0; a < HASH_COUNT; a++)
				if (ctl->hashes & 1u << a)
					json_str(&ctl->j, hash_name((enum hash_algo)a), e->hash[a]);
			json_close(&ctl->j, '}');
		}
	}
	if (!ctl->bodyfile && !ctl->json)
		print_text(ctl, top);
}

static void group_free(struct ls_ctl *ctl)
{
	for (size_t i = 0; i < ctl->n; i++) {
		struct ls_ent *e = &ctl->v[i];

		free(e->path), free(e->name), free(e->parent);
		for (int a = 0; a < HASH_COUNT; a++)
			free(e->hash[a]);
	}
	ctl->n = ctl->nhidden = 0;
}

/* The directory's entries (and below with -R), sorted. */
static int list(struct ls_ctl *ctl, const struct fsc_dirent *top)
{
	unsigned flags = (ctl->recursive ? 0 : FSC_WALK_ONE) | (ctl->deleted ? FSC_WALK_DELETED : 0) | FSC_WALK_LOOPS;
	int r = fsc_walk_dir(ctl->vol.dev, ctl->vol.p, top, flags, collect, ctl);

	if (r == -ELOOP) {	/* (listed all the same, each entry once; said after the listing) */
		ctl->looped = true;
		r = 0;
	}
	return r == 0 && ctl->err ? ctl->err : r;
}

/* Sorted, its strings pointed at again (they moved with grow_array), completed. */
static int settle(struct ls_ctl *ctl)
{
	for (size_t i = 0; i < ctl->n; i++) {
		ctl->v[i].d.path = ctl->v[i].path;
		ctl->v[i].d.name = ctl->v[i].name;
	}
	if (ctl->n)
		qsort(ctl->v, ctl->n, sizeof(*ctl->v), cmp_ent);
	complete(ctl);
	return ctl->err;
}

/* Each operand looked up: kind[i] 1 a directory, 0 a file (collected), -1 not found (said).  Its exit status. */
static int lookup_all(struct ls_ctl *ctl, signed char *kind)
{
	char buf[4400];
	struct fsc_dirent top = FSC_DIRENT_INIT;
	int code = 0;

	for (int i = 0; i < ctl->npaths; i++) {
		if (volume_lookup(&ls_cmd, ctl->image, &ctl->vol, ctl->paths[i],
				  ctl->deleted ? FSC_LOOKUP_DELETED : 0, &top, buf, sizeof(buf))) {
			kind[i] = -1;
			code = LS_OPERROR;
			continue;
		}
		kind[i] = top.dir;
		if (!top.dir && collect(ctl, &top) < 0)
			return -ENOMEM;
		if (top.dir && ctl->npaths == 1 && !(ctl->dirpath = strdup(top.path)))
			return -ENOMEM;	/* (JSON's "directory": the path as the volume spells it) */
	}
	return code;
}

/* The files collected, then each directory operand: 0, or the error of a walk (said). */
static int list_all(struct ls_ctl *ctl, const signed char *kind)
{
	char buf[4400];
	struct fsc_dirent top = FSC_DIRENT_INIT;
	int r;

	if (ctl->n) {
		if ((r = settle(ctl)) < 0)
			return r;
		print_group(ctl, NULL);
		group_free(ctl);
	}
	for (int i = 0; i < ctl->npaths; i++) {
		if (kind[i] != 1 || fsc_lookup(ctl->vol.dev, ctl->vol.p, ctl->paths[i],
					       ctl->deleted ? FSC_LOOKUP_DELETED : 0, &top, buf, sizeof(buf)) < 0)
			continue;
		if ((r = list(ctl, &top)) < 0 || (r = settle(ctl)) < 0)
			return r;
		print_group(ctl, &top);
		group_free(ctl);
	}
	return 0;
}

static void json_start(struct ls_ctl *ctl)
{
	json_init(&ctl->j, stdout);
	json_open(&ctl->j, NULL, '{');
	json_str(&ctl->j, "path", ctl->image);
	json_u64(&ctl->j, "offset", fsc_dev_offset(ctl->vol.dev));
	json_str(&ctl->j, "type", fsc_type_name(fsc_probe_type(ctl->vol.p)));
	json_str(&ctl->j, "directory", ctl->dirpath);
	json_open(&ctl->j, "entries", '[');
}

static void json_end(struct ls_ctl *ctl)
{
	json_close(&ctl->j, ']');
	if (ctl->looped)
		json_str(&ctl->j, "error", "directory loop");
	json_close(&ctl->j, '}');
	putchar('\n');
}

/* The files named, then each directory; nothing when no operand was found. */
static int ls_all(struct ls_ctl *ctl)
{
	signed char *kind = calloc((size_t)ctl->npaths, 1);
	int code, found = 0, r;

	if (!kind)
		return LS_OPERROR;
	if ((ctl->hashes || ctl->bodyfile) && (r = fsc_reader_open(ctl->vol.dev, ctl->vol.p, FSC_READER_TO_BREAK,
								    &ctl->rd)) < 0) {
		errmsg(ctl->image, _("cannot read the volume: %s"), strerror(-r));
		free(kind);
		return LS_OPERROR;
	}
	code = lookup_all(ctl, kind);
	for (int i = 0; i < ctl->npaths; i++)
		found += kind[i] >= 0;
	if (code >= 0 && found) {
		if (ctl->json)
			json_start(ctl);
		if ((r = list_all(ctl, kind)) < 0) {
			errmsg(ctl->image, _("cannot read the directory: %s"), strerror(-r));
			code = LS_OPERROR;
		}
		if (ctl->json)
			json_end(ctl);
	}
	fsc_reader_close(ctl->rd);
	free(kind);
	return code < 0 ? LS_OPERROR : code;
}

static int ls_volume(struct ls_ctl *ctl)
{
	int code = volume_open(&ls_cmd, ctl->image, &ctl->sel, VOL_BACKUP_VIEW, &ctl->vol);

	if (code)
		return code;
	if (!(code = volume_need_fs(ctl->image, &ctl->vol, LS_NOTFS))) {
		code = ls_all(ctl);
		if (ctl->looped || ctl->damaged) {
			fflush(stdout);
			if (ctl->looped && !ctl->json)	/* (the object's error member says it) */
				errmsg(ctl->image, _("a directory's chain loops or shares clusters with another directory: "
					     "each entry is listed once (fatscope fsck says more)"));
			code = code > LS_DAMAGED ? code : LS_DAMAGED;
		}
	}
	group_free(ctl);
	free(ctl->v);
	free(ctl->hidden);
	free(ctl->dirpath);
	volume_close(&ctl->vol);
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
