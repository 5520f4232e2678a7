/* fpref — tensor-core block-FMA models (Khattak and Mikaitis, "Accurate
 * Models of NVIDIA Tensor Cores", arXiv:2512.07004; Fasi, Higham, Mikaitis
 * and Pranesh, PeerJ Comput. Sci. 7:e330).  One block takes n exact
 * products and the incoming accumulator, aligns every term to the largest
 * exponent (not below a floor) with F fraction bits, truncates each, sums
 * exactly and rounds once; longer dot products chain blocks in K order. */
#ifndef FPREF_TC_H
#define FPREF_TC_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_format.h"
#include "fpref_env.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_TC_NO_FLOOR (-100000)

struct fpref_tc_model {
	const char *gpu;       /* v100, a100, h100, ada */
	const char *inputs;    /* the input formats it covers, comma-separated names */
	int block;             /* products per block, n */
	int neab;              /* extra alignment bits: F = 23 + neab fraction bits */
	int floor_fp32;        /* the alignment exponent's floor with FP32 output */
	int floor_fp16;        /* ... with FP16 output */
	const char *source;
};

size_t fpref_tc_model_count(void);
const struct fpref_tc_model *fpref_tc_model_at(size_t i);
/* The model of a GPU for an input format, or NULL. */
const struct fpref_tc_model *fpref_tc_model_find(const char *gpu, const struct fpref_format *input);

/* d = a . b + c over K products, inputs as bit patterns of `input`, c and
 * the result as patterns of `output` (float32, or float16).  Returns 0, or
 * -1 for an invalid pattern or an output the model does not cover. */
int fpref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d);

/* Promotion (DeepSeek-V3): every nc products the tensor-core partial sum p
 * (FP32 output, started from +0) enters an FP32 accumulator as
 * acc = fma(sa_j * sb_j, p, acc), in FP32 arithmetic with rne; sa_j, sb_j
 * are the FP32 dequantisation scales of chunk j (NULL: 1).  c and d are
 * FP32 patterns.  0, or -1 for an invalid pattern or nc = 0. */
int fpref_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			  const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a, const uint64_t *scale_b,
			  uint64_t c, uint64_t *d);

/* Plain accumulations for comparison (emu/accumulate.c). */
enum fpref_sum_order {
	FPREF_SUM_RECURSIVE, /* s = c; s = s + a_k*b_k in K order */
	FPREF_SUM_PAIRWISE,  /* the products summed as a balanced tree, then added to c */
	FPREF_SUM_BLOCKED,   /* blocks of `block` products summed, each block sum added to s */
	FPREF_SUM_FMA_CHAIN, /* s = fma(a_k, b_k, s): one rounding per step */
	FPREF_SUM_KAHAN      /* compensated (Kahan) summation of the rounded products */
};
const char *fpref_sum_order_name(enum fpref_sum_order o);
int fpref_sum_order_parse(const char *s, enum fpref_sum_order *o);

/* d = a . b + c with every step rounded in format `acc` under env (the
 * inputs converted to acc first, exactly when it is wider).  0, or -1 for
 * an invalid pattern, a block of 0, or an accumulator too wide to compute. */
int fpref_emu_dot(enum fpref_sum_order order, size_t block, const struct fpref_format *in, const uint64_t *a,
		  const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc, const struct fpref_env *env,
		  uint64_t *d, unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif
