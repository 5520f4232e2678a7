#!/bin/sh
# DESIGN.md's layering, where the compiler cannot see it.  Which layer's
# headers a layer can include is held by the include paths of the per-layer
# libraries (Makefile.am; tests/layer-includes.sh shows that a wrong include
# fails to compile).  What a path cannot hold is checked here on the
# sources: an include written with a folder in it (found relative to the
# file, whatever the include path), MPFR and GMP in emu/ (their headers
# lie on the system path that every layer sees: the emulator must stay an
# independent second implementation), and rounding in tools/.
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
check 'formats/ includes no MPFR or GMP header' "$(grep -l -E '#include *[<"](mpfr|gmp)' "$top"/formats/*.[ch] 2>/dev/null)"
check 'formats/, ref/, emu/ and golden/ include no header by a path (a "/" in the name)' \
	"$(grep -n -E '#include *"[^"]*/' "$top"/formats/*.[ch] "$top"/ref/*.[ch] "$top"/emu/*.[ch] "$top"/golden/*.[ch] 2>/dev/null)"
# A format is a row of data: outside formats/, code asks fpref_format_is /
# fpref_format_same and takes catalogue rows by constant (fpref_format_get),
# never compares or looks up a format by its name.  Looked for: strcmp or
# strcasecmp with a catalogue name or alias as a literal, strcmp of two
# .name fields, a .name against a list of element names, and
# fpref_format_parse of a catalogue name or alias (a custom spelling, which
# no constant names, may be parsed).
names='"(float[0-9]|bfloat16|tf32|f16|f32|f64|bf16|e[0-9]m[0-9])'
catalogue='"(float[0-9][^"]*|bfloat16|tf32|f16|f32|f64|bf16|e[0-9]m[0-9])"'
check 'no format compared or looked up by name outside formats/' \
	"$(grep -n -E "str(case)?cmp\([^;]*$names|str(case)?cmp\([^,;]*(->|\.)name, [^,;]*(->|\.)name\)|str(case)?cmp\([^,;]*(->|\.)name, [^;]*elements\[|fpref_format_parse\($catalogue" \
		"$top"/ref/*.[ch] "$top"/emu/*.[ch] "$top"/golden/*.[ch] "$top"/tools/*.[ch] "$top"/python/src/fpref/*.c 2>/dev/null)"
# A quantisation scheme is one library call (fpref_emu_quantize): the
# command and the Python extension make none of the schemes' own calls.
check 'tools/ and the Python extension dispatch no quantisation scheme' \
	"$(grep -n -E 'fpref_emu_(current_quantize|delayed_step|block_(de)?quantize|mx_(de)?quantize|nvfp4_(de)?quantize|dequantize_scaled)|fpref_delayed_init' \
		"$top"/tools/*.c "$top"/python/src/fpref/*.c 2>/dev/null)"
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
