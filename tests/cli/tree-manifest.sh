#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tree-manifest.sh - the tree fatscope dump walks on the populated exFAT
# fixtures is exactly what make-populated.sh wrote through exfat-fuse:
# every path, its type and size (tests/fixtures/*.manifest).
. "$(dirname "$0")/lib.sh"
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
prepare_fixtures
for m in "$top_srcdir"/tests/fixtures/*.manifest; do
	name=$(basename "$m" .manifest)
	want=$(grep -v '^#' "$m" | awk -F'\t' '{ print $1 "\t" $2 "\t" $3 }' | LC_ALL=C sort)
	got=$("$FATSCOPE" dump -J -t "$WORK/img/$name.img" |
		jq -r '.tree[] | select(.kind != "label" and (.deleted | not)) |
		       [.path, (if .kind == "directory" then "d" else "f" end),
			(if .kind == "directory" then "-" else (.size | tostring) end)] | @tsv' | LC_ALL=C sort)
	if [ "$got" = "$want" ]; then
		ok
		echo "$name: $(wc -l <<< "$got") entries match the manifest"
	else
		bad "$name: the walked tree differs from the manifest"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -20
	fi
done
finish
