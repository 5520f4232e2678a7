/* fpref gemm: D = A B + C through an accumulation model, with the error of
 * every element against the exact product and its a priori bound.  A, B
 * and C come from .npy files or are generated from a seed.  With --report
 * none (a caller that wants D alone, as in --out-file) neither the exact
 * products nor the bounds are computed: they cost far more than D. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

struct gemm_args {
	const char *in, *out, *a, *b, *c, *size, *dist, *seed, *scale, *save, *source, *quantize, *report, *svg, *threads;
	const char *in_a, *in_b, *save_a, *save_b;
	bool progress;
};

#define G(f) offsetof(struct gemm_args, f)

static const struct cli_opt gemm_opts[] = {
	{ "--in-format", CLI_VALUE, "FMT", NULL, "the format of A and B", G(in), 0 },
	{ "--a-format", CLI_VALUE, "FMT", NULL, "the format of A, with --b-format (instead of --in-format)", G(in_a), 0 },
	{ "--b-format", CLI_VALUE, "FMT", NULL, "the format of B, with --a-format", G(in_b), 0 },
	{ "--out-format", CLI_VALUE, "FMT", "float32", "the format of C and D", G(out), 0 },
	{ "--a", CLI_VALUE, "A.npy", NULL, "A (M x K): bit patterns of --in-format (--a-format), or float16/32/64 values it holds exactly (others are refused; --source-format rounds them)",
	  G(a), 0 },
	{ "--b", CLI_VALUE, "B.npy", NULL, "B (K x N), as A in --in-format (--b-format)", G(b), 0 },
	{ "--c", CLI_VALUE, "C.npy", "zero", "C (M x N), in --out-format", G(c), 0 },
	{ "--size", CLI_VALUE, "MxNxK", NULL, "generate A and B from a seed instead", G(size), 0 },
	{ "--dist", CLI_VALUE, "normal|uniform|positive", "normal", "the distribution of generated inputs", G(dist), 0 },
	{ "--seed", CLI_VALUE, "N", "1", "the seed of generated inputs", G(seed), 0 },
	{ "--scale-log2", CLI_VALUE, "P", "0", "generated inputs scaled by 2^P", G(scale), 0 },
	{ "--out-file", CLI_VALUE, "D.npy", NULL, "write D as .npy", G(save), 0 },
	{ "--save-a", CLI_VALUE, "A.npy", NULL, "write A (the model's input: --a-format patterns, or float16/32 values) as .npy",
	  G(save_a), 0 },
	{ "--save-b", CLI_VALUE, "B.npy", NULL, "write B (the model's input) as .npy", G(save_b), 0 },
	{ "--source-format", CLI_VALUE, "FMT", NULL,
	  "A and B are values of FMT (rounded to FMT, nearest even, where they are not), quantised to --in-format (--a-format, "
	  "--b-format); errors against the exact product of the FMT values",
	  G(source), 0 },
	{ "--quantize", CLI_VALUE, "rne|rna|rtz|rup|rdn|rod", "rne", "the rounding of --source-format values to --in-format",
	  G(quantize), 0 },
	{ "--report", CLI_VALUE, "errors|none", "errors", "none: D alone, no exact product or bound (fast)", G(report),
	  0 },
	{ "--svg", CLI_VALUE, "FILE.svg", NULL, "draw the error histograms (as fpref draw gemm)", G(svg), 0 },
	{ "--threads", CLI_VALUE, "N", "all cores",
	  "threads computing D and the report (the same bits and report on any number)", G(threads), 0 },
	{ "--progress", CLI_FLAG, NULL, NULL, "rows done and the time left on stderr (default: on a terminal, for long runs)",
	  G(progress), 0 },
};

const struct cli_command cli_cmd_gemm = {
	.name = "gemm",
	.synopsis = "--model MODEL (--in-format FMT | --a-format FMT --b-format FMT) [--out-format FMT] [MODEL OPTIONS]\n"
		    "       [ENV] [--json] [--out-file D.npy] [--save-a A.npy] [--save-b B.npy] [--report errors|none] [--svg FILE.svg]\n"
		    "       [--threads N] [--progress]\n"
		    "       (--a A.npy --b B.npy [--c C.npy] | --size MxNxK [--dist D] [--seed N]\n"
		    "       [--scale-log2 P]) [--source-format FMT [--quantize MODE]]\n"
		    "       [--scale-a SA.npy] [--scale-b SB.npy] [--scale-every E] [--scale-format FMT]",
	.summary = "D = A B + C through an accumulation model, with each element's error against the exact product\n"
		   "and its a priori bound.",
	.groups = CLI_ENV | CLI_JSON | CLI_MODEL | CLI_GEMM_SCALES,
	.opts = gemm_opts,
	.nopts = CLI_NOPTS(gemm_opts),
	.max_positional = 0,
	.examples = { "fpref gemm --model h100 --in-format e4m3 --size 64x64x256",
		      "fpref gemm --model h100-wgmma --a-format e5m2 --b-format e4m3 --a dY.npy --b W.npy --out-file D.npy" },
	.run = cmd_gemm,
};

static int out_of_memory(void)
{
	cli_fail(cli_cmd_gemm.name, "out of memory");
	return CLI_EXIT_FAIL;
}

/* inexact NULL: values f does not hold are refused (no --source-format). */
static int load_matrix(const char *path, const char *what, const struct fpref_format *f, size_t rows_want,
		       size_t *rows, size_t *cols, uint64_t **out, size_t *inexact)
{
	struct cli_matrix m;
	int status = cli_load_matrix(cli_cmd_gemm.name, path, what, f, rows_want, 0, &m, inexact,
				     "--source-format FMT (their format) to round them to --in-format");
	*out = m.bits;
	*rows = m.rows;
	*cols = m.cols;
	return status;
}

static int parse_size(const char *text, size_t *M, size_t *N, size_t *K)
{
	unsigned long m, n, k;
	char tail;
	if (sscanf(text, "%lux%lux%lu%c", &m, &n, &k, &tail) != 3 || !m || !n || !k || m > 1 << 16 || n > 1 << 16 ||
	    k > 1 << 20 || (unsigned long long)m * n * k > 1ull << 36) {
		cli_fail(cli_cmd_gemm.name, "bad --size '%s' (MxNxK, each at least 1, M and N up to 65536, K up to 1048576, MNK up to 2^36)",
			  text);
		return CLI_EXIT_USAGE;
	}
	*M = m;
	*N = n;
	*K = k;
	return 0;
}

static void print_report(const struct fpref_gemm_stats *st, const struct fpref_gemm_problem *p, bool json)
{
	struct fpref_gemm_summary s;
	fpref_golden_gemm_summarize(st, &s);
	if (json) {
		printf("{\"M\": %zu, \"N\": %zu, \"K\": %zu, \"in_a\": \"%s\", \"in_b\": \"%s\", \"out\": \"%s\", ", p->M, p->N,
		       p->K, p->in_a->name, p->in_b->name, p->out->name);
		printf("\"elements\": %zu, \"nonfinite\": %zu, \"max_abs\": %s, \"max_abs_over_mean_exact\": %s, "
		       "\"normwise_rel\": %s, \"max_rel\": %s, \"mean_rel\": %s, "
		       "\"max_ulps\": %s, \"mean_ulps\": %s, \"bound_max_rel\": %s, \"error_over_bound_max\": %s, "
		       "\"error_over_bound_mean\": %s, \"above_bound\": %zu, \"without_bound\": %zu}\n",
		       s.elements, s.nonfinite, cli_json_num(s.max_abs).text, cli_json_num(s.max_abs_over_mean_exact).text,
		       cli_json_num(s.normwise_rel).text, cli_json_num(s.max_rel).text, cli_json_num(s.mean_rel).text,
		       cli_json_num(s.max_ulps).text, cli_json_num(s.mean_ulps).text, cli_json_num(s.bound_max_rel).text,
		       cli_json_num(s.error_over_bound_max).text, cli_json_num(s.error_over_bound_mean).text, s.above_bound,
		       s.without_bound);
		return;
	}
	fpref_golden_gemm_errors_print(stdout, "error against the exact product, per element", &s);
	if (s.without_bound)
		printf("no a priori bound for %zu elements (exact model, Kahan, --source-format, inputs the accumulator does not "
		       "hold, possible overflow, NaN/inf, or a model path without one)\n", s.without_bound);
}

/* The matrices: A, B (source values), Aq, Bq (quantised to --in-format: the same
 * arrays when there is no --source-format), C (or NULL), D. */
struct matrices {
	size_t M, N, K;
	uint64_t *A, *B, *Aq, *Bq, *C, *D;
	size_t inexact, quantized;
	bool generated; /* drawn from a seed: inexact counts the draws rounded to their format */
	char source[512];
};

static void matrices_free(struct matrices *x)
{
	if (x->Aq != x->A)
		free(x->Aq);
	if (x->Bq != x->B)
		free(x->Bq);
	free(x->A);
	free(x->B);
	free(x->C);
	free(x->D);
}

/* A and B as read (src_a, src_b: their formats; with --source-format both the
 * source format, its values rounded to it and counted in x->inexact),
 * C in out. */
static int load_inputs(const struct gemm_args *g, const struct fpref_format *src_a, const struct fpref_format *src_b,
		       const struct fpref_format *out, struct matrices *x)
{
	if (g->a) {
		size_t rows, cols;
		size_t *rounded = g->source ? &x->inexact : NULL;
		int status = load_matrix(g->a, "A", src_a, 0, &x->M, &x->K, &x->A, rounded);
		if (!status)
			status = load_matrix(g->b, "B", src_b, x->K, &rows, &x->N, &x->B, rounded);
		if (!status && g->c) {
			status = load_matrix(g->c, "C", out, x->M, &rows, &cols, &x->C, NULL);
			if (!status && cols != x->N) {
				cli_fail(cli_cmd_gemm.name, "%s: C must be %zu x %zu", g->c, x->M, x->N);
				status = CLI_EXIT_USAGE;
			}
		}
		snprintf(x->source, sizeof x->source, "A %s, B %s%s%s", g->a, g->b, g->c ? ", C " : "", g->c ? g->c : "");
		return status;
	}
	enum fpref_dist dist = FPREF_DIST_NORMAL;
	char *end = NULL;
	unsigned long long seed = 1;
	long scale = 0;
	if (parse_size(g->size, &x->M, &x->N, &x->K))
		return CLI_EXIT_USAGE;
	if (g->dist && fpref_emu_dist_parse(g->dist, &dist) != 0) {
		cli_fail(cli_cmd_gemm.name, "bad --dist '%s' (normal, uniform or positive)", g->dist);
		return CLI_EXIT_USAGE;
	}
	if (g->seed && (seed = strtoull(g->seed, &end, 10), !*g->seed || *end || *g->seed == '-')) {
		cli_fail(cli_cmd_gemm.name, "bad --seed '%s' (an unsigned integer)", g->seed);
		return CLI_EXIT_USAGE;
	}
	if (g->scale && (scale = strtol(g->scale, &end, 10), !*g->scale || *end || scale < -200 || scale > 200)) {
		cli_fail(cli_cmd_gemm.name, "bad --scale-log2 '%s' (an integer -200..200)", g->scale);
		return CLI_EXIT_USAGE;
	}
	x->A = malloc(x->M * x->K * sizeof *x->A);
	x->B = malloc(x->K * x->N * sizeof *x->B);
	if (!x->A || !x->B)
		return out_of_memory();
	struct fpref_env rne;
	fpref_env_default(&rne);
	x->generated = true;
	x->inexact += fpref_emu_random(src_a, &rne, dist, (int)scale, seed, 0, x->M * x->K, x->A);
	x->inexact += fpref_emu_random(src_b, &rne, dist, (int)scale, seed, x->M * x->K, x->K * x->N, x->B);
	snprintf(x->source, sizeof x->source, "%s x 2^%ld, seed %llu (A first, then B, row-major)",
		 fpref_emu_dist_name(dist), scale, seed);
	return 0;
}

/* The model's inputs: the source values quantised to in_a and in_b (an
 * operand whose source format is its input format is not copied). */
static int quantize_inputs(const struct fpref_format *src, const struct fpref_format *in_a,
			   const struct fpref_format *in_b, const struct fpref_env *quantize, struct matrices *x)
{
	size_t na = x->M * x->K, nb = x->K * x->N;
	x->Aq = x->A;
	x->Bq = x->B;
	if (!fpref_format_same(src, in_a)) {
		if (!(x->Aq = malloc(na * sizeof *x->Aq)))
			return out_of_memory();
		memcpy(x->Aq, x->A, na * sizeof *x->Aq);
		x->quantized += cli_convert_values(src, x->Aq, na, in_a, quantize);
	}
	if (!fpref_format_same(src, in_b)) {
		if (!(x->Bq = malloc(nb * sizeof *x->Bq)))
			return out_of_memory();
		memcpy(x->Bq, x->B, nb * sizeof *x->Bq);
		x->quantized += cli_convert_values(src, x->Bq, nb, in_b, quantize);
	}
	return 0;
}

static int save(const char *path, const struct fpref_format *f, const uint64_t *bits, size_t rows, size_t cols)
{
	size_t shape[2] = { rows, cols };
	return cli_save_patterns(cli_cmd_gemm.name, path, f, bits, shape, 2);
}

int cmd_gemm(int argc, char **argv)
{
	struct gemm_args g = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_gemm, argc, argv, &o, &g);
	if (r)
		return r;
	struct cli_model_text text = o.model;
	struct fpref_format in_a, in_b, out, src;
	if (cli_parse_operands(cli_cmd_gemm.name, g.in, g.in_a, g.in_b, &in_a, &in_b) != 0)
		return CLI_EXIT_USAGE;
	if (!g.a != !g.b || (g.a && (g.size || g.dist || g.seed || g.scale)) || (!g.a && !g.size) || (g.c && !g.a)) {
		cli_fail(cli_cmd_gemm.name, "takes either --a A.npy --b B.npy [--c C.npy], or --size MxNxK [--dist normal|uniform|positive] "
			  "[--seed N] [--scale-log2 P]");
		return CLI_EXIT_USAGE;
	}
	struct fpref_accum_model m;
	if (cli_parse_format(cli_cmd_gemm.name, g.out ? g.out : "float32", &out) != 0 ||
	    (g.source && cli_parse_format(cli_cmd_gemm.name, g.source, &src) != 0) ||
	    cli_model_resolve(cli_cmd_gemm.name, &text, &in_a, &in_b, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	/* without --source-format each operand is read in its own input format */
	const struct fpref_format *src_a = g.source ? &src : &in_a, *src_b = g.source ? &src : &in_b;
	bool measure = !g.report || strcmp(g.report, "errors") == 0;
	if (g.report && !measure && strcmp(g.report, "none") != 0) {
		cli_fail(cli_cmd_gemm.name, "bad --report '%s' (errors or none)", g.report);
		return CLI_EXIT_USAGE;
	}
	if (g.svg && !measure) {
		cli_fail(cli_cmd_gemm.name, "--svg draws the errors: it cannot go with --report none");
		return CLI_EXIT_USAGE;
	}
	if (g.quantize && !g.source) {
		cli_fail(cli_cmd_gemm.name, "--quantize rounds --source-format values to --in-format: it needs --source-format");
		return CLI_EXIT_USAGE;
	}
	struct fpref_env quantize;
	fpref_env_default(&quantize);
	if (g.quantize && (fpref_rounding_parse(g.quantize, &quantize.rounding) != 0 || quantize.rounding == FPREF_SR)) {
		cli_fail(cli_cmd_gemm.name, "bad --quantize '%s' (rne, rna, rtz, rup, rdn or rod)", g.quantize);
		return CLI_EXIT_USAGE;
	}
	unsigned threads;
	if (cli_parse_threads(cli_cmd_gemm.name, g.threads, &threads) != 0)
		return CLI_EXIT_USAGE;
	if (g.source && (o.gemm_scales.a || o.gemm_scales.b)) {
		cli_fail(cli_cmd_gemm.name, "--source-format with block scales is not modelled: give A and B in --in-format, with their "
					    "scales");
		return CLI_EXIT_USAGE;
	}
	struct cli_gemm_scales sc;
	if ((r = cli_gemm_scales_check(cli_cmd_gemm.name, &o.gemm_scales, &m, &in_a, &in_b, &out, &sc)) != 0)
		return r;
	o.env = cli_target_env(&o, &out);
	struct matrices x = { 0 };
	struct fpref_gemm_stats s = { 0 };
	int status = g.save ? cli_check_writable(cli_cmd_gemm.name, g.save) : 0;
	if (!status && g.save_a)
		status = cli_check_writable(cli_cmd_gemm.name, g.save_a);
	if (!status && g.save_b)
		status = cli_check_writable(cli_cmd_gemm.name, g.save_b);
	if (!status)
		status = load_inputs(&g, src_a, src_b, &out, &x);
	if (!status && sc.wanted)
		status = cli_gemm_scales_load(cli_cmd_gemm.name, &o.gemm_scales, x.M, x.K, x.N, &sc);
	if (!status && g.source)
		status = quantize_inputs(&src, &in_a, &in_b, &quantize, &x);
	else if (!status) { /* read in their own formats: the model's inputs as they are */
		x.Aq = x.A;
		x.Bq = x.B;
	}
	if (!status && !o.json) {
		char desc[256];
		printf("gemm %zux%zux%zu (MxNxK), A: %s, B: %s -> %s\n", x.M, x.N, x.K, in_a.name, in_b.name, out.name);
		printf("model: %s\n", fpref_golden_model_describe(&m, out.name, desc, sizeof desc));
		char drawn[160];
		if (fpref_format_same(src_a, src_b))
			snprintf(drawn, sizeof drawn, "%s", src_a->name);
		else
			snprintf(drawn, sizeof drawn, "A's %s, B's %s", src_a->name, src_b->name);
		if (x.generated)
			printf("inputs: %s; %zu rounded to %s (nearest even)\n", x.source, x.inexact, drawn);
		else if (g.source)
			printf("inputs: %s, read as %s values; %zu rounded to %s (nearest even)\n", x.source, src.name,
			       x.inexact, src.name);
		else
			printf("inputs: %s; A read as %s, B as %s (values held exactly, or bit patterns)\n", x.source,
			       in_a.name, in_b.name);
		if (x.Aq != x.A || x.Bq != x.B)
			printf("quantised to A: %s, B: %s (%s): %zu of %zu changed; errors are against the exact product of the "
			       "%s values, so no model bound applies\n", in_a.name, in_b.name,
			       fpref_rounding_name(quantize.rounding), x.quantized, x.M * x.K + x.K * x.N, src.name);
		if (sc.wanted)
			printf("block scales: A %s, B %s (%s, one pair per %zu products; errors and bounds of the scaled "
			       "product)\n", o.gemm_scales.a ? o.gemm_scales.a : "ones", o.gemm_scales.b ? o.gemm_scales.b : "ones",
			       sc.format.name, sc.every);
	}
	if (!status) {
		struct fpref_tc_gemm_scales scales = cli_gemm_scales_view(&sc);
		struct fpref_gemm_problem p = { .M = x.M, .N = x.N, .K = x.K, .src = g.source ? &src : &in_a, .in_a = &in_a,
						.in_b = &in_b, .out = &out, .A = x.A, .B = x.B, .Aq = x.Aq, .Bq = x.Bq,
						.C = x.C, .model = &m, .env = &o.env, .threads = threads,
						.scales = sc.wanted ? &scales : NULL };
		x.D = malloc(x.M * x.N * sizeof *x.D);
		struct cli_progress_timed pr = { { "gemm: row", g.progress || (measure && x.M * x.N * x.K > 1 << 22), false }, g.progress, 0, 0, 0 };
		if (!x.D)
			status = out_of_memory();
		else if (fpref_golden_gemm(&p, x.D, measure ? &s : NULL, cli_progress_timed, &pr) != 0) {
			cli_fail(cli_cmd_gemm.name, "the model cannot compute these inputs");
			status = CLI_EXIT_USAGE;
		}
		cli_progress_done(&pr.base);
		if (!status && measure)
			print_report(&s, &p, o.json);
	}
	if (!status && g.svg) {
		char title[320], inputs[140];
		if (fpref_format_same(&in_a, &in_b))
			snprintf(inputs, sizeof inputs, "%s inputs", in_a.name);
		else
			snprintf(inputs, sizeof inputs, "A: %s, B: %s", in_a.name, in_b.name);
		snprintf(title, sizeof title, "gemm %zux%zux%zu, %s, %s: errors against the exact product", x.M, x.N, x.K,
			 inputs, text.model ? text.model : "model");
		status = draw_gemm(cli_cmd_gemm.name, g.svg, title, &s);
	}
	if (!status && g.save)
		status = save(g.save, &out, x.D, x.M, x.N);
	if (!status && g.save_a)
		status = save(g.save_a, &in_a, x.Aq, x.M, x.K);
	if (!status && g.save_b)
		status = save(g.save_b, &in_b, x.Bq, x.K, x.N);
	if (!status && s.above_bound) {
		cli_fail(cli_cmd_gemm.name, "%zu elements exceed their a priori bound: a defect in fpref; please report it", s.above_bound);
		status = CLI_EXIT_FAIL;
	}
	matrices_free(&x);
	cli_gemm_scales_free(&sc);
	return status;
}
