#!/bin/sh
# The reference pictures (docs/pictures/*.svg) rendered by a real browser:
# a headless Chromium screenshot of each, at the size the SVG declares,
# must have that size and not be blank (tests/svgcheck.py png: over 0.5 %
# of the pixels not white, some in the lower half).  Without Chromium (or
# python3 to read the PNG) the suite is skipped: exit 77, counted by make
# check as SKIP, not as a pass.  FPREF_CHROMIUM names the browser (none:
# skip even where one is installed).
top=${srcdir:-$(dirname "$0")/..}
tap_name=draw-browser
browser=${FPREF_CHROMIUM:-}
if [ -z "${FPREF_CHROMIUM+set}" ]; then
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
fi
if [ "$browser" = none ]; then
	browser=
fi
if [ -z "$browser" ] || ! command -v python3 >/dev/null 2>&1; then
	echo "# SKIP: no Chromium (chromium, chromium-browser, google-chrome or FPREF_CHROMIUM) or no python3"
	exit 77
fi
. "$(dirname "$0")/tap.sh"
"$browser" --version 2>/dev/null | sed 's/^/# /'

for svg in "$top"/docs/pictures/*.svg; do
	name=$(basename "$svg" .svg)
	w=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$svg")
	h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$svg")
	abs=$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")
	# a profile of its own: no state shared with another run or a user's browser
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$tmp/profile" --window-size="$w,$h" --screenshot="$tmp/$name.png" \
		"file://$abs" >"$tmp/log" 2>&1
	if [ ! -s "$tmp/$name.png" ]; then
		failed "$name: a screenshot"
		tail -n 3 "$tmp/log" | sed 's/^/#   /'
	elif python3 "$top/tests/svgcheck.py" png "$tmp/$name.png" "$w" "$h" >"$tmp/check" 2>&1; then
		ok "$name: ${w}x$h, not blank"
		sed 's/^/#   /' "$tmp/check"
	else
		failed "$name: ${w}x$h, not blank"
		sed 's/^/#   /' "$tmp/check"
	fi
done
tap_end
