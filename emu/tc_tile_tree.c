/* The GEMM's tile kernels on lanes of exact values: the FP32 path's
 * (CDNA1/2's pairwise FP32 sums, tile_block_tree) and the lowered path's
 * instruction step (its results added to C in FP32 or FP16).  Both add
 * lane by lane through the same unpacked arithmetic (tree_lanes, lane_add,
 * round_word.h's rounding), inlined into each kernel and variant here; a
 * slow lane goes through tc_dot.c's tree_step or fpref_emu_op. */
#include <stdint.h>
#include <stdlib.h>

#include "tc_tile.h"

/* Exact values for the lanes of the FP32 path and of the lowered one
 * (its instructions' results added to C in the output format, FP32 or
 * FP16), in 32-bit words (8 lanes to an AVX2 instruction, 16 to an
 * AVX-512 one): sig * 2^place, sig signed (two's complement, so that an
 * addition applies no signs) with |sig| below 2^(man + 1), man the
 * output's fraction bits.  Its leading bit is at place + man wherever the
 * value is a normal one of the output or a product (tile_tree_products
 * shifts each there), so that no addition counts an operand's leading
 * zeros; below it for a subnormal value or a zero (tree_add says why that
 * is enough).  A zero's place is never above a nonzero value's: the
 * format's least (FP32's -149) for a zero of the format or of a sum, and
 * for a zero product below every FP32 place (an operand's ZERO_EXPONENT,
 * CDNA2's flushed inputs too: tile_operand_set).  negzero is 1 where the
 * value is -0, which sig cannot say. */
struct tree_lanes {
	int32_t sig[TREE_LANES];
	int32_t place[TREE_LANES];
	uint32_t negzero[TREE_LANES];
};

/* The rounding of the additions: the core's (round_word.h), in 32-bit
 * words, lane by lane in tree_add's loop. */
#define ROUND_WORD_ROUNDING_ONLY
#define WORD uint32_t
#define SWORD int32_t
#define WINT int32_t
#define WORD_BITS 32
#define WORD_CLZ __builtin_clz
#define W(name) name##32
#include "round_word.h"
#undef WORD
#undef SWORD
#undef WINT
#undef WORD_BITS
#undef WORD_CLZ
#undef W
#undef ROUND_WORD_ROUNDING_ONLY

/* sig * 2^(P + s) in units of 2^P, s at most 26 (tree_add): shifted left,
 * or right with the bits shifted out ORed into the last (tree_add says why
 * that changes no rounding to nearest).  The right shift is arithmetic, a
 * floor, so the jammed value is odd and within one unit of the exact one:
 * strictly between the same two even units.  Both shifts taken, one of
 * them by 0: no branch on the data.  A right shift of 31 leaves 0 or -1
 * and the rest as the sticky bit, as any longer one would. */
static inline int32_t align_jam(int32_t sig, int32_t s)
{
	int32_t down = -s; /* maxima and minima, no selections */
	down = down > 0 ? down : 0;
	uint32_t l = (uint32_t)(s > 0 ? s : 0), r = (uint32_t)(down < 31 ? down : 31);
	int32_t kept = sig >> r;
	return (int32_t)((uint32_t)kept << l | (uint32_t)((int32_t)((uint32_t)kept << r) != sig));
}

/* The fields of the format whose patterns the lanes decode and round to
 * (the plan's output: FP32, or FP16 on the lowered path), as plain words
 * that the lane loops keep in registers. */
struct lane_format {
	uint32_t man, special, sign_at; /* fraction bits, the inf/NaN field, the sign's place */
	int32_t place0;                 /* a field's place less the field: -bias - man */
};

static struct lane_format lane_format_of(const struct fpref_format *f)
{
	return (struct lane_format){ (uint32_t)f->man_bits, (1u << f->exp_bits) - 1,
				     (uint32_t)(f->man_bits + f->exp_bits), -f->bias - f->man_bits };
}

/* One lane's value (tree_lanes), where a loop computes it whole. */
struct lane_value {
	int32_t sig, place;
	uint32_t negzero;
};

/* A pattern of lf's format as a lane (an inf or NaN sets slow: not an
 * exact value). */
static inline struct lane_value lane_decode(uint32_t bits, const struct lane_format *lf, uint32_t *slow)
{
	uint32_t field = (bits >> lf->man) & lf->special, m = bits & ((1u << lf->man) - 1);
	uint32_t mag = field ? m | 1u << lf->man : m, neg = bits >> lf->sign_at;
	*slow |= field == lf->special;
	return (struct lane_value){ (int32_t)(neg ? 0 - mag : mag), (field ? (int32_t)field : 1) + lf->place0,
				    neg & (uint32_t)(mag == 0) };
}

/* A lane as a pattern of lf's format (a finite value of it). */
static inline uint32_t lane_pack(struct lane_value v, const struct lane_format *lf)
{
	uint32_t mag = (uint32_t)(v.sig < 0 ? -v.sig : v.sig), neg = (uint32_t)v.sig >> 31 | v.negzero;
	uint32_t field = mag >> lf->man ? (uint32_t)(v.place - lf->place0) : 0;
	return neg << lf->sign_at | field << lf->man | (mag & ((1u << lf->man) - 1));
}

/* What lane_add reads of its format, worked out once: the output's
 * fields (f for the core's rounding, whose fields fold where f is the
 * FP32 constant fpref_emu_binary32_fields) and CDNA2's flush. */
struct lane_adder {
	const struct fpref_format *f;
	int32_t man, up, least, top; /* up: 26 - man (lane_add); least: Q; top: max finite's leading place */
	uint32_t flush, normal;      /* flush: a subnormal result to a zero of its sign; normal: 2^man */
};

static inline struct lane_adder lane_adder_of(const struct fpref_format *f, bool flush)
{
	const struct lane_format lf = lane_format_of(f);
	return (struct lane_adder){ f,
				    (int32_t)lf.man,
				    26 - (int32_t)lf.man,
				    lf.place0 + 1,
				    (int32_t)lf.special - 1 + lf.place0 + (int32_t)lf.man,
				    flush,
				    1u << lf.man };
}

/* The place of x's leading bit (x not 0): by the branch-free search
 * where search (AVX2: FPREF_EMU_LANE_VARIANTS), else by a count, which
 * vectorises under AVX-512. */
static CORE_INLINE int32_t lane_lead(uint32_t x, bool search)
{
	return search ? fpref_emu_lead_bit32(x) : 31 - __builtin_clz(x);
}

/* x + y in the adder's format (FP32, or FP16 on the lowered path; its
 * target never narrowed: tile_tree_fits, lowered_tiles_fit) by rne,
 * through the core's rounding (round_to32), the result left unpacked
 * (tree_lanes: no pattern to decode for the next addition); slow set
 * where it overflows.  Both are aligned at P, 26 places below the larger
 * of their leads (so below 2^27: their sum fits 32 bits), the one with
 * bits below P jammed (align_jam), summed exactly and rounded once;
 * -0 + -0 is -0, CDNA2's flushed result a zero of its sign.  The jam
 * changes no rounding: where y is jammed, x (the larger leading bit L,
 * so not a zero) has its last place at least P + 3 (|sig| below 2^24)
 * and y's leading bit is below L - 3, so the sum's leading bit is at
 * least L - 1, its last place at the format's precision (24 bits at
 * most) or subnormal step at least P + 2; x is a multiple of 2^(P + 1),
 * and x + y and x + jam(y) lie strictly between the same two multiples
 * of 2^(P + 1), which every rounding boundary is.  A zero product's lead
 * is near its place (the least: tree_lanes).  A subnormal or zero of the
 * format, whose least place is Q (FP32's -149), has its lead taken as
 * Q + man (FP32's -126), above its leading bit.  Where that is the
 * larger lead, P is at most Q - 3, every result a multiple of 2^Q and
 * every boundary one of 2^(Q - 1), and x (a multiple of 2^Q) and
 * x + jam(y) lie between the same two again.  Where it is the smaller,
 * the argument above holds with L the other's exact lead: the subnormal
 * is jammed only if P is above Q, so L above Q + 26, and its leading
 * bit, below Q + man, is below L - 3. */
static CORE_INLINE struct lane_value lane_add(const struct lane_adder *a, struct lane_value x, struct lane_value y,
					      uint32_t *slow, bool search)
{
	/* places, not leads, compared: a lead is its place + man (tree_lanes) */
	bool x_big = x.place >= y.place;
	int32_t big = x_big ? x.sig : y.sig, small = x_big ? y.sig : x.sig;
	int32_t gap = x_big ? x.place - y.place : y.place - x.place, P = (x_big ? x.place : y.place) - a->up;
	int32_t sum = (int32_t)((uint32_t)big << a->up) + align_jam(small, a->up - gap);
	uint32_t neg = (uint32_t)sum >> 31, mag = (uint32_t)(sum < 0 ? -sum : sum), inexact;
	int32_t lead = P + lane_lead(mag | 1, search);
	int32_t q = lead - a->man > a->least ? lead - a->man : a->least;
	uint32_t k = round_to32(a->f, FPREF_RNE, mag, 0, q - P, q, neg, &inexact);
	uint32_t carry = k >> (a->man + 1); /* 2^(man + 1): one place up, exactly */
	k >>= carry;
	q += (int32_t)carry;
	k = a->flush && k < a->normal ? 0 : k;
	*slow |= q + a->man > a->top;
	return (struct lane_value){ (int32_t)(neg ? 0 - k : k), k ? q : a->least,
				    (uint32_t)(k == 0) & ((x.negzero & y.negzero) | (a->flush & neg)) };
}

static inline struct lane_value lane_at(const struct tree_lanes *t, size_t i)
{
	return (struct lane_value){ t->sig[i], t->place[i], t->negzero[i] };
}

static inline void lane_set(struct tree_lanes *t, size_t i, struct lane_value v)
{
	t->sig[i] = v.sig;
	t->place[i] = v.place;
	t->negzero[i] = v.negzero;
}

/* lane_add for every lane, in the plan's output format. */
BLOCK_CLONES static void tree_add(const struct plan *p, const struct tree_lanes *x, const struct tree_lanes *y,
				  struct tree_lanes *restrict out, uint32_t *restrict slow)
{
	const struct lane_adder a = lane_adder_of(p->output, p->flush);
	for (size_t i = 0; i < TREE_LANES; i++)
		lane_set(out, i, lane_add(&a, lane_at(x, i), lane_at(y, i), &slow[i], true));
}

/* The pairwise sum of products lo .. lo + n - 1 (tree_sum's halves):
 * the product itself where n is 1, else out. */
static const struct tree_lanes *tree_lanes_sum(const struct plan *p, const struct tree_lanes *prod, size_t lo,
					       size_t n, struct tree_lanes *out, uint32_t *slow)
{
	if (n == 1)
		return &prod[lo];
	struct tree_lanes x, y;
	const struct tree_lanes *u = tree_lanes_sum(p, prod, lo, n / 2, &x, slow);
	const struct tree_lanes *v = tree_lanes_sum(p, prod, lo + n / 2, n - n / 2, &y, slow);
	tree_add(p, u, v, out, slow);
	return out;
}

/* The product x y of two tile operands' significands (x at place
 * ex - 2 man_in, y's exponent ey) as a lane, exact: below 2^24
 * (tile_tree_fits), its leading bit shifted to man.  la and lb are the
 * operands' leading bits: a product of significands with leading bits at
 * la and lb lies in [2^(la + lb), 2^(la + lb + 2)), so its lead is
 * la + lb or one more, and each operand's lead is counted once, not each
 * product's.  A zero product is +0, as tree_sum's x * y + 0. */
static CORE_INLINE struct lane_value lane_product(int32_t x, int32_t ex, int32_t la, int32_t y, int32_t ey, int32_t lb,
						  int32_t man)
{
	int32_t v = x * y, lead = la + lb;
	lead += (int32_t)((uint32_t)(v < 0 ? -v : v) >> (lead + 1));
	int32_t up = man - lead;
	return (struct lane_value){ (int32_t)((uint32_t)v << up), ex + ey - up, 0 };
}

/* Whether a nonzero product's leading bit (at its place + 23) is outside
 * FP32's normal range, 2^-126 to 2^127 (tree_range_needed): FP32 would
 * round, flush or overflow it, and tree_step does. */
static inline uint32_t lane_out_of_range(struct lane_value v)
{
	return (uint32_t)(v.sig != 0) & (uint32_t)((uint32_t)(v.place + 23 + 126) > 253u);
}

/* The operands, places and leads of a block's n columns of A for at most
 * TREE_ROWS rows (the rest zeros), once per row and column. */
static CORE_INLINE void tree_rows(const struct plan *p, const struct tile_operands *ta, size_t rows, size_t n,
				   int32_t *restrict x, int32_t *restrict e, int32_t *restrict la, bool search)
{
	const int32_t two_man = p->in_a->man_bits + p->in_b->man_bits; /* the product's fraction bits */
	/* the rows one after the other in ta, n operands each (the plan's
	 * block, a short last block's too, padded): x[h n + q] */
	for (size_t at = 0; at < TREE_ROWS * n; at++) {
		bool in = at < rows * n;
		x[at] = in ? ta->sig[at] : 0;
		e[at] = in ? ta->exp[at] - two_man : ZERO_EXPONENT;
		la[at] = lane_lead((uint32_t)(x[at] < 0 ? -x[at] : x[at]) | 1, search);
	}
}

/* The leads of a group's TILE operands of B. */
static CORE_INLINE void tree_column_leads(const int16_t *restrict sb, int32_t *restrict lb, bool search)
{
	for (size_t j = 0; j < TILE; j++)
		lb[j] = lane_lead((uint32_t)(sb[j] < 0 ? -sb[j] : sb[j]) | 1, search);
}

/* The products of a group for the lanes of `rows` rows (ta at the first
 * row's group, its rows `block` operands apart; tb at the group's first
 * row of the tile), slow set where one is out of FP32's range if range. */
BLOCK_CLONES static void tile_tree_products(const struct plan *p, const struct tile_operands *ta,
					    const struct tile_operands *tb, size_t rows, size_t n, bool range,
					    struct tree_lanes *restrict prod, uint32_t *restrict slow)
{
	int32_t x[TREE_ROWS * TREE_MAX_BLOCK], e[TREE_ROWS * TREE_MAX_BLOCK], la[TREE_ROWS * TREE_MAX_BLOCK];
	const size_t nb = (size_t)p->block; /* ta's operands per row (n is fewer in a short last block) */
	tree_rows(p, ta, rows, nb, x, e, la, true);
	for (size_t q = 0; q < n; q++) {
		const int16_t *restrict sb = tb->sig + q * TILE, *restrict eb = tb->exp + q * TILE;
		int32_t lb[TILE];
		tree_column_leads(sb, lb, true);
		for (size_t h = 0; h < TREE_ROWS; h++)
			for (size_t j = 0; j < TILE; j++) {
				size_t at = h * nb + q;
				struct lane_value v = lane_product(x[at], e[at], la[at], sb[j], eb[j], lb[j], 23);
				slow[h * TILE + j] |= range ? lane_out_of_range(v) : 0;
				lane_set(&prod[q], h * TILE + j, v);
			}
	}
}

/* `groups` full groups of n products (2 or 4: the presets' blocks) for
 * every lane, one after the other: each lane's products, pairwise sums and
 * addition to its accumulator in one pass, FP32 by rne, the accumulator
 * decoded from cin (its patterns) before the first and packed into bits
 * after the last, unpacked in between (lane_pack and lane_decode give
 * back the same lane for every finite FP32 value, -0 and subnormals
 * included); ta at the first group's rows, each next group's a_stride
 * operands on, tb at the first group's first row of the tile, each
 * next's n rows of TILE on.  flush and range as the plan's (constants
 * here, so that each of the kernels tree_group_fused picks has no test of
 * them).  slow as in tile_block_tree: set in any group, it stays. */
static CORE_INLINE void tree_group_lanes(const struct plan *p, const struct tile_operands *ta,
					 const struct tile_operands *tb, size_t rows, size_t n, size_t groups,
					 size_t a_stride, bool flush, bool range, const uint32_t *restrict cin,
					 uint32_t *restrict bits, uint32_t *restrict slow, bool search)
{
	const struct lane_adder a = lane_adder_of(&fpref_emu_binary32_fields, flush);
	const struct lane_format f32 = lane_format_of(&fpref_emu_binary32_fields);
	struct tree_lanes acc;
	for (size_t l = 0; l < TREE_LANES; l++)
		lane_set(&acc, l, lane_decode(cin[l], &f32, &slow[l]));
	for (size_t gi = 0; gi < groups; gi++) {
		const struct tile_operands tg = tile_operands_at(ta, gi * a_stride);
		const int16_t *restrict bs = tb->sig + gi * n * TILE, *restrict be = tb->exp + gi * n * TILE;
		/* ta's rows are the plan's block apart, n fewer in a short last block */
		const size_t nb = (size_t)p->block;
		int32_t lb[4][TILE], x[TREE_MAX_BLOCK * TREE_ROWS], e[TREE_MAX_BLOCK * TREE_ROWS],
			la[TREE_MAX_BLOCK * TREE_ROWS];
		for (size_t q = 0; q < n; q++)
			tree_column_leads(bs + q * TILE, lb[q], search);
		tree_rows(p, &tg, rows, nb, x, e, la, search);
		for (size_t h = 0; h < TREE_ROWS; h++)
			for (size_t j = 0; j < TILE; j++) {
				size_t l = h * TILE + j;
				uint32_t s = slow[l];
#define TREE_PRODUCT(q) \
	lane_product(x[h * nb + (q)], e[h * nb + (q)], la[h * nb + (q)], bs[(q) * TILE + j], be[(q) * TILE + j], lb[q][j], 23)
				struct lane_value v0 = TREE_PRODUCT(0), v1 = TREE_PRODUCT(1);
				s |= range ? lane_out_of_range(v0) | lane_out_of_range(v1) : 0;
				struct lane_value sum = lane_add(&a, v0, v1, &s, search);
				if (n == 4) { /* tree_sum's halves */
					struct lane_value v2 = TREE_PRODUCT(2), v3 = TREE_PRODUCT(3);
					s |= range ? lane_out_of_range(v2) | lane_out_of_range(v3) : 0;
					sum = lane_add(&a, sum, lane_add(&a, v2, v3, &s, search), &s, search);
				}
#undef TREE_PRODUCT
				lane_set(&acc, l, lane_add(&a, lane_at(&acc, l), sum, &s, search));
				slow[l] = s;
			}
	}
	for (size_t l = 0; l < TREE_LANES; l++)
		bits[l] = lane_pack(lane_at(&acc, l), &f32);
}

/* tree_group_lanes with the plan's n, flush and range as constants, once
 * per instruction set (FPREF_EMU_LANE_VARIANTS: the leading bits of
 * every addition counted as each does best). */
static CORE_INLINE void tree_group_fused_body(const struct plan *p, const struct tile_operands *ta,
					      const struct tile_operands *tb, size_t rows, size_t n, size_t groups,
					      size_t a_stride, bool range, const uint32_t *restrict cin,
					      uint32_t *restrict bits, uint32_t *restrict slow, bool search)
{
#define TREE_GROUP(N, FLUSH, RANGE) \
	tree_group_lanes(p, ta, tb, rows, N, groups, a_stride, FLUSH, RANGE, cin, bits, slow, search)
	if (n == 2)
		p->flush ? (range ? TREE_GROUP(2, true, true) : TREE_GROUP(2, true, false))
			 : (range ? TREE_GROUP(2, false, true) : TREE_GROUP(2, false, false));
	else
		p->flush ? (range ? TREE_GROUP(4, true, true) : TREE_GROUP(4, true, false))
			 : (range ? TREE_GROUP(4, false, true) : TREE_GROUP(4, false, false));
#undef TREE_GROUP
}

FPREF_EMU_LANE_VARIANTS(static void tree_group_fused, tree_group_fused,
			(const struct plan *p, const struct tile_operands *ta, const struct tile_operands *tb,
			 size_t rows, size_t n, size_t groups, size_t a_stride, bool range,
			 const uint32_t *restrict cin, uint32_t *restrict bits, uint32_t *restrict slow),
			p, ta, tb, rows, n, groups, a_stride, range, cin, bits, slow)

/* tree_step for TILE columns of `rows` rows (at most TREE_ROWS; the
 * GEMM's FP32 path, tile_tree_fits), `groups` blocks of n from k (more
 * than one only for full groups of 2 or 4): groups of 2 or 4 through
 * tree_group_fused, any other through tile_tree_products, the sums
 * through tree_add; a lane where a block holds an inf or NaN, whose
 * accumulator is one, or where a sum overflows (a group's or C's) goes
 * through tree_step itself on the patterns, block by block (rows i ..,
 * columns t .. t + TILE - 1 from k; those past N are padding, never
 * computed).  bspecial[q][j]: column j's block q holds an inf or NaN.
 * c: the rows' accumulators, TILE each. */
BLOCK_CLONES int fpref_emu_tc_tile_block_tree(const struct gemm_job *g, size_t i, size_t rows, size_t t,
					      size_t k, const struct tile_operands *ta, const struct tile_operands *tb,
					      size_t n, size_t groups, const uint8_t (*bspecial)[TILE], uint64_t *c)
{
	const struct plan *p = g->p;
	uint32_t slow[TREE_LANES] = { 0 }, bits[TREE_LANES], cin[TREE_LANES] = { 0 };
	uint8_t aspecial[TREE_ROWS] = { 0 }, bsp[TILE] = { 0 };
	for (size_t h = 0; h < rows; h++)
		for (size_t q = 0; q < groups * n; q++)
			aspecial[h] |= g->a.kind[(i + h) * g->K + k + q] & (INF | NOT_A_NUMBER);
	for (size_t q = 0; q < groups; q++)
		for (size_t j = 0; j < TILE; j++)
			bsp[j] |= bspecial[q][j];
	for (size_t l = 0; l < rows * TILE; l++)
		cin[l] = (uint32_t)c[l];
	for (size_t h = 0; h < TREE_ROWS; h++)
		for (size_t j = 0; j < TILE; j++)
			slow[h * TILE + j] = (aspecial[h] | bsp[j]) != 0;
	if (n == 2 || n == 4) {
		tree_group_fused(p, ta, tb, rows, n, groups, n * g->M, g->tree_range, cin, bits, slow);
	} else {
		struct tree_lanes prod[TREE_MAX_BLOCK], acc, s, d;
		const struct lane_format f32 = lane_format_of(p->output); /* FP32: tile_tree_fits */
		tile_tree_products(p, ta, tb, rows, n, g->tree_range, prod, slow);
		for (size_t l = 0; l < TREE_LANES; l++)
			lane_set(&acc, l, lane_decode(cin[l], &f32, &slow[l]));
		tree_add(p, &acc, tree_lanes_sum(p, prod, 0, n, &s, slow), &d, slow);
		for (size_t l = 0; l < TREE_LANES; l++)
			bits[l] = lane_pack(lane_at(&d, l), &f32);
	}
	uint32_t any_slow = 0;
	for (size_t l = 0; l < TREE_LANES; l++)
		any_slow |= slow[l];
	for (size_t l = 0; any_slow && l < rows * TILE; l++) {
		size_t h = l / TILE, j = l % TILE;
		uint64_t acc = c[l];
		for (size_t q = 0; slow[l] && t + j < g->N && q < groups; q++) {
			size_t kq = k + q * n;
			if (fpref_emu_tc_tree_step(g->m, g->in_a, g->in_b, g->A + (i + h) * g->K + kq, g->B + kq * g->N + t + j,
						   g->N, n, &acc) != 0)
				return -1;
			bits[l] = (uint32_t)acc; /* an FP32 pattern */
		}
	}
	for (size_t l = 0; l < rows * TILE; l++)
		c[l] = bits[l];
	return 0;
}

/* One lowered instruction (lowered_dot) for the lanes of `rows` rows (at
 * most TREE_ROWS) of TILE columns, FP32 or FP16 output (TILE_LOWERED): the job's
 * operands are FP16 already, each instruction's K permuted so that its
 * lane groups are contiguous blocks (lowered_gemm), so each group is one
 * tile_block of the FP16 unit's plan, chained from zero; then the
 * instruction's result added to c lane-wise by tree_add (in the output,
 * rne, as lowered_dot's addition); a lane where either is an inf or NaN,
 * or where the sum overflows, adds through fpref_emu_op itself.  k: the instruction's first (permuted)
 * product. */
void fpref_emu_tc_tile_lowered_step(const struct gemm_job *g, size_t i, size_t rows, size_t t, size_t k,
				    const struct tile_scales *ts, uint64_t *c)
{
	const struct plan *p = g->p;
	size_t n = (size_t)p->block, groups = (size_t)g->m->lowered_k / n, M = g->M, K = g->K;
	struct tree_lanes acc, part, d;
	uint32_t slow[TREE_LANES] = { 0 }, bits[TREE_LANES];
	uint64_t partial[TREE_LANES] = { 0 };
	const struct lane_format lf = lane_format_of(p->output);
	for (size_t h = 0; h < rows; h++)
		for (size_t q = 0; q < groups; q++) {
			size_t kq = k + q * n;
			struct operands x = operands_at(&g->a, (i + h) * K + kq), y = operands_at(&g->b, kq * g->stride + t);
			struct tile_operands tx = tile_operands_at(&g->ta, kq * M + (i + h) * n);
			struct tile_operands ty = tile_operands_at(&g->tb, t * K + kq * TILE);
			fpref_emu_tc_tile_block(p, &x, &y, &tx, &ty, g->stride, n, ts, partial + h * TILE);
		}
	for (size_t l = 0; l < TREE_LANES; l++) {
		lane_set(&part, l, lane_decode((uint32_t)partial[l], &lf, &slow[l]));
		lane_set(&acc, l, lane_decode(l < rows * TILE ? (uint32_t)c[l] : 0, &lf, &slow[l]));
	}
	tree_add(p, &acc, &part, &d, slow);
	for (size_t l = 0; l < TREE_LANES; l++)
		bits[l] = lane_pack(lane_at(&d, l), &lf);
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t l = 0; l < rows * TILE; l++) {
		if (slow[l]) {
			uint64_t args[3] = { partial[l], c[l], 0 }, r = 0;
			unsigned flags = 0;
			fpref_emu_op(FPREF_OP_ADD, p->output, args, &env, 0, &r, &flags);
			bits[l] = (uint32_t)r;
		}
		c[l] = bits[l];
	}
}
