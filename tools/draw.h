/* The pictures of fpref draw (tools/draw_svg.c, tools/draw_*.c): SVG
 * written by hand, deterministic byte for byte, text as text, the
 * Okabe-Ito palette (readable with every common colour-vision deficiency).
 * The pictures take the library's figures and only place them: every
 * value, error, spacing and scale comes from a library call. */
#ifndef FPREF_DRAW_H
#define FPREF_DRAW_H

#include <stdbool.h>
#include <stdio.h>

#include "fpref.h"

/* Okabe & Ito (2008), "Color Universal Design" */
#define DRAW_BLACK "#000000"
#define DRAW_ORANGE "#E69F00"
#define DRAW_SKY "#56B4E9"
#define DRAW_GREEN "#009E73"
#define DRAW_YELLOW "#F0E442"
#define DRAW_BLUE "#0072B2"
#define DRAW_VERMILLION "#D55E00"
#define DRAW_PURPLE "#CC79A7"
#define DRAW_GREY "#999999"

struct svg {
	FILE *out;
	double w, h;
};

/* Open path for writing ("-": standard output) and write the header, the
 * title (as <title> and as the heading) and a subtitle.  0, or
 * CLI_EXIT_FAIL after a message naming cmd. */
int svg_begin(struct svg *s, const char *cmd, const char *path, double w, double h, const char *title,
	      const char *subtitle);
/* The closing tag; 0, or CLI_EXIT_FAIL when the file could not be written. */
int svg_end(struct svg *s, const char *cmd, const char *path);
void svg_group(struct svg *s, const char *cls);
void svg_group_end(struct svg *s);
/* Text (escaped for XML) at x, y; anchor "start", "middle" or "end". */
void svg_text(struct svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Text turned a quarter counter-clockwise (a vertical axis's label). */
void svg_vtext(struct svg *s, double x, double y, const char *cls, const char *text);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width,
	      const char *dash);
/* A rectangle with a fill; cls names what it marks; tip, when not NULL,
 * becomes its <title> (a browser shows it on hover). */
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill, const char *cls,
	      const char *tip);
void svg_circle(struct svg *s, double x, double y, double r, const char *fill, const char *cls, const char *tip);
/* A polyline through n points. */
void svg_polyline(struct svg *s, const double *x, const double *y, int n, const char *stroke, double width,
		  const char *cls);

/* A linear map from data d0..d1 to pixels p0..p1. */
struct draw_scale {
	double d0, d1, p0, p1;
};
double draw_map(const struct draw_scale *sc, double v);

/* An axis with its ticks: horizontal at pixel row `at` (ticks below), or
 * vertical at pixel column `at` (ticks to the left); labels[i] at
 * ticks[i]; label names the quantity and its unit. */
void draw_axis(struct svg *s, bool horizontal, const struct draw_scale *sc, double at, const double *ticks,
	       char *const *labels, int n, const char *label);
/* Ticks 0, step, 2 step ... up to max with step 1, 2 or 5 times a power of
 * ten, at most about 6 of them: n, and the ticks and labels (labels are
 * written into buf, 16 bytes each). */
int draw_count_ticks(size_t max, double *ticks, char **labels, char *buf, int cap);

/* Ticks at powers of two 2^lo .. 2^hi of a log2 axis, every stride-th
 * binade (stride doubling until at most `most` steps), at multiples of
 * the stride; labels "2^b" written into buf, 16 bytes each.  Returns n. */
int draw_pow2_ticks(int lo, int hi, int most, double *ticks, char **labels, char *buf, int cap);

struct draw_key {
	const char *colour;
	const char *text;
	bool line; /* a line sample, not a filled box */
};
/* The legend: a box per key, one key a row, from x, y. */
void draw_legend(struct svg *s, double x, double y, const struct draw_key *keys, int n);

/* The kinds fpref draw makes itself from the library's figures: the
 * command (tools/cmd_draw.c) parses its options into draw_args and calls
 * one; 0 or an exit status. */
struct draw_args {
	const char *out, *range, *at, *window, *png;
	const char *in, *ks, *size, *dist, *seed; /* promotion */
};
struct cli_options;
int draw_numberline(const struct cli_options *o, const struct draw_args *a); /* tools/draw_numberline.c */
int draw_rounding(struct cli_options *o, const struct draw_args *a);         /* tools/draw_rounding.c */
int draw_formats(const struct cli_options *o, const struct draw_args *a);    /* tools/draw_formats.c */
int draw_promotion(struct cli_options *o, const struct draw_args *a);        /* tools/draw_promotion.c */
int draw_tf32(struct cli_options *o, const struct draw_args *a);             /* tools/draw_promotion.c */
/* What those kinds share: a VALUE read by the oracle (tools/cmd_draw.c),
 * a log2 place for an axis (tools/draw_formats.c). */
int draw_read_value(const char *what, const char *text, struct fpref_ref_value *v);
double draw_log_place(double x);

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
