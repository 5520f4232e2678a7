/* Oracle operands: parsing numbers and decoding bit patterns, exactly. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fpref_ref.h"

void fpref_ref_value_init(struct fpref_ref_value *v)
{
	mpfr_init2(v->x, FPREF_REF_WORK_PREC);
	v->signaling = false;
	v->inexact = false;
	v->nan_payload = (uint64_t)1 << 63;
}

void fpref_ref_value_clear(struct fpref_ref_value *v)
{
	mpfr_clear(v->x);
}

static bool digits_run(const char **p, int (*is_digit)(int))
{
	const char *start = *p;
	while (is_digit((unsigned char)**p))
		(*p)++;
	return *p != start;
}

/* Decimal "1.5e-3" or hex float "0x1.8p3", optionally signed.  Checked here
 * so that MPFR's more permissive syntax (spaces, '@' exponents, other bases)
 * is not accepted by accident. */
static bool number_syntax_ok(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	int (*is_digit)(int) = hex ? isxdigit : isdigit;
	if (hex)
		s += 2;
	bool whole = digits_run(&s, is_digit);
	bool frac = false;
	if (*s == '.') {
		s++;
		frac = digits_run(&s, is_digit);
	}
	if (!whole && !frac)
		return false;
	if ((hex && (*s == 'p' || *s == 'P')) || (!hex && (*s == 'e' || *s == 'E'))) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!digits_run(&s, isdigit))
			return false;
	}
	return *s == '\0';
}

int fpref_ref_parse(const char *text, struct fpref_ref_value *v, char *err, size_t errlen)
{
	const char *s = text;
	bool negative = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	mpfr_set_prec(v->x, FPREF_REF_WORK_PREC);
	v->signaling = false;
	v->inexact = false;
	if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
		mpfr_set_inf(v->x, negative ? -1 : 1);
		return 0;
	}
	if (strcasecmp(s, "nan") == 0 || strcasecmp(s, "qnan") == 0 || strcasecmp(s, "snan") == 0) {
		mpfr_set_nan(v->x);
		mpfr_setsign(v->x, v->x, negative, MPFR_RNDN);
		v->signaling = tolower((unsigned char)s[0]) == 's';
		v->nan_payload = v->signaling ? 0 : (uint64_t)1 << 63; /* text carries no payload */
		return 0;
	}
	if (!number_syntax_ok(text)) {
		snprintf(err, errlen, "malformed number '%s' (expected a decimal such as -1.5e-3, "
			 "a hex float such as 0x1.8p3, inf, nan or snan)", text);
		return -1;
	}
	/* Read in MPFR's widest exponent range (binary exponents to about
	 * +-2^62, decimal ones to about +-1.4e18), so that 1e-400000000 has its
	 * own significand rather than MPFR's default range's underflow. */
	mpfr_flags_t saved = mpfr_flags_save();
	mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
	mpfr_set_emin(mpfr_get_emin_min());
	mpfr_set_emax(mpfr_get_emax_max());
	mpfr_clear_flags();
	char *end;
	int t = mpfr_strtofr(v->x, text, &end, 0, MPFR_RNDZ);
	bool under = mpfr_underflow_p(), over = mpfr_overflow_p();
	if (*end != '\0') {
		mpfr_set_emin(emin);
		mpfr_set_emax(emax);
		mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
		snprintf(err, errlen, "number '%s' is malformed", text);
		return -1;
	}
	if (under || over) {
		/* Beyond even that range: below it, any value rounds in every
		 * format and mode as the tiniest positive one does (it lies below
		 * 2^-r of the least subnormal of every format, exponents having 15
		 * bits at most), so a stand-in of the same sign and far below
		 * stands for it; above it, a stand-in far above (every mode's
		 * overflow rule alone decides, but for sr's choice between max and
		 * inf, which reads significand bits MPFR cannot compute here: it
		 * is taken as for a value just above a power of two). */
		mpfr_set_ui_2exp(v->x, 1, under ? emin / 2 : emax / 2, MPFR_RNDN);
		if (negative)
			mpfr_neg(v->x, v->x, MPFR_RNDN);
		t = 1;
	}
	if (t != 0) {
		/* Round to odd: the sticky information survives any later rounding
		 * to a narrower precision. */
		v->inexact = true;
		if (mpfr_min_prec(v->x) < FPREF_REF_WORK_PREC) {
			if (mpfr_signbit(v->x))
				mpfr_nextbelow(v->x);
			else
				mpfr_nextabove(v->x);
		}
	}
	/* Back into the default range with the significand kept: exponents
	 * beyond +-2^29 are as far beyond every format's range (the binary
	 * exponents of 15-bit exponent fields stay within +-2^16) as the
	 * value's own. */
	if (!mpfr_zero_p(v->x) && mpfr_get_exp(v->x) > emax / 2)
		mpfr_set_exp(v->x, emax / 2);
	else if (!mpfr_zero_p(v->x) && mpfr_get_exp(v->x) < emin / 2)
		mpfr_set_exp(v->x, emin / 2);
	mpfr_set_emin(emin);
	mpfr_set_emax(emax);
	mpfr_flags_restore(saved, MPFR_FLAGS_ALL);
	return 0;
}

int fpref_ref_from_bits(const struct fpref_format *f, uint64_t bits, bool daz, struct fpref_ref_value *v)
{
	mpfr_set_prec(v->x, 64);
	return fpref_ref_from_bits_64(f, bits, daz, v);
}

int fpref_ref_from_bits_64(const struct fpref_format *f, uint64_t bits, bool daz, struct fpref_ref_value *v)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	v->signaling = false;
	v->inexact = false;
	v->nan_payload = u.nan_payload;
	int sign = u.negative ? -1 : 1;
	switch (u.cls) {
	case FPREF_CLASS_NAN:
		mpfr_set_nan(v->x);
		mpfr_setsign(v->x, v->x, u.negative, MPFR_RNDN);
		v->signaling = u.signaling;
		return 0;
	case FPREF_CLASS_INF:
		mpfr_set_inf(v->x, sign);
		return 0;
	case FPREF_CLASS_ZERO:
		mpfr_set_zero(v->x, sign);
		return 0;
	case FPREF_CLASS_SUBNORMAL:
		if (daz) {
			mpfr_set_zero(v->x, sign);
			return 0;
		}
		break;
	case FPREF_CLASS_NORMAL:
		break;
	}
	mpfr_set_uj_2exp(v->x, u.significand, u.exponent, MPFR_RNDN); /* exact: 64 bits */
	if (u.negative)
		mpfr_neg(v->x, v->x, MPFR_RNDN);
	return 0;
}
