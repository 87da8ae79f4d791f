#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# repair-compare.sh - what `fsck.exfat -y` (exfatprogs) and `fatscope fsck -y`
# each do to the files of every corrupt exFAT fixture.  For each fixture,
# on two fresh copies: one repair by each tool (exit status), the regular
# files before and after compared through The Sleuth Kit's fls and icat
# (a reader that is neither tool), and each repaired copy checked by both
# `fsck.exfat -n` and `fatscope fsck -n`.  One table row per fixture, then
# totals.  It is a measurement, not a test: it exits 0 when it ran, 2 on a
# setup error.  See tests/bench/README.md for the columns.
#
# Usage: tests/bench/repair-compare.sh [FATSCOPE-BINARY [FIXTURE...]]
# FIXTURE is a fixture name (bad-chains) or a glob (bad-boot-*).

set -euo pipefail

# shellcheck disable=SC2034  # lib.sh uses it
prog=repair-compare
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)
builddir=${BENCH_BUILDDIR:-$root}
if [[ $# -gt 0 ]]; then FATSCOPE=$1; shift; fi
FATSCOPE=${FATSCOPE:-$builddir/fatscope}	# libtool's wrapper is fine: nothing is timed
FSCK_EXFAT=${FSCK_EXFAT:-fsck.exfat}
tmo=${BENCH_TIMEOUT:-60}
keep=${BENCH_KEEP:-}
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "BENCH_TIMEOUT must be a positive integer (got '$tmo')"

need() { command -v "$1" >/dev/null || die "$1 not found ($2)"; }
need python3 "apt-get install -y python3"
need zstd "apt-get install -y zstd"
need timeout "coreutils"
need fls "apt-get install -y sleuthkit"
need icat "apt-get install -y sleuthkit"
need "$FSCK_EXFAT" "apt-get install -y exfatprogs, or FSCK_EXFAT=/path"
FSCK_EXFAT=$(command -v "$FSCK_EXFAT")
[[ $FATSCOPE == */* ]] || FATSCOPE=$(command -v "$FATSCOPE" || printf '%s' "$FATSCOPE")
[[ -x $FATSCOPE ]] || die "fatscope binary '$FATSCOPE' not found: build it (make) or give it as the first argument or FATSCOPE=/path"
FATSCOPE=$(cd -- "$(dirname -- "$FATSCOPE")" && pwd -P)/$(basename -- "$FATSCOPE")

fixdir=$root/tests/fixtures/img
fixtures=()
if [[ $# -gt 0 ]]; then
	for pat in "$@"; do
		for f in "$fixdir"/$pat.img.zst; do [[ -e $f ]] && fixtures+=("$f"); done
	done
else
	# Corrupt exFAT fixtures only: bad-* and exfat-* (not the healthy
	# exfat.img, the pop-* ones, FAT, disk images or non-volumes).
	for f in "$fixdir"/bad-*.img.zst "$fixdir"/exfat-*.img.zst; do [[ -e $f ]] && fixtures+=("$f"); done
fi
[[ ${#fixtures[@]} -gt 0 ]] || die "no fixture found in $fixdir"

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/repair-compare.XXXXXX")
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?
	rm -rf -- "$tmpd"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ -n $keep ]]; then
	mkdir -p -- "$keep" || die "cannot create BENCH_KEEP directory $keep"
fi

# ---------------------------------------------------------------- compare.py

# compare.py TIMEOUT ORIG AFTER...: the regular files of ORIG and of each
# AFTER image, listed by `fls -r -p -F` and read by `icat` (files are
# identified by their path; the volume label, $ALLOC_BITMAP, $UPCASE_TABLE,
# deleted entries and $OrphanFiles are left out; an entry that fls lists
# again under a directory that loops back counts once, under its shortest
# path).  Prints one line for ORIG:
#   orig FILES BYTES ALIASES   or  orig unreadable
# and one for each AFTER:
#   after KEPT CHANGED GONE RECOVERED ADDED FOUND_BYTES FILES
# or  after unreadable  (fls exits non-zero, or times out, on it),
# or  after n/a FILES   (ORIG was unreadable).
# Every changed, gone and added file goes to stderr, one a line.
#   KEPT       same path, same content
#   CHANGED    same path, other content or size
#   GONE       path missing
#   RECOVERED  of CHANGED+GONE non-empty files: the whole content, or at
#              least its first min(4 KiB, size) bytes, begins some file
#              after the repair (any path, the same one included)
#   ADDED      paths after that were not there before (FOUND.000, ...)
#   FOUND_BYTES  bytes of the original files' content still there: the
#              whole size of a kept or recovered-whole file, else the
#              longest common prefix with the same path or with a file
#              that counts as recovering it
cat > "$tmpd/compare.py" <<'EOF'
import hashlib, re, subprocess, sys
TMO = int(sys.argv[1])
LINE = re.compile(r'^r/r (\d+(?:-\d+-\d+)?):\t(.*)$')

aliases = [0]
def manifest(img):
    try:
        p = subprocess.run(['fls', '-r', '-p', '-F', img], capture_output=True, timeout=TMO)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    files, seen, best = {}, {}, {}
    for line in p.stdout.decode('utf-8', 'surrogateescape').splitlines():
        m = LINE.match(line)           # 'r/r * N:' (deleted) does not match
        if not m:
            continue
        inode, path = m.groups()
        if path.startswith('$') or '/$' in path or path.endswith('(Volume Label Entry)'):
            continue
        # The same entry (inode) under several paths: a directory that
        # loops back.  It is one file, under its shortest path.
        if inode in best:
            aliases[0] += 1
            if (path.count('/'), len(path)) >= (best[inode].count('/'), len(best[inode])):
                continue
        best[inode] = path
    for inode, path in best.items():
        n = seen[path] = seen.get(path, 0) + 1
        key = path if n == 1 else '%s [#%d]' % (path, n)   # the same path twice
        try:
            data = subprocess.run(['icat', img, inode], capture_output=True, timeout=TMO).stdout
        except subprocess.TimeoutExpired as e:
            data = e.stdout or b''
        files[key] = data
    return files

def common(a, b):
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n                      # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]: lo = mid
        else: hi = mid
    return lo

orig = manifest(sys.argv[2])
if orig is None:
    print('orig unreadable')
else:
    print('orig %d %d %d' % (len(orig), sum(len(d) for d in orig.values()), aliases[0]))
for img in sys.argv[3:]:
    after = manifest(img)
    if orig is None or after is None:
        print('after unreadable' if after is None else 'after n/a %d' % len(after))
        continue
    hashes = {hashlib.sha256(d).digest() for d in after.values()}
    kept = changed = gone = recovered = found = 0
    for path, data in orig.items():
        size = len(data)
        if path in after and after[path] == data:
            kept += 1; found += size; continue
        if path in after: changed += 1
        else: gone += 1
        if size == 0:
            print('%s\t%s\t%s, was empty' % (img, path, 'changed' if path in after else 'gone'), file=sys.stderr)
            continue
        if hashlib.sha256(data).digest() in hashes:
            recovered += 1; found += size
            print('%s\t%s\t%s %d bytes, whole content elsewhere' % (img, path, 'changed' if path in after else 'gone', size), file=sys.stderr)
            continue
        need = min(4096, size)
        best = common(data, after[path]) if path in after else 0
        rec = False
        for d in after.values():
            if len(d) >= need and d[:need] == data[:need]:
                rec = True
                best = max(best, common(data, d))
        recovered += rec
        found += best
        print('%s\t%s\t%s %d bytes, %d found%s' % (img, path, 'changed' if path in after else 'gone', size, best, ', recovered' if rec else ''), file=sys.stderr)
    for path in after:
        if path not in orig:
            print('%s\t%s\tadded %d bytes' % (img, path, len(after[path])), file=sys.stderr)
    added = sum(1 for p in after if p not in orig)
    print('after %d %d %d %d %d %d %d' % (kept, changed, gone, recovered, added, found, len(after)))
EOF

# ---------------------------------------------------------------- run

# run_tool OUT CMD...: CMD with stdin from /dev/null under timeout; its
# exit status (T/O on a timeout) in $_rc, its output in OUT.
run_tool() {
	local out=$1 rc=0
	shift
	timeout -k 5 "$tmo" "$@" < /dev/null > "$out" 2>&1 || rc=$?
	if (( rc == 124 || rc == 137 )); then _rc=T/O; else _rc=$rc; fi
}

# The -n verdict: "ok" for exit 0, else the exit status.
verdict() { [[ $1 == 0 ]] && echo ok || echo "$1"; }

note "fatscope: $FATSCOPE ($("$FATSCOPE" --version 2>&1 | head -n1))"
note "fsck.exfat: $FSCK_EXFAT ($("$FSCK_EXFAT" -V 2>&1 | grep -o -m1 'exfatprogs version : [0-9.]*' || true))"
note "${#fixtures[@]} fixtures, timeout ${tmo}s per call"
echo

declare -A tot_lost tot_files tot_found tot_own tot_other tot_unread
for t in fx fs; do tot_lost[$t]=0; tot_files[$t]=0; tot_found[$t]=0; tot_own[$t]=0; tot_other[$t]=0; tot_unread[$t]=0; done
tot_orig_files=0 tot_orig_bytes=0 nfix=0
declare -A rc nfx nfs

hdr='%-34s | %5s %-14s %4s %6s %4s %4s | %5s %-14s %4s %6s %4s %4s\n'
# shellcheck disable=SC2059
printf "$hdr" "" "fsck.exfat -y" "" "" "" "-n:" "" "fatscope fsck -y" "" "" "" "-n:" ""
# shellcheck disable=SC2059
printf "$hdr" "fixture (files)" "exit" "k/c/g/r" "+add" "bytes" "fx" "fs" "exit" "k/c/g/r" "+add" "bytes" "fx" "fs"

for zf in "${fixtures[@]}"; do
	name=$(basename -- "$zf" .img.zst)
	d=$tmpd/$name
	mkdir -p -- "$d"
	zstd -q -dc -- "$zf" > "$d/orig.img" || die "cannot decompress $zf"
	cp --sparse=always -- "$d/orig.img" "$d/fx.img"
	cp --sparse=always -- "$d/orig.img" "$d/fs.img"
	run_tool "$d/fx.repair.out" "$FSCK_EXFAT" -y "$d/fx.img"; rc[fx]=$_rc
	run_tool "$d/fs.repair.out" "$FATSCOPE" fsck -y "$d/fs.img"; rc[fs]=$_rc
	for t in fx fs; do
		run_tool "$d/$t.check-fx.out" "$FSCK_EXFAT" -n "$d/$t.img"; nfx[$t]=$_rc
		run_tool "$d/$t.check-fs.out" "$FATSCOPE" fsck -n "$d/$t.img"; nfs[$t]=$_rc
	done
	python3 "$tmpd/compare.py" "$tmo" "$d/orig.img" "$d/fx.img" "$d/fs.img" > "$d/compare.out" 2> "$d/compare.detail.out" ||
		die "compare.py failed on $name"
	mapfile -t res < "$d/compare.out"
	read -r _ ofiles obytes oalias <<< "${res[0]}"
	if [[ $ofiles == unreadable ]]; then
		label="$name (unreadable)"
	else
		label="$name ($ofiles)"
		(( oalias == 0 )) || label="$name ($ofiles +$oalias aliases)"
		tot_orig_files=$((tot_orig_files + ofiles))
		tot_orig_bytes=$((tot_orig_bytes + obytes))
	fi
	cols=()
	i=1
	for t in fx fs; do
		read -r _ kept changed gone recovered added found _ <<< "${res[i]}"
		i=$((i + 1))
		if [[ $kept == unreadable ]]; then
			kcgr=unreadable add=- bytes=-
			tot_unread[$t]=$((tot_unread[$t] + 1))
		elif [[ $kept == n/a ]]; then
			kcgr=- add="$changed" bytes=-	# orig unreadable: $changed is the file count after
		else
			kcgr=$kept/$changed/$gone/$recovered add=+$added
			if (( obytes > 0 )); then
				bytes=$(awk -v f="$found" -v t="$obytes" 'BEGIN { printf "%.1f%%", 100 * f / t }')
			else
				bytes=-
			fi
			tot_lost[$t]=$((tot_lost[$t] + changed + gone))
			tot_files[$t]=$((tot_files[$t] + ofiles))
			tot_found[$t]=$((tot_found[$t] + found))
		fi
		[[ ${nfx[$t]} == 0 ]] && { [[ $t == fx ]] && tot_own[$t]=$((tot_own[$t] + 1)) || tot_other[$t]=$((tot_other[$t] + 1)); }
		[[ ${nfs[$t]} == 0 ]] && { [[ $t == fs ]] && tot_own[$t]=$((tot_own[$t] + 1)) || tot_other[$t]=$((tot_other[$t] + 1)); }
		cols+=("${rc[$t]}" "$kcgr" "$add" "$bytes" "$(verdict "${nfx[$t]}")" "$(verdict "${nfs[$t]}")")
	done
	# shellcheck disable=SC2059
	printf "$hdr" "$label" "${cols[@]}"
	nfix=$((nfix + 1))
	if [[ -n $keep ]]; then
		mkdir -p -- "$keep/$name" && cp -- "$d"/*.out "$keep/$name/" &&
			cp --sparse=always -- "$d/fx.img" "$d/fs.img" "$keep/$name/"
	fi
	rm -rf -- "$d"
done

echo
note "totals over $nfix fixtures ($tot_orig_files files, $tot_orig_bytes bytes before the repair on the readable ones):"
for t in fx fs; do
	if [[ $t == fx ]]; then tool="fsck.exfat -y" own="fsck.exfat -n" other="fatscope fsck -n"
	else tool="fatscope fsck -y" own="fatscope fsck -n" other="fsck.exfat -n"; fi
	note "  $tool: ${tot_lost[$t]} of ${tot_files[$t]} files gone or changed, ${tot_found[$t]} bytes of the original content found after; ${tot_unread[$t]} unreadable after; clean by $own: ${tot_own[$t]}/$nfix, by $other: ${tot_other[$t]}/$nfix"
done
exit 0
