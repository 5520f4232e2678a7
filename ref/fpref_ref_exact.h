/* fpref — the oracle's exact engine for dot products and GEMMs: each
 * product of two inputs of formats with significands of at most 24 bits
 * (FP4 to FP32, TF32, BF16, the FP8 and FP6 families) is an integer times a
 * power of two, so a . b + c is summed exactly in fixed point (a long
 * accumulator) instead of one MPFR term per product.  The value it gives
 * is the one fpref_ref_dot_value_scaled gives (mpfr_sum of the exact
 * terms), specials and the sign of zero included; tests/check_exact.c
 * holds the two side by side on every input format.  docs/exact.md. */
#ifndef FPREF_REF_EXACT_H
#define FPREF_REF_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpfr.h>

#include "fpref_formats.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the engine holds one format's values: value = sig * 2^(q + shift).
 * A narrow format (every value a multiple of 2^q below 2^(q + 40): FP16,
 * FP8, FP6, FP4) is held as one fixed-point integer (shift 0); a wide one
 * (BF16, TF32, FP32) as its significand and a shift. */
struct fpref_exact_format {
	const struct fpref_format *f;
	int q;          /* the least place of the format's values */
	int width;      /* bits of the largest |value| / 2^q */
	int sig_bits;   /* bits of the largest significand */
	bool fixed;     /* width <= 40: sig holds value / 2^q */
};

enum { FPREF_EXACT_FINITE = 0, FPREF_EXACT_NAN = 1, FPREF_EXACT_INF = 2 };

/* One decoded operand: cls FPREF_EXACT_*, neg its sign (zeros too). */
struct fpref_exact_operand {
	int64_t sig; /* signed; 0 for a zero and a special */
	int32_t shift;
	uint8_t cls;
	bool neg;
};

/* 0, or -1 when the engine does not take f (a significand over 24 bits,
 * FP64 say: callers keep MPFR's fpref_ref_dot_value for it). */
int fpref_ref_exact_format(const struct fpref_format *f, struct fpref_exact_format *x);

/* n patterns, bits[i * stride], decoded into out[i].  0, or -1 for a
 * pattern that is not one of f (the index in *bad when bad is not NULL). */
int fpref_ref_exact_decode(const struct fpref_exact_format *x, const uint64_t *bits, size_t n, size_t stride,
			   struct fpref_exact_operand *out, size_t *bad);

/* Whether any of a[0..K) and b[0..K) is a NaN or an infinity
 * (FPREF_EXACT_FINITE is 0: classes ORed, no branch per operand). */
bool fpref_ref_exact_any_special(const struct fpref_exact_operand *a, const struct fpref_exact_operand *b, size_t K);

/* exact = a . b + c, exactly (its precision set as needed): a of fa, b of
 * fb (decoded), c a pattern of acc, with block scales (NULL: none; their a
 * and b point at this row's and this column's chunks) multiplying each
 * product by its chunk's two scale values (UE4M3 read without its sign).
 * NaN and inf as mpfr_sum of the exact terms gives them (a NaN scale that
 * applies: NaN), and a zero -0 only when every term is -0.  0; 1 when the
 * engine cannot hold this sum (the caller computes it with MPFR); -1 for
 * an invalid pattern of c or of a scale. */
int fpref_ref_exact_dot(const struct fpref_exact_format *fa, const struct fpref_exact_operand *a,
			const struct fpref_exact_format *fb, const struct fpref_exact_operand *b, size_t K,
			const struct fpref_tc_scales *scales, const struct fpref_format *acc, uint64_t c,
			mpfr_ptr exact);

/* fpref_ref_tc_bound_scaled's bound (the same value, bit for bit) from
 * operands decoded by fpref_ref_exact_decode (a of xa, b of xb: the
 * model's inputs; a_bits and b_bits their patterns, for the paths taken
 * from them): the block model's recurrence is taken in integers, each
 * of MPFR's upward steps at 64 bits done the same way (docs/exact.md says
 * why that is the same value).  0, or -1 as fpref_ref_tc_bound_scaled. */
int fpref_ref_exact_tc_bound(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
			     const struct fpref_exact_operand *a, const uint64_t *a_bits,
			     const struct fpref_exact_format *xb, const struct fpref_exact_operand *b,
			     const uint64_t *b_bits, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			     const struct fpref_format *output, size_t nc, mpfr_ptr bound);

/* fpref_ref_tc_bound_splitk's bound (the same value) from decoded
 * operands, as fpref_ref_exact_tc_bound. */
int fpref_ref_exact_tc_bound_splitk(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
				    const struct fpref_exact_operand *a, const uint64_t *a_bits,
				    const struct fpref_exact_format *xb, const struct fpref_exact_operand *b,
				    const uint64_t *b_bits, size_t K, size_t S, uint64_t c, mpfr_ptr bound);

/* m 2^e (any m) += (hi 2^64 + lo) 2^ev, rounded upward to
 * 64 bits: mpfr_add at 64 bits, MPFR_RNDU, of nonnegative numbers, as
 * the bounds' sums take it (public for tests/check_exact.c). */
void fpref_ref_exact_add_up(uint64_t *m, long *e, uint64_t hi, uint64_t lo, long ev);

#ifdef __cplusplus
}
#endif
#endif
