/* The oracle's side of the accumulators: the tensor-core block model
 * computed a second way (MPFR exponents and exact integer sums instead of
 * the emulator's shifts), and the a priori error bounds of every
 * accumulation, evaluated in MPFR rounding upward so that each is a true
 * upper bound. */
#include <gmp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_ref.h"

/* floor(log2 |x|) for a nonzero x, but not below least_exp (subnormals
 * are aligned as if at the format's least normal exponent). */
static long lead_exponent(mpfr_srcptr x, long least_exp)
{
	long e = (long)mpfr_get_exp(x) - 1;
	return e > least_exp ? e : least_exp;
}

static long least_normal_exponent(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_min_normal(f, &u);
	long e = u.exponent;
	for (uint64_t s = u.significand; s > 1; s >>= 1)
		e++;
	return e;
}

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
	long ec = have_c ? lead_exponent(acc, -126) : 0;
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

/* A scale's value (UE4M3: its sign ignored) and its alignment place. */
static int read_scale(const struct fpref_format *f, uint64_t bits, struct fpref_ref_value *v, long *lead)
{
	if (f->is_signed)
		bits &= ~(1ull << (f->man_bits + f->exp_bits + f->pad_bits));
	if (fpref_ref_from_bits(f, bits, false, v) != 0)
		return -1;
	*lead = mpfr_number_p(v->x) && !mpfr_zero_p(v->x) ? lead_exponent(v->x, least_normal_exponent(f)) : 0;
	return 0;
}

/* The scales of the products [k, k + len) applied to the terms: the group
 * path replaces them by one term per group (the exact sum times both
 * scales, at the scales' places); otherwise E8M0 scales multiply each
 * product and move its place.  Returns the number of terms, with *nan set
 * when a scale is NaN, or -1 on a bad pattern. */
static long apply_scales(const struct fpref_tc_model *m, const struct fpref_tc_scales *sc, size_t k, size_t len,
			 mpfr_t *terms, long *lead, bool *counts, bool *nan)
{
	struct fpref_ref_value sa, sb;
	fpref_ref_value_init(&sa);
	fpref_ref_value_init(&sb);
	size_t unit = m->group > 0 ? (size_t)m->group : len, count = 0;
	long status = 0;
	mpfr_t group_sum;
	mpfr_init2(group_sum, 128);
	for (size_t g = 0; g < len && status == 0; g += unit, count++) {
		long la = 0, lb = 0;
		if (sc && (read_scale(sc->format, sc->a[(k + g) / sc->every], &sa, &la) != 0 ||
			   read_scale(sc->format, sc->b[(k + g) / sc->every], &sb, &lb) != 0)) {
			status = -1;
			break;
		}
		if (!sc) {
			mpfr_set_ui(sa.x, 1, MPFR_RNDN);
			mpfr_set_ui(sb.x, 1, MPFR_RNDN);
		}
		if (mpfr_nan_p(sa.x) || mpfr_nan_p(sb.x))
			*nan = true;
		if (m->group == 0) { /* E8M0: a power of two, exact */
			for (size_t i = 0; i < len && sc; i++) {
				mpfr_mul(terms[i], terms[i], sa.x, MPFR_RNDN);
				mpfr_mul(terms[i], terms[i], sb.x, MPFR_RNDN);
				lead[i] += la + lb;
			}
			count = len;
			break;
		}
		mpfr_set_zero(group_sum, 1);
		for (size_t i = g; i < len && i < g + unit; i++)
			mpfr_add(group_sum, group_sum, terms[i], MPFR_RNDN); /* exact at 128 bits */
		mpfr_mul(group_sum, group_sum, sa.x, MPFR_RNDN);
		mpfr_mul(group_sum, group_sum, sb.x, MPFR_RNDN);
		mpfr_set_prec(terms[count], 128);
		mpfr_set(terms[count], group_sum, MPFR_RNDN);
		lead[count] = la + lb;
		counts[count] = !(sc && (mpfr_zero_p(sa.x) || mpfr_zero_p(sb.x)));
	}
	mpfr_clear(group_sum);
	fpref_ref_value_clear(&sa);
	fpref_ref_value_clear(&sb);
	return status ? -1 : (long)count;
}

/* CDNA1/2 (fpref_formats_tc_model.h, tree): the oracle's FP32 operations
 * in the same order: products, the pairwise tree, the addition to C. */
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

/* Whether an input reads as +0 under CDNA2's flushing: below the input's
 * least normal magnitude, zeros included. */
static bool flushed_input(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	bool tiny = fpref_ref_from_bits(f, bits, false, &v) == 0 && mpfr_number_p(v.x) &&
		    below_power(v.x, least_normal_exponent(f));
	fpref_ref_value_clear(&v);
	return tiny;
}

static int tree_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		    const uint64_t *b, size_t K, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t x[FPREF_TC_MAX_BLOCK], y[FPREF_TC_MAX_BLOCK], acc = m->flush && flushed_input(f32, c) ? 0 : c;
	size_t n = (size_t)m->block;
	int status = 0;
	for (size_t k0 = 0; k0 < K && status == 0; k0 += n) {
		size_t len = K - k0 < n ? K - k0 : n;
		unsigned flags = 0;
		for (size_t i = 0; i < len && status == 0; i++) {
			status = fpref_ref_convert(input, a[k0 + i], f32, &env, 0, &x[i], &flags) |
				 fpref_ref_convert(input, b[k0 + i], f32, &env, 0, &y[i], &flags);
			if (m->flush && flushed_input(input, a[k0 + i]))
				x[i] = 0;
			if (m->flush && flushed_input(input, b[k0 + i]))
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

/* The lowered path (fpref_formats_tc_model.h): the inputs converted to FP16, each
 * instruction's lane groups through the FP16 unit's block model, chained
 * from zero, c added by one addition in the output format. */
static int lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		       const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	if (!inner)
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
					status = fpref_ref_convert(input, a[k], f16, &env, 0, &x[n], &flags) |
						 fpref_ref_convert(input, b[k], f16, &env, 0, &y[n], &flags);
					n++;
				}
			}
			if (status == 0)
				status = fpref_ref_tc_dot(inner, f16, x, y, n, partial, output, &partial);
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

int fpref_ref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		     const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	return fpref_ref_tc_dot_scaled(m, input, a, b, K, NULL, c, output, d);
}

int fpref_ref_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			    const uint64_t *b, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			    const struct fpref_format *output, uint64_t *d)
{
	if (!fpref_tc_scales_ok(m, scales) || (scales && fpref_tc_lowered(m, output)))
		return -1;
	if (fpref_tc_lowered(m, output) && fpref_tc_output_ok(m, input, output)) {
		struct fpref_ref_value v;
		fpref_ref_value_init(&v);
		int status = fpref_tc_input_ok(input) ? fpref_ref_from_bits(output, c, false, &v) : -1;
		fpref_ref_value_clear(&v);
		return status ? -1 : lowered_dot(m, input, a, b, K, c, output, d);
	}
	if (!fpref_tc_output_ok(m, input, output) || !fpref_tc_input_ok(input))
		return -1;
	if (m->tree > 0) {
		struct fpref_ref_value v;
		fpref_ref_value_init(&v);
		int bad = fpref_ref_from_bits(output, c, false, &v);
		fpref_ref_value_clear(&v);
		return bad ? -1 : tree_dot(m, input, a, b, K, c, d);
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
	long least_in = least_normal_exponent(input);
	int status = 0;
	uint64_t cur = c;
	for (size_t k = 0; k < K && status == 0; k += n) {
		size_t len = K - k < n ? K - k : n;
		for (size_t i = 0; i < len && status == 0; i++) {
			status = fpref_ref_from_bits(input, a[k + i], false, &x) | fpref_ref_from_bits(input, b[k + i], false, &y);
			if (status == 0) {
				mpfr_set_prec(terms[i], 64);
				mpfr_mul(terms[i], x.x, y.x, MPFR_RNDN); /* exact: 22 bits at most */
				if (mpfr_number_p(terms[i]) && !mpfr_zero_p(terms[i]))
					lead[i] = lead_exponent(x.x, least_in) + lead_exponent(y.x, least_in);
			}
		}
		if (status == 0)
			status = fpref_ref_from_bits(output, cur, false, &acc);
		if (status != 0)
			break;
		if (mpfr_number_p(acc.x) && !mpfr_zero_p(acc.x))
			lead[len] = lead_exponent(acc.x, -126); /* the accumulator enters as an FP32 */
		bool special = false, nan = false;
		for (size_t i = 0; i < len; i++)
			special = special || !mpfr_number_p(terms[i]);
		long count = (long)len;
		if (special && scales) /* a NaN scale wins over special products: check the scales alone */
			for (size_t i = 0; i < len && status == 0; i++) {
				long l;
				status = read_scale(scales->format, scales->a[(k + i) / scales->every], &x, &l) |
					 read_scale(scales->format, scales->b[(k + i) / scales->every], &y, &l);
				nan = nan || mpfr_nan_p(x.x) || mpfr_nan_p(y.x);
			}
		if (!special && (scales || m->group > 0))
			count = apply_scales(m, scales, k, len, terms, lead, counts, &nan);
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
					  m->group > 0 && !special ? counts : NULL);
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

int fpref_ref_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			    const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (S == 0 || fpref_tc_lowered(m, f32))
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t sums[3] = { 0, 0, 0 };
	unsigned flags = 0;
	int status = 0;
	for (size_t k = 0; k < K && status == 0; k += S) {
		status = fpref_ref_tc_dot(m, input, a + k, b + k, K - k < S ? K - k : S, 0, f32, &sums[1]);
		if (status == 0)
			status = fpref_ref_op(FPREF_OP_ADD, f32, sums, &env, 0, &sums[0], &flags);
	}
	sums[1] = c;
	if (status == 0)
		status = fpref_ref_op(FPREF_OP_ADD, f32, sums, &env, 0, d, &flags);
	return status ? -1 : 0;
}

/* ---- a priori bounds ----
 * Every quantity below is nonnegative and every operation rounds upward,
 * so each running value is an upper bound of what it names. */
#define BOUND_PREC 64

struct running {
	mpfr_t err;   /* bound on |computed - exact| so far */
	mpfr_t mag;   /* bound on |computed| so far */
};

static void running_init(struct running *r, mpfr_srcptr start)
{
	mpfr_init2(r->err, BOUND_PREC);
	mpfr_init2(r->mag, BOUND_PREC);
	mpfr_set_zero(r->err, 1);
	mpfr_abs(r->mag, start, MPFR_RNDU);
}

static void running_clear(struct running *r)
{
	mpfr_clear(r->err);
	mpfr_clear(r->mag);
}

/* One rounding of a value whose magnitude is at most t (that is, x with
 * |x| <= t): adds u*t + eta to err and sets *mag to t*(1+u) + eta. */
static void rounding_step(mpfr_ptr err, mpfr_ptr mag, mpfr_srcptr t, long log2_u, long log2_eta)
{
	mpfr_t e;
	mpfr_init2(e, BOUND_PREC);
	mpfr_mul_2si(e, t, log2_u, MPFR_RNDU);
	mpfr_add(err, err, e, MPFR_RNDU);
	mpfr_add(mag, t, e, MPFR_RNDU);
	mpfr_set_ui_2exp(e, 1, log2_eta, MPFR_RNDU);
	mpfr_add(err, err, e, MPFR_RNDU);
	mpfr_add(mag, mag, e, MPFR_RNDU);
	mpfr_clear(e);
}

static long log2_unit_roundoff(int precision, enum fpref_rounding r)
{
	return r == FPREF_RNE || r == FPREF_RNA ? -precision : 1 - precision;
}

/* The absolute error a rounding can add in the subnormal range: the least
 * subnormal's place (or the least normal under ftz). */
static long log2_underflow(const struct fpref_format *f, bool ftz)
{
	return least_normal_exponent(f) - (ftz || f->subnormals == false ? 0 : f->man_bits);
}

static bool beyond_max(const struct fpref_format *f, mpfr_srcptr x)
{
	struct fpref_unpacked u;
	fpref_format_max_finite(f, &u);
	mpfr_t max;
	mpfr_init2(max, 72);
	mpfr_set_ui_2exp(max, (unsigned long)u.significand, u.exponent, MPFR_RNDN);
	bool beyond = mpfr_cmp(x, max) > 0;
	mpfr_clear(max);
	return beyond;
}

/* Exact inputs: 0, or 1 when some input is NaN or inf (no bound), -1 invalid. */
static int read_inputs(const struct fpref_format *in, const uint64_t *a, const uint64_t *b, size_t K, mpfr_t *abs_a,
		       mpfr_t *abs_b)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	int status = 0;
	for (size_t k = 0; k < 2 * K && status == 0; k++) {
		mpfr_ptr dst = k < K ? abs_a[k] : abs_b[k - K];
		if (fpref_ref_from_bits(in, k < K ? a[k] : b[k - K], false, &v) != 0)
			status = -1;
		else if (!mpfr_number_p(v.x))
			status = 1;
		else
			mpfr_abs(dst, v.x, MPFR_RNDN);
	}
	fpref_ref_value_clear(&v);
	return status;
}

static mpfr_t *new_values(size_t n)
{
	mpfr_t *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; v && i < n; i++)
		mpfr_init2(v[i], 64);
	return v;
}

static void free_values(mpfr_t *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		mpfr_clear(v[i]);
	free(v);
}

/* The inputs of a bound: |a_k|, |b_k| and c.  Status 0, 1 when some input
 * is NaN or inf (no bound), -1 for an invalid pattern or no memory. */
struct bound_inputs {
	mpfr_t *abs_a, *abs_b;
	size_t K;
	struct fpref_ref_value c;
};

static int bound_inputs_read(const struct fpref_format *in, const uint64_t *a, const uint64_t *b, size_t K,
			     const struct fpref_format *acc, uint64_t c, struct bound_inputs *bi)
{
	bi->K = K;
	bi->abs_a = new_values(K);
	bi->abs_b = new_values(K);
	fpref_ref_value_init(&bi->c);
	int status = !bi->abs_a || !bi->abs_b ? -1 : read_inputs(in, a, b, K, bi->abs_a, bi->abs_b);
	if (status == 0 && fpref_ref_from_bits(acc, c, false, &bi->c) != 0)
		status = -1;
	if (status == 0 && !mpfr_number_p(bi->c.x))
		status = 1;
	return status;
}

static void bound_inputs_clear(struct bound_inputs *bi)
{
	fpref_ref_value_clear(&bi->c);
	free_values(bi->abs_a, bi->K);
	free_values(bi->abs_b, bi->K);
}

/* The unit roundoff and underflow step of a block's one rounding (the
 * row's rounding to the output, narrowed to F bits when F is fewer). */
struct block_rounding {
	long log2_u, log2_eta;
};

static struct block_rounding block_rounding(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	struct fpref_env env;
	fpref_tc_model_env(m, output, &env);
	int target_man = m->frac < output->man_bits ? m->frac : output->man_bits;
	return (struct block_rounding){ log2_unit_roundoff(target_man + 1, env.rounding),
					least_normal_exponent(output) - target_man };
}

/* X = 2^floor, the alignment's least place (0 without a floor). */
static void floor_place(mpfr_ptr X, const struct fpref_tc_model *m, const struct fpref_format *output)
{
	int floor = fpref_tc_model_floor(m, output);
	if (floor == FPREF_TC_NO_FLOOR)
		mpfr_set_zero(X, 1);
	else
		mpfr_set_ui_2exp(X, 1, floor, MPFR_RNDU);
}

/* The accumulator's place in a block's alignment: X = max(X, max(|c|,
 * 2^-126)) with |c| <= r->mag (c enters as an FP32), unless c is exactly
 * zero (r->mag = 0), which no alignment sees.  Whether it may be nonzero. */
static bool acc_place(mpfr_ptr X, const struct running *r)
{
	if (mpfr_zero_p(r->mag))
		return false;
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_set_ui_2exp(t, 1, -126, MPFR_RNDU);
	mpfr_max(t, t, r->mag, MPFR_RNDU);
	mpfr_max(X, X, t, MPFR_RNDU);
	mpfr_clear(t);
	return true;
}

/* The chain of blocks from an accumulator bounded by r->mag (exactly zero
 * when that is 0): the recurrence of docs/accumulation.md. */
static void tc_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *input,
			   const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t K,
			   struct running *r)
{
	struct block_rounding br = block_rounding(m, output);
	long least_in = least_normal_exponent(input);
	mpfr_t X, q, p, tau, unit, t, S;
	mpfr_inits2(BOUND_PREC, X, q, p, tau, unit, t, S, (mpfr_ptr)0);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		/* X bounds 2^E: the floor, each product's alignment place, the accumulator's */
		floor_place(X, m, output);
		mpfr_set_zero(S, 1);
		for (size_t i = k; i < k + len; i++) {
			if (mpfr_zero_p(abs_a[i]) || mpfr_zero_p(abs_b[i]))
				continue;
			mpfr_set_ui_2exp(t, 1, least_in, MPFR_RNDU);
			mpfr_max(q, abs_a[i], t, MPFR_RNDU);
			mpfr_max(t, abs_b[i], t, MPFR_RNDU);
			mpfr_mul(q, q, t, MPFR_RNDU);
			if (w) /* E8M0 scales move the product's place by their exponents: exact */
				mpfr_mul(q, q, w[i], MPFR_RNDU);
			mpfr_max(X, X, q, MPFR_RNDU);
		}
		bool acc_nonzero = acc_place(X, r);
		mpfr_mul_2si(unit, X, -m->frac, MPFR_RNDU); /* a term loses less than 2^(E-F), and never more than itself */
		mpfr_set_zero(tau, 1);
		for (size_t i = k; i < k + len; i++) {
			mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
			if (w)
				mpfr_mul(p, p, w[i], MPFR_RNDU);
			mpfr_add(S, S, p, MPFR_RNDU);
			if (!mpfr_zero_p(p)) {
				mpfr_min(t, p, unit, MPFR_RNDU);
				mpfr_add(tau, tau, t, MPFR_RNDU);
			}
		}
		if (acc_nonzero) {
			mpfr_min(t, r->mag, unit, MPFR_RNDU);
			mpfr_add(tau, tau, t, MPFR_RNDU);
		}
		/* truncation never raises a magnitude: the truncated sum is at most
		 * |acc| + S, then one rounding */
		mpfr_add(t, r->mag, S, MPFR_RNDU);
		mpfr_add(r->err, r->err, tau, MPFR_RNDU);
		rounding_step(r->err, r->mag, t, br.log2_u, br.log2_eta);
	}
	mpfr_clears(X, q, p, tau, unit, t, S, (mpfr_ptr)0);
}

/* The bound of a product's place: max(|a|, 2^emin) * max(|b|, 2^emin)
 * times its scales (w, NULL: 1) bounds 2^(e(a) + e(b)), the place the
 * engines align it at (a subnormal at the least normal exponent). */
static void place_bound(mpfr_ptr q, mpfr_srcptr x, mpfr_srcptr y, mpfr_srcptr w, long least_in)
{
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_set_ui_2exp(t, 1, least_in, MPFR_RNDU);
	mpfr_max(q, x, t, MPFR_RNDU);
	mpfr_max(t, y, t, MPFR_RNDU);
	mpfr_mul(q, q, t, MPFR_RNDU);
	if (w)
		mpfr_mul(q, q, w, MPFR_RNDU);
	mpfr_clear(t);
}

/* u * t + eta added to err, with t the bound of a quantity that a floor
 * (toward -inf) moves by less than `unit`: err += unit, t += unit. */
static void floor_step(mpfr_ptr err, mpfr_ptr t, mpfr_srcptr unit)
{
	mpfr_add(err, err, unit, MPFR_RNDU);
	mpfr_add(t, t, unit, MPFR_RNDU);
}

/* AMD's two-stage dot-add (sum_frac > 0), per block of n products and the
 * accumulator (|c| <= r->mag), with Q = max over the block's nonzero
 * products of their place bounds (place_bound: 2^E1 <= Q) and
 * X2 = max(Q, max(r->mag, 2^-126)) (2^E2 <= X2; C's term only when it may
 * be nonzero):
 *  - each product, truncated toward zero F bits below its part's largest
 *    place (<= E1), loses min(|p|, 2^-F Q), and no magnitude grows;
 *  - with more than one part, each nonempty part's sum floored F bits
 *    below E1 moves by less than 2^-F Q (magnitudes may grow by as much);
 *  - the sum floored sum_frac bits below E2 moves by less than
 *    2^-sum_frac X2; C floored c_frac bits below E2 by less than
 *    2^-c_frac X2, or, dropped (its place below E2 - c_drop), by
 *    |C| < 2^-c_drop X2;
 *  - the total T, |T| <= r->mag + S + the floors' moves, rounded once to
 *    FP32: u |T| + eta.
 * So err_j = err_{j-1} + (truncations) + (floors) + u |T| + eta and
 * mag_j = |T| (1 + u) + eta, as tc_chain_bound's recurrence. */
static void two_stage_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *input,
				  const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t K,
				  struct running *r)
{
	struct block_rounding br = block_rounding(m, output);
	long least_in = least_normal_exponent(input);
	size_t parts = m->halves > 1 ? (size_t)m->halves : 1;
	mpfr_t Q, X2, q, p, unit, t, T;
	mpfr_inits2(BOUND_PREC, Q, X2, q, p, unit, t, T, (mpfr_ptr)0);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block, nonempty = 0;
		bool part_used[FPREF_TC_MAX_BLOCK] = { false };
		mpfr_set_zero(Q, 1);
		for (size_t i = k; i < k + len; i++) {
			if (mpfr_zero_p(abs_a[i]) || mpfr_zero_p(abs_b[i]) || (w && mpfr_zero_p(w[i])))
				continue;
			place_bound(q, abs_a[i], abs_b[i], w ? w[i] : NULL, least_in);
			mpfr_max(Q, Q, q, MPFR_RNDU);
			if (!part_used[(i - k) % parts])
				nonempty++;
			part_used[(i - k) % parts] = true;
		}
		bool products = nonempty > 0;
		mpfr_set(X2, Q, MPFR_RNDU);
		bool acc_nonzero = acc_place(X2, r);
		/* stage 1: truncations (toward zero) of the products */
		mpfr_mul_2si(unit, Q, -m->frac, MPFR_RNDU);
		mpfr_set(T, r->mag, MPFR_RNDU);
		for (size_t i = k; i < k + len; i++) {
			mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
			if (w)
				mpfr_mul(p, p, w[i], MPFR_RNDU);
			mpfr_add(T, T, p, MPFR_RNDU);
			if (!mpfr_zero_p(p)) {
				mpfr_min(t, p, unit, MPFR_RNDU);
				mpfr_add(r->err, r->err, t, MPFR_RNDU);
			}
		}
		/* the parts floored below E1 */
		for (size_t h = 0; parts > 1 && h < nonempty; h++)
			floor_step(r->err, T, unit);
		/* stage 2: the sum floored below E2, and C floored or dropped */
		if (products) {
			mpfr_mul_2si(t, X2, -m->sum_frac, MPFR_RNDU);
			floor_step(r->err, T, t);
		}
		if (acc_nonzero) {
			int keep = m->c_drop > 0 && m->c_drop < m->c_frac ? m->c_drop : m->c_frac;
			mpfr_mul_2si(t, X2, -keep, MPFR_RNDU);
			floor_step(r->err, T, t);
		}
		rounding_step(r->err, r->mag, T, br.log2_u, br.log2_eta);
	}
	mpfr_clears(Q, X2, q, p, unit, t, T, (mpfr_ptr)0);
}

/* The group path (group > 0): each group's exact sum times its scales
 * (|G| <= w S_g, w the scales' product, 1 without scales) at the scales'
 * place (<= w), every group with nonzero scales counting for the
 * alignment E whatever its sum, C at its own: 2^E <= X = max(2^floor,
 * the w of those groups, max(r->mag, 2^-126)).  Each group term and C,
 * truncated toward zero F bits below E, loses min(|term|, 2^-F X); no
 * magnitude grows; then one rounding of |T| <= r->mag + sum w S_g. */
static void group_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *output, mpfr_t *abs_a,
			      mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	struct block_rounding br = block_rounding(m, output);
	size_t g = (size_t)m->group;
	mpfr_t X, G, p, unit, t, T, tau;
	mpfr_inits2(BOUND_PREC, X, G, p, unit, t, T, tau, (mpfr_ptr)0);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		floor_place(X, m, output);
		for (size_t k0 = k; k0 < k + len; k0 += g) {
			if (w && mpfr_zero_p(w[k0]))
				continue;
			if (w)
				mpfr_set(t, w[k0], MPFR_RNDU);
			else
				mpfr_set_ui(t, 1, MPFR_RNDU); /* unit scales: the place 0 */
			mpfr_max(X, X, t, MPFR_RNDU);
		}
		bool acc_nonzero = acc_place(X, r);
		mpfr_mul_2si(unit, X, -m->frac, MPFR_RNDU);
		mpfr_set(T, r->mag, MPFR_RNDU);
		mpfr_set_zero(tau, 1);
		for (size_t k0 = k; k0 < k + len; k0 += g) {
			mpfr_set_zero(G, 1);
			for (size_t i = k0; i < k + len && i < k0 + g; i++) {
				mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
				mpfr_add(G, G, p, MPFR_RNDU);
			}
			if (w)
				mpfr_mul(G, G, w[k0], MPFR_RNDU);
			mpfr_add(T, T, G, MPFR_RNDU);
			mpfr_min(t, G, unit, MPFR_RNDU);
			mpfr_add(tau, tau, t, MPFR_RNDU);
		}
		if (acc_nonzero) {
			mpfr_min(t, r->mag, unit, MPFR_RNDU);
			mpfr_add(tau, tau, t, MPFR_RNDU);
		}
		mpfr_add(r->err, r->err, tau, MPFR_RNDU);
		rounding_step(r->err, r->mag, T, br.log2_u, br.log2_eta);
	}
	mpfr_clears(X, G, p, unit, t, T, tau, (mpfr_ptr)0);
}

/* Plain orders' steps, shared with the CDNA1/2 path below. */
struct plain {
	long log2_u, log2_eta;
};
static void product_bound(const struct plain *pl, mpfr_srcptr x, mpfr_srcptr y, bool rounded, struct running *r);
static void add_bound(const struct plain *pl, struct running *r, const struct running *s);
static void pairwise_bound(const struct plain *pl, mpfr_t *abs_a, mpfr_t *abs_b, size_t n, struct running *r);

/* CDNA1/2 (tree > 0): FP32 operations in the engines' order (each group's
 * products, fma(a, b, 0), summed as the pairwise tree, then added to C),
 * each one rounding to nearest: u = 2^-24, eta = 2^-149.  CDNA2 (flush)
 * also flushes every subnormal result: such a result r (|r| < 2^-126)
 * becomes 0, so that operation's error is below 2^-126: eta = 2^-126
 * there (rounding_step's eta bounds the error of an operation whose result
 * underflows).  A subnormal input read as +0 drops its product: error
 * |a b|, computed 0; a subnormal C read as +0: error |c|, C = 0. */
static void tree_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *input, mpfr_t *abs_a,
			     mpfr_t *abs_b, size_t K, struct running *r)
{
	struct plain pl = { -24, m->flush ? -126 : -149 };
	mpfr_t tiny, p, zero;
	mpfr_inits2(BOUND_PREC, tiny, p, zero, (mpfr_ptr)0);
	mpfr_set_zero(zero, 1);
	mpfr_set_ui_2exp(tiny, 1, least_normal_exponent(input), MPFR_RNDN);
	if (m->flush && mpfr_cmp_ui_2exp(r->mag, 1, -126) < 0) { /* C read as +0 */
		mpfr_add(r->err, r->err, r->mag, MPFR_RNDU);
		mpfr_set_zero(r->mag, 1);
	}
	mpfr_t *x = new_values((size_t)m->block), *y = new_values((size_t)m->block);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		for (size_t i = 0; i < len; i++) {
			mpfr_set(x[i], abs_a[k + i], MPFR_RNDN);
			mpfr_set(y[i], abs_b[k + i], MPFR_RNDN);
			if (m->flush && (mpfr_cmp(x[i], tiny) < 0 || mpfr_cmp(y[i], tiny) < 0)) {
				mpfr_mul(p, x[i], y[i], MPFR_RNDU);
				mpfr_add(r->err, r->err, p, MPFR_RNDU);
				mpfr_set_zero(x[i], 1);
			}
		}
		struct running group;
		running_init(&group, zero);
		pairwise_bound(&pl, x, y, len, &group);
		add_bound(&pl, r, &group);
		running_clear(&group);
	}
	free_values(x, (size_t)m->block);
	free_values(y, (size_t)m->block);
	mpfr_clears(tiny, p, zero, (mpfr_ptr)0);
}

/* The native chain of any path, from the accumulator bounded by r->mag. */
static void chain_bound(const struct fpref_tc_model *m, const struct fpref_format *input,
			const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t K,
			struct running *r)
{
	if (m->tree > 0)
		tree_chain_bound(m, input, abs_a, abs_b, K, r);
	else if (m->sum_frac > 0)
		two_stage_chain_bound(m, input, output, abs_a, abs_b, w, K, r);
	else if (m->group > 0)
		group_chain_bound(m, output, abs_a, abs_b, w, K, r);
	else
		tc_chain_bound(m, input, output, abs_a, abs_b, w, K, r);
}

/* The lowered path: per instruction, the lane groups chained from zero
 * through the FP16 unit's block model, then one addition of the
 * accumulator in the output format. */
static void lowered_bound(const struct fpref_tc_model *m, mpfr_t *abs_a, mpfr_t *abs_b, size_t K,
			  const struct fpref_format *output, struct running *acc)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	size_t L = (size_t)m->lowered_k, groups = L / (size_t)inner->block, lanes = (size_t)m->interleave;
	long log2_u = -(long)output->man_bits - 1, log2_eta = least_normal_exponent(output) - (long)output->man_bits;
	mpfr_t *x = new_values(L), *y = new_values(L), zero, t;
	mpfr_init2(zero, 8);
	mpfr_init2(t, BOUND_PREC);
	mpfr_set_zero(zero, 1);
	for (size_t k0 = 0; k0 < K; k0 += L) {
		struct running part;
		running_init(&part, zero);
		for (size_t h = 0; h < groups; h++) {
			size_t n = 0;
			for (size_t k = k0; k < K && k < k0 + L; k++)
				if (((k - k0) / lanes) % groups == h) {
					mpfr_set(x[n], abs_a[k], MPFR_RNDN);
					mpfr_set(y[n++], abs_b[k], MPFR_RNDN);
				}
			tc_chain_bound(inner, f16, output, x, y, NULL, n, &part);
		}
		mpfr_add(acc->err, acc->err, part.err, MPFR_RNDU);
		mpfr_add(t, acc->mag, part.mag, MPFR_RNDU);
		rounding_step(acc->err, acc->mag, t, log2_u, log2_eta); /* the addition of C */
		running_clear(&part);
	}
	mpfr_clear(zero);
	mpfr_clear(t);
	free_values(x, L);
	free_values(y, L);
}

static void finish_bound(const struct fpref_format *out, const struct running *r, mpfr_ptr bound)
{
	if (beyond_max(out, r->mag))
		mpfr_set_inf(bound, 1); /* the result may overflow: no finite bound */
	else
		mpfr_set(bound, r->err, MPFR_RNDU);
}

/* Each product's scale factor (its chunk's sa * sb, exact), or NULL
 * without scales; *status 1 when a scale is NaN (no bound), -1 for a bad
 * pattern or no memory. */
static mpfr_t *scale_weights(const struct fpref_tc_scales *sc, size_t K, int *status)
{
	if (!sc)
		return NULL;
	mpfr_t *w = new_values(K);
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	long lead;
	for (size_t k = 0; w && k < K && *status == 0; k++) {
		if (read_scale(sc->format, sc->a[k / sc->every], &x, &lead) != 0 ||
		    read_scale(sc->format, sc->b[k / sc->every], &y, &lead) != 0)
			*status = -1;
		else if (mpfr_nan_p(x.x) || mpfr_nan_p(y.x))
			*status = 1;
		else
			mpfr_mul(w[k], x.x, y.x, MPFR_RNDN); /* exact: 8 significant bits at most */
	}
	if (!w)
		*status = -1;
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return w;
}

int fpref_ref_dot_value_scaled(const struct fpref_format *in, const uint64_t *a, const uint64_t *b, size_t K,
			       const struct fpref_tc_scales *scales, uint64_t c, const struct fpref_format *acc,
			       mpfr_ptr exact)
{
	if (!scales)
		return fpref_ref_dot_value(in, a, b, K, c, acc, exact);
	int scale_status = 0, status = 0;
	mpfr_t *w = scale_weights(scales, K, &scale_status);
	mpfr_t *terms = malloc((K + 1) * sizeof *terms);
	mpfr_ptr *refs = malloc((K + 1) * sizeof *refs);
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	size_t n = 0;
	mpfr_exp_t top = MPFR_EMIN_MIN, bottom = MPFR_EMAX_MAX;
	if (scale_status < 0 || !terms || !refs)
		status = -1;
	/* each term exact: two significands of at most 64 bits and a weight of at most 8 */
	const mpfr_prec_t prec = 3 * 64;
	for (size_t k = 0; k <= K && status == 0; k++, n++) {
		bool is_c = k == K;
		mpfr_init2(terms[k], prec);
		refs[k] = terms[k];
		if (fpref_ref_from_bits(is_c ? acc : in, is_c ? c : a[k], false, &x) != 0 ||
		    (!is_c && fpref_ref_from_bits(in, b[k], false, &y) != 0)) {
			status = -1;
			n++;
			break;
		}
		if (is_c)
			mpfr_set(terms[k], x.x, MPFR_RNDN);
		else {
			mpfr_mul(terms[k], x.x, y.x, MPFR_RNDN);
			if (scale_status == 0)
				mpfr_mul(terms[k], terms[k], w[k], MPFR_RNDN);
		}
		if (mpfr_regular_p(terms[k])) {
			mpfr_exp_t e = mpfr_get_exp(terms[k]);
			top = e > top ? e : top;
			bottom = e - prec < bottom ? e - prec : bottom;
		}
	}
	if (status == 0 && scale_status == 1)
		mpfr_set_nan(exact); /* a NaN scale: the products it scales are NaN */
	else if (status == 0) {
		mpfr_set_prec(exact, top > bottom ? (mpfr_prec_t)(top - bottom) + 72 : 64);
		mpfr_sum(exact, refs, (unsigned long)n, MPFR_RNDN);
	}
	for (size_t k = 0; k < n; k++)
		mpfr_clear(terms[k]);
	free(terms);
	free(refs);
	if (w)
		free_values(w, K);
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return status;
}

/* acc = fl32(acc + part) (rne): part's error carried, one rounding. */
static void fp32_add_bound(struct running *acc, const struct running *part)
{
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_add(acc->err, acc->err, part->err, MPFR_RNDU);
	mpfr_add(t, acc->mag, part->mag, MPFR_RNDU);
	rounding_step(acc->err, acc->mag, t, -24, -149);
	mpfr_clear(t);
}

int fpref_ref_tc_bound_scaled(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			      const uint64_t *b, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			      const struct fpref_format *output, size_t nc, mpfr_ptr bound)
{
	if (!fpref_tc_output_ok(m, input, output) || !fpref_tc_input_ok(input) || !fpref_tc_scales_ok(m, scales) ||
	    (nc && (!fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_tc_lowered(m, output) || m->tree > 0 ||
		    scales)) ||
	    (scales && fpref_tc_lowered(m, output)) ||
	    (fpref_tc_lowered(m, output) && !fpref_tc_model_lowered_blocks(m)))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(input, a, b, K, output, c, &bi);
	mpfr_t *abs_a = bi.abs_a, *abs_b = bi.abs_b, *w = status == 0 ? scale_weights(scales, K, &status) : NULL;
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct running acc;
		running_init(&acc, bi.c.x);
		if (fpref_tc_lowered(m, output))
			lowered_bound(m, abs_a, abs_b, K, output, &acc);
		else if (nc == 0)
			chain_bound(m, input, output, abs_a, abs_b, w, K, &acc);
		else {
			/* each chunk from zero, then acc = fma(1, partial, acc) in FP32, rne */
			for (size_t k = 0; k < K; k += nc) {
				struct running part;
				mpfr_t zero;
				mpfr_init2(zero, 8);
				mpfr_set_zero(zero, 1);
				running_init(&part, zero);
				chain_bound(m, input, output, abs_a + k, abs_b + k, NULL, K - k < nc ? K - k : nc, &part);
				fp32_add_bound(&acc, &part);
				running_clear(&part);
				mpfr_clear(zero);
			}
		}
		finish_bound(output, &acc, bound);
		running_clear(&acc);
	}
	if (w)
		free_values(w, K);
	bound_inputs_clear(&bi);
	return status < 0 ? -1 : 0;
}

int fpref_ref_tc_bound(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		       const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, size_t nc,
		       mpfr_ptr bound)
{
	return fpref_ref_tc_bound_scaled(m, input, a, b, K, NULL, c, output, nc, bound);
}

/* cuBLASLt's split-K (fpref_emu_tc_dot_splitk): each slice's chain from
 * zero (FP32 output), the slices added in K order by FP32 additions from
 * zero, then C by one more: each addition one rounding of the sum of its
 * operands' bounds, as promotion's. */
int fpref_ref_tc_bound_splitk(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			      const uint64_t *b, size_t K, size_t S, uint64_t c, mpfr_ptr bound)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (S == 0 || !fpref_tc_output_ok(m, input, f32) || !fpref_tc_input_ok(input) || fpref_tc_lowered(m, f32))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(input, a, b, K, f32, c, &bi);
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		mpfr_t zero;
		mpfr_init2(zero, 8);
		mpfr_set_zero(zero, 1);
		struct running sum, part, cterm;
		running_init(&sum, zero);
		for (size_t k = 0; k < K; k += S) {
			running_init(&part, zero);
			chain_bound(m, input, f32, bi.abs_a + k, bi.abs_b + k, NULL, K - k < S ? K - k : S, &part);
			fp32_add_bound(&sum, &part);
			running_clear(&part);
		}
		running_init(&cterm, bi.c.x); /* C: exact, no error of its own */
		fp32_add_bound(&sum, &cterm);
		finish_bound(f32, &sum, bound);
		running_clear(&cterm);
		running_clear(&sum);
		mpfr_clear(zero);
	}
	bound_inputs_clear(&bi);
	return status < 0 ? -1 : 0;
}

/* Plain orders: a product rounded to the accumulator (none in the fma
 * chain), then additions, each one rounding (struct plain above). */

static void product_bound(const struct plain *pl, mpfr_srcptr x, mpfr_srcptr y, bool rounded, struct running *r)
{
	mpfr_set_zero(r->err, 1);
	mpfr_mul(r->mag, x, y, MPFR_RNDU);
	if (rounded && !mpfr_zero_p(r->mag)) {
		mpfr_t t;
		mpfr_init2(t, BOUND_PREC);
		mpfr_set(t, r->mag, MPFR_RNDU);
		rounding_step(r->err, r->mag, t, pl->log2_u, pl->log2_eta);
		mpfr_clear(t);
	}
}

/* r = fl(r + s) */
static void add_bound(const struct plain *pl, struct running *r, const struct running *s)
{
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_add(r->err, r->err, s->err, MPFR_RNDU);
	mpfr_add(t, r->mag, s->mag, MPFR_RNDU);
	rounding_step(r->err, r->mag, t, pl->log2_u, pl->log2_eta);
	mpfr_clear(t);
}

static void pairwise_bound(const struct plain *pl, mpfr_t *abs_a, mpfr_t *abs_b, size_t n, struct running *r)
{
	if (n == 1) {
		product_bound(pl, abs_a[0], abs_b[0], true, r);
		return;
	}
	struct running right;
	running_init(&right, r->mag);
	pairwise_bound(pl, abs_a, abs_b, n / 2, r);
	pairwise_bound(pl, abs_a + n / 2, abs_b + n / 2, n - n / 2, &right);
	add_bound(pl, r, &right);
	running_clear(&right);
}

int fpref_ref_sum_bound(enum fpref_sum_order order, size_t block, const struct fpref_format *in, const uint64_t *a,
			const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			const struct fpref_env *env, mpfr_ptr bound)
{
	if (acc->man_bits > FPREF_OP_MAX_MAN_BITS || (order == FPREF_SUM_BLOCKED && block == 0))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(in, a, b, K, acc, c, &bi);
	mpfr_t *abs_a = bi.abs_a, *abs_b = bi.abs_b;
	/* the bound assumes inputs the accumulator holds (no conversion error),
	 * no flushing of inputs, and no compensation (Kahan has none here) */
	uint64_t held_bits;
	for (size_t k = 0; k < 2 * K && status == 0; k++)
		if (!fpref_ref_held(acc, k < K ? abs_a[k] : abs_b[k - K], &held_bits))
			status = 1;
	if (status == 0 && (env->daz || order == FPREF_SUM_KAHAN))
		status = 1;
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct plain pl = { log2_unit_roundoff(acc->man_bits + 1, env->rounding), log2_underflow(acc, env->ftz) };
		struct running s, p;
		running_init(&s, bi.c.x);
		running_init(&p, bi.c.x);
		if (order == FPREF_SUM_PAIRWISE && K > 0) {
			pairwise_bound(&pl, abs_a, abs_b, K, &p);
			add_bound(&pl, &s, &p);
		} else if (order == FPREF_SUM_BLOCKED) {
			for (size_t k = 0; k < K; k += block) {
				product_bound(&pl, abs_a[k], abs_b[k], true, &p);
				struct running q;
				running_init(&q, bi.c.x);
				for (size_t j = k + 1; j < K && j < k + block; j++) {
					product_bound(&pl, abs_a[j], abs_b[j], true, &q);
					add_bound(&pl, &p, &q);
				}
				running_clear(&q);
				add_bound(&pl, &s, &p);
			}
		} else if (order == FPREF_SUM_RECURSIVE || order == FPREF_SUM_FMA_CHAIN) {
			for (size_t k = 0; k < K; k++) {
				product_bound(&pl, abs_a[k], abs_b[k], order == FPREF_SUM_RECURSIVE, &p);
				add_bound(&pl, &s, &p); /* the fma's one rounding */
			}
		}
		finish_bound(acc, &s, bound);
		running_clear(&s);
		running_clear(&p);
	}
	bound_inputs_clear(&bi);
	return status < 0 ? -1 : 0;
}
