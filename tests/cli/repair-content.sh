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
# Cheap in processes (each costs ~15 ms here): every copy made by one cp,
# fls's lines read in the shell, every tree tsk_recover writes hashed by one
# find -exec sha256sum and every file icat reads by one sha256sum, the
# repaired images probed by one fatscope probe -J and one jq, the images
# compared with the fixtures by one python3 (differing, lib.sh: only what is
# not a hole is read).
. "$(dirname "$0")/lib.sh"

command -v fls > /dev/null && command -v icat > /dev/null || skip "fls/icat (sleuthkit) not installed"
prepare_fixtures
hash sha256sum 2> /dev/null || hard_error "no sha256sum"
SHA256SUM=${BASH_CMDS[sha256sum]}	# (find -exec runs it by its path: no search of PATH each time)

# lines ARRAY TEXT: TEXT's lines (none empty) into ARRAY, without a read
# from a pipe (bash reads a here-string's pipe a byte a call).
lines() {
	local IFS=$'\n'
	set -f
	eval "$1"'=($2)'
	set +f
}

# Manifests: "inode<TAB>path<TAB>sha256" of every regular file of an image,
# as fls lists them, in MANIFEST[KEY] (KEY: b.NAME the fixture before the
# repair, a.NAME its repaired copy).  The bytes come from one tsk_recover of
# the whole volume (an icat a file took most of this script's time); a file
# it did not write at the listed path (empty files, a path listed twice, a
# name it changed, a tree it did not follow) is read with icat.  In three
# steps, so that one sha256sum hashes what all the images gave:
# list_files KEY IMAGE (fls, tsk_recover into rec/KEY), then
# hash_trees, then read_unrecovered KEY IMAGE (icat into icat/KEY.N), then
# hash_unrecovered fills MANIFEST.
declare -A LIST=() MANIFEST=() sums=() icat_sums=()
list_files() {
	local line path list= n=0
	fls -r -p -F "$2" > "fls.$1" 2> /dev/null
	while IFS= read -r line; do
		[[ $line =~ ^r/r\ ([0-9-]*):$'\t'(.*)$ ]] || continue
		path=${BASH_REMATCH[2]}
		[[ $path == \$* || $path == */\$* || $path == *'(Volume Label Entry)' ]] && continue
		list+=${BASH_REMATCH[1]}$'\t'$path$'\n'
	done < "fls.$1"
	LIST[$1]=$list
	[ -n "$list" ] || return 0
	tsk_recover -a "$2" "rec/$1" > /dev/null 2>&1
}
hash_trees() {
	local line
	[ -n "$(shopt -s nullglob; echo rec/*)" ] || return 0
	find rec -type f -exec "$SHA256SUM" {} + > sums.txt 2> /dev/null
	while IFS= read -r line; do	# "HASH  rec/KEY/PATH" (a name sha256sum escapes matches no path)
		sums[${line#*  rec/}]=${line%% *}
	done < sums.txt
}
read_unrecovered() {
	local inode path hash n=0 man= entry
	local -a list
	local -A count=()
	lines list "${LIST[$1]}"
	for entry in "${list[@]}"; do
		path=${entry#*$'\t'}
		count[$path]=$((${count[$path]:-0} + 1))
	done
	for entry in "${list[@]}"; do
		inode=${entry%%$'\t'*}
		path=${entry#*$'\t'}
		hash=
		[ "${count[$path]}" -gt 1 ] || hash=${sums[$1/$path]:-}
		if [ -z "$hash" ]; then
			n=$((n + 1))
			icat "$2" "$inode" > "icat/$1.$n" 2> /dev/null
			hash=@icat/$1.$n	# (hash_unrecovered puts the hash in)
		fi
		man+=$inode$'\t'$path$'\t'$hash$'\n'
	done
	MANIFEST[$1]=${man%$'\n'}
}
hash_unrecovered() {
	local line key man= entry
	local -a files=(icat/*) list
	if [ -e "${files[0]}" ]; then
		"$SHA256SUM" "${files[@]}" > icat-sums.txt
		while IFS= read -r line; do
			icat_sums[${line#*  }]=${line%% *}
		done < icat-sums.txt
	fi
	for key in "${!MANIFEST[@]}"; do
		[[ ${MANIFEST[$key]} == *$'\t'@icat/* ]] || continue
		man=
		lines list "${MANIFEST[$key]}"
		for entry in "${list[@]}"; do
			[[ $entry == *$'\t'@icat/* ]] && entry=${entry%$'\t'@*}$'\t'${icat_sums[${entry##*$'\t'@}]:-}
			man+=$entry$'\n'
		done
		MANIFEST[$key]=${man%$'\n'}
	done
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

# fuse_read NAME MANIFEST: the repaired r/NAME.img mounted read-only by
# exfat-fuse (a second reader, the one many desktops use): it mounts exactly
# when fatscope's exfat-fuse model (FUSE_MODEL, from one probe of all the
# repaired images) says so, and then gives every file of the manifest with
# the same bytes, but those in a directory with an entry type it does not
# know (exfat-fuse 1.3.0 fails such a directory, benign or not; fatscope
# reports EXFAT_UNKNOWN_BENIGN there).  False (said once) where exfat-fuse
# cannot mount here: not installed, not root, no /dev/fuse or loop device,
# no jq.
fuse_told=
can_fuse() {
	command -v mount.exfat-fuse > /dev/null && command -v jq > /dev/null && [ "$EUID" = 0 ] && [ -c /dev/fuse ]
}
declare -A FUSE_MODEL=()
fuse_read() {
	local inode path hash loop= model mounted skip dir got line mnt="$SCRATCH/fuse"
	# As root exfat-fuse wants a block device: a read-only loop device of our own.
	if ! can_fuse || ! losetup -r -f --show "r/$1.img" > loop.txt 2> /dev/null || ! read -r loop < loop.txt || [ -z "$loop" ]; then
		[ -n "$fuse_told" ] || echo "SKIP (part): exfat-fuse cannot mount here (needs root, /dev/fuse, a loop device and jq); repaired volumes read through sleuthkit only"
		fuse_told=1
		return 1
	fi
	model=${FUSE_MODEL[$1.img]:-}
	mount.exfat-fuse -o ro "$loop" "$mnt" > "$SCRATCH/fuse.err" 2>&1 && mounted=mounts || mounted=refuses
	[ "$mounted" = "$model" ] ||
		bad "$1: exfat-fuse $mounted the repaired volume, fatscope's model says it $model: $(grep -v '^FUSE exfat' "$SCRATCH/fuse.err" | tail -1)"
	if [ "$mounted" = mounts ]; then
		"$FATSCOPE" fsck -n "r/$1.img" > fsck-n.txt 2> /dev/null
		skip=$'\n'
		while IFS= read -r line; do
			[[ $line =~ ^"info    EXFAT_UNKNOWN_BENIGN: ".*": "(.*)"]"$ ]] && skip+=${BASH_REMATCH[1]}$'\n'
		done < fsck-n.txt
		# every file through the mount, hashed by one sha256sum (a name it escapes: one more)
		local -a paths=() list
		local -A fuse=()
		lines list "$2"
		for line in "${list[@]}"; do
			path=${line#*$'\t'}
			paths+=("$mnt/${path%$'\t'*}")
		done
		[ "${#paths[@]}" = 0 ] || "$SHA256SUM" -- "${paths[@]}" > fuse-sums.txt 2> /dev/null
		while IFS= read -r line; do
			fuse[${line#*  "$mnt"/}]=${line%% *}
		done < fuse-sums.txt
		for line in "${list[@]}"; do
			hash=${line##*$'\t'}
			path=${line#*$'\t'}
			path=${path%$'\t'*}
			dir=/$path
			dir=${dir%/*}
			[[ $skip == *$'\n'"${dir:-/}"$'\n'* ]] && continue
			got=${fuse[$path]:-}
			[ -n "$got" ] || { got=$("$SHA256SUM" < "$mnt/$path" 2> /dev/null); got=${got%% *}; }
			[ "$got" = "$hash" ] || bad "$1: exfat-fuse reads /$path otherwise than sleuthkit"
		done
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
compared=0 fused=0 left=() names=()
cd "$SCRATCH" || hard_error "no $SCRATCH"
for name in $(fixture_names); do
	case "$name" in pop-fat*) continue ;; exfat*|pop-*|bad-*) ;; *) continue ;; esac
	representative "$name" && names+=("$name") || left+=("$name")
done
[ "${#names[@]}" -gt 0 ] || hard_error "no fixture to repair"
# r/NAME.img: the copy repaired (then undone), u/NAME.undo its undo log.
mkdir r u rec icat fuse || hard_error "cannot make directories in $SCRATCH"
srcs=("${names[@]/#/$WORK/img/}")
cp "${srcs[@]/%/.img}" r/ || hard_error "cannot copy the fixtures to $SCRATCH/r"
declare -A REPORT=()
repaired=() kept=()
for name in "${names[@]}"; do
	"$FATSCOPE" fsck -y --undo "u/$name.undo" "r/$name.img" > report.txt 2>&1; rc=$?
	if [ $((rc & 1)) = 0 ]; then
		kept+=("$name")	# (compared with the fixture after the loop: the image did not change)
		continue
	fi
	slurp_raw report report.txt
	REPORT[$name]=$report
	repaired+=("$name")
	list_files "b.$name" "$WORK/img/$name.img"
	list_files "a.$name" "r/$name.img"
done
hash_trees
for name in "${repaired[@]}"; do
	read_unrecovered "b.$name" "$WORK/img/$name.img"
	read_unrecovered "a.$name" "r/$name.img"
done
hash_unrecovered
if can_fuse && [ "${#repaired[@]}" -gt 0 ]; then
	imgs=("${repaired[@]/#/r/}")
	"$FATSCOPE" probe -J "${imgs[@]/%/.img}" 2> /dev/null |
		jq -r '.volumes[] | .path + "\t" + ([.drivers[] | select(.id == "exfat-fuse") | .action] | join(","))' > models.txt
	while IFS=$'\t' read -r path action; do	# (an image's first volume, as probe on it alone gives .volumes[0])
		path=${path#r/}
		[ -n "${FUSE_MODEL[$path]+set}" ] || FUSE_MODEL[$path]=$action
	done < models.txt
fi
for name in "${repaired[@]}"; do
	report=${REPORT[$name]}
	before=${MANIFEST[b.$name]:-}
	after=${MANIFEST[a.$name]:-}
	declare -A in_after=()
	lines list "$after"
	for line in "${list[@]}"; do
		in_after[$line]=1
	done
	lines list "$before"	# (none: a volume without files)
	for line in "${list[@]}"; do
		path=${line#*$'\t'}
		path=${path%$'\t'*}
		# A file the report names, or in a directory it names, may have been
		# cut or moved: it is compared no further.
		if named "/$path" "$report"; then
			continue
		fi
		compared=$((compared + 1))
		if [ -z "${in_after[$line]:-}" ]; then
			bad "$name: /$path changed or went, and the repair does not name it"
		fi
	done
	unset in_after
	ok
	fuse_read "$name" "$after" && fused=$((fused + 1))
	"$FATSCOPE" undo "u/$name.undo" "r/$name.img" > /dev/null || bad "$name: undo failed"
done
# The images fsck -y says it did not change, and those undone: the fixture's bytes.
differing "$WORK/img" r "${names[@]/%/.img}" > differ.txt; rc=$?
[ "$rc" = 0 ] || bad "the comparison of r/ with the fixtures failed: exit $rc"
declare -A differs=()
while IFS= read -r line; do
	differs[${line%.img}]=1
done < differ.txt
for name in "${kept[@]}"; do
	[ -z "${differs[$name]:-}" ] && ok || bad "$name: the image changed but fsck -y exits without bit 1"
done
for name in "${repaired[@]}"; do
	[ -z "${differs[$name]:-}" ] && ok || bad "$name: undo did not restore the image"
done
[ "${#left[@]}" = 0 ] || echo "not repaired without FATSCOPE_LONG_TESTS=1: ${#left[@]} fixtures (${left[*]})"
echo "$compared files compared before and after a repair; $fused repaired volumes read through exfat-fuse"
[ "$compared" -gt 0 ] && ok || bad "no file was compared"
finish
