/* fpref — how well a quantisation kept a tensor: error of the dequantised
 * values against the input, the share flushed to zero and the share at the
 * element format's largest magnitude.  Generic over schemes (per-tensor,
 * delayed, tile/block, MX, NVFP4): it sees only FP32 inputs, FP32
 * dequantised values and the codes.  docs/scaling.md defines each figure. */
#ifndef FPREF_QUANT_REPORT_H
#define FPREF_QUANT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fpref_quant_report {
	size_t count;             /* elements */
	size_t nonfinite_inputs;  /* NaN or inf inputs: left out of every error */
	size_t nonfinite_outputs; /* finite inputs whose dequantised value is NaN or inf: left out of the errors */
	size_t compared;          /* finite input, finite output: the errors' population */
	size_t compared_nonzero;  /* of those, input nonzero: the relative errors' population */
	double max_abs, mean_abs; /* |dequant - x| */
	double max_rel, mean_rel; /* |dequant - x| / |x| */
	size_t nonzero_inputs;    /* finite nonzero inputs */
	size_t flushed;           /* finite nonzero input whose dequantised value is +-0 */
	double flushed_fraction;  /* flushed / nonzero_inputs (0 when there are none) */
	size_t saturated;         /* codes of the element format's largest finite magnitude */
	double saturated_fraction; /* saturated / count (0 for an empty tensor) */
};

/* Compute the report of n elements: x and dequant as FP32 bit patterns,
 * codes one byte each in format element (codes or element NULL: saturated
 * is not counted and stays 0).  Each |dequant - x| is rounded once to
 * binary64 and each relative error once more; means are binary64 sums in
 * index order divided by the population; all through the emulator's
 * binary64 operations (round to nearest even), so the figures are the same
 * on every machine.  0, or -1 for an element format wider than 8 bits. */
int fpref_emu_quant_report_compute(const uint32_t *x, const uint32_t *dequant, size_t n,
			       const struct fpref_format *element, const uint8_t *codes, struct fpref_quant_report *r);

/* Each element's |dequant - x| as binary64, rounded once, the same
 * figure the report's max and mean are made of (NaN where the input or
 * the output is not finite): for the heat map of fpref draw quantize. */
void fpref_emu_quant_abs_errors(const uint32_t *x, const uint32_t *dequant, size_t n, double *out);

#ifdef __cplusplus
}
#endif
#endif
