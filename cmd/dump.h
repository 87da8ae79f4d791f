/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump.h - fatscope dump's state and sections (dump.c, dump_out.c). */
#ifndef FSC_DUMP_H
#define FSC_DUMP_H

#include "common.h"
#include "json.h"

enum { DUMP_BOOT = 1, DUMP_SUMMARY = 2, DUMP_TREE = 4, DUMP_EXTENTS = 8, DUMP_SECTOR = 16, DUMP_OWNER = 32 };

struct dump_ctl {
	unsigned what;
	bool json, longlist, deleted;
	const char *path;		/* --path */
	uint32_t cluster;		/* --cluster */
	uint64_t sector;		/* --sector */
	uint32_t owner;			/* --owner */
	struct vol_select sel;
	/* the volume being dumped */
	const char *image;
	struct fsc_dev *dev;
	struct fsc_probe *p;
	struct fsc_probe *main_p;	/* sector 0 destroyed: the volume's own probe (p is the backup's view) */
	uint64_t offset;		/* of the volume in the device or image */
	struct json j;
};

/* Print the sections asked for; returns the exit code. */
int dump_volume(struct dump_ctl *ctl);
/* dump_owner.c: --owner, who owns a cluster; 0 or DUMP_OPERROR. */
int section_owner(struct dump_ctl *ctl);

#endif
