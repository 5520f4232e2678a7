/* The SVG writer of fpref draw: a few primitives, axes and a legend.
 * Numbers are printed with two decimals, so that the same figures give
 * the same bytes on every machine. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

static void put_escaped(FILE *out, const char *t)
{
	for (; *t; t++) {
		switch (*t) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*t, out);
		}
	}
}

int svg_begin(struct svg *s, const char *cmd, const char *path, double w, double h, const char *title,
	      const char *subtitle)
{
	s->w = w;
	s->h = h;
	s->out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!s->out) {
		cli_fail(cmd, "cannot write '%s': %s", path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	fprintf(s->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
			"font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">\n<title>",
		w, h, w, h);
	put_escaped(s->out, title);
	fputs("</title>\n<style>.title{font-size:16px;font-weight:bold}.subtitle{font-size:12px;fill:#333333}"
	      ".tick{font-size:10px}.axis-label{font-size:12px}.note{font-size:11px}.legend text{font-size:11px}.inside{font-size:11px;fill:#FFFFFF}</style>\n",
	      s->out);
	fprintf(s->out, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#FFFFFF\"/>\n", w, h);
	svg_text(s, 16, 24, "title", "start", "%s", title);
	if (subtitle)
		svg_text(s, 16, 42, "subtitle", "start", "%s", subtitle);
	return 0;
}

int svg_end(struct svg *s, const char *cmd, const char *path)
{
	fputs("</svg>\n", s->out);
	bool bad = ferror(s->out) != 0;
	if (s->out != stdout)
		bad = fclose(s->out) != 0 || bad;
	else
		bad = fflush(s->out) != 0 || bad;
	if (bad) {
		cli_fail(cmd, "cannot write '%s'", path);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

void svg_group(struct svg *s, const char *cls)
{
	fprintf(s->out, "<g class=\"%s\">\n", cls);
}

void svg_group_end(struct svg *s)
{
	fputs("</g>\n", s->out);
}

void svg_text(struct svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(s->out, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">", cls, x, y, anchor);
	put_escaped(s->out, buf);
	fputs("</text>\n", s->out);
}

void svg_vtext(struct svg *s, double x, double y, const char *cls, const char *text)
{
	fprintf(s->out, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 %.2f %.2f)\">",
		cls, x, y, x, y);
	put_escaped(s->out, text);
	fputs("</text>\n", s->out);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width,
	      const char *dash)
{
	fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%.2f\"", x1, y1,
		x2, y2, stroke, width);
	if (dash)
		fprintf(s->out, " stroke-dasharray=\"%s\"", dash);
	fputs("/>\n", s->out);
}

static void close_with_tip(struct svg *s, const char *tag, const char *tip)
{
	if (!tip) {
		fputs("/>\n", s->out);
		return;
	}
	fputs("><title>", s->out);
	put_escaped(s->out, tip);
	fprintf(s->out, "</title></%s>\n", tag);
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill, const char *cls,
	      const char *tip)
{
	fprintf(s->out, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", cls, x, y,
		w, h, fill);
	close_with_tip(s, "rect", tip);
}

void svg_circle(struct svg *s, double x, double y, double r, const char *fill, const char *cls, const char *tip)
{
	fprintf(s->out, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"", cls, x, y, r, fill);
	close_with_tip(s, "circle", tip);
}

void svg_polyline(struct svg *s, const double *x, const double *y, int n, const char *stroke, double width,
		  const char *cls)
{
	fprintf(s->out, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" points=\"", cls, stroke,
		width);
	for (int i = 0; i < n; i++)
		fprintf(s->out, "%s%.2f,%.2f", i ? " " : "", x[i], y[i]);
	fputs("\"/>\n", s->out);
}

double draw_map(const struct draw_scale *sc, double v)
{
	if (sc->d1 == sc->d0)
		return (sc->p0 + sc->p1) / 2;
	return sc->p0 + (v - sc->d0) * (sc->p1 - sc->p0) / (sc->d1 - sc->d0);
}

void draw_axis(struct svg *s, bool horizontal, const struct draw_scale *sc, double at, const double *ticks,
	       char *const *labels, int n, const char *label)
{
	svg_group(s, "axis");
	if (horizontal)
		svg_line(s, sc->p0, at, sc->p1, at, DRAW_BLACK, 1, NULL);
	else
		svg_line(s, at, sc->p0, at, sc->p1, DRAW_BLACK, 1, NULL);
	double pa = sc->p0 < sc->p1 ? sc->p0 : sc->p1, pb = sc->p0 < sc->p1 ? sc->p1 : sc->p0;
	for (int i = 0; i < n; i++) {
		double p = draw_map(sc, ticks[i]);
		if (p < pa - 0.5 || p > pb + 0.5)
			continue; /* a tick beyond the axis would be drawn off it, or off the canvas */
		if (horizontal) {
			svg_line(s, p, at, p, at + 5, DRAW_BLACK, 1, NULL);
			svg_text(s, p, at + 17, "tick", "middle", "%s", labels[i]);
		} else {
			svg_line(s, at - 5, p, at, p, DRAW_BLACK, 1, NULL);
			svg_text(s, at - 8, p + 3.5, "tick", "end", "%s", labels[i]);
		}
	}
	if (horizontal)
		svg_text(s, (sc->p0 + sc->p1) / 2, at + 34, "axis-label", "middle", "%s", label);
	else
		svg_vtext(s, at - 52, (sc->p0 + sc->p1) / 2, "axis-label", label);
	svg_group_end(s);
}

int draw_count_ticks(size_t max, double *ticks, char **labels, char *buf, int cap)
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

int draw_pow2_ticks(int lo, int hi, int most, double *ticks, char **labels, char *buf, int cap)
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

void draw_legend(struct svg *s, double x, double y, const struct draw_key *keys, int n)
{
	svg_group(s, "legend");
	for (int i = 0; i < n; i++) {
		double yy = y + 16 * i;
		if (keys[i].line)
			svg_line(s, x, yy + 5, x + 18, yy + 5, keys[i].colour, 2, NULL);
		else
			svg_rect(s, x, yy, 18, 10, keys[i].colour, "key", NULL);
		svg_text(s, x + 24, yy + 9, "key-text", "start", "%s", keys[i].text);
	}
	svg_group_end(s);
}
