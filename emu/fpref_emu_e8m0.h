/* fpref — the E8M0 scale rules (formats/fpref_formats_e8m0.h) in the
 * emulator: the row's special cases, its input step in FP32 arithmetic,
 * and one rounding by the shared core onto the row's grid. */
#ifndef FPREF_EMU_E8M0_H
#define FPREF_EMU_E8M0_H

#include <stdint.h>

#include "fpref_formats_e8m0.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The E8M0 code of FP32 pattern x under rule r; element is the MX
 * element for the amax rules (ignored, may be NULL, for conversions).
 * 0, or -1 with a message (an amax rule without an MX element). */
int fpref_emu_e8m0(const struct fpref_e8m0_rule *r, const struct fpref_format *element, uint32_t x, uint8_t *code,
		   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
