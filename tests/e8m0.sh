#!/bin/sh
# E8M0 scale rules and integer elements at the command line.  POSIX sh
# (dash); uses sh, sed, printf, cmp, head, mktemp.
#
# Expected codes worked by hand from the implementations' definitions
# (docs/scaling-mx.md): 0x00400000 = 2^-127 has fraction bits set, so ONNX's
# round_mode=up adds one to its exponent field 0 (01 = 2^-126), while
# cvt.rp keeps the exact 2^-127 (00); 3 = 1.5 * 2^1 rounds down to 80 (2^1)
# and up to 81 (2^2); 1 + 2^-8 (0x3F808000) rounds up to 2 (80) from FP32,
# but through BF16 ties to even at 1.0 first (7F); amax 300 with E4M3
# (emax 8, max 448): ceil(log2 300) - 8 = 1 (80), 300/448 < 1 gives 2^0 (7F).
# Integers: 2.5 ties to even 2, -128.5 ties to even -128 (80), int8_sym
# stops at -127 (81), int4's 7.5 saturates at 7.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}

tap_name=e8m0
. "$(dirname "$0")/tap.sh"

: >"$tmp/empty"

run() {
	"$FPREF" "$@" <"$tmp/empty" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# check_codes NAME CODE...: the result code of each stdout line, in order.
check_codes() {
	_name=$1
	shift
	printf '%s\n' "$@" >"$tmp/want"
	sed 's/^[^ ]* -> [^ ]* \([0-9A-F]*\) .*/\1/' "$tmp/out" >"$tmp/got"
	if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/got"; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   exit status %s\n' "$rc"
		sed 's/^/#   got | /' "$tmp/out" | head -n 10
		sed 's/^/#   err | /' "$tmp/err" | head -n 5
	fi
}

# check_refused NAME WORD: exit status 2, nothing on stdout, the message names WORD.
check_refused() {
	if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "$2" "$tmp/err" && grep -q "fpref convert" "$tmp/err"; then
		ok "$1"
	else
		failed "$1"
		printf '#   exit status %s\n' "$rc"
		sed 's/^/#   err | /' "$tmp/err" | head -n 5
	fi
}

for engine in emu ref; do
	run convert --from f32 --to e8m0 --scale-rule onnx-up --engine $engine 00400000 40400000 3F808000
	check_codes "onnx-up ($engine)" 01 81 80
	run convert --from f32 --to e8m0 --scale-rule cvt-rp --engine $engine 00400000 40400000
	check_codes "cvt-rp ($engine)" 00 81
	run convert --from f32 --to e8m0 --scale-rule onnx-down --engine $engine 40400000
	check_codes "onnx-down ($engine)" 80
	run convert --from f32 --to e8m0 --scale-rule onnx-up/bf16 --engine $engine 3F808000
	check_codes "onnx-up through bf16 ($engine)" 7F
	run convert --from bf16 --to e8m0 --scale-rule rceil --element e4m3 --engine $engine 4396
	check_codes "rceil from a bf16 pattern ($engine)" 7F
done
run convert --to e8m0 --scale-rule ceil --element e4m3 300
check_codes 'ceil of amax 300 (decimal)' 80
run convert --to e8m0 --scale-rule bogus 1
check_refused 'an unknown rule' "'bogus'"
run convert --to e4m3 --scale-rule pytorch 1
check_refused 'a rule into another format' 'e8m0'
run convert --to e8m0 --scale-rule floor 1
check_refused 'an amax rule without an element' '--element'
run convert --to e8m0 --scale-rule floor --element f16 1
check_refused 'an element that is not MX' 'float16'
run convert --to e8m0 --scale-rule pytorch --element e4m3 1
check_refused 'an element for a conversion' 'no element'
run convert --to e8m0 --scale-rule pytorch --round rup 1
check_refused 'ENV options with a rule' 'ENV'
run convert --from f16 --to e8m0 --scale-rule pytorch 3C00
check_refused 'a float16 source' 'float16'

for engine in emu ref; do
	run convert --from f32 --to int8 --engine $engine 40200000 C3008000 43000000
	check_codes "int8: ties to even, -128, saturation ($engine)" 02 80 7F
	run convert --from f32 --to int8_sym --engine $engine C3008000
	check_codes "int8_sym stops at -127 ($engine)" 81
	run convert --from f32 --to int4 --engine $engine 40F00000 C1000000
	check_codes "int4: 7.5 saturates, -8 ($engine)" 7 8
	run convert --from f32 --to uint2 --engine $engine 40200000 BF800000
	check_codes "uint2: 2.5 to 2, -1 to 0 ($engine)" 2 0
	run convert --from f32 --to mxint8 --engine $engine 3FC00000 C0000000
	check_codes "mxint8: 1.5 = 96/64, -2 ($engine)" 60 80
done
run convert --from int8 --to float32 80 7F FF
check_codes 'int8 codes decode as two'"'"'s complement' C3000000 42FE0000 BF800000

tap_end
