#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fat-repair.sh - fatscope fsck -y on every fbad-* FAT fixture
# (make-corrupt-fat.sh), e2fsprogs style: the transcript of -y --recheck
# (lost chains saved in /FOUND.000) and of a second -y against the
# reviewed ones in tests/cli/expected/fat-repair/ (the second writes
# nothing); plain -y writes the same bytes; -y --lost=free frees what -y
# saves and nothing else differs; when the repair left no error, fsck -n
# exits 0, so does fsck.fat -n (dosfstools, where installed), and every
# file of the fixture's manifest that no finding names reads back through
# mtools with its original bytes, and mdir -/ lists the whole tree (where
# mtools is installed).
# FSC_UPDATE_GOLDEN=1 rewrites the transcripts (review before committing).
# Cheap in processes (each costs ~15 ms here): the three copies of every
# fixture made by three cp, the -y and plain -y images compared by one
# python3 (differing, lib.sh: only what is not a hole is read), the trees
# mtools copies out hashed by one find -exec sha256sum, transcripts,
# manifests and fls's lines read and matched in the shell; the relinked
# trees' names are read from plain/'s images (the fixtures after fsck -y),
# not from copies repaired again.
. "$(dirname "$0")/lib.sh"

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in every run
cd "$SCRATCH" || hard_error "no $SCRATCH"

# first_lines N FILE: FILE's first N lines joined by |, for a message.
first_lines() {
	local -a l
	mapfile -t -n "$1" l < "$2"
	local IFS='|'
	echo "${l[*]}|"
}

# The manifests of the populated images the fixtures were made from, read
# once: MANIFEST_fatNN holds "PATH<TAB>SHA256" for each file.
declare -a MANIFEST_fat12=() MANIFEST_fat16=() MANIFEST_fat32=()
for bits in 12 16 32; do
	declare -n m=MANIFEST_fat$bits
	while IFS=$'\t' read -r path type size sum; do
		[[ $path == \#* ]] && continue
		[ "$type" = f ] && m+=("$path"$'\t'"$sum")
	done < "$top_srcdir/tests/fixtures/pop-fat$bits.manifest"
	unset -n m
done

# Files the findings did not name read back with the bytes they were written with
# (the whole tree copied out by mcopy -s into trees/NAME during the loop,
# every tree hashed by one find -exec sha256sum after it; a few shell tests
# a file, no process).
declare -A sums=()
contents_kept() {	# contents_kept NAME IMG TRANSCRIPT
	local path sum got n=0 renamed= line entry
	# the findings that change names: their directories' names are looked up anew
	while IFS= read -r line; do
		[[ $line =~ FAT_(SHORT_NAME|NAME_DUPLICATE|LFN_UTF16): ]] && renamed+=${renamed:+$'\n'}$line
	done <<< "$3"
	case "$1" in
	fbad-fat12-*) declare -n manifest=MANIFEST_fat12 ;;
	fbad-fat16-*) declare -n manifest=MANIFEST_fat16 ;;
	*) declare -n manifest=MANIFEST_fat32 ;;
	esac
	for entry in "${manifest[@]}"; do
		path=${entry%%$'\t'*}
		sum=${entry#*$'\t'}
		case "$1:$path" in	# (where the repair puts a tree it links back under a new name)
		fbad-fat32-lostdir:/deep/level2/*) path=/deep/DIR0000.CHK/${path#/deep/level2/} ;;
		esac
		[[ $3 == *"$path"* ]] && continue	# (named by a finding, as owner or as the other owner)
		[[ -n $renamed && $renamed == *"${path%/*}"* ]] && continue
		case "$path" in *[][*?]*|*[!\ -~]*) continue ;; esac	# (wildcards to mtools; names beyond ASCII under LC_ALL=C)
		got=${sums[$1$path]:-}
		if [ -z "$got" ]; then	# (a name the host spells otherwise: an 8.3 name in lower case, say)
			got=$(MTOOLS_SKIP_CHECK=1 mtype -i "$2" "::$path" 2> /dev/null | sha256sum)
			got=${got%% *}
		fi
		if [ "$got" != "$sum" ]; then
			bad "$1: $path reads back differently after the repair"
			return
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] && ok || bad "$1: no file of the manifest was compared"
}

have_mtools=0
command -v mtype > /dev/null && have_mtools=1
[ "$have_mtools" = 1 ] || echo "mtools not installed: contents are not compared"
command -v fsck.fat > /dev/null || echo "fsck.fat (dosfstools) not installed: its verdict after the repair is not asked"
names=()
for name in $(fixture_names); do
	case "$name" in fbad-fat*) names+=("$name") ;; esac
done
count=${#names[@]}
# Three copies of each fixture, one cp each: y/ for -y --recheck then -y,
# plain/ for plain -y, freed/ for -y --lost=free.  (finish removes them.)
mkdir y plain freed trees "${names[@]/#/trees/}" || hard_error "cannot make directories in $SCRATCH"
srcs=("${names[@]/#/$WORK/img/}")
srcs=("${srcs[@]/%/.img}")
for dir in y plain freed; do
	cp "${srcs[@]}" "$dir/" || hard_error "cannot copy the fixtures to $SCRATCH/$dir"
done
cd y || hard_error "no $SCRATCH/y"
tocheck=()
declare -A RUN1=()
for name in "${names[@]}"; do
	"$FATSCOPE" fsck -y --recheck "$name.img" > ../run1.txt 2>&1; rc=$?
	slurp_raw run1 ../run1.txt
	run1+="exit status: $rc"
	"$FATSCOPE" fsck -y "$name.img" > ../run2.txt 2>&1; rc=$?
	slurp_raw run2 ../run2.txt
	run2+="exit status: $rc"
	golden "$name (-y)" "$EXPECTED/fat-repair/$name.txt" "$run1
--- a second -y:
$run2"
	[[ $run2 == *"changes written"* ]] && bad "$name: a second -y wrote: $run2" || ok
	"$FATSCOPE" fsck -y "../plain/$name.img" > /dev/null 2>&1
	"$FATSCOPE" fsck -y --lost=free "../freed/$name.img" > /dev/null 2>&1
	"$FATSCOPE" fsck -n "../freed/$name.img" > ../freed.txt 2>&1
	slurp_raw freed ../freed.txt
	if [[ $run1 =~ "exit status: "[01]$ ]] && ! [[ $'\n'$freed == *$'\n'error\ * || $'\n'$freed == *$'\n'fatal\ * || $freed == *FAT_LOST_CLUSTERS* ]]; then ok
	elif [[ ! $run1 =~ "exit status: "[01]$ ]]; then ok
	else bad "$name: -y --lost=free leaves: $(first_lines 2 ../freed.txt)"; fi
	if [[ $run1 =~ "exit status: "[01]$ ]]; then
		"$FATSCOPE" fsck -n "$name.img" > /dev/null 2>&1; rc=$?
		[ "$rc" = 0 ] && ok || bad "$name: the repair said no error is left, fsck -n exits $rc"
		if [[ $'\n'$run1 == *$'\n''left  warning FAT_LABEL_MISMATCH'* ]]; then
			echo "$name: fsck.fat copies the root's label into the boot sector; fatscope leaves the choice (by design)"
		elif command -v fsck.fat > /dev/null; then
			fsck.fat -n "$name.img" > ../fsck-fat.log 2>&1; rc=$?
			[ "$rc" = 0 ] && ok || bad "$name: after the repair fsck.fat -n exits $rc: $(first_lines 3 ../fsck-fat.log)"
		fi
		if [ "$have_mtools" = 1 ]; then
			MTOOLS_SKIP_CHECK=1 mdir -/ -i "$name.img" :: > ../mdir.log 2>&1 && ok ||
				bad "$name: mdir -/ fails after the repair: $(tail -1 ../mdir.log)"
			MTOOLS_SKIP_CHECK=1 mcopy -s -i "$name.img" ::/ "../trees/$name/" > /dev/null 2>&1
			tocheck+=("$name")
			RUN1[$name]=$run1
		fi
	fi
done
[ "$count" -eq 37 ] && ok || bad "$count FAT fixtures repaired, 37 expected"

# plain -y wrote the same bytes as -y --recheck (and the second -y): one differing for all.
same_images . ../plain "-y and -y --recheck wrote different bytes" "${names[@]}"

# The trees mtools copied out: one sha256sum, then each fixture's manifest.
if [ "${#tocheck[@]}" -gt 0 ]; then
	cd ../trees || hard_error "no $SCRATCH/trees"
	# (find splits the list when it is long; sha256sum by its path, not looked up in PATH each time)
	hash sha256sum 2> /dev/null || hard_error "no sha256sum"
	find "${tocheck[@]}" -type f -exec "${BASH_CMDS[sha256sum]}" {} + > ../sums.txt 2> /dev/null
	while IFS= read -r line; do	# "HASH  NAME/PATH" (a name sha256sum escapes matches no path)
		sums[${line#*  }]=${line%% *}
	done < ../sums.txt
	cd ../y || hard_error "no $SCRATCH/y"
	for name in "${tocheck[@]}"; do
		contents_kept "$name" "$name.img" "${RUN1[$name]}"
	done
fi

# A lost directory goes back into the directory its .. names: under its own
# long name where its deleted entry is still there (the first letter found
# again through the long name's checksum), else as DIRnnnn.CHK; its files
# read back through The Sleuth Kit (names beyond ASCII) and mtools.  The
# images are plain/'s: the fixtures after fsck -y.  One fls a fixture, its
# lines matched in the shell.
# fls_paths IMG: PATHS gets "INODE<TAB>PATH" for each line of fls -r -p IMG.
fls_paths() {
	local line meta
	PATHS=()
	fls -r -p "$1" > ../fls.txt 2> /dev/null
	while IFS= read -r line; do	# "r/r 123:<TAB>path"
		[[ $line == *$'\t'* ]] || continue
		meta=${line%%$'\t'*}
		meta=${meta##* }
		PATHS+=("${meta%:}"$'\t'"${line#*$'\t'}")
	done < ../fls.txt
}
if command -v fls > /dev/null; then
	fls_paths ../plain/fbad-fat16-lostdir.img
	inode=
	# (fls shows the 8.3 name's byte for ï as ^)
	for entry in "${PATHS[@]}"; do
		[[ ${entry#*$'\t'} =~ ^unicode/Résumé/na.*ve\.txt$ ]] && inode=${entry%%$'\t'*}
	done
	[ -n "$inode" ] && ok ||
		bad "fbad-fat16-lostdir: /unicode/Résumé/naïve.txt is not back under its name"
	want=
	for entry in "${MANIFEST_fat16[@]}"; do
		[ "${entry%%$'\t'*}" = "/unicode/Résumé/naïve.txt" ] && want=${entry#*$'\t'}
	done
	got=
	[ -n "$inode" ] && got=$(icat ../plain/fbad-fat16-lostdir.img "$inode" | sha256sum)
	[ -n "$inode" ] && [ "${got%% *}" = "$want" ] && ok ||
		bad "fbad-fat16-lostdir: naïve.txt does not read back with its bytes (inode '$inode')"
	fls_paths ../plain/fbad-fat32-lostdir.img
	deep=()
	for entry in "${PATHS[@]}"; do
		entry=${entry#*$'\t'}
		[[ $entry == deep/* ]] && deep+=("$entry")
	done
	sorted deep "${deep[@]}"
	got="${deep[*]} "
	[ "$got" = "deep/DIR0000.CHK deep/DIR0000.CHK/at-level-2.txt deep/DIR0000.CHK/level3 deep/DIR0000.CHK/level3/at-level-3.txt deep/at-level-1.txt " ] &&
		ok || bad "fbad-fat32-lostdir: /deep after the repair: $got"
else
	echo "sleuthkit (fls) not installed: the names of relinked trees are not compared"
fi
finish
