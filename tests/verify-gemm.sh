#!/bin/sh
# fpref verify-gemm on a kernel's D that is right, and on one with one
# element wrong.  The arrays are written byte by byte from the .npy format
# (magic, version 1.0, header length 118, the dict padded to 128 bytes):
# A = [[1, 2], [3, 4]] and B = I as float16 (3C00 = 1, 4000 = 2, 4200 = 3,
# 4400 = 4), so D = A B = A exactly, whatever the model; as float32 D is
# 3F800000 40000000 40400000 40800000.  The wrong D has D[1][0] =
# 40400001, the next float32 above 3: one ulp, "farther from the exact value
# than the golden" (the model's 3 is exact).
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=verify-gemm
. "$(dirname "$0")/tap.sh"

hdr() { # hdr DESCR: a 2x2 header
	printf '\223NUMPY\001\000v\000{\047descr\047: \047%s\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012' "$1"
}
{ hdr '<f2'; printf '\000<\000@\000B\000D'; } >"$tmp/A.npy"
{ hdr '<f2'; printf '\000<\000\000\000\000\000<'; } >"$tmp/B.npy"
{ hdr '<f4'; printf '\000\000\200?\000\000\000@\000\000@@\000\000\200@'; } >"$tmp/D.npy"
{ hdr '<f4'; printf '\000\000\200?\000\000\000@\001\000@@\000\000\200@'; } >"$tmp/Dwrong.npy"
{ hdr '<u4'; printf '\000\000\200?\000\000\000@\000\000@@\000\000\200@'; } >"$tmp/Dbits.npy"
: >"$tmp/empty"

run() {
	"$FPREF" "$@" <"$tmp/empty" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# expect NAME STATUS PATTERN...: exit status, and each pattern (grep -F) on stdout or stderr
expect() {
	_name=$1
	_want=$2
	shift 2
	_bad=
	[ "$rc" = "$_want" ] || _bad="exit status $rc, not $_want"
	for _p in "$@"; do
		grep -qF -- "$_p" "$tmp/out" "$tmp/err" || _bad="$_bad; no '$_p'"
	done
	if [ -z "$_bad" ]; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   %s\n' "$_bad"
		sed 's/^/#   | /' "$tmp/out" "$tmp/err" | head -n 30
	fi
}

for model in h100 recursive exact; do
	run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/D.npy" --model $model --in f16 --out f32
	expect "right D, --model $model: exit 0, every element equal" 0 '4 elements, 4 equal' PASS
done
run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/Dbits.npy" --model h100 --in float16 --out float32
expect 'right D as uint32 bit patterns: exit 0' 0 '4 equal' PASS

run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/Dwrong.npy" --model h100 --in f16 --out f32
expect 'one element wrong: exit 1, found at row 1, column 0' 1 '3 equal' '1 outside' 'farther from the exact value than the golden 1' \
	'D[1][0]  model 40400000  kernel 40400001' FAIL
expect 'one element wrong: the kernel error against the exact product' 1 "the kernel's D against the exact product" \
	'ulps of output  max 1 '
run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/Dwrong.npy" --model h100 --in f16 --out f32 --tolerance 1ulp
expect 'one element wrong, --tolerance 1ulp: within, exit 0' 0 '4 within tolerance' '0 outside' PASS
run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/Dwrong.npy" --model h100 --in f16 --out f32 --json
expect 'one element wrong, --json' 1 '"outside": 1' '"row": 1, "col": 0' '"kernel": "40400001"' '"pass": false'
run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --c "$tmp/D.npy" --d "$tmp/D.npy" --model h100 --in f16 --out f32
expect 'C = D: A B + C is 2D, not D: all four differ' 1 '0 equal' '4 outside'

run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/D.npy" --model h100 --in f16
expect 'no --out: exit 2, the usage' 2 'fpref verify-gemm: needs'
run verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" --d "$tmp/nothing.npy" --model h100 --in f16 --out f32
expect 'missing D: exit 2, the file named' 2 'nothing.npy'
run verify-gemm --a "$tmp/A.npy" --b "$tmp/D.npy" --d "$tmp/D.npy" --model h100 --in f16 --out f32
expect 'B as float32 values float16 holds (1, 2, 3, 4): read; A B is not D' 1 '4 outside' FAIL
# A and B of two formats (issue 36), worked by hand: A = [[3C, 0], [0, 3C]]
# as E5M2 codes is I (3C = 1.0); B = [[44, 40], [38, 30]] as E4M3 codes is
# [[3, 2], [1, 0.5]]; D = B: 40400000 40000000 3F800000 3F000000.  Read
# with --in e4m3, A is 1.5 I (3C = 1.5 in E4M3): every element differs.
{ hdr '|u1'; printf '\074\000\000\074'; } >"$tmp/Ae5.npy"
{ hdr '|u1'; printf '\104\100\070\060'; } >"$tmp/Be4.npy"
{ hdr '<f4'; printf '\000\000@@\000\000\000@\000\000\200?\000\000\000?'; } >"$tmp/Dmixed.npy"
{ hdr '<f4'; printf '\000\000\200?\000\000\000\000\000\000\000\000\000\000\200D'; } >"$tmp/B1024.npy"
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --d "$tmp/Dmixed.npy" --model h100-wgmma --in-a e5m2 --in-b e4m3 --out f32
expect 'mixed E5M2 x E4M3 kernel D: PASS, both formats named' 0 'A: float8_e5m2, B: float8_e4m3fn -> float32' \
	'4 elements, 4 equal' PASS
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --d "$tmp/Dmixed.npy" --model h100-wgmma --in-a e5m2 --in-b e4m3 --out f32 --json
expect 'mixed --json: in_a, in_b' 0 '"in": null, "in_a": "float8_e5m2", "in_b": "float8_e4m3fn"' '"pass": true'
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --d "$tmp/Dmixed.npy" --model h100-wgmma --in e4m3 --out f32
expect 'A of E5M2 codes read with --in e4m3: FAIL, and the header says how A and B were read' 1 \
	'A: float8_e4m3fn, B: float8_e4m3fn' '0 equal' FAIL
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --d "$tmp/Dmixed.npy" --model h100-wgmma --in-a f16 --in-b e4m3 --out f32
expect 'a pair the preset does not take: exit 2, the pairs it takes' 2 'float16 x float8_e4m3fn' 'float8_e5m2 x float8_e4m3fn'
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/B1024.npy" --d "$tmp/Dmixed.npy" --model h100 --in e4m3 --out f32
expect 'B as float32 values E4M3 does not hold: exit 2, index and value' 2 'B[1,1] = 1024 is not a float8_e4m3fn value'
run verify-gemm --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --d "$tmp/Dmixed.npy" --model h100 --in e4m3 --in e5m2 --out f32
expect '--in twice: exit 2' 2 '--in' 'twice'
tap_end
