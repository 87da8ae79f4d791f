/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h - extract --hash: the files written, in hashdeep's format (manifest.c). */
#ifndef FSC_MANIFEST_H
#define FSC_MANIFEST_H

#include <stdbool.h>
#include <stdio.h>

#include "hash.h"

struct manifest {
	FILE *f;
	char *base;			/* the output directory's absolute path */
	unsigned set;			/* 1 << HASH_* */
};

/*
 * Create path (O_EXCL unless replace, never through a link) and write
 * hashdeep's header for the algorithms of set, the files below outdir
 * (named by its absolute path, as hashdeep names what it finds), and the
 * command (argc, argv) as a comment.  0, or -errno (nothing kept open).
 */
int manifest_open(struct manifest *m, const char *path, const char *outdir, unsigned set, bool replace,
		  int argc, char **argv);
/* A comment line "## fatscope: WHAT: PATH" (escaped) before the file it speaks of. */
void manifest_note(struct manifest *m, const char *what, const char *path);
/* The line of a file written: its size and digests (h, ended here), its path rel below outdir. */
void manifest_file(struct manifest *m, const char *rel, struct hash_ctx *h);
/* Close: 0, or -errno (a write failed). */
int manifest_close(struct manifest *m);

#endif
