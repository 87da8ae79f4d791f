// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sized.c - options structs that carry their size, so that the public
 * ones can grow before 1.0 (and after) without breaking a caller built
 * against an older header: the library reads what the caller's struct
 * holds, takes zero for the members it lacks, and refuses a newer
 * caller's struct only when it sets a member this library does not know.
 * The rule of Linux's copy_struct_from_user, for a library.  Results
 * go the other way: the library fills its whole struct and gives the
 * caller's the members that struct holds.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/base.h"

int sized_copy(void *dst, size_t dsize, const void *src)
{
	const unsigned char *s = src;
	size_t n;

	memset(dst, 0, dsize);
	memcpy(dst, &dsize, sizeof(dsize));
	if (!src)
		return 0;
	memcpy(&n, src, sizeof(n));
	if (n < sizeof(n))
		return -EINVAL;	/* size not set: a struct zeroed, not made with its _INIT */
	for (size_t i = dsize; i < n; i++)
		if (s[i])
			return -E2BIG;
	memcpy((unsigned char *)dst + sizeof(n), s + sizeof(n), (n < dsize ? n : dsize) - sizeof(n));
	return 0;
}

bool sized_out_ok(const void *dst)
{
	size_t n;

	if (!dst)
		return false;
	memcpy(&n, dst, sizeof(n));
	return n >= sizeof(n);
}

int sized_out(void *dst, const void *src, size_t ssize, int r)
{
	size_t n;

	memcpy(&n, dst, sizeof(n));
	memcpy((unsigned char *)dst + sizeof(n), (const unsigned char *)src + sizeof(n),
	       (n < ssize ? n : ssize) - sizeof(n));
	return r;
}
