#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# blkid-cross.sh - the blkid model agrees with the installed blkid -p on
# every fixture and every partition of the disk fixtures: same TYPE, and
# for vfat the same VERSION.  Debian 12's util-linux 2.38 checks the
# blkid-2.38 model; 2.39 and later check the blkid model.
. "$(dirname "$0")/lib.sh"

command -v blkid > /dev/null || skip "blkid not installed"
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

# What the model says for the volume (probe's first row: the whole image,
# or the volume at --offset): its TYPE when it mounts, else none; "error
# ..." when fatscope probe did not answer with one of its exit statuses
# (0, 1, 2) and a row of the table.
model_type() {
	local out rc action as
	out=$("$FATSCOPE" probe -r -n -o ACTION,AS --drivers "$model" "$@" 2>&1); rc=$?
	read -r action as <<< "$(head -1 <<< "$out")"
	case "$rc:$action:$as" in
	[012]:mounts:?*) echo "$as" ;;
	[012]:refuses: | [012]:misreads:*) echo none ;;
	*) echo "error (fatscope probe exit $rc: $(head -1 <<< "$out"))" ;;
	esac
}

compare() {	# compare WHAT IMAGE [OFFSET]: blkid -p and the model agree
	local what=$1 b m
	if [ $# -gt 2 ]; then
		b=$(blkid_type -O "$3" "$2")
		m=$(model_type --offset "$3" "$2")
	else
		b=$(blkid_type "$2")
		m=$(model_type "$2")
	fi
	if [ "$b" = "$m" ]; then
		ok
	else
		bad "$what: blkid -p says $b, the $model model says $m"
	fi
}

# The partitions of an image as byte offsets, one a line: as partx(8)
# lists them (libblkid's partition probing), and as fatscope probe -J
# lists them.  The partitions compared are partx's, so that a fatscope
# that lists none cannot skip them.
have_partx=1
command -v partx > /dev/null || { have_partx=0; echo "SKIP (part): partx not installed: partitions as fatscope lists them"; }
partx_offsets() { partx -g -o START "$1" 2> /dev/null | awk '{ print $1 * 512 }'; }
fatscope_offsets() {
	local out rc
	out=$("$FATSCOPE" probe -J "$1" 2> /dev/null); rc=$?
	case $rc in [012]) ;; *) echo "error (fatscope probe -J exit $rc)"; return ;; esac
	grep -q '"volumes": \[' <<< "$out" || { echo "error (fatscope probe -J: no volumes)"; return; }
	sed -n 's/^ *"offset": \([1-9][0-9]*\),$/\1/p' <<< "$out"
}

prepare_fixtures
for name in $(fixture_names); do
	img="$WORK/img/$name.img"
	compare "$name" "$img"
	ours=$(fatscope_offsets "$img")
	if [ "$have_partx" = 1 ]; then
		parts=$(partx_offsets "$img")
		if [ -n "$parts$ours" ]; then
			if [ "$parts" = "$ours" ]; then ok; else bad "$name: partx lists partitions at [$parts], fatscope at [$ours]"; fi
		fi
	else
		parts=$ours
	fi
	for off in $parts; do
		[ "$off" -gt 0 ] 2> /dev/null || continue
		compare "$name at $off" "$img" "$off"
	done
done
finish
