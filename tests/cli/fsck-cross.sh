#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck-cross.sh - where exfatprogs' fsck.exfat is installed: every exFAT
# fixture it calls corrupt, fatscope fsck calls corrupt too.  Prints each
# fixture where the two differ and which way; only "fsck.exfat finds
# something fatscope misses" fails.  fatscope's own answer must be whole
# for the comparison to mean anything: exit 0 with the summary line (and
# the count of warnings when there are any), or exit 4 with error findings,
# the summary and the count of errors left; anything else fails.
. "$(dirname "$0")/lib.sh"

command -v fsck.exfat > /dev/null || skip "fsck.exfat not installed"
echo "fsck.exfat from exfatprogs $(dpkg-query -W -f '${Version}' exfatprogs 2>/dev/null || echo "(version unknown)")"
prepare_fixtures

# ours_sane NAME RC OUTPUT: fatscope fsck -n NAME.img gave a whole report
# (fatscope-fsck(8) OUTPUT, EXIT STATUS): finding lines, the summary line,
# then with exit 4 the closing line counting 1..(number of error and fatal
# findings), with exit 0 and warnings the line counting exactly them; exit
# 0 with an error or fatal finding is not whole.  (In the shell: no
# process a fixture.)
ours_sane() {
	local img="$1.img" rc=$2 finding summary line n errors=0 warnings=0 last closing=0
	local -a lines
	finding='^(info|warning|error|fatal) +[A-Z][A-Z0-9_]+: '
	summary="^$img: [0-9]+ files?, [0-9]+ director(y|ies), [0-9]+/[0-9]+ clusters used \([0-9.]+% non-contiguous\)\$"
	case $rc in 0|4) ;; *) return 1 ;; esac
	mapfile -t lines <<< "$3"
	n=${#lines[@]}
	last=${lines[n-1]}
	for line in "${lines[@]}"; do
		case $line in error\ *|fatal\ *) errors=$((errors + 1)) ;; warning\ *) warnings=$((warnings + 1)) ;; esac
	done
	# Exit 0 without warnings ends on the summary; else a closing line follows it.
	[ "$rc" = 0 ] && [ "$warnings" = 0 ] || closing=1
	[ "$n" -ge $((1 + closing)) ] && [[ ${lines[n-1-closing]} =~ $summary ]] || return 1
	# Every line before the summary is a finding.
	for line in "${lines[@]:0:n-1-closing}"; do
		[[ $line =~ $finding ]] || return 1
	done
	if [ "$rc" = 0 ]; then
		[ "$errors" = 0 ] || return 1
		[ "$warnings" = 0 ] && return 0
		local s=s
		[ "$warnings" = 1 ] && s=
		[ "$last" = "$img: no errors; $warnings warning$s (advisory: the volume is usable as it is)" ]
		return
	fi
	[[ $last =~ ^"$img: "([1-9][0-9]*)" problem"s?" left uncorrected (checked read-only)"$ ]] &&
		[ "${BASH_REMATCH[1]}" = "$errors" ]
}

# by_design NAME OUTPUT: fsck.exfat calls the volume corrupt where
# fatscope, on purpose, reports only a warning; the reason, when the
# warning that stands for it is in fatscope's output.
by_design() {
	case $1 in
	exfat-numfats2)
		grep -q '^warning EXFAT_BOOT_TEXFAT: ' <<< "$2" &&
			echo "NumberOfFats 2 is TexFAT, which the specification allows (3.1.16) and Linux mounts; fsck.exfat supports only 1" ;;
	*) return 1 ;;
	esac
}

cd "$WORK/img" || hard_error "no $WORK/img"
names=()
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	# fsck.exfat -n opens read-only: unchanged checks at the end that it wrote nothing.
	peer=$(timeout 60 fsck.exfat -n "$name.img" 2>&1); prc=$?
	ours=$("$FATSCOPE" fsck -n "$name.img" 2>&1); orc=$?
	names+=("$name")
	if ! ours_sane "$name" "$orc" "$ours"; then
		bad "$name: fatscope fsck -n exit $orc, output not a whole report: $(tail -1 <<< "$ours")"
	elif [ "$prc" -ne 0 ] && [ "$orc" -eq 0 ] && why=$(by_design "$name" "$ours"); then
		echo "differs by design: $name: fsck.exfat exit $prc, fatscope exit 0 with warnings: $why"
		ok
	elif [ "$prc" -ne 0 ] && [ "$orc" -eq 0 ]; then
		bad "$name: fsck.exfat exit $prc ($(grep -v '^exfatprogs' <<< "$peer" | head -2 | tr '\n' ' ')), fatscope clean"
	elif [ "$prc" -eq 0 ] && [ "$orc" -ne 0 ]; then
		echo "differs: $name: fatscope exit $orc ($(grep -o '[A-Z0-9_]*: ' <<< "$ours" | tr -d ': ' | sort -u | tr '\n' ' ')), fsck.exfat clean"
		ok
	else
		ok
	fi
done
unchanged "${names[@]}"
finish
