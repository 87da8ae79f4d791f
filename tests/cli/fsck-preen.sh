#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-preen.sh - what fsck -p reads (issue #13): each directory only up to
# its end-of-directory marker, rounded up to 4 KiB, so an entry in use
# further on is found by a full check (-n, -y) and not by -p, whose
# summary line says how many directories it read only so far; with strace
# installed, no read of -p covers that entry while -n reads it.  On an
# exFAT volume (pop-c32m: the entry at byte 8192 of /sub's 32 MiB cluster;
# the probe reads the root whole, as the drivers it models do) and a FAT16
# one (8 KiB clusters, the entry at byte 4096 of a subdirectory).
. "$(dirname "$0")/lib.sh"
cd "$SCRATCH" || hard_error "no $SCRATCH"
P=patch_py

ids_of() { sed -n 's/^\(.*: \)\?\(left  \|fixed \)\?\(error\|warning\|info\) *\([A-Z0-9_]*\):.*/\4/p' <<< "$1" | sort -u | tr '\n' ' '; }
have_strace=0
command -v strace > /dev/null && have_strace=1
[ "$have_strace" = 1 ] || echo "strace not installed: the reads themselves are not looked at"

# preads IMAGE ARGS... -> "offset length" of every pread64 of the image's descriptor
preads() {
	local img=$1
	shift
	strace -f -e trace=openat,pread64,preadv2 -o strace.log "$FATSCOPE" "$@" "$img" > /dev/null 2>&1
	# (threads: a call may be cut in two, "pread64(3, <unfinished ...>" and "<... pread64 resumed>buf, len, off) = n";
	# a first read tries the page cache alone: "preadv2(3, [{iov_base=..., iov_len=N}], 1, off, RWF_NOWAIT) = n")
	awk -v img="$img" '
		/openat\(/ && index($0, "\"" img "\"") { if (match($0, /= [0-9]+$/)) fd = substr($0, RSTART + 2) }
		/pread(64|v2)\(/ { s = $0; sub(/.*pread(64|v2)\(/, "", s); split(s, a, ","); callfd[$1] = a[1] }
		/pread64\(|pread64 resumed>/ { if (callfd[$1] == fd && fd != "" && match($0, /, [0-9]+, [0-9]+\) += [0-9]+/)) {
				split(substr($0, RSTART + 2), b, /[,)]/); print b[2] + 0, b[1] + 0 } }
		/preadv2\(|preadv2 resumed>/ { if (callfd[$1] == fd && fd != "" && match($0, /\], 1, [0-9]+, RWF_NOWAIT\) += [0-9]+/)) {
				split(substr($0, RSTART + 6), b, /[,)= ]+/); print b[1] + 0, b[3] + 0 } }' strace.log
}
covers() {	# covers OFFSET < "off len" lines: is a byte read?
	awk -v at="$1" '$1 <= at && at < $1 + $2 { hit = 1 } END { exit !hit }'
}

run_case() {	# run_case NAME IMAGE OFFSET ID: the entry in use at OFFSET, past the end marker
	local name=$1 img=$2 at=$3 id=$4 out rc
	out=$("$FATSCOPE" fsck -n "$img" 2>&1); rc=$?
	check "$name: -n finds the entry past the end marker" "4 $id " "$rc $(ids_of "$out")"
	[[ $(tail -n2 <<< "$out" | head -n1) != *"end marker only"* ]] && ok || bad "$name: -n says it read to the end marker only"
	cp "$img" preen.img
	out=$("$FATSCOPE" fsck -p -f preen.img 2>&1); rc=$?
	check "$name: -p -f does not look past the end marker" "0 " "$rc $(ids_of "$out")"
	grep -q '^preen.img: .* clusters used (.*), [1-9][0-9]* director\(y\|ies\) read to the end marker only$' <<< "$out" && ok ||
		bad "$name: -p's summary does not say it read to the end marker only: $out"
	cmp -s "$img" preen.img && ok || bad "$name: -p wrote to a volume it calls clean"
	out=$("$FATSCOPE" fsck -p -f -J preen.img 2>&1)
	grep -q '"dirs_to_end_marker": [1-9]' <<< "$out" && ok || bad "$name: -p -J lacks dirs_to_end_marker"
	out=$("$FATSCOPE" fsck -n -J "$img" 2>&1)
	grep -q '"dirs_to_end_marker"' <<< "$out" && bad "$name: -n -J has dirs_to_end_marker" || ok
	if [ "$have_strace" = 1 ]; then
		preads "$img" fsck -n > reads-n.txt
		preads "$img" fsck -p -f > reads-p.txt
		[ -s reads-n.txt ] && [ -s reads-p.txt ] && ok || bad "$name: strace saw no pread64 of the image"
		covers "$at" < reads-n.txt && ok || bad "$name: -n did not read byte $at"
		covers "$at" < reads-p.txt && bad "$name: -p read byte $at, past the end marker" || ok
		echo "$name: bytes read: -n $(awk '{ s += $2 } END { print s + 0 }' reads-n.txt)," \
			"-p $(awk '{ s += $2 } END { print s + 0 }' reads-p.txt)"
	fi
}

prepare_fixtures
if has_fixture pop-c32m; then
	cp --sparse=always "$WORK/img/pop-c32m.img" ex.img
	eval "$($P exfat-info ex.img)"
	sub=$("$FATSCOPE" dump -J -l ex.img | jq -r '.tree[] | select(.path == "/sub") | .first_cluster')
	at=$((HEAP_OFFSET * BPS + (sub - 2) * CLUSTER_SIZE + 8192))
	$P set ex.img "$at" 85	# a file entry's type byte, alone, 8 KiB into /sub's 32 MiB cluster
	run_case exfat ex.img "$at" EXFAT_AFTER_END
else
	echo "pop-c32m fixture missing: the exFAT case is skipped"
fi

if command -v mkfs.fat > /dev/null && command -v mmd > /dev/null; then
	rm -f fat.img
	mkfs.fat -C -F 16 -s 16 fat.img 65536 > /dev/null 2>&1 || hard_error "mkfs.fat failed"
	MTOOLS_SKIP_CHECK=1 mmd -i fat.img ::/SUB
	eval "$($P fat-info fat.img)"
	sub=$("$FATSCOPE" dump -J -l fat.img | jq -r '.tree[] | select(.path == "/SUB") | .first_cluster')
	at=$(((RSVD + NUMFATS * FATSZ + ROOTSECS) * BPS + (sub - 2) * SPC * BPS + 4096))
	$P set fat.img "$at" 414141414141414141414120	# "AAAAAAAA   " archive: a file entry past /SUB's end marker
	run_case fat16 fat.img "$at" FAT_AFTER_END
else
	echo "mkfs.fat or mtools not installed: the FAT case is skipped"
fi
[ "$passes" -gt 0 ] || skip "neither mkfs.exfat nor mkfs.fat is installed"
finish
