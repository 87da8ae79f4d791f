#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exit-status.sh - each command's exit codes, defined once in
# cmd/exitcodes.h (enum CMD_exit), are exactly the codes listed (".TP" then
# ".B N") in the EXIT STATUS section of its man page (of its
# ".SS fatscope CMD" subsection when the page has one) and exactly the codes its --help
# names after "Exit status".
. "$(dirname "$0")/lib.sh"

header="$top_srcdir/cmd/exitcodes.h"
[ -r "$header" ] || { echo "cannot read $header" >&2; exit 99; }

# The values of enum CMD_exit, one a line, sorted.
header_codes() {
	awk -v want="$1_exit" '
		$1 == "enum" && $2 == want { on = 1; next }
		on && /^};/ { exit }
		on && $2 == "=" { v = $3; sub(/,.*/, "", v); print v }' "$header" | sort -n
}

# The codes of a page's EXIT STATUS section (of its ".SS fatscope CMD"
# subsection when it has one for CMD).
man_codes() {
	awk -v cmd="$1" '
		/^\.SH / { on = ($0 ~ /^\.SH EXIT STATUS/); sub_on = on; next }
		on && /^\.SS / { sub_on = ($0 == ".SS fatscope " cmd); next }
		on && sub_on && /^\.TP/ { tp = 1; next }
		on && sub_on && tp && /^\.B [0-9]+$/ { print $2 }
		{ tp = 0 }' "$2" | sort -n
}

# The codes the --help text names: "N word" at the start of a line or
# after ": " or ", " in the paragraph that begins with "Exit status".
help_codes() {
	"$FATSCOPE" "$1" --help | awk '/^Exit status/ { on = 1 } on && /^$/ { exit } on { print }' |
		grep -oE '(^|[:,] )[0-9]+ [a-z]' | grep -oE '[0-9]+' | sort -n
}

for cmd in probe fsck dump label undo ls cat extract scan; do
	page=$top_srcdir/man/fatscope-$cmd.8
	want=$(header_codes "$cmd" | tr '\n' ' ')
	if [ -z "$want" ]; then
		bad "$cmd: no enum ${cmd}_exit in cmd/exitcodes.h"
		continue
	fi
	got=$(man_codes "$cmd" "$page" | tr '\n' ' ')
	if [ "$got" = "$want" ]; then ok; else bad "$cmd: man/$(basename "$page") lists '$got', cmd/exitcodes.h '$want'"; fi
	got=$(help_codes "$cmd" | tr '\n' ' ')
	if [ "$got" = "$want" ]; then ok; else bad "$cmd: --help names '$got', cmd/exitcodes.h '$want'"; fi
done
finish
