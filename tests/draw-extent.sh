#!/bin/sh
# fpref draw's text stays on the canvas and off other text: a battery of
# pictures (every kind; extreme values: beyond max finite, below the least
# subnormal, decimals of many digits, windows of a few ulps; every format
# family: IEEE, fn, fnuz, none, E8M0, P3109, integers, custom, unsigned)
# checked by tests/svgextent.py, which estimates every <text>'s box from
# the font's advance widths.  POSIX sh and python3.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
top=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
tap_name=draw-extent
. "$(dirname "$0")/tap.sh"

if ! command -v python3 >/dev/null 2>&1; then
	failed 'python3 found (tests/svgextent.py measures the pictures)'
	tap_end
	exit 1
fi

n=0
: >"$tmp/list"
# pic ARGS...: fpref draw ARGS into the next picture (checked at the end,
# all in one python3 run).
pic() {
	n=$((n + 1))
	if "$FPREF" draw "$@" --out "$tmp/$n.svg" >"$tmp/out" 2>"$tmp/err"; then
		printf '%s %s\n' "$n" "$*" >>"$tmp/list"
	else
		failed "fpref draw $*"
		sed 's/^/#   /' "$tmp/err" | head -n 3
	fi
}

# number lines: every narrow family whole, windows of the wide ones
for f in e4m3 e5m2 e4m3fnuz e5m2fnuz e4m3b11fnuz e3m4 e8m0 e2m3 e3m2 e2m1 binary8p3se binary4p2uf int4 uint8 \
	int8_sym mxint8 'e3m2,unsigned' 'e4m3,bias=11,specials=none'; do
	pic numberline "$f"
done
pic numberline e4m3 --range 0:1
pic numberline bf16 --at 0.1 --window 8
pic numberline bf16 --at -0.1 --window 8
pic numberline f32 --at 1 --window 4
pic numberline f32 --at 1e-45 --window 2
pic numberline f32 --at 3e38 --window 200
pic numberline f16 --at 65504 --window 200
pic numberline f64 --at 1e300 --window 3
pic numberline tf32 --at 1e-40 --window 16
pic numberline binary16p7se --at 2 --window 30

# rounding: ordinary, ties, beyond max finite (saturate, NaN, inf), below
# the least subnormal, long decimals, stochastic and instruction modes
pic rounding 0.1 --to e4m3
pic rounding 464 --to e4m3
pic rounding 465 --to e4m3
pic rounding -465 --to e4m3
pic rounding 465 --to fp4
pic rounding -465 --to fp4
pic rounding 1e300 --to f16
pic rounding 70000 --to e5m2 --round rtz
pic rounding 1e5 --to e4m3fnuz --sat
pic rounding 1e39 --to e8m0
pic rounding 100 --to int4
pic rounding -100 --to int4
pic rounding 1000 --to binary8p3se --overflow satnone
pic rounding 1e-9 --to bf16
pic rounding 1e-9 --to e4m3 --round sr --sr-bits seed=1
pic rounding 1e-400000 --to f64
pic rounding 2049 --to f16
pic rounding 3.3 --to int4
pic rounding 0.3 --to mxint8
pic rounding 123456789.123456789 --to f32 --round rod
pic rounding 0.10000000000000000000000000000000000000000000000000000000000000000001 --to f64 --round sr --sr-bits seed=3
pic rounding 0.3 --to e2m1 --round ptx-rs --sr-bits 0x12345678
pic rounding 1.3 --to e2m3,unsigned

# the catalogue, and the experiments
pic formats
pic promotion --model h100 --promote 128 --in e4m3
pic pytorch-tf32
# the reports of other commands
pic gemm --model h100 --in e4m3 --size 8x8x256
pic gemm --model tcgen05-mxf4nvf4 --in e2m1 --size 4x4x64 --dist positive
pic verify "$top/golden/vectors/add/float4_e2m1fn.rne.txt"
pic lossscale --scaler pytorch --growth-interval 3 --init-scale 1024 --simulate --steps 24 --scale-log2 -20 --scale-log2-end 0
pic lossscale --scaler deepspeed --overflow-at 2,3,5 --steps 8
"$FPREF" gemm --model exact --in f32 --out f32 --size 4x64x1 --seed 3 --save "$tmp/x.npy" --report none >/dev/null
pic quantize --scheme nvfp4 --in "$tmp/x.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --tensor-scale "$tmp/t.npy"
pic lab fp16-gradscaler --compare fp16-noscale,fp8-uncalibrated --steps 4

(cd "$tmp" && python3 "$top/tests/svgextent.py" *.svg) >"$tmp/problems" 2>&1
rc=$?
# 0: nothing found; 1: problems, each line naming its picture; anything
# else (python3 could not run the checker) is a failure, never a pass
if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && ! grep -v '^[0-9]*\.svg: ' "$tmp/problems" >/dev/null; }; then
	ok 'tests/svgextent.py ran over every picture'
else
	failed 'tests/svgextent.py ran over every picture'
	sed 's/^/#   /' "$tmp/problems" | head -n 6
fi
while read -r i args; do
	if grep "^$i\.svg: " "$tmp/problems" >"$tmp/these"; then
		failed "draw $args: text inside the canvas, none overlapping"
		sed 's/^/#   /' "$tmp/these" | head -n 6
	else
		ok "draw $args: text inside the canvas, none overlapping"
	fi
done <"$tmp/list"
tap_end
