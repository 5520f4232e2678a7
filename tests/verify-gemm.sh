#!/bin/sh
# fpref verify-gemm on a kernel's D that is right, and on one with one
# element wrong.  The arrays are written byte by byte from the .npy format
# (magic, version 1.0, header length 118, the dict padded to 128 bytes):
# A = [[1, 2], [3, 4]] and B = I as float16 (3C00 = 1, 4000 = 2, 4200 = 3,
# 4400 = 4), so D = A B = A exactly, whatever the model; as float32 D is
# 3F800000 40000000 40400000 40800000.  The wrong D has D[1][0] =
# 40400001, the next float32 above 3: one ulp, "rounding direction".
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
expect 'one element wrong: exit 1, found at row 1, column 0' 1 '3 equal' '1 outside' 'rounding direction  ' \
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
tap_end
