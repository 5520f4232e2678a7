/* fpref gemm: D = A B + C through an accumulation model, with the error of
 * every element against the exact product and its a priori bound.  A, B
 * and C come from .npy files or are generated from a seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct gemm_args {
	const char *in, *out, *a, *b, *c, *size, *dist, *seed, *scale, *save, *source, *quantize;
};

static int take_args(int argc, char **argv, struct gemm_args *g, char **rest, int *nrest)
{
	static const char *const names[] = { "--in",   "--out",  "--a",          "--b",    "--c",      "--size",
					     "--dist", "--seed", "--scale-log2", "--save", "--source", "--quantize" };
	const char **slots[] = { &g->in,   &g->out,  &g->a,     &g->b,    &g->c,      &g->size,
				 &g->dist, &g->seed, &g->scale, &g->save, &g->source, &g->quantize };
	*nrest = 0;
	for (int i = 0; i < argc; i++) {
		size_t j = 0;
		while (j < sizeof names / sizeof names[0] && strcmp(argv[i], names[j]) != 0)
			j++;
		if (j == sizeof names / sizeof names[0])
			rest[(*nrest)++] = argv[i];
		else if (i + 1 < argc)
			*slots[j] = argv[++i];
		else {
			cli_error("option %s needs a value", argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
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
		status = CLI_EXIT_FAIL;
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
		printf("{\"elements\": %zu, \"nonfinite\": %zu, \"max_abs\": %.17g, \"max_abs_over_mean_exact\": %.17g, "
		       "\"normwise_rel\": %.17g, \"max_rel\": %.17g, \"mean_rel\": %.17g, "
		       "\"max_ulps\": %.17g, \"mean_ulps\": %.17g, \"bound_max_rel\": %.17g, \"error_over_bound_max\": %.17g, "
		       "\"error_over_bound_mean\": %.17g, \"above_bound\": %zu, \"without_bound\": %zu}\n",
		       s->count, s->nonfinite, s->max_abs, s->max_abs / (s->sum_abs_exact / n), sqrt(s->sum_sq_err / s->sum_sq_exact),
		       s->max_rel, s->sum_rel / n, s->max_ulps, s->sum_ulps / n,
		       s->max_bound_rel, s->max_ratio, s->ratio_count ? s->sum_ratio / (double)s->ratio_count : 0,
		       s->above_bound, s->no_bound);
		return;
	}
	printf("error against the exact product, per element (%zu elements", s->count);
	if (s->nonfinite)
		printf(", %zu not finite and left out", s->nonfinite);
	printf("):\n");
	printf("  absolute        max %.6g   max / mean |exact| %.6g (PyTorch's TF32 protocol)\n", s->max_abs,
	       s->max_abs / (s->sum_abs_exact / n));
	printf("  normwise        ||D - exact||_F / ||exact||_F %.6g\n", sqrt(s->sum_sq_err / s->sum_sq_exact));
	printf("  relative        max %.6g   mean %.6g\n", s->max_rel, s->sum_rel / n);
	printf("  ulps of output  max %.6g   mean %.6g\n", s->max_ulps, s->sum_ulps / n);
	if (s->ratio_count || s->above_bound)
		printf("a priori bound:   max bound/|exact| %.6g; error/bound max %.4g, mean %.4g; above the bound: %zu\n",
		       s->max_bound_rel, s->max_ratio, s->sum_ratio / (double)(s->ratio_count ? s->ratio_count : 1),
		       s->above_bound);
	if (s->no_bound)
		printf("no a priori bound for %zu elements (exact model, Kahan, --source, inputs the accumulator does not "
		       "hold, possible overflow, or NaN/inf)\n", s->no_bound);
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
	struct fpref_env quantize;
	fpref_env_default(&quantize);
	if (g.quantize && (fpref_rounding_parse(g.quantize, &quantize.rounding) != 0 || quantize.rounding == FPREF_SR)) {
		cli_error("bad --quantize '%s' (rne, rna, rtz, rup, rdn or rod)", g.quantize);
		return CLI_EXIT_USAGE;
	}
	bool sourced = strcmp(src.name, in.name) != 0;
	o.env = cli_target_env(&o, &out);
	size_t M, N, K, inexact = 0;
	uint64_t *A = NULL, *B = NULL, *C = NULL;
	int status = 0;
	char source[256];
	if (g.a) {
		size_t rows, cols;
		status = load_matrix(g.a, "A", &src, 0, &M, &K, &A, &inexact);
		if (!status)
			status = load_matrix(g.b, "B", &src, K, &rows, &N, &B, &inexact);
		if (!status && g.c) {
			status = load_matrix(g.c, "C", &out, M, &rows, &cols, &C, &inexact);
			if (!status && cols != N) {
				cli_error("%s: C must be %zu x %zu", g.c, M, N);
				status = CLI_EXIT_USAGE;
			}
		}
		snprintf(source, sizeof source, "A %s, B %s%s%s", g.a, g.b, g.c ? ", C " : "", g.c ? g.c : "");
	} else {
		enum fpref_dist dist = FPREF_DIST_NORMAL;
		char *end;
		unsigned long long seed = g.seed ? strtoull(g.seed, &end, 10) : 1;
		long scale = g.scale ? strtol(g.scale, &end, 10) : 0;
		status = parse_size(g.size, &M, &N, &K);
		if (!status && g.dist && fpref_dist_parse(g.dist, &dist) != 0) {
			cli_error("bad --dist '%s' (normal, uniform or positive)", g.dist);
			status = CLI_EXIT_USAGE;
		}
		if (!status && ((g.seed && (*end || !*g.seed)) || (g.scale && (*end || scale < -200 || scale > 200)))) {
			cli_error("bad --seed or --scale-log2 (an unsigned integer; an integer -200..200)");
			status = CLI_EXIT_USAGE;
		}
		A = status ? NULL : malloc(M * K * sizeof *A);
		B = status ? NULL : malloc(K * N * sizeof *B);
		if (!status && (!A || !B))
			status = CLI_EXIT_FAIL;
		if (!status) {
			struct fpref_env rne;
			fpref_env_default(&rne);
			inexact += fpref_emu_random(&src, &rne, dist, (int)scale, seed, 0, M * K, A);
			inexact += fpref_emu_random(&src, &rne, dist, (int)scale, seed, M * K, K * N, B);
		}
		snprintf(source, sizeof source, "%s x 2^%ld, seed %llu (A first, then B, row-major)",
			 fpref_dist_name(dist), scale, seed);
	}
	uint64_t *D = status ? NULL : malloc(M * N * sizeof *D), *col = status ? NULL : malloc(2 * K * sizeof *col);
	/* the model's inputs: the source values quantised to --in */
	uint64_t *Aq = sourced && !status ? malloc(M * K * sizeof *Aq) : A, *Bq = sourced && !status ? malloc(K * N * sizeof *Bq) : B;
	if (!status && (!D || !col || !Aq || !Bq))
		status = CLI_EXIT_FAIL;
	size_t quantized = 0;
	for (size_t i = 0; sourced && !status && i < M * K + K * N; i++) {
		unsigned flags = 0;
		if (i < M * K)
			fpref_emu_convert(&src, A[i], &in, &quantize, 0, &Aq[i], &flags);
		else
			fpref_emu_convert(&src, B[i - M * K], &in, &quantize, 0, &Bq[i - M * K], &flags);
		quantized += (flags & FPREF_FLAG_INEXACT) != 0;
	}
	if (status) {
		if (sourced) {
			free(Aq);
			free(Bq);
		}
		free(A);
		free(B);
		free(C);
		free(D);
		free(col);
		return status;
	}
	char desc[256];
	if (!o.json) {
		printf("gemm %zux%zux%zu (MxNxK), %s inputs -> %s\n", M, N, K, in.name, out.name);
		printf("model: %s\n", cli_model_describe(&m, desc, sizeof desc));
		printf("inputs: %s; %zu rounded to %s (nearest even)\n", source, inexact, src.name);
		if (sourced)
			printf("quantised to %s (%s): %zu of %zu changed; errors are against the exact product of the %s "
			       "values, so no model bound applies\n", in.name, fpref_rounding_name(quantize.rounding),
			       quantized, M * K + K * N, src.name);
	}
	if (m.kind == CLI_MODEL_TC)
		fpref_tc_gemm(&m.tc, &in, &out, M, N, K, Aq, Bq, C, m.promote, D);
	struct stats s = { 0 };
	mpfr_t exact, bound, t;
	mpfr_inits2(64, exact, bound, t, (mpfr_ptr)0);
	bool progress = isatty(STDERR_FILENO) && M * N * K > 1 << 22;
	uint64_t zero = fpref_format_zero_bits(&out, false);
	for (size_t i = 0; i < M; i++) {
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++) {
				col[k] = Bq[k * N + j];
				col[K + k] = B[k * N + j];
			}
			const uint64_t *row = Aq + i * K;
			uint64_t c = C ? C[i * N + j] : zero, *d = &D[i * N + j];
			if (m.kind != CLI_MODEL_TC)
				cli_model_dot(&m, &in, row, col, K, c, &out, &o.env, d);
			fpref_ref_dot_value(&src, A + i * K, col + K, K, c, &out, exact);
			double abs_err, rel_err, ulps;
			s.count++;
			if (fpref_ref_error(&out, *d, exact, &abs_err, &rel_err, &ulps) != 0) {
				s.nonfinite++;
				continue;
			}
			s.max_abs = abs_err > s.max_abs ? abs_err : s.max_abs;
			double x = fabs(mpfr_get_d(exact, MPFR_RNDN));
			s.sum_abs_exact += x;
			s.sum_sq_exact += x * x;
			s.sum_sq_err += abs_err * abs_err;
			s.max_rel = rel_err > s.max_rel ? rel_err : s.max_rel;
			s.sum_rel += rel_err;
			s.max_ulps = ulps > s.max_ulps ? ulps : s.max_ulps;
			s.sum_ulps += ulps;
			if (sourced)
				mpfr_set_nan(bound);
			else
				cli_model_bound(&m, &in, row, col, K, c, &out, &o.env, bound);
			if (!mpfr_number_p(bound)) {
				s.no_bound++;
				continue;
			}
			double bound_d = mpfr_get_d(bound, MPFR_RNDU);
			if (abs_err > bound_d)
				s.above_bound++;
			if (!mpfr_zero_p(exact)) {
				mpfr_div(t, bound, exact, MPFR_RNDU);
				double br = mpfr_get_d(t, MPFR_RNDU);
				br = br < 0 ? -br : br;
				s.max_bound_rel = br > s.max_bound_rel ? br : s.max_bound_rel;
			}
			if (bound_d > 0) {
				double ratio = abs_err / bound_d;
				s.max_ratio = ratio > s.max_ratio ? ratio : s.max_ratio;
				s.sum_ratio += ratio;
				s.ratio_count++;
			}
		}
		if (progress)
			fprintf(stderr, "\rrow %zu of %zu", i + 1, M);
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	mpfr_clears(exact, bound, t, (mpfr_ptr)0);
	print_report(&s, o.json);
	if (g.save) {
		size_t shape[2] = { M, N }, bytes = fpref_emu_element_bytes(&out);
		unsigned char *packed = malloc(M * N * bytes);
		char err[512];
		for (size_t i = 0; packed && i < M * N; i++)
			memcpy(packed + i * bytes, &D[i], bytes);
		const char *descr = strcmp(out.name, "float32") == 0 ? "<f4" : strcmp(out.name, "float16") == 0 ? "<f2"
				    : strcmp(out.name, "float64") == 0 ? "<f8" : bytes == 1 ? "|u1" : bytes == 2 ? "<u2"
				    : bytes == 4 ? "<u4" : "<u8";
		if (!packed || fpref_npy_write(g.save, descr, shape, 2, packed, bytes, err, sizeof err) != 0) {
			cli_error("%s", packed ? err : "out of memory");
			status = CLI_EXIT_FAIL;
		}
		free(packed);
	}
	if (s.above_bound) {
		cli_error("%zu elements exceed their a priori bound: a defect in fpref; please report it", s.above_bound);
		status = CLI_EXIT_FAIL;
	}
	if (sourced) {
		free(Aq);
		free(Bq);
	}
	free(A);
	free(B);
	free(C);
	free(D);
	free(col);
	return status;
}
