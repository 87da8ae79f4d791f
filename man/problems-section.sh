#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# problems-section.sh - print the PROBLEMS section of fatscope-fsck(8) and
# fatscope-probe(8) from libexfat/include/fatscope/problems.def, the one table of problems,
# so that the pages cannot drift from it (tests/cli/man-sync.sh compares).
#
# Usage: problems-section.sh [--all | --probe] [--def FILE] [--update PAGE]
#
#   --all          every group of problems.def (default; fatscope-fsck.8)
#   --probe        every group but the fsck ones, whose section comment
#                  says "(fsck" (fatscope-probe.8)
#   --def FILE     the table to read (default: ../libexfat/include/fatscope/problems.def
#                  next to this script)
#   --update PAGE  replace PAGE's section, from ".SH PROBLEMS" up to the
#                  next ".SH", instead of printing it
#
# Each PROBLEM(CODE, NAME, SEVERITY, FIX, FLAGS, MESSAGE, EXPLANATION)
# (CODE a number no other entry has; it is not printed) becomes
#
#   .TP
#   .B NAME
#   (severity; fix: FIX[, safe for -p])
#   EXPLANATION, one sentence a line
#
# under a ".SS" heading per section comment "/* ---- TITLE (...) ---- */"
# (a trailing parenthesis of the title is dropped; a lower-case first
# letter is capitalised unless the first word has a capital, as exFAT).
# POSIX sh and awk only.
# Exit status: 0 done, 1 a malformed table or page, 2 usage.
set -eu
LC_ALL=C
export LC_ALL

usage() {
	echo "Usage: problems-section.sh [--all | --probe] [--def FILE] [--update PAGE]"
}

mode=all
def=
page=
while [ $# -gt 0 ]; do
	case $1 in
	--all) mode=all ;;
	--probe) mode=probe ;;
	--def | --update)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		if [ "$1" = --def ]; then def=$2; else page=$2; fi
		shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "problems-section.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$def" ]; then
	case $0 in
	*/*) def=${0%/*}/../libexfat/include/fatscope/problems.def ;;
	*) def=../libexfat/include/fatscope/problems.def ;;
	esac
fi
[ -r "$def" ] || { echo "problems-section.sh: cannot read $def" >&2; exit 1; }

generate() {
	awk -v mode="$mode" '
	function fail(msg) {
		printf "problems-section.sh: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
		bad = 1
		exit 1
	}

	# Split the text after "PROBLEM(" into arguments; adjacent string
	# literals join, C escapes are undone.  Returns 1 once the closing
	# parenthesis was seen, 0 when the entry goes on on the next line.
	function scan(s,    i, n, c, d, depth, instr, cur) {
		nargs = 0
		cur = ""
		depth = 0
		instr = 0
		n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (instr) {
				if (c == "\\") {
					d = substr(s, ++i, 1)
					if (d == "n" || d == "t")
						d = " "
					cur = cur d
				} else if (c == "\"") {
					instr = 0
				} else {
					cur = cur c
				}
			} else if (c == "\"") {
				instr = 1
			} else if (c == "(") {
				depth++
				cur = cur c
			} else if (c == ")" && depth > 0) {
				depth--
				cur = cur c
			} else if (c == ")" || (c == "," && depth == 0)) {
				arg[++nargs] = cur
				cur = ""
				if (c == ")")
					return 1
			} else if (c != " " && c != "\t" && c != "\n") {
				cur = cur c
			}
		}
		return 0
	}

	# roff-escape one line of text: backslashes, a minus sign before a
	# number, a control character at the start.
	function roff(s,    i, n, c, prev, out) {
		out = ""
		prev = " "
		n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (c == "\\")
				out = out "\\e"
			else if (c == "-" && (prev == " " || prev == "(") && substr(s, i + 1, 1) ~ /[0-9]/)
				out = out "\\-"
			else
				out = out c
			prev = c
		}
		if (out ~ /^[.\047]/)
			out = "\\&" out
		return out
	}

	# One sentence a line: break after ". " followed by a capital letter.
	function sentences(s,    i, n, out, line) {
		out = ""
		line = ""
		n = length(s)
		for (i = 1; i <= n; i++) {
			line = line substr(s, i, 1)
			if (substr(s, i, 2) == ". " && substr(s, i + 2, 1) ~ /[A-Z]/) {
				out = out roff(line) "\n"
				line = ""
				i++
			}
		}
		sub(/ +$/, "", line)
		return out roff(line)
	}

	function emit(    code, name, sev, fix, flags, note) {
		if (nargs != 8)
			fail("PROBLEM with " nargs " arguments, 8 expected")
		code = arg[1]
		name = arg[2]
		sev = arg[3]
		fix = arg[4]
		flags = arg[5]
		if (code !~ /^(0|[1-9][0-9]*)$/)
			fail("bad problem code \"" code "\"")
		if (code in codes)
			fail(name ": code " code " already belongs to " codes[code])
		codes[code] = name
		if (name !~ /^[A-Z][A-Z0-9_]*$/)
			fail("bad problem name \"" name "\"")
		if (!(sev in sevname))
			fail(name ": unknown severity " sev)
		if (fix !~ /^(NONE|RECOMPUTE|FROM_BACKUP|CLEAR|MANUAL|RENAME)$/)
			fail(name ": unknown fix kind " fix)
		if (flags !~ /^(0|PREEN|LOSS|PREEN\|LOSS)$/)
			fail(name ": unknown flags " flags)
		if (arg[7] == "")
			fail(name ": empty explanation")
		if (arg[8] == "")
			fail(name ": empty repair")
		count++
		if (mode == "probe" && fsck_group)
			return
		if (title != "" && !heading_done) {
			printf ".SS \"%s\"\n", title
			heading_done = 1
		}
		note = flags ~ /PREEN/ ? ", safe for \\-p" : ""
		note = note (flags ~ /LOSS/ ? ", may cut file data" : "")
		printf ".TP\n.B %s\n(%s; fix: %s%s)\n%s\n.br\nRepair: %s\n", name, sevname[sev], fix, note,
		       sentences(arg[7]), sentences(arg[8])
		printed++
	}

	BEGIN {
		sevname["INFO"] = "info"
		sevname["WARN"] = "warning"
		sevname["ERROR"] = "error"
		sevname["FATAL"] = "fatal"
	}

	/^\/\* ---- .* ---- \*\/[ \t]*$/ {
		if (inentry)
			fail("section comment inside a PROBLEM entry")
		title = $0
		sub(/^\/\* ---- /, "", title)
		sub(/ ---- \*\/[ \t]*$/, "", title)
		fsck_group = index(title, "(fsck") > 0
		sub(/ \([^()]*\)$/, "", title)
		# a capital first letter, unless the first word has one (exFAT)
		if (title ~ /^[a-z][^ A-Z]*( |$)/)
			title = toupper(substr(title, 1, 1)) substr(title, 2)
		heading_done = 0
		next
	}
	/^PROBLEM\(/ {
		if (inentry)
			fail("PROBLEM entry not closed")
		buf = substr($0, 9)
		inentry = 1
		start = FNR
	}
	inentry && !/^PROBLEM\(/ {
		buf = buf "\n" $0
	}
	inentry {
		if (scan(buf)) {
			inentry = 0
			emit()
		} else if (FNR - start > 20) {
			fail("PROBLEM entry not closed")
		}
	}
	END {
		if (bad)
			exit 1
		if (inentry)
			fail("PROBLEM entry not closed at the end of the file")
		if (!count)
			fail("no PROBLEM entries")
	}
	' "$def" >"$1"
}

# A private directory (mkdir fails rather than reuse one) for the pieces.
tmpdir=${TMPDIR:-/tmp}/problems-section.$$
mkdir -m 700 "$tmpdir" || { echo "problems-section.sh: cannot create $tmpdir" >&2; exit 1; }
trap 'rm -rf "$tmpdir"' EXIT
trap 'exit 1' HUP INT TERM
tmp=$tmpdir/section
generate "$tmp.body"

{
	echo '.SH PROBLEMS'
	echo '.\" Generated from libexfat/include/fatscope/problems.def by man/problems-section.sh'
	if [ "$mode" = probe ]; then
		echo '.\" --probe; do not edit.  Regenerate with'
		echo '.\"   sh man/problems-section.sh --probe --update man/fatscope-probe.8'
	else
		echo '.\" --all; do not edit.  Regenerate with'
		echo '.\"   sh man/problems-section.sh --all --update man/fatscope-fsck.8'
	fi
	cat <<'EOF'
Each finding carries one of these IDs.
IDs are stable: scripts may rely on them and they are never renamed.
Each entry gives the severity, the fix, whether the fix is safe in preen
mode, and what the problem means;
.B fatscope fsck \-\-explain
.I ID
prints the same together with the message template.
.PP
The severities are
.B info
(worth knowing, not wrong),
.B warning
(deviates from the specification or the usual practice, but usable),
.B error
(the specification rejects the volume, or data is at risk) and
.B fatal
(the rest of the volume cannot be checked).
.PP
The fix is what a repair would do:
.B NONE
(nothing to repair: a fact about the volume or its device),
.B RECOMPUTE
(the value is computed again from the rest of the volume: a checksum, a
hash, the allocation bitmap, PercentInUse),
.B FROM_BACKUP
(the backup copy is written over the damaged one),
.B CLEAR
(the offending flag, bits or entries are cleared, lost clusters freed),
.B RENAME
(the file keeps its data and gets a name that is allowed: each forbidden
character becomes an underscore) or
.B MANUAL
(no safe automatic repair: the data must be salvaged by hand or the
volume made anew).
The note
.B "safe for \-p"
marks the fixes that preen mode
.RB ( "fatscope fsck \-p" )
may apply without asking.
Where a fix is not yet made by
.B "fatscope fsck \-y"
the finding is reported as left (see
.BR fatscope\-fsck (8),
.BR Repair ).
EOF
	if [ "$mode" = probe ]; then
		cat <<'EOF'
.PP
These are the problems
.B probe
reports.
.BR fatscope\-fsck (8)
lists them too, and those only a full check finds.
EOF
	fi
	cat "$tmp.body"
} >"$tmp"

if [ -z "$page" ]; then
	cat "$tmp"
	exit 0
fi

[ -r "$page" ] || { echo "problems-section.sh: cannot read $page" >&2; exit 1; }
grep -q '^\.SH PROBLEMS[ \t]*$' "$page" ||
	{ echo "problems-section.sh: $page has no .SH PROBLEMS section" >&2; exit 1; }
awk -v gen="$tmp" '
	/^\.SH PROBLEMS[ \t]*$/ && !done {
		while ((getline line < gen) > 0)
			print line
		skipping = 1
		done = 1
		next
	}
	skipping && /^\.SH/ { skipping = 0 }
	!skipping { print }
' "$page" >"$tmp.page"
if cmp -s "$tmp.page" "$page"; then
	echo "problems-section.sh: $page is up to date" >&2
else
	cat "$tmp.page" >"$page"
	echo "problems-section.sh: $page updated" >&2
fi
