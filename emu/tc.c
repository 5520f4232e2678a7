/* Tensor-core block-FMA models (the rows are in formats/tc_model.c): one
 * block routine over operands decoded once, shared by the dot product, the
 * promoted dot product and the GEMM, ending in the emulator's rounding core. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "round_core.h"
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
	struct fpref_emu_round_target round; /* target's constants for the core (a plan is never copied) */
	struct fpref_env env;       /* the block's one rounding */
	int frac, floor, block;
	int shift_in;               /* product significand to 23 + lift fraction bits */
	int lift;                   /* extra bits kept so that aligning only ever shifts right */
	unsigned target_shift;      /* target pattern to output pattern */
	int group, parts, sum_frac, c_frac, c_drop; /* the block-scaled and two-stage paths (fpref_formats_tc_model.h) */
	int32_t least_in;           /* the input's least exponent (a subnormal's alignment place) */
	int32_t span_in;            /* the input's largest leading place above least_in */
	int group_shift;            /* group sum (units of 2^(2 least_in - 2 man)) to 23 + lift fraction bits, before the scales' */
	int tree;                   /* the FP32 path (fpref_formats_tc_model.h, tree) */
	bool flush;
	struct fpref_env fp32_env;  /* its FP32 arithmetic: rne */
};

/* The two scales of a group or block, multiplied: sig * 2^(exp - man),
 * exp the scales' alignment places added; kind NaN or ZERO when either is. */
struct scale_pair {
	uint64_t sig;
	int32_t exp;
	int man;
	uint8_t kind;
};

static const struct scale_pair unit_scales = { 1, 0, 0, FINITE };

/* The leading bit's place of a format's largest finite value and of its
 * least normal value. */
static int32_t leading_place(const struct fpref_unpacked *u)
{
	int32_t e = u->exponent;
	for (uint64_t s = u->significand; s > 1; s >>= 1)
		e++;
	return e;
}

static int plan_init(struct plan *p, const struct fpref_tc_model *m, const struct fpref_format *input,
		     const struct fpref_format *output)
{
	if (!fpref_tc_output_ok(m, input, output) || !fpref_tc_input_ok(input))
		return -1;
	p->input = input;
	p->output = output;
	p->frac = m->frac;
	p->block = m->block;
	p->floor = fpref_tc_model_floor(m, output);
	p->lift = m->frac > 23 ? m->frac - 23 : 0;
	p->shift_in = 23 - 2 * input->man_bits + p->lift;
	fpref_tc_model_env(m, output, &p->env);
	p->group = m->group;
	p->parts = m->halves > 1 ? m->halves : 1;
	p->sum_frac = m->sum_frac;
	p->c_frac = m->c_frac;
	p->c_drop = m->c_drop;
	p->tree = m->tree;
	p->flush = m->flush;
	fpref_env_default(&p->fp32_env);
	struct fpref_unpacked lo, hi;
	fpref_format_min_normal(input, &lo);
	fpref_format_max_finite(input, &hi);
	p->least_in = leading_place(&lo);
	p->span_in = leading_place(&hi) - p->least_in;
	p->group_shift = 23 + p->lift + 2 * (p->least_in - input->man_bits);
	/* the group path keeps a group's exact sum times two E4M3 significands
	 * (8 bits) in 64 bits: narrow inputs only (FP4) */
	int group_bits = 2 * (leading_place(&hi) - p->least_in) + 2 * (input->man_bits + 1) + 6 + 8 + p->group_shift;
	if (m->group > 0 && (m->group > m->block || p->group_shift < 6 || group_bits > 60))
		return -1;
	/* the two-stage path's shifts stay small: C and the sum each below 2^40 */
	if (m->sum_frac > 0 && (m->sum_frac < m->c_frac || m->sum_frac - m->frac > 16 || m->c_frac > 40 || m->c_frac < 1 ||
				m->group > 0 || p->parts > m->block))
		return -1;
	p->target = *output;
	p->target_shift = 0;
	if (m->frac < output->man_bits) {
		p->target.man_bits = m->frac;
		p->target_shift = (unsigned)(output->man_bits - m->frac);
	}
	fpref_emu_round_target_init(&p->round, &p->target);
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

/* The two loops of a block over columns, and the GEMM's tile loops
 * (round_core.h). */
#define BLOCK_CLONES FPREF_EMU_LANE_CLONES

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

/* c as a term of a block: a 24-bit significand with 23 fraction bits,
 * normalised as FP32 holds it (exponent -126 when subnormal there), its
 * place e and sign mask.  False for a zero c. */
static bool c_term(const struct plan *p, uint64_t c, uint64_t *mag, int32_t *e, uint64_t *neg)
{
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1), m = c & ((1ull << o->man_bits) - 1);
	if (!field && !m)
		return false;
	int32_t x = (field ? (int32_t)field : 1) - o->bias;
	m = (field ? m | 1ull << o->man_bits : m) << (23 - o->man_bits);
	while (m < 1u << 23 && x > -126) {
		m <<= 1;
		x--;
	}
	*mag = m;
	*e = x;
	*neg = (c >> (o->man_bits + o->exp_bits)) & 1 ? ~(uint64_t)0 : 0;
	return true;
}

/* A special c (inf or NaN) or a special product: the result, or false. */
static bool special_c(const struct plan *p, const struct operands *a, const struct operands *b, size_t n, uint64_t c,
		      uint64_t *bits)
{
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1);
	return field == (1u << o->exp_bits) - 1 && special_result(p, a, b, n, c, bits);
}

/* A block's exact sum of truncated terms, aligned at E, rounded once. */
static uint64_t round_block(const struct plan *p, int64_t sum, int32_t E)
{
	unsigned flags = 0;
	bool negative = sum < 0;
	uint64_t r = fpref_emu_round_pack_target(&p->round, &p->env, 0, negative, E - p->frac,
					  (fpref_u128)(negative ? -(uint64_t)sum : (uint64_t)sum), false, &flags);
	return r << p->target_shift;
}

/* The terms' sum, each truncated to F fraction bits below E, rounded once. */
static uint64_t finish_block(const struct plan *p, const uint64_t *mag, const int32_t *exp, const uint64_t *neg,
			     size_t count, int32_t E)
{
	return round_block(p, aligned_sum(mag, exp, neg, count, E + 23 + p->lift - p->frac), E);
}

static uint64_t nan_result(const struct plan *p)
{
	uint64_t bits = 0;
	fpref_format_nan_bits(p->output, false, &bits);
	return bits;
}

/* The group path: each group's exact sum times its scales, aligned at the
 * scales' exponents (fpref_formats_tc_model.h, group). */
static size_t group_terms(const struct plan *p, const struct operands *a, const struct operands *b, size_t n,
			  const struct scale_pair *sc, uint64_t *mag, int32_t *exp, uint64_t *neg, int32_t *E)
{
	size_t g = (size_t)p->group, count = 0;
	for (size_t k0 = 0; k0 < n; k0 += g, count++) {
		const struct scale_pair *s = sc ? &sc[k0 / g] : &unit_scales;
		int64_t sum = 0;
		for (size_t i = k0; i < n && i < k0 + g; i++) {
			int shift = (a->exp[i] - p->least_in) + (b->exp[i] - p->least_in);
			int64_t v = (int64_t)(((uint64_t)a->sig[i] * b->sig[i]) << (a->sig[i] && b->sig[i] ? shift : 0));
			uint64_t m = a->negative[i] ^ b->negative[i]; /* the sign by a mask: no branch guesses it */
			sum += (int64_t)(((uint64_t)v ^ m) - m);
		}
		uint64_t u = sum < 0 ? -(uint64_t)sum : (uint64_t)sum;
		mag[count] = s->kind == ZERO ? 0 : (u * s->sig) << (p->group_shift - s->man);
		exp[count] = s->kind == ZERO ? INT32_MIN / 4 : s->exp; /* a zero scale: never sets the alignment */
		neg[count] = sum < 0 ? ~(uint64_t)0 : 0;
		if (s->kind != ZERO && s->exp > *E)
			*E = s->exp;
	}
	return count;
}

/* floor(x * 2^k), k below 40; without a branch on x's sign: for a negative
 * x, floor(x / 2^r) = ~(~x >> r), ~x not negative. */
static inline int64_t shift_floor(int64_t x, int k)
{
	uint64_t u = (uint64_t)x, m = 0 - (u >> 63);
	int r = -k > 63 ? 63 : -k;
	uint64_t down = ((u ^ m) >> (r > 0 ? r : 0)) ^ m;
	return (int64_t)(k >= 0 ? u << (k >= 0 ? k : 0) : down);
}

/* AMD's two-stage dot-add (fpref_formats_tc_model.h, sum_frac). */
static uint64_t two_stage_block(const struct plan *p, const uint64_t *mag, const int32_t *exp, const uint64_t *neg,
				size_t n, uint64_t c)
{
	int64_t part[FPREF_TC_MAX_BLOCK];
	int32_t part_e[FPREF_TC_MAX_BLOCK], E1 = 0;
	bool products = false;
	for (int h = 0; h < p->parts; h++) {
		/* the part's largest exponent among its nonzero terms, without a
		 * branch per term (every exponent is above INT32_MIN) */
		int32_t e = INT32_MIN;
		for (size_t i = (size_t)h; i < n; i += (size_t)p->parts)
			e = mag[i] && exp[i] > e ? exp[i] : e;
		bool any = e != INT32_MIN;
		e = any ? e : 0;
		int64_t sum = 0;
		for (size_t i = (size_t)h; any && i < n; i += (size_t)p->parts) {
			int32_t right = e + 23 + p->lift - p->frac - exp[i];
			uint64_t v = mag[i] >> (right < 63 ? right : 63);
			sum += (int64_t)((v ^ neg[i]) - neg[i]);
		}
		part[h] = any ? sum : 0;
		part_e[h] = any ? e : INT32_MIN;
		if (any && (!products || e > E1))
			E1 = e, products = true;
	}
	int64_t s = 0;
	for (int h = 0; products && h < p->parts; h++)
		if (part_e[h] != INT32_MIN)
			s += shift_floor(part[h], part_e[h] - E1);
	uint64_t c_mag = 0, c_neg = 0;
	int32_t ec = 0;
	bool have_c = c_term(p, c, &c_mag, &ec, &c_neg);
	if (!products && !have_c)
		return finish_block(p, mag, exp, neg, 0, 0);
	int32_t E2 = !products ? ec : !have_c || E1 > ec ? E1 : ec;
	int64_t total = products ? shift_floor(s, (E1 - p->frac) - (E2 - p->sum_frac)) : 0;
	if (have_c && !(p->c_drop > 0 && ec < E2 - p->c_drop)) {
		int64_t cv = c_neg ? -(int64_t)c_mag : (int64_t)c_mag;
		total += (int64_t)((uint64_t)shift_floor(cv, (ec - 23) - (E2 - p->c_frac)) << (p->sum_frac - p->c_frac));
	}
	unsigned flags = 0;
	bool negative = total < 0;
	return fpref_emu_round_pack_target(&p->round, &p->env, 0, negative, E2 - p->sum_frac,
				    (fpref_u128)(negative ? -(uint64_t)total : (uint64_t)total), false, &flags)
	       << p->target_shift;
}

/* One block: n products a_i * b_i and the accumulator c, rounded once;
 * sc the block's scales (its groups' with the group path), or NULL. */
static uint64_t block(const struct plan *p, const struct operands *a, const struct operands *b, size_t n, uint64_t c,
		      const struct scale_pair *sc)
{
	uint64_t mag[FPREF_TC_MAX_BLOCK + 1], neg[FPREF_TC_MAX_BLOCK + 1];
	int32_t exp[FPREF_TC_MAX_BLOCK + 1];
	uint64_t bits;
	size_t count = n, groups = p->group > 0 ? (n + (size_t)p->group - 1) / (size_t)p->group : 1;
	for (size_t j = 0; sc && j < groups; j++)
		if (sc[j].kind == NOT_A_NUMBER)
			return nan_result(p);
	int32_t shift = sc && !p->group ? sc->exp : 0, E;
	if (p->group > 0) {
		E = p->floor;
		for (size_t i = 0; i < n; i++)
			if ((a->kind[i] | b->kind[i]) & (INF | NOT_A_NUMBER))
				return special_result(p, a, b, n, c, &bits) ? bits : nan_result(p);
		count = group_terms(p, a, b, n, sc, mag, exp, neg, &E);
	} else {
		/* E8M0 scales move every product's exponent by the same amount */
		E = product_terms(a->sig, a->exp, a->negative, b->sig, b->exp, b->negative, n, p->shift_in,
				  p->floor - shift, mag, exp, neg);
		if (E > SPECIAL_SEEN && special_result(p, a, b, n, c, &bits))
			return bits;
		for (size_t i = 0; shift && i < n; i++)
			exp[i] += shift;
		E += shift;
	}
	if (special_c(p, a, b, n, c, &bits))
		return bits;
	if (p->sum_frac > 0)
		return two_stage_block(p, mag, exp, neg, n, c);
	if (c_term(p, c, &mag[count], &exp[count], &neg[count])) {
		mag[count] <<= p->lift;
		E = exp[count] > E ? exp[count] : E;
		count++;
	}
	return finish_block(p, mag, exp, neg, count, E);
}

/* d = chain of blocks over K products, from accumulator c. */
static uint64_t chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K, uint64_t c,
		      const struct scale_pair *sc)
{
	size_t n = (size_t)p->block, unit = p->group > 0 ? (size_t)p->group : n;
	for (size_t k = 0; k < K; k += n) { /* a short last block is the same as one padded with zero products */
		struct operands x = operands_at(a, k), y = operands_at(b, k);
		c = block(p, &x, &y, K - k < n ? K - k : n, c, sc ? sc + k / unit : NULL);
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
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	struct plan p;
	if (!inner || plan_init(&p, inner, f16, output) != 0)
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
				status = fpref_emu_convert(input, a[k0 + k], f16, &env, 0, &u, &flags) |
					 fpref_emu_convert(input, b[k0 + k], f16, &env, 0, &v, &flags);
				if (status == 0) {
					decode_one(f16, u, &x, n);
					decode_one(f16, v, &y, n);
					n++;
				}
			}
			if (status == 0)
				partial = block(&p, &x, &y, n, partial, NULL);
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

/* CDNA1/2 (fpref_formats_tc_model.h, tree): FP32 arithmetic, nearest even. */
static uint64_t flush32(uint64_t x, bool flush)
{
	return flush && (x & 0x7F800000) == 0 ? x & 0x80000000 : x; /* a zero of its sign */
}

static bool tiny(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	fpref_decode(f, bits, &u);
	return u.cls == FPREF_CLASS_SUBNORMAL || u.cls == FPREF_CLASS_ZERO;
}

static uint64_t tree_sum(const uint64_t *a, const uint64_t *b, size_t n, bool flush, const struct fpref_env *env)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t r = 0;
	unsigned flags = 0;
	if (n == 1) {
		uint64_t args[3] = { a[0], b[0], 0 };
		fpref_emu_op(FPREF_OP_FMA, f32, args, env, 0, &r, &flags);
	} else {
		uint64_t args[3] = { tree_sum(a, b, n / 2, flush, env), tree_sum(a + n / 2, b + n / 2, n - n / 2, flush, env), 0 };
		fpref_emu_op(FPREF_OP_ADD, f32, args, env, 0, &r, &flags);
	}
	return flush32(r, flush);
}

/* The accumulator a chain starts from (CDNA2 reads a subnormal C as +0). */
static uint64_t tree_start(const struct fpref_tc_model *m, uint64_t c)
{
	return m->flush && (c & 0x7F800000) == 0 ? 0 : c;
}

/* One group of tree_dot: *acc plus the pairwise sum of len products, b's
 * operands bstride apart.  -1 for an invalid pattern. */
static int tree_step(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		     const uint64_t *b, size_t bstride, size_t len, uint64_t *acc)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t x[FPREF_TC_MAX_BLOCK], y[FPREF_TC_MAX_BLOCK];
	for (size_t i = 0; i < len; i++) {
		unsigned flags = 0;
		if (fpref_emu_convert(input, a[i], f32, &env, 0, &x[i], &flags) != 0 ||
		    fpref_emu_convert(input, b[i * bstride], f32, &env, 0, &y[i], &flags) != 0)
			return -1;
		/* CDNA2 reads subnormal and zero inputs as +0 */
		x[i] = m->flush && tiny(input, a[i]) ? 0 : x[i];
		y[i] = m->flush && tiny(input, b[i * bstride]) ? 0 : y[i];
	}
	uint64_t args[3] = { *acc, tree_sum(x, y, len, m->flush, &env), 0 };
	unsigned flags = 0;
	fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, acc, &flags);
	*acc = flush32(*acc, m->flush);
	return 0;
}

static int tree_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		    const uint64_t *b, size_t K, uint64_t c, uint64_t *d)
{
	uint64_t acc = tree_start(m, c);
	size_t n = (size_t)m->block;
	for (size_t k0 = 0; k0 < K; k0 += n)
		if (tree_step(m, input, a + k0, b + k0, 1, K - k0 < n ? K - k0 : n, &acc) != 0)
			return -1;
	*d = acc;
	return 0;
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

/* One scale as sig * 2^(exp - man), UE4M3 read without its sign. */
static int decode_scale(const struct fpref_format *f, uint64_t bits, struct scale_pair *s)
{
	struct fpref_unpacked u;
	if (f->is_signed)
		bits &= ~(1ull << (f->man_bits + f->exp_bits + f->pad_bits));
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	s->kind = u.cls == FPREF_CLASS_NAN ? NOT_A_NUMBER : u.cls == FPREF_CLASS_ZERO ? ZERO : FINITE;
	s->sig = s->kind == FINITE ? u.significand : 0;
	s->exp = s->kind == FINITE ? u.exponent + f->man_bits : 0;
	s->man = f->man_bits;
	return 0;
}

/* Two decoded scales multiplied (NaN before zero). */
static struct scale_pair scale_product(const struct scale_pair *x, const struct scale_pair *y)
{
	struct scale_pair r;
	r.kind = x->kind == NOT_A_NUMBER || y->kind == NOT_A_NUMBER ? NOT_A_NUMBER
		 : x->kind == ZERO || y->kind == ZERO		      ? ZERO
								      : FINITE;
	r.sig = x->sig * y->sig;
	r.exp = x->exp + y->exp;
	r.man = x->man + y->man;
	return r;
}

/* The products of each chunk's two scales (chunks of the model's group,
 * or of its block), for K products: NULL on a bad pattern or no memory. */
static struct scale_pair *scale_pairs(const struct fpref_tc_model *m, const struct fpref_tc_scales *s, size_t K)
{
	size_t unit = (size_t)(m->group > 0 ? m->group : m->block), chunks = (K + unit - 1) / unit;
	struct scale_pair *pairs = malloc((chunks ? chunks : 1) * sizeof *pairs);
	for (size_t j = 0; pairs && j < chunks; j++) {
		struct scale_pair x, y;
		size_t i = j * unit / s->every;
		if (decode_scale(s->format, s->a[i], &x) != 0 || decode_scale(s->format, s->b[i], &y) != 0) {
			free(pairs);
			return NULL;
		}
		pairs[j] = scale_product(&x, &y);
	}
	return pairs;
}

int fpref_emu_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			    const uint64_t *b, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			    const struct fpref_format *output, uint64_t *d)
{
	struct plan p;
	struct fpref_unpacked z;
	if (plan_init(&p, m, input, output) != 0 || fpref_decode(output, c, &z) == FPREF_DECODE_INVALID ||
	    !fpref_tc_scales_ok(m, scales) || (scales && fpref_tc_lowered(m, output)))
		return -1;
	if (fpref_tc_lowered(m, output))
		return lowered_dot(m, input, a, b, K, c, output, d);
	if (m->tree > 0)
		return tree_dot(m, input, a, b, K, c, d);
	struct scale_pair *pairs = scales ? scale_pairs(m, scales, K) : NULL;
	struct operands all, x, y;
	if ((scales && !pairs) || decode_pair(input, a, b, K, &all, &x, &y) != 0) {
		free(pairs);
		return -1;
	}
	*d = chain(&p, &x, &y, K, c, pairs);
	operands_free(&all);
	free(pairs);
	return 0;
}

int fpref_emu_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	return fpref_emu_tc_dot_scaled(m, input, a, b, K, NULL, c, output, d);
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
		uint64_t partial = chain(p, &x, &y, K - k < nc ? K - k : nc, 0, NULL);
		acc = promote(p->output, env, scale_a ? scale_a[j] : fp32_one, scale_b ? scale_b[j] : fp32_one, partial,
			      acc);
	}
	return acc;
}

int fpref_emu_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			  const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a, const uint64_t *scale_b,
			  uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct plan p;
	struct fpref_unpacked z;
	if (nc == 0 || plan_init(&p, m, input, f32) != 0 || fpref_tc_lowered(m, f32) || m->tree > 0 ||
	    fpref_decode(f32, c, &z) == FPREF_DECODE_INVALID)
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

/* The GEMM's tile path, for the block models (their products summed in
 * 32-bit lanes where tile_fits, else in 64-bit ones), the two-stage,
 * group and FP32 pairwise models and the lowered paths: B decoded as
 * given, row-major, so that TILE adjacent columns are TILE lanes of one
 * loop and a block's alignment exponent is a lane-wise maximum (no
 * horizontal reduction, no transposed copy).  The arithmetic is block()'s
 * term by term: the same products, shifts and truncations, summed exactly
 * (so their order does not matter), the same one rounding, through the
 * core's loop over many sums.  A lane whose block holds an inf or NaN, or
 * whose accumulator is one, goes through block() itself.  The block-scaled
 * GEMM takes the same kernels, each lane with its scales (struct
 * tile_scales).  tests/check_tc_gemm holds the GEMM against
 * fpref_emu_tc_dot element by element, tests/check_tc_gemm_scaled the
 * scaled one against fpref_emu_tc_dot_scaled. */
#define TILE 16

/* The FP32 path's tile kernel takes TREE_ROWS rows of A at once, so that
 * each of its additions rounds TREE_ROWS * TILE lanes in one call of the
 * batch rounding (the calls' own cost spread over 128 lanes: 8 rows ran
 * faster than 4 on an AVX-512 EPYC), and groups of at most TREE_MAX_BLOCK
 * products (tile_tree_fits; the presets' are 2 and 4). */
#define TREE_ROWS 8
#define TREE_LANES (TREE_ROWS * TILE)
#define TREE_MAX_BLOCK 8
/* The most full groups of 2 or 4 products one call of the FP32 tile
 * kernel takes (tree_group_lanes), each lane's accumulator unpacked
 * between them. */
#define TREE_GROUPS 4

/* The tile path's own copy of the operands, 4 bytes each where struct
 * operands takes 17, so that a block of B for a whole tile stays in the
 * first-level cache while every row of A passes over it: the significand
 * with the operand's sign folded in, and the exponent.  Both fit 16 bits:
 * at most 11 significand bits (fpref_tc_input_ok), exponents from
 * ZERO_EXPONENT to SPECIAL_EXPONENT. */
struct tile_operands {
	int16_t *sig, *exp;
};

static struct tile_operands tile_operands_at(const struct tile_operands *o, size_t i)
{
	return (struct tile_operands){ o->sig + i, o->exp + i };
}

/* The group path's significands are the products' exact group sums'
 * units already (group_terms): an operand's significand shifted to its
 * place above the input's least exponent, so that a product is one
 * multiplication and a group sum a plain integer dot product; zeros and
 * specials 0 (a block with a special goes through block()). */
static void tile_operand_set(const struct tile_operands *t, size_t i, const struct operands *o, size_t at,
			     const struct plan *p, bool grouped)
{
	int32_t sig = (int32_t)o->sig[at];
	int32_t exp = o->exp[at];
	if (p->flush && sig < (int32_t)1 << p->input->man_bits) { /* CDNA2 reads a subnormal input as +0 */
		sig = 0;
		exp = ZERO_EXPONENT; /* as a zero's: its products' places below every nonzero one's (tree_lanes) */
	}
	if (grouped)
		sig = o->kind[at] == FINITE ? sig * ((int32_t)1 << (o->exp[at] - p->least_in)) : 0;
	t->sig[i] = (int16_t)(o->negative[at] ? -sig : sig);
	t->exp[i] = (int16_t)exp;
}

/* The lanes' largest product exponent over k = 0, step, 2 step ... below n. */
static inline void tile_exponents(const int16_t *restrict ea, const int16_t *restrict eb, size_t stride,
				  size_t n, size_t step, int32_t *restrict E)
{
	for (size_t k = 0; k < n; k += step) {
		const int16_t *restrict row = eb + k * stride;
		for (size_t j = 0; j < TILE; j++) {
			int32_t e = ea[k] + row[j];
			E[j] = e > E[j] ? e : E[j];
		}
	}
}

/* The block's products for TILE lanes (k = 0, step, 2 step ... below n),
 * each truncated as aligned_sum truncates it, summed exactly, in 32-bit
 * lanes (twice as many per instruction as 64-bit ones).  They cannot leave
 * them (tile_fits): a product of two signed significands shifted to 23 +
 * lift fraction bits is below 2^(25 + lift) <= 2^31 in magnitude; aligned
 * at E it is shifted right by at least 23 + lift - F, so below 2^(F + 2);
 * and n of them, the positive and the negative ones summed apart, stay
 * below 2^32.  tile_sums64 is the same loop in 64-bit lanes, for the
 * plans whose F or lift 32 bits do not hold (tile_fits_wide: every F the
 * models take, at most FPREF_TC_MAX_FRAC = 36, the tpu-bf16 and
 * intel-bf16 rows' among them; the lanes themselves would hold 60). */
#define TILE_SUMS(NAME, UWORD, SWORD, BITS)                                                                       \
	static inline void NAME(const int16_t *restrict sa, const int16_t *restrict ea, const int16_t *restrict sb,     \
				const int16_t *restrict eb, size_t stride, size_t n, size_t step, int shift,            \
				const int32_t *restrict base, int64_t *restrict sum)                                    \
	{                                                                                                           \
		UWORD pos[TILE] = { 0 }, neg[TILE] = { 0 };                                                         \
		for (size_t k = 0; k < n; k += step) {                                                              \
			const int16_t *restrict s = sb + k * stride;                                                \
			const int16_t *restrict e = eb + k * stride;                                                \
			SWORD a = sa[k] * ((SWORD)1 << shift), x = ea[k];                                           \
			for (size_t j = 0; j < TILE; j++) {                                                         \
				SWORD product = a * s[j];                                                           \
				UWORD mag = product < 0 ? -(UWORD)product : (UWORD)product;                         \
				/* at least 0 (E is the block's largest exponent); BITS - 1 or more leaves 0 */     \
				UWORD right = (UWORD)(base[j] - (x + e[j]));                                        \
				UWORD v = mag >> (right < BITS - 1 ? right : BITS - 1), m = product < 0 ? ~(UWORD)0 : 0; \
				pos[j] += v & ~m;                                                                   \
				neg[j] += v & m;                                                                    \
			}                                                                                           \
		}                                                                                                   \
		for (size_t j = 0; j < TILE; j++)                                                                   \
			sum[j] += (int64_t)pos[j] - (int64_t)neg[j];                                                \
	}
TILE_SUMS(tile_sums, uint32_t, int32_t, 32)
TILE_SUMS(tile_sums64, uint64_t, int64_t, 64)
#undef TILE_SUMS

/* Whether tile_sums' 32-bit lanes hold every block of the plan (above). */
static bool tile_fits(const struct plan *p)
{
	return p->lift <= 6 && p->frac + 2 <= 32 && (uint64_t)p->block << (p->frac + 2) <= (1ull << 32);
}

/* Whether tile_sums64's lanes do: a product below 2^(25 + lift) <= 2^62,
 * the n truncated ones, each below 2^(F + 2), below 2^62 together, and C
 * (below 2^24, tile_c_terms) shifted up by lift below 2^61. */
static bool tile_fits_wide(const struct plan *p)
{
	return p->lift <= 37 && p->frac + 2 <= 62 && (uint64_t)p->block << (p->frac + 2) <= (1ull << 62);
}

/* Whether the group path's shifted significands fit tile_operands' 16 bits
 * and a group's exact sum 32-bit lanes. */
static bool tile_groups_fit(const struct plan *p)
{
	int bits = p->input->man_bits + 1 + p->span_in;
	return bits <= 15 && (uint64_t)p->group << (2 * bits) < (1ull << 31);
}

/* The two-stage tile kernel's most parts (the presets have 1 and 2). */
#define TILE_PARTS 4

/* Which tile kernel the GEMM runs for a plan without promotion, or
 * TILE_NONE: the column-by-column path. */
enum tile_kind { TILE_NONE, TILE_BLOCK, TILE_TWO_STAGE, TILE_GROUPS, TILE_TREE, TILE_LOWERED, TILE_BLOCK_WIDE };

/* Whether the FP32 path's products are exact in FP32 significand-wise
 * (both inputs' significands, times each other, in 24 bits: FP16's 22,
 * BF16's 16) and its groups fit the kernel: then a product in FP32's
 * normal range needs no rounding, nor CDNA2's flush, and only an add can
 * round or overflow. */
static bool tile_tree_fits(const struct plan *p)
{
	int32_t man = p->input->man_bits;
	return fpref_format_is(p->output, FPREF_FORMAT_FLOAT32) && p->target_shift == 0 && 2 * (man + 1) <= 24 &&
	       p->block <= TREE_MAX_BLOCK;
}

/* Whether some product of the input can leave FP32's normal range (BF16,
 * whose exponents are FP32's: below 2^-126 it would round or flush, from
 * 2^128 on overflow; FP16's are 2^-48 to below 2^32): then the tile kernel
 * looks at every product's leading bit (tree_range). */
static bool tree_range_needed(const struct plan *p)
{
	int32_t man = p->input->man_bits, lead_hi = p->least_in + p->span_in;
	return 2 * (p->least_in - man) < -126 || 2 * (lead_hi + 1) > 127;
}

static enum tile_kind tile_kind_of(const struct plan *p)
{
	if (p->tree > 0)
		return tile_tree_fits(p) ? TILE_TREE : TILE_NONE;
	if (p->group > 0)
		return tile_groups_fit(p) ? TILE_GROUPS : TILE_NONE;
	if (!tile_fits(p))
		return p->sum_frac == 0 && tile_fits_wide(p) ? TILE_BLOCK_WIDE : TILE_NONE;
	if (p->sum_frac == 0)
		return TILE_BLOCK;
	return p->parts <= TILE_PARTS ? TILE_TWO_STAGE : TILE_NONE;
}

/* The most groups of a block that the tile path takes scales for (the
 * preset has 4); a scaled GEMM with more goes column by column. */
#define TILE_SCALE_GROUPS 8

/* A block's scales for TILE lanes (row i, the tile's columns), per group
 * of the block (without the group path: one, the block's): each lane's
 * two scales multiplied as scale_product multiplies them, exponents added
 * and significands multiplied (man: the product's fraction bits, the same
 * for every lane); slow[j] 1 where a scale of lane j's block is NaN or
 * zero, so that the lane goes through block() with its scale pairs, made
 * from row (row i's chunks of scales) and col (the tile's first column's;
 * column j's chunks are j * chunks further, for j below width: the
 * lanes past N are padding), chunks of `every` products from product k,
 * as scaled_columns makes them.  The unscaled GEMM gives unit scales
 * (exponent 0, significand 1) and no slow lane. */
struct tile_scales {
	int32_t exp[TILE_SCALE_GROUPS][TILE];
	uint32_t sig[TILE_SCALE_GROUPS][TILE];
	int32_t lead[TILE]; /* the group path: the largest of the block's groups' exponents, not below the floor */
	uint64_t slow[TILE];
	int man;
	const struct scale_pair *row, *col;
	size_t chunks, every, unit, k, width;
};

/* Lane j of a tile's block through block() itself (an inf or NaN among its
 * products or in c, or a NaN or zero scale).  A padding lane (an inf or
 * NaN in A makes it slow too) has no scales: its result is never stored. */
static uint64_t tile_slow_lane(const struct plan *p, const struct operands *a, const struct operands *b, size_t stride,
			       size_t n, size_t j, uint64_t c, const struct tile_scales *ts)
{
	struct scale_pair pairs[FPREF_TC_MAX_BLOCK];
	bool scaled = ts->row && j < ts->width;
	for (size_t q = 0; scaled && q * ts->unit < n; q++) {
		size_t chunk = (ts->k + q * ts->unit) / ts->every;
		pairs[q] = scale_product(&ts->row[chunk], &ts->col[j * ts->chunks + chunk]);
	}
	uint32_t sig[FPREF_TC_MAX_BLOCK];
	int32_t exp[FPREF_TC_MAX_BLOCK];
	uint64_t neg[FPREF_TC_MAX_BLOCK];
	uint8_t kind[FPREF_TC_MAX_BLOCK];
	struct operands col = { sig, exp, neg, kind };
	for (size_t k = 0; k < n; k++) {
		sig[k] = b->sig[k * stride + j];
		exp[k] = b->exp[k * stride + j];
		neg[k] = b->negative[k * stride + j];
		kind[k] = b->kind[k * stride + j];
	}
	return block(p, a, &col, n, c, scaled ? pairs : NULL);
}

/* c_term for TILE accumulators: cm 0 where c is zero (no term); slow[j] 1
 * where c is an inf or NaN.  A normal or zero c without a branch, a
 * subnormal one, rare, through c_term itself.  Returns whether any lane is
 * slow. */
static inline uint64_t tile_c_terms(const struct plan *p, const uint64_t *c, uint64_t *restrict cm,
				    int32_t *restrict ce, uint64_t *restrict cn, uint64_t *restrict slow)
{
	const struct fpref_format *o = p->output;
	const uint64_t special_field = (1u << o->exp_bits) - 1, man_mask = (1ull << o->man_bits) - 1;
	const unsigned man = (unsigned)o->man_bits, sign_at = man + (unsigned)o->exp_bits, up = 23 - man;
	const int32_t bias = o->bias;
	uint64_t subnormal_c = 0, any_slow = 0; /* 0 or 1, as wide as c: the loop vectorises */
	for (size_t j = 0; j < TILE; j++) {
		uint64_t field = (c[j] >> man) & special_field, m = c[j] & man_mask;
		uint64_t normal = field - 1 < special_field - 1; /* field 1 .. special_field - 1 */
		uint64_t s = field == special_field;
		slow[j] = s;
		any_slow |= s;
		subnormal_c |= (uint64_t)(field == 0) & (m != 0);
		ce[j] = (int32_t)field - bias;
		cm[j] = normal ? (m | (man_mask + 1)) << up : 0;
		cn[j] = 0 - ((c[j] >> sign_at) & 1);
	}
	for (size_t j = 0; subnormal_c && j < TILE; j++)
		if (!slow[j])
			c_term(p, c[j], &cm[j], &ce[j], &cn[j]); /* a zero's cm stays 0 */
	return any_slow;
}

/* The tile's results: every lane rounded in one call, then a slow lane's
 * replaced by block()'s. */
static inline void tile_finish(const struct plan *p, const struct operands *a, const struct operands *b,
			       size_t stride, size_t n, const int64_t *sum, const int32_t *place,
			       const uint64_t *slow, uint64_t any_slow, const struct tile_scales *ts, uint64_t *c)
{
	uint64_t r[TILE];
	unsigned flags = 0;
	fpref_emu_round_pack_sums(&p->round, &p->env, TILE, sum, place, r, &flags);
	for (size_t j = 0; j < TILE; j++)
		r[j] <<= p->target_shift;
	for (size_t j = 0; any_slow && j < TILE; j++)
		if (slow[j])
			r[j] = tile_slow_lane(p, a, b, stride, n, j, c[j], ts);
	for (size_t j = 0; j < TILE; j++)
		c[j] = r[j];
}

/* One block of n products for TILE columns: c[j] in, the block's result out;
 * a and ta point at row i's operands from the block's first k, b and tb at
 * B's operand (k, first column of the tile), b's rows stride apart and
 * tb's TILE apart; ts the block's scales, E8M0: each lane's exponent
 * offset (block()'s shift) moves its products' exponents, so the lane's
 * alignment is its largest product exponent (from floor - offset, as
 * block() starts it) plus the offset, and its products are truncated
 * against that less the offset.  wide: the products summed in 64-bit
 * lanes (tile_sums64, TILE_BLOCK_WIDE).  Cloned whole, with its loops
 * (tile_exponents and tile_sums inlined), so that each clone vectorises
 * every lane loop. */
static CORE_INLINE void tile_block_lanes(const struct plan *p, const struct operands *a, const struct operands *b,
					 const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
					 size_t n, const struct tile_scales *ts, uint64_t *c, bool wide)
{
	int32_t E[TILE], base[TILE], unscaled_base[TILE], ce[TILE], place[TILE];
	int64_t sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	const int32_t *restrict off = ts->exp[0];
	for (size_t j = 0; j < TILE; j++)
		E[j] = p->floor - off[j];
	tile_exponents(ta->exp, tb->exp, TILE, n, 1, E);
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	for (size_t j = 0; j < TILE; j++) {
		uint64_t s = (uint64_t)(E[j] > SPECIAL_SEEN) | ts->slow[j];
		slow[j] |= s;
		any_slow |= s;
		E[j] += off[j];
		E[j] = cm[j] && ce[j] > E[j] ? ce[j] : E[j];
	}
	for (size_t j = 0; j < TILE; j++) {
		base[j] = E[j] + 23 + p->lift - p->frac;
		unscaled_base[j] = base[j] - off[j];
		uint32_t right = (uint32_t)(base[j] - ce[j]); /* at least 0 where there is a term (cm not 0) */
		uint64_t v = slow[j] ? 0 : (cm[j] << p->lift) >> (right < 63 ? right : 63);
		sum[j] = (int64_t)((v ^ cn[j]) - cn[j]);
	}
	if (wide)
		tile_sums64(ta->sig, ta->exp, tb->sig, tb->exp, TILE, n, 1, p->shift_in, unscaled_base, sum);
	else
		tile_sums(ta->sig, ta->exp, tb->sig, tb->exp, TILE, n, 1, p->shift_in, unscaled_base, sum);
	for (size_t j = 0; j < TILE; j++)
		place[j] = E[j] - p->frac;
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

BLOCK_CLONES static void tile_block(const struct plan *p, const struct operands *a, const struct operands *b,
				    const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
				    size_t n, const struct tile_scales *ts, uint64_t *c)
{
	tile_block_lanes(p, a, b, ta, tb, stride, n, ts, c, false);
}

BLOCK_CLONES static void tile_block_wide(const struct plan *p, const struct operands *a, const struct operands *b,
					 const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
					 size_t n, const struct tile_scales *ts, uint64_t *c)
{
	tile_block_lanes(p, a, b, ta, tb, stride, n, ts, c, true);
}

/* two_stage_block for TILE lanes: each part's largest product exponent and
 * truncated sum as tile_block's (a part of zero products only has an
 * exponent below ZERO_EXPONENT / 2: no product of finite operands is that
 * small), then the parts, the sum and C combined lane by lane as
 * two_stage_block combines them.  A lane's E8M0 scales move its parts'
 * exponents by the lane's offset once they are summed: a part is
 * truncated against its own largest exponent, which the offset does not
 * change. */
static inline __attribute__((always_inline)) void two_stage_lanes(const struct plan *p, const struct operands *a,
								 const struct operands *b,
								 const struct tile_operands *ta,
								 const struct tile_operands *tb, size_t stride,
								 size_t n, const struct tile_scales *ts, uint64_t *c,
								 size_t parts)
{
	int32_t E[TILE_PARTS][TILE], base[TILE], ce[TILE], place[TILE];
	int64_t part[TILE_PARTS][TILE], sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	for (size_t h = 0; h < parts; h++) {
		for (size_t j = 0; j < TILE; j++) {
			E[h][j] = INT32_MIN / 2;
			part[h][j] = 0;
		}
		if (h >= n)
			continue;
		tile_exponents(ta->exp + h, tb->exp + h * TILE, TILE, n - h, parts, E[h]);
		for (size_t j = 0; j < TILE; j++) {
			uint64_t s = (uint64_t)(E[h][j] > SPECIAL_SEEN) | ts->slow[j];
			slow[j] |= s;
			any_slow |= s;
			base[j] = E[h][j] + 23 + p->lift - p->frac;
		}
		tile_sums(ta->sig + h, ta->exp + h, tb->sig + h * TILE, tb->exp + h * TILE, TILE, n - h, parts,
			  p->shift_in, base, part[h]);
		for (size_t j = 0; j < TILE; j++)
			E[h][j] += ts->exp[0][j];
	}
	/* selections, not branches, where the data decide (a part's sign and
	 * which part leads are anybody's guess), lanes innermost so that the
	 * loops vectorise */
	int32_t E1[TILE];
	int64_t s[TILE];
	for (size_t j = 0; j < TILE; j++) {
		E1[j] = INT32_MIN / 2; /* below every part's: the largest of the parts with products */
		s[j] = 0;
	}
	for (size_t h = 0; h < parts; h++)
		for (size_t j = 0; j < TILE; j++)
			E1[j] = E[h][j] > E1[j] ? E[h][j] : E1[j];
	/* one part: E1 is its exponent (never below INT32_MIN / 2) and s its
	 * sum (0 for zero products) unshifted, as the loop below gives them */
	for (size_t j = 0; parts == 1 && j < TILE; j++)
		s[j] = part[0][j];
	for (size_t h = 0; parts > 1 && h < parts; h++)
		for (size_t j = 0; j < TILE; j++) {
			int32_t d = E[h][j] - E1[j];
			int64_t v = shift_floor(part[h][j], d < -63 ? -63 : d);
			s[j] += E[h][j] > ZERO_EXPONENT / 2 ? v : 0;
		}
	/* the plan's fields read before the loop, and & for && where both
	 * sides are plain values: no load under a condition, which the
	 * vectoriser does not take */
	const int32_t frac = p->frac, sum_frac = p->sum_frac, c_frac = p->c_frac, c_drop = p->c_drop;
	const bool drops = c_drop > 0;
	for (size_t j = 0; j < TILE; j++) {
		bool products = E1[j] > ZERO_EXPONENT / 2, have_c = cm[j] != 0;
		int32_t E2 = !products ? ce[j] : !have_c || E1[j] > ce[j] ? E1[j] : ce[j];
		int32_t k = (E1[j] - frac) - (E2 - sum_frac);
		int64_t total = products ? shift_floor(s[j], k < -63 ? -63 : k) : 0;
		bool keep_c = have_c & !(drops & (ce[j] < E2 - c_drop));
		int64_t cv = (int64_t)((cm[j] ^ cn[j]) - cn[j]);
		int64_t c_part = (int64_t)((uint64_t)shift_floor(cv, keep_c ? (ce[j] - 23) - (E2 - c_frac) : 0)
					   << (sum_frac - c_frac));
		total += keep_c ? c_part : 0;
		bool none = (slow[j] != 0) | (!products & !have_c);
		sum[j] = none ? 0 : total;
		place[j] = none ? 0 : E2 - sum_frac;
	}
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

/* two_stage_lanes, the one-part rows (f16, bf16, xf32) with parts a
 * constant: no loop over parts, no shift of the one. */
BLOCK_CLONES static void tile_block_two_stage(const struct plan *p, const struct operands *a,
					      const struct operands *b, const struct tile_operands *ta,
					      const struct tile_operands *tb, size_t stride, size_t n,
					      const struct tile_scales *ts, uint64_t *c)
{
	if (p->parts == 1)
		two_stage_lanes(p, a, b, ta, tb, stride, n, ts, c, 1);
	else
		two_stage_lanes(p, a, b, ta, tb, stride, n, ts, c, (size_t)p->parts);
}

/* block() on the group path for TILE lanes: each group's exact sum an
 * integer dot product of the shifted significands (tile_operand_set),
 * times the lane's scale significands for the group and aligned at their
 * exponent (group_terms), then the groups and C truncated and summed as
 * finish_block sums them.  bspecial[j]: column j's block holds an inf or
 * NaN (the products' exponents are not looked at here).  scaled false:
 * unit scales, as constants (tile_block_groups), so that the unscaled
 * GEMM's loops do not load and multiply them. */
static inline __attribute__((always_inline)) void groups_block(const struct plan *p, const struct operands *a,
							       const struct operands *b, const struct tile_operands *ta,
							       const struct tile_operands *tb, size_t stride, size_t n,
							       const uint8_t *bspecial, const struct tile_scales *ts,
							       bool scaled, uint64_t *c)
{
	int32_t E[TILE], base[TILE], ce[TILE], place[TILE];
	int64_t sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	uint8_t aspecial = 0;
	for (size_t k = 0; k < n; k++)
		aspecial |= a->kind[k] & (INF | NOT_A_NUMBER);
	/* every group counts for the alignment at its scales' exponent (a
	 * zero scale's lane is slow) */
	size_t g = (size_t)p->group;
	const int up = p->group_shift - (scaled ? ts->man : unit_scales.man);
	const int32_t unit_lead = p->floor > unit_scales.exp ? p->floor : unit_scales.exp;
	for (size_t j = 0; j < TILE; j++) {
		uint64_t s = (uint64_t)((aspecial | bspecial[j]) != 0) | (scaled ? ts->slow[j] : 0);
		int32_t lead = scaled ? ts->lead[j] : unit_lead;
		slow[j] |= s;
		any_slow |= s;
		E[j] = cm[j] && ce[j] > lead ? ce[j] : lead;
		base[j] = E[j] + 23 + p->lift - p->frac;
		uint32_t right = (uint32_t)(base[j] - ce[j]);
		uint64_t v = slow[j] ? 0 : (cm[j] << p->lift) >> (right < 63 ? right : 63);
		sum[j] = (int64_t)((v ^ cn[j]) - cn[j]);
		place[j] = E[j] - p->frac;
	}
	for (size_t k0 = 0, q = 0; k0 < n; k0 += g, q++) {
		int32_t gs[TILE] = { 0 };
		const int32_t *restrict group_exp = ts->exp[q];
		const uint32_t *restrict group_sig = ts->sig[q];
		for (size_t k = k0; k < n && k < k0 + g; k++) {
			const int16_t *restrict s = tb->sig + k * TILE;
			int32_t x = ta->sig[k];
			for (size_t j = 0; j < TILE; j++)
				gs[j] += x * s[j];
		}
		for (size_t j = 0; j < TILE; j++) {
			uint64_t m = gs[j] < 0 ? ~(uint64_t)0 : 0;
			uint64_t u = ((uint64_t)(int64_t)gs[j] ^ m) - m;
			uint32_t right = (uint32_t)(base[j] - (scaled ? group_exp[j] : unit_scales.exp));
			/* u below 2^31 (tile_groups_fit): a 32 x 32 -> 64-bit product */
			uint64_t v = (((u & 0xFFFFFFFF) * (scaled ? group_sig[j] : unit_scales.sig)) << up) >>
				     (right < 63 ? right : 63);
			sum[j] += (int64_t)((v ^ m) - m);
		}
	}
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

BLOCK_CLONES static void tile_block_groups(const struct plan *p, const struct operands *a, const struct operands *b,
					   const struct tile_operands *ta, const struct tile_operands *tb,
					   size_t stride, size_t n, const uint8_t *bspecial, const struct tile_scales *ts,
					   uint64_t *c)
{
	groups_block(p, a, b, ta, tb, stride, n, bspecial, ts, false, c);
}

BLOCK_CLONES static void tile_block_groups_scaled(const struct plan *p, const struct operands *a,
						  const struct operands *b, const struct tile_operands *ta,
						  const struct tile_operands *tb, size_t stride, size_t n,
						  const uint8_t *bspecial, const struct tile_scales *ts, uint64_t *c)
{
	groups_block(p, a, b, ta, tb, stride, n, bspecial, ts, true, c);
}

/* Exact values for the lanes of the FP32 path and of the lowered one
 * (its instructions' results added to C in the output format, FP32 or
 * FP16), in 32-bit words (8 lanes to an AVX2 instruction, 16 to an
 * AVX-512 one): sig * 2^place, sig signed (two's complement, so that an
 * addition applies no signs) with |sig| below 2^(man + 1), man the
 * output's fraction bits.  Its leading bit is at place + man wherever the
 * value is a normal one of the output or a product (tile_tree_products
 * shifts each there), so that no addition counts an operand's leading
 * zeros; below it for a subnormal value or a zero (tree_add says why that
 * is enough).  A zero's place is never above a nonzero value's: the
 * format's least (FP32's -149) for a zero of the format or of a sum, and
 * for a zero product below every FP32 place (an operand's ZERO_EXPONENT,
 * CDNA2's flushed inputs too: tile_operand_set).  negzero is 1 where the
 * value is -0, which sig cannot say. */
struct tree_lanes {
	int32_t sig[TREE_LANES];
	int32_t place[TREE_LANES];
	uint32_t negzero[TREE_LANES];
};

/* The rounding of the additions: the core's (round_word.h), in 32-bit
 * words, lane by lane in tree_add's loop. */
#define ROUND_WORD_ROUNDING_ONLY
#define WORD uint32_t
#define SWORD int32_t
#define WINT int32_t
#define WORD_BITS 32
#define WORD_CLZ __builtin_clz
#define W(name) name##32
#include "round_word.h"
#undef WORD
#undef SWORD
#undef WINT
#undef WORD_BITS
#undef WORD_CLZ
#undef W
#undef ROUND_WORD_ROUNDING_ONLY

/* sig * 2^(P + s) in units of 2^P, s at most 26 (tree_add): shifted left,
 * or right with the bits shifted out ORed into the last (tree_add says why
 * that changes no rounding to nearest).  The right shift is arithmetic, a
 * floor, so the jammed value is odd and within one unit of the exact one:
 * strictly between the same two even units.  Both shifts taken, one of
 * them by 0: no branch on the data.  A right shift of 31 leaves 0 or -1
 * and the rest as the sticky bit, as any longer one would. */
static inline int32_t align_jam(int32_t sig, int32_t s)
{
	int32_t down = -s; /* maxima and minima, no selections */
	down = down > 0 ? down : 0;
	uint32_t l = (uint32_t)(s > 0 ? s : 0), r = (uint32_t)(down < 31 ? down : 31);
	int32_t kept = sig >> r;
	return (int32_t)((uint32_t)kept << l | (uint32_t)((int32_t)((uint32_t)kept << r) != sig));
}

/* The fields of the format whose patterns the lanes decode and round to
 * (the plan's output: FP32, or FP16 on the lowered path), as plain words
 * that the lane loops keep in registers. */
struct lane_format {
	uint32_t man, special, sign_at; /* fraction bits, the inf/NaN field, the sign's place */
	int32_t place0;                 /* a field's place less the field: -bias - man */
};

static struct lane_format lane_format_of(const struct fpref_format *f)
{
	return (struct lane_format){ (uint32_t)f->man_bits, (1u << f->exp_bits) - 1,
				     (uint32_t)(f->man_bits + f->exp_bits), -f->bias - f->man_bits };
}

/* One lane's value (tree_lanes), where a loop computes it whole. */
struct lane_value {
	int32_t sig, place;
	uint32_t negzero;
};

/* A pattern of lf's format as a lane (an inf or NaN sets slow: not an
 * exact value). */
static inline struct lane_value lane_decode(uint32_t bits, const struct lane_format *lf, uint32_t *slow)
{
	uint32_t field = (bits >> lf->man) & lf->special, m = bits & ((1u << lf->man) - 1);
	uint32_t mag = field ? m | 1u << lf->man : m, neg = bits >> lf->sign_at;
	*slow |= field == lf->special;
	return (struct lane_value){ (int32_t)(neg ? 0 - mag : mag), (field ? (int32_t)field : 1) + lf->place0,
				    neg & (uint32_t)(mag == 0) };
}

/* A lane as a pattern of lf's format (a finite value of it). */
static inline uint32_t lane_pack(struct lane_value v, const struct lane_format *lf)
{
	uint32_t mag = (uint32_t)(v.sig < 0 ? -v.sig : v.sig), neg = (uint32_t)v.sig >> 31 | v.negzero;
	uint32_t field = mag >> lf->man ? (uint32_t)(v.place - lf->place0) : 0;
	return neg << lf->sign_at | field << lf->man | (mag & ((1u << lf->man) - 1));
}

/* What lane_add reads of its format, worked out once: the output's
 * fields (f for the core's rounding, whose fields fold where f is the
 * FP32 constant fpref_emu_binary32_fields) and CDNA2's flush. */
struct lane_adder {
	const struct fpref_format *f;
	int32_t man, up, least, top; /* up: 26 - man (lane_add); least: Q; top: max finite's leading place */
	uint32_t flush, normal;      /* flush: a subnormal result to a zero of its sign; normal: 2^man */
};

static inline struct lane_adder lane_adder_of(const struct fpref_format *f, bool flush)
{
	const struct lane_format lf = lane_format_of(f);
	return (struct lane_adder){ f,
				    (int32_t)lf.man,
				    26 - (int32_t)lf.man,
				    lf.place0 + 1,
				    (int32_t)lf.special - 1 + lf.place0 + (int32_t)lf.man,
				    flush,
				    1u << lf.man };
}

/* The place of x's leading bit (x not 0): by the branch-free search
 * where search (AVX2: FPREF_EMU_LANE_VARIANTS), else by a count, which
 * vectorises under AVX-512. */
static CORE_INLINE int32_t lane_lead(uint32_t x, bool search)
{
	return search ? fpref_emu_lead_bit32(x) : 31 - __builtin_clz(x);
}

/* x + y in the adder's format (FP32, or FP16 on the lowered path; its
 * target never narrowed: tile_tree_fits, lowered_tiles_fit) by rne,
 * through the core's rounding (round_to32), the result left unpacked
 * (tree_lanes: no pattern to decode for the next addition); slow set
 * where it overflows.  Both are aligned at P, 26 places below the larger
 * of their leads (so below 2^27: their sum fits 32 bits), the one with
 * bits below P jammed (align_jam), summed exactly and rounded once;
 * -0 + -0 is -0, CDNA2's flushed result a zero of its sign.  The jam
 * changes no rounding: where y is jammed, x (the larger leading bit L,
 * so not a zero) has its last place at least P + 3 (|sig| below 2^24)
 * and y's leading bit is below L - 3, so the sum's leading bit is at
 * least L - 1, its last place at the format's precision (24 bits at
 * most) or subnormal step at least P + 2; x is a multiple of 2^(P + 1),
 * and x + y and x + jam(y) lie strictly between the same two multiples
 * of 2^(P + 1), which every rounding boundary is.  A zero product's lead
 * is near its place (the least: tree_lanes).  A subnormal or zero of the
 * format, whose least place is Q (FP32's -149), has its lead taken as
 * Q + man (FP32's -126), above its leading bit.  Where that is the
 * larger lead, P is at most Q - 3, every result a multiple of 2^Q and
 * every boundary one of 2^(Q - 1), and x (a multiple of 2^Q) and
 * x + jam(y) lie between the same two again.  Where it is the smaller,
 * the argument above holds with L the other's exact lead: the subnormal
 * is jammed only if P is above Q, so L above Q + 26, and its leading
 * bit, below Q + man, is below L - 3. */
static CORE_INLINE struct lane_value lane_add(const struct lane_adder *a, struct lane_value x, struct lane_value y,
					      uint32_t *slow, bool search)
{
	/* places, not leads, compared: a lead is its place + man (tree_lanes) */
	bool x_big = x.place >= y.place;
	int32_t big = x_big ? x.sig : y.sig, small = x_big ? y.sig : x.sig;
	int32_t gap = x_big ? x.place - y.place : y.place - x.place, P = (x_big ? x.place : y.place) - a->up;
	int32_t sum = (int32_t)((uint32_t)big << a->up) + align_jam(small, a->up - gap);
	uint32_t neg = (uint32_t)sum >> 31, mag = (uint32_t)(sum < 0 ? -sum : sum), inexact;
	int32_t lead = P + lane_lead(mag | 1, search);
	int32_t q = lead - a->man > a->least ? lead - a->man : a->least;
	uint32_t k = round_to32(a->f, FPREF_RNE, mag, 0, q - P, q, neg, &inexact);
	uint32_t carry = k >> (a->man + 1); /* 2^(man + 1): one place up, exactly */
	k >>= carry;
	q += (int32_t)carry;
	k = a->flush && k < a->normal ? 0 : k;
	*slow |= q + a->man > a->top;
	return (struct lane_value){ (int32_t)(neg ? 0 - k : k), k ? q : a->least,
				    (uint32_t)(k == 0) & ((x.negzero & y.negzero) | (a->flush & neg)) };
}

static inline struct lane_value lane_at(const struct tree_lanes *t, size_t i)
{
	return (struct lane_value){ t->sig[i], t->place[i], t->negzero[i] };
}

static inline void lane_set(struct tree_lanes *t, size_t i, struct lane_value v)
{
	t->sig[i] = v.sig;
	t->place[i] = v.place;
	t->negzero[i] = v.negzero;
}

/* lane_add for every lane, in the plan's output format. */
BLOCK_CLONES static void tree_add(const struct plan *p, const struct tree_lanes *x, const struct tree_lanes *y,
				  struct tree_lanes *restrict out, uint32_t *restrict slow)
{
	const struct lane_adder a = lane_adder_of(p->output, p->flush);
	for (size_t i = 0; i < TREE_LANES; i++)
		lane_set(out, i, lane_add(&a, lane_at(x, i), lane_at(y, i), &slow[i], true));
}

/* The pairwise sum of products lo .. lo + n - 1 (tree_sum's halves):
 * the product itself where n is 1, else out. */
static const struct tree_lanes *tree_lanes_sum(const struct plan *p, const struct tree_lanes *prod, size_t lo,
					       size_t n, struct tree_lanes *out, uint32_t *slow)
{
	if (n == 1)
		return &prod[lo];
	struct tree_lanes x, y;
	const struct tree_lanes *u = tree_lanes_sum(p, prod, lo, n / 2, &x, slow);
	const struct tree_lanes *v = tree_lanes_sum(p, prod, lo + n / 2, n - n / 2, &y, slow);
	tree_add(p, u, v, out, slow);
	return out;
}

/* What every thread of a GEMM reads (nothing it writes but its own
 * columns of D). */
struct gemm_job {
	const struct fpref_tc_model *m;
	const struct plan *p;
	const struct fpref_format *input, *output;
	size_t M, N, K, nc, stride;
	const uint64_t *A, *B, *C;
	struct operands a, b; /* decoded: A row-major; B row-major (tile path) or transposed (the other paths) */
	/* the tile path's copies, each in the order the loops read it: A block
	 * by block, each block's rows one after the other (its n operands
	 * each); B tile by tile, each tile's K rows of TILE (rows a power of
	 * two apart, as in B itself, would all fall in a few sets of the
	 * cache) */
	struct tile_operands ta, tb;
	enum tile_kind tiles;
	bool element_wise;
	bool tree_range; /* the tree tile kernel checks every product's range (tree_range_needed) */
	uint64_t *D;
	/* block scales (NULL: none), decoded: sa row i's chunks of every
	 * products, sb column j's (transposed), chunks of each */
	const struct scale_pair *sa, *sb;
	size_t every, chunks;
};

static int scaled_columns(const struct gemm_job *g, size_t j0, size_t j1);
static int lowered_gemm(const struct gemm_job *g, unsigned threads);
static int gemm_decoded(const struct gemm_job *g, unsigned threads);

/* The product x y of two tile operands' significands (x at place
 * ex - 2 man_in, y's exponent ey) as a lane, exact: below 2^24
 * (tile_tree_fits), its leading bit shifted to man.  la and lb are the
 * operands' leading bits: a product of significands with leading bits at
 * la and lb lies in [2^(la + lb), 2^(la + lb + 2)), so its lead is
 * la + lb or one more, and each operand's lead is counted once, not each
 * product's.  A zero product is +0, as tree_sum's x * y + 0. */
static CORE_INLINE struct lane_value lane_product(int32_t x, int32_t ex, int32_t la, int32_t y, int32_t ey, int32_t lb,
						  int32_t man)
{
	int32_t v = x * y, lead = la + lb;
	lead += (int32_t)((uint32_t)(v < 0 ? -v : v) >> (lead + 1));
	int32_t up = man - lead;
	return (struct lane_value){ (int32_t)((uint32_t)v << up), ex + ey - up, 0 };
}

/* Whether a nonzero product's leading bit (at its place + 23) is outside
 * FP32's normal range, 2^-126 to 2^127 (tree_range_needed): FP32 would
 * round, flush or overflow it, and tree_step does. */
static inline uint32_t lane_out_of_range(struct lane_value v)
{
	return (uint32_t)(v.sig != 0) & (uint32_t)((uint32_t)(v.place + 23 + 126) > 253u);
}

/* The operands, places and leads of a block's n columns of A for at most
 * TREE_ROWS rows (the rest zeros), once per row and column. */
static CORE_INLINE void tree_rows(const struct plan *p, const struct tile_operands *ta, size_t rows, size_t n,
				   int32_t *restrict x, int32_t *restrict e, int32_t *restrict la, bool search)
{
	const int32_t two_man = 2 * p->input->man_bits;
	/* the rows one after the other in ta, n operands each (the plan's
	 * block, a short last block's too, padded): x[h n + q] */
	for (size_t at = 0; at < TREE_ROWS * n; at++) {
		bool in = at < rows * n;
		x[at] = in ? ta->sig[at] : 0;
		e[at] = in ? ta->exp[at] - two_man : ZERO_EXPONENT;
		la[at] = lane_lead((uint32_t)(x[at] < 0 ? -x[at] : x[at]) | 1, search);
	}
}

/* The leads of a group's TILE operands of B. */
static CORE_INLINE void tree_column_leads(const int16_t *restrict sb, int32_t *restrict lb, bool search)
{
	for (size_t j = 0; j < TILE; j++)
		lb[j] = lane_lead((uint32_t)(sb[j] < 0 ? -sb[j] : sb[j]) | 1, search);
}

/* The products of a group for the lanes of `rows` rows (ta at the first
 * row's group, its rows `block` operands apart; tb at the group's first
 * row of the tile), slow set where one is out of FP32's range if range. */
BLOCK_CLONES static void tile_tree_products(const struct plan *p, const struct tile_operands *ta,
					    const struct tile_operands *tb, size_t rows, size_t n, bool range,
					    struct tree_lanes *restrict prod, uint32_t *restrict slow)
{
	int32_t x[TREE_ROWS * TREE_MAX_BLOCK], e[TREE_ROWS * TREE_MAX_BLOCK], la[TREE_ROWS * TREE_MAX_BLOCK];
	const size_t nb = (size_t)p->block; /* ta's operands per row (n is fewer in a short last block) */
	tree_rows(p, ta, rows, nb, x, e, la, true);
	for (size_t q = 0; q < n; q++) {
		const int16_t *restrict sb = tb->sig + q * TILE, *restrict eb = tb->exp + q * TILE;
		int32_t lb[TILE];
		tree_column_leads(sb, lb, true);
		for (size_t h = 0; h < TREE_ROWS; h++)
			for (size_t j = 0; j < TILE; j++) {
				size_t at = h * nb + q;
				struct lane_value v = lane_product(x[at], e[at], la[at], sb[j], eb[j], lb[j], 23);
				slow[h * TILE + j] |= range ? lane_out_of_range(v) : 0;
				lane_set(&prod[q], h * TILE + j, v);
			}
	}
}

/* `groups` full groups of n products (2 or 4: the presets' blocks) for
 * every lane, one after the other: each lane's products, pairwise sums and
 * addition to its accumulator in one pass, FP32 by rne, the accumulator
 * decoded from cin (its patterns) before the first and packed into bits
 * after the last, unpacked in between (lane_pack and lane_decode give
 * back the same lane for every finite FP32 value, -0 and subnormals
 * included); ta at the first group's rows, each next group's a_stride
 * operands on, tb at the first group's first row of the tile, each
 * next's n rows of TILE on.  flush and range as the plan's (constants
 * here, so that each of the kernels tree_group_fused picks has no test of
 * them).  slow as in tile_block_tree: set in any group, it stays. */
static CORE_INLINE void tree_group_lanes(const struct plan *p, const struct tile_operands *ta,
					 const struct tile_operands *tb, size_t rows, size_t n, size_t groups,
					 size_t a_stride, bool flush, bool range, const uint32_t *restrict cin,
					 uint32_t *restrict bits, uint32_t *restrict slow, bool search)
{
	const struct lane_adder a = lane_adder_of(&fpref_emu_binary32_fields, flush);
	const struct lane_format f32 = lane_format_of(&fpref_emu_binary32_fields);
	struct tree_lanes acc;
	for (size_t l = 0; l < TREE_LANES; l++)
		lane_set(&acc, l, lane_decode(cin[l], &f32, &slow[l]));
	for (size_t gi = 0; gi < groups; gi++) {
		const struct tile_operands tg = tile_operands_at(ta, gi * a_stride);
		const int16_t *restrict bs = tb->sig + gi * n * TILE, *restrict be = tb->exp + gi * n * TILE;
		/* ta's rows are the plan's block apart, n fewer in a short last block */
		const size_t nb = (size_t)p->block;
		int32_t lb[4][TILE], x[TREE_MAX_BLOCK * TREE_ROWS], e[TREE_MAX_BLOCK * TREE_ROWS],
			la[TREE_MAX_BLOCK * TREE_ROWS];
		for (size_t q = 0; q < n; q++)
			tree_column_leads(bs + q * TILE, lb[q], search);
		tree_rows(p, &tg, rows, nb, x, e, la, search);
		for (size_t h = 0; h < TREE_ROWS; h++)
			for (size_t j = 0; j < TILE; j++) {
				size_t l = h * TILE + j;
				uint32_t s = slow[l];
#define TREE_PRODUCT(q) \
	lane_product(x[h * nb + (q)], e[h * nb + (q)], la[h * nb + (q)], bs[(q) * TILE + j], be[(q) * TILE + j], lb[q][j], 23)
				struct lane_value v0 = TREE_PRODUCT(0), v1 = TREE_PRODUCT(1);
				s |= range ? lane_out_of_range(v0) | lane_out_of_range(v1) : 0;
				struct lane_value sum = lane_add(&a, v0, v1, &s, search);
				if (n == 4) { /* tree_sum's halves */
					struct lane_value v2 = TREE_PRODUCT(2), v3 = TREE_PRODUCT(3);
					s |= range ? lane_out_of_range(v2) | lane_out_of_range(v3) : 0;
					sum = lane_add(&a, sum, lane_add(&a, v2, v3, &s, search), &s, search);
				}
#undef TREE_PRODUCT
				lane_set(&acc, l, lane_add(&a, lane_at(&acc, l), sum, &s, search));
				slow[l] = s;
			}
	}
	for (size_t l = 0; l < TREE_LANES; l++)
		bits[l] = lane_pack(lane_at(&acc, l), &f32);
}

/* tree_group_lanes with the plan's n, flush and range as constants, once
 * per instruction set (FPREF_EMU_LANE_VARIANTS: the leading bits of
 * every addition counted as each does best). */
static CORE_INLINE void tree_group_fused_body(const struct plan *p, const struct tile_operands *ta,
					      const struct tile_operands *tb, size_t rows, size_t n, size_t groups,
					      size_t a_stride, bool range, const uint32_t *restrict cin,
					      uint32_t *restrict bits, uint32_t *restrict slow, bool search)
{
#define TREE_GROUP(N, FLUSH, RANGE) \
	tree_group_lanes(p, ta, tb, rows, N, groups, a_stride, FLUSH, RANGE, cin, bits, slow, search)
	if (n == 2)
		p->flush ? (range ? TREE_GROUP(2, true, true) : TREE_GROUP(2, true, false))
			 : (range ? TREE_GROUP(2, false, true) : TREE_GROUP(2, false, false));
	else
		p->flush ? (range ? TREE_GROUP(4, true, true) : TREE_GROUP(4, true, false))
			 : (range ? TREE_GROUP(4, false, true) : TREE_GROUP(4, false, false));
#undef TREE_GROUP
}

FPREF_EMU_LANE_VARIANTS(static void tree_group_fused, tree_group_fused,
			(const struct plan *p, const struct tile_operands *ta, const struct tile_operands *tb,
			 size_t rows, size_t n, size_t groups, size_t a_stride, bool range,
			 const uint32_t *restrict cin, uint32_t *restrict bits, uint32_t *restrict slow),
			p, ta, tb, rows, n, groups, a_stride, range, cin, bits, slow)

/* tree_step for TILE columns of `rows` rows (at most TREE_ROWS; the
 * GEMM's FP32 path, tile_tree_fits), `groups` blocks of n from k (more
 * than one only for full groups of 2 or 4): groups of 2 or 4 through
 * tree_group_fused, any other through tile_tree_products, the sums
 * through tree_add; a lane where a block holds an inf or NaN, whose
 * accumulator is one, or where a sum overflows (a group's or C's) goes
 * through tree_step itself on the patterns, block by block (rows i ..,
 * columns t .. t + TILE - 1 from k; those past N are padding, never
 * computed).  bspecial[q][j]: column j's block q holds an inf or NaN.
 * c: the rows' accumulators, TILE each. */
BLOCK_CLONES static int tile_block_tree(const struct gemm_job *g, size_t i, size_t rows, size_t t, size_t k,
					const struct tile_operands *ta, const struct tile_operands *tb, size_t n,
					size_t groups, const uint8_t (*bspecial)[TILE], uint64_t *c)
{
	const struct plan *p = g->p;
	uint32_t slow[TREE_LANES] = { 0 }, bits[TREE_LANES], cin[TREE_LANES] = { 0 };
	uint8_t aspecial[TREE_ROWS] = { 0 }, bsp[TILE] = { 0 };
	for (size_t h = 0; h < rows; h++)
		for (size_t q = 0; q < groups * n; q++)
			aspecial[h] |= g->a.kind[(i + h) * g->K + k + q] & (INF | NOT_A_NUMBER);
	for (size_t q = 0; q < groups; q++)
		for (size_t j = 0; j < TILE; j++)
			bsp[j] |= bspecial[q][j];
	for (size_t l = 0; l < rows * TILE; l++)
		cin[l] = (uint32_t)c[l];
	for (size_t h = 0; h < TREE_ROWS; h++)
		for (size_t j = 0; j < TILE; j++)
			slow[h * TILE + j] = (aspecial[h] | bsp[j]) != 0;
	if (n == 2 || n == 4) {
		tree_group_fused(p, ta, tb, rows, n, groups, n * g->M, g->tree_range, cin, bits, slow);
	} else {
		struct tree_lanes prod[TREE_MAX_BLOCK], acc, s, d;
		const struct lane_format f32 = lane_format_of(p->output); /* FP32: tile_tree_fits */
		tile_tree_products(p, ta, tb, rows, n, g->tree_range, prod, slow);
		for (size_t l = 0; l < TREE_LANES; l++)
			lane_set(&acc, l, lane_decode(cin[l], &f32, &slow[l]));
		tree_add(p, &acc, tree_lanes_sum(p, prod, 0, n, &s, slow), &d, slow);
		for (size_t l = 0; l < TREE_LANES; l++)
			bits[l] = lane_pack(lane_at(&d, l), &f32);
	}
	uint32_t any_slow = 0;
	for (size_t l = 0; l < TREE_LANES; l++)
		any_slow |= slow[l];
	for (size_t l = 0; any_slow && l < rows * TILE; l++) {
		size_t h = l / TILE, j = l % TILE;
		uint64_t acc = c[l];
		for (size_t q = 0; slow[l] && t + j < g->N && q < groups; q++) {
			size_t kq = k + q * n;
			if (tree_step(g->m, g->input, g->A + (i + h) * g->K + kq, g->B + kq * g->N + t + j, g->N, n, &acc) != 0)
				return -1;
			bits[l] = (uint32_t)acc; /* an FP32 pattern */
		}
	}
	for (size_t l = 0; l < rows * TILE; l++)
		c[l] = bits[l];
	return 0;
}

/* One lowered instruction (lowered_dot) for the lanes of `rows` rows (at
 * most TREE_ROWS) of TILE columns, FP32 or FP16 output (TILE_LOWERED): the job's
 * operands are FP16 already, each instruction's K permuted so that its
 * lane groups are contiguous blocks (lowered_gemm), so each group is one
 * tile_block of the FP16 unit's plan, chained from zero; then the
 * instruction's result added to c lane-wise by tree_add (in the output,
 * rne, as lowered_dot's addition); a lane where either is an inf or NaN,
 * or where the sum overflows, adds through fpref_emu_op itself.  k: the instruction's first (permuted)
 * product. */
static void tile_lowered_step(const struct gemm_job *g, size_t i, size_t rows, size_t t, size_t k,
			      const struct tile_scales *ts, uint64_t *c)
{
	const struct plan *p = g->p;
	size_t n = (size_t)p->block, groups = (size_t)g->m->lowered_k / n, M = g->M, K = g->K;
	struct tree_lanes acc, part, d;
	uint32_t slow[TREE_LANES] = { 0 }, bits[TREE_LANES];
	uint64_t partial[TREE_LANES] = { 0 };
	const struct lane_format lf = lane_format_of(p->output);
	for (size_t h = 0; h < rows; h++)
		for (size_t q = 0; q < groups; q++) {
			size_t kq = k + q * n;
			struct operands x = operands_at(&g->a, (i + h) * K + kq), y = operands_at(&g->b, kq * g->stride + t);
			struct tile_operands tx = tile_operands_at(&g->ta, kq * M + (i + h) * n);
			struct tile_operands ty = tile_operands_at(&g->tb, t * K + kq * TILE);
			tile_block(p, &x, &y, &tx, &ty, g->stride, n, ts, partial + h * TILE);
		}
	for (size_t l = 0; l < TREE_LANES; l++) {
		lane_set(&part, l, lane_decode((uint32_t)partial[l], &lf, &slow[l]));
		lane_set(&acc, l, lane_decode(l < rows * TILE ? (uint32_t)c[l] : 0, &lf, &slow[l]));
	}
	tree_add(p, &acc, &part, &d, slow);
	for (size_t l = 0; l < TREE_LANES; l++)
		bits[l] = lane_pack(lane_at(&d, l), &lf);
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t l = 0; l < rows * TILE; l++) {
		if (slow[l]) {
			uint64_t args[3] = { partial[l], c[l], 0 }, r = 0;
			unsigned flags = 0;
			fpref_emu_op(FPREF_OP_ADD, p->output, args, &env, 0, &r, &flags);
			bits[l] = (uint32_t)r;
		}
		c[l] = bits[l];
	}
}

/* Unit scales for every lane (the unscaled GEMM's tile path). */
static void tile_scales_unit(const struct plan *p, struct tile_scales *ts)
{
	for (size_t q = 0; q < TILE_SCALE_GROUPS; q++)
		for (size_t j = 0; j < TILE; j++) {
			ts->exp[q][j] = unit_scales.exp;
			ts->sig[q][j] = (uint32_t)unit_scales.sig;
		}
	for (size_t j = 0; j < TILE; j++) {
		ts->lead[j] = p->floor > unit_scales.exp ? p->floor : unit_scales.exp;
		ts->slow[j] = 0;
	}
	ts->man = unit_scales.man;
	ts->row = ts->col = NULL;
	ts->chunks = ts->every = ts->unit = 1;
	ts->k = 0;
	ts->width = TILE;
}

/* The scale chunk of group q of the block from product k. */
static size_t tile_chunk(const struct gemm_job *g, size_t k, size_t q)
{
	return (k + q * (size_t)(g->p->group > 0 ? g->p->group : g->p->block)) / g->every;
}

/* The scales of B's columns t .. t + width - 1 for the block of len
 * products from k, as the lanes of cols (padding lanes: unit scales); ts's
 * fields that say where the slow lanes' pairs come from. */
static void tile_scales_columns(const struct gemm_job *g, size_t t, size_t width, size_t k, size_t len,
				struct tile_scales *cols, struct tile_scales *ts)
{
	size_t unit = (size_t)(g->p->group > 0 ? g->p->group : g->p->block), groups = (len + unit - 1) / unit;
	tile_scales_unit(g->p, cols);
	for (size_t q = 0; q < groups; q++) {
		size_t chunk = tile_chunk(g, k, q);
		for (size_t j = 0; j < width; j++) {
			const struct scale_pair *s = &g->sb[(t + j) * g->chunks + chunk];
			cols->exp[q][j] = s->exp;
			cols->sig[q][j] = (uint32_t)s->sig;
			cols->slow[j] |= s->kind != FINITE;
		}
	}
	ts->col = g->sb + t * g->chunks;
	ts->chunks = g->chunks;
	ts->every = g->every;
	ts->unit = unit;
	ts->k = k;
	ts->width = width;
}

/* Row i's scales for the block from k times the columns' (cols), as
 * scale_product multiplies them, into ts (the significands and lead only
 * on the group path: E8M0 scales elsewhere, whose kernels take the
 * exponents alone). */
static void tile_scales_row(const struct gemm_job *g, size_t i, size_t len, const struct tile_scales *cols,
			    struct tile_scales *ts)
{
	size_t groups = (len + ts->unit - 1) / ts->unit;
	bool grouped = g->p->group > 0;
	uint64_t row_slow = 0;
	ts->row = g->sa + i * g->chunks;
	for (size_t q = 0; q < groups; q++) {
		const struct scale_pair *r = &ts->row[tile_chunk(g, ts->k, q)];
		row_slow |= r->kind != FINITE;
		ts->man = 2 * r->man; /* both scales of one format */
		for (size_t j = 0; j < TILE; j++)
			ts->exp[q][j] = r->exp + cols->exp[q][j];
		for (size_t j = 0; grouped && j < TILE; j++)
			ts->sig[q][j] = (uint32_t)r->sig * cols->sig[q][j];
	}
	for (size_t j = 0; j < TILE; j++) {
		ts->lead[j] = g->p->floor;
		ts->slow[j] = row_slow | cols->slow[j];
	}
	for (size_t q = 0; grouped && q < groups; q++)
		for (size_t j = 0; j < TILE; j++)
			ts->lead[j] = ts->exp[q][j] > ts->lead[j] ? ts->exp[q][j] : ts->lead[j];
}

/* Columns j0 .. j1 - 1 of D (j0 a multiple of TILE). */
static int gemm_columns(const struct gemm_job *g, size_t j0, size_t j1)
{
	size_t M = g->M, N = g->N, K = g->K, n = (size_t)g->p->block;
	if (g->sa && !g->tiles)
		return scaled_columns(g, j0, j1);
	if (g->element_wise) {
		uint64_t *col = malloc((K + 1) * sizeof *col);
		int r = col ? 0 : -1;
		for (size_t j = j0; j < j1 && r == 0; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = g->B[k * N + j];
			for (size_t i = 0; i < M && r == 0; i++)
				r = fpref_emu_tc_dot(g->m, g->input, g->A + i * K, col, K, g->C ? g->C[i * N + j] : 0,
						     g->output, &g->D[i * N + j]);
		}
		free(col);
		return r;
	}
	if (!g->tiles) {
		struct fpref_env env;
		fpref_env_default(&env);
		for (size_t j = j0; j < j1; j++)
			for (size_t i = 0; i < M; i++) {
				struct operands x = operands_at(&g->a, i * K), y = operands_at(&g->b, j * K);
				uint64_t c = g->C ? g->C[i * N + j] : 0;
				g->D[i * N + j] = g->nc ? chain_promoted(g->p, &env, &x, &y, K, g->nc, NULL, NULL, c)
						       : chain(g->p, &x, &y, K, c, NULL);
			}
		return 0;
	}
	/* Block by block over every row, so that one block of B's tile is read
	 * from the first-level cache M times; c holds each row's accumulators. */
	uint64_t *c = malloc((M ? M : 1) * TILE * sizeof *c);
	struct tile_scales *ts = malloc(2 * sizeof *ts); /* and the columns' scales, ts + 1 */
	if (!c || !ts) {
		free(c);
		free(ts);
		return -1;
	}
	struct tile_scales *cols = ts + 1;
	tile_scales_unit(g->p, ts);
	for (size_t t = j0; t < j1; t += TILE) {
		size_t width = j1 - t < TILE ? j1 - t : TILE;
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < TILE; j++) {
				c[i * TILE + j] = g->C && j < width ? g->C[i * N + t + j] : 0;
				if (g->tiles == TILE_TREE)
					c[i * TILE + j] = tree_start(g->m, c[i * TILE + j]);
			}
		for (size_t k = 0; g->tiles == TILE_LOWERED && k < K; k += (size_t)g->m->lowered_k)
			for (size_t i = 0; i < M; i += TREE_ROWS)
				tile_lowered_step(g, i, M - i < TREE_ROWS ? M - i : TREE_ROWS, t, k, ts, c + i * TILE);
		for (size_t k = 0, step; g->tiles != TILE_LOWERED && k < K; k += step) {
			struct operands y = operands_at(&g->b, k * g->stride + t);
			struct tile_operands ty = tile_operands_at(&g->tb, t * K + k * TILE);
			size_t len = K - k < n ? K - k : n;
			/* the FP32 path's full groups of 2 or 4, up to TREE_GROUPS at once */
			size_t groups = g->tiles == TILE_TREE && len == n && (n == 2 || n == 4) ? (K - k) / n : 1;
			groups = groups < TREE_GROUPS ? groups : TREE_GROUPS;
			step = groups * len;
			/* the group and FP32 paths': column j's block q holds an inf or NaN */
			uint8_t bspecial[TREE_GROUPS][TILE] = { { 0 } };
			for (size_t q = 0; (g->tiles == TILE_GROUPS || g->tiles == TILE_TREE) && q < step; q++)
				for (size_t j = 0; j < TILE; j++)
					bspecial[q / len][j] |= y.kind[q * g->stride + j] & (INF | NOT_A_NUMBER);
			if (g->sa)
				tile_scales_columns(g, t, width, k, len, cols, ts);
			for (size_t i = 0; g->tiles == TILE_TREE && i < M; i += TREE_ROWS) {
				struct tile_operands tx = tile_operands_at(&g->ta, k * M + i * n);
				size_t rows = M - i < TREE_ROWS ? M - i : TREE_ROWS;
				if (tile_block_tree(g, i, rows, t, k, &tx, &ty, len, groups, bspecial, c + i * TILE) != 0) {
					free(c);
					free(ts);
					return -1;
				}
			}
			for (size_t i = 0; g->tiles != TILE_TREE && i < M; i++) {
				struct operands x = operands_at(&g->a, i * K + k);
				struct tile_operands tx = tile_operands_at(&g->ta, k * M + i * n);
				if (g->sa)
					tile_scales_row(g, i, len, cols, ts);
				if (g->tiles == TILE_GROUPS && g->sa)
					tile_block_groups_scaled(g->p, &x, &y, &tx, &ty, g->stride, len, bspecial[0], ts, c + i * TILE);
				else if (g->tiles == TILE_GROUPS)
					tile_block_groups(g->p, &x, &y, &tx, &ty, g->stride, len, bspecial[0], ts, c + i * TILE);
				else if (g->tiles == TILE_TWO_STAGE)
					tile_block_two_stage(g->p, &x, &y, &tx, &ty, g->stride, len, ts, c + i * TILE);
				else if (g->tiles == TILE_BLOCK_WIDE)
					tile_block_wide(g->p, &x, &y, &tx, &ty, g->stride, len, ts, c + i * TILE);
				else
					tile_block(g->p, &x, &y, &tx, &ty, g->stride, len, ts, c + i * TILE);
			}
		}
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < width; j++)
				g->D[i * N + t + j] = c[i * TILE + j];
	}
	free(c);
	free(ts);
	return 0;
}

struct gemm_part {
	const struct gemm_job *g;
	size_t j0, j1;
	int status;
};

static void *gemm_part_run(void *arg)
{
	struct gemm_part *part = arg;
	part->status = gemm_columns(part->g, part->j0, part->j1);
	return NULL;
}

/* The columns split over the threads in whole tiles; each thread writes its
 * own columns of D from read-only operands, so the bits cannot depend on
 * the number of threads. */
static int gemm_threaded(const struct gemm_job *g, unsigned threads)
{
	size_t tiles = (g->N + TILE - 1) / TILE;
	if (threads > tiles)
		threads = (unsigned)tiles;
	if (threads <= 1)
		return gemm_columns(g, 0, g->N);
	struct gemm_part *parts = calloc(threads, sizeof *parts);
	pthread_t *ids = calloc(threads, sizeof *ids);
	bool *started = calloc(threads, sizeof *started);
	int status = parts && ids && started ? 0 : -1;
	for (unsigned t = 0; t < threads && status == 0; t++) {
		size_t first = tiles * t / threads * TILE, last = tiles * (t + 1) / threads * TILE;
		parts[t] = (struct gemm_part){ g, first, last < g->N ? last : g->N, 0 };
	}
	for (unsigned t = 1; t < threads && status == 0; t++)
		started[t] = pthread_create(&ids[t], NULL, gemm_part_run, &parts[t]) == 0;
	if (status == 0)
		gemm_part_run(&parts[0]);
	for (unsigned t = 1; t < threads && status == 0; t++) {
		if (started[t])
			pthread_join(ids[t], NULL);
		else /* no thread to be had: this one does the part */
			gemm_part_run(&parts[t]);
		status |= parts[t].status;
	}
	status |= status == 0 ? parts[0].status : 0;
	free(parts);
	free(ids);
	free(started);
	return status ? -1 : 0;
}

/* Whether a lowered path runs on the tile kernel (TILE_LOWERED): FP32 or
 * FP16 output, which tree_add adds in, the FP16 unit's plan a block
 * tile's whose target is the output itself (not narrowed), and every lane
 * group of an instruction a whole block (lowered_k a multiple of
 * interleave times the groups), so that permuting each instruction's K
 * makes each group one block. */
static bool lowered_tiles_fit(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	struct plan q;
	if (!inner || !(fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_format_is(output, FPREF_FORMAT_FLOAT16)) ||
	    plan_init(&q, inner, fpref_format_get(FPREF_FORMAT_FLOAT16), output) != 0 || tile_kind_of(&q) != TILE_BLOCK ||
	    q.target_shift != 0)
		return false;
	size_t L = (size_t)m->lowered_k, n = (size_t)inner->block, lanes = (size_t)m->interleave;
	return m->interleave > 0 && L % n == 0 && L / n > 0 && L % (lanes * (L / n)) == 0;
}

/* The tile kernel of a GEMM without scales (TILE_NONE: none), and whether
 * it runs element by element instead of column by column: the lowered
 * paths that TILE_LOWERED does not take (FP16 output), and the FP32 path
 * where its tile does not hold the inputs. */
static enum tile_kind gemm_tiles(const struct fpref_tc_model *m, const struct plan *p, size_t nc, bool *element_wise)
{
	bool lowered = fpref_tc_lowered(m, p->output);
	enum tile_kind tiles = nc || lowered ? TILE_NONE : tile_kind_of(p);
	if (lowered && nc == 0 && lowered_tiles_fit(m, p->output))
		tiles = TILE_LOWERED;
	*element_wise = (lowered && tiles == TILE_NONE) || (m->tree > 0 && tiles == TILE_NONE);
	return tiles;
}

const char *fpref_emu_tc_gemm_path(const struct fpref_tc_model *m, const struct fpref_format *input,
				   const struct fpref_format *output)
{
	static const char *const names[] = { [TILE_NONE] = "per column", [TILE_BLOCK] = "block tile",
					      [TILE_TWO_STAGE] = "two-stage tile", [TILE_GROUPS] = "group tile",
					      [TILE_TREE] = "fp32-tree tile",
					      [TILE_LOWERED] = "lowered block tile",
					      [TILE_BLOCK_WIDE] = "wide block tile" };
	struct plan p;
	bool element_wise;
	if (plan_init(&p, m, input, output) != 0)
		return NULL;
	enum tile_kind tiles = gemm_tiles(m, &p, 0, &element_wise);
	return element_wise ? "per element" : names[tiles];
}

/* fpref_emu_tc_gemm_threads, with the job's decoded scales (sa NULL: none;
 * the caller has checked that they suit the model's path). */
static int gemm_run(const struct fpref_tc_model *m, const struct fpref_format *input, const struct fpref_format *output,
		    size_t M, size_t N, size_t K, const uint64_t *A, const uint64_t *B, const uint64_t *C, size_t nc,
		    uint64_t *D, unsigned threads, const struct gemm_job *scales)
{
	struct plan p;
	if (plan_init(&p, m, input, output) != 0 ||
	    (nc && (!fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_tc_lowered(m, output) || m->tree > 0)))
		return -1;
	for (size_t i = 0; C && i < M * N; i++) {
		struct fpref_unpacked z;
		if (fpref_decode(output, C[i], &z) == FPREF_DECODE_INVALID)
			return -1;
	}
	struct gemm_job g = { m, &p, input, output, M, N, K, nc, 0, A, B, C, { 0 }, { 0 }, { 0 }, { 0 }, TILE_NONE, false, false, D, NULL, NULL, 0, 0 };
	bool element_wise;
	g.tiles = gemm_tiles(m, &p, nc, &element_wise);
	g.tree_range = g.tiles == TILE_TREE && tree_range_needed(&p);
	if (scales) { /* the tile kernels take each lane's scales (tile_scales), for as many groups as they hold */
		if (m->group > 0 && (size_t)(m->block + m->group - 1) / (size_t)m->group > TILE_SCALE_GROUPS)
			g.tiles = TILE_NONE; /* the scaled chain: B transposed, as the other non-tile paths */
		g.sa = scales->sa;
		g.sb = scales->sb;
		g.every = scales->every;
		g.chunks = scales->chunks;
	}
	if (element_wise) {
		g.element_wise = true;
		return gemm_threaded(&g, threads);
	}
	if (g.tiles == TILE_LOWERED)
		return lowered_gemm(&g, threads);
	return gemm_decoded(&g, threads);
}

/* A lowered GEMM on the tile kernel (TILE_LOWERED): A and B converted to
 * FP16 (exactly, as lowered_dot converts them), each instruction's K
 * permuted so that lane group h (the k with (k / interleave) mod groups =
 * h) is block h of the instruction, a short last instruction's groups
 * padded with zero products (a short block is the same as one padded with
 * them: chain), then the job run with the FP16 unit's plan over the
 * padded K. */
static int lowered_gemm(const struct gemm_job *g, unsigned threads)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(g->m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	struct plan q;
	if (plan_init(&q, inner, f16, g->output) != 0)
		return -1;
	size_t M = g->M, N = g->N, K = g->K, L = (size_t)g->m->lowered_k, n = (size_t)inner->block;
	size_t groups = L / n, lanes = (size_t)g->m->interleave, Kp = (K + L - 1) / L * L;
	uint64_t *A = calloc(M * Kp + 1, sizeof *A), *B = calloc(Kp * N + 1, sizeof *B); /* 0: FP16's +0 */
	struct fpref_env env;
	fpref_env_default(&env);
	int r = A && B ? 0 : -1;
	for (size_t k = 0; k < K && r == 0; k++) {
		size_t k0 = k / L * L, u = (k - k0) / lanes;
		size_t at = k0 + u % groups * n + u / groups * lanes + (k - k0) % lanes;
		unsigned flags = 0;
		for (size_t i = 0; i < M && r == 0; i++)
			r = fpref_emu_convert(g->input, g->A[i * K + k], f16, &env, 0, &A[i * Kp + at], &flags);
		for (size_t j = 0; j < N && r == 0; j++)
			r = fpref_emu_convert(g->input, g->B[k * N + j], f16, &env, 0, &B[at * N + j], &flags);
	}
	if (r == 0) {
		struct gemm_job h = *g;
		h.p = &q;
		h.input = f16;
		h.K = Kp;
		h.A = A;
		h.B = B;
		r = gemm_decoded(&h, threads);
	}
	free(A);
	free(B);
	return r ? -1 : 0;
}

/* The job's operands decoded (and the tile path's copies made), then its
 * columns run. */
static int gemm_decoded(const struct gemm_job *g0, unsigned threads)
{
	struct gemm_job g = *g0;
	const struct plan *pp = g.p;
	const struct fpref_format *input = g.input;
	size_t M = g.M, N = g.N, K = g.K;
	const uint64_t *A = g.A, *B = g.B;
	g.stride = g.tiles ? (N + TILE - 1) / TILE * TILE : K;
	struct operands all;
	size_t bn = g.tiles ? K * g.stride : K * N;
	if (operands_new(&all, M * K + bn) != 0)
		return -1;
	g.a = all;
	g.b = operands_at(&all, M * K);
	int r = decode_all(input, A, M * K, &g.a);
	size_t columns = g.tiles ? g.stride : N;
	for (size_t k = 0; k < K && r == 0; k++)
		for (size_t j = 0; j < columns && r == 0; j++) {
			size_t at = g.tiles ? k * g.stride + j : j * K + k; /* tile path: row-major; else each column contiguous */
			if (j < N) {
				r = decode_one(input, B[k * N + j], &g.b, at);
			} else { /* a padding column: zero products */
				g.b.sig[at] = 0;
				g.b.exp[at] = ZERO_EXPONENT;
				g.b.negative[at] = 0;
				g.b.kind[at] = ZERO;
			}
		}
	size_t nb = (size_t)pp->block, Kp = (K + nb - 1) / nb * nb; /* A's last block padded */
	int16_t *compact = r == 0 && g.tiles ? calloc((M * Kp + bn) * 2, sizeof *compact) : NULL;
	if (compact) {
		g.ta = (struct tile_operands){ compact, compact + M * Kp + bn };
		g.tb = tile_operands_at(&g.ta, M * Kp);
		for (size_t i = 0; i < M; i++)
			for (size_t k = 0; k < K; k++)
				tile_operand_set(&g.ta, (k / nb * M + i) * nb + k % nb, &all, i * K + k, pp, g.tiles == TILE_GROUPS);
		for (size_t k = 0; k < K; k++)
			for (size_t j = 0; j < g.stride; j++)
				tile_operand_set(&g.tb, j / TILE * K * TILE + k * TILE + j % TILE, &g.b, k * g.stride + j, pp,
						 g.tiles == TILE_GROUPS);
	} else if (g.tiles) {
		r = -1;
	}
	if (r == 0)
		r = gemm_threaded(&g, threads);
	free(compact);
	operands_free(&all);
	return r ? -1 : 0;
}

int fpref_emu_tc_gemm_threads(const struct fpref_tc_model *m, const struct fpref_format *input,
			      const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
			      const uint64_t *B, const uint64_t *C, size_t nc, uint64_t *D, unsigned threads)
{
	return gemm_run(m, input, output, M, N, K, A, B, C, nc, D, threads, NULL);
}

/* Columns j0 .. j1 - 1 of a scaled GEMM without a tile kernel (a model
 * whose block holds more than TILE_SCALE_GROUPS groups, or none fits):
 * each element the chain of fpref_emu_tc_dot_scaled over the decoded
 * operands, its chunks' scale pairs made from row i of sa and column j of
 * sb as scale_pairs makes them. */
static int scaled_columns(const struct gemm_job *g, size_t j0, size_t j1)
{
	size_t M = g->M, N = g->N, K = g->K;
	size_t unit = (size_t)(g->p->group > 0 ? g->p->group : g->p->block), chunks = (K + unit - 1) / unit;
	struct scale_pair *pairs = malloc((chunks ? chunks : 1) * sizeof *pairs);
	if (!pairs)
		return -1;
	for (size_t j = j0; j < j1; j++)
		for (size_t i = 0; i < M; i++) {
			const struct scale_pair *ra = g->sa + i * g->chunks, *cb = g->sb + j * g->chunks;
			for (size_t q = 0; q < chunks; q++)
				pairs[q] = scale_product(&ra[q * unit / g->every], &cb[q * unit / g->every]);
			struct operands x = operands_at(&g->a, i * K), y = operands_at(&g->b, j * K);
			g->D[i * N + j] = chain(g->p, &x, &y, K, g->C ? g->C[i * N + j] : 0, pairs);
		}
	free(pairs);
	return 0;
}

int fpref_emu_tc_gemm_scaled_threads(const struct fpref_tc_model *m, const struct fpref_format *input,
				     const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
				     const uint64_t *B, const struct fpref_tc_gemm_scales *scales, const uint64_t *C,
				     uint64_t *D, unsigned threads)
{
	if (!scales)
		return gemm_run(m, input, output, M, N, K, A, B, C, 0, D, threads, NULL);
	struct fpref_tc_scales probe = { scales->format, scales->a, scales->b, scales->every };
	if (!fpref_tc_scales_ok(m, &probe) || fpref_tc_lowered(m, output))
		return -1;
	size_t chunks = (K + scales->every - 1) / scales->every;
	struct gemm_job job = { .every = scales->every, .chunks = chunks };
	struct scale_pair *sa = malloc((M * chunks + 1) * sizeof *sa), *sb = malloc((N * chunks + 1) * sizeof *sb);
	int r = sa && sb ? 0 : -1;
	for (size_t i = 0; i < M && r == 0; i++)
		for (size_t q = 0; q < chunks && r == 0; q++)
			r = decode_scale(scales->format, scales->a[i * chunks + q], &sa[i * chunks + q]);
	for (size_t q = 0; q < chunks && r == 0; q++) /* sb transposed: column j's chunks contiguous */
		for (size_t j = 0; j < N && r == 0; j++)
			r = decode_scale(scales->format, scales->b[q * N + j], &sb[j * chunks + q]);
	job.sa = sa;
	job.sb = sb;
	if (r == 0)
		r = gemm_run(m, input, output, M, N, K, A, B, C, 0, D, threads, &job);
	free(sa);
	free(sb);
	return r ? -1 : 0;
}

int fpref_emu_tc_gemm(const struct fpref_tc_model *m, const struct fpref_format *input, const struct fpref_format *output,
		  size_t M, size_t N, size_t K, const uint64_t *A, const uint64_t *B, const uint64_t *C, size_t nc,
		  uint64_t *D)
{
	return fpref_emu_tc_gemm_threads(m, input, output, M, N, K, A, B, C, nc, D, 1);
}

int fpref_emu_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			    const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_unpacked z;
	if (S == 0 || fpref_tc_lowered(m, f32) || fpref_decode(f32, c, &z) == FPREF_DECODE_INVALID)
		return -1;
	struct fpref_env env; /* the reduction kernel's FP32 arithmetic: rne */
	fpref_env_default(&env);
	uint64_t acc = 0, part = 0;
	unsigned flags = 0;
	for (size_t k = 0; k < K; k += S) {
		if (fpref_emu_tc_dot(m, input, a + k, b + k, K - k < S ? K - k : S, 0, f32, &part) != 0)
			return -1;
		uint64_t args[3] = { acc, part, 0 };
		fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, &acc, &flags);
	}
	uint64_t args[3] = { acc, c, 0 };
	fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, d, &flags);
	return 0;
}
