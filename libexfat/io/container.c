// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * container.c - which evidence container a file is, by its content: the
 * signatures of EWF (EVF/LVF, EWF2 EVF2/LEF2 at byte 0), VHD ("conectix"
 * in the footer, the last 512 bytes, or its copy at byte 0), VHDX
 * ("vhdxfile" at byte 0) and VMDK ("KDMV" or "COWD" at byte 0, or a text
 * descriptor "# Disk DescriptorFile"); a file with none of them may be a
 * segment of a split raw set (split.c, by name).  Then the backend that
 * reads it, when this build has its library.
 *
 * Consumes: a path.  Produces: a read-only device over the container's
 * media, or the refusal of a writer (-EMEDIUMTYPE), or 0: not a
 * container, open it as a plain file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/container.h"

struct fmt {
	const char *name;		/* fsc_container_name */
	const char *title;		/* in messages */
	const char *libname;		/* what it needs, in messages */
	int (*open)(const char *path, struct fsc_dev **out, char *why, size_t whylen);
	const char *(*library)(void);	/* NULL: not built in */
};

static const char *builtin(void)
{
	return "";
}

static const struct fmt fmts[FSC_CONTAINER_COUNT] = {
	[FSC_CONTAINER_SPLIT] = { "split", "split raw", NULL, split_open, builtin },
#ifdef HAVE_LIBEWF
	[FSC_CONTAINER_EWF] = { "ewf", "EWF", "libewf", ewf_open, ewf_library },
#else
	[FSC_CONTAINER_EWF] = { "ewf", "EWF", "libewf", NULL, NULL },
#endif
#ifdef HAVE_LIBVHDI
	[FSC_CONTAINER_VHD] = { "vhd", "VHD", "libvhdi", vhd_open, vhd_library },
#else
	[FSC_CONTAINER_VHD] = { "vhd", "VHD", "libvhdi", NULL, NULL },
#endif
#ifdef HAVE_LIBVMDK
	[FSC_CONTAINER_VMDK] = { "vmdk", "VMDK", "libvmdk", vmdk_open, vmdk_library },
#else
	[FSC_CONTAINER_VMDK] = { "vmdk", "VMDK", "libvmdk", NULL, NULL },
#endif
};

FSC_EXPORT const char *fsc_container_name(enum fsc_container c)
{
	return c > FSC_CONTAINER_NONE && c < FSC_CONTAINER_COUNT ? fmts[c].name : NULL;
}

FSC_EXPORT const char *fsc_container_library(enum fsc_container c)
{
	return c > FSC_CONTAINER_NONE && c < FSC_CONTAINER_COUNT && fmts[c].library ? fmts[c].library() : NULL;
}

FSC_EXPORT const struct fsc_container_info *fsc_dev_container(const struct fsc_dev *dev)
{
	return dev->container;
}

static bool at(const uint8_t *buf, size_t len, const char *magic, size_t mlen)
{
	return len >= mlen && memcmp(buf, magic, mlen) == 0;
}

/* A VMDK text descriptor: "# Disk DescriptorFile" after blank space. */
static bool vmdk_descriptor(const uint8_t *head, size_t len)
{
	size_t i = 0;

	while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
		i++;
	return at(head + i, len - i, "# Disk DescriptorFile", 21);
}

static enum fsc_container sniff(int fd, uint64_t size)
{
	uint8_t head[512], tail[8];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	size_t h = n > 0 ? (size_t)n : 0;

	if (at(head, h, "EVF\x09\x0d\x0a\xff\x00", 8) || at(head, h, "LVF\x09\x0d\x0a\xff\x00", 8) ||
	    at(head, h, "EVF2\x0d\x0a\x81\x00", 8) || at(head, h, "LEF2\x0d\x0a\x81\x00", 8))
		return FSC_CONTAINER_EWF;
	if (at(head, h, "vhdxfile", 8) || at(head, h, "conectix", 8))
		return FSC_CONTAINER_VHD;
	if (at(head, h, "KDMV", 4) || at(head, h, "COWD", 4) || vmdk_descriptor(head, h))
		return FSC_CONTAINER_VMDK;
	if (size >= 1024 && pread(fd, tail, sizeof(tail), (off_t)(size - 512)) == (ssize_t)sizeof(tail) &&
	    memcmp(tail, "conectix", 8) == 0)
		return FSC_CONTAINER_VHD;	/* a fixed VHD: the footer only */
	return FSC_CONTAINER_NONE;
}

/* The container a regular file at path is (FSC_CONTAINER_NONE: none by content, or not a regular file). */
static enum fsc_container which(const char *path, bool *regular)
{
	struct stat st;
	enum fsc_container c = FSC_CONTAINER_NONE;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	*regular = false;
	if (fd < 0)
		return c;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		*regular = true;
		c = sniff(fd, (uint64_t)st.st_size);
	}
	close(fd);
	return c;
}

int container_open(const char *path, int flags, struct fsc_dev **out, char *why, size_t whylen)
{
	bool regular;
	enum fsc_container c = which(path, &regular);
	const struct fmt *f = &fmts[c == FSC_CONTAINER_NONE ? FSC_CONTAINER_SPLIT : c];
	int r;

	if (!regular)
		return 0;
	if (c != FSC_CONTAINER_NONE && (flags & FSC_DEV_WRITE)) {
		cont_why(why, whylen, "%s", f->title);
		return -EMEDIUMTYPE;
	}
	if (!f->open) {
		cont_why(why, whylen, "%s container, and this fatscope was built without %s", f->title, f->libname);
		return -ENOTSUP;
	}
	r = f->open(path, out, why, whylen);
	if (r > 0 && (flags & FSC_DEV_WRITE)) {		/* a split raw set */
		fsc_dev_close(*out);
		*out = NULL;
		cont_why(why, whylen, "%s", f->title);
		return -EMEDIUMTYPE;
	}
	if (r == 0 && c != FSC_CONTAINER_NONE) {
		cont_why(why, whylen, "not a readable %s container", f->title);
		return -EINVAL;
	}
	return r;
}
