#!/bin/sh
# make fuzz: build every target with libFuzzer, ASan and UBSan, run each for
# FUZZ_SECONDS from its committed corpus, and report them all.  A target
# that crashes keeps fuzzing to its time (libFuzzer's fork mode, crashes,
# timeouts and out-of-memory inputs ignored but kept), so that one defect
# neither hides the others nor stops the targets after it.  Every such
# input is copied into tests/fuzz/corpus/TARGET/, where tests/fuzz.sh
# replays it from then on: it fails `make check` until the defect is fixed.
#
# From the Makefile: FUZZ_CC, FUZZ_SECONDS, FUZZ_TARGETS, FUZZ_CPPFLAGS,
# FUZZ_SOURCES (the library's and the command's, main excepted), srcdir.
# Exit status 1 if any target found anything, else 0.
set -u
work=fuzz-work
corpus=$srcdir/tests/fuzz/corpus
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -pthread"
mkdir -p "$work/obj" || exit 2

# The library and the command, compiled once for all the targets.
objs=
for src in $FUZZ_SOURCES; do
	obj=$work/obj/$(printf '%s' "$src" | tr '/' '_' | sed 's/\.c$/.o/')
	objs="$objs $obj"
	[ "$obj" -nt "$srcdir/$src" ] && continue
	# shellcheck disable=SC2086
	$FUZZ_CC $flags -fsanitize=fuzzer-no-link,address,undefined $FUZZ_CPPFLAGS -c "$srcdir/$src" -o "$obj" || exit 2
done

# Runs and exec/s from the last libFuzzer status line: in fork mode
# "#N: cov: ... exec/s E oom/timeout/crash: O/T/C time: Ss ...", where E is
# the last job's rate, so the rate given is N / S; else "#N ... exec/s: E".
figures() {
	sed -n -e 's/^#\([0-9][0-9]*\): .* time: \([0-9][0-9]*\)s.*/\1 \2 fork/p' \
		-e 's/^#\([0-9][0-9]*\) .*exec\/s: \([0-9][0-9]*\).*/\1 \2 rate/p' "$1" | tail -n 1 |
		awk '{ print $1, ($3 == "fork" ? int($1 / ($2 > 0 ? $2 : 1)) : $2) }'
}

summary=
found=0
for t in $FUZZ_TARGETS; do
	bin=$work/fuzz_$t
	mkdir -p "$work/$t" "$work/$t.artifacts"
	# shellcheck disable=SC2086
	$FUZZ_CC $flags -fsanitize=fuzzer,address,undefined $FUZZ_CPPFLAGS "$srcdir/tests/fuzz/fuzz_$t.c" $objs \
		-lmpfr -lgmp -lm -o "$bin" || exit 2
	echo "== fuzz_$t for $FUZZ_SECONDS s"
	"$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=20 -rss_limit_mb=2048 \
		-max_total_time="$FUZZ_SECONDS" -max_len=4096 -artifact_prefix="$work/$t.artifacts/" \
		"$work/$t" "$corpus/$t" >"$work/$t.log" 2>&1
	rc=$?
	# shellcheck disable=SC2046
	set -- $(figures "$work/$t.log") 0 0
	runs=$1 rate=$2
	otc=$(sed -n 's/.*oom\/timeout\/crash: \([0-9/]*\).*/\1/p' "$work/$t.log" | tail -n 1)
	kept=
	for a in "$work/$t.artifacts"/*; do
		[ -f "$a" ] || continue
		cp "$a" "$corpus/$t/" && kept="$kept ${a##*/}"
	done
	if [ -n "$kept" ] || [ "$rc" -ne 0 ]; then
		found=1
		result="FOUND:$kept (exit $rc; log $work/$t.log; copied to tests/fuzz/corpus/$t/)"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$work/$t.log" | sort -u | head -n 5
	else
		result=clean
	fi
	summary="$summary$(printf '%-11s %11s runs %7s exec/s  oom/timeout/crash %-7s %s' "$t" "$runs" "$rate" \
		"${otc:-0/0/0}" "$result")
"
	rm -rf "$work/$t.artifacts"
done
printf '\n== make fuzz: %s s per target\n%s' "$FUZZ_SECONDS" "$summary"
exit "$found"
