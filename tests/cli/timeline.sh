#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.sh - fatscope ls -R --bodyfile against The Sleuth Kit, on every
# populated fixture (exFAT, FAT12, FAT16, FAT32; TZ=UTC, in which the FAT
# times and fls's exFAT times are taken):
#  1. every line has the 11 fields of TSK 3.x's body file; two runs give
#     the same bytes; the inode column is the entry's byte offset on the
#     volume, as ls -J gives entry_offset, for every entry (deleted too);
#  2. fls -r -m / lists the same paths with the same sizes, modes and
#     times, but for the differences of The Sleuth Kit listed (and
#     counted) below, each with its reason;
#  3. mactime -b reads it: every path with a time is in its timeline, at
#     the times fatscope gave (one checked to the second);
#  4. an exFAT UTC offset (README.txt's patched to +02:00 and -15:00)
#     moves the times by that offset, which fls does not apply.
# Without fls and mactime (sleuthkit) parts 2 and 3 are skipped (said).
. "$(dirname "$0")/lib.sh"

for t in jq perl; do
	command -v "$t" > /dev/null || skip "$t not installed"
done
has_tsk=1
command -v fls > /dev/null && command -v mactime > /dev/null || has_tsk=
[ -n "$has_tsk" ] || echo "SKIP (part): fls and mactime not installed (sleuthkit): parts 2 and 3"
export TZ=UTC
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"

# The differences of The Sleuth Kit (4.11) on these fixtures, applied in compare() below:
#  - fls lists its own virtual files: $MBR, $FAT1, $FAT2, $OrphanFiles (and
#    on exFAT $ALLOC_BITMAP, $UPCASE_TABLE, which are not directory entries
#    of files): left out;
#  - its inode numbers are its own (a slot number): fatscope's are the
#    entry's byte offset, checked against ls -J in part 1 instead;
#  - a FAT label is padded with spaces to 11 and fls gives it the label
#    entry's times and, on exFAT, a mode of its own: labels compared by name;
#  - fls drops exFAT's 10-millisecond field, which adds up to 1.99 s: its
#    modification and creation times may be 1 s earlier;
#  - fls shows a byte of a FAT 8.3 name over 0x7F as '^': such names are
#    compared with every character over 0x7F as '^';
#  - fls names the lost first byte of a deleted FAT 8.3 entry '_',
#    fatscope '?' (when no long name gives it back);
#  - fls cuts a FAT long name to 247 characters;
#  - pop-c512 /dir-04/file-with-a-longer-name-064.txt: fls gives the size of
#    another entry (dir-05's 2048): its entry set continues in a cluster
#    that is not the next one (62 sets do so on pop-c512), which fls reads
#    from the next one;
#  - fls ignores exFAT's UTC offsets (part 4).
known='pop-c512|/dir-04/file-with-a-longer-name-064.txt|size'

# compare FLS-BODY OUR-BODY FAMILY NAME: a line per difference left, then "N compared".
compare() {
	perl -CSD -e '
	use strict; use warnings;
	my ($tskf, $ourf, $fam, $name, $known) = @ARGV;
	my %known = map { $_ => 1 } split /\n/, $known;
	sub rd { open my $h, "<:utf8", $_[0] or die; my @l = <$h>; chomp @l; @l }
	sub form { my $p = shift; $p =~ s/[^\x00-\x7F]/^/g; $p }
	my (%tsk, %our);
	for (rd($tskf)) {
		my @f = split /\|/, $_, -1;
		next if $f[1] =~ m{^/\$(MBR|FAT\d|OrphanFiles|ALLOC_BITMAP|UPCASE_TABLE)(/|$)};
		$f[1] =~ s/ +\(Volume Label Entry\)$/ (Volume Label Entry)/;
		$tsk{form($f[1])} = \@f;
	}
	for (rd($ourf)) {
		my @f = split /\|/, $_, -1;
		$f[1] =~ s{/\?([^/]*) \(deleted\)$}{/_$1 (deleted)} if $fam ne "exfat";
		$our{form($f[1])} = \@f;
	}
	my $n = 0;
	for my $k (sort keys %tsk) {
		my $t = $tsk{$k};
		my $ok = $k;
		if (!$our{$k} && $fam ne "exfat" && $k =~ m{/([^/]*?)( \(deleted\))?$} && length($1) == 247) {
			my ($base, $del) = ($`, $2 // "");	# fls cut the name: ours is longer
			my $stem = "$base/$1";
			($ok) = grep { index($_, $stem) == 0 && ($del ne "") == /\(deleted\)$/ } keys %our;
			$ok //= $k;
		}
		my $o = $our{$ok};
		if (!$o) { print "only in fls: $t->[1]\n"; next; }
		delete $our{$ok};
		$n++;
		my @why;
		push @why, "name" if $t->[1] !~ /\^/ && $ok eq $k && $t->[1] ne $o->[1];
		unless ($t->[1] =~ /\(Volume Label Entry\)$/) {
			push @why, "size" if $t->[6] ne $o->[6];
			push @why, "mode" if $t->[3] ne $o->[3];
			push @why, "atime" if $t->[7] ne $o->[7];
			push @why, "ctime" if $t->[9] ne $o->[9];
			for my $i (8, 10) {
				my $d = $o->[$i] - $t->[$i];
				push @why, $i == 8 ? "mtime" : "crtime" unless $d == 0 || ($fam eq "exfat" && $d == 1);
			}
		}
		@why = grep { !$known{"$name|$o->[1]|$_"} } @why;
		print "differs (@why): $o->[1]: fls $t->[6] $t->[3] $t->[7] $t->[8] $t->[10], ",
		      "fatscope $o->[6] $o->[3] $o->[7] $o->[8] $o->[10]\n" if @why;
	}
	print "only in fatscope: $our{$_}->[1]\n" for sort keys %our;
	print "$n compared\n";
	' "$1" "$2" "$3" "$4" "$known"
}

for name in pop-small pop-c512 pop-c32m pop-many pop-full pop-fat12 pop-fat16 pop-fat32; do
	has_fixture "$name" || { bad "$name: no fixture"; continue; }
	img=$WORK/img/$name.img
	family=fat
	[[ $name == pop-fat* ]] || family=exfat
	# 1. the format, the same bytes twice, the inode column
	"$FATSCOPE" ls -R --bodyfile "$img" > body; rc=$?
	check "$name: exit" 0 "$rc"
	shape=$(awk -F'|' 'NF != 11 && n++ < 3 { print "not 11 fields: " $0 } END { print NR " lines" }' body)
	lines=${shape##*$'\n'}
	shape=${shape%"$lines"}
	check "$name: lines without 11 fields" "" "${shape%$'\n'}"
	lines=${lines%% *}
	[ "$lines" -gt 5 ] && ok || bad "$name: $lines lines"
	"$FATSCOPE" ls -R --bodyfile "$img" > body2
	cmp -s body body2 && ok || bad "$name: a second run gives other lines"
	want=$("$FATSCOPE" ls -R -a --deleted -J "$img" |
	       jq -r '.entries[] | "\(.path)\(if .deleted then " (deleted)" else "" end)|\(.entry_offset)"' | LC_ALL=C sort)
	got=$(grep -v '(Volume Label Entry)|' body | cut -d'|' -f2,3 | LC_ALL=C sort)
	check "$name: the inode column is entry_offset" "$want" "$got"
	[ -n "$has_tsk" ] || continue
	# 2. fls -m
	fls -r -m / "$img" > fls.body 2> /dev/null || bad "$name: fls failed"
	out=$(compare fls.body body "$family" "$name")
	check "$name: against fls -r -m /" "" "$(grep -v ' compared$' <<< "$out")"
	n=${out##*$'\n'}
	n=${n%% *}
	[ "${n:-0}" -ge 6 ] && ok || bad "$name: only ${n:-0} entries compared with fls"
	# 3. mactime -b: every path with a time is in the timeline
	mactime -b body -d -z UTC > timeline.csv 2> mactime.err; rc=$?
	check "$name: mactime -b exit" 0 "$rc"
	check "$name: mactime -b: no complaint" "" "$(< mactime.err)"
	want=$(awk -F'|' '$8 + $9 + $10 + $11 > 0 { print $2 }' body | LC_ALL=C sort -u)
	got=$(tail -n +2 timeline.csv | cut -d, -f8- | sed 's/^"\(.*\)"$/\1/' | LC_ALL=C sort -u)
	check "$name: mactime's paths" "$want" "$got"
done

# 3. one time to the second: pop-small's README.txt, modified 2020-01-02 03:04:05 UTC (10 ms field 100)
"$FATSCOPE" ls --bodyfile "$WORK/img/pop-small.img" / > body
check "README.txt's line" "0|/README.txt|2109536|r/rrwxrwxrwx|0|0|89|1577934244|1577934245|0|1577934245" \
	"$(grep '|/README.txt|' body)"
if [ -n "$has_tsk" ]; then
	check "README.txt in mactime (no ctime: mactime's own line for 0)" \
		"$(printf '%s,89,%s,r/rrwxrwxrwx,0,0,2109536,"/README.txt"\n' 'Xxx Xxx 00 0000 00:00:00' ..c. \
			'Thu Jan 02 2020 03:04:04' .a.. 'Thu Jan 02 2020 03:04:05' m..b)" \
		"$(mactime -b body -d -z UTC | grep ',"/README.txt"$')"
fi

# 4. an exFAT UTC offset: README.txt modified at +02:00, created at -15:00 (0xC4: -60 quarter hours)
cp "$WORK/img/pop-small.img" utc.img
off=2109536
patch_py set utc.img $((off + 22)) c488 && patch_py exfat-setsum utc.img $off || hard_error "cannot patch utc.img"
check "UTC offsets applied" "0|/README.txt|2109536|r/rrwxrwxrwx|0|0|89|1577934244|1577927045|0|1577988245" \
	"$("$FATSCOPE" ls --bodyfile utc.img / | grep '|/README.txt|')"
if [ -n "$has_tsk" ]; then	# (said above: fls takes the times as local ones)
	check "fls ignores them" "1577934244|1577934244|0|1577934244" \
		"$(fls -m / utc.img | grep '|/README.txt|' | cut -d'|' -f8-)"
fi
rm -f body body2 fls.body timeline.csv mactime.err utc.img
finish
