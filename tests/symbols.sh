#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# symbols.sh - hold the shared library's exports to libexfat/libfatscope.sym
# (its comment says the rules):
#   1. every node is FATSCOPE_<major>.<minor> (in increasing order, none
#      newer than the package's version) or FATSCOPE_PRIVATE, and lists
#      its symbols by name: no wildcard but the first node's 'local: *';
#   2. a symbol is listed once, and each listed symbol is exported by the
#      built library under the node that lists it, and nothing else is;
#   3. every function the installed fatscope.h declares is in a release
#      node, and every one of the uninstalled fatscope-fault.h is in
#      FATSCOPE_PRIVATE (and not in the installed header).
#
# Environment: top_srcdir, top_builddir (automake sets them).  Exit
# status: 0 pass, 1 a rule is broken, 77 no shared library, 99 cannot run.
set -u
export LC_ALL=C

src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
bld=${top_builddir:-$src}
sym=$src/libexfat/libfatscope.sym
lib=$bld/libexfat/.libs/libfatscope.so
fails=0 checks=0

fail() { printf 'symbols: %s\n' "$*"; fails=$((fails + 1)); }
ok() { checks=$((checks + 1)); }

command -v nm > /dev/null || { echo "symbols: nm not found (binutils)"; exit 99; }
[ -r "$sym" ] || { echo "symbols: $sym not found"; exit 99; }
[ -r "$lib" ] || { echo "symbols: no shared library ($lib; --disable-shared?): nothing to check"; exit 77; }
version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([0-9]*\)\.\([0-9]*\).*/\1.\2/p' "$src/configure.ac")
[ -n "$version" ] || { echo "symbols: no version in configure.ac's AC_INIT"; exit 99; }

# "NODE SYMBOL" for each listed symbol, "NODE -" for each node (comments out).
listed=$(sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$sym" | awk '
	/^[A-Za-z0-9_.]+[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); print node, "-"; sect = ""; next }
	/^[ \t]*(global|local):/ { sect = $1; sub(/:.*/, "", sect); sub(/^[ \t]*/, "", sect); next }
	/^[ \t]*\}/ { node = ""; next }
	/;/ { s = $0; gsub(/[ \t;]/, "", s); if (s != "") print node, (sect == "local" ? "LOCAL:" : "") s }')

# 1. the nodes, their names and order; no wildcard
prev=
while read -r node s; do
	[ "$s" = - ] || continue
	ok
	if [ "$node" = FATSCOPE_PRIVATE ]; then
		continue
	elif [[ $node =~ ^FATSCOPE_([0-9]+)\.([0-9]+)$ ]]; then
		v="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
		if [ -n "$prev" ] && [ "$(printf '%s\n%s\n' "$prev" "$v" | sort -V | head -1)" != "$prev" -o "$prev" = "$v" ]; then
			fail "node $node comes after FATSCOPE_$prev: release nodes go in increasing order"
		fi
		if [ "$(printf '%s\n%s\n' "$v" "$version" | sort -V | tail -1)" != "$version" ]; then
			fail "node $node is newer than the package's version $version (configure.ac)"
		fi
		prev=$v
	else
		fail "node $node: not FATSCOPE_<major>.<minor> or FATSCOPE_PRIVATE"
	fi
done <<< "$listed"
while read -r node s; do
	case $s in
	-) ;;
	LOCAL:\*) ok ;;
	LOCAL:*) fail "$node: local symbol $s (only 'local: *' in the first node)" ;;
	*[*?[]*) fail "$node: wildcard '$s': list each symbol by name" ;;
	*) ok ;;
	esac
done <<< "$listed"

# 2. listed once; exported under its node; nothing exported unlisted
declare -A node_of=()
while read -r node s; do
	case $s in -|LOCAL:*) continue ;; esac
	if [ -n "${node_of[$s]:-}" ]; then
		fail "$s listed twice (${node_of[$s]} and $node)"
	fi
	node_of[$s]=$node
done <<< "$listed"
declare -A exported=()
while read -r name; do
	s=${name%%@*} node=${name##*@}
	[ "$s" = "$node" ] && continue		# the version definitions themselves
	exported[$s]=$node
	if [ -z "${node_of[$s]:-}" ]; then
		fail "$s is exported but not listed in libfatscope.sym"
	elif [ "${node_of[$s]}" != "$node" ]; then
		fail "$s is exported under $node, listed under ${node_of[$s]}"
	else
		ok
	fi
done < <(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRBVW]$/ { print $3 }' | sed 's/@@*/@/')
for s in "${!node_of[@]}"; do
	[ -n "${exported[$s]:-}" ] || fail "$s is listed under ${node_of[$s]} but the library does not define it"
done

# 3. the headers: the installed one's functions in release nodes, the fault header's private
decl() { grep -o '\bfsc_[a-z0-9_]*[ \t]*(' "$1" | sed 's/[ \t]*($//' | sort -u; }
pub=$(decl "$src/libexfat/include/fatscope/fatscope.h")
priv=$(decl "$src/libexfat/include/fatscope/fatscope-fault.h")
for s in $pub; do
	case ${node_of[$s]:-} in
	'') fail "fatscope.h declares $s, which libfatscope.sym does not list" ;;
	FATSCOPE_PRIVATE) fail "fatscope.h (installed) declares $s of FATSCOPE_PRIVATE" ;;
	*) ok ;;
	esac
done
for s in $priv; do
	[ "${node_of[$s]:-}" = FATSCOPE_PRIVATE ] && ok || fail "fatscope-fault.h's $s is not in FATSCOPE_PRIVATE"
done
for s in "${!node_of[@]}"; do
	[ "${node_of[$s]}" = FATSCOPE_PRIVATE ] || grep -qx "$s" <<< "$pub" ||
		fail "$s is exported under ${node_of[$s]} but fatscope.h does not declare it"
done

if [ "$fails" -gt 0 ]; then
	echo "symbols: $fails of $((checks + fails)) checks failed"
	exit 1
fi
echo "symbols: $checks checks passed (${#exported[@]} symbols, newest release node FATSCOPE_$prev, package $version)"
exit 0
