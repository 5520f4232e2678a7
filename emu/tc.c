/* Tensor-core block-FMA models (the rows are in formats/tc_model.c): one
 * block routine over pre-decoded operands, shared by the dot product and
 * the GEMM, ending in the emulator's rounding core. */
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_tc.h"

enum kind { FINITE = 0, ZERO = 1, INF = 2, NOT_A_NUMBER = 4 };

/* An input decoded once: (-1)^negative * sig * 2^(exp - man_bits), exp
 * the place of the leading bit of a normal significand (subnormals keep
 * the format's least exponent: the hardware does not normalise them).
 * Zeros get an exponent so low that they never set the alignment. */
struct operand {
	uint32_t sig;
	int16_t exp;
	uint8_t kind;
	uint8_t negative;
};

#define ZERO_EXPONENT (-16000)

/* What one (model, input, output) needs in the inner loop. */
struct plan {
	const struct fpref_format *input, *output;
	struct fpref_format target; /* the output, narrowed to F fraction bits when F is fewer */
	struct fpref_env env;       /* the block's one rounding */
	int frac, floor, block;
	int shift_in;               /* product significand to 23 + lift fraction bits */
	int lift;                   /* extra bits kept so that aligning only ever shifts right */
	unsigned target_shift;      /* target pattern to output pattern */
};

static int plan_init(struct plan *p, const struct fpref_tc_model *m, const struct fpref_format *input,
		     const struct fpref_format *output)
{
	bool fp16_out = strcmp(output->name, "float16") == 0;
	if ((!fp16_out && strcmp(output->name, "float32") != 0) || !fpref_tc_input_ok(input))
		return -1;
	p->input = input;
	p->output = output;
	p->frac = m->frac;
	p->block = m->block;
	p->floor = fp16_out ? m->floor_fp16 : m->floor_fp32;
	p->lift = m->frac > 23 ? m->frac - 23 : 0;
	p->shift_in = 23 - 2 * input->man_bits + p->lift;
	fpref_env_default(&p->env);
	p->env.rounding = fp16_out ? m->round_fp16 : m->round_fp32;
	p->target = *output;
	p->target_shift = 0;
	if (m->frac < output->man_bits) {
		p->target.man_bits = m->frac;
		p->target_shift = (unsigned)(output->man_bits - m->frac);
	}
	return 0;
}

static int operand(const struct fpref_format *f, uint64_t bits, struct operand *o)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	o->negative = u.negative;
	o->sig = (uint32_t)u.significand;
	o->exp = (int16_t)(u.exponent + f->man_bits);
	o->kind = u.cls == FPREF_CLASS_NAN ? NOT_A_NUMBER
		  : u.cls == FPREF_CLASS_INF ? INF
		  : u.cls == FPREF_CLASS_ZERO ? ZERO
					       : FINITE;
	if (o->kind != FINITE) {
		o->sig = 0;
		o->exp = ZERO_EXPONENT;
	}
	return 0;
}

/* NaN or an infinity among the products of a block and c: the result's
 * pattern, or false when they are all finite. */
static bool special_result(const struct plan *p, const struct operand *a, size_t sa, const struct operand *b,
			   size_t sb, size_t n, uint64_t c, uint64_t *bits)
{
	bool nan = false, pos_inf = false, neg_inf = false;
	for (size_t i = 0; i < n; i++) {
		const struct operand *x = &a[i * sa], *y = &b[i * sb];
		bool negative = x->negative != y->negative;
		if ((x->kind | y->kind) & NOT_A_NUMBER || ((x->kind & INF) && (y->kind & ZERO)) ||
		    ((y->kind & INF) && (x->kind & ZERO)))
			nan = true;
		else if ((x->kind | y->kind) & INF)
			*(negative ? &neg_inf : &pos_inf) = true;
	}
	struct fpref_unpacked z;
	fpref_decode(p->output, c, &z);
	if (z.cls == FPREF_CLASS_NAN)
		nan = true;
	else if (z.cls == FPREF_CLASS_INF)
		*(z.negative ? &neg_inf : &pos_inf) = true;
	if (nan || (pos_inf && neg_inf))
		return fpref_format_nan_bits(p->output, false, bits) || true;
	if (pos_inf || neg_inf)
		return fpref_format_inf_bits(p->output, neg_inf, bits) || true;
	return false;
}

/* One block: n products a[i*sa] * b[i*sb] and the accumulator c, rounded once. */
static uint64_t block(const struct plan *p, const struct operand *a, size_t sa, const struct operand *b, size_t sb,
		      size_t n, uint64_t c)
{
	/* terms: magnitude * 2^(exp - 23 - lift), sign apart */
	uint64_t mag[FPREF_TC_MAX_BLOCK + 1];
	int32_t exp[FPREF_TC_MAX_BLOCK + 1];
	uint64_t negative[FPREF_TC_MAX_BLOCK + 1];
	int32_t E = p->floor;
	unsigned kinds = 0;
	for (size_t i = 0; i < n; i++) {
		const struct operand *x = &a[i * sa], *y = &b[i * sb];
		kinds |= x->kind | y->kind;
		mag[i] = ((uint64_t)x->sig * y->sig) << p->shift_in;
		exp[i] = x->exp + y->exp;
		negative[i] = (uint64_t)(x->negative ^ y->negative);
		E = exp[i] > E ? exp[i] : E;
	}
	uint64_t bits;
	if (kinds & (INF | NOT_A_NUMBER) && special_result(p, a, sa, b, sb, n, c, &bits))
		return bits;
	/* c enters as an FP32-style term: a 24-bit significand, normalised as
	 * FP32 holds it (the exponent -126 when subnormal there) */
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1), c_mag = c & ((1ull << o->man_bits) - 1);
	if (field == (1u << o->exp_bits) - 1 && special_result(p, a, sa, b, sb, n, c, &bits))
		return bits;
	size_t count = n;
	if (field || c_mag) {
		int32_t e = (field ? (int32_t)field : 1) - o->bias;
		c_mag = (field ? c_mag | 1ull << o->man_bits : c_mag) << (23 - o->man_bits);
		while (c_mag < 1u << 23 && e > -126) {
			c_mag <<= 1;
			e--;
		}
		mag[count] = c_mag << p->lift;
		exp[count] = e;
		negative[count] = (c >> (o->man_bits + o->exp_bits)) & 1;
		E = e > E ? e : E;
		count++;
	}
	/* every term to F fraction bits below E, its magnitude truncated */
	int64_t sum = 0;
	int32_t base = E + 23 + p->lift - p->frac;
	for (size_t i = 0; i < count; i++) {
		int32_t right = base - exp[i];
		uint64_t v = mag[i] >> (right < 63 ? right : 63);
		sum += (int64_t)((v ^ -negative[i]) + negative[i]);
	}
	unsigned flags = 0;
	bool neg = sum < 0;
	uint64_t r = fpref_emu_round_pack(&p->target, &p->env, 0, neg, E - p->frac,
					  (fpref_u128)(neg ? -(uint64_t)sum : (uint64_t)sum), false, &flags);
	if (flags & FPREF_FLAG_OVERFLOW) /* the hardware gives inf even when rounding toward zero */
		fpref_format_inf_bits(&p->target, neg, &r);
	return r << p->target_shift;
}

/* d = chain of blocks over K products with strides, from accumulator c. */
static uint64_t chain(const struct plan *p, const struct operand *a, size_t sa, const struct operand *b, size_t sb,
		      size_t K, uint64_t c)
{
	size_t n = (size_t)p->block;
	for (size_t k = 0; k < K; k += n) /* a short last block is the same as one padded with zero products */
		c = block(p, a + k * sa, sa, b + k * sb, sb, K - k < n ? K - k : n, c);
	return c;
}

static int decode_all(const struct fpref_format *f, const uint64_t *bits, size_t n, struct operand *o)
{
	for (size_t i = 0; i < n; i++)
		if (operand(f, bits[i], &o[i]) != 0)
			return -1;
	return 0;
}

static bool lowered(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	return m->lowered_k > 0 && strcmp(output->name, "float16") == 0;
}

/* The lowered FP16-output path: per instruction, each group of products
 * (in the order of the instruction's lanes) through the FP16 block model
 * from zero, then c added by an FP16 addition. */
static int lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		       const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *f16, uint64_t *d)
{
	struct fpref_tc_model inner = fpref_tc_model_lowered_blocks(m);
	struct plan p;
	size_t L = (size_t)m->lowered_k, groups = L / (size_t)m->lowered_block, lanes = (size_t)m->interleave;
	if (plan_init(&p, &inner, f16, f16) != 0 || L > 2 * FPREF_TC_MAX_BLOCK || groups == 0 || lanes == 0)
		return -1;
	struct fpref_env env;
	fpref_env_default(&env); /* exact conversions to FP16, then rne additions */
	struct operand x[2 * FPREF_TC_MAX_BLOCK], y[2 * FPREF_TC_MAX_BLOCK];
	uint64_t acc = c;
	for (size_t k0 = 0; k0 < K; k0 += L) {
		size_t len = K - k0 < L ? K - k0 : L;
		uint64_t partial = 0;
		for (size_t h = 0; h < groups; h++) {
			size_t n = 0;
			for (size_t k = 0; k < len; k++) {
				if ((k / lanes) % groups != h)
					continue;
				uint64_t u, v;
				unsigned flags = 0;
				if (fpref_emu_convert(input, a[k0 + k], f16, &env, 0, &u, &flags) != 0 ||
				    fpref_emu_convert(input, b[k0 + k], f16, &env, 0, &v, &flags) != 0)
					return -1;
				operand(f16, u, &x[n]);
				operand(f16, v, &y[n]);
				n++;
			}
			partial = block(&p, x, 1, y, 1, n, partial);
		}
		uint64_t args[3] = { partial, acc, 0 };
		unsigned flags = 0;
		fpref_emu_op(FPREF_OP_ADD, f16, args, &env, 0, &acc, &flags);
	}
	*d = acc;
	return 0;
}

int fpref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	struct plan p;
	struct fpref_unpacked z;
	if (plan_init(&p, m, input, output) != 0 || fpref_decode(output, c, &z) == FPREF_DECODE_INVALID)
		return -1;
	if (lowered(m, output))
		return lowered_dot(m, input, a, b, K, c, output, d);
	struct operand *x = malloc((2 * K + 1) * sizeof *x);
	if (!x)
		return -1;
	int r = decode_all(input, a, K, x) | decode_all(input, b, K, x + K);
	if (r == 0)
		*d = chain(&p, x, 1, x + K, 1, K, c);
	free(x);
	return r ? -1 : 0;
}

/* The promoted accumulation of one chunk's partial sum p with scales. */
static uint64_t promote(const struct fpref_format *f32, const struct fpref_env *env, uint64_t scale_a,
			uint64_t scale_b, uint64_t p, uint64_t acc)
{
	uint64_t scales[3] = { scale_a, scale_b, 0 }, s = 0;
	unsigned flags = 0;
	fpref_emu_op(FPREF_OP_MUL, f32, scales, env, 0, &s, &flags);
	uint64_t args[3] = { s, p, acc };
	fpref_emu_op(FPREF_OP_FMA, f32, args, env, 0, &acc, &flags);
	return acc;
}

static const uint64_t fp32_one = 0x3F800000;

static uint64_t chain_promoted(const struct plan *p, const struct fpref_env *env, const struct operand *a, size_t sa,
			       const struct operand *b, size_t sb, size_t K, size_t nc, const uint64_t *scale_a,
			       const uint64_t *scale_b, uint64_t acc)
{
	for (size_t k = 0, j = 0; k < K; k += nc, j++) {
		uint64_t partial = chain(p, a + k * sa, sa, b + k * sb, sb, K - k < nc ? K - k : nc, 0);
		acc = promote(p->output, env, scale_a ? scale_a[j] : fp32_one, scale_b ? scale_b[j] : fp32_one, partial,
			      acc);
	}
	return acc;
}

int fpref_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			  const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a, const uint64_t *scale_b,
			  uint64_t c, uint64_t *d)
{
	struct fpref_format f32;
	struct plan p;
	struct fpref_unpacked z;
	if (nc == 0 || fpref_format_parse("float32", &f32, NULL, 0) != 0 || plan_init(&p, m, input, &f32) != 0 ||
	    fpref_decode(&f32, c, &z) == FPREF_DECODE_INVALID)
		return -1;
	struct fpref_env env; /* FP32 arithmetic on ordinary cores: rne */
	fpref_env_default(&env);
	struct operand *x = malloc((2 * K + 1) * sizeof *x);
	if (!x)
		return -1;
	int r = decode_all(input, a, K, x) | decode_all(input, b, K, x + K);
	if (r == 0)
		*d = chain_promoted(&p, &env, x, 1, x + K, 1, K, nc, scale_a, scale_b, c);
	free(x);
	return r ? -1 : 0;
}

int fpref_tc_gemm(const struct fpref_tc_model *m, const struct fpref_format *input, const struct fpref_format *output,
		  size_t M, size_t N, size_t K, const uint64_t *A, const uint64_t *B, const uint64_t *C, size_t nc,
		  uint64_t *D)
{
	struct plan p;
	if (plan_init(&p, m, input, output) != 0 || (nc && strcmp(output->name, "float32") != 0))
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	struct operand *a = malloc((M * K + K * N + 1) * sizeof *a);
	if (!a)
		return -1;
	struct operand *bt = a + M * K; /* B transposed: each column contiguous */
	int r = decode_all(input, A, M * K, a);
	for (size_t k = 0; k < K && r == 0; k++)
		for (size_t j = 0; j < N && r == 0; j++)
			r = operand(input, B[k * N + j], &bt[j * K + k]);
	for (size_t i = 0; i < M * N && r == 0 && C; i++) {
		struct fpref_unpacked z;
		r = fpref_decode(output, C[i], &z) == FPREF_DECODE_INVALID ? -1 : 0;
	}
	uint64_t *col = lowered(m, output) ? malloc((K + 1) * sizeof *col) : NULL;
	if (lowered(m, output) && !col)
		r = -1;
	for (size_t i = 0; i < M && r == 0 && col; i++) /* the lowered path, element by element */
		for (size_t j = 0; j < N && r == 0; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			r = lowered_dot(m, input, A + i * K, col, K, C ? C[i * N + j] : 0, output, &D[i * N + j]);
		}
	if (r == 0 && !col)
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < N; j++) {
				uint64_t c = C ? C[i * N + j] : 0;
				D[i * N + j] = nc ? chain_promoted(&p, &env, a + i * K, 1, bt + j * K, 1, K, nc, NULL, NULL, c)
						  : chain(&p, a + i * K, 1, bt + j * K, 1, K, c);
			}
	free(col);
	free(a);
	return r ? -1 : 0;
}
