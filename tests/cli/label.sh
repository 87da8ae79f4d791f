#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# label.sh - fatscope label round trips on exFAT and FAT12/16/32: set the
# label, serial and (exFAT) GUID; read them back with fatscope and with the
# peers where installed (exfatlabel, fatlabel, mlabel, blkid -p); the
# volume still checks clean (fatscope fsck, fsck.exfat, fsck.fat); undo
# restores the image byte for byte; --dry-run writes nothing; bad values
# and a mounted volume are refused.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
dir="$SCRATCH"
cd "$dir" || hard_error "no $dir"
export FATSCOPE_NOW=1577934245	# 2020-01-02 03:04:05 UTC
have() { command -v "$1" > /dev/null; }
# The peers are optional: say which reading-back is not done here.
for tool in blkid exfatlabel fsck.exfat fatlabel mlabel fsck.fat; do
	have "$tool" || echo "SKIP (part): $tool not installed: no cross-check with it"
done


for img in exfat fat12 fat16 fat32 pop-small; do
	if ! has_fixture "$img"; then
		bad "$img: no fixture $img.img"
		continue
	fi
	cp "$WORK/img/$img.img" v.img
	orig=$(sha256sum < v.img)
	# --dry-run plans and writes nothing.
	"$FATSCOPE" label --dry-run -s 1111-2222 v.img NEWLABEL > plan.txt; rc=$?
	check "$img dry-run exit" 0 "$rc"
	check "$img dry-run wrote nothing" "$orig" "$(sha256sum < v.img)"
	grep -q "nothing written (--dry-run)" plan.txt && ok || bad "$img: dry-run output: $(head -1 plan.txt)"

	rm -f v.undo
	guid=()
	[ "${img#fat}" = "$img" ] && guid=(-g 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0)
	"$FATSCOPE" label --undo v.undo -s 1111-2222 "${guid[@]}" v.img NEWLABEL > /dev/null; rc=$?
	check "$img set exit" 0 "$rc"
	out=$("$FATSCOPE" label -J v.img)
	grep -qF '"label": "NEWLABEL"' <<< "$out" && ok || bad "$img: label not read back"
	grep -qF '"serial": "1111-2222"' <<< "$out" && ok || bad "$img: serial not read back"
	[ ${#guid[@]} = 0 ] || { grep -qF '"guid": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"' <<< "$out" && ok || bad "$img: GUID not read back"; }
	if have blkid; then
		check "$img blkid LABEL" "NEWLABEL" "$(blkid -p -o value -s LABEL v.img)"
		check "$img blkid UUID" "1111-2222" "$(blkid -p -o value -s UUID v.img)"
	fi
	case $img in
	exfat|pop-*)
		if have exfatlabel; then
			check "$img exfatlabel" "label: NEWLABEL" "$(exfatlabel v.img 2>/dev/null | tail -1)"
			check "$img exfatlabel -i" "volume serial : 0x11112222" "$(exfatlabel -i v.img 2>/dev/null | tail -1)"
		fi
		if have fsck.exfat; then
			fsck.exfat -n v.img > fsck.txt 2>&1; check "$img fsck.exfat" 0 $?
		fi
		"$FATSCOPE" fsck -n v.img > /dev/null; check "$img fatscope fsck" 0 $?
		;;
	*)
		have fatlabel && check "$img fatlabel" "NEWLABEL" "$(fatlabel v.img 2>/dev/null)"
		have mlabel && check "$img mlabel" " Volume label is NEWLABEL" \
			"$(MTOOLS_SKIP_CHECK=1 mlabel -s -i v.img :: 2>/dev/null | sed 's/ *$//')"
		if have fsck.fat; then
			fsck.fat -n v.img > fsck.txt 2>&1; check "$img fsck.fat" 0 $?
		fi
		;;
	esac
	"$FATSCOPE" undo v.undo v.img > /dev/null; check "$img undo exit" 0 $?
	check "$img undo restores the image" "$orig" "$(sha256sum < v.img)"
	# Removing the label.
	"$FATSCOPE" label v.img "" > /dev/null; check "$img remove exit" 0 $?
	grep -qF '"label": null' <<< "$("$FATSCOPE" label -J v.img)" && ok || bad "$img: label not removed"
done

# Values that are refused, with exit 1 and nothing written.
has_fixture exfat && cp "$WORK/img/exfat.img" v.img || hard_error "no fixture exfat.img"
orig=$(sha256sum < v.img)
"$FATSCOPE" label v.img "TWELVE CHARS" > /dev/null 2>&1; check "exFAT 12 characters" 1 $?
for c in '"' '*' '/' ':' '<' '>' '?' '\' '|' $'\x1f'; do	# EXSPEC 7.7.3, as for file names
	out=$("$FATSCOPE" label v.img "A${c}B" 2>&1); rc=$?
	check "exFAT label with '$c': exit" 1 "$rc"
	want="fatscope: v.img: '$c' is not allowed in an exFAT label"
	[ "$c" = $'\x1f' ] && want="fatscope: v.img: control characters are not allowed in a label"
	check "exFAT label with '$c': the line" "$want" "$out"
done
"$FATSCOPE" label --dry-run v.img "A-B_(1)#" > /dev/null; check "exFAT label with other ASCII punctuation" 0 $?
has_fixture fat16 && cp "$WORK/img/fat16.img" f.img || hard_error "no fixture fat16.img"
forig=$(sha256sum < f.img)
# Each refusal names its real reason, in one line, exit 1: characters, not bytes, are counted.
while IFS='|' read -r img label why; do
	out=$("$FATSCOPE" label "$img" "$label" 2>&1); rc=$?
	check "label '$label' on $img" "1 fatscope: $img: $why" "$rc $out"
done << 'EOF'
f.img|A*B|'*' is not allowed in a FAT label
f.img|ABCDEFGHIJKL|a FAT label has at most 11 characters (this one has 12)
f.img|Nöuvo Läbel|non-ASCII characters such as 'ö' are not supported in a FAT label
f.img|Näme|non-ASCII characters such as 'ä' are not supported in a FAT label
f.img|Nöuvo Läbel too long|non-ASCII characters such as 'ö' are not supported in a FAT label
f.img| LEAD|a FAT label cannot start with a space
v.img|Nöuvo Läbel+|an exFAT label has at most 11 UTF-16 characters (this one has 12)
v.img|日本語のラベルは十二文字です|an exFAT label has at most 11 UTF-16 characters (this one has 14)
EOF
for img in f.img v.img; do
	out=$("$FATSCOPE" label "$img" $'A\x01' 2>&1); rc=$?
	check "control character on $img" "1 fatscope: $img: control characters are not allowed in a label" "$rc $out"
	out=$("$FATSCOPE" label "$img" $'A\xffB' 2>&1); rc=$?
	check "invalid UTF-8 on $img" "1 fatscope: $img: the label is not valid UTF-8" "$rc $out"
done
"$FATSCOPE" label -g random f.img > /dev/null 2>&1; check "GUID on FAT" 1 $?
check "refusals wrote nothing" "$orig $forig" "$(sha256sum < v.img) $(sha256sum < f.img)"
"$FATSCOPE" label f.img lower > /dev/null; check "FAT lower case accepted" 0 $?
check "FAT label upper-cased" "LOWER" "$(sed -n 's/^label: *\([^ ]*\) .*/\1/p' <<< "$("$FATSCOPE" label f.img)")"
"$FATSCOPE" label -s nonsense v.img > /dev/null 2>&1; check "bad serial" 16 $?
"$FATSCOPE" label v.img DEMO | grep -q "nothing to change" && ok || bad "unchanged label"
# A label another tool wrote with characters the specification forbids
# ("D*M\x1b" over DEMO): probe and fsck warn (EXFAT_LABEL_CHARS, exit 0: a
# warning), fsck -y makes each one '_'; the volume then checks clean.
cp "$WORK/img/exfat.img" lc.img
off=
have jq && off=$("$FATSCOPE" dump -J -l lc.img | jq -r '.tree[] | select(.kind == "label") | .entry_offset')
if ! have jq; then
	echo "SKIP (part): forbidden label characters written by another tool (needs jq)"
elif [ -n "$off" ]; then
	patch_py set lc.img $((off + 4)) 2a00
	patch_py set lc.img $((off + 8)) 1b00
	out=$("$FATSCOPE" probe lc.img); rc=$?
	check "probe: forbidden label characters, exit" 0 "$rc"
	check "probe: the warning" "    warning EXFAT_LABEL_CHARS: volume label holds '*' (character 2) and 1 more, which the specification forbids [VolumeLabel]" \
		"$(grep EXFAT_LABEL_CHARS <<< "$out")"
	out=$("$FATSCOPE" fsck -n lc.img); rc=$?
	check "fsck -n: forbidden label characters, exit" 0 "$rc"
	check "fsck -n: the only finding" "warning EXFAT_LABEL_CHARS" "$(grep -oE '^(warning|error) +[A-Z0-9_]+' <<< "$out")"
	"$FATSCOPE" fsck -y lc.img > /dev/null; check "fsck -y: forbidden label characters, exit" 1 $?
	check "fsck -y: the label" "D_M_" "$("$FATSCOPE" label -J lc.img | jq -r .label)"
	out=$("$FATSCOPE" fsck -n -f lc.img); rc=$?
	check "fsck after -y: exit" 0 "$rc"
	check "fsck after -y: no finding" "" "$(grep -E '^(warning|error) ' <<< "$out")"
else
	bad "no label entry found in exfat.img (dump -J -l, jq)"
fi
# An undo file is never overwritten.
: > exists.undo
"$FATSCOPE" label --undo exists.undo v.img OTHER > /dev/null 2>&1; check "existing undo file" 8 $?
check "refused undo wrote nothing" "$orig" "$(sha256sum < v.img)"

# A mounted volume is refused (exfat-fuse on a loop device of our own).
if [ "$(id -u)" = 0 ] && have losetup && have mount.exfat-fuse && [ -e /dev/fuse ]; then
	mkdir -p mnt
	if loop=$(losetup --find --show v.img 2>/dev/null); then
		trap 'umount mnt 2>/dev/null; losetup -d "$loop" 2>/dev/null' EXIT
		if mount.exfat-fuse -o ro "$loop" mnt > /dev/null 2>&1; then
			err=$("$FATSCOPE" label v.img MOUNTED 2>&1); rc=$?
			check "mounted image refused" 8 "$rc"
			grep -q "mounted on" <<< "$err" && ok || bad "mounted: $err"
			umount mnt
		else
			echo "SKIP: exfat-fuse could not mount"
		fi
		losetup -d "$loop"
		trap - EXIT
	else
		echo "SKIP: mounted-volume refusal (losetup could not attach v.img)"
	fi
else
	echo "SKIP: mounted-volume refusal (needs root, losetup and exfat-fuse)"
fi

# A whole-disk image whose exFAT partition is mounted through a partition of
# a loop device (loopNp1) is refused too, and so is undo on it.
has_fixture mbr-disk && cp "$WORK/img/mbr-disk.img" disk.img || hard_error "no fixture mbr-disk.img"
if [ "$(id -u)" = 0 ] && have losetup && have partx && have mount.exfat-fuse && [ -e /dev/fuse ] &&
   loop=$(losetup -P --find --show disk.img 2>/dev/null); then
	trap 'umount mnt 2>/dev/null; partx -d "$loop" 2>/dev/null; losetup -d "$loop" 2>/dev/null' EXIT
	[ -b "${loop}p1" ] || partx -a "$loop" 2> /dev/null	# no udev: add the partitions by hand
	mkdir -p mnt
	if [ -b "${loop}p1" ] && mount.exfat-fuse -o ro "${loop}p1" mnt > /dev/null 2>&1; then
		orig=$(sha256sum < disk.img)
		err=$("$FATSCOPE" label --partition 1 disk.img MOUNTED 2>&1); rc=$?
		check "partition mounted through a loop partition" \
			"8 fatscope: disk.img: attached to $loop, partition ${loop}p1 is mounted on $dir/mnt; unmount it first" \
			"$rc $err"
		: > empty.undo
		"$FATSCOPE" undo empty.undo disk.img > /dev/null 2>&1; check "undo on it refused" 8 $?
		check "nothing written" "$orig" "$(sha256sum < disk.img)"
		umount mnt
	else
		echo "SKIP: loop partition refusal (no ${loop}p1, or exfat-fuse could not mount it)"
	fi
	partx -d "$loop" 2> /dev/null
	losetup -d "$loop"
	trap - EXIT
else
	echo "SKIP: loop partition refusal (needs root, losetup, partx and exfat-fuse)"
fi
finish
