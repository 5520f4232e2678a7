/* Exact and shortest decimal spellings of values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_ref.h"

static char *dup_string(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Lay out sign, digits and decimal exponent (value = 0.DIGITS * 10^point)
 * as plain notation for moderate exponents, scientific otherwise. */
static char *layout(bool negative, const char *digits, long point)
{
	size_t n = strlen(digits);
	while (n > 1 && digits[n - 1] == '0')
		n--;
	size_t cap = n + 64 + (size_t)(point > 0 ? point : -point);
	char *out = malloc(cap);
	if (!out)
		return NULL;
	char *p = out;
	if (negative)
		*p++ = '-';
	/* Python's repr switches to scientific below 1e-4 and from 1e16. */
	if (point > -4 && point <= 16) {
		if (point <= 0) {
			p += sprintf(p, "0.");
			for (long i = 0; i < -point; i++)
				*p++ = '0';
			memcpy(p, digits, n);
			p += n;
		} else {
			for (long i = 0; i < point; i++)
				*p++ = (size_t)i < n ? digits[i] : '0';
			if ((size_t)point < n) {
				*p++ = '.';
				memcpy(p, digits + point, n - (size_t)point);
				p += n - (size_t)point;
			}
		}
		*p = '\0';
	} else {
		*p++ = digits[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, n - 1);
			p += n - 1;
		}
		sprintf(p, "e%s%02ld", point - 1 < 0 ? "-" : "+", labs(point - 1));
	}
	return out;
}

char *fpref_ref_decimal(mpfr_srcptr x)
{
	if (mpfr_nan_p(x))
		return dup_string(mpfr_signbit(x) ? "-nan" : "nan");
	if (mpfr_inf_p(x))
		return dup_string(mpfr_signbit(x) ? "-inf" : "inf");
	if (mpfr_zero_p(x))
		return dup_string(mpfr_signbit(x) ? "-0" : "0");
	/* x = m * 2^e; for e < 0 the exact decimal is m * 5^-e * 10^e. */
	mpz_t m, five;
	mpz_inits(m, five, (mpz_ptr)0);
	mpfr_exp_t e = mpfr_get_z_2exp(m, x);
	mpz_abs(m, m);
	long point;
	if (e >= 0) {
		mpz_mul_2exp(m, m, (mp_bitcnt_t)e);
		point = 0;
	} else {
		mpz_ui_pow_ui(five, 5, (unsigned long)-e);
		mpz_mul(m, m, five);
		point = (long)e;
	}
	char *digits = mpz_get_str(NULL, 10, m);
	/* value = digits * 10^point = 0.digits * 10^(point + len) */
	char *out = layout(mpfr_signbit(x), digits, point + (long)strlen(digits));
	void (*free_fn)(void *, size_t);
	mp_get_memory_functions(NULL, NULL, &free_fn);
	free_fn(digits, strlen(digits) + 1);
	mpz_clears(m, five, (mpz_ptr)0);
	return out;
}

char *fpref_ref_shortest(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_ref_value v, back;
	fpref_ref_value_init(&v);
	fpref_ref_value_init(&back);
	char *out = NULL;
	if (fpref_ref_from_bits(f, bits, false, &v) != 0)
		goto done;
	if (!mpfr_regular_p(v.x)) {
		out = fpref_ref_decimal(v.x);
		goto done;
	}
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t n = 1; n <= 40 && !out; n++) {
		mpfr_exp_t point;
		char *digits = mpfr_get_str(NULL, &point, 10, n, v.x, MPFR_RNDN);
		const char *d = digits[0] == '-' ? digits + 1 : digits;
		char text[128];
		snprintf(text, sizeof text, "%s0.%se%ld", mpfr_signbit(v.x) ? "-" : "", d, (long)point);
		char err[160];
		uint64_t got = 0;
		unsigned flags = 0;
		if (fpref_ref_parse(text, &back, err, sizeof err) == 0) {
			fpref_ref_round(&back, f, &env, 0, &got, &flags, NULL);
			if (got == bits)
				out = layout(mpfr_signbit(v.x), d, (long)point);
		}
		mpfr_free_str(digits);
	}
	if (!out)
		out = fpref_ref_decimal(v.x);
done:
	fpref_ref_value_clear(&v);
	fpref_ref_value_clear(&back);
	return out;
}

char *fpref_ref_unpacked_decimal(const struct fpref_unpacked *u)
{
	mpfr_t x;
	mpfr_init2(x, 64);
	switch (u->cls) {
	case FPREF_CLASS_NAN:
		mpfr_set_nan(x);
		mpfr_setsign(x, x, u->negative, MPFR_RNDN);
		break;
	case FPREF_CLASS_INF:
		mpfr_set_inf(x, u->negative ? -1 : 1);
		break;
	case FPREF_CLASS_ZERO:
		mpfr_set_zero(x, u->negative ? -1 : 1);
		break;
	default:
		mpfr_set_uj_2exp(x, u->significand, u->exponent, MPFR_RNDN);
		if (u->negative)
			mpfr_neg(x, x, MPFR_RNDN);
	}
	char *s = fpref_ref_decimal(x);
	mpfr_clear(x);
	return s;
}

char *fpref_ref_unpacked_approx(const struct fpref_unpacked *u, int digits)
{
	if (u->cls == FPREF_CLASS_NAN || u->cls == FPREF_CLASS_INF || u->cls == FPREF_CLASS_ZERO)
		return fpref_ref_unpacked_decimal(u);
	mpfr_t x;
	mpfr_init2(x, 64);
	mpfr_set_uj_2exp(x, u->significand, u->exponent, MPFR_RNDN);
	if (u->negative)
		mpfr_neg(x, x, MPFR_RNDN);
	char buf[64];
	mpfr_snprintf(buf, sizeof buf, "~%#.*Rg", digits, x);
	mpfr_clear(x);
	return dup_string(buf);
}

char *fpref_ref_shortest_value(const struct fpref_format *f, mpfr_srcptr value)
{
	uint64_t bits;
	return fpref_ref_held(f, value, &bits) ? fpref_ref_shortest(f, bits) : NULL;
}

char *fpref_ref_readable(mpfr_srcptr x, size_t max_digits)
{
	char *exact = fpref_ref_decimal(x);
	if (!exact || !mpfr_regular_p(x))
		return exact;
	size_t digits = 0;
	bool leading = true;
	for (const char *p = exact; *p && *p != 'e'; p++) {
		if (*p >= '1' && *p <= '9')
			leading = false;
		digits += !leading && *p >= '0' && *p <= '9';
	}
	if (digits <= max_digits)
		return exact;
	free(exact);
	/* x = m * 2^e with m odd */
	mpz_t m;
	mpz_init(m);
	mpfr_exp_t e = mpfr_get_z_2exp(m, x);
	mp_bitcnt_t zeros = mpz_scan1(m, 0);
	mpz_fdiv_q_2exp(m, m, zeros);
	e += (mpfr_exp_t)zeros;
	char buf[512], approx[64];
	mpfr_snprintf(approx, sizeof approx, "%.6Rg", x);
	if (mpz_cmpabs_ui(m, 1) == 0)
		snprintf(buf, sizeof buf, "%s2^%ld (~%s)", mpz_sgn(m) < 0 ? "-" : "", (long)e, approx);
	else if (mpz_sizeinbase(m, 10) < 200)
		gmp_snprintf(buf, sizeof buf, "%Zdx2^%ld (~%s)", m, (long)e, approx);
	else /* a value of many bits: the short decimal alone */
		snprintf(buf, sizeof buf, "~%s", approx);
	mpz_clear(m);
	return dup_string(buf);
}
