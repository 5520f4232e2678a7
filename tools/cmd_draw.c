/* fpref draw: pictures for teaching and for reports, as SVG.  numberline,
 * rounding and formats are drawn here from the library's figures; gemm,
 * verify, lossscale, quantize and lab run their command with --svg (the
 * same picture a report gives).  tools/draw_svg.c writes the SVG. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

struct draw_args {
	const char *out, *range, *at, *window, *png;
	const char *in, *ks, *size, *dist, *seed; /* promotion */
};

#define D(f) offsetof(struct draw_args, f)

static const struct cli_opt draw_opts[] = {
	{ "--out", CLI_VALUE, "FILE.svg", NULL, "where to write the picture (- for standard output)", D(out), 0 },
	{ "--png", CLI_VALUE, "FILE.png", NULL, "also a PNG, by rsvg-convert where it is installed", D(png), 0 },
	{ "--range", CLI_VALUE, "LO:HI", NULL, "numberline: only the values in [LO, HI]", D(range), 1 },
	{ "--at", CLI_VALUE, "VALUE", "1", "numberline, formats wider than 8 bits: the window's centre", D(at), 1 },
	{ "--window", CLI_VALUE, "N", "16", "numberline, formats wider than 8 bits: values each side of --at", D(window), 1 },
	{ "--in", CLI_VALUE, "FMT", NULL, "promotion: the format of A and B", D(in), 2 },
	{ "--ks", CLI_VALUE, "K,K,...", "128,256,512,1024", "promotion: the depths K (2 to 12); pytorch-tf32: the sizes N (16,32,64)",
	  D(ks), 2 },
	{ "--size", CLI_VALUE, "MxN", "8x8", "promotion: the output's shape", D(size), 2 },
	{ "--dist", CLI_VALUE, "normal|uniform|positive", "positive", "promotion, pytorch-tf32 (normal): the inputs' distribution",
	  D(dist), 2 },
	{ "--seed", CLI_VALUE, "N", "1", "promotion, pytorch-tf32: the inputs' seed", D(seed), 2 },
};

const struct cli_command cli_cmd_draw = {
	.name = "draw",
	.synopsis = "numberline FMT [--range LO:HI] [--at VALUE --window N] --out FILE.svg\n"
		    "       rounding VALUE --to FMT [ENV] --out FILE.svg | formats --out FILE.svg\n"
		    "       promotion --model MODEL --promote NC --in FMT [--ks K,K,..] [--size MxN] --out FILE.svg\n"
		    "       pytorch-tf32 [--ks N,N,..] --out FILE.svg\n"
		    "       gemm|verify|lossscale|quantize|lab --out FILE.svg [that command's options]",
	.summary = "Pictures as SVG (deterministic, text as text, a colour-blind-safe palette): every value of a\n"
		   "format on a line, how one value rounds, the catalogue's range and precision, and the reports of\n"
		   "gemm, verify, lossscale, quantize and lab.",
	.details = "numberline: linear and log2 views, subnormal and normal ranges, max finite, the NaN and inf\n"
		   "codes and the spacing (ulp) as a step plot; formats wider than 8 bits: --window values each side\n"
		   "of --at.  promotion: the error of D = A B against the exact product over K, the model alone and\n"
		   "promoted to FP32 every NC products (DeepSeek-V3's experiment; docs/experiments.md).\n"
		   "pytorch-tf32: PyTorch's TF32 protocol (max |error| / mean |exact|) over N x N x N, the A100's TF32\n"
		   "tensor core against an FP32 fma chain (docs/experiments.md, section 2).  gemm,\n"
		   "verify, lossscale, quantize and lab: the first --out names the picture, the rest is the command's\n"
		   "own (fpref draw gemm --out g.svg --model h100 ... is fpref gemm ... --svg g.svg; fpref draw lab\n"
		   "fp16-gradscaler --compare fp16-noscale --out l.svg is fpref lab ... --svg l.svg).\n"
		   "--png needs rsvg-convert; without it draw says so and exits 1 (the SVG is written).\n",
	.groups = CLI_TO | CLI_ENV | CLI_MODEL,
	.opts = draw_opts,
	.nopts = CLI_NOPTS(draw_opts),
	.max_positional = 2,
	.examples = { "fpref draw numberline e4m3 --out e4m3.svg", "fpref draw rounding 465 --to e4m3 --out r.svg" },
	.run = cmd_draw,
};

static const char *const cmd = "draw";

/* ---- numberline ---- */

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

/* VALUE as the oracle reads it: 0, or CLI_EXIT_USAGE after a message
 * naming what it is (v is cleared then). */
static int read_value(const char *what, const char *text, struct fpref_ref_value *v)
{
	char err[512];
	fpref_ref_value_init(v);
	if (fpref_ref_parse(text, v, err, sizeof err) == 0)
		return 0;
	cli_fail(cmd, "bad %s: %s", what, err);
	fpref_ref_value_clear(v);
	return CLI_EXIT_USAGE;
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
	if (read_value("--at", a->at ? a->at : "1", &v) != 0)
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
	for (size_t i = 0; i < n && used + 24 < len; i++) {
		struct fpref_unpacked u;
		if (fpref_decode(f, codes[i], &u) != FPREF_DECODE_OK || u.cls != cls)
			continue;
		char hex[32];
		cli_hex(f, codes[i], hex, sizeof hex);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", shown ? " " : "", hex);
		shown++;
	}
	if (!shown)
		snprintf(buf, len, "none");
}

static int draw_numberline(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2) {
		cli_fail(cmd, "numberline needs one FMT, e.g. fpref draw numberline e4m3 --out e4m3.svg");
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
	int umin = vals[0].ulp;
	int umax = umin;
	bool any_pos = false;
	for (size_t i = 0; i < n; i++) {
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
	snprintf(sub, sizeof sub, "%s: %d exponent bits, %d mantissa bits, bias %d, specials %s; %zu finite codes shown%s",
		 fdesc, f.exp_bits, f.man_bits, f.bias, fpref_specials_name(f.specials), n, a->range ? " (--range)" : "");
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
	struct draw_scale lin = { vmin, vmax, 70, 860 };
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
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "%.6g", lt[i]);
		nt++;
	}
	draw_axis(&s, true, &lin, 120, ticks, labels, nt, "value (linear)");
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
		int lo = (int)pmin - (pmin < (int)pmin), hi = (int)pmax;
		nt = draw_pow2_ticks(lo, hi, 10, ticks, labels, buf, 64);
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
		int lo = (int)pmin - (pmin < (int)pmin), hi = (int)pmax;
		nt = draw_pow2_ticks(lo, hi, 10, ticks, labels, buf, 64);
		draw_axis(&s, true, &again, 584, ticks, labels, nt, "|value| (log2, binades)");
	}
	/* the specials, the extremes and the legend */
	char nan[256], inf[128];
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
	svg_text(&s, 70, 172, "note", "start", "max finite %s (%s); least normal %s; least positive %s%s", show[0], hex,
		 show[1], show[2], f.subnormals ? " (subnormal)" : " (no subnormals)");
	free(tm);
	free(tn);
	free(ts);
	svg_text(&s, 70, 188, "note", "start", "NaN codes: %s%s", nan, narrow ? "" : " (in the window)");
	svg_text(&s, 70, 204, "note", "start", "inf codes: %s%s", inf, narrow ? "" : " (in the window)");
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

/* ---- rounding ---- */

static const enum fpref_rounding draw_modes[] = { FPREF_RNE, FPREF_RNA, FPREF_RTZ, FPREF_RUP, FPREF_RDN, FPREF_ROD };

/* A label for an mpfr value: up to 12 digits exact, else short. */
static char *value_label(mpfr_srcptr x)
{
	return fpref_ref_readable(x, 12);
}

static int draw_rounding(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2 || !o->have_to) {
		cli_fail(cmd, "rounding needs one VALUE and --to FMT, e.g. fpref draw rounding 465 --to e4m3 --out r.svg");
		return CLI_EXIT_USAGE;
	}
	const struct fpref_format *f = &o->to;
	o->env = cli_target_env(o, f);
	if (o->env.rounding == FPREF_SR && !o->text.sr_bits) {
		cli_fail(cmd, "--round sr needs --sr-bits HEX, W:HEX or seed=N (the random bits decide the rounding)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_ref_value v;
	if (read_value("VALUE", o->positional[1], &v) != 0)
		return CLI_EXIT_USAGE;
	struct fpref_ref_trace t;
	fpref_ref_trace_init(&t);
	uint64_t bits;
	unsigned flags = 0;
	fpref_ref_round(&v, f, &o->env, fpref_env_sr_random(&o->env, 0), &bits, &flags, &t);
	if (!t.bracketed || t.rule == FPREF_RULE_EXACT) {
		cli_fail(cmd, "rounding: %s is %s in %s: nothing to choose between (try fpref explain)", o->positional[1],
			 t.rule == FPREF_RULE_EXACT ? "exact" : "a special or zero", f->name);
		fpref_ref_trace_clear(&t);
		fpref_ref_value_clear(&v);
		return CLI_EXIT_USAGE;
	}
	char title[200], sub[320], envtext[160];
	fpref_env_describe(&o->env, envtext, sizeof envtext);
	snprintf(title, sizeof title, "How %s rounds to %s", o->positional[1], f->name);
	char *ex = v.inexact ? NULL : value_label(v.x);
	snprintf(sub, sizeof sub, "exact input %s%s; environment %s", ex ? ex : o->positional[1],
		 v.inexact ? " (no finite binary form: held to 192 bits, rounded to odd)" : "", envtext);
	free(ex);
	struct svg s;
	int status = svg_begin(&s, cmd, a->out, 900, 540, title, sub);
	if (status) {
		fpref_ref_trace_clear(&t);
		fpref_ref_value_clear(&v);
		return status;
	}
	/* the axis from the neighbour nearer zero (0) to the one farther (1) */
	struct draw_scale sc = { 0, 1, 120, 780 };
	double fx = fpref_ref_fraction(t.lo, t.hi, v.x), fm = fpref_ref_fraction(t.lo, t.hi, t.mid);
	char *llo = value_label(t.lo), *lhi = value_label(t.hi), *lmid = value_label(t.mid);
	char lo_text[160], hi_text[160], hexlo[32], hexhi[32];
	cli_hex(f, t.lo_bits, hexlo, sizeof hexlo);
	cli_hex(f, t.hi_bits, hexhi, sizeof hexhi);
	snprintf(lo_text, sizeof lo_text, "%s%s%s", llo ? llo : "?", t.lo_held ? " = " : " (not in the format)",
		 t.lo_held ? hexlo : "");
	snprintf(hi_text, sizeof hi_text, "%s%s%s", lhi ? lhi : "?", t.hi_held ? " = " : " (not in the format)",
		 t.hi_held ? hexhi : "");
	double ticks[3] = { 0, fm, 1 };
	char *labels[3] = { lo_text, lmid ? lmid : "?", hi_text };
	svg_text(&s, 120, 78, "panel", "start", "The two neighbours on %s's grid, the midpoint, and the exact input", f->name);
	svg_rect(&s, draw_map(&sc, 0) - 2, 96, 4, 44, DRAW_BLUE, "neighbour", "the neighbour nearer zero");
	svg_rect(&s, draw_map(&sc, 1) - 2, 96, 4, 44, t.hi_held ? DRAW_BLUE : DRAW_GREY, "neighbour",
		 "the neighbour farther from zero");
	svg_line(&s, draw_map(&sc, fm), 96, draw_map(&sc, fm), 140, DRAW_GREY, 1.5, "4 3");
	svg_circle(&s, draw_map(&sc, fx), 118, 6, DRAW_VERMILLION, "exact", "the exact input");
	draw_axis(&s, true, &sc, 140, ticks, labels, 3, "nearer zero  <-  magnitude  ->  farther from zero");
	svg_text(&s, draw_map(&sc, fx), 92, "note", "middle", "exact");
	/* where each mode sends it */
	svg_text(&s, 120, 212, "panel", "start", "Where each rounding mode sends it (fpref's oracle, one rounding each)");
	double y = 232;
	for (size_t i = 0; i < sizeof draw_modes / sizeof draw_modes[0]; i++, y += 24) {
		struct fpref_env env = o->env;
		env.rounding = draw_modes[i];
		struct fpref_ref_trace tm;
		fpref_ref_trace_init(&tm);
		uint64_t b;
		unsigned fl = 0;
		fpref_ref_round(&v, f, &env, 0, &b, &fl, &tm);
		bool to_lo = t.lo_held && b == t.lo_bits, to_hi = t.hi_held && b == t.hi_bits;
		char *res = value_label(tm.result);
		char hex[32];
		cli_hex(f, b, hex, sizeof hex);
		svg_text(&s, 112, y + 4, "mode", "end", "%s", fpref_rounding_name(draw_modes[i]));
		double x0 = draw_map(&sc, fx), x1 = draw_map(&sc, to_hi ? 1 : 0);
		const char *c = to_lo ? DRAW_SKY : to_hi ? DRAW_ORANGE : DRAW_PURPLE;
		if (to_lo || to_hi) {
			svg_line(&s, x0, y, x1, y, c, 3, NULL);
			svg_circle(&s, x1, y, 4, c, "destination", NULL);
		} else {
			/* overflow or a special: toward the neighbour beyond the format, then off the grid */
			double xe = draw_map(&sc, 1);
			svg_line(&s, x0, y, xe, y, c, 3, "6 4");
			svg_rect(&s, xe - 4, y - 4, 8, 8, c, "destination", NULL);
		}
		svg_text(&s, 800, y + 4, "note", "start", "%s%s%s", hex, res && mpfr_number_p(tm.result) ? " = " : " (NaN)",
			 res && mpfr_number_p(tm.result) ? res : "");
		free(res);
		fpref_ref_trace_clear(&tm);
	}
	y += 10;
	/* the probability of stochastic rounding and the error */
	svg_text(&s, 120, y, "note", "start",
		 "stochastic rounding (exact): to the farther neighbour with probability %.6g (where the input lies)", fx);
	y += 18;
	if (t.rule == FPREF_RULE_STOCHASTIC) {
		char sr[160];
		gmp_snprintf(sr, sizeof sr, "with --sr-bits: T = %Zd of 2^%u, R = %llu: P(farther) = T/2^%u", t.sr_discarded,
			     t.sr_width, (unsigned long long)t.sr_random, t.sr_width);
		svg_text(&s, 120, y, "note", "start", "%s", sr);
		y += 18;
	}
	char *res = value_label(t.result), *eabs = NULL, *eulp = NULL;
	if (mpfr_number_p(t.err_abs))
		eabs = fpref_ref_short_decimal(t.err_abs, 6);
	if (mpfr_number_p(t.err_ulp))
		eulp = fpref_ref_short_decimal(t.err_ulp, 6);
	char hex[32];
	cli_hex(f, bits, hex, sizeof hex);
	svg_text(&s, 120, y, "result", "start", "%s: the result is %s%s%s; error (result - exact) %s%s%s", envtext, hex,
		 mpfr_number_p(t.result) ? " = " : " (NaN)", mpfr_number_p(t.result) && res ? res : "",
		 eabs ? eabs : "n/a", eulp ? ", in ulps " : "", eulp ? eulp : "");
	free(res);
	free(eabs);
	free(eulp);
	struct draw_key keys[] = {
		{ DRAW_BLUE, "a neighbour on the grid", false },
		{ DRAW_GREY, "midpoint / outside the format", true },
		{ DRAW_VERMILLION, "the exact input", false },
		{ DRAW_SKY, "rounds to the nearer-zero neighbour", true },
		{ DRAW_ORANGE, "rounds to the farther neighbour", true },
		{ DRAW_PURPLE, "neither: overflow or a special", false },
	};
	draw_legend(&s, 620, y + 16, keys, 6);
	free(llo);
	free(lhi);
	free(lmid);
	status = svg_end(&s, cmd, a->out);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return status;
}

/* ---- formats: range against precision ---- */

/* The log2 place of a positive binary64 (library), for the scatter's axes. */
static double log_place(double x)
{
	uint64_t b;
	double p = 0;
	memcpy(&b, &x, sizeof b);
	fpref_emu_binade_position(fpref_format_get(FPREF_FORMAT_FLOAT64), b, &p);
	return p;
}

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

static int draw_formats(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1) {
		cli_fail(cmd, "formats takes no FMT: it draws the whole catalogue (fpref formats)");
		return CLI_EXIT_USAGE;
	}
	size_t n = fpref_format_count();
	double h = 110 + 22.0 * (double)n + 330;
	struct svg s;
	int status = svg_begin(&s, cmd, a->out, 900, h, "Range and precision of the catalogue",
			       "Each bar: least positive to max finite on a log2 scale (subnormals lighter); "
			       "p = precision in bits");
	if (status)
		return status;
	/* the axis shows 2^-160 .. 2^140; float64's bar runs off both ends */
	const int lo = -160, hi = 140;
	struct draw_scale sc = { lo, hi, 220, 860 };
	double ticks[32];
	char *labels[32], buf[32 * 16];
	int nt = 0;
	for (int b = lo; b <= hi; b += 20, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "2^%d", b);
	}
	double y = 70;
	svg_group(&s, "bars");
	for (size_t i = 0; i < n; i++, y += 22) {
		const struct fpref_format *f = fpref_format_at(i);
		double top, sub, norm = fpref_format_min_exponent(f);
		if (format_extent(f, &sub, &top) != 0)
			continue;
		double x0 = draw_map(&sc, sub < lo ? lo : sub), xn = draw_map(&sc, norm < lo ? lo : norm),
		       x1 = draw_map(&sc, top > hi ? hi : top);
		svg_text(&s, 212, y + 12, "format", "end", "%zu  %s  p=%d", i + 1, f->name, fpref_format_precision(f));
		char tip[160];
		snprintf(tip, sizeof tip, "%s: least positive 2^%.0f, least normal 2^%d, max finite below 2^%d", f->name,
			 sub, fpref_format_min_exponent(f), fpref_format_max_exponent(f) + 1);
		if (xn > x0)
			svg_rect(&s, x0, y + 2, xn - x0, 14, DRAW_SKY, "subnormal", tip);
		svg_rect(&s, xn, y + 2, x1 - xn, 14, DRAW_BLUE, "normal", tip);
		if (sub < lo || top > hi)
			svg_text(&s, x0 + 6, y + 13, "inside", "start", "runs off the axis: 2^%.0f to below 2^%d", sub,
				 fpref_format_max_exponent(f) + 1);
	}
	svg_group_end(&s);
	draw_axis(&s, true, &sc, y + 4, ticks, labels, nt, "|value| (log2)");
	/* the triangle: precision against dynamic range, both log2 */
	double top0 = y + 80, bottom = top0 + 220;
	svg_text(&s, 220, top0 - 18, "panel", "start",
		 "Precision against dynamic range (binades from least positive to max finite), both on log2 axes");
	struct draw_scale xr = { 1, 12, 220, 860 }, yp = { 0, 6, bottom, top0 };
	svg_group(&s, "points");
	for (size_t i = 0; i < n; i++) {
		const struct fpref_format *f = fpref_format_at(i);
		double top, sub;
		if (format_extent(f, &sub, &top) != 0)
			continue;
		double px = draw_map(&xr, log_place(top - sub)), py = draw_map(&yp, log_place(fpref_format_precision(f)));
		svg_circle(&s, px, py, 4, f->subnormals ? DRAW_VERMILLION : DRAW_GREEN, "format-point", f->name);
		svg_text(&s, px + 5 + 12.0 * (double)(i % 2), py - 5, "tick", "start", "%zu", i + 1);
	}
	svg_group_end(&s);
	nt = 0;
	for (int b = 1; b <= 12; b++, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "%d", 1 << b);
	}
	draw_axis(&s, true, &xr, bottom, ticks, labels, nt, "dynamic range (binades, log2 axis)");
	nt = 0;
	for (int b = 0; b <= 6; b++, nt++) {
		ticks[nt] = b;
		labels[nt] = buf + 16 * nt;
		snprintf(labels[nt], 16, "%d", 1 << b);
	}
	draw_axis(&s, false, &yp, 220, ticks, labels, nt, "precision (bits, log2 axis)");
	struct draw_key keys[] = {
		{ DRAW_BLUE, "normal range", false },
		{ DRAW_SKY, "subnormal range", false },
		{ DRAW_VERMILLION, "point: has subnormals", false },
		{ DRAW_GREEN, "point: no subnormals", false },
	};
	draw_legend(&s, 250, top0, keys, 4);
	svg_text(&s, 250, top0 + 76, "note", "start", "points numbered as the rows above");
	return svg_end(&s, cmd, a->out);
}

/* ---- promotion: error against K, alone and promoted ---- */

#define KS_MAX 12

static int parse_ks(const char *text, size_t *ks, int *n)
{
	*n = 0;
	for (const char *p = text; *p;) {
		char *end;
		unsigned long k = strtoul(p, &end, 10);
		if (end == p || k < 1 || k > 1 << 16 || *n == KS_MAX || (*end && *end != ',') || *p == '-')
			return -1;
		ks[(*n)++] = k;
		p = *end ? end + 1 : end;
	}
	return *n >= 2 ? 0 : -1;
}

/* --dist and --seed of the sweeps (each keeps its default when not given).
 * 0, or -1 after a message. */
static int parse_inputs(const struct draw_args *a, enum fpref_dist *dist, unsigned long long *seed)
{
	char *end;
	if (a->dist && fpref_emu_dist_parse(a->dist, dist) != 0) {
		cli_fail(cmd, "bad --dist '%s' (normal, uniform or positive)", a->dist);
		return -1;
	}
	if (a->seed && (*seed = strtoull(a->seed, &end, 10), !*a->seed || *end || *a->seed == '-')) {
		cli_fail(cmd, "bad --seed '%s' (an unsigned integer)", a->seed);
		return -1;
	}
	return 0;
}

/* One K: generated A and B (as fpref gemm --size generates them), D
 * through the model, the summary of its errors.  0 or an exit status. */
static int sweep_run(const struct fpref_accum_model *m, const struct fpref_format *src, const struct fpref_format *in,
		     const struct fpref_format *out, size_t M, size_t N, size_t K, enum fpref_dist dist,
		     unsigned long long seed, const struct fpref_env *env, struct fpref_gemm_summary *sum)
{
	uint64_t *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B), *D = malloc(M * N * sizeof *D);
	uint64_t *Aq = malloc(M * K * sizeof *Aq), *Bq = malloc(K * N * sizeof *Bq);
	int status = 0;
	struct fpref_gemm_stats st = { 0 };
	if (!A || !B || !D || !Aq || !Bq) {
		cli_fail(cmd, "out of memory");
		status = CLI_EXIT_FAIL;
	} else {
		/* as fpref gemm --size [--source src] makes them: src values, rounded to in (nearest even) */
		struct fpref_env rne;
		fpref_env_default(&rne);
		fpref_emu_random(src, &rne, dist, 0, seed, 0, M * K, A);
		fpref_emu_random(src, &rne, dist, 0, seed, M * K, K * N, B);
		memcpy(Aq, A, M * K * sizeof *A);
		memcpy(Bq, B, K * N * sizeof *B);
		bool same = fpref_format_same(src, in);
		if (!same) {
			cli_convert_values(src, Aq, M * K, in, &rne);
			cli_convert_values(src, Bq, K * N, in, &rne);
		}
		struct fpref_gemm_problem p = { M, N, K, src, in, out, A, B, same ? A : Aq, same ? B : Bq, NULL, m, env, 1, NULL };
		if (fpref_golden_gemm(&p, D, &st, NULL, NULL) != 0) {
			cli_fail(cmd, "the model cannot compute these inputs");
			status = CLI_EXIT_USAGE;
		}
		fpref_golden_gemm_summarize(&st, sum);
	}
	free(A);
	free(B);
	free(Aq);
	free(Bq);
	free(D);
	return status;
}

/* Two series of errors (the library's summaries) over a list of sizes,
 * both axes log2. */
struct two_series {
	const char *title, *sub;
	const size_t *x;
	int n;
	const double *a, *b; /* vermillion circles, blue squares */
	const char *key_a, *key_b, *xlabel, *ylabel;
};

static int plot_two(const char *path, const struct two_series *t)
{
	double kx[KS_MAX], ya[KS_MAX], yb[KS_MAX], lo = 0, hi = 0;
	for (int i = 0; i < t->n; i++) {
		kx[i] = log_place((double)t->x[i]);
		/* an error of zero sits at the axis' foot (-60: below any of these) */
		ya[i] = t->a[i] > 0 ? log_place(t->a[i]) : -60;
		yb[i] = t->b[i] > 0 ? log_place(t->b[i]) : -60;
		double l = ya[i] < yb[i] ? ya[i] : yb[i], h = ya[i] > yb[i] ? ya[i] : yb[i];
		lo = i == 0 || l < lo ? l : lo;
		hi = i == 0 || h > hi ? h : hi;
	}
	int blo = (int)lo - (lo < (int)lo) - 1, bhi = (int)hi + 1;
	struct svg s;
	int status = svg_begin(&s, cmd, path, 900, 520, t->title, t->sub);
	if (status)
		return status;
	struct draw_scale xs = { kx[0], kx[t->n - 1], 100, 820 }, ys = { blo, bhi, 420, 80 };
	double px[KS_MAX], pa[KS_MAX], pb[KS_MAX];
	for (int i = 0; i < t->n; i++) {
		px[i] = draw_map(&xs, kx[i]);
		pa[i] = draw_map(&ys, ya[i]);
		pb[i] = draw_map(&ys, yb[i]);
	}
	svg_polyline(&s, px, pa, t->n, DRAW_VERMILLION, 2, "series a");
	svg_polyline(&s, px, pb, t->n, DRAW_BLUE, 2, "series b");
	svg_group(&s, "points");
	for (int i = 0; i < t->n; i++) {
		char tip[256];
		snprintf(tip, sizeof tip, "%zu: %s %s, %s %s", t->x[i], t->key_a, cli_text_num(t->a[i], 4).text, t->key_b,
			 cli_text_num(t->b[i], 4).text);
		svg_circle(&s, px[i], pa[i], 4, DRAW_VERMILLION, "point", tip);
		svg_rect(&s, px[i] - 4, pb[i] - 4, 8, 8, DRAW_BLUE, "point", tip);
	}
	svg_group_end(&s);
	double ticks[KS_MAX + 16];
	char *labels[KS_MAX + 16], buf[(KS_MAX + 16) * 16];
	for (int i = 0; i < t->n; i++) {
		ticks[i] = kx[i];
		labels[i] = buf + 16 * i;
		snprintf(labels[i], 16, "%zu", t->x[i]);
	}
	draw_axis(&s, true, &xs, 420, ticks, labels, t->n, t->xlabel);
	int nt = draw_pow2_ticks(blo, bhi, 8, ticks, labels, buf, 16);
	draw_axis(&s, false, &ys, 100, ticks, labels, nt, t->ylabel);
	struct draw_key keys[] = { { DRAW_VERMILLION, t->key_a, true }, { DRAW_BLUE, t->key_b, true } };
	draw_legend(&s, 120, 470, keys, 2);
	return svg_end(&s, cmd, path);
}

static int draw_promotion(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1 || !a->in || !o->model.model || !o->model.promote) {
		cli_fail(cmd, "promotion needs --model MODEL --promote NC --in FMT, e.g. fpref draw promotion --model h100 "
			 "--promote 128 --in e4m3 --out p.svg");
		return CLI_EXIT_USAGE;
	}
	size_t ks[KS_MAX], M = 8, N = 8;
	int nk = 0;
	if (parse_ks(a->ks ? a->ks : "128,256,512,1024", ks, &nk) != 0) {
		cli_fail(cmd, "bad --ks '%s' (2 to %d depths, each 1..65536, comma-separated)", a->ks, KS_MAX);
		return CLI_EXIT_USAGE;
	}
	unsigned long m = 0, n = 0;
	char tail;
	if (a->size && (sscanf(a->size, "%lux%lu%c", &m, &n, &tail) != 2 || !m || !n || m > 256 || n > 256)) {
		cli_fail(cmd, "bad --size '%s' (MxN, each 1..256)", a->size);
		return CLI_EXIT_USAGE;
	}
	if (a->size) {
		M = m;
		N = n;
	}
	enum fpref_dist dist = FPREF_DIST_POSITIVE;
	unsigned long long seed = 1;
	if (parse_inputs(a, &dist, &seed) != 0)
		return CLI_EXIT_USAGE;
	struct fpref_format in, out = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_accum_model promoted, alone;
	struct cli_model_text plain = o->model;
	plain.promote = NULL;
	if (cli_parse_format(cmd, a->in, &in) != 0 || cli_model_resolve(cmd, &o->model, &in, &out, &promoted) != 0 ||
	    cli_model_resolve(cmd, &plain, &in, &out, &alone) != 0)
		return CLI_EXIT_USAGE;
	o->env = cli_target_env(o, &out);
	struct fpref_gemm_summary sa[KS_MAX], sp[KS_MAX];
	for (int i = 0; i < nk; i++) {
		int status = sweep_run(&alone, &in, &in, &out, M, N, ks[i], dist, seed, &o->env, &sa[i]);
		if (!status)
			status = sweep_run(&promoted, &in, &in, &out, M, N, ks[i], dist, seed, &o->env, &sp[i]);
		if (status)
			return status;
	}
	double ea[KS_MAX], ep[KS_MAX];
	for (int i = 0; i < nk; i++) {
		ea[i] = sa[i].normwise_rel;
		ep[i] = sp[i].normwise_rel;
	}
	char title[200], sub[320], desc[256], ka[64], kp[64];
	snprintf(title, sizeof title, "Error against K: %s alone and promoted every %s products", o->model.model,
		 o->model.promote);
	snprintf(sub, sizeof sub, "%zux%zu outputs, %s inputs (%s, seed %llu) -> float32; %s", M, N, in.name,
		 fpref_emu_dist_name(dist), seed, cli_model_describe(&alone, out.name, desc, sizeof desc));
	snprintf(ka, sizeof ka, "%s alone", o->model.model);
	snprintf(kp, sizeof kp, "promoted to FP32 every %s", o->model.promote);
	struct two_series t = { title, sub, ks, nk, ea, ep, ka, kp, "K (products per output, log2 axis)",
				"||D - exact||_F / ||exact||_F" };
	return plot_two(a->out, &t);
}

/* ---- pytorch-tf32: PyTorch's protocol, TF32 tensor cores against FP32 ---- */

static int draw_tf32(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1) {
		cli_fail(cmd, "pytorch-tf32 takes no positional argument (sizes by --ks)");
		return CLI_EXIT_USAGE;
	}
	size_t ns[KS_MAX];
	int n = 0;
	if (parse_ks(a->ks ? a->ks : "16,32,64", ns, &n) != 0) {
		cli_fail(cmd, "bad --ks '%s' (2 to %d sizes N of N x N x N, comma-separated)", a->ks, KS_MAX);
		return CLI_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++)
		if (ns[i] > 512) {
			cli_fail(cmd, "pytorch-tf32: --ks %zu: at most 512 (the exact product of every element is computed)", ns[i]);
			return CLI_EXIT_USAGE;
		}
	unsigned long long seed = 1;
	enum fpref_dist dist = FPREF_DIST_NORMAL;
	if (parse_inputs(a, &dist, &seed) != 0)
		return CLI_EXIT_USAGE;
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32), *tf32 = fpref_format_get(FPREF_FORMAT_TF32);
	struct cli_model_text ta = { .model = "a100" }, tb = { .model = "fma-chain" };
	struct fpref_accum_model ma, mb;
	if (cli_model_resolve(cmd, &ta, tf32, f32, &ma) != 0 || cli_model_resolve(cmd, &tb, f32, f32, &mb) != 0)
		return CLI_EXIT_FAIL;
	struct fpref_env env;
	fpref_env_default(&env);
	double ea[KS_MAX], eb[KS_MAX];
	for (int i = 0; i < n; i++) {
		struct fpref_gemm_summary sa, sb;
		int status = sweep_run(&ma, f32, tf32, f32, ns[i], ns[i], ns[i], dist, seed, &env, &sa);
		if (!status)
			status = sweep_run(&mb, f32, f32, f32, ns[i], ns[i], ns[i], dist, seed, &env, &sb);
		if (status)
			return status;
		ea[i] = sa.max_abs_over_mean_exact;
		eb[i] = sb.max_abs_over_mean_exact;
	}
	char sub[200];
	snprintf(sub, sizeof sub, "N x N x N, FP32 inputs (%s, seed %llu), scored against the exact product of the FP32 "
		 "values", fpref_emu_dist_name(dist), seed);
	struct two_series t = { "PyTorch's TF32 protocol: max |error| / mean |exact|", sub, ns, n, ea, eb,
				"TF32 (a100 tensor core, inputs rounded to tf32)", "FP32 (fma chain)",
				"N (log2 axis)", "max |D - exact| / mean |exact|" };
	return plot_two(a->out, &t);
}

/* ---- the reports of other commands: their --svg ---- */

static int delegate(const struct cli_command *c, int argc, char **argv)
{
	/* argv: the options after KIND; the first --out (or --out=FILE) names the picture */
	char **args = calloc((size_t)argc + 2, sizeof *args);
	if (!args) {
		cli_fail(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	const char *out = NULL;
	int n = 0;
	for (int i = 0; i < argc; i++) {
		if (!out && strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (!out && strncmp(argv[i], "--out=", 6) == 0)
			out = argv[i] + 6;
		else
			args[n++] = argv[i];
	}
	if (!out) {
		free(args);
		cli_fail(cmd, "%s needs --out FILE.svg (the first --out names the picture)", c->name);
		return CLI_EXIT_USAGE;
	}
	args[n++] = "--svg";
	args[n++] = (char *)out;
	int status = c->run(n, args);
	free(args);
	return status;
}

static int write_png(const char *svg, const char *png)
{
	if (system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
		cli_fail(cmd, "--png needs rsvg-convert (librsvg), which is not installed; the SVG %s is written", svg);
		return CLI_EXIT_FAIL;
	}
	if (strchr(svg, '\'') || strchr(png, '\'')) {
		cli_fail(cmd, "--png: a file name with a quote is refused");
		return CLI_EXIT_USAGE;
	}
	char line[4200];
	snprintf(line, sizeof line, "rsvg-convert -f png -o '%s' '%s'", png, svg);
	if (system(line) != 0) {
		cli_fail(cmd, "rsvg-convert failed on %s", svg);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cmd_draw(int argc, char **argv)
{
	static const struct {
		const char *kind;
		const struct cli_command *c;
	} reports[] = {
		{ "gemm", &cli_cmd_gemm },
		{ "verify", &cli_cmd_verify },
		{ "lossscale", &cli_cmd_lossscale },
		{ "quantize", &cli_cmd_quantize },
		{ "lab", &cli_cmd_lab },
	};
	if (argc >= 1)
		for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++)
			if (strcmp(argv[0], reports[i].kind) == 0)
				return delegate(reports[i].c, argc - 1, argv + 1);
	struct draw_args a = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_draw, argc, argv, &o, &a);
	if (r)
		return r;
	if (o.npositional < 1) {
		cli_fail(cmd, "needs a KIND: numberline, rounding, formats, promotion, pytorch-tf32, gemm, verify, lossscale, "
			 "quantize or lab");
		return CLI_EXIT_USAGE;
	}
	const char *kind = o.positional[0];
	bool nl = strcmp(kind, "numberline") == 0, rd = strcmp(kind, "rounding") == 0, fm = strcmp(kind, "formats") == 0,
	     pr = strcmp(kind, "promotion") == 0, tf = strcmp(kind, "pytorch-tf32") == 0;
	if (!nl && !rd && !fm && !pr && !tf) {
		cli_fail(cmd, "unknown KIND '%s' (numberline, rounding, formats, promotion, pytorch-tf32, gemm, verify, lossscale, "
			 "quantize, lab)", kind);
		return CLI_EXIT_USAGE;
	}
	if (!a.out) {
		cli_fail(cmd, "%s needs --out FILE.svg", kind);
		return CLI_EXIT_USAGE;
	}
	if (!nl && (a.range || a.at || a.window)) {
		cli_fail(cmd, "--range, --at and --window are numberline's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!rd && o.have_to) {
		cli_fail(cmd, "--to is rounding's option, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!rd && !pr && (o.text.round || o.text.sat || o.text.overflow || o.text.ftz || o.text.daz ||
			   o.text.tininess || o.text.sr_bits || o.text.profile)) {
		cli_fail(cmd, "the environment is for rounding and promotion, not %s", kind);
		return CLI_EXIT_USAGE;
	}
	const struct cli_model_text *mt = &o.model;
	if (!pr && (mt->model || mt->block || mt->frac || mt->floor || mt->final || mt->promote || a.in || a.size)) {
		cli_fail(cmd, "the model, --in and --size are promotion's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!pr && !tf && (a.ks || a.dist || a.seed)) {
		cli_fail(cmd, "--ks, --dist and --seed are promotion's and pytorch-tf32's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (a.png && strcmp(a.out, "-") == 0) {
		cli_fail(cmd, "--png needs --out FILE.svg (a file, not -)");
		return CLI_EXIT_USAGE;
	}
	int status = nl ? draw_numberline(&o, &a)
		     : rd ? draw_rounding(&o, &a)
		     : pr ? draw_promotion(&o, &a)
		     : tf ? draw_tf32(&o, &a)
			  : draw_formats(&o, &a);
	if (!status && a.png)
		status = write_png(a.out, a.png);
	return status;
}
