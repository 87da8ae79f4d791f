#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# table-width.sh - dump's tree tables fit the width (issue 14, item 9): with
# COLUMNS=80 and stdout not a terminal, every line of dump --tree, of
# dump --deleted (NAME and STATE) and of the extents of the file with a
# 255-character name is at most 80 display columns, in the C and in a
# UTF-8 locale, on an exFAT and a FAT32 volume; the long name is shortened
# with an ellipsis ("..." in the C locale, "…" in UTF-8), whole in -J;
# COLUMNS=120 gives it more room; the long form (--long), whose two
# timestamps cannot fit 80 columns, gives NAME at most half the width.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
command -v python3 > /dev/null || skip "python3 not installed"
prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"	# (the header line names the image: short, wherever the tree is)
# widest: the display width of the widest line of stdin (wide East Asian characters count 2)
widest() {
	"$PYTHON3" -c '
import sys, unicodedata
def w(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
print(max([w(l) for l in sys.stdin.buffer.read().decode("utf-8", "replace").split("\n")] + [0]))'
}

long=name-of-255-characters-
for f in pop-small pop-fat32; do
	has_fixture "$f" || hard_error "no fixture $f"
	img="$f.img"
	path=$("$FATSCOPE" dump -J -t "$img" | jq -r '.tree[] | select(.name | length == 255) | .path')
	check "$f -J: the whole 255-character name" "/names/$long" "${path:0:30}"
	[ "${#path}" = 262 ] && ok || bad "$f -J: the path is ${#path} bytes, not 262"
	for loc in C C.UTF-8; do
		if [ $loc = C ]; then dots=...; else dots=…; fi
		for args in -t -d "--path $path"; do
			# shellcheck disable=SC2086
			out=$(LC_ALL=$loc COLUMNS=80 "$FATSCOPE" dump $args "$img"); rc=$?
			what="$f dump ${args:0:6} ($loc)"
			check "$what: exit" 0 "$rc"
			[ "$args" = "--path $path" ] && out=$(sed 1,3d <<< "$out")	# the header names the path
			w=$(LC_ALL=C.UTF-8 widest <<< "$out")
			[ "$w" -le 80 ] && [ "$w" -gt 10 ] && ok || bad "$what: a line of $w columns"
		done
		out=$(LC_ALL=$loc COLUMNS=80 "$FATSCOPE" dump -t "$img")
		row=$(grep -F "$long" <<< "$out")
		[ "${row%"$dots"}" != "$row" ] && ok || bad "$f -t ($loc): no ellipsis at the end of: $row"
		check "$f -t ($loc): the long name's row" 80 "$(LC_ALL=C.UTF-8 widest <<< "$row")"
		row=$(LC_ALL=$loc COLUMNS=120 "$FATSCOPE" dump -t "$img" | grep -F "$long")
		check "$f -t COLUMNS=120 ($loc): the long name's row" 120 "$(LC_ALL=C.UTF-8 widest <<< "$row")"
		# --long: NAME (the header's first column) at most 40 columns, the name shortened
		out=$(LC_ALL=$loc COLUMNS=80 "$FATSCOPE" dump -l "$img")
		check "$f -l ($loc): NAME's width" 41 "$(awk '/^NAME/ { print index($0, "ATTR") - 1; exit }' <<< "$out")"
		grep -qF "$long" <<< "$out" && grep -F "$long" <<< "$out" | grep -qF "$dots ----A" &&
			ok || bad "$f -l ($loc): the long name is not shortened"
	done
done
finish
