// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hash.c - the digests an examiner's manifest holds, written from their
 * specifications: MD5 (RFC 1321, section 3: little-endian words, four
 * rounds of sixteen steps, T[i] = floor(2^32 * |sin(i + 1)|)), SHA-1 and
 * SHA-256 (FIPS 180-4, sections 5 and 6.1, 6.2: big-endian words, the
 * message schedule, the constants of 4.2.1 and 4.2.2, the initial hash
 * values of 5.3.1 and 5.3.3).  The three share the padding (a 1 bit,
 * zeros, the length in bits in the last 8 bytes: RFC 1321 3.1-3.2, FIPS
 * 180-4 5.1.1) and the 64-byte block loop.
 *
 * Consumes: bytes.  Produces: lower-case hex digests.  No state outside
 * the context; tests/unit/test_hash.c checks the specifications' vectors.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hash.h"

static const char *const names[HASH_COUNT] = { "md5", "sha1", "sha256" };

const char *hash_name(enum hash_algo a)
{
	return (unsigned)a < HASH_COUNT ? names[a] : "?";
}

int hash_parse(const char *name)
{
	for (int a = 0; a < HASH_COUNT; a++)
		if (strcasecmp(name, names[a]) == 0)
			return a;
	return -1;
}

static uint32_t rol(uint32_t x, unsigned n)
{
	return x << n | x >> (32 - n);
}

static uint32_t ror(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- MD5, RFC 1321 3.4 ---- */

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

/* The shift of each step: four per round, repeated. */
static const uint8_t md5_s[4][4] = { { 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 } };

static void md5_block(uint32_t st[4], const uint8_t *p)
{
	uint32_t x[16], a = st[0], b = st[1], c = st[2], d = st[3];

	for (int i = 0; i < 16; i++)
		x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
	for (int i = 0; i < 64; i++) {
		int round = i / 16;
		uint32_t f, tmp;
		unsigned k;

		switch (round) {
		case 0: f = (b & c) | (~b & d); k = (unsigned)i; break;			/* F, X[i] */
		case 1: f = (b & d) | (c & ~d); k = (5u * (unsigned)i + 1) % 16; break;	/* G */
		case 2: f = b ^ c ^ d; k = (3u * (unsigned)i + 5) % 16; break;		/* H */
		default: f = c ^ (b | ~d); k = (7u * (unsigned)i) % 16; break;		/* I */
		}
		tmp = d;
		d = c;
		c = b;
		b = b + rol(a + f + x[k] + md5_t[i], md5_s[round][i % 4]);
		a = tmp;
	}
	st[0] += a, st[1] += b, st[2] += c, st[3] += d;
}

/* ---- SHA-1, FIPS 180-4 6.1.2 ---- */

static void sha1_block(uint32_t st[5], const uint8_t *p)
{
	uint32_t w[80], a = st[0], b = st[1], c = st[2], d = st[3], e = st[4];

	for (int t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (int t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (int t = 0; t < 80; t++) {
		uint32_t f, k, tmp;

		if (t < 20)
			f = (b & c) ^ (~b & d), k = 0x5a827999;		/* Ch */
		else if (t < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;			/* Parity */
		else if (t < 60)
			f = (b & c) ^ (b & d) ^ (c & d), k = 0x8f1bbcdc;	/* Maj */
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		tmp = rol(a, 5) + f + e + k + w[t];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = tmp;
	}
	st[0] += a, st[1] += b, st[2] += c, st[3] += d, st[4] += e;
}

/* ---- SHA-256, FIPS 180-4 4.2.2, 6.2.2 ---- */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_block(uint32_t st[8], const uint8_t *p)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}
	memcpy(v, st, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
			      sha256_k[t] + w[t];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		st[i] += v[i];
}

/* ---- the shared part ---- */

void hash_init(struct hash_ctx *h, unsigned set)
{
	static const uint32_t md5_iv[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	static const uint32_t sha1_iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	static const uint32_t sha256_iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memset(h, 0, sizeof(*h));
	h->set = set;
	memcpy(h->md5, md5_iv, sizeof(md5_iv));
	memcpy(h->sha1, sha1_iv, sizeof(sha1_iv));
	memcpy(h->sha256, sha256_iv, sizeof(sha256_iv));
}

static void blocks(struct hash_ctx *h, const uint8_t *p)
{
	if (h->set & 1u << HASH_MD5)
		md5_block(h->md5, p);
	if (h->set & 1u << HASH_SHA1)
		sha1_block(h->sha1, p);
	if (h->set & 1u << HASH_SHA256)
		sha256_block(h->sha256, p);
}

void hash_update(struct hash_ctx *h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t have = (size_t)(h->len % 64);

	h->len += len;
	if (have) {
		size_t n = 64 - have < len ? 64 - have : len;

		memcpy(h->block + have, p, n);
		p += n;
		len -= n;
		if (have + n < 64)
			return;
		blocks(h, h->block);
	}
	for (; len >= 64; p += 64, len -= 64)
		blocks(h, p);
	memcpy(h->block, p, len);
}

static void hex_words(char *out, const uint32_t *w, int n, int little)
{
	for (int i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
			sprintf(out + 8 * i + 2 * b, "%02x", (unsigned)(w[i] >> (little ? 8 * b : 24 - 8 * b)) & 0xFF);
}

void hash_final(struct hash_ctx *h, char hex[HASH_COUNT][HASH_HEX_MAX])
{
	uint64_t bits = h->len * 8;
	size_t have = (size_t)(h->len % 64);
	uint8_t pad[72] = { 0x80 };
	size_t n = (have < 56 ? 56 : 120) - have;

	/* The length: little-endian for MD5 (RFC 1321 3.2), big-endian for SHA (FIPS 180-4 5.1.1). */
	hash_update(h, pad, n);
	for (int i = 0; i < 8; i++)
		pad[i] = (uint8_t)(bits >> (8 * i));
	if (h->set & 1u << HASH_MD5) {
		memcpy(h->block + 56, pad, 8);
		md5_block(h->md5, h->block);
		hex_words(hex[HASH_MD5], h->md5, 4, 1);
	}
	for (int i = 0; i < 8; i++)
		h->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	if (h->set & 1u << HASH_SHA1) {
		sha1_block(h->sha1, h->block);
		hex_words(hex[HASH_SHA1], h->sha1, 5, 0);
	}
	if (h->set & 1u << HASH_SHA256) {
		sha256_block(h->sha256, h->block);
		hex_words(hex[HASH_SHA256], h->sha256, 8, 0);
	}
}

void hash_hex(const uint8_t *b, size_t len, char *out)
{
	static const char digit[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digit[b[i] >> 4];
		out[2 * i + 1] = digit[b[i] & 15];
	}
	out[2 * len] = '\0';
}
