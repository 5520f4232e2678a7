/* fpref bench's quantisation rows: each scheme through fpref_emu_quantize
 * on FP32 values spread over the element's range (rows of 2048), codes and
 * scales alone, then with the dequantised values and the error report
 * (fpref quantize without and with --no-report); the path names the one
 * that made the codes (the result's) and the converter that rounded them.
 * The oracle's figure is its codes and scales on a slice.  A row is a line
 * of the table below. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* A scheme's row; modelopt: ModelOpt's MX recipe and rule; sr: NVFP4's
 * stochastic rounding (the seeded stream); specials: a NaN and an inf in
 * the tensor (NVFP4's recipe then reduces each block holding one as the
 * element path does); rht: NVFP4 after Transformer Engine's 16-point
 * Hadamard transform (its sign vector, the output rounded to BF16);
 * four_over_six: NVFP4's Four Over Six (row "4/6") with that choice of error. */
static const struct {
	const char *what, *scheme, *element;
	bool modelopt, sr, specials, rht;
	const char *four_over_six;
} schemes[] = {
	{ "mxfp8", "mxfp8", "float8_e4m3fn", false, false, false, false, NULL },
	{ "mxfp4", "mxfp4", "float4_e2m1fn", false, false, false, false, NULL },
	{ "mxfp4 modelopt", "mxfp4", "float4_e2m1fn", true, false, false, false, NULL },
	{ "nvfp4", "nvfp4", "float4_e2m1fn", false, false, false, false, NULL },
	{ "nvfp4 sr", "nvfp4", "float4_e2m1fn", false, true, false, false, NULL },
	{ "nvfp4 inf/nan", "nvfp4", "float4_e2m1fn", false, false, true, false, NULL },
	{ "nvfp4 rht", "nvfp4", "float4_e2m1fn", false, false, false, true, NULL },
	{ "nvfp4 4/6 mse", "nvfp4", "float4_e2m1fn", false, false, false, false, "mse" },
	{ "fp8 per-tensor", "tensor", "float8_e4m3fn", false, false, false, false, NULL },
	{ "deepseek 1x128", "tile128", "float8_e4m3fn", false, false, false, false, NULL },
	{ "deepseek 128x128", "block128", "float8_e4m3fn", false, false, false, false, NULL },
};

/* Transformer Engine's sign vector of the random Hadamard transform
 * (fpref quantize --rht te). */
#define TE_RHT_SIGNS 0xD7E8u

#define QUANT_COLS 2048

static double median_of(double *t, long repeats)
{
	return bench_median(t, (int)repeats);
}

static int scheme_rows(size_t k, const uint32_t *x, size_t n, long repeats, struct bench_report *rep)
{
	char what[2][96]; /* without and with the report */
	bool wanted[2];
	for (int report = 0; report < 2; report++) {
		snprintf(what[report], sizeof what[report], "quantize %s%s", schemes[k].what, report ? " +report" : "");
		wanted[report] = bench_wanted(rep, "elements", what[report]);
	}
	if (!wanted[0] && !wanted[1])
		return 0;
	const struct fpref_emu_quantize_scheme *s = fpref_emu_quantize_scheme_find(schemes[k].scheme);
	struct fpref_emu_quantize_request q;
	memset(&q, 0, sizeof q);
	q.x = x;
	q.count = n;
	q.ndim = 2;
	q.shape[0] = n / QUANT_COLS;
	q.shape[1] = QUANT_COLS;
	q.pow2 = -1;
	q.element_rounding = FPREF_RNE;
	q.mx_rule = FPREF_MX_SCALE_OCP_FLOOR;
	q.amax_nan = FPREF_AMAX_NAN_DEFAULT;
	if (!s || fpref_format_parse(schemes[k].element, &q.element, NULL, 0) != 0)
		return -1;
	if (s->family != FPREF_EMU_QUANTIZE_FP8)
		q.mx_element = schemes[k].element;
	if (schemes[k].modelopt) {
		q.mx_recipe = FPREF_MX_MODELOPT;
		q.mx_rule = FPREF_MX_SCALE_RCEIL_LOG2;
	}
	q.nvfp4.stochastic = schemes[k].sr;
	q.nvfp4.seed = 1;
	q.nvfp4.rht = schemes[k].rht;
	q.nvfp4.rht_signs = TE_RHT_SIGNS;
	q.nvfp4.rht_bf16 = true;
	struct fpref_ref_nvfp4 ref_nvfp4 = { .recipe = "te", .stochastic = schemes[k].sr, .seed = 1, .rht = schemes[k].rht,
					     .rht_bf16 = true, .rht_signs = TE_RHT_SIGNS };
	if (schemes[k].four_over_six) {
		q.nvfp4.recipe = FPREF_NVFP4_FOUR_OVER_SIX;
		ref_nvfp4.recipe = "fouroversix";
		ref_nvfp4.choice = schemes[k].four_over_six;
		if (fpref_emu_nvfp4_choice_parse(schemes[k].four_over_six, &q.nvfp4.choice) != 0)
			return -1;
	}
	char err[256], path[160] = "";
	double t[2][100] = { { 0 } };
	for (int report = 0; report < 2; report++) {
		q.codes_only = !report;
		for (long r = 0; r < repeats && wanted[report]; r++) {
			struct fpref_emu_quantize_result res;
			struct fpref_quant_report qr;
			double t0 = bench_now();
			int status = fpref_emu_quantize(s, &q, &res, err, sizeof err);
			if (!status && report)
				status = fpref_emu_quant_report_compute(x, res.dequant, n, res.element, res.codes, &qr);
			t[report][r] = bench_now() - t0;
			if (!status && !path[0])
				snprintf(path, sizeof path, "%s", res.path);
			fpref_emu_quantize_result_free(&res);
			if (status)
				return -1;
		}
	}
	/* the converter the bulk path rounds with: its path and instruction set */
	struct fpref_env env;
	fpref_env_default(&env);
	env.overflow = FPREF_OVERFLOW_SAT;
	if (schemes[k].sr) { /* NVFP4's stream (emu/scale_nvfp4.c) */
		env.rounding = FPREF_SR;
		env.sr_seeded = true;
		env.sr_seed = q.nvfp4.seed;
		env.sr_width = 32;
	}
	struct fpref_emu_converter *c = fpref_emu_converter_new(fpref_format_get(FPREF_FORMAT_FLOAT32), &q.element, &env);
	if (!c)
		return -1;
	char conv[96];
	snprintf(conv, sizeof conv, "%s %s%s", fpref_emu_converter_path(c), fpref_emu_converter_isa(c),
		 schemes[k].modelopt ? ", ties toward zero in lanes" : "");
	fpref_emu_converter_free(c);
	/* the oracle: four rows (a band of blocks of 128) */
	struct fpref_current_params cp = { &q.element, false, 0, FPREF_AMAX_NAN_DEFAULT };
	struct fpref_block_params bp = { &q.element, FPREF_BLOCK_DEEPSEEK, strcmp(s->name, "block128") ? 1 : 128, 128,
					 false, FPREF_F32_DEEPSEEK_EPS, FPREF_AMAX_NAN_DEFAULT };
	size_t rows = bp.block_rows == 128 ? 128 : 4, on = rows * QUANT_COLS;
	uint8_t *codes = malloc(on);
	uint32_t *scales = malloc(on * sizeof *scales); /* FP32 factors, or E8M0 and E4M3 bytes */
	double ref = 0, to[3] = { 0 };
	long oracle_repeats = repeats < 3 ? repeats : 3;
	int status = codes && scales ? 0 : -1;
	for (long r = 0; r < oracle_repeats && !status; r++) {
		double t0 = bench_now();
		uint32_t ts;
		if (strcmp(s->name, "nvfp4") == 0)
			status = fpref_ref_nvfp4_recipe_quantize(&ref_nvfp4, x, rows, QUANT_COLS, codes, (uint8_t *)scales, &ts,
								 err, sizeof err);
		else if (s->family == FPREF_EMU_QUANTIZE_MX)
			status = fpref_ref_mx_recipe_quantize(q.mx_element, fpref_emu_mx_scale_rule_name(q.mx_rule),
							      fpref_emu_mx_recipe_name(q.mx_recipe), FPREF_RNE, x, rows,
							      QUANT_COLS, codes, (uint8_t *)scales, err, sizeof err);
		else if (strcmp(s->name, "tensor") == 0)
			status = fpref_ref_current_quantize(&cp, x, on, codes, NULL, NULL, NULL, err, sizeof err);
		else
			status = fpref_ref_block_quantize(&bp, x, rows, QUANT_COLS, codes, scales, err, sizeof err);
		to[r] = bench_now() - t0;
	}
	if (!status)
		ref = (double)on / median_of(to, oracle_repeats);
	free(codes);
	free(scales);
	for (int report = 0; report < 2; report++) {
		if (!wanted[report])
			continue;
		struct bench_row row = { .section = "elements" };
		row.rate = (double)n / median_of(t[report], repeats);
		row.ref = ref;
		row.bytes = report ? 4 + 1 + 4 : 4 + 1; /* the input and the codes (and the dequantised values) */
		memcpy(row.what, what[report], sizeof row.what);
		snprintf(row.path, sizeof row.path, report ? "%s, %s; dequantised values and report bulk" : "%s, %s",
			 path, conv);
		if (bench_report_add(rep, &row) != 0)
			return -1;
	}
	return 0;
}

int bench_quantize(size_t n, long repeats, struct bench_report *rep)
{
	n = n / QUANT_COLS * QUANT_COLS;
	if (n < 128 * QUANT_COLS)
		n = 128 * QUANT_COLS;
	uint32_t *x = malloc(n * sizeof *x);
	if (!x)
		return -1;
	int status = 0;
	for (size_t k = 0; k < sizeof schemes / sizeof schemes[0] && !status; k++) {
		bench_fill_fp32(x, n, fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN));
		if (schemes[k].specials) { /* in the oracle's slice too */
			x[100] = 0x7FC00000u;
			x[n / 2 + 7] = 0xFF800000u;
			x[QUANT_COLS + 3] = 0x7F800000u;
		}
		status = scheme_rows(k, x, n, repeats, rep);
	}
	free(x);
	return status;
}
