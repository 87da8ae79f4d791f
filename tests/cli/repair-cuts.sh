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
# Cheap in processes (each costs ~15 ms here): the copies the j-th cuts of
# all the fixtures start from made by two cp (u$j/ cut then undone, r$j/
# cut again then repaired: the undone image, the fixture's bytes, shows
# that r$j/'s cut starts from the bytes the undo gave back), and every
# image compared by one python3 at the end (differing_pairs, lib.sh: only what
# is not a hole is read).
. "$(dirname "$0")/lib.sh"

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in every run
cd "$SCRATCH" || hard_error "no $SCRATCH"


fixtures=0 cuts=0 skipped=0
# cut_points N: the k to cut before, in POINTS.
cut_points() {
	local k
	POINTS=()
	if long_tests || [ "$1" -le 3 ]; then
		for ((k = 0; k < $1; k++)); do POINTS+=("$k"); done
	else
		POINTS=(0 $(($1 / 2)) $(($1 - 1)))
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
left=() names=()
for name in $(fixture_names); do
	case "$name" in bad-*|exfat-*) ;; *) continue ;; esac
	representative "$name" && names+=("$name") || left+=("$name")
done
[ "${#names[@]}" -gt 0 ] || hard_error "no fixture to cut"
mkdir ref || hard_error "cannot make $SCRATCH/ref"
srcs=("${names[@]/#/$WORK/img/}")
cp "${srcs[@]/%/.img}" ref/ || hard_error "cannot copy the fixtures to $SCRATCH/ref"
# The uncut repairs, in ref/: their count of writes.
cd ref || hard_error "no $SCRATCH/ref"
declare -A CUTS=()
cut=() most=0
for name in "${names[@]}"; do
	"$FATSCOPE" fsck -y "$name.img" > ../out.txt 2>&1; rc=$?
	[ $((rc & 1)) = 1 ] || continue	# nothing written
	n=
	while IFS= read -r line; do
		[[ $line =~ ^"$name.img: ".*" fixed, "([0-9]*)" change"s?" written" ]] && n=${BASH_REMATCH[1]}
	done < ../out.txt
	[ -n "$n" ] || { bad "$name: no count of changes in: $(tail -3 ../out.txt)"; continue; }
	fixtures=$((fixtures + 1))
	cut_points "$n"
	CUTS[$name]="${POINTS[*]}"
	cut+=("$name")
	[ "${#POINTS[@]}" -le "$most" ] || most=${#POINTS[@]}
	skipped=$((skipped + n - ${#POINTS[@]}))
done
cd .. || hard_error "no $SCRATCH"
# The j-th cut of each fixture: u$j/NAME.img cut then undone, r$j/NAME.img
# cut then repaired; two cp a j.
for ((j = 0; j < most; j++)); do
	these=()
	for name in "${cut[@]}"; do
		points=(${CUTS[$name]})
		[ "$j" -lt "${#points[@]}" ] && these+=("$WORK/img/$name.img")
	done
	mkdir "u$j" "r$j" || hard_error "cannot make directories in $SCRATCH"
	cp "${these[@]}" "u$j/" && cp "${these[@]}" "r$j/" || hard_error "cannot copy the fixtures to $SCRATCH"
done
declare -A CACHE=() AFTER=()
pairs=() order=()
for name in "${cut[@]}"; do
	points=(${CUTS[$name]})
	for ((j = 0; j < ${#points[@]}; j++)); do
		k=${points[j]}
		export FATSCOPE_TEST_CUT_CACHE=$((j % 2))
		undo=u$j/$name.undo
		FATSCOPE_TEST_CUT_WRITE=$k "$FATSCOPE" fsck -y --undo "$undo" "u$j/$name.img" > /dev/null 2>&1; rc=$?
		[ "$rc" = 8 ] || { bad "$name: cut before write $k: exit $rc, want 8"; continue; }
		cuts=$((cuts + 1))
		"$FATSCOPE" undo "$undo" "u$j/$name.img" > /dev/null 2>&1
		# (the same cut again, on the fixture's bytes as the undo gave them back: compared below)
		FATSCOPE_TEST_CUT_WRITE=$k "$FATSCOPE" fsck -y "r$j/$name.img" > /dev/null 2>&1
		"$FATSCOPE" fsck -y "r$j/$name.img" > /dev/null 2>&1
		AFTER[$name.$j]=$?	# (the repair's exit status, looked at once the undo is known good)
		CACHE[$name.$j]=$FATSCOPE_TEST_CUT_CACHE
		order+=("$name.$j")
		pairs+=("$WORK/img/$name.img" "u$j/$name.img" "ref/$name.img" "r$j/$name.img")
	done
done
# Every comparison in one process: undone images with the fixtures, cut and
# repaired ones with the uncut repairs.
declare -A differs=()
if [ "${#pairs[@]}" -gt 0 ]; then
	differing_pairs "${pairs[@]}" > differ.txt; rc=$?
	[ "$rc" = 0 ] || bad "the comparison of the images failed: exit $rc"
	while IFS= read -r line; do
		differs[$line]=1
	done < differ.txt
fi
for key in "${order[@]}"; do
	name=${key%.*} j=${key##*.}
	points=(${CUTS[$name]})
	k=${points[j]}
	rc=${AFTER[$key]}
	if [ -n "${differs[u$j/$name.img]:-}" ]; then
		bad "$name: cut before write $k: undo does not restore"
	elif [ "$rc" -lt 8 ] && [ -z "${differs[r$j/$name.img]:-}" ]; then
		ok
	else
		bad "$name: cut before write $k (cache lost: ${CACHE[$key]}): the repair after it exits $rc and differs from an uncut one at byte $(cmp "r$j/$name.img" "ref/$name.img" | sed -n 's/.*byte \([0-9]*\).*/\1/p')"
	fi
done
[ "$fixtures" -ge $(( ${#left[@]} ? 15 : 20 )) ] || bad "only $fixtures fixtures were repaired"
echo "repair-cuts: $cuts cuts over $fixtures fixtures"
[ "$skipped" -eq 0 ] || echo "$skipped more cuts with FATSCOPE_LONG_TESTS=1"
[ "${#left[@]}" = 0 ] || echo "not cut without FATSCOPE_LONG_TESTS=1: ${#left[@]} fixtures (${left[*]})"
finish
