#!/bin/sh
# Replays the H200 run in golden/hw/nvidia-h200 (golden/hw/README.md):
# every measured tensor-core result set is verified again against golden
# files made afresh from the kernels' suites, and the counts must be the
# ones SUMMARY.txt recorded (a change of a preset shows here); cuBLASLt's
# FP8 GEMMs must equal the h100 FP8 model promoted every 128 products
# (fast accumulation off) and never promoted (on), bit for bit, and not
# the other way round. Without the folder (a distribution tarball does not
# carry it) the test is skipped: exit 77.
top=${srcdir:-$(dirname "$0")/..}
FPREF=${FPREF:-./fpref}
hw=$top/golden/hw/nvidia-h200
[ -f "$hw/SUMMARY.txt" ] || { echo "no $hw: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok - %s\n' "$1"; }
no() { fail=$((fail + 1)); printf 'not ok - %s\n' "$1"; }

for s in hw hw-chain hw-probe; do
	d=$tmp/${s#hw-}
	mkdir -p "$d" && "$FPREF" gen --suite "$top/kernels/$s.suite" --out "$d" >/dev/null ||
		{ no "fpref gen --suite kernels/$s.suite"; }
done

# The golden file of a kernel: its results header names it.
for r in "$hw"/results/*.txt; do
	name=$(basename "$r" .txt)
	want=$(awk -v n="$name" '$1 == n { print $3, $4, $5 }' "$hw/SUMMARY.txt")
	dir=hw
	case $name in mma4.* | wgmma4.*) dir=chain ;; probe.*) dir=probe ;; esac
	f=$(sed -n 's/^# formats //p' "$r" | head -n 1)
	model=${f%% *} rest=${f#* } in=${rest%% *} out=${rest##* }
	g=$tmp/$dir/dot/$model.$in-$out.txt
	"$FPREF" verify "$g" "$r" --json >"$tmp/v.json" 2>"$tmp/v.err"
	got=$(tr -d ' \n' <"$tmp/v.json" | sed 's/.*"cases":\([0-9]*\).*"exact":\([0-9]*\).*"outside":\([0-9]*\).*/\1 \2 \3/')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$name: vectors, exact, mismatches = $got as recorded"
	else
		no "$name: got '$got' ($(head -c 300 "$tmp/v.err")), recorded '$want'"
	fi
done

# cuBLASLt's FP8 GEMM, through torch._scaled_mm, against fpref gemm.
h=$hw/hopper
tag=float8_e4m3fn-float8_e4m3fn
same() { # two .npy files of 128x128 float32: equal data
	tail -c 65536 "$1" >"$tmp/x" && tail -c 65536 "$2" >"$tmp/y" && cmp -s "$tmp/x" "$tmp/y"
}
gemm() { # promote interval or none, output file; D alone (no exact products, no bounds)
	p=
	[ "$1" = none ] || p="--promote $1"
	# shellcheck disable=SC2086
	"$FPREF" gemm --model h100 --in e4m3 --a "$h/cublaslt-$tag-A.npy" --b "$h/cublaslt-$tag-B.npy" $p --report none --save "$2" >/dev/null
}
if gemm 128 "$tmp/p128.npy" && gemm none "$tmp/none.npy"; then
	same "$h/torch-$tag-float32-fast0.npy" "$tmp/p128.npy" && ok "cuBLASLt, fast accumulation off = h100 FP8 promoted every 128" ||
		no "cuBLASLt, fast accumulation off = h100 FP8 promoted every 128"
	same "$h/torch-$tag-float32-fast1.npy" "$tmp/none.npy" && ok "cuBLASLt, fast accumulation on = h100 FP8 never promoted" ||
		no "cuBLASLt, fast accumulation on = h100 FP8 never promoted"
	same "$h/torch-$tag-float32-fast0.npy" "$tmp/none.npy" && no "the two cuBLASLt modes are told apart" ||
		ok "the two cuBLASLt modes are told apart"
else
	no "fpref gemm on the cuBLASLt inputs"
fi
printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
