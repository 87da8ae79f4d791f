/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the one renderer of findings, as text and as JSON. */
#ifndef FSC_REPORT_H
#define FSC_REPORT_H

#include "common.h"
#include "json.h"

/* "indent" + "findings:" header and one line per finding (or "none"). */
void report_findings_text(const struct fsc_findings *fs, const char *indent);
/* A line per finding with no header: "SEVERITY ID: message [location]". */
void report_finding_line(FILE *out, const char *prefix, const struct fsc_finding *f);
void report_findings_json(struct json *j, const struct fsc_findings *fs);
/* s with control characters and invalid UTF-8 as \xNN. */
void report_escaped(FILE *out, const char *s);
/* The same into buf (len bytes, cut before a piece that does not fit); returns buf. */
const char *report_escape_buf(char *buf, size_t len, const char *s);
/*
 * "repair": the IDs fixed (of before: the plan's, once written, else
 * none), the IDs the plan fixes (planned), whether it was written,
 * the undo log, and its edits (offset, length, why, the first 64 old and
 * new bytes as hex).
 */
void report_repair_json(struct json *j, const struct fsc_findings *before, const struct fsc_plan *plan,
			bool written, const char *undo);
/* Each edit of a plan: where, how long, why, and its first old and new bytes. */
void report_plan(FILE *out, const struct fsc_plan *plan);

#endif
