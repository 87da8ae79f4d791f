// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * files.c - what cat and extract share to read a file of the volume: the
 * open that says what is wrong with a chain (and how far it can be read),
 * the copy loop, a sink that hashes what passes, and the words for how
 * much of a deleted file was recovered.  Bytes come from the
 * library (fsc_file_read); nothing here reads the disk.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "report.h"

int file_hash_sink(void *ctx, const void *buf, size_t len)
{
	struct file_hasher *h = ctx;

	hash_update(&h->h, buf, len);
	return h->next ? h->next(h->next_ctx, buf, len) : 0;
}

int file_open(const char *image, struct fsc_reader *rd, const struct fsc_dirent *d, struct fsc_file **f)
{
	char why[160], path[4400];
	int r = fsc_file_open(rd, d, f, why, sizeof(why));
	uint64_t n;

	if (r < 0) {
		errmsg(image, "%s: %s", report_escape_buf(path, sizeof(path), d->path), why);
		return r;
	}
	if (!fsc_file_damage(*f))
		return 0;
	n = fsc_file_size(*f);
	report_escape_buf(path, sizeof(path), d->path);
	if (n < d->size)
		errmsg(image, _("%s: %s: only its first %" PRIu64 " of %" PRIu64 " bytes can be read"), path, why, n,
		       d->size);
	else
		errmsg(image, _("%s: %s: its %" PRIu64 " bytes can all be read"), path, why, n);
	return 1;
}

int file_copy(const char *image, const char *path, struct fsc_file *f, file_sink_fn sink, void *ctx)
{
	size_t cap = 1u << 20;
	uint8_t *buf = malloc(cap);
	uint64_t off = 0;
	int64_t n;
	int r = 0;
	char esc[4400];

	if (!buf)
		return -ENOMEM;
	while ((n = fsc_file_read(f, off, buf, cap)) > 0) {
		if ((r = sink(ctx, buf, (size_t)n)) < 0)
			break;
		off += (uint64_t)n;
	}
	if (n < 0) {
		errmsg(image, _("%s: read error at byte %" PRIu64 ": %s"), report_escape_buf(esc, sizeof(esc), path),
		       off, strerror((int)-n));
		r = (int)n;
	}
	free(buf);
	return r;
}

void file_recovery_text(const struct fsc_file *f, char *buf, size_t len)
{
	uint64_t reused, all = fsc_file_clusters(f, &reused);
	enum fsc_recovery st = fsc_file_recovery(f);

	if (st == FSC_REC_PARTIAL)
		snprintf(buf, len, _("partial: %" PRIu64 " of %" PRIu64 " clusters in use again, written as zeros"),
			 reused, all);
	else
		snprintf(buf, len, "%s", fsc_recovery_name(st));
}
