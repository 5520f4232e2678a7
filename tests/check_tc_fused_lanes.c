/* The fused groups' host-FPU path (emu/tc_fused_lanes.c: CDNA1's f16 and
 * bf16 rows) against the word array (emu/tc_fused.c, which MPFR checks in
 * check_tc_issue37 and check_tc_blackwell), bit for bit, on edge-heavy
 * groups: cancellation to zero and near it, ties at FP32's 24th bit made
 * by tiny products, C subnormal, zero of either sign and huge, overflow
 * to inf, -0 products, FP16 and BF16 extremes, BF16 products beyond
 * 2^128, NaN and inf.  One group through fpref_emu_tc_fused_fast_step
 * (where it answers) against the word array's fpref_emu_tc_fused_step
 * (integer arithmetic: the FPU's mode does not reach it; run with the FPU
 * rounding upward, where the fast path must step aside); one in
 * sixteen against the oracle too; and whole GEMMs (the sixteen-column
 * lanes, short tiles and groups, a lane sent to the word array in the
 * middle of a chain) the same way.  Linked to the library's parts, not to
 * libfpref.so, for the hidden calls. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "testutil.h"
#include "quant_lanes.h"
#include "tc_internal.h"

/* A random stream: x advanced, 64 bits. */
static uint64_t next(uint64_t *x)
{
	*x += 0x9E3779B97F4A7C15u;
	return fpref_sr_stream(7, *x);
}

/* An edge-heavy FP16 (half) or BF16 pattern; inf and NaN where specials. */
static uint64_t operand(bool half, uint64_t r, bool specials)
{
	uint32_t sign = (uint32_t)(r >> 63) << 15, man_bits = half ? 10 : 7, emax = half ? 30 : 254;
	uint32_t man = (uint32_t)(r >> 20) & ((1u << man_bits) - 1), e;
	switch ((r >> 4) % 10) {
	case 0: /* any finite pattern */
		e = (uint32_t)(r >> 40) % (emax + 1);
		break;
	case 1: /* subnormal or zero */
		e = 0;
		break;
	case 2:
		return sign; /* +-0 */
	case 3: /* the largest finite or least normal */
		return sign | (r & 1 ? (emax << man_bits) | ((1u << man_bits) - 1) : 1u << man_bits);
	case 4: /* a power of two */
		e = 1 + (uint32_t)(r >> 40) % emax;
		man = 0;
		break;
	case 5: /* the top binades (BF16: products from 2^128 up) */
		e = emax - (uint32_t)(r >> 40) % (half ? 4 : 40);
		break;
	default: /* near one */
		e = (half ? 15u : 127u) - 3u + (uint32_t)(r >> 40) % 7;
		break;
	}
	if (specials && (r & 0xFF) == 0x5A) /* inf or NaN */
		return sign | ((emax + 1) << man_bits) | (r & 0x100 ? 1u << (man_bits - 1) : 0);
	return sign | e << man_bits | man;
}

static double value(bool half, uint64_t bits)
{
	struct fpref_unpacked u;
	fpref_decode(fpref_format_get(half ? FPREF_FORMAT_FLOAT16 : FPREF_FORMAT_BFLOAT16), bits, &u);
	double v = u.cls == FPREF_CLASS_ZERO ? 0 : ldexp((double)u.significand, u.exponent);
	return u.negative ? -v : v;
}

static uint32_t f32_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

/* An edge-heavy FP32 C for the products p[0 .. n): random, subnormal,
 * zero, huge, cancelling all products or all but the last (their double
 * sum, rounded, negated), a tie (C with the first nonzero product half
 * its last place), inf or NaN where specials. */
static uint32_t accumulator(uint64_t r, const double *p, size_t n, bool specials)
{
	uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)(r >> 20) & 0x7FFFFF;
	double s = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		first = first == 0 ? p[i] : first;
	switch ((r >> 4) % 9) {
	case 0:
		return sign | (uint32_t)(r >> 40) % 255 << 23 | man;
	case 1:
		return sign | man; /* subnormal or zero */
	case 2:
		return sign;
	case 3:
		return sign | (230 + (uint32_t)(r >> 40) % 25) << 23 | man;
	case 4:
	case 5:
		for (size_t i = 0; i + ((r >> 8) & 1) < n; i++)
			s += p[i];
		return f32_bits((float)-s);
	case 6:
	case 7: { /* C's last place twice the first product (24 bits above), C odd or even */
		double c = first * 0x1p24 * (1 + (double)(man | (r & 1)) * 0x1p-23);
		return fabs(c) < 0x1p127 && fabs(c) > 0x1p-125 ? f32_bits((float)((r >> 9) & 1 ? -c : c)) : 0;
	}
	default:
		if (specials && (r & 0xF0000) == 0)
			return sign | 0x7F800000 | (r & 0x100 ? 0x400000 : 0);
		return sign | 0x00800000 | man; /* about the least normal */
	}
}

/* One group: n operands of a and b, their products p, C. */
struct group {
	uint64_t a[4], b[4];
	double p[4];
	uint32_t c;
};

static void make_group(bool half, size_t n, uint64_t *x, bool specials, struct group *g)
{
	bool sparse = (next(x) & 3) == 0; /* only the first product: exact ties */
	for (size_t i = 0; i < n; i++) {
		g->a[i] = operand(half, next(x), specials);
		g->b[i] = operand(half, next(x), specials);
		if (sparse && i > 0)
			g->a[i] = (next(x) & 1) << 15; /* a zero of either sign */
		g->p[i] = value(half, g->a[i]) * value(half, g->b[i]);
	}
	g->c = accumulator(next(x), g->p, n, specials);
}

/* The word array's answer, with the FPU rounding upward, which turns
 * the fast path away (this checks that too). */
static uint64_t word_array(const struct fpref_format *f, const struct group *g, size_t n)
{
	uint64_t acc = g->c, probe = g->c;
	ck_assert_int_eq(fesetround(FE_UPWARD), 0);
	ck_assert_int_eq(fpref_emu_tc_fused_fast_step(f, f, g->a, g->b, 1, n, &probe), 1);
	ck_assert_int_eq(fpref_emu_tc_fused_step(f, f, g->a, g->b, 1, n, &acc), 0);
	ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
	return acc;
}

/* per format (a sixteenth under FPREF_TEST_SAMPLE=reduced) */
enum { GROUPS = 1000000 };

/* Groups of FP16 (n = 4) or BF16 (n = 2) through the fast step, each
 * against the word array; one in sixteen against the oracle (CDNA1's row,
 * K = n: one group from C).  The fast path must answer most groups. */
static void groups(bool half, size_t n)
{
	const struct fpref_format *f = fpref_format_get(half ? FPREF_FORMAT_FLOAT16 : FPREF_FORMAT_BFLOAT16);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	const struct fpref_tc_model *m = fpref_tc_model_find("mfma-cdna1", f);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->block, (int)n);
	ck_assert(fpref_emu_quant_fpu_plain());
	uint64_t x = half, fast = 0, zeros = 0, total = GROUPS / test_sample_stride();
	for (size_t k = 0; k < total; k++) {
		struct group g;
		make_group(half, n, &x, k % 8 == 0, &g);
		uint64_t got = g.c, want = word_array(f, &g, n);
		if (fpref_emu_tc_fused_fast_step(f, f, g.a, g.b, 1, n, &got) == 0) {
			fast++;
			ck_assert_msg(got == want, "group %zu: fast %08llx, word array %08llx", k, (unsigned long long)got,
				      (unsigned long long)want);
			zeros += (got & 0x7FFFFFFF) == 0;
		}
		if (k % 16 == 0) {
			uint64_t d;
			ck_assert_int_eq(fpref_ref_tc_dot(m, f, f, g.a, g.b, n, g.c, f32, &d), 0);
			ck_assert_msg(d == want, "group %zu: oracle %08llx, word array %08llx", k, (unsigned long long)d,
				      (unsigned long long)want);
		}
	}
	/* the edges were reached: most groups fast, exact zeros among them */
	ck_assert_msg(fast > total / 2 && zeros > total / 100, "%llu fast, %llu zeros", (unsigned long long)fast,
		      (unsigned long long)zeros);
}

START_TEST(f16_groups)
{
	groups(true, 4);
}
END_TEST

START_TEST(bf16_groups)
{
	groups(false, 2);
}
END_TEST

/* Hand-made groups whose answer is known: a tie at FP32's 24th bit, to
 * even (1 + 2^-24 -> 1) and broken by a product of 2^-48 (-> 1 + 2^-23);
 * cancellation to +0, and -0 only from -0 everywhere; BF16 products of
 * 2^254 overflowing to inf; a subnormal FP32 result. */
START_TEST(hand_worked)
{
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	const struct fpref_format *bf16 = fpref_format_get(FPREF_FORMAT_BFLOAT16);
	static const struct {
		bool half;
		uint64_t a[4], b[4];
		uint32_t c, want;
	} cases[] = {
		{ true, { 0x0C00 }, { 0x0C00 }, 0x3F800000, 0x3F800000 },          /* 1 + 2^-24: tie, even */
		{ true, { 0x0C00, 0x0001 }, { 0x0C00, 0x0001 }, 0x3F800000, 0x3F800001 }, /* + 2^-48 */
		{ true, { 0x0C00, 0x8001 }, { 0x0C00, 0x0001 }, 0x3F800000, 0x3F800000 }, /* - 2^-48 */
		{ true, { 0x3C00, 0x3C00 }, { 0x3C00, 0xBC00 }, 0x80000000, 0x00000000 }, /* 1 - 1 - 0: +0 */
		{ true, { 0x8000, 0x0000, 0x8000, 0x8000 }, { 0x3C00, 0x8000 }, 0x80000000, 0x80000000 }, /* -0 throughout */
		{ true, { 0x8000, 0x0000, 0x8000, 0x8000 }, { 0x3C00, 0x8000 }, 0x00000000, 0x00000000 }, /* C +0 */
		{ true, { 0x8000, 0x0000 }, { 0x3C00, 0x8000 }, 0x80000000, 0x00000000 }, /* a +0 product */
		{ false, { 0x7F00, 0x7F00 }, { 0x7F00, 0xFF00 }, 0x00000000, 0x00000000 }, /* 2^254 - 2^254 */
		{ false, { 0x7F00 }, { 0x4000 }, 0x00000000, 0x7F800000 }, /* 2^127 x 2: inf */
		{ false, { 0x7F7F, 0x7F7F }, { 0x7F7F, 0x7F7F }, 0xFF7FFFFF, 0x7F800000 }, /* 2^256 - 2^128: inf */
		{ false, { 0x5F80 }, { 0x5F80 }, 0xFF000000, 0x7F000000 }, /* 2^128 - 2^127 */
		{ false, { 0x0001, 0x0080 }, { 0x3F80, 0x8000 }, 0x00000001, 0x00010001 }, /* 2^-133 + 2^-149 */
		{ false, { 0x0041 }, { 0x3F80 }, 0x80000000, 0x00410000 }, /* subnormal BF16 times 1 */
		{ false, { 0x0001 }, { 0x3F00 }, 0x00000000, 0x00008000 }, /* 2^-134, FP32 subnormal */
		{ false, { 0x0C00 }, { 0x0C01 }, 0x00000000, 0x00000000 }, /* 2^-206 (1 + 2^-7): to +0 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct fpref_format *f = cases[i].half ? f16 : bf16;
		size_t n = cases[i].half ? 4 : 2;
		uint64_t got = cases[i].c;
		uint64_t want = got;
		ck_assert_int_eq(fpref_emu_tc_fused_fast_step(f, f, cases[i].a, cases[i].b, 1, n, &got), 0);
		struct group g = { .c = cases[i].c };
		memcpy(g.a, cases[i].a, sizeof g.a);
		memcpy(g.b, cases[i].b, sizeof g.b);
		want = word_array(f, &g, n);
		ck_assert_msg(got == cases[i].want && want == cases[i].want, "case %zu: fast %08llx, word array %08llx",
			      i, (unsigned long long)got, (unsigned long long)want);
	}
	/* a pattern wider than its format is the word array's to refuse */
	uint64_t a[4] = { 0x13C00 }, b[4] = { 0x3C00 }, acc = 0, c = 0x100000000;
	ck_assert_int_eq(fpref_emu_tc_fused_fast_step(f16, f16, a, b, 1, 4, &acc), 1);
	ck_assert_int_eq(fpref_emu_tc_fused_step(f16, f16, a, b, 1, 4, &acc), -1);
	a[0] = 0x3C00;
	ck_assert_int_eq(fpref_emu_tc_fused_fast_step(f16, f16, a, b, 1, 4, &c), 1);
	ck_assert_int_eq(fpref_emu_tc_fused_step(f16, f16, a, b, 1, 4, &c), -1);
}
END_TEST

/* The fast path steps aside where the FPU flushes subnormals. */
START_TEST(ftz_steps_aside)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	uint64_t a[4] = { 0x0001 }, b[4] = { 0x3C00 }, acc = 0;
	unsigned csr = _mm_getcsr();
	_mm_setcsr(csr | 0x8040u);
	int r = fpref_emu_tc_fused_fast_step(f16, f16, a, b, 1, 4, &acc);
	_mm_setcsr(csr);
	ck_assert_int_eq(r, 1);
	ck_assert_int_eq(fpref_emu_tc_fused_fast_step(f16, f16, a, b, 1, 4, &acc), 0);
	ck_assert_uint_eq(acc, 0x33800000); /* 2^-24 */
#endif
}
END_TEST

/* GEMMs of edge-heavy operands (specials in some) through the lanes,
 * against the same GEMM with the FPU rounding upward (the word array's
 * chains): short tiles (N not a multiple of 16), a short last group, a
 * single group from an edge-heavy C. */
static void gemms(bool half)
{
	const struct fpref_format *f = fpref_format_get(half ? FPREF_FORMAT_FLOAT16 : FPREF_FORMAT_BFLOAT16);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	const struct fpref_tc_model *m = fpref_tc_model_find("mfma-cdna1", f);
	size_t n = (size_t)m->block;
	static const size_t shapes[][3] = { { 37, 53, 39 }, { 20, 16, 64 }, { 128, 128, 0 }, { 5, 33, 1 } };
	uint64_t x = 99 + half;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		size_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2] ? shapes[s][2] : n;
		bool specials = s == 0;
		uint64_t *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B), *C = malloc(M * N * sizeof *C);
		uint64_t *D = malloc(2 * M * N * sizeof *D);
		ck_assert(A && B && C && D);
		for (size_t i = 0; i < M * K; i++)
			A[i] = operand(half, next(&x), specials);
		for (size_t i = 0; i < K * N; i++)
			B[i] = operand(half, next(&x), specials);
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < N; j++) {
				double p[4] = { 0 };
				for (size_t q = 0; q < n && q < K; q++)
					p[q] = value(half, A[i * K + q]) * value(half, B[q * N + j]);
				C[i * N + j] = accumulator(next(&x), p, n < K ? n : K, specials);
			}
		ck_assert_int_eq(fpref_emu_tc_gemm(m, f, f, f32, M, N, K, A, B, C, 0, D), 0);
		ck_assert_int_eq(fesetround(FE_UPWARD), 0);
		int r = fpref_emu_tc_gemm(m, f, f, f32, M, N, K, A, B, C, 0, D + M * N);
		ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
		ck_assert_int_eq(r, 0);
		for (size_t i = 0; i < M * N; i++)
			ck_assert_msg(D[i] == D[M * N + i], "%zux%zux%zu, D %zu: lanes %08llx, word array %08llx", M, N, K,
				      i, (unsigned long long)D[i], (unsigned long long)D[M * N + i]);
		free(A);
		free(B);
		free(C);
		free(D);
	}
}

START_TEST(f16_gemms)
{
	gemms(true);
}
END_TEST

START_TEST(bf16_gemms)
{
	gemms(false);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fused groups on the host FPU");
	TCase *tc = tcase_create("fused lanes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, hand_worked);
	tcase_add_test(tc, ftz_steps_aside);
	tcase_add_test(tc, f16_groups);
	tcase_add_test(tc, bf16_groups);
	tcase_add_test(tc, f16_gemms);
	tcase_add_test(tc, bf16_gemms);
	suite_add_tcase(s, tc);
	return test_run(s);
}
