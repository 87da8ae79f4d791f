// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe_container.c - what fatscope probe says of an evidence container:
 * its format and metadata (text and JSON, schema in fatscope-probe(8)),
 * the formats this build reads, and --verify: the hashes an EWF
 * container stores of its media against the media read through it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_out.h"
#include "report.h"

#define VERIFY_CHUNK (1u << 20)

static const char *const verify_words[] = {
	[VERIFY_NONE] = "none", [VERIFY_OK] = "verified", [VERIFY_MISMATCH] = "mismatch",
};

/* The stored hash of alg (HASH_MD5, HASH_SHA1) in lower-case hex into hex, or NULL. */
static const char *stored(const struct fsc_container_info *ci, int alg, char hex[HASH_HEX_MAX])
{
	if (!ci || !(alg == HASH_MD5 ? ci->has_md5 : ci->has_sha1))
		return NULL;
	hash_hex(alg == HASH_MD5 ? ci->md5 : ci->sha1, alg == HASH_MD5 ? 16 : 20, hex);
	return hex;
}

/* Hash the whole media (the window aside) with every stored hash's algorithm. */
static int hash_media(const char *path, struct fsc_dev *dev, struct hash_ctx *h)
{
	uint64_t total = fsc_dev_full_size(dev), save_off = fsc_dev_offset(dev), save_size = fsc_dev_size(dev);
	uint8_t *buf = malloc(VERIFY_CHUNK);
	int r = buf ? fsc_dev_set_window(dev, 0, 0) : -ENOMEM;

	for (uint64_t off = 0; r == 0 && off < total;) {
		size_t n = total - off < VERIFY_CHUNK ? (size_t)(total - off) : VERIFY_CHUNK;

		if ((r = fsc_dev_read(dev, off, buf, n)) < 0) {
			errmsg(path, _("read error at byte %llu while verifying: %s"), (unsigned long long)off,
			       strerror(-r));
			break;
		}
		hash_update(h, buf, n);
		off += n;
	}
	if (r == -ENOMEM)
		errmsg(path, _("out of memory"));
	free(buf);
	fsc_dev_set_window(dev, save_off, save_size);
	return r;
}

int probe_verify(const char *path, struct fsc_dev *dev, struct probe_verify *v)
{
	const struct fsc_container_info *ci = fsc_dev_container(dev);
	char hex[HASH_COUNT][HASH_HEX_MAX], want[HASH_HEX_MAX];
	struct hash_ctx h;
	unsigned set = 0;

	memset(v, 0, sizeof(*v));
	v->result = VERIFY_NONE;
	for (int a = HASH_MD5; a <= HASH_SHA1; a++) {
		v->has[a] = stored(ci, a, want) != NULL;
		set |= v->has[a] ? 1u << a : 0;
	}
	if (!set)
		return 0;
	hash_init(&h, set);
	if (hash_media(path, dev, &h) < 0)
		return PROBE_OPERROR;
	hash_final(&h, hex);
	v->result = VERIFY_OK;
	for (int a = HASH_MD5; a <= HASH_SHA1; a++)
		if (v->has[a]) {
			memcpy(v->computed[a], hex[a], HASH_HEX_MAX);
			if (strcmp(v->computed[a], stored(ci, a, want)))
				v->result = VERIFY_MISMATCH;
		}
	return 0;
}

static const char *title(enum fsc_container c)
{
	switch (c) {
	case FSC_CONTAINER_SPLIT: return _("split raw image");
	case FSC_CONTAINER_EWF: return _("EWF evidence file");
	case FSC_CONTAINER_VHD: return _("VHD virtual disk");
	case FSC_CONTAINER_VMDK: return _("VMDK virtual disk");
	default: return "?";
	}
}

static void text_line(const char *key, const char *val)
{
	if (!val)
		return;
	printf("  %-22s ", key);
	report_escaped(stdout, val);	/* bytes from the container */
	putchar('\n');
}

static void text_verify(const struct fsc_container_info *ci, const struct probe_verify *v)
{
	char want[HASH_HEX_MAX];

	if (v->result == VERIFY_NONE) {
		printf("  %-22s %s\n", "verify", _("none (no hash stored)"));
		return;
	}
	for (int a = 0; a < 2; a++) {
		if (!v->has[a])
			continue;
		const char *got = v->computed[a];

		if (strcmp(stored(ci, a, want), got) == 0)
			printf("  %-22s %s: %s %s\n", "verify", _("verified"), hash_name((enum hash_algo)a), got);
		else
			printf("  %-22s %s: %s %s, %s %s\n", "verify", _("MISMATCH"), hash_name((enum hash_algo)a),
			       got, _("stored"), want);
	}
}

void probe_container_text(const char *path, const struct fsc_container_info *ci, const struct probe_verify *v)
{
	char hex[HASH_HEX_MAX];

	if (!ci) {
		if (v->result != VERIFY_NOT_ASKED)
			printf(_("%s: verify: none (not an evidence container: no hash stored)\n\n"), path);
		return;
	}
	printf("%s: %s", path, title(ci->format));
	if (ci->variant)
		printf(" (%s)", ci->variant);
	printf("\n  %-22s %llu bytes", "media_size", (unsigned long long)ci->media_size);
	if (ci->bytes_per_sector)
		printf(", %u-byte sectors", ci->bytes_per_sector);
	putchar('\n');
	text_line("disk_type", ci->disk_type);
	printf("  %-22s ", "files");
	report_escaped(stdout, ci->files[0]);
	if (ci->nfiles > 1) {
		printf(" .. ");
		report_escaped(stdout, ci->files[ci->nfiles - 1]);
		printf(" (%zu)", ci->nfiles);
	}
	putchar('\n');
	text_line("parent", ci->parent);
	text_line("case_number", ci->case_number);
	text_line("evidence_number", ci->evidence_number);
	text_line("examiner", ci->examiner);
	text_line("description", ci->description);
	text_line("notes", ci->notes);
	text_line("acquired", ci->acquired);
	text_line("acquired_os", ci->acquired_os);
	text_line("acquired_software", ci->acquired_software);
	for (int a = HASH_MD5; a <= HASH_SHA1; a++)
		text_line(hash_name((enum hash_algo)a), stored(ci, a, hex));
	if (v->result != VERIFY_NOT_ASKED)
		text_verify(ci, v);
	putchar('\n');
}

void probe_container_json(struct json *j, const struct fsc_container_info *ci, const struct probe_verify *v)
{
	char hex[HASH_HEX_MAX];

	if (ci) {
		json_open(j, "container", '{');
		json_str(j, "format", fsc_container_name(ci->format));
		json_str(j, "variant", ci->variant);
		json_str(j, "disk_type", ci->disk_type);
		json_u64(j, "media_size", ci->media_size);
		json_u64(j, "bytes_per_sector", ci->bytes_per_sector);
		json_open(j, "files", '[');
		for (size_t i = 0; i < ci->nfiles; i++)
			json_str(j, NULL, ci->files[i]);
		json_close(j, ']');
		json_str(j, "parent", ci->parent);
		json_str(j, "case_number", ci->case_number);
		json_str(j, "evidence_number", ci->evidence_number);
		json_str(j, "examiner", ci->examiner);
		json_str(j, "description", ci->description);
		json_str(j, "notes", ci->notes);
		json_str(j, "acquired", ci->acquired);
		json_str(j, "acquired_os", ci->acquired_os);
		json_str(j, "acquired_software", ci->acquired_software);
		json_str(j, "md5", stored(ci, HASH_MD5, hex));
		json_str(j, "sha1", stored(ci, HASH_SHA1, hex));
		json_close(j, '}');
	}
	if (v->result == VERIFY_NOT_ASKED)
		return;
	json_open(j, "verify", '{');
	json_str(j, "result", verify_words[v->result]);
	json_str(j, "md5", v->has[HASH_MD5] ? v->computed[HASH_MD5] : NULL);
	json_str(j, "sha1", v->has[HASH_SHA1] ? v->computed[HASH_SHA1] : NULL);
	json_close(j, '}');
}

void probe_formats_json(struct json *j)
{
	json_open(j, "container_formats", '[');
	for (int c = FSC_CONTAINER_NONE + 1; c < FSC_CONTAINER_COUNT; c++) {
		const char *lib = fsc_container_library((enum fsc_container)c);

		if (!lib)
			continue;
		json_open(j, NULL, '{');
		json_str(j, "name", fsc_container_name((enum fsc_container)c));
		json_str(j, "library", lib[0] ? lib : NULL);
		json_close(j, '}');
	}
	json_close(j, ']');
}
