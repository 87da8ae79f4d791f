#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# plan-bench.sh - issue #22: "A plan of 100,000 edits (e.g. 100,000 lost
# chains saved) planned and applied in at most 10x the time of a plan of
# 10,000."  Times `fatscope fsck -y` (by default it saves each lost chain
# as a file /FOUND.nnn/FILEnnnn.CHK) on two empty exFAT volumes, one with
# 10,000 and one with 100,000 lost chains (clusters marked used in the
# allocation bitmap and ended in the FAT that no entry references), on a
# fresh copy of the damaged image each time, alternating the sizes.  The
# limit: t(100,000) / t(10,000) of the medians is at most 10.  Also checks
# each repaired volume with `fatscope fsck -n` and `fsck.exfat -n`
# (exfatprogs, when installed) and that a second `fsck -y` writes
# nothing, and reports the peak RSS of each repair and the time of
# `fatscope fsck -n` on the damaged images.
#
# The images are made by mkfs.exfat on a sparse file and a python3 script
# (no mount, no root) and cached.  See tests/bench/README.md for what is
# measured and the environment variables.
# Exit status: 0 PASS (or BENCH_REPORT_ONLY=1), 1 FAIL (the ratio is above
# the limit, or a repaired volume is not clean), 2 setup or run error.

set -euo pipefail

prog=plan-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)

# ---------------------------------------------------------------- settings

runs=${BENCH_RUNS:-5}
limit=${BENCH_LIMIT:-10.00}
report_only=${BENCH_REPORT_ONLY:-0}
chains=${BENCH_CHAINS:-10000 100000}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/plan}
fatscope_default "$root"
FSCK_EXFAT=${FSCK_EXFAT:-fsck.exfat}
MKFS_EXFAT=${MKFS_EXFAT:-mkfs.exfat}

# The recipe of the images (a change here needs a new recipe_version, which
# names the cached files): a sparse volume of vol_size, mkfs.exfat with
# clusters of cluster_size, the chains packed from cluster first_lost on.
recipe_version=1
vol_size=2G
cluster_size=4096
first_lost=8192

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_LIMIT must be a number (got '$limit')"
read -r small large extra <<< "$chains" || true
if ! [[ ${small:-} =~ ^[1-9][0-9]*$ && ${large:-} =~ ^[1-9][0-9]*$ && -z ${extra:-} ]] || (( small >= large )); then
	die "BENCH_CHAINS must be two chain counts, the smaller first (got '$chains')"
fi

# 10000 -> 10k, 100000 -> 100k, 1500 -> 1500
label_of() { if (( $1 % 1000 == 0 )); then echo "$(( $1 / 1000 ))k"; else echo "$1"; fi; }
ls_=$(label_of "$small") ll_=$(label_of "$large")

# ---------------------------------------------------------------- tools

need() { command -v "$1" >/dev/null || die "$1 not found ($2)"; }
need python3 "apt-get install -y python3"

fatscope_check

# fsck.exfat only checks the volumes here: optional.
if command -v "$FSCK_EXFAT" >/dev/null; then FSCK_EXFAT=$(command -v "$FSCK_EXFAT"); else FSCK_EXFAT=; fi

# The peak RSS is reported, so GNU time is required.
gnu_time required

# ---------------------------------------------------------------- cleanup

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/plan-bench.XXXXXX")
building=		# a cached image being built, removed if the script stops

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?
	[[ -z $building ]] || rm -f -- "$building" "$building.info"
	rm -rf -- "$tmpd"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- helpers (python)

# lose.py IMAGE CHAINS FIRST
# Makes CHAINS lost chains on the exFAT volume in IMAGE (no fatscope, no
# exfatprogs): from cluster FIRST on, one cluster each, every 100th of two
# clusters linked through the FAT, each marked used in the allocation
# bitmap and ended in the FAT (0xFFFFFFFF); no entry references them.
# PercentInUse is set to what the bitmap then says, so that the lost
# clusters are the only finding.  Reads the boot sector (FatOffset at byte
# 80, ClusterHeapOffset 88, ClusterCount 92, FirstClusterOfRootDirectory
# 96, the shifts at 108/109) and the root directory for the bitmap's 0x81
# entry.  Prints "chains clusters first last cluster_count cluster_size".
cat > "$tmpd/lose.py" <<'EOF'
import os, struct, sys
img, nchains, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fd = os.open(img, os.O_RDWR)
bs = os.pread(fd, 512, 0)
if bs[3:11] != b'EXFAT   ': sys.exit('lose.py: %s: not exFAT' % img)
fat_off, fat_len, heap_off, ccount, root = struct.unpack_from('<IIIII', bs, 80)
ss = 1 << bs[108]; cs = ss << bs[109]
if bs[110] != 1: sys.exit('lose.py: %s: %d FATs (TexFAT is not handled)' % (img, bs[110]))
fat = bytearray(os.pread(fd, (ccount + 2) * 4, fat_off * ss))
def coff(c): return heap_off * ss + (c - 2) * cs
def nxt(c): return struct.unpack_from('<I', fat, 4 * c)[0]
bitmap, c, n = None, root, 0
while bitmap is None and 2 <= c < ccount + 2 and n < 256:
    d = os.pread(fd, cs, coff(c))
    for i in range(0, cs, 32):
        if d[i] == 0: break                          # end of directory
        if d[i] == 0x81 and not d[i + 1] & 1:        # the (first) bitmap
            bitmap = struct.unpack_from('<IQ', d, i + 20); break
    c, n = nxt(c), n + 1
if bitmap is None: sys.exit('lose.py: %s: no allocation bitmap entry in the root directory' % img)
bfc, blen = bitmap
if not 2 <= bfc or bfc + (blen + cs - 1) // cs > ccount + 2:
    sys.exit('lose.py: %s: the allocation bitmap entry is out of range' % img)
# mkfs.exfat writes the bitmap contiguous: check that the FAT agrees.
for k in range((blen + cs - 1) // cs - 1):
    if nxt(bfc + k) not in (0, bfc + k + 1):
        sys.exit('lose.py: %s: the allocation bitmap is fragmented' % img)
bm = bytearray(os.pread(fd, blen, coff(bfc)))
def used(x): return bm[(x - 2) // 8] >> ((x - 2) % 8) & 1
c = first
for k in range(nchains):
    n = 2 if k % 100 == 99 else 1
    if c + n > ccount + 2: sys.exit('lose.py: %s: %d chains do not fit' % (img, nchains))
    for j in range(n):
        x = c + j
        if used(x) or nxt(x): sys.exit('lose.py: %s: cluster %d is in use already' % (img, x))
        bm[(x - 2) // 8] |= 1 << ((x - 2) % 8)
        struct.pack_into('<I', fat, 4 * x, x + 1 if j < n - 1 else 0xFFFFFFFF)
    c += n
lo, hi = 4 * first, 4 * c
os.pwrite(fd, bytes(fat[lo:hi]), fat_off * ss + lo)
lo, hi = (first - 2) // 8, (c - 2 + 7) // 8
os.pwrite(fd, bytes(bm[lo:hi]), coff(bfc) + lo)
marked = sum(bin(b).count('1') for b in bm)
os.pwrite(fd, bytes([marked * 100 // ccount]), 112)   # PercentInUse (not in the boot checksum)
os.fsync(fd)
print(nchains, c - first, first, c - 1, ccount, cs)
EOF

# facts.py < `fatscope fsck --json` output
# Prints "files directories lost_clusters written findings" and, on a
# second line, the problem ids listed ("-" when none).
cat > "$tmpd/facts.py" <<'EOF'
import json, sys
d = json.load(sys.stdin)
s, r = d.get('summary', {}), d.get('repair') or {}
fs = d.get('findings', [])
print(s.get('files', -1), s.get('directories', -1), s.get('lost_clusters', -1),
      'yes' if r.get('written') else 'no', len(fs) + s.get('findings_not_listed', 0))
print(' '.join(sorted(set(f['id'] for f in fs))) or '-')
EOF

# ---------------------------------------------------------------- the images

img_path() { echo "$cache/lost-$1.v$recipe_version.img"; }

# build N: the cached image with N lost chains, built when missing, as
# IMG.tmp renamed into place once fsck.exfat -n (if installed) passes.
# IMG.info holds lose.py's line.
build() {
	local n=$1 img t0 rc=0
	img=$(img_path "$n")
	[[ -s $img && -s $img.info ]] && return
	need "$MKFS_EXFAT" "apt-get install -y exfatprogs"
	mkdir -p -- "$cache" || die "cannot create the cache directory $cache"
	note "building $img: sparse $vol_size, mkfs.exfat -c $cluster_size, $n lost chains from cluster $first_lost"
	now_us; t0=$_now
	building=$img.tmp
	rm -f -- "$img.tmp" "$img.tmp.info"
	truncate -s "$vol_size" -- "$img.tmp" || die "truncate $img.tmp failed"
	"$MKFS_EXFAT" -c "$cluster_size" -L PLANBENCH "$img.tmp" > "$tmpd/mkfs.out" 2>&1 ||
		{ cat "$tmpd/mkfs.out" >&2; die "mkfs.exfat failed on $img.tmp"; }
	python3 "$tmpd/lose.py" "$img.tmp" "$n" "$first_lost" > "$img.tmp.info" ||
		die "could not make $n lost chains on $img.tmp"
	if [[ -n $FSCK_EXFAT ]]; then
		"$FSCK_EXFAT" -n "$img.tmp" > "$tmpd/e.out" 2>&1 < /dev/null || rc=$?
		(( rc == 0 )) || { cat "$tmpd/e.out" >&2; die "fsck.exfat -n calls the new image $img.tmp damaged (exit $rc)"; }
	fi
	if ! mv -- "$img.tmp.info" "$img.info" || ! mv -- "$img.tmp" "$img"; then
		die "cannot move $img.tmp into place"
	fi
	building=
	now_us
	note "built in $(fmt_ms $(( _now - t0 ))) ms ($(du -h -- "$img" | cut -f1) on disk)"
}

# ---------------------------------------------------------------- the runs

# fresh N: $tmpd/run-N.img, a new cp --sparse=always of the damaged image
# with N chains, fsync'ed (so that the repair's own fsync does not write
# the copy).  Its time goes to $tmpd/copy.us and is in no figure.
fresh() {
	local src dst t0
	src=$(img_path "$1") dst=$tmpd/run-$1.img
	now_us; t0=$_now
	rm -f -- "$dst"
	cp --sparse=always -- "$src" "$dst" || die "cp $src $dst failed"
	sync -- "$dst" || die "sync $dst failed"
	now_us
	echo $(( _now - t0 )) >> "$tmpd/copy.us"
}

# changes FILE: the count of "N changes written" in fatscope fsck -y's output.
changes() { sed -n 's/.*: [0-9]* problems\{0,1\} fixed, \([0-9]*\) changes\{0,1\} written.*/\1/p' "$1" | tail -n1; }

declare -A n_rc=() y_changes=()
# repair N [WRAPPER...]: fatscope fsck -y on the fresh copy; the exit
# status and the count of changes written must be the warm-up's.
# shellcheck disable=SC2317  # called by run_ysmall and run_ylarge
repair() {
	local n=$1 rc=0 got
	shift
	"$@" "$FATSCOPE" fsck -y -- "$tmpd/run-$n.img" > "$tmpd/y.out" 2>&1 < /dev/null || rc=$?
	got=$(changes "$tmpd/y.out")
	if (( rc != 1 )) || [[ $got != "${y_changes[$n]}" ]]; then
		sed -n 1,20p "$tmpd/y.out" >&2
		die "fatscope fsck -y with $n lost chains exited $rc, ${got:-no} changes written (warm-up: 1, ${y_changes[$n]})"
	fi
}
# check N [WRAPPER...]: fatscope fsck -n on the cached damaged image.
# shellcheck disable=SC2317  # called by run_nsmall and run_nlarge
check() {
	local n=$1 rc=0
	shift
	"$@" "$FATSCOPE" fsck -n -- "$(img_path "$n")" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == n_rc[$n] )) || die "fatscope fsck -n of the image with $n lost chains exited $rc (warm-up: ${n_rc[$n]})"
}
# The tools of lib.sh's timed, rss and alternate.
# shellcheck disable=SC2317
run_ysmall() { repair "$small" "$@"; }
# shellcheck disable=SC2317
run_ylarge() { repair "$large" "$@"; }
# shellcheck disable=SC2317
run_nsmall() { check "$small" "$@"; }
# shellcheck disable=SC2317
run_nlarge() { check "$large" "$@"; }
# Each repair gets a fresh copy, made (untimed) right before it.
# shellcheck disable=SC2317
before_timed() {
	case $1 in
	ysmall) fresh "$small" ;;
	ylarge) fresh "$large" ;;
	esac
}

# fatscope fsck --json OPTION on $1: sets $_rc, $_files, $_dirs, $_lost,
# $_written (yes/no), $_nf (findings) and $_ids.
facts() {
	_rc=0
	"$FATSCOPE" fsck "$2" --json -- "$1" > "$tmpd/f.json" 2> "$tmpd/f.err" < /dev/null || _rc=$?
	if ! python3 "$tmpd/facts.py" < "$tmpd/f.json" > "$tmpd/f.sum" 2> "$tmpd/f.py.err"; then
		sed -n 1,10p "$tmpd/f.err" "$tmpd/f.py.err" >&2
		die "fatscope fsck $2 --json $1 (exit $_rc) did not print a JSON report"
	fi
	read -r _files _dirs _lost _written _nf < "$tmpd/f.sum"
	_ids=$(sed -n 2p "$tmpd/f.sum")
}

# prepare N: builds (if need be) and checks the image with N lost chains,
# then repairs a copy once, untimed, and checks the result.  Sets
# n_rc[N], y_changes[N], and clean=0 when the repaired volume is not
# clean or a second fsck -y writes.
declare -A saved=() planned=() dirs=()
clean=1
prepare() {
	local n=$1 img clusters rc mtime
	build "$n"
	img=$(img_path "$n")
	read -r _ clusters _ < "$img.info"
	note "$(label_of "$n"): $img ($(du -h --apparent-size -- "$img" | cut -f1) apparent," \
		"$(du -h -- "$img" | cut -f1) on disk): $n lost chains, $clusters clusters"

	facts "$img" -n
	case $_rc in
	0|4) ;;
	*) sed -n 1,10p "$tmpd/f.err" >&2; die "fatscope fsck -n of $img exited $_rc" ;;
	esac
	n_rc[$n]=$_rc
	[[ " $_ids " == *" EXFAT_LOST_CLUSTERS "* && $_lost == "$clusters" ]] ||
		die "fatscope fsck -n does not find the $clusters lost clusters of $img (it finds $_lost; ids: $_ids)"
	note "  damaged: fatscope fsck -n (exit $_rc): $_nf findings ($_ids), $_lost lost clusters"

	# The plan, printed (nothing written): its changes and the chains it saves.
	fresh "$n"
	rc=0
	"$FATSCOPE" fsck -y --dry-run -- "$tmpd/run-$n.img" > "$tmpd/plan.out" 2>&1 < /dev/null || rc=$?
	[[ $rc == 0 || $rc == 4 ]] || { sed -n 1,20p "$tmpd/plan.out" >&2; die "fatscope fsck -y --dry-run exited $rc"; }
	planned[$n]=$(sed -n 's/.*: \([0-9]*\) changes\{0,1\} planned, nothing written.*/\1/p' "$tmpd/plan.out" | tail -n1)
	saved[$n]=$(sed -n 's/.*link \/\(FOUND\.[0-9]*\) (\([0-9]*\) lost chains\{0,1\} saved).*/\2/p' "$tmpd/plan.out" |
		awk '{ s += $1 } END { print s + 0 }')
	dirs[$n]=$(sed -n 's/.*link \/\(FOUND\.[0-9]*\) (.*/\1/p' "$tmpd/plan.out" | paste -sd, -)
	note "  fsck -y --dry-run (exit $rc): ${planned[$n]:-?} changes planned, ${saved[$n]} lost chains saved in ${dirs[$n]:-nothing}"

	# The repair, once, untimed.
	rc=0
	"$FATSCOPE" fsck -y -- "$tmpd/run-$n.img" > "$tmpd/y.out" 2>&1 < /dev/null || rc=$?
	case $rc in
	1) ;;
	0) die "fatscope fsck -y exited 0 on $img: it repaired nothing" ;;
	4|5) note "  WARNING: fatscope fsck -y exited $rc: errors left uncorrected"; sed -n 1,20p "$tmpd/y.out"; clean=0 ;;
	*) sed -n 1,20p "$tmpd/y.out" >&2; die "fatscope fsck -y of $img exited $rc in the warm-up run" ;;
	esac
	y_changes[$n]=$(changes "$tmpd/y.out")
	[[ -n ${y_changes[$n]} ]] || { sed -n 1,20p "$tmpd/y.out" >&2; die "no \"changes written\" line in fatscope fsck -y's output"; }
	note "  fsck -y (exit $rc): $(grep -E ': [0-9]+ problems? fixed, ' "$tmpd/y.out" | tail -n1 | sed "s|^$tmpd/run-$n.img: ||")"
	grep '^fixed ' "$tmpd/y.out" | sed 's/^/    /'

	# The repaired volume: every chain a file, nothing found by either checker.
	facts "$tmpd/run-$n.img" -n
	if [[ $_rc != 0 || $_nf != 0 || $_files != "$n" ]]; then
		note "  FAIL: after the repair fatscope fsck -n exits $_rc with $_nf findings ($_ids) and $_files files (expected 0, 0, $n)"
		clean=0
	else
		note "  after: fatscope fsck -n (exit 0): no findings, $_files files, $_dirs directories (FOUND.nnn)"
	fi
	if [[ -n $FSCK_EXFAT ]]; then
		rc=0
		"$FSCK_EXFAT" -n -- "$tmpd/run-$n.img" > "$tmpd/e.out" 2>&1 < /dev/null || rc=$?
		note "  after: fsck.exfat -n (exit $rc): $(grep -v '^exfatprogs version' "$tmpd/e.out" | tail -n1 | sed "s|^$tmpd/run-$n.img: ||")"
		(( rc == 0 )) || { sed -n 1,20p "$tmpd/e.out"; clean=0; }
	fi
	mtime=$(stat -c %y -- "$tmpd/run-$n.img")
	facts "$tmpd/run-$n.img" -y
	if [[ $_rc != 0 || $_written != no || $(stat -c %y -- "$tmpd/run-$n.img") != "$mtime" ]]; then
		note "  FAIL: a second fatscope fsck -y exits $_rc, written: $_written, findings: $_ids (expected 0, no, -)"
		clean=0
	else
		note "  after: a second fatscope fsck -y (exit 0) writes nothing"
	fi
}

bin_before=$(fatscope_id)

fatscope_notes "$root" "fatscope:  "
if [[ -n $FSCK_EXFAT ]]; then
	note "fsck.exfat: $FSCK_EXFAT ($("$FSCK_EXFAT" -V 2>&1 | sed -n 's/^exfatprogs version : //p' | head -n1))"
else
	note "fsck.exfat: not installed (apt-get install -y exfatprogs): the repaired volumes are checked by fatscope only"
fi
note "cache: $cache; work directory: $tmpd; $runs timed runs of each, alternating"
note "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

: > "$tmpd/copy.us"
prepare "$small"
prepare "$large"
declare -A cache_mtime=([$small]=$(stat -c %y -- "$(img_path "$small")") [$large]=$(stat -c %y -- "$(img_path "$large")"))

echo
for f in ysmall ylarge nsmall nlarge; do : > "$tmpd/$f.us"; : > "$tmpd/$f.rss"; done
for (( r = 1; r <= runs; r++ )); do
	alternate "$r" ysmall ylarge; uys=$_u1 uyl=$_u2
	alternate "$r" nsmall nlarge; uns=$_u1 unl=$_u2
	fresh "$small"; rss ysmall
	fresh "$large"; rss ylarge
	rss nsmall; rss nlarge
	printf 'run %d: fsck -y %s %s ms, %s %s ms, ratio %s; damaged fsck -n %s %s ms, %s %s ms; peak RSS -y %s KiB, %s KiB\n' \
		"$r" "$ls_" "$(fmt_ms "$uys")" "$ll_" "$(fmt_ms "$uyl")" "$(ratio "$uyl" "$uys")" \
		"$ls_" "$(fmt_ms "$uns")" "$ll_" "$(fmt_ms "$unl")" \
		"$(tail -n1 "$tmpd/ysmall.rss")" "$(tail -n1 "$tmpd/ylarge.rss")"
done

mys=$(median < "$tmpd/ysmall.us"); myl=$(median < "$tmpd/ylarge.us")
mns=$(median < "$tmpd/nsmall.us"); mnl=$(median < "$tmpd/nlarge.us")
rys=$(median < "$tmpd/ysmall.rss"); ryl=$(median < "$tmpd/ylarge.rss")
rns=$(median < "$tmpd/nsmall.rss"); rnl=$(median < "$tmpd/nlarge.rss")
tr=$(ratio "$myl" "$mys"); tv=$(verdict "$myl" "$mys" "$limit")
per() { awk -v us="$1" -v n="$2" 'BEGIN { printf "%.2f", us / n }'; }
printf 'median of %d runs: fsck -y %s %s ms (%s µs a chain), %s %s ms (%s µs a chain), ratio %s; damaged fsck -n %s %s ms, %s %s ms, ratio %s; copy %s ms (not timed)\n' \
	"$runs" "$ls_" "$(fmt_ms "$mys")" "$(per "$mys" "$small")" "$ll_" "$(fmt_ms "$myl")" "$(per "$myl" "$large")" "$tr" \
	"$ls_" "$(fmt_ms "$mns")" "$ll_" "$(fmt_ms "$mnl")" "$(ratio "$mnl" "$mns")" "$(fmt_ms "$(median < "$tmpd/copy.us")")"
printf 'peak RSS (median): fsck -y %s %s KiB, %s %s KiB (ratio %s); damaged fsck -n %s %s KiB, %s %s KiB\n' \
	"$ls_" "$rys" "$ll_" "$ryl" "$(ratio "$ryl" "$rys")" "$ls_" "$rns" "$ll_" "$rnl"
printf 'plans: %s: %s changes written (%s planned), %s chains saved in %s; %s: %s changes written (%s planned), %s chains saved in %s\n' \
	"$ls_" "${y_changes[$small]}" "${planned[$small]:-?}" "${saved[$small]}" "${dirs[$small]:-?}" \
	"$ll_" "${y_changes[$large]}" "${planned[$large]:-?}" "${saved[$large]}" "${dirs[$large]:-?}"

echo
note "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $(fatscope_id) == "$bin_before" ]] ||
	note "WARNING: $FATSCOPE or libfatscope changed during the run (rebuilt?): the figures mix two builds"
for n in "$small" "$large"; do
	[[ $(stat -c %y -- "$(img_path "$n")") == "${cache_mtime[$n]}" ]] ||
		note "WARNING: the cached image $(img_path "$n") changed during the run (fsck -n wrote to it?)"
done
(( clean )) || note "FAIL: a repaired volume is not clean, or a second fsck -y wrote to it (see above)"
cv=clean
(( clean )) || cv="NOT clean"
printf '%s: fsck -y saving %s lost chains %s ms (%s changes, RSS %s MiB), %s chains %s ms (%s changes, RSS %s MiB); repaired volumes %s; ratio %s (limit %.2f): %s\n' \
	"$prog" "$small" "$(fmt_ms "$mys")" "${y_changes[$small]}" "$(fmt_mib "$rys")" \
	"$large" "$(fmt_ms "$myl")" "${y_changes[$large]}" "$(fmt_mib "$ryl")" "$cv" "$tr" "$limit" \
	"$( [[ $tv == PASS && $clean == 1 ]] && echo PASS || echo FAIL)"

if [[ $tv != PASS || $clean != 1 ]] && [[ $report_only != 1 ]]; then
	exit 1
fi
exit 0
