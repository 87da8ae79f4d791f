/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extract.h - what fatscope extract's two files share: the command's
 * state (extract.c walks and gathers, extract_put.c writes an entry).
 */
#ifndef FSC_EXTRACT_H
#define FSC_EXTRACT_H

#include <time.h>

#include "common.h"
#include "host.h"
#include "manifest.h"

struct x_ent {
	struct fsc_dirent d;
	char *path, *name;
};

struct x_dir {
	char *rel;			/* below the output directory */
	struct timespec ts[2];
};

struct x_ctl {
	bool deleted, force, portable;
	unsigned hashes;		/* --hash: 1 << HASH_* */
	const char *outdir, *image, *manifest_path;
	int argc;			/* the command line, for the manifest */
	char **argv;
	struct vol_select sel;
	struct volume v;
	struct fsc_reader *rd;
	int root;			/* the output directory */
	size_t name_max;		/* the longest name it takes */
	char **host;			/* by walk id: the directory's path below root; NULL: not made */
	size_t nhost;
	struct x_ent *group;		/* the entries of one directory, live ones written first */
	size_t ngroup, capgroup;
	struct x_dir *dirs;		/* made or entered: their times are set last */
	size_t ndirs, capdirs;
	struct host_made made;		/* what this run made in the directory being written */
	struct host_made made_top;	/* ... in the output directory itself, by the operands */
	struct manifest man;		/* --hash */
	int pfd;			/* the open parent directory */
	size_t pid;			/* its walk id */
	uint64_t files, ndirs_made, bytes, recovered;
	int code;
};

/* The exit status: the higher of the two. */
void x_worse(struct x_ctl *ctl, int code);
/* Remember where directory id went (rel/name) and its times, for its entries and for the end. */
int x_made_dir(struct x_ctl *ctl, const struct fsc_dirent *d, size_t id, const char *rel, const char *name);
/* One entry into the directory pfd (rel below the output directory), its name made safe. */
void x_put(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, const char *rel, struct host_made *made);

#endif
