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
# No numerics in tools/ (DESIGN.md: parse, call the library, print).  What
# counts as numerics here: <math.h>'s functions on values (fabs,
# sqrt, frexp, ldexp, pow, exp2, log2, fma, floor, ceil, round, trunc,
# fmax, fmin, scalbn), and any MPFR or GMP call except version queries,
# printing (mpfr_printf) and the class predicates that choose what to print
# (mpfr_nan_p, mpfr_regular_p, mpfr_integer_p ...); isnan and isfinite,
# which pick a spelling for JSON, are allowed.  Timing arithmetic of
# bench and progress (doubles of seconds) is not on values and not matched.
check 'tools/ calls no floating-point math function' "$(grep -n -E '\<(fabs|sqrt|frexp|ldexp|pow|exp2|log2|fma|floor|ceil|round|trunc|fmax|fmin|scalbn)[fl]? *\(' "$top"/tools/*.c 2>/dev/null | grep -v -E '^[^:]*:[0-9]+: *(/?\*|")')"
check 'tools/ calls no MPFR or GMP arithmetic' "$(grep -n -o -E '\<(mpfr|mpz|mpq|mpf)_[a-z0-9_]+' "$top"/tools/*.c 2>/dev/null | grep -v -E ':(mpfr_(get_version|buildopt_tls_p|printf|nan_p|inf_p|zero_p|regular_p|number_p|integer_p|srcptr|ptr|t))$')"

printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
