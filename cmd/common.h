/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.h - what every fatscope subcommand shares: its description, the
 * common options (--offset, --partition, --sector-size, -h, -V), usage
 * errors, operand checks, and the one step that opens and probes a volume;
 * nls.h for the translation of messages.
 */
#ifndef FSC_COMMON_H
#define FSC_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include "fatscope/fatscope.h"
#include "exitcodes.h"
#include "nls.h"

/* A subcommand, for the dispatcher and the shared code. */
struct cmd_desc {
	const char *name;		/* "probe": messages say "fatscope probe: ..." */
	const char *summary;		/* its line in fatscope --help */
	int (*run)(int argc, char **argv);
	void (*help)(void);		/* --help, on stdout */
	/* The command's own exit codes (exitcodes.h) for what the shared code reports. */
	int usage;			/* a usage mistake */
	int operror;			/* cannot open or read, bad window, stdout write error */
	int too_small;			/* a volume shorter than a boot sector */
};

extern const struct cmd_desc probe_cmd, fsck_cmd, dump_cmd, label_cmd, undo_cmd, ls_cmd, cat_cmd, extract_cmd,
	scan_cmd;
/* fsck under the names fsck(8) runs: fsck.exfat, and fsck.fat, fsck.vfat, fsck.msdos (their peers' options too). */
extern const struct cmd_desc fsck_exfat_cmd, fsck_fat_cmd;

/* "fatscope: WHAT: message" on stderr, one line: control characters and invalid UTF-8 escaped. */
void errmsg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A usage mistake: "fatscope CMD: message" (escaped as errmsg's), "Try
 * 'fatscope CMD --help' ...", returns d->usage.
 */
int usage_error(const struct cmd_desc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Make room in *p (an array of *cap elements of elem bytes) for index
 * need - 1: at least doubles, the new elements zeroed.  false when out of
 * memory (*p unchanged).
 */
bool grow_array(void **p, size_t *cap, size_t need, size_t elem);

/* Parse a byte count with an optional K/M/G/KiB/MiB/GiB suffix; -1 on error. */
int parse_size(const char *s, uint64_t *out);
int parse_uint(const char *s, unsigned long max, unsigned long *out);

/* A table column of libsmartcols: its name (in -o lists), width hint and flags. */
struct column_def {
	const char *name;
	double width;
	int flags;
};
/*
 * -o COLUMNS: a comma-separated list of names of defs (count of them, any
 * case) into cols (room for count) and *ncols.  0, or -1 for an unknown
 * or empty list (cols then undefined).
 */
int parse_columns(const char *list, const struct column_def *defs, int count, int *cols, size_t *ncols);

/* Where on the device the volume is: --offset, --partition, --sector-size. */
struct vol_select {
	bool has_offset;
	uint64_t offset;
	int partition;			/* 0: none */
	uint32_t sector_size;		/* 0: the device's */
};

/*
 * The common options, to put in a command's getopt_long table and option
 * string; a command numbers its own long-only options from OPT_CMD_BASE.
 * The dispatcher sets argv[0] to "fatscope CMD", so that getopt_long's own
 * message for an unknown option or a missing argument is the usage line.
 */
enum { OPT_OFFSET = 256, OPT_PARTITION, OPT_SECTOR_SIZE, OPT_CODEPAGE, OPT_CMD_BASE };
#define COMMON_SHORTOPTS "hV"
#define COMMON_LONGOPTS \
	{ "offset", required_argument, NULL, OPT_OFFSET }, \
	{ "partition", required_argument, NULL, OPT_PARTITION }, \
	{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE }, \
	{ "codepage", required_argument, NULL, OPT_CODEPAGE }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ NULL, 0, NULL, 0 }

/* common_option's return after --help or --version: exit with 0. */
#define CMD_DONE (-1)

/*
 * Everything getopt_long returns that the command does not handle itself:
 * a common option into sel (0), --help or --version printed (CMD_DONE), or
 * a mistake, reported as a usage error (d->usage).  For '?' getopt_long has
 * printed the message; only the "Try" line is added.
 */
int common_option(const struct cmd_desc *d, int c, const char *arg, struct vol_select *sel);

/* The --help lines of the common options, the option names padded to width. */
void common_options_help(int width);

/*
 * After getopt: at least one operand, at most max (0: any number), and not
 * both --offset and --partition.  0, or the usage error's exit code.
 */
int check_operands(const struct cmd_desc *d, int argc, int max, const struct vol_select *sel);
/* Only the last part of that: --offset and --partition together. */
int check_select(const struct cmd_desc *d, const struct vol_select *sel);

/* A volume opened by volume_open. */
struct volume {
	struct fsc_dev *dev;
	struct fsc_partition part;	/* with --partition; part.partno is 0 otherwise */
	struct fsc_probe *p;		/* NULL with VOL_NO_PROBE */
	/* VOL_BACKUP_VIEW over a destroyed main boot region: dev and p are the backup's view, these the volume's */
	struct fsc_dev *main_dev;
	struct fsc_probe *main_p;
	struct fsc_dev *slow_lower;	/* FATSCOPE_TEST_READ_DELAY_US: the device under the slow one */
};

/*
 * VOL_BACKUP_VIEW: when sector 0 is destroyed over a sound backup
 * (fsc_probe_backup_type), dev and p are the read-only view through the
 * backup (fsc_probe_backup_view), main_dev and main_p the volume as it is.
 */
enum { VOL_WRITE = 1, VOL_NO_PROBE = 2, VOL_BACKUP_VIEW = 4 };

/*
 * The one open step: open path (read-only unless VOL_WRITE), apply sel's
 * sector size, offset or partition, and probe the volume (unless
 * VOL_NO_PROBE).  0, or after one line "fatscope: PATH: what is wrong" the
 * command's exit code: d->too_small for a volume shorter than a boot
 * sector, d->operror for anything else; v holds nothing then.
 */
int volume_open(const struct cmd_desc *d, const char *path, const struct vol_select *sel,
		unsigned flags, struct volume *v);
void volume_close(struct volume *v);

/* The probe of volume_open, on dev's current window: same messages and codes. */
int volume_probe(const struct cmd_desc *d, const char *path, struct fsc_dev *dev, struct fsc_probe **p);

/* The volume must be exFAT or FAT: 0, or after one line "fatscope: PATH: not an exFAT or FAT volume" notfs. */
int volume_need_fs(const char *path, const struct volume *v, int notfs);
/* What fsc_lookup's error means, for messages and JSON "error" members. */
const char *lookup_text(int err);
/*
 * fsc_lookup of path on v (flags FSC_LOOKUP_*): 0, or after one line
 * "fatscope: IMAGE: PATH: what is wrong" d->operror.
 */
int volume_lookup(const struct cmd_desc *d, const char *image, const struct volume *v, const char *path,
		  unsigned flags, struct fsc_dirent *out, char *buf, size_t len);

/* Refuse a mounted volume before writing: 0, or d->operror after one line. */
int volume_refuse_busy(const struct cmd_desc *d, const char *path);
/*
 * Refuse a mounted volume, then write the plan (with its undo log when
 * undo is set): 0, or d->operror after one line (what: "repair", "change").
 */
int volume_apply(const struct cmd_desc *d, const char *path, struct fsc_dev *dev, const struct fsc_plan *plan,
		 const char *undo, const char *what);

/*
 * -V: "fatscope [CMD ]from fatscope X (libfatscope Y)", the program's
 * version and the version of the library it runs with (fsc_version()).
 */
void print_version(const char *cmd);

/* Close stdout, reporting a write error (full disk, closed pipe): code, or operror. */
int close_stdout_checked(int code, int operror);

#endif
