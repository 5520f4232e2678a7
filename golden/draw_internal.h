/* What the picture kinds of golden/draw_*.c share, internal to the
 * library: a VALUE read by the oracle (golden/draw_rounding.c). */
#ifndef FPREF_GOLDEN_DRAW_INTERNAL_H
#define FPREF_GOLDEN_DRAW_INTERNAL_H

#include <stddef.h>

#include "fpref_ref.h"

/* text as the oracle reads it into v: 0, or -1 with "bad WHAT: why" in
 * err (v is cleared then). */
int fpref_golden_draw_read_value(const char *what, const char *text, struct fpref_ref_value *v, char *err,
				 size_t errlen);

#endif
