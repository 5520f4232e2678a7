/* What the oracle's tensor-core files share (ref/tc_dot.c, ref/tc_scale.c,
 * ref/tc_bound.c): the alignment places, the mpfr_t arrays of the bounds,
 * and the block scales read once for the model paths and the bounds alike.
 * Internal: not installed; the public calls are in fpref_ref.h. */
#ifndef FPREF_REF_TC_INTERNAL_H
#define FPREF_REF_TC_INTERNAL_H

#include <stdlib.h>

#include "fpref_ref.h"

/* floor(log2 |x|) for a nonzero x, but not below least_exp (subnormals
 * are aligned as if at the format's least normal exponent). */
static inline long lead_exponent(mpfr_srcptr x, long least_exp)
{
	long e = (long)mpfr_get_exp(x) - 1;
	return e > least_exp ? e : least_exp;
}

static inline long least_normal_exponent(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_min_normal(f, &u);
	long e = u.exponent;
	for (uint64_t s = u.significand; s > 1; s >>= 1)
		e++;
	return e;
}

static inline mpfr_t *new_values(size_t n)
{
	mpfr_t *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; v && i < n; i++)
		mpfr_init2(v[i], 64);
	return v;
}

static inline void free_values(mpfr_t *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		mpfr_clear(v[i]);
	free(v);
}

/* ref/tc_scale.c (each described at its definition): a scale read, the
 * scales applied to a block's terms (the model paths), each product's
 * weight (the bounds). */
int fpref_ref_tc_read_scale(const struct fpref_format *f, uint64_t bits, struct fpref_ref_value *v, long *lead);
long fpref_ref_tc_apply_scales(const struct fpref_tc_model *m, const struct fpref_tc_scales *sc, size_t k, size_t len,
			       mpfr_t *terms, long *lead, bool *counts, bool *nan);
mpfr_t *fpref_ref_tc_scale_weights(const struct fpref_tc_scales *sc, size_t K, int *status);

#endif
