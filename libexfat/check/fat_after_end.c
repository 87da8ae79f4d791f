// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_after_end.c - the entries of a directory past its end marker (a
 * 0x00 entry): counted for FAT_AFTER_END, and for a repair the entries in
 * use there and the 0x00 ones before each (the revive hook brings them
 * back; a long-name part's body among the 0x00 ones gets the sequence
 * number the parts around it say).  Most directories end in 0x00 entries
 * alone: those are kept as runs and listed only when an entry in use
 * follows them.
 *
 * Consumes: the entries of one directory past its marker.  Produces: the
 * walk's lists for the revive hook.  Memory: those lists, one directory's.
 */
#include "config.h"

#include "check/fat_walk.h"
#include "fat/fat.h"

/* Could e be an entry of the directory, once the end marker before it is gone? */
static bool plausible(const uint8_t *e)
{
	enum fat_kind k = fat_entry_kind(e);

	if (k == FAT_E_LFN || k == FAT_E_LFN_DELETED || k == FAT_E_DELETED)
		return true;
	return k == FAT_E_FILE && !fv_sfn_invalid(e) && !(e[FAT_DIR_ATTR] & FAT_ATTR_RESERVED) &&
	       (e[FAT_DIR_ATTR] & FAT_ATTR_DIR_LABEL) != FAT_ATTR_DIR_LABEL;
}

/*
 * A 0x00 entry with a long-name part's body just before e: the number its
 * first byte had, when e says it (the next part of the same name, or the
 * 8.3 entry the name's checksum is of); else 0xE5.
 */
static uint8_t lost_part_byte(const struct ftree *t, const uint8_t *e, uint8_t sum)
{
	bool part = fat_is_long_name(e);
	unsigned seq = part && e[FAT_LDIR_ORD] != FAT_DIR_FREE && e[FAT_LDIR_CHKSUM] == sum &&
		       !(e[FAT_LDIR_ORD] & FAT_LAST_LONG_ENTRY) ? (e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK) + 1u :
		       !part && fat_sfn_checksum(e) == sum ? 1u : 0u;

	if (seq < 1 || seq > FAT_LFN_MAX_PARTS)
		return FAT_DIR_FREE;
	/* the last part of its name (0x40) unless a part of the same name came before it */
	return (uint8_t)(seq | (t->prev_seq == (int)seq + 1 && t->prev_sum == sum ? 0 : 0x40));
}

/* A 0x00 entry at byte listed, with the first byte it should have; false: no memory. */
static bool zero_add(struct ftree *t, uint64_t byte, uint8_t first)
{
	if (!grow((void **)&t->zeros, &t->capzeros, t->nzeros + 1, sizeof(*t->zeros)) ||
	    !grow((void **)&t->zfirst, &t->capzfirst, t->nzeros + 1, 1))
		return false;
	t->zfirst[t->nzeros] = first;
	t->zeros[t->nzeros++] = byte;
	return true;
}

/* The 0x00 entries read in a row, listed (an entry in use, or one that needs a byte of its own, follows). */
static void zeros_flush(struct ftree *t)
{
	for (size_t i = 0; i < t->nzruns; i++)
		for (size_t k = 0; k < t->zruns[i].n; k++)
			if (!zero_add(t, t->zruns[i].byte + 32 * k, FAT_DIR_FREE))
				break;
	t->nzruns = 0;
}

/* A 0x00 entry past the end marker, for a repair. */
static void zero_entry(struct ftree *t, const uint8_t *e)
{
	uint64_t byte = cur_byte(t);
	struct zrun *r = t->nzruns ? &t->zruns[t->nzruns - 1] : NULL;

	if (fat_is_long_name(e) && !bytes_all(e, FAT_LDIR_NAME1, FAT_DIR_ENTRY_SIZE - FAT_LDIR_NAME1, 0)) {
		zeros_flush(t);		/* (a long-name part's body: the checksum, until the next entry says) */
		if (zero_add(t, byte, e[FAT_LDIR_CHKSUM]))
			t->zlfn = t->nzeros - 1;
	} else if (r && r->byte + 32 * r->n == byte) {
		r->n++;
	} else if (grow((void **)&t->zruns, &t->capzruns, t->nzruns + 1, sizeof(*t->zruns))) {
		t->zruns[t->nzruns++] = (struct zrun){ byte, 1 };
	}
}

void fw_past_end(struct ftree *t, const uint8_t *e)
{
	size_t z = t->zlfn;

	t->zlfn = SIZE_MAX;
	if (z != SIZE_MAX)
		t->zfirst[z] = e[0] ? lost_part_byte(t, e, t->zfirst[z]) : FAT_DIR_FREE;
	if (!e[0]) {
		if (hooked(t))
			zero_entry(t, e);
		t->prev_seq = -1;
		return;
	}
	zeros_flush(t);
	t->prev_seq = fat_is_long_name(e) && e[FAT_LDIR_ORD] != FAT_DIR_FREE ? e[FAT_LDIR_ORD] & FAT_LDIR_ORD_MASK : -1;
	t->prev_sum = e[FAT_LDIR_CHKSUM];
	if (!t->after_end++)
		t->after_at = here(t, NULL);
	t->zeros_kept = t->nzeros;
	t->revive_bad |= !plausible(e);
	t->plausible_files += fat_entry_kind(e) == FAT_E_FILE && plausible(e);
	if (e[FAT_DIR_NAME] != FAT_DIR_FREE && hooked(t) && grow((void **)&t->used, &t->capused, t->nused + 1, sizeof(*t->used)) &&
	    grow((void **)&t->uzero, &t->capuzero, t->nused + 1, 1)) {
		t->uzero[t->nused] = 0x00;
		t->used[t->nused++] = cur_byte(t);
	}
}

void fw_past_end_zeros(struct ftree *t, size_t n)
{
	static const uint8_t zero[FAT_DIR_ENTRY_SIZE];
	struct zrun *r = NULL;

	if (!n)
		return;
	fw_past_end(t, zero);
	if (n > 1 && hooked(t) && t->nzruns)
		r = &t->zruns[t->nzruns - 1];
	/* (the others as that one: its run of 0x00 entries longer) */
	if (r && r->byte + 32 * r->n == cur_byte(t) + 32)
		r->n += n - 1;
}
