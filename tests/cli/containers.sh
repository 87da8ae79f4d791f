#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# containers.sh - evidence containers read as the disk they hold.  From the
# raw fixtures pop-small (exFAT), pop-fat12, pop-fat16, gpt-disk (a GPT
# with an exFAT and a FAT16 partition) and the same disk with an MBR
# written over its protective one, it makes, here and now: split raw sets
# (split: .001 .. and .aa ..), EWF (ewfacquire -u: one segment with case
# metadata and MD5 + SHA-1, nine 1 MiB segments, a compressed disk), VHD
# (qemu-img -O vpc: dynamic, fixed; a differencing disk patched from a
# dynamic one), VHDX, VMDK (sparse, stream-optimized, flat, a delta disk
# over a parent).  Then:
#  1. probe -J, fsck -n -J and ls -R -J of each container (dump -J and
#     scan -J of one of each format) equal those of its raw image, once
#     the device path and the container's own members are left out; so do
#     cat of a file and extract of the whole volume, and ls and fsck of
#     each partition (--partition N) inside a container, and scan of it;
#  2. the metadata probe shows is what ewfacquire was given (and the
#     hashes of the raw image), the VHD/VMDK disk types qemu-img made,
#     the split set's files; probe --verify says verified (exit 0), none
#     for a format that stores no hash, and mismatch (exit 4) once a byte
#     of a segment's media changed;
#  3. fsck -y refuses every container, and fsck -p, label with a new
#     value and undo one of each format, with one line and exit 8; no
#     container file changes (its ctime, size and inode kept);
#  4. a split set with a gap or a short segment, an EWF set without a
#     segment or with one truncated, a VHD whose footer checksum is wrong,
#     a VMDK without its extent file, a delta disk without its parent or
#     with a parent that is not the one it was made from: one line each,
#     exit 8, nothing on stdout.
# A format whose tool (ewfacquire, qemu-img) or library (fatscope
# --version) is missing is said and left out; jq is needed.
# Outputs are compared in the shell (no cmp or cat a run), the bytes cat
# gives hashed by one sha256sum at the end.
. "$(dirname "$0")/lib.sh"

command -v jq > /dev/null || skip "jq not installed"
command -v split > /dev/null || skip "split not installed (coreutils)"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
for f in pop-small pop-fat12 pop-fat16 gpt-disk; do
	has_fixture "$f" || hard_error "no fixture $f"
	# Not sparse: scan -J's counts of bytes read and skipped must not depend on holes.
	cp --sparse=never "$WORK/img/$f.img" "$f.img" || hard_error "cannot copy $f.img"
done
# mbr-disk.img: gpt-disk.img's partitions in an MBR (exFAT type 0x7 at sector 2048, FAT16 0xe at
# 10240), its GPT headers zeroed.
cp gpt-disk.img mbr-disk.img && {
	printf '\0\0\0\0\x07\0\0\0\0\x08\0\0\0\x20\0\0\0\0\0\0\x0e\0\0\0\0\x28\0\0\xc0\x37\0\0' |
		dd of=mbr-disk.img bs=1 seek=446 conv=notrunc status=none
	dd if=/dev/zero of=mbr-disk.img bs=512 seek=1 count=1 conv=notrunc status=none
	dd if=/dev/zero of=mbr-disk.img bs=512 seek=$((12582912 / 512 - 1)) count=1 conv=notrunc status=none
} || hard_error "cannot make mbr-disk.img"
"$FATSCOPE" --version > version.txt
built=
while IFS= read -r line; do [[ $line == containers:* ]] && built=${line#containers:}; done < version.txt
has() { [[ ",$built," == *", $1"[\ ,]* ]]; }
can_ewf=0 can_qemu=0
if ! has ewf; then echo "not tested: EWF (fatscope built without libewf)"
elif ! command -v ewfacquire > /dev/null; then echo "not tested: EWF (no ewfacquire: package ewf-tools)"
else can_ewf=1; fi
command -v qemu-img > /dev/null && can_qemu=1 || echo "not tested: VHD, VMDK (no qemu-img: package qemu-utils)"
has vhd || echo "not tested: VHD (fatscope built without libvhdi)"
has vmdk || echo "not tested: VMDK (fatscope built without libvmdk)"

# ---- the containers: NAME (as given on the command line) RAW-IMAGE
pairs=()
add() { pairs+=("$1 $2"); }
split -b 1M -d -a 3 --numeric-suffixes=1 pop-small.img ps. && add ps.005 pop-small
split -b 3M pop-small.img psl. && add psl.ab pop-small
split -b 4M -d -a 3 --numeric-suffixes=1 mbr-disk.img mbr. && add mbr.001 mbr-disk
acquire() { ewfacquire -u -q "$@" > /dev/null 2>&1 || hard_error "ewfacquire $* failed"; }
if [ "$can_ewf" = 1 ]; then
	acquire -t ev -C "CASE-2026/07" -E "EV 1" -e "Jane Doe" -D "SD card, slot 2" -N "seized at the scene" \
		-d sha1 pop-small.img && add ev.E01 pop-small
	acquire -t evs -S 1MiB -c none pop-small.img && add evs.E04 pop-small
	acquire -t evm -c best mbr-disk.img && add evm.E01 mbr-disk
	acquire -t evf -c fast pop-fat16.img && add evf.E01 pop-fat16
fi
convert() { qemu-img convert -f raw "$@" 2> /dev/null || hard_error "qemu-img convert $* failed"; }
if [ "$can_qemu" = 1 ] && has vhd; then
	convert -O vpc -o force_size=on pop-fat12.img fat.vhd && add fat.vhd pop-fat12
	convert -O vpc -o force_size=on gpt-disk.img gpt.vhd && add gpt.vhd gpt-disk
	convert -O vpc -o subformat=fixed,force_size=on pop-small.img psx.vhd && add psx.vhd pop-small
	convert -O vhdx pop-small.img ps.vhdx && add ps.vhdx pop-small
	# A differencing disk: an empty dynamic disk whose footer says type 4 and
	# whose header names psd.vhd (and its identifier) as parent.
	convert -O vpc -o force_size=on pop-small.img psd.vhd
	qemu-img create -q -f vpc -o force_size=on child.vhd 8M && "$PYTHON3" - <<'EOF' && add child.vhd pop-small
import struct
def csum(b, at):
    return ~(sum(b) - sum(b[at:at + 4])) & 0xffffffff
parent = open("psd.vhd", "rb").read()[-512:]
c = bytearray(open("child.vhd", "rb").read())
foot = bytearray(c[-512:])
foot[60:64] = struct.pack(">I", 4)
foot[64:68] = struct.pack(">I", csum(foot, 64))
c[-512:] = c[0:512] = foot
at = struct.unpack(">Q", foot[16:24])[0]
h = bytearray(c[at:at + 1024])
h[40:56] = parent[68:84]
name = "psd.vhd".encode("utf-16-be")
h[64:576] = name + bytes(512 - len(name))
h[36:40] = struct.pack(">I", csum(h, 36))
c[at:at + 1024] = h
open("child.vhd", "wb").write(c)
EOF
fi
if [ "$can_qemu" = 1 ] && has vmdk; then
	convert -O vmdk pop-small.img ps.vmdk && add ps.vmdk pop-small
	convert -O vmdk -o subformat=streamOptimized gpt-disk.img gpt.vmdk && add gpt.vmdk gpt-disk
	convert -O vmdk -o subformat=monolithicFlat pop-fat12.img fat.vmdk && add fat.vmdk pop-fat12
	qemu-img create -q -f vmdk -b ps.vmdk -F vmdk delta.vmdk && add delta.vmdk pop-small
	cp ps.vmdk renamed.vmdk && add renamed.vmdk pop-small	# its descriptor still names ps.vmdk
fi
# Every container file's ctime, size and inode (any write changes the ctime): compared at the
# end of 3, as lib.sh's unchanged trusts them, instead of hashing some 100 MB twice.
stat -c '%n %z %s %i' ps.0* psl.a? mbr.0* ev*.E0* *.vhd *.vhdx *.vmdk 2> /dev/null > before.stat

# ---- 1. every reading command: the container's output is the raw image's
all=()
for p in "${pairs[@]}"; do all+=("${p%% *}"); done
"$FATSCOPE" probe -J pop-small.img pop-fat12.img pop-fat16.img gpt-disk.img mbr-disk.img "${all[@]}" > probe.json
# run FILE IMAGE CMD...: fatscope CMD IMAGE's output, messages and exit status into FILE (no
# subshell: ~80 runs).  Each JSON output starts with "{" and a line naming the image ("path", or
# "device" for scan): skip_of NAME CMD sets SKIP to their bytes, which cmp leaves out.  JSON other
# than probe's has no container member.
run() {
	local f=$1 img=$2
	shift 2
	"$FATSCOPE" "$@" "$img" > "$f" 2>&1
	echo "exit status $?" >> "$f"
}
skip_of() {
	local key=path
	[[ $2 == scan* ]] && key=device
	SKIP=$((${#key} + ${#1} + 12))
}
# same_after FILE-A SKIP-A FILE-B SKIP-B: the two are equal after their first bytes
# (cmp -s -i SKIP-A:SKIP-B)
same_after() {
	local a b
	if slurp_raw a "$1" && slurp_raw b "$3"; then
		[ "${#a}" -ge "$2" ] && [ "${#b}" -ge "$4" ] && [ "${a:$2}" = "${b:$4}" ]
	else
		cmp -s -i "$2:$4" "$1" "$3"
	fi
}
# err_text: the file err without its trailing newlines (as $(cat err))
err_text() {
	slurp_raw ERR err
	while [[ $ERR == *$'\n' ]]; do ERR=${ERR%$'\n'}; done
}
# dump -J and scan -J (which reads it all) of the first volume container of each format; every
# whole disk is scanned.
volume_cmds=("fsck -n -J" "ls -R -J")
disk_cmds=("scan -J" "ls -R -J --partition 1" "ls -R -J --partition 2" "fsck -n -J --partition 2")
once=" "
for p in "${pairs[@]}"; do
	c=${p%% *} raw=${p#* }.img
	cmds=("${volume_cmds[@]}")
	[[ $raw == *-disk.img ]] && cmds=("${disk_cmds[@]}")
	fmt=${c##*.}
	[[ $fmt == [0-9]* || $fmt == [a-z][a-z] ]] && fmt=split
	[[ $fmt == vhdx ]] && fmt=vhd
	[[ $once == *" $fmt "* || $raw == *-disk.img ]] || { cmds+=("dump -J" "scan -J"); once+="$fmt "; }
	for cmd in "${cmds[@]}"; do
		want="want.$raw.${cmd// /}"
		if [ ! -f "$want" ]; then
			run "$want" "$raw" $cmd
			slurp_raw w "$want"
			w=${w%$'\n'}
			[[ $w == "{"$'\n'*"\": \"$raw\","$'\n'*"exit status 0" ]] || bad "$cmd $raw: ${w:0:200}"
		fi
		run got "$c" $cmd
		skip_of "$raw" "$cmd"
		a=$SKIP
		skip_of "$c" "$cmd"
		same_after "$want" "$a" got "$SKIP" && ok || bad "$cmd $c: $(diff "$want" got | head -5)"
	done
done
# File bytes: cat of one file (each output to a file, all hashed by one sha256sum),
# and extract of the whole volume.
declare -A first_file=() raw_of=()
catted=()
mkdir -p catted
for p in "${pairs[@]}"; do
	c=${p%% *} raw=${p#* }.img
	raw_of[$c]=$raw
	case $raw in
	pop-small.img) file=/README.txt ;;
	pop-fat1?.img)
		if [ -z "${first_file[$raw]:-}" ]; then
			"$FATSCOPE" ls "$raw" > ls.txt
			IFS= read -r first_file[$raw] < ls.txt
		fi
		file=/${first_file[$raw]:-} ;;
	*) continue ;;
	esac
	[ -s "cat-$raw" ] || "$FATSCOPE" cat "$raw" "$file" > "cat-$raw"
	[ -s "cat-$raw" ] || bad "cat $raw $file: nothing"
	"$FATSCOPE" cat "$c" "$file" > "catted/$c"
	catted+=("$c	$raw	$file")
done
declare -A sum=()
while read -r h f; do sum[$f]=$h; done < <(sha256sum cat-*.img catted/* 2> /dev/null)
for k in "${catted[@]}"; do
	IFS=$'\t' read -r c raw file <<< "$k"
	[ -n "${sum[catted/$c]:-}" ] && [ "${sum[catted/$c]}" = "${sum[cat-$raw]:-}" ] && ok ||
		bad "cat $c $file: not the bytes of cat $raw $file"
done
for c in ps.005 evs.E04 fat.vhd delta.vmdk; do
	[ -f "$c" ] || continue
	raw=${raw_of[$c]:-}
	[ -d "x-$raw" ] || "$FATSCOPE" extract -o "x-$raw" "$raw" > /dev/null || bad "extract $raw failed"
	rm -rf xc
	x=("x-$raw"/*)
	"$FATSCOPE" extract -o xc "$c" > /dev/null && [ -e "${x[0]}" ] && diff -r "x-$raw" xc > /dev/null &&
		ok || bad "extract $c differs from extract $raw"
done

# ---- 2. metadata, --verify
read -r md5 _ < <(md5sum < pop-small.img)
read -r sha1 _ < <(sha1sum < pop-small.img)
meta() { "$FATSCOPE" probe -J "$@" | jq -c '.volumes[0].container | del(.acquired, .acquired_os, .acquired_software)'; }
check "split files" '{"format":"split","variant":null,"disk_type":null,"media_size":8388608,"bytes_per_sector":0,"files":["ps.001","ps.002","ps.003","ps.004","ps.005","ps.006","ps.007","ps.008"],"parent":null,"case_number":null,"evidence_number":null,"examiner":null,"description":null,"notes":null,"md5":null,"sha1":null}' "$(meta ps.005)"
check "split letters" '["psl.aa","psl.ab","psl.ac"]' "$("$FATSCOPE" probe -J psl.ab | jq -c '.volumes[0].container.files')"
if [ "$can_ewf" = 1 ]; then
	check "EWF metadata" "{\"format\":\"ewf\",\"variant\":\"encase6\",\"disk_type\":\"fixed\",\"media_size\":8388608,\"bytes_per_sector\":512,\"files\":[\"ev.E01\"],\"parent\":null,\"case_number\":\"CASE-2026/07\",\"evidence_number\":\"EV 1\",\"examiner\":\"Jane Doe\",\"description\":\"SD card, slot 2\",\"notes\":\"seized at the scene\",\"md5\":\"$md5\",\"sha1\":\"$sha1\"}" "$(meta ev.E01)"
	check "EWF acquisition date" 1 "$("$FATSCOPE" probe -J ev.E01 | jq '.volumes[0].container.acquired' | grep -cE '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"$')"
	check "EWF segments" '["evs.E01","evs.E02","evs.E03","evs.E04","evs.E05","evs.E06","evs.E07","evs.E08","evs.E09"]' \
		"$("$FATSCOPE" probe -J evs.E04 | jq -c '.volumes[0].container.files')"
	out=$("$FATSCOPE" probe --verify ev.E01); rc=$?
	check "probe --verify ev.E01 (text)" "0
  case_number            CASE-2026/07
  evidence_number        EV 1
  examiner               Jane Doe
  description            SD card, slot 2
  notes                  seized at the scene
  md5                    $md5
  sha1                   $sha1
  verify                 verified: md5 $md5
  verify                 verified: sha1 $sha1" "$rc
$(grep -E '^  (case_number|evidence_number|examiner|description|notes|md5|sha1|verify) ' <<< "$out")"
	out=$("$FATSCOPE" probe -J --verify evs.E09 pop-small.img); rc=$?
	check "probe -J --verify (EWF, raw)" "0 {\"result\":\"verified\",\"md5\":\"$md5\",\"sha1\":null} {\"result\":\"none\",\"md5\":null,\"sha1\":null}" \
		"$rc $(jq -c '.volumes[].verify' <<< "$out" | tr '\n' ' ' | sed 's/ $//')"
	mkdir -p changed && cp evs.E0* changed/
	printf 'X' | dd of=changed/evs.E03 bs=1 seek=500000 conv=notrunc status=none
	out=$("$FATSCOPE" probe -J --verify changed/evs.E01); rc=$?
	check "probe --verify, a byte changed" "4 mismatch true" \
		"$rc $(jq -r '.volumes[0].verify.result' <<< "$out") $(jq '.volumes[0].verify.md5 != .volumes[0].container.md5' <<< "$out")"
fi
if [ "$can_qemu" = 1 ] && has vhd; then
	check "VHD types" "vhd dynamic 1474560 vhd fixed 8388608 vhdx dynamic 8388608 vhd differencing psd.vhd" \
		"$("$FATSCOPE" probe -J fat.vhd psx.vhd ps.vhdx child.vhd | jq -r '[.volumes[] | .container |
			.variant, .disk_type, (.parent // .media_size)] | join(" ")')"
	out=$("$FATSCOPE" probe --verify fat.vhd 2>&1 | grep verify)
	check "probe --verify fat.vhd" "  verify                 none (no hash stored)" "$out"
fi
if [ "$can_qemu" = 1 ] && has vmdk; then
	check "VMDK types" "monolithicSparse streamOptimized monolithicFlat ps.vmdk fat.vmdk,fat-flat.vmdk" \
		"$("$FATSCOPE" probe -J ps.vmdk gpt.vmdk fat.vmdk delta.vmdk | jq -r '[.volumes[] | select(.partition == null) |
			.container.disk_type] | .[0:3] | join(" ")') $("$FATSCOPE" probe -J delta.vmdk fat.vmdk |
			jq -r '[.volumes[0].container.parent, (.volumes[1].container.files | join(","))] | join(" ")')"
fi

# ---- 3. writers refused, nothing written
u=$PWD/v.undo
cp pop-small.img w.img && "$FATSCOPE" label --undo "$u" w.img UNDOME > /dev/null || hard_error "cannot make an undo file"
declare -A title=([E01]=EWF [E04]=EWF [vhd]=VHD [vhdx]=VHD [vmdk]=VMDK)
refused=" "
for p in "${pairs[@]}"; do
	c=${p%% *}
	t=${title[${c##*.}]:-split raw}
	writers=("fsck -y")
	[[ $refused == *" $t "* ]] || { writers+=("fsck -p" label undo); refused+="$t "; }
	for w in "${writers[@]}"; do
		case $w in label) args=(label "$c" NEWLABEL) ;; undo) args=(undo "$u" "$c") ;; *) args=($w "$c") ;; esac
		out=$("$FATSCOPE" "${args[@]}" 2> err); rc=$?
		err_text
		check "${args[*]}" "8||fatscope: $c: evidence container ($t): fatscope never writes to one, nothing written" \
			"$rc|$out|$ERR"
	done
done
stat -c '%n %z %s %i' ps.0* psl.a? mbr.0* ev*.E0* *.vhd *.vhdx *.vmdk 2> /dev/null > after.stat
slurp_raw a before.stat
slurp_raw b after.stat
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "a container file changed: $(diff before.stat after.stat)"

# ---- 4. damaged sets: one line, exit 8
broken() { # WHAT WANT-LINE COMMAND...
	local what=$1 want=$2 out rc
	shift 2
	out=$("$FATSCOPE" "$@" 2> err); rc=$?
	err_text
	check "$what" "8||$want" "$rc|$out|$ERR"
}
mkdir -p gap && cp ps.0* gap/ && rm gap/ps.004
broken "split gap" "fatscope: gap/ps.002: split raw set: segment gap/ps.004 is missing (the set goes up to gap/ps.008)" ls gap/ps.002
mkdir -p short && cp ps.0* short/ && truncate -s 1000 short/ps.003
broken "split short" "fatscope: short/ps.008: split raw set: segment short/ps.003 has 1000 bytes where short/ps.001 has 1048576: truncated, or not of this set" probe short/ps.008
if [ "$can_ewf" = 1 ]; then
	mkdir -p ewfgap ewfcut && cp evs.E0* ewfgap/ && cp evs.E0* ewfcut/ && rm ewfgap/evs.E05
	truncate -s 500000 ewfcut/evs.E02
	broken "EWF gap" "fatscope: ewfgap/evs.E02: EWF segment set incomplete or damaged (4 files, ewfgap/evs.E01 to ewfgap/evs.E04): a segment is missing or truncated" ls ewfgap/evs.E02
	broken "EWF truncated" "fatscope: ewfcut/evs.E01: EWF segment set incomplete or damaged (9 files, ewfcut/evs.E01 to ewfcut/evs.E09): a segment is missing or truncated" fsck -n ewfcut/evs.E01
fi
if [ "$can_qemu" = 1 ] && has vhd; then
	cp fat.vhd bad.vhd
	size=$(stat -c %s bad.vhd)
	sum=$(od -An -tx1 -j $((size - 512 + 64)) -N4 bad.vhd | tr -d ' \n')
	printf '\x01\x02\x03\x04' | dd of=bad.vhd bs=1 seek=$((size - 512 + 64)) conv=notrunc status=none
	broken "VHD footer" "fatscope: bad.vhd: VHD footer damaged: checksum 0x01020304, computed 0x$sum" ls bad.vhd
	mkdir -p orphan wrong && cp child.vhd orphan/ && cp child.vhd wrong/ && cp fat.vhd wrong/psd.vhd
	broken "VHD parent missing" "fatscope: orphan/child.vhd: differencing VHD: its parent orphan/psd.vhd is missing (orphan/child.vhd names \"psd.vhd\")" probe orphan/child.vhd
	broken "VHD parent not its own" "fatscope: wrong/child.vhd: differencing VHD: wrong/psd.vhd is not the disk wrong/child.vhd was made from (its identifier differs)" ls wrong/child.vhd
fi
if [ "$can_qemu" = 1 ] && has vmdk; then
	mkdir -p noext && cp fat.vmdk delta.vmdk noext/
	broken "VMDK extent missing" "fatscope: noext/fat.vmdk: VMDK: extent file fat-flat.vmdk is missing (noext/fat.vmdk names it)" dump noext/fat.vmdk
	broken "VMDK parent missing" "fatscope: noext/delta.vmdk: differencing VMDK: its parent noext/ps.vmdk is missing (noext/delta.vmdk names \"ps.vmdk\")" scan noext/delta.vmdk
	mkdir -p wrong && cp delta.vmdk wrong/ && convert -O vmdk pop-small.img wrong/ps.vmdk	# the same bytes, another CID
	broken "VMDK parent not its own" "fatscope: wrong/delta.vmdk: differencing VMDK: wrong/ps.vmdk is not the disk wrong/delta.vmdk was made from (its identifier differs)" cat wrong/delta.vmdk /README.txt
fi
# libewf missing at run time (hidden in a mount namespace of this test's
# own: root only): the E01 is one line and exit 8, a raw image still reads,
# --version says why.  The library is opened when a container needs it.
lib=$(ldconfig -p 2> /dev/null | awk '$1 ~ /^libewf\.so\./ { print $NF; exit }')
if [ "$can_ewf" = 1 ] && [ -n "$lib" ] && unshare -m true 2> /dev/null; then
	unshare -m bash -c 'mount --bind /dev/null "$1" && shift && "$@"' _ "$lib" "$FATSCOPE" probe -s ev.E01 \
		> out 2> err; rc=$?
	err_text
	check "libewf missing: the E01" "8 fatscope: ev.E01: EWF: ${lib##*/} cannot be loaded" "$rc ${ERR%%: /*}"
	unshare -m bash -c 'mount --bind /dev/null "$1" && shift && "$@"' _ "$lib" "$FATSCOPE" probe -s pop-small.img \
		> out 2> err; rc=$?
	check "libewf missing: a raw image" 0 "$rc"
	out=$(unshare -m bash -c 'mount --bind /dev/null "$1" && shift && "$@"' _ "$lib" "$FATSCOPE" --version)
	[[ $out == *"ewf (EWF: ${lib##*/} cannot be loaded"* ]] && ok || bad "libewf missing: --version says nothing: $out"
else
	echo "not tested: libewf missing at run time (needs root, unshare and libewf in ldconfig's cache)"
fi
cd / && rm -rf "$SCRATCH"
finish
