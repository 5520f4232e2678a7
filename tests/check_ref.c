/* The oracle against a brute-force model written here from the rules in
 * docs/rounding.md: every representable value of a format is listed as an exact
 * rational (GMP mpq, no MPFR rounding), the neighbours of an input are found
 * by search, and the mode, overflow, flush and special-value rules pick the
 * result and the flags.  Two independent computations of the same answer. */
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* ---- the model ---- */

struct point {
	mpq_t value;     /* magnitude */
	uint64_t sig;    /* integer significand: its last bit decides ties and rod */
	long exp;
	bool next_ok;    /* the next point listed is this one's successor in the format */
};

struct grid {
	struct point *p;
	size_t n, cap;
};

/* Facts about a format, derived here from its row by the definitions. */
struct model {
	const struct fpref_format *f;
	long emin, emax;     /* exponents of the least normal and of the top binade */
	uint64_t top_sig;    /* significand of max finite */
	mpq_t max_finite, min_normal;
	mpq_t below_min_normal; /* the largest value of precision p below the least normal */
	struct grid grid;    /* zero, subnormals, normals, one binade past max; sparse for wide formats */
	bool has_inf, has_nan;
};

static void set_dyadic(mpq_ptr q, uint64_t sig, long exp)
{
	mpq_set_ui(q, 1, 1);
	mpz_set_ui(mpq_numref(q), (unsigned long)sig);
	if (exp >= 0)
		mpz_mul_2exp(mpq_numref(q), mpq_numref(q), (mp_bitcnt_t)exp);
	else
		mpz_mul_2exp(mpq_denref(q), mpq_denref(q), (mp_bitcnt_t)-exp);
	mpq_canonicalize(q);
}

static void grid_push(const struct model *m, struct grid *g, uint64_t sig, long exp)
{
	uint64_t full = (uint64_t)1 << m->f->man_bits;
	if (g->n == g->cap) { /* doubling: a realloc per point is quadratic where realloc always moves (ASan) */
		g->cap = g->cap ? 2 * g->cap : 256;
		g->p = realloc(g->p, g->cap * sizeof *g->p);
		ck_assert_ptr_nonnull(g->p);
	}
	struct point *pt = &g->p[g->n++];
	mpq_init(pt->value);
	set_dyadic(pt->value, sig, exp);
	pt->sig = sig;
	pt->exp = exp;
	pt->next_ok = false;
	if (g->n > 1) {
		struct point *prev = &g->p[g->n - 2];
		prev->next_ok = prev->sig == 0 || (prev->exp == exp && prev->sig + 1 == sig) ||
				(prev->sig == 2 * full - 1 && sig == full && prev->exp + 1 == exp);
	}
}

static void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++)
		mpq_clear(g->p[i].value);
	free(g->p);
}

/* Significands listed per binade: all of them for narrow formats, the
 * first and last few for wide ones.  Returns the next k to list after k. */
static uint64_t next_listed(uint64_t k, uint64_t count)
{
	const uint64_t edge = 24;
	if (count > 4096 && k + 1 == edge)
		return count - edge;
	return k + 1;
}

static bool binade_listed(const struct model *m, long e)
{
	if (m->f->man_bits <= 12)
		return true;
	return e <= m->emin + 2 || e >= m->emax - 1 || (e >= -1 && e <= 0);
}

static void model_init(struct model *m, const struct fpref_format *f)
{
	memset(m, 0, sizeof *m);
	m->f = f;
	int M = f->man_bits;
	long top_field = (1L << f->exp_bits) - 1;
	m->emin = (f->has_zero ? 1 : 0) - f->bias;
	uint64_t full = (uint64_t)1 << M;
	/* The largest finite magnitude code (field << M | fraction): IEEE
	 * gives its whole top binade to inf and NaN; fn takes the top code for
	 * NaN, and the one below it for inf where the format has one at the
	 * top (P3109's extended formats); fnuz the top code for that inf. */
	uint64_t top_code = (uint64_t)top_field << M | (full - 1);
	uint64_t max_code = f->specials == FPREF_SPECIALS_IEEE
				    ? top_code - full
				    : top_code - (f->specials == FPREF_SPECIALS_FN ? 1 : 0) - (f->inf_at_top ? 1 : 0);
	ck_assert_uint_ge(max_code >> M, 1); /* max finite is normal in every format swept */
	m->emax = (long)(max_code >> M) - f->bias;
	m->top_sig = full + (max_code & (full - 1));
	m->has_inf = f->specials == FPREF_SPECIALS_IEEE || f->inf_at_top;
	m->has_nan = f->specials != FPREF_SPECIALS_NONE;
	mpq_inits(m->max_finite, m->min_normal, m->below_min_normal, (mpq_ptr)0);
	set_dyadic(m->max_finite, m->top_sig, m->emax - M);
	set_dyadic(m->min_normal, 1, m->emin);
	set_dyadic(m->below_min_normal, 2 * full - 1, m->emin - 1 - M);

	grid_push(m, &m->grid, 0, m->emin - M);
	if (f->subnormals && f->has_zero)
		for (uint64_t s = 1; s < full; s = next_listed(s, full))
			grid_push(m, &m->grid, s, m->emin - M);
	for (long e = m->emin; e <= m->emax + 1; e++)
		if (binade_listed(m, e))
			for (uint64_t k = 0; k < full; k = next_listed(k, full))
				grid_push(m, &m->grid, full + k, e - M);
	grid_push(m, &m->grid, full, m->emax + 2 - M);
}

static void model_clear(struct model *m)
{
	grid_free(&m->grid);
	mpq_clears(m->max_finite, m->min_normal, m->below_min_normal, (mpq_ptr)0);
}

/* Index of the largest point <= a. */
static size_t floor_index(const struct grid *g, mpq_srcptr a)
{
	size_t lo = 0, hi = g->n - 1;
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;
		if (mpq_cmp(g->p[mid].value, a) <= 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* What decides lo's evenness for ties and round to odd: its significand,
 * or, in formats that break ties by the code's parity (P3109 with P = 1,
 * where every significand is 1), its code, the exponent field (0 for
 * zero and for the point just below the least normal). */
static uint64_t parity_sig(const struct model *m, uint64_t sig, long exp)
{
	if (!m->f->code_parity || m->f->man_bits != 0)
		return sig;
	long field = exp + m->f->bias;
	return sig == 0 || field < 0 ? 0 : (uint64_t)field;
}

/* Whether the mode takes the upper neighbour hi of a in (lo, hi), lo with
 * significand lo_sig (parity_sig). */
static bool model_away(mpq_srcptr lo, uint64_t lo_sig, mpq_srcptr hi, mpq_srcptr a, bool negative,
		       const struct env_case *c)
{
	bool away = false;
	mpq_t dlo, dhi;
	mpq_inits(dlo, dhi, (mpq_ptr)0);
	mpq_sub(dlo, a, lo);
	mpq_sub(dhi, hi, a);
	int cmp = mpq_cmp(dlo, dhi);
	switch (c->env.rounding) {
	case FPREF_RNE:
		away = cmp > 0 || (cmp == 0 && (lo_sig & 1));
		break;
	case FPREF_RNA:
		away = cmp >= 0;
		break;
	case FPREF_RTZ:
		break;
	case FPREF_RUP:
		away = !negative;
		break;
	case FPREF_RDN:
		away = negative;
		break;
	case FPREF_ROD:
		away = !(lo_sig & 1);
		break;
	case FPREF_SR: {
		/* P3109's rules (docs/rounding.md, "The environment"), nu = dlo / (hi - lo),
		 * N = sr_width: A, floor(nu 2^N) + R >= 2^N; B, floor(nu 2^(N+1))
		 * + 2R + 1 >= 2^(N+1); C, rne(nu 2^N) + R >= 2^N */
		unsigned N = c->env.sr_width + (c->env.sr_rule == FPREF_SR_B ? 1 : 0);
		mpq_t frac;
		mpz_t T, rem, limit;
		mpq_init(frac);
		mpz_inits(T, rem, limit, (mpz_ptr)0);
		mpq_add(dhi, dhi, dlo);
		mpq_div(frac, dlo, dhi);
		mpz_mul_2exp(mpq_numref(frac), mpq_numref(frac), N);
		mpz_fdiv_qr(T, rem, mpq_numref(frac), mpq_denref(frac));
		if (c->env.sr_rule == FPREF_SR_C) { /* nearest, ties to even */
			mpz_mul_2exp(rem, rem, 1);
			int half = mpz_cmp(rem, mpq_denref(frac));
			if (half > 0 || (half == 0 && mpz_odd_p(T)))
				mpz_add_ui(T, T, 1);
		}
		mpz_add_ui(T, T, (unsigned long)c->R);
		if (c->env.sr_rule == FPREF_SR_B) {
			mpz_add_ui(T, T, (unsigned long)c->R);
			mpz_add_ui(T, T, 1);
		}
		mpz_setbit(limit, N);
		away = mpz_cmp(T, limit) >= 0;
		mpq_clear(frac);
		mpz_clears(T, rem, limit, (mpz_ptr)0);
		break;
	}
	}
	mpq_clears(dlo, dhi, (mpq_ptr)0);
	return away;
}

/* Tiny after rounding: |x| rounded with unbounded exponent range stays
 * below the least normal.  Only values between the largest precision-p
 * number under the least normal and the least normal itself can round up
 * to it. */
static bool tiny_after(const struct model *m, mpq_srcptr a, bool negative, const struct env_case *c)
{
	if (mpq_cmp(a, m->min_normal) >= 0)
		return false;
	if (mpq_cmp(a, m->below_min_normal) <= 0)
		return true;
	uint64_t odd_sig = parity_sig(m, 1, m->emin - 1); /* 2^p - 1 */
	return !model_away(m->below_min_normal, odd_sig, m->min_normal, a, negative, c);
}

enum kind { K_NUMBER, K_INF, K_NAN };

struct expected {
	enum kind kind;
	bool negative;
	mpq_t value; /* magnitude */
	unsigned flags;
	bool zero;   /* the rounding gave zero (before the rules for formats without zero) */
};

static void expect_lowest(const struct model *m, struct expected *e)
{
	e->kind = K_NUMBER;
	e->negative = false;
	if (m->f->has_zero)
		mpq_set_ui(e->value, 0, 1);
	else
		mpq_set(e->value, m->min_normal);
}

/* A zero result: signed zero where the format has it, else the rules for formats without zero. */
static void expect_zero(const struct model *m, const struct env_case *c, bool negative, struct expected *e)
{
	e->zero = true;
	e->kind = K_NUMBER;
	mpq_set_ui(e->value, 0, 1);
	e->negative = negative && m->f->is_signed && m->f->specials != FPREF_SPECIALS_FNUZ;
	if (m->f->has_zero)
		return;
	if (c->env.overflow == FPREF_OVERFLOW_SAT) {
		expect_lowest(m, e);
		e->flags |= FPREF_FLAG_INEXACT;
	} else {
		e->flags |= FPREF_FLAG_INVALID;
		if (m->has_nan)
			e->kind = K_NAN, e->negative = false;
		else
			expect_lowest(m, e);
	}
}

/* mirror: round a negative x into an unsigned format as a signed format of
 * the same magnitudes would (P3109 SatNone's first step). */
static void model_round_as(const struct model *m, mpq_srcptr x, const struct env_case *c, struct expected *e,
			   bool mirror)
{
	bool negative = mpq_sgn(x) < 0;
	mpq_t a;
	mpq_init(a);
	mpq_abs(a, x);
	e->flags = 0;
	e->zero = false;
	if (negative && !m->f->is_signed && !mirror && c->env.p3109_sat_none && c->env.overflow != FPREF_OVERFLOW_SAT) {
		/* P3109 SatNone (docs/rounding.md, the saturation table): round x as a
		 * signed format of these magnitudes would; a zero result, or
		 * rtz or rup, gives 0 with inexact, anything else NaN */
		struct expected r;
		mpq_init(r.value);
		model_round_as(m, x, c, &r, true);
		bool zero = r.zero; /* without zero too: then "0" is the least value, M^lo */
		mpq_clear(r.value);
		e->flags = 0;
		expect_lowest(m, e);
		if (zero || c->env.rounding == FPREF_RTZ || c->env.rounding == FPREF_RUP) {
			e->flags = FPREF_FLAG_INEXACT;
		} else {
			e->flags = FPREF_FLAG_INVALID;
			if (m->has_nan)
				e->kind = K_NAN;
		}
		mpq_clear(a);
		return;
	}
	if (negative && !m->f->is_signed && !mirror) {
		if (c->env.overflow == FPREF_OVERFLOW_SAT) {
			expect_lowest(m, e);
			e->flags = FPREF_FLAG_INEXACT;
		} else {
			expect_lowest(m, e);
			e->flags = FPREF_FLAG_INVALID;
			if (m->has_nan)
				e->kind = K_NAN;
		}
		mpq_clear(a);
		return;
	}
	if (mpq_sgn(a) == 0) {
		expect_zero(m, c, negative, e);
		mpq_clear(a);
		return;
	}
	size_t i = floor_index(&m->grid, a);
	const struct point *lo = &m->grid.p[i];
	/* Beyond the last point listed, callers pass only values of precision p. */
	bool exact = i + 1 == m->grid.n || mpq_equal(lo->value, a);
	bool away = !exact && model_away(lo->value, parity_sig(m, lo->sig, lo->exp), m->grid.p[i + 1].value, a, negative, c);
	mpq_srcptr r_value = i + 1 == m->grid.n ? a : away ? m->grid.p[i + 1].value : lo->value;
	bool tiny = c->env.tininess == FPREF_TININESS_BEFORE ? mpq_cmp(a, m->min_normal) < 0
							      : tiny_after(m, a, negative, c);
	if (!exact)
		e->flags |= FPREF_FLAG_INEXACT;
	if (!exact && tiny)
		e->flags |= FPREF_FLAG_UNDERFLOW;
	e->negative = negative;
	e->kind = K_NUMBER;
	if (c->env.ftz && tiny) {
		e->flags |= FPREF_FLAG_UNDERFLOW | FPREF_FLAG_INEXACT;
		expect_zero(m, c, negative, e);
	} else if (mpq_cmp(r_value, m->max_finite) > 0) {
		e->flags |= FPREF_FLAG_OVERFLOW | FPREF_FLAG_INEXACT;
		bool to_inf;
		switch (c->env.rounding) {
		case FPREF_RNE: case FPREF_RNA: to_inf = true; break;
		case FPREF_RTZ: to_inf = false; break;
		/* P3109 SatNone: rod overflows as the nearest modes do, but into
		 * unsigned formats with inf; sr whenever beyond max */
		case FPREF_ROD: to_inf = c->env.p3109_sat_none && (m->f->is_signed || !m->has_inf); break;
		case FPREF_RUP: to_inf = !negative; break;
		case FPREF_RDN: to_inf = negative; break;
		default: to_inf = away || c->env.p3109_sat_none; break;
		}
		mpq_set(e->value, m->max_finite);
		if (c->env.overflow == FPREF_OVERFLOW_IEEE && to_inf)
			e->kind = m->has_inf ? K_INF : m->has_nan ? K_NAN : K_NUMBER;
	} else if (mpq_sgn(r_value) == 0) {
		expect_zero(m, c, negative, e);
	} else {
		mpq_set(e->value, r_value);
	}
	mpq_clear(a);
}

static void model_round(const struct model *m, mpq_srcptr x, const struct env_case *c, struct expected *e)
{
	model_round_as(m, x, c, e, false);
}

/* ---- comparing the oracle with the model ---- */

static unsigned long mismatches;

/* Compare on x; when text is given, the oracle reads the decimal text
 * (whose exact value is x) instead of an exact binary operand. */
static void compare_text(const struct fpref_format *f, const struct model *m, mpq_srcptr x, const char *text,
			 const struct env_case *c)
{
	struct expected e;
	mpq_init(e.value);
	model_round(m, x, c, &e);

	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	if (text) {
		char err[256];
		ck_assert_msg(fpref_ref_parse(text, &v, err, sizeof err) == 0, "%s", err);
	} else {
		mpfr_set_prec(v.x, 512);
		mpfr_set_q(v.x, x, MPFR_RNDN); /* exact: x is dyadic and short */
		if (mpq_sgn(x) == 0 && e.negative)
			mpfr_neg(v.x, v.x, MPFR_RNDN);
	}
	uint64_t bits;
	unsigned flags = 0;
	fpref_ref_round(&v, f, &c->env, c->R, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);

	struct fpref_unpacked u;
	bool ok = fpref_decode(f, bits, &u) == FPREF_DECODE_OK && flags == e.flags;
	if (ok) {
		switch (e.kind) {
		case K_NAN:
			ok = u.cls == FPREF_CLASS_NAN &&
			     (f->specials == FPREF_SPECIALS_FNUZ || !f->is_signed || u.negative == e.negative);
			break;
		case K_INF:
			ok = u.cls == FPREF_CLASS_INF && u.negative == e.negative;
			break;
		case K_NUMBER: {
			mpq_t got;
			mpq_init(got);
			if (u.cls != FPREF_CLASS_INF && u.cls != FPREF_CLASS_NAN) {
				mpz_set_ui(mpq_numref(got), (unsigned long)u.significand);
				if (u.exponent >= 0)
					mpz_mul_2exp(mpq_numref(got), mpq_numref(got), (mp_bitcnt_t)u.exponent);
				else
					mpz_mul_2exp(mpq_denref(got), mpq_denref(got), (mp_bitcnt_t)-u.exponent);
				mpq_canonicalize(got);
				ok = mpq_equal(got, e.value) && u.negative == e.negative;
			} else {
				ok = false;
			}
			mpq_clear(got);
			break;
		}
		}
	}
	if (!ok && mismatches++ < 20) {
		char envtext[160];
		fpref_env_describe(&c->env, envtext, sizeof envtext);
		gmp_fprintf(stderr, "%s: x=%s%Qd %s R=%llu: oracle bits %llx flags %02x; model %s%s%Qd flags %02x\n",
			    f->name, text ? text : "", x, envtext, (unsigned long long)c->R, (unsigned long long)bits, flags,
			    e.kind == K_NAN ? "NaN " : e.kind == K_INF ? "inf " : "", e.negative ? "-" : "", e.value,
			    e.flags);
	}
	mpq_clear(e.value);
}

static void compare(const struct fpref_format *f, const struct model *m, mpq_srcptr x, const struct env_case *c)
{
	compare_text(f, m, x, NULL, c);
}

/* The exact decimal spelling of x, which must have a denominator dividing 10^k. */
static char *decimal_spelling(mpq_srcptr x, unsigned k)
{
	mpz_t n, ten;
	mpz_inits(n, ten, (mpz_ptr)0);
	mpz_ui_pow_ui(ten, 10, k);
	mpz_mul(n, mpq_numref(x), ten);
	ck_assert(mpz_divisible_p(n, mpq_denref(x)));
	mpz_divexact(n, n, mpq_denref(x));
	char *digits = mpz_get_str(NULL, 10, n);
	size_t len = strlen(digits) + 32;
	char *out = malloc(len);
	snprintf(out, len, "%se-%u", digits, k);
	void (*release)(void *, size_t);
	mp_get_memory_functions(NULL, NULL, &release);
	release(digits, strlen(digits) + 1);
	mpz_clears(n, ten, (mpz_ptr)0);
	return out;
}

/* The environments swept: the driver's DECIMAL rows (every mode, sr with
 * the words of width 4, both overflow policies, ftz on and off, both
 * tininess rules, and P3109's StochasticB and C, SatPropagate and
 * SatNone). */
static size_t build_envs(struct env_case *out)
{
	return drv_envs(DRV_ENVS_DECIMAL, out);
}

/* Inputs around grid point i: the point, a quarter, half and three
 * quarters of the way to the next, with both signs. */
static void sweep_interval(const struct model *m, size_t i, const struct env_case *envs, size_t nenv)
{
	const struct grid *g = &m->grid;
	mpq_t x, step;
	mpq_inits(x, step, (mpq_ptr)0);
	mpq_sub(step, g->p[i + 1].value, g->p[i].value);
	mpz_mul_2exp(mpq_denref(step), mpq_denref(step), 2);
	mpq_canonicalize(step);
	for (int k = 0; k < 4; k++) {
		mpq_set(x, g->p[i].value);
		for (int j = 0; j < k; j++)
			mpq_add(x, x, step);
		for (int s = 0; s < 2; s++) {
			for (size_t c = 0; c < nenv; c++)
				compare(m->f, m, x, &envs[c]);
			mpq_neg(x, x);
		}
	}
	mpq_clears(x, step, (mpq_ptr)0);
}

/* Narrow formats are swept over every interval; wider ones over windows
 * around zero, the least normal, 1 and max finite. */
START_TEST(oracle_matches_model)
{
	struct fpref_format f = drv_format((size_t)_i);
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = build_envs(envs);
	struct model m;
	model_init(&m, &f);
	mismatches = 0;
	const struct grid *g = &m.grid;
	size_t least = floor_index(g, m.min_normal);
	mpq_t one;
	mpq_init(one);
	mpq_set_ui(one, 1, 1);
	size_t unit = floor_index(g, one);
	struct drv_sweep sweep = drv_sweep_from_env();
	const size_t window = 20;
	unsigned long swept = 0;
	for (size_t i = 0; i + 1 < g->n; i++) {
		if (!g->p[i].next_ok)
			continue;
		bool near = i < window || i + window > g->n || (i + window > least && i < least + window) ||
			    (i + window > unit && i < unit + window);
		/* every interval of formats up to e8m3 (a seeded sample of those
		 * above 600 points away from the windows under the reduced sample) */
		if (g->n <= 600 || near || (g->n <= 2100 && drv_sampled(&sweep, i))) {
			sweep_interval(&m, i, envs, nenv);
			swept++;
		}
	}
	/* Far beyond the grid, and far below it. */
	mpq_t x;
	mpq_init(x);
	mpq_set(x, g->p[g->n - 1].value);
	mpz_mul_2exp(mpq_numref(x), mpq_numref(x), 40);
	mpq_canonicalize(x);
	for (size_t c = 0; c < nenv; c++)
		compare(&f, &m, x, &envs[c]);
	set_dyadic(x, 3, m.emin - f.man_bits - 7);
	for (size_t c = 0; c < nenv; c++)
		compare(&f, &m, x, &envs[c]);
	mpq_clears(x, one, (mpq_ptr)0);
	ck_assert_uint_gt(swept, g->n <= 600 ? g->n / 2 : g->n <= 2100 ? 100 + (g->n - 100) / (2 * sweep.stride) : 100);
	ck_assert_msg(mismatches == 0, "%s: %lu mismatches in %lu intervals (first ones on stderr)", f.name,
		      mismatches, swept);
	model_clear(&m);
}
END_TEST

/* Decimal inputs, which the oracle holds rounded to odd: an exact tie
 * written in decimal, and the same tie nudged by one unit in the 60th
 * digit either way, must round as the model says. */
START_TEST(decimal_inputs_round_correctly)
{
	struct fpref_format f = drv_format((size_t)_i);
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = build_envs(envs);
	struct model m;
	model_init(&m, &f);
	mismatches = 0;
	const struct grid *g = &m.grid;
	size_t least = floor_index(g, m.min_normal);
	mpq_t mid, nudge, x;
	mpq_inits(mid, nudge, x, (mpq_ptr)0);
	unsigned long cases = 0;
	for (size_t i = 0; i + 1 < g->n; i++) {
		if (!g->p[i].next_ok || !(i < 6 || i + 6 > g->n || (i + 6 > least && i < least + 6)))
			continue;
		mpq_add(mid, g->p[i].value, g->p[i + 1].value);
		mpz_mul_2exp(mpq_denref(mid), mpq_denref(mid), 1);
		mpq_canonicalize(mid);
		/* digits after the point: the binary exponent of the denominator */
		unsigned k = (unsigned)mpz_sizeinbase(mpq_denref(mid), 2) + 60;
		mpz_ui_pow_ui(mpq_denref(nudge), 10, k);
		mpz_set_ui(mpq_numref(nudge), 1);
		mpq_canonicalize(nudge);
		for (int d = -1; d <= 1; d++) {
			mpq_set(x, mid);
			if (d < 0)
				mpq_sub(x, x, nudge);
			else if (d > 0)
				mpq_add(x, x, nudge);
			for (int sgn = 0; sgn < 2; sgn++) {
				char *text = decimal_spelling(x, k);
				for (size_t c = 0; c < nenv; c++)
					compare_text(&f, &m, x, text, &envs[c]);
				free(text);
				cases++;
				mpq_neg(x, x);
			}
		}
	}
	mpq_clears(mid, nudge, x, (mpq_ptr)0);
	ck_assert_uint_gt(cases, 30);
	ck_assert_msg(mismatches == 0, "%s: %lu mismatches (first ones on stderr)", f.name, mismatches);
	model_clear(&m);
}
END_TEST

/* The rules of docs/rounding.md, one hand-worked cell each.  Input text, target,
 * mode, overflow policy, extra switches, expected bits and flags
 * (inexact 01, underflow 02, overflow 04, invalid 10). */
struct cell {
	const char *fmt, *input, *mode;
	bool sat, ftz, before;
	uint64_t bits;
	unsigned flags;
};

static const struct cell cells[] = {
	/* E4M3 (fn): max 448 = S.1111.110, NaN S.1111.111 */
	{ "e4m3", "448", "rne", 0, 0, 0, 0x7E, 0x00 },
	{ "e4m3", "464", "rne", 0, 0, 0, 0x7E, 0x01 },       /* tie between 448 and 480: even */
	{ "e4m3", "464.0001", "rne", 0, 0, 0, 0x7F, 0x05 },  /* past the tie: overflow, no inf: NaN */
	{ "e4m3", "-465", "rne", 0, 0, 0, 0xFF, 0x05 },      /* NaN keeps the sign */
	{ "e4m3", "465", "rne", 1, 0, 0, 0x7E, 0x05 },       /* sat */
	{ "e4m3", "480", "rtz", 0, 0, 0, 0x7E, 0x05 },       /* toward zero: max finite */
	{ "e4m3", "1000", "rod", 0, 0, 0, 0x7E, 0x05 },
	{ "e4m3", "480", "rup", 0, 0, 0, 0x7F, 0x05 },
	{ "e4m3", "-480", "rup", 0, 0, 0, 0xFE, 0x05 },
	{ "e4m3", "480", "rdn", 0, 0, 0, 0x7E, 0x05 },
	{ "e4m3", "-480", "rdn", 0, 0, 0, 0xFF, 0x05 },
	{ "e4m3", "inf", "rne", 0, 0, 0, 0x7F, 0x10 },
	{ "e4m3", "-inf", "rne", 0, 0, 0, 0xFF, 0x10 },
	{ "e4m3", "inf", "rne", 1, 0, 0, 0x7E, 0x05 },
	{ "e4m3", "-inf", "rne", 1, 0, 0, 0xFE, 0x05 },
	{ "e4m3", "nan", "rne", 0, 0, 0, 0x7F, 0x00 },
	{ "e4m3", "-nan", "rne", 0, 0, 0, 0xFF, 0x00 },
	{ "e4m3", "snan", "rne", 0, 0, 0, 0x7F, 0x10 },
	{ "e4m3", "nan", "rne", 1, 0, 0, 0x7F, 0x00 },       /* sat leaves NaN alone */
	{ "e4m3", "-0", "rne", 0, 0, 0, 0x80, 0x00 },
	{ "e4m3", "0x1p-10", "rne", 0, 0, 0, 0x00, 0x03 },   /* half the least subnormal: tie to 0 */
	{ "e4m3", "-0x1p-10", "rne", 0, 0, 0, 0x80, 0x03 },
	{ "e4m3", "0x1p-10", "rna", 0, 0, 0, 0x01, 0x03 },
	{ "e4m3", "0x1p-9", "rne", 0, 0, 0, 0x01, 0x00 },    /* least subnormal, exact */
	{ "e4m3", "0x1p-9", "rne", 0, 1, 0, 0x00, 0x03 },    /* ftz flushes it */
	{ "e4m3", "0x1.fp-7", "rne", 0, 0, 0, 0x08, 0x01 },  /* rounds up to the least normal: not tiny after */
	{ "e4m3", "0x1.fp-7", "rne", 0, 0, 1, 0x08, 0x03 },  /* tiny before rounding */
	{ "e4m3", "0x1.fp-7", "rne", 0, 1, 1, 0x00, 0x03 },  /* ftz with tininess before */
	{ "e4m3", "0x1.fp-7", "rne", 0, 1, 0, 0x08, 0x01 },  /* ftz with tininess after: not tiny */
	/* E5M2 (ieee): max 57344, inf 0x7C */
	{ "e5m2", "57344", "rne", 0, 0, 0, 0x7B, 0x00 },
	{ "e5m2", "61440", "rne", 0, 0, 0, 0x7C, 0x05 },     /* tie to the even 65536: inf */
	{ "e5m2", "61439", "rne", 0, 0, 0, 0x7B, 0x01 },
	{ "e5m2", "61440", "rne", 1, 0, 0, 0x7B, 0x05 },
	{ "e5m2", "-inf", "rne", 0, 0, 0, 0xFC, 0x00 },
	{ "e5m2", "inf", "rne", 1, 0, 0, 0x7B, 0x05 },       /* satfinite clamps inf too */
	{ "e5m2", "1e9", "rtz", 0, 0, 0, 0x7B, 0x05 },
	{ "e5m2", "0x1.8p-17", "rne", 0, 0, 0, 0x01, 0x03 },
	{ "e5m2", "snan", "rne", 0, 0, 0, 0x7E, 0x10 },
	/* E4M3FNUZ: max 240, NaN 0x80, no -0 */
	{ "e4m3fnuz", "240", "rne", 0, 0, 0, 0x7F, 0x00 },
	{ "e4m3fnuz", "248", "rne", 0, 0, 0, 0x80, 0x05 },   /* tie to 256: overflow, NaN */
	{ "e4m3fnuz", "247", "rne", 0, 0, 0, 0x7F, 0x01 },
	{ "e4m3fnuz", "-0", "rne", 0, 0, 0, 0x00, 0x00 },
	{ "e4m3fnuz", "-0x1p-12", "rne", 0, 0, 0, 0x00, 0x03 },
	{ "e4m3fnuz", "inf", "rne", 0, 0, 0, 0x80, 0x10 },
	{ "e4m3fnuz", "-inf", "rne", 1, 0, 0, 0xFF, 0x05 },
	{ "e4m3fnuz", "-nan", "rne", 0, 0, 0, 0x80, 0x00 },
	/* E2M1 (finite only): max 6 */
	{ "e2m1", "6", "rne", 0, 0, 0, 0x7, 0x00 },
	{ "e2m1", "7", "rne", 0, 0, 0, 0x7, 0x05 },          /* tie to the even 8: overflow, nothing but max */
	{ "e2m1", "6.5", "rne", 0, 0, 0, 0x7, 0x01 },
	{ "e2m1", "-inf", "rne", 0, 0, 0, 0xF, 0x10 },
	{ "e2m1", "inf", "rne", 1, 0, 0, 0x7, 0x05 },
	{ "e2m1", "-nan", "rne", 0, 0, 0, 0x7, 0x10 },       /* no NaN: +max, invalid */
	{ "e2m1", "0.25", "rne", 0, 0, 0, 0x0, 0x03 },
	{ "e2m1", "0.75", "rne", 0, 0, 0, 0x2, 0x03 },       /* tie to the even 1.0; tiny after rounding */
	{ "e2m1", "-0", "rne", 0, 0, 0, 0x8, 0x00 },
	/* E8M0: 2^-127..2^127, NaN 0xFF, no zero, no sign */
	{ "e8m0", "1", "rne", 0, 0, 0, 0x7F, 0x00 },
	{ "e8m0", "3", "rne", 0, 0, 0, 0x81, 0x01 },         /* one significand bit: a tie goes up */
	{ "e8m0", "3", "rtz", 0, 0, 0, 0x80, 0x01 },
	{ "e8m0", "0", "rne", 0, 0, 0, 0xFF, 0x10 },
	{ "e8m0", "0", "rne", 1, 0, 0, 0x00, 0x01 },
	{ "e8m0", "-1", "rne", 0, 0, 0, 0xFF, 0x10 },
	{ "e8m0", "-1", "rne", 1, 0, 0, 0x00, 0x01 },
	{ "e8m0", "0x1p128", "rne", 0, 0, 0, 0xFF, 0x05 },
	{ "e8m0", "0x1p128", "rne", 1, 0, 0, 0xFE, 0x05 },
	{ "e8m0", "0x1p-128", "rne", 0, 0, 0, 0xFF, 0x13 },  /* ties to zero, which it lacks */
	{ "e8m0", "0x1p-128", "rne", 1, 0, 0, 0x00, 0x03 },
	{ "e8m0", "inf", "rne", 0, 0, 0, 0xFF, 0x10 },
	/* bfloat16 and tf32 ties, odd and stochastic rounding */
	{ "bf16", "0x1.01p0", "rne", 0, 0, 0, 0x3F80, 0x01 },
	{ "bf16", "0x1.03p0", "rne", 0, 0, 0, 0x3F82, 0x01 },
	{ "bf16", "0x1.008p0", "rod", 0, 0, 0, 0x3F81, 0x01 },
	{ "bf16", "0x1.028p0", "rod", 0, 0, 0, 0x3F81, 0x01 },
	{ "bf16", "0x1.02p0", "rod", 0, 0, 0, 0x3F81, 0x00 },
	{ "tf32", "0x1.002p0", "rne", 0, 0, 0, 0x3F800000, 0x01 },
	{ "tf32", "0x1.002p0", "rna", 0, 0, 0, 0x3F802000, 0x01 },
	{ "f16", "65520", "rne", 0, 0, 0, 0x7C00, 0x05 },
	{ "f16", "65519", "rne", 0, 0, 0, 0x7BFF, 0x01 },
	{ "f16", "1e-8", "rne", 0, 0, 0, 0x0000, 0x03 },
	{ "f16", "inf", "rne", 1, 0, 0, 0x7BFF, 0x05 },
	/* the rules docs/rounding.md spells out under "Rules the tables leave implicit" */
	{ "e2m2,specials=none,unsigned", "-1", "rne", 0, 0, 0, 0x0, 0x10 },     /* negative, unsigned, no NaN: 0, invalid */
	{ "e2m2,specials=none,unsigned", "-1", "rne", 1, 0, 0, 0x0, 0x01 },     /* ... sat: 0, inexact */
	{ "e2m2,specials=none,unsigned", "-0", "rne", 0, 0, 0, 0x0, 0x00 },     /* -0 is zero, not negative */
	{ "e2m2,specials=none,unsigned", "-1e-30", "rne", 0, 0, 0, 0x0, 0x10 }, /* tiny negative: invalid, no underflow */
	{ "e2m2,specials=none,unsigned", "-1e-30", "rne", 1, 0, 0, 0x0, 0x01 },
	{ "e8m0", "-1e-30", "rne", 0, 0, 0, 0xFF, 0x10 },
	{ "e8m0", "-1e-30", "rne", 1, 0, 0, 0x00, 0x01 },
	{ "e3m1,specials=none,unsigned,zero=off,subnormals=off", "0", "rne", 0, 0, 0, 0x0, 0x10 }, /* no zero, no NaN: least, invalid */
	{ "e3m1,specials=none,unsigned,zero=off,subnormals=off", "0", "rne", 1, 0, 0, 0x0, 0x01 },
	{ "e3m1,specials=none,unsigned,zero=off,subnormals=off", "1e-30", "rne", 0, 0, 0, 0x0, 0x13 },
	{ "e3m1,specials=none,unsigned,zero=off,subnormals=off", "1e-30", "rup", 0, 0, 0, 0x0, 0x03 },
	{ "e4m3,subnormals=off", "0x1p-7", "rne", 0, 0, 0, 0x00, 0x03 },     /* half the least normal: tie to 0 */
	{ "e4m3,subnormals=off", "0x1p-7", "rna", 0, 0, 0, 0x08, 0x03 },
	{ "e4m3,subnormals=off", "0x1.01p-7", "rne", 0, 0, 0, 0x08, 0x03 },
	{ "e4m3,subnormals=off", "-0x1p-7", "rne", 0, 0, 0, 0x80, 0x03 },
	{ "e4m3", "-1000", "rne", 0, 0, 0, 0xFF, 0x05 },                    /* fn overflow: NaN with the value's sign */
	{ "e4m3fnuz", "-1000", "rne", 0, 0, 0, 0x80, 0x05 },                /* fnuz has one NaN */
	{ "f16", "0x1p-24", "rne", 0, 1, 0, 0x0000, 0x03 },                  /* exact tiny flushed: underflow, inexact */
	{ "f16", "-0x1p-15", "rne", 0, 1, 1, 0x8000, 0x03 },
	{ "e4m3", "-snan", "rne", 0, 0, 0, 0xFF, 0x10 },                     /* signaling NaN into fn: sign kept, invalid */
	{ "e4m3fnuz", "-snan", "rne", 0, 0, 0, 0x80, 0x10 },                 /* into fnuz: the NaN, invalid */
	{ "e2m1", "snan", "rne", 0, 0, 0, 0x7, 0x10 },                       /* no NaN: +max, invalid */
	/* decimals beyond MPFR's default exponent range (2^+-(2^30)): far
	 * below half the least subnormal, far above max finite */
	{ "f16", "1e-400000000", "rne", 0, 0, 0, 0x0000, 0x03 },
	{ "f16", "1e-400000000", "rup", 0, 0, 0, 0x0001, 0x03 },
	{ "f16", "-1e-400000000", "rdn", 0, 0, 0, 0x8001, 0x03 },
	{ "f16", "-1e-999999999999", "rne", 0, 0, 0, 0x8000, 0x03 },
	{ "f16", "1e-99999999999999999999999", "rod", 0, 0, 0, 0x0001, 0x03 }, /* the exponent overflows a long */
	{ "f16", "1e999999999999", "rne", 0, 0, 0, 0x7C00, 0x05 },
	{ "f16", "1e999999999999", "rtz", 0, 0, 0, 0x7BFF, 0x05 },
	{ "f16", "-1e+99999999999999999999", "rne", 1, 0, 0, 0xFBFF, 0x05 },
	{ "e4m3", "1e999999999999", "rne", 0, 0, 0, 0x7F, 0x05 },
	{ "e8m0", "1e-400000000", "rne", 0, 0, 0, 0xFF, 0x13 },           /* rounds to zero, which it lacks */
	{ "e8m0", "1e-400000000", "rup", 0, 0, 0, 0x00, 0x03 },
};

START_TEST(readme_cells)
{
	const struct cell *c = &cells[_i];
	struct fpref_format f = test_format(c->fmt);
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_rounding_parse(c->mode, &env.rounding), 0);
	env.overflow = c->sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	env.ftz = c->ftz;
	env.tininess = c->before ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[256];
	ck_assert_msg(fpref_ref_parse(c->input, &v, err, sizeof err) == 0, "%s", err);
	uint64_t bits;
	unsigned flags = 0;
	fpref_ref_round(&v, &f, &env, 0, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);
	ck_assert_msg(bits == c->bits && flags == c->flags, "%s %s %s%s: got %llx flags %02x, want %llx flags %02x",
		      c->fmt, c->input, c->mode, c->sat ? " sat" : "", (unsigned long long)bits, flags,
		      (unsigned long long)c->bits, c->flags);
}
END_TEST

/* Decimals beyond MPFR's default exponent range round in every format of
 * the driver's list and every environment as a value inside it that lies
 * on the same side of every format's range: far below (any value below
 * 2^-r of the least subnormal rounds as the tiniest positive does, r the
 * stochastic width) or far above (every mode's overflow rule alone
 * decides; sr, which reads the significand's bits, is left out above). */
START_TEST(decimals_beyond_range)
{
	struct fpref_format f = drv_format((size_t)_i);
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = build_envs(envs);
	static const char *const pairs[][2] = {
		{ "1e-400000000", "0x1.8p-70000" }, { "-1e-400000000", "-0x1.8p-70000" },
		{ "1e-999999999999", "0x1.8p-70000" }, { "-2.5e-99999999999999999999", "-0x1.8p-70000" },
		{ "1e999999999999", "0x1.8p70000" }, { "-7e+99999999999999999999", "-0x1.8p70000" },
	};
	for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
		struct fpref_ref_value far, near;
		fpref_ref_value_init(&far);
		fpref_ref_value_init(&near);
		char err[256];
		ck_assert_msg(fpref_ref_parse(pairs[p][0], &far, err, sizeof err) == 0, "%s", err);
		ck_assert_msg(fpref_ref_parse(pairs[p][1], &near, err, sizeof err) == 0, "%s", err);
		bool huge = p >= 4;
		for (size_t c = 0; c < nenv; c++) {
			if (huge && envs[c].env.rounding == FPREF_SR)
				continue;
			uint64_t a, b;
			unsigned fa = 0, fb = 0;
			fpref_ref_round(&far, &f, &envs[c].env, envs[c].R, &a, &fa, NULL);
			fpref_ref_round(&near, &f, &envs[c].env, envs[c].R, &b, &fb, NULL);
			char envtext[160];
			fpref_env_describe(&envs[c].env, envtext, sizeof envtext);
			ck_assert_msg(a == b && fa == fb, "%s %s [%s R=%llu]: %llx/%02x, but %s gives %llx/%02x", f.name,
				      pairs[p][0], envtext, (unsigned long long)envs[c].R, (unsigned long long)a, fa,
				      pairs[p][1], (unsigned long long)b, fb);
		}
		fpref_ref_value_clear(&far);
		fpref_ref_value_clear(&near);
	}
}
END_TEST

/* Stochastic rounding of 1 + 2^-8 to bfloat16: the discarded part is one
 * half, so T = 8 of 16 with r = 4, and R decides. */
START_TEST(stochastic_threshold)
{
	struct fpref_format f = test_format("bf16");
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = FPREF_SR;
	env.sr_width = 4;
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[256];
	ck_assert_int_eq(fpref_ref_parse("0x1.01p0", &v, err, sizeof err), 0);
	for (uint64_t R = 0; R < 16; R++) {
		uint64_t bits;
		unsigned flags = 0;
		fpref_ref_round(&v, &f, &env, R, &bits, &flags, NULL);
		ck_assert_uint_eq(bits, R >= 8 ? 0x3F81 : 0x3F80);
		ck_assert_uint_eq(flags, 0x01);
	}
	/* exact values never move, whatever R */
	ck_assert_int_eq(fpref_ref_parse("1.5", &v, err, sizeof err), 0);
	uint64_t bits;
	unsigned flags = 0;
	fpref_ref_round(&v, &f, &env, 15, &bits, &flags, NULL);
	ck_assert_uint_eq(bits, 0x3FC0);
	ck_assert_uint_eq(flags, 0);
	fpref_ref_value_clear(&v);
}
END_TEST

/* daz reads subnormal inputs as zero; signaling NaNs raise invalid. */
START_TEST(convert_bits)
{
	struct fpref_format f32 = test_format("f32"), f16 = test_format("f16"), e5m2 = test_format("e5m2");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t out;
	unsigned flags = 0;
	ck_assert_int_eq(fpref_ref_convert(&f32, 0x00000001, &f16, &env, 0, &out, &flags), 0);
	ck_assert(out == 0x0000 && flags == 0x03);
	env.daz = true;
	flags = 0;
	fpref_ref_convert(&f32, 0x80000001, &f16, &env, 0, &out, &flags);
	ck_assert(out == 0x8000 && flags == 0x00);
	flags = 0;
	fpref_ref_convert(&f16, 0x0001, &f32, &env, 0, &out, &flags);
	ck_assert(out == 0 && flags == 0);
	env.daz = false;
	flags = 0;
	fpref_ref_convert(&f16, 0x0001, &f32, &env, 0, &out, &flags);
	ck_assert(out == 0x33800000 && flags == 0);
	flags = 0;
	fpref_ref_convert(&f16, 0xFD01, &e5m2, &env, 0, &out, &flags); /* signaling */
	ck_assert(out == 0xFE && flags == 0x10);
	flags = 0;
	struct fpref_format e4m3 = test_format("e4m3"), fnuz = test_format("e4m3fnuz");
	flags = 0;
	fpref_ref_convert(&f16, 0xFD01, &e4m3, &env, 0, &out, &flags); /* signaling into fn: sign kept */
	ck_assert(out == 0xFF && flags == 0x10);
	flags = 0;
	fpref_ref_convert(&f16, 0xFD01, &fnuz, &env, 0, &out, &flags); /* into fnuz: the one NaN */
	ck_assert(out == 0x80 && flags == 0x10);
	flags = 0;
	fpref_ref_convert(&f16, 0x7E00, &f32, &env, 0, &out, &flags);
	ck_assert(out == 0x7FC00000 && flags == 0);
	ck_assert_int_eq(fpref_ref_convert(&f16, 0x10000, &f32, &env, 0, &out, &flags), -1);
}
END_TEST

START_TEST(parse_errors)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[256];
	static const char *const bad[] = { "", "abc", "1.2.3", "0x", "1e", "--1", "1e+", " 1", "1 ", "0x1.8q", "@inf@", "0b101" };
	static const char *const good[] = { "1", "-1.5e-3", ".5", "5.", "0x1.8p3", "0X.8P-1", "0x10", "0x1.8", "inf", "-Infinity", "nan", "sNaN", "+2", "1e999999999999", "1e-999999999999", "1e-99999999999999999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(fpref_ref_parse(bad[i], &v, err, sizeof err) == -1, "'%s' accepted", bad[i]);
		ck_assert_msg(strstr(err, bad[i]) != NULL, "message for '%s' does not name it: %s", bad[i], err);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(fpref_ref_parse(good[i], &v, err, sizeof err) == 0, "'%s' rejected: %s", good[i], err);
	fpref_ref_value_clear(&v);
}
END_TEST

/* Exact decimal printing, and the seeds' figures. */
START_TEST(printing)
{
	struct fpref_format f16 = test_format("f16"), f32 = test_format("f32"), f64 = test_format("f64");
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char *s;
	fpref_ref_from_bits(&f16, 0x0001, false, &v);
	ck_assert_str_eq(s = fpref_ref_decimal(v.x), "5.9604644775390625e-08");
	free(s);
	fpref_ref_from_bits(&f16, 0x7BFF, false, &v);
	ck_assert_str_eq(s = fpref_ref_decimal(v.x), "65504");
	free(s);
	fpref_ref_from_bits(&f16, 0x8000, false, &v);
	ck_assert_str_eq(s = fpref_ref_decimal(v.x), "-0");
	free(s);
	fpref_ref_from_bits(&f16, 0x3555, false, &v);
	ck_assert_str_eq(s = fpref_ref_decimal(v.x), "0.333251953125");
	free(s);
	/* np.float16(np.float32(1e-8) * 1024) printed as a double */
	fpref_ref_from_bits(&f16, 0x00AC, false, &v);
	ck_assert_str_eq(s = fpref_ref_decimal(v.x), "1.02519989013671875e-05");
	free(s);
	ck_assert_str_eq(s = fpref_ref_shortest(&f64, 0x3EE5800000000000), "1.0251998901367188e-05");
	free(s);
	ck_assert_str_eq(s = fpref_ref_shortest(&f16, 0x00AC), "1.025e-05");
	free(s);
	/* ... divided by 1024 in float32: 1.0011717677116394e-08 as a double */
	ck_assert_str_eq(s = fpref_ref_shortest(&f64, 0x3E45800000000000), "1.0011717677116394e-08");
	free(s);
	ck_assert_str_eq(s = fpref_ref_shortest(&f32, 0x322C0000), "1.0011718e-08");
	free(s);
	ck_assert_str_eq(s = fpref_ref_shortest(&f64, 0x3FB999999999999A), "0.1");
	free(s);
	ck_assert_str_eq(s = fpref_ref_shortest(&f32, 0x7F7FFFFF), "3.4028235e+38");
	free(s);
	fpref_ref_value_clear(&v);
}
END_TEST

/* ---- A and B of two formats (issue 36) ----
 * Hand-worked dots of mixed pairs: each reads A's patterns in A's format
 * and B's in B's, and aligns a product at its operands' places, each in its
 * own format (a subnormal at its own format's least normal exponent).  Each
 * result also differs from both one-format runs of the same patterns (an
 * oracle that read B in A's format, or A in B's, would not give it). */
struct mixed_case {
	const char *gpu, *a_format, *b_format, *output;
	size_t K;
	uint64_t a[4], b[4], c, d, exact; /* exact: the exact sum rounded to the output (rne) */
};

static const struct mixed_case mixed_cases[] = {
	/* h100-wgmma FP8, FP32 output (n = 32, F = 13, rtz), E5M2 x E4M3:
	 * a0 = 0x01, the E5M2 subnormal 2^-16, b0 = 0x78 = 2^8: p0 = 2^-8, and
	 * its place is -14 + 8 = -6 (2^-16 aligned at E5M2's least normal
	 * exponent -14).  a1 = 0x05 = 1.25 * 2^-14, b1 = 0x18 = 2^-4: p1 =
	 * 2^-18 + 2^-20, place -18.  E = -6: F = 13 bits keep places down to
	 * 2^-19, so p1 loses 2^-20: d = 2^-8 + 2^-18 = 0x3B802000, where the
	 * exact sum is 0x3B802800.  Reading 2^-16 at E4M3's least normal (-6)
	 * would give E = 2 and cut p1 to 0: 2^-8. */
	{ "h100-wgmma", "float8_e5m2", "float8_e4m3fn", "float32", 2, { 0x01, 0x05 }, { 0x78, 0x18 }, 0, 0x3B802000,
	  0x3B802800 },
	/* tcgen05 kind::f8f6f4 (n = 32, F = 25, no floor, rtz), E2M1 x E5M2, C =
	 * 2^-38 + 2^-40 (0x2CA00000): a0 = 0x1, the E2M1 subnormal 0.5 (place
	 * 0, E2M1's least normal exponent), b0 = 0x01, the E5M2 subnormal 2^-16
	 * (place -14): p0 = 2^-17 at place -14.  C's place -38 is lower: E =
	 * -14, places kept down to 2^-39, C cut to 2^-38: d = 2^-17 + 2^-38 =
	 * 0x37000004; exact 0x37000005.  E5M2's subnormal at E2M1's least
	 * normal (0) gives E = 0 and drops C (2^-17); E2M1's at E5M2's (-14)
	 * gives E = -15 and keeps all of C (the exact sum). */
	{ "tcgen05", "float4_e2m1fn", "float8_e5m2", "float32", 1, { 0x1 }, { 0x01 }, 0x2CA00000, 0x37000004,
	  0x37000005 },
	/* The same unit, E2M1 x E5M2, products straddling the F-bit cut:
	 * a0 = 0x7 = 6, b0 = 0x7B = 57344 = 1.75 * 2^15: p0 = 1.3125 * 2^18 at
	 * place 2 + 15 = 17; a1 = 0xF = -6: p1 = -p0; a2 = 0x1 = 0.5, b2 = 0x21
	 * = 1.25 * 2^-7: p2 = 2^-8 + 2^-10.  E = 17, places kept down to 2^-8:
	 * p2 is cut to 2^-8, d = 2^-8 = 0x3B800000; exact 1.25 * 2^-8 =
	 * 0x3BA00000. */
	{ "tcgen05", "float4_e2m1fn", "float8_e5m2", "float32", 3, { 0x7, 0xF, 0x1 }, { 0x7B, 0x7B, 0x21 }, 0,
	  0x3B800000, 0x3BA00000 },
	/* CDNA3 fp8 x bf8 (FNUZ; n = 16 in two halves k mod 2, F = 24, the
	 * parts floored below the largest place, rne), E4M3FNUZ x E5M2FNUZ:
	 * part 1 holds a1 = 0x01, the E4M3FNUZ subnormal 2^-10 (place -7, its
	 * least normal), times b1 = 0x7C = 2^15: p1 = 2^5 at place 8; and
	 * a3 = 0x40 = 1 times b3 = 0x05 = 1.25 * 2^-15: p3 = 2^-15 + 2^-17.
	 * E1 = 8: places down to 2^-16 kept, p3 truncated to 2^-15.  Part 0
	 * holds a0 = 0xC0 = -1 times b0 = 0x05: p0 = -(2^-15 + 2^-17), floored
	 * (toward -inf) to a multiple of 2^-16: -3 * 2^-16.  The sum 2^5 -
	 * 2^-16 (the sum's floor to 31 bits below E2 = 8 and the rounding
	 * exact): d = 0x41FFFFF8, where p0 + p3 = 0 and the exact sum is 2^5 =
	 * 0x42000000.  2^-10 at E5M2FNUZ's least normal (-15) would give E1 =
	 * 5: nothing cut, 2^5. */
	{ "mfma-cdna3", "float8_e4m3fnuz", "float8_e5m2fnuz", "float32", 4, { 0xC0, 0x01, 0x00, 0x40 },
	  { 0x05, 0x7C, 0x00, 0x05 }, 0, 0x41FFFFF8, 0x42000000 },
	/* h100 FP8 with FP16 output, the lowered path: each operand converted
	 * to FP16 from its own format, a0 = 0x01 (E5M2) = 2^-16 and b0 = 0x08
	 * (E4M3) = 2^-6: p0 = 2^-22, an FP16 subnormal, exact through the
	 * FP16 unit (E = -20 above the floor -21): 0x0004.  One format: 0x08 as
	 * E5M2 is 2^-13 (p0 = 2^-29, rounding to 0); 0x01 as E4M3 is 2^-9
	 * (2^-15: 0x0200). */
	{ "h100", "float8_e5m2", "float8_e4m3fn", "float16", 1, { 0x01 }, { 0x08 }, 0, 0x0004, 0x0004 },
};

START_TEST(mixed_pair_dots)
{
	const struct mixed_case *mc = &mixed_cases[_i];
	struct fpref_format fa = test_format(mc->a_format), fb = test_format(mc->b_format), out = test_format(mc->output);
	const struct fpref_tc_model *m = fpref_tc_model_find_pair(mc->gpu, &fa, &fb);
	ck_assert_msg(m != NULL, "%s takes no %s x %s", mc->gpu, fa.name, fb.name);
	uint64_t d = 0, same = 0;
	ck_assert_int_eq(fpref_ref_tc_dot(m, &fa, &fb, mc->a, mc->b, mc->K, mc->c, &out, &d), 0);
	ck_assert_msg(d == mc->d, "%s %s x %s: %llX, not %llX", mc->gpu, fa.name, fb.name, (unsigned long long)d,
		      (unsigned long long)mc->d);
	/* the same patterns read in one format (A's twice, B's twice) give another result, or none */
	const struct fpref_format *ones[2] = { &fa, &fb };
	for (int j = 0; j < 2; j++) {
		const struct fpref_tc_model *m1 = fpref_tc_model_find(mc->gpu, ones[j]);
		ck_assert(m1 != NULL);
		int rc = fpref_ref_tc_dot(m1, ones[j], ones[j], mc->a, mc->b, mc->K, mc->c, &out, &same);
		ck_assert_msg(rc != 0 || same != d, "%s: %s twice gives the mixed result", mc->gpu, ones[j]->name);
	}
	/* the exact dot reads the pair the same way */
	struct fpref_env env;
	fpref_env_default(&env);
	unsigned flags = 0;
	ck_assert_int_eq(fpref_ref_dot_exact(&fa, &fb, mc->a, mc->b, mc->K, mc->c, &out, &env, &d, &flags), 0);
	ck_assert_msg(d == mc->exact, "%s exact: %llX, not %llX", mc->gpu, (unsigned long long)d,
		      (unsigned long long)mc->exact);
	/* unit E8M0 scales (2^0) leave the exact value as it is */
	struct fpref_format e8m0 = test_format("float8_e8m0fnu");
	uint64_t unit[1] = { 0x7F };
	struct fpref_tc_scales scales = { &e8m0, unit, unit, 32 };
	mpfr_t plain, scaled;
	mpfr_inits2(64, plain, scaled, (mpfr_ptr)0);
	ck_assert_int_eq(fpref_ref_dot_value(&fa, &fb, mc->a, mc->b, mc->K, mc->c, &out, plain), 0);
	ck_assert_int_eq(fpref_ref_dot_value_scaled(&fa, &fb, mc->a, mc->b, mc->K, &scales, mc->c, &out, scaled), 0);
	ck_assert(mpfr_equal_p(plain, scaled));
	mpfr_clears(plain, scaled, (mpfr_ptr)0);
	/* and the bound covers the model's error */
	mpfr_t bound, exact, err;
	mpfr_inits2(64, bound, err, (mpfr_ptr)0);
	mpfr_init(exact);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	ck_assert_int_eq(fpref_ref_tc_bound(m, &fa, &fb, mc->a, mc->b, mc->K, mc->c, &out, 0, bound), 0);
	ck_assert_int_eq(fpref_ref_dot_value(&fa, &fb, mc->a, mc->b, mc->K, mc->c, &out, exact), 0);
	ck_assert_int_eq(fpref_ref_from_bits(&out, mc->d, false, &v), 0);
	mpfr_set_prec(err, mpfr_get_prec(exact) + 200);
	ck_assert_int_eq(mpfr_sub(err, v.x, exact, MPFR_RNDN), 0);
	ck_assert_msg(mpfr_cmpabs(err, bound) <= 0, "%s: error %g above the bound %g", mc->gpu, mpfr_get_d(err, MPFR_RNDN),
		      mpfr_get_d(bound, MPFR_RNDN));
	fpref_ref_value_clear(&v);
	mpfr_clears(bound, exact, err, (mpfr_ptr)0);
}
END_TEST

/* Which pairs the tensor-core calls take: a mixed row any two of its
 * inputs, a one-format row none, a custom model any pair; the lowered path
 * both formats' values in FP16. */
START_TEST(mixed_pair_refusals)
{
	struct fpref_format f16 = test_format("float16"), bf16 = test_format("bfloat16"), f32 = test_format("float32"),
			    e4m3 = test_format("float8_e4m3fn"), e5m2 = test_format("float8_e5m2"),
			    fnuz = test_format("float8_e4m3fnuz"), e2m1 = test_format("float4_e2m1fn");
	uint64_t a[1] = { 0 }, b[1] = { 0 }, d;
	mpfr_t bound;
	mpfr_init2(bound, 64);
	const struct fpref_tc_model *h100_f16 = fpref_tc_model_find("h100", &f16);
	const struct fpref_tc_model *cdna3 = fpref_tc_model_find("mfma-cdna3", &fnuz);
	const struct fpref_tc_model *wgmma = fpref_tc_model_find("h100-wgmma", &e4m3);
	ck_assert(h100_f16 && cdna3 && wgmma);
	/* f16 x bf16: the row is one format's (its instruction takes one type for both) */
	ck_assert_int_eq(fpref_ref_tc_dot(h100_f16, &f16, &bf16, a, b, 1, 0, &f32, &d), -1);
	ck_assert_int_eq(fpref_ref_tc_bound(h100_f16, &f16, &bf16, a, b, 1, 0, &f32, 0, bound), -1);
	ck_assert_int_eq(fpref_ref_tc_dot_splitk(h100_f16, &f16, &bf16, a, b, 1, 1, 0, &d), -1);
	ck_assert_int_eq(fpref_ref_tc_bound_splitk(h100_f16, &f16, &bf16, a, b, 1, 1, 0, bound), -1);
	/* CDNA3 takes FNUZ pairs, not OCP E4M3 beside them */
	ck_assert_int_eq(fpref_ref_tc_dot(cdna3, &fnuz, &e4m3, a, b, 1, 0, &f32, &d), -1);
	/* Hopper's FP8 unit takes E4M3 and E5M2, not FP4 */
	ck_assert_int_eq(fpref_ref_tc_dot(wgmma, &e4m3, &e2m1, a, b, 1, 0, &f32, &d), -1);
	ck_assert_int_eq(fpref_ref_tc_dot(wgmma, &e4m3, &e5m2, a, b, 1, 0, &f32, &d), 0);
	ck_assert_int_eq(fpref_ref_tc_dot(wgmma, &e5m2, &e4m3, a, b, 1, 0, &f16, &d), 0);
	/* a custom model takes any pair the models can read */
	struct fpref_tc_model custom;
	char err[128];
	ck_assert_int_eq(fpref_tc_model_custom(8, 24, FPREF_TC_NO_FLOOR, FPREF_RTZ, &custom, err, sizeof err), 0);
	ck_assert_int_eq(fpref_ref_tc_dot(&custom, &f16, &e2m1, a, b, 1, 0, &f32, &d), 0);
	ck_assert_int_eq(fpref_ref_tc_bound(&custom, &bf16, &e5m2, a, b, 1, 0, &f32, 0, bound), 0);
	mpfr_clear(bound);
}
END_TEST

/* The bound of the oracle's own model on random mixed dots: |d - exact| <=
 * bound wherever the bound is finite, on each path a mixed pair takes
 * (block model, two-stage, lowered, split-K). */
struct mixed_bound_case {
	const char *gpu, *a_format, *b_format, *output;
	bool splitk;
};

static const struct mixed_bound_case mixed_bound_cases[] = {
	{ "h100-wgmma", "float8_e5m2", "float8_e4m3fn", "float32", false },
	{ "h100-wgmma", "float8_e4m3fn", "float8_e5m2", "float16", false },
	{ "h100", "float8_e5m2", "float8_e4m3fn", "float16", false },   /* lowered */
	{ "ada", "float8_e4m3fn", "float8_e5m2", "float32", true },
	{ "tcgen05", "float4_e2m1fn", "float6_e3m2fn", "float32", false },
	{ "tcgen05", "float6_e2m3fn", "float8_e5m2", "float32", true },
	{ "mfma-cdna3", "float8_e4m3fnuz", "float8_e5m2fnuz", "float32", false },
	{ "mfma-cdna4", "float8_e5m2", "float4_e2m1fn", "float32", false },
};

/* A finite structured operand of magnitude below 2^max_log2. */
static uint64_t finite_operand(const struct fpref_format *f, uint64_t *state, struct fpref_ref_value *v, long max_log2)
{
	for (;;) {
		uint64_t x = drv_structured(f, state);
		if (fpref_ref_from_bits(f, x, false, v) == 0 && mpfr_number_p(v->x) &&
		    (mpfr_zero_p(v->x) || mpfr_get_exp(v->x) <= max_log2))
			return x;
	}
}

START_TEST(mixed_pair_bounds)
{
	const struct mixed_bound_case *bc = &mixed_bound_cases[_i];
	struct fpref_format fa = test_format(bc->a_format), fb = test_format(bc->b_format), out = test_format(bc->output),
			    f32 = test_format("float32");
	const struct fpref_tc_model *m = fpref_tc_model_find_pair(bc->gpu, &fa, &fb);
	ck_assert_msg(m != NULL, "%s takes no %s x %s", bc->gpu, fa.name, fb.name);
	const struct fpref_format *res = bc->splitk ? &f32 : &out;
	uint64_t state = 0x36 + (uint64_t)_i, a[96], b[96], c, d;
	mpfr_t bound, exact, err;
	mpfr_inits2(64, bound, err, (mpfr_ptr)0);
	mpfr_init(exact);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	unsigned finite = 0, reps = 300;
	long max_log2 = fpref_format_is(res, FPREF_FORMAT_FLOAT16) ? 4 : 64; /* FP16: no overflow, products <= 2^8, K < 96 */
	for (unsigned rep = 0; rep < reps; rep++) {
		size_t K = 1 + (size_t)(drv_random(&state) % 96);
		for (size_t k = 0; k < K; k++) {
			a[k] = finite_operand(&fa, &state, &v, max_log2);
			b[k] = finite_operand(&fb, &state, &v, max_log2);
		}
		c = rep % 3 ? 0 : finite_operand(res, &state, &v, max_log2);
		size_t S = 16 + (size_t)(drv_random(&state) % 48);
		if (bc->splitk) {
			ck_assert_int_eq(fpref_ref_tc_dot_splitk(m, &fa, &fb, a, b, K, S, c, &d), 0);
			ck_assert_int_eq(fpref_ref_tc_bound_splitk(m, &fa, &fb, a, b, K, S, c, bound), 0);
		} else {
			ck_assert_int_eq(fpref_ref_tc_dot(m, &fa, &fb, a, b, K, c, res, &d), 0);
			ck_assert_int_eq(fpref_ref_tc_bound(m, &fa, &fb, a, b, K, c, res, 0, bound), 0);
		}
		if (!mpfr_number_p(bound))
			continue; /* may overflow: no finite bound claimed */
		ck_assert_int_eq(fpref_ref_dot_value(&fa, &fb, a, b, K, c, res, exact), 0);
		ck_assert_int_eq(fpref_ref_from_bits(res, d, false, &v), 0);
		ck_assert_msg(mpfr_number_p(v.x), "%s: d = %llx with a finite bound", bc->gpu, (unsigned long long)d);
		mpfr_set_prec(err, mpfr_get_prec(exact) + 400);
		ck_assert_int_eq(mpfr_sub(err, v.x, exact, MPFR_RNDN), 0);
		ck_assert_msg(mpfr_cmpabs(err, bound) <= 0, "%s %s x %s K=%zu: error %g above the bound %g", bc->gpu,
			      fa.name, fb.name, K, mpfr_get_d(err, MPFR_RNDN), mpfr_get_d(bound, MPFR_RNDN));
		finite++;
	}
	ck_assert_msg(finite > reps / 2, "%s %s x %s: %u finite bounds of %u", bc->gpu, fa.name, fb.name, finite, reps);
	fpref_ref_value_clear(&v);
	mpfr_clears(bound, exact, err, (mpfr_ptr)0);
}
END_TEST

/* The format's top for a picture of a value beyond max finite (ref/picture.c),
 * worked by hand: FP4 E2M1's two largest are 4 (0 11 0) and 6 (0 11 1);
 * E4M3's 416 (7D) and 448 (7E); INT4's 6 and 7, and at the negative end -8
 * (code 8) with -7 (code 9) nearer zero; E8M0's 2^126 (FD) and 2^127 (FE). */
START_TEST(format_top)
{
	static const struct {
		const char *fmt;
		double x;
		int status;
		uint64_t lo_bits, hi_bits;
		double lo, hi, mid;
	} cases[] = {
		{ "e2m1", 465, 0, 0x6, 0x7, 4, 6, 5 },
		{ "e2m1", -465, 0, 0xE, 0xF, -4, -6, -5 },
		{ "e2m1", 6.5, 0, 0x6, 0x7, 4, 6, 5 },
		{ "e2m1", 6, -1, 0, 0, 0, 0, 0 },
		{ "e2m1", 5, -1, 0, 0, 0, 0, 0 },
		{ "e4m3", 1000, 0, 0x7D, 0x7E, 416, 448, 432 },
		{ "int4", 100, 0, 0x6, 0x7, 6, 7, 6.5 },
		{ "int4", -100, 0, 0x9, 0x8, -7, -8, -7.5 },
		{ "e8m0", 1e39, 0, 0xFD, 0xFE, 0x1p126, 0x1p127, 0x1.8p126 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fpref_format f = test_format(cases[i].fmt);
		mpfr_t x, lo, hi, mid;
		mpfr_inits2(64, x, lo, hi, mid, (mpfr_ptr)0);
		mpfr_set_d(x, cases[i].x, MPFR_RNDN);
		uint64_t lb = 0, hb = 0;
		int st = fpref_ref_format_top(&f, x, lo, hi, mid, &lb, &hb);
		ck_assert_msg(st == cases[i].status, "%s %g: status %d", cases[i].fmt, cases[i].x, st);
		if (st == 0) {
			ck_assert_msg(lb == cases[i].lo_bits && hb == cases[i].hi_bits, "%s %g: codes %llx %llx",
				      cases[i].fmt, cases[i].x, (unsigned long long)lb, (unsigned long long)hb);
			ck_assert(mpfr_cmp_d(lo, cases[i].lo) == 0);
			ck_assert(mpfr_cmp_d(hi, cases[i].hi) == 0);
			ck_assert(mpfr_cmp_d(mid, cases[i].mid) == 0);
		}
		mpfr_clears(x, lo, hi, mid, (mpfr_ptr)0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ref");
	TCase *tc = tcase_create("model");
	tcase_add_loop_test(tc, oracle_matches_model, 0, (int)drv_format_count());
	tcase_add_loop_test(tc, decimal_inputs_round_correctly, 0, (int)drv_format_count());
	tcase_add_loop_test(tc, readme_cells, 0, (int)(sizeof cells / sizeof cells[0]));
	tcase_add_loop_test(tc, decimals_beyond_range, 0, (int)drv_format_count());
	tcase_add_test(tc, stochastic_threshold);
	tcase_add_test(tc, convert_bits);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, printing);
	tcase_add_test(tc, format_top);
	tcase_add_loop_test(tc, mixed_pair_dots, 0, (int)(sizeof mixed_cases / sizeof mixed_cases[0]));
	tcase_add_test(tc, mixed_pair_refusals);
	tcase_add_loop_test(tc, mixed_pair_bounds, 0, (int)(sizeof mixed_bound_cases / sizeof mixed_bound_cases[0]));
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
