#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fat-repair-bench.sh - the FAT twin of repair-bench.sh: time `fatscope
# fsck -y` (repair) of fat-bench.sh's 100,000-file FAT32 image with about
# 1,000 injected problems of mixed kinds against `fatscope fsck -n` of the
# clean image.  The limit: the repair takes at most 2x the clean check.
# Also checks the repaired volume with `fatscope fsck -n` and `fsck.fat -n`
# (dosfstools, when installed), compares the peak RSS of the repair and the
# check, and counts with gdb (when installed) the full checks (calls of
# the library's internal fat_check) that one repair runs.
#
# The image comes from fat-bench.sh's cache, which that script builds when
# it is missing (BENCH_BUILD_ONLY=1).  See tests/bench/README.md for what
# is measured and the environment variables.
# Exit status: 0 PASS (or BENCH_REPORT_ONLY=1), 1 FAIL (the ratio is above
# the limit, or the repaired volume is not clean), 2 setup or run error.

set -euo pipefail

prog=fat-repair-bench
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
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fat}
fatscope_default "$root"
FSCK_FAT=${FSCK_FAT:-fsck.fat}
GDB=${GDB:-gdb}

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_LIMIT must be a number (got '$limit')"
[[ $problems =~ ^[1-9][0-9]*$ ]] || die "BENCH_PROBLEMS must be a positive integer (got '$problems')"
[[ $seed =~ ^[0-9]+$ ]] || die "BENCH_SEED must be a non-negative integer (got '$seed')"
[[ $label == 100k ]] || die "BENCH_IMAGE must be 100k (fat-bench.sh's FAT32 image; got '$label')"

# ---------------------------------------------------------------- tools

need() { command -v "$1" >/dev/null || die "$1 not found ($2)"; }
need python3 "apt-get install -y python3"

fatscope_check

# fsck.fat only checks the repaired volume here, gdb only counts: optional.
if command -v "$FSCK_FAT" >/dev/null; then FSCK_FAT=$(command -v "$FSCK_FAT"); else FSCK_FAT=; fi
if command -v "$GDB" >/dev/null; then GDB=$(command -v "$GDB"); else GDB=; fi

# The peak RSS is reported, so GNU time is required.
gnu_time required

# ---------------------------------------------------------------- cleanup

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/fat-repair-bench.XXXXXX")
run_img=$tmpd/run.img		# the fresh copy of the damaged image a run repairs
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
# Plans the damage to the clean FAT32 volume in IMAGE, which it only reads
# (no fatscope, no dosfstools; the BPB, FSInfo and directory entries are
# read at their offsets in Microsoft's FAT specification): COUNT problems
# of six kinds that `fatscope fsck -y` repairs, the FSInfo free count once
# and the rest shared out evenly (in this order) over
#   short   a file's DIR_FileSize past the end of its chain (by 1 B to a
#           cluster): FAT_CHAIN_SHORT
#   long    a free cluster appended to a file's chain, in every FAT copy:
#           FAT_CHAIN_LONG
#   lfnsum  one bit of LDIR_Chksum flipped in a long-name part:
#           FAT_LFN_CHECKSUM
#   copies  a cluster of a file marked free in the second FAT only:
#           FAT_COPIES_DIFFER (one finding, counting the entries)
#   lost    a free cluster marked end of chain in every FAT copy, no entry
#           pointing to it: FAT_LOST_CLUSTERS (one finding)
#   fsinfo  FSI_Free_Count wrong: FAT32_FSINFO_FREE_COUNT
# Each file problem is in its own file, the files and the free clusters
# drawn with Python's random.Random(SEED) from the whole tree and the whole
# data area.  Writes one line per problem to LIST_OUT, the writes that make
# them to EDITS_OUT ("BYTE HEX" a line, to apply in order), and prints the
# counts of each kind.
cat > "$tmpd/inject.py" <<'EOF'
import os, random, struct, sys
img, seed, total, listing, edits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
fd = os.open(img, os.O_RDONLY)
bs = os.pread(fd, 512, 0)
# The BPB (Microsoft FAT specification, fatgen103, section 3).
bps, spc, rsvd, nfats, rootents, tot16 = struct.unpack_from('<HBHBHH', bs, 11)
fatsz16, tot32, fatsz32 = struct.unpack_from('<H', bs, 22)[0], struct.unpack_from('<I', bs, 32)[0], struct.unpack_from('<I', bs, 36)[0]
root, fsinfo = struct.unpack_from('<IH', bs, 44)
if bs[510:512] != b'\x55\xaa' or fatsz16 or rootents or not fatsz32 or nfats < 2 or bs[82:90] != b'FAT32   ':
    sys.exit('inject.py: %s: not a FAT32 volume with two FATs' % img)
fatsz, totsec = fatsz32, tot16 or tot32
first_data = rsvd + nfats * fatsz
ccount = (totsec - first_data) // spc
cs = bps * spc
fat_off = [(rsvd + k * fatsz) * bps for k in range(nfats)]
fat = list(memoryview(os.pread(fd, (ccount + 2) * 4, fat_off[0])).cast('I'))
EOC = 0x0FFFFFF8
def coff(c): return (first_data + (c - 2) * spc) * bps
def chain(c):
    res = []
    while 2 <= c < ccount + 2 and len(res) <= ccount:
        res.append(c); c = fat[c] & 0x0FFFFFFF
        if c >= EOC: break
    return res
def sfn_sum(name):                       # fatgen103 7: ChkSum of the 8.3 name
    s = 0
    for x in name: s = (((s & 1) << 7) + (s >> 1) + x) & 0xFF
    return s
# Walk the tree: every file's 8.3 entry, the long-name entries before it,
# its first cluster, size and chain.
files, owned = [], set()
stack = [root]
while stack:
    cl = chain(stack.pop())
    owned.update(cl)
    data = b''.join(os.pread(fd, cs, coff(x)) for x in cl)
    def at(i): return coff(cl[i // cs]) + i % cs
    lfn = []
    for i in range(0, len(data), 32):
        e = data[i:i + 32]
        if e[0] == 0: break
        if e[0] == 0xE5: lfn = []; continue
        if e[11] & 0x3F == 0x0F: lfn.append(at(i)); continue
        fc = struct.unpack_from('<H', e, 20)[0] << 16 | struct.unpack_from('<H', e, 26)[0]
        size = struct.unpack_from('<I', e, 28)[0]
        if e[11] & 0x08 or e[0:2] == b'. ' or e[0:2] == b'..': pass
        elif e[11] & 0x10:
            if fc: stack.append(fc)
        else:
            cls = chain(fc) if fc else []
            owned.update(cls)
            if lfn and data[i - 32 * len(lfn) + 13] != sfn_sum(e[0:11]):
                sys.exit('inject.py: %s: the long name before byte %d is damaged already' % (img, at(i)))
            files.append((at(i), lfn, fc, size, cls, e))
        lfn = []
free = [c for c in range(2, ccount + 2) if fat[c] == 0]

# The mix: the FSInfo free count once, the rest shared out evenly over five kinds.
kinds = ['short', 'long', 'lfnsum', 'copies', 'lost']
count = dict.fromkeys(kinds + ['fsinfo'], 0)
count['fsinfo'] = 1
for k in range(total - 1): count[kinds[k % 5]] += 1
rng = random.Random(seed)
withcl = [k for k in range(len(files)) if files[k][4]]
withlfn = [k for k in range(len(files)) if files[k][1]]
need = count['short'] + count['long'] + count['copies']
if need + count['lfnsum'] > len(withcl) or count['long'] + count['lost'] > len(free):
    sys.exit('inject.py: %s is too small for %d problems (%d files, %d free clusters)'
             % (img, total, len(files), len(free)))
picked = rng.sample(withcl, need)
taken = set(picked)
lfnsum = rng.sample([k for k in withlfn if k not in taken], count['lfnsum'])
newcl = rng.sample(free, count['long'] + count['lost'])

out, ed = open(listing, 'w'), open(edits, 'w')
def pwrite(b, off): ed.write('%d %s\n' % (off, bytes(b).hex()))
def setfat(c, v, copies):
    for k in copies: pwrite(struct.pack('<I', v), fat_off[k] + 4 * c)
short, long_, copies = picked[:count['short']], picked[count['short']:count['short'] + count['long']], picked[count['short'] + count['long']:]
for k in short:                          # DIR_FileSize past the chain's end
    pos, lfn, fc, size, cls, e = files[k]
    new = len(cls) * cs + rng.randrange(1, cs + 1)
    pwrite(struct.pack('<I', new), pos + 28)
    out.write('short entry %d DIR_FileSize %d -> %d, %d clusters\n' % (pos, size, new, len(cls)))
for k, c in zip(long_, newcl):           # one free cluster appended to the chain
    pos, lfn, fc, size, cls, e = files[k]
    setfat(cls[-1], c, range(nfats)); setfat(c, 0x0FFFFFFF, range(nfats))
    out.write('long entry %d cluster %d appended to its %d-cluster chain (size %d)\n' % (pos, c, len(cls), size))
for k in lfnsum:                         # one bit of LDIR_Chksum in one part
    pos, lfn, fc, size, cls, e = files[k]
    p = lfn[rng.randrange(len(lfn))]
    b = os.pread(fd, 1, p + 13)[0] ^ (1 << rng.randrange(8))
    pwrite([b], p + 13)
    out.write('lfnsum entry %d LDIR_Chksum at byte %d -> %#04x\n' % (pos, p + 13, b))
for k in copies:                         # the second FAT says free where the first does not
    pos, lfn, fc, size, cls, e = files[k]
    c = cls[rng.randrange(len(cls))]
    setfat(c, 0, range(1, nfats))
    out.write('copies cluster %d FAT[%d] = %#x in the first FAT, 0 in the others (entry %d)\n' % (c, c, fat[c], pos))
for c in sorted(newcl[count['long']:]):  # a free cluster marked end of chain
    setfat(c, 0x0FFFFFFF, range(nfats))
    out.write('lost cluster %d marked end of chain, no entry\n' % c)
fi = os.pread(fd, 512, fsinfo * bps)
fc_old = struct.unpack_from('<I', fi, 488)[0]
fc_new = (len(free) - count['long'] - count['lost'] + 12345) % (ccount + 1)
pwrite(struct.pack('<I', fc_new), fsinfo * bps + 488)
out.write('fsinfo sector %d FSI_Free_Count %d -> %d\n' % (fsinfo, fc_old, fc_new))
out.close(); ed.close()
print(' '.join('%s=%d' % (k, count[k]) for k in kinds + ['fsinfo']),
      'files=%d free_clusters=%d clusters=%d cluster_size=%d' % (len(files), len(free), ccount, cs))
EOF

# restore.py CLEAN COPY EDITS
# Makes COPY (a copy of CLEAN, perhaps repaired since) the damaged image
# again, byte for byte, without a new cp of the sparse 16 GiB image (and
# the delete of the old one, slow on this VM's ext4): the 4 KiB blocks of
# COPY that differ from CLEAN, in the data ranges of either file
# (SEEK_DATA/SEEK_HOLE), are written back from CLEAN, then the edits of
# inject.py are applied and COPY is fsync'ed.  Prints the data ranges
# compared and the bytes written back.
cat > "$tmpd/restore.py" <<'EOF'
import os, sys
clean, copy, edits = sys.argv[1:4]
fm, fc = os.open(clean, os.O_RDONLY), os.open(copy, os.O_RDWR)
size = os.fstat(fm).st_size
if os.fstat(fc).st_size != size: sys.exit('restore.py: %s and %s differ in size' % (clean, copy))
def ranges(fd):
    off, out = 0, []
    while off < size:
        try: a = os.lseek(fd, off, os.SEEK_DATA)
        except OSError: break
        off = os.lseek(fd, a, os.SEEK_HOLE)
        out.append((a, off))
    return out
merged = []
for a, b in sorted(ranges(fm) + ranges(fc)):
    if merged and a <= merged[-1][1]: merged[-1][1] = max(merged[-1][1], b)
    else: merged.append([a, b])
CH, BLK, back = 1 << 20, 4096, 0
for a, b in merged:
    for o in range(a, b, CH):
        n = min(CH, b - o)
        m, c = os.pread(fm, n, o), os.pread(fc, n, o)
        if m == c: continue
        for i in range(0, n, BLK):
            if m[i:i + BLK] != c[i:i + BLK]:
                os.pwrite(fc, m[i:i + BLK], o + i); back += len(m[i:i + BLK])
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

# fat-bench.sh owns the FAT image cache: it builds what is missing and
# measures nothing.
FATSCOPE_BENCH_CACHE=$cache BENCH_BUILD_ONLY=1 "$script_dir/fat-bench.sh" ||
	die "fat-bench.sh could not build the image cache in $cache"
img=$cache/$label.v1.img
[[ -f $img ]] || die "$img is missing after fat-bench.sh"

# Room for the scratch copy, 10% to spare.
need_kib=$(( $(du -k -- "$img" | cut -f1) * 11 / 10 ))
have_kib=$(df -Pk -- "$tmpd" | awk 'NR == 2 { print $4 }')
(( have_kib >= need_kib )) ||
	die "$tmpd has $(( have_kib / 1024 )) MiB free; the copy of $img needs $(( need_kib / 1024 )) MiB (set TMPDIR)"

# ---------------------------------------------------------------- measure

# Make $run_img the damaged image, fresh: the first time a cp of the clean
# image, then (and after every repair) restore.py.  The time goes to
# $tmpd/copy.us and is in no figure.
fresh_copy() {
	local t0
	now_us; t0=$_now
	if [[ ! -f $run_img ]]; then
		cp --sparse=always -- "$img" "$run_img" || die "cp $img $run_img failed"
	fi
	python3 "$tmpd/restore.py" "$img" "$run_img" "$tmpd/injected.edits" > "$tmpd/restore.out" ||
		die "could not restore $run_img to the damaged image"
	now_us
	echo $(( _now - t0 )) >> "$tmpd/copy.us"
}

check_rc_ok=0		# fatscope fsck -n's exit code on the clean image (warm-up)
damaged_rc_ok=4		# and on the damaged one
repair_rc_ok=1		# fatscope fsck -y's exit code on the damaged image (warm-up)
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
# shellcheck disable=SC2317
run_repair() {
	local rc=0
	"$@" "$FATSCOPE" fsck -y -- "$run_img" > "$tmpd/repair.out" 2>&1 < /dev/null || rc=$?
	if (( rc != repair_rc_ok )); then
		sed -n 1,20p "$tmpd/repair.out" >&2
		die "fatscope fsck -y of the damaged image $run_img exited $rc (warm-up: $repair_rc_ok)"
	fi
}

# Each timed call (lib.sh) comes right after an untimed one, so that the
# page cache is warm: before a repair a check of the same damaged image.
# shellcheck disable=SC2317
before_timed() {
	# shellcheck disable=SC2119
	if [[ $1 == repair ]]; then run_damaged; else "run_$1"; fi
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
# fsck.fat -n on $1: sets $_rc ("n/a" when fsck.fat is not installed) and
# $_line (its last line).
fat_check_peer() {
	_rc=n/a; _line="not installed"
	[[ -n $FSCK_FAT ]] || return 0
	_rc=0
	"$FSCK_FAT" -n -- "$1" > "$tmpd/e.out" 2>&1 < /dev/null || _rc=$?
	_line=$(tail -n1 "$tmpd/e.out" | sed "s|^$1: ||")
}

# count_checks IMAGE: the calls of fat_check (libexfat/check/fat_check.c,
# internal but in the symbol table) during one fatscope fsck -y of IMAGE,
# under gdb with a silent counting breakpoint; into $_checks ("n/a" when
# gdb is missing or cannot set the breakpoint).
count_checks() {
	_checks=n/a
	[[ -n $GDB ]] || return 0
	cat > "$tmpd/count.gdb" <<'EOF'
set pagination off
set confirm off
set breakpoint pending on
set $n = 0
break fat_check
commands
silent
set $n = $n + 1
continue
end
run
printf "fat_check calls: %d\n", $n
EOF
	"$GDB" -q -nx -batch -x "$tmpd/count.gdb" --args "$FATSCOPE" fsck -y -- "$1" > "$tmpd/gdb.out" 2>&1 < /dev/null || true
	grep -q 'exited with code 01\]' "$tmpd/gdb.out" || { sed -n 1,10p "$tmpd/gdb.out"; return 0; }
	_checks=$(sed -n 's/^fat_check calls: \([0-9]*\)$/\1/p' "$tmpd/gdb.out" | tail -n1)
	[[ -n $_checks && $_checks != 0 ]] || _checks=n/a
}


fatscope_notes "$root" "fatscope:" "and gdb cannot count"
if [[ -n $FSCK_FAT ]]; then
	note "fsck.fat: $FSCK_FAT (dosfstools $(dpkg-query -W -f '${Version}' dosfstools 2>/dev/null || echo '?'))"
else
	note "fsck.fat: not installed (apt-get install -y dosfstools): the repaired volume is checked by fatscope only"
fi
note "image: $img ($(du -h --apparent-size -- "$img" | cut -f1) apparent, $(du -h -- "$img" | cut -f1) on disk)"
note "work directory: $tmpd; $runs timed runs of each, alternating"
note "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

# The problems, planned on the clean image and written into a copy of it.
now_us; t0=$_now
summary=$(python3 "$tmpd/inject.py" "$img" "$seed" "$problems" "$tmpd/injected.list" "$tmpd/injected.edits") ||
	die "could not plan the problems to inject into $img"
now_us
declare -A inj=()
for kv in $summary; do inj[${kv%%=*}]=${kv#*=}; done
injected=$(( inj[short] + inj[long] + inj[lfnsum] + inj[copies] + inj[lost] + inj[fsinfo] ))
note "injected $injected problems (seed $seed; planned in $(fmt_ms $(( _now - t0 ))) ms):" \
	"${inj[short]} sizes past the chain, ${inj[long]} chains a cluster too long," \
	"${inj[lfnsum]} LDIR_Chksum bit flips, ${inj[copies]} entries free in the second FAT only," \
	"${inj[lost]} lost clusters, FSInfo free count ${inj[fsinfo]}" \
	"(among ${inj[files]} files and ${inj[free_clusters]} free clusters of ${inj[clusters]})"
: > "$tmpd/copy.us"
fresh_copy
note "damaged image: $run_img (a cp --sparse=always of the clean one, $(wc -l < "$tmpd/injected.edits") writes;" \
	"$(fmt_ms "$(tail -n1 "$tmpd/copy.us")") ms)"

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
fat_check_peer "$run_img"
note "damaged image: fsck.fat -n (exit $_rc): $_line"

rc=0
"$FATSCOPE" fsck -y -- "$run_img" > "$tmpd/repair.out" 2>&1 < /dev/null || rc=$?
case $rc in
1) ;;
4|5) note "WARNING: fatscope fsck -y exited $rc: errors left uncorrected:"
   grep -v '^fixed ' "$tmpd/repair.out" | sed -n 1,20p ;;
0) die "fatscope fsck -y exited 0 on the damaged image: it repaired nothing" ;;
*) sed -n 1,20p "$tmpd/repair.out" >&2; die "fatscope fsck -y of the damaged image exited $rc in the warm-up run" ;;
esac
repair_rc_ok=$rc
fixed_line=$(grep -E '^[^ ].*: [0-9]+ problems? fixed, ' "$tmpd/repair.out" | tail -n1 | sed "s|^$run_img: ||")
note "fatscope fsck -y (exit $rc): ${fixed_line:-no \"fixed\" line in its output}"
nleft=$(grep -c '^left ' "$tmpd/repair.out" || true)
(( nleft == 0 )) || note "WARNING: fatscope fsck -y left $nleft findings unplanned (\"left\" lines)"

# The repaired volume, checked again by both checkers.
findings "$run_img"
after_rc=$_rc after_nf=$_nf
note "after repair: fatscope fsck -n (exit $_rc): $_nf findings; listed: $_nl, $_ne errors, $_nw warnings ($_ids)"
if (( _rc != 0 )); then
	"$FATSCOPE" fsck -n -- "$run_img" 2>&1 < /dev/null | sed -n 1,20p || true
fi
fat_check_peer "$run_img"
after_fat=$_rc
note "after repair: fsck.fat -n (exit $_rc): $_line"
if [[ $_rc != 0 && $_rc != n/a ]]; then
	sed -n 1,20p "$tmpd/e.out"
fi

# The full checks of one repair (issue 22: at most 2 on this image).
if [[ -n $GDB ]]; then
	fresh_copy
	count_checks "$run_img"
	note "full checks in one repair: $_checks (calls of fat_check during one fatscope fsck -y, counted by gdb)"
else
	_checks=n/a
	note "full checks in one repair: not counted (gdb not installed: apt-get install -y gdb)"
fi
checks=$_checks

echo
for f in check.us repair.us damaged.us copy.us check.rss repair.rss; do
	: > "$tmpd/$f"
done
for (( r = 1; r <= runs; r++ )); do
	fresh_copy
	timed damaged; ud=$_us
	# Alternate check and repair, swapping which goes first every run.
	alternate "$r" check repair; uc=$_u1 uy=$_u2
	rss check
	fresh_copy
	rss repair
	printf 'run %d: fsck -y %s ms, clean fsck -n %s ms, ratio %s; damaged fsck -n %s ms; peak RSS -y %s KiB, -n %s KiB; restore %s ms (not timed)\n' \
		"$r" "$(fmt_ms "$uy")" "$(fmt_ms "$uc")" "$(ratio "$uy" "$uc")" "$(fmt_ms "$ud")" \
		"$(tail -n1 "$tmpd/repair.rss")" "$(tail -n1 "$tmpd/check.rss")" "$(fmt_ms "$(tail -n1 "$tmpd/copy.us")")"
done

my=$(median < "$tmpd/repair.us"); mc=$(median < "$tmpd/check.us"); md=$(median < "$tmpd/damaged.us")
ry=$(median < "$tmpd/repair.rss"); rn=$(median < "$tmpd/check.rss")
tr=$(ratio "$my" "$mc"); tv=$(verdict "$my" "$mc" "$limit")
clean_after=1
[[ $after_rc == 0 && ($after_fat == 0 || $after_fat == n/a) ]] || clean_after=0
printf 'median of %d runs: fsck -y %s ms, clean fsck -n %s ms; damaged fsck -n %s ms; restore %s ms (not timed)\n' \
	"$runs" "$(fmt_ms "$my")" "$(fmt_ms "$mc")" "$(fmt_ms "$md")" "$(fmt_ms "$(median < "$tmpd/copy.us")")"
printf 'ratios to the clean fsck -n: fsck -y %s, damaged fsck -n %s\n' "$tr" "$(ratio "$md" "$mc")"
printf 'peak RSS (median): fsck -y %s KiB, clean fsck -n %s KiB, ratio %s\n' "$ry" "$rn" "$(ratio "$ry" "$rn")"
printf 'full checks in one repair: %s\n' "$checks"

echo
note "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
(( clean_after )) ||
	note "FAIL: the repaired volume is not clean (fatscope fsck -n exit $after_rc, fsck.fat -n exit $after_fat)"
printf '%s: %s with %d injected problems: fsck -y %s ms, clean fsck -n %s ms, ratio %s (limit %.2f): %s; after repair: fatscope -n exit %s (%s findings), fsck.fat -n exit %s; peak RSS of -y %s MiB vs -n %s MiB (ratio %s); full checks in one repair: %s\n' \
	"$prog" "$label" "$injected" "$(fmt_ms "$my")" "$(fmt_ms "$mc")" "$tr" "$limit" "$tv" \
	"$after_rc" "$after_nf" "$after_fat" "$(fmt_mib "$ry")" "$(fmt_mib "$rn")" "$(ratio "$ry" "$rn")" "$checks"

if [[ $tv != PASS || $clean_after != 1 ]] && [[ $report_only != 1 ]]; then
	exit 1
fi
exit 0
