#!/bin/sh
# The vocabulary (docs/vocabulary.md, tools/cli.c's table of old spellings):
# every subcommand run with its old spellings and with the new ones prints
# the same bytes on stdout and writes the same files; an old spelling says
# what replaced it in one line on stderr, once, and the new spellings say
# nothing; where an old word meant a file in one command and a format in
# another, each command keeps its own meaning.  POSIX sh; uses cmp, grep.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
BOX=${FPREF_TESTS:-"$(dirname "$0")"}/order_box
tap_name=vocabulary
. "$(dirname "$0")/tap.sh"

# run TAG CMD...: CMD's stdout in $tmp/TAG.out, stderr in $tmp/TAG.err, its status in $tmp/TAG.rc.
run() {
	_tag=$1
	shift
	"$FPREF" "$@" <"$tmp/stdin" >"$tmp/$_tag.out" 2>"$tmp/$_tag.err"
	echo $? >"$tmp/$_tag.rc"
}

# same NAME OLD NEW [FILE_OLD FILE_NEW]...: both ran with status 0 and the
# same stdout (and the same files, given in pairs).
same() {
	_name=$1 _old=$2 _new=$3
	shift 3
	if [ "$(cat "$tmp/$_old.rc")" != 0 ] || [ "$(cat "$tmp/$_new.rc")" != 0 ]; then
		failed "$_name: both spellings run (exit $(cat "$tmp/$_old.rc"), $(cat "$tmp/$_new.rc"))"
		sed 's/^/#   | /' "$tmp/$_old.err" "$tmp/$_new.err" | head -n 6
		return
	fi
	if cmp -s "$tmp/$_old.out" "$tmp/$_new.out"; then
		ok "$_name: stdout byte for byte"
	else
		failed "$_name: stdout differs"
		diff "$tmp/$_old.out" "$tmp/$_new.out" | head -n 6 | sed 's/^/#   | /'
	fi
	while [ $# -ge 2 ]; do
		if [ -s "$1" ] && cmp -s "$1" "$2"; then ok "$_name: ${1##*/} = ${2##*/}"; else failed "$_name: ${1##*/} != ${2##*/}"; fi
		shift 2
	done
}

# noted NAME TAG CMD OLD NEW...: TAG's stderr holds exactly one line
# "fpref CMD: note: OLD is now NEW ..." for each pair, and no note on stdout.
noted() {
	_name=$1 _tag=$2 _cmd=$3
	shift 3
	while [ $# -ge 2 ]; do
		_n=$(grep -c -F -e "fpref $_cmd: note: $1 is now $2 (" "$tmp/$_tag.err")
		if [ "$_n" = 1 ]; then ok "$_name: $1 noted once, naming $2"; else
			failed "$_name: $1 noted $_n times (want once, naming $2)"
			sed 's/^/#   | /' "$tmp/$_tag.err" | head -n 4
		fi
		shift 2
	done
	if grep -q 'note:' "$tmp/$_tag.out"; then failed "$_name: a note on stdout"; else ok "$_name: no note on stdout"; fi
}

# quiet NAME TAG: the new spellings say nothing about old ones.
quiet() {
	if grep -q 'note:' "$tmp/$2.err"; then
		failed "$1: the new spelling printed a note"
		sed 's/^/#   | /' "$tmp/$2.err" | head -n 3
	else
		ok "$1: the new spelling prints no note"
	fi
}

: >"$tmp/stdin"

# ---- formats: op, dot, gemm, verify-gemm, probe, draw promotion, convert --scale-rule ----
printf '3C00 3C01\n7BFF 7BFF\n' >"$tmp/stdin"
run op.old op add --fmt f16
run op.new op add --format f16
same 'op --fmt / --format' op.old op.new
noted 'op --fmt' op.old op --fmt --format
quiet 'op --format' op.new

printf '3C00 3C00 3C00 3C00 0\n4000 C000 3C00 3C00 3C00\n' >"$tmp/stdin"
run dot.old dot --model h100 --in f16 --out f32
run dot.new dot --model h100 --in-format f16 --out-format f32
same 'dot --in/--out (formats)' dot.old dot.new
noted 'dot --in/--out' dot.old dot --in --in-format --out --out-format
quiet 'dot --in-format/--out-format' dot.new
printf '3C 40 0\n38 44 3F800000\n' >"$tmp/stdin"
run dot2.old dot --model h100-wgmma --in-a e5m2 --in-b e4m3
run dot2.new dot --model h100-wgmma --a-format e5m2 --b-format e4m3
same 'dot --in-a/--in-b' dot2.old dot2.new
noted 'dot --in-a/--in-b' dot2.old dot --in-a --a-format --in-b --b-format
: >"$tmp/stdin"

# gemm: formats, --source, and --save (a file)
run gemm.old gemm --model a100 --in tf32 --out f32 --source f32 --size 4x4x32 --seed 7 --save "$tmp/D.old.npy" \
	--save-a "$tmp/A.npy" --save-b "$tmp/B.npy"
run gemm.new gemm --model a100 --in-format tf32 --out-format f32 --source-format f32 --size 4x4x32 --seed 7 \
	-o "$tmp/D.new.npy"
same 'gemm --in/--out/--source/--save' gemm.old gemm.new "$tmp/D.old.npy" "$tmp/D.new.npy"
noted 'gemm old spellings' gemm.old gemm --in --in-format --out --out-format --source --source-format --save --out-file
quiet 'gemm new spellings' gemm.new
run gemm2.new gemm --model a100 --in-format tf32 --out-format f32 --source-format f32 --size 4x4x32 --seed 7 \
	--out-file "$tmp/D.long.npy"
same 'gemm -o = --out-file' gemm.new gemm2.new "$tmp/D.new.npy" "$tmp/D.long.npy"

# verify-gemm: D of the model above against A and B (values tf32 holds after the quantisation)
run gq gemm --model a100 --in-format tf32 --size 4x4x32 --seed 7 --save-a "$tmp/Aq.npy" --save-b "$tmp/Bq.npy" -o "$tmp/Dq.npy"
run vg.old verify-gemm --a "$tmp/Aq.npy" --b "$tmp/Bq.npy" --d "$tmp/Dq.npy" --model a100 --in tf32 --out f32
run vg.new verify-gemm --a "$tmp/Aq.npy" --b "$tmp/Bq.npy" --d "$tmp/Dq.npy" --model a100 --in-format tf32 --out-format f32
same 'verify-gemm --in/--out' vg.old vg.new
noted 'verify-gemm --in/--out' vg.old verify-gemm --in --in-format --out --out-format
quiet 'verify-gemm new spellings' vg.new

# probe gen: --inputs/--output were formats and --out the file
run pg.old probe gen --inputs f16 --output f32 --k 4 --out "$tmp/p.old.txt"
run pg.new probe gen --in-format f16 --out-format f32 --k 4 -o "$tmp/p.new.txt"
same 'probe gen --inputs/--output/--out' pg.old pg.new "$tmp/p.old.txt" "$tmp/p.new.txt"
noted 'probe gen old spellings' pg.old probe --inputs --in-format --output --out-format --out --out-file
quiet 'probe gen new spellings' pg.new
# probe infer: --in/--out were formats (the probe file's lines, d by h100, as the results)
grep -v '^#' "$tmp/p.new.txt" >"$tmp/d.txt"
run pi.old probe infer --results "$tmp/d.txt" --in f16 --out f32
run pi.new probe infer --results "$tmp/d.txt" --in-format f16 --out-format f32
same 'probe infer --in/--out (formats)' pi.old pi.new
noted 'probe infer --in/--out' pi.old probe --in --in-format --out --out-format
run pi.first probe --out f32 infer --results "$tmp/d.txt"
if [ "$(cat "$tmp/pi.first.rc")" = 2 ] && grep -q 'depends on the action' "$tmp/pi.first.err"; then
	ok 'probe: --out before the action is refused, saying why'
else
	failed 'probe: --out before the action is refused, saying why'
fi
# probe order: --in/--out were formats
if [ -x "$BOX" ]; then
	run po.old probe order --cmd "$BOX pairwise" --n 7 --in f32 --out f32 --verify 50
	run po.new probe order --cmd "$BOX pairwise" --n 7 --in-format f32 --out-format f32 --verify 50
	same 'probe order --in/--out' po.old po.new
	noted 'probe order --in/--out' po.old probe --in --in-format --out --out-format
else
	skip 'probe order --in/--out' "no $BOX (make check builds it)"
fi

# ---- files: convert, quantize, draw, gen ----
run af gemm --model h100 --in-format f16 --size 4x4x32 --seed 7 --save-a "$tmp/A.npy" # float16 values
# one output path for each (stdout names it), each run's file moved aside
run cv.old convert --to bf16 --in "$tmp/A.npy" --out "$tmp/Y.npy"
mv "$tmp/Y.npy" "$tmp/Y.old.npy"
run cv.new convert --to bf16 -i "$tmp/A.npy" -o "$tmp/Y.npy"
mv "$tmp/Y.npy" "$tmp/Y.new.npy"
same 'convert --in/--out (files)' cv.old cv.new "$tmp/Y.old.npy" "$tmp/Y.new.npy"
noted 'convert --in/--out' cv.old convert --in --in-file --out --out-file
quiet 'convert -i/-o' cv.new
run cv.long convert --to bf16 --in-file "$tmp/A.npy" --out-file "$tmp/Y.npy"
same 'convert -i/-o = --in-file/--out-file' cv.new cv.long "$tmp/Y.new.npy" "$tmp/Y.npy"
run el.old convert --to e8m0 --scale-rule ocp-floor --element e4m3 448
run el.new convert --to e8m0 --scale-rule ocp-floor --element-format e4m3 448
same 'convert --element' el.old el.new
noted 'convert --element' el.old convert --element --element-format

run q.old quantize --scheme mxfp8 --in "$tmp/A.npy" --codes "$tmp/c.old.npy" --scales "$tmp/s.old.npy"
run q.new quantize --scheme mxfp8 -i "$tmp/A.npy" --codes "$tmp/c.new.npy" --scales "$tmp/s.new.npy"
same 'quantize --in (a file)' q.old q.new "$tmp/c.old.npy" "$tmp/c.new.npy" "$tmp/s.old.npy" "$tmp/s.new.npy"
noted 'quantize --in' q.old quantize --in --in-file

run dn.old draw numberline e4m3 --out "$tmp/n.old.svg"
run dn.new draw numberline e4m3 -o "$tmp/n.new.svg"
same 'draw numberline --out' dn.old dn.new "$tmp/n.old.svg" "$tmp/n.new.svg"
noted 'draw --out' dn.old draw --out --out-file
run dp.old draw promotion --model h100 --promote 128 --in e4m3 --ks 256,512 --out "$tmp/pr.old.svg"
run dp.new draw promotion --model h100 --promote 128 --in-format e4m3 --ks 256,512 --out-file "$tmp/pr.new.svg"
same 'draw promotion --in (a format)' dp.old dp.new "$tmp/pr.old.svg" "$tmp/pr.new.svg"
noted 'draw promotion --in' dp.old draw --in --in-format
quiet 'draw promotion new spellings' dp.new
# draw gemm: the first --out is the picture, the rest gemm's own (there --out is a format)
run dg.old draw gemm --out "$tmp/g.old.svg" --model h100 --in e4m3 --out f32 --size 4x4x32 --seed 2
run dg.new draw gemm -o "$tmp/g.new.svg" --model h100 --in-format e4m3 --out-format f32 --size 4x4x32 --seed 2
same 'draw gemm --out' dg.old dg.new "$tmp/g.old.svg" "$tmp/g.new.svg"
noted 'draw gemm --out' dg.old draw --out --out-file
noted 'draw gemm: gemm --in/--out' dg.old gemm --in --in-format --out --out-format
quiet 'draw gemm new spellings' dg.new

printf 'suite tiny\nconvert float16 float8_e4m3fn rne edge\n' >"$tmp/tiny.suite"
# one folder for both (stdout names it), the first run's moved aside
run gen.old gen --suite "$tmp/tiny.suite" --out "$tmp/gold"
mv "$tmp/gold" "$tmp/gold.old"
run gen.new gen --suite "$tmp/tiny.suite" -o "$tmp/gold"
sed 's/, [0-9.]* s -> / -> /' "$tmp/gen.old.out" >"$tmp/gen.old.t" && mv "$tmp/gen.old.t" "$tmp/gen.old.out" # its time
sed 's/, [0-9.]* s -> / -> /' "$tmp/gen.new.out" >"$tmp/gen.new.t" && mv "$tmp/gen.new.t" "$tmp/gen.new.out"
same 'gen --out (a folder)' gen.old gen.new "$tmp/gold.old/MANIFEST" "$tmp/gold/MANIFEST"
noted 'gen --out' gen.old gen --out --out-dir
quiet 'gen -o' gen.new

# ---- help: the old spellings listed; --help after an old spelling's value ----
run help.dot dot --help
if grep -q '^old spellings' "$tmp/help.dot.out" && grep -q '^  --in  *--in-format$' "$tmp/help.dot.out"; then
	ok 'dot --help lists its old spellings'
else
	failed 'dot --help lists its old spellings'
fi
run help.cv convert --help
grep -q '^  -i, --in-file X.npy' "$tmp/help.cv.out" && ok 'convert --help: -i, --in-file' || failed 'convert --help: -i, --in-file'
# an old spelling twice with its new one is one option given twice
run twice dot --model h100 --in f16 --in-format f16
if [ "$(cat "$tmp/twice.rc")" = 2 ] && grep -q 'option --in-format given twice' "$tmp/twice.err"; then
	ok 'dot --in with --in-format: one option given twice (exit 2)'
else
	failed 'dot --in with --in-format: one option given twice (exit 2)'
fi
# an old spelling of another command is no option here
run other op add --in f16 3C00 3C00
[ "$(cat "$tmp/other.rc")" = 2 ] && grep -q "unknown option '--in'" "$tmp/other.err" &&
	ok "op --in: unknown (no command's old spelling leaks into another)" ||
	failed "op --in: unknown (no command's old spelling leaks into another)"

tap_end
