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

#ifdef __cplusplus
}
#endif
#endif
