#!/bin/sh
# The CUDA kernels' CPU-side pipeline. Always: kernels/hw.suite and
# kernels/hw-chain.suite generate cleanly. With fpref-cuda built (nvcc
# found): kernels/gpu-check --dry-run end to end (the harness reads every
# golden file and writes results that `fpref verify` accepts), a damaged
# result is reported as a mismatch, a second run is safe, and the harness
# refuses bad input. Without fpref-cuda the rest is skipped (exit 77).
top=${srcdir:-$(dirname "$0")/..}
FPREF=${FPREF:-./fpref}
FPREF_CUDA=${FPREF_CUDA:-./kernels/fpref-cuda}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # name, then a command that must succeed
	name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		pass=$((pass + 1))
		printf 'ok - %s\n' "$name"
	else
		fail=$((fail + 1))
		printf 'not ok - %s\n' "$name"
		sed 's/^/#   /' "$tmp/out" | tail -n 20
	fi
}
exit_is() { # expected status, then a command
	want=$1
	shift
	"$@"
	got=$?
	[ "$got" -eq "$want" ] || { echo "exit status $got, wanted $want"; return 1; }
}

mkdir -p "$tmp/gen/hw" "$tmp/gen/chain" "$tmp/gen/probe"
check 'fpref gen --suite kernels/hw.suite' "$FPREF" gen --suite "$top/kernels/hw.suite" --out "$tmp/gen/hw"
check 'fpref gen --suite kernels/hw-chain.suite' "$FPREF" gen --suite "$top/kernels/hw-chain.suite" --out "$tmp/gen/chain"
check 'fpref gen --suite kernels/hw-probe.suite' "$FPREF" gen --suite "$top/kernels/hw-probe.suite" --out "$tmp/gen/probe"

if [ ! -x "$FPREF_CUDA" ]; then
	printf '%s passed, %s failed; fpref-cuda not built (no nvcc): the rest skipped\n' "$pass" "$fail"
	[ "$fail" -eq 0 ] || exit 1
	exit 77
fi

bin=$(dirname "$FPREF_CUDA")
kernels=$("$FPREF_CUDA" --list | wc -l)
# Every kernel's golden file is in the suites: the table and the suites agree.
missing=$("$FPREF_CUDA" --list | while IFS='	' read -r name g _; do [ -f "$tmp/gen/$g" ] || echo "$name: $g"; done)
check 'every kernel of the table has its golden file in the suites' test -z "$missing"
[ -z "$missing" ] || echo "#   $missing"

gc="$top/kernels/gpu-check --dry-run --bin $bin --fpref $FPREF --golden $tmp/gen --out $tmp/run"
check 'gpu-check --dry-run exits 0' $gc
summary=$tmp/run/SUMMARY.txt
rows() { grep -v '^#' "$summary" | grep -v '^kernel ' ; }
check "SUMMARY.txt: all $kernels kernels verified" test "$(rows | awk '$2 == "verified"' | wc -l)" -eq "$kernels"
check 'SUMMARY.txt: every vector an exact match' test -z "$(rows | awk '$3 != $4 || $5 != 0')"
check 'results carry the golden header and the kernel' grep -q '^# kernel mma4.f16.f32: 4 chained mma.sync' "$tmp/run/results/mma4.f16.f32.txt"

# A damaged result must show as a mismatch (the pipeline can fail).
r=$tmp/run/results/float2half_rn.txt
awk '!/^#/ && !done { $2 = ($2 == "3C00") ? "3C01" : "3C00"; done = 1 } { print }' "$r" >"$r.new" && mv "$r.new" "$r"
check 'gpu-check --verify-only still exits 0 with a mismatch' "$top/kernels/gpu-check" --verify-only --bin "$bin" \
	--fpref "$FPREF" --golden "$tmp/gen" --out "$tmp/run"
check 'SUMMARY.txt shows the damaged result as 1 mismatch' test \
	"$(rows | awk '$1 == "float2half_rn" { print $5 }')" = 1
check 'a second run is safe and whole again' $gc
check 'SUMMARY.txt: exact again after the second run' test -z "$(rows | awk '$3 != $4 || $5 != 0')"

# The harness refuses bad input.
g=$tmp/gen/hw/convert/float32-float16.cuda.txt
check 'fpref-cuda: unknown kernel is a usage error' exit_is 2 "$FPREF_CUDA" --kernel nosuch --golden "$g" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: a golden file of another kernel is refused' exit_is 2 "$FPREF_CUDA" --kernel float2bfloat16_rn \
	--golden "$g" --out "$tmp/x" --cpu-echo
head -n 20 "$g" >"$tmp/truncated.txt"
check 'fpref-cuda: a truncated golden file is refused' exit_is 2 "$FPREF_CUDA" --kernel float2half_rn \
	--golden "$tmp/truncated.txt" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: no half-written results after a refusal' test ! -e "$tmp/x"
check 'fpref-cuda: missing options are a usage error' exit_is 2 "$FPREF_CUDA" --kernel float2half_rn
check 'fpref verify refuses results for another file' exit_is 2 "$FPREF" verify \
	"$tmp/gen/hw/convert/float32-bfloat16.cuda.txt" "$tmp/run/results/float2half_rn.txt"

printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
