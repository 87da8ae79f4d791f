# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - sourced by the command-line tests: paths, fixtures, helpers.
# Exit codes as automake reads them: 0 pass, 77 skip, 99 hard error.
# Every check ends in ok or bad; finish fails a script that ran no check,
# so a script whose loops found nothing to check cannot pass.  A script
# that cannot run here calls skip with the reason (one line, exit 77).
# Scratch files go to $SCRATCH, a directory of the script's own (emptied
# at start), so that make -j check can run the scripts at once;
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

SCRATCH="${FSC_SCRATCH_ROOT:-$WORK/scratch}/$(basename "$0" .sh)"

hard_error() { echo "ERROR: $*" >&2; exit 99; }
# FATSCOPE_LONG_TESTS=1 (.ci/run sets it) runs the long parts too: the
# big fixtures in the fuzz replay, every power cut of every repair.
# Without it a script does a part of them and says what it left out.
long_tests() { [ "${FATSCOPE_LONG_TESTS:-0}" = 1 ]; }
skip() { echo "SKIP: $*"; exit 77; }

[ -x "$FATSCOPE" ] || hard_error "no fatscope binary at $FATSCOPE"
mkdir -p "$WORK/img"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH" || hard_error "cannot make $SCRATCH"

# Decompress every fixture once into $WORK/img (kept between runs).
# No fixture at all is a broken tree, not a pass.
prepare_fixtures() {
	local f n
	for f in "$FIXTURES"/*.img.xz; do
		[ -f "$f" ] || hard_error "no fixtures in $FIXTURES"
		n=${f##*/}
		n=${n%.xz}	# no basename(1): a process per fixture adds up
		if [ ! -f "$WORK/img/$n" ] || [ "$f" -nt "$WORK/img/$n" ]; then
			# A name of this process's own: tests run in parallel (make -j check)
			# may decompress the same fixture at once; rename(2) keeps it whole.
			xz -dc "$f" > "$WORK/img/$n.tmp.$$" && mv -f "$WORK/img/$n.tmp.$$" "$WORK/img/$n" ||
				hard_error "cannot decompress $f"
		fi
	done
}

fixture_names() {
	local f
	for f in "$FIXTURES"/*.img.xz; do
		[ -f "$f" ] || hard_error "no fixtures in $FIXTURES"
		f=${f##*/}
		echo "${f%.img.xz}"
	done
}

# has_fixture NAME: the fixture is in the source tree and decompressed
# (a copy left in $WORK/img from an older tree does not count).
has_fixture() { [ -f "$FIXTURES/$1.img.xz" ] && [ -f "$WORK/img/$1.img" ]; }

# The recorded sha256 of an uncompressed fixture.
fixture_hash() {
	awk -v n="$1.img" '$2 == n || $2 == "*" n || $2 == "img/" n { print $1 }' \
		"$top_srcdir/tests/fixtures/SHA256SUMS"
}

# golden WHAT WANT-FILE GOT: compare a transcript with the reviewed one
# (FSC_UPDATE_GOLDEN=1 rewrites it first), and verify an image's hash.
golden() {
	[ "${FSC_UPDATE_GOLDEN:-0}" = 1 ] && printf '%s\n' "$3" > "$2"
	if [ ! -f "$2" ]; then
		bad "$1: no expected transcript"
	elif ! diff -u "$2" <(printf '%s\n' "$3"); then
		bad "$1 differs from the transcript"
	else
		ok
	fi
}
# unchanged NAME: the fixture's image NAME.img (in the current directory)
# still has its recorded hash.  The hash is taken once for each state of
# the file: when it matches, the file's ctime, size and inode are kept in
# $WORK/img/.hashed/NAME, and a later call that finds the same ones (any
# write to the file changes its ctime) need not read it again, so that the
# scripts that check the same images do not each hash 1.5 GB.
unchanged() {
	local want stamp kept= dir="$WORK/img/.hashed"
	want=$(fixture_hash "$1")
	if [ -z "$want" ]; then
		bad "$1.img: no hash recorded in SHA256SUMS"
		return
	fi
	stamp="$(stat -c '%z %s %i' "$1.img" 2> /dev/null) $want"
	[ -f "$dir/$1" ] && read -r kept < "$dir/$1"
	if [ "$kept" = "$stamp" ]; then
		ok
	elif [ "$(sha256sum < "$1.img" | cut -d' ' -f1)" = "$want" ]; then
		mkdir -p "$dir" && printf '%s\n' "$stamp" > "$dir/$1.$$" && mv -f "$dir/$1.$$" "$dir/$1"
		ok
	else
		bad "$1.img changed"
	fi
}

fails=0
passes=0
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
finish() {
	echo "$passes passed, $fails failed"
	if [ $((passes + fails)) -eq 0 ]; then
		echo "FAIL: no check ran"
		exit 1
	fi
	[ "$fails" -eq 0 ]
}
