/* fpref — the MPFR oracle: exact values and correctly rounded results.
 *
 * Slow and obviously right.  Every input becomes an mpfr_t that is either
 * exact or rounded to odd at FPREF_REF_WORK_PREC bits (far more than any
 * format's precision plus the widest stochastic-rounding window), so that a
 * single later rounding to a format is the correct rounding of the original
 * input in every mode.  Rounding to a format is done by MPFR in the format's
 * exponent range with subnormals (mpfr_set_emin, mpfr_check_range,
 * mpfr_subnormalize); then the format's overflow and special-value rules of
 * the environment are applied.  Never goes through float or double. */
#ifndef FPREF_REF_H
#define FPREF_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <mpfr.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_op.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_REF_WORK_PREC 192

/* An oracle operand: a number (exact, or rounded to odd with sticky
 * information when `inexact`), or a NaN that may be signaling. */
struct fpref_ref_value {
	mpfr_t x;
	bool signaling;
	bool inexact;
	uint64_t nan_payload; /* NaN read from bits: as struct fpref_unpacked's; else the quiet bit */
};

void fpref_ref_value_init(struct fpref_ref_value *v);
void fpref_ref_value_clear(struct fpref_ref_value *v);

/* Parse a decimal ("-1.5e-3", any length), a C99 hex float ("0x1.8p3"),
 * "inf", "-inf", "nan", "snan".  0, or -1 with a message naming the token. */
int fpref_ref_parse(const char *text, struct fpref_ref_value *v, char *err, size_t errlen);
/* The exact value of a bit pattern of format f (daz reads subnormals as
 * zero).  0, or -1 for an invalid pattern. */
int fpref_ref_from_bits(const struct fpref_format *f, uint64_t bits, bool daz, struct fpref_ref_value *v);
/* The same into a v whose x already has 64 bits of precision, left as it
 * is (storage of the caller's own, mpfr_custom_init_set). */
int fpref_ref_from_bits_64(const struct fpref_format *f, uint64_t bits, bool daz, struct fpref_ref_value *v);

/* How the rounded value was chosen between the two neighbours. */
enum fpref_ref_rule {
	FPREF_RULE_EXACT,        /* representable: no choice */
	FPREF_RULE_NEAREST,      /* one neighbour is closer */
	FPREF_RULE_TIE_EVEN,     /* a tie, to the even neighbour */
	FPREF_RULE_TIE_AWAY,     /* a tie, away from zero */
	FPREF_RULE_TOWARD_ZERO,
	FPREF_RULE_TOWARD_POS,
	FPREF_RULE_TOWARD_NEG,
	FPREF_RULE_ODD,          /* round to odd: the neighbour with an odd last bit */
	FPREF_RULE_STOCHASTIC,   /* discarded bits + random bits compared with 2^r */
	FPREF_RULE_SPECIAL       /* input was NaN, inf or zero: no neighbours */
};

/* What the format and environment did after that choice. */
enum fpref_ref_outcome {
	FPREF_OUTCOME_PLAIN,            /* the chosen neighbour is the result */
	FPREF_OUTCOME_OVERFLOW_INF,     /* beyond max finite, to inf */
	FPREF_OUTCOME_OVERFLOW_MAX,     /* beyond max finite, the mode rounds toward zero: max finite */
	FPREF_OUTCOME_OVERFLOW_NAN,     /* beyond max finite, to inf, but the format has no inf: NaN */
	FPREF_OUTCOME_SATURATED,        /* overflow=sat clamped to max finite */
	FPREF_OUTCOME_OVERFLOW_NO_SPECIALS, /* to inf, but the format has neither inf nor NaN: max finite */
	FPREF_OUTCOME_FLUSHED,          /* ftz: tiny result flushed to zero */
	FPREF_OUTCOME_ZERO_UNSIGNED,    /* -0 where the format has none: +0 */
	FPREF_OUTCOME_NO_ZERO_NAN,      /* zero result, the format has no zero: NaN */
	FPREF_OUTCOME_NO_ZERO_MIN,      /* zero result, no zero, sat (or zero_to_least): least value */
	FPREF_OUTCOME_NEGATIVE_UNSIGNED,/* negative number, unsigned format: NaN (ieee) */
	FPREF_OUTCOME_NEGATIVE_CLAMPED, /* negative number, unsigned format, sat: least value */
	FPREF_OUTCOME_NAN,              /* NaN input: the format's NaN */
	FPREF_OUTCOME_NAN_NO_NAN,       /* NaN input, the format has no NaN: +max finite */
	FPREF_OUTCOME_INF,              /* inf input to a format with inf */
	FPREF_OUTCOME_INF_NAN,          /* inf input, no inf: NaN (overflow=ieee) */
	FPREF_OUTCOME_INF_MAX,          /* inf input, no inf and no NaN: max finite */
	FPREF_OUTCOME_INF_SATURATED,    /* inf input, overflow=sat: max finite */
	FPREF_OUTCOME_ZERO              /* zero input */
};

/* Everything `fpref explain` shows.  Initialise with fpref_ref_trace_init. */
struct fpref_ref_trace {
	enum fpref_ref_rule rule;
	enum fpref_ref_outcome outcome;
	bool bracketed;        /* lo and hi are meaningful (finite nonzero input) */
	mpfr_t lo, hi;         /* neighbours on the format's grid; hi may lie beyond max finite */
	bool lo_held, hi_held; /* the format holds the neighbour (not beyond max, not a zero it lacks) */
	uint64_t lo_bits, hi_bits;
	mpfr_t result;         /* value of the result when finite */
	bool tiny;             /* tininess by the environment's rule */
	unsigned sr_width;
	uint64_t sr_random;    /* R */
	mpz_t sr_discarded;    /* T: the first r discarded bits */
	/* result - exact; that over |exact|; that in units of the spacing at
	 * the input.  One sign convention for all three: positive when the
	 * result lies above the exact value (toward +inf).  NaN when n/a. */
	mpfr_t err_abs, err_rel, err_ulp;
	/* bracketed: the midpoint of lo and hi, and which neighbour the exact
	 * value is nearer: -1 lo (the one nearer zero), +1 hi, 0 the midpoint
	 * itself (a tie) */
	mpfr_t mid;
	int nearer;
	bool initialised;      /* set by fpref_ref_trace_init: the mpfr fields may be written */
};

void fpref_ref_trace_init(struct fpref_ref_trace *t);
void fpref_ref_trace_clear(struct fpref_ref_trace *t);

/* Round v to format f under env (sr uses sr_random as R).  Writes the
 * result's bits and ORs the raised flags into *flags.  trace may be NULL. */
void fpref_ref_round(const struct fpref_ref_value *v, const struct fpref_format *f, const struct fpref_env *env,
		     uint64_t sr_random, uint64_t *bits, unsigned *flags, struct fpref_ref_trace *trace);

/* Convert an exact value to format f: fpref_ref_round after the
 * environment's scale step (pre_scale: v divided by 2^(code - 127), exactly;
 * code 255 gives NaN whatever v is, with the invalid flag). */
void fpref_ref_convert_value(const struct fpref_ref_value *v, const struct fpref_format *f,
			     const struct fpref_env *env, uint64_t sr_random, uint64_t *bits, unsigned *flags,
			     struct fpref_ref_trace *trace);

/* Convert a bit pattern between formats (fpref_ref_convert_value).  0, or -1 for an invalid source pattern. */
int fpref_ref_convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
		      const struct fpref_env *env, uint64_t sr_random, uint64_t *out, unsigned *flags);

/* Compute op on bit patterns in[0..arity) of format f, rounded once to f.
 * Comparisons write 1 or 0.  0, or -1 for an invalid pattern or a format
 * wider than FPREF_OP_MAX_MAN_BITS. */
int fpref_ref_op(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct fpref_env *env,
		 uint64_t sr_random, uint64_t *out, unsigned *flags);

/* fpref_ref_op split for callers that round one result under many
 * environments: the unrounded result of a rounding operation (add to fma)
 * into r, flags its operands and the operation itself raise (invalid,
 * divide by zero) ORed into *flags; fpref_ref_round(r, f, env', R, ...)
 * then gives fpref_ref_op's answer for every env' that has env's daz and
 * whose rounding is rdn exactly when env's is (the sign of an exact zero
 * sum).  0, or -1 for a comparison, min, max, an invalid pattern or a
 * format wider than FPREF_OP_MAX_MAN_BITS. */
int fpref_ref_op_unrounded(enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
			   const struct fpref_env *env, struct fpref_ref_value *r, unsigned *flags);

/* The exact dot product: sum of a_k * b_k (a_k of in_a, b_k of in_b) and
 * c (of `acc`), computed exactly (mpfr_sum) and rounded once to `acc` under env;
 * an exact zero is +0, or -0 under rdn.  0, or -1 for an invalid pattern. */
int fpref_ref_dot_exact(const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			const struct fpref_env *env, uint64_t *d, unsigned *flags);

/* The exact value of a . b + c (a of in_a, b of in_b, c of `acc`): exact holds
 * it exactly (its precision is set as needed); NaN or inf as the IEEE
 * rules give them.  0, or -1 for an invalid pattern. */
int fpref_ref_dot_value(const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			mpfr_ptr exact);
/* fpref_ref_dot_value with block scales (NULL: none): each product a_k b_k
 * times its chunk's two scale values (fpref_tc_scales; UE4M3 read without
 * its sign), exactly; NaN when a scale that applies is NaN.  0, or -1 for
 * an invalid pattern (of the inputs or the scales). */
int fpref_ref_dot_value_scaled(const struct fpref_format *in_a, const struct fpref_format *in_b,
			       const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			       uint64_t c, const struct fpref_format *acc, mpfr_ptr exact);
/* The unrounded value of op on patterns of f: exact for add, sub, mul,
 * fma, min and max, correct to thousands of bits for div and sqrt.  0, or
 * -1 for a comparison or an invalid pattern. */
int fpref_ref_op_value(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, mpfr_ptr value);

/* The error of a result (bits of f) against an exact value: absolute,
 * relative (inf for a nonzero error against 0), and in units of f's spacing
 * at the exact value, each rounded upward to a double.  0, or -1 when the
 * result or the exact value is not finite. */
int fpref_ref_error(const struct fpref_format *f, uint64_t bits, mpfr_srcptr exact, double *abs_err, double *rel_err,
		    double *ulps);

/* The tensor-core block model (formats/fpref_formats_tc_model.h) computed by the
 * oracle: the same rules as fpref_emu_tc_dot, through MPFR and exact integer
 * sums; A's patterns read in in_a, B's in in_b, each product aligned at the
 * sum of its operands' places (a subnormal at its own format's least normal
 * exponent).  0, or -1 for an invalid pattern, an output other than float32
 * and float16, or two formats the model's instruction does not take as a
 * pair (fpref_tc_pair_ok; a custom model takes any). */
int fpref_ref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		     const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		     uint64_t *d);

/* fpref_ref_tc_dot with block scales (NULL: unit scales), the oracle's side
 * of fpref_emu_tc_dot_scaled: the group path's exact group sums times the
 * scales' values, or products times E8M0 scales, through MPFR. */
int fpref_ref_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			    uint64_t c, const struct fpref_format *output, uint64_t *d);

/* cuBLASLt's split-K order computed by the oracle (fpref_emu_tc_dot_splitk):
 * each slice by fpref_ref_tc_dot, the additions by the oracle's FP32. */
int fpref_ref_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d);

/* A priori bounds on |d - exact| for d = a . b + c, from the inputs alone
 * (docs/accumulation.md derives them), evaluated rounding upward.  Writes
 * +inf where the result may overflow, NaN where no bound applies (an input
 * NaN or inf; for plain orders also inputs the accumulator does not hold,
 * daz, or Kahan's order).  fpref_ref_tc_bound: the block model, promoted
 * every nc products when nc > 0 (FP32 output, no scales), every path: the
 * block model, the lowered path, the group path, AMD's two-stage dot-add
 * and CDNA1/2's FP32 arithmetic (not promoted).  fpref_ref_tc_bound_scaled:
 * the same with block scales (NaN for a NaN scale; no promotion).
 * fpref_ref_tc_bound_splitk: cuBLASLt's split-K order of
 * fpref_emu_tc_dot_splitk (FP32).
 * fpref_ref_sum_bound: the plain orders of fpref_emu_dot.  A's inputs are
 * read in in_a, B's in in_b (a product's place from its operands' own
 * formats).  0, or -1 for an invalid pattern or unsupported formats (two
 * formats a model's instruction does not take as a pair among them). */
int fpref_ref_tc_bound(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		       const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		       size_t nc, mpfr_ptr bound);
int fpref_ref_tc_bound_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			      uint64_t c, const struct fpref_format *output, size_t nc, mpfr_ptr bound);
int fpref_ref_tc_bound_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, mpfr_ptr bound);
int fpref_ref_sum_bound(enum fpref_sum_order order, size_t block, const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
			const struct fpref_env *env, mpfr_ptr bound);

/* The exact decimal expansion of a finite x ("448", "-0", "1.5e-45" style
 * when the exponent is large); inf and nan as words.  Free with free(). */
char *fpref_ref_decimal(mpfr_srcptr x);
/* The shortest decimal that reads back (round to nearest even) as the same
 * bits of format f.  Free with free(). */
char *fpref_ref_shortest(const struct fpref_format *f, uint64_t bits);
/* The same for a value, or NULL when format f does not hold it exactly. */
char *fpref_ref_shortest_value(const struct fpref_format *f, mpfr_srcptr value);
/* x for people: its exact decimal when that has at most max_digits
 * significant digits, else "2^-127 (~5.87747e-39)" or
 * "3x2^-130 (~2.20405e-39)": the exact binary form and a 6-digit decimal.
 * Free with free(). */
char *fpref_ref_readable(mpfr_srcptr x, size_t max_digits);

/* The words `fpref explain` uses: a trace's rule and outcome (NULL for
 * a plain outcome), an integer format's range, and the whole text of one
 * rounding (input as the user wrote it; from NULL for a decimal). */
const char *fpref_ref_rule_text(enum fpref_ref_rule r);
const char *fpref_ref_outcome_text(enum fpref_ref_outcome o);
void fpref_ref_put_int_range(FILE *out, const struct fpref_format *f);
void fpref_ref_explain_print(FILE *out, const char *input, const struct fpref_format *from,
			     const struct fpref_ref_value *v, const struct fpref_format *f, const struct fpref_env *env,
			     const struct fpref_ref_trace *t, uint64_t bits, unsigned flags);
/* Whether format f holds the finite value x exactly, and its bits. */
bool fpref_ref_held(const struct fpref_format *f, mpfr_srcptr x, uint64_t *bits);
/* The exact decimal of an unpacked finite value (sign included). */
char *fpref_ref_unpacked_decimal(const struct fpref_unpacked *u);
/* "~3.403e+38": an unpacked finite value to `digits` significant digits
 * (round to nearest), for tables where the exact form is too long; zeros,
 * inf and NaN as fpref_ref_unpacked_decimal.  Free with free(). */
char *fpref_ref_unpacked_approx(const struct fpref_unpacked *u, int digits);

/* For pictures (ref/picture.c): (x - lo) / (hi - lo) rounded once to a
 * binary64, NaN when any is not a number or lo == hi; with lo and hi the
 * neighbours of x it is also the probability that exact stochastic
 * rounding goes to hi. */
double fpref_ref_fraction(mpfr_srcptr lo, mpfr_srcptr hi, mpfr_srcptr x);
/* x to digits significant digits ("%.*Rg", nearest); free with free(). */
char *fpref_ref_short_decimal(mpfr_srcptr x, int digits);
/* For a picture of a value beyond max finite (ref/picture.c): the
 * format's two largest values of x's sign, the one nearer zero into lo and
 * the largest into hi (their codes into *lo_bits, *hi_bits), and their
 * midpoint, exactly, into mid (whose precisions are set).  0, or -1 when
 * |x| is not beyond max finite or the format has no second value. */
int fpref_ref_format_top(const struct fpref_format *f, mpfr_srcptr x, mpfr_ptr lo, mpfr_ptr hi, mpfr_ptr mid,
			 uint64_t *lo_bits, uint64_t *hi_bits);

#ifdef __cplusplus
}
#endif
#endif
