// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat/dirent.c - the one FAT directory-entry parser (fatgen103 section 6,
 * and the long-name entries of section 7): what a 32-byte entry is, the
 * 8.3 name as UTF-16 (code page 850 or 437, the NT lower-case bits), the
 * short-name checksum, the volume label, and long names assembled from
 * their parts, deleted ones included (their sequence numbers are gone).
 *
 * Consumes: entries in directory order.  Produces: classifications,
 * names.  No allocation, no I/O.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "fat/fat.h"

enum fat_kind fat_entry_kind(const uint8_t *e)
{
	if (e[0] == 0x00)
		return FAT_E_END;
	if ((e[11] & 0x3F) == 0x0F)
		return e[0] == 0xE5 ? FAT_E_LFN_DELETED : FAT_E_LFN;
	if (e[0] == 0xE5)
		return FAT_E_DELETED;
	if (e[0] == '.' && (e[1] == ' ' || e[1] == '.'))
		return FAT_E_DOT;
	if ((e[11] & 0x18) == 0x08)
		return FAT_E_LABEL;
	return FAT_E_FILE;
}

void fat_label_text(const uint8_t *e, char out[12])
{
	fat_text(out, e, 11);
	fat_text_trim(out);
}

uint8_t fat_sfn_checksum(const uint8_t *n)
{
	uint8_t s = 0;

	for (int i = 0; i < 11; i++)
		s = (uint8_t)(((s & 1) << 7) + (s >> 1) + n[i]);
	return s;
}

void fat_lfn_reset(struct fat_lfn *l)
{
	l->parts = 0;
}

/* A name begins: all its units 0xFFFF (those up to the part that came first set now, the rest when reached). */
static void lfn_start(struct fat_lfn *l, uint8_t sum, bool deleted, unsigned seq)
{
	l->parts = 0;
	l->sum = sum;
	l->deleted = deleted;
	l->span = deleted || seq < 1 || seq > FAT_LFN_MAX_PARTS ? FAT_LFN_CAP_UNITS : 13 * seq;
	memset(l->units, 0xFF, l->span * sizeof(l->units[0]));
}

void fat_lfn_add(struct fat_lfn *l, const uint8_t *e)
{
	bool deleted = e[0] == 0xE5;
	unsigned seq = e[0] & 0x1F;

	if (!deleted && (e[0] & 0x40)) {	/* the last part comes first */
		lfn_start(l, e[13], false, seq);
	} else if (deleted && (!l->parts || !l->deleted || e[13] != l->sum)) {
		lfn_start(l, e[13], true, 0);
	} else if (e[13] != l->sum) {
		l->parts = 0;
		return;
	}
	if (deleted)	/* sequence numbers are gone: parts come last-first */
		memmove(l->units + 13, l->units, sizeof(l->units) - 26);
	else if (seq < 1 || seq > FAT_LFN_MAX_PARTS)
		return;
	if (!deleted && 13 * seq > l->span) {	/* (a part past the one that came first) */
		memset(l->units + l->span, 0xFF, (13 * seq - l->span) * sizeof(l->units[0]));
		l->span = 13 * seq;
	}
	for (int i = 0; i < 13; i++)
		l->units[(deleted ? 0 : 13 * (seq - 1)) + i] = get_le16(e, fat_ldir_unit_at(i));
	/* A name has at most 20 parts (255 units); more (repeated sequence numbers,
	   a run of deleted parts) must not count past what units[] holds. */
	if (l->parts < FAT_LFN_MAX_PARTS)
		l->parts++;
}

unsigned fat_lfn_name(const struct fat_lfn *l, const uint8_t raw[11], bool deleted, const uint16_t **units)
{
	unsigned n = 0;

	if (!l->parts || l->deleted != deleted || fat_sfn_checksum(raw) != l->sum)
		return 0;
	while (n < 13 * l->parts && n < l->span && l->units[n] != 0x0000 && l->units[n] != 0xFFFF)
		n++;
	*units = l->units;
	return n;
}

bool fat_lost_first_byte(const struct fat_lfn *l, uint8_t raw[11])
{
	if (!l->parts || !l->deleted)
		return false;
	for (unsigned ch = 0x01; ch <= 0xFF; ch++) {
		raw[0] = (uint8_t)ch;
		if (ch != 0xE5 && fat_sfn_checksum(raw) == l->sum)
			return true;
	}
	return false;
}

uint32_t fat_entry_first(const uint8_t *e, unsigned fat_bits)
{
	return get_le16(e, 26) | (fat_bits == 32 ? (uint32_t)get_le16(e, 20) << 16 : 0);
}

bool fat_dir_start(const uint8_t d[64], uint32_t c, unsigned fat_bits, uint32_t *parent)
{
	*parent = fat_entry_first(d + 32, fat_bits);
	return !memcmp(d, ".          ", 11) && (d[11] & 0x18) == 0x10 && fat_entry_first(d, fat_bits) == c &&
	       !memcmp(d + 32, "..         ", 11) && (d[43] & 0x18) == 0x10;
}

/* Code page 437 (the IBM PC's; Linux's fat default codepage) for 8.3 bytes 0x80-0xFF. */
static const uint16_t cp437[128] = {
	0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
	0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
	0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
	0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
	0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
	0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
	0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556,
	0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
	0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,
	0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
	0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B,
	0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
	0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
	0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
	0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,
	0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
};

/* Code page 850 (mtools' default; DOS in Western Europe) for 8.3 bytes 0x80-0xFF. */
static const uint16_t cp850[128] = {
	0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
	0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
	0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
	0x00FF, 0x00D6, 0x00DC, 0x00F8, 0x00A3, 0x00D8, 0x00D7, 0x0192,
	0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
	0x00BF, 0x00AE, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
	0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x00C1, 0x00C2, 0x00C0,
	0x00A9, 0x2563, 0x2551, 0x2557, 0x255D, 0x00A2, 0x00A5, 0x2510,
	0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x00E3, 0x00C3,
	0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x00A4,
	0x00F0, 0x00D0, 0x00CA, 0x00CB, 0x00C8, 0x0131, 0x00CD, 0x00CE,
	0x00CF, 0x2518, 0x250C, 0x2588, 0x2584, 0x00A6, 0x00CC, 0x2580,
	0x00D3, 0x00DF, 0x00D4, 0x00D2, 0x00F5, 0x00D5, 0x00B5, 0x00FE,
	0x00DE, 0x00DA, 0x00DB, 0x00D9, 0x00FD, 0x00DD, 0x00AF, 0x00B4,
	0x00AD, 0x00B1, 0x2017, 0x00BE, 0x00B6, 0x00A7, 0x00F7, 0x00B8,
	0x00B0, 0x00A8, 0x00B7, 0x00B9, 0x00B3, 0x00B2, 0x25A0, 0x00A0,
};

/*
 * The code page 8.3 names are read in (fsc_fat_codepage): 850 unless set.
 * Atomic, so that a thread that sets it while another reads names is no
 * data race (the tables themselves never change).
 */
static _Atomic(const uint16_t *) oem = cp850;

FSC_EXPORT int fsc_fat_codepage(unsigned cp)
{
	if (cp != 437 && cp != 850)
		return -EINVAL;
	atomic_store_explicit(&oem, cp == 437 ? cp437 : cp850, memory_order_relaxed);
	return 0;
}

unsigned fat_sfn_units(const uint8_t *raw, uint8_t flags, uint16_t *u)
{
	const uint16_t *page = atomic_load_explicit(&oem, memory_order_relaxed);
	unsigned n = 0;

	for (int i = 0; i < 11; i++) {
		uint8_t c = raw[i];
		bool lower = i < 8 ? flags & 0x08 : flags & 0x10;

		if (i == 8) {
			if (raw[8] == ' ')
				break;
			u[n++] = '.';
		}
		if (c == ' ' && (i < 8 ? bytes_all(raw, (size_t)i, 8 - (size_t)i, ' ') : true))
			continue;
		if (i == 0 && c == 0x05)	/* a name starting with 0xE5 keeps it as 0x05 */
			c = 0xE5;
		uint16_t v = c >= 0x80 ? page[c - 0x80] : c < 0x20 ? '?' : c;

		/* The lower-case flags (Windows NT) lower the Latin letters too. */
		if (lower && ((v >= 'A' && v <= 'Z') || (v >= 0xC0 && v <= 0xDE && v != 0xD7)))
			v += 0x20;
		u[n++] = v;
	}
	return n;
}
