/* The element code that torch's and torchao's casts write for an FP32 NaN,
 * shared by the emulator's torchao MX and NVFP4 recipes.  Internal: not
 * installed. */
#ifndef FPREF_EMU_TORCH_NAN_H
#define FPREF_EMU_TORCH_NAN_H

#include <stdint.h>

#include "fpref_formats.h"

/* torch's FP8 casts write the all-ones magnitude with y's sign (E4M3 and
 * E5M2 alike).  torchao's FP6/FP4 cast (custom_fp_utils) has no NaN rule:
 * it rounds y's bit pattern as if it were a normal number (the exponent
 * field 255 read as 2^128) by integer adds, keeps the low 8 bits of the
 * result and ors in the sign, so the code depends on the NaN's bits. */
static inline uint8_t fpref_torch_nan_code(const struct fpref_format *f, uint32_t y)
{
	unsigned mbits = (unsigned)f->man_bits, sign_bit = (unsigned)(f->exp_bits + f->man_bits);
	uint8_t sign = (uint8_t)((y >> 31) << sign_bit);
	if (fpref_format_has_nan(f))
		return (uint8_t)(((1u << sign_bit) - 1) | sign);
	uint32_t mag = y & 0x7FFFFFFFu, bias = (1u << (f->exp_bits - 1)) - 1;
	uint32_t v = mag - ((127u - bias) << 23) + ((1u << (22 - mbits)) - 1) + ((mag >> (23 - mbits)) & 1u);
	return (uint8_t)(((v >> (23 - mbits)) & 0xFFu) | sign);
}

#endif
