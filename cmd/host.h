/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.h - safe names and safe creation below extract's output directory (host.c). */
#ifndef FSC_HOST_H
#define FSC_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "common.h"

#define HOST_PORTABLE	0x1	/* host_safe_name: also what Windows forbids */
#define HOST_REPLACE	0x2	/* host_create: remove what has the name first */
#define HOST_SUFFIX	0x4	/* host_create: "~1", "~2"... while the name is taken */

/*
 * name as a name the host can take, into out (len bytes, more than max):
 * '/', control bytes and DEL as '_'; with HOST_PORTABLE also the
 * characters Windows forbids ("*:<>?\| and a trailing dot or space) as
 * '_', and a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any
 * extension) with a '_' before it; "", "." and ".." as "_", "_." and
 * "_.."; a name over max bytes shortened by host_fit with "~" and eight
 * hex digits of its SHA-1 (the same name always gets the same one).
 * true when it differs.
 */
bool host_safe_name(const char *name, unsigned flags, size_t max, char *out, size_t len);
/*
 * name with tag put before its extension (a last '.' and at most 16
 * bytes after it), the part before cut on a UTF-8 character boundary so
 * that the whole is at most max bytes: into out (len bytes).
 */
void host_fit(const char *name, const char *tag, size_t max, char *out, size_t len);
/* The longest name (bytes) directory dir takes: fpathconf's, else NAME_MAX. */
size_t host_name_max(int dir);
/*
 * The directory rel ("a/b", "" for root itself) below the directory root,
 * opened a component at a time without following a symbolic link: the
 * descriptor, or -errno (-ELOOP, -ENOTDIR: a link or a file in the way).
 */
int host_open_dir(int root, const char *rel);
/*
 * Make directory name in dir: 0 made, 1 there already (taken as it is),
 * -ELOOP (a link), -EEXIST (not a directory), -errno.
 */
int host_mkdir(int dir, const char *name);
/*
 * Make a new directory name in dir (len bytes), "~1", "~2"... put in
 * (host_fit, max bytes) while the name is taken: 0, or -errno.
 */
int host_mkdir_new(int dir, char *name, size_t len, size_t max);
/*
 * Create file name (a buffer of len bytes) in dir, never through a link:
 * the descriptor, or -errno.  When name exists: with HOST_REPLACE it is
 * removed first (a link itself, never what it points to); with
 * HOST_SUFFIX, "~1", "~2"... is put in (host_fit, max bytes) until a
 * name is free (suffix wins).  -EEXIST otherwise.
 */
int host_create(int dir, char *name, size_t len, size_t max, unsigned how);
/* d's access and modification times for utimensat (UTIME_OMIT where it has none). */
void host_times(const struct fsc_dirent *d, struct timespec ts[2]);

/*
 * What this run made in one directory, to tell the same name given twice
 * (a damaged volume) from a file that was there before.
 */
struct host_made {
	struct host_id { dev_t dev; ino_t ino; } *v;
	size_t n, cap;
};
/* Remember what name is in dir now: 0 or -errno. */
int host_made_add(struct host_made *m, int dir, const char *name);
/*
 * Does the host take name in dir for an entry spelt otherwise (it folds
 * case, or normalises Unicode)?  false when name is free or spelt so.
 */
bool host_folds(int dir, const char *name);
/* Is what name opens in dir (as the host compares names) one of m's? */
bool host_made_has(const struct host_made *m, int dir, const char *name);
void host_made_reset(struct host_made *m);

#endif
