/* fpref draw formats: the catalogue's range against its precision, a bar
 * per format and a scatter, on log2 axes (fpref_golden_draw.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "fpref_emu.h"
#include "fpref_golden_draw.h"
#include "fpref_golden_svg.h"

/* A format's extremes as log2 places: least positive, max finite. */
static int format_extent(const struct fpref_format *f, double *least, double *top)
{
	struct fpref_unpacked u;
	uint64_t bits;
	fpref_format_min_positive(f, &u);
	if (fpref_encode(f, &u, &bits) != 0 || fpref_emu_binade_position(f, bits, least) != 0 ||
	    fpref_emu_binade_position(f, fpref_format_max_bits(f, false), top) != 0)
		return -1;
	return 0;
}

/* A label's box on the scatter: x0, y0, x1, y1 (10-px digits, about 6.4 px each). */
struct label_box {
	double x0, y0, x1, y1;
};

/* Where a point's number goes: the first place, going outward above and
 * below the point, whose box meets none already placed (formats that share
 * a range and a precision share a point). */
static double label_place(struct label_box *placed, int n, double px, double py, int digits)
{
	static const double dy[] = { -5, 9, -17, 21, -29, 33, -41, 45 };
	double w = 6.4 * digits + 1;
	for (size_t k = 0; k < sizeof dy / sizeof dy[0]; k++) {
		struct label_box b = { px + 5, py + dy[k] - 8, px + 5 + w, py + dy[k] + 2 };
		bool free = true;
		for (int i = 0; i < n && free; i++)
			free = !(b.x0 < placed[i].x1 - 1 && placed[i].x0 < b.x1 - 1 && b.y0 < placed[i].y1 - 1 &&
				 placed[i].y0 < b.y1 - 1);
		if (free) {
			placed[n] = b;
			return py + dy[k];
		}
	}
	placed[n] = (struct label_box){ px + 5, py - 13, px + 5 + w, py - 3 };
	return py - 5;
}

int fpref_golden_draw_formats(char **svg, char *err, size_t errlen)
{
	*svg = NULL;
	size_t n = fpref_format_count();
	double h = 110 + 22.0 * (double)n + 330;
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, h, "Range and precision of the catalogue",
			       "Each bar: least positive to max finite on a log2 scale (subnormals lighter); "
			       "p = precision in bits");
	/* the axis shows 2^-160 .. 2^140; float64's bar runs off both ends */
	const int lo = -160, hi = 140;
	struct fpref_svg_scale sc = { lo, hi, 220, 860 };
	double ticks[32];
	char *labels[32], buf[32 * 16];
	int nt = 0;
	for (int b = lo; b <= hi; b += 20, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "2^%d", b);
	}
	double y = 70;
	fpref_golden_svg_group(&s, "bars");
	for (size_t i = 0; i < n; i++, y += 22) {
		const struct fpref_format *f = fpref_format_at(i);
		double top, sub, norm = fpref_format_min_exponent(f);
		if (format_extent(f, &sub, &top) != 0)
			continue;
		double x0 = fpref_golden_svg_map(&sc, sub < lo ? lo : sub), xn = fpref_golden_svg_map(&sc, norm < lo ? lo : norm),
		       x1 = fpref_golden_svg_map(&sc, top > hi ? hi : top);
		fpref_golden_svg_text(&s, 212, y + 12, "format", "end", "%zu  %s  p=%d", i + 1, f->name, fpref_format_precision(f));
		char tip[160];
		snprintf(tip, sizeof tip, "%s: least positive 2^%.0f, least normal 2^%d, max finite below 2^%d", f->name,
			 sub, fpref_format_min_exponent(f), fpref_format_max_exponent(f) + 1);
		if (xn > x0)
			fpref_golden_svg_rect(&s, x0, y + 2, xn - x0, 14, FPREF_SVG_SKY, "subnormal", tip);
		fpref_golden_svg_rect(&s, xn, y + 2, x1 - xn, 14, FPREF_SVG_BLUE, "normal", tip);
		if (sub < lo || top > hi)
			fpref_golden_svg_text(&s, x0 + 6, y + 13, "inside", "start", "runs off the axis: 2^%.0f to below 2^%d", sub,
				 fpref_format_max_exponent(f) + 1);
	}
	fpref_golden_svg_group_end(&s);
	fpref_golden_svg_axis(&s, true, &sc, y + 4, ticks, labels, nt, "|value| (log2)");
	/* the triangle: precision against dynamic range, both log2 */
	double top0 = y + 80, bottom = top0 + 220;
	fpref_golden_svg_text(&s, 220, top0 - 18, "panel", "start",
		 "Precision against dynamic range (binades from least positive to max finite), both on log2 axes");
	struct fpref_svg_scale xr = { 1, 12, 220, 860 }, yp = { 0, 6, bottom, top0 };
	fpref_golden_svg_group(&s, "points");
	struct label_box *placed = calloc(n, sizeof *placed);
	if (!placed) {
		snprintf(err, errlen, "out of memory");
		fpref_golden_svg_discard(&s);
		return FPREF_DRAW_NO_MEMORY;
	}
	int nplaced = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fpref_format *f = fpref_format_at(i);
		double top, sub;
		if (format_extent(f, &sub, &top) != 0)
			continue;
		double px = fpref_golden_svg_map(&xr, fpref_golden_svg_log_place(top - sub)), py = fpref_golden_svg_map(&yp, fpref_golden_svg_log_place(fpref_format_precision(f)));
		fpref_golden_svg_circle(&s, px, py, 4, f->subnormals ? FPREF_SVG_VERMILLION : FPREF_SVG_GREEN, "format-point", f->name);
		double ly = label_place(placed, nplaced++, px, py, i + 1 >= 10 ? 2 : 1);
		fpref_golden_svg_text(&s, px + 5, ly, "tick", "start", "%zu", i + 1);
	}
	free(placed);
	fpref_golden_svg_group_end(&s);
	nt = 0;
	for (int b = 1; b <= 12; b++, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "%d", 1 << b);
	}
	fpref_golden_svg_axis(&s, true, &xr, bottom, ticks, labels, nt, "dynamic range (binades, log2 axis)");
	nt = 0;
	for (int b = 0; b <= 6; b++, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "%d", 1 << b);
	}
	fpref_golden_svg_axis(&s, false, &yp, 220, ticks, labels, nt, "precision (bits, log2 axis)");
	struct fpref_svg_key keys[] = {
		{ FPREF_SVG_BLUE, "normal range", false },
		{ FPREF_SVG_SKY, "subnormal range", false },
		{ FPREF_SVG_VERMILLION, "point: has subnormals", false },
		{ FPREF_SVG_GREEN, "point: no subnormals", false },
	};
	fpref_golden_svg_legend(&s, 250, top0, keys, 4);
	fpref_golden_svg_text(&s, 250, top0 + 76, "note", "start", "points numbered as the rows above");
	return fpref_golden_svg_finish(&s, svg) == 0 ? 0 : FPREF_DRAW_NO_MEMORY;
}
