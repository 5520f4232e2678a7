#!/bin/sh
# Command-line tests of `fpref lossscale`: run by `make check` (FPREF is
# exported by TESTS_ENVIRONMENT) or by hand: sh tests/lossscale.sh.  POSIX sh.
#
# Expected values come from documents, not from running fpref:
#   seed 000 (shared/seeds): growth_interval 3, an inf at step 4: scales after
#     each step 1024, 1024, 2048, 1024, 1024; steps 1-3 and 5 applied, 4 skipped.
#     1e-8 is 0.0 in FP16; times 1024 it is 1.0251998901367188e-05, which
#     is below 2^-14 (6.10e-5): a subnormal that survives.
#   DeepSpeed's update_scale, worked by hand (see tests/check_lossscale.c):
#     init 16, window 3, hysteresis 2, overflows at iterations 5, 7, 8, 13:
#     16 16 16 32 32 32 16 8 8 8 8 16 16.
#   70000 > 65504 + half an ulp (65520): inf in FP16 (IEEE 754 binary16).

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=ls
. "$(dirname "$0")/tap.sh"
: >"$tmp/empty"


not_ok() {
	failed "$1"
	printf '#   expected: %s\n#   got:      %s\n' "$2" "$3"
	sed 's/^/#   stderr: /' "$tmp/err" | head -n 5
}

run() {
	"$FPREF" lossscale "$@" <"$tmp/empty" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# check_eq NAME EXPECTED GOT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "$2" "$3"; fi
}

# The rows of a table (lines starting with a step number), columns picked by awk.
rows() {
	grep -E '^ *[0-9]+ ' "$tmp/out" | awk "{ print $1 }" | tr '\n' ' ' | sed 's/ $//'
}

# check_bad NAME WORD ARGS...: exit status 2 and WORD in the message.
check_bad() {
	_name=$1
	_word=$2
	shift 2
	run "$@"
	if [ "$rc" = 2 ] && grep -q -- "$_word" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$_name"
	else
		not_ok "$_name" "exit 2, '$_word' on stderr, nothing on stdout" "exit $rc: $(head -n 1 "$tmp/err")"
	fi
}

# ---- the seed's trace -------------------------------------------------------
run --scaler pytorch --init-scale 1024 --growth-interval 3 --overflow-at 4 --steps 5
check_eq 'seed trace: exit 0' 0 "$rc"
check_eq 'seed trace: scales after each step' '1024 1024 2048 1024 1024' "$(rows '$4')"
check_eq 'seed trace: applied or skipped' 'applied applied applied skipped applied' "$(rows '$3')"
check_eq 'seed trace: optimizer steps and skipped' '4 1' "$(rows '$6, $7' | awk '{ print $(NF-1), $NF }')"

printf '# the same run from a steps file\nfinite\n0\n\nfinite\ninf\n0\n' >"$tmp/steps"
run --scaler pytorch --init-scale 1024 --growth-interval 3 --steps-file "$tmp/steps"
check_eq 'steps file: the seed trace again' '1024 1024 2048 1024 1024' "$(rows '$4')"

# ---- DeepSpeed, hysteresis 2 ------------------------------------------------
run --scaler deepspeed --initial-scale-power 4 --loss-scale-window 3 --overflow-at 5,7,8,13 --steps 13
check_eq 'deepspeed hysteresis trace' '16 16 16 32 32 32 16 8 8 8 8 16 16' "$(rows '$4')"
check_eq 'deepspeed skipped' 'skipped skipped skipped skipped' "$(rows '$3' | tr ' ' '\n' | grep skipped | tr '\n' ' ' | sed 's/ $//')"

# At the minimum (2^0 = min_loss_scale 1) an overflow raises and the run ends.
run --scaler deepspeed --initial-scale-power 0 --hysteresis 1 --overflow-at 1 --steps 3
check_eq 'deepspeed raise at min: one row, raised' 'raised' "$(rows '$3')"
if grep -q 'already at minimum' "$tmp/out"; then ok 'deepspeed raise at min: said'; else not_ok 'raise said' 'already at minimum' "$(cat "$tmp/out")"; fi
run --scaler deepspeed --initial-scale-power 0 --hysteresis 1 --overflow-at 1 --steps 3 --no-raise-at-min
check_eq 'deepspeed without raise: stays at min' '1 1 1' "$(rows '$4')"

# ---- gradients from .npy -----------------------------------------------------
# float32, shape (2, 1): step 1 holds 1e-8 (0x322BCC77), step 2 holds 70000 (0x4788B800).
npy_f4() {
	printf '\223NUMPY\001\000v\000'
	printf '%-117s\n' "{'descr': '<f4', 'fortran_order': False, 'shape': $1, }"
}
{ npy_f4 '(2, 1)'; printf '\167\314\053\062\000\270\210\107'; } >"$tmp/g.npy"
run --scaler pytorch --init-scale 1024 --grads "$tmp/g.npy" --json
check_eq 'grads: exit 0' 0 "$rc"
step1=$(grep '"step": 1,' "$tmp/out")
step2=$(grep '"step": 2,' "$tmp/out")
case $step1 in
*'"result": "applied"'*'"zero_fp16": 1, "subnormal_fp16": 0, "zero_scaled": 0, "subnormal_scaled": 1'*) ok 'grads: 1e-8 is zero in FP16, survives scaled as a subnormal' ;;
*) not_ok 'grads: step 1' 'applied, zero_fp16 1, subnormal_scaled 1' "$step1" ;;
esac
case $step2 in
*'"result": "skipped"'*'"next_scale": 512'*'"nonfinite_scaled": 1'*) ok 'grads: 70000 * 1024 overflows FP16, skipped, backoff to 512' ;;
*) not_ok 'grads: step 2' 'skipped, next 512, nonfinite 1' "$step2" ;;
esac
run --scaler deepspeed --initial-scale-power 10 --grads "$tmp/g.npy" --grads "$tmp/g.npy"
check_eq 'grads, deepspeed, two tensors: the FP32 sum overflows at step 2' 'applied skipped' "$(rows '$3')"

# ---- simulation: seeded, so two runs agree ------------------------------------
run --scaler pytorch --growth-interval 20 --simulate --steps 60 --scale-log2 -28 --scale-log2-end -6 --values 256 --seed 5
cp "$tmp/out" "$tmp/sim1"
run --scaler pytorch --growth-interval 20 --simulate --steps 60 --scale-log2 -28 --scale-log2-end -6 --values 256 --seed 5
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/sim1" && grep -q 'skip rate' "$tmp/out" && grep -q 'without scaling' "$tmp/out"; then
	ok 'simulate: same seed, same output, skip rate and underflow reported'
else
	not_ok 'simulate' 'identical runs with a summary' "exit $rc"
fi

# ---- bad input ------------------------------------------------------------------
check_bad 'no scaler' '--scaler' --overflow-at 1 --steps 2
check_bad 'unknown scaler' 'unknown --scaler' --scaler tf --overflow-at 1 --steps 2
check_bad 'option of another scaler' 'does not apply' --scaler pytorch --hysteresis 2 --overflow-at 1 --steps 2
check_bad 'overflow-at without steps' 'needs --steps' --scaler pytorch --overflow-at 1
check_bad 'overflow-at beyond steps' 'bad --overflow-at' --scaler pytorch --overflow-at 3 --steps 2
check_bad 'two sources' 'exactly one' --scaler pytorch --overflow-at 1 --steps 2 --simulate
check_bad 'interval 0' 'growth-interval' --scaler pytorch --growth-interval 0 --overflow-at 1 --steps 2
check_bad 'negative init' 'positive' --scaler apex --init-scale -4 --overflow-at 1 --steps 2
printf '0\nmaybe\n' >"$tmp/badsteps"
check_bad 'bad steps file line' 'badsteps:2' --scaler static --steps-file "$tmp/badsteps"
check_bad 'steps with a steps file' 'goes with' --scaler static --steps-file "$tmp/steps" --steps 3
check_bad 'unknown profile' 'unknown profile' --scaler pytorch --overflow-at 1 --steps 2 --profile bogus
check_bad 'missing npy' 'nope.npy' --scaler pytorch --grads "$tmp/nope.npy"
check_bad 'bad new-scale' 'new-scale' --scaler pytorch --overflow-at 1 --steps 2 --new-scale 2:8
check_bad 'steps file a directory' "$tmp: is a directory" --scaler static --steps-file "$tmp"
awk 'BEGIN { s = ""; for (i = 0; i < 4100; i++) s = s "0"; print "0"; print s }' >"$tmp/longsteps"
check_bad 'over-long steps line names the file' 'longsteps:2: longer than 4096 bytes' --scaler static --steps-file "$tmp/longsteps"
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f4\047, \047fortran_order\047: False, \047shape\047: (3, 0), }                                                          \012' >"$tmp/empty.npy"
check_bad 'empty grads' 'empty.npy: the array is empty' --scaler pytorch --grads "$tmp/empty.npy"

tap_end
