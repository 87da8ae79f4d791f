// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hash.c - cmd/hash.c against the vectors of RFC 1321 (A.5) and of
 * FIPS 180-4's examples (NIST's "abc", the two-block message and a
 * million 'a'), all three digests from one context, and against the
 * host's md5sum, sha1sum and sha256sum (GNU coreutils) over every length
 * 0..300 around the 64-byte block and its 56-byte padding edge and over
 * 1 MiB fed in uneven pieces (each program run once over all of them).
 * A missing *sum program skips that part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "../../cmd/hash.h"

static void digests(const void *p, size_t len, size_t piece, char hex[HASH_COUNT][HASH_HEX_MAX])
{
	struct hash_ctx h;
	const uint8_t *b = p;

	hash_init(&h, 7);
	for (size_t off = 0; off < len; off += piece)
		hash_update(&h, b + off, len - off < piece ? len - off : piece);
	hash_final(&h, hex);
}

static void test_vectors(void **state)
{
	static const struct {
		const char *msg, *md5, *sha1, *sha256;
	} v[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72", "a9993e364706816aba3e25717850c26c9cd0d89d",
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0", NULL, NULL },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "57edf4a22be3c955ac49da2e2107b67a", NULL, NULL },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", NULL,
		  "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[HASH_COUNT][HASH_HEX_MAX];
	char *million = malloc(1000000);

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t piece = 1; piece <= 65; piece += 64) {
			digests(v[i].msg, strlen(v[i].msg), piece, hex);
			if (v[i].md5)
				assert_string_equal(hex[HASH_MD5], v[i].md5);
			if (v[i].sha1)
				assert_string_equal(hex[HASH_SHA1], v[i].sha1);
			if (v[i].sha256)
				assert_string_equal(hex[HASH_SHA256], v[i].sha256);
		}
	assert_non_null(million);
	memset(million, 'a', 1000000);
	digests(million, 1000000, 4093, hex);
	assert_string_equal(hex[HASH_SHA1], "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	assert_string_equal(hex[HASH_SHA256], "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	assert_string_equal(hex[HASH_MD5], "7707d6ae4e027c70eea2a935c2296f21");
	free(million);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(hash_parse("SHA256"), HASH_SHA256);
	assert_int_equal(hash_parse("md5"), HASH_MD5);
	assert_int_equal(hash_parse("sha1"), HASH_SHA1);
	assert_int_equal(hash_parse("sha512"), -1);
	assert_string_equal(hash_name(HASH_SHA1), "sha1");
}

/*
 * The host's digests: each prog run once over files holding the first
 * lens[i] bytes of buf (a process a length cost most of this test's time
 * on a small machine).  want[a][i] is prog a's digest of file i, or ""
 * where prog a is missing.
 */
#define NLENS 160
static void host_sums(const char *const progs[HASH_COUNT], const uint8_t *buf, const size_t *lens, size_t n,
		      char want[HASH_COUNT][NLENS][HASH_HEX_MAX])
{
	char dir[] = "/tmp/fatscope-test-hash-XXXXXX", path[64], line[256];
	char *cmd = malloc(n * 48 + 64);
	size_t at;

	assert_non_null(cmd);
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%zu", dir, i);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, lens[i], f), lens[i]);
		assert_int_equal(fclose(f), 0);
	}
	for (int a = 0; a < HASH_COUNT; a++) {
		FILE *p;
		size_t i = 0;

		at = (size_t)sprintf(cmd, "%s", progs[a]);
		for (size_t k = 0; k < n; k++)
			at += (size_t)sprintf(cmd + at, " %s/%zu", dir, k);
		sprintf(cmd + at, " 2> /dev/null");
		for (size_t k = 0; k < n; k++)
			want[a][k][0] = '\0';
		if ((p = popen(cmd, "r"))) {
			/* "HEX  DIR/I", in the order of the arguments */
			while (i < n && fgets(line, sizeof(line), p)) {
				line[strcspn(line, " ")] = '\0';
				assert_true(strlen(line) < HASH_HEX_MAX);
				memcpy(want[a][i++], line, strlen(line) + 1);
			}
			pclose(p);
		}
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu", dir, i);
		unlink(path);
	}
	rmdir(dir);
	free(cmd);
}

static void test_host_sums(void **state)
{
	static const char *const progs[HASH_COUNT] = { "md5sum", "sha1sum", "sha256sum" };
	static char want[HASH_COUNT][NLENS][HASH_HEX_MAX];
	size_t big = 1u << 20, lens[NLENS], n = 0;
	uint8_t *buf = malloc(big);
	char hex[HASH_COUNT][HASH_HEX_MAX];
	uint32_t x = 12345;
	int compared = 0;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < big; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t len = 0; len <= 300; len += len < 130 ? 1 : 17)
		lens[n++] = len;
	lens[n++] = big;
	assert_true(n <= NLENS);
	host_sums(progs, buf, lens, n, want);
	for (size_t i = 0; i < n; i++) {
		/* the lengths up to 300 in pieces of 7, the 1 MiB in pieces of 65537 */
		digests(buf, lens[i], lens[i] == big ? 65537 : 7, hex);
		for (int a = 0; a < HASH_COUNT; a++) {
			if (!want[a][i][0])
				continue;
			assert_string_equal(hex[a], want[a][i]);
			compared++;
		}
	}
	free(buf);
	if (!compared)
		skip();
}

int unit_hash(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_host_sums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
