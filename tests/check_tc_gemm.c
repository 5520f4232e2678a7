/* fpref_emu_tc_gemm (its tile path: B's columns as lanes, emu/tc.c) against
 * fpref_emu_tc_dot (the block routine, which check_tc_model and
 * check_tc_blackwell hold against the oracle), element by element, on every
 * preset, input and output it has, with and without promotion, on 1, 2 and
 * 3 threads: sizes that leave partial tiles and partial blocks, operands
 * over the whole range with zeros, subnormals and now and then inf or NaN,
 * and C with specials.  Whatever the path or thread count, every element
 * must be the dot product's bits. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"
#include "tc_random.h"

/* One comma-separated name of a list, the i-th; false past the end. */
static bool list_item(const char *list, size_t i, char *name, size_t len)
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

/* Every element of one GEMM against the dot product, on 1, 2 and 3 threads.
 * tiny: operands of the two least exponent fields and every C subnormal or
 * zero, so that a subnormal C is not lost among larger products (the tile
 * path decodes such a C apart from the others). */
static unsigned long check_one(const struct fpref_tc_model *m, const struct fpref_format *in,
			       const struct fpref_format *out, size_t nc, unsigned special_odds, bool tiny,
			       uint64_t *state)
{
	const size_t M = 3, N = 37, K = 97; /* three tiles of 16, the last partial; blocks partial at the end */
	uint64_t A[3 * 97], B[97 * 37], C[3 * 37], D[3 * 37], col[97];
	int top = tiny ? 1 : max_field(in);
	for (size_t i = 0; i < M; i++) { /* each row over its own band of exponents, so that alignments differ */
		int lo = (int)(next_random(state) % (unsigned)top), hi = lo + (int)(next_random(state) % (unsigned)(top - lo + 1));
		for (size_t k = 0; k < K; k++)
			A[i * K + k] = random_input(in, state, lo, hi, special_odds);
	}
	for (size_t k = 0; k < K * N; k++)
		B[k] = random_input(in, state, 0, top, special_odds);
	for (size_t i = 0; i < M * N; i++)
		C[i] = tiny ? random_input(out, state, 0, 0, 0)
			    : next_random(state) % 3 ? 0 : random_input(out, state, 0, max_field(out), 20);
	unsigned long checked = 0;
	for (unsigned threads = 1; threads <= 3; threads++) {
		memset(D, 0xA5, sizeof D);
		const uint64_t *c = threads == 2 ? NULL : C; /* C = NULL: zeros */
		ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, out, M, N, K, A, B, c, nc, D, threads), 0);
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			for (size_t i = 0; i < M; i++) {
				uint64_t want, cij = c ? c[i * N + j] : 0;
				int r = nc ? fpref_emu_tc_dot_promoted(m, in, A + i * K, col, K, nc, NULL, NULL, cij, &want)
					   : fpref_emu_tc_dot(m, in, A + i * K, col, K, cij, out, &want);
				ck_assert_int_eq(r, 0);
				ck_assert_msg(D[i * N + j] == want,
					      "%s %s -> %s, promote %zu, %u threads: D[%zu][%zu] = %llx, the dot product %llx",
					      m->gpu, in->name, out->name, nc, threads, i, j, (unsigned long long)D[i * N + j],
					      (unsigned long long)want);
				checked++;
			}
		}
	}
	return checked;
}

/* Placed rather than drawn: a row of A and a column of B of zeros (no
 * products: C alone, or nothing), a NaN (FNUZ's one NaN too) and infs of
 * both signs in A and in B, each in one block only, and C with every kind
 * of value (zeros of both signs, subnormals, the largest finite, infs,
 * NaN), so that every tile kernel's slow lanes and C lanes are met. */
static unsigned long check_placed(const struct fpref_tc_model *m, const struct fpref_format *in,
				  const struct fpref_format *out, uint64_t *state)
{
	enum { M = 5, N = 35, K = 75 };
	static uint64_t A[M * K], B[K * N], C[M * N], D[M * N], col[K];
	for (size_t k = 0; k < M * K; k++)
		A[k] = random_input(in, state, 0, max_field(in), 0);
	for (size_t k = 0; k < K * N; k++)
		B[k] = random_input(in, state, 0, max_field(in), 0);
	for (size_t k = 0; k < K; k++) {
		A[1 * K + k] = 0;
		B[k * N + 3] = 0;
	}
	uint64_t nan = 0, pinf = 0, ninf = 0;
	if (fpref_format_nan_bits(in, false, &nan)) {
		A[2 * K + 40] = nan;
		B[7 * N + 17] = nan;
	}
	if (fpref_format_inf_bits(in, false, &pinf) && fpref_format_inf_bits(in, true, &ninf)) {
		A[3 * K + 2] = pinf;
		B[70 * N + 20] = ninf;
		B[71 * N + 21] = pinf;
		A[4 * K + 71] = pinf; /* with column 21's: +inf; with 20's: inf - inf */
	}
	uint64_t kinds[10] = { 0, pattern(out, true, 0, 0), pattern(out, false, 0, 1), pattern(out, true, 0, 5),
			       fpref_format_max_bits(out, false), fpref_format_max_bits(out, true), 0, 0, 0,
			       pattern(out, false, 1, 0) };
	fpref_format_inf_bits(out, false, &kinds[6]);
	fpref_format_inf_bits(out, true, &kinds[7]);
	fpref_format_nan_bits(out, false, &kinds[8]);
	for (size_t i = 0; i < M * N; i++)
		C[i] = next_random(state) % 2 ? kinds[next_random(state) % 10] : random_input(out, state, 0, max_field(out), 0);
	for (size_t j = 0; j < N; j++) /* row 1 has no products: C alone, every kind of it */
		C[1 * N + j] = kinds[j % 10];
	unsigned long checked = 0;
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		memset(D, 0xA5, sizeof D);
		ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, out, M, N, K, A, B, C, 0, D, threads), 0);
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			for (size_t i = 0; i < M; i++) {
				uint64_t want;
				ck_assert_int_eq(fpref_emu_tc_dot(m, in, A + i * K, col, K, C[i * N + j], out, &want), 0);
				ck_assert_msg(D[i * N + j] == want,
					      "%s %s -> %s, placed, %u threads: D[%zu][%zu] = %llx, the dot product %llx", m->gpu,
					      in->name, out->name, threads, i, j, (unsigned long long)D[i * N + j],
					      (unsigned long long)want);
				checked++;
			}
		}
	}
	return checked;
}

START_TEST(gemm_against_dot)
{
	uint64_t state = 0;
	unsigned long checked = 0, configurations = 0;
	struct fpref_format f32 = test_format("float32"), f16 = test_format("float16");
	const struct fpref_format *outs[2] = { &f32, &f16 };
	for (size_t r = 0; r < fpref_tc_model_count(); r++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(r);
		char name[64];
		for (size_t i = 0; list_item(m->inputs, i, name, sizeof name); i++) {
			struct fpref_format in = test_format(name);
			if (fpref_tc_model_find(m->gpu, &in) != m)
				continue;
			for (int o = 0; o < 2; o++) {
				if (!fpref_tc_output_ok(m, &in, outs[o]))
					continue;
				bool promotable = o == 0 && !fpref_tc_lowered(m, &f32) && m->tree == 0;
				for (size_t nc = 0; nc <= (promotable ? 64 : 0); nc += 64)
					for (unsigned odds = 0; odds <= 300; odds += 300) {
						checked += check_one(m, &in, outs[o], nc, odds, false, &state);
						configurations++;
					}
				checked += check_one(m, &in, outs[o], 0, 0, true, &state);
				checked += check_placed(m, &in, outs[o], &state);
				configurations += 2;
			}
		}
	}
	ck_assert_uint_gt(configurations, 100);
	printf("check_tc_gemm: %lu configurations, %lu elements, each the dot product's bits\n", configurations,
	       checked);
}
END_TEST

/* The group path (tcgen05-mxf4nvf4) on inputs its preset does not list,
 * narrow ones with an inf and NaN or with FNUZ's NaN: FP4 has neither, so
 * only these reach the group tile kernel's slow lanes. */
START_TEST(group_path_specials)
{
	uint64_t state = 11;
	unsigned long checked = 0;
	struct fpref_format f32 = test_format("float32");
	struct fpref_format f4 = test_format("float4_e2m1fn");
	const struct fpref_tc_model *m = fpref_tc_model_find("tcgen05-mxf4nvf4", &f4);
	static const char *const inputs[] = { "e2m1,specials=ieee", "e2m2,specials=ieee", "e2m1,specials=fnuz" };
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		struct fpref_format in = test_format(inputs[i]);
		for (unsigned odds = 0; odds <= 300; odds += 150)
			checked += check_one(m, &in, &f32, 0, odds, false, &state);
		checked += check_placed(m, &in, &f32, &state);
	}
	ck_assert_uint_gt(checked, 1000);
}
END_TEST

/* The FP32 path (CDNA1/2) on short K, one block or a block and a short
 * one: the pairwise halves of a group of 3, and CDNA2's subnormal C read
 * as +0, which a later block would hide (-0 + +0 is +0). */
START_TEST(tree_short_k)
{
	uint64_t state = 13;
	struct fpref_format f16 = test_format("float16"), f32 = test_format("float32");
	static const char *const gpus[] = { "mfma-cdna1", "mfma-cdna2" };
	enum { M = 3, N = 20 };
	uint64_t A[M * 7], B[7 * N], C[M * N], D[M * N], col[7];
	for (size_t r = 0; r < 2; r++) {
		const struct fpref_tc_model *m = fpref_tc_model_find(gpus[r], &f16);
		for (size_t K = 1; K <= 7; K++)
			for (int trial = 0; trial < 20; trial++) {
				for (size_t k = 0; k < M * K; k++)
					A[k] = random_input(&f16, &state, 0, 14 + trial % 2 * 10, 0);
				for (size_t k = 0; k < K * N; k++)
					B[k] = trial % 3 == 0 ? 0 : random_input(&f16, &state, 0, 14 + trial % 2 * 10, 0);
				for (size_t i = 0; i < M * N; i++)
					C[i] = next_random(&state) % 2 ? pattern(&f32, next_random(&state) % 2, 0, 5)
								       : random_input(&f32, &state, 100, 130, 0);
				ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, &f16, &f32, M, N, K, A, B, C, 0, D, 1), 0);
				for (size_t j = 0; j < N; j++) {
					for (size_t k = 0; k < K; k++)
						col[k] = B[k * N + j];
					for (size_t i = 0; i < M; i++) {
						uint64_t want;
						ck_assert_int_eq(fpref_emu_tc_dot(m, &f16, A + i * K, col, K, C[i * N + j], &f32, &want), 0);
						ck_assert_msg(D[i * N + j] == want, "%s K=%zu: D[%zu][%zu] = %llx, the dot product %llx",
							      m->gpu, K, i, j, (unsigned long long)D[i * N + j], (unsigned long long)want);
					}
				}
			}
	}
}
END_TEST

/* The thread count past the number of tiles, and a one-column product. */
START_TEST(threads_beyond_tiles)
{
	struct fpref_format in = test_format("float8_e4m3fn"), f32 = test_format("float32");
	const struct fpref_tc_model *m = fpref_tc_model_find("h100", &in);
	uint64_t state = 7, A[2 * 40], B[40], D[2], want;
	for (size_t k = 0; k < 80; k++)
		A[k] = random_input(&in, &state, 0, max_field(&in), 0);
	for (size_t k = 0; k < 40; k++)
		B[k] = random_input(&in, &state, 0, max_field(&in), 0);
	ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, &in, &f32, 2, 1, 40, A, B, NULL, 0, D, 8), 0);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(fpref_emu_tc_dot(m, &in, A + i * 40, B, 40, 0, &f32, &want), 0);
		ck_assert_uint_eq(D[i], want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tensor-core GEMM paths");
	TCase *tc = tcase_create("gemm");
	tcase_add_test(tc, gemm_against_dot);
	tcase_add_test(tc, group_path_specials);
	tcase_add_test(tc, tree_short_k);
	tcase_add_test(tc, threads_beyond_tiles);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
