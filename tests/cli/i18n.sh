#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# i18n.sh - translations: with the German catalogue of po/ (de.gmo, put
# where FATSCOPE_LOCALEDIR says) and LANGUAGE=de under LC_ALL=C.UTF-8
# (glibc ignores LANGUAGE under the C locale), fatscope speaks German
# where po/de.po has a translation:
#   - a usage mistake and its "Try" line, and the common options' help;
#   - an error line "fatscope: FILE: ...";
#   - a problem message of the library (through its own domain binding),
#     the severity and the summary line of fsck -n;
# and what programs read does not change: -J output of probe and fsck,
# the problem IDs of the text report, -C progress lines, a -o -r table
# and every exit status are byte-identical to the run in the C locale.
# Built with --disable-nls (no ENABLE_NLS in config.h) it skips.
. "$(dirname "$0")/lib.sh"

grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" 2> /dev/null ||
	skip "built without NLS (./configure --disable-nls)"
utf8=
for l in C.UTF-8 C.utf8; do
	locale -a 2> /dev/null | grep -qx "$l" && { utf8=$l; break; }
done
[ -n "$utf8" ] || skip "no C.UTF-8 locale here (locale -a)"
gmo=
for d in "$top_builddir/po" "$top_srcdir/po"; do
	[ -f "$d/de.gmo" ] && { gmo=$d/de.gmo; break; }
done
[ -n "$gmo" ] || hard_error "no po/de.gmo: make builds it (msgfmt, from gettext)"

mkdir -p "$SCRATCH/locale/de/LC_MESSAGES"
cp "$gmo" "$SCRATCH/locale/de/LC_MESSAGES/fatscope.mo" || hard_error "cannot copy $gmo"

# C: the reference run; DE: German.  Both see the same catalogue directory.
C() { env FATSCOPE_LOCALEDIR="$SCRATCH/locale" LC_ALL=C LANGUAGE= "$FATSCOPE" "$@"; }
DE() { env FATSCOPE_LOCALEDIR="$SCRATCH/locale" LC_ALL="$utf8" LANGUAGE=de "$FATSCOPE" "$@"; }

# has WHAT TEXT OUTPUT: OUTPUT holds the line TEXT.
has() {
	if grep -qxF -- "$2" <<< "$3"; then ok; else bad "$1: no line '$2' in: $(head -c 600 <<< "$3")"; fi
}
# same WHAT A B: byte-identical.
same() {
	if [ "$2" = "$3" ]; then ok; else bad "$1 differs:"; diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -20; fi
}

prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"
img=exfat-bad-checksum.img
has_fixture "${img%.img}" || hard_error "no fixture $img"

# A usage mistake, translated, exit status 16 in both languages.
out=$(DE probe 2>&1; echo "exit status: $?")
has "usage mistake" "fatscope probe: kein Gerät und kein Abbild angegeben" "$out"
has "its Try line" "Mehr dazu mit 'fatscope probe --help'." "$out"
has "usage exit status" "exit status: 16" "$out"
out=$(C probe 2>&1)
has "usage mistake in C" "fatscope probe: no device or image specified" "$out"

# --help: the common options' lines; the option names stay.
out=$(DE probe --help)
has "--help" " -h, --help              diese Hilfe anzeigen" "$out"
out=$(DE --help)
has "fatscope --help" " fsck     exFAT- und FAT-Datenträger prüfen und reparieren (Optionen und Rückgabewerte von fsck(8))" "$out"

# An error line: ls on a volume that is not exFAT or FAT.
out=$(DE ls blank.img 2>&1; echo "exit status: $?")
want=$(C ls blank.img 2>&1; echo "exit status: $?")
has "error line" "fatscope: blank.img: kein exFAT- oder FAT-Datenträger (blank)" "$out"
same "error exit status" "${want##*exit status: }" "${out##*exit status: }"

# fsck -n: the library's problem message in German, the ID as it is.
de=$(DE fsck -n "$img" 2>&1; echo "exit status: $?")
c=$(C fsck -n "$img" 2>&1; echo "exit status: $?")
has "problem message" "Fehler  EXFAT_BOOT_CHECKSUM: die Boot-Prüfsumme in Sektor 11 ist 0x8a1f56be, die Sektoren 0..10 ergeben 0x8a2154be [sector 11 (BootChecksum)]" "$de"
has "summary line" "$img: 1 Problem nicht behoben (nur lesend geprüft)" "$de"
has "problem message in C" "error   EXFAT_BOOT_CHECKSUM: boot checksum in sector 11 is 0x8a1f56be, sectors 0..10 give 0x8a2154be [sector 11 (BootChecksum)]" "$c"
ids() { grep -oE '\b[A-Z][A-Z0-9]*_[A-Z0-9_]+:' <<< "$1"; }
[ -n "$(ids "$c")" ] || bad "no problem ID in the C run of fsck -n $img"
same "problem IDs of fsck -n" "$(ids "$c")" "$(ids "$de")"
same "fsck -n exit status" "${c##*exit status: }" "${de##*exit status: }"
de=$(DE probe "$img" 2>&1)
c=$(C probe "$img" 2>&1)
has "probe's findings" "  Befunde:" "$de"
same "problem IDs of probe" "$(ids "$c")" "$(ids "$de")"

# What programs read: byte for byte the same.
for args in "probe -J $img" "fsck -n -J $img" "probe -r -o DRIVER,ACTION,AS,ERRNO,WHY $img" "probe -s $img" \
	    "dump -J $img" "scan -J $img"; do
	# shellcheck disable=SC2086
	c=$(C $args 2>&1; echo "exit status: $?")
	# shellcheck disable=SC2086
	de=$(DE $args 2>&1; echo "exit status: $?")
	[[ $c == *'"'* || $args == *-r* || $args == *-s* ]] || bad "$args: not the machine output expected: $(head -c 200 <<< "$c")"
	same "fatscope $args" "$c" "$de"
done
c=$(C fsck -n -J "$img")
grep -qF '"message": "boot checksum in sector 11 is 0x8a1f56be, sectors 0..10 give 0x8a2154be"' <<< "$c" ||
	bad "fsck -J: no English message of EXFAT_BOOT_CHECKSUM in: $(head -c 600 <<< "$c")"

# -C progress lines (fsck(8) reads them) on a descriptor.
C fsck -n -C 3 "$img" 3> "$SCRATCH/progress.c" > /dev/null 2>&1
DE fsck -n -C 3 "$img" 3> "$SCRATCH/progress.de" > /dev/null 2>&1
if [ -s "$SCRATCH/progress.c" ] && cmp -s "$SCRATCH/progress.c" "$SCRATCH/progress.de"; then
	ok
else
	bad "-C progress lines differ or are missing: $(head -3 "$SCRATCH/progress.c" | tr '\n' '|') / $(head -3 "$SCRATCH/progress.de" | tr '\n' '|')"
fi
finish
