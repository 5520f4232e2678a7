/* fpref verify-gemm: a kernel's D = A B + C judged element by element
 * against an accumulation model's, with both against the exact product
 * and the model's bound.  Exit 0 when every element passes, 1 when some
 * do not, 2 for bad input (as fpref verify). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct vg_args {
	const char *a, *b, *c, *d, *in, *out, *tolerance, *show, *in_a, *in_b, *threads;
	bool diagnose, progress;
};

#define V(f) offsetof(struct vg_args, f)

static const struct cli_opt vg_opts[] = {
	{ "--a", CLI_VALUE, "A.npy", NULL, "A (M x K): bit patterns of --in-format (--a-format), or float16/32/64 values it holds exactly "
	  "(others are refused)", V(a), 0 },
	{ "--b", CLI_VALUE, "B.npy", NULL, "B (K x N), as A in --in-format (--b-format)", V(b), 0 },
	{ "--c", CLI_VALUE, "C.npy", NULL, "C (M x N) in --out-format (default: zero)", V(c), 0 },
	{ "--d", CLI_VALUE, "D.npy", NULL, "the kernel's D (M x N) in --out-format", V(d), 0 },
	{ "--in-format", CLI_VALUE, "FMT", NULL, "the format of A and B", V(in), 0 },
	{ "--a-format", CLI_VALUE, "FMT", NULL, "the format of A, with --b-format (instead of --in-format)", V(in_a), 0 },
	{ "--b-format", CLI_VALUE, "FMT", NULL, "the format of B, with --a-format", V(in_b), 0 },
	{ "--out-format", CLI_VALUE, "FMT", NULL, "the format of C and D", V(out), 0 },
	{ "--tolerance", CLI_VALUE, "Nulp|Xrel", "none (bit for bit)",
	  "an element passes within N ulps or a relative X of the model's", V(tolerance), 0 },
	{ "--show", CLI_VALUE, "N", "10", "how many of the largest differences to list", V(show), 0 },
	{ "--diagnose", CLI_FLAG, NULL, NULL, "re-run variants of the model (fraction bits, block, rounding, promotion, C "
	  "last, other rows) on a sample of the elements and name those that give the kernel's D (docs/diagnose.md)",
	  V(diagnose), 0 },
	{ "--threads", CLI_VALUE, "N", "all cores", "threads computing the model's D and the report (the same report on any "
	  "number)", V(threads), 0 },
	{ "--progress", CLI_FLAG, NULL, NULL, "rows done and the time left on stderr (default: on a terminal, for long runs)",
	  V(progress), 0 },
};

/* --diagnose in JSON: the model's variants that fit the sampled elements, best first. */
static void put_diagnosis_json(const struct fpref_gemm_diagnosis *dg)
{
	size_t all = dg->sampled_mismatches + dg->sampled_matches;
	printf("\"diagnosis\": {\"sampled_mismatches\": %zu, \"sampled_matches\": %zu, \"candidates\": [",
	       dg->sampled_mismatches, dg->sampled_matches);
	for (size_t i = 0; i < dg->nrows; i++) {
		printf("%s{\"what\": ", i ? ", " : "");
		cli_json_string(dg->rows[i].what);
		printf(", \"explains\": %zu, \"keeps\": %zu, \"fits\": %s}", dg->rows[i].explains, dg->rows[i].keeps,
		       dg->rows[i].explains + dg->rows[i].keeps == all ? "true" : "false");
	}
	printf("]}, ");
}

const struct cli_command cli_cmd_verify_gemm = {
	.name = "verify-gemm",
	.synopsis = "--a A.npy --b B.npy [--c C.npy] --d D.npy --model MODEL (--in-format FMT | --a-format FMT --b-format FMT)\n"
		    "       --out-format FMT [MODEL OPTIONS] [ENV] [--tolerance Nulp|Xrel] [--show N] [--diagnose] [--json]\n"
		    "       [--threads N] [--progress]\n"
		    "       [--scale-a SA.npy] [--scale-b SB.npy] [--scale-every E] [--scale-format FMT]",
	.summary = "Judge a kernel's D = A B + C element by element against an accumulation model's D, with\n"
		   "both against the exact product and the model's bound (exit 0 pass, 1 fail, 2 bad input).",
	.groups = CLI_ENV | CLI_JSON | CLI_MODEL | CLI_GEMM_SCALES,
	.opts = vg_opts,
	.nopts = CLI_NOPTS(vg_opts),
	.max_positional = 0,
	.examples = { "fpref verify-gemm --a A.npy --b B.npy --d D.npy --model recursive --in-format bf16 --out-format f32 --tolerance 2ulp --json",
		      "fpref verify-gemm --a A.npy --b B.npy --d D.npy --model tcgen05-mxf8f6f4 --in-format e4m3 --out-format f32 --scale-a SA.npy "
		      "--scale-b SB.npy" },
	.run = cmd_verify_gemm,
};

static int load(const char *path, const char *what, const struct fpref_format *f, size_t rows, size_t cols,
		uint64_t **out, size_t *rows_got, size_t *cols_got)
{
	struct cli_matrix m;
	int status = cli_load_matrix(cli_cmd_verify_gemm.name, path, what, f, rows, cols, &m, NULL, NULL);
	*out = m.bits;
	*rows_got = m.rows;
	*cols_got = m.cols;
	return status;
}

static void put_case_json(const struct fpref_format *out, const struct fpref_gemm_case *c)
{
	char m[32], k[32];
	cli_hex(out, c->model, m, sizeof m);
	cli_hex(out, c->kernel, k, sizeof k);
	printf("{\"row\": %zu, \"col\": %zu, \"model\": \"%s\", \"kernel\": \"%s\", \"kind\": \"%s\", \"ulps\": %s, "
	       "\"kernel_error\": %s, \"model_error\": %s, \"bound\": %s}",
	       c->row, c->col, m, k, fpref_golden_mismatch_name(c->kind), cli_json_num(c->ulps).text,
	       cli_json_num(c->kernel_abs).text, cli_json_num(c->model_abs).text, cli_json_num(c->bound).text);
}

static void put_summary_json(const char *name, const struct fpref_gemm_stats *st)
{
	struct fpref_gemm_summary s;
	fpref_golden_gemm_summarize(st, &s);
	printf("\"%s\": {\"max_abs\": %s, \"normwise_rel\": %s, \"max_rel\": %s, \"max_ulps\": %s, \"mean_ulps\": %s, "
	       "\"error_over_bound_max\": %s, \"above_bound\": %zu, \"with_bound\": %zu, \"nonfinite\": %zu}",
	       name, cli_json_num(s.max_abs).text, cli_json_num(s.normwise_rel).text, cli_json_num(s.max_rel).text,
	       cli_json_num(s.max_ulps).text, cli_json_num(s.mean_ulps).text, cli_json_num(s.error_over_bound_max).text,
	       s.above_bound, s.with_bound, s.nonfinite);
}

static void report(const struct fpref_gemm_problem *p, const struct fpref_gemm_verdict *v, const char *model_text,
		   const struct cli_gemm_scale_text *st, bool json, const struct fpref_gemm_diagnosis *dg)
{
	const struct fpref_tc_gemm_scales *sc = p->scales;
	if (json) {
		printf("{\"M\": %zu, \"N\": %zu, \"K\": %zu, \"in\": ", p->M, p->N, p->K);
		if (fpref_format_same(p->in_a, p->in_b)) /* the one format of A and B; null when they differ */
			printf("\"%s\"", p->in_a->name);
		else
			printf("null");
		printf(", \"in_a\": \"%s\", \"in_b\": \"%s\", \"out\": \"%s\", \"model\": ", p->in_a->name, p->in_b->name,
		       p->out->name);
		cli_json_string(model_text);
		if (sc) {
			printf(", \"block_scales\": {\"format\": \"%s\", \"every\": %zu, \"a\": ", sc->format->name, sc->every);
			cli_json_string(st->a ? st->a : "ones");
			printf(", \"b\": ");
			cli_json_string(st->b ? st->b : "ones");
			printf("}");
		}
		printf(", \"elements\": %zu, \"matches\": %zu, \"within\": %zu, \"outside\": %zu, \"mismatches\": {",
		       v->elements, v->matches, v->within, v->outside);
		bool first = true;
		for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
			if (v->by_kind[k]) {
				printf("%s\"%s\": %zu", first ? "" : ", ", fpref_golden_mismatch_name((enum fpref_mismatch)k),
				       v->by_kind[k]);
				first = false;
			}
		printf("}, \"kernel_above_bound\": %zu, ", v->kernel_above_bound);
		put_summary_json("model_error", &v->model_error);
		printf(", ");
		put_summary_json("kernel_error", &v->kernel_error);
		printf(", \"worst\": [");
		for (size_t i = 0; i < v->nworst; i++) {
			printf(i ? ", " : "");
			put_case_json(p->out, &v->worst[i]);
		}
		printf("], ");
		if (dg)
			put_diagnosis_json(dg);
		printf("\"pass\": %s}\n", v->outside ? "false" : "true");
		return;
	}
	fpref_golden_gemm_verdict_print(stdout, p, v, model_text, st->a, st->b, dg);
}

int cmd_verify_gemm(int argc, char **argv)
{
	struct vg_args g = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_verify_gemm, argc, argv, &o, &g);
	if (r)
		return r;
	struct cli_model_text text = o.model;
	if (!g.a || !g.b || !g.d || (!g.in && !g.in_a && !g.in_b) || !g.out) {
		cli_fail(cli_cmd_verify_gemm.name, "needs --a A.npy --b B.npy --d D.npy --model MODEL --in-format FMT (or --a-format FMT "
			  "--b-format FMT) --out-format FMT ([--c C.npy] [--promote N] [--tolerance N ulp|X rel] [--show N] [--json])");
		return CLI_EXIT_USAGE;
	}
	struct fpref_verify_options vo = { -1, -1, 10, NULL, NULL };
	if (g.tolerance && cli_parse_tolerance(cli_cmd_verify_gemm.name, g.tolerance, &vo) != 0)
		return CLI_EXIT_USAGE;
	if (g.show) {
		char *end;
		unsigned long n = strtoul(g.show, &end, 10);
		if (!*g.show || *end || *g.show == '-' || n > 100000) {
			cli_fail(cli_cmd_verify_gemm.name, "bad --show '%s' (a count 0..100000)", g.show);
			return CLI_EXIT_USAGE;
		}
		vo.show = n;
	}
	struct fpref_format in_a, in_b, out;
	struct fpref_accum_model m;
	if (cli_parse_operands(cli_cmd_verify_gemm.name, g.in, g.in_a, g.in_b, &in_a, &in_b) != 0 ||
	    cli_parse_format(cli_cmd_verify_gemm.name, g.out, &out) != 0 ||
	    cli_model_resolve(cli_cmd_verify_gemm.name, &text, &in_a, &in_b, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	unsigned threads;
	if (cli_parse_threads(cli_cmd_verify_gemm.name, g.threads, &threads) != 0)
		return CLI_EXIT_USAGE;
	struct cli_gemm_scales sc;
	if ((r = cli_gemm_scales_check(cli_cmd_verify_gemm.name, &o.gemm_scales, &m, &in_a, &in_b, &out, &sc)) != 0)
		return r;
	o.env = cli_target_env(&o, &out);
	uint64_t *A = NULL, *B = NULL, *C = NULL, *D = NULL;
	size_t M = 0, K = 0, N = 0, rows, cols;
	int status = load(g.a, "A", &in_a, 0, 0, &A, &M, &K);
	if (!status)
		status = load(g.b, "B", &in_b, K, 0, &B, &rows, &N);
	if (!status && g.c)
		status = load(g.c, "C", &out, M, N, &C, &rows, &cols);
	if (!status)
		status = load(g.d, "D", &out, M, N, &D, &rows, &cols);
	if (!status && sc.wanted)
		status = cli_gemm_scales_load(cli_cmd_verify_gemm.name, &o.gemm_scales, M, K, N, &sc);
	if (!status) {
		struct fpref_tc_gemm_scales scales = cli_gemm_scales_view(&sc);
		struct fpref_gemm_problem p = { .M = M, .N = N, .K = K, .src = &in_a, .in_a = &in_a, .in_b = &in_b,
						.out = &out, .A = A, .B = B, .Aq = A, .Bq = B, .C = C, .model = &m,
						.env = &o.env, .threads = threads, .scales = sc.wanted ? &scales : NULL };
		struct fpref_gemm_verdict v;
		struct cli_progress_timed pr = { { "verify-gemm: row", g.progress || M * N * K > 1 << 22, false }, g.progress, 0, 0, 0 };
		char err[512], desc[256];
		if (fpref_golden_gemm_verify(&p, D, &vo, &v, cli_progress_timed, &pr, err, sizeof err) != 0) {
			cli_progress_done(&pr.base);
			cli_fail(cli_cmd_verify_gemm.name, "%s", err);
			status = CLI_EXIT_USAGE;
		} else {
			cli_progress_done(&pr.base);
			struct fpref_gemm_diagnosis dg = { 0 };
			if (g.diagnose && fpref_golden_gemm_diagnose(&p, D, 64, &dg, err, sizeof err) != 0) {
				cli_fail(cli_cmd_verify_gemm.name, "%s", err);
				fpref_golden_gemm_verdict_free(&v);
				status = CLI_EXIT_USAGE;
				goto out;
			}
			report(&p, &v, fpref_golden_model_describe(&m, out.name, desc, sizeof desc), &o.gemm_scales, o.json,
			       g.diagnose ? &dg : NULL);
			fpref_golden_gemm_diagnosis_free(&dg);
			status = v.outside ? CLI_EXIT_FAIL : CLI_EXIT_OK;
			fpref_golden_gemm_verdict_free(&v);
		}
	}
out:
	free(A);
	free(B);
	free(C);
	free(D);
	cli_gemm_scales_free(&sc);
	return status;
}
