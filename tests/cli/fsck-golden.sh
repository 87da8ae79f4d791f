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
# Cheap in processes (each costs ~15 ms here): the copies made by two cp,
# the -y and plain -y images compared by one python3 (differing, lib.sh:
# only what is not a hole is read), the repaired images probed by one
# fatscope probe -J (one volume each, found by its path) and one jq,
# outputs read into the shell from files (no $(...) a run).
. "$(dirname "$0")/lib.sh"

# run VAR ARGS...: fatscope ARGS... in the current directory, VAR its
# output and "exit status: N" as $(fatscope ARGS... 2>&1; echo "exit
# status: $?") gives them, without the fork.
run() {
	local var=$1
	shift
	"$FATSCOPE" "$@" > "$SCRATCH/out.txt" 2>&1
	local rc=$?
	slurp_raw "$var" "$SCRATCH/out.txt"
	printf -v "$var" '%sexit status: %s' "${!var}" "$rc"
}

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in the runs compared byte for byte
cd "$WORK/img" || hard_error "no $WORK/img"
names=()
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) names+=("$name") ;; esac
done
# Two copies of each fixture: y/ for -y --recheck then -y again, plain/ for
# plain -y.  (finish removes them.)
mkdir "$SCRATCH/y" "$SCRATCH/plain" || hard_error "cannot make directories in $SCRATCH"
for dir in y plain; do
	cp "${names[@]/%/.img}" "$SCRATCH/$dir/" || hard_error "cannot copy the fixtures to $SCRATCH/$dir"
done
probed=()
for name in "${names[@]}"; do
	cd "$WORK/img" || hard_error "no $WORK/img"
	want="$EXPECTED/fsck/$name.txt"
	run run1 fsck -n "$name.img"
	run run2 fsck -n "$name.img"
	golden "$name" "$want" "$run1"
	if [ "$run1" = "$run2" ]; then ok; else bad "$name: second run differs from the first"; fi
	cd "$SCRATCH/y" || hard_error "no $SCRATCH/y"
	run runy fsck -y --recheck "$name.img"
	golden "$name (-y)" "$EXPECTED/fsck-repair/$name.txt" "$runy"
	# Without --recheck: the same writes (compared after the loop), and the plan's own account gives the recheck's exit status.
	"$FATSCOPE" fsck -y "../plain/$name.img" > ../plain.txt 2>&1; plain=$?
	if [[ $runy == *"exit status: $plain" ]]; then ok; else bad "$name: -y exits $plain, -y --recheck: ${runy##*: }"; fi
	"$FATSCOPE" fsck -y "$name.img" > ../again.txt 2>&1; again=$?
	if [ $((again & 1)) = 0 ] && [ "$again" -lt 8 ]; then ok; else bad "$name: a second -y exits $again: $(tail -1 ../again.txt)"; fi
	if [[ $runy =~ "exit status: "[01]$ ]]; then
		"$FATSCOPE" fsck -n "$name.img" > /dev/null 2>&1; rc=$?
		if [ "$rc" = 0 ]; then ok; else bad "$name: the repair said no error is left, fsck -n exits $rc"; fi
		# exfatprogs' checker agrees (CI installs it).
		if command -v fsck.exfat > /dev/null; then
			fsck.exfat -n "$name.img" > ../fx.txt 2>&1 < /dev/null; rc=$?
			if [ "$rc" = 0 ]; then ok; else bad "$name: after the repair fsck.exfat -n exits $rc: $(tail -1 ../fx.txt)"; fi
		fi
		probed+=("$name")
	fi
done
cd "$SCRATCH/y" || hard_error "no $SCRATCH/y"

# -y and -y --recheck (then a second -y, which wrote nothing) left the same bytes: one differing for all.
same_images . ../plain "-y and -y --recheck wrote different bytes" "${names[@]}"

# The kernel's view: Linux 5.8 and later (the linux-exfat model) mounts
# what each repair that left no error left: one probe for all the images,
# each volume found by its path.
if command -v jq > /dev/null && [ "${#probed[@]}" -gt 0 ]; then
	"$FATSCOPE" probe -J "${probed[@]/%/.img}" 2> /dev/null |
		jq -r '.volumes[] | .path + "\t" + ([.drivers[] | select(.id == "linux-exfat") | .action] | join(","))' > ../mounts.txt
	declare -A mounts=()
	while IFS=$'\t' read -r path action; do	# (an image's first volume, as probe on it alone gives .volumes[0])
		[ -n "${mounts[$path]+set}" ] || mounts[$path]=$action
	done < ../mounts.txt
	for name in "${probed[@]}"; do
		if [ "${mounts[$name.img]:-}" = mounts ]; then ok; else bad "$name: after the repair the linux-exfat model says '${mounts[$name.img]:-}'"; fi
	done
fi
cd "$WORK/img" || hard_error "no $WORK/img"
unchanged "${names[@]}"
finish
