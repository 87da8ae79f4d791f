// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cinfo.c - what the container backends share: the info they fill (and
 * the strings it points to), their device, their messages, where the
 * files a container names are found, the chain of a differencing disk's
 * parents, and what the three libyal backends (ewf.c, vhd.c, vmdk.c) do
 * alike: read, link parents, close, say what is wrong, open their library
 * when first needed (cont_dl_bind).
 *
 * Consumes: the backends' findings.  Produces: struct fsc_container_info
 * with owned strings, one-line messages.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/container.h"

const char *cinfo_str(struct cinfo *c, const char *s, size_t len)
{
	char *copy;

	if (len == SIZE_MAX)
		len = strlen(s);
	if (!grow((void **)&c->strs, &c->capstrs, c->nstrs + 1, sizeof(*c->strs)))
		return NULL;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	c->strs[c->nstrs++] = copy;
	return copy;
}

int cinfo_file(struct cinfo *c, const char *path)
{
	const char *kept;

	if (!grow((void **)&c->files, &c->capfiles, c->info.nfiles + 1, sizeof(*c->files)))
		return -ENOMEM;
	kept = cinfo_str(c, path, SIZE_MAX);
	if (!kept)
		return -ENOMEM;
	c->files[c->info.nfiles++] = (char *)kept;
	c->info.files = (const char *const *)c->files;
	return 0;
}

void cinfo_free(struct cinfo *c)
{
	for (size_t i = 0; i < c->nstrs; i++)
		free(c->strs[i]);
	free(c->strs);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

int cont_nowrite(struct fsc_dev *d, uint64_t off, const void *buf, size_t len)
{
	(void)d, (void)off, (void)buf, (void)len;
	return -EROFS;
}

struct fsc_dev *cont_dev_new(const struct dev_ops *ops, void *priv, struct cinfo *c)
{
	struct fsc_dev *d = dev_new(ops, priv, c->info.media_size);
	uint32_t bps = c->info.bytes_per_sector;

	if (!d)
		return NULL;
	if (bps >= 512 && bps <= 4096 && is_pow2_u32(bps))
		d->sector_size = bps;
	d->container = &c->info;
	return d;
}

void cont_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Does s (up to end) look like "function_name: " (no space before the colon)? */
static const char *past_function(const char *s, const char *end)
{
	const char *c = s;

	while (c < end && *c != ':' && *c != ' ')
		c++;
	return c + 1 < end && c[0] == ':' && c[1] == ' ' && c > s ? c + 2 : s;
}

void cont_why_lib(char *why, size_t len, const char *prefix, const char *msg)
{
	const char *s = msg ? msg : "", *end = s + strcspn(s, "\r\n");

	s = past_function(s, end);
	while (end > s && (end[-1] == '.' || end[-1] == ' '))
		end--;
	if (end == s)
		cont_why(why, len, "%s", prefix);
	else
		cont_why(why, len, "%s: %.*s", prefix, (int)(end - s), s);
}

static char *join(const char *path, size_t dir, const char *name)
{
	char *out = malloc(dir + strlen(name) + 1);

	if (out) {
		memcpy(out, path, dir);
		strcpy(out + dir, name);
	}
	return out;
}

char *cont_beside(const char *path, const char *name)
{
	const char *base = name, *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	char *out;

	for (const char *c = name; *c; c++)
		if (*c == '/' || *c == '\\')
			base = c + 1;
	/* A relative name as written first ("../base.vmdk"), then its last component beside path. */
	if (base != name && name[0] != '/' && !strchr(name, '\\')) {
		out = join(path, dir, name);
		if (!out || access(out, F_OK) == 0)
			return out;
		free(out);
	}
	return join(path, dir, base);
}

int cont_chain(struct cinfo *c, void *ctx, const struct cont_chain_ops *ops, const char *path,
	       const char *title, char *why, size_t whylen)
{
	char *name = NULL, *next = NULL;
	int layers = 0, r = cinfo_file(c, path);
	size_t cur = 0;			/* files[cur]: the layer being opened (its open may add extents after it) */

	while (r >= 0 && (r = ops->open(ctx, c->files[cur], why, whylen)) == 0) {
		layers++;
		if ((r = ops->parent(ctx, &name)) <= 0)
			break;
		if (!(next = cont_beside(c->files[cur], name))) {
			r = -ENOMEM;
		} else if (layers > CONT_MAX_PARENTS) {
			cont_why(why, whylen, "%s: more than %d parents (%s names %s)", title, CONT_MAX_PARENTS,
				 c->files[cur], name);
			r = -ELOOP;
		} else if (access(next, F_OK) != 0) {
			cont_why(why, whylen, "differencing %s: its parent %s is missing (%s names \"%s\")", title,
				 next, c->files[cur], name);
			r = -ENOENT;
		} else if ((r = cinfo_file(c, next)) == 0) {
			cur = c->info.nfiles - 1;
		}
		free(name);
		free(next);
		name = next = NULL;
	}
	return r < 0 ? r : layers;
}

void cont_yal_init(struct cont_yal *y, const struct cont_yal_ops *ops)
{
	y->ops = ops;
	pthread_mutex_init(&y->lock, NULL);
}

int cont_yal_read(struct fsc_dev *d, uint64_t off, void *buf, size_t len)
{
	struct cont_yal *y = d->priv;
	uint8_t *p = buf;
	int r = 0;

	pthread_mutex_lock(&y->lock);
	while (len) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t n = y->ops->read(y->h[0], p, chunk, (int64_t)off, NULL);

		if (n <= 0 || (size_t)n > chunk) {
			r = -EIO;
			break;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	pthread_mutex_unlock(&y->lock);
	return r;
}

int cont_yal_link(struct cont_yal *y, char *why, size_t whylen)
{
	intptr_t *err = NULL;

	for (int i = 0; i + 1 < y->nh; i++)
		if (!y->ops->made_from(y->h[i], y->h[i + 1])) {
			cont_why(why, whylen, "differencing %s: %s is not the disk %s was made from (its identifier differs)",
				 y->ops->title, y->layer[i + 1], y->layer[i]);
			return -EINVAL;
		}
	for (int i = y->nh - 2; i >= 0; i--)
		if (y->ops->set_parent(y->h[i], y->h[i + 1], &err) != 1) {
			cont_yal_why(y, why, whylen, "differencing disk", &err);
			return -EINVAL;
		}
	return 0;
}

void cont_yal_free(struct cont_yal *y)
{
	for (int i = 0; i < y->nh; i++) {
		y->ops->close(y->h[i], NULL);
		y->ops->free(&y->h[i], NULL);
	}
	pthread_mutex_destroy(&y->lock);
	cinfo_free(&y->c);
}

void cont_yal_close(struct fsc_dev *d)
{
	cont_yal_free(d->priv);
	free(d->priv);
}

void cont_yal_why(const struct cont_yal *y, char *why, size_t len, const char *prefix, intptr_t **err)
{
	char msg[512] = "", full[64];

	if (*err) {
		y->ops->sprint(*err, msg, sizeof(msg));
		y->ops->free_error(err);
	}
	snprintf(full, sizeof(full), "%s%s%s", y->ops->title, prefix ? " " : "", prefix ? prefix : "");
	cont_why_lib(why, len, full, msg);
}

const char *cont_version(char *buf, size_t len, const char *lib, const char *version)
{
	if (!buf[0])
		snprintf(buf, len, "%s %s", lib, version);
	return buf;
}

bool cont_dl_bind(const char *soname, const char *const *names, void **const *slots, size_t n, char *why,
		  size_t whylen)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!lib) {
		cont_why(why, whylen, "%s cannot be loaded: %s", soname, dlerror());
		return false;
	}
	for (i = 0; i < n && (*slots[i] = dlsym(lib, names[i])); i++)
		;
	if (i == n)
		return true;	/* (never closed: the functions stay in use) */
	cont_why(why, whylen, "%s lacks %s", soname, names[i]);
	while (i--)
		*slots[i] = NULL;
	dlclose(lib);
	return false;
}

bool cont_dl_bound(pthread_once_t *once, void (*bind)(void), const bool *bound, const char *title, const char *err,
		   char *why, size_t whylen)
{
	pthread_once(once, bind);
	if (!*bound)
		cont_why(why, whylen, "%s: %s", title, err);
	return *bound;
}
