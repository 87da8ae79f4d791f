// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - findings rendered for people and for programs; the JSON
 * shape is documented in fatscope-probe(8) and fatscope-fsck(8).
 */
#include "config.h"

#include <stdio.h>

#include "report.h"

void report_finding_line(FILE *out, const char *prefix, const struct fsc_finding *f)
{
	const struct fsc_problem_info *pi = fsc_problem_info(f->id);
	char msg[512], loc[4096 + 128];

	fsc_finding_message(f, msg, sizeof(msg));
	fsc_finding_location(f, loc, sizeof(loc));
	fprintf(out, "%s%-7s %s: %s [%s]\n", prefix, fsc_severity_name(pi->severity), pi->name, msg, loc);
}

void report_findings_text(const struct fsc_findings *fs, const char *indent)
{
	char prefix[32];

	if (!fs->n) {
		printf("%sfindings:   none\n", indent);
		return;
	}
	printf("%sfindings:\n", indent);
	snprintf(prefix, sizeof(prefix), "%s  ", indent);
	for (size_t i = 0; i < fs->n; i++)
		report_finding_line(stdout, prefix, &fs->v[i]);
}

void report_findings_json(struct json *j, const struct fsc_findings *fs)
{
	static const char *const kinds[] = { "volume", "byte", "sector", "cluster", "entry" };
	char msg[512], loc[4096 + 128];

	json_open(j, "findings", '[');
	for (size_t i = 0; i < fs->n; i++) {
		const struct fsc_finding *f = &fs->v[i];
		const struct fsc_problem_info *pi = fsc_problem_info(f->id);

		fsc_finding_message(f, msg, sizeof(msg));
		fsc_finding_location(f, loc, sizeof(loc));
		json_open(j, NULL, '{');
		json_str(j, "id", pi->name);
		json_str(j, "severity", fsc_severity_name(pi->severity));
		json_str(j, "message", msg);
		json_open(j, "location", '{');
		json_str(j, "kind", kinds[f->loc_kind]);
		if (f->loc_kind != FSC_LOC_NONE)
			json_u64(j, "value", f->loc);
		if (f->loc_kind == FSC_LOC_ENTRY)
			json_u64(j, "entry", f->entry);
		json_str(j, "field", f->field[0] ? f->field : NULL);
		json_str(j, "path", f->path);
		json_str(j, "text", loc);
		json_close(j, '}');
		json_close(j, '}');
	}
	json_close(j, ']');
}
