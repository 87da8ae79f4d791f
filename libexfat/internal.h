/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - helpers shared inside libexfat; not installed.
 */
#ifndef FSC_INTERNAL_H
#define FSC_INTERNAL_H

#include "fatscope.h"

#define FSC_EXPORT __attribute__((visibility("default")))

/*
 * Append a finding.  Any of field/actual/expected/detail may be NULL.
 * Allocation failure drops the finding (the list stays valid).
 */
struct fsc_finding *finding_add(struct fsc_findings *fs, enum fsc_problem id,
				enum fsc_loc_kind kind, uint64_t loc, const char *field);
void finding_actual(struct fsc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void finding_expected(struct fsc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void finding_detail(struct fsc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Attach a copy of path (the file or directory concerned). */
void finding_path(struct fsc_finding *f, const char *path);

/* bootsec.c -> exfat_boot.c, exfat_root.c, fat_bpb.c */
void exfat_boot_decode(const uint8_t *s, struct fsc_exfat_boot *ex);
void exfat_boot_check(struct fsc_dev *dev, struct fsc_probe *p);
bool exfat_lookalike(const uint8_t *s);
void exfat_root_scan(struct fsc_dev *dev, const struct fsc_exfat_boot *ex,
		     unsigned sector_shift, struct fsc_exfat_root *r);
void exfat_root_findings(struct fsc_probe *p);

bool fat_bpb_plausible(const uint8_t *s);
void fat_bpb_decode(const uint8_t *s, struct fsc_fat_bpb *b);
void fat_bpb_check(struct fsc_dev *dev, struct fsc_probe *p);

/* pathtab.c: directories of a walk as (parent, name) nodes; node 0 is the root. */
struct pathnode {
	size_t parent;
	char *name;
};
struct pathtab {
	struct pathnode *v;
	size_t n, cap;
};
int pathtab_init(struct pathtab *t);
/* The new node's index, or SIZE_MAX when out of memory. */
size_t pathtab_add(struct pathtab *t, size_t parent, const char *name);
/* "/a/b" for node n; a path too long for buf is cut at the front ("./b"). */
void pathtab_path(const struct pathtab *t, size_t n, char *buf, size_t len);
void pathtab_free(struct pathtab *t);

/* UTF-16LE -> UTF-8, invalid units as U+FFFD; always NUL-terminates. */
void utf16le_to_utf8(const uint8_t *in, size_t units, char *out, size_t outlen);

/* Drop the edits of a plan after the first n. */
void plan_truncate(struct fsc_plan *plan, size_t n);
/*
 * Read as the device will be once the plan so far is applied: what a
 * planner must look at, so that two changes in one plan (a label and a
 * GUID in a root without either) do not both take the same free slot.
 */
int plan_view_read(struct fsc_dev *dev, const struct fsc_plan *plan, uint64_t off, void *buf, size_t len);

/* UTF-8 to UTF-16 units; the count, or -1 on invalid UTF-8 or more than max units. */
int utf8_to_utf16(const char *in, uint16_t *out, size_t max);

#endif
