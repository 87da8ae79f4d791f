#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stub-meta.sh - the command-line tests can fail.  Every other script in
# tests/cli runs twice, with FATSCOPE pointing at a stub that prints
# nothing and exits 0, then at one that exits 4; each run must fail (exit
# status neither 0 nor 77).  Without FATSCOPE_LONG_TESTS=1 each script runs
# under one of the two, by turns (half the time; CI runs both).  A script
# that skips (77) under a stub is run
# once with the real fatscope: if it skips there too, a peer tool is
# missing here and the script is named as not checked; otherwise its skip
# hid a broken fatscope and fails.  Every script must also be in
# CLI_LONG or CLI_TESTS of tests/Makemodule.am, or make check never runs it.
# The runs under the stubs set FSC_FAIL_FAST=1, so a script stops at its
# first failed check (one that passes throughout still runs to the end);
# FSC_STUB_SECONDS (default 60) bounds each such run.
. "$(dirname "$0")/lib.sh"

secs=${FSC_STUB_SECONDS:-60}
cli="$top_srcdir/tests/cli"
real=$FATSCOPE

# Scripts that are not run under the stubs, and why.  (man-sync.sh is run:
# it reads fatscope's --help and fails hard when a stub gives none.)
excluded() {
	case $1 in
	lib.sh) echo "sourced by the others, not a test" ;;
	stub-meta.sh) echo "this script" ;;
	*) return 1 ;;
	esac
}

for code in 0 4; do
	mkdir -p "$SCRATCH/exit$code"
	printf '#!/bin/sh\nexit %s\n' "$code" > "$SCRATCH/exit$code/fatscope"
	chmod +x "$SCRATCH/exit$code/fatscope"
done

# run FATSCOPE-PATH SCRIPT LOG [SECONDS FAIL-FAST]: the script's exit
# status, run as make check runs it, with scratch directories apart from
# make check's own.  FSC_UPDATE_GOLDEN is dropped: a stub's output must
# never become a golden (FSC_UPDATE_GOLDEN=0).  No process but the
# script's own (timeout and bash): some 80 runs.
run() {
	local which=${1%/*}
	FSC_UPDATE_GOLDEN=0 top_srcdir="$top_srcdir" top_builddir="$top_builddir" \
		FATSCOPE="$1" FSC_SCRATCH_ROOT="$SCRATCH/runs/${which##*/}" \
		FSC_FAIL_FAST="${5:-1}" timeout -k 5 "${4:-$secs}" bash "$cli/$2" > "$3" 2>&1
}

makemodule=$(< "$top_srcdir/tests/Makemodule.am")
checked=0 turn=0
for path in "$cli"/*.sh; do
	s=${path##*/}
	if why=$(excluded "$s"); then
		echo "$s: not run under the stubs: $why"
		continue
	fi
	if [[ $makemodule =~ tests/cli/"$s"([^a-zA-Z0-9_.-]|$) ]]; then
		ok
	else
		bad "$s is not in CLI_LONG or CLI_TESTS of tests/Makemodule.am"
	fi
	line="$s:"
	# Both stubs with FATSCOPE_LONG_TESTS=1 (CI); else one a script, by turns
	# (exit 0, exit 4, exit 0... in the order of the names): both stubs are tried.
	codes="0 4"
	if ! long_tests; then
		codes=$(( (turn++ % 2) * 4 ))
	fi
	for code in $codes; do
		log="$SCRATCH/${s%.sh}.exit$code.log"
		start=${EPOCHREALTIME/./}
		run "$SCRATCH/exit$code/fatscope" "$s" "$log"
		rc=$?
		line="$line exit $rc under the exit-$code stub ($(((${EPOCHREALTIME/./} - start) / 1000)) ms);"
		case $rc in
		0)
			bad "$s passes with a fatscope that prints nothing and exits $code" ;;
		77)
			# A peer tool missing here, or a skip that hides a broken fatscope?
			if run "$real" "$s" "$log.real" 3600 0; [ $? = 77 ]; then
				echo "$s: not checked here: it skips with the real fatscope too: $(grep -m1 '^SKIP' "$log.real")"
				continue 2
			fi
			bad "$s skips with a fatscope that exits $code, but not with the real one: $(grep -m1 '^SKIP' "$log")" ;;
		124|137)
			bad "$s ran over ${secs}s with a fatscope that exits $code (a hang, or FSC_STUB_SECONDS too small)" ;;
		*)
			ok ;;
		esac
	done
	checked=$((checked + 1))
	echo "${line%;}"
done
[ "$checked" -gt 0 ] || skip "no script could run here"
if long_tests; then
	echo "$checked scripts fail under both stubs"
else
	echo "$checked scripts fail under the stub of their turn (both stubs for each with FATSCOPE_LONG_TESTS=1)"
fi
finish
