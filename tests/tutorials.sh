#!/bin/sh
# The documentation's walk-throughs run as written.  Every ```sh block of
# docs/tutorial-kernel.md, docs/tutorial-block-scaled.md and the README's
# start-here paths runs, in the page's order, in one scratch folder per
# page, with `fpref` on PATH (and as ./fpref in the folder, as the README
# writes it) standing for $FPREF: each block must exit 0, and a ```text
# block right after a line `<!-- output -->` must be exactly the stdout of
# the sh block before it.  A block after a line `<!-- not run -->` is left
# out (the README's quick start, which installs packages).  Then the
# index: every docs/*.md is linked from docs/README.md, and every relative
# link of README.md and docs/*.md names a file that exists.  POSIX sh; uses
# awk, sed, grep, cmp, diff and a C compiler (`cc`, as the pages do).
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
FPREF=$(cd "$(dirname "$FPREF")" && pwd)/$(basename "$FPREF")
src=${srcdir:-$(dirname "$0")/..}
src=$(cd "$src" && pwd)
tap_name=tutorials
. "$(dirname "$0")/tap.sh"

mkdir "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$FPREF" >"$tmp/bin/fpref"
chmod +x "$tmp/bin/fpref"
PATH=$tmp/bin:$PATH
export PATH

# blocks_of PAGE DIR: the page's blocks as DIR/N.sh (or N.skip) and the
# expected outputs as DIR/N.out, N counting the sh blocks.
blocks_of() {
	awk -v dir="$2" '
		fence == "" && /^<!-- not run -->$/ { skipnext = 1; next }
		fence == "" && /^<!-- output -->$/ { want = 1; next }
		fence == "" && /^```sh$/ {
			n++; fence = "sh"; file = dir "/" n (skipnext ? ".skip" : ".sh")
			skipnext = 0; want = 0; printf "" >file; next
		}
		fence == "" && /^```text$/ && want { fence = "out"; file = dir "/" n ".out"; want = 0; printf "" >file; next }
		fence == "" && /^```/ { fence = "other"; file = ""; want = 0; next }
		fence != "" && /^```$/ { if (file != "") close(file); fence = ""; file = ""; next }
		fence != "" { if (file != "") print >file; next }
		{ want = 0 }
	' "$1"
}

# run PAGE: its blocks in order, in a folder of its own.
run() {
	name=${1#"$src"/}
	dir=$tmp/run-$(printf '%s' "$name" | tr '/.' '--')
	mkdir "$dir" "$dir.blocks"
	cp "$tmp/bin/fpref" "$dir/fpref"
	blocks_of "$1" "$dir.blocks"
	n=1
	found=0
	while [ -f "$dir.blocks/$n.sh" ] || [ -f "$dir.blocks/$n.skip" ]; do
		blk=$dir.blocks/$n.sh
		if [ -f "$blk" ]; then
			found=$((found + 1))
			first=$(grep -v '^#' "$blk" | grep -m 1 . | cut -c1-60)
			(cd "$dir" && sh -e "$blk") >"$dir.blocks/$n.got" 2>"$dir.blocks/$n.err"
			rc=$?
			if [ "$rc" = 0 ]; then
				ok "$name block $n ($first): exit 0"
			else
				failed "$name block $n ($first): exit $rc"
				sed 's/^/#   | /' "$dir.blocks/$n.err" | tail -n 8
			fi
			if [ -f "$dir.blocks/$n.out" ]; then
				if cmp -s "$dir.blocks/$n.out" "$dir.blocks/$n.got"; then
					ok "$name block $n: the output the page shows"
				else
					failed "$name block $n: the output the page shows"
					diff "$dir.blocks/$n.out" "$dir.blocks/$n.got" | head -n 12 | sed 's/^/#   | /'
				fi
			fi
		fi
		n=$((n + 1))
	done
	[ "$found" -gt 0 ] && ok "$name: has sh blocks ($found)" || failed "$name: has sh blocks"
}

if command -v cc >/dev/null 2>&1; then
	run "$src/docs/tutorial-kernel.md"
	run "$src/docs/tutorial-block-scaled.md"
else
	skip 'docs/tutorial-kernel.md' 'no C compiler (cc) on PATH'
	skip 'docs/tutorial-block-scaled.md' 'no C compiler (cc) on PATH'
fi
run "$src/README.md"

# ---- the index lists every page; every relative link leads somewhere ----
for page in "$src"/docs/*.md; do
	base=${page##*/}
	[ "$base" = README.md ] && continue
	if grep -F "]($base)" "$src/docs/README.md" >/dev/null; then
		ok "docs/README.md lists $base"
	else
		failed "docs/README.md lists $base"
	fi
done
for page in "$src/README.md" "$src"/docs/*.md; do
	here=$(dirname "$page")
	# [text](target) with a relative target; the #anchor dropped
	bad=
	for target in $(grep -o '](\([^)#: ]*\)[)#]' "$page" | sed 's/^](//; s/[)#]$//' | sort -u); do
		[ -e "$here/$target" ] || bad="$bad $target"
	done
	if [ -z "$bad" ]; then
		ok "${page#"$src"/}: its links lead to files"
	else
		failed "${page#"$src"/}: links to missing files:$bad"
	fi
done
tap_end
