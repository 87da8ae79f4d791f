/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peer.h - the peer tools (fsck.exfat, fsck.fat, mdir) run from the C
 * tests: found on PATH without a shell, run without one, given an image
 * written sparse.  Each process costs on a small machine; these keep it
 * to the tool's own.
 */
#ifndef FSC_TEST_PEER_H
#define FSC_TEST_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* prog is an executable file in a directory of PATH. */
bool peer_on_path(const char *prog);
/* Run argv (NULL-terminated, img appended when not NULL; argv[0] looked up
 * on PATH once) for at most secs seconds, stdin, stdout and stderr on
 * /dev/null: its exit status, or -1 when it did not run or was killed. */
int peer_run(const char *const *argv, const char *img, unsigned secs);
/* Write len bytes of buf to a new file at path (its 4 KiB blocks of zeros
 * left as holes): 0, or -errno. */
int peer_write_sparse(const char *path, const uint8_t *buf, size_t len);

#endif
