// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck_lost.c - fatscope fsck --lost-to DIR: the directory (made, mode
 * 0700, when missing) and its files.  Consumes the lost chains' bytes as
 * the repair planner reads them (fsc_repair_opts.lost_bytes); produces
 * one new file DIR/FILEnnnn.CHK a chain, numbered from the first number
 * no file there has: an existing file is never overwritten, so a second
 * run into the same directory goes on where the first stopped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsck.h"

/* FILE0000.CHK to FILE9999.CHK, then five digits and more: a bound on the names tried. */
#define LOST_NAMES_MAX 1000000u

/* What went wrong, in ld->err, for the caller's one line: -1. */
static int fail(struct lost_dir *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct lost_dir *ld, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ld->err, sizeof(ld->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Open ld->path as a directory: 0, -ENOENT (missing), or -1 (ld->err says why). */
static int open_dir(struct lost_dir *ld)
{
	ld->dirfd = open(ld->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ld->dirfd >= 0 || errno == ENOENT)
		return ld->dirfd >= 0 ? 0 : -ENOENT;
	return fail(ld, _("cannot open the directory: %s"), strerror(errno));
}

int lost_dir_open(struct lost_dir *ld, const char *path)
{
	*ld = (struct lost_dir){ .path = path, .dirfd = -1, .fd = -1 };
	return open_dir(ld) == -1 ? -1 : 0;	/* a missing one is made for the first chain */
}

/* The missing directory made, mode 0700, and its name durable in its parent. */
static int make_dir(struct lost_dir *ld)
{
	char parent[4096];
	const char *slash = strrchr(ld->path, '/');
	int pfd;

	if (mkdir(ld->path, 0700) < 0 && errno != EEXIST)
		return fail(ld, _("cannot make the directory: %s"), strerror(errno));
	if (open_dir(ld) < 0)
		return ld->err[0] ? -1 : fail(ld, _("cannot open the directory: %s"), strerror(ENOENT));
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - ld->path) + 1 : 1, slash ? ld->path : ".");
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		fsync(pfd);	/* best effort: the files' own fsync and the directory's follow */
		close(pfd);
	}
	return 0;
}

/* The current file durable and closed (if one is open). */
static int close_file(struct lost_dir *ld)
{
	int fd = ld->fd;

	ld->fd = -1;
	if (fd >= 0 && (fsync(fd) < 0 || close(fd) < 0))
		return fail(ld, _("cannot write %s: %s"), ld->name, strerror(errno));
	return 0;
}

/* A new file of the next free number. */
static int next_file(struct lost_dir *ld)
{
	while (ld->next < LOST_NAMES_MAX) {
		snprintf(ld->name, sizeof(ld->name), "FILE%04u.CHK", ld->next++);
		ld->fd = openat(ld->dirfd, ld->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (ld->fd >= 0) {
			ld->files++;
			return 0;
		}
		if (errno != EEXIST)
			return fail(ld, _("cannot create %s: %s"), ld->name, strerror(errno));
	}
	return fail(ld, _("no free FILEnnnn.CHK name left (%u taken)"), LOST_NAMES_MAX);
}

int lost_dir_write(struct lost_dir *ld, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (off == 0 && (close_file(ld) < 0 || (ld->dirfd < 0 && make_dir(ld) < 0) || next_file(ld) < 0))
		return -1;
	while (len) {
		ssize_t w = pwrite(ld->fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail(ld, _("cannot write %s: %s"), ld->name, w < 0 ? strerror(errno) : _("no space"));
		p += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

int lost_dir_close(struct lost_dir *ld)
{
	int bad = close_file(ld);

	if (ld->dirfd >= 0 && fsync(ld->dirfd) < 0 && errno != EINVAL)
		bad = fail(ld, _("cannot make the directory durable: %s"), strerror(errno));
	if (ld->dirfd >= 0)
		close(ld->dirfd);
	ld->dirfd = -1;
	return bad;
}
