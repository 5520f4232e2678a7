/* The mutant catalogue: each row a kernel bug seen in the wild, run by the
 * emulator as a variant of the correct computation, so that a golden suite
 * is judged by the bugs its vectors expose (docs/mutants.md).  Here the
 * rows, their lookup, and which jobs each applies to: what a suite or a
 * campaign names is checked with these, below the code that runs them
 * (mutants.c). */
#include <stdio.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_golden_mutants.h"
#include "fpref_emu_tc.h"
#include "mutants_internal.h"

#define CONVERT (1u << FPREF_GOLDEN_CONVERT)
#define OP (1u << FPREF_GOLDEN_OP)
#define DOT (1u << FPREF_GOLDEN_DOT)

static const struct fpref_mutant catalogue[] = {
	{ "double-round-f16", "double rounding", "rounds to float16 first, then to the target (a cvt through half)",
	  FPREF_MUT_VIA, 0, "float16" },
	{ "double-round-bf16", "double rounding", "rounds to bfloat16 first, then to the target", FPREF_MUT_VIA, 0,
	  "bfloat16" },
	{ "double-round-f32", "double rounding", "rounds a float64 to float32 first, then to the target", FPREF_MUT_VIA, 0,
	  "float32" },
	{ "subnormal-double-round", "double rounding",
	  "rounds a tiny result at full precision as if normal, then shifts it into the subnormal range, rounding again",
	  FPREF_MUT_VIA_WIDE_RANGE, 0, NULL },
	{ "ties-away", "rounding mode", "breaks ties away from zero instead of to even", FPREF_MUT_ROUNDING, FPREF_RNA,
	  NULL },
	{ "truncate", "rounding mode", "truncates (rounds toward zero) instead of rounding to nearest", FPREF_MUT_ROUNDING,
	  FPREF_RTZ, NULL },
	{ "ceil", "rounding mode", "rounds toward +inf (ceil of the exponent for E8M0 scales) instead of to nearest",
	  FPREF_MUT_ROUNDING, FPREF_RUP, NULL },
	{ "floor", "rounding mode", "rounds toward -inf (floor of the exponent for E8M0 scales) instead of to nearest",
	  FPREF_MUT_ROUNDING, FPREF_RDN, NULL },
	{ "nearest-for-rtz", "rounding mode", "rounds to nearest even where the operation truncates", FPREF_MUT_ROUNDING,
	  -FPREF_RNE - 1, NULL },
	{ "ftz-output", "subnormals", "flushes subnormal results to zero", FPREF_MUT_FTZ, 0, NULL },
	{ "daz-input", "subnormals", "reads subnormal inputs as zero", FPREF_MUT_DAZ, 0, NULL },
	{ "sat-for-ieee", "overflow", "saturates to max finite where the overflow is IEEE's (inf or NaN)", FPREF_MUT_SAT, 0,
	  NULL },
	{ "ieee-for-sat", "overflow", "overflows to inf or NaN where the conversion saturates", FPREF_MUT_IEEE, 0, NULL },
	{ "overflow-above-max", "overflow",
	  "overflows every value above max finite, the round-down below the overflow tie missing (E4M3 449 -> NaN)",
	  FPREF_MUT_OVERFLOW_ABOVE_MAX, 0, NULL },
	{ "overflow-past-tie", "overflow",
	  "gives max finite up to max + 1 ulp, the overflow threshold taken at the next binade (E4M3 464 -> 448 is "
	  "right, 470 -> 448 is not)",
	  FPREF_MUT_OVERFLOW_PAST_TIE, 0, NULL },
	{ "overflow-to-nan", "overflow", "overflows to NaN instead of inf (E5M2 treated like E4M3)", FPREF_MUT_OVERFLOW_NAN,
	  0, NULL },
	{ "nan-sign-dropped", "special values", "writes every NaN with its sign bit clear", FPREF_MUT_NAN_SIGN, 0, NULL },
	{ "nan-sign-set", "special values", "writes every NaN with its sign bit set", FPREF_MUT_NAN_SIGN, 1, NULL },
	{ "negative-zero-lost", "special values", "turns -0 into +0", FPREF_MUT_NEG_ZERO, 0, NULL },
	{ "fn-fnuz-confused", "encoding", "encodes with the FNUZ variant's bias and specials where the format is FN (or the "
	  "reverse)",
	  FPREF_MUT_SPECIALS, 0, NULL },
	{ "bias-plus-one", "encoding", "encodes the result with the exponent bias one too large", FPREF_MUT_BIAS, 1, NULL },
	{ "bias-minus-one", "encoding", "encodes the result with the exponent bias one too small", FPREF_MUT_BIAS, -1,
	  NULL },
	{ "fma-unfused", "operations", "computes fma(a, b, c) as a rounded product plus c, rounded again",
	  FPREF_MUT_FMA_UNFUSED, 0, NULL },
	{ "fma-via-f32", "double rounding", "computes fma in float32, then rounds to the format", FPREF_MUT_FMA_VIA, 0,
	  "float32" },
	{ "fma-via-f64", "double rounding", "computes fma in float64, then rounds to the format", FPREF_MUT_FMA_VIA, 0,
	  "float64" },
	{ "div-by-reciprocal", "operations", "computes a / b as a * (1 / b), rounding twice (fast-math)",
	  FPREF_MUT_DIV_RECIPROCAL, 0, NULL },
	{ "compare-as-integers", "operations", "compares the bit patterns as signed integers (-0 < +0, negatives reversed, "
	  "NaN ordered)",
	  FPREF_MUT_COMPARE_BITS, 0, NULL },
	{ "minmax-number", "operations", "min and max return the other operand for a quiet NaN (IEEE 754-2008 minNum)",
	  FPREF_MUT_MINMAX_NUMBER, 0, NULL },
	{ "minmax-zero-unordered", "operations", "min and max treat -0 and +0 as equal, returning the first",
	  FPREF_MUT_MINMAX_ZERO, 0, NULL },
	{ "dot-frac-13-25", "accumulator", "keeps 13 fraction bits in a 25-bit unit's block, or 25 in a 13-bit FP8 block",
	  FPREF_MUT_DOT_FRAC, 0, NULL },
	{ "dot-block-half", "accumulator", "sums blocks of n/2 products", FPREF_MUT_DOT_BLOCK, 1, NULL },
	{ "dot-block-double", "accumulator", "sums blocks of 2n products", FPREF_MUT_DOT_BLOCK, 2, NULL },
	{ "dot-final-rounding", "accumulator", "rounds the block to nearest where the unit truncates, or the reverse",
	  FPREF_MUT_DOT_FINAL, 0, NULL },
	{ "dot-c-last", "accumulator", "adds C after the products by one rounded addition instead of inside the block",
	  FPREF_MUT_DOT_C_LAST, 0, NULL },
	{ "dot-zero-sign", "accumulator", "gives an exact zero IEEE's sign where the unit gives +0, or the reverse",
	  FPREF_MUT_DOT_ZERO_SIGN, 0, NULL },
	{ "dot-no-floor", "accumulator", "aligns tiny blocks below the unit's floor exponent", FPREF_MUT_DOT_NO_FLOOR, 0,
	  NULL },
	{ "dot-exact-block", "accumulator", "sums each block exactly, with no truncation of the aligned terms",
	  FPREF_MUT_DOT_EXACT, 0, NULL },
	{ "dot-no-interleave", "accumulator", "runs sm_90's lowered FP8 path without its k mod 4 lane interleave",
	  FPREF_MUT_DOT_INTERLEAVE, 0, NULL },
	{ "dot-lowering-missing", "accumulator", "models sm_90's mma.sync FP8 as the native FP8 unit, not as the compiler "
	  "lowers it",
	  FPREF_MUT_DOT_NATIVE, 0, NULL },
	{ "dot-b-read-as-a", "operands", "reads B's patterns in A's format (E5M2 gradients read as E4M3 weights)",
	  FPREF_MUT_DOT_B_AS_A, 0, NULL },
};

size_t fpref_golden_mutant_count(void)
{
	return sizeof catalogue / sizeof catalogue[0];
}

const struct fpref_mutant *fpref_golden_mutant_at(size_t i)
{
	return i < fpref_golden_mutant_count() ? &catalogue[i] : NULL;
}

const struct fpref_mutant *fpref_golden_mutant_find(const char *name)
{
	for (size_t i = 0; i < fpref_golden_mutant_count(); i++)
		if (strcmp(catalogue[i].name, name) == 0)
			return &catalogue[i];
	return NULL;
}

/* ---- what the formats allow ---- */

static bool same_format(const struct fpref_format *a, const struct fpref_format *b)
{
	return a->exp_bits == b->exp_bits && a->man_bits == b->man_bits && a->bias == b->bias &&
	       a->is_signed == b->is_signed && a->has_zero == b->has_zero && a->subnormals == b->subnormals &&
	       a->specials == b->specials && a->pad_bits == b->pad_bits;
}

/* The exponent of a format's least positive value's last place. */
static int quantum_exponent(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_min_positive(f, &u);
	return u.exponent;
}

/* value(a) <= value(b) for two positive unpacked values */
static bool not_above(const struct fpref_unpacked *a, const struct fpref_unpacked *b)
{
	int la = 63 - __builtin_clzll(a->significand) + a->exponent, lb = 63 - __builtin_clzll(b->significand) + b->exponent;
	if (la != lb)
		return la < lb;
	int shift = a->exponent - b->exponent;
	uint64_t sa = a->significand, sb = b->significand;
	if (shift > 0)
		sa <<= shift > 63 ? 63 : shift;
	else
		sb <<= -shift > 63 ? 63 : -shift;
	return sa <= sb;
}

/* Whether every finite value of a is a value of b. */
static bool finite_within(const struct fpref_format *a, const struct fpref_format *b)
{
	if ((a->is_signed && !b->is_signed) || (a->has_zero && !b->has_zero))
		return false;
	if (fpref_format_precision(a) > fpref_format_precision(b))
		return false;
	struct fpref_unpacked ma, mb, la, lb;
	fpref_format_max_finite(a, &ma);
	fpref_format_max_finite(b, &mb);
	if (!not_above(&ma, &mb))
		return false;
	fpref_format_min_positive(a, &la);
	if (b->subnormals) {
		if (quantum_exponent(a) < quantum_exponent(b))
			return false;
		fpref_format_min_positive(b, &lb);
	} else
		fpref_format_min_normal(b, &lb);
	return not_above(&lb, &la) && (b->subnormals || quantum_exponent(a) >= quantum_exponent(b) ||
				       fpref_format_min_exponent(a) >= fpref_format_min_exponent(b));
}

static bool has_subnormals(const struct fpref_format *f)
{
	return f->subnormals && f->man_bits > 0;
}

static bool has_signed_nan(const struct fpref_format *f)
{
	return f->is_signed && (f->specials == FPREF_SPECIALS_IEEE || f->specials == FPREF_SPECIALS_FN);
}

static bool nearest(enum fpref_rounding r)
{
	return r == FPREF_RNE || r == FPREF_RNA;
}

static bool arithmetic(enum fpref_op op)
{
	return op <= FPREF_OP_FMA;
}

/* Whether the job's results can be inexact (some input does not fit). */
bool fpref_golden_job_rounds(const struct fpref_golden_job *j)
{
	if (j->kind == FPREF_GOLDEN_CONVERT)
		return !finite_within(&j->in, &j->out);
	return arithmetic(j->op);
}

/* Whether some result of the job exceeds the target's range. */
static bool can_overflow(const struct fpref_golden_job *j)
{
	if (j->kind == FPREF_GOLDEN_CONVERT) {
		struct fpref_unpacked ma, mb;
		fpref_format_max_finite(&j->in, &ma);
		fpref_format_max_finite(&j->out, &mb);
		return !not_above(&ma, &mb);
	}
	return arithmetic(j->op) && j->op != FPREF_OP_SQRT;
}

/* The FN/FNUZ partner of a format: the same widths, the other specials, the
 * bias moved by one as between float8_e4m3fn and float8_e4m3fnuz. */
bool fpref_golden_specials_partner(const struct fpref_format *f, struct fpref_format *p)
{
	if (!f->is_signed || !f->has_zero || f->pad_bits)
		return false;
	*p = *f;
	if (f->specials == FPREF_SPECIALS_FN) {
		p->specials = FPREF_SPECIALS_FNUZ;
		p->bias = f->bias + 1;
	} else if (f->specials == FPREF_SPECIALS_FNUZ) {
		p->specials = FPREF_SPECIALS_FN;
		p->bias = f->bias - 1;
	} else
		return false;
	snprintf(p->name, sizeof p->name, "%.40s (partner)", f->name);
	return true;
}

/* The target's precision with one more exponent bit, biased so that the
 * target's subnormals are normal in it and its largest finite fits: no
 * result of the target is subnormal or overflows there.  false where that
 * needs more than a 64-bit container (float64) or the range cannot grow
 * enough. */
bool fpref_golden_wide_range(const struct fpref_format *f, struct fpref_format *w)
{
	if (f->man_bits == 0 || f->exp_bits + 1 > 15 || f->exp_bits + 1 + f->man_bits + 1 > 64 ||
	    (1 << f->exp_bits) < f->man_bits + 1)
		return false;
	*w = *f;
	w->exp_bits = f->exp_bits + 1;
	w->bias = f->bias + f->man_bits + 1;
	w->specials = FPREF_SPECIALS_IEEE;
	w->subnormals = true;
	w->has_zero = true;
	w->is_signed = true;
	w->pad_bits = 0;
	snprintf(w->name, sizeof w->name, "%.40s (wide range)", f->name);
	return true;
}

static bool max_all_ones(const struct fpref_format *f)
{
	struct fpref_unpacked m;
	fpref_format_max_finite(f, &m);
	return m.significand == (1ull << (f->man_bits + 1)) - 1;
}

static const struct fpref_tc_model *dot_lowered_inner(const struct fpref_golden_job *j)
{
	return fpref_tc_lowered(&j->model, &j->out) ? fpref_tc_model_lowered_blocks(&j->model) : NULL;
}

static int dot_floor(const struct fpref_golden_job *j)
{
	return j->out.exp_bits == 8 ? j->model.floor_fp32 : j->model.floor_fp16;
}

bool fpref_golden_mutant_applies(const struct fpref_mutant *m, const struct fpref_golden_job *j)
{
	const struct fpref_env *e = &j->env;
	struct fpref_format f;
	bool convert = j->kind == FPREF_GOLDEN_CONVERT, op = j->kind == FPREF_GOLDEN_OP, dot = j->kind == FPREF_GOLDEN_DOT;
	if (dot != (m->how >= FPREF_MUT_DOT_FRAC))
		return false;
	if (e->rounding == FPREF_SR || (!dot && j->out.pad_bits))
		return false; /* SR files carry no random bits; TF32 results are kernels' FP32 words */
	switch (m->how) {
	case FPREF_MUT_ROUNDING:
		if (m->param < 0)
			return e->rounding == FPREF_RTZ && fpref_golden_job_rounds(j);
		if (!nearest(e->rounding) || (m->param == FPREF_RNA && e->rounding == FPREF_RNA))
			return false;
		/* a quotient or a square root is never an exact tie: ties away changes nothing there */
		if (m->param == FPREF_RNA && op && (j->op == FPREF_OP_DIV || j->op == FPREF_OP_SQRT))
			return false;
		return fpref_golden_job_rounds(j);
	case FPREF_MUT_VIA: {
		struct fpref_format via;
		if (!convert || !catalogue_format(m->via, &via) || same_format(&via, &j->out) ||
		    same_format(&via, &j->in) || finite_within(&j->in, &via))
			return false;
		return nearest(e->rounding) || !finite_within(&j->out, &via);
	}
	case FPREF_MUT_VIA_WIDE_RANGE:
		/* a sum that lands among the subnormals is exact, and so is a square root */
		return (convert || (op && arithmetic(j->op) && j->op != FPREF_OP_ADD && j->op != FPREF_OP_SUB)) &&
		       nearest(e->rounding) && has_subnormals(&j->out) &&
		       !e->ftz && fpref_golden_wide_range(&j->out, &f) && fpref_golden_job_rounds(j) &&
		       (convert ? fpref_format_precision(&j->in) > fpref_format_precision(&j->out) ||
					  quantum_exponent(&j->in) < quantum_exponent(&j->out)
				: j->op != FPREF_OP_SQRT);
	case FPREF_MUT_FTZ:
		return !e->ftz && has_subnormals(&j->out) && (convert ? quantum_exponent(&j->in) < fpref_format_min_exponent(&j->out)
									: arithmetic(j->op) && j->op != FPREF_OP_SQRT);
	case FPREF_MUT_DAZ: {
		if (e->daz || !has_subnormals(&j->in) || (!j->out.has_zero && e->zero_to_least))
			return false; /* zero_to_least: a zero and a tiny value give the least alike */
		if (op)
			return true;
		/* the source's largest subnormal must not vanish in the target anyway */
		return fpref_format_min_exponent(&j->in) >= quantum_exponent(&j->out) + (nearest(e->rounding) ? 0 : 1);
	}
	case FPREF_MUT_SAT:
		return e->overflow == FPREF_OVERFLOW_IEEE && nearest(e->rounding) && j->out.specials != FPREF_SPECIALS_NONE &&
		       can_overflow(j);
	case FPREF_MUT_IEEE:
		return e->overflow == FPREF_OVERFLOW_SAT && j->out.specials != FPREF_SPECIALS_NONE && can_overflow(j);
	case FPREF_MUT_OVERFLOW_ABOVE_MAX:
	case FPREF_MUT_OVERFLOW_PAST_TIE:
		/* A quotient of two p-bit numbers never lies strictly between a max
		 * finite of all-ones significand and the next binade (A / B within
		 * 2^-p below a power of two forces B - A < 1 or 2B - A < 2). */
		if (op && j->op == FPREF_OP_DIV && max_all_ones(&j->out))
			return false;
		return e->overflow == FPREF_OVERFLOW_IEEE && nearest(e->rounding) && j->out.specials != FPREF_SPECIALS_NONE &&
		       can_overflow(j) && j->out.man_bits > 0;
	case FPREF_MUT_OVERFLOW_NAN:
		return e->overflow == FPREF_OVERFLOW_IEEE && nearest(e->rounding) && fpref_format_has_inf(&j->out) &&
		       fpref_format_has_nan(&j->out) && can_overflow(j);
	case FPREF_MUT_NAN_SIGN:
		if (m->param == 0 && e->nan_style == FPREF_NAN_POSITIVE_ALL_ONES)
			return false; /* every NaN it gives is positive already (CUDA's 7FFF) */
		return has_signed_nan(&j->out) && (op ? arithmetic(j->op) || j->op == FPREF_OP_MIN || j->op == FPREF_OP_MAX
						      : fpref_format_has_nan(&j->in) ||
								(j->out.specials == FPREF_SPECIALS_FN && can_overflow(j) &&
								 e->overflow == FPREF_OVERFLOW_IEEE));
	case FPREF_MUT_NEG_ZERO:
		return fpref_format_has_negative_zero(&j->out) && (op ? !fpref_op_is_compare(j->op) : j->in.is_signed);
	case FPREF_MUT_BIAS:
		return convert && j->out.man_bits + j->out.exp_bits <= 16 && j->out.exp_bits > 1;
	case FPREF_MUT_SPECIALS:
		return convert && fpref_golden_specials_partner(&j->out, &f);
	case FPREF_MUT_FMA_UNFUSED:
		return op && j->op == FPREF_OP_FMA;
	case FPREF_MUT_FMA_VIA: {
		struct fpref_format via;
		/* directed roundings compose: truncating twice is truncating once */
		return op && j->op == FPREF_OP_FMA && nearest(e->rounding) && catalogue_format(m->via, &via) &&
		       !same_format(&via, &j->in) &&
		       finite_within(&j->in, &via) && fpref_format_precision(&via) < 3 * fpref_format_precision(&j->in) + 2;
	}
	case FPREF_MUT_DIV_RECIPROCAL:
		return op && j->op == FPREF_OP_DIV && j->in.man_bits > 0;
	case FPREF_MUT_COMPARE_BITS:
		return op && fpref_op_is_compare(j->op) && j->in.is_signed;
	case FPREF_MUT_MINMAX_NUMBER:
		return op && (j->op == FPREF_OP_MIN || j->op == FPREF_OP_MAX) && fpref_format_has_nan(&j->in);
	case FPREF_MUT_MINMAX_ZERO:
		return op && (j->op == FPREF_OP_MIN || j->op == FPREF_OP_MAX) && fpref_format_has_negative_zero(&j->in);
	case FPREF_MUT_DOT_FRAC:
	case FPREF_MUT_DOT_BLOCK:
	case FPREF_MUT_DOT_FINAL:
	case FPREF_MUT_DOT_NO_FLOOR:
	case FPREF_MUT_DOT_EXACT:
		if (dot_lowered_inner(j))
			return false; /* the lowered path runs the float16 row, not this one */
		if (m->how == FPREF_MUT_DOT_BLOCK) /* a block of 2n over K <= n products is the same one block */
			return m->param == 1 ? j->model.block >= 2 && j->K >= 2
					     : 2 * j->model.block <= FPREF_TC_MAX_BLOCK && j->K > (unsigned)j->model.block;
		if (m->how == FPREF_MUT_DOT_NO_FLOOR) /* the floor must lie above the least products */
			return dot_floor(j) != FPREF_TC_NO_FLOOR &&
			       quantum_exponent(&j->in) + quantum_exponent(&j->in_b) + j->in.man_bits + j->in_b.man_bits <
				       dot_floor(j);
		return true;
	case FPREF_MUT_DOT_C_LAST:
		return !dot_lowered_inner(j);
	case FPREF_MUT_DOT_ZERO_SIGN:
		/* the two signs part only on a negative sum that rounds to zero: products below half
		 * the output's least (an exact zero is +0 either way); the lowered path runs the
		 * float16 row, whose rule this row's flag does not change */
		return !dot_lowered_inner(j) && quantum_exponent(&j->in) + quantum_exponent(&j->in_b) < quantum_exponent(&j->out) - 1;
	case FPREF_MUT_DOT_INTERLEAVE:
		return dot_lowered_inner(j) && j->model.interleave > 1;
	case FPREF_MUT_DOT_NATIVE:
		return dot_lowered_inner(j) != NULL;
	case FPREF_MUT_DOT_B_AS_A: /* the bug of a kernel that takes one format for both */
		return !same_format(&j->in, &j->in_b) &&
		       fpref_format_container_bits(&j->in) == fpref_format_container_bits(&j->in_b);
	}
	return false;
}
