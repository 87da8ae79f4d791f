// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vhd.c - Virtual Hard Disk images (VHD: fixed, dynamic, differencing;
 * VHDX) through libvhdi, read-only; a differencing disk reads through
 * its parents, found beside it (cont_chain).
 *
 * Consumes: a path whose file is a VHD (footer cookie "conectix") or a
 * VHDX.  Produces: a device over the virtual disk, its format, disk type
 * and size.  The VHD footer (VHD specification 1.0, "Hard Disk Footer
 * Format") is checked here first, cookie and checksum, since libvhdi
 * reads a damaged one without a word; VHDX's own checksums are libvhdi's.
 * libvhdi is opened when a VHD is first met (cont_dl_bind).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libvhdi.h>

#include "io/container.h"

#define VHD_FOOTER 512
#define VHD_CHECKSUM 64			/* footer offset of the checksum */

/* The functions of libvhdi used here, bound once. */
#define VHD_FUNCS(F) \
	F(libvhdi_error_free) F(libvhdi_error_sprint) F(libvhdi_file_close) F(libvhdi_file_free) \
	F(libvhdi_file_get_bytes_per_sector) F(libvhdi_file_get_disk_type) F(libvhdi_file_get_file_type) \
	F(libvhdi_file_get_identifier) F(libvhdi_file_get_media_size) F(libvhdi_file_get_parent_identifier) \
	F(libvhdi_file_get_utf8_parent_filename) F(libvhdi_file_get_utf8_parent_filename_size) \
	F(libvhdi_file_initialize) F(libvhdi_file_open) F(libvhdi_file_read_buffer_at_offset) \
	F(libvhdi_file_set_parent_file) F(libvhdi_get_version)

CONT_DL_API(VHD_FUNCS, "VHD")

static bool made_from(libvhdi_file_t *f, libvhdi_file_t *parent)
{
	uint8_t want[16], got[16];

	return api.libvhdi_file_get_parent_identifier(f, want, sizeof(want), NULL) == 1 &&
	       api.libvhdi_file_get_identifier(parent, got, sizeof(got), NULL) == 1 && memcmp(want, got, 16) == 0;
}

static void api_bind(void)
{
	api.bound = CONT_DL_BIND(LIBVHDI_SONAME, VHD_FUNCS);
	api.yal = (struct cont_yal_ops){
		.title = "VHD", .read = api.libvhdi_file_read_buffer_at_offset, .sprint = api.libvhdi_error_sprint,
		.free_error = api.libvhdi_error_free, .close = api.libvhdi_file_close, .free = api.libvhdi_file_free,
		.set_parent = api.libvhdi_file_set_parent_file, .made_from = made_from,
	};
}

const char *vhd_library(void)
{
	static _Thread_local char v[200];	/* (one a thread: nothing shared) */

	return bound(v, sizeof(v)) ? cont_version(v, sizeof(v), "libvhdi", api.libvhdi_get_version()) : v;
}

/* The VHD footer of the file at path sound (a VHDX: not checked here): 0, or -EINVAL with why. */
static int check_footer(const char *path, char *why, size_t whylen)
{
	uint8_t head[8], foot[VHD_FOOTER];
	uint32_t sum = 0;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		r = -EIO;
	} else if (memcmp(head, "vhdxfile", 8) != 0) {
		if (st.st_size < VHD_FOOTER ||
		    pread(fd, foot, sizeof(foot), st.st_size - VHD_FOOTER) != (ssize_t)sizeof(foot)) {
			cont_why(why, whylen, "VHD: shorter than its footer");
			r = -EINVAL;
		} else if (memcmp(foot, "conectix", 8) != 0) {
			cont_why(why, whylen, "VHD footer damaged: no \"conectix\" cookie in the last 512 bytes");
			r = -EINVAL;
		} else {
			for (size_t i = 0; i < sizeof(foot); i++)
				sum += i >= VHD_CHECKSUM && i < VHD_CHECKSUM + 4 ? 0 : foot[i];
			if (~sum != get_be32(foot, VHD_CHECKSUM)) {
				cont_why(why, whylen, "VHD footer damaged: checksum 0x%08x, computed 0x%08x",
					 get_be32(foot, VHD_CHECKSUM), ~sum);
				r = -EINVAL;
			}
		}
	}
	close(fd);
	return r;
}

static int layer_open(void *ctx, const char *path, char *why, size_t whylen)
{
	struct cont_yal *v = ctx;
	libvhdi_error_t *err = NULL;
	int r = check_footer(path, why, whylen);

	if (r < 0)
		return r;
	if (api.libvhdi_file_initialize(&v->h[v->nh], &err) != 1) {
		cont_yal_why(v, why, whylen, NULL, &err);
		return -ENOMEM;
	}
	if (api.libvhdi_file_open(v->h[v->nh], path, LIBVHDI_OPEN_READ, &err) != 1) {
		cont_yal_why(v, why, whylen, NULL, &err);
		api.libvhdi_file_free(&v->h[v->nh], NULL);
		return -EIO;
	}
	v->layer[v->nh] = path;		/* one of c's files: kept until close */
	if (v->nh++ == 1)
		v->c.info.parent = path;
	return 0;
}

static int layer_parent(void *ctx, char **name)
{
	struct cont_yal *v = ctx;
	libvhdi_file_t *f = v->h[v->nh - 1];
	uint32_t type = 0;
	size_t size = 0;

	if (api.libvhdi_file_get_disk_type(f, &type, NULL) != 1 || type != LIBVHDI_DISK_TYPE_DIFFERENTIAL)
		return 0;
	if (api.libvhdi_file_get_utf8_parent_filename_size(f, &size, NULL) != 1 || size <= 1 || size > 65536)
		*name = strdup("(no parent name)");
	else if ((*name = malloc(size)) &&
		 api.libvhdi_file_get_utf8_parent_filename(f, (uint8_t *)*name, size, NULL) != 1)
		(*name)[0] = '\0';
	return *name ? 1 : -ENOMEM;
}

static const struct cont_chain_ops vhd_chain = { layer_open, layer_parent };

static const struct dev_ops vhd_ops = {
	.name = "vhd",
	.read = cont_yal_read,
	.write = cont_nowrite,
	.close = cont_yal_close,
};

/* The disk's description, once its layers are linked. */
static int describe(struct cont_yal *v, char *why, size_t whylen)
{
	struct fsc_container_info *in = &v->c.info;
	size64_t size = 0;
	uint32_t type = 0, bps = 0;
	int ftype = 0;

	if (api.libvhdi_file_get_media_size(v->h[0], &size, NULL) != 1) {
		cont_why(why, whylen, "VHD: no media size");
		return -EINVAL;
	}
	api.libvhdi_file_get_disk_type(v->h[0], &type, NULL);
	api.libvhdi_file_get_file_type(v->h[0], &ftype, NULL);
	api.libvhdi_file_get_bytes_per_sector(v->h[0], &bps, NULL);
	in->format = FSC_CONTAINER_VHD;
	in->variant = ftype == LIBVHDI_FILE_TYPE_VHDX ? "vhdx" : "vhd";
	in->disk_type = type == LIBVHDI_DISK_TYPE_FIXED ? "fixed" : type == LIBVHDI_DISK_TYPE_DYNAMIC ? "dynamic" :
			type == LIBVHDI_DISK_TYPE_DIFFERENTIAL ? "differencing" : NULL;
	in->media_size = size;
	in->bytes_per_sector = bps;
	return 0;
}

int vhd_open(const char *path, struct fsc_dev **out, char *why, size_t whylen)
{
	struct cont_yal *v;
	int r;

	if (!bound(why, whylen))
		return -ENOTSUP;
	if (!(v = calloc(1, sizeof(*v))))
		return -ENOMEM;
	cont_yal_init(v, &api.yal);
	r = cont_chain(&v->c, v, &vhd_chain, path, "VHD", why, whylen);
	if (r >= 0)
		r = cont_yal_link(v, why, whylen);
	if (r >= 0)
		r = describe(v, why, whylen);
	if (r >= 0 && !(*out = cont_dev_new(&vhd_ops, v, &v->c)))
		r = -ENOMEM;
	if (r < 0) {
		cont_yal_close(&(struct fsc_dev){ .priv = v });
		return r;
	}
	return 1;
}
