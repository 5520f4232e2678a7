/* FP32 arithmetic for the block-scaled quantisers: each step of a recipe
 * is one emulator operation rounded to FP32 (ties to even, IEEE overflow),
 * so that the recipe's order of operations decides the bits.  Internal:
 * not installed. */
#ifndef FPREF_EMU_SCALE_F32_H
#define FPREF_EMU_SCALE_F32_H

#include "fpref_emu.h"
#include "quant_lanes.h"

#define F32_ABS_MASK 0x7FFFFFFFu
#define F32_INF 0x7F800000u
#define F32_ONE 0x3F800000u
#define F32_MAX 0x7F7FFFFFu
#define F32_QUIET_NAN 0x7FC00000u

struct f32_arith {
	struct fpref_format f32;
	struct fpref_env env;
	/* the bulk paths: products, quotients, min and max of two values
	 * that are neither NaN nor both zeros by the host's FP32 arithmetic
	 * (where fpref_emu_quant_fpu_plain), a NaN result made again by the
	 * emulator */
	bool host;
};

static inline void f32_arith_init(struct f32_arith *a)
{
	fpref_env_default(&a->env);
	a->f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	a->host = false;
}

static inline uint32_t f32_host_op(enum fpref_op op, uint32_t x, uint32_t y, bool *done)
{
	float fx = quant_f32(x), fy = quant_f32(y);
	bool ordered = !quant_is_nan(x) && !quant_is_nan(y) && ((x | y) & 0x7FFFFFFFu) != 0;
	uint32_t r = 0;
	*done = false;
	if (op == FPREF_OP_MUL || op == FPREF_OP_DIV) {
		r = quant_bits(op == FPREF_OP_MUL ? fx * fy : fx / fy);
		*done = !quant_is_nan(r);
	} else if ((op == FPREF_OP_MIN || op == FPREF_OP_MAX) && ordered) {
		r = (fx < fy) == (op == FPREF_OP_MIN) ? x : y;
		*done = true;
	}
	return r;
}

static inline uint32_t f32_op(const struct f32_arith *a, enum fpref_op op, uint32_t x, uint32_t y)
{
	bool done = false;
	if (a->host) {
		uint32_t r = f32_host_op(op, x, y, &done);
		if (done)
			return r;
	}
	uint64_t in[2] = { x, y }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, &a->f32, in, &a->env, 0, &out, &flags);
	return (uint32_t)out;
}

static inline bool f32_is_nan(uint32_t bits)
{
	return (bits & F32_ABS_MASK) > F32_INF;
}

/* 2^e for -149 <= e <= 127, exactly. */
static inline uint32_t f32_pow2(int e)
{
	return e >= -126 ? (uint32_t)(e + 127) << 23 : (uint32_t)1 << (e + 149);
}

/* The larger magnitude of the non-NaN values seen so far: FP32 magnitudes
 * order as their bit patterns. */
static inline uint32_t f32_amax_update(uint32_t amax_abs, uint32_t x)
{
	uint32_t a = x & F32_ABS_MASK;
	return !f32_is_nan(x) && a > amax_abs ? a : amax_abs;
}

#endif
