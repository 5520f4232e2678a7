/* The oracle's side of the tensor-core block model: one dot product
 * computed a second way (MPFR exponents and exact integer sums instead of
 * the emulator's shifts), block by block, on every path of the models
 * (the block model, AMD's two-stage dot-add, the CDNA1/2 FP32 path, the
 * lowered path) and split-K.  The block scales are ref/tc_scale.c's, the
 * a priori bounds ref/tc_bound.c's. */
#include <gmp.h>
#include <limits.h>
#include <stdlib.h>

#include "tc_oracle.h"

struct specials {
	bool nan, pos_inf, neg_inf;
};

static void note_special(struct specials *s, mpfr_srcptr t)
{
	if (mpfr_nan_p(t))
		s->nan = true;
	else if (mpfr_inf_p(t))
		*(mpfr_signbit(t) ? &s->neg_inf : &s->pos_inf) = true;
}

/* NaN or an infinity among a block's terms and acc: the result, or false. */
static bool special_block(const struct fpref_format *output, mpfr_t *terms, size_t n, mpfr_srcptr acc, uint64_t *bits)
{
	struct specials s = { false, false, false };
	for (size_t i = 0; i < n; i++)
		note_special(&s, terms[i]);
	note_special(&s, acc);
	if (s.nan || (s.pos_inf && s.neg_inf))
		return fpref_format_nan_bits(output, false, bits) || true;
	if (s.pos_inf || s.neg_inf)
		return fpref_format_inf_bits(output, s.neg_inf, bits) || true;
	return false;
}

/* One block of the model: terms[0..n) are exact products, acc the incoming
 * accumulator's value; the result is rounded to target and returned. */
static uint64_t model_block(const struct fpref_tc_model *m, const struct fpref_format *output, const struct fpref_format *target, mpfr_t *terms, size_t n,
			    mpfr_srcptr acc, long *lead, const bool *counts)
{
	int floor = fpref_tc_model_floor(m, output);
	uint64_t bits = 0;
	if (special_block(output, terms, n, acc, &bits))
		return bits;
	long E = floor;
	for (size_t i = 0; i <= n; i++) {
		mpfr_srcptr t = i < n ? terms[i] : acc;
		bool counted = counts && i < n ? counts[i] : !mpfr_zero_p(t); /* a group counts even when its sum is zero */
		if (counted && lead[i] > E)
			E = lead[i];
	}
	mpz_t sum, q;
	mpz_init(sum);
	mpz_init(q);
	mpfr_t scaled;
	mpfr_init2(scaled, 160);
	for (size_t i = 0; i <= n; i++) {
		mpfr_srcptr t = i < n ? terms[i] : acc;
		if (mpfr_zero_p(t))
			continue;
		mpfr_mul_2si(scaled, t, m->frac - E, MPFR_RNDN); /* exact */
		mpfr_get_z(q, scaled, MPFR_RNDZ);                /* each term truncated toward zero */
		mpz_add(sum, sum, q);
	}
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	mpfr_set_prec(v.x, 256);
	mpfr_set_z_2exp(v.x, sum, -(long)m->frac + E, MPFR_RNDN); /* exact: the sum has under 64 bits */
	struct fpref_env env;
	fpref_tc_model_env(m, output, &env);
	unsigned flags = 0;
	fpref_ref_round(&v, target, &env, 0, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);
	mpfr_clear(scaled);
	mpz_clear(q);
	mpz_clear(sum);
	return bits << (output->man_bits - target->man_bits);
}

/* AMD's two-stage dot-add (fpref_formats_tc_model.h, sum_frac), in exact
 * integers: each part's products truncated below its largest exponent,
 * the parts floored below the largest, then the sum and c floored below
 * the larger exponent of the two, added, and rounded once. */
static uint64_t two_stage_block(const struct fpref_tc_model *m, const struct fpref_format *output, mpfr_t *terms,
				size_t n, mpfr_srcptr acc, const long *lead)
{
	uint64_t bits = 0;
	if (special_block(output, terms, n, acc, &bits))
		return bits;
	size_t parts = m->halves > 1 ? (size_t)m->halves : 1;
	mpz_t sum, part, q;
	mpz_inits(sum, part, q, (mpz_ptr)0);
	mpfr_t scaled;
	mpfr_init2(scaled, 256);
	long part_e[FPREF_TC_MAX_BLOCK], E1 = 0;
	bool products = false;
	for (size_t h = 0; h < parts; h++) { /* the largest exponent of each part, and of all */
		part_e[h] = LONG_MIN;
		for (size_t i = h; i < n; i += parts)
			if (!mpfr_zero_p(terms[i]) && (part_e[h] == LONG_MIN || lead[i] > part_e[h]))
				part_e[h] = lead[i];
		if (part_e[h] != LONG_MIN && (!products || part_e[h] > E1))
			E1 = part_e[h], products = true;
	}
	for (size_t h = 0; h < parts; h++) {
		if (part_e[h] == LONG_MIN)
			continue;
		mpz_set_ui(part, 0);
		for (size_t i = h; i < n; i += parts) {
			if (mpfr_zero_p(terms[i]))
				continue;
			mpfr_mul_2si(scaled, terms[i], m->frac - part_e[h], MPFR_RNDN); /* exact */
			mpfr_get_z(q, scaled, MPFR_RNDZ);
			mpz_add(part, part, q);
		}
		mpz_fdiv_q_2exp(part, part, (mp_bitcnt_t)(E1 - part_e[h])); /* floored below the largest part */
		mpz_add(sum, sum, part);
	}
	bool have_c = !mpfr_zero_p(acc);
	long ec = have_c ? lead_exponent(acc, m->c_least_normal ? least_normal_exponent(output) : -126) : 0;
	long E2 = !products ? ec : (!have_c || E1 > ec ? E1 : ec);
	mpz_set_ui(q, 0);
	if (products) { /* the sum, floored to sum_frac bits below E2 */
		long k = E1 - m->frac - E2 + m->sum_frac;
		if (k >= 0)
			mpz_mul_2exp(q, sum, (mp_bitcnt_t)k);
		else
			mpz_fdiv_q_2exp(q, sum, (mp_bitcnt_t)-k);
	}
	if (have_c && !(m->c_drop > 0 && ec < E2 - m->c_drop)) { /* c, floored to c_frac bits below E2 */
		mpfr_mul_2si(scaled, acc, m->c_frac - E2, MPFR_RNDN);
		mpfr_get_z(part, scaled, MPFR_RNDD);
		mpz_mul_2exp(part, part, (mp_bitcnt_t)(m->sum_frac - m->c_frac));
		mpz_add(q, q, part);
	}
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	mpfr_set_prec(v.x, 256);
	mpfr_set_z_2exp(v.x, q, E2 - m->sum_frac, MPFR_RNDN); /* exact */
	struct fpref_env env;
	fpref_tc_model_env(m, output, &env);
	unsigned flags = 0;
	fpref_ref_round(&v, output, &env, 0, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);
	mpfr_clear(scaled);
	mpz_clears(sum, part, q, (mpz_ptr)0);
	return bits;
}

/* CDNA2 (fpref_formats_tc_model.h, tree): the oracle's FP32 operations
 * in the same order: products, the pairwise tree, the addition to C;
 * CDNA1's fused groups one MPFR sum each. */
static bool below_power(mpfr_srcptr x, long e) /* |x| < 2^e */
{
	mpfr_t t;
	mpfr_init2(t, 8);
	mpfr_set_ui_2exp(t, 1, e, MPFR_RNDN);
	bool below = mpfr_cmpabs(x, t) < 0;
	mpfr_clear(t);
	return below;
}

static int flush_to_zero(bool flush, uint64_t *x)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	int status = fpref_ref_from_bits(f32, *x, false, &v);
	if (status == 0 && flush && mpfr_number_p(v.x) && below_power(v.x, -126))
		*x = mpfr_signbit(v.x) ? 0x80000000 : 0;
	fpref_ref_value_clear(&v);
	return status;
}

static int tree_sum(const uint64_t *a, const uint64_t *b, size_t n, bool flush, const struct fpref_env *env,
		    uint64_t *r)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	unsigned flags = 0;
	uint64_t args[3] = { a[0], b[0], 0 };
	int status = 0;
	if (n > 1)
		status = tree_sum(a, b, n / 2, flush, env, &args[0]) | tree_sum(a + n / 2, b + n / 2, n - n / 2, flush, env,
										 &args[1]);
	if (status == 0)
		status = fpref_ref_op(n > 1 ? FPREF_OP_ADD : FPREF_OP_FMA, f32, args, env, 0, r, &flags);
	return status ? status : flush_to_zero(flush, r);
}

/* Whether an input reads as +0 under CDNA2's flushing: below its own
 * format's least normal magnitude, zeros included. */
static bool flushed_input(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	bool tiny = fpref_ref_from_bits(f, bits, false, &v) == 0 && mpfr_number_p(v.x) &&
		    below_power(v.x, least_normal_exponent(f));
	fpref_ref_value_clear(&v);
	return tiny;
}

/* CDNA1 (fused): a group's products and *acc summed exactly and rounded
 * once to FP32 by MPFR (fpref_ref_dot_exact); a zero sum of -0 terms
 * alone is -0, as IEEE's additions of them give. */
static int fused_group(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
		       const uint64_t *b, size_t len, const struct fpref_env *env, uint64_t *acc)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	int status = fpref_ref_from_bits(f32, *acc, false, &x);
	bool neg_zeros = status == 0 && mpfr_zero_p(x.x) && mpfr_signbit(x.x);
	for (size_t i = 0; i < len && status == 0; i++) {
		status = fpref_ref_from_bits(in_a, a[i], false, &x) | fpref_ref_from_bits(in_b, b[i], false, &y);
		neg_zeros = neg_zeros && status == 0 && mpfr_number_p(x.x) && mpfr_number_p(y.x) &&
			    (mpfr_zero_p(x.x) || mpfr_zero_p(y.x)) && mpfr_signbit(x.x) != mpfr_signbit(y.x);
	}
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	unsigned flags = 0;
	if (status == 0)
		status = fpref_ref_dot_exact(in_a, in_b, a, b, len, *acc, f32, env, acc, &flags);
	if (status == 0 && neg_zeros)
		*acc = 0x80000000;
	return status;
}

static int tree_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		    const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t x[FPREF_TC_MAX_BLOCK], y[FPREF_TC_MAX_BLOCK], acc = m->flush && flushed_input(f32, c) ? 0 : c;
	size_t n = (size_t)m->block;
	int status = 0;
	for (size_t k0 = 0; k0 < K && status == 0; k0 += n) {
		size_t len = K - k0 < n ? K - k0 : n;
		if (m->fused) {
			status = fused_group(in_a, in_b, a + k0, b + k0, len, &env, &acc);
			continue;
		}
		unsigned flags = 0;
		for (size_t i = 0; i < len && status == 0; i++) {
			status = fpref_ref_convert(in_a, a[k0 + i], f32, &env, 0, &x[i], &flags) |
				 fpref_ref_convert(in_b, b[k0 + i], f32, &env, 0, &y[i], &flags);
			if (m->flush && flushed_input(in_a, a[k0 + i]))
				x[i] = 0;
			if (m->flush && flushed_input(in_b, b[k0 + i]))
				y[i] = 0;
		}
		uint64_t args[3] = { acc, 0, 0 };
		if (status == 0)
			status = tree_sum(x, y, len, m->flush, &env, &args[1]);
		if (status == 0)
			status = fpref_ref_op(FPREF_OP_ADD, f32, args, &env, 0, &acc, &flags) | flush_to_zero(m->flush, &acc);
	}
	if (status == 0)
		*d = acc;
	return status ? -1 : 0;
}

/* The lowered path (fpref_formats_tc_model.h): each operand converted to FP16
 * from its own format (exactly: a format FP16 does not hold is refused),
 * each instruction's lane groups through the FP16 unit's block model,
 * chained from zero, c added by one addition in the output format. */
static int lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a,
		       const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
		       const struct fpref_format *output, uint64_t *d)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	if (!inner || !exact_in_fp16(in_a) || !exact_in_fp16(in_b))
		return -1;
	size_t L = (size_t)m->lowered_k, groups = L / (size_t)inner->block, lanes = (size_t)m->interleave;
	if (groups == 0 || lanes == 0)
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t *x = malloc((2 * L + 1) * sizeof *x), *y = x ? x + L : NULL, acc = c;
	int status = x ? 0 : -1;
	for (size_t k0 = 0; k0 < K && status == 0; k0 += L) {
		uint64_t partial = 0;
		for (size_t h = 0; h < groups && status == 0; h++) {
			size_t n = 0;
			for (size_t k = k0; k < K && k < k0 + L && status == 0; k++) {
				unsigned flags = 0;
				if (((k - k0) / lanes) % groups == h) {
					status = fpref_ref_convert(in_a, a[k], f16, &env, 0, &x[n], &flags) |
						 fpref_ref_convert(in_b, b[k], f16, &env, 0, &y[n], &flags);
					n++;
				}
			}
			if (status == 0)
				status = fpref_ref_tc_dot(inner, f16, f16, x, y, n, partial, output, &partial);
		}
		uint64_t args[3] = { partial, acc, 0 };
		unsigned flags = 0;
		if (status == 0)
			status = fpref_ref_op(FPREF_OP_ADD, output, args, &env, 0, &acc, &flags);
	}
	if (status == 0)
		*d = acc;
	free(x);
	return status ? -1 : 0;
}

int fpref_ref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		     const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		     uint64_t *d)
{
	return fpref_ref_tc_dot_scaled(m, in_a, in_b, a, b, K, NULL, c, output, d);
}

/* fpref_ref_tc_dot_scaled before the row's NaN pattern. */
static int dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		      const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
		      const struct fpref_format *output, uint64_t *d)
{
	if (!fpref_tc_scales_ok(m, scales) || (scales && fpref_tc_lowered(m, output)) ||
	    !operands_ok(m, in_a, in_b, output))
		return -1;
	if (fpref_tc_lowered(m, output)) {
		struct fpref_ref_value v;
		fpref_ref_value_init(&v);
		int status = fpref_ref_from_bits(output, c, false, &v);
		fpref_ref_value_clear(&v);
		return status ? -1 : lowered_dot(m, in_a, in_b, a, b, K, c, output, d);
	}
	if (m->tree > 0) {
		struct fpref_ref_value v;
		fpref_ref_value_init(&v);
		int bad = fpref_ref_from_bits(output, c, false, &v);
		fpref_ref_value_clear(&v);
		return bad ? -1 : tree_dot(m, in_a, in_b, a, b, K, c, d);
	}
	struct fpref_format target = *output;
	if (m->frac < output->man_bits)
		target.man_bits = m->frac;
	size_t n = (size_t)m->block;
	mpfr_t terms[FPREF_TC_MAX_BLOCK];
	long lead[FPREF_TC_MAX_BLOCK + 1];
	bool counts[FPREF_TC_MAX_BLOCK];
	for (size_t i = 0; i < n; i++)
		mpfr_init2(terms[i], 64);
	struct fpref_ref_value x, y, acc;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	fpref_ref_value_init(&acc);
	long least_a = least_normal_exponent(in_a), least_b = least_normal_exponent(in_b);
	int status = 0;
	uint64_t cur = c;
	for (size_t k = 0; k < K && status == 0; k += n) {
		size_t len = K - k < n ? K - k : n;
		for (size_t i = 0; i < len && status == 0; i++) {
			status = fpref_ref_from_bits(in_a, a[k + i], false, &x) | fpref_ref_from_bits(in_b, b[k + i], false, &y);
			if (status == 0) {
				mpfr_set_prec(terms[i], 64);
				mpfr_mul(terms[i], x.x, y.x, MPFR_RNDN); /* exact: 22 bits at most */
				/* product_inf: 2^128 or more is an infinity before the sum (0.m x 2^e, e > 128) */
				if (m->product_inf && mpfr_regular_p(terms[i]) && mpfr_get_exp(terms[i]) > 128)
					mpfr_set_inf(terms[i], mpfr_sgn(terms[i]));
				if (mpfr_number_p(terms[i]) && !mpfr_zero_p(terms[i])) /* each operand's place in its own format */
					lead[i] = lead_exponent(x.x, least_a) + lead_exponent(y.x, least_b);
				/* zero_operand_aligns: a zero factor at 2^-126, whatever its format */
				counts[i] = !mpfr_zero_p(terms[i]) || m->zero_operand_aligns;
				if (m->zero_operand_aligns && mpfr_zero_p(terms[i]))
					lead[i] = (mpfr_zero_p(x.x) ? -126 : lead_exponent(x.x, least_a)) +
						  (mpfr_zero_p(y.x) ? -126 : lead_exponent(y.x, least_b));
			}
		}
		if (status == 0)
			status = fpref_ref_from_bits(output, cur, false, &acc);
		if (status != 0)
			break;
		if (mpfr_number_p(acc.x) && !mpfr_zero_p(acc.x))
			lead[len] = lead_exponent(acc.x, m->c_least_normal ? least_normal_exponent(output)
									     : -126); /* as an FP32, or at its own least normal */
		bool special = false, nan = false;
		for (size_t i = 0; i < len; i++)
			special = special || !mpfr_number_p(terms[i]);
		long count = (long)len;
		if (special && scales) /* a NaN scale wins over special products: check the scales alone */
			for (size_t i = 0; i < len && status == 0; i++) {
				long l;
				status = fpref_ref_tc_read_scale(scales->format, scales->a[(k + i) / scales->every], &x, &l) |
					 fpref_ref_tc_read_scale(scales->format, scales->b[(k + i) / scales->every], &y, &l);
				nan = nan || mpfr_nan_p(x.x) || mpfr_nan_p(y.x);
			}
		if (!special && (scales || m->group > 0))
			count = fpref_ref_tc_apply_scales(m, scales, k, len, terms, lead, counts, &nan);
		if (count < 0 || status != 0) {
			status = -1;
			break;
		}
		if (count != (long)len && mpfr_number_p(acc.x) && !mpfr_zero_p(acc.x))
			lead[count] = lead[len];
		if (nan)
			fpref_format_nan_bits(output, false, &cur);
		else if (m->sum_frac > 0)
			cur = two_stage_block(m, output, terms, len, acc.x, lead);
		else
			cur = model_block(m, output, &target, terms, (size_t)count, acc.x, lead,
					  (m->group > 0 && !special) || m->zero_operand_aligns ? counts : NULL);
	}
	if (status == 0)
		*d = cur;
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	fpref_ref_value_clear(&acc);
	for (size_t i = 0; i < n; i++)
		mpfr_clear(terms[i]);
	return status ? -1 : 0;
}

int fpref_ref_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			    uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	int status = dot_scaled(m, in_a, in_b, a, b, K, scales, c, output, d);
	if (status == 0)
		*d = fpref_tc_model_nan(m, output, *d);
	return status;
}

int fpref_ref_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (S == 0 || fpref_tc_lowered(m, f32) || !operands_ok(m, in_a, in_b, f32))
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t sums[3] = { 0, 0, 0 };
	unsigned flags = 0;
	int status = 0;
	for (size_t k = 0; k < K && status == 0; k += S) {
		status = fpref_ref_tc_dot(m, in_a, in_b, a + k, b + k, K - k < S ? K - k : S, 0, f32, &sums[1]);
		if (status == 0)
			status = fpref_ref_op(FPREF_OP_ADD, f32, sums, &env, 0, &sums[0], &flags);
	}
	sums[1] = c;
	if (status == 0)
		status = fpref_ref_op(FPREF_OP_ADD, f32, sums, &env, 0, d, &flags);
	if (status == 0)
		*d = fpref_tc_model_nan(m, f32, *d);
	return status ? -1 : 0;
}
