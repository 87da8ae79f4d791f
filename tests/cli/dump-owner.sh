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
owner() {	# owner IMAGE CLUSTER -> the JSON owner object, compact
	dump_owner "$@" | jq -c .owner
}

# 1. Every live allocation of the populated fixtures owns its first and last cluster:
# with FATSCOPE_LONG_TESTS=1 each one; else, on a fixture of 20 or more, every
# twelfth and every fragmented one.
step=12
long_tests && step=1
[ "$step" = 1 ] || echo "allocations checked: every $step""th of the big fixtures and the fragmented ones (FATSCOPE_LONG_TESTS=1: all)"
for img in pop-small pop-fat12 pop-fat16 pop-fat32; do
	n=0
	while IFS=$'\t' read -r path first entry kind; do
		read -r last count < <("$FATSCOPE" dump -J --path "$path" "$img.img" |
			jq -r '.extents | "\(.runs[-1] | .first + .count - 1) \(.clusters)"')
		parent=${path%/*}
		[ -n "$parent" ] || parent=/
		# both owners through one jq: a line each
		{ mapfile -t got; } < <({ dump_owner "$img.img" "$first"; dump_owner "$img.img" "$last"; } |
			jq -r -s '(.[0].owner | [.kind, .path, .head, .index, .entry_byte, .directory] | @tsv),
				  (.[1].owner | [.kind, .path, .head, .index] | @tsv)' 2> /dev/null)
		check "$img $path first" "$kind	$path	$first	0	$entry	$parent" "${got[0]:-}"
		check "$img $path last" "$kind	$path	$first	$((count - 1))" "${got[1]:-}"
		n=$((n + 1))
	done < <("$FATSCOPE" dump -J -l "$img.img" |
		 jq -r '[.tree[] | select(.deleted == false and .first_cluster > 0 and (.size > 0 or .kind == "directory"))] |
			length as $n | to_entries[] | select($n < 20 or .key % '"$step"' == 0 or (.value.path | test("^/frag/"))) |
			.value |
			[.path, .first_cluster, .entry_offset, .kind] | @tsv')
	[ "$n" -ge 4 ] && ok || bad "$img: only $n allocations checked"
done
unchanged pop-small pop-fat12 pop-fat16 pop-fat32

# 2. The structures.
check "exFAT bitmap" 'bitmap 2 0' "$(owner pop-small.img 2 | jq -r '[.kind, .head, .index] | join(" ")')"
check "exFAT up-case, second cluster" 'upcase 3 1' "$(owner pop-small.img 4 | jq -r '[.kind, .head, .index] | join(" ")')"
check "exFAT root" 'root 5 0' "$(owner pop-small.img 5 | jq -r '[.kind, .head, .index] | join(" ")')"
root32=$("$FATSCOPE" dump -J pop-fat32.img | jq -r '.boot.extended_bpb.fields[] | select(.name == "BPB_RootClus") | .number')
check "FAT32 root" "root $root32" "$(owner pop-fat32.img "$root32" | jq -r '[.kind, .head] | join(" ")')"
check "text: exFAT root" "cluster 5 (byte 2109440): the root directory, cluster 0 of its allocation (head 5)
entry: the boot sector's FirstClusterOfRootDirectory" "$("$FATSCOPE" dump --owner 5 pop-small.img | sed -n 3,4p)"
# pop-fat12's README.TXT: the fixed root area at byte 9728 holds the label, then its 8.3 entry.
check "FAT12 root-area entry" 'file /README.TXT 0 9760 1' \
	"$(owner pop-fat12.img 2 | jq -r '[.kind, .path, .entry_cluster, .entry_byte, .entry_index] | join(" ")')"
# /docs/notes...: ., .., two long-name entries, then its 8.3 entry, slot 4 of /docs's first cluster.
check "FAT12 subdirectory entry" 'in /docs, entry 4, byte 18048 (cluster 4)' \
	"$("$FATSCOPE" dump --owner 5 pop-fat12.img | sed -n 4p | sed 's/^entry: //')"

# 3. Free, lost, bad, deleted.
check "lost chain head" lost "$(owner fbad-fat16-lost.img 30000 | jq -r .kind)"
check "lost chain tail" lost "$(owner fbad-fat16-lost.img 30001 | jq -r .kind)"
check "lost single" 'lost true' "$(owner fbad-fat16-lost.img 31000 | jq -r '[.kind, .allocated] | join(" ")')"
check "free" 'free false' "$(owner fbad-fat16-lost.img 29999 | jq -r '[.kind, .allocated] | join(" ")')"
check "free exFAT" free "$(owner pop-small.img 1000 | jq -r .kind)"
cp pop-fat16.img "$SCRATCH/bad.img"
patch_py fat-set "$SCRATCH/bad.img" 29999 0xFFF7
check "bad" 'bad false' "$(owner "$SCRATCH/bad.img" 29999 | jq -r '[.kind, .allocated] | join(" ")')"
check "deleted" 'deleted /deleted long name.txt intact 399 10' \
	"$(owner fbad-fat12-bad.img 399 | jq -r '[.kind, .path, .recovery, .head, .entry_index] | join(" ")')"

# 4. Loops: bounded, and the file still owns its clusters.
check "loop: a cluster of the looping file" 'file /frag/fragmented.bin 91 5' \
	"$(owner fbad-fat16-loop.img 100 | jq -r '[.kind, .path, .head, .index] | join(" ")')"
check "loop: a free cluster" free "$(owner fbad-fat16-loop.img 20000 | jq -r .kind)"
check "root loop: a free cluster" free "$(owner fbad-fat32-rootloop.img 32000 | jq -r .kind)"
unchanged fbad-fat16-lost fbad-fat12-bad fbad-fat16-loop

# 5. Errors, escaping.
out=$("$FATSCOPE" dump --owner 600 exfat.img 2>&1 > /dev/null); rc=$?
check "outside the data area" "8 fatscope: exfat.img: cluster 600 is not in the data area (clusters 2 to 513)" "$rc $out"
out=$("$FATSCOPE" dump -J --owner 600 exfat.img 2> /dev/null); rc=$?
check "outside, JSON" "8 not a cluster of the data area" "$rc $(jq -r .owner.error <<< "$out")"
"$FATSCOPE" dump --owner 1 exfat.img > /dev/null 2>&1
check "cluster 1" 16 $?
# ESC as the first character of a long name: shown as \x1b, never raw.
cp pop-fat16.img "$SCRATCH/esc.img"
read -r e first < <("$FATSCOPE" dump -J -l "$SCRATCH/esc.img" |
	jq -r '.tree[] | select(.path == "/A root file with a longer name.txt") | "\(.entry_offset) \(.first_cluster)"')
patch_py set "$SCRATCH/esc.img" $((e - 32 + 1)) 1b
out=$("$FATSCOPE" dump --owner "$first" "$SCRATCH/esc.img" 2>&1)
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<< "$out"; then bad "a control character in: $out"; else ok; fi
check "ESC shown as \\x1b" 'file /\x1b root file with a longer name.txt' "$(sed -n 3p <<< "$out" | sed 's/^cluster [0-9]* (byte [0-9]*): //; s/, cluster 0 .*//')"
finish
