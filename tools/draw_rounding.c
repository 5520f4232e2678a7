/* fpref draw rounding: how one value rounds to a format: its two
 * neighbours on the grid, the midpoint, where each rounding mode sends it,
 * stochastic rounding's probability and the result's error, from the
 * oracle's trace.  One picture kind of fpref draw (tools/cmd_draw.c
 * dispatches). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

static const char *const cmd = "draw";

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

int draw_rounding(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2 || !o->have_to) {
		cli_fail(cmd, "rounding needs one VALUE and --to FMT, e.g. fpref draw rounding 465 --to e4m3 --out-file r.svg");
		return CLI_EXIT_USAGE;
	}
	const struct fpref_format *f = &o->to;
	o->env = cli_target_env(o, f);
	if (o->env.rounding == FPREF_SR && !o->text.sr_bits) {
		cli_fail(cmd, "--round sr needs --sr-bits HEX, W:HEX or seed=N (the random bits decide the rounding)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_ref_value v;
	if (draw_read_value("VALUE", o->positional[1], &v) != 0)
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
	char title[200], sub[320], envtext[160], cut[48];
	fpref_env_describe(&o->env, envtext, sizeof envtext);
	const char *shown = typed(o->positional[1], cut, sizeof cut);
	snprintf(title, sizeof title, "How %s rounds to %s", shown, f->name);
	char *ex = v.inexact ? NULL : value_label(v.x);
	snprintf(sub, sizeof sub, "exact input %s%s", ex ? ex : shown,
		 v.inexact ? " (no finite binary form: held to 192 bits, rounded to odd)" : "");
	free(ex);
	struct svg s;
	int status = svg_begin(&s, cmd, a->out, 900, 540, title, sub);
	if (status) {
		fpref_ref_trace_clear(&t);
		fpref_ref_value_clear(&v);
		return status;
	}
	svg_text(&s, 16, 58, "subtitle", "start", "environment %s", envtext);
	/* the axis from the neighbour nearer zero (0) to the one farther (1);
	 * right of it, room for each mode's result.  Beyond the format's top,
	 * the axis is that top and the input is drawn past a break. */
	double p_fx = fpref_ref_fraction(t.lo, t.hi, v.x);
	/* 465 to FP4: its neighbours 384 and 512 are no FP4 values */
	bool beyond = !t.lo_held && fpref_ref_format_top(f, v.x, t.lo, t.hi, t.mid, &t.lo_bits, &t.hi_bits) == 0;
	if (beyond)
		t.lo_held = t.hi_held = true;
	struct draw_scale sc = { 0, 1, 130, beyond ? 430 : 530 };
	double fx = beyond ? 1.2 : p_fx, fm = fpref_ref_fraction(t.lo, t.hi, t.mid);
	char *llo = value_label(t.lo), *lhi = value_label(t.hi), *lmid = value_label(t.mid);
	char hexlo[32], hexhi[32];
	cli_hex(f, t.lo_bits, hexlo, sizeof hexlo);
	cli_hex(f, t.hi_bits, hexhi, sizeof hexhi);
	double ticks[3] = { 0, fm, 1 };
	char *labels[3] = { llo ? llo : "?", lmid ? lmid : "?", lhi ? lhi : "?" };
	if (beyond)
		svg_text(&s, 120, 78, "panel", "start", "The top of %s's grid: its two largest values, and the exact input beyond",
			 f->name);
	else
		svg_text(&s, 120, 78, "panel", "start", "The two neighbours on %s's grid, the midpoint, and the exact input",
			 f->name);
	svg_rect(&s, draw_map(&sc, 0) - 2, 96, 4, 44, DRAW_BLUE, "neighbour", "the neighbour nearer zero");
	svg_rect(&s, draw_map(&sc, 1) - 2, 96, 4, 44, t.hi_held ? DRAW_BLUE : DRAW_GREY, "neighbour",
		 "the neighbour farther from zero");
	svg_line(&s, draw_map(&sc, fm), 96, draw_map(&sc, fm), 140, DRAW_GREY, 1.5, "4 3");
	svg_circle(&s, draw_map(&sc, fx), 118, 6, DRAW_VERMILLION, "exact", "the exact input");
	draw_axis(&s, true, &sc, 140, ticks, labels, 3, "nearer zero  <-  magnitude  ->  farther from zero");
	/* each neighbour's code, under its value */
	svg_text(&s, draw_map(&sc, 0), 190, "note", "middle", "%s%s", t.lo_held ? "= " : "not in the format",
		 t.lo_held ? hexlo : "");
	svg_text(&s, draw_map(&sc, 1), 190, "note", "middle", "%s%s", t.hi_held ? "= " : "not in the format",
		 t.hi_held ? hexhi : "");
	svg_text(&s, draw_map(&sc, fx), 92, "note", "middle", "%s", beyond ? "exact, beyond max finite" : "exact");
	if (beyond) { /* the break in the axis */
		double xb = draw_map(&sc, 1.1);
		svg_line(&s, xb - 6, 146, xb, 134, DRAW_BLACK, 1, NULL);
		svg_line(&s, xb, 146, xb + 6, 134, DRAW_BLACK, 1, NULL);
	}
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
			double xe = draw_map(&sc, beyond ? 1.33 : 1);
			svg_line(&s, x0, y, xe, y, c, 3, "6 4");
			svg_rect(&s, xe - 4, y - 4, 8, 8, c, "destination", NULL);
		}
		svg_text(&s, 550, y + 4, "note", "start", "%s%s%s", hex, res && mpfr_number_p(tm.result) ? " = " : " (NaN)",
			 res && mpfr_number_p(tm.result) ? res : "");
		free(res);
		fpref_ref_trace_clear(&tm);
	}
	y += 10;
	/* the probability of stochastic rounding and the error */
	if (beyond)
		svg_text(&s, 120, y, "note", "start",
			 "beyond max finite: each mode gives what the format does there (saturate, NaN or inf)");
	else
		svg_text(&s, 120, y, "note", "start",
			 "stochastic rounding (exact): to the farther neighbour with probability %.6g (where the input lies)",
			 fx);
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
	svg_text(&s, 120, y, "result", "start", "the result: %s%s%s", hex, mpfr_number_p(t.result) ? " = " : " (NaN)",
		 mpfr_number_p(t.result) && res ? res : "");
	y += 18;
	svg_text(&s, 120, y, "result", "start", "error (result - exact) %s%s%s", eabs ? eabs : "n/a",
		 eulp ? ", in ulps " : "", eulp ? eulp : "");
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
	draw_legend(&s, 120, y + 18, keys, 3);
	draw_legend(&s, 470, y + 18, keys + 3, 3);
	free(llo);
	free(lhi);
	free(lmid);
	status = svg_end(&s, cmd, a->out);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return status;
}
