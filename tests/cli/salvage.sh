#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# salvage.sh - the random-damage salvage test (tests/salvage/salvage.c):
# seeded damage of several kinds on the populated exFAT and FAT fixtures,
# each damaged volume repaired as fsck -y repairs it, then: every sound
# file kept (same bytes, under its name or in FOUND.nnn), the volume clean
# by fatscope's check and by the peer's (fsck.exfat -n, fsck.fat -n and
# mdir -/ where installed), a second repair idle, the undo log giving the
# damaged volume back byte for byte.
#
# The default run damages some hundreds of volumes with a fixed seed; with
# FATSCOPE_LONG_TESTS=1 (CI) thousands more with other seeds, and the
# peers' own repair of the same damage, side by side; the long sets also
# damage the volumes with 4096-byte sectors (pop-4k, exFAT; pop-fat32-4k,
# FAT32 of 300 MiB), which the fast sets leave out.  Every failure found
# becomes a line of tests/salvage/regress.txt (IMAGE SEED INDEX), run
# every time (one harness process for the list: salvage --list).  Where
# The Sleuth Kit is installed, the files its tsk_recover reads in full are
# sound too (salvage --tsk: on the FAT32 set and every long set).  The
# real binary runs too, on a few volumes: fsck -y's exit
# status (1: nothing left) and image equal the library's, fsck -n writes
# nothing, undo restores.
. "$(dirname "$0")/lib.sh"
prepare_fixtures

salvage=$top_builddir/tests/salvage/salvage
# (linked -no-install: the program itself, no libtool wrapper script)
[ -x "$salvage" ] || hard_error "no salvage program at $salvage (make check builds it)"
cd "$SCRATCH" || hard_error "no $SCRATCH"

exfat=(pop-small pop-c512 pop-full pop-many)
fat=(pop-fat12 pop-fat16 pop-fat32)
sector4k=(pop-4k pop-fat32-4k)	# (the long sets only)
for n in "${exfat[@]}" "${fat[@]}" "${sector4k[@]}"; do
	has_fixture "$n" || hard_error "no fixture $n"
done

# run_set NAME [--damaged] [--known SEED] ARGS...: the harness, its summary kept; a failure is a
# failed check with its lines.  (--damaged: the run may have found no file readable in full, one
# volume whose damage left none; else a run that found no sound file checked nothing.  --known
# SEED: the volumes tests/salvage/known.txt lists for SEED may fail, and must: a known failure
# that passes is a failed check, so that the list is kept true.)
run_set() {
	local name=$1 want=sound seed= out rc failed k unknown
	shift
	if [ "$1" = --damaged ]; then want=damaged; shift; fi
	if [ "$1" = --known ]; then seed=$2; shift 2; fi
	out=$("$salvage" -w "$SCRATCH" "$@" 2>&1); rc=$?
	printf '%s\n' "$out" > "$SCRATCH/$name.txt"
	grep -E '^(family|exfat|fat) ' <<< "$out"
	grep '^salvage' <<< "$out"
	failed=$(sed -n 's/^FAIL \([a-z0-9-]*:[0-9]*\) .*/\1/p' <<< "$out" | sort -u)
	unknown=$failed
	if [ -n "$seed" ]; then
		while read -r k; do
			if grep -qx "$k" <<< "$failed"; then
				echo "salvage: $name: $k fails, as tests/salvage/known.txt says"
				unknown=$(grep -vx "$k" <<< "$unknown")
			elif grep -q "^${k%:*}\.img$\|/${k%:*}\.img$" <<< "$(printf '%s\n' "$@")"; then
				bad "$name: $k is in tests/salvage/known.txt but passes now: take it out"
			fi
		done < <(awk -v s="$seed" '$1 !~ /^#/ && $2 == s { print $1 ":" $3 }' "$top_srcdir/tests/salvage/known.txt")
	fi
	if [ -n "$unknown" ] || { [ "$rc" -ne 0 ] && [ -z "$failed" ]; }; then
		grep -E '^FAIL|^   ' <<< "$out" | head -40
		bad "$name: $(grep -c '^FAIL' <<< "$out") failures (exit $rc)"
	else
		check "$name: volumes were damaged${want/damaged/}${want/sound/ and sound files checked}" yes \
			"$(sed -n 's/^salvage-result volumes=\([0-9]*\) sound=\([0-9]*\) .*/\1 \2/p' <<< "$out" |
			   awk -v w="$want" '{ print ($1 > 0 && ($2 > 0 || w == "damaged")) ? "yes" : "no" }')"
	fi
}

img() { local n; for n in "$@"; do printf '%s\n' "$WORK/img/$n.img"; done; }

# The real binary on a few damaged volumes first (a stub fatscope fails here at once, before
# the library's sets): what the library does, fsck -y does.
# (each of these needs a repair: -n exits 4 on it)
for spec in pop-small:1 pop-small:9 pop-fat16:4 pop-fat16:9; do
	image=${spec%:*} index=${spec#*:}
	"$salvage" -w "$SCRATCH" -s 1 --one "$index" --keep "$SCRATCH/d.img" -q "$WORK/img/$image.img" > /dev/null
	cp d.img n.img
	"$FATSCOPE" fsck -n n.img > /dev/null 2>&1
	cmp -s d.img n.img && ok || bad "$spec: fsck -n wrote to the image"
	cp d.img y.img
	rm -f y.undo
	"$FATSCOPE" fsck -y --undo y.undo y.img > y.out 2>&1; rc=$?
	check "$spec: fsck -y exit (1: corrected, nothing left)" 1 "$rc"
	"$FATSCOPE" fsck -n y.img > /dev/null 2>&1
	check "$spec: fsck -n after -y" 0 $?
	"$FATSCOPE" fsck -y y.img > y2.out 2>&1
	check "$spec: a second fsck -y finds nothing" 0 $?
	"$FATSCOPE" undo y.undo y.img > /dev/null 2>&1
	cmp -s d.img y.img && ok || bad "$spec: undo did not give the damaged image back"
done
rm -f d.img n.img y.img y.undo y.out y2.out

# The Sleuth Kit as a second reader (salvage --tsk): what tsk_recover reads in full must be kept too;
# on the FAT32 set here, on every long set.
tsk=
if command -v tsk_recover > /dev/null; then tsk=--tsk; else echo "salvage: tsk_recover (sleuthkit) not installed: one reader only"; fi

# The fast set: every kind on every image, more volumes on the small ones.
run_set fast-exfat -s 1 -n 40 -q $(img pop-small pop-c512 pop-full)
run_set fast-exfat-many -s 1 -n 10 -q $(img pop-many)
run_set fast-fat -s 1 -n 40 -q $(img pop-fat12 pop-fat16)
run_set fast-fat32 -s 1 -n 12 $tsk -q $(img pop-fat32)
if [ -n "$tsk" ]; then
	out=$(< "$SCRATCH/fast-fat32.txt")
	[[ $out == *"salvage-result "*" tsk=yes"* ]] && ok || bad "fast-fat32: The Sleuth Kit did not read the volumes"
fi

# The failures found before, each by its seed: one run of the harness over the list.
regress=$top_srcdir/tests/salvage/regress.txt
run_set regress --damaged --list "$regress" --images "$WORK/img" -q
entries=0
while read -r image seed index; do
	case $image in ''|'#'*) ;; *) entries=$((entries + 1)) ;; esac
done < "$regress"
out=$(< "$SCRATCH/regress.txt")
[[ $out =~ salvage-result\ (volumes=[0-9]+) ]] || BASH_REMATCH=(- "(no result line)")
check "regress: every volume of tests/salvage/regress.txt damaged and checked" "volumes=$entries" "${BASH_REMATCH[1]}"

if long_tests; then
	for seed in 2 3; do
		run_set "long-exfat-$seed" --known "$seed" -s "$seed" -n 100 --peers $tsk -q $(img pop-small pop-c512 pop-full pop-4k)
		run_set "long-exfat-many-$seed" --known "$seed" -s "$seed" -n 20 --peers $tsk -q $(img pop-many)
		run_set "long-fat-$seed" --known "$seed" -s "$seed" -n 100 --peers $tsk -q $(img pop-fat12 pop-fat16)
		run_set "long-fat32-$seed" --known "$seed" -s "$seed" -n 30 --peers $tsk -q $(img pop-fat32)
		run_set "long-fat32-4k-$seed" --known "$seed" -s "$seed" -n 30 --peers $tsk -q $(img pop-fat32-4k)
	done
else
	echo "salvage: the long sets (2 seeds, 1,360 more volumes, the 4096-byte-sector images pop-4k and pop-fat32-4k, the peers' own repair beside) run with FATSCOPE_LONG_TESTS=1"
fi

rm -f d.img n.img y.img y.undo y.out y2.out ./*.peer.img ./*.undo
finish
