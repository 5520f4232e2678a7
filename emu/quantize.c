/* The quantisation schemes behind one call (fpref_emu_quantize.h): the
 * scheme table and the runners of the per-tensor, delayed, tile/block, MX
 * and NVFP4 schemes, each the scheme's calls of the scaling library, its
 * scales' shape and the facts it reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_quantize.h"
#include "fpref_emu_scale.h"
#include "quant_lanes.h"

/* A runner's state: the request, the result, where a message goes. */
struct run {
	const struct fpref_emu_quantize_request *q;
	struct fpref_emu_quantize_result *r;
	char *err;
	size_t errlen;
};

static int library_error(void)
{
	return FPREF_EMU_QUANTIZE_BAD; /* the library call wrote err */
}

static int bad_request(struct run *u, const char *why)
{
	snprintf(u->err, u->errlen, "%s", why);
	return FPREF_EMU_QUANTIZE_BAD;
}

/* codes and dequant for count elements, and nscales scales of item_bytes
 * each: FP32 ("<f4") or one-byte codes ("|u1"). */
static int alloc_items(struct run *u, size_t nscales, size_t item_bytes)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	r->codes = malloc(q->count);
	r->dequant = q->codes_only ? NULL : malloc(q->count * sizeof *r->dequant);
	r->scales = malloc(nscales * item_bytes);
	r->scales_descr = item_bytes == 1 ? "|u1" : "<f4";
	r->scales_item_bytes = item_bytes;
	r->scales_count = nscales;
	r->element_store = q->element;
	r->element = &r->element_store;
	r->element_name = r->element_store.name;
	if (r->codes && (r->dequant || q->codes_only) && r->scales)
		return 0;
	snprintf(u->err, u->errlen, "out of memory");
	return FPREF_EMU_QUANTIZE_NO_MEMORY;
}

static int alloc_result(struct run *u, size_t nscales)
{
	return alloc_items(u, nscales, sizeof(uint32_t));
}

static void add_fact(struct fpref_emu_quantize_result *r, const char *name, uint32_t bits)
{
	r->facts[r->nfacts].name = name;
	r->facts[r->nfacts].bits = bits;
	r->nfacts++;
}

static void add_label(struct fpref_emu_quantize_result *r, const char *name, const char *value, bool number)
{
	struct fpref_emu_quantize_label *l = &r->labels[r->nlabels++];
	l->name = name;
	snprintf(l->value, sizeof l->value, "%s", value);
	l->number = number;
}

static int run_tensor(struct run *u)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	struct fpref_current_params p = { &q->element, q->pow2 == 1, q->have_eps ? q->eps : 0, q->amax_nan };
	uint32_t amax, scale, scale_inv;
	int status = alloc_result(u, 1);
	if (status)
		return status;
	int bulk = fpref_emu_current_quantize_lanes(&p, q->x, q->count, r->codes, &amax, &scale, &scale_inv, u->err,
						    u->errlen);
	r->path = bulk == 1 ? "element" : "bulk";
	if ((bulk == 1 ? fpref_emu_current_quantize_reference(&p, q->x, q->count, r->codes, &amax, &scale, &scale_inv,
							      u->err, u->errlen)
		       : bulk) != 0 ||
	    (!q->codes_only && fpref_emu_dequantize_scaled(&q->element, r->codes, q->count, scale_inv, r->dequant, u->err, u->errlen) != 0))
		return library_error();
	((uint32_t *)r->scales)[0] = scale_inv;
	r->scales_ndim = 1;
	r->scales_shape[0] = 1;
	add_fact(r, "amax", amax);
	add_fact(r, "scale", scale);
	add_fact(r, "scale_inv", scale_inv);
	return 0;
}

/* Delayed scaling steps through the tensor's first axis. */
static int run_delayed(struct run *u)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	if (q->ndim < 2 || q->shape[0] == 0)
		return bad_request(u, "delayed scaling steps along the first axis: the input must have at least 2 "
				      "dimensions (steps, ...), not 1");
	struct fpref_delayed_params p = { &q->element, q->history, q->algo, q->margin, q->amax_nan };
	struct fpref_delayed_state s;
	size_t T = q->shape[0], n = q->count / T;
	int status = alloc_result(u, T);
	r->step_amax = malloc(T * sizeof *r->step_amax);
	r->step_scale_inv = r->scales;
	if (!status && !r->step_amax) {
		snprintf(u->err, u->errlen, "out of memory");
		status = FPREF_EMU_QUANTIZE_NO_MEMORY;
	}
	if (status)
		return status;
	if (fpref_delayed_init(&s, &p, u->err, u->errlen) != 0)
		return library_error();
	r->path = fpref_emu_quant_fpu_plain() ? "bulk" : "element"; /* as fpref_emu_delayed_step chooses */
	for (size_t t = 0; t < T && status == 0; t++)
		if (fpref_emu_delayed_step(&s, q->x + t * n, n, r->codes + t * n, &r->step_scale_inv[t],
					   &r->step_amax[t], u->err, u->errlen) != 0 ||
		    (!q->codes_only && fpref_emu_dequantize_scaled(&q->element, r->codes + t * n, n, r->step_scale_inv[t],
								   r->dequant + t * n, u->err, u->errlen) != 0))
			status = library_error();
	r->steps = T;
	r->scales_ndim = 1;
	r->scales_shape[0] = T;
	add_fact(r, "next_scale", s.scale);
	add_fact(r, "next_scale_inv", s.scale_inv);
	fpref_delayed_free(&s);
	return status;
}

/* Tiles and blocks see the tensor as rows x cols: cols the last axis. */
static int run_blocks(struct run *u, size_t block_rows)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	size_t cols = q->shape[q->ndim - 1], rows = cols ? q->count / cols : 0;
	struct fpref_block_params p = { &q->element, q->te_recipe ? FPREF_BLOCK_TE : FPREF_BLOCK_DEEPSEEK, block_rows,
					128, q->te_recipe && q->pow2 != 0,
					q->have_eps ? q->eps : q->te_recipe ? 0 : FPREF_F32_DEEPSEEK_EPS, q->amax_nan };
	size_t grid_rows = fpref_scale_blocks(rows, block_rows), grid_cols = fpref_scale_blocks(cols, 128);
	if (!q->te_recipe && q->pow2 == 1)
		return bad_request(u, "power-of-two scales belong to the TE recipe; DeepSeek-V3 scales are amax / 448");
	int status = alloc_result(u, grid_rows * grid_cols);
	if (status)
		return status;
	int bulk = fpref_emu_block_quantize_lanes(&p, q->x, rows, cols, r->codes, r->scales, u->err, u->errlen);
	r->path = bulk == 1 ? "element" : "bulk";
	if ((bulk == 1 ? fpref_emu_block_quantize_reference(&p, q->x, rows, cols, r->codes, r->scales, u->err, u->errlen)
		       : bulk) != 0 ||
	    (!q->codes_only &&
	     fpref_emu_block_dequantize(&p, r->codes, r->scales, rows, cols, r->dequant, u->err, u->errlen) != 0))
		return library_error();
	if (block_rows == 1) { /* tiles keep the leading axes */
		r->scales_ndim = q->ndim;
		memcpy(r->scales_shape, q->shape, sizeof r->scales_shape);
		r->scales_shape[q->ndim - 1] = grid_cols;
	} else {
		r->scales_ndim = 2;
		r->scales_shape[0] = grid_rows;
		r->scales_shape[1] = grid_cols;
	}
	add_fact(r, "eps", p.eps);
	return 0;
}

static int run_tile128(struct run *u)
{
	return run_blocks(u, 1);
}

static int run_block128(struct run *u)
{
	return run_blocks(u, 128);
}

/* Scales of blocks along the last axis keep the leading axes, as tiles do. */
static void row_block_shape(const struct fpref_emu_quantize_request *q, struct fpref_emu_quantize_result *r,
			    size_t block)
{
	r->scales_ndim = q->ndim;
	memcpy(r->scales_shape, q->shape, sizeof r->scales_shape);
	r->scales_shape[q->ndim - 1] = fpref_scale_blocks(q->shape[q->ndim - 1], block);
}

static int run_mx(struct run *u)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	struct fpref_mx_params p = { q->mx_element, q->mx_rule, q->element_rounding, q->mx_recipe };
	size_t cols = q->shape[q->ndim - 1], rows = cols ? q->count / cols : 0;
	int status = alloc_items(u, fpref_emu_mx_scale_count(rows, cols), 1);
	if (status)
		return status;
	int bulk = fpref_emu_mx_quantize_lanes(&p, q->x, rows, cols, r->codes, r->scales, u->err, u->errlen);
	r->path = bulk == 1 ? "element" : "bulk";
	if ((bulk == 1 ? fpref_emu_mx_quantize_reference(&p, q->x, rows, cols, r->codes, r->scales, u->err, u->errlen)
		       : bulk) != 0 ||
	    (!q->codes_only &&
	     fpref_emu_mx_dequantize(&p, r->codes, r->scales, rows, cols, r->dequant, u->err, u->errlen) != 0))
		return library_error();
	row_block_shape(q, r, FPREF_MX_BLOCK);
	if (strcmp(q->mx_element, "int8") == 0) { /* two's complement: no format for a report to count */
		r->element = NULL;
		r->element_name = "int8";
	}
	add_label(r, "rule", fpref_emu_mx_scale_rule_name(q->mx_rule), false);
	add_label(r, "element_rounding", fpref_rounding_name(q->element_rounding), false);
	if (q->mx_recipe != FPREF_MX_OCP) /* OCP's reports read as before */
		add_label(r, "recipe", fpref_emu_mx_recipe_name(q->mx_recipe), false);
	return 0;
}

/* The recipe, where not TE's plain one (so that TE's report reads as before). */
static void add_nvfp4_recipe_labels(struct fpref_emu_quantize_result *r, const struct fpref_nvfp4_params *p)
{
	char v[24];
	if (p->recipe != FPREF_NVFP4_TE)
		add_label(r, "recipe", fpref_emu_nvfp4_recipe_name(p->recipe), false);
	if (p->recipe == FPREF_NVFP4_FOUR_OVER_SIX) {
		snprintf(v, sizeof v, "%s/%u", fpref_emu_nvfp4_choice_name(p->choice),
			 p->scale_bound ? p->scale_bound : 256); /* 0 is the default, 256 */
		add_label(r, "four_over_six", v, false);
	}
	if (p->rht) {
		snprintf(v, sizeof v, "0x%04X%s", (unsigned)p->rht_signs, p->rht_bf16 ? "-bf16" : "-fp32");
		add_label(r, "rht", v, false);
	}
}

static int run_nvfp4(struct run *u)
{
	const struct fpref_emu_quantize_request *q = u->q;
	struct fpref_emu_quantize_result *r = u->r;
	size_t cols = q->shape[q->ndim - 1], rows = cols ? q->count / cols : 0;
	char seed[24];
	int status = alloc_items(u, fpref_emu_nvfp4_scale_count(&q->nvfp4, rows, cols), 1);
	if (status)
		return status;
	int bulk = fpref_emu_nvfp4_quantize_lanes(&q->nvfp4, q->x, rows, cols, r->codes, r->scales, &r->tensor_scale,
						  u->err, u->errlen);
	r->path = bulk == 1 ? "element" : "bulk";
	if ((bulk == 1 ? fpref_emu_nvfp4_quantize_reference(&q->nvfp4, q->x, rows, cols, r->codes, r->scales,
							    &r->tensor_scale, u->err, u->errlen)
		       : bulk) != 0 ||
	    (!q->codes_only && fpref_emu_nvfp4_dequantize(&q->nvfp4, r->codes, r->scales, r->tensor_scale, rows, cols,
							  r->dequant, u->err, u->errlen) != 0))
		return library_error();
	r->has_tensor_scale = true;
	if (q->nvfp4.two_d) {
		r->scales_ndim = 2;
		r->scales_shape[0] = fpref_scale_blocks(rows, FPREF_NVFP4_BLOCK);
		r->scales_shape[1] = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK);
	} else
		row_block_shape(q, r, FPREF_NVFP4_BLOCK);
	add_label(r, "blocks", q->nvfp4.two_d ? "16x16" : "1x16", false);
	add_label(r, "rounding", q->nvfp4.stochastic ? "sr" : "rne", false);
	if (q->nvfp4.stochastic) {
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)q->nvfp4.seed);
		add_label(r, "seed", seed, true);
	}
	if (q->nvfp4.stochastic && q->nvfp4.philox) { /* TE's stream: where in it, and its rounds */
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)q->nvfp4.philox_offset);
		add_label(r, "philox_offset", seed, true);
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)q->nvfp4.philox_thread);
		add_label(r, "philox_thread", seed, true);
		snprintf(seed, sizeof seed, "%u", q->nvfp4.philox_rounds ? q->nvfp4.philox_rounds : 10);
		add_label(r, "philox_rounds", seed, true);
	}
	add_nvfp4_recipe_labels(r, &q->nvfp4);
	add_fact(r, "tensor_scale", r->tensor_scale);
	return 0;
}

/* A scheme's row: what callers read, and its runner. */
static const struct row {
	struct fpref_emu_quantize_scheme s;
	int (*run)(struct run *u);
} schemes[] = {
	{ { "tensor", "Transformer Engine current scaling, one FP32 scale", FPREF_EMU_QUANTIZE_FP8, { NULL }, NULL },
	  run_tensor },
	{ { "delayed", "Transformer Engine delayed scaling, one step per slice of the first axis", FPREF_EMU_QUANTIZE_FP8,
	    { NULL }, NULL },
	  run_delayed },
	{ { "tile128", "1x128 tiles along the last axis (DeepSeek-V3 activations; --recipe te)", FPREF_EMU_QUANTIZE_FP8,
	    { NULL }, NULL },
	  run_tile128 },
	{ { "block128", "128x128 blocks (DeepSeek-V3 weights; --recipe te)", FPREF_EMU_QUANTIZE_FP8, { NULL }, NULL },
	  run_block128 },
	{ { "mxfp8", "OCP MX FP8 (E4M3/E5M2), blocks of 32, E8M0 scale", FPREF_EMU_QUANTIZE_MX,
	    { "float8_e4m3fn", "float8_e5m2", NULL }, "e4m3 or e5m2" },
	  run_mx },
	{ { "mxfp6", "OCP MX FP6 (E2M3/E3M2), blocks of 32, E8M0 scale", FPREF_EMU_QUANTIZE_MX,
	    { "float6_e2m3fn", "float6_e3m2fn", NULL }, "e2m3 or e3m2" },
	  run_mx },
	{ { "mxfp4", "OCP MX FP4 (E2M1), blocks of 32, E8M0 scale", FPREF_EMU_QUANTIZE_MX, { "float4_e2m1fn", NULL },
	    "e2m1" },
	  run_mx },
	{ { "mxint8", "OCP MX INT8 (k * 2^-6), blocks of 32, E8M0 scale", FPREF_EMU_QUANTIZE_MX, { "int8", NULL },
	    "none (the element is INT8)" },
	  run_mx },
	{ { "nvfp4", "NVFP4: E2M1, blocks of 16, E4M3 block scale and FP32 tensor scale", FPREF_EMU_QUANTIZE_NVFP4,
	    { "float4_e2m1fn", NULL }, "e2m1" },
	  run_nvfp4 },
};
#define NSCHEMES (sizeof schemes / sizeof schemes[0])

const struct fpref_emu_quantize_scheme *fpref_emu_quantize_scheme_find(const char *name)
{
	for (size_t i = 0; i < NSCHEMES; i++)
		if (strcmp(schemes[i].s.name, name) == 0)
			return &schemes[i].s;
	return NULL;
}

const char *fpref_emu_quantize_scheme_choices(void)
{
	return "tensor, delayed, tile128, block128, mxfp8, mxfp6, mxfp4, mxint8, nvfp4";
}

int fpref_emu_quantize(const struct fpref_emu_quantize_scheme *s, const struct fpref_emu_quantize_request *q,
		       struct fpref_emu_quantize_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	struct run u = { q, r, err, errlen };
	if (q->ndim < 1 || q->ndim > FPREF_NPY_MAX_DIMS) {
		snprintf(err, errlen, "the input must have 1 to %d dimensions, not %d", FPREF_NPY_MAX_DIMS, q->ndim);
		return FPREF_EMU_QUANTIZE_BAD;
	}
	if (s->family == FPREF_EMU_QUANTIZE_MX && !q->mx_element)
		return bad_request(&u, "an MX scheme needs its element named (mx_element)");
	for (size_t i = 0; i < NSCHEMES; i++)
		if (&schemes[i].s == s)
			return schemes[i].run(&u);
	return bad_request(&u, "not a scheme of fpref_emu_quantize_scheme_find");
}

void fpref_emu_quantize_result_free(struct fpref_emu_quantize_result *r)
{
	free(r->codes);
	free(r->dequant);
	free(r->scales);
	free(r->step_amax);
	memset(r, 0, sizeof *r);
}
