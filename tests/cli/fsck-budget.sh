#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-budget.sh - fatscope fsck --budget SECONDS and FATSCOPE_FSCK_BUDGET:
# an expired budget stops the check after pass 1, says in one line what was
# not checked and exits 4 (never 0), and with -y writes nothing; a generous
# budget gives the normal result; on a slow device (every read delayed) the
# check stops at the budget, before the full check would end; a bad value
# is a usage error.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"

line="budget of 0 s ran out: passes 2-4 of 4 not checked; not known to be clean"

for img in pop-many pop-fat16; do
	full=$("$FATSCOPE" fsck -n "$img.img"); rc_full=$?
	check "$img: clean without a budget" 0 "$rc_full"
	out=$("$FATSCOPE" fsck -n --budget 0 "$img.img"); rc=$?
	check "$img: --budget 0 exit" 4 "$rc"
	check "$img: --budget 0 says what was not checked" "$img.img: $line" "$(tail -n1 <<< "$out")"
	check "$img: --budget 0 checked no directory" \
		"$img.img: 0 files, 0 directories," "$(head -n1 <<< "$out" | cut -d' ' -f1-5)"
	out=$(FATSCOPE_FSCK_BUDGET=0 "$FATSCOPE" fsck -n "$img.img"); rc=$?
	check "$img: FATSCOPE_FSCK_BUDGET=0" "4 $img.img: $line" "$rc $(tail -n1 <<< "$out")"
	out=$("$FATSCOPE" fsck -n --budget 600 "$img.img"); rc=$?
	check "$img: a generous budget changes nothing" "$rc_full $full" "$rc $out"
	out=$(FATSCOPE_FSCK_BUDGET=0 "$FATSCOPE" fsck -n --budget 600 "$img.img"); rc=$?
	check "$img: --budget over the environment" "$rc_full $full" "$rc $out"
done

# JSON: the summary says where the check stopped.
out=$("$FATSCOPE" fsck -n -J --budget 0 pop-many.img); rc=$?
check "-J --budget 0 exit" 4 "$rc"
grep -qx '    "not_checked_from_pass": 2,' <<< "$out" && ok || bad "-J lacks not_checked_from_pass 2: $out"
grep -qx '  "exit_code": 4' <<< "$out" && ok || bad "-J lacks exit_code 4"

# -y and -p on damaged volumes with the budget gone: nothing written, exit 4;
# with time enough the same -y repairs (so the budget is what held it back).
for img in exfat-dirty fbad-fat16-lost; do
	cp "$img.img" "$SCRATCH/$img.img"
	before=$(sha256sum < "$SCRATCH/$img.img")
	for mode in -y -p; do
		out=$("$FATSCOPE" fsck "$mode" --budget 0 "$SCRATCH/$img.img" < /dev/null); rc=$?
		check "$img $mode --budget 0 exit" 4 "$rc"
		check "$img $mode --budget 0 line" "$SCRATCH/$img.img: $line" "$(tail -n1 <<< "$out")"
		check "$img $mode --budget 0 wrote nothing" "$before" "$(sha256sum < "$SCRATCH/$img.img")"
	done
	"$FATSCOPE" fsck -y --budget 600 "$SCRATCH/$img.img" > /dev/null < /dev/null; rc=$?
	[ $((rc & 1)) -eq 1 ] && ok || bad "$img: -y with a generous budget exit $rc, want 1 or 5"
	[ "$before" != "$(sha256sum < "$SCRATCH/$img.img")" ] && ok || bad "$img: -y --budget 600 wrote nothing"
done

# A slow device (FATSCOPE_TEST_READ_DELAY_US: every read waits): the check
# stops at the first directory boundary past the budget, says so, exits 4,
# and ends before the whole check of the same device does (timed in the
# same run: no wall time is held to a fixed limit, which a busy machine
# would break); without the budget the same device gives the whole, clean
# check, and takes longer than twice the budget (else the case shows
# nothing: the delays alone make it so, a busy machine only adds to it).
# The four checks (each device with and without the budget) mostly wait
# for their delayed reads, so they run at once: the test waits for the
# longest, not for the sum (a make -j job that sleeps holds a core back).
timed() {	# timed NAME DELAY CMD...: in the background, NAME.out, NAME.rc and NAME.ms in $SCRATCH
	local name=$1 delay=$2 t0 t1
	shift 2
	(
		t0=${EPOCHREALTIME/./}
		FATSCOPE_TEST_READ_DELAY_US=$delay "$@" > "$SCRATCH/$name.out" 2>&1
		echo $? > "$SCRATCH/$name.rc"
		t1=${EPOCHREALTIME/./}
		echo $(( (t1 - t0) / 1000 )) > "$SCRATCH/$name.ms"
	) &
}
slow_line="budget of 0.4 s ran out: passes 3-4 of 4 not checked (the first of them in part, up to a directory); not known to be clean"
cp pop-many.img "$SCRATCH/slow-exfat.img"
if command -v mkfs.fat > /dev/null && command -v mmd > /dev/null; then
	rm -f "$SCRATCH/slow-fat.img"
	mkfs.fat -C -F 16 "$SCRATCH/slow-fat.img" 65536 > /dev/null
	# shellcheck disable=SC2046
	MTOOLS_SKIP_CHECK=1 mmd -i "$SCRATCH/slow-fat.img" $(for i in $(seq 1 120); do echo "::/d$i"; done)
else
	echo "mkfs.fat or mtools not installed: the slow FAT case is skipped"
fi
slow=()
for spec in slow-exfat:20000 slow-fat:10000; do
	name=${spec%%:*} img=$SCRATCH/${spec%%:*}.img delay=${spec#*:}
	[ -f "$img" ] || continue
	slow+=("$spec")
	timed "$name.full" "$delay" "$FATSCOPE" fsck -n "$img"
	timed "$name.budget" "$delay" "$FATSCOPE" fsck -n --budget 0.4 "$img"
done
wait
for spec in "${slow[@]}"; do
	name=${spec%%:*} img=$SCRATCH/${spec%%:*}.img delay=${spec#*:}
	read -r rc < "$SCRATCH/$name.full.rc"
	read -r full_ms < "$SCRATCH/$name.full.ms"
	check "$name: the slow device checks clean without a budget" 0 "$rc"
	[ "$full_ms" -ge 800 ] && ok || bad "$name: the slow device took only $full_ms ms (no slower than the budget: the test shows nothing)"
	read -r rc < "$SCRATCH/$name.budget.rc"
	read -r ms < "$SCRATCH/$name.budget.ms"
	out=$(< "$SCRATCH/$name.budget.out")
	check "$name: --budget 0.4 on the slow device" "4 $img: $slow_line" "$rc $(tail -n1 <<< "$out")"
	[ "$ms" -lt "$full_ms" ] && ok || bad "$name: --budget 0.4 took $ms ms on the slow device, no less than the full check ($full_ms ms)"
	echo "$name: ${delay} us a read: full check $full_ms ms, --budget 0.4: $ms ms"
done

# Usage errors.
for v in x -1 1e3 ''; do
	out=$("$FATSCOPE" fsck -n --budget "$v" pop-many.img 2>&1); rc=$?
	check "--budget '$v'" "16 fatscope fsck: invalid --budget '$v' (seconds, 0 or more)" "$rc $(head -n1 <<< "$out")"
done
out=$(FATSCOPE_FSCK_BUDGET=soon "$FATSCOPE" fsck -n pop-many.img 2>&1); rc=$?
check "FATSCOPE_FSCK_BUDGET=soon" "16 fatscope fsck: invalid FATSCOPE_FSCK_BUDGET 'soon' (seconds, 0 or more)" \
	"$rc $(head -n1 <<< "$out")"
finish
