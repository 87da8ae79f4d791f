#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-golden.sh - fatscope probe on every fixture, text and JSON, against
# the reviewed transcripts in tests/cli/expected/ (output and exit status),
# and proof that probing changed no byte of any image.
# One process a probe: its output goes to a file read by the shell, and the
# build-dependent lines are cut there (no sed a call).
# FSC_UPDATE_GOLDEN=1 rewrites the transcripts (review them before committing).
. "$(dirname "$0")/lib.sh"

# strip_formats: cut from $got each block from the line '  "container_formats": ['
# to the next line '  ],' (both included), as sed '/^  "container_formats": \[$/,/^  \],$/d'.
strip_formats() {
	local start=$'  "container_formats": [\n' head rest
	got=$'\n'$got
	while [[ $got == *$'\n'"$start"* ]]; do
		head=${got%%$'\n'"$start"*}
		rest=${got#*$'\n'"$start"}
		if [[ $rest == $'  ],\n'* ]]; then
			rest=${rest#$'  ],\n'}
		elif [[ $rest == *$'\n  ],\n'* ]]; then
			rest=${rest#*$'\n  ],\n'}
		else
			rest=	# (no end: sed deletes to the end)
		fi
		got=$head$'\n'$rest
	done
	got=${got#$'\n'}
}

prepare_fixtures
cd "$WORK/img" || hard_error "no $WORK/img"
out="$SCRATCH/out"
names=()
for name in $(fixture_names); do
	for mode in txt json; do
		args=()
		[ "$mode" = json ] && args=(-J)
		# -J's "container_formats" depends on the build (configure's
		# --with-libewf ...): common-options.sh and containers.sh check it.
		"$FATSCOPE" probe "${args[@]}" "$name.img" > "$out" 2>&1
		rc=$?
		got=
		IFS= read -r -d '' got < "$out"
		[ "$mode" = json ] && strip_formats
		got+="exit status: $rc"
		golden "$name.$mode" "$EXPECTED/$name.$mode" "$got"
	done
	names+=("$name")
done
unchanged "${names[@]}"
finish
