#!/bin/sh
# The P3109 family at the command line: fpref convert decodes every code
# of every format of K <= 8 bits into float64.  POSIX sh (dash); uses sh,
# grep, sed, printf, wc, cmp, mktemp.
#
# Expected values worked by hand from the interim report's definition:
# binary8p4se has 4 exponent bits, bias 2^(8-4-1) = 8 and 3 fraction bits, so
#   00 = 0, 01 = 2^(1-8) * 1/8 = 2^-10 = 0.0009765625 (least subnormal),
#   40 = field 8: 2^0 = 1, 7E = 1.110b * 2^7 = 224 (max finite),
#   7F = +inf, 80 = NaN (the -0 pattern), 81 = -2^-10, FE = -224, FF = -inf.
# binary8p1ue has 8 exponent bits, bias 2^(8-1) = 128, no fraction bits:
#   01 = 2^-127, 80 = 1, FD = 2^125 (max finite), FE = +inf, FF = NaN.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}

tap_name=p3109
. "$(dirname "$0")/tap.sh"

: >"$tmp/empty"

run() {
	"$FPREF" "$@" <"$tmp/empty" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# check_lines_are NAME LINE...: stdout is exactly these lines.
check_lines_are() {
	_name=$1
	shift
	printf '%s\n' "$@" >"$tmp/want"
	if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   exit status %s\n' "$rc"
		sed 's/^/#   got | /' "$tmp/out" | head -n 20
		sed 's/^/#   err | /' "$tmp/err" | head -n 5
	fi
}

run convert --from binary8p4se --to float64 00 01 40 7E 7F 80 81 FE FF
check_lines_are 'binary8p4se: zero, least subnormal, one, max, inf, NaN, negatives' \
	'00 -> float64 0000000000000000 = 0  flags 00 (none)' \
	'01 -> float64 3F50000000000000 = 0.0009765625  flags 00 (none)' \
	'40 -> float64 3FF0000000000000 = 1  flags 00 (none)' \
	'7E -> float64 406C000000000000 = 224  flags 00 (none)' \
	'7F -> float64 7FF0000000000000 = inf  flags 00 (none)' \
	'80 -> float64 7FF8000000000000 = nan  flags 00 (none)' \
	'81 -> float64 BF50000000000000 = -0.0009765625  flags 00 (none)' \
	'FE -> float64 C06C000000000000 = -224  flags 00 (none)' \
	'FF -> float64 FFF0000000000000 = -inf  flags 00 (none)'

# (the bits only: 2^-127 is 0x380 << 52, 2^125 is 0x47C << 52)
run convert --from binary8p1ue --to float64 01 80 FD FE FF
sed 's/ = .*//' "$tmp/out" >"$tmp/bits" && mv "$tmp/bits" "$tmp/out"
check_lines_are 'binary8p1ue: powers of two, +inf at FE, NaN at FF' \
	'01 -> float64 3800000000000000' \
	'80 -> float64 3FF0000000000000' \
	'FD -> float64 47C0000000000000' \
	'FE -> float64 7FF0000000000000' \
	'FF -> float64 7FF8000000000000'

# Every code of every K <= 8 format: one exact line each (float64 holds
# them all), with one NaN, and the infinities only in extended formats.
k=3
while [ "$k" -le 8 ]; do
	codes=$(i=0; while [ "$i" -lt $((1 << k)) ]; do printf '%02X ' "$i"; i=$((i + 1)); done)
	for sigma in s u; do
		p=1
		top=$k
		[ "$sigma" = s ] && top=$((k - 1))
		while [ "$p" -le "$top" ]; do
			for delta in e f; do
				name=binary${k}p${p}${sigma}${delta}
				# shellcheck disable=SC2086
				run convert --from "$name" --to float64 $codes
				lines=$(wc -l <"$tmp/out" | sed 's/[^0-9]//g')
				nans=$(grep -c ' = nan ' "$tmp/out")
				infs=$(grep -c ' = -*inf ' "$tmp/out")
				inexact=$(grep -c -v 'flags 00 (none)$' "$tmp/out")
				want_infs=0
				[ "$delta" = e ] && want_infs=1 && [ "$sigma" = s ] && want_infs=2
				if [ "$rc" = 0 ] && [ "$lines" = $((1 << k)) ] && [ "$nans" = 1 ] && [ "$infs" = "$want_infs" ] &&
					[ "$inexact" = 0 ]; then
					ok "$name: every code decodes exactly"
				else
					failed "$name: every code decodes exactly"
					printf '#   status %s, %s lines, %s NaN, %s inf (want %s), %s not exact\n' "$rc" "$lines" \
						"$nans" "$infs" "$want_infs" "$inexact"
				fi
			done
			p=$((p + 1))
		done
	done
	k=$((k + 1))
done

run convert --from binary8p8se --to float64 00
if [ "$rc" = 2 ] && grep -F 'binary8p8se' "$tmp/err" >/dev/null; then
	ok 'binary8p8se (signed P = K) is refused, naming the token'
else
	failed 'binary8p8se (signed P = K) is refused, naming the token'
fi

run formats
if grep -F 'binaryKpP{s,u}{e,f}' "$tmp/out" >/dev/null; then
	ok 'fpref formats states the P3109 family rule'
else
	failed 'fpref formats states the P3109 family rule'
fi

# binary8p3se: 2 fraction bits, 1.0 = 40, 1.25 = 41; 1.171875 = 1 + (11/16)/4
for engine in emu ref; do
	run convert --engine $engine --from f32 --to binary8p3se --round src --sr-bits 2:1 --overflow satnone 3F960000
	check_lines_are "StochasticC from the command line ($engine): rne(2.75) + 1 = 4, away" \
		'3F960000 -> binary8p3se 41 = 1.25  flags 01 (inexact)'
	run convert --engine $engine --from f32 --to binary8p3se --round sra --sr-bits 2:1 --overflow satnone 3F960000
	check_lines_are "StochasticA from the command line ($engine): floor(2.75) + 1 = 3, down" \
		'3F960000 -> binary8p3se 40 = 1  flags 01 (inexact)'
done

tap_end
