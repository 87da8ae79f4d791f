// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan.c - fatscope scan: exFAT and FAT volumes at any offset of a disk
 * or image whose partition table is gone or wrong (fsc_scan), beside the
 * partitions the table declares.  Argument parsing and printing only.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>

#include "common.h"
#include "json.h"
#include "report.h"

enum { COL_OFFSET, COL_SECTOR, COL_SIZE, COL_TYPE, COL_LABEL, COL_FOUND, COL_CONFIDENCE, COL_PARTITION,
	COL_USE, COL_COUNT };

static const struct column_def columns[COL_COUNT] = {
	[COL_OFFSET] = { "OFFSET", 0.1, SCOLS_FL_RIGHT }, [COL_SECTOR] = { "SECTOR", 0.1, SCOLS_FL_RIGHT },
	[COL_SIZE] = { "SIZE", 0.1, SCOLS_FL_RIGHT }, [COL_TYPE] = { "TYPE", 0.05, 0 },
	[COL_LABEL] = { "LABEL", 0.1, 0 }, [COL_FOUND] = { "FOUND", 0.05, 0 },
	[COL_CONFIDENCE] = { "CONFIDENCE", 0.05, 0 }, [COL_PARTITION] = { "PARTITION", 0.05, 0 },
	[COL_USE] = { "USE", 0.2, 0 },
};

struct scan_ctl {
	struct vol_select sel;
	bool json, raw, noheadings;
	int cols[COL_COUNT];
	size_t ncols;
	uint64_t base;			/* the window's start: offsets are printed from the file's start */
	uint32_t sector;		/* the device's logical sector size */
};

static void scan_help(void)
{
	fputs(_("Usage:\n"
		" fatscope scan [options] DEVICE|IMAGE\n\n"
		"Find exFAT and FAT12/16/32 volumes at any sector offset, also where the\n"
		"partition table is gone or wrong, or a main boot sector is destroyed.\n\n"
		"Options:\n"
		" -J, --json              JSON output\n"
		" -o, --output COLUMNS    print only the table of volumes, with these columns\n"
		" -n, --noheadings        print only the table of volumes, without headings\n"
		" -r, --raw               print only the table of volumes, raw\n"), stdout);
	common_options_help(24);
	/* The names of -o: never translated. */
	fputs("\nColumns: OFFSET SECTOR SIZE TYPE LABEL FOUND CONFIDENCE PARTITION USE\n", stdout);
	fputs(_("\nExit status: 0 a volume found, 2 none found, 8 operational error, 16 usage error.\n"
		"\nSee fatscope-scan(8).\n"), stdout);
}

static const char *found_name(unsigned how)
{
	return how == (FSC_SCAN_MAIN | FSC_SCAN_BACKUP) ? "main+backup" : how == FSC_SCAN_BACKUP ? "backup" : "main";
}

static const char *cell(const struct scan_ctl *ctl, const struct fsc_scan_hit *h, int col, char *buf, size_t len)
{
	uint64_t off = ctl->base + h->offset;

	switch (col) {
	case COL_OFFSET: snprintf(buf, len, "%llu", (unsigned long long)off); break;
	case COL_SECTOR: snprintf(buf, len, "%llu", (unsigned long long)(off / ctl->sector)); break;
	case COL_SIZE: snprintf(buf, len, "%llu%s", (unsigned long long)h->size, h->truncated ? " (cut)" : ""); break;
	case COL_TYPE: return fsc_type_name(h->type);
	case COL_LABEL: return h->has_label ? h->label : "";	/* libsmartcols escapes it (once) */
	case COL_FOUND: return found_name(h->how);
	case COL_CONFIDENCE: return fsc_scan_confidence_name(h->confidence);
	case COL_PARTITION:
		if (!h->partno)
			return "-";
		snprintf(buf, len, "%d%s", h->partno, h->part_size_matches ? "" : " (size differs)");
		break;
	default: snprintf(buf, len, "--offset %llu", (unsigned long long)off); break;
	}
	return buf;
}

/* A cell of -r as libsmartcols' raw mode writes it: a blank or '\' as \xNN, the rest as report.c escapes it. */
static void raw_cell(const char *s)
{
	char piece[256], esc[1024];

	while (*s) {
		size_t n = strcspn(s, " \t\\");

		if (!n) {
			printf("\\x%02x", (unsigned char)*s++);
			continue;
		}
		snprintf(piece, sizeof(piece), "%.*s", (int)(n < sizeof(piece) - 1 ? n : sizeof(piece) - 1), s);
		fputs(report_escape_buf(esc, sizeof(esc), piece), stdout);
		s += n < sizeof(piece) - 1 ? n : sizeof(piece) - 1;
	}
}

/*
 * -r: a line a volume, its cells separated by a space, as libsmartcols'
 * raw mode writes them, but USE as it is: "--offset N" is ours, made to
 * be pasted on a command line (libsmartcols would write --offset\x20N).
 */
static void print_raw(const struct scan_ctl *ctl, const int *cols, size_t ncols, const struct fsc_scan_hit *hits,
		      size_t n)
{
	char buf[256];

	for (size_t c = 0; !ctl->noheadings && c < ncols; c++)
		printf("%s%s", c ? " " : "", columns[cols[c]].name);
	if (!ctl->noheadings)
		putchar('\n');
	for (size_t i = 0; i < n; i++) {
		for (size_t c = 0; c < ncols; c++) {
			const char *v = cell(ctl, fsc_scan_hit_at(hits, i), cols[c], buf, sizeof(buf));

			fputs(c ? " " : "", stdout);
			if (cols[c] == COL_USE)
				fputs(v, stdout);
			else
				raw_cell(v);
		}
		putchar('\n');
	}
}

static int print_table(const struct scan_ctl *ctl, const struct fsc_scan_hit *hits, size_t n)
{
	static const int all[] = { COL_OFFSET, COL_SECTOR, COL_SIZE, COL_TYPE, COL_LABEL, COL_FOUND,
				   COL_CONFIDENCE, COL_PARTITION, COL_USE };
	const int *cols = ctl->ncols ? ctl->cols : all;
	size_t ncols = ctl->ncols ? ctl->ncols : sizeof(all) / sizeof(all[0]);
	struct libscols_table *tb;
	char buf[256];

	if (ctl->raw) {
		print_raw(ctl, cols, ncols, hits, n);
		return 0;
	}
	if (!(tb = scols_new_table()))
		return -1;
	scols_table_enable_noheadings(tb, ctl->noheadings);
	for (size_t c = 0; c < ncols; c++)
		if (!scols_table_new_column(tb, columns[cols[c]].name, columns[cols[c]].width, columns[cols[c]].flags))
			goto fail;
	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			goto fail;
		for (size_t c = 0; c < ncols; c++)
			scols_line_set_data(ln, c, cell(ctl, fsc_scan_hit_at(hits, i), cols[c], buf, sizeof(buf)));
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
fail:
	scols_unref_table(tb);
	return -1;
}

/* The volume found where partition p starts, or NULL. */
static const struct fsc_scan_hit *at_partition(const struct fsc_partition *p, const struct fsc_scan_hit *hits,
					       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fsc_scan_hit_at(hits, i)->partno == p->partno)
			return fsc_scan_hit_at(hits, i);
	return NULL;
}

static void print_text(const struct scan_ctl *ctl, const struct fsc_scan_hit *hits, size_t n,
		       const struct fsc_partition *parts, int np, const struct fsc_scan_stats *st)
{
	char lab[64];

	if (n)
		print_table(ctl, hits, n);
	if (n)
		putchar('\n');
	printf(P_("%zu volume found; %llu bytes scanned: %llu read, %llu in holes, %llu inside volumes found\n",
		  "%zu volumes found; %llu bytes scanned: %llu read, %llu in holes, %llu inside volumes found\n", n),
	       n, (unsigned long long)st->bytes, (unsigned long long)st->read,
	       (unsigned long long)st->holes, (unsigned long long)st->inside);
	if (st->dropped)
		printf(_("%llu more volumes not listed\n"), (unsigned long long)st->dropped);
	if (np <= 0) {
		printf(_("partition table: none\n"));
		return;
	}
	printf(P_("partition table: %d partition\n", "partition table: %d partitions\n", np), np);
	for (int i = 0; i < np; i++) {
		const struct fsc_partition *pt = fsc_partition_at(parts, i);
		const struct fsc_scan_hit *h = at_partition(pt, hits, n);

		printf(_("  %d: offset %llu, size %llu, type %s: "), pt->partno,
		       (unsigned long long)(ctl->base + pt->offset), (unsigned long long)pt->size,
		       report_escape_buf(lab, sizeof(lab), pt->type));
		if (!h)
			printf(_("no volume found there\n"));
		else
			printf("%s%s\n", fsc_type_name(h->type), h->part_size_matches ? "" : _(", of another size"));
	}
}

static void json_hit(struct json *j, const struct scan_ctl *ctl, const struct fsc_scan_hit *h)
{
	char buf[64];

	json_open(j, NULL, '{');
	json_u64(j, "offset", ctl->base + h->offset);
	json_u64(j, "sector", (ctl->base + h->offset) / ctl->sector);
	json_u64(j, "size", h->size);
	json_bool(j, "truncated", h->truncated);
	json_str(j, "type", fsc_type_name(h->type));
	json_str(j, "label", h->has_label ? h->label : NULL);
	json_str(j, "serial", h->has_serial ? h->serial : NULL);
	json_u64(j, "sector_size", h->sector_size);
	json_str(j, "found", found_name(h->how));
	json_str(j, "confidence", fsc_scan_confidence_name(h->confidence));
	if (h->partno)
		json_int(j, "partition", h->partno);
	else
		json_null(j, "partition");
	json_bool(j, "partition_size_matches", h->partno && h->part_size_matches);
	json_str(j, "use", cell(ctl, h, COL_USE, buf, sizeof(buf)));
	json_close(j, '}');
}

static void print_json(const struct scan_ctl *ctl, const char *path, const struct fsc_scan_hit *hits, size_t n,
		       const struct fsc_partition *parts, int np, const struct fsc_scan_stats *st)
{
	struct json j;

	json_init(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "device", path);
	json_u64(&j, "offset", ctl->base);
	json_open(&j, "volumes", '[');
	for (size_t i = 0; i < n; i++)
		json_hit(&j, ctl, fsc_scan_hit_at(hits, i));
	json_close(&j, ']');
	json_open(&j, "partitions", '[');
	for (int i = 0; i < np; i++) {
		const struct fsc_partition *pt = fsc_partition_at(parts, i);
		const struct fsc_scan_hit *h = at_partition(pt, hits, n);

		json_open(&j, NULL, '{');
		json_int(&j, "partno", pt->partno);
		json_u64(&j, "offset", ctl->base + pt->offset);
		json_u64(&j, "size", pt->size);
		json_str(&j, "type", pt->type);
		json_str(&j, "volume", h ? fsc_type_name(h->type) : NULL);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_open(&j, "stats", '{');
	json_u64(&j, "bytes", st->bytes);
	json_u64(&j, "read", st->read);
	json_u64(&j, "holes", st->holes);
	json_u64(&j, "inside", st->inside);
	json_u64(&j, "candidates", st->candidates);
	json_u64(&j, "rejected", st->rejected);
	json_u64(&j, "dropped", st->dropped);
	json_close(&j, '}');
	json_close(&j, '}');
	fputc('\n', stdout);
}

static int parse_args(struct scan_ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' }, { "output", required_argument, NULL, 'o' },
		{ "noheadings", no_argument, NULL, 'n' }, { "raw", no_argument, NULL, 'r' }, COMMON_LONGOPTS,
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "Jo:nr" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'J': ctl->json = true; break;
		case 'n': ctl->noheadings = true; break;
		case 'r': ctl->raw = true; break;
		case 'o':
			if (parse_columns(optarg, columns, COL_COUNT, ctl->cols, &ctl->ncols) < 0)
				return usage_error(&scan_cmd, _("unknown column in '%s'"), optarg);
			break;
		default:
			if ((r = common_option(&scan_cmd, c, optarg, &ctl->sel)))
				return r;
		}
	}
	if ((r = check_operands(&scan_cmd, argc, 1, &ctl->sel)))
		return r;
	if (ctl->json && (ctl->ncols || ctl->raw || ctl->noheadings))
		return usage_error(&scan_cmd, _("--json has its own shape: not with --output, --raw or --noheadings"));
	return 0;
}

static int scan_path(struct scan_ctl *ctl, const char *path)
{
	struct volume v;
	struct fsc_scan_hit *hits;
	struct fsc_partition *parts = NULL;
	struct fsc_scan_stats st = FSC_SCAN_STATS_INIT;
	size_t n;
	uint64_t size;
	int r = volume_open(&scan_cmd, path, &ctl->sel, VOL_NO_PROBE, &v), np;

	if (r)
		return r;
	size = fsc_dev_size(v.dev);
	ctl->base = fsc_dev_offset(v.dev);
	ctl->sector = fsc_dev_sector_size(v.dev);
	r = fsc_scan(v.dev, &hits, &n, &st);
	np = r == 0 ? fsc_partitions(v.dev, &parts) : 0;
	volume_close(&v);
	if (r == -ENODATA) {
		errmsg(path, _("too small to hold a boot sector (%llu bytes)"), (unsigned long long)size);
		return SCAN_NOTFOUND;
	}
	if (r < 0) {
		errmsg(path, _("read error: %s"), strerror(-r));
		return SCAN_OPERROR;
	}
	if (ctl->json)
		print_json(ctl, path, hits, n, parts, np, &st);
	else if (ctl->ncols || ctl->raw || ctl->noheadings)
		print_table(ctl, hits, n);
	else
		print_text(ctl, hits, n, parts, np, &st);
	free(hits);
	free(parts);
	return n ? SCAN_OK : SCAN_NOTFOUND;
}

static int cmd_scan(int argc, char **argv)
{
	struct scan_ctl ctl = { 0 };
	int r = parse_args(&ctl, argc, argv);

	if (r)
		return r < 0 ? close_stdout_checked(SCAN_OK, SCAN_OPERROR) : r;
	return close_stdout_checked(scan_path(&ctl, argv[optind]), SCAN_OPERROR);
}

const struct cmd_desc scan_cmd = {
	.name = "scan", .summary = N_("find volumes at any offset of a disk, also without a partition table"),
	.run = cmd_scan, .help = scan_help,
	.usage = SCAN_USAGE, .operror = SCAN_OPERROR, .too_small = SCAN_NOTFOUND,
};
