/* What a picture of one rounding needs from the oracle (fpref draw
 * rounding): where a value lies between two neighbours, and short
 * decimals for labels.  The drawing places marks by these and computes
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
