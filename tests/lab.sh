#!/bin/sh
# Command-line tests of `fpref lab` and `fpref policy`: run by `make check`
# (FPREF is exported by TESTS_ENVIRONMENT) or by hand: sh tests/lab.sh.
# POSIX sh.  The signatures themselves are tests/check_lab.c's; here: the
# same bytes run to run, the counts the documents give (PyTorch's CUDA
# float32 list has 51 entries), and bad input refused with exit 2 (the
# picture, --svg and fpref draw lab, is tests/draw.sh's).

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=lab
. "$(dirname "$0")/tap.sh"

"$FPREF" lab fp16-noscale --steps 3 --seed 5 --json >"$tmp/a" 2>"$tmp/err"
rc1=$?
"$FPREF" lab fp16-noscale --steps 3 --seed 5 --json >"$tmp/b" 2>>"$tmp/err"
rc2=$?
if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
	ok 'lab: byte-identical run to run'
else
	failed 'lab: byte-identical run to run'
fi
"$FPREF" lab fp32 --steps 2 >"$tmp/t" 2>"$tmp/err"
if grep -q '^relative difference from fp32: 0 (00000000)$' "$tmp/t" && grep -q '^loss scale: none$' "$tmp/t"; then
	ok 'lab: fp32 against itself, no loss scale'
else
	failed 'lab: fp32 text report'
	sed 's/^/#   /' "$tmp/t"
fi

"$FPREF" policy --framework pytorch-cuda >"$tmp/p" 2>"$tmp/err"
if grep -q '^  float32 (51 ops): float32$' "$tmp/p" && grep -q '^  float16 (22 ops)' "$tmp/p" &&
	grep -q 'source: PyTorch documentation' "$tmp/p"; then
	ok 'policy: pytorch-cuda lists 51 float32 ops and its source'
else
	failed 'policy: pytorch-cuda'
	sed 's/^/#   /' "$tmp/p" | head -n 8
fi
"$FPREF" policy --op softmax >"$tmp/o" 2>"$tmp/err"
if [ "$(wc -l <"$tmp/o")" -eq 5 ] && grep -q '^pytorch-cuda  float32 ' "$tmp/o" && grep -q '^nvidia-amp    unlisted' "$tmp/o"; then
	ok 'policy --op: one line per framework'
else
	failed 'policy --op softmax'
	sed 's/^/#   /' "$tmp/o"
fi
"$FPREF" policy --op Softmax --framework nvidia-amp --json >"$tmp/j" 2>"$tmp/err"
if grep -q '"list": "infer"' "$tmp/j"; then ok 'policy --json: Softmax is on TF-AMP infer list'; else failed 'policy --json'; fi

check_bad() {
	_name=$1 _word=$2
	shift 2
	"$FPREF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$_word" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   expected exit 2 and %s; got exit %s: %s\n' "$_word" "$rc" "$(head -n 1 "$tmp/err")"
	fi
}
check_bad 'lab: unknown recipe' "fpref lab: unknown recipe 'fp4'" lab fp4
check_bad 'lab: an unknown recipe is told the recipes' "recipes: fp32, bf16, fp16-noscale, .*fp8-uncalibrated)" lab nope
check_bad 'policy: an op no framework lists (exit 2, not unlisted everywhere)' \
	"no framework lists an op 'gelu_tanh'.*look alike: Tanh" policy --op gelu_tanh
check_bad 'policy: an unknown op, nothing alike' "no framework lists an op 'zzz' (names are" policy --op zzz
check_bad 'lab: no recipe' 'fpref lab: a RECIPE is needed' lab
check_bad 'lab: steps 0' "bad --steps '0'" lab fp32 --steps 0
check_bad 'lab: steps not a number' "bad --steps 'x'" lab fp32 --steps x
check_bad 'lab: negative seed' "bad --seed '-1'" lab fp32 --seed -1
check_bad 'lab: --compare without --svg' 'fpref lab: --compare adds recipes to the picture: it needs --svg' \
	lab bf16 --compare fp16-noscale
check_bad 'lab: --compare of an unknown recipe' "fpref lab: --compare: unknown recipe 'fp4'" \
	lab bf16 --compare fp16-noscale,fp4 --svg "$tmp/l.svg"
check_bad 'lab: --compare of fp32' 'fpref lab: --compare: fp32 is drawn already' lab bf16 --compare fp32 --svg "$tmp/l.svg"
check_bad 'lab: --compare of RECIPE' 'fpref lab: --compare: bf16 is drawn already' lab bf16 --compare bf16 --svg "$tmp/l.svg"
check_bad 'lab: --compare twice' 'fpref lab: --compare: fp8-deepseek is drawn already' \
	lab bf16 --compare fp8-deepseek,fp8-deepseek --svg "$tmp/l.svg"
check_bad 'lab: --compare of six' 'fpref lab: --compare: at most 5 recipes' lab bf16 \
	--compare fp16-noscale,fp16-gradscaler,fp16-no-master,fp8-deepseek,fp8-tensor-current,fp8-uncalibrated --svg "$tmp/l.svg"
check_bad 'draw lab without --out' 'lab needs --out-file FILE.svg' draw lab bf16
if [ ! -e "$tmp/l.svg" ]; then ok 'lab: no picture written after a refusal'; else failed 'lab: a picture written after a refusal'; fi
check_bad 'policy: unknown framework' "unknown framework 'jax'" policy --framework jax

tap_end
