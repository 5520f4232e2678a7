#!/bin/sh
# The committed golden files (golden/vectors): intact against their
# MANIFEST, rechecked by the oracle, and made again byte for byte by
# `fpref gen --suite committed` (the '# oracle' line, which names the MPFR
# version of the machine, aside).
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
top=${srcdir:-$(dirname "$0")/..}
pass=0
fail=0
check() {
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
		printf 'ok - %s\n' "$1"
	else
		fail=$((fail + 1))
		printf 'not ok - %s\n' "$1"
		[ -n "$3" ] && printf '#   %s\n' "$3"
	fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fpref-golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

vectors="$top/golden/vectors"
if command -v sha256sum >/dev/null 2>&1; then
	(cd "$vectors" && sha256sum -c --quiet MANIFEST) >"$tmp/sums" 2>&1
	check 'committed files match their MANIFEST' $? "$(head -3 "$tmp/sums")"
fi
"$FPREF" verify "$vectors" >"$tmp/verify" 2>&1
check 'committed files: the oracle agrees with every vector' $? "$(tail -3 "$tmp/verify")"
"$FPREF" gen --suite "$top/golden/suites/committed.suite" --out "$tmp/again" --jobs 2 >"$tmp/gen" 2>&1
check 'the committed suite generates' $? "$(cat "$tmp/gen")"
# From format 2 the closing checksum covers the header, the oracle line
# included: where this machine's MPFR differs from the committed one, the
# checksum line differs with it, and is left out of the comparison too
# (each file's own checksum is checked by verify above and by gen).
first_file=$(sed -n '1s/^[0-9a-f]*  //p' "$vectors/MANIFEST")
oracle_of() { sed -n 's/^# oracle //p' "$1/$first_file" 2>/dev/null; }
same_oracle=yes
[ "$(oracle_of "$vectors")" = "$(oracle_of "$tmp/again")" ] || same_oracle=no
strip() {
	if [ "$same_oracle" = yes ]; then
		sed '/^# oracle GNU MPFR /d' "$1"
	else
		sed '/^# oracle GNU MPFR /d; /^# sha256 /d' "$1"
	fi
}
differ=0
files=0
while read -r _sum path; do
	files=$((files + 1))
	strip "$vectors/$path" >"$tmp/a"
	strip "$tmp/again/$path" >"$tmp/b" 2>/dev/null
	if ! cmp -s "$tmp/a" "$tmp/b"; then
		differ=$((differ + 1))
		[ "$differ" -le 3 ] && printf '#   differs: %s\n' "$path"
	fi
done <"$vectors/MANIFEST"
check "regenerated files equal the $files committed ones" "$differ"
made=$(find "$tmp/again" -name '*.txt' | wc -l)
[ "$made" -eq "$files" ]
check "the suite makes exactly the $files files of the MANIFEST" $? "made $made"
# Interrupted (SIGINT) part way, gen leaves only complete, intact files;
# run again, it finishes the rest, and the result equals an uninterrupted run.
printf 'suite interrupted\nconvert float16 all rne,rtz exhaustive\n' >"$tmp/int.suite"
# (a background job of a script ignores SIGINT: env restores its default)
signal=INT
env --default-signal=INT true 2>/dev/null || signal=TERM
if [ "$signal" = INT ]; then
	env --default-signal=INT "$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/int" --jobs 1 >/dev/null 2>&1 &
else
	"$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/int" --jobs 1 >/dev/null 2>&1 &
fi
pid=$!
tries=0
while [ "$(find "$tmp/int" -name '*.txt' 2>/dev/null | wc -l)" -lt 2 ] && [ "$tries" -lt 500 ]; do
	sleep 0.01
	tries=$((tries + 1))
done
kill -"$signal" "$pid" 2>/dev/null
wait "$pid"
interrupted=$?
partial=$(find "$tmp/int" -name '*.txt' 2>/dev/null | wc -l)
bad=0
if [ "$partial" -gt 0 ]; then
	"$FPREF" verify "$tmp/int" >"$tmp/int.verify" 2>&1 || bad=1
fi
check "after SIG$signal ($partial of 32 files made, exit $interrupted): every file made is intact" "$bad" "$(tail -2 "$tmp/int.verify" 2>/dev/null)"
leftover=$(find "$tmp/int" -name '.*' -type f | wc -l)
check "after SIG$signal: no temporary left, exit status 128 + signal" $((leftover + (interrupted != 130 && interrupted != 143))) "$leftover temporaries, exit $interrupted"
"$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/int" --jobs 2 >"$tmp/int.gen" 2>&1
resumed=$?
"$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/whole" --jobs 2 >/dev/null 2>&1
diff -r -x MANIFEST "$tmp/int" "$tmp/whole" >"$tmp/int.diff" 2>&1
check 'resumed after SIGINT: equal to an uninterrupted run' $((resumed + $?)) "$(head -3 "$tmp/int.diff") $(cat "$tmp/int.gen")"
cmp -s "$tmp/int/MANIFEST" "$tmp/whole/MANIFEST"
check 'resumed after SIGINT: the same MANIFEST' $?

# Two runs into one folder at once: each writes its own temporaries, so
# neither fails nor truncates the other's file, and the folder equals a
# run of its own.
"$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/both" --jobs 1 >"$tmp/both.1" 2>&1 &
first=$!
"$FPREF" gen --suite "$tmp/int.suite" --out "$tmp/both" --jobs 1 >"$tmp/both.2" 2>&1
second=$?
wait "$first"
first=$?
diff -r "$tmp/both" "$tmp/whole" >"$tmp/both.diff" 2>&1
check 'two gens into one folder at once: both exit 0, the folder equals one run' $((first + second + $?)) \
	"exit $first, $second; $(head -3 "$tmp/both.diff") $(cat "$tmp/both.1" "$tmp/both.2" | head -3)"
leftover=$(find "$tmp/both" -name '.*' -type f | wc -l)
check 'two gens into one folder at once: no temporary left' "$leftover"

# A and B of two formats (issue 36): a dot line's A*B makes files whose
# header names both (one word, A*B, and a descriptor each), the oracle
# rechecks them, and a kernel that reads B in A's format fails them.
mixed="$vectors/dot/h100.float8_e5m2-x-float8_e4m3fn-float32.txt"
grep -q '^# formats h100 float8_e5m2\*float8_e4m3fn -> float32$' "$mixed" &&
	[ "$(grep -c '^# descriptor float8_e5m2 \|^# descriptor float8_e4m3fn \|^# descriptor float32 ' "$mixed")" = 3 ]
check 'a mixed dot file names A and B apart (formats A*B, three descriptors)' $? "$(sed -n '5,12p' "$mixed")"
# the buggy kernel: both operands read as E4M3 (fpref dot --in e4m3 on the golden inputs)
sed -e '/^#/d' -e 's/ [0-9A-F]*$//' "$mixed" | "$FPREF" dot --model h100 --in e4m3 >"$tmp/b-as-a.txt" 2>"$tmp/b-as-a.err"
"$FPREF" verify "$mixed" "$tmp/b-as-a.txt" >"$tmp/b-as-a.verify" 2>&1
[ $? = 1 ] && grep -q '^verdict  *FAIL' "$tmp/b-as-a.verify"
check 'verify: a kernel that reads B (E4M3) as A (E5M2) fails the mixed file' $? "$(tail -3 "$tmp/b-as-a.verify") $(head -2 "$tmp/b-as-a.err")"
printf 'suite hybrid\ndot h100 float8_e5m2*float8_e4m3fn float32 random:30:16\n' >"$tmp/hybrid.suite"
"$FPREF" mutants --suite "$tmp/hybrid.suite" --mutant dot-b-read-as-a >"$tmp/hybrid.mut" 2>&1
grep -q '^dot-b-read-as-a .* 1  *1 ' "$tmp/hybrid.mut"
check 'mutants: dot-b-read-as-a applies to the mixed file and is caught' $? "$(cat "$tmp/hybrid.mut")"
printf 'suite refused\ndot h100-wgmma float16*float8_e4m3fn float32 random:3:16\n' >"$tmp/refused.suite"
"$FPREF" gen --suite "$tmp/refused.suite" --out "$tmp/refused" >"$tmp/refused.out" 2>&1
[ $? = 2 ] && grep -q 'h100-wgmma takes no float16 x float8_e4m3fn (its pairs: float16 x float16, bfloat16 x bfloat16)' "$tmp/refused.out"
check 'gen: a pair the preset does not take is refused, naming its pairs' $? "$(cat "$tmp/refused.out")"

# Seeded experiments give the same figures on every build (threads,
# optimisation levels: the sanitizer pass of tools/check builds at -O0):
# golden/experiments.txt holds what these commands printed.
{
	"$FPREF" gemm --model h100 --in-format e4m3 --size 8x8x512 --dist positive --seed 3 --json
	"$FPREF" gemm --model h100 --in-format e4m3 --size 8x8x512 --dist positive --seed 3 --promote 128 --json
	"$FPREF" gemm --model a100 --in-format tf32 --source-format float32 --size 8x8x128 --seed 4 --json
	"$FPREF" gemm --model recursive --in-format f16 --out-format f16 --size 4x4x64 --seed 5 --round rtz --json
} >"$tmp/experiments" 2>&1
cmp -s "$tmp/experiments" "$top/golden/experiments.txt"
check 'seeded gemm experiments print golden/experiments.txt byte for byte' $? "$(diff "$top/golden/experiments.txt" "$tmp/experiments" | head -4)"
printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
