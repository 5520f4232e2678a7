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
strip() { sed '/^# oracle GNU MPFR /d' "$1"; }
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
printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
