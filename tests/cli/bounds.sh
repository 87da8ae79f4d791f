#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bounds.sh - no input makes a command run long or take much memory: every
# fixture, the corrupted ones included (FAT loops, a directory cycle
# through the root, a directory that contains its parent, a boot region
# claiming 2^32 - 11 clusters on an 8 MiB image), through probe, fsck,
# dump --long --deleted and a dry-run label change, each under a CPU time
# limit (FSC_BOUND_SECONDS, default 20) and, where GNU time is installed,
# a peak memory limit: the bound of fatscope(8) "Limits", 64 MiB plus two
# bits per cluster the image really holds (at most one cluster per 512
# bytes), or 256 MiB in a --enable-sanitizers build (ASan's shadow memory
# and quarantine); FSC_BOUND_KIB sets a fixed limit instead.  A run only
# counts when the command did its work: an exit status its man page
# documents for it, and a report on stdout or one "fatscope: IMAGE: ..."
# line on stderr.  Every fixture with FATSCOPE_LONG_TESTS=1; without it
# the ones that test the bounds most, and a plain volume of each type.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
secs=${FSC_BOUND_SECONDS:-20}
san=0
grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2> /dev/null && san=1
gnutime=
[ -x /usr/bin/time ] && gnutime=/usr/bin/time
[ -n "$gnutime" ] || echo "SKIP (memory part): GNU time not installed"
# answered ARGS NAME RC: the run ended the way fatscope-CMD(8) says it can,
# with its output in $SCRATCH/out and $SCRATCH/err (read in the shell).
answered() {
	local codes err=()
	case $1 in
	probe) codes="0 1 2" ;;
	fsck*) codes="0 4 8" ;;
	dump*) codes="0 2 4 8" ;;	# (4: a directory cycle, listed once)
	label*) codes="0 1 2 4 8" ;;
	esac
	case " $codes " in *" $3 "*) ;; *) return 1 ;; esac
	if [ "$3" = 0 ] || [ -s "$SCRATCH/out" ]; then
		[ -s "$SCRATCH/out" ]
	else
		mapfile -t err < "$SCRATCH/err"
		[ "${#err[@]}" = 1 ] && [[ ${err[0]} == "fatscope: $2.img: "* ]]
	fi
}

# Every fixture with FATSCOPE_LONG_TESTS=1; else those that test the bounds
# most (loops, cycles, a huge cluster count, truncated and cut images,
# cross-links, lost trees, the biggest images and clusters, disks, the
# non-volumes) and one plain volume of each type.
bounding() {
	case $1 in
	*loop*|*cycle*|*self*|*huge*|*trunc*|*cut*|*cross*|*lost*|*chains*|bad-root-missing|bad-unknown-critical) ;;
	pop-c32m|pop-many|pop-fat32|mbr-disk|gpt-disk|random|ntfs|blank|zero-sig|exfat|fat12|fat16|fat32) ;;
	*) long_tests ;;
	esac
}

cd "$WORK/img" || hard_error "no $WORK/img"
names=() left=()
for name in $(fixture_names); do
	if bounding "$name"; then names+=("$name"); else left+=("$name"); fi
done
[ "${#left[@]}" = 0 ] || echo "not run without FATSCOPE_LONG_TESTS=1: ${#left[@]} fixtures (${left[*]})"
# The memory limit: the bound of fatscope(8) "Limits", 64 MiB plus two bits
# per cluster the image really holds (at most one a 512 bytes).
declare -A size=()
while read -r name bytes; do size[${name%.img}]=$bytes; done < <(stat -c '%n %s' "${names[@]/%/.img}")
worst=0
for name in "${names[@]}"; do
	if [ -n "${FSC_BOUND_KIB:-}" ]; then kib=$FSC_BOUND_KIB
	elif [ "$san" = 1 ]; then kib=262144
	else kib=$((65536 + (${size[$name]} / 512 * 2 / 8 + 1023) / 1024)); fi
	for args in "probe" "fsck -n" "dump -l -d -s" "label --dry-run -s 1234-5678"; do
		# the time limit: CPU seconds (a subshell's ulimit: no timeout process a run)
		if [ -n "$gnutime" ]; then
			(ulimit -t "$secs"; exec "$gnutime" -f '%M' -o "$SCRATCH/rss" "$FATSCOPE" $args "$name.img") \
				> "$SCRATCH/out" 2> "$SCRATCH/err"
		else
			(ulimit -t "$secs"; exec "$FATSCOPE" $args "$name.img") > "$SCRATCH/out" 2> "$SCRATCH/err"
		fi
		rc=$?
		if [ "$rc" -ge 128 ]; then
			bad "$args $name.img: exit $rc (CPU time limit ${secs}s, or a crash)"
			continue
		fi
		if ! answered "$args" "$name" "$rc"; then
			bad "$args $name.img: exit $rc, output: $(cat "$SCRATCH/err" "$SCRATCH/out" | head -c 200 | head -3 | tr '\n' ' ')"
			continue
		fi
		if [ -n "$gnutime" ]; then
			mapfile -t rss < "$SCRATCH/rss"	# (its last line; a "Command exited" line may come first)
			rss=${rss[-1]}
			[ "$rss" -gt "$worst" ] && worst=$rss
			if [ "$rss" -gt "$kib" ]; then
				bad "$args $name.img: peak $rss KiB > $kib KiB"
				continue
			fi
		fi
		ok
	done
done
echo "largest peak: $worst KiB (limit: $( [ "$san" = 1 ] && echo "256 MiB, sanitizer build" || echo "64 MiB + 2 bits per cluster"))"
finish
