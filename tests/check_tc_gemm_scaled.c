/* The block-scaled GEMM (fpref_emu_tc_gemm_scaled_threads, fpref gemm
 * --scale-a/--scale-b) element by element against the scaled dot product
 * (fpref_emu_tc_dot_scaled, row i of A and of the scales of A, column j of
 * B and of the scales of B) and against the oracle (fpref_ref_tc_dot_scaled),
 * on every block-scaled preset, input format, scale format and scale
 * block it takes, on 1 and 3 threads (the same bits); then the golden
 * layer's error report: its exact product is the scaled one and no element
 * exceeds the scaled bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"
#include "fpref_golden_gemm.h"
#include "fpref_ref.h"
#include "tc_random.h"

/* A scale of f around 1 (E8M0 2^-40..2^40, UE4M3 2^-6..2^6 with its
 * mantissa), one time in `odds` any pattern (NaN, zero, UE4M3's sign). */
static uint64_t random_scale(const struct fpref_format *f, uint64_t *state, unsigned odds)
{
	uint64_t r = next_random(state);
	if (odds && r % odds == 0)
		return r >> 8 & 0xFF;
	int mid = f->bias, spread = fpref_format_is(f, FPREF_FORMAT_FLOAT8_E8M0FNU) ? 40 : 6;
	int field = mid - spread + (int)((r >> 8) % (unsigned)(2 * spread + 1));
	return (uint64_t)field << f->man_bits | ((r >> 24) & ((1u << f->man_bits) - 1));
}

/* A scale at the edges, for the GEMM's tile kernels, which take a lane's
 * scales apart from its products: E8M0 a quarter of the time from the
 * bottom (2^-127 .. 2^-87: with a scale from the middle, subnormal or zero
 * results), a quarter from the top (2^87 .. 2^127: overflow), one time in
 * 16 NaN, else 2^-40 .. 2^40; UE4M3 its zeros (either sign), NaNs,
 * subnormals, largest, a set sign bit, else around 1. */
static uint64_t edge_scale(const struct fpref_format *f, uint64_t *state)
{
	uint64_t r = next_random(state), pick = r % 16, low = (r >> 8) % 41;
	if (fpref_format_is(f, FPREF_FORMAT_FLOAT8_E8M0FNU))
		return pick < 4 ? low : pick < 8 ? 254 - low : pick == 8 ? 0xFF : random_scale(f, state, 0);
	static const uint64_t edges[] = { 0x00, 0x80, 0x7F, 0xFF, 0x01, 0x07, 0x06, 0x7E, 0xFE, 0x08 };
	return pick < 6 ? edges[low % (sizeof edges / sizeof edges[0])] : random_scale(f, state, 0) | (r >> 40 & 1) << 7;
}

static const struct {
	const char *model, *input, *scales;
	size_t every;
} kinds[] = {
	{ "tcgen05-mxf8f6f4", "float8_e4m3fn", "float8_e8m0fnu", 32 },
	{ "tcgen05-mxf8f6f4", "float8_e5m2", "float8_e8m0fnu", 32 },
	{ "tcgen05-mxf8f6f4", "float6_e2m3fn", "float8_e8m0fnu", 64 },
	{ "tcgen05-mxf8f6f4", "float4_e2m1fn", "float8_e8m0fnu", 32 },
	{ "tcgen05-mxf4nvf4", "float4_e2m1fn", "float8_e4m3fn", 16 },
	{ "tcgen05-mxf4nvf4", "float4_e2m1fn", "float8_e8m0fnu", 32 },
	{ "tcgen05-mxf4nvf4", "float4_e2m1fn", "float8_e8m0fnu", 16 },
	{ "mfma-cdna4-scale", "float8_e4m3fn", "float8_e8m0fnu", 32 },
	{ "mfma-cdna4-scale", "float8_e5m2", "float8_e8m0fnu", 16 },
	{ "mfma-cdna4-scale", "float6_e3m2fn", "float8_e8m0fnu", 32 },
	{ "tpu-bf16", "bfloat16", "float8_e8m0fnu", 32 }, /* the wide block tile, scaled */
};

#define M 3
#define N 37
#define KMAX 200

/* One random GEMM of the kind: D on 1 and 3 threads, each element against
 * the scaled dot product and the oracle; scales from edge_scale where
 * classes is not NULL (and C a third of the time near FP32's subnormals),
 * which then counts the results by class (enum fpref_class), else
 * random_scale.  Returns the elements checked. */
static unsigned long check_kind_scales(size_t r, size_t K, unsigned special_odds, unsigned long *classes,
				       uint64_t *state)
{
	bool edges = classes != NULL;
	struct fpref_format in = test_format(kinds[r].input), sf = test_format(kinds[r].scales);
	struct fpref_format f32 = test_format("float32");
	const struct fpref_tc_model *m = fpref_tc_model_find(kinds[r].model, &in);
	ck_assert_msg(m != NULL, "no preset %s for %s", kinds[r].model, in.name);
	size_t every = kinds[r].every, chunks = (K + every - 1) / every;
	static uint64_t A[M * KMAX], B[KMAX * N], C[M * N], D[2][M * N], SA[M * KMAX], SB[KMAX * N];
	uint64_t col[KMAX], sa_row[KMAX], sb_col[KMAX];
	int top = max_field(&in);
	for (size_t i = 0; i < M; i++) {
		int lo = (int)(next_random(state) % (unsigned)top), hi = lo + (int)(next_random(state) % (unsigned)(top - lo + 1));
		for (size_t k = 0; k < K; k++)
			A[i * K + k] = random_input(&in, state, lo, hi, special_odds);
	}
	for (size_t k = 0; k < K * N; k++)
		B[k] = random_input(&in, state, 0, top, special_odds);
	for (size_t i = 0; i < M * N; i++)
		C[i] = next_random(state) % 3 ? (edges && next_random(state) % 2 ? random_input(&f32, state, 0, 2, 0) : 0)
					      : random_input(&f32, state, 0, max_field(&f32), 20);
	for (size_t i = 0; i < M * chunks; i++)
		SA[i] = edges ? edge_scale(&sf, state) : random_scale(&sf, state, special_odds ? 40 : 0);
	for (size_t i = 0; i < chunks * N; i++)
		SB[i] = edges ? edge_scale(&sf, state) : random_scale(&sf, state, special_odds ? 40 : 0);
	struct fpref_tc_gemm_scales s = { &sf, SA, SB, every };
	const unsigned threads[2] = { 1, 3 };
	for (int t = 0; t < 2; t++) {
		memset(D[t], 0xA5, sizeof D[t]);
		ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(m, &in, &in, &f32, M, N, K, A, B, &s, C, D[t], threads[t]), 0);
	}
	unsigned long checked = 0;
	for (size_t j = 0; j < N; j++) {
		for (size_t k = 0; k < K; k++)
			col[k] = B[k * N + j];
		for (size_t q = 0; q < chunks; q++)
			sb_col[q] = SB[q * N + j];
		for (size_t i = 0; i < M; i++) {
			memcpy(sa_row, SA + i * chunks, chunks * sizeof *sa_row);
			struct fpref_tc_scales ds = { &sf, sa_row, sb_col, every };
			uint64_t dot = 0, oracle = 0, got = D[0][i * N + j];
			ck_assert_int_eq(fpref_emu_tc_dot_scaled(m, &in, &in, A + i * K, col, K, &ds, C[i * N + j], &f32, &dot), 0);
			ck_assert_int_eq(fpref_ref_tc_dot_scaled(m, &in, &in, A + i * K, col, K, &ds, C[i * N + j], &f32, &oracle), 0);
			ck_assert_msg(got == dot && got == oracle,
				      "%s %s, %s scales per %zu, K = %zu: D[%zu][%zu] = %llx, the scaled dot %llx, the oracle %llx",
				      m->gpu, in.name, sf.name, every, K, i, j, (unsigned long long)got,
				      (unsigned long long)dot, (unsigned long long)oracle);
			ck_assert_msg(D[1][i * N + j] == got, "%s: 3 threads give %llx, 1 thread %llx", m->gpu,
				      (unsigned long long)D[1][i * N + j], (unsigned long long)got);
			checked++;
			struct fpref_unpacked u;
			if (classes && fpref_decode(&f32, got, &u) != FPREF_DECODE_INVALID)
				classes[u.cls]++;
		}
	}
	return checked;
}

static unsigned long check_kind(size_t r, size_t K, unsigned special_odds, uint64_t *state)
{
	return check_kind_scales(r, K, special_odds, NULL, state);
}

START_TEST(scaled_gemm_against_dot_and_oracle)
{
	uint64_t state = 2027;
	unsigned long checked = 0;
	for (int rep = 0; rep < 4; rep++)
		for (size_t r = 0; r < sizeof kinds / sizeof kinds[0]; r++) {
			size_t every = kinds[r].every;
			checked += check_kind(r, 2 * every, 0, &state);              /* whole scale blocks */
			checked += check_kind(r, every + every / 2 + 1, 0, &state); /* a partial last block (the library takes it) */
			checked += check_kind(r, 2 * every, 60, &state);             /* NaN, inf, zero scales and operands */
		}
	printf("check_tc_gemm_scaled: %lu elements, each the scaled dot product's and the oracle's bits\n", checked);
}
END_TEST

/* The GEMM's tile kernels take each lane's scales apart from its products
 * (an exponent offset per lane, a group's scales per lane, NaN and zero
 * scales through block()): edge scales (overflow, subnormal and zero
 * results, NaN and zero scales, UE4M3 subnormals and sign bits) on K at
 * the boundaries of the block, the group and the scale block, with C's
 * specials and subnormals, against the dot product and the oracle. */
START_TEST(scaled_gemm_edge_scales)
{
	uint64_t state = 4242;
	unsigned long checked = 0, classes[FPREF_CLASS_NAN + 1] = { 0 };
	for (size_t r = 0; r < sizeof kinds / sizeof kinds[0]; r++) {
		struct fpref_format in = test_format(kinds[r].input);
		size_t block = (size_t)fpref_tc_model_find(kinds[r].model, &in)->block, every = kinds[r].every;
		const size_t Ks[] = { 1, block - 1, block + 1, every - 1, every + 1, 2 * every - 1, 3 * every + 5 };
		for (size_t q = 0; q < sizeof Ks / sizeof Ks[0]; q++)
			if (Ks[q] >= 1 && Ks[q] <= KMAX) {
				checked += check_kind_scales(r, Ks[q], 0, classes, &state);
				checked += check_kind_scales(r, Ks[q], 90, classes, &state); /* inf and NaN operands too */
			}
	}
	printf("check_tc_gemm_scaled: %lu elements with edge scales, each the scaled dot product's and the oracle's bits "
	       "(%lu zero, %lu subnormal, %lu normal, %lu inf, %lu NaN)\n",
	       checked, classes[FPREF_CLASS_ZERO], classes[FPREF_CLASS_SUBNORMAL], classes[FPREF_CLASS_NORMAL],
	       classes[FPREF_CLASS_INF], classes[FPREF_CLASS_NAN]);
	for (int c = FPREF_CLASS_ZERO; c <= FPREF_CLASS_NAN; c++) /* the cases reach every class of result */
		ck_assert_uint_gt(classes[c], 100);
}
END_TEST

/* The report of fpref_golden_gemm with scales: each element's error is
 * against the scaled exact product, summed here chunk by chunk (the
 * unscaled exact value of each chunk, times its two scales) and the
 * largest compared with the report's; every element is within its scaled
 * bound.  Scales up to 2^+-40: an unscaled exact value or bound would be
 * off by far more than an element's error. */
START_TEST(report_against_scaled_exact)
{
	struct fpref_format in = test_format("float8_e4m3fn"), sf = test_format("float8_e8m0fnu");
	struct fpref_format f32 = test_format("float32");
	const char *models[2] = { "tcgen05-mxf8f6f4", "mfma-cdna4-scale" };
	uint64_t state = 99;
	for (int rep = 0; rep < 6; rep++) {
		struct fpref_accum_model m = { .kind = FPREF_ACCUM_TC, .tc = *fpref_tc_model_find(models[rep % 2], &in) };
		const size_t Mr = 2, Nr = 3, K = 96, every = 32, chunks = 3;
		uint64_t A[2 * 96], B[96 * 3], C[6], D[6], SA[6], SB[9], col[96];
		for (size_t k = 0; k < Mr * K; k++)
			A[k] = random_input(&in, &state, 1, max_field(&in), 0);
		for (size_t k = 0; k < K * Nr; k++)
			B[k] = random_input(&in, &state, 1, max_field(&in), 0);
		for (size_t i = 0; i < Mr * Nr; i++)
			C[i] = random_input(&f32, &state, 100, 150, 0);
		for (size_t i = 0; i < 6; i++)
			SA[i] = random_scale(&sf, &state, 0);
		for (size_t i = 0; i < 9; i++)
			SB[i] = random_scale(&sf, &state, 0);
		struct fpref_env env;
		fpref_env_default(&env);
		struct fpref_tc_gemm_scales s = { &sf, SA, SB, every };
		struct fpref_gemm_problem p = { Mr, Nr, K, &in, &in, &f32, A, B, A, B, C, &m, &env, 2, &s, NULL };
		struct fpref_gemm_stats st;
		memset(&st, 0, sizeof st);
		ck_assert_int_eq(fpref_golden_gemm(&p, D, &st, NULL, NULL), 0);
		ck_assert_uint_eq(st.count, Mr * Nr);
		ck_assert_uint_eq(st.nonfinite, 0);
		ck_assert_uint_eq(st.no_bound, 0);
		ck_assert_uint_eq(st.above_bound, 0);
		double max_abs = 0;
		mpfr_t exact, part, d;
		mpfr_inits2(64, exact, part, d, (mpfr_ptr)0);
		for (size_t i = 0; i < Mr; i++)
			for (size_t j = 0; j < Nr; j++) {
				for (size_t k = 0; k < K; k++)
					col[k] = B[k * Nr + j];
				mpfr_set_prec(exact, 2000);
				struct fpref_ref_value c;
				fpref_ref_value_init(&c);
				ck_assert_int_eq(fpref_ref_from_bits(&f32, C[i * Nr + j], false, &c), 0);
				mpfr_set(exact, c.x, MPFR_RNDN);
				for (size_t q = 0; q < chunks; q++) {
					ck_assert_int_eq(fpref_ref_dot_value(&in, &in, A + i * K + q * every, col + q * every, every, 0,
									     &f32, part), 0);
					/* E8M0: 2^(code - 127) for each of the two scales, exact */
					mpfr_mul_2si(part, part, (long)SA[i * chunks + q] + (long)SB[q * Nr + j] - 254, MPFR_RNDN);
					ck_assert(mpfr_add(exact, exact, part, MPFR_RNDN) == 0);
				}
				ck_assert_int_eq(fpref_ref_from_bits(&f32, D[i * Nr + j], false, &c), 0);
				mpfr_set_prec(d, 2000);
				mpfr_sub(d, c.x, exact, MPFR_RNDN);
				mpfr_abs(d, d, MPFR_RNDN);
				max_abs = fmax(max_abs, mpfr_get_d(d, MPFR_RNDU)); /* rounded up, as the report rounds it */
				fpref_ref_value_clear(&c);
			}
		mpfr_clears(exact, part, d, (mpfr_ptr)0);
		ck_assert_msg(st.max_abs == max_abs, "%s: the report's max |D - exact| %a, the scaled product's %a",
			      m.tc.gpu, st.max_abs, max_abs);
	}
}
END_TEST

/* What the scaled GEMM refuses, as the scaled dot does: scales that do not
 * suit the model (a lowered path, a scale block that is no multiple of
 * the group, UE4M3 on an E8M0 kind), a bad scale pattern; the golden layer
 * refuses scales for a plain order and for promotion. */
START_TEST(scaled_gemm_refusals)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), e2m1 = test_format("float4_e2m1fn");
	struct fpref_format e8m0 = test_format("float8_e8m0fnu"), f32 = test_format("float32");
	uint64_t A[64] = { 0 }, B[64] = { 0 }, D[1], SA[4] = { 127, 127, 127, 127 }, SB[4] = { 127, 127, 127, 127 };
	struct fpref_tc_gemm_scales ok = { &e8m0, SA, SB, 32 }, per8 = { &e8m0, SA, SB, 8 };
	struct fpref_tc_gemm_scales ue4m3 = { &e4m3, SA, SB, 32 };
	const struct fpref_tc_model *mx = fpref_tc_model_find("tcgen05-mxf8f6f4", &e4m3);
	const struct fpref_tc_model *nv = fpref_tc_model_find("tcgen05-mxf4nvf4", &e2m1);
	const struct fpref_tc_model *lowered = fpref_tc_model_find("h100-mma", &e4m3);
	ck_assert_ptr_nonnull(lowered);
	ck_assert(fpref_tc_lowered(lowered, &f32));
	ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(mx, &e4m3, &e4m3, &f32, 1, 1, 64, A, B, &ok, NULL, D, 1), 0);
	ck_assert_uint_eq(D[0], 0);
	ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(lowered, &e4m3, &e4m3, &f32, 1, 1, 64, A, B, &ok, NULL, D, 1), -1);
	ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(nv, &e2m1, &e2m1, &f32, 1, 1, 64, A, B, &per8, NULL, D, 1), -1);
	ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(mx, &e4m3, &e4m3, &f32, 1, 1, 64, A, B, &ue4m3, NULL, D, 1), -1);
	SB[1] = 0x100; /* no E8M0 pattern */
	ck_assert_int_eq(fpref_emu_tc_gemm_scaled_threads(mx, &e4m3, &e4m3, &f32, 1, 1, 64, A, B, &ok, NULL, D, 3), -1);
	SB[1] = 127;
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_accum_model plain = { .kind = FPREF_ACCUM_PLAIN, .order = FPREF_SUM_RECURSIVE };
	struct fpref_accum_model promoted = { .kind = FPREF_ACCUM_TC, .tc = *mx, .promote = 32 };
	struct fpref_gemm_problem p = { 1, 1, 64, &e4m3, &e4m3, &f32, A, B, A, B, NULL, &plain, &env, 1, &ok, NULL };
	ck_assert_int_eq(fpref_golden_gemm(&p, D, NULL, NULL, NULL), -1);
	p.model = &promoted;
	ck_assert_int_eq(fpref_golden_gemm(&p, D, NULL, NULL, NULL), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("block-scaled tensor-core GEMM");
	TCase *tc = tcase_create("gemm");
	tcase_add_test(tc, scaled_gemm_against_dot_and_oracle);
	tcase_add_test(tc, scaled_gemm_edge_scales);
	tcase_add_test(tc, report_against_scaled_exact);
	tcase_add_test(tc, scaled_gemm_refusals);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
