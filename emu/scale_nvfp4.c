/* NVFP4 in the emulator: E2M1 elements in blocks of 16 (1x16 along rows,
 * or 16x16), an E4M3 scale per block and an FP32 scale per tensor.  The
 * encoders of Transformer Engine, torchao, ModelOpt and the Four Over Six
 * reference differ only in the FP32 steps that give the two scales and
 * divide the elements; each is a row of recipe_rows below, and one pipeline
 * reads the row (docs/scaling-mx.md gives each row's sources). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "torch_nan.h"

#define F32_2688 0x45280000u /* 448 * 6: E4M3's max times E2M1's */
#define F32_SIX 0x40C00000u
#define F32_448 0x43E00000u
#define F32_1_5 0x3FC00000u
#define F32_QUARTER 0x3E800000u
#define F32_E4M3_TINY 0x3C800000u /* 2^-6: torch.finfo(float8_e4m3fn).tiny, torchao's floor */
#define MAX_BLOCK (FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK)

/* The tensor scale T each recipe keeps. */
enum tensor_form {
	TS_ENCODE, /* S = min(2688 / amax, FLT_MAX), 1 for amax 0 (TE) */
	TS_DECODE, /* D = amax / 2688 */
	TS_AMAX,   /* amax itself (Four Over Six) */
	TS_ONE     /* none: D = 1 (torchao's single level) */
};

/* The FP32 value that is rounded to the block's E4M3 scale, from the block's amax m. */
enum block_form {
	BS_MUL_S_RCP6, /* m * (S * (1/6)) */
	BS_DIV6_DIV_D, /* (m / 6) / D */
	BS_DIV_6D,     /* m / (6 * D) */
	BS_BOUND_DIV_A /* (m * M) / amax, times 1.5 for the candidate that scales to 4 */
};

/* What an element x of the block becomes before it is rounded to E2M1. */
enum element_form {
	EL_MUL_RCP,   /* x * min(1 / (s_b * (1/S)), FLT_MAX) */
	EL_DIV_TOTAL, /* x / (D * s_b) */
	EL_MUL_RCP_D_DIV_S, /* x * ((1 / D) / s_b) (torchao 0.18) */
	EL_DIV_46     /* ((x * 6) * M) / (amax * s_b), or 0 where s_b is 0 */
};

struct recipe_row {
	enum fpref_nvfp4_recipe id;
	const char *name;
	bool amax_nan_propagates; /* torch.amax / torch.max: a NaN wins; TE's fmaxf passes over it */
	enum tensor_form tensor;
	enum block_form block;
	bool zero_scale_is_one;   /* a block scale of 0 becomes 1 before the cast (ModelOpt), then: */
	uint32_t scale_floor;     /* the FP32 block scale clamped to [floor, 448] before the cast; 0: no clamp */
	bool scale_saturates;     /* E4M3 cast satfinite (TE's cvt); else torch's .to(): NaN above 464 */
	enum element_form element;
	bool minus_zero_to_plus;  /* the E2M1 sign is (x < 0), so -0 is written as +0, and code 8 reads as +0 (ModelOpt) */
	bool has_two_d, has_sr, has_rht;
	/* The FP32 steps as x86 computes them: an invalid operation (inf / inf,
	 * 0 / 0) gives the default NaN 0xFFC00000, negative, and a NaN operand
	 * passes on its own NaN (the first one), so a negative NaN gives the
	 * block scale E4M3 0xFF. */
	bool x86_default_nan;
	/* The tensor's amax where it holds a NaN: torch.max's NaN on the CPU,
	 * 0xFFFFFFFF (torchao), or the default NaN 0x7FC00000 that
	 * torch.maximum of ModelOpt's two 0-d results |max| and |min| gives; 0:
	 * the quiet NaN. */
	uint32_t tensor_amax_nan;
	/* ModelOpt's block amaxes come from torch.maximum(|max|, |min|) over the
	 * tensor's blocks in row-major order: its vectorised loop (16 FP32
	 * lanes on AVX-512) gives a NaN block 0xFFFFFFFF, its scalar tail (the
	 * last n mod 16 of n blocks) the default NaN; 0: no lanes. */
	unsigned block_nan_lanes;
};

#define F32_E4M3_MIN_SUB 0x3B000000u /* 2^-9: ModelOpt 0.47's floor */

static const struct recipe_row recipe_rows[] = {
	{ FPREF_NVFP4_TE, "te", false, TS_ENCODE, BS_MUL_S_RCP6, false, 0, true, EL_MUL_RCP, false, true, true, true,
	  false, 0, 0 },
	{ FPREF_NVFP4_TORCHAO, "torchao", true, TS_DECODE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true, EL_MUL_RCP_D_DIV_S,
	  false, false, false, false, true, 0xFFFFFFFFu, 0 },
	{ FPREF_NVFP4_MODELOPT, "modelopt", true, TS_DECODE, BS_DIV_6D, true, F32_E4M3_MIN_SUB, true, EL_DIV_TOTAL, true,
	  false, false, false, true, F32_QUIET_NAN, 16 },
	{ FPREF_NVFP4_FOUR_OVER_SIX, "fouroversix", true, TS_AMAX, BS_BOUND_DIV_A, false, 0, false, EL_DIV_46, false,
	  true, false, true, false, 0, 0 },
	{ FPREF_NVFP4_TORCHAO_02A1BC44, "torchao-02a1bc44", true, TS_DECODE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true,
	  EL_DIV_TOTAL, false, false, false, false, false, 0, 0 },
	{ FPREF_NVFP4_TORCHAO_1LEVEL, "torchao-1level", true, TS_ONE, BS_DIV6_DIV_D, false, F32_E4M3_TINY, true,
	  EL_MUL_RCP_D_DIV_S, false, false, false, false, true, 0xFFFFFFFFu, 0 },
	{ FPREF_NVFP4_MODELOPT_0AD6E5F0, "modelopt-0ad6e5f0", true, TS_DECODE, BS_DIV_6D, true, 0, false, EL_DIV_TOTAL,
	  true, false, false, false, false, 0, 0 },
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

struct nvfp4 {
	struct f32_arith a;
	const struct recipe_row *row;
	struct fpref_format e4m3, e2m1, bf16;
	struct fpref_env scale_env; /* rne, satfinite or IEEE overflow */
	struct fpref_env element;   /* rne or the seeded stream, satfinite */
	uint32_t bound;             /* Four Over Six's M, in FP32 */
	uint32_t T;                 /* the tensor scale */
	uint32_t block_encode;      /* TE: S * (1/6) */
	uint32_t tensor_decode;     /* TE: 1/S */
	bool torch_bf16;            /* fpref_nvfp4_params' */
};

static int nvfp4_init(struct nvfp4 *q, const struct fpref_nvfp4_params *p, size_t rows, size_t cols, char *err,
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

/* The element indices of block b, in row-major order; their count. */
static size_t block_members(const struct fpref_nvfp4_params *p, size_t rows, size_t cols, size_t b, size_t *idx)
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
static void hadamard(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse, const uint32_t *x,
		     size_t n, uint32_t *out)
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
static uint32_t tensor_scale(const struct nvfp4 *q, uint32_t amax)
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

static uint32_t e4m3_value(const struct nvfp4 *q, uint8_t code)
{
	uint64_t v = 0;
	unsigned flags = 0;
	fpref_emu_convert(&q->e4m3, code, &q->a.f32, &q->a.env, 0, &v, &flags);
	return (uint32_t)v;
}

/* The FP32 value a block's E4M3 scale is rounded from, from the block's
 * amax m (four: the candidate that scales to 4). */
static uint32_t block_scale_value(const struct nvfp4 *q, uint32_t m, bool four)
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
	fpref_emu_convert(&q->a.f32, block_scale_value(q, m, four), &q->e4m3, &q->scale_env, 0, &out, &flags);
	return (uint8_t)out;
}

/* What the elements of a block with scale code sb are multiplied by (or
 * divided by, where *divide), but Four Over Six's. */
static uint32_t element_factor(const struct nvfp4 *q, uint8_t sb, bool *divide)
{
	const struct f32_arith *a = &q->a;
	uint32_t s = e4m3_value(q, sb);
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
		uint32_t by = element_factor(q, sb, &divide);
		if (q->row->element == EL_MUL_RCP_D_DIV_S) /* torchao 0.18: 0 * inf is x86's NaN (D = 0) */
			return step(q, FPREF_OP_MUL, x, by);
		return f32_op(a, divide ? FPREF_OP_DIV : FPREF_OP_MUL, x, by);
	}
	uint32_t s = e4m3_value(q, sb);
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
static uint32_t dequant_46(const struct nvfp4 *q, uint8_t code, uint32_t s)
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
	uint32_t s = e4m3_value(q, *scale), err = 0;
	for (size_t i = 0; i < n; i++) {
		codes[i] = element_code(q, scaled_element(q, *scale, x[idx[i]]), 0);
		uint32_t d = f32_op(a, FPREF_OP_SUB, dequant_46(q, codes[i], s), x[idx[i]]);
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
static void block_codes(const struct nvfp4 *q, const uint32_t *x, size_t origin, const size_t *idx, size_t m,
			uint8_t sb, uint8_t *codes)
{
	uint8_t nan_code;
	if (torch_nan_block(q, sb, &nan_code)) {
		for (size_t i = 0; i < m; i++)
			codes[idx[i]] = nan_code;
		return;
	}
	for (size_t i = 0; i < m; i++)
		codes[idx[i]] =
			element_code(q, scaled_element(q, sb, x[idx[i] - origin]), fpref_env_sr_random(&q->element, idx[i]));
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
static void block_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x, const size_t *idx,
		     size_t m, uint32_t m_b, uint8_t *scale, uint8_t *codes)
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
		size_t b = block_of(p, cols, i / cols, i % cols);
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

int fpref_emu_nvfp4_quantize_reference(const struct fpref_nvfp4_params *p, const uint32_t *x_in, size_t rows,
				       size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3,
				       uint32_t *tensor_scale_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
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
		hadamard(&q, p, false, x_in, n, rht);
		x = rht;
	}
	q.T = tensor_scale(&q, block_maxima(&q, p, x, rows, cols, amax));
	q.block_encode = f32_op(&q.a, FPREF_OP_MUL, q.T, f32_op(&q.a, FPREF_OP_DIV, F32_ONE, F32_SIX));
	q.tensor_decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, q.T);
	size_t idx[MAX_BLOCK];
	for (size_t b = 0; b < blocks; b++) {
		size_t m = block_members(p, rows, cols, b, idx);
		if (p->recipe == FPREF_NVFP4_FOUR_OVER_SIX) {
			block_46(&q, p, x, idx, m, amax[b], &block_scales_e4m3[b], codes);
			continue;
		}
		block_scales_e4m3[b] = block_scale(&q, amax[b], false);
		block_codes(&q, x, 0, idx, m, block_scales_e4m3[b], codes);
	}
	free(amax);
	free(rht);
	*tensor_scale_f32 = q.T;
	return 0;
}

/* The bulk path (the transform first, where asked: hadamard_bulk below,
 * its output the tensor quantised; Four Over Six's bands: band_46).
 * One pass gives the tensor's amax as the element path's reduction does
 * (a NaN skipped by TE's fmaxf, winning in the others).  Then a band of
 * rows at a time (about a chunk of elements, 16 rows for 16x16 blocks, so
 * that the second reading of x comes from the cache): each block's amax
 * (a block holding a NaN reduced as the element path reduces it), its FP32
 * scale as the element path makes it (the products and quotients by the
 * host) and the band's scales rounded to E4M3 by one call of the
 * converter; each element's product or quotient by its scale code's
 * factor (made once by the emulator) by the host, and its rounding by the
 * converter (under stochastic rounding with the element's index in the
 * stream).  A stretch of a block whose scaled values hold a NaN (a NaN
 * element, a NaN scale, 0 times inf) is the element path's, stretch by
 * stretch. */
struct nvfp4_bulk {
	uint32_t *amax, factor[256]; /* amax: a band's blocks, then their FP32 scales */
	bool divide;
	struct quant_sink *sink;
	struct fpref_emu_converter *scales;
	size_t origin; /* the tensor's index of x[0]: 0, or a band's first where x holds that band alone */
	size_t ahead;  /* how many of x's elements follow the band being quantised */
};

static void bulk_free(struct nvfp4_bulk *b)
{
	free(b->amax);
	if (b->sink && b->sink->c)
		fpref_emu_quant_sink_close(b->sink);
	free(b->sink);
	fpref_emu_converter_free(b->scales);
}

/* The largest magnitude of a block's n values in a row as bits, a NaN's
 * above inf's (n a constant where inlined). */
static inline __attribute__((always_inline)) uint32_t block_max(const uint32_t *x, size_t n)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = x[i] & F32_ABS_MASK;
		m = v > m ? v : m;
	}
	return m;
}

/* y = x times (or divided by) by, for n values (a constant where inlined). */
static inline __attribute__((always_inline)) void block_scaled(const uint32_t *restrict x, size_t n, float by,
							       bool divide, uint32_t *restrict y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = quant_bits(divide ? quant_f32(x[i]) / by : quant_f32(x[i]) * by);
}

/* The largest magnitude of x[0..n) as bits, and the largest but NaN's. */
QUANT_CLONES static uint32_t tensor_maxima(const uint32_t *x, size_t n, uint32_t *not_nan)
{
	uint32_t m = 0, f = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = x[i] & F32_ABS_MASK, w = v & (0u - (uint32_t)(v <= F32_INF)); /* branch-free: it vectorises */
		m = v > m ? v : m;
		f = w > f ? w : f;
	}
	*not_nan = f;
	return m;
}

/* Each block's largest magnitude as bits (a NaN's above inf's) into
 * amax[] (zeroed) for rows [0, rows) of x: each row's stretches of 16 in
 * turn, a 16x16 block the largest of its 16 stretches. */
QUANT_CLONES static void band_maxima(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows,
				     size_t cols, uint32_t *amax)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), full = cols / FPREF_NVFP4_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		const uint32_t *row = x + r * cols;
		uint32_t *a = amax + (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across;
		fpref_emu_quant_stretch_maxima(row, full, a);
		if (full < across) {
			uint32_t m = block_max(row + full * FPREF_NVFP4_BLOCK, cols - full * FPREF_NVFP4_BLOCK);
			a[full] = m > a[full] ? m : a[full];
		}
	}
}

/* Block b's amax where it holds a NaN, as the element path reduces it
 * (x holds the tensor's elements from index origin on). */
static uint32_t nan_block_amax(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			       size_t origin, size_t rows, size_t cols, size_t b)
{
	if (q->row->amax_nan_propagates)
		return nan_lane(q, p, fpref_emu_nvfp4_scale_count(p, rows, cols), b) ? 0xFFFFFFFFu : F32_QUIET_NAN;
	size_t idx[MAX_BLOCK], n = block_members(p, rows, cols, b, idx);
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++)
		m = f32_amax_update(m, x[idx[i] - origin]);
	return m;
}

/* Rounds the chunk gathered, then gives each stretch of 16 (or the row's
 * last, shorter one) holding a NaN scaled value to the element path. */
static void bulk_flush(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b,
		       const uint32_t *x, size_t cols, const uint8_t *scales, size_t next)
{
	struct quant_sink *s = b->sink;
	size_t at = s->at, n = s->n, idx[FPREF_NVFP4_BLOCK];
	fpref_emu_quant_sink_flush(s, next);
	if (fpref_emu_quant_magnitude_max(s->y, n) <= F32_INF)
		return;
	for (size_t k = 0; k < n; k++) {
		if (!quant_is_nan(s->y[k]))
			continue;
		size_t i = at + k, r = i / cols, c0 = i % cols / FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK;
		size_t m = cols - c0 < FPREF_NVFP4_BLOCK ? cols - c0 : FPREF_NVFP4_BLOCK;
		for (size_t j = 0; j < m; j++)
			idx[j] = r * cols + c0 + j;
		block_codes(q, x, b->origin, idx, m, scales[block_of(p, cols, r, c0)], s->codes);
		k = r * cols + c0 + m - 1 - at; /* on past the stretch */
	}
}

/* The elements of rows [r0, r1) into the sink, scaled by their blocks' factors. */
QUANT_CLONES static void band_elements(const struct nvfp4 *q, const struct fpref_nvfp4_params *p,
				       struct nvfp4_bulk *b, const uint32_t *x, size_t r0, size_t r1, size_t cols,
				       const uint8_t *scales)
{
	struct quant_sink *sink = b->sink;
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), span = (r1 - r0) * cols;
	for (size_t r = r0; r < r1; r++) {
		const uint8_t *srow = scales + (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across;
		for (size_t j = 0; j < across; j++) {
			size_t c0 = j * FPREF_NVFP4_BLOCK, first = r * cols + c0;
			size_t n = cols - c0 < FPREF_NVFP4_BLOCK ? cols - c0 : FPREF_NVFP4_BLOCK;
			if (sink->n + n > QUANT_CHUNK)
				bulk_flush(q, p, b, x, cols, scales, first);
			float f = quant_f32(b->factor[srow[j]]);
			uint32_t *y = sink->y + sink->n;
			const uint32_t *xb = x + (first - b->origin);
			/* the next band's line toward the cache: the hardware's prefetcher stops
			 * with the reads, and the next band's maxima would wait on memory */
			if (first - r0 * cols < b->ahead)
				__builtin_prefetch(xb + span, 0, 2);
			if (n < FPREF_NVFP4_BLOCK)
				block_scaled(xb, n, f, b->divide, y);
			else if (b->divide)
				block_scaled(xb, FPREF_NVFP4_BLOCK, f, true, y);
			else
				block_scaled(xb, FPREF_NVFP4_BLOCK, f, false, y);
			sink->n += n;
		}
	}
}

/* The scales of rows [r0, r1) (a whole band of 16 for 16x16 blocks), then
 * their elements. */
static void band(struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b, const uint32_t *x,
		 size_t rows, size_t cols, size_t r0, size_t r1, uint8_t *scales)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK);
	size_t first = (p->two_d ? r0 / FPREF_NVFP4_BLOCK : r0) * across, n = p->two_d ? across : (r1 - r0) * across;
	memset(b->amax, 0, n * sizeof *b->amax);
	band_maxima(p, x + (r0 * cols - b->origin), r1 - r0, cols, b->amax);
	q->a.host = true;
	/* TE's m * (S / 6): a NaN only from a NaN m */
	if (q->row->block != BS_MUL_S_RCP6 || q->row->zero_scale_is_one || q->row->scale_floor ||
	    fpref_emu_quant_magnitude_max(b->amax, n) > F32_INF ||
	    fpref_emu_quant_scale(b->amax, n, q->block_encode, false, b->amax))
		for (size_t i = 0; i < n; i++)
			b->amax[i] = block_scale_value(
				q, f32_is_nan(b->amax[i]) ? nan_block_amax(q, p, x, b->origin, rows, cols, first + i) : b->amax[i],
				false);
	q->a.host = false;
	fpref_emu_convert_array(b->scales, b->amax, scales + first, n, NULL, 0);
	band_elements(q, p, b, x, r0, r1, cols, scales);
}

/* Four Over Six in bulk, a band at a time: both candidates' FP32 scales
 * (block_scale_value, the host's products and quotients) rounded to E4M3
 * by one call of the converter; each element's ((x * 6) * M) / (T s_b)
 * for both by the host and rounded to E2M1 by the converter; each block's
 * errors by the host in the element path's order (dequant_46's steps, a
 * difference, a running sum from +0 or the largest magnitude, each a
 * statement of its own: no contraction), the smaller kept.  A block whose
 * amax, scales, scaled values or differences hold a NaN is the element
 * path's (block_46).  (Four Over Six has no stochastic rounding: its
 * recipe row refuses it.) */
struct four_six {
	uint32_t *hp, *y, *raw, value[16], scale[256], six_m; /* value: E2M1's codes; scale: E4M3's */
	uint8_t *sc, *c;
	size_t *idx;
	/* rows of whole blocks of 16 (band_46_flat): each chain's differences and
	 * error; NULL otherwise */
	float *d, *err;
};

static void four_six_free(struct four_six *f)
{
	free(f->d);
	free(f->err);
	free(f->hp);
	free(f->y);
	free(f->raw);
	free(f->sc);
	free(f->c);
	free(f->idx);
}

/* ((x * 6) * M) / (T s) for the n values xs, or 0 where s is zero; whether one is NaN. */
QUANT_CLONES static bool scaled_46(const struct nvfp4 *q, const uint32_t *restrict xs, size_t n, uint32_t s,
				   uint32_t *restrict y)
{
	float den = quant_f32(q->T) * quant_f32(s), bound = quant_f32(q->bound);
	if ((s & F32_ABS_MASK) == 0) {
		memset(y, 0, n * sizeof *y);
		return false;
	}
	uint32_t nan = 0;
	for (size_t i = 0; i < n; i++) {
		float x6 = quant_f32(xs[i]) * 6.0f;
		float num = x6 * bound;
		y[i] = quant_bits(num / den);
		nan |= (uint32_t)((y[i] & F32_ABS_MASK) > F32_INF);
	}
	return nan != 0;
}

/* The differences dequant_46(c[i], s) - xs[i] of a block's m elements. */
QUANT_CLONES static void differences_46(const struct nvfp4 *q, const uint32_t *value, uint32_t six_m,
					const uint32_t *restrict xs, const uint8_t *restrict c, size_t m, uint32_t s,
					float *restrict d)
{
	float sf = quant_f32(s), t = quant_f32(q->T), sm = quant_f32(six_m);
	for (size_t i = 0; i < m; i++) {
		float v = quant_f32(value[c[i] & 15u]);
		float vs = v * sf;
		float vst = vs * t;
		float deq = vst / sm;
		d[i] = deq - quant_f32(xs[i]);
	}
}

/* A candidate's error over the block's m elements (xs gathered, codes c),
 * scale s: false where a NaN arises. */
static bool host_error_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const struct four_six *f,
			  const uint32_t *xs, const uint8_t *c, size_t m, uint32_t s, float *err)
{
	float diff[MAX_BLOCK], acc = 0.0f;
	uint32_t largest = 0;
	differences_46(q, f->value, f->six_m, xs, c, m, s, diff);
	for (size_t i = 0; i < m; i++) {
		float d = diff[i];
		uint32_t mag = quant_bits(d) & F32_ABS_MASK;
		if (mag > F32_INF)
			return false;
		if (p->choice == FPREF_NVFP4_ABS_MAX) {
			largest = mag > largest ? mag : largest;
			continue;
		}
		float term = p->choice == FPREF_NVFP4_MAE ? quant_f32(mag) : d * d;
		acc = acc + term;
	}
	*err = p->choice == FPREF_NVFP4_ABS_MAX ? quant_f32(largest) : acc;
	return !quant_is_nan(quant_bits(*err));
}


/* Errors of chains 2i (6's) and 2i + 1 (4's) of nb blocks of 16:
 * host_error_46's sums and maxima (each step rounded, in order of the
 * elements), sixteen chains in the lanes of a vector.  d holds, for each
 * group of 16 chains, the differences of element 0 of each, then of
 * element 1 ...  A NaN difference makes the error NaN: a sum's NaN stays,
 * and a NaN's magnitude as bits is above every other. */
typedef float f32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

QUANT_CLONES static void flat_errors_46(enum fpref_nvfp4_choice choice, const float *restrict d, size_t nb,
					float *restrict err)
{
	enum { CHAINS = 16 };
	for (size_t i = 0; i < 2 * nb; i += CHAINS) {
		f32x16 acc = { 0 };
		u32x16 largest = { 0 };
		const float *di = d + i * FPREF_NVFP4_BLOCK; /* the buffer holds whole groups of 16 chains */
		for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++) {
			f32x16 dk;
			memcpy(&dk, di + k * CHAINS, sizeof dk);
			u32x16 mag;
			memcpy(&mag, &dk, sizeof mag);
			mag &= F32_ABS_MASK;
			u32x16 above = (u32x16)(mag > largest);
			largest = (mag & above) | (largest & ~above);
			f32x16 term;
			if (choice == FPREF_NVFP4_MAE)
				memcpy(&term, &mag, sizeof term);
			else
				term = dk * dk;
			acc = acc + term;
		}
		f32x16 e;
		if (choice == FPREF_NVFP4_ABS_MAX)
			memcpy(&e, &largest, sizeof e);
		else
			e = acc;
		for (unsigned j = 0; j < CHAINS && i + j < 2 * nb; j++)
			err[i + j] = e[j];
	}
}

/* differences_46 of one block of 16, in the lanes of a vector; element k's
 * into d[16 k] (flat_errors_46's order). */
QUANT_CLONES static void differences_46_block(const struct nvfp4 *q, const uint32_t *value, uint32_t six_m,
					      const uint32_t *restrict xs, const uint8_t *restrict c, uint32_t s,
					      float *restrict d)
{
	f32x16 v = { 0 }, x;
#if defined(__GNUC__) && !defined(__clang__) /* E2M1's 16 values permuted by the codes, not 16 loads */
	typedef uint8_t u8x16 __attribute__((vector_size(16)));
	u8x16 code;
	f32x16 table;
	memcpy(&code, c, sizeof code);
	memcpy(&table, value, sizeof table);
	v = __builtin_shuffle(table, __builtin_convertvector(code, u32x16) & 15u);
#else
	for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++)
		v[k] = quant_f32(value[c[k] & 15u]);
#endif
	memcpy(&x, xs, sizeof x);
	f32x16 vs = v * quant_f32(s);
	f32x16 vst = vs * quant_f32(q->T);
	f32x16 deq = vst / quant_f32(six_m);
	f32x16 diff = deq - x;
	for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++)
		d[k * FPREF_NVFP4_BLOCK] = diff[k];
}

/* band_46 for rows of whole blocks of 16 (1x16): each block's elements
 * side by side in x, no gathering; the same steps. */
static void band_46_flat(struct nvfp4 *q, const struct fpref_nvfp4_params *p, const struct nvfp4_bulk *b,
			 struct four_six *f, const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t nb,
			 uint8_t *codes, uint8_t *scales)
{
	const size_t B = FPREF_NVFP4_BLOCK, first = r0 * cols / B;
	const uint32_t *xb = x + r0 * cols;
	uint8_t *cb = codes + r0 * cols;
	for (size_t i = 0; i < nb; i++) {
		if (i * B < b->ahead) /* the next band's line toward the cache (band_elements) */
			__builtin_prefetch(xb + (nb + i) * B, 0, 2);
		bool nan = scaled_46(q, xb + i * B, B, f->scale[f->sc[2 * i]], f->y + 2 * i * B);
		nan = scaled_46(q, xb + i * B, B, f->scale[f->sc[2 * i + 1]], f->y + 2 * i * B + B) || nan;
		f->raw[i] = nan ? 0xFFFFFFFFu : b->amax[i];
	}
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * nb * B, NULL, 0);
	for (size_t i = 0; i < nb; i++)
		for (unsigned four = 0; four < 2; four++)
			differences_46_block(q, f->value, f->six_m, xb + i * B, f->c + (2 * i + four) * B,
					     f->scale[f->sc[2 * i + four]], f->d + (2 * i + four) / B * B * B + (2 * i + four) % B);
	flat_errors_46(p->choice, f->d, nb, f->err);
	for (size_t i = 0; i < nb; i++) {
		float e6 = f->err[2 * i], e4 = f->err[2 * i + 1];
		if (f->raw[i] > F32_INF || quant_is_nan(quant_bits(e6)) || quant_is_nan(quant_bits(e4))) {
			size_t idx[FPREF_NVFP4_BLOCK], m = block_members(p, rows, cols, first + i, idx);
			uint32_t m_b = f32_is_nan(b->amax[i]) ? nan_block_amax(q, p, x, 0, rows, cols, first + i) : b->amax[i];
			block_46(q, p, x, idx, m, m_b, &scales[first + i], codes);
			continue;
		}
		bool four = e4 < e6; /* ties keep 6 */
		scales[first + i] = f->sc[2 * i + (four ? 1 : 0)];
		memcpy(cb + i * B, f->c + (2 * i + (four ? 1 : 0)) * B, B);
	}
}

/* Both candidates' FP32 scales of nb blocks, block_scale_value's (m * M) /
 * T and its times 1.5 by the host, into hp[2i], hp[2i + 1]; false (hp
 * then the caller's to make) where an amax or a scale is NaN. */
QUANT_CLONES static bool scales_46(const struct nvfp4 *q, const uint32_t *restrict amax, size_t nb,
				   uint32_t *restrict hp)
{
	if (q->row->block != BS_BOUND_DIV_A || q->row->zero_scale_is_one || q->row->scale_floor)
		return false;
	float M = quant_f32(q->bound), T = quant_f32(q->T);
	uint32_t nan = 0;
	for (size_t i = 0; i < nb; i++) {
		float mM = quant_f32(amax[i]) * M;
		float six = mM / T;
		float four = six * 1.5f;
		hp[2 * i] = quant_bits(six);
		hp[2 * i + 1] = quant_bits(four);
		nan |= (uint32_t)((amax[i] & F32_ABS_MASK) > F32_INF) | (uint32_t)((hp[2 * i] & F32_ABS_MASK) > F32_INF) |
		       (uint32_t)((hp[2 * i + 1] & F32_ABS_MASK) > F32_INF);
	}
	return nan == 0;
}

static void band_46(struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b, struct four_six *f,
		    const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t r1, uint8_t *codes, uint8_t *scales)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK);
	size_t first = (p->two_d ? r0 / FPREF_NVFP4_BLOCK : r0) * across, nb = p->two_d ? across : (r1 - r0) * across;
	memset(b->amax, 0, nb * sizeof *b->amax);
	band_maxima(p, x + r0 * cols, r1 - r0, cols, b->amax);
	q->a.host = true;
	bool made = scales_46(q, b->amax, nb, f->hp);
	for (size_t i = 0; !made && i < nb; i++) {
		uint32_t m = f32_is_nan(b->amax[i]) ? nan_block_amax(q, p, x, 0, rows, cols, first + i) : b->amax[i];
		f->hp[2 * i] = block_scale_value(q, m, false);
		f->hp[2 * i + 1] = block_scale_value(q, m, true);
	}
	q->a.host = false;
	fpref_emu_convert_array(b->scales, f->hp, f->sc, 2 * nb, NULL, 0);
	if (f->d) {
		band_46_flat(q, p, b, f, x, rows, cols, r0, nb, codes, scales);
		return;
	}
	/* both candidates' scaled values, block after block, and their codes */
	size_t at = 0;
	uint32_t xs[MAX_BLOCK];
	for (size_t i = 0; i < nb; i++) {
		size_t m = block_members(p, rows, cols, first + i, f->idx + at);
		for (size_t k = 0; k < m; k++)
			xs[k] = x[f->idx[at + k]];
		bool nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i]], f->y + 2 * at);
		nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i + 1]], f->y + 2 * at + m) || nan;
		f->raw[i] = nan ? 0xFFFFFFFFu : b->amax[i]; /* above inf: the element path's block */
		at += m;
	}
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * at, NULL, 0);
	at = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t m = block_members(p, rows, cols, first + i, f->idx + at), *idx = f->idx + at;
		for (size_t k = 0; k < m; k++)
			xs[k] = x[idx[k]];
		float e6 = 0, e4 = 0;
		const uint8_t *c6 = f->c + 2 * at, *c4 = c6 + m;
		at += m;
		if (f->raw[i] > F32_INF || !host_error_46(q, p, f, xs, c6, m, f->scale[f->sc[2 * i]], &e6) ||
		    !host_error_46(q, p, f, xs, c4, m, f->scale[f->sc[2 * i + 1]], &e4)) {
			uint32_t m_b = f32_is_nan(b->amax[i]) ? nan_block_amax(q, p, x, 0, rows, cols, first + i) : b->amax[i];
			block_46(q, p, x, idx, m, m_b, &scales[first + i], codes);
			continue;
		}
		bool four = e4 < e6; /* ties keep 6 */
		scales[first + i] = f->sc[2 * i + (four ? 1 : 0)];
		for (size_t k = 0; k < m; k++)
			codes[idx[k]] = four ? c4[k] : c6[k];
	}
}

/* The transform or its inverse in bulk: each group of 16 as hadamard
 * makes it, by the host's FP32 arithmetic (each product by +-1/4 and each
 * sum, in order of j from +0, rounded once: a statement each, and no
 * contraction, C11's default). */

/* Row j: the signs of x_j's terms, times 1/4: H16's row j (a sign bit
 * where j & k has odd parity; Sylvester's: row j + b, b a power of two
 * above j, is row j with the lanes k & b negated) on +-1/4, the sign of j
 * (inverse: of k).  Vector operations: a band's call, not 256 popcounts. */
static inline __attribute__((always_inline)) void hadamard_rows(unsigned signs, bool inverse,
								 f32x16 m[FPREF_NVFP4_BLOCK])
{
	const u32x16 zero = { 0 }, lane = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	u32x16 h[FPREF_NVFP4_BLOCK], quarter = 0x3E800000u | ((zero + signs) >> lane & 1u) << 31;
	h[0] = zero;
	for (unsigned b = 1; b < FPREF_NVFP4_BLOCK; b *= 2)
		for (unsigned j = 0; j < b; j++)
			h[j + b] = h[j] ^ (lane & b) << (31 - __builtin_ctz(b));
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++) {
		u32x16 row = h[j] ^ (inverse ? quarter : zero + (0x3E800000u | ((signs >> j) & 1u) << 31));
		memcpy(&m[j], &row, sizeof row);
	}
}

/* most: the largest magnitudes as bits so far, lane by lane, with v's. */
static inline __attribute__((always_inline)) void fold_magnitudes(u32x16 *most, f32x16 v)
{
	u32x16 u;
	memcpy(&u, &v, sizeof u);
	for (unsigned i = 0; i < 16; i++) /* a lane's maximum: one instruction where vectorised */
		(*most)[i] = (u[i] & F32_ABS_MASK) > (*most)[i] ? u[i] & F32_ABS_MASK : (*most)[i];
}

/* A group's sums folded into most, and stored where out is given. */
static inline __attribute__((always_inline)) void hadamard_fold(u32x16 *most, uint32_t *out, f32x16 v)
{
	fold_magnitudes(most, v);
	if (out)
		memcpy(out, &v, sizeof v);
}

/* The largest of most's lanes. */
static inline __attribute__((always_inline)) uint32_t largest_lane(u32x16 most)
{
	uint32_t m = 0;
	for (unsigned k = 0; k < 16; k++)
		m = most[k] > m ? most[k] : m;
	return m;
}

/* Groups x[0..16), x[16..32) ... of h (1 to 4; past h, the first again):
 * four groups' sums side by side, four chains of additions; their
 * magnitudes folded into most, and where out is given, stored there (h a
 * constant where inlined: registers, not a copy). */
static inline __attribute__((always_inline)) void hadamard_four(const f32x16 m[FPREF_NVFP4_BLOCK], const uint32_t *x,
								 size_t h, u32x16 *most, uint32_t *out)
{
	const uint32_t *x0 = x, *x1 = x0 + (h > 1 ? FPREF_NVFP4_BLOCK : 0);
	const uint32_t *x2 = x0 + (h > 2 ? 2 * FPREF_NVFP4_BLOCK : 0), *x3 = x0 + (h > 3 ? 3 * FPREF_NVFP4_BLOCK : 0);
	f32x16 a0 = { 0 }, a1 = a0, a2 = a0, a3 = a0;
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++) { /* out_k for the 16 k, in lanes */
		f32x16 p0 = quant_f32(x0[j]) * m[j], p1 = quant_f32(x1[j]) * m[j];
		f32x16 p2 = quant_f32(x2[j]) * m[j], p3 = quant_f32(x3[j]) * m[j];
		a0 = a0 + p0;
		a1 = a1 + p1;
		a2 = a2 + p2;
		a3 = a3 + p3;
	}
	hadamard_fold(most, out, a0);
	if (h > 1) /* each written out: registers, not a loop over an array in memory */
		hadamard_fold(most, out ? out + FPREF_NVFP4_BLOCK : NULL, a1);
	if (h > 2)
		hadamard_fold(most, out ? out + 2 * FPREF_NVFP4_BLOCK : NULL, a2);
	if (h > 3)
		hadamard_fold(most, out ? out + 3 * FPREF_NVFP4_BLOCK : NULL, a3);
}

/* The transform of x[0..n) into out; whether an output is NaN (folded in,
 * not a pass over out).  ahead: how many of x's elements follow x[n), of
 * which the first n are fetched toward the cache as x's are read, so that
 * the next band's reading from memory overlaps this band's rounding and
 * quantising (the hardware's prefetcher stops with the reads). */
QUANT_CLONES static bool hadamard_host(unsigned signs, bool inverse, const uint32_t *x, size_t n, uint32_t *out,
				       size_t ahead)
{
	f32x16 m[FPREF_NVFP4_BLOCK];
	hadamard_rows(signs, inverse, m);
	u32x16 most = { 0 };
	size_t groups = n / FPREF_NVFP4_BLOCK, g = 0;
	for (; g + 4 <= groups; g += 4) {
		if ((g + 4) * FPREF_NVFP4_BLOCK <= ahead) /* a line of 16 each */
			for (size_t k = 0; k < 4; k++)
				__builtin_prefetch(x + n + (g + k) * FPREF_NVFP4_BLOCK, 0, 2);
		hadamard_four(m, x + g * FPREF_NVFP4_BLOCK, 4, &most, out + g * FPREF_NVFP4_BLOCK);
	}
	if (g < groups)
		hadamard_four(m, x + g * FPREF_NVFP4_BLOCK, groups - g, &most, out + g * FPREF_NVFP4_BLOCK);
	return largest_lane(most) > F32_INF;
}

/* The largest magnitude as bits of the forward transform's outputs for
 * x[0..n) (hadamard_host's, not stored), or a NaN's (some magnitude above
 * inf's) once one is met.  The tensor's maxima need only this: a group
 * whose outputs cannot exceed the largest so far, M, is skipped, 16 groups
 * at a time.  Why a group is skipped safely: its products' magnitudes are
 * a_j = fl(|x_j| / 4) (RNE is odd), and a sum's |fl(s + p_j)| = fl(|s +
 * p_j|) <= fl(|s| + a_j) (RNE is monotone), so every |out_k| <= B, the
 * a_j summed from +0 in order of j, each sum rounded.  With S their exact
 * sum and u = 2^-24 (a sum is exact where it is subnormal), B <= S (1 +
 * u)^15, and C, the a_j summed in pairs (four levels), >= S (1 - u)^4: B <
 * C (1 + 2^-19).  So C <= L = fl(M (1 - 2^-17)), M finite and >= 2^-100
 * (L then normal), gives B < M: no sum overflows and every |out_k| < M.  A
 * NaN or infinite x_j makes C NaN or inf, above L: never skipped. */
QUANT_CLONES static uint32_t hadamard_host_max(unsigned signs, const uint32_t *x, size_t n)
{
	enum { TILE = 16 * FPREF_NVFP4_BLOCK };
	f32x16 m[FPREF_NVFP4_BLOCK];
	hadamard_rows(signs, false, m);
	u32x16 most = { 0 };
	uint32_t limit = 0, largest = 0; /* limit: L's bits, 0 while none */
	size_t whole = n / FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK;
	for (size_t i = 0; i < whole; i += TILE) {
		size_t t = whole - i < TILE ? whole - i : TILE;
		if (limit && t == TILE) { /* C of each of the 16 groups, its largest as bits */
			float a[TILE], b[TILE / 2];
			for (size_t k = 0; k < TILE; k++)
				a[k] = quant_f32(x[i + k] & F32_ABS_MASK) * 0.25f;
			for (size_t k = 0; k < TILE / 2; k++) /* pairs, then pairs of pairs ... */
				b[k] = a[2 * k] + a[2 * k + 1];
			for (size_t k = 0; k < TILE / 4; k++)
				a[k] = b[2 * k] + b[2 * k + 1];
			for (size_t k = 0; k < TILE / 8; k++)
				b[k] = a[2 * k] + a[2 * k + 1];
			for (size_t k = 0; k < TILE / 16; k++)
				a[k] = b[2 * k] + b[2 * k + 1];
			uint32_t c = 0;
			for (size_t k = 0; k < 16; k++) { /* each >= +0 or NaN: its bits order it */
				uint32_t v = quant_bits(a[k]);
				c = v > c ? v : c;
			}
			if (c <= limit)
				continue;
		}
		size_t g = 0;
		for (; g + 4 * FPREF_NVFP4_BLOCK <= t; g += 4 * FPREF_NVFP4_BLOCK)
			hadamard_four(m, x + i + g, 4, &most, NULL);
		if (g < t)
			hadamard_four(m, x + i + g, (t - g) / FPREF_NVFP4_BLOCK, &most, NULL);
		largest = largest_lane(most);
		if (largest > F32_INF)
			return largest;
		limit = largest >= 0x0D800000u && largest < F32_INF ? quant_bits(quant_f32(largest) * (1.0f - 0x1p-17f)) : 0;
	}
	return largest;
}

/* BF16 to FP32: exact, but a NaN's (made again by hadamard_bulk). */
QUANT_CLONES static void bf16_widen(const uint16_t *restrict b, size_t n, uint32_t *restrict out)
{
	for (size_t k = 0; k < n; k++)
		out[k] = (uint32_t)b[k] << 16;
}

/* hadamard_host, rounded to BF16 by the converter to_bf16 where one is
 * given (FP32 to BF16, rne: the forward transform's, as asked); a group
 * whose outputs hold a NaN is the emulator's (hadamard), whose NaNs are
 * its own. */
static void hadamard_bulk(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse,
			  const struct fpref_emu_converter *to_bf16, const uint32_t *x, size_t n, uint32_t *out,
			  size_t ahead)
{
	bool nan = hadamard_host((unsigned)p->rht_signs, inverse, x, n, out, ahead);
	uint16_t b[QUANT_CHUNK];
	for (size_t i = 0; to_bf16 && i < n; i += QUANT_CHUNK) {
		size_t m = n - i < QUANT_CHUNK ? n - i : QUANT_CHUNK;
		fpref_emu_convert_array(to_bf16, out + i, b, m, NULL, 0);
		bf16_widen(b, m, out + i);
	}
	for (size_t g = 0; nan && g + FPREF_NVFP4_BLOCK <= n; g += FPREF_NVFP4_BLOCK) {
		bool here = false;
		for (size_t k = 0; k < FPREF_NVFP4_BLOCK; k++)
			here = here || quant_is_nan(out[g + k]);
		if (here)
			hadamard(q, p, inverse, x + g, FPREF_NVFP4_BLOCK, out + g);
	}
}

int fpref_emu_nvfp4_quantize_lanes(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
				   uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
				   size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), step = QUANT_CHUNK / (cols ? cols : 1);
	step = p->two_d ? FPREF_NVFP4_BLOCK : step ? step : 1;
	bool four_six = p->recipe == FPREF_NVFP4_FOUR_OVER_SIX;
	/* The transformed tensor, a band at a time into a buffer of one band
	 * (to quantise it; its maxima first, below), not a buffer of
	 * the whole tensor, whose first writing costs more than the transform;
	 * Four Over Six's bands read it whole. */
	bool banded = p->rht && !four_six;
	const uint32_t *x_in = x;
	struct fpref_emu_converter *to_bf16 =
		p->rht && p->rht_bf16 ? fpref_emu_converter_new(&q.a.f32, &q.bf16, &q.a.env) : NULL;
	uint32_t *rht = p->rht ? malloc(((banded ? step * cols : rows * cols) + 1) * sizeof *rht) : NULL;
	if (p->rht && (!rht || (p->rht_bf16 && !to_bf16))) {
		free(rht);
		fpref_emu_converter_free(to_bf16);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (p->rht && !banded) {
		hadamard_bulk(&q, p, false, to_bf16, x, rows * cols, rht, 0);
		x = rht; /* the transformed tensor is quantised */
	}
	struct nvfp4_bulk b = { malloc((step * across + 1) * sizeof *b.amax), { 0 }, false, malloc(sizeof *b.sink),
				fpref_emu_converter_new(&q.a.f32, &q.e4m3, &q.scale_env), 0, 0 };
	struct four_six f = { 0 };
	size_t band_blocks = p->two_d ? across : step * across, band_elements_max = step * cols + 1;
	if (four_six) {
		f.hp = malloc(2 * band_blocks * sizeof *f.hp);
		f.raw = malloc(band_blocks * sizeof *f.raw);
		f.sc = malloc(2 * band_blocks);
		f.y = malloc(2 * band_elements_max * sizeof *f.y);
		f.c = malloc(2 * band_elements_max);
		f.idx = malloc(band_elements_max * sizeof *f.idx);
		if (!p->two_d && cols % FPREF_NVFP4_BLOCK == 0) { /* whole groups of 16 chains */
			f.d = malloc((2 * band_blocks + 16) * FPREF_NVFP4_BLOCK * sizeof *f.d);
			f.err = malloc((2 * band_blocks + 16) * sizeof *f.err);
			if (f.d && f.err)
				memset(f.d, 0, (2 * band_blocks + 16) * FPREF_NVFP4_BLOCK * sizeof *f.d);
		}
	}
	if (!b.amax || !b.sink || !b.scales || fpref_emu_quant_sink_open(b.sink, &q.e2m1, &q.element, codes) ||
	    (four_six && (!f.hp || !f.raw || !f.sc || !f.y || !f.c || !f.idx ||
			  (!p->two_d && cols % FPREF_NVFP4_BLOCK == 0 && (!f.d || !f.err))))) {
		bulk_free(&b);
		four_six_free(&f);
		free(rht);
		fpref_emu_converter_free(to_bf16);
		snprintf(err, errlen, "out of memory for %zu blocks", step * across);
		return -1;
	}
	/* The tensor's largest magnitude after the transform: BF16's RNE is
	 * monotone and odd, so the largest of the rounded outputs' magnitudes is
	 * the largest magnitude rounded (inf and BF16's overflow to inf included;
	 * -0's magnitude is +0's); the transform's largest alone, then rounded
	 * by the converter.  A NaN output: the transform a band at a time as it
	 * is quantised (hadamard_bulk), for the largest but NaN's. */
	uint32_t not_nan = 0, global = banded ? hadamard_host_max((unsigned)p->rht_signs, x, rows * cols) : 0;
	if (banded && global <= F32_INF && to_bf16) {
		uint16_t rounded;
		fpref_emu_convert_array(to_bf16, &global, &rounded, 1, NULL, 0);
		global = (uint32_t)rounded << 16;
	}
	for (size_t r0 = 0; banded && global > F32_INF && r0 < rows; r0 += step) {
		size_t n = ((r0 + step < rows ? r0 + step : rows) - r0) * cols;
		uint32_t band_not_nan;
		hadamard_bulk(&q, p, false, to_bf16, x_in + r0 * cols, n, rht, 0);
		uint32_t band_max = tensor_maxima(rht, n, &band_not_nan);
		global = band_max > global ? band_max : global;
		not_nan = band_not_nan > not_nan ? band_not_nan : not_nan;
	}
	if (!banded)
		global = tensor_maxima(x, rows * cols, &not_nan);
	if (global > F32_INF)
		global = q.row->amax_nan_propagates ? F32_QUIET_NAN : not_nan;
	q.T = tensor_scale(&q, global);
	q.block_encode = f32_op(&q.a, FPREF_OP_MUL, q.T, f32_op(&q.a, FPREF_OP_DIV, F32_ONE, F32_SIX));
	q.tensor_decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, q.T);
	for (unsigned c = 0; c < 256; c++)
		b.factor[c] = element_factor(&q, (uint8_t)c, &b.divide);
	b.sink->minus_zero_to_plus = q.row->minus_zero_to_plus;
	if (four_six) {
		f.six_m = f32_op(&q.a, FPREF_OP_MUL, F32_SIX, q.bound);
		for (unsigned c = 0; c < 256; c++)
			f.scale[c] = e4m3_value(&q, (uint8_t)c);
		for (unsigned c = 0; c < 16; c++) {
			uint64_t v = 0;
			unsigned flags = 0;
			fpref_emu_convert(&q.e2m1, c, &q.a.f32, &q.a.env, 0, &v, &flags);
			f.value[c] = (uint32_t)v;
		}
	}
	for (size_t r0 = 0; r0 < rows; r0 += step) {
		size_t r1 = r0 + step < rows ? r0 + step : rows;
		if (banded) { /* the band's elements alone in rht, their NaN stretches flushed with them */
			hadamard_bulk(&q, p, false, to_bf16, x_in + r0 * cols, (r1 - r0) * cols, rht, (rows - r1) * cols);
			x = rht;
			b.origin = r0 * cols;
		}
		b.ahead = banded ? 0 : (rows - r1) * cols;
		if (four_six)
			band_46(&q, p, &b, &f, x, rows, cols, r0, r1, codes, block_scales_e4m3);
		else
			band(&q, p, &b, x, rows, cols, r0, r1, block_scales_e4m3);
		if (banded)
			bulk_flush(&q, p, &b, x, cols, block_scales_e4m3, r1 * cols);
	}
	bulk_flush(&q, p, &b, x, cols, block_scales_e4m3, 0);
	bulk_free(&b);
	four_six_free(&f);
	free(rht);
	fpref_emu_converter_free(to_bf16);
	*tensor_scale_f32 = q.T;
	return 0;
}

int fpref_emu_nvfp4_quantize(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			     uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
			     size_t errlen)
{
	int status = fpref_emu_nvfp4_quantize_lanes(p, x_f32, rows, cols, codes, block_scales_e4m3, tensor_scale_f32,
						    err, errlen);
	return status == 1 ? fpref_emu_nvfp4_quantize_reference(p, x_f32, rows, cols, codes, block_scales_e4m3,
								 tensor_scale_f32, err, errlen)
			   : status;
}

/* The bulk path: each block scale code's factor (Four Over Six: its
 * value) and each E2M1 code's value made once by the emulator, each
 * product and quotient by the host as the element path orders them (a NaN
 * is the quiet NaN either way), then the transform's inverse in bulk; a
 * code outside E2M1 is the element path's to report. */
int fpref_emu_nvfp4_dequantize_lanes(const struct fpref_nvfp4_params *p, const uint8_t *codes,
				     const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
				     uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	bool four_six = q.row->tensor == TS_AMAX; /* ((v * s) * T) / (6 * M), as dequant_46 */
	uint32_t decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, tensor_scale_f32), factor[256], value[16];
	for (unsigned c = 0; c < 256; c++)
		factor[c] = four_six		       ? e4m3_value(&q, (uint8_t)c)
			    : q.row->tensor == TS_ENCODE ? f32_op(&q.a, FPREF_OP_MUL, e4m3_value(&q, (uint8_t)c), decode)
						       : f32_op(&q.a, FPREF_OP_MUL, tensor_scale_f32, e4m3_value(&q, (uint8_t)c));
	float T = quant_f32(tensor_scale_f32), six_m = quant_f32(f32_op(&q.a, FPREF_OP_MUL, F32_SIX, q.bound));
	for (unsigned c = 0; c < 16; c++) {
		uint64_t v = 0;
		unsigned flags = 0;
		fpref_emu_convert(&q.e2m1, c, &q.a.f32, &q.a.env, 0, &v, &flags);
		value[c] = q.row->minus_zero_to_plus && v == 0x80000000u ? 0 : (uint32_t)v;
	}
	uint8_t high = 0;
	for (size_t i = 0; i < rows * cols; i++)
		high |= codes[i];
	if (high >= 16)
		return 1;
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			size_t i = r * cols + c;
			float f = quant_f32(factor[block_scales_e4m3[block_of(p, cols, r, c)]]);
			float vf = quant_f32(value[codes[i]]) * f;
			uint32_t out = quant_bits(four_six ? vf * T / six_m : vf);
			out_f32[i] = f32_is_nan(out) ? F32_QUIET_NAN : out;
		}
	/* back to x's domain, a chunk (whole groups of 16) at a time */
	_Static_assert(QUANT_CHUNK % FPREF_NVFP4_BLOCK == 0, "a chunk holds whole groups of the transform");
	uint32_t t[QUANT_CHUNK];
	for (size_t i = 0; p->rht && i < rows * cols; i += QUANT_CHUNK) {
		size_t m = rows * cols - i < QUANT_CHUNK ? rows * cols - i : QUANT_CHUNK;
		hadamard_bulk(&q, p, true, NULL, out_f32 + i, m, t, 0);
		memcpy(out_f32 + i, t, m * sizeof *t);
	}
	return 0;
}

int fpref_emu_nvfp4_dequantize(const struct fpref_nvfp4_params *p, const uint8_t *codes,
			       const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
			       uint32_t *out_f32, char *err, size_t errlen)
{
	int status = fpref_emu_nvfp4_dequantize_lanes(p, codes, block_scales_e4m3, tensor_scale_f32, rows, cols,
						      out_f32, err, errlen);
	return status == 1 ? fpref_emu_nvfp4_dequantize_reference(p, codes, block_scales_e4m3, tensor_scale_f32, rows,
								   cols, out_f32, err, errlen)
			   : status;
}

int fpref_emu_nvfp4_dequantize_reference(const struct fpref_nvfp4_params *p, const uint8_t *codes,
					 const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
					 size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	q.T = tensor_scale_f32;
	uint32_t decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, tensor_scale_f32);
	for (size_t i = 0; i < rows * cols; i++) {
		uint32_t s = e4m3_value(&q, block_scales_e4m3[block_of(p, cols, i / cols, i % cols)]);
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
			out = dequant_46(&q, codes[i], s);
		out_f32[i] = f32_is_nan(out) ? F32_QUIET_NAN : out; /* a NaN block scale */
	}
	if (p->rht) { /* back to x's domain */
		uint32_t *t = malloc((rows * cols + 1) * sizeof *t);
		if (!t) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		hadamard(&q, p, true, out_f32, rows * cols, t);
		memcpy(out_f32, t, rows * cols * sizeof *t);
		free(t);
	}
	return 0;
}
