#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# repair-cuts.sh - a power cut at every write of the repair of every
# corrupt exFAT fixture (FATSCOPE_TEST_CUT_WRITE=k: the fault device cuts
# before the plan's k-th write; every other k also loses the writes since
# the last sync, as a volatile disk cache would): the cut repair exits 8,
# its undo log restores the fixture byte for byte, and a repair of the cut
# image gives the bytes of an uncut repair.  Every write of every repair
# with FATSCOPE_LONG_TESTS=1; otherwise, of a repair with more than three
# writes, the first, the middle and the last (and the cache lost at every
# other of those), which halves the runs, and of the repairs of one
# fixture of each kind (boot region, bitmap, up-case, chains, cross-links,
# directories, names, sets, lost clusters), 17 of 38.
. "$(dirname "$0")/lib.sh"

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in every run
cd "$SCRATCH" || hard_error "no $SCRATCH"
fixtures=0 cuts=0 skipped=0
# cut_points N: the k to cut before, one a line.
cut_points() {
	if long_tests || [ "$1" -le 3 ]; then
		seq 0 $(($1 - 1))
	else
		printf '%s\n' 0 $(($1 / 2)) $(($1 - 1))
	fi
}
representative() {
	case $1 in
	exfat-bad-checksum|exfat-backup-differs|exfat-dirty|exfat-upcase-bad|bad-boot-misc|bad-root-missing) ;;
	bad-bitmap-bits|bad-after-end|bad-chains|bad-cross-link|bad-dir-cycle|bad-fat-loop|bad-lost-clusters) ;;
	bad-names|bad-set-structure|bad-unknown-critical|bad-upcase) ;;
	*) long_tests ;;
	esac
}
left=()
for name in $(fixture_names); do
	case "$name" in bad-*|exfat-*) ;; *) continue ;; esac
	representative "$name" || { left+=("$name"); continue; }
	cp "$WORK/img/$name.img" ref.img
	out=$("$FATSCOPE" fsck -y ref.img 2>&1); rc=$?
	[ $((rc & 1)) = 1 ] || continue	# nothing written
	n=$(sed -n 's/^ref.img: .* fixed, \([0-9]*\) changes\{0,1\} written.*/\1/p' <<< "$out")
	[ -n "$n" ] || { bad "$name: no count of changes in: $(tail -3 <<< "$out")"; continue; }
	fixtures=$((fixtures + 1))
	i=0
	for k in $(cut_points "$n"); do
		export FATSCOPE_TEST_CUT_CACHE=$((i++ % 2))
		cp "$WORK/img/$name.img" cut.img
		undo=cut.$name.$k.undo	# (a new name each time: no rm a cut)
		FATSCOPE_TEST_CUT_WRITE=$k "$FATSCOPE" fsck -y --undo "$undo" cut.img > /dev/null 2>&1; rc=$?
		[ "$rc" = 8 ] || { bad "$name: cut before write $k: exit $rc, want 8"; continue; }
		"$FATSCOPE" undo "$undo" cut.img > /dev/null 2>&1
		cmp -s cut.img "$WORK/img/$name.img" || { bad "$name: cut before write $k: undo does not restore"; continue; }
		FATSCOPE_TEST_CUT_WRITE=$k "$FATSCOPE" fsck -y cut.img > /dev/null 2>&1
		"$FATSCOPE" fsck -y cut.img > /dev/null 2>&1; rc=$?
		if [ "$rc" -lt 8 ] && cmp -s cut.img ref.img; then
			ok
		else
			bad "$name: cut before write $k (cache lost: $FATSCOPE_TEST_CUT_CACHE): the repair after it exits $rc and differs from an uncut one at byte $(cmp cut.img ref.img | sed -n 's/.*byte \([0-9]*\).*/\1/p')"
		fi
		cuts=$((cuts + 1))
	done
	skipped=$((skipped + n - i))
done
[ "$fixtures" -ge $(( ${#left[@]} ? 15 : 20 )) ] || bad "only $fixtures fixtures were repaired"
echo "repair-cuts: $cuts cuts over $fixtures fixtures"
[ "$skipped" -eq 0 ] || echo "$skipped more cuts with FATSCOPE_LONG_TESTS=1"
[ "${#left[@]}" = 0 ] || echo "not cut without FATSCOPE_LONG_TESTS=1: ${#left[@]} fixtures (${left[*]})"
finish
