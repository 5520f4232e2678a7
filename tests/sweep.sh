#!/bin/sh
# fpref sweep (golden/fpref_golden_sweep.h) on the small campaign
# golden/sweeps/mpi-test: emulator and oracle agree on all 1.7 million
# inputs; three shards give the serial run's MANIFEST byte for byte; a
# deleted and a damaged chunk are made again by --resume and nothing else
# is; a run killed midway and resumed completes with the same MANIFEST;
# bad input is refused with exit 2.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
top=${srcdir:-$(dirname "$0")/..}
tap_name=sweep
. "$(dirname "$0")/tap.sh"
campaign="$top/golden/sweeps/mpi-test.campaign"

"$FPREF" sweep "$campaign" --out "$tmp/serial" >"$tmp/out" 2>&1
tap_check 'serial run: complete, exit 0' $? "$(cat "$tmp/out")"
grep -q '^total cases 1703936 agree 1703936 refused 0 disagree 0$' "$tmp/serial/MANIFEST"
tap_check 'MANIFEST: 1703936 cases, all agree' $? "$(grep '^total' "$tmp/serial/MANIFEST")"
n=$(ls "$tmp/serial/chunks" | wc -l)
test "$n" -eq 416
tap_check '416 chunk files' $? "$n"

for i in 0 1 2; do
	"$FPREF" sweep "$campaign" --out "$tmp/shards" --shard $i/3 >"$tmp/out.$i" 2>&1
done
test "$(tail -n 1 "$tmp/out.0")" = 'not complete: other shards'"'"' chunks are still to run (then --resume writes the MANIFEST)'
tap_check 'the first shard: not complete, no MANIFEST yet' $? "$(cat "$tmp/out.0")"
cmp "$tmp/serial/MANIFEST" "$tmp/shards/MANIFEST"
tap_check 'three shards: the serial MANIFEST byte for byte' $?

rm "$tmp/shards/chunks/00000100.txt"
sed 's/^agree 4096$/agree 4095/' "$tmp/shards/chunks/00000300.txt" >"$tmp/c" && cp "$tmp/c" "$tmp/shards/chunks/00000300.txt"
touch -d '2000-01-01' "$tmp/shards/chunks/00000000.txt"
"$FPREF" sweep "$campaign" --out "$tmp/shards" --resume >"$tmp/out" 2>&1
grep -q ': 2 chunks run, 414 kept' "$tmp/out"
tap_check '--resume: the deleted and the damaged chunk made again, 414 kept' $? "$(cat "$tmp/out")"
test -n "$(find "$tmp/shards/chunks/00000000.txt" ! -newermt '2001-01-01')"
tap_check '--resume: a kept chunk file is not rewritten' $?
cmp "$tmp/serial/MANIFEST" "$tmp/shards/MANIFEST"
tap_check '--resume: the serial MANIFEST byte for byte' $?

# killed midway: the chunk files it leaves are whole, and --resume completes
"$FPREF" sweep "$campaign" --out "$tmp/killed" >/dev/null 2>&1 &
pid=$!
tries=0
while [ "$(ls "$tmp/killed/chunks" 2>/dev/null | wc -l)" -lt 20 ] && [ $tries -lt 2000 ]; do
	sleep 0.01
	tries=$((tries + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
before=$(ls "$tmp/killed/chunks" | grep -c '^[0-9]*\.txt$')
test ! -f "$tmp/killed/MANIFEST" && test "$before" -lt 416
tap_check "killed after $before of 416 chunks, no MANIFEST" $?
"$FPREF" sweep "$campaign" --out "$tmp/killed" --resume >"$tmp/out" 2>&1 && cmp "$tmp/serial/MANIFEST" "$tmp/killed/MANIFEST"
tap_check 'killed, then --resume: complete, the serial MANIFEST' $? "$(cat "$tmp/out")"

"$FPREF" sweep no-such-campaign --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q "fpref sweep: no campaign 'no-such-campaign'" "$tmp/out"
tap_check 'an unknown campaign: exit 2, named' $? "$(cat "$tmp/out")"
"$FPREF" sweep "$top/golden/suites/default.suite" --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q 'is a suite, not a campaign' "$tmp/out"
tap_check 'a suite: exit 2' $? "$(cat "$tmp/out")"
printf 'campaign bad\nconvert float16 float8_e4m3fn rne random:10\n' >"$tmp/bad.campaign"
"$FPREF" sweep "$tmp/bad.campaign" --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q "its generator is 'exhaustive'" "$tmp/out"
tap_check 'a campaign with a random generator: exit 2' $? "$(cat "$tmp/out")"
"$FPREF" gen --suite "$campaign" --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q 'is a campaign, not a suite' "$tmp/out"
tap_check 'fpref gen refuses a campaign: exit 2' $? "$(cat "$tmp/out")"
"$FPREF" sweep "$campaign" --out "$tmp/x" --shard 3/3 >"$tmp/out" 2>&1
test $? = 2 && grep -q "bad --shard '3/3'" "$tmp/out"
tap_check 'a bad --shard: exit 2, named' $? "$(cat "$tmp/out")"

tap_end
