/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - a small streaming JSON writer for -J output. */
#ifndef FSC_JSON_H
#define FSC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *out;
	int depth;
	bool need_comma[32];
};

void json_init(struct json *j, FILE *out);
void json_open(struct json *j, const char *key, char bracket);	/* '{' or '[' */
void json_close(struct json *j, char bracket);
void json_str(struct json *j, const char *key, const char *val);	/* NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_int(struct json *j, const char *key, long long val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);

#endif
