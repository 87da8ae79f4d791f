// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * manifest.c - the manifest extract --hash writes beside the tree, in the
 * format hashdeep(1) writes and audits (`hashdeep -a -k MANIFEST -r DIR`):
 * two "%%%% " header lines (the format and the columns: size, the digests
 * in hashdeep's order md5, sha1, sha256, filename), "## " comment lines,
 * then a line a file, "SIZE,DIGEST...,PATH" with the absolute path, as
 * hashdeep names files when it walks DIR.  What a file's bytes are (a
 * deleted file recovered, in part or whole; a chain read up to its break;
 * a cross-link) is a comment line before it, which hashdeep skips.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "manifest.h"
#include "report.h"

int manifest_open(struct manifest *m, const char *path, const char *outdir, unsigned set, bool replace,
		  int argc, char **argv)
{
	char cwd[PATH_MAX], esc[PATH_MAX * 4];
	int fd, e;

	memset(m, 0, sizeof(*m));
	if (!(m->base = realpath(outdir, NULL)))
		return -errno;
	if (replace)
		unlink(path);	/* a link is removed, never followed */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(m->f = fdopen(fd, "w"))) {
		e = errno;
		if (fd >= 0)
			close(fd);
		free(m->base);
		m->base = NULL;
		return -e;
	}
	m->set = set;
	fputs("%%%% HASHDEEP-1.0\n%%%% size", m->f);
	for (int a = 0; a < HASH_COUNT; a++)
		if (set & 1u << a)
			fprintf(m->f, ",%s", hash_name((enum hash_algo)a));
	fprintf(m->f, ",filename\n## Invoked from: %s\n## #",
		report_escape_buf(esc, sizeof(esc), getcwd(cwd, sizeof(cwd)) ? cwd : "?"));
	for (int i = 0; i < argc; i++)
		fprintf(m->f, " %s", report_escape_buf(esc, sizeof(esc), argv[i]));
	fputs("\n## \n", m->f);
	return 0;
}

void manifest_note(struct manifest *m, const char *what, const char *path)
{
	char esc[4400];

	if (!m->f)
		return;
	fprintf(m->f, "## fatscope: %s: ", report_escape_buf(esc, sizeof(esc), what));
	fprintf(m->f, "%s\n", report_escape_buf(esc, sizeof(esc), path));
}

void manifest_file(struct manifest *m, const char *rel, struct hash_ctx *h)
{
	char hex[HASH_COUNT][HASH_HEX_MAX];
	uint64_t len = h->len;

	hash_final(h, hex);
	if (!m->f)
		return;
	fprintf(m->f, "%llu", (unsigned long long)len);
	for (int a = 0; a < HASH_COUNT; a++)
		if (m->set & 1u << a)
			fprintf(m->f, ",%s", hex[a]);
	/* (names below DIR are the host-safe ones extract wrote: no control byte, no newline) */
	fprintf(m->f, ",%s%s%s\n", strcmp(m->base, "/") ? m->base : "", *rel == '/' ? "" : "/", rel);
}

int manifest_close(struct manifest *m)
{
	int r = 0;

	if (m->f && (ferror(m->f) | fclose(m->f)))
		r = errno ? -errno : -EIO;
	free(m->base);
	memset(m, 0, sizeof(*m));
	return r;
}
