#!/bin/sh
# fpref bench --peers without its Python peers: the libfpref rows alone and
# a 'not found' line, exit 0, where the interpreter does not exist or has no
# NumPy; the command's own count of differing bits (a stand-in interpreter
# reports a peer row with 4000 of 4096 equal: the row and the summary must
# say DIFFER); and a failing Python half is an error.  The real Python peers
# (ml_dtypes, NumPy, the Python package, all agreeing) are checked by
# python/tests/test_bench_peers.py, in the environment that has them.
# CPFloat, where the command was built with it (configure --with-cpfloat,
# which fpref --version names): its rows in the same run, CPFloat's results
# against libfpref's bit for bit (two independent implementations), all of
# them for bfloat16, float16 and float8_e5m2, and for float8_e4m3fn all but
# the results CPFloat's IEEE-style model rounds to 480, which the OCP format
# has not.  Without CPFloat those checks are SKIPPED, never passed.
# POSIX sh; uses sh, grep, sed, awk, printf.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}

tap_name=bench-peers
. "$(dirname "$0")/tap.sh"

# bench_peers PYTHON: runs the bench on 2^12 values once; status in rc.
bench_peers() {
	"$FPREF" bench --peers --size 12 --repeat 1 --python "$1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# has NAME REGEX: a line of the last output matches.
has() {
	if grep -E -q -- "$2" "$tmp/out"; then
		ok "$1"
	else
		failed "$1"
		sed 's/^/#   | /' "$tmp/out" "$tmp/err"
	fi
}

# row CONVERSION LABEL: the row of LABEL under the libfpref row of
# CONVERSION (f32 -> FORMAT) in the last output, or nothing.
row() {
	awk -v conv="f32 -> $1" -v label="$2" '/^f32 -> / { cur = $1 " " $2 " " $3 }
		cur == conv && index($0, " " label " ") { print; exit }' "$tmp/out"
}

if "$FPREF" --version | grep -q 'CPFloat for bench --peers'; then
	cpfloat=yes
else
	cpfloat=no
fi

bench_peers "$tmp/no-such-python"
tap_check 'no interpreter: exit 0' "$rc" "exit $rc: $(cat "$tmp/err")"
for f in bfloat16 float16 float8_e4m3fn float8_e5m2; do
	has "no interpreter: the libfpref row of f32 -> $f" "^f32 -> $f +libfpref \\(.*\\) +[0-9.e+]+ +1 +-\$"
done
has 'no interpreter: says so' '^Python: .*no-such-python could not be run'

cpfloat_checks='CPFloat: the header names its headers
CPFloat: f32 -> bfloat16 gives libfpref'"'"'s bits on all 4096 values
CPFloat: f32 -> float16 gives libfpref'"'"'s bits on all 4096 values
CPFloat: f32 -> float8_e5m2 gives libfpref'"'"'s bits on all 4096 values
CPFloat: f32 -> float8_e4m3fn differs only where its result is no float8_e4m3fn value (480)
CPFloat: the summary counts its one differing row'
if [ "$cpfloat" = yes ]; then
	has 'CPFloat: the header names its headers' '^CPFloat: in this process, headers from [^ ]'
	for f in bfloat16 float16 float8_e5m2; do
		line=$(row "$f" 'CPFloat cpfloatf')
		case $line in
		*' 4096 of 4096') ok "CPFloat: f32 -> $f gives libfpref's bits on all 4096 values" ;;
		*)
			failed "CPFloat: f32 -> $f gives libfpref's bits on all 4096 values"
			printf '#   row: %s\n' "$line"
			;;
		esac
	done
	# e4m3fn: the row says DIFFER, and its same count plus the note's count
	# of results that are no value of the format make all 4096.
	line=$(row float8_e4m3fn 'CPFloat cpfloatf')
	same=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) of 4096  DIFFER.*/\1/p')
	other=$(sed -n 's/.*its largest finite, 480, is no float8_e4m3fn value .*; \([0-9][0-9]*\) results are no float8_e4m3fn value$/\1/p' "$tmp/out")
	if [ -n "$same" ] && [ -n "$other" ] && [ "$other" -gt 0 ] && [ $((same + other)) -eq 4096 ]; then
		ok 'CPFloat: f32 -> float8_e4m3fn differs only where its result is no float8_e4m3fn value (480)'
	else
		failed 'CPFloat: f32 -> float8_e4m3fn differs only where its result is no float8_e4m3fn value (480)'
		sed 's/^/#   | /' "$tmp/out"
	fi
	has 'CPFloat: the summary counts its one differing row' '^bits: 1 of 4 peer rows differ from libfpref'
else
	has 'no interpreter: nothing compared' '^bits: no peer rows, nothing compared$'
	has 'no CPFloat: says how to build with it' '^CPFloat: no rows \(this fpref was built without it: configure --with-cpfloat=DIR'
	while IFS= read -r name; do # a here-document, not a pipe: skip counts in this shell
		skip "$name" 'this fpref was built without CPFloat (configure --with-cpfloat=DIR)'
	done <<EOF
$cpfloat_checks
EOF
fi

if command -v python3 >/dev/null 2>&1; then
	# Python without its site folders: no NumPy, whatever the machine has.
	printf '#!/bin/sh\nexec python3 -S -E "$@"\n' >"$tmp/bare-python"
	chmod +x "$tmp/bare-python"
	bench_peers "$tmp/bare-python"
	tap_check 'Python without NumPy: exit 0' "$rc" "exit $rc: $(cat "$tmp/err")"
	has 'Python without NumPy: numpy not found' "^numpy: not found \\(No module named 'numpy'\\)"
	if [ "$cpfloat" = yes ]; then # CPFloat's rows alone
		has 'Python without NumPy: CPFloat'"'"'s rows alone compared' '^bits: 1 of 4 peer rows differ from libfpref'
	else
		has 'Python without NumPy: nothing compared' '^bits: no peer rows, nothing compared$'
	fi
else
	printf '# python3 not installed: the no-NumPy case is not run (not counted)\n'
fi

# A stand-in Python half: one ml_dtypes row whose bits differ in 96 places.
cat >"$tmp/fake-python" <<'SH'
#!/bin/sh
printf 'version numpy 0\nmissing fpref No module named fpref\nrow float8_e4m3fn ml_dtypes 0.001 4000 4096\n'
SH
chmod +x "$tmp/fake-python"
bench_peers "$tmp/fake-python"
tap_check 'a differing peer: exit 0' "$rc" "exit $rc: $(cat "$tmp/err")"
has 'a differing peer: its row says DIFFER' '^ +ml_dtypes copyto +[0-9.e+]+ +[0-9.e+]+ +4000 of 4096 +DIFFER'
if [ "$cpfloat" = yes ]; then # CPFloat's four rows beside it, float8_e4m3fn's differing
	has 'a differing peer: the summary counts it' '^bits: 2 of 5 peer rows differ from libfpref'
else
	has 'a differing peer: the summary counts it' '^bits: 1 of 1 peer rows differ from libfpref'
fi
has 'a missing package: not found' '^fpref Python package: not found \(No module named fpref\)'

printf '#!/bin/sh\necho "Traceback: broken" >&2\nexit 1\n' >"$tmp/broken-python"
chmod +x "$tmp/broken-python"
bench_peers "$tmp/broken-python"
[ "$rc" = 1 ] && grep -q 'the Python half .* failed' "$tmp/err"
tap_check 'a failing Python half: exit 1 and a message' "$?" "exit $rc: $(cat "$tmp/err")"

"$FPREF" bench --python python3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ]
tap_check '--python without --peers: a usage error' "$?"

"$FPREF" bench --peers --all-models >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'two different benches' "$tmp/err" && [ ! -s "$tmp/out" ]
tap_check '--peers with --all-models: a usage error, nothing run' "$?"

# --all-models --only: one preset's rows; dmma has one, an FMA chain (about
# 8e6 multiply-accumulates, under a second), timed per element on
# 128 x 128 x 512 with a positive rate, and the summary names it.
"$FPREF" bench --all-models --only dmma --repeat 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
rows=$(grep -E '^[^ ]+ [^ ]+ (x [^ ]+ )?-> [^ ]+ +[0-9.]+e' "$tmp/out")
[ $rc = 0 ] && [ "$(echo "$rows" | wc -l)" = 1 ] &&
	echo "$rows" | grep -Eq '^dmma float64 -> f64 +[0-9.]+e\+0[6-9] +fma chain, per element \(128x128x512\)$' &&
	grep -q '^slowest FMA chain: dmma float64 -> f64, ' "$tmp/out" && ! grep -q '^slowest:' "$tmp/out"
tap_check '--all-models --only dmma: its one FMA-chain row and the summary' "$?" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
"$FPREF" bench --all-models --only nosuch >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "no preset 'nosuch'" "$tmp/err" && [ ! -s "$tmp/out" ]
tap_check '--only of no preset: a usage error, nothing run' "$?"
# (without --all-models, --only picks the default bench's rows: tests/cli.sh)
"$FPREF" bench --only dmma --peers >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'not --peers' "$tmp/err" && [ ! -s "$tmp/out" ]
tap_check '--only with --peers: a usage error, nothing run' "$?"

tap_end
