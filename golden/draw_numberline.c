/* fpref draw numberline: every value of a format on a line (all codes of a
 * format of at most 8 bits, else a window about --at), linear and log2
 * views, the classes coloured, the spacing as a step plot
 * (fpref_golden_draw.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h"
#include "fpref_emu.h"
#include "fpref_golden_draw.h"
#include "fpref_golden_svg.h"
#include "fpref_ref.h"

#define NL_MAX 1024

struct nl_value {
	uint64_t bits;
	enum fpref_class cls;
	double v, pos; /* value; binade position (NaN for zero) */
	int ulp;       /* log2 of the spacing */
	bool has_pos;
};

static int parse_range(const char *text, double *lo, double *hi)
{
	char *end;
	*lo = strtod(text, &end);
	if (end == text || *end != ':')
		return -1;
	const char *h = end + 1;
	*hi = strtod(h, &end);
	return end == h || *end || !(*lo <= *hi) ? -1 : 0;
}

/* The codes to show: all of a format of at most 8 bits, else a window. */
static int nl_codes(const struct fpref_format *f, const char *at, const char *window_text, uint64_t *codes, size_t *n,
		    char *err, size_t errlen)
{
	int width = fpref_format_container_bits(f);
	*n = 0;
	if (width <= 8) {
		for (uint64_t b = 0; b < ((uint64_t)1 << width); b++)
			if (f->pad_bits == 0 || (b & (((uint64_t)1 << f->pad_bits) - 1)) == 0)
				codes[(*n)++] = b;
		return 0;
	}
	struct fpref_ref_value v;
	if (fpref_golden_draw_read_value("--at", at ? at : "1", &v, err, errlen) != 0)
		return FPREF_DRAW_BAD_ARGS;
	long window = 16;
	if (window_text) {
		char *end;
		window = strtol(window_text, &end, 10);
		if (!*window_text || *end || window < 1 || window > 200) {
			snprintf(err, errlen, "bad --window '%s' (1 to 200)", window_text);
			fpref_ref_value_clear(&v);
			return FPREF_DRAW_BAD_ARGS;
		}
	}
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t centre;
	unsigned flags = 0;
	fpref_ref_round(&v, f, &env, 0, &centre, &flags, NULL);
	fpref_ref_value_clear(&v);
	uint64_t sign = (uint64_t)1 << (fpref_format_width(f) - 1 + f->pad_bits);
	uint64_t step = (uint64_t)1 << f->pad_bits;
	for (long k = -window; k <= window; k++) {
		uint64_t b = centre + (uint64_t)k * step;
		if (k < 0 && (uint64_t)(-k) * step > (centre & ~sign))
			continue; /* below the zero of this sign */
		if (f->is_signed && (b & sign) != (centre & sign))
			continue;
		codes[(*n)++] = b;
	}
	return 0;
}

static const char *class_colour(enum fpref_class c, bool max)
{
	if (max)
		return FPREF_SVG_ORANGE;
	return c == FPREF_CLASS_SUBNORMAL ? FPREF_SVG_VERMILLION : c == FPREF_CLASS_ZERO ? FPREF_SVG_BLACK : FPREF_SVG_BLUE;
}

static void list_codes(const struct fpref_format *f, const uint64_t *codes, size_t n, enum fpref_class cls, char *buf,
		       size_t len)
{
	size_t used = 0;
	int shown = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		struct fpref_unpacked u;
		if (fpref_decode(f, codes[i], &u) != FPREF_DECODE_OK || u.cls != cls)
			continue;
		char hex[32];
		fpref_format_hex(f, codes[i], hex, sizeof hex);
		if (used + strlen(hex) + 5 >= len) { /* the line's room is spent */
			snprintf(buf + used, len - used, " ...");
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s", shown ? " " : "", hex);
		shown++;
	}
	if (!shown)
		snprintf(buf, len, "none");
}

/* The log2 view's ticks: the powers of two inside pmin .. pmax; a window
 * within one binade holds at most one, so then its two ends, labelled
 * with the values of the codes there. */
static int log_ticks(const struct nl_value *vals, size_t n, double pmin, double pmax, double *ticks, char **labels,
		     char *buf)
{
	int lo = (int)pmin - (pmin < (int)pmin), hi = (int)pmax;
	int all = fpref_golden_svg_pow2_ticks(lo, hi, 10, ticks, labels, buf, 64), nt = 0;
	for (int i = 0; i < all; i++)
		if (ticks[i] >= pmin && ticks[i] <= pmax) {
			ticks[nt] = ticks[i];
			labels[nt++] = labels[i];
		}
	if (nt >= 2 || pmax - pmin < 1e-9)
		return nt; /* ends that double cannot tell apart get no labels of their own */
	nt = 0;
	for (size_t i = 0; i < n; i++)
		if (vals[i].has_pos && vals[i].v > 0 && (vals[i].pos == pmin || vals[i].pos == pmax) && nt < 2) {
			ticks[nt] = vals[i].pos;
			labels[nt] = buf + 16 * nt;
			snprintf(labels[nt], 16, "%.6g", vals[i].v);
			nt++;
		}
	return nt;
}

int fpref_golden_draw_numberline(const struct fpref_format *format, const char *range, const char *at, const char *window,
				 char **svg, char *err, size_t errlen)
{
	*svg = NULL;
	const struct fpref_format f = *format;
	double rlo = 0, rhi = 0;
	if (range && parse_range(range, &rlo, &rhi) != 0) {
		snprintf(err, errlen, "bad --range '%s' (LO:HI, two numbers, LO <= HI)", range);
		return FPREF_DRAW_BAD_ARGS;
	}
	bool narrow = fpref_format_container_bits(&f) <= 8;
	if (!narrow && range) {
		snprintf(err, errlen, "--range is for formats of at most 8 bits; %s is drawn as a window (--at, --window)", f.name);
		return FPREF_DRAW_BAD_ARGS;
	}
	if (narrow && (at || window)) {
		snprintf(err, errlen, "--at and --window are for formats wider than 8 bits: every value of %s is drawn", f.name);
		return FPREF_DRAW_BAD_ARGS;
	}
	uint64_t *codes = calloc(NL_MAX, sizeof *codes);
	struct nl_value *vals = calloc(NL_MAX, sizeof *vals);
	size_t ncodes = 0, n = 0;
	int status = !codes || !vals ? FPREF_DRAW_NO_MEMORY : nl_codes(&f, at, window, codes, &ncodes, err, errlen);
	if (status) {
		free(codes);
		free(vals);
		return status;
	}
	uint64_t maxbits = fpref_format_max_bits(&f, false), minmax = fpref_format_max_bits(&f, true);
	for (size_t i = 0; i < ncodes; i++) {
		struct nl_value *x = &vals[n];
		struct fpref_unpacked u;
		if (fpref_decode(&f, codes[i], &u) != FPREF_DECODE_OK || u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF)
			continue;
		x->bits = codes[i];
		x->cls = u.cls;
		fpref_emu_value_f64(&f, codes[i], &x->v);
		if (range && (x->v < rlo || x->v > rhi))
			continue;
		x->has_pos = fpref_emu_binade_position(&f, codes[i], &x->pos) == 0;
		fpref_emu_spacing_log2(&f, codes[i], &x->ulp);
		n++;
	}
	if (n == 0) {
		snprintf(err, errlen, "no value of %s lies in --range %s", f.name, range);
		free(codes);
		free(vals);
		return FPREF_DRAW_BAD_ARGS;
	}
	/* the extent of each view */
	double vmin = vals[0].v, pmin = 0, pmax = 0;
	double vmax = vmin;
	size_t imin = 0, imax = 0; /* the codes at the ends */
	int umin = vals[0].ulp;
	int umax = umin;
	bool any_pos = false;
	for (size_t i = 0; i < n; i++) {
		imin = vals[i].v < vmin ? i : imin;
		imax = vals[i].v > vmax ? i : imax;
		vmin = vals[i].v < vmin ? vals[i].v : vmin;
		vmax = vals[i].v > vmax ? vals[i].v : vmax;
		umin = vals[i].ulp < umin ? vals[i].ulp : umin;
		umax = vals[i].ulp > umax ? vals[i].ulp : umax;
		if (vals[i].has_pos && vals[i].v > 0) {
			if (!any_pos || vals[i].pos < pmin)
				pmin = vals[i].pos;
			if (!any_pos || vals[i].pos > pmax)
				pmax = vals[i].pos;
			any_pos = true;
		}
	}
	char title[160], sub[320], buf[64 * 16];
	snprintf(title, sizeof title, "Every value of %s on a line", f.name);
	if (!narrow)
		snprintf(title, sizeof title, "The values of %s around %s", f.name, at ? at : "1");
	char fdesc[96];
	fpref_format_descriptor(&f, fdesc, sizeof fdesc);
	snprintf(sub, sizeof sub, "%s; %zu finite codes shown%s", fdesc, n, range ? " (--range)" : "");
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 650, title, sub);
	double ticks[64];
	char *labels[64];
	/* 1: the linear view, one mark per finite code */
	struct fpref_svg_scale lin = { vmin, vmax, 90, 840 };
	fpref_golden_svg_text(&s, 70, 76, "panel", "start", "Linear scale: one mark per finite code (+0 and -0 both)");
	fpref_golden_svg_group(&s, "marks linear");
	for (size_t i = 0; i < n; i++) {
		char hex[32], tip[96];
		fpref_format_hex(&f, vals[i].bits, hex, sizeof hex);
		snprintf(tip, sizeof tip, "%s = %.17g", hex, vals[i].v);
		bool max = vals[i].bits == maxbits || (f.is_signed && vals[i].bits == minmax);
		double x = fpref_golden_svg_map(&lin, vals[i].v);
		fpref_golden_svg_rect(&s, x - 0.75, max ? 88 : 96, 1.5, max ? 30 : 22, class_colour(vals[i].cls, max), "value", tip);
	}
	fpref_golden_svg_group_end(&s);
	int nt = 0;
	double lt[3] = { vmin, vmax, 0 };
	for (int i = 0; i < 3; i++) {
		if (i == 2 && !(vmin < 0 && vmax > 0))
			continue;
		ticks[nt] = lt[i];
		labels[nt] = buf + 32 * nt;
		nt++;
	}
	/* as many digits as it takes to tell the ends apart (a window of a
	 * wide format lies within a few ulps) */
	for (int digits = 6; digits <= 17; digits++) {
		for (int i = 0; i < nt; i++)
			snprintf(labels[i], 32, "%.*g", digits, ticks[i]);
		if (nt < 2 || strcmp(labels[0], labels[1]) != 0)
			break;
	}
	fpref_golden_svg_axis(&s, true, &lin, 120, ticks, labels, nt, "value (linear)");
	if (at) { /* the value asked for, where the oracle places it between the ends */
		struct fpref_ref_value atv, lo, hi;
		fpref_ref_value_init(&lo);
		fpref_ref_value_init(&hi);
		char unused[8];
		if (fpref_golden_draw_read_value("--at", at, &atv, unused, sizeof unused) == 0) {
			double fr = NAN;
			if (fpref_ref_from_bits(&f, vals[imin].bits, false, &lo) == 0 &&
			    fpref_ref_from_bits(&f, vals[imax].bits, false, &hi) == 0)
				fr = fpref_ref_fraction(lo.x, hi.x, atv.x);
			if (fr >= 0 && fr <= 1) {
				struct fpref_svg_scale unit = { 0, 1, lin.p0, lin.p1 };
				double px = fpref_golden_svg_map(&unit, fr);
				fpref_golden_svg_line(&s, px, 90, px, 124, FPREF_SVG_VERMILLION, 2, NULL);
				fpref_golden_svg_text(&s, px, 88, "note", "middle", "--at %.12s", at);
			}
			fpref_ref_value_clear(&atv);
		}
		fpref_ref_value_clear(&lo);
		fpref_ref_value_clear(&hi);
	}
	/* 2: the log2 view of the positive values */
	struct fpref_svg_scale logs = { pmin, pmax, 70, 860 };
	int bmin = fpref_format_min_exponent(&f);
	if (any_pos) {
		fpref_golden_svg_text(&s, 70, 230, "panel", "start", "log2 scale (each binade as wide, linear inside): the positive values");
		double xs = fpref_golden_svg_map(&logs, bmin);
		if (xs > 70)
			fpref_golden_svg_rect(&s, 70, 240, (xs < 860 ? xs : 860) - 70, 36, "#FBE3D6", "range subnormal", "subnormal range");
		if (xs < 860)
			fpref_golden_svg_rect(&s, xs > 70 ? xs : 70, 240, 860 - (xs > 70 ? xs : 70), 36, "#DCEBF5", "range normal",
				 "normal range");
		fpref_golden_svg_group(&s, "marks log");
		for (size_t i = 0; i < n; i++)
			if (vals[i].has_pos && vals[i].v > 0)
				fpref_golden_svg_rect(&s, fpref_golden_svg_map(&logs, vals[i].pos) - 0.75, 246, 1.5, 24,
					 class_colour(vals[i].cls, vals[i].bits == maxbits), "value-log", NULL);
		fpref_golden_svg_group_end(&s);
		nt = log_ticks(vals, n, pmin, pmax, ticks, labels, buf);
		fpref_golden_svg_axis(&s, true, &logs, 276, ticks, labels, nt, "|value| (log2, binades)");
	}
	/* 3: the spacing as a step plot over the log2 view */
	if (any_pos) {
		struct fpref_svg_scale us = { umin - 0.5, umax + 0.5, 584, 360 };
		fpref_golden_svg_text(&s, 70, 348, "panel", "start", "Spacing (ulp) between neighbouring values: a step plot");
		double px[2 * NL_MAX], py[2 * NL_MAX];
		int np = 0;
		for (size_t i = 0; i < n && np + 2 <= 2 * NL_MAX; i++) {
			if (!vals[i].has_pos || vals[i].v <= 0)
				continue;
			double x0 = fpref_golden_svg_map(&logs, vals[i].pos);
			size_t j = i + 1;
			while (j < n && !(vals[j].has_pos && vals[j].v > 0))
				j++;
			double x1 = j < n ? fpref_golden_svg_map(&logs, vals[j].pos) : x0;
			px[np] = x0;
			py[np++] = fpref_golden_svg_map(&us, vals[i].ulp);
			px[np] = x1;
			py[np++] = fpref_golden_svg_map(&us, vals[i].ulp);
		}
		fpref_golden_svg_polyline(&s, px, py, np, FPREF_SVG_GREEN, 2, "spacing");
		nt = fpref_golden_svg_pow2_ticks(umin, umax, 8, ticks, labels, buf, 64);
		fpref_golden_svg_axis(&s, false, &us, 70, ticks, labels, nt, "ulp");
		struct fpref_svg_scale again = logs;
		nt = log_ticks(vals, n, pmin, pmax, ticks, labels, buf);
		fpref_golden_svg_axis(&s, true, &again, 584, ticks, labels, nt, "|value| (log2, binades)");
	}
	/* the specials, the extremes and the legend */
	char nan[72], inf[72];
	list_codes(&f, codes, ncodes, FPREF_CLASS_NAN, nan, sizeof nan);
	list_codes(&f, codes, ncodes, FPREF_CLASS_INF, inf, sizeof inf);
	struct fpref_unpacked um, un, us;
	fpref_format_max_finite(&f, &um);
	fpref_format_min_normal(&f, &un);
	fpref_format_min_positive(&f, &us);
	char *tm = fpref_ref_unpacked_decimal(&um), *tn = fpref_ref_unpacked_decimal(&un),
	     *ts = fpref_ref_unpacked_decimal(&us);
	char hex[32];
	fpref_format_hex(&f, maxbits, hex, sizeof hex);
	/* exact decimals, but those of the wide formats are hundreds of digits: ~9 digits then */
	char *text[3] = { tm, tn, ts };
	uint64_t least_normal = 0, least = 0;
	fpref_encode(&f, &un, &least_normal);
	fpref_encode(&f, &us, &least);
	uint64_t which[3] = { maxbits, least_normal, least };
	char shortv[3][32];
	const char *show[3];
	for (int i = 0; i < 3; i++) {
		double d = 0;
		show[i] = text[i] ? text[i] : "?";
		if (text[i] && strlen(text[i]) > 24 && fpref_emu_value_f64(&f, which[i], &d) == 0) {
			snprintf(shortv[i], sizeof shortv[i], "~%.9g", d);
			show[i] = shortv[i];
		}
	}
	fpref_golden_svg_text(&s, 70, 168, "note", "start", "max finite %s (%s)", show[0], hex);
	fpref_golden_svg_text(&s, 70, 182, "note", "start", "least normal %s; least positive %s%s", show[1], show[2],
		 f.subnormals ? " (subnormal)" : " (no subnormals)");
	free(tm);
	free(tn);
	free(ts);
	fpref_golden_svg_text(&s, 70, 196, "note", "start", "NaN codes: %s%s", nan, narrow ? "" : " (in the window)");
	fpref_golden_svg_text(&s, 70, 210, "note", "start", "inf codes: %s%s", inf, narrow ? "" : " (in the window)");
	struct fpref_svg_key keys[] = {
		{ FPREF_SVG_BLACK, "zero", false },
		{ FPREF_SVG_VERMILLION, "subnormal", false },
		{ FPREF_SVG_BLUE, "normal", false },
		{ FPREF_SVG_ORANGE, "max finite", false },
		{ FPREF_SVG_GREEN, "spacing (ulp)", true },
	};
	fpref_golden_svg_legend(&s, 720, 164, keys, 5);
	free(codes);
	free(vals);
	return fpref_golden_svg_finish(&s, svg) == 0 ? 0 : FPREF_DRAW_NO_MEMORY;
}
