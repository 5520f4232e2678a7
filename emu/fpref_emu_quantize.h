/* fpref — the quantisation schemes behind one call: the scheme table, the
 * request every scheme reads and the result it fills.  `fpref quantize`
 * and the Python package's fpref.quantize parse their options into a
 * request, call fpref_emu_quantize and print or return the result; the
 * scheme's library calls (fpref_emu_scale.h, fpref_emu_scale_mx.h) are
 * made here, once.  Adding a scheme is adding a row to emu/quantize.c. */
#ifndef FPREF_EMU_QUANTIZE_H
#define FPREF_EMU_QUANTIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_npy.h"
#include "fpref_formats_scale.h"
#include "fpref_emu_scale_mx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which options a scheme takes (the callers refuse the others). */
enum fpref_emu_quantize_family {
	FPREF_EMU_QUANTIZE_FP8,   /* tensor, delayed, tile128, block128: FP32 scales, element e4m3|e5m2 */
	FPREF_EMU_QUANTIZE_MX,    /* OCP MX: E8M0 scales, a scale rule, the element's rounding */
	FPREF_EMU_QUANTIZE_NVFP4, /* E4M3 block scales and an FP32 tensor scale, 2-D blocks, sr and its seed */
};

struct fpref_emu_quantize_scheme {
	const char *name;
	const char *what;
	enum fpref_emu_quantize_family family;
	/* MX and NVFP4: the elements the scheme takes, as catalogue names
	 * ("int8" for MXINT8, which has no format), the first the default;
	 * and the same as a user writes them, for messages. */
	const char *elements[3];
	const char *format_choices;
};

/* The row of a scheme name, or NULL; the names, comma-separated. */
const struct fpref_emu_quantize_scheme *fpref_emu_quantize_scheme_find(const char *name);
const char *fpref_emu_quantize_scheme_choices(void);

struct fpref_emu_quantize_request {
	const uint32_t *x; /* FP32 bit patterns, C order */
	size_t count;
	int ndim;          /* delayed steps along shape[0]; the block schemes see rows x shape[ndim - 1] */
	size_t shape[FPREF_NPY_MAX_DIMS];
	struct fpref_format element;  /* FP8 schemes; MX and NVFP4 take mx_element */
	int pow2;                     /* on 1, off 0, the recipe's own -1 */
	bool te_recipe;               /* tile128, block128: Transformer Engine's, not DeepSeek-V3's */
	uint32_t eps;                 /* FP32 bits, where have_eps */
	bool have_eps;
	size_t history;               /* delayed */
	enum fpref_amax_algo algo;    /* delayed */
	int margin;                   /* delayed */
	enum fpref_amax_nan amax_nan; /* the recipe's own unless set */
	/* MX and NVFP4 */
	const char *mx_element;                 /* the element's catalogue name, or "int8" (MXINT8) */
	enum fpref_mx_scale_rule mx_rule;
	enum fpref_mx_recipe mx_recipe;         /* MX: whose quantiser (OCP by default) */
	enum fpref_rounding element_rounding;
	struct fpref_nvfp4_params nvfp4;
	bool codes_only; /* codes and scales without the dequantised values (dequant stays NULL) */
};

/* What a scheme hands back (malloc'd; fpref_emu_quantize_result_free). */
struct fpref_emu_quantize_result {
	uint8_t *codes;     /* count */
	uint32_t *dequant;  /* count; NULL where the request was codes_only */
	void *scales;       /* scales_count items of scales_item_bytes */
	const char *scales_descr; /* "<f4" (FP32) or "|u1" (one-byte codes) */
	size_t scales_item_bytes, scales_count;
	int scales_ndim;
	size_t scales_shape[FPREF_NPY_MAX_DIMS];
	const struct fpref_format *element; /* the codes' format (points into element_store); NULL for MXINT8 */
	struct fpref_format element_store;
	const char *element_name;
	/* Scheme settings, printed beside the shape (rule, rounding ...). */
	struct fpref_emu_quantize_label {
		const char *name;
		char value[24];
		bool number; /* a JSON number, not a string */
	} labels[8];
	int nlabels;
	/* Scheme-specific FP32 facts (amax, scale ...), named. */
	struct fpref_emu_quantize_fact {
		const char *name;
		uint32_t bits;
	} facts[4];
	int nfacts;
	/* Which path made the codes: "bulk" (emu/quant_lanes.h) or "element"
	 * (element by element: an FPU not in IEEE's mode). */
	const char *path;
	/* NVFP4: the FP32 tensor scale S. */
	bool has_tensor_scale;
	uint32_t tensor_scale;
	/* Delayed scaling: per step, the amax recorded and the scale_inv used. */
	size_t steps;
	uint32_t *step_amax, *step_scale_inv;
};

/* Run scheme s on q into *r (zeroed first): 0; FPREF_EMU_QUANTIZE_BAD for
 * a request the scheme cannot take, or an input it refuses, with the
 * reason in err; FPREF_EMU_QUANTIZE_NO_MEMORY.  *r is to be freed either
 * way. */
#define FPREF_EMU_QUANTIZE_BAD (-1)
#define FPREF_EMU_QUANTIZE_NO_MEMORY (-2)
int fpref_emu_quantize(const struct fpref_emu_quantize_scheme *s, const struct fpref_emu_quantize_request *q,
		       struct fpref_emu_quantize_result *r, char *err, size_t errlen);
void fpref_emu_quantize_result_free(struct fpref_emu_quantize_result *r);

#ifdef __cplusplus
}
#endif

#endif
