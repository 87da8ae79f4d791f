// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exfat/dirent.c - the one exFAT directory-entry parser (EXSPEC 6.2-6.4,
 * 7.4-7.7): 32-byte entries in directory order are assembled into entry
 * sets (a primary and the SecondaryCount secondaries after it), and a
 * file entry set is decoded into struct exfat_set.
 *
 * Consumes: entries, one at a time, in the order they lie in a directory
 * (across cluster boundaries).  Produces: events (exfat_asm_feed) that say
 * what each entry is, and decoded sets.  No allocation, no I/O.
 *
 * The drivers do not agree on what a broken set is, so the assembler has
 * modes; each caller names the behaviour it models:
 *   default          (fsck, label planner, fs/exfat): an entry that is not
 *                    a secondary in use cuts the set short; a primary of a
 *                    type the caller does not know keeps its secondaries
 *                    (EXA_KEEP_UNKNOWN);
 *   EXA_DELETED      (dump, undelete): file sets with InUse clear are
 *                    assembled too, from deleted secondaries only;
 *   EXA_LENIENT      (exfat-fuse's mount-time parse): entries not in use
 *                    are skipped inside a set, and any entry in use counts
 *                    as the set's next one.
 */
#include "config.h"

#include <string.h>

#include "exfat/exfat.h"

void exfat_asm_init(struct exfat_asm *a, unsigned flags, unsigned max_secondary)
{
	memset(a, 0, sizeof(*a));
	a->flags = flags;
	a->max_secondary = max_secondary ? max_secondary : 255;
}

void exfat_asm_restart(struct exfat_asm *a)
{
	a->have = a->need = a->count = 0;
	a->deleted = false;
	a->cut_by = 0;
	a->at = (struct exfat_where){ 0 };
}

static bool starts_set(const struct exfat_asm *a, const uint8_t *e)
{
	uint8_t t = e[0];

	if (t == EXFAT_T_FILE || (t == (EXFAT_T_FILE & 0x7F) && (a->flags & EXA_DELETED)))
		return e[1] <= a->max_secondary && (a->max_secondary == 255 || e[1] >= 2);
	if (!(t & 0x80) || (t & 0x40) || !(a->flags & EXA_KEEP_UNKNOWN))
		return false;
	/* The critical primaries whose byte 1 is not a SecondaryCount, and TexFAT padding. */
	return t != EXFAT_T_BITMAP && t != EXFAT_T_UPCASE && t != EXFAT_T_LABEL && t != EXFAT_T_GUID &&
	       t != EXFAT_T_PADDING;
}

static enum exfat_ev start(struct exfat_asm *a, const uint8_t *e, const struct exfat_where *at)
{
	if (!starts_set(a, e))
		return EXA_PRIMARY;
	memcpy(a->set, e, 32);
	a->have = 1;
	a->need = e[1] + 1u;
	a->deleted = !(e[0] & 0x80);
	a->at = a->pos[0] = *at;
	if (a->need > 1)
		return EXA_BEGIN;
	a->have = a->need = 0;
	return EXA_SET;
}

static enum exfat_ev add(struct exfat_asm *a, const uint8_t *e, const struct exfat_where *at)
{
	a->pos[a->have] = *at;
	memcpy(a->set + 32 * a->have++, e, 32);
	if (a->have < a->need)
		return EXA_MEMBER;
	a->count = a->have;
	a->have = a->need = 0;
	return EXA_SET;
}

static enum exfat_ev feed_lenient(struct exfat_asm *a, const uint8_t *e, const struct exfat_where *at)
{
	if (e[0] == 0x00)
		return EXA_END;		/* inside a set too: skipped, the set goes on */
	if (!(e[0] & 0x80))
		return EXA_UNUSED;
	if (a->have)
		return add(a, e, at);
	if (e[0] & 0x40)
		return EXA_STRAY;
	return start(a, e, at);
}

enum exfat_ev exfat_asm_feed(struct exfat_asm *a, const uint8_t *e, const struct exfat_where *at)
{
	bool in_use = e[0] & 0x80;

	a->count = 1;
	if (a->flags & EXA_LENIENT)
		return feed_lenient(a, e, at);
	if (a->have) {
		if (e[0] != 0x00 && (e[0] & 0x40) && in_use == !a->deleted)
			return add(a, e, at);
		a->cut_by = e[0] == 0x00 ? EXA_CUT_END : !in_use ? EXA_CUT_UNUSED : EXA_CUT_PRIMARY;
		a->count = a->have;
		a->have = a->need = 0;
		return EXA_CUT;		/* feed e again: the assembler starts afresh */
	}
	if (e[0] == 0x00)
		return EXA_END;
	if (!in_use) {
		if (a->flags & EXA_DELETED && !(e[0] & 0x40) && starts_set(a, e))
			return start(a, e, at);
		return EXA_UNUSED;
	}
	if (e[0] & 0x40)
		return EXA_STRAY;
	return start(a, e, at);
}

bool exfat_asm_flush(struct exfat_asm *a)
{
	bool open = a->have != 0;

	if (open) {
		a->cut_by = EXA_CUT_END;
		a->count = a->have;
	}
	a->have = a->need = 0;
	return open;
}

const char *exfat_cut_name(enum exfat_cut why)
{
	static const char *const names[] = {
		[EXA_CUT_END] = "the end of the directory",
		[EXA_CUT_UNUSED] = "an unused entry",
		[EXA_CUT_PRIMARY] = "another primary entry",
	};
	return names[why];
}

static int16_t utc_offset(uint8_t b)
{
	if (!(b & 0x80))
		return INT16_MIN;
	return (int16_t)(((b & 0x40) ? (int)(b & 0x7F) - 128 : (int)(b & 0x7F)) * 15);
}

void exfat_set_decode(const uint8_t *s, unsigned count, struct exfat_set *f)
{
	unsigned k;

	memset(f, 0, sizeof(*f));
	f->secondary_count = s[1];
	f->checksum = get_le16(s, 2);
	f->attr = get_le16(s, 4);
	for (int i = 0; i < 3; i++) {
		f->time[i] = get_le32(s, 8 + 4 * i);
		f->utc[i] = utc_offset(s[22 + i]);
		f->utc_raw[i] = s[22 + i];
	}
	f->ms10[0] = s[20];
	f->ms10[1] = s[21];
	if (count < 2 || (s[32] & 0x7F) != (EXFAT_T_STREAM & 0x7F))
		return;
	f->has_stream = true;
	f->stream_type = s[32];
	f->flags = s[33];
	f->name_length = s[35];
	f->name_hash = get_le16(s, 36);
	f->valid_size = get_le64(s, 40);
	f->first_cluster = get_le32(s, 52);
	f->size = get_le64(s, 56);
	for (k = 0; k + 2 < count && (s[64 + 32 * k] & 0x7F) == (EXFAT_T_NAME & 0x7F); k++)
		;
	f->name_entries = k;
	f->nl = f->name_length < 15 * k ? f->name_length : 15 * k;
	for (unsigned i = 0, e = 0; i < f->nl; e++)	/* 15 units a name entry, from its byte 2 */
		for (unsigned j = 0; j < 15 && i < f->nl; j++)
			f->name[i++] = get_le16(s, 64 + 32 * e + 2 + 2 * j);
}

