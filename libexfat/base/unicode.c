// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unicode.c - UTF-16LE to UTF-8 for names and labels read from disk.
 * Unpaired surrogates become U+FFFD; output is always NUL-terminated.
 */
#include "config.h"

#include "base/base.h"

static size_t put_utf8(uint32_t cp, char *out, size_t room)
{
	uint8_t b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (uint8_t)(0xC0 | cp >> 6);
		b[1] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (uint8_t)(0xE0 | cp >> 12);
		b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xF0 | cp >> 18);
		b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (n > room)
		return 0;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)b[i];
	return n;
}

void utf16le_to_utf8(const uint8_t *in, size_t units, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return;
	for (size_t i = 0; i < units; i++) {
		uint32_t cp = get_le16(in, 2 * i);

		if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < units) {
			uint32_t lo = get_le16(in, 2 * (i + 1));

			if (lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			} else {
				cp = 0xFFFD;
			}
		} else if (cp >= 0xD800 && cp < 0xE000) {
			cp = 0xFFFD;
		}
		size_t n = put_utf8(cp, out + o, outlen - 1 - o);

		if (!n)
			break;
		o += n;
	}
	out[o] = '\0';
}

/* UTF-8 to UTF-16 units; -1 on invalid UTF-8 or more than max units. */
int utf8_to_utf16(const char *in, uint16_t *out, size_t max)
{
	const uint8_t *s = (const uint8_t *)in;
	size_t n = 0;

	while (*s) {
		uint32_t cp;
		int extra;

		if (*s < 0x80) {
			cp = *s;
			extra = 0;
		} else if ((*s & 0xE0) == 0xC0) {
			cp = *s & 0x1F;
			extra = 1;
		} else if ((*s & 0xF0) == 0xE0) {
			cp = *s & 0x0F;
			extra = 2;
		} else if ((*s & 0xF8) == 0xF0) {
			cp = *s & 0x07;
			extra = 3;
		} else {
			return -1;
		}
		s++;
		for (int i = 0; i < extra; i++, s++) {
			if ((*s & 0xC0) != 0x80)
				return -1;
			cp = cp << 6 | (*s & 0x3F);
		}
		if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
			return -1;
		if (cp >= 0x10000) {
			if (n + 2 > max)
				return -1;
			out[n++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
			out[n++] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			if (n + 1 > max)
				return -1;
			out[n++] = (uint16_t)cp;
		}
	}
	return (int)n;
}
