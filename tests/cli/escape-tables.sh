#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# escape-tables.sh - disk bytes in libsmartcols tables are escaped once:
# an exFAT label starting with ESC shows as \x1bEMO (not \x5cx1bEMO, our
# escape escaped again) in probe -s, -r, -o and in scan's table; a FAT
# OEM name with ESC and a backslash shows as "\x1b\x5c..." in dump's
# field table; no byte below 0x20 but newline reaches stdout or stderr,
# in the C and in a UTF-8 locale.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
raw_free() {	# raw_free WHAT OUTPUT: no control byte but newline
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<< "$2"; then bad "$1: a control byte in: $2"; else ok; fi
}

cp "$WORK/img/exfat.img" esc.img
off=$("$FATSCOPE" dump -J -l esc.img | jq -r '.tree[] | select(.kind == "label") | .entry_offset')
patch_py set esc.img $((off + 2)) 1b00	# "DEMO" -> ESC "EMO"
cp "$WORK/img/fat16.img" oem.img
patch_py set oem.img 3 1b5c		# "mkfs.fat" -> ESC "\" "fs.fat"
for loc in C C.UTF-8; do
	export LC_ALL=$loc
	out=$("$FATSCOPE" probe -s esc.img 2>&1)
	raw_free "probe -s ($loc)" "$out"
	check "probe -s label ($loc)" '\x1bEMO' "$(awk 'NR == 2 { print $3 }' <<< "$out")"
	out=$("$FATSCOPE" probe -s -r esc.img 2>&1)
	raw_free "probe -s -r ($loc)" "$out"
	check "probe -s -r label ($loc)" '\x1bEMO' "$(awk 'NR == 2 { print $3 }' <<< "$out")"
	out=$("$FATSCOPE" probe -n -o LABEL esc.img 2>&1)
	raw_free "probe -o LABEL ($loc)" "$out"
	check "probe -o LABEL ($loc)" '\x1bEMO' "$out"
	out=$("$FATSCOPE" scan -n -o LABEL esc.img 2>&1)
	raw_free "scan ($loc)" "$out"
	check "scan label ($loc)" '\x1bEMO' "$(head -1 <<< "$out" | tr -d ' ')"
	out=$("$FATSCOPE" dump -b oem.img 2>&1)
	raw_free "dump -b ($loc)" "$out"
	check "dump OEM name ($loc)" '"\x1b\x5cfs.fat"' "$(awk '$3 == "BS_OEMName" { print $4 }' <<< "$out")"
done
export LC_ALL=C
check "the JSON label is the label" $'\x1bEMO' "$("$FATSCOPE" probe -J esc.img | jq -r '.volumes[0].label')"
finish
