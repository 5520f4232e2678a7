/* The a priori error bounds of every accumulation: the tensor-core
 * models' paths (block model, two-stage, group, CDNA1/2 tree, lowered,
 * chunked promotion, split-K) and the plain orders, evaluated in MPFR
 * rounding upward so that each is a true upper bound
 * (docs/accumulation.md).  Apart from the model paths (ref/tc_dot.c):
 * a bound reads only the inputs, never a computed result. */
#include <limits.h>
#include <stdlib.h>

#include "fpref_ref_exact.h"
#include "tc_oracle.h"

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
	MPFR_DECL_INIT(e, BOUND_PREC); /* on the stack: a step per block, no allocation */
	mpfr_mul_2si(e, t, log2_u, MPFR_RNDU);
	mpfr_add(err, err, e, MPFR_RNDU);
	mpfr_add(mag, t, e, MPFR_RNDU);
	mpfr_set_ui_2exp(e, 1, log2_eta, MPFR_RNDU);
	mpfr_add(err, err, e, MPFR_RNDU);
	mpfr_add(mag, mag, e, MPFR_RNDU);
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

/* Exact inputs, a_k of in_a and b_k of in_b: 0, or 1 when some input is
 * NaN or inf (no bound), -1 invalid. */
static int read_inputs(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
		       const uint64_t *b, size_t K, mpfr_t *abs_a, mpfr_t *abs_b)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	int status = 0;
	for (size_t k = 0; k < 2 * K && status == 0; k++) {
		mpfr_ptr dst = k < K ? abs_a[k] : abs_b[k - K];
		if (fpref_ref_from_bits(k < K ? in_a : in_b, k < K ? a[k] : b[k - K], false, &v) != 0)
			status = -1;
		else if (!mpfr_number_p(v.x))
			status = 1;
		else
			mpfr_abs(dst, v.x, MPFR_RNDN);
	}
	fpref_ref_value_clear(&v);
	return status;
}

/* The inputs of a bound: |a_k|, |b_k| and c.  Status 0, 1 when some input
 * is NaN or inf (no bound), -1 for an invalid pattern or no memory. */
struct bound_inputs {
	mpfr_t *abs_a, *abs_b;
	size_t K;
	struct fpref_ref_value c;
};

static int bound_inputs_read(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			     const uint64_t *b, size_t K, const struct fpref_format *acc, uint64_t c,
			     struct bound_inputs *bi)
{
	bi->K = K;
	bi->abs_a = new_values(K);
	bi->abs_b = new_values(K);
	fpref_ref_value_init(&bi->c);
	int status = !bi->abs_a || !bi->abs_b ? -1 : read_inputs(in_a, in_b, a, b, K, bi->abs_a, bi->abs_b);
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
	MPFR_DECL_INIT(t, BOUND_PREC);
	mpfr_set_ui_2exp(t, 1, -126, MPFR_RNDU);
	mpfr_max(t, t, r->mag, MPFR_RNDU);
	mpfr_max(X, X, t, MPFR_RNDU);
	return true;
}

/* The chain of blocks from an accumulator bounded by r->mag (exactly zero
 * when that is 0): the recurrence of docs/accumulation.md. */
/* The bound of a product's place: max(|a|, 2^emin_a) * max(|b|, 2^emin_b)
 * times its scales (w, NULL: 1) bounds 2^(e(a) + e(b)), the place the
 * engines align it at (a subnormal at its own format's least normal
 * exponent: emin_a for A, emin_b for B). */
static void place_bound(mpfr_ptr q, mpfr_srcptr x, mpfr_srcptr y, mpfr_srcptr w, long least_a, long least_b)
{
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_set_ui_2exp(t, 1, least_a, MPFR_RNDU);
	mpfr_max(q, x, t, MPFR_RNDU);
	mpfr_set_ui_2exp(t, 1, least_b, MPFR_RNDU);
	mpfr_max(t, y, t, MPFR_RNDU);
	mpfr_mul(q, q, t, MPFR_RNDU);
	if (w)
		mpfr_mul(q, q, w, MPFR_RNDU);
	mpfr_clear(t);
}

/* The end of a block of the chain, from the block's unit 2^-F X and its
 * sums S (of its products) and tau (of each nonzero product's truncation
 * loss, min(p, unit)): the accumulator's loss (when it may be nonzero,
 * as acc_place says), then one rounding. */
static void tc_chain_block_end(struct block_rounding br, mpfr_srcptr unit, mpfr_ptr S, mpfr_ptr tau, mpfr_ptr t,
			       struct running *r)
{
	if (!mpfr_zero_p(r->mag)) {
		mpfr_min(t, r->mag, unit, MPFR_RNDU);
		mpfr_add(tau, tau, t, MPFR_RNDU);
	}
	/* truncation never raises a magnitude: the truncated sum is at most
	 * |acc| + S, then one rounding */
	mpfr_add(t, r->mag, S, MPFR_RNDU);
	mpfr_add(r->err, r->err, tau, MPFR_RNDU);
	rounding_step(r->err, r->mag, t, br.log2_u, br.log2_eta);
}

/* One block of len products (abs_a, abs_b, w from the block's first). */
static void tc_chain_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a, long least_b,
			   const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t len,
			   struct running *r, mpfr_t *tmp)
{
	mpfr_ptr X = tmp[0], q = tmp[1], p = tmp[2], tau = tmp[3], unit = tmp[4], t = tmp[5], S = tmp[6];
	/* X bounds 2^E: the floor, each product's alignment place, the accumulator's */
	floor_place(X, m, output);
	mpfr_set_zero(S, 1);
	for (size_t i = 0; i < len; i++) {
		if (mpfr_zero_p(abs_a[i]) || mpfr_zero_p(abs_b[i]))
			continue;
		/* E8M0 scales move the product's place by their exponents: exact */
		place_bound(q, abs_a[i], abs_b[i], w ? w[i] : NULL, least_a, least_b);
		mpfr_max(X, X, q, MPFR_RNDU);
	}
	acc_place(X, r);
	mpfr_mul_2si(unit, X, -m->frac, MPFR_RNDU); /* a term loses less than 2^(E-F), and never more than itself */
	mpfr_set_zero(tau, 1);
	for (size_t i = 0; i < len; i++) {
		mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
		if (w)
			mpfr_mul(p, p, w[i], MPFR_RNDU);
		mpfr_add(S, S, p, MPFR_RNDU);
		if (!mpfr_zero_p(p)) {
			mpfr_min(t, p, unit, MPFR_RNDU);
			mpfr_add(tau, tau, t, MPFR_RNDU);
		}
	}
	tc_chain_block_end(br, unit, S, tau, t, r);
}

static void tc_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const struct fpref_format *output, mpfr_t *abs_a,
			   mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	struct block_rounding br = block_rounding(m, output);
	long least_a = least_normal_exponent(in_a), least_b = least_normal_exponent(in_b);
	mpfr_t tmp[7];
	for (int i = 0; i < 7; i++)
		mpfr_init2(tmp[i], BOUND_PREC);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		tc_chain_block(m, br, least_a, least_b, output, abs_a + k, abs_b + k, w ? w + k : NULL, len, r, tmp);
	}
	for (int i = 0; i < 7; i++)
		mpfr_clear(tmp[i]);
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
/* The end of a two-stage block, after stage 1 (T bounds the truncated
 * products and C, r->err has their losses): the parts floored below E1,
 * the sum floored below E2, C floored or dropped, one rounding. */
static void two_stage_block_end(const struct fpref_tc_model *m, struct block_rounding br, mpfr_srcptr X2,
				mpfr_srcptr unit, mpfr_ptr T, mpfr_ptr t, size_t nonempty, bool acc_nonzero,
				struct running *r)
{
	size_t parts = m->halves > 1 ? (size_t)m->halves : 1;
	for (size_t h = 0; parts > 1 && h < nonempty; h++)
		floor_step(r->err, T, unit);
	if (nonempty > 0) {
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

/* One block of the two-stage chain: len products (abs_a, abs_b, w from
 * the block's first), tmp seven BOUND_PREC temporaries. */
static void two_stage_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a, long least_b,
			    mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t len, struct running *r, mpfr_t *tmp)
{
	size_t parts = m->halves > 1 ? (size_t)m->halves : 1, nonempty = 0;
	mpfr_ptr Q = tmp[0], X2 = tmp[1], q = tmp[2], p = tmp[3], unit = tmp[4], t = tmp[5], T = tmp[6];
	bool part_used[FPREF_TC_MAX_BLOCK] = { false };
	mpfr_set_zero(Q, 1);
	for (size_t i = 0; i < len; i++) {
		if (mpfr_zero_p(abs_a[i]) || mpfr_zero_p(abs_b[i]) || (w && mpfr_zero_p(w[i])))
			continue;
		place_bound(q, abs_a[i], abs_b[i], w ? w[i] : NULL, least_a, least_b);
		mpfr_max(Q, Q, q, MPFR_RNDU);
		if (!part_used[i % parts])
			nonempty++;
		part_used[i % parts] = true;
	}
	mpfr_set(X2, Q, MPFR_RNDU);
	bool acc_nonzero = acc_place(X2, r);
	/* stage 1: truncations (toward zero) of the products */
	mpfr_mul_2si(unit, Q, -m->frac, MPFR_RNDU);
	mpfr_set(T, r->mag, MPFR_RNDU);
	for (size_t i = 0; i < len; i++) {
		mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
		if (w)
			mpfr_mul(p, p, w[i], MPFR_RNDU);
		mpfr_add(T, T, p, MPFR_RNDU);
		if (!mpfr_zero_p(p)) {
			mpfr_min(t, p, unit, MPFR_RNDU);
			mpfr_add(r->err, r->err, t, MPFR_RNDU);
		}
	}
	two_stage_block_end(m, br, X2, unit, T, t, nonempty, acc_nonzero, r);
}

static void two_stage_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
				  const struct fpref_format *in_b, const struct fpref_format *output, mpfr_t *abs_a,
				  mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	struct block_rounding br = block_rounding(m, output);
	long least_a = least_normal_exponent(in_a), least_b = least_normal_exponent(in_b);
	mpfr_t tmp[7];
	for (int i = 0; i < 7; i++)
		mpfr_init2(tmp[i], BOUND_PREC);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		two_stage_block(m, br, least_a, least_b, abs_a + k, abs_b + k, w ? w + k : NULL, len, r, tmp);
	}
	for (int i = 0; i < 7; i++)
		mpfr_clear(tmp[i]);
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
 * underflows).  A subnormal input (below its own format's least normal)
 * read as +0 drops its product: error |a b|, computed 0; a subnormal C read
 * as +0: error |c|, C = 0. */
static void tree_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			     const struct fpref_format *in_b, mpfr_t *abs_a, mpfr_t *abs_b, size_t K, struct running *r)
{
	struct plain pl = { -24, m->flush ? -126 : -149 };
	mpfr_t tiny_a, tiny_b, p, zero;
	mpfr_inits2(BOUND_PREC, tiny_a, tiny_b, p, zero, (mpfr_ptr)0);
	mpfr_set_zero(zero, 1);
	mpfr_set_ui_2exp(tiny_a, 1, least_normal_exponent(in_a), MPFR_RNDN);
	mpfr_set_ui_2exp(tiny_b, 1, least_normal_exponent(in_b), MPFR_RNDN);
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
			if (m->flush && (mpfr_cmp(x[i], tiny_a) < 0 || mpfr_cmp(y[i], tiny_b) < 0)) {
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
	mpfr_clears(tiny_a, tiny_b, p, zero, (mpfr_ptr)0);
}

/* The native chain of any path, from the accumulator bounded by r->mag. */
static void chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			const struct fpref_format *in_b, const struct fpref_format *output, mpfr_t *abs_a,
			mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	if (m->tree > 0)
		tree_chain_bound(m, in_a, in_b, abs_a, abs_b, K, r);
	else if (m->sum_frac > 0)
		two_stage_chain_bound(m, in_a, in_b, output, abs_a, abs_b, w, K, r);
	else if (m->group > 0)
		group_chain_bound(m, output, abs_a, abs_b, w, K, r);
	else
		tc_chain_bound(m, in_a, in_b, output, abs_a, abs_b, w, K, r);
}

/* The lowered path: per instruction, the lane groups chained from zero
 * through the FP16 unit's block model, then one addition of the
 * accumulator in the output format.  The operands' values are FP16 values
 * (the caller has checked that both formats convert to FP16 exactly). */
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
			tc_chain_bound(inner, f16, f16, output, x, y, NULL, n, &part);
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

/* Whether fpref_ref_tc_bound_scaled takes these arguments. */
static bool bound_args_ok(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			  const struct fpref_format *in_b, const struct fpref_tc_scales *scales,
			  const struct fpref_format *output, size_t nc)
{
	return !(!operands_ok(m, in_a, in_b, output) || !fpref_tc_scales_ok(m, scales) ||
		 (nc && (!fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_tc_lowered(m, output) || m->tree > 0 ||
			 scales)) ||
		 (scales && fpref_tc_lowered(m, output)) ||
		 (fpref_tc_lowered(m, output) &&
		  (!fpref_tc_model_lowered_blocks(m) || !exact_in_fp16(in_a) || !exact_in_fp16(in_b))));
}

int fpref_ref_tc_bound_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			      uint64_t c, const struct fpref_format *output, size_t nc, mpfr_ptr bound)
{
	if (!bound_args_ok(m, in_a, in_b, scales, output, nc))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(in_a, in_b, a, b, K, output, c, &bi);
	mpfr_t *abs_a = bi.abs_a, *abs_b = bi.abs_b,
	       *w = status == 0 ? fpref_ref_tc_scale_weights(scales, K, &status) : NULL;
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct running acc;
		running_init(&acc, bi.c.x);
		if (fpref_tc_lowered(m, output))
			lowered_bound(m, abs_a, abs_b, K, output, &acc);
		else if (nc == 0)
			chain_bound(m, in_a, in_b, output, abs_a, abs_b, w, K, &acc);
		else {
			/* each chunk from zero, then acc = fma(1, partial, acc) in FP32, rne */
			for (size_t k = 0; k < K; k += nc) {
				struct running part;
				mpfr_t zero;
				mpfr_init2(zero, 8);
				mpfr_set_zero(zero, 1);
				running_init(&part, zero);
				chain_bound(m, in_a, in_b, output, abs_a + k, abs_b + k, NULL, K - k < nc ? K - k : nc, &part);
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

int fpref_ref_tc_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		       const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		       size_t nc, mpfr_ptr bound)
{
	return fpref_ref_tc_bound_scaled(m, in_a, in_b, a, b, K, NULL, c, output, nc, bound);
}

/* cuBLASLt's split-K (fpref_emu_tc_dot_splitk): each slice's chain from
 * zero (FP32 output), the slices added in K order by FP32 additions from
 * zero, then C by one more: each addition one rounding of the sum of its
 * operands' bounds, as promotion's. */
int fpref_ref_tc_bound_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, mpfr_ptr bound)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (S == 0 || !operands_ok(m, in_a, in_b, f32) || fpref_tc_lowered(m, f32))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(in_a, in_b, a, b, K, f32, c, &bi);
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
			chain_bound(m, in_a, in_b, f32, bi.abs_a + k, bi.abs_b + k, NULL, K - k < S ? K - k : S, &part);
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

int fpref_ref_sum_bound(enum fpref_sum_order order, size_t block, const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			const struct fpref_env *env, mpfr_ptr bound)
{
	if (acc->man_bits > FPREF_OP_MAX_MAN_BITS || (order == FPREF_SUM_BLOCKED && block == 0))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(in_a, in_b, a, b, K, acc, c, &bi);
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

/* ---- the block model's bound from decoded operands ----
 * The same recurrence as tc_chain_bound, block by block, with each
 * block's per-product work in integers: over 2^base (the block's least
 * product place) each product and place bound is an integer, below 2^120
 * (else the block runs tc_chain_block in MPFR: a wide format's block
 * spread over too many binades), and the largest place bound, each
 * min(p, unit) and the sums S and tau come out of integer compares and
 * additions.  The sums are MPFR's: each of tc_chain_block's additions
 * rounds upward to BOUND_PREC bits, and up64_add below is that addition
 * (the least BOUND_PREC-bit number at or above the exact sum of two
 * nonnegative numbers), taken in the same order, so S and tau are the
 * same numbers bit for bit; tests/check_exact.c holds up64_add against
 * mpfr_add and this bound against fpref_ref_tc_bound_scaled.  The
 * per-block steps (the accumulator's place, the rounding step) stay
 * MPFR's, as in tc_chain_bound. */
typedef unsigned __int128 u128;

static int bitlen128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);
	return hi ? 128 - __builtin_clzll(hi) : v ? 64 - __builtin_clzll((uint64_t)v) : 0;
}

static int ctz128(u128 v)
{
	uint64_t lo = (uint64_t)v;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(v >> 64));
}

/* x = v 2^e, exactly: v has at most BOUND_PREC significant bits */
static void set_u128(mpfr_ptr x, u128 v, long e)
{
	if (!v) {
		mpfr_set_zero(x, 1);
		return;
	}
	int tz = ctz128(v);
	mpfr_set_uj_2exp(x, (uintmax_t)(v >> tz), e + tz, MPFR_RNDN);
}

/* A nonnegative BOUND_PREC-bit number m 2^e (m < 2^64, not normalised:
 * a sum of integers on one place stays on it, in one 64-bit addition). */
struct up64 {
	uint64_t m;
	long e;
};

/* 256 bits, least significant limb first */
static void put_bits(uint64_t w[5], u128 v, long at, bool *sticky)
{
	if (at < 0) { /* the bits below the window: only sticky */
		if (at <= -128) {
			*sticky = *sticky || v;
			return;
		}
		*sticky = *sticky || (v & (((u128)1 << -at) - 1));
		v >>= -at;
		at = 0;
	}
	for (int part = 0; part < 2; part++, at += 64) {
		uint64_t x = (uint64_t)(part ? v >> 64 : v);
		int limb = (int)(at / 64), off = (int)(at % 64);
		u128 add = (u128)x << off;
		for (int i = limb; add && i < 5; i++) {
			u128 sum = (u128)w[i] + (uint64_t)add;
			w[i] = (uint64_t)sum;
			add = (add >> 64) + (sum >> 64);
		}
	}
}

/* up64_add beyond its first cases: the 128-bit sum, or the wide window. */
static void up64_add_wide(struct up64 *x, u128 v, long ev)
{
	long d = ev - x->e;
	int bits = bitlen128(v);
	if (x->m && ((d >= 0 && d + bits <= 127) || (d < 0 && d >= -63 && bits <= 127))) {
		/* the exact sum in 128 bits at the lower of the two places, then
		 * its leading 64 bits, one more if any bit below them is set */
		u128 sum = d >= 0 ? (u128)x->m + (v << d) : ((u128)x->m << -d) + v;
		long e = d >= 0 ? x->e : ev;
		int over = bitlen128(sum) - 64;
		if (over > 0) {
			bool dropped = (sum & (((u128)1 << over) - 1)) != 0;
			sum >>= over;
			e += over;
			if (dropped && ++sum >> 64) {
				sum >>= 1;
				e++;
			}
		}
		x->m = (uint64_t)sum;
		x->e = e;
		return;
	}
	long top_v = ev + bits, top_x = x->m ? x->e + 64 - __builtin_clzll(x->m) : top_v;
	long T = top_v > top_x ? top_v : top_x, w0 = T - 250; /* the larger operand lies whole in [w0, T) */
	uint64_t w[5] = { 0, 0, 0, 0, 0 };
	bool sticky = false;
	if (x->m)
		put_bits(w, x->m, x->e - w0, &sticky);
	put_bits(w, v, ev - w0, &sticky);
	int top = 4;
	while (!w[top])
		top--;
	int t = top * 64 + 63 - __builtin_clzll(w[top]); /* the leading bit */
	int lo = t - 63;                                 /* the last kept bit */
	int limb = lo / 64, off = lo % 64;
	uint64_t m = w[limb] >> off | (off ? w[limb + 1] << (64 - off) : 0); /* bits lo .. t */
	for (int i = 0; i < lo / 64; i++)
		sticky = sticky || w[i];
	sticky = sticky || (lo % 64 && (w[lo / 64] & (((uint64_t)1 << (lo % 64)) - 1)));
	long e = w0 + lo;
	if (sticky && ++m == 0) {
		m = (uint64_t)1 << 63;
		e++;
	}
	x->m = m;
	x->e = e;
}

/* x += v 2^ev, rounded upward to BOUND_PREC bits (mpfr_add, MPFR_RNDU) */
static inline void up64_add(struct up64 *x, u128 v, long ev)
{
	if (!v)
		return;
	if (!x->m && !(v >> 64)) {
		x->m = (uint64_t)v;
		x->e = ev;
		return;
	}
	long d = ev - x->e;
	if (x->m && !(v >> 64) && d >= 0 && d < 64 && !((uint64_t)v >> (63 - d) >> 1)) {
		/* v on x's places within 64 bits: the sum, and on a carry out the
		 * one bit that falls off */
		uint64_t sum;
		if (!__builtin_add_overflow(x->m, (uint64_t)v << d, &sum)) {
			x->m = sum;
			return;
		}
		bool dropped = sum & 1;
		x->m = sum >> 1 | (uint64_t)1 << 63;
		x->e++;
		if (dropped && ++x->m == 0) {
			x->m = (uint64_t)1 << 63;
			x->e++;
		}
		return;
	}
	up64_add_wide(x, v, ev);
}

void fpref_ref_exact_add_up(uint64_t *m, long *e, uint64_t hi, uint64_t lo, long ev)
{
	struct up64 x = { *m, *e };
	up64_add(&x, (u128)hi << 64 | lo, ev);
	*m = x.m;
	*e = x.e;
}

struct decoded_chain {
	const struct fpref_tc_model *m;
	const struct fpref_format *output;
	const struct fpref_exact_format *xa, *xb;
	const struct fpref_exact_operand *a, *b;
	const long *we; /* each scale chunk's weight, 2^we (NULL: none) */
	size_t every;
	struct block_rounding br;
	long least_a, least_b;
	mpfr_t tmp[7];
	mpfr_t *va, *vb, *vw; /* a block's values for tc_chain_block, made on first need */
	mpfr_t *wv;           /* the group path: each scale chunk's weight sa sb (NULL: none) */
};

/* The block [k, k + len), as tc_chain_block computes it. */
/* max(|x|, 2^least) of one operand as sig 2^sh over 2^q, least = q + m */
static void place_factor(const struct fpref_exact_operand *x, int m, uint64_t *sig, int *sh)
{
	uint64_t s = (uint64_t)(x->sig < 0 ? -x->sig : x->sig);
	bool above = 64 - __builtin_clzll(s | 1) - 1 + x->shift >= m; /* floor(log2 |x|) >= m */
	*sig = above ? s : 1;
	*sh = above ? x->shift : m;
}

/* |a_i b_i| over 2^(qa + qb + low): below 2^120 once block_places has
 * passed the block. */
static u128 block_product(const struct decoded_chain *d, size_t i, int low)
{
	uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
		 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
	return fa && fb ? ((u128)fa * fb) << (d->a[i].shift + d->b[i].shift - low) : 0;
}

/* The block's least product place (low: a wide format's operands carry
 * shifts), 2^base that place with the block's scales, the largest place
 * bound max(|a|, 2^least_a) max(|b|, 2^least_b) over 2^base, and how many
 * of `parts` interleaved parts hold a nonzero product: false when a place
 * bound needs more than 120 bits (the block runs in MPFR). */
static bool block_places(const struct decoded_chain *d, size_t k, size_t len, size_t parts, int *low, long *base,
			 u128 *Qmax, size_t *nonempty)
{
	int ma = (int)(d->least_a - d->xa->q), mb = (int)(d->least_b - d->xb->q);
	bool used[FPREF_TC_MAX_BLOCK] = { false };
	if (d->xa->fixed && d->xb->fixed) { /* no shifts: every bound below 2^84 */
		uint64_t la = (uint64_t)1 << ma, lb = (uint64_t)1 << mb;
		*low = 0;
		*base = (long)d->xa->q + d->xb->q + (d->we ? d->we[k / d->every] : 0);
		*Qmax = 0;
		*nonempty = 0;
		for (size_t i = k; i < k + len; i++) {
			uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
				 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
			if (!fa || !fb)
				continue;
			u128 Q = (u128)(fa > la ? fa : la) * (fb > lb ? fb : lb);
			*Qmax = Q > *Qmax ? Q : *Qmax;
			*nonempty += !used[(i - k) % parts];
			used[(i - k) % parts] = true;
		}
		return true;
	}
	*low = INT_MAX;
	for (size_t i = k; i < k + len; i++)
		if (d->a[i].sig && d->b[i].sig && d->a[i].shift + d->b[i].shift < *low)
			*low = d->a[i].shift + d->b[i].shift;
	if (*low == INT_MAX)
		*low = 0;
	*base = (long)d->xa->q + d->xb->q + (d->we ? d->we[k / d->every] : 0) + *low;
	*Qmax = 0;
	*nonempty = 0;
	for (size_t i = k; i < k + len; i++) {
		if (!d->a[i].sig || !d->b[i].sig)
			continue;
		uint64_t sa, sb;
		int ha, hb;
		place_factor(&d->a[i], ma, &sa, &ha);
		place_factor(&d->b[i], mb, &sb, &hb);
		u128 Q = (u128)sa * sb;
		int sh = ha + hb - *low;
		if (bitlen128(Q) + sh > 120)
			return false;
		Q <<= sh;
		*Qmax = Q > *Qmax ? Q : *Qmax;
		*nonempty += !used[(i - k) % parts];
		used[(i - k) % parts] = true;
	}
	return true;
}

/* x (BOUND_PREC bits, nonnegative) as an up64 */
static struct up64 up64_of(mpfr_srcptr x, mpfr_ptr t)
{
	struct up64 u = { 0, 0 };
	if (!mpfr_zero_p(x)) {
		u.e = (long)mpfr_get_exp(x) - BOUND_PREC;
		mpfr_mul_2si(t, x, -u.e, MPFR_RNDN);
		u.m = (uint64_t)mpfr_get_uj(t, MPFR_RNDN); /* exact: BOUND_PREC bits */
	}
	return u;
}

/* The block [k, k + len), as tc_chain_block computes it: false (nothing
 * changed) when block_places says it is too wide. */
static bool integer_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr X = d->tmp[0], q = d->tmp[1], tau = d->tmp[3], unit = d->tmp[4], t = d->tmp[5], S = d->tmp[6];
	int low;
	long base;
	u128 Qmax;
	size_t nonempty;
	if (!block_places(d, k, len, 1, &low, &base, &Qmax, &nonempty))
		return false;
	floor_place(X, d->m, d->output);
	if (Qmax) {
		set_u128(q, Qmax, base);
		mpfr_max(X, X, q, MPFR_RNDU);
	}
	acc_place(X, r);
	mpfr_mul_2si(unit, X, -d->m->frac, MPFR_RNDU);
	/* U = floor(unit / 2^base): a product P <= U loses P, one above it unit */
	struct up64 u = up64_of(unit, t);
	u128 U = 0;
	if (u.m) {
		long rel = u.e - base;
		if (rel >= 0)
			U = rel + 64 - __builtin_clzll(u.m) > 124 ? ~(u128)0 : (u128)u.m << rel;
		else
			U = rel > -64 ? u.m >> -rel : 0;
	}
	struct up64 Ssum = { 0, 0 }, Tsum = { 0, 0 };
	for (size_t i = k; i < k + len; i++) {
		u128 P = block_product(d, i, low);
		if (!P)
			continue;
		up64_add(&Ssum, P, base);
		if (P <= U)
			up64_add(&Tsum, P, base);
		else
			up64_add(&Tsum, u.m, u.e);
	}
	mpfr_set_uj_2exp(S, Ssum.m, Ssum.e, MPFR_RNDN);
	mpfr_set_uj_2exp(tau, Tsum.m, Tsum.e, MPFR_RNDN);
	tc_chain_block_end(d->br, unit, S, tau, t, r);
	return true;
}

/* The block [k, k + len), as two_stage_block computes it (the losses of
 * stage 1 added to r->err and the products to T, each upward, in order). */
static bool integer_two_stage_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr Q = d->tmp[0], X2 = d->tmp[1], unit = d->tmp[4], t = d->tmp[5], T = d->tmp[6];
	size_t parts = d->m->halves > 1 ? (size_t)d->m->halves : 1, nonempty;
	int low;
	long base;
	u128 Qmax;
	if (!block_places(d, k, len, parts, &low, &base, &Qmax, &nonempty))
		return false;
	set_u128(Q, Qmax, base);
	mpfr_set(X2, Q, MPFR_RNDU);
	bool acc_nonzero = acc_place(X2, r);
	mpfr_mul_2si(unit, Q, -d->m->frac, MPFR_RNDU);
	/* a product P loses min(P, unit): P itself when P 2^F <= Qmax */
	u128 U = d->m->frac < 120 ? Qmax >> d->m->frac : 0;
	struct up64 Tsum = up64_of(r->mag, t), Esum = up64_of(r->err, t);
	for (size_t i = k; i < k + len; i++) {
		u128 P = block_product(d, i, low);
		if (!P)
			continue;
		up64_add(&Tsum, P, base);
		if (P <= U)
			up64_add(&Esum, P, base);
		else
			up64_add(&Esum, Qmax, base - d->m->frac);
	}
	mpfr_set_uj_2exp(T, Tsum.m, Tsum.e, MPFR_RNDN);
	mpfr_set_uj_2exp(r->err, Esum.m, Esum.e, MPFR_RNDN);
	two_stage_block_end(d->m, d->br, X2, unit, T, t, nonempty, acc_nonzero, r);
	return true;
}

/* The block [k, k + len) as group_chain_bound computes it: each group's
 * sum G of its products (upward, in order) by up64_add, whatever their
 * places; the rest, per group and per block, in MPFR as there. */
static void integer_group_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr X = d->tmp[0], G = d->tmp[1], unit = d->tmp[4], t = d->tmp[5], T = d->tmp[6], tau = d->tmp[3];
	size_t g = (size_t)d->m->group;
	floor_place(X, d->m, d->output);
	for (size_t k0 = k; k0 < k + len; k0 += g) {
		mpfr_srcptr w = d->wv ? d->wv[k0 / d->every] : NULL;
		if (w && mpfr_zero_p(w))
			continue;
		if (w)
			mpfr_set(t, w, MPFR_RNDU);
		else
			mpfr_set_ui(t, 1, MPFR_RNDU); /* unit scales: the place 0 */
		mpfr_max(X, X, t, MPFR_RNDU);
	}
	bool acc_nonzero = acc_place(X, r);
	mpfr_mul_2si(unit, X, -d->m->frac, MPFR_RNDU);
	mpfr_set(T, r->mag, MPFR_RNDU);
	mpfr_set_zero(tau, 1);
	long q = (long)d->xa->q + d->xb->q;
	for (size_t k0 = k; k0 < k + len; k0 += g) {
		struct up64 sum = { 0, 0 };
		for (size_t i = k0; i < k + len && i < k0 + g; i++) {
			uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
				 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
			up64_add(&sum, (u128)fa * fb, q + d->a[i].shift + d->b[i].shift);
		}
		mpfr_set_uj_2exp(G, sum.m, sum.e, MPFR_RNDN);
		if (d->wv)
			mpfr_mul(G, G, d->wv[k0 / d->every], MPFR_RNDU);
		mpfr_add(T, T, G, MPFR_RNDU);
		mpfr_min(t, G, unit, MPFR_RNDU);
		mpfr_add(tau, tau, t, MPFR_RNDU);
	}
	if (acc_nonzero) {
		mpfr_min(t, r->mag, unit, MPFR_RNDU);
		mpfr_add(tau, tau, t, MPFR_RNDU);
	}
	mpfr_add(r->err, r->err, tau, MPFR_RNDU);
	rounding_step(r->err, r->mag, T, d->br.log2_u, d->br.log2_eta);
}

/* The chain over products [k0, k0 + K) from the accumulator r: each block
 * in integers, or, spread too wide, in MPFR (tc_chain_block) from the
 * operands' values.  0, or -1 for no memory. */
static int decoded_chain_run(struct decoded_chain *d, size_t k0, size_t K, struct running *r)
{
	size_t n = (size_t)d->m->block;
	for (size_t k = k0; k < k0 + K; k += n) {
		size_t len = k0 + K - k < n ? k0 + K - k : n;
		if (d->m->group > 0) {
			integer_group_block(d, k, len, r);
			continue;
		}
		if (d->m->sum_frac > 0 ? integer_two_stage_block(d, k, len, r) : integer_block(d, k, len, r))
			continue;
		if (!d->va) {
			d->va = new_values(n);
			d->vb = new_values(n);
			d->vw = new_values(n);
			if (!d->va || !d->vb || !d->vw)
				return -1;
		}
		for (size_t i = 0; i < len; i++) {
			const struct fpref_exact_operand *x = &d->a[k + i], *y = &d->b[k + i];
			mpfr_set_uj_2exp(d->va[i], (uintmax_t)(x->sig < 0 ? -x->sig : x->sig), d->xa->q + x->shift, MPFR_RNDN);
			mpfr_set_uj_2exp(d->vb[i], (uintmax_t)(y->sig < 0 ? -y->sig : y->sig), d->xb->q + y->shift, MPFR_RNDN);
			if (d->we)
				mpfr_set_ui_2exp(d->vw[i], 1, d->we[k / d->every], MPFR_RNDN);
		}
		if (d->m->sum_frac > 0)
			two_stage_block(d->m, d->br, d->least_a, d->least_b, d->va, d->vb, d->we ? d->vw : NULL, len, r, d->tmp);
		else
			tc_chain_block(d->m, d->br, d->least_a, d->least_b, d->output, d->va, d->vb, d->we ? d->vw : NULL, len,
				       r, d->tmp);
	}
	return 0;
}

/* A scale chunk's weight exponent (E8M0: a power of two): 0, 1 for a
 * NaN scale (no bound), -1 for an invalid pattern, 2 for a weight that is
 * not a power of two. */
static int scale_weight(const struct fpref_tc_scales *sc, size_t q, long *we)
{
	struct fpref_unpacked u[2];
	for (int s = 0; s < 2; s++) {
		uint64_t bits = s ? sc->b[q] : sc->a[q];
		if (sc->format->is_signed)
			bits &= ~(1ull << (sc->format->man_bits + sc->format->exp_bits + sc->format->pad_bits));
		if (fpref_decode(sc->format, bits, &u[s]) == FPREF_DECODE_INVALID)
			return -1;
		if (u[s].cls == FPREF_CLASS_NAN)
			return 1;
		if (u[s].cls == FPREF_CLASS_INF || u[s].cls == FPREF_CLASS_ZERO || (u[s].significand & (u[s].significand - 1)))
			return 2;
	}
	*we = u[0].exponent + u[1].exponent + __builtin_ctzll(u[0].significand) + __builtin_ctzll(u[1].significand);
	return 0;
}

/* A scale chunk's weight sa sb as fpref_ref_tc_scale_weights makes it
 * (the group path's UE4M3 scales are no powers of two): 0, 1 for a NaN
 * scale (no bound), -1 for an invalid pattern. */
static int group_weight(const struct fpref_tc_scales *sc, size_t q, mpfr_ptr w)
{
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	long lead;
	int status = 0;
	if (fpref_ref_tc_read_scale(sc->format, sc->a[q], &x, &lead) != 0 ||
	    fpref_ref_tc_read_scale(sc->format, sc->b[q], &y, &lead) != 0)
		status = -1;
	else if (mpfr_nan_p(x.x) || mpfr_nan_p(y.x))
		status = 1;
	else
		mpfr_mul(w, x.x, y.x, MPFR_RNDN); /* exact: 8 significant bits at most */
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return status;
}

int fpref_ref_exact_tc_bound(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
			     const struct fpref_exact_operand *a, const uint64_t *a_bits,
			     const struct fpref_exact_format *xb, const struct fpref_exact_operand *b,
			     const uint64_t *b_bits, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			     const struct fpref_format *output, size_t nc, mpfr_ptr bound)
{
	const struct fpref_format *in_a = xa->f, *in_b = xb->f;
	if (!bound_args_ok(m, in_a, in_b, scales, output, nc))
		return -1;
	if (fpref_tc_lowered(m, output) || m->tree > 0)
		return fpref_ref_tc_bound_scaled(m, in_a, in_b, a_bits, b_bits, K, scales, c, output, nc, bound);
	/* as bound_inputs_read and fpref_ref_tc_scale_weights: a NaN or inf input, then C, then the scales */
	for (size_t k = 0; k < K; k++)
		if (a[k].cls != FPREF_EXACT_FINITE || b[k].cls != FPREF_EXACT_FINITE) {
			mpfr_set_nan(bound);
			return 0;
		}
	struct fpref_ref_value cv;
	fpref_ref_value_init(&cv);
	if (fpref_ref_from_bits(output, c, false, &cv) != 0) {
		fpref_ref_value_clear(&cv);
		return -1;
	}
	size_t chunks = scales ? (K + scales->every - 1) / scales->every : 0;
	long *we = scales ? malloc((chunks + 1) * sizeof *we) : NULL;
	mpfr_t *wv = scales && m->group > 0 ? new_values(chunks) : NULL;
	int status = !mpfr_number_p(cv.x) ? 1 : scales && (!we || (m->group > 0 && !wv)) ? -1 : 0;
	for (size_t q = 0; q < chunks && status == 0; q++)
		status = wv ? group_weight(scales, q, wv[q]) : scale_weight(scales, q, &we[q]);
	if (status == 2) { /* not a power of two: MPFR's weights */
		free(we);
		free_values(wv, chunks);
		fpref_ref_value_clear(&cv);
		return fpref_ref_tc_bound_scaled(m, in_a, in_b, a_bits, b_bits, K, scales, c, output, nc, bound);
	}
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct decoded_chain d = { .m = m, .output = output, .xa = xa, .xb = xb, .a = a, .b = b, .we = wv ? NULL : we, .wv = wv,
					   .every = scales ? scales->every : 1, .br = block_rounding(m, output),
					   .least_a = least_normal_exponent(in_a), .least_b = least_normal_exponent(in_b) };
		for (int i = 0; i < 7; i++)
			mpfr_init2(d.tmp[i], BOUND_PREC);
		struct running acc;
		running_init(&acc, cv.x);
		if (nc == 0)
			status = decoded_chain_run(&d, 0, K, &acc);
		else
			/* each chunk from zero, then acc = fma(1, partial, acc) in FP32, rne */
			for (size_t k = 0; k < K && status == 0; k += nc) {
				struct running part;
				mpfr_t zero;
				mpfr_init2(zero, 8);
				mpfr_set_zero(zero, 1);
				running_init(&part, zero);
				status = decoded_chain_run(&d, k, K - k < nc ? K - k : nc, &part);
				fp32_add_bound(&acc, &part);
				running_clear(&part);
				mpfr_clear(zero);
			}
		finish_bound(output, &acc, bound);
		running_clear(&acc);
		for (int i = 0; i < 7; i++)
			mpfr_clear(d.tmp[i]);
		free_values(d.va, (size_t)m->block);
		free_values(d.vb, (size_t)m->block);
		free_values(d.vw, (size_t)m->block);
	}
	free(we);
	free_values(wv, chunks);
	fpref_ref_value_clear(&cv);
	return status < 0 ? -1 : 0;
}
