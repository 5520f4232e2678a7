/* The oracle against a brute-force model written here from the rules in
 * README.md: every representable value of a format is listed as an exact
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
		/* P3109's rules (README, "The environment"), nu = dlo / (hi - lo),
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
		/* P3109 SatNone (README, the saturation table): round x as a
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

/* The rules of README.md, one hand-worked cell each.  Input text, target,
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
	/* the rules README.md spells out under "Rules the tables leave implicit" */
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
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
