#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# header-compile.sh - the installed public headers compile on their own,
# as C++ (so no C++ keyword may name a member or parameter, and extern "C"
# holds) and as strict C99 (-std=c99 -pedantic -Werror).  The headers of
# fatscopeinclude_HEADERS (libexfat/Makemodule.am) are copied alone into
# an include/fatscope/ directory, as `make install` lays them out, and a
# small file that includes <fatscope/fatscope.h> and uses a few of its
# types is compiled against that directory only.
#
# Environment: top_srcdir (automake sets it), CC (default cc), CXX
# (default: the first of g++, c++, clang++ found).  Exit status: 0 pass,
# 1 a header does not compile, 77 no C++ compiler (the C check still ran),
# 99 cannot run.
set -u
export LC_ALL=C

src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/header-compile.XXXXXX") || { echo "header-compile: no temporary directory"; exit 99; }
trap 'rm -rf "$tmp"' EXIT

# The installed headers, with automake's line continuations joined.
headers=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$src/libexfat/Makemodule.am" |
	  sed -n 's/^fatscopeinclude_HEADERS[ \t]*=[ \t]*//p')
[ -n "$headers" ] || { echo "header-compile: no fatscopeinclude_HEADERS in libexfat/Makemodule.am"; exit 99; }
mkdir -p "$tmp/include/fatscope"
for h in $headers; do
	cp "$src/$h" "$tmp/include/fatscope/" || exit 99
done

cat > "$tmp/use.c" <<'EOT'
#include <fatscope/fatscope.h>

int header_use(const struct fsc_edit *e, const struct fsc_problem_info *pi, const struct fsc_probe *p);

int header_use(const struct fsc_edit *e, const struct fsc_problem_info *pi, const struct fsc_probe *p)
{
	int codes[FSC_PR_COUNT] = { 0 };

	codes[FSC_PR_EXFAT_BOOT_CHECKSUM] = (int)pi->fix;
	return codes[0] + e->old[0] + (int)fsc_plan_count(NULL) + (p ? 1 : 0);
}
EOT

fails=0
cc=${CC:-cc}
if ! $cc -std=c99 -pedantic -Werror -Wall -Wextra -fsyntax-only -x c -I"$tmp/include" "$tmp/use.c"; then
	echo "header-compile: the public headers do not compile as C99 ($cc -std=c99 -pedantic -Werror)"
	fails=1
fi

cxx=${CXX:-}
if [ -z "$cxx" ]; then
	for c in g++ c++ clang++; do
		command -v "$c" > /dev/null && { cxx=$c; break; }
	done
fi
if [ -z "$cxx" ] || ! command -v "${cxx%% *}" > /dev/null; then
	echo "header-compile: no C++ compiler (g++, c++, clang++ or \$CXX): C++ check skipped"
	exit $(( fails ? 1 : 77 ))
fi
if ! $cxx -pedantic -Werror -Wall -Wextra -fsyntax-only -x c++ -I"$tmp/include" "$tmp/use.c"; then
	echo "header-compile: the public headers do not compile as C++ ($cxx)"
	fails=1
fi
(( fails )) && exit 1
echo "header-compile: $headers compile as C99 ($cc) and C++ ($cxx)"
exit 0
