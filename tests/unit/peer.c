// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peer.c - run the peer tools from the C tests (peer.h): each found on PATH
 * once, spawned without a shell or timeout(1), its time limit kept here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer.h"

extern char **environ;

/* prog's path in the first directory of PATH that holds it, into buf; false: none. */
static bool find_on_path(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	for (const char *s = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *s;) {
		size_t n = strcspn(s, ":");

		snprintf(buf, len, "%.*s/%s", (int)n, n ? s : ".", prog);
		if (access(buf, X_OK) == 0)
			return true;
		s += n + (s[n] == ':');
	}
	return false;
}

bool peer_on_path(const char *prog)
{
	char buf[4096];

	return find_on_path(prog, buf, sizeof(buf));
}

/*
 * The path of prog, looked up once: the peers run hundreds of times, and
 * execvp would try every directory of a long PATH each time.
 */
static const char *resolved(const char *prog)
{
	static struct {
		char name[32];
		char path[4096];
	} seen[8];
	static size_t n;
	size_t i;

	if (strchr(prog, '/'))
		return prog;
	for (i = 0; i < n; i++)
		if (strcmp(seen[i].name, prog) == 0)
			return seen[i].path;
	if (n == sizeof(seen) / sizeof(seen[0]) || strlen(prog) >= sizeof(seen[n].name) ||
	    !find_on_path(prog, seen[n].path, sizeof(seen[n].path)))
		return NULL;
	strcpy(seen[n].name, prog);
	return seen[n++].path;
}

/*
 * Wait for pid at most secs seconds (a pidfd polled; where the kernel has
 * none, without a limit): its status, or -1 after killing it.
 */
static int wait_limited(pid_t pid, unsigned secs)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), st;

	if (fd >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r;

		while ((r = poll(&pfd, 1, (int)(secs * 1000u))) < 0 && errno == EINTR)
			;
		close(fd);
		if (r == 0)
			kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int peer_run(const char *const *argv, const char *img, unsigned secs)
{
	const char *av[20], *prog = resolved(argv[0]);
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	if (!prog)
		return -1;
	for (size_t i = 0; argv[i] && n < 18; i++)
		av[n++] = argv[i];
	if (img)
		av[n++] = img;
	av[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawn(&pid, prog, &fa, NULL, (char *const *)av, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	return wait_limited(pid, secs);
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
