/* The pictures of the reports: gemm's and verify's error histograms, the
 * loss scale over the iterations with the gradients' binades, and a
 * quantised tensor's scales and errors.  The counts, errors and scales
 * come from the library (fpref_golden_gemm, fpref_golden_verify,
 * fpref_emu_scaler_*, fpref_emu_binade_counts, fpref_emu_quant_*); here
 * they are only placed. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

/* A bar chart of n counts in a box at x, y (w x h), labels under the bars
 * (every `every`-th; at a bar's left edge when it names where a bin starts,
 * else under its middle), and the axes' names. */
static void bars(struct svg *s, double x, double y, double w, double h, const size_t *counts, int n,
		 char *const *labels, int every, bool edge, const char *colour, const char *cls, const char *xlabel,
		 const char *ylabel)
{
	size_t max = 1;
	for (int i = 0; i < n; i++)
		max = counts[i] > max ? counts[i] : max;
	double ticks[16];
	char *tl[16], buf[16 * 16];
	int nt = draw_count_ticks(max, ticks, tl, buf, 16);
	struct draw_scale ys = { 0, ticks[nt - 1], y + h, y };
	double bw = w / n;
	svg_group(s, cls);
	for (int i = 0; i < n; i++) {
		char tip[64];
		snprintf(tip, sizeof tip, "%s: %zu", labels[i], counts[i]);
		double top = draw_map(&ys, (double)counts[i]);
		svg_rect(s, x + bw * i + 1, top, bw - 2, y + h - top, colour, "bar", tip);
	}
	svg_group_end(s);
	/* the category axis: a tick under every `every`-th bar */
	double ct[64];
	char *cl[64];
	int nc = 0;
	struct draw_scale xs = { 0, n, x, x + w };
	for (int i = 0; i < n && nc < 64; i += every) {
		ct[nc] = edge ? i : i + 0.5;
		cl[nc++] = labels[i];
	}
	draw_axis(s, true, &xs, y + h, ct, cl, nc, xlabel);
	draw_axis(s, false, &ys, x, ticks, tl, nt, ylabel);
}

int draw_gemm(const char *cmd, const char *path, const char *title, const struct fpref_gemm_stats *st)
{
	struct fpref_gemm_summary sum;
	fpref_golden_gemm_summarize(st, &sum);
	char sub[256];
	snprintf(sub, sizeof sub, "%zu elements; max %s ulps, mean %s; error / bound max %s (%zu with a bound)",
		 sum.elements, cli_text_num(sum.max_ulps, 4).text, cli_text_num(sum.mean_ulps, 4).text,
		 cli_text_num(sum.error_over_bound_max, 4).text, sum.with_bound);
	struct svg s;
	int status = svg_begin(&s, cmd, path, 900, 440, title, sub);
	if (status)
		return status;
	svg_text(&s, 80, 74, "panel", "start", "|D - exact| in ulps of the output format");
	bars(&s, 80, 84, 340, 250, st->ulps_hist, FPREF_VERIFY_BUCKETS, (char *const *)cli_ulps_bucket_labels, 1, false,
	     DRAW_BLUE, "hist ulps", "error (ulps)", "elements");
	static char *const tenths[FPREF_GEMM_RATIO_BUCKETS] = { "0.1", "0.2", "0.3", "0.4", "0.5", "0.6",
								 "0.7", "0.8", "0.9", "1",   ">1" };
	svg_text(&s, 520, 74, "panel", "start", "|D - exact| over the model's a priori bound (up to ...)");
	bars(&s, 520, 84, 340, 250, st->ratio_hist, FPREF_GEMM_RATIO_BUCKETS, tenths, 1, false, DRAW_ORANGE, "hist bound",
	     "error / bound", "elements");
	struct draw_scale xs = { 0, FPREF_GEMM_RATIO_BUCKETS, 520, 860 };
	svg_line(&s, draw_map(&xs, 10), 84, draw_map(&xs, 10), 334, DRAW_VERMILLION, 2, "5 3");
	svg_text(&s, draw_map(&xs, 10) - 4, 98, "note", "end", "the bound");
	struct draw_key keys[] = { { DRAW_BLUE, "error in ulps", false },
				   { DRAW_ORANGE, "error / a priori bound", false },
				   { DRAW_VERMILLION, "bound (1): nothing may lie right of it", true } };
	draw_legend(&s, 80, 384, keys, 3);
	return svg_end(&s, cmd, path);
}

int draw_verify(const char *cmd, const char *path, const struct draw_verify *v)
{
	char sub[256];
	snprintf(sub, sizeof sub, "%zu cases: %zu bit-exact, %zu outside the tolerance; %zu without an error in ulps",
		 v->cases, v->exact, v->outside, v->nonfinite);
	struct svg s;
	int status = svg_begin(&s, cmd, path, 900, 420, v->title, sub);
	if (status)
		return status;
	svg_text(&s, 80, 74, "panel", "start", "results against the golden values");
	bars(&s, 80, 84, 340, 250, v->ulps_golden, FPREF_VERIFY_BUCKETS, (char *const *)cli_ulps_bucket_labels, 1, false,
	     DRAW_BLUE, "hist golden", "error (ulps)", "cases");
	svg_text(&s, 520, 74, "panel", "start", "results against the exact values");
	bars(&s, 520, 84, 340, 250, v->ulps_exact, FPREF_VERIFY_BUCKETS, (char *const *)cli_ulps_bucket_labels, 1, false,
	     DRAW_GREEN, "hist exact", "error (ulps)", "cases");
	struct draw_key keys[] = { { DRAW_BLUE, "against the golden file", false },
				   { DRAW_GREEN, "against the exact value (oracle)", false } };
	draw_legend(&s, 80, 380, keys, 2);
	return svg_end(&s, cmd, path);
}

int draw_lossscale(const char *cmd, const char *path, const struct draw_lossscale *d)
{
	size_t skipped = 0;
	for (size_t k = 0; k < d->steps; k++)
		skipped += d->skipped[k];
	char sub[200];
	snprintf(sub, sizeof sub, "%zu iterations, %zu skipped (marked); scale kept in %s", d->steps, skipped,
		 d->scale_format->name);
	struct svg s;
	double h = d->nbins ? 750 : 400;
	int status = svg_begin(&s, cmd, path, 900, h, d->title, sub);
	if (status)
		return status;
	/* the scale on a log2 axis, step by step */
	double *px = calloc(2 * d->steps + 2, sizeof *px), *py = calloc(2 * d->steps + 2, sizeof *py),
	       *pos = calloc(d->steps + 1, sizeof *pos);
	if (!px || !py || !pos) {
		free(px);
		free(py);
		free(pos);
		cli_fail(cmd, "out of memory");
		svg_end(&s, cmd, path);
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
	struct draw_scale xs = { 0.5, (double)d->steps + 0.5, 90, 860 }, ys = { blo, bhi, 320, 80 };
	int n = 0;
	for (size_t k = 0; k < d->steps; k++) {
		px[n] = draw_map(&xs, (double)k + 0.5);
		py[n++] = draw_map(&ys, pos[k]);
		px[n] = draw_map(&xs, (double)k + 1.5);
		py[n++] = draw_map(&ys, pos[k]);
	}
	svg_text(&s, 90, 70, "panel", "start", "The loss scale used at each iteration (log2 axis)");
	svg_polyline(&s, px, py, n, DRAW_BLUE, 2, "scale");
	svg_group(&s, "skipped");
	for (size_t k = 0; k < d->steps; k++)
		if (d->skipped[k]) {
			char tip[48];
			snprintf(tip, sizeof tip, "iteration %zu skipped", k + 1);
			svg_circle(&s, draw_map(&xs, (double)k + 1), draw_map(&ys, pos[k]), 4, DRAW_VERMILLION, "skip", tip);
		}
	svg_group_end(&s);
	double ticks[32];
	char *labels[32], buf[32 * 16];
	int nt = draw_pow2_ticks(blo, bhi, 8, ticks, labels, buf, 32);
	draw_axis(&s, false, &ys, 90, ticks, labels, nt, "loss scale");
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
	draw_axis(&s, true, &xs, 320, ticks, labels, nt, "iteration");
	free(px);
	free(py);
	free(pos);
	struct draw_key keys[] = { { DRAW_BLUE, "scale used", true }, { DRAW_VERMILLION, "skipped step (inf/NaN)", false } };
	draw_legend(&s, 700, 60, keys, 2);
	if (d->nbins) {
		/* the gradients' binades against FP16's least normal and least subnormal */
		char title[200];
		snprintf(title, sizeof title,
			 "The gradients' binades (unscaled, all iterations): %zu finite nonzero, %zu below 2^%d, %zu above",
			 d->counted, d->below, d->lo, d->above);
		svg_text(&s, 90, 410, "panel", "start", "%s", title);
		char **bl = calloc(d->nbins, sizeof *bl), *bb = calloc(d->nbins, 16);
		if (bl && bb) {
			for (size_t i = 0; i < d->nbins; i++) {
				bl[i] = bb + 16 * i;
				snprintf(bl[i], 16, "2^%d", d->lo + (int)i);
			}
			bars(&s, 90, 420, 770, 220, d->counts, (int)d->nbins, bl, (int)(d->nbins / 10 + 1), true, DRAW_SKY,
			     "hist binades", "|g| (binade, log2)", "gradients");
			struct draw_scale bs = { d->lo, d->lo + (double)d->nbins, 90, 860 };
			const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
			int normal = fpref_format_min_exponent(f16), least = normal - f16->man_bits;
			svg_line(&s, draw_map(&bs, normal), 420, draw_map(&bs, normal), 640, DRAW_GREEN, 2, "5 3");
			svg_line(&s, draw_map(&bs, least), 420, draw_map(&bs, least), 640, DRAW_VERMILLION, 2, "5 3");
			/* each label on the side of its line with room */
			bool right = draw_map(&bs, normal) < 700;
			svg_text(&s, draw_map(&bs, normal) + (right ? 3 : -3), 432, "note", right ? "start" : "end",
				 "FP16 least normal 2^%d", normal);
			svg_text(&s, draw_map(&bs, least) - 3, 446, "note", "end", "FP16 least subnormal 2^%d", least);
		}
		free(bl);
		free(bb);
		struct draw_key k2[] = { { DRAW_SKY, "gradients per binade", false },
					 { DRAW_GREEN, "FP16's least normal: below it, subnormal in FP16", true },
					 { DRAW_VERMILLION, "FP16's least subnormal: below half of it, zero in FP16", true } };
		draw_legend(&s, 90, 680, k2, 3);
	}
	return svg_end(&s, cmd, path);
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
	struct svg s;
	int status = svg_begin(&s, cmd, path, 900, 640, d->title, sub);
	if (status)
		return status;
	/* the heat map: at most 400 x 300 pixels of cells */
	double cw = 400.0 / (double)d->cols, ch = 300.0 / (double)d->rows;
	cw = cw > 24 ? 24 : cw;
	ch = ch > 24 ? 24 : ch;
	svg_text(&s, 80, 70, "panel", "start", "Round-trip error per element (white: exact)");
	svg_group(&s, "heatmap");
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
			svg_rect(&s, 80 + cw * (double)c, 80 + ch * (double)r, cw, ch, colour, "cell", NULL);
		}
	svg_group_end(&s);
	double ticks[4];
	char *labels[4], b0[16], b1[16];
	struct draw_scale cs = { 0, (double)d->cols, 80, 80 + cw * (double)d->cols };
	struct draw_scale rs = { 0, (double)d->rows, 80, 80 + ch * (double)d->rows };
	snprintf(b0, sizeof b0, "0");
	snprintf(b1, sizeof b1, "%zu", d->cols);
	ticks[0] = 0, ticks[1] = (double)d->cols, labels[0] = b0, labels[1] = b1;
	draw_axis(&s, true, &cs, 80 + ch * (double)d->rows, ticks, labels, 2, "column");
	char r1[16];
	snprintf(r1, sizeof r1, "%zu", d->rows);
	ticks[1] = (double)d->rows, labels[1] = r1;
	draw_axis(&s, false, &rs, 80, ticks, labels, 2, "row");
	/* the colour key */
	svg_group(&s, "legend colour-key");
	for (int i = 0; i <= 10; i++) {
		char colour[16];
		ramp(0.15 + 0.085 * i, colour, sizeof colour);
		svg_rect(&s, 560 + 22 * i, 90, 22, 14, colour, "key", NULL);
	}
	if (any) {
		svg_text(&s, 560, 120, "tick", "start", "2^%.1f", lo);
		svg_text(&s, 802, 120, "tick", "end", "2^%.1f", hi);
	}
	svg_text(&s, 560, 84, "axis-label", "start", "|error| (log2 scale)");
	svg_group_end(&s);
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
		struct draw_scale xs = { 0, (double)d->nscales, 80, 860 }, ys = { blo, bhi, 600, 450 };
		svg_text(&s, 80, 440, "panel", "start", "The scale of each block, in order (log2 axis)");
		svg_group(&s, "scales");
		for (size_t i = 0; pos && ok && i < d->nscales; i++)
			if (ok[i])
				svg_circle(&s, draw_map(&xs, (double)i + 0.5), draw_map(&ys, pos[i]), 2.5, DRAW_ORANGE, "scale",
					   NULL);
		svg_group_end(&s);
		free(pos);
		free(ok);
		double yt[32];
		char *yl[32], buf[32 * 16];
		int nt = draw_pow2_ticks(blo, bhi, 6, yt, yl, buf, 32);
		draw_axis(&s, false, &ys, 80, yt, yl, nt, "scale");
		char n1[24];
		snprintf(n1, sizeof n1, "%zu", d->nscales);
		ticks[0] = 0, ticks[1] = (double)d->nscales, labels[0] = b0, labels[1] = n1;
		draw_axis(&s, true, &xs, 600, ticks, labels, 2, "block (C order of the scales)");
	}
	return svg_end(&s, cmd, path);
}
