#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-helper.sh - fatscope run as fsck.exfat, fsck.vfat, fsck.fat or
# fsck.msdos (argv[0]'s last component, as fsck(8) runs it) is fatscope
# fsck: the same output and exit status for the same volume and options;
# the options fsck(8) may pass (-a, -r, -l, -M, -T, -V) are taken; a FAT
# volume is refused with exit 8; any other name is the fatscope command.
# The build tree's fatscope is a libtool wrapper that execs the real
# program under its own name: libtool --mode=execute runs the real one,
# and bash's exec -a gives it the name.
. "$(dirname "$0")/lib.sh"
prepare_fixtures

libtool=$top_builddir/libtool
[ -x "$libtool" ] || hard_error "no libtool script at $libtool"

run_as() {	# run_as NAME ARGS...: $FATSCOPE with argv[0] NAME; stdout and stderr merged
	local name=$1
	shift
	"$libtool" --mode=execute bash -c 'exec -a "$0" "$@"' "$name" "$FATSCOPE" "$@" 2>&1
}

cd "$SCRATCH" || hard_error "no $SCRATCH"
cp "$WORK/img/bad-name-hash.img" damaged.img
cp "$WORK/img/fat32.img" fat32.img

want=$("$FATSCOPE" fsck -n damaged.img 2>&1); want_rc=$?
check "fatscope fsck -n of a damaged volume" 4 "$want_rc"
for name in fsck.exfat fsck.vfat fsck.fat fsck.msdos /usr/sbin/fsck.exfat ./fsck.vfat; do
	got=$(run_as "$name" -n damaged.img); rc=$?
	check "$name -n: exit" "$want_rc" "$rc"
	check "$name -n: output" "$want" "$got"
done

# What fsck(8) passes: -a (preen) on a dirty volume clears VolumeDirty (exit 1),
# as fatscope fsck -a does on a copy.
cp "$WORK/img/exfat-dirty.img" dirty1.img
cp "$WORK/img/exfat-dirty.img" dirty2.img
want=$("$FATSCOPE" fsck -a dirty1.img 2>&1); want_rc=$?
got=$(run_as fsck.exfat -a dirty2.img); rc=$?
check "fsck.exfat -a: exit" "1 1" "$want_rc $rc"
check "fsck.exfat -a: output" "${want//dirty1/dirtyN}" "${got//dirty2/dirtyN}"
cmp -s dirty1.img dirty2.img && ok || bad "fsck.exfat -a wrote other bytes than fatscope fsck -a"

# -r (e2fsck's interactive: without a terminal, check only), and fsck(8)'s
# own -l, -M, -T: taken and ignored.
want=$("$FATSCOPE" fsck -n damaged.img 2>&1)
got=$(run_as fsck.exfat -r -l -M -T damaged.img); rc=$?
check "fsck.exfat -r -l -M -T: exit" 4 "$rc"
check "fsck.exfat -r -l -M -T: output" "$want" "$got"
sha=$(sha256sum < damaged.img)
[ "$sha" = "$(sha256sum < "$WORK/img/bad-name-hash.img")" ] && ok || bad "a check changed damaged.img"

got=$(run_as fsck.exfat -V); rc=$?
check "fsck.exfat -V" "0 fatscope fsck from fatscope" "$rc $(cut -d' ' -f1-4 <<< "$got")"

# FAT: checked as fatscope fsck checks it (a clean volume: exit 0 and its summary line).
got=$(run_as fsck.vfat -a fat32.img); rc=$?
check "fsck.vfat -a on FAT32" "0 fat32.img: 0 files, 0 directories, 1/68528 clusters used" "$rc $(cut -d' ' -f1-8 <<< "$got")"

# Mistakes are fatscope fsck's usage errors.
got=$(run_as fsck.exfat -Q damaged.img); rc=$?
check "fsck.exfat -Q: exit" 16 "$rc"
check "fsck.exfat -Q: message" "Try 'fatscope fsck --help' for more information." "$(tail -n 1 <<< "$got")"

# Only those four names: fsck.ext4 is the fatscope command, which has no -n.
got=$(run_as fsck.ext4 -n damaged.img); rc=$?
check "fsck.ext4 -n" "16 fatscope: unknown command '-n'" "$rc $(head -n 1 <<< "$got")"
finish
