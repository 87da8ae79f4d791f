#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# blkid-cross.sh - the blkid model agrees with the installed blkid -p on
# every fixture and every partition of the disk fixtures: same TYPE, and
# for vfat the same VERSION.  Debian 12's util-linux 2.38 checks the
# blkid-2.38 model; 2.39 and later check the blkid model.
. "$(dirname "$0")/lib.sh"

command -v blkid > /dev/null || { echo "SKIP: blkid not installed"; exit 77; }
ver=$(blkid -V | sed -n 's/.*util-linux \([0-9]*\.[0-9]*\).*/\1/p')
case "$ver" in
2.3[0-8]|2.[0-2]*) model=blkid-2.38 ;;
*) model=blkid ;;
esac
echo "blkid $ver: checking the $model model"

# What blkid -p says: exfat, fat12, fat16, fat32, ntfs or none.
blkid_type() {
	local out t v
	out=$(blkid -p -o export "$@" 2>/dev/null)
	t=$(sed -n 's/^TYPE=//p' <<< "$out")
	v=$(sed -n 's/^VERSION=//p' <<< "$out")
	case "$t" in
	vfat) case "$v" in FAT12) echo fat12 ;; FAT16) echo fat16 ;; FAT32) echo fat32 ;; *) echo vfat-noversion ;; esac ;;
	"") echo none ;;
	*) echo "$t" ;;
	esac
}

# What the model says for the volume at an offset.
model_type() {
	local action as
	read -r action as < <("$FATSCOPE" probe -r -n -o ACTION,AS --drivers "$model" "$@" 2>/dev/null | head -1)
	[ "$action" = mounts ] && echo "$as" || echo none
}

compare() {
	local what=$1 b m
	shift
	b=$(blkid_type "$@")
	m=$(model_type "$@")
	if [ "$b" = "$m" ]; then
		ok
	else
		bad "$what: blkid -p says $b, the $model model says $m"
	fi
}

prepare_fixtures
for name in $(fixture_names); do
	img="$WORK/img/$name.img"
	compare "$name" "$img"
	# Partitions of disk images, found with libblkid's partition probing.
	for off in $("$FATSCOPE" probe -J "$img" 2>/dev/null | sed -n 's/^ *"offset": \([1-9][0-9]*\),$/\1/p'); do
		b=$(blkid_type -O "$off" "$img")
		m=$("$FATSCOPE" probe -r -n -o ACTION,AS --drivers "$model" --offset "$off" "$img" 2>/dev/null |
			awk '{ print ($1 == "mounts") ? $2 : "none"; exit }')
		if [ "$b" = "$m" ]; then ok; else bad "$name at $off: blkid -p says $b, the model says $m"; fi
	done
done
finish
