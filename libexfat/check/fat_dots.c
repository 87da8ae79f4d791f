// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fat_dots.c - the FAT walk's . and .. entries: present first in every
 * subdirectory, named right, holding the directory's own first cluster
 * and its parent's; a damaged one told from a directory inside this one.
 * And its volume label entries: one, in the root, with no cluster nor
 * size, naming what the boot sector names.  And a directory entry whose
 * first cluster does not start with its . entry.
 *
 * Consumes: the walk's current directory and entry (fat_walk.h).
 * Produces: DOT_MISSING, DOT_CLUSTER, FILE_DIR_BIT and the LABEL findings.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check/fat_walk.h"
#include "base/bytes.h"
#include "fat/fat.h"

static uint32_t first_cluster(const struct fvol *v, const uint8_t *e)
{
	return fat_entry_first(e, v->lay.fat_bits);
}

/*
 * A directory entry with a size whose first cluster does not begin with
 * the . entry naming it: a file whose ATTR_DIRECTORY bit the damage set
 * (0x20 -> 0x30; a 4 KiB-sector FAT32's AUTHORS, seed 1 #10), reported and
 * then claimed as the file it is, not walked: neither the check nor a
 * repair takes its bytes for entries.  (A directory has size 0: one with
 * a size and its first cluster damaged too is damaged twice.)
 */
bool fw_file_dir_bit(struct ftree *t, const struct owner *who, uint32_t first, uint32_t size)
{
	static const uint8_t dot[FAT_DIR_NAME_LEN] = ".          ";
	struct fvol *v = t->v;
	struct fsc_finding *f;
	uint8_t d[FAT_DIR_ENTRY_SIZE];

	if (!size || !fv_cluster_valid(v, first) ||
	    fsc_dev_read(v->dev, layout_cluster_byte(&v->lay, first), d, sizeof(d)) < 0 ||
	    (!memcmp(d + FAT_DIR_NAME, dot, sizeof(dot)) && (d[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) &&
	     first_cluster(v, d) == first))
		return false;
	if ((f = ck_add_owner(&t->v->ck, FSC_PR_FAT_FILE_DIR_BIT, who)))
		finding_actual(f, "%u", size);
	return true;
}

/* . and .. first in every subdirectory. */
/*
 * The second slot a subdirectory entry whose cluster is the one .. holds:
 * the .. entry with a damaged name, not a directory inside this one (seed
 * 71, pop-fat16 #50: '..' -> '&\xab', which the walk took for a cycle and
 * a repair for a directory astray, given a new empty cluster).
 */
static bool dotdot_damaged(const struct ftree *t, const uint8_t *e, enum fat_kind k)
{
	uint32_t c = first_cluster(t->v, e), up = t->cur.parent;

	return t->index == 1 && k == FAT_E_FILE && (e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) &&
	       !(e[FAT_DIR_ATTR] & (FAT_ATTR_VOLUME_ID | FAT_ATTR_RESERVED)) &&
	       (c == up || (up == 0 && t->v->lay.fat_bits == 32 && c == t->v->lay.root_cluster));
}

/*
 * The first slot a subdirectory entry three bits at most from the . entry
 * this directory should have (its name ".", its own first cluster): the
 * . entry with bits flipped, not a directory inside this one (seed 317,
 * pop-fat16 #30: '.' -> 'n' and cluster 84 -> 116, which the walk took for
 * a directory crossing another file's chain).
 */
static bool dot_damaged(const struct ftree *t, const uint8_t *e, enum fat_kind k)
{
	static const uint8_t dot[FAT_DIR_NAME_LEN] = ".          ";

	if (t->index != 0 || k != FAT_E_FILE || !(e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY) ||
	    (e[FAT_DIR_ATTR] & (FAT_ATTR_VOLUME_ID | FAT_ATTR_RESERVED)))
		return false;
	return bytes_bits_apart(e + FAT_DIR_NAME, dot, FAT_DIR_NAME_LEN) +
	       (unsigned)__builtin_popcount(t->cur.first ^ first_cluster(t->v, e)) <= 3;
}

/* The . and .. slots; true when one holds a damaged . or .. (its entry is not walked). */
bool fw_dots_present(struct ftree *t, const uint8_t *e, enum fat_kind k)
{
	bool damaged = dot_damaged(t, e, k) || dotdot_damaged(t, e, k);	/* (each asks its own slot) */
	struct fsc_finding *f;

	if (t->index == 0 && (k != FAT_E_DOT || e[1] == '.')) {
		if ((f = at_entry(t, FSC_PR_FAT_DOT_MISSING, NULL)))
			finding_detail(f, "%s", k == FAT_E_END ? "the directory has no . and .. entries" :
				       damaged ? FV_DOT_DAMAGED : "the first entry is not .");
		if (f && !damaged)
			t->no_dot = (size_t)(f - t->v->ck.out->v);
	} else if (t->index == 1 && (k != FAT_E_DOT || e[1] != '.') && (f = at_entry(t, FSC_PR_FAT_DOT_MISSING, NULL))) {
		finding_detail(f, "%s", damaged ? FV_DOTDOT_DAMAGED : "the second entry is not ..");
	}
	return damaged;
}

void fw_dot_entry(struct ftree *t, const uint8_t *e)
{
	bool dotdot = e[1] == '.';
	uint32_t want = dotdot ? t->cur.parent : t->cur.first, got = first_cluster(t->v, e);
	struct fsc_finding *f;

	bool placed = !t->is_root && t->index == dotdot;

	if (!placed || memcmp(e + 2 - !dotdot, "          ", 9 + !dotdot)) {
		/* (a misplaced one among the first two: fw_dots_present said so) */
		if ((placed || t->is_root || t->index >= 2) && (f = at_entry(t, FSC_PR_FAT_DOT_MISSING, NULL)))
			finding_detail(f, "%s entry %s", dotdot ? "a .." : "a .", t->is_root ? "in the root directory" :
				       placed ? "with a malformed name" : "where it does not belong");
		return;
	}
	if ((got != want || !(e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY)) && (f = at_entry(t, FSC_PR_FAT_DOT_CLUSTER, NULL))) {
		finding_actual(f, "%u%s", got, e[FAT_DIR_ATTR] & FAT_ATTR_DIRECTORY ? "" : " (not a directory)");
		finding_expected(f, "%u", want);
		finding_detail(f, "%s", dotdot ? "the .." : "the .");
	}
}

/* ---- volume label entries ---- */

void fw_label_entry(struct ftree *t, const uint8_t *e)
{
	struct fsc_finding *f;
	const char *why = !t->is_root ? "outside the root directory" : t->labels++ ? "after the first one" :
			  first_cluster(t->v, e) || fat_dirent_file_size(e) ? "with a cluster or a size" : NULL;
	char root[12], boot[12];

	if (why) {
		if ((f = at_entry(t, FSC_PR_FAT_LABEL_ENTRY, NULL)))
			finding_detail(f, "%s", why);
		return;
	}
	fat_label_text(e, root);
	/*
	 * (BS_BootSig 0x28: a boot sector with a serial but no label field,
	 * which fsck.fat reads as an empty label that differs from the root's
	 * and writes; seed 499, pop-fat32 #18: 0x29 with one bit flipped)
	 */
	if (t->v->b->boot_sig != 0x29 && t->v->b->boot_sig != 0x28)
		return;
	snprintf(boot, sizeof(boot), "%s", t->v->b->boot_sig == 0x29 ? t->v->b->boot_label : "");
	fat_text_trim(boot);
	if (strcmp(root, boot) && (f = at_entry(t, FSC_PR_FAT_LABEL_MISMATCH, NULL))) {
		finding_actual(f, "%s", root);
		finding_expected(f, "%s", boot);
		if (t->v->b->boot_sig == 0x28)
			finding_detail(f, "BS_BootSig 0x28: the boot sector has no label field");
	}
}

/* A boot sector label (not NO NAME) with no label entry in the root that Windows and blkid would show. */
void fw_root_label_missing(struct ftree *t)
{
	const struct fsc_fat_bpb *b = t->v->b;
	struct fsc_finding *f;
	char boot[12];

	snprintf(boot, sizeof(boot), "%s", b->boot_label);
	fat_text_trim(boot);
	if (t->labels || b->boot_sig != 0x29 || !boot[0] || !strcmp(boot, "NO NAME"))
		return;
	/* (a boot sector with any finding may put the root elsewhere: what was read there says nothing) */
	if (t->v->p->findings.n)
		return;
	if ((f = ck_add(&t->v->ck, FSC_PR_FAT_LABEL_ROOT_MISSING, FSC_LOC_BYTE, (b->bpb32 ? 64u : 36u) + 7, "BS_VolLab")))
		finding_expected(f, "%s", boot);
}
