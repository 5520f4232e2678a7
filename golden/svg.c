/* The SVG writer of the pictures (fpref_golden_svg.h): primitives, axes
 * and a legend, into a growing buffer.  Numbers are printed with two
 * decimals, so that the same figures give the same bytes on every
 * machine. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_formats.h"
#include "fpref_golden_svg.h"

static void put(struct fpref_svg *s, const char *t, size_t n)
{
	if (s->failed)
		return;
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (s->len + n + 1 > cap)
			cap *= 2;
		char *grown = realloc(s->text, cap);
		if (!grown) {
			fpref_golden_svg_discard(s);
			s->failed = true;
			return;
		}
		s->text = grown;
		s->cap = cap;
	}
	memcpy(s->text + s->len, t, n);
	s->len += n;
	s->text[s->len] = 0;
}

static void puts_(struct fpref_svg *s, const char *t)
{
	put(s, t, strlen(t));
}

static void vputf(struct fpref_svg *s, const char *fmt, va_list ap)
{
	char buf[512];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n < 0) {
		s->failed = true;
	} else if ((size_t)n < sizeof buf) {
		put(s, buf, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);
		if (big) {
			vsnprintf(big, (size_t)n + 1, fmt, again);
			put(s, big, (size_t)n);
			free(big);
		} else {
			fpref_golden_svg_discard(s);
			s->failed = true;
		}
	}
	va_end(again);
}

static void putf(struct fpref_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct fpref_svg *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vputf(s, fmt, ap);
	va_end(ap);
}

static void put_escaped(struct fpref_svg *s, const char *t)
{
	for (; *t; t++) {
		switch (*t) {
		case '&': puts_(s, "&amp;"); break;
		case '<': puts_(s, "&lt;"); break;
		case '>': puts_(s, "&gt;"); break;
		case '"': puts_(s, "&quot;"); break;
		default: put(s, t, 1);
		}
	}
}

void fpref_golden_svg_begin(struct fpref_svg *s, double w, double h, const char *title, const char *subtitle)
{
	*s = (struct fpref_svg){ .w = w, .h = h };
	putf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">\n<title>",
	     w, h, w, h);
	put_escaped(s, title);
	puts_(s, "</title>\n<style>.title{font-size:16px;font-weight:bold}.subtitle{font-size:12px;fill:#333333}"
		 ".tick{font-size:10px}.axis-label{font-size:12px}.note{font-size:11px}.legend text{font-size:11px}.inside{font-size:11px;fill:#FFFFFF}</style>\n");
	putf(s, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#FFFFFF\"/>\n", w, h);
	fpref_golden_svg_text(s, 16, 24, "title", "start", "%s", title);
	if (subtitle)
		fpref_golden_svg_text(s, 16, 42, "subtitle", "start", "%s", subtitle);
}

int fpref_golden_svg_finish(struct fpref_svg *s, char **text)
{
	puts_(s, "</svg>\n");
	*text = NULL;
	if (s->failed)
		return -1;
	*text = s->text;
	s->text = NULL;
	s->len = s->cap = 0;
	return 0;
}

void fpref_golden_svg_discard(struct fpref_svg *s)
{
	free(s->text);
	s->text = NULL;
	s->len = s->cap = 0;
}

void fpref_golden_svg_group(struct fpref_svg *s, const char *cls)
{
	putf(s, "<g class=\"%s\">\n", cls);
}

void fpref_golden_svg_group_end(struct fpref_svg *s)
{
	puts_(s, "</g>\n");
}

void fpref_golden_svg_text(struct fpref_svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt,
			   ...)
{
	/* a line of a picture is short: the cut (at 1023 bytes) as it always was */
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	putf(s, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">", cls, x, y, anchor);
	put_escaped(s, buf);
	puts_(s, "</text>\n");
}

void fpref_golden_svg_vtext(struct fpref_svg *s, double x, double y, const char *cls, const char *text)
{
	putf(s, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 %.2f %.2f)\">", cls,
	     x, y, x, y);
	put_escaped(s, text);
	puts_(s, "</text>\n");
}

void fpref_golden_svg_line(struct fpref_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
			   double width, const char *dash)
{
	putf(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%.2f\"", x1, y1, x2, y2,
	     stroke, width);
	if (dash)
		putf(s, " stroke-dasharray=\"%s\"", dash);
	puts_(s, "/>\n");
}

static void close_with_tip(struct fpref_svg *s, const char *tag, const char *tip)
{
	if (!tip) {
		puts_(s, "/>\n");
		return;
	}
	puts_(s, "><title>");
	put_escaped(s, tip);
	putf(s, "</title></%s>\n", tag);
}

void fpref_golden_svg_rect(struct fpref_svg *s, double x, double y, double w, double h, const char *fill, const char *cls,
			   const char *tip)
{
	putf(s, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", cls, x, y, w, h,
	     fill);
	close_with_tip(s, "rect", tip);
}

void fpref_golden_svg_circle(struct fpref_svg *s, double x, double y, double r, const char *fill, const char *cls,
			     const char *tip)
{
	putf(s, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"", cls, x, y, r, fill);
	close_with_tip(s, "circle", tip);
}

void fpref_golden_svg_polyline(struct fpref_svg *s, const double *x, const double *y, int n, const char *stroke,
			       double width, const char *cls)
{
	putf(s, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" points=\"", cls, stroke, width);
	for (int i = 0; i < n; i++)
		putf(s, "%s%.2f,%.2f", i ? " " : "", x[i], y[i]);
	puts_(s, "\"/>\n");
}

double fpref_golden_svg_map(const struct fpref_svg_scale *sc, double v)
{
	if (sc->d1 == sc->d0)
		return (sc->p0 + sc->p1) / 2;
	return sc->p0 + (v - sc->d0) * (sc->p1 - sc->p0) / (sc->d1 - sc->d0);
}

void fpref_golden_svg_axis(struct fpref_svg *s, bool horizontal, const struct fpref_svg_scale *sc, double at,
			   const double *ticks, char *const *labels, int n, const char *label)
{
	fpref_golden_svg_group(s, "axis");
	if (horizontal)
		fpref_golden_svg_line(s, sc->p0, at, sc->p1, at, FPREF_SVG_BLACK, 1, NULL);
	else
		fpref_golden_svg_line(s, at, sc->p0, at, sc->p1, FPREF_SVG_BLACK, 1, NULL);
	double pa = sc->p0 < sc->p1 ? sc->p0 : sc->p1, pb = sc->p0 < sc->p1 ? sc->p1 : sc->p0;
	for (int i = 0; i < n; i++) {
		double p = fpref_golden_svg_map(sc, ticks[i]);
		if (p < pa - 0.5 || p > pb + 0.5)
			continue; /* a tick beyond the axis would be drawn off it, or off the canvas */
		if (horizontal) {
			fpref_golden_svg_line(s, p, at, p, at + 5, FPREF_SVG_BLACK, 1, NULL);
			fpref_golden_svg_text(s, p, at + 17, "tick", "middle", "%s", labels[i]);
		} else {
			fpref_golden_svg_line(s, at - 5, p, at, p, FPREF_SVG_BLACK, 1, NULL);
			fpref_golden_svg_text(s, at - 8, p + 3.5, "tick", "end", "%s", labels[i]);
		}
	}
	if (horizontal)
		fpref_golden_svg_text(s, (sc->p0 + sc->p1) / 2, at + 34, "axis-label", "middle", "%s", label);
	else
		fpref_golden_svg_vtext(s, at - 52, (sc->p0 + sc->p1) / 2, "axis-label", label);
	fpref_golden_svg_group_end(s);
}

int fpref_golden_svg_count_ticks(size_t max, double *ticks, char **labels, char *buf, int cap)
{
	size_t step = 1;
	static const size_t mult[] = { 2, 5, 10 };
	for (size_t base = 1; max / step > 5;) {
		for (int i = 0; i < 3 && max / step > 5; i++)
			step = base * mult[i];
		base *= 10;
	}
	int n = 0;
	for (size_t v = 0; n < cap; v += step) {
		ticks[n] = (double)v;
		labels[n] = buf + 16 * n;
		snprintf(labels[n], 16, "%zu", v);
		n++;
		if (v >= max)
			break;
	}
	return n;
}

int fpref_golden_svg_pow2_ticks(int lo, int hi, int most, double *ticks, char **labels, char *buf, int cap)
{
	int stride = 1;
	while ((hi - lo) / stride > most)
		stride *= 2;
	int n = 0;
	int first = lo - (lo % stride + stride) % stride;
	for (int b = first; b <= hi && n < cap; b += stride) {
		if (b < lo)
			continue;
		ticks[n] = b;
		labels[n] = buf + 16 * n;
		snprintf(labels[n], 16, "2^%d", b);
		n++;
	}
	return n;
}

double fpref_golden_svg_log_place(double x)
{
	uint64_t b;
	double p = 0;
	memcpy(&b, &x, sizeof b);
	fpref_emu_binade_position(fpref_format_get(FPREF_FORMAT_FLOAT64), b, &p);
	return p;
}

void fpref_golden_svg_legend(struct fpref_svg *s, double x, double y, const struct fpref_svg_key *keys, int n)
{
	fpref_golden_svg_group(s, "legend");
	for (int i = 0; i < n; i++) {
		double yy = y + 16 * i;
		if (keys[i].line)
			fpref_golden_svg_line(s, x, yy + 5, x + 18, yy + 5, keys[i].colour, 2, NULL);
		else
			fpref_golden_svg_rect(s, x, yy, 18, 10, keys[i].colour, "key", NULL);
		fpref_golden_svg_text(s, x + 24, yy + 9, "key-text", "start", "%s", keys[i].text);
	}
	fpref_golden_svg_group_end(s);
}
