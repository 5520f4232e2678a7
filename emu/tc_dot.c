/* Tensor-core block-FMA models (the rows are in formats/tc_model.c): one
 * block routine over operands decoded once, shared by the dot product, the
 * promoted dot product and the GEMM, ending in the emulator's rounding core.
 * This file holds the model paths of one dot product: the plan, the block,
 * group and two-stage paths of a block, the chain of blocks, the lowered
 * and FP32-tree paths.  The entries (with and without scales, split-K,
 * promotion) are tc_scale.c's, the GEMM tc_gemm.c's. */
#include <stdint.h>
#include <stdlib.h>

#include "tc_internal.h"

/* The leading bit's place of a format's largest finite value and of its
 * least normal value. */
static int32_t leading_place(const struct fpref_unpacked *u)
{
	int32_t e = u->exponent;
	for (uint64_t s = u->significand; s > 1; s >>= 1)
		e++;
	return e;
}

int fpref_emu_tc_plan_init(struct plan *p, const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const struct fpref_format *output)
{
	/* two formats only as the row's instruction takes them; one format as
	 * before (the rows' input lists are the callers' to check) */
	if ((!fpref_format_same(in_a, in_b) && !fpref_tc_pair_ok(m, in_a, in_b)) || !fpref_tc_output_ok(m, in_a, output) ||
	    !fpref_tc_output_ok(m, in_b, output) || !fpref_tc_input_ok(in_a) || !fpref_tc_input_ok(in_b))
		return -1;
	p->in_a = in_a;
	p->in_b = in_b;
	p->output = output;
	p->frac = m->frac;
	p->block = m->block;
	p->floor = fpref_tc_model_floor(m, output);
	p->lift = m->frac > 23 ? m->frac - 23 : 0;
	p->shift_in = 23 - in_a->man_bits - in_b->man_bits + p->lift;
	fpref_tc_model_env(m, output, &p->env);
	p->group = m->group;
	p->parts = m->halves > 1 ? m->halves : 1;
	p->sum_frac = m->sum_frac;
	p->c_frac = m->c_frac;
	p->c_drop = m->c_drop;
	p->tree = m->tree;
	p->flush = m->flush;
	p->fused = m->fused;
	p->c_least = fpref_tc_model_c_least(m, output);
	p->zero_operand = m->zero_operand_aligns;
	if (!fpref_tc_model_conventions_ok(m))
		return -1;
	p->product_inf = m->product_inf;
	p->slow_above = m->product_inf ? 126 : SPECIAL_SEEN;
	fpref_env_default(&p->fp32_env);
	struct fpref_unpacked lo, hi;
	fpref_format_min_normal(in_a, &lo);
	fpref_format_max_finite(in_a, &hi);
	p->least_a = leading_place(&lo);
	p->span_a = leading_place(&hi) - p->least_a;
	fpref_format_min_normal(in_b, &lo);
	fpref_format_max_finite(in_b, &hi);
	p->least_b = leading_place(&lo);
	p->span_b = leading_place(&hi) - p->least_b;
	p->group_shift = 23 + p->lift + (p->least_a - in_a->man_bits) + (p->least_b - in_b->man_bits);
	/* the group path keeps a group's exact sum times two E4M3 significands
	 * (8 bits) in 64 bits: narrow inputs only (FP4) */
	int group_bits = p->span_a + p->span_b + (in_a->man_bits + 1) + (in_b->man_bits + 1) + 6 + 8 + p->group_shift;
	if (m->group > 0 && (m->group > m->block || p->group_shift < 6 || group_bits > 60 || m->product_inf))
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

/* Whether finite operands' product (a term of product_terms: 23 + lift
 * fraction bits, below 2^(25 + lift)) reaches 2^128. */
static bool product_overflows(const struct plan *p, uint64_t mag, int32_t exp)
{
	return exp + (int32_t)(mag >> (24 + p->lift)) >= 128;
}

/* NaN or an infinity among the products of a block and c: the result's
 * pattern, or false when they are all finite.  mag and exp: the products
 * as product_terms gives them, read for the row's product_inf (NULL: no
 * product overflows). */
static bool special_result(const struct plan *p, const struct operands *a, const struct operands *b, size_t n,
			   uint64_t c, const uint64_t *mag, const int32_t *exp, uint64_t *bits)
{
	bool nan = false, pos_inf = false, neg_inf = false;
	for (size_t i = 0; i < n; i++) {
		unsigned x = a->kind[i], y = b->kind[i];
		bool negative = (a->negative[i] ^ b->negative[i]) != 0;
		if ((x | y) & NOT_A_NUMBER || ((x & INF) && (y & ZERO)) || ((y & INF) && (x & ZERO)))
			nan = true;
		else if ((x | y) & INF || (mag && p->product_inf && !((x | y) & ZERO) && product_overflows(p, mag[i], exp[i])))
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

/* A special c (inf or NaN) or a special product: the result, or false. */
static bool special_c(const struct plan *p, const struct operands *a, const struct operands *b, size_t n, uint64_t c,
		      uint64_t *bits)
{
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1);
	return field == (1u << o->exp_bits) - 1 && special_result(p, a, b, n, c, NULL, NULL, bits);
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
			int shift = (a->exp[i] - p->least_a) + (b->exp[i] - p->least_b);
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

/* zero_operand_aligns: each product with a zero factor (and no inf or
 * NaN: those took the special path) at the zero's place -126 plus the
 * other factor's, for the alignment only (its magnitude stays 0).
 * Returns the largest exponent, not below E. */
static int32_t zero_operand_places(const struct operands *a, const struct operands *b, size_t n, int32_t *exp,
				   int32_t E)
{
	for (size_t i = 0; i < n; i++) {
		unsigned kinds = a->kind[i] | b->kind[i];
		if (!(kinds & ZERO) || (kinds & (INF | NOT_A_NUMBER)))
			continue;
		exp[i] = (a->kind[i] == ZERO ? -126 : a->exp[i]) + (b->kind[i] == ZERO ? -126 : b->exp[i]);
		E = exp[i] > E ? exp[i] : E;
	}
	return E;
}

/* One block: n products a_i * b_i and the accumulator c, rounded once;
 * sc the block's scales (its groups' with the group path), or NULL. */
uint64_t fpref_emu_tc_block(const struct plan *p, const struct operands *a, const struct operands *b, size_t n,
			    uint64_t c, const struct scale_pair *sc)
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
				return special_result(p, a, b, n, c, NULL, NULL, &bits) ? bits : nan_result(p);
		count = group_terms(p, a, b, n, sc, mag, exp, neg, &E);
	} else {
		/* E8M0 scales move every product's exponent by the same amount */
		E = product_terms(a->sig, a->exp, a->negative, b->sig, b->exp, b->negative, n, p->shift_in,
				  p->floor - shift, mag, exp, neg);
		if (E > p->slow_above && special_result(p, a, b, n, c, mag, exp, &bits))
			return bits;
		if (p->zero_operand)
			E = zero_operand_places(a, b, n, exp, E);
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
uint64_t fpref_emu_tc_chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K,
			    uint64_t c, const struct scale_pair *sc)
{
	size_t n = (size_t)p->block, unit = p->group > 0 ? (size_t)p->group : n;
	for (size_t k = 0; k < K; k += n) { /* a short last block is the same as one padded with zero products */
		struct operands x = operands_at(a, k), y = operands_at(b, k);
		c = fpref_emu_tc_block(p, &x, &y, K - k < n ? K - k : n, c, sc ? sc + k / unit : NULL);
	}
	return c;
}

/* The lowered path: per instruction, the inputs converted to FP16, each
 * group of products (in the order of the instruction's lanes) through the
 * FP16 unit's block model, chained from zero, then c added by one
 * addition in the output format. */
int fpref_emu_tc_lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			     const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
			     const struct fpref_format *output, uint64_t *d)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	struct plan p;
	if (!inner || fpref_emu_tc_plan_init(&p, inner, f16, f16, output) != 0)
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
				status = fpref_emu_convert(in_a, a[k0 + k], f16, &env, 0, &u, &flags) |
					 fpref_emu_convert(in_b, b[k0 + k], f16, &env, 0, &v, &flags);
				if (status == 0) {
					decode_one(f16, u, &x, n);
					decode_one(f16, v, &y, n);
					n++;
				}
			}
			if (status == 0)
				partial = fpref_emu_tc_block(&p, &x, &y, n, partial, NULL);
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

/* CDNA2 (fpref_formats_tc_model.h, tree): FP32 arithmetic, nearest even;
 * CDNA1's fused groups are tc_fused.c's. */
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

/* One group of tree_dot: *acc plus the pairwise sum of len products, b's
 * operands bstride apart.  -1 for an invalid pattern. */
int fpref_emu_tc_tree_step(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t bstride, size_t len,
			   uint64_t *acc)
{
	if (m->fused) /* the host FPU's path where it decides, else the word array */
		return fpref_emu_tc_fused_fast_step(in_a, in_b, a, b, bstride, len, acc) == 0
			       ? 0
			       : fpref_emu_tc_fused_step(in_a, in_b, a, b, bstride, len, acc);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t x[FPREF_TC_MAX_BLOCK], y[FPREF_TC_MAX_BLOCK];
	for (size_t i = 0; i < len; i++) {
		unsigned flags = 0;
		if (fpref_emu_convert(in_a, a[i], f32, &env, 0, &x[i], &flags) != 0 ||
		    fpref_emu_convert(in_b, b[i * bstride], f32, &env, 0, &y[i], &flags) != 0)
			return -1;
		/* CDNA2 reads subnormal and zero inputs as +0 */
		x[i] = m->flush && tiny(in_a, a[i]) ? 0 : x[i];
		y[i] = m->flush && tiny(in_b, b[i * bstride]) ? 0 : y[i];
	}
	uint64_t args[3] = { *acc, tree_sum(x, y, len, m->flush, &env), 0 };
	unsigned flags = 0;
	fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, acc, &flags);
	*acc = flush32(*acc, m->flush);
	return 0;
}

int fpref_emu_tc_tree_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			  const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
			  uint64_t *d)
{
	uint64_t acc = tree_start(m, c);
	size_t n = (size_t)m->block;
	for (size_t k0 = 0; k0 < K; k0 += n)
		if (fpref_emu_tc_tree_step(m, in_a, in_b, a + k0, b + k0, 1, K - k0 < n ? K - k0 : n, &acc) != 0)
			return -1;
	*d = acc;
	return 0;
}

/* a and b decoded into one allocation of 2K operands. */
int fpref_emu_tc_decode_pair(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			     const uint64_t *b, size_t K, struct operands *all, struct operands *x, struct operands *y)
{
	if (operands_new(all, 2 * K) != 0)
		return -1;
	*x = *all;
	*y = operands_at(all, K);
	if (decode_all(in_a, a, K, x) != 0 || decode_all(in_b, b, K, y) != 0) {
		operands_free(all);
		return -1;
	}
	return 0;
}
