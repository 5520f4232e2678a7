#!/bin/sh
# Command-line tests for fpref: run by `make check` (FPREF is exported by
# TESTS_ENVIRONMENT), or by hand: sh tests/cli.sh.  POSIX sh only (runs under
# dash); uses sh, grep, sed, cmp, printf, head, wc, mktemp (and rm to clean up).
#
# Every expected value below comes from the format specifications (IEEE 754,
# OCP OFP8 / MX, ml_dtypes names), worked by hand, not from running fpref:
#   float8_e4m3fn: bias 7, max 448 = 0 1111 110 = 7E, NaN S.1111.111, no inf;
#     between 256 and 512 the step is 32, so 464 is the tie 448|480 -> even 448,
#     and 465 rounds to 480 > max -> overflow -> NaN (7F, flags inexact|overflow).
#   float8_e5m2: max 57344 = 7B; 61440 is the tie 57344|65536 -> 65536 -> inf 7C.
#   float16: 1e-8 < half the least subnormal 2^-24 -> +0, inexact|underflow.
#   Flags: inexact 01, underflow 02, overflow 04, infinite 08, invalid 10.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}

tap_name=cli
. "$(dirname "$0")/tap.sh"

# ---- reporting ----------------------------------------------------------


# not_ok NAME EXPECTED GOT
not_ok() {
	failed "$1"
	printf '#   expected: %s\n' "$2"
	printf '#   got:      %s\n' "$3"
}

# Show a file (at most 20 lines) under a 'not ok' line.
show() {
	printf '#   %s:\n' "$1"
	if [ -s "$2" ]; then
		head -n 20 "$2" | sed 's/^/#     | /'
	else
		printf '#     (empty)\n'
	fi
}

# ---- running ------------------------------------------------------------

# run ARGS...: fpref with no input; stdout in $tmp/out, stderr in $tmp/err, status in $rc.
run() {
	"$FPREF" "$@" <"$tmp/empty" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# run_in FILE ARGS...: the same, FILE on standard input.
run_in() {
	_in=$1
	shift
	"$FPREF" "$@" <"$_in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# ---- checks on the last run -----------------------------------------------

# check_rc NAME STATUS
check_rc() {
	if [ "$rc" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1" "exit status $2" "exit status $rc"
		show stderr "$tmp/err"
	fi
}

# check_out NAME LINE...: stdout is exactly these lines.
check_out() {
	_name=$1
	shift
	if [ $# -eq 0 ]; then
		: >"$tmp/want"
	else
		printf '%s\n' "$@" >"$tmp/want"
	fi
	if cmp -s "$tmp/want" "$tmp/out"; then
		ok "$_name"
	else
		failed "$_name"
		show 'expected stdout' "$tmp/want"
		show 'got stdout' "$tmp/out"
		show 'stderr' "$tmp/err"
	fi
}

# check_result NAME STATUS LINE...: exit status and exact stdout, one check.
check_result() {
	_name=$1
	_status=$2
	shift 2
	if [ $# -eq 0 ]; then
		: >"$tmp/want"
	else
		printf '%s\n' "$@" >"$tmp/want"
	fi
	if [ "$rc" = "$_status" ] && cmp -s "$tmp/want" "$tmp/out"; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   expected exit status %s, got %s\n' "$_status" "$rc"
		show 'expected stdout' "$tmp/want"
		show 'got stdout' "$tmp/out"
		show 'stderr' "$tmp/err"
	fi
}

# check_has NAME FILE STRING: FILE holds STRING (fixed string).
check_has() {
	if grep -F -e "$3" "$2" >/dev/null; then
		ok "$1"
	else
		not_ok "$1" "a line containing '$3'" "none"
		show "${2##*/}" "$2"
	fi
}

# check_match NAME FILE REGEX: some line of FILE matches the basic regex.
check_match() {
	if grep -e "$3" "$2" >/dev/null; then
		ok "$1"
	else
		not_ok "$1" "a line matching /$3/" "none"
		show "${2##*/}" "$2"
	fi
}


# check_count NAME FILE REGEX N: N lines of FILE match the extended regex.
check_count() {
	_n=$(grep -c -E -e "$3" "$2")
	if [ "$_n" = "$4" ]; then
		ok "$1"
	else
		not_ok "$1" "$4 lines matching /$3/" "$_n"
		show "${2##*/}" "$2"
	fi
}

# check_lines NAME FILE N: FILE has exactly N lines.
check_lines() {
	_n=$(wc -l <"$2" | sed 's/[^0-9]//g')
	if [ "$_n" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "$3 lines" "$_n lines"
		show "${2##*/}" "$2"
	fi
}

# check_bad NAME STATUS WORD...: the last run failed with STATUS, wrote
# nothing on stdout, and its message on stderr contains every WORD.
check_bad() {
	_name=$1
	_status=$2
	shift 2
	check_rc "$_name: exit status $_status" "$_status"
	check_out "$_name: nothing on stdout"
	for _w in "$@"; do
		check_has "$_name: message names '$_w'" "$tmp/err" "$_w"
	done
}

# ---- the binary -----------------------------------------------------------

: >"$tmp/empty"
if [ ! -x "$FPREF" ]; then
	not_ok "fpref binary" "an executable at $FPREF" "none"
	printf '%s passed, %s failed\n' "$pass" "$fail"
	exit 1
fi

# =========================================================================
# 1. convert for people
# =========================================================================

run convert --to e4m3 464
check_result 'convert e4m3 464: tie rounds to even 448' 0 \
	'464 -> float8_e4m3fn 7E = 448  flags 01 (inexact)'

run convert --to e4m3 448
check_result 'convert e4m3 448: max finite, exact' 0 \
	'448 -> float8_e4m3fn 7E = 448  flags 00 (none)'

run convert --to e4m3 465
check_result 'convert e4m3 465: overflow to NaN' 0 \
	'465 -> float8_e4m3fn 7F = nan  flags 05 (inexact overflow)'

run convert --to e4m3 -465
check_result 'convert e4m3 -465: a negative value, not an option' 0 \
	'-465 -> float8_e4m3fn FF = -nan  flags 05 (inexact overflow)'

run convert -464 --to e4m3
check_result 'convert -464 before --to' 0 \
	'-464 -> float8_e4m3fn FE = -448  flags 01 (inexact)'

run convert --to e4m3 -0 -.5 -0x1p3
check_result 'convert e4m3 -0 -.5 -0x1p3: negative spellings' 0 \
	'-0 -> float8_e4m3fn 80 = -0  flags 00 (none)' \
	'-.5 -> float8_e4m3fn B0 = -0.5  flags 00 (none)' \
	'-0x1p3 -> float8_e4m3fn D0 = -8  flags 00 (none)'

run convert --to e5m2 -inf
check_result 'convert e5m2 -inf' 0 \
	'-inf -> float8_e5m2 FC = -inf  flags 00 (none)'

# The value parser takes Inf in any case (see 'Inf' below), so -Inf is a value too.
run convert --to e5m2 Inf
check_result 'convert e5m2 Inf' 0 \
	'Inf -> float8_e5m2 7C = inf  flags 00 (none)'
run convert --to e5m2 -Inf
check_result 'convert e5m2 -Inf: a negative value, not an option' 0 \
	'-Inf -> float8_e5m2 FC = -inf  flags 00 (none)'

run convert --to e4m3 -- -465
check_result 'convert -- -465' 0 \
	'-465 -> float8_e4m3fn FF = -nan  flags 05 (inexact overflow)'

run convert --to e4m3 464 465 0.1
check_result 'convert e4m3 several values, one line each, in order' 0 \
	'464 -> float8_e4m3fn 7E = 448  flags 01 (inexact)' \
	'465 -> float8_e4m3fn 7F = nan  flags 05 (inexact overflow)' \
	'0.1 -> float8_e4m3fn 1D = 0.1015625  flags 01 (inexact)'

run convert --to e5m2 61440 57344
check_result 'convert e5m2 61440 overflows to inf, 57344 is max' 0 \
	'61440 -> float8_e5m2 7C = inf  flags 05 (inexact overflow)' \
	'57344 -> float8_e5m2 7B = 57344  flags 00 (none)'

run convert --to f16 1e-8
check_result 'convert f16 1e-8 underflows to 0' 0 \
	'1e-8 -> float16 0000 = 0  flags 03 (inexact underflow)'

run convert --to f16 65519 65520
check_result 'convert f16 65519 / 65520 (max 65504, tie to inf)' 0 \
	'65519 -> float16 7BFF = 65504  flags 01 (inexact)' \
	'65520 -> float16 7C00 = inf  flags 05 (inexact overflow)'

run convert --to e2m1 5 7
check_result 'convert e2m1 5 (tie to 4) and 7 (no specials: max 6)' 0 \
	'5 -> float4_e2m1fn 6 = 4  flags 01 (inexact)' \
	'7 -> float4_e2m1fn 7 = 6  flags 05 (inexact overflow)'

run convert --to e4m3 --sat 465 -1000
check_result 'convert e4m3 --sat clamps to +-448' 0 \
	'465 -> float8_e4m3fn 7E = 448  flags 05 (inexact overflow)' \
	'-1000 -> float8_e4m3fn FE = -448  flags 05 (inexact overflow)'

run convert --to e4m3 --overflow sat 465
check_result 'convert e4m3 --overflow sat' 0 \
	'465 -> float8_e4m3fn 7E = 448  flags 05 (inexact overflow)'

run convert --to e4m3 --round rtz 479 -479 0.1 1000
check_result 'convert e4m3 --round rtz' 0 \
	'479 -> float8_e4m3fn 7E = 448  flags 01 (inexact)' \
	'-479 -> float8_e4m3fn FE = -448  flags 01 (inexact)' \
	'0.1 -> float8_e4m3fn 1C = 0.09375  flags 01 (inexact)' \
	'1000 -> float8_e4m3fn 7E = 448  flags 05 (inexact overflow)'

run convert --to e4m3 --round rna 464
check_result 'convert e4m3 --round rna 464: tie away, overflow to NaN' 0 \
	'464 -> float8_e4m3fn 7F = nan  flags 05 (inexact overflow)'

run convert --to e4m3 --round rdn 449 -449
check_result 'convert e4m3 --round rdn 449 -449' 0 \
	'449 -> float8_e4m3fn 7E = 448  flags 01 (inexact)' \
	'-449 -> float8_e4m3fn FF = -nan  flags 05 (inexact overflow)'

run convert --from f32 --to f16 3F800000 0x7F800000 3f800001
check_result 'convert --from f32 hex bits' 0 \
	'3F800000 -> float16 3C00 = 1  flags 00 (none)' \
	'0x7F800000 -> float16 7C00 = inf  flags 00 (none)' \
	'3f800001 -> float16 3C00 = 1  flags 01 (inexact)'

run convert --from f16 --to f32 0001 0x8001
check_result 'convert --from f16 subnormals to f32' 0 \
	'0001 -> float32 33800000 = 5.9604644775390625e-08  flags 00 (none)' \
	'0x8001 -> float32 B3800000 = -5.9604644775390625e-08  flags 00 (none)'

run convert --from f16 --to f32 --daz 0001
check_result 'convert --daz reads a subnormal input as 0' 0 \
	'0001 -> float32 00000000 = 0  flags 00 (none)'

run convert --from f32 --to f16 35800000
check_result 'convert f32 2^-20 to an f16 subnormal' 0 \
	'35800000 -> float16 0010 = 9.5367431640625e-07  flags 00 (none)'
run convert --from f32 --to f16 --ftz 35800000
check_result 'convert --ftz flushes the f16 subnormal' 0 \
	'35800000 -> float16 0000 = 0  flags 03 (inexact underflow)'

# The seed's loss-scaling chain as conversions: 1e-8*1024 in FP32 is 372BCC77
# (scaling by 2^10 commutes with rounding), FP16 of it is 00AC = 172*2^-24,
# back in FP32 that is 372C0000, and /1024 is 322C0000 = 0x1.58p-27.
run convert --to f32 1e-8 1.024e-5
check_result 'convert f32 1e-8 and 1.024e-5 (seed: 322BCC77, 372BCC77)' 0 \
	'1e-8 -> float32 322BCC77 = 9.99999993922529029077850282192230224609375e-09  flags 01 (inexact)' \
	'1.024e-5 -> float32 372BCC77 = 1.02399999377666972577571868896484375e-05  flags 01 (inexact)'
run convert --from f32 --to f16 372BCC77
check_result 'convert f32 372BCC77 to f16 00AC' 0 \
	'372BCC77 -> float16 00AC = 1.02519989013671875e-05  flags 03 (inexact underflow)'
run convert --from f16 --to f32 00AC
check_result 'convert f16 00AC to f32 372C0000' 0 \
	'00AC -> float32 372C0000 = 1.02519989013671875e-05  flags 00 (none)'

# =========================================================================
# 2. convert batch: TestFloat lines on stdin
# =========================================================================

printf '3F800000\n7F800000\n00000001\n' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_result 'batch f32->f16: operand result flags' 0 \
	'3F800000 3C00 00' \
	'7F800000 7C00 00' \
	'00000001 0000 03'

# As testfloat_gen writes them: operand, expected result, flags; only the
# operand counts (the other tokens here are deliberately wrong).
printf '3F800000 FFFF 1F\n40000000\t0000 00 extra\n' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_result 'batch uses only the first token of each line' 0 \
	'3F800000 3C00 00' \
	'40000000 4000 00'

printf '3F800000\r\n' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_result 'batch accepts CRLF line ends' 0 '3F800000 3C00 00'

printf '3F800000\n40000000' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_result 'batch reads a last line without newline' 0 \
	'3F800000 3C00 00' \
	'40000000 4000 00'

printf '7E\n7F\nFE\n01\n' >"$tmp/in"
run_in "$tmp/in" convert --from e4m3 --to f16
check_result 'batch e4m3->f16 (448, NaN, -448, 2^-9)' 0 \
	'7E 5F00 00' \
	'7F 7E00 00' \
	'FE DF00 00' \
	'01 1800 00'

printf '1.5\n-2\n464\n' >"$tmp/in"
run_in "$tmp/in" convert --to e4m3
check_result 'batch of decimals without --from' 0 \
	'1.5 3C 00' \
	'-2 C0 00' \
	'464 7E 01'

run_in "$tmp/empty" convert --from f32 --to f16
check_result 'batch: empty input, empty output, exit 0' 0

# =========================================================================
# 3. bad input: exit 2, a message naming the problem, nothing on stdout
# =========================================================================

run convert --to e9m9x 1
check_bad 'unknown format' 2 "'e9m9x'" 'choices' 'e4m3' 'bf16' 'e2m1'

# A family's name is answered with its members, never with the nearest
# spelling (fp8 is one edit from fp4, which is no FP8 format).
run convert --to fp8 1
check_bad 'fp8: a family' 2 'FP8 is a family' 'e4m3' 'e5m2'
if grep -q 'did you mean' "$tmp/err"; then not_ok 'fp8: no nearest-spelling guess' 'no "did you mean"' "$(cat "$tmp/err")"; else ok 'fp8: no nearest-spelling guess'; fi
run convert --to NVFP4 1
check_bad 'nvfp4: a scheme, not an element format' 2 'not an element format' 'quantize --scheme nvfp4'

run convert --to e4m3 --round banana 1
check_bad 'unknown rounding mode' 2 "'banana'" 'rne' 'rna' 'rtz' 'rup' 'rdn' 'rod' 'sr'

run convert --to e4m3 --overflow clamp 1
check_bad 'unknown overflow policy' 2 "'clamp'" 'ieee' 'sat'

run convert --to e4m3 abc
check_bad 'malformed number' 2 "'abc'"

run bench --isa avx3
check_bad 'bench --isa: an instruction set no build has' 2 "'avx3'" 'avx512' 'avx2' 'base'
run bench --isa base --peers
check_bad 'bench --isa with --peers' 2 '--isa'
# --only: the rows whose name holds the text, and the reference row
run bench --only 'quantize mxfp8' --size 12 --repeat 1 --json
check_rc 'bench --only: runs' 0
check_count 'bench --only: the reference row and the two quantize mxfp8 rows' "$tmp/out" '"row": ' 3
check_has 'bench --only: the reference row first' "$tmp/out" '"reference_row": "f32 -> float8_e4m3fn rne"'
check_has 'bench --only: the report row' "$tmp/out" '"row": "quantize mxfp8 +report"'
run bench --only no-such-row --size 4 --repeat 1 --json
check_bad 'bench --only: text no row holds' 2 "'no-such-row'" 'no row'
run bench --only float16 --peers
check_bad 'bench --only with --peers' 2 '--only' '--peers'

printf '38 38 0\n' >"$tmp/dot1"
# --shape (issue 37, D2): a shape the preset's ISA lacks, a model with no
# shapes, and a lowered output are refused, each saying why.
run_in "$tmp/dot1" dot --model h100-mma --in e4m3 --shape m16n8k8
check_bad 'dot --shape on a lowered output' 2 'lowers' 'FP16 instructions'
run_in "$tmp/dot1" dot --model h100-mma --in f16 --shape m16n8k4
check_bad 'dot --shape the ISA lacks' 2 "'m16n8k4'" 'm16n8k8,m16n8k16'
run_in "$tmp/dot1" dot --model generic --block 8 --frac 25 --in f16 --shape m16n8k8
check_bad 'dot --shape with generic' 2 '--shape' '--block'

# A repeated option is refused, never silently replaced by its last value
# (issue 36: --in e4m3 --in e5m2 read both operands as E5M2).
printf '38 38 0\n' >"$tmp/dot1"
run_in "$tmp/dot1" dot --model h100 --in e4m3 --in e5m2
check_bad 'dot --in twice' 2 '--in' 'twice' "'e4m3'" "'e5m2'"
run gemm --model h100 --in e4m3 --size 2x2x16 --seed 1 --seed 2
check_bad 'gemm --seed twice' 2 '--seed' 'twice'
run convert --to e4m3 --to e5m2 1
check_bad 'convert --to twice (a shared option)' 2 '--to' 'twice'
run convert --to e4m3 --sat --sat 1000
check_bad 'convert --sat twice (a flag)' 2 '--sat' 'twice'

# A and B of two formats (issue 36): --in-a and --in-b, --in for both.
# Hand-worked: 3C is 1.0 in E5M2 and 1.5 in E4M3; 44 is 3.0 in E4M3 and
# 4.0 in E5M2.  a E5M2 x b E4M3 is 3.0 (40400000), where both in E4M3
# give 4.5 (40900000), both in E5M2 4.0 (40800000), and a E4M3 x b E5M2
# 6.0 (40C00000).  3C x 40 (E4M3 2.0) is 2.0.
printf '3C 40 0\n' >"$tmp/mixed1"
run_in "$tmp/mixed1" dot --model h100-wgmma --in-a e5m2 --in-b e4m3
check_result 'dot --in-a e5m2 --in-b e4m3: 1.0 x 2.0' 0 '3C 40 0 40000000'
printf '3C 44 0\n' >"$tmp/mixed"
for pair in 'e5m2 e4m3 40400000' 'e4m3 e4m3 40900000' 'e5m2 e5m2 40800000' 'e4m3 e5m2 40C00000'; do
	set -- $pair
	run_in "$tmp/mixed" dot --model h100-wgmma --in-a "$1" --in-b "$2"
	check_result "dot h100-wgmma, a $1 x b $2: 3C x 44 by hand" 0 "3C 44 0 $3"
done
for model in exact recursive 'generic --block 16 --frac 25'; do
	run_in "$tmp/mixed" dot --model $model --in-a e5m2 --in-b e4m3
	check_result "dot --model $model, a e5m2 x b e4m3 (any pair)" 0 '3C 44 0 40400000'
done
run_in "$tmp/mixed" dot --model h100-wgmma --in-a e5m2 --in-b e4m3 --json
check_match 'dot --json names both formats' "$tmp/out" '^{"in": null, "in_a": "float8_e5m2", "in_b": "float8_e4m3fn", '
run_in "$tmp/mixed" dot --model h100-wgmma --in-a f16 --in-b e4m3
check_bad 'dot: a pair the preset does not take' 2 'h100-wgmma' 'float16 x float8_e4m3fn' \
	'float8_e5m2 x float8_e4m3fn' 'float16 x float16'
run_in "$tmp/mixed" dot --model h100 --in-a bf16 --in-b f16
check_bad 'dot: h100 takes no bf16 x f16' 2 'bfloat16 x float16' 'bfloat16 x bfloat16'
run_in "$tmp/mixed" dot --model h100-wgmma --in e4m3 --in-a e5m2 --in-b e4m3
check_bad 'dot: --in with --in-a' 2 '--in' '--in-a'
run_in "$tmp/mixed" dot --model h100-wgmma --in-a e5m2
check_bad 'dot: --in-a without --in-b' 2 '--a-format needs --b-format'
run_in "$tmp/mixed" dot --model h100-wgmma
check_bad 'dot: no input format' 2 '--in-format FMT' '--a-format'
run probe gen --in-a e5m2 --in-b e4m3 --output f32 --k 32 --out "$tmp/probe-ab.txt"
check_rc 'probe gen: two formats make one probe file (exit 0)' 0
check_has 'probe gen: its header names the pair' "$tmp/probe-ab.txt" '# formats h100 float8_e5m2*float8_e4m3fn -> float32'
run probe gen --inputs e4m3 --in-a e4m3 --in-b e4m3 --output f32 --k 32
check_bad 'probe gen: --inputs with --in-a' 2 '--inputs' '--in-a'
run probe gen --in-a e4m3 --in-b e4m3 --output f32 --k 32 --model h100
check_rc 'probe gen: --in-a and --in-b of one format' 0
check_has 'probe gen --in-a/--in-b: the probe file' "$tmp/out" 'float8_e4m3fn'

# NaN bits (issue 37, N1): NVIDIA's units give the all-ones NaN, 7FFFFFFF
# (FP32) or 7FFF (FP16), whatever the NaN or the infinities that made it;
# CDNA keeps the format's default NaN.  inf + (-inf):
printf '7C00 FC00 3C00 3C00 0\n' >"$tmp/nan1"
run_in "$tmp/nan1" dot --model tcgen05 --in f16
check_result 'dot tcgen05: inf - inf gives 7FFFFFFF' 0 '7C00 FC00 3C00 3C00 0 7FFFFFFF'
run_in "$tmp/nan1" dot --model h100-wgmma --in f16 --out f16
check_result 'dot h100-wgmma -> f16: inf - inf gives 7FFF' 0 '7C00 FC00 3C00 3C00 0 7FFF'
run_in "$tmp/nan1" dot --model mfma-cdna3 --in f16
check_result 'dot mfma-cdna3: the default NaN (7FC00000)' 0 '7C00 FC00 3C00 3C00 0 7FC00000'
printf 'FE 38 0\n' >"$tmp/nan2"
run_in "$tmp/nan2" dot --model h100-mma --in e5m2 --out f16
check_result 'dot h100-mma (lowered), a negative NaN input: 7FFF' 0 'FE 38 0 7FFF'
# --model takes chips by name (the H200 the project measured on) and names in any case
run_in "$tmp/dot1" dot --model H200 --in e4m3
check_result 'dot --model H200: the h100 preset' 0 '38 38 0 3F800000'
run_in "$tmp/dot1" dot --model l40s --in e5m2
check_result 'dot --model l40s: the ada preset (0.5 x 0.5)' 0 '38 38 0 3E800000'
run_in "$tmp/dot1" dot --model Exact --in e4m3
check_result 'dot --model Exact' 0 '38 38 0 3F800000'
"$FPREF" --help >"$tmp/out" 2>"$tmp/err"
for chip in h200 gh200 l40s rtx-4090 b200 mi300x; do check_has "fpref --help lists the chip $chip" "$tmp/out" "$chip"; done

run convert --to e4m3 1 abc
check_rc 'malformed second value: exit status 2' 2
check_out 'malformed second value: stdout holds only the first' \
	'1 -> float8_e4m3fn 38 = 1  flags 00 (none)'

run convert 1
check_bad 'missing --to' 2 '--to'

run convert --to
check_bad '--to without a value' 2 '--to'

run convert --to e4m3 --frobnicate 1
check_bad 'unknown option' 2 "'--frobnicate'"

run convert --to e4m3 -x
check_bad 'unknown short option' 2 "'-x'"

run frobnicate
check_bad 'unknown command' 2 "'frobnicate'" 'convert'

run
check_rc 'no command: exit status 2' 2
check_out 'no command: nothing on stdout'
check_has 'no command: usage on stderr' "$tmp/err" 'usage: fpref'

run convert --to e4m3 --round sr --sr-bits zz 1
check_bad 'malformed --sr-bits' 2 'zz'

run explain --to e4m3
check_bad 'explain without a value' 2 'explain'

run table
check_bad 'table without a format' 2 'table'

run formats extra
check_bad 'formats with a stray value' 2 "'extra'"

printf '3F800000\n40000000\nxyz\n40400000\n' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_rc 'batch bad line 3: exit status 2' 2
check_out 'batch bad line 3: every good line is answered, line 3 is not' \
	'3F800000 3C00 00' \
	'40000000 4000 00' \
	'40400000 4200 00'
check_has 'batch bad line 3: the summary on stderr' "$tmp/err" '4 lines, 1 rejected'
check_has "batch bad line 3: message says 'line 3'" "$tmp/err" 'line 3'
check_has 'batch bad line 3: message names the token' "$tmp/err" "'xyz'"
printf '3C00 3C00\n3C00\n4000 zz\n4000 4000\n' >"$tmp/in"
run_in "$tmp/in" op add --fmt f16
check_rc 'op batch, two bad lines: exit status 2' 2
check_out 'op batch, two bad lines: the good ones answered' '3C00 3C00 4000 00' '4000 4000 4400 00'
check_has 'op batch: the line with too few operands' "$tmp/err" 'line 2: add needs 2 operands, found 1'
check_has "op batch: the line with a bad token" "$tmp/err" "line 3: "
check_has 'op batch: the summary' "$tmp/err" '4 lines, 2 rejected'
printf '3C00 3C00 00000000\n3C00 3C00\n3C00 4000 3F800000\n' >"$tmp/in"
run_in "$tmp/in" dot --model h100 --in f16
check_rc 'dot batch, a bad line: exit status 2' 2
check_out 'dot batch, a bad line: the others answered (1*1+0 = 1, 1*2+1 = 3)' '3C00 3C00 00000000 3F800000' '3C00 4000 3F800000 40400000'
check_has 'dot batch: the summary' "$tmp/err" '3 lines, 1 rejected'
printf '3F800000\n40000000\n' >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_result 'batch with no bad line: exit 0, no summary' 0 '3F800000 3C00 00' '40000000 4000 00'
if [ -s "$tmp/err" ]; then not_ok 'batch with no bad line: stderr empty' '' "$(cat "$tmp/err")"; else ok 'batch with no bad line: stderr empty'; fi

# A line of 16 + 8 + 1 + 4096 bytes.
s=0123456789abcdef
for i in 1 2 3 4 5 6 7 8; do
	s=$s$s
done
printf '3F800000\n3F800000 %s\n' "$s" >"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_rc 'batch line over 4096 bytes: exit status 2' 2
check_out 'batch line over 4096 bytes: line 1 answered, line 2 not' '3F800000 3C00 00'
check_has "batch line over 4096 bytes: message says 'line 2'" "$tmp/err" 'line 2'
check_has 'batch line over 4096 bytes: message says 4096' "$tmp/err" '4096'

printf '3F800000\n4000' >"$tmp/in"
printf '\000' >>"$tmp/in"
printf '0000\n40400000\n' >>"$tmp/in"
run_in "$tmp/in" convert --from f32 --to f16
check_rc 'batch NUL byte: exit status 2' 2
check_out 'batch NUL byte: lines 1 and 3 answered' '3F800000 3C00 00' '40400000 4200 00'
check_has "batch NUL byte: message says 'line 2'" "$tmp/err" 'line 2'

run convert --from e4m3 --to f16 1FF
check_bad 'hex 1FF too wide for e4m3' 2 "'1FF'"

run convert --from e2m1 --to f16 10
check_bad 'hex 10 too wide for e2m1' 2 "'10'"

run convert --from f64 --to f16 10000000000000000
check_bad 'hex of 17 digits too wide for f64' 2 '10000000000000000'

run convert --from e4m3 --to f16 zz
check_bad 'not hex for --from' 2 "'zz'"

printf '7E\n1FF\n' >"$tmp/in"
run_in "$tmp/in" convert --from e4m3 --to f16
check_rc 'batch hex too wide: exit status 2' 2
check_out 'batch hex too wide: stdout holds only line 1' '7E 5F00 00'
check_has "batch hex too wide: message says 'line 2'" "$tmp/err" 'line 2'
check_has 'batch hex too wide: message names the token' "$tmp/err" "'1FF'"

run explain 1FF --from e4m3 --to f16
check_bad 'explain hex too wide' 2 "'1FF'"

run explain abc --to e4m3
check_bad 'explain malformed number' 2 "'abc'"

# =========================================================================
# 4. explain
# =========================================================================

run explain 464 --to e4m3
check_rc 'explain 464 e4m3: exit status 0' 0
check_match 'explain 464 e4m3: rule is a tie' "$tmp/out" '^rule .*tie'
check_match 'explain 464 e4m3: neighbour 448 (7E)' "$tmp/out" '^neighbours *448 = 7E'
check_match 'explain 464 e4m3: neighbour 480' "$tmp/out" '^ *and 480 '
check_match 'explain 464 e4m3: result 7E = 448' "$tmp/out" '^result *7E .*= 448$'
check_match 'explain 464 e4m3: flags 01' "$tmp/out" '^flags *01 (inexact)$'

run explain -465 --to e4m3
check_rc 'explain -465 e4m3: exit status 0' 0
check_match 'explain -465 e4m3: result FF' "$tmp/out" '^result *FF '
check_match 'explain -465 e4m3: flags 05' "$tmp/out" '^flags *05 '

# The seed's worked example: a gradient of 1e-8 is 0 in FP16 ...
run explain 1e-8 --to f16
check_rc 'explain 1e-8 f16: exit status 0' 0
check_match 'explain 1e-8 f16: result 0000' "$tmp/out" '^result *0000 .*= 0$'
check_match 'explain 1e-8 f16: flags 03' "$tmp/out" '^flags *03 '

# ... scaled by 1024 in FP32 it becomes FP16 00AC, 1.0251998901367188e-05 in NumPy ...
run explain 372BCC77 --from f32 --to f16
check_rc 'explain 372BCC77 f32->f16: exit status 0' 0
check_match 'explain 372BCC77 f32->f16: result 00AC' "$tmp/out" '^result *00AC '
check_has 'explain 372BCC77 f32->f16: NumPy spelling' "$tmp/out" '1.0251998901367188e-05'

# ... and /1024 in FP32 recovers 1.0011717677116394e-08.
run explain 0x1.58p-27 --to f32
check_rc 'explain 0x1.58p-27 f32: exit status 0' 0
check_match 'explain 0x1.58p-27 f32: result 322C0000' "$tmp/out" '^result *322C0000 '
check_has 'explain 0x1.58p-27 f32: NumPy spelling' "$tmp/out" '1.0011717677116394e-08'
check_match 'explain 0x1.58p-27 f32: flags 00' "$tmp/out" '^flags *00 '

# =========================================================================
# 5. table
# =========================================================================

run table e2m1
check_rc 'table e2m1: exit status 0' 0
check_lines 'table e2m1: header, column headings + 16 lines' "$tmp/out" 18
check_count 'table e2m1: 16 encoding lines 0..F' "$tmp/out" '^[0-9A-F] ' 16
check_match 'table e2m1: header line first' "$tmp/out" '^#.*float4_e2m1fn'
check_match 'table e2m1: code 7 is 6' "$tmp/out" '^7 .* 6$'
check_match 'table e2m1: column headings' "$tmp/out" '^code  s exp man  class'
check_match 'table e2m1: code F is -6' "$tmp/out" '^F .* -6$'
check_match 'table e2m1: code 1 is 0.5' "$tmp/out" '^1 .* 0\.5$'

run table e4m3
check_rc 'table e4m3: exit status 0' 0
check_lines 'table e4m3: header, column headings + 256 lines' "$tmp/out" 258
check_match 'table e4m3: 7E is 448' "$tmp/out" '^7E .* 448$'

run table f16
check_bad 'table f16 refused' 2 'float16'

# integer formats as integers (the code's bits, k, its value), not as their float grid
run table int4
check_rc 'table int4: exit status 0' 0
check_lines 'table int4: two headers, column headings + 16 lines' "$tmp/out" 19
check_match 'table int4: the range line' "$tmp/out" "^# two's complement integer of 4 bits, k -8\.\.7, value k (step 1), range -8\.\.7, not symmetric$"
check_match 'table int4: column headings' "$tmp/out" '^code  bits  k     class     exact value$'
check_match 'table int4: code 8 is k -8' "$tmp/out" '^8  *1000  *-8  *negative  *-8$'
check_match 'table int4: code 7 is k 7' "$tmp/out" '^7  *0111  *7  *positive  *7$'
check_count 'table int4: no exponent or subnormal words' "$tmp/out" 'subnormal|normal |exp man|bias' 0
run table int4_sym
check_match 'table int4_sym: symmetric' "$tmp/out" 'k -7\.\.7, .*symmetric (the code of k = -8 is never produced)'
check_match 'table int4_sym: code 8 unused' "$tmp/out" '^8  *1000  *-8  *unused '
run table mxint8
check_match 'table mxint8: step 2^-6' "$tmp/out" 'k -128\.\.127, value k \* 2^-6 (step 0\.015625), range -2\.\.1\.984375'
check_match 'table mxint8: 80 is k -128, -2' "$tmp/out" '^80  *10000000  *-128  *negative  *-2$'
run table uint2
check_match 'table uint2: unsigned' "$tmp/out" '^# unsigned integer of 2 bits, k 0\.\.3, value k (step 1), range 0\.\.3$'
run explain 3.7 --to int8
check_match 'explain int8: format line in integer terms' "$tmp/out" "^format       int8: two's complement integer of 8 bits, k -128\.\.127, value k (step 1), range -128\.\.127, not symmetric; saturating"
check_match 'explain int8: neighbour k 3' "$tmp/out" '^neighbours   3 = 03 \[k 3\]$'
check_match 'explain int8: result k 4' "$tmp/out" '^result       04 \[k 4\] = 4$'
check_count 'explain int8: no exponent bits' "$tmp/out" 'exponent bits|bias' 0
run explain -0.3 --to mxint8
check_match 'explain mxint8: result k -19' "$tmp/out" '^result       ED \[k -19\] = -0\.296875$'

# =========================================================================
run table e3m2,bias=2
check_match 'table of a custom format: headed by its full descriptor' "$tmp/out" '^# e3m2,bias=2,specials=ieee,subnormals=on,zero=on: a custom format of 6 bits$'
run formats
check_match 'formats: column headings' "$tmp/out" '^name  *alias  *bits  *layout  *bias  *specials  *subnormals  *max finite'
check_match 'formats: columns aligned (float16 max finite under its heading)' "$tmp/out" '^float16  .* 65504  '
check_has 'formats: other spellings listed' "$tmp/out" 'half, fp16'
# readable in a terminal: no line past 121 columns (the rows were 199, the P3109 rule 383),
# FP32's max as a number (it read 16777215x2^104), every pattern still listed
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$tmp/out")
if [ "$widest" -le 121 ]; then ok "formats: no line wider than 121 ($widest)"; else not_ok 'formats: width' 'at most 121 columns' "$widest"; fi
check_match 'formats: FP32 max finite ~3.403e+38 (FLT_MAX 340282346638528859811704183484516925440)' "$tmp/out" '^float32 .* ~3\.403e+38  *2^-126  *2^-149  *2^-23$'
check_match 'formats: float64 +inf and NaN patterns' "$tmp/out" '^  float64  *7FF0000000000000  *7FF8000000000000$'
check_match 'formats: e4m3fn has no inf, NaN 7F' "$tmp/out" '^  float8_e4m3fn  *-  *7F$'

# 6. formats
# =========================================================================

run formats
check_rc 'formats: exit status 0' 0
check_count 'formats: 16 format rows' "$tmp/out" '^(float|tf32|bfloat)' 16
for name in float64 float32 tf32 bfloat16 float16 float8_e5m2 float8_e4m3fn \
	float8_e4m3 float8_e4m3fnuz float8_e5m2fnuz float8_e4m3b11fnuz float8_e3m4 \
	float8_e8m0fnu float6_e2m3fn float6_e3m2fn float4_e2m1fn; do
	check_match "formats: lists $name" "$tmp/out" "^$name "
done

run formats --json
check_rc 'formats --json: exit status 0' 0
first=$(sed -n '1p' "$tmp/out")
last=$(sed -n '$p' "$tmp/out")
if [ "$first" = '[' ]; then ok 'formats --json: starts with ['; else not_ok 'formats --json: starts with [' '[' "$first"; fi
if [ "$last" = ']' ]; then ok 'formats --json: ends with ]'; else not_ok 'formats --json: ends with ]' ']' "$last"; fi
check_count 'formats --json: 16 objects' "$tmp/out" '"name":' 16
grep -F '"name":"float8_e4m3fn"' "$tmp/out" >"$tmp/obj"
check_has 'formats --json: e4m3fn max_finite 448' "$tmp/obj" '"max_finite":"448"'
grep -F '"name":"float8_e5m2"' "$tmp/out" >"$tmp/obj"
check_has 'formats --json: e5m2 max_finite 57344' "$tmp/obj" '"max_finite":"57344"'
grep -F '"name":"float16"' "$tmp/out" >"$tmp/obj"
check_has 'formats --json: float16 max_finite 65504' "$tmp/obj" '"max_finite":"65504"'
# the P3109 family: the array's last entry, its rule the text table's "family" line
grep -F '"family":"binaryKpP{s,u}{e,f}"' "$tmp/out" >"$tmp/obj"
check_count 'formats --json: one P3109 family entry' "$tmp/obj" '"family":' 1
tail -n 2 "$tmp/out" | head -n 1 >"$tmp/last"
check_has 'formats --json: the family is the last entry' "$tmp/last" '"family":"binaryKpP{s,u}{e,f}"'
# the text folds the rule at column 100: its lines joined again
rule=$("$FPREF" formats | awk '/^family /{ sub(/^family /, ""); r = $0; on = 1; next } on && /^  /{ sub(/^  /, ""); r = r " " $0; next } { on = 0 } END { print r }')
check_has 'formats --json: the family rule as the text prints it' "$tmp/obj" "\"rule\":\"$rule\""
check_has 'formats --json: K 3..16' "$tmp/obj" '"k_min":3,"k_max":16'

# =========================================================================
# 7. --help and --version
# =========================================================================

run --help
check_rc '--help: exit status 0' 0
check_match '--help: usage on stdout' "$tmp/out" '^usage: fpref '

run --version
check_rc '--version: exit status 0' 0
check_match "--version: prints 'fpref '" "$tmp/out" '^fpref '

# =========================================================================
# 8. stochastic rounding
# =========================================================================

# 0x1.01p0 = 1 + 2^-8 lies halfway between bf16 1 (3F80) and 1 + 2^-7 (3F81);
# with 4 random bits the discarded bits are T = 1000b = 8 and the value goes
# up iff T + R >= 2^4.
run convert --to bf16 --round sr --sr-bits 4:7 0x1.01p0
check_result 'sr 4:7 keeps 3F80' 0 '0x1.01p0 -> bfloat16 3F80 = 1  flags 01 (inexact)'
run convert --to bf16 --round sr --sr-bits 4:8 0x1.01p0
check_result 'sr 4:8 goes up to 3F81' 0 '0x1.01p0 -> bfloat16 3F81 = 1.0078125  flags 01 (inexact)'

i=0
: >"$tmp/in"
while [ $i -lt 20 ]; do
	printf '3F808%03X\n' $((i * 37)) >>"$tmp/in"
	i=$((i + 1))
done
run_in "$tmp/in" convert --from f32 --to bf16 --round sr --sr-bits seed=5
rc1=$rc
saved=0
sed -n p "$tmp/out" >"$tmp/sr1" && saved=1
run_in "$tmp/in" convert --from f32 --to bf16 --round sr --sr-bits seed=5
if [ "$rc1" = 0 ] && [ "$rc" = 0 ] && [ "$saved" = 1 ] && cmp -s "$tmp/sr1" "$tmp/out"; then
	ok 'sr seed=5: two runs give identical output'
else
	not_ok 'sr seed=5: two runs give identical output' 'identical output, exit 0 twice' "exit $rc1 and $rc"
	show 'first run' "$tmp/sr1"
	show 'second run' "$tmp/out"
fi
check_count 'sr seed=5: 20 lines, each 3F80 or 3F81, inexact' "$tmp/out" \
	'^3F808[0-9A-F]{3} 3F8[01] 01$' 20
check_match 'sr seed=5: some round down' "$tmp/out" ' 3F80 01$'
check_match 'sr seed=5: some round up' "$tmp/out" ' 3F81 01$'
run_in "$tmp/in" convert --from f32 --to bf16 --round sr --sr-bits seed=6
if cmp -s "$tmp/sr1" "$tmp/out"; then
	not_ok 'sr seed=6 differs from seed=5' 'different output' 'identical output'
else
	ok 'sr seed=6 differs from seed=5'
fi

# =========================================================================
# 9. output and input errors
# =========================================================================

if [ -w /dev/full ]; then
	"$FPREF" formats >/dev/full 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 0 ]; then ok 'formats > /dev/full: non-zero exit'; else not_ok 'formats > /dev/full: non-zero exit' 'non-zero' "$rc"; fi
	check_match 'formats > /dev/full: message on stderr' "$tmp/err" '^fpref formats: .'

	"$FPREF" convert --from f32 --to f16 <"$tmp/in" >/dev/full 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 0 ]; then ok 'batch > /dev/full: non-zero exit'; else not_ok 'batch > /dev/full: non-zero exit' 'non-zero' "$rc"; fi
	check_match 'batch > /dev/full: message on stderr' "$tmp/err" '^fpref convert: .'
else
	printf '# skip: no writable /dev/full\n'
fi

# Reading a directory fails (EISDIR): a failure, exit 1, not bad input.
"$FPREF" convert --from f32 --to f16 </ >"$tmp/out" 2>"$tmp/err"
rc=$?
check_rc 'batch read error: exit status 1' 1
check_match 'batch read error: message on stderr' "$tmp/err" '^fpref convert: cannot read standard input'

# =========================================================================
# 10. op: arithmetic, for people and as a TestFloat filter
#   f16: 1 = 3C00, 2^-10 = 1400, 1 + 2^-10 = 3C01; 2048 = 6800, and 2048 + 1
#   is the tie 2048|2050 -> even 2048 (the seeds' swamping); max 65504 = 7BFF,
#   doubled it overflows to inf 7C00; 2^-24 * 0.5 ties to 0 (inexact|underflow).
#   e4m3: 1 = 38; 1/0 has no inf to go to: NaN 7F, infinite|invalid.
# =========================================================================

run op add --fmt f16 3C00 1400
check_result 'op add for people' 0 'add float16 3C00 (1) 1400 (0.0009765625) = 3C01 (1.0009765625)  flags 00 (none)'
run op add --fmt f16 --numbers 2048 1
check_result 'op add --numbers: swamped tie' 0 'add float16 6800 (2048) 3C00 (1) = 6800 (2048)  flags 01 (inexact)'
run op div --fmt e4m3 38 00
check_result 'op div e4m3 1/0' 0 'div float8_e4m3fn 38 (1) 00 (0) = 7F (nan)  flags 18 (infinite invalid)'
printf '3C00 3C00\n7BFF 7BFF\n0001 3800\n' >"$tmp/mul"
for engine in emu ref; do
	run_in "$tmp/mul" op mul --fmt f16 --engine $engine
	check_result "op mul batch ($engine)" 0 '3C00 3C00 3C00 00' '7BFF 7BFF 7C00 05' '0001 3800 0000 03'
done
printf '3C00 3C00\n7E00 7E00\n' >"$tmp/eq"
run_in "$tmp/eq" op eq --fmt f16
check_result 'op eq batch: NaN is not equal to itself' 0 '3C00 3C00 1 00' '7E00 7E00 0 00'
printf '3C00 3C00 BC00\n' >"$tmp/fma"
run_in "$tmp/fma" op fma --fmt f16 --round rdn
check_result 'op fma exact zero toward -inf is -0' 0 '3C00 3C00 BC00 8000 00'
printf '3C00 3C00\n3C00\n' >"$tmp/short"
run_in "$tmp/short" op add --fmt f16
check_result 'op batch: lines before a bad one answered' 2 '3C00 3C00 4000 00'
check_has 'op batch: message names the line' "$tmp/err" 'line 2'
check_has 'op batch: message says what is missing' "$tmp/err" 'needs 2 operands'
run op add --fmt f16 3C00
check_bad 'op: wrong operand count' 2 'takes 2 operands'
run op frob --fmt f16 3C00
check_bad 'op: unknown operation' 2 "'frob'" 'add, sub'
run op add 3C00 3C00
check_bad 'op: missing --fmt' 2 'needs --format FMT'
run op add --fmt custom:e8m55 0 0
check_bad 'op: too wide for the arithmetic' 2 'up to 52'
run op add --fmt f16 3C00 GG
check_bad 'op: bad pattern' 2 "'GG'"

# =========================================================================
# 11. profiles (../shared/SEMANTICS.md): CUDA turns any NaN into 7F and
#   saturates with --sat; ONNX opsets 19-23 saturate by default but send inf
#   to NaN (80) in FNUZ; explicit options override the profile.
# =========================================================================

run convert --profile cuda --from f32 --to e4m3 FFC00000 43E88000
check_result 'profile cuda: NaN is 7F, overflow NaN keeps its sign' 0 \
	'FFC00000 -> float8_e4m3fn 7F = nan  flags 00 (none)' \
	'43E88000 -> float8_e4m3fn 7F = nan  flags 05 (inexact overflow)'
run convert --profile cuda --from bf16 --to f32 7F81
check_result 'profile cuda: __bfloat162float keeps the bits of a NaN (source-specific row)' 0 \
	'7F81 -> float32 7F810000 = nan  flags 10 (invalid)'
run convert --profile cuda --round rtz --from f32 --to e8m0 C0400000 0
check_result 'profile cuda: E8M0 takes |x|, zero clips to 2^-127' 0 \
	'C0400000 -> float8_e8m0fnu 80 = 2  flags 01 (inexact)' \
	'0 -> float8_e8m0fnu 00 = 5.8774717541114375398436826861112283890933277838604376075437585313920862972736358642578125e-39  flags 01 (inexact)'
run convert --profile onnx-cast-19 --from f32 --to e4m3fnuz 7F800000 447A0000
check_result 'profile onnx-cast-19: FNUZ inf is NaN, finite overflow saturates' 0 \
	'7F800000 -> float8_e4m3fnuz 80 = nan  flags 10 (invalid)' \
	'447A0000 -> float8_e4m3fnuz 7F = 240  flags 05 (inexact overflow)'
run convert --profile onnx-cast-19 --overflow ieee --from f32 --to e4m3fnuz 447A0000
check_result 'profile with --overflow ieee (saturate=0)' 0 '447A0000 -> float8_e4m3fnuz 80 = nan  flags 05 (inexact overflow)'
run convert --profile tensorflow --to e4m3 1
check_bad 'unknown profile' 2 "'tensorflow'" 'cuda' 'ml_dtypes'

# =========================================================================
# 12. dot: tensor-core models.  Eight products 1*1 plus C = 1 is 5 on any
#   model; with FP16 output 1*1 + 2 = 3 (4200).
# =========================================================================

printf '3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3F800000\n' >"$tmp/dot"
run_in "$tmp/dot" dot --model a100 --in f16
check_result 'dot a100 f16' 0 '3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3F800000 40A00000'
printf '3C00 3C00 4000\n' >"$tmp/dot16"
run_in "$tmp/dot16" dot --model h100 --in f16 --out f16
check_result 'dot h100 f16 -> f16' 0 '3C00 3C00 4000 4200'
run dot --model tpu --in f16
check_bad 'dot: unknown model' 2 'tpu' 'h100'
printf '3C00 3C00\n' >"$tmp/dotbad"
run_in "$tmp/dotbad" dot --model v100 --in f16
check_bad 'dot: even token count' 2 'line 1' 'odd count'

# =========================================================================
# 13. dot with plain orders: 2048 + eight 1*1 in FP16.  Recursive: every +1
#   is a tie that stays at 2048 (6800); exact: 2056 (6804); FP32: 45008000.
# =========================================================================

printf '6800 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 0000\n' >"$tmp/swamp"
run_in "$tmp/swamp" dot --model recursive --in f16 --out f16
check_has 'dot recursive: swamped' "$tmp/out" ' 0000 6800'
run_in "$tmp/swamp" dot --model exact --in f16 --out f16
check_has 'dot exact: 2056' "$tmp/out" ' 0000 6804'
run_in "$tmp/swamp" dot --model kahan --in f16 --out f16
check_has 'dot kahan recovers 2056' "$tmp/out" ' 0000 6804'
printf '6800 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 00000000\n' >"$tmp/swamp32"
run_in "$tmp/swamp32" dot --model recursive --in f16 --out f32
check_has 'dot recursive in FP32: 2056' "$tmp/out" ' 00000000 45008000'
run dot --model blocked --block 0 --in f16
check_bad 'dot: bad --block' 2 "'0'"

# 13b. Block scales on the command line (--scale-a/--scale-b), worked by
# hand.  mfma-cdna4-scale, e4m3 1 * 1 (38) with scales 2^5 and 1, C =
# -2^-20: the scaled sum 32 sets the alignment, C is floored to 24 bits
# below 2^5 (-2^-19), d = 32 - 2^-19 (41FFFFFF); with unit scales d =
# 1 - 2^-20 (3F7FFFF0).  tcgen05-mxf4nvf4, e2m1 1 * 1 (2) with UE4M3 scales
# 1.5 (3C) and 1.5: 2.25 (40100000).  tcgen05-mxf8f6f4, e4m3 1 * 1 with
# scales 0.25 and 2^-1: 2^-3 (3E000000).
printf '38 38 B5800000\n' >"$tmp/scaled"
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3 --scale-a 2^5
check_result 'dot --scale-a 2^5 on mfma-cdna4-scale' 0 '38 38 B5800000 41FFFFFF'
run_in "$tmp/scaled" dot --model mi355x --in e4m3 --scale-a 0x84 --scale-b 1
check_result 'dot --scale-a as a pattern (0x84 = 2^5), mi355x' 0 '38 38 B5800000 41FFFFFF'
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3
check_result 'dot mfma-cdna4-scale without scales: ones' 0 '38 38 B5800000 3F7FFFF0'
printf '2 2 0\n' >"$tmp/nvfp4"
run_in "$tmp/nvfp4" dot --model tcgen05-mxf4nvf4 --in e2m1 --scale-format e4m3 --scale-every 16 --scale-a 1.5 --scale-b 0x3C
check_result 'dot tcgen05-mxf4nvf4 with UE4M3 scales' 0 '2 2 0 40100000'
printf '38 38 0\n' >"$tmp/mx8"
run_in "$tmp/mx8" dot --model tcgen05-mxf8f6f4 --in e4m3 --scale-a 0.25 --scale-b 2^-1
check_result 'dot tcgen05-mxf8f6f4 with E8M0 values' 0 '38 38 0 3E000000'
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3 --scale-a 3
check_bad 'dot: a scale E8M0 does not hold' 2 "'3'" 'power of two'
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3 --scale-a -1
check_bad 'dot: a negative scale' 2 "'-1'" 'positive'
run_in "$tmp/scaled" dot --model recursive --in e4m3 --scale-a 2
check_bad 'dot: scales on a plain order' 2 'tensor-core model'
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3 --scale-a 2 --scale-every 24
check_bad 'dot: scales per 24 on a block of 16' 2 'multiple of 16' '24'
run_in "$tmp/scaled" dot --model tcgen05-mxf8f6f4 --in e4m3 --scale-format e4m3 --scale-a 2
check_bad 'dot: UE4M3 scales on an E8M0 kind' 2 'float8_e8m0fnu'
run_in "$tmp/scaled" dot --model mfma-cdna4-scale --in e4m3 --scale-a 2,4
check_rc 'dot: two scales for one chunk: the line is rejected' 2
check_has 'dot: the rejection says how many scales' "$tmp/err" 'takes 1 scale(s), one per 32 products; --scale-a gives 2'

# 14. promotion (DeepSeek-V3): see docs/tensor-cores.md; 32 x 1*1 then 32 x 2^-9*2^-9 in E4M3 on H100.
line=$(i=0; while [ $i -lt 32 ]; do printf '38 '; i=$((i + 1)); done; i=0; while [ $i -lt 32 ]; do printf '01 '; i=$((i + 1)); done)
printf '%s%s%s0\n' "$line" "$line" "" >"$tmp/promo"
run_in "$tmp/promo" dot --model h100 --in e4m3
check_has 'dot h100 e4m3 alone: 32' "$tmp/out" ' 0 42000000'
run_in "$tmp/promo" dot --model h100 --in e4m3 --promote 32
check_has 'dot h100 e4m3 promoted every 32: 32 + 2^-13' "$tmp/out" ' 0 42000020'
run dot --model recursive --in f16 --promote 32
check_bad 'dot: --promote needs a tensor-core model' 2 '--promote'

# 14. The generic block model: H100 FP8's parameters give the preset's
# answer (32 without promotion, section 12); its options are checked.
run_in "$tmp/promo" dot --model generic --block 32 --frac 13 --floor -133 --final rtz --in e4m3
check_has 'dot generic = h100 e4m3' "$tmp/out" ' 0 42000000'
run dot --model generic --block 32 --in e4m3
check_bad 'dot generic: --frac missing' 2 '--frac'
run dot --model generic --block 99 --frac 13 --in e4m3
check_bad 'dot generic: block out of range' 2 'block 99'
run dot --model generic --block 32 --frac 13 --final rup --in e4m3
check_bad 'dot generic: --final' 2 'rtz or rne'
run dot --model h100 --block 4 --in e4m3
check_bad 'dot h100: --block is the model'"'"'s' 2 'generic'
run dot --model recursive --frac 13 --in f16
check_bad 'dot: --frac without generic' 2 '--frac'
# H100 FP8 with FP16 output (the lowered path): 1*1 + C = 1 is 2 (4000).
printf '38 38 3C00\n' >"$tmp/low"
run_in "$tmp/low" dot --model h100 --in e4m3 --out f16
check_result 'dot h100 e4m3 -> f16' 0 '38 38 3C00 4000'
# The sm_90 FP8 paths (docs/accumulation.md): C = 1 and 32 products
# 2^-9 * 2^-9 = 2^-13 in all.  WGMMA truncates them below C's 13 fraction
# bits (1, as measured on an H200); mma.sync lowered to FP16 adds their
# exact sum to C in FP32 (1 + 2^-13).
ones=$(printf '01 %.0s' $(seq 64))
printf '%s3F800000\n' "$ones" >"$tmp/sm90"
run_in "$tmp/sm90" dot --model h100-wgmma --in e4m3
check_result 'dot h100-wgmma e4m3: C = 1 swallows 32 x 2^-18' 0 "${ones}3F800000 3F800000"
run_in "$tmp/sm90" dot --model h100-mma --in e4m3
check_result 'dot h100-mma e4m3: 1 + 2^-13' 0 "${ones}3F800000 3F800400"
run_in "$tmp/sm90" dot --model h100-mma --in e4m3 --promote 32
check_bad 'dot h100-mma: --promote refused' 2 'h100-wgmma'

# Blackwell and CDNA presets (docs/tensor-cores.md, "Blackwell and AMD CDNA"): the chip
# name answers as its preset; tcgen05's FP8 keeps 25 bits (1 + 2^-13).
run_in "$tmp/sm90" dot --model b200 --in e4m3
check_result 'dot b200 (tcgen05) e4m3: 1 + 2^-13' 0 "${ones}3F800000 3F800400"
# mi355x stands for mfma-cdna4 (inferred): per block of 16, two halves of
# eight 2^-18 sum exactly to 2^-15 each, the block's 2^-14 is kept whole
# beside C = 1 (31 bits below 2^0), twice: 1 + 2^-13.  b300 has no preset.
run_in "$tmp/sm90" dot --model mi355x --in e4m3
check_result 'dot mi355x (mfma-cdna4) e4m3: 1 + 2^-13' 0 "${ones}3F800000 3F800400"
run_in "$tmp/sm90" dot --model b300 --in e4m3
check_bad 'dot: no preset for b300' 2 "'b300'"
# cuBLASLt split-K (section 14's lines): slices of 32 from zero, C added
# last: 32 + 2^-13 as promotion gives here; bad --order tokens refused.
run_in "$tmp/promo" dot --model h100 --in e4m3 --order cublaslt-splitk=32
check_has 'dot h100 e4m3 split-K 32: 32 + 2^-13' "$tmp/out" ' 0 42000020'
run_in "$tmp/promo" dot --model h100 --in e4m3 --order cublaslt-splitk=0
check_bad 'dot: bad --order S' 2 "'0'"
run_in "$tmp/promo" dot --model h100 --in e4m3 --order splitk
check_bad 'dot: bad --order' 2 "'splitk'"

# convert --in/--out: an array converted element by element gives the bits
# batch convert gives line by line.  x.npy: float32 1, 464 (the e4m3 tie
# 448|480 -> 448), 465 (-> 480 > max -> NaN), -2^-149 (-> -0); built byte
# by byte as the gemm arrays below.
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f4\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000\000\200?\000\000\350C\000\200\350C\001\000\000\200' >"$tmp/x.npy"
printf '3F800000\n43E80000\n43E88000\n80000001\n' >"$tmp/xlines"
run convert --to e4m3 --in "$tmp/x.npy" --out "$tmp/y.npy"
check_rc 'convert --in/--out: exit 0' 0
run_in "$tmp/xlines" convert --from f32 --to e4m3
batch=$(cut -d' ' -f2 "$tmp/out" | tr 'A-F\n' 'a-f ')
array=$(od -An -v -tx1 -j128 "$tmp/y.npy" | tr -s ' \n' '  ' | sed 's/^ //')
if [ "$batch" = "$array" ] && [ "$array" = "38 7e 7f 80 " ]; then ok 'convert --in/--out: the bits of batch convert (38 7E 7F 80)'; else not_ok 'convert --in/--out = batch' "$batch" "$array"; fi
if grep -q "'descr': '|u1'" "$tmp/y.npy"; then ok 'convert --out: e4m3 codes as uint8'; else not_ok 'convert --out descr' '|u1' "$(head -c 80 "$tmp/y.npy")"; fi
run convert --to f16 --in "$tmp/x.npy" --out "$tmp/h.npy"
array=$(od -An -v -tx1 -j128 "$tmp/h.npy" | tr -s ' \n' '  ' | sed 's/^ //')
run_in "$tmp/xlines" convert --from f32 --to f16
batch=$(cut -d' ' -f2 "$tmp/out" | sed 's/\(..\)\(..\)/\2 \1/' | tr 'A-F\n' 'a-f ')
if [ "$batch" = "$array" ]; then ok 'convert --to f16 --in/--out: the bits of batch convert'; else not_ok 'convert f16 array = batch' "$batch" "$array"; fi
if grep -q "'descr': '<f2'" "$tmp/h.npy"; then ok 'convert --out: float16 as NumPy <f2'; else not_ok 'convert --out descr' '<f2' "$(head -c 80 "$tmp/h.npy")"; fi
run convert --from f16 --to e5m2 --in "$tmp/h.npy" --out "$tmp/z.npy"
check_rc 'convert: float16 values with --from f16: exit 0' 0
run convert --from bf16 --to e5m2 --in "$tmp/h.npy" --out "$tmp/z.npy"
check_bad 'convert: float16 values with --from bf16' 2 'float16 values, not bfloat16'
run convert --to e4m3 --in "$tmp/x.npy"
check_bad 'convert: --in without --out' 2 'go together'
run convert --to e4m3 --in "$tmp/x.npy" --out "$tmp/no/such/y.npy"
check_rc 'convert: unwritable --out: exit 1' 1
check_has 'convert: unwritable --out: said' "$tmp/err" 'cannot write'
run convert --to e4m3 --json 464
check_has 'convert --json: one document' "$tmp/out" '"bits": "7E", "decimal": "448"'

run op add --fmt f16 --json 3C00 3C01
check_has 'op --json: one object, the result with its decimal' "$tmp/out" '"result": {"bits": "4000", "decimal": "2"}, "flags": 1'
printf '3C00 3C00\n' >"$tmp/in"
run_in "$tmp/in" op mul --fmt f16 --json
check_has 'op batch --json: the results array' "$tmp/out" '{"operands": ["3C00", "3C00"], "result": "3C00", "flags": 0'
check_has 'op batch --json: the counts' "$tmp/out" '], "lines": 1, "rejected": 0}'
printf '3C00 4000 3F800000\n' >"$tmp/in"
run_in "$tmp/in" dot --model h100 --in f16 --json
check_has 'dot --json: 1*2 + 1 = 3' "$tmp/out" '"d": "40400000"}'

# explain for teaching.  464 is the e4m3 tie 448|480 (midpoint 464);
# 460 lies below it, nearer 448.  1e-39 into e8m0: the neighbours are 0 (not
# held) and 2^-127, whose exact decimal has 88 digits; their midpoint is 2^-128.
run explain 460 --to e4m3
check_has 'explain: the midpoint named' "$tmp/out" 'midpoint 464: the exact value lies below it in magnitude, nearer the neighbour nearer zero'
run explain 464 --to e4m3
check_has 'explain: a tie is the midpoint itself' "$tmp/out" 'midpoint 464: the exact value is the midpoint itself'
check_has 'explain: signed errors, result - exact' "$tmp/out" 'error        -16 absolute, -0.0344828 relative, -0.5 ulp'
run explain -464 --to e4m3
check_has 'explain: the same sign rule for a negative value (-448 is above -464)' "$tmp/out" 'error        +16 absolute, +0.0344828 relative, +0.5 ulp'
run explain 1e-39 --to e8m0
check_has 'explain: 2^-127 as a power of two and a short decimal' "$tmp/out" '2^-127 (~5.87747e-39)'
check_has 'explain: the midpoint 2^-128' "$tmp/out" 'midpoint 2^-128 (~2.93874e-39)'
run explain 1.3 --to e4m3 --round sr
check_bad 'explain --round sr without random bits' 2 'needs --sr-bits'
run explain 1.3 --to e4m3 --round sr --sr-bits 8:a5
check_has 'explain sr: P(away) = T/2^r' "$tmp/out" 'P(away from zero) = T/2^r = 102/2^8'
run explain -1.3 --to e4m3 --json
check_has 'explain --json: the neighbours and which is nearer' "$tmp/out" '"midpoint": "-1.3125", "exact_is_nearer": "nearer_zero"'

# 15. gemm.  A = [[1, 2], [3, 4]] and B = I as .npy float16 (bytes worked
# from the .npy format: magic, version 1.0, header length 118, the dict
# padded to 64 bytes, little-endian data); D = A exactly, saved as float32.
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f2\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000<\000@\000B\000D' >"$tmp/A.npy"
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f2\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000<\000\000\000\000\000<' >"$tmp/B.npy"
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f4\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000\000\200?\000\000\000@\000\000@@\000\000\200@' >"$tmp/Dwant.npy"
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --save "$tmp/D.npy"
check_rc 'gemm npy: exit 0' 0
check_has 'gemm npy: no error' "$tmp/out" 'absolute        max 0 '
if cmp -s "$tmp/D.npy" "$tmp/Dwant.npy"; then ok 'gemm --save: D.npy as numpy writes it'; else not_ok 'gemm --save' 'D.npy = Dwant.npy' 'different bytes'; fi
# The bad inputs of issue 36, and A and B of two formats.  Hand-worked:
# A = [[3C, 0], [0, 3C]] as E5M2 codes is I (3C = 1.0); B = [[44, 40],
# [38, 30]] as E4M3 codes is [[3, 2], [1, 0.5]]; D = B, as float32
# 40400000 40000000 3F800000 3F000000.  Read in E4M3, A would be 1.5 I.
hdr22() {
	printf '\223NUMPY\001\000v\000{\047descr\047: \047%s\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012' "$1"
}
{ hdr22 '|u1'; printf '\074\000\000\074'; } >"$tmp/Ae5.npy"
{ hdr22 '|u1'; printf '\104\100\070\060'; } >"$tmp/Be4.npy"
{ hdr22 '<f4'; printf '\000\000@@\000\000\000@\000\000\200?\000\000\000?'; } >"$tmp/Dmixed.npy"
{ hdr22 '<f4'; printf '\000\000\200?\000\000\000\000\000\000\000\000\000\000\200D'; } >"$tmp/B1024.npy"
run gemm --model h100-wgmma --in-a e5m2 --in-b e4m3 --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --save "$tmp/Dm.npy"
check_rc 'gemm --in-a e5m2 --in-b e4m3: exit 0' 0
check_has 'gemm mixed: the header names both formats' "$tmp/out" 'A: float8_e5m2, B: float8_e4m3fn -> float32'
if cmp -s "$tmp/Dm.npy" "$tmp/Dmixed.npy"; then ok 'gemm mixed: D as worked by hand'; else not_ok 'gemm mixed: D' 'Dm.npy = Dmixed.npy' 'different bytes'; fi
run gemm --model h100-wgmma --in-a e5m2 --in-b e4m3 --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy" --json
check_match 'gemm mixed --json names both formats' "$tmp/out" '"in_a": "float8_e5m2", "in_b": "float8_e4m3fn", '
run gemm --model h100-wgmma --in-a e5m2 --in-b e4m3 --size 8x8x64 --seed 3
check_rc 'gemm mixed, generated: exit 0 (within the bound)' 0
check_has 'gemm mixed, generated: each drawn in its own format' "$tmp/out" "rounded to A's float8_e5m2, B's float8_e4m3fn"
run gemm --model h100-wgmma --in-a f16 --in-b e4m3 --size 2x2x16
check_bad 'gemm: a pair the preset does not take' 2 'float16 x float8_e4m3fn' 'float8_e4m3fn x float8_e5m2'
# B as uint8 E5M2 codes read with --in e4m3 cannot be told from E4M3
# codes: the header says how A and B were read
run gemm --model h100 --in e4m3 --a "$tmp/Ae5.npy" --b "$tmp/Be4.npy"
check_has 'gemm: the header names the formats A and B were read in' "$tmp/out" 'A: float8_e4m3fn, B: float8_e4m3fn'
# B as float32 values E4M3 does not hold: refused, never rounded quietly
run gemm --model h100 --in e4m3 --a "$tmp/Ae5.npy" --b "$tmp/B1024.npy"
check_bad 'gemm: a float32 value --in does not hold' 2 'B[1,1] = 1024 is not a float8_e4m3fn value' '--source'
run verify-gemm --model h100 --in e4m3 --out f32 --a "$tmp/Ae5.npy" --b "$tmp/B1024.npy" --d "$tmp/Dmixed.npy"
check_bad 'verify-gemm: a float32 value --in does not hold' 2 'B[1,1] = 1024 is not a float8_e4m3fn value'
run gemm --model h100 --in e4m3 --a "$tmp/B1024.npy" --b "$tmp/B1024.npy" --source f32
check_rc 'gemm --source: rounding asked for, exit 0' 0
check_has 'gemm --source: the values quantised' "$tmp/out" 'quantised to A: float8_e4m3fn, B: float8_e4m3fn (rne): 2 of 8 changed'
run gemm --model h100 --in e4m3 --in e5m2 --size 2x2x16
check_bad 'gemm --in twice' 2 '--in' 'twice'
run gemm --model h100 --in e4m3 --in-b e5m2 --size 2x2x16
check_bad 'gemm --in with --in-b' 2 '--in' '--in-b'
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --quantize rtz
check_rc 'gemm --quantize without --source (it would do nothing): exit 2' 2
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --report none --save "$tmp/D2.npy"
check_rc 'gemm --report none: exit 0' 0
if grep -q 'absolute\|bound' "$tmp/out"; then not_ok 'gemm --report none: no report' 'no error lines' "$(cat "$tmp/out")"; else ok 'gemm --report none: no report'; fi
if cmp -s "$tmp/D2.npy" "$tmp/Dwant.npy"; then ok 'gemm --report none --save: the same D'; else not_ok 'gemm --report none --save' 'D2.npy = Dwant.npy' 'different bytes'; fi
run gemm --model kahan --in f16 --size 5x3x7 --seed 2 --save "$tmp/Dk.npy"
run gemm --model kahan --in f16 --size 5x3x7 --seed 2 --report none --save "$tmp/Dk2.npy"
if cmp -s "$tmp/Dk.npy" "$tmp/Dk2.npy"; then ok 'gemm --report none: a plain order gives the same D'; else not_ok 'gemm --report none, kahan' 'the same D' 'different bytes'; fi
run gemm --model h100 --in f16 --size 2x2x2 --report some
check_bad 'gemm: bad --report' 2 "'some'"
run gemm --model exact --in e4m3 --out f64 --size 3x3x4 --seed 5
check_has 'gemm exact in f64: no error' "$tmp/out" 'absolute        max 0 '
check_has 'gemm: names the model' "$tmp/out" 'model: exact'
run gemm --model a100 --in f16 --size 4x4x64 --json
check_match 'gemm --json' "$tmp/out" '^{"M": 4, "N": 4, "K": 64, "in_a": "float16", "in_b": "float16", "out": "float32", "elements": 16, "nonfinite": 0,.*"above_bound": 0,'
head -c 100 "$tmp/A.npy" >"$tmp/short.npy"
run gemm --model h100 --in f16 --a "$tmp/short.npy" --b "$tmp/B.npy"
check_bad 'gemm: truncated .npy' 2 'short.npy' 'truncated'
printf 'not a numpy file' >"$tmp/junk.npy"
run gemm --model h100 --in f16 --a "$tmp/junk.npy" --b "$tmp/B.npy"
check_bad 'gemm: not .npy' 2 'junk.npy' 'magic'
printf '\223NUMPY\001\000v\000{\047descr\047: \047<u4\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000\000\200?\000\000\000@\000\000@@\000\000\200@' >"$tmp/u4.npy"
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/u4.npy"
check_bad 'gemm: 4-byte patterns for float16' 2 'u4.npy' '2-byte bit patterns'
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/Dwant.npy"
check_has 'gemm: float32 values the input format holds are read exactly' "$tmp/out" 'absolute        max 0 '
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --save "$tmp/no/such/dir/D.npy"
check_rc 'gemm: unwritable --save: exit 1' 1
check_has 'gemm: unwritable --save: message' "$tmp/err" 'D.npy'
if ls "$tmp/no" >/dev/null 2>&1; then not_ok 'gemm: unwritable --save leaves nothing' 'no file' 'a file'; else ok 'gemm: unwritable --save leaves nothing'; fi
check_has 'gemm: unwritable --save: said before the work' "$tmp/err" 'cannot write'
if [ -s "$tmp/out" ]; then not_ok 'gemm: unwritable --save: checked before the work' 'no report' "$(head -n 1 "$tmp/out")"; else ok 'gemm: unwritable --save: checked before the work (no report)'; fi
# a folder that refuses new files even to root: chmod for a user, the
# immutable attribute for root (access(2) said yes to root here)
mkdir "$tmp/locked"
if [ "$(id -u)" -ne 0 ]; then chmod 555 "$tmp/locked"; locked=yes
elif chattr +i "$tmp/locked" 2>/dev/null; then locked=yes
else locked=no; fi
if [ "$locked" = yes ]; then
	run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --save "$tmp/locked/D.npy"
	check_rc 'gemm: --save into a locked folder: exit 1' 1
	check_has 'gemm: --save into a locked folder: said before the work' "$tmp/err" 'cannot write'
	if [ -n "$(ls -A "$tmp/locked")" ]; then not_ok 'gemm: a locked folder: left empty' 'nothing' "$(ls -A "$tmp/locked")"; else ok 'gemm: a locked folder: left empty (the probe file removed)'; fi
	[ "$(id -u)" -ne 0 ] && chmod 755 "$tmp/locked" || chattr -i "$tmp/locked"
else
	printf '# skip: no way to lock a folder here (root without chattr)\n'
fi
run gemm --model h100 --in f16 --a "$tmp/A.npy" --b "$tmp/B.npy" --save "$tmp"
check_rc 'gemm: --save a folder: exit 1' 1
check_has 'gemm: --save a folder: message' "$tmp/err" 'is a folder'
# an empty A (0 x 2): no product to judge, refused (it exited 0 with -nan)
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f2\047, \047fortran_order\047: False, \047shape\047: (0, 2), }                                                          \012' >"$tmp/A0.npy"
run gemm --model exact --in f16 --a "$tmp/A0.npy" --b "$tmp/B.npy"
check_bad 'gemm: an empty A' 2 'A0.npy' 'empty'
# all zeros: the ratios to |exact| are 0/0, printed n/a (text) and null (JSON), never nan
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f2\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012\000\000\000\000\000\000\000\000' >"$tmp/Z.npy"
run gemm --model exact --in f16 --a "$tmp/Z.npy" --b "$tmp/B.npy"
check_rc 'gemm zeros: exit 0' 0
check_has 'gemm zeros: n/a for 0/0' "$tmp/out" 'max / mean |exact| n/a'
check_count 'gemm zeros: no nan in the text' "$tmp/out" 'nan' 0
run gemm --model exact --in f16 --a "$tmp/Z.npy" --b "$tmp/B.npy" --json
check_has 'gemm zeros --json: null for 0/0' "$tmp/out" '"normwise_rel": null'
check_count 'gemm zeros --json: no nan' "$tmp/out" 'nan' 0
run gemm --model h100 --in f16 --a "$tmp" --b "$tmp/B.npy"
check_bad 'gemm: a directory for --a' 2 'is a directory'
run gemm --model h100 --in f16 --size 2x2
check_bad 'gemm: bad --size' 2 'MxNxK'
run gemm --model h100 --in f16
check_bad 'gemm: no inputs' 2 '--size'
run gemm --model h100 --in f16 --size 2x2x2 --dist cauchy
check_bad 'gemm: bad --dist' 2 'cauchy'

# 15b. gemm with block scales (--scale-a/--scale-b), worked by hand.
# tcgen05-mxf8f6f4 (blocks of 32, 25 fraction bits, rtz), e4m3 patterns:
# A = 1 x 32 and B = 32 x 1, each 1 (38) then zeros; C = 2^-30 (30800000).
# Unit scales: the product 1 sets the block's alignment, C is 30 places
# below it, past the 25 bits kept: truncated away, D = 1 (3F800000).  SA =
# 2^-10 (E8M0 pattern 0x75 = 117): the product is 2^-10, C is 20 places
# below it and kept, D = 2^-10 + 2^-30 = 3A800008.  The same scale as a
# float32 value (2^-10 = 3A800000) or on B instead gives the same D.
# npy FILE DESCR SHAPE DATA: a version 1.0 .npy whose header pads to 128 bytes.
npy() {
	printf '\223NUMPY\001\000v\000' >"$1"
	printf "%-117s\n" "{'descr': '$2', 'fortran_order': False, 'shape': $3, }" >>"$1"
	printf "$4" >>"$1"
}
npy "$tmp/sA.npy" '|u1' '(1, 32)' '\070\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
npy "$tmp/sB.npy" '|u1' '(32, 1)' '\070\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
npy "$tmp/sB2.npy" '|u1' '(32, 2)' '\070\070\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
npy "$tmp/sC.npy" '<f4' '(1, 1)' '\000\000\200\060'
npy "$tmp/SA.npy" '|u1' '(1, 1)' '\165'
npy "$tmp/SAf.npy" '<f4' '(1, 1)' '\000\000\200\072'
npy "$tmp/D1want.npy" '<f4' '(1, 1)' '\010\000\200\072'
npy "$tmp/D0want.npy" '<f4' '(1, 1)' '\000\000\200\077'
npy "$tmp/SAnan.npy" '|u1' '(1, 1)' '\377'
npy "$tmp/SA21.npy" '|u1' '(2, 1)' '\177\177'
npy "$tmp/SA12.npy" '|u1' '(1, 2)' '\177\177'
npy "$tmp/SAu2.npy" '<u2' '(1, 1)' '\177\000'
npy "$tmp/SA3.npy" '<f4' '(1, 1)' '\000\000\100\100'
npy "$tmp/SAneg.npy" '<f4' '(1, 1)' '\000\000\000\300'
mx="--model tcgen05-mxf8f6f4 --in e4m3 --a $tmp/sA.npy --b $tmp/sB.npy --c $tmp/sC.npy"
run gemm $mx --save "$tmp/D0.npy"
if cmp -s "$tmp/D0.npy" "$tmp/D0want.npy"; then ok 'gemm mxf8f6f4 unit scales: C truncated away, D = 1'; else not_ok 'gemm unit scales' '3F800000' "$(od -An -tx1 -j128 "$tmp/D0.npy")"; fi
run gemm $mx --scale-a "$tmp/SA.npy" --save "$tmp/D1.npy"
check_rc 'gemm --scale-a: exit 0' 0
check_has 'gemm --scale-a: names the scales' "$tmp/out" 'block scales: A '"$tmp"'/SA.npy, B ones (float8_e8m0fnu, one pair per 32 products'
check_has 'gemm --scale-a: no error against the scaled exact product' "$tmp/out" 'absolute        max 0 '
check_has 'gemm --scale-a: within the scaled bound' "$tmp/out" 'above the bound: 0'
if cmp -s "$tmp/D1.npy" "$tmp/D1want.npy"; then ok 'gemm --scale-a 2^-10: C kept, D = 2^-10 + 2^-30'; else not_ok 'gemm --scale-a' '3A800008' "$(od -An -tx1 -j128 "$tmp/D1.npy")"; fi
run gemm $mx --scale-b "$tmp/SAf.npy" --save "$tmp/D2.npy" --threads 3
if cmp -s "$tmp/D2.npy" "$tmp/D1want.npy"; then ok 'gemm --scale-b as a float32 value: the same D'; else not_ok 'gemm --scale-b float' '3A800008' "$(od -An -tx1 -j128 "$tmp/D2.npy")"; fi
# a NaN scale (E8M0 0xFF): D is NaN, as fpref dot gives it, counted not finite
run gemm $mx --scale-a "$tmp/SAnan.npy" --save "$tmp/Dn.npy"
check_rc 'gemm: a NaN scale: exit 0' 0
check_has 'gemm: a NaN scale: D not finite' "$tmp/out" '1 not finite and left out'
# NVIDIA's units give the all-ones NaN (issue 37, N1)
if [ "$(od -An -tx1 -j128 "$tmp/Dn.npy" | tr -d ' \n')" = ffffff7f ]; then ok 'gemm: a NaN scale gives NVIDIA'"'"'s NaN (7FFFFFFF)'; else not_ok 'gemm: NaN scale' 'ffffff7f' "$(od -An -tx1 -j128 "$tmp/Dn.npy")"; fi
# the errors, each before anything is written (--save names a file left absent)
run gemm $mx --scale-a "$tmp/SA21.npy" --save "$tmp/Dbad.npy"
check_bad 'gemm: SA of the wrong shape' 2 'SA21.npy' 'must be M x K/E = 1 x 1, not 2 x 1'
if [ -e "$tmp/Dbad.npy" ]; then not_ok 'gemm: a refused scale file writes no D' 'no file' 'Dbad.npy'; else ok 'gemm: a refused scale file writes no D'; fi
run gemm --model tcgen05-mxf8f6f4 --in e4m3 --a "$tmp/sA.npy" --b "$tmp/sB2.npy" --scale-b "$tmp/SA21.npy"
check_bad 'gemm: SB transposed (N x K/E)' 2 'must be K/E x N = 1 x 2, not 2 x 1'
run gemm --model tcgen05-mxf8f6f4 --in e4m3 --a "$tmp/sA.npy" --b "$tmp/sB2.npy" --scale-b "$tmp/SA12.npy" --report none
check_rc 'gemm: SB K/E x N: exit 0' 0
run gemm $mx --scale-a "$tmp/SAu2.npy"
check_bad 'gemm: scales of the wrong dtype' 2 'SAu2.npy' '1-byte bit patterns of float8_e8m0fnu'
run gemm $mx --scale-a "$tmp/SA3.npy"
check_bad 'gemm: a scale value E8M0 does not hold' 2 'SA3.npy' 'SA[0,0] = 3 is not a float8_e8m0fnu value'
run gemm $mx --scale-a "$tmp/SAneg.npy"
check_bad 'gemm: a negative scale value' 2 'SAneg.npy' 'not a positive finite scale'
run gemm $mx --scale-a "$tmp/nosuch.npy"
check_bad 'gemm: a missing scale file' 2 'nosuch.npy'
run gemm --model tcgen05-mxf8f6f4 --in e4m3 --size 2x2x48 --scale-a "$tmp/SA.npy"
check_bad 'gemm: K not a multiple of --scale-every' 2 'K = 48 is not a multiple of --scale-every 32'
run gemm $mx --scale-a "$tmp/SA.npy" --scale-every 16
check_bad 'gemm: scales per 16 on blocks of 32' 2 'multiple of 32' 'not per 16'
run gemm $mx --scale-a "$tmp/SA.npy" --scale-format e4m3
check_bad 'gemm: UE4M3 scales on an E8M0 kind' 2 'takes float8_e8m0fnu scales'
run gemm --model recursive --in e4m3 --size 2x2x32 --scale-a "$tmp/SA.npy"
check_bad 'gemm: scales on a plain order' 2 'tensor-core model'
run gemm --model mfma-cdna2 --in f16 --size 2x2x32 --scale-a "$tmp/SA.npy"
check_bad 'gemm: scales on an FP32-arithmetic model' 2 'takes no block scales'
run gemm --model tcgen05-mxf8f6f4 --in e4m3 --size 2x2x32 --scale-a "$tmp/SA.npy" --promote 32
check_bad 'gemm: scales with --promote' 2 '--promote'
run gemm $mx --scale-every 32
check_bad 'gemm: --scale-every without scales' 2 'give --scale-a'
run gemm $mx --scale-a "$tmp/SA.npy" --source f16
check_bad 'gemm: scales with --source' 2 '--source-format with block scales'

# 15b'. Options a preset's path does not model are usage errors naming
# why, before any line is read: --promote on CDNA1/2's FP32-arithmetic rows
# (dot used to reject each line as "the model cannot compute this line"),
# block scales on an FMA-chain preset.  An FMA-chain preset's model line
# names the preset (not the bare order), in gemm and verify-gemm.
printf '3C00 3C00 3C00 3C00 3C00 3C00 3C00 3C00 00000000\n' >"$tmp/cdna1"
run_in "$tmp/cdna1" dot --model mfma-cdna1 --in f16 --promote 4
check_bad 'dot --promote on mfma-cdna1 f16' 2 '--promote: the mfma-cdna1 model' 'FP32 arithmetic' 'not modelled'
run gemm --model mfma-cdna2-legacy --in bf16 --size 2x2x8 --promote 4
check_bad 'gemm --promote on mfma-cdna2-legacy bf16' 2 '--promote: the mfma-cdna2-legacy model' 'not modelled'
run gemm --model mfma-cdna3 --in f32 --out f32 --size 2x2x32 --scale-a "$tmp/SA.npy"
check_bad 'gemm: scales on an FMA-chain preset' 2 'mfma-cdna3 model' 'FMA chains, which take no block scales'
run gemm --model mi300x --in f64 --out f64 --size 3x2x5 --seed 4 --save "$tmp/fD.npy" --save-a "$tmp/fA.npy" \
	--save-b "$tmp/fB.npy"
check_has 'gemm mi300x f64: the model line names the preset' "$tmp/out" \
	'model: mfma-cdna3 float64 instructions: an FMA chain (fma-chain), each step rounded in float64'
run gemm --model dmma --in f64 --out f64 --size 2x2x4
check_has 'gemm dmma: the model line names the preset' "$tmp/out" 'model: dmma float64 instructions: an FMA chain'
run gemm --model fma-chain --in f64 --out f64 --size 2x2x4
check_has 'gemm fma-chain (no preset): the bare order' "$tmp/out" 'model: fma-chain'
run verify-gemm --model mfma-cdna3 --in f64 --out f64 --a "$tmp/fA.npy" --b "$tmp/fB.npy" --d "$tmp/fD.npy"
check_rc 'verify-gemm reads back gemm mi300x f64: exit 0' 0
check_has 'verify-gemm: the model line names the preset' "$tmp/out" 'model: mfma-cdna3 float64 instructions: an FMA chain'
run verify-gemm --model mfma-cdna3 --in f64 --out f64 --a "$tmp/fA.npy" --b "$tmp/fB.npy" --d "$tmp/fD.npy" --json
check_has 'verify-gemm --json: "model" names the preset' "$tmp/out" '"model": "mfma-cdna3 float64 instructions: an FMA chain'

# 15c. verify-gemm with the same block scales: a kernel that applied
# SA = 2^-10 passes, one that ignored it (D = 1) fails, and the converse;
# the scale files are read and refused as gemm reads them.
vmx="--model tcgen05-mxf8f6f4 --in e4m3 --out f32 --a $tmp/sA.npy --b $tmp/sB.npy --c $tmp/sC.npy"
run verify-gemm $vmx --scale-a "$tmp/SA.npy" --d "$tmp/D1want.npy"
check_rc 'verify-gemm --scale-a, the scaled D: exit 0' 0
check_has 'verify-gemm --scale-a: every element equal' "$tmp/out" '1 elements, 1 equal to the model'
check_has 'verify-gemm --scale-a: names the scales' "$tmp/out" 'block scales: A '"$tmp"'/SA.npy, B ones (float8_e8m0fnu, one pair per 32 products)'
run verify-gemm $vmx --scale-b "$tmp/SAf.npy" --d "$tmp/D1want.npy" --json
check_rc 'verify-gemm --scale-b as a float32 value, --json: exit 0' 0
check_has 'verify-gemm --json: the scales' "$tmp/out" '"block_scales": {"format": "float8_e8m0fnu", "every": 32, "a": "ones", "b": "'"$tmp"'/SAf.npy"}'
run verify-gemm $vmx --scale-a "$tmp/SA.npy" --d "$tmp/D0want.npy"
check_rc 'verify-gemm: a kernel that ignored the scales fails (exit 1)' 1
check_has 'verify-gemm: the scale-less D is outside' "$tmp/out" '0 equal to the model'"'"'s, 0 within tolerance, 1 outside'
run verify-gemm $vmx --d "$tmp/D1want.npy"
check_rc 'verify-gemm: a scaled D judged without scales fails (exit 1)' 1
run verify-gemm $vmx --scale-a "$tmp/SAnan.npy" --d "$tmp/Dn.npy"
check_rc 'verify-gemm: a NaN scale, a NaN D: exit 0' 0
run verify-gemm $vmx --scale-a "$tmp/SA21.npy" --d "$tmp/D1want.npy"
check_bad 'verify-gemm: SA of the wrong shape' 2 'SA21.npy' 'must be M x K/E = 1 x 1, not 2 x 1'
run verify-gemm $vmx --scale-every 32 --d "$tmp/D1want.npy"
check_bad 'verify-gemm: --scale-every without scales' 2 'give --scale-a'
run verify-gemm --model recursive --in e4m3 --out f32 --a "$tmp/sA.npy" --b "$tmp/sB.npy" --scale-a "$tmp/SA.npy" --d "$tmp/D1want.npy"
check_bad 'verify-gemm: scales on a plain order' 2 'tensor-core model'

# 16. gen and verify.  A two-job suite: every E2M1 pair through add (the
# sum 1 + 1 = 2 is 2 0 in that line), and E2M1 to E4M3.
printf 'suite tiny\nop add float4_e2m1fn rne exhaustive\nconvert float4_e2m1fn float8_e4m3fn rne exhaustive\n' >"$tmp/tiny.suite"
run gen --suite "$tmp/tiny.suite" --out "$tmp/g"
check_rc 'gen: exit 0' 0
check_has 'gen: summary' "$tmp/out" 'suite tiny: 2 files (0 already complete), 272 vectors'
check_match 'gen: add file, 1 + 1 = 2 (E2M1 2 is 0x4), exact' "$tmp/g/add/float4_e2m1fn.rne.txt" '^2 2 4 00$'
check_match 'gen: header names the op' "$tmp/g/add/float4_e2m1fn.rne.txt" '^# op add$'
check_match 'gen: closing checksum' "$tmp/g/add/float4_e2m1fn.rne.txt" '^# sha256 [0-9a-f]\{64\}$'
check_match 'gen: MANIFEST' "$tmp/g/MANIFEST" '^[0-9a-f]\{64\}  convert/float4_e2m1fn-float8_e4m3fn.rne.txt$'
run gen --suite "$tmp/tiny.suite" --out "$tmp/g"
check_has 'gen again: both files kept' "$tmp/out" '2 files (2 already complete)'
run gen --suite "$tmp/tiny.suite" --out "$tmp/gn" --npy
check_rc 'gen --npy: exit 0' 0
# the inputs of E2M1 add as (256, 2) |u1, the header worked from the .npy format
check_has 'gen --npy: inputs array' "$tmp/gn/add/float4_e2m1fn.rne.inputs.npy" "{'descr': '|u1', 'fortran_order': False, 'shape': (256, 2), }"
check_has 'gen --npy: results array' "$tmp/gn/add/float4_e2m1fn.rne.results.npy" "'shape': (256,), }"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/gn/add/float4_e2m1fn.rne.results.npy"
check_has 'verify: results from .npy' "$tmp/out" 'exact     256 of 256'
# Nowhere to write: a folder below a plain file, and a full disk (a file
# size limit of 1 KiB, the signal ignored so that writes fail with EFBIG).
: >"$tmp/plainfile"
run gen --suite "$tmp/tiny.suite" --out "$tmp/plainfile/sub"
check_bad 'gen: unwritable --out' 1 'plainfile/sub'
(ulimit -f 2; trap '' XFSZ; "$FPREF" gen --suite "$tmp/tiny.suite" --out "$tmp/full" >"$tmp/out" 2>"$tmp/err"); rc=$?
check_bad 'gen: a full disk' 1 'cannot write'
if [ -n "$(find "$tmp/full" -name '*.txt' -size +0 2>/dev/null | while read -r f; do "$FPREF" verify "$f" >/dev/null 2>&1 || echo "$f"; done)" ]; then
	not_ok 'gen: a full disk leaves no damaged file' 'every file made intact' 'a damaged file'
else
	ok 'gen: a full disk leaves no damaged file'
fi
if [ -e /dev/full ]; then
	run_in "$tmp/empty" convert --to e4m3 1 2 3
	"$FPREF" convert --to e4m3 1 2 3 >/dev/full 2>"$tmp/err"; rc=$?
	check_rc 'convert: stdout on a full disk: exit 1' 1
	check_has 'convert: stdout on a full disk: message' "$tmp/err" 'cannot write'
fi
run gen --suite "$tmp/tiny.suite" --list
check_result 'gen --list' 0 'add/float4_e2m1fn.rne.txt' 'convert/float4_e2m1fn-float8_e4m3fn.rne.txt'
run gen --suite "$tmp/tiny.suite" --out "$tmp/g" --shard 2/2
check_bad 'gen: bad --shard' 2 '2/2'
printf 'suite bad\nop add float32 rne exhaustive\n' >"$tmp/bad.suite"
run gen --suite "$tmp/bad.suite" --out "$tmp/g2"
check_bad 'gen: exhaustive on a wide format' 2 'bad.suite:2' 'at most 8 bits'
run gen --suite nosuchsuite --out "$tmp/g2"
check_bad 'gen: unknown suite' 2 'nosuchsuite'
run verify "$tmp/g/add/float4_e2m1fn.rne.txt"
check_rc 'verify against the oracle: exit 0' 0
check_has 'verify: all exact' "$tmp/out" 'exact     256 of 256'
# A kernel's results: the golden lines with one sum rounded the wrong way
# (2 + 0.5 = 2.5 is a tie between 2 and 3 that goes to 2: 4 1 4 01; 5 is 3)
grep -v '^#' "$tmp/g/add/float4_e2m1fn.rne.txt" | sed 's/^4 1 4 01$/4 1 5 01/' >"$tmp/mine"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/mine"
check_rc 'verify: a wrong result fails (exit 1)' 1
check_has 'verify: classed as a tie broken the wrong way' "$tmp/out" 'tie broken the wrong way     1'
check_has 'verify: the line shown' "$tmp/out" '4 1 -> golden 4 01, got 5 01 (tie broken the wrong way, 1 ulp)'
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/mine" --tolerance 1ulp
check_rc 'verify --tolerance 1ulp: passes' 0
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/mine" --json
check_match 'verify --json' "$tmp/out" '"outside": 1, "mismatches": {"tie broken the wrong way": 1}.*"pass": false}$'
head -5 "$tmp/mine" >"$tmp/short"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/short"
check_bad 'verify: too few results' 2 'short' '5 result lines for 256'
sed 's/^4 1 /4 2 /' "$tmp/mine" >"$tmp/other"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/other"
check_bad 'verify: inputs that differ' 2 'inputs differ'
sed 's/^2 2 4 00$/2 2 5 00/' "$tmp/g/add/float4_e2m1fn.rne.txt" >"$tmp/edited.txt"
run verify "$tmp/edited.txt"
check_bad 'verify: an edited golden file' 2 'edited.txt' 'checksum mismatch'
head -c 200 "$tmp/g/add/float4_e2m1fn.rne.txt" >"$tmp/cut.txt"
run verify "$tmp/cut.txt"
check_bad 'verify: a truncated golden file' 2 'cut.txt' 'truncated'
run verify "$tmp/g"
check_has 'verify a folder' "$tmp/out" '2 files, 272 vectors; 0 outside tolerance'
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" --tolerance 3
check_bad 'verify: bad --tolerance' 2 "'3'"

# 17. Golden I/O (issues 13 and 22).  Results without flags are judged on
# their values, and the report says so.
grep -v '^#' "$tmp/g/add/float4_e2m1fn.rne.txt" | cut -d' ' -f1-3 >"$tmp/noflags"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/noflags"
check_rc 'verify, results without flags: exit 0' 0
check_has 'verify, results without flags: said' "$tmp/out" 'flags     not given: judged on the values alone'
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/gn/add/float4_e2m1fn.rne.results.npy" --json
check_match 'verify --json, a .npy: "flags": "not given"' "$tmp/out" '"flags": "not given".*"pass": true}$'
sed 's/^4 1 4$/4 1 5/' "$tmp/noflags" >"$tmp/noflags.bad"
run verify "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/noflags.bad" --json
check_match 'verify --json, without flags: no flags-only mismatch' "$tmp/out" '"mismatches": {"tie broken the wrong way": 1}, '
# A folder's --json is one JSON document, failures included.
mkdir -p "$tmp/mine.d/add" "$tmp/mine.d/convert"
cp "$tmp/mine" "$tmp/mine.d/add/float4_e2m1fn.rne.txt"
cp "$tmp/g/convert/float4_e2m1fn-float8_e4m3fn.rne.txt" "$tmp/mine.d/convert/"
run verify "$tmp/g" "$tmp/mine.d" --json
check_rc 'verify DIR --json with a failing file: exit 1' 1
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["failed_files"] == 1 and d["problems"][0]["outside"] == 1' <"$tmp/out"; then
		ok 'verify DIR --json: one JSON document, the failing file in it'
	else
		failed 'verify DIR --json: one JSON document, the failing file in it'
		show stdout "$tmp/out"
	fi
fi
# MANIFEST: a deleted or an extra file is damage (exit 2), and a folder without one says so.
cp -r "$tmp/g" "$tmp/gm"
rm "$tmp/gm/add/float4_e2m1fn.rne.txt"
run verify "$tmp/gm"
check_bad 'verify DIR, a file of MANIFEST deleted' 2 'add/float4_e2m1fn.rne.txt' 'missing'
if command -v python3 >/dev/null 2>&1; then
	run verify "$tmp/gm" --json
	if [ "$rc" = 2 ] && python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["manifest"] == "mismatch" and "float4_e2m1fn.rne.txt" in d["error"]' <"$tmp/out"; then
		ok 'verify DIR --json, a file of MANIFEST deleted: exit 2, one JSON document naming it'
	else
		failed 'verify DIR --json, a file of MANIFEST deleted: exit 2, one JSON document naming it'
		show stdout "$tmp/out"
	fi
fi
cp "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/gm/add/"
cp "$tmp/g/add/float4_e2m1fn.rne.txt" "$tmp/gm/add/more.txt"
run verify "$tmp/gm"
check_bad 'verify DIR, a file MANIFEST does not list' 2 'add/more.txt' 'does not list'
rm "$tmp/gm/add/more.txt" "$tmp/gm/MANIFEST"
run verify "$tmp/gm"
check_rc 'verify DIR without MANIFEST: exit 0' 0
check_has 'verify DIR without MANIFEST: says so' "$tmp/out" 'no MANIFEST: the files found are checked, not whether any is missing'
# An edited header (add -> mul) breaks the checksum: damage, not a FAIL.
sed 's/^# op add$/# op mul/' "$tmp/g/add/float4_e2m1fn.rne.txt" >"$tmp/header.txt"
run verify "$tmp/header.txt"
check_bad 'verify: an edited header' 2 'header.txt' 'checksum mismatch'
check_match 'gen: format 2 header' "$tmp/g/add/float4_e2m1fn.rne.txt" '^# fpref golden vectors, format 2$'
check_match 'gen: the format descriptor' "$tmp/g/add/float4_e2m1fn.rne.txt" '^# descriptor float4_e2m1fn exp=2 man=1 bias=1 specials=none subnormals=on zero=on signed bits=4$'
check_match 'gen: the flags legend' "$tmp/g/add/float4_e2m1fn.rne.txt" '^# flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08 invalid 10'
# gen --npy over a complete folder makes the missing arrays, and says so;
# the arrays are in MANIFEST, after their file.
run gen --suite "$tmp/tiny.suite" --out "$tmp/g" --npy
check_has 'gen --npy, a complete folder: says so' "$tmp/out" '2 files (2 already complete, .npy arrays added to 2 complete files)'
check_has 'gen --npy, a complete folder: the arrays' "$tmp/g/add/float4_e2m1fn.rne.results.npy" "'shape': (256,), }"
sed -n 2p "$tmp/g/MANIFEST" >"$tmp/line2"
check_match 'gen --npy: the arrays in MANIFEST' "$tmp/line2" '^[0-9a-f]\{64\}  add/float4_e2m1fn.rne.inputs.npy$'
run verify "$tmp/g"
check_rc 'verify DIR, MANIFEST with arrays: exit 0' 0
# Shards: each writes its own manifest; merged, they are the whole MANIFEST, byte for byte.
printf 'suite sharded\nop add,mul,sub float4_e2m1fn rne,rtz exhaustive\nconvert float4_e2m1fn float8_e4m3fn,float16 rne exhaustive\n' >"$tmp/sharded.suite"
"$FPREF" gen --suite "$tmp/sharded.suite" --out "$tmp/whole" >/dev/null 2>&1
for i in 0 1 2; do
	"$FPREF" gen --suite "$tmp/sharded.suite" --out "$tmp/shards" --shard "$i/3" >/dev/null 2>&1
done
run gen --suite "$tmp/sharded.suite" --out "$tmp/shards" --merge-manifests
check_rc 'gen --merge-manifests: exit 0' 0
if cmp -s "$tmp/whole/MANIFEST" "$tmp/shards/MANIFEST" && [ -s "$tmp/shards/MANIFEST.shard-2-of-3" ]; then
	ok 'shards 0/3, 1/3, 2/3 merged: the unsharded MANIFEST byte for byte'
else
	failed 'shards 0/3, 1/3, 2/3 merged: the unsharded MANIFEST byte for byte'
	show merged "$tmp/shards/MANIFEST"
fi
rm "$tmp/shards/MANIFEST.shard-1-of-3"
run gen --suite "$tmp/sharded.suite" --out "$tmp/shards" --merge-manifests
check_bad 'gen --merge-manifests, a shard missing' 1 'MANIFEST.shard-1-of-3'
# A format with options in a suite list, in brackets.
printf 'suite opts\nop add [e3m2,subnormals=off],float4_e2m1fn rne exhaustive\n' >"$tmp/opts.suite"
run gen --suite "$tmp/opts.suite" --out "$tmp/opts"
check_rc 'gen: a bracketed format with options' 0
check_match 'gen: its descriptor' "$tmp/opts/add/e3m2,subnormals=off.rne.txt" '^# descriptor e3m2,subnormals=off exp=3 man=2 bias=3 specials=ieee subnormals=off zero=on signed bits=6$'
run verify "$tmp/opts"
check_rc 'verify: the option format against the oracle' 0
printf 'suite opts\nop add e3m2,subnormals=off rne exhaustive\n' >"$tmp/opts2.suite"
run gen --suite "$tmp/opts2.suite" --out "$tmp/opts2"
check_bad 'gen: an option without brackets' 2 'opts2.suite:2' 'in brackets'
# A suite line too long for the reader is refused, not split into two.
{
	printf 'suite long\nop add float4_e2m1fn rne edge\n# '
	i=0
	while [ $i -lt 300 ]; do printf 'xxxxxxxxxx'; i=$((i + 1)); done
	printf ' op mul float4_e2m1fn rne edge\n'
} >"$tmp/long.suite"
run gen --suite "$tmp/long.suite" --list
check_bad 'gen: a suite line too long' 2 'long.suite:3' 'too long'

# ---- stochastic rounding as instructions (docs/stochastic-rounding.md) ----
# 1.25 is half way from 1 to 1.5 in E2M1: the first 8 discarded bits are
# 0x80, so a lane rounds up iff its byte of rbits is >= 0x80.  cvt.rs
# e2m1x4 lanes a, b, e, f take bytes [31:24], [15:8], [23:16], [7:0].
run convert --to e2m1 --round ptx-rs --sr-bits 807FFF00 1.25 1.25 1.25 1.25
check_out 'ptx-rs e2m1x4: a, b up, e, f down' '1.25 -> float4_e2m1fn 3 = 1.5  flags 01 (inexact)' \
	'1.25 -> float4_e2m1fn 3 = 1.5  flags 01 (inexact)' '1.25 -> float4_e2m1fn 2 = 1  flags 01 (inexact)' \
	'1.25 -> float4_e2m1fn 2 = 1  flags 01 (inexact)'
# VCVTBIASPH2BF8: 0x3C55 drops 0x55; 0x55 + 0xAB carries
run convert --from f16 --to e5m2 --round avx10-bias --sr-bits 00AB 3C55
check_out 'avx10-bias carries' '3C55 -> float8_e5m2 3D = 1.25  flags 01 (inexact)'
# satfinite: 1000 is beyond 448 whatever the word; a profile does not undo it
run convert --to e4m3 --round ptx-rs --profile cuda --sr-bits 0 1000
check_out 'ptx-rs keeps satfinite under --profile' '1000 -> float8_e4m3fn 7E = 448  flags 05 (inexact overflow)'
run convert --to bf16 --round amd-sr 1
check_bad 'amd-sr has no bf16 form' 2 'amd-sr' 'bfloat16'
run convert --round ptx-rs 1
check_bad 'an instruction needs --to' 2 'ptx-rs'
run convert --to e2m1 --round te-nvfp4 --sr-bits philox=1:x 1
check_bad 'bad philox stream' 2 'philox=1:x'
run convert --from f32 --to e5m2 --round avx10-bias 3F800000
check_bad 'avx10-bias converts from float16' 2 'float16' 'float32'
# amd-sr takes the top 20 bits of the word for FP32 -> E4M3: 0x3F880001
# drops 0x80001, which R = 0x7FFFF carries and R = 0x7FFFE does not
run convert --from f32 --to e4m3 --round amd-sr --sr-bits 7FFFEFFF 3F880001
check_out 'amd-sr: top bits 0x7FFFE, down' '3F880001 -> float8_e4m3fn 38 = 1  flags 01 (inexact)'
run convert --from f32 --to e4m3 --round amd-sr --sr-bits 80000000 3F880001
check_out 'amd-sr: top bits 0x80000, up' '3F880001 -> float8_e4m3fn 39 = 1.125  flags 01 (inexact)'
# --pre-scale: 4 / 2^(128 - 127) is 2; code 255 is NaN for any value, in both engines
run convert --to e4m3 --round amd-sr --sr-bits FFFFFFFF --pre-scale 128 4
check_out 'pre-scale 128 halves' '4 -> float8_e4m3fn 40 = 2  flags 00 (none)'
run convert --from f32 --to e4m3 --engine ref --round amd-sr --sr-bits 0 --pre-scale 255 40800000 80000000
check_out 'pre-scale 255 is NaN (ref)' '40800000 -> float8_e4m3fn 7F = nan  flags 10 (invalid)' \
	'80000000 -> float8_e4m3fn FF = -nan  flags 10 (invalid)'
run convert --from f32 --to e4m3 --pre-scale 0xff 40800000
check_out 'pre-scale 0xff is NaN (emu, rne)' '40800000 -> float8_e4m3fn 7F = nan  flags 10 (invalid)'
run convert --to e4m3 --pre-scale 256 1
check_bad 'pre-scale beyond 255' 2 '--pre-scale' '256'
run convert --to e4m3 --pre-scale 1.5 1
check_bad 'pre-scale not an integer' 2 '--pre-scale' '1.5'
run convert --to e8m0 --scale-rule floor --pre-scale 3 1
check_bad 'pre-scale with --scale-rule' 2 'scale-rule'
run explain 4 --to e4m3 --pre-scale 128
check_has 'explain names the scale step' "$tmp/out" 'divided by 2^1 (E8M0 code 128)'

tap_end
