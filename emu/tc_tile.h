/* The GEMM's tile path, shared by its files: the tile operands and scales,
 * the GEMM job that the kernels read, and the kernels' entry points
 * (tc_tile.c: the block, two-stage and group kernels; tc_tile_tree.c: the
 * FP32-tree and lowered ones), which tc_gemm.c's column loop calls. */
#ifndef FPREF_EMU_TC_TILE_H
#define FPREF_EMU_TC_TILE_H

#include "tc_internal.h"

/* The GEMM's tile path, for the block models (their products summed in
 * 32-bit lanes where tile_fits, else in 64-bit ones), the two-stage,
 * group and FP32 pairwise models and the lowered paths: B decoded as
 * given, row-major, so that TILE adjacent columns are TILE lanes of one
 * loop and a block's alignment exponent is a lane-wise maximum (no
 * horizontal reduction, no transposed copy).  The arithmetic is block()'s
 * term by term: the same products, shifts and truncations, summed exactly
 * (so their order does not matter), the same one rounding, through the
 * core's loop over many sums.  A lane whose block holds an inf or NaN, or
 * whose accumulator is one, goes through block() itself.  The block-scaled
 * GEMM takes the same kernels, each lane with its scales (struct
 * tile_scales).  tests/check_tc_gemm holds the GEMM against
 * fpref_emu_tc_dot element by element, tests/check_tc_gemm_scaled the
 * scaled one against fpref_emu_tc_dot_scaled. */
#define TILE 16

/* The FP32 path's tile kernel takes TREE_ROWS rows of A at once, so that
 * each of its additions rounds TREE_ROWS * TILE lanes in one call of the
 * batch rounding (the calls' own cost spread over 128 lanes: 8 rows ran
 * faster than 4 on an AVX-512 EPYC), and groups of at most TREE_MAX_BLOCK
 * products (tile_tree_fits; the presets' are 2 and 4). */
#define TREE_ROWS 8
#define TREE_LANES (TREE_ROWS * TILE)
#define TREE_MAX_BLOCK 8
/* The most full groups of 2 or 4 products one call of the FP32 tile
 * kernel takes (tree_group_lanes), each lane's accumulator unpacked
 * between them. */
#define TREE_GROUPS 4

/* The tile path's own copy of the operands, 4 bytes each where struct
 * operands takes 17, so that a block of B for a whole tile stays in the
 * first-level cache while every row of A passes over it: the significand
 * with the operand's sign folded in, and the exponent.  Both fit 16 bits:
 * at most 11 significand bits (fpref_tc_input_ok), exponents from
 * ZERO_EXPONENT to SPECIAL_EXPONENT. */
struct tile_operands {
	int16_t *sig, *exp;
};

static inline struct tile_operands tile_operands_at(const struct tile_operands *o, size_t i)
{
	return (struct tile_operands){ o->sig + i, o->exp + i };
}

/* The two-stage tile kernel's most parts (the presets have 1 and 2). */
#define TILE_PARTS 4

/* Which tile kernel the GEMM runs for a plan without promotion, or
 * TILE_NONE: the column-by-column path. */
enum tile_kind { TILE_NONE, TILE_BLOCK, TILE_TWO_STAGE, TILE_GROUPS, TILE_TREE, TILE_LOWERED, TILE_BLOCK_WIDE };

/* The most groups of a block that the tile path takes scales for (the
 * preset has 4); a scaled GEMM with more goes column by column. */
#define TILE_SCALE_GROUPS 8

/* A block's scales for TILE lanes (row i, the tile's columns), per group
 * of the block (without the group path: one, the block's): each lane's
 * two scales multiplied as scale_product multiplies them, exponents added
 * and significands multiplied (man: the product's fraction bits, the same
 * for every lane); slow[j] 1 where a scale of lane j's block is NaN or
 * zero, so that the lane goes through block() with its scale pairs, made
 * from row (row i's chunks of scales) and col (the tile's first column's;
 * column j's chunks are j * chunks further, for j below width: the
 * lanes past N are padding), chunks of `every` products from product k,
 * as scaled_columns makes them.  The unscaled GEMM gives unit scales
 * (exponent 0, significand 1) and no slow lane. */
struct tile_scales {
	int32_t exp[TILE_SCALE_GROUPS][TILE];
	uint32_t sig[TILE_SCALE_GROUPS][TILE];
	int32_t lead[TILE]; /* the group path: the largest of the block's groups' exponents, not below the floor */
	uint64_t slow[TILE];
	int man;
	const struct scale_pair *row, *col;
	size_t chunks, every, unit, k, width;
};

/* What every thread of a GEMM reads (nothing it writes but its own
 * columns of D). */
struct gemm_job {
	const struct fpref_tc_model *m;
	const struct plan *p;
	const struct fpref_format *in_a, *in_b, *output;
	size_t M, N, K, nc, stride;
	const uint64_t *A, *B, *C;
	struct operands a, b; /* decoded: A row-major; B row-major (tile path) or transposed (the other paths) */
	/* the tile path's copies, each in the order the loops read it: A block
	 * by block, each block's rows one after the other (its n operands
	 * each); B tile by tile, each tile's K rows of TILE (rows a power of
	 * two apart, as in B itself, would all fall in a few sets of the
	 * cache) */
	struct tile_operands ta, tb;
	enum tile_kind tiles;
	bool element_wise;
	bool tree_range; /* the tree tile kernel checks every product's range (tree_range_needed) */
	uint64_t *D;
	/* block scales (NULL: none), decoded: sa row i's chunks of every
	 * products, sb column j's (transposed), chunks of each */
	const struct scale_pair *sa, *sb;
	size_t every, chunks;
};

/* Hidden, as tc_internal.h's calls. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* tc_tile.c: one block of n products for TILE columns, row i's, by the
 * kernel the plan's tile_kind names. */
void fpref_emu_tc_tile_block(const struct plan *p, const struct operands *a, const struct operands *b,
			     const struct tile_operands *ta, const struct tile_operands *tb, size_t stride, size_t n,
			     const struct tile_scales *ts, uint64_t *c);
void fpref_emu_tc_tile_block_wide(const struct plan *p, const struct operands *a, const struct operands *b,
				  const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
				  size_t n, const struct tile_scales *ts, uint64_t *c);
void fpref_emu_tc_tile_block_two_stage(const struct plan *p, const struct operands *a, const struct operands *b,
				       const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
				       size_t n, const struct tile_scales *ts, uint64_t *c);
void fpref_emu_tc_tile_block_groups(const struct plan *p, const struct operands *a, const struct operands *b,
				    const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
				    size_t n, const uint8_t *bspecial, const struct tile_scales *ts, uint64_t *c);
void fpref_emu_tc_tile_block_groups_scaled(const struct plan *p, const struct operands *a, const struct operands *b,
					   const struct tile_operands *ta, const struct tile_operands *tb,
					   size_t stride, size_t n, const uint8_t *bspecial,
					   const struct tile_scales *ts, uint64_t *c);

/* tc_tile_tree.c: the FP32 path's blocks for up to TREE_ROWS rows, and one
 * lowered instruction for them. */
int fpref_emu_tc_tile_block_tree(const struct gemm_job *g, size_t i, size_t rows, size_t t, size_t k,
				 const struct tile_operands *ta, const struct tile_operands *tb, size_t n,
				 size_t groups, const uint8_t (*bspecial)[TILE], uint64_t *c);
void fpref_emu_tc_tile_lowered_step(const struct gemm_job *g, size_t i, size_t rows, size_t t, size_t k,
				    const struct tile_scales *ts, uint64_t *c);

/* tc_fused_lanes.c: columns j0 .. j1 - 1 of a fused row's GEMM (not
 * tiled: B's decoded operands transposed) on the host FPU, TILE columns
 * at a time, the groups it cannot decide by fpref_emu_tc_fused_group: 0,
 * -1 (no memory), or 1 where the job is not its own (other formats, the
 * FPU not IEEE's), nothing written. */
int fpref_emu_tc_fused_columns(const struct gemm_job *g, size_t j0, size_t j1);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
