/* NVFP4 in the emulator: E2M1 elements in blocks of 16 (1x16 along rows,
 * or 16x16), an E4M3 scale per block and an FP32 scale per tensor.  The
 * encoders of Transformer Engine, torchao, ModelOpt and the Four Over Six
 * reference differ only in the FP32 steps that give the two scales and
 * divide the elements; each is a row of recipe_rows below, and one pipeline
 * reads the row (docs/scaling-mx.md gives each row's sources).  This file
 * holds the recipes, the element path and the steps the bulk paths take
 * from it (scale_nvfp4.h); the bulk path is scale_nvfp4_bulk.c, with Four
 * Over Six's in scale_nvfp4_46.c and the transform's in scale_nvfp4_rht.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "scale_nvfp4.h"
#include "torch_nan.h"

#define F32_E4M3_MIN_SUB 0x3B000000u /* 2^-9: ModelOpt 0.47's floor */

static const struct recipe_row recipe_rows[] = {
	{FPREF_NVFP4_TE, "te", false, TS_ENCODE, BS_MUL_S_RCP6, false, 0, true, EL_MUL_RCP, false, true, true, true,
	 false, 0, 0},
	{FPREF_NVFP4_TORCHAO, "torchao", true, TS_DECODE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true, EL_MUL_RCP_D_DIV_S,
	 false, false, false, false, true, 0xFFFFFFFFu, 0},
	{FPREF_NVFP4_MODELOPT, "modelopt", true, TS_DECODE, BS_DIV_6D, true, F32_E4M3_MIN_SUB, true, EL_DIV_TOTAL, true,
	 false, false, false, true, F32_QUIET_NAN, 16},
	{FPREF_NVFP4_FOUR_OVER_SIX, "fouroversix", true, TS_AMAX, BS_BOUND_DIV_A, false, 0, false, EL_DIV_46, false,
	 true, false, true, false, 0, 0},
	{FPREF_NVFP4_TORCHAO_02A1BC44, "torchao-02a1bc44", true, TS_DECODE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true,
	 EL_DIV_TOTAL, false, false, false, false, false, 0, 0},
	{FPREF_NVFP4_TORCHAO_1LEVEL, "torchao-1level", true, TS_ONE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true,
	 EL_MUL_RCP_D_DIV_S, false, false, false, false, true, 0xFFFFFFFFu, 0},
	{FPREF_NVFP4_MODELOPT_0AD6E5F0, "modelopt-0ad6e5f0", true, TS_DECODE, BS_DIV_6D, true, 0, false, EL_DIV_TOTAL,
	 true, false, false, false, false, 0, 0},
};

static const struct recipe_row *recipe_row(enum fpref_nvfp4_recipe id)
{
	for (size_t i = 0; i < sizeof recipe_rows / sizeof recipe_rows[0]; i++)
		if (recipe_rows[i].id == id)
			return &recipe_rows[i];
	return NULL;
}

const char *fpref_emu_nvfp4_recipe_name(enum fpref_nvfp4_recipe r)
{
	const struct recipe_row *row = recipe_row(r);
	return row ? row->name : "?";
}

int fpref_emu_nvfp4_recipe_parse(const char *name, enum fpref_nvfp4_recipe *r)
{
	for (size_t i = 0; i < sizeof recipe_rows / sizeof recipe_rows[0]; i++)
		if (strcmp(name, recipe_rows[i].name) == 0) {
			*r = recipe_rows[i].id;
			return 0;
		}
	return -1;
}

static const char *const choice_names[] = { "abs_max", "mae", "mse" };

const char *fpref_emu_nvfp4_choice_name(enum fpref_nvfp4_choice c)
{
	return (unsigned)c < 3 ? choice_names[c] : "?";
}

int fpref_emu_nvfp4_choice_parse(const char *name, enum fpref_nvfp4_choice *c)
{
	for (unsigned i = 0; i < 3; i++)
		if (strcmp(name, choice_names[i]) == 0) {
			*c = (enum fpref_nvfp4_choice)i;
			return 0;
		}
	return -1;
}

int fpref_emu_nvfp4_parse_philox(const char *text, struct fpref_nvfp4_params *p, char *err, size_t errlen)
{
	struct fpref_env env;
	fpref_env_default(&env);
	if (fpref_env_sr_instruction("te-nvfp4", fpref_format_get(FPREF_FORMAT_FLOAT32),
				     fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN), &env, err, errlen) != 0)
		return -1;
	if (strncmp(text, "philox=", 7) != 0) {
		snprintf(err, errlen, "bad --sr-bits '%s' (expected philox=SEED[:OFFSET[:THREAD[:ROUNDS]]])", text);
		return -1;
	}
	if (fpref_env_parse_sr(text, &env, err, errlen) != 0)
		return -1;
	p->philox = true;
	p->seed = env.sr_seed;
	p->philox_offset = env.sr_offset;
	p->philox_thread = env.sr_subsequence;
	p->philox_rounds = env.sr_philox_rounds;
	return 0;
}

int fpref_emu_nvfp4_params_check(const struct fpref_nvfp4_params *p, size_t cols, char *err, size_t errlen)
{
	const struct recipe_row *row = recipe_row(p->recipe);
	const char *no = NULL;
	if (!row)
		no = "an NVFP4 recipe (unknown recipe)";
	else if (p->two_d && !row->has_two_d)
		no = "16x16 blocks";
	else if (p->stochastic && !row->has_sr)
		no = "stochastic rounding";
	else if (p->rht && !row->has_rht)
		no = "the random Hadamard transform";
	else if (p->torch_bf16 && !row->x86_default_nan)
		no = "--torch-dtype (torch's NaN: torchao, torchao-1level and modelopt only)";
	if (no) {
		snprintf(err, errlen, "NVFP4 recipe %s has no %s", row ? row->name : "?", no);
		return -1;
	}
	if (p->recipe == FPREF_NVFP4_FOUR_OVER_SIX &&
	    ((unsigned)p->choice > FPREF_NVFP4_MSE ||
	     (p->scale_bound != 0 && p->scale_bound != 256 && p->scale_bound != 448))) {
		snprintf(err, errlen, "Four Over Six takes abs_max, mae or mse and a scale bound of 256 or 448");
		return -1;
	}
	if (p->philox && (!p->stochastic || p->philox_rounds > 64)) {
		snprintf(err, errlen, "the Philox stream feeds stochastic rounding, with 1 to 64 rounds");
		return -1;
	}
	if (p->rht && cols % FPREF_NVFP4_BLOCK != 0) {
		snprintf(err, errlen, "the random Hadamard transform needs rows of a multiple of 16, not %zu", cols);
		return -1;
	}
	return 0;
}

int fpref_emu_nvfp4_init(struct nvfp4 *q, const struct fpref_nvfp4_params *p, size_t rows, size_t cols, char *err,
		      size_t errlen)
{
	if (cols != 0 && rows > SIZE_MAX / cols) {
		snprintf(err, errlen, "tensor of %zu x %zu elements is too large", rows, cols);
		return -1;
	}
	if (fpref_emu_nvfp4_params_check(p, cols, err, errlen) != 0)
		return -1;
	q->row = recipe_row(p->recipe);
	f32_arith_init(&q->a);
	q->e4m3 = *fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN);
	q->e2m1 = *fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN);
	q->bf16 = *fpref_format_get(FPREF_FORMAT_BFLOAT16);
	q->scale_env = q->a.env;
	q->scale_env.overflow = q->row->scale_saturates ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	q->element = q->a.env;
	q->element.overflow = FPREF_OVERFLOW_SAT;
	if (p->stochastic && p->philox) {
		/* the instruction's lanes and width, on this element environment */
		struct fpref_env te;
		fpref_env_default(&te);
		if (fpref_env_sr_instruction("te-nvfp4", &q->a.f32, &q->e2m1, &te, err, errlen) != 0)
			return -1;
		q->element.rounding = FPREF_SR;
		q->element.sr_rule = te.sr_rule;
		q->element.sr_width = te.sr_width;
		q->element.sr_word_bits = te.sr_word_bits;
		q->element.sr_lanes = te.sr_lanes;
		memcpy(q->element.sr_lane_shift, te.sr_lane_shift, sizeof te.sr_lane_shift);
		q->element.sr_instruction = te.sr_instruction;
		q->element.sr_seeded = q->element.sr_philox = true;
		q->element.sr_seed = p->seed;
		q->element.sr_offset = p->philox_offset;
		q->element.sr_subsequence = p->philox_thread;
		q->element.sr_philox_rounds = p->philox_rounds ? p->philox_rounds : 10;
	} else if (p->stochastic) {
		q->element.rounding = FPREF_SR;
		q->element.sr_seeded = true;
		q->element.sr_seed = p->seed;
		q->element.sr_width = 32;
	}
	q->bound = p->scale_bound == 448 ? F32_448 : 0x43800000u; /* 256 */
	q->torch_bf16 = p->torch_bf16;
	return 0;
}

/* One FP32 step of the recipe; where the row says so, an invalid
 * operation's NaN is x86's negative default NaN (a NaN operand's own NaN
 * propagates as before). */
static uint32_t step(const struct nvfp4 *q, enum fpref_op op, uint32_t x, uint32_t y)
{
	uint32_t r = f32_op(&q->a, op, x, y);
	if (!q->row->x86_default_nan || !f32_is_nan(r))
		return r;
	return f32_is_nan(x) ? x | 0x00400000u : f32_is_nan(y) ? y | 0x00400000u : 0xFFC00000u;
}

/* Which block element (r, c) belongs to, as an index into the scales. */
size_t fpref_emu_nvfp4_block_of(const struct fpref_nvfp4_params *p, size_t cols, size_t r, size_t c)
{
	size_t across = (cols + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK;
	return (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across + c / FPREF_NVFP4_BLOCK;
}

size_t fpref_emu_nvfp4_scale_count(const struct fpref_nvfp4_params *p, size_t rows, size_t cols)
{
	size_t down = p->two_d ? (rows + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK : rows;
	return down * ((cols + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK);
}

/* The element indices of block b, in row-major order; their count. */
size_t fpref_emu_nvfp4_block_members(const struct fpref_nvfp4_params *p, size_t rows, size_t cols, size_t b,
				     size_t *idx)
{
	size_t across = (cols + FPREF_NVFP4_BLOCK - 1) / FPREF_NVFP4_BLOCK;
	size_t r0 = (b / across) * (p->two_d ? FPREF_NVFP4_BLOCK : 1), c0 = (b % across) * FPREF_NVFP4_BLOCK;
	size_t n = 0;
	for (size_t r = r0; r < rows && r < r0 + (p->two_d ? FPREF_NVFP4_BLOCK : 1); r++)
		for (size_t c = c0; c < cols && c < c0 + FPREF_NVFP4_BLOCK; c++)
			idx[n++] = r * cols + c;
	return n;
}

static uint32_t f32_abs(uint32_t x)
{
	return x & F32_ABS_MASK;
}

/* The 16-point transform of each 16 along the rows: out_k = sum over j of
 * x_j * (+-1/4) H16[j][k], the sign of row j from the vector, summed in FP32
 * from +0 in order of j (an accumulator as a matrix product keeps it),
 * then rounded to BF16 if asked.  inverse: x_k = sum over j of y_j *
 * (+-1/4) H16[j][k] with the sign of k (the transpose; H16 / 4 is its own
 * inverse), in FP32. */
void fpref_emu_nvfp4_hadamard(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse,
			      const uint32_t *x, size_t n, uint32_t *out)
{
	for (size_t g = 0; g + FPREF_NVFP4_BLOCK <= n; g += FPREF_NVFP4_BLOCK) {
		for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++) {
			uint32_t acc = 0;
			for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++) {
				unsigned signed_index = inverse ? k : j;
				bool negative = (((unsigned)p->rht_signs >> signed_index) & 1u) !=
						((unsigned)__builtin_popcount(j & k) & 1u);
				uint32_t m = F32_QUARTER | (negative ? 0x80000000u : 0);
				acc = f32_op(&q->a, FPREF_OP_ADD, acc, f32_op(&q->a, FPREF_OP_MUL, x[g + j], m));
			}
			if (p->rht_bf16 && !inverse) {
				uint64_t b = 0, back = 0;
				unsigned flags = 0;
				fpref_emu_convert(&q->a.f32, acc, &q->bf16, &q->a.env, 0, &b, &flags);
				fpref_emu_convert(&q->bf16, b, &q->a.f32, &q->a.env, 0, &back, &flags);
				acc = (uint32_t)back;
			}
			out[g + k] = acc;
		}
	}
}

/* The tensor scale from the tensor's amax. */
uint32_t fpref_emu_nvfp4_tensor_scale(const struct nvfp4 *q, uint32_t amax)
{
	if (q->row->tensor == TS_DECODE)
		return step(q, FPREF_OP_DIV,
			    !f32_is_nan(amax) || !q->row->tensor_amax_nan ? amax
			    : q->torch_bf16				   ? F32_QUIET_NAN
									   : q->row->tensor_amax_nan,
			    F32_2688);
	if (q->row->tensor == TS_ONE)
		return F32_ONE;
	if (q->row->tensor == TS_AMAX)
		return amax;
	if (amax == 0) /* S = min(2688 / amax, FLT_MAX), or 1 when amax is 0 or infinite (S 0) */
		return F32_ONE;
	uint32_t s = f32_op(&q->a, FPREF_OP_MIN, f32_op(&q->a, FPREF_OP_DIV, F32_2688, amax), F32_MAX);
	return s == 0 ? F32_ONE : s;
}

uint32_t fpref_emu_nvfp4_e4m3_value(const struct nvfp4 *q, uint8_t code)
{
	uint64_t v = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->e4m3, code, &q->a.f32, &q->a.env, 0, &v, &flags);
	return (uint32_t)v;
}

/* The FP32 value a block's E4M3 scale is rounded from, from the block's
 * amax m (four: the candidate that scales to 4). */
uint32_t fpref_emu_nvfp4_block_scale_value(const struct nvfp4 *q, uint32_t m, bool four)
{
	const struct f32_arith *a = &q->a;
	uint32_t hp;
	switch (q->row->block) {
	case BS_MUL_S_RCP6:
		hp = f32_op(a, FPREF_OP_MUL, m, q->block_encode);
		break;
	case BS_DIV6_DIV_D:
		hp = step(q, FPREF_OP_DIV, f32_op(a, FPREF_OP_DIV, m, F32_SIX), q->T);
		break;
	case BS_DIV_6D:
		hp = step(q, FPREF_OP_DIV, m, f32_op(a, FPREF_OP_MUL, F32_SIX, q->T));
		break;
	default:
		hp = f32_op(a, FPREF_OP_DIV, f32_op(a, FPREF_OP_MUL, m, q->bound), q->T);
		if (four)
			hp = f32_op(a, FPREF_OP_MUL, hp, F32_1_5);
	}
	if (q->row->zero_scale_is_one && f32_abs(hp) == 0)
		hp = F32_ONE;
	if (q->row->scale_floor && !f32_is_nan(hp)) /* torch.clamp: a NaN stays NaN, its sign too */
		hp = f32_op(a, FPREF_OP_MIN, f32_op(a, FPREF_OP_MAX, hp, q->row->scale_floor), F32_448);
	return hp;
}

/* A block's E4M3 scale from its amax m (four: the candidate that scales to 4). */
static uint8_t block_scale(const struct nvfp4 *q, uint32_t m, bool four)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->a.f32, fpref_emu_nvfp4_block_scale_value(q, m, four), &q->e4m3, &q->scale_env, 0, &out,
			  &flags);
	return (uint8_t)out;
}

/* What the elements of a block with scale code sb are multiplied by (or
 * divided by, where *divide), but Four Over Six's. */
uint32_t fpref_emu_nvfp4_element_factor(const struct nvfp4 *q, uint8_t sb, bool *divide)
{
	const struct f32_arith *a = &q->a;
	uint32_t s = fpref_emu_nvfp4_e4m3_value(q, sb);
	*divide = q->row->element == EL_DIV_TOTAL;
	if (q->row->element == EL_MUL_RCP) {
		uint32_t decode = f32_op(a, FPREF_OP_MUL, s, q->tensor_decode);
		return f32_op(a, FPREF_OP_MIN, f32_op(a, FPREF_OP_DIV, F32_ONE, decode), F32_MAX);
	}
	if (q->row->element == EL_DIV_TOTAL)
		return f32_op(a, FPREF_OP_MUL, q->T, s);
	return f32_op(a, FPREF_OP_DIV, f32_op(a, FPREF_OP_DIV, F32_ONE, q->T), s);
}

/* x as the block with scale code sb makes it, before the E2M1 rounding. */
static uint32_t scaled_element(const struct nvfp4 *q, uint8_t sb, uint32_t x)
{
	const struct f32_arith *a = &q->a;
	if (q->row->element != EL_DIV_46) {
		bool divide;
		uint32_t by = fpref_emu_nvfp4_element_factor(q, sb, &divide);
		if (q->row->element == EL_MUL_RCP_D_DIV_S) /* torchao 0.18: 0 * inf is x86's NaN (D = 0) */
			return step(q, FPREF_OP_MUL, x, by);
		return f32_op(a, divide ? FPREF_OP_DIV : FPREF_OP_MUL, x, by);
	}
	uint32_t s = fpref_emu_nvfp4_e4m3_value(q, sb);
	if (f32_abs(s) == 0)
		return 0;
	uint32_t num = f32_op(a, FPREF_OP_MUL, f32_op(a, FPREF_OP_MUL, x, F32_SIX), q->bound);
	return f32_op(a, FPREF_OP_DIV, num, f32_op(a, FPREF_OP_MUL, q->T, s));
}

static uint8_t element_code(const struct nvfp4 *q, uint32_t y, uint64_t random)
{
	uint64_t out = 0;
	unsigned flags = 0;
	if (q->row->element == EL_MUL_RCP_D_DIV_S && f32_is_nan(y)) /* torchao's FP4 cast of the NaN's bits */
		return fpref_torch_nan_code(&q->e2m1, y);
	fpref_emu_convert(&q->a.f32, y, &q->e2m1, &q->element, random, &out, &flags);
	if (q->row->minus_zero_to_plus && y == 0x80000000u)
		out = 0;
	return (uint8_t)out;
}

/* torchao 0.18's codes in a block whose E4M3 scale sb is NaN: every
 * element becomes x * fl(fl(1/D) / s_b), and the product is that factor's
 * NaN whatever x is (measured with torch 2.15 on the CPU, as for MX).  The
 * factor's NaN is x86's: 1/D passes on D's NaN, else the division passes on
 * s_b's, which torch's E4M3 cast reads as 0x7FF00000 with the code's sign.
 * torchao's FP4 cast then makes a code of its bits (fpref_torch_nan_code). */
static bool torch_nan_block(const struct nvfp4 *q, uint8_t sb, uint8_t *code)
{
	if (q->row->element != EL_MUL_RCP_D_DIV_S || (sb & 0x7Fu) != 0x7Fu)
		return false;
	uint32_t s = ((uint32_t)(sb >> 7) << 31) | 0x7FF00000u;
	*code = fpref_torch_nan_code(&q->e2m1, step(q, FPREF_OP_DIV, step(q, FPREF_OP_DIV, F32_ONE, q->T), s));
	return true;
}

/* Four Over Six's dequantisation: ((e2m1 * s_b) * amax) / (6 M). */
uint32_t fpref_emu_nvfp4_dequant_46(const struct nvfp4 *q, uint8_t code, uint32_t s)
{
	const struct f32_arith *a = &q->a;
	uint64_t v = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->e2m1, code, &a->f32, &a->env, 0, &v, &flags);
	uint32_t six_m = f32_op(a, FPREF_OP_MUL, F32_SIX, q->bound);
	return f32_op(a, FPREF_OP_DIV, f32_op(a, FPREF_OP_MUL, f32_op(a, FPREF_OP_MUL, (uint32_t)v, s), q->T), six_m);
}

/* One Four Over Six candidate of a block: its scale, codes and error. */
static uint32_t candidate_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			     const size_t *idx, size_t n, uint32_t m, bool four, uint8_t *scale, uint8_t *codes)
{
	const struct f32_arith *a = &q->a;
	*scale = block_scale(q, m, four);
	uint32_t s = fpref_emu_nvfp4_e4m3_value(q, *scale), err = 0;
	for (size_t i = 0; i < n; i++) {
		codes[i] = element_code(q, scaled_element(q, *scale, x[idx[i]]), 0);
		uint32_t d = f32_op(a, FPREF_OP_SUB, fpref_emu_nvfp4_dequant_46(q, codes[i], s), x[idx[i]]);
		if (p->choice == FPREF_NVFP4_ABS_MAX) /* torch's max: a NaN wins */
			err = f32_is_nan(d) || f32_is_nan(err) ? F32_QUIET_NAN : f32_abs(d) > err ? f32_abs(d) : err;
		else
			err = f32_op(a, FPREF_OP_ADD, err,
				     p->choice == FPREF_NVFP4_MAE ? f32_abs(d) : f32_op(a, FPREF_OP_MUL, d, d));
	}
	return err;
}

/* The codes of a block's m elements at idx with scale code sb, but Four
 * Over Six's; x holds the tensor's elements from index origin on. */
void fpref_emu_nvfp4_block_codes(const struct nvfp4 *q, const uint32_t *x, size_t origin, const size_t *idx, size_t m,
			uint8_t sb, uint8_t *codes)
{
	uint8_t nan_code;
	if (torch_nan_block(q, sb, &nan_code)) {
		for (size_t i = 0; i < m; i++)
			codes[idx[i]] = nan_code;
		return;
	}
	for (size_t i = 0; i < m; i++)
		codes[idx[i]] = element_code(q, scaled_element(q, sb, x[idx[i] - origin]),
					     fpref_env_sr_random(&q->element, idx[i]));
}

/* Whether a NaN amax of block b of n is ModelOpt's vectorised reduction's
 * 0xFFFFFFFF (recipe_row's block_nan_lanes). */
static bool nan_lane(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, size_t n, size_t b)
{
	size_t lanes = q->row->block_nan_lanes;
	return lanes && !p->torch_bf16 && b < n / lanes * lanes;
}

/* A Four Over Six block (its m elements at idx, amax m_b): the candidate
 * of the smaller error, its scale and codes (ties and NaN keep 6). */
void fpref_emu_nvfp4_block_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			      const size_t *idx, size_t m, uint32_t m_b, uint8_t *scale, uint8_t *codes)
{
	uint8_t s4, s6, four[MAX_BLOCK], six[MAX_BLOCK];
	uint32_t e6 = candidate_46(q, p, x, idx, m, m_b, false, &s6, six);
	uint32_t e4 = candidate_46(q, p, x, idx, m, m_b, true, &s4, four);
	uint64_t lt = 0;
	unsigned flags = 0;
	uint64_t in[2] = { e4, e6 };
	fpref_emu_op(FPREF_OP_LT, &q->a.f32, in, &q->a.env, 0, &lt, &flags);
	*scale = lt ? s4 : s6;
	for (size_t i = 0; i < m; i++)
		codes[idx[i]] = lt ? four[i] : six[i];
}

/* Each block's amax into amax[], and the tensor's. */
static uint32_t block_maxima(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			     size_t rows, size_t cols, uint32_t *amax)
{
	uint32_t global = 0;
	for (size_t i = 0; i < rows * cols; i++) {
		size_t b = fpref_emu_nvfp4_block_of(p, cols, i / cols, i % cols);
		if (q->row->amax_nan_propagates && f32_is_nan(x[i])) {
			amax[b] = global = F32_QUIET_NAN;
			continue;
		}
		if (!f32_is_nan(amax[b]))
			amax[b] = f32_amax_update(amax[b], x[i]);
		if (!f32_is_nan(global))
			global = f32_amax_update(global, x[i]);
	}
	size_t n = fpref_emu_nvfp4_scale_count(p, rows, cols);
	for (size_t b = 0; b < n; b++)
		if (f32_is_nan(amax[b]) && nan_lane(q, p, n, b))
			amax[b] = 0xFFFFFFFFu;
	return global;
}

/* Each block's largest magnitude as bits (a NaN's above inf's) into
 * amax[] (zeroed) for rows [0, rows) of x: each row's stretches of 16 in
 * turn, a 16x16 block the largest of its 16 stretches. */
QUANT_CLONES void fpref_emu_nvfp4_band_maxima(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows,
				     size_t cols, uint32_t *amax)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), full = cols / FPREF_NVFP4_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		const uint32_t *row = x + r * cols;
		uint32_t *a = amax + (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across;
		fpref_emu_quant_stretch_maxima(row, full, a);
		if (full < across) {
			uint32_t m = fpref_emu_quant_magnitude_max(row + full * FPREF_NVFP4_BLOCK,
								   cols - full * FPREF_NVFP4_BLOCK);
			a[full] = m > a[full] ? m : a[full];
		}
	}
}

/* Block b's amax where it holds a NaN, as the element path reduces it
 * (x holds the tensor's elements from index origin on). */
uint32_t fpref_emu_nvfp4_nan_block_amax(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			       size_t origin, size_t rows, size_t cols, size_t b)
{
	if (q->row->amax_nan_propagates)
		return nan_lane(q, p, fpref_emu_nvfp4_scale_count(p, rows, cols), b) ? 0xFFFFFFFFu : F32_QUIET_NAN;
	size_t idx[MAX_BLOCK], n = fpref_emu_nvfp4_block_members(p, rows, cols, b, idx);
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++)
		m = f32_amax_update(m, x[idx[i] - origin]);
	return m;
}

int fpref_emu_nvfp4_quantize_reference(const struct fpref_nvfp4_params *p, const uint32_t *x_in, size_t rows,
				       size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3,
				       uint32_t *tensor_scale_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (fpref_emu_nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	size_t n = rows * cols, blocks = fpref_emu_nvfp4_scale_count(p, rows, cols);
	uint32_t *amax = calloc(blocks ? blocks : 1, sizeof *amax);
	uint32_t *rht = p->rht ? malloc((n ? n : 1) * sizeof *rht) : NULL;
	if (!amax || (p->rht && !rht)) {
		free(amax);
		free(rht);
		snprintf(err, errlen, "out of memory for %zu blocks", blocks);
		return -1;
	}
	const uint32_t *x = x_in;
	if (rht) {
		fpref_emu_nvfp4_hadamard(&q, p, false, x_in, n, rht);
		x = rht;
	}
	q.T = fpref_emu_nvfp4_tensor_scale(&q, block_maxima(&q, p, x, rows, cols, amax));
	q.block_encode = f32_op(&q.a, FPREF_OP_MUL, q.T, f32_op(&q.a, FPREF_OP_DIV, F32_ONE, F32_SIX));
	q.tensor_decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, q.T);
	size_t idx[MAX_BLOCK];
	for (size_t b = 0; b < blocks; b++) {
		size_t m = fpref_emu_nvfp4_block_members(p, rows, cols, b, idx);
		if (p->recipe == FPREF_NVFP4_FOUR_OVER_SIX) {
			fpref_emu_nvfp4_block_46(&q, p, x, idx, m, amax[b], &block_scales_e4m3[b], codes);
			continue;
		}
		block_scales_e4m3[b] = block_scale(&q, amax[b], false);
		fpref_emu_nvfp4_block_codes(&q, x, 0, idx, m, block_scales_e4m3[b], codes);
	}
	free(amax);
	free(rht);
	*tensor_scale_f32 = q.T;
	return 0;
}

int fpref_emu_nvfp4_dequantize_reference(const struct fpref_nvfp4_params *p, const uint8_t *codes,
					 const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
					 size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (fpref_emu_nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	q.T = tensor_scale_f32;
	uint32_t decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, tensor_scale_f32);
	for (size_t i = 0; i < rows * cols; i++) {
		uint32_t s = fpref_emu_nvfp4_e4m3_value(
			&q, block_scales_e4m3[fpref_emu_nvfp4_block_of(p, cols, i / cols, i % cols)]);
		uint64_t v = 0;
		unsigned flags = 0;
		if (fpref_emu_convert(&q.e2m1, codes[i], &q.a.f32, &q.a.env, 0, &v, &flags) != 0) {
			snprintf(err, errlen, "code 0x%02X at element %zu is not an E2M1 pattern", codes[i], i);
			return -1;
		}
		if (q.row->minus_zero_to_plus && v == 0x80000000u) /* ModelOpt's table reads code 8 as +0 */
			v = 0;
		uint32_t out;
		if (q.row->tensor == TS_ENCODE)
			out = f32_op(&q.a, FPREF_OP_MUL, (uint32_t)v, f32_op(&q.a, FPREF_OP_MUL, s, decode));
		else if (q.row->tensor == TS_DECODE || q.row->tensor == TS_ONE)
			out = f32_op(&q.a, FPREF_OP_MUL, (uint32_t)v, f32_op(&q.a, FPREF_OP_MUL, tensor_scale_f32, s));
		else
			out = fpref_emu_nvfp4_dequant_46(&q, codes[i], s);
		out_f32[i] = f32_is_nan(out) ? F32_QUIET_NAN : out; /* a NaN block scale */
	}
	if (p->rht) { /* back to x's domain */
		uint32_t *t = malloc((rows * cols + 1) * sizeof *t);
		if (!t) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		fpref_emu_nvfp4_hadamard(&q, p, true, out_f32, rows * cols, t);
		memcpy(out_f32, t, rows * cols * sizeof *t);
		free(t);
	}
	return 0;
}
