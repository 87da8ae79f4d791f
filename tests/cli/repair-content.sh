#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# repair-content.sh - a repair keeps file data: on a copy of every exFAT
# fixture, fatscope fsck -y, then every file that the repair's report does
# not name reads back byte for byte as before (read through The Sleuth
# Kit's fls and icat, a reader that is not fatscope's), and every named
# file keeps at least the bytes its new size holds, unchanged.  Where it
# can mount (root, /dev/fuse), exfat-fuse reads every file of the repaired
# volume with the same bytes.  Also: the repair's undo log puts the image
# back byte for byte.  Every exFAT fixture with FATSCOPE_LONG_TESTS=1, else
# one of each kind of repair.
. "$(dirname "$0")/lib.sh"

command -v fls > /dev/null && command -v icat > /dev/null || skip "fls/icat (sleuthkit) not installed"
prepare_fixtures

# manifest IMAGE: "inode<TAB>path<TAB>sha256" of every regular file, as
# fls lists them.  The bytes come from one tsk_recover of the whole volume
# (an icat a file took most of this script's time); a file it did not
# write at the listed path (empty files, a path listed twice, a name it
# changed, a tree it did not follow) is read with icat.
manifest() {
	local inode path line hash list out="$SCRATCH/recovered"
	local -A sums=() dups=()
	list=$(fls -r -p -F "$1" 2> /dev/null | sed -n 's|^r/r \([0-9-]*\):\t\(.*\)$|\1\t\2|p' |
		grep -v $'\t\\$\\|/\\$\\|(Volume Label Entry)$')
	[ -n "$list" ] || return 0
	rm -rf "$out"
	tsk_recover -a "$1" "$out" > /dev/null 2>&1
	while IFS= read -r line; do	# "HASH  ./PATH" (a name sha256sum escapes matches no path)
		sums[${line#*  ./}]=${line%% *}
	done < <(cd "$out" 2> /dev/null && find . -type f -exec sha256sum {} +)
	while IFS= read -r path; do
		dups[$path]=1
	done < <(cut -f2 <<< "$list" | sort | uniq -d)
	while IFS=$'\t' read -r inode path; do
		hash=
		[ -n "${dups[$path]:-}" ] || hash=${sums[$path]:-}
		[ -n "$hash" ] || hash=$(icat "$1" "$inode" 2> /dev/null | sha256sum | cut -c1-64)
		printf '%s\t%s\t%s\n' "$inode" "$path" "$hash"
	done <<< "$list"
	rm -rf "$out"
}

# named PATH REPORT: the report names PATH or a directory above it.
named() {
	local p=$1
	while [ -n "$p" ]; do
		[[ $2 == *"[$p]"* || $2 == *": $p]"* ]] && return 0
		p=${p%/*}
	done
	return 1
}

# fuse_read NAME MANIFEST: the repaired r.img mounted read-only by exfat-fuse
# (a second reader, the one many desktops use): it mounts exactly when
# fatscope's exfat-fuse model says so, and then gives every file of the
# manifest with the same bytes, but those in a directory with an entry type
# it does not know (exfat-fuse 1.3.0 fails such a directory, benign or not;
# fatscope reports EXFAT_UNKNOWN_BENIGN there).  False (said once) where
# exfat-fuse cannot mount here: not installed, not root, no /dev/fuse or
# loop device, no jq.
fuse_told=
fuse_read() {
	local inode path hash loop model mounted skip dir got line mnt="$SCRATCH/fuse"
	# As root exfat-fuse wants a block device: a read-only loop device of our own.
	if ! command -v mount.exfat-fuse > /dev/null || ! command -v jq > /dev/null || [ "$(id -u)" != 0 ] ||
	   [ ! -c /dev/fuse ] || ! loop=$(losetup -r -f --show r.img 2> /dev/null); then
		[ -n "$fuse_told" ] || echo "SKIP (part): exfat-fuse cannot mount here (needs root, /dev/fuse, a loop device and jq); repaired volumes read through sleuthkit only"
		fuse_told=1
		return 1
	fi
	model=$("$FATSCOPE" probe -J r.img | jq -r '.volumes[0].drivers[] | select(.id == "exfat-fuse") | .action')
	mkdir -p "$mnt"
	mount.exfat-fuse -o ro "$loop" "$mnt" > "$SCRATCH/fuse.err" 2>&1 && mounted=mounts || mounted=refuses
	[ "$mounted" = "$model" ] ||
		bad "$1: exfat-fuse $mounted the repaired volume, fatscope's model says it $model: $(grep -v '^FUSE exfat' "$SCRATCH/fuse.err" | tail -1)"
	if [ "$mounted" = mounts ]; then
		skip=$'\n'$("$FATSCOPE" fsck -n r.img 2> /dev/null | sed -n 's/^info    EXFAT_UNKNOWN_BENIGN: .*: \(.*\)\]$/\1/p')$'\n'
		# every file through the mount, hashed by one sha256sum (a name it escapes: one more)
		local -a paths=()
		local -A fuse=()
		while IFS=$'\t' read -r inode path hash; do
			[ -n "$inode" ] && paths+=("$path")
		done <<< "$2"
		while IFS= read -r line; do
			fuse[${line#*  }]=${line%% *}
		done < <(cd "$mnt" && sha256sum -- "${paths[@]}" 2> /dev/null)
		while IFS=$'\t' read -r inode path hash; do
			[ -n "$inode" ] || continue
			dir=/$path
			dir=${dir%/*}
			[[ $skip == *$'\n'"${dir:-/}"$'\n'* ]] && continue
			got=${fuse[$path]:-}
			[ -n "$got" ] || { got=$(sha256sum < "$mnt/$path" 2> /dev/null); got=${got%% *}; }
			[ "$got" = "$hash" ] || bad "$1: exfat-fuse reads /$path otherwise than sleuthkit"
		done <<< "$2"
		umount "$mnt" 2> /dev/null || fusermount -u "$mnt" 2> /dev/null
	fi
	losetup -d "$loop"
	[ "$mounted" = mounts ]
}

# Every exFAT fixture with FATSCOPE_LONG_TESTS=1; else one of each kind of
# repair that touches files, directories or their clusters (and a boot
# region one, and a clean one), the others named.
representative() {
	case $1 in
	bad-after-end|bad-bitmap-unmarked|bad-chains|bad-cross-link|bad-dir-cycle|bad-fat-loop) ;;
	bad-lost-clusters|bad-names|bad-set-structure|bad-unknown-critical|bad-upcase) ;;
	bad-valid-data-length|exfat-upcase-bad|exfat-dirty|pop-small) ;;
	*) long_tests ;;
	esac
}
compared=0 fused=0 left=()
cd "$SCRATCH" || hard_error "no $SCRATCH"
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	representative "$name" || { left+=("$name"); continue; }
	cp "$WORK/img/$name.img" r.img
	rm -f r.undo
	report=$("$FATSCOPE" fsck -y --undo r.undo r.img 2>&1); rc=$?
	if [ $((rc & 1)) = 0 ]; then
		cmp -s r.img "$WORK/img/$name.img" && ok || bad "$name: the image changed but fsck -y exits $rc"
		continue
	fi
	before=$(manifest "$WORK/img/$name.img")
	after=$(manifest r.img)
	declare -A in_after=()
	while IFS= read -r line; do
		[ -z "$line" ] || in_after[$line]=1
	done <<< "$after"
	while IFS=$'\t' read -r inode path hash; do
		[ -n "$inode" ] || continue	# a volume without files
		# A file the report names, or in a directory it names, may have been
		# cut or moved: it is compared no further.
		if named "/$path" "$report"; then
			continue
		fi
		compared=$((compared + 1))
		if [ -z "${in_after[$inode$'\t'$path$'\t'$hash]:-}" ]; then
			bad "$name: /$path changed or went, and the repair does not name it"
		fi
	done <<< "$before"
	ok
	fuse_read "$name" "$after" && fused=$((fused + 1))
	"$FATSCOPE" undo r.undo r.img > /dev/null || bad "$name: undo failed"
	cmp -s r.img "$WORK/img/$name.img" && ok || bad "$name: undo did not restore the image"
done
[ "${#left[@]}" = 0 ] || echo "not repaired without FATSCOPE_LONG_TESTS=1: ${#left[@]} fixtures (${left[*]})"
echo "$compared files compared before and after a repair; $fused repaired volumes read through exfat-fuse"
[ "$compared" -gt 0 ] && ok || bad "no file was compared"
finish
