#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# common-options.sh - every command (probe, fsck, dump, label, undo, ls,
# cat, extract, scan, and label with a change, which opens for writing) takes --offset,
# --partition, --sector-size, -h and -V and rejects the same mistakes the
# same way: a usage mistake is "fatscope CMD: ..." plus "Try 'fatscope CMD
# --help' for more information." and exit 16; a file that cannot be used is
# one line "fatscope: FILE: what is wrong" and the command's own exit code
# (cmd/exitcodes.h); nothing on stdout, and no file changes.  Then undo
# with --sector-size and --partition restores what label changed.
# fatscope -V and --version, and every command's -V, name the program's
# version (configure's PACKAGE_VERSION) and the library's.
# Cheap in processes: fatscope's output goes to files read by the shell
# (no $(...) fork a run), config.h and --help matched in the shell.
. "$(dirname "$0")/lib.sh"
prepare_fixtures

# capture VAR CMD...: CMD's stdout in VAR, its trailing newlines cut as
# $(...) cuts them, rc its exit status, without $(...)'s fork.
capture() {
	local var=$1
	shift
	"$@" > "$SCRATCH/capture.out"
	rc=$?
	IFS= read -r -d '' "$var" < "$SCRATCH/capture.out"
	while [[ ${!var} == *$'\n' ]]; do printf -v "$var" '%s' "${!var%$'\n'}"; done
}

config=
IFS= read -r -d '' config < "$top_builddir/config.h"
config=$'\n'$config	# (every line, the first too, after a newline)
version=
[[ $config =~ $'\n''#define PACKAGE_VERSION "'([^$'\n']*)'"'$'\n' ]] && version=${BASH_REMATCH[1]}
[ -n "$version" ] || hard_error "no PACKAGE_VERSION in $top_builddir/config.h"
# The second line names the evidence containers the build reads: split raw
# always, then those whose library configure found (config.h).
formats=split
for f in ewf:LIBEWF vhd:LIBVHDI vmdk:LIBVMDK; do
	[[ $config == *$'\n'"#define HAVE_${f#*:} 1"* ]] && formats="$formats, ${f%:*}"
done
for opt in -V --version; do
	capture out "$FATSCOPE" $opt
	first=${out%%$'\n'*} second= nl=${out//[!$'\n']/}
	if [[ $out == *$'\n'* ]]; then	# line 2, the library versions " (...)" left out
		second=${out#*$'\n'}
		second=${second%%$'\n'*}
		while [[ $second =~ ^(.*)" ("[^\)]*")"(.*)$ ]]; do second=${BASH_REMATCH[1]}${BASH_REMATCH[2]}; done
	fi
	if [ "$rc" = 0 ] && [ "$first" = "fatscope from fatscope $version (libfatscope $version)" ] &&
	   [ "$second" = "containers: $formats" ] && [ "${#nl}" = 1 ]; then ok
	else bad "fatscope $opt: $rc '$out'"; fi
done

dir="$SCRATCH/common"
rm -rf "$dir"
mkdir -p "$dir/adir"
cd "$dir" || exit 99
: > empty.img
head -c 600 /dev/zero > short.img
cp "$WORK/img/exfat.img" v.img
# A valid undo file, made for v.img (so for no other volume).
"$FATSCOPE" label --undo v.undo v.img UNDOME > /dev/null && "$FATSCOPE" undo v.undo v.img > /dev/null ||
	{ echo "cannot make and apply v.undo" >&2; exit 99; }

# The commands, as a word list each: CMD then the arguments before FILE.
commands=(probe fsck dump label "label -s 1111-2222" "undo v.undo" ls cat "extract -o $dir/xo" scan)

# The command's exit code for a volume too small to hold a boot sector.
too_small_code() {
	case $1 in
	probe|dump|label*|ls|cat|extract*|scan) code=2 ;;
	*) code=8 ;;
	esac
}

# The files the commands below are given (disk.img, 48 MiB, comes later):
# changed() says whether a run wrote to one of them, in the shell (any
# write makes a file newer than the mark made after they were written;
# two hashes a run were most of this script's processes), and their
# hashes are compared once more at the end.
given=(empty.img short.img v.img v.undo)
hashes() { sha256sum "${given[@]}"; }
changed() {
	local f
	for f in "${given[@]}"; do [ "$f" -nt mark ] && return 0; done
	return 1
}

# run WORDS ARGS...: fatscope with the command's words, then ARGS; sets
# rc, out (stdout) and err (stderr, its trailing newlines cut as $(...) cuts them).
run() {
	local words=($1)
	shift
	capture out "$FATSCOPE" "${words[@]}" "$@" 2> "$dir/stderr"
	IFS= read -r -d '' err < "$dir/stderr"
	while [[ $err == *$'\n' ]]; do err=${err%$'\n'}; done
}

# usage WORDS WANT-REGEX ARGS...: exit 16, exactly the message line and
# the "Try" line, nothing on stdout, nothing changed.
usage() {
	local words=$1 re=$2 name
	name=${words%% *}
	shift 2
	run "$words" "$@"
	if [ "$rc" != 16 ]; then
		bad "$words $*: exit $rc, want 16 ($err)"
	elif ! [[ $err =~ ^$re$'\n'"Try 'fatscope $name --help' for more information."$ ]]; then
		bad "$words $*: stderr '$err', want '$re' and the Try line"
	elif [ -n "$out" ] || changed; then
		bad "$words $*: printed on stdout or changed a file"
	else
		ok
	fi
}

# fails WORDS CODE WANT-STDERR ARGS...: one exact line, the code.
fails() {
	local words=$1 code=$2 want=$3
	shift 3
	run "$words" "$@"
	if [ "$rc" != "$code" ] || [ "$err" != "$want" ]; then
		bad "$words $*: exit $rc '$err', want $code '$want'"
	elif [ -n "$out" ] || changed; then
		bad "$words $*: printed on stdout or changed a file"
	else
		ok
	fi
}

: > mark
sleep 0.05	# (a write after this is newer than the mark, the file system's clock ticks coarse)
before=$(hashes)
for words in "${commands[@]}"; do
	name=${words%% *}
	p="fatscope $name: "
	t=()	# operands after FILE: cat's PATH
	[ "$name" = cat ] && t=(/README.TXT)
	usage "$words" "${p}invalid offset '-1'" --offset=-1 v.img "${t[@]}"
	usage "$words" "${p}invalid offset '12Q'" --offset 12Q v.img "${t[@]}"
	usage "$words" "${p}invalid partition number '0'" --partition 0 v.img "${t[@]}"
	usage "$words" "${p}invalid partition number 'x'" --partition x v.img "${t[@]}"
	usage "$words" "${p}invalid sector size '1000'" --sector-size 1000 v.img "${t[@]}"
	usage "$words" "${p}invalid sector size '8192'" --sector-size 8192 v.img "${t[@]}"
	usage "$words" "${p}--offset and --partition are mutually exclusive" --offset 0 --partition 1 v.img "${t[@]}"
	# getopt_long's own words (they vary with the C library): the command, then the option.
	usage "$words" "${p}[^[:cntrl:]]*--bogus[^[:cntrl:]]*" --bogus v.img "${t[@]}"
	usage "$words" "${p}[^[:cntrl:]]*--sector-size[^[:cntrl:]]*" v.img "${t[@]}" --sector-size

	fails "$words" 8 "fatscope: $dir/missing.img: No such file or directory" "$dir/missing.img" "${t[@]}"
	fails "$words" 8 "fatscope: $dir/adir: is a directory" "$dir/adir" "${t[@]}"
	fails "$words" 8 "fatscope: /dev/null: not a regular file or block device" /dev/null "${t[@]}"
	fails "$words" 8 "fatscope: short.img: offset 1048576 is beyond the end (600 bytes)" --offset 1M short.img "${t[@]}"
	fails "$words" 8 "fatscope: short.img: no partition 1: no partition table found" --partition 1 short.img "${t[@]}"
	if [ "$name" = undo ]; then
		# undo does not probe: the undo file, made for another size, says no.
		fails "$words" 8 "fatscope: v.undo: not an undo file for this volume, or damaged" empty.img "${t[@]}"
	else
		too_small_code "$words"
		fails "$words" "$code" \
			"fatscope: empty.img: too small to hold a boot sector (0 bytes)" empty.img "${t[@]}"
		fails "$words" "$code" \
			"fatscope: short.img: too small to hold a boot sector (88 bytes)" --offset 512 short.img "${t[@]}"
	fi

	# -V, --help: exit 0, the version line, the same common option lines.
	capture out "$FATSCOPE" $name -V
	if [ "$rc" = 0 ] && [ "$out" = "fatscope $name from fatscope $version (libfatscope $version)" ]; then ok
	else bad "$name -V: $rc '$out'"; fi
	capture out "$FATSCOPE" $name --help
	common=
	while IFS= read -r line; do	# (the common option lines, runs of spaces made one)
		[[ $line =~ ^\ *(-h,\ --help|-V,\ --version|--offset\ BYTES|--partition\ N|--sector-size\ N)\  ]] || continue
		while [[ $line == *"  "* ]]; do line=${line//  / }; done
		common+=${common:+$'\n'}$line
	done <<< "$out"
	want=" --offset BYTES the volume starts at this byte of the image
 --partition N the volume is partition N of a whole-disk image
 --sector-size N the device's logical sector size (default: the device's, 512 for images)
 -h, --help display this help
 -V, --version display version"
	if [ "$rc" = 0 ] && [ "$common" = "$want" ]; then ok; else bad "$name --help: exit $rc, common options '$common'"; fi
done

check "the files given, as hashed before the runs" "$before" "$(hashes)"

# undo takes --sector-size: it does not change what is restored.
orig=$(sha256sum < v.img)
rm -f v.undo
"$FATSCOPE" label --undo v.undo v.img CHANGED > /dev/null
out=$("$FATSCOPE" undo --sector-size 4096 v.undo v.img); rc=$?
if [ "$rc" = 0 ] && [[ $out == "v.img: "*" restored from v.undo" ]] && [ "$(sha256sum < v.img)" = "$orig" ]; then
	ok
else
	bad "undo --sector-size 4096: exit $rc '$out'"
fi
# ... and with --partition, on partition 1 of a whole-disk image.
cp "$WORK/img/mbr-disk.img" disk.img
orig=$(sha256sum < disk.img)
"$FATSCOPE" label --partition 1 --undo p.undo disk.img CHANGED > /dev/null
[ "$(sha256sum < disk.img)" != "$orig" ] && ok || bad "label --partition 1 changed nothing"
out=$("$FATSCOPE" undo --partition 1 --sector-size 512 p.undo disk.img); rc=$?
if [ "$rc" = 0 ] && [[ $out == "disk.img: "*" restored from p.undo" ]] && [ "$(sha256sum < disk.img)" = "$orig" ]; then
	ok
else
	bad "undo --partition 1 --sector-size 512: exit $rc '$out'"
fi
finish
