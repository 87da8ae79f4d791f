/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash.h - MD5 (RFC 1321), SHA-1 and SHA-256 (FIPS 180-4) for extract's
 * manifests and ls --hash (hash.c): one context hashes with any set of
 * the three at once.
 */
#ifndef FSC_HASH_H
#define FSC_HASH_H

#include <stddef.h>
#include <stdint.h>

/* In hashdeep's column order. */
enum hash_algo { HASH_MD5, HASH_SHA1, HASH_SHA256, HASH_COUNT };

/* The longest digest in hex, with its NUL. */
#define HASH_HEX_MAX 65

struct hash_ctx {
	unsigned set;			/* 1 << algo for each one computed */
	uint64_t len;			/* bytes hashed */
	uint8_t block[64];		/* the part of a block not hashed yet */
	uint32_t md5[4], sha1[5], sha256[8];
};

/* "md5", "sha1", "sha256". */
const char *hash_name(enum hash_algo a);
/* The algorithm named (any case): its number, or -1. */
int hash_parse(const char *name);
/* Start hashing with the algorithms of set (bits 1 << HASH_*). */
void hash_init(struct hash_ctx *h, unsigned set);
void hash_update(struct hash_ctx *h, const void *data, size_t len);
/*
 * End: the digest of each algorithm of the set as lower-case hex into
 * hex[algo] (HASH_HEX_MAX bytes each; the others left as they are).
 */
void hash_final(struct hash_ctx *h, char hex[HASH_COUNT][HASH_HEX_MAX]);
/* len bytes as lower-case hex into out (2 * len + 1 bytes). */
void hash_hex(const uint8_t *b, size_t len, char *out);

#endif
