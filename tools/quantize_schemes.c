/* fpref quantize: the scheme table and the runners of the per-tensor,
 * delayed, tile/block, MX and NVFP4 schemes.  Each runner only calls the
 * library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpref_emu_scale.h"
#include "quantize.h"

static int library_error(const char *err)
{
	cli_fail(cli_cmd_quantize.name, "%s", err);
	return CLI_EXIT_USAGE;
}

/* codes and dequant for count elements, and nscales scales of item_bytes
 * each: FP32 ("<f4") or one-byte codes ("|u1"). */
static int alloc_items(const struct quantize_request *q, struct quantize_result *r, size_t nscales,
		       size_t item_bytes)
{
	r->codes = malloc(q->count);
	r->dequant = malloc(q->count * sizeof *r->dequant);
	r->scales = malloc(nscales * item_bytes);
	r->scales_descr = item_bytes == 1 ? "|u1" : "<f4";
	r->scales_item_bytes = item_bytes;
	r->element_store = q->element;
	r->element = &r->element_store;
	r->element_name = r->element_store.name;
	if (r->codes && r->dequant && r->scales)
		return 0;
	cli_fail(cli_cmd_quantize.name, "out of memory");
	return CLI_EXIT_FAIL;
}

static int alloc_result(const struct quantize_request *q, struct quantize_result *r, size_t nscales)
{
	return alloc_items(q, r, nscales, sizeof(uint32_t));
}

static void add_fact(struct quantize_result *r, const char *name, uint32_t bits)
{
	r->facts[r->nfacts].name = name;
	r->facts[r->nfacts].bits = bits;
	r->nfacts++;
}

static void add_label(struct quantize_result *r, const char *name, const char *value, bool number)
{
	struct quantize_label *l = &r->labels[r->nlabels++];
	l->name = name;
	snprintf(l->value, sizeof l->value, "%s", value);
	l->number = number;
}

static int run_tensor(const struct quantize_request *q, struct quantize_result *r)
{
	struct fpref_current_params p = { &q->element, q->pow2 == 1, q->have_eps ? q->eps : 0, q->amax_nan };
	char err[512];
	uint32_t amax, scale, scale_inv;
	int status = alloc_result(q, r, 1);
	if (status)
		return status;
	if (fpref_emu_current_quantize(&p, q->x, q->count, r->codes, &amax, &scale, &scale_inv, err, sizeof err) != 0 ||
	    fpref_emu_dequantize_scaled(&q->element, r->codes, q->count, scale_inv, r->dequant, err, sizeof err) != 0)
		return library_error(err);
	((uint32_t *)r->scales)[0] = scale_inv;
	r->scales_ndim = 1;
	r->scales_shape[0] = 1;
	add_fact(r, "amax", amax);
	add_fact(r, "scale", scale);
	add_fact(r, "scale_inv", scale_inv);
	return 0;
}

/* Delayed scaling steps through the tensor's first axis. */
static int run_delayed(const struct quantize_request *q, struct quantize_result *r)
{
	if (q->ndim < 2) {
		cli_fail(cli_cmd_quantize.name, "--scheme delayed steps along the first axis: the input must have at least 2 dimensions "
			  "(steps, ...), not 1");
		return CLI_EXIT_USAGE;
	}
	struct fpref_delayed_params p = { &q->element, q->history, q->algo, q->margin, q->amax_nan };
	struct fpref_delayed_state s;
	char err[512];
	size_t T = q->shape[0], n = q->count / T;
	int status = alloc_result(q, r, T);
	r->step_amax = malloc(T * sizeof *r->step_amax);
	r->step_scale_inv = r->scales;
	if (!status && !r->step_amax) {
		cli_fail(cli_cmd_quantize.name, "out of memory");
		status = CLI_EXIT_FAIL;
	}
	if (status)
		return status;
	if (fpref_delayed_init(&s, &p, err, sizeof err) != 0)
		return library_error(err);
	for (size_t t = 0; t < T && status == 0; t++)
		if (fpref_emu_delayed_step(&s, q->x + t * n, n, r->codes + t * n, &r->step_scale_inv[t],
					   &r->step_amax[t], err, sizeof err) != 0 ||
		    fpref_emu_dequantize_scaled(&q->element, r->codes + t * n, n, r->step_scale_inv[t],
						r->dequant + t * n, err, sizeof err) != 0)
			status = library_error(err);
	r->steps = T;
	r->scales_ndim = 1;
	r->scales_shape[0] = T;
	add_fact(r, "next_scale", s.scale);
	add_fact(r, "next_scale_inv", s.scale_inv);
	fpref_delayed_free(&s);
	return status;
}

/* Tiles and blocks see the tensor as rows x cols: cols the last axis. */
static int run_blocks(const struct quantize_request *q, struct quantize_result *r, size_t block_rows)
{
	size_t cols = q->shape[q->ndim - 1], rows = q->count / cols;
	struct fpref_block_params p = { &q->element, q->te_recipe ? FPREF_BLOCK_TE : FPREF_BLOCK_DEEPSEEK, block_rows,
					128, q->te_recipe && q->pow2 != 0,
					q->have_eps ? q->eps : q->te_recipe ? 0 : FPREF_F32_DEEPSEEK_EPS, q->amax_nan };
	char err[512];
	size_t grid_rows = fpref_scale_blocks(rows, block_rows), grid_cols = fpref_scale_blocks(cols, 128);
	if (!q->te_recipe && q->pow2 == 1) {
		cli_fail(cli_cmd_quantize.name, "--pow2 belongs to --recipe te; DeepSeek-V3 scales are amax / 448");
		return CLI_EXIT_USAGE;
	}
	int status = alloc_result(q, r, grid_rows * grid_cols);
	if (status)
		return status;
	if (fpref_emu_block_quantize(&p, q->x, rows, cols, r->codes, r->scales, err, sizeof err) != 0 ||
	    fpref_emu_block_dequantize(&p, r->codes, r->scales, rows, cols, r->dequant, err, sizeof err) != 0)
		return library_error(err);
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

static int run_tile128(const struct quantize_request *q, struct quantize_result *r)
{
	return run_blocks(q, r, 1);
}

static int run_block128(const struct quantize_request *q, struct quantize_result *r)
{
	return run_blocks(q, r, 128);
}

/* Scales of blocks along the last axis keep the leading axes, as tiles do. */
static void row_block_shape(const struct quantize_request *q, struct quantize_result *r, size_t block)
{
	r->scales_ndim = q->ndim;
	memcpy(r->scales_shape, q->shape, sizeof r->scales_shape);
	r->scales_shape[q->ndim - 1] = fpref_scale_blocks(q->shape[q->ndim - 1], block);
}

static int run_mx(const struct quantize_request *q, struct quantize_result *r)
{
	struct fpref_mx_params p = { q->mx_element, q->mx_rule, q->element_rounding };
	size_t cols = q->shape[q->ndim - 1], rows = q->count / cols;
	char err[512];
	int status = alloc_items(q, r, fpref_emu_mx_scale_count(rows, cols), 1);
	if (status)
		return status;
	if (fpref_emu_mx_quantize(&p, q->x, rows, cols, r->codes, r->scales, err, sizeof err) != 0 ||
	    fpref_emu_mx_dequantize(&p, r->codes, r->scales, rows, cols, r->dequant, err, sizeof err) != 0)
		return library_error(err);
	row_block_shape(q, r, FPREF_MX_BLOCK);
	if (strcmp(q->mx_element, "int8") == 0) { /* two's complement: no format for the report to count */
		r->element = NULL;
		r->element_name = "int8";
	}
	add_label(r, "rule", fpref_emu_mx_scale_rule_name(q->mx_rule), false);
	add_label(r, "element_rounding", fpref_rounding_name(q->element_rounding), false);
	return 0;
}

/* The recipe, where not TE's plain one (so that TE's report reads as before). */
static void add_nvfp4_recipe_labels(struct quantize_result *r, const struct fpref_nvfp4_params *p)
{
	char v[24];
	if (p->recipe != FPREF_NVFP4_TE)
		add_label(r, "recipe", fpref_emu_nvfp4_recipe_name(p->recipe), false);
	if (p->recipe == FPREF_NVFP4_FOUR_OVER_SIX) {
		snprintf(v, sizeof v, "%s/%u", fpref_emu_nvfp4_choice_name(p->choice), p->scale_bound);
		add_label(r, "four_over_six", v, false);
	}
	if (p->rht) {
		snprintf(v, sizeof v, "0x%04X%s", (unsigned)p->rht_signs, p->rht_bf16 ? "-bf16" : "-fp32");
		add_label(r, "rht", v, false);
	}
}

static int run_nvfp4(const struct quantize_request *q, struct quantize_result *r)
{
	size_t cols = q->shape[q->ndim - 1], rows = q->count / cols;
	char err[512], seed[24];
	int status = alloc_items(q, r, fpref_emu_nvfp4_scale_count(&q->nvfp4, rows, cols), 1);
	if (status)
		return status;
	if (fpref_emu_nvfp4_quantize(&q->nvfp4, q->x, rows, cols, r->codes, r->scales, &r->tensor_scale, err,
				     sizeof err) != 0 ||
	    fpref_emu_nvfp4_dequantize(&q->nvfp4, r->codes, r->scales, r->tensor_scale, rows, cols, r->dequant, err,
				       sizeof err) != 0)
		return library_error(err);
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
	add_nvfp4_recipe_labels(r, &q->nvfp4);
	add_fact(r, "tensor_scale", r->tensor_scale);
	return 0;
}

static const struct quantize_scheme schemes[] = {
	{ "tensor", "Transformer Engine current scaling, one FP32 scale", run_tensor, QUANTIZE_FP8, { NULL }, NULL },
	{ "delayed", "Transformer Engine delayed scaling, one step per slice of the first axis", run_delayed,
	  QUANTIZE_FP8, { NULL }, NULL },
	{ "tile128", "1x128 tiles along the last axis (DeepSeek-V3 activations; --recipe te)", run_tile128,
	  QUANTIZE_FP8, { NULL }, NULL },
	{ "block128", "128x128 blocks (DeepSeek-V3 weights; --recipe te)", run_block128, QUANTIZE_FP8, { NULL },
	  NULL },
	{ "mxfp8", "OCP MX FP8 (E4M3/E5M2), blocks of 32, E8M0 scale", run_mx, QUANTIZE_MX,
	  { "float8_e4m3fn", "float8_e5m2", NULL }, "e4m3 or e5m2" },
	{ "mxfp6", "OCP MX FP6 (E2M3/E3M2), blocks of 32, E8M0 scale", run_mx, QUANTIZE_MX,
	  { "float6_e2m3fn", "float6_e3m2fn", NULL }, "e2m3 or e3m2" },
	{ "mxfp4", "OCP MX FP4 (E2M1), blocks of 32, E8M0 scale", run_mx, QUANTIZE_MX, { "float4_e2m1fn", NULL },
	  "e2m1" },
	{ "mxint8", "OCP MX INT8 (k * 2^-6), blocks of 32, E8M0 scale", run_mx, QUANTIZE_MX, { "int8", NULL },
	  "none (the element is INT8)" },
	{ "nvfp4", "NVFP4: E2M1, blocks of 16, E4M3 block scale and FP32 tensor scale", run_nvfp4, QUANTIZE_NVFP4,
	  { "float4_e2m1fn", NULL }, "e2m1" },
};

const struct quantize_scheme *quantize_scheme_find(const char *name)
{
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
		if (strcmp(schemes[i].name, name) == 0)
			return &schemes[i];
	return NULL;
}

const char *quantize_scheme_choices(void)
{
	return "tensor, delayed, tile128, block128, mxfp8, mxfp6, mxfp4, mxint8, nvfp4";
}

void quantize_result_free(struct quantize_result *r)
{
	free(r->codes);
	free(r->dequant);
	free(r->scales);
	free(r->step_amax);
	memset(r, 0, sizeof *r);
}
