#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ls-cat.sh - fatscope ls, cat and extract against readers that are not
# fatscope's, and the bytes that were put in:
#  1. on the populated fixtures, `fatscope ls -R -a` names exactly the
#     files and directories that The Sleuth Kit's `fls -r` names; every
#     file `fatscope cat` reads equals icat's bytes and the manifest's
#     hash; `fatscope extract` gives the manifest's tree, byte for byte;
#  2. a FAT16 volume made here with mtools: extract equals the source tree
#     (cmp, and the modification times kept); files deleted with mdel,
#     some of their clusters then taken by new files (mtools allocates
#     first-fit): ls --deleted and extract --deleted say intact, partial
#     and overwritten as made, and the recovered bytes are the originals
#     (a partial one: zeros where its clusters were taken);
#  3. the same on an exFAT volume written through exfat-fuse (root, a loop
#     device of our own, /dev/fuse; said and skipped otherwise);
#  4. names with ESC and a newline (long-name units patched) never reach
#     stdout or stderr raw; a name "..", or with '/', is renamed, listed,
#     and nothing is written outside DIR; a FAT chain made to loop gives
#     one error line, exit 4 and its bytes up to the loop (cat and
#     extract), even with a size of 4 GiB;
#  5. extract refuses a DIR that is a symbolic link, a link in DIR where
#     it would write, and an existing file (unless --force, which replaces
#     the link, not what it points to); the image is never written.
. "$(dirname "$0")/lib.sh"

for t in fls icat mkfs.fat mcopy mmd mdel mshowfat cmp; do
	command -v "$t" > /dev/null || skip "$t not installed (sleuthkit, dosfstools, mtools)"
done
export TZ=UTC MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"

# check WHAT WANT GOT

# Paths as The Sleuth Kit can show them: it gives a FAT 8.3 name's bytes over 0x7F as '^' and
# cuts long names short, so every character over 0x7F is '^' and every name at most 200.
tsk_form() {
	perl -CSD -pe 's/[^\x00-\x7F]/^/g; s{([^/\n]{200})[^/\n]*}{$1}g'
}

# inode<TAB>path of every live entry fls -r names (no $-files, no label), the paths in tsk_form.
fls_list() {
	fls -r -p -u "$1" 2> /dev/null | sed -n 's/^[-a-z]\/[-a-z] \([0-9]*\):\t/\1\t/p' |
		grep -v $'\t\\$\\|/\\$\\|(Volume Label Entry)$' | tsk_form
}
fls_names() {
	fls_list "$1" | cut -f2- | LC_ALL=C sort
}

# The same from fatscope ls -R -a: a header "DIR:" first and after each empty line.
ls_names() {
	"$FATSCOPE" ls -R -a "$@" | awk '
		NR == 1 || prev == "" { d = substr($0, 1, length($0) - 1); prev = $0; next }
		{ prev = $0 }
		$0 != "" { print (d == "/" ? "" : substr(d, 2) "/") $0 }' | tsk_form | LC_ALL=C sort
}

# ---- 1. the populated fixtures
catted=0
for name in pop-small pop-fat12 pop-fat16 pop-fat32 pop-many; do
	img="$WORK/img/$name.img"
	manifest="$top_srcdir/tests/fixtures/$name.manifest"
	has_fixture "$name" && [ -f "$manifest" ] || { bad "$name: no fixture or manifest"; continue; }
	want=$(fls_names "$img")
	got=$(ls_names "$img")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok
	else
		bad "$name: ls -R -a and fls -r name other entries"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -10
	fi
	# ls -R -J names the same entries
	got=$("$FATSCOPE" ls -R -a -J "$img" | jq -r '.entries[].path' 2> /dev/null | sed 's|^/||' | tsk_form |
	      LC_ALL=C sort)
	check "$name: ls -R -a -J" "$want" "$got"
	# every file of the small ones through cat, against icat and the manifest
	case $name in pop-small|pop-fat12|pop-fat16)
		# each file by fatscope cat (a process a file), then all hashed by one sha256sum;
		# The Sleuth Kit's bytes by one tsk_recover of the volume (icat for a file it
		# did not write at its path: names it spells otherwise)
		declare -A inode=() form=() catsum=() tsksum=()
		while IFS=$'\t' read -r i path; do inode[$path]=$i; done < <(fls_list "$img")
		mapfile -t paths < <(grep -v '^#' "$manifest" | awk -F'\t' '$2 == "f" { print $1 }')
		mapfile -t forms < <(printf '%s\n' "${paths[@]#/}" | tsk_form)
		rm -rf catted tsk && mkdir catted
		for k in "${!paths[@]}"; do
			form[${paths[$k]}]=${forms[$k]}
			"$FATSCOPE" cat "$img" "${paths[$k]}" > "catted/$k"
		done
		while read -r h f; do catsum[${f#catted/}]=$h; done < <(sha256sum catted/*)
		tsk_recover -a "$img" tsk > /dev/null 2>&1
		while IFS= read -r line; do tsksum[${line#*  ./}]=${line%% *}; done < <(cd tsk 2> /dev/null && find . -type f -exec sha256sum {} +)
		k=0
		while IFS=$'\t' read -r path type size hash; do
			[ "$type" = f ] || continue
			c=${catsum[$k]:-}
			i=${inode[${form[$path]}]:-}
			if [ -n "$i" ] && [ -n "${tsksum[${path#/}]:-}" ]; then
				i=${tsksum[${path#/}]}
			elif [ -n "$i" ]; then
				i=$(icat "$img" "$i" | sha256sum) && i=${i%% *}
			fi
			if [ "$c" = "$hash" ] && [ "$i" = "$hash" ]; then
				ok
			else
				bad "$name: $path: cat $c, The Sleuth Kit ${i:-(no inode)}, manifest $hash"
			fi
			catted=$((catted + 1)) k=$((k + 1))
		done < <(grep -v '^#' "$manifest")
		rm -rf catted tsk
		unset inode form catsum tsksum
	esac
	# the whole tree through extract, against the manifest
	rm -rf out
	"$FATSCOPE" extract "$img" -o out > extract.log; rc=$?
	check "$name: extract exit" 0 "$rc"
	got=$(cd out && find . -mindepth 1 | sed 's|^\.||' | LC_ALL=C sort)
	check "$name: extracted paths" "$(grep -v '^#' "$manifest" | cut -f1 | LC_ALL=C sort)" "$got"
	if (cd out && grep -v '^#' "$manifest" | awk -F'\t' '$2 == "f" { print $4 "  ." $1 }' |
	    sha256sum -c --quiet > /dev/null 2>&1); then ok; else bad "$name: extracted bytes differ from the manifest"; fi
	check "$name: the image unchanged" "$(fixture_hash "$name")" "$(sha256sum < "$img" | cut -c1-64)"
done
echo "$catted files read through cat and icat"
[ "$catted" -gt 50 ] && ok || bad "only $catted files read through cat"

# ---- 2. a FAT16 volume made here with mtools
# rnd SIZE: random bytes (the sources stay in the scratch directory to compare with)
rnd() { head -c "$1" /dev/urandom; }
command -v xxd > /dev/null || skip "xxd not installed"

rm -rf src fat.img
mkdir -p src/docs/sub src/data src/new
printf 'hello from the root\n' > src/README.TXT
rnd 1000 > "src/docs/Long File Name.txt"
rnd 10240 > src/docs/sub/deep.bin
rnd 65536 > src/data/big.bin
: > src/data/empty.bin
printf 'x' > src/data/one.bin
find src -exec touch -d '2021-03-04 05:06:08' {} +
touch -d '2019-07-08 09:10:12' src/docs/sub/deep.bin
mkfs.fat -C -F 16 -s 4 --invariant -n LSCAT fat.img 16384 > /dev/null || hard_error "mkfs.fat failed"
# new/ first, so that the files made after the deletions have a directory cluster already
mcopy -s -m -i fat.img src/new src/README.TXT src/docs src/data ::/ || hard_error "mcopy failed"
# the victims (2 KiB clusters): over 2 clusters, part 4, intact 3, then a live file after them
rnd 4000 > victim-over.bin
rnd 8000 > victim-part.bin
rnd 6000 > victim-intact.bin
mcopy -m -i fat.img victim-over.bin victim-part.bin victim-intact.bin src/data/one.bin ::/ || hard_error "mcopy failed"
cp fat.img fat-before.img
mdel -i fat.img ::/victim-over.bin
rnd 4000 > n1.bin
mcopy -i fat.img n1.bin ::/new/	# takes victim-over's 2 clusters
mdel -i fat.img ::/victim-part.bin
rnd 2048 > n2.bin
mcopy -i fat.img n2.bin ::/new/	# takes victim-part's first cluster only
mdel -i fat.img ::/victim-intact.bin
cp src/data/one.bin src/one.bin
cp n1.bin n2.bin src/new/
touch -d '2021-03-04 05:06:08' src/one.bin

rm -rf out
"$FATSCOPE" extract fat.img -o out > extract.log; rc=$?
check "fat: extract exit" 0 "$rc"
(cd src && find . -type f | LC_ALL=C sort) > src.list
(cd out && find . -type f | LC_ALL=C sort) > out.list
check "fat: extracted files" "$(cat src.list)" "$(cat out.list)"
# (the times of every file by one stat each side)
mtimes() { (cd "$1" && xargs -d '\n' stat -c '%n %Y' < ../src.list); }
declare -A src_t=() out_t=()
while read -r f t; do src_t[$f]=$t; done < <(mtimes src)
while read -r f t; do out_t[$f]=$t; done < <(mtimes out)
while read -r f; do
	cmp -s "src/$f" "out/$f" && ok || bad "fat: $f differs"
	case $f in ./new/*) continue ;; esac	# written by mcopy without -m
	check "fat: $f mtime" "${src_t[$f]:-none}" "${out_t[$f]:-none}"
done < src.list

# undelete: what ls says, what extract recovers
state() {	# state IMAGE PATH: the recovery ls -l --deleted gives the deleted entry PATH
	"$FATSCOPE" ls -J --deleted "$1" "$(dirname "$2")" |
		jq -r --arg p "$2" '.entries[] | select(.path == $p and .deleted) | .recovery' 2> /dev/null
}
check "fat: victim-intact state" intact "$(state fat.img /victim-intact.bin)"
check "fat: victim-part state" partial "$(state fat.img /victim-part.bin)"
check "fat: victim-over state" overwritten "$(state fat.img /victim-over.bin)"
check "fat: ls -l --deleted, text" "overwritten" \
	"$("$FATSCOPE" ls -l --deleted fat.img / | awk '$NF == "victim-over.bin" { print $6 }')"
"$FATSCOPE" cat --deleted fat.img /victim-intact.bin > got.bin; rc=$?
check "fat: cat --deleted intact exit" 0 "$rc"
cmp -s got.bin victim-intact.bin && ok || bad "fat: cat --deleted /victim-intact.bin differs from what was deleted"
"$FATSCOPE" cat --deleted fat.img /victim-part.bin > got.bin 2> err; rc=$?
check "fat: cat --deleted partial exit" 1 "$rc"
{ head -c 2048 /dev/zero; tail -c +2049 victim-part.bin; } > want.bin
cmp -s got.bin want.bin && ok || bad "fat: victim-part.bin: not zeros then the bytes left"
"$FATSCOPE" cat --deleted fat.img /victim-over.bin > got.bin 2> err; rc=$?
check "fat: cat --deleted overwritten exit" 4 "$rc"
check "fat: cat --deleted overwritten bytes" 0 "$(stat -c %s got.bin)"
"$FATSCOPE" cat fat.img /victim-intact.bin > /dev/null 2>&1; rc=$?
check "fat: cat without --deleted finds no deleted file" 8 "$rc"
rm -rf out
"$FATSCOPE" extract --deleted fat.img -o out > extract.log; rc=$?
check "fat: extract --deleted exit (one partial, one overwritten)" 1 "$rc"
cmp -s out/victim-intact.bin victim-intact.bin && ok || bad "fat: extract --deleted: victim-intact.bin"
cmp -s out/victim-part.bin want.bin && ok || bad "fat: extract --deleted: victim-part.bin"
[ ! -e out/victim-over.bin ] && ok || bad "fat: extract --deleted wrote the overwritten victim-over.bin"
grep -qx 'not recovered (overwritten): /victim-over.bin' extract.log && ok || bad "fat: extract does not say victim-over.bin is overwritten"
cmp -s out/README.TXT src/README.TXT && ok || bad "fat: extract --deleted: a live file differs"

# ---- 3. exFAT through exfat-fuse
loop= mnt="$SCRATCH/mnt" fuse_done=
cleanup() {
	[ -n "$mnt" ] && mountpoint -q "$mnt" 2> /dev/null && { umount "$mnt" 2> /dev/null || fusermount -u "$mnt"; }
	[ -n "$loop" ] && losetup -d "$loop" 2> /dev/null
	loop=
}
trap cleanup EXIT
exfat_mount() {
	loop=$(losetup -f --show ex.img 2> /dev/null) && mkdir -p "$mnt" && mount.exfat-fuse "$loop" "$mnt" > /dev/null 2>&1
}
exfat_umount() {
	umount "$mnt" 2> /dev/null || fusermount -u "$mnt"
	losetup -d "$loop"
	loop=
}
if [ "$(id -u)" = 0 ] && command -v mkfs.exfat > /dev/null && command -v mount.exfat-fuse > /dev/null &&
   [ -c /dev/fuse ] && command -v losetup > /dev/null && rm -f ex.img && truncate -s 32M ex.img &&
   mkfs.exfat -c 4K -L LSCAT ex.img > /dev/null 2>&1 && exfat_mount; then
	mkdir "$mnt/v"
	cp -a src/. "$mnt/"
	cp victim-over.bin victim-intact.bin "$mnt/v/"
	rnd 16000 > ex-part.bin
	cp ex-part.bin "$mnt/v/"
	for i in 1 2 3 4; do	# two files interleaved, cluster by cluster: both fragmented
		rnd 4096 > chunk && cat chunk >> frag.bin && cat chunk >> "$mnt/v/frag.bin"
		rnd 4096 > chunk && cat chunk >> live.bin && cat chunk >> "$mnt/v/live.bin"
	done
	exfat_umount
	rm -rf out
	"$FATSCOPE" extract ex.img -o out > extract.log; rc=$?
	check "exfat: extract exit" 0 "$rc"
	out_t=()
	while read -r f t; do out_t[$f]=$t; done < <(mtimes out)
	while read -r f; do
		cmp -s "src/$f" "out/$f" && ok || bad "exfat: $f differs"
		check "exfat: $f mtime" "${src_t[$f]:-none}" "${out_t[$f]:-none}"
	done < src.list
	cmp -s out/v/frag.bin frag.bin && cmp -s out/v/live.bin live.bin && ok || bad "exfat: fragmented files differ"
	want=$(fls_names ex.img)
	check "exfat: ls -R -a against fls -r" "$want" "$(ls_names ex.img)"
	exfat_mount || hard_error "cannot mount ex.img again"
	rm "$mnt/v/victim-over.bin"
	rnd 8000 > "$mnt/new/m1.bin"	# victim-over's two clusters
	rm "$mnt/v/ex-part.bin"
	rnd 8000 > "$mnt/new/m2.bin"	# the first two of ex-part's four
	rm "$mnt/v/victim-intact.bin" "$mnt/v/frag.bin"
	exfat_umount
	check "exfat: victim-intact state" intact "$(state ex.img /v/victim-intact.bin)"
	check "exfat: ex-part state" partial "$(state ex.img /v/ex-part.bin)"
	check "exfat: victim-over state" overwritten "$(state ex.img /v/victim-over.bin)"
	# exfat-fuse frees a fragmented file's FAT entries: what is left is the
	# contiguous run from its first cluster, half of it live.bin's
	check "exfat: frag state (exfat-fuse clears its chain)" partial "$(state ex.img /v/frag.bin)"
	rm -rf out
	"$FATSCOPE" extract --deleted ex.img /v -o out > extract.log; rc=$?
	check "exfat: extract --deleted exit" 1 "$rc"
	cmp -s out/v/victim-intact.bin victim-intact.bin && ok || bad "exfat: victim-intact.bin recovered otherwise"
	{ head -c 8192 /dev/zero; tail -c +8193 ex-part.bin; } > want.bin
	cmp -s out/v/ex-part.bin want.bin && ok || bad "exfat: ex-part.bin: not zeros then the bytes left"
	cmp -s <(head -c 4096 out/v/frag.bin) <(head -c 4096 frag.bin) && ok || bad "exfat: frag.bin's first cluster"
	cmp -s out/v/live.bin live.bin && ok || bad "exfat: extract --deleted: live.bin"
	fuse_done=1
else
	cleanup
	echo "SKIP (part): exFAT through exfat-fuse (needs root, mkfs.exfat, exfat-fuse, /dev/fuse, a loop device)"
fi

# ---- 4. hostile names, '..' and '/', a chain loop: FAT long-name units and FAT entries patched
# lfn_rename IMAGE OLD NEW: the one-part long name OLD (13 characters) becomes NEW (at most 13 bytes,
# one unit each; the rest 0x0000 then 0xFFFF).
lfn_rename() {
	local off units=(1 3 5 7 9 14 16 18 20 22 24 28 30) i hex pairs=()
	off=$(LC_ALL=C grep -obUaP "$(printf '%s' "${2:0:5}" | sed 's/./&\\x00/g')" "$1" | head -1 | cut -d: -f1)
	[ -n "$off" ] || hard_error "no long name $2 in $1"
	off=$((off - 1))
	for i in $(seq 0 12); do
		if [ "$i" -lt "${#3}" ]; then
			printf -v hex '%02x00' "'${3:$i:1}"	# (bytes under 0x80: one unit each)
		elif [ "$i" -eq "${#3}" ]; then
			hex=0000
		else
			hex=ffff
		fi
		pairs+=($((off + units[i])) "$hex")
	done
	patch_py set "$1" "${pairs[@]}"	# (one process a name, not three a unit)
}
rm -rf hsrc h.img
mkdir hsrc
printf 'esc\n' > hsrc/hostile-n.txt
printf 'dot\n' > hsrc/zz-dotdot.txt
printf 'slash\n' > hsrc/slash-a-b.txt
rnd 6144 > hsrc/loop.bin
mkfs.fat -C -F 16 -s 4 --invariant -n HOSTILE h.img 16384 > /dev/null || hard_error "mkfs.fat failed"
mcopy -i h.img hsrc/hostile-n.txt hsrc/zz-dotdot.txt hsrc/slash-a-b.txt hsrc/loop.bin ::/
lfn_rename h.img hostile-n.txt $'ho\e[31m\nst.tx'
lfn_rename h.img zz-dotdot.txt '..'
lfn_rename h.img slash-a-b.txt '../../x'
cp h.img h-before.img
for args in "ls -a" "ls -l -a" "ls -R -a" "ls -a --deleted" "ls -J" "dump -t" "dump -l" "extract"; do
	rm -rf hx
	if [ "$args" = extract ]; then
		out=$("$FATSCOPE" extract h.img -o hx 2>&1)
	else
		out=$("$FATSCOPE" $args h.img 2>&1)
	fi
	if printf '%s' "$out" | LC_ALL=C grep -q $'\e'; then bad "fatscope $args: ESC reached the output raw"; else ok; fi
	case $args in ls\ -J|dump*|extract) ;; *)
		check "fatscope $args: a line for each entry" 4 "$(printf '%s\n' "$out" | grep -vc ':$')" ;;
	esac
done
out=$("$FATSCOPE" ls -a h.img)
printf '%s\n' "$out" | grep -qxF 'ho\x1b[31m\x0ast.tx' && ok || bad "ls: the hostile name is not shown escaped: $out"
rm -rf hx && mkdir -p hx/in
"$FATSCOPE" extract h.img -o hx/in > extract.log 2>&1; rc=$?
check "extract of '..' and '/' names: exit" 0 "$rc"
check "extract wrote only inside DIR" "in" "$(ls -A hx)"
check "extract: the files in DIR" "$(printf '%s\n' '_..' '.._.._x' 'ho_[31m_st.tx' 'loop.bin' | LC_ALL=C sort)" \
	"$(ls -A hx/in | LC_ALL=C sort)"
cmp -s hx/in/_.. hsrc/zz-dotdot.txt && ok || bad "extract: the '..' file's bytes"
grep -qxF 'renamed: /.. -> _..' extract.log && ok || bad "extract does not list the rename of '..'"
grep -qF 'renamed: /../../x -> .._.._x' extract.log && ok || bad "extract does not list the rename of '../../x'"
# a chain loop: loop.bin (3 clusters) gets its second cluster pointing back at its first
first=$(mshowfat -i h-before.img ::/loop.bin | sed -n 's/.*<\([0-9]*\)-.*/\1/p')
[ -n "$first" ] || hard_error "mshowfat gave no chain for loop.bin"
rsvd=$(od -An -tu2 -j14 -N2 h.img | tr -d ' ')
printf "\\x$(printf %02x $((first & 255)))\\x$(printf %02x $((first >> 8)))" |
	dd of=h.img bs=1 seek=$((rsvd * 512 + 2 * (first + 1))) conv=notrunc status=none
off=$(LC_ALL=C grep -obUaP 'LOOP    BIN' h.img | head -1 | cut -d: -f1)
for size in "" 1M 4G; do	# FileSize as made, 1 MiB (the loop found within), 4 GiB - 1
	case $size in
	1M) printf '\x00\x00\x10\x00' ;;
	4G) printf '\xff\xff\xff\xff' ;;
	esac | dd of=h.img bs=1 seek=$((off + 28)) conv=notrunc status=none
	timeout 20 "$FATSCOPE" cat h.img /loop.bin > got.bin 2> err; rc=$?
	check "cat of a looping chain $size: exit" 4 "$rc"
	cmp -s got.bin <(head -c 4096 hsrc/loop.bin) && ok || bad "cat of a looping chain $size: not its 2 clusters"
	check "cat of a looping chain $size: one line" 1 "$(wc -l < err)"
	grep -q "^fatscope: h.img: /loop.bin: \(the chain loops back to cluster $first after 2 clusters\|4294967295 bytes do not fit in the volume\): only its first 4096 of [0-9]* bytes can be read$" err &&
		ok || bad "cat of a looping chain $size: $(cat err)"
done
rm -rf hx
"$FATSCOPE" extract h.img -o hx > extract.log 2> err; rc=$?
check "extract with a looping chain: exit" 4 "$rc"
cmp -s hx/loop.bin <(head -c 4096 hsrc/loop.bin) && ok || bad "extract: loop.bin is not its bytes up to the loop"
[ -f hx/_.. ] && ok || bad "extract stopped at the looping file"

# ---- 5. extract's refusals; the images never written
rm -rf real link out && mkdir real && ln -s real link
"$FATSCOPE" extract fat.img -o link > /dev/null 2> err; rc=$?
check "extract -o SYMLINK: exit" 8 "$rc"
check "extract -o SYMLINK: nothing in its target" "" "$(ls -A real)"
mkdir -p out elsewhere && ln -s ../elsewhere out/docs
"$FATSCOPE" extract fat.img -o out > /dev/null 2> err; rc=$?
check "extract over a linked directory: exit" 8 "$rc"
check "extract over a linked directory: nothing through the link" "" "$(ls -A elsewhere)"
grep -q 'docs: a symbolic link is in the way' err && ok || bad "extract over a linked directory: $(cat err)"
rm -rf out && mkdir out && printf 'mine\n' > out/README.TXT && printf 'target\n' > target && ln -s ../target out/one.bin
"$FATSCOPE" extract fat.img -o out > /dev/null 2> err; rc=$?
check "extract over existing files: exit" 8 "$rc"
check "extract over existing files: kept" mine "$(cat out/README.TXT)"
check "extract over existing files: link kept" target "$(cat target)"
cmp -s out/docs/sub/deep.bin src/docs/sub/deep.bin && ok || bad "extract over existing files: the rest not written"
"$FATSCOPE" extract --force fat.img -o out > /dev/null 2> err; rc=$?
check "extract --force: exit" 0 "$rc"
cmp -s out/README.TXT src/README.TXT && ok || bad "extract --force: README.TXT not replaced"
[ ! -L out/one.bin ] && cmp -s out/one.bin src/data/one.bin && ok || bad "extract --force: the link not replaced by the file"
check "extract --force: the link's target kept" target "$(cat target)"
"$FATSCOPE" ls -R -a --deleted fat.img > /dev/null
cp fat.img fat-after.img
"$FATSCOPE" extract --deleted --force fat.img -o out > /dev/null 2>&1
cmp -s fat.img fat-after.img && ok || bad "extract changed the image"
finish
