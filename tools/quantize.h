/* fpref quantize: reading the tensor and writing the arrays.  The schemes,
 * their request and their result are the library's (fpref_emu_quantize.h). */
#ifndef FPREF_QUANTIZE_H
#define FPREF_QUANTIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref.h"
#include "fpref_formats_npy.h"
#include "fpref_formats_scale.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_emu_quantize.h"

/* Read X.npy as FP32 patterns: float32, float16 and bfloat16 ('V2' items,
 * as ml_dtypes saves them) widen exactly; float64 is taken only when every
 * element is a float32 exactly (never rounded twice).  0 or CLI_EXIT_USAGE
 * after a message; *x is malloc'd. */
int quantize_load(const char *path, struct fpref_emu_quantize_request *q, uint32_t **x);
/* Write an array atomically; 0 or CLI_EXIT_FAIL after a message. */
int quantize_save(const char *path, const char *descr, const size_t *shape, int ndim, const void *data,
		  size_t item_bytes);

#endif
