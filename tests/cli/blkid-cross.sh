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

# blkid_type [-O OFFSET] IMAGE: what blkid -p says: exfat, fat12, fat16, fat32,
# ntfs or none (one volume at an offset: the disk images' partitions).
blkid_type() {
	local out t v
	out=$(blkid -p -o export "$@" 2>/dev/null)
	t=$(sed -n 's/^TYPE=//p' <<< "$out")
	v=$(sed -n 's/^VERSION=//p' <<< "$out")
	type_of "$t" "$v"
}
type_of() {	# type_of TYPE VERSION: blkid's answer as the model's
	case "$1" in
	vfat) case "$2" in FAT12) echo fat12 ;; FAT16) echo fat16 ;; FAT32) echo fat32 ;; *) echo vfat-noversion ;; esac ;;
	"") echo none ;;
	*) echo "$1" ;;
	esac
}

# The whole images, in as few processes as the answers allow: blkid -p
# takes many devices but stops at the first it finds nothing on (that one
# is none, and blkid goes on after it); fatscope probe takes them all, a
# row a volume (IMAGE, and IMAGE@OFFSET for each partition it lists).
declare -A btype=() bver=() bpt=() seen=()
blkid_all() {
	local list=("$@") k v dev i
	while [ "${#list[@]}" -gt 0 ]; do
		dev=
		while IFS='=' read -r k v; do
			case $k in
			DEVNAME) dev=$v seen[$v]=1 ;;
			TYPE) btype[$dev]=$v ;;
			VERSION) bver[$dev]=$v ;;
			PTTYPE) bpt[$dev]=$v ;;
			esac
		done < <(blkid -p -o export "${list[@]}" 2> /dev/null)
		for i in "${!list[@]}"; do	# the first with no answer: none; go on after it
			[ -n "${seen[${list[$i]}]:-}" ] && continue
			seen[${list[$i]}]=1
			list=("${list[@]:$((i + 1))}")
			continue 2
		done
		list=()
	done
}
# What the model says for each volume (probe's rows): its TYPE when it
# mounts, else none; "error ..." when fatscope probe did not answer with
# one of its exit statuses (0, 1, 2).
declare -A mtype=() mparts=()
model_all() {
	local out rc vol action as
	out=$("$FATSCOPE" probe -r -n -o VOLUME,ACTION,AS --drivers "$model" "$@" 2> "$SCRATCH/probe.err"); rc=$?
	case $rc in [012]) ;; *) bad "fatscope probe exit $rc: $(head -3 "$SCRATCH/probe.err")"; return ;; esac
	while read -r vol action as; do
		case "$action:$as" in
		mounts:?*) ;;
		refuses: | misreads:*) as=none ;;
		*) as="error (fatscope probe: $vol $action $as)" ;;
		esac
		mtype[$vol]=$as
		[[ $vol == *@* ]] && mparts[${vol%@*}]+="${vol##*@}"$'\n'
	done <<< "$out"
}
model_type() {	# model_type --offset OFFSET IMAGE: one volume, as above
	local out rc action as
	out=$("$FATSCOPE" probe -r -n -o ACTION,AS --drivers "$model" "$@" 2>&1); rc=$?
	read -r action as <<< "$(head -1 <<< "$out")"
	case "$rc:$action:$as" in
	[012]:mounts:?*) echo "$as" ;;
	[012]:refuses: | [012]:misreads:*) echo none ;;
	*) echo "error (fatscope probe exit $rc: $(head -1 <<< "$out"))" ;;
	esac
}
agree() {	# agree WHAT BLKID MODEL
	if [ "$2" = "$3" ]; then ok; else bad "$1: blkid -p says $2, the $model model says $3"; fi
}

# The partitions of an image as byte offsets, one a line: as partx(8)
# lists them (libblkid's partition probing), and as fatscope probe lists
# them.  The partitions compared are partx's, so that a fatscope that
# lists none cannot skip them; partx runs where blkid -p found a
# partition table (PTTYPE): libblkid finds none elsewhere.
have_partx=1
command -v partx > /dev/null || { have_partx=0; echo "SKIP (part): partx not installed: partitions as fatscope lists them"; }
partx_offsets() { partx -g -o START "$1" 2> /dev/null | awk '{ print $1 * 512 }'; }

prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"
imgs=()
for name in $(fixture_names); do imgs+=("$name.img"); done
blkid_all "${imgs[@]}"
model_all "${imgs[@]}"
for img in "${imgs[@]}"; do
	name=${img%.img}
	agree "$name" "$(type_of "${btype[$img]:-}" "${bver[$img]:-}")" "${mtype[$img]:-error (no row)}"
	ours=${mparts[$img]:-}
	ours=${ours%$'\n'}
	if [ "$have_partx" = 1 ]; then
		parts=
		[ -z "${bpt[$img]:-}" ] || parts=$(partx_offsets "$img")
		if [ -n "$parts$ours" ]; then
			if [ "$parts" = "$ours" ]; then ok; else bad "$name: partx lists partitions at [$parts], fatscope at [$ours]"; fi
		fi
	else
		parts=$ours
	fi
	for off in $parts; do
		[ "$off" -gt 0 ] 2> /dev/null || continue
		agree "$name at $off" "$(blkid_type -O "$off" "$img")" "$(model_type --offset "$off" "$img")"
	done
done
finish
