#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkfs-clean.sh - a volume straight from mkfs.exfat checks clean: fatscope
# fsck -n exits 0 and reports no error, over the sizes and cluster sizes
# users format (1 MiB with 4 KiB to 128 KiB clusters, 64 MiB with the
# default, 1 GiB with 32 MiB clusters, with a label).  Warnings (mkfs.exfat
# leaves PercentInUse 0) are allowed and must be counted as warnings;
# fsck.exfat must agree that each volume is clean.
. "$(dirname "$0")/lib.sh"

command -v mkfs.exfat > /dev/null || skip "mkfs.exfat (exfatprogs) not installed"
cd "$SCRATCH" || hard_error "no $SCRATCH"

# fresh SIZE MKFS-OPTIONS...: format a new sparse image, then check it.
fresh() {
	local size=$1 out rc what
	shift
	what="$size mkfs.exfat $*"
	rm -f v.img
	truncate -s "$size" v.img
	if ! mkfs.exfat "$@" v.img > mkfs.log 2>&1; then
		bad "$what: mkfs.exfat failed: $(tail -1 mkfs.log)"
		return
	fi
	out=$("$FATSCOPE" fsck -n v.img 2>&1); rc=$?
	if [ "$rc" != 0 ]; then
		bad "$what: fatscope fsck -n exit $rc: $(tr '\n' '|' <<< "$out")"
	elif grep -Eq '^(error|fatal) ' <<< "$out"; then
		bad "$what: exit 0 but an error is reported: $(grep -E '^(error|fatal) ' <<< "$out" | head -1)"
	elif ! grep -Eq '^v\.img: 0 files, 0 directories, [0-9]+/[0-9]+ clusters used' <<< "$out"; then
		bad "$what: no summary line: $(tr '\n' '|' <<< "$out")"
	else
		ok
	fi
	if command -v fsck.exfat > /dev/null && ! fsck.exfat -n v.img > /dev/null 2>&1; then
		bad "$what: fsck.exfat -n calls the fresh volume corrupt (the test's premise is wrong)"
	fi
}

for c in 4K 16K 64K 128K; do
	fresh 1M -b 4K -c "$c"
done
fresh 64M
fresh 64M -L "FRESH VOL"
fresh 1G -c 32M
finish
