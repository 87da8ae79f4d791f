#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# chain-loops.sh - a chain that loops gives bounded output, a finding and a
# non-zero exit (issue 14, item 10): dump --path and --cluster list each
# cluster once, end with one "loop:" line naming where the loop closes,
# exit 4, and in JSON carry "loop" and a top-level "error"; the same
# listing on the healthy volume the loop was made from exits 0 with no
# loop.  ls, cat and extract on the loop fixtures stay bounded: cat and
# extract write the looping file's bytes up to the loop (the whole file
# here, as icat gives it), one line, exit 4; ls lists each entry once; two
# directories sharing clusters make ls -R, dump -t and extract say so
# and exit 4.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
img() { if [ -f "$1.img" ]; then echo "$1.img"; else echo "$WORK/img/$1.img"; fi; }

# looping FIXTURE ARGS CLUSTERS FROM TO: dump ARGS lists CLUSTERS clusters,
# each once, and says that FROM links back to TO.
looping() {
	local f=$1 args=$2 n=$3 from=$4 to=$5 out rc what
	what="$f dump $args"
	# shellcheck disable=SC2086
	out=$(timeout 20 "$FATSCOPE" dump $args "$(img "$f")" 2> err); rc=$?
	check "$what: exit" 4 "$rc"
	check "$what: stderr" "" "$(cat err)"
	# the header (2 lines), the chain's line, the table's heading, at most
	# one row a cluster, the count, the loop line and a blank line
	[ "$(wc -l <<< "$out")" -le $((n + 7)) ] && ok || bad "$what: $(wc -l <<< "$out") lines for $n clusters"
	check "$what: the loop line" "loop: cluster $from links back to cluster $to" \
		"$(grep '^loop:' <<< "$out" | sed 's/, number.*//')"
	check "$what: the count" "$n" "$(awk '/ clusters? in [0-9]+ runs?/ { print $1 }' <<< "$out")"
	check "$what: each cluster once" "" \
		"$(awk '/^FIRST/ { on = 1; next } on && NF == 3 { for (i = 0; i < $2; i++) print $1 + i }' <<< "$out" | sort -n | uniq -d)"
	# shellcheck disable=SC2086
	out=$(timeout 20 "$FATSCOPE" dump -J $args "$(img "$f")"); rc=$?
	check "$what -J: exit" 4 "$rc"
	check "$what -J: error, loop, clusters" "loop $from $to $n $n" \
		"$(jq -r '"\(.error) \(.extents.loop.from) \(.extents.loop.to) \(.extents.clusters) \([.extents.runs[].count] | add)"' <<< "$out")"
}
looping bad-fat-loop "--path /frag/interleaved-a.bin" 8 93 79	# closes right after the file's end
looping bad-fat-loop "--cluster 79" 8 93 79
looping fbad-fat16-loop "--path /frag/fragmented.bin" 20 118 91
looping fbad-fat16-loop "--cluster 108" 20 107 108		# from inside the loop: it closes at 108
looping fbad-fat32-rootloop "--path /" 2 150 2
looping fbad-fat32-rootloop "--cluster 2" 2 150 2

# a loop that comes back into the chain's middle (a "rho"): pop-fat16's
# fragmented.bin (91-94, 99-102, 107-118) with 118 -> 99 (closes right after
# the file's 20 clusters), then also 102 -> 92 (inside the file)
cp "$WORK/img/pop-fat16.img" rho.img
patch_py fat-set rho.img 118 99
looping rho "--path /frag/fragmented.bin" 20 118 99
patch_py fat-set rho.img 102 92
looping rho "--path /frag/fragmented.bin" 8 102 92
looping rho "--cluster 93" 7 92 93
out=$("$FATSCOPE" dump --path /frag/fragmented.bin rho.img)
check "rho: the loop's place" "loop: cluster 102 links back to cluster 92, number 2 of the chain; each cluster is listed once" \
	"$(grep '^loop:' <<< "$out")"

# the healthy volume the exFAT loop was made from: the same listing, whole
out=$("$FATSCOPE" dump --path /frag/interleaved-a.bin "$(img pop-small)"); rc=$?
check "pop-small dump --path: exit" 0 "$rc"
check "pop-small dump --path: no loop line" "" "$(grep '^loop:' <<< "$out")"
check "pop-small dump --path: the count" "8 clusters in 8 runs" "$(grep 'clusters in' <<< "$out")"
out=$("$FATSCOPE" dump -J --path /frag/interleaved-a.bin "$(img pop-small)"); rc=$?
check "pop-small dump -J --path: exit" 0 "$rc"
check "pop-small dump -J --path: no error, no loop" "false null null 8" \
	"$(jq -r '"\(has("error")) \(.extents.loop) \(.extents.broken) \(.extents.clusters)"' <<< "$out")"

# cat, extract, ls on the loop fixtures: bounded; the looping file's bytes up to
# the break (here the whole file: both loops close right after the file's end,
# as icat reads it too), one line, exit 4
want=$(awk -F'\t' '$1 == "/frag/interleaved-a.bin" { print $4 }' "$top_srcdir/tests/fixtures/pop-small.manifest")
timeout 20 "$FATSCOPE" cat "$(img bad-fat-loop)" /frag/interleaved-a.bin > got 2> err; rc=$?
check "cat of the looping file: exit" 4 "$rc"
check "cat of the looping file: its bytes, all before the loop" "$want" "$(sha256sum < got | cut -c1-64)"
check "cat of the looping file: the line" \
	"fatscope: $(img bad-fat-loop): /frag/interleaved-a.bin: the chain loops back to cluster 79 after 8 clusters: its 32768 bytes can all be read" "$(cat err)"
want=$(awk -F'\t' '$1 == "/frag/fragmented.bin" { print $4 }' "$top_srcdir/tests/fixtures/pop-fat16.manifest")
timeout 20 "$FATSCOPE" cat "$(img fbad-fat16-loop)" /frag/fragmented.bin > got 2> err; rc=$?
check "cat of fbad-fat16-loop's looping file: exit" 4 "$rc"
check "cat of fbad-fat16-loop's looping file: one line" 1 "$(wc -l < err)"
check "cat of fbad-fat16-loop's looping file: its bytes" "$want" "$(sha256sum < got | cut -c1-64)"
timeout 60 "$FATSCOPE" extract "$(img fbad-fat16-loop)" -o x > /dev/null 2> err; rc=$?
check "extract fbad-fat16-loop: exit" 4 "$rc"
check "extract fbad-fat16-loop: the looping file whole" "$want" "$(sha256sum < x/frag/fragmented.bin | cut -c1-64)"
[ -f x/frag/fill-1.bin ] && ok || bad "extract stopped at the looping file"
check "extract fbad-fat16-loop: one line" 1 "$(wc -l < err)"
out=$(timeout 20 "$FATSCOPE" ls "$(img fbad-fat32-rootloop)" /); rc=$?
check "ls of a looping root: exit" 0 "$rc"
check "ls of a looping root: each entry once" "" "$(sort <<< "$out" | uniq -d)"
grep -qx README.TXT <<< "$out" && ok || bad "ls of a looping root: no README.TXT in: $out"
# (the root's chain loops past its end marker: a listing, like a driver, stops there and sees nothing wrong)

# Two directories share clusters (fbad-fat32-dircycle: level3's entry points
# to /deep): ls -R, dump -t and extract list or write each entry once, then
# say so in one line and exit 4; JSON carries the error.
dc=$(img fbad-fat32-dircycle)
loopline="a directory's chain loops or shares clusters with another directory"
out=$(timeout 20 "$FATSCOPE" ls -R "$dc" 2> err); rc=$?
check "ls -R of a directory cycle: exit" 4 "$rc"
check "ls -R of a directory cycle: each path once" "" "$(grep -v '^$' <<< "$out" | sort | uniq -d | grep -v ':$')"
check "ls -R of a directory cycle: the line" "fatscope: $dc: $loopline: each entry is listed once (fatscope fsck says more)" "$(cat err)"
check "ls -R -J of a directory cycle: error" '"directory loop"' "$(timeout 20 "$FATSCOPE" ls -R -J "$dc" 2> /dev/null | jq .error)"
out=$(timeout 20 "$FATSCOPE" dump -t "$dc" 2> err); rc=$?
check "dump -t of a directory cycle: exit" 4 "$rc"
check "dump -t of a directory cycle: one line" 1 "$(wc -l < err)"
check "dump -t -J of a directory cycle" '"directory loop"' "$(timeout 20 "$FATSCOPE" dump -t -J "$dc" 2> /dev/null | jq .tree_error)"
rm -rf xc
timeout 60 "$FATSCOPE" extract "$dc" -o xc > /dev/null 2> err; rc=$?
check "extract of a directory cycle: exit" 4 "$rc"
grep -q "$loopline" err && ok || bad "extract of a directory cycle does not say so: $(cat err)"
[ -f xc/README.TXT ] && ok || bad "extract of a directory cycle wrote nothing"
out=$("$FATSCOPE" ls -R "$(img pop-fat32)" 2>&1 > /dev/null); rc=$?
check "ls -R of the healthy volume" "0 " "$rc $out"
finish
