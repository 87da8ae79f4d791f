// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_main.c - the driver shared by every harness (fuzz_*.c define their
 * entry point, FUZZ_ENTRY in fuzz.h).  Built three ways:
 *   - with AFL++ (CC=afl-cc, ./configure --enable-fuzz): persistent mode,
 *     a program a harness;
 *   - with libFuzzer (-DFSC_LIBFUZZER): this file adds nothing;
 *   - otherwise as the replay program, fuzz/replay HARNESS PATH...
 *     (FSC_FUZZ_REPLAY: every harness in one program): every file named,
 *     or found in the directories named, is run once (make check does
 *     this under ASan and UBSan over fuzz/corpus and the test fixtures).
 *     Without FSC_FUZZ_REPLAY (an --enable-fuzz build by another compiler)
 *     it is the one harness's replay, fuzz/fuzz_NAME PATH...
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fatscope/fatscope.h"
#include "fuzz.h"

void fuzz_render_findings(const struct fsc_findings *fs)
{
	char buf[512];

	for (size_t i = 0; fs && i < fsc_findings_count(fs); i++) {
		fsc_finding_message(fsc_findings_at(fs, i), buf, sizeof(buf));
		fsc_finding_location(fsc_findings_at(fs, i), buf, sizeof(buf));
	}
}

#ifndef FSC_LIBFUZZER
#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();

int main(void)
{
	__AFL_INIT();
	unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;

	while (__AFL_LOOP(10000))
		LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
	return 0;
}
#else
/* The harness replayed. */
#ifdef FSC_FUZZ_REPLAY
static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t len);
} harnesses[] = {
	{ "probe", fuzz_one_probe }, { "fsck", fuzz_one_fsck }, { "dump", fuzz_one_dump },
	{ "label", fuzz_one_label }, { "repair", fuzz_one_repair }, { "container", fuzz_one_container },
};
#define NHARNESSES (sizeof(harnesses) / sizeof(harnesses[0]))
static int (*one)(const uint8_t *data, size_t len);
#else
static int (*const one)(const uint8_t *data, size_t len) = LLVMFuzzerTestOneInput;
#endif

static int run_file(const char *path, unsigned *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, r;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *nd = realloc(data, cap = cap ? 2 * cap : 65536);

			if (!nd) {
				fclose(f);
				free(data);
				return 1;
			}
			data = nd;
		}
		r = fread(data + len, 1, cap - len, f);
		len += r;
	} while (r);
	fclose(f);
	one(data, len);
	free(data);
	(*count)++;
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int bad = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, count);
	d = opendir(path);
	if (!d)
		return 1;
	while ((de = readdir(d)) != NULL) {
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		bad |= run_path(sub, count);
	}
	closedir(d);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0, i = 1;

#ifdef FSC_FUZZ_REPLAY
	for (size_t h = 0; h < NHARNESSES && argc > 1; h++)
		if (strcmp(argv[1], harnesses[h].name) == 0)
			one = harnesses[h].one;
	if (!one) {
		fprintf(stderr, "usage: replay HARNESS PATH... (HARNESS:");
		for (size_t h = 0; h < NHARNESSES; h++)
			fprintf(stderr, " %s", harnesses[h].name);
		fprintf(stderr, ")\n");
		return 2;
	}
	i = 2;
#endif
	for (; i < argc; i++)
		bad |= run_path(argv[i], &count);
	printf("replayed %u inputs\n", count);
	return bad;
}
#endif
#endif
