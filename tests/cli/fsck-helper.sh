#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-helper.sh - fatscope run as fsck.exfat, fsck.vfat, fsck.fat or
# fsck.msdos (argv[0]'s last component, as fsck(8) runs it) is fatscope
# fsck: the same output and exit status for the same volume and options;
# the options fsck(8) may pass (-a, -r, -l, -M, -T) are taken; any other
# name is the fatscope command.  Each name also takes its peer's options:
#  - fsck.exfat (exfatprogs): -V prints the version, -s makes preen save
#    lost clusters in /FOUND.nnn, -b checks through the backup boot region
#    (as fatscope always does), and restores it with -y;
#  - fsck.fat, fsck.vfat, fsck.msdos (dosfstools): -V is the verification
#    pass (--recheck), --version the version, -l lists each path, -f makes
#    preen save lost clusters, -c PAGE is --codepage, -r, -w and -t are
#    accepted and change nothing here;
#  - an option none of them has, or a peer's under another name (-s, -b as
#    fsck.fat; -w as fsck.exfat), is a usage error (16) under every name;
#    so are -C with a descriptor that is not open, and --lost-to with -n.
# The program is run under each name with bash's exec -a.
. "$(dirname "$0")/lib.sh"
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
command -v jq > /dev/null || skip "jq not installed"

run_as() {	# run_as NAME ARGS...: $FATSCOPE with argv[0] NAME; stdout and stderr merged
	local name=$1
	shift
	(exec -a "$name" "$FATSCOPE" "$@") 2>&1
}

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
# own -l, -M, -T: taken and ignored; as fsck.fat, -r, -w and -t too.
want=$("$FATSCOPE" fsck -n damaged.img 2>&1)
got=$(run_as fsck.exfat -r -l -M -T damaged.img); rc=$?
check "fsck.exfat -r -l -M -T: exit" 4 "$rc"
check "fsck.exfat -r -l -M -T: output" "$want" "$got"
got=$(run_as fsck.fat -r -w -t -M -T damaged.img); rc=$?
check "fsck.fat -r -w -t -M -T" "4 $want" "$rc $got"
cmp -s damaged.img "$WORK/img/bad-name-hash.img" && ok || bad "a check changed damaged.img"

# -V: exfatprogs' version, dosfstools' verification pass.
got=$(run_as fsck.exfat -V); rc=$?
check "fsck.exfat -V" "0 fatscope fsck from fatscope" "$rc $(cut -d' ' -f1-4 <<< "$got")"
got=$(run_as fsck.vfat --version); rc=$?
check "fsck.vfat --version" "0 fatscope fsck from fatscope" "$rc $(cut -d' ' -f1-4 <<< "$got")"
cp "$WORK/img/fbad-fat16-loop.img" v1.img
cp v1.img v2.img
want=$("$FATSCOPE" fsck -y --recheck v1.img 2>&1); want_rc=$?
got=$(run_as fsck.fat -y -V v2.img); rc=$?
check "fsck.fat -V is --recheck: exit" "1 1" "$want_rc $rc"
check "fsck.fat -V is --recheck: output" "${want//v1.img/vN.img}" "${got//v2.img/vN.img}"
grep -qx 'Checked again:' <<< "$got" && ok || bad "fsck.fat -y -V did not check again: $got"
cmp -s v1.img v2.img && ok || bad "fsck.fat -y -V wrote other bytes than fatscope fsck -y --recheck"

# FAT: checked as fatscope fsck checks it (a clean volume: exit 0 and its summary line).
got=$(run_as fsck.vfat -a fat32.img); rc=$?
check "fsck.vfat -a on FAT32" "0 fat32.img: 0 files, 0 directories, 1/68528 clusters used" "$rc $(cut -d' ' -f1-8 <<< "$got")"

# fsck.fat -l: "Checking file PATH" for every file and directory, then the report.
got=$(run_as fsck.fat -n -l "$WORK/img/pop-fat16.img"); rc=$?
want=$("$FATSCOPE" dump -J -l "$WORK/img/pop-fat16.img" | jq -r '.tree[] | select(.kind != "label") | "Checking file " + .path')
check "fsck.fat -l: exit" 0 "$rc"
check "fsck.fat -l: the paths" "$want" "$(grep '^Checking file ' <<< "$got")"
check "fsck.fat -l: then the report" "$("$FATSCOPE" fsck -n "$WORK/img/pop-fat16.img")" "$(grep -v '^Checking file ' <<< "$got")"
# -c PAGE is --codepage.
check "fsck.msdos -c 437" "$("$FATSCOPE" fsck -n --codepage 437 "$WORK/img/pop-fat16.img")" \
	"$(run_as fsck.msdos -n -c 437 "$WORK/img/pop-fat16.img")"

# Lost clusters: preen leaves them, -s (fsck.exfat) and -f (fsck.fat) save them in /FOUND.000.
for spec in "fsck.exfat -s bad-lost-clusters EXFAT_LOST_CLUSTERS" "fsck.vfat -f fbad-fat16-lost FAT_LOST_CLUSTERS"; do
	read -r name opt img id <<< "$spec"
	cp "$WORK/img/$img.img" l.img
	got=$(run_as "$name" -p l.img); rc=$?
	check "$name -p leaves lost clusters" "0 l.img: left  warning $id" "$rc $(head -n1 <<< "$got" | sed 's/\(_CLUSTERS\): .*/\1/')"
	cmp -s l.img "$WORK/img/$img.img" && ok || bad "$name -p wrote lost clusters it left"
	got=$(run_as "$name" -p "$opt" l.img); rc=$?
	check "$name -p $opt saves them" "1 l.img: fixed warning $id" "$rc $(head -n1 <<< "$got" | sed 's/\(_CLUSTERS\): .*/\1/')"
	check "$name -p $opt: /FOUND.000, a clean volume" "FOUND.000 0" \
		"$("$FATSCOPE" ls -J l.img / | jq -r '.entries[] | select(.name == "FOUND.000") | .name') $("$FATSCOPE" fsck -n l.img > /dev/null; echo $?)"
	got=$(run_as "$name" -p "$opt" --lost=free l.img); rc=$?
	check "$name -p $opt --lost=free" 16 "$rc"
done

# fsck.exfat -b: a volume whose main boot region is lost is checked through
# the backup, and -y restores it, as without -b.
cp "$WORK/img/pop-small.img" b1.img
dd if=/dev/zero of=b1.img bs=512 count=1 conv=notrunc status=none
cp b1.img b2.img
want=$("$FATSCOPE" fsck -y b1.img 2>&1); want_rc=$?
got=$(run_as fsck.exfat -b -y b2.img); rc=$?
check "fsck.exfat -b -y restores the main boot region" "1 1 fixed error   EXFAT_MAIN_BOOT_LOST" \
	"$want_rc $rc $(head -n1 <<< "$got" | cut -c1-34)"
cmp -s b1.img b2.img && ok || bad "fsck.exfat -b -y wrote other bytes than fatscope fsck -y"

# Mistakes are usage errors (16) under every name, with fatscope fsck's "Try" line.
for args in "fsck.exfat -Q" "fsck.exfat -w" "fsck.exfat -t" "fsck.fat -s" "fsck.fat -b" "fsck.vfat -Q" "fatscope -s" \
	    "fatscope -b" "fatscope -w" "fsck.msdos -c 1252"; do
	read -r name opts <<< "$args"
	if [ "$name" = fatscope ]; then
		got=$("$FATSCOPE" fsck $opts damaged.img 2>&1); rc=$?
	else
		got=$(run_as "$name" $opts damaged.img); rc=$?
	fi
	check "$name $opts: exit" 16 "$rc"
	check "$name $opts: message" "Try 'fatscope fsck --help' for more information." "$(tail -n 1 <<< "$got")"
done
got=$(run_as fsck.exfat -n -C 99 damaged.img); rc=$?
check "-C with a descriptor that is not open" \
	"16 fatscope fsck: progress descriptor 99 is not open for writing" "$rc $(head -n1 <<< "$got")"
got=$(run_as fsck.exfat -n -C 99 damaged.img 99> progress.txt); rc=$?
check "-C with an open descriptor: exit, progress lines" "4 1234" \
	"$rc $(grep -E '^[1-4] [0-9]+ [0-9]+ damaged\.img$' progress.txt | cut -d' ' -f1 | sort -u | tr -d '\n')"
got=$(run_as fsck.vfat -n --lost-to lost damaged.img); rc=$?
check "--lost-to with -n" 16 "$rc"
[ ! -e lost ] && ok || bad "--lost-to with -n made its directory"

# Only those four names: fsck.ext4 is the fatscope command, which has no -n.
got=$(run_as fsck.ext4 -n damaged.img); rc=$?
check "fsck.ext4 -n" "16 fatscope: unknown command '-n'" "$rc $(head -n 1 <<< "$got")"
finish
