/* fpref probe on synthetic hardware: the probe inputs answered by the MPFR
 * oracle under a custom block model (the oracle, not the emulator that the
 * search runs, so that the two sides are independent), then inferred back.
 * The search must find exactly one class, holding the model, and as narrow
 * as K-product cases can make it: the block exact (or "K or more"), the
 * fraction count and rounding exact, the floor exact where the formats let
 * its cut show (elsewhere the class holds it among floors that act alike). */
#include <string.h>

#include "testutil.h"

struct synthetic {
	const char *in, *out;
	size_t K;
	int block, frac, floor;
	enum fpref_rounding rounding;
	bool floor_exact; /* a floor the cases can pin (terms fall below it, and its cut shows in the output) */
};

/* Presets and models unlike any preset (rne for FP32, odd blocks, wide
 * and narrow fractions, floors where they act). */
static const struct synthetic models[] = {
	{ "float16", "float32", 16, 8, 24, -132, FPREF_RTZ, false }, /* A100: the floor never acts */          /* A100 */
	{ "bfloat16", "float32", 16, 16, 25, -133, FPREF_RTZ, true },        /* H100 */
	{ "float8_e4m3fn", "float32", 32, 32, 13, -133, FPREF_RTZ, false },   /* H100 FP8: block = K */
	{ "float16", "float32", 16, 4, 27, FPREF_TC_NO_FLOOR, FPREF_RNE, false },
	{ "bfloat16", "float32", 16, 2, 20, -100, FPREF_RTZ, true },
	{ "float16", "float16", 16, 5, 30, -20, FPREF_RTZ, false }, /* cuts below 2^-50: no product is that small */
	{ "float8_e5m2", "float16", 32, 16, 11, -10, FPREF_RNE, true },
	{ "tf32", "float32", 8, 3, 26, -140, FPREF_RNE, true },
	{ "float8_e4m3fn", "float32", 32, 1, 16, -60, FPREF_RTZ, true },
	{ "float4_e2m1fn", "float32", 64, 12, 9, -8, FPREF_RTZ, true },
	{ "float16", "float32", 8, 8, 34, -30, FPREF_RNE, true },
};

static void answer(const struct fpref_tc_model *m, const struct fpref_format *in, const struct fpref_format *out,
		   size_t K, const uint64_t *rows, size_t count, uint64_t *d)
{
	for (size_t i = 0; i < count; i++) {
		const uint64_t *row = rows + i * (2 * K + 1);
		ck_assert_int_eq(fpref_ref_tc_dot(m, in, in, row, row + K, K, row[2 * K], out, &d[i]), 0);
	}
}

START_TEST(recovers_custom_models)
{
	const struct synthetic *t = &models[_i];
	struct fpref_format in = test_format(t->in), out = test_format(t->out);
	struct fpref_tc_model m;
	char err[256];
	ck_assert_int_eq(fpref_tc_model_custom(t->block, t->frac, t->floor, t->rounding, &m, err, sizeof err), 0);
	uint64_t *rows;
	size_t count;
	ck_assert_int_eq(fpref_golden_probe_inputs(&in, &out, t->K, 7, &rows, &count), 0);
	uint64_t *d = malloc(count * sizeof *d);
	answer(&m, &in, &out, t->K, rows, count, d);
	struct fpref_probe_data data = { .in = in, .in_b = in, .out = out, .K = t->K, .count = count, .rows = rows, .d = d };
	struct fpref_probe_report r;
	ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
	for (size_t i = 0; i < r.nclasses; i++) {
		const struct fpref_probe_class *c = &r.classes[i];
		fprintf(stderr, "  %s->%s K %zu: class %zu: frac %d %s blocks %d..%d%s floor none %d range %d %d..%d\n", t->in,
			t->out, t->K, i, c->frac, fpref_rounding_name(c->rounding), c->block_lo, c->block_hi,
			c->block_open ? "+" : "", c->floor_none, c->has_floor_range, c->floor_lo, c->floor_hi);
	}
	ck_assert_msg(r.nclasses == 1, "%s -> %s, block %d frac %d floor %d %s: %zu classes", t->in, t->out, t->block,
		      t->frac, t->floor, fpref_rounding_name(t->rounding), r.nclasses);
	const struct fpref_probe_class *c = &r.classes[0];
	ck_assert(fpref_golden_probe_class_holds(c, &m, &out, t->K));
	ck_assert_int_eq(c->frac, t->frac);
	ck_assert_int_eq(c->rounding, t->rounding);
	if ((size_t)t->block < t->K)
		ck_assert(c->block_lo == t->block && c->block_hi == t->block && !c->block_open);
	else
		ck_assert(c->block_lo == (int)t->K && c->block_open);
	int term_floor = fpref_golden_probe_term_floor(&in, &in, &out);
	if (t->floor == FPREF_TC_NO_FLOOR || t->floor <= term_floor)
		ck_assert(c->floor_none);
	if (t->floor_exact)
		ck_assert(!c->floor_none && c->has_floor_range && c->floor_lo == t->floor && c->floor_hi == t->floor);
	free(rows);
	free(d);
	fpref_golden_probe_report_free(&r);
}
END_TEST

/* A unit that adds C after the products (their chain from zero, then one
 * FP32 addition, rne): outside the model space.  Nothing fits every case,
 * and the cases with c = 0 give the unit's block model back. */
START_TEST(c_added_after)
{
	struct fpref_format in = test_format("float8_e4m3fn"), out = test_format("float32");
	struct fpref_tc_model m;
	char err[256];
	ck_assert_int_eq(fpref_tc_model_custom(32, 13, -133, FPREF_RTZ, &m, err, sizeof err), 0);
	size_t K = 32, count;
	uint64_t *rows;
	ck_assert_int_eq(fpref_golden_probe_inputs(&in, &out, K, 7, &rows, &count), 0);
	uint64_t *d = malloc(count * sizeof *d);
	struct fpref_env rne;
	fpref_env_default(&rne);
	for (size_t i = 0; i < count; i++) {
		const uint64_t *row = rows + i * (2 * K + 1);
		uint64_t args[3] = { 0, row[2 * K], 0 };
		unsigned flags = 0;
		ck_assert_int_eq(fpref_ref_tc_dot(&m, &in, &in, row, row + K, K, 0, &out, &args[0]), 0);
		ck_assert_int_eq(fpref_ref_op(FPREF_OP_ADD, &out, args, &rne, 0, &d[i], &flags), 0);
	}
	struct fpref_probe_data data = { .in = in, .in_b = in, .out = out, .K = K, .count = count, .rows = rows, .d = d };
	struct fpref_probe_report r;
	ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
	ck_assert_uint_eq(r.nclasses, 0);
	ck_assert_uint_gt(r.nnear, 0);
	ck_assert_uint_eq(r.c_zero_nclasses, 1);
	ck_assert_uint_lt(r.c_zero_cases, count);
	ck_assert(fpref_golden_probe_class_holds(&r.c_zero_classes[0], &m, &out, K));
	free(rows);
	free(d);
	fpref_golden_probe_report_free(&r);
}
END_TEST

/* Two formats: probe inputs of A in E5M2 and B in E4M3 (the hybrid FP8
 * backward GEMM's pair), answered by the oracle under a preset's mixed
 * row, give that preset back, as one class holding it; and a generic
 * model unlike any preset is recovered exactly from its own answers. */
static const struct {
	const char *gpu, *a, *b, *out;
	size_t K;
} mixed[] = {
	{ "h100-wgmma", "float8_e5m2", "float8_e4m3fn", "float32", 32 },
	{ "ada", "float8_e4m3fn", "float8_e5m2", "float32", 32 },
	{ "tcgen05", "float4_e2m1fn", "float8_e5m2", "float32", 32 },
};

START_TEST(mixed_pair_round_trip)
{
	struct fpref_format a = test_format(mixed[_i].a), b = test_format(mixed[_i].b), out = test_format(mixed[_i].out);
	const struct fpref_tc_model *preset = fpref_tc_model_find_pair(mixed[_i].gpu, &a, &b);
	ck_assert_ptr_nonnull(preset);
	size_t K = mixed[_i].K, count;
	uint64_t *rows;
	ck_assert_int_eq(fpref_golden_probe_inputs_pair(&a, &b, &out, K, 7, &rows, &count), 0);
	ck_assert_uint_gt(count, 1000);
	for (size_t i = 0; i < count * (2 * K + 1); i++) { /* a's in A's format, b's in B's */
		size_t col = i % (2 * K + 1);
		struct fpref_unpacked u;
		ck_assert_int_eq(fpref_decode(col < K ? &a : col < 2 * K ? &b : &out, rows[i], &u), FPREF_DECODE_OK);
		ck_assert(u.cls != FPREF_CLASS_NAN && u.cls != FPREF_CLASS_INF);
	}
	uint64_t *d = malloc(count * sizeof *d);
	for (size_t i = 0; i < count; i++) {
		const uint64_t *row = rows + i * (2 * K + 1);
		ck_assert_int_eq(fpref_ref_tc_dot(preset, &a, &b, row, row + K, K, row[2 * K], &out, &d[i]), 0);
	}
	struct fpref_probe_data data = { .in = a, .in_b = b, .out = out, .K = K, .count = count, .rows = rows, .d = d };
	struct fpref_probe_report r;
	char err[256];
	ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
	ck_assert_msg(r.nclasses == 1, "%s %s x %s: %zu classes", mixed[_i].gpu, mixed[_i].a, mixed[_i].b, r.nclasses);
	ck_assert(fpref_golden_probe_class_holds(&r.classes[0], preset, &out, K));
	bool named = false;
	for (size_t i = 0; i < r.npresets; i++)
		named |= r.presets[i] == preset;
	ck_assert_msg(named, "%s is not among the presets that fit", mixed[_i].gpu);
	fpref_golden_probe_report_free(&r);
	/* read in one format (B as A's), the same results fit no preset of the pair */
	data.in_b = a;
	ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
	for (size_t i = 0; i < r.npresets; i++)
		ck_assert_ptr_ne(r.presets[i], preset);
	fpref_golden_probe_report_free(&r);
	free(rows);
	free(d);
}
END_TEST

START_TEST(mixed_pair_custom_model)
{
	struct fpref_format a = test_format("float8_e5m2"), b = test_format("float8_e4m3fn"), out = test_format("float32");
	struct fpref_tc_model m;
	char err[256];
	ck_assert_int_eq(fpref_tc_model_custom(8, 16, -40, FPREF_RNE, &m, err, sizeof err), 0);
	size_t K = 32, count;
	uint64_t *rows;
	ck_assert_int_eq(fpref_golden_probe_inputs_pair(&a, &b, &out, K, 7, &rows, &count), 0);
	uint64_t *d = malloc(count * sizeof *d);
	for (size_t i = 0; i < count; i++) {
		const uint64_t *row = rows + i * (2 * K + 1);
		ck_assert_int_eq(fpref_ref_tc_dot(&m, &a, &b, row, row + K, K, row[2 * K], &out, &d[i]), 0);
	}
	struct fpref_probe_data data = { .in = a, .in_b = b, .out = out, .K = K, .count = count, .rows = rows, .d = d };
	struct fpref_probe_report r;
	ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
	ck_assert_uint_eq(r.nclasses, 1);
	const struct fpref_probe_class *c = &r.classes[0];
	ck_assert(fpref_golden_probe_class_holds(c, &m, &out, K));
	ck_assert(c->frac == 16 && c->rounding == FPREF_RNE && c->block_lo == 8 && c->block_hi == 8);
	ck_assert(!c->floor_none && c->floor_lo == -40 && c->floor_hi == -40);
	/* one format twice: the rows of the one-format call */
	uint64_t *one, *two;
	size_t n1, n2;
	ck_assert_int_eq(fpref_golden_probe_inputs(&b, &out, 16, 3, &one, &n1), 0);
	ck_assert_int_eq(fpref_golden_probe_inputs_pair(&b, &b, &out, 16, 3, &two, &n2), 0);
	ck_assert_uint_eq(n1, n2);
	ck_assert(memcmp(one, two, n1 * 33 * sizeof *one) == 0);
	free(one);
	free(two);
	fpref_golden_probe_report_free(&r);
	free(rows);
	free(d);
}
END_TEST

/* Every probe input is a valid pattern, and the families are there: more
 * than the random tail alone. */
START_TEST(inputs_are_valid)
{
	static const char *const names[] = { "float16", "bfloat16", "tf32", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn" };
	struct fpref_format out = test_format("float32");
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		struct fpref_format in = test_format(names[n]);
		uint64_t *rows;
		size_t count, K = 16;
		ck_assert_int_eq(fpref_golden_probe_inputs(&in, &out, K, 1, &rows, &count), 0);
		ck_assert_uint_gt(count, 1000);
		for (size_t i = 0; i < count * (2 * K + 1); i++) {
			struct fpref_unpacked u;
			const struct fpref_format *f = i % (2 * K + 1) == 2 * K ? &out : &in;
			ck_assert_int_eq(fpref_decode(f, rows[i], &u), FPREF_DECODE_OK);
			ck_assert(u.cls != FPREF_CLASS_NAN && u.cls != FPREF_CLASS_INF);
		}
		free(rows);
	}
	struct fpref_format e8m0 = test_format("float8_e8m0fnu");
	uint64_t *rows;
	size_t count;
	ck_assert_int_eq(fpref_golden_probe_inputs(&e8m0, &out, 16, 1, &rows, &count), -1);
}
END_TEST

/* A worked example from Fasi et al. (2021), section 4: on a unit that
 * keeps few bits below the largest term, 1 - 1 + 2^-j loses 2^-j within
 * one block.  Here: block 4, 3 fraction bits, FP32 output, rtz. */
START_TEST(small_term_absorbed)
{
	struct fpref_format in = test_format("float16"), out = test_format("float32");
	struct fpref_tc_model m;
	char err[128];
	ck_assert_int_eq(fpref_tc_model_custom(4, 3, FPREF_TC_NO_FLOOR, FPREF_RTZ, &m, err, sizeof err), 0);
	/* 1, -1, 2^-3 (kept: 3 bits) and 1, -1, 2^-4 (cut) */
	uint64_t a[4] = { 0x3C00, 0xBC00, 0x3000, 0 }, b[4] = { 0x3C00, 0x3C00, 0x3C00, 0 }, d;
	ck_assert_int_eq(fpref_emu_tc_dot(&m, &in, &in, a, b, 4, 0, &out, &d), 0);
	ck_assert_uint_eq(d, 0x3E000000); /* 0.125 */
	a[2] = 0x2C00;
	ck_assert_int_eq(fpref_emu_tc_dot(&m, &in, &in, a, b, 4, 0, &out, &d), 0);
	ck_assert_uint_eq(d, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("synthetic");
	tcase_add_loop_test(tc, recovers_custom_models, 0, (int)(sizeof models / sizeof models[0]));
	tcase_add_loop_test(tc, mixed_pair_round_trip, 0, (int)(sizeof mixed / sizeof mixed[0]));
	tcase_add_test(tc, mixed_pair_custom_model);
	tcase_add_test(tc, inputs_are_valid);
	tcase_add_test(tc, c_added_after);
	tcase_add_test(tc, small_term_absorbed);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
