#!/bin/sh
# fpref verify --diagnose, and the mismatch classes, on buggy kernels built
# apart from the mutant catalogue: the emulator's own convert and op
# commands under another rounding mode, flush, DAZ or saturation, and a
# conversion that goes through float16 by two convert commands.  Each is
# named by the mutant it is, as its only class; a correct kernel gets no
# diagnosis; a kernel with two bugs gets both.
# POSIX sh; run by make check.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=diagnose
. "$(dirname "$0")/tap.sh"

not_ok() {
	failed "$1"
	[ -f "$tmp/out" ] && sed 's/^/#   /' "$tmp/out" | tail -n 20
}

# check NAME EXPECTED_RC COMMAND...: the exit status
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else not_ok "$name (exit $rc, expected $want)"; fi
}

has() {
	if grep -q -- "$2" "$tmp/out"; then ok "$1"; else not_ok "$1: no '$2'"; fi
}

lacks() {
	if grep -q -- "$2" "$tmp/out"; then not_ok "$1: '$2' is there"; else ok "$1"; fi
}

# The classes printed: the indented lines between "exact" and the error table.
classes() {
	sed -n '/^exact /,/^error in ulps/p' "$tmp/out" | sed -n 's/^  \([a-zA-Z].*[a-zA-Z)]\)  *[0-9][0-9]*$/\1/p'
}

# no_class NAME WORD: no class printed holds WORD
no_class() {
	if classes | grep -q -- "$2"; then not_ok "$1: a class says '$2'"; else ok "$1"; fi
}

only_class() {
	got=$(classes | tr '\n' '|')
	if [ "$got" = "$2|" ]; then ok "$1: the one class '$2'"; else not_ok "$1: classes '$got', expected '$2|'"; fi
}

printf 'suite diag\nseed 34\nconvert float32 float8_e4m3fn rne edge+random:600\nop add bfloat16 rne edge+random:600\n' \
	>"$tmp/diag.suite"
check "gen the suite" 0 "$FPREF" gen --suite "$tmp/diag.suite" --out "$tmp/g"
cv="$tmp/g/convert/float32-float8_e4m3fn.rne.txt"
add="$tmp/g/add/bfloat16.rne.txt"
grep -v '^#' "$cv" | cut -d' ' -f1 >"$tmp/cv.in"
grep -v '^#' "$add" | cut -d' ' -f1-2 >"$tmp/add.in"

# kernel NAME OPTIONS...: the conversion's results under the emulator with OPTIONS
convert_kernel() {
	out=$1
	shift
	"$FPREF" convert --from float32 --to float8_e4m3fn "$@" <"$tmp/cv.in" | cut -d' ' -f1-2 >"$out"
}
add_kernel() {
	out=$1
	shift
	"$FPREF" op add --fmt bfloat16 "$@" <"$tmp/add.in" | cut -d' ' -f1-3 >"$out"
}

# 1. The issue's kernel: FP32 -> E4M3 rounded through FP16, by two commands.
"$FPREF" convert --from float32 --to float16 <"$tmp/cv.in" | cut -d' ' -f2 >"$tmp/half"
"$FPREF" convert --from float16 --to float8_e4m3fn <"$tmp/half" | cut -d' ' -f2 >"$tmp/narrow"
paste -d' ' "$tmp/cv.in" "$tmp/narrow" >"$tmp/via-f16"
check "through float16: fails (exit 1)" 1 "$FPREF" verify "$cv" "$tmp/via-f16" --diagnose
has "through float16: exactly double-round-f16" 'these results are exactly `double-round-f16`'
only_class "through float16" "double rounding"
no_class "through float16: E4M3FN has no inf, and no class says one" 'inf'
check "through float16 --json" 1 "$FPREF" verify "$cv" "$tmp/via-f16" --diagnose --json
has "--json: the diagnosis list, best first" '"diagnosis": \[{"mutant": "double-round-f16", "explains": \([0-9]*\), "mismatches": \1, "contradicts": 0, "exact": true}'
has "--json: the class" '"mismatches": {"double rounding": [0-9]*}'
"$FPREF" verify "$cv" "$tmp/via-f16" --diagnose --json --threads 1 >"$tmp/one"
"$FPREF" verify "$cv" "$tmp/via-f16" --diagnose --json --threads 3 >"$tmp/three"
if cmp -s "$tmp/one" "$tmp/three"; then ok "--threads 1 and 3: the same report"; else not_ok "--threads 1 and 3 differ"; fi

# 2. One environment bug at a time, each its mutant and its one class:
# "KERNEL|MUTANT|CLASS|OPTIONS" (KERNEL convert_kernel or add_kernel).
for case in "convert_kernel|ties-away|tie broken the wrong way|--round rna" \
	"convert_kernel|truncate|truncated (toward zero)|--round rtz" \
	"convert_kernel|ftz-output|subnormal flushed|--ftz" "convert_kernel|sat-for-ieee|max finite for NaN|--sat" \
	"add_kernel|ties-away|tie broken the wrong way|--round rna" \
	"add_kernel|daz-input|subnormal input read as zero|--daz" "add_kernel|ftz-output|subnormal flushed|--ftz"; do
	kernel=${case%%|*}
	rest=${case#*|}
	mutant=${rest%%|*}
	rest=${rest#*|}
	class=${rest%%|*}
	opts=${rest#*|}
	golden=$cv
	[ "$kernel" = add_kernel ] && golden=$add
	# shellcheck disable=SC2086 # the options are words
	$kernel "$tmp/k" $opts
	check "$kernel $opts: fails" 1 "$FPREF" verify "$golden" "$tmp/k" --diagnose
	has "$kernel $opts: exactly $mutant" "these results are exactly \`$mutant\`"
	only_class "$kernel $opts" "$class"
	no_class "$kernel $opts: no class says inf (neither E4M3FN nor these bugs have one)" 'inf'
done

# 3. Two bugs at once: flushes and breaks ties away.  Neither mutant is
# exact; the cover names both.
add_kernel "$tmp/two" --ftz --round rna
check "add with two bugs: fails" 1 "$FPREF" verify "$add" "$tmp/two" --diagnose
has "two bugs: no single mutant" 'no mutant reproduces every result'
has "two bugs: all mismatches explained by two" 'more than one bug (greedy cover of the mismatches): `[a-z-]*` [0-9]* + `[a-z-]*` [0-9]* more: \([0-9]*\) of \1 mismatches explained; agreeing results contradicted: 0, 0$'
grep 'more than one bug' "$tmp/out" >"$tmp/cover"
if grep -q '`ties-away`' "$tmp/cover" && grep -q '`ftz-output`' "$tmp/cover"; then ok "two bugs: ties-away and ftz-output named"; else not_ok "two bugs: the cover"; fi
check "two bugs --json" 1 "$FPREF" verify "$add" "$tmp/two" --diagnose --json
has "two bugs --json: the cover of two" '"diagnosis_cover": \[{"mutant": "[a-z-]*", "adds": [0-9]*, "contradicts": 0}, {"mutant": "[a-z-]*", "adds": [0-9]*, "contradicts": 0}\]'
has "two bugs --json: every mismatch covered" '"outside": \([0-9]*\), .*"diagnosis_covered": \1,'

# 4. A correct kernel (the emulator as the job asks): no diagnosis.
convert_kernel "$tmp/right"
check "a correct kernel passes" 0 "$FPREF" verify "$cv" "$tmp/right" --diagnose
has "a correct kernel: no diagnosis" 'diagnosis none: no result differs from the golden bits'
check "a correct kernel --json" 0 "$FPREF" verify "$cv" "$tmp/right" --diagnose --json
has "a correct kernel --json: an empty list" '"diagnosis": \[\], "diagnosis_cover": \[\]'

# 5. A folder: the failing file's diagnosis in its line.
mkdir -p "$tmp/r/convert" "$tmp/r/add"
cp "$tmp/via-f16" "$tmp/r/convert/float32-float8_e4m3fn.rne.txt"
add_kernel "$tmp/r/add/bfloat16.rne.txt"
check "verify DIR --diagnose: fails" 1 "$FPREF" verify "$tmp/g" "$tmp/r" --diagnose
has "verify DIR --diagnose: the file's diagnosis" 'FAIL .*float32-float8_e4m3fn.rne.txt: [0-9]* of [0-9]* outside; exactly `double-round-f16`'
check "verify DIR --diagnose --json" 1 "$FPREF" verify "$tmp/g" "$tmp/r" --diagnose --json
has "verify DIR --json: the diagnosis" '"diagnosis_summary": "exactly `double-round-f16`", "diagnosis": \[{"mutant": "double-round-f16", "explains": \([0-9]*\), "mismatches": \1, "contradicts": 0, "exact": true}'

# 6. verify-gemm --diagnose (the variants themselves: tests/check_diagnose).
# A = [[1, 2], [3, 4]], B = I as float16, so D = A; one element of the
# kernel's D one ulp off (as tests/verify-gemm.sh writes them): no variant
# of any model gives it.
hdr() {
	printf '\223NUMPY\001\000v\000{\047descr\047: \047%s\047, \047fortran_order\047: False, \047shape\047: (2, 2), }                                                          \012' "$1"
}
{ hdr '<f2'; printf '\000<\000@\000B\000D'; } >"$tmp/A.npy"
{ hdr '<f2'; printf '\000<\000\000\000\000\000<'; } >"$tmp/B.npy"
{ hdr '<f4'; printf '\000\000\200?\000\000\000@\001\000@@\000\000\200@'; } >"$tmp/Dwrong.npy"
check "verify-gemm --diagnose, one element off: exit 1" 1 "$FPREF" verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" \
	--d "$tmp/Dwrong.npy" --model h100 --in f16 --out f32 --diagnose
has "verify-gemm --diagnose: what was sampled" 'diagnosis: the model.s variants re-run on 1 of the 1 differing elements and 3 of the 3 agreeing'
has "verify-gemm --diagnose: nothing fits a wrong bit" 'no variant fits every sampled element'
check "verify-gemm --diagnose --json" 1 "$FPREF" verify-gemm --a "$tmp/A.npy" --b "$tmp/B.npy" \
	--d "$tmp/Dwrong.npy" --model h100 --in f16 --out f32 --diagnose --json
has "verify-gemm --diagnose --json" '"diagnosis": {"sampled_mismatches": 1, "sampled_matches": 3, "candidates": \[\]}, "pass": false}'

# 7. Usage.
check "--diagnose without RESULTS: exit 2" 2 "$FPREF" verify "$cv" --diagnose
check "--threads without --diagnose: exit 2" 2 "$FPREF" verify "$cv" "$tmp/right" --threads 2
check "--threads 0: exit 2" 2 "$FPREF" verify "$cv" "$tmp/right" --diagnose --threads 0

tap_end
