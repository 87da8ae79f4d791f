# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - sourced by the command-line tests: paths, fixtures, helpers.
# Exit codes as automake reads them: 0 pass, 77 skip, 99 hard error.
# Every check ends in ok or bad; finish fails a script that ran no check,
# so a script whose loops found nothing to check cannot pass.  A script
# that cannot run here calls skip with the reason (one line, exit 77).
# Scratch files go to $SCRATCH, a directory of the script's own (emptied
# at start, removed by finish and skip when nothing failed), so that make
# -j check can run the scripts at once;
# FSC_SCRATCH_ROOT moves these directories (stub-meta.sh uses it to run
# the scripts a second time beside make check's own runs).

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${FATSCOPE:=$top_builddir/fatscope}"
FIXTURES="$top_srcdir/tests/fixtures/img"
WORK="$top_builddir/tests/work"
EXPECTED="$top_srcdir/tests/cli/expected"
export LC_ALL=C
export COLUMNS=80	# dump's tables fit COLUMNS: a caller's own must not change the transcripts
exec < /dev/null	# no test may find a terminal to ask on (fsck asks when it does)

SCRATCH=${0##*/}	# (no basename(1): a process, in every script and every stub run)
SCRATCH="${FSC_SCRATCH_ROOT:-$WORK/scratch}/${SCRATCH%.sh}"

# python3, for tests/fixtures/patch.py (patch_py ARGS...): the one in PATH,
# or the system's when that one is a version manager's shim (pyenv's costs
# up to a second a call, a script's whole run for some).
# (PATH searched in the shell: no process for it.)
PYTHON3=python3
IFS=: read -ra _dirs <<< "$PATH"
for _d in "${_dirs[@]}"; do [ -x "${_d:-.}/python3" ] && { PYTHON3=${_d:-.}/python3; break; }; done
unset _d _dirs
case $PYTHON3 in */shims/*) [ -x /usr/bin/python3 ] && PYTHON3=/usr/bin/python3 ;; esac
patch_py() { "$PYTHON3" "$top_srcdir/tests/fixtures/patch.py" "$@"; }

hard_error() { echo "ERROR: $*" >&2; exit 99; }
# FATSCOPE_LONG_TESTS=1 (.ci/run sets it) runs the long parts too: the
# big fixtures in the fuzz replay, every power cut of every repair.
# Without it a script does a part of them and says what it left out.
long_tests() { [ "${FATSCOPE_LONG_TESTS:-0}" = 1 ]; }
skip() { echo "SKIP: $*"; rm -rf "$SCRATCH"; exit 77; }

[ -x "$FATSCOPE" ] || hard_error "no fatscope binary at $FATSCOPE"
[ ! -e "$SCRATCH" ] || rm -rf "$SCRATCH"
mkdir -p "$WORK/img" "$SCRATCH" || hard_error "cannot make $SCRATCH"

# Decompress every fixture once into $WORK/img (kept between runs).
# No fixture at all is a broken tree, not a pass.  Scripts run in parallel
# (make -j check) take turns (flock): the first decompresses, the others
# find the images there, instead of each decompressing them all at once;
# the first uses two processes at a time (the others wait for it anyway).
# A fixture just decompressed is the recorded one (zstd checks its own
# integrity): its stamp is kept with its recorded hash (see unchanged), so
# that the first script that asks need not hash 1.6 GB of images again.
# With FATSCOPE_LONG_TESTS=1 no stamp is kept: the first unchanged hashes
# every image, which also proves SHA256SUMS and the .zst files agree.
decompress_fixtures() {	# decompress_fixtures XZ...: each into $WORK/img, renamed whole; false on an error
	local f n me=$BASHPID
	for f; do
		n=${f##*/}
		n=${n%.zst}
		[ -f "$WORK/img/$n" ] && [ ! "$f" -nt "$WORK/img/$n" ] && continue	# (done while we waited)
		# A name of this process's own, renamed whole (rename(2)): a reader never sees half a fixture.
		zstd -q -d -f -o "$WORK/img/$n.tmp.$me" "$f" && mv -f "$WORK/img/$n.tmp.$me" "$WORK/img/$n" || return 1
	done
}
prepare_fixtures() {
	local f n half pid rc=0 line stale=() names=()
	for f in "$FIXTURES"/*.img.zst; do
		[ -f "$f" ] || hard_error "no fixtures in $FIXTURES"
		n=${f##*/}
		n=${n%.zst}	# no basename(1): a process per fixture adds up
		[ -f "$WORK/img/$n" ] && [ ! "$f" -nt "$WORK/img/$n" ] || stale+=("$f")
	done
	[ "${#stale[@]}" = 0 ] && return
	exec 9> "$WORK/img/.lock"
	command -v flock > /dev/null && flock 9
	half=$(( (${#stale[@]} + 1) / 2 ))
	decompress_fixtures "${stale[@]:half}" &
	pid=$!
	decompress_fixtures "${stale[@]:0:half}" || rc=1
	wait "$pid" || rc=1
	[ "$rc" = 0 ] || hard_error "cannot decompress the fixtures of $FIXTURES"
	if ! long_tests; then
		fixture_hash "" > /dev/null
		mkdir -p "$WORK/img/.hashed"
		for f in "${stale[@]}"; do
			n=${f##*/}
			names+=("$WORK/img/${n%.zst}")
		done
		while IFS='|' read -r n line; do
			n=${n##*/}
			n=${n%.img}
			[ -n "${FIXTURE_SUMS[$n]:-}" ] && printf '%s\n' "$line ${FIXTURE_SUMS[$n]}" > "$WORK/img/.hashed/$n"
		done < <(stat -c '%n|%z %s %i' "${names[@]}")
	fi
	exec 9>&-
}

fixture_names() {
	local f
	for f in "$FIXTURES"/*.img.zst; do
		[ -f "$f" ] || hard_error "no fixtures in $FIXTURES"
		f=${f##*/}
		echo "${f%.img.zst}"
	done
}

# has_fixture NAME: the fixture is in the source tree and decompressed
# (a copy left in $WORK/img from an older tree does not count).
has_fixture() { [ -f "$FIXTURES/$1.img.zst" ] && [ -f "$WORK/img/$1.img" ]; }

# The recorded sha256 of an uncompressed fixture (SHA256SUMS read once, no
# process a call).
declare -A FIXTURE_SUMS=()
fixture_hash() {
	local h n
	if [ "${#FIXTURE_SUMS[@]}" = 0 ]; then
		while read -r h n; do
			n=${n#\*}
			n=${n#img/}
			FIXTURE_SUMS[${n%.img}]=$h
		done < "$top_srcdir/tests/fixtures/SHA256SUMS"
	fi
	[ -z "$1" ] || echo "${FIXTURE_SUMS[$1]:-}"
}

# golden WHAT WANT-FILE GOT: compare a transcript with the reviewed one
# (FSC_UPDATE_GOLDEN=1 rewrites it first), in the shell: diff runs only to
# show a difference.
golden() {
	local want=
	[ "${FSC_UPDATE_GOLDEN:-0}" = 1 ] && printf '%s\n' "$3" > "$2"
	if [ ! -f "$2" ]; then
		bad "$1: no expected transcript"
		return
	fi
	IFS= read -r -d '' want < "$2"
	if [ "$want" = "$3"$'\n' ]; then
		ok
	else
		diff -u "$2" <(printf '%s\n' "$3")
		bad "$1 differs from the transcript"
	fi
}
# unchanged NAME...: the fixtures' images NAME.img (in the current
# directory) still have their recorded hashes, one check each.  A hash is
# taken once for each state of a file: when it matches, the file's ctime,
# size and inode are kept in $WORK/img/.hashed/NAME, and a later call that
# finds the same ones (any write to the file changes its ctime) need not
# read it again, so that the scripts that check the same images do not
# each hash 1.5 GB.  One stat for all the names, one sha256sum for those
# to hash.
unchanged() {
	local name line h dir="$WORK/img/.hashed" kept
	local -A stamp=() sum=()
	local -a todo=()
	mkdir -p "$dir"
	fixture_hash "" > /dev/null	# (SHA256SUMS read into this shell)
	while IFS='|' read -r name line; do
		stamp[${name%.img}]=$line
	done < <(stat -c '%n|%z %s %i' "${@/%/.img}" 2> /dev/null)
	for name in "$@"; do
		kept=
		[ -f "$dir/$name" ] && read -r kept < "$dir/$name"
		[ -n "${stamp[$name]:-}" ] && [ "$kept" = "${stamp[$name]} ${FIXTURE_SUMS[$name]:-}" ] && continue
		todo+=("$name.img")
		sum[$name]=unreadable
	done
	if [ "${#todo[@]}" -gt 0 ]; then
		while read -r h line; do
			sum[${line%.img}]=$h
		done < <(sha256sum "${todo[@]}" 2> /dev/null)
	fi
	for name in "$@"; do
		h=${FIXTURE_SUMS[$name]:-}
		if [ -z "$h" ]; then
			bad "$name.img: no hash recorded in SHA256SUMS"
		elif [ -z "${sum[$name]:-}" ]; then
			ok	# (as hashed before, in this state)
		elif [ "${sum[$name]}" = "$h" ]; then
			printf '%s\n' "${stamp[$name]} $h" > "$dir/$name"
			ok
		else
			bad "$name.img changed"
		fi
	done
}

# hashes FILE...: H[FILE] is the sha256 of each, by one sha256sum for all
# (a file that cannot be read: empty).
declare -A H=()
hashes() {
	local h f
	for f; do H[$f]=; done
	while read -r h f; do H[$f]=$h; done < <(sha256sum -- "$@" 2> /dev/null)
}
# slurp VAR FILE: VAR is FILE's text without its trailing newlines, as
# $(cat FILE) gives it, with no process (a file not there: empty).
slurp() {
	local -n _v=$1
	_v=
	[ -f "$2" ] && IFS= read -r -d '' _v < "$2"
	while [[ $_v == *$'\n' ]]; do _v=${_v%$'\n'}; done
}

# slurp_raw VAR FILE: VAR is FILE's bytes, trailing newlines kept (no
# process); false when FILE holds a NUL byte, which the shell cannot hold.
slurp_raw() {
	local -n _v=$1
	_v=
	! IFS= read -r -d '' _v < "$2"
}
# differing_pairs A1 B1 A2 B2...: print each B whose bytes differ from its
# A's (or either cannot be read), a line each: cmp for many pairs in one
# process, which reads only what is a hole in neither (the copies of
# sparse images are mostly holes: reading their zeros cost more than the
# rest of a run).  A file system without SEEK_DATA shows the whole file as
# data, compared all the same.  differing DIR1 DIR2 FILE...: the FILEs
# (names under both) that differ.
differing_pairs() {
	"$PYTHON3" - "$@" <<'PY'
import os, sys
def data(fd, size):
    off, out = 0, []
    while off < size:
        try:
            start = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:	# ENXIO: a hole to the end
            break
        off = os.lseek(fd, start, os.SEEK_HOLE)
        out.append((start, off))
    return out
args = sys.argv[1:]
strip = ''
if args[:1] == ['--strip']:
    strip, args = args[1], args[2:]
for p1, p2 in zip(args[0::2], args[1::2]):
    name = p2[len(strip):] if strip and p2.startswith(strip) else p2
    try:
        with open(p1, 'rb') as f1, open(p2, 'rb') as f2:
            a, b = f1.fileno(), f2.fileno()
            size = os.fstat(a).st_size
            if os.fstat(b).st_size != size:
                print(name)
                continue
            same, end = True, 0
            for start, stop in sorted(data(a, size) + data(b, size)):	# (holes in both read as zeros in both)
                start = max(start, end)
                while start < stop and same:
                    n = min(stop - start, 1 << 20)
                    same = os.pread(a, n, start) == os.pread(b, n, start)
                    start += n
                end = max(end, stop)
                if not same:
                    break
            if not same:
                print(name)
    except OSError:
        print(name)
PY
}
differing() {
	local d1=$1 d2=$2 f
	local -a pairs=()
	shift 2
	for f; do pairs+=("$d1/$f" "$d2/$f"); done
	differing_pairs --strip "$d2/" "${pairs[@]}"
}

# same_images DIR1 DIR2 WHAT NAME...: one check a NAME, NAME.img the same
# bytes in DIR1 and DIR2 (one differing for all); WHAT says what a
# difference means.
same_images() {
	local d1=$1 d2=$2 what=$3 line rc name
	local -A differs=()
	shift 3
	differing "$d1" "$d2" "${@/%/.img}" > "$SCRATCH/differ.txt"; rc=$?
	while IFS= read -r line; do
		differs[${line%.img}]=1
	done < "$SCRATCH/differ.txt"
	[ "$rc" = 0 ] || bad "the comparison of $d1 and $d2 failed: exit $rc"
	for name; do
		[ -z "${differs[$name]:-}" ] && ok || bad "$name: $what"
	done
}

# sorted ARRAY WORD...: ARRAY is the words in the order sort(1) gives in
# the C locale (an insertion sort in the shell: for short lists).
sorted() {
	local -n _s=$1
	local x i
	shift
	_s=()
	for x; do
		i=${#_s[@]}
		while [ "$i" -gt 0 ] && [[ ${_s[i - 1]} > $x ]]; do
			_s[i]=${_s[i - 1]}
			i=$((i - 1))
		done
		_s[i]=$x
	done
}

fails=0
passes=0
# The FUSE daemon serving device $1 (mount.exfat-fuse DEV ...), by its
# command line; and a wait (60 s at most) for it to exit after umount, when
# it has written its last bytes to the device: umount returns before that,
# and a test that then reads the image can see it half written.
fuse_daemon() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2> /dev/null < "$p/cmdline") || continue
		case $c in *mount.exfat-fuse*" $1 "*) echo "${p#/proc/}"; return 0 ;; esac
	done
	return 1
}
fuse_wait() {
	local i=0
	[ -n "$1" ] || return 0
	while [ -d "/proc/$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -d "/proc/$1" ]
}

ok() { passes=$((passes + 1)); }
# FSC_FAIL_FAST=1 ends the script at its first failed check (stub-meta.sh:
# whether a script can fail is known then, and the stubs need not run all).
bad() {
	echo "FAIL: $*"
	fails=$((fails + 1))
	[ "${FSC_FAIL_FAST:-0}" != 1 ] || exit 1
}
# check DESCRIPTION EXPECTED ACTUAL: one check, passed when the two are equal.
check() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$3', want '$2'"; fi
}
# finish: the counts; a script that passed leaves no scratch file behind
# (one that failed keeps them, to be looked at).
finish() {
	echo "$passes passed, $fails failed"
	if [ $((passes + fails)) -eq 0 ]; then
		echo "FAIL: no check ran"
		exit 1
	fi
	[ "$fails" -eq 0 ] || exit 1
	cd / && rm -rf "$SCRATCH"
}
