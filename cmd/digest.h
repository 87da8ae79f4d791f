/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digest.h - message digests for what fatscope hashes: MD5 (RFC 1321) and
 * SHA-1 (FIPS 180-4), the hashes an EWF container stores of its media.
 */
#ifndef FSC_DIGEST_H
#define FSC_DIGEST_H

#include <stddef.h>
#include <stdint.h>

enum digest_alg { DIGEST_MD5, DIGEST_SHA1 };

#define DIGEST_MAX 20			/* bytes of the longest digest */

struct digest {
	enum digest_alg alg;
	uint32_t h[5];
	uint64_t bytes;			/* hashed so far */
	uint8_t block[64];
	size_t fill;			/* bytes waiting in block */
};

void digest_init(struct digest *d, enum digest_alg alg);
void digest_update(struct digest *d, const void *p, size_t n);
/* The digest into out (digest_len bytes); d is spent. */
void digest_final(struct digest *d, uint8_t *out);
size_t digest_len(enum digest_alg alg);
/* "md5", "sha1" */
const char *digest_name(enum digest_alg alg);
/* len bytes as lower-case hex into out (2 * len + 1 bytes). */
void digest_hex(const uint8_t *b, size_t len, char *out);

#endif
