#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# boot-backup.sh - a volume whose sector 0 is destroyed over a sound
# backup (FAT32: fbad-fat32-boot0, pop-fat32 with sector 0 zeroed; exFAT:
# pop-small with sector 0 zeroed here) is read through the backup:
#  - probe names the type and the finding (FAT32_MAIN_BOOT_LOST,
#    EXFAT_MAIN_BOOT_LOST), exit 0, and the driver models still judge the
#    real sector 0 (linux-vfat and blkid refuse it);
#  - dump shows the backup's fields and the whole tree of the original
#    volume, and says it reads through the backup; ls lists the root; cat
#    reads a file with its original bytes;
#  - fsck -n checks the whole volume (the original's file count) and
#    exits 4 with that one finding; -p leaves the FAT32 volume as it is
#    (exit 4); no command but -y writes;
#  - fsck -y restores sector 0 from the backup (exit 1: sector 0 is then
#    sector 6, the volume checks clean and is the original's byte for
#    byte), and undo gives the destroyed sector 0 back.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"

cp "$WORK/img/fbad-fat32-boot0.img" f32.img
cp "$WORK/img/pop-small.img" ex.img
dd if=/dev/zero of=ex.img bs=512 count=1 conv=notrunc status=none
cp ex.img ex0.img
for v in "f32 pop-fat32 FAT32_MAIN_BOOT_LOST fat32" "ex pop-small EXFAT_MAIN_BOOT_LOST exfat"; do
	read -r img orig id type <<< "$v"
	j=$("$FATSCOPE" probe -J "$img.img"); rc=$?
	check "$img: probe exit" 0 "$rc"
	check "$img: probe type, sector 0, IDs" "$type blank $id" \
		"$(jq -r '.volumes[0] | [.type, .sector0_type, (.findings | map(.id) | join(","))] | join(" ")' <<< "$j")"
	check "$img: drivers on the real sector 0" "refuses refuses" \
		"$(jq -r '[.volumes[0].drivers[] | select(.id == "linux-vfat" or .id == "blkid") | .action] | join(" ")' <<< "$j")"
	"$FATSCOPE" probe "$img.img" | head -1 | grep -q "(sector 0 destroyed: blank; the backup boot" && ok ||
		bad "$img: probe's first line does not say sector 0 is destroyed"
	# dump: the tree of the original, the backup's fields, said so.
	want=$("$FATSCOPE" dump -J -l "$WORK/img/$orig.img" | jq -c '[.tree[] | [.path, .first_cluster, .size]]')
	got=$("$FATSCOPE" dump -J -l "$img.img"); rc=$?
	check "$img: dump exit" 0 "$rc"
	check "$img: dump tree" "$want" "$(jq -c '[.tree[] | [.path, .first_cluster, .size]]' <<< "$got")"
	check "$img: dump type" "$type" "$(jq -r '.type + " " + (.read_through | split(" ")[0])' <<< "$got" | cut -d' ' -f1)"
	"$FATSCOPE" dump "$img.img" | sed -n 2p | grep -q "^sector 0 is destroyed (blank): read through the backup boot" && ok ||
		bad "$img: dump does not say it reads through the backup"
	check "$img: dump boot findings" "$id" "$("$FATSCOPE" dump -J -b "$img.img" | jq -r '[.boot.findings[].id] | join(",")')"
	# ls and cat
	check "$img: ls" "$("$FATSCOPE" ls "$WORK/img/$orig.img")" "$("$FATSCOPE" ls "$img.img")"
	f=$("$FATSCOPE" dump -J -l "$WORK/img/$orig.img" | jq -r '[.tree[] | select(.kind == "file" and .size > 0)][0].path')
	check "$img: cat $f" "$("$FATSCOPE" cat "$WORK/img/$orig.img" "$f" | sha256sum)" "$("$FATSCOPE" cat "$img.img" "$f" | sha256sum)"
	# fsck -n: the whole volume, one finding
	want=$("$FATSCOPE" fsck -n "$WORK/img/$orig.img" | tail -1 | sed 's/^[^:]*: //')
	out=$("$FATSCOPE" fsck -n "$img.img"); rc=$?
	check "$img: fsck -n exit" 4 "$rc"
	check "$img: fsck -n IDs" "$id" "$(sed -n 's/^error *\([A-Z0-9_]*\):.*/\1/p' <<< "$out" | tr '\n' ' ' | sed 's/ $//')"
	check "$img: fsck -n counts" "${want%%(*}" "$(grep " files, " <<< "$out" | sed 's/^[^:]*: //; s/(.*//')"
	check "$img: fsck -J type" "$type" "$("$FATSCOPE" fsck -n -J "$img.img" | jq -r .type)"
done
cmp -s ex.img ex0.img && ok || bad "a read-only command wrote to ex.img"
unchanged_f32() { sha256sum < f32.img | cut -d' ' -f1; }
sum=$(unchanged_f32)
check "fbad-fat32-boot0 as recorded" "$(fixture_hash fbad-fat32-boot0)" "$sum"
"$FATSCOPE" fsck -p f32.img > /dev/null 2>&1
check "FAT32: fsck -p exit" 4 $?
check "FAT32: fsck -p wrote nothing" "$sum" "$(unchanged_f32)"
rm -f f32.undo
"$FATSCOPE" fsck -y --undo f32.undo f32.img > /dev/null 2>&1
check "FAT32: fsck -y exit" 1 $?
check "FAT32: sector 0 is the backup (sector 6) again" "$(dd if=f32.img bs=512 skip=6 count=1 status=none | sha256sum)" \
	"$(dd if=f32.img bs=512 count=1 status=none | sha256sum)"
"$FATSCOPE" fsck -n f32.img > /dev/null 2>&1
check "FAT32: fsck -n after -y" 0 $?
check "FAT32: restored, the volume's files as the original's" "$("$FATSCOPE" ls -R "$WORK/img/pop-fat32.img" | sha256sum)" \
	"$("$FATSCOPE" ls -R f32.img | sha256sum)"
if command -v fsck.fat > /dev/null; then
	fsck.fat -n f32.img > /dev/null 2>&1
	check "FAT32: fsck.fat -n after -y" 0 $?
else
	echo "boot-backup: fsck.fat not installed: its check after -y skipped"
fi
"$FATSCOPE" undo f32.undo f32.img > /dev/null 2>&1
check "FAT32: undo gives the destroyed sector 0 back" "$sum" "$(unchanged_f32)"
rm -f f32.undo
finish
