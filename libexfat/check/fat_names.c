// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_names.c - the rules of FAT 8.3 names and DOS timestamps that the
 * FAT checker applies (fatgen103 sections 6.1 and 6.3): what makes a
 * short name invalid (an error: Windows cannot open it) and what is only
 * unusual (a warning: Linux's msdos driver writes it), and which dates
 * and times are not real ones.
 *
 * Consumes: raw directory entry fields.  Produces: a short description,
 * or NULL.  No allocation, no I/O.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check/fat_check.h"
#include "fat/fat.h"

/* A set of ASCII bytes as two words of bits (a name's every byte is looked up: no string search). */
#define BIT_LO(c) ((c) < 64 ? 1ull << ((c) & 63) : 0)
#define BIT_HI(c) ((c) >= 64 ? 1ull << ((c) & 63) : 0)
#define BITS_LO(a, b, c, d, e, f, g, h, i, j) \
	(BIT_LO(a) | BIT_LO(b) | BIT_LO(c) | BIT_LO(d) | BIT_LO(e) | BIT_LO(f) | BIT_LO(g) | BIT_LO(h) | BIT_LO(i) | BIT_LO(j))
#define BITS_HI(a, b, c, d, e, f, g, h, i, j) \
	(BIT_HI(a) | BIT_HI(b) | BIT_HI(c) | BIT_HI(d) | BIT_HI(e) | BIT_HI(f) | BIT_HI(g) | BIT_HI(h) | BIT_HI(i) | BIT_HI(j))
#define BYTE_SET(...) { BITS_LO(__VA_ARGS__), BITS_HI(__VA_ARGS__) }

/* What no 8.3 name may hold ("*./:<>?\|), and what only some systems write (+,;=[]). */
static const uint64_t sfn_forbidden[2] = BYTE_SET('"', '*', '.', '/', ':', '<', '>', '?', '\\', '|');
static const uint64_t sfn_unusual[2] = BYTE_SET('+', ',', ';', '=', '[', ']', '+', '+', '+', '+');

static bool in_set(const uint64_t set[2], uint8_t c)
{
	return c < 128 && (set[c >> 6] >> (c & 63) & 1);
}

bool fv_sfn_plain(const uint8_t raw[11])
{
	/* (control bytes, the forbidden and the unusual ones, lower-case letters, 0x7F) */
	const uint64_t lo = 0xFFFFFFFFull | sfn_forbidden[0] | sfn_unusual[0];
	const uint64_t hi = sfn_forbidden[1] | sfn_unusual[1] | ((1ull << 26) - 1) << ('a' - 64) | 1ull << (0x7F - 64);

	if (raw[0] == ' ')
		return false;
	for (int i = 0; i < 11; i++)
		if (raw[i] < 128 && ((raw[i] < 64 ? lo >> raw[i] : hi >> (raw[i] - 64)) & 1))
			return false;
	return true;
}

const char *fv_sfn_invalid(const uint8_t raw[11])
{
	static _Thread_local char why[40];

	if (raw[0] == ' ')
		return "a space first";
	for (int i = 0; i < 11; i++) {
		uint8_t c = raw[i];

		if ((c < 0x20 && !(i == 0 && c == 0x05)) || c == 0x7F) {
			snprintf(why, sizeof(why), "byte 0x%02x", c);
			return why;
		}
		if (in_set(sfn_forbidden, c)) {
			snprintf(why, sizeof(why), "'%c'", c);
			return why;
		}
	}
	return NULL;
}

const char *fv_sfn_unusual(const uint8_t raw[11])
{
	static _Thread_local char why[40];

	for (int i = 0; i < 11; i++) {
		uint8_t c = raw[i];

		if (c >= 'a' && c <= 'z')
			return "lower-case letters";
		if (in_set(sfn_unusual, c)) {
			snprintf(why, sizeof(why), "'%c'", c);
			return why;
		}
	}
	return NULL;
}

const char *fv_date_problem(uint16_t date)
{
	unsigned month = date >> 5 & 15, day = date & 31;

	if (!date)
		return NULL;
	if (month < 1 || month > 12)
		return "month";
	return day ? NULL : "day";
}

const char *fv_time_problem(uint16_t time)
{
	if ((time & 31) > 29)
		return "seconds";
	if ((time >> 5 & 63) > 59)
		return "minutes";
	return time >> 11 > 23 ? "hour" : NULL;
}

void fv_sfn_text(const uint8_t raw[11], char out[40])
{
	uint16_t u[12];
	uint8_t le[24];
	unsigned n = fat_sfn_units(raw, 0, u);

	for (unsigned i = 0; i < n; i++)
		put_le16(le, 2 * i, u[i]);
	utf16le_to_utf8(le, n, out, 40);
}

/* The long name of whole parts e[0..n) (last part first) into u: its length, or 0. */
static unsigned lfn_units(const uint8_t (*e)[32], unsigned n, uint16_t *u)
{
	unsigned len = 0;

	if (!n || n > FAT_LFN_MAX_PARTS || !(e[0][FAT_LDIR_ORD] & FAT_LAST_LONG_ENTRY))
		return 0;
	for (unsigned i = 0; i < n; i++)
		if ((e[i][FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) != n - i ||
		    !fat_is_long_name(e[i]))
			return 0;
	for (unsigned p = n; p-- > 0;)		/* part 1 (the last read) holds units 0..12 */
		for (unsigned k = 0; k < FAT_LDIR_UNITS; k++) {
			uint16_t x = get_le16(e[p], fat_ldir_unit_at(k));

			if (x == 0x0000 || x == 0xFFFF)
				return len;
			u[len++] = x;
		}
	return len;
}

/* Does 8.3 character c stand for long-name unit x (upper-cased)? '_' for what 8.3 cannot hold. */
static bool sfn_char_fits(uint8_t c, uint16_t x)
{
	if (x >= 'a' && x <= 'z')
		x = (uint16_t)(x - 0x20);
	return c == x || (c == '_' && !((x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9')));
}

bool fv_lfn_fits(const uint8_t (*e)[32], unsigned n, const uint8_t raw[11])
{
	uint16_t u[FAT_LFN_CAP_UNITS], base[FAT_LFN_CAP_UNITS];
	unsigned len = lfn_units(e, n, u), nb = 0, dot = len, b = 0;

	if (!len)
		return false;
	for (unsigned i = 0; i < len; i++)
		if (u[i] == '.')
			dot = i;
	for (unsigned i = 0; i < dot; i++)	/* the base without spaces and dots */
		if (u[i] != ' ' && u[i] != '.')
			base[nb++] = u[i];
	for (; b < 8 && raw[b] != ' ' && raw[b] != '~'; b++)
		if (b >= nb || !sfn_char_fits(raw[b], base[b]))
			return false;
	if (b < 8 && raw[b] == ' ' && b != nb)
		return false;			/* no ~n tail: the whole base */
	for (unsigned k = 0; k < 3; k++) {
		unsigned i = dot + 1 + k;
		bool have = dot < len && i < len;

		if (raw[8 + k] == ' ' ? have && k == 0 : !have || !sfn_char_fits(raw[8 + k], u[i]))
			return false;
	}
	return true;
}
