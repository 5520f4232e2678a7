/* fpref draw rounding: how one value rounds to a format: its two
 * neighbours on the grid, the midpoint, where each rounding mode sends it,
 * stochastic rounding's probability and the result's error, from the
 * oracle's trace (fpref_golden_draw.h); and the VALUE reading the
 * kinds share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h"
#include "fpref_golden_draw.h"
#include "fpref_golden_svg.h"
#include "fpref_ref.h"

static const enum fpref_rounding draw_modes[] = { FPREF_RNE, FPREF_RNA, FPREF_RTZ, FPREF_RUP, FPREF_RDN, FPREF_ROD };

/* A label for an mpfr value: up to 12 digits exact, else short. */
static char *value_label(mpfr_srcptr x)
{
	return fpref_ref_readable(x, 12);
}

/* The VALUE as typed, cut to fit a line of the picture: a decimal may
 * have any number of digits (the exact value is in fpref explain). */
static const char *typed(const char *text, char *buf, size_t len)
{
	if (strlen(text) <= 40)
		return text;
	snprintf(buf, len, "%.36s...", text);
	return buf;
}

int fpref_golden_draw_read_value(const char *what, const char *text, struct fpref_ref_value *v, char *err,
				 size_t errlen)
{
	char why[512];
	fpref_ref_value_init(v);
	if (fpref_ref_parse(text, v, why, sizeof why) == 0)
		return 0;
	snprintf(err, errlen, "bad %s: %s", what, why);
	fpref_ref_value_clear(v);
	return -1;
}

int fpref_golden_draw_rounding(const char *value, const struct fpref_format *f, const struct fpref_env *env, char **svg,
			       char *err, size_t errlen)
{
	*svg = NULL;
	struct fpref_ref_value v;
	if (fpref_golden_draw_read_value("VALUE", value, &v, err, errlen) != 0)
		return FPREF_DRAW_BAD_ARGS;
	struct fpref_ref_trace t;
	fpref_ref_trace_init(&t);
	uint64_t bits;
	unsigned flags = 0;
	fpref_ref_round(&v, f, env, fpref_env_sr_random(env, 0), &bits, &flags, &t);
	if (!t.bracketed || t.rule == FPREF_RULE_EXACT) {
		snprintf(err, errlen, "rounding: %s is %s in %s: nothing to choose between (try fpref explain)", value,
			 t.rule == FPREF_RULE_EXACT ? "exact" : "a special or zero", f->name);
		fpref_ref_trace_clear(&t);
		fpref_ref_value_clear(&v);
		return FPREF_DRAW_BAD_ARGS;
	}
	char title[200], sub[320], envtext[160], cut[48];
	fpref_env_describe(env, envtext, sizeof envtext);
	const char *shown = typed(value, cut, sizeof cut);
	snprintf(title, sizeof title, "How %s rounds to %s", shown, f->name);
	char *ex = v.inexact ? NULL : value_label(v.x);
	snprintf(sub, sizeof sub, "exact input %s%s", ex ? ex : shown,
		 v.inexact ? " (no finite binary form: held to 192 bits, rounded to odd)" : "");
	free(ex);
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 540, title, sub);
	fpref_golden_svg_text(&s, 16, 58, "subtitle", "start", "environment %s", envtext);
	/* the axis from the neighbour nearer zero (0) to the one farther (1);
	 * right of it, room for each mode's result.  Beyond the format's top,
	 * the axis is that top and the input is drawn past a break. */
	double p_fx = fpref_ref_fraction(t.lo, t.hi, v.x);
	/* 465 to FP4: its neighbours 384 and 512 are no FP4 values */
	bool beyond = !t.lo_held && fpref_ref_format_top(f, v.x, t.lo, t.hi, t.mid, &t.lo_bits, &t.hi_bits) == 0;
	if (beyond)
		t.lo_held = t.hi_held = true;
	struct fpref_svg_scale sc = { 0, 1, 130, beyond ? 430 : 530 };
	double fx = beyond ? 1.2 : p_fx, fm = fpref_ref_fraction(t.lo, t.hi, t.mid);
	char *llo = value_label(t.lo), *lhi = value_label(t.hi), *lmid = value_label(t.mid);
	char hexlo[32], hexhi[32];
	fpref_format_hex(f, t.lo_bits, hexlo, sizeof hexlo);
	fpref_format_hex(f, t.hi_bits, hexhi, sizeof hexhi);
	double ticks[3] = { 0, fm, 1 };
	char *labels[3] = { llo ? llo : "?", lmid ? lmid : "?", lhi ? lhi : "?" };
	if (beyond)
		fpref_golden_svg_text(&s, 120, 78, "panel", "start", "The top of %s's grid: its two largest values, and the exact input beyond",
			 f->name);
	else
		fpref_golden_svg_text(&s, 120, 78, "panel", "start", "The two neighbours on %s's grid, the midpoint, and the exact input",
			 f->name);
	fpref_golden_svg_rect(&s, fpref_golden_svg_map(&sc, 0) - 2, 96, 4, 44, FPREF_SVG_BLUE, "neighbour", "the neighbour nearer zero");
	fpref_golden_svg_rect(&s, fpref_golden_svg_map(&sc, 1) - 2, 96, 4, 44, t.hi_held ? FPREF_SVG_BLUE : FPREF_SVG_GREY, "neighbour",
		 "the neighbour farther from zero");
	fpref_golden_svg_line(&s, fpref_golden_svg_map(&sc, fm), 96, fpref_golden_svg_map(&sc, fm), 140, FPREF_SVG_GREY, 1.5, "4 3");
	fpref_golden_svg_circle(&s, fpref_golden_svg_map(&sc, fx), 118, 6, FPREF_SVG_VERMILLION, "exact", "the exact input");
	fpref_golden_svg_axis(&s, true, &sc, 140, ticks, labels, 3, "nearer zero  <-  magnitude  ->  farther from zero");
	/* each neighbour's code, under its value */
	fpref_golden_svg_text(&s, fpref_golden_svg_map(&sc, 0), 190, "note", "middle", "%s%s", t.lo_held ? "= " : "not in the format",
		 t.lo_held ? hexlo : "");
	fpref_golden_svg_text(&s, fpref_golden_svg_map(&sc, 1), 190, "note", "middle", "%s%s", t.hi_held ? "= " : "not in the format",
		 t.hi_held ? hexhi : "");
	fpref_golden_svg_text(&s, fpref_golden_svg_map(&sc, fx), 92, "note", "middle", "%s", beyond ? "exact, beyond max finite" : "exact");
	if (beyond) { /* the break in the axis */
		double xb = fpref_golden_svg_map(&sc, 1.1);
		fpref_golden_svg_line(&s, xb - 6, 146, xb, 134, FPREF_SVG_BLACK, 1, NULL);
		fpref_golden_svg_line(&s, xb, 146, xb + 6, 134, FPREF_SVG_BLACK, 1, NULL);
	}
	/* where each mode sends it */
	fpref_golden_svg_text(&s, 120, 212, "panel", "start", "Where each rounding mode sends it (fpref's oracle, one rounding each)");
	double y = 232;
	for (size_t i = 0; i < sizeof draw_modes / sizeof draw_modes[0]; i++, y += 24) {
		struct fpref_env mode_env = *env;
		mode_env.rounding = draw_modes[i];
		struct fpref_ref_trace tm;
		fpref_ref_trace_init(&tm);
		uint64_t b;
		unsigned fl = 0;
		fpref_ref_round(&v, f, &mode_env, 0, &b, &fl, &tm);
		bool to_lo = t.lo_held && b == t.lo_bits, to_hi = t.hi_held && b == t.hi_bits;
		char *res = value_label(tm.result);
		char hex[32];
		fpref_format_hex(f, b, hex, sizeof hex);
		fpref_golden_svg_text(&s, 112, y + 4, "mode", "end", "%s", fpref_rounding_name(draw_modes[i]));
		double x0 = fpref_golden_svg_map(&sc, fx), x1 = fpref_golden_svg_map(&sc, to_hi ? 1 : 0);
		const char *c = to_lo ? FPREF_SVG_SKY : to_hi ? FPREF_SVG_ORANGE : FPREF_SVG_PURPLE;
		if (to_lo || to_hi) {
			fpref_golden_svg_line(&s, x0, y, x1, y, c, 3, NULL);
			fpref_golden_svg_circle(&s, x1, y, 4, c, "destination", NULL);
		} else {
			/* overflow or a special: toward the neighbour beyond the format, then off the grid */
			double xe = fpref_golden_svg_map(&sc, beyond ? 1.33 : 1);
			fpref_golden_svg_line(&s, x0, y, xe, y, c, 3, "6 4");
			fpref_golden_svg_rect(&s, xe - 4, y - 4, 8, 8, c, "destination", NULL);
		}
		fpref_golden_svg_text(&s, 550, y + 4, "note", "start", "%s%s%s", hex, res && mpfr_number_p(tm.result) ? " = " : " (NaN)",
			 res && mpfr_number_p(tm.result) ? res : "");
		free(res);
		fpref_ref_trace_clear(&tm);
	}
	y += 10;
	/* the probability of stochastic rounding and the error */
	if (beyond)
		fpref_golden_svg_text(&s, 120, y, "note", "start",
			 "beyond max finite: each mode gives what the format does there (saturate, NaN or inf)");
	else
		fpref_golden_svg_text(&s, 120, y, "note", "start",
			 "stochastic rounding (exact): to the farther neighbour with probability %.6g (where the input lies)",
			 fx);
	y += 18;
	if (t.rule == FPREF_RULE_STOCHASTIC) {
		char sr[160];
		gmp_snprintf(sr, sizeof sr, "with --sr-bits: T = %Zd of 2^%u, R = %llu: P(farther) = T/2^%u", t.sr_discarded,
			     t.sr_width, (unsigned long long)t.sr_random, t.sr_width);
		fpref_golden_svg_text(&s, 120, y, "note", "start", "%s", sr);
		y += 18;
	}
	char *res = value_label(t.result), *eabs = NULL, *eulp = NULL;
	if (mpfr_number_p(t.err_abs))
		eabs = fpref_ref_short_decimal(t.err_abs, 6);
	if (mpfr_number_p(t.err_ulp))
		eulp = fpref_ref_short_decimal(t.err_ulp, 6);
	char hex[32];
	fpref_format_hex(f, bits, hex, sizeof hex);
	fpref_golden_svg_text(&s, 120, y, "result", "start", "the result: %s%s%s", hex, mpfr_number_p(t.result) ? " = " : " (NaN)",
		 mpfr_number_p(t.result) && res ? res : "");
	y += 18;
	fpref_golden_svg_text(&s, 120, y, "result", "start", "error (result - exact) %s%s%s", eabs ? eabs : "n/a",
		 eulp ? ", in ulps " : "", eulp ? eulp : "");
	free(res);
	free(eabs);
	free(eulp);
	struct fpref_svg_key keys[] = {
		{ FPREF_SVG_BLUE, "a neighbour on the grid", false },
		{ FPREF_SVG_GREY, "midpoint / outside the format", true },
		{ FPREF_SVG_VERMILLION, "the exact input", false },
		{ FPREF_SVG_SKY, "rounds to the nearer-zero neighbour", true },
		{ FPREF_SVG_ORANGE, "rounds to the farther neighbour", true },
		{ FPREF_SVG_PURPLE, "neither: overflow or a special", false },
	};
	fpref_golden_svg_legend(&s, 120, y + 18, keys, 3);
	fpref_golden_svg_legend(&s, 470, y + 18, keys + 3, 3);
	free(llo);
	free(lhi);
	free(lmid);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return fpref_golden_svg_finish(&s, svg) == 0 ? 0 : FPREF_DRAW_NO_MEMORY;
}
