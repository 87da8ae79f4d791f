// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * undo.c - the undo log: written (and made durable) before a plan's first
 * write, and put back, last edit first, over a device that holds what the
 * change left or what any interrupted run of it left.
 *
 * Format: "FATSCOPE-UNDO01\n", u32 count, u64 device size, u64 window
 * offset, then per edit u64 offset, u32 length (bit 31: the edit was
 * written after a sync), old bytes, new bytes; a CRC-32 of all that
 * closes it.  Little-endian throughout.  Logs without bit 31 (written
 * before it was recorded) are read as plans without syncs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/write.h"

#define UNDO_MAGIC	"FATSCOPE-UNDO01\n"
#define UNDO_HDR	36
/* The header's fields after the magic, and a record's before its old and new bytes. */
#define UNDO_HDR_COUNT		16	/* u32 */
#define UNDO_HDR_DEV_SIZE	20	/* u64 */
#define UNDO_HDR_WINDOW		28	/* u64 */
#define UNDO_REC_OFFSET		0	/* u64 */
#define UNDO_REC_LENGTH		8	/* u32, UNDO_SYNC */
#define UNDO_REC		12	/* then the old bytes, then the new */
#define UNDO_CRC		4	/* the log's last bytes: a CRC-32 of the rest */
#define UNDO_SYNC	0x80000000u
#define UNDO_MAX	(64u << 20)	/* bytes of log read at most */

static int write_all(int fd, const void *buf, size_t len, uint32_t *crc)
{
	const uint8_t *p = buf;

	*crc = crc32_update(*crc, p, len);
	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/*
 * Make the new file's name durable: fsync its directory.  Filesystems
 * that cannot sync a directory (EINVAL) keep names with the data.
 */
static int sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, r = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return 0;	/* not readable: nothing more can be done */
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		r = -errno;
	close(fd);
	return r;
}

static int write_records(int fd, const struct fsc_plan *plan, uint32_t *crc)
{
	uint8_t rec[UNDO_REC];
	int r = 0;

	for (size_t i = 0; !r && i < fsc_plan_count(plan); i++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, i);

		put_le64(rec, UNDO_REC_OFFSET, e->offset);
		put_le32(rec, UNDO_REC_LENGTH, (uint32_t)e->len | (e->sync_before ? UNDO_SYNC : 0));
		r = write_all(fd, rec, sizeof(rec), crc);
		if (!r)
			r = write_all(fd, e->old, e->len, crc);
		if (!r)
			r = write_all(fd, e->data, e->len, crc);
	}
	return r;
}

int undo_write(struct fsc_dev *dev, const struct fsc_plan *plan, const char *path)
{
	uint8_t hdr[UNDO_HDR], c[UNDO_CRC];
	uint32_t crc = 0, dummy = 0;
	size_t total = UNDO_HDR + UNDO_CRC;
	int fd, r;

	for (size_t i = 0; i < fsc_plan_count(plan); i++) {
		size_t len = fsc_plan_edit(plan, i)->len;

		if (len >= UNDO_SYNC || (total += UNDO_REC + 2 * len) > UNDO_MAX)
			return -EFBIG;	/* more than fsc_undo_apply would read back */
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	memcpy(hdr, UNDO_MAGIC, 16);
	put_le32(hdr, UNDO_HDR_COUNT, (uint32_t)fsc_plan_count(plan));
	put_le64(hdr, UNDO_HDR_DEV_SIZE, fsc_dev_size(dev));
	put_le64(hdr, UNDO_HDR_WINDOW, fsc_dev_offset(dev));
	r = write_all(fd, hdr, sizeof(hdr), &crc);
	if (!r)
		r = write_records(fd, plan, &crc);
	put_le_n(c, sizeof(c), crc);
	if (!r)
		r = write_all(fd, c, sizeof(c), &dummy);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r)
		r = sync_dir(path);
	if (r)
		unlink(path);
	return r;
}

/* Read and verify a whole undo log into memory; *outlen excludes the CRC. */
static int read_undo(const char *path, uint8_t **out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	do {
		if (len == cap) {
			uint8_t *nb = cap >= UNDO_MAX ? NULL : realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len);
		if (r > 0)
			len += (size_t)r;
	} while (r > 0 || (r < 0 && errno == EINTR));
	close(fd);
	if (len < UNDO_HDR + UNDO_CRC || memcmp(buf, UNDO_MAGIC, 16) != 0 ||
	    crc32_update(0, buf, len - UNDO_CRC) != get_le_n(buf + len - UNDO_CRC, UNDO_CRC)) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	*outlen = len - UNDO_CRC;
	return 0;
}

struct undo_rec {
	uint64_t off;
	size_t len;
	bool sync_before;
	const uint8_t *old, *new;
};

/* The records of a verified log, for a device of this size and window. */
static int undo_index(struct fsc_dev *dev, const uint8_t *log, size_t len, struct undo_rec **out, size_t *nout)
{
	size_t n = get_le32(log, UNDO_HDR_COUNT), pos = UNDO_HDR;
	struct undo_rec *v;

	if (get_le64(log, UNDO_HDR_DEV_SIZE) != fsc_dev_size(dev) || get_le64(log, UNDO_HDR_WINDOW) != fsc_dev_offset(dev) ||
	    n > len / UNDO_REC)
		return -EINVAL;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t l;

		if (len - pos < UNDO_REC ||
		    (l = get_le32(log, pos + UNDO_REC_LENGTH) & ~UNDO_SYNC, (len - pos - UNDO_REC) / 2 < l)) {
			free(v);
			return -EINVAL;
		}
		v[i] = (struct undo_rec){ get_le64(log, pos + UNDO_REC_OFFSET), l,
					  get_le32(log, pos + UNDO_REC_LENGTH) & UNDO_SYNC, log + pos + UNDO_REC,
					  log + pos + UNDO_REC + l };
		if (v[i].off > fsc_dev_size(dev) || l > fsc_dev_size(dev) - v[i].off) {
			free(v);
			return -EINVAL;
		}
		pos += UNDO_REC + 2 * (size_t)l;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* Is c a value byte b took during the change: the old or new byte of an edit covering it? */
static bool once_held(const struct undo_rec *v, size_t n, uint64_t b, uint8_t c)
{
	for (size_t j = 0; j < n; j++) {
		if (b < v[j].off || b - v[j].off >= v[j].len)
			continue;
		if (v[j].old[b - v[j].off] == c || v[j].new[b - v[j].off] == c)
			return true;
	}
	return false;
}

/*
 * Does every byte of every range hold a value the change gave it at some
 * point (the original, or an edit's new byte)?  1 yes, 0 no, or -errno.
 */
static int undo_plausible(struct fsc_dev *dev, const struct undo_rec *v, size_t n)
{
	int r = 1;

	for (size_t i = 0; r == 1 && i < n; i++) {
		uint8_t *cur = malloc(v[i].len ? v[i].len : 1);

		if (!cur)
			return -ENOMEM;
		r = fsc_dev_read(dev, v[i].off, cur, v[i].len);
		for (size_t k = 0; r == 0 && k < v[i].len; k++)
			if (cur[k] != v[i].old[k] && cur[k] != v[i].new[k] && !once_held(v, n, v[i].off + k, cur[k]))
				r = -ESTALE;
		free(cur);
		r = r == 0 ? 1 : r == -ESTALE ? 0 : r;
	}
	return r;
}

FSC_EXPORT int fsc_undo_apply(struct fsc_dev *dev, const char *undo_path)
{
	uint8_t *log = NULL;
	struct undo_rec *v = NULL;
	size_t len = 0, n = 0;
	int r = read_undo(undo_path, &log, &len);

	if (r == 0)
		r = undo_index(dev, log, len, &v, &n);
	if (r == 0)
		r = undo_plausible(dev, v, n);
	if (r == 0)
		r = -ESTALE;
	if (r < 0)
		goto out;
	/* Last edit first; where the change synced before an edit, sync after putting it back. */
	for (size_t i = n; i-- > 0;) {
		r = fsc_dev_write(dev, v[i].off, v[i].old, v[i].len);
		if (r == 0 && v[i].sync_before && i > 0)
			r = fsc_dev_sync(dev);
		if (r < 0)
			goto out;
	}
	r = fsc_dev_sync(dev);
	if (r == 0)
		r = n > INT32_MAX ? INT32_MAX : (int)n;
out:
	free(v);
	free(log);
	return r;
}
