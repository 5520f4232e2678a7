/* The tensor-core block model, emulator against oracle (two
 * implementations of the same rules) for every preset and for custom
 * parameters, and the a priori bounds of docs/accumulation.md checked on
 * generated cases for the models and every plain order (with tightness
 * reported).  Runs without the hardware data of check_tc. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"
#include "tc_random.h"

struct model_case {
	const char *gpu, *input;
	int block, frac, floor;
	enum fpref_rounding rounding;
};

/* Every preset (by GPU and input) and custom parameter sets. */
static const struct model_case models[] = {
	{ "v100", "float16", 0, 0, 0, 0 },
	{ "turing", "float16", 0, 0, 0, 0 },
	{ "a100", "float16", 0, 0, 0, 0 },
	{ "a100", "bfloat16", 0, 0, 0, 0 },
	{ "a100", "tf32", 0, 0, 0, 0 },
	{ "h100", "float16", 0, 0, 0, 0 },
	{ "h100", "bfloat16", 0, 0, 0, 0 },
	{ "h100", "tf32", 0, 0, 0, 0 },
	{ "h100", "float8_e4m3fn", 0, 0, 0, 0 },
	{ "h100", "float8_e5m2", 0, 0, 0, 0 },
	{ "h100-mma", "float8_e4m3fn", 0, 0, 0, 0 },
	{ "h100-mma", "float8_e5m2", 0, 0, 0, 0 },
	{ "h100-wgmma", "float8_e4m3fn", 0, 0, 0, 0 },
	{ "h100-wgmma", "float8_e5m2", 0, 0, 0, 0 },
	{ "ada", "float16", 0, 0, 0, 0 },
	{ "ada", "bfloat16", 0, 0, 0, 0 },
	{ "ada", "tf32", 0, 0, 0, 0 },
	{ "ada", "float8_e4m3fn", 0, 0, 0, 0 },
	{ "ada", "float8_e5m2", 0, 0, 0, 0 },
	{ "tpu-bf16", "bfloat16", 0, 0, 0, 0 },
	{ "intel-bf16", "bfloat16", 0, 0, 0, 0 },
	{ NULL, "float16", 1, 10, FPREF_TC_NO_FLOOR, FPREF_RNE },
	{ NULL, "bfloat16", 64, 36, -140, FPREF_RTZ },
	{ NULL, "float8_e4m3fn", 7, 5, -20, FPREF_RNE },
	{ NULL, "float6_e3m2fn", 3, 20, -3, FPREF_RTZ },
	{ NULL, "float4_e2m1fn", 24, 1, FPREF_TC_NO_FLOOR, FPREF_RTZ },
	{ NULL, "float8_e5m2fnuz", 16, 30, -10, FPREF_RNE },
};

static struct fpref_tc_model model_of(const struct model_case *mc, const struct fpref_format *in)
{
	if (mc->gpu) {
		const struct fpref_tc_model *m = fpref_tc_model_find(mc->gpu, in);
		ck_assert_ptr_nonnull(m);
		return *m;
	}
	struct fpref_tc_model m;
	char err[256];
	ck_assert_int_eq(fpref_tc_model_custom(mc->block, mc->frac, mc->floor, mc->rounding, &m, err, sizeof err), 0);
	return m;
}

/* Emulator against oracle: bits of d, FP32 and FP16 outputs, inputs over
 * the whole range (subnormals, zeros, now and then NaN and inf), a nonzero
 * c half of the time, K up to three blocks and a bit. */
START_TEST(model_against_oracle)
{
	const struct model_case *mc = &models[_i];
	struct fpref_format in = test_format(mc->input);
	struct fpref_tc_model m = model_of(mc, &in);
	uint64_t state = (uint64_t)_i << 32;
	unsigned long cases = 0;
	for (int out16 = 0; out16 < 2; out16++) {
		struct fpref_format out = test_format(out16 ? "float16" : "float32");
		if (!fpref_tc_output_ok(&m, &in, &out)) { /* refused by both engines */
			uint64_t a = 0, d;
			ck_assert_int_eq(fpref_emu_tc_dot(&m, &in, &in, &a, &a, 1, 0, &out, &d), -1);
			ck_assert_int_eq(fpref_ref_tc_dot(&m, &in, &in, &a, &a, 1, 0, &out, &d), -1);
			continue;
		}
		for (int rep = 0; rep < 10000; rep++) {
			size_t K = 1 + next_random(&state) % (size_t)(3 * m.block + 2);
			uint64_t a[200], b[200];
			uint64_t c = random_case(&in, &out, &state, K, a, b);
			uint64_t want = 0, got = 0;
			ck_assert_int_eq(fpref_ref_tc_dot(&m, &in, &in, a, b, K, c, &out, &want), 0);
			ck_assert_int_eq(fpref_emu_tc_dot(&m, &in, &in, a, b, K, c, &out, &got), 0);
			if (got != want) { /* the case as a line of fpref dot */
				for (size_t k = 0; k < 2 * K; k++)
					fprintf(stderr, "%llx ", (unsigned long long)(k < K ? a[k] : b[k - K]));
				fprintf(stderr, "%llx\n", (unsigned long long)c);
			}
			ck_assert_msg(got == want, "%s %s %s out, K=%zu case %d: emulator %llx, oracle %llx", m.gpu, in.name,
				      out.name, K, rep, (unsigned long long)got, (unsigned long long)want);
			cases++;
		}
	}
	printf("%-8s %-16s block %2d, F %2d: %lu cases, emulator = oracle\n", m.gpu, in.name, m.block, m.frac, cases);
}
END_TEST

struct tightness {
	unsigned long cases;
	double max_ratio, sum_ratio;
};

/* |d - exact| <= bound, exactly compared; the ratio recorded. */
static void check_bound(const struct fpref_format *in, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
			const struct fpref_format *out, uint64_t d, mpfr_srcptr bound, struct tightness *t,
			const char *what)
{
	mpfr_t exact, err;
	mpfr_init2(exact, 64);
	ck_assert_int_eq(fpref_ref_dot_value(in, in, a, b, K, c, out, exact), 0); /* exact: its precision grows to fit */
	mpfr_init2(err, mpfr_get_prec(exact) + 320); /* room for any FP32 or FP16 value beside it */
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	fpref_ref_from_bits(out, d, false, &v);
	ck_assert_msg(mpfr_number_p(bound) && mpfr_number_p(v.x), "%s: no finite bound or result", what);
	ck_assert_int_eq(mpfr_sub(err, v.x, exact, MPFR_RNDN), 0); /* exact */
	mpfr_abs(err, err, MPFR_RNDN);
	ck_assert_msg(mpfr_cmp(err, bound) <= 0, "%s K=%zu: error %g exceeds the bound %g", what, K,
		      mpfr_get_d(err, MPFR_RNDU), mpfr_get_d(bound, MPFR_RNDD));
	if (!mpfr_zero_p(bound)) {
		double r = mpfr_get_d(err, MPFR_RNDN) / mpfr_get_d(bound, MPFR_RNDN);
		t->max_ratio = r > t->max_ratio ? r : t->max_ratio;
		t->sum_ratio += r;
	}
	t->cases++;
	fpref_ref_value_clear(&v);
	mpfr_clear(exact);
	mpfr_clear(err);
}

static void report(const char *what, const struct tightness *t)
{
	printf("%-44s bound held on %5lu cases; error/bound max %.3g, mean %.3g\n", what, t->cases, t->max_ratio,
	       t->cases ? t->sum_ratio / (double)t->cases : 0.0);
	fflush(stdout);
}

/* Inputs of one sign or both, magnitudes within a few binades (or across
 * the whole range, subnormals included), K up to 300. */
static size_t bound_case(const struct fpref_format *in, const struct fpref_format *out, uint64_t *state, uint64_t *a,
			 uint64_t *b, uint64_t *c, int rep)
{
	size_t K = 1 + next_random(state) % 300;
	int top = max_field(in), bias_field = in->bias;
	bool wide = rep % 4 == 3, same_sign = rep % 2 == 0;
	int lo = wide ? 0 : bias_field - 3, hi = wide ? top : bias_field + 1;
	if (lo < 0)
		lo = 0;
	if (hi > top)
		hi = top;
	for (size_t k = 0; k < K; k++) {
		a[k] = random_input(in, state, lo, hi, 0);
		b[k] = random_input(in, state, lo, hi, 0);
		if (same_sign) {
			a[k] &= ~(1ull << (in->man_bits + in->exp_bits + in->pad_bits));
			b[k] &= ~(1ull << (in->man_bits + in->exp_bits + in->pad_bits));
		}
	}
	*c = rep % 3 == 0 ? random_input(out, state, out->bias - 2, out->bias + 4, 0) : 0;
	return K;
}

START_TEST(model_bound_holds)
{
	const struct model_case *mc = &models[_i];
	struct fpref_format in = test_format(mc->input);
	struct fpref_tc_model m = model_of(mc, &in);
	uint64_t state = 77 + ((uint64_t)_i << 32);
	for (int promoted = 0; promoted < 2; promoted++)
		for (int out16 = 0; out16 < 2 - promoted; out16++) {
			struct fpref_format out = test_format(out16 ? "float16" : "float32");
			if (!fpref_tc_output_ok(&m, &in, &out))
				continue;
			if (promoted && fpref_tc_lowered(&m, &out)) { /* promotion of lowered sums: refused by both */
				uint64_t a = 0, d;
				mpfr_t bound;
				mpfr_init2(bound, 64);
				ck_assert_int_eq(fpref_emu_tc_dot_promoted(&m, &in, &in, &a, &a, 1, 32, NULL, NULL, 0, &d), -1);
				ck_assert_int_eq(fpref_ref_tc_bound(&m, &in, &in, &a, &a, 1, 0, &out, 32, bound), -1);
				mpfr_clear(bound);
				continue;
			}
			struct tightness t = { 0, 0, 0 };
			mpfr_t bound;
			mpfr_init2(bound, 64);
			for (int rep = 0; rep < 400; rep++) {
				uint64_t a[300], b[300], c, d;
				size_t K = bound_case(&in, &out, &state, a, b, &c, rep);
				size_t nc = promoted ? (size_t)(1 + rep % 4) * (size_t)m.block : 0;
				if (nc)
					ck_assert_int_eq(fpref_emu_tc_dot_promoted(&m, &in, &in, a, b, K, nc, NULL, NULL, c, &d), 0);
				else
					ck_assert_int_eq(fpref_emu_tc_dot(&m, &in, &in, a, b, K, c, &out, &d), 0);
				ck_assert_int_eq(fpref_ref_tc_bound(&m, &in, &in, a, b, K, c, &out, nc, bound), 0);
				if (mpfr_inf_p(bound))
					continue; /* may overflow FP16: no finite bound claimed */
				check_bound(&in, a, b, K, c, &out, d, bound, &t, in.name);
			}
			char what[160];
			snprintf(what, sizeof what, "%s %s, %s out%s", m.gpu, in.name, out.name, promoted ? ", promoted" : "");
			report(what, &t);
			ck_assert_uint_gt(t.cases, 100);
			mpfr_clear(bound);
		}
}
END_TEST

/* The plain orders' bounds: accumulators of several widths, every mode,
 * ftz on and off. */
START_TEST(plain_bounds_hold)
{
	static const char *const accs[] = { "float32", "float16", "bfloat16" };
	struct fpref_format in = test_format("float8_e4m3fn"), acc = test_format(accs[_i]);
	uint64_t state = 901 + (uint64_t)_i;
	for (int order = FPREF_SUM_RECURSIVE; order <= FPREF_SUM_FMA_CHAIN; order++) {
		struct tightness t = { 0, 0, 0 };
		mpfr_t bound;
		mpfr_init2(bound, 64);
		for (int rep = 0; rep < 400; rep++) {
			struct fpref_env env;
			fpref_env_default(&env);
			env.rounding = (enum fpref_rounding)(rep % 6); /* rne .. rod */
			env.ftz = rep % 5 == 4;
			uint64_t a[300], b[300], c, d;
			unsigned flags = 0;
			size_t K = bound_case(&in, &acc, &state, a, b, &c, rep);
			size_t block = 1 + next_random(&state) % 40;
			ck_assert_int_eq(fpref_emu_dot((enum fpref_sum_order)order, block, &in, &in, a, b, K, c, &acc, &env, &d,
						       &flags), 0);
			ck_assert_int_eq(fpref_ref_sum_bound((enum fpref_sum_order)order, block, &in, &in, a, b, K, c, &acc, &env,
							     bound), 0);
			if (mpfr_inf_p(bound))
				continue;
			check_bound(&in, a, b, K, c, &acc, d, bound, &t, fpref_sum_order_name((enum fpref_sum_order)order));
		}
		char what[160];
		snprintf(what, sizeof what, "%s in %s, all modes", fpref_sum_order_name((enum fpref_sum_order)order),
			 acc.name);
		report(what, &t);
		ck_assert_uint_gt(t.cases, 100);
		mpfr_clear(bound);
	}
}
END_TEST

/* The bound is not vacuous: a case built to lose the most (every product
 * just under a power of two, all truncated against a large accumulator)
 * comes close to it. */
START_TEST(bound_is_reached)
{
	struct fpref_format e4m3 = test_format("e4m3"), f32 = test_format("f32");
	const struct fpref_tc_model *m = fpref_tc_model_find("h100", &e4m3);
	uint64_t a[32], b[32], d;
	for (int k = 0; k < 32; k++) {
		a[k] = 0x37; /* 0.9375 */
		b[k] = 0x30; /* 0.5 */
	}
	uint64_t c = 0x46000000; /* 8192: each product is 0.46875 and falls below the 13 fraction bits kept */
	ck_assert_int_eq(fpref_emu_tc_dot(m, &e4m3, &e4m3, a, b, 32, c, &f32, &d), 0);
	ck_assert_uint_eq(d, c); /* every product lost */
	mpfr_t bound;
	mpfr_init2(bound, 64);
	ck_assert_int_eq(fpref_ref_tc_bound(m, &e4m3, &e4m3, a, b, 32, c, &f32, 0, bound), 0);
	struct tightness t = { 0, 0, 0 };
	check_bound(&e4m3, a, b, 32, c, &f32, d, bound, &t, "worst case");
	ck_assert_msg(t.max_ratio > 0.4, "error/bound only %g on the worst case", t.max_ratio);
	report("h100 e4m3 worst case (all products swamped)", &t);
	mpfr_clear(bound);
}
END_TEST

START_TEST(custom_model_errors)
{
	struct fpref_tc_model m;
	char err[256];
	ck_assert_int_eq(fpref_tc_model_custom(0, 13, -133, FPREF_RTZ, &m, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "block"));
	ck_assert_int_eq(fpref_tc_model_custom(65, 13, -133, FPREF_RTZ, &m, err, sizeof err), -1);
	ck_assert_int_eq(fpref_tc_model_custom(32, 0, -133, FPREF_RTZ, &m, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "fraction"));
	ck_assert_int_eq(fpref_tc_model_custom(32, 37, -133, FPREF_RTZ, &m, err, sizeof err), -1);
	ck_assert_int_eq(fpref_tc_model_custom(32, 13, -133, FPREF_RUP, &m, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "rtz or rne"));
	ck_assert_int_eq(fpref_tc_model_custom(32, 13, FPREF_TC_NO_FLOOR, FPREF_RNE, &m, err, sizeof err), 0);
	/* the custom model with H100 FP8's parameters is the preset */
	struct fpref_format e4m3 = test_format("e4m3"), f32 = test_format("f32"), f64 = test_format("f64");
	ck_assert_int_eq(fpref_tc_model_custom(32, 13, -133, FPREF_RTZ, &m, err, sizeof err), 0);
	const struct fpref_tc_model *h100 = fpref_tc_model_find("h100", &e4m3);
	uint64_t state = 5, a[100], b[100], d1, d2;
	for (int rep = 0; rep < 200; rep++) {
		for (int k = 0; k < 100; k++) {
			a[k] = random_input(&e4m3, &state, 0, 15, 0);
			b[k] = random_input(&e4m3, &state, 0, 15, 0);
		}
		fpref_emu_tc_dot(&m, &e4m3, &e4m3, a, b, 100, 0, &f32, &d1);
		fpref_emu_tc_dot(h100, &e4m3, &e4m3, a, b, 100, 0, &f32, &d2);
		ck_assert_uint_eq(d1, d2);
	}
	/* outputs other than FP32 and FP16, and inputs too wide, are refused */
	ck_assert_int_eq(fpref_emu_tc_dot(&m, &e4m3, &e4m3, a, b, 4, 0, &f64, &d1), -1);
	ck_assert_int_eq(fpref_emu_tc_dot(&m, &f32, &f32, a, b, 4, 0, &f32, &d1), -1);
	ck_assert_int_eq(fpref_ref_tc_dot(&m, &f32, &f32, a, b, 4, 0, &f32, &d1), -1);
}
END_TEST

/* The sm_90 presets: the FP16/BF16/TF32 units are h100's, and the FP8 rows
 * differ only in which outputs are lowered to FP16 instructions.  The
 * FP8 difference, worked by hand: C = 1 and 32 products 2^-9 * 2^-9 (sum
 * 2^-13).  The native unit truncates the products to 13 fraction bits
 * below C's exponent: d = 1 (measured on an H200 with WGMMA: 3F800000).
 * Lowered, the 32 products sum exactly in the FP16 blocks (FP32 output)
 * and C is added by an FP32 addition: d = 1 + 2^-13 (3F800400). */
START_TEST(sm90_presets)
{
	static const char *const inputs[] = { "float16", "bfloat16", "tf32", "float8_e4m3fn", "float8_e5m2" };
	struct fpref_format f32 = test_format("float32"), f16 = test_format("float16");
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		struct fpref_format in = test_format(inputs[i]);
		const struct fpref_tc_model *h = fpref_tc_model_find("h100", &in), *mma = fpref_tc_model_find("h100-mma", &in),
					    *wg = fpref_tc_model_find("h100-wgmma", &in);
		ck_assert_ptr_nonnull(h);
		ck_assert_ptr_nonnull(mma);
		ck_assert_ptr_nonnull(wg);
		const struct fpref_tc_model *rows[2] = { mma, wg };
		for (int r = 0; r < 2; r++) {
			ck_assert_int_eq(rows[r]->block, h->block);
			ck_assert_int_eq(rows[r]->frac, h->frac);
			ck_assert_int_eq(rows[r]->floor_fp32, h->floor_fp32);
			ck_assert_int_eq(rows[r]->floor_fp16, h->floor_fp16);
			ck_assert_int_eq(rows[r]->round_fp32, h->round_fp32);
			ck_assert_int_eq(rows[r]->round_fp16, h->round_fp16);
		}
		bool fp8 = in.man_bits < 7;
		ck_assert(fpref_tc_lowered(h, &f16) == fp8 && !fpref_tc_lowered(h, &f32));
		ck_assert(fpref_tc_lowered(mma, &f16) == fp8 && fpref_tc_lowered(mma, &f32) == fp8);
		ck_assert(!fpref_tc_lowered(wg, &f16) && !fpref_tc_lowered(wg, &f32));
	}
	struct fpref_format e4m3 = test_format("float8_e4m3fn");
	uint64_t a[32], b[32], d = 0;
	for (int k = 0; k < 32; k++)
		a[k] = b[k] = 0x01; /* 2^-9 */
	for (int engine = 0; engine < 2; engine++) {
		int (*dot)(const struct fpref_tc_model *, const struct fpref_format *, const struct fpref_format *, const uint64_t *, const uint64_t *,
			   size_t, uint64_t, const struct fpref_format *, uint64_t *) = engine ? fpref_ref_tc_dot : fpref_emu_tc_dot;
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-wgmma", &e4m3), &e4m3, &e4m3, a, b, 32, 0x3F800000, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x3F800000);
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-mma", &e4m3), &e4m3, &e4m3, a, b, 32, 0x3F800000, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x3F800400);
	}
}
END_TEST

/* The sign of a zero result, worked from the H200's measured lines: the
 * units give +0 where IEEE 754 gives -0 (fpref_formats_tc_model.h, zero_positive).
 * (1) hopper/wgmma-c-probes.txt line 5: WGMMA e4m3 -> f32, 32 products
 *     -0 * +0 and C = -0: d = 00000000.
 * (2) results/probe.mma.f16.f16.txt line 708: 1 - 1 + (-2^-13)(1.5 * 2^-12),
 *     C = +0: the sum, -1.5 * 2^-25, rounds to zero: d = 0000; and line 704
 *     (the last product -2^-13 * 2^-11): d = 8002, a nonzero result keeps
 *     its sign.
 * (3) results/probe.mma.bf16.f32.txt line 5235: 2^-75 * 2^-75 and
 *     C = -2^-149 (80000001): d = 00000000.
 * a100 gives +0 for (3) too, in one block (K = 8): the sum, -2^-150,
 * truncated toward zero, as the independent model validated on the A100
 * gives it (MMA-Sim, arXiv:2511.10909; issue 37's Z1), where IEEE's sign
 * would be -0 (80000000).  v100, FP16 output: -2^-13 * 1 + -2^-24 * 0.25
 * + C = 2^-13 is -2^-26 exactly, below half of FP16's least 2^-24: +0
 * (0000), not -0 (8000). */
START_TEST(zero_sign_measured)
{
	struct fpref_format f32 = test_format("float32"), f16 = test_format("float16"), e4m3 = test_format("float8_e4m3fn"),
			    bf16 = test_format("bfloat16");
	uint64_t a[32] = { 0 }, b[32] = { 0 }, d = 1;
	for (int engine = 0; engine < 2; engine++) {
		int (*dot)(const struct fpref_tc_model *, const struct fpref_format *, const struct fpref_format *, const uint64_t *, const uint64_t *,
			   size_t, uint64_t, const struct fpref_format *, uint64_t *) = engine ? fpref_ref_tc_dot : fpref_emu_tc_dot;
		for (int k = 0; k < 32; k++) {
			a[k] = 0x80;
			b[k] = 0x00;
		}
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-wgmma", &e4m3), &e4m3, &e4m3, a, b, 32, 0x80000000, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x00000000);
		memset(a, 0, sizeof a);
		memset(b, 0, sizeof b);
		a[0] = 0x3C00, a[1] = 0xBC00, a[2] = 0x8800, b[0] = 0x3C00, b[1] = 0x3C00, b[2] = 0x0E00;
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-mma", &f16), &f16, &f16, a, b, 16, 0x0000, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0000);
		b[2] = 0x1200;
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-mma", &f16), &f16, &f16, a, b, 16, 0x0000, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x8002);
		memset(a, 0, sizeof a);
		memset(b, 0, sizeof b);
		a[0] = b[0] = 0x1A00;
		ck_assert_int_eq(dot(fpref_tc_model_find("h100-mma", &bf16), &bf16, &bf16, a, b, 16, 0x80000001, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x00000000);
		ck_assert_int_eq(dot(fpref_tc_model_find("a100", &bf16), &bf16, &bf16, a, b, 8, 0x80000001, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x00000000);
		memset(a, 0, sizeof a);
		memset(b, 0, sizeof b);
		a[0] = 0x8800, a[1] = 0x8001, b[0] = 0x3C00, b[1] = 0x3400;
		ck_assert_int_eq(dot(fpref_tc_model_find("v100", &f16), &f16, &f16, a, b, 4, 0x0800, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0000);
	}
}
END_TEST

/* The block's rounding toward zero still overflows to inf (the policy
 * fpref_formats_tc_model.h states for the units, which both engines' rounding cores
 * apply through the model's environment): BF16 max (0x7F7F) times 1 plus
 * FP32 max exceeds FP32's range, so rtz alone would give max finite
 * 0x7F7FFFFF; each sign, on every model whose FP32 rounding is rtz. */
START_TEST(overflow_to_inf_under_rtz)
{
	struct fpref_format f32 = test_format("float32"), bf16 = test_format("bfloat16");
	uint64_t a[64] = { 0 }, b[64] = { 0 }, d = 0;
	size_t tried = 0;
	for (size_t i = 0; i < fpref_tc_model_count(); i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		if (m->round_fp32 != FPREF_RTZ || !fpref_tc_output_ok(m, &bf16, &f32) || fpref_tc_lowered(m, &f32) ||
		    m->group > 0) /* the group path takes FP4 inputs only */
			continue;
		for (int negative = 0; negative < 2; negative++) {
			uint64_t sign = negative ? 0x8000 : 0, big = negative ? 0xFF7FFFFF : 0x7F7FFFFF;
			uint64_t inf = negative ? 0xFF800000 : 0x7F800000;
			a[0] = 0x7F7F | sign;
			b[0] = 0x3F80;
			for (int engine = 0; engine < 2; engine++) {
				int (*dot)(const struct fpref_tc_model *, const struct fpref_format *, const struct fpref_format *, const uint64_t *,
					   const uint64_t *, size_t, uint64_t, const struct fpref_format *, uint64_t *) =
					engine ? fpref_ref_tc_dot : fpref_emu_tc_dot;
				ck_assert_int_eq(dot(m, &bf16, &bf16, a, b, (size_t)m->block, big, &f32, &d), 0);
				ck_assert_msg(d == inf, "%s %s: %08llX, not %08llX", m->gpu, engine ? "oracle" : "emulator",
					      (unsigned long long)d, (unsigned long long)inf);
			}
		}
		tried++;
	}
	ck_assert_uint_gt(tried, 3);
}
END_TEST

/* Emulator against oracle where the result is zero: products that cancel
 * in pairs (x, -x), now and then a tiny product of either sign, -0 and
 * +0 terms, C = +0, -0 or tiny; the sm_90 presets never give -0, a100
 * (IEEE's sign) does. */
START_TEST(zero_results_against_oracle)
{
	static const struct {
		const char *gpu, *input;
	} rows[] = { { "h100", "float16" },        { "h100", "bfloat16" },         { "h100", "tf32" },
		     { "h100", "float8_e4m3fn" },  { "h100", "float8_e5m2" },      { "h100-mma", "float16" },
		     { "h100-mma", "float8_e4m3fn" }, { "h100-mma", "float8_e5m2" }, { "h100-wgmma", "bfloat16" },
		     { "h100-wgmma", "float8_e4m3fn" }, { "h100-wgmma", "float8_e5m2" }, { "a100", "float16" } };
	const size_t i = (size_t)_i;
	struct fpref_format in = test_format(rows[i].input);
	const struct fpref_tc_model *m = fpref_tc_model_find(rows[i].gpu, &in);
	ck_assert_ptr_nonnull(m);
	uint64_t state = 0x5eed0000u + i;
	unsigned long zeros = 0, negative_zeros = 0, cases = 0;
	for (int out16 = 0; out16 < 2; out16++) {
		struct fpref_format out = test_format(out16 ? "float16" : "float32");
		if (!fpref_tc_output_ok(m, &in, &out))
			continue;
		uint64_t in_sign = 1ull << (in.man_bits + in.exp_bits + in.pad_bits), out_sign = 1ull << (out.man_bits + out.exp_bits);
		for (int rep = 0; rep < 4000; rep++) {
			size_t K = 2 + next_random(&state) % (size_t)(2 * m->block + 30);
			uint64_t a[200], b[200];
			int top = max_field(&in);
			for (size_t k = 0; k + 1 < K; k += 2) { /* x and -x */
				a[k] = random_input(&in, &state, 0, top, 0);
				b[k] = random_input(&in, &state, 0, top, 0);
				a[k + 1] = a[k] ^ in_sign;
				b[k + 1] = b[k];
			}
			if (K % 2) /* a tiny product, or a signed zero */
				a[K - 1] = random_input(&in, &state, 0, 1, 0), b[K - 1] = random_input(&in, &state, 0, 1, 0);
			if (rep % 3 == 0)
				for (size_t k = 0; k < K; k++)
					a[k] = in_sign, b[k] = rep % 2 ? 0 : in_sign ^ in_sign * (k % 2);
			uint64_t r = next_random(&state), c = r % 4 == 0 ? 0 : r % 4 == 1 ? out_sign : random_input(&out, &state, 0, 1, 0);
			uint64_t want = 0, got = 0;
			ck_assert_int_eq(fpref_ref_tc_dot(m, &in, &in, a, b, K, c, &out, &want), 0);
			ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, a, b, K, c, &out, &got), 0);
			ck_assert_msg(got == want, "%s %s -> %s K=%zu case %d: emulator %llx, oracle %llx", m->gpu, in.name,
				      out.name, K, rep, (unsigned long long)got, (unsigned long long)want);
			zeros += (got & ~out_sign) == 0;
			negative_zeros += got == out_sign;
			cases++;
		}
	}
	printf("%-10s %-14s %lu cases, %lu zero results (%lu -0), emulator = oracle\n", m->gpu, in.name, cases, zeros,
	       negative_zeros);
	ck_assert_uint_gt(zeros, cases / 4);
	if (m->zero_positive)
		ck_assert_uint_eq(negative_zeros, 0);
	else
		ck_assert_uint_gt(negative_zeros, 0);
}
END_TEST

/* NaN bits (issue 37, N1): every row that says nan_ones gives the
 * all-ones NaN (7FFFFFFF, 7FFF) for inf - inf and for a NaN input, by both
 * engines, the dot product and the GEMM; the others the format's default
 * (7FC00000, 7E00).  Each row's first input, FP32 and FP16 output where
 * the row has them. */
START_TEST(nan_pattern_per_row)
{
	unsigned long rows = 0, ones = 0;
	for (size_t r = 0; r < fpref_tc_model_count(); r++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(r);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(m->inputs, ","), m->inputs);
		struct fpref_format in = test_format(name);
		uint64_t inf = 0, nan = 0, one = 0;
		if (!fpref_format_inf_bits(&in, false, &inf) && !fpref_format_nan_bits(&in, true, &nan))
			continue; /* FP4, FP6: no input makes a NaN */
		fpref_format_nan_bits(&in, true, &nan); /* a negative NaN where the format has one */
		struct fpref_unpacked u1 = { .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = 0 };
		fpref_encode(&in, &u1, &one);
		for (int o = 0; o < 2; o++) {
			struct fpref_format out = test_format(o ? "float16" : "float32");
			if (!fpref_tc_output_ok(m, &in, &out))
				continue;
			uint64_t want = m->nan_ones ? (o ? 0x7FFF : 0x7FFFFFFF) : (o ? 0x7E00 : 0x7FC00000);
			uint64_t a[2] = { nan, one }, b[2] = { one, one }, d[3];
			if (fpref_format_inf_bits(&in, false, &inf) && fpref_format_inf_bits(&in, true, &a[1]))
				a[0] = inf; /* inf + (-inf) */
			ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, a, b, 2, 0, &out, &d[0]), 0);
			ck_assert_int_eq(fpref_ref_tc_dot(m, &in, &in, a, b, 2, 0, &out, &d[1]), 0);
			uint64_t A[2] = { a[0], a[1] }, B[2] = { b[0], b[1] };
			ck_assert_int_eq(fpref_emu_tc_gemm(m, &in, &in, &out, 1, 1, 2, A, B, NULL, 0, &d[2]), 0);
			for (int e = 0; e < 3; e++)
				ck_assert_msg(d[e] == want, "%s %s -> %s (%s): %llx, not %llx", m->gpu, in.name, out.name,
					      e == 0 ? "emulator" : e == 1 ? "oracle" : "GEMM", (unsigned long long)d[e],
					      (unsigned long long)want);
			rows++;
			ones += m->nan_ones;
		}
	}
	ck_assert_uint_gt(ones, 20);
	ck_assert_uint_gt(rows, ones);
}
END_TEST

/* The rows decoded once (fpref_emu_tc_rows_dot, which probe inference
 * runs under thousands of models) give fpref_emu_tc_dot's status and bits:
 * every row, every pair of its inputs, both outputs, random operands with
 * specials and a row holding a pattern no format has. */
START_TEST(rows_dot_matches_dot)
{
	const size_t K = 16, count = 48, w = 2 * K + 1;
	uint64_t rows[48 * 33], state = 37;
	unsigned long compared = 0;
	for (size_t r = 0; r < fpref_tc_model_count(); r++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(r);
		char names[256];
		snprintf(names, sizeof names, "%s", *m->inputs ? m->inputs : "float16,bfloat16");
		for (char *sa, *pa = strtok_r(names, ",", &sa); pa; pa = strtok_r(NULL, ",", &sa)) {
			char copy[256];
			snprintf(copy, sizeof copy, "%s", *m->inputs ? m->inputs : "float16,bfloat16");
			for (char *sb, *pb = strtok_r(copy, ",", &sb); pb; pb = strtok_r(NULL, ",", &sb)) {
				struct fpref_format a = test_format(pa), b = test_format(pb);
				for (int o = 0; o < 2; o++) {
					struct fpref_format out = test_format(o ? "float16" : "float32");
					for (size_t i = 0; i < count * w; i++) {
						size_t col = i % w;
						const struct fpref_format *f = col < K ? &a : col < 2 * K ? &b : &out;
						rows[i] = random_input(f, &state, 0, max_field(f), 6);
					}
					rows[5 * w + 3] = UINT64_C(1) << 40; /* no format's pattern */
					struct fpref_emu_tc_rows *pre = fpref_emu_tc_rows_new(&a, &b, rows, count, K);
					ck_assert_ptr_nonnull(pre);
					unsigned long differ = 0;
					for (size_t i = 0; i < count; i++) {
						const uint64_t *row = rows + i * w;
						uint64_t d1 = 0, d2 = 0;
						int s1 = fpref_emu_tc_dot(m, &a, &b, row, row + K, K, row[2 * K], &out, &d1);
						int s2 = fpref_emu_tc_rows_dot(m, pre, i, &out, &d2);
						differ += s1 != s2 || (s1 == 0 && d1 != d2);
						compared += s1 == 0;
					}
					fpref_emu_tc_rows_free(pre);
					ck_assert_msg(differ == 0, "%s %s x %s -> %s: %lu rows differ", m->gpu, pa, pb,
						      out.name, differ);
				}
			}
		}
	}
	ck_assert_uint_gt(compared, 10000);
}
END_TEST

/* Issue 37: a custom model states each convention with --traits.  Each
 * trait flips the hand-worked case of its class on both engines
 * (Z1: 8000 -> 0000; N1: inf - inf, 7E00 -> 7FFF; A3: 0002 -> 0001; O1:
 * 2^200 - 2^200, 0 -> NaN); v100's FP16 output is generic (4 products, 23
 * bits, floor -19, rne) with zero-positive and nan-ones, on random cases;
 * and the description a golden file carries reads back with its traits. */
START_TEST(generic_traits)
{
	struct fpref_format f16 = test_format("float16"), e5m2 = test_format("float8_e5m2"),
			    bf16 = test_format("bfloat16"), f32 = test_format("float32");
	char err[256], desc[512];
	const struct {
		const char *traits;
		const struct fpref_format *in, *out;
		int block, frac;
		uint64_t a[16], b[16], c, without, with;
	} cases[] = {
		{ "zero-positive", &f16, &f16, 4, 23, { 0x8800, 0x8001 }, { 0x3C00, 0x3400 }, 0x0800, 0x8000, 0x0000 },
		{ "nan-ones", &f16, &f16, 4, 23, { 0x7C00, 0xFC00 }, { 0x3C00, 0x3C00 }, 0, 0x7E00, 0x7FFF },
		{ "c-least-normal", &e5m2, &f16, 16, 13,
		  { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 }, { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 }, 0x0001,
		  0x0002, 0x0001 },
		{ "product-inf", &bf16, &f32, 8, 24, { 0x7180, 0x7180 }, { 0x7180, 0xF180 }, 0, 0x00000000, 0x7FC00000 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fpref_tc_model plain, traited, back;
		ck_assert_int_eq(fpref_tc_model_custom(cases[i].block, cases[i].frac, FPREF_TC_NO_FLOOR, FPREF_RNE, &plain, err,
						       sizeof err), 0);
		traited = plain;
		ck_assert_msg(fpref_tc_model_traits(&traited, cases[i].traits, err, sizeof err) == 0, "%s", err);
		size_t K = cases[i].block > 2 ? (size_t)cases[i].block : 2;
		for (int e = 0; e < 2; e++) {
			uint64_t d = 1;
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&plain, cases[i].in, cases[i].in, cases[i].a,
										    cases[i].b, K, cases[i].c, cases[i].out, &d), 0);
			ck_assert_msg(d == cases[i].without, "%s off, engine %d: %llx", cases[i].traits, e, (unsigned long long)d);
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&traited, cases[i].in, cases[i].in, cases[i].a,
										    cases[i].b, K, cases[i].c, cases[i].out, &d), 0);
			ck_assert_msg(d == cases[i].with, "%s on, engine %d: %llx", cases[i].traits, e, (unsigned long long)d);
		}
		fpref_tc_model_describe(&traited, cases[i].out->name, desc, sizeof desc);
		ck_assert_msg(strstr(desc, cases[i].traits) != NULL, "%s", desc);
		ck_assert_int_eq(fpref_tc_model_from_description(desc, &back), 0);
		ck_assert(back.zero_positive == traited.zero_positive && back.nan_ones == traited.nan_ones &&
			  back.c_least_normal == traited.c_least_normal && back.product_inf == traited.product_inf);
		fpref_tc_model_describe(&plain, cases[i].out->name, desc, sizeof desc);
		ck_assert_ptr_null(strstr(desc, "traits"));
	}
	struct fpref_tc_model m;
	ck_assert_int_ne(fpref_tc_model_traits(&m, "zero-positive,bogus", err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(err, "'bogus'"));

	/* v100's FP16 output, stated as a custom model with two traits */
	const struct fpref_tc_model *v100 = fpref_tc_model_find("v100", &f16);
	struct fpref_tc_model custom;
	ck_assert_int_eq(fpref_tc_model_custom(4, 23, v100->floor_fp16, FPREF_RNE, &custom, err, sizeof err), 0);
	ck_assert_int_eq(fpref_tc_model_traits(&custom, "zero-positive,nan-ones", err, sizeof err), 0);
	uint64_t state = 0x7ea175;
	for (int rep = 0; rep < 3000; rep++) {
		uint64_t a[12], b[12];
		size_t K = 1 + next_random(&state) % 12;
		uint64_t c = random_case(&f16, &f16, &state, K, a, b);
		for (int e = 0; e < 2; e++) {
			uint64_t want = 1, got = 2;
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(v100, &f16, &f16, a, b, K, c, &f16, &want), 0);
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&custom, &f16, &f16, a, b, K, c, &f16, &got), 0);
			ck_assert_msg(got == want, "case %d engine %d: v100 %llx, generic %llx", rep, e, (unsigned long long)want,
				      (unsigned long long)got);
		}
	}
}
END_TEST

/* Issue 37, classes A1 and A2, worked by hand with tcgen05's parameters
 * (16 products, 25 bits, no floor, rtz) as a custom model:
 *  - A1, bf16, a0..a7 = 19C0 (1.5 * 2^-76), b0..b7 = 1980 (2^-76), c = 0:
 *    eight products 1.5 * 2^-152.  fpref aligns at 2^-152 and keeps them:
 *    12 * 2^-152 = 1.5 * 2^-149, to zero 2^-149, 00000001.  A zero C at
 *    2^-126 keeps bits down to 2^-151 only: each product is cut, 00000000.
 *  - A2, bf16, a0 = 0, b0 = 7F00 (2^127), c = 30800000 (2^-30): the zero at
 *    2^-126 puts the product at 2^1; C lies 31 places below, past 25 bits:
 *    00000000; without, C alone: 30800000.
 *  - A2, f16, a0 = 0, b0 = 7800 (2^15), c = 00800001 (2^-126 (1 + 2^-23)):
 *    the product at 2^-111 keeps C down to 2^-136: its last bit is cut,
 *    00800000; without, 00800001.
 * Each trait gives the independent model's answer on both engines, off
 * fpref's (the presets', tcgen05's among them); the rows keep them off
 * (no hardware measurement yet).  Then random cases with zeros on both
 * traits, emulator against oracle, the GEMM against the dot product and
 * the a priori bound held; and the paths without an alignment of this
 * kind refuse them. */
START_TEST(zero_alignment_traits)
{
	struct fpref_format bf16 = test_format("bfloat16"), f16 = test_format("float16"), f32 = test_format("float32");
	const struct {
		const char *traits;
		const struct fpref_format *in;
		uint64_t a[16], b[16], c, without, with;
	} cases[] = {
		{ "zero-c-aligns", &bf16, { 0x19C0, 0x19C0, 0x19C0, 0x19C0, 0x19C0, 0x19C0, 0x19C0, 0x19C0 },
		  { 0x1980, 0x1980, 0x1980, 0x1980, 0x1980, 0x1980, 0x1980, 0x1980 }, 0, 0x00000001, 0x00000000 },
		{ "zero-operand-aligns", &bf16, { 0x0000 }, { 0x7F00 }, 0x30800000, 0x30800000, 0x00000000 },
		{ "zero-operand-aligns", &f16, { 0x0000 }, { 0x7800 }, 0x00800001, 0x00800001, 0x00800000 },
	};
	char err[256], desc[512];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fpref_tc_model plain, traited, back;
		ck_assert_int_eq(fpref_tc_model_custom(16, 25, FPREF_TC_NO_FLOOR, FPREF_RTZ, &plain, err, sizeof err), 0);
		traited = plain;
		ck_assert_msg(fpref_tc_model_traits(&traited, cases[i].traits, err, sizeof err) == 0, "%s", err);
		const struct fpref_tc_model *preset = fpref_tc_model_find("tcgen05", cases[i].in);
		ck_assert(!preset->zero_c_aligns && !preset->zero_operand_aligns);
		for (int e = 0; e < 2; e++) {
			int (*dot)(const struct fpref_tc_model *, const struct fpref_format *, const struct fpref_format *,
				   const uint64_t *, const uint64_t *, size_t, uint64_t, const struct fpref_format *,
				   uint64_t *) = e ? fpref_ref_tc_dot : fpref_emu_tc_dot;
			uint64_t d = 2;
			ck_assert_int_eq(dot(&plain, cases[i].in, cases[i].in, cases[i].a, cases[i].b, 16, cases[i].c, &f32, &d), 0);
			ck_assert_msg(d == cases[i].without, "%s off, engine %d: %llx", cases[i].traits, e, (unsigned long long)d);
			ck_assert_int_eq(dot(preset, cases[i].in, cases[i].in, cases[i].a, cases[i].b, 16, cases[i].c, &f32, &d), 0);
			ck_assert_msg(d == cases[i].without, "%s tcgen05, engine %d: %llx", cases[i].traits, e,
				      (unsigned long long)d);
			ck_assert_int_eq(dot(&traited, cases[i].in, cases[i].in, cases[i].a, cases[i].b, 16, cases[i].c, &f32, &d), 0);
			ck_assert_msg(d == cases[i].with, "%s on, engine %d: %llx", cases[i].traits, e, (unsigned long long)d);
		}
		fpref_tc_model_describe(&traited, "float32", desc, sizeof desc);
		ck_assert_int_eq(fpref_tc_model_from_description(desc, &back), 0);
		ck_assert(back.zero_c_aligns == traited.zero_c_aligns && back.zero_operand_aligns == traited.zero_operand_aligns);
	}

	/* random blocks, a quarter of the operands zero, C zero half the time:
	 * the two engines, and the emulator's GEMM (its per-column path) */
	struct fpref_tc_model both;
	ck_assert_int_eq(fpref_tc_model_custom(8, 24, -133, FPREF_RTZ, &both, err, sizeof err), 0);
	ck_assert_int_eq(fpref_tc_model_traits(&both, "zero-c-aligns,zero-operand-aligns,zero-positive", err, sizeof err), 0);
	const struct fpref_format *ins[] = { &bf16, &f16 };
	uint64_t state = 0xa1a2;
	size_t differ_from_plain = 0;
	struct tightness t = { 0, 0, 0 };
	mpfr_t bound;
	mpfr_init2(bound, 64);
	for (int rep = 0; rep < 4000; rep++) {
		const struct fpref_format *in = ins[rep % 2];
		uint64_t a[24], b[24], want = 1, got = 2;
		size_t K = 1 + next_random(&state) % 24;
		uint64_t c = random_case(in, &f32, &state, K, a, b);
		for (size_t k = 0; k < K; k++) {
			if (next_random(&state) % 4 == 0)
				a[k] = 0;
			if (next_random(&state) % 4 == 0)
				b[k] = 0;
		}
		ck_assert_int_eq(fpref_ref_tc_dot(&both, in, in, a, b, K, c, &f32, &want), 0);
		ck_assert_int_eq(fpref_emu_tc_dot(&both, in, in, a, b, K, c, &f32, &got), 0);
		ck_assert_msg(got == want, "case %d: oracle %llx, emulator %llx", rep, (unsigned long long)want,
			      (unsigned long long)got);
		ck_assert_int_eq(fpref_emu_tc_gemm(&both, in, in, &f32, 1, 1, K, a, b, &c, 0, &got), 0);
		ck_assert_msg(got == want, "case %d: gemm %llx, dot %llx", rep, (unsigned long long)got, (unsigned long long)want);
		ck_assert_int_eq(fpref_ref_tc_bound(&both, in, in, a, b, K, c, &f32, 0, bound), 0);
		if (!mpfr_inf_p(bound) && !mpfr_nan_p(bound))
			check_bound(in, a, b, K, c, &f32, want, bound, &t, in->name);
		struct fpref_tc_model plain = both;
		plain.zero_c_aligns = plain.zero_operand_aligns = false;
		ck_assert_int_eq(fpref_emu_tc_dot(&plain, in, in, a, b, K, c, &f32, &got), 0);
		differ_from_plain += got != want;
	}
	ck_assert_uint_gt(differ_from_plain, 10); /* the random cases reach the conventions (20 of 4000 here) */
	report("zero-c-aligns,zero-operand-aligns (bound)", &t);
	ck_assert_uint_gt(t.cases, 1000);
	mpfr_clear(bound);

	/* the two-stage and FP32 paths have no such alignment: refused */
	const struct fpref_tc_model *paths[] = { fpref_tc_model_find("mfma-cdna3", &f16), fpref_tc_model_find("mfma-cdna2", &f16) };
	for (size_t i = 0; i < 2; i++) {
		struct fpref_tc_model m = *paths[i];
		m.zero_operand_aligns = true;
		uint64_t a[1] = { 0 }, b[1] = { 0x3C00 }, d;
		ck_assert_int_eq(fpref_emu_tc_dot(&m, &f16, &f16, a, b, 1, 0, &f32, &d), -1);
		ck_assert_int_eq(fpref_ref_tc_dot(&m, &f16, &f16, a, b, 1, 0, &f32, &d), -1);
	}
}
END_TEST

/* Turing (sm_75): one block of 8 with 24 fraction bits (Xie et al.'s
 * model).  Worked by hand: products 1, 2^-24, 2^-24 (3C00, 0C00, 0C00
 * squared), C = 0: aligned at 2^0, 24 bits keep both 2^-24: 1 + 2^-23,
 * 3F800001; v100's 23 bits cut them: 3F800000.  Products 1, -1 in the
 * first four and 2^-30 (0200 squared) in the next: one block of 8 cuts
 * 2^-30 against 2^0 (+0); m8n8k4, which sm_75 runs with Volta's arithmetic
 * (the independent model's fallback, and 3,000 random cases against it),
 * is refused on turing with a pointer to v100, whose blocks of 4 keep it
 * (30800000), the GEMM's path too.  FP16 output, f16 inputs only; the
 * chips' names resolve to it. */
START_TEST(turing_preset)
{
	struct fpref_format f16 = test_format("float16"), bf16 = test_format("bfloat16"), f32 = test_format("float32");
	const struct fpref_tc_model *turing = fpref_tc_model_find("turing", &f16), *v100 = fpref_tc_model_find("v100", &f16);
	ck_assert_ptr_nonnull(turing);
	ck_assert_ptr_null(fpref_tc_model_find("turing", &bf16));
	ck_assert(fpref_tc_output_ok(turing, &f16, &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("T4", &f16), turing);
	uint64_t a[8] = { 0x3C00, 0x0C00, 0x0C00 }, d = 1;
	for (int e = 0; e < 2; e++) {
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(turing, &f16, &f16, a, a, 3, 0, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x3F800001);
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(v100, &f16, &f16, a, a, 3, 0, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x3F800000);
	}
	uint64_t x[8] = { 0x3C00, 0x3C00, 0, 0, 0x0200 }, y[8] = { 0x3C00, 0xBC00, 0, 0, 0x0200 };
	char err[256];
	struct fpref_tc_model k4 = *turing, k8 = *turing;
	ck_assert_int_ne(fpref_tc_model_shape(&k4, &f32, "m8n8k4", err, sizeof err), 0);
	ck_assert_msg(strstr(err, "--model v100") != NULL, "%s", err);
	k4 = *v100;
	ck_assert_msg(fpref_tc_model_shape(&k4, &f32, "m8n8k4", err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_tc_model_shape(&k8, &f32, "m16n8k8", err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(k4.block, 4);
	ck_assert_int_eq(k8.block, 8);
	ck_assert_int_ne(fpref_tc_model_shape(&k8, &f32, "m16n8k16", err, sizeof err), 0); /* Ampere's */
	for (int e = 0; e < 2; e++) {
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(turing, &f16, &f16, x, y, 8, 0, &f32, &d), 0);
		ck_assert_uint_eq(d, 0);
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&k4, &f16, &f16, x, y, 8, 0, &f32, &d), 0);
		ck_assert_uint_eq(d, 0x30800000);
	}
	ck_assert_int_eq(fpref_emu_tc_gemm(&k4, &f16, &f16, &f32, 1, 1, 8, x, y, NULL, 0, &d), 0);
	ck_assert_uint_eq(d, 0x30800000);
}
END_TEST

/* The FMA-chain instructions (dmma, CDNA's FP32 and FP64 v_mfma_*): the
 * emulator's model against a chain of the oracle's fma, step by step (MPFR,
 * rne), on random operands of the whole range, specials included.  Worked
 * by hand: (1 + 2^-52)^2 - (1 + 2^-51) is 2^-104 exactly (3970000000000000)
 * only if the product is not rounded; FP32's (1 + 2^-23)^2 - (1 + 2^-22) is
 * 2^-46 (28800000); and K order from C: 1 + 2^-53 + 2^-53 stays 1 (each
 * step a tie to even) where the exact sum is 1 + 2^-52.  Other outputs and
 * shapes the ISA lacks are refused. */
START_TEST(fma_chain_presets)
{
	struct fpref_format f32 = test_format("float32"), f64 = test_format("float64"), f16 = test_format("float16");
	struct fpref_env env;
	fpref_env_default(&env);
	char err[256];
	size_t rows = 0;
	for (size_t r = 0; fpref_tc_fma_at(r); r++, rows++) {
		const struct fpref_tc_fma_row *row = fpref_tc_fma_at(r);
		struct fpref_format in = test_format(row->input);
		ck_assert_ptr_eq(fpref_tc_fma_find(row->gpu, &in), row);
		ck_assert_ptr_null(fpref_tc_fma_find(row->gpu, &f16));
		struct fpref_accum_model m;
		ck_assert_msg(fpref_tc_fma_model(row, &in, &in, &in, NULL, &m, err, sizeof err) == 0, "%s", err);
		ck_assert(m.kind == FPREF_ACCUM_PLAIN && m.order == FPREF_SUM_FMA_CHAIN);
		ck_assert_int_ne(fpref_tc_fma_model(row, &in, &in, fpref_format_is(&in, FPREF_FORMAT_FLOAT32) ? &f64 : &f32,
						    NULL, &m, err, sizeof err), 0);
		ck_assert_int_ne(fpref_tc_fma_model(row, &in, &in, &in, "m16n8k3", &m, err, sizeof err), 0);
		char first[32];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(row->shapes, ","), row->shapes);
		ck_assert_msg(fpref_tc_fma_model(row, &in, &in, &in, first, &m, err, sizeof err) == 0, "%s", err);
		uint64_t state = 0xf3a0 + r;
		for (int rep = 0; rep < 1500; rep++) {
			uint64_t a[40], b[40], want, got;
			size_t K = 1 + next_random(&state) % 40;
			uint64_t c = random_case(&in, &in, &state, K, a, b);
			unsigned flags = 0;
			want = c;
			for (size_t k = 0; k < K; k++) {
				uint64_t args[3] = { a[k], b[k], want };
				ck_assert_int_eq(fpref_ref_op(FPREF_OP_FMA, &in, args, &env, 0, &want, &flags), 0);
			}
			ck_assert_int_eq(fpref_emu_model_dot(&m, &in, &in, a, b, K, c, &in, &env, &got), 0);
			ck_assert_msg(got == want, "%s %s case %d: emulator %llx, oracle's fma chain %llx", row->gpu, in.name, rep,
				      (unsigned long long)got, (unsigned long long)want);
		}
	}
	ck_assert_uint_eq(rows, 6);
	const struct {
		const char *gpu;
		const struct fpref_format *f;
		uint64_t a[2], b[2], c, want;
		size_t K;
	} worked[] = {
		{ "dmma", &f64, { 0x3FF0000000000001 }, { 0x3FF0000000000001 }, 0xBFF0000000000002, 0x3970000000000000, 1 },
		{ "mi300x", &f32, { 0x3F800001 }, { 0x3F800001 }, 0xBF800002, 0x28800000, 1 },
		{ "mfma-cdna2", &f64, { 0x3CA0000000000000, 0x3CA0000000000000 }, { 0x3FF0000000000000, 0x3FF0000000000000 },
		  0x3FF0000000000000, 0x3FF0000000000000, 2 },
	};
	for (size_t i = 0; i < sizeof worked / sizeof worked[0]; i++) {
		struct fpref_accum_model m;
		const struct fpref_tc_fma_row *row = fpref_tc_fma_find(worked[i].gpu, worked[i].f);
		ck_assert_ptr_nonnull(row);
		ck_assert_int_eq(fpref_tc_fma_model(row, worked[i].f, worked[i].f, worked[i].f, NULL, &m, err, sizeof err), 0);
		uint64_t d = 0, acc = worked[i].c;
		unsigned flags = 0;
		ck_assert_int_eq(fpref_emu_model_dot(&m, worked[i].f, worked[i].f, worked[i].a, worked[i].b, worked[i].K,
						     worked[i].c, worked[i].f, &env, &d), 0);
		ck_assert_msg(d == worked[i].want, "%s: %llx", worked[i].gpu, (unsigned long long)d);
		for (size_t k = 0; k < worked[i].K; k++) {
			uint64_t args[3] = { worked[i].a[k], worked[i].b[k], acc };
			ck_assert_int_eq(fpref_ref_op(FPREF_OP_FMA, worked[i].f, args, &env, 0, &acc, &flags), 0);
		}
		ck_assert_uint_eq(acc, worked[i].want);
	}
}
END_TEST

/* Issue 37, class F1: the FP16-output floors come from targeted hardware
 * vectors, which the independent model lacks; they stay.  Worked by hand:
 * h100-mma f16 -> f16, a0 b0 = 2^-10 * 2^-15 = 2^-25 (half of FP16's least
 * subnormal), a1 b1 = 2^-24 * 2^-24 = 2^-48.  The floor -21 aligns at 2^-21
 * and keeps 25 bits down to 2^-46: 2^-48 is cut, 2^-25 is a tie, to even:
 * 0000 (fpref).  With no floor the alignment is 2^-25 and 2^-48 stays: above
 * the tie, 0001 (the independent model's answer). */
START_TEST(fp16_floor_kept)
{
	struct fpref_format f16 = test_format("float16");
	const struct fpref_tc_model *row = fpref_tc_model_find("h100-mma", &f16);
	ck_assert_int_eq(row->floor_fp16, -21);
	uint64_t a[16] = { 0x1400, 0x0001 }, b[16] = { 0x0200, 0x0001 }, d = 1;
	struct fpref_tc_model no_floor = *row;
	no_floor.floor_fp16 = FPREF_TC_NO_FLOOR;
	for (int e = 0; e < 2; e++) {
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(row, &f16, &f16, a, b, 16, 0, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0000);
		ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&no_floor, &f16, &f16, a, b, 16, 0, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0001);
	}
}
END_TEST

/* Issue 37, class D2: a kernel built from a smaller instruction chains
 * blocks of that instruction's K.  Worked by hand: products 1 and -1 in
 * the first K/2 of the row's block and 2^-30 in the second.  One block
 * aligns everything at 2^0 and keeps F = 25 (24 on CDNA3) bits: 2^-30 is
 * cut, d = +0.  Blocks of K/2: the first gives 0, the second 2^-30 alone,
 * exactly: d = 30800000.  h100-mma m16n8k8 (f16) and m16n8k4 (tf32),
 * mma-sm120 m16n8k16 (e5m2: 2^-16 * 2^-16 = 2^-32, 2F800000) and CDNA3's
 * K = 4 f16 instruction 32x32x4; the preset's own shape changes nothing,
 * and a shape the ISA lacks is refused. */
START_TEST(instruction_shapes)
{
	struct fpref_format f16 = test_format("float16"), tf32 = test_format("tf32"), e5m2 = test_format("float8_e5m2"),
			    f32 = test_format("float32");
	const struct {
		const char *gpu, *shape;
		const struct fpref_format *in;
		uint64_t one, minus_one, tiny, want;
		size_t half;
	} cases[] = {
		{ "h100-mma", "m16n8k8", &f16, 0x3C00, 0xBC00, 0x0200, 0x30800000, 8 },
		{ "h100-mma", "m16n8k4", &tf32, 0x3F800000, 0xBF800000, 0x38000000, 0x30800000, 4 },
		{ "mma-sm120", "m16n8k16", &e5m2, 0x3C, 0xBC, 0x01, 0x2F800000, 16 },
		{ "mfma-cdna3", "32x32x4", &f16, 0x3C00, 0xBC00, 0x0200, 0x30800000, 4 },
	};
	char err[256];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct fpref_tc_model *row = fpref_tc_model_find(cases[i].gpu, cases[i].in);
		ck_assert_ptr_nonnull(row);
		ck_assert_uint_eq((size_t)row->block, 2 * cases[i].half);
		uint64_t a[64] = { cases[i].one, cases[i].one }, b[64] = { cases[i].one, cases[i].minus_one }, d = 1;
		a[cases[i].half] = b[cases[i].half] = cases[i].tiny;
		size_t K = 2 * cases[i].half;
		struct fpref_tc_model shaped = *row, own = *row;
		ck_assert_msg(fpref_tc_model_shape(&shaped, &f32, cases[i].shape, err, sizeof err) == 0, "%s", err);
		ck_assert_int_eq(shaped.block, (int)cases[i].half);
		for (int e = 0; e < 2; e++) {
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(&shaped, cases[i].in, cases[i].in, a, b, K, 0, &f32, &d), 0);
			ck_assert_msg(d == cases[i].want, "%s %s engine %d: %llx", cases[i].gpu, cases[i].shape, e,
				      (unsigned long long)d);
			ck_assert_int_eq((e ? fpref_ref_tc_dot : fpref_emu_tc_dot)(row, cases[i].in, cases[i].in, a, b, K, 0, &f32, &d), 0);
			ck_assert_uint_eq(d, 0);
		}
		uint64_t B[64];
		for (size_t k = 0; k < K; k++)
			B[k] = b[k]; /* one column */
		ck_assert_int_eq(fpref_emu_tc_gemm(&shaped, cases[i].in, cases[i].in, &f32, 1, 1, K, a, B, NULL, 0, &d), 0);
		ck_assert_uint_eq(d, cases[i].want);
		/* the instruction of the row's own K: the same model */
		char own_shape[32];
		snprintf(own_shape, sizeof own_shape, "%s", cases[i].shape);
		if (own_shape[0] == 'm')
			snprintf(strrchr(own_shape, 'k') + 1, 8, "%zu", K);
		else
			snprintf(strrchr(own_shape, 'x') + 1, 8, "%zu", K);
		ck_assert_msg(fpref_tc_model_shape(&own, &f32, own_shape, err, sizeof err) == 0, "%s: %s", own_shape, err);
		ck_assert_int_eq(own.block, row->block);
	}
	struct fpref_tc_model m = *fpref_tc_model_find("h100-mma", &f16);
	ck_assert_int_ne(fpref_tc_model_shape(&m, &f32, "m16n8k4", err, sizeof err), 0); /* tf32's, not f16's */
	ck_assert_int_ne(fpref_tc_model_shape(&m, &f32, "m16n8k", err, sizeof err), 0);
	m = *fpref_tc_model_find("h100-wgmma", &f16);
	ck_assert_int_eq(fpref_tc_model_shape(&m, &f32, "m64n256k16", err, sizeof err), 0);
	ck_assert_int_eq(m.block, 16);
	ck_assert_int_ne(fpref_tc_model_shape(&m, &f32, "m64nk16", err, sizeof err), 0);
	m = *fpref_tc_model_find("h100-mma", &e5m2); /* FP8 on sm_90: lowered to FP16 instructions */
	ck_assert_int_ne(fpref_tc_model_shape(&m, &f32, "m16n8k16", err, sizeof err), 0);
}
END_TEST

/* A subnormal FP16 C (issue 37, A3) on ada and h100-wgmma, E5M2 in, FP16
 * out, K = 16: each a_k = 04 (2^-14) times b_k = 02 (2^-15), sixteen
 * products of 2^-29, 2^-25 together; C = 0001 (2^-24, FP16's least).  C
 * aligned at FP16's least normal exponent (-14), as a subnormal input is:
 * E = -14, the 13 (ada: 13) fraction bits keep nothing below 2^-27, every
 * product is cut and d = C = 0001.  Aligned at its own binade (2^-24),
 * the products would count: 2^-24 + 2^-25, a tie, to even: 0002. */
START_TEST(subnormal_c_at_least_normal)
{
	struct fpref_format e5m2 = test_format("float8_e5m2"), f16 = test_format("float16");
	uint64_t a[16], b[16], d = 0;
	for (int k = 0; k < 16; k++) {
		a[k] = 0x04;
		b[k] = 0x02;
	}
	const char *rows[] = { "ada", "h100-wgmma" };
	for (int r = 0; r < 2; r++) {
		const struct fpref_tc_model *m = fpref_tc_model_find(rows[r], &e5m2);
		ck_assert(m->c_least_normal);
		ck_assert_int_eq(fpref_emu_tc_dot(m, &e5m2, &e5m2, a, b, 16, 0x0001, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0001);
		ck_assert_int_eq(fpref_ref_tc_dot(m, &e5m2, &e5m2, a, b, 16, 0x0001, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0001);
		uint64_t A[16], B[16];
		memcpy(A, a, sizeof A);
		memcpy(B, b, sizeof B);
		uint64_t C = 0x0001;
		ck_assert_int_eq(fpref_emu_tc_gemm(m, &e5m2, &e5m2, &f16, 1, 1, 16, A, B, &C, 0, &d), 0);
		ck_assert_uint_eq(d, 0x0001);
		/* the same row read at C's own binade: the tie goes to even */
		struct fpref_tc_model own = *m;
		own.c_least_normal = false;
		ck_assert_int_eq(fpref_emu_tc_dot(&own, &e5m2, &e5m2, a, b, 16, 0x0001, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0002);
		ck_assert_int_eq(fpref_ref_tc_dot(&own, &e5m2, &e5m2, a, b, 16, 0x0001, &f16, &d), 0);
		ck_assert_uint_eq(d, 0x0002);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tensor-core model");
	TCase *tc = tcase_create("model");
	int n = (int)(sizeof models / sizeof models[0]);
	tcase_add_loop_test(tc, model_against_oracle, 0, n);
	tcase_add_loop_test(tc, model_bound_holds, 0, n);
	tcase_add_loop_test(tc, plain_bounds_hold, 0, 3);
	tcase_add_test(tc, bound_is_reached);
	tcase_add_test(tc, custom_model_errors);
	tcase_add_test(tc, sm90_presets);
	tcase_add_test(tc, zero_sign_measured);
	tcase_add_test(tc, nan_pattern_per_row);
	tcase_add_test(tc, subnormal_c_at_least_normal);
	tcase_add_test(tc, instruction_shapes);
	tcase_add_test(tc, rows_dot_matches_dot);
	tcase_add_test(tc, fp16_floor_kept);
	tcase_add_test(tc, generic_traits);
	tcase_add_test(tc, zero_alignment_traits);
	tcase_add_test(tc, turing_preset);
	tcase_add_test(tc, fma_chain_presets);
	tcase_add_test(tc, overflow_to_inf_under_rtz);
	tcase_add_loop_test(tc, zero_results_against_oracle, 0, 12);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return test_run(s);
}
