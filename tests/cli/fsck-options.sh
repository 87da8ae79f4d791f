#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-options.sh - fatscope fsck's fsck(8) surface: modes, -f, -C FD
# progress lines, --explain, -J, the refusal of FAT and non-volumes, and
# exit codes.  Outputs are matched in the shell (no grep/head/tail a
# check), and the threads sweep over every exFAT fixture runs no process
# but fatscope's a fixture.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"


"$FATSCOPE" fsck -n exfat.img > /dev/null; check "clean -n" 0 $?
"$FATSCOPE" fsck exfat-bad-checksum.img > /dev/null; check "damaged -n" 4 $?
# Preen checks every volume, marked dirty or not; -f changes nothing.
cp exfat.img "$SCRATCH/clean.img"
out=$(cd "$SCRATCH" && "$FATSCOPE" fsck -p clean.img); rc=$?
check "preen clean, no -f" "0 clean.img: 0 files, 0 directories, 4/512 clusters used (0.0% non-contiguous)" "$rc $out"
out=$(cd "$SCRATCH" && "$FATSCOPE" fsck -p -f clean.img); rc=$?
check "preen -f" "0 clean.img: 0 files, 0 directories, 4/512 clusters used (0.0% non-contiguous)" "$rc $out"
cmp -s exfat.img "$SCRATCH/clean.img" && ok || bad "preen wrote to a clean volume"
# Preen on a copy of a dirty volume: VolumeDirty alone is cleared after the full check (exit 1).
cp exfat-dirty.img "$SCRATCH/exfat-dirty.img"
out=$(cd "$SCRATCH" && "$FATSCOPE" fsck -a exfat-dirty.img); rc=$?
check "preen dirty exit (cleared)" 1 "$rc"
check "preen dirty prefix" "exfat-dirty.img: fixed warning EXFAT_BOOT_VOLUME_DIRTY: VolumeFlags has VolumeDirty set [byte 106 (VolumeFlags)]" \
	"${out%%$'\n'*}"
line2=
[[ $out == *$'\n'* ]] && { line2=${out#*$'\n'}; line2=${line2%%$'\n'*}; }
check "preen says what it wrote" "exfat-dirty.img: 1 problem fixed, 1 change written and read back" "$line2"
out=$("$FATSCOPE" fsck -n "$SCRATCH/exfat-dirty.img"); rc=$?
check "dirty flag gone" "0 $SCRATCH/exfat-dirty.img: 0 files, 0 directories, 4/512 clusters used (0.0% non-contiguous)" "$rc $out"
# Sector 0 zeroed over a sound backup region: probe names it, -n exits 4 and
# writes nothing, -p leaves it, -y restores the main region, and the volume
# is the original again (PercentInUse aside: the backup's was stale).
cp pop-small.img "$SCRATCH/lost.img"
dd if=/dev/zero of="$SCRATCH/lost.img" bs=512 count=1 conv=notrunc status=none
cp "$SCRATCH/lost.img" "$SCRATCH/lost0.img"
"$FATSCOPE" probe "$SCRATCH/lost.img" > "$SCRATCH/probe.txt"
IFS= read -r -d '' probed < "$SCRATCH/probe.txt"
[[ $probed == *"error   EXFAT_MAIN_BOOT_LOST: sector 0 holds no exFAT boot sector"* ]] &&
	ok || bad "probe does not name a lost main region"
"$FATSCOPE" fsck -n "$SCRATCH/lost.img" > /dev/null; check "lost main region -n" 4 $?
"$FATSCOPE" fsck -p "$SCRATCH/lost.img" > /dev/null; check "lost main region -p (not preen's)" 4 $?
cmp -s "$SCRATCH/lost.img" "$SCRATCH/lost0.img" && ok || bad "-n or -p changed a volume with a lost main region"
out=$("$FATSCOPE" fsck -y "$SCRATCH/lost.img"); rc=$?
check "lost main region -y" 1 "$rc"
[[ $'\n'$out == *$'\n'"fixed error   EXFAT_MAIN_BOOT_LOST"* ]] && ok || bad "-y does not say it restored the main region"
"$FATSCOPE" fsck -n "$SCRATCH/lost.img" > /dev/null; check "restored main region -n" 0 $?
diffs=$(cmp -l "$SCRATCH/lost.img" pop-small.img | awk '$1 != 113' | wc -l)
check "the restored volume is the original but for PercentInUse" 0 "$diffs"
# --lost-to DIR: each lost chain copied out as DIR/FILEnnnn.CHK (the bytes of
# its clusters), then freed.  DIR is made (mode 0700) when missing; a second
# run into it takes the next free numbers and overwrites nothing; a DIR
# that cannot be made stops the repair (one line, exit 8) with nothing
# written; with -n it is a usage error.
cp bad-lost-clusters.img "$SCRATCH/lt.img"
cp bad-lost-clusters.img "$SCRATCH/lt0.img"
rm -rf "$SCRATCH/lost-to"
out=$("$FATSCOPE" fsck -y --lost-to "$SCRATCH/lost-to" "$SCRATCH/lt.img"); rc=$?
check "--lost-to exit" 1 "$rc"
check "--lost-to made the directory, mode 0700" 700 "$(stat -c %a "$SCRATCH/lost-to")"
"$FATSCOPE" fsck -n "$SCRATCH/lt.img" > /dev/null; check "--lost-to leaves a clean volume" 0 $?
# listed: the names in lost-to, each followed by a space (ls's order, in the shell)
listed() {
	local f
	listed=
	for f in "$SCRATCH"/lost-to/*; do [ -e "$f" ] && listed+="${f##*/} "; done
}
listed
# (the 8 lost clusters lie in a row with free FAT entries: one file, as they were)
check "--lost-to files" "FILE0000.CHK " "$listed"
# lost clusters 1498-1505 of 4096 bytes; the heap starts at sector 4096
want=$(dd if=bad-lost-clusters.img bs=4096 skip=$(( 4096 / 8 + 1498 - 2 )) count=8 status=none | sha256sum)
got=$(sha256sum < "$SCRATCH"/lost-to/FILE0000.CHK)
check "--lost-to bytes are the lost clusters'" "$want" "$got"
out=$("$FATSCOPE" fsck -y --lost-to "$SCRATCH/lost-to" "$SCRATCH/lt0.img" 2>&1); rc=$?
check "--lost-to into a used directory: exit" 1 "$rc"
listed
check "--lost-to into a used directory: the next numbers" "FILE0000.CHK FILE0001.CHK " "$listed"
check "--lost-to overwrote nothing" "$want $want" \
	"$(sha256sum < "$SCRATCH"/lost-to/FILE0000.CHK) $(sha256sum < "$SCRATCH"/lost-to/FILE0001.CHK)"
cp bad-lost-clusters.img "$SCRATCH/lt0.img"
out=$("$FATSCOPE" fsck -y --lost-to "$SCRATCH/no-such-dir/sub" "$SCRATCH/lt0.img" 2>&1); rc=$?
check "--lost-to whose parent is missing" "8 fatscope: $SCRATCH/lt0.img: lost clusters could not be saved to $SCRATCH/no-such-dir/sub (cannot make the directory: No such file or directory): nothing written" "$rc $out"
cmp -s "$SCRATCH/lt0.img" bad-lost-clusters.img && ok || bad "--lost-to wrote to the volume after failing to save"
out=$("$FATSCOPE" fsck -n --lost-to "$SCRATCH/lost-to" "$SCRATCH/lt0.img" 2>&1); rc=$?
check "--lost-to with -n" "16 fatscope fsck: --lost-to needs -y (or a terminal to ask on): -n writes nothing anywhere" \
	"$rc ${out%%$'\n'*}"
# -n on a dirty volume: a warning, exit 0, and it says so.
out=$("$FATSCOPE" fsck -n exfat-dirty.img); rc=$?
check "dirty -n exit" 0 "$rc"
check "dirty -n says it is a warning" "exfat-dirty.img: no errors; 1 warning (advisory: the volume is usable as it is)" \
	"${out##*$'\n'}"
# --dry-run prints the plan and writes nothing; --undo needs a repair mode.
cp exfat-bad-checksum.img "$SCRATCH/cs.img"
out=$("$FATSCOPE" fsck -y --dry-run "$SCRATCH/cs.img"); rc=$?
check "dry-run exit" 4 "$rc"
planned=
while IFS= read -r line; do
	[[ $line == *'planned, nothing written'* ]] && planned+=${planned:+$'\n'}$line
done <<< "$out"
check "dry-run plan" "$SCRATCH/cs.img: 1 change planned, nothing written (--dry-run):" "$planned"
cmp -s exfat-bad-checksum.img "$SCRATCH/cs.img" && ok || bad "--dry-run changed the image"
if command -v jq > /dev/null; then
	out=$("$FATSCOPE" fsck -y -J --dry-run "$SCRATCH/cs.img" |
	      jq -c '[.exit_code, .repair.written, (.repair.plan | length), .repair.fixed, .repair.planned, .repair.plan[0].why]')
	# (the main region fails its checksum where it differs from the verified backup: restored from it; nothing fixed yet)
	check "-J --dry-run: the plan, nothing fixed" \
		'[4,false,1,[],["EXFAT_BOOT_CHECKSUM","EXFAT_BACKUP_DIFFERS"],"restore the main boot region from the verified backup (sectors 12-23)"]' "$out"
fi
"$FATSCOPE" fsck -n --undo "$SCRATCH/u" exfat.img > /dev/null 2>&1; check "--undo with -n is a usage error" 16 $?
"$FATSCOPE" fsck -y --lost=maybe exfat.img > /dev/null 2>&1; check "bad --lost" 16 $?
# -y with --undo, then undo: the image comes back byte for byte.
out=$("$FATSCOPE" fsck -y --undo "$SCRATCH/cs.undo" "$SCRATCH/cs.img"); rc=$?
check "repair exit" 1 "$rc"
"$FATSCOPE" fsck -n "$SCRATCH/cs.img" > /dev/null; check "repaired volume checks clean" 0 $?
"$FATSCOPE" undo "$SCRATCH/cs.undo" "$SCRATCH/cs.img" > /dev/null; check "undo exit" 0 $?
cmp -s exfat-bad-checksum.img "$SCRATCH/cs.img" && ok || bad "undo did not restore the image"

# A name holding ESC (0x1B): never raw on stdout, in findings or in the plan.
cp bad-set-checksum.img "$SCRATCH/esc.img"
at=$(LC_ALL=C grep -obUaP 'R\x00E\x00A\x00D\x00M\x00E\x00\.\x00t\x00x\x00t\x00' "$SCRATCH/esc.img" | head -1 | cut -d: -f1)
if [ -n "$at" ]; then
	printf '\033' | dd of="$SCRATCH/esc.img" bs=1 seek="$at" conv=notrunc status=none
	out=$("$FATSCOPE" fsck -y --dry-run "$SCRATCH/esc.img"); rc=$?
	check "escaped name: exit" 4 "$rc"
	if [[ $out == *$'\033'* ]]; then bad "a raw ESC reached stdout"; else ok; fi
	count=0
	while IFS= read -r line; do
		[[ $line == *'/\x1bEADME.txt'* ]] && count=$((count + 1))
	done <<< "$out"
	check "escaped name: in findings and plan" 4 "$count"
else
	bad "README.txt not found in bad-set-checksum.img"
fi

# Asked on a terminal (script(1) gives fsck one): q writes nothing and exits 32;
# n to each writes nothing and exits 4; y to each repairs (exit 1).
if command -v script > /dev/null; then
	asked() {	# asked ANSWERS: fatscope fsck on a terminal fed ANSWERS; sets rc
		printf "$1" | script -qec "'$FATSCOPE' fsck '$SCRATCH/ask.img'" /dev/null > "$SCRATCH/ask.out" 2>&1
		rc=$?
	}
	cp exfat-bad-checksum.img "$SCRATCH/ask.img"
	asked 'q\n'; check "ask: quit" 32 "$rc"
	IFS= read -r -d '' asked < "$SCRATCH/ask.out"
	[[ $asked == *'Fix? [y/n/a/q]'* ]] && ok || bad "ask: no question asked"
	[[ $asked == *'  fix: -y recomputes the checksum into sector 11'* ]] && ok || bad "ask: the question does not say what the fix does"
	cmp -s exfat-bad-checksum.img "$SCRATCH/ask.img" && ok || bad "ask: quit changed the image"
	# (one answer a question: script(1) waits 2 s over input the program leaves unread; a no to the
	# checksum asks nothing more)
	asked 'n\n'; check "ask: no to each" 4 "$rc"
	cmp -s exfat-bad-checksum.img "$SCRATCH/ask.img" && ok || bad "ask: no changed the image"
	asked 'y\ny\n'; check "ask: yes to each" 1 "$rc"
	"$FATSCOPE" fsck -n "$SCRATCH/ask.img" > /dev/null; check "ask: repaired" 0 $?
else
	echo "script(1) not installed: the questions on a terminal are not checked"
fi

# -C FD: fsck(8) progress lines "PASS DONE TOTAL DEVICE" on the descriptor, nothing extra on stdout.
out=$("$FATSCOPE" fsck -n -C 3 exfat.img 3> "$SCRATCH/progress.txt")
check "progress keeps stdout" "exfat.img: 0 files, 0 directories, 4/512 clusters used (0.0% non-contiguous)" "$out"
# (every line a progress line, passes 1 to 4 each seen: in the shell)
progress=1
declare -A passes_seen=()
while IFS= read -r line || [ -n "$line" ]; do
	[[ $line =~ ^[1-4]\ [0-9]+\ [0-9]+\ exfat\.img$ ]] || progress=
	passes_seen[${line%% *}]=1
done < "$SCRATCH/progress.txt"
if [ -n "$progress" ] && [ "${#passes_seen[@]}" = 4 ]; then
	ok
else
	bad "progress lines: $(head -3 "$SCRATCH/progress.txt" | tr '\n' '|')"
fi
out=$("$FATSCOPE" fsck -n -C 0 exfat.img 2> "$SCRATCH/stderr.txt"); rc=$?
check "-C 0 off a terminal draws nothing" \
	"0 exfat.img: 0 files, 0 directories, 4/512 clusters used (0.0% non-contiguous) stderr: " \
	"$rc $out stderr: $(< "$SCRATCH/stderr.txt")"

# Conflicting modes are a usage error; --explain takes an ID in any case.
"$FATSCOPE" fsck -n -y exfat.img > /dev/null 2>&1; check "-n -y refused" 16 $?
"$FATSCOPE" fsck -p -y exfat.img > /dev/null 2>&1; check "-p -y refused" 16 $?
"$FATSCOPE" fsck --explain exfat_lost_clusters > "$SCRATCH/explain.txt"
IFS= read -r line < "$SCRATCH/explain.txt"
check "--explain in lower case" "EXFAT_LOST_CLUSTERS" "$line"
# --explain
out=$("$FATSCOPE" fsck --explain EXFAT_LOST_CLUSTERS); rc=$?
check "--explain exit" 0 "$rc"
check "--explain head" "EXFAT_LOST_CLUSTERS" "${out%%$'\n'*}"
[[ $out == *"fsck.exfat never reports them"* ]] && ok || bad "--explain lacks the explanation"
"$FATSCOPE" fsck --explain NO_SUCH_ID > /dev/null 2>&1; check "--explain unknown" 16 $?

# JSON errors carry an error member, and nothing that looks like success.
if command -v jq > /dev/null; then
	out=$("$FATSCOPE" fsck -J ntfs.img 2> /dev/null); rc=$?
	check "fsck -J on NTFS: exit" 8 "$rc"
	check "fsck -J on NTFS: error" "not an exFAT or FAT volume false 8" \
		"$(jq -r '"\(.error) \(.checked) \(.exit_code)"' <<< "$out")"
	out=$("$FATSCOPE" fsck -J fat16.img 2> /dev/null); rc=$?
	check "fsck -J on FAT: checked" "null true 0 fat16 0" \
		"$(jq -r '"\(.error) \(.checked) \(.exit_code) \(.type)"' <<< "$out") $rc"
	out=$("$FATSCOPE" dump -J --path /missing exfat.img 2> /dev/null); rc=$?
	check "dump -J --path /missing: exit" 8 "$rc"
	check "dump -J --path /missing: error" "no such file or directory on the volume" "$(jq -r .error <<< "$out")"
fi
# JSON
out=$("$FATSCOPE" fsck -J exfat-upcase-bad.img); rc=$?
check "JSON exit" 4 "$rc"
for key in '"type": "exfat"' '"checked": true' '"id": "EXFAT_UPCASE_CHECKSUM"' '"exit_code": 4' '"clusters_total": 512'; do
	[[ $out == *"$key"* ]] && ok || bad "JSON lacks $key"
done
if command -v jq > /dev/null; then
	check "JSON parses" 4 "$(jq .exit_code <<< "$out")"
fi

# Neither exFAT nor FAT: one line, exit 8.
err=$("$FATSCOPE" fsck ntfs.img 2>&1 > /dev/null); rc=$?
check "NTFS refused" "8 fatscope: ntfs.img: not an exFAT or FAT volume (ntfs); see fatscope probe" "$rc $err"
err=$("$FATSCOPE" fsck "$SCRATCH/nope.img" 2>&1 > /dev/null); rc=$?
check "missing" "8 fatscope: $SCRATCH/nope.img: No such file or directory" "$rc $err"
"$FATSCOPE" fsck > /dev/null 2>&1; check "no device" 16 $?
"$FATSCOPE" fsck exfat.img fat16.img > /dev/null 2>&1; check "two devices" 16 $?
"$FATSCOPE" fsck -C x exfat.img > /dev/null 2>&1; check "bad -C" 16 $?
# A partition of a whole-disk image.
"$FATSCOPE" fsck -n --partition 1 mbr-disk.img > /dev/null; check "--partition 1 (exFAT)" 0 $?
"$FATSCOPE" fsck -n --partition 2 mbr-disk.img > /dev/null 2>&1; check "--partition 2 (FAT32): checked" 0 $?

# FATSCOPE_THREADS=1 (no second thread) gives the same report and exit status
# on every exFAT fixture; pop-c32m (32 MiB directory clusters) and the
# corrupted copies of pop-small are where the second thread starts or has
# findings to hand back.
# (The boot signatures of all the fixtures read by one head and one od; the
# reports written to files and read in the shell: no process but fatscope's
# a fixture.)
imgs=()
for img in $(fixture_names); do imgs+=("$img.img"); done
head -q -c 11 -- "${imgs[@]}" | od -An -v -tx1 -w11 > "$SCRATCH/sigs.txt"
sigs=()
while read -r line; do sigs+=("$line"); done < "$SCRATCH/sigs.txt"
[ "${#sigs[@]}" = "${#imgs[@]}" ] || hard_error "the first 11 bytes of ${#imgs[@]} fixtures gave ${#sigs[@]} lines"
n=0
for i in "${!imgs[@]}"; do
	img=${imgs[i]}
	# bytes 3-10 "EXFAT   " (each fixture has its 11 bytes: od's lines are whole)
	case ${sigs[i]} in ??\ ??\ ??\ "45 58 46 41 54 20 20 20") n=$((n + 1)) ;; *) continue ;; esac
	"$FATSCOPE" fsck -n -J "$img" > "$SCRATCH/a.txt" 2>&1; ra=$?
	FATSCOPE_THREADS=1 "$FATSCOPE" fsck -n -J "$img" > "$SCRATCH/b.txt" 2>&1; rb=$?
	IFS= read -r -d '' a < "$SCRATCH/a.txt"
	IFS= read -r -d '' b < "$SCRATCH/b.txt"
	# Only a whole report is worth comparing: exit 0 or 4, and the JSON says so.
	case $ra in
	0|4) [[ $'\n'$a == *$'\n'"  \"exit_code\": $ra"$'\n'* ]] && ok || bad "$img: fsck -J report lacks \"exit_code\": $ra" ;;
	*) bad "$img: fsck -n -J exit $ra" ;;
	esac
	check "$img: one thread and two agree" "$rb $b" "$ra $a"
done
[ "$n" -ge 20 ] && ok || bad "only $n exFAT fixtures compared with FATSCOPE_THREADS=1"
finish
