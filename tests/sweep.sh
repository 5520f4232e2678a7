#!/bin/sh
# fpref sweep (golden/fpref_golden_sweep.h) on the small campaign
# golden/sweeps/mpi-test: emulator and oracle agree on all 1.7 million
# inputs; three shards give the serial run's MANIFEST byte for byte; a
# deleted and a damaged chunk are made again by --resume and nothing else
# is; a run killed midway and resumed completes with the same MANIFEST;
# a campaign whose emulator runs a mutant fails, with every disagreement
# counted (against a count made apart from the mutant) and the first named,
# and --resume and shards do not hide them; bad input is refused with exit 2.
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
	echo $? >"$tmp/rc.$i"
done
test "$(tail -n 1 "$tmp/out.0")" = 'not complete: other shards'"'"' chunks are still to run (then --resume writes the MANIFEST)' &&
	test "$(cat "$tmp/rc.0")" = 0
tap_check 'the first shard: not complete, no MANIFEST yet, exit 0 (its share agrees)' $? "rc $(cat "$tmp/rc.0"); $(cat "$tmp/out.0")"
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

# The sweep must be able to fail: tests/data/sweep-mutant.campaign has the
# emulator run the mutant ties-away.  The disagreements it must find are
# counted here apart from the mutant's code: the inputs where the oracle's
# bits under rna differ from its bits under rne (fpref convert and fpref op,
# --engine ref).  The first, worked by hand: float16 0x1400 = 2^-10 is the
# tie between 0 and E4M3's least subnormal 2^-9; rne gives 0, ties away 1,
# both inexact and underflow (03); every smaller float16 gives 0 either way.
mutant="$top/tests/data/sweep-mutant.campaign"
awk 'BEGIN { for (i = 0; i < 65536; i++) printf "%x\n", i }' >"$tmp/f16"
awk 'BEGIN { for (i = 0; i < 65536; i++) printf "%x %x\n", i % 256, int(i / 256) }' >"$tmp/pairs"
for m in rne rna; do
	"$FPREF" convert --from f16 --to e4m3 --engine ref --round $m <"$tmp/f16" >"$tmp/c.$m"
	"$FPREF" op mul --fmt e4m3 --engine ref --round $m <"$tmp/pairs" >"$tmp/o.$m"
done
want_c=$(paste -d' ' "$tmp/c.rne" "$tmp/c.rna" | awk '$2 != $5' | wc -l)
want_o=$(paste -d' ' "$tmp/o.rne" "$tmp/o.rna" | awk '$3 != $7' | wc -l)
want=$((want_c + want_o))
test "$want_c" -gt 0 && test "$want_o" -gt 0
tap_check "the oracle's rne and rna differ on $want_c conversions and $want_o products" $?
"$FPREF" sweep "$mutant" --out "$tmp/mut" >"$tmp/out" 2>&1
rc=$?
first='first disagreement: chunks/00000001.txt convert/float16-float8_e4m3fn.rne.txt [round=rne overflow=ieee ftz=off daz=off tininess=after] differs 1400 oracle 0 03 0 emulator 1 03 0'
test $rc = 1 && grep -q ", $want disagree; " "$tmp/out" && grep -qxF "$first" "$tmp/out"
tap_check 'a mutant campaign: exit 1, every disagreement counted, the first named with its environment' $? "rc $rc; $(cat "$tmp/out")"
grep -q "^job convert/float16-float8_e4m3fn.rne.txt cases 65536 agree $((65536 - want_c)) refused 0 disagree $want_c\$" "$tmp/mut/MANIFEST" &&
	grep -q "^job mul/float8_e4m3fn.rne.txt cases 65536 agree $((65536 - want_o)) refused 0 disagree $want_o\$" "$tmp/mut/MANIFEST" &&
	grep -q "^total cases 131072 agree $((131072 - want)) refused 0 disagree $want\$" "$tmp/mut/MANIFEST" &&
	grep -qxF "first ${first#first disagreement: }" "$tmp/mut/MANIFEST"
tap_check 'the MANIFEST: each job'"'"'s disagreements, the total, the first' $? "$(cat "$tmp/mut/MANIFEST")"
sum=$(cat "$tmp/mut/chunks/"*.txt | awk '$1 == "disagree" { n += $2 } END { print n }')
listed=$(cat "$tmp/mut/chunks/"*.txt | grep -c '^differs ')
shown=$(cat "$tmp/mut/chunks/"*.txt | awk '$1 == "disagree" { n += ($2 < 8 ? $2 : 8) } END { print n }')
test "$sum" = "$want" && test "$listed" = "$shown" && grep -q '^mutant ties-away$' "$tmp/mut/chunks/00000000.txt"
tap_check "the chunk files: $sum disagreements counted, the first 8 of each listed ($listed)" $? "sum $sum listed $listed shown $shown"
"$FPREF" sweep "$mutant" --out "$tmp/mut" --resume >"$tmp/out" 2>&1
rc=$?
test $rc = 1 && grep -q ': 0 chunks run, 32 kept' "$tmp/out" && grep -q ", $want disagree; " "$tmp/out" && grep -qxF "$first" "$tmp/out"
tap_check '--resume over the finished mutant run: nothing run, still exit 1, the same count and first' $? "rc $rc; $(cat "$tmp/out")"
"$FPREF" sweep "$mutant" --out "$tmp/mut2" --shard 1/2 >"$tmp/out" 2>&1
rc=$?
test $rc = 1 && grep -q 'disagree in this shard' "$tmp/out" && grep -q '^first disagreement: chunks/00000001.txt ' "$tmp/out"
tap_check 'a shard: its disagreements and its first reported, exit 1' $? "rc $rc; $(cat "$tmp/out")"
"$FPREF" sweep "$mutant" --out "$tmp/mut2" --resume >"$tmp/out" 2>&1
rc=$?
test $rc = 1 && grep -q ': 16 chunks run, 16 kept' "$tmp/out" && cmp "$tmp/mut/MANIFEST" "$tmp/mut2/MANIFEST"
tap_check 'the other half by --resume: exit 1, the whole run'"'"'s MANIFEST' $? "rc $rc; $(cat "$tmp/out")"
sed 's/^mutant ties-away$//' "$mutant" >"$tmp/clean.campaign"
"$FPREF" sweep "$tmp/clean.campaign" --out "$tmp/mut2" --resume >"$tmp/out" 2>&1
test $? = 0 && grep -q ': 32 chunks run, 0 kept' "$tmp/out" && grep -q ', 0 disagree; ' "$tmp/out"
tap_check 'without the mutant, --resume keeps none of its chunks and finds no disagreement' $? "$(cat "$tmp/out")"
printf 'campaign bad\nmutant ties-away\nconvert float16 float8_e4m3fn rtz exhaustive\n' >"$tmp/bad.campaign"
"$FPREF" sweep "$tmp/bad.campaign" --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q 'mutant ties-away does not apply to convert/float16-float8_e4m3fn.rtz.txt' "$tmp/out"
tap_check 'a mutant that changes nothing in a job: exit 2' $? "$(cat "$tmp/out")"

"$FPREF" sweep no-such-campaign --out "$tmp/x" >"$tmp/out" 2>&1
test $? = 2 && grep -q "fpref sweep: no campaign 'no-such-campaign'" "$tmp/out"
tap_check 'an unknown campaign: exit 2, named' $? "$(cat "$tmp/out")"
# --list: every campaign file of golden/sweeps, with its chunk count (mpi-test's 416, as run above)
"$FPREF" sweep --list >"$tmp/out" 2>&1
rc=$?
listed=$(grep -c '^[a-z0-9-]*: [0-9]* chunks of 2^[0-9]* inputs$' "$tmp/out")
files=$(ls "$top"/golden/sweeps/*.campaign | wc -l)
test "$rc" = 0 && test "$listed" = "$files" && grep -q '^mpi-test: 416 chunks of 2^12 inputs$' "$tmp/out" &&
	grep -q '^    A small campaign for the tests' "$tmp/out"
tap_check "sweep --list: the $files campaigns, each with its chunks and what it sweeps" $? "$(cat "$tmp/out")"
"$FPREF" sweep --list mpi-test >"$tmp/out" 2>&1
test $? = 2 && grep -q -- '--list takes nothing else' "$tmp/out"
tap_check 'sweep --list with a campaign: exit 2' $? "$(cat "$tmp/out")"
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
