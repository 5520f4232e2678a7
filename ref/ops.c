/* The oracle's arithmetic: each result computed by MPFR exactly, or rounded
 * to odd at FPREF_REF_WORK_PREC bits (which any later rounding to a format
 * sees as the exact value), then rounded once by fpref_ref_round. */
#include <math.h>
#include <stdlib.h>

#include "fpref_ref.h"

/* MPFR's ternary t says which side the exact value lies; setting the last
 * bit when inexact gives round to odd. */
static void make_odd(struct fpref_ref_value *r, int t)
{
	if (t == 0)
		return;
	r->inexact = true;
	if (mpfr_min_prec(r->x) < mpfr_get_prec(r->x)) {
		if (mpfr_signbit(r->x))
			mpfr_nextbelow(r->x);
		else
			mpfr_nextabove(r->x);
	}
}

static void set_nan(struct fpref_ref_value *r, bool negative)
{
	mpfr_set_nan(r->x);
	mpfr_setsign(r->x, r->x, negative, MPFR_RNDN);
	r->signaling = false;
	r->nan_payload = (uint64_t)1 << 63; /* an operation's NaN is the canonical one, as in emu/ops.c */
}

/* An exact zero sum of operands that are not both zeros of one sign is +0,
 * or -0 when rounding toward -inf (IEEE 754 6.3). */
static void zero_sum_sign(struct fpref_ref_value *r, const struct fpref_env *env)
{
	mpfr_set_zero(r->x, env->rounding == FPREF_RDN ? -1 : 1);
}

static bool is_zero(const struct fpref_ref_value *v)
{
	return mpfr_zero_p(v->x);
}

/* The first NaN operand, if any; invalid when any operand signals. */
static const struct fpref_ref_value *first_nan(const struct fpref_ref_value *v, int n, unsigned *flags)
{
	const struct fpref_ref_value *nan = NULL;
	for (int i = 0; i < n; i++) {
		if (v[i].signaling)
			*flags |= FPREF_FLAG_INVALID;
		if (mpfr_nan_p(v[i].x) && !nan)
			nan = &v[i];
	}
	return nan;
}

/* a + b, or a - b: the sign of b as the operation sees it is flipped by
 * `subtract` (no negated copy: the oracle runs billions of these). */
static void add(struct fpref_ref_value *r, const struct fpref_ref_value *a, const struct fpref_ref_value *b,
		bool subtract, const struct fpref_env *env, unsigned *flags)
{
	bool b_negative = (mpfr_signbit(b->x) != 0) != subtract;
	if (mpfr_inf_p(a->x) && mpfr_inf_p(b->x) && (mpfr_signbit(a->x) != 0) != b_negative) {
		*flags |= FPREF_FLAG_INVALID;
		set_nan(r, false);
	} else if (is_zero(a) && mpfr_zero_p(b->x) && (mpfr_signbit(a->x) != 0) == b_negative) {
		mpfr_set(r->x, a->x, MPFR_RNDN);
	} else {
		int t = subtract ? mpfr_sub(r->x, a->x, b->x, MPFR_RNDZ) : mpfr_add(r->x, a->x, b->x, MPFR_RNDZ);
		make_odd(r, t);
		if (mpfr_zero_p(r->x))
			zero_sum_sign(r, env);
	}
}

static void fma3(struct fpref_ref_value *r, const struct fpref_ref_value *v, const struct fpref_env *env,
		 unsigned *flags)
{
	const struct fpref_ref_value *a = &v[0], *b = &v[1], *c = &v[2];
	bool product_negative = mpfr_signbit(a->x) != mpfr_signbit(b->x);
	bool product_inf = mpfr_inf_p(a->x) || mpfr_inf_p(b->x);
	if (product_inf && mpfr_inf_p(c->x) && product_negative != (mpfr_signbit(c->x) != 0)) {
		*flags |= FPREF_FLAG_INVALID;
		set_nan(r, false);
		return;
	}
	if (product_inf) {
		mpfr_set_inf(r->x, product_negative ? -1 : 1);
		return;
	}
	if (mpfr_inf_p(c->x)) {
		mpfr_set(r->x, c->x, MPFR_RNDN);
		return;
	}
	bool product_zero = is_zero(a) || is_zero(b);
	if (product_zero && is_zero(c) && product_negative == (mpfr_signbit(c->x) != 0)) {
		mpfr_set(r->x, c->x, MPFR_RNDN);
		return;
	}
	make_odd(r, mpfr_fma(r->x, a->x, b->x, c->x, MPFR_RNDZ));
	if (mpfr_zero_p(r->x))
		zero_sum_sign(r, env);
}

/* min, max and the comparisons select or compare; they never round. */
static int select_or_compare(enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
			     const struct fpref_ref_value *v, const struct fpref_env *env, uint64_t *out,
			     unsigned *flags)
{
	bool any_nan = mpfr_nan_p(v[0].x) || mpfr_nan_p(v[1].x);
	const struct fpref_ref_value *nan = first_nan(v, 2, flags);
	if (fpref_op_is_compare(op)) {
		if (any_nan) {
			if (op != FPREF_OP_EQ)
				*flags |= FPREF_FLAG_INVALID;
			*out = 0;
			return 0;
		}
		int c = mpfr_cmp(v[0].x, v[1].x);
		*out = op == FPREF_OP_EQ ? c == 0 : op == FPREF_OP_LT ? c < 0 : c <= 0;
		return 0;
	}
	if (nan) {
		/* the canonical NaN with the first NaN's sign, as the arithmetic
		 * gives (and emu/ops.c): a payload passes only through conversions,
		 * whatever the NaN style */
		struct fpref_ref_value canonical;
		fpref_ref_value_init(&canonical);
		set_nan(&canonical, mpfr_signbit(nan->x));
		unsigned ignored = 0;
		fpref_ref_round(&canonical, f, env, 0, out, &ignored, NULL);
		fpref_ref_value_clear(&canonical);
		return 0;
	}
	int c = mpfr_cmp(v[0].x, v[1].x);
	if (c == 0 && mpfr_zero_p(v[0].x)) /* -0 is the lesser zero */
		c = (mpfr_signbit(v[0].x) ? -1 : 0) + (mpfr_signbit(v[1].x) ? 1 : 0);
	int pick = (op == FPREF_OP_MIN) == (c <= 0) ? 0 : 1;
	if (c == 0)
		pick = 0;
	if (mpfr_zero_p(v[pick].x))
		*out = fpref_format_zero_bits(f, mpfr_signbit(v[pick].x)); /* a subnormal read as zero (daz) */
	else
		*out = in[pick];
	return 0;
}

/* The rounding operations' unrounded result into r (exact, or rounded to
 * odd), given the operands read into v. */
static void unrounded(enum fpref_op op, const struct fpref_ref_value *v, int n, const struct fpref_env *env,
		      struct fpref_ref_value *r, unsigned *flags)
{
	bool invalid_product = op == FPREF_OP_FMA && ((is_zero(&v[0]) && mpfr_inf_p(v[1].x)) ||
						      (mpfr_inf_p(v[0].x) && is_zero(&v[1])));
	if (invalid_product)
		*flags |= FPREF_FLAG_INVALID;
	const struct fpref_ref_value *nan = first_nan(v, n, flags);
	if (invalid_product) {
		/* before a NaN c: 0 * inf is invalid whatever c is, and an
		 * invalid operation's NaN is positive (docs/rounding.md, "Arithmetic") */
		set_nan(r, false);
	} else if (nan) {
		set_nan(r, mpfr_signbit(nan->x));
	} else {
		switch (op) {
		case FPREF_OP_ADD:
		case FPREF_OP_SUB:
			add(r, &v[0], &v[1], op == FPREF_OP_SUB, env, flags);
			break;
		case FPREF_OP_MUL:
			if ((is_zero(&v[0]) && mpfr_inf_p(v[1].x)) || (mpfr_inf_p(v[0].x) && is_zero(&v[1]))) {
				*flags |= FPREF_FLAG_INVALID;
				set_nan(r, false);
			} else {
				make_odd(r, mpfr_mul(r->x, v[0].x, v[1].x, MPFR_RNDZ));
			}
			break;
		case FPREF_OP_DIV:
			if ((is_zero(&v[0]) && is_zero(&v[1])) || (mpfr_inf_p(v[0].x) && mpfr_inf_p(v[1].x))) {
				*flags |= FPREF_FLAG_INVALID;
				set_nan(r, false);
			} else {
				if (is_zero(&v[1]) && !mpfr_inf_p(v[0].x))
					*flags |= FPREF_FLAG_INFINITE;
				make_odd(r, mpfr_div(r->x, v[0].x, v[1].x, MPFR_RNDZ));
			}
			break;
		case FPREF_OP_SQRT:
			if (mpfr_signbit(v[0].x) && !is_zero(&v[0])) {
				*flags |= FPREF_FLAG_INVALID;
				set_nan(r, false);
			} else {
				make_odd(r, mpfr_sqrt(r->x, v[0].x, MPFR_RNDZ));
			}
			break;
		case FPREF_OP_FMA:
			fma3(r, v, env, flags);
			break;
		default:
			break;
		}
	}
}

/* Read the operands and compute op: a rounding operation's unrounded
 * result into r, a selection's or comparison's final result into *out
 * (*selected set).  0, or -1 for an invalid pattern or format. */
static int compute(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct fpref_env *env,
		   struct fpref_ref_value *r, uint64_t *out, bool *selected, unsigned *flags)
{
	*selected = op >= FPREF_OP_MIN;
	r->signaling = false; /* r may be a caller's, reused */
	r->inexact = false;
	r->nan_payload = (uint64_t)1 << 63;
	if (f->man_bits > FPREF_OP_MAX_MAN_BITS)
		return -1;
	int n = fpref_op_arity(op);
	struct fpref_ref_value v[3];
	int status = 0;
	for (int i = 0; i < n; i++) /* only the operands the operation reads: each is an allocation */
		fpref_ref_value_init(&v[i]);
	for (int i = 0; i < n && status == 0; i++)
		status = fpref_ref_from_bits(f, in[i], env->daz, &v[i]);
	if (status == 0) {
		mpfr_flags_t saved = mpfr_flags_save();
		if (*selected)
			status = select_or_compare(op, f, in, v, env, out, flags);
		else
			unrounded(op, v, n, env, r, flags);
		mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
	}
	for (int i = 0; i < n; i++)
		fpref_ref_value_clear(&v[i]);
	return status;
}

int fpref_ref_op(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct fpref_env *env,
		 uint64_t sr_random, uint64_t *out, unsigned *flags)
{
	struct fpref_ref_value r;
	fpref_ref_value_init(&r);
	bool selected;
	int status = compute(op, f, in, env, &r, out, &selected, flags);
	if (status == 0 && !selected)
		fpref_ref_round(&r, f, env, sr_random, out, flags, NULL);
	fpref_ref_value_clear(&r);
	return status;
}

int fpref_ref_op_unrounded(enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
			   const struct fpref_env *env, struct fpref_ref_value *r, unsigned *flags)
{
	uint64_t ignored;
	bool selected;
	int status = compute(op, f, in, env, r, &ignored, &selected, flags);
	return selected ? -1 : status;
}

/* The exact terms of a . b + c (a_k of in_a, b_k of in_b, c of acc): K
 * products and c, each exact in 130 bits, with the exponent range they span.  0, or -1 for an invalid pattern (the
 * terms made so far are still counted in *n, for clearing). */
struct dot_terms {
	mpfr_t *terms;
	mpfr_ptr *refs;
	size_t n;
	bool nan, pos_inf, neg_inf;
	mpfr_exp_t top, bottom;
};

static int dot_terms(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
		     const struct fpref_format *acc, bool daz, struct dot_terms *t)
{
	*t = (struct dot_terms){ malloc((K + 1) * sizeof *t->terms), malloc((K + 1) * sizeof *t->refs), 0, false,
				 false, false, MPFR_EMIN_MIN, MPFR_EMAX_MAX };
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	int status = t->terms && t->refs ? 0 : -1;
	for (size_t k = 0; k <= K && status == 0; k++) {
		bool is_c = k == K;
		status = fpref_ref_from_bits(is_c ? acc : in_a, is_c ? c : a[k], daz, &x);
		if (status == 0 && !is_c)
			status = fpref_ref_from_bits(in_b, b[k], daz, &y);
		if (status != 0)
			break;
		mpfr_ptr term = t->terms[t->n];
		mpfr_init2(term, 2 * 64 + 2);
		if (is_c)
			mpfr_set(term, x.x, MPFR_RNDN);
		else
			mpfr_mul(term, x.x, y.x, MPFR_RNDN); /* exact: two significands of at most 64 bits */
		if (mpfr_nan_p(term))
			t->nan = true;
		else if (mpfr_inf_p(term))
			*(mpfr_signbit(term) ? &t->neg_inf : &t->pos_inf) = true;
		else if (mpfr_regular_p(term)) {
			mpfr_exp_t e = mpfr_get_exp(term);
			t->top = e > t->top ? e : t->top;
			t->bottom = e - 2 * 64 - 2 < t->bottom ? e - 2 * 64 - 2 : t->bottom;
		}
		t->refs[t->n++] = term;
	}
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return status;
}

static void dot_terms_clear(struct dot_terms *t)
{
	for (size_t i = 0; i < t->n; i++)
		mpfr_clear(t->terms[i]);
	free(t->terms);
	free(t->refs);
}

int fpref_ref_dot_exact(const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			const struct fpref_env *env, uint64_t *d, unsigned *flags)
{
	struct fpref_ref_value r;
	fpref_ref_value_init(&r);
	mpfr_flags_t saved = mpfr_flags_save();
	struct dot_terms t;
	int status = dot_terms(in_a, in_b, a, b, K, c, acc, env->daz, &t);
	if (status == 0) {
		if (t.nan || (t.pos_inf && t.neg_inf)) {
			*flags |= FPREF_FLAG_INVALID;
			set_nan(&r, false);
		} else if (t.pos_inf || t.neg_inf) {
			mpfr_set_inf(r.x, t.neg_inf ? -1 : 1);
		} else {
			mpfr_set_prec(r.x, FPREF_REF_WORK_PREC);
			make_odd(&r, mpfr_sum(r.x, t.refs, (unsigned long)t.n, MPFR_RNDZ));
			if (mpfr_zero_p(r.x) && !r.inexact)
				zero_sum_sign(&r, env);
		}
		mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
		fpref_ref_round(&r, acc, env, env->sr_random, d, flags, NULL);
	}
	dot_terms_clear(&t);
	fpref_ref_value_clear(&r);
	return status;
}

int fpref_ref_dot_value(const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			mpfr_ptr exact)
{
	struct dot_terms t;
	int status = dot_terms(in_a, in_b, a, b, K, c, acc, false, &t);
	if (status == 0) {
		/* enough bits for every term's place and the carries: the sum is exact */
		mpfr_set_prec(exact, t.top > t.bottom ? (mpfr_prec_t)(t.top - t.bottom) + 72 : 64);
		mpfr_sum(exact, t.refs, (unsigned long)t.n, MPFR_RNDN);
	}
	dot_terms_clear(&t);
	return status;
}

int fpref_ref_error(const struct fpref_format *f, uint64_t bits, mpfr_srcptr exact, double *abs_err, double *rel_err,
		    double *ulps)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	if (fpref_ref_from_bits(f, bits, false, &v) != 0 || !mpfr_number_p(v.x) || !mpfr_number_p(exact)) {
		fpref_ref_value_clear(&v);
		return -1;
	}
	mpfr_t err, t;
	mpfr_init2(err, mpfr_get_prec(exact) + 2200); /* room for any value of FP64 or narrower beside it: exact */
	mpfr_init2(t, 64);
	mpfr_sub(err, v.x, exact, MPFR_RNDN); /* exact */
	mpfr_abs(err, err, MPFR_RNDN);
	*abs_err = mpfr_get_d(err, MPFR_RNDU);
	if (mpfr_zero_p(exact))
		*rel_err = mpfr_zero_p(err) ? 0 : INFINITY;
	else {
		mpfr_div(t, err, exact, MPFR_RNDU);
		*rel_err = fabs(mpfr_get_d(t, MPFR_RNDU));
	}
	/* the spacing of f at the exact value: 2^(max(floor(log2 |x|), emin) - man_bits) */
	struct fpref_unpacked u;
	fpref_format_min_normal(f, &u);
	long emin = u.exponent;
	for (uint64_t s = u.significand; s > 1; s >>= 1)
		emin++;
	long e = mpfr_zero_p(exact) ? emin : (long)mpfr_get_exp(exact) - 1;
	mpfr_div_2si(t, err, (e > emin ? e : emin) - f->man_bits, MPFR_RNDU);
	*ulps = mpfr_get_d(t, MPFR_RNDU);
	mpfr_clear(err);
	mpfr_clear(t);
	fpref_ref_value_clear(&v);
	return 0;
}

int fpref_ref_op_value(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, mpfr_ptr value)
{
	if (fpref_op_is_compare(op))
		return -1;
	struct fpref_ref_value v[3];
	int arity = fpref_op_arity(op), status = 0;
	for (int i = 0; i < 3; i++)
		fpref_ref_value_init(&v[i]);
	for (int i = 0; i < arity && status == 0; i++)
		status = fpref_ref_from_bits(f, in[i], false, &v[i]);
	if (status == 0) {
		/* enough bits to hold any sum of two products of f exactly: twice
		 * its exponent span plus its precision; division and square root
		 * are correct to that many bits instead */
		long span = (long)fpref_format_max_exponent(f) - fpref_format_min_exponent(f) + f->man_bits + 2;
		mpfr_set_prec(value, (mpfr_prec_t)(2 * span + 2 * f->man_bits + 64));
		switch (op) {
		case FPREF_OP_ADD:
			mpfr_add(value, v[0].x, v[1].x, MPFR_RNDN);
			break;
		case FPREF_OP_SUB:
			mpfr_sub(value, v[0].x, v[1].x, MPFR_RNDN);
			break;
		case FPREF_OP_MUL:
			mpfr_mul(value, v[0].x, v[1].x, MPFR_RNDN);
			break;
		case FPREF_OP_DIV:
			mpfr_div(value, v[0].x, v[1].x, MPFR_RNDN);
			break;
		case FPREF_OP_SQRT:
			mpfr_sqrt(value, v[0].x, MPFR_RNDN);
			break;
		case FPREF_OP_FMA:
			mpfr_fma(value, v[0].x, v[1].x, v[2].x, MPFR_RNDN);
			break;
		case FPREF_OP_MIN:
		case FPREF_OP_MAX: {
			int c = mpfr_cmp(v[0].x, v[1].x);
			bool first = op == FPREF_OP_MIN ? c < 0 : c > 0;
			if (c == 0) /* -0 below +0 */
				first = op == FPREF_OP_MIN ? mpfr_signbit(v[0].x) != 0 : mpfr_signbit(v[0].x) == 0;
			if (mpfr_nan_p(v[0].x) || mpfr_nan_p(v[1].x))
				mpfr_set_nan(value);
			else
				mpfr_set(value, first ? v[0].x : v[1].x, MPFR_RNDN);
			break;
		}
		default:
			status = -1;
			break;
		}
	}
	for (int i = 0; i < 3; i++)
		fpref_ref_value_clear(&v[i]);
	return status;
}
