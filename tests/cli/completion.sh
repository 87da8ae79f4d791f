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
. "$(dirname "$0")/lib.sh"

comp=$top_srcdir/bash-completion/fatscope
[ -f "$comp" ] || hard_error "no $comp"
# shellcheck source=/dev/null
. "$comp" || hard_error "cannot source $comp"
[[ $(complete -p fatscope 2> /dev/null) == *"-F _fatscope "* ]] && ok || bad "no complete -F _fatscope fatscope"

# complete WORD...: the completions of the last word, one a line, sorted.
complete_words() {
	COMP_WORDS=("$FATSCOPE" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_fatscope fatscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect DESCRIPTION WANT (lines) WORD...
expect() {
	local what=$1 want=$2 got
	shift 2
	got=$(complete_words "$@")
	if [ "$got" = "$(sort <<< "$want")" ]; then ok; else bad "$what: got '$(echo $got)', want '$(echo $want)'"; fi
}
lines() { printf '%s\n' "$@"; }

main_help=$("$FATSCOPE" --help)
commands=$(awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }' <<< "$main_help")
[ -n "$commands" ] || bad "fatscope --help lists no commands"

expect "the first word" "$(lines $commands help -h --help -V --version)" ""
for cmd in $commands; do
	expect "help ${cmd:0:2}" "$(grep "^${cmd:0:2}" <<< "$commands")" help "${cmd:0:2}"
	help=$("$FATSCOPE" "$cmd" --help)
	options=$(awk '/^Options:/ { on = 1; next } on && /^[ \t]*$/ { exit } on' <<< "$help")
	long=$(grep -Eo -- '--[a-z][a-z0-9-]*' <<< "$options" | sort -u)
	short=$(grep -Eo -- '(^ +|, )-[A-Za-z0-9]\b' <<< "$options" | grep -Eo -- '-[A-Za-z0-9]' | sort -u)
	[ -n "$long" ] && [ -n "$short" ] || { bad "$cmd --help lists no options"; continue; }
	got=$(complete_words "$cmd" --)
	for opt in $long; do
		grep -qx -- "$opt=\{0,1\}" <<< "$got" && ok || bad "$cmd: '--' does not complete $opt (got: $(echo $got))"
	done
	got=$(complete_words "$cmd" -)
	for opt in $short $long; do
		grep -qx -- "$opt=\{0,1\}" <<< "$got" && ok || bad "$cmd: '-' does not complete $opt"
	done
	# nothing that is not an option of the command
	extra=$(grep -vxF -f <(printf '%s\n' $short $long $(sed 's/$/=/' <<< "$long")) <<< "$got")
	[ -z "$extra" ] && ok || bad "$cmd: '-' completes what its --help does not list: $(echo $extra)"
done

# option arguments
drivers=$(awk '/^Drivers:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }' <<< "$("$FATSCOPE" probe --help)")
[ -n "$drivers" ] || bad "probe --help lists no drivers"
expect "probe --drivers" "$(lines $drivers current all)" probe --drivers ""
expect "probe --drivers linux-e" "$(lines linux-exfat linux-exfat-5.7)" probe --drivers linux-e
expect "probe --drivers blkid,staging-5.4" "$(lines blkid,staging-5.4 blkid,staging-5.4-vfat)" probe --drivers blkid,staging-5.4
expect "probe -o VOLUME,TY" "VOLUME,TYPE" probe -o VOLUME,TY
expect "probe --output D" "DRIVER" probe --output D
expect "fsck --lost=" "$(lines keep free)" fsck --lost =
expect "fsck --lost=f" "free" fsck --lost = f
expect "fsck --lost=k, one word" "--lost=keep" fsck --lost=k
expect "fsck --lo" "$(lines --lost= --lost-to)" fsck --lo
expect "label --guid" "$(lines random time)" label --guid ""
expect "label -g r" "random" label -g r
expect "fsck -C" "" fsck -C ""

cd "$SCRATCH" || hard_error "no $SCRATCH"
mkdir -p sub.d
: > sub.img
: > sub.undo
expect "fsck --undo FILE" "$(lines sub.d sub.img sub.undo)" fsck --undo sub
expect "fsck --lost-to DIR" "sub.d" fsck --lost-to sub
expect "probe operand" "$(lines sub.d sub.img sub.undo)" probe -J sub
expect "label operand" "$(lines sub.d sub.img sub.undo)" label sub
expect "help probe <TAB>" "" help probe ""

# paths inside the volume (fatscope ls -a -p on the image): after the image for ls, cat
# and extract, dump --path's argument (before the image too), with --offset passed on
prepare_fixtures
img=$WORK/img/pop-small.img
expect "ls IMG /" "$(lines /README.txt /case/ /deep/ /empty-dir/ /frag/ /names/ /sizes/ /trash/ /unicode/)" ls "$img" /
expect "ls -l IMG /s" /sizes/ ls -l "$img" /s
expect "ls IMG /sizes /sizes/size-4" "$(lines /sizes/size-4095.bin /sizes/size-4096.bin /sizes/size-4097.bin)" \
	ls "$img" /sizes /sizes/size-4
expect "cat IMG deep/lev (no leading /)" deep/level2/ cat "$img" deep/lev
expect "extract -o DIR IMG /u" /unicode/ extract -o sub.d "$img" /u
expect "dump IMG --path /frag/" "$(lines /frag/contiguous.bin /frag/interleaved-a.bin /frag/interleaved-b.bin)" \
	dump "$img" --path /frag/
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
[ "$(wc -l <<< "$ids")" -gt 100 ] && ok || bad "fsck --explain list: $(wc -l <<< "$ids") IDs"
expect "fsck --explain EXFAT_BOOT_C" "$(grep '^EXFAT_BOOT_C' <<< "$ids")" fsck --explain EXFAT_BOOT_C
expect "fsck --explain li" list fsck --explain li
finish
