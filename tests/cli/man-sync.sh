#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# man-sync.sh - check that the man pages stay in step with the code:
#   man/fatscope-fsck.8 documents
#     (a) every problem ID of libexfat/include/fatscope/problems.def (as a ".B ID" entry),
#     (d) every long option listed by `fatscope fsck --help`;
#   man/fatscope-probe.8 documents
#     (b) every problem ID of the groups of libexfat/include/fatscope/problems.def that
#         probe reports (all but the "(fsck ...)" groups), and none of the
#         fsck groups (as ".B ID" entries),
#     every driver ID listed under "Drivers:" by `fatscope probe --help`
#     (as a ".B ID" entry) and every long option it lists;
#   (c) the PROBLEMS section of both pages is exactly what
#       man/problems-section.sh generates from problems.def now (--all for
#       fatscope-fsck.8, --probe for fatscope-probe.8), so that a changed
#       problems.def fails until the pages are regenerated;
#   (e) man/fatscope-dump.8, man/fatscope-label.8, man/fatscope-undo.8,
#       man/fatscope-ls.8, man/fatscope-cat.8, man/fatscope-extract.8 and man/fatscope-scan.8
#       document every long option of their command's --help (a help without
#       an "Options:" list: the options of its "Usage:" lines);
#   (f) every command listed under "Commands:" by `fatscope --help' has its
#       page man/fatscope-CMD.8, except those that share another command's
#       page (page_of below, empty today: the shared page's text must then
#       name "fatscope CMD"); man/fatscope.8 lists every
#       command under COMMANDS (as a ".B CMD" entry); and every
#       man/fatscope*.8 page is in dist_man_MANS of man/Makemodule.am.
#
# Environment: srcdir (default: $top_srcdir, else two directories up from
# this script), FATSCOPE (default: ./fatscope).
# Exit status: 0 all documented, 1 something missing or out of date, 99 the
# check itself could not run (automake's hard error).
set -eu
export LC_ALL=C

script_dir=$(cd "$(dirname "$0")" && pwd)
srcdir=${srcdir:-${top_srcdir:-$script_dir/../..}}
FATSCOPE=${FATSCOPE:-./fatscope}

probe_page=$srcdir/man/fatscope-probe.8
fsck_page=$srcdir/man/fatscope-fsck.8
dump_page=$srcdir/man/fatscope-dump.8
label_page=$srcdir/man/fatscope-label.8
undo_page=$srcdir/man/fatscope-undo.8
main_page=$srcdir/man/fatscope.8
makemodule=$srcdir/man/Makemodule.am
def=$srcdir/libexfat/include/fatscope/problems.def
gen=$srcdir/man/problems-section.sh

fail_hard() {
	echo "man-sync: $*" >&2
	exit 99
}

for f in "$probe_page" "$fsck_page" "$main_page" "$makemodule" "$def" "$gen"; do
	[ -r "$f" ] || fail_hard "cannot read $f"
done
probe_help=$("$FATSCOPE" probe --help) || fail_hard "'$FATSCOPE probe --help' failed"
fsck_help=$("$FATSCOPE" fsck --help) || fail_hard "'$FATSCOPE fsck --help' failed"
dump_help=$("$FATSCOPE" dump --help) || fail_hard "'$FATSCOPE dump --help' failed"
label_help=$("$FATSCOPE" label --help) || fail_hard "'$FATSCOPE label --help' failed"
undo_help=$("$FATSCOPE" undo --help) || fail_hard "'$FATSCOPE undo --help' failed"
ls_help=$("$FATSCOPE" ls --help) || fail_hard "'$FATSCOPE ls --help' failed"
cat_help=$("$FATSCOPE" cat --help) || fail_hard "'$FATSCOPE cat --help' failed"
extract_help=$("$FATSCOPE" extract --help) || fail_hard "'$FATSCOPE extract --help' failed"
scan_help=$("$FATSCOPE" scan --help) || fail_hard "'$FATSCOPE scan --help' failed"
main_help=$("$FATSCOPE" --help) || fail_hard "'$FATSCOPE --help' failed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-sync.XXXXXX") || fail_hard "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT

# A page's source with the roff escapes that can sit inside a name removed:
# \- becomes -, \% \& \: and font changes disappear.
man_text() {
	sed -e 's/\\-/-/g' -e 's/\\[%&:]//g' -e 's/\\f[BIRP]//g' \
		-e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g' "$1"
}

# The names of a page's entry lines ".B NAME", ".BR NAME ..." and
# ".BI NAME ...", one a line.
entries() {
	awk '/^\.B[RI]?[ \t]/ { w = $2; gsub(/"/, "", w); print w }' "$1" | sort -u
}

# The long options under "Options:" of a --help text.
help_options() {
	printf '%s\n' "$1" | awk '
		/^Options:/ { on = 1; next }
		on && /^[ \t]*$/ { exit }
		on { print }' | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u || true
}

# The long options of the "Usage:" lines of a --help text (for a command
# whose help has no "Options:" list).
usage_options() {
	printf '%s\n' "$1" | awk '
		/^Usage:/ { on = 1; next }
		on && /^[ \t]*$/ { exit }
		on { print }' | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u || true
}

# The commands listed under "Commands:" by `fatscope --help'.
help_commands() {
	printf '%s\n' "$1" | awk '
		/^Commands:/ { on = 1; next }
		on && /^[ \t]*$/ { exit }
		on { print $1 }'
}

# The page documenting command $1: its own, or the one it shares (none
# shares one today: add "CMD) echo OTHER ;;" for a command that does).
page_of() {
	case $1 in
	*) echo "$1" ;;
	esac
}

# The long options a page text holds as whole words (not inside a longer
# word), read once a page: has_option OPT then asks the array, no process
# an option.
declare -A page_words=()
load_words() {
	local w
	page_words=()
	while IFS= read -r w; do
		w=${w#"${w%%--*}"}
		page_words[$w]=1
	done < <(grep -Eo -- '(^|[^A-Za-z0-9-])--[a-z][A-Za-z0-9-]*' "$1" || true)
}
has_option() { [ -n "${page_words[$1]:-}" ]; }

# A file of names, one a line, as the keys of the associative array named $2.
load_set() {
	local -n set=$2
	local w
	set=()
	while IFS= read -r w; do
		[ -n "$w" ] && set[$w]=1
	done <"$1"
}

# The PROBLEMS section of a page: from ".SH PROBLEMS" up to the next ".SH".
problems_section() {
	awk '/^\.SH PROBLEMS[ \t]*$/ { on = 1; print; next }
		on && /^\.SH/ { exit }
		on { print }' "$1"
}

man_text "$probe_page" >"$tmp/probe.txt"
man_text "$fsck_page" >"$tmp/fsck.txt"
entries "$tmp/probe.txt" >"$tmp/probe.entries"
entries "$tmp/fsck.txt" >"$tmp/fsck.entries"
declare -A fsck_entries probe_entries
load_set "$tmp/fsck.entries" fsck_entries
load_set "$tmp/probe.entries" probe_entries

# Every ID, and the IDs of the groups that are not fsck's, read from
# problems.def here rather than through the generator.
awk '
	/^\/\* ---- .* ---- \*\// { fsck = index($0, "(fsck") > 0; next }
	/^PROBLEM\(/ {
		id = $0
		sub(/^PROBLEM\([ \t]*[0-9]+[ \t]*,[ \t]*/, "", id)
		sub(/[ \t]*,.*/, "", id)
		print (fsck ? "fsck " : "probe ") id
	}' "$def" >"$tmp/groups" || fail_hard "cannot read the problem IDs of $def"
sed -n 's/^fsck //p' "$tmp/groups" >"$tmp/fsck-only.ids"
sed -n 's/^probe //p' "$tmp/groups" >"$tmp/probe.ids"
sort -u "$tmp/fsck-only.ids" "$tmp/probe.ids" >"$tmp/all.ids"
[ -s "$tmp/all.ids" ] || fail_hard "no PROBLEM entries found in $def"
[ -s "$tmp/probe.ids" ] || fail_hard "no PROBLEM entries outside the fsck groups in $def"

drivers=$(printf '%s\n' "$probe_help" | awk '
	/^Drivers:/ { on = 1; next }
	on && /^[ \t]*$/ { exit }
	on { print $1 }')
probe_options=$(help_options "$probe_help")
fsck_options=$(help_options "$fsck_help")
[ -n "$drivers" ] || fail_hard "no driver IDs under 'Drivers:' in '$FATSCOPE probe --help'"
[ -n "$probe_options" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE probe --help'"
[ -n "$fsck_options" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE fsck --help'"

missing=0
np=$(wc -l <"$tmp/all.ids")
npp=$(wc -l <"$tmp/probe.ids")
np=$((np + 0)) npp=$((npp + 0)) nd=0 npo=0 nfo=0

# (a) every ID in fatscope-fsck.8
while read -r id; do
	if [ -z "${fsck_entries[$id]:-}" ]; then
		echo "man-sync: problem ID $id is not documented in man/fatscope-fsck.8"
		missing=$((missing + 1))
	fi
done <"$tmp/all.ids"

# (b) the IDs probe reports in fatscope-probe.8, and no fsck-only ID
while read -r id; do
	if [ -z "${probe_entries[$id]:-}" ]; then
		echo "man-sync: problem ID $id is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done <"$tmp/probe.ids"
while read -r id; do
	if [ -n "${probe_entries[$id]:-}" ]; then
		echo "man-sync: problem ID $id belongs to an fsck group but is documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done <"$tmp/fsck-only.ids"

# probe's drivers and options in fatscope-probe.8
for id in $drivers; do
	nd=$((nd + 1))
	if [ -z "${probe_entries[$id]:-}" ]; then
		echo "man-sync: driver $id is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done
load_words "$tmp/probe.txt"
for opt in $probe_options; do
	npo=$((npo + 1))
	if ! has_option "$opt"; then
		echo "man-sync: option $opt is not documented in man/fatscope-probe.8"
		missing=$((missing + 1))
	fi
done

# (d) fsck's options in fatscope-fsck.8
load_words "$tmp/fsck.txt"
for opt in $fsck_options; do
	nfo=$((nfo + 1))
	if ! has_option "$opt"; then
		echo "man-sync: option $opt of 'fatscope fsck' is not documented in man/fatscope-fsck.8"
		missing=$((missing + 1))
	fi
done

# (e) the options of dump, label and undo in their pages
ndo=0 nlo=0 nuo=0 nno=0
dump_options=$(help_options "$dump_help")
label_options=$(help_options "$label_help")
undo_options=$(help_options "$undo_help")
[ -n "$undo_options" ] || undo_options=$(usage_options "$undo_help")
[ -n "$dump_options" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE dump --help'"
[ -n "$label_options" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE label --help'"
[ -n "$undo_options" ] || fail_hard "no long options in '$FATSCOPE undo --help'"
for which in dump label undo ls cat extract scan; do
	case $which in
	dump) page=$dump_page opts=$dump_options ;;
	label) page=$label_page opts=$label_options ;;
	undo) page=$undo_page opts=$undo_options ;;
	ls|cat|extract|scan)
		page=$srcdir/man/fatscope-$which.8
		eval "opts=\$(help_options \"\$${which}_help\")"
		[ -n "$opts" ] || fail_hard "no long options under 'Options:' in '$FATSCOPE $which --help'" ;;
	esac
	name=man/${page##*/}
	if [ ! -r "$page" ]; then
		echo "man-sync: $name is missing (the page of 'fatscope $which')"
		missing=$((missing + 1))
		continue
	fi
	man_text "$page" >"$tmp/$which.txt"
	load_words "$tmp/$which.txt"
	for opt in $opts; do
		case $which in
		dump) ndo=$((ndo + 1)) ;;
		label) nlo=$((nlo + 1)) ;;
		undo) nuo=$((nuo + 1)) ;;
		*) nno=$((nno + 1)) ;;
		esac
		if ! has_option "$opt"; then
			echo "man-sync: option $opt of 'fatscope $which' is not documented in $name"
			missing=$((missing + 1))
		fi
	done
done

# (f) a page for every command, every command in fatscope.8, every page
# in dist_man_MANS
commands=$(help_commands "$main_help")
[ -n "$commands" ] || fail_hard "no commands under 'Commands:' in '$FATSCOPE --help'"
man_text "$main_page" >"$tmp/main.txt"
awk '/^\.SH COMMANDS[ \t]*$/ { on = 1; next }
	on && /^\.SH/ { exit }
	on && /^\.B[RI]?[ \t]/ { w = $2; gsub(/"/, "", w); print w }' "$tmp/main.txt" |
	sort -u >"$tmp/main.commands"
declare -A main_commands
load_set "$tmp/main.commands" main_commands
nc=0
for cmd in $commands; do
	nc=$((nc + 1))
	shared=$(page_of "$cmd")
	page=$srcdir/man/fatscope-$shared.8
	name=man/fatscope-$shared.8
	if [ ! -r "$page" ]; then
		echo "man-sync: command '$cmd' has no page $name"
		missing=$((missing + 1))
	elif [ "$shared" != "$cmd" ] &&
		! man_text "$page" | grep -q -- "fatscope $cmd\([^A-Za-z0-9-]\|\$\)"; then
		echo "man-sync: $name, the page of 'fatscope $cmd', does not mention 'fatscope $cmd'"
		missing=$((missing + 1))
	fi
	if [ -z "${main_commands[$cmd]:-}" ]; then
		echo "man-sync: command '$cmd' is not listed under COMMANDS in man/fatscope.8"
		missing=$((missing + 1))
	fi
done
# The pages installed: dist_man_MANS with its continuation lines joined.
sed -e ':a' -e '/\\$/N' -e 's/\\\n/ /' -e 'ta' "$makemodule" |
	awk '$1 == "dist_man_MANS" { for (i = 3; i <= NF; i++) print $i }' |
	sort -u >"$tmp/dist.pages"
declare -A dist_pages
load_set "$tmp/dist.pages" dist_pages
for page in "$srcdir"/man/fatscope*.8; do
	[ -e "$page" ] || continue
	name=man/${page##*/}
	if [ -z "${dist_pages[$name]:-}" ]; then
		echo "man-sync: $name is not in dist_man_MANS of man/Makemodule.am"
		missing=$((missing + 1))
	fi
done

# (c) the PROBLEMS sections are what the generator gives now
stale=0
for which in fsck probe; do
	if [ "$which" = fsck ]; then
		page=$fsck_page sel=--all
	else
		page=$probe_page sel=--probe
	fi
	name=man/${page##*/}
	sh "$gen" "$sel" --def "$def" >"$tmp/$which.want" 2>"$tmp/$which.err" ||
		fail_hard "man/problems-section.sh $sel failed: $(cat "$tmp/$which.err")"
	[ -s "$tmp/$which.want" ] || fail_hard "man/problems-section.sh $sel printed nothing"
	problems_section "$page" >"$tmp/$which.have"
	if [ ! -s "$tmp/$which.have" ]; then
		echo "man-sync: $name has no PROBLEMS section"
		stale=$((stale + 1))
	elif ! cmp -s "$tmp/$which.want" "$tmp/$which.have"; then
		echo "man-sync: the PROBLEMS section of $name differs from what man/problems-section.sh $sel generates:"
		diff -u "$tmp/$which.have" "$tmp/$which.want" 2>&1 |
			sed -e '1,2d' -e 's/^/  /' | head -n 40 || true
		echo "man-sync: regenerate it with: (cd $srcdir && sh man/problems-section.sh $sel --update $name)"
		stale=$((stale + 1))
	fi
done

if [ $((missing + stale)) -gt 0 ]; then
	echo "man-sync: $missing item(s) missing or misplaced, $stale PROBLEMS section(s) out of date"
	exit 1
fi
echo "man-sync: $np problem IDs ($npp for probe), $nd drivers, $npo probe, $nfo fsck, $ndo dump, $nlo label, $nuo undo and $nno ls, cat, extract and scan options, $nc commands documented; PROBLEMS sections up to date"
exit 0
