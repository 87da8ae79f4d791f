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
. "$(dirname "$0")/lib.sh"

prepare_fixtures
export FATSCOPE_NOW=1700000000	# new entries' timestamps: the same in every run
cd "$SCRATCH" || hard_error "no $SCRATCH"

# The manifest of the populated image a fixture was made from.
manifest_of() {
	case "$1" in
	fbad-fat12-*) echo "$top_srcdir/tests/fixtures/pop-fat12.manifest" ;;
	fbad-fat16-*) echo "$top_srcdir/tests/fixtures/pop-fat16.manifest" ;;
	*) echo "$top_srcdir/tests/fixtures/pop-fat32.manifest" ;;
	esac
}


# Files the findings did not name read back with the bytes they were written with
# (the whole tree copied out by one mcopy -s, and hashed by one sha256sum;
# a few shell tests a file, no process).
contents_kept() {	# contents_kept NAME IMG TRANSCRIPT
	local path type size sum got n=0 tree=$SCRATCH/tree renamed line
	local -A sums=()
	rm -rf "$tree" && mkdir "$tree"
	MTOOLS_SKIP_CHECK=1 mcopy -s -i "$2" ::/ "$tree/" > /dev/null 2>&1
	while IFS= read -r line; do	# "HASH  ./PATH" (a name sha256sum escapes matches no path)
		sums[/${line#*  ./}]=${line%% *}
	done < <(cd "$tree" && find . -type f -exec sha256sum {} +)
	# the findings that change names: their directories' names are looked up anew
	renamed=$(grep -E 'FAT_(SHORT_NAME|NAME_DUPLICATE|LFN_UTF16):' <<< "$3")
	while IFS=$'\t' read -r path type size sum; do
		[ "$type" = f ] || continue
		case "$1:$path" in	# (where the repair puts a tree it links back under a new name)
		fbad-fat32-lostdir:/deep/level2/*) path=/deep/DIR0000.CHK/${path#/deep/level2/} ;;
		esac
		[[ $3 == *"$path"* ]] && continue	# (named by a finding, as owner or as the other owner)
		[[ -n $renamed && $renamed == *"${path%/*}"* ]] && continue
		case "$path" in *[][*?]*|*[!\ -~]*) continue ;; esac	# (wildcards to mtools; names beyond ASCII under LC_ALL=C)
		got=${sums[$path]:-}
		if [ -z "$got" ]; then	# (a name the host spells otherwise: an 8.3 name in lower case, say)
			got=$(MTOOLS_SKIP_CHECK=1 mtype -i "$2" "::$path" 2> /dev/null | sha256sum)
			got=${got%% *}
		fi
		if [ "$got" != "$sum" ]; then
			bad "$1: $path reads back differently after the repair"
			return
		fi
		n=$((n + 1))
	done < <(grep -v '^#' "$(manifest_of "$1")")
	rm -rf "$tree"
	[ "$n" -gt 0 ] && ok || bad "$1: no file of the manifest was compared"
}

have_mtools=0
command -v mtype > /dev/null && have_mtools=1
[ "$have_mtools" = 1 ] || echo "mtools not installed: contents are not compared"
command -v fsck.fat > /dev/null || echo "fsck.fat (dosfstools) not installed: its verdict after the repair is not asked"
count=0
for name in $(fixture_names); do
	case "$name" in fbad-fat*) ;; *) continue ;; esac
	count=$((count + 1))
	cp "$WORK/img/$name.img" "$name.img"
	cp "$WORK/img/$name.img" plain.img
	run1=$("$FATSCOPE" fsck -y --recheck "$name.img" 2>&1; echo "exit status: $?")
	run2=$("$FATSCOPE" fsck -y "$name.img" 2>&1; echo "exit status: $?")
	golden "$name (-y)" "$EXPECTED/fat-repair/$name.txt" "$run1
--- a second -y:
$run2"
	[[ $run2 == *"changes written"* ]] && bad "$name: a second -y wrote: $run2" || ok
	"$FATSCOPE" fsck -y plain.img > /dev/null 2>&1
	cmp -s plain.img "$name.img" && ok || bad "$name: -y and -y --recheck wrote different bytes"
	cp "$WORK/img/$name.img" freed.img
	"$FATSCOPE" fsck -y --lost=free freed.img > /dev/null 2>&1
	"$FATSCOPE" fsck -n freed.img > freed.txt 2>&1
	if [[ $run1 =~ "exit status: "[01]$ ]] && ! grep -q '^\(error\|fatal\) \|FAT_LOST_CLUSTERS' freed.txt; then ok
	elif [[ ! $run1 =~ "exit status: "[01]$ ]]; then ok
	else bad "$name: -y --lost=free leaves: $(head -2 freed.txt | tr '\n' '|')"; fi
	if [[ $run1 =~ "exit status: "[01]$ ]]; then
		"$FATSCOPE" fsck -n "$name.img" > /dev/null 2>&1; rc=$?
		[ "$rc" = 0 ] && ok || bad "$name: the repair said no error is left, fsck -n exits $rc"
		if grep -q '^left  warning FAT_LABEL_MISMATCH' <<< "$run1"; then
			echo "$name: fsck.fat copies the root's label into the boot sector; fatscope leaves the choice (by design)"
		elif command -v fsck.fat > /dev/null; then
			fsck.fat -n "$name.img" > fsck-fat.log 2>&1; rc=$?
			[ "$rc" = 0 ] && ok || bad "$name: after the repair fsck.fat -n exits $rc: $(head -3 fsck-fat.log | tr '\n' '|')"
		fi
		if [ "$have_mtools" = 1 ]; then
			MTOOLS_SKIP_CHECK=1 mdir -/ -i "$name.img" :: > mdir.log 2>&1 && ok ||
				bad "$name: mdir -/ fails after the repair: $(tail -1 mdir.log)"
			contents_kept "$name" "$name.img" "$run1"
		fi
	fi
	rm -f "$name.img" plain.img freed.img
done
[ "$count" -eq 37 ] && ok || bad "$count FAT fixtures repaired, 37 expected"

# A lost directory goes back into the directory its .. names: under its own
# long name where its deleted entry is still there (the first letter found
# again through the long name's checksum), else as DIRnnnn.CHK; its files
# read back through The Sleuth Kit (names beyond ASCII) and mtools.
if command -v fls > /dev/null; then
	cp "$WORK/img/fbad-fat16-lostdir.img" lostdir.img
	"$FATSCOPE" fsck -y lostdir.img > /dev/null 2>&1
	# (fls shows the 8.3 name's byte for ï as ^)
	grep -qx 'unicode/Résumé/na.*ve\.txt' <(fls -r -p lostdir.img 2> /dev/null | cut -f2) && ok ||
		bad "fbad-fat16-lostdir: /unicode/Résumé/naïve.txt is not back under its name"
	inode=$(fls -r -p lostdir.img 2> /dev/null | awk -F'\t' '$2 ~ /^unicode\/Résumé\/na.*ve\.txt$/ { sub(/.* /, "", $1); sub(/:$/, "", $1); print $1 }')
	want=$(awk -F'\t' '$1 == "/unicode/Résumé/naïve.txt" { print $4 }' "$top_srcdir/tests/fixtures/pop-fat16.manifest")
	[ -n "$inode" ] && [ "$(icat lostdir.img "$inode" | sha256sum | cut -d' ' -f1)" = "$want" ] && ok ||
		bad "fbad-fat16-lostdir: naïve.txt does not read back with its bytes (inode '$inode')"
	cp "$WORK/img/fbad-fat32-lostdir.img" lostdir.img
	"$FATSCOPE" fsck -y lostdir.img > /dev/null 2>&1
	got=$(fls -r -p lostdir.img 2> /dev/null | cut -f2 | grep '^deep/' | sort | tr '\n' ' ')
	[ "$got" = "deep/DIR0000.CHK deep/DIR0000.CHK/at-level-2.txt deep/DIR0000.CHK/level3 deep/DIR0000.CHK/level3/at-level-3.txt deep/at-level-1.txt " ] &&
		ok || bad "fbad-fat32-lostdir: /deep after the repair: $got"
	rm -f lostdir.img
else
	echo "sleuthkit (fls) not installed: the names of relinked trees are not compared"
fi
finish
