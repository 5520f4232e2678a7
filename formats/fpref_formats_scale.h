/* fpref — scaling recipes as data: the parameters that both engines (emu/
 * and ref/) take for per-tensor, delayed and tile/block quantisation, and
 * the state of a delayed-scaling quantiser.  No arithmetic here: each
 * engine computes the recipe its own way (docs/scaling.md). */
#ifndef FPREF_SCALE_H
#define FPREF_SCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FP32 constants the recipes use, as bit patterns. */
#define FPREF_F32_ONE 0x3F800000u
#define FPREF_F32_MAX 0x7F7FFFFFu /* FLT_MAX: Transformer Engine's scale when fp8_max / amax overflows */
#define FPREF_F32_DEEPSEEK_EPS 0x38D1B717u /* 1e-4f: DeepGEMM's clamp of a tile's amax */

/* What a NaN element does to an amax.  TE's kernels reduce with fmaxf and
 * __hmax, which pass over NaN; torch.amax (DeepSeek's reference code, TE's
 * Python reference) returns NaN. */
enum fpref_amax_nan {
	FPREF_AMAX_NAN_DEFAULT,  /* the recipe's own: ignore for TE, propagate for DeepSeek-V3 */
	FPREF_AMAX_NAN_IGNORE,
	FPREF_AMAX_NAN_PROPAGATE
};

/* Transformer Engine current (per-tensor) scaling. */
struct fpref_current_params {
	const struct fpref_format *element; /* float8_e4m3fn or float8_e5m2 */
	bool pow2;                          /* round the scale down to a power of two */
	uint32_t eps;                       /* FP32 floor of amax (TE's amax_epsilon); 0: none */
	enum fpref_amax_nan amax_nan;
};

/* Transformer Engine delayed scaling. */
enum fpref_amax_algo { FPREF_AMAX_MAX, FPREF_AMAX_MOST_RECENT };

struct fpref_delayed_params {
	const struct fpref_format *element;
	size_t history_len; /* L >= 1, TE's default 1024 */
	enum fpref_amax_algo algo;
	int margin;         /* 0..126: scale = (fp8_max * 2^-margin) / amax */
	enum fpref_amax_nan amax_nan; /* of the amax each step records */
};

/* The quantiser between steps: the amax history (FP32 bits, slot 0 the
 * newest) and the scale that the next tensor is quantised with. */
struct fpref_delayed_state {
	struct fpref_delayed_params params;
	uint32_t *history; /* history_len entries */
	uint32_t scale, scale_inv;
	size_t steps;
};

/* Tile and block scaling: one FP32 factor per block_rows x block_cols
 * block of a row-major matrix; edge blocks hold what is left. */
enum fpref_block_recipe {
	FPREF_BLOCK_DEEPSEEK, /* s = amax / fp8_max, q = cvt(x / s), factor s */
	FPREF_BLOCK_TE        /* scale as current scaling, q = cvt(x * scale), factor 1 / scale */
};

struct fpref_block_params {
	const struct fpref_format *element;
	enum fpref_block_recipe recipe;
	size_t block_rows, block_cols; /* 1x128 tiles, 128x128 blocks */
	bool pow2;                     /* FPREF_BLOCK_TE only */
	uint32_t eps;                  /* FP32 floor of a block's amax; 0: none */
	enum fpref_amax_nan amax_nan;
};

/* Whether element is a target the recipes allow (E4M3 or E5M2).  0, or -1
 * with a message. */
int fpref_scale_element_check(const struct fpref_format *element, char *err, size_t errlen);
/* Checks of the other fields (0, or -1 with a message). */
int fpref_current_params_check(const struct fpref_current_params *p, char *err, size_t errlen);
int fpref_block_params_check(const struct fpref_block_params *p, char *err, size_t errlen);

/* A fresh quantiser: history of zeros, scale and scale_inv 1 (TE's
 * initial state).  0, or -1 with a message (bad parameters, no memory). */
int fpref_delayed_init(struct fpref_delayed_state *s, const struct fpref_delayed_params *p, char *err, size_t errlen);
void fpref_delayed_free(struct fpref_delayed_state *s);

/* Blocks along a dimension of n elements: ceil(n / block). */
size_t fpref_scale_blocks(size_t n, size_t block);

/* Whether an amax under policy p of a recipe (te: a TE recipe) passes over NaN. */
bool fpref_amax_nan_ignored(enum fpref_amax_nan p, bool te);
int fpref_amax_nan_parse(const char *s, enum fpref_amax_nan *out);

const char *fpref_amax_algo_name(enum fpref_amax_algo a);
int fpref_amax_algo_parse(const char *s, enum fpref_amax_algo *out);

#ifdef __cplusplus
}
#endif
#endif
