/* NVFP4 in the emulator: E2M1 elements in blocks of 16 (1x16 along rows,
 * or 16x16), an E4M3 scale per block and an FP32 scale per tensor, in
 * Transformer Engine's order of FP32 operations (docs/scaling-mx.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "scale_f32.h"

#define F32_2688 0x45280000u /* 448 * 6: E4M3's max times E2M1's */
#define F32_SIX 0x40C00000u

struct nvfp4 {
	struct f32_arith a;
	struct fpref_format e4m3, e2m1;
	struct fpref_env sat;     /* rne, satfinite */
	struct fpref_env element; /* rne or the seeded stream, satfinite */
	uint32_t block_encode;    /* S * (1/6) */
	uint32_t tensor_decode;   /* 1/S */
};

static int nvfp4_init(struct nvfp4 *q, const struct fpref_nvfp4_params *p, size_t rows, size_t cols, char *err,
		      size_t errlen)
{
	if (cols != 0 && rows > SIZE_MAX / cols) {
		snprintf(err, errlen, "tensor of %zu x %zu elements is too large", rows, cols);
		return -1;
	}
	if (f32_arith_init(&q->a, err, errlen) != 0 || fpref_format_parse("float8_e4m3fn", &q->e4m3, err, errlen) != 0 ||
	    fpref_format_parse("float4_e2m1fn", &q->e2m1, err, errlen) != 0)
		return -1;
	q->sat = q->a.env;
	q->sat.overflow = FPREF_OVERFLOW_SAT;
	q->element = q->sat;
	if (p->stochastic) {
		q->element.rounding = FPREF_SR;
		q->element.sr_seeded = true;
		q->element.sr_seed = p->seed;
		q->element.sr_width = 32;
	}
	return 0;
}

/* Which block element (r, c) belongs to, as an index into the scales. */
static size_t block_of(const struct fpref_nvfp4_params *p, size_t cols, size_t r, size_t c)
{
	size_t across = (cols + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK;
	return (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across + c / FPREF_NVFP4_BLOCK;
}

size_t fpref_emu_nvfp4_scale_count(const struct fpref_nvfp4_params *p, size_t rows, size_t cols)
{
	size_t down = p->two_d ? (rows + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK : rows;
	return down * ((cols + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK);
}

/* S = min(2688 / amax, FLT_MAX), or 1 when amax is 0 or infinite (S 0). */
static uint32_t tensor_scale(const struct f32_arith *a, uint32_t amax)
{
	if (amax == 0)
		return F32_ONE;
	uint32_t s = f32_op(a, FPREF_OP_MIN, f32_op(a, FPREF_OP_DIV, F32_2688, amax), F32_MAX);
	return s == 0 ? F32_ONE : s;
}

/* The block scale s_b = e4m3_satfinite(amax_b * (S * (1/6))). */
static uint8_t block_scale(const struct nvfp4 *q, uint32_t amax)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->a.f32, f32_op(&q->a, FPREF_OP_MUL, amax, q->block_encode), &q->e4m3, &q->sat, 0, &out,
			  &flags);
	return (uint8_t)out;
}

/* What elements of a block are multiplied by: min(1 / (s_b * (1/S)), FLT_MAX). */
static uint32_t element_encode(const struct nvfp4 *q, uint8_t scale)
{
	uint64_t sb = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->e4m3, scale, &q->a.f32, &q->a.env, 0, &sb, &flags);
	uint32_t decode = f32_op(&q->a, FPREF_OP_MUL, (uint32_t)sb, q->tensor_decode);
	return f32_op(&q->a, FPREF_OP_MIN, f32_op(&q->a, FPREF_OP_DIV, F32_ONE, decode), F32_MAX);
}

/* Each block's amax into amax[], and the tensor's; TE's amax is a chain of
 * fmaxf, so NaNs drop out. */
static uint32_t block_maxima(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
			     uint32_t *amax)
{
	uint32_t global = 0;
	for (size_t i = 0; i < rows * cols; i++) {
		size_t b = block_of(p, cols, i / cols, i % cols);
		amax[b] = f32_amax_update(amax[b], x[i]);
		global = f32_amax_update(global, x[i]);
	}
	return global;
}

int fpref_emu_nvfp4_quantize(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			     uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
			     size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	size_t blocks = fpref_emu_nvfp4_scale_count(p, rows, cols);
	uint32_t *per_block = calloc(blocks ? blocks : 1, sizeof *per_block); /* amax, then the multiplier */
	if (!per_block) {
		snprintf(err, errlen, "out of memory for %zu blocks", blocks);
		return -1;
	}
	uint32_t S = tensor_scale(&q.a, block_maxima(p, x_f32, rows, cols, per_block));
	q.block_encode = f32_op(&q.a, FPREF_OP_MUL, S, f32_op(&q.a, FPREF_OP_DIV, F32_ONE, F32_SIX));
	q.tensor_decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, S);
	for (size_t b = 0; b < blocks; b++) {
		block_scales_e4m3[b] = block_scale(&q, per_block[b]);
		per_block[b] = element_encode(&q, block_scales_e4m3[b]);
	}
	for (size_t i = 0; i < rows * cols; i++) {
		uint32_t y = f32_op(&q.a, FPREF_OP_MUL, x_f32[i], per_block[block_of(p, cols, i / cols, i % cols)]);
		uint64_t out = 0;
		unsigned flags = 0;
		fpref_emu_convert(&q.a.f32, y, &q.e2m1, &q.element, fpref_env_sr_random(&q.element, i), &out, &flags);
		codes[i] = (uint8_t)out;
	}
	free(per_block);
	*tensor_scale_f32 = S;
	return 0;
}

int fpref_emu_nvfp4_dequantize(const struct fpref_nvfp4_params *p, const uint8_t *codes,
			       const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
			       uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	uint32_t decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, tensor_scale_f32);
	for (size_t i = 0; i < rows * cols; i++) {
		uint8_t scale = block_scales_e4m3[block_of(p, cols, i / cols, i % cols)];
		uint64_t v = 0, sb = 0;
		unsigned flags = 0;
		if (fpref_emu_convert(&q.e2m1, codes[i], &q.a.f32, &q.a.env, 0, &v, &flags) != 0) {
			snprintf(err, errlen, "code 0x%02X at element %zu is not an E2M1 pattern", codes[i], i);
			return -1;
		}
		fpref_emu_convert(&q.e4m3, scale, &q.a.f32, &q.a.env, 0, &sb, &flags);
		uint32_t out = f32_op(&q.a, FPREF_OP_MUL, (uint32_t)v, f32_op(&q.a, FPREF_OP_MUL, (uint32_t)sb, decode));
		out_f32[i] = f32_is_nan(out) ? F32_QUIET_NAN : out; /* a NaN block scale */
	}
	return 0;
}
