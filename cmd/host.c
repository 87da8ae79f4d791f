// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host.c - where fatscope extract writes: names from the volume made safe
 * for the host, and files and directories created only below the output
 * directory.  Every directory is opened component by component with
 * O_NOFOLLOW | O_DIRECTORY from the output directory's descriptor, every
 * file created with O_CREAT | O_EXCL | O_NOFOLLOW: no name can climb out
 * ('/' never reaches a name, nor "." or ".."), and no symbolic link found
 * in the output directory is followed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

bool host_safe_name(const char *name, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *s = (const unsigned char *)name; *s && o + 1 < len; s++)
		out[o++] = (*s == '/' || *s < 0x20 || *s == 0x7F) ? '_' : (char)*s;
	out[o] = '\0';
	if (!out[0] || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, len, "_%s", name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])) ? name : "");
	return strcmp(out, name) != 0;
}

int host_open_dir(int root, const char *rel)
{
	int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0 && *rel) {
		size_t n = strcspn(rel, "/");
		char comp[1024];
		int next, e;

		if (n == 0) {
			rel++;
			continue;
		}
		if (n >= sizeof(comp)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, rel, n);
		comp[n] = '\0';
		rel += n;
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(fd);
		errno = e;
		fd = next;
	}
	return fd < 0 ? -errno : fd;
}

int host_mkdir(int dir, const char *name)
{
	struct stat st;

	if (mkdirat(dir, name, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST;
}

int host_create(int dir, char *name, size_t len, bool replace, bool suffix)
{
	const int fl = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	size_t base = strlen(name);
	int fd = openat(dir, name, fl, 0644);

	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	if (replace && !suffix) {
		if (unlinkat(dir, name, 0) < 0)	/* a link is removed, never followed */
			return -errno;
		fd = openat(dir, name, fl, 0644);
		return fd >= 0 ? fd : -errno;
	}
	for (unsigned k = 1; suffix && k < 1000 && base + 6 < len; k++) {
		snprintf(name + base, len - base, "~%u", k);
		if ((fd = openat(dir, name, fl, 0644)) >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	name[base] = '\0';
	return -EEXIST;
}

/* A DOS timestamp (local time, or UTC plus utc minutes) as a timespec; UTIME_OMIT for none. */
static struct timespec host_time(uint32_t ts, unsigned ms10, int utc)
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

void host_times(const struct fsc_dirent *d, struct timespec ts[2])
{
	ts[0] = host_time(d->atime, 0, d->atime_utc);
	ts[1] = host_time(d->mtime, d->mtime_10ms, d->mtime_utc);
}
