// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * digest.c - MD5 (RFC 1321, section 3) and SHA-1 (FIPS 180-4, 6.1): one
 * block buffer and padding for both (64-byte blocks, the message length
 * in bits at the end: little-endian for MD5, big-endian for SHA-1), one
 * compression function each.
 *
 * Consumes: bytes.  Produces: 16- or 20-byte digests.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"

static uint32_t rotl(uint32_t x, unsigned n)
{
	return x << n | x >> (32 - n);
}

/* MD5's T[i], the integer part of 2^32 * |sin(i + 1)| (RFC 1321, 3.4). */
static const uint32_t md5_t[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(uint32_t *h, const uint8_t *p)
{
	static const unsigned s[4][4] = { { 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 } };
	uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];

	for (int i = 0; i < 16; i++)
		m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
	for (unsigned i = 0; i < 64; i++) {
		uint32_t f, t;
		unsigned g, round = i / 16;

		if (round == 0)
			f = (b & c) | (~b & d), g = i;
		else if (round == 1)
			f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
		else if (round == 2)
			f = b ^ c ^ d, g = (3 * i + 5) % 16;
		else
			f = c ^ (b | ~d), g = (7 * i) % 16;
		t = d;
		d = c;
		c = b;
		b += rotl(a + f + md5_t[i] + m[g], s[round][i % 4]);
		a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
}

static void sha1_block(uint32_t *h, const uint8_t *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		t = rotl(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rotl(b, 30);
		b = a;
		a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

static void compress(struct digest *d, const uint8_t *p)
{
	if (d->alg == DIGEST_MD5)
		md5_block(d->h, p);
	else
		sha1_block(d->h, p);
}

void digest_init(struct digest *d, enum digest_alg alg)
{
	static const uint32_t iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };

	memset(d, 0, sizeof(*d));
	d->alg = alg;
	memcpy(d->h, iv, sizeof(iv));	/* MD5 uses the first four */
}

void digest_update(struct digest *d, const void *data, size_t n)
{
	const uint8_t *p = data;

	d->bytes += n;
	if (d->fill) {
		size_t k = 64 - d->fill < n ? 64 - d->fill : n;

		memcpy(d->block + d->fill, p, k);
		d->fill += k;
		p += k;
		n -= k;
		if (d->fill < 64)
			return;
		compress(d, d->block);
		d->fill = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		compress(d, p);
	memcpy(d->block, p, n);
	d->fill = n;
}

void digest_final(struct digest *d, uint8_t *out)
{
	uint64_t bits = d->bytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padlen = (d->fill < 56 ? 56 : 120) - d->fill;
	bool big = d->alg == DIGEST_SHA1;

	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (big ? 56 - 8 * i : 8 * i));
	digest_update(d, pad, padlen + 8);
	for (size_t i = 0; i < digest_len(d->alg); i++)
		out[i] = (uint8_t)(d->h[i / 4] >> (big ? 24 - 8 * (i % 4) : 8 * (i % 4)));
}

size_t digest_len(enum digest_alg alg)
{
	return alg == DIGEST_MD5 ? 16 : 20;
}

const char *digest_name(enum digest_alg alg)
{
	return alg == DIGEST_MD5 ? "md5" : "sha1";
}

void digest_hex(const uint8_t *b, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	if (!len)
		out[0] = '\0';
}
