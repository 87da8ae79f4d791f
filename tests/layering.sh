#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# layering.sh - hold libexfat to its architecture (DESIGN.md, "folders that
# show the layers"):
#   1. includes: a file in libexfat/L/ includes only headers of L or of the
#      folders before L in the order below (public headers always), and
#      exfat/ and fat/ never include each other;
#   2. calls: every library symbol an object file uses is defined in its own
#      folder or a folder before it (nm on the built objects), with the same
#      exfat/fat rule;
#   3. no cycle between files: the "calls" graph between object files has no
#      strongly connected component of more than one file;
#   4. size: no function over 80 lines, no file over 800 lines, in libexfat/
#      and cmd/.
#
# Environment: top_srcdir, top_builddir (automake sets both).  Exit status:
# 0 pass, 1 a rule broken (each one listed), 99 cannot run (no nm, no objects).
set -u
export LC_ALL=C

order=(base io write report layout exfat fat probe drivers vol check repair edit)
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
bld=${top_builddir:-$src}
lib=$src/libexfat
fails=0 checks=0

fail() { printf 'layering: %s\n' "$*"; fails=$((fails + 1)); }

rank() { # folder -> index in order, or -1
	local i
	for i in "${!order[@]}"; do
		[[ ${order[$i]} == "$1" ]] && { echo "$i"; return; }
	done
	echo -1
}

# May code in folder $1 use folder $2?
allowed() {
	local a=$1 b=$2 ra rb
	[[ $a == "$b" ]] && return 0
	[[ ($a == exfat && $b == fat) || ($a == fat && $b == exfat) ]] && return 1
	ra=$(rank "$a"); rb=$(rank "$b")
	(( ra >= 0 && rb >= 0 && rb <= ra ))
}

command -v nm > /dev/null || { echo "layering: nm not found (binutils)"; exit 99; }

# ---- 1. includes
for f in "$lib"/*/*.[ch]; do
	dir=${f#"$lib"/}; dir=${dir%%/*}
	[[ $dir == include ]] && continue
	[[ $(rank "$dir") -ge 0 ]] || { fail "$dir/: a folder that is not in the layer order"; continue; }
	while IFS= read -r inc; do
		checks=$((checks + 1))
		to=${inc%%/*}
		[[ $inc == */* ]] || { fail "${f#"$src"/}: includes \"$inc\" without its folder"; continue; }
		[[ $to == fatscope ]] && continue
		allowed "$dir" "$to" || fail "${f#"$src"/}: includes $inc (layer $dir may not use $to)"
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | grep -v '^config\.h$')
done

# ---- 2. and 3. calls between object files
declare -A def_file def_dir
mapfile -t objs < <(find "$bld/libexfat" -mindepth 3 -maxdepth 3 -path '*/.libs/*.o' | sort)
(( ${#objs[@]} > 0 )) || { echo "layering: no library objects under $bld/libexfat (build first)"; exit 99; }
objname() { # libexfat/check/.libs/libfatscope_la-exfat_tree.o -> check/exfat_tree
	local o=${1#"$bld/libexfat/"} d
	d=${o%%/*}
	o=${o##*/}; o=${o#libfatscope_la-}; o=${o%.o}
	echo "$d/$o"
}
for o in "${objs[@]}"; do
	n=$(objname "$o")
	while read -r sym; do
		def_file[$sym]=$n
		def_dir[$sym]=${n%%/*}
	done < <(nm --defined-only "$o" | awk '$2 ~ /^[TDRB]$/ { print $3 }')
done
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for o in "${objs[@]}"; do
	n=$(objname "$o"); d=${n%%/*}
	while read -r sym; do
		[[ -n ${def_file[$sym]:-} ]] || continue
		checks=$((checks + 1))
		allowed "$d" "${def_dir[$sym]}" ||
			fail "$n calls $sym in ${def_file[$sym]} (layer $d may not use ${def_dir[$sym]})"
		[[ ${def_file[$sym]} != "$n" ]] && printf '%s %s\n' "$n" "${def_file[$sym]}" >> "$edges"
	done < <(nm --undefined-only "$o" | awk '{ print $2 }')
done
# Strongly connected components by repeated reachability (the graph is small).
cycles=$(sort -u "$edges" | awk '
	{ adj[$1] = adj[$1] " " $2; node[$1]; node[$2] }
	function reach(a, b,    seen, stack, top, x, i, n, parts) {
		delete seen; top = 0; stack[++top] = a
		while (top) {
			x = stack[top--]
			n = split(adj[x], parts, " ")
			for (i = 1; i <= n; i++) {
				if (parts[i] == b) return 1
				if (!(parts[i] in seen)) { seen[parts[i]]; stack[++top] = parts[i] }
			}
		}
		return 0
	}
	END {
		for (a in node) for (b in node)
			if (a < b && reach(a, b) && reach(b, a)) print a " <-> " b
	}' | sort)
if [[ -n $cycles ]]; then
	while IFS= read -r c; do fail "cycle: $c"; done <<< "$cycles"
fi

# ---- 4. sizes
for f in "$lib"/*/*.c "$lib"/*/*.h "$src"/cmd/*.c "$src"/cmd/*.h; do
	checks=$((checks + 1))
	lines=$(wc -l < "$f")
	(( lines <= 800 )) || fail "${f#"$src"/}: $lines lines (at most 800)"
	while IFS= read -r over; do fail "${f#"$src"/}: $over"; done < <(awk '
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^(static )?(const )?(struct|enum|union) [a-z_]+ *\{/ { name = $0; start = NR; next }
		/^}/ && start { if (NR - start > 80) printf "function of %d lines: %s\n", NR - start, name; start = 0 }' "$f")
done

if (( checks == 0 )); then
	echo "layering: nothing was checked"
	exit 99
fi
if (( fails )); then
	echo "layering: $fails rule(s) broken in $checks checks"
	exit 1
fi
echo "layering: $checks checks passed (${#objs[@]} objects, order: ${order[*]})"
