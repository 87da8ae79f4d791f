// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extract.c - fatscope extract: files and directories of an exFAT or FAT
 * volume copied out to a directory of the host, recursively, with their
 * modification and access times; the volume is opened read-only.  This
 * file reads the arguments, walks each path given and gathers a
 * directory's entries (its live ones written first, so that they keep
 * their names), and sets the directories' times last; extract_put.c
 * writes an entry (names safe for the host, and for Windows with
 * --portable, each rename listed; a damaged chain up to its break, a
 * cross-linked file whole, a deleted file as far as it is left), and
 * manifest.c the hashdeep manifest of --hash.  Nothing is written outside
 * the output directory, no link in it is followed, an existing file is
 * kept unless --force.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "extract.h"
#include "files.h"
#include "hash.h"
#include "report.h"

enum { OPT_HASH = OPT_CMD_BASE, OPT_MANIFEST, OPT_PORTABLE };

static void extract_help(void)
{
	fputs(_("Usage:\n"
		" fatscope extract [options] -o DIR DEVICE|IMAGE [PATH...]\n\n"
		"Copy files and directories of an exFAT or FAT volume (all of it without PATH) into DIR,\n"
		"with their times; the volume is only read.\n\n"
		"Options:\n"
		" -o, --output DIR       where to write (made if missing; never through a link)\n"
		" -d, --deleted          also recover deleted files and directories, as far as they are left\n"
		" -f, --force            replace files that exist in DIR (default: refuse them)\n"
		"     --portable         also rename what Windows forbids (\"*:<>?\\| CON NUL ...)\n"
		"     --hash ALGO        a manifest of the files written, in hashdeep's format: md5, sha1\n"
		"                        or sha256 (again for more than one)\n"
		"     --manifest FILE    where --hash writes it (default: DIR.hashdeep, beside DIR)\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 all written, 1 deleted files only partly recovered or not at all,\n"
		"2 not an exFAT or FAT volume, 4 a damaged chain (written up to the break) or a\n"
		"cross-linked file (written whole), 8 operational error (also: no such path, a file that\n"
		"exists), 16 usage.\n\nSee fatscope-extract(8).\n"), stdout);
}

static int parse_args(struct x_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "deleted", no_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' }, { "portable", no_argument, NULL, OPT_PORTABLE },
		{ "hash", required_argument, NULL, OPT_HASH }, { "manifest", required_argument, NULL, OPT_MANIFEST },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "o:df" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'o': ctl->outdir = optarg; break;
		case 'd': ctl->deleted = true; break;
		case 'f': ctl->force = true; break;
		case OPT_PORTABLE: ctl->portable = true; break;
		case OPT_MANIFEST: ctl->manifest_path = optarg; break;
		case OPT_HASH:
			if ((r = hash_parse(optarg)) < 0)
				return usage_error(&extract_cmd, _("unknown hash '%s' (md5, sha1, sha256)"), optarg);
			ctl->hashes |= 1u << r;
			break;
		default:
			if ((r = common_option(&extract_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&extract_cmd, argc, 0, &ctl->sel)))
		return r;
	if (!ctl->outdir)
		return usage_error(&extract_cmd, _("no output directory given (-o DIR)"));
	if (ctl->manifest_path && !ctl->hashes)
		return usage_error(&extract_cmd, _("--manifest without --hash"));
	ctl->image = argv[optind];
	ctl->argc = argc;
	ctl->argv = argv;
	return 0;
}

void x_worse(struct x_ctl *ctl, int code)
{
	if (code > ctl->code)
		ctl->code = code;
}

/* The descriptor of the directory with walk id id (NULL path: not made): -1 then. */
static int parent_fd(struct x_ctl *ctl, size_t id)
{
	if (ctl->pfd >= 0 && ctl->pid == id)
		return ctl->pfd;
	if (ctl->pfd >= 0)
		close(ctl->pfd);
	ctl->pfd = -1;
	if (id >= ctl->nhost || !ctl->host[id])
		return -1;
	ctl->pfd = host_open_dir(ctl->root, ctl->host[id]);
	ctl->pid = id;
	if (ctl->pfd < 0) {
		errmsg(ctl->outdir, "%s: %s", ctl->host[id], strerror(-ctl->pfd));
		x_worse(ctl, EXTRACT_OPERROR);
	}
	return ctl->pfd;
}

/* Room for walk id id in ctl->host, new slots NULL. */
static int host_slot(struct x_ctl *ctl, size_t id)
{
	return grow_array((void **)&ctl->host, &ctl->nhost, id + 1, sizeof(char *)) ? 0 : -ENOMEM;
}

int x_made_dir(struct x_ctl *ctl, const struct fsc_dirent *d, size_t id, const char *rel, const char *name)
{
	char *path = malloc(strlen(rel) + strlen(name) + 2);

	if (!path || host_slot(ctl, id) < 0 ||
	    !grow_array((void **)&ctl->dirs, &ctl->capdirs, ctl->ndirs + 1, sizeof(*ctl->dirs))) {
		free(path);
		return -ENOMEM;
	}
	sprintf(path, "%s%s%s", rel, *rel && *name ? "/" : "", name);
	ctl->host[id] = path;
	ctl->dirs[ctl->ndirs].rel = path;
	host_times(d, ctl->dirs[ctl->ndirs++].ts);
	return 0;
}

/* The directory's entries gathered: live ones first, so that they keep their names. */
static void flush(struct x_ctl *ctl)
{
	host_made_reset(&ctl->made);
	for (int deleted = 0; deleted < 2; deleted++)
		for (size_t i = 0; i < ctl->ngroup; i++) {
			struct x_ent *e = &ctl->group[i];
			int pfd = e->d.deleted == deleted ? parent_fd(ctl, e->d.parent_id) : -1;

			if (pfd >= 0)
				x_put(ctl, &e->d, pfd, ctl->host[e->d.parent_id], &ctl->made);
		}
	for (size_t i = 0; i < ctl->ngroup; i++)
		free(ctl->group[i].path), free(ctl->group[i].name);
	ctl->ngroup = 0;
}

static int take(void *vctx, const struct fsc_dirent *d)
{
	struct x_ctl *ctl = vctx;
	struct x_ent *e;

	if (d->label)
		return 0;
	if (ctl->ngroup && ctl->group[0].d.parent_id != d->parent_id)
		flush(ctl);
	if (!grow_array((void **)&ctl->group, &ctl->capgroup, ctl->ngroup + 1, sizeof(*ctl->group)))
		return -ENOMEM;
	e = &ctl->group[ctl->ngroup];
	e->d = *d;
	e->d.path = e->path = strdup(d->path);
	e->d.name = e->name = strdup(d->name);
	if (!e->path || !e->name) {
		free(e->path), free(e->name);
		return -ENOMEM;
	}
	ctl->ngroup++;
	return 0;
}

/* One operand: a file into the output directory, a directory with all below (the root: its entries). */
static void extract_path(struct x_ctl *ctl, const char *path)
{
	struct fsc_dirent top = FSC_DIRENT_INIT;
	char buf[4400];
	int r;

	if (volume_lookup(&extract_cmd, ctl->image, &ctl->v, path, ctl->deleted ? FSC_LOOKUP_DELETED : 0, &top,
			  buf, sizeof(buf))) {
		x_worse(ctl, EXTRACT_OPERROR);
		return;
	}
	/* ids are each walk's own: the directories of the operand before are forgotten, its descriptor too */
	for (size_t i = 0; i < ctl->nhost; i++)
		ctl->host[i] = NULL;	/* (the strings belong to ctl->dirs) */
	if (ctl->pfd >= 0)
		close(ctl->pfd);
	ctl->pfd = -1;
	top.id = 0;			/* the walk below it calls it 0 */
	if (top.depth == 0 && x_made_dir(ctl, &top, 0, "", "") < 0)
		x_worse(ctl, EXTRACT_OPERROR);
	else if (top.depth)
		x_put(ctl, &top, ctl->root, "", &ctl->made_top);
	if (!top.dir || !ctl->nhost || !ctl->host[0])
		return;
	r = fsc_walk_dir(ctl->v.dev, ctl->v.p, &top, (ctl->deleted ? FSC_WALK_DELETED : 0) | FSC_WALK_LOOPS, take, ctl);
	flush(ctl);
	if (r == -ELOOP) {	/* (every entry taken once all the same) */
		errmsg(ctl->image, _("%s: a directory's chain loops or shares clusters with another directory: "
				     "each entry is extracted once (fatscope fsck says more)"), path);
		x_worse(ctl, EXTRACT_DAMAGED);
	} else if (r < 0) {
		errmsg(ctl->image, _("%s: cannot read the directory: %s"), path, strerror(-r));
		x_worse(ctl, EXTRACT_OPERROR);
	}
}

/* The directories' times, last made first (setting a child's changes nothing of its parent's). */
static void dir_times(struct x_ctl *ctl)
{
	for (size_t i = ctl->ndirs; i-- > 0;) {
		int fd = host_open_dir(ctl->root, ctl->dirs[i].rel);

		if (fd >= 0) {
			futimens(fd, ctl->dirs[i].ts);
			close(fd);
		}
		free(ctl->dirs[i].rel);
	}
	free(ctl->dirs);
}

/* The output directory, made if missing, never through a link: its descriptor or -1 after a line. */
static int open_outdir(const char *dir)
{
	int fd;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		errmsg(dir, _("cannot make the output directory: %s"), strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		errmsg(dir, "%s", errno == ELOOP ? _("is a symbolic link: give the directory it points to") :
		       errno == ENOTDIR ? _("not a directory") : strerror(errno));
	return fd;
}

/* --hash: the manifest, at --manifest or beside the output directory (DIR.hashdeep).  0, or exit 8 after a line. */
static int open_manifest(struct x_ctl *ctl)
{
	char *abs, *path = NULL;
	int r = -ENOMEM;

	if (!ctl->hashes)
		return 0;
	abs = realpath(ctl->outdir, NULL);
	if (!ctl->manifest_path && abs && strcmp(abs, "/") != 0 && (path = malloc(strlen(abs) + 10)))
		sprintf(path, "%s.hashdeep", abs);
	else if (abs && strcmp(abs, "/") == 0)
		r = -EINVAL;	/* nothing is beside / */
	if (ctl->manifest_path || path)
		r = manifest_open(&ctl->man, ctl->manifest_path ? ctl->manifest_path : path, ctl->outdir, ctl->hashes,
				  ctl->force, ctl->argc, ctl->argv);
	if (r < 0)
		errmsg(ctl->manifest_path ? ctl->manifest_path : path ? path : ctl->outdir, "%s",
		       r == -EEXIST ? _("the manifest exists (--force replaces it)") :
		       r == -EINVAL ? _("no place beside it for the manifest: give --manifest FILE") : strerror(-r));
	free(abs);
	free(path);
	return r < 0 ? EXTRACT_OPERROR : 0;
}

/* Every operand (the root without one), the directories' times, the summary line. */
static void extract_all(struct x_ctl *ctl, char **paths, int npaths)
{
	int r;

	ctl->pfd = -1;
	ctl->name_max = host_name_max(ctl->root);
	for (int i = 0; i < npaths; i++)
		extract_path(ctl, paths[i]);
	if (!npaths)
		extract_path(ctl, "/");
	if (ctl->pfd >= 0)
		close(ctl->pfd);
	dir_times(ctl);
	if ((r = manifest_close(&ctl->man)) < 0) {
		errmsg(ctl->outdir, _("cannot write the manifest: %s"), strerror(-r));
		x_worse(ctl, EXTRACT_OPERROR);
	}
	printf(_("%" PRIu64 " files (%" PRIu64 " bytes) and %" PRIu64 " directories written%s"), ctl->files,
	       ctl->bytes, ctl->ndirs_made, ctl->recovered ? ", " : "");
	if (ctl->recovered)
		printf(_("%" PRIu64 " of them deleted and recovered"), ctl->recovered);
	putchar('\n');
}

static int extract_volume(struct x_ctl *ctl, char **paths, int npaths)
{
	int r;

	if ((r = volume_open(&extract_cmd, ctl->image, &ctl->sel, VOL_BACKUP_VIEW, &ctl->v)))
		return r;
	if ((r = volume_need_fs(ctl->image, &ctl->v, EXTRACT_NOTFS))) {
		volume_close(&ctl->v);
		return r;
	}
	if ((r = fsc_reader_open(ctl->v.dev, ctl->v.p, FSC_READER_CROSSLINKS | FSC_READER_TO_BREAK, &ctl->rd)) < 0) {
		errmsg(ctl->image, _("cannot read the volume: %s"), strerror(-r));
		volume_close(&ctl->v);
		return EXTRACT_OPERROR;
	}
	if ((ctl->root = open_outdir(ctl->outdir)) < 0) {
		ctl->code = EXTRACT_OPERROR;
	} else {
		if (!(ctl->code = open_manifest(ctl)))
			extract_all(ctl, paths, npaths);
		close(ctl->root);
	}
	free(ctl->group);
	free(ctl->host);
	free(ctl->made.v);
	free(ctl->made_top.v);
	fsc_reader_close(ctl->rd);
	volume_close(&ctl->v);
	return ctl->code;
}

static int cmd_extract(int argc, char **argv)
{
	struct x_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(EXTRACT_OK, EXTRACT_OPERROR) : r;
	return close_stdout_checked(extract_volume(&ctl, argv + optind + 1, argc - optind - 1), EXTRACT_OPERROR);
}

const struct cmd_desc extract_cmd = {
	.name = "extract", .summary = N_("copy files of a volume out to a directory (read-only)"),
	.run = cmd_extract, .help = extract_help,
	.usage = EXTRACT_USAGE, .operror = EXTRACT_OPERROR, .too_small = EXTRACT_NOTFS,
};
