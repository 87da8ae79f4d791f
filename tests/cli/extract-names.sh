#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# extract-names.sh - fatscope extract never gives up on a name, and writes
# a damaged file as far as it goes, on a FAT16 volume made here with
# mtools (4 KiB clusters), its long names then rewritten in place
# (patch.py fat-lfn: mtools cannot write a 255-unit CJK name) and FAT
# entries patched:
#  1. several paths in one call land where they belong; names of 255 CJK
#     units (765 bytes of UTF-8), of 256 bytes, and a 255-unit directory
#     are shortened on a character boundary to the host's NAME_MAX, the
#     extension kept, with "~" and 8 hex digits of the name's SHA-1, each
#     listed; every file equals what was written and icat's bytes; ls
#     lists several paths as ls(1) does;
#  2. a cross-linked file is written whole (the line names the other
#     owner), a looping chain and a broken one up to the break (one line
#     each, exit 4), cat the same; icat's bytes where it gives them;
#  3. names that differ only in case: on a case-insensitive host (the
#     host simulated with FATSCOPE_TEST_FOLD_CASE=1, which makes extract
#     compare names as a case-insensitive file system; and exFAT through
#     exfat-fuse when root and /dev/fuse allow) the second is renamed
#     "~1" and listed; on this one nothing is renamed;
#  4. --portable renames what Windows forbids (':' , a device name, a
#     trailing dot), and lists it;
#  5. a deleted file partly overwritten: one state everywhere (ls -J,
#     dump -J "recoverable":"yes" with "recovery":"partial", ls -l, one
#     extract line);
#  6. --hash md5 --hash sha256: the manifest hashdeep audits (else
#     sha256sum checks it), with the deleted, looping and cross-linked
#     files' comment lines; ls --hash equals md5sum's lines, ls -l --hash
#     sha256 its column; the image is never written.
# Few processes: the random sources and the expected bytes are made by one
# python3, every sha256 of a section taken by one sha256sum (hashes), what
# fatscope prints read by the shell; the first fatscope-dependent step (the
# entry of cross-b.bin) comes right after mtools made the volume.
. "$(dirname "$0")/lib.sh"

for t in mkfs.fat mcopy mmd mdel mshowfat python3 cmp sha1sum od dd jq; do
	command -v "$t" > /dev/null || skip "$t not installed (dosfstools, mtools, python3, coreutils, jq)"
done
# (names are counted in characters: C.UTF-8 must count 日 as one)
{ LC_ALL=C.UTF-8; x=日; n=${#x}; LC_ALL=C; } 2> /dev/null
[ "$n" = 1 ] || skip "no C.UTF-8 locale (names are counted in characters)"
export MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0 TZ=UTC
cd "$SCRATCH" || hard_error "no $SCRATCH"

# rep VAR STRING N: VAR is STRING N times
rep() { local -n _r=$1; local i; _r=; for ((i = 0; i < $3; i++)); do _r+=$2; done; }

# nlines FILE: NL is its count of newlines (as wc -l)
nlines() {
	local t=
	IFS= read -r -d '' t < "$1"
	t=${t//[!$'\n']/}
	NL=${#t}
}

# ---- the volume: placeholders mtools can write, renamed below
rep A a 251; A+=.txt; rep A2 日 251; A2+=.txt		# 255 units, 757 bytes
rep B b 250; B+=x.txt; rep B2 日 250; B2+=月.txt	# the same first 80 characters as A2
rep C c 125; C+=xy.txt; rep C2 é 125; C2+=xy.txt	# 131 units, 256 bytes
rep D d 255; rep D2 本 255				# a directory, 765 bytes
mkdir -p src/long/d src/dirA src/dirB/sub src/case src/win src/bad
# The random sources, then what extract must give of the damaged ones (one process):
# want-loop its bytes up to the loop, want-broken up to the break, want-cross-b the
# clusters it gets from cross-a, want-victim zeros where taker.bin took its first cluster.
"$PYTHON3" - <<'PY' || hard_error "cannot write the sources"
import os
for n, f in ((3000, "src/long/a"), (3001, "src/long/b"), (3002, "src/long/c"), (100, "src/long/d/inside.txt"),
             (10, "src/dirA/f1.txt"), (11, "src/dirB/f2.txt"), (12, "src/dirB/sub/f3.txt"),
             (20, "src/case/Readme.txt"), (21, "src/case/Qeadme.txt"), (22, "src/case/s1.txt"), (23, "src/case/s2.txt"),
             (30, "src/win/aXb.txt"), (31, "src/win/CoX.txt"), (32, "src/win/Trailx"),
             (12288, "src/bad/cross-a.bin"), (8192, "src/bad/cross-b.bin"), (16384, "src/bad/loop.bin"),
             (16384, "src/bad/broken.bin"), (12288, "victim.bin"), (4096, "src/dirA/taker.bin")):
    open(f, "wb").write(os.urandom(n))
def part(f, a, b=None):
    return open(f, "rb").read()[a:b]
open("want-loop", "wb").write(part("src/bad/loop.bin", 0, 12288))
open("want-broken", "wb").write(part("src/bad/broken.bin", 0, 8192))
open("want-cross-b", "wb").write(part("src/bad/cross-a.bin", 4096))
open("want-victim", "wb").write(bytes(4096) + part("victim.bin", 4096))
PY
img=n.img
mkfs.fat -C -F 16 -s 8 --invariant -n NAMES "$img" 32768 > /dev/null || hard_error "mkfs.fat"
{
	mmd -i "$img" ::/long ::/dirA ::/dirB ::/dirB/sub ::/case ::/case/Sub ::/case/Qub ::/win ::/bad "::/long/$D" &&
	mcopy -i "$img" src/long/a "::/long/$A" && mcopy -i "$img" src/long/b "::/long/$B" &&
	mcopy -i "$img" src/long/c "::/long/$C" && mcopy -i "$img" src/long/d/inside.txt "::/long/$D/" &&
	mcopy -i "$img" src/dirA/f1.txt ::/dirA/ && mcopy -i "$img" src/dirB/f2.txt ::/dirB/ &&
	mcopy -i "$img" src/dirB/sub/f3.txt ::/dirB/sub/ &&
	mcopy -i "$img" src/case/Readme.txt src/case/Qeadme.txt ::/case/ &&
	mcopy -i "$img" src/case/s1.txt ::/case/Sub/ && mcopy -i "$img" src/case/s2.txt ::/case/Qub/ &&
	mcopy -i "$img" src/win/aXb.txt src/win/CoX.txt src/win/Trailx ::/win/ &&
	mcopy -i "$img" src/bad/cross-a.bin src/bad/cross-b.bin src/bad/loop.bin src/bad/broken.bin ::/bad/ &&
	# last, so that nothing else takes its clusters: victim.bin deleted, taker.bin in its first (first-fit)
	mcopy -i "$img" victim.bin ::/ && mdel -i "$img" ::/victim.bin && mcopy -i "$img" src/dirA/taker.bin ::/dirA/
} || hard_error "mtools"
# cross-b.bin's directory entry, as fatscope finds it (the first step that needs fatscope)
off=$("$FATSCOPE" ls -J "$img" /bad/cross-b.bin | jq '.entries[0].entry_offset')
[[ $off =~ ^[0-9]+$ ]] || hard_error "no CROSS-B entry"
# the chains, one mshowfat for the three
declare -A chain=()
while read -r f c; do
	[[ $c =~ ^\<([0-9]+)-([0-9]+)\>$ ]] && chain[$f]="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
done < <(mshowfat -i "$img" ::/bad/cross-a.bin ::/bad/loop.bin ::/bad/broken.bin)
read -r ca ca_end <<< "${chain[::/bad/cross-a.bin]:-}"
read -r lp lp_end <<< "${chain[::/bad/loop.bin]:-}"
read -r br br_end <<< "${chain[::/bad/broken.bin]:-}"
[ -n "$ca" ] && [ "$((lp_end - lp))" = 3 ] && [ "$((br_end - br))" = 3 ] || hard_error "unexpected chains: $ca $lp-$lp_end $br-$br_end"
"$PYTHON3" "$top_srcdir/tests/fixtures/patch.py" fat-lfn "$img" "$A" "$A2" "$B" "$B2" "$C" "$C2" "$D" "$D2" \
	Qeadme.txt README.txt Qub SUB aXb.txt a:b.txt CoX.txt CON.txt Trailx trail. > /dev/null || hard_error "fat-lfn"
# FAT16 entries, both copies: loop.bin's third cluster back to its second, broken.bin's second free;
# cross-b.bin's first cluster: cross-a.bin's second (its own two clusters left lost).  One patch.py set.
read -r rsvd _ _ _ fatsz < <(od -An -tu2 -j14 -N10 "$img")
pairs=()
le16() { printf -v hex '%02x%02x' $(($1 & 255)) $(($1 >> 8)); }
for k in 0 1; do
	le16 $((lp + 1)); pairs+=($(((rsvd + k * fatsz) * 512 + 2 * (lp + 2))) "$hex")
	le16 0; pairs+=($(((rsvd + k * fatsz) * 512 + 2 * (br + 1))) "$hex")
done
le16 $((ca + 1)); pairs+=($((off + 26)) "$hex")
patch_py set "$img" "${pairs[@]}" || hard_error "patch.py set"
hashes "$img"
before=${H[$img]}

# icat's bytes for a file: the sha256 of each inode fls names at VOLPATH (fls cuts every FAT
# long name to 247 characters, VOLPATH's are cut so too), icat's bytes in tsk/INODE
declare -A inode=()
cut247() {
	local IFS=/ c LC_ALL=C.UTF-8
	CUT=
	for c in ${1#/}; do CUT+=/${c:0:247}; done
}
if command -v fls > /dev/null && command -v icat > /dev/null; then
	while IFS= read -r line; do
		[[ $line =~ ^[-a-z]/[-a-z]\ ([0-9]*):$'\t'(.*)$ ]] && inode[/${BASH_REMATCH[2]}]+="${BASH_REMATCH[1]} "
	done < <(fls -r -p -u "$img" 2> /dev/null)
	mkdir -p tsk
else
	echo "SKIP (part): fls and icat not installed (sleuthkit): no comparison with icat"
fi
# same VOLPATH HOSTFILE WANTFILE: queued; same_done: for each, the file written holds WANTFILE's
# bytes, and icat's where it has the file (all hashed by one sha256sum)
queue=()
same() { queue+=("$1" "$2" "$3"); }
same_done() {
	local k i files=() t want
	for ((k = 0; k < ${#queue[@]}; k += 3)); do
		files+=("${queue[k + 1]}" "${queue[k + 2]}")
		[ ${#inode[@]} -gt 0 ] || continue
		cut247 "${queue[k]}"
		for i in ${inode[$CUT]:-}; do
			[ -f "tsk/$i" ] || icat "$img" "$i" > "tsk/$i"
			files+=("tsk/$i")
		done
	done
	hashes "${files[@]}"
	for ((k = 0; k < ${#queue[@]}; k += 3)); do
		want=${H[${queue[k + 2]}]}
		check "${queue[k]}: the bytes written" "$want" "${H[${queue[k + 1]}]}"
		[ ${#inode[@]} -gt 0 ] || continue
		cut247 "${queue[k]}"
		t=
		for i in ${inode[$CUT]:-}; do t+="${t:+ }${H[tsk/$i]}"; done
		[[ " $t " == *" $want "* ]] && [ -n "$want" ] && ok || bad "${queue[k]}: icat's bytes: ${t:-fls does not name it}, want $want"
	done
	queue=()
}
# short VAR NAME STEM-CHARACTERS EXT: VAR is the name extract gives NAME when it is too long
# (the SHA-1s of the names: one sha1sum for all, in S1[NAME])
declare -A S1=()
n=0
for x in "$A2" "$B2" "$C2" "$D2"; do printf '%s' "$x" > "name$n"; n=$((n + 1)); done
n=0
while read -r h _; do
	case $n in 0) S1[$A2]=$h ;; 1) S1[$B2]=$h ;; 2) S1[$C2]=$h ;; 3) S1[$D2]=$h ;; esac
	n=$((n + 1))
done < <(sha1sum name0 name1 name2 name3)
short() {
	local -n _v=$1
	local stem LC_ALL=C.UTF-8
	stem=${2:0:$3}
	LC_ALL=C
	h=${S1[$2]:-}
	_v=$stem~${h:0:8}$4
}

# ---- 1. several paths, long names
short As "$A2" 80 .txt; short Bs "$B2" 80 .txt; short Cs "$C2" 121 .txt; short Ds "$D2" 82 ""
out=$("$FATSCOPE" extract -o out "$img" /dirA /dirB /long 2> err); rc=$?
check "extract several paths: exit" 0 "$rc"
slurp e err
check "extract several paths: stderr" "" "$e"
check "extract several paths: the report" "renamed: /long/$D2 -> long/$Ds
renamed: /long/$A2 -> long/$As
renamed: /long/$B2 -> long/$Bs
renamed: /long/$C2 -> long/$Cs
8 files (13232 bytes) and 5 directories written" "$out"
check "extract several paths: the tree" "$(printf '%s\n' ./dirA ./dirA/f1.txt ./dirA/taker.bin ./dirB ./dirB/f2.txt \
	./dirB/sub ./dirB/sub/f3.txt ./long "./long/$As" "./long/$Bs" "./long/$Cs" "./long/$Ds" "./long/$Ds/inside.txt" |
	LC_ALL=C sort)" "$(cd out && find . -mindepth 1 | LC_ALL=C sort)"
check "the longest name written, in bytes" "253 253 255 255" "${#As} ${#Bs} ${#Cs} ${#Ds}"	# (LC_ALL=C: bytes)
check "names written are UTF-8" "" "$(cd out/long && ls | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1 || echo invalid)"
same /dirA/f1.txt out/dirA/f1.txt src/dirA/f1.txt
same /dirA/taker.bin out/dirA/taker.bin src/dirA/taker.bin
same /dirB/f2.txt out/dirB/f2.txt src/dirB/f2.txt
same /dirB/sub/f3.txt out/dirB/sub/f3.txt src/dirB/sub/f3.txt
same "/long/$A2" "out/long/$As" src/long/a
same "/long/$B2" "out/long/$Bs" src/long/b
same "/long/$C2" "out/long/$Cs" src/long/c
same "/long/$D2/inside.txt" "out/long/$Ds/inside.txt" src/long/d/inside.txt
same_done

# ls takes several paths as ls(1) does: the files first, then each directory under its path;
# a path not there is one line (exit 8), the others listed; -p marks directories
out=$("$FATSCOPE" ls -p "$img" /dirB /dirA/f1.txt /nope /dirA 2> err); rc=$?
check "ls with several paths" "/dirA/f1.txt

/dirB:
f2.txt
sub/

/dirA:
f1.txt
taker.bin" "$out"
check "ls with several paths: exit" 8 "$rc"
slurp e err
check "ls with several paths: the one not there" "fatscope: $img: /nope: no such file or directory on the volume" "$e"
# (both JSON outputs read by one jq)
"$FATSCOPE" ls -J "$img" /DIRA > ls1.json
"$FATSCOPE" ls -J "$img" /dirB/f2.txt /dirA > ls2.json
declare -A lsj=()
while read -r f v; do lsj[$f]=$v; done < <(jq -r '"\(input_filename) \(.directory | tojson) \(.entries | length)"' ls1.json ls2.json 2> /dev/null)
check "ls -J with one directory: its path as the volume spells it" '"/dirA" 2' "${lsj[ls1.json]:-}"
check "ls -J with several: no directory, every entry" 'null 3' "${lsj[ls2.json]:-}"

# ---- 2. a cross-link, a loop, a break (want-loop, want-broken, want-cross-b: made above)
out=$("$FATSCOPE" extract -o bout "$img" /bad 2> err); rc=$?
check "extract /bad: exit" 4 "$rc"
check "extract /bad: the report" "cross-linked (cluster $((ca + 1)) also belongs to /bad/cross-a.bin), written whole: /bad/cross-b.bin
4 files (40960 bytes) and 1 directories written" "$out"
mapfile -t lines < err
got=
for line in ${lines[@]+"${lines[@]}"}; do [[ $line == *loop.bin* ]] && got+=${got:+$'\n'}$line; done
for line in ${lines[@]+"${lines[@]}"}; do [[ $line == *broken.bin* ]] && got+=${got:+$'\n'}$line; done
check "extract /bad: one line a damaged chain" \
	"fatscope: $img: /bad/loop.bin: the chain loops back to cluster $((lp + 1)) after 3 clusters: only its first 12288 of 16384 bytes can be read
fatscope: $img: /bad/broken.bin: cluster $((br + 1)) is followed by a free entry: only its first 8192 of 16384 bytes can be read" \
	"$got"
nlines err
check "extract /bad: nothing else on stderr" 2 "$NL"
same /bad/cross-a.bin bout/bad/cross-a.bin src/bad/cross-a.bin
same /bad/cross-b.bin bout/bad/cross-b.bin want-cross-b
same /bad/broken.bin bout/bad/broken.bin want-broken
same_done
# icat reads the looping chain on to the file's size (the loop's clusters again): only ours is checked
for f in loop broken; do
	"$FATSCOPE" cat "$img" "/bad/$f.bin" > "got-$f" 2> "err-$f"; rc=$?
	check "cat $f.bin: exit" 4 "$rc"
	nlines "err-$f"
	check "cat $f.bin: one line" 1 "$NL"
done
hashes want-loop bout/bad/loop.bin want-broken got-loop got-broken
check "/bad/loop.bin: its bytes up to the loop" "${H[want-loop]}" "${H[bout/bad/loop.bin]}"
for f in loop broken; do
	check "cat $f.bin: its bytes up to the break" "${H[want-$f]}" "${H[got-$f]}"
done

# ---- 3. names that differ only in case
# case_tree DIR: TREE is "SHA256 ./PATH" of each file under DIR, a line each, sorted by path
# (one sha256sum; as find | sha256sum | sort -k2)
case_tree() {
	local h f x i
	local -a t=()
	while read -r h f; do
		x="./${f#"$1"/}"$'\x01'"$h"	# (\x01: a path before the longer ones it starts)
		i=${#t[@]}
		while [ "$i" -gt 0 ] && [[ ${t[i - 1]} > $x ]]; do t[i]=${t[i - 1]}; i=$((i - 1)); done
		t[i]=$x
	done < <(find "$1" -mindepth 1 -type f -exec sha256sum {} + 2> /dev/null)
	TREE=
	for x in ${t[@]+"${t[@]}"}; do TREE+="${TREE:+$'\n'}${x#*$'\x01'} ${x%%$'\x01'*}"; done
}
want_fold="renamed: /case/SUB -> case/SUB~1
renamed: /case/README.txt -> case/README~1.txt
4 files (86 bytes) and 3 directories written"
hashes src/case/Readme.txt src/case/Qeadme.txt src/case/s1.txt src/case/s2.txt src/win/aXb.txt src/win/CoX.txt src/win/Trailx
# (sorted by path: ./case/README~1.txt ./case/Readme.txt ./case/SUB~1/s2.txt ./case/Sub/s1.txt)
want_tree="${H[src/case/Qeadme.txt]} ./case/README~1.txt
${H[src/case/Readme.txt]} ./case/Readme.txt
${H[src/case/s2.txt]} ./case/SUB~1/s2.txt
${H[src/case/s1.txt]} ./case/Sub/s1.txt"
out=$(FATSCOPE_TEST_FOLD_CASE=1 "$FATSCOPE" extract -o cout "$img" /case 2> err); rc=$?
check "case-insensitive host (simulated): exit" 0 "$rc"
check "case-insensitive host (simulated): the report" "$want_fold" "$out"
case_tree cout
check "case-insensitive host (simulated): the files" "$want_tree" "$TREE"
out=$("$FATSCOPE" extract -o sout "$img" /case 2> err); rc=$?
check "case-sensitive host: nothing renamed" "4 files (86 bytes) and 3 directories written" "$out"
case_tree sout
check "case-sensitive host: the files" "${H[src/case/Qeadme.txt]} ./case/README.txt
${H[src/case/Readme.txt]} ./case/Readme.txt
${H[src/case/s2.txt]} ./case/SUB/s2.txt
${H[src/case/s1.txt]} ./case/Sub/s1.txt" "$TREE"
loop= mnt=$SCRATCH/mnt
cleanup() {
	[ -n "$loop" ] || return 0
	mountpoint -q "$mnt" 2> /dev/null && { umount "$mnt" 2> /dev/null || fusermount -u "$mnt"; }
	losetup -d "$loop" 2> /dev/null
	loop=
}
trap cleanup EXIT
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && command -v mkfs.exfat > /dev/null && command -v mount.exfat-fuse > /dev/null &&
   truncate -s 8M ci.img && mkfs.exfat ci.img > /dev/null 2>&1 && loop=$(losetup -f --show ci.img 2> /dev/null) &&
   mkdir -p "$mnt" && mount.exfat-fuse "$loop" "$mnt" > /dev/null 2>&1; then
	out=$("$FATSCOPE" extract -o "$mnt/x" "$img" /case 2> err); rc=$?
	check "exFAT through exfat-fuse (case-insensitive): exit" 0 "$rc"
	check "exFAT through exfat-fuse (case-insensitive): the report" "$want_fold" "$out"
	case_tree "$mnt/x"
	check "exFAT through exfat-fuse (case-insensitive): the files" "$want_tree" "$TREE"
	cleanup
else
	cleanup
	echo "SKIP (part): a real case-insensitive host (exFAT through exfat-fuse: root, /dev/fuse, a loop device)"
fi

# ---- 4. --portable
out=$("$FATSCOPE" extract --portable -o wout "$img" /win 2> err); rc=$?
check "--portable: exit" 0 "$rc"
check "--portable: the report" "renamed: /win/a:b.txt -> win/a_b.txt
renamed: /win/CON.txt -> win/_CON.txt
renamed: /win/trail. -> win/trail_
3 files (93 bytes) and 1 directories written" "$out"
hashes wout/win/a_b.txt wout/win/_CON.txt wout/win/trail_
check "--portable: the files" "${H[src/win/aXb.txt]} ${H[src/win/CoX.txt]} ${H[src/win/Trailx]}" \
	"${H[wout/win/a_b.txt]} ${H[wout/win/_CON.txt]} ${H[wout/win/trail_]}"
out=$("$FATSCOPE" extract -o lout "$img" /win 2> err)
check "without --portable: nothing renamed" "3 files (93 bytes) and 1 directories written" "$out"
names=(lout/win/*)	# (as ls | sort: the glob sorts as LC_ALL=C, no dot files)
names=("${names[@]#lout/win/}")
check "without --portable: the names" "CON.txt a:b.txt trail." "${names[*]}"

# ---- 5. a deleted file, 1 of its 3 clusters taken by taker.bin: one state everywhere (want-victim: made above)
state='"?ictim.bin yes partial"'
"$FATSCOPE" ls -J --deleted "$img" / > del-ls.json
"$FATSCOPE" dump -t -d -J "$img" > del-dump.json
declare -A st=()
while read -r f v; do st[$f]+="${st[$f]:+$'\n'}$v"; done < <(jq -r 'input_filename as $f |
	(if $f == "del-ls.json" then .entries[] else .tree[] end) | select(.deleted) |
	"\($f) \("\(.name) \(.recoverable) \(.recovery)" | tojson)"' del-ls.json del-dump.json 2> /dev/null)
check "ls -J --deleted" "$state" "${st[del-ls.json]:-}"
check "dump -t -d -J" "$state" "${st[del-dump.json]:-}"
"$FATSCOPE" ls -l --deleted "$img" / > del-ls.txt
got=
while read -r -a w || [ "${#w[@]}" -gt 0 ]; do [ "${w[5]:-}" != - ] && got+="${got:+$'\n'}${w[5]:-} ${w[6]:-}"; done < del-ls.txt
check "ls -l --deleted" "partial ?ictim.bin" "$got"
out=$("$FATSCOPE" extract --deleted -o dout "$img" / 2> /dev/null); rc=$?
check "extract --deleted: exit (the damaged chains)" 4 "$rc"
got=
while IFS= read -r line; do [[ $line == *ictim* ]] && got+="${got:+$'\n'}$line"; done <<< "$out"
check "extract --deleted: one line for the deleted file" \
	"recovered in part (partial: 1 of 3 clusters in use again, written as zeros): /?ictim.bin" "$got"
hashes want-victim 'dout/?ictim.bin'
check "extract --deleted: its bytes" "${H[want-victim]}" "${H[dout/?ictim.bin]}"

# ---- 6. manifests, ls --hash
rm -rf hout hout.hashdeep
"$FATSCOPE" extract --deleted --hash md5 --hash sha256 -o hout "$img" > /dev/null 2>&1; rc=$?
check "extract --hash: exit" 4 "$rc"
mapfile -t man < hout.hashdeep 2> /dev/null
check "the manifest's header" "%%%% HASHDEEP-1.0
%%%% size,md5,sha256,filename" "${man[0]:-}"$'\n'"${man[1]:-}"
nfiles=0 nman=0 got='' f1=
shopt -s globstar dotglob
for f in hout/**; do [ -f "$f" ] && [ ! -L "$f" ] && nfiles=$((nfiles + 1)); done	# (as find hout -type f)
shopt -u globstar dotglob
for line in ${man[@]+"${man[@]}"}; do
	[[ $line == [0-9]* ]] && nman=$((nman + 1))
	[[ $line == *ictim* || $line == *loop.bin* || $line == *cross-b* ]] && [[ $line == "## fatscope"* ]] &&
		got+="${got:+$'\n'}$line"
	[[ $line == */dirA/f1.txt ]] && f1+="${f1:+$'\n'}$line"
done
check "the manifest: a line a file" "$nfiles" "$nman"
check "the manifest: what the bytes are" \
	"## fatscope: recovered in part (partial: 1 of 3 clusters in use again, written as zeros): /?ictim.bin
## fatscope: cross-linked (cluster $((ca + 1)) also belongs to /bad/cross-a.bin), written whole: /bad/cross-b.bin
## fatscope: damaged chain, its first 12288 of 16384 bytes written: /bad/loop.bin" "$got"
# md5sum's lines of dirA (f1.txt's md5 for its manifest line too)
md5lines=$(cd src/dirA && md5sum f1.txt taker.bin)
cd hout && hout=$(pwd -P) && cd ..
check "the manifest: f1.txt's line" "10,${md5lines:0:32},${H[src/dirA/f1.txt]},$hout/dirA/f1.txt" "$f1"
if command -v hashdeep > /dev/null; then
	check "hashdeep -a audits it" "hashdeep: Audit passed" "$(hashdeep -a -k hout.hashdeep -r hout 2>&1)"
	: > hout/dirA/f1.txt
	check "hashdeep -a fails on a changed file" "hashdeep: Audit failed" "$(hashdeep -a -k hout.hashdeep -r hout 2>&1)"
else
	echo "SKIP (part): hashdeep not installed: the manifest checked with sha256sum"
	check "sha256sum -c on the manifest" "" "$(awk -F, '/^[0-9]/ { f = $0; sub(/^[^,]*,[^,]*,[^,]*,/, "", f)
		print $3 "  " f }' hout.hashdeep | sha256sum -c --quiet 2>&1)"
fi
check "ls --hash md5: md5sum's lines" "$md5lines" "$("$FATSCOPE" ls --hash md5 "$img" /dirA)"
"$FATSCOPE" ls -l --hash sha256 "$img" /dirA/f1.txt > lsout
got=
while read -r -a w || [ "${#w[@]}" -gt 0 ]; do got+="${got:+$'\n'}${w[5]:-} ${w[6]:-}"; done < lsout
check "ls -l --hash sha256: the column" "${H[src/dirA/f1.txt]} /dirA/f1.txt" "$got"
"$FATSCOPE" ls -l --hash sha1 "$img" /bad > lsout 2> err; rc=$?
check "ls --hash of a damaged chain: exit" 4 "$rc"
read -r sha1 _ < <(sha1sum < want-loop)
got=
while read -r -a w || [ "${#w[@]}" -gt 0 ]; do [ "${w[6]:-}" = loop.bin ] && got+="${got:+$'\n'}${w[5]:-}"; done < lsout
check "ls --hash of a damaged chain: loop.bin's bytes up to the loop" "$sha1" "$got"
hashes "$img"
check "the image unchanged" "$before" "${H[$img]}"
rm -rf src out bout cout sout wout lout dout hout hout.hashdeep want-* got-* err* lsout victim.bin ci.img tsk name? ls?.json del-* "$img"
finish
