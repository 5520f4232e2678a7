/* fpref bench: elements per second of the emulator and the oracle, beside
 * memcpy on the same machine.  A benchmark, never a test: timings on a
 * shared machine are noisy, so each figure is the median of several runs. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* The thread's CPU time, not the wall clock: on a shared machine the
 * neighbours stretch the wall time of every row, while the figures are
 * meant for one thread on one core (they still share caches). */
static double now(void)
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

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t next_random(uint64_t *state)
{
	return fpref_sr_stream(12345, (*state)++);
}

/* FP32 inputs spread over the target's range: mostly within it, some
 * beyond max, some tiny. */
static void fill_fp32(uint32_t *x, size_t n, const struct fpref_format *target)
{
	uint64_t state = 0;
	int lo = fpref_format_min_exponent(target) - target->man_bits - 2;
	int hi = fpref_format_max_exponent(target) + 2;
	if (lo < -126)
		lo = -126;
	if (hi > 127)
		hi = 127;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next_random(&state);
		int e = lo + (int)(r % (uint64_t)(hi - lo + 1));
		x[i] = (uint32_t)((r >> 40) & 1) << 31 | (uint32_t)(e + 127) << 23 | (uint32_t)(r >> 8 & 0x7FFFFF);
	}
}

struct row {
	const char *what;
	double emu, ref;       /* elements per second */
	double bytes;          /* bytes read and written per element */
	const char *path;
};

static void print_row(const struct row *r, double copy_rate)
{
	double limit = copy_rate / r->bytes;
	printf("%-28s %12.3g %7.3f %12.3g %9.0f  %s\n", r->what, r->emu, r->emu / limit, r->ref, r->emu / r->ref,
	       r->path);
}

/* Emulated GEMM (the tensor-core models, 512 x 512 x 512, normal inputs)
 * in multiply-accumulates per second, beside the exact product through the
 * oracle (timed on a slice of rows). */
static int bench_gemm(long repeats)
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
	printf("\n%-28s %12s %7s %12s %9s  %s\n", "gemm 512x512x512", "emu MAC/s", "", "ref MAC/s", "emu/ref",
	       "model");
	struct fpref_format f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env env;
	fpref_env_default(&env);
	double t[100] = { 0 };
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct fpref_format in;
		fpref_format_parse(rows[r].in, &in, NULL, 0);
		const struct fpref_tc_model *m = fpref_tc_model_find(rows[r].gpu, &in);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, 0, M * K, A);
		fpref_emu_random(&in, &env, FPREF_DIST_NORMAL, 0, 7, M * K, K * N, B);
		for (long k = 0; k < repeats; k++) {
			double t0 = now();
			fpref_emu_tc_gemm(m, &in, &f32, M, N, K, A, B, NULL, 0, D);
			t[k] = now() - t0;
		}
		double emu = (double)(M * N * K) / median(t, (int)repeats);
		long oracle_repeats = repeats < 3 ? repeats : 3;
		for (long k = 0; k < oracle_repeats; k++) {
			double t0 = now();
			for (size_t i = 0; i < oracle_rows; i++)
				for (size_t j = 0; j < N; j++) {
					for (size_t q = 0; q < K; q++)
						col[q] = B[q * N + j];
					unsigned flags = 0;
					fpref_ref_dot_exact(&in, A + i * K, col, K, 0, &f32, &env, &D[i * N + j], &flags);
				}
			t[k] = now() - t0;
		}
		double ref = (double)(oracle_rows * N * K) / median(t, (int)oracle_repeats);
		char what[96], model[160];
		snprintf(what, sizeof what, "%s %s -> f32", rows[r].gpu, in.name);
		snprintf(model, sizeof model, "blocks of %d, %d fraction bits; ref: exact sum, one rounding", m->block,
			 m->frac);
		printf("%-28s %12.3g %7s %12.3g %9.0f  %s\n", what, emu, "", ref, emu / ref, model);
	}
	free(A);
	free(B);
	free(D);
	free(col);
	return CLI_EXIT_OK;
}

struct bench_args {
	const char *size, *repeat;
};

static const struct cli_opt bench_opts[] = {
	{ "--size", CLI_VALUE, "LOG2N", "24", "2^LOG2N elements per conversion, 4..28", offsetof(struct bench_args, size),
	  0 },
	{ "--repeat", CLI_VALUE, "N", "5", "runs per figure, 1..100, the median reported",
	  offsetof(struct bench_args, repeat), 0 },
};

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.synopsis = "[--size LOG2N] [--repeat N]",
	.summary = "Elements per second of the emulator and the oracle, beside memcpy on the same machine (a\n"
		   "benchmark, not a test).",
	.details = "The older spellings size=LOG2N and repeat=N are the same options.\n",
	.opts = bench_opts,
	.nopts = CLI_NOPTS(bench_opts),
	.max_positional = -1,
	.examples = { "fpref bench", "fpref bench --size 16 --repeat 3" },
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
	struct bench_args a = { NULL, NULL };
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
	size_t n = (size_t)1 << log2n;
	size_t oracle_n = n < 65536 ? n : 65536; /* the oracle is timed on a slice */
	uint32_t *in = malloc(n * sizeof *in);
	uint32_t *copy = malloc(n * sizeof *copy);
	uint16_t *out = malloc(n * sizeof *out);
	if (!in || !copy || !out) {
		cli_fail(cli_cmd_bench.name, "cannot allocate %zu elements", n);
		return CLI_EXIT_FAIL;
	}
	double t[100] = { 0 };

	memset(in, 1, n * sizeof *in);
	memset(copy, 0, n * sizeof *copy);
	for (long k = 0; k < repeats; k++) {
		double t0 = now();
		memcpy(copy, in, n * sizeof *in);
		t[k] = now() - t0;
	}
	double copy_rate = 2.0 * (double)(n * sizeof *in) / median(t, (int)repeats); /* bytes read + written per second */
	printf("fpref bench: 2^%ld elements, median of %ld runs, one thread, its CPU time\n", log2n, repeats);
	printf("memcpy: %.3g bytes/s read+written; 'of memcpy' = elements/s over (memcpy rate / bytes per element)\n\n",
	       copy_rate);
	printf("%-28s %12s %7s %12s %9s  %s\n", "row", "emu elem/s", "of mcpy", "ref elem/s", "emu/ref", "emulator path");

	struct fpref_format f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	static const struct {
		const char *to;
		bool sat;
	} conversions[] = { { "bf16", false }, { "f16", false }, { "e4m3", false }, { "e4m3", true }, { "e5m2", false },
			    { "e2m1", false } };
	for (size_t c = 0; c < sizeof conversions / sizeof conversions[0]; c++) {
		struct fpref_format to;
		fpref_format_parse(conversions[c].to, &to, NULL, 0);
		struct fpref_env env;
		fpref_env_default(&env);
		env.overflow = conversions[c].sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		fill_fp32(in, n, &to);
		struct fpref_emu_converter *conv = fpref_emu_converter_new(&f32, &to, &env);
		for (long k = 0; k < repeats; k++) {
			double t0 = now();
			fpref_emu_convert_array(conv, in, out, n, NULL, 0);
			t[k] = now() - t0;
		}
		char path[64]; /* the vector path's instruction set beside its name */
		snprintf(path, sizeof path, strcmp(fpref_emu_converter_path(conv), "fp32-vector") ? "%s" : "%s %s",
			 fpref_emu_converter_path(conv), fpref_emu_converter_isa(conv));
		struct row row = { NULL, (double)n / median(t, (int)repeats), 0,
				   (double)(4 + fpref_emu_element_bytes(&to)), path };
		for (long k = 0; k < repeats; k++) { /* the oracle's own figure (issue 20): a median of all the runs */
			double t0 = now();
			for (size_t i = 0; i < oracle_n; i++) {
				uint64_t bits;
				unsigned flags = 0;
				fpref_ref_convert(&f32, in[i], &to, &env, 0, &bits, &flags);
			}
			t[k] = now() - t0;
		}
		row.ref = (double)oracle_n / median(t, (int)repeats);
		char what[128];
		snprintf(what, sizeof what, "f32 -> %s rne%s", to.name, conversions[c].sat ? " sat" : "");
		row.what = what;
		print_row(&row, copy_rate);
		fpref_emu_converter_free(conv);
	}

	static const struct {
		const char *fmt;
		enum fpref_op op;
	} ops[] = { { "f16", FPREF_OP_ADD }, { "f16", FPREF_OP_MUL }, { "e4m3", FPREF_OP_ADD }, { "e4m3", FPREF_OP_MUL } };
	for (size_t c = 0; c < sizeof ops / sizeof ops[0]; c++) {
		struct fpref_format f;
		fpref_format_parse(ops[c].fmt, &f, NULL, 0);
		struct fpref_env env;
		fpref_env_default(&env);
		uint64_t state = 0, mask = ((uint64_t)1 << fpref_format_container_bits(&f)) - 1;
		size_t elem = fpref_emu_element_bytes(&f);
		/* operands a and b side by side in `copy`, results in `out` */
		unsigned char *a = (unsigned char *)copy, *b = a + n * elem;
		/* finite operands, as in a tensor: NaN and inf patterns are redrawn */
		struct fpref_unpacked u;
		for (size_t i = 0; i < n; i++) {
			uint64_t x;
			do
				x = next_random(&state);
			while (fpref_decode(&f, x & mask, &u) != FPREF_DECODE_OK || u.cls >= FPREF_CLASS_INF ||
			       fpref_decode(&f, (x >> 32) & mask, &u) != FPREF_DECODE_OK || u.cls >= FPREF_CLASS_INF);
			for (size_t k = 0; k < elem; k++) {
				a[i * elem + k] = (unsigned char)((x & mask) >> (8 * k));
				b[i * elem + k] = (unsigned char)(((x >> 32) & mask) >> (8 * k));
			}
		}
		struct fpref_emu_op_context *ctx = fpref_emu_op_context_new(ops[c].op, &f, &env);
		for (long k = 0; k < repeats; k++) {
			double t0 = now();
			fpref_emu_op_array(ctx, a, b, NULL, out, n, NULL, 0);
			t[k] = now() - t0;
		}
		struct row row = { NULL, (double)n / median(t, (int)repeats), 0, (double)(3 * elem),
				   fpref_emu_op_context_path(ctx) };
		fpref_emu_op_context_free(ctx);
		uint64_t sink = 0;
		for (long k = 0; k < (repeats < 3 ? repeats : 3); k++) {
			double t0 = now();
			for (size_t i = 0; i < oracle_n; i++) {
				uint64_t operands[3] = { 0, 0, 0 }, res;
				for (size_t e = 0; e < elem; e++) {
					operands[0] |= (uint64_t)a[i * elem + e] << (8 * e);
					operands[1] |= (uint64_t)b[i * elem + e] << (8 * e);
				}
				unsigned flags = 0;
				fpref_ref_op(ops[c].op, &f, operands, &env, 0, &res, &flags);
				sink += res;
			}
			t[k] = now() - t0;
		}
		row.ref = (double)oracle_n / median(t, (int)(repeats < 3 ? repeats : 3));
		char what[128];
		snprintf(what, sizeof what, "%s %s rne%s", f.name, fpref_op_name(ops[c].op), sink == 1 ? " " : "");
		row.what = what;
		print_row(&row, copy_rate);
	}
	free(in);
	free(copy);
	free(out);
	return bench_gemm(repeats);
}
