#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-cross.sh - where exfatprogs' fsck.exfat is installed: every exFAT
# fixture it calls corrupt, fatscope fsck calls corrupt too.  Prints each
# fixture where the two differ and which way; only "fsck.exfat finds
# something fatscope misses" fails.
. "$(dirname "$0")/lib.sh"

command -v fsck.exfat > /dev/null || { echo "SKIP: fsck.exfat not installed"; exit 77; }
echo "fsck.exfat from exfatprogs $(dpkg-query -W -f '${Version}' exfatprogs 2>/dev/null || echo "(version unknown)")"
prepare_fixtures
tmp="$WORK/cross"
mkdir -p "$tmp"
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	# fsck.exfat -n opens read-only; give it a copy all the same.
	cp --sparse=always "$WORK/img/$name.img" "$tmp/$name.img"
	peer=$(timeout 60 fsck.exfat -n "$tmp/$name.img" 2>&1); prc=$?
	ours=$("$FATSCOPE" fsck -n "$WORK/img/$name.img" 2>&1); orc=$?
	rm -f "$tmp/$name.img"
	if [ "$prc" -ne 0 ] && [ "$orc" -eq 0 ]; then
		bad "$name: fsck.exfat exit $prc ($(grep -v '^exfatprogs' <<< "$peer" | head -2 | tr '\n' ' ')), fatscope clean"
	elif [ "$prc" -eq 0 ] && [ "$orc" -ne 0 ]; then
		echo "differs: $name: fatscope exit $orc ($(grep -o '[A-Z0-9_]*: ' <<< "$ours" | tr -d ': ' | sort -u | tr '\n' ' ')), fsck.exfat clean"
		ok
	else
		ok
	fi
done
finish
