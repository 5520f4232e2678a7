/* fpref bench's element rows: conversions from every source under every
 * rounding and overflow policy, and arithmetic on arrays, each timed in
 * the emulator's bulk call (its path named) and in the oracle on a slice.
 * A row is a line of a table below: adding one is adding a line. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Conversions: source, target, rounding (--round's spelling, stochastic
 * rows with 13 explicit random bits) and overflow (--overflow's). */
struct conversion {
	const char *from, *to, *round, *overflow;
};

static const struct conversion conversions[] = {
	/* the reference row first: every ratio is to it */
	{ "f32", "e4m3", "rne", "ieee" }, { "f32", "bf16", "rne", "ieee" }, { "f32", "f16", "rne", "ieee" },
	{ "f32", "e4m3", "rne", "sat" }, { "f32", "e5m2", "rne", "ieee" }, { "f32", "e2m1", "rne", "ieee" },
	{ "f32", "e4m3", "rtz", "ieee" }, { "f32", "e4m3", "rup", "ieee" }, { "f32", "e4m3", "rdn", "ieee" },
	{ "f32", "e4m3", "rna", "ieee" }, { "f32", "e4m3", "rod", "ieee" }, { "f32", "e4m3", "sra", "sat" },
	{ "f32", "e4m3", "srb", "sat" }, { "f32", "e4m3", "src", "sat" }, { "f32", "bf16", "rtz", "ieee" },
	{ "f32", "e5m2", "rne", "satpropagate" }, { "f32", "e5m2", "rup", "satnone" },
	{ "f32", "e4m3fnuz", "rne", "ieee" }, { "f32", "binary8p3se", "rne", "satfinite" },
	{ "f64", "e4m3", "rne", "ieee" }, { "f64", "e4m3", "rtz", "sat" }, { "f64", "bf16", "rne", "ieee" },
	{ "f64", "f16", "rne", "ieee" }, { "f64", "f32", "rne", "ieee" }, { "f64", "e2m1", "sra", "sat" },
	{ "bf16", "e4m3", "rne", "ieee" }, { "bf16", "e4m3", "rdn", "sat" }, { "f16", "e4m3", "rne", "ieee" },
	{ "f16", "e5m2", "sra", "sat" }, { "e4m3", "f32", "rne", "ieee" }, { "e4m3", "bf16", "rne", "ieee" },
	{ "e5m2", "e4m3", "sra", "sat" },
};

/* The same on FP32 values spread as gradients are (exponents GRADIENT_LEAST
 * to GRADIENT_MOST), most far below the target's least subnormal, where
 * stochastic rounding with a fixed R decides a deep tail (rows "...
 * gradients"). */
static const struct conversion gradient_conversions[] = {
	{ "f32", "e4m3", "sra", "sat" },
};

/* Arithmetic: format and operation, rne, finite operands. */
static const struct {
	const char *fmt;
	enum fpref_op op;
} ops[] = {
	{ "f16", FPREF_OP_ADD }, { "f16", FPREF_OP_SUB }, { "f16", FPREF_OP_MUL }, { "f16", FPREF_OP_DIV },
	{ "f16", FPREF_OP_SQRT }, { "f16", FPREF_OP_FMA }, { "bf16", FPREF_OP_ADD }, { "bf16", FPREF_OP_MUL },
	{ "bf16", FPREF_OP_DIV }, { "bf16", FPREF_OP_SQRT }, { "bf16", FPREF_OP_FMA }, { "e4m3", FPREF_OP_ADD },
	{ "e4m3", FPREF_OP_MUL }, { "e4m3", FPREF_OP_DIV }, { "e4m3", FPREF_OP_SQRT }, { "e4m3", FPREF_OP_FMA },
	{ "e5m2", FPREF_OP_ADD }, { "e2m3", FPREF_OP_ADD }, { "e2m3", FPREF_OP_MUL }, { "e2m1", FPREF_OP_ADD },
	{ "e2m1", FPREF_OP_MUL }, { "e2m1", FPREF_OP_FMA }, { "binary8p3se", FPREF_OP_ADD },
	{ "binary8p3se", FPREF_OP_MUL },
};

static uint64_t next_random(uint64_t *state)
{
	return fpref_sr_stream(12345, (*state)++);
}

#define GRADIENT_LEAST (-40)
#define GRADIENT_MOST 8

/* n FP32 values, random sign and significand, their exponents evenly
 * over [lo, hi] (within FP32's normal range). */
static void fill_fp32_exponents(uint32_t *x, size_t n, int lo, int hi)
{
	uint64_t state = 0;
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

void bench_fill_fp32(uint32_t *x, size_t n, const struct fpref_format *target)
{
	fill_fp32_exponents(x, n, fpref_format_min_exponent(target) - target->man_bits - 2,
			    fpref_format_max_exponent(target) + 2);
}

/* n inputs of `from` for a conversion to `to` in buf: FP32 values aimed at
 * the target (bench_fill_fp32) or spread as gradients are, FP64 ones with
 * random bits below FP32's, 16-bit ones rounded from them, narrow ones
 * every pattern at random.  0 or -1. */
static int fill_source(const struct fpref_format *from, const struct fpref_format *to, bool gradients, void *buf,
		       uint32_t *f32, size_t n)
{
	int bits = fpref_format_container_bits(from);
	if (bits <= 8) {
		uint64_t state = 1;
		for (size_t i = 0; i < n; i++)
			((uint8_t *)buf)[i] = (uint8_t)next_random(&state);
		return 0;
	}
	if (gradients)
		fill_fp32_exponents(f32, n, GRADIENT_LEAST, GRADIENT_MOST);
	else
		bench_fill_fp32(f32, n, to);
	if (bits == 32) {
		memcpy(buf, f32, n * sizeof *f32);
		return 0;
	}
	if (bits == 64) {
		uint64_t state = 2;
		for (size_t i = 0; i < n; i++) {
			uint64_t x = f32[i], e = x >> 23 & 0xFF;
			((uint64_t *)buf)[i] = (x >> 31) << 63 | (e - 127 + 1023) << 52 | (x & 0x7FFFFF) << 29 |
					       (next_random(&state) & 0x1FFFFFFF);
		}
		return 0;
	}
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_emu_converter *c = fpref_emu_converter_new(fpref_format_get(FPREF_FORMAT_FLOAT32), from, &env);
	if (!c)
		return -1;
	fpref_emu_convert_array(c, f32, buf, n, NULL, 0);
	fpref_emu_converter_free(c);
	return 0;
}

/* The path a converter took, with the vector path's instruction set. */
static void converter_path(const struct fpref_emu_converter *c, char *path, size_t size)
{
	const char *p = fpref_emu_converter_path(c);
	snprintf(path, size, strstr(p, "vector") ? "%s %s" : "%s", p, fpref_emu_converter_isa(c));
}

static int conversion_row(const struct conversion *cv, bool gradients, void *in, uint32_t *f32, void *out, size_t n,
			  size_t oracle_n, long repeats, struct bench_report *rep)
{
	struct fpref_format from, to;
	struct fpref_env env;
	fpref_env_default(&env);
	if (fpref_format_parse(cv->from, &from, NULL, 0) != 0 ||
	    fpref_format_parse(cv->to, &to, NULL, 0) != 0 ||
	    fpref_env_parse_rounding(cv->round, &env) != 0 ||
	    fpref_env_parse_overflow(cv->overflow, &env) != 0)
		return -1;
	env.sr_width = 13;
	env.sr_random = 0x0A5B;
	struct bench_row row = { .section = "elements" };
	bool plain = strcmp(cv->overflow, "ieee") == 0;
	snprintf(row.what, sizeof row.what, "%s -> %s %s%s%s%s", cv->from, to.name, cv->round,
		 plain ? "" : " ", plain ? "" : cv->overflow, gradients ? " gradients" : "");
	if (!bench_wanted(rep, row.section, row.what))
		return 0;
	if (fill_source(&from, &to, gradients, in, f32, n) != 0)
		return -1;
	struct fpref_emu_converter *c = fpref_emu_converter_new(&from, &to, &env);
	if (!c)
		return -1;
	if (rep->isa && fpref_emu_converter_use_isa(c, rep->isa) != 0) { /* cmd_bench checked it */
		fpref_emu_converter_free(c);
		return -1;
	}
	double t[100] = { 0 };
	for (long k = 0; k < repeats; k++) {
		double t0 = bench_now();
		fpref_emu_convert_array(c, in, out, n, NULL, 0);
		t[k] = bench_now() - t0;
	}
	row.rate = (double)n / bench_median(t, (int)repeats);
	row.bytes = (double)(fpref_emu_element_bytes(&from) + fpref_emu_element_bytes(&to));
	converter_path(c, row.path, sizeof row.path);
	fpref_emu_converter_free(c);
	size_t ib = fpref_emu_element_bytes(&from);
	for (long k = 0; k < repeats; k++) { /* the oracle's own figure (issue 20): a median of all the runs */
		double t0 = bench_now();
		for (size_t i = 0; i < oracle_n; i++) {
			uint64_t x = 0, bits;
			unsigned flags = 0;
			memcpy(&x, (const unsigned char *)in + i * ib, ib);
			fpref_ref_convert(&from, x, &to, &env, env.sr_random, &bits, &flags);
		}
		t[k] = bench_now() - t0;
	}
	row.ref = (double)oracle_n / bench_median(t, (int)repeats);
	return bench_report_add(rep, &row);
}

/* Operands of f for op: finite (NaN and inf patterns redrawn, as in a
 * tensor), and for sqrt not negative. */
static void fill_operands(const struct fpref_format *f, enum fpref_op op, unsigned char *a, unsigned char *b,
			  unsigned char *c, size_t n)
{
	uint64_t state = 0, mask = ((uint64_t)1 << fpref_format_container_bits(f)) - 1;
	size_t elem = fpref_emu_element_bytes(f);
	uint64_t sign = op == FPREF_OP_SQRT && f->is_signed ? (uint64_t)1 << (f->exp_bits + f->man_bits) : 0;
	struct fpref_unpacked u;
	unsigned char *dst[3] = { a, b, c };
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			uint64_t x;
			do
				x = next_random(&state) & mask & ~sign;
			while (fpref_decode(f, x, &u) != FPREF_DECODE_OK || u.cls >= FPREF_CLASS_INF);
			for (size_t e = 0; e < elem; e++)
				dst[k][i * elem + e] = (unsigned char)(x >> (8 * e));
		}
}

static int op_row(size_t r, unsigned char *a, unsigned char *b, unsigned char *c, void *out, size_t n,
		  size_t oracle_n, long repeats, struct bench_report *rep)
{
	struct fpref_format f;
	if (fpref_format_parse(ops[r].fmt, &f, NULL, 0) != 0)
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	struct bench_row row = { .section = "elements" };
	snprintf(row.what, sizeof row.what, "%s %s rne", f.name, fpref_op_name(ops[r].op));
	if (!bench_wanted(rep, row.section, row.what))
		return 0;
	fill_operands(&f, ops[r].op, a, b, c, n);
	struct fpref_emu_op_context *ctx = fpref_emu_op_context_new(ops[r].op, &f, &env);
	if (!ctx)
		return -1;
	if (rep->isa && fpref_emu_op_context_use_isa(ctx, rep->isa) != 0) {
		fpref_emu_op_context_free(ctx);
		return -1;
	}
	double t[100] = { 0 };
	for (long k = 0; k < repeats; k++) {
		double t0 = bench_now();
		fpref_emu_op_array(ctx, a, b, c, out, n, NULL, 0);
		t[k] = bench_now() - t0;
	}
	int arity = fpref_op_arity(ops[r].op);
	size_t elem = fpref_emu_element_bytes(&f);
	row.rate = (double)n / bench_median(t, (int)repeats);
	row.bytes = (double)((size_t)(arity + 1) * elem);
	const char *op_path = fpref_emu_op_context_path(ctx);
	/* the instruction set where the context's vector code ran: the lanes, the tables' gathers */
	bool vector = strstr(op_path, "-lanes") != NULL || strcmp(op_path, "table") == 0;
	snprintf(row.path, sizeof row.path, vector ? "%s %s" : "%s", op_path, fpref_emu_op_context_isa(ctx));
	fpref_emu_op_context_free(ctx);
	long oracle_repeats = repeats < 3 ? repeats : 3;
	for (long k = 0; k < oracle_repeats; k++) {
		double t0 = bench_now();
		for (size_t i = 0; i < oracle_n; i++) {
			uint64_t operands[3] = { 0, 0, 0 }, res;
			for (size_t e = 0; e < elem; e++) {
				operands[0] |= (uint64_t)a[i * elem + e] << (8 * e);
				operands[1] |= (uint64_t)b[i * elem + e] << (8 * e);
				operands[2] |= (uint64_t)c[i * elem + e] << (8 * e);
			}
			unsigned flags = 0;
			fpref_ref_op(ops[r].op, &f, operands, &env, 0, &res, &flags);
		}
		t[k] = bench_now() - t0;
	}
	row.ref = (double)oracle_n / bench_median(t, (int)oracle_repeats);
	return bench_report_add(rep, &row);
}

int bench_elements(size_t n, long repeats, struct bench_report *rep)
{
	/* the oracle is timed on a slice: 2^18 values, some 50 ms a run, long
	 * enough for a steady median on a shared machine */
	size_t oracle_n = n < ((size_t)1 << 18) ? n : (size_t)1 << 18;
	unsigned char *in = malloc(n * 8), *out = malloc(n * 4), *c = malloc(n * 2);
	uint32_t *f32 = malloc(n * sizeof *f32);
	int status = in && out && c && f32 ? 0 : -1;
	for (size_t r = 0; r < sizeof conversions / sizeof conversions[0] && !status; r++)
		status = conversion_row(&conversions[r], false, in, f32, out, n, oracle_n, repeats, rep);
	for (size_t r = 0; r < sizeof gradient_conversions / sizeof gradient_conversions[0] && !status; r++)
		status = conversion_row(&gradient_conversions[r], true, in, f32, out, n, oracle_n, repeats, rep);
	/* operands a and b in `in`, c apart, results in `out` */
	for (size_t r = 0; r < sizeof ops / sizeof ops[0] && !status; r++)
		status = op_row(r, in, in + n * 2, c, out, n, oracle_n, repeats, rep);
	free(in);
	free(out);
	free(c);
	free(f32);
	return status;
}
