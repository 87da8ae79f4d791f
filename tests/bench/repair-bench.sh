#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# repair-bench.sh - time `fatscope fsck -y` (repair) of the 100,000-file
# image of fsck-bench.sh with about 1,000 injected problems of mixed kinds
# against `fatscope fsck -n` of the clean image.  The limit: the repair
# takes at most 2x the clean check.  Also checks the repaired volume with
# `fatscope fsck -n` and `fsck.exfat -n` (exfatprogs, when installed) and
# compares the peak RSS of the repair and the check.
#
# The image comes from fsck-bench.sh's cache, which that script builds when
# it is missing or stale (BENCH_BUILD_ONLY=1; root the first time).  See
# tests/bench/README.md for what is measured and the environment variables.
# Exit status: 0 PASS (or BENCH_REPORT_ONLY=1), 1 FAIL (the ratio is above
# the limit, or the repaired volume is not clean), 2 setup or run error.

set -euo pipefail

prog=repair-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)

# ---------------------------------------------------------------- settings

runs=${BENCH_RUNS:-5}
limit=${BENCH_LIMIT:-2.00}
report_only=${BENCH_REPORT_ONLY:-0}
problems=${BENCH_PROBLEMS:-1000}
seed=${BENCH_SEED:-11}
label=${BENCH_IMAGE:-100k}
keep=${BENCH_KEEP:-}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fsck}
fatscope_default "$root"
FSCK_EXFAT=${FSCK_EXFAT:-fsck.exfat}

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_LIMIT must be a number (got '$limit')"
[[ $problems =~ ^[1-9][0-9]*$ ]] || die "BENCH_PROBLEMS must be a positive integer (got '$problems')"
[[ $seed =~ ^[0-9]+$ ]] || die "BENCH_SEED must be a non-negative integer (got '$seed')"
[[ $label == 100k || $label == 1k ]] || die "BENCH_IMAGE must be 100k or 1k (got '$label')"

# ---------------------------------------------------------------- tools

need() { command -v "$1" >/dev/null || die "$1 not found ($2)"; }
need python3 "apt-get install -y python3"

fatscope_check

# fsck.exfat only checks the repaired volume here: optional.
if command -v "$FSCK_EXFAT" >/dev/null; then
	FSCK_EXFAT=$(command -v "$FSCK_EXFAT")
else
	FSCK_EXFAT=
fi

# The peak RSS is reported, so GNU time is required.
gnu_time required


# ---------------------------------------------------------------- cleanup

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/repair-bench.XXXXXX")
if [[ -n $keep ]]; then
	mkdir -p -- "$keep" || die "cannot create BENCH_KEEP directory $keep"
	work=$(cd -- "$keep" && pwd -P)
else
	work=$tmpd
fi
run_img=$work/run.img		# the fresh copy of the damaged image a run repairs

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?
	rm -f -- "$run_img"
	rm -rf -- "$tmpd"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- helpers (python)

# inject.py IMAGE SEED COUNT LIST_OUT EDITS_OUT
# Plans the damage to the clean exFAT volume in IMAGE, which it only reads
# (no fatscope, no exfatprogs): COUNT problems of six kinds that `fatscope
# fsck -y` repairs, VolumeDirty once and the rest shared out evenly (in
# this order) over
#   checksum  one bit of a file entry set's SetChecksum flipped
#   namehash  the stream entry's NameHash changed, SetChecksum recomputed
#   vdl       ValidDataLength > DataLength (by 1 B to a cluster),
#             SetChecksum recomputed
#   unmarked  a cluster of a file marked free in the allocation bitmap
#   lost      a free cluster marked used (a lost cluster)
# Each entry-set and unmarked problem is in its own file, the files and the
# free clusters drawn with Python's random.Random(SEED) from the whole
# tree and the whole cluster heap.  Writes one line per problem to
# LIST_OUT ("kind entry-set BYTE ..." or "kind cluster N ..."), the writes
# that make them to EDITS_OUT ("BYTE HEX" a line, to apply in order), and
# prints the counts of each kind.
cat > "$tmpd/inject.py" <<'EOF'
import os, random, struct, sys
img, seed, total, listing, edits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
fd = os.open(img, os.O_RDONLY)
bs = os.pread(fd, 512, 0)
if bs[3:11] != b'EXFAT   ': sys.exit('inject.py: %s: not exFAT' % img)
fat_off, fat_len, heap_off, ccount, root = struct.unpack_from('<IIIII', bs, 80)
ss = 1 << bs[108]; cs = ss << bs[109]
fat = memoryview(os.pread(fd, (ccount + 2) * 4, fat_off * ss)).cast('I')
def coff(c): return heap_off * ss + (c - 2) * cs
def chain(c, length, nofat):
    n = (length + cs - 1) // cs          # length 0: follow the FAT to the end
    if nofat: return list(range(c, c + n))
    res = []
    while 2 <= c < ccount + 2 and len(res) < ccount and (length == 0 or len(res) < n):
        res.append(c); c = fat[c]
    return res
def setsum(b):                           # exFAT 6.3.3: all bytes but 2 and 3
    s = 0
    for k, x in enumerate(b):
        if k != 2 and k != 3: s = (((s << 15) | (s >> 1)) + x) & 0xFFFF
    return s
# Walk the tree: every file (not directory) entry set, where its entries
# lie on the volume, and its clusters; every cluster that something owns.
files, owned, bitmap = [], set(), None
stack = [(root, 0, False)]
while stack:
    c, length, nofat = stack.pop()
    cl = chain(c, length, nofat)
    owned.update(cl)
    data = b''.join(os.pread(fd, cs, coff(x)) for x in cl)
    def at(i): return coff(cl[i // cs]) + i % cs
    i = 0
    while i + 32 <= len(data):
        t = data[i]
        if t == 0: break                 # end of directory
        if t in (0x81, 0x82):            # bitmap, up-case table
            fc, dl = struct.unpack_from('<IQ', data, i + 20)
            owned.update(chain(fc, dl, False))
            if t == 0x81: bitmap = (fc, dl)
        elif t == 0x85 and i + 64 <= len(data) and data[i + 32] == 0xC0:
            n = 1 + data[i + 1]
            attr = struct.unpack_from('<H', data, i + 4)[0]
            fc, dl = struct.unpack_from('<IQ', data, i + 52)
            nofat = bool(data[i + 33] & 2)
            if attr & 0x10:
                if fc: stack.append((fc, dl, nofat))
            else:
                s = data[i:i + 32 * n]
                if len(s) != 32 * n or setsum(s) != struct.unpack_from('<H', s, 2)[0]:
                    sys.exit('inject.py: %s: the entry set at byte %d is damaged already' % (img, at(i)))
                cls = chain(fc, dl, nofat) if fc else []
                owned.update(cls)
                files.append(([at(i + 32 * k) for k in range(n)], s, cls))
            i += 32 * n; continue
        i += 32
if bitmap is None: sys.exit('inject.py: %s: no allocation bitmap entry in the root directory' % img)
bcl = chain(bitmap[0], bitmap[1], False)
bm = bytearray(b''.join(os.pread(fd, cs, coff(x)) for x in bcl)[:bitmap[1]])
def marked(c): return bm[(c - 2) // 8] >> ((c - 2) % 8) & 1
free = [c for c in range(2, ccount + 2) if not marked(c) and c not in owned]

# The mix: VolumeDirty once, the rest shared out evenly over five kinds.
kinds = ['checksum', 'namehash', 'vdl', 'unmarked', 'lost']
count = dict.fromkeys(kinds + ['dirty'], 0)
count['dirty'] = 1
for k in range(total - 1): count[kinds[k % 5]] += 1
rng = random.Random(seed)
nsets = count['checksum'] + count['namehash'] + count['vdl']
if nsets + count['unmarked'] > len(files) or count['lost'] > len(free):
    sys.exit('inject.py: %s is too small for %d problems (%d files, %d free clusters)'
             % (img, total, len(files), len(free)))
picked = rng.sample(range(len(files)), nsets)
taken = set(picked)
rest = [k for k in range(len(files)) if files[k][2] and k not in taken]
if count['unmarked'] > len(rest):
    sys.exit('inject.py: %s has too few files with clusters for %d problems' % (img, total))
unmarked = rng.sample(rest, count['unmarked'])
lost = rng.sample(free, count['lost'])

out, ed = open(listing, 'w'), open(edits, 'w')
def pwrite(b, off): ed.write('%d %s\n' % (off, bytes(b).hex()))
def write_set(k, new, kind, what):
    pos, old, cls = files[k]
    for e in range(len(pos)):
        if new[32 * e:32 * e + 32] != old[32 * e:32 * e + 32]:
            pwrite(new[32 * e:32 * e + 32], pos[e])
    out.write('%s entry-set %d %s\n' % (kind, pos[0], what))
for j, k in enumerate(picked):
    s = bytearray(files[k][1])
    if j < count['checksum']:
        b = rng.randrange(16)
        s[2 + b // 8] ^= 1 << (b % 8)
        write_set(k, s, 'checksum', 'SetChecksum bit %d flipped' % b)
        continue
    if j < count['checksum'] + count['namehash']:
        h = struct.unpack_from('<H', s, 36)[0]
        struct.pack_into('<H', s, 36, h ^ rng.randrange(1, 0x10000))
        kind, what = 'namehash', 'NameHash %#06x -> %#06x' % (h, struct.unpack_from('<H', s, 36)[0])
    else:
        dl = struct.unpack_from('<Q', s, 56)[0]
        struct.pack_into('<Q', s, 40, dl + rng.randrange(1, cs + 1))
        kind, what = 'vdl', 'ValidDataLength %d > DataLength %d' % (struct.unpack_from('<Q', s, 40)[0], dl)
    struct.pack_into('<H', s, 2, setsum(s))
    write_set(k, s, kind, what)
def flip_bit(c, kind, what):
    i = (c - 2) // 8
    bm[i] ^= 1 << ((c - 2) % 8)
    pwrite([bm[i]], coff(bcl[i // cs]) + i % cs)
    out.write('%s cluster %d %s\n' % (kind, c, what))
for k in unmarked:
    pos, s, cls = files[k]
    flip_bit(cls[rng.randrange(len(cls))], 'unmarked', 'marked free, a cluster of the file at byte %d' % pos[0])
for c in sorted(lost):
    flip_bit(c, 'lost', 'marked used, free')
flags = struct.unpack_from('<H', bs, 106)[0]
pwrite(struct.pack('<H', flags | 2), 106)
out.write('dirty boot-sector 106 VolumeFlags %#06x -> %#06x\n' % (flags, flags | 2))
out.close(); ed.close()
print(' '.join('%s=%d' % (k, count[k]) for k in kinds + ['dirty']),
      'files=%d free_clusters=%d clusters=%d cluster_size=%d' % (len(files), len(free), ccount, cs))
EOF

# restore.py CLEAN COPY EDITS
# Makes COPY (a copy of CLEAN, perhaps repaired since) the damaged image
# again: every 4 KiB block of COPY that differs from CLEAN, in the data
# ranges of either file (SEEK_DATA/SEEK_HOLE), is written back from CLEAN,
# then the edits of inject.py are applied, and COPY is fsync'ed.  The
# result is byte for byte the damaged image, as a fresh cp of it would
# be, at a fraction of the cost: on this VM's ext4 (mounted with discard)
# deleting a copy of the 100k image, 98,000 data ranges, takes 10 to 70 s.
# Prints the data ranges compared and the bytes written back.
cat > "$tmpd/restore.py" <<'EOF'
import os, sys
clean, copy, edits = sys.argv[1:4]
fm, fc = os.open(clean, os.O_RDONLY), os.open(copy, os.O_RDWR)
size = os.fstat(fm).st_size
if os.fstat(fc).st_size != size: sys.exit('restore.py: %s and %s differ in size' % (clean, copy))
def data(fd):                            # the data (not hole) ranges of fd
    off, out = 0, []
    while off < size:
        try: d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError: break            # ENXIO: only a hole after off
        off = os.lseek(fd, d, os.SEEK_HOLE)
        out.append((d, off))
    return out
merged = []
for a, b in sorted(data(fm) + data(fc)):
    if merged and a <= merged[-1][1]: merged[-1][1] = max(merged[-1][1], b)
    else: merged.append([a, b])
CH, BLK, back = 1 << 20, 4096, 0
for a, b in merged:
    for o in range(a, b, CH):
        n = min(CH, b - o)
        m, c = os.pread(fm, n, o), os.pread(fc, n, o)
        if m == c: continue
        i = 0
        while i < n:                     # write back each run of differing blocks
            if m[i:i + BLK] == c[i:i + BLK]: i += BLK; continue
            k = i + BLK
            while k < n and m[k:k + BLK] != c[k:k + BLK]: k += BLK
            os.pwrite(fc, m[i:k], o + i); back += min(k, n) - i; i = k
for line in open(edits):
    off, hx = line.split()
    os.pwrite(fc, bytes.fromhex(hx), int(off))
os.fsync(fc)
print(len(merged), back)
EOF

# findings.py < `fatscope fsck --json` output
# Prints "N L E W" (findings, listed or not; listed; errors and warnings
# listed) and, on a second line, the count of each problem id listed ("-"
# when none).  fatscope fsck -n lists the first 100 of each problem.
cat > "$tmpd/findings.py" <<'EOF'
import collections, json, sys
d = json.load(sys.stdin)
fs = d.get('findings', [])
sev = collections.Counter(f['severity'] for f in fs)
ids = collections.Counter(f['id'] for f in fs)
print(len(fs) + d.get('summary', {}).get('findings_not_listed', 0), len(fs), sev['error'] + sev['fatal'], sev['warning'])
print(', '.join('%s %d' % kv for kv in sorted(ids.items())) or '-')
EOF

# ---------------------------------------------------------------- the image

# fsck-bench.sh owns the image cache: it checks the stamps and builds what
# is missing or stale (root only), and measures nothing.
FATSCOPE_BENCH_CACHE=$cache BENCH_BUILD_ONLY=1 "$script_dir/fsck-bench.sh" ||
	die "fsck-bench.sh could not build or check the image cache in $cache"
img=$cache/$label.img
[[ -f $img ]] || die "$img is missing after fsck-bench.sh"

# Room for the scratch copy (and the two kept with BENCH_KEEP), 10% to spare.
copies=1
[[ -z $keep ]] || copies=3
need_kib=$(( $(du -k -- "$img" | cut -f1) * copies * 11 / 10 ))
have_kib=$(df -Pk -- "$work" | awk 'NR == 2 { print $4 }')
(( have_kib >= need_kib )) ||
	die "$work has $(( have_kib / 1024 )) MiB free; the copies of $img need $(( need_kib / 1024 )) MiB (set TMPDIR)"

# ---------------------------------------------------------------- measure


# Make $run_img the damaged image, fresh: the first time a cp of the clean
# image, then (and after every repair) restore.py.  The copy is fsync'ed,
# so that the repair's fsync does not write it.  The time goes to
# $tmpd/copy.us and is in no figure.
fresh_copy() {
	local t0
	now_us; t0=$_now
	if [[ ! -f $run_img ]]; then
		cp --sparse=always -- "$img" "$run_img" || die "cp $img $run_img failed"
	fi
	python3 "$tmpd/restore.py" "$img" "$run_img" "$work/injected.edits" > "$tmpd/restore.out" ||
		die "could not restore $run_img to the damaged image"
	now_us
	echo $(( _now - t0 )) >> "$tmpd/copy.us"
}

check_rc_ok=0		# fatscope fsck -n's exit code on the clean image (warm-up)
damaged_rc_ok=4		# and on the damaged one
repair_rc_ok=1		# fatscope fsck -y's exit code on the damaged image (warm-up)
plan_rc_ok=4		# and fatscope fsck -y --dry-run's
# Called as "run_$1 [WRAPPER...]".
# shellcheck disable=SC2317
run_check() {
	local rc=0
	"$@" "$FATSCOPE" fsck -n -- "$img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == check_rc_ok )) || die "fatscope fsck -n $img exited $rc (warm-up: $check_rc_ok)"
}
# shellcheck disable=SC2317,SC2120
run_damaged() {
	local rc=0
	"$@" "$FATSCOPE" fsck -n -- "$run_img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == damaged_rc_ok )) || die "fatscope fsck -n of the damaged image $run_img exited $rc (warm-up: $damaged_rc_ok)"
}
# The repair's plan alone: the check with the planner, nothing written,
# no check again.
# shellcheck disable=SC2317
run_plan() {
	local rc=0
	"$@" "$FATSCOPE" fsck -y --dry-run -- "$run_img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == plan_rc_ok )) || die "fatscope fsck -y --dry-run of the damaged image $run_img exited $rc (warm-up: $plan_rc_ok)"
}
# shellcheck disable=SC2317
run_repair() {
	local rc=0
	"$@" "$FATSCOPE" fsck -y -- "$run_img" > "$tmpd/repair.out" 2>&1 < /dev/null || rc=$?
	if (( rc != repair_rc_ok )); then
		sed -n 1,20p "$tmpd/repair.out" >&2
		die "fatscope fsck -y of the damaged image $run_img exited $rc (warm-up: $repair_rc_ok)"
	fi
}
# The repair with a whole check again afterwards (--recheck): reported, not held to the limit.
# shellcheck disable=SC2317
run_recheck() {
	local rc=0
	"$@" "$FATSCOPE" fsck -y --recheck -- "$run_img" > "$tmpd/repair.out" 2>&1 < /dev/null || rc=$?
	if (( rc != repair_rc_ok )); then
		sed -n 1,20p "$tmpd/repair.out" >&2
		die "fatscope fsck -y of the damaged image $run_img exited $rc (warm-up: $repair_rc_ok)"
	fi
}

# Each timed call (lib.sh) comes right after an untimed one, so that the
# page cache is warm (on this VM it does not stay warm for long: pages
# unused for a few seconds are paged out).  Before a repair the untimed
# call is a check of the same damaged image (run_damaged), which also
# reads the holes cp --sparse=always left in the directory clusters into
# the page cache (0.5-1 s on the 100k image).
before_timed() {
	# shellcheck disable=SC2119
	if [[ $1 == repair || $1 == recheck ]]; then run_damaged; else "run_$1"; fi
}

# fatscope fsck -n --json on $1: sets $_rc, $_nf (findings), $_nl (listed),
# $_ne and $_nw (errors and warnings listed) and $_ids (each id listed).
findings() {
	_rc=0
	"$FATSCOPE" fsck -n --json -- "$1" > "$tmpd/f.json" 2> "$tmpd/f.err" < /dev/null || _rc=$?
	if ! python3 "$tmpd/findings.py" < "$tmpd/f.json" > "$tmpd/f.sum" 2> "$tmpd/f.py.err"; then
		sed -n 1,10p "$tmpd/f.err" "$tmpd/f.py.err" >&2
		die "fatscope fsck -n --json $1 (exit $_rc) did not print a JSON report"
	fi
	read -r _nf _nl _ne _nw < "$tmpd/f.sum"
	_ids=$(sed -n 2p "$tmpd/f.sum")
}
# fsck.exfat -n on $1: sets $_rc ("n/a" when fsck.exfat is not installed)
# and $_line (its verdict line).
exfat_check() {
	_rc=n/a; _line="not installed"
	[[ -n $FSCK_EXFAT ]] || return 0
	_rc=0
	"$FSCK_EXFAT" -n -- "$1" > "$tmpd/e.out" 2>&1 < /dev/null || _rc=$?
	_line=$(grep -v '^exfatprogs version' "$tmpd/e.out" | tail -n1 | sed "s|^$1: ||")
}

bin_before=$(fatscope_id)

fatscope_notes "$root" "fatscope:  "
if [[ -n $FSCK_EXFAT ]]; then
	note "fsck.exfat: $FSCK_EXFAT ($("$FSCK_EXFAT" -V 2>&1 | sed -n 's/^exfatprogs version : //p' | head -n1))"
else
	note "fsck.exfat: not installed (apt-get install -y exfatprogs): the repaired volume is checked by fatscope only"
fi
note "image: $img ($(du -h --apparent-size -- "$img" | cut -f1) apparent, $(du -h -- "$img" | cut -f1) on disk)"
note "work directory: $work; $runs timed runs of each, alternating"
note "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

# The problems, planned on the clean image and written into a copy of it.
now_us; t0=$_now
summary=$(python3 "$tmpd/inject.py" "$img" "$seed" "$problems" "$work/injected.list" "$work/injected.edits") ||
	die "could not plan the problems to inject into $img"
now_us
declare -A inj=()
for kv in $summary; do inj[${kv%%=*}]=${kv#*=}; done
injected=$(( inj[checksum] + inj[namehash] + inj[vdl] + inj[unmarked] + inj[lost] + inj[dirty] ))
note "injected $injected problems (seed $seed; planned in $(fmt_ms $(( _now - t0 ))) ms):" \
	"${inj[checksum]} SetChecksum bit flips, ${inj[namehash]} wrong NameHashes," \
	"${inj[vdl]} ValidDataLength > DataLength, ${inj[unmarked]} used clusters marked free," \
	"${inj[lost]} lost clusters, VolumeDirty ${inj[dirty]}" \
	"(among ${inj[files]} files and ${inj[free_clusters]} free clusters of ${inj[clusters]})"
: > "$tmpd/copy.us"
rm -f -- "$run_img"		# left in BENCH_KEEP by a killed run, perhaps of another image
fresh_copy
note "damaged image: $run_img (a cp --sparse=always of the clean one, $(wc -l < "$work/injected.edits") writes;" \
	"$(fmt_ms "$(tail -n1 "$tmpd/copy.us")") ms)"
if [[ -n $keep ]]; then
	cp --sparse=always -- "$run_img" "$work/$label-damaged.img"
	note "kept: $work/$label-damaged.img, the problems $work/injected.list and their writes $work/injected.edits"
fi

# Warm-up runs (they fill the page cache) and what the tools say.
rc=0
"$FATSCOPE" fsck -n -- "$img" > "$tmpd/c.out" 2>&1 < /dev/null || rc=$?
case $rc in
0) ;;
4) note "WARNING: fatscope fsck -n reports problems (exit 4) on the clean image:"
   sed -n 1,10p "$tmpd/c.out" ;;
*) sed -n 1,10p "$tmpd/c.out" >&2; die "fatscope fsck -n $img exited $rc in the warm-up run" ;;
esac
check_rc_ok=$rc
note "clean image: fatscope fsck -n (exit $rc): $(tail -n1 "$tmpd/c.out")"

findings "$run_img"
case $_rc in
4) ;;
0) die "fatscope fsck -n finds no error in the damaged image: the injection did not work" ;;
*) sed -n 1,10p "$tmpd/f.err" >&2; die "fatscope fsck -n of the damaged image exited $_rc in the warm-up run" ;;
esac
damaged_rc_ok=$_rc
note "damaged image: fatscope fsck -n (exit $_rc): $_nf findings; listed: $_nl, $_ne errors, $_nw warnings ($_ids)"
exfat_check "$run_img"
note "damaged image: fsck.exfat -n (exit $_rc): $_line"
rc=0
"$FATSCOPE" fsck -y --dry-run -- "$run_img" > "$tmpd/plan.out" 2>&1 < /dev/null || rc=$?
case $rc in
4) ;;
*) sed -n 1,10p "$tmpd/plan.out" >&2; die "fatscope fsck -y --dry-run of the damaged image exited $rc (expected 4)" ;;
esac
plan_rc_ok=$rc
note "damaged image: fatscope fsck -y --dry-run (exit $rc): $(grep -E 'changes? planned' "$tmpd/plan.out" | tail -n1 | sed "s|^$run_img: ||; s|:$||")"

rc=0
"$FATSCOPE" fsck -y -- "$run_img" > "$work/repair.out" 2>&1 < /dev/null || rc=$?
case $rc in
1) ;;
4|5) note "WARNING: fatscope fsck -y exited $rc: errors left uncorrected:"
   grep -v '^fixed ' "$work/repair.out" | sed -n 1,20p ;;
0) die "fatscope fsck -y exited 0 on the damaged image: it repaired nothing" ;;
*) sed -n 1,20p "$work/repair.out" >&2; die "fatscope fsck -y of the damaged image exited $rc in the warm-up run" ;;
esac
repair_rc_ok=$rc
fixed_line=$(grep -E '^[^ ].*: [0-9]+ problems? fixed, ' "$work/repair.out" | tail -n1 | sed "s|^$run_img: ||")
note "fatscope fsck -y (exit $rc): ${fixed_line:-no \"fixed\" line in its output}"
nleft=$(grep -c '^left ' "$work/repair.out" || true)
(( nleft == 0 )) || note "WARNING: fatscope fsck -y left $nleft findings unplanned (\"left\" lines)"

# The repaired volume, checked again by both checkers.
findings "$run_img"
after_rc=$_rc after_nf=$_nf
note "after repair: fatscope fsck -n (exit $_rc): $_nf findings; listed: $_nl, $_ne errors, $_nw warnings ($_ids)"
if (( _rc != 0 )); then
	"$FATSCOPE" fsck -n -- "$run_img" 2>&1 < /dev/null | sed -n 1,20p || true
fi
exfat_check "$run_img"
after_exfat=$_rc
note "after repair: fsck.exfat -n (exit $_rc): $_line"
if [[ $_rc != 0 && $_rc != n/a ]]; then
	sed -n 1,20p "$tmpd/e.out"
fi
if [[ -n $keep ]]; then
	cp --sparse=always -- "$run_img" "$work/$label-repaired.img"
	note "kept: the repaired image $work/$label-repaired.img and fatscope fsck -y's output $work/repair.out"
fi

echo
for f in check.us repair.us recheck.us damaged.us plan.us copy.us check.rss repair.rss; do
	: > "$tmpd/$f"
done
for (( r = 1; r <= runs; r++ )); do
	fresh_copy
	timed damaged; ud=$_us
	timed plan; up=$_us
	# Alternate check and repair, swapping which goes first every run.
	alternate "$r" check repair; uc=$_u1 uy=$_u2
	fresh_copy
	timed recheck; ur=$_us
	rss check
	fresh_copy
	rss repair
	printf 'run %d: fsck -y %s ms, clean fsck -n %s ms, ratio %s; fsck -y --recheck %s ms; damaged: fsck -n %s ms, fsck -y --dry-run %s ms; peak RSS -y %s KiB, -n %s KiB; restore %s ms (not timed)\n' \
		"$r" "$(fmt_ms "$uy")" "$(fmt_ms "$uc")" "$(ratio "$uy" "$uc")" "$(fmt_ms "$ur")" "$(fmt_ms "$ud")" "$(fmt_ms "$up")" \
		"$(tail -n1 "$tmpd/repair.rss")" "$(tail -n1 "$tmpd/check.rss")" "$(fmt_ms "$(tail -n1 "$tmpd/copy.us")")"
done

my=$(median < "$tmpd/repair.us"); mc=$(median < "$tmpd/check.us"); md=$(median < "$tmpd/damaged.us")
mp=$(median < "$tmpd/plan.us")
ry=$(median < "$tmpd/repair.rss"); rn=$(median < "$tmpd/check.rss")
tr=$(ratio "$my" "$mc"); tv=$(verdict "$my" "$mc" "$limit")
clean_after=1
[[ $after_rc == 0 && ($after_exfat == 0 || $after_exfat == n/a) ]] || clean_after=0
printf 'median of %d runs: fsck -y %s ms, clean fsck -n %s ms; damaged: fsck -n %s ms, fsck -y --dry-run %s ms; restore %s ms (not timed)\n' \
	"$runs" "$(fmt_ms "$my")" "$(fmt_ms "$mc")" "$(fmt_ms "$md")" "$(fmt_ms "$mp")" "$(fmt_ms "$(median < "$tmpd/copy.us")")"
mr=$(median < "$tmpd/recheck.us")
printf 'ratios to the clean fsck -n: fsck -y %s, fsck -y --recheck %s (not held to the limit), damaged fsck -n %s, fsck -y --dry-run (the plan, printed) %s\n' \
	"$tr" "$(ratio "$mr" "$mc")" "$(ratio "$md" "$mc")" "$(ratio "$mp" "$mc")"
printf 'peak RSS (median): fsck -y %s KiB, clean fsck -n %s KiB, ratio %s\n' "$ry" "$rn" "$(ratio "$ry" "$rn")"

echo
note "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $(fatscope_id) == "$bin_before" ]] ||
	note "WARNING: $FATSCOPE or libfatscope changed during the run (rebuilt?): the figures mix two builds"
(( clean_after )) ||
	note "FAIL: the repaired volume is not clean (fatscope fsck -n exit $after_rc, fsck.exfat -n exit $after_exfat)"
printf '%s: %s with %d injected problems: fsck -y %s ms, clean fsck -n %s ms, ratio %s (limit %.2f): %s; after repair: fatscope -n exit %s (%s findings), fsck.exfat -n exit %s; peak RSS of -y %s MiB vs -n %s MiB\n' \
	"$prog" "$label" "$injected" "$(fmt_ms "$my")" "$(fmt_ms "$mc")" "$tr" "$limit" "$tv" \
	"$after_rc" "$after_nf" "$after_exfat" "$(fmt_mib "$ry")" "$(fmt_mib "$rn")"

if [[ $tv != PASS || $clean_after != 1 ]] && [[ $report_only != 1 ]]; then
	exit 1
fi
exit 0
