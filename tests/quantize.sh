#!/bin/sh
# Command-line tests of `fpref quantize`: run by `make check` (FPREF is
# exported by TESTS_ENVIRONMENT), or by hand: sh tests/quantize.sh.  POSIX
# sh only; uses printf, od, tail, head, cut, tr, grep, mktemp, ls (and rm to clean up).
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

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fpref-quantize.XXXXXX") || {
	printf 'not ok - mktemp\n0 passed, 1 failed\n'
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

ok() {
	pass=$((pass + 1))
	printf 'ok - %s\n' "$1"
}
not_ok() {
	fail=$((fail + 1))
	printf 'not ok - %s\n' "$1"
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
expect_status 'mxfp8 not built yet: exit 1' 1 --scheme mxfp8 --in "$x" --codes "$tmp/c.npy" --scales "$tmp/s.npy"
grep -q 'not built yet' "$tmp/err" && ok 'mxfp8 says not built yet' || not_ok 'mxfp8 says not built yet'
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
[ -z "$(ls -A "$tmp" | grep partial)" ] && ok 'no temporary files left' || not_ok 'no temporary files left' "$(ls -A "$tmp")"

printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
