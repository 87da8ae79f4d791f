#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# completion.sh - bash-completion/fatscope, sourced here, completes
# words as bash would ask it to (COMP_WORDS, COMP_CWORD, then COMPREPLY):
#   - the first word: every command of `fatscope --help', and help;
#   - for every command, every option of its --help, long and short (so
#     that no command or option added later goes without completion);
#   - option arguments: probe's --drivers (a comma list) and -o columns,
#     fsck's --lost=keep|free (bash splits it at '='), label's --guid
#     words, --undo FILE (files), --lost-to DIR (directories only), -C FD
#     (nothing);
#   - operands: file names; fatscope help CMD: the commands;
#   - paths inside the volume after the image (ls, cat, extract) and for
#     dump --path, as fatscope ls -a -p gives them, --offset passed on;
#   - problem IDs after fsck --explain.
# The completion runs in this shell (its variables are local), and the
# help texts are read, sorted and compared here without a process: what
# runs is fatscope and what the completion itself runs.
. "$(dirname "$0")/lib.sh"

comp=$top_srcdir/bash-completion/fatscope
[ -f "$comp" ] || hard_error "no $comp"
# shellcheck source=/dev/null
. "$comp" || hard_error "cannot source $comp"
[[ $(complete -p fatscope 2> /dev/null) == *"-F _fatscope "* ]] && ok || bad "no complete -F _fatscope fatscope"

# complete WORD...: got is the completions of the last word, one a line, sorted.
complete_words() {
	local -a s
	COMP_WORDS=("$FATSCOPE" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_fatscope fatscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	sorted s ${COMPREPLY[@]+"${COMPREPLY[@]}"}
	local IFS=$'\n'
	got="${s[*]}"
}
# expect DESCRIPTION WANT (lines) WORD...
expect() {
	local what=$1 want=$2 sw
	local -a s w
	shift 2
	complete_words "$@"
	mapfile -t w <<< "$want"
	sorted s "${w[@]}"
	printf -v sw '%s\n' "${s[@]}"
	if [ "$got" = "${sw%$'\n'}" ]; then ok; else bad "$what: got '${got//$'\n'/ }', want '${want//$'\n'/ }'"; fi
}
# lines WORD...: L is the words, one a line
lines() { local IFS=$'\n'; L="$*"; }
# section TEXT TITLE: S is the lines after the line that starts with TITLE, up to a
# blank one (as awk '/^TITLE/ { on = 1; next } on && /^[ \t]*$/ { exit } on').
section() {
	local line on=
	S=()
	while IFS= read -r line; do
		if [[ $line == "$2"* ]]; then
			on=1
		elif [ -n "$on" ]; then
			[[ $line =~ ^[[:blank:]]*$ ]] && break
			S+=("$line")
		fi
	done <<< "$1"
}
# firsts LINE...: F is the first word of each line (awk's $1)
firsts() {
	local line w
	F=()
	for line; do
		read -r w _ <<< "$line"
		[ -z "$w" ] || F+=("$w")
	done
}

main_help=$("$FATSCOPE" --help)
section "$main_help" Commands:
firsts ${S[@]+"${S[@]}"}
commands=(${F[@]+"${F[@]}"})
[ "${#commands[@]}" -gt 0 ] || bad "fatscope --help lists no commands"

lines ${commands[@]+"${commands[@]}"} help -h --help -V --version
expect "the first word" "$L" ""
for cmd in ${commands[@]+"${commands[@]}"}; do
	want=()
	for c in "${commands[@]}"; do [[ $c == "${cmd:0:2}"* ]] && want+=("$c"); done
	lines "${want[@]}"
	expect "help ${cmd:0:2}" "$L" help "${cmd:0:2}"
	help=$("$FATSCOPE" "$cmd" --help)
	section "$help" Options:
	# the long options (grep -Eo -- '--[a-z][a-z0-9-]*'), the short ones
	# (grep -Eo -- '(^ +|, )-[A-Za-z0-9]\b'): each once, sorted
	declare -A seen=()
	long=() short=()
	for line in ${S[@]+"${S[@]}"}; do
		s=$line
		while [[ $s =~ --[a-z][a-z0-9-]* ]]; do
			m=${BASH_REMATCH[0]}
			s=${s#*"$m"}
			[ -n "${seen[$m]:-}" ] || long+=("$m")
			seen[$m]=1
		done
		s=$line
		[[ $s =~ ^\ +(-[A-Za-z0-9])([^A-Za-z0-9_]|$) ]] && m=${BASH_REMATCH[1]} &&
			{ [ -n "${seen[$m]:-}" ] || short+=("$m"); seen[$m]=1; }
		while [[ $s == *", -"* ]]; do
			s=${s#*", -"}
			if [[ $s =~ ^[A-Za-z0-9]([^A-Za-z0-9_]|$) ]]; then
				m=-${s:0:1}
				[ -n "${seen[$m]:-}" ] || short+=("$m")
				seen[$m]=1
			fi
		done
	done
	unset seen
	sorted long ${long[@]+"${long[@]}"}
	sorted short ${short[@]+"${short[@]}"}
	[ "${#long[@]}" -gt 0 ] && [ "${#short[@]}" -gt 0 ] || { bad "$cmd --help lists no options"; continue; }
	declare -A have=()
	complete_words "$cmd" --
	mapfile -t w <<< "$got"
	for x in "${w[@]}"; do have[$x]=1; done
	for opt in "${long[@]}"; do
		[ -n "${have[$opt]:-}${have[$opt=]:-}" ] && ok || bad "$cmd: '--' does not complete $opt (got: ${got//$'\n'/ })"
	done
	have=()
	complete_words "$cmd" -
	mapfile -t w <<< "$got"
	for x in "${w[@]}"; do have[$x]=1; done
	for opt in "${short[@]}" "${long[@]}"; do
		[ -n "${have[$opt]:-}${have[$opt=]:-}" ] && ok || bad "$cmd: '-' does not complete $opt"
	done
	# nothing that is not an option of the command
	declare -A known=()
	for opt in "${short[@]}" "${long[@]}"; do known[$opt]=1; done
	for opt in "${long[@]}"; do known[$opt=]=1; done
	extra=()
	for x in "${w[@]}"; do [ -z "$x" ] || [ -n "${known[$x]:-}" ] || extra+=("$x"); done
	[ "${#extra[@]}" = 0 ] && ok || bad "$cmd: '-' completes what its --help does not list: ${extra[*]}"
	unset have known
done

# option arguments
help=$("$FATSCOPE" probe --help)
section "$help" Drivers:
firsts ${S[@]+"${S[@]}"}
drivers=(${F[@]+"${F[@]}"})
[ "${#drivers[@]}" -gt 0 ] || bad "probe --help lists no drivers"
lines ${drivers[@]+"${drivers[@]}"} current all
expect "probe --drivers" "$L" probe --drivers ""
lines linux-exfat linux-exfat-5.7
expect "probe --drivers linux-e" "$L" probe --drivers linux-e
lines blkid,staging-5.4 blkid,staging-5.4-vfat
expect "probe --drivers blkid,staging-5.4" "$L" probe --drivers blkid,staging-5.4
expect "probe -o VOLUME,TY" "VOLUME,TYPE" probe -o VOLUME,TY
expect "probe --output D" "DRIVER" probe --output D
lines keep free
expect "fsck --lost=" "$L" fsck --lost =
expect "fsck --lost=f" "free" fsck --lost = f
expect "fsck --lost=k, one word" "--lost=keep" fsck --lost=k
lines --lost= --lost-to
expect "fsck --lo" "$L" fsck --lo
lines random time
expect "label --guid" "$L" label --guid ""
expect "label -g r" "random" label -g r
expect "fsck -C" "" fsck -C ""

cd "$SCRATCH" || hard_error "no $SCRATCH"
mkdir -p sub.d
: > sub.img
: > sub.undo
lines sub.d sub.img sub.undo
expect "fsck --undo FILE" "$L" fsck --undo sub
expect "fsck --lost-to DIR" "sub.d" fsck --lost-to sub
expect "probe operand" "$L" probe -J sub
expect "label operand" "$L" label sub
expect "help probe <TAB>" "" help probe ""

# paths inside the volume (fatscope ls -a -p on the image): after the image for ls, cat
# and extract, dump --path's argument (before the image too), with --offset passed on
prepare_fixtures
img=$WORK/img/pop-small.img
lines /README.txt /case/ /deep/ /empty-dir/ /frag/ /names/ /sizes/ /trash/ /unicode/
expect "ls IMG /" "$L" ls "$img" /
expect "ls -l IMG /s" /sizes/ ls -l "$img" /s
lines /sizes/size-4095.bin /sizes/size-4096.bin /sizes/size-4097.bin
expect "ls IMG /sizes /sizes/size-4" "$L" ls "$img" /sizes /sizes/size-4
expect "cat IMG deep/lev (no leading /)" deep/level2/ cat "$img" deep/lev
expect "extract -o DIR IMG /u" /unicode/ extract -o sub.d "$img" /u
lines /frag/contiguous.bin /frag/interleaved-a.bin /frag/interleaved-b.bin
expect "dump IMG --path /frag/" "$L" dump "$img" --path /frag/
expect "ls --offset 0 IMG /e" /empty-dir/ ls --offset 0 "$img" /e
expect "ls --offset=0 IMG /e" /empty-dir/ ls --offset=0 "$img" /e
expect "the image itself: a file name" "$img" ls "$img"
COMP_WORDS=("$FATSCOPE" dump --path /fr "$img")
COMP_CWORD=3
COMPREPLY=()
_fatscope fatscope /fr --path
check "dump --path /fr IMG (the image after it)" /frag/ "${COMPREPLY[*]}"
expect "ls on a file that is no volume" "" ls sub.img /
# problem IDs after fsck --explain (fatscope fsck --explain list)
ids=$("$FATSCOPE" fsck --explain list)
mapfile -t w <<< "$ids"
[ "${#w[@]}" -gt 100 ] && ok || bad "fsck --explain list: ${#w[@]} IDs"
want=()
for x in "${w[@]}"; do [[ $x == EXFAT_BOOT_C* ]] && want+=("$x"); done
lines ${want[@]+"${want[@]}"}
expect "fsck --explain EXFAT_BOOT_C" "$L" fsck --explain EXFAT_BOOT_C
expect "fsck --explain li" list fsck --explain li
finish
