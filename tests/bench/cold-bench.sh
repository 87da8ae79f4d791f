#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cold-bench.sh - `fatscope fsck -n` and `-p -f` against `fsck.exfat -n` on a slow
# device with a cold page cache (issue #13): a read-only loop device over
# fsck-bench.sh's cached exFAT images, throttled through a blkio cgroup to
# 40 MB/s and 2,000 IOPS (an A1-class SD card), page cache dropped before
# every run.  Prints wall time and bytes read (the cgroup's own I/O
# statistics) of each run, and the two floors of the volume's metadata:
# IOPS (extents / IOPS) and bandwidth (bytes / bandwidth).
#
# Root only (loop device, cgroup, drop_caches): otherwise it says why and
# exits 77 (0 with BENCH_REPORT_ONLY=1).  A measurement: it exits 0 when
# it ran, 2 on a setup or run error.  See tests/bench/README.md.

set -euo pipefail

prog=cold-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)

runs=${BENCH_RUNS:-2}
report_only=${BENCH_REPORT_ONLY:-0}
bps=${BENCH_BPS:-40000000}
iops=${BENCH_IOPS:-2000}
budget=${BENCH_BUDGET:-2}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fsck}
fat_cache=${FATSCOPE_BENCH_FAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fat}
read -r -a labels <<< "${BENCH_IMAGES:-100k 1k}"
fatscope_default "$root"
FSCK_EXFAT=${FSCK_EXFAT:-fsck.exfat}

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $bps =~ ^[1-9][0-9]*$ ]] || die "BENCH_BPS must be a positive integer (got '$bps')"
[[ $iops =~ ^[1-9][0-9]*$ ]] || die "BENCH_IOPS must be a positive integer (got '$iops')"
[[ $budget =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_BUDGET must be a number of seconds (got '$budget')"

skip() {
	note "SKIP: $*"
	[[ $report_only == 1 ]] && exit 0
	exit 77
}

(( EUID == 0 )) || skip "needs root (loop device, cgroup, drop_caches)"
command -v losetup > /dev/null || skip "losetup not found"
command -v python3 > /dev/null || die "python3 not found (apt-get install -y python3)"
FSCK_EXFAT=$(command -v "$FSCK_EXFAT") || die "fsck.exfat not found (apt-get install -y exfatprogs)"
fatscope_check

# Which cgroup interface throttles reads: v1 blkio.throttle.*, else v2 io.max.
cg_v1=/sys/fs/cgroup/blkio
cg_v2=/sys/fs/cgroup
if [[ -w $cg_v1/blkio.throttle.read_bps_device ]]; then
	cg_kind=v1
elif [[ -f $cg_v2/cgroup.controllers ]] && grep -qw io "$cg_v2/cgroup.controllers"; then
	cg_kind=v2
else
	skip "no cgroup read throttling (neither $cg_v1/blkio.throttle.read_bps_device nor cgroup v2 io.max)"
fi

# ---------------------------------------------------------------- cleanup

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/cold-bench.XXXXXX")
loop_dev=		# the loop device this script attached
cg=			# the cgroup this script made
v2_enabled=		# "+io" was added to the root's subtree_control by this script

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?
	if [[ -n $cg && -d $cg ]]; then
		rmdir -- "$cg" || note "warning: could not remove cgroup $cg" >&2
	fi
	if [[ -n $v2_enabled ]]; then
		echo -io > "$cg_v2/cgroup.subtree_control" 2>/dev/null || true
	fi
	if [[ -n $loop_dev ]]; then
		losetup -d "$loop_dev" || note "warning: could not detach $loop_dev" >&2
	fi
	rm -rf -- "$tmpd"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- images

# fsck-bench.sh builds (or checks) the cached images; its metadata walker
# (meta.py, a heredoc there) gives the byte ranges of all metadata.
for label in "${labels[@]}"; do
	[[ $label == fat:* ]] && continue	# (fat-bench.sh's; checked below)
	[[ -f $cache/$label.img && -f $cache/$label.stamp ]] || {
		note "building the cached images with fsck-bench.sh (BENCH_BUILD_ONLY=1)"
		BENCH_BUILD_ONLY=1 bash "$script_dir/fsck-bench.sh" || die "fsck-bench.sh could not build the images"
		break
	}
done
sed -n "/^cat > \"\$tmpd\/meta.py\" <<'EOF'\$/,/^EOF\$/p" "$script_dir/fsck-bench.sh" | sed '1d;$d' > "$tmpd/meta.py"
[[ -s $tmpd/meta.py ]] || die "could not take meta.py out of fsck-bench.sh"

# ---------------------------------------------------------------- the throttled device

# make_cgroup MAJ:MIN: a cgroup limiting reads of that device.
make_cgroup() {
	local dev=$1
	if [[ $cg_kind == v1 ]]; then
		cg=$cg_v1/fatscope-cold.$$
		mkdir -- "$cg"
		echo "$dev $bps" > "$cg/blkio.throttle.read_bps_device"
		echo "$dev $iops" > "$cg/blkio.throttle.read_iops_device"
	else
		if ! grep -qw io "$cg_v2/cgroup.subtree_control"; then
			echo +io > "$cg_v2/cgroup.subtree_control" || skip "cannot enable the io controller"
			v2_enabled=1
		fi
		cg=$cg_v2/fatscope-cold.$$
		mkdir -- "$cg"
		echo "$dev rbps=$bps riops=$iops" > "$cg/io.max"
	fi
}

# read_bytes MAJ:MIN: bytes read from the device by the cgroup so far.
read_bytes() {
	local dev=$1
	if [[ $cg_kind == v1 ]]; then
		awk -v d="$dev" '$1 == d && $2 == "Read" { print $3; f = 1 } END { if (!f) print 0 }' \
			"$cg/blkio.throttle.io_service_bytes"
	else
		awk -v d="$dev" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) { sub(/rbytes=/, "", $i); print $i; f = 1 } }
			END { if (!f) print 0 }' "$cg/io.stat"
	fi
}

# Each run: page cache dropped, then the tool in the cgroup (a subshell
# moves itself in and execs the tool).  Called as "run_T DEVICE".
in_cgroup() {
	(echo "$BASHPID" > "$cg/cgroup.procs" && exec "$@")
}
# shellcheck disable=SC2317
before_timed() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	b0=$(read_bytes "$majmin")
}
# shellcheck disable=SC2317
run_fatscope() {
	local rc=0
	in_cgroup "$FATSCOPE" fsck -n -- "$1" > "$tmpd/fatscope.out" 2>&1 < /dev/null || rc=$?
	(( rc == 0 || rc == 4 )) || { cat "$tmpd/fatscope.out" >&2; die "fatscope fsck -n exited $rc"; }
	fs_rc=$rc
}
# Preen as fsck(8) at boot and automounters run it (-f: even when clean): to the end markers.
# shellcheck disable=SC2317
run_fatscope_preen() {
	local rc=0
	in_cgroup "$FATSCOPE" fsck -p -f -- "$1" > "$tmpd/preen.out" 2>&1 < /dev/null || rc=$?
	(( rc == 0 || rc == 4 )) || { cat "$tmpd/preen.out" >&2; die "fatscope fsck -p -f exited $rc"; }
	preen_rc=$rc
}
# shellcheck disable=SC2317
run_fsck_exfat() {	# (the peer: fsck.exfat, or fsck.fat for a FAT image)
	local rc=0
	in_cgroup "$peer" -n -- "$1" > "$tmpd/fsck_exfat.out" 2>&1 < /dev/null || rc=$?
	(( rc == 0 )) || { cat "$tmpd/fsck_exfat.out" >&2; die "$peer -n exited $rc"; }
}

# The budget: one cold run of fatscope fsck -n --budget $budget.
# shellcheck disable=SC2317
run_fatscope_budget() {
	local rc=0
	in_cgroup "$FATSCOPE" fsck -n --budget "$budget" -- "$1" > "$tmpd/budget.out" 2>&1 < /dev/null || rc=$?
	(( rc == 0 || rc == 4 )) || { cat "$tmpd/budget.out" >&2; die "fatscope fsck -n --budget $budget exited $rc"; }
	budget_rc=$rc
}

# timed_cold T: one cold run of T on the loop device; its bytes go to $tmpd/T.bytes.
timed_cold() {
	timed "$1" "$loop_dev"
	echo $(( $(read_bytes "$majmin") - b0 )) >> "$tmpd/$1.bytes"
}

fmt_s() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1e6 }'; }
fmt_mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
# floor_ratio US FLOOR: a median in microseconds against a floor in seconds ("n/a": none).
floor_ratio() { awk -v t="$1" -v f="$2" 'BEGIN { if (f + 0 > 0) printf "%.2fx", t / 1e6 / f; else printf "n/a" }'; }

note "fatscope: $FATSCOPE; fsck.exfat: $FSCK_EXFAT (exfatprogs $(dpkg-query -W -f '${Version}' exfatprogs 2>/dev/null || echo "?"))"
note "throttle: $(( bps / 1000000 )) MB/s, $iops IOPS (cgroup $cg_kind); $runs cold rounds per image, alternating"

declare -A final bud
for label in "${labels[@]}"; do
	img=$cache/$label.img peer=$FSCK_EXFAT pname=fsck.exfat
	declare -A m=([ranges]=0 [bytes]=0 [inuse_ranges]=0 [inuse_bytes]=0)
	if [[ $label == fat:* ]]; then	# fat-bench.sh's cached FAT images, against fsck.fat (no floors: meta.py reads exFAT)
		img=$fat_cache/${label#fat:}.v1.img peer=$(command -v fsck.fat) pname=fsck.fat
		[[ -f $img && -n $peer ]] || die "$label: no $img (run tests/bench/fat-bench.sh once) or no fsck.fat"
	fi
	echo
	note "== $label: $img"
	if [[ $label != fat:* ]]; then
		summary=$(python3 "$tmpd/meta.py" "$img" "$tmpd/$label.ranges")
		for kv in $summary; do m[${kv%%=*}]=${kv#*=}; done
	fi

	loop_dev=$(losetup --find --show --read-only -- "$img")
	majmin=$(lsblk -dno MAJ:MIN -- "$loop_dev" | tr -d ' ')
	make_cgroup "$majmin"
	note "device $loop_dev ($majmin), cgroup $cg"

	: > "$tmpd/fatscope.us"; : > "$tmpd/fsck_exfat.us"; : > "$tmpd/fatscope_preen.us"
	: > "$tmpd/fatscope.bytes"; : > "$tmpd/fsck_exfat.bytes"; : > "$tmpd/fatscope_preen.bytes"
	for (( r = 1; r <= runs; r++ )); do
		if (( r % 2 )); then
			timed_cold fatscope; u1=$_us; timed_cold fatscope_preen; u3=$_us; timed_cold fsck_exfat; u2=$_us
		else
			timed_cold fsck_exfat; u2=$_us; timed_cold fatscope_preen; u3=$_us; timed_cold fatscope; u1=$_us
		fi
		printf 'run %d: fatscope -n %s s, %s MB read (exit %d); -p -f %s s, %s MB read (exit %d); %s %s s, %s MB read\n' "$r" \
			"$(fmt_s "$u1")" "$(fmt_mb "$(tail -n1 "$tmpd/fatscope.bytes")")" "$fs_rc" \
			"$(fmt_s "$u3")" "$(fmt_mb "$(tail -n1 "$tmpd/fatscope_preen.bytes")")" "$preen_rc" \
			"$pname" "$(fmt_s "$u2")" "$(fmt_mb "$(tail -n1 "$tmpd/fsck_exfat.bytes")")"
	done
	: > "$tmpd/fatscope_budget.us"; : > "$tmpd/fatscope_budget.bytes"
	timed_cold fatscope_budget
	printf 'budget %s s: fatscope fsck -n --budget %s: %s s, %s MB read, exit %d: %s\n' "$budget" "$budget" \
		"$(fmt_s "$_us")" "$(fmt_mb "$(tail -n1 "$tmpd/fatscope_budget.bytes")")" "$budget_rc" \
		"$(tail -n1 "$tmpd/budget.out")"
	bud[$label]="budget $budget s: $(fmt_s "$_us") s, exit $budget_rc"
	(( fs_rc == 0 )) || { note "WARNING: fatscope fsck -n exited $fs_rc:"; sed -n 1,5p "$tmpd/fatscope.out"; }

	rmdir -- "$cg"; cg=
	losetup -d "$loop_dev"; loop_dev=

	# The floors: every merged range is one request (a range longer than
	# the device's largest request is more; not counted), every byte once.
	fl_iops=$(awk -v n="${m[ranges]}" -v i="$iops" 'BEGIN { printf "%.2f", n / i }')
	fl_bw=$(awk -v b="${m[bytes]}" -v r="$bps" 'BEGIN { printf "%.2f", b / r }')
	fl_iops_u=$(awk -v n="${m[inuse_ranges]}" -v i="$iops" 'BEGIN { printf "%.2f", n / i }')
	fl_bw_u=$(awk -v b="${m[inuse_bytes]}" -v r="$bps" 'BEGIN { printf "%.2f", b / r }')
	mf=$(median < "$tmpd/fatscope.us"); me=$(median < "$tmpd/fsck_exfat.us")
	bf=$(median < "$tmpd/fatscope.bytes"); be=$(median < "$tmpd/fsck_exfat.bytes")
	mp=$(median < "$tmpd/fatscope_preen.us"); bp=$(median < "$tmpd/fatscope_preen.bytes")
	[[ $label == fat:* ]] && fl_iops=n/a fl_bw=n/a fl_iops_u=n/a fl_bw_u=n/a
	[[ $label == fat:* ]] || note "metadata, every directory byte: $(fmt_mb "${m[bytes]}") MB in ${m[ranges]} extents" \
		"(floors: IOPS $fl_iops s, bandwidth $fl_bw s); to the end markers $(fmt_mb "${m[inuse_bytes]}") MB" \
		"in ${m[inuse_ranges]} extents (floors: IOPS $fl_iops_u s, bandwidth $fl_bw_u s)"
	final[$label]=$(printf '%s %s: fatscope -n %s s, %s MB; -p -f %s s, %s MB; '"$pname"' %s s, %s MB; ratio -n %s, -p %s; floors (all bytes) IOPS %s s, bandwidth %s s; (to end markers) IOPS %s s, bandwidth %s s; -p against its IOPS floor %s; -n against its bandwidth floor %s' \
		"$prog" "$label" "$(fmt_s "$mf")" "$(fmt_mb "$bf")" "$(fmt_s "$mp")" "$(fmt_mb "$bp")" "$(fmt_s "$me")" "$(fmt_mb "$be")" \
		"$(ratio "$mf" "$me")" "$(ratio "$mp" "$me")" "$fl_iops" "$fl_bw" "$fl_iops_u" "$fl_bw_u" \
		"$(floor_ratio "$mp" "$fl_iops_u")" "$(floor_ratio "$mf" "$fl_bw")")
	final[$label]+="; ${bud[$label]}"
done

echo
for label in "${labels[@]}"; do
	echo "${final[$label]}"
done
exit 0
