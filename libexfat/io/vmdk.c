// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmdk.c - VMware virtual disks through libvmdk, read-only: a descriptor
 * (a text file, or embedded in a monolithic sparse extent) and the
 * extent files it names, found beside it (cont_beside); a monolithic
 * sparse file renamed since it was made is its own extent.  A delta disk
 * reads through its parents (cont_chain).
 *
 * Consumes: a path whose file starts with "KDMV", "COWD" or "# Disk
 * DescriptorFile".  Produces: a device over the virtual disk, its
 * createType and size; one line naming an extent or parent that is
 * missing.  libvmdk and libbfio are opened when a VMDK is first met
 * (cont_dl_bind).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libvmdk.h>

#include "io/container.h"

struct vmdk {
	struct cont_yal y;		/* first: the device's priv is read as one */
	libbfio_pool_t *pool[CONT_MAX_PARENTS + 2];	/* each handle's extent files */
};

/* The functions of libvmdk and libbfio used here, bound once. */
#define VMDK_FUNCS(F) \
	F(libvmdk_error_free) F(libvmdk_error_sprint) F(libvmdk_extent_descriptor_free) \
	F(libvmdk_extent_descriptor_get_type) F(libvmdk_extent_descriptor_get_utf8_filename) \
	F(libvmdk_extent_descriptor_get_utf8_filename_size) F(libvmdk_get_version) F(libvmdk_handle_close) \
	F(libvmdk_handle_free) F(libvmdk_handle_get_content_identifier) F(libvmdk_handle_get_disk_type) \
	F(libvmdk_handle_get_extent_descriptor) F(libvmdk_handle_get_media_size) \
	F(libvmdk_handle_get_number_of_extents) F(libvmdk_handle_get_parent_content_identifier) \
	F(libvmdk_handle_get_utf8_parent_filename) F(libvmdk_handle_get_utf8_parent_filename_size) \
	F(libvmdk_handle_initialize) F(libvmdk_handle_open) F(libvmdk_handle_open_extent_data_files_file_io_pool) \
	F(libvmdk_handle_read_buffer_at_offset) F(libvmdk_handle_set_parent_handle)
#define BFIO_FUNCS(F) \
	F(libbfio_file_initialize) F(libbfio_file_set_name) F(libbfio_handle_free) F(libbfio_pool_append_handle) \
	F(libbfio_pool_free) F(libbfio_pool_initialize)
#define ALL_FUNCS(F) VMDK_FUNCS(F) BFIO_FUNCS(F)

CONT_DL_API(ALL_FUNCS, "VMDK")

/* The parent's content ID is the one the delta disk recorded: the parent has not changed since. */
static bool made_from(libvmdk_handle_t *h, libvmdk_handle_t *parent)
{
	uint32_t want = 0, got = 0;

	return api.libvmdk_handle_get_parent_content_identifier(h, &want, NULL) == 1 &&
	       api.libvmdk_handle_get_content_identifier(parent, &got, NULL) == 1 && want == got;
}

static void api_bind(void)
{
	api.bound = CONT_DL_BIND(LIBBFIO_SONAME, BFIO_FUNCS) && CONT_DL_BIND(LIBVMDK_SONAME, VMDK_FUNCS);
	api.yal = (struct cont_yal_ops){
		.title = "VMDK", .read = api.libvmdk_handle_read_buffer_at_offset, .sprint = api.libvmdk_error_sprint,
		.free_error = api.libvmdk_error_free, .close = api.libvmdk_handle_close, .free = api.libvmdk_handle_free,
		.set_parent = api.libvmdk_handle_set_parent_handle, .made_from = made_from,
	};
}

const char *vmdk_library(void)
{
	static _Thread_local char v[200];	/* (one a thread: nothing shared) */

	return bound(v, sizeof(v)) ? cont_version(v, sizeof(v), "libvmdk", api.libvmdk_get_version()) : v;
}

/* Is the file at path a sparse extent itself (a descriptor embedded in it)? */
static bool is_sparse(const char *path)
{
	uint8_t m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	bool yes = fd >= 0 && read(fd, m, 4) == 4 && (memcmp(m, "KDMV", 4) == 0 || memcmp(m, "COWD", 4) == 0);

	if (fd >= 0)
		close(fd);
	return yes;
}

/* Extent i's file as found beside path (malloc'd in *file; NULL: it has none): 0 or -errno with why. */
static int extent_file(libvmdk_handle_t *h, int i, int n, const char *path, char **file, char *why, size_t whylen)
{
	libvmdk_extent_descriptor_t *e = NULL;
	size_t size = 0;
	char *name = NULL;
	int type = 0, r = 0;

	*file = NULL;
	if (api.libvmdk_handle_get_extent_descriptor(h, i, &e, NULL) != 1)
		return -EIO;
	api.libvmdk_extent_descriptor_get_type(e, &type, NULL);
	if (api.libvmdk_extent_descriptor_get_utf8_filename_size(e, &size, NULL) == 1 && size > 1 && size <= 65536 &&
	    (name = malloc(size)) && api.libvmdk_extent_descriptor_get_utf8_filename(e, (uint8_t *)name, size, NULL) == 1) {
		*file = cont_beside(path, name);
		if (*file && access(*file, F_OK) != 0) {
			free(*file);
			*file = NULL;
			if (n == 1 && type == LIBVMDK_EXTENT_TYPE_SPARSE && is_sparse(path)) {
				*file = strdup(path);	/* a monolithic sparse file, renamed */
			} else {
				cont_why(why, whylen, "VMDK: extent file %s is missing (%s names it)", name, path);
				r = -ENOENT;
			}
		}
		r = r || *file ? r : -ENOMEM;
	}
	free(name);
	api.libvmdk_extent_descriptor_free(&e, NULL);
	return r;
}

/* The extent files of the last handle opened, in a pool it reads from; each added to the files read. */
static int open_extents(struct vmdk *v, const char *path, char *why, size_t whylen)
{
	libvmdk_handle_t *h = v->y.h[v->y.nh - 1];
	libbfio_pool_t **pool = &v->pool[v->y.nh - 1];
	libvmdk_error_t *err = NULL;
	libbfio_handle_t *fh = NULL;
	int n = 0, r = 0;

	if (api.libvmdk_handle_get_number_of_extents(h, &n, NULL) != 1 || n < 1 ||
	    api.libbfio_pool_initialize(pool, 0, 64, NULL) != 1)
		return -EIO;
	for (int i = 0; i < n && !r; i++) {
		char *file;

		if ((r = extent_file(h, i, n, path, &file, why, whylen)) < 0)
			break;
		if (!file) {
			cont_why(why, whylen, "VMDK: extent %d has no file", i + 1);
			r = -EINVAL;
		} else if (api.libbfio_file_initialize(&fh, NULL) != 1 ||
			   api.libbfio_file_set_name(fh, file, strlen(file), NULL) != 1 ||
			   api.libbfio_pool_append_handle(*pool, &(int){ 0 }, fh, LIBBFIO_OPEN_READ, NULL) != 1) {
			if (fh)
				api.libbfio_handle_free(&fh, NULL);
			r = -ENOMEM;
		} else if (strcmp(file, path) != 0) {
			r = cinfo_file(&v->y.c, file);
		}
		fh = NULL;		/* the pool's now */
		free(file);
	}
	if (!r && api.libvmdk_handle_open_extent_data_files_file_io_pool(h, *pool, &err) != 1) {
		cont_yal_why(&v->y, why, whylen, NULL, &err);
		r = -EIO;
	}
	return r;
}

static int layer_open(void *ctx, const char *path, char *why, size_t whylen)
{
	struct vmdk *v = ctx;
	struct cont_yal *y = &v->y;
	libvmdk_error_t *err = NULL;

	if (api.libvmdk_handle_initialize(&y->h[y->nh], &err) != 1) {
		cont_yal_why(y, why, whylen, NULL, &err);
		return -ENOMEM;
	}
	if (api.libvmdk_handle_open(y->h[y->nh], path, LIBVMDK_OPEN_READ, &err) != 1) {
		cont_yal_why(y, why, whylen, NULL, &err);
		api.libvmdk_handle_free(&y->h[y->nh], NULL);
		return -EIO;
	}
	y->layer[y->nh] = path;		/* one of c's files: kept until close */
	if (y->nh++ == 1)
		y->c.info.parent = path;
	return open_extents(v, path, why, whylen);
}

static int layer_parent(void *ctx, char **name)
{
	struct cont_yal *y = &((struct vmdk *)ctx)->y;
	size_t size = 0;

	if (api.libvmdk_handle_get_utf8_parent_filename_size(y->h[y->nh - 1], &size, NULL) != 1 || size <= 1 ||
	    size > 65536)
		return 0;
	*name = malloc(size);
	if (*name && api.libvmdk_handle_get_utf8_parent_filename(y->h[y->nh - 1], (uint8_t *)*name, size, NULL) != 1)
		(*name)[0] = '\0';
	return *name ? 1 : -ENOMEM;
}

static const struct cont_chain_ops vmdk_chain = { layer_open, layer_parent };

static void vmdk_close(struct fsc_dev *d)
{
	struct vmdk *v = d->priv;

	cont_yal_free(&v->y);		/* the handles before the pools they read */
	for (int i = 0; i < CONT_MAX_PARENTS + 2; i++)
		if (v->pool[i])
			api.libbfio_pool_free(&v->pool[i], NULL);
	free(v);
}

static const struct dev_ops vmdk_ops = {
	.name = "vmdk",
	.read = cont_yal_read,
	.write = cont_nowrite,
	.close = vmdk_close,
};

static const char *disk_type_name(int t)
{
	static const char *const names[] = {
		[LIBVMDK_DISK_TYPE_2GB_EXTENT_FLAT] = "twoGbMaxExtentFlat",
		[LIBVMDK_DISK_TYPE_2GB_EXTENT_SPARSE] = "twoGbMaxExtentSparse",
		[LIBVMDK_DISK_TYPE_CUSTOM] = "custom", [LIBVMDK_DISK_TYPE_DEVICE] = "fullDevice",
		[LIBVMDK_DISK_TYPE_DEVICE_PARITIONED] = "partitionedDevice",
		[LIBVMDK_DISK_TYPE_MONOLITHIC_FLAT] = "monolithicFlat",
		[LIBVMDK_DISK_TYPE_MONOLITHIC_SPARSE] = "monolithicSparse",
		[LIBVMDK_DISK_TYPE_STREAM_OPTIMIZED] = "streamOptimized",
		[LIBVMDK_DISK_TYPE_VMFS_FLAT] = "vmfs", [LIBVMDK_DISK_TYPE_VMFS_FLAT_PRE_ALLOCATED] = "vmfsPreallocated",
		[LIBVMDK_DISK_TYPE_VMFS_FLAT_ZEROED] = "vmfsEagerZeroedThick", [LIBVMDK_DISK_TYPE_VMFS_RAW] = "vmfsRaw",
		[LIBVMDK_DISK_TYPE_VMFS_RDM] = "vmfsRawDeviceMap",
		[LIBVMDK_DISK_TYPE_VMFS_RDMP] = "vmfsPassthroughRawDeviceMap",
		[LIBVMDK_DISK_TYPE_VMFS_SPARSE] = "vmfsSparse", [LIBVMDK_DISK_TYPE_VMFS_SPARSE_THIN] = "vmfsThin",
	};
	return t > 0 && (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : NULL;
}

/* The disk's description, once its layers are linked. */
static int describe(struct cont_yal *y, char *why, size_t whylen)
{
	struct fsc_container_info *in = &y->c.info;
	size64_t size = 0;
	int type = 0;

	if (api.libvmdk_handle_get_media_size(y->h[0], &size, NULL) != 1) {
		cont_why(why, whylen, "VMDK: no media size");
		return -EINVAL;
	}
	api.libvmdk_handle_get_disk_type(y->h[0], &type, NULL);
	in->format = FSC_CONTAINER_VMDK;
	in->disk_type = disk_type_name(type);
	in->media_size = size;
	return 0;
}

int vmdk_open(const char *path, struct fsc_dev **out, char *why, size_t whylen)
{
	struct vmdk *v;
	int r;

	if (!bound(why, whylen))
		return -ENOTSUP;
	if (!(v = calloc(1, sizeof(*v))))
		return -ENOMEM;
	cont_yal_init(&v->y, &api.yal);
	r = cont_chain(&v->y.c, v, &vmdk_chain, path, "VMDK", why, whylen);
	if (r >= 0)
		r = cont_yal_link(&v->y, why, whylen);
	if (r >= 0)
		r = describe(&v->y, why, whylen);
	if (r >= 0 && !(*out = cont_dev_new(&vmdk_ops, v, &v->y.c)))
		r = -ENOMEM;
	if (r < 0) {
		vmdk_close(&(struct fsc_dev){ .priv = v });
		return r;
	}
	return 1;
}
