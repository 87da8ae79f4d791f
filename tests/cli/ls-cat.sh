#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ls-cat.sh - fatscope ls, cat and extract against readers that are not
# fatscope's, and the bytes that were put in:
#  1. on the populated fixtures, `fatscope ls -R -a` names exactly the
#     files and directories that The Sleuth Kit's `fls -r` names; every
#     file `fatscope cat` reads equals icat's bytes and the manifest's
#     hash; `fatscope extract` gives the manifest's tree, byte for byte;
#  2. a FAT16 volume made here with mtools: extract equals the source tree
#     (the same bytes, and the modification times kept); files deleted
#     with mdel, some of their clusters then taken by new files (mtools allocates
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
# Few processes: the text of fls, ls and ls -J made comparable (The Sleuth
# Kit's spelling, sorted), the manifest read and the extracted files hashed
# by one perl a fixture (s1_digest), what cat and tsk_recover gave hashed
# by one perl for all; the rest hashed by one sha256sum a step, what
# fatscope prints read by the shell.
. "$(dirname "$0")/lib.sh"

for t in fls icat mkfs.fat mcopy mmd mdel mshowfat cmp perl; do
	command -v "$t" > /dev/null || skip "$t not installed (sleuthkit, dosfstools, mtools, perl)"
done
export TZ=UTC MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"


# ---- 1. the populated fixtures
# For each: fls -r, ls -R -a, ls -R -a -J and extract, each into s1/NAME.*; then s1_digest
# NAME (one perl) writes:
#   NAME.fls-list  inode<TAB>path of every live entry fls -r names (no $-files, no label), in
#                  The Sleuth Kit's spelling (tsk_form below), as
#                  fls | sed -n 's/^[-a-z]\/[-a-z] \([0-9]*\):\t/\1\t/p' | grep -v '\t\$\|/\$\|(Volume Label Entry)$' | tsk_form
#   NAME.fls       its paths (cut -f2-), sorted (LC_ALL=C sort)
#   NAME.ls        ls -R -a's paths: a header "DIR:" first and after each empty line, in tsk_form, sorted
#   NAME.J         ls -R -a -J's .entries[].path, without the leading '/', in tsk_form, sorted
#   NAME.forms     tsk_form of each manifest file's path (without '/'), a line each, in manifest order
#   NAME.x         every path under the extracted tree (find . -mindepth 1, the '.' cut), sorted
#   NAME.m         the manifest's paths, sorted
#   NAME.hashes    FILE NUL SHA256 NUL for every file of the extracted tree.
# Then (the small ones) cat of every file and tsk_recover, into s1/NAME.cat and s1/NAME.tsk, for
# all hashed by s1_digest -t NAME... into s1/trees.hashes.  tsk_form: The Sleuth Kit gives a FAT 8.3 name's bytes over 0x7F as '^'
# and cuts long names short, so every character over 0x7F is '^' and every name at most 200
# (perl -CSD -pe 's/[^\x00-\x7F]/^/g; s{([^/\n]{200})[^/\n]*}{$1}g').
s1_digest() {
	perl -e '
use strict; use warnings;
use Encode qw(decode encode);
use JSON::PP;
use Digest::SHA;
use File::Find;
my $dir = shift;
my $fixtures = shift;
my $hashes;
if ($ARGV[0] eq "-t") {
	shift;
	open($hashes, ">:raw", "$dir/trees.hashes") or die;
	hash_tree("$dir/$_.cat"), hash_tree("$dir/$_.tsk") for @ARGV;
	close $hashes;
	exit 0;
}
sub slurp { my ($f) = @_; open(my $h, "<:raw", $f) or return ""; local $/; my $t = <$h>; return defined $t ? $t : ""; }
sub lines { my $t = slurp($_[0]); return () if $t eq ""; $t .= "\n" unless $t =~ /\n\z/; return split(/(?<=\n)/, $t); }
sub form { my $s = decode("UTF-8", $_[0]); $s =~ s/[^\x00-\x7F]/^/g; $s =~ s{([^/\n]{200})[^/\n]*}{$1}g; return encode("UTF-8", $s); }
sub put { my ($f, @l) = @_; open(my $h, ">:raw", $f) or die "$f: $!"; print $h @l; close $h; }
sub sorted { return sort { $a cmp $b } @_; }
sub hash_tree {
	my ($root) = @_;
	return unless -d $root;
	find({ no_chdir => 1, wanted => sub {
		return unless -f $_ && !-l $_;
		print $hashes $_, "\0", Digest::SHA->new(256)->addfile($_, "b")->hexdigest, "\0";
	} }, $root);
}
for my $name (@ARGV) {
	my $p = "$dir/$name";
	open($hashes, ">:raw", "$p.hashes") or die;
	my @list;
	for my $l (lines("$p.fls.raw")) {
		next unless $l =~ s/^[-a-z]\/[-a-z] ([0-9]*):\t/$1\t/;
		next if $l =~ /\t\$|\/\$|\(Volume Label Entry\)\n?$/;
		push @list, form($l);
	}
	put("$p.fls-list", @list);
	put("$p.fls", sorted(map { my $x = $_; $x =~ s/^[^\t]*\t//; $x } @list));
	my ($d, $prev, @ls) = ("", undef);
	for my $l (lines("$p.ls.raw")) {
		(my $line = $l) =~ s/\n\z//;
		if (!defined $prev || $prev eq "") { $d = substr($line, 0, length($line) - 1); $prev = $line; next; }
		$prev = $line;
		push @ls, form(($d eq "/" ? "" : substr($d, 1) . "/") . $line . "\n") if $line ne "";
	}
	put("$p.ls", sorted(@ls));
	my @j;
	my $json = eval { JSON::PP->new->utf8->decode(slurp("$p.json.raw")) };
	if ($json) { for my $e (@{$json->{entries}}) { (my $x = encode("UTF-8", $e->{path})) =~ s{^/}{}; push @j, form("$x\n"); } }
	put("$p.J", sorted(@j));
	my (@forms, @m);
	for my $l (lines("$fixtures/$name.manifest")) {
		next if $l =~ /^#/;
		(my $line = $l) =~ s/\n\z//;
		my @f = split(/\t/, $line, -1);
		push @m, "$f[0]\n";
		if (defined $f[1] && $f[1] eq "f") { (my $x = $f[0]) =~ s{^/}{}; push @forms, form("$x\n"); }
	}
	put("$p.forms", @forms);
	put("$p.m", sorted(@m));
	my @x;
	if (-d "$p.out") {
		find({ no_chdir => 1, wanted => sub { push @x, substr($_, length("$p.out")) . "\n" if $_ ne "$p.out"; } }, "$p.out");
	}
	put("$p.x", sorted(@x));
	hash_tree("$p.out");
	close $hashes;
}
' s1 "$top_srcdir/tests/fixtures" "$@"
}
mkdir -p s1
names=() catnames=() catted=0
declare -A S=()	# file -> sha256, from s1_digest
# read_hashes FILE: S from a FILE NUL SHA256 NUL list
read_hashes() {
	local f h
	while IFS= read -r -d '' f && IFS= read -r -d '' h; do S[$f]=$h; done < "$1"
}
for name in pop-small pop-fat12 pop-fat16 pop-fat32 pop-many; do
	img="$WORK/img/$name.img"
	manifest="$top_srcdir/tests/fixtures/$name.manifest"
	has_fixture "$name" && [ -f "$manifest" ] || { bad "$name: no fixture or manifest"; continue; }
	names+=("$name")
	fls -r -p -u "$img" > "s1/$name.fls.raw" 2> /dev/null
	"$FATSCOPE" ls -R -a "$img" > "s1/$name.ls.raw"
	"$FATSCOPE" ls -R -a -J "$img" > "s1/$name.json.raw"
	# the whole tree through extract
	"$FATSCOPE" extract "$img" -o "s1/$name.out" > extract.log; rc=$?
	check "$name: extract exit" 0 "$rc"
	s1_digest "$name"
	read_hashes "s1/$name.hashes"
	slurp want "s1/$name.fls"
	slurp got "s1/$name.ls"
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok
	else
		bad "$name: ls -R -a and fls -r name other entries"
		diff "s1/$name.fls" "s1/$name.ls" | head -10
	fi
	# ls -R -J names the same entries
	slurp got "s1/$name.J"
	check "$name: ls -R -a -J" "$want" "$got"
	# the extracted tree against the manifest
	slurp want "s1/$name.m"
	slurp got "s1/$name.x"
	check "$name: extracted paths" "$want" "$got"
	bytes=ok
	while IFS=$'\t' read -r path type _ hash; do
		[[ $path == \#* ]] && continue
		[ "$type" = f ] || continue
		[ "${S[s1/$name.out$path]:-}" = "$hash" ] || bytes=
	done < "$manifest"
	[ -n "$bytes" ] && ok || bad "$name: extracted bytes differ from the manifest"
	# every file of the small ones through cat (a process a file, all hashed at once below);
	# The Sleuth Kit's bytes by one tsk_recover of the volume (icat for a file it did
	# not write at its path: names it spells otherwise)
	case $name in pop-small|pop-fat12|pop-fat16)
		mkdir "s1/$name.cat"
		k=0
		while IFS=$'\t' read -r path type _; do
			[[ $path == \#* ]] && continue
			[ "$type" = f ] || continue
			"$FATSCOPE" cat "$img" "$path" > "s1/$name.cat/$k"
			k=$((k + 1))
		done < "$manifest"
		tsk_recover -a "$img" "s1/$name.tsk" > /dev/null 2>&1
		catnames+=("$name")
	esac
done
[ "${#catnames[@]}" = 0 ] || { s1_digest -t "${catnames[@]}"; read_hashes s1/trees.hashes; }
icats=() ICAT_CHECK=()
for name in ${catnames[@]+"${catnames[@]}"}; do
	# every file cat read, against The Sleuth Kit and the manifest
	img="$WORK/img/$name.img"
	manifest="$top_srcdir/tests/fixtures/$name.manifest"
	declare -A inode=()
	while IFS=$'\t' read -r i path; do inode[$path]=$i; done < "s1/$name.fls-list"
	mapfile -t forms < "s1/$name.forms"
	k=0
	while IFS=$'\t' read -r path type size hash; do
		[[ $path == \#* ]] && continue
		[ "$type" = f ] || continue
		c=${S[s1/$name.cat/$k]:-}
		i=${inode[${forms[k]:-}]:-}
		if [ -n "$i" ] && [ -n "${S[s1/$name.tsk/${path#/}]:-}" ]; then
			i=${S[s1/$name.tsk/${path#/}]}
		elif [ -n "$i" ]; then
			# (icat's bytes: hashed below, all at once)
			[ -f "s1/$name.icat.$i" ] || icat "$img" "$i" > "s1/$name.icat.$i"
			icats+=("s1/$name.icat.$i")
			i=@s1/$name.icat.$i
		fi
		if [[ $i == @* ]]; then
			ICAT_CHECK+=("$name	$path	$c	${i#@}	$hash")
		elif [ "$c" = "$hash" ] && [ "$i" = "$hash" ]; then
			ok
		else
			bad "$name: $path: cat $c, The Sleuth Kit ${i:-(no inode)}, manifest $hash"
		fi
		catted=$((catted + 1)) k=$((k + 1))
	done < "$manifest"
	unset inode
done
if [ "${#icats[@]}" -gt 0 ]; then
	hashes "${icats[@]}"
	for x in "${ICAT_CHECK[@]}"; do
		IFS=$'\t' read -r name path c f hash <<< "$x"
		i=${H[$f]:-}
		if [ "$c" = "$hash" ] && [ "$i" = "$hash" ]; then ok
		else bad "$name: $path: cat $c, The Sleuth Kit ${i:-(no inode)}, manifest $hash"; fi
	done
fi
# the images unchanged (lib.sh: their recorded hashes)
cd "$WORK/img" && unchanged "${names[@]}"
cd "$SCRATCH" || hard_error "no $SCRATCH"
echo "$catted files read through cat and icat"
[ "$catted" -gt 50 ] && ok || bad "only $catted files read through cat"

# ---- 2. a FAT16 volume made here with mtools
# The random sources (they stay in the scratch directory to compare with), and the bytes
# wanted of the partly overwritten ones, by one perl: NAME SIZE, or NAME =zeros:N:FILE (N
# zero bytes then FILE's from byte N on), or NAME =head:N:FILE (FILE's first N bytes).
rnd() {
	perl -e '
open(my $r, "<:raw", "/dev/urandom") or die;
while (@ARGV) {
	my ($f, $n) = splice(@ARGV, 0, 2);
	my $d;
	if ($n =~ /^=zeros:(\d+):(.*)$/) { open(my $h, "<:raw", $2) or die "$2"; local $/; $d = <$h>; $d = "\0" x $1 . substr($d, $1); }
	elsif ($n =~ /^=head:(\d+):(.*)$/) { open(my $h, "<:raw", $2) or die "$2"; local $/; $d = substr(<$h>, 0, $1); }
	else { read($r, $d, $n) == $n or die; }
	open(my $o, ">:raw", $f) or die "$f: $!";
	print $o $d;
	close $o or die;
}' "$@" || hard_error "cannot write $*"
}
rm -rf src fat.img
mkdir -p src/docs/sub src/data src/new hsrc
printf 'hello from the root\n' > src/README.TXT
: > src/data/empty.bin
printf 'x' > src/data/one.bin
# (the victims, the files made after them, section 4's loop.bin, and what is wanted of them: made now)
rnd "src/docs/Long File Name.txt" 1000 src/docs/sub/deep.bin 10240 src/data/big.bin 65536 \
	victim-over.bin 4000 victim-part.bin 8000 victim-intact.bin 6000 n1.bin 4000 n2.bin 2048 \
	want.bin =zeros:2048:victim-part.bin hsrc/loop.bin 6144 loop-want.bin =head:4096:hsrc/loop.bin
find src -exec touch -d '2021-03-04 05:06:08' {} +
touch -d '2019-07-08 09:10:12' src/docs/sub/deep.bin
mkfs.fat -C -F 16 -s 4 --invariant -n LSCAT fat.img 16384 > /dev/null || hard_error "mkfs.fat failed"
# new/ first, so that the files made after the deletions have a directory cluster already
mcopy -s -m -i fat.img src/new src/README.TXT src/docs src/data ::/ || hard_error "mcopy failed"
# the victims (2 KiB clusters): over 2 clusters, part 4, intact 3, then a live file after them
mcopy -m -i fat.img victim-over.bin victim-part.bin victim-intact.bin src/data/one.bin ::/ || hard_error "mcopy failed"
mdel -i fat.img ::/victim-over.bin
mcopy -i fat.img n1.bin ::/new/	# takes victim-over's 2 clusters
mdel -i fat.img ::/victim-part.bin
mcopy -i fat.img n2.bin ::/new/	# takes victim-part's first cluster only
mdel -i fat.img ::/victim-intact.bin
cp src/data/one.bin src/one.bin
cp n1.bin n2.bin src/new/
touch -d '2021-03-04 05:06:08' src/one.bin

# files DIR: FILES is every file under DIR (find DIR -type f), as ./PATH, sorted (LC_ALL=C sort)
files() {
	local f
	local -a l=()
	shopt -s globstar dotglob nullglob
	for f in "$1"/**; do [ -f "$f" ] && [ ! -L "$f" ] && l+=("./${f#"$1"/}"); done
	shopt -u globstar dotglob nullglob
	sorted l ${l[@]+"${l[@]}"}
	printf -v FILES '%s\n' ${l[@]+"${l[@]}"}
	FILES=${FILES%$'\n'}
}
# mtimes DIR...: T[DIR/PATH] is the modification time of each file of src.list under each DIR
# (one stat for all)
declare -A T=()
mtimes() {
	local d f t
	local -a l=()
	for d; do for f in "${src_list[@]}"; do l+=("$d/${f#./}"); T[$d/${f#./}]=; done; done
	while read -r t f; do T[$f]=$t; done < <(stat -c '%Y %n' "${l[@]}" 2> /dev/null)
}
rm -rf out
"$FATSCOPE" extract fat.img -o out > extract.log; rc=$?
check "fat: extract exit" 0 "$rc"
files src
src_files=$FILES
mapfile -t src_list <<< "$src_files"
files out
check "fat: extracted files" "$src_files" "$FILES"
mtimes src out
l=()
for f in "${src_list[@]}"; do l+=("src/${f#./}" "out/${f#./}"); done
hashes "${l[@]}"
for f in "${src_list[@]}"; do
	f=${f#./}
	[ -n "${H[src/$f]}" ] && [ "${H[src/$f]}" = "${H[out/$f]}" ] && ok || bad "fat: ./$f differs"
	case $f in new/*) continue ;; esac	# written by mcopy without -m
	check "fat: ./$f mtime" "${T[src/$f]:-none}" "${T[out/$f]:-none}"
done

# undelete: what ls says, what extract recovers
# states IMAGE DIR PATH...: STATE[PATH] is the recovery ls -J --deleted gives each deleted entry
# PATH of DIR (one ls, one jq)
declare -A STATE=()
states() {
	local img=$1 dir=$2 p v
	shift 2
	for p; do STATE[$p]=; done
	"$FATSCOPE" ls -J --deleted "$img" "$dir" > states.json
	while IFS= read -r -d '' p && IFS= read -r -d '' v; do STATE[$p]+=${STATE[$p]:+$'\n'}$v; done < <(jq -j '
		$ARGS.positional[] as $p | .entries[] | select(.path == $p and .deleted) | "\($p)\u0000\(.recovery)\u0000"' \
		states.json --args "$@" 2> /dev/null)
}
states fat.img / /victim-intact.bin /victim-part.bin /victim-over.bin
check "fat: victim-intact state" intact "${STATE[/victim-intact.bin]}"
check "fat: victim-part state" partial "${STATE[/victim-part.bin]}"
check "fat: victim-over state" overwritten "${STATE[/victim-over.bin]}"
"$FATSCOPE" ls -l --deleted fat.img / > ls.txt
got=
while read -r -a w || [ "${#w[@]}" -gt 0 ]; do	# (awk '$NF == "victim-over.bin" { print $6 }')
	[ "${#w[@]}" -gt 0 ] && [ "${w[-1]}" = victim-over.bin ] && got+=${got:+$'\n'}${w[5]:-}
	w=()
done < ls.txt
check "fat: ls -l --deleted, text" "overwritten" "$got"
"$FATSCOPE" cat --deleted fat.img /victim-intact.bin > got-intact.bin; rc=$?
check "fat: cat --deleted intact exit" 0 "$rc"
"$FATSCOPE" cat --deleted fat.img /victim-part.bin > got-part.bin 2> err; rc=$?
check "fat: cat --deleted partial exit" 1 "$rc"
"$FATSCOPE" cat --deleted fat.img /victim-over.bin > got-over.bin 2> err; rc=$?
check "fat: cat --deleted overwritten exit" 4 "$rc"
[ -f got-over.bin ] && [ ! -s got-over.bin ] && ok || bad "fat: cat --deleted overwritten bytes: not 0"
"$FATSCOPE" cat fat.img /victim-intact.bin > /dev/null 2>&1; rc=$?
check "fat: cat without --deleted finds no deleted file" 8 "$rc"
rm -rf out
"$FATSCOPE" extract --deleted fat.img -o out > extract.log; rc=$?
check "fat: extract --deleted exit (one partial, one overwritten)" 1 "$rc"
hashes got-intact.bin victim-intact.bin got-part.bin want.bin out/victim-intact.bin out/victim-part.bin \
	out/README.TXT src/README.TXT
same() { [ -n "${H[$1]:-}" ] && [ "${H[$1]:-}" = "${H[$2]:-}" ]; }
same got-intact.bin victim-intact.bin && ok || bad "fat: cat --deleted /victim-intact.bin differs from what was deleted"
same got-part.bin want.bin && ok || bad "fat: victim-part.bin: not zeros then the bytes left"
same out/victim-intact.bin victim-intact.bin && ok || bad "fat: extract --deleted: victim-intact.bin"
same out/victim-part.bin want.bin && ok || bad "fat: extract --deleted: victim-part.bin"
[ ! -e out/victim-over.bin ] && ok || bad "fat: extract --deleted wrote the overwritten victim-over.bin"
mapfile -t l < extract.log
got=
for x in "${l[@]}"; do [ "$x" = 'not recovered (overwritten): /victim-over.bin' ] && got=1; done
[ -n "$got" ] && ok || bad "fat: extract does not say victim-over.bin is overwritten"
same out/README.TXT src/README.TXT && ok || bad "fat: extract --deleted: a live file differs"

# ---- 3. exFAT through exfat-fuse
loop= mnt="$SCRATCH/mnt" fuse_done= fuse_pid=
cleanup() {
	[ -n "$mnt" ] && mountpoint -q "$mnt" 2> /dev/null && { umount "$mnt" 2> /dev/null || fusermount -u "$mnt"; }
	[ -n "$loop" ] && losetup -d "$loop" 2> /dev/null
	loop=
}
trap cleanup EXIT
exfat_mount() {
	loop=$(losetup -f --show ex.img 2> /dev/null) && mkdir -p "$mnt" && mount.exfat-fuse "$loop" "$mnt" > /dev/null 2>&1 &&
	{ fuse_pid=$(fuse_daemon "$loop") || fuse_pid=; }
}
exfat_umount() {	# (the image is read next: the daemon's last writes waited for)
	umount "$mnt" 2> /dev/null || fusermount -u "$mnt"
	fuse_wait "$fuse_pid" || hard_error "mount.exfat-fuse still running 60 s after umount"
	losetup -d "$loop"
	loop= fuse_pid=
}
if [ "$(id -u)" = 0 ] && command -v mkfs.exfat > /dev/null && command -v mount.exfat-fuse > /dev/null &&
   [ -c /dev/fuse ] && command -v losetup > /dev/null && rm -f ex.img && truncate -s 32M ex.img &&
   mkfs.exfat -c 4K -L LSCAT ex.img > /dev/null 2>&1 && exfat_mount; then
	mkdir "$mnt/v"
	cp -a src/. "$mnt/"
	rnd ex-part.bin 16000 ex-want.bin =zeros:8192:ex-part.bin m1.bin 8000 m2.bin 8000
	cp victim-over.bin victim-intact.bin ex-part.bin "$mnt/v/"
	# two files interleaved, cluster by cluster: both fragmented (one perl: a chunk an open, append and close)
	perl -e '
open(my $r, "<:raw", "/dev/urandom") or die;
for my $i (1 .. 4) {
	for my $f ("frag.bin", "live.bin") {
		read($r, my $d, 4096) == 4096 or die;
		for my $o ($f, "$ARGV[0]/v/$f") { open(my $h, ">>:raw", $o) or die "$o: $!"; print $h $d; close $h or die; }
	}
}' "$mnt" || hard_error "cannot write the fragmented files"
	exfat_umount
	rm -rf out
	"$FATSCOPE" extract ex.img -o out > extract.log; rc=$?
	check "exfat: extract exit" 0 "$rc"
	mtimes out
	l=(out/v/frag.bin frag.bin out/v/live.bin live.bin)
	for f in "${src_list[@]}"; do l+=("out/${f#./}"); done
	hashes "${l[@]}"
	for f in "${src_list[@]}"; do
		f=${f#./}
		same "src/$f" "out/$f" && ok || bad "exfat: ./$f differs"
		check "exfat: ./$f mtime" "${T[src/$f]:-none}" "${T[out/$f]:-none}"
	done
	same out/v/frag.bin frag.bin && same out/v/live.bin live.bin && ok || bad "exfat: fragmented files differ"
	fls -r -p -u ex.img > s1/ex.fls.raw 2> /dev/null
	"$FATSCOPE" ls -R -a ex.img > s1/ex.ls.raw
	: > s1/ex.json.raw
	s1_digest ex
	rm -f s1/ex.hashes
	slurp want s1/ex.fls
	slurp got s1/ex.ls
	check "exfat: ls -R -a against fls -r" "$want" "$got"
	exfat_mount || hard_error "cannot mount ex.img again"
	rm "$mnt/v/victim-over.bin"
	cp m1.bin "$mnt/new/m1.bin"	# victim-over's two clusters
	rm "$mnt/v/ex-part.bin"
	cp m2.bin "$mnt/new/m2.bin"	# the first two of ex-part's four
	rm "$mnt/v/victim-intact.bin" "$mnt/v/frag.bin"
	exfat_umount
	states ex.img /v /v/victim-intact.bin /v/ex-part.bin /v/victim-over.bin /v/frag.bin
	check "exfat: victim-intact state" intact "${STATE[/v/victim-intact.bin]}"
	check "exfat: ex-part state" partial "${STATE[/v/ex-part.bin]}"
	check "exfat: victim-over state" overwritten "${STATE[/v/victim-over.bin]}"
	# exfat-fuse frees a fragmented file's FAT entries: what is left is the
	# contiguous run from its first cluster, half of it live.bin's
	check "exfat: frag state (exfat-fuse clears its chain)" partial "${STATE[/v/frag.bin]}"
	rm -rf out
	"$FATSCOPE" extract --deleted ex.img /v -o out > extract.log; rc=$?
	check "exfat: extract --deleted exit" 1 "$rc"
	hashes out/v/victim-intact.bin out/v/ex-part.bin ex-want.bin out/v/live.bin
	same out/v/victim-intact.bin victim-intact.bin && ok || bad "exfat: victim-intact.bin recovered otherwise"
	same out/v/ex-part.bin ex-want.bin && ok || bad "exfat: ex-part.bin: not zeros then the bytes left"
	[ -f out/v/frag.bin ] && cmp -s -n 4096 out/v/frag.bin frag.bin && ok || bad "exfat: frag.bin's first cluster"
	same out/v/live.bin live.bin && ok || bad "exfat: extract --deleted: live.bin"
	fuse_done=1
else
	cleanup
	echo "SKIP (part): exFAT through exfat-fuse (needs root, mkfs.exfat, exfat-fuse, /dev/fuse, a loop device)"
fi

# ---- 4. hostile names, '..' and '/', a chain loop: FAT long-name units and FAT entries patched
# lfn_rename IMAGE OLD NEW [OLD NEW]...: each one-part long name OLD (13 characters) becomes NEW (at
# most 13 bytes, one unit each; the rest 0x0000 then 0xFFFF), found by its first 5 characters as
# UTF-16LE units (the first place, as grep -obUaP | head -1); then prints the byte offset of the
# 8.3 entry 'LOOP    BIN'.  One perl for all.
lfn_rename() {
	perl -e '
my $img = shift;
open(my $h, "+<:raw", $img) or die "$img: $!";
my @units = (1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30);
my $data = do { local $/; <$h> };
while (@ARGV) {
	my ($old, $new) = splice(@ARGV, 0, 2);
	my $off = index($data, join("", map { "$_\0" } split(//, substr($old, 0, 5))));
	die "no long name $old in $img\n" if $off < 0;
	$off -= 1;
	for my $i (0 .. 12) {
		my $u = $i < length($new) ? ord(substr($new, $i, 1)) : $i == length($new) ? 0 : 0xffff;
		substr($data, $off + $units[$i], 2) = pack("v", $u);
		seek($h, $off + $units[$i], 0); print $h pack("v", $u);
	}
}
close $h or die;
my $loop = index($data, "LOOP    BIN");
print $loop >= 0 ? "$loop\n" : "\n";' "$@"
}
rm -rf h.img
mkdir -p hsrc
printf 'esc\n' > hsrc/hostile-n.txt
printf 'dot\n' > hsrc/zz-dotdot.txt
printf 'slash\n' > hsrc/slash-a-b.txt
mkfs.fat -C -F 16 -s 4 --invariant -n HOSTILE h.img 16384 > /dev/null || hard_error "mkfs.fat failed"
mcopy -i h.img hsrc/hostile-n.txt hsrc/zz-dotdot.txt hsrc/slash-a-b.txt hsrc/loop.bin ::/
off=$(lfn_rename h.img hostile-n.txt $'ho\e[31m\nst.tx' zz-dotdot.txt '..' slash-a-b.txt '../../x') ||
	hard_error "cannot rename the long names in h.img"
[ -n "$off" ] || hard_error "no LOOP    BIN entry in h.img"
cp h.img h-before.img
for args in "ls -a" "ls -l -a" "ls -R -a" "ls -a --deleted" "ls -J" "dump -t" "dump -l" "extract"; do
	rm -rf hx
	if [ "$args" = extract ]; then
		out=$("$FATSCOPE" extract h.img -o hx 2>&1)
	else
		out=$("$FATSCOPE" $args h.img 2>&1)
	fi
	if [[ $out == *$'\e'* ]]; then bad "fatscope $args: ESC reached the output raw"; else ok; fi
	case $args in ls\ -J|dump*|extract) ;; *)
		mapfile -t l <<< "$out"
		n=0
		for x in "${l[@]}"; do [[ $x == *: ]] || n=$((n + 1)); done	# (grep -vc ':$')
		check "fatscope $args: a line for each entry" 4 "$n" ;;
	esac
done
out=$("$FATSCOPE" ls -a h.img)
mapfile -t l <<< "$out"
got=
for x in "${l[@]}"; do [ "$x" = 'ho\x1b[31m\x0ast.tx' ] && got=1; done
[ -n "$got" ] && ok || bad "ls: the hostile name is not shown escaped: $out"
rm -rf hx && mkdir -p hx/in
"$FATSCOPE" extract h.img -o hx/in > extract.log 2>&1; rc=$?
check "extract of '..' and '/' names: exit" 0 "$rc"
# (ls -A: every name but . and .., sorted as LC_ALL=C)
shopt -s dotglob nullglob
l=(hx/*)
check "extract wrote only inside DIR" "in" "${l[*]#hx/}"
l=(hx/in/*)
shopt -u dotglob nullglob
sorted want '_..' '.._.._x' 'ho_[31m_st.tx' 'loop.bin'
sorted got "${l[@]#hx/in/}"
check "extract: the files in DIR" "${want[*]}" "${got[*]}"
cmp -s hx/in/_.. hsrc/zz-dotdot.txt && ok || bad "extract: the '..' file's bytes"
mapfile -t l < extract.log
r1='' r2=
for x in "${l[@]}"; do
	[ "$x" = 'renamed: /.. -> _..' ] && r1=1
	[[ $x == *'renamed: /../../x -> .._.._x'* ]] && r2=1
done
[ -n "$r1" ] && ok || bad "extract does not list the rename of '..'"
[ -n "$r2" ] && ok || bad "extract does not list the rename of '../../x'"
# a chain loop: loop.bin (3 clusters) gets its second cluster pointing back at its first
first=
x=$(mshowfat -i h-before.img ::/loop.bin)
[[ $x =~ \<([0-9]*)- ]] && first=${BASH_REMATCH[1]}
[ -n "$first" ] || hard_error "mshowfat gave no chain for loop.bin"
read -r rsvd < <(od -An -tu2 -j14 -N2 h.img)
printf -v b '\\x%02x\\x%02x' $((first & 255)) $((first >> 8))
printf "$b" | dd of=h.img bs=1 seek=$((rsvd * 512 + 2 * (first + 1))) conv=notrunc status=none
l=()
for size in "" 1M 4G; do	# FileSize as made, 1 MiB (the loop found within), 4 GiB - 1
	case $size in
	1M) printf '\x00\x00\x10\x00' | dd of=h.img bs=1 seek=$((off + 28)) conv=notrunc status=none ;;
	4G) printf '\xff\xff\xff\xff' | dd of=h.img bs=1 seek=$((off + 28)) conv=notrunc status=none ;;
	esac
	timeout 20 "$FATSCOPE" cat h.img /loop.bin > "got-loop$size.bin" 2> err; rc=$?
	l+=("got-loop$size.bin")
	check "cat of a looping chain $size: exit" 4 "$rc"
	slurp e err
	IFS= read -r -d '' x < err
	x=${x//[!$'\n']/}
	check "cat of a looping chain $size: one line" 1 "${#x}"	# (wc -l)
	mapfile -t w < err
	got=
	for x in "${w[@]}"; do
		[[ $x =~ ^'fatscope: h.img: /loop.bin: '('the chain loops back to cluster '$first' after 2 clusters'|'4294967295 bytes do not fit in the volume')': only its first 4096 of '[0-9]*' bytes can be read'$ ]] && got=1
	done
	[ -n "$got" ] && ok || bad "cat of a looping chain $size: $e"
done
rm -rf hx
"$FATSCOPE" extract h.img -o hx > extract.log 2> err; rc=$?
check "extract with a looping chain: exit" 4 "$rc"
hashes "${l[@]}" loop-want.bin hx/loop.bin
for x in "${l[@]}"; do
	same "$x" loop-want.bin && ok || bad "cat of a looping chain ${x//[!0-9MG]/}: not its 2 clusters"
done
same hx/loop.bin loop-want.bin && ok || bad "extract: loop.bin is not its bytes up to the loop"
[ -f hx/_.. ] && ok || bad "extract stopped at the looping file"

# ---- 5. extract's refusals; the images never written
rm -rf real link out && mkdir real && ln -s real link
"$FATSCOPE" extract fat.img -o link > /dev/null 2> err; rc=$?
check "extract -o SYMLINK: exit" 8 "$rc"
shopt -s dotglob nullglob
l=(real/*)
check "extract -o SYMLINK: nothing in its target" "" "${l[*]}"
mkdir -p out elsewhere && ln -s ../elsewhere out/docs
"$FATSCOPE" extract fat.img -o out > /dev/null 2> err; rc=$?
check "extract over a linked directory: exit" 8 "$rc"
l=(elsewhere/*)
shopt -u dotglob nullglob
check "extract over a linked directory: nothing through the link" "" "${l[*]}"
slurp e err
[[ $e == *'docs: a symbolic link is in the way'* ]] && ok || bad "extract over a linked directory: $e"
rm -rf out && mkdir out && printf 'mine\n' > out/README.TXT && printf 'target\n' > target && ln -s ../target out/one.bin
"$FATSCOPE" extract fat.img -o out > /dev/null 2> err; rc=$?
check "extract over existing files: exit" 8 "$rc"
slurp x out/README.TXT
check "extract over existing files: kept" mine "$x"
slurp x target
check "extract over existing files: link kept" target "$x"
hashes out/docs/sub/deep.bin
same out/docs/sub/deep.bin src/docs/sub/deep.bin && ok || bad "extract over existing files: the rest not written"
"$FATSCOPE" extract --force fat.img -o out > /dev/null 2> err; rc=$?
check "extract --force: exit" 0 "$rc"
hashes out/README.TXT out/one.bin src/data/one.bin
same out/README.TXT src/README.TXT && ok || bad "extract --force: README.TXT not replaced"
[ ! -L out/one.bin ] && same out/one.bin src/data/one.bin && ok || bad "extract --force: the link not replaced by the file"
slurp x target
check "extract --force: the link's target kept" target "$x"
"$FATSCOPE" ls -R -a --deleted fat.img > /dev/null
cp fat.img fat-after.img
"$FATSCOPE" extract --deleted --force fat.img -o out > /dev/null 2>&1
cmp -s fat.img fat-after.img && ok || bad "extract changed the image"
finish
