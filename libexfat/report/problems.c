// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * problems.c - the problem table (from problems.def) and findings: adding,
 * querying and rendering them.  The only place message templates are
 * filled in, for text and JSON alike (JSON in English, text translated).
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/nls.h"
#include "report/report.h"

/* Indexed by code; codes no problem has are left empty (name NULL). */
static const struct fsc_problem_info problems[FSC_PR_COUNT] = {
#define PROBLEM(code, nm, sev, fx, flags, msg, expl, repair) \
	[FSC_PR_##nm] = { #nm, FSC_SEV_##sev, FSC_FIX_##fx, ((flags) & PREEN) != 0, msg, expl, repair, \
			  ((flags) & LOSS) != 0 },
#define PREEN 1
#define LOSS 2
#include "fatscope/problems.def"
#undef LOSS
#undef PREEN
#undef PROBLEM
};

FSC_EXPORT const struct fsc_problem_info *fsc_problem_info(enum fsc_problem id)
{
	if ((unsigned)id >= FSC_PR_COUNT || !problems[id].name)
		return NULL;
	return &problems[id];
}

FSC_EXPORT int fsc_problem_lookup(const char *name)
{
	for (int i = 0; i < FSC_PR_COUNT; i++)
		if (problems[i].name && strcmp(problems[i].name, name) == 0)
			return i;
	return -1;
}

FSC_EXPORT const char *fsc_severity_name(enum fsc_severity sev)
{
	static const char *const names[] = { "info", "warning", "error", "fatal" };

	return (unsigned)sev < 4 ? names[sev] : "?";
}

/* Double the list's room; false when that overflows or memory runs out. */
static bool findings_grow(struct fsc_findings *fs)
{
	size_t cap = fs->cap ? fs->cap * 2 : 16;
	struct fsc_finding *v;

	if (cap <= fs->cap || cap > SIZE_MAX / sizeof(*v))
		return false;
	v = realloc(fs->v, cap * sizeof(*v));
	if (!v)
		return false;
	fs->v = v;
	fs->cap = cap;
	return true;
}

FSC_EXPORT const char *fsc_fix_name(enum fsc_fix fix)
{
	static const char *const names[] = { "NONE", "RECOMPUTE", "FROM_BACKUP", "CLEAR", "MANUAL", "RENAME" };

	return (unsigned)fix < sizeof(names) / sizeof(names[0]) ? names[fix] : "?";
}


struct fsc_finding *finding_add(struct fsc_findings *fs, enum fsc_problem id,
				enum fsc_loc_kind kind, uint64_t loc, const char *field)
{
	struct fsc_finding *f;

	if (fs->n >= fs->cap && !findings_grow(fs)) {
		fs->dropped++;
		return NULL;
	}
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->loc_kind = kind;
	f->loc = loc;
	if (field)
		snprintf(f->field, sizeof(f->field), "%s", field);
	return f;
}

#define FINDING_SETTER(member)						\
void finding_##member(struct fsc_finding *f, const char *fmt, ...)	\
{									\
	va_list ap;							\
	if (!f)								\
		return;							\
	va_start(ap, fmt);						\
	vsnprintf(f->member, sizeof(f->member), fmt, ap);		\
	va_end(ap);							\
}
FINDING_SETTER(actual)
FINDING_SETTER(expected)
FINDING_SETTER(detail)

void finding_path(struct fsc_finding *f, const char *path)
{
	if (f && path && !f->path)
		f->path = strdup(path);
}

/* Template t with f's values into buf. */
static void fill_template(const struct fsc_finding *f, const char *t, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	while (*t && o + 1 < len) {
		const char *val = NULL;
		size_t skip = 0;

		if (strncmp(t, "{actual}", 8) == 0)
			val = f->actual, skip = 8;
		else if (strncmp(t, "{expected}", 10) == 0)
			val = f->expected, skip = 10;
		else if (strncmp(t, "{detail}", 8) == 0)
			val = f->detail, skip = 8;
		if (val) {
			int n = snprintf(buf + o, len - o, "%s", val);

			o += (size_t)n < len - o ? (size_t)n : len - o - 1;
			t += skip;
		} else {
			buf[o++] = *t++;
		}
	}
	buf[o] = '\0';
}

FSC_EXPORT void fsc_finding_message(const struct fsc_finding *f, char *buf, size_t len)
{
	fill_template(f, fsc_problem_info(f->id)->message, buf, len);
}

/* The catalogue's template (po/Makevars extracts problems.def's MESSAGE argument). */
FSC_EXPORT void fsc_finding_message_translated(const struct fsc_finding *f, char *buf, size_t len)
{
	fill_template(f, L_(fsc_problem_info(f->id)->message), buf, len);
}

FSC_EXPORT void fsc_finding_location(const struct fsc_finding *f, char *buf, size_t len)
{
	static const char *const kinds[] = { "volume", "byte", "sector", "cluster", "cluster" };
	const char *kind = (unsigned)f->loc_kind < 5 ? kinds[f->loc_kind] : "?";
	bool field = f->field[0] != '\0';
	char ent[24] = "";
	int n;

	if (f->loc_kind == FSC_LOC_ENTRY)
		snprintf(ent, sizeof(ent), " entry %u", f->entry);
	if (f->loc_kind == FSC_LOC_NONE)
		n = snprintf(buf, len, "%s", field ? f->field : f->path ? "" : kind);
	else
		n = snprintf(buf, len, "%s %llu%s%s%s%s", kind, (unsigned long long)f->loc, ent,
			     field ? " (" : "", f->field, field ? ")" : "");
	if (f->path && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%s", n ? ": " : "", f->path);
}

FSC_EXPORT bool fsc_findings_has(const struct fsc_findings *fs, enum fsc_problem id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].id == id)
			return true;
	return false;
}

FSC_EXPORT int fsc_findings_worst(const struct fsc_findings *fs)
{
	int worst = fs->dropped ? (int)FSC_SEV_ERROR : -1;	/* an incomplete list is not clean */

	for (size_t i = 0; i < fs->n; i++) {
		int s = (int)problems[fs->v[i].id].severity;

		if (s > worst)
			worst = s;
	}
	return worst;
}

void finding_list_clear(struct fsc_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].path);
	free(fs->v);
	fs->v = NULL;
	fs->n = fs->cap = fs->dropped = 0;
}

FSC_EXPORT struct fsc_findings *fsc_findings_new(void)
{
	return calloc(1, sizeof(struct fsc_findings));
}

FSC_EXPORT void fsc_findings_free(struct fsc_findings *fs)
{
	if (!fs)
		return;
	finding_list_clear(fs);
	free(fs);
}

FSC_EXPORT size_t fsc_findings_count(const struct fsc_findings *fs)
{
	return fs->n;
}

FSC_EXPORT const struct fsc_finding *fsc_findings_at(const struct fsc_findings *fs, size_t i)
{
	return i < fs->n ? &fs->v[i] : NULL;
}

FSC_EXPORT size_t fsc_findings_dropped(const struct fsc_findings *fs)
{
	return fs->dropped;
}

FSC_EXPORT enum fsc_problem fsc_finding_id(const struct fsc_finding *f)
{
	return f->id;
}

FSC_EXPORT enum fsc_loc_kind fsc_finding_loc(const struct fsc_finding *f, uint64_t *loc, uint32_t *entry)
{
	if (loc)
		*loc = f->loc;
	if (entry)
		*entry = f->entry;
	return f->loc_kind;
}

FSC_EXPORT const char *fsc_finding_field(const struct fsc_finding *f)
{
	return f->field;
}

FSC_EXPORT const char *fsc_finding_path(const struct fsc_finding *f)
{
	return f->path;
}

FSC_EXPORT const char *fsc_finding_actual(const struct fsc_finding *f)
{
	return f->actual;
}

FSC_EXPORT const char *fsc_finding_expected(const struct fsc_finding *f)
{
	return f->expected;
}

FSC_EXPORT const char *fsc_finding_detail(const struct fsc_finding *f)
{
	return f->detail;
}

FSC_EXPORT bool fsc_finding_planned(const struct fsc_finding *f)
{
	return f->planned;
}
