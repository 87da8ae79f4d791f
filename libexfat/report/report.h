/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/report.h - building findings (problems.c); the field tables are
 * public (fatscope.h).  Not installed.
 */
#ifndef FSC_REPORT_H
#define FSC_REPORT_H

#include "base/base.h"

/* The finding and the list, opaque to callers of the library (fatscope.h's accessors). */
struct fsc_finding {
	enum fsc_problem id;
	enum fsc_loc_kind loc_kind;
	uint64_t loc;			/* byte offset in the volume, sector or cluster */
	uint32_t entry;			/* FSC_LOC_ENTRY: entry index in cluster loc */
	char field[24];			/* on-disk field name, or "" */
	char *path;			/* file or directory concerned (owned), or NULL */
	char actual[48];
	char expected[48];
	char detail[96];
	bool planned;			/* fsc_plan_repair: the plan fixes it */
};

struct fsc_findings {
	struct fsc_finding *v;
	size_t n, cap;
	size_t dropped;			/* findings lost: the list could not grow */
};

/* Empties a list the library keeps itself (a probe's, one on the stack): what it holds is freed. */
void finding_list_clear(struct fsc_findings *fs);

/*
 * Append a finding; field may be NULL.  Returns the new finding, or NULL
 * when the list cannot grow: the finding is dropped and counted in
 * fs->dropped, the list stays as it was.  The setters below accept that
 * NULL and do nothing, so a caller may pass finding_add's result on
 * unchecked; one that writes a member itself must test for NULL first.
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

#endif
