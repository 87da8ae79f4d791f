/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_out.h - fatscope probe's state and its two renderers. */
#ifndef FSC_PROBE_OUT_H
#define FSC_PROBE_OUT_H

#include "common.h"
#include "hash.h"
#include "json.h"

/* --verify: the hashes an EWF container stores against its media. */
enum verify_result { VERIFY_NOT_ASKED, VERIFY_NONE, VERIFY_OK, VERIFY_MISMATCH };

struct probe_verify {
	enum verify_result result;
	bool has[2];			/* by HASH_MD5, HASH_SHA1: a hash stored, so computed */
	char computed[2][HASH_HEX_MAX];	/* (lower-case hex) */
};

/* The volume's columns (VOLUME, TYPE, LABEL, VERDICT, AT-RISK) and the driver's. */
enum probe_col { COL_VOLUME, COL_TYPE, COL_RISK, COL_DRIVER, COL_ACTION, COL_AS, COL_ERRNO, COL_WHY, COL_EFFECT,
		 COL_WARNING, COL_CURRENT, COL_VERSIONS, COL_LABEL, COL_VERDICT, COL_AT_RISK, COL_COUNT };

struct probe_ctl {
	bool json, noheadings, raw;
	int cols[COL_COUNT];
	size_t ncols;
	bool drv_sel[32];
	bool drivers_given;		/* --drivers: every selected driver's risk counts, non-default ones too */
	struct vol_select sel;
	struct json j;
	enum fsc_type last_type;	/* of the last volume reported */
	bool table_mode;		/* -o/-r/-n/-s: only a table, all volumes */
	bool summary;			/* -s: one line a volume instead of one a driver */
	struct libscols_table *tb;
	struct judged *judged;		/* verdicts of the current volume, reused */
	bool verify;			/* --verify */
	struct probe_verify ver;	/* of the current path */
	bool container_shown;		/* the current path's container block is printed (text) */
};

struct libscols_table;
struct judged;

int probe_parse_columns(struct probe_ctl *ctl, const char *list);
/* Print one probed volume (text or JSON); returns its exit code. */
int probe_report(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev,
		 const struct fsc_partition *part, const struct fsc_probe *p);
/* Table mode: print the table gathered over all volumes; free what was kept. */
void probe_table_flush(struct probe_ctl *ctl);

/* probe_container.c: hash dev's whole media as --verify asks: 0, or PROBE_OPERROR after the message. */
int probe_verify(const char *path, struct fsc_dev *dev, struct probe_verify *v);
/* The container block (ci may be NULL: a plain image, only a verify line when asked). */
void probe_container_text(const char *path, const struct fsc_container_info *ci, const struct probe_verify *v);
/* "container" (when ci) and "verify" (when asked) members of a volume object. */
void probe_container_json(struct json *j, const struct fsc_container_info *ci, const struct probe_verify *v);
/* The top-level "container_formats" array: the formats this build reads. */
void probe_formats_json(struct json *j);

#endif
