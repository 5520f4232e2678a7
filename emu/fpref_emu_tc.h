/* fpref — the emulator's accumulators: the tensor-core block-FMA models
 * (their parameters are rows of formats/fpref_formats_tc_model.h) and plain
 * accumulation orders for comparison. */
#ifndef FPREF_TC_H
#define FPREF_TC_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d = a . b + c over K products, inputs as bit patterns of `input`, c and
 * the result as patterns of `output` (float32, or float16).  Returns 0, or
 * -1 for an invalid pattern or an output the model does not cover. */
int fpref_emu_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		     const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		     uint64_t *d);

/* fpref_emu_tc_dot with block scales (NULL: unit scales): the block-scaled
 * kinds (the model's group path, or E8M0 scales moving each product's
 * exponent).  -1 also for scales that do not suit the model
 * (fpref_tc_scales_ok), for a bad scale pattern, and for scales on a
 * lowered path. */
int fpref_emu_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			    uint64_t c, const struct fpref_format *output, uint64_t *d);

/* Rows of 2K + 1 patterns (a in in_a, b in in_b, then c), their operands
 * decoded once, for a caller that runs the same rows under many models:
 * fpref_emu_tc_rows_dot(m, r, i, output, d) gives what fpref_emu_tc_dot
 * gives for row i (0, or -1 likewise).  The rows must outlive r.  NULL on
 * allocation failure. */
struct fpref_emu_tc_rows;
struct fpref_emu_tc_rows *fpref_emu_tc_rows_new(const struct fpref_format *in_a, const struct fpref_format *in_b,
						const uint64_t *rows, size_t count, size_t K);
int fpref_emu_tc_rows_dot(const struct fpref_tc_model *m, const struct fpref_emu_tc_rows *r, size_t i,
			  const struct fpref_format *output, uint64_t *d);
void fpref_emu_tc_rows_free(struct fpref_emu_tc_rows *r);

/* D = A B + C: A row-major M x K, B row-major K x N (patterns of input),
 * C (NULL: zeros) and D row-major M x N patterns of output; every element
 * is fpref_emu_tc_dot of a row and a column, or fpref_emu_tc_dot_promoted (no
 * scales) when nc > 0, which needs FP32 output.  0, or -1 as for
 * fpref_emu_tc_dot or on allocation failure. */
int fpref_emu_tc_gemm(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		      const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
		      const uint64_t *B, const uint64_t *C, size_t nc, uint64_t *D);

/* fpref_emu_tc_gemm on up to `threads` threads (0 or 1: this one), each
 * computing whole columns of D: the same bits for every thread count. */
int fpref_emu_tc_gemm_threads(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
			      const uint64_t *B, const uint64_t *C, size_t nc, uint64_t *D, unsigned threads);

/* The block-scaled GEMM: every element (i, j) of D is
 * fpref_emu_tc_dot_scaled of row i of A and column j of B with row i of
 * scales->a and column j of scales->b (NULL: fpref_emu_tc_gemm_threads
 * without promotion), on up to `threads` threads: the same bits for every
 * thread count.  0, or -1 as fpref_emu_tc_dot_scaled (scales that do not
 * suit the model, a lowered or FP32 path, a bad pattern) or on allocation
 * failure. */
int fpref_emu_tc_gemm_scaled_threads(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				     const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
				     const uint64_t *B, const struct fpref_tc_gemm_scales *scales, const uint64_t *C,
				     uint64_t *D, unsigned threads);

/* Which code fpref_emu_tc_gemm runs for the model, input and output
 * (no promotion, no scales): "block tile", "two-stage tile", "group tile",
 * "fp32-tree tile", "lowered block tile" (the tile kernels; the last the
 * lowered paths' FP32 output), "per column" (each column's dots over
 * operands decoded once), "per element" (each element's dot: the lowered
 * FP16 output and the FP32-arithmetic paths the tiles do not hold), or NULL where
 * the model does not take the input. */
const char *fpref_emu_tc_gemm_path(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				   const struct fpref_format *output);

/* Promotion (DeepSeek-V3): every nc products the tensor-core partial sum p
 * (FP32 output, started from +0) enters an FP32 accumulator as
 * acc = fma(sa_j * sb_j, p, acc), in FP32 arithmetic with rne; sa_j, sb_j
 * are the FP32 dequantisation scales of chunk j (NULL: 1).  c and d are
 * FP32 patterns.  0, or -1 for an invalid pattern or nc = 0. */
int fpref_emu_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a,
			      const uint64_t *scale_b, uint64_t c, uint64_t *d);

/* cuBLASLt's split-K order (fpref_accum_model's splitk): slices of S
 * products from zero, their FP32 sums added in K order, C added last.
 * FP32 output; 0, or -1 as fpref_emu_tc_dot, for S = 0 or a lowered
 * model. */
int fpref_emu_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d);

/* Plain accumulations for comparison (emu/accumulate.c); the orders are
 * named in fpref_formats_tc_model.h. */
/* d = a . b + c with every step rounded in format `acc` under env (the
 * inputs converted to acc first, exactly when it is wider).  0, or -1 for
 * an invalid pattern, a block of 0, or an accumulator too wide to compute. */
int fpref_emu_dot(enum fpref_sum_order order, size_t block, const struct fpref_format *in_a, const struct fpref_format *in_b,
		  const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
		  const struct fpref_env *env, uint64_t *d, unsigned *flags);

/* d = a . b + c through an accumulation model the emulator runs: the
 * tensor-core models (promoted or not) and the plain orders (rounded in
 * out under env).  0, or -1 as the model's function says, and -1 for
 * FPREF_ACCUM_EXACT, which is the oracle's (golden/gemm.c runs every kind). */
int fpref_emu_model_dot(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *out,
			const struct fpref_env *env, uint64_t *d);

#ifdef __cplusplus
}
#endif
#endif
