/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitcodes.h - the exit status of fatscope and of each subcommand, each
 * set defined once here and documented in the EXIT STATUS section of the
 * command's man page.  tests/cli/exit-status.sh
 * reads this file: keep one "NAME = NUMBER," a line inside each enum.
 */
#ifndef FSC_EXITCODES_H
#define FSC_EXITCODES_H

/* fatscope itself: no command, an unknown command, --help, --version. */
enum fatscope_exit {
	FATSCOPE_OK = 0,
	FATSCOPE_OPERROR = 8,		/* a write error on standard output */
	FATSCOPE_USAGE = 16,
};

/* fatscope probe: fatscope-probe(8). */
enum probe_exit {
	PROBE_OK = 0,			/* exFAT or FAT, no selected driver at risk */
	PROBE_RISK = 1,			/* some selected driver at risk */
	PROBE_NOTFS = 2,		/* not exFAT or FAT, or too small for a boot sector */
	PROBE_MISMATCH = 4,		/* --verify: a hash the container stores differs from its media's */
	PROBE_OPERROR = 8,
	PROBE_USAGE = 16,
};

/* fatscope fsck: fsck(8)'s bits. */
enum fsck_exit {
	FSCK_OK = 0,
	FSCK_CORRECTED = 1,		/* the repair wrote its plan */
	FSCK_UNCORRECTED = 4,
	FSCK_OPERROR = 8,		/* also: too small, not exFAT */
	FSCK_USAGE = 16,
	FSCK_CANCELLED = 32,		/* quit answered: nothing written */
};

/* fatscope dump: fatscope-dump(8). */
enum dump_exit {
	DUMP_OK = 0,
	DUMP_NOTFS = 2,			/* not exFAT or FAT, or too small for a boot sector */
	DUMP_DAMAGED = 4,		/* the chain listed (--path, --cluster) loops or stops early */
	DUMP_OPERROR = 8,
	DUMP_USAGE = 16,
};

/* fatscope label: fatscope-label(8). */
enum label_exit {
	LABEL_OK = 0,
	LABEL_BADVALUE = 1,		/* the new value is invalid for this volume */
	LABEL_NOTFS = 2,		/* not exFAT or FAT, or too small for a boot sector */
	LABEL_DAMAGED = 4,		/* the structures to change are damaged */
	LABEL_OPERROR = 8,
	LABEL_USAGE = 16,
};

/* fatscope ls: fatscope-ls(8). */
enum ls_exit {
	LS_OK = 0,
	LS_NOTFS = 2,			/* not exFAT or FAT, or too small for a boot sector */
	LS_DAMAGED = 4,			/* a directory's chain loops or is shared (each entry listed once), a
					   file's chain damaged (--hash: its bytes up to the break) */
	LS_OPERROR = 8,			/* also: no such path on the volume */
	LS_USAGE = 16,
};

/* fatscope cat: fatscope-cat(8). */
enum cat_exit {
	CAT_OK = 0,
	CAT_PARTIAL = 1,		/* a deleted file only partly recovered (zeros written for the rest) */
	CAT_NOTFS = 2,			/* not exFAT or FAT, or too small for a boot sector */
	CAT_DAMAGED = 4,		/* the file's chain is damaged (loop, cut: written up to the break), or
					   nothing is left */
	CAT_OPERROR = 8,		/* also: no such path, a directory */
	CAT_USAGE = 16,
};

/* fatscope extract: fatscope-extract(8). */
enum extract_exit {
	EXTRACT_OK = 0,
	EXTRACT_PARTIAL = 1,		/* deleted files partly recovered, or not at all */
	EXTRACT_NOTFS = 2,		/* not exFAT or FAT, or too small for a boot sector */
	EXTRACT_DAMAGED = 4,		/* a damaged chain (written up to the break), a cross-link (written whole) */
	EXTRACT_OPERROR = 8,		/* also: a path missing, a file that exists, a write failing */
	EXTRACT_USAGE = 16,
};

/* fatscope scan: fatscope-scan(8). */
enum scan_exit {
	SCAN_OK = 0,			/* a volume found */
	SCAN_NOTFOUND = 2,		/* none found, or too small for a boot sector */
	SCAN_OPERROR = 8,
	SCAN_USAGE = 16,
};

/* fatscope undo: fatscope-label(8). */
enum undo_exit {
	UNDO_OK = 0,
	UNDO_ERROR = 8,
	UNDO_USAGE = 16,
};

#endif
