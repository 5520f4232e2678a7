#!/bin/sh
# The fuzz targets without libFuzzer, over their corpus (seeds and every
# crash input kept from `make fuzz`): each must run every input to the end.
top=${srcdir:-$(dirname "$0")/..}
build=$(dirname "$0")
pass=0
fail=0
# every corpus folder is a target's: a folder without its replay program fails
for dir in "$top"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	if out=$("$build/fuzz/replay_$t" "$top/tests/fuzz/corpus/$t" 2>&1); then
		pass=$((pass + 1))
		printf 'ok - fuzz target %s: %s\n' "$t" "$out"
	else
		fail=$((fail + 1))
		printf 'not ok - fuzz target %s\n' "$t"
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
	fi
done
printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
