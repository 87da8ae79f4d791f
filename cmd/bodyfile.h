/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bodyfile.h - an entry as a line of The Sleuth Kit's body file, for ls --bodyfile (bodyfile.c). */
#ifndef FSC_BODYFILE_H
#define FSC_BODYFILE_H

#include <stdio.h>

#include "common.h"

/*
 * The line of d: "MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime"
 * (TSK 3.x), md5 the file's MD5 in hex or NULL ("0"), size its size
 * (a FAT directory's: its clusters' bytes).
 */
void body_line(FILE *out, const struct fsc_dirent *d, const char *md5, uint64_t size);

#endif
