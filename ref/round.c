/* The oracle's rounding to a format: MPFR chooses between the two
 * neighbours on the format's grid; the environment and the format's special
 * values decide what becomes of the choice. */
#include <string.h>

#include "fpref_ref.h"

/* Numbers of at most 64 bits (a format's grid points, its extremes) live in
 * storage of their own on the stack, through MPFR's custom interface: the
 * oracle rounds billions of values in the test sweeps, and an mpfr_init2
 * for each was a third of its time.  Such a number is never given to
 * mpfr_set_prec or mpfr_clear. */
#define SMALL_LIMBS ((66 + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS) /* 64 bits, and the 2 more of a midpoint */

static void small_init(mpfr_ptr y, mp_limb_t *limbs, mpfr_prec_t prec)
{
	mpfr_custom_init(limbs, prec);
	mpfr_custom_init_set(y, MPFR_NAN_KIND, 0, prec, limbs);
}

/* The significand of a nonzero small number (small_init) as an integer of
 * its precision: the top bits of its limbs, most significant limb last. */
static uint64_t small_significand(mpfr_srcptr y)
{
	const mp_limb_t *limbs = mpfr_custom_get_significand(y);
	mpfr_prec_t p = mpfr_get_prec(y);
	size_t n = (size_t)((p + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS);
	uint64_t top = 0; /* the top 64 bits of the significand, left-aligned */
	unsigned filled = 0;
	for (size_t i = n; i-- > 0 && filled < 64; filled += GMP_NUMB_BITS)
		top |= (uint64_t)limbs[i] << (64 - GMP_NUMB_BITS - filled);
	return top >> (64 - p);
}

/* The bits a finite nonzero x keeps on format f's grid: the format's
 * precision at and above the least normal, or everywhere when not
 * `bounded`; below the least normal, the bits from x's leading one down to
 * the least positive number 2^least (the least subnormal, or the least
 * normal without subnormals), which is 0 or fewer under 2^least. */
static mpfr_exp_t grid_bits(mpfr_srcptr x, const struct fpref_format *f, bool bounded, mpfr_exp_t *least)
{
	*least = fpref_format_min_exponent(f) - (f->subnormals ? f->man_bits : 0);
	/* MPFR writes numbers as m * 2^E with m in [1/2, 1): |x| >= 2^(E-1) */
	mpfr_exp_t e = mpfr_get_exp(x);
	if (!bounded || e > fpref_format_min_exponent(f))
		return fpref_format_precision(f);
	return e - *least;
}

/* Round x (finite, nonzero) onto the grid of format f: precision p (y's
 * own, set by its owner), no bound above; below, the subnormal grid (or
 * {0, least normal} when subnormals are off) when `bounded`, else no
 * bound either (for tininess after rounding).  MPFR rounds, to the bits
 * grid_bits says: that is rounding onto the grid, with no change of
 * MPFR's exponent range and no mpfr_subnormalize (what made the oracle
 * slow).  Ties go to even (RNDN), and 0 counts as even. */
static int grid_round(mpfr_ptr y, mpfr_srcptr x, const struct fpref_format *f, bool bounded, mpfr_rnd_t rnd)
{
	mpfr_exp_t least, q = grid_bits(x, f, bounded, &least);
	if (q >= mpfr_get_prec(y))
		return mpfr_set(y, x, rnd);
	if (q >= 1) { /* subnormals: fewer bits than y has */
		mpfr_t r = { { 0 } }; /* set by small_init; initialised for the analysers */
		mp_limb_t r_limbs[SMALL_LIMBS];
		small_init(r, r_limbs, q);
		int t = mpfr_set(r, x, rnd);
		mpfr_set(y, r, MPFR_RNDN); /* exact */
		return t;
	}
	/* |x| < 2^least: the neighbours are 0 and 2^least; x lies above
	 * their midpoint 2^(least-1) when q = 0 and x is not that power of two */
	bool negative = mpfr_signbit(x);
	bool above_mid = q == 0 && mpfr_min_prec(x) > 1;
	bool up = rnd == MPFR_RNDA || (rnd == MPFR_RNDN && above_mid) || (rnd == MPFR_RNDU && !negative) ||
		  (rnd == MPFR_RNDD && negative);
	if (!up) {
		mpfr_set_zero(y, negative ? -1 : 1);
		return negative ? 1 : -1;
	}
	mpfr_set_ui_2exp(y, 1, least, MPFR_RNDN); /* exact: a power of two, in range */
	if (negative)
		mpfr_neg(y, y, MPFR_RNDN);
	return negative ? -1 : 1;
}

/* y of 64 bits: exact. */
static void unpacked_to_mpfr(mpfr_ptr y, const struct fpref_unpacked *u)
{
	mpfr_set_uj_2exp(y, u->significand, u->exponent, MPFR_RNDN);
	if (u->negative)
		mpfr_neg(y, y, MPFR_RNDN);
}

static uint64_t mpz_to_u64(mpz_srcptr z)
{
	uint64_t out = 0;
	size_t count = 0;
	if (mpz_sizeinbase(z, 2) <= 64)
		mpz_export(&out, &count, -1, sizeof out, 0, 0, z);
	return count ? out : 0;
}

struct choice {
	mpfr_t lo, hi, chosen;     /* lo toward zero, hi away from zero (set where choose needs them); in the format's precision */
	mp_limb_t lo_limbs[SMALL_LIMBS], hi_limbs[SMALL_LIMBS], chosen_limbs[SMALL_LIMBS];
	enum fpref_ref_rule rule;
	bool inexact;
	bool away;                 /* chose hi */
	mpz_t discarded;           /* sr: T, initialised only then (an mpz allocates) */
	bool has_discarded;
};

/* Its numbers point into the struct itself: a choice is never copied. */
static void choice_init(struct choice *c, const struct fpref_format *f)
{
	mpfr_prec_t p = fpref_format_precision(f); /* at most 63: parse allows 62 fraction bits */
	/* &x[0]: the address of each number, which small_init writes, not
	 * reads; lo and hi only where choose brackets x */
	small_init(&c->chosen[0], c->chosen_limbs, p);
	c->has_discarded = false;
}

static void choice_clear(struct choice *c)
{
	if (c->has_discarded)
		mpz_clear(c->discarded);
}

/* x, not on f's grid, lies halfway between two grid points: it has one
 * bit more than the grid keeps there, and that bit is its last one. */
static bool is_midpoint(mpfr_srcptr x, const struct fpref_format *f, bool bounded)
{
	mpfr_exp_t least, q = grid_bits(x, f, bounded, &least);
	return q >= 0 && mpfr_min_prec(x) == q + 1;
}

/* |hi - lo| is a power of two: the grid step between the neighbours. */
static void grid_step(mpfr_ptr step, mpfr_srcptr lo, mpfr_srcptr hi)
{
	mpfr_set_prec(step, mpfr_get_prec(hi) + 2);
	mpfr_sub(step, hi, lo, MPFR_RNDN);
	mpfr_abs(step, step, MPFR_RNDN);
}

static bool last_bit_odd(mpfr_srcptr lo, mpfr_srcptr step)
{
	if (mpfr_zero_p(lo))
		return false;
	mpfr_t k;
	mpz_t z;
	mpfr_init2(k, mpfr_get_prec(lo) + 2);
	mpz_init(z);
	mpfr_div(k, lo, step, MPFR_RNDN); /* exact: step is a power of two */
	mpfr_get_z(z, k, MPFR_RNDN);
	bool odd = mpz_odd_p(z);
	mpz_clear(z);
	mpfr_clear(k);
	return odd;
}

/* Whether the lower neighbour lo has an odd code: its last significand
 * bit, or with code_parity and no fraction bits its exponent field's last
 * bit (lo = 2^e has the field e + bias; zero is even). */
static bool lower_odd(const struct fpref_format *f, mpfr_srcptr lo, mpfr_srcptr step)
{
	if (!(f->code_parity && f->man_bits == 0))
		return last_bit_odd(lo, step);
	if (mpfr_zero_p(lo))
		return false;
	return ((int64_t)mpfr_get_exp(lo) - 1 + f->bias) & 1;
}

/* T = the first r bits of |x - lo| / step, rounded by rnd (truncated, or
 * to nearest even for P3109's StochasticC). */
static void discarded_bits(mpz_ptr T, mpfr_srcptr x, mpfr_srcptr lo, mpfr_srcptr step, unsigned r, mpfr_rnd_t rnd)
{
	mpfr_t d;
	mpfr_init2(d, mpfr_get_prec(x) + mpfr_get_prec(lo) + 4);
	mpfr_sub(d, x, lo, MPFR_RNDN); /* exact: both are multiples of x's last place */
	mpfr_abs(d, d, MPFR_RNDN);
	mpfr_div(d, d, step, MPFR_RNDN);
	mpfr_mul_2ui(d, d, r, MPFR_RNDN);
	mpfr_get_z(T, d, rnd);
	mpfr_clear(d);
}

bool fpref_ref_held(const struct fpref_format *f, mpfr_srcptr x, uint64_t *bits)
{
	if (!mpfr_number_p(x))
		return false;
	struct fpref_unpacked u = { .cls = mpfr_zero_p(x) ? FPREF_CLASS_ZERO : FPREF_CLASS_NORMAL,
				    .negative = mpfr_signbit(x) != 0 };
	if (!mpfr_zero_p(x)) {
		mpz_t m;
		mpz_init(m);
		mpfr_exp_t e = mpfr_get_z_2exp(m, x);
		mpz_abs(m, m);
		bool fits = mpz_sizeinbase(m, 2) <= 64;
		u.significand = fits ? mpz_to_u64(m) : 0;
		u.exponent = (int32_t)e;
		mpz_clear(m);
		if (!fits)
			return false;
	}
	return fpref_encode(f, &u, bits) == 0;
}

/* The MPFR rounding that lands on the mode's choice by itself, for the
 * modes whose choice needs neither neighbour's code: false for the
 * stochastic and odd modes, and for ties decided by the code's parity. */
static bool direct_rounding(const struct fpref_format *f, const struct fpref_env *env, bool tie, mpfr_rnd_t *rnd)
{
	switch (env->rounding) {
	case FPREF_RNE:
		*rnd = MPFR_RNDN;
		return !(tie && f->code_parity && f->man_bits == 0);
	case FPREF_RNA:
		*rnd = tie ? MPFR_RNDA : MPFR_RNDN;
		return true;
	case FPREF_RTZ:
		*rnd = MPFR_RNDZ;
		return true;
	case FPREF_RUP:
		*rnd = MPFR_RNDU;
		return true;
	case FPREF_RDN:
		*rnd = MPFR_RNDD;
		return true;
	case FPREF_ROD:
	case FPREF_SR:
		break;
	}
	return false;
}

static enum fpref_ref_rule mode_rule(const struct fpref_env *env, bool tie)
{
	switch (env->rounding) {
	case FPREF_RNE:
		return tie ? FPREF_RULE_TIE_EVEN : FPREF_RULE_NEAREST;
	case FPREF_RNA:
		return tie ? FPREF_RULE_TIE_AWAY : FPREF_RULE_NEAREST;
	case FPREF_RTZ:
		return FPREF_RULE_TOWARD_ZERO;
	case FPREF_RUP:
		return FPREF_RULE_TOWARD_POS;
	case FPREF_RDN:
		return FPREF_RULE_TOWARD_NEG;
	case FPREF_ROD:
		return FPREF_RULE_ODD;
	case FPREF_SR:
		break;
	}
	return FPREF_RULE_STOCHASTIC;
}

/* Choose the rounded value of a finite nonzero x on f's grid.  With
 * `neighbours` (a trace shows them) lo and hi are set too; without it,
 * where the mode allows, MPFR rounds x onto the grid once, in the mode's
 * own direction, and its ternary value says whether it went away from
 * zero: one rounding in place of three (the oracle rounds billions of
 * values). */
static void choose(struct choice *c, mpfr_srcptr x, const struct fpref_format *f, bool bounded,
		   const struct fpref_env *env, uint64_t sr_random, bool neighbours)
{
	bool negative = mpfr_signbit(x);
	mpfr_rnd_t direct;
	bool tie = (env->rounding == FPREF_RNE || env->rounding == FPREF_RNA) && is_midpoint(x, f, bounded);
	if (!neighbours && direct_rounding(f, env, tie, &direct)) {
		int t = grid_round(c->chosen, x, f, bounded, direct);
		c->inexact = t != 0;
		c->away = c->inexact && (t > 0) != negative; /* above x, for x > 0, is away from zero */
		c->rule = c->inexact ? mode_rule(env, tie) : FPREF_RULE_EXACT;
		return;
	}
	small_init(&c->lo[0], c->lo_limbs, mpfr_get_prec(c->chosen));
	small_init(&c->hi[0], c->hi_limbs, mpfr_get_prec(c->chosen));
	int t = grid_round(c->lo, x, f, bounded, MPFR_RNDZ);
	grid_round(c->hi, x, f, bounded, MPFR_RNDA);
	c->inexact = t != 0;
	c->away = false;
	if (!c->inexact) {
		mpfr_set(c->chosen, c->lo, MPFR_RNDN);
		c->rule = FPREF_RULE_EXACT;
		return;
	}
	/* the grid step only where a mode needs it: it costs an allocation,
	 * and the oracle rounds billions of values */
	mpfr_t step;
	bool parity_ties = f->code_parity && f->man_bits == 0 && tie;
	bool stepped = env->rounding == FPREF_ROD || env->rounding == FPREF_SR || parity_ties;
	if (stepped) {
		mpfr_init2(step, mpfr_get_prec(c->hi) + 2);
		grid_step(step, c->lo, c->hi);
	}
	switch (env->rounding) {
	case FPREF_RNE:
		if (parity_ties)
			mpfr_set(c->chosen, lower_odd(f, c->lo, step) ? c->hi : c->lo, MPFR_RNDN);
		else
			grid_round(c->chosen, x, f, bounded, MPFR_RNDN);
		c->away = mpfr_equal_p(c->chosen, c->hi);
		break;
	case FPREF_RNA:
		if (!tie)
			grid_round(c->chosen, x, f, bounded, MPFR_RNDN);
		c->away = tie || mpfr_equal_p(c->chosen, c->hi);
		break;
	case FPREF_RTZ:
		break;
	case FPREF_RUP:
		c->away = !negative;
		break;
	case FPREF_RDN:
		c->away = negative;
		break;
	case FPREF_ROD:
		c->away = !lower_odd(f, c->lo, step);
		break;
	case FPREF_SR: {
		/* P3109's rules (fpref_formats_env.h), compared in whole numbers:
		 * A: T + R >= 2^r, T truncated to r bits; B: T + 2R + 1 >=
		 * 2^(r+1), T truncated to r+1 bits; C: T + R >= 2^r, T rounded
		 * to r bits ties to even */
		bool b = env->sr_rule == FPREF_SR_B;
		unsigned r = env->sr_width + (b ? 1 : 0);
		if (!c->has_discarded)
			mpz_init(c->discarded);
		c->has_discarded = true;
		discarded_bits(c->discarded, x, c->lo, step, r, env->sr_rule == FPREF_SR_C ? MPFR_RNDN : MPFR_RNDZ);
		mpz_t sum, bound;
		mpz_init(sum);
		mpz_init(bound);
		mpz_import(sum, 1, -1, sizeof sr_random, 0, 0, &sr_random);
		if (b) {
			mpz_mul_2exp(sum, sum, 1);
			mpz_add_ui(sum, sum, 1);
		}
		mpz_add(sum, sum, c->discarded);
		mpz_setbit(bound, r);
		c->away = mpz_cmp(sum, bound) >= 0;
		mpz_clear(sum);
		mpz_clear(bound);
		break;
	}
	}
	c->rule = mode_rule(env, tie);
	mpfr_set(c->chosen, c->away ? c->hi : c->lo, MPFR_RNDN);
	if (stepped)
		mpfr_clear(step);
}

void fpref_ref_trace_init(struct fpref_ref_trace *t)
{
	memset(t, 0, sizeof *t);
	mpfr_inits2(64, t->lo, t->hi, t->result, t->err_abs, t->err_rel, t->err_ulp, t->mid, (mpfr_ptr)0);
	mpz_init(t->sr_discarded);
	t->initialised = true;
}

void fpref_ref_trace_clear(struct fpref_ref_trace *t)
{
	mpfr_clears(t->lo, t->hi, t->result, t->err_abs, t->err_rel, t->err_ulp, t->mid, (mpfr_ptr)0);
	mpz_clear(t->sr_discarded);
}

/* The least value an unsigned or zero-free format holds. */
static uint64_t lowest_bits(const struct fpref_format *f)
{
	if (f->has_zero)
		return fpref_format_zero_bits(f, false);
	struct fpref_unpacked least;
	uint64_t bits = 0;
	fpref_format_min_positive(f, &least);
	fpref_encode(f, &least, &bits);
	return bits;
}

/* A result of zero (by rounding, flushing or input). */
static uint64_t zero_result(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			    unsigned *flags, enum fpref_ref_outcome *outcome)
{
	if (f->has_zero) {
		negative = negative && !env->zero_positive;
		if (negative && !fpref_format_has_negative_zero(f) && *outcome != FPREF_OUTCOME_FLUSHED)
			*outcome = FPREF_OUTCOME_ZERO_UNSIGNED;
		return fpref_format_zero_bits(f, negative);
	}
	uint64_t bits;
	if (env->overflow == FPREF_OVERFLOW_SAT || env->zero_to_least) {
		*outcome = FPREF_OUTCOME_NO_ZERO_MIN;
		*flags |= FPREF_FLAG_INEXACT;
		return lowest_bits(f);
	}
	*outcome = FPREF_OUTCOME_NO_ZERO_NAN;
	*flags |= FPREF_FLAG_INVALID;
	return fpref_format_nan_bits(f, false, &bits) ? bits : lowest_bits(f);
}

static bool overflow_goes_to_inf(const struct fpref_format *f, const struct fpref_env *env, bool negative, bool away)
{
	if (env->overflow == FPREF_OVERFLOW_INF)
		return true;
	switch (env->rounding) {
	case FPREF_RNE:
	case FPREF_RNA:
		return true;
	case FPREF_RTZ:
		return false;
	case FPREF_ROD:
		/* P3109's SatNone row for ToOdd: inf, but for unsigned formats with inf */
		return env->p3109_sat_none && (f->is_signed || !fpref_format_has_inf(f));
	case FPREF_RUP:
		return !negative;
	case FPREF_RDN:
		return negative;
	case FPREF_SR:
		return away || env->p3109_sat_none; /* P3109: beyond max after rounding is enough */
	}
	return true;
}

/* P3109 SatNone, a negative x into an unsigned format: round x as the
 * mirror image of the format's grid would (the signed format of the same
 * magnitudes, round_finite's own choice), then 0 where that gave zero or
 * the mode rounds toward zero or +inf, else NaN. */
static uint64_t negative_to_unsigned_p3109(mpfr_srcptr x, const struct fpref_format *f, const struct fpref_env *env,
					   uint64_t sr_random, unsigned *flags, struct fpref_ref_trace *trace)
{
	struct choice c;
	choice_init(&c, f);
	choose(&c, x, f, true, env, sr_random, false);
	bool zero = mpfr_zero_p(c.chosen);
	choice_clear(&c);
	trace->rule = FPREF_RULE_SPECIAL;
	uint64_t bits;
	if (zero || env->rounding == FPREF_RTZ || env->rounding == FPREF_RUP) {
		trace->outcome = FPREF_OUTCOME_NEGATIVE_CLAMPED;
		*flags |= FPREF_FLAG_INEXACT;
		return lowest_bits(f);
	}
	trace->outcome = FPREF_OUTCOME_NEGATIVE_UNSIGNED;
	*flags |= FPREF_FLAG_INVALID;
	return fpref_format_nan_bits(f, false, &bits) ? bits : lowest_bits(f);
}

/* |y| < the least normal 2^min_exponent, y finite: MPFR's exponent E
 * (|y| in [2^(E-1), 2^E)) says it without building the number. */
static bool below_least_normal(mpfr_srcptr y, const struct fpref_format *f)
{
	return mpfr_zero_p(y) || mpfr_get_exp(y) <= fpref_format_min_exponent(f);
}

/* |y| > the largest magnitude on y's side, y finite: by exponents where
 * they differ (the oracle rounds billions of values), else by value.  A
 * signed integer's negative side reaches -2^(n-1). */
static bool beyond_max_finite(mpfr_srcptr y, const struct fpref_format *f, bool negative)
{
	if (mpfr_zero_p(y))
		return false;
	struct fpref_unpacked u;
	fpref_format_max_magnitude(f, negative, &u);
	/* max finite lies in [2^(top-1), 2^top) */
	mpfr_exp_t top = u.exponent + (u.significand ? 64 - __builtin_clzll(u.significand) : 0);
	if (mpfr_get_exp(y) != top)
		return mpfr_get_exp(y) > top;
	mpfr_t largest = { { 0 } };
	mp_limb_t largest_limbs[SMALL_LIMBS];
	small_init(largest, largest_limbs, 64);
	unpacked_to_mpfr(largest, &u);
	return mpfr_cmpabs(y, largest) > 0;
}

static uint64_t round_finite(mpfr_srcptr x, const struct fpref_format *f, const struct fpref_env *env,
			     uint64_t sr_random, unsigned *flags, struct fpref_ref_trace *trace)
{
	bool negative = mpfr_signbit(x);
	uint64_t bits = 0;
	trace->outcome = FPREF_OUTCOME_PLAIN;
	if (negative && !f->is_signed && env->unsigned_magnitude) {
		mpfr_t magnitude;
		mpfr_init2(magnitude, mpfr_get_prec(x));
		mpfr_abs(magnitude, x, MPFR_RNDN); /* exact */
		bits = round_finite(magnitude, f, env, sr_random, flags, trace);
		mpfr_clear(magnitude);
		return bits;
	}
	if (negative && !f->is_signed && env->p3109_sat_none && env->overflow != FPREF_OVERFLOW_SAT)
		return negative_to_unsigned_p3109(x, f, env, sr_random, flags, trace);
	if (negative && !f->is_signed) {
		trace->rule = FPREF_RULE_SPECIAL;
		if (env->overflow == FPREF_OVERFLOW_SAT) {
			trace->outcome = FPREF_OUTCOME_NEGATIVE_CLAMPED;
			*flags |= FPREF_FLAG_INEXACT;
			return lowest_bits(f);
		}
		trace->outcome = FPREF_OUTCOME_NEGATIVE_UNSIGNED;
		*flags |= FPREF_FLAG_INVALID;
		return fpref_format_nan_bits(f, false, &bits) ? bits : lowest_bits(f);
	}

	struct choice c, unbounded; /* set by choice_init: not zeroed, the oracle rounds billions of values */
	choice_init(&c, f);
	choose(&c, x, f, true, env, sr_random, trace->initialised);
	trace->rule = c.rule;
	trace->bracketed = true;
	if (trace->initialised) {
		mpfr_set_prec(trace->lo, mpfr_get_prec(c.lo));
		mpfr_set_prec(trace->hi, mpfr_get_prec(c.hi));
		mpfr_set(trace->lo, c.lo, MPFR_RNDN);
		mpfr_set(trace->hi, c.hi, MPFR_RNDN);
		if (c.has_discarded)
			mpz_set(trace->sr_discarded, c.discarded);
		else
			mpz_set_ui(trace->sr_discarded, 0);
		trace->lo_held = fpref_ref_held(f, c.lo, &trace->lo_bits);
		trace->hi_held = fpref_ref_held(f, c.hi, &trace->hi_bits);
		/* (lo + hi) / 2 exactly: one more bit than the wider of the two */
		mpfr_prec_t p = mpfr_get_prec(c.lo) > mpfr_get_prec(c.hi) ? mpfr_get_prec(c.lo) : mpfr_get_prec(c.hi);
		mpfr_set_prec(trace->mid, p + 2);
		mpfr_add(trace->mid, c.lo, c.hi, MPFR_RNDN);
		mpfr_div_2ui(trace->mid, trace->mid, 1, MPFR_RNDN);
		int side = mpfr_cmpabs(x, trace->mid); /* lo is the neighbour nearer zero, whatever the sign */
		trace->nearer = side < 0 ? -1 : side > 0 ? 1 : 0;
	}

	if (f->integer) {
		trace->tiny = false; /* an integer's small magnitudes are its grid, not an underflow */
	} else if (env->tininess == FPREF_TININESS_BEFORE || !below_least_normal(x, f)) {
		/* at or above the least normal nothing is tiny, by either rule */
		trace->tiny = below_least_normal(x, f);
	} else {
		choice_init(&unbounded, f);
		choose(&unbounded, x, f, false, env, sr_random, false);
		trace->tiny = below_least_normal(unbounded.chosen, f);
		choice_clear(&unbounded);
	}
	if (c.inexact)
		*flags |= FPREF_FLAG_INEXACT;
	if (c.inexact && trace->tiny)
		*flags |= FPREF_FLAG_UNDERFLOW;

	if (env->ftz && trace->tiny) {
		trace->outcome = FPREF_OUTCOME_FLUSHED;
		*flags |= FPREF_FLAG_UNDERFLOW | FPREF_FLAG_INEXACT;
		bits = zero_result(f, env, negative, flags, &trace->outcome);
	} else if (beyond_max_finite(c.chosen, f, negative)) {
		*flags |= FPREF_FLAG_OVERFLOW | FPREF_FLAG_INEXACT;
		if (env->overflow == FPREF_OVERFLOW_SAT) {
			trace->outcome = FPREF_OUTCOME_SATURATED;
			bits = fpref_format_max_bits(f, negative);
		} else if (!overflow_goes_to_inf(f, env, negative, c.away)) {
			trace->outcome = FPREF_OUTCOME_OVERFLOW_MAX;
			bits = fpref_format_max_bits(f, negative);
		} else if (fpref_format_inf_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_OVERFLOW_INF;
		} else if (fpref_format_nan_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_OVERFLOW_NAN;
		} else {
			trace->outcome = FPREF_OUTCOME_OVERFLOW_NO_SPECIALS;
			bits = fpref_format_max_bits(f, negative);
		}
	} else if (mpfr_zero_p(c.chosen) && !f->has_zero && env->underflow_to_least) {
		trace->outcome = FPREF_OUTCOME_NO_ZERO_MIN;
		bits = lowest_bits(f);
	} else if (mpfr_zero_p(c.chosen)) {
		bits = zero_result(f, env, negative, flags, &trace->outcome);
	} else {
		/* |chosen| = m 2^e, m of the format's precision p (at most 63
		 * bits): MPFR's own significand of the small number, whose top
		 * p bits are m (mpfr_custom_get_significand), not an mpz */
		mpfr_prec_t p = mpfr_get_prec(c.chosen);
		mpfr_exp_t e = mpfr_get_exp(c.chosen) - p;
		uint64_t m = small_significand(c.chosen);
		struct fpref_unpacked u = { .cls = FPREF_CLASS_NORMAL, /* encode works out the class */
					    .negative = negative, .significand = m, .exponent = (int32_t)e };
		if (fpref_encode(f, &u, &bits) != 0)
			bits = 0; /* cannot happen: the grid holds only representable values */
	}
	choice_clear(&c);
	return bits;
}

static uint64_t round_special(const struct fpref_ref_value *v, const struct fpref_format *f,
			      const struct fpref_env *env, unsigned *flags, struct fpref_ref_trace *trace)
{
	bool negative = mpfr_signbit(v->x) != 0;
	uint64_t bits = 0;
	trace->rule = FPREF_RULE_SPECIAL;
	if (mpfr_nan_p(v->x)) {
		if (v->signaling)
			*flags |= FPREF_FLAG_INVALID;
		if (fpref_format_nan_converted(f, env, negative, v->nan_payload, &bits)) {
			trace->outcome = FPREF_OUTCOME_NAN;
			return bits;
		}
		trace->outcome = FPREF_OUTCOME_NAN_NO_NAN;
		*flags |= FPREF_FLAG_INVALID;
		if (env->nan_to_flipped_zero && f->has_zero)
			return fpref_format_zero_bits(f, !negative);
		return fpref_format_max_bits(f, negative && env->nan_to_signed_max);
	}
	if (mpfr_inf_p(v->x)) {
		if (negative && !f->is_signed && env->unsigned_magnitude)
			negative = false;
		if (negative && !f->is_signed && env->p3109_sat_none && env->overflow != FPREF_OVERFLOW_SAT) {
			/* P3109 SatNone: -inf into an unsigned format is NaN, whatever the rounding */
			trace->outcome = FPREF_OUTCOME_NEGATIVE_UNSIGNED;
			*flags |= FPREF_FLAG_INVALID;
			return fpref_format_nan_bits(f, false, &bits) ? bits : lowest_bits(f);
		}
		if (negative && !f->is_signed) {
			mpfr_t minus_one;
			mpfr_init2(minus_one, 2);
			mpfr_set_si(minus_one, -1, MPFR_RNDN);
			bits = round_finite(minus_one, f, env, 0, flags, trace);
			mpfr_clear(minus_one);
			trace->bracketed = false;
			return bits;
		}
		if (env->overflow == FPREF_OVERFLOW_SAT && env->sat_keep_inf && fpref_format_inf_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_INF; /* P3109 SatPropagate */
		} else if (env->overflow == FPREF_OVERFLOW_SAT && env->sat_inf_to_nan &&
			   fpref_format_nan_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_INF_NAN;
			*flags |= FPREF_FLAG_INVALID;
		} else if (env->overflow == FPREF_OVERFLOW_SAT) {
			/* satfinite: inf clamps too, even where the format has inf */
			trace->outcome = FPREF_OUTCOME_INF_SATURATED;
			*flags |= FPREF_FLAG_OVERFLOW | FPREF_FLAG_INEXACT;
			bits = fpref_format_max_bits(f, negative);
		} else if (fpref_format_inf_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_INF;
		} else if (fpref_format_nan_bits(f, negative, &bits)) {
			trace->outcome = FPREF_OUTCOME_INF_NAN;
			*flags |= FPREF_FLAG_INVALID;
		} else {
			trace->outcome = FPREF_OUTCOME_INF_MAX;
			*flags |= FPREF_FLAG_INVALID;
			bits = fpref_format_max_bits(f, negative);
		}
		return bits;
	}
	trace->outcome = FPREF_OUTCOME_ZERO;
	return zero_result(f, env, negative, flags, &trace->outcome);
}

static void measure_error(struct fpref_ref_trace *t, mpfr_srcptr x)
{
	mpfr_set_nan(t->err_abs);
	mpfr_set_nan(t->err_rel);
	mpfr_set_nan(t->err_ulp);
	if (!mpfr_number_p(t->result) || !mpfr_number_p(x))
		return;
	mpfr_prec_t prec = mpfr_get_prec(x) + 80;
	mpfr_set_prec(t->err_abs, prec);
	mpfr_set_prec(t->err_rel, 64);
	mpfr_set_prec(t->err_ulp, 64);
	mpfr_sub(t->err_abs, t->result, x, MPFR_RNDN);
	if (!mpfr_zero_p(x)) {
		mpfr_div(t->err_rel, t->err_abs, x, MPFR_RNDN);
		mpfr_abs(t->err_rel, t->err_rel, MPFR_RNDN);
		mpfr_setsign(t->err_rel, t->err_rel, mpfr_signbit(t->err_abs), MPFR_RNDN); /* over |exact| */
	}
	if (mpfr_zero_p(t->err_abs)) {
		mpfr_set_zero(t->err_ulp, 1);
	} else if (t->bracketed) {
		mpfr_t step;
		mpfr_init2(step, 2);
		grid_step(step, t->lo, t->hi);
		mpfr_div(t->err_ulp, t->err_abs, step, MPFR_RNDN);
		mpfr_clear(step);
	}
}

/* A trace that records the choice but no numbers (initialised false: its
 * mpfr fields are never touched), its other fields set: not zeroed whole,
 * for the 300 bytes of an initialiser were a tenth of the oracle's time. */
static void plain_trace(struct fpref_ref_trace *t)
{
	t->rule = FPREF_RULE_EXACT;
	t->outcome = FPREF_OUTCOME_PLAIN;
	t->lo_held = t->hi_held = false;
	t->lo_bits = t->hi_bits = 0;
	t->nearer = 0;
	t->initialised = false;
}

void fpref_ref_round(const struct fpref_ref_value *v, const struct fpref_format *f, const struct fpref_env *env,
		     uint64_t sr_random, uint64_t *bits, unsigned *flags, struct fpref_ref_trace *trace)
{
	mpfr_flags_t saved = mpfr_flags_save();
	/* Without a trace, a plain one records the choice but no numbers:
	 * its mpfr fields are never touched (initialised is false). */
	struct fpref_ref_trace local;
	plain_trace(&local);
	struct fpref_ref_trace *t = trace ? trace : &local;
	t->bracketed = false;
	t->tiny = false;
	t->sr_width = env->sr_width;
	t->sr_random = sr_random;
	if (t->initialised)
		mpz_set_ui(t->sr_discarded, 0);

	unsigned raised = 0;
	if (mpfr_regular_p(v->x))
		*bits = round_finite(v->x, f, env, sr_random, &raised, t);
	else
		*bits = round_special(v, f, env, &raised, t);
	*flags |= raised;

	if (trace) {
		struct fpref_ref_value r;
		fpref_ref_value_init(&r);
		fpref_ref_from_bits(f, *bits, false, &r);
		mpfr_set_prec(t->result, mpfr_get_prec(r.x));
		mpfr_set(t->result, r.x, MPFR_RNDN);
		fpref_ref_value_clear(&r);
		measure_error(t, v->x);
	}
	mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
}

void fpref_ref_convert_value(const struct fpref_ref_value *v, const struct fpref_format *to,
			     const struct fpref_env *env, uint64_t sr_random, uint64_t *bits, unsigned *flags,
			     struct fpref_ref_trace *trace)
{
	if (!env->pre_scale) {
		fpref_ref_round(v, to, env, sr_random, bits, flags, trace);
		return;
	}
	mpfr_flags_t saved = mpfr_flags_save();
	struct fpref_ref_value q = *v;
	mpfr_init2(q.x, mpfr_get_prec(v->x));
	if (env->pre_scale_code == 255) {
		/* E8M0's NaN scale: NaN whatever the value (quiet: the invalid
		 * flag is the scale's), keeping the value's sign */
		mpfr_set_nan(q.x);
		mpfr_setsign(q.x, q.x, mpfr_signbit(v->x), MPFR_RNDN);
		q.signaling = false;
		q.nan_payload = (uint64_t)1 << 63;
		*flags |= FPREF_FLAG_INVALID;
	} else {
		/* a power of two at the same precision: exact (MPFR's default
		 * exponent range is far wider than 2^±254 around any format) */
		mpfr_div_2si(q.x, v->x, (long)env->pre_scale_code - 127, MPFR_RNDN);
	}
	mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
	fpref_ref_round(&q, to, env, sr_random, bits, flags, trace);
	mpfr_clear(q.x);
}

int fpref_ref_convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
		      const struct fpref_env *env, uint64_t sr_random, uint64_t *out, unsigned *flags)
{
	/* the input in small storage of 64 bits: exact for every format, and
	 * no allocation per conversion */
	struct fpref_ref_value v = { .signaling = false };
	mp_limb_t limbs[SMALL_LIMBS];
	small_init(v.x, limbs, 64);
	int r = 0;
	struct fpref_unpacked u;
#if GMP_NUMB_BITS == 64
	/* A finite nonzero input straight into the small number's one limb
	 * through MPFR's custom interface (its significand normalised, its
	 * exponent MPFR's, far inside the default range): no call into MPFR,
	 * whose every call looks up its thread-local range and flags, a tenth
	 * of the oracle's time in the shared library. */
	enum fpref_decode_status status = fpref_decode(from, bits, &u);
	if (status == FPREF_DECODE_INVALID)
		return -1;
	if ((u.cls == FPREF_CLASS_NORMAL || (u.cls == FPREF_CLASS_SUBNORMAL && !env->daz)) && u.significand) {
		int lead = __builtin_clzll(u.significand);
		limbs[0] = (mp_limb_t)(u.significand << lead);
		mpfr_custom_init_set(v.x, u.negative ? -MPFR_REGULAR_KIND : MPFR_REGULAR_KIND,
				     (mpfr_exp_t)u.exponent + 64 - lead, 64, limbs);
		v.inexact = false;
		v.nan_payload = u.nan_payload;
	} else {
		r = fpref_ref_from_bits_64(from, bits, env->daz, &v);
	}
#else
	(void)u;
	r = fpref_ref_from_bits_64(from, bits, env->daz, &v);
#endif
	if (r == 0)
		fpref_ref_convert_value(&v, to, env, sr_random, out, flags, NULL);
	return r;
}
