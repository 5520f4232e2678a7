#!/bin/sh
# fpref probe order against black boxes of known order (tests/order_box:
# plain float arithmetic in a stated order, no fpref inside): each revealed
# tree is the box's own (its --tree, written from the same stated order,
# not from the reveal), the tree reproduces the box bit for bit on random
# lines through fpref dot --model tree (lines made here by awk, not by the
# library's generator that probe order's own check uses), the box's calls
# stay O(N log N), and boxes that are no fixed tree (random order per line
# or per start, Kahan, a double accumulator for all N values) exit 1
# saying what was seen.
# 10^5 random lines in all over N = 2..256; N = 1024 x 10^5 lines is
# make check-exhaustive's (FPREF_ORDER_FULL=1 here).  POSIX sh.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
BOX=${FPREF_TESTS:-"$(dirname "$0")"}/order_box
tap_name=order
. "$(dirname "$0")/tap.sh"

. "$(dirname "$0")/order_lib.sh"

# reveal NAME N FMT BOXARGS [OPTIONS...]: probe order reveals the box's own
# tree at N (order_lib.sh's checks), and fpref dot --model tree gives the
# box's bits on RANDOM_LINES more lines
reveal() {
	name=$1 n=$2 fmt=$3 boxargs=$4
	shift 4
	"$BOX" $boxargs --tree "$n" >"$tmp/want" 2>"$tmp/err" || { not_ok "$name: the box prints its tree"; return; }
	probe_order "$name" "$n" "$fmt" "$BOX $boxargs" "$@" || return
	if cmp -s "$tmp/want" "$tmp/got"; then ok "$name: the box's tree, exactly"; else not_ok "$name: not the box's tree"; fi
	reproduce "$name" "$n" "$fmt" "$BOX $boxargs"
}

if [ "${FPREF_ORDER_FULL:-0}" = 1 ]; then
	VERIFY=100000 RANDOM_LINES=2000
	for args in seq reverse pairwise "blocked 8" "blocked 32"; do
		reveal "$args N=1024" 1024 f32 "$args"
	done
	reveal "splitk 256 N=1024" 1024 f16 "splitk 256" --tc generic:4:24:none:rtz
	reveal "tail 32 N=1000" 1000 f32 "tail 32"
else
	VERIFY=2000 RANDOM_LINES=500
	for n in 2 3 7 16 33 100 256; do
		for args in seq reverse pairwise "blocked 4" "blocked 8"; do
			[ "$n" -lt 8 ] && [ "$args" = "blocked 8" ] && continue
			reveal "$args N=$n" "$n" f32 "$args"
		done
	done
	# float accumulators, then the rest added exactly (in double), one rounding
	for n in 11 35 100; do
		reveal "tail 8 N=$n" "$n" f32 "tail 8"
	done
	# a tensor-core block (four products and c, truncated below 2^(E-24),
	# one rounding toward zero) chained in split-K slices added in float32
	for n in 5 24 64; do
		reveal "splitk 8 N=$n (generic block)" "$n" f16 "splitk 8" --tc generic:4:24:none:rtz
	done
fi

# the presets tried by default: V100's FP16 block is the box's unit on
# these inputs (four products, 24 bits, truncation), and is named
"$FPREF" probe order --cmd "$BOX splitk 8" --n 24 --in f16 --out f32 --verify 500 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(sed -n 's/^tree: //p' "$tmp/out")" = "$("$BOX" splitk 8 --tree 24 | sed 's/generic:4:24:none:rtz/v100/g')" ]; then
	ok "splitk: the preset candidates find v100's block"
else
	not_ok "splitk: the preset candidates (exit $rc)"
fi

# ---- no fixed tree: exit 1, saying what was seen ----
# not_tree NAME BOXARGS TEXT
not_tree() {
	"$FPREF" probe order --cmd "$BOX $2" --n 32 --in f32 --verify 1000 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -F -- "$3" "$tmp/err" >/dev/null && ! grep '^tree:' "$tmp/out" >/dev/null; then
		ok "$1: exit 1, '$3'"
	else
		not_ok "$1: exit $rc, expected 1 and '$3'"
	fi
}
not_tree "a new order every line" random "no fixed summation tree: inconsistent answers"
not_tree "a new order every start" shuffled "the order changes from call to call"
not_tree "Kahan's compensated sum" kahan "no fixed summation tree"
not_tree "a double accumulator" double "sums exactly or compensates"

# ---- JSON ----
"$FPREF" probe order --cmd "$BOX pairwise" --n 4 --in f32 --verify 10 --json >"$tmp/out" 2>"$tmp/err"
grep -F '"tree": "((0,1),(2,3))"' "$tmp/out" >/dev/null &&
	grep -F '"dot_args": ["--model", "tree", "--tree", "((0,1),(2,3))", "--in-format", "float32", "--out-format", "float32"]' "$tmp/out" >/dev/null &&
	grep -F '"verify_lines": 10' "$tmp/out" >/dev/null && ok "--json: the tree, the dot arguments, the counts" ||
	not_ok "--json"
"$FPREF" probe order --cmd "$BOX kahan" --n 8 --in f32 --json >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -F '"tree": null' "$tmp/out" >/dev/null && grep -F '"status": "not a tree"' "$tmp/out" >/dev/null &&
	ok "--json, no tree: status, null tree, exit 1" || not_ok "--json, no tree"

# ---- errors ----
# fails NAME RC TEXT ARGS...
fails() {
	name=$1 want=$2 text=$3
	shift 3
	"$FPREF" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" -eq "$want" ] && grep -F -- "$text" "$tmp/err" >/dev/null && ok "$name" || not_ok "$name (exit $rc)"
}
fails "no --cmd: usage" 2 "needs --cmd" probe order --n 4 --in f32
fails "--n 1: usage" 2 "bad --n" probe order --cmd true --n 1 --in f32
fails "a box that fails: exit 1" 1 "exited with status 3" probe order --cmd 'exit 3' --n 4 --in f32
fails "a box that answers too few lines: exit 1" 1 "answered 1 of" probe order --cmd 'echo 3F800000' --n 4 --in f32
fails "a box that answers no pattern: exit 1" 1 "answer 1" probe order --cmd 'while read l; do echo zz; done' --n 4 --in f32
fails "a box that answers too much (read to its end): exit 1" 1 "answered more than the 3 lines" probe order --cmd 'yes 3F800000 | head -n 100000' --n 4 --in f32
fails "--tree without --model tree" 2 "--tree SPEC goes with --model tree" dot --model recursive --tree '(0,1)' --in f32
fails "--model tree without --tree" 2 "needs --tree" dot --model tree --in f32
fails "a tree with a product twice" 2 "product 1 is not one of 0..2 once each" dot --model tree --tree '((0,1),1)' --in f32
fails "three terms in one addition" 2 "an addition takes two children" dot --model tree --tree '(0,1,2)' --in f32
fails "a block model for formats it does not take" 2 "no block model 'h100'" dot --model tree --tree 'h100[0,1,2]' --in f32
printf '3F800000 40000000 3F800000 3F800000 3F800000\n' | "$FPREF" dot --model tree --tree '(0,1)' --in f32 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -F 'c must be +0' "$tmp/err" >/dev/null && ok "dot --model tree: a c other than +0 is refused" ||
	not_ok "dot --model tree: c"
printf '3C00 4000 4200 3C00 3C00 3C00 00000000\n' | "$FPREF" dot --model tree --tree 'v100[(0,1),2]' --in f16 >"$tmp/out" 2>"$tmp/err"
[ "$(awk '{ print $NF }' "$tmp/out")" = 40C00000 ] && ok "dot --model tree: a block node with an accumulator (1+2, then +3)" ||
	not_ok "dot --model tree: block node"

tap_end
