#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-golden.sh - fatscope probe on every fixture, text and JSON, against
# the reviewed transcripts in tests/cli/expected/ (output and exit status),
# and proof that probing changed no byte of any image.
# FSC_UPDATE_GOLDEN=1 rewrites the transcripts (review them before committing).
. "$(dirname "$0")/lib.sh"

prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"
names=()
for name in $(fixture_names); do
	for mode in txt json; do
		args=()
		[ "$mode" = json ] && args=(-J)
		# -J's "container_formats" depends on the build (configure's
		# --with-libewf ...): common-options.sh and containers.sh check it.
		got=$("$FATSCOPE" probe "${args[@]}" "$name.img" 2>&1 |
		      sed '/^  "container_formats": \[$/,/^  \],$/d'; echo "exit status: ${PIPESTATUS[0]}")
		want="$EXPECTED/$name.$mode"
		golden "$name.$mode" "$want" "$got"
	done
	names+=("$name")
done
unchanged "${names[@]}"
finish
