/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fatscope.h - the public API of libexfat (prefix fsc_).
 *
 * What it does, in the order a caller uses it: device I/O (images, block
 * devices, evidence containers) -> boot sector classification (probe)
 * -> driver models -> verdict; then the check of an exFAT or FAT12/16/32
 * volume (fsc_check), the repair plan (fsc_plan_repair) and its writing
 * (fsc_plan_apply, with an undo log), label edits, and read access to
 * the tree and the files (ls, cat, extract, dump).  Errors are negative
 * errno values; what is wrong with a volume is a list of findings, never
 * a message printed here.  Every function here is exported under the
 * symbol version of the release that added it (libfatscope.sym).
 *
 * Structs that can grow carry their size as their first member, set by
 * their _INIT macro: the options a caller passes in (fsc_check_opts,
 * fsc_repair_opts), and the results a caller's struct receives
 * (fsc_ids, fsc_scan_stats, fsc_chain_stop, fsc_owner,
 * fsc_alloc_summary, fsc_geometry, fsc_check_summary).  The library fills
 * the members both it and the caller know and leaves a newer caller's
 * further members as its _INIT set them (zero); a result struct whose
 * size is not set is refused with -EINVAL and nothing is done.  Structs
 * the library owns and hands out by pointer (fsc_dirent in a walk's
 * callback, fsc_probe's decoded boot sectors, fsc_driver, fsc_field...)
 * grow at their end; copy them only as a whole struct of this header.
 * fsc_dirent, fsc_partition and fsc_scan_hit, whose size member is the
 * data's, carry theirs as struct_size.
 */
#ifndef FATSCOPE_H
#define FATSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Device I/O                                                          */

struct fsc_dev;
struct fsc_probe;

#define FSC_DEV_WRITE	0x1	/* open read-write (default: read-only) */

/*
 * Open an image file or a block device.  Regular files and block devices
 * only (-EISDIR for a directory, -EINVAL for other kinds).  The device's
 * logical sector size is read from a block device; an image counts as
 * 512-byte sectors (a loop device's default) until fsc_dev_set_sector_size.
 * An image that is an evidence container is opened as the disk it holds,
 * read-only (see "Evidence containers" below; fsc_dev_open_why says why
 * one cannot be opened).
 * On success *out owns the handle; free it with fsc_dev_close().
 */
int fsc_dev_open(const char *path, int flags, struct fsc_dev **out);

/*
 * A read-only device over caller memory (tests, fuzzers).  The buffer is
 * not copied and must outlive the handle.
 */
int fsc_dev_open_mem(const void *buf, size_t len, struct fsc_dev **out);

/* The same, writable: fsc_dev_write changes the caller's buffer. */
int fsc_dev_open_mem_rw(void *buf, size_t len, struct fsc_dev **out);

void fsc_dev_close(struct fsc_dev *dev);

/*
 * Restrict every later read to [offset, offset+size) of the underlying
 * file (size 0: to its end).  -ERANGE when the window is not inside.
 */
int fsc_dev_set_window(struct fsc_dev *dev, uint64_t offset, uint64_t size);

/* Override the logical sector size (512, 1024, 2048 or 4096). */
int fsc_dev_set_sector_size(struct fsc_dev *dev, uint32_t size);

uint64_t fsc_dev_size(const struct fsc_dev *dev);	/* window size */
uint64_t fsc_dev_offset(const struct fsc_dev *dev);	/* window start */
uint64_t fsc_dev_full_size(const struct fsc_dev *dev);	/* whole file */
uint32_t fsc_dev_sector_size(const struct fsc_dev *dev);
int fsc_dev_fd(const struct fsc_dev *dev);		/* -1 for memory */
bool fsc_dev_is_blockdev(const struct fsc_dev *dev);

/*
 * A read-only view of len bytes at off inside the window: a pointer into
 * a mapping of the image (or into the memory buffer), valid until the
 * device is closed.  -ENXIO when outside the window; where mapping fails
 * the bytes are read into a buffer the device owns.
 */
int fsc_dev_map(struct fsc_dev *dev, uint64_t off, size_t len, const uint8_t **out);

/*
 * Read len bytes at off inside the window.  0 on success; -ENXIO when
 * any byte lies outside the window (nothing partial is returned); -EIO or
 * another -errno on an I/O error.
 */
int fsc_dev_read(struct fsc_dev *dev, uint64_t off, void *buf, size_t len);

/*
 * Write len bytes at off inside the window (device opened with
 * FSC_DEV_WRITE).  0, -EBADF when read-only, -ENXIO outside the window.
 */
int fsc_dev_write(struct fsc_dev *dev, uint64_t off, const void *buf, size_t len);
/* Flush written data to stable storage (fsync). */
int fsc_dev_sync(struct fsc_dev *dev);

/*
 * Is the file or block device at path in use: mounted itself, through one
 * of its partitions, or (an image file) through a loop device backed by it
 * or one of that device's partitions, or by a FUSE driver given the file?
 * 0 when free, -EBUSY with what in why.
 */
int fsc_dev_busy(const char *path, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* Evidence containers                                                 */

/*
 * fsc_dev_open opens a regular file that is an evidence container as the
 * disk it holds, read-only: chosen by content (EWF, VHD/VHDX and VMDK by
 * their signatures), a split raw set by name (NAME.001, NAME.002, ... or
 * NAME.aa, NAME.ab, ...: fixed-width suffixes, any segment named, two
 * segments at least).  Every read goes through the container; the
 * device has no descriptor (fsc_dev_fd is -1).  EWF, VHD and VMDK are
 * read through libewf, libvhdi and libvmdk when the library was built
 * with them (fsc_container_library).
 */
enum fsc_container {
	FSC_CONTAINER_NONE, FSC_CONTAINER_SPLIT, FSC_CONTAINER_EWF, FSC_CONTAINER_VHD,
	FSC_CONTAINER_VMDK, FSC_CONTAINER_COUNT
};

/* "split", "ewf", "vhd", "vmdk"; NULL for FSC_CONTAINER_NONE and others. */
const char *fsc_container_name(enum fsc_container c);
/*
 * What reads the format in this build: "" (built in: split raw), the
 * library and its version ("libewf 20140813"), or NULL (not built in).
 */
const char *fsc_container_library(enum fsc_container c);

/* What a container says of itself; strings are NULL when it does not say. */
struct fsc_container_info {
	enum fsc_container format;
	const char *variant;		/* EWF: the writer's format ("encase6", "ftk", ...); VHD: "vhd" or "vhdx" */
	const char *disk_type;		/* VHD: "fixed", "dynamic", "differencing"; VMDK: its createType;
					   EWF: its media type ("fixed", "removable", "optical", "memory") */
	uint64_t media_size;		/* bytes of the disk held */
	uint32_t bytes_per_sector;	/* as the container says (0: it does not) */
	const char *const *files;	/* the files read, in order: segments, extents, parents */
	size_t nfiles;
	/* EWF acquisition metadata (UTF-8 as libewf gives it, bytes from the file) */
	const char *case_number, *evidence_number, *examiner, *description, *notes;
	const char *acquired;		/* acquisition date and time as stored (ISO 8601, no zone) */
	const char *acquired_os, *acquired_software;
	bool has_md5, has_sha1;		/* the hashes of the media stored at acquisition */
	uint8_t md5[16], sha1[20];
	const char *parent;		/* VHD, VMDK: the parent image of a differencing disk */
};

/*
 * The container dev reads (also through fsc_dev_open_fault and backup
 * views of it), valid until it is closed; NULL for a plain file, a block
 * device or memory.
 */
const struct fsc_container_info *fsc_dev_container(const struct fsc_dev *dev);

/*
 * fsc_dev_open, with what is wrong in why (English, one line, no
 * newline; "" when errno says it all) when it fails: a segment missing
 * or truncated, a damaged header, the library's message.  A container
 * opened with FSC_DEV_WRITE is refused with -EMEDIUMTYPE (why: "EWF",
 * "split raw", "VHD" or "VMDK"); a container whose library is not built
 * in with -ENOTSUP.
 */
int fsc_dev_open_why(const char *path, int flags, struct fsc_dev **out, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* Repair plans, the writer and the undo log                           */

struct fsc_plan;

struct fsc_edit {
	uint64_t offset;		/* byte in the volume */
	size_t len;
	const uint8_t *old;		/* the bytes there before */
	const uint8_t *data;		/* the bytes written */
	const char *why;
	bool sync_before;		/* flush everything before this edit */
};

struct fsc_plan *fsc_plan_new(void);
void fsc_plan_free(struct fsc_plan *plan);
/*
 * Add an edit: len bytes at off from old to data (both copied).  Edits are
 * applied in the order added; sync_before orders them on stable storage.
 * Returns 0 or -ENOMEM.
 */
int fsc_plan_add(struct fsc_plan *plan, uint64_t off, const void *old, const void *data, size_t len,
		 const char *why, bool sync_before);
size_t fsc_plan_count(const struct fsc_plan *plan);
const struct fsc_edit *fsc_plan_edit(const struct fsc_plan *plan, size_t i);

/*
 * Apply a plan: first verify that every edit's old bytes are on the
 * device (else -ESTALE, nothing written), write the undo log if undo_path
 * is set (every overwritten byte range; the file and its directory
 * fsync'd before the first write; an existing file is refused with
 * -EEXIST, a log over 64 MiB with -EFBIG), then write the edits in order
 * with the syncs asked for, and a final sync.  -errno on failure.  A
 * failure after the undo log was written (a write or sync failed, the
 * power went) leaves the log, and fsc_undo_apply with it restores the
 * device.  An interrupted apply is not resumed: applying the plan again
 * finds the edits already written and refuses with -ESTALE, writing
 * nothing (unless nothing had been written at all); undo, then plan again.
 */
int fsc_plan_apply(struct fsc_dev *dev, const struct fsc_plan *plan, const char *undo_path);

/*
 * Put back what an undo log recorded: verifies the log, that it was made
 * for a device of this size and window, and that each range holds what
 * the change, or any interrupted run of it, left there, then writes the
 * old bytes, last edit first, syncing where the change had synced (so
 * that an undo cut short is ordered as the change was, and can be run
 * again).  Accepted: every byte of every range holds a value that byte
 * had during the change: the original, or the new byte of an edit
 * covering it.  That covers a change complete, stopped before any write,
 * with a write torn, or with writes since a sync lost or reordered by a
 * disk cache, and an undo itself cut short.  Any other byte means the
 * device changed since: -ESTALE, nothing written.
 * Returns the number of ranges restored or -errno (-EINVAL: not an undo
 * log, damaged, or made for another size or window; -ESTALE).
 */
int fsc_undo_apply(struct fsc_dev *dev, const char *undo_path);

/* ------------------------------------------------------------------ */
/* Labels, serials, volume GUID                                        */

struct fsc_ids {
	size_t size;			/* sizeof(struct fsc_ids): FSC_IDS_INIT sets it */
	bool has_label;
	char label[48];			/* exFAT label entry / FAT root label entry (UTF-8) */
	bool has_boot_label;
	char boot_label[12];		/* FAT BS_VolLab (when BS_BootSig is 0x29) */
	bool has_serial;
	uint32_t serial;
	char serial_text[24];		/* as blkid shows UUID: "1234-ABCD" */
	bool has_guid;
	uint8_t guid[16];		/* exFAT volume GUID entry, RFC 4122 byte order */
};
#define FSC_IDS_INIT { .size = sizeof(struct fsc_ids) }

/* What the volume says now; -EINVAL for other types or an ids whose size is not set. */
int fsc_ids_read(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_ids *ids);

/*
 * Plan a new label ("" removes it): exFAT's label entry (created in a
 * free root slot, extending the root directory when it is full) with
 * VolumeDirty set around the change; FAT's root label entry and the boot
 * sector's (and the FAT32 backup's) BS_VolLab, upper case, "NO NAME" when
 * removed.  -EINVAL (err says why: length, characters), -ENOSPC,
 * -EUCLEAN (the structures to change are broken: run fsck).  The plan may
 * be empty when nothing changes.  now: seconds since the epoch for FAT
 * entry times.
 */
int fsc_plan_label(struct fsc_dev *dev, const struct fsc_probe *p, const char *label, int64_t now,
		   struct fsc_plan *plan, char *err, size_t errlen);
/* Plan a new volume serial: both exFAT boot regions with their checksums; FAT boot sector(s). */
int fsc_plan_serial(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t serial,
		    struct fsc_plan *plan, char *err, size_t errlen);
/*
 * Plan a new exFAT volume GUID entry (created if absent).  guid is in RFC
 * 4122 byte order, as uuid_parse(3) gives it (the library writes the
 * GUID layout exFAT stores).
 */
int fsc_plan_guid(struct fsc_dev *dev, const struct fsc_probe *p, const uint8_t guid[16],
		  struct fsc_plan *plan, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Problems and findings                                               */

enum fsc_severity { FSC_SEV_INFO, FSC_SEV_WARN, FSC_SEV_ERROR, FSC_SEV_FATAL };

/*
 * Problem codes are the fixed numbers of problems.def: appended, never
 * changed or reused, so a code means the same problem in every version.
 * A code below FSC_PR_COUNT may be unused (a retired problem); then
 * fsc_problem_info() returns NULL.
 */
enum fsc_problem {
#define PROBLEM(code, name, sev, fix, flags, msg, expl, repair) FSC_PR_##name = code,
#include "problems.def"
#undef PROBLEM
};

/* Only its size counts: one more than the highest code. */
union fsc_problem_codes_ {
#define PROBLEM(code, name, sev, fix, flags, msg, expl, repair) char fsc_pr_##name[(code) + 1];
#include "problems.def"
#undef PROBLEM
};
/* One more than the highest problem code (it grows as problems are added). */
enum { FSC_PR_COUNT = sizeof(union fsc_problem_codes_) };

/* What a repair would do about a problem (problems.def's FIX column). */
enum fsc_fix { FSC_FIX_NONE, FSC_FIX_RECOMPUTE, FSC_FIX_FROM_BACKUP, FSC_FIX_CLEAR, FSC_FIX_MANUAL, FSC_FIX_RENAME };

struct fsc_problem_info {
	const char *name;
	enum fsc_severity severity;
	enum fsc_fix fix;
	bool preen;			/* fsck -p may apply the repair: no data lost, no choice */
	const char *message;		/* template */
	const char *explanation;
	const char *repair;		/* what fatscope fsck does about it */
	bool data_loss;			/* the repair may leave a file with fewer bytes */
};

/*
 * Translations.  The library's texts for people (the problem messages)
 * are in the gettext domain FSC_TEXTDOMAIN, the catalogue fatscope
 * installs.  The library binds that domain to the directory it was built
 * for before it first translates; fsc_nls_bind(DIR) makes it look in DIR
 * instead (NULL: keep the directory), and returns the domain's name.
 * Without NLS (./configure --disable-nls) it does nothing.
 */
#define FSC_TEXTDOMAIN "fatscope"
const char *fsc_nls_bind(const char *localedir);

/* The problem with this code, or NULL for a code no problem has. */
const struct fsc_problem_info *fsc_problem_info(enum fsc_problem id);
/* The code of the problem with this name, or -1. */
int fsc_problem_lookup(const char *name);
const char *fsc_severity_name(enum fsc_severity sev);
/* "NONE", "RECOMPUTE", "FROM_BACKUP", "CLEAR", "MANUAL", "RENAME" (as in problems.def); "?" otherwise. */
const char *fsc_fix_name(enum fsc_fix fix);

enum fsc_loc_kind { FSC_LOC_NONE, FSC_LOC_BYTE, FSC_LOC_SECTOR, FSC_LOC_CLUSTER, FSC_LOC_ENTRY };

/*
 * A finding and the list of them are opaque: read them through the
 * accessors below, so that either can grow before 1.0 without breaking a
 * caller.  A list comes from fsc_findings_new() (fsc_check and
 * fsc_plan_repair fill it) or from fsc_probe_findings() (the probe's own,
 * read-only).
 */
struct fsc_finding;
struct fsc_findings;

/* An empty list (NULL when out of memory); fsc_findings_free() frees it and what it holds. */
struct fsc_findings *fsc_findings_new(void);
size_t fsc_findings_count(const struct fsc_findings *fs);
/* The i-th finding, in the order found; NULL past the end. */
const struct fsc_finding *fsc_findings_at(const struct fsc_findings *fs, size_t i);
/* Findings lost: the list could not grow. */
size_t fsc_findings_dropped(const struct fsc_findings *fs);

enum fsc_problem fsc_finding_id(const struct fsc_finding *f);
/* Where it lies: the kind, with *loc the byte offset in the volume, sector or cluster, *entry the index in cluster *loc (FSC_LOC_ENTRY). */
enum fsc_loc_kind fsc_finding_loc(const struct fsc_finding *f, uint64_t *loc, uint32_t *entry);
/* The on-disk field's name, or "". */
const char *fsc_finding_field(const struct fsc_finding *f);
/* The file or directory concerned, or NULL. */
const char *fsc_finding_path(const struct fsc_finding *f);
/* The values of the message's placeholders (see problems.def): "" when not set. */
const char *fsc_finding_actual(const struct fsc_finding *f);
const char *fsc_finding_expected(const struct fsc_finding *f);
const char *fsc_finding_detail(const struct fsc_finding *f);
/* fsc_plan_repair: the plan fixes it. */
bool fsc_finding_planned(const struct fsc_finding *f);

/*
 * Render a finding's message (template filled in) into buf, in English:
 * the text of machine-readable output, the same in every locale.
 */
void fsc_finding_message(const struct fsc_finding *f, char *buf, size_t len);
/*
 * The same for people: the template translated to the language of the
 * program's locale (LC_MESSAGES, LANGUAGE; the program must have called
 * setlocale(LC_ALL, "")) when the catalogue of FSC_TEXTDOMAIN has it,
 * else English.  The placeholders' values (numbers, names) are never
 * translated.
 */
void fsc_finding_message_translated(const struct fsc_finding *f, char *buf, size_t len);
/*
 * Render its location ("byte 106 (VolumeFlags)", "cluster 5",
 * "cluster 5 entry 3: /DCIM/X.JPG") into buf.
 */
void fsc_finding_location(const struct fsc_finding *f, char *buf, size_t len);
bool fsc_findings_has(const struct fsc_findings *fs, enum fsc_problem id);
/* Highest severity present (at least ERROR if any were dropped), or -1 when there are none. */
int fsc_findings_worst(const struct fsc_findings *fs);
/* Frees a list of fsc_findings_new() and all it holds; NULL is a no-op. */
void fsc_findings_free(struct fsc_findings *fs);

/* ------------------------------------------------------------------ */
/* Probe: what is this volume                                          */

enum fsc_type {
	FSC_TYPE_UNKNOWN, FSC_TYPE_BLANK, FSC_TYPE_EXFAT, FSC_TYPE_FAT12,
	FSC_TYPE_FAT16, FSC_TYPE_FAT32, FSC_TYPE_NTFS, FSC_TYPE_MBR,
	FSC_TYPE_GPT, FSC_TYPE_COUNT
};
const char *fsc_type_name(enum fsc_type t);	/* "exfat", "fat16", ... */
bool fsc_type_is_fat(enum fsc_type t);

struct fsc_exfat_boot {
	uint8_t jump[3];
	char fs_name[9];
	uint32_t mbz_first;		/* first non-zero byte in 11..63, or 0 */
	uint64_t partition_offset;
	uint64_t volume_length;		/* sectors */
	uint32_t fat_offset, fat_length, heap_offset, cluster_count;
	uint32_t root_cluster, serial;
	uint16_t revision, volume_flags;
	uint8_t sector_shift, cluster_shift, num_fats, drive_select;
	uint8_t percent_in_use;
	uint16_t signature;
	uint32_t checksum_stored, checksum_computed;	/* main region */
	bool checksum_known;		/* the 12 sectors could be read */
};

struct fsc_fat_bpb {
	uint8_t jump[3];
	char oem[9];
	uint16_t bytes_per_sector;
	uint8_t sec_per_clus;
	uint16_t reserved;
	uint8_t num_fats;
	uint16_t root_entries, total16, fat_size16;
	uint8_t media;
	uint32_t hidden, total32, fat_size32;
	uint16_t ext_flags, fs_version, fsinfo_sector, backup_sector;
	uint32_t root_cluster;
	uint8_t drive, state, boot_sig;
	uint32_t serial;
	char boot_label[12];
	char fs_type[9];
	uint16_t signature;
	/* derived */
	bool bpb32;			/* FATSz16 == 0 (how Linux/Windows/blkid decide) */
	uint32_t fat_size, total_sectors, root_dir_sectors;
	uint64_t data_start;		/* sectors */
	uint64_t clusters;		/* data clusters */
	enum fsc_type spec_type;	/* by cluster count (fatgen103) */
	enum fsc_type bpb_type;		/* by FATSz16 == 0 */
	bool root_label_found;
	char root_label[12];
	bool geometry_ok;		/* data area inside the volume */
	bool fsinfo_read;		/* FSInfo read in the reserved area */
	bool fsinfo_far;		/* BPB_FSInfo past the reserved area, sector read */
	bool fsinfo_lost;		/* BPB_FSInfo past the reserved area and the device */
	uint32_t fsinfo_lead, fsinfo_struc;	/* FSInfo signatures at 0 and 484 (read or far) */
};

struct fsc_mbr_entry {
	uint8_t status, type;
	uint32_t start, size;		/* 512-byte sectors */
};

/*
 * The arrays the library makes (fsc_partitions, fsc_scan) step by their
 * elements' own size, struct_size (size is the partition's or volume's):
 * read element i with fsc_partition_at or fsc_scan_hit_at, never v[i],
 * so that a program built against an older header reads a newer
 * library's array.
 */
struct fsc_partition {
	size_t struct_size;		/* sizeof(struct fsc_partition) of the library that made it */
	int partno;
	uint64_t offset, size;		/* bytes */
	char type[40];			/* MBR type "0x7" or GPT type GUID */
	char name[40];
};
const struct fsc_partition *fsc_partition_at(const struct fsc_partition *v, size_t i);

/*
 * Read the start of the volume behind dev (inside its window), classify
 * it, decode every field, record findings and read what the driver models
 * need (exFAT root directory, FAT root label).  Damage is a finding, not
 * an error.  Returns 0, -ENODATA when the volume is shorter than 512
 * bytes, or -errno for an I/O error.  Free *out with fsc_probe_free().
 * struct fsc_probe is opaque: read it with the functions below, whose
 * pointers stay valid until fsc_probe_free().
 */
int fsc_probe_volume(struct fsc_dev *dev, struct fsc_probe **out);
/*
 * Sector 0 destroyed (blank or unknown bytes) over a sound backup
 * (EXFAT_MAIN_BOOT_LOST: the backup boot region at sector 12;
 * FAT32_MAIN_BOOT_LOST: the backup boot sector at sector 6): the backup's
 * type, FSC_TYPE_EXFAT or FSC_TYPE_FAT32; FSC_TYPE_UNKNOWN otherwise.
 */
enum fsc_type fsc_probe_backup_type(const struct fsc_probe *p);
/* The filesystem the volume holds: fsc_probe_backup_type when there is one, else fsc_probe_type. */
enum fsc_type fsc_probe_volume_type(const struct fsc_probe *p);
/*
 * A read-only view of dev with the backup in place of the destroyed main
 * boot region (exFAT: sectors 0-11 from 12-23; FAT32: sector 0 from 6),
 * and its probe: what the volume is once restored, for reading it (dump,
 * ls, fsck -n) without writing a byte.  dev must outlive *view; free
 * both (fsc_probe_free, then fsc_dev_close).  Returns 0, -ENOENT (p found
 * no such backup), -ENOMEM, or the probe's errors.
 */
int fsc_probe_backup_view(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_dev **view,
			  struct fsc_probe **vp);
void fsc_probe_free(struct fsc_probe *p);
enum fsc_type fsc_probe_type(const struct fsc_probe *p);
/* The device as probed: its logical sector size, and its size (the window's) in bytes. */
uint32_t fsc_probe_dev_sector_size(const struct fsc_probe *p);
uint64_t fsc_probe_dev_size(const struct fsc_probe *p);
/* The label and the serial as blkid shows them (LABEL, UUID), or NULL when there is none. */
const char *fsc_probe_label(const struct fsc_probe *p);
const char *fsc_probe_serial(const struct fsc_probe *p);
/* What the probe found (boot sectors, the exFAT root); owned by p. */
const struct fsc_findings *fsc_probe_findings(const struct fsc_probe *p);
/* The decoded exFAT boot sector, or NULL when the type is not exFAT. */
const struct fsc_exfat_boot *fsc_probe_exfat(const struct fsc_probe *p);
/* The decoded FAT boot sector and BPB, or NULL when the type is not FAT12/16/32. */
const struct fsc_fat_bpb *fsc_probe_fat(const struct fsc_probe *p);
/*
 * The code page FAT 8.3 names are read in, for every later call (names
 * shown, compared and checked): 850 (the default, as mtools writes them)
 * or 437 (Linux's default codepage).  0, or -EINVAL for another.  Safe
 * to call from any thread; a walk or check running meanwhile may read
 * some names in the old code page: set it before.
 */
int fsc_fat_codepage(unsigned cp);
/* The four partition entries of an MBR (also GPT's protective MBR), or NULL for other types. */
const struct fsc_mbr_entry *fsc_probe_mbr(const struct fsc_probe *p);
/*
 * NTFS: whether libblkid's ntfs prober accepts the volume; when it does
 * not, *why (if why is not NULL) says why.  false for other types.
 */
bool fsc_probe_ntfs_blkid_ok(const struct fsc_probe *p, const char **why);
/* The first bytes of the volume as read (4096, or all of a shorter one); their count in *len (if not NULL). */
const uint8_t *fsc_probe_sector0(const struct fsc_probe *p, size_t *len);

/*
 * Partitions of a whole-disk image (MBR or GPT) through libblkid (an
 * evidence container's read through it, listed as libblkid lists them).
 * Returns the count (0 when there is no table) and a malloc'd array in
 * *out (element i: fsc_partition_at(*out, i); free() the array), or -errno.
 */
int fsc_partitions(struct fsc_dev *dev, struct fsc_partition **out);

/* ------------------------------------------------------------------ */
/* Scan: volumes at any offset of a disk whose partition table is lost  */

#define FSC_SCAN_MAIN	0x1		/* found through its main boot sector (region) */
#define FSC_SCAN_BACKUP	0x2		/* found through its backup (exFAT +12 sectors, FAT32 BPB_BkBootSec) */

enum fsc_scan_confidence {
	FSC_SCAN_MEDIUM,		/* boot sector and FAT agree; the root directory is not readable or not plausible */
	FSC_SCAN_HIGH,			/* the root directory's first entries are plausible too */
};

struct fsc_scan_hit {
	size_t struct_size;		/* sizeof(struct fsc_scan_hit) of the library that made it */
	uint64_t offset;		/* byte of the window where the volume starts */
	uint64_t size;			/* bytes, as its boot sector says */
	enum fsc_type type;		/* exFAT, FAT12, FAT16, FAT32 */
	unsigned how;			/* FSC_SCAN_MAIN | FSC_SCAN_BACKUP: the boot sectors that found it */
	enum fsc_scan_confidence confidence;
	uint32_t sector_size;		/* the volume's */
	bool truncated;			/* it reaches past the end of the window */
	bool has_label, has_serial;
	char label[48];			/* as fsc_probe_label gives it (UTF-8, bytes from the disk) */
	char serial[24];		/* as fsc_probe_serial gives it */
	int partno;			/* the declared partition starting here, 0 when none */
	bool part_size_matches;		/* and it has the volume's size */
};
/* Element i of fsc_scan's hits (see fsc_partition_at). */
const struct fsc_scan_hit *fsc_scan_hit_at(const struct fsc_scan_hit *v, size_t i);

struct fsc_scan_stats {
	size_t size;			/* sizeof(struct fsc_scan_stats): FSC_SCAN_STATS_INIT sets it */
	uint64_t bytes;			/* the window's size */
	uint64_t read;			/* bytes read by the sequential pass */
	uint64_t holes;			/* not read: holes of a sparse image */
	uint64_t inside;		/* not read: inside volumes found with high confidence */
	uint64_t candidates;		/* sectors that looked like a boot sector */
	uint64_t rejected;		/* of those, the chance matches */
	uint64_t dropped;		/* volumes past the limit of FSC_SCAN_MAX_HITS */
};
#define FSC_SCAN_STATS_INIT { .size = sizeof(struct fsc_scan_stats) }

#define FSC_SCAN_MAX_HITS 65536

/*
 * Find exFAT and FAT12/16/32 volumes at every sector (the device's
 * logical sector size) of dev's window, whatever its partition table
 * says: main boot sectors, and backups when the main one is destroyed
 * (the volume is reported where it starts).  A sector counts only when
 * cross-checks pass: the exFAT boot checksum, a geometry that fits, FAT[0]
 * holding the media byte; a plausible root directory gives high
 * confidence, and only then is the volume's extent passed over (so that a
 * chance or partial match never hides what lies inside it).  The window
 * is read once, in order, in large reads; holes of a sparse image are not
 * read.  Declared partitions (fsc_partitions) are looked at too, and a
 * volume that starts where one does names it.  dev's window is changed
 * while candidates are checked and put back before return.
 * Returns 0 with *hits (malloc'd, sorted by offset, element i
 * fsc_scan_hit_at(*hits, i); free()) and *n, stats
 * (may be NULL) filled; -ENODATA for a window shorter than 512 bytes,
 * -EINVAL for stats whose size is not set, -ENOMEM, or -errno of a read.
 */
int fsc_scan(struct fsc_dev *dev, struct fsc_scan_hit **hits, size_t *n, struct fsc_scan_stats *stats);
/* "medium", "high". */
const char *fsc_scan_confidence_name(enum fsc_scan_confidence c);

/* ------------------------------------------------------------------ */
/* Driver models and verdict                                           */

enum fsc_family { FSC_FAM_EXFAT, FSC_FAM_FAT, FSC_FAM_BLKID };

struct fsc_driver {
	const char *id;			/* stable, e.g. "staging-5.4-vfat" */
	const char *name;		/* one-line description */
	const char *versions;		/* Linux / package versions modelled */
	const char *source;		/* commits the model follows */
	enum fsc_family family;
	bool current;			/* in today's kernels / Debian 12 */
	bool nondefault;		/* a configuration kernels are not built with by default */
};

enum fsc_action { FSC_MOUNTS, FSC_REFUSES, FSC_MISREADS };
const char *fsc_action_name(enum fsc_action a);

size_t fsc_driver_count(void);
const struct fsc_driver *fsc_driver_at(size_t i);
/* Index of the driver with this ID, or -1. */
int fsc_driver_lookup(const char *id);

enum fsc_risk_kind { FSC_RISK_WRONG_DRIVER, FSC_RISK_MISREADS, FSC_RISK_ACCEPTS_CORRUPT };
const char *fsc_risk_kind_name(enum fsc_risk_kind k);

/*
 * A judgement: each selected driver model applied to a probed volume (one
 * verdict a driver, in the table's order) and every risk those verdicts
 * carry (the verdict of the volume: at risk when there is one).  The
 * judgement, its verdicts and its risks are opaque: read them through the
 * accessors below, valid until fsc_judgement_free().
 */
struct fsc_judgement;
struct fsc_verdict;
struct fsc_risk;

/*
 * Judge p by the drivers that sel selects (sel[i] for fsc_driver_at(i),
 * fsc_driver_count() of them; NULL: every driver).  NULL when out of
 * memory.
 */
struct fsc_judgement *fsc_judge(const struct fsc_probe *p, const bool *sel);
/* Frees the judgement, its verdicts and its risks; NULL is a no-op. */
void fsc_judgement_free(struct fsc_judgement *j);
size_t fsc_judgement_verdicts(const struct fsc_judgement *j);
/* The i-th verdict, NULL past the end. */
const struct fsc_verdict *fsc_judgement_verdict(const struct fsc_judgement *j, size_t i);
size_t fsc_judgement_risks(const struct fsc_judgement *j);
/* The i-th risk (grouped by driver, in the verdicts' order), NULL past the end. */
const struct fsc_risk *fsc_judgement_risk(const struct fsc_judgement *j, size_t i);

const struct fsc_driver *fsc_verdict_driver(const struct fsc_verdict *v);
enum fsc_action fsc_verdict_action(const struct fsc_verdict *v);
/* The type the driver takes the volume for; FSC_TYPE_UNKNOWN when refused. */
enum fsc_type fsc_verdict_as(const struct fsc_verdict *v);
/* The errno user space sees, 0 when it mounts. */
int fsc_verdict_errno(const struct fsc_verdict *v);
/* Why, in English; what the driver does to the volume and what it warns about at mount ("" for none). */
const char *fsc_verdict_why(const struct fsc_verdict *v);
const char *fsc_verdict_effect(const struct fsc_verdict *v);
const char *fsc_verdict_warning(const struct fsc_verdict *v);

const struct fsc_driver *fsc_risk_driver(const struct fsc_risk *r);
enum fsc_risk_kind fsc_risk_kind_of(const struct fsc_risk *r);
const char *fsc_risk_why(const struct fsc_risk *r);

/* Whether the specification accepts the volume as its type. */
bool fsc_probe_spec_valid(const struct fsc_probe *p);

/* ------------------------------------------------------------------ */
/* Field tables: every on-disk boot structure described once           */

enum fsc_field_fmt { FSC_FMT_UINT, FSC_FMT_HEX, FSC_FMT_TEXT, FSC_FMT_BYTES };

struct fsc_field {
	const char *name;		/* as in the specification; findings use it too */
	uint16_t offset, width;		/* bytes */
	enum fsc_field_fmt fmt;
	const char *meaning;		/* with the specification section */
};

enum fsc_table {
	FSC_TABLE_EXFAT_BOOT, FSC_TABLE_FAT_BPB, FSC_TABLE_FAT16_EBPB, FSC_TABLE_FAT32_EBPB,
	FSC_TABLE_FSINFO, FSC_TABLE_COUNT
};

/* The fields of a structure, in offset order; *n gets their count. */
const struct fsc_field *fsc_field_table(enum fsc_table t, size_t *n);
/* The field holding byte off of the structure, or NULL. */
const struct fsc_field *fsc_field_at(enum fsc_table t, unsigned off);
/* A field's value as an unsigned integer (its first 8 bytes). */
uint64_t fsc_field_uint(const struct fsc_field *f, const uint8_t *s);
/* A field's raw value as text: "512", "0x0002", "\"EXFAT   \"", "EB 76 90", "390 x F4". */
void fsc_field_value(const struct fsc_field *f, const uint8_t *s, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Reading the tree (dump, ls): exFAT and FAT alike                     */

/*
 * How much of a deleted file or directory can still be read (struct
 * fsc_dirent's recovery, fsc_file_recovery).  A cluster counts as gone
 * when it is in use again (exFAT: set in the allocation bitmap; FAT: a
 * non-free FAT entry); a free cluster may still have been written and
 * freed since, which no volume records.
 */
enum fsc_recovery {
	FSC_REC_LIVE,			/* not deleted */
	FSC_REC_INTACT,			/* every cluster it had is still free (or it had none) */
	FSC_REC_PARTIAL,		/* some are in use again: those bytes read as zeros */
	FSC_REC_OVERWRITTEN,		/* every one is in use again */
	FSC_REC_UNKNOWN,		/* cannot tell: no allocation bitmap, a first cluster outside the volume */
};
/* "live", "intact", "partial", "overwritten", "unknown". */
const char *fsc_recovery_name(enum fsc_recovery r);

/*
 * An entry of the tree.  It carries its size as struct_size (size is the
 * file's): the walks' callbacks see it set; fsc_lookup fills a caller's
 * made with FSC_DIRENT_INIT (the members it holds, as for the structs of
 * the introduction); fsc_walk_dir and fsc_file_open read one of any size
 * (members past an older caller's end as zero) and refuse with -EINVAL one
 * whose struct_size is not set.
 */
struct fsc_dirent {
	size_t struct_size;		/* sizeof(struct fsc_dirent): FSC_DIRENT_INIT sets it */
	const char *path;		/* of the entry, "/DCIM/IMG_0001.JPG" */
	const char *name;		/* UTF-8; unpaired surrogates as \uXXXX */
	char short_name[40];		/* FAT 8.3 name (fsc_fat_codepage's, UTF-8), "" on exFAT */
	unsigned depth;			/* 1 for entries of the root */
	size_t parent_id;		/* id of the directory holding it (0: the root) */
	size_t id;			/* a directory's own id, for its children; 0 otherwise */
	bool dir, deleted, label, nofat;
	uint16_t attr;
	uint64_t size, valid_size;
	uint32_t first_cluster;
	uint32_t ctime, mtime, atime;	/* DOS date << 16 | time, 0 when absent */
	uint8_t ctime_10ms, mtime_10ms;
	int16_t ctime_utc, mtime_utc, atime_utc;	/* minutes east of UTC; INT16_MIN: none */
	uint32_t entry_cluster;		/* where the entry (set) lies; 0: FAT12/16 root area */
	uint64_t entry_offset;		/* byte offset in the volume of its primary (exFAT) or 8.3 (FAT) entry */
	int recoverable;		/* deleted: 1 some of its clusters still free (recovery intact or
					   partial), 0 none (overwritten), -1 unknown; -1 when live */
	enum fsc_recovery recovery;	/* deleted: how much is left (FSC_REC_LIVE otherwise) */
};
#define FSC_DIRENT_INIT { .struct_size = sizeof(struct fsc_dirent) }

/* Return non-zero to stop the walk (that value is returned by the walk). */
typedef int (*fsc_dirent_fn)(void *ctx, const struct fsc_dirent *d);

#define FSC_WALK_DELETED	0x1	/* also deleted entries (sets with InUse clear, 0xE5), and the
					   entries of deleted directories whose clusters are intact */
#define FSC_WALK_ONE		0x2	/* fsc_walk_dir: only the directory's own entries */
#define FSC_WALK_LOOPS		0x4	/* a live directory whose chain comes back to a cluster read
					   already (a loop, or shared with another directory): the
					   walk goes on, each entry seen once, and returns -ELOOP */

/*
 * Walk the directory tree of an exFAT or FAT volume, depth first, parents
 * before children; fn sees every entry (and the volume label entry).  A
 * directory reached twice (a cycle, a cross-link) is listed but not read
 * again; chains are bounded by the cluster count.  Returns 0, fn's
 * non-zero value, -EINVAL for other volume types, -ENOMEM, or -EIO when
 * the FAT cannot be read.
 */
int fsc_walk_tree(struct fsc_dev *dev, const struct fsc_probe *p, unsigned flags,
		  fsc_dirent_fn fn, void *ctx);

/*
 * The same below one directory: dir as fsc_lookup or a walk gave it (NULL,
 * or depth 0: the root); the entries' paths and depths are those of the
 * whole tree.  With FSC_WALK_ONE only dir's own entries.  A deleted
 * directory is read as its recovery says.  fsc_walk_tree's returns,
 * -ENOTDIR when dir is not a directory, -EINVAL when its struct_size is
 * not set, -E2BIG when it sets a member this library does not know.
 */
int fsc_walk_dir(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_dirent *dir,
		 unsigned flags, fsc_dirent_fn fn, void *ctx);

#define FSC_LOOKUP_DELETED	0x1	/* a deleted entry may match (a live one is preferred) */

/*
 * Find path on the volume: components separated by '/', a leading '/'
 * optional, empty components ignored, "/" or "" the root.  A component
 * matches a name as the drivers compare them: exFAT through the volume's
 * up-case table (the specification's recommended table when the volume's
 * is missing or damaged), FAT long names through the recommended table
 * too, and a FAT 8.3 name ("LONGFI~1.TXT") in any case.  A live entry is
 * preferred to a deleted one of the same name.  On success *out is the
 * entry (the root: depth 0, dir, path "/", name ""), its path (the names
 * as the volume spells them) and name stored in buf (len bytes).
 * Returns 0, -ENOENT, -ENOTDIR (a file where a directory is needed),
 * -ENAMETOOLONG (buf too small, a component over 255 characters or not
 * UTF-8), -EINVAL (not exFAT or FAT, or out's struct_size not set),
 * -ENOMEM, -EIO.
 */
int fsc_lookup(struct fsc_dev *dev, const struct fsc_probe *p, const char *path, unsigned flags,
	       struct fsc_dirent *out, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Reading files (cat, extract): exFAT and FAT alike                    */

struct fsc_reader;
struct fsc_file;

#define FSC_READER_CROSSLINKS	0x1	/* note a file that shares a cluster with one opened before */
#define FSC_READER_TO_BREAK	0x2	/* open a live file whose chain loops or breaks, up to the break */

/*
 * A reader of the files of the volume probed as p (read-only: nothing is
 * ever written).  With FSC_READER_CROSSLINKS it remembers the clusters of
 * every live file it opens (one bit per cluster), and fsc_file_shared
 * names the first cluster a file shares with one opened before (the file
 * is opened whole all the same).  With FSC_READER_TO_BREAK a live file
 * whose chain is damaged is opened as far as its chain can be followed
 * (fsc_file_damage).  Returns 0 and *out
 * (free with fsc_reader_close), -EINVAL (not exFAT or FAT, unusable
 * geometry), -EIO (the FAT lies beyond the device), -ENOMEM.
 */
int fsc_reader_open(struct fsc_dev *dev, const struct fsc_probe *p, unsigned flags, struct fsc_reader **out);
void fsc_reader_close(struct fsc_reader *r);

/*
 * Open the file (or directory) d, as a walk or fsc_lookup gave it: its
 * clusters are found now, the chain bounded by the file's size and by the
 * volume (a loop is found, however long).  exFAT's NoFatChain and
 * ValidDataLength are honoured (bytes past ValidDataLength read as zero).
 * A deleted file is recovered as fsc_recovery says: exFAT by its chain
 * while that is whole and free, else (and always on FAT) the contiguous
 * clusters from its first; clusters in use again read as zeros.
 * Returns 0 and *out (free with fsc_file_close, before the reader);
 * -ELOOP (a live file's chain comes back to itself, within the file or
 * right after its end), -EUCLEAN (the chain leaves the data area, meets a
 * free or bad cluster, ends early), -EINVAL and -E2BIG (d's struct_size,
 * as fsc_walk_dir), -ENOMEM; why (may be NULL) says what
 * is wrong.  With FSC_READER_TO_BREAK the damaged chain is opened all the
 * same (0 and *out, why filled, fsc_file_damage saying which).
 */
int fsc_file_open(struct fsc_reader *r, const struct fsc_dirent *d, struct fsc_file **out,
		  char *why, size_t whylen);
/*
 * 0 when f's chain is sound; opened through FSC_READER_TO_BREAK, -ELOOP
 * or -EUCLEAN (as fsc_file_open would have refused it): f then holds its
 * clusters from the first to the break, each once (a loop is cut before
 * the first cluster met again), and fsc_file_size is the bytes they hold
 * (all of them when the loop closes right after the file's end).
 */
int fsc_file_damage(const struct fsc_file *f);
/*
 * Through a reader opened with FSC_READER_CROSSLINKS: the first cluster
 * of f that a live file opened before through the same reader has (a
 * cross-link), 0 when none (or without the flag).
 */
uint32_t fsc_file_shared(const struct fsc_file *f);
/*
 * Bytes the file has (exFAT DataLength, FAT FileSize; a FAT directory:
 * its clusters), at most those its clusters hold (a deleted file, a chain
 * opened up to its break).
 */
uint64_t fsc_file_size(const struct fsc_file *f);
/* FSC_REC_LIVE for a live file; for a deleted one, how much is left. */
enum fsc_recovery fsc_file_recovery(const struct fsc_file *f);
/* Clusters of a deleted file that are in use again (read as zeros), and in all. */
uint64_t fsc_file_clusters(const struct fsc_file *f, uint64_t *reused);
/*
 * Up to len bytes from byte off of the file into buf: the count (0 at or
 * past the end), or -errno from the device.
 */
int64_t fsc_file_read(struct fsc_file *f, uint64_t off, void *buf, size_t len);
void fsc_file_close(struct fsc_file *f);

/* One run of an allocation: count clusters from first. */
typedef void (*fsc_extent_fn)(void *ctx, uint32_t first, uint32_t count);

/* How a chain listing ended (fsc_extents). */
enum fsc_chain_end {
	FSC_CHAIN_WHOLE,	/* at its end marker, or as far as the size needs */
	FSC_CHAIN_BROKEN,	/* a cluster outside the data area, a free, bad or unreadable entry, an early end */
	FSC_CHAIN_LOOP,		/* the chain comes back to a cluster it holds (within the size or right after it) */
};

struct fsc_chain_stop {
	size_t size;		/* sizeof(struct fsc_chain_stop): FSC_CHAIN_STOP_INIT sets it */
	enum fsc_chain_end end;
	uint32_t from, to;	/* FSC_CHAIN_LOOP: the last cluster listed, and the cluster it links back to */
	uint64_t to_index;	/* FSC_CHAIN_LOOP: to's place in the chain (0: the first cluster) */
	char why[128];		/* what is wrong, in English ("" for FSC_CHAIN_WHOLE) */
};
#define FSC_CHAIN_STOP_INIT { .size = sizeof(struct fsc_chain_stop) }

/*
 * The extents of an allocation: the FAT chain from first (or the
 * contiguous run with nofat), up to size bytes (0: to the chain's end).
 * Every cluster is listed once: a chain that comes back to itself ends
 * at the last cluster before the first repeated one (found by Brent's
 * cycle test before the listing starts, so no memory per cluster and at
 * most four times the chain's length of FAT reads), with stop->end
 * FSC_CHAIN_LOOP; a loop that closes right after the size's last cluster
 * is reported too (the listing is then whole).  Returns the number of
 * clusters listed, or -errno (-EINVAL: stop's size is not set); *stop
 * (may be NULL) says how it ended.
 */
int64_t fsc_extents(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t first, uint64_t size,
		    bool nofat, fsc_extent_fn fn, void *ctx, struct fsc_chain_stop *stop);

/* Who owns a cluster (fsc_cluster_owner). */
enum fsc_owner_kind {
	FSC_OWNER_NONE,
	FSC_OWNER_RESERVED,		/* its bytes lie in the boot region (exFAT) or the reserved sectors (FAT) */
	FSC_OWNER_FAT,			/* ... in the FATs */
	FSC_OWNER_ROOT_AREA,		/* ... in the FAT12/16 fixed root directory area */
	FSC_OWNER_BITMAP,		/* exFAT's allocation bitmap */
	FSC_OWNER_UPCASE,		/* exFAT's up-case table */
	FSC_OWNER_ROOT,			/* the root directory (exFAT, FAT32) */
	FSC_OWNER_FILE,			/* a live file */
	FSC_OWNER_DIR,			/* a live directory */
	FSC_OWNER_DELETED,		/* free, and a deleted entry's recoverable data holds it */
	FSC_OWNER_FREE,			/* free, no entry found that had it */
	FSC_OWNER_BAD,			/* marked bad in the FAT */
	FSC_OWNER_LOST,			/* allocated, owned by nothing */
};
/* "reserved", "fat", "root-area", "bitmap", "upcase", "root", "file", "directory", "deleted", "free", "bad", "lost". */
const char *fsc_owner_kind_name(enum fsc_owner_kind k);

struct fsc_owner {
	size_t size;			/* sizeof(struct fsc_owner): FSC_OWNER_INIT sets it */
	enum fsc_owner_kind kind;
	uint32_t cluster;		/* the cluster asked about */
	uint64_t byte;			/* its byte offset in the volume */
	uint32_t clusters;		/* data clusters the device holds (valid: 2 .. clusters + 1) */
	uint32_t next;			/* its FAT entry as the FAT reader normalises it */
	bool allocated;			/* exFAT: set in the bitmap; FAT: a FAT entry that is not free or bad */
	bool bitmap_known;		/* false on an exFAT volume whose bitmap cannot be read */
	uint32_t head;			/* the first cluster of the allocation holding it */
	uint64_t index;			/* its position in that allocation (0: the head) */
	const char *path;		/* FILE, DIR, DELETED: the entry's path ("" otherwise) */
	const char *dir;		/* the directory holding the entry */
	uint32_t entry_cluster;		/* the cluster holding the entry; 0: the FAT12/16 root area */
	uint64_t entry_byte;		/* byte offset of the entry (exFAT: the file entry; FAT: the 8.3 one) */
	int64_t entry_index;		/* the entry's 32-byte slot in its directory; -1: not known */
	enum fsc_recovery recovery;	/* DELETED: how much of that entry's data is left */
};
#define FSC_OWNER_INIT { .size = sizeof(struct fsc_owner) }

/*
 * Who owns cluster (2 .. clusters + 1) of the volume probed as p: the
 * tree is walked and each allocation followed until the cluster is met
 * (the first owner of a cross-linked cluster; chains bounded, loops
 * cut), no per-cluster map is built.  Strings are stored in buf (len
 * bytes; cut short to "" when it is too small).  Returns 0 and *out,
 * -ERANGE (not a cluster of the data area the device holds; out->clusters
 * is set), -EINVAL (not exFAT or FAT, or out's size not set), -EIO, -ENOMEM.
 */
int fsc_cluster_owner(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t cluster,
		      struct fsc_owner *out, char *buf, size_t len);
/*
 * The same, the entry whose path is besides passed over: the other owner
 * of a cross-linked cluster (fsc_file_shared).
 */
int fsc_cluster_owner_besides(struct fsc_dev *dev, const struct fsc_probe *p, uint32_t cluster,
			      const char *besides, struct fsc_owner *out, char *buf, size_t len);

struct fsc_alloc_summary {
	size_t size;			/* sizeof(struct fsc_alloc_summary): FSC_ALLOC_SUMMARY_INIT sets it */
	uint64_t clusters, used, free, bad;
	uint64_t free_runs, largest_free_run;
	uint32_t cluster_bytes;
};
#define FSC_ALLOC_SUMMARY_INIT { .size = sizeof(struct fsc_alloc_summary) }
/*
 * Used, free and bad clusters (exFAT: from the bitmap and the FAT; FAT:
 * from the FAT).  -EINVAL when out's size is not set.
 */
int fsc_alloc_summary(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_alloc_summary *out);

/* Where things are on an exFAT or FAT volume (fsc_volume_geometry). */
struct fsc_geometry {
	size_t size;			/* sizeof(struct fsc_geometry): FSC_GEOMETRY_INIT sets it */
	uint32_t sector_size;		/* bytes: the volume's own, or the device's when it gives none usable */
	uint32_t cluster_size;		/* bytes */
	uint32_t clusters;		/* data clusters as the boot sector says */
	uint32_t clusters_on_device;	/* of those, the ones inside the device */
	uint64_t data_offset;		/* byte offset of cluster 2 in the volume */
	uint64_t fat_offset;		/* byte offset of the first FAT */
	unsigned fat_bits;		/* FAT entry width as the drivers read it: 12, 16 or 32 */
	uint32_t root_cluster;		/* exFAT, FAT32: first cluster of the root directory */
	uint64_t root_offset;		/* FAT12/16: byte offset and size of the fixed root directory */
	uint32_t root_size;
};
#define FSC_GEOMETRY_INIT { .size = sizeof(struct fsc_geometry) }

/*
 * The geometry of the volume probed as p, from its boot sector (exFAT in
 * its own sector size, FAT by its BPB) and the device's size.  Returns 0,
 * or -EINVAL when p is not exFAT or FAT or its geometry is unusable; even
 * then out->sector_size is set (the rest is 0).  -EINVAL, out untouched,
 * when out's size is not set.
 */
int fsc_volume_geometry(struct fsc_dev *dev, const struct fsc_probe *p, struct fsc_geometry *out);

/* ------------------------------------------------------------------ */
/* Checking (fsck)                                                     */

struct fsc_check_summary {
	size_t size;			/* sizeof(struct fsc_check_summary): FSC_CHECK_SUMMARY_INIT sets it */
	uint64_t files, dirs;
	uint64_t clusters_total;
	uint64_t clusters_used;		/* owned by files, directories and metadata */
	uint64_t clusters_marked;	/* set in the allocation bitmap */
	uint64_t lost_clusters;		/* marked but owned by nobody */
	uint64_t fragmented;		/* files and directories not in one run */
	uint64_t suppressed;		/* findings not listed (per-problem cap) */
	/*
	 * 0: every pass ran.  Else the check's budget (fsc_check_opts.deadline)
	 * ran out and this is the first pass not wholly checked; the passes
	 * after it did not run (incomplete_partly: that pass was begun and
	 * stopped at a directory boundary), of npasses.
	 */
	int incomplete, npasses;
	bool incomplete_partly;
	/*
	 * Directories read only to their end-of-directory marker
	 * (fsc_check_opts.to_end_marker): the entries after it, in the rest
	 * of their clusters, were not checked.
	 */
	uint64_t dirs_to_end_marker;
};
#define FSC_CHECK_SUMMARY_INIT { .size = sizeof(struct fsc_check_summary) }

/* Progress: pass p of n, done of total units. */
typedef void (*fsc_progress_fn)(void *ctx, int pass, int npasses, uint64_t done, uint64_t total);

/*
 * The options structs carry their size, so that they can grow: make one
 * with its _INIT macro (FSC_CHECK_OPTS_INIT, FSC_REPAIR_OPTS_INIT), then
 * set members.  The library takes zero for members an older caller's
 * struct lacks; a struct whose size is not set is refused (-EINVAL), as is
 * a newer caller's that sets a member this library does not know (-E2BIG).
 */
struct fsc_check_opts {
	size_t size;			/* sizeof(struct fsc_check_opts): FSC_CHECK_OPTS_INIT sets it */
	fsc_progress_fn progress;	/* may be NULL */
	void *ctx;
	unsigned max_per_problem;	/* 0: 100 findings of one ID, then a count */
	unsigned threads;		/* 0: a second thread on large trees; 1: none */
	/*
	 * 0: none.  Else a CLOCK_MONOTONIC time in nanoseconds: past it the
	 * check begins no further pass and no further directory, and says so
	 * in fsc_check_summary.incomplete (a repair then plans nothing).
	 */
	uint64_t deadline;
	/*
	 * Read each directory only up to its end-of-directory marker (rounded
	 * up to 4 KiB), as fsck -p does: the entries in use after a marker
	 * (EXFAT_AFTER_END, FAT_AFTER_END) are then not looked for, and
	 * fsc_check_summary.dirs_to_end_marker counts the directories so read.
	 */
	bool to_end_marker;
};
#define FSC_CHECK_OPTS_INIT { .size = sizeof(struct fsc_check_opts) }

/*
 * Check the volume probed as p (o may be NULL).  The findings go to out,
 * which the caller owns (an empty list of fsc_findings_new(); free it with
 * fsc_findings_free() whatever this returns): a copy of the probe's findings first, then the
 * check's own, so that out is the whole ledger.  p is not changed.
 * exFAT: FAT, allocation bitmap, up-case table, the whole directory tree
 * and the allocation as a whole; FAT12/16/32: boot sector, every FAT
 * copy, the directory tree, lost clusters and FSInfo.  Reads only; memory is two bits per
 * cluster plus the up-case table and one directory's names at a time.  On
 * a large tree a second thread reads directory data past the end markers
 * (o->threads 1: none); it has ended when this returns.
 * Returns 0 (the volume may still be damaged: see the findings), -EINVAL
 * for other types or options or a summary (sum, made with
 * FSC_CHECK_SUMMARY_INIT) whose size is not set, -E2BIG for options this
 * library does not know, -ENOMEM.
 */
int fsc_check(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *o,
	      struct fsc_findings *out, struct fsc_check_summary *sum);

/* ------------------------------------------------------------------ */
/* Repair                                                              */

enum fsc_repair_level {
	FSC_REPAIR_PREEN,		/* only fixes marked safe for fsck -p (no data lost, no choice) */
	FSC_REPAIR_ALL,			/* every fix the library has */
};

struct fsc_repair_opts {
	size_t size;			/* sizeof(struct fsc_repair_opts): FSC_REPAIR_OPTS_INIT sets it */
	enum fsc_repair_level level;
	bool free_lost;			/* clear the bitmap bits of lost clusters (fsck --lost=free); else
					   FSC_REPAIR_ALL saves them as files of a new /FOUND.nnn */
	int64_t now;			/* seconds since the epoch, for the timestamps of new entries */
	/*
	 * Asked once for each finding whose fix the level allows, before its
	 * edits are planned (NULL: yes to all).  false leaves it unfixed.
	 */
	bool (*ask)(void *ctx, const struct fsc_finding *f);
	void *ctx;
	/*
	 * With free_lost: each lost chain's bytes, cluster by cluster, read
	 * while planning, before any write frees them (fsck --lost-to DIR
	 * copies them out of the volume): the chain's number (from 0), the
	 * byte offset in it, the bytes.  Non-zero stops the repair: the call
	 * returns -ECANCELED and nothing is planned.  NULL: freed unread.
	 */
	int (*lost_bytes)(void *ctx, unsigned chain, uint64_t off, const void *buf, size_t len);
	/*
	 * FSC_REPAIR_PREEN saves lost clusters too (not free_lost), as -y
	 * does: fsck.exfat -s, fsck.fat -f, where the caller chose it.
	 */
	bool preen_saves_lost;
};
#define FSC_REPAIR_OPTS_INIT { .size = sizeof(struct fsc_repair_opts) }

/*
 * Check the volume as fsc_check does (same findings in out, same summary)
 * and plan the repairs that ro allows into plan, which should be empty
 * (co and ro may be NULL: the defaults, FSC_REPAIR_PREEN).
 * Each finding the plan fixes has planned set.  The plan is bracketed by
 * VolumeDirty: set (and synced) before the first change, cleared last
 * only when no error is left unplanned; the backup boot region, when it
 * is repaired, is written after everything else.  A check cut short by
 * co->deadline (sum->incomplete) plans nothing.  Nothing is written:
 * fsc_plan_apply() does that.  exFAT and FAT12/16/32 (the dirty bits of
 * FAT[1] and the boot sector bracket a FAT plan), planned round after
 * round on the plan's view until a round plans nothing (ten at most);
 * the check of the final view decides what is planned and what is left.
 * Returns 0 (the plan may be empty), -EINVAL for other types or options
 * or a summary whose size is not set, -E2BIG (see fsc_check), -ENOMEM,
 * -EIO.
 */
int fsc_plan_repair(struct fsc_dev *dev, const struct fsc_probe *p, const struct fsc_check_opts *co,
		    const struct fsc_repair_opts *ro, struct fsc_findings *out,
		    struct fsc_check_summary *sum, struct fsc_plan *plan);

/* ------------------------------------------------------------------ */
/* exFAT checksums (EXSPEC 3.4, 6.3.3, 7.2.2)                          */

uint32_t fsc_exfat_boot_checksum(const uint8_t *sectors, size_t sector_size);
uint16_t fsc_exfat_set_checksum(const uint8_t *entries, size_t count);
uint32_t fsc_exfat_table_checksum(const uint8_t *data, size_t len, uint32_t sum);
/* NameHash of a name of n UTF-16 units, up-cased with upcase (65536 entries). */
uint16_t fsc_exfat_name_hash(const uint16_t *name, size_t n, const uint16_t *upcase);

/* The version of the library as it runs (the fatscope release it was built from): a static string. */
const char *fsc_version(void);

#ifdef __cplusplus
}
#endif
#endif
