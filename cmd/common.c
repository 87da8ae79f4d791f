// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common.c - what the subcommands share before a volume is opened: error
 * and usage lines, number parsing, the common options and their help,
 * operand checks, and the check of standard output at exit.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "report.h"

/*
 * fmt with ap to stderr, control characters and invalid UTF-8 escaped:
 * the arguments may be names from the disk or from the command line (a
 * name pasted from ls -J holds what the disk holds).
 */
static void vescaped(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void vescaped(const char *fmt, va_list ap)
{
	char small[512], *buf = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (buf = malloc((size_t)n + 1)))
		vsnprintf(buf, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n < 0)
		return;
	report_escaped(stderr, buf ? buf : small);	/* out of memory: the message cut short */
	if (buf != small)
		free(buf);
}

void errmsg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("fatscope: ", stderr);
	if (what) {
		report_escaped(stderr, what);
		fputs(": ", stderr);
	}
	va_start(ap, fmt);
	vescaped(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const struct cmd_desc *d, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fatscope %s: ", d->name);
	va_start(ap, fmt);
	vescaped(fmt, ap);
	va_end(ap);
	fprintf(stderr, _("\nTry 'fatscope %s --help' for more information.\n"), d->name);
	return d->usage;
}

bool grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *v;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if (!(v = realloc(*p, n * elem)))
		return false;
	memset((char *)v + *cap * elem, 0, (n - *cap) * elem);
	*p = v;
	*cap = n;
	return true;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suf; unsigned shift; } sufs[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "T", 40 }, { "TiB", 40 },
	};
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
		if (strcmp(end, sufs[i].suf) != 0)
			continue;
		if (sufs[i].shift && v > (~0ull >> sufs[i].shift))
			return -1;
		*out = (uint64_t)v << sufs[i].shift;
		return 0;
	}
	return -1;
}

int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_columns(const char *list, const struct column_def *defs, int count, int *cols, size_t *ncols)
{
	char *dup = strdup(list), *save = NULL;

	if (!dup)
		return -1;
	*ncols = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int found = -1;

		for (int i = 0; i < count; i++)
			if (strcasecmp(t, defs[i].name) == 0)
				found = i;
		if (found < 0 || *ncols >= (size_t)count) {
			free(dup);
			return -1;
		}
		cols[(*ncols)++] = found;
	}
	free(dup);
	return *ncols ? 0 : -1;
}

/* --offset, --partition or --sector-size into sel; -1 on a bad value. */
static int parse_vol_option(int c, const char *arg, struct vol_select *sel)
{
	unsigned long v;

	switch (c) {
	case OPT_OFFSET:
		if (parse_size(arg, &sel->offset) < 0)
			return -1;
		sel->has_offset = true;
		return 0;
	case OPT_PARTITION:
		if (parse_uint(arg, 4096, &v) < 0 || v == 0)
			return -1;
		sel->partition = (int)v;
		return 0;
	default:
		if (parse_uint(arg, 4096, &v) < 0 || v < 512 || (v & (v - 1)))
			return -1;
		sel->sector_size = (uint32_t)v;
		return 0;
	}
}

int common_option(const struct cmd_desc *d, int c, const char *arg, struct vol_select *sel)
{
	unsigned long cp;

	switch (c) {
	case OPT_CODEPAGE:
		if (parse_uint(arg, 100000, &cp) == 0 && fsc_fat_codepage((unsigned)cp) == 0)
			return 0;
		return usage_error(d, _("invalid code page '%s' (437 or 850)"), arg);
	case OPT_OFFSET: case OPT_PARTITION: case OPT_SECTOR_SIZE:
		if (parse_vol_option(c, arg, sel) == 0)
			return 0;
		if (c == OPT_OFFSET)
			return usage_error(d, _("invalid offset '%s'"), arg);
		if (c == OPT_PARTITION)
			return usage_error(d, _("invalid partition number '%s'"), arg);
		return usage_error(d, _("invalid sector size '%s'"), arg);
	case 'h':
		d->help();
		return CMD_DONE;
	case 'V':
		print_version(d->name);
		return CMD_DONE;
	default:
		/* getopt_long has said what is wrong, as "fatscope CMD: ..." (argv[0]). */
		fprintf(stderr, _("Try 'fatscope %s --help' for more information.\n"), d->name);
		return d->usage;
	}
}

void common_options_help(int width)
{
	static const char *const lines[][2] = {
		{ "    --offset BYTES", N_("the volume starts at this byte of the image") },
		{ "    --partition N", N_("the volume is partition N of a whole-disk image") },
		{ "    --sector-size N", N_("the device's logical sector size (default: the device's, 512 for images)") },
		{ "    --codepage N", N_("FAT 8.3 names' code page: 850 (default, as mtools) or 437 (Linux's)") },
		{ "-h, --help", N_("display this help") },
		{ "-V, --version", N_("display version") },
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		printf(" %-*s%s\n", width, lines[i][0], _(lines[i][1]));
}

int check_select(const struct cmd_desc *d, const struct vol_select *sel)
{
	if (sel->has_offset && sel->partition)
		return usage_error(d, _("--offset and --partition are mutually exclusive"));
	return 0;
}

int check_operands(const struct cmd_desc *d, int argc, int max, const struct vol_select *sel)
{
	if (optind >= argc)
		return usage_error(d, _("no device or image specified"));
	if (max && argc - optind > max)
		return usage_error(d, max == 1 ? _("only one device or image at a time") : _("too many arguments"));
	return check_select(d, sel);
}

void print_version(const char *cmd)
{
	const char *sep = "";

	printf("fatscope%s%s from fatscope %s (libfatscope %s)\n", cmd ? " " : "", cmd ? cmd : "", PACKAGE_VERSION,
	       fsc_version());
	if (cmd)
		return;
	/* fatscope --version: the evidence containers this build reads. */
	fputs("containers:", stdout);
	for (int c = FSC_CONTAINER_NONE + 1; c < FSC_CONTAINER_COUNT; c++) {
		const char *lib = fsc_container_library((enum fsc_container)c);

		if (!lib)
			continue;
		printf("%s %s", sep, fsc_container_name((enum fsc_container)c));
		if (lib[0])
			printf(" (%s)", lib);
		sep = ",";
	}
	putchar('\n');
}

int close_stdout_checked(int code, int operror)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno != EPIPE)
			errmsg(NULL, _("write error on standard output: %s"), strerror(errno));
		return operror;
	}
	return code;
}
