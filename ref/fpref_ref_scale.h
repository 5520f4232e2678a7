/* fpref — the oracle's scaling recipes: the same recipes as
 * fpref_emu_scale.h, written a second time on MPFR values (amax by exact
 * comparison, powers of two from the exponent, every FP32 result rounded
 * by the oracle) so that emu/ and ref/ check each other.  Same arguments
 * and results as the fpref_emu_ functions of the same names. */
#ifndef FPREF_SCALE_REF_H
#define FPREF_SCALE_REF_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_formats_scale.h"

#ifdef __cplusplus
extern "C" {
#endif

uint32_t fpref_ref_amax(const uint32_t *x, size_t n, bool ignore_nan);
int fpref_ref_te_scale(const struct fpref_format *element, uint32_t amax, uint32_t eps, bool pow2, uint32_t *scale);
int fpref_ref_current_quantize(const struct fpref_current_params *p, const uint32_t *x, size_t n, uint8_t *codes,
			       uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err, size_t errlen);
int fpref_ref_dequantize_scaled(const struct fpref_format *element, const uint8_t *codes, size_t n, uint32_t factor,
				uint32_t *out, char *err, size_t errlen);
int fpref_ref_delayed_step(struct fpref_delayed_state *s, const uint32_t *x, size_t n, uint8_t *codes,
			   uint32_t *scale_inv_used, uint32_t *amax_recorded, char *err, size_t errlen);
int fpref_ref_block_quantize(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
			     uint8_t *codes, uint32_t *factors, char *err, size_t errlen);
int fpref_ref_block_dequantize(const struct fpref_block_params *p, const uint8_t *codes, const uint32_t *factors,
			       size_t rows, size_t cols, uint32_t *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
