#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# salvage-bench.sh - fatscope's repair beside the peers' on the same random
# damage (issue 21): the salvage harness (tests/salvage/salvage, built by
# make check) damages the populated exFAT and FAT fixtures with each seed,
# repairs every damaged volume with fatscope (the library, as fsck -y) and
# with fsck.exfat -y or fsck.fat -a -w, and prints, per family and damage
# kind, the files each tool lost and the volumes each left unfinished
# (its own -n, or the other's, still finding errors).  A measurement, not a
# test: it exits 0 when it ran (failures of fatscope counted in the
# table), 2 on a setup error.
#
# Usage: tests/bench/salvage-bench.sh [SEED...]     (default: 2 3)
# BENCH_COUNT: damaged volumes per small image and seed (default 100).

set -euo pipefail

# shellcheck disable=SC2034  # lib.sh uses it
prog=salvage-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)
builddir=${BENCH_BUILDDIR:-$root}
salvage=$builddir/tests/salvage/salvage
img=$builddir/tests/work/img
n=${BENCH_COUNT:-100}
[[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_COUNT must be a positive integer (got '$n')"
[[ -x $salvage ]] || die "no $salvage: run make check first (it builds the harness and the fixtures)"
for f in pop-small pop-c512 pop-full pop-many pop-fat12 pop-fat16 pop-fat32; do
	[[ -f $img/$f.img ]] || die "no fixture $img/$f.img: run make check first"
done
for t in fsck.exfat fsck.fat mdir; do
	command -v "$t" >/dev/null || die "$t not found (apt-get install -y exfatprogs dosfstools mtools)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=$builddir/libexfat/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

seeds=("$@")
[[ ${#seeds[@]} -gt 0 ]] || seeds=(2 3)
for s in "${seeds[@]}"; do
	[[ $s =~ ^[0-9]+$ ]] || die "a seed is a number (got '$s')"
	echo "== seed $s"
	# (the many-file and FAT32 images are bigger: fewer volumes of them)
	for set in "$n:pop-small pop-c512 pop-full" "$((n / 5)):pop-many" "$n:pop-fat12 pop-fat16" \
		   "$((n * 3 / 10)):pop-fat32"; do
		count=${set%%:*} names=${set#*:} files=()
		for f in $names; do files+=("$img/$f.img"); done
		"$salvage" -w "$work" -s "$s" -n "$count" --peers -q "${files[@]}" |
			grep -E '^(family|exfat|fat|salvage:) ' || true
	done
done
