/* The oracle's scaling recipes (fpref_ref_scale.h): values held in MPFR,
 * products formed exactly and rounded once to FP32 by the oracle, quotients
 * by the oracle's correctly rounded division, powers of two taken from the
 * exponent, amax by exact comparison.  Written apart from emu/scale.c on
 * purpose: the two must agree bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_ref.h"
#include "fpref_ref_scale.h"

struct ref_engine {
	struct fpref_format f32;
	struct fpref_env arith, cast;
	const struct fpref_format *element;
	uint32_t fp8_max, one, flt_max, nan;
};

/* A finite or special MPFR value rounded to FP32 under the engine's rules. */
static uint32_t to_f32(const struct ref_engine *e, mpfr_srcptr x)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	mpfr_set(v.x, x, MPFR_RNDN); /* callers pass values of at most the work precision: exact */
	uint64_t bits = 0;
	unsigned flags = 0;
	fpref_ref_round(&v, &e->f32, &e->arith, 0, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);
	return (uint32_t)bits;
}

static void from_f32(const struct ref_engine *e, uint32_t bits, mpfr_ptr x)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	fpref_ref_from_bits(&e->f32, bits, false, &v);
	mpfr_set(x, v.x, MPFR_RNDN);
	fpref_ref_value_clear(&v);
}

static int engine_init(struct ref_engine *e, const struct fpref_format *element, char *err, size_t errlen)
{
	if (fpref_scale_element_check(element, err, errlen) != 0 ||
	    fpref_format_parse("float32", &e->f32, err, errlen) != 0)
		return -1;
	fpref_env_default(&e->arith);
	e->cast = e->arith;
	fpref_profile_apply("cuda", element, &e->cast);
	e->cast.overflow = FPREF_OVERFLOW_SAT;
	e->element = element;
	mpfr_t t;
	mpfr_init2(t, FPREF_REF_WORK_PREC);
	struct fpref_unpacked max;
	fpref_format_max_finite(element, &max);
	mpfr_set_ui_2exp(t, (unsigned long)max.significand, max.exponent, MPFR_RNDN);
	e->fp8_max = to_f32(e, t);
	mpfr_set_ui(t, 1, MPFR_RNDN);
	e->one = to_f32(e, t);
	mpfr_set_ui_2exp(t, (1ul << 24) - 1, 127 - 23, MPFR_RNDN); /* (2 - 2^-23) * 2^127 */
	e->flt_max = to_f32(e, t);
	uint64_t nan = 0;
	fpref_format_nan_bits(&e->f32, false, &nan);
	e->nan = (uint32_t)nan;
	mpfr_clear(t);
	return 0;
}

/* a * b, exact in MPFR (48 bits at most), rounded once to FP32. */
static uint32_t mul_f32(const struct ref_engine *e, uint32_t a, uint32_t b)
{
	mpfr_t x, y;
	mpfr_inits2(FPREF_REF_WORK_PREC, x, y, (mpfr_ptr)0);
	from_f32(e, a, x);
	from_f32(e, b, y);
	mpfr_mul(x, x, y, MPFR_RNDN);
	uint32_t r = to_f32(e, x);
	mpfr_clears(x, y, (mpfr_ptr)0);
	return r;
}

static uint32_t div_f32(const struct ref_engine *e, uint32_t a, uint32_t b)
{
	uint64_t in[2] = { a, b }, out = 0;
	unsigned flags = 0;
	fpref_ref_op(FPREF_OP_DIV, &e->f32, in, &e->arith, 0, &out, &flags);
	return (uint32_t)out;
}

static uint8_t cast(const struct ref_engine *e, uint32_t v)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_ref_convert(&e->f32, v, e->element, &e->cast, 0, &out, &flags);
	return (uint8_t)out;
}

static uint32_t code_times(const struct ref_engine *e, uint8_t code, uint32_t factor)
{
	struct fpref_ref_value c;
	mpfr_t f;
	fpref_ref_value_init(&c);
	mpfr_init2(f, FPREF_REF_WORK_PREC);
	fpref_ref_from_bits(e->element, code, false, &c);
	from_f32(e, factor, f);
	mpfr_mul(f, f, c.x, MPFR_RNDN);
	uint32_t r = to_f32(e, f);
	mpfr_clear(f);
	fpref_ref_value_clear(&c);
	return r;
}

/* Running amax: NaN wins unless ignored, else the larger magnitude. */
struct amax_acc {
	mpfr_t best;
	bool nan, ignore_nan;
};

static void amax_take(const struct ref_engine *e, struct amax_acc *a, uint32_t bits)
{
	mpfr_t v;
	mpfr_init2(v, FPREF_REF_WORK_PREC);
	from_f32(e, bits, v);
	if (mpfr_nan_p(v))
		a->nan = a->nan || !a->ignore_nan;
	else if (mpfr_cmpabs(v, a->best) > 0)
		mpfr_abs(a->best, v, MPFR_RNDN);
	mpfr_clear(v);
}

static uint32_t amax_result(const struct ref_engine *e, const struct amax_acc *a)
{
	return a->nan ? e->nan : to_f32(e, a->best);
}

uint32_t fpref_ref_amax(const uint32_t *x, size_t n, bool ignore_nan)
{
	struct ref_engine e;
	char err[256];
	struct fpref_format e4m3; /* any target: only the engine's FP32 side is used */
	fpref_format_parse("float8_e4m3fn", &e4m3, err, sizeof err);
	engine_init(&e, &e4m3, err, sizeof err);
	struct amax_acc a = { .nan = false, .ignore_nan = ignore_nan };
	mpfr_init2(a.best, FPREF_REF_WORK_PREC);
	mpfr_set_zero(a.best, 1);
	for (size_t i = 0; i < n; i++)
		amax_take(&e, &a, x[i]);
	uint32_t r = amax_result(&e, &a);
	mpfr_clear(a.best);
	return r;
}

static uint32_t te_scale(const struct ref_engine *e, uint32_t amax_bits, uint32_t eps_bits, bool pow2)
{
	mpfr_t amax, eps, s;
	mpfr_inits2(FPREF_REF_WORK_PREC, amax, eps, s, (mpfr_ptr)0);
	from_f32(e, amax_bits, amax);
	from_f32(e, eps_bits, eps);
	if (mpfr_less_p(amax, eps))
		mpfr_set(amax, eps, MPFR_RNDN);
	uint32_t r = e->one;
	if (mpfr_regular_p(amax)) {
		from_f32(e, div_f32(e, e->fp8_max, to_f32(e, amax)), s);
		if (mpfr_inf_p(s))
			from_f32(e, e->flt_max, s);
		/* a power of two no larger: 2^(exponent - 1) in MPFR's [0.5, 1) convention,
		 * or 0 below FP32's normal range, where no exponent bits are left */
		if (pow2 && mpfr_cmp_ui_2exp(s, 1, -126) >= 0)
			mpfr_set_ui_2exp(s, 1, mpfr_get_exp(s) - 1, MPFR_RNDN);
		else if (pow2)
			mpfr_set_zero(s, 1);
		r = to_f32(e, s);
	}
	mpfr_clears(amax, eps, s, (mpfr_ptr)0);
	return r;
}

int fpref_ref_te_scale(const struct fpref_format *element, uint32_t amax, uint32_t eps, bool pow2, uint32_t *scale)
{
	struct ref_engine e;
	char err[256];
	if (engine_init(&e, element, err, sizeof err) != 0)
		return -1;
	*scale = te_scale(&e, amax, eps, pow2);
	return 0;
}

int fpref_ref_current_quantize(const struct fpref_current_params *p, const uint32_t *x, size_t n, uint8_t *codes,
			       uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err, size_t errlen)
{
	struct ref_engine e;
	if (fpref_current_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	uint32_t a = fpref_ref_amax(x, n, p->amax_nan != FPREF_AMAX_NAN_PROPAGATE);
	uint32_t s = te_scale(&e, a, p->eps, p->pow2);
	for (size_t i = 0; i < n; i++)
		codes[i] = cast(&e, mul_f32(&e, x[i], s));
	if (amax)
		*amax = a;
	if (scale)
		*scale = s;
	if (scale_inv)
		*scale_inv = div_f32(&e, e.one, s);
	return 0;
}

int fpref_ref_dequantize_scaled(const struct fpref_format *element, const uint8_t *codes, size_t n, uint32_t factor,
				uint32_t *out, char *err, size_t errlen)
{
	struct ref_engine e;
	if (engine_init(&e, element, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		out[i] = code_times(&e, codes[i], factor);
	return 0;
}

/* The amax a delayed step takes: the recorded one, or the largest of the
 * history after the roll (NaN entries passed over, as fmaxf does). */
static void delayed_amax(const struct ref_engine *e, const struct fpref_delayed_state *s, uint32_t recorded,
			 mpfr_ptr amax)
{
	from_f32(e, recorded, amax);
	if (s->params.algo == FPREF_AMAX_MOST_RECENT)
		return;
	mpfr_set_zero(amax, 1);
	mpfr_t v;
	mpfr_init2(v, FPREF_REF_WORK_PREC);
	for (size_t i = 0; i < s->params.history_len; i++) {
		from_f32(e, s->history[i], v);
		if (!mpfr_nan_p(v) && mpfr_greater_p(v, amax))
			mpfr_set(amax, v, MPFR_RNDN);
	}
	mpfr_clear(v);
}

int fpref_ref_delayed_step(struct fpref_delayed_state *s, const uint32_t *x, size_t n, uint8_t *codes,
			   uint32_t *scale_inv_used, uint32_t *amax_recorded, char *err, size_t errlen)
{
	struct ref_engine e;
	if (!s->history) {
		snprintf(err, errlen, "delayed scaling state not initialised");
		return -1;
	}
	if (engine_init(&e, s->params.element, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		codes[i] = cast(&e, mul_f32(&e, x[i], s->scale));
	if (scale_inv_used)
		*scale_inv_used = s->scale_inv;
	uint32_t recorded = fpref_ref_amax(x, n, s->params.amax_nan != FPREF_AMAX_NAN_PROPAGATE);
	if (amax_recorded)
		*amax_recorded = recorded;
	size_t L = s->params.history_len;
	memmove(s->history, s->history + 1, (L - 1) * sizeof *s->history);
	s->history[L - 1] = recorded;
	mpfr_t amax, scaled;
	mpfr_inits2(FPREF_REF_WORK_PREC, amax, scaled, (mpfr_ptr)0);
	delayed_amax(&e, s, recorded, amax);
	s->history[0] = 0; /* after the max: with L = 1 the only slot held the recorded amax */
	if (mpfr_regular_p(amax) && mpfr_sgn(amax) > 0) {
		from_f32(&e, e.fp8_max, scaled);
		mpfr_mul_2si(scaled, scaled, -s->params.margin, MPFR_RNDN);
		s->scale = div_f32(&e, to_f32(&e, scaled), to_f32(&e, amax));
	}
	from_f32(&e, s->scale, scaled);
	if (mpfr_inf_p(scaled))
		s->scale = e.flt_max;
	s->scale_inv = div_f32(&e, e.one, s->scale);
	s->steps++;
	mpfr_clears(amax, scaled, (mpfr_ptr)0);
	return 0;
}

/* Per block: its amax gathered element by element, then its factor and the
 * multiplier (TE) or divisor (DeepSeek) its elements take. */
struct block_plan {
	size_t grid_rows, grid_cols;
	struct amax_acc *amax;
	uint32_t *factor, *apply;
};

static size_t block_of(const struct fpref_block_params *p, const struct block_plan *b, size_t r, size_t c)
{
	return (r / p->block_rows) * b->grid_cols + c / p->block_cols;
}

static int plan_blocks(const struct ref_engine *e, const struct fpref_block_params *p, const uint32_t *x, size_t rows,
		       size_t cols, struct block_plan *b)
{
	b->grid_rows = fpref_scale_blocks(rows, p->block_rows);
	b->grid_cols = fpref_scale_blocks(cols, p->block_cols);
	size_t nb = b->grid_rows * b->grid_cols;
	b->amax = calloc(nb ? nb : 1, sizeof *b->amax);
	b->factor = calloc(nb ? nb : 1, sizeof *b->factor);
	b->apply = calloc(nb ? nb : 1, sizeof *b->apply);
	if (!b->amax || !b->factor || !b->apply)
		return -1;
	/* DeepSeek's reference takes torch.amax (NaN wins) unless told otherwise */
	bool ignore = p->amax_nan == FPREF_AMAX_NAN_IGNORE ||
		      (p->amax_nan == FPREF_AMAX_NAN_DEFAULT && p->recipe == FPREF_BLOCK_TE);
	for (size_t k = 0; k < nb; k++) {
		b->amax[k].ignore_nan = ignore;
		mpfr_init2(b->amax[k].best, FPREF_REF_WORK_PREC);
		mpfr_set_zero(b->amax[k].best, 1);
	}
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			amax_take(e, &b->amax[block_of(p, b, r, c)], x[r * cols + c]);
	for (size_t k = 0; k < nb; k++) {
		uint32_t amax = amax_result(e, &b->amax[k]);
		if (p->recipe == FPREF_BLOCK_TE) {
			b->apply[k] = te_scale(e, amax, p->eps, p->pow2);
			b->factor[k] = div_f32(e, e->one, b->apply[k]);
			continue;
		}
		mpfr_t a, eps;
		mpfr_inits2(FPREF_REF_WORK_PREC, a, eps, (mpfr_ptr)0);
		from_f32(e, amax, a);
		from_f32(e, p->eps, eps);
		if (mpfr_less_p(a, eps))
			amax = p->eps;
		b->factor[k] = b->apply[k] = div_f32(e, amax, e->fp8_max);
		mpfr_clears(a, eps, (mpfr_ptr)0);
	}
	return 0;
}

static void plan_free(struct block_plan *b)
{
	for (size_t k = 0; b->amax && k < b->grid_rows * b->grid_cols; k++)
		mpfr_clear(b->amax[k].best);
	free(b->amax);
	free(b->factor);
	free(b->apply);
}

int fpref_ref_block_quantize(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
			     uint8_t *codes, uint32_t *factors, char *err, size_t errlen)
{
	struct ref_engine e;
	if (fpref_block_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	struct block_plan b = { 0, 0, NULL, NULL, NULL };
	int status = plan_blocks(&e, p, x, rows, cols, &b);
	if (status != 0)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; status == 0 && i < rows * cols; i++) {
		size_t k = block_of(p, &b, i / cols, i % cols);
		uint32_t v = p->recipe == FPREF_BLOCK_TE ? mul_f32(&e, x[i], b.apply[k]) : div_f32(&e, x[i], b.apply[k]);
		codes[i] = cast(&e, v);
	}
	if (status == 0)
		memcpy(factors, b.factor, b.grid_rows * b.grid_cols * sizeof *factors);
	plan_free(&b);
	return status;
}

int fpref_ref_block_dequantize(const struct fpref_block_params *p, const uint8_t *codes, const uint32_t *factors,
			       size_t rows, size_t cols, uint32_t *out, char *err, size_t errlen)
{
	struct ref_engine e;
	if (fpref_block_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	size_t grid_cols = fpref_scale_blocks(cols, p->block_cols);
	for (size_t i = 0; i < rows * cols; i++) {
		size_t r = i / cols, c = i % cols;
		out[i] = code_times(&e, codes[i], factors[(r / p->block_rows) * grid_cols + c / p->block_cols]);
	}
	return 0;
}
