#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay.sh - run every fuzz harness as a replay program over the seed
# corpus, the regression inputs and the test fixtures (make check; the
# container harness over the corpus only).  A replay reads an input whole,
# and the time goes with the size: the fixtures over 8 MiB (the FAT16 and
# FAT32 ones, the disks, pop-c32m's 320 MiB: 19 of 25 s here) only with
# FATSCOPE_LONG_TESTS=1; the CLI tests run fatscope itself on every one of them.
. "$(dirname "$0")/../tests/cli/lib.sh"
prepare_fixtures
inputs=("$top_srcdir/fuzz/corpus")
left=()
declare -A size=()
while read -r img bytes; do size[$img]=$bytes; done < <(stat -c '%n %s' "$WORK"/img/*.img)
for name in $(fixture_names); do
	img=$WORK/img/$name.img
	if long_tests || [ "${size[$img]:-0}" -le $((8 << 20)) ]; then
		inputs+=("$img")
	else
		left+=("$name.img")
	fi
done
[ ${#left[@]} -eq 0 ] || echo "not replayed (over 8 MiB; FATSCOPE_LONG_TESTS=1 replays them): ${left[*]}"
# (linked -no-install: the programs themselves, no libtool wrapper script)
bin=$top_builddir/fuzz
for h in probe fsck dump label repair; do
	out=$("$bin/replay" $h "${inputs[@]}") || { echo "$out"; bad "replay $h"; continue; }
	echo "$h: $out"
	ok
done
# The container backends read files the harness writes for each input:
# the corpus only (its container-* inputs are EWF, VHD and VMDK files;
# every other input becomes a split raw set), not the fixtures.
out=$("$bin/replay" container "$top_srcdir/fuzz/corpus") && echo "container: $out" && ok ||
	{ echo "$out"; bad "replay container"; }
finish
