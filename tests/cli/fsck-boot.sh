#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-boot.sh - the boot-time contract (issue #24):
#  - fsck(8) itself, running fatscope as fsck.exfat and fsck.vfat (links
#    in a directory put first in PATH, as an installed --enable-fsck-helpers
#    gives them): `fsck -t TYPE -a' on a corrupt volume that is NOT marked
#    dirty (a chain loop on exFAT and on FAT16) checks it and exits 4 (preen always checks: FAT and exFAT have
#    no last-check state), `-y' repairs it (exit 1), `-a' then exits 0;
#  - the words match the deeds: --dry-run says "would fix" (text) and
#    lists the IDs as planned, none as fixed (JSON), writes nothing, exits 4;
#    the real repair says "fixed" only after the plan was written and
#    read back; the summary lines and -J agree with the finding lines;
#  - a mounted image (a loop device of our own, mounted read-only by
#    exfat-fuse) is refused before anything is checked or called fixed:
#    one line on standard error, nothing on standard output (with -J one
#    object with the error), exit 8, no byte written; --dry-run and -n
#    still check it.  Skipped, with the reason, where it cannot mount.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
command -v jq > /dev/null || skip "jq not installed"

# The findings of the fixtures used (a chain loop on exFAT and on FAT16,
# neither marked dirty), as the lines show them.
loop_line='error   EXFAT_CHAIN_LOOP: cluster chain loops back to cluster 79 [cluster 78 entry 0: /frag/interleaved-a.bin]'
floop_line='error   FAT_CHAIN_LOOP: cluster chain loops back to cluster 91 [cluster 86 entry 9: /frag/fragmented.bin]'
ex_sum='37 files, 17 directories, 105/1536 clusters used (3.6% non-contiguous)'
fat_sum='37 files, 11 directories, 120/32481 clusters used (8.2% non-contiguous)'

# --- fsck(8) with -a on volumes not marked dirty
if command -v fsck > /dev/null; then
	mkdir -p bin
	ln -sf "$FATSCOPE" bin/fsck.exfat
	ln -sf "$FATSCOPE" bin/fsck.vfat
	cp "$WORK/img/bad-fat-loop.img" ex.img
	cp "$WORK/img/fbad-fat16-loop.img" fat.img
	# fsck(8) takes a device given by an absolute path only; its title line aside
	fsck8() { PATH=$SCRATCH/bin:$PATH fsck "$@" 2>&1 | grep -v '^fsck from util-linux'; return "${PIPESTATUS[0]}"; }
	# not marked dirty: -n finds the loop alone (no EXFAT_BOOT_VOLUME_DIRTY, FAT_DIRTY, FAT_FAT1_FLAGS)
	check "not marked dirty" "EXFAT_CHAIN_LOOP FAT_CHAIN_LOOP" \
		"$("$FATSCOPE" fsck -n -J ex.img | jq -r '.findings[].id') $("$FATSCOPE" fsck -n -J fat.img | jq -r '.findings[].id')"
	out=$(fsck8 -t exfat -a "$SCRATCH/ex.img"); rc=$?
	check "fsck -t exfat -a, not dirty: checked, the loop left" \
		"4 $SCRATCH/ex.img: left  $loop_line|$SCRATCH/ex.img: $ex_sum|$SCRATCH/ex.img: 1 problem left uncorrected" \
		"$rc $(tr '\n' '|' <<< "$out" | sed 's/|$//')"
	cmp -s ex.img "$WORK/img/bad-fat-loop.img" && ok || bad "fsck -t exfat -a wrote what it left"
	out=$(fsck8 -t exfat -y "$SCRATCH/ex.img"); rc=$?
	check "fsck -t exfat -y: fixed" "1 fixed $loop_line" "$rc $(head -n1 <<< "$out")"
	out=$(fsck8 -t exfat -a "$SCRATCH/ex.img"); rc=$?
	check "fsck -t exfat -a after -y" "0 $SCRATCH/ex.img: $ex_sum" "$rc $out"

	out=$(fsck8 -t vfat -a "$SCRATCH/fat.img"); rc=$?
	check "fsck -t vfat -a, not dirty: checked, the loop left" \
		"4 $SCRATCH/fat.img: left  $floop_line|$SCRATCH/fat.img: $fat_sum, 1 directory read to the end marker only|$SCRATCH/fat.img: 1 problem left uncorrected" \
		"$rc $(tr '\n' '|' <<< "$out" | sed 's/|$//')"
	cmp -s fat.img "$WORK/img/fbad-fat16-loop.img" && ok || bad "fsck -t vfat -a wrote what it left"
	out=$(fsck8 -t vfat -y "$SCRATCH/fat.img"); rc=$?
	check "fsck -t vfat -y: fixed" "1 fixed $floop_line|$SCRATCH/fat.img: 1 problem fixed, 8 changes written and read back" \
		"$rc $(head -n2 <<< "$out" | tr '\n' '|' | sed 's/|$//')"
	out=$(fsck8 -t vfat -a "$SCRATCH/fat.img"); rc=$?
	check "fsck -t vfat -a after -y" "0 $SCRATCH/fat.img: 37 files, 11 directories," "$rc $(cut -d' ' -f1-5 <<< "$out")"
else
	echo "SKIP (part): no fsck(8) (util-linux): the fsck -t TYPE -a runs are not made"
fi

# --- --dry-run: would fix, planned, nothing written
cp "$WORK/img/bad-fat-loop.img" dry.img
out=$("$FATSCOPE" fsck -y --dry-run dry.img); rc=$?
check "-y --dry-run: exit" 4 "$rc"
check "-y --dry-run: the finding line" "would fix $loop_line" "$(head -n1 <<< "$out")"
check "-y --dry-run: the summary" "dry.img: $ex_sum|dry.img: 1 problem left uncorrected (--dry-run: nothing written)|dry.img: 3 changes planned, nothing written (--dry-run):" \
	"$(sed -n 2,4p <<< "$out" | tr '\n' '|' | sed 's/|$//')"
grep -q '^fixed' <<< "$out" && bad "--dry-run calls a finding fixed" || ok
out=$("$FATSCOPE" fsck -p --dry-run dry.img); rc=$?
check "-p --dry-run: what preen leaves" "4 dry.img: left  $loop_line" "$rc $(head -n1 <<< "$out")"
out=$("$FATSCOPE" fsck -y --dry-run -J dry.img | jq -c '[.repair.fixed, .repair.planned, .repair.written, (.repair.plan | length), .exit_code, (.findings | map(.id))]')
check "-y --dry-run -J" '[[],["EXFAT_CHAIN_LOOP"],false,3,4,["EXFAT_CHAIN_LOOP"]]' "$out"
cp "$WORK/img/exfat-dirty.img" dirty.img
out=$("$FATSCOPE" fsck -a --dry-run dirty.img); rc=$?
check "-a --dry-run on a dirty volume" "0 dirty.img: would fix warning EXFAT_BOOT_VOLUME_DIRTY: VolumeFlags has VolumeDirty set [byte 106 (VolumeFlags)]" \
	"$rc $(head -n1 <<< "$out")"
cmp -s dry.img "$WORK/img/bad-fat-loop.img" && cmp -s dirty.img "$WORK/img/exfat-dirty.img" && ok ||
	bad "--dry-run wrote to the image"
# The repair itself: fixed, written and read back; -J agrees.
cp dry.img json.img
out=$("$FATSCOPE" fsck -y dry.img); rc=$?
check "-y: fixed after the writes" "1 fixed $loop_line|dry.img: 1 problem fixed, 3 changes written and read back" \
	"$rc $(head -n2 <<< "$out" | tr '\n' '|' | sed 's/|$//')"
out=$("$FATSCOPE" fsck -y -J json.img | jq -c '[.repair.fixed, .repair.planned, .repair.written, .exit_code, (.findings | length)]')
check "-y -J" '[["EXFAT_CHAIN_LOOP"],["EXFAT_CHAIN_LOOP"],true,1,0]' "$out"
cmp -s dry.img json.img && ok || bad "-y and -y -J wrote different bytes"

# --- a mounted image: refused first, nothing called fixed
mounted_case() {
	local loop mnt=$SCRATCH/mnt out err rc
	cp "$WORK/img/exfat-dirty.img" m.img
	mkdir -p "$mnt"
	loop=$(losetup -r --find --show m.img 2> /dev/null) || { echo "SKIP (part): losetup cannot attach an image here: the mounted case is not checked"; return; }
	trap 'umount "$SCRATCH/mnt" 2> /dev/null; losetup -d "'"$loop"'" 2> /dev/null' EXIT
	if ! mount.exfat-fuse -o ro "$loop" "$mnt" > /dev/null 2>&1; then
		echo "SKIP (part): exfat-fuse cannot mount $loop here: the mounted case is not checked"
	else
		for mode in -y -p -a; do
			out=$("$FATSCOPE" fsck "$mode" m.img 2> err.txt); rc=$?
			check "mounted, fsck $mode" "8 ||fatscope: m.img: attached to $loop, mounted on $mnt; unmount it first" \
				"$rc |$out|$(cat err.txt)"
		done
		out=$("$FATSCOPE" fsck -y -J m.img 2> /dev/null | jq -c '[.checked, .error, .exit_code]'); rc=$?
		check "mounted, fsck -y -J" "[false,\"attached to $loop, mounted on $mnt\",8]" "$out"
		out=$("$FATSCOPE" fsck -a --dry-run m.img); rc=$?
		check "mounted, -a --dry-run still plans" "0 m.img: would fix warning EXFAT_BOOT_VOLUME_DIRTY: VolumeFlags has VolumeDirty set [byte 106 (VolumeFlags)]" \
			"$rc $(head -n1 <<< "$out")"
		umount "$mnt"
	fi
	losetup -d "$loop"
	trap - EXIT
	cmp -s m.img "$WORK/img/exfat-dirty.img" && ok || bad "a mounted image was written to"
}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP (part): not root: the mounted case is not checked"
elif ! command -v losetup > /dev/null || ! command -v mount.exfat-fuse > /dev/null || [ ! -c /dev/fuse ]; then
	echo "SKIP (part): no losetup, exfat-fuse or /dev/fuse: the mounted case is not checked"
else
	mounted_case
fi
finish
