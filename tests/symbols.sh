#!/bin/sh
# Every exported symbol says its layer (docs/library.md):
# the emulator's start fpref_emu_, the oracle's fpref_ref_, golden/'s
# fpref_golden_; formats/, the vocabulary the others share, exports
# fpref_<topic>_... names that claim no other layer's prefix.  Read with nm
# from the built per-layer convenience libraries (.libs/libfpref_LAYER.a,
# in the build folder where make check runs), and from libfpref's shared
# object: nothing there outside fpref_.  Compiler-made symbols (a leading
# "__", as sanitizers add) are not the library's names and are skipped.
tap_name=symbols
. "$(dirname "$0")/tap.sh"

NM=${NM:-nm}
# defined global symbols of a library, one per line
exported() {
	"$NM" -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | grep -v '^__' | sort -u
}

for layer in formats ref emu golden; do
	lib=.libs/libfpref_$layer.a
	if [ ! -f "$lib" ]; then
		failed "$lib exists (make builds it)"
		continue
	fi
	all=$(exported "$lib")
	if [ -z "$all" ]; then
		failed "$layer: nm lists its symbols"
		continue
	fi
	case $layer in
	formats) bad=$(printf '%s\n' "$all" | grep -v '^fpref_' ; printf '%s\n' "$all" | grep -E '^fpref_(emu|ref|golden)_') ;;
	*) bad=$(printf '%s\n' "$all" | grep -v "^fpref_${layer}_") ;;
	esac
	n=$(printf '%s\n' "$all" | wc -l | tr -d ' ')
	if [ -z "$bad" ]; then
		ok "$layer: all $n exported symbols follow the rule"
	else
		failed "$layer: exported symbols outside the rule"
		printf '%s\n' "$bad" | sed 's/^/#   /'
	fi
done

so=$(ls .libs/libfpref.so 2>/dev/null)
if [ -n "$so" ]; then
	bad=$("$NM" -D --defined-only "$so" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | grep -v '^__' |
	      grep -v -E '^(fpref_|_init$|_fini$|_edata$|_end$|__bss_start$)')
	if [ -z "$bad" ]; then
		ok 'libfpref.so exports nothing outside fpref_'
	else
		failed 'libfpref.so exports nothing outside fpref_'
		printf '%s\n' "$bad" | sed 's/^/#   /'
	fi
fi
tap_end
