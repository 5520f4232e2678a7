#!/bin/sh
# fpref draw: every KIND drawn twice (the same bytes), checked as XML
# (tests/svgcheck.py: an <svg> with a title, axes with ticks and labels, a
# legend, and the counts below), and compared with its reference picture in
# docs/pictures/.  FPREF_UPDATE_PICTURES=1 writes the references instead
# (after a change that is meant to change the pictures; look at them).
#
# Where the counts come from (not from running fpref):
#   E4M3 (OCP FP8, "fn"): 256 codes, two NaNs (S.1111.111), no inf: 254
#     finite codes, one mark each (+0 and -0 both).
#   E5M2: 256 codes less +-inf and six NaNs (exponent 11111, mantissa != 0): 248.
#   E2M1 (OCP MX FP4): 16 codes, all finite.
#   E4M3 in [0, 1]: +0 .. 1.0 = 0x38 (56 + 1 codes) and -0 (which is >= 0): 58.
#   float32 --at 1 --window 4: 1.0 and four codes each side: 9.
#   rounding: two neighbours, one exact input, six modes (rne rna rtz rup rdn rod).
#   formats: the catalogue's 16 rows (docs/formats.md).
#   gemm: 7 ulps buckets + 11 tenths of the bound; verify: 7 + 7 buckets.
#   promotion: four depths (128 .. 1024), each alone and promoted: 8 points;
#     pytorch-tf32: three sizes (16, 32, 64), TF32 and FP32: 6 points.
#   quantize: a 32 x 64 tensor in blocks of 32: 2048 cells, 64 scales.
#   lossscale: PyTorch, growth interval 3, gradients 2^-20 .. 2^0 times the
#     scale 1024 .. 2^17: 65504 is passed at iterations 22, 23, 24 (3 skips).
#   lab: fp32, RECIPE and the --compare recipes: one run group each; its
#     skipped steps and final losses are those fpref lab --json reports
#     (checked below, as the sweeps are against fpref gemm); fp8-uncalibrated's
#     loss is NaN from the first step (docs/lab.md; tests/check_lab): one
#     square per step, and no loss scaler, so no skip.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
top=${srcdir:-$(dirname "$0")/..}
tap_name=draw
. "$(dirname "$0")/tap.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo '# python3 not found: the pictures cannot be checked as XML'
	failed 'python3 found (tests/svgcheck.py reads the pictures)'
	tap_end
	exit 1
fi

# pic NAME "CHECKS" ARGS...: draw ARGS into NAME.svg twice and check it.
# With shorthand=1 the second drawing is fpref KIND ... --svg (the
# command's own option): one comparison for both, as a lab run is slow.
pic() {
	name=$1
	checks=$2
	shift 2
	if [ -n "$shorthand" ]; then
		again="fpref $1 --svg"
	else
		again="fpref draw twice"
	fi
	if ! "$FPREF" draw "$@" --out "$tmp/$name.svg" >"$tmp/out" 2>"$tmp/err"; then
		failed "$name: fpref draw $*"
		sed 's/^/#   /' "$tmp/err" | head -n 5
		return
	fi
	if [ -n "$shorthand" ]; then
		"$FPREF" "$@" --svg "$tmp/$name.again.svg" >"$tmp/$name.report" 2>"$tmp/err"
	else
		"$FPREF" draw "$@" --out "$tmp/$name.again.svg" >"$tmp/out" 2>"$tmp/err"
	fi
	# shellcheck disable=SC2181 # the branch above chose the command
	if [ $? != 0 ]; then
		failed "$name: $again $*"
		sed 's/^/#   /' "$tmp/err" | head -n 5
		return
	fi
	if cmp -s "$tmp/$name.svg" "$tmp/$name.again.svg"; then
		ok "$name: the same bytes twice ($again)"
	else
		failed "$name: the same bytes twice ($again)"
	fi
	# shellcheck disable=SC2086 # the checks are words
	if python3 "$top/tests/svgcheck.py" svg "$tmp/$name.svg" $checks >"$tmp/check" 2>&1; then
		ok "$name: well-formed, axes, labels, legend${checks:+, $checks}"
	else
		failed "$name: well-formed, axes, labels, legend${checks:+, $checks}"
		sed 's/^/#   /' "$tmp/check" | head -n 5
	fi
	ref=$top/docs/pictures/$name.svg
	if [ -n "$ref_expected" ] && [ "$FPREF_UPDATE_PICTURES" = 1 ]; then
		cp "$tmp/$name.svg" "$ref"
		ok "$name: reference written"
	elif [ -n "$ref_expected" ] && cmp -s "$tmp/$name.svg" "$ref"; then
		ok "$name: matches docs/pictures/$name.svg"
	elif [ -n "$ref_expected" ]; then
		failed "$name: matches docs/pictures/$name.svg"
		diff "$ref" "$tmp/$name.svg" 2>&1 | head -n 6 | sed 's/^/#   /'
	fi
}

# ---- the pictures with a reference ----
ref_expected=1
pic numberline-e4m3 'value=254' numberline e4m3
pic rounding-1e-8-f16 'neighbour=2 exact=1 mode=6' rounding 1e-8 --to f16
pic rounding-465-e4m3 'neighbour=2 exact=1 mode=6' rounding 465 --to e4m3
pic rounding-2049-f16 'neighbour=2 exact=1 mode=6' rounding 2049 --to f16
pic formats 'format=16' formats
pic gemm 'bar=18' gemm --model h100 --in e4m3 --size 8x8x256
pic verify 'bar=14' verify "$top/golden/vectors/add/float4_e2m1fn.rne.txt"
pic lossscale 'skip=3' lossscale --scaler pytorch --growth-interval 3 --init-scale 1024 --simulate --steps 24 \
	--scale-log2 -20 --scale-log2-end 0 --values 256 --summary
"$FPREF" gemm --model a100 --in f16 --size 32x64x8 --report none --save "$tmp/x.npy" >/dev/null 2>&1
pic promotion 'point=8' promotion --model h100 --promote 128 --in e4m3
pic pytorch-tf32 'point=6' pytorch-tf32
pic quantize 'cell=2048 scale=64' quantize --scheme mxfp4 --in "$tmp/x.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
shorthand=1
pic lab 'run=3 baseline=1' lab fp16-gradscaler --compare fp16-noscale --steps 16
shorthand=

# ---- the lab's picture places what fpref lab reports (the shorthand's report) ----
# report_num LABEL: the FP32 figure (its bits) that fpref lab --svg's report
# gives, as the legend prints it (%.4g; NaN)
report_num() {
	sed -n "s/^$1: [^ ]* (\([0-9A-F]*\))$/\1/p" "$tmp/lab.report" | python3 -c "
import struct, sys
v = struct.unpack('>f', bytes.fromhex(sys.stdin.read().strip()))[0]
print('NaN' if v != v else '%.4g' % v)"
}
# the legend's row of RECIPE: its final loss and its skipped steps
legend_of() {
	sed -n "s/.*>$1: final loss \([^;]*\); \([0-9]*\) skipped;.*/\1 \2/p" "$tmp/lab.svg" | head -n 1
}
skips=$(grep -c 'class="skip"' "$tmp/lab.svg")
report_skips=$(sed -n 's/^skipped steps: //p' "$tmp/lab.report")
if [ "$skips" -gt 0 ] && [ "$skips" = "$report_skips" ]; then
	ok "lab: $skips skipped steps marked, as fpref lab reports"
else
	failed "lab: skipped steps marked $skips, fpref lab reports '$report_skips'"
fi
want="$(report_num "final loss") $report_skips"
got=$(legend_of fp16-gradscaler)
if [ "$got" = "$want" ]; then ok "lab: the legend's fp16-gradscaler is fpref lab's ($got)"; else failed "lab: legend $got, fpref lab $want"; fi
want="$(report_num "fp32 final loss") 0"
got=$(legend_of 'fp32 (the baseline)')
if [ "$got" = "$want" ]; then ok "lab: the legend's fp32 is fpref lab's ($got)"; else failed "lab: fp32 legend $got, fpref lab $want"; fi

# ---- the sweeps place what fpref gemm reports for the same problem ----
# point_of NAME N: the two figures of size N in NAME.svg's point titles
point_of() {
	sed -n "s/.*<title>$2: [^<]* \([0-9.e+-]*\), [^<]* \([0-9.e+-]*\)<\/title>.*/\1 \2/p" "$tmp/$1.svg" | head -n 1
}
gemm_num() { # gemm_num KEY ARGS...: the JSON figure, as the picture prints it (%.4g)
	key=$1
	shift
	"$FPREF" gemm "$@" --json 2>/dev/null | python3 -c "import json, sys; print('%.4g' % json.load(sys.stdin)['$key'])"
}
want="$(gemm_num max_abs_over_mean_exact --model a100 --in tf32 --source float32 --size 64x64x64) $(gemm_num \
	max_abs_over_mean_exact --model fma-chain --in float32 --size 64x64x64)"
got=$(point_of pytorch-tf32 64)
if [ "$got" = "$want" ]; then ok "pytorch-tf32 at 64 is fpref gemm's ($got)"; else failed "pytorch-tf32 at 64 is fpref gemm's: $got, gemm $want"; fi
want="$(gemm_num normwise_rel --model h100 --in e4m3 --size 8x8x512 --dist positive) $(gemm_num normwise_rel \
	--model h100 --in e4m3 --size 8x8x512 --dist positive --promote 128)"
got=$(point_of promotion 512)
if [ "$got" = "$want" ]; then
	ok "promotion at K 512 is fpref gemm's ($got)"
else
	failed "promotion at K 512 is fpref gemm's: $got, gemm $want"
fi

# ---- more numberlines, checked but not kept ----
ref_expected=
pic nl-e5m2 'value=248' numberline e5m2
pic nl-e2m1 'value=16' numberline e2m1
pic nl-range 'value=58' numberline e4m3 --range 0:1
pic nl-f32 'value=9' numberline f32 --at 1 --window 4
pic lab-uncalibrated 'run=2 nonfinite-loss=2 skip=0' lab fp8-uncalibrated --steps 2

# ---- --svg on the commands is the same picture as draw KIND ----
# same NAME ARGS...: fpref NAME ARGS --svg against fpref draw NAME --out ARGS
same() {
	name=$1
	shift
	"$FPREF" "$name" "$@" --svg "$tmp/short.svg" >/dev/null 2>&1
	"$FPREF" draw "$name" --out "$tmp/long.svg" "$@" >/dev/null 2>&1
	if [ -s "$tmp/short.svg" ] && cmp -s "$tmp/short.svg" "$tmp/long.svg"; then
		ok "$name --svg is fpref draw $name"
	else
		failed "$name --svg is fpref draw $name"
	fi
	rm -f "$tmp/short.svg" "$tmp/long.svg"
}
same lossscale --scaler deepspeed --overflow-at 5,7,8 --steps 12 --summary
same gemm --model a100 --in f16 --size 4x4x16
same verify "$top/golden/vectors/add/float4_e2m1fn.rne.txt"
same quantize --scheme tensor --in "$tmp/x.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
same lab fp16-no-master --compare bf16 --steps 2

# ---- bad input: exit 2, the subcommand and the token named ----
# refused "WHAT" PATTERN ARGS...
refused() {
	what=$1
	pattern=$2
	shift 2
	"$FPREF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -e "$pattern" "$tmp/err"; then
		ok "refused: $what"
	else
		failed "refused: $what (exit $rc)"
		sed 's/^/#   /' "$tmp/err" | head -n 3
	fi
}
refused 'an unknown KIND' "fpref draw: unknown KIND 'pie'" draw pie --out "$tmp/p.svg"
refused 'no KIND' 'fpref draw: needs a KIND' draw --out "$tmp/p.svg"
refused 'no --out' 'numberline needs --out' draw numberline e4m3
refused 'no --out for a report' 'gemm needs --out' draw gemm --model a100 --in f16 --size 4x4x4
refused 'a bad format' "bogus" draw numberline bogus --out "$tmp/p.svg"
refused 'a bad --range' "bad --range '1:0'" draw numberline e4m3 --range 1:0 --out "$tmp/p.svg"
refused '--window for an 8-bit format' '--at and --window are for formats wider' draw numberline e4m3 --window 3 --out "$tmp/p.svg"
refused 'an exact value' 'nothing to choose' draw rounding 448 --to e4m3 --out "$tmp/p.svg"
refused 'rounding without --to' 'rounding needs one VALUE and --to' draw rounding 1.5 --out "$tmp/p.svg"
refused '--to for formats' 'not formats' draw formats --to e4m3 --out "$tmp/p.svg"
refused 'promotion without --promote' 'promotion needs --model MODEL --promote NC' draw promotion --model h100 \
	--in e4m3 --out "$tmp/p.svg"
refused 'a model for numberline' "promotion's options, not numberline's" draw numberline e4m3 --model h100 --out "$tmp/p.svg"
refused '--ks for formats' "not formats's" draw formats --ks 1,2 --out "$tmp/p.svg"
refused 'pytorch-tf32 too large' 'at most 512' draw pytorch-tf32 --ks 64,1024 --out "$tmp/p.svg"
refused 'a bad --ks' "bad --ks '64'" draw promotion --model h100 --promote 128 --in e4m3 --ks 64 --out "$tmp/p.svg"
refused 'gemm --svg with --report none' 'cannot go with --report none' gemm --model a100 --in f16 --size 4x4x4 \
	--report none --svg "$tmp/p.svg"
refused 'lossscale --svg of too many iterations' 'at most 100000, not 100001' lossscale --scaler pytorch \
	--overflow-at 3 --steps 100001 --json --svg "$tmp/p.svg"
refused 'verify --svg of a folder' '--svg draws one golden file' verify "$top/golden/vectors/add" --svg "$tmp/p.svg"

# ---- --png: by rsvg-convert, or a clear refusal ----
"$FPREF" draw formats --out "$tmp/f.svg" --png "$tmp/f.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
if command -v rsvg-convert >/dev/null 2>&1; then
	if [ "$rc" = 0 ] && [ "$(head -c 4 "$tmp/f.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
		ok '--png writes a PNG (rsvg-convert)'
	else
		failed '--png writes a PNG (rsvg-convert)'
	fi
elif [ "$rc" = 1 ] && grep -q 'needs rsvg-convert' "$tmp/err" && [ -s "$tmp/f.svg" ]; then
	ok '--png without rsvg-convert: exit 1, said, the SVG written'
else
	failed "--png without rsvg-convert: exit 1, said, the SVG written (exit $rc)"
fi

tap_end
