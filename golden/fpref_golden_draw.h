/* fpref — the teaching pictures, as SVG text: every value of a format on
 * a line, how one value rounds, the catalogue's range and precision.  The
 * command (fpref draw) and the Python package (fpref.draw) call these, so
 * that both give the same bytes; the values, errors and spacings come
 * from the oracle and the emulator, and the pictures only place them
 * (fpref_golden_svg.h writes them). */
#ifndef FPREF_GOLDEN_DRAW_H
#define FPREF_GOLDEN_DRAW_H

#include <stddef.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What each returns: 0 and *svg (malloc'ed text the caller frees);
 * FPREF_DRAW_BAD_ARGS with a message in err (the caller's arguments: a
 * usage error); FPREF_DRAW_NO_MEMORY. */
#define FPREF_DRAW_BAD_ARGS (-1)
#define FPREF_DRAW_NO_MEMORY (-2)

/* The options' texts as fpref draw takes them, NULL where not given: range
 * "LO:HI" (formats of at most 8 bits: only the values in [LO, HI]); at, a
 * decimal read by the oracle, and window, values each side of it, 1..200
 * (wider formats: a window of codes about at; defaults 1 and 16). */
int fpref_golden_draw_numberline(const struct fpref_format *f, const char *range, const char *at, const char *window,
				 char **svg, char *err, size_t errlen);
/* How value (a decimal read exactly by the oracle; titles show it as
 * typed) rounds to `to` in env: its neighbours, the midpoint, where each
 * rounding mode sends it, stochastic rounding's probability, the error.
 * env's stochastic bits, where it rounds so, are the ones used. */
int fpref_golden_draw_rounding(const char *value, const struct fpref_format *to, const struct fpref_env *env,
			       char **svg, char *err, size_t errlen);
/* The whole catalogue's range against its precision. */
int fpref_golden_draw_formats(char **svg, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
