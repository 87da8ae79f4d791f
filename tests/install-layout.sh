#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# install-layout.sh - what `make install` gives a packager, and fsck(8)
# running the installed fatscope.  It runs `make install DESTDIR=STAGE` in
# the build tree (the tarball's build is make distcheck's job; this is the
# build being tested), then checks, under STAGE and the configured
# directories:
#   - $(sbindir)/fatscope, and no $(bindir)/fatscope;
#   - a section-8 page for fatscope and for every command of
#     `fatscope --help', and no page in another section;
#   - the public headers under $(includedir)/fatscope/ and nothing else
#     at the top of $(includedir);
#   - no libtool .la file anywhere;
#   - fatscope.pc: Requires.private blkid (and the container libraries
#     configure found), and `pkg-config --cflags
#     --libs fatscope' (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR into
#     STAGE) compiles and links a program that prints fsc_version();
#   - the installed fatscope loads the installed library;
#   - fsck.TYPE links to fatscope exactly for configure's
#     --enable-fsck-helpers types;
#   - the bash completion in configure's bash completion directory
#     (none with --without-bashcompletiondir), named fatscope, which,
#     sourced, completes commands and options of the staged fatscope;
#   - fsck(8) round trips: util-linux `fsck -t exfat IMAGE' (and -a) with
#     PATH starting at the staged sbin runs fatscope (its finding and
#     summary lines, which exfatprogs' fsck.exfat does not print) and
#     exits with fatscope's status; `fsck -t vfat' on a FAT32 image gets
#     fatscope's summary line (which fsck.fat does not print) and 0.  Without
#     helpers, a link made here stands in for an alternatives link;
#   - `make uninstall DESTDIR=STAGE' leaves no file behind.
# Run by make check only with FATSCOPE_INSTALL_TEST=1 (.ci/run sets it):
# otherwise it prints SKIP and exits 77.
# Environment (tests/Makemodule.am): FSC_MAKE, FSC_CC, FSC_CFLAGS,
# FSC_LDFLAGS, FSC_BINDIR, FSC_SBINDIR, FSC_LIBDIR, FSC_INCLUDEDIR,
# FSC_MANDIR, FSC_FSCK_HELPERS, FSC_BASHCOMPLETIONDIR (empty: none).
. "$(dirname "$0")/cli/lib.sh"

[ "${FATSCOPE_INSTALL_TEST:-0}" = 1 ] || skip "set FATSCOPE_INSTALL_TEST=1 to install into a staging directory and check it"
for v in FSC_MAKE FSC_CC FSC_BINDIR FSC_SBINDIR FSC_LIBDIR FSC_INCLUDEDIR FSC_MANDIR; do
	[ -n "${!v:-}" ] || hard_error "$v is not set (run through make check)"
done
command -v pkg-config > /dev/null || hard_error "no pkg-config"

check() {	# check DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$3', want '$2'"; fi
}

stage=$SCRATCH/stage
sbin=$stage$FSC_SBINDIR
libdir=$stage$FSC_LIBDIR
inc=$stage$FSC_INCLUDEDIR
man=$stage$FSC_MANDIR

if ! $FSC_MAKE -C "$top_builddir" install DESTDIR="$stage" > "$SCRATCH/install.log" 2>&1; then
	cat "$SCRATCH/install.log"
	hard_error "make install DESTDIR=$stage failed"
fi
echo "installed into $stage:"
(cd "$stage" && find . ! -type d | sort | sed 's/^\./  /')

# The staged program, with the staged library.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fatscope=$sbin/fatscope

# sbin, not bin
[ -x "$fatscope" ] && ok || bad "no $FSC_SBINDIR/fatscope"
[ ! -e "$stage$FSC_BINDIR/fatscope" ] && ok || bad "fatscope is installed in $FSC_BINDIR too"
lib=$(ldd "$fatscope" 2>/dev/null | awk '$1 ~ /^libfatscope\.so/ { print $3 }')
check "the installed fatscope loads" "$libdir/libfatscope.so.0" "$lib"

# man pages: section 8, one a command
commands=$("$fatscope" --help | awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }')
[ -n "$commands" ] || bad "the installed fatscope --help lists no commands"
for page in fatscope $(printf 'fatscope-%s\n' $commands); do
	[ -f "$man/man8/$page.8" ] && ok || bad "no man8/$page.8 (commands: $(echo $commands))"
done
others=$(cd "$man" 2>/dev/null && find . -type f ! -path './man8/*' | sort)
check "pages outside section 8" "" "$others"

# headers
for h in fatscope.h problems.def; do
	[ -f "$inc/fatscope/$h" ] && ok || bad "no $FSC_INCLUDEDIR/fatscope/$h"
done
installed=$(cd "$inc/fatscope" 2>/dev/null && find . -type f | sort)
check "headers in $FSC_INCLUDEDIR/fatscope (the fault device's is not installed)" "./fatscope.h
./problems.def" "$installed"
top=$(cd "$inc" && find . -mindepth 1 -maxdepth 1 ! -name fatscope | sort)
check "files at the top of $FSC_INCLUDEDIR" "" "$top"

# no libtool archive
las=$(cd "$stage" && find . -name '*.la' | sort)
check ".la files installed" "" "$las"

# pkg-config, and a program built with what it says
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
pc=$libdir/pkgconfig/fatscope.pc
# (blkid, then the container libraries configure found: libewf, libvhdi, libvmdk and what they need)
req=$(sed -n 's/^Requires.private: *//p' "$pc")
check "fatscope.pc Requires.private starts with blkid" blkid "${req%% *}"
for m in $req; do
	case $m in
	blkid|libewf|libvhdi|libvmdk|libbfio|libcerror|libcdata|libclocale|libcnotify|libcsplit|libcthreads|libuna|zlib) ok ;;
	*) bad "fatscope.pc requires $m: not blkid or a container library" ;;
	esac
done
grep -q '^Libs.private:.*-lblkid' "$pc" && bad "fatscope.pc still lists -lblkid in Libs.private" || ok
check "pkg-config --print-requires-private" "$(tr ' ' '\n' <<< "$req")" "$(pkg-config --print-requires-private fatscope)"
flags=$(pkg-config --cflags --libs fatscope) || bad "pkg-config --cflags --libs fatscope failed"
pkg-config --static --libs fatscope > /dev/null || bad "pkg-config --static --libs fatscope failed (blkid.pc missing?)"
case " $flags " in
*" -I$inc "*" -L$libdir "*-lfatscope*) ok ;;
*) bad "pkg-config --cflags --libs fatscope: '$flags'" ;;
esac
cat > "$SCRATCH/v.c" <<'EOF'
#include <stdio.h>
#include <fatscope/fatscope.h>
int main(void) { printf("%s\n", fsc_version()); return 0; }
EOF
# shellcheck disable=SC2086 # the flags are words
if $FSC_CC $FSC_CFLAGS -o "$SCRATCH/v" "$SCRATCH/v.c" $flags $FSC_LDFLAGS 2> "$SCRATCH/cc.log"; then
	want=$("$fatscope" --version | sed -n 's/.*(libfatscope \(.*\))$/\1/p')
	check "a program built with pkg-config's flags" "$want" "$("$SCRATCH/v")"
else
	bad "a program does not build with pkg-config's flags: $(cat "$SCRATCH/cc.log")"
fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# fsck(8) helpers: exactly configure's
for t in exfat vfat fat msdos; do
	link=$sbin/fsck.$t
	case " ${FSC_FSCK_HELPERS:-} " in
	*" $t "*) check "fsck.$t" "fatscope" "$(readlink "$link")" ;;
	*) [ ! -e "$link" ] && [ ! -L "$link" ] && ok || bad "fsck.$t installed without --enable-fsck-helpers=$t" ;;
	esac
done

# bash completion: where configure said, and it completes with the staged fatscope
if [ -n "${FSC_BASHCOMPLETIONDIR:-}" ]; then
	comp=$stage$FSC_BASHCOMPLETIONDIR/fatscope
	if [ -f "$comp" ]; then
		got=$(PATH=$sbin:$PATH bash --norc --noprofile -c '. "$1" || exit 1
			complete -p fatscope
			COMP_WORDS=(fatscope pr); COMP_CWORD=1; _fatscope; echo "${COMPREPLY[*]}"
			COMP_WORDS=(fatscope fsck --lost = ""); COMP_CWORD=4; _fatscope; echo "${COMPREPLY[*]}"
			COMP_WORDS=(fatscope undo --sector); COMP_CWORD=2; _fatscope; echo "${COMPREPLY[*]}"' - "$comp" 2>&1)
		check "the installed completion" "complete -F _fatscope fatscope
probe
keep free
--sector-size" "$got"
	else
		bad "no bash completion at $FSC_BASHCOMPLETIONDIR/fatscope"
	fi
else
	comps=$(cd "$stage" && find . -path '*completion*' -type f | sort)
	check "bash completion installed without a directory for it" "" "$comps"
fi

# fsck(8) round trips.  fsck(8) looks for fsck.TYPE in PATH first, and
# takes only an absolute path (or NAME=value) for a device: anything else
# it passes to the checker as an option.
command -v fsck > /dev/null || hard_error "no fsck(8) (util-linux)"
helpers=$sbin
if [ ! -L "$sbin/fsck.exfat" ] || [ ! -L "$sbin/fsck.vfat" ]; then
	# as update-alternatives would link them
	helpers=$SCRATCH/alternatives
	mkdir -p "$helpers"
	ln -sf "$fatscope" "$helpers/fsck.exfat"
	ln -sf "$fatscope" "$helpers/fsck.vfat"
	echo "no exfat and vfat helpers configured: fsck(8) runs links in $helpers"
fi
zstd -q -dc "$FIXTURES/bad-name-hash.img.zst" > "$SCRATCH/damaged.img" || hard_error "cannot decompress a fixture"
zstd -q -dc "$FIXTURES/exfat-dirty.img.zst" > "$SCRATCH/dirty.img" || hard_error "cannot decompress a fixture"
zstd -q -dc "$FIXTURES/fat32.img.zst" > "$SCRATCH/fat32.img" || hard_error "cannot decompress a fixture"
img=$SCRATCH

want=$("$fatscope" fsck "$img/damaged.img" 2>&1); want_rc=$?
out=$(PATH=$helpers:$PATH fsck -t exfat "$img/damaged.img" 2>&1); rc=$?
echo "fsck -t exfat $img/damaged.img (exit $rc):"
sed 's/^/  /' <<< "$out"
check "fsck -t exfat: exit status (fatscope fsck's)" "4 4" "$want_rc $rc"
grep -q '^error   EXFAT_NAME_HASH: ' <<< "$out" && ok || bad "fsck -t exfat: no fatscope finding line"
grep -q "^$img/damaged.img: 1 problem left uncorrected (checked read-only)\$" <<< "$out" && ok ||
	bad "fsck -t exfat: no fatscope closing line"
check "fsck -t exfat: output, its title aside" "$want" "$(grep -v '^fsck from util-linux' <<< "$out")"

out=$(PATH=$helpers:$PATH fsck -t exfat -a "$img/dirty.img" 2>&1); rc=$?
check "fsck -t exfat -a on a dirty volume: exit" 1 "$rc"
grep -q "^$img/dirty.img: fixed warning EXFAT_BOOT_VOLUME_DIRTY: " <<< "$out" && ok ||
	bad "fsck -t exfat -a: no fatscope repair line: $out"
"$fatscope" fsck -n "$img/dirty.img" > /dev/null && ok || bad "VolumeDirty still set after fsck -t exfat -a"

out=$(PATH=$helpers:$PATH fsck -t vfat "$img/fat32.img" 2>&1); rc=$?
echo "fsck -t vfat $img/fat32.img (exit $rc):"
sed 's/^/  /' <<< "$out"
check "fsck -t vfat: exit" 0 "$rc"
grep -qF "$img/fat32.img: 0 files, 0 directories, 1/68528 clusters used" <<< "$out" && ok ||
	bad "fsck -t vfat did not run fatscope"

# uninstall leaves nothing
$FSC_MAKE -C "$top_builddir" uninstall DESTDIR="$stage" > "$SCRATCH/uninstall.log" 2>&1 || bad "make uninstall failed"
left=$(cd "$stage" && find . ! -type d | sort)
check "files left after make uninstall" "" "$left"
finish
