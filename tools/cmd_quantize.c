/* fpref quantize: quantise a tensor from .npy with a scaling scheme, write
 * the codes, the scales (and the dequantised values) as .npy, and report
 * the error of the round trip (docs/scaling.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpref_quant_report.h"
#include "quantize.h"

struct quantize_args {
	const char *scheme, *in, *codes, *scales, *dequant, *format, *eps, *margin, *history, *algo, *recipe, *nan, *amax_nan;
	bool json, pow2, no_pow2;
};

static const char quantize_usage[] =
	"quantize --scheme SCHEME --in X.npy --codes C.npy --scales S.npy [--dequant D.npy] [--format e4m3|e5m2] "
	"[--pow2|--no-pow2] [--recipe deepseek|te] [--eps E] [--margin M] [--history L] [--amax-algo max|most_recent] "
	"[--amax-nan ignore|propagate] [--nan keep|reject] [--json]";

static int usage_error(const char *what, const char *value)
{
	cli_error("%s%s%s (%s)", what, value ? " " : "", value ? value : "", quantize_usage);
	return CLI_EXIT_USAGE;
}

static const char **value_slot(struct quantize_args *a, const char *opt)
{
	static const struct {
		const char *name;
		size_t offset;
	} slots[] = {
		{ "--scheme", offsetof(struct quantize_args, scheme) },
		{ "--in", offsetof(struct quantize_args, in) },
		{ "--codes", offsetof(struct quantize_args, codes) },
		{ "--scales", offsetof(struct quantize_args, scales) },
		{ "--dequant", offsetof(struct quantize_args, dequant) },
		{ "--format", offsetof(struct quantize_args, format) },
		{ "--eps", offsetof(struct quantize_args, eps) },
		{ "--margin", offsetof(struct quantize_args, margin) },
		{ "--history", offsetof(struct quantize_args, history) },
		{ "--amax-algo", offsetof(struct quantize_args, algo) },
		{ "--recipe", offsetof(struct quantize_args, recipe) },
		{ "--nan", offsetof(struct quantize_args, nan) },
		{ "--amax-nan", offsetof(struct quantize_args, amax_nan) },
	};
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		if (strcmp(opt, slots[i].name) == 0)
			return (const char **)(void *)((char *)a + slots[i].offset);
	return NULL;
}

static int parse_args(int argc, char **argv, struct quantize_args *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 0; i < argc; i++) {
		const char **slot = value_slot(a, argv[i]);
		if (slot) {
			if (i + 1 >= argc)
				return usage_error("missing value after", argv[i]);
			*slot = argv[++i];
		} else if (strcmp(argv[i], "--json") == 0)
			a->json = true;
		else if (strcmp(argv[i], "--pow2") == 0)
			a->pow2 = true;
		else if (strcmp(argv[i], "--no-pow2") == 0)
			a->no_pow2 = true;
		else
			return usage_error("unknown argument", argv[i]);
	}
	if (!a->scheme || !a->in || !a->codes || !a->scales)
		return usage_error("--scheme, --in, --codes and --scales are required", NULL);
	if (a->pow2 && a->no_pow2)
		return usage_error("--pow2 and --no-pow2 contradict each other", NULL);
	return 0;
}

static int parse_count(const char *text, const char *what, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || v < lo || v > hi) {
		cli_error("%s must be an integer %ld to %ld, not '%s'", what, lo, hi, text);
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
	cli_parse_format("float32", &f32);
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
		cli_error("--eps must be a nonnegative finite number, not '%s'", text);
		return CLI_EXIT_USAGE;
	}
	*eps = (uint32_t)bits;
	return 0;
}

static int build_request(const struct quantize_args *a, struct quantize_request *q)
{
	memset(q, 0, sizeof *q);
	q->pow2 = a->pow2 ? 1 : a->no_pow2 ? 0 : -1;
	q->history = 1024;
	q->algo = FPREF_AMAX_MAX;
	long v;
	int status = 0;
	if (cli_parse_format(a->format ? a->format : "e4m3", &q->element) != 0)
		return CLI_EXIT_USAGE;
	q->have_format = a->format != NULL;
	if (a->recipe && strcmp(a->recipe, "te") != 0 && strcmp(a->recipe, "deepseek") != 0)
		return usage_error("--recipe must be deepseek or te, not", a->recipe);
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
		return usage_error("--amax-algo must be max or most_recent, not", a->algo);
	if (a->amax_nan && fpref_amax_nan_parse(a->amax_nan, &q->amax_nan) != 0)
		return usage_error("--amax-nan must be ignore or propagate, not", a->amax_nan);
	if (a->nan && strcmp(a->nan, "keep") != 0 && strcmp(a->nan, "reject") != 0)
		return usage_error("--nan must be keep or reject, not", a->nan);
	return 0;
}

/* Options that the scheme would silently ignore are errors. */
static int check_scheme_options(const struct quantize_args *a, const char *scheme)
{
	bool delayed = strcmp(scheme, "delayed") == 0;
	bool blocks = strcmp(scheme, "tile128") == 0 || strcmp(scheme, "block128") == 0;
	if (!delayed && (a->margin || a->history || a->algo))
		return usage_error("--margin, --history and --amax-algo belong to --scheme delayed, not", scheme);
	if (!blocks && a->recipe)
		return usage_error("--recipe belongs to --scheme tile128 and block128, not", scheme);
	if (delayed && (a->pow2 || a->no_pow2 || a->eps))
		return usage_error("TE delayed scaling has no power-of-two or epsilon option", NULL);
	if (strcmp(scheme, "tensor") == 0 && a->no_pow2)
		return usage_error("--no-pow2 is the default of --scheme tensor; --pow2 turns it on", NULL);
	return 0;
}

static int reject_nonfinite(const char *path, const struct quantize_request *q)
{
	for (size_t i = 0; i < q->count; i++)
		if ((q->x[i] & 0x7F800000u) == 0x7F800000u) {
			cli_error("%s: element %zu is %s (--nan reject)", path, i, (q->x[i] & 0x7FFFFFu) ? "NaN" : "infinite");
			return CLI_EXIT_USAGE;
		}
	return 0;
}

static void print_f32(const char *name, uint32_t bits, bool json, bool last)
{
	struct fpref_format f32;
	cli_parse_format("float32", &f32);
	char *dec = fpref_ref_shortest(&f32, bits);
	if (json)
		printf("\"%s\": {\"value\": \"%s\", \"bits\": \"0x%08X\"}%s", name, dec ? dec : "?", (unsigned)bits,
		       last ? "" : ", ");
	else
		printf("%s %s (0x%08X)%s", name, dec ? dec : "?", (unsigned)bits, last ? "\n" : "  ");
	free(dec);
}

static void print_report_text(const struct fpref_quant_report *r)
{
	printf("compared %zu of %zu elements (%zu non-finite inputs, %zu non-finite outputs left out)\n", r->compared,
	       r->count, r->nonfinite_inputs, r->nonfinite_outputs);
	printf("abs error  max %.17g  mean %.17g\n", r->max_abs, r->mean_abs);
	printf("rel error  max %.17g  mean %.17g  (over %zu nonzero inputs)\n", r->max_rel, r->mean_rel,
	       r->compared_nonzero);
	printf("flushed to zero  %zu of %zu nonzero inputs (%.17g)\n", r->flushed, r->nonzero_inputs,
	       r->flushed_fraction);
	printf("saturated  %zu of %zu codes (%.17g)\n", r->saturated, r->count, r->saturated_fraction);
}

static void print_report_json(const struct fpref_quant_report *r)
{
	printf("\"report\": {\"count\": %zu, \"compared\": %zu, \"compared_nonzero\": %zu, \"nonfinite_inputs\": %zu, "
	       "\"nonfinite_outputs\": %zu, \"max_abs\": %.17g, \"mean_abs\": %.17g, \"max_rel\": %.17g, "
	       "\"mean_rel\": %.17g, \"nonzero_inputs\": %zu, \"flushed\": %zu, \"flushed_fraction\": %.17g, "
	       "\"saturated\": %zu, \"saturated_fraction\": %.17g}",
	       r->count, r->compared, r->compared_nonzero, r->nonfinite_inputs, r->nonfinite_outputs, r->max_abs,
	       r->mean_abs, r->max_rel, r->mean_rel, r->nonzero_inputs, r->flushed, r->flushed_fraction, r->saturated,
	       r->saturated_fraction);
}

static void print_steps(const struct quantize_result *r, bool json)
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

static void print_result(const struct quantize_args *a, const struct quantize_request *q,
			 const struct quantize_result *r, const struct fpref_quant_report *rep)
{
	if (a->json)
		printf("{\"scheme\": \"%s\", \"format\": \"%s\", \"shape\": [", a->scheme, r->element->name);
	else
		printf("scheme %s  format %s  shape ", a->scheme, r->element->name);
	for (int d = 0; d < q->ndim; d++)
		printf(a->json ? "%s%zu" : "%s%zu", d ? (a->json ? ", " : "x") : "", q->shape[d]);
	printf(a->json ? "], " : "\n");
	print_steps(r, a->json);
	for (int i = 0; i < r->nfacts; i++)
		print_f32(r->facts[i].name, r->facts[i].bits, a->json, !a->json && i + 1 == r->nfacts);
	if (a->json) {
		print_report_json(rep);
		printf("}\n");
	} else
		print_report_text(rep);
}

/* Each file is written atomically; when one fails, those this run already
 * wrote are removed, so that codes and scales never come from two runs. */
static int write_outputs(const struct quantize_args *a, const struct quantize_request *q,
			 const struct quantize_result *r)
{
	const char *written[2] = { NULL, NULL };
	int status = quantize_save(a->codes, "|u1", q->shape, q->ndim, r->codes, 1);
	if (!status) {
		written[0] = a->codes;
		status = quantize_save(a->scales, r->scales_descr, r->scales_shape, r->scales_ndim, r->scales,
				       r->scales_item_bytes);
	}
	if (!status) {
		written[1] = a->scales;
		if (a->dequant)
			status = quantize_save(a->dequant, "<f4", q->shape, q->ndim, r->dequant, 4);
	}
	for (int i = 0; status && i < 2; i++)
		if (written[i])
			remove(written[i]);
	return status;
}

int cmd_quantize(int argc, char **argv)
{
	struct quantize_args a;
	struct quantize_request q;
	int status = parse_args(argc, argv, &a);
	if (status)
		return status;
	const struct quantize_scheme *scheme = quantize_scheme_find(a.scheme);
	if (!scheme) {
		cli_error("unknown scheme '%s' (choices: %s)", a.scheme, quantize_scheme_choices());
		return CLI_EXIT_USAGE;
	}
	if (!scheme->run) {
		cli_error("--scheme %s: not built yet (%s)", a.scheme, scheme->what);
		return CLI_EXIT_FAIL;
	}
	if ((status = check_scheme_options(&a, a.scheme)) != 0 || (status = build_request(&a, &q)) != 0)
		return status;
	uint32_t *x = NULL;
	if ((status = quantize_load(a.in, &q, &x)) != 0)
		return status;
	q.x = x;
	struct quantize_result r;
	memset(&r, 0, sizeof r);
	if (a.nan && strcmp(a.nan, "reject") == 0)
		status = reject_nonfinite(a.in, &q);
	if (!status)
		status = scheme->run(&q, &r);
	struct fpref_quant_report rep;
	if (!status && fpref_quant_report_compute(q.x, r.dequant, q.count, r.element, r.codes, &rep) != 0) {
		cli_error("cannot report on codes of %s", r.element->name);
		status = CLI_EXIT_FAIL;
	}
	if (!status)
		status = write_outputs(&a, &q, &r);
	if (!status)
		print_result(&a, &q, &r, &rep);
	quantize_result_free(&r);
	free(x);
	return status;
}
