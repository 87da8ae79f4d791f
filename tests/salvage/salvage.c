// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * salvage.c - the random-damage salvage test: seeded, reproducible damage
 * on populated images, repaired as `fatscope fsck -y` repairs them, and
 * the salvage rules checked on every damaged volume.
 *
 * For each image and each volume number i: the damage kind is the i-th of
 * the kinds asked for (round robin), its seed a hash of the base seed, the
 * image's name and i, so that `salvage --one IMAGE:I` gives the same
 * volume again.  Damage kinds (damage.c): bit flips in a directory entry,
 * an entry overwritten with random bytes, a directory sector zeroed or
 * made random, bit flips in the FAT (and on exFAT in the allocation
 * bitmap and the up-case table), a torn multi-sector write of a directory
 * cluster (its last sectors from another directory cluster), bit flips in
 * the main boot sector where a backup holds (exFAT, FAT32), and two to
 * four of these at once.
 *
 * Checked on each damaged volume:
 *   - sound files kept: every file the library's reader reads in full on
 *     the damaged volume, with bytes equal to a file of the undamaged one
 *     (an empty one at an empty file's path: garbage read as an entry of
 *     size 0 would match any),
 *     is still there after the repair with the same bytes: under its path,
 *     or elsewhere (renamed, or in FOUND.nnn, where a .CHK may be longer);
 *   - one run finishes: the repaired volume checks without an error
 *     (warnings allowed) by the library and, when installed, by the peer
 *     (fsck.exfat -n, fsck.fat -n) and mtools' mdir for FAT; a second
 *     repair plans nothing;
 *   - with --tsk, the files The Sleuth Kit's tsk_recover -a reads in full
 *     with an original file's bytes are sound too (a second reader);
 *   - the undo log of the repair restores the damaged volume byte for
 *     byte; every volume ends (SIGALRM after 120 s: a hang is a failure).
 * With --peers the peer's own repair runs on the same damage (fsck.exfat
 * -y, fsck.fat -a) and its files lost and volumes left unfinished are
 * counted beside fatscope's.  A peer runs for 20 s at most: killed, it
 * left the volume unfinished (fsck.fat 4.2 -a recurses without end into
 * the FSCK0000.nnn directories it makes of a garbage directory sector: a
 * 4 KiB-sector FAT16, seed 11 #13).
 *
 * --list FILE runs the volumes a file names, a line each: IMAGE SEED INDEX
 * (IMAGE.img in the --images directory), in one process: the failures
 * found before (tests/salvage/regress.txt).
 *
 * Output: a line per failure (with the --one argument that repeats it), a
 * table per image (volumes, sound files, lost, unfinished, by kind), and
 * exit 0 when nothing failed, 1 otherwise, 2 for usage.
 */
#define _GNU_SOURCE 1	/* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fatscope/fatscope.h"
#include "salvage.h"
#include "builder.h"
#include "peer.h"


/* ---- small helpers ---- */

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "salvage: out of memory\n");
		exit(99);
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "salvage: out of memory\n");
		exit(99);
	}
	return d;
}

uint64_t sv_mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

uint64_t sv_rand(uint64_t *state)
{
	*state += 0x9E3779B97F4A7C15ull;
	return sv_mix(*state);
}

uint64_t sv_below(uint64_t *state, uint64_t n)
{
	return n ? sv_rand(state) % n : 0;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001B3ull;
	return h;
}

/* ---- repair, check, undo: as fatscope fsck -y does ---- */

static const int64_t NOW = 1700000000;

/* Errors left by a check of the volume in buf (read-only); the first IDs into ids. */
static int check_errors(const uint8_t *buf, size_t len, char *ids, size_t idlen)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_findings *fs;
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_check_opts o = FSC_CHECK_OPTS_INIT;
	int errors = 0;

	ids[0] = 0;
	o.threads = 1;
	if (fsc_dev_open_mem(buf, len, &dev) < 0)
		return -1;
	if (!(fs = fsc_findings_new()) || fsc_probe_volume(dev, &p) < 0) {
		fsc_findings_free(fs);
		fsc_dev_close(dev);
		snprintf(ids, idlen, "(no probe)");
		return 1;
	}
	if (fsc_check(dev, p, &o, fs, &sum) < 0) {
		snprintf(ids, idlen, "(check failed)");
		errors = 1;
	}
	for (size_t i = 0; i < fsc_findings_count(fs); i++) {
		const struct fsc_problem_info *pi = fsc_problem_info(fsc_finding_id(fsc_findings_at(fs, i)));

		if (pi && pi->severity >= FSC_SEV_ERROR) {
			errors++;
			if (strlen(ids) + strlen(pi->name) + 2 < idlen && !strstr(ids, pi->name)) {
				strcat(ids, ids[0] ? " " : "");
				strcat(ids, pi->name);
			}
		}
	}
	errors += fsc_findings_dropped(fs) != 0;
	fsc_findings_free(fs);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	return errors;
}

/*
 * Repair the volume in buf in place as fsck -y does (FSC_REPAIR_ALL, lost
 * clusters kept in FOUND.nnn): plan, then apply with an undo log (undo:
 * its path, or NULL).  The number of edits written, or -errno.
 */
static long repair(uint8_t *buf, size_t len, const char *undo, int *left)
{
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_findings *fs = fsc_findings_new();
	struct fsc_check_summary sum = FSC_CHECK_SUMMARY_INIT;
	struct fsc_check_opts o = FSC_CHECK_OPTS_INIT;
	struct fsc_repair_opts ro = FSC_REPAIR_OPTS_INIT;
	struct fsc_plan *plan = fsc_plan_new();
	long r;

	o.threads = 1;
	ro.level = FSC_REPAIR_ALL;
	ro.now = NOW;
	*left = 0;
	if (!plan || !fs || fsc_dev_open_mem_rw(buf, len, &dev) < 0) {
		fsc_findings_free(fs);
		fsc_plan_free(plan);
		return -ENOMEM;
	}
	r = fsc_probe_volume(dev, &p);
	if (r == 0) {
		r = fsc_plan_repair(dev, p, &o, &ro, fs, &sum, plan);
		for (size_t i = 0; r >= 0 && i < fsc_findings_count(fs); i++) {
			const struct fsc_finding *f = fsc_findings_at(fs, i);
			const struct fsc_problem_info *pi = fsc_problem_info(fsc_finding_id(f));

			*left += pi && pi->severity >= FSC_SEV_ERROR && !fsc_finding_planned(f);
		}
		if (r >= 0 && fsc_plan_count(plan)) {
			if (undo)
				unlink(undo);
			r = fsc_plan_apply(dev, plan, undo);
		}
		if (r >= 0)
			r = (long)fsc_plan_count(plan);
		fsc_probe_free(p);
	}
	fsc_findings_free(fs);
	fsc_dev_close(dev);
	fsc_plan_free(plan);
	return r;
}

/* The undo log put back on a copy of rep: equal to dmg? */
static bool undo_restores(const uint8_t *rep, const uint8_t *dmg, size_t len, const char *undo, uint8_t *tmp)
{
	struct fsc_dev *dev;
	bool ok = false;

	memcpy(tmp, rep, len);
	if (fsc_dev_open_mem_rw(tmp, len, &dev) < 0)
		return false;
	ok = fsc_undo_apply(dev, undo) >= 0 && !memcmp(tmp, dmg, len);
	fsc_dev_close(dev);
	return ok;
}

/* ---- the peers ---- */

struct peer {
	const char *check[6];		/* argv without the image */
	const char *fix[6];
	bool mdir;			/* FAT: mdir -/ lists the tree */
	bool present;
};

/* Run argv (a NULL-terminated list, img appended) for at most 20 s, quietly: its exit status, or -1. */
static int run(const char *const *argv, const char *img)
{
	return peer_run(argv, img, 20);
}

/*
 * The image file the peers read: written where it differs from what it
 * holds (shadow), 64 KiB at a time, so that a big sparse image is not
 * rewritten whole for each volume.
 */
struct mirror {
	char *path;
	int fd;
	uint8_t *shadow;
	size_t len;
};

static void mirror_open(struct mirror *m, const char *dir, const char *name, const uint8_t *img, size_t len)
{
	size_t n = strlen(dir) + strlen(name) + 16;

	m->path = xmalloc(n);
	snprintf(m->path, n, "%s/%s.peer.img", dir, name);
	m->fd = open(m->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	m->shadow = img_buf_alloc(len, false);
	m->len = len;
	memset(m->shadow, 0, len);
	if (m->fd < 0 || ftruncate(m->fd, (off_t)len) < 0) {
		fprintf(stderr, "salvage: %s: %s\n", m->path, strerror(errno));
		exit(99);
	}
	(void)img;
}

static void mirror_put(struct mirror *m, const uint8_t *img)
{
	for (size_t o = 0; o < m->len; o += 1 << 16) {
		size_t n = m->len - o < (1 << 16) ? m->len - o : (1 << 16);

		if (!memcmp(m->shadow + o, img + o, n))
			continue;
		if (pwrite(m->fd, img + o, n, (off_t)o) != (ssize_t)n) {
			fprintf(stderr, "salvage: %s: %s\n", m->path, strerror(errno));
			exit(99);
		}
		memcpy(m->shadow + o, img + o, n);
	}
}

/* What the peer left in the file, read back into img (and the shadow). */
static void mirror_get(struct mirror *m, uint8_t *img)
{
	for (size_t o = 0; o < m->len;) {
		ssize_t got = pread(m->fd, img + o, m->len - o, (off_t)o);

		if (got <= 0) {
			fprintf(stderr, "salvage: %s: cannot read back\n", m->path);
			exit(99);
		}
		o += (size_t)got;
	}
	memcpy(m->shadow, img, m->len);
}

static void mirror_close(struct mirror *m)
{
	close(m->fd);
	unlink(m->path);
	free(m->path);
	free(m->shadow);
}

/* ---- one volume ---- */

struct tally {
	unsigned volumes, unusable;	/* unusable: the damage left no volume the library can walk */
	unsigned long sound, lost, moved;
	unsigned unfinished, peer_says, second, undo_bad, crashed;
	unsigned long tsk_more;		/* sound files only The Sleuth Kit read in full (--tsk) */
	/* the peer's own repair, side by side */
	unsigned long peer_lost;
	unsigned peer_unfinished, peer_runs;
};

struct image {
	const char *path, *name;
	uint8_t *orig;
	size_t len;
	enum fsc_type type;
	struct files orig_files;	/* sorted by hash */
	struct layout lay;
	uint8_t *dmg, *rep, *tmp;	/* the working copies, allocated once (page faults cost) */
	struct mirror m;		/* the peer's file, opened once */
};

struct run {
	uint64_t seed;
	unsigned count;
	unsigned kinds[DMG_COUNT];
	unsigned nkinds;
	bool peers, verbose, check_peer, quiet, tsk;
	struct tally family[2][DMG_COUNT];	/* exFAT, FAT: by kind */
	const char *workdir, *keep;
	struct peer peer_exfat, peer_fat;
	unsigned failures;
};

static volatile sig_atomic_t in_volume;
static char current[256];

static void on_alarm(int sig)
{
	(void)sig;
	if (in_volume) {
		ssize_t n = write(2, "salvage: hang on ", 17);

		n += write(2, current, strlen(current));
		n += write(2, "\n", 1);
		(void)n;
		_exit(1);
	}
}

static uint64_t volume_seed(uint64_t base, const char *name, unsigned i)
{
	return sv_mix(hash_str(0xCBF29CE484222325ull ^ base, name) + i);
}

static void fail(struct run *rn, const struct image *im, unsigned i, const char *what, const char *detail)
{
	rn->failures++;
	printf("FAIL %s:%u (-s %llu, %s): %s%s%s\n", im->name, i, (unsigned long long)rn->seed, current, what,
	       detail && *detail ? ": " : "", detail ? detail : "");
}

/*
 * The clusters of the original's files that the damage left as they were,
 * and allocated, and the repair changed: a repair writes its copies,
 * tables and new directories into clusters no file has, never over a
 * file's bytes, even ones no entry reaches any more (seed 193, pop-fat32
 * #8: the data area taken for FAT copies, which the salvage test did not
 * see, as no file was readable before the repair).  How many.
 */
static size_t data_overwritten(const struct image *im, const uint8_t *dmg, const uint8_t *rep)
{
	const struct files *o = &im->orig_files;
	size_t n = 0;

	for (size_t k = 0; k < o->ndata; k++) {
		const struct region *g = &o->data[k];

		if (g->off + g->len <= im->len && !memcmp(dmg + g->off, im->orig + g->off, g->len) &&
		    memcmp(rep + g->off, im->orig + g->off, g->len) && g->off >= im->lay.data_off && im->lay.csize &&
		    layout_allocated(&im->lay, dmg, (uint32_t)((g->off - im->lay.data_off) / im->lay.csize + 2)))
			n++;
	}
	return n;
}

static void peer_side(struct run *rn, struct image *im, const struct peer *pe, const struct files *sound,
		      const uint8_t *dmg, uint8_t *tmp, struct mirror *m, struct tally *t)
{
	struct files after;
	struct files snd = *sound;
	char ids[256];

	mirror_put(m, dmg);
	run(pe->fix, m->path);
	mirror_get(m, tmp);
	t->peer_runs++;
	if (!files_read(tmp, im->len, false, &after)) {
		t->peer_lost += sound->n;
		t->peer_unfinished++;
		return;
	}
	t->peer_lost += count_lost(&snd, &after, tmp, im->len, rn->verbose ? "peer" : NULL);
	if (run(pe->check, m->path) != 0 || check_errors(tmp, im->len, ids, sizeof(ids)) > 0)
		t->peer_unfinished++;
	files_free(&after);
}

/* ---- The Sleuth Kit as a second reader (--tsk) ---- */

static struct {
	const struct files *orig;	/* sorted by hash */
	struct files *sound;
	size_t root_len, added;
} tsk_walk;

static int tsk_rm(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path) ? -1 : 0;
}

/* A file tsk_recover wrote: sound when its bytes are an original file's that the library's reader did not read. */
static int tsk_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct file f = { 0 };
	uint8_t buf[65536];
	ssize_t got;
	int fd;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	f.h = (struct hash2){ 0xCBF29CE484222325ull, 0x1234567ull };
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		hash_feed(&f.h, buf, (size_t)got);
		f.size += (uint64_t)got;
	}
	close(fd);
	if (got < 0 || !bsearch(&f, tsk_walk.orig->v, tsk_walk.orig->n, sizeof(f), files_cmp_hash))
		return 0;
	for (size_t k = 0; k < tsk_walk.sound->n; k++)
		if (!files_cmp_hash(&tsk_walk.sound->v[k], &f))
			return 0;	/* (read by the library too: a file with these bytes is sound already) */
	if (tsk_walk.sound->n == tsk_walk.sound->cap) {
		tsk_walk.sound->cap = tsk_walk.sound->cap ? 2 * tsk_walk.sound->cap : 256;
		tsk_walk.sound->v = realloc(tsk_walk.sound->v, tsk_walk.sound->cap * sizeof(f));
		if (!tsk_walk.sound->v)
			exit(99);
	}
	f.path = xstrdup(path + tsk_walk.root_len);	/* "/dir/name", as the library's reader names it */
	f.readable = true;
	tsk_walk.sound->v[tsk_walk.sound->n++] = f;
	tsk_walk.added++;
	return 0;
}

/*
 * The Sleuth Kit's tsk_recover -a on the damaged volume (in the peer's
 * file): every file it reads in full with an original file's bytes that
 * the library's reader did not is sound too, and must be readable after
 * the repair.  How many it added.
 */
static size_t tsk_sound(struct run *rn, struct image *im, const uint8_t *dmg, struct mirror *m, struct files *sound)
{
	char out[4200];
	const char *argv[] = { "tsk_recover", "-a", m->path, out, NULL };

	snprintf(out, sizeof(out), "%s/%s.tsk", rn->workdir, im->name);
	nftw(out, tsk_rm, 16, FTW_DEPTH | FTW_PHYS);
	mirror_put(m, dmg);
	if (mkdir(out, 0700) < 0 || run(argv, NULL) != 0) {
		nftw(out, tsk_rm, 16, FTW_DEPTH | FTW_PHYS);
		return 0;
	}
	tsk_walk.orig = &im->orig_files;
	tsk_walk.sound = sound;
	tsk_walk.root_len = strlen(out);
	tsk_walk.added = 0;
	nftw(out, tsk_file, 16, FTW_PHYS);
	nftw(out, tsk_rm, 16, FTW_DEPTH | FTW_PHYS);
	return tsk_walk.added;
}

static void one_volume(struct run *rn, struct image *im, unsigned i, uint8_t *dmg, uint8_t *rep, uint8_t *tmp,
		       struct mirror *m, struct tally *t)
{
	const struct peer *pe = fsc_type_is_fat(im->type) ? &rn->peer_fat : &rn->peer_exfat;
	uint64_t seed = volume_seed(rn->seed, im->name, i);
	unsigned kind = rn->kinds[i % rn->nkinds];
	struct files dfl, sound, after;
	char undo[4096], ids[512], desc[200], detail[600];
	long edits;
	int left;
	size_t lost;

	memcpy(dmg, im->orig, im->len);
	damage_apply(&im->lay, dmg, im->len, kind, seed, desc, sizeof(desc));
	snprintf(current, sizeof(current), "%s, seed %016llx: %s", damage_name(kind), (unsigned long long)seed, desc);
	if (rn->verbose)
		printf("%s:%u %s\n", im->name, i, current);
	if (rn->keep) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s", rn->keep);
		f = fopen(path, "wb");
		if (!f || fwrite(dmg, 1, im->len, f) != im->len || fclose(f)) {
			fprintf(stderr, "salvage: %s: cannot write\n", path);
			exit(99);
		}
	}
	t->volumes++;
	if (!files_read(dmg, im->len, false, &dfl)) {
		t->unusable++;
		memset(&dfl, 0, sizeof(dfl));
	}
	sound_files(&im->orig_files, &dfl, &sound);
	files_free(&dfl);
	if (rn->tsk)
		t->tsk_more += tsk_sound(rn, im, dmg, m, &sound);
	t->sound += sound.n;

	in_volume = 1;
	alarm(120);
	memcpy(rep, dmg, im->len);
	snprintf(undo, sizeof(undo), "%s/%s.undo", rn->workdir, im->name);
	edits = repair(rep, im->len, undo, &left);
	if (edits < 0) {
		snprintf(detail, sizeof(detail), "%s", strerror((int)-edits));
		fail(rn, im, i, "the repair failed", detail);
		t->crashed++;
	}
	/* One run finishes: no error left by the library's check. */
	if (check_errors(rep, im->len, ids, sizeof(ids)) != 0) {
		t->unfinished++;
		fail(rn, im, i, "errors left after -y", ids);
	}
	/* Nothing sound lost. */
	if (!files_read(rep, im->len, false, &after)) {
		memset(&after, 0, sizeof(after));
	}
	lost = count_lost(&sound, &after, rep, im->len, "    ");
	t->lost += lost;
	if (lost) {
		snprintf(detail, sizeof(detail), "%zu of %zu", lost, sound.n);
		fail(rn, im, i, "sound files lost", detail);
	}
	files_free(&after);
	/* No file's bytes written over. */
	if ((lost = data_overwritten(im, dmg, rep)) != 0) {
		snprintf(detail, sizeof(detail), "%zu clusters", lost);
		fail(rn, im, i, "file data the damage left intact written over", detail);
	}
	/* The peer agrees. */
	if (rn->check_peer && pe->present && edits >= 0) {
		mirror_put(m, rep);
		if (run(pe->check, m->path) != 0) {
			t->peer_says++;
			fail(rn, im, i, "the peer's check still finds errors after -y", pe->check[0]);
		} else if (pe->mdir) {
			static const char *const md[] = { "mdir", "-/", "-i", NULL };
			char arg[4200];

			snprintf(arg, sizeof(arg), "%s", m->path);
			if (run(md, arg) != 0) {
				t->peer_says++;
				fail(rn, im, i, "mdir -/ cannot list the tree after -y", NULL);
			}
		}
	}
	/* A second -y writes nothing. */
	if (edits > 0) {
		int left2;
		long again;

		memcpy(tmp, rep, im->len);
		again = repair(tmp, im->len, NULL, &left2);
		if (again != 0) {
			t->second++;
			snprintf(detail, sizeof(detail), "%ld edits", again);
			fail(rn, im, i, "a second -y writes again", detail);
		}
		/* The undo log gives the damaged volume back. */
		if (!undo_restores(rep, dmg, im->len, undo, tmp)) {
			t->undo_bad++;
			fail(rn, im, i, "undo does not restore the damaged volume", NULL);
		}
		unlink(undo);
	}
	if (rn->peers && pe->present)
		peer_side(rn, im, pe, &sound, dmg, tmp, m, t);
	alarm(0);
	in_volume = 0;
	files_free(&sound);
}

/* ---- images and the report ---- */

static bool image_load(struct image *im, const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	const char *slash = strrchr(path, '/');
	char *name;

	memset(im, 0, sizeof(*im));
	if (!f || fstat(fileno(f), &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "salvage: %s: cannot read\n", path);
		if (f)
			fclose(f);
		return false;
	}
	im->len = (size_t)st.st_size;
	im->orig = img_buf_alloc(im->len, false);
	if (fread(im->orig, 1, im->len, f) != im->len) {
		fprintf(stderr, "salvage: %s: short read\n", path);
		fclose(f);
		return false;
	}
	fclose(f);
	im->path = path;
	name = xstrdup(slash ? slash + 1 : path);
	if (strstr(name, ".img"))
		*strstr(name, ".img") = 0;
	im->name = name;
	if (!files_read(im->orig, im->len, true, &im->orig_files)) {
		fprintf(stderr, "salvage: %s: not a volume the library can walk\n", path);
		return false;
	}
	if (fsc_dev_open_mem(im->orig, im->len, &dev) < 0 || fsc_probe_volume(dev, &p) < 0)
		return false;
	im->type = fsc_probe_type(p);
	layout_read(&im->lay, dev, p, im->orig, im->len, &im->orig_files.dirs, im->orig_files.ndirs);
	fsc_probe_free(p);
	fsc_dev_close(dev);
	if (im->orig_files.n)
		qsort(im->orig_files.v, im->orig_files.n, sizeof(*im->orig_files.v), files_cmp_hash);
	return true;
}

static void image_free(struct image *im)
{
	files_free(&im->orig_files);
	layout_free(&im->lay);
	free(im->orig);
	if (im->dmg)
		mirror_close(&im->m);
	free(im->dmg);
	free(im->rep);
	free(im->tmp);
	free((char *)im->name);
}

static void tally_print(const char *name, const char *kind, const struct tally *t, bool peers)
{
	printf("%-12s %-14s %5u %6lu %5lu %5u %5u %5u %5u", name, kind, t->volumes, t->sound, t->lost, t->unfinished,
	       t->peer_says, t->second, t->undo_bad);
	if (peers && t->peer_runs)
		printf(" | %6lu %5u", t->peer_lost, t->peer_unfinished);
	printf("\n");
}

static void tally_add(struct tally *a, const struct tally *b)
{
	a->volumes += b->volumes;
	a->unusable += b->unusable;
	a->sound += b->sound;
	a->lost += b->lost;
	a->unfinished += b->unfinished;
	a->peer_says += b->peer_says;
	a->second += b->second;
	a->undo_bad += b->undo_bad;
	a->crashed += b->crashed;
	a->tsk_more += b->tsk_more;
	a->peer_lost += b->peer_lost;
	a->peer_unfinished += b->peer_unfinished;
	a->peer_runs += b->peer_runs;
}

/* The damaged volumes of one loaded image (all of rn->count, or volume only). */
static void run_volumes(struct run *rn, struct image *im, long only, struct tally *total)
{
	struct tally by_kind[DMG_COUNT] = { 0 }, all = { 0 };

	if (!im->dmg) {
		im->dmg = img_buf_alloc(im->len, false);
		im->rep = img_buf_alloc(im->len, false);
		im->tmp = img_buf_alloc(im->len, false);
		mirror_open(&im->m, rn->workdir, im->name, im->orig, im->len);
	}
	for (unsigned i = 0; i < rn->count; i++) {
		if (only >= 0 && i != (unsigned long)only)
			continue;
		if (!damage_fits(&im->lay, rn->kinds[i % rn->nkinds]))
			continue;
		one_volume(rn, im, i, im->dmg, im->rep, im->tmp, &im->m, &by_kind[rn->kinds[i % rn->nkinds]]);
	}
	for (unsigned k = 0; k < DMG_COUNT; k++) {
		if (!by_kind[k].volumes)
			continue;
		if (!rn->quiet)
			tally_print(im->name, damage_name(k), &by_kind[k], rn->peers);
		tally_add(&all, &by_kind[k]);
		tally_add(&rn->family[fsc_type_is_fat(im->type)][k], &by_kind[k]);
	}
	if (!rn->quiet)
		tally_print(im->name, "all", &all, rn->peers);
	tally_add(total, &all);
}

static void run_image(struct run *rn, const char *path, long only, struct tally *total)
{
	struct image im;

	if (!image_load(&im, path)) {
		rn->failures++;
		return;
	}
	run_volumes(rn, &im, only, total);
	image_free(&im);
}

/* --list: each line "IMAGE SEED INDEX" (# comments, blank lines) one volume;
 * each image loaded once (the lines taken in the order of their images). */
struct list_entry {
	char name[256];
	unsigned long long seed;
	long index;
	unsigned line;
};

static int list_cmp(const void *a, const void *b)
{
	const struct list_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static bool run_list(struct run *rn, const char *list, const char *images, struct tally *total)
{
	FILE *f = fopen(list, "r");
	struct list_entry *v = NULL;
	size_t n = 0, cap = 0;
	char line[512], path[4096];
	unsigned lineno = 0;
	bool good = true;

	if (!f) {
		fprintf(stderr, "salvage: %s: %s\n", list, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			v = realloc(v, cap * sizeof(*v));
			if (!v) {
				perror("salvage");
				exit(99);
			}
		}
		v[n].line = lineno;
		if (sscanf(line, "%255s %llu %ld", v[n].name, &v[n].seed, &v[n].index) != 3 || v[n].index < 0) {
			fprintf(stderr, "salvage: %s:%u: not IMAGE SEED INDEX\n", list, lineno);
			good = false;
			break;
		}
		n++;
	}
	fclose(f);
	if (good && n)
		qsort(v, n, sizeof(*v), list_cmp);
	for (size_t a = 0, b; good && a < n; a = b) {
		struct image im;

		snprintf(path, sizeof(path), "%s/%s.img", images, v[a].name);
		for (b = a; b < n && !strcmp(v[b].name, v[a].name); b++)
			;
		if (!image_load(&im, path)) {
			rn->failures++;
			continue;
		}
		for (size_t e = a; e < b; e++) {
			rn->seed = v[e].seed;
			if ((unsigned long)v[e].index >= rn->count)
				rn->count = (unsigned)v[e].index + 1;
			run_volumes(rn, &im, v[e].index, total);
		}
		image_free(&im);
	}
	free(v);
	return good;
}

static void table_head(const struct run *rn, const char *first)
{
	printf("%-12s %-14s %5s %6s %5s %5s %5s %5s %5s", first, "damage", "vols", "sound", "lost", "unfin", "peer",
	       "again", "undo");
	if (rn->peers)
		printf(" | %6s %5s", "P-lost", "P-unf");
	printf("\n");
}

/* Per family and damage kind: what fatscope and (with --peers) the peer's repair did. */
static void families_print(const struct run *rn)
{
	static const char *const fam[] = { "exfat", "fat" };

	table_head(rn, "family");
	for (unsigned f = 0; f < 2; f++) {
		struct tally all = { 0 };

		for (unsigned k = 0; k < DMG_COUNT; k++)
			if (rn->family[f][k].volumes) {
				tally_print(fam[f], damage_name(k), &rn->family[f][k], rn->peers);
				tally_add(&all, &rn->family[f][k]);
			}
		if (all.volumes)
			tally_print(fam[f], "all", &all, rn->peers);
	}
}

static void usage(FILE *out)
{
	fputs("Usage: salvage [options] IMAGE...\n"
	      "  -n, --count N     damaged volumes per image (default 24)\n"
	      "  -s, --seed N      base seed (default 1)\n"
	      "  -k, --kinds LIST  damage kinds, comma-separated (default: all)\n"
	      "  -w, --work DIR    scratch directory (undo logs, the peers' image)\n"
	      "      --one I       only volume number I of each image (verbose)\n"
	      "      --keep FILE   write the damaged volume there (with --one)\n"
	      "      --list FILE   the volumes FILE names, a line each: IMAGE SEED INDEX\n"
	      "      --images DIR  where --list's IMAGE.img are (default .)\n"
	      "      --peers       also run the peer's repair on the same damage, side by side\n"
	      "      --tsk         files The Sleuth Kit (tsk_recover) reads in full are sound too\n"
	      "      --no-peer-check  do not run the peer's check after fatscope's repair\n"
	      "  -v, --verbose     a line per volume\n"
	      "  -q, --quiet       no table per image: the families' tables and the summary\n", out);
}

static void peers_init(struct run *rn)
{
	static const struct peer ex = { { "fsck.exfat", "-n", NULL }, { "fsck.exfat", "-y", NULL }, false, false };
	static const struct peer fat = { { "fsck.fat", "-n", NULL }, { "fsck.fat", "-a", "-w", NULL }, true, false };

	rn->peer_exfat = ex;
	rn->peer_fat = fat;
	rn->peer_exfat.present = peer_on_path("fsck.exfat");
	rn->peer_fat.present = peer_on_path("fsck.fat") && peer_on_path("mdir");
}

static bool parse_kinds(struct run *rn, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	rn->nkinds = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = damage_lookup(t);

		if (k < 0) {
			fprintf(stderr, "salvage: unknown damage kind '%s'\n", t);
			free(copy);
			return false;
		}
		rn->kinds[rn->nkinds++] = (unsigned)k;
	}
	free(copy);
	return rn->nkinds > 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
		{ "kinds", required_argument, NULL, 'k' }, { "work", required_argument, NULL, 'w' },
		{ "one", required_argument, NULL, 'o' }, { "keep", required_argument, NULL, 'K' },
		{ "peers", no_argument, NULL, 'P' }, { "no-peer-check", no_argument, NULL, 'C' },
		{ "tsk", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' }, { "quiet", no_argument, NULL, 'q' },
		{ "list", required_argument, NULL, 'L' }, { "images", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct run rn = { .seed = 1, .count = 24, .workdir = ".", .check_peer = true };
	struct tally total = { 0 };
	const char *list = NULL, *images = ".";
	long only = -1;
	int c;

	for (unsigned k = 0; k < DMG_COUNT; k++)
		rn.kinds[rn.nkinds++] = k;
	/* (mdir reads images that no drive letter names: no check of the drive's geometry) */
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	while ((c = getopt_long(argc, argv, "n:s:k:w:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'n': rn.count = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': rn.seed = strtoull(optarg, NULL, 0); break;
		case 'k': if (!parse_kinds(&rn, optarg)) return 2; break;
		case 'w': rn.workdir = optarg; break;
		case 'o': only = strtol(optarg, NULL, 0); break;
		case 'K': rn.keep = optarg; break;
		case 'L': list = optarg; break;
		case 'I': images = optarg; break;
		case 'P': rn.peers = true; break;
		case 'T': rn.tsk = peer_on_path("tsk_recover"); break;
		case 'C': rn.check_peer = false; break;
		case 'v': rn.verbose = true; break;
		case 'q': rn.quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((optind >= argc && !list) || (list && (optind < argc || only >= 0)) || (rn.keep && only < 0)) {
		usage(stderr);
		return 2;
	}
	if (only >= 0 && (unsigned long)only >= rn.count)
		rn.count = (unsigned)only + 1;
	peers_init(&rn);
	signal(SIGALRM, on_alarm);
	table_head(&rn, "image");
	if (list && !run_list(&rn, list, images, &total))
		return 2;
	for (int a = optind; a < argc; a++)
		run_image(&rn, argv[a], only, &total);
	if (!rn.quiet)
		tally_print("total", "", &total, rn.peers);
	families_print(&rn);
	printf("salvage: %u volumes (%u unusable after the damage), %lu sound files, %lu lost, %u unfinished, "
	       "%u left broken for the peer, %u not idempotent, %u undo failures; %u failures\n",
	       total.volumes, total.unusable, total.sound, total.lost, total.unfinished, total.peer_says, total.second,
	       total.undo_bad, rn.failures);
	if (rn.tsk)
		printf("salvage: The Sleuth Kit read %lu sound files in full that the library's reader did not\n",
		       total.tsk_more);
	if (!rn.peer_exfat.present || !rn.peer_fat.present)
		printf("salvage: peer checks skipped for %s%s (not installed)\n",
		       rn.peer_exfat.present ? "" : "exFAT (fsck.exfat) ",
		       rn.peer_fat.present ? "" : "FAT (fsck.fat, mdir)");
	printf("salvage-result volumes=%u sound=%lu lost=%lu unfinished=%u peer=%u again=%u undo=%u failures=%u "
	       "tsk=%s\n", total.volumes, total.sound, total.lost, total.unfinished, total.peer_says, total.second,
	       total.undo_bad, rn.failures, rn.tsk ? "yes" : "no");
	return rn.failures ? 1 : 0;
}
