/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.h - safe names and safe creation below extract's output directory (host.c). */
#ifndef FSC_HOST_H
#define FSC_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "common.h"

/*
 * name as a name the host can take: '/', control bytes and DEL as '_',
 * "", "." and ".." as "_", "_." and "_..".  true when it differs.
 */
bool host_safe_name(const char *name, char *out, size_t len);
/*
 * The directory rel ("a/b", "" for root itself) below the directory root,
 * opened a component at a time without following a symbolic link: the
 * descriptor, or -errno (-ELOOP, -ENOTDIR: a link or a file in the way).
 */
int host_open_dir(int root, const char *rel);
/* Make directory name in dir, or take the one there: 0, -ELOOP (a link), -EEXIST (not a directory), -errno. */
int host_mkdir(int dir, const char *name);
/*
 * Create file name (a buffer of len bytes) in dir, never through a link:
 * the descriptor, or -errno.  When name exists: with replace, it is
 * removed first (a link itself, never what it points to); with suffix,
 * "~1", "~2"... is appended to name until one is free (suffix wins).
 * -EEXIST otherwise.
 */
int host_create(int dir, char *name, size_t len, bool replace, bool suffix);
/* d's access and modification times for utimensat (UTIME_OMIT where it has none). */
void host_times(const struct fsc_dirent *d, struct timespec ts[2]);

#endif
