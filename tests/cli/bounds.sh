#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bounds.sh - no input makes a command run long or take much memory: every
# fixture, the corrupted ones included (FAT loops, a directory cycle
# through the root, a directory that contains its parent, a boot region
# claiming 2^32 - 11 clusters on an 8 MiB image), through probe, fsck,
# dump --long --deleted and a dry-run label change, each under a time
# limit (FSC_BOUND_SECONDS, default 20) and, where GNU time is installed,
# a peak memory limit (FSC_BOUND_KIB, default 262144: the documented
# bound is 64 MiB plus two bits per cluster the image really holds;
# the default leaves room for ASan).
. "$(dirname "$0")/lib.sh"
prepare_fixtures
secs=${FSC_BOUND_SECONDS:-20}
kib=${FSC_BOUND_KIB:-262144}
gnutime=
[ -x /usr/bin/time ] && gnutime=/usr/bin/time
[ -n "$gnutime" ] || echo "SKIP (memory part): GNU time not installed"
cd "$WORK/img"
worst=0
for name in $(fixture_names); do
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
echo "largest peak: $worst KiB"
finish
