#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fat-bench.sh - time `fatscope fsck -n` against dosfstools' `fsck.fat -n`
# on two populated FAT images, in the same run, alternating which goes
# first: 100,000 files in 10,100 directories on a sparse 16 GiB FAT32 image
# (8 KiB clusters) and 10,000 files in 110 directories on a 2 GiB FAT16
# image (64 KiB clusters).  Also peak RSS of both, and fatscope's peak RSS
# on an empty sparse FAT32 volume of 128 GiB with 512-byte clusters (about
# 2^28 clusters), which must stay within 64 MiB + 2 bits a cluster
# (BENCH_HUGE=0 skips that one).
#
# The images are written by mtools (mcopy -s of a generated tree) and
# cached.  Targets (issue #12): fatscope at most 0.05x fsck.fat's wall time
# (BENCH_LIMIT) and at most 1/8 of its peak RSS (BENCH_RSS_LIMIT) on the
# 100k image.
# Exit status: 0 PASS (or BENCH_REPORT_ONLY=1), 1 FAIL, 2 setup or run
# error.  Environment: BENCH_RUNS (7), BENCH_BUILDDIR, FATSCOPE,
# FATSCOPE_BENCH_CACHE, GNU_TIME; BENCH_BUILD_ONLY=1 builds the cached
# images (when missing) and exits 0 without measuring (fat-repair-bench.sh
# uses this).

set -euo pipefail

prog=fat-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)

runs=${BENCH_RUNS:-7}
limit=${BENCH_LIMIT:-0.05}
rss_limit=${BENCH_RSS_LIMIT:-0.125}
report_only=${BENCH_REPORT_ONLY:-0}
huge=${BENCH_HUGE:-1}
build_only=${BENCH_BUILD_ONLY:-0}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fat}
if [[ $build_only != 1 ]]; then
	fatscope_default "$root"
	fatscope_check
	gnu_time required
fi
for t in mkfs.fat fsck.fat mcopy python3; do
	command -v "$t" > /dev/null || die "$t not found (apt-get install -y dosfstools mtools python3)"
done

# label -> "size mkfs-options top-dirs sub-dirs-per-top files-per-leaf"
recipe_version=1
labels=(100k 10k)
declare -A spec=(
	[100k]="16G -F_32_-s_16 100 100 10"
	[10k]="2G -F_16_-s_128 10 10 100"
)

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/fat-bench.XXXXXX")
trap 'rm -rf -- "$tmpd"' EXIT
mkdir -p -- "$cache"

# Files of 0..2999 bytes, the size a function of the index (the same on every build).
make_tree() {	# make_tree DIR TOPS SUBS FILES
	python3 - "$@" <<'PY'
import os, sys
d, tops, subs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n = 0
for t in range(tops):
    for s in range(max(subs, 1)):
        p = os.path.join(d, "d%04d" % t, "e%02d" % s) if subs else os.path.join(d, "d%04d" % t)
        os.makedirs(p, exist_ok=True)
        for f in range(files):
            with open(os.path.join(p, "file-%04d.txt" % f), "wb") as fh:
                fh.write(b"x" * (n * 37 % 3000))
            n += 1
PY
}

img_path() { echo "$cache/$1.v$recipe_version.img"; }

build() {	# build LABEL
	local label=$1 img size opts tops subs files
	img=$(img_path "$label")
	[[ -s $img ]] && return
	read -r size opts tops subs files <<< "${spec[$label]}"
	note "building $img ($size, mkfs.fat ${opts//_/ }, $tops x $subs x $files files)"
	rm -rf -- "$tmpd/tree"; mkdir -p -- "$tmpd/tree"
	make_tree "$tmpd/tree" "$tops" "$subs" "$files"
	rm -f -- "$img.tmp"; truncate -s "$size" "$img.tmp"
	# shellcheck disable=SC2086
	mkfs.fat ${opts//_/ } -i 12345678 "$img.tmp" > /dev/null
	MTOOLS_SKIP_CHECK=1 mcopy -s -i "$img.tmp" "$tmpd"/tree/* ::/ || die "mcopy failed on $img.tmp"
	fsck.fat -n "$img.tmp" > /dev/null 2>&1 || die "fsck.fat -n calls the new $label image damaged"
	mv -- "$img.tmp" "$img"
	rm -rf -- "$tmpd/tree"
}

# shellcheck disable=SC2317
run_fatscope() { local img=$1; shift; "$@" "$FATSCOPE" fsck -n -- "$img" > /dev/null 2>&1 < /dev/null || die "fatscope fsck -n $img failed"; }
# shellcheck disable=SC2317
run_fsck_fat() { local img=$1; shift; "$@" fsck.fat -n -- "$img" > /dev/null 2>&1 < /dev/null || die "fsck.fat -n $img failed"; }

if [[ $build_only == 1 ]]; then
	for label in "${labels[@]}"; do build "$label"; done
	exit 0
fi

note "fatscope: $FATSCOPE"
note "fsck.fat: $(command -v fsck.fat) (dosfstools $(dpkg-query -W -f '${Version}' dosfstools 2>/dev/null || echo '?'))"
note "$runs timed runs per tool and image, alternating; load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
fail=0
for label in "${labels[@]}"; do
	build "$label"
	img=$(img_path "$label")
	note "$label: $("$FATSCOPE" fsck -n "$img" | tail -n 1)"
	run_fatscope "$img"; run_fsck_fat "$img"	# warm the page cache
	for f in fatscope.us fsck_fat.us fatscope.rss fsck_fat.rss; do : > "$tmpd/$f"; done
	for (( r = 1; r <= runs; r++ )); do
		alternate "$r" fatscope fsck_fat "$img"
		rss fatscope "$img"; rss fsck_fat "$img"
	done
	mf=$(median < "$tmpd/fatscope.us"); me=$(median < "$tmpd/fsck_fat.us")
	rf=$(median < "$tmpd/fatscope.rss"); re=$(median < "$tmpd/fsck_fat.rss")
	tv=$(verdict "$mf" "$me" "$limit"); rv=$(verdict "$rf" "$re" "$rss_limit")
	# (on the small image fsck.fat needs 4 MiB: a process's own start-up,
	# about 2.5 MiB of libraries and stack, is more than 1/8 of it)
	[[ $tv == PASS && ( $rv == PASS || $label != 100k ) ]] || fail=1
	[[ $label == 100k ]] || rv="$rv, not counted"
	printf '%s %s: fatscope %s ms, fsck.fat %s ms, ratio %s (limit %s): %s; peak RSS fatscope %s MiB, fsck.fat %s MiB, ratio %s (limit %s): %s\n' \
		"$prog" "$label" "$(fmt_ms "$mf")" "$(fmt_ms "$me")" "$(ratio "$mf" "$me")" "$limit" "$tv" \
		"$(fmt_mib "$rf")" "$(fmt_mib "$re")" "$(ratio "$rf" "$re")" "$rss_limit" "$rv"
done

# A sparse 128 GiB FAT32 volume of 512-byte clusters (about 2^28): memory
# within 64 MiB + 2 bits a cluster.
if [[ $huge == 1 ]]; then
	img=$tmpd/huge.img
	truncate -s 128G "$img"
	mkfs.fat -F 32 -s 1 -i 12345678 "$img" > /dev/null 2>&1 || die "mkfs.fat failed on the huge image"
	clusters=$("$FATSCOPE" fsck -n "$img" | sed -n 's/.* \([0-9]*\)\/\([0-9]*\) clusters used.*/\2/p')
	: > "$tmpd/fatscope.rss"
	rss fatscope "$img"
	rf=$(tail -n1 "$tmpd/fatscope.rss")
	bound=$(( 65536 + clusters / 4 / 1024 ))
	hv=$( (( rf <= bound )) && echo PASS || echo FAIL)
	[[ $hv == PASS ]] || fail=1
	printf '%s huge: %s clusters, peak RSS fatscope %s MiB, bound 64 MiB + 2 bits a cluster = %s MiB: %s\n' \
		"$prog" "$clusters" "$(fmt_mib "$rf")" "$(fmt_mib "$bound")" "$hv"
	rm -f -- "$img"
fi
(( fail == 0 || report_only == 1 )) || exit 1
exit 0
