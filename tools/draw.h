/* The pictures the command composes itself (tools/draw_reports.c): the
 * reports' --svg, with the library's SVG writer (fpref_golden_svg.h);
 * numberline, rounding, formats, promotion and pytorch-tf32 are the
 * library's own (fpref_golden_draw.h).  The pictures take
 * the library's figures and only place them: every value, error, spacing
 * and scale comes from a library call. */
#ifndef FPREF_DRAW_H
#define FPREF_DRAW_H

#include <stdbool.h>
#include <stdio.h>

#include "fpref.h"

/* The picture's text (fpref_golden_svg_finish) written to path ("-":
 * standard output), whole or not at all: 0, or CLI_EXIT_FAIL after a
 * message naming cmd (tools/draw_svg.c).  draw_save: the same for a
 * finished text. */
int draw_write(struct fpref_svg *s, const char *cmd, const char *path);
int draw_save(const char *cmd, const char *path, const char *text);

/* The pictures made from the reports of other commands (tools/draw_reports.c). */
struct fpref_gemm_stats;
int draw_gemm(const char *cmd, const char *path, const char *title, const struct fpref_gemm_stats *st);
struct draw_verify {
	const char *title;
	size_t cases, exact, outside, nonfinite;
	const size_t *ulps_golden, *ulps_exact; /* FPREF_VERIFY_BUCKETS each */
};
int draw_verify(const char *cmd, const char *path, const struct draw_verify *v);
struct draw_lossscale {
	const char *title;
	size_t steps;
	const struct fpref_format *scale_format;
	const uint64_t *scale;  /* per step, the scale used */
	const bool *skipped;    /* per step */
	/* --grads: counts of the gradients' binades lo .. lo + nbins - 1
	 * (fpref_emu_binade_counts), or nbins 0 */
	int lo;
	size_t nbins;
	const size_t *counts;
	size_t below, above, counted;
};
int draw_lossscale(const char *cmd, const char *path, const struct draw_lossscale *d);
struct draw_quantize {
	const char *title;
	size_t rows, cols;               /* the tensor as rows x cols (1-D: one row) */
	const double *abs_err;           /* rows x cols, fpref_emu_quant_abs_errors */
	size_t nscales;
	const struct fpref_format *scale_format;
	const uint64_t *scales;          /* nscales patterns of scale_format */
};
int draw_quantize(const char *cmd, const char *path, const struct draw_quantize *d);
/* The training lab (fpref_golden_lab_run with a trace): each run's loss,
 * loss scale, skipped steps, weights not yet moved, gradients flushed and
 * Inf/NaN step by step; runs[0] is the fp32 baseline.  At most
 * DRAW_LAB_RUNS runs, each with steps entries of trace. */
#define DRAW_LAB_RUNS 7
struct draw_lab_run {
	const char *recipe;
	const struct fpref_lab_result *result;
	const struct fpref_lab_step *trace;
};
struct draw_lab {
	const char *title, *subtitle;
	size_t steps;
	const struct draw_lab_run *runs;
	int n;
};
int draw_lab(const char *cmd, const char *path, const struct draw_lab *d);

#endif
