#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-golden.sh - fatscope fsck on every exFAT fixture, e2fsprogs style:
# the first run's transcript and exit status against the reviewed one in
# tests/cli/expected/fsck/, a second run identical to the first (a
# read-only check changes nothing), and the image's hash unchanged.  Then
# -y --recheck on a copy: its transcript against
# tests/cli/expected/fsck-repair/; plain -y on another copy writes the same
# bytes and its exit status (from the plan's own account) is the one the
# recheck gives; a second -y writes nothing (exit status without bit 1), and when the
# repair left no error, -n on the repaired copy exits 0, so does
# fsck.exfat -n (exfatprogs, where installed), and the linux-exfat driver
# model (fatscope probe) says it mounts.
# FSC_UPDATE_GOLDEN=1 rewrites the transcripts (review before committing).
. "$(dirname "$0")/lib.sh"

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in the runs compared byte for byte
cd "$WORK/img" || hard_error "no $WORK/img"
names=()
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	want="$EXPECTED/fsck/$name.txt"
	run1=$("$FATSCOPE" fsck -n "$name.img" 2>&1; echo "exit status: $?")
	run2=$("$FATSCOPE" fsck -n "$name.img" 2>&1; echo "exit status: $?")
	golden "$name" "$want" "$run1"
	if [ "$run1" = "$run2" ]; then ok; else bad "$name: second run differs from the first"; fi
	names+=("$name")
	cp "$name.img" "$SCRATCH/$name.img"
	cp "$name.img" "$SCRATCH/plain.img"
	runy=$(cd "$SCRATCH" && "$FATSCOPE" fsck -y --recheck "$name.img" 2>&1; echo "exit status: $?")
	golden "$name (-y)" "$EXPECTED/fsck-repair/$name.txt" "$runy"
	# Without --recheck: the same writes, and the plan's own account gives the recheck's exit status.
	"$FATSCOPE" fsck -y "$SCRATCH/plain.img" > "$SCRATCH/plain.txt" 2>&1; plain=$?
	if [[ $runy == *"exit status: $plain" ]]; then ok; else bad "$name: -y exits $plain, -y --recheck: ${runy##*: }"; fi
	if cmp -s "$SCRATCH/plain.img" "$SCRATCH/$name.img"; then ok; else bad "$name: -y and -y --recheck wrote different bytes"; fi
	(cd "$SCRATCH" && "$FATSCOPE" fsck -y "$name.img" > "$SCRATCH/again.txt" 2>&1); again=$?
	if [ $((again & 1)) = 0 ] && [ "$again" -lt 8 ]; then ok; else bad "$name: a second -y exits $again: $(tail -1 "$SCRATCH/again.txt")"; fi
	if [[ $runy =~ "exit status: "[01]$ ]]; then
		"$FATSCOPE" fsck -n "$SCRATCH/$name.img" > /dev/null 2>&1; rc=$?
		if [ "$rc" = 0 ]; then ok; else bad "$name: the repair said no error is left, fsck -n exits $rc"; fi
		# exfatprogs' checker agrees (CI installs it).
		if command -v fsck.exfat > /dev/null; then
			fsck.exfat -n "$SCRATCH/$name.img" > "$SCRATCH/fx.txt" 2>&1 < /dev/null; rc=$?
			if [ "$rc" = 0 ]; then ok; else bad "$name: after the repair fsck.exfat -n exits $rc: $(tail -1 "$SCRATCH/fx.txt")"; fi
		fi
		# The kernel's view: Linux 5.8 and later (the linux-exfat model) mounts what is left.
		if command -v jq > /dev/null; then
			mounts=$("$FATSCOPE" probe -J "$SCRATCH/$name.img" |
				 jq -r '.volumes[0].drivers[] | select(.id == "linux-exfat") | .action')
			if [ "$mounts" = mounts ]; then ok; else bad "$name: after the repair the linux-exfat model says '$mounts'"; fi
		fi
	fi
	rm -f "$SCRATCH/$name.img" "$SCRATCH/plain.img"
done
unchanged "${names[@]}"
finish
