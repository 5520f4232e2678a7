#!/bin/sh
# Command-line tests for fpref probe: a probe file is an ordinary golden
# dot file (verify rechecks it; fpref gen makes the same file from a suite
# line), and infer, given results that another command computed (fpref dot
# under a generic model, the emulator's line interface), names that model,
# through --golden and from plain dot lines.  POSIX sh; run by make check.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=probe
. "$(dirname "$0")/tap.sh"


not_ok() {
	failed "$1"
	[ -f "$tmp/out" ] && sed 's/^/#   /' "$tmp/out" | head -n 20
}

# check NAME EXPECTED_RC COMMAND...: the exit status
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else not_ok "$name (exit $rc, expected $want)"; fi
}

# has NAME TEXT: the last command's output holds TEXT
has() {
	if grep -F -- "$2" "$tmp/out" >/dev/null; then ok "$1"; else not_ok "$1 (no '$2')"; fi
}

# answer FILE MODEL-OPTIONS...: the probe file's inputs answered by fpref dot
answer() {
	file=$1
	shift
	grep -v '^#' "$file" | sed 's/ [^ ]*$//' | "$FPREF" dot "$@"
}

# ---- gen ----
check "gen writes a probe file" 0 "$FPREF" probe gen --inputs f16 --output f32 --k 16 --out "$tmp/p16.txt"
head -n 9 "$tmp/p16.txt" >"$tmp/out"
has "its header names the reference model" "# formats h100 float16 -> float32"
has "its generator is probe:K" "# generator probe:16 seed 20261130"
has "its columns are the harness's" "# columns a_1..a_16 b_1..b_16 c d"
check "verify rechecks it with the oracle" 0 "$FPREF" verify "$tmp/p16.txt"
has "bit-exact" "verdict   pass (bit-exact)"
"$FPREF" probe gen --inputs f16 --output f32 --k 16 >"$tmp/stdout.txt" 2>/dev/null
if cmp -s "$tmp/stdout.txt" "$tmp/p16.txt"; then ok "gen to stdout equals gen to a file"; else not_ok "gen to stdout"; fi
check "gen with a generic reference model" 0 "$FPREF" probe gen --inputs e5m2 --output f16 --k 32 \
	--model generic --block 8 --frac 14 --floor -12 --final rne --out "$tmp/g.txt"
check "verify reads a generic model back from the header" 0 "$FPREF" verify "$tmp/g.txt"

printf 'suite probes\nseed 20261130\ndot h100 float16 float32 probe:16\n' >"$tmp/probe.suite"
check "fpref gen takes probe:K in a suite" 0 "$FPREF" gen --suite "$tmp/probe.suite" --out "$tmp/suite"
check "verify the suite's probe file" 0 "$FPREF" verify "$tmp/suite/dot/h100.float16-float32.txt"

# ---- infer: a unit unlike any preset, its results from fpref dot ----
answer "$tmp/p16.txt" --model generic --block 4 --frac 27 --floor none --final rne --in f16 --out f32 >"$tmp/r.txt"
check "infer against the golden file finds one class" 0 "$FPREF" probe infer --results "$tmp/r.txt" --golden "$tmp/p16.txt"
has "and names the model" "fpref dot --model generic --block 4 --frac 27 --floor none --final rne --in-format float16 --out-format float32"
has "as a row" "row: { \"probed\", \"float16\", 4, 27, FPREF_TC_NO_FLOOR"
has "no preset fits it" "presets that reproduce every case: none"
check "infer from dot lines with --in/--out" 0 "$FPREF" probe infer --results "$tmp/r.txt" --in f16 --out f32
has "the same model" "--block 4 --frac 27 --floor none --final rne"
check "verify judges the same results" 1 "$FPREF" verify "$tmp/p16.txt" "$tmp/r.txt"
check "infer --json: exit 0" 0 "$FPREF" probe infer --results "$tmp/r.txt" --golden "$tmp/p16.txt" --json
has "infer --json: the class" '"classes": [{"block_lo": 4, "block_hi": 4, "block_open": false, "frac": 27, "rounding": "rne", "floor": null'
has "infer --json: found" '"found": true}'
check "gen --json is refused" 2 "$FPREF" probe gen --inputs f16 --output f32 --k 16 --json

# a preset: the H100 FP8 unit, fed as lines with a '# formats' header
"$FPREF" probe gen --inputs e4m3 --output f32 --k 32 --out "$tmp/p8.txt" 2>/dev/null
{
	printf '# formats h100 float8_e4m3fn -> float32\n'
	answer "$tmp/p8.txt" --model h100 --in e4m3 --out f32
} >"$tmp/r8.txt"
check "infer finds the H100 FP8 model" 0 "$FPREF" probe infer --results "$tmp/r8.txt"
has "block 32 or more" "block: 32 or more"
has "13 fraction bits, rtz" "fraction bits: 13; block rounding: rtz"
has "the preset is named" "presets that reproduce every case: h100"

# two formats (issue 36): a probe file of E5M2 x E4M3, answered by the
# h100-wgmma unit, identifies it; read with B in A's format, it does not fit
"$FPREF" probe gen --in-a e5m2 --in-b e4m3 --output f32 --k 32 --out "$tmp/pab.txt" 2>/dev/null
check "gen: a two-format probe file verifies" 0 "$FPREF" verify "$tmp/pab.txt"
answer "$tmp/pab.txt" --model h100-wgmma --in-a e5m2 --in-b e4m3 --out f32 >"$tmp/rab.txt"
check "infer: the two-format file's one class" 0 "$FPREF" probe infer --results "$tmp/rab.txt" --golden "$tmp/pab.txt"
has "its preset named" "h100-wgmma"
has "13 fraction bits, rtz (two formats)" "fraction bits: 13; block rounding: rtz"

# a floor: bf16 inputs let tiny terms fall below it
"$FPREF" probe gen --inputs bf16 --output f32 --k 16 --out "$tmp/pb.txt" 2>/dev/null
answer "$tmp/pb.txt" --model generic --block 2 --frac 20 --floor -100 --in bf16 --out f32 >"$tmp/rb.txt"
check "infer finds a floor" 0 "$FPREF" probe infer --results "$tmp/rb.txt" --golden "$tmp/pb.txt"
has "the floor" "--block 2 --frac 20 --floor -100 --final rtz"

# too few cases: several classes, exit 1
head -n 30 "$tmp/r.txt" >"$tmp/few.txt"
check "a few random-free cases leave it ambiguous" 1 "$FPREF" probe infer --results "$tmp/few.txt" --in f16 --out f32
has "ambiguous" "ambiguous"

# a plain recursive FP32 sum is no block model: nothing fits, the nearest shown
answer "$tmp/p16.txt" --model recursive --in f16 --out f32 >"$tmp/rec.txt"
check "no block model fits a recursive sum" 1 "$FPREF" probe infer --results "$tmp/rec.txt" --in f16 --out f32
has "nearest listed" "no model reproduces every case; the nearest"

# ---- two formats: A in E5M2, B in E4M3 (the hybrid FP8 backward GEMM) ----
# a committed golden dot file of the pair (its header '# formats h100
# float8_e5m2*float8_e4m3fn -> float32'), read as results: too few cases
# to pin one class (exit 1), but the pair's presets fit them, and only
# when B is read in B's format
mixed="$(dirname "$0")/../golden/vectors/dot/h100.float8_e5m2-x-float8_e4m3fn-float32.txt"
check "infer reads a golden file of two formats" 1 "$FPREF" probe infer --results "$mixed"
has "names the pair" "cases of 32 products, float8_e5m2*float8_e4m3fn -> float32"
has "the pair's presets fit it" "presets that reproduce every case: h100 h100-wgmma"
has "the model as fpref dot options of the pair" "--a-format float8_e5m2 --b-format float8_e4m3fn --out-format float32"
grep -v '^#' "$mixed" >"$tmp/mixed.txt"
check "infer from dot lines with --in-a/--in-b" 1 "$FPREF" probe infer --results "$tmp/mixed.txt" --in-a e5m2 --in-b e4m3 --out f32
has "the same presets" "presets that reproduce every case: h100 h100-wgmma"
check "infer --json of the pair" 1 "$FPREF" probe infer --results "$tmp/mixed.txt" --in-a e5m2 --in-b e4m3 --out f32 --json
has "names both formats" '"in": "float8_e5m2*float8_e4m3fn", "in_a": "float8_e5m2", "in_b": "float8_e4m3fn"'
"$FPREF" probe infer --results "$tmp/mixed.txt" --in e5m2 --out f32 >"$tmp/out" 2>&1
has "B read in A's format: no preset fits" "presets that reproduce every case: none"
check "infer: --in against a file of two formats" 2 "$FPREF" probe infer --results "$mixed" --in e4m3 --out f32
has "names the file's pair" "its cases are float8_e5m2*float8_e4m3fn -> float32, not float8_e4m3fn -> float32"
check "infer: --in-a without --in-b" 2 "$FPREF" probe infer --results "$tmp/mixed.txt" --in-a e5m2 --out f32
check "gen: --inputs with --in-a" 2 "$FPREF" probe gen --inputs e4m3 --in-a e5m2 --in-b e4m3 --output f32 --k 32

# ---- bad input ----
check "probe alone" 2 "$FPREF" probe
check "gen without --k" 2 "$FPREF" probe gen --inputs f16 --output f32
check "gen with a bad --k" 2 "$FPREF" probe gen --inputs f16 --output f32 --k 0
check "gen with inputs no model takes" 2 "$FPREF" probe gen --inputs f32 --output f32 --k 8
check "gen with no preset for the formats" 2 "$FPREF" probe gen --inputs e4m3fnuz --output f16 --k 16
has "names the formats" "no preset has float8_e4m3fnuz inputs with float16 output"
# FP6 with FP16 output: kind::f8f6f4's .f16 accumulator (PTX ISA), tcgen05 first
check "gen for FP6 inputs, FP16 output" 0 "$FPREF" probe gen --inputs e3m2 --output f16 --k 32
has "FP6 to FP16: the tcgen05 preset" "# formats tcgen05 float6_e3m2fn -> float16"
# inputs only the 2025-26 instruction presets take get one of them by default
check "gen for FP4 inputs" 0 "$FPREF" probe gen --inputs e2m1 --output f32 --k 32
has "FP4: the tcgen05 preset" "# formats tcgen05 float4_e2m1fn -> float32"
check "gen for FNUZ inputs" 0 "$FPREF" probe gen --inputs e4m3fnuz --output f32 --k 16
has "FNUZ: the mfma-cdna3 preset" "# formats mfma-cdna3 float8_e4m3fnuz -> float32"
check "infer without --results" 2 "$FPREF" probe infer
check "infer without formats" 2 "$FPREF" probe infer --results "$tmp/r.txt"
printf '3C00 3C00 3C00\n' >"$tmp/odd.txt"
check "infer with an odd line" 2 "$FPREF" probe infer --results "$tmp/odd.txt" --in f16 --out f32
check "infer against a golden file that is not one" 2 "$FPREF" probe infer --results "$tmp/r.txt" --golden "$tmp/odd.txt"
check "infer with a missing file" 2 "$FPREF" probe infer --results "$tmp/none.txt" --in f16 --out f32
# --in/--out against the file's own formats: refused, not searched for nothing
check "infer: --in/--out differ from the '# formats' line" 2 "$FPREF" probe infer --results "$tmp/r8.txt" --in f16 --out f32
has "names both" "r8.txt: its cases are float8_e4m3fn -> float32, not float16 -> float32"
check "infer: --in/--out differ from the golden file" 2 "$FPREF" probe infer --results "$tmp/r.txt" --golden "$tmp/p16.txt" --in e4m3 --out f32
has "names the golden file" "p16.txt: its cases are float16 -> float32, not float8_e4m3fn -> float32"
{ printf '# formats h100 float99 -> float32\n'; grep -v '^#' "$tmp/r8.txt"; } >"$tmp/unknown.txt"
check "infer: an unknown format in the '# formats' line" 2 "$FPREF" probe infer --results "$tmp/unknown.txt"
has "names the file, line and token" "unknown.txt:1: unknown format 'float99'"
check "infer: a directory for --results" 2 "$FPREF" probe infer --results "$tmp" --in f16 --out f32
has "says so" "is a directory"
awk 'BEGIN { s = ""; for (i = 0; i < 1100; i++) s = s "3C00 "; print s }' >"$tmp/long.txt"
check "infer: an over-long line" 2 "$FPREF" probe infer --results "$tmp/long.txt" --in f16 --out f32
has "names the file" "long.txt:1: longer than 4096 bytes"

tap_end
