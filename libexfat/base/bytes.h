/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bytes.h - little-endian readers and writers at a byte offset (and the
 * big-endian reader the VHD footer needs).
 *
 * Consumes: raw on-disk buffers. Produces: native integers.
 * On-disk data is never accessed through packed structs or pointer casts.
 */
#ifndef FSC_BYTES_H
#define FSC_BYTES_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

static inline uint8_t get_u8(const uint8_t *b, size_t off)
{
	return b[off];
}

static inline uint16_t get_le16(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] | (uint16_t)b[off + 1] << 8);
}

static inline uint32_t get_le32(const uint8_t *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
	       (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

static inline uint64_t get_le64(const uint8_t *b, size_t off)
{
	return (uint64_t)get_le32(b, off) | (uint64_t)get_le32(b, off + 4) << 32;
}

static inline uint32_t get_be32(const uint8_t *b, size_t off)
{
	return (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 |
	       (uint32_t)b[off + 2] << 8 | (uint32_t)b[off + 3];
}

static inline void put_le16(uint8_t *b, size_t off, uint16_t v)
{
	b[off] = (uint8_t)v;
	b[off + 1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *b, size_t off, uint32_t v)
{
	put_le16(b, off, (uint16_t)v);
	put_le16(b, off + 2, (uint16_t)(v >> 16));
}

static inline void put_le64(uint8_t *b, size_t off, uint64_t v)
{
	put_le32(b, off, (uint32_t)v);
	put_le32(b, off + 4, (uint32_t)(v >> 32));
}

/*
 * An unsigned little-endian integer of len bytes (1, 2 or 4) at b: a field
 * whose width is known only at run time, or one FAT cell read into its own
 * buffer.
 */
static inline uint32_t get_le_n(const uint8_t *b, size_t len)
{
	return len == 1 ? b[0] : len == 2 ? get_le16(b, 0) : get_le32(b, 0);
}

static inline void put_le_n(uint8_t *b, size_t len, uint32_t v)
{
	if (len == 1)
		b[0] = (uint8_t)v;
	else if (len == 2)
		put_le16(b, 0, (uint16_t)v);
	else
		put_le32(b, 0, v);
}

/* True when every byte of b[off .. off+len) equals val. */
static inline int bytes_all(const uint8_t *b, size_t off, size_t len, uint8_t val)
{
	for (size_t i = 0; i < len; i++)
		if (b[off + i] != val)
			return 0;
	return 1;
}

/*
 * How many of b's len bytes at its end are zero (the tail of a directory
 * that holds nothing), found a word at a time from the end.
 */
static inline size_t bytes_zero_tail(const uint8_t *b, size_t len)
{
	size_t n = len;
	uint64_t w, x[4];

	while (n >= 32) {		/* (32 bytes a test: most of a directory's bytes are its zero tail) */
		memcpy(x, b + n - 32, 32);
		if (x[0] | x[1] | x[2] | x[3])
			break;
		n -= 32;
	}
	while (n >= 8) {
		memcpy(&w, b + n - 8, 8);
		if (w)
			break;
		n -= 8;
	}
	while (n && !b[n - 1])
		n--;
	return len - n;
}

/* How many bits of a's first n bytes differ from b's. */
static inline unsigned bytes_bits_apart(const uint8_t *a, const uint8_t *b, size_t n)
{
	unsigned d = 0;

	for (size_t i = 0; i < n; i++)
		d += (unsigned)__builtin_popcount((unsigned)(a[i] ^ b[i]));
	return d;
}

static inline int is_pow2_u32(uint32_t v)
{
	return v && !(v & (v - 1));
}

static inline unsigned ilog2_u32(uint32_t v)
{
	unsigned r = 0;
	while (v >>= 1)
		r++;
	return r;
}

#endif
