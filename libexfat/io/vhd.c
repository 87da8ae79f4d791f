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
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libvhdi.h>

#include "io/container.h"

#define VHD_FOOTER 512
#define VHD_CHECKSUM 64			/* footer offset of the checksum */

struct vhd {
	struct cinfo c;
	libvhdi_file_t *f[CONT_MAX_PARENTS + 2];	/* f[0] the disk, f[i + 1] the parent of f[i] */
	int nf;
	pthread_mutex_t lock;		/* a file keeps an offset and caches */
};

static char version[48];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void set_version(void)
{
	snprintf(version, sizeof(version), "libvhdi %s", libvhdi_get_version());
}

const char *vhd_library(void)
{
	pthread_once(&version_once, set_version);
	return version;
}

static void lib_why(char *why, size_t len, const char *prefix, libvhdi_error_t **err)
{
	char msg[512] = "";

	if (*err) {
		libvhdi_error_sprint(*err, msg, sizeof(msg));
		libvhdi_error_free(err);
	}
	cont_why_lib(why, len, prefix, msg);
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
	struct vhd *v = ctx;
	libvhdi_error_t *err = NULL;
	int r = check_footer(path, why, whylen);

	if (r < 0)
		return r;
	if (libvhdi_file_initialize(&v->f[v->nf], &err) != 1) {
		lib_why(why, whylen, "VHD", &err);
		return -ENOMEM;
	}
	if (libvhdi_file_open(v->f[v->nf], path, LIBVHDI_OPEN_READ, &err) != 1) {
		lib_why(why, whylen, "VHD", &err);
		libvhdi_file_free(&v->f[v->nf], NULL);
		return -EIO;
	}
	if (v->nf++ == 1)
		v->c.info.parent = path;	/* one of c's files: kept until close */
	return 0;
}

static int layer_parent(void *ctx, char **name)
{
	struct vhd *v = ctx;
	libvhdi_file_t *f = v->f[v->nf - 1];
	uint32_t type = 0;
	size_t size = 0;

	if (libvhdi_file_get_disk_type(f, &type, NULL) != 1 || type != LIBVHDI_DISK_TYPE_DIFFERENTIAL)
		return 0;
	if (libvhdi_file_get_utf8_parent_filename_size(f, &size, NULL) != 1 || size <= 1 || size > 65536)
		*name = strdup("(no parent name)");
	else if ((*name = malloc(size)) &&
		 libvhdi_file_get_utf8_parent_filename(f, (uint8_t *)*name, size, NULL) != 1)
		(*name)[0] = '\0';
	return *name ? 1 : -ENOMEM;
}

static const struct cont_chain_ops vhd_chain = { layer_open, layer_parent };

static int vhd_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	struct vhd *v = d->priv;
	uint8_t *p = buf;
	int r = 0;

	pthread_mutex_lock(&v->lock);
	while (len && !r) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t n = libvhdi_file_read_buffer_at_offset(v->f[0], p, chunk, (off64_t)off, NULL);

		if (n <= 0 || (size_t)n > chunk) {
			r = -EIO;
			break;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	pthread_mutex_unlock(&v->lock);
	return r;
}

static void vhd_free(struct vhd *v)
{
	for (int i = 0; i < v->nf; i++) {	/* the child before its parent */
		libvhdi_file_close(v->f[i], NULL);
		libvhdi_file_free(&v->f[i], NULL);
	}
	pthread_mutex_destroy(&v->lock);
	cinfo_free(&v->c);
	free(v);
}

static void vhd_close(struct fsc_dev *d)
{
	vhd_free(d->priv);
}

static const struct dev_ops vhd_ops = {
	.name = "vhd",
	.read = vhd_read,
	.write = cont_nowrite,
	.close = vhd_close,
};

/* Each layer reads through its parent, the deepest first; then the disk's description. */
static int link_and_describe(struct vhd *v, char *why, size_t whylen)
{
	struct fsc_container_info *in = &v->c.info;
	libvhdi_error_t *err = NULL;
	size64_t size = 0;
	uint32_t type = 0, bps = 0;
	int ftype = 0;

	for (int i = v->nf - 2; i >= 0; i--)
		if (libvhdi_file_set_parent_file(v->f[i], v->f[i + 1], &err) != 1) {
			lib_why(why, whylen, "differencing VHD", &err);
			return -EINVAL;
		}
	if (libvhdi_file_get_media_size(v->f[0], &size, NULL) != 1) {
		cont_why(why, whylen, "VHD: no media size");
		return -EINVAL;
	}
	libvhdi_file_get_disk_type(v->f[0], &type, NULL);
	libvhdi_file_get_file_type(v->f[0], &ftype, NULL);
	libvhdi_file_get_bytes_per_sector(v->f[0], &bps, NULL);
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
	struct vhd *v = calloc(1, sizeof(*v));
	int r;

	if (!v)
		return -ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	r = cont_chain(&v->c, v, &vhd_chain, path, "VHD", why, whylen);
	if (r >= 0)
		r = link_and_describe(v, why, whylen);
	if (r >= 0 && !(*out = cont_dev_new(&vhd_ops, v, &v->c)))
		r = -ENOMEM;
	if (r < 0) {
		vhd_free(v);
		return r;
	}
	return 1;
}
