/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fat_check.h - the state shared by the FAT12/16/32 check passes
 * (fat_check.c, fat_alloc.c, fat_tree.c, fat_names.c); not installed.
 */
#ifndef FSC_FAT_CHECK_H
#define FSC_FAT_CHECK_H

#include "probe/probe.h"
#include "check/engine.h"

/*
 * What a repair planner learns from a check of the volume as its plan
 * leaves it: each lost cluster (lost may be NULL), and the free count.
 */
struct fat_after {
	void (*lost)(void *ctx, uint32_t c);
	void *ctx;
	uint64_t free_clusters;
	uint32_t clusters;		/* the clusters checked */
};

struct fvol {
	struct fsc_dev *dev;
	const struct fsc_probe *p;
	const struct fsc_fat_bpb *b;
	struct ck_engine ck;		/* findings, progress, the claimed set */
	struct layout lay;		/* geometry (fat/layout.c), fat_byte the active FAT */
	struct fatreader fr;		/* the active FAT through a bounded block cache */
	uint32_t cc;			/* clusters the device holds (at most the BPB's count) */
	uint32_t cb;			/* cluster bytes */
	unsigned active;		/* the FAT copy drivers read */
	bool mirrored;			/* every copy must equal the active one */
	uint64_t *used;			/* FAT entry of c not free: bit c - 2 */
	uint64_t free_clusters;		/* free entries among 2 .. cc + 1 */
	uint32_t fat1;			/* FAT[1] as stored */
	uint16_t *upcase;		/* 65536 entries: long names compared without case */
	uint8_t *dirbuf;		/* one chunk of a directory */
	struct fat_after *after;	/* or NULL */
};

#define FV_NPASSES 4
/* Bytes of directory read at a time. */
#define FV_DIR_CHUNK (256u * 1024)

static inline bool fv_cluster_valid(const struct fvol *v, uint32_t c)
{
	return c >= 2 && (uint64_t)c <= (uint64_t)v->cc + 1;
}

/* fat_alloc.c */
extern const struct ck_chain_ids fv_chain_ids;
/* The FAT entry of c normalised for the engine (CK_END, CK_BAD, CK_FREE or a cluster). */
uint32_t fv_next(void *v, uint32_t c);
/* Pass 2: every copy read once, compared; entries 0 and 1; the used set and the free count. */
int fv_scan_fats(struct fvol *v);
/* Pass 4: lost clusters, and FSInfo against the FAT. */
void fv_compare(struct fvol *v);

/* fat_tree.c: pass 3, the directory tree from the root, claiming every allocation. */
int fv_walk_tree(struct fvol *v);

/* fat_names.c: what is wrong with an 8.3 name (NULL: nothing), and what is unusual (WARN). */
const char *fv_sfn_invalid(const uint8_t raw[11]);
const char *fv_sfn_unusual(const uint8_t raw[11]);
/* A DOS date or time that is not a real one: its description, or NULL. */
const char *fv_date_problem(uint16_t date);
const char *fv_time_problem(uint16_t time);
/* An 8.3 name as UTF-8 for findings ("NAME.EXT", code page 850, bytes below 0x20 as '?'). */
void fv_sfn_text(const uint8_t raw[11], char out[40]);

/*
 * fat_check.c: the checker, for fsc_check (out holds the probe's findings
 * already); after (may be NULL) hears of lost clusters and the free count.
 */
int fat_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	      struct fsc_findings *out, struct fsc_check_summary *sum, struct fat_after *after);

#endif
