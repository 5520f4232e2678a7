#!/bin/sh
# The documented install path from the state tools/quickstart leaves (an
# in-tree build configured for the default prefix): configure again with
# --prefix=P, make, make install, then run P/bin/fpref with nothing from the
# build tree.  Done in a copy of this build tree under a scratch folder, so
# the tree under test and the machine are left as they were.  The copy is
# configured with this tree's own configure arguments (the sanitizer build
# stays a sanitizer build) plus --prefix.  POSIX sh; uses tar, sed, grep.
tap_name=install
. "$(dirname "$0")/tap.sh"

top=$(pwd)
src=${srcdir:-$(dirname "$0")/..}
P=$tmp/P
mkdir "$tmp/src"
if [ "$(cd "$src" && pwd)" = "$top" ] && [ -f config.status ]; then
	# an in-tree build, as quickstart makes it: copy it, objects and all
	from=$top
	args=$(./config.status --config)
else
	from=$src # a VPATH build: a fresh configure of the sources
	args=
fi
(cd "$from" && tar -cf - --exclude=./.git --exclude=./build-sanitizers --exclude=./build-O0 --exclude=./build-python --exclude=./golden-default --exclude=./fuzz-work \
	--exclude='./tests/*.log' --exclude='./tests/*.trs' .) | (cd "$tmp/src" && tar -xf -) || {
	failed 'copy the build tree'
	tap_end
	exit
}
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top/Makefile")

if (cd "$tmp/src" && eval "./configure --quiet $args --prefix=\"\$P\"" && make -j2 && make install) \
	>"$tmp/log" 2>&1; then
	ok 'configure --prefix=P && make && make install'
else
	failed 'configure --prefix=P && make && make install'
	tail -n 20 "$tmp/log" | sed 's/^/#   | /'
fi

# Nothing of the build tree left to lean on: no copy, no library path.
rm -rf "$tmp/src"
out=$(env -u LD_LIBRARY_PATH "$P/bin/fpref" --version 2>&1)
case $out in
"fpref $version "*) ok 'P/bin/fpref --version runs and names the version' ;;
*) failed 'P/bin/fpref --version runs and names the version'; printf '#   got: %s\n' "$out" ;;
esac
out=$(env -u LD_LIBRARY_PATH "$P/bin/fpref" convert --to e4m3 464 2>&1)
if [ "$out" = '464 -> float8_e4m3fn 7E = 448  flags 01 (inexact)' ]; then
	ok 'P/bin/fpref converts'
else
	failed 'P/bin/fpref converts'
	printf '#   got: %s\n' "$out"
fi
if command -v readelf >/dev/null 2>&1; then
	if readelf -d "$P/bin/fpref" | grep -F "RUNPATH" | grep -F "[$P/lib]" >/dev/null; then
		ok 'P/bin/fpref has RUNPATH P/lib'
	else
		failed 'P/bin/fpref has RUNPATH P/lib'
		readelf -d "$P/bin/fpref" | grep -i path | sed 's/^/#   | /'
	fi
fi
# The suites from P/share, the copy's sources being gone.
if env -u LD_LIBRARY_PATH "$P/bin/fpref" gen --list --suite committed >"$tmp/list" 2>&1 && [ -s "$tmp/list" ]; then
	ok 'P/bin/fpref finds the installed suites'
else
	failed 'P/bin/fpref finds the installed suites'
	head -n 5 "$tmp/list" | sed 's/^/#   | /'
fi
# bench --peers runs the installed Python half (a bare python3: it starts, finds no NumPy, says so).
if command -v python3 >/dev/null 2>&1; then
	printf '#!/bin/sh\nexec python3 -S -E "$@"\n' >"$tmp/bare-python"
	chmod +x "$tmp/bare-python"
	env -u LD_LIBRARY_PATH "$P/bin/fpref" bench --peers --size 4 --repeat 1 --python "$tmp/bare-python" >"$tmp/peers" 2>&1
	if grep -q '^numpy: not found' "$tmp/peers"; then
		ok 'P/bin/fpref bench --peers runs the installed bench_peers.py'
	else
		failed 'P/bin/fpref bench --peers runs the installed bench_peers.py'
		sed 's/^/#   | /' "$tmp/peers"
	fi
fi
for f in share/man/man1/fpref.1 share/bash-completion/completions/fpref include/fpref/fpref.h lib/pkgconfig/fpref.pc \
	share/fpref/bench_peers.py; do
	if [ -s "$P/$f" ]; then ok "installed $f"; else failed "installed $f"; fi
done
tap_end
