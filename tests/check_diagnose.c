/* Mismatch classes (golden/classify.c) and the diagnosis (golden/diagnose.c):
 * each class on a case worked by hand where it is right, and on a case
 * beside it where it must not appear; every mutant of the catalogue named
 * first on its own outputs, in conversions, operations and dot products; a
 * correct kernel diagnosed as nothing.  Kernels built independently of the
 * catalogue (the emulator's convert and ops under another environment)
 * are in tests/diagnose.sh. */
#include <check.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A job of one conversion, by hand: the suite's reader is not what is tested. */
static struct fpref_golden_job convert_job(const char *from, const char *to, bool ftz)
{
	struct fpref_golden_job j;
	memset(&j, 0, sizeof j);
	j.kind = FPREF_GOLDEN_CONVERT;
	j.in = test_format(from);
	j.out = test_format(to);
	fpref_env_default(&j.env);
	j.env.ftz = ftz;
	return j;
}

static struct fpref_golden_job op_job(enum fpref_op op, const char *fmt)
{
	struct fpref_golden_job j;
	memset(&j, 0, sizeof j);
	j.kind = FPREF_GOLDEN_OP;
	j.op = op;
	j.in = j.out = test_format(fmt);
	fpref_env_default(&j.env);
	return j;
}

/* The class one line alone gets, and whether a class is among those true of it. */
static enum fpref_mismatch one(const struct fpref_golden_job *j, uint64_t a, uint64_t b, uint64_t golden, uint64_t got)
{
	uint64_t in[3] = { a, b, 0 };
	return fpref_golden_classify_exact(j, in, golden, 0, got, -1);
}

static bool has(const struct fpref_golden_job *j, uint64_t a, uint64_t b, uint64_t golden, uint64_t got,
		enum fpref_mismatch c)
{
	uint64_t in[3] = { a, b, 0 };
	return (fpref_golden_classes_exact(j, in, golden, 0, got, -1) & 1u << c) != 0;
}

/* float32 -> E4M3FN.  1.0 is 0x38, 1.125 is 0x39; their midpoint 1.0625 is
 * 0x3F880000; 0x3F880001 lies one float32 ulp above it (float16 rounds it
 * to the midpoint, which then goes to even, 1.0: double rounding). */
START_TEST(rounding_classes)
{
	struct fpref_golden_job j = convert_job("float32", "float8_e4m3fn", false);
	/* a tie: the midpoint exactly, given the odd neighbour */
	ck_assert_int_eq(one(&j, 0x3F880000, 0, 0x38, 0x39), FPREF_MISMATCH_TIE);
	/* not a tie: one ulp above the midpoint; truncation and double rounding */
	ck_assert(!has(&j, 0x3F880001, 0, 0x39, 0x38, FPREF_MISMATCH_TIE));
	ck_assert(has(&j, 0x3F880001, 0, 0x39, 0x38, FPREF_MISMATCH_DOUBLE_ROUNDING));
	ck_assert(has(&j, 0x3F880001, 0, 0x39, 0x38, FPREF_MISMATCH_TRUNCATED));
	ck_assert_int_eq(one(&j, 0x3F880001, 0, 0x39, 0x38), FPREF_MISMATCH_DOUBLE_ROUNDING);
	/* 1.0703125 (0x3F890000) is a float16 value, no midpoint: rounding twice
	 * changes nothing, and the neighbour toward zero is truncation alone */
	ck_assert(!has(&j, 0x3F890000, 0, 0x39, 0x38, FPREF_MISMATCH_DOUBLE_ROUNDING));
	ck_assert_int_eq(one(&j, 0x3F890000, 0, 0x39, 0x38), FPREF_MISMATCH_TRUNCATED);
	/* 1.03125, below the midpoint: the neighbour away from zero; no truncation */
	ck_assert_int_eq(one(&j, 0x3F840000, 0, 0x38, 0x39), FPREF_MISMATCH_AWAY);
	ck_assert(!has(&j, 0x3F840000, 0, 0x38, 0x39, FPREF_MISMATCH_TRUNCATED));
	ck_assert_int_eq(one(&j, 0xBF840000, 0, 0xB8, 0xB9), FPREF_MISMATCH_AWAY);
	ck_assert_int_eq(one(&j, 0xBF890000, 0, 0xB9, 0xB8), FPREF_MISMATCH_TRUNCATED);
	/* two ulps off is none of them */
	ck_assert_int_eq(one(&j, 0x3F840000, 0, 0x38, 0x3A), FPREF_MISMATCH_OTHER);
	/* the exact value consulted, "rounding direction" (the golden's
	 * neighbour, the exact value unknown) never appears */
	ck_assert_int_ne(one(&j, 0x3F840000, 0, 0x38, 0x39), FPREF_MISMATCH_DIRECTION);
	ck_assert_int_eq(fpref_golden_classify(&j.out, 0x38, 0, 0x39, -1), FPREF_MISMATCH_DIRECTION);
	/* a tie in an operation: bfloat16 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7 */
	struct fpref_golden_job add = op_job(FPREF_OP_ADD, "bfloat16");
	ck_assert_int_eq(one(&add, 0x3F80, 0x3B80, 0x3F80, 0x3F81), FPREF_MISMATCH_TIE);
	ck_assert_int_eq(one(&add, 0x3F80, 0x3B00, 0x3F80, 0x3F81), FPREF_MISMATCH_AWAY);
}
END_TEST

/* Subnormals: E4M3FN's least subnormal is 2^-9 (0x01), 2^-8 is 0x02, its
 * least normal 2^-6 (0x08). */
START_TEST(subnormal_classes)
{
	struct fpref_golden_job j = convert_job("float32", "float8_e4m3fn", false);
	ck_assert_int_eq(one(&j, 0x3B800000, 0, 0x02, 0x00), FPREF_MISMATCH_FLUSHED);
	/* a normal golden value given as zero is no flush */
	ck_assert(!has(&j, 0x3F800000, 0, 0x38, 0x00, FPREF_MISMATCH_FLUSHED));
	ck_assert_int_eq(one(&j, 0x3F800000, 0, 0x38, 0x00), FPREF_MISMATCH_OTHER);
	/* a tiny exact value (2^-6 less a little) that rounds up to the least
	 * normal, flushed before rounding */
	ck_assert_int_eq(one(&j, 0x3C7FFFFF, 0, 0x08, 0x00), FPREF_MISMATCH_FLUSHED);
	/* a job that flushes: a subnormal given where the golden is zero */
	struct fpref_golden_job ftz = convert_job("float32", "float8_e4m3fn", true);
	ck_assert_int_eq(one(&ftz, 0x3B800000, 0, 0x00, 0x02), FPREF_MISMATCH_NOT_FLUSHED);
	ck_assert(!has(&ftz, 0x3F800000, 0, 0x00, 0x38, FPREF_MISMATCH_NOT_FLUSHED));
	/* a subnormal input read as zero: E4M3FN 0x01 is 2^-9, a normal float16 */
	struct fpref_golden_job up = convert_job("float8_e4m3fn", "float16", false);
	ck_assert_int_eq(one(&up, 0x01, 0, 0x1800, 0x0000), FPREF_MISMATCH_DAZ);
	ck_assert(!has(&up, 0x38, 0, 0x3C00, 0x0000, FPREF_MISMATCH_DAZ));
	/* bfloat16 2^-127 + 2^-127 is 2^-126, the least normal; read as zeros, 0 */
	struct fpref_golden_job add = op_job(FPREF_OP_ADD, "bfloat16");
	ck_assert_int_eq(one(&add, 0x0040, 0x0040, 0x0080, 0x0000), FPREF_MISMATCH_DAZ);
	ck_assert(!has(&add, 0x0080, 0x0080, 0x0100, 0x0000, FPREF_MISMATCH_DAZ));
}
END_TEST

/* Overflow: E5M2 has inf (0x7C) and max 57344 (0x7B); E4M3FN has none, its
 * max 448 (0x7E) and NaN 0x7F. */
START_TEST(overflow_classes)
{
	struct fpref_golden_job e5 = convert_job("float32", "float8_e5m2", false);
	struct fpref_golden_job e4 = convert_job("float32", "float8_e4m3fn", false);
	uint64_t million = 0x49742400; /* 1e6 */
	ck_assert_int_eq(one(&e5, million, 0, 0x7C, 0x7B), FPREF_MISMATCH_SATURATION);
	ck_assert_int_eq(one(&e5, 0x47600000, 0, 0x7B, 0x7C), FPREF_MISMATCH_INF_FOR_MAX);
	ck_assert(!has(&e5, million, 0, 0x7C, 0x7B, FPREF_MISMATCH_MAX_FOR_NAN));
	ck_assert(!has(&e5, 0x47600000, 0, 0x7B, 0x7C, FPREF_MISMATCH_NAN_FOR_MAX));
	/* E4M3FN: no inf, so never "inf" in a class */
	ck_assert_int_eq(one(&e4, million, 0, 0x7F, 0x7E), FPREF_MISMATCH_MAX_FOR_NAN);
	ck_assert_int_eq(one(&e4, 0x43E00000, 0, 0x7E, 0x7F), FPREF_MISMATCH_NAN_FOR_MAX);
	unsigned classes = 0;
	uint64_t in[3] = { million, 0, 0 }, in448[3] = { 0x43E00000, 0, 0 };
	classes |= fpref_golden_classes_exact(&e4, in, 0x7F, 0, 0x7E, -1);
	classes |= fpref_golden_classes_exact(&e4, in448, 0x7E, 0, 0x7F, -1);
	ck_assert_uint_eq(classes & (1u << FPREF_MISMATCH_SATURATION | 1u << FPREF_MISMATCH_INF_FOR_MAX |
				     1u << FPREF_MISMATCH_NAN_FOR_INF),
			  0);
	/* E5M2 overflowing to NaN, as E4M3 does: NaN for inf (0x7E is one of E5M2's NaNs) */
	ck_assert_int_eq(one(&e5, million, 0, 0x7C, 0x7E), FPREF_MISMATCH_NAN_FOR_INF);
	ck_assert(!has(&e5, million, 0, 0x7C, 0x7B, FPREF_MISMATCH_NAN_FOR_INF));
	/* 464.00003 (0x43E80001) overflows; float16 rounds it to 464, the
	 * overflow tie, which goes to even, 448: double rounding, which
	 * explains the line better than saturation */
	ck_assert_int_eq(one(&e4, 0x43E80001, 0, 0x7F, 0x7E), FPREF_MISMATCH_DOUBLE_ROUNDING);
	ck_assert(has(&e4, 0x43E80001, 0, 0x7F, 0x7E, FPREF_MISMATCH_MAX_FOR_NAN));
	/* NaN encodings, signs of zero, flags only, from the bits alone */
	struct fpref_golden_job f16 = convert_job("float32", "float16", false);
	ck_assert_int_eq(one(&f16, 0x7FC00000, 0, 0x7E00, 0x7FFF), FPREF_MISMATCH_NAN_ENCODING);
	ck_assert_int_eq(one(&f16, 0x80000000, 0, 0x8000, 0x0000), FPREF_MISMATCH_ZERO_SIGN);
	ck_assert_int_ne(one(&f16, 0x3F800000, 0, 0x3C00, 0x3C01), FPREF_MISMATCH_ZERO_SIGN);
}
END_TEST

/* Where the golden is a model's: nearer the exact value, or farther. */
START_TEST(model_classes)
{
	struct fpref_format f32 = test_format("f32");
	double ulp3 = 2.384185791015625e-07; /* float32's ulp at 3 */
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x40400000, 0x40400001, 0, ulp3), FPREF_MISMATCH_FARTHER);
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x40400001, 0x40400000, ulp3, 0), FPREF_MISMATCH_NEARER);
	/* no exact value, or as near: the bits' class */
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x40400000, 0x40400001, NAN, ulp3), FPREF_MISMATCH_DIRECTION);
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x40400000, 0x40400001, ulp3, ulp3), FPREF_MISMATCH_DIRECTION);
	/* what the bits say precisely stays: never "nearer" for a flushed subnormal or a NaN */
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x00000003, 0x00000000, 1e-45, 4e-45), FPREF_MISMATCH_FLUSHED);
	ck_assert_int_eq(fpref_golden_classify_errors(&f32, 0x7FC00000, 0x7FC00001, NAN, NAN),
			 FPREF_MISMATCH_NAN_ENCODING);
	/* a conversion's golden is the correct rounding: neither class appears */
	struct fpref_golden_job j = convert_job("float32", "float8_e4m3fn", false);
	uint64_t in[3] = { 0x3F840000, 0, 0 };
	unsigned c = fpref_golden_classes_exact(&j, in, 0x38, 0, 0x3A, -1);
	ck_assert_uint_eq(c & (1u << FPREF_MISMATCH_NEARER | 1u << FPREF_MISMATCH_FARTHER), 0);
}
END_TEST

/* A file's classes: as few as are true of its mismatches. */
START_TEST(file_level_order)
{
	struct fpref_class_tally t = { 0 };
	enum fpref_mismatch order[FPREF_MISMATCH_COUNT];
	unsigned dr = 1u << FPREF_MISMATCH_DOUBLE_ROUNDING, tr = 1u << FPREF_MISMATCH_TRUNCATED,
		 aw = 1u << FPREF_MISMATCH_AWAY, fl = 1u << FPREF_MISMATCH_FLUSHED;
	/* a double-rounding kernel: each line truncated or rounded away, all double rounding */
	for (int i = 0; i < 300; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, dr | tr), 0);
	for (int i = 0; i < 250; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, dr | aw), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, dr | fl), 0);
	ck_assert_uint_eq(t.n, 3);
	fpref_golden_class_order(&t, order);
	ck_assert_int_eq(order[0], FPREF_MISMATCH_DOUBLE_ROUNDING);
	fpref_golden_class_tally_free(&t);
	/* a truncating kernel: a few of its lines happen to be double rounding too */
	for (int i = 0; i < 500; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, tr), 0);
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, tr | dr), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, tr | fl), 0);
	fpref_golden_class_order(&t, order);
	ck_assert_int_eq(order[0], FPREF_MISMATCH_TRUNCATED);
	ck_assert_int_eq(fpref_golden_class_first(tr | dr, order), FPREF_MISMATCH_TRUNCATED);
	/* two bugs: 60 flushed alone, 40 ties alone: both classes, each its own */
	fpref_golden_class_tally_free(&t);
	unsigned tie = 1u << FPREF_MISMATCH_TIE;
	for (int i = 0; i < 60; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, fl), 0);
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(fpref_golden_class_tally_add(&t, tie | aw), 0);
	fpref_golden_class_order(&t, order);
	ck_assert_int_eq(order[0], FPREF_MISMATCH_FLUSHED);
	ck_assert_int_eq(order[1], FPREF_MISMATCH_TIE);
	fpref_golden_class_tally_free(&t);
	/* every class has a name */
	for (int c = 0; c < FPREF_MISMATCH_COUNT; c++)
		ck_assert_ptr_nonnull(fpref_golden_mismatch_name((enum fpref_mismatch)c));
}
END_TEST

/* ---- the diagnosis ---- */

static struct fpref_golden_suite suite_of(const char *text)
{
	char path[] = "/tmp/fpref-check-diagnose.XXXXXX", err[512];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "suite t\nseed 20261206\n%s\n", text);
	fclose(f);
	struct fpref_golden_suite s;
	int r = fpref_golden_suite_read(path, &s, err, sizeof err);
	unlink(path);
	ck_assert_msg(r == 0, "%s: %s", text, err);
	return s;
}

/* A job's golden file, written and read back as verify reads it. */
static void golden_of(const struct fpref_golden_job *j, char *dir, struct fpref_golden_file *g)
{
	char *body = NULL, err[512], path[512];
	size_t len;
	unsigned long vectors;
	ck_assert_msg(fpref_golden_compute(j, &body, &len, &vectors, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_golden_write(dir, j, "t", body, len, vectors, err, sizeof err) == 0, "%s", err);
	free(body);
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	ck_assert_msg(fpref_golden_read(path, g, err, sizeof err) == 0, "%s", err);
	unlink(path);
}

/* Every applicable mutant's own outputs: it is named first (or ties,
 * exactly, with a mutant that gives the same bits on this file).  How many
 * mutants were named, per kind of job. */
static void each_mutant_first(const char *suite, size_t *named, bool *seen)
{
	struct fpref_golden_suite s = suite_of(suite);
	char dir[] = "/tmp/fpref-check-diagnose-dir.XXXXXX", err[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct fpref_golden_line *l = malloc(sizeof *l);
	ck_assert_ptr_nonnull(l);
	for (size_t k = 0; k < s.njobs; k++) {
		const struct fpref_golden_job *j = &s.jobs[k];
		struct fpref_golden_file g;
		golden_of(j, dir, &g);
		struct fpref_golden_results r = { malloc(g.nlines * sizeof *r.bits), malloc(g.nlines * sizeof *r.flags),
						  g.nlines };
		ck_assert(r.bits && r.flags);
		/* the golden results themselves: a correct kernel, no diagnosis */
		for (size_t i = 0; i < g.nlines; i++) {
			ck_assert_int_eq(fpref_golden_parse_line(j, g.lines[i], l, err, sizeof err), 0);
			r.bits[i] = l->result;
			r.flags[i] = -1;
		}
		struct fpref_diagnosis_report d;
		ck_assert_msg(fpref_golden_diagnose(&g, j, &r, 2, &d, err, sizeof err) == 0, "%s", err);
		ck_assert_uint_eq(d.mismatches, 0);
		ck_assert_uint_eq(d.nrows, 0);
		ck_assert_uint_eq(d.ncover, 0);
		fpref_golden_diagnosis_free(&d);
		for (size_t m = 0; m < fpref_golden_mutant_count(); m++) {
			const struct fpref_mutant *mu = fpref_golden_mutant_at(m);
			if (!fpref_golden_mutant_applies(mu, j))
				continue;
			size_t differ = 0;
			for (size_t i = 0; i < g.nlines; i++) {
				ck_assert_int_eq(fpref_golden_parse_line(j, g.lines[i], l, err, sizeof err), 0);
				ck_assert_int_eq(fpref_golden_mutant_result(mu, j, l->in, &r.bits[i]), 0);
				differ += r.bits[i] != l->result;
			}
			if (!differ)
				continue; /* the file does not expose it */
			ck_assert_msg(fpref_golden_diagnose(&g, j, &r, 2, &d, err, sizeof err) == 0, "%s", err);
			ck_assert_uint_eq(d.mismatches, differ);
			ck_assert_uint_ge(d.nrows, 1);
			bool first = false;
			for (size_t i = 0; i < d.nrows && fpref_golden_diagnosis_exact(&d.rows[i]); i++)
				first = first || d.rows[i].mutant == mu;
			ck_assert_msg(first, "%s: %s's outputs diagnosed first as %s (explains %zu of %zu, contradicts %zu)",
				      j->path, mu->name, d.rows[0].mutant->name, d.rows[0].explains, d.rows[0].mismatches,
				      d.rows[0].contradicts);
			ck_assert_uint_eq(d.ncover, 1);
			ck_assert_uint_eq(d.covered, differ);
			fpref_golden_diagnosis_free(&d);
			named[j->kind]++;
			seen[m] = true;
		}
		fpref_golden_results_free(&r);
		fpref_golden_file_free(&g);
	}
	free(l);
	fpref_golden_suite_free(&s);
	/* the job subfolders golden_of made, then the folder */
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(every_mutant_named_first)
{
	size_t named[3] = { 0, 0, 0 };
	bool *seen = calloc(fpref_golden_mutant_count(), sizeof *seen);
	ck_assert_ptr_nonnull(seen);
	each_mutant_first("convert float32 float8_e4m3fn,float8_e5m2,float8_e4m3fnuz,bfloat16 rne,rne+sat edge+random:300\n"
			  "convert float64 float32,float16 rne,rtz edge+random:200\n"
			  "op all float16,float8_e4m3fn rne edge+random:300\n"
			  "op add,mul,fma bfloat16 rtz edge+random:300\n"
			  "op fma float32 rne edge+random:300\n"
			  "dot h100,ada float8_e4m3fn,float16 float32 edge+random:40:64\n"
			  "dot h100 float8_e4m3fn,float16 float16 edge+random:40:64\n"
			  "dot h100 float8_e5m2*float8_e4m3fn float32 edge+random:40:64\n"
			  "dot a100 bfloat16 float32 edge+random:40:64",
			  named, seen);
	/* and every mutant of the catalogue among them */
	for (size_t m = 0; m < fpref_golden_mutant_count(); m++)
		ck_assert_msg(seen[m], "%s: not exposed by the test's suite", fpref_golden_mutant_at(m)->name);
	free(seen);
	/* the catalogue's families: at least this many mutants named on their own outputs */
	ck_assert_uint_ge(named[FPREF_GOLDEN_CONVERT], 40);
	ck_assert_uint_ge(named[FPREF_GOLDEN_OP], 30);
	ck_assert_uint_ge(named[FPREF_GOLDEN_DOT], 12);
}
END_TEST

/* ---- GEMMs ---- */

enum { GM = 12, GN = 12, GK = 128 };
struct gemm_data {
	struct fpref_format e4m3, f32;
	struct fpref_env env;
	uint64_t A[GM * GK], B[GK * GN], C[GM * GN], D[GM * GN];
	struct fpref_gemm_problem p;
};

/* The kernel's D (A, B: random E4M3 patterns, no NaN; C about 1) through
 * `kernel`, and the problem set for `model`; malloc'ed. */
static struct gemm_data *gemm_kernel(const struct fpref_accum_model *kernel, const struct fpref_accum_model *model)
{
	enum { M = GM, N = GN, K = GK };
	struct gemm_data *g = malloc(sizeof *g);
	ck_assert_ptr_nonnull(g);
	g->e4m3 = test_format("e4m3");
	g->f32 = test_format("f32");
	fpref_env_default(&g->env);
	uint64_t x = 12345;
	for (size_t i = 0; i < M * K + K * N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t code = (x >> 56) & 0x7F;
		code = code == 0x7F ? 0x7E : code; /* no NaN */
		code |= (x >> 40) & 0x80;
		(i < M * K ? g->A : g->B)[i < M * K ? i : i - M * K] = code;
	}
	for (size_t i = 0; i < M * N; i++)
		g->C[i] = 0x3F800000 + (i << 12); /* about 1: C matters */
	g->p = (struct fpref_gemm_problem){ .M = M, .N = N, .K = K, .src = &g->e4m3, .in_a = &g->e4m3, .in_b = &g->e4m3,
					    .out = &g->f32, .A = g->A, .B = g->B, .Aq = g->A, .Bq = g->B, .C = g->C,
					    .model = kernel, .env = &g->env, .threads = 1 };
	ck_assert_int_eq(fpref_golden_gemm(&g->p, g->D, NULL, NULL, NULL), 0);
	g->p.model = model;
	return g;
}

/* How many of the kernel's elements verify-gemm puts in class c. */
static size_t gemm_classes(const struct fpref_accum_model *kernel, const struct fpref_accum_model *model,
			   enum fpref_mismatch c)
{
	struct gemm_data *g = gemm_kernel(kernel, model);
	struct fpref_verify_options o = { -1, -1, 0, NULL, NULL };
	struct fpref_gemm_verdict v;
	char err[256];
	ck_assert_msg(fpref_golden_gemm_verify(&g->p, g->D, &o, &v, NULL, NULL, err, sizeof err) == 0, "%s", err);
	size_t n = v.by_kind[c];
	fpref_golden_gemm_verdict_free(&v);
	free(g);
	return n;
}

/* A kernel's D made by one model, judged against another: the variant
 * that is the kernel's model fits every sampled element. */
static bool gemm_fits(const struct fpref_accum_model *kernel, const struct fpref_accum_model *model, const char *want)
{
	struct gemm_data *g = gemm_kernel(kernel, model);
	struct fpref_gemm_diagnosis d;
	char err[256];
	ck_assert_msg(fpref_golden_gemm_diagnose(&g->p, g->D, 32, &d, err, sizeof err) == 0, "%s", err);
	free(g);
	bool fits = false;
	if (!want) /* the model's own D: nothing differs, nothing to name */
		fits = d.mismatches == 0 && d.nrows == 0;
	for (size_t i = 0; want && i < d.nrows; i++)
		fits = fits || (strstr(d.rows[i].what, want) && d.rows[i].explains == d.sampled_mismatches &&
				d.rows[i].keeps == d.sampled_matches && d.sampled_mismatches > 0);
	if (!fits)
		for (size_t i = 0; i < d.nrows && i < 5; i++)
			fprintf(stderr, "  %s: %zu/%zu, %zu/%zu\n", d.rows[i].what, d.rows[i].explains, d.sampled_mismatches,
				d.rows[i].keeps, d.sampled_matches);
	fpref_golden_gemm_diagnosis_free(&d);
	return fits;
}

START_TEST(gemm_variants)
{
	struct fpref_format e4m3 = test_format("e4m3");
	const struct fpref_tc_model *h100 = fpref_tc_model_find("h100", &e4m3);
	ck_assert_ptr_nonnull(h100);
	struct fpref_accum_model model = { .kind = FPREF_ACCUM_TC, .tc = *h100 }, k;
	ck_assert(gemm_fits(&model, &model, NULL));
	k = model;
	k.promote = 32;
	ck_assert(gemm_fits(&k, &model, "promotion to FP32 every 32 products"));
	ck_assert(gemm_fits(&model, &k, "no promotion"));
	k = model;
	k.tc.frac = 25;
	ck_assert(gemm_fits(&k, &model, "more fraction bits: 25 where the model keeps 13"));
	k = model;
	k.kind = FPREF_ACCUM_EXACT;
	ck_assert(gemm_fits(&k, &model, "the exact product rounded once"));
	k = model;
	k.tc.block = 16;
	ck_assert(gemm_fits(&k, &model, "blocks of 16 products where the model sums 32"));
	k = model;
	k.tc.round_fp32 = FPREF_RNE;
	ck_assert(gemm_fits(&k, &model, "the block rounded to nearest even"));
	/* verify-gemm's classes: an exact kernel against the truncating model is
	 * never farther from the exact product, the model against it never nearer */
	k = model;
	k.kind = FPREF_ACCUM_EXACT;
	size_t near = gemm_classes(&k, &model, FPREF_MISMATCH_NEARER), far = gemm_classes(&k, &model, FPREF_MISMATCH_FARTHER);
	ck_assert_uint_gt(near, 0);
	ck_assert_uint_eq(far, 0);
	ck_assert_uint_eq(gemm_classes(&model, &k, FPREF_MISMATCH_NEARER), 0);
	ck_assert_uint_eq(gemm_classes(&model, &k, FPREF_MISMATCH_FARTHER), near);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diagnose");
	TCase *tc = tcase_create("diagnose");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rounding_classes);
	tcase_add_test(tc, subnormal_classes);
	tcase_add_test(tc, overflow_classes);
	tcase_add_test(tc, model_classes);
	tcase_add_test(tc, file_level_order);
	tcase_add_test(tc, every_mutant_named_first);
	tcase_add_test(tc, gemm_variants);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
