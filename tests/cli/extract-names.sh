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
. "$(dirname "$0")/lib.sh"

for t in mkfs.fat mcopy mmd mdel mshowfat python3 cmp sha1sum od dd jq; do
	command -v "$t" > /dev/null || skip "$t not installed (dosfstools, mtools, python3, coreutils, jq)"
done
locale -a 2> /dev/null | grep -qix 'c\.utf-\?8' || skip "no C.UTF-8 locale (names are counted in characters)"
export MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0 TZ=UTC
cd "$SCRATCH" || hard_error "no $SCRATCH"

rep() { local s= i; for ((i = 0; i < $2; i++)); do s+=$1; done; printf '%s' "$s"; }
rnd() { head -c "$1" /dev/urandom > "$2"; }
sha() { sha256sum < "$1" | cut -c1-64; }
# short NAME STEM-CHARACTERS EXT: the name extract gives NAME when it is too long
short() { printf '%s~%s%s' "$(LC_ALL=C.UTF-8; printf '%s' "${1:0:$2}")" "$(printf '%s' "$1" | sha1sum | cut -c1-8)" "$3"; }

# ---- the volume: placeholders mtools can write, renamed below
A=$(rep a 251).txt A2=$(rep 日 251).txt		# 255 units, 757 bytes
B=$(rep b 250)x.txt B2=$(rep 日 250)月.txt	# the same first 80 characters as A2
C=$(rep c 125)xy.txt C2=$(rep é 125)xy.txt	# 131 units, 256 bytes
D=$(rep d 255) D2=$(rep 本 255)			# a directory, 765 bytes
mkdir -p src/long/d src/dirA src/dirB/sub src/case src/win src/bad
rnd 3000 src/long/a; rnd 3001 src/long/b; rnd 3002 src/long/c; rnd 100 src/long/d/inside.txt
rnd 10 src/dirA/f1.txt; rnd 11 src/dirB/f2.txt; rnd 12 src/dirB/sub/f3.txt
rnd 20 src/case/Readme.txt; rnd 21 src/case/Qeadme.txt; rnd 22 src/case/s1.txt; rnd 23 src/case/s2.txt
rnd 30 src/win/aXb.txt; rnd 31 src/win/CoX.txt; rnd 32 src/win/Trailx
rnd 12288 src/bad/cross-a.bin; rnd 8192 src/bad/cross-b.bin; rnd 16384 src/bad/loop.bin; rnd 16384 src/bad/broken.bin
rnd 12288 victim.bin; rnd 4096 src/dirA/taker.bin
img=n.img
mkfs.fat -C -F 16 -s 8 --invariant -n NAMES "$img" 32768 > /dev/null || hard_error "mkfs.fat"
{
	mmd -i "$img" ::/long ::/dirA ::/dirB ::/dirB/sub ::/case ::/case/Sub ::/case/Qub ::/win ::/bad "::/long/$D" &&
	mcopy -i "$img" src/long/a "::/long/$A" && mcopy -i "$img" src/long/b "::/long/$B" &&
	mcopy -i "$img" src/long/c "::/long/$C" && mcopy -i "$img" src/long/d/inside.txt "::/long/$D/" &&
	mcopy -i "$img" src/dirA/f1.txt ::/dirA/ && mcopy -i "$img" src/dirB/f2.txt ::/dirB/ &&
	mcopy -i "$img" src/dirB/sub/f3.txt ::/dirB/sub/ &&
	mcopy -i "$img" src/case/Readme.txt ::/case/ && mcopy -i "$img" src/case/Qeadme.txt ::/case/ &&
	mcopy -i "$img" src/case/s1.txt ::/case/Sub/ && mcopy -i "$img" src/case/s2.txt ::/case/Qub/ &&
	mcopy -i "$img" src/win/aXb.txt ::/win/ && mcopy -i "$img" src/win/CoX.txt ::/win/ &&
	mcopy -i "$img" src/win/Trailx ::/win/ &&
	for f in cross-a cross-b loop broken; do mcopy -i "$img" "src/bad/$f.bin" ::/bad/ || exit 1; done &&
	# last, so that nothing else takes its clusters: victim.bin deleted, taker.bin in its first (first-fit)
	mcopy -i "$img" victim.bin ::/ && mdel -i "$img" ::/victim.bin && mcopy -i "$img" src/dirA/taker.bin ::/dirA/
} || hard_error "mtools"
chain() { mshowfat -i "$img" "$1" | sed -n 's/.*<\([0-9]*\)-\([0-9]*\)>$/\1 \2/p'; }
read -r ca ca_end <<< "$(chain ::/bad/cross-a.bin)"
read -r lp lp_end <<< "$(chain ::/bad/loop.bin)"
read -r br br_end <<< "$(chain ::/bad/broken.bin)"
[ -n "$ca" ] && [ "$((lp_end - lp))" = 3 ] && [ "$((br_end - br))" = 3 ] || hard_error "unexpected chains: $ca $lp-$lp_end $br-$br_end"
python3 "$top_srcdir/tests/fixtures/patch.py" fat-lfn "$img" "$A" "$A2" "$B" "$B2" "$C" "$C2" "$D" "$D2" \
	Qeadme.txt README.txt Qub SUB aXb.txt a:b.txt CoX.txt CON.txt Trailx trail. > /dev/null || hard_error "fat-lfn"
# FAT16 entries, both copies: loop.bin's third cluster back to its second, broken.bin's second free
rsvd=$(od -An -tu2 -j14 -N2 "$img" | tr -d ' ') fatsz=$(od -An -tu2 -j22 -N2 "$img" | tr -d ' ')
fat16() {
	local k
	for k in 0 1; do
		printf "\\x$(printf %02x $(($2 & 255)))\\x$(printf %02x $(($2 >> 8)))" |
			dd of="$img" bs=1 seek=$(((rsvd + k * fatsz) * 512 + 2 * $1)) conv=notrunc status=none
	done
}
fat16 $((lp + 2)) $((lp + 1))
fat16 $((br + 1)) 0
# cross-b.bin's first cluster: cross-a.bin's second (its own two clusters left lost)
off=$("$FATSCOPE" ls -J "$img" /bad/cross-b.bin | jq '.entries[0].entry_offset')
[ -n "$off" ] || hard_error "no CROSS-B entry"
printf "\\x$(printf %02x $(((ca + 1) & 255)))\\x$(printf %02x $(((ca + 1) >> 8)))" |
	dd of="$img" bs=1 seek=$((off + 26)) conv=notrunc status=none
before=$(sha "$img")

# tsk_bytes VOLPATH: the sha256 of icat's bytes for the file, a line each when fls names more than one
# so ("" when none): fls cuts every FAT long name to 247 characters, VOLPATH's are cut so too
declare -A inode=()
cut247() {
	local IFS=/ c out= LC_ALL=C.UTF-8
	for c in ${1#/}; do out+=/${c:0:247}; done
	printf '%s' "$out"
}
if command -v fls > /dev/null && command -v icat > /dev/null; then
	while IFS=$'\t' read -r i p; do inode[/$p]+="$i "; done < <(fls -r -p -u "$img" 2> /dev/null |
		sed -n 's/^[-a-z]\/[-a-z] \([0-9]*\):\t/\1\t/p')
else
	echo "SKIP (part): fls and icat not installed (sleuthkit): no comparison with icat"
fi
tsk_bytes() {
	local i
	for i in ${inode[$(cut247 "$1")]:-}; do
		icat "$img" "$i" | sha256sum | cut -c1-64
	done
}
# same VOLPATH HOSTFILE WANTFILE: the file written holds WANTFILE's bytes, and icat's where it has the file
same() {
	local got want t
	got=$(sha "$2") want=$(sha "$3")
	check "$1: the bytes written" "$want" "$got"
	[ ${#inode[@]} -gt 0 ] || return 0
	t=$(tsk_bytes "$1")
	grep -qx "$want" <<< "$t" && ok || bad "$1: icat's bytes: ${t:-fls does not name it}, want $want"
}

# ---- 1. several paths, long names
As=$(short "$A2" 80 .txt) Bs=$(short "$B2" 80 .txt) Cs=$(short "$C2" 121 .txt) Ds=$(short "$D2" 82 "")
out=$("$FATSCOPE" extract -o out "$img" /dirA /dirB /long 2> err); rc=$?
check "extract several paths: exit" 0 "$rc"
check "extract several paths: stderr" "" "$(cat err)"
check "extract several paths: the report" "renamed: /long/$D2 -> long/$Ds
renamed: /long/$A2 -> long/$As
renamed: /long/$B2 -> long/$Bs
renamed: /long/$C2 -> long/$Cs
8 files (13232 bytes) and 5 directories written" "$out"
check "extract several paths: the tree" "$(printf '%s\n' ./dirA ./dirA/f1.txt ./dirA/taker.bin ./dirB ./dirB/f2.txt \
	./dirB/sub ./dirB/sub/f3.txt ./long "./long/$As" "./long/$Bs" "./long/$Cs" "./long/$Ds" "./long/$Ds/inside.txt" |
	LC_ALL=C sort)" "$(cd out && find . -mindepth 1 | LC_ALL=C sort)"
check "the longest name written, in bytes" "253 253 255 255" \
	"$(for n in "$As" "$Bs" "$Cs" "$Ds"; do printf '%s' "$n" | wc -c; done | tr '\n' ' ' | sed 's/ $//')"
check "names written are UTF-8" "" "$(cd out/long && ls | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1 || echo invalid)"
same /dirA/f1.txt out/dirA/f1.txt src/dirA/f1.txt
same /dirA/taker.bin out/dirA/taker.bin src/dirA/taker.bin
same /dirB/f2.txt out/dirB/f2.txt src/dirB/f2.txt
same /dirB/sub/f3.txt out/dirB/sub/f3.txt src/dirB/sub/f3.txt
same "/long/$A2" "out/long/$As" src/long/a
same "/long/$B2" "out/long/$Bs" src/long/b
same "/long/$C2" "out/long/$Cs" src/long/c
same "/long/$D2/inside.txt" "out/long/$Ds/inside.txt" src/long/d/inside.txt

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
check "ls with several paths: the one not there" "fatscope: $img: /nope: no such file or directory on the volume" "$(cat err)"
check "ls -J with one directory: its path as the volume spells it" '"/dirA" 2' \
	"$("$FATSCOPE" ls -J "$img" /DIRA | jq -c '.directory, (.entries | length)' | tr '\n' ' ' | sed 's/ $//')"
check "ls -J with several: no directory, every entry" 'null 3' \
	"$("$FATSCOPE" ls -J "$img" /dirB/f2.txt /dirA | jq -c '.directory, (.entries | length)' | tr '\n' ' ' | sed 's/ $//')"

# ---- 2. a cross-link, a loop, a break
head -c 8192 src/bad/loop.bin > want-loop
head -c 4096 src/bad/broken.bin > want-broken
tail -c +4097 src/bad/cross-a.bin > want-cross-b
out=$("$FATSCOPE" extract -o bout "$img" /bad 2> err); rc=$?
check "extract /bad: exit" 4 "$rc"
check "extract /bad: the report" "cross-linked (cluster $((ca + 1)) also belongs to /bad/cross-a.bin), written whole: /bad/cross-b.bin
4 files (40960 bytes) and 1 directories written" "$out"
check "extract /bad: one line a damaged chain" \
	"fatscope: $img: /bad/loop.bin: the chain loops back to cluster $((lp + 1)) after 3 clusters: only its first 12288 of 16384 bytes can be read
fatscope: $img: /bad/broken.bin: cluster $((br + 1)) is followed by a free entry: only its first 8192 of 16384 bytes can be read" \
	"$(sed -n '/loop.bin/p' err; sed -n '/broken.bin/p' err)"
check "extract /bad: nothing else on stderr" 2 "$(wc -l < err)"
head -c 12288 src/bad/loop.bin > want-loop
head -c 8192 src/bad/broken.bin > want-broken
same /bad/cross-a.bin bout/bad/cross-a.bin src/bad/cross-a.bin
same /bad/cross-b.bin bout/bad/cross-b.bin want-cross-b
same /bad/broken.bin bout/bad/broken.bin want-broken
# icat reads the looping chain on to the file's size (the loop's clusters again): only ours is checked
check "/bad/loop.bin: its bytes up to the loop" "$(sha want-loop)" "$(sha bout/bad/loop.bin)"
for f in loop broken; do
	"$FATSCOPE" cat "$img" "/bad/$f.bin" > got 2> err; rc=$?
	check "cat $f.bin: exit" 4 "$rc"
	check "cat $f.bin: its bytes up to the break" "$(sha "want-$f")" "$(sha got)"
	check "cat $f.bin: one line" 1 "$(wc -l < err)"
done

# ---- 3. names that differ only in case
case_tree() { (cd "$1" && find . -mindepth 1 -type f -exec sha256sum {} + | sed 's/  / /' | LC_ALL=C sort -k2); }
want_fold="renamed: /case/SUB -> case/SUB~1
renamed: /case/README.txt -> case/README~1.txt
4 files (86 bytes) and 3 directories written"
want_tree=$(printf '%s ./case/%s\n' "$(sha src/case/Readme.txt)" Readme.txt "$(sha src/case/Qeadme.txt)" README~1.txt \
	"$(sha src/case/s1.txt)" Sub/s1.txt "$(sha src/case/s2.txt)" SUB~1/s2.txt | LC_ALL=C sort -k2)
out=$(FATSCOPE_TEST_FOLD_CASE=1 "$FATSCOPE" extract -o cout "$img" /case 2> err); rc=$?
check "case-insensitive host (simulated): exit" 0 "$rc"
check "case-insensitive host (simulated): the report" "$want_fold" "$out"
check "case-insensitive host (simulated): the files" "$want_tree" "$(case_tree cout)"
out=$("$FATSCOPE" extract -o sout "$img" /case 2> err); rc=$?
check "case-sensitive host: nothing renamed" "4 files (86 bytes) and 3 directories written" "$out"
check "case-sensitive host: the files" "$(sed 's/README~1/README/; s/SUB~1/SUB/' <<< "$want_tree" | LC_ALL=C sort -k2)" \
	"$(case_tree sout)"
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
	check "exFAT through exfat-fuse (case-insensitive): the files" "$want_tree" "$(case_tree "$mnt/x")"
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
check "--portable: the files" "$(sha src/win/aXb.txt) $(sha src/win/CoX.txt) $(sha src/win/Trailx)" \
	"$(sha wout/win/a_b.txt) $(sha wout/win/_CON.txt) $(sha wout/win/trail_)"
out=$("$FATSCOPE" extract -o lout "$img" /win 2> err)
check "without --portable: nothing renamed" "3 files (93 bytes) and 1 directories written" "$out"
check "without --portable: the names" "CON.txt a:b.txt trail." "$(cd lout/win && ls | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

# ---- 5. a deleted file, 1 of its 3 clusters taken by taker.bin: one state everywhere
head -c 4096 /dev/zero > want-victim
tail -c +4097 victim.bin >> want-victim
state='"?ictim.bin yes partial"'
check "ls -J --deleted" "$state" "$("$FATSCOPE" ls -J --deleted "$img" / |
	jq '.entries[] | select(.deleted) | "\(.name) \(.recoverable) \(.recovery)"')"
check "dump -t -d -J" "$state" "$("$FATSCOPE" dump -t -d -J "$img" |
	jq '.tree[] | select(.deleted) | "\(.name) \(.recoverable) \(.recovery)"')"
check "ls -l --deleted" "partial ?ictim.bin" "$("$FATSCOPE" ls -l --deleted "$img" / | awk '$6 != "-" { print $6, $7 }')"
out=$("$FATSCOPE" extract --deleted -o dout "$img" / 2> /dev/null); rc=$?
check "extract --deleted: exit (the damaged chains)" 4 "$rc"
check "extract --deleted: one line for the deleted file" \
	"recovered in part (partial: 1 of 3 clusters in use again, written as zeros): /?ictim.bin" "$(grep 'ictim' <<< "$out")"
check "extract --deleted: its bytes" "$(sha want-victim)" "$(sha 'dout/?ictim.bin')"

# ---- 6. manifests, ls --hash
rm -rf hout hout.hashdeep
"$FATSCOPE" extract --deleted --hash md5 --hash sha256 -o hout "$img" > /dev/null 2>&1; rc=$?
check "extract --hash: exit" 4 "$rc"
check "the manifest's header" "%%%% HASHDEEP-1.0
%%%% size,md5,sha256,filename" "$(head -2 hout.hashdeep)"
check "the manifest: a line a file" "$(find hout -type f | wc -l)" "$(grep -c '^[0-9]' hout.hashdeep)"
check "the manifest: what the bytes are" \
	"## fatscope: recovered in part (partial: 1 of 3 clusters in use again, written as zeros): /?ictim.bin
## fatscope: cross-linked (cluster $((ca + 1)) also belongs to /bad/cross-a.bin), written whole: /bad/cross-b.bin
## fatscope: damaged chain, its first 12288 of 16384 bytes written: /bad/loop.bin" \
	"$(grep -e ictim -e loop.bin -e 'cross-b' hout.hashdeep | grep '^## fatscope')"
check "the manifest: f1.txt's line" "10,$(md5sum < src/dirA/f1.txt | cut -c1-32),$(sha src/dirA/f1.txt),$(cd hout && pwd -P)/dirA/f1.txt" \
	"$(grep '/dirA/f1.txt$' hout.hashdeep)"
if command -v hashdeep > /dev/null; then
	check "hashdeep -a audits it" "hashdeep: Audit passed" "$(hashdeep -a -k hout.hashdeep -r hout 2>&1)"
	: > hout/dirA/f1.txt
	check "hashdeep -a fails on a changed file" "hashdeep: Audit failed" "$(hashdeep -a -k hout.hashdeep -r hout 2>&1)"
else
	echo "SKIP (part): hashdeep not installed: the manifest checked with sha256sum"
	check "sha256sum -c on the manifest" "" "$(awk -F, '/^[0-9]/ { f = $0; sub(/^[^,]*,[^,]*,[^,]*,/, "", f)
		print $3 "  " f }' hout.hashdeep | sha256sum -c --quiet 2>&1)"
fi
check "ls --hash md5: md5sum's lines" "$(cd src/dirA && md5sum f1.txt taker.bin)" "$("$FATSCOPE" ls --hash md5 "$img" /dirA)"
check "ls -l --hash sha256: the column" "$(sha src/dirA/f1.txt) /dirA/f1.txt" \
	"$("$FATSCOPE" ls -l --hash sha256 "$img" /dirA/f1.txt | awk '{ print $6, $7 }')"
"$FATSCOPE" ls -l --hash sha1 "$img" /bad > lsout 2> err; rc=$?
check "ls --hash of a damaged chain: exit" 4 "$rc"
check "ls --hash of a damaged chain: loop.bin's bytes up to the loop" "$(sha1sum < want-loop | cut -c1-40)" \
	"$(awk '$7 == "loop.bin" { print $6 }' lsout)"
check "the image unchanged" "$before" "$(sha "$img")"
rm -rf src out bout cout sout wout lout dout hout hout.hashdeep want-* got err lsout victim.bin ci.img "$img"
finish
