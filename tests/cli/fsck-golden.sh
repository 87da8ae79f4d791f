#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-golden.sh - fatscope fsck on every exFAT fixture, e2fsprogs style:
# the first run's transcript and exit status against the reviewed one in
# tests/cli/expected/fsck/, a second run identical to the first (a
# read-only check changes nothing), -y writing nothing either (repair is
# not available yet), and the image's hash unchanged after all of them.
# FSC_UPDATE_GOLDEN=1 rewrites the transcripts (review before committing).
. "$(dirname "$0")/lib.sh"

prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	want="$EXPECTED/fsck/$name.txt"
	run1=$("$FATSCOPE" fsck -n "$name.img" 2>&1; echo "exit status: $?")
	run2=$("$FATSCOPE" fsck -n "$name.img" 2>&1; echo "exit status: $?")
	runy=$("$FATSCOPE" fsck -y "$name.img" 2>&1; echo "exit status: $?")
	golden "$name" "$want" "$run1"
	if [ "$run1" = "$run2" ]; then ok; else bad "$name: second run differs from the first"; fi
	# -y: the same transcript as -n, but for the closing line, which says
	# nothing was written.
	if [ "$runy" = "$(sed 's/^\(.*: [0-9]* problems\{0,1\}\) left uncorrected (checked read-only)$/\1 found; repair is not available yet, nothing was written/' <<< "$run1")" ]; then
		ok
	else
		bad "$name: -y does not match -n or does not say nothing was written"
		diff <(printf '%s\n' "$run1") <(printf '%s\n' "$runy") | head -10
	fi
	unchanged "$name"
done
finish
