#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay.sh - run the fuzz harness as a replay program over the seed
# corpus, the regression inputs and every test fixture (make check).
. "$(dirname "$0")/../tests/cli/lib.sh"
prepare_fixtures
out=$("$top_builddir/fuzz/replay_probe" "$top_srcdir/fuzz/corpus" "$WORK/img") || { echo "$out"; exit 1; }
echo "$out"
n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' <<< "$out")
echo "$n passed, 0 failed"
