#!/bin/sh
# fpref mutants: the default suite exposes every applicable mutant in every
# file by at least 8 distinct vectors (or by every input that can expose it),
# within 1.5 million vectors; its files are byte-identical across --jobs and
# shard splits; a suite of random vectors alone is weak, and says so.
# POSIX sh; run by make check.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
top=${srcdir:-$(dirname "$0")/..}
tap_name=mutants
. "$(dirname "$0")/tap.sh"

not_ok() {
	failed "$1"
	[ -f "$tmp/out" ] && sed 's/^/#   /' "$tmp/out" | tail -n 20
}

# check NAME EXPECTED_RC COMMAND...: the exit status
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else not_ok "$name (exit $rc, expected $want)"; fi
}

check "mutants: the default suite's kill matrix has no weak cell" 0 "$FPREF" mutants --suite default --jobs 2
summary=$(tail -n 1 "$tmp/out")
case $summary in
*", 0 weak") ok "the summary says 0 weak: $summary" ;;
*) not_ok "the summary: $summary" ;;
esac
vectors=$(echo "$summary" | sed -n 's/.* files, \([0-9]*\) vectors,.*/\1/p')
if [ -n "$vectors" ] && [ "$vectors" -le 1500000 ]; then ok "the default suite holds $vectors vectors (at most 1.5 million)"; else not_ok "vectors: '$vectors'"; fi
mutants=$(echo "$summary" | sed -n 's/.* vectors, \([0-9]*\) mutants;.*/\1/p')
if [ -n "$mutants" ] && [ "$mutants" -ge 30 ]; then ok "$mutants mutants (at least 30)"; else not_ok "mutants: '$mutants'"; fi
# every mutant of the catalogue applies somewhere in the default suite
if grep -q "(applies to no file)" "$tmp/out"; then not_ok "a mutant applies to no file of the default suite"; else ok "every mutant applies to some file"; fi

check "mutants --list" 0 "$FPREF" mutants --list
n=$(wc -l <"$tmp/out")
if [ "$n" -eq "$mutants" ]; then ok "--list names the $n mutants"; else not_ok "--list: $n lines for $mutants mutants"; fi
# docs/mutants.md describes every mutant
missing=""
for m in $(awk '{ print $1 }' "$tmp/out"); do
	grep -q -- "\`$m\`" "$top/docs/mutants.md" || missing="$missing $m"
done
if [ -z "$missing" ]; then ok "docs/mutants.md names every mutant"; else not_ok "docs/mutants.md lacks:$missing"; fi

check "mutants --mutant no-such-bug: exit 2" 2 "$FPREF" mutants --mutant no-such-bug
check "mutants --bogus: exit 2" 2 "$FPREF" mutants --bogus
check "mutants --suite no-such-suite: exit 2" 2 "$FPREF" mutants --suite no-such-suite
check "mutants --all --json (--all would do nothing): exit 2" 2 "$FPREF" mutants --all --json
check "mutants --list --mutant ftz-output (--mutant would do nothing): exit 2" 2 "$FPREF" mutants --list --mutant ftz-output

# A suite of random vectors alone lets a double-rounding kernel through.
printf 'suite weak\nseed 1\nconvert float32 float8_e4m3fn rne random:1000\n' >"$tmp/weak.suite"
check "a random-only suite is weak (exit 1)" 1 "$FPREF" mutants --suite "$tmp/weak.suite"
if grep -q "^WEAK .*double-round-f16 " "$tmp/out"; then ok "random vectors alone: double-round-f16 weak"; else not_ok "no WEAK double-round-f16"; fi

check "mutants --json on the weak suite: exit 1" 1 "$FPREF" mutants --suite "$tmp/weak.suite" --json
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["weak_cells"] > 0 and d["files"][0]["mutants"]' <"$tmp/out" 2>"$tmp/err"; then
		ok "--json is one JSON document with weak cells"
	else
		not_ok "--json: $(cat "$tmp/err")"
	fi
else
	echo "# python3 not found: the --json document is not parsed (not counted)"
fi

# The default suite's files: byte-identical for --jobs 1, --jobs 2 and three shards.
"$FPREF" gen --suite default --out "$tmp/one" --jobs 1 >"$tmp/gen1" 2>&1 &&
	"$FPREF" gen --suite default --out "$tmp/two" --jobs 2 >"$tmp/gen2" 2>&1 &&
	for i in 0 1 2; do "$FPREF" gen --suite default --out "$tmp/shards" --shard $i/3 --jobs 2 >"$tmp/gen3" 2>&1 || exit 1; done
rc=$?
if [ "$rc" -eq 0 ] && diff -r -x 'MANIFEST*' "$tmp/one" "$tmp/two" >"$tmp/out" 2>&1 &&
	diff -r -x 'MANIFEST*' "$tmp/one" "$tmp/shards" >>"$tmp/out" 2>&1; then
	ok "default suite: the same bytes for --jobs 1, --jobs 2 and shards 0/3, 1/3, 2/3"
else
	not_ok "default suite: files differ between runs"
fi
tap_end
