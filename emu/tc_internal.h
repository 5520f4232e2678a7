/* What the tensor-core emulator's files (emu/tc_*.c) share: the operands
 * decoded once, the plan of one (model, input, output), the block scales,
 * and the block routine's entry points that the dot products and the GEMM
 * call.  The public calls are fpref_emu_tc.h's.  The helpers that the GEMM
 * calls once per operand or element are static inline here, so that the
 * files' split costs them no call. */
#ifndef FPREF_EMU_TC_INTERNAL_H
#define FPREF_EMU_TC_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_emu_tc.h"

enum kind { FINITE = 0, ZERO = 1, INF = 2, NOT_A_NUMBER = 4 };

/* Operands decoded once, as columns so that the block loops vectorise:
 * operand i is (-1)^negative * sig * 2^(exp - man_bits), exp the place of
 * the leading bit of a normal significand (subnormals keep the format's
 * least exponent: the hardware does not normalise them).  Zeros, infs and
 * NaNs have sig 0; a zero's exponent is so low that it never sets the
 * alignment, an inf's or NaN's so high that any product with one shows
 * as an exponent above SPECIAL_SEEN (the kinds then say what it is). */
struct operands {
	uint32_t *sig;
	int32_t *exp;
	uint64_t *negative; /* 0, or all ones */
	uint8_t *kind;
};

#define ZERO_EXPONENT (-16000)
#define SPECIAL_EXPONENT 20000
#define SPECIAL_SEEN 2000

static inline int operands_new(struct operands *o, size_t n)
{
	n = n ? n : 1;
	char *m = malloc(n * (sizeof *o->sig + sizeof *o->exp + sizeof *o->negative + sizeof *o->kind));
	if (!m)
		return -1;
	o->negative = (uint64_t *)m;
	o->sig = (uint32_t *)(m + n * sizeof *o->negative);
	o->exp = (int32_t *)(m + n * (sizeof *o->negative + sizeof *o->sig));
	o->kind = (uint8_t *)(m + n * (sizeof *o->negative + sizeof *o->sig + sizeof *o->exp));
	return 0;
}

static inline void operands_free(struct operands *o)
{
	free(o->negative);
}

/* The operands from index i on. */
static inline struct operands operands_at(const struct operands *o, size_t i)
{
	return (struct operands){ o->sig + i, o->exp + i, o->negative + i, o->kind + i };
}

static inline int decode_one(const struct fpref_format *f, uint64_t bits, const struct operands *o, size_t i)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	o->negative[i] = u.negative ? ~(uint64_t)0 : 0;
	o->kind[i] = u.cls == FPREF_CLASS_NAN ? NOT_A_NUMBER
		     : u.cls == FPREF_CLASS_INF ? INF
		     : u.cls == FPREF_CLASS_ZERO ? ZERO
						  : FINITE;
	o->sig[i] = o->kind[i] == FINITE ? (uint32_t)u.significand : 0;
	o->exp[i] = o->kind[i] == FINITE ? u.exponent + f->man_bits
		    : o->kind[i] == ZERO ? ZERO_EXPONENT
					 : SPECIAL_EXPONENT;
	return 0;
}

static inline int decode_all(const struct fpref_format *f, const uint64_t *bits, size_t n, const struct operands *o)
{
	for (size_t i = 0; i < n; i++)
		if (decode_one(f, bits[i], o, i) != 0)
			return -1;
	return 0;
}

/* What one (model, A's and B's formats, output) needs in the inner loop. */
struct plan {
	const struct fpref_format *in_a, *in_b, *output;
	struct fpref_format target; /* the output, narrowed to F fraction bits when F is fewer */
	struct fpref_emu_round_target round; /* target's constants for the core (a plan is never copied) */
	struct fpref_env env;       /* the block's one rounding */
	int frac, floor, block;
	int shift_in;               /* product significand (A's and B's fraction bits) to 23 + lift fraction bits */
	int lift;                   /* extra bits kept so that aligning only ever shifts right */
	unsigned target_shift;      /* target pattern to output pattern */
	int group, parts, sum_frac, c_frac, c_drop; /* the block-scaled and two-stage paths (fpref_formats_tc_model.h) */
	int32_t least_a, least_b;   /* each operand format's least exponent (a subnormal's alignment place) */
	int32_t span_a, span_b;     /* each one's largest leading place above its least */
	int group_shift;            /* group sum (units of 2^(least_a + least_b - man_a - man_b)) to 23 + lift
				     * fraction bits, before the scales' */
	int tree;                   /* the FP32 path (fpref_formats_tc_model.h, tree) */
	bool flush, fused;
	int32_t c_least;            /* the least place C is normalised to: FP32's least normal, or its own format's
				     * (c_least_normal) */
	bool zero_operand;          /* a product with a zero factor enters the alignment (zero_operand_aligns) */
	bool product_inf;           /* products of 2^128 or more are infinities (fpref_formats_tc_model.h) */
	int32_t slow_above;         /* a block whose largest product exponent is above this takes the slow path:
				     * SPECIAL_SEEN (an inf or NaN operand), or 126 with product_inf (a product
				     * that may reach 2^128) */
	struct fpref_env fp32_env;  /* its FP32 arithmetic: rne */
};

/* The two scales of a group or block, multiplied: sig * 2^(exp - man),
 * exp the scales' alignment places added; kind NaN or ZERO when either is. */
struct scale_pair {
	uint64_t sig;
	int32_t exp;
	int man;
	uint8_t kind;
};

static const struct scale_pair unit_scales = { 1, 0, 0, FINITE };

/* The two loops of a block over columns, and the GEMM's tile loops
 * (round_core.h). */
#define BLOCK_CLONES FPREF_EMU_LANE_CLONES

/* c as a term of a block: a 24-bit significand with 23 fraction bits,
 * normalised as FP32 holds it (exponent -126 when subnormal there), its
 * place e and sign mask.  False for a zero c.  Each file that calls it
 * (tc_dot.c, tc_tile.c) has its own local copy, kept out of line as the
 * compiler kept it in one file: inlined into tile_c_terms' rare path, it
 * would stop tile_c_terms from inlining into the tile kernels. */
static __attribute__((noinline, unused)) bool c_term(const struct plan *p, uint64_t c, uint64_t *mag, int32_t *e,
						      uint64_t *neg)
{
	const struct fpref_format *o = p->output;
	uint64_t field = (c >> o->man_bits) & ((1u << o->exp_bits) - 1), m = c & ((1ull << o->man_bits) - 1);
	if (!field && !m)
		return false;
	int32_t x = (field ? (int32_t)field : 1) - o->bias;
	m = (field ? m | 1ull << o->man_bits : m) << (23 - o->man_bits);
	while (m < 1u << 23 && x > p->c_least) {
		m <<= 1;
		x--;
	}
	*mag = m;
	*e = x;
	*neg = (c >> (o->man_bits + o->exp_bits)) & 1 ? ~(uint64_t)0 : 0;
	return true;
}

/* floor(x * 2^k), k below 40; without a branch on x's sign: for a negative
 * x, floor(x / 2^r) = ~(~x >> r), ~x not negative. */
static inline int64_t shift_floor(int64_t x, int k)
{
	uint64_t u = (uint64_t)x, m = 0 - (u >> 63);
	int r = -k > 63 ? 63 : -k;
	uint64_t down = ((u ^ m) >> (r > 0 ? r : 0)) ^ m;
	return (int64_t)(k >= 0 ? u << (k >= 0 ? k : 0) : down);
}

/* The accumulator a chain starts from (CDNA2 reads a subnormal C as +0). */
static inline uint64_t tree_start(const struct fpref_tc_model *m, uint64_t c)
{
	return m->flush && (c & 0x7F800000) == 0 ? 0 : c;
}

/* Two decoded scales multiplied (NaN before zero). */
static inline struct scale_pair scale_product(const struct scale_pair *x, const struct scale_pair *y)
{
	struct scale_pair r;
	r.kind = x->kind == NOT_A_NUMBER || y->kind == NOT_A_NUMBER ? NOT_A_NUMBER
		 : x->kind == ZERO || y->kind == ZERO		      ? ZERO
								      : FINITE;
	r.sig = x->sig * y->sig;
	r.exp = x->exp + y->exp;
	r.man = x->man + y->man;
	return r;
}

/* The calls below are the files' own: hidden, so that the shared object
 * does not export them and a call between the files (or within one) is a
 * direct one, as it was while they were one file's static functions. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* tc_dot.c: the plan, one block, the chain of blocks (scales NULL: none),
 * the lowered and FP32 paths of a dot product and a group of the FP32
 * path, and a and b decoded into one allocation. */
int fpref_emu_tc_plan_init(struct plan *p, const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const struct fpref_format *output);
uint64_t fpref_emu_tc_block(const struct plan *p, const struct operands *a, const struct operands *b, size_t n,
			    uint64_t c, const struct scale_pair *sc);
uint64_t fpref_emu_tc_chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K,
			    uint64_t c, const struct scale_pair *sc);
int fpref_emu_tc_lowered_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			     const struct fpref_format *in_b, const uint64_t *a,
			     const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d);
int fpref_emu_tc_tree_step(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const uint64_t *a,
			   const uint64_t *b, size_t bstride, size_t len, uint64_t *acc);
int fpref_emu_tc_tree_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			  const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
			  uint64_t *d);
/* tc_fused.c: one group of the FP32 path's fused rows (fused): *acc plus
 * len products, b's operands bstride apart, summed exactly and rounded
 * once to FP32, nearest even.  -1 for an invalid pattern. */
int fpref_emu_tc_fused_step(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			    const uint64_t *b, size_t bstride, size_t len, uint64_t *acc);
/* The same over a whole dot product of decoded operands (the GEMM's
 * columns), from C's FP32 bits c; the plan's formats fit (plan_init). */
uint64_t fpref_emu_tc_fused_chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K,
				  uint64_t c);
/* One group of the GEMM's decoded operands (len of each), the same. */
uint64_t fpref_emu_tc_fused_group(const struct plan *p, const struct operands *a, const struct operands *b, size_t len,
				  uint64_t c);
/* tc_fused_lanes.c: fpref_emu_tc_fused_step on the host FPU for FP16 and
 * BF16 operands: 0, or 1 where the group is the word array's (other
 * formats, a pattern of neither, a NaN or inf, a sum the FPU cannot hold,
 * the FPU not IEEE's), *acc untouched. */
int fpref_emu_tc_fused_fast_step(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
				 const uint64_t *b, size_t bstride, size_t len, uint64_t *acc);
int fpref_emu_tc_decode_pair(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			     const uint64_t *b, size_t K,
			     struct operands *all, struct operands *x, struct operands *y);

/* tc_scale.c: one scale decoded, and the chain with FP32 promotion every
 * nc products. */
int fpref_emu_tc_decode_scale(const struct fpref_format *f, uint64_t bits, struct scale_pair *s);
uint64_t fpref_emu_tc_chain_promoted(const struct plan *p, const struct fpref_env *env, const struct operands *a,
				     const struct operands *b, size_t K, size_t nc, const uint64_t *scale_a,
				     const uint64_t *scale_b, uint64_t acc);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
