/* SPDX-License-Identifier: GPL-2.0-or-later */
/* entry.h - one directory entry as text and JSON, for dump and ls (entry.c). */
#ifndef FSC_ENTRY_H
#define FSC_ENTRY_H

#include <time.h>

#include "common.h"
#include "json.h"

/* "2020-01-02 03:04:06.00 +01:00" from a DOS timestamp, 10 ms units and a UTC offset; "-" for none. */
void entry_timestamp(uint32_t ts, unsigned ms10, int utc, char *buf, size_t len);
/*
 * The same as a point in time: exFAT's with its UTC offset exactly, one
 * without an offset (FAT's) as local time (TZ, mktime); tv_nsec
 * UTIME_OMIT for none (ts 0).
 */
struct timespec entry_time(uint32_t ts, unsigned ms10, int utc);
/* "RHSDA" with '-' for each attribute not set. */
void entry_attr(const struct fsc_dirent *d, char *buf, size_t len);
/* The entry as a JSON object: path, names, kind, deletion and recovery, sizes, clusters, times. */
void entry_json(struct json *j, const struct fsc_dirent *d);
/* Its members only, into an object the caller opened (and may add to). */
void entry_json_members(struct json *j, const struct fsc_dirent *d);

#endif
