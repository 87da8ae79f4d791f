# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - sourced by the benchmarks (probe-bench.sh, fsck-bench.sh,
# repair-bench.sh) after they set $prog: messages, GNU time, a microsecond
# timer, and the timed and peak-RSS calls of a tool.  A script times tool
# T by defining run_T, which runs it with its arguments, the last of them
# an optional wrapper command (GNU time for rss); results go to
# $tmpd/T.us and $tmpd/T.rss, so $tmpd must be set before timed or rss.

die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 2; }
note() { printf '%s: %s\n' "$prog" "$*"; }

# gnu_time required|optional: $gnutime is GNU time (GNU_TIME=/path
# overrides /usr/bin/time); without it a required one dies, an optional
# one leaves $gnutime empty (the report then says "peak RSS: n/a").
gnu_time() {
	gnutime=${GNU_TIME:-/usr/bin/time}
	{ [[ -x $gnutime ]] && "$gnutime" -f %M -o /dev/null true 2>/dev/null; } && return
	[[ $1 == required ]] && die "GNU time not found at $gnutime (apt-get install -y time, or GNU_TIME=/path)"
	gnutime=
}

# A timer in microseconds into $_now. $EPOCHREALTIME (bash >= 5) costs no
# fork; it is CLOCK_REALTIME, so a clock step during a run is caught by
# timed (a delta <= 0 aborts). Fallback: date +%s%N.
now_us() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		_now=${EPOCHREALTIME//[!0-9]/}
	else
		_now=$(( $(date +%s%N) / 1000 ))
	fi
}

# timed T ARGS...: one call of run_T ARGS, timed; sets $_us and appends it
# to $tmpd/T.us.  A script may define before_timed, called (untimed) with
# the same words first.
timed() {
	local tool=$1 t0 t1
	shift
	if declare -F before_timed > /dev/null; then before_timed "$tool" "$@"; fi
	now_us; t0=$_now
	"run_$tool" "$@"
	now_us; t1=$_now
	(( t1 > t0 )) || die "clock went backwards during a run; try again"
	_us=$(( t1 - t0 ))
	echo "$_us" >> "$tmpd/$tool.us"
}

# rss T ARGS...: peak RSS (KiB) of one separate, untimed call of run_T
# ARGS under GNU time (so that its fork and exec stay out of the timings),
# appended to $tmpd/T.rss.
rss() {
	local tool=$1
	shift
	"run_$tool" "$@" "$gnutime" -f %M -o "$tmpd/$tool.rss1"
	tail -n1 "$tmpd/$tool.rss1" >> "$tmpd/$tool.rss"
}

# fatscope_default ROOT: $builddir (BENCH_BUILDDIR, else ROOT) and the
# fatscope to time, unless FATSCOPE names one: in a build tree ./fatscope
# is libtool's wrapper script, so the real binary, with its library.
fatscope_default() {
	builddir=${BENCH_BUILDDIR:-$1}
	if [[ -z ${FATSCOPE:-} && -x $builddir/.libs/fatscope && -d $builddir/libexfat/.libs ]]; then
		FATSCOPE=$builddir/.libs/fatscope
		export LD_LIBRARY_PATH=$builddir/libexfat/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	fi
	FATSCOPE=${FATSCOPE:-$builddir/fatscope}
}

# fatscope_check: $FATSCOPE exists and runs (dies otherwise); made an absolute path.
fatscope_check() {
	[[ $FATSCOPE == */* ]] || FATSCOPE=$(command -v "$FATSCOPE" || printf '%s' "$FATSCOPE")
	[[ -e $FATSCOPE ]] || die "fatscope binary '$FATSCOPE' does not exist: build it first (cd $builddir && make -j2) or set FATSCOPE=/path/to/fatscope"
	[[ -x $FATSCOPE ]] || die "fatscope binary '$FATSCOPE' is not executable"
	FATSCOPE=$(cd -- "$(dirname -- "$FATSCOPE")" && pwd -P)/$(basename -- "$FATSCOPE")
}

# alternate ROUND T1 T2 [ARGS...]: tools T1 and T2 timed on the same ARGS,
# T1 first in odd rounds, T2 first in even ones (neither always gets the
# warmer cache); their times in $_u1 and $_u2.
alternate() {
	local round=$1 t1=$2 t2=$3
	shift 3
	if (( round % 2 )); then
		timed "$t1" "$@"; _u1=$_us
		timed "$t2" "$@"; _u2=$_us
	else
		timed "$t2" "$@"; _u2=$_us
		timed "$t1" "$@"; _u1=$_us
	fi
}

# Figures: the median of numbers on stdin, microseconds as ms, KiB as
# MiB, a ratio, and PASS when a / b is at most the limit.
median() { # numbers on stdin -> median (mean of the middle two if even)
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f\n", m }'
}
fmt_ms() { awk -v us="$1" 'BEGIN { printf (us < 1000 ? "%.2f" : "%.1f"), us / 1000 }'; }
fmt_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "nan"), (b > 0 ? a / b : 0) }'; }
verdict() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { print (b > 0 && a / b <= l + 0) ? "PASS" : "FAIL" }'; }
