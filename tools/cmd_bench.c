/* fpref bench: elements per second of the emulator and the oracle, beside
 * memcpy on the same machine.  A benchmark, never a test: timings on a
 * shared machine are noisy, so each figure is the median of several runs. */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"

/* The thread's CPU time, not the wall clock: on a shared machine the
 * neighbours stretch the wall time of every row, while the figures are
 * meant for one thread on one core (they still share caches). */
double bench_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The converter's elements per second on in (a median of `repeats` runs),
 * and its path's name with the vector path's instruction set. */
static double convert_rate(const struct fpref_emu_converter *conv, const void *in, void *out, size_t n,
			   long repeats, char *path, size_t path_size)
{
	double t[100] = { 0 };
	for (long k = 0; k < repeats; k++) {
		double t0 = bench_now();
		fpref_emu_convert_array(conv, in, out, n, NULL, 0);
		t[k] = bench_now() - t0;
	}
	snprintf(path, path_size, strstr(fpref_emu_converter_path(conv), "vector") ? "%s %s" : "%s",
		 fpref_emu_converter_path(conv), fpref_emu_converter_isa(conv));
	return (double)n / bench_median(t, (int)repeats);
}

/* The JSON document of a run's rows (bench --json). */
static void print_json(long log2n, long repeats, const struct bench_report *r)
{
	printf("{\"command\": \"bench\", \"log2n\": %ld, \"repeats\": %ld, \"memcpy_bytes_per_s\": %s,\n", log2n,
	       repeats, cli_json_num(r->copy_rate).text);
	printf(" \"isa\": ");
	cli_json_string(r->isa ? r->isa : "widest");
	printf(",\n");
	printf(" \"timer\": \"thread CPU time, median of the runs, one thread\",\n \"reference_row\": ");
	cli_json_string(r->n ? r->rows[0].what : "");
	printf(",\n \"rows\": [");
	for (size_t i = 0; i < r->n; i++) {
		const struct bench_row *w = &r->rows[i];
		bool elements = strcmp(w->section, "elements") == 0;
		printf("%s\n  {\"section\": ", i ? "," : "");
		cli_json_string(w->section);
		printf(", \"row\": ");
		cli_json_string(w->what);
		printf(", \"unit\": \"%s\", \"rate\": %s", elements ? "elements/s" : "MAC/s", cli_json_num(w->rate).text);
		if (elements)
			printf(", \"of_memcpy\": %s, \"of_reference\": %s, \"ref_rate\": %s, \"emu_over_ref\": %s",
			       cli_json_num(w->rate / (r->copy_rate / w->bytes)).text, cli_json_num(w->rate / r->reference).text,
			       cli_json_num(w->ref).text, cli_json_num(w->rate / w->ref).text);
		else
			printf(", \"%s\": %s", strcmp(w->section, "gemm") ? "unscaled_rate" : "ref_rate",
			       cli_json_num(w->ref).text);
		printf(", \"path\": ");
		cli_json_string(w->path);
		printf("}");
	}
	printf("\n ]\n}\n");
}

bool bench_wanted(const struct bench_report *r, const char *section, const char *what)
{
	bool reference = strcmp(section, "elements") == 0 && r->reference == 0;
	return !r->only || reference || strstr(what, r->only) != NULL;
}

void bench_section(struct bench_report *r, const char *header)
{
	snprintf(r->header, sizeof r->header, "%s", header);
}

int bench_report_add(struct bench_report *r, const struct bench_row *row)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct bench_row *rows = realloc(r->rows, cap * sizeof *rows);
		if (!rows)
			return -1;
		r->rows = rows;
		r->cap = cap;
	}
	r->rows[r->n++] = *row;
	bool elements = strcmp(row->section, "elements") == 0;
	if (elements && r->reference == 0)
		r->reference = row->rate;
	else if (r->only)
		r->chosen++;
	if (r->json)
		return 0;
	if (r->header[0]) {
		printf("%s", r->header);
		r->header[0] = '\0';
	}
	if (elements)
		printf("%-38s %12.3g %7.3f %7.3f %12.3g %9.0f  %s\n", row->what, row->rate,
		       row->rate / (r->copy_rate / row->bytes), row->rate / r->reference, row->ref, row->rate / row->ref,
		       row->path);
	else
		printf(strcmp(row->section, "gemm") ? "%-38s %12.3g %7s %12.3g %9.2f  %s\n" : "%-38s %12.3g %7s %12.3g %9.0f  %s\n",
		       row->what, row->rate, "", row->ref, row->rate / row->ref, row->path);
	fflush(stdout);
	return 0;
}

/* Emulated GEMM (the tensor-core models, 512 x 512 x 512, normal inputs)
 * in multiply-accumulates per second, beside the exact product through the
 * oracle (timed on a slice of rows). */
static int bench_gemm(long repeats, struct bench_report *rep)
{
	static const struct {
		const char *gpu, *in;
	} rows[] = { { "h100", "float8_e4m3fn" }, { "a100", "float16" }, { "h100", "bfloat16" },
		     { "tcgen05", "float8_e4m3fn" }, { "tcgen05-mxf4nvf4", "float4_e2m1fn" },
		     { "mfma-cdna3", "float16" }, { "mfma-cdna3", "float8_e4m3fnuz" }, { "mfma-cdna1", "float16" } };
	const size_t M = 512, N = 512, K = 512, oracle_rows = 4;
	uint64_t *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B), *D = malloc(M * N * sizeof *D);
	uint64_t *col = malloc(K * sizeof *col);
	if (!A || !B || !D || !col) {
		cli_fail(cli_cmd_bench.name, "cannot allocate the GEMM operands");
		return CLI_EXIT_FAIL;
	}
	char header[160];
	snprintf(header, sizeof header, "\n%-38s %12s %7s %12s %9s  %s\n", "gemm 512x512x512", "emu MAC/s", "", "ref MAC/s",
		 "emu/ref", "model");
	bench_section(rep, header);
	struct fpref_format f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	double t[100] = { 0 };
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct fpref_format in;
		fpref_format_parse(rows[r].in, &in, NULL, 0);
		struct bench_row row = { .section = "gemm" };
		snprintf(row.what, sizeof row.what, "%s %s -> f32", rows[r].gpu, in.name);
		if (!bench_wanted(rep, row.section, row.what))
			continue;
		const struct fpref_tc_model *m = fpref_tc_model_find(rows[r].gpu, &in);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, 0, M * K, A);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, M * K, K * N, B);
		for (long k = 0; k < repeats; k++) {
			double t0 = bench_now();
			fpref_emu_tc_gemm(m, &in, &in, &f32, M, N, K, A, B, NULL, 0, D);
			t[k] = bench_now() - t0;
		}
		double emu = (double)(M * N * K) / bench_median(t, (int)repeats);
		long oracle_repeats = repeats < 3 ? repeats : 3;
		for (long k = 0; k < oracle_repeats; k++) {
			double t0 = bench_now();
			for (size_t i = 0; i < oracle_rows; i++)
				for (size_t j = 0; j < N; j++) {
					for (size_t q = 0; q < K; q++)
						col[q] = B[q * N + j];
					unsigned flags = 0;
					fpref_ref_dot_exact(&in, &in, A + i * K, col, K, 0, &f32, &env, &D[i * N + j], &flags);
				}
			t[k] = bench_now() - t0;
		}
		double ref = (double)(oracle_rows * N * K) / bench_median(t, (int)oracle_repeats);
		row.rate = emu;
		row.ref = ref;
		if (m->fused) /* one rounding a group: no fraction bits kept between */
			snprintf(row.path, sizeof row.path, "groups of %d summed exactly, one rounding; ref: exact sum, one rounding",
				 m->block);
		else
			snprintf(row.path, sizeof row.path, "blocks of %d, %d fraction bits; ref: exact sum, one rounding", m->block,
				 m->frac);
		if (bench_report_add(rep, &row) != 0)
			break;
	}
	free(A);
	free(B);
	free(D);
	free(col);
	return CLI_EXIT_OK;
}

/* The i-th comma-separated name of a row's inputs, parsed; false past the
 * end of the list (or for a name that does not parse). */
static bool row_input(const struct fpref_tc_model *m, size_t i, struct fpref_format *f)
{
	const char *name = m->inputs;
	for (; i > 0 && *name; i--)
		name += strcspn(name, ",") + (name[strcspn(name, ",")] == ',');
	if (!*name)
		return false;
	char fmt[64];
	snprintf(fmt, sizeof fmt, "%.*s", (int)strcspn(name, ","), name);
	return fpref_format_parse(fmt, f, NULL, 0) == 0;
}

/* The state of bench --all-models: the operands and the slowest row. */
struct all_models {
	size_t M, N, K;
	uint64_t *A, *B, *D;
	long repeats;
	double t[100], slowest, slowest_fma;
	char slowest_what[200], slowest_fma_what[200];
};

/* A row of bench --all-models printed at once (a long run shows its
 * progress), and kept as the slowest (of 200 characters) if it is. */
static void print_row(const char *what, double rate, const char *path, double *slowest, char *slowest_what)
{
	printf("%-48s %12.3g  %s\n", what, rate, path);
	fflush(stdout);
	if (*slowest == 0 || rate < *slowest) {
		*slowest = rate;
		snprintf(slowest_what, 200, "%s", what);
	}
}

/* The FMA-chain presets' GEMM runs per element, some fifty times slower
 * than the block rows' tile kernels: timed on 128 x 128 x 512 (the same K,
 * a sixteenth of the products) so the bench stays minutes long. */
enum { FMA_ROWS_MN = 128 };

/* One FMA-chain row of bench --all-models (dmma, CDNA's f32 and f64
 * instructions): A and B of its input through fpref_golden_gemm's
 * per-element path, one thread, D in the same format.  0, or
 * CLI_EXIT_FAIL after a message. */
static int time_fma_row(struct all_models *s, const struct fpref_tc_fma_row *row)
{
	struct fpref_format f;
	struct fpref_accum_model am;
	char err[256];
	if (fpref_format_parse(row->input, &f, NULL, 0) != 0 ||
	    fpref_tc_fma_model(row, &f, &f, &f, NULL, &am, err, sizeof err) != 0) {
		cli_fail(cli_cmd_bench.name, "the %s row for %s: no model", row->gpu, row->input);
		return CLI_EXIT_FAIL;
	}
	size_t M = FMA_ROWS_MN, N = FMA_ROWS_MN, K = s->K;
	struct fpref_env env;
	fpref_env_default(&env);
	fpref_emu_random(&f, &env, FPREF_DIST_NORMAL, 0, 7, 0, M * K, s->A);
	fpref_emu_random(&f, &env, FPREF_DIST_NORMAL, 0, 7, M * K, K * N, s->B);
	struct fpref_gemm_problem p = { .M = M, .N = N, .K = K, .src = &f, .in_a = &f, .in_b = &f, .out = &f,
					.A = s->A, .B = s->B, .Aq = s->A, .Bq = s->B, .model = &am, .env = &env,
					.threads = 1 };
	for (long k = 0; k < s->repeats; k++) {
		double t0 = bench_now();
		if (fpref_golden_gemm(&p, s->D, NULL, NULL, NULL) != 0) {
			cli_fail(cli_cmd_bench.name, "the %s GEMM of %s failed", row->gpu, f.name);
			return CLI_EXIT_FAIL;
		}
		s->t[k] = bench_now() - t0;
	}
	double rate = (double)(M * N * K) / bench_median(s->t, (int)s->repeats);
	char what[200], path[64];
	snprintf(what, sizeof what, "%s %s -> %s", row->gpu, f.name,
		 fpref_format_is(&f, FPREF_FORMAT_FLOAT64) ? "f64" : "f32");
	snprintf(path, sizeof path, "fma chain, per element (%dx%dx%zu)", FMA_ROWS_MN, FMA_ROWS_MN, K);
	print_row(what, rate, path, &s->slowest_fma, s->slowest_fma_what);
	return 0;
}

/* One row of bench --all-models: A of fa and B of fb through m, both
 * outputs where the row has them.  0, or CLI_EXIT_FAIL after a message. */
static int time_row(struct all_models *s, const struct fpref_tc_model *m, const struct fpref_format *fa,
		    const struct fpref_format *fb)
{
	const struct fpref_format *outs[2] = { fpref_format_get(FPREF_FORMAT_FLOAT32),
					       fpref_format_get(FPREF_FORMAT_FLOAT16) };
	const char *out_names[2] = { "f32", "f16" };
	struct fpref_env env;
	fpref_env_default(&env);
	fpref_emu_random(fa, &env, FPREF_DIST_NORMAL, 0, 7, 0, s->M * s->K, s->A);
	fpref_emu_random(fb, &env, FPREF_DIST_NORMAL, 0, 7, s->M * s->K, s->K * s->N, s->B);
	for (int o = 0; o < 2; o++) {
		const char *path = fpref_emu_tc_gemm_path(m, fa, fb, outs[o]);
		if (!path)
			continue;
		for (long k = 0; k < s->repeats; k++) {
			double t0 = bench_now();
			if (fpref_emu_tc_gemm(m, fa, fb, outs[o], s->M, s->N, s->K, s->A, s->B, NULL, 0, s->D) != 0) {
				cli_fail(cli_cmd_bench.name, "the %s GEMM of %s x %s to %s failed", m->gpu, fa->name,
					 fb->name, outs[o]->name);
				return CLI_EXIT_FAIL;
			}
			s->t[k] = bench_now() - t0;
		}
		double rate = (double)(s->M * s->N * s->K) / bench_median(s->t, (int)s->repeats);
		char what[200];
		if (fpref_format_same(fa, fb))
			snprintf(what, sizeof what, "%s %s -> %s", m->gpu, fa->name, out_names[o]);
		else
			snprintf(what, sizeof what, "%s %s x %s -> %s", m->gpu, fa->name, fb->name, out_names[o]);
		print_row(what, rate, path, &s->slowest, s->slowest_what);
	}
	return 0;
}

/* bench --all-models: the emulated GEMM of every preset row, input and
 * output (FP32, FP16), and on the rows that take two formats apart, every
 * pair of two different 8-bit formats (FP8 training's hybrid E5M2 x E4M3,
 * CDNA3's bf8 x fp8). */
static int bench_gemm_all(long repeats, const char *only)
{
	/* --only: one preset's rows (a chip's name resolved), refused before
	 * any work when no row has that name */
	const char *want = only ? fpref_tc_model_alias(only) : NULL;
	bool known = !want;
	for (size_t i = 0; want && i < fpref_tc_model_count(); i++)
		known |= strcasecmp(fpref_tc_model_at(i)->gpu, want) == 0;
	for (size_t i = 0; want && fpref_tc_fma_at(i); i++)
		known |= strcasecmp(fpref_tc_fma_at(i)->gpu, want) == 0;
	if (!known) {
		cli_fail(cli_cmd_bench.name, "--only: no preset '%s' (fpref --help lists them)", only);
		return CLI_EXIT_USAGE;
	}
	struct all_models s = { .M = 512, .N = 512, .K = 512, .repeats = repeats };
	s.A = malloc(s.M * s.K * sizeof *s.A);
	s.B = malloc(s.K * s.N * sizeof *s.B);
	s.D = malloc(s.M * s.N * sizeof *s.D);
	int status = s.A && s.B && s.D ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	if (status)
		cli_fail(cli_cmd_bench.name, "cannot allocate the GEMM operands");
	else
		printf("fpref bench --all-models: gemm 512x512x512, normal inputs (seed 7), FP32 and FP16 output, median of "
		       "%ld runs, one thread, its CPU time\n\n%-48s %12s  %s\n", repeats, "preset input(s) -> output",
		       "emu MAC/s", "path");
	for (size_t i = 0; i < fpref_tc_model_count() && !status; i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		struct fpref_format fa, fb;
		if (want && strcasecmp(m->gpu, want) != 0)
			continue;
		for (size_t x = 0; row_input(m, x, &fa) && !status; x++)
			status = time_row(&s, m, &fa, &fa);
		for (size_t x = 0; m->mixed && row_input(m, x, &fa) && !status; x++)
			for (size_t y = 0; row_input(m, y, &fb) && !status; y++)
				if (x != y && fpref_format_width(&fa) == 8 && fpref_format_width(&fb) == 8)
					status = time_row(&s, m, &fa, &fb);
	}
	for (size_t i = 0; fpref_tc_fma_at(i) && !status; i++)
		if (!want || strcasecmp(fpref_tc_fma_at(i)->gpu, want) == 0)
			status = time_fma_row(&s, fpref_tc_fma_at(i));
	if (!status && s.slowest > 0)
		printf("\nslowest: %s, %.3g MAC/s\n", s.slowest_what, s.slowest);
	if (!status && s.slowest_fma > 0)
		printf("%sslowest FMA chain: %s, %.3g MAC/s\n", s.slowest > 0 ? "" : "\n", s.slowest_fma_what,
		       s.slowest_fma);
	free(s.A);
	free(s.B);
	free(s.D);
	return status;
}

/* The block-scaled GEMM (fpref_emu_tc_gemm_scaled_threads, one thread) on
 * the same 512 x 512 x 512 product, scales around 1, beside the same
 * model's unscaled GEMM: what the scales cost. */
static int bench_gemm_scaled(long repeats, struct bench_report *rep)
{
	static const struct {
		const char *gpu, *in, *scales;
		size_t every;
	} rows[] = { { "tcgen05-mxf8f6f4", "float8_e4m3fn", "float8_e8m0fnu", 32 },
		     { "tcgen05-mxf4nvf4", "float4_e2m1fn", "float8_e4m3fn", 16 },
		     { "mfma-cdna4-scale", "float8_e4m3fn", "float8_e8m0fnu", 32 } };
	const size_t M = 512, N = 512, K = 512;
	uint64_t *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B), *D = malloc(M * N * sizeof *D);
	uint64_t *SA = malloc(M * K * sizeof *SA), *SB = malloc(K * N * sizeof *SB);
	if (!A || !B || !D || !SA || !SB) {
		free(A), free(B), free(D), free(SA), free(SB);
		cli_fail(cli_cmd_bench.name, "cannot allocate the GEMM operands");
		return CLI_EXIT_FAIL;
	}
	char header[160];
	snprintf(header, sizeof header, "\n%-38s %12s %7s %12s %9s  %s\n", "scaled gemm 512x512x512", "emu MAC/s", "",
		 "unscaled", "ratio", "scales");
	bench_section(rep, header);
	struct fpref_format f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	double t[100] = { 0 };
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct fpref_format in, sf;
		fpref_format_parse(rows[r].in, &in, NULL, 0);
		fpref_format_parse(rows[r].scales, &sf, NULL, 0);
		struct bench_row row = { .section = "scaled gemm" };
		snprintf(row.what, sizeof row.what, "%s %s -> f32", rows[r].gpu, in.name);
		if (!bench_wanted(rep, row.section, row.what))
			continue;
		const struct fpref_tc_model *m = fpref_tc_model_find(rows[r].gpu, &in);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, 0, M * K, A);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, M * K, K * N, B);
		size_t chunks = K / rows[r].every;
		uint64_t one = fpref_format_is(&sf, FPREF_FORMAT_FLOAT8_E8M0FNU) ? 127 : 0x38; /* 1 in E8M0, UE4M3 */
		for (size_t i = 0; i < M * chunks; i++)
			SA[i] = one + i % 5 - 2; /* 2^-2 .. 2^2 (E8M0), 0.75 .. 1.25 (UE4M3) */
		for (size_t i = 0; i < chunks * N; i++)
			SB[i] = one + i % 3 - 1;
		struct fpref_tc_gemm_scales sc = { &sf, SA, SB, rows[r].every };
		double rate[2];
		for (int scaled = 0; scaled < 2; scaled++) {
			for (long k = 0; k < repeats; k++) {
				double t0 = bench_now();
				fpref_emu_tc_gemm_scaled_threads(m, &in, &in, &f32, M, N, K, A, B, scaled ? &sc : NULL, NULL, D, 1);
				t[k] = bench_now() - t0;
			}
			rate[scaled] = (double)(M * N * K) / bench_median(t, (int)repeats);
		}
		row.rate = rate[1];
		row.ref = rate[0];
		snprintf(row.path, sizeof row.path, "%s per %zu", sf.name, rows[r].every);
		if (bench_report_add(rep, &row) != 0)
			break;
	}
	free(A);
	free(B);
	free(D);
	free(SA);
	free(SB);
	return CLI_EXIT_OK;
}

/* The exact GEMM of the oracle (fpref gemm's report, verify-gemm, the
 * bounds: ref/exact_dot.c, docs/exact.md): each element's exact value by
 * the exact engine (operands decoded once, as golden/gemm.c does), beside
 * MPFR's sum of the exact terms per element (fpref_ref_dot_value, on a slice of rows);
 * then with the model's a priori bound, the decoded one beside MPFR's.
 * One thread: MAC/s per core. */
static int bench_exact_gemm(long repeats, struct bench_report *rep)
{
	static const char *const inputs[] = { "float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "float32" };
	const size_t M = 128, N = 128, K = 1024, slice = 2;
	uint64_t *A = malloc(M * K * sizeof *A), *Bt = malloc(N * K * sizeof *Bt);
	struct fpref_exact_operand *EA = malloc(M * K * sizeof *EA), *EB = malloc(N * K * sizeof *EB);
	if (!A || !Bt || !EA || !EB) {
		free(A), free(Bt), free(EA), free(EB);
		cli_fail(cli_cmd_bench.name, "cannot allocate the GEMM operands");
		return CLI_EXIT_FAIL;
	}
	char header[160];
	snprintf(header, sizeof header, "\n%-38s %12s %7s %12s %9s  %s\n", "exact gemm 128x128x1024", "MAC/s", "",
		 "MPFR MAC/s", "ratio", "path");
	bench_section(rep, header);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_ref_value xv, bv; /* the exact values and bounds, thrown away */
	fpref_ref_value_init(&xv);
	fpref_ref_value_init(&bv);
	mpfr_ptr x = xv.x, bound = bv.x;
	double t[100] = { 0 };
	for (size_t r = 0; r < 2 * sizeof inputs / sizeof inputs[0]; r++) {
		bool with_bound = r >= sizeof inputs / sizeof inputs[0];
		struct fpref_format in;
		fpref_format_parse(inputs[r % (sizeof inputs / sizeof inputs[0])], &in, NULL, 0);
		const struct fpref_tc_model *m = fpref_tc_model_find("h100", &in);
		if (with_bound && (!m || !fpref_tc_input_ok(&in) || fpref_format_is(&in, FPREF_FORMAT_FLOAT32)))
			continue;
		struct bench_row row = { .section = "exact gemm" };
		snprintf(row.what, sizeof row.what, "exact gemm %s%s", in.name, with_bound ? " + bound" : "");
		if (!bench_wanted(rep, row.section, row.what))
			continue;
		struct fpref_exact_format xf;
		fpref_ref_exact_format(&in, &xf);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, 0, M * K, A);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, M * K, N * K, Bt); /* B's columns, each contiguous */
		fpref_ref_exact_decode(&xf, A, M * K, 1, EA, NULL);
		fpref_ref_exact_decode(&xf, Bt, N * K, 1, EB, NULL);
		for (long k = 0; k < repeats; k++) {
			double t0 = bench_now();
			for (size_t i = 0; i < M; i++)
				for (size_t j = 0; j < N; j++) {
					fpref_ref_exact_dot(&xf, EA + i * K, &xf, EB + j * K, K, NULL, f32, 0, x);
					if (with_bound)
						fpref_ref_exact_tc_bound(m, &xf, EA + i * K, A + i * K, &xf, EB + j * K, Bt + j * K, K,
									 NULL, 0, f32, 0, bound);
				}
			t[k] = bench_now() - t0;
		}
		double fast = (double)(M * N * K) / bench_median(t, (int)repeats);
		long slow_repeats = repeats < 3 ? repeats : 3;
		for (long k = 0; k < slow_repeats; k++) {
			double t0 = bench_now();
			for (size_t i = 0; i < slice; i++)
				for (size_t j = 0; j < N; j++) {
					fpref_ref_dot_value(&in, &in, A + i * K, Bt + j * K, K, 0, f32, x);
					if (with_bound)
						fpref_ref_tc_bound(m, &in, &in, A + i * K, Bt + j * K, K, 0, f32, 0, bound);
				}
			t[k] = bench_now() - t0;
		}
		double slow = (double)(slice * N * K) / bench_median(t, (int)slow_repeats);
		row.rate = fast;
		row.ref = slow;
		snprintf(row.path, sizeof row.path, "%s",
			 with_bound ? "+ h100's bound from decoded operands; MPFR: + fpref_ref_tc_bound"
				    : xf.fixed ? "one integer sum; MPFR: fpref_ref_dot_value" : "a bucket per place; MPFR: fpref_ref_dot_value");
		if (bench_report_add(rep, &row) != 0)
			break;
	}
	fpref_ref_value_clear(&xv);
	fpref_ref_value_clear(&bv);
	free(A), free(Bt), free(EA), free(EB);
	return CLI_EXIT_OK;
}

static int bench_peers(long log2n, long repeats, const char *python);

struct bench_args {
	const char *size, *repeat, *python, *only, *isa;
	bool peers, all_models;
};

static const struct cli_opt bench_opts[] = {
	{ "--size", CLI_VALUE, "LOG2N", "24", "2^LOG2N elements per conversion, 4..28", offsetof(struct bench_args, size),
	  0 },
	{ "--repeat", CLI_VALUE, "N", "5", "runs per figure, 1..100, the median reported",
	  offsetof(struct bench_args, repeat), 0 },
	{ "--isa", CLI_VALUE, "NAME", NULL,
	  "the element rows' vector code on avx512, avx2 or base instead of the widest the CPU has",
	  offsetof(struct bench_args, isa), 0 },
	{ "--peers", CLI_FLAG, NULL, NULL, "fpref beside ml_dtypes, its Python package and CPFloat instead (above)",
	  offsetof(struct bench_args, peers), 0 },
	{ "--all-models", CLI_FLAG, NULL, NULL,
	  "the GEMM of every tensor-core preset and input instead, emulator alone (below)",
	  offsetof(struct bench_args, all_models), 0 },
	{ "--only", CLI_VALUE, "TEXT", NULL,
	  "the rows whose name holds TEXT (and the reference row); with --all-models: preset TEXT's rows alone",
	  offsetof(struct bench_args, only), 0 },
	{ "--python", CLI_VALUE, "PATH", NULL, "the interpreter for --peers (build-python/venv's, else python3)",
	  offsetof(struct bench_args, python), 0 },
};

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.synopsis = "[--size LOG2N] [--repeat N] [--isa NAME] [--only TEXT] [--json | --peers [--python PATH] | --all-models]",
	.summary = "Elements per second of the emulator and the oracle, beside memcpy on the same machine (a\n"
		   "benchmark, not a test).",
	.details = "The older spellings size=LOG2N and repeat=N are the same options.\n"
		   "\n"
		   "The default bench times conversions (FP32, FP64, BF16, FP16 and narrow sources under each\n"
		   "rounding and overflow policy, on values drawn over the target's range; stochastic rows with\n"
		   "13 explicit random bits; a 'gradients' row on FP32 values with exponents -40 to 8, most far\n"
		   "below the target's least subnormal) and arithmetic on arrays, each row naming the code path\n"
		   "that ran (a vector path and its instruction set, a table, fixed-point, or the generic loop\n"
		   "over the core); 'of ref' is a row's rate over the first row's (FP32 -> float8_e4m3fn rne).\n"
		   "Then the emulated GEMMs beside the oracle.  --json writes the same rows as one JSON\n"
		   "document (rate, of_memcpy, of_reference, ref_rate, path).\n"
		   "--isa avx2 (or base) runs the element rows' vector code (the conversion lanes, the\n"
		   "arithmetic's lanes and tables) on that instruction set instead of the widest the CPU has, so\n"
		   "that an AVX-512 machine also gives the AVX2 figures; the same bits on each.  The GEMM rows\n"
		   "do not change with it.  An instruction set this build or CPU lacks is a usage error.\n"
		   "--only TEXT times the rows whose name holds TEXT ('quantize nvfp4', 'f64 ->', 'exact gemm'),\n"
		   "and the reference row, which every ratio needs; TEXT that no row's name holds is an error.\n"
		   "\n"
		   "--peers times, in one run, the FP32 -> bfloat16, float16, float8_e4m3fn and float8_e5m2\n"
		   "conversions of the same values (ml_dtypes profile) in libfpref, in ml_dtypes (NumPy for\n"
		   "float16) and in fpref's Python package, and the same four from FP64 values in libfpref and\n"
		   "ml_dtypes (NumPy), each peer run by the Python interpreter PATH\n"
		   "from a script installed with the command (tools/bench_peers.py); it prints each row's rate,\n"
		   "libfpref's rate over it, and how many of the peer's results have libfpref's bits.  A peer\n"
		   "that is not installed gives a 'not found' line, not an error.\n"
		   "\n"
		   "Where the command was built with CPFloat (configure --with-cpfloat=DIR), CPFloat's cpfloatf\n"
		   "rounds the same values in this process, timed as libfpref is, and libfpref encodes its float\n"
		   "results exactly: a result that is no value of the format (CPFloat's IEEE-style 480 for\n"
		   "float8_e4m3fn, whose top code is NaN) counts as differing.  Without CPFloat a line says so.\n"
		   "\n"
		   "--all-models times the emulator's 512 x 512 x 512 GEMM (normal inputs, one thread, no\n"
		   "scales) for every row of the tensor-core presets, each input it takes and each of FP32 and\n"
		   "FP16 output it takes, in multiply-accumulates per second, with the code that ran (a tile\n"
		   "kernel, per column or per element); then the FMA-chain presets (dmma, CDNA's f32 and f64\n"
		   "instructions), per element on 128 x 128 x 512, their output their input; the slowest\n"
		   "block row and the slowest FMA chain last.  With it, --only PRESET times that preset's rows alone.\n",
	.groups = CLI_JSON,
	.opts = bench_opts,
	.nopts = CLI_NOPTS(bench_opts),
	.max_positional = -1,
	.examples = { "fpref bench --size 16 --repeat 3", "fpref bench --peers --python build-python/venv/bin/python" },
	.run = cmd_bench,
};

/* A count in lo..hi, or -1. */
static long count(const char *text, long lo, long hi)
{
	char *end = NULL;
	long v = strtol(text, &end, 10);
	return *text && !*end && v >= lo && v <= hi ? v : -1;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_bench, argc, argv, &o, &a);
	if (r)
		return r;
	for (int i = 0; i < o.npositional; i++) { /* size=LOG2N, repeat=N: what --size and --repeat were first */
		const char *arg = o.positional[i];
		if (strncmp(arg, "size=", 5) == 0)
			a.size = arg + 5;
		else if (strncmp(arg, "repeat=", 7) == 0)
			a.repeat = arg + 7;
		else {
			cli_fail(cli_cmd_bench.name, "unexpected argument '%s' (see fpref bench --help)", arg);
			return CLI_EXIT_USAGE;
		}
	}
	long log2n = a.size ? count(a.size, 4, 28) : 24, repeats = a.repeat ? count(a.repeat, 1, 100) : 5;
	if (log2n < 0)
		cli_fail(cli_cmd_bench.name, "bad --size '%s' (LOG2N, 4..28)", a.size);
	else if (repeats < 0)
		cli_fail(cli_cmd_bench.name, "bad --repeat '%s' (N, 1..100)", a.repeat);
	if (log2n < 0 || repeats < 0)
		return CLI_EXIT_USAGE;
	if (a.isa && (a.peers || a.all_models)) {
		cli_fail(cli_cmd_bench.name, "--isa applies to the default bench's element rows only");
		return CLI_EXIT_USAGE;
	}
	if (a.isa) { /* a converter answers whether this build and CPU have it */
		struct fpref_env env;
		fpref_env_default(&env);
		struct fpref_emu_converter *c = fpref_emu_converter_new(fpref_format_get(FPREF_FORMAT_FLOAT32),
									 fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN), &env);
		int have = c ? fpref_emu_converter_use_isa(c, a.isa) : -1;
		fpref_emu_converter_free(c);
		if (have != 0) {
			cli_fail(cli_cmd_bench.name, "no instruction set '%s' in this build or CPU (avx512, avx2, base)", a.isa);
			return CLI_EXIT_USAGE;
		}
	}
	if (a.python && !a.peers) {
		cli_fail(cli_cmd_bench.name, "--python applies to --peers only");
		return CLI_EXIT_USAGE;
	}
	if (a.only && (a.peers || !*a.only)) {
		cli_fail(cli_cmd_bench.name, a.peers ? "--only applies to the default bench and --all-models, not --peers"
						     : "--only needs some text of a row's name");
		return CLI_EXIT_USAGE;
	}
	if (a.peers && a.all_models) {
		cli_fail(cli_cmd_bench.name, "--peers and --all-models are two different benches: give one");
		return CLI_EXIT_USAGE;
	}
	if (o.json && (a.peers || a.all_models)) {
		cli_fail(cli_cmd_bench.name, "--json writes the default bench's rows; --peers and --all-models print text");
		return CLI_EXIT_USAGE;
	}
	if (a.peers)
		return bench_peers(log2n, repeats, a.python);
	if (a.all_models)
		return bench_gemm_all(repeats, a.only);
	size_t n = (size_t)1 << log2n;
	uint32_t *in = malloc(n * sizeof *in), *copy = malloc(n * sizeof *copy);
	if (!in || !copy) {
		free(in);
		free(copy);
		cli_fail(cli_cmd_bench.name, "cannot allocate %zu elements", n);
		return CLI_EXIT_FAIL;
	}
	double t[100] = { 0 };
	memset(in, 1, n * sizeof *in);
	memset(copy, 0, n * sizeof *copy);
	for (long k = 0; k < repeats; k++) {
		double t0 = bench_now();
		memcpy(copy, in, n * sizeof *in);
		t[k] = bench_now() - t0;
	}
	free(in);
	free(copy);
	struct bench_report rep = { .json = o.json, .isa = a.isa, .only = a.only };
	rep.copy_rate = 2.0 * (double)(n * sizeof *in) / bench_median(t, (int)repeats); /* bytes read + written per second */
	if (!rep.json) {
		printf("fpref bench: 2^%ld elements, median of %ld runs, one thread, its CPU time%s%s\n", log2n, repeats,
		       a.isa ? "; element rows on " : "", a.isa ? a.isa : "");
		printf("memcpy: %.3g bytes/s read+written; 'of mcpy' = elements/s over (memcpy rate / bytes per element);\n"
		       "'of ref' = elements/s over the first row's\n\n",
		       rep.copy_rate);
		printf("%-38s %12s %7s %7s %12s %9s  %s\n", "row", "emu elem/s", "of mcpy", "of ref", "ref elem/s", "emu/ref",
		       "emulator path");
	}
	int status = bench_elements(n, repeats, &rep) == 0 && bench_quantize(n, repeats, &rep) == 0 ? CLI_EXIT_OK
												  : CLI_EXIT_FAIL;
	if (status)
		cli_fail(cli_cmd_bench.name, "cannot allocate or set up the element rows");
	if (!status)
		status = bench_gemm(repeats, &rep);
	if (!status)
		status = bench_gemm_scaled(repeats, &rep);
	if (!status)
		status = bench_exact_gemm(repeats, &rep);
	if (!status && rep.only && rep.chosen == 0) {
		cli_fail(cli_cmd_bench.name, "--only '%s': no row's name holds it (fpref bench without it lists them)", rep.only);
		status = CLI_EXIT_USAGE;
	}
	if (!status && rep.json)
		print_json(log2n, repeats, &rep);
	free(rep.rows);
	return status;
}

/* ---- fpref bench --peers: libfpref beside ml_dtypes, fpref's Python
 * package and, where the command was built with it, CPFloat, on the same
 * values in one run (issue 20).  The C side converts and times, CPFloat in
 * this process (tools/bench_cpfloat.c); tools/bench_peers.py, run by a
 * Python interpreter, times the Python peers on the very values libfpref
 * converted.  Each peer's row counts how many of its results carry
 * libfpref's bits: a ratio to a peer that computes something else would
 * compare nothing. */

/* The conversions ml_dtypes (NumPy for float16) also has, under the
 * ml_dtypes profile so that both sides compute the same results. */
/* "f64." in front: the same conversion from FP64 values (issue 38), no
 * CPFloat row (cpfloatf rounds FP32) and no fpref Python row. */
static const char *const peer_formats[] = { "bfloat16",        "float16",        "float8_e4m3fn",        "float8_e5m2",
					    "f64.bfloat16",    "f64.float16",    "f64.float8_e4m3fn",    "f64.float8_e5m2" };
#define PEER_FORMATS (sizeof peer_formats / sizeof peer_formats[0])
#define PEER_ROWS 5 /* per conversion: CPFloat's and the Python half's rows */

struct peer_row {
	char impl[24]; /* cpfloat, or the Python half's label: ml_dtypes, numpy, fpref-python */
	double seconds;
	long same, n;
	char note[400]; /* what the peer cannot model of the format, or "" */
};

struct peer_results {
	double rate[PEER_FORMATS]; /* libfpref's elements per second */
	char path[PEER_FORMATS][64];
	struct peer_row rows[PEER_FORMATS][PEER_ROWS];
	int nrows[PEER_FORMATS];
	char versions[160]; /* "numpy 2.1.3, ml_dtypes 0.5.1" */
	char missing[5 + PEER_FORMATS][1400]; /* a line each, paths in them: the Python half 5 at most, CPFloat one a conversion */
	int nmissing;
};

/* The first of `paths` that `mode` (access(2)) allows, or NULL. */
static const char *first_usable(const char *const *paths, size_t n, int mode)
{
	for (size_t i = 0; i < n; i++)
		if (paths[i] && access(paths[i], mode) == 0)
			return paths[i];
	return NULL;
}

/* One line of the Python half (its docstring lists them) into r. */
static void peer_line(char *line, struct peer_results *r)
{
	line[strcspn(line, "\n")] = '\0';
	char word[16] = "", name[32] = "", impl[24] = "";
	int rest = 0;
	if (sscanf(line, "%15s %31s %n", word, name, &rest) < 2)
		return;
	if (strcmp(word, "version") == 0) {
		size_t used = strlen(r->versions);
		snprintf(r->versions + used, sizeof r->versions - used, "%s%s %s", used ? ", " : "", name, line + rest);
	} else if (strcmp(word, "missing") == 0 && r->nmissing < 4) {
		snprintf(r->missing[r->nmissing++], sizeof r->missing[0], "%s: not found (%s)",
			 strcmp(name, "fpref") ? name : "fpref Python package", line + rest);
	} else if (strcmp(word, "row") == 0) {
		double seconds;
		long same, n;
		if (sscanf(line + rest, "%23s %lf %ld %ld", impl, &seconds, &same, &n) != 4)
			return;
		for (size_t f = 0; f < PEER_FORMATS; f++)
			if (strcmp(name, peer_formats[f]) == 0 && r->nrows[f] < PEER_ROWS) {
				struct peer_row *row = &r->rows[f][r->nrows[f]++];
				snprintf(row->impl, sizeof row->impl, "%s", impl);
				row->seconds = seconds;
				row->same = same;
				row->n = n;
			}
	}
}

/* Runs the Python half on the files in dir and reads its lines into r.
 * 0; 1 where the interpreter or the script is missing (said in r); -1
 * where the script failed (a message on stderr). */
static int peer_run_python(const char *python, const char *dir, long repeats, struct peer_results *r)
{
	const char *scripts[] = { FPREF_SOURCE_SUITES "/../../tools/bench_peers.py",
				  FPREF_INSTALLED_SUITES "/../bench_peers.py" };
	const char *script = first_usable(scripts, 2, R_OK);
	if (!script) {
		snprintf(r->missing[r->nmissing++], sizeof r->missing[0],
			 "Python peers: not run (no bench_peers.py at %s or %s)", scripts[0], scripts[1]);
		return 1;
	}
	char reps[24];
	snprintf(reps, sizeof reps, "%ld", repeats);
	char *argv[4 + PEER_FORMATS + 1] = { (char *)python, (char *)script, (char *)dir, reps };
	for (size_t f = 0; f < PEER_FORMATS; f++)
		argv[4 + f] = (char *)peer_formats[f];
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fd[1], 1);
	posix_spawn_file_actions_addclose(&actions, fd[0]);
	posix_spawn_file_actions_addclose(&actions, fd[1]);
	extern char **environ;
	pid_t pid;
	int err = posix_spawnp(&pid, python, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(fd[1]);
	int lines = 0;
	if (err == 0) {
		FILE *in = fdopen(fd[0], "r");
		char *line = NULL;
		size_t cap = 0;
		while (in && getline(&line, &cap, in) > 0) {
			peer_line(line, r);
			lines++;
		}
		free(line);
		if (in)
			fclose(in);
		else
			close(fd[0]);
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return 0;
		/* 127: what a shell or an older posix_spawnp gives for an exec that failed */
		if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127 && lines == 0)) {
			cli_fail(cli_cmd_bench.name, "the Python half (%s %s) failed", python, script);
			return -1;
		}
	} else
		close(fd[0]);
	snprintf(r->missing[r->nmissing++], sizeof r->missing[0],
		 "Python: %s could not be run (--python PATH picks one): no ml_dtypes or fpref Python rows", python);
	return 1;
}

/* Writes n elements of `size` bytes to dir/name.ext; 0 or -1. */
static int peer_write(const char *dir, const char *name, const char *ext, const void *data, size_t size, size_t n)
{
	char path[1100]; /* dir is shorter than 1024 */
	snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, size, n, f) == n;
	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static void peer_remove(const char *dir)
{
	char path[1100];
	for (size_t f = 0; f < PEER_FORMATS; f++)
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof path, "%s/%s.%s", dir, peer_formats[f], k ? "out" : "in");
			remove(path);
		}
	rmdir(dir);
}

static const char *peer_label(const char *impl, char *buf, size_t size)
{
	if (strcmp(impl, "fpref-python") == 0)
		return "fpref Python convert()";
	if (strcmp(impl, "cpfloat") == 0)
		return "CPFloat cpfloatf";
	snprintf(buf, size, "%s copyto", strcmp(impl, "numpy") ? impl : "NumPy");
	return buf;
}

static void peer_print(long log2n, long repeats, const char *python, const struct peer_results *r)
{
	printf("fpref bench --peers: 2^%ld FP32 (f64 rows: FP64) values per conversion (profile ml_dtypes), median of %ld runs, one "
	       "thread, its CPU time\n",
	       log2n, repeats);
	printf("Python: %s%s%s%s\n", python, *r->versions ? " (" : "", r->versions, *r->versions ? ")" : "");
	const char *cpfloat = bench_cpfloat_where();
	if (cpfloat)
		printf("CPFloat: in this process, headers from %s\n", cpfloat);
	printf("\n");
	printf("%-24s %-30s %12s %12s  %s\n", "conversion", "implementation", "elem/s", "libfpref/row",
	       "same bits as libfpref");
	long rows = 0, differ = 0;
	for (size_t f = 0; f < PEER_FORMATS; f++) {
		char what[48], impl[48];
		bool f64 = strncmp(peer_formats[f], "f64.", 4) == 0;
		snprintf(what, sizeof what, "%s -> %s", f64 ? "f64" : "f32", peer_formats[f] + (f64 ? 4 : 0));
		snprintf(impl, sizeof impl, "libfpref (%s)", r->path[f]);
		printf("%-24s %-30s %12.3g %12s  %s\n", what, impl, r->rate[f], "1", "-");
		for (int k = 0; k < r->nrows[f]; k++) {
			const struct peer_row *p = &r->rows[f][k];
			double rate = (double)p->n / p->seconds;
			char buf[32];
			printf("%-24s %-30s %12.3g %12.3g  %ld of %ld%s\n", "", peer_label(p->impl, buf, sizeof buf), rate,
			       r->rate[f] / rate, p->same, p->n, p->same == p->n ? "" : "  DIFFER: ratio compares different results");
			if (*p->note)
				printf("%-24s   %s\n", "", p->note);
			rows++;
			differ += p->same != p->n;
		}
	}
	for (int k = 0; k < r->nmissing; k++)
		printf("%s\n", r->missing[k]);
	if (!rows)
		printf("bits: no peer rows, nothing compared\n");
	else if (!differ)
		printf("bits: all %ld peer rows gave libfpref's bits on every timed value\n", rows);
	else
		printf("bits: %ld of %ld peer rows differ from libfpref (marked DIFFER)\n", differ, rows);
	if (!cpfloat) /* said, not stubbed: CPFloat is in neither Debian nor PyPI */
		printf("CPFloat: no rows (this fpref was built without it: configure --with-cpfloat=DIR, DIR holding "
		       "CPFloat's cpfloat_binary32.h, or a pkg-config cpfloat)\n");
}

/* CPFloat's row of conversion f, where this fpref has CPFloat: its rate
 * and agreement as a row, or why it gave none as a line. */
static void peer_cpfloat(const struct fpref_format *to, const struct fpref_env *env, const uint32_t *in,
			 const void *out, size_t n, long repeats, size_t f, struct peer_results *r)
{
	struct bench_cpfloat_row c;
	if (!bench_cpfloat_where())
		return;
	if (bench_cpfloat(to, env, in, out, n, repeats, &c) != 0) {
		snprintf(r->missing[r->nmissing++], sizeof r->missing[0], "CPFloat: %s", c.note);
		return;
	}
	struct peer_row *row = &r->rows[f][r->nrows[f]++];
	snprintf(row->impl, sizeof row->impl, "cpfloat");
	row->seconds = c.seconds;
	row->same = c.same;
	row->n = c.n;
	snprintf(row->note, sizeof row->note, "%s", c.note);
}

static int bench_peers(long log2n, long repeats, const char *python)
{
	size_t n = (size_t)1 << log2n;
	uint32_t *in = malloc(n * sizeof *in);
	uint64_t *in64 = malloc(n * sizeof *in64);
	uint16_t *out = malloc(n * sizeof *out);
	struct peer_results *r = calloc(1, sizeof *r);
	const char *tmp = getenv("TMPDIR");
	char dir[1024];
	bool allocated = in && in64 && out && r;
	if (!allocated || snprintf(dir, sizeof dir, "%s/fpref-peers-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir ||
	    !mkdtemp(dir)) {
		if (allocated)
			cli_fail(cli_cmd_bench.name, "cannot make a folder %s", dir);
		else
			cli_fail(cli_cmd_bench.name, "cannot allocate %zu elements", n);
		free(in);
		free(in64);
		free(out);
		free(r);
		return CLI_EXIT_FAIL;
	}
	struct fpref_format f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32), f64 = *fpref_format_get(FPREF_FORMAT_FLOAT64);
	int rc = CLI_EXIT_OK;
	for (size_t f = 0; f < PEER_FORMATS && rc == CLI_EXIT_OK; f++) {
		struct fpref_format to;
		struct fpref_env env;
		bool wide = strncmp(peer_formats[f], "f64.", 4) == 0;
		const struct fpref_format *from = wide ? &f64 : &f32;
		fpref_format_parse(peer_formats[f] + (wide ? 4 : 0), &to, NULL, 0);
		fpref_env_default(&env);
		fpref_profile_apply_conversion("ml_dtypes", from, &to, &env);
		bench_fill_fp32(in, n, &to);
		for (size_t i = 0; wide && i < n; i++) /* FP32's values with random bits below FP32's last place */
			in64[i] = (uint64_t)(in[i] >> 31) << 63 | (uint64_t)((in[i] >> 23 & 0xFF) - 127 + 1023) << 52 |
				  (uint64_t)(in[i] & 0x7FFFFF) << 29 | (fpref_sr_stream(99, i) & 0x1FFFFFFF);
		struct fpref_emu_converter *conv = fpref_emu_converter_new(from, &to, &env);
		r->rate[f] = convert_rate(conv, wide ? (const void *)in64 : in, out, n, repeats, r->path[f], sizeof r->path[f]);
		fpref_emu_converter_free(conv);
		if (!wide)
			peer_cpfloat(&to, &env, in, out, n, repeats, f, r);
		if ((wide ? peer_write(dir, peer_formats[f], "in", in64, sizeof *in64, n)
			  : peer_write(dir, peer_formats[f], "in", in, sizeof *in, n)) != 0 ||
		    peer_write(dir, peer_formats[f], "out", out, fpref_emu_element_bytes(&to), n) != 0) {
			cli_fail(cli_cmd_bench.name, "cannot write the values to %s", dir);
			rc = CLI_EXIT_FAIL;
		}
	}
	free(in64);
	free(in);
	free(out);
	/* The project's own venv (python/check makes it) where it exists: it
	 * has NumPy, ml_dtypes and this checkout's package.  Named from the
	 * checkout's top (the suites' folder less golden/suites) so that the
	 * header line shows a plain path. */
	const char *suites = FPREF_SOURCE_SUITES, *tail = "/golden/suites";
	size_t top = strlen(suites);
	if (top >= strlen(tail) && strcmp(suites + top - strlen(tail), tail) == 0)
		top -= strlen(tail);
	char venv[1100];
	snprintf(venv, sizeof venv, "%.*s%s/build-python/venv/bin/python", (int)top, suites,
		 top == strlen(suites) ? "/../.." : "");
	if (!python && access(venv, X_OK) == 0)
		python = venv;
	if (!python)
		python = "python3";
	if (rc == CLI_EXIT_OK && peer_run_python(python, dir, repeats, r) < 0)
		rc = CLI_EXIT_FAIL;
	peer_remove(dir);
	if (rc == CLI_EXIT_OK)
		peer_print(log2n, repeats, python, r);
	free(r);
	return rc;
}
