#!/bin/sh
# fpref bench --peers without its peers: the libfpref rows alone and a
# 'not found' line, exit 0, where the interpreter does not exist or has no
# NumPy; the command's own count of differing bits (a stand-in interpreter
# reports a peer row with 4000 of 4096 equal: the row and the summary must
# say DIFFER); and a failing Python half is an error.  The real peers
# (ml_dtypes, NumPy, the Python package, all agreeing) are checked by
# python/tests/test_bench_peers.py, in the environment that has them.
# POSIX sh; uses sh, grep, printf.

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

bench_peers "$tmp/no-such-python"
tap_check 'no interpreter: exit 0' "$rc" "exit $rc: $(cat "$tmp/err")"
for f in bfloat16 float16 float8_e4m3fn float8_e5m2; do
	has "no interpreter: the libfpref row of f32 -> $f" "^f32 -> $f +libfpref \\(.*\\) +[0-9.e+]+ +1 +-\$"
done
has 'no interpreter: says so' '^Python: .*no-such-python could not be run'
has 'no interpreter: nothing compared' '^bits: no peer rows, nothing compared$'
has 'no interpreter: CPFloat said to be absent' '^CPFloat: no rows'

if command -v python3 >/dev/null 2>&1; then
	# Python without its site folders: no NumPy, whatever the machine has.
	printf '#!/bin/sh\nexec python3 -S -E "$@"\n' >"$tmp/bare-python"
	chmod +x "$tmp/bare-python"
	bench_peers "$tmp/bare-python"
	tap_check 'Python without NumPy: exit 0' "$rc" "exit $rc: $(cat "$tmp/err")"
	has 'Python without NumPy: numpy not found' "^numpy: not found \\(No module named 'numpy'\\)"
	has 'Python without NumPy: nothing compared' '^bits: no peer rows, nothing compared$'
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
has 'a differing peer: the summary counts it' '^bits: 1 of 1 peer rows differ from libfpref'
has 'a missing package: not found' '^fpref Python package: not found \(No module named fpref\)'

printf '#!/bin/sh\necho "Traceback: broken" >&2\nexit 1\n' >"$tmp/broken-python"
chmod +x "$tmp/broken-python"
bench_peers "$tmp/broken-python"
[ "$rc" = 1 ] && grep -q 'the Python half .* failed' "$tmp/err"
tap_check 'a failing Python half: exit 1 and a message' "$?" "exit $rc: $(cat "$tmp/err")"

"$FPREF" bench --python python3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ]
tap_check '--python without --peers: a usage error' "$?"

tap_end
