/* Issue 37's example lines (its table: one `fpref dot` line per class,
 * fpref's answer beside the independent model's, MMA-Sim) that no other
 * suite works by hand: N1's two lines as the issue writes them (K = 16),
 * A1 on every BF16 row the issue names (and two H200 lines that settle it
 * on sm_90), A2's two, and D2's chain of four
 * m16n8k8 instructions.  Each pattern is worked by hand in the comment
 * above it and checked on both engines (the emulator and the MPFR oracle)
 * and the emulator's GEMM.  The other examples are worked in check_tc_model
 * (Z1 zero_sign_measured, A3 subnormal_c_at_least_normal, F1
 * fp16_floor_kept, D2 instruction_shapes) and check_tc_blackwell (Z2
 * cdna3_zero_sign, O1 cdna3_product_overflow); N2 has no example (nobody
 * documents MFMA NaN bits).  kernels/hw-settle.suite runs the sm_90 ones
 * on a GPU. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"

enum { K_MAX = 32 };

/* d of one dot product by the emulator, the oracle and the emulator's
 * GEMM (one row times one column), which must agree. */
static uint64_t dot3(const struct fpref_tc_model *m, const struct fpref_format *in, const uint64_t *a,
		     const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *out)
{
	ck_assert_ptr_nonnull(m);
	uint64_t d[3] = { 1, 2, 3 }, A[K_MAX], B[K_MAX], C = c;
	memcpy(A, a, K * sizeof *A);
	memcpy(B, b, K * sizeof *B);
	ck_assert_int_eq(fpref_emu_tc_dot(m, in, in, a, b, K, c, out, &d[0]), 0);
	ck_assert_int_eq(fpref_ref_tc_dot(m, in, in, a, b, K, c, out, &d[1]), 0);
	ck_assert_int_eq(fpref_emu_tc_gemm(m, in, in, out, 1, 1, K, A, B, &C, 0, &d[2]), 0);
	ck_assert_msg(d[0] == d[1] && d[1] == d[2], "%s: emulator %llx, oracle %llx, GEMM %llx", m->gpu,
		      (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)d[2]);
	return d[0];
}

/* N1, `--model tcgen05 --in f16`, K = 16: a0 = 7C00 (+inf) times b0 =
 * 3C00 (1) and a1 = FC00 (-inf) times b1 = 3C00: +inf + -inf is invalid,
 * a NaN; NVIDIA's units write the all-ones pattern 7FFFFFFF (the
 * independent model, and fpref's rows since issue 37; before, FP32's
 * default NaN 7FC00000).  `--model h100-wgmma --out f16`, the same line:
 * FP16's all ones, 7FFF (before: 7E00). */
START_TEST(n1_nan_bits)
{
	struct fpref_format f16 = test_format("float16"), f32 = test_format("float32");
	uint64_t a[16] = { 0x7C00, 0xFC00 }, b[16] = { 0x3C00, 0x3C00 };
	ck_assert_uint_eq(dot3(fpref_tc_model_find("tcgen05", &f16), &f16, a, b, 16, 0, &f32), 0x7FFFFFFF);
	ck_assert_uint_eq(dot3(fpref_tc_model_find("h100-wgmma", &f16), &f16, a, b, 16, 0, &f16), 0x7FFF);
}
END_TEST

/* A1, `--model tcgen05 --in bf16`, K = 16: a0..a7 = 19C0 (1.5 x 2^-76)
 * times b0..b7 = 1980 (2^-76), eight products of 1.5 x 2^-152, C = +0.
 * fpref drops the zero C and aligns at the largest product (2^-152; on
 * h100-mma at its floor 2^-133, on a100 at 2^-132, 8 products a block):
 * 25 (a100: 24) fraction bits below that keep every product exactly, the
 * sum is 12 x 2^-152 = 1.5 x 2^-149, truncated (rtz) to FP32's least
 * subnormal: 00000001.  The independent model enters the zero C at 2^-126:
 * 25 bits below it (quantum 2^-151) cut each product (0.75 x 2^-151) to 0,
 * d = 00000000.  The issue names a100, h100-mma and mma-sm120 too (and
 * tcgen05-mxf8f6f4, which takes no BF16). */
START_TEST(a1_zero_c_alignment)
{
	struct fpref_format bf16 = test_format("bfloat16"), f32 = test_format("float32");
	uint64_t a[16] = { 0 }, b[16] = { 0 };
	for (int k = 0; k < 8; k++) {
		a[k] = 0x19C0;
		b[k] = 0x1980;
	}
	const char *rows[] = { "tcgen05", "a100", "h100-mma", "mma-sm120" };
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
		ck_assert_msg(dot3(fpref_tc_model_find(rows[r], &bf16), &bf16, a, b, 16, 0, &f32) == 0x00000001, "%s", rows[r]);
}
END_TEST

/* A1 on sm_90, measured: the H200's probe results (golden/hw/nvidia-h200,
 * results/probe.mma.bf16.f32.txt and probe.wgmma.bf16.f32.txt, body lines
 * 2301 and 2320, C = +0, K = 16).  Line 2301: a0 = 1A00 (2^-75) times b0 =
 * 1A80 (2^-74) is 2^-149, a1 = 9900 (-2^-77) times b1 = 1980 (2^-76) is
 * -2^-153; the sum 15 x 2^-153 is exact at the floor 2^-133 (quantum
 * 2^-158) and truncates (rtz) below FP32's least subnormal to +0: the H200
 * gave 00000000.  A zero C at 2^-126 (quantum 2^-151) would cut -2^-153 and
 * give 2^-149, 00000001.  Line 2320: 2^-74 * 2^-74 = 2^-148 and 9980 (-2^-76)
 * times 1980 is -2^-152: 15 x 2^-152 = 1.875 x 2^-149 truncates to
 * 00000001, as the H200 gave; with A1, 2^-148 alone, 00000002.  So on sm_90
 * the zero C does not enter the alignment (fpref's row); 36 such lines in
 * each of the BF16 mma.sync, BF16 WGMMA and TF32 mma.sync probe sets, all
 * fpref's (docs/accumulation.md). */
START_TEST(a1_measured_h200)
{
	struct fpref_format bf16 = test_format("bfloat16"), f32 = test_format("float32");
	uint64_t a[16] = { 0x1A00, 0x9900 }, b[16] = { 0x1A80, 0x1980 };
	uint64_t x[16] = { 0x1A80, 0x9980 }, y[16] = { 0x1A80, 0x1980 };
	const char *rows[] = { "h100-mma", "h100-wgmma" };
	for (int r = 0; r < 2; r++) {
		ck_assert_uint_eq(dot3(fpref_tc_model_find(rows[r], &bf16), &bf16, a, b, 16, 0, &f32), 0x00000000);
		ck_assert_uint_eq(dot3(fpref_tc_model_find(rows[r], &bf16), &bf16, x, y, 16, 0, &f32), 0x00000001);
	}
}
END_TEST

/* A2, `--model tcgen05 --in bf16`: a0 = 0000 times b0 = 7F00 (2^127), C =
 * 30800000 (2^-30).  fpref: the zero product is nothing, C alone is exact:
 * 30800000.  The independent model gives the zero factor the exponent
 * -126, so the product counts at 2^(-126 + 127) = 2^1 and 25 bits below it
 * (quantum 2^-24) C is cut: 00000000.  `--in f16`: a0 = 0000 times b0 =
 * 7800 (2^15), C = 00800001 (2^-126 + 2^-149): fpref 00800001; the model
 * aligns at 2^-111 (quantum 2^-136) and drops C's 2^-149: 00800000. */
START_TEST(a2_zero_operand_alignment)
{
	struct fpref_format bf16 = test_format("bfloat16"), f16 = test_format("float16"), f32 = test_format("float32");
	uint64_t a[16] = { 0x0000 }, b[16] = { 0x7F00 };
	ck_assert_uint_eq(dot3(fpref_tc_model_find("tcgen05", &bf16), &bf16, a, b, 16, 0x30800000, &f32), 0x30800000);
	b[0] = 0x7800;
	ck_assert_uint_eq(dot3(fpref_tc_model_find("tcgen05", &f16), &f16, a, b, 16, 0x00800001, &f32), 0x00800001);
}
END_TEST

/* D2: a chain of four m16n8k8 f16 instructions (K = 32) is blocks of 8,
 * `--model generic --block 8 --frac 25 --floor none`, not h100-mma's blocks
 * of 16.  Products: k = 0, 1: 1 * 1 and 1 * -1 (3C00, BC00); k = 8: 2^-15 *
 * 2^-15 = 2^-30 (0200 * 0200); again at k = 16, 17 and 24.  Blocks of 16:
 * each holds 1, -1 and 2^-30, aligned at 2^0, 25 bits keep nothing below
 * 2^-25: each block gives 0, d = 00000000.  Blocks of 8 (the accumulator a
 * term of the next block): 1 - 1 = 0; then 2^-30 alone, exact; then 1 - 1
 * with the accumulator 2^-30, aligned at 2^0, which cuts it: 0; then 2^-30:
 * d = 30800000. */
START_TEST(d2_chain_of_four)
{
	struct fpref_format f16 = test_format("float16"), f32 = test_format("float32");
	uint64_t a[32] = { 0 }, b[32] = { 0 };
	for (int half = 0; half < 32; half += 16) {
		a[half] = a[half + 1] = b[half] = 0x3C00;
		b[half + 1] = 0xBC00;
		a[half + 8] = b[half + 8] = 0x0200;
	}
	const struct fpref_tc_model *row = fpref_tc_model_find("h100-mma", &f16);
	struct fpref_tc_model shaped = *row, generic;
	char err[256];
	ck_assert_msg(fpref_tc_model_shape(&shaped, &f32, "m16n8k8", err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(fpref_tc_model_custom(8, 25, FPREF_TC_NO_FLOOR, FPREF_RTZ, &generic, err, sizeof err), 0);
	ck_assert_uint_eq(dot3(row, &f16, a, b, 32, 0, &f32), 0x00000000);
	ck_assert_uint_eq(dot3(&shaped, &f16, a, b, 32, 0, &f32), 0x30800000);
	ck_assert_uint_eq(dot3(&generic, &f16, a, b, 32, 0, &f32), 0x30800000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("issue 37's examples");
	TCase *tc = tcase_create("examples");
	tcase_add_test(tc, n1_nan_bits);
	tcase_add_test(tc, a1_zero_c_alignment);
	tcase_add_test(tc, a1_measured_h200);
	tcase_add_test(tc, a2_zero_operand_alignment);
	tcase_add_test(tc, d2_chain_of_four);
	suite_add_tcase(s, tc);
	return test_run(s);
}
