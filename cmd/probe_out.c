// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe_out.c - render a probed volume: details, findings, the driver
 * matrix (libsmartcols) and the verdict, as text or as JSON (schema in
 * fatscope-probe(8)); before it, its evidence container's block
 * (probe_container.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>

#include "probe_out.h"
#include "report.h"

static const struct column_def columns[COL_COUNT] = {
	[COL_VOLUME] = { "VOLUME", 0.1, 0 }, [COL_TYPE] = { "TYPE", 0.05, 0 },
	[COL_RISK] = { "RISK", 0.1, 0 },
	[COL_DRIVER] = { "DRIVER", 0.1, 0 }, [COL_ACTION] = { "ACTION", 0.05, 0 },
	[COL_AS] = { "AS", 0.05, 0 }, [COL_ERRNO] = { "ERRNO", 0.05, 0 },
	[COL_WHY] = { "WHY", 0.5, 0 }, [COL_EFFECT] = { "EFFECT", 0.2, 0 },
	[COL_WARNING] = { "WARNING", 0.2, 0 }, [COL_CURRENT] = { "CURRENT", 0.05, 0 },
	[COL_VERSIONS] = { "VERSIONS", 0.2, 0 }, [COL_LABEL] = { "LABEL", 0.1, 0 },
	[COL_VERDICT] = { "VERDICT", 0.1, 0 }, [COL_AT_RISK] = { "AT-RISK", 0.3, 0 },
};

int probe_parse_columns(struct probe_ctl *ctl, const char *list)
{
	return parse_columns(list, columns, COL_COUNT, ctl->cols, &ctl->ncols);
}

static const char *errno_name(int e)
{
	return e == EIO ? "EIO" : e == EINVAL ? "EINVAL" : e ? "E?" : NULL;
}

struct judged {
	struct fsc_judgement *j;	/* the verdicts and the risks */
	size_t counted;			/* risks that count for the exit status */
};

/* What one row of the driver table shows. */
struct row_ctx {
	const char *volume;
	const struct fsc_probe *p;
	const struct fsc_verdict *v;
	const struct fsc_judgement *j;	/* the volume's verdicts and risks */
	bool all_count;			/* --drivers: non-default drivers' risks count too */
};

/* Does the risk count for the verdict and the exit status (see counts())? */
static bool row_counts(const struct row_ctx *rc, const struct fsc_risk *r)
{
	return rc->all_count || !fsc_risk_driver(r)->nondefault;
}

/* VERDICT, one word (raw output stays one field): AT-RISK, no-risk (exFAT, FAT), not-exFAT/FAT. */
static const char *verdict_word(const struct row_ctx *rc)
{
	enum fsc_type t = fsc_probe_volume_type(rc->p);

	for (size_t i = 0; i < fsc_judgement_risks(rc->j); i++)
		if (row_counts(rc, fsc_judgement_risk(rc->j, i)))
			return "AT-RISK";
	return t == FSC_TYPE_EXFAT || fsc_type_is_fat(t) ? "no-risk" : "not-exFAT/FAT";
}

/* AT-RISK: the drivers at risk (whose risks count), each once, comma-separated. */
static const char *at_risk(const struct row_ctx *rc, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < fsc_judgement_risks(rc->j); i++) {
		const struct fsc_driver *d = fsc_risk_driver(fsc_judgement_risk(rc->j, i));
		size_t k = 0;

		while (k < i && fsc_risk_driver(fsc_judgement_risk(rc->j, k)) != d)
			k++;
		if (k == i && row_counts(rc, fsc_judgement_risk(rc->j, i)))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", d->id);
	}
	return buf;
}

static const char *cell(const struct row_ctx *rc, int col, char *buf, size_t len)
{
	const struct fsc_verdict *v = rc->v;
	const struct fsc_driver *d = v ? fsc_verdict_driver(v) : NULL;

	switch (col) {
	case COL_VOLUME: return rc->volume;
	case COL_TYPE: return fsc_type_name(fsc_probe_volume_type(rc->p));
	/* as it is: libsmartcols escapes control characters and invalid UTF-8 (escaped here, its \ would be again) */
	case COL_LABEL: return fsc_probe_label(rc->p) ? fsc_probe_label(rc->p) : "";
	case COL_VERDICT: return verdict_word(rc);
	case COL_AT_RISK: return at_risk(rc, buf, len);
	case COL_RISK:
		buf[0] = '\0';
		for (size_t i = 0; i < fsc_judgement_risks(rc->j); i++)
			if (fsc_risk_driver(fsc_judgement_risk(rc->j, i)) == d)
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
					 fsc_risk_kind_name(fsc_risk_kind_of(fsc_judgement_risk(rc->j, i))));
		return buf;
	case COL_DRIVER: return d->id;
	case COL_ACTION: return fsc_action_name(fsc_verdict_action(v));
	case COL_AS: return fsc_verdict_action(v) == FSC_REFUSES ? "" : fsc_type_name(fsc_verdict_as(v));
	case COL_ERRNO: return errno_name(fsc_verdict_errno(v)) ? errno_name(fsc_verdict_errno(v)) : "";
	case COL_WHY: return fsc_verdict_why(v);
	case COL_EFFECT: return fsc_verdict_effect(v);
	case COL_WARNING: return fsc_verdict_warning(v);
	case COL_CURRENT: return d->current ? "yes" : "no";
	case COL_VERSIONS: return d->versions;
	}
	return "";
}

static const int text_cols[] = { COL_DRIVER, COL_ACTION, COL_AS, COL_ERRNO, COL_WHY };
static const int table_cols[] = { COL_VOLUME, COL_TYPE, COL_DRIVER, COL_ACTION, COL_AS, COL_ERRNO, COL_RISK };
static const int summary_cols[] = { COL_VOLUME, COL_TYPE, COL_LABEL, COL_VERDICT, COL_AT_RISK };

static struct libscols_table *new_table(struct probe_ctl *ctl, const int *cols, size_t ncols)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_enable_raw(tb, ctl->raw);
	scols_table_enable_noheadings(tb, ctl->noheadings);
	for (size_t c = 0; c < ncols; c++)
		scols_table_new_column(tb, columns[cols[c]].name, columns[cols[c]].width,
				       columns[cols[c]].flags);
	return tb;
}

static void add_line(struct libscols_table *tb, const int *cols, size_t ncols, const struct row_ctx *rc)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	char buf[320];

	for (size_t c = 0; ln && c < ncols; c++)
		scols_line_set_data(ln, c, cell(rc, cols[c], buf, sizeof(buf)));
}

/* The report's driver matrix: fixed columns sized to their contents. */
static void print_matrix(struct row_ctx *rc)
{
	int w[4] = { 6, 6, 2, 5 };	/* DRIVER ACTION AS ERRNO, at least the headings */
	size_t nv = fsc_judgement_verdicts(rc->j);
	char buf[160];

	for (size_t i = 0; i < nv; i++) {
		rc->v = fsc_judgement_verdict(rc->j, i);
		for (int c = 0; c < 4; c++) {
			int n = (int)strlen(cell(rc, text_cols[c], buf, sizeof(buf)));

			if (n > w[c])
				w[c] = n;
		}
	}
	printf("    %-*s %-*s %-*s %-*s %s\n", w[0], "DRIVER", w[1], "ACTION", w[2], "AS", w[3],
	       "ERRNO", "WHY");
	for (size_t i = 0; i < nv; i++) {
		const struct fsc_verdict *v = rc->v = fsc_judgement_verdict(rc->j, i);

		printf("    %-*s %-*s %-*s %-*s %s\n", w[0], fsc_verdict_driver(v)->id, w[1],
		       fsc_action_name(fsc_verdict_action(v)), w[2], cell(rc, COL_AS, buf, sizeof(buf)), w[3],
		       cell(rc, COL_ERRNO, buf, sizeof(buf)), fsc_verdict_why(v));
	}
	for (size_t i = 0; i < nv; i++) {
		const struct fsc_verdict *v = fsc_judgement_verdict(rc->j, i);

		if (fsc_verdict_warning(v)[0])
			printf(_("    %s warns: %s\n"), fsc_verdict_driver(v)->id, fsc_verdict_warning(v));
		if (fsc_verdict_effect(v)[0])
			printf(_("    %s writes: %s\n"), fsc_verdict_driver(v)->id, fsc_verdict_effect(v));
	}
}

/* Table mode: a line a driver (-o/-n/-r), or with -s one line for the volume. */
/* Are all the columns about the volume, none about a driver? */
static bool per_volume(const int *cols, size_t ncols)
{
	for (size_t c = 0; c < ncols; c++)
		if (cols[c] != COL_VOLUME && cols[c] != COL_TYPE && cols[c] != COL_LABEL && cols[c] != COL_VERDICT &&
		    cols[c] != COL_AT_RISK)
			return false;
	return true;
}

static void table_rows(struct probe_ctl *ctl, struct row_ctx *rc)
{
	const int *cols = ctl->summary ? summary_cols : ctl->ncols ? ctl->cols : table_cols;
	size_t ncols = ctl->summary ? sizeof(summary_cols) / sizeof(summary_cols[0]) :
		       ctl->ncols ? ctl->ncols : sizeof(table_cols) / sizeof(table_cols[0]);

	if (!ctl->tb)
		ctl->tb = new_table(ctl, cols, ncols);
	if (!ctl->tb)
		return;
	if (per_volume(cols, ncols)) {	/* -s, or -o VOLUME,TYPE: one row per volume, not per driver */
		add_line(ctl->tb, cols, ncols, rc);
		return;
	}
	for (size_t i = 0; i < fsc_judgement_verdicts(rc->j); i++) {
		rc->v = fsc_judgement_verdict(rc->j, i);
		add_line(ctl->tb, cols, ncols, rc);
	}
}

void probe_table_flush(struct probe_ctl *ctl)
{
	if (ctl->judged)
		fsc_judgement_free(ctl->judged->j);
	free(ctl->judged);
	ctl->judged = NULL;
	if (!ctl->tb)
		return;
	scols_print_table(ctl->tb);
	scols_unref_table(ctl->tb);
	ctl->tb = NULL;
}

static void human_size(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned i = 0;
	double v = (double)b;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

/* Type-specific details, emitted through one sink for text and JSON. */
struct sink {
	struct probe_ctl *ctl;
	void (*str)(struct sink *k, const char *key, const char *val);
	void (*num)(struct sink *k, const char *key, uint64_t val);
};

static void text_str(struct sink *k, const char *key, const char *val)
{
	(void)k;	/* text goes to stdout */
	printf("  %-22s ", key);
	report_escaped(stdout, val);	/* OEM names, labels: bytes from the disk */
	putchar('\n');
}

static void text_num(struct sink *k, const char *key, uint64_t val)
{
	(void)k;	/* text goes to stdout */
	printf("  %-22s %llu\n", key, (unsigned long long)val);
}

static void json_s(struct sink *k, const char *key, const char *val)
{
	json_str(&k->ctl->j, key, val);
}

static void json_n(struct sink *k, const char *key, uint64_t val)
{
	json_u64(&k->ctl->j, key, val);
}

static void hex(struct sink *k, const char *key, int digits, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%0*llx", digits, (unsigned long long)v);
	k->str(k, key, buf);
}

static void details_exfat(struct sink *k, const struct fsc_probe *p)
{
	const struct fsc_exfat_boot *ex = fsc_probe_exfat(p);
	char buf[32];

	snprintf(buf, sizeof(buf), "%u.%02u", ex->revision >> 8, ex->revision & 0xFF);
	k->str(k, "revision", buf);
	k->num(k, "sector_shift", ex->sector_shift);
	k->num(k, "cluster_shift", ex->cluster_shift);
	k->num(k, "volume_length", ex->volume_length);
	k->num(k, "partition_offset", ex->partition_offset);
	k->num(k, "fat_offset", ex->fat_offset);
	k->num(k, "fat_length", ex->fat_length);
	k->num(k, "number_of_fats", ex->num_fats);
	k->num(k, "cluster_heap_offset", ex->heap_offset);
	k->num(k, "cluster_count", ex->cluster_count);
	k->num(k, "root_cluster", ex->root_cluster);
	hex(k, "volume_flags", 4, ex->volume_flags);
	k->num(k, "percent_in_use", ex->percent_in_use);
	if (ex->checksum_known) {
		hex(k, "boot_checksum", 8, ex->checksum_stored);
		hex(k, "boot_checksum_computed", 8, ex->checksum_computed);
	}
}

static void details_fat(struct sink *k, const struct fsc_probe *p)
{
	const struct fsc_fat_bpb *b = fsc_probe_fat(p);

	k->str(k, "bpb_style", b->bpb32 ? "fat32" : "fat12/16");
	k->str(k, "type_by_bpb", fsc_type_name(b->bpb_type));
	k->str(k, "oem_name", b->oem);
	k->num(k, "bytes_per_sector", b->bytes_per_sector);
	k->num(k, "sectors_per_cluster", b->sec_per_clus);
	k->num(k, "reserved_sectors", b->reserved);
	k->num(k, "number_of_fats", b->num_fats);
	k->num(k, "fat_size", b->fat_size);
	k->num(k, "root_entries", b->root_entries);
	k->num(k, "total_sectors", b->total_sectors);
	k->num(k, "clusters", b->clusters);
	hex(k, "media", 2, b->media);
	if (b->bpb32) {
		k->num(k, "root_cluster", b->root_cluster);
		k->num(k, "fsinfo_sector", b->fsinfo_sector);
		k->num(k, "backup_boot_sector", b->backup_sector);
	}
	if (b->boot_sig == 0x29) {
		k->str(k, "boot_label", b->boot_label);
		k->str(k, "fs_type_string", b->fs_type);
	}
}

static void details_mbr(struct sink *k, const struct fsc_probe *p)
{
	char key[16], val[96];

	for (int i = 0; i < 4; i++) {
		const struct fsc_mbr_entry *e = &fsc_probe_mbr(p)[i];

		if (!e->type)
			continue;
		snprintf(key, sizeof(key), "entry_%d", i + 1);
		snprintf(val, sizeof(val), "type 0x%02x, start %u, sectors %u%s", e->type, e->start,
			 e->size, e->status == 0x80 ? ", bootable" : "");
		k->str(k, key, val);
	}
}

static void details(struct sink *k, const struct fsc_probe *p)
{
	const char *why;

	if (fsc_probe_type(p) == FSC_TYPE_EXFAT)
		details_exfat(k, p);
	else if (fsc_type_is_fat(fsc_probe_type(p)))
		details_fat(k, p);
	else if (fsc_probe_type(p) == FSC_TYPE_MBR || fsc_probe_type(p) == FSC_TYPE_GPT)
		details_mbr(k, p);
	else if (fsc_probe_type(p) == FSC_TYPE_NTFS)
		k->str(k, "blkid_ntfs", fsc_probe_ntfs_blkid_ok(p, &why) ? "accepted" : why);
}

static const char *type_title(enum fsc_type t)
{
	static const char *const titles[FSC_TYPE_COUNT] = {
		[FSC_TYPE_UNKNOWN] = N_("unknown (no exFAT, FAT, NTFS or partition table signature)"),
		[FSC_TYPE_BLANK] = N_("blank"), [FSC_TYPE_EXFAT] = "exFAT", [FSC_TYPE_FAT12] = "FAT12",
		[FSC_TYPE_FAT16] = "FAT16", [FSC_TYPE_FAT32] = "FAT32", [FSC_TYPE_NTFS] = "NTFS",
		[FSC_TYPE_MBR] = N_("MBR partition table"), [FSC_TYPE_GPT] = N_("GPT (protective MBR)"),
	};
	return _(titles[t]);
}

/*
 * Does a risk count for the exit status: by default only those of drivers
 * as kernels are configured by default; with --drivers every selected one.
 */
static bool counts(const struct probe_ctl *ctl, const struct fsc_risk *r)
{
	return row_counts(&(struct row_ctx){ .all_count = ctl->drivers_given }, r);
}

static int judge_all(struct probe_ctl *ctl, const struct fsc_probe *p, struct judged *jd)
{
	fsc_judgement_free(jd->j);
	jd->j = fsc_judge(p, ctl->drv_sel);
	if (!jd->j)
		return -ENOMEM;
	jd->counted = 0;
	for (size_t i = 0; i < fsc_judgement_risks(jd->j); i++)
		jd->counted += counts(ctl, fsc_judgement_risk(jd->j, i));
	return 0;
}

static void report_text(struct probe_ctl *ctl, struct row_ctx *rc, const char *path,
			const struct fsc_partition *part, const struct fsc_probe *p,
			const struct judged *jd)
{
	struct sink k = { ctl, text_str, text_num };
	struct finding_view fv = { 0 };
	char size[32];

	human_size(fsc_probe_dev_size(p), size, sizeof(size));
	if (part)
		printf(_("%s: partition %d (type %s, offset %llu): %s"), path, part->partno, part->type,
		       (unsigned long long)part->offset, type_title(fsc_probe_volume_type(p)));
	else
		printf("%s: %s", path, type_title(fsc_probe_volume_type(p)));
	if (fsc_probe_backup_type(p) != FSC_TYPE_UNKNOWN)
		printf(fsc_probe_backup_type(p) == FSC_TYPE_EXFAT ? _(" (sector 0 destroyed: %s; the backup boot region is sound)")
								   : _(" (sector 0 destroyed: %s; the backup boot sector is sound)"),
		       fsc_type_name(fsc_probe_type(p)));
	putchar('\n');
	printf("  %-22s %llu bytes (%s), %u-byte device sectors\n", "size",
	       (unsigned long long)fsc_probe_dev_size(p), size, fsc_probe_dev_sector_size(p));
	if (fsc_probe_label(p))
		text_str(&k, "label", fsc_probe_label(p));
	if (fsc_probe_serial(p))
		printf("  %-22s %s\n", "serial", fsc_probe_serial(p));
	details(&k, p);
	finding_view_add(&fv, fsc_probe_findings(p), false);
	report_findings_text(&fv, "  ");
	finding_view_free(&fv);
	puts(_("  drivers:"));
	print_matrix(rc);
	if (!fsc_judgement_risks(jd->j)) {
		puts(_("  verdict: no driver at risk\n"));
		return;
	}
	if (jd->counted)
		printf(_("  verdict: AT RISK (%zu)\n"), jd->counted);
	else
		printf(P_("  verdict: no driver at risk as kernels are configured by default (%zu risk with a non-default configuration)\n",
			  "  verdict: no driver at risk as kernels are configured by default (%zu risks with a non-default configuration)\n",
			  fsc_judgement_risks(jd->j)), fsc_judgement_risks(jd->j));
	for (size_t i = 0; i < fsc_judgement_risks(jd->j); i++) {
		const struct fsc_risk *r = fsc_judgement_risk(jd->j, i);

		printf("    %s [%s%s%s]: %s\n", fsc_risk_driver(r)->id, fsc_risk_kind_name(fsc_risk_kind_of(r)),
		       fsc_risk_driver(r)->current ? "" : _(", historical"),
		       counts(ctl, r) ? "" : _(", non-default configuration, not counted"), fsc_risk_why(r));
	}
	putchar('\n');
}


static void json_drivers(const struct probe_ctl *ctl, struct json *j, const struct judged *jd)
{
	json_open(j, "drivers", '[');
	for (size_t i = 0; i < fsc_judgement_verdicts(jd->j); i++) {
		const struct fsc_verdict *v = fsc_judgement_verdict(jd->j, i);

		json_open(j, NULL, '{');
		json_str(j, "id", fsc_verdict_driver(v)->id);
		json_str(j, "action", fsc_action_name(fsc_verdict_action(v)));
		json_str(j, "as", fsc_verdict_action(v) == FSC_REFUSES ? NULL : fsc_type_name(fsc_verdict_as(v)));
		json_str(j, "errno", errno_name(fsc_verdict_errno(v)));
		json_str(j, "why", fsc_verdict_why(v));
		json_str(j, "effect", fsc_verdict_effect(v)[0] ? fsc_verdict_effect(v) : NULL);
		json_str(j, "warning", fsc_verdict_warning(v)[0] ? fsc_verdict_warning(v) : NULL);
		json_bool(j, "current", fsc_verdict_driver(v)->current);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_open(j, "risks", '[');
	for (size_t i = 0; i < fsc_judgement_risks(jd->j); i++) {
		const struct fsc_risk *r = fsc_judgement_risk(jd->j, i);

		json_open(j, NULL, '{');
		json_str(j, "driver", fsc_risk_driver(r)->id);
		json_str(j, "kind", fsc_risk_kind_name(fsc_risk_kind_of(r)));
		json_str(j, "why", fsc_risk_why(r));
		json_bool(j, "current", fsc_risk_driver(r)->current);
		json_bool(j, "counted", counts(ctl, r));
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void report_json(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev,
			const struct fsc_partition *part, const struct fsc_probe *p,
			const struct judged *jd)
{
	struct json *j = &ctl->j;
	struct sink k = { ctl, json_s, json_n };
	struct finding_view fv = { 0 };

	json_open(j, NULL, '{');
	json_str(j, "path", path);
	probe_container_json(j, fsc_dev_container(dev), &ctl->ver);
	json_u64(j, "offset", fsc_dev_offset(dev));
	if (part)
		json_int(j, "partition", part->partno);
	else
		json_null(j, "partition");
	json_u64(j, "size", fsc_probe_dev_size(p));
	json_u64(j, "device_sector_size", fsc_probe_dev_sector_size(p));
	json_str(j, "type", fsc_type_name(fsc_probe_volume_type(p)));
	if (fsc_probe_backup_type(p) != FSC_TYPE_UNKNOWN)
		json_str(j, "sector0_type", fsc_type_name(fsc_probe_type(p)));
	json_str(j, "label", fsc_probe_label(p));
	json_str(j, "serial", fsc_probe_serial(p));
	json_open(j, "details", '{');
	details(&k, p);
	json_close(j, '}');
	finding_view_add(&fv, fsc_probe_findings(p), false);
	report_findings_json(j, &fv);
	finding_view_free(&fv);
	json_drivers(ctl, j, jd);
	json_bool(j, "risk", jd->counted > 0);
	json_close(j, '}');
}

int probe_report(struct probe_ctl *ctl, const char *path, struct fsc_dev *dev,
		 const struct fsc_partition *part, const struct fsc_probe *p)
{
	struct judged *jd = ctl->judged;
	struct row_ctx rc;
	char volume[4096 + 24];
	int code;

	if (!jd)
		jd = ctl->judged = calloc(1, sizeof(*jd));
	if (!jd || judge_all(ctl, p, jd) < 0) {
		errmsg(path, _("out of memory"));
		return PROBE_OPERROR;
	}
	snprintf(volume, sizeof(volume), part ? "%s@%llu" : "%s", path,
		 (unsigned long long)fsc_dev_offset(dev));
	rc = (struct row_ctx){ volume, p, NULL, jd->j, ctl->drivers_given };
	if (ctl->json)
		report_json(ctl, path, dev, part, p, jd);
	else if (ctl->table_mode)
		table_rows(ctl, &rc);
	if (!ctl->json && !ctl->table_mode && !ctl->container_shown)
		probe_container_text(path, fsc_dev_container(dev), &ctl->ver);
	ctl->container_shown = true;
	if (!ctl->json && !ctl->table_mode)
		report_text(ctl, &rc, path, part, p, jd);
	ctl->last_type = fsc_probe_type(p);
	code = jd->counted ? PROBE_RISK :
	       (fsc_probe_volume_type(p) == FSC_TYPE_EXFAT || fsc_type_is_fat(fsc_probe_volume_type(p))) ? PROBE_OK :
	       PROBE_NOTFS;
	return code;
}
