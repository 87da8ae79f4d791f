// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host.c - where fatscope extract writes: names from the volume made safe
 * for the host (and, asked, for Windows), shortened to the host's longest
 * name on a character boundary, and files and directories created only
 * below the output directory.  Every directory is opened component by
 * component with O_NOFOLLOW | O_DIRECTORY from the output directory's
 * descriptor, every file created with O_CREAT | O_EXCL | O_NOFOLLOW: no
 * name can climb out ('/' never reaches a name, nor "." or ".."), and no
 * symbolic link found in the output directory is followed.  A name the
 * host folds onto an entry spelt otherwise (a case-insensitive host) is
 * found by reading the directory (host_folds), and what a run made is
 * remembered by device and inode (struct host_made), so that the same
 * name twice (a damaged volume) is told from a file that was there before.
 *
 * FATSCOPE_TEST_FOLD_CASE=1 (tests only) makes this file compare names as
 * a case-insensitive host would (ASCII letters), on any file system.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"
#include "hash.h"
#include "host.h"

/* Windows' own rules (names it refuses whatever the file system). */
static bool windows_device(const char *name)
{
	static const char *const dev[] = { "CON", "PRN", "AUX", "NUL" };
	size_t n = strcspn(name, ".");

	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (n == 3 && strncasecmp(name, dev[i], 3) == 0)
			return true;
	return n == 4 && (strncasecmp(name, "COM", 3) == 0 || strncasecmp(name, "LPT", 3) == 0) &&
	       name[3] >= '1' && name[3] <= '9';
}

static void portable(char *s, size_t len)
{
	size_t n = strlen(s);

	for (char *p = s; *p; p++)
		if (strchr("\"*:<>?\\|", *p))
			*p = '_';
	while (n && (s[n - 1] == '.' || s[n - 1] == ' '))
		s[--n] = '_';
	if (windows_device(s) && n + 2 <= len) {
		memmove(s + 1, s, n + 1);
		s[0] = '_';
	}
}

void host_fit(const char *name, const char *tag, size_t max, char *out, size_t len)
{
	const char *dot = strrchr(name, '.');
	size_t n = strlen(name), t = strlen(tag), e = dot && dot != name && strlen(dot) <= 17 ? strlen(dot) : 0;
	size_t stem = n - e;

	if (t + e > max)
		e = 0, stem = n;
	if (stem + t + e > max) {
		stem = max > t + e ? max - t - e : 0;
		while (stem && ((unsigned char)name[stem] & 0xC0) == 0x80)
			stem--;	/* never half a character */
	}
	snprintf(out, len, "%.*s%s%s", (int)stem, name, tag, e ? name + n - e : "");
}

bool host_safe_name(const char *name, unsigned flags, size_t max, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *s = (const unsigned char *)name; *s && o + 1 < len; s++)
		out[o++] = (*s == '/' || *s < 0x20 || *s == 0x7F) ? '_' : (char)*s;
	out[o] = '\0';
	if (!out[0] || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, len, "_%s", name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])) ? name : "");
	if (flags & HOST_PORTABLE)
		portable(out, len);
	if (strlen(out) > max) {
		struct hash_ctx h;
		char hex[HASH_COUNT][HASH_HEX_MAX], tag[16], *whole = strdup(out);

		hash_init(&h, 1u << HASH_SHA1);
		hash_update(&h, name, strlen(name));
		hash_final(&h, hex);
		snprintf(tag, sizeof(tag), "~%.8s", hex[HASH_SHA1]);
		if (whole)
			host_fit(whole, tag, max, out, len);
		else
			out[max] = '\0';	/* (out of memory: a plain cut, never more than max) */
		free(whole);
	}
	return strcmp(out, name) != 0;
}

size_t host_name_max(int dir)
{
	long n = fpathconf(dir, _PC_NAME_MAX);

	return n > 0 && n < 4096 ? (size_t)n : NAME_MAX;
}

/* FATSCOPE_TEST_FOLD_CASE: the name in dir equal to name but for the case of ASCII letters, into found. */
static bool folded(int dir, const char *name, char *found, size_t len)
{
	const char *env = getenv("FATSCOPE_TEST_FOLD_CASE");
	int fd;
	DIR *d;
	struct dirent *e;
	bool hit = false;

	if (!env || strcmp(env, "1") != 0 || (fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return false;
	}
	while (!hit && (e = readdir(d)))
		if (strcasecmp(e->d_name, name) == 0 && strcmp(e->d_name, name) != 0)
			hit = (size_t)snprintf(found, len, "%s", e->d_name) < len;
	closedir(d);
	return hit;
}

/* fstatat without following a link, names compared as the host does (or as FATSCOPE_TEST_FOLD_CASE says). */
static int stat_name(int dir, const char *name, struct stat *st)
{
	char other[1024];

	if (folded(dir, name, other, sizeof(other)))
		name = other;
	return fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
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
	int r;

	if (stat_name(dir, name, &st) == 0 || mkdirat(dir, name, 0755) < 0) {
		if ((r = stat_name(dir, name, &st)) < 0)
			return r;
		return S_ISDIR(st.st_mode) ? 1 : S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST;
	}
	return 0;
}

int host_mkdir_new(int dir, char *name, size_t len, size_t max)
{
	char *base = strdup(name);
	int r = -EEXIST;

	for (unsigned k = 1; base && k < 1000 && r == -EEXIST; k++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "~%u", k);
		host_fit(base, tag, max, name, len);
		r = host_mkdir(dir, name);
		r = r == 1 ? -EEXIST : r;
	}
	free(base);
	return base ? r : -ENOMEM;
}

/* openat O_EXCL, with a name the host (or FATSCOPE_TEST_FOLD_CASE) folds onto another taken too. */
static int create(int dir, const char *name)
{
	char other[1024];
	int fd;

	if (folded(dir, name, other, sizeof(other)))
		return -EEXIST;
	fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd >= 0 ? fd : -errno;
}

int host_create(int dir, char *name, size_t len, size_t max, unsigned how)
{
	char *base;
	int fd = create(dir, name);

	if (fd != -EEXIST)
		return fd;
	if ((how & HOST_REPLACE) && !(how & HOST_SUFFIX)) {
		char other[1024];

		/* a link is removed, never followed */
		if (unlinkat(dir, folded(dir, name, other, sizeof(other)) ? other : name, 0) < 0)
			return -errno;
		return create(dir, name);
	}
	if (!(how & HOST_SUFFIX) || !(base = strdup(name)))
		return how & HOST_SUFFIX ? -ENOMEM : -EEXIST;
	for (unsigned k = 1; k < 1000 && fd == -EEXIST; k++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "~%u", k);
		host_fit(base, tag, max, name, len);
		fd = create(dir, name);
	}
	if (fd == -EEXIST)
		snprintf(name, len, "%s", base);
	free(base);
	return fd;
}

void host_times(const struct fsc_dirent *d, struct timespec ts[2])
{
	ts[0] = entry_time(d->atime, 0, d->atime_utc);
	ts[1] = entry_time(d->mtime, d->mtime_10ms, d->mtime_utc);
}

int host_made_add(struct host_made *m, int dir, const char *name)
{
	struct stat st;
	int r = stat_name(dir, name, &st);

	if (r < 0)
		return r;
	if (!grow_array((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return -ENOMEM;
	m->v[m->n++] = (struct host_id){ st.st_dev, st.st_ino };
	return 0;
}

bool host_made_has(const struct host_made *m, int dir, const char *name)
{
	struct stat st;

	if (stat_name(dir, name, &st) < 0)
		return false;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].dev == st.st_dev && m->v[i].ino == st.st_ino)
			return true;
	return false;
}

bool host_folds(int dir, const char *name)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;
	bool exact = false;

	if (stat_name(dir, name, &st) < 0 || (fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;	/* (free, or cannot tell: taken as it is) */
	if (!(d = fdopendir(fd))) {
		close(fd);
		return false;
	}
	while (!exact && (e = readdir(d)))
		exact = strcmp(e->d_name, name) == 0;
	closedir(d);
	return !exact;
}

void host_made_reset(struct host_made *m)
{
	m->n = 0;
}
