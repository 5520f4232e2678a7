#!/bin/sh
# The layers' include paths (Makefile.am, DESIGN.md "Layers"): a file of a
# layer that includes a header of a higher or sideways layer must fail to
# compile, and one that includes its own or a lower layer's header must
# compile.  Every header of formats/, ref/, emu/ and golden/ is tried in a
# probe file compiled with each layer's library flags, as make check
# exports them (FPREF_LAYER_CC, FPREF_LAYER_FORMATS ... _GOLDEN).  The probe
# lies in a scratch folder, so only the include path can find a header, as
# for a source file of the layer (which also sees its own folder).  What the
# compiler cannot see (a path written into an include, MPFR from emu/) is
# tests/layering.sh's.
top=${srcdir:-$(dirname "$0")/..}
tap_name=layer-includes
. "$(dirname "$0")/tap.sh"

if [ -z "$FPREF_LAYER_CC" ] || [ -z "$FPREF_LAYER_FORMATS" ] || [ -z "$FPREF_LAYER_EMU" ]; then
	failed 'FPREF_LAYER_CC and FPREF_LAYER_<layer> set (make check exports them)'
	tap_end
	exit 1
fi

# The layers whose headers a layer may include.
allowed() {
	case $1 in
	formats) echo formats ;;
	ref) echo formats ref ;;
	emu) echo formats emu ;;
	golden) echo formats ref emu golden ;;
	esac
}

# probe LAYER FLAGS HEADER: 0 when a file including HEADER compiles
# with the layer's flags; the compiler's words in $tmp/out.
probe() {
	printf '#include "%s"\nint fpref_probe_%s;\n' "$3" "$1" >"$tmp/probe.c"
	# shellcheck disable=SC2086 # the flags are words
	(cd "$tmp" && eval "$FPREF_LAYER_CC $2 -fsyntax-only probe.c") >"$tmp/out" 2>&1
}

expect_ok() {
	if probe "$1" "$2" "$3"; then
		ok "$1 may include $3"
	else
		failed "$1 may include $3"
		sed -n '1,5s/^/#   /p' "$tmp/out"
	fi
}

# A refused include must fail for want of the header, not for any error.
expect_refused() {
	if probe "$1" "$2" "$3"; then
		failed "$1 cannot include $3"
		printf '#   it compiled with: %s\n' "$2"
	elif grep -q -F "$3" "$tmp/out" && grep -q -E 'No such file|not found' "$tmp/out"; then
		ok "$1 cannot include $3"
	else
		failed "$1 cannot include $3 (failed, but not for want of the header)"
		sed -n '1,5s/^/#   /p' "$tmp/out"
	fi
}

for layer in formats ref emu golden; do
	case $layer in
	formats) flags=$FPREF_LAYER_FORMATS ;;
	ref) flags=$FPREF_LAYER_REF ;;
	emu) flags=$FPREF_LAYER_EMU ;;
	golden) flags=$FPREF_LAYER_GOLDEN ;;
	esac
	# flags relative to the build folder, where make check runs
	flags=$(printf '%s' "$flags" | sed "s|-I\([^/ ][^ ]*\)|-I$(pwd)/\1|g")
	ok_dirs=$(allowed $layer)
	for dir in formats ref emu golden; do
		for h in "$top/$dir"/*.h; do
			h=$(basename "$h")
			case " $ok_dirs " in
			*" $dir "*) expect_ok $layer "$flags" "$h" ;;
			*) expect_refused $layer "$flags" "$h" ;;
			esac
		done
	done
	# the umbrella header and the command's headers reach up
	case $layer in
	golden) ;;
	*) expect_refused $layer "$flags" fpref.h ;;
	esac
	expect_refused $layer "$flags" cli.h
done
tap_end
