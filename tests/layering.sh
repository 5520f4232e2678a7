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

# Inside a layer, an order with no circle among its files (DESIGN.md's
# layering, file by file: golden/'s parsing below its computing, below its
# files, below the runner): file X depends on file Y when X calls a
# function or uses a global defined in Y.  Read with nm from the compiled
# objects, not the sources: the members of the layer's convenience library
# (.libs/libfpref_LAYER.a in the build folder, where make check runs,
# wherever the sources are; as tests/symbols.sh reads it), else the layer's
# object files; any file names.  A circle is reported as one path round it,
# with a symbol for each step, and every file of its strongly connected
# component.
NM=${NM:-nm}
circles() {
	layer=$1
	if [ -f ".libs/libfpref_$layer.a" ]; then
		set -- ".libs/libfpref_$layer.a"
	else
		set -- "$layer"/.libs/libfpref_"$layer"_la-*.o
		[ -f "$1" ] || set -- "$layer"/libfpref_"$layer"_la-*.o
	fi
	if [ ! -f "$1" ]; then
		printf 'no objects of %s/ (.libs/libfpref_%s.a or %s/*.o): build first\n' "$layer" "$layer" "$layer"
		return
	fi
	"$NM" -A "$@" 2>/dev/null | awk -v layer="$layer" '
	match($0, /:[^:]*$/) {
		file = substr($0, 1, RSTART - 1)
		n = split(substr($0, RSTART + 1), f, " ")
		sub(/.*[:\/]/, "", file)
		sub(/^lib[^-]*_la-/, "", file)
		sub(/\.o$/, "", file)
		files[file] = 1
		if (n == 2 && f[1] == "U")
			used[file SUBSEP f[2]] = 1
		else if (n == 3 && f[2] ~ /^[TDBRCGSVW]$/)
			def[f[3]] = file
		else if (n == 3 && f[2] == "i" && !(f[3] in def))
			def[f[3]] = file # an indirect function (target_clones)
	}
	END {
		for (k in used) {
			split(k, p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1] && !((p[1], def[p[2]]) in why))
				why[p[1], def[p[2]]] = p[2]
		}
		nf = 0
		for (x in files) {
			for (i = ++nf; i > 1 && name[i - 1] > x; i--)
				name[i] = name[i - 1]
			name[i] = x
		}
		for (i = 1; i <= nf; i++)
			for (j = 1; j <= nf; j++)
				reach[i, j] = (name[i], name[j]) in why
		for (k = 1; k <= nf; k++)
			for (i = 1; i <= nf; i++)
				if (reach[i, k])
					for (j = 1; j <= nf; j++)
						if (reach[k, j])
							reach[i, j] = 1
		for (i = 1; i <= nf; i++) {
			if (done[i] || !reach[i, i])
				continue
			members = ""
			for (j = 1; j <= nf; j++)
				if (reach[i, j] && reach[j, i]) {
					done[j] = 1
					members = members " " layer "/" name[j] ".c"
				}
			# the shortest way round from name[i], breadth first
			split("", prev)
			head = tail = 0
			for (j = 1; j <= nf; j++)
				if ((name[i], name[j]) in why && reach[j, i]) {
					queue[++tail] = j
					prev[j] = i
				}
			while (head < tail && !(i in prev)) {
				v = queue[++head]
				for (j = 1; j <= nf; j++)
					if (!(j in prev) && (name[v], name[j]) in why && reach[j, i]) {
						queue[++tail] = j
						prev[j] = v
					}
			}
			m = 0
			back[0] = v = i
			do
				back[++m] = v = prev[v]
			while (v != i)
			path = layer "/" name[i] ".c"
			for (t = m - 1; t >= 0; t--)
				path = path " -> " layer "/" name[back[t]] ".c (" why[name[back[t + 1]], name[back[t]]] ")"
			printf "%scircle: %s; its files:%s\n", (found++ ? "#   " : ""), path, members
		}
		if (nf == 0)
			print "nm listed no symbols of " layer "/"
	}' || printf 'nm or awk failed on %s\n' "$*"
}
for layer in formats ref emu golden; do
	check "no circle among the files of $layer/ (nm of their objects)" "$(circles "$layer")"
done

printf '%s passed, %s failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
