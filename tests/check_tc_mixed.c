/* Hybrid operands (issue 36): A and B of two formats (E5M2 gradients times
 * E4M3 weights in FP8 training's backward GEMMs; any pair of kind::f8f6f4;
 * CDNA3's fp8/bf8).  Every pair every mixed preset takes, the emulator
 * against the oracle (random cases and the edges: subnormals of one format
 * times values of the other, products at the F-bit cut, the floors); the
 * GEMM's tile kernels against the dot product on mixed operands; the
 * pairs a preset refuses; and hand-worked cases where the mixed result
 * differs from both same-format runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"
#include "fpref_ref.h"
#include "tc_random.h"

/* The i-th comma-separated name of list into name; false past the end. */
static bool nth_name(const char *list, size_t i, char *name, size_t len)
{
	const char *p = list;
	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p)
		return false;
	size_t n = strcspn(p, ",");
	ck_assert_uint_lt(n, len);
	memcpy(name, p, n);
	name[n] = '\0';
	return true;
}

static unsigned long cases_per_pair(void)
{
	unsigned long n = getenv("FPREF_EXHAUSTIVE") ? 40000 : 2000;
	return n / test_sample_stride();
}

/* K operands of fa over a random band of exponents (now and then one of
 * its subnormals or a special), of fb over its whole range; c zero half of
 * the time. */
static uint64_t mixed_case(const struct fpref_format *fa, const struct fpref_format *fb, const struct fpref_format *out,
			   uint64_t *state, size_t K, uint64_t *a, uint64_t *b)
{
	int top = max_field(fa), lo = (int)(next_random(state) % (unsigned)top);
	int hi = lo + (int)(next_random(state) % (unsigned)(top - lo + 1));
	for (size_t k = 0; k < K; k++) {
		bool tiny = next_random(state) % 8 == 0;
		a[k] = random_input(fa, state, tiny ? 0 : lo, tiny ? 1 : hi, 97);
		b[k] = random_input(fb, state, 0, max_field(fb), 97);
	}
	return next_random(state) % 2 ? 0 : random_input(out, state, 0, max_field(out), 200);
}

static void report(const uint64_t *a, const uint64_t *b, size_t K, uint64_t c)
{
	for (size_t k = 0; k < 2 * K; k++)
		fprintf(stderr, "%llx ", (unsigned long long)(k < K ? a[k] : b[k - K]));
	fprintf(stderr, "%llx\n", (unsigned long long)c);
}

/* Every mixed row, every ordered pair of two different formats it takes,
 * both outputs where it has them; the block-scaled rows with E8M0 scales
 * on half of the cases. */
START_TEST(pairs_against_oracle)
{
	const struct fpref_tc_model *m = fpref_tc_model_at((size_t)_i);
	if (!m->mixed)
		return;
	struct fpref_format e8m0 = test_format("float8_e8m0fnu");
	bool block_scaled = strstr(m->gpu, "mx") != NULL || strstr(m->gpu, "-scale") != NULL;
	char na[64], nb[64];
	unsigned long pairs = 0, cases = 0;
	for (size_t i = 0; nth_name(m->inputs, i, na, sizeof na); i++)
		for (size_t j = 0; nth_name(m->inputs, j, nb, sizeof nb); j++) {
			if (i == j)
				continue;
			struct fpref_format fa = test_format(na), fb = test_format(nb);
			ck_assert_msg(fpref_tc_pair_ok(m, &fa, &fb), "%s takes %s x %s", m->gpu, na, nb);
			uint64_t state = 0x3ced0000u + ((uint64_t)_i << 40) + ((uint64_t)i << 32) + ((uint64_t)j << 24);
			for (unsigned long rep = 0; rep < cases_per_pair(); rep++) {
				struct fpref_format out = test_format(rep % 2 ? "float16" : "float32");
				if (!fpref_tc_output_ok(m, &fa, &out) || !fpref_tc_output_ok(m, &fb, &out))
					out = test_format("float32");
				size_t K = 1 + next_random(&state) % (size_t)(3 * m->block + 2);
				uint64_t a[200], b[200], sa[8], sb[8], got = 1, want = 2;
				uint64_t c = mixed_case(&fa, &fb, &out, &state, K, a, b);
				struct fpref_tc_scales s = { &e8m0, sa, sb, 32 };
				bool scaled = block_scaled && rep % 2 == 0 && !fpref_tc_lowered(m, &out);
				for (size_t q = 0; scaled && q <= K / 32; q++) {
					sa[q] = 127 - 6 + next_random(&state) % 13;
					sb[q] = 127 - 6 + next_random(&state) % 13;
				}
				ck_assert_int_eq(fpref_ref_tc_dot_scaled(m, &fa, &fb, a, b, K, scaled ? &s : NULL, c, &out,
									 &want),
						 0);
				ck_assert_int_eq(fpref_emu_tc_dot_scaled(m, &fa, &fb, a, b, K, scaled ? &s : NULL, c, &out,
									 &got),
						 0);
				if (got != want)
					report(a, b, K, c);
				ck_assert_msg(got == want, "%s %s x %s -> %s K=%zu case %lu: emulator %llx, oracle %llx",
					      m->gpu, na, nb, out.name, K, rep, (unsigned long long)got,
					      (unsigned long long)want);
				cases++;
			}
			pairs++;
		}
	printf("%-18s %lu pairs of two formats, %lu cases, emulator = oracle\n", m->gpu, pairs, cases);
	ck_assert_uint_gt(pairs, 0);
}
END_TEST

/* The GEMM of mixed operands (every tile kernel a mixed row reaches, and
 * the lowered path) element by element against the dot product. */
START_TEST(gemm_against_dot)
{
	const struct fpref_tc_model *m = fpref_tc_model_at((size_t)_i);
	if (!m->mixed || !*m->inputs)
		return;
	char na[64], nb[64];
	ck_assert(nth_name(m->inputs, 0, na, sizeof na) && nth_name(m->inputs, 1, nb, sizeof nb));
	struct fpref_format fa = test_format(nb), fb = test_format(na); /* the second format first: E5M2 x E4M3 */
	enum { M = 5, N = 9, K = 70 };
	static uint64_t A[M * K], B[K * N], C[M * N], D[M * N], col[K];
	uint64_t state = 0x9e44u + (uint64_t)_i;
	for (int o = 0; o < 2; o++) {
		struct fpref_format out = test_format(o ? "float16" : "float32");
		if (!fpref_tc_output_ok(m, &fa, &out) || !fpref_tc_output_ok(m, &fb, &out))
			continue;
		uint64_t a[K], b[K];
		for (size_t i = 0; i < M; i++) {
			mixed_case(&fa, &fb, &out, &state, K, a, b);
			memcpy(A + i * K, a, sizeof a);
		}
		for (size_t j = 0; j < N; j++) {
			C[j] = mixed_case(&fa, &fb, &out, &state, K, a, b);
			for (size_t k = 0; k < K; k++)
				B[k * N + j] = b[k];
		}
		for (size_t i = M; i < M * N; i++)
			C[i] = C[i % N];
		ck_assert_ptr_nonnull(fpref_emu_tc_gemm_path(m, &fa, &fb, &out));
		ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, &fa, &fb, &out, M, N, K, A, B, C, 0, D, 2), 0);
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			for (size_t i = 0; i < M; i++) {
				uint64_t want = 0;
				ck_assert_int_eq(fpref_emu_tc_dot(m, &fa, &fb, A + i * K, col, K, C[i * N + j], &out, &want), 0);
				ck_assert_msg(D[i * N + j] == want, "%s %s x %s -> %s (%s) D[%zu,%zu] %llx, dot %llx", m->gpu,
					      fa.name, fb.name, out.name, fpref_emu_tc_gemm_path(m, &fa, &fb, &out), i, j,
					      (unsigned long long)D[i * N + j], (unsigned long long)want);
			}
		}
	}
}
END_TEST

/* A pair a row does not take is refused by both engines and the GEMM,
 * never computed with B read in A's format. */
START_TEST(pairs_refused)
{
	struct fpref_format f16 = test_format("float16"), bf16 = test_format("bfloat16"), e4m3 = test_format("e4m3"),
			    e5m2 = test_format("e5m2"), e2m1 = test_format("e2m1"), f32 = test_format("float32");
	uint64_t a[1] = { 0 }, b[1] = { 0 }, d = 0;
	const struct fpref_tc_model *wgmma_f16 = fpref_tc_model_find("h100-wgmma", &f16);
	const struct fpref_tc_model *wgmma_fp8 = fpref_tc_model_find("h100-wgmma", &e4m3);
	ck_assert(!wgmma_f16->mixed && wgmma_fp8->mixed);
	ck_assert(!fpref_tc_pair_ok(wgmma_f16, &f16, &bf16));
	ck_assert(!fpref_tc_pair_ok(wgmma_fp8, &e4m3, &f16));
	ck_assert(!fpref_tc_pair_ok(wgmma_fp8, &e4m3, &e2m1)); /* FP4 is Blackwell's */
	ck_assert(fpref_tc_pair_ok(wgmma_fp8, &e5m2, &e4m3));
	ck_assert_ptr_null(fpref_tc_model_find_pair("h100-wgmma", &e4m3, &e2m1));
	ck_assert_ptr_eq(fpref_tc_model_find_pair("h200", &e5m2, &e4m3), fpref_tc_model_find("h100", &e5m2));
	ck_assert_int_eq(fpref_emu_tc_dot(wgmma_f16, &f16, &bf16, a, b, 1, 0, &f32, &d), -1);
	ck_assert_int_eq(fpref_ref_tc_dot(wgmma_f16, &f16, &bf16, a, b, 1, 0, &f32, &d), -1);
	ck_assert_int_eq(fpref_emu_tc_gemm(wgmma_fp8, &e4m3, &f16, &f32, 1, 1, 1, a, b, NULL, 0, &d), -1);
	const struct fpref_tc_model *nvf4 = fpref_tc_model_find("tcgen05-mxf4nvf4", &e2m1);
	ck_assert(!fpref_tc_pair_ok(nvf4, &e2m1, &e4m3));
	char pairs[512];
	fpref_tc_model_pairs(wgmma_fp8, pairs, sizeof pairs);
	ck_assert_str_eq(pairs, "float8_e4m3fn x float8_e4m3fn, float8_e4m3fn x float8_e5m2, float8_e5m2 x float8_e4m3fn, "
				"float8_e5m2 x float8_e5m2");
	fpref_tc_model_pairs(wgmma_f16, pairs, sizeof pairs);
	ck_assert_str_eq(pairs, "float16 x float16, bfloat16 x bfloat16");
}
END_TEST

/* d of both engines for A of fa and B of fb, checked equal. */
static uint64_t both(const char *model, const char *na, const char *nb, const uint64_t *a, const uint64_t *b, size_t K,
		     uint64_t c)
{
	struct fpref_format fa = test_format(na), fb = test_format(nb), f32 = test_format("float32");
	const struct fpref_tc_model *m = fpref_tc_model_find_pair(model, &fa, &fb);
	ck_assert_msg(m != NULL, "%s takes %s x %s", model, na, nb);
	uint64_t d[2] = { 1, 2 };
	ck_assert_int_eq(fpref_emu_tc_dot(m, &fa, &fb, a, b, K, c, &f32, &d[0]), 0);
	ck_assert_int_eq(fpref_ref_tc_dot(m, &fa, &fb, a, b, K, c, &f32, &d[1]), 0);
	ck_assert_msg(d[0] == d[1], "%s %s x %s: emulator %llx, oracle %llx", model, na, nb, (unsigned long long)d[0],
		      (unsigned long long)d[1]);
	return d[0];
}

/* Worked by hand (the FP32 patterns from the exact values); each mixed
 * result differs from both runs of one format. */
START_TEST(hand_worked)
{
	/* E5M2 0x01 = 2^-16 (its least subnormal) times E4M3 0x7E = 448:
	 * 7 x 2^-10 = 1.75 x 2^-8 -> 3BE00000.  Read as E4M3 both, A is 2^-9
	 * and d = 0.875 (3F600000); as E5M2 both, B = 0x7E is NaN. */
	uint64_t a[2] = { 0x01, 0 }, b[2] = { 0x7E, 0 };
	ck_assert_uint_eq(both("h100-wgmma", "e5m2", "e4m3", a, b, 1, 0), 0x3BE00000);
	ck_assert_uint_eq(both("h100-wgmma", "e4m3", "e4m3", a, b, 1, 0), 0x3F600000);
	ck_assert_uint_eq(both("tcgen05", "e5m2", "e4m3", a, b, 1, 0), 0x3BE00000);
	ck_assert_uint_eq(both("ada", "e5m2", "e4m3", a, b, 1, 0), 0x3BE00000);
	/* two subnormals: E5M2 0x01 = 2^-16 times E4M3 0x01 = 2^-9: 2^-25
	 * (33000000); E4M3 both 2^-18 (36800000), E5M2 both 2^-32 (2F800000) */
	b[0] = 0x01;
	ck_assert_uint_eq(both("h100-wgmma", "e5m2", "e4m3", a, b, 1, 0), 0x33000000);
	ck_assert_uint_eq(both("h100-wgmma", "e4m3", "e4m3", a, b, 1, 0), 0x36800000);
	ck_assert_uint_eq(both("h100-wgmma", "e5m2", "e5m2", a, b, 1, 0), 0x2F800000);
	/* Hopper's 13 fraction bits below the alignment exponent (C = 1, so 0):
	 * E5M2 0x04 = 2^-14 times E4M3 0x30 = 0.5 gives 2^-15, cut; E5M2 0x3C
	 * = 1 times E4M3 0x01 = 2^-9 is kept: 1 + 2^-9 = 3F804000 (the exact
	 * sum would be 3F804100).  E4M3 both: 2^-7 x 0.5 + 1.5 x 2^-9, all kept:
	 * 3F80E000.  E5M2 both: 2^-17 and 2^-16, both cut: 3F800000. */
	uint64_t a3[2] = { 0x04, 0x3C }, b3[2] = { 0x30, 0x01 };
	ck_assert_uint_eq(both("h100-wgmma", "e5m2", "e4m3", a3, b3, 2, 0x3F800000), 0x3F804000);
	ck_assert_uint_eq(both("h100-wgmma", "e4m3", "e4m3", a3, b3, 2, 0x3F800000), 0x3F80E000);
	ck_assert_uint_eq(both("h100-wgmma", "e5m2", "e5m2", a3, b3, 2, 0x3F800000), 0x3F800000);
	/* kind::f8f6f4: E2M1 0x7 = 6 times E3M2 0x1F = 28: 168 (43280000); E3M2
	 * both: 0x07 = 0.4375, 12.25 (41440000); E2M1 has no pattern 0x1F */
	uint64_t a4[1] = { 0x7 }, b4[1] = { 0x1F };
	ck_assert_uint_eq(both("tcgen05", "e2m1", "e3m2", a4, b4, 1, 0), 0x43280000);
	ck_assert_uint_eq(both("mma-sm120", "e2m1", "e3m2", a4, b4, 1, 0), 0x43280000);
	ck_assert_uint_eq(both("tcgen05", "e3m2", "e3m2", a4, b4, 1, 0), 0x41440000);
	/* CDNA3 fp8 x bf8 (FNUZ): 0x7F = 240 times 0x7F = 57344: 13762560
	 * (4B520000); E4M3FNUZ both 57600 (47610000), E5M2FNUZ both 3288334336
	 * (4F440000) */
	uint64_t a5[1] = { 0x7F }, b5[1] = { 0x7F };
	ck_assert_uint_eq(both("mfma-cdna3", "float8_e4m3fnuz", "float8_e5m2fnuz", a5, b5, 1, 0), 0x4B520000);
	ck_assert_uint_eq(both("mfma-cdna3", "float8_e4m3fnuz", "float8_e4m3fnuz", a5, b5, 1, 0), 0x47610000);
	ck_assert_uint_eq(both("mfma-cdna3", "float8_e5m2fnuz", "float8_e5m2fnuz", a5, b5, 1, 0), 0x4F440000);
}
END_TEST

/* The plain orders and the exact dot of a mixed pair equal the same on
 * A and B converted to FP32 first (exactly, by the oracle): each operand is
 * read in its own format, then the arithmetic is the accumulator's. */
START_TEST(plain_orders_and_exact)
{
	struct fpref_format e5m2 = test_format("e5m2"), e4m3 = test_format("e4m3"), f32 = test_format("float32"),
			    f16 = test_format("float16");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t state = 0x51a1;
	for (int rep = 0; rep < 400; rep++) {
		const struct fpref_format *acc = rep % 2 ? &f16 : &f32;
		size_t K = 1 + next_random(&state) % 40;
		uint64_t a[64], b[64], a32[64], b32[64];
		uint64_t c = mixed_case(&e5m2, &e4m3, acc, &state, K, a, b);
		for (size_t k = 0; k < K; k++) {
			unsigned flags = 0;
			ck_assert_int_eq(fpref_ref_convert(&e5m2, a[k], &f32, &env, 0, &a32[k], &flags), 0);
			ck_assert_int_eq(fpref_ref_convert(&e4m3, b[k], &f32, &env, 0, &b32[k], &flags), 0);
			ck_assert_uint_eq(flags & ~0x10u, 0); /* exact (invalid: a signalling NaN's quieting) */
		}
		for (int o = FPREF_SUM_RECURSIVE; o <= FPREF_SUM_KAHAN; o++) {
			uint64_t got = 1, want = 2;
			unsigned f1 = 0, f2 = 0;
			ck_assert_int_eq(fpref_emu_dot((enum fpref_sum_order)o, 4, &e5m2, &e4m3, a, b, K, c, acc, &env, &got, &f1),
					 0);
			ck_assert_int_eq(fpref_emu_dot((enum fpref_sum_order)o, 4, &f32, &f32, a32, b32, K, c, acc, &env, &want,
						       &f2),
					 0);
			ck_assert_msg(got == want, "%s: %llx, on FP32 copies %llx", fpref_sum_order_name((enum fpref_sum_order)o),
				      (unsigned long long)got, (unsigned long long)want);
		}
		uint64_t got = 1, want = 2;
		unsigned f1 = 0, f2 = 0;
		ck_assert_int_eq(fpref_ref_dot_exact(&e5m2, &e4m3, a, b, K, c, acc, &env, &got, &f1), 0);
		ck_assert_int_eq(fpref_ref_dot_exact(&f32, &f32, a32, b32, K, c, acc, &env, &want, &f2), 0);
		ck_assert_uint_eq(got, want);
		ck_assert_uint_eq(f1, f2);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("A and B of two formats");
	TCase *tc = tcase_create("mixed");
	tcase_add_loop_test(tc, pairs_against_oracle, 0, (int)fpref_tc_model_count());
	tcase_add_loop_test(tc, gemm_against_dot, 0, (int)fpref_tc_model_count());
	tcase_add_test(tc, pairs_refused);
	tcase_add_test(tc, hand_worked);
	tcase_add_test(tc, plain_orders_and_exact);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return test_run(s);
}
