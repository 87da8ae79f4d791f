// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bodyfile.c - fatscope ls --bodyfile: an entry as a line of the body
 * file of The Sleuth Kit 3.x and later, the input of mactime(1):
 *
 *   MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|ctime|crtime
 *
 * with the fields as fls -m fills them for FAT and exFAT: MD5 "0" (or
 * the file's, asked with --hash md5); the name from "/" with
 * " (deleted)" after a deleted entry's and "NAME (Volume Label Entry)"
 * for the label; for inode the byte offset of the entry in the volume
 * (exFAT: its file entry, FAT: its 8.3 entry), the same on every run;
 * the mode as fls writes it ("r/rrwxrwxrwx": the entry's type twice, then
 * r-x for all, w unless read-only, r unless hidden); UID and GID 0;
 * times in seconds since 1970 UTC, 0 where there is none: exFAT's with
 * its UTC offset and its 10-millisecond part, FAT's (no zone) taken as
 * local time of TZ, its access time a date (midnight); ctime (a change
 * of the entry) is 0, as neither volume records it, and crtime the
 * creation time.  A '|' or a control byte in a name is \xNN.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "bodyfile.h"
#include "entry.h"
#include "report.h"

/* s escaped (report.c), and a '|' as \x7c: the field separator never comes from the disk. */
static void body_name(FILE *out, const char *s)
{
	char esc[4400];

	report_escape_buf(esc, sizeof(esc), s);
	for (const char *p = esc; *p; p++)
		if (*p == '|')
			fputs("\\x7c", out);
		else
			fputc(*p, out);
}

static long long seconds(uint32_t ts, unsigned ms10, int utc)
{
	return ts ? (long long)entry_time(ts, ms10, utc).tv_sec : 0;
}

void body_line(FILE *out, const struct fsc_dirent *d, const char *md5, uint64_t size)
{
	char perm = d->attr & 0x02 ? '-' : 'r', write = d->attr & 0x01 ? '-' : 'w', type = d->dir ? 'd' : 'r';

	fprintf(out, "%s|", md5 ? md5 : "0");
	if (d->label)
		fputc('/', out);
	body_name(out, d->label ? d->name : d->path);
	fputs(d->label ? " (Volume Label Entry)" : d->deleted ? " (deleted)" : "", out);
	fprintf(out, "|%" PRIu64 "|%c/%c%c%cx%c%cx%c%cx|0|0|%" PRIu64 "|%lld|%lld|0|%lld\n", d->entry_offset, type,
		type, perm, write, perm, write, perm, write, size, seconds(d->atime, 0, d->atime_utc),
		seconds(d->mtime, d->mtime_10ms, d->mtime_utc), seconds(d->ctime, d->ctime_10ms, d->ctime_utc));
}
