// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peer.c - run the peer tools from the C tests (peer.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer.h"

extern char **environ;

bool peer_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	for (const char *s = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *s;) {
		size_t n = strcspn(s, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? s : ".", prog);
		if (access(buf, X_OK) == 0)
			return true;
		s += n + (s[n] == ':');
	}
	return false;
}

int peer_run(const char *const *argv, const char *img, unsigned secs)
{
	const char *av[20];
	char limit[16];
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	snprintf(limit, sizeof(limit), "%u", secs);
	av[n++] = "timeout";
	av[n++] = limit;
	for (size_t i = 0; argv[i] && n < 17; i++)
		av[n++] = argv[i];
	if (img)
		av[n++] = img;
	av[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "timeout", &fa, NULL, (char *const *)av, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int peer_write_sparse(const char *path, const uint8_t *buf, size_t len)
{
	static const uint8_t zero[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), err = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0)
		err = -errno;
	for (size_t o = 0; !err && o < len; o += sizeof(zero)) {
		size_t n = len - o < sizeof(zero) ? len - o : sizeof(zero);

		if (!memcmp(buf + o, zero, n))
			continue;
		if (pwrite(fd, buf + o, n, (off_t)o) != (ssize_t)n)
			err = errno ? -errno : -EIO;
	}
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}
