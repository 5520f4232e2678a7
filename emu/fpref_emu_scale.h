/* fpref — the emulator's scaling recipes: Transformer Engine current and
 * delayed per-tensor scaling, DeepSeek-V3 and TE tile/block scaling.
 *
 * Every FP32 operation goes through fpref_emu_op (float32, round to nearest
 * even, IEEE overflow, subnormals kept) and every cast to FP8 through
 * fpref_emu_convert with CUDA's satfinite conversion (rne, beyond max to
 * +-max, NaN to 0x7F): no host floating point, so the bits are the same on
 * every machine.  Inputs and scales are FP32 bit patterns; codes are one
 * byte each.  docs/scaling.md gives each recipe's formula and order. */
#ifndef FPREF_SCALE_EMU_H
#define FPREF_SCALE_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_formats_scale.h"

#ifdef __cplusplus
extern "C" {
#endif

/* max |x[i]| as FP32 bits (+0 for n == 0).  A NaN element gives NaN
 * (0x7FC00000) as torch.amax does, or is passed over as fmaxf does
 * (ignore_nan). */
uint32_t fpref_emu_amax(const uint32_t *x, size_t n, bool ignore_nan);

/* Transformer Engine's compute_scale_from_amax: amax < eps -> eps; amax
 * 0, inf or NaN -> 1; scale = fp8_max / amax rounded once; inf -> FLT_MAX;
 * pow2 clears the mantissa bits.  -1 for a bad element format. */
int fpref_emu_te_scale(const struct fpref_format *element, uint32_t amax, uint32_t eps, bool pow2, uint32_t *scale);

/* Current scaling of n elements: amax, scale, codes[i] = cvt(x[i] * scale)
 * with the FP32 product rounded first, scale_inv = 1 / scale.  Any of
 * amax, scale, scale_inv may be NULL.  0, or -1 with a message. */
int fpref_emu_current_quantize(const struct fpref_current_params *p, const uint32_t *x, size_t n, uint8_t *codes,
			       uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err, size_t errlen);

/* out[i] = float32(codes[i]) * factor, rounded once: TE dequantises with
 * scale_inv, DeepSeek with s. */
int fpref_emu_dequantize_scaled(const struct fpref_format *element, const uint8_t *codes, size_t n, uint32_t factor,
				uint32_t *out, char *err, size_t errlen);

/* One step of delayed scaling: quantise x with the state's scale (scale_inv
 * used for this tensor to *scale_inv_used), record amax(x) in history slot
 * 0, then TE's amax_and_scale_update: roll the history (slot i takes slot
 * i+1, the last slot takes the recorded amax, slot 0 becomes 0), amax =
 * the history's max (fmaxf: NaN entries ignored) or the recorded amax
 * (most_recent); scale = (fp8_max * 2^-margin) / amax when amax is finite
 * and > 0, else the old scale; inf -> FLT_MAX; scale_inv = 1 / scale.
 * amax_recorded may be NULL.  0, or -1 with a message. */
int fpref_emu_delayed_step(struct fpref_delayed_state *s, const uint32_t *x, size_t n, uint8_t *codes,
			   uint32_t *scale_inv_used, uint32_t *amax_recorded, char *err, size_t errlen);

/* Tile/block scaling of a rows x cols row-major matrix.  factors holds
 * blocks(rows, block_rows) x blocks(cols, block_cols) dequantisation
 * factors (row-major): s for DeepSeek, scale_inv for TE.  An edge block's
 * amax covers the elements it has.  0, or -1 with a message. */
int fpref_emu_block_quantize(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
			     uint8_t *codes, uint32_t *factors, char *err, size_t errlen);
/* out = float32(code) * the block's factor. */
int fpref_emu_block_dequantize(const struct fpref_block_params *p, const uint8_t *codes, const uint32_t *factors,
			       size_t rows, size_t cols, uint32_t *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
