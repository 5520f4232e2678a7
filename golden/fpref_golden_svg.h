/* fpref — the SVG writer of the pictures (fpref draw, fpref.draw and the
 * reports' --svg): a few primitives, axes and a legend, written by hand
 * into memory, deterministic byte for byte (two decimals for every
 * coordinate), text as text, the Okabe-Ito palette (readable with every
 * common colour-vision deficiency).  The pictures take the library's
 * figures and only place them. */
#ifndef FPREF_GOLDEN_SVG_H
#define FPREF_GOLDEN_SVG_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Okabe & Ito (2008), "Color Universal Design" */
#define FPREF_SVG_BLACK "#000000"
#define FPREF_SVG_ORANGE "#E69F00"
#define FPREF_SVG_SKY "#56B4E9"
#define FPREF_SVG_GREEN "#009E73"
#define FPREF_SVG_YELLOW "#F0E442"
#define FPREF_SVG_BLUE "#0072B2"
#define FPREF_SVG_VERMILLION "#D55E00"
#define FPREF_SVG_PURPLE "#CC79A7"
#define FPREF_SVG_GREY "#999999"

/* A picture being written: its text grows in memory (a file is written
 * whole or not at all, and Python takes the text). */
struct fpref_svg {
	char *text;
	size_t len, cap;
	bool failed; /* out of memory: the text is dropped */
	double w, h;
};

/* The header, the title (as <title> and as the heading) and a subtitle
 * (NULL: none). */
void fpref_golden_svg_begin(struct fpref_svg *s, double w, double h, const char *title, const char *subtitle);
/* The closing tag: the picture's text (malloc'ed, NUL-terminated; the
 * caller frees it) in *text and 0, or -1 (out of memory; nothing to free). */
int fpref_golden_svg_finish(struct fpref_svg *s, char **text);
/* Drops a picture not finished. */
void fpref_golden_svg_discard(struct fpref_svg *s);

void fpref_golden_svg_group(struct fpref_svg *s, const char *cls);
void fpref_golden_svg_group_end(struct fpref_svg *s);
/* Text (escaped for XML) at x, y; anchor "start", "middle" or "end". */
void fpref_golden_svg_text(struct fpref_svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt,
			   ...) __attribute__((format(printf, 6, 7)));
/* Text turned a quarter counter-clockwise (a vertical axis's label). */
void fpref_golden_svg_vtext(struct fpref_svg *s, double x, double y, const char *cls, const char *text);
void fpref_golden_svg_line(struct fpref_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
			   double width, const char *dash);
/* A rectangle with a fill; cls names what it marks; tip, when not NULL,
 * becomes its <title> (a browser shows it on hover). */
void fpref_golden_svg_rect(struct fpref_svg *s, double x, double y, double w, double h, const char *fill, const char *cls,
			   const char *tip);
void fpref_golden_svg_circle(struct fpref_svg *s, double x, double y, double r, const char *fill, const char *cls,
			     const char *tip);
/* A polyline through n points. */
void fpref_golden_svg_polyline(struct fpref_svg *s, const double *x, const double *y, int n, const char *stroke,
			       double width, const char *cls);

/* A linear map from data d0..d1 to pixels p0..p1. */
struct fpref_svg_scale {
	double d0, d1, p0, p1;
};
double fpref_golden_svg_map(const struct fpref_svg_scale *sc, double v);

/* An axis with its ticks: horizontal at pixel row `at` (ticks below), or
 * vertical at pixel column `at` (ticks to the left); labels[i] at
 * ticks[i]; label names the quantity and its unit. */
void fpref_golden_svg_axis(struct fpref_svg *s, bool horizontal, const struct fpref_svg_scale *sc, double at,
			   const double *ticks, char *const *labels, int n, const char *label);
/* Ticks 0, step, 2 step ... up to max with step 1, 2 or 5 times a power of
 * ten, at most about 6 of them: n, and the ticks and labels (labels are
 * written into buf, 16 bytes each). */
int fpref_golden_svg_count_ticks(size_t max, double *ticks, char **labels, char *buf, int cap);
/* Ticks at powers of two 2^lo .. 2^hi of a log2 axis, every stride-th
 * binade (stride doubling until at most `most` steps), at multiples of
 * the stride; labels "2^b" written into buf, 16 bytes each.  Returns n. */
int fpref_golden_svg_pow2_ticks(int lo, int hi, int most, double *ticks, char **labels, char *buf, int cap);
/* The log2 place of a positive binary64 (the emulator's binade position),
 * for the log axes of the scatter and the sweeps. */
double fpref_golden_svg_log_place(double x);

struct fpref_svg_key {
	const char *colour;
	const char *text;
	bool line; /* a line sample, not a filled box */
};
/* The legend: a box per key, one key a row, from x, y. */
void fpref_golden_svg_legend(struct fpref_svg *s, double x, double y, const struct fpref_svg_key *keys, int n);

#ifdef __cplusplus
}
#endif
#endif
