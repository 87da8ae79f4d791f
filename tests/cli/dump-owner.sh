#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dump-owner.sh - fatscope dump --owner CLUSTER on both families:
#  1. the live files and directories of the populated fixtures (all with
#     FATSCOPE_LONG_TESTS=1, else every twelfth on the big ones and every
#     fragmented one): the first
#     and last cluster (as dump --path lists its extents) are owned by it,
#     at the right place in its allocation, and the entry named is its
#     own (dump -l's entry offset), in its parent directory;
#  2. the structures: exFAT's bitmap, up-case table and root; the FAT32
#     root; a FAT12 entry in the fixed root area has its slot there;
#  3. free, lost (fbad-fat16-lost's chains nobody owns), bad (a FAT
#     entry made bad here), deleted (a deleted file's intact cluster);
#  4. a chain loop (fbad-fat16-loop, fbad-fat32-rootloop) never hangs and
#     the looping file still owns its clusters;
#  5. a cluster outside the data area: one error line, exit 8, and the
#     JSON object says error; cluster 0 or 1 is a usage error (16);
#     text output is escaped; the images are never written.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"

# dump -J --owner, at most 20 s of CPU (a subshell's ulimit: no timeout process a run)
dump_owner() { (ulimit -t 20; exec "$FATSCOPE" dump -J --owner "$2" "$1"); }
# jq_files FILTER FILE...: jq over many outputs at once, a line each: the file's name
# (a key, so that an output jq cannot read leaves its key unset, not its lines shifted),
# then FILTER's fields, each as @tsv gives it, null as nothing, all joined by \x1f:
# J[NAME] is that line after the name.
declare -A J=()
jq_files() {
	local f line filter=$1
	shift
	while IFS= read -r line; do
		f=${line%%$'\x1f'*}
		J[${f##*/}]=${line#*$'\x1f'}
	done < <(jq -r "[(input_filename), ($filter)] | map(if . == null then \"\" else ([.] | @tsv) end) | join(\"\\u001f\")" "$@" 2> /dev/null)
}

# 1. Every live allocation of the populated fixtures owns its first and last cluster:
# with FATSCOPE_LONG_TESTS=1 each one; else, on a fixture of 20 or more, every
# twelfth and every fragmented one.  dump --path of each first, its last cluster
# read by one jq for all; then the two owners of each, read by one jq for all.
step=12
long_tests && step=1
[ "$step" = 1 ] || echo "allocations checked: every $step""th of the big fixtures and the fragmented ones (FATSCOPE_LONG_TESTS=1: all)"
mkdir -p "$SCRATCH/j"
alloc=()	# img<TAB>path<TAB>first<TAB>entry<TAB>kind, numbered as the outputs in $SCRATCH/j
for img in pop-small pop-fat12 pop-fat16 pop-fat32; do
	n=0
	while IFS=$'\t' read -r path first entry kind; do
		"$FATSCOPE" dump -J --path "$path" "$img.img" > "$SCRATCH/j/p${#alloc[@]}"
		alloc+=("$img	$path	$first	$entry	$kind")
		n=$((n + 1))
	done < <("$FATSCOPE" dump -J -l "$img.img" |
		 jq -r '[.tree[] | select(.deleted == false and .first_cluster > 0 and (.size > 0 or .kind == "directory"))] |
			length as $n | to_entries[] | select($n < 20 or .key % '"$step"' == 0 or (.value.path | test("^/frag/"))) |
			.value |
			[.path, .first_cluster, .entry_offset, .kind] | @tsv')
	[ "$n" -ge 4 ] && ok || bad "$img: only $n allocations checked"
done
if [ "${#alloc[@]}" -gt 0 ]; then
	jq_files '.extents | (.runs[-1] | .first + .count - 1), .clusters' "$SCRATCH"/j/p*
	for k in "${!alloc[@]}"; do
		IFS=$'\t' read -r img path first entry kind <<< "${alloc[k]}"
		IFS=$'\x1f' read -r last count <<< "${J[p$k]:-}"
		dump_owner "$img.img" "$first" > "$SCRATCH/j/f$k"
		dump_owner "$img.img" "$last" > "$SCRATCH/j/l$k"
	done
	jq_files '.owner | .kind, .path, .head, .index, .entry_byte, .directory' "$SCRATCH"/j/[fl]*
	for k in "${!alloc[@]}"; do
		IFS=$'\t' read -r img path first entry kind <<< "${alloc[k]}"
		IFS=$'\x1f' read -r last count <<< "${J[p$k]:-}"
		parent=${path%/*}
		[ -n "$parent" ] || parent=/
		got=${J[f$k]:-}
		check "$img $path first" "$kind	$path	$first	0	$entry	$parent" "${got//$'\x1f'/$'\t'}"
		# (the last one: its first four fields)
		got=${J[l$k]:-}
		[[ $got =~ ^([^$'\x1f']*$'\x1f'){3}[^$'\x1f']* ]] && got=${BASH_REMATCH[0]}
		got=${got//$'\x1f'/$'\t'}
		check "$img $path last" "$kind	$path	$first	$((${count:-0} - 1))" "$got"
	done
fi
unchanged pop-small pop-fat12 pop-fat16 pop-fat32

# 2-5: every JSON owner first, into $SCRATCH/o (owner KEY IMAGE CLUSTER), then one jq
# for them all; own KEY FIELD... then sets REPLY to the fields named, joined by a space
# (nothing for an output jq could not read).
mkdir -p "$SCRATCH/o"
owner() { dump_owner "$2" "$3" > "$SCRATCH/o/$1"; }
fields=(kind path head index allocated recovery entry_cluster entry_byte entry_index)	# (as jq_files reads them below)
own() {
	local key=$1 f i r=
	local -a vals
	shift
	IFS=$'\x1f' read -r -a vals <<< "${J[$key]:-}"
	for f; do
		for i in "${!fields[@]}"; do [ "${fields[i]}" = "$f" ] && break; done
		r+=${r:+ }${vals[i]:-}
	done
	REPLY=
	[ -z "${J[$key]+set}" ] || REPLY=$r
}

# 2. The structures.
owner bitmap pop-small.img 2
owner upcase pop-small.img 4
owner root pop-small.img 5
root32=$("$FATSCOPE" dump -J pop-fat32.img | jq -r '.boot.extended_bpb.fields[] | select(.name == "BPB_RootClus") | .number')
owner root32 pop-fat32.img "$root32"
owner fat12root pop-fat12.img 2
# 3. Free, lost, bad, deleted.
owner losthead fbad-fat16-lost.img 30000
owner losttail fbad-fat16-lost.img 30001
owner lostsingle fbad-fat16-lost.img 31000
owner free fbad-fat16-lost.img 29999
owner freeex pop-small.img 1000
cp pop-fat16.img "$SCRATCH/bad.img"
patch_py fat-set "$SCRATCH/bad.img" 29999 0xFFF7
owner bad "$SCRATCH/bad.img" 29999
owner deleted fbad-fat12-bad.img 399
# 4. Loops: bounded, and the file still owns its clusters.
owner loop fbad-fat16-loop.img 100
owner loopfree fbad-fat16-loop.img 20000
owner rootloop fbad-fat32-rootloop.img 32000
# 5. (outside the data area, JSON)
"$FATSCOPE" dump -J --owner 600 exfat.img > "$SCRATCH/o/outside" 2> /dev/null
outside_rc=$?
jq_files '.owner | .kind, .path, .head, .index, .allocated, .recovery, .entry_cluster, .entry_byte, .entry_index, .error' "$SCRATCH"/o/*

# 2. The structures.
own bitmap kind head index
check "exFAT bitmap" 'bitmap 2 0' "$REPLY"
own upcase kind head index
check "exFAT up-case, second cluster" 'upcase 3 1' "$REPLY"
own root kind head index
check "exFAT root" 'root 5 0' "$REPLY"
own root32 kind head
check "FAT32 root" "root $root32" "$REPLY"
"$FATSCOPE" dump --owner 5 pop-small.img > "$SCRATCH/out"
mapfile -t lines < "$SCRATCH/out"
check "text: exFAT root" "cluster 5 (byte 2109440): the root directory, cluster 0 of its allocation (head 5)
entry: the boot sector's FirstClusterOfRootDirectory" "${lines[2]:-}"$'\n'"${lines[3]:-}"
# pop-fat12's README.TXT: the fixed root area at byte 9728 holds the label, then its 8.3 entry.
own fat12root kind path entry_cluster entry_byte entry_index
check "FAT12 root-area entry" 'file /README.TXT 0 9760 1' "$REPLY"
# /docs/notes...: ., .., two long-name entries, then its 8.3 entry, slot 4 of /docs's first cluster.
"$FATSCOPE" dump --owner 5 pop-fat12.img > "$SCRATCH/out"
mapfile -t lines < "$SCRATCH/out"
got=${lines[3]:-}
check "FAT12 subdirectory entry" 'in /docs, entry 4, byte 18048 (cluster 4)' "${got#entry: }"

# 3. Free, lost, bad, deleted.
own losthead kind
check "lost chain head" lost "$REPLY"
own losttail kind
check "lost chain tail" lost "$REPLY"
own lostsingle kind allocated
check "lost single" 'lost true' "$REPLY"
own free kind allocated
check "free" 'free false' "$REPLY"
own freeex kind
check "free exFAT" free "$REPLY"
own bad kind allocated
check "bad" 'bad false' "$REPLY"
own deleted kind path recovery head entry_index
check "deleted" 'deleted /deleted long name.txt intact 399 10' "$REPLY"

# 4. Loops: bounded, and the file still owns its clusters.
own loop kind path head index
check "loop: a cluster of the looping file" 'file /frag/fragmented.bin 91 5' "$REPLY"
own loopfree kind
check "loop: a free cluster" free "$REPLY"
own rootloop kind
check "root loop: a free cluster" free "$REPLY"
unchanged fbad-fat16-lost fbad-fat12-bad fbad-fat16-loop

# 5. Errors, escaping.
out=$("$FATSCOPE" dump --owner 600 exfat.img 2>&1 > /dev/null); rc=$?
check "outside the data area" "8 fatscope: exfat.img: cluster 600 is not in the data area (clusters 2 to 513)" "$rc $out"
err=
[ -n "${J[outside]+set}" ] && err=${J[outside]##*$'\x1f'}
check "outside, JSON" "8 not a cluster of the data area" "$outside_rc $err"
"$FATSCOPE" dump --owner 1 exfat.img > /dev/null 2>&1
check "cluster 1" 16 $?
# ESC as the first character of a long name: shown as \x1b, never raw.
cp pop-fat16.img "$SCRATCH/esc.img"
read -r e first < <("$FATSCOPE" dump -J -l "$SCRATCH/esc.img" |
	jq -r '.tree[] | select(.path == "/A root file with a longer name.txt") | "\(.entry_offset) \(.first_cluster)"')
patch_py set "$SCRATCH/esc.img" $((e - 32 + 1)) 1b
"$FATSCOPE" dump --owner "$first" "$SCRATCH/esc.img" > "$SCRATCH/out" 2>&1
out=
IFS= read -r -d '' out < "$SCRATCH/out"
ctl=$'[\x01-\x08\x0b-\x1f\x7f]'
if [[ $out =~ $ctl ]]; then bad "a control character in: $out"; else ok; fi
mapfile -t lines <<< "$out"
got=${lines[2]:-}
[[ $got =~ ^cluster\ [0-9]*\ \(byte\ [0-9]*\):\ (.*)$ ]] && got=${BASH_REMATCH[1]}
got=${got%%, cluster 0 *}
check "ESC shown as \\x1b" 'file /\x1b root file with a longer name.txt' "$got"
finish
