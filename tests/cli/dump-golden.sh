#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dump-golden.sh - fatscope dump on every exFAT and FAT fixture: the boot
# structures and the summary, the long tree with deleted entries, and JSON,
# against the reviewed transcripts in tests/cli/expected/dump/; every image
# unchanged afterwards.  FSC_UPDATE_GOLDEN=1 rewrites the transcripts.
. "$(dirname "$0")/lib.sh"

prepare_fixtures
mkdir -p "$EXPECTED/dump"
cd "$WORK/img" || hard_error "no $WORK/img"
names=()
for name in $(fixture_names); do
	case "$name" in exfat*|fat*|pop-*|bad-*) ;; *) continue ;; esac
	for mode in txt tree json; do
		case $mode in
		txt) args=() ;;
		tree) args=(-l -d) ;;
		json) args=(-J -b -s -l -d) ;;
		esac
		got=$("$FATSCOPE" dump "${args[@]}" "$name.img" 2>&1; echo "exit status: $?")
		want="$EXPECTED/dump/$name.$mode"
		golden "$name.$mode" "$want" "$got"
	done
	names+=("$name")
done
unchanged "${names[@]}"
# The partitions of a disk image, and a hex dump of one sector.
for args in "--partition 1 -l mbr-disk.img" "--partition 2 -l mbr-disk.img" "--sector 0 gpt-disk.img" \
	    "--cluster 2 fat32.img"; do
	key=$(tr ' /' '__' <<< "$args")
	got=$("$FATSCOPE" dump $args 2>&1; echo "exit status: $?")
	want="$EXPECTED/dump/args$key.txt"
	[ "${FSC_UPDATE_GOLDEN:-0}" = 1 ] && printf '%s\n' "$got" > "$want"
	if [ -f "$want" ] && diff -u "$want" <(printf '%s\n' "$got"); then ok; else bad "dump $args"; fi
done
finish
