#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dump-golden.sh - fatscope dump on every exFAT and FAT fixture: the boot
# structures and the summary, the long tree with deleted entries, and JSON,
# against the reviewed transcripts in tests/cli/expected/dump/; every image
# unchanged afterwards.  FSC_UPDATE_GOLDEN=1 rewrites the transcripts.
# One process a dump: its output goes to a file the shell reads.
. "$(dirname "$0")/lib.sh"

prepare_fixtures
mkdir -p "$EXPECTED/dump"
cd "$WORK/img" || hard_error "no $WORK/img"
out="$SCRATCH/out"
# run ARGS...: got is fatscope dump's output (stdout and stderr) then its exit status
run() {
	"$FATSCOPE" dump "$@" > "$out" 2>&1
	local rc=$?
	got=
	IFS= read -r -d '' got < "$out"
	got+="exit status: $rc"
}
names=()
for name in $(fixture_names); do
	case "$name" in exfat*|fat*|pop-*|bad-*) ;; *) continue ;; esac
	for mode in txt tree json; do
		case $mode in
		txt) args=() ;;
		tree) args=(-l -d) ;;
		json) args=(-J -b -s -l -d) ;;
		esac
		run "${args[@]}" "$name.img"
		want="$EXPECTED/dump/$name.$mode"
		golden "$name.$mode" "$want" "$got"
	done
	names+=("$name")
done
unchanged "${names[@]}"
# The partitions of a disk image, and a hex dump of one sector.
for args in "--partition 1 -l mbr-disk.img" "--partition 2 -l mbr-disk.img" "--sector 0 gpt-disk.img" \
	    "--cluster 2 fat32.img"; do
	key=${args//[ \/]/_}
	run $args
	golden "dump $args" "$EXPECTED/dump/args$key.txt" "$got"
done
finish
