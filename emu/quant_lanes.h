/* What the quantisers' bulk paths share (emu/scale.c, scale_mx.c,
 * scale_nvfp4_bulk.c): a chunk of FP32 values already scaled, handed to the
 * array converter (its vector lanes) for the element's rounding; the
 * host's FP32 arithmetic where it is IEEE's (round to nearest, subnormals
 * kept), which gives the emulator's bits for every result but a NaN; and
 * the element-by-element paths, kept as the specification that
 * tests/check_quant_lanes.c holds the bulk paths to.  Internal to emu/. */
#ifndef FPREF_EMU_QUANT_LANES_H
#define FPREF_EMU_QUANT_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_scale.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_emu_quant_report.h"

/* Whether this thread's FPU rounds to nearest, keeps subnormals and traps
 * nothing (host_fpu_plain in emu/host_fpu.h): where it does not,
 * the bulk paths that compute on the host FPU (quantisers, arithmetic on
 * arrays, fused groups) step aside for the element paths. */
bool fpref_emu_quant_fpu_plain(void);

static inline float quant_f32(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static inline uint32_t quant_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

static inline bool quant_is_nan(uint32_t bits)
{
	return (bits & 0x7FFFFFFFu) > 0x7F800000u;
}

/* The loops of the bulk paths, vectorised for each instruction set (as
 * emu/op_lanes.c's are) and chosen by what the CPU has. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define QUANT_CLONES                                                                                          \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),                          \
		       optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define QUANT_CLONES
#endif

/* Whether the CPU runs the x86-64-v4 clones (AVX-512), whose vectors of
 * sixteen lanes GCC 12 lowers for the AVX2 clones a lane at a time where
 * they permute; elsewhere, true. */
static inline bool quant_sixteen_lanes(void)
{
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("x86-64-v4");
#else
	return true;
#endif
}

/* The largest magnitude of x[0..n) as bits: a NaN's above inf's. */
uint32_t fpref_emu_quant_magnitude_max(const uint32_t *x, size_t n);

/* The same for a whole tensor read once from memory, and where not_nan is
 * given, the largest that is not a NaN's (+0 where none) to it. */
uint32_t fpref_emu_quant_tensor_maxima(const uint32_t *x, size_t n, uint32_t *not_nan);

/* most[j] = the larger of most[j] and the largest magnitude as bits (a
 * NaN's above inf's) of x[16 j .. 16 j + 16), for j below count. */
void fpref_emu_quant_stretch_maxima(const uint32_t *x, size_t count, uint32_t *most);

/* y[i] = x[i] * by, or x[i] / by where divide, by the host's FP32
 * arithmetic; whether a result is NaN (the caller makes each NaN again by
 * the emulator). */
bool fpref_emu_quant_scale(const uint32_t *x, size_t n, uint32_t by, bool divide, uint32_t *y);

/* Scaled values gathered a chunk at a time and rounded to the element by
 * one call of the converter into codes[at ...]. */
#define QUANT_CHUNK 4096
struct quant_sink {
	struct fpref_emu_converter *c;
	uint8_t *codes;
	size_t at, n;
	bool minus_zero_to_plus; /* a value -0 written as code 0 (ModelOpt's NVFP4: the sign is x < 0) */
	uint32_t y[QUANT_CHUNK];
};

/* 0, or -1 where the converter cannot be made. */
int fpref_emu_quant_sink_open(struct quant_sink *s, const struct fpref_format *element, const struct fpref_env *env,
			      uint8_t *codes);
/* Rounds what is gathered (the codes from at on) and starts the next chunk at next. */
void fpref_emu_quant_sink_flush(struct quant_sink *s, size_t next);
void fpref_emu_quant_sink_close(struct quant_sink *s);

/* The element-by-element paths (the bulk ones' specification). */
int fpref_emu_mx_quantize_reference(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
				    uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen);
int fpref_emu_nvfp4_quantize_reference(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows,
				       size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3,
				       uint32_t *tensor_scale_f32, char *err, size_t errlen);
int fpref_emu_current_quantize_reference(const struct fpref_current_params *p, const uint32_t *x, size_t n,
					 uint8_t *codes, uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err,
					 size_t errlen);
int fpref_emu_block_quantize_reference(const struct fpref_block_params *p, const uint32_t *x, size_t rows,
				       size_t cols, uint8_t *codes, uint32_t *factors, char *err, size_t errlen);

int fpref_emu_quant_report_compute_reference(const uint32_t *x, const uint32_t *dequant, size_t n,
					     const struct fpref_format *element, const uint8_t *codes,
					     struct fpref_quant_report *r);

int fpref_emu_mx_dequantize_reference(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
				      size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen);
int fpref_emu_nvfp4_dequantize_reference(const struct fpref_nvfp4_params *p, const uint8_t *codes,
					 const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
					 size_t cols, uint32_t *out_f32, char *err, size_t errlen);

/* The bulk paths: 0 done, 1 where this one does not take the request (the
 * public call then takes the element path), -1 with a message. */
int fpref_emu_mx_quantize_lanes(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
				uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen);
int fpref_emu_nvfp4_quantize_lanes(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows,
				   size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
				   char *err, size_t errlen);
int fpref_emu_current_quantize_lanes(const struct fpref_current_params *p, const uint32_t *x, size_t n,
				     uint8_t *codes, uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err,
				     size_t errlen);
int fpref_emu_mx_dequantize_lanes(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
				  size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen);
int fpref_emu_nvfp4_dequantize_lanes(const struct fpref_nvfp4_params *p, const uint8_t *codes,
				     const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
				     uint32_t *out_f32, char *err, size_t errlen);
int fpref_emu_block_quantize_lanes(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
				   uint8_t *codes, uint32_t *factors, char *err, size_t errlen);

#endif
