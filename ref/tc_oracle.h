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

/* The binade of an unpacked finite value: floor(log2 of it). */
static inline long binade(const struct fpref_unpacked *u)
{
	long e = u->exponent;
	for (uint64_t s = u->significand; s > 1; s >>= 1)
		e++;
	return e;
}

static inline long least_normal_exponent(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_min_normal(f, &u);
	return binade(&u);
}

/* Whether every finite value of f is an FP16 value (the lowered path
 * converts each operand to FP16 from its own format, and must not round):
 * no more fraction bits, no finer least place, no higher top binade. */
static inline bool exact_in_fp16(const struct fpref_format *f)
{
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	struct fpref_unpacked top, top16;
	fpref_format_max_finite(f, &top);
	fpref_format_max_finite(f16, &top16);
	return f->man_bits <= f16->man_bits &&
	       least_normal_exponent(f) - f->man_bits >= least_normal_exponent(f16) - f16->man_bits &&
	       binade(&top) <= binade(&top16);
}

/* Whether a model takes A of in_a and B of in_b with this output: two
 * formats only as a pair its instruction takes (fpref_tc_pair_ok; a custom
 * model any), each operand within the models' reach and with an
 * instruction for this output.  One format twice is not held to the row's
 * list: a row's parameters run on any one input format, as they always
 * have (tests/check_tc_model.c runs every row on bfloat16). */
static inline bool operands_ok(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			       const struct fpref_format *in_b, const struct fpref_format *output)
{
	return (fpref_format_same(in_a, in_b) || fpref_tc_pair_ok(m, in_a, in_b)) && fpref_tc_model_conventions_ok(m) &&
	       fpref_tc_input_ok(in_a) &&
	       fpref_tc_input_ok(in_b) &&
	       fpref_tc_output_ok(m, in_a, output) && fpref_tc_output_ok(m, in_b, output);
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
