/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/report.h - building findings (problems.c); the field tables are
 * public (fatscope.h).  Not installed.
 */
#ifndef FSC_REPORT_H
#define FSC_REPORT_H

#include "base/base.h"

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

#endif
