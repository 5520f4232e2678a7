/* The a priori error bounds of every accumulation: the tensor-core
 * models' paths (block model, two-stage, group, CDNA1/2 tree, lowered,
 * chunked promotion, split-K) and the plain orders, evaluated in MPFR
 * rounding upward so that each is a true upper bound
 * (docs/accumulation.md).  Apart from the model paths (ref/tc_dot.c):
 * a bound reads only the inputs, never a computed result. */
#include <stdlib.h>

#include "tc_bound_steps.h"

/* ---- a priori bounds ----
 * Every quantity below is nonnegative and every operation rounds upward,
 * so each running value is an upper bound of what it names. */

void fpref_ref_bound_running_init(struct running *r, mpfr_srcptr start)
{
	mpfr_init2(r->err, BOUND_PREC);
	mpfr_init2(r->mag, BOUND_PREC);
	mpfr_set_zero(r->err, 1);
	mpfr_abs(r->mag, start, MPFR_RNDU);
}

void fpref_ref_bound_running_clear(struct running *r)
{
	mpfr_clear(r->err);
	mpfr_clear(r->mag);
}

/* One rounding of a value whose magnitude is at most t (that is, x with
 * |x| <= t): adds u*t + eta to err and sets *mag to t*(1+u) + eta. */
void fpref_ref_bound_rounding(mpfr_ptr err, mpfr_ptr mag, mpfr_srcptr t, long log2_u, long log2_eta)
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

struct block_rounding fpref_ref_bound_block_rounding(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	struct fpref_env env;
	fpref_tc_model_env(m, output, &env);
	int target_man = m->frac < output->man_bits ? m->frac : output->man_bits;
	return (struct block_rounding){ log2_unit_roundoff(target_man + 1, env.rounding),
					least_normal_exponent(output) - target_man };
}

/* X = 2^floor, the alignment's least place (0 without a floor). */
void fpref_ref_bound_floor_place(mpfr_ptr X, const struct fpref_tc_model *m, const struct fpref_format *output)
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
bool fpref_ref_bound_acc_place(mpfr_ptr X, const struct running *r)
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
 * as fpref_ref_bound_acc_place says), then one rounding. */
void fpref_ref_bound_tc_block_end(struct block_rounding br, mpfr_srcptr unit, mpfr_ptr S, mpfr_ptr tau, mpfr_ptr t,
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
	fpref_ref_bound_rounding(r->err, r->mag, t, br.log2_u, br.log2_eta);
}

/* One block of len products (abs_a, abs_b, w from the block's first). */
void fpref_ref_bound_tc_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a, long least_b,
			   const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t len,
			   struct running *r, mpfr_t *tmp)
{
	mpfr_ptr X = tmp[0], q = tmp[1], p = tmp[2], tau = tmp[3], unit = tmp[4], t = tmp[5], S = tmp[6];
	/* X bounds 2^E: the floor, each product's alignment place, the accumulator's */
	fpref_ref_bound_floor_place(X, m, output);
	mpfr_set_zero(S, 1);
	for (size_t i = 0; i < len; i++) {
		bool zero = mpfr_zero_p(abs_a[i]) || mpfr_zero_p(abs_b[i]);
		if (zero && !m->zero_operand_aligns)
			continue;
		/* E8M0 scales move the product's place by their exponents: exact;
		 * zero_operand_aligns: a zero factor's place is 2^-126 */
		place_bound(q, abs_a[i], abs_b[i], w ? w[i] : NULL, zero && mpfr_zero_p(abs_a[i]) ? -126 : least_a,
			    zero && mpfr_zero_p(abs_b[i]) ? -126 : least_b);
		mpfr_max(X, X, q, MPFR_RNDU);
	}
	fpref_ref_bound_acc_place(X, r);
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
	fpref_ref_bound_tc_block_end(br, unit, S, tau, t, r);
}

static void tc_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const struct fpref_format *output, mpfr_t *abs_a,
			   mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	struct block_rounding br = fpref_ref_bound_block_rounding(m, output);
	long least_a = least_normal_exponent(in_a), least_b = least_normal_exponent(in_b);
	mpfr_t tmp[7];
	for (int i = 0; i < 7; i++)
		mpfr_init2(tmp[i], BOUND_PREC);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		fpref_ref_bound_tc_block(m, br, least_a, least_b, output, abs_a + k, abs_b + k, w ? w + k : NULL, len, r, tmp);
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
void fpref_ref_bound_two_stage_block_end(const struct fpref_tc_model *m, struct block_rounding br, mpfr_srcptr X2,
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
	fpref_ref_bound_rounding(r->err, r->mag, T, br.log2_u, br.log2_eta);
}

/* One block of the two-stage chain: len products (abs_a, abs_b, w from
 * the block's first), tmp seven BOUND_PREC temporaries. */
void fpref_ref_bound_two_stage_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a, long least_b,
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
	bool acc_nonzero = fpref_ref_bound_acc_place(X2, r);
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
	fpref_ref_bound_two_stage_block_end(m, br, X2, unit, T, t, nonempty, acc_nonzero, r);
}

static void two_stage_chain_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a,
				  const struct fpref_format *in_b, const struct fpref_format *output, mpfr_t *abs_a,
				  mpfr_t *abs_b, mpfr_t *w, size_t K, struct running *r)
{
	struct block_rounding br = fpref_ref_bound_block_rounding(m, output);
	long least_a = least_normal_exponent(in_a), least_b = least_normal_exponent(in_b);
	mpfr_t tmp[7];
	for (int i = 0; i < 7; i++)
		mpfr_init2(tmp[i], BOUND_PREC);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		fpref_ref_bound_two_stage_block(m, br, least_a, least_b, abs_a + k, abs_b + k, w ? w + k : NULL, len, r, tmp);
	}
	for (int i = 0; i < 7; i++)
		mpfr_clear(tmp[i]);
}

/* A group's sum G (times its weight w, NULL: 1) into the block's T, and
 * its truncation loss min(G, unit) into tau. */
void fpref_ref_bound_group_term(mpfr_ptr G, mpfr_srcptr w, mpfr_srcptr unit, mpfr_ptr T, mpfr_ptr tau, mpfr_ptr t)
{
	if (w)
		mpfr_mul(G, G, w, MPFR_RNDU);
	mpfr_add(T, T, G, MPFR_RNDU);
	mpfr_min(t, G, unit, MPFR_RNDU);
	mpfr_add(tau, tau, t, MPFR_RNDU);
}

/* The end of a group-path block: C's loss, the losses into err, one
 * rounding of T. */
void fpref_ref_bound_group_block_end(struct block_rounding br, mpfr_srcptr unit, mpfr_srcptr T, mpfr_ptr tau,
				     mpfr_ptr t, bool acc_nonzero, struct running *r)
{
	if (acc_nonzero) {
		mpfr_min(t, r->mag, unit, MPFR_RNDU);
		mpfr_add(tau, tau, t, MPFR_RNDU);
	}
	mpfr_add(r->err, r->err, tau, MPFR_RNDU);
	fpref_ref_bound_rounding(r->err, r->mag, T, br.log2_u, br.log2_eta);
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
	struct block_rounding br = fpref_ref_bound_block_rounding(m, output);
	size_t g = (size_t)m->group;
	mpfr_t X, G, p, unit, t, T, tau;
	mpfr_inits2(BOUND_PREC, X, G, p, unit, t, T, tau, (mpfr_ptr)0);
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t len = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		fpref_ref_bound_floor_place(X, m, output);
		for (size_t k0 = k; k0 < k + len; k0 += g) {
			if (w && mpfr_zero_p(w[k0]))
				continue;
			if (w)
				mpfr_set(t, w[k0], MPFR_RNDU);
			else
				mpfr_set_ui(t, 1, MPFR_RNDU); /* unit scales: the place 0 */
			mpfr_max(X, X, t, MPFR_RNDU);
		}
		bool acc_nonzero = fpref_ref_bound_acc_place(X, r);
		mpfr_mul_2si(unit, X, -m->frac, MPFR_RNDU);
		mpfr_set(T, r->mag, MPFR_RNDU);
		mpfr_set_zero(tau, 1);
		for (size_t k0 = k; k0 < k + len; k0 += g) {
			mpfr_set_zero(G, 1);
			for (size_t i = k0; i < k + len && i < k0 + g; i++) {
				mpfr_mul(p, abs_a[i], abs_b[i], MPFR_RNDU);
				mpfr_add(G, G, p, MPFR_RNDU);
			}
			fpref_ref_bound_group_term(G, w ? w[k0] : NULL, unit, T, tau, t);
		}
		fpref_ref_bound_group_block_end(br, unit, T, tau, t, acc_nonzero, r);
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
 * each one rounding to nearest: u = 2^-24, eta = 2^-149; CDNA1's fused
 * groups (fused) are exact up to their one rounding, C plus the group's
 * sum, bounded as that addition alone.  CDNA2 (flush)
 * also flushes every subnormal result: such a result r (|r| < 2^-126)
 * becomes 0, so that operation's error is below 2^-126: eta = 2^-126
 * there (fpref_ref_bound_rounding's eta bounds the error of an operation whose result
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
		fpref_ref_bound_running_init(&group, zero);
		if (m->fused) /* the group's exact sum: no error before the one rounding */
			for (size_t i = 0; i < len; i++) {
				mpfr_mul(p, x[i], y[i], MPFR_RNDU);
				mpfr_add(group.mag, group.mag, p, MPFR_RNDU);
			}
		else
			pairwise_bound(&pl, x, y, len, &group);
		add_bound(&pl, r, &group);
		fpref_ref_bound_running_clear(&group);
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
		fpref_ref_bound_running_init(&part, zero);
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
		fpref_ref_bound_rounding(acc->err, acc->mag, t, log2_u, log2_eta); /* the addition of C */
		fpref_ref_bound_running_clear(&part);
	}
	mpfr_clear(zero);
	mpfr_clear(t);
	free_values(x, L);
	free_values(y, L);
}

void fpref_ref_bound_finish(const struct fpref_format *out, const struct running *r, mpfr_ptr bound)
{
	if (beyond_max(out, r->mag))
		mpfr_set_inf(bound, 1); /* the result may overflow: no finite bound */
	else
		mpfr_set(bound, r->err, MPFR_RNDU);
}

/* acc = fl32(acc + part) (rne): part's error carried, one rounding. */
void fpref_ref_bound_fp32_add(struct running *acc, const struct running *part)
{
	mpfr_t t;
	mpfr_init2(t, BOUND_PREC);
	mpfr_add(acc->err, acc->err, part->err, MPFR_RNDU);
	mpfr_add(t, acc->mag, part->mag, MPFR_RNDU);
	fpref_ref_bound_rounding(acc->err, acc->mag, t, -24, -149);
	mpfr_clear(t);
}

/* Whether fpref_ref_tc_bound_scaled takes these arguments. */
bool fpref_ref_bound_args_ok(const struct fpref_tc_model *m, const struct fpref_format *in_a,
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
	if (!fpref_ref_bound_args_ok(m, in_a, in_b, scales, output, nc))
		return -1;
	struct bound_inputs bi;
	int status = bound_inputs_read(in_a, in_b, a, b, K, output, c, &bi);
	mpfr_t *abs_a = bi.abs_a, *abs_b = bi.abs_b,
	       *w = status == 0 ? fpref_ref_tc_scale_weights(scales, K, &status) : NULL;
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct running acc;
		fpref_ref_bound_running_init(&acc, bi.c.x);
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
				fpref_ref_bound_running_init(&part, zero);
				chain_bound(m, in_a, in_b, output, abs_a + k, abs_b + k, NULL, K - k < nc ? K - k : nc, &part);
				fpref_ref_bound_fp32_add(&acc, &part);
				fpref_ref_bound_running_clear(&part);
				mpfr_clear(zero);
			}
		}
		fpref_ref_bound_finish(output, &acc, bound);
		fpref_ref_bound_running_clear(&acc);
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
		fpref_ref_bound_running_init(&sum, zero);
		for (size_t k = 0; k < K; k += S) {
			fpref_ref_bound_running_init(&part, zero);
			chain_bound(m, in_a, in_b, f32, bi.abs_a + k, bi.abs_b + k, NULL, K - k < S ? K - k : S, &part);
			fpref_ref_bound_fp32_add(&sum, &part);
			fpref_ref_bound_running_clear(&part);
		}
		fpref_ref_bound_running_init(&cterm, bi.c.x); /* C: exact, no error of its own */
		fpref_ref_bound_fp32_add(&sum, &cterm);
		fpref_ref_bound_finish(f32, &sum, bound);
		fpref_ref_bound_running_clear(&cterm);
		fpref_ref_bound_running_clear(&sum);
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
		fpref_ref_bound_rounding(r->err, r->mag, t, pl->log2_u, pl->log2_eta);
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
	fpref_ref_bound_rounding(r->err, r->mag, t, pl->log2_u, pl->log2_eta);
	mpfr_clear(t);
}

static void pairwise_bound(const struct plain *pl, mpfr_t *abs_a, mpfr_t *abs_b, size_t n, struct running *r)
{
	if (n == 1) {
		product_bound(pl, abs_a[0], abs_b[0], true, r);
		return;
	}
	struct running right;
	fpref_ref_bound_running_init(&right, r->mag);
	pairwise_bound(pl, abs_a, abs_b, n / 2, r);
	pairwise_bound(pl, abs_a + n / 2, abs_b + n / 2, n - n / 2, &right);
	add_bound(pl, r, &right);
	fpref_ref_bound_running_clear(&right);
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
		fpref_ref_bound_running_init(&s, bi.c.x);
		fpref_ref_bound_running_init(&p, bi.c.x);
		if (order == FPREF_SUM_PAIRWISE && K > 0) {
			pairwise_bound(&pl, abs_a, abs_b, K, &p);
			add_bound(&pl, &s, &p);
		} else if (order == FPREF_SUM_BLOCKED) {
			for (size_t k = 0; k < K; k += block) {
				product_bound(&pl, abs_a[k], abs_b[k], true, &p);
				struct running q;
				fpref_ref_bound_running_init(&q, bi.c.x);
				for (size_t j = k + 1; j < K && j < k + block; j++) {
					product_bound(&pl, abs_a[j], abs_b[j], true, &q);
					add_bound(&pl, &p, &q);
				}
				fpref_ref_bound_running_clear(&q);
				add_bound(&pl, &s, &p);
			}
		} else if (order == FPREF_SUM_RECURSIVE || order == FPREF_SUM_FMA_CHAIN) {
			for (size_t k = 0; k < K; k++) {
				product_bound(&pl, abs_a[k], abs_b[k], order == FPREF_SUM_RECURSIVE, &p);
				add_bound(&pl, &s, &p); /* the fma's one rounding */
			}
		}
		fpref_ref_bound_finish(acc, &s, bound);
		fpref_ref_bound_running_clear(&s);
		fpref_ref_bound_running_clear(&p);
	}
	bound_inputs_clear(&bi);
	return status < 0 ? -1 : 0;
}
