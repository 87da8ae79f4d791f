#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# help.sh - fatscope help CMD, for every command of `fatscope --help':
#   - with man(1) and the page (MANPATH at a man8 directory of the source
#     tree's pages, MANPAGER=cat): the formatted fatscope-CMD(8), exit 0;
#   - with man(1) but no such page (MANPATH at an empty directory): the
#     text of fatscope CMD --help, exit 0;
#   - with no man(1) in PATH: the same text;
# and fatscope help with no command (or with --help, -h) prints the usage; an unknown command
# is a usage error (16).
. "$(dirname "$0")/lib.sh"

libtool=$top_builddir/libtool
[ -x "$libtool" ] || hard_error "no libtool script at $libtool"

main_help=$("$FATSCOPE" --help)
commands=$(awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }' <<< "$main_help")
[ -n "$commands" ] || bad "fatscope --help lists no commands"

mkdir -p "$SCRATCH/man/man8" "$SCRATCH/empty/man8" "$SCRATCH/nobin"
for page in "$top_srcdir"/man/*.8; do
	ln -sf "$page" "$SCRATCH/man/man8/"
done
# man-db's cache and configuration stay out of it: MANPATH only.
export MANPAGER=cat PAGER=cat MANWIDTH=80
unset MANOPT

has_man=
if command -v man > /dev/null && MANPATH=$SCRATCH/man man -w 8 fatscope > /dev/null 2>&1; then
	has_man=1
else
	echo "SKIP (part): man(1) is not installed or cannot read $SCRATCH/man: the pages themselves are not opened"
fi

# Without man(1) in PATH: the real program runs with PATH set for it alone
# (libtool's wrapper script, when FATSCOPE is one, needs a PATH of its own).
magic=
IFS= read -r -n 4 magic < "$FATSCOPE"
no_man() {
	if [ "$magic" = $'\x7fELF' ]; then
		PATH="$SCRATCH/nobin" MANPATH="$SCRATCH/man" "$FATSCOPE" "$@"
	else
		"$libtool" --mode=execute env PATH="$SCRATCH/nobin" MANPATH="$SCRATCH/man" "$FATSCOPE" "$@"
	fi
}

for cmd in $commands; do
	want=$("$FATSCOPE" "$cmd" --help); want_rc=$?
	[ "$want_rc" = 0 ] && [ -n "$want" ] || { bad "fatscope $cmd --help: exit $want_rc"; continue; }
	if [ -n "$has_man" ]; then
		out=$(MANPATH=$SCRATCH/man "$FATSCOPE" help "$cmd" 2>&1); rc=$?
		upper=fatscope-$cmd
		upper=${upper^^}
		if [ "$rc" = 0 ] && [[ ${out%%$'\n'*} =~ ^"$upper(8)" ]] &&
		   [[ $'\n'$out =~ $'\n'\ +"fatscope-$cmd"\ +-\  ]]; then
			ok
		else
			bad "help $cmd with its page: exit $rc, '${out:0:400}'"
		fi
	fi
	# no page: the command's --help
	out=$(MANPATH=$SCRATCH/empty "$FATSCOPE" help "$cmd" 2>&1); rc=$?
	if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then ok; else bad "help $cmd without its page: exit $rc, '$out'"; fi
	# no man(1) at all
	out=$(no_man help "$cmd" 2>&1); rc=$?
	if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then ok; else bad "help $cmd without man(1): exit $rc, '$out'"; fi
done

out=$("$FATSCOPE" help); rc=$?
if [ "$rc" = 0 ] && [ "$out" = "$main_help" ]; then ok; else bad "fatscope help: exit $rc, '$out'"; fi
for h in --help -h; do
	out=$("$FATSCOPE" help $h 2>&1); rc=$?
	if [ "$rc" = 0 ] && [ "$out" = "$main_help" ]; then ok; else bad "fatscope help $h: exit $rc, '$out'"; fi
done
out=$("$FATSCOPE" help no-such-command 2>&1); rc=$?
if [ "$rc" = 16 ] && [ "$out" = "fatscope: unknown command 'no-such-command'
Try 'fatscope --help' for more information." ]; then ok; else bad "help no-such-command: exit $rc, '$out'"; fi
finish
