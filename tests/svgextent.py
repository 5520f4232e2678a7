#!/usr/bin/env python3
"""Where the text of fpref draw's pictures lands (tests/draw-extent.sh).

svgextent.py FILE...   for every <text>, its box estimated from DejaVu
    Sans's advance widths (the first font the pictures ask for; a wider
    fallback is no excuse to run off the canvas) and its font size (the
    picture's own <style>): the box must lie inside the canvas, and no two
    boxes may overlap.  Prints each problem with the text and exits 1, or
    exits 0.

An estimate, not a renderer: widths are DejaVu Sans's per-character
advances in em, rounded up by group, so a box is a little wider than the
text it holds; rotated text (a vertical axis label) is a column."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

# DejaVu Sans advance widths in em (glyph advance / 2048), grouped and
# rounded up.
NARROW = set(" .,:;'|!iljI")
SEMI = set("()[]{}-frt/\\\"`")
WIDE = set("mwMW%@")
SYMBOL = set("=+^<>~*#&")


def em(ch):
    if ch.isdigit():
        return 0.64
    if ch in NARROW:
        return 0.32
    if ch in SEMI:
        return 0.42
    if ch in WIDE:
        return 1.0
    if ch in SYMBOL:
        return 0.84
    if ch.isupper():
        return 0.77
    return 0.62


def width(text, size, bold):
    return sum(em(c) for c in text) * size * (1.1 if bold else 1.0)


def styles(root):
    """class -> (font size, bold) from the picture's <style>."""
    out = {}
    for st in root.iter(NS + "style"):
        for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", st.text or ""):
            m = re.search(r"font-size:\s*([0-9.]+)px", body)
            if m:
                key = sel.strip().lstrip(".").split()[0]
                out[key] = (float(m.group(1)), "bold" in body)
    return out


def boxes(path):
    root = ET.parse(path).getroot()
    w, h = float(root.get("width")), float(root.get("height"))
    base = float(root.get("font-size", "12"))
    css = styles(root)
    found = []

    def walk(e, size, bold):
        for cls in e.get("class", "").split():
            if cls in css:
                size, bold = css[cls]
        if e.tag == NS + "text":
            text = "".join(e.itertext())
            x, y = float(e.get("x", "0")), float(e.get("y", "0"))
            tw = width(text, size, bold)
            anchor = e.get("text-anchor", "start")
            if "rotate(-90" in (e.get("transform") or ""):
                # a column centred on y, its baseline at x
                found.append((text, x - size, y - tw / 2, x + 0.25 * size, y + tw / 2))
            else:
                x0 = x if anchor == "start" else x - tw / 2 if anchor == "middle" else x - tw
                found.append((text, x0, y - 0.76 * size, x0 + tw, y + 0.24 * size))
        for c in e:
            walk(c, size, bold)

    walk(root, base, False)
    return w, h, found


def check(path):
    w, h, found = boxes(path)
    problems = []
    for text, x0, y0, x1, y1 in found:
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            problems.append("%s: '%s' at x %.0f..%.0f, y %.0f..%.0f, outside the %.0f x %.0f canvas"
                            % (path, text, x0, x1, y0, y1, w, h))
    # overlaps: two boxes sharing more than a sliver (1 px each way)
    for i in range(len(found)):
        a = found[i]
        for b in found[i + 1:]:
            if min(a[3], b[3]) - max(a[1], b[1]) > 1 and min(a[4], b[4]) - max(a[2], b[2]) > 1:
                problems.append("%s: '%s' overlaps '%s'" % (path, a[0], b[0]))
    return problems


def main(argv):
    problems = []
    for path in argv[1:]:
        problems += check(path)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
