/* Exact encode and decode between bit patterns and (sign, exponent,
 * significand), and the exact constants of a format. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "fpref_formats.h"

static uint64_t low_mask(int bits)
{
	return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
}

static uint64_t exp_all_ones(const struct fpref_format *f)
{
	return low_mask(f->exp_bits);
}

int fpref_format_width(const struct fpref_format *f)
{
	return (f->is_signed ? 1 : 0) + f->exp_bits + f->man_bits;
}

int fpref_format_container_bits(const struct fpref_format *f)
{
	return fpref_format_width(f) + f->pad_bits;
}

int fpref_format_precision(const struct fpref_format *f)
{
	return f->man_bits + 1;
}

/* The least exponent field that holds normal numbers. */
static int min_normal_field(const struct fpref_format *f)
{
	return f->has_zero ? 1 : 0;
}

/* The greatest magnitude code (exponent and mantissa fields together)
 * that is not a NaN, and the code of the largest finite value below it or
 * at it. */
static uint64_t top_magnitude(const struct fpref_format *f)
{
	uint64_t all = low_mask(f->exp_bits + f->man_bits);
	if (f->specials == FPREF_SPECIALS_IEEE)
		return (exp_all_ones(f) << f->man_bits) - 1;
	if (f->specials == FPREF_SPECIALS_FN)
		return all - 1; /* the all-ones code is the NaN */
	return all;
}

static uint64_t max_finite_magnitude(const struct fpref_format *f)
{
	return top_magnitude(f) - (f->inf_at_top ? 1 : 0);
}

static int max_finite_field(const struct fpref_format *f)
{
	return (int)(max_finite_magnitude(f) >> f->man_bits);
}

/* The greatest mantissa in the top finite binade. */
static uint64_t max_finite_mantissa(const struct fpref_format *f)
{
	return max_finite_magnitude(f) & low_mask(f->man_bits);
}

int fpref_format_min_exponent(const struct fpref_format *f)
{
	return min_normal_field(f) - f->bias;
}

int fpref_format_max_exponent(const struct fpref_format *f)
{
	return max_finite_field(f) - f->bias;
}

bool fpref_format_has_inf(const struct fpref_format *f)
{
	return f->specials == FPREF_SPECIALS_IEEE || f->inf_at_top;
}

bool fpref_format_has_nan(const struct fpref_format *f)
{
	return f->specials != FPREF_SPECIALS_NONE;
}

bool fpref_format_has_negative_zero(const struct fpref_format *f)
{
	return f->is_signed && f->has_zero && f->specials != FPREF_SPECIALS_FNUZ && !f->integer;
}

static uint64_t sign_bit(const struct fpref_format *f, bool negative)
{
	if (!negative || !f->is_signed)
		return 0;
	return (uint64_t)1 << (f->exp_bits + f->man_bits + f->pad_bits);
}

/* An integer format's magnitude in steps: field 0 holds the subnormal
 * steps, field e >= 1 the normal 1.m * 2^(e-1) (e = 2: -2^(n-1)). */
static uint64_t int_steps(const struct fpref_format *f, uint64_t field, uint64_t mantissa)
{
	return field == 0 ? mantissa : (((uint64_t)1 << f->man_bits) | mantissa) << (field - 1);
}

static uint64_t pack(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	if (f->integer) {
		uint64_t k = int_steps(f, field, mantissa);
		return (negative && f->is_signed ? ~k + 1 : k) & low_mask(fpref_format_width(f));
	}
	return sign_bit(f, negative) | (((field << f->man_bits) | mantissa) << f->pad_bits);
}

uint64_t fpref_format_code(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	return pack(f, negative, field, mantissa);
}

/* Whether f has the extra negative code -2^(n-1). */
static bool int_min_code(const struct fpref_format *f)
{
	return f->integer && f->is_signed && !f->symmetric;
}

void fpref_format_max_finite(const struct fpref_format *f, struct fpref_unpacked *out)
{
	out->cls = FPREF_CLASS_NORMAL;
	out->negative = false;
	out->signaling = false;
	out->significand = ((uint64_t)1 << f->man_bits) | max_finite_mantissa(f);
	out->exponent = fpref_format_max_exponent(f) - f->man_bits;
}

void fpref_format_max_magnitude(const struct fpref_format *f, bool negative, struct fpref_unpacked *out)
{
	fpref_format_max_finite(f, out);
	if (negative && int_min_code(f)) {
		out->significand = 1;
		out->exponent = fpref_format_max_exponent(f) + 1;
	}
}

void fpref_format_min_normal(const struct fpref_format *f, struct fpref_unpacked *out)
{
	out->cls = FPREF_CLASS_NORMAL;
	out->negative = false;
	out->signaling = false;
	out->significand = 1;
	out->exponent = fpref_format_min_exponent(f);
}

void fpref_format_min_positive(const struct fpref_format *f, struct fpref_unpacked *out)
{
	fpref_format_min_normal(f, out);
	if (f->subnormals && f->man_bits > 0) {
		out->cls = FPREF_CLASS_SUBNORMAL;
		out->exponent -= f->man_bits;
	}
}

void fpref_format_epsilon(const struct fpref_format *f, struct fpref_unpacked *out)
{
	out->cls = FPREF_CLASS_NORMAL;
	out->negative = false;
	out->signaling = false;
	out->significand = 1;
	out->exponent = -f->man_bits;
}

bool fpref_format_nan_bits(const struct fpref_format *f, bool negative, uint64_t *bits)
{
	switch (f->specials) {
	case FPREF_SPECIALS_IEEE:
		*bits = pack(f, negative, exp_all_ones(f), (uint64_t)1 << (f->man_bits - 1));
		return true;
	case FPREF_SPECIALS_FN:
		*bits = pack(f, negative, exp_all_ones(f), low_mask(f->man_bits));
		return true;
	case FPREF_SPECIALS_FNUZ:
		*bits = pack(f, true, 0, 0);
		return true;
	case FPREF_SPECIALS_NONE:
		break;
	}
	return false;
}

bool fpref_format_inf_bits(const struct fpref_format *f, bool negative, uint64_t *bits)
{
	if (!fpref_format_has_inf(f))
		return false;
	if (f->inf_at_top)
		*bits = pack(f, negative, top_magnitude(f) >> f->man_bits, top_magnitude(f) & low_mask(f->man_bits));
	else
		*bits = pack(f, negative, exp_all_ones(f), 0);
	return true;
}

uint64_t fpref_format_max_bits(const struct fpref_format *f, bool negative)
{
	if (negative && int_min_code(f))
		return pack(f, true, (uint64_t)max_finite_field(f) + 1, 0);
	return pack(f, negative, (uint64_t)max_finite_field(f), max_finite_mantissa(f));
}

uint64_t fpref_format_zero_bits(const struct fpref_format *f, bool negative)
{
	return pack(f, negative && fpref_format_has_negative_zero(f), 0, 0);
}

void fpref_fields(const struct fpref_format *f, uint64_t bits, unsigned *sign, uint64_t *exponent, uint64_t *mantissa)
{
	uint64_t raw = bits >> f->pad_bits;
	*mantissa = raw & low_mask(f->man_bits);
	*exponent = (raw >> f->man_bits) & exp_all_ones(f);
	*sign = f->is_signed ? (unsigned)((raw >> (f->man_bits + f->exp_bits)) & 1) : 0;
}

/* An integer code: k steps of 2^(emin - man_bits), two's complement
 * where signed. */
static enum fpref_decode_status decode_int(const struct fpref_format *f, uint64_t bits, struct fpref_unpacked *out)
{
	int n = fpref_format_width(f);
	uint64_t top = (uint64_t)1 << (n - 1);
	bool negative = f->is_signed && (bits & top);
	uint64_t k = negative ? (~bits + 1) & low_mask(n) : bits;
	memset(out, 0, sizeof *out);
	out->negative = negative;
	out->significand = k;
	out->exponent = fpref_format_min_exponent(f) - f->man_bits;
	out->cls = k == 0 ? FPREF_CLASS_ZERO : k < ((uint64_t)1 << f->man_bits) ? FPREF_CLASS_SUBNORMAL : FPREF_CLASS_NORMAL;
	if (k == 0)
		out->exponent = 0;
	return negative && k == top && f->symmetric ? FPREF_DECODE_NONCANONICAL : FPREF_DECODE_OK;
}

enum fpref_decode_status fpref_decode(const struct fpref_format *f, uint64_t bits, struct fpref_unpacked *out)
{
	int container = fpref_format_container_bits(f);
	if (container < 64 && (bits >> container) != 0)
		return FPREF_DECODE_INVALID;
	if ((bits & low_mask(f->pad_bits)) != 0)
		return FPREF_DECODE_INVALID;

	if (f->integer)
		return decode_int(f, bits, out);
	unsigned sign;
	uint64_t field, mantissa;
	fpref_fields(f, bits, &sign, &field, &mantissa);
	out->negative = sign != 0;
	out->signaling = false;
	out->exponent = 0;
	out->significand = 0;
	out->nan_payload = 0;

	bool top = field == exp_all_ones(f);
	if (f->inf_at_top && ((field << f->man_bits) | mantissa) == top_magnitude(f)) {
		out->cls = FPREF_CLASS_INF;
		return FPREF_DECODE_OK;
	}
	if ((f->specials == FPREF_SPECIALS_IEEE && top) ||
	    (f->specials == FPREF_SPECIALS_FN && top && mantissa == low_mask(f->man_bits)) ||
	    (f->specials == FPREF_SPECIALS_FNUZ && sign && field == 0 && mantissa == 0)) {
		if (f->specials == FPREF_SPECIALS_IEEE && mantissa == 0) {
			out->cls = FPREF_CLASS_INF;
		} else {
			out->cls = FPREF_CLASS_NAN;
			out->signaling = f->specials == FPREF_SPECIALS_IEEE &&
					 (mantissa >> (f->man_bits - 1)) == 0;
			out->nan_payload = f->specials == FPREF_SPECIALS_IEEE ? mantissa << (64 - f->man_bits)
									    : (uint64_t)1 << 63;
			/* FNUZ's NaN borrows the sign bit: it is not a negative NaN */
			out->negative = out->negative && f->specials != FPREF_SPECIALS_FNUZ;
		}
		return FPREF_DECODE_OK;
	}
	if (f->has_zero && field == 0) {
		out->cls = FPREF_CLASS_ZERO;
		if (mantissa == 0)
			return FPREF_DECODE_OK;
		if (!f->subnormals)
			return FPREF_DECODE_NONCANONICAL;
		out->cls = FPREF_CLASS_SUBNORMAL;
		out->significand = mantissa;
		out->exponent = fpref_format_min_exponent(f) - f->man_bits;
		return FPREF_DECODE_OK;
	}
	out->cls = FPREF_CLASS_NORMAL;
	out->significand = ((uint64_t)1 << f->man_bits) | mantissa;
	out->exponent = (int32_t)field - f->bias - f->man_bits;
	return FPREF_DECODE_OK;
}

static int top_bit(uint64_t x)
{
	return 63 - __builtin_clzll(x);
}

static int trailing_zeros(uint64_t x)
{
	return __builtin_ctzll(x);
}

int fpref_encode(const struct fpref_format *f, const struct fpref_unpacked *v, uint64_t *bits)
{
	if (v->negative && !f->is_signed && v->cls != FPREF_CLASS_NAN)
		return -1;
	switch (v->cls) {
	case FPREF_CLASS_NAN:
		if (!fpref_format_nan_bits(f, v->negative, bits))
			return -1;
		if (v->signaling && f->specials == FPREF_SPECIALS_IEEE) {
			if (f->man_bits < 2)
				return -1;
			*bits = pack(f, v->negative, exp_all_ones(f), 1);
		}
		return 0;
	case FPREF_CLASS_INF:
		return fpref_format_inf_bits(f, v->negative, bits) ? 0 : -1;
	case FPREF_CLASS_ZERO:
		if (!f->has_zero || (v->negative && !fpref_format_has_negative_zero(f)))
			return -1;
		*bits = fpref_format_zero_bits(f, v->negative);
		return 0;
	case FPREF_CLASS_SUBNORMAL:
	case FPREF_CLASS_NORMAL:
		break;
	}
	if (v->significand == 0)
		return -1;

	int64_t lead = (int64_t)v->exponent + top_bit(v->significand); /* exponent of the leading bit */
	int64_t lsb = (int64_t)v->exponent + trailing_zeros(v->significand);
	int64_t min_exp = fpref_format_min_exponent(f);
	if (lead >= min_exp) {
		if (lsb < lead - f->man_bits)
			return -1;
		int64_t field = lead + f->bias;
		if (v->negative && int_min_code(f) && field == max_finite_field(f) + 1 && lsb == lead) {
			*bits = pack(f, true, (uint64_t)field, 0); /* -2^(n-1) */
			return 0;
		}
		if (field > max_finite_field(f))
			return -1;
		/* mantissa = value / 2^(lead - man_bits) without the leading bit */
		uint64_t scaled = v->significand >> trailing_zeros(v->significand);
		uint64_t mantissa = (scaled << (f->man_bits - (lead - lsb))) & low_mask(f->man_bits);
		if (field == max_finite_field(f) && mantissa > max_finite_mantissa(f))
			return -1;
		*bits = pack(f, v->negative, (uint64_t)field, mantissa);
		return 0;
	}
	if (!f->subnormals || !f->has_zero || lsb < min_exp - f->man_bits)
		return -1;
	uint64_t scaled = v->significand >> trailing_zeros(v->significand);
	*bits = pack(f, v->negative, 0, scaled << (lsb - (min_exp - f->man_bits)));
	return 0;
}

const char *fpref_class_name(enum fpref_class c)
{
	static const char *const names[] = { "zero", "subnormal", "normal", "inf", "nan" };
	return names[c];
}

const char *fpref_specials_name(enum fpref_specials s)
{
	static const char *const names[] = { "ieee", "fn", "fnuz", "none" };
	return names[s];
}

void fpref_format_hex(const struct fpref_format *f, uint64_t bits, char *buf, size_t len)
{
	int digits = (fpref_format_container_bits(f) + 3) / 4;
	snprintf(buf, len, "%0*llX", digits, (unsigned long long)bits);
}

int fpref_format_parse_bits(const struct fpref_format *f, const char *text, uint64_t *bits, char *err, size_t errlen)
{
	const char *s = text;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	size_t n = strlen(s);
	uint64_t v = 0;
	bool ok = n > 0 && n <= 16;
	for (size_t i = 0; ok && i < n; i++) {
		int c = tolower((unsigned char)s[i]);
		ok = isxdigit(c);
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (!ok) {
		snprintf(err, errlen, "'%s' is not a hex bit pattern of %s", text, f->name);
		return -1;
	}
	struct fpref_unpacked u;
	if (fpref_decode(f, v, &u) == FPREF_DECODE_INVALID) {
		snprintf(err, errlen, "'%s' is not a bit pattern of %s (%d bits%s)", text, f->name,
			 fpref_format_container_bits(f), f->pad_bits ? ", low pad bits zero" : "");
		return -1;
	}
	*bits = v;
	return 0;
}
