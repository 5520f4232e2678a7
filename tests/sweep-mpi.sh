#!/bin/sh
# fpref-sweep-mpi (tools/sweep_mpi.c) on the small campaign
# golden/sweeps/mpi-test: 4 ranks (rank 0 hands out chunks, 3 compute)
# give the serial run's chunk files and MANIFEST byte for byte; a worker
# rank killed midway leaves whole chunk files only, and --resume (on 4
# ranks) completes with the same MANIFEST, keeping what was done; a
# campaign that must fail (a mutant) fails on ranks too.  Each
# failure prints what it saw under its "not ok" line.  SKIP
# (77) where configure found no MPI (fpref-sweep-mpi not built) or no
# mpirun.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
MPI=${FPREF_SWEEP_MPI:-"$(dirname "$0")/../fpref-sweep-mpi"}
MPIRUN=${FPREF_MPIRUN:-mpirun}
top=${srcdir:-$(dirname "$0")/..}
if [ ! -x "$MPI" ] || ! command -v "$MPIRUN" >/dev/null 2>&1; then
	echo "SKIP: no fpref-sweep-mpi or no mpirun (configure --with-mpi; Debian: openmpi-bin libopenmpi-dev)"
	exit 77
fi
tap_name=sweep-mpi
. "$(dirname "$0")/tap.sh"
campaign="$top/golden/sweeps/mpi-test.campaign"
# root in containers and CI; ranks yield the core when idle (4 ranks share
# fewer cores); Open MPI's leak reports are not ours under AddressSanitizer
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_mpi_yield_when_idle ASAN_OPTIONS
mpirun4() {
	"$MPIRUN" -n 4 --oversubscribe "$MPI" "$@"
}

"$FPREF" sweep "$campaign" --out "$tmp/serial" >"$tmp/out" 2>&1
tap_check 'serial run: complete' $? "$(cat "$tmp/out")"

mpirun4 "$campaign" --out "$tmp/mpi" >"$tmp/out" 2>&1
tap_check 'mpirun -n 4: complete, exit 0' $? "$(tail -5 "$tmp/out")"
grep -q '416 chunks run on 4 ranks, 0 kept' "$tmp/out"
tap_check 'mpirun -n 4: all 416 chunks run' $? "$(tail -3 "$tmp/out")"
cmp "$tmp/serial/MANIFEST" "$tmp/mpi/MANIFEST"
tap_check 'mpirun -n 4: the serial MANIFEST byte for byte' $?
diff -r "$tmp/serial/chunks" "$tmp/mpi/chunks" >/dev/null
tap_check 'mpirun -n 4: the serial chunk files byte for byte' $?

# a worker rank killed midway: rank 3 sends itself SIGKILL when its 40th
# chunk arrives (FPREF_SWEEP_MPI_KILL, so that the kill cannot miss a run
# that a busy machine let finish first); mpirun then ends the job
FPREF_SWEEP_MPI_KILL=3:40 mpirun4 "$campaign" --out "$tmp/killed" >"$tmp/killed.out" 2>&1
killed_status=$?
# mpirun can return while a rank of the aborted job still runs and writes
# chunks (seen under load): count what is done only once every rank is gone
tries=0
while pgrep -f -- "--out $tmp/killed" >/dev/null 2>&1 && [ $tries -lt 500 ]; do
	sleep 0.01
	tries=$((tries + 1))
done
pkill -9 -f -- "--out $tmp/killed" 2>/dev/null
sleep 0.1
before=$(ls "$tmp/killed/chunks" | grep -c '^[0-9]*\.txt$')
test "$killed_status" != 0 && test ! -f "$tmp/killed/MANIFEST" && test "$before" -lt 416 && test "$before" -gt 0
tap_check "a rank killed after $before of 416 chunks: the run fails, no MANIFEST" $? "status $killed_status; $(tail -3 "$tmp/killed.out")"
mpirun4 "$campaign" --out "$tmp/killed" --resume >"$tmp/out" 2>&1
tap_check 'then mpirun -n 4 --resume: complete' $? "$(tail -5 "$tmp/out")"
kept=$(sed -n 's/.* chunks run on 4 ranks, \([0-9]*\) kept$/\1/p' "$tmp/out")
test "$kept" = "$before"
tap_check "--resume kept the $before chunks done" $? "kept '$kept'"
cmp "$tmp/serial/MANIFEST" "$tmp/killed/MANIFEST"
tap_check 'killed, then --resume: the serial MANIFEST byte for byte' $?

# the sweep fails on ranks as it does alone: the mutant campaign of
# tests/sweep.sh exits 1 with the serial run's MANIFEST and first disagreement
mutant="$top/tests/data/sweep-mutant.campaign"
"$FPREF" sweep "$mutant" --out "$tmp/mut-serial" >/dev/null 2>&1
mpirun4 "$mutant" --out "$tmp/mut" >"$tmp/out" 2>&1
rc=$?
test $rc = 1 && cmp "$tmp/mut-serial/MANIFEST" "$tmp/mut/MANIFEST" &&
	grep -q '^first disagreement: chunks/00000001.txt convert/float16-float8_e4m3fn.rne.txt .* differs 1400 ' "$tmp/out"
tap_check 'a mutant campaign on 4 ranks: exit 1, the serial MANIFEST, the first disagreement' $? "rc $rc; $(tail -5 "$tmp/out")"

tap_end
