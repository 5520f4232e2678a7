# Sourced by tests/order.sh and tests/order-numpy.sh (after tap.sh, with
# FPREF, VERIFY and RANDOM_LINES set): a probe order run checked, and a
# revealed tree run through fpref dot --model tree against the box on
# random lines made here by awk, not by the library's generator that
# probe order's own check uses.  POSIX sh.

not_ok() {
	failed "$1"
	[ -f "$tmp/err" ] && sed 's/^/#   /' "$tmp/err" | head -n 10
}

# lines N COUNT SEED half|single: COUNT lines of N random patterns (float32:
# magnitudes 2^-10..2^10; float16: 2^-5..2^5), either sign
lines() {
	awk -v n="$1" -v count="$2" -v seed="$3" -v half="$4" 'BEGIN {
		srand(seed)
		for (l = 0; l < count; l++) {
			s = ""
			for (k = 0; k < n; k++) {
				sign = int(rand() * 2)
				if (half == "half")
					v = sprintf("%04X", sign * 32768 + (10 + int(rand() * 11)) * 1024 + int(rand() * 1024))
				else
					v = sprintf("%04X%04X", sign * 32768 + (117 + int(rand() * 21)) * 128 + int(rand() * 128),
						    int(rand() * 65536))
				s = s (k ? " " : "") v
			}
			print s
		}
	}'
}

# probe_order NAME N FMT CMD [OPTIONS...]: probe order finds a tree (in
# $tmp/got) that reproduced VERIFY random lines, with at most
# N log2 N + 8 N probe lines (one pivot row per part, N - 1 a level at
# most, block nodes' peeling aside); 1 if it found none
probe_order() {
	name=$1 n=$2 fmt=$3 cmd=$4
	shift 4
	"$FPREF" probe order --cmd "$cmd" --n "$n" --in "$fmt" --out f32 --verify "$VERIFY" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed -n 's/^tree: //p' "$tmp/out" >"$tmp/got"
	if [ "$rc" -ne 0 ] || [ ! -s "$tmp/got" ]; then
		not_ok "$name: probe order found no tree (exit $rc)"
		return 1
	fi
	checked=$(sed -n 's/.*probes (.*), \([0-9]*\) random lines reproduced bit for bit/\1/p' "$tmp/out")
	probes=$(sed -n 's/.*in [0-9]* starts: \([0-9]*\) probes.*/\1/p' "$tmp/out")
	lg=1 p=2
	while [ "$p" -lt "$n" ]; do p=$((p * 2)); lg=$((lg + 1)); done
	bound=$((n * lg + n * 8))
	if [ "$checked" = "$VERIFY" ] && [ -n "$probes" ] && [ "$probes" -le "$bound" ]; then
		ok "$name: a tree from $probes probe lines (<= $bound), $VERIFY random lines reproduced"
	else
		not_ok "$name: $checked random lines checked (want $VERIFY), $probes probe lines (at most $bound)"
		return 1
	fi
}

# reproduce NAME N FMT CMD: fpref dot --model tree --tree $(cat $tmp/got)
# gives CMD's bits on RANDOM_LINES lines (b = 1, c = +0)
reproduce() {
	name=$1 n=$2 fmt=$3 cmd=$4
	half=single one=3F800000
	[ "$fmt" = f16 ] && half=half one=3C00
	lines "$n" "$RANDOM_LINES" "$n" "$half" >"$tmp/in"
	sh -c "$cmd" <"$tmp/in" >"$tmp/box" 2>"$tmp/err"
	awk -v n="$n" -v one="$one" '{ s = $0; for (k = 0; k < n; k++) s = s " " one; print s " 00000000" }' "$tmp/in" |
		"$FPREF" dot --model tree --tree "$(cat "$tmp/got")" --in "$fmt" --out f32 2>"$tmp/err" |
		awk '{ print $NF }' >"$tmp/dot"
	if [ "$(wc -l <"$tmp/box")" -eq "$RANDOM_LINES" ] && cmp -s "$tmp/box" "$tmp/dot"; then
		ok "$name: fpref dot --model tree gives its bits on $RANDOM_LINES more random lines"
	else
		not_ok "$name: fpref dot --model tree differs from it on random lines"
	fi
}
