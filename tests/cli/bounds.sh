#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bounds.sh - no input makes a command run long or take much memory: every
# fixture, the corrupted ones included (FAT loops, a directory cycle
# through the root, a directory that contains its parent, a boot region
# claiming 2^32 - 11 clusters on an 8 MiB image), through probe, fsck,
# dump --long --deleted and a dry-run label change, each under a time
# limit (FSC_BOUND_SECONDS, default 20) and, where GNU time is installed,
# a peak memory limit: the bound of fatscope(8) "Limits", 64 MiB plus two
# bits per cluster the image really holds (at most one cluster per 512
# bytes), or 256 MiB in a --enable-sanitizers build (ASan's shadow memory
# and quarantine); FSC_BOUND_KIB sets a fixed limit instead.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
secs=${FSC_BOUND_SECONDS:-20}
san=0
grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2> /dev/null && san=1
limit_kib() {	# limit_kib IMAGE
	local size
	if [ -n "${FSC_BOUND_KIB:-}" ]; then echo "$FSC_BOUND_KIB"; return; fi
	if [ "$san" = 1 ]; then echo 262144; return; fi
	size=$(stat -c %s "$1")
	echo $((65536 + (size / 512 * 2 / 8 + 1023) / 1024))
}
gnutime=
[ -x /usr/bin/time ] && gnutime=/usr/bin/time
[ -n "$gnutime" ] || echo "SKIP (memory part): GNU time not installed"
cd "$WORK/img"
worst=0
for name in $(fixture_names); do
	kib=$(limit_kib "$name.img")
	for args in "probe" "fsck -n" "dump -l -d -s" "label --dry-run -s 1234-5678"; do
		if [ -n "$gnutime" ]; then
			timeout "$secs" "$gnutime" -f '%M' -o "$WORK/rss" "$FATSCOPE" $args "$name.img" > /dev/null 2>&1
		else
			timeout "$secs" "$FATSCOPE" $args "$name.img" > /dev/null 2>&1
		fi
		rc=$?
		if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
			bad "$args $name.img: exit $rc (time limit ${secs}s, or a crash)"
			continue
		fi
		if [ -n "$gnutime" ]; then
			rss=$(tail -1 "$WORK/rss")
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
