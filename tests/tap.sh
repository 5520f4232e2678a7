# Sourced by the shell suites (set tap_name first): the counters, a scratch
# folder $tmp removed on exit, and the TAP-style lines they print.
pass=0
fail=0
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

# The summary, and the suite's exit status.
tap_end() {
	printf '%d passed, %d failed\n' "$pass" "$fail"
	[ "$fail" -eq 0 ]
}
