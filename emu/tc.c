/* Tensor-core block-FMA models (the rows are in formats/tc_model.c): one
 * block routine over operands decoded once, shared by the dot product, the
 * promoted dot product and the GEMM, ending in the emulator's rounding core. */
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_tc.h"

enum kind { FINITE = 0, ZERO = 1, INF = 2, NOT_A_NUMBER = 4 };

/* Operands decoded once, as columns so that the block loops vectorise:
 * operand i is (-1)^negative * sig * 2^(exp - man_bits), exp the place of
 * the leading bit of a normal significand (subnormals keep the format's
 * least exponent: the hardware does not normalise them).  Zeros, infs and
 * NaNs have sig 0; a zero's exponent is so low that it never sets the
 * alignment, an inf's or NaN's so high that any product with one shows
 * as an exponent above SPECIAL_SEEN (the kinds then say what it is). */
struct operands {
	uint32_t *sig;
	int32_t *exp;
	uint64_t *negative; /* 0, or all ones */
	uint8_t *kind;
};

#define ZERO_EXPONENT (-16000)
#define SPECIAL_EXPONENT 20000
#define SPECIAL_SEEN 2000

static int operands_new(struct operands *o, size_t n)
{
	n = n ? n : 1;
	char *m = malloc(n * (sizeof *o->sig + sizeof *o->exp + sizeof *o->negative + sizeof *o->kind));
	if (!m)
		return -1;
	o->negative = (uint64_t *)m;
	o->sig = (uint32_t *)(m + n * sizeof *o->negative);
	o->exp = (int32_t *)(m + n * (sizeof *o->negative + sizeof *o->sig));
	o->kind = (uint8_t *)(m + n * (sizeof *o->negative + sizeof *o->sig + sizeof *o->exp));
	return 0;
}

static void operands_free(struct operands *o)
{
	free(o->negative);
}

/* The operands from index i on. */
static struct operands operands_at(const struct operands *o, size_t i)
{
	return (struct operands){ o->sig + i, o->exp + i, o->negative + i, o->kind + i };
}

static int decode_one(const struct fpref_format *f, uint64_t bits, const struct operands *o, size_t i)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	o->negative[i] = u.negative ? ~(uint64_t)0 : 0;
	o->kind[i] = u.cls == FPREF_CLASS_NAN ? NOT_A_NUMBER
		     : u.cls == FPREF_CLASS_INF ? INF
		     : u.cls == FPREF_CLASS_ZERO ? ZERO
						  : FINITE;
	o->sig[i] = o->kind[i] == FINITE ? (uint32_t)u.significand : 0;
	o->exp[i] = o->kind[i] == FINITE ? u.exponent + f->man_bits
		    : o->kind[i] == ZERO ? ZERO_EXPONENT
					 : SPECIAL_EXPONENT;
	return 0;
}

static int decode_all(const struct fpref_format *f, const uint64_t *bits, size_t n, const struct operands *o)
{
	for (size_t i = 0; i < n; i++)
		if (decode_one(f, bits[i], o, i) != 0)
			return -1;
	return 0;
}

/* What one (model, input, output) needs in the inner loop. */
struct plan {
	const struct fpref_format *input, *output;
	struct fpref_format target; /* the output, narrowed to F fraction bits when F is fewer */
	struct fpref_env env;       /* the block's one rounding */
	int frac, floor, block;
	bool zero_positive;         /* a zero result is +0 (the model's row) */
	int shift_in;               /* product significand to 23 + lift fraction bits */
	int lift;                   /* extra bits kept so that aligning only ever shifts right */
	unsigned target_shift;      /* target pattern to output pattern */
};

static int plan_init(struct plan *p, const struct fpref_tc_model *m, const struct fpref_format *input,
		     const struct fpref_format *output)
{
	bool fp16_out = strcmp(output->name, "float16") == 0;
	if (!fpref_tc_output_ok(m, input, output) || !fpref_tc_input_ok(input))
		return -1;
	p->input = input;
	p->output = output;
	p->frac = m->frac;
	p->block = m->block;
	p->zero_positive = m->zero_positive;
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

/* NaN or an infinity among the products of a block and c: the result's
 * pattern, or false when they are all finite. */
static bool special_result(const struct plan *p, const struct operands *a, const struct operands *b, size_t n,
			   uint64_t c, uint64_t *bits)
{
	bool nan = false, pos_inf = false, neg_inf = false;
	for (size_t i = 0; i < n; i++) {
		unsigned x = a->kind[i], y = b->kind[i];
		bool negative = (a->negative[i] ^ b->negative[i]) != 0;
		if ((x | y) & NOT_A_NUMBER || ((x & INF) && (y & ZERO)) || ((y & INF) && (x & ZERO)))
			nan = true;
		else if ((x | y) & INF)
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

/* The two loops of a block over columns, written so that compilers
 * vectorise them; the clones pick AVX2 where the machine has it. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define BLOCK_CLONES __attribute__((target_clones("avx2", "default"), optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define BLOCK_CLONES
#endif

/* Each product as a term: magnitude (23 + lift fraction bits), exponent
 * and sign mask.  Returns the largest exponent, not below E. */
BLOCK_CLONES static int32_t product_terms(const uint32_t *restrict sa, const int32_t *restrict ea,
					  const uint64_t *restrict na, const uint32_t *restrict sb,
					  const int32_t *restrict eb, const uint64_t *restrict nb, size_t n, int shift,
					  int32_t E, uint64_t *restrict mag, int32_t *restrict exp,
					  uint64_t *restrict neg)
{
	for (size_t i = 0; i < n; i++) {
		mag[i] = ((uint64_t)sa[i] * sb[i]) << shift;
		exp[i] = ea[i] + eb[i];
		neg[i] = na[i] ^ nb[i];
		E = exp[i] > E ? exp[i] : E;
	}
	return E;
}

/* The exact sum of the terms, each magnitude truncated to a multiple of
 * 2^(base - 23 - lift) relative to its own exponent: right-shifted by
 * base - exp (63 at most, which leaves 0), then signed. */
BLOCK_CLONES static int64_t aligned_sum(const uint64_t *restrict mag, const int32_t *restrict exp,
					const uint64_t *restrict neg, size_t n, int32_t base)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t right = base - exp[i];
		uint64_t v = mag[i] >> (right < 63 ? right : 63);
		sum += (int64_t)((v ^ neg[i]) - neg[i]);
	}
	return sum;
}

/* One block: n products a_i * b_i and the accumulator c, rounded once. */
static uint64_t block(const struct plan *p, const struct operands *a, const struct operands *b, size_t n, uint64_t c)
{
	uint64_t mag[FPREF_TC_MAX_BLOCK + 1], neg[FPREF_TC_MAX_BLOCK + 1];
	int32_t exp[FPREF_TC_MAX_BLOCK + 1];
	int32_t E = product_terms(a->sig, a->exp, a->negative, b->sig, b->exp, b->negative, n, p->shift_in, p->floor,
				  mag, exp, neg);
	uint64_t bits;
	if (E > SPECIAL_SEEN && special_result(p, a, b, n, c, &bits))
		return bits;
	/* c enters as an FP32-style term: a 24-bit significand, normalised as
	 * FP32 holds it (the exponent -126 when subnormal there) */
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1), c_mag = c & ((1ull << o->man_bits) - 1);
	if (field == (1u << o->exp_bits) - 1 && special_result(p, a, b, n, c, &bits))
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
		neg[count] = (c >> (o->man_bits + o->exp_bits)) & 1 ? ~(uint64_t)0 : 0;
		E = e > E ? e : E;
		count++;
	}
	/* every term to F fraction bits below E, its magnitude truncated */
	int64_t sum = aligned_sum(mag, exp, neg, count, E + 23 + p->lift - p->frac);
	unsigned flags = 0;
	bool negative = sum < 0;
	uint64_t r = fpref_emu_round_pack(&p->target, &p->env, 0, negative, E - p->frac,
					  (fpref_u128)(negative ? -(uint64_t)sum : (uint64_t)sum), false, &flags);
	if (flags & FPREF_FLAG_OVERFLOW) /* the hardware gives inf even when rounding toward zero */
		fpref_format_inf_bits(&p->target, negative, &r);
	uint64_t sign = 1ull << (p->target.man_bits + p->target.exp_bits);
	if (p->zero_positive && (r & ~sign) == 0) /* -0 (an underflow of a negative sum) becomes +0 */
		r = 0;
	return r << p->target_shift;
}

/* d = chain of blocks over K products, from accumulator c. */
static uint64_t chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K, uint64_t c)
{
	size_t n = (size_t)p->block;
	for (size_t k = 0; k < K; k += n) { /* a short last block is the same as one padded with zero products */
		struct operands x = operands_at(a, k), y = operands_at(b, k);
		c = block(p, &x, &y, K - k < n ? K - k : n, c);
	}
	return c;
}

/* The lowered path: per instruction, the inputs converted to FP16, each
 * group of products (in the order of the instruction's lanes) through the
 * FP16 unit's block model, chained from zero, then c added by one
 * addition in the output format. */
static int lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		       const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	struct fpref_format f16;
	struct plan p;
	if (!inner || fpref_format_parse("float16", &f16, NULL, 0) != 0 || plan_init(&p, inner, &f16, output) != 0)
		return -1;
	size_t L = (size_t)m->lowered_k, groups = L / (size_t)inner->block, lanes = (size_t)m->interleave;
	if (groups == 0 || lanes == 0)
		return -1;
	struct fpref_env env;
	fpref_env_default(&env); /* exact conversions to FP16, then rne additions */
	struct operands x, y;
	if (operands_new(&x, L) != 0)
		return -1;
	if (operands_new(&y, L) != 0) {
		operands_free(&x);
		return -1;
	}
	int status = 0;
	uint64_t acc = c;
	for (size_t k0 = 0; k0 < K && status == 0; k0 += L) {
		size_t len = K - k0 < L ? K - k0 : L;
		uint64_t partial = 0;
		for (size_t h = 0; h < groups && status == 0; h++) {
			size_t n = 0;
			for (size_t k = 0; k < len && status == 0; k++) {
				if ((k / lanes) % groups != h)
					continue;
				uint64_t u, v;
				unsigned flags = 0;
				status = fpref_emu_convert(input, a[k0 + k], &f16, &env, 0, &u, &flags) |
					 fpref_emu_convert(input, b[k0 + k], &f16, &env, 0, &v, &flags);
				if (status == 0) {
					decode_one(&f16, u, &x, n);
					decode_one(&f16, v, &y, n);
					n++;
				}
			}
			if (status == 0)
				partial = block(&p, &x, &y, n, partial);
		}
		uint64_t args[3] = { partial, acc, 0 };
		unsigned flags = 0;
		fpref_emu_op(FPREF_OP_ADD, output, args, &env, 0, &acc, &flags);
	}
	operands_free(&x);
	operands_free(&y);
	if (status == 0)
		*d = acc;
	return status ? -1 : 0;
}

/* a and b decoded into one allocation of 2K operands. */
static int decode_pair(const struct fpref_format *input, const uint64_t *a, const uint64_t *b, size_t K,
		       struct operands *all, struct operands *x, struct operands *y)
{
	if (operands_new(all, 2 * K) != 0)
		return -1;
	*x = *all;
	*y = operands_at(all, K);
	if (decode_all(input, a, K, x) != 0 || decode_all(input, b, K, y) != 0) {
		operands_free(all);
		return -1;
	}
	return 0;
}

int fpref_emu_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	struct plan p;
	struct fpref_unpacked z;
	if (plan_init(&p, m, input, output) != 0 || fpref_decode(output, c, &z) == FPREF_DECODE_INVALID)
		return -1;
	if (fpref_tc_lowered(m, output))
		return lowered_dot(m, input, a, b, K, c, output, d);
	struct operands all, x, y;
	if (decode_pair(input, a, b, K, &all, &x, &y) != 0)
		return -1;
	*d = chain(&p, &x, &y, K, c);
	operands_free(&all);
	return 0;
}

/* The promoted accumulation of one chunk's partial sum with scales. */
static uint64_t promote(const struct fpref_format *f32, const struct fpref_env *env, uint64_t scale_a,
			uint64_t scale_b, uint64_t partial, uint64_t acc)
{
	uint64_t scales[3] = { scale_a, scale_b, 0 }, s = 0;
	unsigned flags = 0;
	fpref_emu_op(FPREF_OP_MUL, f32, scales, env, 0, &s, &flags);
	uint64_t args[3] = { s, partial, acc };
	fpref_emu_op(FPREF_OP_FMA, f32, args, env, 0, &acc, &flags);
	return acc;
}

static const uint64_t fp32_one = 0x3F800000;

static uint64_t chain_promoted(const struct plan *p, const struct fpref_env *env, const struct operands *a,
			       const struct operands *b, size_t K, size_t nc, const uint64_t *scale_a,
			       const uint64_t *scale_b, uint64_t acc)
{
	for (size_t k = 0, j = 0; k < K; k += nc, j++) {
		struct operands x = operands_at(a, k), y = operands_at(b, k);
		uint64_t partial = chain(p, &x, &y, K - k < nc ? K - k : nc, 0);
		acc = promote(p->output, env, scale_a ? scale_a[j] : fp32_one, scale_b ? scale_b[j] : fp32_one, partial,
			      acc);
	}
	return acc;
}

int fpref_emu_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			  const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a, const uint64_t *scale_b,
			  uint64_t c, uint64_t *d)
{
	struct fpref_format f32;
	struct plan p;
	struct fpref_unpacked z;
	if (nc == 0 || fpref_format_parse("float32", &f32, NULL, 0) != 0 || plan_init(&p, m, input, &f32) != 0 ||
	    fpref_tc_lowered(m, &f32) || fpref_decode(&f32, c, &z) == FPREF_DECODE_INVALID)
		return -1; /* promotion of lowered partial sums is not modelled */
	struct fpref_env env; /* FP32 arithmetic on ordinary cores: rne */
	fpref_env_default(&env);
	struct operands all, x, y;
	if (decode_pair(input, a, b, K, &all, &x, &y) != 0)
		return -1;
	*d = chain_promoted(&p, &env, &x, &y, K, nc, scale_a, scale_b, c);
	operands_free(&all);
	return 0;
}

int fpref_emu_tc_gemm(const struct fpref_tc_model *m, const struct fpref_format *input, const struct fpref_format *output,
		  size_t M, size_t N, size_t K, const uint64_t *A, const uint64_t *B, const uint64_t *C, size_t nc,
		  uint64_t *D)
{
	struct plan p;
	if (plan_init(&p, m, input, output) != 0 || (nc && (strcmp(output->name, "float32") != 0 || fpref_tc_lowered(m, output))))
		return -1;
	for (size_t i = 0; C && i < M * N; i++) {
		struct fpref_unpacked z;
		if (fpref_decode(output, C[i], &z) == FPREF_DECODE_INVALID)
			return -1;
	}
	if (fpref_tc_lowered(m, output)) { /* element by element */
		uint64_t *col = malloc((K + 1) * sizeof *col);
		int r = col ? 0 : -1;
		for (size_t i = 0; i < M && r == 0; i++)
			for (size_t j = 0; j < N && r == 0; j++) {
				for (size_t k = 0; k < K; k++)
					col[k] = B[k * N + j];
				r = lowered_dot(m, input, A + i * K, col, K, C ? C[i * N + j] : 0, output, &D[i * N + j]);
			}
		free(col);
		return r;
	}
	struct fpref_env env;
	fpref_env_default(&env);
	struct operands all;
	if (operands_new(&all, M * K + K * N) != 0)
		return -1;
	struct operands bt = operands_at(&all, M * K); /* B transposed: each column contiguous */
	int r = decode_all(input, A, M * K, &all);
	for (size_t k = 0; k < K && r == 0; k++)
		for (size_t j = 0; j < N && r == 0; j++)
			r = decode_one(input, B[k * N + j], &bt, j * K + k);
	for (size_t i = 0; i < M && r == 0; i++)
		for (size_t j = 0; j < N; j++) {
			struct operands x = operands_at(&all, i * K), y = operands_at(&bt, j * K);
			uint64_t c = C ? C[i * N + j] : 0;
			D[i * N + j] = nc ? chain_promoted(&p, &env, &x, &y, K, nc, NULL, NULL, c) : chain(&p, &x, &y, K, c);
		}
	operands_free(&all);
	return r ? -1 : 0;
}
