/* Plain accumulations: hand-worked swamping cases, exact cases against an
 * integer sum, every order step by step against the oracle's operations,
 * and the a priori bound of recursive summation on random cases. */
#include <math.h>
#include <stdio.h>

#include "testutil.h"
#include "fpref_emu_tc.h"

static uint64_t run(enum fpref_sum_order order, size_t block, const char *in_name, const uint64_t *a,
		    const uint64_t *b, size_t K, uint64_t c, const char *acc_name)
{
	struct fpref_format in = test_format(in_name), acc = test_format(acc_name);
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t d = 0;
	unsigned flags = 0;
	ck_assert_int_eq(fpref_emu_dot(order, block, &in, &in, a, b, K, c, &acc, &env, &d, &flags), 0);
	return d;
}

/* 2048 + eight products 1*1 in FP16 (seed 002: an update smaller than
 * 2^-11 of the weight vanishes): each +1 is a tie that stays at 2048. */
START_TEST(swamping)
{
	uint64_t a[9] = { 0x6800, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00 };
	uint64_t b[9] = { 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00 };
	ck_assert_uint_eq(run(FPREF_SUM_RECURSIVE, 0, "f16", a, b, 9, 0, "f16"), 0x6800); /* 2048: all swamped */
	ck_assert_uint_eq(run(FPREF_SUM_FMA_CHAIN, 0, "f16", a, b, 9, 0, "f16"), 0x6800);
	ck_assert_uint_eq(run(FPREF_SUM_PAIRWISE, 0, "f16", a, b, 9, 0, "f16"), 0x6804);  /* 2056 */
	ck_assert_uint_eq(run(FPREF_SUM_BLOCKED, 4, "f16", a, b, 9, 0, "f16"), 0x6802);   /* 2048+4=2052, +1 ties to 2052 */
	ck_assert_uint_eq(run(FPREF_SUM_KAHAN, 0, "f16", a, b, 9, 0, "f16"), 0x6804);
	ck_assert_uint_eq(run(FPREF_SUM_RECURSIVE, 0, "f16", a, b, 9, 0, "f32"), 0x45008000); /* the FP32 master copy: 2056 */
	struct fpref_format f16 = test_format("f16");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t d = 0;
	unsigned flags = 0;
	ck_assert_int_eq(fpref_ref_dot_exact(&f16, &f16, a, b, 9, 0, &f16, &env, &d, &flags), 0);
	ck_assert_uint_eq(d, 0x6804);
	ck_assert_uint_eq(flags, 0);
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
	return fpref_sr_stream(99, (*state)++);
}

/* Small integers in FP16 accumulated in FP64 are exact in every order:
 * every order, and the exact dot, must equal the integer sum. */
START_TEST(exact_when_wide)
{
	struct fpref_format f16 = test_format("f16"), f64 = test_format("f64");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t state = 0;
	for (int rep = 0; rep < 2000; rep++) {
		size_t K = 1 + next_random(&state) % 64;
		uint64_t a[64], b[64];
		int64_t sum = 0;
		for (size_t k = 0; k < K; k++) {
			int x = (int)(next_random(&state) % 4001) - 2000, y = (int)(next_random(&state) % 2001) - 1000;
			struct fpref_unpacked u = { .cls = x ? FPREF_CLASS_NORMAL : FPREF_CLASS_ZERO, .negative = x < 0,
						    .significand = (uint64_t)llabs(x) };
			fpref_encode(&f16, &u, &a[k]);
			u = (struct fpref_unpacked){ .cls = y ? FPREF_CLASS_NORMAL : FPREF_CLASS_ZERO, .negative = y < 0,
						     .significand = (uint64_t)llabs(y) };
			fpref_encode(&f16, &u, &b[k]);
			sum += (int64_t)x * y;
		}
		uint64_t want;
		struct fpref_unpacked u = { .cls = sum ? FPREF_CLASS_NORMAL : FPREF_CLASS_ZERO, .negative = sum < 0,
					    .significand = (uint64_t)llabs(sum) };
		fpref_encode(&f64, &u, &want);
		for (int o = FPREF_SUM_RECURSIVE; o <= FPREF_SUM_KAHAN; o++)
			ck_assert_uint_eq(run((enum fpref_sum_order)o, 8, "f16", a, b, K, 0, "f64"), want);
		uint64_t d = 0;
		unsigned flags = 0;
		fpref_ref_dot_exact(&f16, &f16, a, b, K, 0, &f64, &env, &d, &flags);
		ck_assert_uint_eq(d, want);
	}
}
END_TEST

/* Each order step by step with the oracle's operations, against the
 * emulator's accumulation: narrow accumulators, every mode. */
static uint64_t ref2(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env, uint64_t x,
		     uint64_t y, uint64_t z)
{
	uint64_t in[3] = { x, y, z }, out = 0;
	unsigned flags = 0;
	fpref_ref_op(op, f, in, env, env->sr_random, &out, &flags);
	return out;
}

START_TEST(orders_against_oracle_steps)
{
	static const char *const accs[] = { "f16", "bf16", "e4m3", "e5m2" };
	struct fpref_format f16 = test_format("f16"), acc = test_format(accs[_i]);
	uint64_t state = 7;
	for (int mode = FPREF_RNE; mode <= FPREF_ROD; mode++) {
		struct fpref_env env;
		fpref_env_default(&env);
		env.rounding = (enum fpref_rounding)mode;
		for (int rep = 0; rep < 300; rep++) {
			size_t K = 1 + next_random(&state) % 40;
			uint64_t a[40], b[40], x[40], y[40];
			for (size_t k = 0; k < K; k++) {
				a[k] = (next_random(&state) & 0x3FFF) | (next_random(&state) & 0x8000); /* finite, |x| < 2 */
				b[k] = (next_random(&state) & 0x3FFF) | 0x0400;
				unsigned fl = 0;
				struct fpref_env exact;
				fpref_env_default(&exact);
				exact.rounding = env.rounding;
				fpref_ref_convert(&f16, a[k], &acc, &exact, 0, &x[k], &fl);
				fpref_ref_convert(&f16, b[k], &acc, &exact, 0, &y[k], &fl);
			}
			uint64_t s = 0, f = 0, kahan = 0, comp = 0;
			for (size_t k = 0; k < K; k++) {
				uint64_t p = ref2(FPREF_OP_MUL, &acc, &env, x[k], y[k], 0);
				s = ref2(FPREF_OP_ADD, &acc, &env, s, p, 0);
				f = ref2(FPREF_OP_FMA, &acc, &env, x[k], y[k], f);
				uint64_t yk = ref2(FPREF_OP_SUB, &acc, &env, p, comp, 0);
				uint64_t t = ref2(FPREF_OP_ADD, &acc, &env, kahan, yk, 0);
				comp = ref2(FPREF_OP_SUB, &acc, &env, ref2(FPREF_OP_SUB, &acc, &env, t, kahan, 0), yk, 0);
				kahan = t;
			}
			uint64_t got;
			unsigned flags = 0;
			fpref_emu_dot(FPREF_SUM_RECURSIVE, 0, &f16, &f16, a, b, K, 0, &acc, &env, &got, &flags);
			ck_assert_msg(got == s, "%s %s recursive: %llx vs %llx", acc.name, fpref_rounding_name(env.rounding),
				      (unsigned long long)got, (unsigned long long)s);
			fpref_emu_dot(FPREF_SUM_FMA_CHAIN, 0, &f16, &f16, a, b, K, 0, &acc, &env, &got, &flags);
			ck_assert_uint_eq(got, f);
			fpref_emu_dot(FPREF_SUM_KAHAN, 0, &f16, &f16, a, b, K, 0, &acc, &env, &got, &flags);
			ck_assert_uint_eq(got, kahan);
		}
	}
}
END_TEST

/* Recursive summation of K rounded products: |computed - exact| <=
 * gamma_K * sum |a_k b_k| with gamma_K = K u / (1 - K u), u = 2^-p
 * (round to nearest; no overflow or underflow in these cases). */
START_TEST(recursive_bound_holds)
{
	struct fpref_format f16 = test_format("f16"), f32 = test_format("f32");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t state = 11;
	double tightest = 0, sum_ratio = 0;
	int cases = 0;
	for (int rep = 0; rep < 5000; rep++) {
		size_t K = 2 + next_random(&state) % 199; /* 2..200: the arrays hold 200 */
		uint64_t a[200], b[200];
		double abs_sum = 0, exact = 0;
		for (size_t k = 0; k < K; k++) {
			a[k] = (0x3000 + next_random(&state) % 0x1000) | (next_random(&state) & 0x8000); /* [0.125, 1) */
			b[k] = 0x3800 + (next_random(&state) % 0x0C00);
		}
		struct fpref_ref_value x, y;
		fpref_ref_value_init(&x);
		fpref_ref_value_init(&y);
		for (size_t k = 0; k < K; k++) { /* doubles hold these products and their sum exactly */
			fpref_ref_from_bits(&f16, a[k], false, &x);
			fpref_ref_from_bits(&f16, b[k], false, &y);
			double p = mpfr_get_d(x.x, MPFR_RNDN) * mpfr_get_d(y.x, MPFR_RNDN);
			abs_sum += fabs(p);
			exact += p;
		}
		uint64_t d;
		unsigned flags = 0;
		fpref_emu_dot(FPREF_SUM_RECURSIVE, 0, &f16, &f16, a, b, K, 0, &f32, &env, &d, &flags);
		fpref_ref_from_bits(&f32, d, false, &x);
		double err = fabs(mpfr_get_d(x.x, MPFR_RNDN) - exact);
		double u = ldexp(1, -24), gamma = (double)K * u / (1 - (double)K * u);
		double bound = gamma * abs_sum;
		fpref_ref_value_clear(&x);
		fpref_ref_value_clear(&y);
		ck_assert_msg(err <= bound, "K=%zu: error %g exceeds the bound %g", K, err, bound);
		if (bound > 0) {
			double ratio = err / bound;
			tightest = ratio > tightest ? ratio : tightest;
			sum_ratio += ratio;
			cases++;
		}
	}
	printf("recursive FP32 sum of FP16 products: bound held on %d cases; error/bound max %.3g, mean %.3g\n", cases,
	       tightest, sum_ratio / cases);
}
END_TEST

/* Promotion: 32 products 1*1 then 32 products 2^-9 * 2^-9 in E4M3 on the
 * H100 model.  Alone, the second block's terms (2^-18 each) fall below the
 * 13 fraction bits kept under 32 and vanish: 32 (42000000).  Promoted every
 * 32 products, the second partial sum 2^-13 is added in FP32: 32 + 2^-13
 * (42000020).  With scales 2 and 0.5 on the second chunk, the same. */
START_TEST(promotion_keeps_small_blocks)
{
	struct fpref_format e4m3 = test_format("e4m3"), f32 = test_format("f32");
	const struct fpref_tc_model *m = fpref_tc_model_find("h100", &e4m3);
	uint64_t a[64], b[64], d;
	for (int k = 0; k < 64; k++)
		a[k] = b[k] = k < 32 ? 0x38 : 0x01;
	ck_assert_int_eq(fpref_emu_tc_dot(m, &e4m3, &e4m3, a, b, 64, 0, &f32, &d), 0);
	ck_assert_uint_eq(d, 0x42000000);
	ck_assert_int_eq(fpref_emu_tc_dot_promoted(m, &e4m3, &e4m3, a, b, 64, 32, NULL, NULL, 0, &d), 0);
	ck_assert_uint_eq(d, 0x42000020);
	uint64_t sa[2] = { 0x3F800000, 0x40000000 }, sb[2] = { 0x3F800000, 0x3F000000 };
	ck_assert_int_eq(fpref_emu_tc_dot_promoted(m, &e4m3, &e4m3, a, b, 64, 32, sa, sb, 0, &d), 0);
	ck_assert_uint_eq(d, 0x42000020);
	/* one chunk holding everything: the accumulator alone, then + c in FP32 */
	ck_assert_int_eq(fpref_emu_tc_dot_promoted(m, &e4m3, &e4m3, a, b, 64, 128, NULL, NULL, 0x3F800000, &d), 0);
	ck_assert_uint_eq(d, 0x42040000); /* 32 + 1 */
	ck_assert_int_eq(fpref_emu_tc_dot_promoted(m, &e4m3, &e4m3, a, b, 64, 0, NULL, NULL, 0, &d), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("accumulate");
	TCase *tc = tcase_create("orders");
	tcase_add_test(tc, swamping);
	tcase_add_test(tc, exact_when_wide);
	tcase_add_loop_test(tc, orders_against_oracle_steps, 0, 4);
	tcase_add_test(tc, recursive_bound_holds);
	tcase_add_test(tc, promotion_keeps_small_blocks);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
