/* The pictures of the reports: gemm's and verify's error histograms, the
 * loss scale over the iterations with the gradients' binades, a quantised
 * tensor's scales and errors, and the training lab's runs step by step.
 * The counts, errors, losses and scales come from the library
 * (fpref_golden_gemm, fpref_golden_verify, fpref_emu_scaler_*,
 * fpref_emu_binade_counts, fpref_emu_quant_*, fpref_golden_lab_run's
 * trace); here they are only placed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

/* A bar chart of n counts in a box at x, y (w x h), labels under the bars
 * (every `every`-th; at a bar's left edge when it names where a bin starts,
 * else under its middle), and the axes' names. */
static void bars(struct fpref_svg *s, double x, double y, double w, double h, const size_t *counts, int n,
		 char *const *labels, int every, bool edge, const char *colour, const char *cls, const char *xlabel,
		 const char *ylabel)
{
	size_t max = 1;
	for (int i = 0; i < n; i++)
		max = counts[i] > max ? counts[i] : max;
	double ticks[16];
	char *tl[16], buf[16 * 16];
	int nt = fpref_golden_svg_count_ticks(max, ticks, tl, buf, 16);
	struct fpref_svg_scale ys = { 0, ticks[nt - 1], y + h, y };
	double bw = w / n;
	fpref_golden_svg_group(s, cls);
	for (int i = 0; i < n; i++) {
		char tip[64];
		snprintf(tip, sizeof tip, "%s: %zu", labels[i], counts[i]);
		double top = fpref_golden_svg_map(&ys, (double)counts[i]);
		fpref_golden_svg_rect(s, x + bw * i + 1, top, bw - 2, y + h - top, colour, "bar", tip);
	}
	fpref_golden_svg_group_end(s);
	/* the category axis: a tick under every `every`-th bar */
	double ct[64];
	char *cl[64];
	int nc = 0;
	struct fpref_svg_scale xs = { 0, n, x, x + w };
	for (int i = 0; i < n && nc < 64; i += every) {
		ct[nc] = edge ? i : i + 0.5;
		cl[nc++] = labels[i];
	}
	fpref_golden_svg_axis(s, true, &xs, y + h, ct, cl, nc, xlabel);
	fpref_golden_svg_axis(s, false, &ys, x, ticks, tl, nt, ylabel);
}

int draw_gemm(const char *cmd, const char *path, const char *title, const struct fpref_gemm_stats *st)
{
	struct fpref_gemm_summary sum;
	fpref_golden_gemm_summarize(st, &sum);
	char sub[256];
	snprintf(sub, sizeof sub, "%zu elements; max %s ulps, mean %s; error / bound max %s (%zu with a bound)",
		 sum.elements, cli_text_num(sum.max_ulps, 4).text, cli_text_num(sum.mean_ulps, 4).text,
		 cli_text_num(sum.error_over_bound_max, 4).text, sum.with_bound);
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 440, title, sub);
	fpref_golden_svg_text(&s, 80, 74, "panel", "start", "|D - exact| in ulps of the output format");
	bars(&s, 80, 84, 340, 250, st->ulps_hist, FPREF_VERIFY_BUCKETS, (char *const *)fpref_golden_ulps_bucket_labels, 1, false,
	     FPREF_SVG_BLUE, "hist ulps", "error (ulps)", "elements");
	static char *const tenths[FPREF_GEMM_RATIO_BUCKETS] = { "0.1", "0.2", "0.3", "0.4", "0.5", "0.6",
								 "0.7", "0.8", "0.9", "1",   ">1" };
	fpref_golden_svg_text(&s, 520, 74, "panel", "start", "|D - exact| over the model's a priori bound (up to ...)");
	bars(&s, 520, 84, 340, 250, st->ratio_hist, FPREF_GEMM_RATIO_BUCKETS, tenths, 1, false, FPREF_SVG_ORANGE, "hist bound",
	     "error / bound", "elements");
	struct fpref_svg_scale xs = { 0, FPREF_GEMM_RATIO_BUCKETS, 520, 860 };
	fpref_golden_svg_line(&s, fpref_golden_svg_map(&xs, 10), 84, fpref_golden_svg_map(&xs, 10), 334, FPREF_SVG_VERMILLION, 2, "5 3");
	fpref_golden_svg_text(&s, fpref_golden_svg_map(&xs, 10) - 4, 98, "note", "end", "the bound");
	struct fpref_svg_key keys[] = { { FPREF_SVG_BLUE, "error in ulps", false },
				   { FPREF_SVG_ORANGE, "error / a priori bound", false },
				   { FPREF_SVG_VERMILLION, "bound (1): nothing may lie right of it", true } };
	fpref_golden_svg_legend(&s, 80, 384, keys, 3);
	return draw_write(&s, cmd, path);
}

int draw_verify(const char *cmd, const char *path, const struct draw_verify *v)
{
	char sub[256];
	snprintf(sub, sizeof sub, "%zu cases: %zu bit-exact, %zu outside the tolerance; %zu without an error in ulps",
		 v->cases, v->exact, v->outside, v->nonfinite);
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 420, v->title, sub);
	fpref_golden_svg_text(&s, 80, 74, "panel", "start", "results against the golden values");
	bars(&s, 80, 84, 340, 250, v->ulps_golden, FPREF_VERIFY_BUCKETS, (char *const *)fpref_golden_ulps_bucket_labels, 1, false,
	     FPREF_SVG_BLUE, "hist golden", "error (ulps)", "cases");
	fpref_golden_svg_text(&s, 520, 74, "panel", "start", "results against the exact values");
	bars(&s, 520, 84, 340, 250, v->ulps_exact, FPREF_VERIFY_BUCKETS, (char *const *)fpref_golden_ulps_bucket_labels, 1, false,
	     FPREF_SVG_GREEN, "hist exact", "error (ulps)", "cases");
	struct fpref_svg_key keys[] = { { FPREF_SVG_BLUE, "against the golden file", false },
				   { FPREF_SVG_GREEN, "against the exact value (oracle)", false } };
	fpref_golden_svg_legend(&s, 80, 380, keys, 2);
	return draw_write(&s, cmd, path);
}

int draw_lossscale(const char *cmd, const char *path, const struct draw_lossscale *d)
{
	size_t skipped = 0;
	for (size_t k = 0; k < d->steps; k++)
		skipped += d->skipped[k];
	char sub[200];
	snprintf(sub, sizeof sub, "%zu iterations, %zu skipped (marked); scale kept in %s", d->steps, skipped,
		 d->scale_format->name);
	struct fpref_svg s;
	double h = d->nbins ? 750 : 400;
	fpref_golden_svg_begin(&s, 900, h, d->title, sub);
	/* the scale on a log2 axis, step by step */
	double *px = calloc(2 * d->steps + 2, sizeof *px), *py = calloc(2 * d->steps + 2, sizeof *py),
	       *pos = calloc(d->steps + 1, sizeof *pos);
	if (!px || !py || !pos) {
		free(px);
		free(py);
		free(pos);
		cli_fail(cmd, "out of memory");
		fpref_golden_svg_discard(&s);
		return CLI_EXIT_FAIL;
	}
	double lo = 0, hi = 0;
	for (size_t k = 0; k < d->steps; k++) {
		if (fpref_emu_binade_position(d->scale_format, d->scale[k], &pos[k]) != 0)
			pos[k] = 0;
		lo = k == 0 || pos[k] < lo ? pos[k] : lo;
		hi = k == 0 || pos[k] > hi ? pos[k] : hi;
	}
	int blo = (int)lo - (lo < (int)lo) - 1, bhi = (int)hi + 1;
	struct fpref_svg_scale xs = { 0.5, (double)d->steps + 0.5, 90, 860 }, ys = { blo, bhi, 320, 80 };
	int n = 0;
	for (size_t k = 0; k < d->steps; k++) {
		px[n] = fpref_golden_svg_map(&xs, (double)k + 0.5);
		py[n++] = fpref_golden_svg_map(&ys, pos[k]);
		px[n] = fpref_golden_svg_map(&xs, (double)k + 1.5);
		py[n++] = fpref_golden_svg_map(&ys, pos[k]);
	}
	fpref_golden_svg_text(&s, 90, 70, "panel", "start", "The loss scale used at each iteration (log2 axis)");
	fpref_golden_svg_polyline(&s, px, py, n, FPREF_SVG_BLUE, 2, "scale");
	fpref_golden_svg_group(&s, "skipped");
	for (size_t k = 0; k < d->steps; k++)
		if (d->skipped[k]) {
			char tip[48];
			snprintf(tip, sizeof tip, "iteration %zu skipped", k + 1);
			fpref_golden_svg_circle(&s, fpref_golden_svg_map(&xs, (double)k + 1), fpref_golden_svg_map(&ys, pos[k]), 4, FPREF_SVG_VERMILLION, "skip", tip);
		}
	fpref_golden_svg_group_end(&s);
	double ticks[32];
	char *labels[32], buf[32 * 16];
	int nt = fpref_golden_svg_pow2_ticks(blo, bhi, 8, ticks, labels, buf, 32);
	fpref_golden_svg_axis(&s, false, &ys, 90, ticks, labels, nt, "loss scale");
	nt = 0;
	size_t kstride = 1;
	while (d->steps / kstride > 10)
		kstride = kstride < 5 ? kstride + 1 : kstride * 2;
	char kbuf[32 * 16];
	for (size_t k = 1; k <= d->steps && nt < 32; k += kstride, nt++) {
		ticks[nt] = (double)k;
		labels[nt] = kbuf + 16 * nt;
		snprintf(labels[nt], 16, "%zu", k);
	}
	fpref_golden_svg_axis(&s, true, &xs, 320, ticks, labels, nt, "iteration");
	free(px);
	free(py);
	free(pos);
	struct fpref_svg_key keys[] = { { FPREF_SVG_BLUE, "scale used", true }, { FPREF_SVG_VERMILLION, "skipped step (inf/NaN)", false } };
	fpref_golden_svg_legend(&s, 700, 60, keys, 2);
	if (d->nbins) {
		/* the gradients' binades against FP16's least normal and least subnormal */
		char title[200];
		snprintf(title, sizeof title,
			 "The gradients' binades (unscaled, all iterations): %zu finite nonzero, %zu below 2^%d, %zu above",
			 d->counted, d->below, d->lo, d->above);
		fpref_golden_svg_text(&s, 90, 410, "panel", "start", "%s", title);
		char **bl = calloc(d->nbins, sizeof *bl), *bb = calloc(d->nbins, 16);
		if (bl && bb) {
			for (size_t i = 0; i < d->nbins; i++) {
				bl[i] = bb + 16 * i;
				snprintf(bl[i], 16, "2^%d", d->lo + (int)i);
			}
			bars(&s, 90, 420, 770, 220, d->counts, (int)d->nbins, bl, (int)(d->nbins / 10 + 1), true, FPREF_SVG_SKY,
			     "hist binades", "|g| (binade, log2)", "gradients");
			struct fpref_svg_scale bs = { d->lo, d->lo + (double)d->nbins, 90, 860 };
			const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
			int normal = fpref_format_min_exponent(f16), least = normal - f16->man_bits;
			fpref_golden_svg_line(&s, fpref_golden_svg_map(&bs, normal), 420, fpref_golden_svg_map(&bs, normal), 640, FPREF_SVG_GREEN, 2, "5 3");
			fpref_golden_svg_line(&s, fpref_golden_svg_map(&bs, least), 420, fpref_golden_svg_map(&bs, least), 640, FPREF_SVG_VERMILLION, 2, "5 3");
			/* each label on the side of its line with room */
			bool right = fpref_golden_svg_map(&bs, normal) < 700;
			fpref_golden_svg_text(&s, fpref_golden_svg_map(&bs, normal) + (right ? 3 : -3), 432, "note", right ? "start" : "end",
				 "FP16 least normal 2^%d", normal);
			fpref_golden_svg_text(&s, fpref_golden_svg_map(&bs, least) - 3, 446, "note", "end", "FP16 least subnormal 2^%d", least);
		}
		free(bl);
		free(bb);
		struct fpref_svg_key k2[] = { { FPREF_SVG_SKY, "gradients per binade", false },
					 { FPREF_SVG_GREEN, "FP16's least normal: below it, subnormal in FP16", true },
					 { FPREF_SVG_VERMILLION, "FP16's least subnormal: below half of it, zero in FP16", true } };
		fpref_golden_svg_legend(&s, 90, 680, k2, 3);
	}
	return draw_write(&s, cmd, path);
}

/* A sequential colour from white to Okabe-Ito blue by t in [0, 1]. */
static void ramp(double t, char *buf, size_t len)
{
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	int r = (int)(255 - t * (255 - 0x00)), g = (int)(255 - t * (255 - 0x72)), b = (int)(255 - t * (255 - 0xB2));
	snprintf(buf, len, "#%02X%02X%02X", r, g, b);
}

int draw_quantize(const char *cmd, const char *path, const struct draw_quantize *d)
{
	const struct fpref_format *f64 = fpref_format_get(FPREF_FORMAT_FLOAT64);
	size_t n = d->rows * d->cols;
	/* the errors' log2 places (library) give the colours */
	double lo = 0, hi = 0;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		uint64_t b;
		double p;
		memcpy(&b, &d->abs_err[i], sizeof b);
		if (fpref_emu_binade_position(f64, b, &p) != 0)
			continue;
		lo = !any || p < lo ? p : lo;
		hi = !any || p > hi ? p : hi;
		any = true;
	}
	char sub[200];
	snprintf(sub, sizeof sub, "%zu x %zu elements, %zu scales (%s); colour: |dequantised - x| on a log2 scale",
		 d->rows, d->cols, d->nscales, d->scale_format->name);
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 640, d->title, sub);
	/* the heat map: at most 400 x 300 pixels of cells */
	double cw = 400.0 / (double)d->cols, ch = 300.0 / (double)d->rows;
	cw = cw > 24 ? 24 : cw;
	ch = ch > 24 ? 24 : ch;
	fpref_golden_svg_text(&s, 80, 70, "panel", "start", "Round-trip error per element (white: exact)");
	fpref_golden_svg_group(&s, "heatmap");
	for (size_t r = 0; r < d->rows; r++)
		for (size_t c = 0; c < d->cols; c++) {
			uint64_t b;
			double p;
			char colour[16];
			memcpy(&b, &d->abs_err[r * d->cols + c], sizeof b);
			if (fpref_emu_binade_position(f64, b, &p) != 0)
				snprintf(colour, sizeof colour, "#FFFFFF");
			else
				ramp(hi > lo ? (p - lo) / (hi - lo) * 0.85 + 0.15 : 1, colour, sizeof colour);
			fpref_golden_svg_rect(&s, 80 + cw * (double)c, 80 + ch * (double)r, cw, ch, colour, "cell", NULL);
		}
	fpref_golden_svg_group_end(&s);
	double ticks[4];
	char *labels[4], b0[16], b1[16];
	struct fpref_svg_scale cs = { 0, (double)d->cols, 80, 80 + cw * (double)d->cols };
	struct fpref_svg_scale rs = { 0, (double)d->rows, 80, 80 + ch * (double)d->rows };
	snprintf(b0, sizeof b0, "0");
	snprintf(b1, sizeof b1, "%zu", d->cols);
	ticks[0] = 0, ticks[1] = (double)d->cols, labels[0] = b0, labels[1] = b1;
	fpref_golden_svg_axis(&s, true, &cs, 80 + ch * (double)d->rows, ticks, labels, 2, "column");
	char r1[16];
	snprintf(r1, sizeof r1, "%zu", d->rows);
	ticks[1] = (double)d->rows, labels[1] = r1;
	fpref_golden_svg_axis(&s, false, &rs, 80, ticks, labels, 2, "row");
	/* the colour key */
	fpref_golden_svg_group(&s, "legend colour-key");
	for (int i = 0; i <= 10; i++) {
		char colour[16];
		ramp(0.15 + 0.085 * i, colour, sizeof colour);
		fpref_golden_svg_rect(&s, 560 + 22 * i, 90, 22, 14, colour, "key", NULL);
	}
	if (any) {
		fpref_golden_svg_text(&s, 560, 120, "tick", "start", "2^%.1f", lo);
		fpref_golden_svg_text(&s, 802, 120, "tick", "end", "2^%.1f", hi);
	}
	fpref_golden_svg_text(&s, 560, 84, "axis-label", "start", "|error| (log2 scale)");
	fpref_golden_svg_group_end(&s);
	/* the scales, block by block, on a log2 axis */
	if (d->nscales) {
		double slo = 0, shi = 0;
		double *pos = calloc(d->nscales, sizeof *pos);
		bool *ok = calloc(d->nscales, sizeof *ok);
		bool seen = false;
		for (size_t i = 0; pos && ok && i < d->nscales; i++) {
			ok[i] = fpref_emu_binade_position(d->scale_format, d->scales[i], &pos[i]) == 0;
			if (!ok[i])
				continue;
			slo = !seen || pos[i] < slo ? pos[i] : slo;
			shi = !seen || pos[i] > shi ? pos[i] : shi;
			seen = true;
		}
		int blo = (int)slo - (slo < (int)slo) - 1, bhi = (int)shi + 1;
		struct fpref_svg_scale xs = { 0, (double)d->nscales, 80, 860 }, ys = { blo, bhi, 600, 450 };
		fpref_golden_svg_text(&s, 80, 440, "panel", "start", "The scale of each block, in order (log2 axis)");
		fpref_golden_svg_group(&s, "scales");
		for (size_t i = 0; pos && ok && i < d->nscales; i++)
			if (ok[i])
				fpref_golden_svg_circle(&s, fpref_golden_svg_map(&xs, (double)i + 0.5), fpref_golden_svg_map(&ys, pos[i]), 2.5, FPREF_SVG_ORANGE, "scale",
					   NULL);
		fpref_golden_svg_group_end(&s);
		free(pos);
		free(ok);
		double yt[32];
		char *yl[32], buf[32 * 16];
		int nt = fpref_golden_svg_pow2_ticks(blo, bhi, 6, yt, yl, buf, 32);
		fpref_golden_svg_axis(&s, false, &ys, 80, yt, yl, nt, "scale");
		char n1[24];
		snprintf(n1, sizeof n1, "%zu", d->nscales);
		ticks[0] = 0, ticks[1] = (double)d->nscales, labels[0] = b0, labels[1] = n1;
		fpref_golden_svg_axis(&s, true, &xs, 600, ticks, labels, 2, "block (C order of the scales)");
	}
	return draw_write(&s, cmd, path);
}

/* ---- the training lab: the runs step by step ---- */

/* runs[0], the fp32 baseline, in black; then Okabe-Ito's colours that read
 * well as thin lines on white (yellow left out). */
static const char *const lab_colours[DRAW_LAB_RUNS] = { FPREF_SVG_BLACK,  FPREF_SVG_BLUE,   FPREF_SVG_VERMILLION, FPREF_SVG_GREEN,
							FPREF_SVG_ORANGE, FPREF_SVG_PURPLE, FPREF_SVG_SKY };

/* Ticks at step 1 and at the multiples of a stride (1, 2 or 5 times a
 * power of ten) up to steps, about `most` of them. */
static int step_ticks(size_t steps, size_t most, double *ticks, char **labels, char *buf, int cap)
{
	size_t stride = 1;
	static const size_t mult[] = { 2, 5, 10 };
	for (size_t base = 1; steps / stride > most; base *= 10)
		for (int i = 0; i < 3 && steps / stride > most; i++)
			stride = base * mult[i];
	int n = 0;
	for (size_t k = 1; k <= steps && n < cap; k = k == 1 && stride > 1 ? stride : k + stride) {
		ticks[n] = (double)k;
		labels[n] = buf + 16 * n;
		snprintf(labels[n], 16, "%zu", k);
		n++;
	}
	return n;
}

/* An FP32 pattern as the legend shows it: 4 digits, or NaN / inf. */
static struct cli_json_num lab_num(uint32_t bits)
{
	double v = 0;
	fpref_emu_value_f64(fpref_format_get(FPREF_FORMAT_FLOAT32), bits, &v);
	struct cli_json_num t = cli_text_num(v, 4);
	if (isnan(v))
		snprintf(t.text, sizeof t.text, "NaN");
	else if (isinf(v))
		snprintf(t.text, sizeof t.text, "%sinf", v < 0 ? "-" : "");
	return t;
}

/* The baseline is drawn first and wider: a run that follows it exactly
 * shows as its colour edged in black, not hidden under it. */
static double lab_width(int run)
{
	return run == 0 ? 5 : 2;
}

/* A per-step figure as a step plot: value[k] held from step k + 0.5 to
 * k + 1.5 (px, py: room for 2 steps points). */
static void lab_steps(struct fpref_svg *s, const struct fpref_svg_scale *xs, const struct fpref_svg_scale *ys, const double *value,
		      size_t steps, double *px, double *py, int run, const char *cls)
{
	int n = 0;
	for (size_t k = 0; k < steps; k++) {
		px[n] = fpref_golden_svg_map(xs, (double)k + 0.5);
		py[n++] = fpref_golden_svg_map(ys, value[k]);
		px[n] = fpref_golden_svg_map(xs, (double)k + 1.5);
		py[n++] = fpref_golden_svg_map(ys, value[k]);
	}
	fpref_golden_svg_polyline(s, px, py, n, lab_colours[run], lab_width(run), cls);
}

enum lab_count { LAB_UNCHANGED, LAB_FLUSHED, LAB_NONFINITE };

static size_t lab_count(const struct fpref_lab_step *st, enum lab_count which)
{
	return which == LAB_UNCHANGED ? st->weights_unchanged : which == LAB_FLUSHED ? st->grads_flushed : st->nonfinite;
}

/* One of the small panels under the loss: a count per step, every run. */
static void lab_count_panel(struct fpref_svg *s, const struct draw_lab *d, int n, enum lab_count which, double x, double w,
			    const char *title, const char *ylabel, double *value, double *px, double *py)
{
	size_t max = 1;
	for (int r = 0; r < n; r++)
		for (size_t k = 0; k < d->steps; k++)
			max = lab_count(&d->runs[r].trace[k], which) > max ? lab_count(&d->runs[r].trace[k], which) : max;
	double ticks[16];
	char *labels[16], buf[16 * 16];
	int nt = fpref_golden_svg_count_ticks(max, ticks, labels, buf, 16);
	struct fpref_svg_scale xs = { 0.5, (double)d->steps + 0.5, x, x + w }, ys = { 0, ticks[nt - 1], 700, 570 };
	fpref_golden_svg_text(s, x, 560, "panel", "start", "%s", title);
	static const char *const cls[] = { "unchanged", "flushed", "nonfinite" };
	for (int r = 0; r < n; r++) {
		for (size_t k = 0; k < d->steps; k++)
			value[k] = (double)lab_count(&d->runs[r].trace[k], which);
		lab_steps(s, &xs, &ys, value, d->steps, px, py, r, cls[which]);
	}
	fpref_golden_svg_axis(s, false, &ys, x, ticks, labels, nt, ylabel);
	nt = step_ticks(d->steps, 4, ticks, labels, buf, 16);
	fpref_golden_svg_axis(s, true, &xs, 700, ticks, labels, nt, "step");
}

int draw_lab(const char *cmd, const char *path, const struct draw_lab *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	int n = d->n < DRAW_LAB_RUNS ? d->n : DRAW_LAB_RUNS;
	size_t steps = d->steps;
	double *pos = calloc(steps * (size_t)n + 1, sizeof *pos), *value = calloc(steps + 1, sizeof *value);
	double *px = calloc(2 * steps + 2, sizeof *px), *py = calloc(2 * steps + 2, sizeof *py);
	bool *ok = calloc(steps * (size_t)n + 1, sizeof *ok);
	if (!pos || !value || !px || !py || !ok) {
		free(pos), free(value), free(px), free(py), free(ok);
		cli_fail(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	/* the losses' places on a log2 axis (library), and the scales' range */
	double lo = 0, hi = 0, slo = 0, shi = 0;
	bool any = false, scaled = false;
	char unscaled[256] = "";
	size_t used = 0;
	for (int r = 0; r < n; r++) {
		const struct fpref_lab_step *t = d->runs[r].trace;
		for (size_t k = 0; k < steps; k++) {
			double *p = &pos[(size_t)r * steps + k];
			ok[(size_t)r * steps + k] = fpref_emu_binade_position(f32, t[k].loss, p) == 0;
			if (ok[(size_t)r * steps + k]) {
				lo = !any || *p < lo ? *p : lo;
				hi = !any || *p > hi ? *p : hi;
				any = true;
			}
			double q;
			if (d->runs[r].result->scaled && fpref_emu_binade_position(f32, t[k].scale, &q) == 0) {
				slo = !scaled || q < slo ? q : slo;
				shi = !scaled || q > shi ? q : shi;
				scaled = true;
			}
		}
		if (!d->runs[r].result->scaled && used + 64 < sizeof unscaled)
			used += (size_t)snprintf(unscaled + used, sizeof unscaled - used, "%s%s", used ? ", " : "",
						 d->runs[r].recipe);
	}
	int blo = any ? (int)lo - (lo < (int)lo) : -1, bhi = any ? (int)hi + 1 : 1;
	int sblo = scaled ? (int)slo - (slo < (int)slo) - 1 : -1, sbhi = scaled ? (int)shi + 1 : 1;
	struct fpref_svg s;
	double height = 770 + 16.0 * (n + 2);
	fpref_golden_svg_begin(&s, 900, height, d->title, d->subtitle);
	struct fpref_svg_scale xs = { 0.5, (double)steps + 0.5, 90, 860 }, ys = { blo, bhi, 290, 90 },
			  ss = { sblo, sbhi, 490, 360 };
	double ticks[32];
	char *labels[32], buf[32 * 16];

	/* the loss: a line through the finite steps, non-finite ones as squares above the plot */
	fpref_golden_svg_text(&s, 90, 66, "panel", "start",
		 "The loss at each step, before its update (log2 axis); a loss of inf or NaN: a square above");
	for (int r = 0; r < n; r++) {
		const char *colour = lab_colours[r];
		const struct fpref_lab_step *t = d->runs[r].trace;
		const double *p = pos + (size_t)r * steps;
		const bool *f = ok + (size_t)r * steps;
		fpref_golden_svg_group(&s, r == 0 ? "run baseline" : "run");
		for (size_t k = 0; k < steps;) {
			int m = 0;
			for (; k < steps && f[k]; k++, m++) {
				px[m] = fpref_golden_svg_map(&xs, (double)k + 1);
				py[m] = fpref_golden_svg_map(&ys, p[k]);
			}
			if (m > 1)
				fpref_golden_svg_polyline(&s, px, py, m, colour, lab_width(r), "loss");
			else if (m == 1)
				fpref_golden_svg_circle(&s, px[0], py[0], lab_width(r), colour, "loss", NULL);
			for (; k < steps && !f[k]; k++) {
				char tip[160];
				snprintf(tip, sizeof tip, "%s, step %zu: loss %s", d->runs[r].recipe, k + 1, lab_num(t[k].loss).text);
				fpref_golden_svg_rect(&s, fpref_golden_svg_map(&xs, (double)k + 1) - 3, 77, 6, 6, colour, "nonfinite-loss", tip);
			}
		}
		for (size_t k = 0; k < steps; k++)
			if (t[k].skipped && f[k]) {
				char tip[160];
				snprintf(tip, sizeof tip, "%s, step %zu skipped: loss %s", d->runs[r].recipe, k + 1,
					 lab_num(t[k].loss).text);
				fpref_golden_svg_circle(&s, fpref_golden_svg_map(&xs, (double)k + 1), fpref_golden_svg_map(&ys, p[k]), 4, colour, "skip-loss", tip);
			}
		fpref_golden_svg_group_end(&s);
	}
	int nt = fpref_golden_svg_pow2_ticks(blo, bhi, 8, ticks, labels, buf, 32);
	fpref_golden_svg_axis(&s, false, &ys, 90, ticks, labels, nt, "loss (MSE)");
	nt = step_ticks(steps, 12, ticks, labels, buf, 32);
	fpref_golden_svg_axis(&s, true, &xs, 290, ticks, labels, nt, "step");

	/* the loss scale of the runs that have a scaler; the skipped steps on it */
	if (used > 50) /* too long for the line: the legend names them */
		snprintf(unscaled, sizeof unscaled, "the other runs");
	fpref_golden_svg_text(&s, 90, 350, "panel", "start", "The loss scale each step used (log2 axis)%s%s",
		 unscaled[0] ? "; no loss scaler (scale 1): " : "", unscaled);
	for (int r = 0; r < n; r++) {
		if (!d->runs[r].result->scaled)
			continue;
		const struct fpref_lab_step *t = d->runs[r].trace;
		for (size_t k = 0; k < steps; k++)
			if (fpref_emu_binade_position(f32, t[k].scale, &value[k]) != 0)
				value[k] = sblo;
		lab_steps(&s, &xs, &ss, value, steps, px, py, r, "scale");
		fpref_golden_svg_group(&s, "skipped");
		for (size_t k = 0; k < steps; k++)
			if (t[k].skipped) {
				char tip[160];
				snprintf(tip, sizeof tip, "%s, step %zu skipped (inf/NaN in the gradients), scale %s",
					 d->runs[r].recipe, k + 1, lab_num(t[k].scale).text);
				fpref_golden_svg_circle(&s, fpref_golden_svg_map(&xs, (double)k + 1), fpref_golden_svg_map(&ss, value[k]), 4, lab_colours[r], "skip", tip);
			}
		fpref_golden_svg_group_end(&s);
	}
	if (!scaled)
		fpref_golden_svg_text(&s, 475, 430, "note", "middle", "no run here has a loss scaler");
	nt = fpref_golden_svg_pow2_ticks(sblo, sbhi, 6, ticks, labels, buf, 32);
	fpref_golden_svg_axis(&s, false, &ss, 90, ticks, labels, nt, "loss scale");
	nt = step_ticks(steps, 12, ticks, labels, buf, 32);
	fpref_golden_svg_axis(&s, true, &xs, 490, ticks, labels, nt, "step");

	/* what the loss does not show */
	char wt[64];
	snprintf(wt, sizeof wt, "Weights not yet moved (of %zu)", d->runs[0].result->weights);
	lab_count_panel(&s, d, n, LAB_UNCHANGED, 90, 190, wt, "weights", value, px, py);
	lab_count_panel(&s, d, n, LAB_FLUSHED, 375, 190, "Gradients flushed to zero", "per step", value, px, py);
	lab_count_panel(&s, d, n, LAB_NONFINITE, 660, 190, "Inf and NaN values produced", "per step", value, px, py);

	/* the legend: each run's totals, then the marks */
	struct fpref_svg_key keys[DRAW_LAB_RUNS];
	char texts[DRAW_LAB_RUNS][320];
	for (int r = 0; r < n; r++) {
		const struct fpref_lab_result *res = d->runs[r].result;
		snprintf(texts[r], sizeof texts[r],
			 "%s%s: final loss %s; %zu skipped; %zu of %zu weights never moved; %zu gradients flushed; %zu Inf/NaN",
			 d->runs[r].recipe, r == 0 ? " (the baseline)" : "", lab_num(res->final_loss).text, res->skipped_steps,
			 res->weights_unchanged, res->weights, res->grads_flushed, res->nonfinite);
		keys[r] = (struct fpref_svg_key){ lab_colours[r], texts[r], true };
	}
	double ly = 760;
	fpref_golden_svg_legend(&s, 90, ly, keys, n);
	fpref_golden_svg_group(&s, "legend marks");
	double my = ly + 16.0 * n;
	fpref_golden_svg_circle(&s, 99, my + 5, 4, FPREF_SVG_GREY, "key", NULL);
	fpref_golden_svg_text(&s, 114, my + 9, "key-text", "start", "a step the loss scaler skipped (inf/NaN in its gradients)");
	fpref_golden_svg_rect(&s, 476, my + 2, 6, 6, FPREF_SVG_GREY, "key", NULL);
	fpref_golden_svg_text(&s, 490, my + 9, "key-text", "start", "a loss of inf or NaN (above the loss plot)");
	fpref_golden_svg_group_end(&s);
	free(pos), free(value), free(px), free(py), free(ok);
	return draw_write(&s, cmd, path);
}
