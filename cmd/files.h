/* SPDX-License-Identifier: GPL-2.0-or-later */
/* files.h - reading a file of the volume for cat and extract (files.c). */
#ifndef FSC_FILES_H
#define FSC_FILES_H

#include "common.h"
#include "hash.h"

/* Where a file's bytes go: 0, or -errno. */
typedef int (*file_sink_fn)(void *ctx, const void *buf, size_t len);

/*
 * Open d through rd: 0, or after one line "fatscope: IMAGE: PATH: what
 * is wrong with its chain" the -errno (-ELOOP, -EUCLEAN, -ENOMEM); 1
 * when rd (FSC_READER_TO_BREAK) opened a damaged chain up to its break,
 * after one line that says what is wrong and how many bytes can be read.
 */
int file_open(const char *image, struct fsc_reader *rd, const struct fsc_dirent *d, struct fsc_file **f);
/*
 * Every byte of f to sink, in 1 MiB pieces: 0; the read's -errno after
 * one line; the sink's -errno (said by the sink's owner).
 */
int file_copy(const char *image, const char *path, struct fsc_file *f, file_sink_fn sink, void *ctx);
/* A sink that hashes what passes, then gives it to next (NULL: nowhere). */
struct file_hasher {
	struct hash_ctx h;
	file_sink_fn next;
	void *next_ctx;
};
int file_hash_sink(void *ctx, const void *buf, size_t len);
/* A deleted file's recovery in words: "intact", "partial: 2 of 5 clusters in use again, written as zeros". */
void file_recovery_text(const struct fsc_file *f, char *buf, size_t len);

#endif
