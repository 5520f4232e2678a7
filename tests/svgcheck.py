#!/usr/bin/env python3
"""Checks of fpref draw's pictures (tests/draw.sh, tests/draw-browser.sh).

svgcheck.py svg FILE [CLASS=N ...]   well-formed XML, an <svg> root with a
    width and a height, a <title>, at least one axis (a <g class="axis">
    with a line, ticks and a label), a legend with text; and for each
    CLASS=N, exactly N elements whose class attribute holds CLASS.
svgcheck.py png FILE WIDTH HEIGHT    a PNG of that size, not blank: more than
    0.5 % of its pixels not white (channel values below 240 counted), some
    of them in its lower half, and the
    title's black text at the top left (not a browser's error page).
Prints what failed and exits 1, or exits 0."""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def classes(e):
    return e.get("class", "").split()


def check_svg(path, wants):
    problems = []
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg":
        return ["root is %s, not svg" % root.tag]
    for a in ("width", "height", "viewBox"):
        if not root.get(a):
            problems.append("no %s on <svg>" % a)
    title = root.find(NS + "title")
    if title is None or not (title.text or "").strip():
        problems.append("no <title>")
    axes = [g for g in root.iter(NS + "g") if "axis" in classes(g)]
    if not axes:
        problems.append("no axis")
    for i, g in enumerate(axes):
        if g.find(NS + "line") is None:
            problems.append("axis %d has no line" % i)
        ticks = [t for t in g.iter(NS + "text") if "tick" in classes(t)]
        labels = [t for t in g.iter(NS + "text") if "axis-label" in classes(t) and (t.text or "").strip()]
        if len(ticks) < 2:
            problems.append("axis %d has %d tick labels" % (i, len(ticks)))
        if len(labels) != 1:
            problems.append("axis %d has %d labels" % (i, len(labels)))
    legends = [g for g in root.iter(NS + "g") if "legend" in classes(g)]
    if not legends or not any((t.text or "").strip() for g in legends for t in g.iter(NS + "text")):
        problems.append("no legend with text")
    for want in wants:
        cls, n = want.split("=")
        got = sum(1 for e in root.iter() if cls in classes(e))
        if got != int(n):
            problems.append("%d elements of class %s, expected %s" % (got, cls, n))
    return problems


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError("PNG of depth %d, colour type %d, interlace %d: not read here" % (depth, colour, interlace))
    raw = zlib.decompress(idat)
    stride = w * channels
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 0 or f == 2:
            if f == 2:  # "Up": bytewise sums mod 256, all at once (no carry across bytes)
                lo, hi = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
                u, v = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
                line = bytearray((((u & lo) + (v & lo)) ^ ((u ^ v) & hi)).to_bytes(stride, "big"))
            rows.append(bytes(line))
            prev = line
            continue
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, channels, rows


def check_png(path, width, height):
    w, h, ch, rows = png_pixels(path)
    if (w, h) != (width, height):
        return ["%dx%d, expected %dx%d" % (w, h, width, height)]
    colour = min(ch, 3)
    # channel values below 240, counted in C (bytes.translate): a pixel that
    # is not white has one to three of them, so this is within 3x of the
    # pixel count; the alpha channel (never below 240 here) counts none
    below = bytes(1 if v < 240 else 0 for v in range(256))
    rows_rgb = rows if ch < 4 else [bytes(b for i, b in enumerate(row) if i % 4 != 3) for row in rows]
    counts = [row.translate(below).count(1) for row in rows_rgb]
    dark = sum(counts)
    lower = sum(counts[h // 2:])
    # the title, black, where the SVG writes it (x 16, baseline 24): a
    # browser that could not read the SVG shows an error box there instead
    title = sum(1 for y in range(8, 31) for x in range(14 * ch, 400 * ch, ch)
                if max(rows[y][x:x + colour]) < 80)
    problems = []
    if title < 50:
        problems.append("no title at the top left (%d dark pixels): not the picture" % title)
    if dark * 200 < w * h:
        problems.append("blank: %d channel values below 240 in %d pixels" % (dark, w * h))
    if lower == 0:
        problems.append("nothing drawn in the lower half")
    print("%s: %dx%d, %d channel values below 240 (%.1f %% of the pixels' count), %d title pixels" %
          (path, w, h, dark, 100.0 * dark / (w * h), title))
    return problems


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "svg":
        problems = check_svg(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "png":
        problems = check_png(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(__doc__)
        return 2
    for p in problems:
        print("%s: %s" % (sys.argv[2], p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
