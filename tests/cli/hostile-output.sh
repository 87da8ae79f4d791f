#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hostile-output.sh - names and labels made of hostile bytes never reach a
# terminal raw (issue 14, "Output a hostile image cannot abuse"):
#  1. an exFAT volume (a copy of pop-small) whose label holds ESC, a
#     newline, '"' and '\', one file name ESC[31m, newline, '"', '\' and an
#     unpaired surrogate (0xD800), a directory name a tab and ESC (name
#     entries patched in place, NameHash and SetChecksum recomputed);
#  2. a FAT16 volume (mkfs.fat + mtools) with the same in a long name, a
#     directory's long name with a tab and ESC, an 8.3 name holding 0x01,
#     0x1B, 0x7F and 0xFF, and a label (BS_VolLab and the root's label
#     entry) with ESC, newline, '"', '\', 0x7F and 0xFF;
#  3. every command and its main options run on both: stdout and stderr
#     (apart) hold no byte below 0x20 other than newline and tab, no 0x7F,
#     and are valid UTF-8; fsck -C's progress descriptor too; the exit
#     status is the documented one; each -J output parses with jq and
#     gives back the hostile name (a control byte escaped as \u00XX in
#     the JSON text, never raw); extract makes no host name with a control
#     byte.
. "$(dirname "$0")/lib.sh"

for t in jq mkfs.fat mcopy iconv xxd python3; do
	command -v "$t" > /dev/null || skip "$t not installed (jq, dosfstools, mtools, glibc iconv, xxd, python3)"
done
export TZ=UTC MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
mkdir k
patch() { patch_py "$@" || hard_error "patch.py $* failed"; }
# u16 TEXT: TEXT as UTF-16LE, in hex.
u16() { printf '%s' "$1" | iconv -f UTF-8 -t UTF-16LE | xxd -p | tr -d '\n'; }

# clean WHAT FILE: FILE holds no control byte but newline and tab, and is valid
# UTF-8.  Checked at the end for every FILE at once (clean_all: one grep,
# one iconv), a check each: a process or three a file added up.
clean_what=() clean_file=()
clean() {
	clean_what+=("$1")
	clean_file+=("$2")
}
clean_all() {
	local i n line
	local -A ctl=()
	while IFS= read -r line; do	# "FILE:COUNT" of lines with a control byte
		ctl[${line%:*}]=${line##*:}
	done < <(LC_ALL=C grep -caP '[\x00-\x08\x0b-\x1f\x7f]' "${clean_file[@]}")
	iconv -f UTF-8 -t UTF-8 "${clean_file[@]}" > /dev/null 2>&1 && n=0 || n=1
	for i in "${!clean_file[@]}"; do
		check "${clean_what[$i]}: lines with control bytes" 0 "${ctl[${clean_file[$i]}]:-missing}"
		if [ "$n" = 0 ] || iconv -f UTF-8 -t UTF-8 < "${clean_file[$i]}" > /dev/null 2>&1; then ok
		else bad "${clean_what[$i]}: invalid UTF-8"; fi
	done
}
# run WANT-STATUS WHAT ARGS...: fatscope ARGS (at most 20 s of CPU), stdout in $out,
# stderr in $err (files of their own: they are checked clean at the end).
runs=0
run() {
	local want=$1 what=$2 rc
	shift 2
	runs=$((runs + 1))
	out=k/$runs.out err=k/$runs.err
	(ulimit -t 20; exec "$FATSCOPE" "$@") > "$out" 2> "$err"; rc=$?
	check "$what: exit status" "$want" "$rc"
	clean "$what: stdout" "$out"
	clean "$what: stderr" "$err"
}
# json WHAT: $out parses as one JSON value (not empty) and holds no raw control byte.
json() {
	if [ -s "$out" ] && jq -e . "$out" > /dev/null 2>&1; then ok; else bad "$1: stdout is not JSON"; fi
}

# ---- 1. the exFAT volume
x=x.img
cp "$WORK/img/pop-small.img" "$x" || hard_error "no pop-small.img"
xname=$'evil\e[31m\n"\\'	# then U+D800 unpaired, then $xtail: 30 units, as the name it replaces
xtail='-hostile-file.txt'
xdir=$'d\tir\e[1m!'		# 9 units, as empty-dir
xlabel=$'\e[31m\n"\\'
# at IMAGE BYTES: the one offset where BYTES (grep -P form) lie in IMAGE (found without fatscope).
at() {
	local o
	o=$(LC_ALL=C grep -obUaP "$2" "$1" | cut -d: -f1)
	[ -n "$o" ] && [ "$(wc -l <<< "$o")" = 1 ] || hard_error "$1: not one place holds $2"
	echo "$o"
}
# grep -P form of TEXT in UTF-16LE
u16p() { u16 "$1" | sed 's/../\\x&/g'; }
# the primary entry of a set: its first name entry's units start 2 bytes in, 64 bytes after the primary
off=$(( $(at "$x" "$(u16p a-name-of-exact)") - 66 ))
hex="$(u16 "$xname")00d8$(u16 "$xtail")"
[ ${#hex} = 120 ] || hard_error "the hostile exFAT name is not 30 units"
patch set "$x" $((off + 32 * 2 + 2)) "${hex:0:60}"	# the name entries' 15 units each
patch set "$x" $((off + 32 * 3 + 2)) "${hex:60:60}"
patch exfat-namehash "$x" "$off"
patch exfat-setsum "$x" "$off"
off=$(( $(at "$x" "$(u16p empty-dir)") - 66 ))
hex=$(u16 "$xdir")
[ ${#hex} = 36 ] || hard_error "the hostile exFAT directory name is not 9 units"
patch set "$x" $((off + 32 * 2 + 2)) "$hex"
patch exfat-namehash "$x" "$off"
patch exfat-setsum "$x" "$off"
eval "$(patch exfat-info "$x" | grep '^LABEL_ENTRY=')"
patch set "$x" "$LABEL_ENTRY" "83$(printf %02x ${#xlabel})$(u16 "$xlabel")"

# ---- 2. the FAT16 volume
f=f.img
mkdir -p src/dir-tab-name
printf 'readme\n' > src/README.TXT
printf 'hostile\n' > src/hostile-n.txt
printf 'inner\n' > src/dir-tab-name/inner.txt
mkfs.fat -C -F 16 -s 4 --invariant -n HOSTILE "$f" 16384 > /dev/null || hard_error "mkfs.fat failed"
mcopy -s -i "$f" src/README.TXT src/hostile-n.txt src/dir-tab-name ::/ || hard_error "mcopy failed"
# lfn_units IMAGE OFFSET HEX: the long-name entry at OFFSET gets the UTF-16LE units HEX (13 at most).
lfn_units() {
	local units=(1 3 5 7 9 14 16 18 20 22 24 28 30) i pairs=()
	for ((i = 0; i < ${#3} / 4; i++)); do
		pairs+=($(($2 + units[i])) "${3:$((4 * i)):4}")
	done
	patch set "$1" "${pairs[@]}"	# (one python a name)
}
fname=$'ho\e[31m\n"\\'	# then U+D800 unpaired, then "tx": 13 units, as hostile-n.txt
fdir=$'d\tir\e[1m!-dir'	# 12 units, as dir-tab-name
flabel='48 1b 0a 22 5c 7f ff 4c 20 20 20'	# H ESC NL " \ DEL 0xFF L
fshort='52 01 1b 7f ff 4d 45 20'		# R 0x01 ESC DEL 0xFF M E: README.TXT's 8.3 name
off=$(at "$f" 'HOSTIL~1TXT')		# the 8.3 entry; its one long-name entry before it
lfn_units "$f" $((off - 32)) "$(u16 "$fname")00d8$(u16 tx)"
off=$(at "$f" 'DIR-TA~1   ')
lfn_units "$f" $((off - 32)) "$(u16 "$fdir")"
off=$(at "$f" 'README  TXT')
patch set "$f" "$off" "${fshort// /}"
patch set "$f" 43 "${flabel// /}"		# BS_VolLab first: then one label is left, the root's entry
patch set "$f" "$(at "$f" 'HOSTILE    ')" "${flabel// /}"

# ---- 3. every command on both volumes
# path_of IMAGE DIR PREFIX: the path of DIR's entry whose name starts with PREFIX, as ls -J gives it.
path_of() {
	"$FATSCOPE" ls -J "$1" "$2" | jq -r --arg p "$3" '[.entries[] | select(.name | startswith($p))][0].path // empty'
}
# checkv WHAT WANT GOT: check, the two shown with cat -v when they differ (they hold control bytes).
checkv() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$(printf %s "$3" | cat -v)', want '$(printf %s "$2" | cat -v)'"; fi
}
# jcheck WHAT FILTER WANT [P]: $out is JSON (one jq: a parse error fails it), and through
# jq -r FILTER ($p: P) gives WANT.
jcheck() {
	local got
	if [ -s "$out" ] && got=$(jq -r --arg p "${4:-}" "$2" "$out" 2> /dev/null); then ok; else bad "$1: stdout is not JSON"; fi
	checkv "$1: $2" "$3" "$got"
}
# The check descriptions name the hostile paths FILE and DIR: this script's own output stays clean.
args() {
	local a
	for a in "$@"; do
		case $a in
		"$file") printf ' FILE' ;;
		"$dir") printf ' DIR' ;;
		*) printf ' %s' "$a" ;;
		esac
	done
}
# fs ARGS...: run, described by the arguments, with WANT-STATUS $rc_want and the image last.
fs() {
	run "$rc_want" "$img:$(args "$@")" "$@" "$img"
}

for img in "$x" "$f"; do
	case $img in
	"$x")
		file=$(path_of "$x" /names evil)
		dir=$(path_of "$x" / 'd	')
		want_file="/names/$xname\\uD800$xtail"	# an unpaired surrogate is the text \uD800 (fatscope-dump(8))
		want_dir="/$xdir"
		want_label=$xlabel
		# the manifest's SHA256 of the file renamed
		want_sum=$(awk -F'\t' '$1 == "/names/a-name-of-exactly-thirty-chars" { print $4 }' \
			"$top_srcdir/tests/fixtures/pop-small.manifest")
		want_id=EXFAT_NAME_CHARS want_finding="/names/$xname"
		risk_all=0 files=37 ;;
	"$f")
		file=$(path_of "$f" / ho)
		dir=$(path_of "$f" / 'd	')
		want_file="/$fname\\uD800tx"
		want_dir="/$fdir"
		want_label='H??"\??L'	# FAT labels: bytes that are not printable ASCII become '?'
		want_sum=$(sha256sum < src/hostile-n.txt | cut -d' ' -f1)
		want_id=FAT_SHORT_NAME want_finding=$(path_of "$f" / R)
		checkv "$img: ls -J gives the 8.3 name" "/R??"$'\x7f\xc2\xa0'"ME.TXT" "$want_finding"	# 0xFF: U+00A0 in code page 850
		risk_all=1 files=3 ;;	# --drivers all: staging-5.4-vfat would take a FAT volume
	esac
	checkv "$img: ls -J gives the hostile file's path" "$want_file" "$file"
	checkv "$img: ls -J gives the hostile directory's path" "$want_dir" "$dir"
	clu=$("$FATSCOPE" ls -J "$img" "${file%/*}/" | jq -r --arg p "$file" '.entries[] | select(.path == $p) | .first_cluster')
	check "$img: the hostile file has a first cluster" 1 "$([ "${clu:-0}" -ge 2 ] && echo 1)"

	# probe
	rc_want=0
	fs probe
	fs probe -s
	fs probe -r
	fs probe -o VOLUME,TYPE,LABEL
	fs probe -n -r -o LABEL,TYPE,DRIVER
	rc_want=$risk_all fs probe --drivers all
	fs probe -J
	jcheck "$img: probe -J" '.volumes[0].label' "$want_label"
	if [ "$img" = "$x" ]; then
		grep -qF '"label": "\u001b[31m\n\"\\"' "$out" && ok || bad "$img: probe -J: the label not escaped as RFC 8259 says"
	fi

	# dump, in text and in JSON (but the hex dump of a sector); --cluster of a NoFatChain
	# file follows the FAT, where its cluster is free: exit 4, as fatscope-dump(8) says
	for a in "" -b -s -t -l -d --path=file --path=dir --cluster --owner --sector; do
		case $a in
		--path=file) opt=(--path "$file") ;;
		--path=dir) opt=(--path "$dir") ;;
		--cluster|--owner) opt=("$a" "$clu") ;;
		--sector) opt=(--sector 0) ;;
		"") opt=() ;;
		*) opt=("$a") ;;
		esac
		rc_want=0
		[ "$a" = --cluster ] && [ "$img" = "$x" ] && rc_want=4
		fs dump "${opt[@]}"
		[ "$a" = --sector ] && continue
		fs dump -J "${opt[@]}"
		json "$img: dump -J$(args "${opt[@]}")"
	done
	rc_want=0
	fs dump -J --path "$file"
	jcheck "$img: dump -J --path FILE" '.extents.path' "$file"
	fs dump -J -t
	jcheck "$img: dump -J -t: the hostile name" \
		'[.. | objects | select(.path? == $p) | .name] | first // empty' "${file##*/}" "$file"

	# ls
	for a in "-l" "-a" "-R" "-d" "-l -a -R -d"; do
		# shellcheck disable=SC2086
		fs ls $a
	done
	run 0 "$img: ls -l DIR" ls -l "$img" "$dir"
	run 0 "$img: ls -l FILE" ls -l "$img" "$file"
	fs ls -J -R -a -d
	json "$img: ls -J -R -a -d"
	run 0 "$img: ls -J (the file's directory)" ls -J "$img" "${file%/*}/"
	jcheck "$img: ls -J: the hostile name" '.entries[] | select(.path == $p) | .name' "${file##*/}" "$file"
	if [ "$img" = "$x" ]; then
		grep -qF '"name": "evil\u001b[31m\n\"\\\\uD800-hostile-file.txt"' "$out" && ok ||
			bad "$img: ls -J: the name not escaped as RFC 8259 says"
	fi

	# cat: stdout is the file's bytes by design
	runs=$((runs + 1)) err=k/$runs.err
	(ulimit -t 20; exec "$FATSCOPE" cat "$img" "$file") > got 2> "$err"; rc=$?
	check "$img: cat FILE: exit status" 0 "$rc"
	clean "$img: cat FILE: stderr" "$err"
	check "$img: cat FILE: the file's bytes" "$want_sum" "$(sha256sum < got | cut -d' ' -f1)"

	# fsck: the names are findings (exit 4); -y renames or clears them (exit 1), then clean
	rc_want=4
	fs fsck -n
	fs fsck -n -v
	fs fsck -n -f
	fs fsck -p --dry-run
	fs fsck -n -J
	json "$img: fsck -n -J"
	# the finding's path, decoded: fsck's own names give an unpaired surrogate as U+FFFD, not as
	# ls's \uD800 (so on exFAT only the part before it is compared), and on FAT the long name's
	# finding names the directory: the 8.3 name's finding is compared
	check "$img: fsck -n -J: a finding $want_id on the hostile name" 1 \
		"$(jq --arg id "$want_id" --arg w "$want_finding" \
			'[.findings[] | select(.id == $id) | .location.path | select(startswith($w))] | length' "$out")"
	runs=$((runs + 1)) out=k/$runs.out err=k/$runs.err
	(ulimit -t 20; exec "$FATSCOPE" fsck -n -C 3 "$img") > "$out" 2> "$err" 3> "k/$runs.progress"; rc=$?
	check "$img: fsck -C 3: exit status" 4 "$rc"
	clean "$img: fsck -C 3: stdout" "$out"
	clean "$img: fsck -C 3: stderr" "$err"
	clean "$img: fsck -C 3: the progress descriptor" "k/$runs.progress"
	[ -s "k/$runs.progress" ] && ok || bad "$img: fsck -C 3 wrote no progress line"
	cp "$img" y.img
	run 1 "$img: fsck -y (a copy)" fsck -y y.img
	run 0 "$img: fsck -n after fsck -y" fsck -n y.img
	cp "$img" y.img
	run 1 "$img: fsck -y -J (a copy)" fsck -y -J y.img
	json "$img: fsck -y -J"

	# extract
	rm -rf xo
	run 0 "$img: extract -o DIR" extract "$img" -o xo
	check "$img: extract: host names with a control byte" "" "$(find xo -name '*[[:cntrl:]]*')"
	check "$img: extract: files written" "$files" "$(find xo -type f | wc -l)"

	# scan
	rc_want=0
	fs scan
	fs scan -r -o OFFSET,TYPE,LABEL
	fs scan -J
	jcheck "$img: scan -J" '.volumes[0].label' "$want_label"

	# label: shown, a change tried, one made and undone on a copy
	fs label
	fs label -J
	jcheck "$img: label -J" '.label' "$want_label"
	run 0 "$img: label --dry-run NEWLABEL" label --dry-run "$img" NEWLABEL
	cp "$img" y.img && rm -f y.undo
	run 0 "$img: label --undo (a copy)" label --undo y.undo y.img NEWLABEL
	run 0 "$img: undo" undo y.undo y.img
	cmp -s "$img" y.img && ok || bad "$img: undo did not restore the image"

	# error messages: a path that is not there, or an option's value, echoed escaped
	# (not an unknown option: getopt_long's own message prints it raw, left to do)
	run 8 "$img: dump --path (missing, with ESC)" dump --path "$file-missing" "$img"
	run 8 "$img: cat (missing, with ESC)" cat "$img" "$file-missing"
	run 8 "$img: ls (missing, with ESC)" ls "$img" "$file-missing"
	grep -qF 'evil\x1b[31m\x0a' "$err" || grep -qF 'ho\x1b[31m\x0a' "$err" && ok || bad "$img: ls: the missing path not shown escaped"
	run 16 "$img: dump --cluster (ESC)" dump --cluster $'1\e[31m' "$img"
done
clean_all
finish
