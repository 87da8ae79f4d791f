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
 * missing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libvmdk.h>

#include "io/container.h"

struct vmdk {
	struct cinfo c;
	libvmdk_handle_t *h[CONT_MAX_PARENTS + 2];	/* h[0] the disk, h[i + 1] the parent of h[i] */
	libbfio_pool_t *pool[CONT_MAX_PARENTS + 2];	/* each one's extent files */
	int nh;
	pthread_mutex_t lock;		/* a handle keeps an offset and caches */
};

static char version[48];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void set_version(void)
{
	snprintf(version, sizeof(version), "libvmdk %s", libvmdk_get_version());
}

const char *vmdk_library(void)
{
	pthread_once(&version_once, set_version);
	return version;
}

static void lib_why(char *why, size_t len, const char *prefix, libvmdk_error_t **err)
{
	char msg[512] = "";

	if (*err) {
		libvmdk_error_sprint(*err, msg, sizeof(msg));
		libvmdk_error_free(err);
	}
	cont_why_lib(why, len, prefix, msg);
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
	if (libvmdk_handle_get_extent_descriptor(h, i, &e, NULL) != 1)
		return -EIO;
	libvmdk_extent_descriptor_get_type(e, &type, NULL);
	if (libvmdk_extent_descriptor_get_utf8_filename_size(e, &size, NULL) == 1 && size > 1 && size <= 65536 &&
	    (name = malloc(size)) && libvmdk_extent_descriptor_get_utf8_filename(e, (uint8_t *)name, size, NULL) == 1) {
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
	libvmdk_extent_descriptor_free(&e, NULL);
	return r;
}

/* The extent files of the last handle opened, in a pool it reads from; each added to the files read. */
static int open_extents(struct vmdk *v, const char *path, char *why, size_t whylen)
{
	libvmdk_handle_t *h = v->h[v->nh - 1];
	libvmdk_error_t *err = NULL;
	libbfio_handle_t *fh = NULL;
	int n = 0, r = 0;

	if (libvmdk_handle_get_number_of_extents(h, &n, NULL) != 1 || n < 1 ||
	    libbfio_pool_initialize(&v->pool[v->nh - 1], 0, 64, NULL) != 1)
		return -EIO;
	for (int i = 0; i < n && !r; i++) {
		char *file;

		if ((r = extent_file(h, i, n, path, &file, why, whylen)) < 0)
			break;
		if (!file) {
			cont_why(why, whylen, "VMDK: extent %d has no file", i + 1);
			r = -EINVAL;
		} else if (libbfio_file_initialize(&fh, NULL) != 1 ||
			   libbfio_file_set_name(fh, file, strlen(file), NULL) != 1 ||
			   libbfio_pool_append_handle(v->pool[v->nh - 1], &(int){ 0 }, fh, LIBBFIO_OPEN_READ, NULL) != 1) {
			if (fh)
				libbfio_handle_free(&fh, NULL);
			r = -ENOMEM;
		} else if (strcmp(file, path) != 0) {
			r = cinfo_file(&v->c, file);
		}
		fh = NULL;		/* the pool's now */
		free(file);
	}
	if (!r && libvmdk_handle_open_extent_data_files_file_io_pool(h, v->pool[v->nh - 1], &err) != 1) {
		lib_why(why, whylen, "VMDK", &err);
		r = -EIO;
	}
	return r;
}

static int layer_open(void *ctx, const char *path, char *why, size_t whylen)
{
	struct vmdk *v = ctx;
	libvmdk_error_t *err = NULL;

	if (libvmdk_handle_initialize(&v->h[v->nh], &err) != 1) {
		lib_why(why, whylen, "VMDK", &err);
		return -ENOMEM;
	}
	if (libvmdk_handle_open(v->h[v->nh], path, LIBVMDK_OPEN_READ, &err) != 1) {
		lib_why(why, whylen, "VMDK", &err);
		libvmdk_handle_free(&v->h[v->nh], NULL);
		return -EIO;
	}
	if (v->nh++ == 1)
		v->c.info.parent = path;	/* one of c's files: kept until close */
	return open_extents(v, path, why, whylen);
}

static int layer_parent(void *ctx, char **name)
{
	struct vmdk *v = ctx;
	size_t size = 0;

	if (libvmdk_handle_get_utf8_parent_filename_size(v->h[v->nh - 1], &size, NULL) != 1 || size <= 1 ||
	    size > 65536)
		return 0;
	*name = malloc(size);
	if (*name && libvmdk_handle_get_utf8_parent_filename(v->h[v->nh - 1], (uint8_t *)*name, size, NULL) != 1)
		(*name)[0] = '\0';
	return *name ? 1 : -ENOMEM;
}

static const struct cont_chain_ops vmdk_chain = { layer_open, layer_parent };

static int vmdk_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	struct vmdk *v = d->priv;
	uint8_t *p = buf;
	int r = 0;

	pthread_mutex_lock(&v->lock);
	while (len && !r) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t n = libvmdk_handle_read_buffer_at_offset(v->h[0], p, chunk, (off64_t)off, NULL);

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

static void vmdk_free(struct vmdk *v)
{
	for (int i = 0; i < v->nh; i++) {	/* the child before its parent */
		libvmdk_handle_close(v->h[i], NULL);
		libvmdk_handle_free(&v->h[i], NULL);
	}
	for (int i = 0; i < CONT_MAX_PARENTS + 2; i++)
		if (v->pool[i])
			libbfio_pool_free(&v->pool[i], NULL);
	pthread_mutex_destroy(&v->lock);
	cinfo_free(&v->c);
	free(v);
}

static void vmdk_close(struct fsc_dev *d)
{
	vmdk_free(d->priv);
}

static const struct dev_ops vmdk_ops = {
	.name = "vmdk",
	.read = vmdk_read,
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

/* Each layer reads through its parent, the deepest first; then the disk's description. */
static int link_and_describe(struct vmdk *v, char *why, size_t whylen)
{
	struct fsc_container_info *in = &v->c.info;
	libvmdk_error_t *err = NULL;
	size64_t size = 0;
	int type = 0;

	for (int i = v->nh - 2; i >= 0; i--)
		if (libvmdk_handle_set_parent_handle(v->h[i], v->h[i + 1], &err) != 1) {
			lib_why(why, whylen, "VMDK delta disk", &err);
			return -EINVAL;
		}
	if (libvmdk_handle_get_media_size(v->h[0], &size, NULL) != 1) {
		cont_why(why, whylen, "VMDK: no media size");
		return -EINVAL;
	}
	libvmdk_handle_get_disk_type(v->h[0], &type, NULL);
	in->format = FSC_CONTAINER_VMDK;
	in->disk_type = disk_type_name(type);
	in->media_size = size;
	return 0;
}

int vmdk_open(const char *path, struct fsc_dev **out, char *why, size_t whylen)
{
	struct vmdk *v = calloc(1, sizeof(*v));
	int r;

	if (!v)
		return -ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	r = cont_chain(&v->c, v, &vmdk_chain, path, "VMDK", why, whylen);
	if (r >= 0)
		r = link_and_describe(v, why, whylen);
	if (r >= 0 && !(*out = cont_dev_new(&vmdk_ops, v, &v->c)))
		r = -ENOMEM;
	if (r < 0) {
		vmdk_free(v);
		return r;
	}
	return 1;
}
