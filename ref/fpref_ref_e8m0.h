/* fpref — the oracle's E8M0 scale rules: the rows of
 * formats/fpref_formats_e8m0.h computed in MPFR from their definitions
 * (exact log2 by the exponent, comparisons with the powers of two and
 * their midpoints), without the oracle's or the emulator's rounding. */
#ifndef FPREF_REF_E8M0_H
#define FPREF_REF_E8M0_H

#include <stdint.h>

#include "fpref_formats_e8m0.h"

#ifdef __cplusplus
extern "C" {
#endif

/* As fpref_emu_e8m0: 0, or -1 with a message. */
int fpref_ref_e8m0(const struct fpref_e8m0_rule *r, const struct fpref_format *element, uint32_t x, uint8_t *code,
		   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
