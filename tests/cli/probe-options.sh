#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-options.sh - the options of fatscope probe do what fatscope-probe(8)
# says: --help/--version, -o/-n/-r table mode, -s summary, --drivers,
# --offset, --partition, --sector-size, -J fields, exit codes over several
# images.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"


out=$("$FATSCOPE" probe --help); rc=$?
check "--help exit" 0 "$rc"
check "--help usage line" " fatscope probe [options] DEVICE|IMAGE..." "$(sed -n 2p <<< "$out")"
out=$("$FATSCOPE" probe -V)
check "-V" "fatscope probe from fatscope" "$(cut -d' ' -f1-4 <<< "$out")"
check "help probe" "$("$FATSCOPE" probe --help)" "$("$FATSCOPE" help probe)"

# Table mode: one row per driver, only the columns asked for, no headings.
out=$("$FATSCOPE" probe -n -r -o DRIVER,ACTION,AS --drivers current exfat.img)
check "--drivers current rows" 5 "$(wc -l <<< "$out")"
check "row linux-exfat" "linux-exfat mounts exfat" "$(grep '^linux-exfat ' <<< "$out")"
# Only volume columns: one row per volume, not one per driver.
check "-o VOLUME,TYPE: a row per volume" "exfat.img exfat
fat16.img fat16" "$("$FATSCOPE" probe -n -r -o VOLUME,TYPE exfat.img fat16.img)"
out=$("$FATSCOPE" probe -r -o DRIVER,RISK --drivers staging-5.4-vfat,linux-vfat fat16.img)
check "RISK column" $'DRIVER RISK\nstaging-5.4-vfat wrong-driver\nlinux-vfat ' "$out"

# --offset and --partition select the same FAT32 partition of the MBR disk.
a=$("$FATSCOPE" probe -n -r -o TYPE,DRIVER,ACTION --offset 9437184 mbr-disk.img)
b=$("$FATSCOPE" probe -n -r -o TYPE,DRIVER,ACTION --partition 2 mbr-disk.img)
check "--offset = --partition" "$a" "$b"
check "partition 2 type" fat32 "$(head -1 <<< "$b" | cut -d' ' -f1)"
check "--offset 9M suffix" "$a" "$("$FATSCOPE" probe -n -r -o TYPE,DRIVER,ACTION --offset 9MiB mbr-disk.img)"

# A whole-disk image is listed partition by partition.
out=$("$FATSCOPE" probe -n -r -o VOLUME,TYPE --drivers blkid gpt-disk.img)
check "gpt listing" $'gpt-disk.img gpt\ngpt-disk.img@1048576 exfat\ngpt-disk.img@5242880 fat16' "$out"

# --sector-size 4096: a 512-byte-sector exFAT volume on a 4Kn device.
out=$("$FATSCOPE" probe -n -r -o DRIVER,ACTION,ERRNO --drivers linux-exfat --sector-size 4096 exfat.img)
check "4Kn device" "linux-exfat refuses EIO" "$out"

# JSON carries the documented fields.
out=$("$FATSCOPE" probe -J exfat-bad-checksum.img)
for key in '"path": "exfat-bad-checksum.img"' '"partition": null' '"type": "exfat"' '"label": "DEMO"' \
	'"serial": "1234-ABCD"' '"id": "EXFAT_BOOT_CHECKSUM"' '"severity": "error"' \
	'"kind": "accepts-corrupt"' '"errno": "EINVAL"' '"risk": true'; do
	if grep -qF "$key" <<< "$out"; then ok; else bad "JSON lacks $key"; fi
done
if command -v jq > /dev/null; then
	check "JSON parses" 1 "$(jq '.volumes | length' <<< "$out")"
fi

# -s: a line a volume (a partition of a whole-disk image too): type, label,
# verdict and the drivers at risk, each once; the exit status of the report.
out=$("$FATSCOPE" probe -s exfat.img exfat-mustbezero-fat16.img ntfs.img); rc=$?
check "-s exit" 1 "$rc"
check "-s heading" "VOLUME TYPE LABEL VERDICT AT-RISK" "$(head -n 1 <<< "$out" | tr -s ' ' | sed 's/ $//')"
check "-s lines" 4 "$(wc -l <<< "$out")"
out=$("$FATSCOPE" probe --summary -r -n exfat.img exfat-mustbezero-fat16.img ntfs.img)
check "-s -r -n" $'exfat.img exfat DEMO no-risk \nexfat-mustbezero-fat16.img exfat DEMO AT-RISK exfat-fuse,blkid-2.38\nntfs.img ntfs  not-exFAT/FAT ' "$out"
out=$("$FATSCOPE" probe -s -r -n --drivers linux-exfat,blkid gpt-disk.img fat16.img)
check "-s partitions, --drivers" $'gpt-disk.img gpt  not-exFAT/FAT \ngpt-disk.img@1048576 exfat GPTEXFAT no-risk \ngpt-disk.img@5242880 fat16 GPTFAT16 no-risk \nfat16.img fat16 FAT16DEMO no-risk ' "$out"
"$FATSCOPE" probe -s -J exfat.img > /dev/null 2>&1; check "-s -J" 16 $?
"$FATSCOPE" probe -s -o TYPE exfat.img > /dev/null 2>&1; check "-s -o" 16 $?

# Exit codes: 0 clean, 1 risk, 2 not a volume; several images: the worst.
"$FATSCOPE" probe exfat.img > /dev/null; check "exit clean" 0 $?
# A healthy FAT volume: only the non-default staging-5.4-vfat (EXFAT_DONT_MOUNT_VFAT=n) would
# take it; that risk is shown but counts only when --drivers asks for it.
"$FATSCOPE" probe fat16.img > /dev/null; check "exit non-default risk only" 0 $?
"$FATSCOPE" probe fat16.img | grep -q "staging-5.4-vfat \[wrong-driver, historical, non-default configuration, not counted\]" &&
	ok || bad "the non-default driver's risk is not shown as not counted"
"$FATSCOPE" probe --drivers all fat16.img > /dev/null; check "exit risk (--drivers all)" 1 $?
"$FATSCOPE" probe --drivers staging-5.4-vfat fat16.img > /dev/null; check "exit risk (--drivers staging-5.4-vfat)" 1 $?
"$FATSCOPE" probe --drivers current fat16.img > /dev/null; check "exit current only" 0 $?
"$FATSCOPE" probe ntfs.img > /dev/null; check "exit not exFAT/FAT" 2 $?
"$FATSCOPE" probe exfat.img ntfs.img > /dev/null; check "exit 0+2" 2 $?
"$FATSCOPE" probe --drivers all ntfs.img fat16.img > /dev/null; check "exit 2+1" 1 $?
"$FATSCOPE" probe --bogus exfat.img > /dev/null 2>&1; check "bad option" 16 $?
"$FATSCOPE" probe --drivers nosuch exfat.img > /dev/null 2>&1; check "bad driver" 16 $?
"$FATSCOPE" probe --offset 1 --partition 1 exfat.img > /dev/null 2>&1; check "offset+partition" 16 $?
"$FATSCOPE" probe > /dev/full 2>&1 --help; check "write error" 8 $?

# A hostile label (ESC [31m ... newline) is escaped in every text output.
if command -v jq > /dev/null; then
	cp pop-small.img "$SCRATCH/esc.img"
	d=$("$FATSCOPE" probe -J "$SCRATCH/esc.img" | jq -r '.volumes[0].details | "\(.cluster_heap_offset) \(.root_cluster) \(.cluster_shift) \(.sector_shift)"')
	read -r heap rootc cshift sshift <<< "$d"
	root=$(( (heap << sshift) + ((rootc - 2) << (cshift + sshift)) ))
	# the first label entry (0x83) of the root's first cluster
	slot=$(od -An -tu1 -w32 -v -j "$root" -N $((1 << (cshift + sshift))) "$SCRATCH/esc.img" | awk '$1 == 131 { print NR - 1; exit }')
	printf '\x83\x05\x1b\x00\x5b\x00\x33\x00\x31\x00\x0a\x00' |
		dd of="$SCRATCH/esc.img" bs=1 seek=$((root + 32 * slot)) conv=notrunc status=none
	"$FATSCOPE" probe "$SCRATCH/esc.img" | grep -q 'label                  \\x1b\[31\\x0a' && ok || bad "probe does not show the escaped label"
	for cmd in "probe" "probe -s" "probe -o VOLUME,LABEL" "label" "dump" "fsck -n"; do
		# shellcheck disable=SC2086
		n=$("$FATSCOPE" $cmd "$SCRATCH/esc.img" 2>&1 | tr -d '\n\t' | LC_ALL=C grep -c '[[:cntrl:]]')
		check "no control byte from '$cmd' with a hostile label" 0 "$n"
	done
else
	echo "jq not installed: the hostile label is not checked"
fi
finish
