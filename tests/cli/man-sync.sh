#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# man-sync.sh - check that man/fatscope-probe.8 documents
#   (a) every problem ID of libexfat/problems.def (as a ".B ID" entry),
#   (b) every driver ID listed under "Drivers:" by `fatscope probe --help`
#       (as a ".B ID" entry),
#   (c) every long option listed by `fatscope probe --help`.
#
# Environment: srcdir (default: $top_srcdir, else two directories up from
# this script), FATSCOPE (default: ./fatscope).
# Exit status: 0 all documented, 1 something missing, 99 the check itself
# could not run (automake's hard error).
set -eu
export LC_ALL=C

script_dir=$(cd "$(dirname "$0")" && pwd)
srcdir=${srcdir:-${top_srcdir:-$script_dir/../..}}
FATSCOPE=${FATSCOPE:-./fatscope}

page=$srcdir/man/fatscope-probe.8
def=$srcdir/libexfat/problems.def

fail_hard() {
	echo "man-sync: $*" >&2
	exit 99
}

[ -r "$page" ] || fail_hard "cannot read $page"
[ -r "$def" ] || fail_hard "cannot read $def"
help=$("$FATSCOPE" probe --help) || fail_hard "'$FATSCOPE probe --help' failed"

# The page's source with the roff escapes that can sit inside a name
# removed: \- becomes -, \% \& \: and font changes disappear.
man_text=$(sed -e 's/\\-/-/g' -e 's/\\[%&:]//g' -e 's/\\f[BIRP]//g' \
	-e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g' "$page")

# True when the page has an entry line ".B NAME", ".BR NAME ..." or ".BI NAME ...".
has_entry() {
	printf '%s\n' "$man_text" | awk -v name="$1" '
		/^\.B[RI]?[ \t]/ {
			w = $2
			gsub(/"/, "", w)
			if (w == name) { found = 1; exit }
		}
		END { exit !found }'
}

# True when the long option appears anywhere in the page as a whole word.
has_option() {
	printf '%s\n' "$man_text" | grep -Eq -- "(^|[^A-Za-z0-9-])$1([^A-Za-z0-9-]|\$)"
}

problems=$(sed -n 's/^PROBLEM(\([A-Z0-9_]*\),.*/\1/p' "$def")
drivers=$(printf '%s\n' "$help" | awk '
	/^Drivers:/ { on = 1; next }
	on && /^[ \t]*$/ { exit }
	on { print $1 }')
options=$(printf '%s\n' "$help" | awk '
	/^Options:/ { on = 1; next }
	on && /^[ \t]*$/ { exit }
	on { print }' | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u)

[ -n "$problems" ] || fail_hard "no PROBLEM entries found in $def"
[ -n "$drivers" ] || fail_hard "no driver IDs under 'Drivers:' in '$FATSCOPE probe --help'"
[ -n "$options" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE probe --help'"

missing=0
np=0 nd=0 no=0
for id in $problems; do
	np=$((np + 1))
	if ! has_entry "$id"; then
		echo "man-sync: problem ID $id is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done
for id in $drivers; do
	nd=$((nd + 1))
	if ! has_entry "$id"; then
		echo "man-sync: driver $id is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done
for opt in $options; do
	no=$((no + 1))
	if ! has_option "$opt"; then
		echo "man-sync: option $opt is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done

if [ "$missing" -gt 0 ]; then
	echo "man-sync: $missing item(s) missing from man/fatscope-probe.8"
	exit 1
fi
echo "man-sync: $np problem IDs, $nd drivers, $no options documented"
exit 0
