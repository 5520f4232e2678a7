/* fpref quantize: quantise a tensor from .npy with a scaling scheme, write
 * the codes, the scales (and the dequantised values) as .npy, and report
 * the error of the round trip (docs/scaling.md, docs/scaling-mx.md). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpref_emu_quant_report.h"
#include "fpref_emu_scale_layout.h"
#include "quantize.h"
#include "draw.h"

struct quantize_args {
	const char *scheme, *in, *codes, *scales, *dequant, *format, *eps, *margin, *history, *algo, *recipe, *nan, *amax_nan;
	const char *rule, *element_rounding, *seed, *sr_bits, *tensor_scale; /* MX, NVFP4 */
	const char *four_over_six, *scale_bound, *rht;             /* NVFP4 */
	const char *scale_layout;                                  /* MX, NVFP4 */
	const char *torch_dtype;                                   /* NVFP4 torchao, modelopt */
	const char *svg;
	bool json, pow2, no_pow2, two_d, sr, rht_fp32, no_report;
};

#define Q(f) offsetof(struct quantize_args, f)

static const struct cli_opt quantize_opts[] = {
	{ "--scheme", CLI_VALUE, "tensor|delayed|tile128|block128|mxfp8|mxfp6|mxfp4|mxint8|nvfp4", NULL,
	  "the scaling recipe (docs/scaling.md, docs/scaling-mx.md)", Q(scheme), 0 },
	{ "--in-file", CLI_VALUE, "X.npy", NULL, "the tensor: float32, float16, bfloat16 (V2), or float64 holding float32 values", Q(in), 0 },
	{ "--codes", CLI_VALUE, "C.npy", NULL, "where to write the element codes", Q(codes), 0 },
	{ "--scales", CLI_VALUE, "S.npy", NULL, "where to write the scales", Q(scales), 0 },
	{ "--dequant", CLI_VALUE, "D.npy", NULL, "where to write the dequantised values", Q(dequant), 0 },
	{ "--format", CLI_VALUE, "FMT", "the scheme's first", "the element format (FP8: e4m3|e5m2; mxfp8: e4m3|e5m2; "
	  "mxfp6: e2m3|e3m2)", Q(format), 0 },
	{ "--pow2", CLI_FLAG, NULL, NULL, "FP8: scales rounded to powers of two (default: off; on for te tiles)",
	  Q(pow2), 0 },
	{ "--no-pow2", CLI_FLAG, NULL, NULL, "FP8: scales not rounded to powers of two", Q(no_pow2), 0 },
	{ "--recipe", CLI_VALUE, "deepseek|te|ocp|torchao|modelopt|...", NULL,
	  "whose recipe: tile128, block128 deepseek (default) or te; MX ocp (default), torchao (0.18) or modelopt "
	  "(0.47: e4m3 or e2m1, rceil-log2); nvfp4 te (default), torchao (0.18), torchao-1level, modelopt (0.47), torchao-02a1bc44, "
	  "modelopt-0ad6e5f0", Q(recipe), 0 },
	{ "--eps", CLI_VALUE, "E", NULL, "FP8: amax below E counts as E (rounded to FP32; default 0, deepseek tiles 1e-4)", Q(eps), 0 },
	{ "--margin", CLI_VALUE, "M", "0", "delayed: the scale's margin in powers of two, 0..126", Q(margin), 0 },
	{ "--history", CLI_VALUE, "L", "1024", "delayed: the amax history length", Q(history), 0 },
	{ "--amax-algo", CLI_VALUE, "max|most_recent", "max", "delayed: how the history gives amax", Q(algo), 0 },
	{ "--amax-nan", CLI_VALUE, "ignore|propagate", NULL, "FP8: a NaN in amax is skipped or wins (default: te ignore, deepseek propagate)", Q(amax_nan), 0 },
	{ "--nan", CLI_VALUE, "keep|reject", "keep", "reject: a NaN or inf in X is an error", Q(nan), 0 },
	{ "--rule", CLI_VALUE, "ocp-floor|nv-ceil|rne|ceil|rceil-log2", "ocp-floor", "MX: the rule of the E8M0 scale",
	  Q(rule), 0 },
	{ "--element-rounding", CLI_VALUE, "rne|rna", "rne", "MX: the rounding of elements", Q(element_rounding), 0 },
	{ "--tensor-scale", CLI_VALUE, "F.npy", NULL, "nvfp4: where to write the FP32 tensor scale (needed)",
	  Q(tensor_scale), 0 },
	{ "--2d", CLI_FLAG, NULL, NULL, "nvfp4: 16 x 16 blocks", Q(two_d), 0 },
	{ "--sr", CLI_FLAG, NULL, NULL, "nvfp4: stochastic rounding of elements", Q(sr), 0 },
	{ "--seed", CLI_VALUE, "N", NULL, "nvfp4 --sr: the random stream's key", Q(seed), 0 },
	{ "--sr-bits", CLI_VALUE, "philox=SEED[:OFFSET[:THREAD[:ROUNDS]]]", NULL,
	  "nvfp4 --sr: Transformer Engine's Philox4x32 stream instead, element i as value i of convert --round "
	  "te-nvfp4", Q(sr_bits), 0 },
	{ "--four-over-six", CLI_VALUE, "abs_max|mae|mse", NULL,
	  "nvfp4: Four Over Six, each block scaled to 6 or to 4, the smaller error kept (ties 6)", Q(four_over_six), 0 },
	{ "--scale-bound", CLI_VALUE, "256|448", "256", "nvfp4 --four-over-six: the E4M3 scale bound M",
	  Q(scale_bound), 0 },
	{ "--rht", CLI_VALUE, "te|SIGNS", NULL, "nvfp4: a 16-point random Hadamard transform along rows first; te: "
	  "TE's sign vector 0xD7E8, or a 16-bit mask (bit i negates element i)", Q(rht), 0 },
	{ "--rht-fp32", CLI_FLAG, NULL, NULL, "nvfp4 --rht: keep the transform's output in FP32 (default: rounded "
	  "to BF16, as TE's reference does)", Q(rht_fp32), 0 },
	{ "--torch-dtype", CLI_VALUE, "fp32|bf16", "fp32",
	  "nvfp4 torchao, torchao-1level, modelopt: the dtype torch held x in, which decides the NaN its reductions "
	  "return (bf16: 0x7FC0)", Q(torch_dtype), 0 },
	{ "--scale-layout", CLI_VALUE, "linear|swizzled", "linear",
	  "MX, nvfp4: the scales row-major, or in cuBLAS's blocked 128x4 layout as torchao and ModelOpt swizzle them "
	  "(rows padded to 128, columns to 4)", Q(scale_layout), 0 },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", Q(json), 0 },
	{ "--no-report", CLI_FLAG, NULL, NULL, "codes and scales only: no round-trip error report (the dequantised "
	  "values are made only for --dequant)", Q(no_report), 0 },
	{ "--svg", CLI_VALUE, "FILE.svg", NULL, "draw the round-trip error (a heat map) and the scales (as fpref draw quantize)",
	  Q(svg), 0 },
};

const struct cli_command cli_cmd_quantize = {
	.name = "quantize",
	.synopsis = "--scheme SCHEME --in-file X.npy --codes C.npy --scales S.npy [--dequant D.npy] [--format FMT] "
		    "[SCHEME OPTIONS] [--nan keep|reject] [--json] [--no-report] [--svg FILE.svg]",
	.summary = "Quantise a tensor with a scaling recipe: the codes, the scales, and the error of the round trip\n"
		   "(docs/scaling.md).",
	.details = "Options that the scheme would ignore are errors.\n",
	.opts = quantize_opts,
	.nopts = CLI_NOPTS(quantize_opts),
	.max_positional = 0,
	.examples = { "fpref quantize --scheme tensor --in-file x.npy --codes c.npy --scales s.npy",
		      "fpref quantize --scheme mxfp4 --in-file x.npy --codes c.npy --scales s.npy --dequant d.npy --json" },
	.run = cmd_quantize,
};

static int usage_error(const char *what, const char *value)
{
	cli_fail(cli_cmd_quantize.name, "%s%s%s", what, value ? " " : "", value ? value : "");
	return CLI_EXIT_USAGE;
}

static int bad_value(const char *option, const char *value, const char *expected)
{
	cli_fail(cli_cmd_quantize.name, "bad %s '%s' (%s)", option, value, expected);
	return CLI_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct quantize_args *a)
{
	memset(a, 0, sizeof *a);
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_quantize, argc, argv, &o, a);
	if (r)
		return r;
	if (!a->scheme || !a->in || !a->codes || !a->scales)
		return usage_error("--scheme, --in-file, --codes and --scales are required (see fpref quantize --help)", NULL);
	if (a->pow2 && a->no_pow2)
		return usage_error("--pow2 and --no-pow2 contradict each other", NULL);
	return 0;
}

static int parse_count(const char *text, const char *what, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || v < lo || v > hi) {
		cli_fail(cli_cmd_quantize.name, "bad %s '%s' (an integer %ld..%ld)", what, text, lo, hi);
		return CLI_EXIT_USAGE;
	}
	*out = v;
	return 0;
}

/* --eps as a number rounded to FP32 by the oracle (a decimal like 1e-4 is
 * what the recipes write as a float literal). */
static int parse_eps(const char *text, uint32_t *eps)
{
	struct fpref_format f32;
	cli_parse_format(cli_cmd_quantize.name, "float32", &f32);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[512];
	struct fpref_env env;
	fpref_env_default(&env);
	int status = fpref_ref_parse(text, &v, err, sizeof err);
	uint64_t bits = 0;
	unsigned flags = 0;
	if (status == 0)
		fpref_ref_round(&v, &f32, &env, 0, &bits, &flags, NULL);
	fpref_ref_value_clear(&v);
	if (status != 0 || bits >= 0x7F800000u) {
		cli_fail(cli_cmd_quantize.name, "bad --eps '%s' (a nonnegative finite number)", text);
		return CLI_EXIT_USAGE;
	}
	*eps = (uint32_t)bits;
	return 0;
}

/* --seed: any 64-bit unsigned integer (the stream's key). */
static int parse_seed(const char *text, uint64_t *seed)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (*text < '0' || *text > '9' || *end != '\0' || errno == ERANGE) {
		cli_fail(cli_cmd_quantize.name, "bad --seed '%s' (an integer 0..18446744073709551615)", text);
		return CLI_EXIT_USAGE;
	}
	*seed = (uint64_t)v;
	return 0;
}

/* The MX or NVFP4 element: the scheme's first unless --format names another
 * of its elements. */
static int pick_element(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *scheme,
			struct fpref_emu_quantize_request *q)
{
	if (strcmp(scheme->elements[0], "int8") == 0) {
		if (a->format) {
			cli_fail(cli_cmd_quantize.name, "--scheme %s has one element, INT8: --format does not apply", scheme->name);
			return CLI_EXIT_USAGE;
		}
		q->mx_element = scheme->elements[0];
		return 0;
	}
	if (cli_parse_format(cli_cmd_quantize.name, a->format ? a->format : scheme->elements[0], &q->element) != 0)
		return CLI_EXIT_USAGE;
	struct fpref_format listed;
	for (int i = 0; scheme->elements[i]; i++)
		if (fpref_format_parse(scheme->elements[i], &listed, NULL, 0) == 0 && fpref_format_same(&q->element, &listed)) {
			q->mx_element = scheme->elements[i];
			return 0;
		}
	cli_fail(cli_cmd_quantize.name, "--scheme %s takes --format %s, not '%s'", scheme->name, scheme->format_choices, a->format);
	return CLI_EXIT_USAGE;
}

/* --recipe, --four-over-six, --scale-bound, --rht, --rht-fp32; the library
 * says which recipe has which option. */
static int build_nvfp4(const struct quantize_args *a, struct fpref_nvfp4_params *p)
{
	if (a->recipe && (fpref_emu_nvfp4_recipe_parse(a->recipe, &p->recipe) != 0 ||
			  p->recipe == FPREF_NVFP4_FOUR_OVER_SIX))
		return bad_value("--recipe", a->recipe,
				 "nvfp4: te, torchao, torchao-1level, modelopt, torchao-02a1bc44 or modelopt-0ad6e5f0");
	if (a->four_over_six) {
		if (a->recipe)
			return usage_error("--four-over-six is its own recipe (the Four Over Six reference's FP32 "
					   "steps): drop --recipe", a->recipe);
		if (fpref_emu_nvfp4_choice_parse(a->four_over_six, &p->choice) != 0)
			return bad_value("--four-over-six", a->four_over_six, "abs_max, mae or mse");
		p->recipe = FPREF_NVFP4_FOUR_OVER_SIX;
	}
	struct fpref_format dtype;
	if (a->torch_dtype &&
	    (fpref_format_parse(a->torch_dtype, &dtype, NULL, 0) != 0 ||
	     !(fpref_format_is(&dtype, FPREF_FORMAT_FLOAT32) || fpref_format_is(&dtype, FPREF_FORMAT_BFLOAT16))))
		return bad_value("--torch-dtype", a->torch_dtype, "fp32 or bf16 (float32, bfloat16)");
	p->torch_bf16 = a->torch_dtype && fpref_format_is(&dtype, FPREF_FORMAT_BFLOAT16);
	if (a->torch_dtype && !a->recipe)
		return usage_error("--torch-dtype belongs to --recipe torchao, torchao-1level and modelopt", NULL);
	if (a->scale_bound && !a->four_over_six)
		return usage_error("--scale-bound belongs to --four-over-six", NULL);
	if (a->scale_bound && strcmp(a->scale_bound, "256") != 0 && strcmp(a->scale_bound, "448") != 0)
		return bad_value("--scale-bound", a->scale_bound, "256 or 448");
	p->scale_bound = a->scale_bound && strcmp(a->scale_bound, "448") == 0 ? 448 : 256;
	if (a->rht_fp32 && !a->rht)
		return usage_error("--rht-fp32 belongs to --rht", NULL);
	if (a->rht) {
		char *end;
		errno = 0;
		unsigned long m = strcmp(a->rht, "te") == 0 ? FPREF_NVFP4_TE_RHT_SIGNS : strtoul(a->rht, &end, 0);
		if (strcmp(a->rht, "te") != 0 && (*a->rht < '0' || *a->rht > '9' || *end != '\0' || errno || m > 0xFFFF))
			return bad_value("--rht", a->rht, "te, or a sign mask 0 to 0xFFFF");
		p->rht = true;
		p->rht_signs = (uint16_t)m;
		p->rht_bf16 = !a->rht_fp32;
	}
	char err[160];
	if (fpref_emu_nvfp4_params_check(p, FPREF_NVFP4_BLOCK, err, sizeof err) != 0)
		return usage_error(err, NULL);
	return 0;
}

static int build_block_scaled(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *scheme,
			      struct fpref_emu_quantize_request *q)
{
	int status = pick_element(a, scheme, q);
	if (status)
		return status;
	q->mx_rule = FPREF_MX_SCALE_OCP_FLOOR;
	q->element_rounding = FPREF_RNE;
	if (a->rule && fpref_emu_mx_scale_rule_parse(a->rule, &q->mx_rule) != 0) {
		cli_fail(cli_cmd_quantize.name, "bad --rule '%s' (choices: %s)", a->rule, fpref_emu_mx_scale_rule_choices());
		return CLI_EXIT_USAGE;
	}
	if (scheme->family == FPREF_EMU_QUANTIZE_MX && a->recipe &&
	    fpref_emu_mx_recipe_parse(a->recipe, &q->mx_recipe) != 0)
		return bad_value("--recipe", a->recipe, "MX: ocp, torchao or modelopt");
	if (a->element_rounding && (fpref_rounding_parse(a->element_rounding, &q->element_rounding) != 0 ||
				    (q->element_rounding != FPREF_RNE && q->element_rounding != FPREF_RNA)))
		return bad_value("--element-rounding", a->element_rounding, "rne or rna");
	char err[256];
	struct fpref_mx_params mx = { q->mx_element, q->mx_rule, q->element_rounding, q->mx_recipe };
	if (scheme->family == FPREF_EMU_QUANTIZE_MX && fpref_emu_mx_params_check(&mx, err, sizeof err) != 0)
		return usage_error(err, NULL);
	q->nvfp4.two_d = a->two_d;
	q->nvfp4.stochastic = a->sr;
	if (a->seed && (status = parse_seed(a->seed, &q->nvfp4.seed)) != 0)
		return status;
	if (a->sr_bits && fpref_emu_nvfp4_parse_philox(a->sr_bits, &q->nvfp4, err, sizeof err) != 0)
		return usage_error(err, NULL);
	return scheme->family == FPREF_EMU_QUANTIZE_NVFP4 ? build_nvfp4(a, &q->nvfp4) : 0;
}

static int build_request(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *scheme,
			 struct fpref_emu_quantize_request *q)
{
	memset(q, 0, sizeof *q);
	q->pow2 = a->pow2 ? 1 : a->no_pow2 ? 0 : -1;
	q->history = 1024;
	q->algo = FPREF_AMAX_MAX;
	if (scheme->family != FPREF_EMU_QUANTIZE_FP8)
		return build_block_scaled(a, scheme, q);
	long v;
	int status = 0;
	if (cli_parse_format(cli_cmd_quantize.name, a->format ? a->format : "e4m3", &q->element) != 0)
		return CLI_EXIT_USAGE;
	if (a->recipe && strcmp(a->recipe, "te") != 0 && strcmp(a->recipe, "deepseek") != 0)
		return bad_value("--recipe", a->recipe, "deepseek or te");
	q->te_recipe = a->recipe && strcmp(a->recipe, "te") == 0;
	if (a->eps && (status = parse_eps(a->eps, &q->eps)) != 0)
		return status;
	q->have_eps = a->eps != NULL;
	if (a->margin && (status = parse_count(a->margin, "--margin", 0, 126, &v)) != 0)
		return status;
	q->margin = a->margin ? (int)v : 0;
	if (a->history && (status = parse_count(a->history, "--history", 1, 1L << 24, &v)) != 0)
		return status;
	q->history = a->history ? (size_t)v : 1024;
	if (a->algo && fpref_amax_algo_parse(a->algo, &q->algo) != 0)
		return bad_value("--amax-algo", a->algo, "max or most_recent");
	if (a->amax_nan && fpref_amax_nan_parse(a->amax_nan, &q->amax_nan) != 0)
		return bad_value("--amax-nan", a->amax_nan, "ignore or propagate");
	if (a->nan && strcmp(a->nan, "keep") != 0 && strcmp(a->nan, "reject") != 0)
		return bad_value("--nan", a->nan, "keep or reject");
	return 0;
}

/* Options that the MX and NVFP4 schemes would silently ignore are errors. */
static int check_block_scaled_options(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *scheme)
{
	const char *name = scheme->name;
	if (scheme->family != FPREF_EMU_QUANTIZE_FP8 && (a->pow2 || a->no_pow2 || a->eps || a->amax_nan))
		return usage_error("--pow2, --no-pow2, --eps and --amax-nan belong to the FP8 schemes (tensor, delayed, "
				   "tile128, block128); the scale and NaN handling are fixed (docs/scaling-mx.md) in", name);
	if (scheme->family != FPREF_EMU_QUANTIZE_MX && (a->rule || a->element_rounding))
		return usage_error("--rule and --element-rounding belong to the MX schemes (mxfp8, mxfp6, mxfp4, "
				   "mxint8), not", name);
	if (scheme->family != FPREF_EMU_QUANTIZE_NVFP4 &&
	    (a->two_d || a->sr || a->seed || a->sr_bits || a->tensor_scale || a->four_over_six || a->scale_bound ||
	     a->rht || a->rht_fp32 || a->torch_dtype))
		return usage_error("--2d, --sr, --seed, --sr-bits, --tensor-scale, --four-over-six, --scale-bound, --rht, "
				   "--rht-fp32 and --torch-dtype belong to --scheme nvfp4, not", name);
	if (a->scale_layout && strcmp(a->scale_layout, "linear") != 0 && strcmp(a->scale_layout, "swizzled") != 0)
		return bad_value("--scale-layout", a->scale_layout, "linear or swizzled");
	if (a->scale_layout && scheme->family == FPREF_EMU_QUANTIZE_FP8)
		return usage_error("--scale-layout belongs to the MX schemes and nvfp4, not", name);
	if (a->scale_layout && strcmp(a->scale_layout, "swizzled") == 0 && a->two_d)
		return usage_error("--scale-layout swizzled is cuBLAS's layout of 1-D block scales: not with --2d", NULL);
	if ((a->seed || a->sr_bits) && !a->sr)
		return usage_error(a->seed ? "--seed seeds stochastic rounding: it needs --sr"
					   : "--sr-bits feeds stochastic rounding: it needs --sr", NULL);
	if (a->seed && a->sr_bits)
		return usage_error("--seed and --sr-bits name two random streams: give one", NULL);
	if (scheme->family == FPREF_EMU_QUANTIZE_NVFP4 && !a->tensor_scale)
		return usage_error("--scheme nvfp4 needs --tensor-scale F.npy for the FP32 tensor scale, without which "
				   "the codes and block scales cannot be decoded", NULL);
	return 0;
}

/* Options that the scheme would silently ignore are errors. */
static int check_scheme_options(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *s)
{
	const char *scheme = s->name;
	int status = check_block_scaled_options(a, s);
	if (status)
		return status;
	bool delayed = strcmp(scheme, "delayed") == 0;
	bool blocks = strcmp(scheme, "tile128") == 0 || strcmp(scheme, "block128") == 0;
	if (!delayed && (a->margin || a->history || a->algo))
		return usage_error("--margin, --history and --amax-algo belong to --scheme delayed, not", scheme);
	if (!blocks && a->recipe && s->family == FPREF_EMU_QUANTIZE_FP8)
		return usage_error("--recipe belongs to --scheme tile128, block128, the MX schemes and nvfp4, not", scheme);
	if (blocks && a->pow2 && !(a->recipe && strcmp(a->recipe, "te") == 0))
		return usage_error("--pow2 belongs to --recipe te; DeepSeek-V3 scales are amax / 448", NULL);
	if (delayed && (a->pow2 || a->no_pow2 || a->eps))
		return usage_error("TE delayed scaling has no power-of-two or epsilon option", NULL);
	if (strcmp(scheme, "tensor") == 0 && a->no_pow2)
		return usage_error("--no-pow2 is the default of --scheme tensor; --pow2 turns it on", NULL);
	return 0;
}

static int reject_nonfinite(const char *path, const struct fpref_emu_quantize_request *q)
{
	for (size_t i = 0; i < q->count; i++)
		if ((q->x[i] & 0x7F800000u) == 0x7F800000u) {
			cli_fail(cli_cmd_quantize.name, "%s: element %zu is %s (--nan reject)", path, i, (q->x[i] & 0x7FFFFFu) ? "NaN" : "infinite");
			return CLI_EXIT_USAGE;
		}
	return 0;
}

static void print_f32(const char *name, uint32_t bits, bool json, bool last)
{
	struct fpref_format f32;
	cli_parse_format(cli_cmd_quantize.name, "float32", &f32);
	char *dec = fpref_ref_shortest(&f32, bits);
	if (json)
		printf("\"%s\": {\"value\": \"%s\", \"bits\": \"0x%08X\"}%s", name, dec ? dec : "?", (unsigned)bits,
		       last ? "" : ", ");
	else
		printf("%s %s (0x%08X)%s", name, dec ? dec : "?", (unsigned)bits, last ? "\n" : "  ");
	free(dec);
}

static void print_report_text(const struct fpref_quant_report *r, bool saturation_counted)
{
	printf("compared %zu of %zu elements (%zu non-finite inputs, %zu non-finite outputs left out)\n", r->compared,
	       r->count, r->nonfinite_inputs, r->nonfinite_outputs);
	printf("abs error  max %s  mean %s\n", cli_text_num(r->max_abs, 17).text, cli_text_num(r->mean_abs, 17).text);
	printf("rel error  max %s  mean %s  (over %zu nonzero inputs)\n", cli_text_num(r->max_rel, 17).text,
	       cli_text_num(r->mean_rel, 17).text, r->compared_nonzero);
	printf("flushed to zero  %zu of %zu nonzero inputs (%s)\n", r->flushed, r->nonzero_inputs,
	       cli_text_num(r->flushed_fraction, 17).text);
	if (saturation_counted)
		printf("saturated  %zu of %zu codes (%s)\n", r->saturated, r->count, cli_text_num(r->saturated_fraction, 17).text);
	else
		printf("saturated  not counted (INT8 codes)\n");
}

static void print_report_json(const struct fpref_quant_report *r, bool saturation_counted)
{
	printf("\"report\": {\"count\": %zu, \"compared\": %zu, \"compared_nonzero\": %zu, \"nonfinite_inputs\": %zu, "
	       "\"nonfinite_outputs\": %zu, \"max_abs\": %s, \"mean_abs\": %s, \"max_rel\": %s, "
	       "\"mean_rel\": %s, \"nonzero_inputs\": %zu, \"flushed\": %zu, \"flushed_fraction\": %s, ",
	       r->count, r->compared, r->compared_nonzero, r->nonfinite_inputs, r->nonfinite_outputs,
	       cli_json_num(r->max_abs).text, cli_json_num(r->mean_abs).text, cli_json_num(r->max_rel).text,
	       cli_json_num(r->mean_rel).text, r->nonzero_inputs, r->flushed, cli_json_num(r->flushed_fraction).text);
	if (saturation_counted)
		printf("\"saturated\": %zu, \"saturated_fraction\": %s}", r->saturated,
		       cli_json_num(r->saturated_fraction).text);
	else
		printf("\"saturated\": null, \"saturated_fraction\": null}");
}

static void print_labels(const struct fpref_emu_quantize_result *r, bool json)
{
	for (int i = 0; i < r->nlabels; i++) {
		const struct fpref_emu_quantize_label *l = &r->labels[i];
		if (json)
			printf(l->number ? "\"%s\": %s, " : "\"%s\": \"%s\", ", l->name, l->value);
		else
			printf("%s %s%s", l->name, l->value, i + 1 < r->nlabels ? "  " : "\n");
	}
}

static void print_steps(const struct fpref_emu_quantize_result *r, bool json)
{
	if (r->steps == 0)
		return;
	if (json)
		printf("\"steps\": [");
	for (size_t t = 0; t < r->steps; t++) {
		if (json)
			printf("{");
		else
			printf("step %zu  ", t);
		print_f32("amax", r->step_amax[t], json, false);
		print_f32("scale_inv", r->step_scale_inv[t], json, true);
		if (json)
			printf("}%s", t + 1 < r->steps ? ", " : "");
	}
	if (json)
		printf("], ");
}

static void print_result(const struct quantize_args *a, const struct fpref_emu_quantize_request *q,
			 const struct fpref_emu_quantize_result *r, const struct fpref_quant_report *rep)
{
	if (a->json)
		printf("{\"scheme\": \"%s\", \"format\": \"%s\", \"shape\": [", a->scheme, r->element_name);
	else
		printf("scheme %s  format %s  shape ", a->scheme, r->element_name);
	for (int d = 0; d < q->ndim; d++)
		printf(a->json ? "%s%zu" : "%s%zu", d ? (a->json ? ", " : "x") : "", q->shape[d]);
	printf(a->json ? "], " : "\n");
	print_labels(r, a->json);
	print_steps(r, a->json);
	for (int i = 0; i < r->nfacts; i++)
		print_f32(r->facts[i].name, r->facts[i].bits, a->json, !a->json && i + 1 == r->nfacts);
	if (a->json && !rep)
		printf("\"report\": null}\n");
	else if (a->json) {
		print_report_json(rep, r->element != NULL);
		printf("}\n");
	} else if (rep)
		print_report_text(rep, r->element != NULL);
	else
		printf("report  not made (--no-report)\n");
}

/* Each file is written atomically; when one fails, those this run already
 * wrote are removed, so that codes and scales never come from two runs. */
static int write_outputs(const struct quantize_args *a, const struct fpref_emu_quantize_request *q,
			 const struct fpref_emu_quantize_result *r)
{
	const size_t one[1] = { 1 };
	/* --scale-layout swizzled: the scales as a rows x cols matrix (cols the
	 * last axis), rearranged and written as the padded 2-D matrix */
	const void *scales = r->scales;
	const size_t *scales_shape = r->scales_shape;
	int scales_ndim = r->scales_ndim;
	size_t swz_shape[2] = { 0, 0 };
	uint8_t *swz = NULL;
	if (a->scale_layout && strcmp(a->scale_layout, "swizzled") == 0) {
		size_t cols = r->scales_shape[r->scales_ndim - 1], rows = cols ? r->scales_count / cols : 0;
		if (fpref_emu_scale_swizzled_shape(rows, cols, &swz_shape[0], &swz_shape[1]) != 0 ||
		    !(swz = malloc(swz_shape[0] * swz_shape[1] + 1))) {
			cli_fail(cli_cmd_quantize.name, "no memory for the swizzled scales");
			return CLI_EXIT_FAIL;
		}
		fpref_emu_scale_swizzle(r->scales, rows, cols, swz);
		scales = swz;
		scales_shape = swz_shape;
		scales_ndim = 2;
	}
	const struct {
		const char *path, *descr;
		const size_t *shape;
		int ndim;
		const void *data;
		size_t item_bytes;
	} files[] = {
		{ a->codes, "|u1", q->shape, q->ndim, r->codes, 1 },
		{ a->scales, r->scales_descr, scales_shape, scales_ndim, scales, r->scales_item_bytes },
		{ r->has_tensor_scale ? a->tensor_scale : NULL, "<f4", one, 1, &r->tensor_scale, 4 },
		{ a->dequant, "<f4", q->shape, q->ndim, r->dequant, 4 },
	};
	size_t n = sizeof files / sizeof files[0], done = 0;
	int status = 0;
	for (; done < n && status == 0; done++)
		if (files[done].path)
			status = quantize_save(files[done].path, files[done].descr, files[done].shape, files[done].ndim,
					       files[done].data, files[done].item_bytes);
	for (size_t i = 0; status && i + 1 < done; i++) /* the last one tried was not written */
		if (files[i].path)
			remove(files[i].path);
	free(swz);
	return status;
}

#define QUANTIZE_SVG_MAX 65536

/* --svg: the errors as a heat map (a tensor of more than two dimensions as
 * shape[0] rows) and the scales in their C order.  The scales are FP32,
 * E8M0 (MX) or E4M3 (NVFP4's blocks). */
static int draw_result(const struct quantize_args *a, const struct fpref_emu_quantize_scheme *scheme,
		       const struct fpref_emu_quantize_request *q, const struct fpref_emu_quantize_result *r)
{
	size_t rows = q->ndim >= 2 ? q->shape[0] : 1, cols = rows ? q->count / rows : 0, nscales = 1;
	for (int d = 0; d < r->scales_ndim; d++)
		nscales *= r->scales_shape[d];
	double *err = malloc((q->count ? q->count : 1) * sizeof *err);
	uint64_t *scales = malloc((nscales ? nscales : 1) * sizeof *scales);
	if (!err || !scales) {
		free(err);
		free(scales);
		cli_fail(cli_cmd_quantize.name, "out of memory");
		return CLI_EXIT_FAIL;
	}
	fpref_emu_quant_abs_errors(q->x, r->dequant, q->count, err);
	const struct fpref_format *sf = fpref_format_get(
		r->scales_item_bytes == 4 ? FPREF_FORMAT_FLOAT32
		: scheme->family == FPREF_EMU_QUANTIZE_NVFP4 ? FPREF_FORMAT_FLOAT8_E4M3FN : FPREF_FORMAT_FLOAT8_E8M0FNU);
	for (size_t i = 0; i < nscales; i++)
		scales[i] = r->scales_item_bytes == 4 ? ((const uint32_t *)r->scales)[i] : ((const uint8_t *)r->scales)[i];
	char title[160];
	snprintf(title, sizeof title, "quantize --scheme %s: %s elements", a->scheme, r->element_name);
	struct draw_quantize d = { title, rows, cols, err, nscales, sf, scales };
	int status = draw_quantize(cli_cmd_quantize.name, a->svg, &d);
	free(err);
	free(scales);
	return status;
}

int cmd_quantize(int argc, char **argv)
{
	struct quantize_args a;
	struct fpref_emu_quantize_request q;
	int status = parse_args(argc, argv, &a);
	if (status)
		return status;
	const struct fpref_emu_quantize_scheme *scheme = fpref_emu_quantize_scheme_find(a.scheme);
	if (!scheme) {
		cli_fail(cli_cmd_quantize.name, "unknown scheme '%s' (choices: %s)", a.scheme, fpref_emu_quantize_scheme_choices());
		return CLI_EXIT_USAGE;
	}
	if ((status = check_scheme_options(&a, scheme)) != 0 || (status = build_request(&a, scheme, &q)) != 0)
		return status;
	/* the outputs checked before the tensor is read and quantised */
	const char *outputs[] = { a.codes, a.scales, a.dequant, a.tensor_scale, a.svg };
	for (int i = 0; i < 5; i++)
		if (outputs[i] && (status = cli_check_writable(cli_cmd_quantize.name, outputs[i])) != 0)
			return status;
	uint32_t *x = NULL;
	if ((status = quantize_load(a.in, &q, &x)) != 0)
		return status;
	if (a.svg && q.count > QUANTIZE_SVG_MAX) {
		cli_fail(cli_cmd_quantize.name, "--svg draws a cell for each element: at most %d, and %s has %zu",
			 QUANTIZE_SVG_MAX, a.in, q.count);
		free(x);
		return CLI_EXIT_USAGE;
	}
	q.x = x;
	q.codes_only = a.no_report && !a.dequant && !a.svg;
	struct fpref_emu_quantize_result r;
	memset(&r, 0, sizeof r);
	if (a.nan && strcmp(a.nan, "reject") == 0)
		status = reject_nonfinite(a.in, &q);
	char err[512];
	int rc = status ? 0 : fpref_emu_quantize(scheme, &q, &r, err, sizeof err);
	if (rc != 0) {
		cli_fail(cli_cmd_quantize.name, "%s", err);
		status = rc == FPREF_EMU_QUANTIZE_NO_MEMORY ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	struct fpref_quant_report rep;
	if (!status && !a.no_report && fpref_emu_quant_report_compute(q.x, r.dequant, q.count, r.element, r.codes, &rep) != 0) {
		cli_fail(cli_cmd_quantize.name, "cannot report on codes of %s", r.element_name);
		status = CLI_EXIT_FAIL;
	}
	if (!status)
		status = write_outputs(&a, &q, &r);
	if (!status)
		print_result(&a, &q, &r, a.no_report ? NULL : &rep);
	if (!status && a.svg)
		status = draw_result(&a, scheme, &q, &r);
	fpref_emu_quantize_result_free(&r);
	free(x);
	return status;
}
