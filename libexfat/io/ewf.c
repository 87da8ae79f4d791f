// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ewf.c - Expert Witness Compression Format (EnCase .E01, .E02, ...; FTK,
 * SMART and libewf's own variants) through libewf: the segment set found
 * from any segment named (libewf_glob), read-only.  libewf is opened when
 * an EWF file is first met (cont_dl_bind), not when the library is loaded.
 *
 * Consumes: a path whose file starts with an EWF signature.  Produces: a
 * device over the acquired media and its acquisition metadata (case,
 * evidence number, examiner, description, notes, dates, the MD5 and
 * SHA-1 stored at acquisition); refuses a set libewf finds incomplete or
 * damaged (a segment missing or truncated) and logical evidence (L01).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libewf.h>

#include "io/container.h"

/* The functions of libewf used here, bound once. */
#define EWF_FUNCS(F) \
	F(libewf_error_free) F(libewf_error_sprint) F(libewf_get_version) F(libewf_glob) F(libewf_glob_free) \
	F(libewf_handle_close) F(libewf_handle_free) F(libewf_handle_get_bytes_per_sector) \
	F(libewf_handle_get_format) F(libewf_handle_get_md5_hash) F(libewf_handle_get_media_size) \
	F(libewf_handle_get_media_type) F(libewf_handle_get_sha1_hash) F(libewf_handle_get_utf8_header_value) \
	F(libewf_handle_get_utf8_header_value_size) F(libewf_handle_initialize) F(libewf_handle_open) \
	F(libewf_handle_read_random) F(libewf_handle_segment_files_corrupted) \
	F(libewf_handle_set_header_values_date_format)

CONT_DL_API(EWF_FUNCS, "EWF")

static void api_bind(void)
{
	api.bound = CONT_DL_BIND(LIBEWF_SONAME, EWF_FUNCS);
	api.yal = (struct cont_yal_ops){
		.title = "EWF", .read = api.libewf_handle_read_random, .sprint = api.libewf_error_sprint,
		.free_error = api.libewf_error_free, .close = api.libewf_handle_close, .free = api.libewf_handle_free,
	};
}

const char *ewf_library(void)
{
	static _Thread_local char v[200];	/* (one a thread: nothing shared) */

	return bound(v, sizeof(v)) ? cont_version(v, sizeof(v), "libewf", api.libewf_get_version()) : v;
}

static const struct dev_ops ewf_ops = {
	.name = "ewf",
	.read = cont_yal_read,
	.write = cont_nowrite,
	.close = cont_yal_close,
};

/* The header value id, kept in e->c, or NULL when absent. */
static const char *header(struct cont_yal *e, const char *id)
{
	size_t size = 0;
	uint8_t *val;
	const char *kept = NULL;

	if (api.libewf_handle_get_utf8_header_value_size(e->h[0], (const uint8_t *)id, strlen(id), &size, NULL) != 1 ||
	    size <= 1 || size > (1u << 20) || !(val = malloc(size)))
		return NULL;
	if (api.libewf_handle_get_utf8_header_value(e->h[0], (const uint8_t *)id, strlen(id), val, size, NULL) == 1)
		kept = cinfo_str(&e->c, (const char *)val, strnlen((const char *)val, size));
	free(val);
	return kept;
}

static const char *format_name(uint8_t f)
{
	static const char *const names[] = {
		[LIBEWF_FORMAT_ENCASE1] = "encase1", [LIBEWF_FORMAT_ENCASE2] = "encase2",
		[LIBEWF_FORMAT_ENCASE3] = "encase3", [LIBEWF_FORMAT_ENCASE4] = "encase4",
		[LIBEWF_FORMAT_ENCASE5] = "encase5", [LIBEWF_FORMAT_ENCASE6] = "encase6",
		[LIBEWF_FORMAT_ENCASE7] = "encase7", [LIBEWF_FORMAT_SMART] = "smart",
		[LIBEWF_FORMAT_FTK_IMAGER] = "ftk", [LIBEWF_FORMAT_LINEN5] = "linen5",
		[LIBEWF_FORMAT_LINEN6] = "linen6", [LIBEWF_FORMAT_LINEN7] = "linen7",
		[LIBEWF_FORMAT_EWF] = "ewf", [LIBEWF_FORMAT_EWFX] = "ewfx",
	};
	return f < sizeof(names) / sizeof(names[0]) ? names[f] : NULL;
}

static const char *media_name(uint8_t t)
{
	switch (t) {
	case LIBEWF_MEDIA_TYPE_REMOVABLE: return "removable";
	case LIBEWF_MEDIA_TYPE_FIXED: return "fixed";
	case LIBEWF_MEDIA_TYPE_OPTICAL: return "optical";
	case LIBEWF_MEDIA_TYPE_MEMORY: return "memory";
	default: return NULL;
	}
}

/* Media size, format and acquisition metadata into e->c.info: 0, or -EINVAL for logical evidence. */
static int describe(struct cont_yal *e, char *why, size_t whylen)
{
	struct fsc_container_info *in = &e->c.info;
	size64_t size = 0;
	uint32_t bps = 0;
	uint8_t fmt = 0, media = 0;

	libewf_handle_t *h = e->h[0];

	api.libewf_handle_get_format(h, &fmt, NULL);
	api.libewf_handle_get_media_type(h, &media, NULL);
	if ((fmt >= LIBEWF_FORMAT_LOGICAL_ENCASE5 && fmt <= LIBEWF_FORMAT_LOGICAL_ENCASE7) ||
	    media == LIBEWF_MEDIA_TYPE_SINGLE_FILES) {
		cont_why(why, whylen, "logical evidence (L01): it holds files, not a disk");
		return -EINVAL;
	}
	if (api.libewf_handle_get_media_size(h, &size, NULL) != 1) {
		cont_why(why, whylen, "EWF: no media size");
		return -EINVAL;
	}
	api.libewf_handle_get_bytes_per_sector(h, &bps, NULL);
	*in = (struct fsc_container_info){ .format = FSC_CONTAINER_EWF, .variant = format_name(fmt),
					   .disk_type = media_name(media), .media_size = size,
					   .bytes_per_sector = bps, .files = in->files, .nfiles = in->nfiles };
	api.libewf_handle_set_header_values_date_format(h, LIBEWF_DATE_FORMAT_ISO8601, NULL);
	in->case_number = header(e, "case_number");
	in->evidence_number = header(e, "evidence_number");
	in->examiner = header(e, "examiner_name");
	in->description = header(e, "description");
	in->notes = header(e, "notes");
	in->acquired = header(e, "acquiry_date");
	in->acquired_os = header(e, "acquiry_operating_system");
	in->acquired_software = header(e, "acquiry_software_version");
	in->has_md5 = api.libewf_handle_get_md5_hash(h, in->md5, sizeof(in->md5), NULL) == 1;
	in->has_sha1 = api.libewf_handle_get_sha1_hash(h, in->sha1, sizeof(in->sha1), NULL) == 1;
	return 0;
}

/* Open the segments of names: 0, or -errno with why. */
static int open_set(struct cont_yal *e, char **names, int n, char *why, size_t whylen)
{
	libewf_error_t *err = NULL;

	if (api.libewf_handle_initialize(&e->h[0], &err) != 1) {
		cont_yal_why(e, why, whylen, NULL, &err);
		return -ENOMEM;
	}
	if (api.libewf_handle_open(e->h[0], names, n, LIBEWF_OPEN_READ, &err) != 1) {
		cont_yal_why(e, why, whylen, NULL, &err);
		api.libewf_handle_free(&e->h[0], NULL);
		return -EIO;
	}
	e->nh = 1;
	/* A set cut short (a segment missing from the end, or truncated) reads as zeros: refuse it. */
	if (api.libewf_handle_segment_files_corrupted(e->h[0], NULL) != 0) {
		cont_why(why, whylen, "EWF segment set incomplete or damaged (%d file%s, %s to %s): %s", n,
			 n == 1 ? "" : "s", names[0], names[n - 1], "a segment is missing or truncated");
		return -EIO;
	}
	for (int i = 0; i < n; i++)
		if (cinfo_file(&e->c, names[i]) < 0)
			return -ENOMEM;
	return 0;
}

int ewf_open(const char *path, struct fsc_dev **out, char *why, size_t whylen)
{
	struct cont_yal *e;
	libewf_error_t *err = NULL;
	char **names = NULL;
	int n = 0, r;

	if (!bound(why, whylen))
		return -ENOTSUP;
	if (!(e = calloc(1, sizeof(*e))))
		return -ENOMEM;
	cont_yal_init(e, &api.yal);
	if (api.libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names, &n, &err) != 1 || n < 1) {
		cont_yal_why(e, why, whylen, "segments", &err);
		cont_yal_close(&(struct fsc_dev){ .priv = e });
		return -ENOENT;
	}
	r = open_set(e, names, n, why, whylen);
	api.libewf_glob_free(names, n, NULL);
	if (r == 0)
		r = describe(e, why, whylen);
	if (r == 0 && !(*out = cont_dev_new(&ewf_ops, e, &e->c)))
		r = -ENOMEM;
	if (r < 0) {
		cont_yal_close(&(struct fsc_dev){ .priv = e });
		return r;
	}
	return 1;
}
