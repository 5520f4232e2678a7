#!/bin/sh
# The CUDA kernels' CPU-side pipeline. Always: kernels/hw.suite and
# kernels/hw-chain.suite generate cleanly. With fpref-cuda built (nvcc
# found): kernels/gpu-check --dry-run end to end (the harness reads every
# golden file and writes results that `fpref verify` accepts), a damaged
# result is reported as a mismatch, a second run is safe, and the harness
# refuses bad input. The mixed FP8 kernels (A and B of two formats, issue
# 36) are planned on sm_90 (h100-mma, h100-wgmma) and sm_89 (ada), pass
# the dry run on both, and refuse another pair's file. Without fpref-cuda the rest is skipped (exit 77).
# The tcgen05 kernels (sm_100a): gpu-check leaves them out on compute
# capability 9.0 (an H200 runs what it ran before) and runs them, in a
# dry run, as for 10.x; where cuobjdump is found (PATH, or $CUOBJDUMP), the
# harness's sm_100a SASS holds the tcgen05 MMA instructions
# kernels/README.md names, and its sm_90a SASS none of them.
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

mkdir -p "$tmp/gen/hw" "$tmp/gen/chain" "$tmp/gen/probe" "$tmp/gen/tcgen05" "$tmp/gen/settle"
check 'fpref gen --suite kernels/hw.suite' "$FPREF" gen --suite "$top/kernels/hw.suite" --out "$tmp/gen/hw"
check 'fpref gen --suite kernels/hw-chain.suite' "$FPREF" gen --suite "$top/kernels/hw-chain.suite" --out "$tmp/gen/chain"
check 'fpref gen --suite kernels/hw-probe.suite' "$FPREF" gen --suite "$top/kernels/hw-probe.suite" --out "$tmp/gen/probe"
check 'fpref gen --suite kernels/hw-tcgen05.suite' "$FPREF" gen --suite "$top/kernels/hw-tcgen05.suite" --out "$tmp/gen/tcgen05"
check 'fpref gen --suite kernels/hw-settle.suite' "$FPREF" gen --suite "$top/kernels/hw-settle.suite" --out "$tmp/gen/settle"

if [ ! -x "$FPREF_CUDA" ]; then
	printf '%s passed, %s failed; fpref-cuda not built (no nvcc): the rest skipped\n' "$pass" "$fail"
	[ "$fail" -eq 0 ] || exit 1
	exit 77
fi

bin=$(dirname "$FPREF_CUDA")
kernels=$("$FPREF_CUDA" --list | wc -l)
# On compute capability 9.0 (the dry run's), the tcgen05 rows are left out.
kernels90=$("$FPREF_CUDA" --list | awk -F'\t' '$2 !~ /^tcgen05\//' | wc -l)
check 'the table has tcgen05 kernels' test "$kernels90" -lt "$kernels"
# Every kernel's golden file is in the suites: the table and the suites agree.
missing=$("$FPREF_CUDA" --list | while IFS='	' read -r name g _; do [ -f "$tmp/gen/$g" ] || echo "$name: $g"; done)
check 'every kernel of the table has its golden file in the suites' test -z "$missing"
[ -z "$missing" ] || echo "#   $missing"

gc="$top/kernels/gpu-check --dry-run --bin $bin --fpref $FPREF --golden $tmp/gen --out $tmp/run"
check 'gpu-check --dry-run exits 0' $gc
summary=$tmp/run/SUMMARY.txt
rows() { grep -v '^#' "$summary" | grep -v '^kernel ' ; }
# issue 37's cases (kernels/hw-settle.suite): each mma.sync and WGMMA kernel
# whose file settle/ has, once more as settle.KERNEL
settle=$("$FPREF_CUDA" --list | while IFS='	' read -r name g _; do
	case $g in hw/dot/*) [ -f "$tmp/gen/settle/dot/${g#hw/dot/}" ] && echo "$name" ;; esac
done | wc -l)
check "SUMMARY.txt: all $kernels90 kernels of compute capability 9.0 verified, and $settle settle rows" \
	test "$(rows | awk '$2 == "verified" && $1 !~ /^settle\./' | wc -l)" -eq "$kernels90" -a \
	"$(rows | awk '$2 == "verified" && $1 ~ /^settle\./' | wc -l)" -eq "$settle" -a "$settle" -eq 12
check "SUMMARY.txt of 9.0: the six classes of issue 37 fpref's row (the dry run's d are fpref's)" test \
	"$(grep -c "^# class [A-Z][0-9]: fpref's row" "$summary")" -eq 6
check 'SUMMARY.txt of 9.0: no tcgen05 row, no tcgen05 header line' test -z "$(grep tcgen05 "$summary" "$tmp/run/status.tsv")"
check 'SUMMARY.txt: every vector an exact match' test -z "$(rows | awk '$3 != $4 || $5 != 0')"
check 'results carry the golden header and the kernel' grep -q '^# kernel mma4.f16.f32: 4 chained mma.sync' "$tmp/run/results/mma4.f16.f32.txt"

# A and B of two FP8 formats (issue 36): 16 rows (mma, mma4, wgmma, wgmma4;
# E5M2 x E4M3 and E4M3 x E5M2; FP32 and FP16 out) read the pair's files.
mixed_rows() { # the plan's run lines of the mixed rows whose golden file is
	# the row's own: its pair, output, folder and the preset ($1 mma.sync, $2 wgmma)
	awk -v m="$1" -v w="$2" '$1 == "run" && $2 ~ /^w?g?mma4?\.e(5m2xe4m3|4m3xe5m2)\.f(32|16)$/ {
		split($2, p, ".")
		pair = p[2] == "e5m2xe4m3" ? "float8_e5m2-x-float8_e4m3fn" : "float8_e4m3fn-x-float8_e5m2"
		out = p[3] == "f32" ? "float32" : "float16"
		dir = p[1] ~ /4$/ ? "chain" : "hw"
		preset = p[1] ~ /^wgmma/ ? w : m
		if ($3 == dir "/dot/" preset "." pair "-" out ".txt") print $2 }'
}
mixed=$("$FPREF_CUDA" --list | awk -F'\t' '$1 ~ /^w?g?mma4?\.e(5m2xe4m3|4m3xe5m2)\./' | wc -l)
check 'the table has the 16 mixed FP8 kernels' test "$mixed" -eq 16
check 'SUMMARY.txt: the 16 mixed kernels verified, every vector exact' test \
	"$(rows | awk '$1 ~ /xe/ && $2 == "verified" && $3 > 0 && $3 == $4 && $5 == 0' | wc -l)" -eq 16
check 'results of mma.e5m2xe4m3.f32 carry the pair (A then B) in their header' \
	grep -q '^# formats h100-mma float8_e5m2\*float8_e4m3fn -> float32$' "$tmp/run/results/mma.e5m2xe4m3.f32.txt"
check 'results of wgmma4.e4m3xe5m2.f16 carry the reverse pair' \
	grep -q '^# formats h100-wgmma float8_e4m3fn\*float8_e5m2 -> float16$' "$tmp/run/results/wgmma4.e4m3xe5m2.f16.txt"

# A damaged result must show as a mismatch (the pipeline can fail).
r=$tmp/run/results/float2half_rn.txt
awk '!/^#/ && !done { $2 = ($2 == "3C00") ? "3C01" : "3C00"; done = 1 } { print }' "$r" >"$r.new" && mv "$r.new" "$r"
check 'gpu-check --verify-only still exits 0 with a mismatch' "$top/kernels/gpu-check" --verify-only --bin "$bin" \
	--fpref "$FPREF" --golden "$tmp/gen" --out "$tmp/run"
check 'SUMMARY.txt shows the damaged result as 1 mismatch' test \
	"$(rows | awk '$1 == "float2half_rn" { print $5 }')" = 1
check 'a second run is safe and whole again' $gc
check 'SUMMARY.txt: exact again after the second run' test -z "$(rows | awk '$3 != $4 || $5 != 0')"

# The plan, and a dry run as for a Blackwell GPU (compute capability 10.0).
plan() { "$top/kernels/gpu-check" --plan --bin "$bin" "$@"; }
check 'gpu-check --plan --cc 9.0: every kernel but the tcgen05 ones runs' test \
	"$(plan --cc 9.0 | grep -c '^run ')" -eq "$kernels90" -a -z "$(plan --cc 9.0 | grep '^run  *tcgen05')"
check 'gpu-check --plan --cc 10.0: every kernel runs, tcgen05 against tcgen05/' test \
	"$(plan --cc 10.0 | grep -c '^run ')" -eq "$kernels" -a \
	"$(plan --cc 10.0 | grep -c '^run  *tcgen05\.[^ ]*  *tcgen05/dot/tcgen05')" -eq $((kernels - kernels90))
check 'gpu-check --plan --cc 9.0: the 16 mixed rows run, mma.sync on h100-mma files, wgmma on h100-wgmma' test \
	"$(plan --cc 9.0 | mixed_rows h100-mma h100-wgmma | wc -l)" -eq 16
check 'gpu-check --plan --cc 8.9: the 8 mixed mma.sync rows run on ada files' test \
	"$(plan --cc 8.9 | mixed_rows ada ada | grep -c '^mma')" -eq 8
# Ada end to end: gpu-check makes the ada pair files itself (no --golden).
check 'gpu-check --dry-run --cc 8.9 --only *xe* exits 0' "$top/kernels/gpu-check" --dry-run --cc 8.9 --bin "$bin" \
	--fpref "$FPREF" --only '*xe*' --out "$tmp/run89"
check 'SUMMARY.txt of 8.9: the 16 mixed rows verified against ada files, every vector exact' test \
	"$(grep -v '^#' "$tmp/run89/SUMMARY.txt" | awk '$1 ~ /xe/ && $2 == "verified" && $3 > 0 && $3 == $4 && $5 == 0' | wc -l)" -eq 16 -a \
	"$(grep -c '^# formats ada float8_e5m2\*float8_e4m3fn -> ' "$tmp/run89"/results/mma*.e5m2xe4m3.*.txt | grep -c ':1$')" -eq 4
check 'gpu-check --cc without --dry-run or --plan is a usage error' exit_is 2 "$top/kernels/gpu-check" --cc 10.0
mkdir -p "$tmp/notc5" && cp -r "$tmp/gen/hw" "$tmp/gen/chain" "$tmp/gen/probe" "$tmp/notc5/"
check 'gpu-check --cc 10.0 refuses a --golden without tcgen05/' exit_is 1 "$top/kernels/gpu-check" --dry-run --cc 10.0 \
	--bin "$bin" --fpref "$FPREF" --golden "$tmp/notc5" --out "$tmp/run-notc5"
# The tcgen05 rows only (--only): the rest is the 9.0 run's pipeline.
tc5=$((kernels - kernels90))
check 'gpu-check --plan --cc 10.0 --only: the tcgen05 rows alone' test \
	"$(plan --cc 10.0 --only 'tcgen05.*' | grep -c '^run  *tcgen05\.')" -eq "$tc5" -a \
	"$(plan --cc 10.0 --only 'tcgen05.*' | grep -c '^run ')" -eq "$tc5"
check 'gpu-check --dry-run --cc 10.0 --only tcgen05.* exits 0' "$top/kernels/gpu-check" --dry-run --cc 10.0 --bin "$bin" \
	--fpref "$FPREF" --golden "$tmp/gen" --only 'tcgen05.*' --out "$tmp/run10"
summary=$tmp/run10/SUMMARY.txt
check "SUMMARY.txt of 10.0: all $tc5 tcgen05 kernels verified, every vector exact" test \
	"$(rows | awk '$1 ~ /^tcgen05\./ && $2 == "verified" && $3 == $4 && $5 == 0' | wc -l)" -eq "$tc5" -a \
	"$(rows | wc -l)" -eq "$tc5"
check 'SUMMARY.txt of 10.0: the tcgen05 header line' grep -q '^# tcgen05.mma kernels: presets tcgen05, ' "$summary"
check 'results of 10.0: tcgen05.mxf4nvf4.4x carries its golden header' grep -q '^# formats tcgen05-mxf4nvf4 float4_e2m1fn -> float32' \
	"$tmp/run10/results/tcgen05.mxf4nvf4.4x.txt"

# The tcgen05 SASS (cuobjdump -sass needs nvdisasm beside it or on PATH).
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump 2>/dev/null)}
if [ -z "$cuobjdump" ] || [ ! -x "$cuobjdump" ]; then
	echo '# skipped, not counted: the SASS checks (no cuobjdump; set CUOBJDUMP)'
elif ! "$cuobjdump" --list-elf "$FPREF_CUDA" 2>/dev/null | grep -q 'sm_100a'; then
	echo "# skipped, not counted: the SASS checks ($FPREF_CUDA has no sm_100a code: nvcc without it)"
else
	"$cuobjdump" -sass -arch sm_100a "$FPREF_CUDA" >"$tmp/sm100a.sass" 2>"$tmp/sass.err"
	check 'cuobjdump -sass -arch sm_100a fpref-cuda' test -s "$tmp/sm100a.sass"
	for op in UTCHMMA UTCQMMA UTCOMMA UTCOMMA.4X LDTM.x32 LDTM.x16.PACK16BIT STTM.x32 STTM.x16.EXPAND16BIT UTCBAR; do
		check "sm_100a SASS has $op" grep -q "[[:space:]]$op[[:space:]]" "$tmp/sm100a.sass"
	done
	"$cuobjdump" -sass -arch sm_90a "$FPREF_CUDA" >"$tmp/sm90a.sass" 2>>"$tmp/sass.err"
	check 'sm_90a SASS has no tcgen05 MMA (the kernels compiled out)' test -s "$tmp/sm90a.sass" -a \
		-z "$(grep -E 'UTC[A-Z]*MMA' "$tmp/sm90a.sass")"
fi

# The harness refuses bad input.
g=$tmp/gen/hw/convert/float32-float16.cuda.txt
check 'fpref-cuda: unknown kernel is a usage error' exit_is 2 "$FPREF_CUDA" --kernel nosuch --golden "$g" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: a golden file of another kernel is refused' exit_is 2 "$FPREF_CUDA" --kernel float2bfloat16_rn \
	--golden "$g" --out "$tmp/x" --cpu-echo
head -n 20 "$g" >"$tmp/truncated.txt"
check 'fpref-cuda: a truncated golden file is refused' exit_is 2 "$FPREF_CUDA" --kernel float2half_rn \
	--golden "$tmp/truncated.txt" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: no half-written results after a refusal' test ! -e "$tmp/x"
pair=$tmp/gen/hw/dot/h100-mma.float8_e5m2-x-float8_e4m3fn-float32.txt
check 'fpref-cuda: a same-format kernel refuses a file of two formats' exit_is 2 "$FPREF_CUDA" --kernel mma.e4m3.f32 \
	--golden "$pair" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: a mixed kernel refuses the reverse pair' exit_is 2 "$FPREF_CUDA" --kernel mma.e4m3xe5m2.f32 \
	--golden "$pair" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: a mixed kernel refuses a file of one format' exit_is 2 "$FPREF_CUDA" --kernel mma.e5m2xe4m3.f32 \
	--golden "$tmp/gen/hw/dot/h100-mma.float8_e5m2-float32.txt" --out "$tmp/x" --cpu-echo
check 'fpref-cuda: missing options are a usage error' exit_is 2 "$FPREF_CUDA" --kernel float2half_rn
check 'fpref verify refuses results for another file' exit_is 2 "$FPREF" verify \
	"$tmp/gen/hw/convert/float32-bfloat16.cuda.txt" "$tmp/run/results/float2half_rn.txt"

printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
