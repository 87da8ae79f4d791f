#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay.sh - run every fuzz harness as a replay program over the seed
# corpus, the regression inputs and every test fixture (make check).
. "$(dirname "$0")/../tests/cli/lib.sh"
prepare_fixtures
for h in probe fsck dump label repair; do
	out=$("$top_builddir/fuzz/replay_$h" "$top_srcdir/fuzz/corpus" "$WORK/img") || { echo "$out"; bad "replay_$h"; continue; }
	echo "$h: $out"
	ok
done
finish
