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
# Few processes: both volumes are patched by one python3 (patch.py's
# commands called in it), every JSON check is queued and run by one jq at
# the end (as the control bytes by one grep and one iconv), the rest read
# by the shell; the first check that needs fatscope comes right after the
# volumes are made.
. "$(dirname "$0")/lib.sh"

for t in jq mkfs.fat mcopy iconv python3; do
	command -v "$t" > /dev/null || skip "$t not installed (jq, dosfstools, mtools, glibc iconv, python3)"
done
export TZ=UTC MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0
prepare_fixtures
cd "$SCRATCH" || hard_error "no $SCRATCH"
mkdir k

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
# JSON checks, queued (jq_all runs them all in one jq, each on its own file's text, so that
# one that does not parse fails alone):
# json WHAT: $out parses as one JSON value (not empty, not null or false: jq -e .);
# jcheck WHAT FILTER WANT [P]: $out is JSON, and through jq -r FILTER ($p: P) gives WANT
# (the results a line each, as jq -r prints them; a check each).
jq_what=() jq_file=() jq_filter=() jq_want=() jq_p=() jq_mode=()
json() { jq_what+=("$1") jq_file+=("$out") jq_filter+=(.) jq_want+=("") jq_p+=("") jq_mode+=(json); }
jcheck() { jq_what+=("$1") jq_file+=("$out") jq_filter+=("$2") jq_want+=("$3") jq_p+=("${4:-}") jq_mode+=(check); }
jq_all() {
	local i prog='' args=() id r
	local -A res=()
	for i in "${!jq_file[@]}"; do
		args+=(--rawfile "s$i" "${jq_file[i]}" --arg "p$i" "${jq_p[i]}")
		# "I\0" then 1 and the results (a string as it is, else its JSON), a line each; 0 when it does not parse
		prog+="${prog:+, }(\"$i\u0000\" + (\$p$i as \$p | try (\$s$i | fromjson | [${jq_filter[i]}] |
			map(if type == \"string\" then . else tojson end) | \"1\" + join(\"\\n\")) catch \"0\") + \"\u0000\")"
	done
	[ -n "$prog" ] || return
	while IFS= read -r -d '' id && IFS= read -r -d '' r; do
		res[$id]=$r
	done < <(jq -n -j "${args[@]}" "$prog" 2> /dev/null)
	for i in "${!jq_file[@]}"; do
		r=${res[$i]:-0}
		if [ "${jq_mode[i]}" = json ]; then
			[ -s "${jq_file[i]}" ] && [ "${r:0:1}" = 1 ] && [ "$r" != 1null ] && [ "$r" != 1false ] && ok ||
				bad "${jq_what[i]}: stdout is not JSON"
		else
			if [ -s "${jq_file[i]}" ] && [ "${r:0:1}" = 1 ]; then ok; else bad "${jq_what[i]}: stdout is not JSON"; fi
			r=${r:1}
			while [[ $r == *$'\n' ]]; do r=${r%$'\n'}; done	# (as $(jq -r ...))
			checkv "${jq_what[i]}: ${jq_filter[i]}" "${jq_want[i]}" "$r"
		fi
	done
}
# has FILE TEXT: FILE holds TEXT (grep -qF, in the shell)
has() {
	local t=
	IFS= read -r -d '' t < "$1"
	[[ $t == *"$2"* ]]
}

# ---- 1. the exFAT volume (a copy of pop-small, its names patched)
x=x.img
cp "$WORK/img/pop-small.img" "$x" || hard_error "no pop-small.img"
xname=$'evil\e[31m\n"\\'	# then U+D800 unpaired, then $xtail: 30 units, as the name it replaces
xtail='-hostile-file.txt'
xdir=$'d\tir\e[1m!'		# 9 units, as empty-dir
xlabel=$'\e[31m\n"\\'

# ---- 2. the FAT16 volume
f=f.img
mkdir -p src/dir-tab-name
printf 'readme\n' > src/README.TXT
printf 'hostile\n' > src/hostile-n.txt
printf 'inner\n' > src/dir-tab-name/inner.txt
mkfs.fat -C -F 16 -s 4 --invariant -n HOSTILE "$f" 16384 > /dev/null || hard_error "mkfs.fat failed"
mcopy -s -i "$f" src/README.TXT src/hostile-n.txt src/dir-tab-name ::/ || hard_error "mcopy failed"
fname=$'ho\e[31m\n"\\'	# then U+D800 unpaired, then "tx": 13 units, as hostile-n.txt
fdir=$'d\tir\e[1m!-dir'	# 12 units, as dir-tab-name
flabel='48 1b 0a 22 5c 7f ff 4c 20 20 20'	# H ESC NL " \ DEL 0xFF L
fshort='52 01 1b 7f ff 4d 45 20'		# R 0x01 ESC DEL 0xFF M E: README.TXT's 8.3 name

# Both volumes patched by one python3, patch.py's commands called in it (a process a
# command added up; their functions called as its main() would, without building its
# parser each time).  at(IMAGE, BYTES): the one offset where BYTES lie in IMAGE (found
# without fatscope); u16(TEXT): TEXT as UTF-16LE, in hex.
XNAME=$xname XTAIL=$xtail XDIR=$xdir XLABEL=$xlabel FNAME=$fname FDIR=$fdir \
FLABEL=${flabel// /} FSHORT=${fshort// /} "$PYTHON3" - "$top_srcdir/tests/fixtures" "$x" "$f" <<'PY' ||
import argparse, contextlib, io, mmap, os, sys
sys.path.insert(0, sys.argv[1])
import patch
x, f = sys.argv[2], sys.argv[3]
env = {k: os.environb[k.encode()].decode("utf-8") for k in ("XNAME", "XTAIL", "XDIR", "XLABEL", "FNAME", "FDIR", "FLABEL", "FSHORT")}
def p(cmd, image, *args):
    a = [str(v) for v in args]
    if cmd == "set":
        ns = argparse.Namespace(image=image, offset=a[0], hexbytes=a[1], more=a[2:])
        fn = patch.cmd_set
    elif cmd == "exfat-info":
        ns, fn = argparse.Namespace(image=image), patch.cmd_exfat_info
    else:
        ns = argparse.Namespace(image=image, offset=a[0])
        fn = {"exfat-namehash": patch.cmd_exfat_namehash, "exfat-setsum": patch.cmd_exfat_setsum}[cmd]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(ns)
    return out.getvalue()
maps = {}
def at(img, b):	# (as grep -obUaP: each match, none overlapping)
    if img not in maps:	# (one map an image: it sees what the patches write, through the page cache)
        with open(img, "rb") as fd:
            maps[img] = mmap.mmap(fd.fileno(), 0, access=mmap.ACCESS_READ)
    data = maps[img]
    o = []
    i = data.find(b)
    while i >= 0:
        o.append(i)
        i = data.find(b, i + len(b))
    if len(o) != 1:
        sys.exit(f"{img}: not one place holds {b!r}")
    return o[0]
def u16(t):
    return t.encode("utf-16-le").hex()
# 1. exFAT: the primary entry of a set: its first name entry's units start 2 bytes in, 64 bytes after the primary
off = at(x, "a-name-of-exact".encode("utf-16-le")) - 66
h = u16(env["XNAME"]) + "00d8" + u16(env["XTAIL"])
if len(h) != 120:
    sys.exit("the hostile exFAT name is not 30 units")
p("set", x, off + 32 * 2 + 2, h[0:60])	# the name entries' 15 units each
p("set", x, off + 32 * 3 + 2, h[60:120])
p("exfat-namehash", x, off)
p("exfat-setsum", x, off)
off = at(x, "empty-dir".encode("utf-16-le")) - 66
h = u16(env["XDIR"])
if len(h) != 36:
    sys.exit("the hostile exFAT directory name is not 9 units")
p("set", x, off + 32 * 2 + 2, h)
p("exfat-namehash", x, off)
p("exfat-setsum", x, off)
info = dict(l.split("=", 1) for l in p("exfat-info", x).splitlines())
p("set", x, info["LABEL_ENTRY"], "83%02x" % len(env["XLABEL"]) + u16(env["XLABEL"]))
# 2. FAT16: a long-name entry at OFFSET gets the UTF-16LE units HEX (13 at most)
def lfn_units(img, off, h):
    units = (1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30)
    pairs = []
    for i in range(len(h) // 4):
        pairs += [off + units[i], h[4 * i:4 * i + 4]]
    p("set", img, *pairs)
off = at(f, b"HOSTIL~1TXT")	# the 8.3 entry; its one long-name entry before it
lfn_units(f, off - 32, u16(env["FNAME"]) + "00d8" + u16("tx"))
off = at(f, b"DIR-TA~1   ")
lfn_units(f, off - 32, u16(env["FDIR"]))
p("set", f, at(f, b"README  TXT"), env["FSHORT"])
p("set", f, 43, env["FLABEL"])	# BS_VolLab first: then one label is left, the root's entry
p("set", f, at(f, b"HOSTILE    "), env["FLABEL"])
PY
	hard_error "patching the volumes failed"

# ---- 3. every command on both volumes
# path_of IMAGE DIR PREFIX...: PATHS[k] is the path of DIR's entry whose name starts with
# the k-th PREFIX, as ls -J gives it (one ls, one jq; "" for none).
path_of() {
	local img=$1 dir=$2 v k=0
	shift 2
	PATHS=()
	"$FATSCOPE" ls -J "$img" "$dir" > k/paths.json
	while IFS= read -r -d '' v; do PATHS[k]=$v; k=$((k + 1)); done < <(jq -j '. as $d | $ARGS.positional[] |
		. as $p | ([$d.entries[] | select(.name | startswith($p))][0].path // "") + "\u0000"' k/paths.json --args "$@" 2> /dev/null)
	for ((; k < $#; k++)); do PATHS[k]=; done
}
# checkv WHAT WANT GOT: check, the two shown with cat -v when they differ (they hold control bytes).
checkv() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$(printf %s "$3" | cat -v)', want '$(printf %s "$2" | cat -v)'"; fi
}
# The check descriptions name the hostile paths FILE and DIR: this script's own output stays clean.
# args ARGS...: ARGS is them so.
args() {
	local a
	ARGS=
	for a in "$@"; do
		case $a in
		"$file") ARGS+=' FILE' ;;
		"$dir") ARGS+=' DIR' ;;
		*) ARGS+=" $a" ;;
		esac
	done
}
# fs ARGS...: run, described by the arguments, with WANT-STATUS $rc_want and the image last.
fs() {
	args "$@"
	run "$rc_want" "$img:$ARGS" "$@" "$img"
}

for img in "$x" "$f"; do
	case $img in
	"$x")
		path_of "$x" /names evil
		file=${PATHS[0]}
		path_of "$x" / 'd	'
		dir=${PATHS[0]}
		want_file="/names/$xname\\uD800$xtail"	# an unpaired surrogate is the text \uD800 (fatscope-dump(8))
		want_dir="/$xdir"
		want_label=$xlabel
		# the manifest's SHA256 of the file renamed
		want_sum=
		while IFS=$'\t' read -r mp _ _ h; do
			[ "$mp" = /names/a-name-of-exactly-thirty-chars ] && want_sum+=${want_sum:+$'\n'}$h
		done < "$top_srcdir/tests/fixtures/pop-small.manifest"
		want_id=EXFAT_NAME_CHARS want_finding="/names/$xname"
		risk_all=0 files=37 ;;
	"$f")
		path_of "$f" / ho 'd	' R
		file=${PATHS[0]} dir=${PATHS[1]}
		want_file="/$fname\\uD800tx"
		want_dir="/$fdir"
		want_label='H??"\??L'	# FAT labels: bytes that are not printable ASCII become '?'
		read -r want_sum _ < <(sha256sum < src/hostile-n.txt)
		want_id=FAT_SHORT_NAME want_finding=${PATHS[2]}
		checkv "$img: ls -J gives the 8.3 name" "/R??"$'\x7f\xc2\xa0'"ME.TXT" "$want_finding"	# 0xFF: U+00A0 in code page 850
		risk_all=1 files=3 ;;	# --drivers all: staging-5.4-vfat would take a FAT volume
	esac
	checkv "$img: ls -J gives the hostile file's path" "$want_file" "$file"
	checkv "$img: ls -J gives the hostile directory's path" "$want_dir" "$dir"
	"$FATSCOPE" ls -J "$img" "${file%/*}/" > k/clu.json
	clu=$(jq -r --arg p "$file" '.entries[] | select(.path == $p) | .first_cluster' k/clu.json)
	[[ $clu =~ ^[0-9]+$ ]] && [ "$clu" -ge 2 ] && ok || bad "$img: the hostile file has no first cluster: $clu"

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
		has "$out" '"label": "\u001b[31m\n\"\\"' && ok || bad "$img: probe -J: the label not escaped as RFC 8259 says"
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
		args "${opt[@]}"
		json "$img: dump -J$ARGS"
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
		has "$out" '"name": "evil\u001b[31m\n\"\\\\uD800-hostile-file.txt"' && ok ||
			bad "$img: ls -J: the name not escaped as RFC 8259 says"
	fi

	# cat: stdout is the file's bytes by design
	runs=$((runs + 1)) err=k/$runs.err
	(ulimit -t 20; exec "$FATSCOPE" cat "$img" "$file") > got 2> "$err"; rc=$?
	check "$img: cat FILE: exit status" 0 "$rc"
	clean "$img: cat FILE: stderr" "$err"
	read -r h _ < <(sha256sum < got)
	check "$img: cat FILE: the file's bytes" "$want_sum" "$h"

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
	jcheck "$img: fsck -n -J: a finding $want_id on the hostile name" \
		"[.findings[] | select(.id == \"$want_id\") | .location.path | select(startswith(\$p))] | length" 1 "$want_finding"
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
	cn=() n=0	# (one find: the names with a control byte, then a line a file)
	while IFS= read -r -d '' line; do
		case $line in F) n=$((n + 1)) ;; *) cn+=("${line#C }") ;; esac
	done < <(find xo \( -name '*[[:cntrl:]]*' -printf 'C %p\0' \) , \( -type f -printf 'F\0' \))
	check "$img: extract: host names with a control byte" "" "${cn[*]}"
	check "$img: extract: files written" "$files" "$n"

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
	has "$err" 'evil\x1b[31m\x0a' || has "$err" 'ho\x1b[31m\x0a' && ok || bad "$img: ls: the missing path not shown escaped"
	run 16 "$img: dump --cluster (ESC)" dump --cluster $'1\e[31m' "$img"
done
jq_all
clean_all
finish
