// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dump_owner.c - fatscope dump --owner CLUSTER: who owns a cluster
 * (libexfat's fsc_cluster_owner) and which directory entry points to the
 * head of its allocation, as text and JSON.  Names are escaped.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "report.h"

/* What owns it, as a phrase (FILE, DIR, DELETED print their path after it). */
static const char *owner_text(const struct fsc_owner *o, enum fsc_type type)
{
	switch (o->kind) {
	case FSC_OWNER_RESERVED:
		return type == FSC_TYPE_EXFAT ? "inside the boot region (the heap overlaps it)" :
		       "inside the reserved sectors (the data area overlaps them)";
	case FSC_OWNER_FAT: return "inside the FAT area (the data area overlaps it)";
	case FSC_OWNER_ROOT_AREA: return "inside the fixed root directory area (the data area overlaps it)";
	case FSC_OWNER_BITMAP: return "the allocation bitmap";
	case FSC_OWNER_UPCASE: return "the up-case table";
	case FSC_OWNER_ROOT: return "the root directory";
	case FSC_OWNER_FILE: return "file";
	case FSC_OWNER_DIR: return "directory";
	case FSC_OWNER_DELETED: return "free; it held data of the deleted entry";
	case FSC_OWNER_FREE: return "free (no live or deleted entry found that had it)";
	case FSC_OWNER_BAD: return "marked bad in the FAT";
	case FSC_OWNER_LOST: return "lost: allocated, but no file, directory or structure owns it";
	default: return "not known";
	}
}

/* Where the allocation's head is named: the entry, or the structure that points to it. */
static void owner_entry_text(const struct fsc_owner *o, enum fsc_type type)
{
	switch (o->kind) {
	case FSC_OWNER_BITMAP:
	case FSC_OWNER_UPCASE:
		printf("entry: the %s entry of the root directory\n",
		       o->kind == FSC_OWNER_BITMAP ? "allocation bitmap (0x81)" : "up-case table (0x82)");
		return;
	case FSC_OWNER_ROOT:
		printf("entry: the boot sector's %s\n",
		       type == FSC_TYPE_EXFAT ? "FirstClusterOfRootDirectory" : "BPB_RootClus");
		return;
	case FSC_OWNER_FILE:
	case FSC_OWNER_DIR:
	case FSC_OWNER_DELETED:
		break;
	default:
		return;
	}
	fputs("entry: in ", stdout);
	report_escaped(stdout, o->dir);
	if (o->entry_index >= 0)
		printf(", entry %" PRId64, o->entry_index);
	printf(", byte %" PRIu64, o->entry_byte);
	if (o->entry_cluster)
		printf(" (cluster %u)\n", o->entry_cluster);
	else
		fputs(" (the fixed root directory area)\n", stdout);
}

static void owner_json(struct dump_ctl *ctl, const struct fsc_owner *o)
{
	struct json *j = &ctl->j;
	bool entry = o->kind == FSC_OWNER_FILE || o->kind == FSC_OWNER_DIR || o->kind == FSC_OWNER_DELETED;
	bool chain = entry || o->kind == FSC_OWNER_BITMAP || o->kind == FSC_OWNER_UPCASE || o->kind == FSC_OWNER_ROOT;

	json_str(j, "kind", fsc_owner_kind_name(o->kind));
	json_bool(j, "allocated", o->allocated);
	if (chain) {
		json_u64(j, "head", o->head);
		json_u64(j, "index", o->index);
	}
	if (!entry)
		return;
	json_str(j, "path", o->path);
	json_str(j, "directory", o->dir);
	json_u64(j, "entry_cluster", o->entry_cluster);
	json_u64(j, "entry_byte", o->entry_byte);
	if (o->entry_index >= 0)
		json_int(j, "entry_index", o->entry_index);
	else
		json_null(j, "entry_index");
	if (o->kind == FSC_OWNER_DELETED)
		json_str(j, "recovery", fsc_recovery_name(o->recovery));
}

static void owner_out(struct dump_ctl *ctl, const struct fsc_owner *o)
{
	enum fsc_type type = fsc_probe_type(ctl->p);

	printf("cluster %u (byte %" PRIu64 "): %s", o->cluster, o->byte, owner_text(o, type));
	if (o->kind == FSC_OWNER_FILE || o->kind == FSC_OWNER_DIR || o->kind == FSC_OWNER_DELETED) {
		putchar(' ');
		report_escaped(stdout, o->path);
		if (o->kind == FSC_OWNER_DELETED)
			printf(" (%s)", fsc_recovery_name(o->recovery));
	}
	if (o->kind >= FSC_OWNER_BITMAP && o->kind <= FSC_OWNER_DELETED)
		printf(", cluster %" PRIu64 " of its allocation (head %u)", o->index, o->head);
	putchar('\n');
	owner_entry_text(o, type);
	if (type == FSC_TYPE_EXFAT && !o->bitmap_known)
		puts("note: the allocation bitmap cannot be read: free and allocated are not known");
	putchar('\n');
}

int section_owner(struct dump_ctl *ctl)
{
	struct fsc_owner o = FSC_OWNER_INIT;
	char buf[8400];
	int r = fsc_cluster_owner(ctl->dev, ctl->p, ctl->owner, &o, buf, sizeof(buf));

	if (r == -ERANGE) {
		errmsg(ctl->image, "cluster %u is not in the data area (clusters 2 to %" PRIu64 ")", ctl->owner,
		       (uint64_t)o.clusters + 1);
	} else if (r < 0) {
		errmsg(ctl->image, "cannot tell who owns cluster %u: %s", ctl->owner, strerror(-r));
	}
	if (ctl->json) {
		json_open(&ctl->j, "owner", '{');
		json_u64(&ctl->j, "cluster", ctl->owner);
		if (r < 0) {
			json_str(&ctl->j, "error", r == -ERANGE ? "not a cluster of the data area" : strerror(-r));
		} else {
			json_u64(&ctl->j, "byte", o.byte);
			owner_json(ctl, &o);
		}
		json_close(&ctl->j, '}');
	} else if (r == 0) {
		owner_out(ctl, &o);
	}
	return r < 0 ? DUMP_OPERROR : 0;
}
