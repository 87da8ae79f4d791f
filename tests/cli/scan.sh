#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scan.sh - fatscope scan on a sparse 512 MiB disk image made here: four
# partitions at odd sectors (exFAT, FAT32 and FAT16 with files from
# mtools, FAT12) declared by sfdisk, and a fifth exFAT volume the table
# does not declare:
#  1. with the table: the five volumes, exactly, each at its offset with
#     its type and label, the four partitions named; a table made wrong
#     (partition 2 moved, partition 3 shortened) shows the mismatch;
#  2. the table wiped: the same five and nothing else; each --offset
#     printed opens the volume (probe, ls);
#  3. main boot sectors destroyed (exFAT sector 0, a whole exFAT main boot
#     region, FAT32 sector 0): still found, at the right offset, "backup";
#  4. a FAT16 volume whose root directory is garbage is found with medium
#     confidence, and a FAT12 volume lying inside it is found as well;
#  5. -J carries the same; the image is never written; most of it (the
#     holes) is never read; an exFAT label with ESC never reaches stdout
#     raw; a blank image is exit 2, "0 volumes found"; a short one is one
#     line and exit 2; usage mistakes exit 16;
#  6. an exFAT partition cut short (its boot sector claims more) with a
#     FAT32 partition made after it, inside that extent: found with the
#     table and without it; -r -o USE prints "--offset N" as it is.
# "Never written": the image's ctime, size, inode and blocks as before the
# scans (any write changes the ctime), not a hash of its 512 MiB (seconds
# of zeros from the holes).  The volumes are put in the disk 64 KiB a
# write (dd's seek counted in bytes), not 512 bytes.
. "$(dirname "$0")/lib.sh"

for t in mkfs.exfat mkfs.fat sfdisk mcopy mmd perl; do
	command -v "$t" > /dev/null || skip "$t not installed (exfatprogs, dosfstools, fdisk, mtools, perl)"
done
export MTOOLS_SKIP_CHECK=1
cd "$SCRATCH" || hard_error "no $SCRATCH"


# The volumes: start sector, size in sectors, type, label.  Odd starts, gaps between.
S1=2049 N1=131072 S2=133124 N2=163840 S3=296969 N3=40960 S4=337936 N4=4096 S5=600001 N5=32768
mkvol() {	# mkvol FILE SECTORS TYPE LABEL
	truncate -s $(($2 * 512)) "$1" || hard_error "truncate $1"
	case $3 in
	exfat) mkfs.exfat -L "$4" "$1" > /dev/null ;;
	fat32) mkfs.fat -F 32 -n "$4" "$1" > /dev/null ;;
	fat16) mkfs.fat -F 16 -n "$4" "$1" > /dev/null ;;
	fat12) mkfs.fat -F 12 -n "$4" "$1" > /dev/null ;;
	esac || hard_error "mkfs $3 $1"
}
mkvol v1 $N1 exfat EXA
mkvol v2 $N2 fat32 F32
mkvol v3 $N3 fat16 F16
mkvol v4 $N4 fat12 F12
mkvol v5 $N5 exfat EXB
mkdir -p tree/sub && echo hello > tree/hello.txt && seq 1 20000 > tree/sub/numbers-with-a-long-name.txt
for v in v2 v3; do
	mcopy -s -i $v tree/hello.txt tree/sub ::/ || hard_error "mcopy into $v"
done
truncate -s 512M disk.img
# put VOLUME IMAGE SECTOR: VOLUME's bytes at SECTOR of IMAGE (holes kept)
put() { dd if="$1" of="$2" bs=64K seek=$(($3 * 512)) oflag=seek_bytes conv=notrunc,sparse status=none; }
put v1 disk.img $S1 && put v2 disk.img $S2 && put v3 disk.img $S3 && put v4 disk.img $S4 && put v5 disk.img $S5 ||
	hard_error "dd into disk.img"
sfdisk -q --no-reread --no-tell-kernel disk.img > /dev/null 2>&1 <<EOF || hard_error "sfdisk"
label: dos
start=$S1, size=$N1, type=7
start=$S2, size=$N2, type=c
start=$S3, size=$N3, type=6
start=$S4, size=$N4, type=1
EOF

# OFFSET TYPE LABEL FOUND CONFIDENCE PARTITION, a line each, as -r prints them.
rows() { "$FATSCOPE" scan -r -n -o OFFSET,TYPE,LABEL,FOUND,CONFIDENCE,PARTITION "$@"; }
row() { # row SECTOR TYPE LABEL [FOUND [PARTITION]]
	echo "$(($1 * 512)) $2 $3 ${4:-main} high ${5:--}"
}

want=$(row $S1 exfat EXA main 1; row $S2 fat32 F32 main 2; row $S3 fat16 F16 main 3
	row $S4 fat12 F12 main 4; row $S5 exfat EXB)
got=$(rows disk.img); rc=$?
check "with the table (exit $rc)" "$want" "$got"
check "exit status, volumes found" 0 "$rc"
out=$("$FATSCOPE" scan disk.img)
mapfile -t lines <<< "$out"
# has_line REGEX: a line of $lines matches it (as grep -q on them)
has_line() {
	local l
	for l in "${lines[@]}"; do [[ $l =~ $1 ]] && return 0; done
	return 1
}
for i in 1 2 3 4; do
	s=S$i n=N$i
	s=${!s} n=${!n}
	if has_line "^  $i: offset $((s * 512)), size $((n * 512)), type .*: [a-z0-9]*\$"; then ok
	else bad "partition $i not shown as found: $out"; fi
done
has_line "^5 volumes found; 536870912 bytes scanned" && ok || bad "summary line: $out"

# A wrong table: partition 2 starts 4 sectors late, partition 3 is a sector short.
cp --sparse=always disk.img wrong.img
sfdisk -q --no-reread --no-tell-kernel wrong.img > /dev/null 2>&1 <<EOF || hard_error "sfdisk wrong"
label: dos
start=$S1, size=$N1, type=7
start=$((S2 + 4)), size=$((N2 - 4)), type=c
start=$S3, size=$((N3 - 1)), type=6
start=$S4, size=$N4, type=1
EOF
out=$("$FATSCOPE" scan wrong.img)
mapfile -t lines <<< "$out"
has_line "^  2: offset $(((S2 + 4) * 512)), size $(((N2 - 4) * 512)), type 0xc: no volume found there\$" &&
	ok || bad "moved partition 2: $out"
has_line "^  3: offset $((S3 * 512)), size $(((N3 - 1) * 512)), type 0x6: fat16, of another size\$" &&
	ok || bad "short partition 3: $out"
want=$(row $S1 exfat EXA main 1; row $S2 fat32 F32; row $S3 fat16 F16 main '3\x20(size\x20differs)'
	row $S4 fat12 F12 main 4; row $S5 exfat EXB)
check "with a wrong table" "$want" "$(rows wrong.img)"

# 2. The table wiped: the five, nothing else; the --offset printed opens each.
dd if=/dev/zero of=disk.img bs=512 count=1 conv=notrunc status=none
stamp() { stat -c '%z %s %i %b' disk.img; }
sum=$(stamp)
want=$(row $S1 exfat EXA; row $S2 fat32 F32; row $S3 fat16 F16; row $S4 fat12 F12; row $S5 exfat EXB)
check "table wiped" "$want" "$(rows disk.img)"
mapfile -t lines < <("$FATSCOPE" scan disk.img)
has_line "^partition table: none\$" && ok || bad "a partition table shown after the wipe"
while read -r use; do
	"$FATSCOPE" probe -s -n $use disk.img > probe.txt
	t=
	while read -r _ w _; do t+=${t:+$'\n'}$w; done < probe.txt	# (awk '{ print $2 }')
	case $use in
	"--offset $((S1 * 512))"|"--offset $((S5 * 512))") check "probe $use" exfat "$t" ;;
	"--offset $((S2 * 512))") check "probe $use" fat32 "$t"
		"$FATSCOPE" ls $use disk.img / > ls.txt
		mapfile -t w < ls.txt
		check "ls $use" "hello.txt sub" "${w[*]}" ;;
	"--offset $((S3 * 512))") check "probe $use" fat16 "$t" ;;
	"--offset $((S4 * 512))") check "probe $use" fat12 "$t" ;;
	*) bad "an --offset not made here: $use" ;;
	esac
done < <("$FATSCOPE" scan -r -n -o USE disk.img)	# "--offset N" as it is, to paste

# 5. -J: the same volumes; the holes not read; nothing written.
"$FATSCOPE" scan -J disk.img > scan.json
# the values of the lines '      "offset|type|found": VALUE,' (quotes and comma dropped), three a
# line (as paste -d' ' - - -); those of '    "read": N,'
vals=() read_bytes=
while IFS= read -r l; do
	if [[ $l =~ ^\ {6}\"(offset|type|found)\":\ \"?([^\",]*)\"?,?$ ]]; then
		vals+=("${BASH_REMATCH[2]}")
	elif [[ $l =~ ^\ {4}\"read\":\ ([0-9]*),$ ]]; then
		read_bytes+=${read_bytes:+$'\n'}${BASH_REMATCH[1]}
	fi
done < scan.json
got=
for ((i = 0; i < ${#vals[@]}; i += 3)); do
	got+="${got:+$'\n'}${vals[i]} ${vals[i + 1]:-} ${vals[i + 2]:-}"
done
want="$((S1 * 512)) exfat main
$((S2 * 512)) fat32 main
$((S3 * 512)) fat16 main
$((S4 * 512)) fat12 main
$((S5 * 512)) exfat main"
check "-J offsets, types, found" "$want" "$got"
if [ -n "$read_bytes" ] && [ "$read_bytes" -lt $((64 << 20)) ]; then ok
else bad "-J stats: '$read_bytes' bytes read of a 512 MiB image that is mostly holes"; fi
check "image unchanged by scans (ctime, size, inode, blocks)" "$sum" "$(stamp)"

# 3. Main boot sectors destroyed: exFAT sector 0, the whole main region of the other exFAT, FAT32 sector 0.
dd if=/dev/zero of=disk.img bs=512 seek=$S1 count=1 conv=notrunc status=none
dd if=/dev/zero of=disk.img bs=512 seek=$S5 count=12 conv=notrunc status=none
dd if=/dev/zero of=disk.img bs=512 seek=$S2 count=1 conv=notrunc status=none
want=$(row $S1 exfat EXA backup; row $S2 fat32 F32 backup; row $S3 fat16 F16; row $S4 fat12 F12
	row $S5 exfat EXB backup)
check "main boot sectors destroyed" "$want" "$(rows disk.img)"

# 4. FAT16's first root sector garbage: medium (its label entry is gone with it); a FAT12 volume
# inside its data area is found too.
"$FATSCOPE" dump --offset $((S3 * 512)) disk.img > bpb.txt
declare -A field=()	# (awk's $4 where $3 names the field, the first)
while read -r _ _ f v _; do [ -z "$f" ] || [ -n "${field[$f]+set}" ] || field[$f]=$v; done < bpb.txt
root=$((S3 + ${field[BPB_RsvdSecCnt]:-0} + ${field[BPB_NumFATs]:-0} * ${field[BPB_FATSz16]:-0}))
[ "$root" -gt "$S3" ] || hard_error "no FAT16 geometry from dump"
printf -v ones '%512s' ''
printf '%s' "${ones// /$'\x01'}" | dd of=disk.img bs=512 seek=$root conv=notrunc status=none
dd if=v4 of=disk.img bs=64K seek=$(((S3 + 20001) * 512)) oflag=seek_bytes conv=notrunc status=none
rows disk.img > rows.txt
mapfile -t lines < rows.txt
got=$(printf '%s\n' "${lines[@]:2:2}")
check "a volume inside one found with medium confidence" \
	"$((S3 * 512)) fat16  main medium -
$(((S3 + 20001) * 512)) fat12 F12 main high -" "$got"

# 6. An exFAT volume made for 64 MiB, its partition cut to 32 MiB, a FAT32 and a FAT16
# partition after it (so the FAT32 lies inside the extent the exFAT boot sector claims):
# the three found, with the table and with the table wiped (the exFAT volume's extent is
# passed over only as far as it uses it).
truncate -s 64M cut && mkfs.exfat -L CUT cut > /dev/null || hard_error "mkfs.exfat cut"
T1=2048 T2=67584 T3=$((67584 + N2))
truncate -s 256M cut.img
dd if=cut of=cut.img bs=64K count=$((65536 * 512)) iflag=count_bytes seek=$((T1 * 512)) oflag=seek_bytes \
	conv=notrunc,sparse status=none && put v2 cut.img $T2 && put v3 cut.img $T3 || hard_error "dd cut.img"
sfdisk -q --no-reread --no-tell-kernel cut.img > /dev/null 2>&1 <<EOF || hard_error "sfdisk cut.img"
label: dos
start=$T1, size=65536, type=7
start=$T2, size=$N2, type=c
start=$T3, size=$N3, type=6
EOF
check "a partition cut short, with the table" "$(row $T1 exfat CUT main '1\x20(size\x20differs)'
	row $T2 fat32 F32 main 2; row $T3 fat16 F16 main 3)" "$(rows cut.img)"
dd if=/dev/zero of=cut.img bs=512 count=1 conv=notrunc status=none
check "a partition cut short, the table wiped" "$(row $T1 exfat CUT; row $T2 fat32 F32; row $T3 fat16 F16)" \
	"$(rows cut.img)"
"$FATSCOPE" scan -r -n -o SIZE cut.img > size.txt
size=
read -r size < size.txt
check "the exFAT volume's size as its boot sector says" '67108864' "$size"
rm -f cut cut.img

# An ESC in an exFAT label: escaped in text (as probe -s shows it in its table: \x1b, whose
# backslash libsmartcols escapes again), \u001b in JSON.
perl -0777 -pi -e 's/\x83\x03E\x00X\x00B\x00/\x83\x03\x1b\x00X\x00B\x00/' v5
dd if=v5 of=esc.img bs=512 seek=7 conv=notrunc,sparse status=none
out=$("$FATSCOPE" scan esc.img 2>&1)
if [[ $out == *$'\x1b'* ]]; then bad "a raw ESC on the terminal: $out"
elif [[ $out == *x1bXB* ]]; then ok; else bad "label not shown escaped: $out"; fi
out=$("$FATSCOPE" scan -J esc.img)
[[ $out == *'"label": "\u001bXB"'* ]] && ok || bad "-J label not \\u001b"

# Nothing found, too small, mistakes.
truncate -s 8M blank.img
out=$("$FATSCOPE" scan blank.img); rc=$?
check "blank image exit" 2 "$rc"
mapfile -t lines <<< "$out"
has_line "^0 volumes found; 8388608 bytes scanned: 0 read, 8388608 in holes, 0 inside volumes found\$" &&
	ok || bad "blank image: $out"
head -c 100 /dev/zero > short.img
out=$("$FATSCOPE" scan short.img 2>&1); rc=$?
check "short image" "2 fatscope: short.img: too small to hold a boot sector (100 bytes)" "$rc $out"
"$FATSCOPE" scan -o NOPE blank.img > /dev/null 2>&1; check "unknown column exit" 16 "$?"
"$FATSCOPE" scan blank.img disk.img > /dev/null 2>&1; check "two images exit" 16 "$?"
"$FATSCOPE" scan -J -r blank.img > /dev/null 2>&1; check "-J with -r exit" 16 "$?"
finish
