// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - streaming JSON writer: two-space indentation, strings escaped
 * per RFC 8259 (control characters as \u00XX, bytes >= 0x80 passed
 * through: labels are already UTF-8).
 */
#include "config.h"

#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
}

static void escape(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7F)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void key(struct json *j, const char *k)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	if (j->depth)
		fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
	if (k) {
		escape(j->out, k);
		fputs(": ", j->out);
	}
	j->need_comma[j->depth] = true;
}

void json_open(struct json *j, const char *k, char bracket)
{
	key(j, k);
	fputc(bracket, j->out);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_close(struct json *j, char bracket)
{
	bool had = j->need_comma[j->depth];

	if (j->depth)
		j->depth--;
	if (had) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	fputc(bracket, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void json_str(struct json *j, const char *k, const char *val)
{
	key(j, k);
	if (val)
		escape(j->out, val);
	else
		fputs("null", j->out);
}

void json_u64(struct json *j, const char *k, uint64_t val)
{
	key(j, k);
	fprintf(j->out, "%llu", (unsigned long long)val);
}

void json_int(struct json *j, const char *k, long long val)
{
	key(j, k);
	fprintf(j->out, "%lld", val);
}

void json_bool(struct json *j, const char *k, bool val)
{
	key(j, k);
	fputs(val ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *k)
{
	key(j, k);
	fputs("null", j->out);
}
