/* The oracle's E8M0 scale rules (fpref_ref_e8m0.h).  Values live in MPFR;
 * every rounding is written out here from its definition: a rounding to p
 * bits with least exponent qmin is an integer rounding of v * 2^-q. */
#include <mpfr.h>
#include <stdio.h>
#include <string.h>

#include "fpref_ref_e8m0.h"

#define PREC 128
#define NAN_CODE 0xFF
#define MAX_CODE 0xFE

/* v rounded to nearest even with p significant bits and no bit below
 * 2^qmin; a result above max_exp's binade becomes inf (IEEE overflow for
 * round to nearest: |v| >= (2 - 2^-p) * 2^max_exp). */
static void round_nearest(mpfr_t v, int p, long qmin, long max_exp)
{
	if (!mpfr_number_p(v) || mpfr_zero_p(v)) /* NaN and inf pass through; they have no exponent */
		return;
	long q = mpfr_get_exp(v) - p; /* v = m * 2^e with 1/2 <= m < 1: its last kept bit is 2^(e-p) */
	if (q < qmin)
		q = qmin;
	mpfr_mul_2si(v, v, -q, MPFR_RNDN);
	mpfr_rint(v, v, MPFR_RNDN);
	mpfr_mul_2si(v, v, q, MPFR_RNDN);
	if (!mpfr_zero_p(v) && mpfr_get_exp(v) - 1 > max_exp)
		mpfr_set_inf(v, mpfr_sgn(v));
}

static void round_f32(mpfr_t v)
{
	round_nearest(v, 24, -149, 127);
}

/* The rule's ratio from |x| (step 3). */
static int rule_input(const struct fpref_e8m0_rule *r, const struct fpref_format *element, mpfr_t v, char *err,
		      size_t errlen)
{
	if (r->input == FPREF_E8M0_VALUE)
		return 0;
	if (fpref_e8m0_element_check(element, err, errlen) != 0)
		return -1;
	long emax = fpref_format_max_exponent(element);
	if (r->input == FPREF_E8M0_AMAX_POW2) {
		mpfr_mul_2si(v, v, -emax, MPFR_RNDN);
	} else if (r->input == FPREF_E8M0_AMAX_ELEM_RNE) {
		round_nearest(v, element->man_bits + 1, -100000, 100000); /* unbounded: FP32's range fits the grid */
		mpfr_mul_2si(v, v, -emax, MPFR_RNDN);
	} else {
		struct fpref_unpacked u;
		fpref_format_max_finite(element, &u);
		mpfr_t rcp;
		mpfr_init2(rcp, PREC);
		mpfr_set_ui(rcp, (unsigned long)u.significand, MPFR_RNDN);
		mpfr_mul_2si(rcp, rcp, u.exponent, MPFR_RNDN);
		mpfr_ui_div(rcp, 1, rcp, MPFR_RNDN); /* 1/max to 128 bits, then to FP32: one correct rounding */
		round_f32(rcp);
		mpfr_mul(v, v, rcp, MPFR_RNDN); /* exact: 24 x 24 bits */
		round_f32(v);
		mpfr_clear(rcp);
	}
	return 0;
}

/* Step 5 and 6: the code of positive finite y on the rule's grid. */
static uint8_t grid_code(const struct fpref_e8m0_rule *r, const mpfr_t y)
{
	long e = mpfr_get_exp(y) - 1; /* 2^e <= y < 2^(e+1) */
	bool exact = mpfr_cmp_ui_2exp(y, 1, e) == 0;
	if (r->grid == FPREF_E8M0_GRID_PATTERN && e < -126) {
		/* between the grid's zero (code 0) and 2^-126 (code 1): the midpoint is 2^-127, a tie goes to zero */
		if (r->rounding == FPREF_RDN)
			return 0;
		if (r->rounding == FPREF_RUP)
			return 1;
		return mpfr_cmp_ui_2exp(y, 1, -127) > 0;
	}
	long k = e;
	if (r->rounding == FPREF_RUP && !exact)
		k = e + 1;
	if (r->rounding == FPREF_RNE && mpfr_cmp_ui_2exp(y, 3, e - 1) >= 0)
		k = e + 1; /* at or above 1.5 * 2^e: the larger power (the only tie rule with no fraction bits) */
	if (k < -127)
		k = -127; /* the value grid: 2^-127 is the least */
	if (k > 127)
		return r->saturate ? MAX_CODE : NAN_CODE;
	return (uint8_t)(k + 127);
}

int fpref_ref_e8m0(const struct fpref_e8m0_rule *r, const struct fpref_format *element, uint32_t x, uint8_t *code,
		   char *err, size_t errlen)
{
	float f;
	memcpy(&f, &x, sizeof f);
	mpfr_t v;
	mpfr_init2(v, PREC);
	mpfr_set_flt(v, f, MPFR_RNDN);
	if (r->source == FPREF_FORMAT_BFLOAT16)
		round_nearest(v, 8, -133, 127);
	int status = 0;
	if (mpfr_nan_p(v) || (mpfr_sgn(v) < 0 && r->negative_nan))
		*code = NAN_CODE;
	else if (mpfr_inf_p(v))
		*code = r->inf_saturates ? MAX_CODE : NAN_CODE;
	else {
		mpfr_abs(v, v, MPFR_RNDN);
		if (!mpfr_zero_p(v))
			status = rule_input(r, element, v, err, errlen);
		if (status == 0)
			*code = mpfr_zero_p(v) ? (r->zero_nan ? NAN_CODE : 0) : grid_code(r, v);
	}
	mpfr_clear(v);
	return status;
}
