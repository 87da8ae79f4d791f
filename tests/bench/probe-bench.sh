#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# probe-bench.sh - time `fatscope probe` against `blkid -p` on the same
# 1,000 small images, each tool probing all of them in a single call.
#
# See tests/bench/README.md for what is measured and the environment
# variables. Exit status: 0 PASS (or BENCH_REPORT_ONLY=1), 1 FAIL,
# 2 setup or run error.

set -euo pipefail

prog=probe-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)
fixtures=$root/tests/fixtures/img

# ---------------------------------------------------------------- settings

count=${BENCH_IMAGES:-1000}
runs=${BENCH_RUNS:-5}
limit=${BENCH_LIMIT:-2.00}
report_only=${BENCH_REPORT_ONLY:-0}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/probe}
fatscope_default "$root"
BLKID=${BLKID:-blkid}

[[ $count =~ ^[1-9][0-9]*$ ]] || die "BENCH_IMAGES must be a positive integer (got '$count')"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_LIMIT must be a number (got '$limit')"

# The image mix. Each class gets a share of the images, spread round-robin
# over its fixtures. blank.img and random.img are deliberately left out:
# blkid 2.38 `-p` stops at the first device on which it finds nothing (it
# exits 2 without probing the rest: `blkid -p blank.img exfat.img` prints
# nothing), so one such image would cut blkid's run short and make the
# comparison meaningless. zero-sig, mbr-bootcode and ntfs still cover
# "not an exFAT/FAT volume" (blkid reports a PTTYPE or TYPE for them).
classes=(exfat fat16 fat32 fat12 other)
declare -A pct=([exfat]=40 [fat16]=20 [fat32]=15 [fat12]=10)
declare -A members=(
	[exfat]="exfat exfat-dirty exfat-guid"
	[fat16]="fat16"
	[fat32]="fat32 fat32-dirty"
	[fat12]="fat12"
	[other]="ntfs mbr-disk gpt-disk mbr-bootcode zero-sig
		 exfat-backup-differs exfat-bad-checksum exfat-bad-fsname
		 exfat-bitmap-small exfat-jump exfat-mustbezero
		 exfat-mustbezero-fat16 exfat-no-signature exfat-numfats2
		 exfat-truncated exfat-upcase-bad
		 fat16-fat32bpb fat16-fstype-fat32 fat16-no-signature"
)
# Bump when the way the cache is built changes.
recipe_version=1

declare -A nclass
left=$count
for c in exfat fat16 fat32 fat12; do
	nclass[$c]=$(( count * pct[$c] / 100 ))
	left=$(( left - nclass[$c] ))
done
nclass[other]=$left

# ---------------------------------------------------------------- tools

command -v zstd >/dev/null || die "zstd not found (apt-get install -y zstd)"
command -v "$BLKID" >/dev/null || die "blkid not found (apt-get install -y util-linux)"
BLKID=$(command -v "$BLKID")

fatscope_check

# Peak RSS needs GNU time, /usr/bin/time (Debian: apt-get install -y time;
# GNU_TIME=/path overrides it); without it the report says "peak RSS: n/a".
gnu_time optional


# ---------------------------------------------------------------- cache

stamp_want() {
	local c m
	{
		printf 'recipe %s\ncount %s\n' "$recipe_version" "$count"
		for c in "${classes[@]}"; do
			printf 'class %s %s:' "$c" "${nclass[$c]}"
			for m in ${members[$c]}; do printf ' %s' "$m"; done
			printf '\n'
		done
		# Rebuild when a fixture changes.
		for c in "${classes[@]}"; do
			for m in ${members[$c]}; do
				printf '%s\n' "$m.img.zst"
			done
		done | sort -u | (cd -- "$fixtures" && xargs sha256sum --)
	}
}

build_cache() {
	local c m i k n new base tmp
	local -a list mm
	for c in "${classes[@]}"; do
		for m in ${members[$c]}; do
			[[ -f $fixtures/$m.img.zst ]] || die "missing fixture $fixtures/$m.img.zst"
		done
	done
	mkdir -p -- "$cache"
	new=$(mktemp -d "$cache/img.new.XXXXXX")
	base=$new/.base
	mkdir "$base"
	note "building $count images in $cache (once; cached) ..."
	# Decompress each fixture once, as a sparse file.
	for c in "${classes[@]}"; do
		for m in ${members[$c]}; do
			[[ -e $base/$m.img ]] && continue
			tmp=$base/$m.tmp
			zstd -q -dc -- "$fixtures/$m.img.zst" > "$tmp"
			cp --sparse=always -- "$tmp" "$base/$m.img"
			rm -f -- "$tmp"
		done
	done
	# The list of fixtures, class by class, round-robin inside a class.
	for c in "${classes[@]}"; do
		read -r -d '' -a mm <<< "${members[$c]}" || true
		for (( i = 0; i < nclass[$c]; i++ )); do
			list+=("${mm[i % ${#mm[@]}]}")
		done
	done
	(( ${#list[@]} == count )) || die "internal: mix gives ${#list[@]} images, not $count"
	# Spread the classes over the probe order: image j is list[(j*k) % count]
	# with k coprime to count, so the files (sorted by name) interleave
	# exFAT, FAT and the rest instead of coming in blocks.
	gcd() { local a=$1 b=$2 t; while (( b )); do t=$(( a % b )); a=$b; b=$t; done; echo "$a"; }
	for k in 7919 7907 7901 7883 7877 1; do
		(( $(gcd "$k" "$count") == 1 )) && break
	done
	# Distinct files, each a sparse copy of its fixture.
	for (( i = 0; i < count; i++ )); do
		n=$(( i * k % count ))
		m=${list[n]}
		cp --sparse=always -- "$base/$m.img" "$new/$(printf '%04d' "$i")-$m.img"
	done
	rm -rf -- "$base"
	rm -f -- "$cache/stamp"
	rm -rf -- "$cache/img"
	mv -- "$new" "$cache/img"
	stamp_want > "$cache/stamp"
	note "built: $(du -sh --apparent-size -- "$cache/img" | cut -f1) apparent, $(du -sh -- "$cache/img" | cut -f1) on disk"
}

shopt -s nullglob
want=$(stamp_want)
have=
[[ -f $cache/stamp ]] && have=$(<"$cache/stamp")
imgs=("$cache"/img/*.img)
if [[ $have != "$want" ]] || (( ${#imgs[@]} != count )); then
	build_cache
	imgs=("$cache"/img/*.img)
	(( ${#imgs[@]} == count )) || die "cache build left ${#imgs[@]} images, not $count"
fi
shopt -u nullglob

# ---------------------------------------------------------------- checks

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/probe-bench.XXXXXX")
trap 'rm -rf -- "$tmpd"' EXIT

note "$count images ($(for c in "${classes[@]}"; do printf '%s %s, ' "${nclass[$c]}" "$c"; done | sed 's/, $//')) in $cache/img"
note "fatscope: $FATSCOPE"
note "blkid:    $BLKID ($("$BLKID" --version 2>&1 | head -n1))"
if head -c 4096 -- "$FATSCOPE" | grep -q 'Generated by libtool'; then
	note "note: $FATSCOPE is a libtool wrapper script: its bash start-up and"
	note "      argument handling are timed too; to time the real binary run"
	fdir=$(dirname -- "$FATSCOPE")
	note "      LD_LIBRARY_PATH=$fdir/libexfat/.libs FATSCOPE=$fdir/.libs/$(basename -- "$FATSCOPE") $0"
fi

# Warm-up run of each tool (fills the page cache); its output is checked so
# that both tools really probed every image.
rc=0
"$FATSCOPE" probe "${imgs[@]}" > "$tmpd/f.out" 2> "$tmpd/f.err" || rc=$?
case $rc in
0|1|2) ;;
*) sed -n 1,5p "$tmpd/f.err" >&2; die "fatscope probe exited $rc in the warm-up run" ;;
esac
if [[ -s $tmpd/f.err ]]; then
	note "note: fatscope probe wrote to stderr in the warm-up run:"
	sed -n 1,5p "$tmpd/f.err"
fi
listed() { # report file, awk pattern for a header line -> image paths, sorted
	awk -v p="$cache/img/" -v re="$2" 'index($0, p) == 1 && $0 ~ re { sub(/: .*/, ""); print }' "$1" | sort -u
}
printf '%s\n' "${imgs[@]}" | sort > "$tmpd/all"
listed "$tmpd/f.out" '[.]img: ' > "$tmpd/f.list"
nf=$(wc -l < "$tmpd/f.list")
cmp -s "$tmpd/all" "$tmpd/f.list" || die "fatscope probe reported on $nf of $count images"

rc=0
"$BLKID" -p "${imgs[@]}" > "$tmpd/b.out" 2> "$tmpd/b.err" || rc=$?
case $rc in
0|2) ;;
*) sed -n 1,5p "$tmpd/b.err" >&2; die "blkid -p exited $rc in the warm-up run" ;;
esac
listed "$tmpd/b.out" '[.]img: ' > "$tmpd/b.list"
nb=$(wc -l < "$tmpd/b.list")
cmp -s "$tmpd/all" "$tmpd/b.list" || die "blkid -p reported on $nb of $count images (it stops at the first image with nothing found)"

# ---------------------------------------------------------------- measure


# Called as "run_$1" (see timed and rss below).
# shellcheck disable=SC2317
run_fatscope() {
	local rc=0
	"$@" "$FATSCOPE" probe "${imgs[@]}" > /dev/null 2>&1 || rc=$?
	case $rc in 0|1|2) ;; *) die "fatscope probe exited $rc" ;; esac
}
# shellcheck disable=SC2317
run_blkid() {
	local rc=0
	"$@" "$BLKID" -p "${imgs[@]}" > /dev/null 2>&1 || rc=$?
	case $rc in 0|2) ;; *) die "blkid -p exited $rc" ;; esac
}


fmt_ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }

: > "$tmpd/fatscope.us"
: > "$tmpd/blkid.us"
for (( r = 1; r <= runs; r++ )); do
	# Alternate the two, swapping which goes first on every run.
	alternate "$r" fatscope blkid; uf=$_u1 ub=$_u2
	if [[ -n $gnutime ]]; then
		rss fatscope
		rss blkid
	fi
	printf 'run %d: fatscope %s ms, blkid %s ms\n' "$r" "$(fmt_ms "$uf")" "$(fmt_ms "$ub")"
done

mf=$(median < "$tmpd/fatscope.us")
mb=$(median < "$tmpd/blkid.us")
ms_f=$(fmt_ms "$mf")
ms_b=$(fmt_ms "$mb")
ratio=$(awk -v f="$mf" -v b="$mb" 'BEGIN { printf "%.2f", f / b }')
verdict=$(awk -v f="$mf" -v b="$mb" -v l="$limit" 'BEGIN { print (f / b <= l + 0) ? "PASS" : "FAIL" }')
limit_s=$(awk -v l="$limit" 'BEGIN { printf "%.2f", l }')

printf 'median of %d runs: fatscope %s ms (%s us/image), blkid %s ms (%s us/image)\n' \
	"$runs" "$ms_f" "$(awk -v u="$mf" -v n="$count" 'BEGIN { printf "%.1f", u / n }')" \
	"$ms_b" "$(awk -v u="$mb" -v n="$count" 'BEGIN { printf "%.1f", u / n }')"
if [[ -n $gnutime ]]; then
	printf 'peak RSS (median): fatscope %s KiB, blkid %s KiB\n' \
		"$(median < "$tmpd/fatscope.rss" | awk '{ printf "%.0f", $1 }')" \
		"$(median < "$tmpd/blkid.rss" | awk '{ printf "%.0f", $1 }')"
else
	printf 'peak RSS: n/a\n'
fi
printf 'ratio fatscope/blkid: %s\n' "$ratio"
printf '%s: fatscope %s ms, blkid %s ms, ratio %s (limit %s): %s\n' \
	"$prog" "$ms_f" "$ms_b" "$ratio" "$limit_s" "$verdict"

if [[ $verdict == FAIL && $report_only != 1 ]]; then
	exit 1
fi
exit 0
