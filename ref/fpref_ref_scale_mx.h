/* fpref — the oracle's block-scaled quantisers: OCP MX v1.0 and NVFP4.
 *
 * The same recipes as emu/fpref_emu_scale_mx.h (docs/scaling-mx.md), computed
 * independently: amaxes, log2 and power-of-two scalings exactly in MPFR,
 * every rounding by the oracle's rounding (fpref_ref_round, fpref_ref_op).
 * Parameters come as plain values, because the oracle depends on formats/
 * and MPFR only: the scale rule by name ("ocp-floor", "nv-ceil", "rne", as
 * fpref_emu_mx_scale_rule_name spells them).  Layouts of codes and scales are
 * the emulator's.  Each returns 0, or -1 with a message. */
#ifndef FPREF_REF_SCALE_MX_H
#define FPREF_REF_SCALE_MX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

int fpref_ref_mx_quantize(const char *element, const char *scale_rule, enum fpref_rounding element_rounding,
			  const uint32_t *x_f32, size_t rows, size_t cols, uint8_t *codes, uint8_t *scales_e8m0,
			  char *err, size_t errlen);
/* The same with a library's recipe (fpref_emu_mx_recipe_name: "ocp",
 * "torchao", "modelopt"); scale_rule also "ceil" or "rceil-log2". */
int fpref_ref_mx_recipe_quantize(const char *element, const char *scale_rule, const char *recipe,
				 enum fpref_rounding element_rounding, const uint32_t *x_f32, size_t rows, size_t cols,
				 uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen);
int fpref_ref_mx_dequantize(const char *element, const uint8_t *codes, const uint8_t *scales, size_t rows,
			    size_t cols, uint32_t *out_f32, char *err, size_t errlen);

/* The NVFP4 recipes (emu/fpref_emu_scale_mx.h's fpref_nvfp4_params as plain
 * values): recipe "te", "torchao", "modelopt" or "fouroversix"; choice
 * (fouroversix) "abs_max", "mae" or "mse"; scale_bound 256 or 448; the
 * Hadamard transform's sign vector, bit i for element i. */
struct fpref_ref_nvfp4 {
	const char *recipe;
	bool two_d, stochastic;
	uint64_t seed;
	const char *choice;
	unsigned scale_bound;
	bool rht, rht_bf16;
	unsigned rht_signs;
	/* stochastic rounding from Transformer Engine's Philox4x32 stream
	 * (seed, thread as the subsequence, offset, rounds; 0 rounds: 10)
	 * instead of fpref_sr_stream */
	bool philox;
	uint64_t philox_offset, philox_thread;
	unsigned philox_rounds;
	bool torch_bf16; /* torchao, modelopt: x held as BF16 by torch, whose NaN results are 0x7FC0 */
};

int fpref_ref_nvfp4_recipe_quantize(const struct fpref_ref_nvfp4 *p, const uint32_t *x_f32, size_t rows, size_t cols,
				    uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
				    char *err, size_t errlen);
int fpref_ref_nvfp4_recipe_dequantize(const struct fpref_ref_nvfp4 *p, const uint8_t *codes,
				      const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
				      size_t cols, uint32_t *out_f32, char *err, size_t errlen);

/* Transformer Engine's recipe. */
int fpref_ref_nvfp4_quantize(bool two_d, bool stochastic, uint64_t seed, const uint32_t *x_f32, size_t rows,
			     size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
			     char *err, size_t errlen);
int fpref_ref_nvfp4_dequantize(bool two_d, const uint8_t *codes, const uint8_t *block_scales_e4m3,
			       uint32_t tensor_scale_f32, size_t rows, size_t cols, uint32_t *out_f32, char *err,
			       size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
