#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# repair-regress.sh - the repair's regression inputs (fuzz/corpus/
# regress-repair-*.bin, each once a hang or a repair that damaged the
# volume): fatscope fsck -y on a copy ends within 20 s, writes (bit 1 of
# its status) and has no operational error, and a second -y finds nothing
# more to write (its status has no bit 1).
. "$(dirname "$0")/lib.sh"

n=0
for f in "$top_srcdir"/fuzz/corpus/regress-repair-*.bin; do
	[ -f "$f" ] || hard_error "no regression inputs in $top_srcdir/fuzz/corpus"
	name=$(basename "$f" .bin)
	cp "$f" "$SCRATCH/r.img"
	timeout 20 "$FATSCOPE" fsck -y "$SCRATCH/r.img" > "$SCRATCH/first.txt" 2>&1; rc=$?
	if [ "$rc" -ge 8 ] || [ $((rc & 1)) = 0 ]; then
		bad "$name: fsck -y exits $rc (each input has something to repair): $(tail -1 "$SCRATCH/first.txt")"
		continue
	fi
	timeout 20 "$FATSCOPE" fsck -y "$SCRATCH/r.img" > "$SCRATCH/second.txt" 2>&1; rc2=$?
	if [ "$rc2" -ge 8 ] || [ $((rc2 & 1)) = 1 ]; then
		bad "$name: a second fsck -y exits $rc2 (the first: $rc): $(grep -m3 'fixed\|written' "$SCRATCH/second.txt" | tr '\n' '|')"
	else
		ok
	fi
	n=$((n + 1))
done
echo "$n regression inputs repaired twice"
finish
