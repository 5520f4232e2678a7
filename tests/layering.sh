#!/bin/sh
# DESIGN.md's layering, checked on the sources: formats/ depends on nothing,
# emu/ on formats/ only (never MPFR or GMP, so that the emulator stays an
# independent second implementation), and tools/ holds no rounding.
top=${srcdir:-$(dirname "$0")/..}
pass=0
fail=0
check() {
	if [ -z "$2" ]; then
		pass=$((pass + 1))
		printf 'ok - %s\n' "$1"
	else
		fail=$((fail + 1))
		printf 'not ok - %s\n#   %s\n' "$1" "$2"
	fi
}
check 'emu/ includes no MPFR or GMP header' "$(grep -l -E '#include *[<"](mpfr|gmp)' "$top"/emu/*.[ch] 2>/dev/null)"
check 'emu/ calls no MPFR or GMP function' "$(grep -l -E '\<(mpfr|mpz|mpq)_' "$top"/emu/*.[ch] 2>/dev/null)"
check 'emu/ includes nothing from ref/' "$(grep -l 'fpref_ref' "$top"/emu/*.[ch] 2>/dev/null)"
check 'formats/ includes no MPFR, GMP or engine header' "$(grep -l -E '#include *[<"](mpfr|gmp|fpref_ref|fpref_emu)' "$top"/formats/*.[ch] 2>/dev/null)"
check 'formats/, ref/ and emu/ include nothing from golden/ (data flows down)' "$(grep -l 'fpref_golden' "$top"/formats/*.[ch] "$top"/ref/*.[ch] "$top"/emu/*.[ch] 2>/dev/null)"
check 'tools/ does no rounding of its own' "$(grep -l -E 'mpfr_(set_emin|subnormalize|check_range|prec_round)|round_pack' "$top"/tools/*.c 2>/dev/null)"
printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
