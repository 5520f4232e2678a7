/* What a picture of values needs from them (fpref draw): a value as a
 * binary64 to place it, its binade and the place inside the binade for a
 * log2 axis, the exponent of its spacing, and binade counts of a tensor.
 * All from the exact decode, so that the drawing does no numerics. */
#include <string.h>

#include "fpref_emu.h"

int fpref_emu_value_f64(const struct fpref_format *f, uint64_t bits, double *out)
{
	struct fpref_env env;
	uint64_t d = 0;
	unsigned flags = 0;
	fpref_env_default(&env);
	if (fpref_emu_convert(f, bits, fpref_format_get(FPREF_FORMAT_FLOAT64), &env, 0, &d, &flags) != 0)
		return -1;
	memcpy(out, &d, sizeof *out);
	return (flags & FPREF_FLAG_INEXACT) ? 1 : 0;
}

/* The bit length of a nonzero significand. */
static int bit_length(uint64_t s)
{
	int n = 0;
	while (s) {
		n++;
		s >>= 1;
	}
	return n;
}

int fpref_emu_binade_position(const struct fpref_format *f, uint64_t bits, double *pos)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) != FPREF_DECODE_OK ||
	    (u.cls != FPREF_CLASS_NORMAL && u.cls != FPREF_CLASS_SUBNORMAL) || u.significand == 0)
		return -1;
	int len = bit_length(u.significand);
	/* s / 2^(len-1) lies in [1, 2): its excess over 1 is the place inside the binade */
	uint64_t lead = (uint64_t)1 << (len - 1);
	double inside = len > 1 ? (double)(u.significand - lead) / (double)lead : 0.0;
	*pos = (double)(u.exponent + len - 1) + inside;
	return 0;
}

int fpref_emu_spacing_log2(const struct fpref_format *f, uint64_t bits, int *e)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) != FPREF_DECODE_OK || u.cls == FPREF_CLASS_INF || u.cls == FPREF_CLASS_NAN)
		return -1;
	/* finite values decode with the format's own significand width: its
	 * last bit is worth 2^exponent (zero: the least subnormal's spacing) */
	if (u.cls == FPREF_CLASS_ZERO || u.cls == FPREF_CLASS_SUBNORMAL)
		*e = fpref_format_min_exponent(f) - f->man_bits;
	else
		*e = u.exponent;
	return 0;
}

size_t fpref_emu_binade_counts(const struct fpref_format *f, const uint64_t *bits, size_t n, int lo, size_t nbins,
			       size_t *counts, size_t *below, size_t *above)
{
	size_t counted = 0;
	for (size_t i = 0; i < n; i++) {
		struct fpref_unpacked u;
		if (fpref_decode(f, bits[i], &u) != FPREF_DECODE_OK ||
		    (u.cls != FPREF_CLASS_NORMAL && u.cls != FPREF_CLASS_SUBNORMAL))
			continue;
		long b = (long)u.exponent + bit_length(u.significand) - 1;
		counted++;
		if (b < lo)
			(*below)++;
		else if (b >= lo + (long)nbins)
			(*above)++;
		else
			counts[b - lo]++;
	}
	return counted;
}
