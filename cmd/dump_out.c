// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dump_out.c - the sections of fatscope dump, each as text and JSON.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>

#include "dump.h"
#include "entry.h"
#include "fit.h"
#include "report.h"

static uint32_t volume_sector_size(struct dump_ctl *ctl)
{
	struct fsc_geometry g = FSC_GEOMETRY_INIT;

	fsc_volume_geometry(ctl->dev, ctl->p, &g);	/* sets sector_size even when it fails */
	return g.sector_size;
}

/* The problem IDs of the findings about field name, comma-separated. */
static void field_problems(const struct fsc_probe *p, const char *name, char *buf, size_t len)
{
	const struct fsc_findings *fs = fsc_probe_findings(p);
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < fsc_findings_count(fs) && o + 2 < len; i++)
		if (strcmp(fsc_finding_field(fsc_findings_at(fs, i)), name) == 0)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "",
					      fsc_problem_info(fsc_finding_id(fsc_findings_at(fs, i)))->name);
}

static struct libscols_table *table(const char *const *cols, size_t n)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	for (size_t i = 0; i < n; i++)
		scols_table_new_column(tb, cols[i], 0.1, 0);
	return tb;
}

static void print_table(struct libscols_table *tb)
{
	if (tb) {
		scols_print_table(tb);
		scols_unref_table(tb);
	}
}

/* One field table over the bytes s (a structure of the volume). */
static void fields_json(struct dump_ctl *ctl, const struct fsc_field *f, size_t n, const uint8_t *s,
			uint64_t base, const char *key)
{
	struct json *j = &ctl->j;
	char buf[160], probs[160];

	json_open(j, key, '{');
	json_u64(j, "byte", base);
	json_open(j, "fields", '[');
	for (size_t i = 0; i < n; i++) {
		fsc_field_value(&f[i], s, buf, sizeof(buf));
		field_problems(ctl->p, f[i].name, probs, sizeof(probs));
		json_open(j, NULL, '{');
		json_str(j, "name", f[i].name);
		json_u64(j, "offset", f[i].offset);
		json_u64(j, "size", f[i].width);
		json_str(j, "value", buf);
		if (f[i].fmt == FSC_FMT_UINT || f[i].fmt == FSC_FMT_HEX)
			json_u64(j, "number", fsc_field_uint(&f[i], s));
		json_str(j, "meaning", f[i].meaning);
		json_str(j, "problems", probs[0] ? probs : NULL);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

static void fields(struct dump_ctl *ctl, enum fsc_table t, const uint8_t *s, uint64_t base, const char *title)
{
	static const char *const cols[] = { "OFFSET", "SIZE", "FIELD", "VALUE", "PROBLEMS", "MEANING" };
	size_t n;
	const struct fsc_field *f = fsc_field_table(t, &n);
	struct libscols_table *tb;
	char buf[160], off[24], size[12], probs[160];

	if (ctl->json) {
		fields_json(ctl, f, n, s, base, title);
		return;
	}
	printf(_("%s (byte %" PRIu64 "):\n"), title, base);
	tb = table(cols, 6);
	/* The values come escaped already (\xhh, backslash too): libsmartcols must not escape them again. */
	if (tb)
		scols_table_enable_noencoding(tb, 1);
	for (size_t i = 0; tb && i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		snprintf(off, sizeof(off), "%u", f[i].offset);
		snprintf(size, sizeof(size), "%u", f[i].width);
		fsc_field_value(&f[i], s, buf, sizeof(buf));
		field_problems(ctl->p, f[i].name, probs, sizeof(probs));
		scols_line_set_data(ln, 0, off);
		scols_line_set_data(ln, 1, size);
		scols_line_set_data(ln, 2, f[i].name);
		scols_line_set_data(ln, 3, buf);
		scols_line_set_data(ln, 4, probs);
		scols_line_set_data(ln, 5, f[i].meaning);
	}
	print_table(tb);
	putchar('\n');
}

static void boot_exfat(struct dump_ctl *ctl)
{
	const struct fsc_probe *p = ctl->p;
	const struct fsc_exfat_boot *ex = fsc_probe_exfat(p);
	const struct fsc_findings *fs = fsc_probe_findings(p);
	bool backup_told = fsc_findings_has(fs, FSC_PR_EXFAT_BACKUP_DIFFERS) ||
			   fsc_findings_has(fs, FSC_PR_EXFAT_BACKUP_CHECKSUM) ||
			   fsc_findings_has(fs, FSC_PR_EXFAT_BACKUP_UNREADABLE);

	fields(ctl, FSC_TABLE_EXFAT_BOOT, fsc_probe_sector0(p, NULL), 0,
	       ctl->json ? "exfat_boot_sector" : _("exFAT boot sector"));
	if (ctl->json) {
		if (ex->checksum_known) {
			json_u64(&ctl->j, "boot_checksum", ex->checksum_stored);
			json_u64(&ctl->j, "boot_checksum_computed", ex->checksum_computed);
		}
		json_str(&ctl->j, "backup", backup_told ? "differs" : ex->checksum_known ? "identical" : "not read");
		return;
	}
	if (ex->checksum_known)
		printf(_("boot checksum: stored 0x%08x, computed 0x%08x: %s\n"), ex->checksum_stored,
		       ex->checksum_computed, ex->checksum_stored == ex->checksum_computed ? _("match") : _("MISMATCH"));
	printf(_("backup boot region (sectors 12-23): %s\n"), backup_told ? _("see the findings") :
	       ex->checksum_known ? _("identical apart from VolumeFlags and PercentInUse") : _("not read"));
}

static void boot_fat(struct dump_ctl *ctl)
{
	const struct fsc_probe *p = ctl->p;
	const struct fsc_fat_bpb *b = fsc_probe_fat(p);
	const uint8_t *fsi;

	fields(ctl, FSC_TABLE_FAT_BPB, fsc_probe_sector0(p, NULL), 0, ctl->json ? "bpb" : "FAT BPB");
	fields(ctl, b->bpb32 ? FSC_TABLE_FAT32_EBPB : FSC_TABLE_FAT16_EBPB, fsc_probe_sector0(p, NULL), 0,
	       ctl->json ? "extended_bpb" : b->bpb32 ? _("FAT32 extended BPB") : _("FAT12/16 extended BPB"));
	if (b->bpb32 && b->fsinfo_sector && b->fsinfo_sector < b->reserved &&
	    fsc_dev_map(ctl->dev, (uint64_t)b->fsinfo_sector * b->bytes_per_sector, 512, &fsi) == 0)
		fields(ctl, FSC_TABLE_FSINFO, fsi, (uint64_t)b->fsinfo_sector * b->bytes_per_sector,
		       ctl->json ? "fsinfo" : "FSInfo");
	if (!ctl->json && b->bpb32 && b->backup_sector && b->backup_sector < b->reserved)
		printf(_("backup boot sector (sector %u): %s\n"), b->backup_sector,
		       fsc_findings_has(fsc_probe_findings(p), FSC_PR_FAT32_BACKUP_DIFFERS) ?
		       _("differs (see the findings)") : _("identical apart from the state byte"));
	if (!ctl->json)
		printf(_("FAT type: %s by the cluster count (%" PRIu64 "), %s by the BPB\n"),
		       fsc_type_name(b->spec_type), b->clusters, fsc_type_name(b->bpb_type));
}

static void section_boot(struct dump_ctl *ctl)
{
	struct finding_view fv = { 0 };

	if (fsc_probe_type(ctl->p) == FSC_TYPE_EXFAT)
		boot_exfat(ctl);
	else
		boot_fat(ctl);
	/* Read through the backup: the destroyed sector 0's finding first, then the backup's. */
	if (ctl->main_p)
		finding_view_add(&fv, fsc_probe_findings(ctl->main_p), false);
	finding_view_add(&fv, fsc_probe_findings(ctl->p), false);
	if (ctl->json)
		report_findings_json(&ctl->j, &fv);
	else
		report_findings_text(&fv, "");
	finding_view_free(&fv);
	if (!ctl->json)
		putchar('\n');
}

static void section_summary(struct dump_ctl *ctl)
{
	struct fsc_alloc_summary s = FSC_ALLOC_SUMMARY_INIT;
	int r = fsc_alloc_summary(ctl->dev, ctl->p, &s);
	struct json *j = &ctl->j;

	if (r < 0) {
		if (!ctl->json)
			printf(_("allocation: not summarised (%s)\n\n"), strerror(-r));
		return;
	}
	if (ctl->json) {
		json_open(j, "allocation", '{');
		json_u64(j, "cluster_bytes", s.cluster_bytes);
		json_u64(j, "clusters", s.clusters);
		json_u64(j, "used", s.used);
		json_u64(j, "free", s.free);
		json_u64(j, "bad", s.bad);
		json_u64(j, "free_runs", s.free_runs);
		json_u64(j, "largest_free_run", s.largest_free_run);
		json_close(j, '}');
		return;
	}
	printf(_("allocation: %" PRIu64 " clusters of %u bytes: %" PRIu64 " used, %" PRIu64 " free, %" PRIu64
		 " bad; free space in %" PRIu64 " run%s, the largest %" PRIu64 " clusters\n\n"), s.clusters,
	       s.cluster_bytes, s.used, s.free, s.bad, s.free_runs, s.free_runs == 1 ? "" : "s",
	       s.largest_free_run);
}

struct tree_ctx {
	struct dump_ctl *ctl;
	struct libscols_table *tb;
	struct libscols_line **dirs;	/* the line of each directory, by id */
	size_t ndirs;
	uint64_t entries, deleted;
	size_t name_cols;		/* the NAME column's width, tree art included */
};

/* The widest STATE (--deleted without --long) and the narrowest name shortened. */
#define STATE_COLS 19
#define NAME_MIN_COLS 8

static const char *const tree_cols_long[] = {
	"NAME", "ATTR", "SIZE", "CLUSTER", "FLAGS", "MODIFIED", "CREATED", "ENTRY",
};

static const char *recover_text(const struct fsc_dirent *d)
{
	static const char *const text[] = {
		"deleted", "deleted,intact", "deleted,partial", "deleted,overwritten", "deleted,unknown",
	};

	return (unsigned)d->recovery < sizeof(text) / sizeof(text[0]) ? text[d->recovery] : "deleted";
}

static int tree_entry(void *vctx, const struct fsc_dirent *d)
{
	struct tree_ctx *t = vctx;
	struct libscols_line *parent, *ln;
	char buf[4][64], name[1100];
	size_t need = d->id > d->parent_id ? d->id : d->parent_id;

	t->entries++;
	t->deleted += d->deleted;
	if (t->ctl->json) {
		entry_json(&t->ctl->j, d);
		return 0;
	}
	if (!grow_array((void **)&t->dirs, &t->ndirs, need + 1, sizeof(*t->dirs)))
		return -ENOMEM;
	parent = d->parent_id ? t->dirs[d->parent_id] : NULL;
	ln = scols_table_new_line(t->tb, parent);
	if (!ln)
		return -ENOMEM;
	if (d->id)
		t->dirs[d->id] = ln;
	/* The name shortened to fit its column (the tree art takes 2 columns a level), its suffix kept. */
	const char *suffix = d->label ? " (volume label)" : d->dir ? "/" : "";
	size_t art = d->depth > 1 ? 2 * ((size_t)d->depth - 1) : 0, room = strlen(suffix) + art + NAME_MIN_COLS;
	char fitted[1100];

	snprintf(name, sizeof(name), "%s%s",
		 fit_cell(d->name, (t->name_cols > room ? t->name_cols : room) - art - strlen(suffix), fitted,
			  sizeof(fitted)), suffix);
	scols_line_set_data(ln, 0, name);
	if (!t->ctl->longlist) {
		if (t->ctl->deleted && d->deleted)
			scols_line_set_data(ln, 1, recover_text(d));
		return 0;
	}
	entry_attr(d, buf[0], sizeof(buf[0]));
	scols_line_set_data(ln, 1, d->label ? "" : buf[0]);
	snprintf(buf[1], sizeof(buf[1]), "%" PRIu64, d->size);
	scols_line_set_data(ln, 2, d->label ? "" : buf[1]);
	snprintf(buf[2], sizeof(buf[2]), "%u", d->first_cluster);
	scols_line_set_data(ln, 3, d->label ? "" : buf[2]);
	snprintf(buf[3], sizeof(buf[3]), "%s%s%s", d->nofat ? "nofatchain" : "",
		 d->nofat && d->deleted ? "," : "", d->deleted ? recover_text(d) : "");
	scols_line_set_data(ln, 4, buf[3]);
	entry_timestamp(d->mtime, d->mtime_10ms, d->mtime_utc, buf[0], sizeof(buf[0]));
	scols_line_set_data(ln, 5, buf[0]);
	entry_timestamp(d->ctime, d->ctime_10ms, d->ctime_utc, buf[1], sizeof(buf[1]));
	scols_line_set_data(ln, 6, buf[1]);
	snprintf(buf[2], sizeof(buf[2]), "%u:%" PRIu64, d->entry_cluster, d->entry_offset);
	scols_line_set_data(ln, 7, buf[2]);
	return 0;
}

static int section_tree(struct dump_ctl *ctl)
{
	static const char *const short_cols[] = { "NAME", "STATE" };
	struct tree_ctx t = { ctl, NULL, NULL, 0, 0, 0, fit_columns() };
	size_t ncols = ctl->longlist ? 8 : ctl->deleted ? 2 : 1;
	const char *const *cols = ctl->longlist ? tree_cols_long : short_cols;
	int r;

	/*
	 * Rows fit the width: the NAME column is what the other columns leave
	 * (STATE: at most 19); the long form's seven other columns (two
	 * timestamps of 29) cannot fit 80 columns, so its NAME gets half.
	 */
	if (ctl->longlist)
		t.name_cols /= 2;
	else if (ctl->deleted)
		t.name_cols = t.name_cols > STATE_COLS + 1 ? t.name_cols - STATE_COLS - 1 : 0;
	if (ctl->json) {
		json_open(&ctl->j, "tree", '[');
	} else {
		t.tb = scols_new_table();
		if (!t.tb)
			return -ENOMEM;
		for (size_t i = 0; i < ncols; i++)
			scols_table_new_column(t.tb, cols[i], i ? 0.1 : 0.4, i ? 0 : SCOLS_FL_TREE);
	}
	r = fsc_walk_tree(ctl->dev, ctl->p, (ctl->deleted ? FSC_WALK_DELETED : 0) | FSC_WALK_LOOPS, tree_entry, &t);
	if (ctl->json) {
		json_close(&ctl->j, ']');
	} else {
		scols_print_table(t.tb);
		scols_unref_table(t.tb);
		printf(_("%" PRIu64 " entries%s"), t.entries, ctl->deleted ? "" : "\n\n");
		if (ctl->deleted)
			printf(_(", %" PRIu64 " deleted\n\n"), t.deleted);
	}
	free(t.dirs);
	return r;
}

struct ext_ctx {
	struct dump_ctl *ctl;
	struct libscols_table *tb;
	uint64_t runs;
	uint64_t data_byte, cb;		/* cluster 2 and the cluster size */
};

static void extent(void *vctx, uint32_t first, uint32_t count)
{
	struct ext_ctx *e = vctx;
	uint64_t byte = e->data_byte + (uint64_t)(first - 2) * e->cb;
	char b[3][32];

	e->runs++;
	if (e->ctl->json) {
		json_open(&e->ctl->j, NULL, '{');
		json_u64(&e->ctl->j, "first", first);
		json_u64(&e->ctl->j, "count", count);
		json_u64(&e->ctl->j, "byte", byte);
		json_close(&e->ctl->j, '}');
		return;
	}
	snprintf(b[0], sizeof(b[0]), "%u", first);
	snprintf(b[1], sizeof(b[1]), "%u", count);
	snprintf(b[2], sizeof(b[2]), "%" PRIu64, byte);
	struct libscols_line *ln = scols_table_new_line(e->tb, NULL);

	for (int i = 0; ln && i < 3; i++)
		scols_line_set_data(ln, (size_t)i, b[i]);
}

/* fsc_lookup's error for --path, said once (and in the JSON object): DUMP_OPERROR; 0 for none. */
static int lookup_error(struct dump_ctl *ctl, int r)
{
	const char *what = lookup_text(r);

	if (r == 0)
		return 0;
	errmsg(ctl->image, "%s: %s", ctl->path, _(what));
	if (ctl->json)	/* the object says so too: nothing in it may look like success */
		json_str(&ctl->j, "error", what);
	return DUMP_OPERROR;
}

static int section_extents(struct dump_ctl *ctl)
{
	static const char *const cols[] = { "FIRST", "CLUSTERS", "BYTE" };
	const struct fsc_probe *p = ctl->p;
	struct ext_ctx e = { ctl, NULL, 0, 0, 0 };
	struct fsc_dirent f = FSC_DIRENT_INIT;
	struct fsc_geometry g = FSC_GEOMETRY_INIT;
	struct fsc_chain_stop stop = FSC_CHAIN_STOP_INIT;
	char want[4400];
	uint32_t first = ctl->cluster;
	uint64_t size = 0;
	bool nofat = false;
	int64_t n;

	if (fsc_volume_geometry(ctl->dev, p, &g) == 0) {
		e.data_byte = g.data_offset;
		e.cb = g.cluster_size;
	}
	if (ctl->path) {
		if ((n = lookup_error(ctl, fsc_lookup(ctl->dev, ctl->p, ctl->path, 0, &f, want, sizeof(want)))))
			return (int)n;
		first = f.first_cluster;
		size = f.dir && fsc_probe_type(ctl->p) != FSC_TYPE_EXFAT ? 0 : f.size;
		nofat = f.nofat;
		if (!first) {
			if (!ctl->json) {
				report_escaped(stdout, f.path);
				printf(": %s\n\n", f.depth ? _("no clusters (empty)") :
				       _("the fixed root directory area, not in clusters"));
			}
			return 0;
		}
	}
	if (ctl->json) {
		json_open(&ctl->j, "extents", '{');
		json_str(&ctl->j, "path", ctl->path ? f.path : NULL);
		json_u64(&ctl->j, "first_cluster", first);
		json_bool(&ctl->j, "no_fat_chain", nofat);
		json_open(&ctl->j, "runs", '[');
	} else {
		if (ctl->path)
			report_escaped(stdout, f.path);
		printf(_("%s: first cluster %u, %s\n"), ctl->path ? "" : _("chain from cluster"),
		       first, nofat ? _("contiguous (NoFatChain)") : _("FAT chain"));
		e.tb = table(cols, 3);
	}
	n = fsc_extents(ctl->dev, ctl->p, first, size, nofat, extent, &e, &stop);
	if (ctl->json) {
		json_close(&ctl->j, ']');
		json_int(&ctl->j, "clusters", n);
		json_str(&ctl->j, "broken", stop.why[0] ? stop.why : NULL);
		if (stop.end == FSC_CHAIN_LOOP) {
			json_open(&ctl->j, "loop", '{');
			json_u64(&ctl->j, "from", stop.from);
			json_u64(&ctl->j, "to", stop.to);
			json_u64(&ctl->j, "to_index", stop.to_index);
			json_close(&ctl->j, '}');
		} else {
			json_null(&ctl->j, "loop");
		}
		json_close(&ctl->j, '}');
		if (stop.end != FSC_CHAIN_WHOLE)	/* the object says it too: nothing may look like success */
			json_str(&ctl->j, "error", stop.end == FSC_CHAIN_LOOP ? "loop" : "broken chain");
	} else {
		print_table(e.tb);
		printf(_("%" PRId64 " cluster%s in %" PRIu64 " run%s%s%s\n"), n, n == 1 ? "" : "s", e.runs,
		       e.runs == 1 ? "" : "s",
		       stop.end == FSC_CHAIN_BROKEN ? _("; stopped: ") : "", stop.end == FSC_CHAIN_BROKEN ? stop.why : "");
		if (stop.end == FSC_CHAIN_LOOP)
			printf(_("loop: cluster %u links back to cluster %u, number %" PRIu64 " of the chain; "
				 "each cluster is listed once\n"), stop.from, stop.to, stop.to_index + 1);
		putchar('\n');
	}
	if (n < 0)
		return DUMP_OPERROR;
	return stop.end == FSC_CHAIN_WHOLE ? 0 : DUMP_DAMAGED;
}

static int section_sector(struct dump_ctl *ctl)
{
	uint32_t ss = volume_sector_size(ctl);
	const uint8_t *s;
	char hex[8192 * 4];
	size_t o = 0;

	if (ctl->sector > (fsc_dev_size(ctl->dev) / ss) || fsc_dev_map(ctl->dev, ctl->sector * ss, ss, &s) < 0) {
		errmsg(ctl->image, _("sector %" PRIu64 " is beyond the end of the volume"), ctl->sector);
		return DUMP_OPERROR;
	}
	for (uint32_t i = 0; i < ss; i += 16) {
		o += (size_t)snprintf(hex + o, sizeof(hex) - o, "%08" PRIx64 " ", ctl->sector * ss + i);
		for (uint32_t k = 0; k < 16; k++)
			o += (size_t)snprintf(hex + o, sizeof(hex) - o, "%s%02x", k == 8 ? "  " : " ", s[i + k]);
		o += (size_t)snprintf(hex + o, sizeof(hex) - o, "  |");
		for (uint32_t k = 0; k < 16; k++)
			hex[o++] = (s[i + k] >= 0x20 && s[i + k] < 0x7F) ? (char)s[i + k] : '.';
		o += (size_t)snprintf(hex + o, sizeof(hex) - o, "|\n");
	}
	if (ctl->json) {
		json_open(&ctl->j, "sector", '{');
		json_u64(&ctl->j, "number", ctl->sector);
		json_u64(&ctl->j, "size", ss);
		json_str(&ctl->j, "hexdump", hex);
		json_close(&ctl->j, '}');
	} else {
		printf(_("sector %" PRIu64 " (%u bytes at byte %" PRIu64 "):\n%s\n"), ctl->sector, ss, ctl->sector * ss, hex);
	}
	return 0;
}

int dump_volume(struct dump_ctl *ctl)
{
	enum fsc_type type = fsc_probe_type(ctl->p);
	int code = 0, r;

	if (ctl->json) {
		json_init(&ctl->j, stdout);
		json_open(&ctl->j, NULL, '{');
		json_str(&ctl->j, "path", ctl->image);
		json_u64(&ctl->j, "offset", ctl->offset);
		json_str(&ctl->j, "type", fsc_type_name(type));
		if (ctl->main_p)
			json_str(&ctl->j, "read_through", type == FSC_TYPE_EXFAT ? "backup boot region" : "backup boot sector");
	} else {
		printf(_("%s: %s, %" PRIu64 " bytes\n"), ctl->image, fsc_type_name(type), fsc_dev_size(ctl->dev));
		if (ctl->main_p)
			printf(type == FSC_TYPE_EXFAT ? _("sector 0 is destroyed (%s): read through the backup boot region (sectors 12-23)\n")
						      : _("sector 0 is destroyed (%s): read through the backup boot sector (sector 6)\n"),
			       fsc_type_name(fsc_probe_type(ctl->main_p)));
		putchar('\n');
	}
	if (ctl->what & DUMP_BOOT && type != FSC_TYPE_UNKNOWN && (type == FSC_TYPE_EXFAT || fsc_type_is_fat(type))) {
		if (ctl->json)
			json_open(&ctl->j, "boot", '{');
		fflush(stdout);
		section_boot(ctl);
		if (ctl->json)
			json_close(&ctl->j, '}');
	}
	if (ctl->what & DUMP_SUMMARY && type != FSC_TYPE_UNKNOWN)
		section_summary(ctl);
	if (ctl->what & DUMP_TREE) {
		r = section_tree(ctl);
		if (r == -ELOOP) {	/* (listed all the same, each entry once) */
			if (ctl->json)	/* (the object says it) */
				json_str(&ctl->j, "tree_error", "directory loop");
			else if (fflush(stdout) == 0)
				errmsg(ctl->image, _("a directory's chain loops or shares clusters with another directory: "
						     "each entry is listed once (fatscope fsck says more)"));
			code = DUMP_DAMAGED;
		} else if (r < 0) {
			errmsg(ctl->image, _("cannot read the directory tree: %s"), strerror(-r));
			code = DUMP_OPERROR;
		}
	}
	if (ctl->what & DUMP_EXTENTS && (!code || code == DUMP_DAMAGED))
		code = section_extents(ctl);
	/* A damaged chain (DUMP_DAMAGED) does not keep the other sections from being shown. */
	if (ctl->what & DUMP_OWNER && (!code || code == DUMP_DAMAGED) && (r = section_owner(ctl)))
		code = r;
	if (ctl->what & DUMP_SECTOR && (!code || code == DUMP_DAMAGED) && (r = section_sector(ctl)))
		code = r;
	if (ctl->json)
		json_close(&ctl->j, '}');
	return code;
}
