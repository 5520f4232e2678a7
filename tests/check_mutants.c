/* The mutant catalogue (golden/fpref_golden_mutants.h): each bug's result on
 * inputs worked by hand, and the test of the test: a generator target left
 * out leaves the mutants it is there for caught by fewer than the bar. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A suite of one line, read through a temporary file. */
static struct fpref_golden_suite suite_of(const char *line)
{
	char path[] = "/tmp/fpref-check-mutants.XXXXXX", err[512];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "suite t\nseed 20261130\n%s\n", line);
	fclose(f);
	struct fpref_golden_suite s;
	int r = fpref_golden_suite_read(path, &s, err, sizeof err);
	unlink(path);
	ck_assert_msg(r == 0, "%s: %s", line, err);
	ck_assert_uint_eq(s.njobs, 1);
	return s;
}

static uint64_t mutant(const char *name, const struct fpref_golden_job *j, uint64_t a, uint64_t b, uint64_t c)
{
	const struct fpref_mutant *m = fpref_golden_mutant_find(name);
	ck_assert_msg(m != NULL, "no mutant %s", name);
	ck_assert_msg(fpref_golden_mutant_applies(m, j), "%s does not apply to %s", name, j->path);
	uint64_t in[3] = { a, b, c }, r = 0;
	ck_assert_int_eq(fpref_golden_mutant_result(m, j, in, &r), 0);
	return r;
}

/* Each value below is worked out by hand from the formats' definitions. */
START_TEST(conversions_by_hand)
{
	struct fpref_golden_suite s = suite_of("convert float32 float8_e4m3fn rne edge");
	const struct fpref_golden_job *j = &s.jobs[0];
	/* 17 + 2^-10: float16 keeps 17 (its ulp there is 2^-6), a tie of 16 and 18 that goes to even 16 (58); the
	 * right answer is 18 (59) */
	ck_assert_uint_eq(mutant("double-round-f16", j, 0x41880200, 0, 0), 0x58);
	ck_assert_uint_eq(mutant("double-round-bf16", j, 0x41880200, 0, 0), 0x58);
	/* 17 exactly: ties away gives 18 */
	ck_assert_uint_eq(mutant("ties-away", j, 0x41880000, 0, 0), 0x59);
	/* 1.99: truncated 1.875 (3F), ceil 2 (40), floor 1.875 */
	ck_assert_uint_eq(mutant("truncate", j, 0x3FFEB852, 0, 0), 0x3F);
	ck_assert_uint_eq(mutant("ceil", j, 0x3FF33333, 0, 0), 0x40); /* 1.9: nearest 1.875, ceil 2 */
	ck_assert_uint_eq(mutant("floor", j, 0x3FFEB852, 0, 0), 0x3F);
	/* 450 and 464 round to 448 (7E); the bug overflows them to NaN (7F) */
	ck_assert_uint_eq(mutant("overflow-above-max", j, 0x43E10000, 0, 0), 0x7F);
	ck_assert_uint_eq(mutant("overflow-above-max", j, 0x43E80000, 0, 0), 0x7F);
	/* 470 overflows (7F); the bug gives 448 */
	ck_assert_uint_eq(mutant("overflow-past-tie", j, 0x43EB0000, 0, 0), 0x7E);
	/* 1000 overflows to NaN; saturating gives 448 */
	ck_assert_uint_eq(mutant("sat-for-ieee", j, 0x447A0000, 0, 0), 0x7E);
	/* 5 2^-10 + 2^-20: 3 2^-9 (03); at full precision first it is the tie 5 2^-10, then even 2 2^-9 (02) */
	ck_assert_uint_eq(mutant("subnormal-double-round", j, 0x3BA00800, 0, 0), 0x02);
	/* 2^-9, the least subnormal (01), flushed */
	ck_assert_uint_eq(mutant("ftz-output", j, 0x3B000000, 0, 0), 0x00);
	/* 1 with bias 8 is exponent field 8 (40) */
	ck_assert_uint_eq(mutant("bias-plus-one", j, 0x3F800000, 0, 0), 0x40);
	ck_assert_uint_eq(mutant("bias-minus-one", j, 0x3F800000, 0, 0), 0x30);
	/* FNUZ: 1 at bias 8 (40), NaN at 80 */
	ck_assert_uint_eq(mutant("fn-fnuz-confused", j, 0x3F800000, 0, 0), 0x40);
	ck_assert_uint_eq(mutant("fn-fnuz-confused", j, 0x7FC00000, 0, 0), 0x80);
	/* -NaN is FF; dropped sign 7F; -0 (80) lost: 00 */
	ck_assert_uint_eq(mutant("nan-sign-dropped", j, 0xFFC00000, 0, 0), 0x7F);
	ck_assert_uint_eq(mutant("nan-sign-set", j, 0x7FC00000, 0, 0), 0xFF);
	ck_assert_uint_eq(mutant("negative-zero-lost", j, 0x80000000, 0, 0), 0x00);
	fpref_golden_suite_free(&s);

	s = suite_of("convert float32 float16 rne edge");
	j = &s.jobs[0];
	/* 70000 overflows to inf (7C00); the bug gives NaN (7E00) */
	ck_assert_uint_eq(mutant("overflow-to-nan", j, 0x4788B800, 0, 0), 0x7E00);
	fpref_golden_suite_free(&s);

	s = suite_of("convert float16 float32 rne edge");
	j = &s.jobs[0];
	/* 2^-24 (0001) is 33800000 in float32; read as zero it stays 0 */
	ck_assert_uint_eq(mutant("daz-input", j, 0x0001, 0, 0), 0x00000000);
	fpref_golden_suite_free(&s);

	s = suite_of("convert float32 float8_e4m3fn rne+sat edge");
	j = &s.jobs[0];
	ck_assert_uint_eq(mutant("ieee-for-sat", j, 0x447A0000, 0, 0), 0x7F);
	fpref_golden_suite_free(&s);

	s = suite_of("convert float32 float8_e4m3fn rtz edge");
	j = &s.jobs[0];
	/* 1.99 truncates to 1.875; rounded to nearest it is 2 */
	ck_assert_uint_eq(mutant("nearest-for-rtz", j, 0x3FFEB852, 0, 0), 0x40);
	fpref_golden_suite_free(&s);
}
END_TEST

START_TEST(operations_by_hand)
{
	struct fpref_golden_suite s = suite_of("op fma float16 rne edge");
	const struct fpref_golden_job *j = &s.jobs[0];
	/* (1 + 3 2^-10)^2 - 1 = 6153 2^-20: one rounding gives 1538 2^-18 (1E02); the product rounded first
	 * loses 9 2^-20 and leaves 6 2^-10 (1E00) */
	ck_assert_uint_eq(mutant("fma-unfused", j, 0x3C03, 0x3C03, 0xBC00), 0x1E00);
	ck_assert_uint_eq(mutant("fma-via-f32", j, 0x3C03, 0x3C03, 0xBC00), 0x1E02); /* exact in float32 */
	fpref_golden_suite_free(&s);

	s = suite_of("op lt float16 rne edge");
	j = &s.jobs[0];
	/* -1 < -2 is false; as signed integers BC00 < C000 */
	ck_assert_uint_eq(mutant("compare-as-integers", j, 0xBC00, 0xC000, 0), 1);
	fpref_golden_suite_free(&s);

	s = suite_of("op min float16 rne edge");
	j = &s.jobs[0];
	ck_assert_uint_eq(mutant("minmax-number", j, 0x7E00, 0x3C00, 0), 0x3C00);
	ck_assert_uint_eq(mutant("minmax-zero-unordered", j, 0x0000, 0x8000, 0), 0x0000);
	fpref_golden_suite_free(&s);

	s = suite_of("op div float16 rne edge");
	j = &s.jobs[0];
	/* 1/3 rounds to 1365 2^-12; times 3 is 4095 2^-12, a tie between 3BFF and 1 that goes to even 1 */
	ck_assert_uint_eq(mutant("div-by-reciprocal", j, 0x4200, 0x4200, 0), 0x3C00);
	fpref_golden_suite_free(&s);
}
END_TEST

START_TEST(catalogue_rows)
{
	ck_assert_uint_ge(fpref_golden_mutant_count(), 30);
	for (size_t i = 0; i < fpref_golden_mutant_count(); i++) {
		const struct fpref_mutant *m = fpref_golden_mutant_at(i);
		ck_assert_ptr_eq(fpref_golden_mutant_find(m->name), m);
		ck_assert(m->family && *m->family && m->bug && *m->bug);
	}
	ck_assert_ptr_null(fpref_golden_mutant_find("no-such-bug"));
}
END_TEST

/* Distinct exposing inputs of one mutant in a job's vectors, capped at the bar. */
static unsigned long exposure(const struct fpref_golden_job *j, const char *name)
{
	char *body, err[512];
	size_t len, n;
	unsigned long vectors;
	ck_assert_msg(fpref_golden_compute(j, &body, &len, &vectors, err, sizeof err) == 0, "%s", err);
	struct fpref_kill *k;
	ck_assert_msg(fpref_golden_mutants_judge(j, body, &k, &n, err, sizeof err) == 0, "%s", err);
	unsigned long d = 0;
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(k[i].mutant->name, name) == 0) {
			d = k[i].distinct;
			found = true;
		}
	free(k);
	free(body);
	ck_assert_msg(found, "%s does not apply to %s", name, j->path);
	return d;
}

/* Each target of the generator is there for some mutants: without it they
 * fall below the bar, with it they meet it. */
static void left_out(const char *line, unsigned omit, const char *name)
{
	struct fpref_golden_suite s = suite_of(line);
	struct fpref_golden_job j = s.jobs[0];
	unsigned long with = exposure(&j, name);
	j.omit = omit;
	unsigned long without = exposure(&j, name);
	ck_assert_msg(with >= FPREF_MUTANT_BAR && without < FPREF_MUTANT_BAR,
		      "%s on '%s': %lu distinct exposing vectors with the target, %lu without", name, line, with, without);
	fpref_golden_suite_free(&s);
}

START_TEST(test_of_the_test)
{
	const char *f32_e4m3 = "convert float32 float8_e4m3fn rne edge+random:1000";
	unsigned ties = FPREF_GOLDEN_OMIT_MIDPOINTS | FPREF_GOLDEN_OMIT_OVERFLOW; /* the overflow tie is a midpoint too */
	left_out(f32_e4m3, ties, "double-round-f16");
	left_out(f32_e4m3, ties, "ties-away");
	left_out(f32_e4m3, FPREF_GOLDEN_OMIT_OVERFLOW, "overflow-above-max");
	left_out(f32_e4m3, FPREF_GOLDEN_OMIT_OVERFLOW, "overflow-past-tie");
	left_out("convert float64 bfloat16 rne edge+random:1000", ties, "double-round-f32");
	left_out("op mul float32 rne edge+random:2000", FPREF_GOLDEN_OMIT_OP_CASES, "overflow-above-max");
	left_out("op fma bfloat16 rne edge+random:2000", FPREF_GOLDEN_OMIT_OP_CASES, "fma-via-f32");
	left_out("dot h100 bfloat16 float32 edge+random:200:64", FPREF_GOLDEN_OMIT_DOT_CASES, "dot-zero-sign");
	left_out("dot a100 float16 float16 edge+random:200:64", FPREF_GOLDEN_OMIT_DOT_CASES, "dot-no-floor");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mutants");
	TCase *t = tcase_create("mutants");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, catalogue_rows);
	tcase_add_test(t, conversions_by_hand);
	tcase_add_test(t, operations_by_hand);
	tcase_add_test(t, test_of_the_test);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
