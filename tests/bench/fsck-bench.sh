#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fsck-bench.sh - time `fatscope fsck -n` against `fsck.exfat -n`
# (exfatprogs) on two populated exFAT images: 100,000 files in 10,100
# directories on a sparse 16 GiB image, and 1,000 files in 10 directories
# on a sparse 1 GiB image.  Also measures "the floor" (reading every
# metadata byte once from the page cache), peak RSS, and fatscope's RSS
# per cluster.
#
# The images are built once (root: loop device + mount.exfat-fuse) and
# cached.  See tests/bench/README.md for what is measured and the
# environment variables.  Exit status: 0 PASS (or BENCH_REPORT_ONLY=1),
# 1 FAIL, 2 setup or run error.  BENCH_BUILD_ONLY=1 builds (or checks) the
# cached images and exits 0 without measuring: repair-bench.sh uses that.

set -euo pipefail

prog=fsck-bench
# shellcheck source=tests/bench/lib.sh
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/lib.sh"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd -- "$script_dir/../.." && pwd -P)

# ---------------------------------------------------------------- settings

runs=${BENCH_RUNS:-5}
limit=${BENCH_LIMIT:-0.50}
rss_limit=${BENCH_RSS_LIMIT:-1.00}
report_only=${BENCH_REPORT_ONLY:-0}
build_only=${BENCH_BUILD_ONLY:-0}
cache=${FATSCOPE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fatscope-bench/fsck}
fatscope_default "$root"
FSCK_EXFAT=${FSCK_EXFAT:-fsck.exfat}

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer (got '$runs')"
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_LIMIT must be a number (got '$limit')"
[[ $rss_limit =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_RSS_LIMIT must be a number (got '$rss_limit')"
[[ $build_only == [01] ]] || die "BENCH_BUILD_ONLY must be 0 or 1 (got '$build_only')"

# The images: label -> "size top-dirs sub-dirs-per-top files-per-leaf-dir".
# sub-dirs 0: the files go straight into the top directories.
# Bump recipe_version when the way an image is populated changes.
recipe_version=2
labels=(${BENCH_IMAGES:-100k 10k 1k})
declare -A spec=(
	[100k]="16G 100 100 10"		# d0000..d0099/e00..e99, 10 files each
	[10k]="2G 100 10 10"		# d0000..d0099/e00..e09, 10 files each (issue #13's 2 GiB, 10,000-file image)
	[1k]="1G 10 0 100"		# d0000..d0009, 100 files each
)
tiny_size=8M			# empty image: the RSS baseline

# ---------------------------------------------------------------- tools

need() { command -v "$1" >/dev/null || die "$1 not found ($2)"; }
need python3 "apt-get install -y python3"
# exfatprogs builds and verifies the images and is measured against.
need_exfatprogs() {
	need mkfs.exfat "apt-get install -y exfatprogs"
	need "$FSCK_EXFAT" "apt-get install -y exfatprogs"
	FSCK_EXFAT=$(command -v "$FSCK_EXFAT")
}

# With BENCH_BUILD_ONLY=1 only what building an image needs is checked,
# and only when an image is built.
if [[ $build_only != 1 ]]; then
	need_exfatprogs

	fatscope_check

	# Peak RSS is part of the verdict, so GNU time is required.
	gnu_time required
fi


# ---------------------------------------------------------------- cleanup

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/fsck-bench.XXXXXX")
loop_dev=		# the loop device this script attached, if any
mnt=			# mounted while non-empty
fuse_pid=		# the mount.exfat-fuse daemon serving $mnt
new_img=		# an image being built (removed on failure)

# Wait (up to 60 s) for the FUSE daemon to finish writing and exit.
wait_fuse() {
	local i
	[[ -n $fuse_pid ]] || return 0
	for (( i = 0; i < 600; i++ )); do
		[[ -d /proc/$fuse_pid ]] || { fuse_pid=; return 0; }
		sleep 0.1
	done
	note "warning: mount.exfat-fuse (pid $fuse_pid) still running 60 s after umount" >&2
	return 1
}

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$? keep=
	if [[ -n $mnt ]] && mountpoint -q -- "$mnt"; then
		umount -- "$mnt" || umount -l -- "$mnt" || keep=1
	fi
	mnt=
	wait_fuse || true
	if [[ -n $loop_dev ]]; then
		losetup -d "$loop_dev" || note "warning: could not detach $loop_dev" >&2
		loop_dev=
	fi
	[[ -n $new_img ]] && rm -f -- "$new_img"
	if [[ -n $keep ]]; then
		note "warning: $tmpd/mnt is still mounted; $tmpd left in place" >&2
	else
		rm -rf -- "$tmpd"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- helpers (python)

# populate.py MOUNTPOINT TOP SUB FILES CLUSTER_SIZE
# Writes the tree; prints "files bytes directories" on stdout, progress on
# stderr. The content is deterministic: slices of one 128 KiB block made
# from SHA-256 of a counter (no /dev/urandom). File sizes (0..64 KiB, from
# a multiplicative hash of the file number): 5% empty, 55% 1..4 KiB, 25%
# 4..32 KiB, 15% 32..64 KiB. In every 10th leaf directory two of the ten
# files are 2-cluster files written interleaved one cluster at a time, so
# that they get FAT chains (non-contiguous); all others are contiguous.
cat > "$tmpd/populate.py" <<'EOF'
import hashlib, os, sys, time
mnt, ntop, nsub, nfiles, cs = sys.argv[1], *map(int, sys.argv[2:6])
blk = b''.join(hashlib.sha256(b'fatscope fsck-bench %d' % i).digest() for i in range(4096))
def size_of(n):
    h = (n * 2654435761 + 12345) & 0xffffffff
    r, v = h % 100, h >> 8
    if r < 5: return 0
    if r < 60: return 1 + v % 4096
    if r < 85: return 4097 + v % (32768 - 4096)
    return 32769 + v % 32768
suffix = ["", ".dat", ".txt", "-with-a-longer-name", "-a-name-long-enough-for-four-name-entries"]
n = nbytes = ndirs = leaf = 0
t0 = time.monotonic()
def fill(d):
    global n, nbytes, leaf
    frag = leaf % 10 == 0
    leaf += 1
    for j in range(nfiles - 2 if frag else nfiles):
        sz = size_of(n); o = (n * 97) % 65536
        with open(os.path.join(d, "f%d_%06d%s" % (j, n, suffix[n % 5])), "wb", buffering=0) as f:
            if sz: f.write(blk[o:o + sz])
        n += 1; nbytes += sz
    if frag:
        fs = [open(os.path.join(d, "g%d_%06d.frag" % (j, n + j)), "wb", buffering=0) for j in range(2)]
        for k in range(2):
            for j, f in enumerate(fs):
                o = (n + j) * 31 % 65536
                f.write(blk[o + k * cs:o + (k + 1) * cs])
        for f in fs: f.close()
        n += 2; nbytes += 4 * cs
for a in range(ntop):
    da = os.path.join(mnt, "d%04d" % a); os.mkdir(da); ndirs += 1
    if nsub == 0:
        fill(da)
    for b in range(nsub):
        db = os.path.join(da, "e%02d" % b); os.mkdir(db); ndirs += 1
        fill(db)
    if ntop >= 10 and a % (ntop // 10) == ntop // 10 - 1:
        print("  %6d files, %5d directories, %7.1f s" % (n, ndirs, time.monotonic() - t0),
              file=sys.stderr, flush=True)
print(n, nbytes, ndirs)
EOF

# meta.py IMAGE RANGES_OUT
# Walks the exFAT volume in IMAGE (no fatscope, no exfatprogs) and writes
# the byte ranges of all metadata, sorted and merged, one "offset length"
# per line: both boot regions (24 sectors), the FAT entries of the first
# FAT ((ClusterCount + 2) * 4 bytes), the allocation bitmap and up-case
# table (their DataLength), and every cluster of every directory (whole
# clusters, root included). Prints a summary line.
cat > "$tmpd/meta.py" <<'EOF'
import os, struct, sys
img, out = sys.argv[1], sys.argv[2]
fd = os.open(img, os.O_RDONLY)
bs = os.pread(fd, 512, 0)
if bs[3:11] != b'EXFAT   ': sys.exit('meta.py: %s: not exFAT' % img)
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
fixed = [(0, 24 * ss), (fat_off * ss, (ccount + 2) * 4)]
full, inuse = [], []
ndirs = nfiles = ndclus = nfrag = 0
stack = [(root, 0, False)]
while stack:
    c, length, nofat = stack.pop()
    cl = chain(c, length, nofat)
    ndirs += 1; ndclus += len(cl)
    full += [(coff(x), cs) for x in cl]
    data = b''.join(os.pread(fd, cs, coff(x)) for x in cl)
    i = 0
    used = len(data)
    while i + 32 <= len(data):
        t = data[i]
        if t == 0:                             # end of directory
            used = min(len(data), (i + 32 + ss - 1) // ss * ss); break
        if t in (0x81, 0x82):                  # bitmap, up-case table
            fc, dl = struct.unpack_from('<IQ', data, i + 20)
            left = dl
            for x in chain(fc, dl, False):
                fixed.append((coff(x), min(cs, left))); left -= cs
        elif t == 0x85 and i + 64 <= len(data) and data[i + 32] == 0xC0:
            sc, attr = data[i + 1], struct.unpack_from('<H', data, i + 4)[0]
            flags = data[i + 33]
            fc, dl = struct.unpack_from('<IQ', data, i + 52)
            if attr & 0x10:
                if fc: stack.append((fc, dl, bool(flags & 2)))
            else:
                nfiles += 1
                if fc and not flags & 2: nfrag += 1
            i += 32 * (1 + sc); continue
        i += 32
    for k, x in enumerate(cl):
        if k * cs < used: inuse.append((coff(x), min(cs, used - k * cs)))
def write(rs, path):
    rs.sort()
    merged = []
    for o, l in rs:
        if merged and o <= merged[-1][0] + merged[-1][1]:
            a, b = merged[-1]; merged[-1] = (a, max(a + b, o + l) - a)
        else:
            merged.append((o, l))
    with open(path, 'w') as f:
        for o, l in merged: f.write('%d %d\n' % (o, l))
    return len(merged), sum(l for o, l in merged)
n1, b1 = write(fixed + full, out)
n2, b2 = write(fixed + inuse, out + '.inuse')
print('clusters=%d cluster_size=%d dirs=%d files=%d fatchain_files=%d dir_clusters=%d ranges=%d bytes=%d inuse_ranges=%d inuse_bytes=%d'
      % (ccount, cs, ndirs, nfiles, nfrag, ndclus, n1, b1, n2, b2))
EOF

# floor.py IMAGE RANGES
# The floor: reads each range once with os.preadv() into one reused,
# pre-faulted 4 MiB buffer (ranges longer than that are read in 4 MiB
# pieces), and prints the time of the read loop alone in microseconds
# (interpreter start-up and parsing the range list are not timed).
cat > "$tmpd/floor.py" <<'EOF'
import os, sys, time
img, rfile = sys.argv[1], sys.argv[2]
CH = 4 << 20
rs = []
for line in open(rfile):
    o, l = map(int, line.split())
    while l > CH: rs.append((o, CH)); o += CH; l -= CH
    rs.append((o, l))
buf = bytearray(CH); mv = memoryview(buf)
for i in range(0, CH, 4096): buf[i] = 1
views = {}
rs = [(o, l, views.setdefault(l, [mv[:l]])) for o, l in rs]
fd = os.open(img, os.O_RDONLY)
pv = os.preadv
t0 = time.perf_counter_ns()
for o, l, v in rs:
    if pv(fd, v, o) != l: sys.exit('floor.py: short read at %d' % o)
t1 = time.perf_counter_ns()
print((t1 - t0) // 1000)
EOF

# floor.c: the same loop in C - pread(2) per range into one reused,
# pre-faulted 4 MiB buffer, timed with CLOCK_MONOTONIC around the loop.
# With a third argument N, N threads share the ranges (round robin), each
# with its own buffer: the floor of a reader that uses N CPUs.  Compiled at
# run time into the temporary directory when a C compiler is there (it has
# the least overhead per range); else floor.py is used (one thread only).
cat > "$tmpd/floor.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { CH = 4 << 20 };
static long long (*r)[2];
static size_t n, nthreads = 1;
static int fd, failed;

/* Thread k reads ranges k, k + nthreads, ... into its own pre-faulted buffer. */
static void *reader(void *arg)
{
	size_t k = (size_t)arg;
	char *buf = malloc(CH);

	if (!buf)
		return failed = 1, NULL;
	for (size_t i = 0; i < CH; i += 4096)
		buf[i] = 1;
	for (size_t i = k; i < n; i += nthreads)
		if (pread(fd, buf, (size_t)r[i][1], r[i][0]) != r[i][1])
			return fprintf(stderr, "floor: short read at %lld\n", r[i][0]), failed = 1, NULL;
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	long long o, l;
	size_t cap = 0;
	struct timespec a, b;
	pthread_t t[64];
	FILE *f;

	if (argc < 3 || argc > 4 || !(f = fopen(argv[2], "r")) || (fd = open(argv[1], O_RDONLY)) < 0)
		return 2;
	if (argc == 4 && ((nthreads = strtoul(argv[3], NULL, 10)) < 1 || nthreads > 64))
		return 2;
	while (fscanf(f, "%lld %lld", &o, &l) == 2) {
		for (; l > 0; o += CH, l -= CH) {
			if (n == cap && !(r = realloc(r, (cap = cap ? 2 * cap : 4096) * sizeof(*r))))
				return 2;
			r[n][0] = o;
			r[n++][1] = l < CH ? l : CH;
		}
	}
	/* Thread start-up (and the buffers' page faults) are timed: a threaded reader pays them. */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (size_t k = 1; k < nthreads; k++)
		if (pthread_create(&t[k], NULL, reader, (void *)k))
			return 2;
	reader((void *)0);
	for (size_t k = 1; k < nthreads; k++)
		pthread_join(t[k], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (failed)
		return 2;
	printf("%lld\n", ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec) / 1000);
	return 0;
}
EOF
floor_threads=		# the two-thread floor needs floor.c
floor_reader=("python3" "$tmpd/floor.py")
floor_how="python3 os.preadv() per range (no C compiler found)"
if [[ $build_only != 1 ]] && cc=$(command -v "${CC:-cc}" || command -v gcc) &&
   "$cc" -O2 -pthread -o "$tmpd/floor" "$tmpd/floor.c" 2> "$tmpd/floor.cc.log"; then
	floor_reader=("$tmpd/floor")
	floor_how="C pread(2) per range, compiled at run time with $cc"
	floor_threads=2
fi

# ---------------------------------------------------------------- cache

img_path() { printf '%s/%s.img' "$cache" "$1"; }
stamp_path() { printf '%s/%s.stamp' "$cache" "$1"; }

# What the stamp must say for image $1 (the "info" lines are not compared).
stamp_want() {
	local label=$1 size top sub files
	read -r size top sub files <<< "${spec[$label]:-$tiny_size 0 0 0}"
	printf 'recipe %s\nimage %s size %s top-dirs %s sub-dirs %s files-per-dir %s\n' \
		"$recipe_version" "$label" "$size" "$top" "$sub" "$files"
}
file_id() { stat -c 'file %s %Y' -- "$1"; }

stamp_ok() {
	local label=$1 img st
	img=$(img_path "$label"); st=$(stamp_path "$label")
	[[ -f $img && -f $st ]] || return 1
	[[ $(grep -v '^info ' -- "$st") == "$(stamp_want "$label"; file_id "$img")" ]]
}

# Find the mount.exfat-fuse daemon serving $1 (our loop device) - only to
# wait for it to exit after umount; it is never signalled.
find_fuse_pid() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null < "$p/cmdline") || continue
		if [[ $c == *mount.exfat-fuse*" $1 "* ]]; then
			printf '%s\n' "${p#/proc/}"
			return 0
		fi
	done
	return 1
}

mkfs_image() { # path size
	truncate -s "$2" -- "$1"
	mkfs.exfat -- "$1" > "$tmpd/mkfs.log" 2>&1 || { cat "$tmpd/mkfs.log" >&2; die "mkfs.exfat $1 failed"; }
}

verify_image() { # path -> fsck.exfat -n must say clean
	local rc=0
	"$FSCK_EXFAT" -n -- "$1" > "$tmpd/verify.log" 2>&1 < /dev/null || rc=$?
	if (( rc != 0 )); then
		sed -n 1,20p "$tmpd/verify.log" >&2
		die "fsck.exfat -n $1 exited $rc: the new image is not clean"
	fi
	grep -v '^exfatprogs version' "$tmpd/verify.log" | tail -n1 | sed "s|^$1: ||"
}

build_image() {
	local label=$1 size top sub files img st t0 t1 cs out nf nb nd secs vline
	read -r size top sub files <<< "${spec[$label]}"
	need_exfatprogs
	command -v losetup >/dev/null || die "losetup not found (apt-get install -y mount)"
	command -v mount.exfat-fuse >/dev/null || die "mount.exfat-fuse not found (apt-get install -y exfat-fuse)"
	[[ $(id -u) == 0 ]] || die "building the $label image needs root (loop device and mount)"
	[[ -e /dev/fuse ]] || die "/dev/fuse is missing"
	img=$(img_path "$label"); st=$(stamp_path "$label")
	mkdir -p -- "$cache"
	rm -f -- "$st"
	new_img=$cache/$label.img.new
	rm -f -- "$new_img"
	note "building the $label image ($size sparse, $top top directories" \
		"x $(( sub ? sub : 1 )) x $files files) in $cache (once; cached) ..."
	mkfs_image "$new_img" "$size"
	cs=$(python3 -c 'import sys; b = open(sys.argv[1], "rb").read(512); print(1 << (b[108] + b[109]))' "$new_img")
	loop_dev=$(losetup --find --show -- "$new_img")
	mkdir -p -- "$tmpd/mnt"
	mount.exfat-fuse "$loop_dev" "$tmpd/mnt" > "$tmpd/fuse.log" 2>&1 ||
		{ cat "$tmpd/fuse.log" >&2; die "mount.exfat-fuse $loop_dev failed"; }
	mnt=$tmpd/mnt
	fuse_pid=$(find_fuse_pid "$loop_dev") || fuse_pid=
	now_us; t0=$_now
	out=$(python3 "$tmpd/populate.py" "$mnt" "$top" "$sub" "$files" "$cs")
	now_us; t1=$_now
	read -r nf nb nd <<< "$out"
	secs=$(awk -v us=$(( t1 - t0 )) 'BEGIN { printf "%.1f", us / 1e6 }')
	umount -- "$mnt"
	mnt=
	wait_fuse || die "mount.exfat-fuse did not exit after umount"
	now_us
	losetup -d "$loop_dev"
	loop_dev=
	note "populated in $secs s (+ $(awk -v us=$(( _now - t1 )) 'BEGIN { printf "%.1f", us / 1e6 }') s umount):" \
		"$nf files, $nd directories, $nb bytes of file data"
	vline=$(verify_image "$new_img")
	note "fsck.exfat -n: $vline"
	mv -- "$new_img" "$img"
	new_img=
	{
		stamp_want "$label"
		file_id "$img"
		printf 'info built %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf 'info populate %s s, %s files, %s directories, %s bytes of file data\n' "$secs" "$nf" "$nd" "$nb"
		printf 'info mkfs.exfat %s; %s\n' "$(mkfs.exfat -V 2>&1 | sed -n 's/^exfatprogs version : //p' | head -n1)" \
			"$(mount.exfat-fuse -V 2>&1 | head -n1)"
		printf 'info fsck.exfat -n: %s\n' "$vline"
	} > "$st"
}

build_tiny() {
	local img st
	img=$(img_path tiny); st=$(stamp_path tiny)
	need_exfatprogs
	mkdir -p -- "$cache"
	rm -f -- "$st"
	new_img=$cache/tiny.img.new
	rm -f -- "$new_img"
	mkfs_image "$new_img" "$tiny_size"
	verify_image "$new_img" > /dev/null
	mv -- "$new_img" "$img"
	new_img=
	{ stamp_want tiny; file_id "$img"; printf 'info built %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$st"
}

for label in "${labels[@]}"; do
	stamp_ok "$label" || build_image "$label"
done
stamp_ok tiny || build_tiny
[[ $build_only != 1 ]] || exit 0

# ---------------------------------------------------------------- measure


fs_rc_ok=0		# fatscope exit codes seen in the warm-up, per image
# Called as "run_$1 IMAGE [WRAPPER...]".
# shellcheck disable=SC2317
run_fatscope() {
	local img=$1 rc=0; shift
	"$@" "$FATSCOPE" fsck -n -- "$img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == fs_rc_ok )) || die "fatscope fsck -n $img exited $rc (warm-up: $fs_rc_ok)"
}
# The same with FATSCOPE_THREADS=1: the check in one thread.
# shellcheck disable=SC2317
run_fatscope1() {
	local img=$1 rc=0; shift
	FATSCOPE_THREADS=1 "$@" "$FATSCOPE" fsck -n -- "$img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == fs_rc_ok )) || die "FATSCOPE_THREADS=1 fatscope fsck -n $img exited $rc (warm-up: $fs_rc_ok)"
}
# shellcheck disable=SC2317
run_fsck_exfat() {
	local img=$1 rc=0; shift
	"$@" "$FSCK_EXFAT" -n -- "$img" > /dev/null 2>&1 < /dev/null || rc=$?
	(( rc == 0 )) || die "fsck.exfat -n $img exited $rc"
}


# Heap peak (bytes) of one call of tool $1 on image $2 under valgrind
# massif (heap only: malloc & co; no mmap'ed file pages, no stacks).
heap_peak() {
	local out=$tmpd/massif.$1
	rm -f -- "$out"
	"run_$1" "$2" valgrind -q --tool=massif --massif-out-file="$out"
	sed -n 's/^mem_heap_B=//p' "$out" | sort -n | tail -n1
}

bin_before=$(fatscope_id)

heap=${BENCH_HEAP:-auto}
if [[ $heap == auto ]]; then
	if command -v valgrind >/dev/null; then heap=1; else heap=0; fi
fi

note "fatscope:   $FATSCOPE ($("$FATSCOPE" --version 2>&1 | head -n1))"
if src=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
	[[ -z $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] || src="$src + uncommitted changes"
	note "            source tree at $src"
fi
note "fsck.exfat: $FSCK_EXFAT ($("$FSCK_EXFAT" -V 2>&1 | sed -n 's/^exfatprogs version : //p' | head -n1))"
if head -c 4096 -- "$FATSCOPE" | grep -q 'Generated by libtool'; then
	note "note: $FATSCOPE is a libtool wrapper script: its bash start-up is timed too"
fi
note "floor reader: $floor_how"
note "cache: $cache; $runs timed runs per tool and image, alternating"
note "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

# Baseline: the empty tiny image (peak RSS; heap peak under massif).
: > "$tmpd/fatscope.rss"; : > "$tmpd/fsck_exfat.rss"
tiny=$(img_path tiny)
fs_rc_ok=0
for (( r = 1; r <= runs; r++ )); do rss fatscope "$tiny"; rss fsck_exfat "$tiny"; done
base_f=$(median < "$tmpd/fatscope.rss")
base_e=$(median < "$tmpd/fsck_exfat.rss")
tiny_clusters=$(python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(512), 92)[0])' "$tiny")
note "baseline ($tiny_size empty image, $tiny_clusters clusters): peak RSS fatscope $base_f KiB, fsck.exfat $base_e KiB"
if (( heap )); then
	hbase_f=$(heap_peak fatscope "$tiny"); hbase_e=$(heap_peak fsck_exfat "$tiny")
	note "baseline heap peak (valgrind massif): fatscope $hbase_f B, fsck.exfat $hbase_e B"
fi

per_cluster() { # value base clusters base_clusters unit_bits -> bits per cluster
	awk -v a="$1" -v b="$2" -v c="$3" -v t="$4" -v u="$5" 'BEGIN { printf "%.1f", (a - b) * u / (c - t) }'
}

declare -A final
fail=0
for label in "${labels[@]}"; do
	img=$(img_path "$label")
	echo
	note "== $label: $img"
	note "image: $(du -h --apparent-size -- "$img" | cut -f1) apparent, $(du -h -- "$img" | cut -f1) on disk;" \
		"$(sed -n 's/^info populate \([^,]*\),.*/population took \1/p' "$(stamp_path "$label")")" \
		"(built $(sed -n 's/^info built //p' "$(stamp_path "$label")"))"
	summary=$(python3 "$tmpd/meta.py" "$img" "$tmpd/$label.ranges")
	declare -A m=()
	for kv in $summary; do m[${kv%%=*}]=${kv#*=}; done
	note "volume: ${m[clusters]} clusters of $(( m[cluster_size] / 1024 )) KiB; ${m[files]} files" \
		"(${m[fatchain_files]} with a FAT chain), ${m[dirs]} directories (root included)"
	note "metadata: $(fmt_mib $(( m[bytes] / 1024 ))) MiB in ${m[ranges]} ranges" \
		"(boot regions, FAT, bitmap, up-case table, ${m[dir_clusters]} whole directory clusters);" \
		"in-use part: $(fmt_mib $(( m[inuse_bytes] / 1024 ))) MiB in ${m[inuse_ranges]} ranges" \
		"(directories only up to their end-of-directory entry, in 512-byte sectors)"

	# Warm-up run of each tool (fills the page cache); check the results.
	rc=0
	"$FATSCOPE" fsck -n -- "$img" > "$tmpd/f.out" 2>&1 < /dev/null || rc=$?
	case $rc in
	0) ;;
	4) note "WARNING: fatscope fsck -n reports problems (exit 4) on an image fsck.exfat finds clean:"
	   sed -n 1,10p "$tmpd/f.out" ;;
	*) sed -n 1,10p "$tmpd/f.out" >&2; die "fatscope fsck -n exited $rc in the warm-up run" ;;
	esac
	fs_rc_ok=$rc
	note "fatscope fsck -n (exit $rc): $(tail -n1 "$tmpd/f.out")"
	rc=0
	"$FSCK_EXFAT" -n -- "$img" > "$tmpd/e.out" 2>&1 < /dev/null || rc=$?
	(( rc == 0 )) || { sed -n 1,10p "$tmpd/e.out" >&2; die "fsck.exfat -n exited $rc in the warm-up run"; }
	note "fsck.exfat -n (exit $rc): $(tail -n1 "$tmpd/e.out")"
	"${floor_reader[@]}" "$img" "$tmpd/$label.ranges" > /dev/null ||
		die "floor reader failed on $img"

	for f in fatscope.us fatscope1.us fsck_exfat.us floor.us floor2.us floor_inuse.us fatscope.rss fsck_exfat.rss; do
		: > "$tmpd/$f"
	done
	for (( r = 1; r <= runs; r++ )); do
		# Alternate the two tools, swapping which goes first every run.
		alternate "$r" fatscope fsck_exfat "$img"; uf=$_u1 ue=$_u2
		timed fatscope1 "$img"; u1=$_us
		ul=$("${floor_reader[@]}" "$img" "$tmpd/$label.ranges") || die "floor reader failed"
		u2=nan
		if [[ -n $floor_threads ]]; then
			u2=$("${floor_reader[@]}" "$img" "$tmpd/$label.ranges" "$floor_threads") || die "floor reader failed"
			echo "$u2" >> "$tmpd/floor2.us"
		fi
		ui=$("${floor_reader[@]}" "$img" "$tmpd/$label.ranges.inuse") || die "floor reader failed"
		echo "$ul" >> "$tmpd/floor.us"
		echo "$ui" >> "$tmpd/floor_inuse.us"
		rss fatscope "$img"
		rss fsck_exfat "$img"
		printf 'run %d: fatscope %s ms (one thread %s ms), fsck.exfat %s ms, floor %s ms (%s threads %s ms, in-use %s ms); peak RSS fatscope %s KiB, fsck.exfat %s KiB\n' \
			"$r" "$(fmt_ms "$uf")" "$(fmt_ms "$u1")" "$(fmt_ms "$ue")" "$(fmt_ms "$ul")" "${floor_threads:-2}" \
			"$( [[ $u2 == nan ]] && echo n/a || fmt_ms "$u2")" "$(fmt_ms "$ui")" \
			"$(tail -n1 "$tmpd/fatscope.rss")" "$(tail -n1 "$tmpd/fsck_exfat.rss")"
	done

	mf=$(median < "$tmpd/fatscope.us"); me=$(median < "$tmpd/fsck_exfat.us")
	ml=$(median < "$tmpd/floor.us"); mi=$(median < "$tmpd/floor_inuse.us")
	m1=$(median < "$tmpd/fatscope1.us"); m2=$(median < "$tmpd/floor2.us")
	rf=$(median < "$tmpd/fatscope.rss"); re=$(median < "$tmpd/fsck_exfat.rss")
	tr=$(ratio "$mf" "$me"); rr=$(ratio "$rf" "$re")
	tv=$(verdict "$mf" "$me" "$limit"); rv=$(verdict "$rf" "$re" "$rss_limit")
	[[ $tv == PASS && $rv == PASS ]] || fail=1
	printf 'median of %d runs: fatscope %s ms, fsck.exfat %s ms, floor %s ms, in-use floor %s ms\n' \
		"$runs" "$(fmt_ms "$mf")" "$(fmt_ms "$me")" "$(fmt_ms "$ml")" "$(fmt_ms "$mi")"
	printf 'one thread (FATSCOPE_THREADS=1): fatscope %s ms, ratio to fsck.exfat %s; floor with %s threads %s ms\n' \
		"$(fmt_ms "$m1")" "$(ratio "$m1" "$me")" "${floor_threads:-2}" "$( [[ $m2 == nan ]] && echo n/a || fmt_ms "$m2")"
	printf 'ratios: fatscope/fsck.exfat %s; to the floor: fatscope %s, fsck.exfat %s; to the in-use floor: fatscope %s, fsck.exfat %s\n' \
		"$tr" "$(ratio "$mf" "$ml")" "$(ratio "$me" "$ml")" "$(ratio "$mf" "$mi")" "$(ratio "$me" "$mi")"
	printf 'peak RSS (median): fatscope %s KiB, fsck.exfat %s KiB, ratio %s\n' "$rf" "$re" "$rr"
	printf 'peak RSS per cluster above the %s baseline (approximation): fatscope %s bits, fsck.exfat %s bits (%s clusters)\n' \
		"$tiny_size" "$(per_cluster "$rf" "$base_f" "${m[clusters]}" "$tiny_clusters" 8192)" \
		"$(per_cluster "$re" "$base_e" "${m[clusters]}" "$tiny_clusters" 8192)" "${m[clusters]}"
	if (( heap )); then
		hf=$(heap_peak fatscope "$img"); he=$(heap_peak fsck_exfat "$img")
		printf 'heap peak (valgrind massif, 1 run): fatscope %s KiB, fsck.exfat %s KiB; per cluster above the baseline: fatscope %s bits, fsck.exfat %s bits\n' \
			"$(( hf / 1024 ))" "$(( he / 1024 ))" \
			"$(per_cluster "$hf" "$hbase_f" "${m[clusters]}" "$tiny_clusters" 8)" \
			"$(per_cluster "$he" "$hbase_e" "${m[clusters]}" "$tiny_clusters" 8)"
	fi
	final[$label]=$(printf '%s %s: fatscope %s ms, fsck.exfat %s ms, ratio %s (limit %.2f): %s; RSS fatscope %s MiB, fsck.exfat %s MiB, ratio %s (limit %.2f): %s; floor %s ms (2 threads %s ms, in-use %s ms); one thread %s ms' \
		"$prog" "$label" "$(fmt_ms "$mf")" "$(fmt_ms "$me")" "$tr" "$limit" "$tv" \
		"$(fmt_mib "$rf")" "$(fmt_mib "$re")" "$rr" "$rss_limit" "$rv" "$(fmt_ms "$ml")" \
		"$( [[ $m2 == nan ]] && echo n/a || fmt_ms "$m2")" "$(fmt_ms "$mi")" "$(fmt_ms "$m1")")
	unset m
done

echo
note "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $(fatscope_id) == "$bin_before" ]] ||
	note "WARNING: $FATSCOPE or libfatscope changed during the run (rebuilt?): the figures mix two builds"
for label in "${labels[@]}"; do
	printf '%s\n' "${final[$label]}"
done

if (( fail )) && [[ $report_only != 1 ]]; then
	exit 1
fi
exit 0
