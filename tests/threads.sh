#!/bin/sh
# --threads (issue 20): fpref gemm's D and report, fpref verify-gemm's
# verdict and fpref convert's arrays are the same bytes on 1, 2 and 3
# threads, and the emulator's threaded conversion is the oracle's
# (--engine ref, one element at a time).  POSIX sh; uses
# cmp and the tap helpers.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}

tap_name=threads
. "$(dirname "$0")/tap.sh"

# same_bytes NAME FILE1 FILE2
same_bytes() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		failed "$1"
		printf '#   %s and %s differ\n' "$2" "$3"
	fi
}

# gemm: 45 columns (three tiles, the last partial) and K = 100 (a partial
# block), for a tile-path model, a two-stage one and an element-wise one.
for model in "h100 --in e4m3" "tcgen05 --in e2m1" "mfma-cdna3 --in e4m3fnuz" "h100-mma --in e5m2" "a100 --in f16 --promote 32"; do
	tag=$(printf '%s' "$model" | tr -c 'a-z0-9' '_')
	for t in 1 2 3; do
		# shellcheck disable=SC2086 # the model's words are separate arguments
		"$FPREF" gemm --model $model --size 7x45x100 --seed 3 --report none --save "$tmp/d$tag$t.npy" --threads "$t" \
			>/dev/null 2>"$tmp/err" || { failed "gemm $model --threads $t runs"; sed 's/^/#   /' "$tmp/err"; }
	done
	same_bytes "gemm $model: 2 threads as 1" "$tmp/d${tag}1.npy" "$tmp/d${tag}2.npy"
	same_bytes "gemm $model: 3 threads as 1" "$tmp/d${tag}1.npy" "$tmp/d${tag}3.npy"
done

# the report (errors against the exact product, the bound) and verify-gemm's
# verdict: the same bytes on 1, 2 and 3 threads (each element measured in
# any thread, the sums taken in element order); --save-a and --save-b write
# the model's inputs, which verify-gemm reads back.
for model in "h100 --in e4m3" "tcgen05-mxf8f6f4 --in-a e5m2 --in-b e4m3" "recursive --in bf16" "a100 --in f16 --promote 32"; do
	tag=$(printf '%s' "$model" | tr -c 'a-z0-9' '_')
	for t in 1 2 3; do
		# shellcheck disable=SC2086
		"$FPREF" gemm --model $model --size 13x9x100 --seed 5 --json --threads "$t" >"$tmp/r$tag$t" 2>"$tmp/err" ||
			{ failed "gemm $model report --threads $t runs"; sed 's/^/#   /' "$tmp/err"; }
	done
	same_bytes "gemm $model report: 2 threads as 1" "$tmp/r${tag}1" "$tmp/r${tag}2"
	same_bytes "gemm $model report: 3 threads as 1" "$tmp/r${tag}1" "$tmp/r${tag}3"
done
"$FPREF" gemm --model ada --in e4m3 --size 11x7x96 --seed 9 --report none --save "$tmp/vd.npy" --save-a "$tmp/va.npy" \
	--save-b "$tmp/vb.npy" >/dev/null 2>"$tmp/err" || { failed "gemm --save-a --save-b runs"; sed 's/^/#   /' "$tmp/err"; }
for t in 1 2 3; do
	"$FPREF" verify-gemm --model h100 --in e4m3 --out f32 --a "$tmp/va.npy" --b "$tmp/vb.npy" --d "$tmp/vd.npy" --threads "$t" \
		--json >"$tmp/v$t" 2>"$tmp/err"
	[ $? = 1 ] || { failed "verify-gemm --threads $t: ada's D fails h100's model (exit 1)"; sed 's/^/#   /' "$tmp/err"; }
done
same_bytes "verify-gemm: 2 threads as 1" "$tmp/v1" "$tmp/v2"
same_bytes "verify-gemm: 3 threads as 1" "$tmp/v1" "$tmp/v3"
if "$FPREF" verify-gemm --model ada --in e4m3 --out f32 --a "$tmp/va.npy" --b "$tmp/vb.npy" --d "$tmp/vd.npy" --threads 2 >/dev/null; then
	ok "verify-gemm: --save-a, --save-b and --save read back, D is the model's"
else
	failed "verify-gemm: --save-a, --save-b and --save read back, D is the model's"
fi

# convert: FP32 values (a GEMM's D, 64 x 300: more than one slice per
# thread) to narrow formats, nearest even and stochastic (its bits indexed
# by element, whatever the slice), flags summarised.
"$FPREF" gemm --model h100 --in e5m2 --size 64x300x64 --scale-log2 -3 --report none --save "$tmp/x.npy" >/dev/null ||
	failed "gemm makes the conversion input"
for env in "--to e4m3" "--to e5m2 --sat" "--to bf16 --round sr --sr-bits seed=5" "--to e2m1 --round rtz"; do
	tag=$(printf '%s' "$env" | tr -c 'a-z0-9' '_')
	for t in 1 2 3; do
		# shellcheck disable=SC2086
		"$FPREF" convert $env --in "$tmp/x.npy" --out "$tmp/y$tag$t.npy" --threads "$t" >"$tmp/s$tag$t" 2>"$tmp/err" ||
			{ failed "convert $env --threads $t runs"; sed 's/^/#   /' "$tmp/err"; }
	done
	# shellcheck disable=SC2086
	"$FPREF" convert $env --engine ref --in "$tmp/x.npy" --out "$tmp/yref$tag.npy" >"$tmp/sref$tag" 2>"$tmp/err" ||
		{ failed "convert $env --engine ref runs"; sed 's/^/#   /' "$tmp/err"; }
	same_bytes "convert $env: 2 threads as 1" "$tmp/y${tag}1.npy" "$tmp/y${tag}2.npy"
	same_bytes "convert $env: 3 threads as 1" "$tmp/y${tag}1.npy" "$tmp/y${tag}3.npy"
	same_bytes "convert $env: 3 threads as the oracle" "$tmp/yref$tag.npy" "$tmp/y${tag}3.npy"
	sed "s/yref$tag/y${tag}3/" "$tmp/sref$tag" >"$tmp/sref-renamed"
	same_bytes "convert $env: 3 threads' summary (inexact count, flags) as the oracle's" "$tmp/sref-renamed" "$tmp/s${tag}3"
done

for bad in 0 257 two; do
	if "$FPREF" verify-gemm --model h100 --in e4m3 --out f32 --a "$tmp/va.npy" --b "$tmp/vb.npy" --d "$tmp/vd.npy" \
		--threads "$bad" >/dev/null 2>&1; then
		failed "verify-gemm --threads $bad is refused"
	else
		ok "verify-gemm --threads $bad is refused"
	fi
	if "$FPREF" gemm --model h100 --in e4m3 --size 2x2x2 --report none --threads "$bad" >/dev/null 2>&1; then
		failed "--threads $bad is refused"
	else
		ok "--threads $bad is refused"
	fi
done

tap_end
