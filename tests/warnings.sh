#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# warnings.sh - the tree builds without a warning as a distribution builds
# it: for each compiler named (default: gcc and clang, those installed),
# an out-of-tree build of the programs, the library and the test programs
# with -Wall -Wextra -Wformat=2 -Wformat-nonliteral, Debian's hardening
# flags (dpkg-buildflags with DEB_BUILD_MAINT_OPTIONS=hardening=+all, or
# their equivalent where dpkg-buildflags is missing) and -flto, with
# -Werror at make time (configure's own tests must be free to warn).
# .ci/run runs it; it runs no test.  Exit status: 0 clean, 1 a compiler
# warned or failed, 77 no compiler named is installed.
#
# Usage: tests/warnings.sh [CC...]   (run from anywhere; needs ./configure,
# made by ./autogen.sh, in the source tree; WARNINGS_JOBS sets make -j.
# A source tree configured in place is copied with make distdir first.)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$src/configure" ] || { echo "warnings.sh: no $src/configure (run ./autogen.sh)"; exit 99; }
jobs=${WARNINGS_JOBS:-$(nproc 2> /dev/null || echo 2)}
compilers=("$@")
[ ${#compilers[@]} -gt 0 ] || compilers=(gcc clang)

if command -v dpkg-buildflags > /dev/null; then
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	hcflags=$(dpkg-buildflags --get CFLAGS)
	hcppflags=$(dpkg-buildflags --get CPPFLAGS)
	hldflags=$(dpkg-buildflags --get LDFLAGS)
else
	hcflags="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security"
	hcppflags="-Wdate-time -D_FORTIFY_SOURCE=2"
	hldflags="-Wl,-z,relro -Wl,-z,now"
fi
warn="-Wall -Wextra -Wformat=2 -Wformat-nonliteral"

work=$(mktemp -d "${TMPDIR:-/tmp}/fatscope-warnings.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
# A tree configured in place (.ci/run's) takes no out-of-tree build: build
# from a copy of what the tarball would hold instead.
if [ -f "$src/config.status" ]; then
	# (a distdir relative to the tree, then moved: po/'s gettext Makefile
	# puts ../ before it, so an absolute one breaks)
	rel=fatscope-warnings.$$
	make -C "$src" distdir distdir="$rel" > "$work/distdir.log" 2>&1 && mv "$src/$rel" "$work/src" ||
		{ cat "$work/distdir.log"; rm -rf "${src:?}/$rel"; echo "warnings.sh: make distdir failed"; exit 99; }
	src=$work/src
fi

status=77
for cc in "${compilers[@]}"; do
	if ! command -v "$cc" > /dev/null; then
		echo "warnings.sh: $cc is not installed: not built with it"
		continue
	fi
	[ "$status" = 77 ] && status=0
	b=$work/$cc
	mkdir -p "$b"
	# gcc: -flto=auto, as Debian's lto option (plain -flto warns that it links serially)
	lto=-flto
	"$cc" --version 2> /dev/null | grep -q clang || lto=-flto=auto
	cflags="$hcflags $warn $lto"
	ldflags="$hldflags $lto"
	start=$SECONDS
	if ! (cd "$b" && "$src/configure" CC="$cc" CFLAGS="$cflags" CPPFLAGS="$hcppflags" LDFLAGS="$ldflags" \
		--enable-fsck-helpers > configure.log 2>&1); then
		tail -20 "$b/configure.log"
		echo "warnings.sh: $cc: configure failed"
		status=1
		continue
	fi
	# -Werror only now: configure's probes compile code that warns on purpose.
	if make -C "$b" -j"$jobs" CFLAGS="$cflags -Werror" all > "$b/build.log" 2>&1 &&
	   make -C "$b" -j"$jobs" CFLAGS="$cflags -Werror" check TESTS= >> "$b/build.log" 2>&1 &&
	   ! grep -q 'warning:' "$b/build.log"; then
		echo "warnings.sh: $cc: no warnings ($cflags; $hcppflags; $ldflags) in $((SECONDS - start)) s"
	else
		grep -B2 -A6 'warning:\|error:' "$b/build.log" | head -80
		echo "warnings.sh: $cc: warnings or errors (above)"
		status=1
	fi
done
exit "$status"
