#!/bin/sh
# Command-line tests of `fpref quantize`: run by `make check` (FPREF is
# exported by TESTS_ENVIRONMENT), or by hand: sh tests/quantize.sh.  POSIX
# sh only; uses printf, od, tail, head, cut, tr, grep, sed, sort, uniq, mktemp, ls (and rm to clean up).
#
# Expected values are worked by hand from the recipes (docs/scaling.md), not
# taken from fpref:
#   amax 800, E4M3: scale = 448 / 800 = 0.56 -> float32 0x3F0F5C29
#     (9395241 * 2^-24 = 0.5600000024); scale_inv = 1 / that = 1.78571427...
#     -> 0x3FE49249 (1.7857142687; the next float up is 1.1e-7 away).
#   800 * s = 448.0000019 -> 448 = 7E; -400 * s = -224.000001 -> -224 = F6;
#     1 * s = 0.56 -> 0.5625 = 31 (step 1/16 in [0.5, 1)).
#   --pow2: scale 0.5, scale_inv 2 = 0x40000000; 800 * 0.5 = 400, the tie
#     384|416 -> even 384 = 7C.
#   Delayed, amaxes 2, 4, 1: scale_inv used 1, then 1/224 = 0x3B924925, then
#     1/112 = 0x3C124925 (1/7 * 2^-5 and 2^-4: mantissa 0x124925).
#   DeepSeek tiles: amax 448 -> s = 1 (0x3F800000); amax 896 -> s = 2 (0x40000000).
# The MX and NVFP4 expectations are docs/scaling-mx.md's worked examples,
# the same inputs and bytes that tests/check_scale_mx.c's example_* tests
# assert of the library (so the command writes what the library computes),
# and a few more worked here by hand (E5M2, FP6, 2-D tiles, shapes).

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=quantize
. "$(dirname "$0")/tap.sh"

not_ok() {
	failed "$1"
	[ -n "$2" ] && printf '#   %s\n' "$2"
}
check() { # check NAME WANT GOT
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "want '$2', got '$3'"; fi
}

# ---- building .npy files (format 1.0: magic, version, header length, dict, padding to 64) ----
octal_bytes() { # octal escapes of a little-endian word of $2 bytes
	v=$1 k=0
	while [ "$k" -lt "$2" ]; do
		printf '\\%03o' $((v & 255))
		v=$((v >> 8))
		k=$((k + 1))
	done
}
npy() { # npy FILE DESCR SHAPE WORD-BYTES HEXWORD...
	file=$1 descr=$2 shape=$3 size=$4
	shift 4
	dict="{'descr': '$descr', 'fortran_order': False, 'shape': ($shape), }"
	len=$((${#dict} + 1))
	pad=$(((64 - (10 + len) % 64) % 64))
	hlen=$((len + pad))
	{
		printf '\223NUMPY\001\000'
		printf "$(octal_bytes "$hlen" 2)"
		printf '%s' "$dict"
		[ "$pad" -gt 0 ] && printf "%${pad}s" ''
		printf '\n'
		for w in "$@"; do printf "$(octal_bytes "0x$w" "$size")"; done
	} >"$file"
}
tail_hex() { # the last $2 bytes of a file as hex
	tail -c "$2" "$1" | od -An -tx1 -v | tr -d ' \n'
}

x=$tmp/x.npy
npy "$x" '<f4' '1, 3' 4 44480000 C3C80000 3F800000 # 800 -400 1

# ---- per-tensor current scaling ----
"$FPREF" quantize --scheme tensor --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --dequant "$tmp/d.npy" \
	>"$tmp/out" 2>"$tmp/err"
check 'tensor: exit 0' 0 $?
check 'tensor: codes 800 -400 1 -> 7E F6 31' 7ef631 "$(tail_hex "$tmp/c.npy" 3)"
check 'tensor: scales.npy holds scale_inv 0x3FE49249' 4992e43f "$(tail_hex "$tmp/s.npy" 4)"
check 'tensor: dequant of 7E is 448 * scale_inv = 800' 00004844 "$(tail -c 12 "$tmp/d.npy" | head -c 4 | od -An -tx1 | tr -d ' \n')"
grep -q 'scale 0.56 (0x3F0F5C29)' "$tmp/out" && ok 'tensor: prints scale 0.56' || not_ok 'tensor: prints scale 0.56' "$(cat "$tmp/out")"
grep -q "'shape': (1, 3)" "$tmp/c.npy" && ok 'tensor: codes keep the shape' || not_ok 'tensor: codes keep the shape'
"$FPREF" quantize --scheme tensor --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --pow2 --json >"$tmp/out"
check 'tensor --pow2: scale_inv 2' 00000040 "$(tail_hex "$tmp/s.npy" 4)"
check 'tensor --pow2: 400 ties to 384 (7C)' 7c "$(tail_hex "$tmp/c.npy" 3 | cut -c1-2)"
grep -q '"scale": {"value": "0.5", "bits": "0x3F000000"}' "$tmp/out" && ok 'tensor --json' || not_ok 'tensor --json' "$(cat "$tmp/out")"

# float16 and bfloat16 widen exactly; float64 only when it is a float32
npy "$tmp/h.npy" '<f2' '3,' 2 6240 DE40 3C00 # 800 -400 1 in float16
rm -f "$tmp/c2.npy"
"$FPREF" quantize --scheme tensor --in "$tmp/h.npy" --codes "$tmp/c2.npy" --scales "$tmp/s2.npy" >/dev/null
check 'float16 input: same codes' 7ef631 "$(tail_hex "$tmp/c2.npy" 3)"
npy "$tmp/b.npy" '|V2' '3,' 2 4448 C3C8 3F80 # the same in bfloat16, as ml_dtypes saves it
rm -f "$tmp/c2.npy"
"$FPREF" quantize --scheme tensor --in "$tmp/b.npy" --codes "$tmp/c2.npy" --scales "$tmp/s2.npy" >/dev/null
check 'bfloat16 input: same codes' 7ef631 "$(tail_hex "$tmp/c2.npy" 3)"
rm -f "$tmp/c2.npy"
npy "$tmp/d64.npy" '<f8' '3,' 4 00000000 40890000 00000000 C0790000 00000000 3FF00000 # halves, low first
"$FPREF" quantize --scheme tensor --in "$tmp/d64.npy" --codes "$tmp/c2.npy" --scales "$tmp/s2.npy" >/dev/null
check 'float64 input held by float32: accepted' 7ef631 "$(tail_hex "$tmp/c2.npy" 3)"
npy "$tmp/bad64.npy" '<f8' '2,' 4 00000000 40890000 9999999A 3FB99999 # 800, 0.1
"$FPREF" quantize --scheme tensor --in "$tmp/bad64.npy" --codes "$tmp/c3.npy" --scales "$tmp/s3.npy" 2>"$tmp/err"
check 'float64 needing a rounding: refused (exit 2)' 2 $?
grep -q 'element 1' "$tmp/err" && ok 'float64 refusal names the element' || not_ok 'float64 refusal names the element' "$(cat "$tmp/err")"
[ ! -e "$tmp/c3.npy" ] && ok 'refused input writes nothing' || not_ok 'refused input writes nothing'

# ---- delayed scaling: one step per row ----
npy "$tmp/steps.npy" '<f4' '3, 2' 4 40000000 3F800000 C0800000 00000000 3F800000 BF000000 # amax 2, 4, 1
"$FPREF" quantize --scheme delayed --in "$tmp/steps.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --history 16 >"$tmp/out"
check 'delayed: exit 0' 0 $?
check 'delayed: scale_inv used 1, 1/224, 1/112' 0000803f2549923b2549123c "$(tail_hex "$tmp/s.npy" 12)"
check 'delayed: step 0 quantises with scale 1: 2 1 -> 40 38' 4038 "$(tail_hex "$tmp/c.npy" 6 | cut -c1-4)"
"$FPREF" quantize --scheme delayed --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --margin 300 2>/dev/null
check 'delayed: --margin 300 refused' 2 $?

# ---- DeepSeek tiles with a partial tile ----
set -- 43E00000 BF800000
k=2
while [ $k -lt 128 ]; do set -- "$@" 00000000; k=$((k + 1)); done
npy "$tmp/t.npy" '<f4' '1, 130' 4 "$@" 44600000 40400000 # 448 -1 0... | 896 3
"$FPREF" quantize --scheme tile128 --in "$tmp/t.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" >/dev/null
check 'tile128: s = 1 and 2' 0000803f00000040 "$(tail_hex "$tmp/s.npy" 8)"
grep -q "'shape': (1, 2)" "$tmp/s.npy" && ok 'tile128: scales shape (1, 2)' || not_ok 'tile128: scales shape (1, 2)'
check 'tile128: partial tile codes 896/2 3/2 -> 7E 3C' 7e3c "$(tail_hex "$tmp/c.npy" 2)"
"$FPREF" quantize --scheme block128 --in "$tmp/t.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --recipe te >/dev/null
check 'block128 --recipe te: pow2 scale 448/896 = 0.5, scale_inv 2' 00000040 "$(tail_hex "$tmp/s.npy" 4)"

# ---- errors ----
expect_status() { # NAME STATUS ARGS...
	name=$1 want=$2
	shift 2
	"$FPREF" quantize "$@" >/dev/null 2>"$tmp/err"
	check "$name" "$want" $?
}
expect_status 'unknown scheme: exit 2' 2 --scheme nope --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'missing --codes: exit 2' 2 --scheme tensor --in "$x" --scales "$tmp/s.npy"
expect_status 'delayed on a 1-D tensor: exit 2' 2 --scheme delayed --in "$tmp/h.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status '--recipe on tensor: exit 2' 2 --scheme tensor --recipe te --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'DeepSeek in E5M2: exit 2' 2 --scheme tile128 --format e5m2 --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'a 16-bit format: exit 2' 2 --scheme tensor --format bf16 --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
npy "$tmp/i.npy" '<i4' '2,' 4 1 2
expect_status 'int32 input: exit 2' 2 --scheme tensor --in "$tmp/i.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
npy "$tmp/nan.npy" '<f4' '2,' 4 3F800000 7FC00000
expect_status '--nan reject with a NaN: exit 2' 2 --scheme tensor --nan reject --in "$tmp/nan.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status '--nan keep with a NaN: exit 0' 0 --scheme tensor --in "$tmp/nan.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
check 'NaN quantises to 7F, 1 to 448 (7E)' 7e7f "$(tail_hex "$tmp/c.npy" 2)"
rm -f "$tmp/c9.npy"
expect_status 'unwritable scales: exit 1' 1 --scheme tensor --in "$x" --codes "$tmp/c9.npy" --scales "$tmp/no/such/dir/s.npy"
[ ! -e "$tmp/c9.npy" ] && ok 'unwritable scales: the codes written first are removed' ||
	not_ok 'unwritable scales: the codes written first are removed'
expect_status 'unwritable dequant: exit 1' 1 --scheme tensor --in "$x" --codes "$tmp/c9.npy" --scales "$tmp/s9.npy" \
	--dequant "$tmp/no/such/dir/d.npy"
[ ! -e "$tmp/c9.npy" ] && [ ! -e "$tmp/s9.npy" ] && ok 'unwritable dequant: no codes or scales left' ||
	not_ok 'unwritable dequant: no codes or scales left'
"$FPREF" quantize --scheme tensor --in "$tmp/absent.npy" --codes "$tmp/c9.npy" --scales "$tmp/no/such/dir/s.npy" \
	>"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'cannot write' "$tmp/err" && ok 'unwritable scales: checked before the input is read' ||
	not_ok 'unwritable scales: checked before the input is read'
[ -z "$(ls -A "$tmp" | grep partial)" ] && ok 'no temporary files left' || not_ok 'no temporary files left' "$(ls -A "$tmp")"

# ---- OCP MX (docs/scaling-mx.md) ----
byte_at() { # byte_at FILE COUNT K: byte K (from 1) of the last COUNT bytes, as hex
	tail_hex "$1" "$2" | cut -c$((2 * $3 - 1))-$((2 * $3))
}
q() { "$FPREF" quantize --codes "$tmp/c.npy" --scales "$tmp/s.npy" "$@"; }
# example_e4m3_scale_rules: E4M3, {1000, 3, -0}
npy "$tmp/mx.npy" '<f4' '1, 3' 4 447A0000 40400000 80000000
rm -f "$tmp/c.npy" "$tmp/s.npy"
q --scheme mxfp8 --in "$tmp/mx.npy" --dequant "$tmp/d.npy" >"$tmp/out" 2>"$tmp/err"
check 'mxfp8: exit 0' 0 $?
check 'mxfp8 ocp-floor (default): s = 1, scale code 80' 80 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp8 ocp-floor: 500 clamps to 448 (7E), 1.5 (3C), -0 (80)' 7e3c80 "$(tail_hex "$tmp/c.npy" 3)"
check 'mxfp8 ocp-floor: dequant 896, 3, -0' 0000604400004040''00000080 "$(tail_hex "$tmp/d.npy" 12)"
grep -q "'descr': '|u1'" "$tmp/s.npy" && ok 'mxfp8: scales are uint8 E8M0 codes' || not_ok 'mxfp8: scales are uint8 E8M0 codes'
grep -q "'shape': (1, 1)" "$tmp/s.npy" && ok 'mxfp8: scales shape (1, 1)' || not_ok 'mxfp8: scales shape (1, 1)'
grep -q '^rule ocp-floor  element_rounding rne$' "$tmp/out" && ok 'mxfp8: prints rule and rounding' ||
	not_ok 'mxfp8: prints rule and rounding' "$(cat "$tmp/out")"
grep -q '^saturated  1 of 3 codes' "$tmp/out" && ok 'mxfp8: report counts the clamped 448' ||
	not_ok 'mxfp8: report counts the clamped 448' "$(cat "$tmp/out")"
q --scheme mxfp8 --rule nv-ceil --in "$tmp/mx.npy" --json >"$tmp/out"
check 'mxfp8 nv-ceil: s = 2 (81)' 81 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp8 nv-ceil: 250 -> 256 (78), 0.75 (34), -0 (80)' 783480 "$(tail_hex "$tmp/c.npy" 3)"
grep -q '"rule": "nv-ceil", "element_rounding": "rne"' "$tmp/out" && ok 'mxfp8 --json: rule' || not_ok 'mxfp8 --json: rule' "$(cat "$tmp/out")"
q --scheme mxfp8 --rule rne --in "$tmp/mx.npy" >/dev/null
check 'mxfp8 rne: 1000 rounds to 1024 at 4 bits, s = 2 (81)' 81 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp8 rne: codes as nv-ceil' 78 "$(byte_at "$tmp/c.npy" 3 1)"
# By hand: E5M2 (emax 15): s = 9 - 15 = -6 (79); 1000 * 64 = 64000 clamps to
# 57344 (7B); 3 * 64 = 192 = 1.5 * 2^7: exponent field 22, mantissa 10 (5A).
q --scheme mxfp8 --format e5m2 --in "$tmp/mx.npy" >"$tmp/out"
check 'mxfp8 e5m2: s = -6 (79)' 79 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp8 e5m2: codes 7B 5A 80' 7b5a80 "$(tail_hex "$tmp/c.npy" 3)"
grep -q 'format float8_e5m2' "$tmp/out" && ok 'mxfp8 e5m2: prints the element' || not_ok 'mxfp8 e5m2: prints the element'
# By hand: FP6.  E2M3 (emax 2, max 7.5, step 1/8 below 1): s = 7 (86),
# 1000/128 = 7.81 clamps to 7.5 (1F), 3/128 = 0.023 -> 0 (00), -0 (20).
# E3M2 (emax 4, max 28, step 1/16 below 1/4): s = 5 (84), 31.25 clamps to
# 28 (1F), 3/32 = 0.09375 ties 1/16 (01) and 1/8 (02): even 02; -0 (20).
q --scheme mxfp6 --in "$tmp/mx.npy" >/dev/null
check 'mxfp6 e2m3 (default): s = 7 (86)' 86 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp6 e2m3: codes 1F 00 20' 1f0020 "$(tail_hex "$tmp/c.npy" 3)"
q --scheme mxfp6 --format e3m2 --in "$tmp/mx.npy" >/dev/null
check 'mxfp6 e3m2: s = 5 (84)' 84 "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp6 e3m2: codes 1F 02 20 (a tie to even)' 1f0220 "$(tail_hex "$tmp/c.npy" 3)"
q --scheme mxfp6 --format e3m2 --element-rounding rna --in "$tmp/mx.npy" >/dev/null
check 'mxfp6 e3m2 rna: away from zero is 02 as well' 1f0220 "$(tail_hex "$tmp/c.npy" 3)"
# example_e2m1_ties: {6, 1.25, 0.25, -5}, s = 0 (7F)
npy "$tmp/fp4.npy" '<f4' '4,' 4 40C00000 3FA00000 3E800000 C0A00000
q --scheme mxfp4 --in "$tmp/fp4.npy" >"$tmp/out"
check 'mxfp4: s = 0 (7F)' 7f "$(tail_hex "$tmp/s.npy" 1)"
check 'mxfp4 rne: 7 2 0 E' 0702000e "$(tail_hex "$tmp/c.npy" 4)"
grep -q "'shape': (1,)" "$tmp/s.npy" && ok 'mxfp4: a 1-D tensor has scales of shape (1,)' || not_ok 'mxfp4: scales (1,)'
grep -q '^flushed to zero  1 of 4' "$tmp/out" && ok 'mxfp4 rne: 0.25 flushed' || not_ok 'mxfp4 rne: 0.25 flushed' "$(cat "$tmp/out")"
q --scheme mxfp4 --format e2m1 --element-rounding rna --in "$tmp/fp4.npy" >/dev/null
check 'mxfp4 rna: 7 3 1 F' 0703010f "$(tail_hex "$tmp/c.npy" 4)"
# example_int8: {1.5, -0.5, 0.0078125}, s = 0; {FLT_MAX, -1}, s = 127
npy "$tmp/i8.npy" '<f4' '3,' 4 3FC00000 BF000000 3C000000
q --scheme mxint8 --in "$tmp/i8.npy" --dequant "$tmp/d.npy" >"$tmp/out"
check 'mxint8: s = 0 (7F)' 7f "$(tail_hex "$tmp/s.npy" 1)"
check 'mxint8 rne: 60 E0 00' 60e000 "$(tail_hex "$tmp/c.npy" 3)"
check 'mxint8: dequant 96/64 = 1.5' 0000c03f "$(tail_hex "$tmp/d.npy" 12 | cut -c1-8)"
grep -q '^saturated  not counted (INT8 codes)$' "$tmp/out" && ok 'mxint8: saturation not counted' ||
	not_ok 'mxint8: saturation not counted' "$(cat "$tmp/out")"
grep -q 'format int8' "$tmp/out" && ok 'mxint8: prints format int8' || not_ok 'mxint8: prints format int8'
q --scheme mxint8 --element-rounding rna --in "$tmp/i8.npy" --json >"$tmp/out"
check 'mxint8 rna: 60 E0 01' 60e001 "$(tail_hex "$tmp/c.npy" 3)"
grep -q '"saturated": null' "$tmp/out" && ok 'mxint8 --json: saturated null' || not_ok 'mxint8 --json: saturated null'
npy "$tmp/i8big.npy" '<f4' '2,' 4 7F7FFFFF BF800000
q --scheme mxint8 --in "$tmp/i8big.npy" >/dev/null
check 'mxint8 FLT_MAX: s = 127 (FE), codes 7F 00' fe7f00 "$(tail_hex "$tmp/s.npy" 1)$(tail_hex "$tmp/c.npy" 2)"
# Range ends: least subnormal -> 00 in every rule; FLT_MAX E4M3 -> F6 / F7;
# a NaN or inf in a block -> FF with zero codes.
npy "$tmp/tiny.npy" '<f4' '1,' 4 00000001
for rule in ocp-floor nv-ceil rne; do
	q --scheme mxfp8 --rule $rule --in "$tmp/tiny.npy" >/dev/null
	check "mxfp8 $rule: least subnormal -> scale 00" 00 "$(tail_hex "$tmp/s.npy" 1)"
done
npy "$tmp/top.npy" '<f4' '1,' 4 7F7FFFFF
q --scheme mxfp8 --in "$tmp/top.npy" >/dev/null
check 'mxfp8 ocp-floor: FLT_MAX -> scale F6, element 7E' f67e "$(tail_hex "$tmp/s.npy" 1)$(tail_hex "$tmp/c.npy" 1)"
q --scheme mxfp8 --rule nv-ceil --in "$tmp/top.npy" >/dev/null
check 'mxfp8 nv-ceil: FLT_MAX -> scale F7' f7 "$(tail_hex "$tmp/s.npy" 1)"
# Shape: 2x3x40 holds two blocks per row (32 and a short 8); block (0, 0, 1)
# holds a NaN: scale FF and zero codes; row (0, 1) holds 1.0: s = -8 (77),
# 1 * 2^8 = 256 (78).
set -- 447A0000 40400000
k=2
while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
set -- "$@" 7FC00000 3F800000 00000000 00000000 00000000 00000000 00000000 00000000 3F800000 # NaN 1 ... | row 1
k=41
while [ $k -lt 240 ]; do set -- "$@" 00000000; k=$((k + 1)); done
npy "$tmp/mx3.npy" '<f4' '2, 3, 40' 4 "$@"
q --scheme mxfp8 --in "$tmp/mx3.npy" >"$tmp/out"
grep -q "'shape': (2, 3, 2)" "$tmp/s.npy" && ok 'mxfp8: scales keep the leading axes (2, 3, 2)' ||
	not_ok 'mxfp8: scales keep the leading axes (2, 3, 2)' "$(head -c 80 "$tmp/s.npy")"
check 'mxfp8: scales 80, FF (NaN block), 77' 80ff77 "$(tail_hex "$tmp/s.npy" 12 | cut -c1-6)"
check 'mxfp8: the NaN block codes are 00' 0000 "$(tail_hex "$tmp/c.npy" 208 | cut -c1-4)"
check 'mxfp8: row 1 starts with 256 (78)' 78 "$(byte_at "$tmp/c.npy" 200 1)"
grep -q '(1 non-finite inputs, 7 non-finite outputs left out)' "$tmp/out" && ok 'mxfp8: NaN block in the report' ||
	not_ok 'mxfp8: NaN block in the report' "$(cat "$tmp/out")"

# ---- NVFP4 (docs/scaling-mx.md) ----
# example_nvfp4: {2688, 1344, 0...} | {1, 0.5, 0.25, -0.1, 0...}
set -- 45280000 44A80000
k=2
while [ $k -lt 16 ]; do set -- "$@" 00000000; k=$((k + 1)); done
set -- "$@" 3F800000 3F000000 3E800000 BDCCCCCD
k=20
while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
npy "$tmp/nv.npy" '<f4' '1, 32' 4 "$@"
q --scheme nvfp4 --in "$tmp/nv.npy" --tensor-scale "$tmp/t.npy" --dequant "$tmp/d.npy" >"$tmp/out" 2>"$tmp/err"
check 'nvfp4: exit 0' 0 $?
check 'nvfp4: block scales 448 (7E), 0.171875 (23)' 7e23 "$(tail_hex "$tmp/s.npy" 2)"
check 'nvfp4: block 0 codes 6 (7), 3 (5)' 0705 "$(tail_hex "$tmp/c.npy" 32 | cut -c1-4)"
check 'nvfp4: block 1 codes 6 3 1.5 -0.5 (7 5 3 9)' 07050309 "$(tail_hex "$tmp/c.npy" 16 | cut -c1-8)"
check 'nvfp4: tensor scale file holds S = 1' 0000803f "$(tail_hex "$tmp/t.npy" 4)"
grep -q "'descr': '<f4', 'fortran_order': False, 'shape': (1,)" "$tmp/t.npy" && ok 'nvfp4: tensor scale is float32 (1,)' ||
	not_ok 'nvfp4: tensor scale is float32 (1,)'
check 'nvfp4: dequant 6 * 0.171875 = 1.03125' 0000843f "$(tail_hex "$tmp/d.npy" 64 | cut -c1-8)"
grep -q '^tensor_scale 1 (0x3F800000)$' "$tmp/out" && ok 'nvfp4: prints the tensor scale' ||
	not_ok 'nvfp4: prints the tensor scale' "$(cat "$tmp/out")"
grep -q '^blocks 1x16  rounding rne$' "$tmp/out" && ok 'nvfp4: prints blocks and rounding' || not_ok 'nvfp4: prints blocks'
# example_recipe_order: S = 0x4527FFAD; the block's s_b = 60 (67), not 56
set -- 3F80003F 3F00003F
k=2
while [ $k -lt 16 ]; do set -- "$@" 00000000; k=$((k + 1)); done
set -- "$@" 3E04928B 3DC6DBD0
k=18
while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
npy "$tmp/ord.npy" '<f4' '1, 32' 4 "$@"
q --scheme nvfp4 --in "$tmp/ord.npy" --tensor-scale "$tmp/t.npy" --json >"$tmp/out"
check 'nvfp4 order: S = 0x4527FFAD' adff2745 "$(tail_hex "$tmp/t.npy" 4)"
check 'nvfp4 order: block scales 7E 67' 7e67 "$(tail_hex "$tmp/s.npy" 2)"
check 'nvfp4 order: codes 7 6' 0706 "$(tail_hex "$tmp/c.npy" 16 | cut -c1-4)"
grep -q '"tensor_scale": {"value": "[0-9.]*", "bits": "0x4527FFAD"}' "$tmp/out" && ok 'nvfp4 --json: tensor_scale' ||
	not_ok 'nvfp4 --json: tensor_scale' "$(cat "$tmp/out")"
# By hand, 2-D: 17x16, 2688 at (0, 0) and 1 at (16, 0): S = 1, tiles of
# 16x16 rows 0-15 and row 16: scales 7E and 23 (as above), shape (2, 1).
set -- 45280000
k=1
while [ $k -lt 256 ]; do set -- "$@" 00000000; k=$((k + 1)); done
set -- "$@" 3F800000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 \
	00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
npy "$tmp/w2.npy" '<f4' '17, 16' 4 "$@"
q --scheme nvfp4 --2d --in "$tmp/w2.npy" --tensor-scale "$tmp/t.npy" >"$tmp/out"
grep -q "'shape': (2, 1)" "$tmp/s.npy" && ok 'nvfp4 --2d: scales (2, 1)' || not_ok 'nvfp4 --2d: scales (2, 1)'
check 'nvfp4 --2d: scales 7E 23' 7e23 "$(tail_hex "$tmp/s.npy" 2)"
check 'nvfp4 --2d: row 16 codes 1 -> 6 (7)' 07 "$(byte_at "$tmp/c.npy" 16 1)"
grep -q '^blocks 16x16' "$tmp/out" && ok 'nvfp4 --2d: prints 16x16' || not_ok 'nvfp4 --2d: prints 16x16'
# Stochastic rounding: S = 1, s_b = 448 (2688 heads each block), 1008 =
# 2.25 * 448 rounds to 2 (4) or 3 (5); the same seed gives the same codes.
set --
k=0
while [ $k -lt 256 ]; do
	if [ $((k % 16)) -eq 0 ]; then set -- "$@" 45280000; else set -- "$@" 447C0000; fi
	k=$((k + 1))
done
npy "$tmp/sr.npy" '<f4' '1, 256' 4 "$@"
q --scheme nvfp4 --sr --seed 7 --in "$tmp/sr.npy" --tensor-scale "$tmp/t.npy" --json >"$tmp/out"
sr7=$(tail_hex "$tmp/c.npy" 256)
rest=$(printf '%s\n' "$sr7" | sed 's/\(..\)/\1 /g' | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | tr -s ' ' | tr '\n' ',')
case $rest in
*' 04,'*' 05,'*' 16 07,') ok 'nvfp4 --sr: codes 7 (heads), 4 and 5 only, both drawn' ;;
*) not_ok 'nvfp4 --sr: codes 7 (heads), 4 and 5 only, both drawn' "$rest" ;;
esac
[ "$(printf '%s' "$rest" | tr ',' '\n' | grep -c .)" -eq 3 ] && ok 'nvfp4 --sr: no other code' || not_ok 'nvfp4 --sr: no other code' "$rest"
grep -q '"rounding": "sr", "seed": 7' "$tmp/out" && ok 'nvfp4 --sr --json: seed' || not_ok 'nvfp4 --sr --json: seed' "$(cat "$tmp/out")"
q --scheme nvfp4 --sr --seed 7 --in "$tmp/sr.npy" --tensor-scale "$tmp/t.npy" >/dev/null
check 'nvfp4 --sr: the same seed, the same codes' "$sr7" "$(tail_hex "$tmp/c.npy" 256)"
q --scheme nvfp4 --sr --seed 8 --in "$tmp/sr.npy" --tensor-scale "$tmp/t.npy" >/dev/null
[ "$sr7" != "$(tail_hex "$tmp/c.npy" 256)" ] && ok 'nvfp4 --sr: another seed, other codes' ||
	not_ok 'nvfp4 --sr: another seed, other codes'
# --sr-bits philox=: Transformer Engine's stream.  Block 0 is {2688, 0...}
# (S = 1), block 1 {6, 0.3 x 15}: scale fl(6 * fl(1/6)) = 1, so its
# elements reach E2M1 as they are, and element i's code must be what
# `fpref convert --round te-nvfp4` gives value i of the same 32.
set -- 45280000
k=1
while [ $k -lt 32 ]; do
	if [ $k -lt 16 ]; then set -- "$@" 0; elif [ $k -eq 16 ]; then set -- "$@" 40C00000; else set -- "$@" 3E99999A; fi
	k=$((k + 1))
done
npy "$tmp/ph.npy" '<f4' '1, 32' 4 "$@"
for stream in philox=1234:5:3 philox=99:0:0:7; do
	q --scheme nvfp4 --sr --sr-bits $stream --in "$tmp/ph.npy" --tensor-scale "$tmp/t.npy" --json >"$tmp/out"
	want=$("$FPREF" convert --from f32 --to e2m1 --round te-nvfp4 --sr-bits $stream "$@" |
		sed -n '17,32s/.*float4_e2m1fn \([0-9A-F]*\) =.*/0\1/p' | tr -d '\n' | tr 'A-F' 'a-f')
	check "nvfp4 --sr --sr-bits $stream: block 1 as convert --round te-nvfp4" "$want" "$(tail_hex "$tmp/c.npy" 16)"
	case $want in
	07*00*01* | 07*01*00*) ok "nvfp4 --sr-bits $stream: 0.3 rounds both ways" ;;
	*) not_ok "nvfp4 --sr-bits $stream: 0.3 rounds both ways" "$want" ;;
	esac
done
grep -q '"seed": 99, "philox_offset": 0, "philox_thread": 0, "philox_rounds": 7' "$tmp/out" &&
	ok 'nvfp4 --sr-bits --json: the stream' || not_ok 'nvfp4 --sr-bits --json: the stream' "$(cat "$tmp/out")"
for bad in '--sr-bits philox=1' '--sr --sr-bits seed=3' '--sr --sr-bits philox=1:2:3:65' '--sr --seed 1 --sr-bits philox=1' \
	'--sr --recipe torchao --sr-bits philox=1'; do
	# shellcheck disable=SC2086
	expect_status "nvfp4 $bad: exit 2" 2 --scheme nvfp4 $bad --tensor-scale "$tmp/t.npy" --in "$tmp/ph.npy" \
		--codes "$tmp/c.npy" --scales "$tmp/s.npy"
done

# ---- MX and NVFP4 refusals ----
mx=$tmp/mx.npy
expect_status 'mxfp8 --format e2m1: exit 2' 2 --scheme mxfp8 --format e2m1 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
grep -q 'e4m3 or e5m2' "$tmp/err" && ok 'mxfp8 --format refusal names the choices' || not_ok 'mxfp8 --format refusal' "$(cat "$tmp/err")"
expect_status 'mxfp6 --format e4m3: exit 2' 2 --scheme mxfp6 --format e4m3 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp4 --format e3m2: exit 2' 2 --scheme mxfp4 --format e3m2 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxint8 --format: exit 2' 2 --scheme mxint8 --format e4m3 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --format e4m3: exit 2' 2 --scheme nvfp4 --format e4m3 --tensor-scale "$tmp/t.npy" --in "$mx" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --rule floor: exit 2' 2 --scheme mxfp8 --rule floor --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --element-rounding rtz: exit 2' 2 --scheme mxfp8 --element-rounding rtz --in "$mx" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --pow2: exit 2' 2 --scheme mxfp8 --pow2 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp4 --eps: exit 2' 2 --scheme mxfp4 --eps 1 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --amax-nan: exit 2' 2 --scheme mxfp8 --amax-nan ignore --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --recipe: exit 2' 2 --scheme mxfp8 --recipe te --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --margin: exit 2' 2 --scheme mxfp8 --margin 1 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --2d: exit 2' 2 --scheme mxfp8 --2d --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'mxfp8 --tensor-scale: exit 2' 2 --scheme mxfp8 --tensor-scale "$tmp/t.npy" --in "$mx" --codes "$tmp/c.npy" \
	--scales "$tmp/s.npy"
expect_status 'tensor --rule: exit 2' 2 --scheme tensor --rule rne --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'tile128 --sr: exit 2' 2 --scheme tile128 --sr --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 without --tensor-scale: exit 2' 2 --scheme nvfp4 --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --rule: exit 2' 2 --scheme nvfp4 --rule nv-ceil --tensor-scale "$tmp/t.npy" --in "$mx" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --element-rounding: exit 2' 2 --scheme nvfp4 --element-rounding rna --tensor-scale "$tmp/t.npy" \
	--in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --seed without --sr: exit 2' 2 --scheme nvfp4 --seed 3 --tensor-scale "$tmp/t.npy" --in "$mx" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --seed -3: exit 2' 2 --scheme nvfp4 --sr --seed -3 --tensor-scale "$tmp/t.npy" --in "$mx" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'nvfp4 --seed 2^64: exit 2' 2 --scheme nvfp4 --sr --seed 18446744073709551616 --tensor-scale "$tmp/t.npy" \
	--in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
rm -f "$tmp/c9.npy" "$tmp/s9.npy"
expect_status 'nvfp4 unwritable tensor scale: exit 1' 1 --scheme nvfp4 --tensor-scale "$tmp/no/such/dir/t.npy" --in "$mx" \
	--codes "$tmp/c9.npy" --scales "$tmp/s9.npy"
[ ! -e "$tmp/c9.npy" ] && [ ! -e "$tmp/s9.npy" ] && ok 'unwritable tensor scale: no codes or scales left' ||
	not_ok 'unwritable tensor scale: no codes or scales left'
expect_status 'nvfp4 unwritable dequant: exit 1' 1 --scheme nvfp4 --tensor-scale "$tmp/t9.npy" --in "$mx" \
	--codes "$tmp/c9.npy" --scales "$tmp/s9.npy" --dequant "$tmp/no/such/dir/d.npy"
[ ! -e "$tmp/c9.npy" ] && [ ! -e "$tmp/s9.npy" ] && [ ! -e "$tmp/t9.npy" ] &&
	ok 'nvfp4 unwritable dequant: no codes, scales or tensor scale left' ||
	not_ok 'nvfp4 unwritable dequant: no codes, scales or tensor scale left'
for scheme in tensor tile128 block128 mxfp8 mxfp6 mxfp4 mxint8; do
	"$FPREF" quantize --scheme $scheme --in "$mx" --codes "$tmp/c.npy" --scales "$tmp/s.npy" >/dev/null 2>"$tmp/err"
	check "$scheme: built (exit 0)" 0 $?
done
[ -z "$(ls -A "$tmp" | grep partial)" ] && ok 'no temporary files left (MX, NVFP4)' || not_ok 'no temporary files left (MX, NVFP4)'


# ---- NVFP4 recipes (docs/scaling-mx.md, worked there and in tests/check_nvfp4_recipes.c) ----
# {g, 0...} | {m, 0.77m, -0.3m, 0...}, g = 0x3FC76F07, m = 0x3F4E8E6B: 448 m / g lies just below the
# E4M3 tie 232.  TE: m * fl(fl(2688 / g) * fl(1/6)) = 232.000015 -> 240 (77), the third element -1.5 (B);
# torchao fl(m / 6) / D and ModelOpt m / fl(6 D) = 231.99997 -> 224 (76), -2 (C).
set -- 3FC76F07
k=1
while [ $k -lt 16 ]; do set -- "$@" 00000000; k=$((k + 1)); done
set -- "$@" 3F4E8E6B 3F1F0C62 BE77DE1A
k=19
while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
npy "$tmp/rc.npy" '<f4' '1, 32' 4 "$@"
for r in te:77:0706:0b:8fa6d744 torchao:76:0706:0c:12f3173a modelopt:76:0706:0c:12f3173a; do
	name=${r%%:*} rest=${r#*:}
	q --scheme nvfp4 --recipe "$name" --in "$tmp/rc.npy" --tensor-scale "$tmp/t.npy" >"$tmp/out" 2>"$tmp/err"
	check "nvfp4 --recipe $name: exit 0" 0 $?
	check "nvfp4 --recipe $name: block 1 scale" "$(echo "$rest" | cut -d: -f1)" "$(tail_hex "$tmp/s.npy" 1)"
	check "nvfp4 --recipe $name: block 1 codes" "$(echo "$rest" | cut -d: -f2,3 | tr -d :)" \
		"$(tail_hex "$tmp/c.npy" 16 | cut -c1-6)"
	check "nvfp4 --recipe $name: tensor scale" "$(echo "$rest" | cut -d: -f4)" "$(tail_hex "$tmp/t.npy" 4)"
done
grep -q '^blocks 1x16  rounding rne  recipe modelopt$' "$tmp/out" && ok 'nvfp4 --recipe: printed' ||
	not_ok 'nvfp4 --recipe: printed' "$(cat "$tmp/out")"
# Four Over Six, {1, 0.77, 0.5, 0.25, 0...}: scaled to 4 (scale 384, 7C) the errors are smaller: codes 6 5 4 2
npy "$tmp/fos.npy" '<f4' '1, 16' 4 3F800000 3F451EB8 3F000000 3E800000 0 0 0 0 0 0 0 0 0 0 0 0
q --scheme nvfp4 --four-over-six abs_max --in "$tmp/fos.npy" --tensor-scale "$tmp/t.npy" >"$tmp/out"
check 'nvfp4 --four-over-six abs_max: scale 384 (7C)' 7c "$(tail_hex "$tmp/s.npy" 1)"
check 'nvfp4 --four-over-six abs_max: codes 6 5 4 2' 06050402 "$(tail_hex "$tmp/c.npy" 16 | cut -c1-8)"
grep -q 'recipe fouroversix  four_over_six abs_max/256$' "$tmp/out" && ok 'nvfp4 --four-over-six: printed' ||
	not_ok 'nvfp4 --four-over-six: printed' "$(cat "$tmp/out")"
q --scheme nvfp4 --four-over-six mse --scale-bound 448 --in "$tmp/fos.npy" --tensor-scale "$tmp/t.npy" >/dev/null
check 'nvfp4 --scale-bound 448: 4 overflows (672), 6 kept: 448 (7E)' 7e "$(tail_hex "$tmp/s.npy" 1)"
# the Hadamard transform of e_3 with TE's signs: -H[3][k] / 4, codes F 7 7 F ...; dequantised back to e_3
npy "$tmp/e3.npy" '<f4' '1, 16' 4 0 0 0 3F800000 0 0 0 0 0 0 0 0 0 0 0 0
q --scheme nvfp4 --rht te --in "$tmp/e3.npy" --tensor-scale "$tmp/t.npy" --dequant "$tmp/d.npy" >"$tmp/out"
check 'nvfp4 --rht te: codes F 7 7 F x 4' 0f07070f0f07070f0f07070f0f07070f "$(tail_hex "$tmp/c.npy" 16)"
check 'nvfp4 --rht te: dequantised element 3 is 1' 0000803f "$(tail_hex "$tmp/d.npy" 52 | cut -c1-8)"
grep -q 'rht 0xD7E8-bf16$' "$tmp/out" && ok 'nvfp4 --rht: printed' || not_ok 'nvfp4 --rht: printed' "$(cat "$tmp/out")"
q --scheme nvfp4 --rht 0 --in "$tmp/e3.npy" --tensor-scale "$tmp/t.npy" >/dev/null
check 'nvfp4 --rht 0: no signs, the reverse pattern' 070f0f07070f0f07070f0f07070f0f07 "$(tail_hex "$tmp/c.npy" 16)"
for bad in '--recipe torchao --2d' '--recipe modelopt --sr' '--recipe torchao --rht te' '--recipe deepseek' \
	'--recipe fouroversix' '--four-over-six l2' '--four-over-six mse --recipe te' '--scale-bound 448' \
	'--four-over-six mse --scale-bound 300' '--four-over-six mse --sr' '--rht 0x10000' '--rht-fp32' '--rht x'; do
	# shellcheck disable=SC2086
	expect_status "nvfp4 $bad: exit 2" 2 --scheme nvfp4 $bad --tensor-scale "$tmp/t.npy" --in "$tmp/fos.npy" \
		--codes "$tmp/c.npy" --scales "$tmp/s.npy"
done
expect_status 'mxfp4 --four-over-six: exit 2' 2 --scheme mxfp4 --four-over-six mse --in "$tmp/fos.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
expect_status 'tensor --recipe torchao: exit 2' 2 --scheme tensor --recipe torchao --in "$tmp/fos.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
npy "$tmp/r20.npy" '<f4' '1, 20' 4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
"$FPREF" quantize --scheme nvfp4 --rht te --in "$tmp/r20.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" \
	--tensor-scale "$tmp/t.npy" 2>"$tmp/err"
[ $? -ne 0 ] && grep -q 'multiple of 16' "$tmp/err" && ok 'nvfp4 --rht on rows of 20: refused' ||
	not_ok 'nvfp4 --rht on rows of 20: refused' "$(cat "$tmp/err")"

# ---- MX and NVFP4 recipes of issue 39 (docs/scaling-mx.md, "MX recipes", "NVFP4 recipes") ----
# Worked by hand from each rule's and recipe's definition (E4M3: emax 8, max
# 448 = 1.75 * 2^8, least subnormal 2^-9; E8M0 code = 127 + s, 00 = 2^-127):
# M1, {2^-130, 2^-135, 0...} (0x00080000 = 2^19 * 2^-149, 0x00004000 = 2^14 *
#   2^-149): the floor-type rules (ocp-floor, rne, ceil) give s = -130 - 8 =
#   -138, clamped to -127: scale 00.  OCP divides by 2^-127: 2^-3 (field 4,
#   20) and 2^-8 = 2 * 2^-9 (02); torchao divides by max(2^-127, 2^-126) =
#   2^-126: 2^-4 (18) and 2^-9 (01).  The rceil rules give 00 as well and
#   multiply by 1 (ocp, torchao): both flush (00 00); ModelOpt multiplies
#   code 00 by 2^127: 20 02 again.
# M2, {inf, 1, 0...}: OCP gives FF with zero codes; torchao reads inf's
#   exponent field 255 as 2^128 under the floor rules: s = 128 - emax (E4M3
#   120 = F7, E5M2 113 = F0, E2M1 126 = FD), and ceil(log2 inf) = 127 (FE)
#   under the rceil rules; ModelOpt's rceil-log2 FE too.  The codes are
#   computed: inf clamps to the element's max (E4M3 448 7E, E5M2 57344 7B,
#   E2M1 6 07), 1 * 2^-113 or less flushes to 00.
# M3, {0x6A600001, 0...}: 0x6A600000 = 1.75 * 2^85 = 448 * 2^77, so amax is one
#   ulp above it.  nv-ceil: amax * fl(1/448) lies above 2^77, ceil 78: scale
#   127 + 78 = CD, element amax / 2^78 = 224 (+ 1e-7 rel.) -> 76.  rceil-log2:
#   d = fl(amax / 448) = 2^77 (1 + 2^-23) (the quotient 2^77 (1 + 2^-23 / 1.75)
#   rounds up), log2 d = 77 + 1.7e-7 rounds to 77 in FP32 (half the gap there
#   is 2^-18 = 3.8e-6): scale CC, element amax / 2^77 = 448 (+ 1e-7) -> 7E.
#   ocp-floor: floor(log2 amax) = 85, s = 77 (CC) as well.
# CEIL, {448, 3, -0}: ceil(log2 448) = 9, s = 1 (80): 224 (76), 1.5 (3C), -0
#   (80); ocp-floor and nv-ceil (448 * fl(1/448) = 1, ceil 0) give s = 0 (7F):
#   7E 44 80.
mxr() { # mxr NAME WANT-SCALE+CODES NCODES ARGS...: scale byte then the first NCODES codes
	name=$1 want=$2 n=$3
	shift 3
	rm -f "$tmp/s.npy" "$tmp/c.npy"
	"$FPREF" quantize --codes "$tmp/c.npy" --scales "$tmp/s.npy" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] || { not_ok "$name" "exit $st: $(cat "$tmp/err")"; return; }
	check "$name" "$want" "$(tail_hex "$tmp/s.npy" 1)$(tail_hex "$tmp/c.npy" 32 | cut -c1-$((2 * n)))"
}
blk32() { # blk32 FILE HEXWORD...: a 1 x 32 FP32 tensor, the rest zeros
	file=$1
	shift
	k=$#
	while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
	npy "$file" '<f4' '1, 32' 4 "$@"
}
blk32 "$tmp/m1.npy" 00080000 00004000
for rule in ocp-floor rne ceil; do
	mxr "M1 $rule (ocp): scale 00, / 2^-127: 20 02" 002002 2 --scheme mxfp8 --rule $rule --in "$tmp/m1.npy"
	mxr "M1 $rule --recipe torchao: scale 00, / 2^-126: 18 01" 001801 2 --scheme mxfp8 --recipe torchao --rule $rule \
		--in "$tmp/m1.npy"
done
mxr 'M1 --recipe ocp named: as the default' 002002 2 --scheme mxfp8 --recipe ocp --in "$tmp/m1.npy"
for rule in nv-ceil rceil-log2; do
	mxr "M1 $rule --recipe torchao: scale 00, * 1: 00 00" 000000 2 --scheme mxfp8 --recipe torchao --rule $rule \
		--in "$tmp/m1.npy"
done
mxr 'M1 rceil-log2 --recipe modelopt: scale 00, * 2^127: 20 02' 002002 2 --scheme mxfp8 --recipe modelopt \
	--rule rceil-log2 --in "$tmp/m1.npy"
blk32 "$tmp/m2.npy" 7F800000 3F800000
mxr 'M2 ocp-floor (ocp): FF, codes 00 00' ff0000 2 --scheme mxfp8 --in "$tmp/m2.npy"
for rule in ocp-floor rne ceil; do
	mxr "M2 $rule --recipe torchao: F7, codes 7E 00" f77e00 2 --scheme mxfp8 --recipe torchao --rule $rule \
		--in "$tmp/m2.npy"
done
mxr 'M2 rceil-log2 --recipe torchao: FE, codes 7E 00' fe7e00 2 --scheme mxfp8 --recipe torchao --rule rceil-log2 \
	--in "$tmp/m2.npy"
mxr 'M2 e5m2 --recipe torchao: F0, codes 7B 00' f07b00 2 --scheme mxfp8 --format e5m2 --recipe torchao --in "$tmp/m2.npy"
mxr 'M2 mxfp4 --recipe torchao: FD, codes 07 00' fd0700 2 --scheme mxfp4 --recipe torchao --in "$tmp/m2.npy"
mxr 'M2 rceil-log2 --recipe modelopt: FE, codes 7E 00' fe7e00 2 --scheme mxfp8 --recipe modelopt --rule rceil-log2 \
	--in "$tmp/m2.npy"
grep -q '^rule rceil-log2  element_rounding rne  recipe modelopt$' "$tmp/out" && ok 'MX --recipe modelopt: printed' ||
	not_ok 'MX --recipe modelopt: printed' "$(cat "$tmp/out")"
# torchao's codes in a NaN block (worked in tests/check_scale_mx.c,
# example_torchao_nan_blocks): {0xFFFF0000, 1, -1, 0...} keeps its NaN's
# payload from the file; floor rules divide by +inf, FP4's cast of the NaN's
# bits gives 4 with the sign (0C), 1 and -1 give 00 and 08; RCEIL multiplies
# every element by the amax NaN 0x7FC00000 (03); E2M3 gives 30 (0x10 | sign).
blk32 "$tmp/nanpay.npy" FFFF0000 3F800000 BF800000
mxr 'NaN block, mxfp4 --recipe torchao: FF, codes 0C 00 08' ff0c0008 3 --scheme mxfp4 --recipe torchao \
	--in-file "$tmp/nanpay.npy"
mxr 'NaN block, mxfp4 --recipe torchao rceil-log2: FF, codes 03 03 03' ff030303 3 --scheme mxfp4 --recipe torchao \
	--rule rceil-log2 --in-file "$tmp/nanpay.npy"
mxr 'NaN block, mxfp6 --recipe torchao: FF, codes 30 00 20' ff300020 3 --scheme mxfp6 --recipe torchao \
	--in-file "$tmp/nanpay.npy"
mxr 'NaN block, mxfp8 --recipe torchao: FF, codes FF 00 80' ffff0080 3 --scheme mxfp8 --recipe torchao \
	--in-file "$tmp/nanpay.npy"
mxr 'NaN block, mxfp4 (ocp): FF, zero codes' ff000000 3 --scheme mxfp4 --in-file "$tmp/nanpay.npy"
blk32 "$tmp/m3.npy" 6A600001
for r in ocp torchao modelopt; do
	mxr "M3 rceil-log2 --recipe $r: CC, code 7E" cc7e 1 --scheme mxfp8 --recipe $r --rule rceil-log2 --in "$tmp/m3.npy"
done
for r in ocp torchao; do
	mxr "M3 nv-ceil --recipe $r: CD, code 76" cd76 1 --scheme mxfp8 --recipe $r --rule nv-ceil --in "$tmp/m3.npy"
done
mxr 'M3 ocp-floor: CC, code 7E' cc7e 1 --scheme mxfp8 --in "$tmp/m3.npy"
blk32 "$tmp/c448.npy" 43E00000 40400000 80000000
mxr 'CEIL {448, 3, -0}: 80, codes 76 3C 80' 80763c80 3 --scheme mxfp8 --rule ceil --in "$tmp/c448.npy"
mxr 'CEIL --recipe torchao: the same' 80763c80 3 --scheme mxfp8 --rule ceil --recipe torchao --in "$tmp/c448.npy"
mxr 'ocp-floor {448, 3, -0}: 7F, codes 7E 44 80' 7f7e4480 3 --scheme mxfp8 --in "$tmp/c448.npy"
mxr 'nv-ceil {448, 3, -0}: 7F as ocp-floor' 7f7e4480 3 --scheme mxfp8 --rule nv-ceil --in "$tmp/c448.npy"
mxr 'rceil-log2 {448, 3, -0}: log2 1 = 0, 7F' 7f7e4480 3 --scheme mxfp8 --rule rceil-log2 --in "$tmp/c448.npy"
"$FPREF" quantize --scheme mxfp8 --rule ceil --recipe torchao --in "$tmp/c448.npy" --codes "$tmp/c.npy" \
	--scales "$tmp/s.npy" --json >"$tmp/out"
grep -q '"rule": "ceil", "element_rounding": "rne", "recipe": "torchao"' "$tmp/out" && ok 'MX --recipe --json: recipe' ||
	not_ok 'MX --recipe --json: recipe' "$(cat "$tmp/out")"
# Every MX float scheme takes torchao and every rule; ModelOpt has E4M3
# (MXFP8QTensor) and E2M1 (MXFP4QTensor) under rceil-log2 only.  What no
# library computes is refused (exit 2) with what the recipe has.
for scheme in mxfp8 mxfp6 mxfp4; do
	for rule in ocp-floor nv-ceil rne ceil rceil-log2; do
		expect_status "$scheme --recipe torchao --rule $rule: exit 0" 0 --scheme $scheme --recipe torchao --rule $rule \
			--in "$tmp/m3.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
	done
done
for bad in 'mxfp8 --format e5m2 --rule rceil-log2' 'mxfp6 --rule rceil-log2' 'mxint8 --rule rceil-log2' mxfp8 \
	'mxfp4 --rule nv-ceil' 'mxfp4 --rule rceil-log2 --element-rounding rna'; do
	# shellcheck disable=SC2086
	expect_status "$bad --recipe modelopt: exit 2" 2 --scheme $bad --recipe modelopt --in "$tmp/m3.npy" \
		--codes "$tmp/c.npy" --scales "$tmp/s.npy"
	grep -q 'it has elements e4m3, e2m1; rules rceil-log2; element rounding rne' "$tmp/err" &&
		ok "$bad --recipe modelopt: names what it has" ||
		not_ok "$bad --recipe modelopt: names what it has" "$(cat "$tmp/err")"
done
for bad in mxint8 'mxfp8 --element-rounding rna'; do
	# shellcheck disable=SC2086
	expect_status "$bad --recipe torchao: exit 2" 2 --scheme $bad --recipe torchao --in "$tmp/m3.npy" \
		--codes "$tmp/c.npy" --scales "$tmp/s.npy"
	grep -q 'it has elements e4m3, e5m2, e2m3, e3m2, e2m1; rules ocp-floor, nv-ceil, rne, ceil, rceil-log2' "$tmp/err" &&
		ok "$bad --recipe torchao: names what it has" || not_ok "$bad --recipe torchao: names what it has" "$(cat "$tmp/err")"
done
expect_status 'mxint8 --element-rounding rna (ocp): exit 0' 0 --scheme mxint8 --element-rounding rna --in "$tmp/m3.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
# ModelOpt's MXFP4 (MXFP4QTensor), {6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5,
#   -0.75, -3.5, 0...}: d = fl(6 / 6) = 1, log2 0, scale 7F.  Its cast counts
#   the E2M1 midpoints 0.25 0.75 1.25 1.75 2.5 3.5 5 strictly below |y|, so
#   ties go toward zero: 07 00 01 02 03 04 05 06 09 0D; the sign bit is
#   (2 - sign(y)) // 2, so a zero is 08.  OCP's ties to even: 07 00 02 02 04
#   04 06 06 0A 0E, zero 00.  {inf, 1, 0...}: scale 00 (uint8 of ceil(log2
#   inf)), every code 08 (x / inf = 0, inf / inf = NaN, sign 0).
blk32 "$tmp/mt.npy" 40C00000 3E800000 3F400000 3FA00000 3FE00000 40200000 40600000 40A00000 BF400000 C0600000
mxr 'ModelOpt MXFP4 ties toward zero, zero 08' 7f0700010203040506090d08 11 --scheme mxfp4 --recipe modelopt \
	--rule rceil-log2 --in "$tmp/mt.npy"
mxr 'OCP MXFP4 the same block: ties to even' 7f07000202040406060a0e00 11 --scheme mxfp4 --rule rceil-log2 --in "$tmp/mt.npy"
mxr 'ModelOpt MXFP4 {inf, 1}: 00, codes 08' 000808 2 --scheme mxfp4 --recipe modelopt --rule rceil-log2 \
	--in "$tmp/m2.npy"
# NVFP4, N1: 1 x 32, x0 = 0x45698D22 (A = 3736.82), x16 = 0x42B7812D (m), x17 =
#   0x4298EBA6: D = fl(A / 2688) = 0x3FB1F1A0; block 1's value fl(fl(m / 6) / D)
#   = 11 exactly (E4M3 53), block 0's 448 (7E).  torchao 0.18: x17 *
#   fl(fl(1/D) / 11) = 5.0 exactly, the tie 4|6 to even 4 (6); 02a1bc44:
#   x17 / fl(D * 11) = 5.0000005 -> 6 (7).  torchao-1level: block value
#   fl(m / 6) = 15.29 -> 15 (57), x17 * fl(1/15) = 5.097 -> 6 (7), tensor
#   scale written as 1.
set -- 45698D22
k=1
while [ $k -lt 16 ]; do set -- "$@" 00000000; k=$((k + 1)); done
blk32 "$tmp/n1.npy" "$@" 42B7812D 4298EBA6
nvr() { # nvr RECIPE WANT-SCALES WANT-X16-X17 WANT-T
	rm -f "$tmp/s.npy" "$tmp/c.npy" "$tmp/t.npy"
	"$FPREF" quantize --scheme nvfp4 --recipe "$1" --in "$5" --codes "$tmp/c.npy" --scales "$tmp/s.npy" \
		--tensor-scale "$tmp/t.npy" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] || { not_ok "nvfp4 --recipe $1: exit 0" "exit $st: $(cat "$tmp/err")"; return; }
	check "$6 --recipe $1: block scales $2" "$2" "$(tail_hex "$tmp/s.npy" 2)"
	check "$6 --recipe $1: codes $3" "$3" "$(tail_hex "$tmp/c.npy" 16 | cut -c1-4)"
	check "$6 --recipe $1: tensor scale" "$4" "$(tail_hex "$tmp/t.npy" 4)"
	grep -q "recipe $1\$" "$tmp/out" && ok "$6 --recipe $1: printed" || not_ok "$6 --recipe $1: printed" "$(cat "$tmp/out")"
}
nvr torchao 7e53 0706 a0f1b13f "$tmp/n1.npy" N1
nvr torchao-02a1bc44 7e53 0707 a0f1b13f "$tmp/n1.npy" N1
nvr torchao-1level 7e57 0707 0000803f "$tmp/n1.npy" N1
# ModelOpt's floor, {2688, 0...} | {2^-20, -2^-20, 0...}: D = 1, block value
#   fl(2^-20 / 6) = 1.6e-7.  0.47 clamps it to 2^-9 (01): elements 2^-20 / 2^-9
#   = 2^-11 -> 0, the sign from x < 0 (00 08); 0ad6e5f0 casts it to E4M3 00,
#   and x / fl(0 * D) = +-inf saturates to +-6 (07 0F).
set -- 45280000
k=1
while [ $k -lt 16 ]; do set -- "$@" 00000000; k=$((k + 1)); done
blk32 "$tmp/mo.npy" "$@" 35800000 B5800000
nvr modelopt 7e01 0008 0000803f "$tmp/mo.npy" 'ModelOpt floor'
nvr modelopt-0ad6e5f0 7e00 070f 0000803f "$tmp/mo.npy" 'ModelOpt floor'
# Unknown names: exit 2, the choices listed.
expect_status 'mxfp8 --recipe torchao-0.18: exit 2' 2 --scheme mxfp8 --recipe torchao-0.18 --in "$tmp/m3.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"
grep -q 'ocp, torchao or modelopt' "$tmp/err" && ok 'MX --recipe refusal lists ocp, torchao, modelopt' ||
	not_ok 'MX --recipe refusal lists ocp, torchao, modelopt' "$(cat "$tmp/err")"
expect_status 'mxfp8 --rule rceil: exit 2' 2 --scheme mxfp8 --rule rceil --in "$tmp/m3.npy" --codes "$tmp/c.npy" \
	--scales "$tmp/s.npy"
grep -q 'choices: ocp-floor, nv-ceil, rne, ceil, rceil-log2' "$tmp/err" && ok '--rule refusal lists the five rules' ||
	not_ok '--rule refusal lists the five rules' "$(cat "$tmp/err")"
expect_status 'nvfp4 --recipe torchao-0.18: exit 2' 2 --scheme nvfp4 --recipe torchao-0.18 --in "$tmp/n1.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy" --tensor-scale "$tmp/t.npy"
grep -q 'te, torchao, torchao-1level, modelopt, torchao-02a1bc44 or modelopt-0ad6e5f0' "$tmp/err" &&
	ok 'nvfp4 --recipe refusal lists the six recipes' || not_ok 'nvfp4 --recipe refusal lists the six recipes' "$(cat "$tmp/err")"
for bad in '--recipe torchao-1level --2d' '--recipe torchao-02a1bc44 --sr' '--recipe modelopt-0ad6e5f0 --rht te'; do
	# shellcheck disable=SC2086
	expect_status "nvfp4 $bad: exit 2" 2 --scheme nvfp4 $bad --tensor-scale "$tmp/t.npy" --in "$tmp/n1.npy" \
		--codes "$tmp/c.npy" --scales "$tmp/s.npy"
done
expect_status 'tile128 --recipe torchao-1level: exit 2' 2 --scheme tile128 --recipe torchao-1level --in "$tmp/n1.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"

# torch's NaN (docs/scaling-mx.md, "NaN patterns"; worked in
#   tests/check_nvfp4_recipes.c, torch_nan_lanes): 1 x 272 of 1.0, NaN at
#   elements 3 and 259 (blocks 0 and 16 of 17).  ModelOpt FP32: block 0 in
#   torch.maximum's 16 lanes, all-ones NaN: FF; blocks 1 and 16 (tail) 7F; D
#   0x7FC00000.  --torch-dtype bf16: all 7F.  torchao: D = 0xFFFFFFFF, the
#   finite block 1 FF; bf16: 7F, D 0x7FC00000.
set -- 3F800000 3F800000 3F800000 7FC00000
k=4
while [ $k -lt 272 ]; do
	if [ $k -eq 259 ]; then set -- "$@" 7FC00000; else set -- "$@" 3F800000; fi
	k=$((k + 1))
done
npy "$tmp/nl.npy" '<f4' '1, 272' 4 "$@"
for c in 'modelopt fp32 ff7f7f 0000c07f' 'modelopt bf16 7f7f7f 0000c07f' 'torchao fp32 7fff7f ffffffff' \
	'torchao bf16 7f7f7f 0000c07f'; do
	set -- $c
	"$FPREF" quantize --scheme nvfp4 --recipe "$1" --torch-dtype "$2" --in "$tmp/nl.npy" --codes "$tmp/c.npy" \
		--scales "$tmp/s.npy" --tensor-scale "$tmp/t.npy" >/dev/null 2>"$tmp/err" ||
		not_ok "nvfp4 $1 --torch-dtype $2: exit 0" "$(cat "$tmp/err")"
	check "nvfp4 $1 --torch-dtype $2: scales 0 1 16, tensor scale" "$3 $4" \
		"$(tail -c 17 "$tmp/s.npy" | head -c 2 | od -An -tx1 | tr -d ' \n')$(tail_hex "$tmp/s.npy" 1) $(tail_hex "$tmp/t.npy" 4)"
done
expect_status 'nvfp4 --recipe te --torch-dtype bf16: exit 2' 2 --scheme nvfp4 --recipe te --torch-dtype bf16 \
	--in "$tmp/nl.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --tensor-scale "$tmp/t.npy"
expect_status 'mxfp8 --torch-dtype bf16: exit 2' 2 --scheme mxfp8 --torch-dtype bf16 --in "$tmp/nl.npy" \
	--codes "$tmp/c.npy" --scales "$tmp/s.npy"

# ---- --scale-layout swizzled: cuBLAS's blocked 128x4 layout (torchao to_blocked, ModelOpt swizzle_nvfp4_scales) ----
# Scale (r, c) of a rows x cols matrix goes to byte 512 (r / 128 * C / 4 + c /
# 4) + 16 (r % 32) + 4 (r % 128 / 32) + c % 4 of the padded matrix (rows to
# 128, columns C to 4), the padding zero.
# A: 34 x 32, row r = {2^r, 0...}: E4M3 ocp-floor scale 127 + r - 8 = 77 + r
#   (hex); one tile of 128 x 4: row 0 at 0 (77), row 32 at 4 (97), row 1 at 16
#   (78), row 33 at 20 (98), row 31 at 496 (96); 34 nonzero bytes of 512.
# B: 1 x 160, block b = {2^b, 0...}: scales 77 78 79 7A 7B, padded to 128 x
#   8: two tiles, (0, 0..3) at 0..3, (0, 4) at 512 (7B).
pow2_blocks() { # pow2_blocks FILE SHAPE N: N runs of 32 words, run k = {2^k, 0...}
	file=$1 shape=$2 n=$3
	set --
	b=0
	while [ $b -lt "$n" ]; do
		set -- "$@" "$(printf '%08X' $(((127 + b) << 23)))"
		k=1
		while [ $k -lt 32 ]; do set -- "$@" 00000000; k=$((k + 1)); done
		b=$((b + 1))
	done
	npy "$file" '<f4' "$shape" 4 "$@"
}
pow2_blocks "$tmp/swa.npy" '34, 32' 34
pow2_blocks "$tmp/swb.npy" '1, 160' 5
byte_at() { # byte_at FILE N: byte N of the last $3 bytes (the data) as hex
	tail -c "$3" "$1" | od -An -tx1 -j "$2" -N 1 | tr -d ' \n'
}
nonzero() { # the count of nonzero bytes among the last $2 bytes of $1
	tail -c "$2" "$1" | od -An -tx1 -v | tr -s ' ' '\n' | grep -c -v -e '^00$' -e '^$'
}
"$FPREF" quantize --scheme mxfp8 --in "$tmp/swa.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --scale-layout swizzled \
	>/dev/null 2>"$tmp/err" || not_ok 'swizzled A: exit 0' "$(cat "$tmp/err")"
check 'swizzled A: shape (128, 4)' 1 "$(head -c 128 "$tmp/s.npy" | grep -c "'shape': (128, 4)")"
check 'swizzled A: rows 0 32 1 33 31 at 0 4 16 20 496' '77 97 78 98 96' \
	"$(byte_at "$tmp/s.npy" 0 512) $(byte_at "$tmp/s.npy" 4 512) $(byte_at "$tmp/s.npy" 16 512) $(byte_at "$tmp/s.npy" 20 512) $(byte_at "$tmp/s.npy" 496 512)"
check 'swizzled A: 34 nonzero bytes' 34 "$(nonzero "$tmp/s.npy" 512)"
"$FPREF" quantize --scheme mxfp8 --in "$tmp/swa.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --scale-layout linear \
	>/dev/null
check 'linear A: shape (34, 1), row 33 last' 1-98 "$(head -c 128 "$tmp/s.npy" | grep -c "'shape': (34, 1)")-$(tail_hex "$tmp/s.npy" 1)"
"$FPREF" quantize --scheme mxfp8 --in "$tmp/swb.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" --scale-layout swizzled \
	>/dev/null 2>"$tmp/err" || not_ok 'swizzled B: exit 0' "$(cat "$tmp/err")"
check 'swizzled B: shape (128, 8)' 1 "$(head -c 128 "$tmp/s.npy" | grep -c "'shape': (128, 8)")"
check 'swizzled B: 77 78 79 7a at 0..3, 7b at 512' '7778797a 7b 5' \
	"$(tail -c 1024 "$tmp/s.npy" | head -c 4 | od -An -tx1 | tr -d ' \n') $(byte_at "$tmp/s.npy" 512 1024) $(nonzero "$tmp/s.npy" 1024)"
# NVFP4, N1 (1 x 32, block scales 7E 53 under torchao): the two at bytes 0 and 1 of 512.
"$FPREF" quantize --scheme nvfp4 --recipe torchao --in "$tmp/n1.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy" \
	--tensor-scale "$tmp/t.npy" --scale-layout swizzled >/dev/null 2>"$tmp/err" || not_ok 'nvfp4 swizzled: exit 0' "$(cat "$tmp/err")"
check 'nvfp4 swizzled N1: 7e 53, 2 nonzero of 512' '7e53 2' \
	"$(tail -c 512 "$tmp/s.npy" | head -c 2 | od -An -tx1 | tr -d ' \n') $(nonzero "$tmp/s.npy" 512)"
for bad in '--scheme tensor --scale-layout swizzled' '--scheme mxfp8 --scale-layout tiled' \
	"--scheme nvfp4 --2d --scale-layout swizzled --tensor-scale $tmp/t.npy"; do
	# shellcheck disable=SC2086
	expect_status "$bad: exit 2" 2 $bad --in "$tmp/swb.npy" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
done

tap_end
