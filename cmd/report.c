// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - findings rendered for people and for programs; the JSON
 * shape is documented in fatscope-probe(8) and fatscope-fsck(8).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* fsc_severity_name's words (JSON keeps those), translated for the text report. */
static const char *severity_text(enum fsc_severity sev)
{
	static const char *const words[] = { N_("info"), N_("warning"), N_("error"), N_("fatal") };

	return (unsigned)sev < sizeof(words) / sizeof(words[0]) ? _(words[sev]) : fsc_severity_name(sev);
}

void report_finding_line(FILE *out, const char *prefix, const struct fsc_finding *f)
{
	const struct fsc_problem_info *pi = fsc_problem_info(fsc_finding_id(f));
	char msg[512], loc[4096 + 128];

	/* For people: the message and the severity in the user's language, the ID as it is. */
	fsc_finding_message_translated(f, msg, sizeof(msg));
	fsc_finding_location(f, loc, sizeof(loc));
	/* Names and labels come from the disk: control bytes and invalid UTF-8 escaped. */
	fprintf(out, "%s%-7s %s: ", prefix, severity_text(pi->severity), pi->name);
	report_escaped(out, msg);
	fputs(" [", out);
	report_escaped(out, loc);
	fputs("]\n", out);
}

int finding_view_add(struct finding_view *fv, const struct fsc_findings *fs, bool left_only)
{
	size_t n = fsc_findings_count(fs);
	const struct fsc_finding **v = realloc(fv->v, (fv->n + n + 1) * sizeof(*v));

	if (!v) {
		fv->dropped += n + fsc_findings_dropped(fs);	/* counted: a report never looks clean for it */
		return -ENOMEM;
	}
	fv->v = v;
	for (size_t i = 0; i < n; i++)
		if (!left_only || !fsc_finding_planned(fsc_findings_at(fs, i)))
			fv->v[fv->n++] = fsc_findings_at(fs, i);
	fv->dropped += fsc_findings_dropped(fs);
	return 0;
}

void finding_view_free(struct finding_view *fv)
{
	free(fv->v);
	*fv = (struct finding_view){ 0 };
}

void report_findings_text(const struct finding_view *fv, const char *indent)
{
	char prefix[32];

	if (!fv->n) {
		printf(_("%sfindings:   none\n"), indent);
		return;
	}
	printf(_("%sfindings:\n"), indent);
	snprintf(prefix, sizeof(prefix), "%s  ", indent);
	for (size_t i = 0; i < fv->n; i++)
		report_finding_line(stdout, prefix, fv->v[i]);
}

void report_findings_json(struct json *j, const struct finding_view *fv)
{
	static const char *const kinds[] = { "volume", "byte", "sector", "cluster", "entry" };
	char msg[512], loc[4096 + 128];

	json_open(j, "findings", '[');
	for (size_t i = 0; i < fv->n; i++) {
		const struct fsc_finding *f = fv->v[i];
		const struct fsc_problem_info *pi = fsc_problem_info(fsc_finding_id(f));
		uint64_t at;
		uint32_t entry;
		enum fsc_loc_kind kind = fsc_finding_loc(f, &at, &entry);
		const char *field = fsc_finding_field(f);

		fsc_finding_message(f, msg, sizeof(msg));
		fsc_finding_location(f, loc, sizeof(loc));
		json_open(j, NULL, '{');
		json_str(j, "id", pi->name);
		json_str(j, "severity", fsc_severity_name(pi->severity));
		json_str(j, "message", msg);
		json_open(j, "location", '{');
		json_str(j, "kind", kinds[kind]);
		if (kind != FSC_LOC_NONE)
			json_u64(j, "value", at);
		if (kind == FSC_LOC_ENTRY)
			json_u64(j, "entry", entry);
		json_str(j, "field", field[0] ? field : NULL);
		json_str(j, "path", fsc_finding_path(f));
		json_str(j, "text", loc);
		json_close(j, '}');
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* Bytes of s that are printable UTF-8 as they are, the rest as \xNN, given piece by piece to emit. */
static void escape_each(const char *s, void (*emit)(void *ctx, const char *p, size_t n), void *ctx)
{
	const unsigned char *u = (const unsigned char *)s;
	char hex[5];

	while (*u) {
		size_t n = *u < 0x80 ? 1 : (*u & 0xE0) == 0xC0 ? 2 : (*u & 0xF0) == 0xE0 ? 3 : (*u & 0xF8) == 0xF0 ? 4 : 0;
		size_t k = 1;

		while (k < n && (u[k] & 0xC0) == 0x80)
			k++;
		if (n == 0 || k < n || (n == 1 && (*u < 0x20 || *u == 0x7F)) || (n == 2 && *u < 0xC2)) {
			snprintf(hex, sizeof(hex), "\\x%02x", *u++);
			emit(ctx, hex, 4);
			continue;
		}
		emit(ctx, (const char *)u, n);
		u += n;
	}
}

static void emit_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

void report_escaped(FILE *out, const char *s)
{
	escape_each(s, emit_file, out);
}

struct buf_sink {
	char *buf;
	size_t len, used;
};

static void emit_buf(void *ctx, const char *p, size_t n)
{
	struct buf_sink *b = ctx;

	if (b->used + n < b->len) {	/* whole pieces only: an escape is never cut */
		memcpy(b->buf + b->used, p, n);
		b->used += n;
	}
	b->buf[b->used] = '\0';
}

const char *report_escape_buf(char *buf, size_t len, const char *s)
{
	struct buf_sink b = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	if (len)
		escape_each(s, emit_buf, &b);
	return buf;
}

void report_plan(FILE *out, const struct fsc_plan *plan)
{
	for (size_t i = 0; i < fsc_plan_count(plan); i++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, i);
		size_t show = e->len > 16 ? 16 : e->len, diff = 0;

		for (size_t k = 0; k < e->len; k++)
			diff += e->old[k] != e->data[k];
		fprintf(out, _("  byte %llu, %zu bytes, %zu differ: "), (unsigned long long)e->offset, e->len, diff);
		report_escaped(out, e->why);
		fprintf(out, "%s\n    old:", e->sync_before ? _(" [after a sync]") : "");
		for (size_t k = 0; k < show; k++)
			fprintf(out, " %02x", e->old[k]);
		fprintf(out, "%s\n    new:", e->len > show ? " ..." : "");
		for (size_t k = 0; k < show; k++)
			fprintf(out, " %02x", e->data[k]);
		fprintf(out, "%s\n", e->len > show ? " ..." : "");
	}
}

/* Up to 64 bytes as hex. */
static void hex_bytes(struct json *j, const char *k, const uint8_t *b, size_t len)
{
	char hex[2 * 64 + 1];
	size_t n = len < 64 ? len : 64;

	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	hex[2 * n] = '\0';
	json_str(j, k, hex);
}

void report_repair_json(struct json *j, const struct fsc_findings *before, const struct fsc_plan *plan,
			bool written, const char *undo)
{
	json_open(j, "repair", '{');
	/* fixed: only once written (and read back); planned: what the plan fixes, written or not */
	for (int k = 0; k < 2; k++) {
		json_open(j, k ? "planned" : "fixed", '[');
		for (size_t i = 0; (k || written) && i < fsc_findings_count(before); i++)
			if (fsc_finding_planned(fsc_findings_at(before, i)))
				json_str(j, NULL, fsc_problem_info(fsc_finding_id(fsc_findings_at(before, i)))->name);
		json_close(j, ']');
	}
	json_bool(j, "written", written);
	if (undo)
		json_str(j, "undo", undo);
	else
		json_null(j, "undo");
	json_open(j, "plan", '[');
	for (size_t i = 0; i < fsc_plan_count(plan); i++) {
		const struct fsc_edit *e = fsc_plan_edit(plan, i);

		json_open(j, NULL, '{');
		json_u64(j, "offset", e->offset);
		json_u64(j, "length", e->len);
		json_str(j, "why", e->why);
		json_bool(j, "sync_before", e->sync_before);
		hex_bytes(j, "old", e->old, e->len);
		hex_bytes(j, "new", e->data, e->len);
		json_bool(j, "truncated", e->len > 64);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}
