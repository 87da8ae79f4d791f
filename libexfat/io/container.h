/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io/container.h - evidence containers as read-only device backends:
 * container.c recognises a file and picks the backend (split.c, ewf.c,
 * vhd.c, vmdk.c); cinfo.c holds what they share.  Not installed.
 *
 * A backend's open returns 1 and a device, 0 when the file is not its
 * kind after all (split.c: a lone segment), or -errno with one line in
 * why.  Its device reads media bytes (dev.c keeps reads inside them),
 * refuses writes (-EROFS) and points dev->container at its cinfo.
 */
#ifndef FSC_IO_CONTAINER_H
#define FSC_IO_CONTAINER_H

#include <pthread.h>
#include <sys/types.h>

#include "io/io.h"

/* The info of a container and the strings it points to (owned). */
struct cinfo {
	struct fsc_container_info info;
	char **strs;			/* every string kept, freed at close */
	size_t nstrs, capstrs;
	char **files;			/* info.files */
	size_t capfiles;
};

/* A copy of s (len bytes, or up to its NUL when len is SIZE_MAX) kept in c; NULL without memory. */
const char *cinfo_str(struct cinfo *c, const char *s, size_t len);
/* Add path to info.files (copied): 0 or -ENOMEM. */
int cinfo_file(struct cinfo *c, const char *path);
void cinfo_free(struct cinfo *c);

/* A device of info.media_size bytes over ops and priv, read-only, its sector size the container's. */
struct fsc_dev *cont_dev_new(const struct dev_ops *ops, void *priv, struct cinfo *c);
/* dev_ops.write of every container: -EROFS. */
int cont_nowrite(struct fsc_dev *d, uint64_t off, const void *buf, size_t len);

/* One line into why (when not NULL): printf-style. */
void cont_why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * One line into why from a libyal library's message (libewf, libvhdi,
 * libvmdk: "function: what."), after prefix: the function names and the
 * last full stop left out, the first line only.
 */
void cont_why_lib(char *why, size_t len, const char *prefix, const char *msg);
/*
 * Where the file a container names (a parent, an extent; '/' or '\'
 * separated, as written in it) is looked for: a relative name with
 * directories from path's directory when that file exists, else its last
 * component in path's directory.  malloc'd; NULL without memory.
 */
char *cont_beside(const char *path, const char *name);

/*
 * container.c: the container at path opened read-only (1), 0 when it is
 * none (or not a regular file), -EMEDIUMTYPE for a writer (why: the
 * format's title), or -errno with why.
 */
int container_open(const char *path, int flags, struct fsc_dev **out, char *why, size_t whylen);

int split_open(const char *path, struct fsc_dev **out, char *why, size_t whylen);
#ifdef HAVE_LIBEWF
int ewf_open(const char *path, struct fsc_dev **out, char *why, size_t whylen);
const char *ewf_library(void);
#endif
#ifdef HAVE_LIBVHDI
int vhd_open(const char *path, struct fsc_dev **out, char *why, size_t whylen);
const char *vhd_library(void);
#endif
#ifdef HAVE_LIBVMDK
int vmdk_open(const char *path, struct fsc_dev **out, char *why, size_t whylen);
const char *vmdk_library(void);
#endif

/* Parents of differencing disks (VHD, VMDK) followed at most this deep. */
#define CONT_MAX_PARENTS 16

/*
 * The libyal libraries (libewf, libvhdi, libvmdk) give every handle and
 * error the type intptr_t, and their reads, messages, parents and
 * teardown the same shapes: one set of functions serves the three.
 */
struct cont_yal_ops {
	const char *title;		/* "EWF", "VHD", "VMDK": in messages */
	ssize_t (*read)(intptr_t *h, void *buf, size_t len, int64_t off, intptr_t **err);
	int (*sprint)(intptr_t *err, char *s, size_t len);
	void (*free_error)(intptr_t **err);
	int (*close)(intptr_t *h, intptr_t **err);
	int (*free)(intptr_t **h, intptr_t **err);
	int (*set_parent)(intptr_t *h, intptr_t *parent, intptr_t **err);	/* NULL: no parents */
	/* Is parent the disk h was made from (its identifier, as h records it)? */
	bool (*made_from)(intptr_t *h, intptr_t *parent);
};

/* A libyal container: the first member of a backend's state (its dev->priv). */
struct cont_yal {
	struct cinfo c;
	const struct cont_yal_ops *ops;
	intptr_t *h[CONT_MAX_PARENTS + 2];	/* h[0] the disk, h[i + 1] the parent of h[i] */
	const char *layer[CONT_MAX_PARENTS + 2];	/* the file of each (one of c's files) */
	int nh;				/* opened */
	pthread_mutex_t lock;		/* a handle keeps an offset and caches; the exFAT check reads from two threads */
};

void cont_yal_init(struct cont_yal *y, const struct cont_yal_ops *ops);
/* dev_ops.read of the three: through h[0], under the lock, a short read -EIO. */
int cont_yal_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len);
/*
 * Each layer reads through its parent, the deepest first, once each parent
 * is found to be the disk its child was made from: 0, or -EINVAL with why.
 */
int cont_yal_link(struct cont_yal *y, char *why, size_t whylen);
/* Close and free the handles, the child first; the info too. */
void cont_yal_free(struct cont_yal *y);
/* dev_ops.close of a backend whose state is a struct cont_yal alone (malloc'd): cont_yal_free, free. */
void cont_yal_close(struct fsc_dev *d);
/* why from the library's error *err (freed), after prefix (cont_why_lib). */
void cont_yal_why(const struct cont_yal *y, char *why, size_t len, const char *prefix, intptr_t **err);
/*
 * An optional library, opened when a container first needs it (dlopen):
 * a program that reads raw images never maps libewf, libvhdi or libvmdk.
 * cont_dl_bind opens soname and stores the address of each of the n
 * functions names[i] in *slots[i]: true, or false with why (dlerror's
 * words) and no slot set.  The caller runs it once (pthread_once).
 */
bool cont_dl_bind(const char *soname, const char *const *names, void **const *slots, size_t n, char *why,
		  size_t whylen);
/*
 * A backend's bound functions: CONT_DL_API(FUNCS, TITLE) declares the
 * static struct api (a pointer a function FUNCS lists, as F(name)
 * F(name)..., typed as the library's header declares it; the backend's yal
 * ops; bound and why), api_once, and bound(why, whylen): the functions
 * bound (once, by the backend's own api_bind, which binds them with
 * CONT_DL_BIND and fills api.yal), or false with why.
 * Written once, read-only after.
 */
#define CONT_DL_PTR(f) __typeof__(f) *f;
#define CONT_DL_NAME(f) #f,
#define CONT_DL_SLOT(f) (void **)&api.f,
#define CONT_DL_API(FUNCS, TITLE) \
	static struct { \
		FUNCS(CONT_DL_PTR) \
		struct cont_yal_ops yal; \
		bool bound; \
		char why[160]; \
	} api; \
	static pthread_once_t api_once = PTHREAD_ONCE_INIT; \
	static void api_bind(void); \
	static bool bound(char *why, size_t whylen) \
	{ \
		return cont_dl_bound(&api_once, api_bind, &api.bound, TITLE, api.why, why, whylen); \
	}
/* cont_dl_bind of soname's functions FUNCS into api (its why the message). */
#define CONT_DL_BIND(soname, FUNCS) \
	cont_dl_bind(soname, (const char *const[]){ FUNCS(CONT_DL_NAME) }, (void **const[]){ FUNCS(CONT_DL_SLOT) }, \
		     sizeof((const char *const[]){ FUNCS(CONT_DL_NAME) }) / sizeof(const char *), api.why, \
		     sizeof(api.why))
/* pthread_once(once, bind), then *bound, or false with why ("TITLE: err"). */
bool cont_dl_bound(pthread_once_t *once, void (*bind)(void), const bool *bound, const char *title, const char *err,
		   char *why, size_t whylen);

/* "LIB VERSION" in buf (a thread-local buffer of the caller), made once (buf empty until then). */
const char *cont_version(char *buf, size_t len, const char *lib, const char *version);

/* A differencing disk and its parents, as a backend opens them (vhd.c, vmdk.c). */
struct cont_chain_ops {
	/* Open the layer at path as the next one (the disk, then each parent): 0, or -errno with why. */
	int (*open)(void *ctx, const char *path, char *why, size_t whylen);
	/* The parent the last layer opened names: 1 and *name (malloc'd), 0 none, -errno. */
	int (*parent)(void *ctx, char **name);
};

/*
 * Open path and then each parent it names (found by cont_beside from the
 * layer that names it), at most CONT_MAX_PARENTS, adding each file to
 * c's files (a layer's open may add its own after it: extents): the
 * number of layers opened, or -errno with why (a parent missing:
 * -ENOENT, title in the message).  The caller links them.
 */
int cont_chain(struct cinfo *c, void *ctx, const struct cont_chain_ops *ops, const char *path,
	       const char *title, char *why, size_t whylen);

#endif
