/* fpref draw numberline: every value of a format on a line (all codes of a
 * format of at most 8 bits, else a window about --at), linear and log2
 * views, the classes coloured, the spacing as a step plot.  One picture
 * kind of fpref draw (tools/cmd_draw.c dispatches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

static const char *const cmd = "draw";

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
static int nl_codes(const struct fpref_format *f, const struct draw_args *a, uint64_t *codes, size_t *n)
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
	if (draw_read_value("--at", a->at ? a->at : "1", &v) != 0)
		return CLI_EXIT_USAGE;
	long window = 16;
	if (a->window) {
		char *end;
		window = strtol(a->window, &end, 10);
		if (!*a->window || *end || window < 1 || window > 200) {
			cli_fail(cmd, "bad --window '%s' (1 to 200)", a->window);
			fpref_ref_value_clear(&v);
			return CLI_EXIT_USAGE;
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
		return DRAW_ORANGE;
	return c == FPREF_CLASS_SUBNORMAL ? DRAW_VERMILLION : c == FPREF_CLASS_ZERO ? DRAW_BLACK : DRAW_BLUE;
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
		cli_hex(f, codes[i], hex, sizeof hex);
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
	int all = draw_pow2_ticks(lo, hi, 10, ticks, labels, buf, 64), nt = 0;
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

int draw_numberline(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2) {
		cli_fail(cmd, "numberline needs one FMT, e.g. fpref draw numberline e4m3 --out-file e4m3.svg");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format f;
	if (cli_parse_format(cmd, o->positional[1], &f) != 0)
		return CLI_EXIT_USAGE;
	double rlo = 0, rhi = 0;
	if (a->range && parse_range(a->range, &rlo, &rhi) != 0) {
		cli_fail(cmd, "bad --range '%s' (LO:HI, two numbers, LO <= HI)", a->range);
		return CLI_EXIT_USAGE;
	}
	bool narrow = fpref_format_container_bits(&f) <= 8;
	if (!narrow && a->range) {
		cli_fail(cmd, "--range is for formats of at most 8 bits; %s is drawn as a window (--at, --window)", f.name);
		return CLI_EXIT_USAGE;
	}
	if (narrow && (a->at || a->window)) {
		cli_fail(cmd, "--at and --window are for formats wider than 8 bits: every value of %s is drawn", f.name);
		return CLI_EXIT_USAGE;
	}
	uint64_t *codes = calloc(NL_MAX, sizeof *codes);
	struct nl_value *vals = calloc(NL_MAX, sizeof *vals);
	size_t ncodes = 0, n = 0;
	int status = !codes || !vals ? CLI_EXIT_FAIL : nl_codes(&f, a, codes, &ncodes);
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
		if (a->range && (x->v < rlo || x->v > rhi))
			continue;
		x->has_pos = fpref_emu_binade_position(&f, codes[i], &x->pos) == 0;
		fpref_emu_spacing_log2(&f, codes[i], &x->ulp);
		n++;
	}
	if (n == 0) {
		cli_fail(cmd, "no value of %s lies in --range %s", f.name, a->range);
		free(codes);
		free(vals);
		return CLI_EXIT_USAGE;
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
		snprintf(title, sizeof title, "The values of %s around %s", f.name, a->at ? a->at : "1");
	char fdesc[96];
	fpref_format_descriptor(&f, fdesc, sizeof fdesc);
	snprintf(sub, sizeof sub, "%s; %zu finite codes shown%s", fdesc, n, a->range ? " (--range)" : "");
	struct svg s;
	const char *path = a->out;
	if ((status = svg_begin(&s, cmd, path, 900, 650, title, sub)) != 0) {
		free(codes);
		free(vals);
		return status;
	}
	double ticks[64];
	char *labels[64];
	/* 1: the linear view, one mark per finite code */
	struct draw_scale lin = { vmin, vmax, 90, 840 };
	svg_text(&s, 70, 76, "panel", "start", "Linear scale: one mark per finite code (+0 and -0 both)");
	svg_group(&s, "marks linear");
	for (size_t i = 0; i < n; i++) {
		char hex[32], tip[96];
		cli_hex(&f, vals[i].bits, hex, sizeof hex);
		snprintf(tip, sizeof tip, "%s = %.17g", hex, vals[i].v);
		bool max = vals[i].bits == maxbits || (f.is_signed && vals[i].bits == minmax);
		double x = draw_map(&lin, vals[i].v);
		svg_rect(&s, x - 0.75, max ? 88 : 96, 1.5, max ? 30 : 22, class_colour(vals[i].cls, max), "value", tip);
	}
	svg_group_end(&s);
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
	draw_axis(&s, true, &lin, 120, ticks, labels, nt, "value (linear)");
	if (a->at) { /* the value asked for, where the oracle places it between the ends */
		struct fpref_ref_value at, lo, hi;
		fpref_ref_value_init(&lo);
		fpref_ref_value_init(&hi);
		if (draw_read_value("--at", a->at, &at) == 0) {
			double fr = NAN;
			if (fpref_ref_from_bits(&f, vals[imin].bits, false, &lo) == 0 &&
			    fpref_ref_from_bits(&f, vals[imax].bits, false, &hi) == 0)
				fr = fpref_ref_fraction(lo.x, hi.x, at.x);
			if (fr >= 0 && fr <= 1) {
				struct draw_scale unit = { 0, 1, lin.p0, lin.p1 };
				double px = draw_map(&unit, fr);
				svg_line(&s, px, 90, px, 124, DRAW_VERMILLION, 2, NULL);
				svg_text(&s, px, 88, "note", "middle", "--at %.12s", a->at);
			}
			fpref_ref_value_clear(&at);
		}
		fpref_ref_value_clear(&lo);
		fpref_ref_value_clear(&hi);
	}
	/* 2: the log2 view of the positive values */
	struct draw_scale logs = { pmin, pmax, 70, 860 };
	int bmin = fpref_format_min_exponent(&f);
	if (any_pos) {
		svg_text(&s, 70, 230, "panel", "start", "log2 scale (each binade as wide, linear inside): the positive values");
		double xs = draw_map(&logs, bmin);
		if (xs > 70)
			svg_rect(&s, 70, 240, (xs < 860 ? xs : 860) - 70, 36, "#FBE3D6", "range subnormal", "subnormal range");
		if (xs < 860)
			svg_rect(&s, xs > 70 ? xs : 70, 240, 860 - (xs > 70 ? xs : 70), 36, "#DCEBF5", "range normal",
				 "normal range");
		svg_group(&s, "marks log");
		for (size_t i = 0; i < n; i++)
			if (vals[i].has_pos && vals[i].v > 0)
				svg_rect(&s, draw_map(&logs, vals[i].pos) - 0.75, 246, 1.5, 24,
					 class_colour(vals[i].cls, vals[i].bits == maxbits), "value-log", NULL);
		svg_group_end(&s);
		nt = log_ticks(vals, n, pmin, pmax, ticks, labels, buf);
		draw_axis(&s, true, &logs, 276, ticks, labels, nt, "|value| (log2, binades)");
	}
	/* 3: the spacing as a step plot over the log2 view */
	if (any_pos) {
		struct draw_scale us = { umin - 0.5, umax + 0.5, 584, 360 };
		svg_text(&s, 70, 348, "panel", "start", "Spacing (ulp) between neighbouring values: a step plot");
		double px[2 * NL_MAX], py[2 * NL_MAX];
		int np = 0;
		for (size_t i = 0; i < n && np + 2 <= 2 * NL_MAX; i++) {
			if (!vals[i].has_pos || vals[i].v <= 0)
				continue;
			double x0 = draw_map(&logs, vals[i].pos);
			size_t j = i + 1;
			while (j < n && !(vals[j].has_pos && vals[j].v > 0))
				j++;
			double x1 = j < n ? draw_map(&logs, vals[j].pos) : x0;
			px[np] = x0;
			py[np++] = draw_map(&us, vals[i].ulp);
			px[np] = x1;
			py[np++] = draw_map(&us, vals[i].ulp);
		}
		svg_polyline(&s, px, py, np, DRAW_GREEN, 2, "spacing");
		nt = draw_pow2_ticks(umin, umax, 8, ticks, labels, buf, 64);
		draw_axis(&s, false, &us, 70, ticks, labels, nt, "ulp");
		struct draw_scale again = logs;
		nt = log_ticks(vals, n, pmin, pmax, ticks, labels, buf);
		draw_axis(&s, true, &again, 584, ticks, labels, nt, "|value| (log2, binades)");
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
	cli_hex(&f, maxbits, hex, sizeof hex);
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
	svg_text(&s, 70, 168, "note", "start", "max finite %s (%s)", show[0], hex);
	svg_text(&s, 70, 182, "note", "start", "least normal %s; least positive %s%s", show[1], show[2],
		 f.subnormals ? " (subnormal)" : " (no subnormals)");
	free(tm);
	free(tn);
	free(ts);
	svg_text(&s, 70, 196, "note", "start", "NaN codes: %s%s", nan, narrow ? "" : " (in the window)");
	svg_text(&s, 70, 210, "note", "start", "inf codes: %s%s", inf, narrow ? "" : " (in the window)");
	struct draw_key keys[] = {
		{ DRAW_BLACK, "zero", false },
		{ DRAW_VERMILLION, "subnormal", false },
		{ DRAW_BLUE, "normal", false },
		{ DRAW_ORANGE, "max finite", false },
		{ DRAW_GREEN, "spacing (ulp)", true },
	};
	draw_legend(&s, 720, 164, keys, 5);
	status = svg_end(&s, cmd, path);
	free(codes);
	free(vals);
	return status;
}
