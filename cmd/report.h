/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the one renderer of findings, as text and as JSON. */
#ifndef FSC_REPORT_H
#define FSC_REPORT_H

#include "common.h"
#include "json.h"

/*
 * The findings a report lists: taken from one list or more (the
 * library's, opaque), all of them or only those no plan fixes.
 */
struct finding_view {
	const struct fsc_finding **v;
	size_t n;
	size_t dropped;			/* findings the lists could not keep */
};
/* Append fs's findings (only those a plan leaves, with left_only) to fv; -ENOMEM (then counted as dropped). */
int finding_view_add(struct finding_view *fv, const struct fsc_findings *fs, bool left_only);
void finding_view_free(struct finding_view *fv);

/* "indent" + "findings:" header and one line per finding (or "none"). */
void report_findings_text(const struct finding_view *fv, const char *indent);
/* A line per finding with no header: "SEVERITY ID: message [location]". */
void report_finding_line(FILE *out, const char *prefix, const struct fsc_finding *f);
void report_findings_json(struct json *j, const struct finding_view *fv);
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
