/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsck.h - what the files of fatscope fsck share: its options as parsed
 * (fsck_args.c, under each name fsck(8) may run it by), and the files of
 * --lost-to (fsck_lost.c).
 */
#ifndef FSC_FSCK_H
#define FSC_FSCK_H

#include "common.h"

enum mode { MODE_CHECK, MODE_PREEN, MODE_YES, MODE_ASK };

/* The name fatscope runs under: its short options are those of the checker of that name. */
enum fsck_name {
	AS_FATSCOPE,			/* fatscope fsck */
	AS_EXFAT,			/* fsck.exfat: exfatprogs' -s, -b */
	AS_FAT,				/* fsck.fat, fsck.vfat, fsck.msdos: dosfstools' -V, -l, -f, -c, -w, -t */
};

struct fsck_ctl {
	enum fsck_name as;
	enum mode mode;
	bool mode_given;
	bool force, verbose, json, dry_run, free_lost, lost_given, recheck;
	bool save_lost;			/* fsck.exfat -s, fsck.fat -f: -p saves lost clusters too */
	bool list_paths;		/* fsck.fat -l */
	const char *undo;
	const char *lost_to;		/* --lost-to DIR */
	int progress_fd;		/* -1: none */
	struct vol_select sel;
	const char *explain;
	double budget;			/* --budget SECONDS (or FATSCOPE_FSCK_BUDGET); < 0: none */
	uint64_t deadline;		/* CLOCK_MONOTONIC ns the check must end by; 0: none */
};

void fsck_help(void);
/* The options of ctl->as's name: 0, CMD_DONE (--help, --version), or the usage error's exit code. */
int fsck_parse_args(const struct cmd_desc *d, struct fsck_ctl *ctl, int argc, char **argv);

/*
 * --lost-to DIR: where the lost chains go, each a new file FILEnnnn.CHK
 * with the next number no file there has (an existing file is never
 * overwritten).
 */
struct lost_dir {
	const char *path;
	int dirfd, fd;			/* -1: not open (dirfd: not made yet) */
	unsigned next;			/* the number tried next */
	char name[32];			/* the file being written */
	unsigned files;
	char err[300];			/* after a failure: what went wrong */
};

/*
 * Open DIR (a missing one is made, mode 0700, for the first file): 0, or
 * -1 with err set (each function here: the caller says it in one line).
 */
int lost_dir_open(struct lost_dir *ld, const char *path);
/* fsc_repair_opts.lost_bytes: chain's bytes at off; the first piece starts a new file. */
int lost_dir_write(struct lost_dir *ld, uint64_t off, const void *buf, size_t len);
/* The files durable (the last one, and their names), the directory closed. */
int lost_dir_close(struct lost_dir *ld);

#endif
