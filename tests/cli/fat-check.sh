#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fat-check.sh - fatscope fsck -n on FAT12/16/32 volumes:
#   - every fbad-* fixture (tests/fixtures/make-corrupt-fat.sh: one class of
#     damage each) gives exactly the problem IDs and exit status listed
#     here, and the transcript reviewed in expected/fat-check/; the image
#     is not changed;
#   - the populated fixtures check clean, and so does every volume fresh
#     from mkfs.fat over the types, sizes and cluster sizes users format,
#     with and without a label, and after mtools wrote files into it;
#   - --codepage 437 and 850 read the 8.3 bytes above 0x7F differently;
#   - where dosfstools is installed: every fixture fsck.fat -n calls
#     damaged, fatscope reports a finding on; the table of both verdicts
#     per corruption class is printed into the log.
. "$(dirname "$0")/lib.sh"

prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"

# name | exit | IDs (sorted)
cases='fbad-fat12-bad|4|FAT_CHAIN_BAD FAT_LOST_CLUSTERS
fbad-fat16-after-end|4|FAT_AFTER_END FAT_LOST_CLUSTERS
fbad-fat16-badname|4|FAT_SHORT_NAME
fbad-fat16-chain-free|4|FAT_CHAIN_FREE FAT_LOST_CLUSTERS
fbad-fat16-copies|4|FAT_COPIES_DIFFER
fbad-fat16-cross|4|FAT_CROSS_LINK FAT_LOST_CLUSTERS
fbad-fat16-dirfree|4|FAT_CHAIN_FREE
fbad-fat16-dirsize|4|FAT_DIR_SIZE
fbad-fat16-dirty|0|FAT_DIRTY FAT_FAT1_FLAGS
fbad-fat16-dotdot|4|FAT_DOT_CLUSTER
fbad-fat16-dup|4|FAT_NAME_DUPLICATE
fbad-fat16-fat0|0|FAT_FAT0
fbad-fat16-label|4|FAT_LABEL_ENTRY FAT_LFN_ORPHAN FAT_LOST_CLUSTERS
fbad-fat16-lfn|4|FAT_LFN_SEQUENCE
fbad-fat16-loop|4|FAT_CHAIN_LOOP
fbad-fat16-lost|0|FAT_LOST_CLUSTERS
fbad-fat16-size|4|FAT_CHAIN_SHORT
fbad-fat32-dircycle|4|FAT_CROSS_LINK FAT_LOST_CLUSTERS FAT_LOST_DIRECTORY
fbad-fat32-fsinfo|0|FAT32_FSINFO_FREE_COUNT FAT32_FSINFO_NEXT_FREE
fbad-fat32-rootloop|4|FAT_CHAIN_LOOP
fbad-fat16-range|4|FAT_CHAIN_RANGE FAT_LOST_CLUSTERS
fbad-fat16-long|4|FAT_CHAIN_LONG
fbad-fat16-dotmissing|4|FAT_DOT_MISSING
fbad-fat16-unusual|0|FAT_SHORT_NAME_UNUSUAL
fbad-fat16-lfnsum|4|FAT_LFN_CHECKSUM
fbad-fat16-utf16|0|FAT_LFN_UTF16
fbad-fat16-nocluster|4|FAT_DIR_NO_CLUSTER FAT_LOST_CLUSTERS FAT_LOST_DIRECTORY
fbad-fat16-lostdir|0|FAT_LOST_CLUSTERS FAT_LOST_DIRECTORY
fbad-fat32-lostdir|0|FAT_LOST_CLUSTERS FAT_LOST_DIRECTORY
fbad-fat16-labelmismatch|0|FAT_LABEL_MISMATCH
fbad-fat16-attrs|4|FAT_ATTRIBUTES
fbad-fat16-dates|0|FAT_TIMESTAMP
fbad-fat32-bootrestore|4|FAT32_BACKUP_DIFFERS FAT32_FSVER FAT32_ROOT_CLUSTER FAT_LOST_CLUSTERS
fbad-fat32-fsinfosig|0|FAT32_FSINFO_SIGNATURE
fbad-fat16-cutfat|4|FAT_FAT_UNREADABLE FAT_VOLUME_BEYOND_DEVICE
fbad-fat16-cutroot|4|FAT_DIR_UNREADABLE FAT_VOLUME_BEYOND_DEVICE
fbad-fat32-boot0|4|FAT32_MAIN_BOOT_LOST'

have_fsck_fat=0
command -v fsck.fat > /dev/null && have_fsck_fat=1
[ "$have_fsck_fat" = 1 ] || echo "fsck.fat (dosfstools) not installed: the cross-check is skipped"
# ids_of TRANSCRIPT: the IDs of its finding lines, sorted, in one line (in the shell: no process)
ids_of() {
	local line ids=() i j t
	while IFS= read -r line; do
		[[ $line =~ ^(error|warning|info|fatal)\ *([A-Z0-9_]*): ]] && ids+=("${BASH_REMATCH[2]}")
	done <<< "$1"
	for ((i = 1; i < ${#ids[@]}; i++)); do	# (a handful: insertion sort, byte order as LC_ALL=C)
		t=${ids[i]}
		for ((j = i - 1; j >= 0; j--)); do
			[[ ${ids[j]} > $t ]] || break
			ids[j + 1]=${ids[j]}
		done
		ids[j + 1]=$t
	done
	echo "${ids[*]}"
}

printf '%-22s %-10s %s\n' "fixture" "fsck.fat" "fatscope"
seen=0 names=()
cd "$WORK/img" || hard_error "no $WORK/img"	# (read-only checks: the fixtures themselves)
while IFS='|' read -r name want_rc want_ids; do
	has_fixture "$name" || { bad "$name: fixture missing"; continue; }
	seen=$((seen + 1)) names+=("$name")
	out=$("$FATSCOPE" fsck -n "$name.img" 2>&1); rc=$?
	check_ids="$rc $(ids_of "$out")"
	[ "$check_ids" = "$want_rc $want_ids" ] && ok || bad "$name: got '$check_ids', want '$want_rc $want_ids'"
	golden "$name" "$EXPECTED/fat-check/$name.txt" "$out"
	if [ "$have_fsck_fat" = 1 ]; then
		fsck.fat -n "$name.img" > /dev/null 2>&1; frc=$?
		printf '%-22s exit %-5s %s\n' "$name" "$frc" "exit $rc: $want_ids"
		if [ "$frc" != 0 ] && [ -z "$(ids_of "$out")" ]; then
			bad "$name: fsck.fat -n calls it damaged (exit $frc), fatscope reports nothing"
		else
			ok
		fi
	fi
done <<< "$cases"
unchanged "${names[@]}"
cd "$SCRATCH" || hard_error "no $SCRATCH"
[ "$seen" -eq 37 ] && ok || bad "only $seen of the 37 FAT fixtures checked"

# The populated fixtures are clean.
for name in pop-fat12 pop-fat16 pop-fat32 fat12 fat16 fat32; do
	out=$("$FATSCOPE" fsck -n "$WORK/img/$name.img" 2>&1); rc=$?
	[ "$rc $(ids_of "$out")" = "0 " ] && ok || bad "$name: not clean: exit $rc: $(ids_of "$out")"
done

# --codepage: 8.3 bytes 0x80-0xFF read in 850 (the default, as mtools wrote them) or 437.
tree850=$("$FATSCOPE" dump --tree "$WORK/img/pop-fat16.img" 2>&1)
tree437=$("$FATSCOPE" dump --tree --codepage 437 "$WORK/img/pop-fat16.img" 2>&1)
# (LC_ALL=C: the UTF-8 of Õ and σ is shown escaped)
grep -qF '\xc3\x95LAF.TXT' <<< "$tree850" && ok || bad "code page 850: no ÕLAF.TXT in the tree"
grep -qF '\xcf\x83LAF.TXT' <<< "$tree437" && ok || bad "code page 437: no σLAF.TXT in the tree"
out=$("$FATSCOPE" fsck -n --codepage 437 "$WORK/img/pop-fat16.img" 2>&1); rc=$?
[ "$rc $(ids_of "$out")" = "0 " ] && ok || bad "--codepage 437: pop-fat16 not clean: $rc $(ids_of "$out")"
"$FATSCOPE" fsck -n --codepage 1252 "$WORK/img/pop-fat16.img" > /dev/null 2>&1; rc=$?
[ "$rc" = 16 ] && ok || bad "--codepage 1252: exit $rc, want 16"

# Volumes fresh from mkfs.fat, and after mtools wrote files: clean to both checkers.
fresh() {	# fresh SIZE-KIB MKFS-OPTIONS...
	local kib=$1 out rc what
	shift
	what="mkfs.fat $* ($kib KiB)"
	rm -f v.img
	if ! mkfs.fat -C "$@" v.img "$kib" > mkfs.log 2>&1; then
		bad "$what: mkfs.fat failed: $(tail -1 mkfs.log)"
		return
	fi
	if [ "${no_mtools:-0}" = 0 ] && command -v mcopy > /dev/null; then
		printf 'hello\n' > small.txt
		head -c 70000 /dev/zero | tr '\0' 'x' > big.txt
		MTOOLS_SKIP_CHECK=1 mmd -i v.img ::/A\ long\ directory\ name &&
		MTOOLS_SKIP_CHECK=1 mcopy -i v.img small.txt ::/UPPER.TXT &&
		MTOOLS_SKIP_CHECK=1 mcopy -i v.img big.txt "::/A long directory name/a rather long file name.txt" ||
			{ bad "$what: mtools failed"; return; }
	fi
	out=$("$FATSCOPE" fsck -n v.img 2>&1); rc=$?
	if [ "$rc" != 0 ] || grep -Eq '^(error|fatal|warning) ' <<< "$out"; then
		bad "$what: fatscope: exit $rc: $(tr '\n' '|' <<< "$out")"
	else
		ok
	fi
	if [ "$have_fsck_fat" = 1 ] && ! fsck.fat -n v.img > /dev/null 2>&1; then
		bad "$what: fsck.fat -n calls the fresh volume damaged (the test's premise is wrong)"
	fi
}
if command -v mkfs.fat > /dev/null; then
	fresh 1440 -F 12
	fresh 8192 -F 12 -s 8
	fresh 16384 -F 16
	fresh 65536 -F 16 -s 4 -n FRESHVOL
	fresh 40000 -F 32
	fresh 300000 -F 32 -s 8 -n "FRESH 32"
	no_mtools=1 fresh 300000 -F 32 -S 4096 -s 1	# (mtools cannot write 4 KiB-sector volumes)
else
	echo "mkfs.fat (dosfstools) not installed: the fresh-volume sweep is skipped"
fi
finish
