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
		if (c && strchr("\"*./:<>?\\|", c)) {
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
		if (c && strchr("+,;=[]", c)) {
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
