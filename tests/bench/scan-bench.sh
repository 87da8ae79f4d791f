#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scan-bench.sh - time `fatscope scan`:
#  1. on a sparse 8 GiB disk image with four volumes at odd sectors and no
#     partition table (exFAT 512 MiB, FAT32 1 GiB, FAT16 256 MiB, and an
#     exFAT 64 MiB near the end whose main boot sector is zeroed), beside
#     `cat` of the same image (which reads every byte of the holes): the
#     four must be found, and the bytes the scan read are reported;
#  2. on a 1 GiB file of pseudo-random bytes, not sparse (every byte read,
#     no volume), against `cat` and `dd bs=4M` reading it once, in the same
#     run, alternating which goes first; the page cache is warm for all
#     three (a warm-up run each), so the figure is the scan's own cost over
#     a read.  Target: at most BENCH_LIMIT (1.25) times the faster of cat
#     and dd.
# The images are cached (FATSCOPE_BENCH_CACHE).  Exit status: 0 PASS (or
# BENCH_REPORT_ONLY=1), 1 FAIL, 2 setup or run error.  Environment:
# BENCH_RUNS (5), BENCH_LIMIT, BENCH_BUILDDIR, FATSCOPE,
# FATSCOPE_BENCH_CACHE.

set -euo pipefail

prog=scan-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)

runs=${BENCH_RUNS:-5}
limit=${BENCH_LIMIT:-1.25}
report_only=${BENCH_REPORT_ONLY:-0}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/scan}
fatscope_default "$root"
fatscope_check
for t in mkfs.exfat mkfs.fat dd cat; do
	command -v "$t" > /dev/null || die "$t not found (apt-get install -y exfatprogs dosfstools)"
done
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/scan-bench.XXXXXX")
trap 'rm -rf -- "$tmpd"' EXIT
mkdir -p "$cache" || die "cannot make $cache"

# The sparse disk: start sector, sectors, mkfs words a volume.
vols=("2049 1048576 exfat" "1050629 2097152 -F_32" "3147783 524288 -F_16" "16000001 131072 exfat")
sparse=$cache/sparse-8g-v1.img
dense=$cache/random-1g-v1.img

make_sparse() {
	local v s n how
	note "making $sparse"
	rm -f "$sparse" "$tmpd/v"
	truncate -s 8G "$sparse.tmp"
	for v in "${vols[@]}"; do
		read -r s n how <<< "$v"
		truncate -s $((n * 512)) "$tmpd/v"
		if [[ $how == exfat ]]; then mkfs.exfat "$tmpd/v" > /dev/null; else mkfs.fat ${how//_/ } "$tmpd/v" > /dev/null; fi
		dd if="$tmpd/v" of="$sparse.tmp" bs=512 seek="$s" conv=notrunc,sparse status=none
		rm -f "$tmpd/v"
	done
	dd if=/dev/zero of="$sparse.tmp" bs=512 seek=16000001 count=1 conv=notrunc status=none
	mv "$sparse.tmp" "$sparse"
}
[[ -f $sparse ]] || make_sparse
if [[ ! -f $dense || $(stat -c %s "$dense") != 1073741824 ]]; then
	note "making $dense"
	head -c 1G /dev/urandom > "$dense.tmp" && mv "$dense.tmp" "$dense" || die "cannot write $dense"
fi

run_scan() {
	local rc=0
	"$FATSCOPE" scan "$1" > /dev/null || rc=$?
	(( rc == 0 || rc == 2 )) || die "fatscope scan $1: exit $rc"
}
run_cat() { cat "$1" > /dev/null; }
run_dd() { dd if="$1" of=/dev/null bs=4M status=none; }
# The same tools under other names, for the sparse image's figures.
run_sscan() { run_scan "$@"; }
run_scat() { run_cat "$@"; }

# 1. The sparse image: the four volumes found, the bytes read, the times.
json=$("$FATSCOPE" scan -J "$sparse") || die "fatscope scan -J $sparse failed"
found=$(grep -c '"confidence": "high"' <<< "$json" || true)
[[ $found == 4 ]] || die "$sparse: $found volumes found with high confidence, 4 made"
read_bytes=$(sed -n 's/^    "read": \([0-9]*\),$/\1/p' <<< "$json")
run_scat "$sparse"
for ((r = 1; r <= runs; r++)); do
	alternate "$r" sscan scat "$sparse"
	printf 'sparse round %d: scan %s ms, cat %s ms\n' "$r" "$(fmt_ms "$_u1")" "$(fmt_ms "$_u2")"
done
ss=$(median < "$tmpd/sscan.us"); sc=$(median < "$tmpd/scat.us")
printf 'sparse 8 GiB, 4 volumes: scan %s ms (%s bytes read), cat %s ms: ratio %s\n' \
	"$(fmt_ms "$ss")" "$read_bytes" "$(fmt_ms "$sc")" "$(ratio "$ss" "$sc")"

# 2. 1 GiB of random bytes: scan against cat and dd.
for t in scan cat dd; do "run_$t" "$dense"; done
for ((r = 1; r <= runs; r++)); do
	alternate "$r" scan cat "$dense"
	timed dd "$dense"
	printf 'dense round %d: scan %s ms, cat %s ms, dd %s ms\n' "$r" "$(fmt_ms "$_u1")" "$(fmt_ms "$_u2")" \
		"$(fmt_ms "$_us")"
done
ms=$(median < "$tmpd/scan.us"); mc=$(median < "$tmpd/cat.us"); md=$(median < "$tmpd/dd.us")
floor=$(awk -v a="$mc" -v b="$md" 'BEGIN { print (a < b ? a : b) }')
v=$(verdict "$ms" "$floor" "$limit")
printf 'dense 1 GiB: scan %s ms, cat %s ms, dd %s ms: ratio %s against cat, %s against dd (limit %s): %s\n' \
	"$(fmt_ms "$ms")" "$(fmt_ms "$mc")" "$(fmt_ms "$md")" "$(ratio "$ms" "$mc")" "$(ratio "$ms" "$md")" "$limit" "$v"
[[ $v == PASS || $report_only == 1 ]] || exit 1
