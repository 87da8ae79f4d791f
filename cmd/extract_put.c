// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extract_put.c - fatscope extract: one entry of the volume written into
 * a directory of the host.  Its name made safe and short enough (host.c),
 * renamed with "~1", "~2"... when the host folds it onto a name this run
 * made in the same directory (a case-insensitive host, or the same name
 * twice on a damaged volume); a file's bytes as fatscope cat reads them,
 * a damaged chain up to its break, a cross-linked file whole; a deleted
 * file as much of it as is left, with one line saying which; with --hash
 * the digests of the bytes written, and what they are, in the manifest.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "files.h"
#include "report.h"

/* "renamed: /vol/path -> host/path", "recovered (intact): /vol/path", ... a line on stdout. */
static void say(const char *what, const char *vol, const char *rel, const char *name)
{
	fputs(what, stdout);
	report_escaped(stdout, vol);
	if (rel) {
		fputs(" -> ", stdout);
		report_escaped(stdout, rel);
		fputs(*rel && name ? "/" : "", stdout);
		report_escaped(stdout, name ? name : "");
	}
	putchar('\n');
}

/* "recovered (intact): /vol/path": a state and the entry. */
static void say_state(const char *what, const char *vol)
{
	report_escaped(stdout, what);
	fputs(": ", stdout);
	report_escaped(stdout, vol);
	putchar('\n');
}

static int to_fd(void *ctx, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(*(int *)ctx, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * What a deleted entry's recovery state says, in words, into what: "recovered (intact)", "recovered in part
 * (partial: ...)", "not recovered (overwritten)".  Whether it is written at all.
 */
static bool recovery_words(const struct fsc_dirent *d, struct fsc_file *f, char *what, size_t len)
{
	char how[128];
	enum fsc_recovery st = f ? fsc_file_recovery(f) : d->recovery;

	if (f)
		file_recovery_text(f, how, sizeof(how));
	else
		snprintf(how, sizeof(how), "%s", fsc_recovery_name(st));
	snprintf(what, len, "%s (%s)", st == FSC_REC_INTACT ? _("recovered") :
		 st == FSC_REC_PARTIAL ? _("recovered in part") : _("not recovered"), how);
	return st == FSC_REC_INTACT || st == FSC_REC_PARTIAL;
}

/* A file sharing cluster c with one written before: said (naming that file), exit status 4. */
static void cross_linked(struct x_ctl *ctl, const struct fsc_dirent *d, uint32_t c, char *what, size_t len)
{
	struct fsc_owner o = FSC_OWNER_INIT;
	char buf[4400], other[4400];

	if (fsc_cluster_owner_besides(ctl->v.dev, ctl->v.p, c, d->path, &o, buf, sizeof(buf)) < 0 ||
	    o.kind == FSC_OWNER_NONE || o.kind == FSC_OWNER_FREE || o.kind == FSC_OWNER_LOST)
		snprintf(other, sizeof(other), "%s", _("another file"));
	else if (o.path[0])
		report_escape_buf(other, sizeof(other), o.path);
	else
		snprintf(other, sizeof(other), _("the volume's %s"), fsc_owner_kind_name(o.kind));
	snprintf(what, len, _("cross-linked (cluster %u also belongs to %s), written whole"), c, other);
	x_worse(ctl, EXTRACT_DAMAGED);
}

/* Create the file for d in pfd: the descriptor, name as created (*renamed set if it changed), or -1 after a line. */
static int create(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, char *name, size_t len, bool *renamed,
		  struct host_made *made)
{
	unsigned how = *renamed || d->deleted ? HOST_SUFFIX : ctl->force ? HOST_REPLACE : 0;
	char *was = strdup(name);
	int fd;

	if (host_made_has(made, pfd, name) || host_folds(pfd, name))
		how = HOST_SUFFIX;	/* a name this run gave another entry, or the host's for another spelling */
	fd = host_create(pfd, name, len, ctl->name_max, how);
	if (fd < 0) {
		errmsg(ctl->outdir, "%s: %s", name, fd == -EEXIST ? _("exists (--force replaces it)") : strerror(-fd));
		x_worse(ctl, EXTRACT_OPERROR);
	} else if (host_made_add(made, pfd, name) < 0 || !was) {
		x_worse(ctl, EXTRACT_OPERROR);
	}
	*renamed |= was && strcmp(was, name) != 0;
	free(was);
	return fd < 0 ? -1 : fd;
}

/* The bytes of f into fd, hashed when asked; the times set.  0 or -errno (said). */
static int copy_out(struct x_ctl *ctl, const struct fsc_dirent *d, struct fsc_file *f, int fd, const char *name,
		    struct file_hasher *fh)
{
	struct timespec ts[2];
	int r;

	hash_init(&fh->h, ctl->hashes);
	fh->next = to_fd;
	fh->next_ctx = &fd;
	r = file_copy(ctl->image, d->path, f, file_hash_sink, fh);
	host_times(d, ts);
	if (r == 0 && futimens(fd, ts) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		errmsg(ctl->outdir, "%s: %s", name, strerror(-r));
		x_worse(ctl, EXTRACT_OPERROR);
	}
	return r;
}

/*
 * The bytes of file d into a new file name (len bytes) of directory pfd
 * (rel); note gets what to say of them ("" for nothing; *tell: on
 * standard output too).  Whether it was written.
 */
static bool put_file(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, const char *rel, char *name,
		     size_t len, bool *renamed, struct host_made *made, char *note, size_t nlen, bool *tell)
{
	struct fsc_file *f;
	struct file_hasher fh;
	char path[4400];
	int fd, r = file_open(ctl->image, ctl->rd, d, &f);

	if (r < 0) {
		x_worse(ctl, r == -ENOMEM ? EXTRACT_OPERROR : EXTRACT_DAMAGED);
		return false;
	}
	*tell = true;
	if (r > 0) {	/* written up to the break, as the line of file_open says */
		snprintf(note, nlen, _("damaged chain, its first %" PRIu64 " of %" PRIu64 " bytes written"),
			 fsc_file_size(f), d->size);
		*tell = false;
		x_worse(ctl, EXTRACT_DAMAGED);
	} else if (d->deleted && !recovery_words(d, f, note, nlen)) {
		say_state(note, d->path);	/* "not recovered (overwritten): PATH" */
		x_worse(ctl, EXTRACT_PARTIAL);
		fsc_file_close(f);
		return false;
	} else if (!d->deleted && fsc_file_shared(f)) {
		cross_linked(ctl, d, fsc_file_shared(f), note, nlen);
	}
	if (d->deleted && fsc_file_recovery(f) == FSC_REC_PARTIAL)
		x_worse(ctl, EXTRACT_PARTIAL);
	fd = create(ctl, d, pfd, name, len, renamed, made);
	if (fd >= 0 && copy_out(ctl, d, f, fd, name, &fh) == 0) {
		ctl->files++;
		ctl->bytes += fh.h.len;
		ctl->recovered += d->deleted;
		snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", name);
		if (*renamed)
			manifest_note(&ctl->man, _("renamed; on the volume"), d->path);
		if (note[0])
			manifest_note(&ctl->man, note, d->path);
		manifest_file(&ctl->man, path, &fh.h);
	}
	fsc_file_close(f);
	return fd >= 0;
}

/* Directory d made in pfd (or taken when there already from before this run): whether it is there. */
static bool put_dir(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, const char *rel, char *name,
		    size_t len, bool *renamed, struct host_made *made)
{
	char *was = strdup(name);
	int r = host_mkdir(pfd, name);

	if (r == 1 && (host_made_has(made, pfd, name) || host_folds(pfd, name)))	/* another entry's */
		r = host_mkdir_new(pfd, name, len, ctl->name_max);
	*renamed |= was && strcmp(was, name) != 0;
	free(was);
	if (r < 0) {
		errmsg(ctl->outdir, "%s%s%s: %s", rel, *rel ? "/" : "", name,
		       r == -ELOOP ? _("a symbolic link is in the way") : r == -EEXIST ? _("a file is in the way") :
		       strerror(-r));
		x_worse(ctl, EXTRACT_OPERROR);
		return false;
	}
	if (host_made_add(made, pfd, name) < 0 || x_made_dir(ctl, d, d->id, rel, name) < 0) {
		x_worse(ctl, EXTRACT_OPERROR);
		return false;
	}
	ctl->ndirs_made++;
	ctl->recovered += d->deleted;
	return true;
}

void x_put(struct x_ctl *ctl, const struct fsc_dirent *d, int pfd, const char *rel, struct host_made *made)
{
	char name[1600], note[4600] = "";
	size_t max = ctl->name_max < sizeof(name) - 16 ? ctl->name_max : sizeof(name) - 16;
	bool renamed = host_safe_name(d->name, ctl->portable ? HOST_PORTABLE : 0, max, name, sizeof(name));
	bool tell = false;

	if (d->dir) {
		if (d->deleted && !recovery_words(d, NULL, note, sizeof(note))) {
			say_state(note, d->path);
			x_worse(ctl, EXTRACT_PARTIAL);
			return;
		}
		tell = d->deleted;
		if (!put_dir(ctl, d, pfd, rel, name, sizeof(name), &renamed, made))
			return;
	} else if (!put_file(ctl, d, pfd, rel, name, sizeof(name), &renamed, made, note, sizeof(note), &tell)) {
		return;
	}
	if (renamed)
		say(_("renamed: "), d->path, rel, name);
	if (tell && note[0])
		say_state(note, d->path);
}
