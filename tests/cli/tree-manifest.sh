#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tree-manifest.sh - the tree fatscope dump walks on the populated
# fixtures is exactly what make-populated.sh (exFAT, through exfat-fuse)
# and make-populated-fat.sh (FAT, through mtools) wrote: every path, its
# type and size (tests/fixtures/*.manifest).  The fixtures that have a
# manifest are listed here: a listed fixture or manifest that is missing,
# or a manifest not listed, fails.
. "$(dirname "$0")/lib.sh"
command -v jq > /dev/null || skip "jq not installed"
manifested="pop-fat12 pop-fat16 pop-fat32 pop-fat32-4k pop-many pop-small pop-4k"
prepare_fixtures
for m in "$top_srcdir"/tests/fixtures/*.manifest; do
	[ -f "$m" ] || continue		# none at all: each listed one fails below
	case " $manifested " in
	*" $(basename "$m" .manifest) "*) ;;
	*) bad "$m: a manifest this script does not list" ;;
	esac
done
for name in $manifested; do
	m="$top_srcdir/tests/fixtures/$name.manifest"
	img="$WORK/img/$name.img"
	if [ ! -f "$m" ]; then
		bad "$name: no manifest $m"
		continue
	fi
	if ! has_fixture "$name"; then
		bad "$name: no fixture $name.img.zst"
		continue
	fi
	want=$(grep -v '^#' "$m" | awk -F'\t' '{ print $1 "\t" $2 "\t" $3 }' | LC_ALL=C sort)
	if [ -z "$want" ]; then
		bad "$name: the manifest lists nothing"
		continue
	fi
	json=$("$FATSCOPE" dump -J -t "$img"); rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "$name: fatscope dump -J -t exit $rc"
		continue
	fi
	got=$(jq -r '.tree[] | select(.kind != "label" and (.deleted | not)) |
		     [.path, (if .kind == "directory" then "d" else "f" end),
		      (if .kind == "directory" then "-" else (.size | tostring) end)] | @tsv' <<< "$json" |
	      LC_ALL=C sort)
	if [ "$got" = "$want" ]; then
		ok
		echo "$name: $(wc -l <<< "$got") entries match the manifest"
	else
		bad "$name: the walked tree differs from the manifest"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -20
	fi
done
finish
