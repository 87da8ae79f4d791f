/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fat_patches.h - the patches of a populated FAT volume that trigger each
 * FAT check problem (fat_patches.c), for test_problems.c's table.
 */
#ifndef FSC_TEST_FAT_PATCHES_H
#define FSC_TEST_FAT_PATCHES_H

#include "builder.h"

#define FAT_PATCHES(X) \
	X(fat_unreadable) X(fat0) X(fat1_flags) X(copies_differ) X(chain_range) X(chain_loop) X(cross_link) \
	X(chain_free) X(chain_bad) X(chain_short) X(chain_long) X(chain_zero_size) X(lost) X(fsinfo_free) \
	X(fsinfo_next) X(fsinfo_backup) X(dot_missing) X(dots_garbage) X(dot_cluster) X(short_name) X(short_no83) X(short_unusual) \
	X(name_dup) X(name_case_dup) X(lfn_sequence) X(lfn_checksum) X(lfn_orphan) X(lfn_utf16) X(lfn_length) X(lfn_reserved) X(after_end) \
	X(dir_size) X(dir_no_cluster) X(label_entry) X(label_mismatch) X(label_sig28) X(label_sig28_f32) X(file_dir_bit) X(label_entry_owned) X(label_root_missing) X(attributes) X(lfn_attributes) X(timestamp) \
	X(dir_unreadable) X(fat12_odd) X(f32_tree) X(f12_tree) X(inactive_copy) X(dir_free_sub) X(dir_astray) X(dir_cycle) X(dir_into_file) X(dir_range) X(copies_wrong) \
	X(lost_dir) X(lost_subdir) X(lost_dir_damaged)

#define FAT_PATCH_DECL(n) void pf_##n(struct img *im);
FAT_PATCHES(FAT_PATCH_DECL)

#endif
