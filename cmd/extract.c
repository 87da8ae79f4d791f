// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extract.c - fatscope extract: files and directories of an exFAT or FAT
 * volume copied out to a directory of the host, recursively, with their
 * modification and access times; the volume is opened read-only.  Names
 * are made safe for the host (host.c) and each rename is listed; nothing
 * is written outside the output directory, no link in it is followed, an
 * existing file is kept unless --force.  --deleted also recovers deleted
 * files and directories as far as their clusters are free, each listed
 * with how much was left.  A file whose chain is damaged (a loop, a
 * cross-link with a file written before, a cut) is not written.
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
#include "files.h"
#include "host.h"
#include "report.h"

struct x_ent {
	struct fsc_dirent d;
	char *path, *name;
};

struct x_dir {
	char *rel;			/* below the output directory */
	struct timespec ts[2];
};

struct x_ctl {
	bool deleted, force;
	const char *outdir, *image;
	struct vol_select sel;
	struct volume v;
	struct fsc_reader *rd;
	int root;			/* the output directory */
	char **host;			/* by walk id: the directory's path below root; NULL: not made */
	size_t nhost;
	struct x_ent *group;		/* the entries of one directory, live ones written first */
	size_t ngroup, capgroup;
	struct x_dir *dirs;		/* made or entered: their times are set last */
	size_t ndirs, capdirs;
	int pfd;			/* the open parent directory */
	size_t pid;			/* its walk id */
	uint64_t files, ndirs_made, bytes, recovered;
	int code;
};

static void extract_help(void)
{
	fputs(_("Usage:\n"
		" fatscope extract [options] -o DIR DEVICE|IMAGE [PATH...]\n\n"
		"Copy files and directories of an exFAT or FAT volume (all of it without PATH) into DIR,\n"
		"with their times; the volume is only read.\n\n"
		"Options:\n"
		" -o, --output DIR       where to write (made if missing; never through a link)\n"
		" -d, --deleted          also recover deleted files and directories, as far as they are left\n"
		" -f, --force            replace files that exist in DIR (default: refuse them)\n"), stdout);
	common_options_help(23);
	fputs(_("\nExit status: 0 all written, 1 deleted files only partly recovered or not at all,\n"
		"2 not an exFAT or FAT volume, 4 files with a damaged chain not written, 8 operational\n"
		"error (also: no such path, a file that exists), 16 usage.\n\nSee fatscope-extract(8).\n"), stdout);
}

static int parse_args(struct x_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "deleted", no_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "o:df" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'o': ctl->outdir = optarg; break;
		case 'd': ctl->deleted = true; break;
		case 'f': ctl->force = true; break;
		default:
			if ((r = common_option(&extract_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&extract_cmd, argc, 0, &ctl->sel)))
		return r;
	if (!ctl->outdir)
		return usage_error(&extract_cmd, _("no output directory given (-o DIR)"));
	ctl->image = argv[optind];
	return 0;
}

static void worse(struct x_ctl *ctl, int code)
{
	if (code > ctl->code)
		ctl->code = code;
}

/* "renamed: /vol/path -> host/path", "recovered (intact): /vol/path", ... a line on stdout. */
static void say(const char *what, const char *vol, const char *rel, const char *name)
{
	fputs(what, stdout);
	report_escaped(stdout, vol);
	if (rel) {
		fputs(" -> ", stdout);
		report_escaped(stdout, rel);
		fputs(*rel && name ? "/" : "", stdout);
		report_escaped(stdout, name ? name : "");
	}
	putchar('\n');
}

static int to_fd(void *ctx, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(*(int *)ctx, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
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
		worse(ctl, EXTRACT_OPERROR);
	}
	return ctl->pfd;
}

/* Room for walk id id in ctl->host, new slots NULL. */
static int host_slot(struct x_ctl *ctl, size_t id)
{
	return grow_array((void **)&ctl->host, &ctl->nhost, id + 1, sizeof(char *)) ? 0 : -ENOMEM;
}

/* Remember where directory id went (and its times), for its entries and for the end. */
static int made_dir(struct x_ctl *ctl, const struct fsc_dirent *d, size_t id, const char *rel, const char *name)
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

/* A deleted entry not recovered (or only in part): said, and the exit status says so. */
static bool left_out(struct x_ctl *ctl, const struct fsc_dirent *d, struct fsc_file *f)
{
	char what[128], line[160];
	enum fsc_recovery st = f ? fsc_file_recovery(f) : d->recovery;

	if (st == FSC_REC_LIVE || st == FSC_REC_INTACT)
		return false;
	if (f)
		file_recovery_text(f, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%s", fsc_recovery_name(st));
	worse(ctl, EXTRACT_PARTIAL);
	snprintf(line, sizeof(line), "%s (%s): ", st == FSC_REC_PARTIAL ? _("recovered in part") : _("not recovered"), what);
	say(line, d->path, NULL, NULL);
	return st != FSC_REC_PARTIAL;
}

/* The bytes of file d into a new file name of directory pfd. */
static int put_file(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, char *name, size_t len, bool renamed)
{
	struct fsc_file *f;
	struct timespec ts[2];
	int fd, r = file_open(ctl->image, ctl->rd, d, &f);

	if (r < 0) {
		worse(ctl, r == -ENOMEM ? EXTRACT_OPERROR : EXTRACT_DAMAGED);
		return 0;
	}
	if (d->deleted && left_out(ctl, d, f)) {
		fsc_file_close(f);
		return 0;
	}
	fd = host_create(pfd, name, len, ctl->force && !renamed && !d->deleted, renamed || d->deleted);
	if (fd < 0) {
		errmsg(ctl->outdir, "%s: %s", name, fd == -EEXIST ? _("exists (--force replaces it)") : strerror(-fd));
		worse(ctl, EXTRACT_OPERROR);
		fsc_file_close(f);
		return 0;
	}
	r = file_copy(ctl->image, d->path, f, to_fd, &fd);
	host_times(d, ts);
	if (r == 0 && futimens(fd, ts) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		errmsg(ctl->outdir, "%s: %s", name, strerror(-r));
		worse(ctl, EXTRACT_OPERROR);
	}
	ctl->files++;
	ctl->bytes += fsc_file_size(f);
	ctl->recovered += d->deleted;
	fsc_file_close(f);
	return 1;
}

/* One entry into the directory its parent went to. */
static void put(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, const char *rel)
{
	char name[1100];
	bool renamed = host_safe_name(d->name, name, sizeof(name) - 8);
	int r;

	if (d->dir) {
		if (d->deleted && left_out(ctl, d, NULL))
			return;
		if ((r = host_mkdir(pfd, name)) < 0) {
			errmsg(ctl->outdir, "%s%s%s: %s", rel, *rel ? "/" : "", name,
			       r == -ELOOP ? _("a symbolic link is in the way") : r == -EEXIST ? _("a file is in the way") :
			       strerror(-r));
			worse(ctl, EXTRACT_OPERROR);
			return;
		}
		if (made_dir(ctl, d, d->id, rel, name) < 0) {
			worse(ctl, EXTRACT_OPERROR);
			return;
		}
		ctl->ndirs_made++;
		ctl->recovered += d->deleted;
	} else if (!put_file(ctl, d, pfd, name, sizeof(name), renamed)) {
		return;
	}
	if (renamed || strcmp(name, d->name) != 0)
		say(_("renamed: "), d->path, rel, name);
	if (d->deleted && !d->dir)
		say(_("recovered (intact): "), d->path, NULL, NULL);
}

/* The directory's entries gathered: live ones first, so that they keep their names. */
static void flush(struct x_ctl *ctl)
{
	for (int deleted = 0; deleted < 2; deleted++)
		for (size_t i = 0; i < ctl->ngroup; i++) {
			struct x_ent *e = &ctl->group[i];
			int pfd = e->d.deleted == deleted ? parent_fd(ctl, e->d.parent_id) : -1;

			if (pfd >= 0)
				put(ctl, &e->d, pfd, ctl->host[e->d.parent_id]);
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
	struct fsc_dirent top;
	char buf[4400];
	int r;

	if (volume_lookup(&extract_cmd, ctl->image, &ctl->v, path, ctl->deleted ? FSC_LOOKUP_DELETED : 0, &top,
			  buf, sizeof(buf))) {
		worse(ctl, EXTRACT_OPERROR);
		return;
	}
	for (size_t i = 0; i < ctl->nhost; i++)
		ctl->host[i] = NULL;	/* ids are each walk's own (the strings belong to ctl->dirs) */
	top.id = 0;			/* the walk below it calls it 0 */
	if (top.depth == 0 && made_dir(ctl, &top, 0, "", "") < 0)
		worse(ctl, EXTRACT_OPERROR);
	else if (top.depth)
		put(ctl, &top, ctl->root, "");
	if (!top.dir || !ctl->nhost || !ctl->host[0])
		return;
	r = fsc_walk_dir(ctl->v.dev, ctl->v.p, &top, (ctl->deleted ? FSC_WALK_DELETED : 0) | FSC_WALK_LOOPS, take, ctl);
	flush(ctl);
	if (r == -ELOOP) {	/* (every entry taken once all the same) */
		errmsg(ctl->image, _("%s: a directory's chain loops or shares clusters with another directory: "
				     "each entry is extracted once (fatscope fsck says more)"), path);
		worse(ctl, EXTRACT_DAMAGED);
	} else if (r < 0) {
		errmsg(ctl->image, _("%s: cannot read the directory: %s"), path, strerror(-r));
		worse(ctl, EXTRACT_OPERROR);
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

static int extract_volume(struct x_ctl *ctl, char **paths, int npaths)
{
	int r;

	if ((r = volume_open(&extract_cmd, ctl->image, &ctl->sel, VOL_BACKUP_VIEW, &ctl->v)))
		return r;
	if ((r = volume_need_fs(ctl->image, &ctl->v, EXTRACT_NOTFS))) {
		volume_close(&ctl->v);
		return r;
	}
	if ((r = fsc_reader_open(ctl->v.dev, ctl->v.p, FSC_READER_CROSSLINKS, &ctl->rd)) < 0) {
		errmsg(ctl->image, _("cannot read the volume: %s"), strerror(-r));
		volume_close(&ctl->v);
		return EXTRACT_OPERROR;
	}
	if ((ctl->root = open_outdir(ctl->outdir)) < 0) {
		ctl->code = EXTRACT_OPERROR;
	} else {
		ctl->pfd = -1;
		for (int i = 0; i < npaths; i++)
			extract_path(ctl, paths[i]);
		if (!npaths)
			extract_path(ctl, "/");
		if (ctl->pfd >= 0)
			close(ctl->pfd);
		dir_times(ctl);
		close(ctl->root);
		printf(_("%" PRIu64 " files (%" PRIu64 " bytes) and %" PRIu64 " directories written%s"), ctl->files,
		       ctl->bytes, ctl->ndirs_made, ctl->recovered ? ", " : "");
		if (ctl->recovered)
			printf(_("%" PRIu64 " of them deleted and recovered"), ctl->recovered);
		putchar('\n');
	}
	free(ctl->group);
	free(ctl->host);
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
