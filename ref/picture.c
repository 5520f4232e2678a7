/* What a picture of one rounding needs from the oracle (fpref draw
 * rounding): where a value lies between two neighbours, the format's top
 * for a value beyond it, and short decimals for labels.  The drawing places marks by these and computes
 * nothing of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "fpref_ref.h"

double fpref_ref_fraction(mpfr_srcptr lo, mpfr_srcptr hi, mpfr_srcptr x)
{
	if (!mpfr_number_p(lo) || !mpfr_number_p(hi) || !mpfr_number_p(x) || mpfr_equal_p(lo, hi))
		return NAN;
	mpfr_t num, den;
	/* the differences exact for neighbours and a value between them (their
	 * exponents lie close); the quotient rounds once to binary64 */
	mpfr_prec_t p = mpfr_get_prec(lo) + mpfr_get_prec(hi) + mpfr_get_prec(x) + 4 * 64;
	mpfr_inits2(p, num, den, (mpfr_ptr)0);
	mpfr_sub(num, x, lo, MPFR_RNDN);
	mpfr_sub(den, hi, lo, MPFR_RNDN);
	mpfr_div(num, num, den, MPFR_RNDN);
	double r = mpfr_get_d(num, MPFR_RNDN);
	mpfr_clears(num, den, (mpfr_ptr)0);
	return r;
}

char *fpref_ref_short_decimal(mpfr_srcptr x, int digits)
{
	char *s = NULL;
	if (mpfr_asprintf(&s, "%.*Rg", digits, x) < 0)
		return NULL;
	/* mpfr's strings are freed with mpfr_free_str; callers use free() */
	char *out = malloc(strlen(s) + 1);
	if (out)
		strcpy(out, s);
	mpfr_free_str(s);
	return out;
}

int fpref_ref_format_top(const struct fpref_format *f, mpfr_srcptr x, mpfr_ptr lo, mpfr_ptr hi, mpfr_ptr mid,
			 uint64_t *lo_bits, uint64_t *hi_bits)
{
	if (!mpfr_number_p(x))
		return -1;
	bool neg = mpfr_signbit(x) != 0;
	uint64_t top = fpref_format_max_bits(f, neg), step = (uint64_t)1 << f->pad_bits;
	struct fpref_ref_value t, b;
	fpref_ref_value_init(&t);
	fpref_ref_value_init(&b);
	int status = -1;
	if (fpref_ref_from_bits(f, top, false, &t) == 0 && mpfr_cmpabs(x, t.x) > 0) {
		/* the next code below in magnitude: one step down, or one up from
		 * a two's complement minimum */
		uint64_t cand[2] = { top - step, top + step };
		for (int i = 0; i < 2 && status; i++)
			if (fpref_ref_from_bits(f, cand[i], false, &b) == 0 && mpfr_number_p(b.x) &&
			    mpfr_signbit(b.x) == mpfr_signbit(t.x) && mpfr_cmpabs(b.x, t.x) < 0) {
				mpfr_prec_t p = mpfr_get_prec(t.x) > mpfr_get_prec(b.x) ? mpfr_get_prec(t.x) : mpfr_get_prec(b.x);
				mpfr_set_prec(lo, p);
				mpfr_set_prec(hi, p);
				mpfr_set_prec(mid, p + 1);
				mpfr_set(lo, b.x, MPFR_RNDN);
				mpfr_set(hi, t.x, MPFR_RNDN);
				mpfr_add(mid, lo, hi, MPFR_RNDN); /* exact: neighbours, one more bit */
				mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
				*lo_bits = cand[i];
				*hi_bits = top;
				status = 0;
			}
	}
	fpref_ref_value_clear(&t);
	fpref_ref_value_clear(&b);
	return status;
}
