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
#      and cmd/;
#   5. no unsynchronised state: the library's writable statics are only
#      the two listed below, each made thread-safe (objdump on the objects).
#   6. named on-disk offsets: outside exfat/, fat/ (which name every field
#      in their ondisk.h), io/ (container headers), report/fields.c (the
#      field tables) and base/bytes.h (the readers), no get_le16/32/64( or
#      put_le16/32/64( call takes an offset that is a numeric literal or
#      adds one ("32 + 24", "2 + 2 * i", "len - 4"); a factor ("2 * i") is
#      an index.  A line may say why it needs one with "ondisk: REASON" in a
#      comment (none does today).
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

# folder -> index in order (a lookup in the shell: the checks number thousands)
declare -A rank_of=()
for i in "${!order[@]}"; do rank_of[${order[$i]}]=$i; done
rank() { echo "${rank_of[$1]:--1}"; }

# May code in folder $1 use folder $2?
allowed() {
	local a=$1 b=$2
	[[ $a == "$b" ]] && return 0
	[[ ($a == exfat && $b == fat) || ($a == fat && $b == exfat) ]] && return 1
	(( ${rank_of[$a]:--1} >= 0 && ${rank_of[$b]:--1} >= 0 && ${rank_of[$b]:--1} <= ${rank_of[$a]:--1} ))
}

command -v nm > /dev/null || { echo "layering: nm not found (binutils)"; exit 99; }

# ---- 1. includes (one awk reads every file: "FILE INCLUDE" lines)
declare -A bad_dir=()
while read -r f inc; do
	dir=${f#"$lib"/}; dir=${dir%%/*}
	[[ $dir == include ]] && continue
	if [[ -z ${rank_of[$dir]:-} ]]; then
		[[ -n ${bad_dir[$dir]:-} ]] || fail "$dir/: a folder that is not in the layer order"
		bad_dir[$dir]=1
		continue
	fi
	[[ $inc == - ]] && continue	# (a file with no include)
	checks=$((checks + 1))
	to=${inc%%/*}
	[[ $inc == */* ]] || { fail "${f#"$src"/}: includes \"$inc\" without its folder"; continue; }
	[[ $to == fatscope ]] && continue
	allowed "$dir" "$to" || fail "${f#"$src"/}: includes $inc (layer $dir may not use $to)"
done < <(awk 'FNR == 1 { print FILENAME, "-" }
	/^#include "/ { inc = $2; gsub(/"/, "", inc); if (inc != "config.h") print FILENAME, inc }' "$lib"/*/*.[ch])

# ---- 2. and 3. calls between object files
declare -A def_file def_dir
mapfile -t objs < <(find "$bld/libexfat" -mindepth 3 -maxdepth 3 -path '*/.libs/*.o' | sort)
(( ${#objs[@]} > 0 )) || { echo "layering: no library objects under $bld/libexfat (build first)"; exit 99; }
# (one nm for all the objects, "OBJECT: ... TYPE SYMBOL" lines: the object's name in the shell)
declare -A name_of=()
for o in "${objs[@]}"; do
	n=${o#"$bld/libexfat/"}
	d=${n%%/*} n=${n##*/}
	n=${n#libfatscope_core_la-}
	name_of[$o]=$d/${n%.o}
done
while read -r o t sym; do
	n=${name_of[$o]}
	def_file[$sym]=$n
	def_dir[$sym]=${n%%/*}
done < <(nm -A --defined-only "${objs[@]}" | awk '$2 ~ /^[TDRB]$/ { f = $1; sub(/:[^:]*$/, "", f); print f, $2, $3 }')
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while read -r o sym; do
	n=${name_of[$o]} d=${n%%/*}
	[[ -n ${def_file[$sym]:-} ]] || continue
	checks=$((checks + 1))
	allowed "$d" "${def_dir[$sym]}" ||
		fail "$n calls $sym in ${def_file[$sym]} (layer $d may not use ${def_dir[$sym]})"
	[[ ${def_file[$sym]} != "$n" ]] && printf '%s %s\n' "$n" "${def_file[$sym]}" >> "$edges"
done < <(nm -A --undefined-only "${objs[@]}" | awk '{ f = $1; sub(/:$/, "", f); print f, $NF }')
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

# ---- 4. sizes (one awk over every file)
while IFS= read -r over; do
	checks=$((checks + 1))
	[[ $over == ok ]] || fail "${over#"$src"/}"
done < <(awk '
	function done_file() { if (file != "") { if (lines > 800) printf "%s: %d lines (at most 800)\n", file, lines; else print "ok" } }
	FNR == 1 { done_file(); file = FILENAME; start = 0 }
	{ lines = FNR }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^(static )?(const )?(struct|enum|union) [a-z_]+ *\{/ { name = $0; start = FNR; next }
	/^}/ && start { if (FNR - start > 80) printf "%s: function of %d lines: %s\n", FILENAME, FNR - start, name; start = 0 }
	END { done_file() }' "$lib"/*/*.c "$lib"/*/*.h "$src"/cmd/*.c "$src"/cmd/*.h)

# ---- 5. no unsynchronised state: the library's writable statics (.data and
# .bss, not the read-only-after-relocation tables) are only these, each
# made safe for threads: nls.c's bound (a pthread_once_t), fat/dirent.c's
# oem (an atomic pointer), the container backends' api (the functions of
# their library, written once under api_once, a pthread_once_t: io/ewf.c,
# vhd.c, vmdk.c).  Thread-local buffers (.tbss) are not shared.
if command -v objdump > /dev/null; then
	while read -r sec sym; do
		checks=$((checks + 1))
		case $sym in
		bound|oem|api|api_once) ;;
		__odr_asan.*) ;;	# (ASan's one-definition-rule markers in a --enable-sanitizers build)
		*) fail "a writable static in the library: $sym ($sec): make it const, thread-local, atomic or once" ;;
		esac
	done < <(objdump -t "${objs[@]}" | awk '$3 == "O" && $4 ~ /^\.(data|bss)/ && $4 !~ /rel\.ro/ { print $4, $NF }')
else
	echo "layering: objdump not found: the library's writable statics are not looked at"
fi

# ---- 6. named on-disk offsets (one awk over the files: "FILE:LINE: text")
mapfile -t ondisk_files < <(cd "$lib" && ls ./*/*.[ch] | grep -vE '^\./(exfat|fat|io)/|^\./report/fields\.c$|^\./base/bytes\.h$')
checks=$((checks + ${#ondisk_files[@]}))
while IFS= read -r hit; do
	fail "${hit#./}  (name the offset: exfat/ondisk.h, fat/ondisk.h)"
done < <(cd "$lib" && awk '
	function strip(s) {	# nested parentheses out: only the terms of the offset itself count
		while (match(s, /\([^()]*\)/))
			s = substr(s, 1, RSTART - 1) "_" substr(s, RSTART + RLENGTH)
		return s
	}
	/ondisk: / { next }
	# a finding placed at a boot-sector byte, a plan edit at a number, an edit found by its offset
	/ADD\([A-Z0-9_]+, BYTE, [0-9]|plan_add\([a-z>-]+, [0-9]|->offset == [0-9]/ {
		sub(/^[ \t]+/, "")
		printf "libexfat/%s:%d: %s\n", substr(FILENAME, 3), FNR, $0
		next
	}
	{
		rest = $0
		while (match(rest, /(get|put)_le(16|32|64)\(/)) {
			rest = substr(rest, RSTART + RLENGTH)
			depth = 0; arg = 0; off = ""
			for (i = 1; i <= length(rest); i++) {	# the second argument, up to its comma
				c = substr(rest, i, 1)
				if (c == "(") depth++
				else if (c == ")") { if (depth == 0) break; depth-- }
				else if (c == "," && depth == 0) { if (++arg == 2) break; continue }
				if (arg == 1) off = off c
			}
			n = split(strip(off), term, /[-+]/)
			for (k = 1; k <= n; k++) {
				t = term[k]; gsub(/^[ \t]+|[ \t]+$/, "", t)
				if (t ~ /^(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$/) {
					sub(/^[ \t]+/, "")
					printf "libexfat/%s:%d: %s\n", substr(FILENAME, 3), FNR, $0
					next
				}
			}
		}
	}' "${ondisk_files[@]}")

if (( checks == 0 )); then
	echo "layering: nothing was checked"
	exit 99
fi
if (( fails )); then
	echo "layering: $fails rule(s) broken in $checks checks"
	exit 1
fi
echo "layering: $checks checks passed (${#objs[@]} objects, order: ${order[*]})"
