// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * entry.c - one directory entry (struct fsc_dirent) as text pieces and as
 * a JSON object: the one rendering of attributes, timestamps and
 * recovery states that dump and ls share.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "entry.h"

/* "2020-01-02 03:04:06.00 +01:00" from a DOS timestamp, 10 ms units and a UTC offset. */
void entry_timestamp(uint32_t ts, unsigned ms10, int utc, char *buf, size_t len)
{
	int n;

	if (!ts) {
		snprintf(buf, len, "-");
		return;
	}
	n = snprintf(buf, len, "%04u-%02u-%02u %02u:%02u:%02u.%02u", 1980 + (ts >> 25), (ts >> 21) & 0xF,
		     (ts >> 16) & 0x1F, (ts >> 11) & 0x1F, (ts >> 5) & 0x3F, 2 * (ts & 0x1F) + ms10 / 100,
		     ms10 % 100);
	if (utc != INT16_MIN && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %c%02d:%02d", utc < 0 ? '-' : '+', abs(utc) / 60, abs(utc) % 60);
}

struct timespec entry_time(uint32_t ts, unsigned ms10, int utc)
{
	struct tm tm = { 0 };
	struct timespec t = { 0, UTIME_OMIT };

	if (!ts)
		return t;
	tm.tm_year = 80 + (int)(ts >> 25);
	tm.tm_mon = (int)((ts >> 21) & 0xF) - 1;
	tm.tm_mday = (int)((ts >> 16) & 0x1F);
	tm.tm_hour = (int)((ts >> 11) & 0x1F);
	tm.tm_min = (int)((ts >> 5) & 0x3F);
	tm.tm_sec = (int)(2 * (ts & 0x1F) + ms10 / 100);
	tm.tm_isdst = -1;
	t.tv_sec = utc != INT16_MIN ? timegm(&tm) - (time_t)utc * 60 : mktime(&tm);
	t.tv_nsec = (long)(ms10 % 100) * 10000000L;
	return t;
}

void entry_attr(const struct fsc_dirent *d, char *buf, size_t len)
{
	snprintf(buf, len, "%c%c%c%c%c", d->attr & 0x01 ? 'R' : '-', d->attr & 0x02 ? 'H' : '-',
		 d->attr & 0x04 ? 'S' : '-', d->attr & 0x10 ? 'D' : '-', d->attr & 0x20 ? 'A' : '-');
}

void entry_json(struct json *j, const struct fsc_dirent *d)
{
	json_open(j, NULL, '{');
	entry_json_members(j, d);
	json_close(j, '}');
}

void entry_json_members(struct json *j, const struct fsc_dirent *d)
{
	char buf[64];

	json_str(j, "path", d->path);
	json_str(j, "name", d->name);
	json_str(j, "short_name", d->short_name[0] ? d->short_name : NULL);
	json_str(j, "kind", d->label ? "label" : d->dir ? "directory" : "file");
	json_bool(j, "deleted", d->deleted);
	if (d->deleted) {
		json_str(j, "recoverable", d->recoverable > 0 ? "yes" : d->recoverable == 0 ? "no" : "unknown");
		json_str(j, "recovery", fsc_recovery_name(d->recovery));
	}
	json_u64(j, "attributes", d->attr);
	json_u64(j, "size", d->size);
	json_u64(j, "valid_size", d->valid_size);
	json_u64(j, "first_cluster", d->first_cluster);
	json_bool(j, "no_fat_chain", d->nofat);
	entry_timestamp(d->mtime, d->mtime_10ms, d->mtime_utc, buf, sizeof(buf));
	json_str(j, "modified", d->mtime ? buf : NULL);
	entry_timestamp(d->ctime, d->ctime_10ms, d->ctime_utc, buf, sizeof(buf));
	json_str(j, "created", d->ctime ? buf : NULL);
	entry_timestamp(d->atime, 0, d->atime_utc, buf, sizeof(buf));
	json_str(j, "accessed", d->atime ? buf : NULL);
	json_u64(j, "entry_cluster", d->entry_cluster);
	json_u64(j, "entry_offset", d->entry_offset);
}
