/* fpref quantize: the scheme table and the runners of the per-tensor,
 * delayed and tile/block schemes.  Each runner only calls the library. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpref_scale_emu.h"
#include "quantize.h"

static int library_error(const char *err)
{
	cli_error("%s", err);
	return CLI_EXIT_USAGE;
}

/* codes and dequant for count elements, and nscales FP32 scales. */
static int alloc_result(const struct quantize_request *q, struct quantize_result *r, size_t nscales)
{
	r->codes = malloc(q->count);
	r->dequant = malloc(q->count * sizeof *r->dequant);
	r->scales = malloc(nscales * sizeof(uint32_t));
	r->scales_descr = "<f4";
	r->scales_item_bytes = 4;
	r->element_store = q->element;
	r->element = &r->element_store;
	if (r->codes && r->dequant && r->scales)
		return 0;
	cli_error("out of memory");
	return CLI_EXIT_FAIL;
}

static void add_fact(struct quantize_result *r, const char *name, uint32_t bits)
{
	r->facts[r->nfacts].name = name;
	r->facts[r->nfacts].bits = bits;
	r->nfacts++;
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
		cli_error("--scheme delayed steps along the first axis: the input must have at least 2 dimensions "
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
		cli_error("out of memory");
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
		cli_error("--pow2 belongs to --recipe te; DeepSeek-V3 scales are amax / 448");
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

static const struct quantize_scheme schemes[] = {
	{ "tensor", "Transformer Engine current scaling, one FP32 scale", run_tensor },
	{ "delayed", "Transformer Engine delayed scaling, one step per slice of the first axis", run_delayed },
	{ "tile128", "1x128 tiles along the last axis (DeepSeek-V3 activations; --recipe te)", run_tile128 },
	{ "block128", "128x128 blocks (DeepSeek-V3 weights; --recipe te)", run_block128 },
	/* The MX and NVFP4 rows: the coordinator wires them to emu/fpref_scale_mx.h. */
	{ "mxfp8", "OCP MX FP8 (E4M3/E5M2), blocks of 32, E8M0 scale", NULL },
	{ "mxfp6", "OCP MX FP6 (E2M3/E3M2), blocks of 32, E8M0 scale", NULL },
	{ "mxfp4", "OCP MX FP4 (E2M1), blocks of 32, E8M0 scale", NULL },
	{ "nvfp4", "NVFP4: E2M1, blocks of 16, E4M3 block scale and FP32 tensor scale", NULL },
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
	return "tensor, delayed, tile128, block128, mxfp8, mxfp6, mxfp4, nvfp4";
}

void quantize_result_free(struct quantize_result *r)
{
	free(r->codes);
	free(r->dequant);
	free(r->scales);
	free(r->step_amax);
	memset(r, 0, sizeof *r);
}
