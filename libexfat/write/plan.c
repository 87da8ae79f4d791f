// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan.c - the only way fatscope writes: a plan of byte edits (offset, old
 * bytes, new bytes, why), verified against the device before anything is
 * written, recorded in an undo log (fsync'd first), then applied in order
 * with the syncs the caller asked for; and the undo log put back.
 *
 * Undo log: "FATSCOPE-UNDO01\n", u32 count, u64 device size, u64 window
 * offset, then per edit u64 offset, u32 length, old bytes, new bytes; a
 * CRC-32 of all that closes it.  Little-endian throughout.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/write.h"

#define UNDO_MAGIC "FATSCOPE-UNDO01\n"

struct fsc_plan {
	struct fsc_edit *v;
	size_t n, cap;
};

FSC_EXPORT struct fsc_plan *fsc_plan_new(void)
{
	return calloc(1, sizeof(struct fsc_plan));
}

FSC_EXPORT void fsc_plan_free(struct fsc_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n; i++) {
		free((void *)plan->v[i].old);
		free((void *)plan->v[i].why);
	}
	free(plan->v);
	free(plan);
}

FSC_EXPORT int fsc_plan_add(struct fsc_plan *plan, uint64_t off, const void *old, const void *data, size_t len,
			    const char *why, bool sync_before)
{
	uint8_t *bytes;
	char *w;

	if (plan->n == plan->cap) {
		size_t cap = plan->cap ? 2 * plan->cap : 16;
		struct fsc_edit *v = realloc(plan->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		plan->v = v;
		plan->cap = cap;
	}
	bytes = malloc(2 * len + 1);
	w = strdup(why ? why : "");
	if (!bytes || !w) {
		free(bytes);
		free(w);
		return -ENOMEM;
	}
	memcpy(bytes, old, len);
	memcpy(bytes + len, data, len);
	plan->v[plan->n++] = (struct fsc_edit){ off, len, bytes, bytes + len, w, sync_before };
	return 0;
}

FSC_EXPORT size_t fsc_plan_count(const struct fsc_plan *plan)
{
	return plan->n;
}

FSC_EXPORT const struct fsc_edit *fsc_plan_edit(const struct fsc_plan *plan, size_t i)
{
	return i < plan->n ? &plan->v[i] : NULL;
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

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

static int write_undo(struct fsc_dev *dev, const struct fsc_plan *plan, const char *path)
{
	uint8_t hdr[16 + 4 + 8 + 8], rec[12];
	uint32_t crc = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), r = 0;

	if (fd < 0)
		return -errno;
	memcpy(hdr, UNDO_MAGIC, 16);
	put_le32(hdr, 16, (uint32_t)plan->n);
	put_le64(hdr, 20, fsc_dev_size(dev));
	put_le64(hdr, 28, fsc_dev_offset(dev));
	r = write_all(fd, hdr, sizeof(hdr), &crc);
	for (size_t i = 0; !r && i < plan->n; i++) {
		put_le64(rec, 0, plan->v[i].offset);
		put_le32(rec, 8, (uint32_t)plan->v[i].len);
		r = write_all(fd, rec, sizeof(rec), &crc);
		if (!r)
			r = write_all(fd, plan->v[i].old, plan->v[i].len, &crc);
		if (!r)
			r = write_all(fd, plan->v[i].data, plan->v[i].len, &crc);
	}
	if (!r) {
		uint8_t c[4];
		uint32_t dummy = 0;

		put_le32(c, 0, crc);
		r = write_all(fd, c, 4, &dummy);
	}
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r)
		unlink(path);
	return r;
}

/* Does the device hold want at off (len bytes)? */
static int holds(struct fsc_dev *dev, uint64_t off, const uint8_t *want, size_t len)
{
	uint8_t *cur = malloc(len ? len : 1);
	int r;

	if (!cur)
		return -ENOMEM;
	r = fsc_dev_read(dev, off, cur, len);
	if (r == 0)
		r = memcmp(cur, want, len) == 0;
	free(cur);
	return r;
}

/* Lay bytes (at off) over buf (at boff, blen) where they overlap. */
static void overlay(uint8_t *buf, uint64_t boff, size_t blen, const uint8_t *bytes, uint64_t off, size_t len)
{
	uint64_t lo = off > boff ? off : boff, hi = off + len < boff + blen ? off + len : boff + blen;

	if (lo < hi)
		memcpy(buf + (lo - boff), bytes + (lo - off), (size_t)(hi - lo));
}

/*
 * What edit i must find before it is written: the device as it is, with
 * the earlier edits of the plan laid over it.
 */
static int expect_before(struct fsc_dev *dev, const struct fsc_plan *plan, size_t i)
{
	const struct fsc_edit *e = &plan->v[i];
	uint8_t *buf = malloc(e->len ? e->len : 1);
	int r;

	if (!buf)
		return -ENOMEM;
	r = fsc_dev_read(dev, e->offset, buf, e->len);
	for (size_t j = 0; r == 0 && j < i; j++)
		overlay(buf, e->offset, e->len, plan->v[j].data, plan->v[j].offset, plan->v[j].len);
	if (r == 0)
		r = memcmp(buf, e->old, e->len) == 0 ? 1 : 0;
	free(buf);
	return r;
}

int plan_view_read(struct fsc_dev *dev, const struct fsc_plan *plan, uint64_t off, void *buf, size_t len)
{
	int r = fsc_dev_read(dev, off, buf, len);

	for (size_t j = 0; r == 0 && j < plan->n; j++)
		overlay(buf, off, len, plan->v[j].data, plan->v[j].offset, plan->v[j].len);
	return r;
}

void plan_truncate(struct fsc_plan *plan, size_t n)
{
	while (plan->n > n) {
		plan->n--;
		free((void *)plan->v[plan->n].old);
		free((void *)plan->v[plan->n].why);
	}
}

FSC_EXPORT int fsc_plan_apply(struct fsc_dev *dev, const struct fsc_plan *plan, const char *undo_path)
{
	int r;

	for (size_t i = 0; i < plan->n; i++) {
		r = expect_before(dev, plan, i);
		if (r <= 0)
			return r < 0 ? r : -ESTALE;
	}
	if (undo_path && (r = write_undo(dev, plan, undo_path)) < 0)
		return r;
	for (size_t i = 0; i < plan->n; i++) {
		if (plan->v[i].sync_before && (r = fsc_dev_sync(dev)) < 0)
			return r;
		r = fsc_dev_write(dev, plan->v[i].offset, plan->v[i].data, plan->v[i].len);
		if (r < 0)
			return r;
	}
	return fsc_dev_sync(dev);
}

/* Read and verify a whole undo log into memory. */
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
			uint8_t *nb = cap > (64u << 20) ? NULL : realloc(buf, cap = cap ? 2 * cap : 65536);

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
	if (len < 40 || memcmp(buf, UNDO_MAGIC, 16) != 0 ||
	    crc32_update(0, buf, len - 4) != get_le32(buf, len - 4)) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	*outlen = len - 4;
	return 0;
}

FSC_EXPORT int fsc_undo_apply(struct fsc_dev *dev, const char *undo_path)
{
	uint8_t *log = NULL;
	size_t len = 0, n, pos = 36, *at;
	int r = read_undo(undo_path, &log, &len);

	if (r < 0)
		return r;
	n = get_le32(log, 16);
	if (get_le64(log, 20) != fsc_dev_size(dev) || get_le64(log, 28) != fsc_dev_offset(dev) ||
	    n > len / 12 || !(at = calloc(n + 1, sizeof(*at)))) {
		free(log);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {	/* index the records */
		uint32_t l;

		if (pos + 12 > len || (l = get_le32(log, pos + 8), pos + 12 + 2ull * l > len)) {
			r = -EINVAL;
			goto out;
		}
		at[i] = pos;
		pos += 12 + 2ull * l;
	}
	/* Each range must hold what the plan left: its new bytes under the later edits' ones. */
	for (size_t i = 0; i < n; i++) {
		uint64_t off = get_le64(log, at[i]);
		uint32_t l = get_le32(log, at[i] + 8);
		uint8_t *want = malloc(l ? l : 1);

		if (!want) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(want, log + at[i] + 12 + l, l);
		for (size_t j = i + 1; j < n; j++)
			overlay(want, off, l, log + at[j] + 12 + get_le32(log, at[j] + 8), get_le64(log, at[j]),
				get_le32(log, at[j] + 8));
		r = holds(dev, off, want, l);
		free(want);
		if (r <= 0) {
			r = r < 0 ? r : -ESTALE;
			goto out;
		}
	}
	for (size_t i = n; i-- > 0;) {
		r = fsc_dev_write(dev, get_le64(log, at[i]), log + at[i] + 12, get_le32(log, at[i] + 8));
		if (r < 0)
			goto out;
	}
	r = fsc_dev_sync(dev);
	if (r == 0)
		r = (int)n;
out:
	free(at);
	free(log);
	return r;
}
