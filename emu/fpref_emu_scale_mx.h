/* fpref — block-scaled quantisers in the emulator: OCP MX v1.0 (blocks of
 * 32 with an E8M0 scale) and NVIDIA NVFP4 (blocks of 16 E2M1 values with an
 * E4M3 block scale and an FP32 tensor scale).  docs/scaling-mx.md gives
 * each recipe's formula, its order of FP32 operations and its edge cases.
 *
 * Tensors are row-major FP32 bit patterns, rows x cols.  Blocks run along
 * each row and never cross a row; when cols is not a multiple of the
 * block, the last block of a row is short (the same as padding it with
 * zeros, which never changes an amax).  Codes take one byte each (the
 * element code in the low bits; INT8 as a two's complement byte); scales
 * are row-major: rows x ceil(cols / block), or for NVFP4's 16x16 blocks
 * ceil(rows / 16) x ceil(cols / 16).
 *
 * Every FP32 operation goes through fpref_emu_op / fpref_emu_convert; the
 * oracle has an independent version of each (ref/scale_mx.c). */
#ifndef FPREF_SCALE_MX_H
#define FPREF_SCALE_MX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_MX_BLOCK 32
#define FPREF_NVFP4_BLOCK 16
#define FPREF_E8M0_NAN 0xFF

/* How a block's E8M0 scale 2^s comes from its amax (elements' largest
 * normal 2^emax_elem, largest magnitude max_elem):
 *   ocp-floor: s = floor(log2 amax) - emax_elem (OCP MX v1.0);
 *   nv-ceil:   s = ceil(log2(amax * rcp(max_elem))) in FP32, as
 *              cvt.rp.satfinite.ue8m0 (Transformer Engine's MXFP8);
 *   rne:       s = floor(log2(amax rounded to the element's precision,
 *              ties to even)) - emax_elem (torchao's and Mojo's "even"). */
enum fpref_mx_scale_rule {
	FPREF_MX_SCALE_OCP_FLOOR,
	FPREF_MX_SCALE_NV_CEIL,
	FPREF_MX_SCALE_RNE,
	/* ceil:       s = ceil(log2 amax) - emax_elem (torchao CEIL) */
	FPREF_MX_SCALE_CEIL,
	/* rceil-log2: s = ceil(fl32(log2(fl32(amax / max_elem)))), the FP32
	 * log2 correctly rounded: torchao RCEIL's eager path and ModelOpt's
	 * MXFP8, where a ratio just above a power of two 2^k can give k */
	FPREF_MX_SCALE_RCEIL_LOG2
};

/* Whose MX quantiser: how specials, a scale of 2^-127 and the element step
 * are treated (docs/scaling-mx.md, "MX recipes").  Each is a row of
 * emu/scale_mx.c's recipe table. */
enum fpref_mx_recipe {
	FPREF_MX_OCP,      /* OCP MX v1.0 (the default: zero) */
	FPREF_MX_TORCHAO,  /* torchao 0.18 to_mx, its PyTorch path */
	FPREF_MX_MODELOPT  /* NVIDIA ModelOpt 0.47: MXFP8QTensor (E4M3) and MXFP4QTensor (E2M1) */
};

struct fpref_mx_params {
	const char *element; /* float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, int8 (aliases too) */
	enum fpref_mx_scale_rule rule;
	enum fpref_rounding element_rounding; /* FPREF_RNE or FPREF_RNA */
	enum fpref_mx_recipe recipe;
};

/* "ocp", "torchao", "modelopt". */
const char *fpref_emu_mx_recipe_name(enum fpref_mx_recipe r);
int fpref_emu_mx_recipe_parse(const char *name, enum fpref_mx_recipe *r);

/* "ocp-floor", "nv-ceil", "rne", "ceil", "rceil-log2". */
const char *fpref_emu_mx_scale_rule_name(enum fpref_mx_scale_rule rule);
int fpref_emu_mx_scale_rule_parse(const char *name, enum fpref_mx_scale_rule *rule);
const char *fpref_emu_mx_scale_rule_choices(void);

/* 0, or -1 with a message naming what the recipe has: an element, rule or
 * element rounding that the recipe's library does not compute (torchao:
 * the float elements, every rule; modelopt: e4m3 and e2m1 under
 * rceil-log2; the libraries round elements their own way, so rne only). */
int fpref_emu_mx_params_check(const struct fpref_mx_params *p, char *err, size_t errlen);

/* rows x ceil(cols / 32). */
size_t fpref_emu_mx_scale_count(size_t rows, size_t cols);

/* Quantise: codes[rows*cols], scales_e8m0[fpref_emu_mx_scale_count].  0, or -1
 * with a message (unknown element, rounding other than rne/rna, a size
 * that overflows). */
int fpref_emu_mx_quantize(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			  uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen);
/* out = X * P rounded once to FP32 (ties to even); a NaN scale or element
 * gives the quiet NaN 0x7FC00000.  -1 for a code outside the element. */
int fpref_emu_mx_dequantize(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
			    size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen);

/* Whose NVFP4 encoder: each a row of recipe parameters in
 * emu/scale_nvfp4.c (its FP32 order of operations, zero-block and
 * tiny-amax handling, scale floor, division or reciprocal), written out
 * with sources in docs/scaling-mx.md.  FOUR_OVER_SIX is the Four Over Six
 * reference (mit-han-lab/fouroversix): each block tries a scale to 6 and
 * one to 4 and keeps the one of smaller error. */
enum fpref_nvfp4_recipe {
	FPREF_NVFP4_TE,      /* Transformer Engine (the default: zero) */
	FPREF_NVFP4_TORCHAO, /* torchao 0.18 NVFP4Tensor, two-level (dynamic per-tensor scale) */
	FPREF_NVFP4_MODELOPT, /* NVIDIA ModelOpt 0.47 NVFP4QTensor */
	FPREF_NVFP4_FOUR_OVER_SIX,
	FPREF_NVFP4_TORCHAO_02A1BC44, /* torchao at commit 02a1bc44: elements x / fl(D s) */
	FPREF_NVFP4_TORCHAO_1LEVEL,   /* torchao 0.18 without a per-tensor scale */
	FPREF_NVFP4_MODELOPT_0AD6E5F0 /* ModelOpt at commit 0ad6e5f0: no [2^-9, 448] clamp */
};

/* Four Over Six: how a block's two candidates are compared (ties keep 6). */
enum fpref_nvfp4_choice { FPREF_NVFP4_ABS_MAX, FPREF_NVFP4_MAE, FPREF_NVFP4_MSE };

/* Transformer Engine's default sign vector of the random Hadamard
 * transform (get_wgrad_sign_vector): bit i set means element i is negated. */
#define FPREF_NVFP4_TE_RHT_SIGNS 0xD7E8u

struct fpref_nvfp4_params {
	bool two_d;      /* 16x16 blocks (weights); else 1x16 along rows */
	bool stochastic; /* elements by stochastic rounding from the seeded stream (te only) */
	uint64_t seed;   /* element i = row * cols + col takes fpref_sr_stream(seed, i), 32 bits */
	/* Transformer Engine's stream instead (te-nvfp4, docs/stochastic-rounding.md):
	 * element i takes lane i mod 4 of word i / 4 of the Philox4x32 stream
	 * (seed, subsequence philox_thread, philox_offset, philox_rounds), 8
	 * bits, as `fpref convert --round te-nvfp4 --sr-bits
	 * philox=SEED:OFFSET:THREAD:ROUNDS` rounds value i of a batch. */
	bool philox;
	uint64_t philox_offset, philox_thread;
	unsigned philox_rounds; /* 0: 10 */
	enum fpref_nvfp4_recipe recipe;
	enum fpref_nvfp4_choice choice; /* FOUR_OVER_SIX only */
	unsigned scale_bound;           /* FOUR_OVER_SIX: the E4M3 scale bound M, 256 or 448 (0: 256) */
	bool rht;                       /* a 16-point random Hadamard transform along rows first */
	uint16_t rht_signs;             /* its sign vector, bit i for element i of each 16 */
	bool rht_bf16;                  /* its output rounded to BF16 (ties to even), as TE's reference does */
	/* torchao, modelopt: torch held x as BF16, so its reductions return
	 * BF16's canonical NaN 0x7FC0 (0x7FC00000 in FP32), not the all-ones
	 * NaN of its vectorised FP32 maximum (docs/scaling-mx.md, "NaN
	 * patterns"). */
	bool torch_bf16;
};

/* "te", "torchao", "modelopt", "fouroversix", "torchao-02a1bc44",
 * "torchao-1level", "modelopt-0ad6e5f0"; "abs_max", "mae", "mse". */
const char *fpref_emu_nvfp4_recipe_name(enum fpref_nvfp4_recipe r);
int fpref_emu_nvfp4_recipe_parse(const char *name, enum fpref_nvfp4_recipe *r);
const char *fpref_emu_nvfp4_choice_name(enum fpref_nvfp4_choice c);
int fpref_emu_nvfp4_choice_parse(const char *name, enum fpref_nvfp4_choice *c);
/* The text of --sr-bits philox=SEED[:OFFSET[:THREAD[:ROUNDS]]], read by
 * the parser of `fpref convert --round te-nvfp4 --sr-bits` (so that both
 * name a stream alike), into p's seed and philox fields; 0, or -1 with a
 * message. */
int fpref_emu_nvfp4_parse_philox(const char *text, struct fpref_nvfp4_params *p, char *err, size_t errlen);
/* 0, or -1 with a message: a recipe that does not have the option asked for. */
int fpref_emu_nvfp4_params_check(const struct fpref_nvfp4_params *p, size_t cols, char *err, size_t errlen);

/* rows x ceil(cols / 16), or ceil(rows / 16) x ceil(cols / 16) for 2-D. */
size_t fpref_emu_nvfp4_scale_count(const struct fpref_nvfp4_params *p, size_t rows, size_t cols);

/* Quantise: codes[rows*cols] (E2M1 in the low 4 bits), block scales
 * (E4M3 bits), and the recipe's FP32 tensor scale: TE's encoding scale S
 * (elements are multiplied by it on the way in), torchao's and ModelOpt's
 * decoding scale amax / 2688, Four Over Six's amax.  0, or -1 with a message. */
int fpref_emu_nvfp4_quantize(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			     uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
			     size_t errlen);
/* The recipe's dequantisation (te: e2m1 * (s_b * (1/S)); torchao,
 * modelopt: e2m1 * (D * s_b); fouroversix: e2m1 * s_b * amax / (6 M)),
 * each step rounded to FP32; with rht, then the inverse transform (its
 * transpose, in FP32 without the BF16 rounding) back to x's domain. */
int fpref_emu_nvfp4_dequantize(const struct fpref_nvfp4_params *p, const uint8_t *codes,
			       const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
			       uint32_t *out_f32, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
