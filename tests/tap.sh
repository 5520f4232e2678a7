# Sourced by the shell suites (set tap_name first): the counters, a scratch
# folder $tmp removed on exit, and the TAP-style lines they print.
pass=0
fail=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fpref-${tap_name:-test}.XXXXXX") || {
	printf 'not ok - mktemp\n0 passed, 1 failed\n'
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

ok() {
	pass=$((pass + 1))
	printf 'ok - %s\n' "$1"
}

# The failure line; the caller prints its details after it.
failed() {
	fail=$((fail + 1))
	printf 'not ok - %s\n' "$1"
}

# skip NAME REASON: a check this build or machine cannot run, as TAP's
# SKIP directive; counted apart, never as a pass.
skip() {
	skipped=$((skipped + 1))
	printf 'ok - %s # SKIP %s\n' "$1" "$2"
}

# The summary, and the suite's exit status.
tap_end() {
	if [ "$skipped" -gt 0 ]; then
		printf '%d passed, %d failed, %d skipped (not counted as passed)\n' "$pass" "$fail" "$skipped"
	else
		printf '%d passed, %d failed\n' "$pass" "$fail"
	fi
	[ "$fail" -eq 0 ]
}

# tap_check NAME STATUS [DETAILS]: ok when STATUS is 0, else a failure line
# and DETAILS under it.
tap_check() {
	if [ "$2" = 0 ]; then
		ok "$1"
	else
		failed "$1"
		[ -n "${3:-}" ] && printf '#   %s\n' "$3"
	fi
	return 0
}
