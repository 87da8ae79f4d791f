/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common.h - what every fatscope subcommand shares. */
#ifndef FSC_COMMON_H
#define FSC_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include "fatscope/fatscope.h"

/* probe exit codes (fatscope-probe(8)); fsck uses fsck(8)'s. */
enum {
	EXIT_PROBE_OK = 0, EXIT_PROBE_RISK = 1, EXIT_PROBE_NOTFS = 2,
	EXIT_OPERROR = 8, EXIT_USAGE = 16,
};

/* "fatscope: WHAT: message" on stderr, one line. */
void errmsg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage mistake: message, "Try 'fatscope CMD --help'.", returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a byte count with an optional K/M/G/KiB/MiB/GiB suffix; -1 on error. */
int parse_size(const char *s, uint64_t *out);
int parse_uint(const char *s, unsigned long max, unsigned long *out);

/* Where on the device the volume is: --offset, --partition, --sector-size. */
struct vol_select {
	bool has_offset;
	uint64_t offset;
	int partition;			/* 0: none */
	uint32_t sector_size;		/* 0: the device's */
};

/* getopt values of --offset, --partition, --sector-size (in that order). */
#define VOL_OPT_BASE 256

/*
 * Parse --offset (which 0), --partition (1) or --sector-size (2) into sel;
 * on a bad value prints the usage error and returns -1.
 */
int parse_vol_option(const char *cmd, int which, const char *arg, struct vol_select *sel);

/*
 * After getopt: at least one operand, at most max (0: any number), and not
 * both --offset and --partition.  0, or the usage error's exit code.
 */
int check_operands(const char *cmd, int argc, int max, const struct vol_select *sel);

/*
 * Open path read-only with sel applied; with --partition, *part describes
 * the partition (part->partno is 0 otherwise).  On failure prints one line
 * and returns EXIT_OPERROR.
 */
int open_volume(const char *path, const struct vol_select *sel, struct fsc_dev **dev,
		struct fsc_partition *part);
/* The same, read-write (FSC_DEV_WRITE): for label and undo. */
int open_volume_rw(const char *path, const struct vol_select *sel, struct fsc_dev **dev,
		   struct fsc_partition *part);

/* Close stdout, reporting a write error (full disk, closed pipe). */
int close_stdout_checked(int code);

int cmd_probe(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_undo(int argc, char **argv);

#endif
