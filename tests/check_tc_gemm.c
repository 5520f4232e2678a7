/* fpref_emu_tc_gemm (its tile path: B's columns as lanes, emu/tc_gemm.c) against
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
#include "round_core.h"
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
		ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, in, out, M, N, K, A, B, c, nc, D, threads), 0);
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			for (size_t i = 0; i < M; i++) {
				uint64_t want, cij = c ? c[i * N + j] : 0;
				int r = nc ? fpref_emu_tc_dot_promoted(m, in, in, A + i * K, col, K, nc, NULL, NULL, cij, &want)
					   : fpref_emu_tc_dot(m, in, in, A + i * K, col, K, cij, out, &want);
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
		ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, in, out, M, N, K, A, B, C, 0, D, threads), 0);
		for (size_t j = 0; j < N; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = B[k * N + j];
			for (size_t i = 0; i < M; i++) {
				uint64_t want;
				ck_assert_int_eq(fpref_emu_tc_dot(m, in, in, A + i * K, col, K, C[i * N + j], out, &want), 0);
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

/* The wide block tile (64-bit lanes: F or lift beyond 32 bits) on custom
 * models: blocks of 1 to 64, F 30 to 36 (lift 7 to 13), F 29 with 32
 * products (their sum beyond 32 bits), every floor kind and rounding,
 * FP16 output too; tpu-bf16 and intel-bf16 (F = 36) take it through
 * gemm_against_dot. */
START_TEST(wide_block_models)
{
	static const struct {
		int block, frac, floor;
		enum fpref_rounding rounding;
		const char *in;
	} models[] = { { 1, 36, FPREF_TC_NO_FLOOR, FPREF_RNE, "bfloat16" }, { 4, 36, -140, FPREF_RTZ, "float16" },
		       { 16, 31, FPREF_TC_NO_FLOOR, FPREF_RTZ, "bfloat16" }, { 32, 29, -133, FPREF_RTZ, "float8_e4m3fn" },
		       { 64, 33, FPREF_TC_NO_FLOOR, FPREF_RNE, "float8_e5m2" }, { 8, 34, -20, FPREF_RNE, "tf32" },
		       { 2, 30, -20, FPREF_RNE, "float16" } };
	uint64_t state = 17;
	unsigned long checked = 0;
	struct fpref_format f32 = test_format("float32"), f16 = test_format("float16");
	const struct fpref_format *outs[2] = { &f32, &f16 };
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
		struct fpref_tc_model m;
		char err[256];
		ck_assert_int_eq(fpref_tc_model_custom(models[i].block, models[i].frac, models[i].floor, models[i].rounding,
						       &m, err, sizeof err),
				 0);
		struct fpref_format in = test_format(models[i].in);
		for (int o = 0; o < 2; o++) {
			if (!fpref_tc_output_ok(&m, &in, outs[o]))
				continue;
			const char *path = fpref_emu_tc_gemm_path(&m, &in, &in, outs[o]);
			ck_assert_msg(path && strcmp(path, "wide block tile") == 0, "block %d, F %d, %s: %s", m.block, m.frac,
				      in.name, path ? path : "NULL");
			for (unsigned odds = 0; odds <= 300; odds += 300)
				checked += check_one(&m, &in, outs[o], 0, odds, false, &state);
			checked += check_one(&m, &in, outs[o], 0, 0, true, &state);
			checked += check_placed(&m, &in, outs[o], &state);
		}
	}
	ck_assert_uint_gt(checked, 5000);
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

/* The FP32 path (CDNA1/2, FP16 and BF16) on short K, one block or a
 * block and a short one: the pairwise halves of a group of 3, and CDNA2's subnormal C read
 * as +0, which a later block would hide (-0 + +0 is +0). */
START_TEST(tree_short_k)
{
	uint64_t state = 13;
	struct fpref_format f32 = test_format("float32");
	struct fpref_format ins[2] = { test_format("float16"), test_format("bfloat16") };
	static const char *const gpus[] = { "mfma-cdna1", "mfma-cdna2" };
	enum { M = 3, N = 20 };
	uint64_t A[M * 7], B[7 * N], C[M * N], D[M * N], col[7];
	for (size_t r = 0; r < 4; r++) {
		const struct fpref_format *in = &ins[r / 2];
		const struct fpref_tc_model *m = fpref_tc_model_find(gpus[r % 2], in);
		ck_assert_ptr_nonnull(m);
		for (size_t K = 1; K <= 7; K++)
			for (int trial = 0; trial < 20; trial++) {
				/* FP16: fields 0 .. 14 or 24; BF16: about 2^-63, whose products
				 * cross FP32's least normal, or about 2^63, its overflow */
				int lo = r < 2 ? 0 : trial % 2 ? 184 : 56, hi = r < 2 ? 14 + trial % 2 * 10 : lo + 14;
				for (size_t k = 0; k < M * K; k++)
					A[k] = random_input(in, &state, lo, hi, 0);
				for (size_t k = 0; k < K * N; k++)
					B[k] = trial % 3 == 0 ? 0 : random_input(in, &state, lo, hi, 0);
				for (size_t i = 0; i < M * N; i++)
					C[i] = next_random(&state) % 2 ? pattern(&f32, next_random(&state) % 2, 0, 5)
								       : random_input(&f32, &state, 100, 130, 0);
				ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, in, &f32, M, N, K, A, B, C, 0, D, 1), 0);
				for (size_t j = 0; j < N; j++) {
					for (size_t k = 0; k < K; k++)
						col[k] = B[k * N + j];
					for (size_t i = 0; i < M; i++) {
						uint64_t want;
						ck_assert_int_eq(fpref_emu_tc_dot(m, in, in, A + i * K, col, K, C[i * N + j], &f32, &want), 0);
						ck_assert_msg(D[i * N + j] == want, "%s %s K=%zu: D[%zu][%zu] = %llx, the dot product %llx",
							      m->gpu, in->name, K, i, j, (unsigned long long)D[i * N + j], (unsigned long long)want);
					}
				}
			}
	}
}
END_TEST

/* The batch rounding (fpref_emu_round_pack_sums and its 32-bit form, whose
 * common case runs as vector lanes: round_word.h) against the core itself
 * one value at a time, bits and flags, over formats of every kind the core
 * knows (FP32 by ties to even has its own instance of the loop), every
 * rounding and some environments: sums with ties, carries into the next
 * binade and past max finite, tiny and subnormal results, zeros, the most
 * negative sum, in batches whose lengths are no multiple of a register's
 * lanes. */
START_TEST(batch_rounding_matches_core)
{
	static const char *const formats[] = { "float32", "float16", "bfloat16", "tf32", "float8_e4m3fn",
					       "float8_e5m2", "float8_e4m3fnuz", "float8_e8m0fnu", "float4_e2m1fn",
					       "int8", "float64", "e5m2,specials=none" };
	static const enum fpref_rounding modes[] = { FPREF_RNE, FPREF_RNA, FPREF_RTZ, FPREF_RUP, FPREF_RDN, FPREF_ROD,
						     FPREF_SR };
	enum { N = 77 };
	uint64_t state = 17;
	unsigned long compared = 0;
	for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
		struct fpref_format f = test_format(formats[fi]);
		struct fpref_emu_round_target t;
		fpref_emu_round_target_init(&t, &f);
		bool narrow = f.exp_bits + f.man_bits + f.pad_bits + (f.is_signed ? 1 : 0) <= 32;
		int emax = fpref_format_max_exponent(&f), emin = 1 - f.bias;
		for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++)
			for (int variant = 0; variant < 3; variant++) {
				struct fpref_env env;
				fpref_env_default(&env);
				env.rounding = modes[mi];
				env.overflow = variant == 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
				env.ftz = variant == 2;
				env.zero_positive = variant == 2;
				for (int trial = 0; trial < 40; trial++) {
					int64_t sum[N];
					int32_t sum32[N], exp[N];
					for (size_t i = 0; i < N; i++) {
						uint64_t r = next_random(&state);
						/* a significand of 1 to 40 bits (62 now and then), its low
						 * bits a tie, a carry or anything */
						int bits = r % 9 == 0 ? 62 : 1 + (int)(r % 40);
						uint64_t m = (next_random(&state) >> (64 - bits)) | (uint64_t)1 << (bits - 1);
						int low = f.man_bits + 1 < bits ? bits - f.man_bits - 1 : 0;
						if (low > 0 && r % 5 == 1) /* an exact tie below the last place */
							m = (m >> low << low) | (uint64_t)1 << (low - 1);
						if (low > 0 && r % 5 == 2) /* all ones: rounding carries */
							m |= (((uint64_t)1 << low) - 1) | (uint64_t)1 << (bits - 1);
						if (r % 23 == 0)
							m = 0;
						int64_t v = (r >> 40) & 1 ? -(int64_t)m : (int64_t)m;
						if (r % 101 == 0)
							v = INT64_MIN;
						/* the leading bit near the least normal or the top, or anywhere */
						int where = (int)((r >> 44) % 3), lead = 63 - __builtin_clzll((v < 0 ? 0 - (uint64_t)v : (uint64_t)v) | 1);
						int32_t e = where == 0   ? emin - 3 + (int)((r >> 48) % 7) - lead
							    : where == 1 ? emax - 2 + (int)((r >> 48) % 4) - lead
									 : emin - 8 + (int)((r >> 48) % (unsigned)(emax - emin + 16)) - lead;
						sum[i] = v;
						exp[i] = e;
						int64_t w = v >> (bits > 30 ? bits - 30 : 0);
						sum32[i] = (int32_t)w;
					}
					uint64_t out[N];
					uint32_t out32[N];
					unsigned flags = 0, flags32 = 0, want_all = 0, want_all32 = 0;
					size_t n = 1 + (size_t)trial % N;
					fpref_emu_round_pack_sums(&t, &env, n, sum, exp, out, &flags);
					if (narrow)
						fpref_emu_round_pack_sums32(&t, &env, n, sum32, exp, out32, &flags32);
					for (size_t i = 0; i < n; i++) {
						unsigned want_flags = 0;
						int64_t v = sum[i];
						uint64_t want = fpref_emu_round_pack_target(
							&t, &env, 0, v < 0, exp[i], (fpref_u128)(v < 0 ? -(uint64_t)v : (uint64_t)v), false,
							&want_flags);
						want_all |= want_flags;
						ck_assert_msg(out[i] == want, "%s mode %d variant %d: %llx * 2^%d -> %llx, the core %llx",
							      f.name, (int)modes[mi], variant, (unsigned long long)v, exp[i],
							      (unsigned long long)out[i], (unsigned long long)want);
						unsigned one = 0;
						uint64_t alone;
						fpref_emu_round_pack_sums(&t, &env, 1, &sum[i], &exp[i], &alone, &one);
						ck_assert_uint_eq(one, want_flags);
						if (!narrow)
							continue;
						int32_t w = sum32[i];
						want_flags = 0;
						want = fpref_emu_round_pack_target(&t, &env, 0, w < 0, exp[i],
										   (fpref_u128)(w < 0 ? -(uint64_t)(int64_t)w : (uint64_t)w),
										   false, &want_flags);
						want_all32 |= want_flags;
						ck_assert_msg(out32[i] == want, "%s (32) mode %d variant %d: %x * 2^%d -> %x, the core %llx",
							      f.name, (int)modes[mi], variant, (unsigned)w, exp[i], out32[i],
							      (unsigned long long)want);
						uint32_t alone32;
						one = 0;
						fpref_emu_round_pack_sums32(&t, &env, 1, &sum32[i], &exp[i], &alone32, &one);
						ck_assert_uint_eq(one, want_flags);
						compared++;
					}
					ck_assert_uint_eq(flags, want_all);
					ck_assert_uint_eq(flags32, want_all32);
					compared += n;
				}
			}
	}
	printf("check_tc_gemm: batch rounding against the core, %lu values\n", compared);
}
END_TEST

/* An FP32 exponent field for C near the products', kept to the finite
 * normal ones. */
static uint64_t c_field(int field)
{
	return (uint64_t)(field < 1 ? 1 : field > 254 ? 254 : field);
}

/* The FP32 path's tile kernel (CDNA1/2, float16 and bfloat16) on
 * operands built for its edges: significands of few bits or all ones,
 * over a narrow band of exponents, so that the pairwise sums and C's
 * addition meet ties, carries into the next binade and jams; pairs of products that cancel
 * exactly (to +0, beside C of either zero); subnormal inputs (CDNA2 reads
 * them as +0); now and then an inf or NaN; C zeros of both signs,
 * subnormal, near the least normal, large, inf and NaN; for BF16, bands
 * whose products fall below FP32's least normal or overflow it (the
 * kernel's lanes that tree_step takes).  Rows in groups
 * of the kernel's four and a partial one, a partial tile, K with a short
 * last group. */
START_TEST(tree_edges)
{
	uint64_t state = 29;
	struct fpref_format f32 = test_format("float32");
	struct fpref_format ins[2] = { test_format("float16"), test_format("bfloat16") };
	static const char *const gpus[] = { "mfma-cdna1", "mfma-cdna2" };
	static const uint64_t mantissas[2][9] = { { 0, 1, 2, 0x200, 0x201, 0x3FF, 0x3FE, 0x155, 0x2AA },
						  { 0, 1, 2, 0x40, 0x41, 0x7F, 0x7E, 0x55, 0x2A } };
	enum { M = 9, N = 37, K = 23 };
	static uint64_t A[M * K], B[K * N], C[M * N], D[M * N], col[K];
	unsigned long checked = 0;
	for (size_t g = 0; g < 4; g++) {
		const struct fpref_format *in = &ins[g / 2];
		const struct fpref_tc_model *m = fpref_tc_model_find(gpus[g % 2], in);
		ck_assert_ptr_nonnull(m);
		/* BF16: bands about 2^-63 and 2^63 too, whose products cross FP32's
		 * least normal and its overflow (fields 56 .. 71, 184 .. 199) */
		bool bf = g >= 2;
		/* the FP32 field of a product of two inputs of field lo */
		int bias = bf ? -127 : 97;
		for (int trial = 0; trial < 60; trial++) {
			int lo = !bf ? (int)(next_random(&state) % 28)
				 : trial % 3 == 0 ? 56 + (int)(next_random(&state) % 12)
				 : trial % 3 == 1 ? 184 + (int)(next_random(&state) % 12)
						  : 1 + (int)(next_random(&state) % 248);
			int band = 1 + trial % 6;
			uint64_t nan = 0, inf = 0;
			fpref_format_nan_bits(in, false, &nan);
			fpref_format_inf_bits(in, next_random(&state) & 1, &inf);
			for (size_t k = 0; k < M * K + K * N; k++) {
				uint64_t r = next_random(&state);
				uint64_t field = (uint64_t)lo + (r >> 8) % (uint64_t)band;
				uint64_t bits = pattern(in, (r >> 62) & 1, field, mantissas[bf][(r >> 20) % 9]);
				if (r % 97 == 0)
					bits = r % 2 ? nan : inf;
				if (r % 31 == 1)
					bits = pattern(in, (r >> 62) & 1, 0, r >> 30); /* subnormal or zero */
				*(k < M * K ? &A[k] : &B[k - M * K]) = bits;
			}
			/* in every other trial, B's rows in pairs of opposite sign and A's
			 * columns in equal pairs: each pair of products cancels */
			for (size_t k = 0; trial % 2 && k + 1 < K; k += 2) {
				for (size_t j = 0; j < N; j++)
					B[(k + 1) * N + j] = B[k * N + j] ^ 0x8000;
				for (size_t i = 0; i < M; i++)
					A[i * K + k + 1] = A[i * K + k];
			}
			uint64_t cinf = 0, cnan = 0;
			fpref_format_inf_bits(&f32, next_random(&state) & 1, &cinf);
			fpref_format_nan_bits(&f32, false, &cnan);
			for (size_t i = 0; i < M * N; i++) {
				uint64_t r = next_random(&state);
				uint64_t kinds[] = { 0, 0x80000000, pattern(&f32, r & 2, 0, r >> 40), pattern(&f32, r & 2, 1, r >> 41),
						     pattern(&f32, r & 2, c_field(2 * lo + bias - 17 + (int)(r % 40)), r >> 30),
						     pattern(&f32, r & 2, 254, r >> 30), cinf, cnan };
				C[i] = r % 3 ? kinds[(r >> 8) % 8] : pattern(&f32, r & 2, c_field(2 * lo + bias - 27 + (int)(r % 30)), r >> 20);
			}
			ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, in, in, &f32, M, N, K, A, B, C, 0, D, 1), 0);
			for (size_t j = 0; j < N; j++) {
				for (size_t k = 0; k < K; k++)
					col[k] = B[k * N + j];
				for (size_t i = 0; i < M; i++) {
					uint64_t want;
					ck_assert_int_eq(fpref_emu_tc_dot(m, in, in, A + i * K, col, K, C[i * N + j], &f32, &want), 0);
					ck_assert_msg(D[i * N + j] == want, "%s %s edges, trial %d: D[%zu][%zu] = %llx, the dot product %llx",
						      m->gpu, in->name, trial, i, j, (unsigned long long)D[i * N + j], (unsigned long long)want);
					checked++;
				}
			}
		}
	}
	ck_assert_uint_gt(checked, 60000);
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
	ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, &in, &in, &f32, 2, 1, 40, A, B, NULL, 0, D, 8), 0);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, A + i * 40, B, 40, 0, &f32, &want), 0);
		ck_assert_uint_eq(D[i], want);
	}
}
END_TEST

/* The lowered FP8 paths (lowered_k > 0: h100's FP16 output, h100-mma and
 * mma-sm100 both; the FP32 one on the tile kernel, TILE_LOWERED): rows
 * enough for a whole batch of the tile kernel's 8 rows and a partial one,
 * K of one product, of less than one instruction, of exactly one and of
 * two and a short one (13: the last instruction's second lane group short
 * too), operands edge-heavy (zeros, subnormals, the largest, any pattern
 * now and then: NaN, inf), a row of A zero (the instruction's result +0
 * against C of either sign), C of every kind; each element against
 * fpref_emu_tc_dot, on 1 and 2 threads. */
START_TEST(lowered_rows)
{
	enum { M = 11, N = 19, KMAX = 77 };
	static const size_t Ks[] = { 1, 3, 32, 77 };
	uint64_t state = 17;
	unsigned long checked = 0;
	static uint64_t A[M * KMAX], B[KMAX * N], C[M * N], D[M * N], col[KMAX];
	struct fpref_format f32 = test_format("float32"), f16 = test_format("float16");
	const struct fpref_format *outs[2] = { &f32, &f16 };
	for (size_t r = 0; r < fpref_tc_model_count(); r++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(r);
		char name[64];
		for (size_t q = 0; m->lowered_k > 0 && list_item(m->inputs, q, name, sizeof name); q++) {
			struct fpref_format in = test_format(name);
			for (int o = 0; o < 2; o++) {
				const struct fpref_format *out = outs[o];
				if (!fpref_tc_output_ok(m, &in, out) || !fpref_tc_lowered(m, out))
					continue;
				uint64_t kinds[10] = { 0, pattern(out, true, 0, 0), pattern(out, false, 0, 1),
						       pattern(out, true, 0, 5), fpref_format_max_bits(out, false),
						       fpref_format_max_bits(out, true), 0, 0, 0, pattern(out, false, 1, 0) };
				fpref_format_inf_bits(out, false, &kinds[6]);
				fpref_format_inf_bits(out, true, &kinds[7]);
				fpref_format_nan_bits(out, false, &kinds[8]);
				for (size_t z = 0; z < sizeof Ks / sizeof Ks[0]; z++) {
					size_t K = Ks[z];
					for (size_t x = 0; x < M * K + K * N; x++) {
						uint64_t u = next_random(&state) % 8;
						uint64_t v = u == 0   ? random_input(&in, &state, 0, max_field(&in), 1)
							     : u == 1 ? random_input(&in, &state, 0, 0, 0)
							     : u == 2 ? fpref_format_max_bits(&in, next_random(&state) % 2)
								      : random_input(&in, &state, 0, max_field(&in), 0);
						*(x < M * K ? &A[x] : &B[x - M * K]) = v;
					}
					for (size_t k = 0; k < K; k++)
						A[3 * K + k] = 0;
					for (size_t x = 0; x < M * N; x++)
						C[x] = next_random(&state) % 2 ? kinds[x % 10]
										 : random_input(out, &state, 0, max_field(out), 0);
					for (unsigned threads = 1; threads <= 2; threads++) {
						ck_assert_int_eq(fpref_emu_tc_gemm_threads(m, &in, &in, out, M, N, K, A, B, C, 0, D, threads), 0);
						for (size_t j = 0; j < N; j++) {
							for (size_t k = 0; k < K; k++)
								col[k] = B[k * N + j];
							for (size_t i = 0; i < M; i++) {
								uint64_t want;
								ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, A + i * K, col, K, C[i * N + j], out, &want), 0);
								ck_assert_msg(D[i * N + j] == want,
									      "%s %s -> %s, K %zu, %u threads: D[%zu][%zu] = %llx, the dot product %llx",
									      m->gpu, in.name, out->name, K, threads, i, j,
									      (unsigned long long)D[i * N + j], (unsigned long long)want);
								checked++;
							}
						}
					}
				}
			}
		}
	}
	ck_assert_uint_gt(checked, 10000);
}
END_TEST

/* The path each kind of model takes, as docs/accumulation.md and the
 * docs/tensor-cores.md name them: a tile kernel for the block, two-stage, group and
 * FP32-tree models and the lowered FP8 paths (FP32 and FP16 output), the
 * wide block tile for F = 36 (tpu-bf16, intel-bf16), CDNA1's exact groups
 * (fused) column by column on decoded operands (the tree tile has no exact
 * sums), none for an input the model does not take. */
START_TEST(gemm_paths)
{
	static const struct {
		const char *gpu, *in, *out, *path;
	} want[] = { { "h100", "float8_e4m3fn", "float32", "block tile" },
		     { "mfma-cdna3", "float16", "float32", "two-stage tile" },
		     { "tcgen05-mxf4nvf4", "float4_e2m1fn", "float32", "group tile" },
		     { "mfma-cdna1", "float16", "float32", "per column" },
		     { "mfma-cdna1", "bfloat16", "float32", "per column" },
		     { "mfma-cdna2", "float16", "float32", "fp32-tree tile" },
		     { "mfma-cdna2", "bfloat16", "float32", "fp32-tree tile" },
		     { "h100-mma", "float8_e4m3fn", "float32", "lowered block tile" },
		     { "mma-sm100", "float8_e5m2", "float32", "lowered block tile" },
		     { "h100-mma", "float8_e4m3fn", "float16", "lowered block tile" },
		     { "mma-sm100", "float8_e5m2", "float16", "lowered block tile" },
		     { "h100", "float16", "float16", "block tile" },
		     { "tpu-bf16", "bfloat16", "float32", "wide block tile" },
		     { "intel-bf16", "bfloat16", "float32", "wide block tile" } };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct fpref_format in = test_format(want[i].in), out = test_format(want[i].out);
		const struct fpref_tc_model *m = fpref_tc_model_find(want[i].gpu, &in);
		ck_assert_ptr_nonnull(m);
		const char *path = fpref_emu_tc_gemm_path(m, &in, &in, &out);
		ck_assert_msg(path && strcmp(path, want[i].path) == 0, "%s %s -> %s: %s, not %s", want[i].gpu, want[i].in,
			      want[i].out, path ? path : "NULL", want[i].path);
	}
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), f16 = test_format("float16");
	ck_assert_ptr_null(fpref_emu_tc_gemm_path(fpref_tc_model_find("mfma-cdna1", &f16), &e4m3, &e4m3, &f16));
}
END_TEST

/* The tile kernels' leading-bit search (round_core.h) against a count by
 * shifting: every value next to a power of two and a stride through the
 * rest in 32 and 64 bits; every 32-bit value under FPREF_EXHAUSTIVE. */
static int lead_by_shifting(uint64_t x)
{
	int n = 0;
	while (x >>= 1)
		n++;
	return n;
}

START_TEST(lead_bit_search)
{
	unsigned long checked = 0;
	for (int b = 0; b < 64; b++)
		for (int d = -2; d <= 2; d++) {
			uint64_t x = ((uint64_t)1 << b) + (uint64_t)(int64_t)d;
			if (x == 0)
				continue;
			ck_assert_int_eq(fpref_emu_lead_bit64(x), lead_by_shifting(x));
			if (x <= UINT32_MAX)
				ck_assert_int_eq(fpref_emu_lead_bit32((uint32_t)x), lead_by_shifting(x));
			checked++;
		}
	uint64_t state = 11;
	for (int i = 0; i < 100000; i++) {
		uint64_t r = next_random(&state);
		uint64_t x = (r >> (r & 63)) | 1;
		ck_assert_int_eq(fpref_emu_lead_bit64(x), lead_by_shifting(x));
		ck_assert_int_eq(fpref_emu_lead_bit32((uint32_t)x | 1), lead_by_shifting((uint32_t)x | 1));
		checked++;
	}
	if (getenv("FPREF_EXHAUSTIVE")) {
		/* a power of two's count, then each value up to the next: the
		 * count by shifting would take minutes */
		for (uint64_t x = 1, lead = 0; x <= UINT32_MAX; x++) {
			lead += (x & (x - 1)) == 0 && x > 1;
			if (fpref_emu_lead_bit32((uint32_t)x) != (int32_t)lead)
				ck_abort_msg("lead bit of %#llx: %d, not %d", (unsigned long long)x,
					     fpref_emu_lead_bit32((uint32_t)x), (int)lead);
		}
		checked += UINT32_MAX;
	}
	printf("check_tc_gemm: leading-bit search, %lu values\n", checked);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tensor-core GEMM paths");
	TCase *tc = tcase_create("gemm");
	tcase_add_test(tc, gemm_against_dot);
	tcase_add_test(tc, wide_block_models);
	tcase_add_test(tc, group_path_specials);
	tcase_add_test(tc, tree_short_k);
	tcase_add_test(tc, threads_beyond_tiles);
	tcase_add_test(tc, batch_rounding_matches_core);
	tcase_add_test(tc, tree_edges);
	tcase_add_test(tc, gemm_paths);
	tcase_add_test(tc, lowered_rows);
	tcase_add_test(tc, lead_bit_search);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
