/* fpref quantize: the scheme table, the request every scheme reads and the
 * result it fills.  A scheme is a row: adding one is adding a row with its
 * run function (and, for a block-scaled one, the elements it takes). */
#ifndef FPREF_QUANTIZE_H
#define FPREF_QUANTIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref.h"
#include "fpref_formats_npy.h"
#include "fpref_formats_scale.h"
#include "fpref_emu_scale_mx.h"

struct quantize_request {
	const uint32_t *x; /* FP32 bit patterns, C order */
	size_t count;
	int ndim;
	size_t shape[FPREF_NPY_MAX_DIMS];
	struct fpref_format element; /* --format, e4m3 unless given */
	bool have_format;            /* given: schemes with another default (MX, NVFP4) can tell */
	int pow2;                    /* --pow2 1, --no-pow2 0, neither -1 */
	bool te_recipe;              /* --recipe te (tile128, block128; nvfp4's is in nvfp4.recipe) */
	uint32_t eps;                /* --eps as FP32 bits */
	bool have_eps;
	size_t history;              /* delayed: --history, default 1024 */
	enum fpref_amax_algo algo;   /* delayed: --amax-algo */
	int margin;                  /* delayed: --margin */
	enum fpref_amax_nan amax_nan; /* --amax-nan, the recipe's own unless given */
	/* MX and NVFP4 */
	const char *mx_element;       /* the element's catalog name, or "int8" (MXINT8; q->element unused) */
	enum fpref_mx_scale_rule mx_rule;         /* --rule, ocp-floor unless given */
	enum fpref_rounding element_rounding;     /* --element-rounding, rne unless given */
	struct fpref_nvfp4_params nvfp4;          /* --2d, --sr, --seed, --recipe, --four-over-six, --rht ... */
};

/* What a scheme hands back; the command writes and reports it. */
struct quantize_result {
	uint8_t *codes;   /* count */
	uint32_t *dequant; /* count */
	void *scales;
	const char *scales_descr; /* "<f4" or "|u1" */
	size_t scales_item_bytes;
	int scales_ndim;
	size_t scales_shape[FPREF_NPY_MAX_DIMS];
	const struct fpref_format *element; /* the codes' format, for the report; NULL for MXINT8 */
	struct fpref_format element_store;
	const char *element_name;           /* printed as the format */
	/* Scheme settings printed beside the shape (rule, rounding ...). */
	struct quantize_label {
		const char *name;
		char value[24];
		bool number; /* a JSON number, not a string */
	} labels[8];
	int nlabels;
	/* Scheme-specific FP32 facts (amax, scale ...), named. */
	struct quantize_fact {
		const char *name;
		uint32_t bits;
	} facts[4];
	int nfacts;
	/* NVFP4: the FP32 tensor scale S, written to --tensor-scale. */
	bool has_tensor_scale;
	uint32_t tensor_scale;
	/* Delayed scaling: per step, the amax recorded and the scale_inv used. */
	size_t steps;
	uint32_t *step_amax, *step_scale_inv;
};

/* Which options a scheme takes (the command refuses the others). */
enum quantize_family {
	QUANTIZE_FP8,   /* tensor, delayed, tile128, block128: FP32 scales, --format e4m3|e5m2 */
	QUANTIZE_MX,    /* OCP MX: E8M0 scales, --rule, --element-rounding */
	QUANTIZE_NVFP4, /* E4M3 block scales and an FP32 tensor scale, --2d, --sr, --seed, --tensor-scale */
};

struct quantize_scheme {
	const char *name;
	const char *what;
	/* 0, CLI_EXIT_USAGE after a message, or CLI_EXIT_FAIL; NULL: not built yet */
	int (*run)(const struct quantize_request *q, struct quantize_result *r);
	enum quantize_family family;
	/* MX and NVFP4: the elements --format may choose, as catalog names
	 * ("int8" for MXINT8, which takes no --format), the first the default;
	 * and the same as the user writes them, for messages. */
	const char *elements[3];
	const char *format_choices;
};

const struct quantize_scheme *quantize_scheme_find(const char *name);
const char *quantize_scheme_choices(void);
void quantize_result_free(struct quantize_result *r);

/* Read X.npy as FP32 patterns: float32, float16 and bfloat16 ('V2' items,
 * as ml_dtypes saves them) widen exactly; float64 is taken only when every
 * element is a float32 exactly (never rounded twice).  0 or CLI_EXIT_USAGE
 * after a message; *x is malloc'd. */
int quantize_load(const char *path, struct quantize_request *q, uint32_t **x);
/* Write an array atomically; 0 or CLI_EXIT_FAIL after a message. */
int quantize_save(const char *path, const char *descr, const size_t *shape, int ndim, const void *data,
		  size_t item_bytes);

#endif
