/* fpref gemm: D = A B + C through an accumulation model, with the error of
 * every element against the exact product and its a priori bound.  A, B
 * and C come from .npy files or are generated from a seed.  With --report
 * none (a caller that wants D alone, as in --save) neither the exact
 * products nor the bounds are computed: they cost far more than D. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct gemm_args {
	const char *in, *out, *a, *b, *c, *size, *dist, *seed, *scale, *save, *source, *quantize, *report;
};

static int take_args(int argc, char **argv, struct gemm_args *g, char **rest, int *nrest)
{
	static const char *const names[] = { "--in",   "--out",  "--a",          "--b",    "--c",      "--size",
					     "--dist", "--seed", "--scale-log2", "--save", "--source", "--quantize",
					     "--report" };
	const char **slots[] = { &g->in,   &g->out,  &g->a,     &g->b,    &g->c,      &g->size,
				 &g->dist, &g->seed, &g->scale, &g->save, &g->source, &g->quantize,
				 &g->report };
	return cli_take_options(argc, argv, names, slots, sizeof names / sizeof names[0], rest, nrest);
}

static int out_of_memory(void)
{
	cli_error("out of memory");
	return CLI_EXIT_FAIL;
}

/* An .npy matrix as patterns of f: floating-point items (f2, f4, f8) are
 * rounded to f (nearest even), unsigned or void items of f's width are
 * taken as its bit patterns. */
static int load_matrix(const char *path, const char *what, const struct fpref_format *f, size_t rows_want,
		       size_t *rows, size_t *cols, uint64_t **out, size_t *inexact)
{
	struct fpref_npy a;
	char err[512];
	if (fpref_npy_read(path, &a, err, sizeof err) != 0) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	int status = 0;
	struct fpref_format from;
	bool values = a.kind == 'f' && (a.item_bytes == 2 || a.item_bytes == 4 || a.item_bytes == 8);
	bool patterns = (a.kind == 'u' || a.kind == 'V') && a.item_bytes == fpref_emu_element_bytes(f);
	if (a.ndim != 2 || (rows_want && a.shape[0] != rows_want)) {
		cli_error("%s: %s must be a 2-D array%s", path, what, rows_want ? " with matching dimensions" : "");
		status = CLI_EXIT_USAGE;
	} else if (a.count == 0) { /* an empty product has no error to report */
		cli_error("%s: %s is empty (%zu x %zu); gemm needs at least one element", path, what, a.shape[0], a.shape[1]);
		status = CLI_EXIT_USAGE;
	} else if (!values && !patterns) {
		cli_error("%s: items of kind '%c' and %zu bytes: expected float16/32/64 values, or %zu-byte bit patterns "
			  "of %s", path, a.kind, a.item_bytes, fpref_emu_element_bytes(f), f->name);
		status = CLI_EXIT_USAGE;
	}
	if (!status && values)
		cli_parse_format(a.item_bytes == 2 ? "float16" : a.item_bytes == 4 ? "float32" : "float64", &from);
	*rows = a.shape[0];
	*cols = a.ndim == 2 ? a.shape[1] : 0;
	*out = status ? NULL : malloc((a.count ? a.count : 1) * sizeof **out);
	if (!status && !*out)
		status = out_of_memory();
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t i = 0; i < a.count && !status; i++) {
		uint64_t item = 0;
		memcpy(&item, (unsigned char *)a.data + i * a.item_bytes, a.item_bytes); /* little-endian host */
		unsigned flags = 0;
		if (values) {
			fpref_emu_convert(&from, item, f, &env, 0, &(*out)[i], &flags);
			*inexact += (flags & FPREF_FLAG_INEXACT) != 0;
		} else {
			struct fpref_unpacked u;
			(*out)[i] = item;
			if (fpref_decode(f, item, &u) == FPREF_DECODE_INVALID) {
				cli_error("%s: element %zu (0x%llx) is not a pattern of %s", path, i, (unsigned long long)item,
					  f->name);
				status = CLI_EXIT_USAGE;
			}
		}
	}
	if (status) {
		free(*out);
		*out = NULL;
	}
	fpref_npy_free(&a);
	return status;
}

static int parse_size(const char *text, size_t *M, size_t *N, size_t *K)
{
	unsigned long m, n, k;
	char tail;
	if (sscanf(text, "%lux%lux%lu%c", &m, &n, &k, &tail) != 3 || !m || !n || !k || m > 1 << 16 || n > 1 << 16 ||
	    k > 1 << 20 || (unsigned long long)m * n * k > 1ull << 36) {
		cli_error("bad --size '%s' (MxNxK, each at least 1, M and N up to 65536, K up to 1048576, MNK up to 2^36)",
			  text);
		return CLI_EXIT_USAGE;
	}
	*M = m;
	*N = n;
	*K = k;
	return 0;
}

struct stats {
	size_t count, nonfinite, above_bound, no_bound;
	double max_abs, max_rel, sum_rel, max_ulps, sum_ulps, max_bound_rel, max_ratio, sum_ratio;
	double sum_abs_exact, sum_sq_err, sum_sq_exact; /* PyTorch's protocol and the Frobenius norms */
	size_t ratio_count;
};

static void print_report(const struct stats *s, bool json)
{
	double n = s->count > s->nonfinite ? (double)(s->count - s->nonfinite) : 1;
	if (json) {
		printf("{\"elements\": %zu, \"nonfinite\": %zu, \"max_abs\": %s, \"max_abs_over_mean_exact\": %s, "
		       "\"normwise_rel\": %s, \"max_rel\": %s, \"mean_rel\": %s, "
		       "\"max_ulps\": %s, \"mean_ulps\": %s, \"bound_max_rel\": %s, \"error_over_bound_max\": %s, "
		       "\"error_over_bound_mean\": %s, \"above_bound\": %zu, \"without_bound\": %zu}\n",
		       s->count, s->nonfinite, cli_json_num(s->max_abs).text,
		       cli_json_num(s->max_abs / (s->sum_abs_exact / n)).text,
		       cli_json_num(sqrt(s->sum_sq_err / s->sum_sq_exact)).text, cli_json_num(s->max_rel).text,
		       cli_json_num(s->sum_rel / n).text, cli_json_num(s->max_ulps).text, cli_json_num(s->sum_ulps / n).text,
		       cli_json_num(s->max_bound_rel).text, cli_json_num(s->max_ratio).text,
		       cli_json_num(s->ratio_count ? s->sum_ratio / (double)s->ratio_count : 0).text, s->above_bound,
		       s->no_bound);
		return;
	}
	printf("error against the exact product, per element (%zu elements", s->count);
	if (s->nonfinite)
		printf(", %zu not finite and left out", s->nonfinite);
	printf("):\n");
	printf("  absolute        max %s   max / mean |exact| %s (PyTorch's TF32 protocol)\n", cli_text_num(s->max_abs, 6).text,
	       cli_text_num(s->max_abs / (s->sum_abs_exact / n), 6).text);
	printf("  normwise        ||D - exact||_F / ||exact||_F %s\n", cli_text_num(sqrt(s->sum_sq_err / s->sum_sq_exact), 6).text);
	printf("  relative        max %s   mean %s\n", cli_text_num(s->max_rel, 6).text, cli_text_num(s->sum_rel / n, 6).text);
	printf("  ulps of output  max %s   mean %s\n", cli_text_num(s->max_ulps, 6).text, cli_text_num(s->sum_ulps / n, 6).text);
	if (s->ratio_count || s->above_bound)
		printf("a priori bound:   max bound/|exact| %s; error/bound max %s, mean %s; above the bound: %zu\n",
		       cli_text_num(s->max_bound_rel, 6).text, cli_text_num(s->max_ratio, 4).text,
		       cli_text_num(s->sum_ratio / (double)(s->ratio_count ? s->ratio_count : 1), 4).text, s->above_bound);
	if (s->no_bound)
		printf("no a priori bound for %zu elements (exact model, Kahan, --source, inputs the accumulator does not "
		       "hold, possible overflow, or NaN/inf)\n", s->no_bound);
}

/* The matrices: A, B (source values), Aq, Bq (quantised to --in: the same
 * arrays when there is no --source), C (or NULL), D. */
struct matrices {
	size_t M, N, K;
	uint64_t *A, *B, *Aq, *Bq, *C, *D;
	size_t inexact, quantized;
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

static int load_inputs(const struct gemm_args *g, const struct fpref_format *src, const struct fpref_format *out,
		       struct matrices *x)
{
	if (g->a) {
		size_t rows, cols;
		int status = load_matrix(g->a, "A", src, 0, &x->M, &x->K, &x->A, &x->inexact);
		if (!status)
			status = load_matrix(g->b, "B", src, x->K, &rows, &x->N, &x->B, &x->inexact);
		if (!status && g->c) {
			status = load_matrix(g->c, "C", out, x->M, &rows, &cols, &x->C, &x->inexact);
			if (!status && cols != x->N) {
				cli_error("%s: C must be %zu x %zu", g->c, x->M, x->N);
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
		cli_error("bad --dist '%s' (normal, uniform or positive)", g->dist);
		return CLI_EXIT_USAGE;
	}
	if (g->seed && (seed = strtoull(g->seed, &end, 10), !*g->seed || *end || *g->seed == '-')) {
		cli_error("bad --seed '%s' (an unsigned integer)", g->seed);
		return CLI_EXIT_USAGE;
	}
	if (g->scale && (scale = strtol(g->scale, &end, 10), !*g->scale || *end || scale < -200 || scale > 200)) {
		cli_error("bad --scale-log2 '%s' (an integer -200..200)", g->scale);
		return CLI_EXIT_USAGE;
	}
	x->A = malloc(x->M * x->K * sizeof *x->A);
	x->B = malloc(x->K * x->N * sizeof *x->B);
	if (!x->A || !x->B)
		return out_of_memory();
	struct fpref_env rne;
	fpref_env_default(&rne);
	x->inexact += fpref_emu_random(src, &rne, dist, (int)scale, seed, 0, x->M * x->K, x->A);
	x->inexact += fpref_emu_random(src, &rne, dist, (int)scale, seed, x->M * x->K, x->K * x->N, x->B);
	snprintf(x->source, sizeof x->source, "%s x 2^%ld, seed %llu (A first, then B, row-major)",
		 fpref_emu_dist_name(dist), scale, seed);
	return 0;
}

/* The model's inputs: the source values quantised to in. */
static int quantize_inputs(const struct fpref_format *src, const struct fpref_format *in,
			   const struct fpref_env *quantize, struct matrices *x)
{
	if (strcmp(src->name, in->name) == 0) {
		x->Aq = x->A;
		x->Bq = x->B;
		return 0;
	}
	size_t na = x->M * x->K, nb = x->K * x->N;
	x->Aq = malloc(na * sizeof *x->Aq);
	x->Bq = malloc(nb * sizeof *x->Bq);
	if (!x->Aq || !x->Bq)
		return out_of_memory();
	for (size_t i = 0; i < na + nb; i++) {
		unsigned flags = 0;
		if (i < na)
			fpref_emu_convert(src, x->A[i], in, quantize, 0, &x->Aq[i], &flags);
		else
			fpref_emu_convert(src, x->B[i - na], in, quantize, 0, &x->Bq[i - na], &flags);
		x->quantized += (flags & FPREF_FLAG_INEXACT) != 0;
	}
	return 0;
}

static void add_element(struct stats *s, const struct fpref_format *out, uint64_t d, mpfr_srcptr exact,
			mpfr_srcptr bound, mpfr_ptr t)
{
	double abs_err, rel_err, ulps;
	s->count++;
	if (fpref_ref_error(out, d, exact, &abs_err, &rel_err, &ulps) != 0) {
		s->nonfinite++;
		return;
	}
	double x = fabs(mpfr_get_d(exact, MPFR_RNDN));
	s->max_abs = abs_err > s->max_abs ? abs_err : s->max_abs;
	s->sum_abs_exact += x;
	s->sum_sq_exact += x * x;
	s->sum_sq_err += abs_err * abs_err;
	s->max_rel = rel_err > s->max_rel ? rel_err : s->max_rel;
	s->sum_rel += rel_err;
	s->max_ulps = ulps > s->max_ulps ? ulps : s->max_ulps;
	s->sum_ulps += ulps;
	if (!mpfr_number_p(bound)) {
		s->no_bound++;
		return;
	}
	double bound_d = mpfr_get_d(bound, MPFR_RNDU);
	if (abs_err > bound_d)
		s->above_bound++;
	if (!mpfr_zero_p(exact)) {
		mpfr_div(t, bound, exact, MPFR_RNDU);
		double br = fabs(mpfr_get_d(t, MPFR_RNDU));
		s->max_bound_rel = br > s->max_bound_rel ? br : s->max_bound_rel;
	}
	if (bound_d > 0) {
		double ratio = abs_err / bound_d;
		s->max_ratio = ratio > s->max_ratio ? ratio : s->max_ratio;
		s->sum_ratio += ratio;
		s->ratio_count++;
	}
}

/* D through the model; with measure, each element against the exact
 * product of the source values, with the model's bound where one applies. */
static int run_and_measure(const struct cli_model *m, const struct fpref_format *src, const struct fpref_format *in,
			   const struct fpref_format *out, const struct fpref_env *env, struct matrices *x,
			   bool measure, struct stats *s)
{
	size_t M = x->M, N = x->N, K = x->K;
	x->D = malloc(M * N * sizeof *x->D);
	uint64_t *col = malloc((2 * K + 1) * sizeof *col);
	if (!x->D || !col) {
		free(col);
		return out_of_memory();
	}
	if (m->kind == CLI_MODEL_TC)
		fpref_emu_tc_gemm(&m->tc, in, out, M, N, K, x->Aq, x->Bq, x->C, m->promote, x->D);
	if (!measure && m->kind == CLI_MODEL_TC) {
		free(col);
		return 0;
	}
	bool sourced = x->Aq != x->A;
	mpfr_t exact, bound, t;
	mpfr_inits2(64, exact, bound, t, (mpfr_ptr)0);
	bool progress = isatty(STDERR_FILENO) && M * N * K > 1 << 22;
	uint64_t zero = fpref_format_zero_bits(out, false);
	for (size_t i = 0; i < M; i++) {
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++) {
				col[k] = x->Bq[k * N + j];
				col[K + k] = x->B[k * N + j];
			}
			const uint64_t *row = x->Aq + i * K;
			uint64_t c = x->C ? x->C[i * N + j] : zero, *d = &x->D[i * N + j];
			if (m->kind != CLI_MODEL_TC)
				cli_model_dot(m, in, row, col, K, c, out, env, d);
			if (!measure)
				continue;
			fpref_ref_dot_value(src, x->A + i * K, col + K, K, c, out, exact);
			if (sourced)
				mpfr_set_nan(bound);
			else
				cli_model_bound(m, in, row, col, K, c, out, env, bound);
			add_element(s, out, *d, exact, bound, t);
		}
		if (progress)
			fprintf(stderr, "\rrow %zu of %zu", i + 1, M);
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	mpfr_clears(exact, bound, t, (mpfr_ptr)0);
	free(col);
	return 0;
}

static int save(const char *path, const struct fpref_format *out, const struct matrices *x)
{
	size_t shape[2] = { x->M, x->N }, bytes = fpref_emu_element_bytes(out);
	unsigned char *packed = malloc(x->M * x->N * bytes);
	char err[512];
	for (size_t i = 0; packed && i < x->M * x->N; i++)
		memcpy(packed + i * bytes, &x->D[i], bytes); /* little-endian host */
	const char *descr = strcmp(out->name, "float32") == 0   ? "<f4"
			    : strcmp(out->name, "float16") == 0 ? "<f2"
			    : strcmp(out->name, "float64") == 0 ? "<f8"
			    : bytes == 1			? "|u1"
			    : bytes == 2			? "<u2"
			    : bytes == 4			? "<u4"
								: "<u8";
	int status = 0;
	if (!packed || fpref_npy_write(path, descr, shape, 2, packed, bytes, err, sizeof err) != 0) {
		cli_error("%s", packed ? err : "out of memory");
		status = CLI_EXIT_FAIL;
	}
	free(packed);
	return status;
}

int cmd_gemm(int argc, char **argv)
{
	struct gemm_args g = { 0 };
	struct cli_model_text text = { 0 };
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest), **rest2 = malloc((size_t)(argc + 1) * sizeof *rest2);
	int nrest = 0, nrest2 = 0;
	struct cli_options o;
	int r = !rest || !rest2 ? CLI_EXIT_FAIL : cli_model_options(argc, argv, &text, rest, &nrest);
	if (!r)
		r = take_args(nrest, rest, &g, rest2, &nrest2);
	if (!r)
		r = cli_parse(nrest2, rest2, CLI_ENV | CLI_JSON, &o);
	free(rest);
	free(rest2);
	if (r)
		return r;
	if (!g.in) {
		cli_error("gemm needs --in FMT (the format of A and B)");
		return CLI_EXIT_USAGE;
	}
	if (!g.a != !g.b || (g.a && (g.size || g.dist || g.seed || g.scale)) || (!g.a && !g.size) || (g.c && !g.a)) {
		cli_error("gemm takes either --a A.npy --b B.npy [--c C.npy], or --size MxNxK [--dist normal|uniform|positive] "
			  "[--seed N] [--scale-log2 P]");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format in, out, src;
	struct cli_model m;
	if (cli_parse_format(g.in, &in) != 0 || cli_parse_format(g.out ? g.out : "float32", &out) != 0 ||
	    cli_parse_format(g.source ? g.source : g.in, &src) != 0 || cli_model_resolve(&text, &in, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	bool measure = !g.report || strcmp(g.report, "errors") == 0;
	if (g.report && !measure && strcmp(g.report, "none") != 0) {
		cli_error("bad --report '%s' (errors or none)", g.report);
		return CLI_EXIT_USAGE;
	}
	struct fpref_env quantize;
	fpref_env_default(&quantize);
	if (g.quantize && (fpref_rounding_parse(g.quantize, &quantize.rounding) != 0 || quantize.rounding == FPREF_SR)) {
		cli_error("bad --quantize '%s' (rne, rna, rtz, rup, rdn or rod)", g.quantize);
		return CLI_EXIT_USAGE;
	}
	o.env = cli_target_env(&o, &out);
	struct matrices x = { 0 };
	struct stats s = { 0 };
	int status = load_inputs(&g, &src, &out, &x);
	if (!status)
		status = quantize_inputs(&src, &in, &quantize, &x);
	if (!status && !o.json) {
		char desc[256];
		printf("gemm %zux%zux%zu (MxNxK), %s inputs -> %s\n", x.M, x.N, x.K, in.name, out.name);
		printf("model: %s\n", cli_model_describe(&m, out.name, desc, sizeof desc));
		printf("inputs: %s; %zu rounded to %s (nearest even)\n", x.source, x.inexact, src.name);
		if (x.Aq != x.A)
			printf("quantised to %s (%s): %zu of %zu changed; errors are against the exact product of the %s "
			       "values, so no model bound applies\n", in.name, fpref_rounding_name(quantize.rounding),
			       x.quantized, x.M * x.K + x.K * x.N, src.name);
	}
	if (!status)
		status = run_and_measure(&m, &src, &in, &out, &o.env, &x, measure, &s);
	if (!status && measure)
		print_report(&s, o.json);
	if (!status && g.save)
		status = save(g.save, &out, &x);
	if (!status && s.above_bound) {
		cli_error("%zu elements exceed their a priori bound: a defect in fpref; please report it", s.above_bound);
		status = CLI_EXIT_FAIL;
	}
	matrices_free(&x);
	return status;
}
