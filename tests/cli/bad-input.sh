#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bad-input.sh - bad input gets one line on stderr, "fatscope: FILE: ...",
# the documented exit code, nothing on stdout, and the file is unchanged.
. "$(dirname "$0")/lib.sh"

dir="$SCRATCH"
mkdir -p "$dir/adir"
: > "$dir/empty.img"
head -c 511 /dev/urandom > "$dir/short.img"
head -c 4096 /dev/urandom > "$dir/secret.img"
chmod 600 "$dir/secret.img"

# expect CODE STDERR-REGEX FILE [fatscope args...]
# Usage errors (16) are util-linux's two lines: the message, then "Try ...".
expect() {
	local code=$1 re=$2 file=$3 before after out err rc
	shift 3
	before=$( [ -f "$file" ] && sha256sum < "$file")
	out=$("$@" 2> "$dir/stderr"); rc=$?
	err=$(cat "$dir/stderr")
	after=$( [ -f "$file" ] && sha256sum < "$file")
	if [ "$rc" != "$code" ]; then
		bad "$*: exit $rc, want $code"
	elif [ "$code" = 16 ] && ! { head -1 "$dir/stderr" | grep -Eq "^$re\$" &&
					 [ "$(sed -n '2p' "$dir/stderr" | cut -c1-4)" = "Try " ] &&
					 [ "$(wc -l < "$dir/stderr")" = 2 ]; }; then
		bad "$*: usage message '$err' does not match '$re' + Try line"
	elif [ "$code" != 16 ] && { [ "$(wc -l < "$dir/stderr")" != 1 ] || ! grep -Eq "^$re\$" "$dir/stderr"; }; then
		bad "$*: stderr '$err' does not match '$re'"
	elif [ -n "$out" ]; then
		bad "$*: printed on stdout: $out"
	elif [ "$before" != "$after" ]; then
		bad "$*: $file changed"
	else
		ok
	fi
}

expect 8 "fatscope: $dir/missing.img: No such file or directory" "$dir/missing.img" \
	"$FATSCOPE" probe "$dir/missing.img"
expect 8 "fatscope: $dir/adir: is a directory" "$dir/adir" "$FATSCOPE" probe "$dir/adir"
expect 2 "fatscope: $dir/empty.img: too small to hold a boot sector \(0 bytes\)" "$dir/empty.img" \
	"$FATSCOPE" probe "$dir/empty.img"
expect 2 "fatscope: $dir/short.img: too small to hold a boot sector \(511 bytes\)" "$dir/short.img" \
	"$FATSCOPE" probe "$dir/short.img"
expect 8 "fatscope: /dev/null: not a regular file or block device" /dev/null "$FATSCOPE" probe /dev/null
expect 16 "fatscope probe: no device or image specified" "" "$FATSCOPE" probe
expect 16 "fatscope: unknown command 'frobnicate'" "" "$FATSCOPE" frobnicate
expect 8 "fatscope: $dir/short.img: offset 4096 is beyond the end \(511 bytes\)" "$dir/short.img" \
	"$FATSCOPE" probe --offset 4096 "$dir/short.img"
expect 8 "fatscope: $dir/secret.img: no partition 1: no partition table found" "$dir/secret.img" \
	"$FATSCOPE" probe --partition 1 "$dir/secret.img"

# Unreadable: as root permissions do not apply, so drop to nobody.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && ! as_nobody "$FATSCOPE" --version > /dev/null 2>&1; then
	# A build tree under a private directory (/root) is out of nobody's reach.
	echo "SKIP: unreadable file (user nobody cannot run $FATSCOPE)"
elif [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 711 "$dir"
	expect 8 "fatscope: $dir/secret.img: Permission denied" "$dir/secret.img" \
		as_nobody "$FATSCOPE" probe "$dir/secret.img"
elif [ "$(id -u)" != 0 ]; then
	chmod 000 "$dir/secret.img"
	expect 8 "fatscope: $dir/secret.img: Permission denied" "$dir/secret.img" \
		"$FATSCOPE" probe "$dir/secret.img"
else
	echo "SKIP: unreadable file (no setpriv)"
fi

# Going on after a bad image: the good one is still reported, the worst code wins.
prepare_fixtures
out=$("$FATSCOPE" probe "$dir/missing.img" "$WORK/img/exfat.img" 2>/dev/null); rc=$?
if [ "$rc" = 8 ] && grep -q "exfat.img: exFAT" <<< "$out"; then ok; else bad "multi-image run: exit $rc"; fi
finish
