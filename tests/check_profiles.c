/* Profiles: each cell of docs/profiles.md's profile table, from the behaviours
 * that ../shared/SEMANTICS.md collects from CUDA's headers, the ONNX Cast
 * specification, ml_dtypes and the OCP specifications, through both
 * engines.  Inputs are FP32 bit patterns. */
#include <stdio.h>

#include "testutil.h"

struct cell {
	const char *profile, *to;
	int overflow; /* -1: the profile's default, 0: ieee, 1: sat */
	uint32_t in;
	uint64_t want;
};

/* 464 = 43E80000, 465 = 43E88000, 500 = 43FA0000, 1000 = 447A0000,
 * 61440 = 47700000, 1e6 = 497423F0, 100 = 42C80000, 3 = 40400000,
 * 2^-10 = 3A800000, inf = 7F800000, NaN = 7FC00000. */
static const struct cell cells[] = {
	/* CUDA __nv_cvt_float_to_fp8, E4M3: SATFINITE clamps, NOSAT gives NaN with the sign; NaN is 0x7F */
	{ "cuda", "e4m3", 1, 0x43E80000, 0x7E }, { "cuda", "e4m3", 1, 0x43E88000, 0x7E },
	{ "cuda", "e4m3", 1, 0xC3FA0000, 0xFE }, { "cuda", "e4m3", 1, 0x7F800000, 0x7E },
	{ "cuda", "e4m3", 1, 0xFF800000, 0xFE }, { "cuda", "e4m3", 1, 0x7FC00000, 0x7F },
	{ "cuda", "e4m3", 1, 0xFFC00000, 0x7F }, { "cuda", "e4m3", 0, 0x43E88000, 0x7F },
	{ "cuda", "e4m3", 0, 0xC3E88000, 0xFF }, { "cuda", "e4m3", 0, 0x7F800000, 0x7F },
	{ "cuda", "e4m3", 0, 0xFF800000, 0xFF }, { "cuda", "e4m3", 0, 0xFFC00000, 0x7F },
	{ "cuda", "e4m3", 0, 0x3A800000, 0x00 }, { "cuda", "e4m3", 0, 0xBA800000, 0x80 },
	{ "cuda", "e4m3", 0, 0x3A800001, 0x01 },
	/* E5M2: |x| >= 61440 clamps or goes to inf; NaN is 0x7F whatever its sign */
	{ "cuda", "e5m2", 1, 0x47700000, 0x7B }, { "cuda", "e5m2", 1, 0x7F800000, 0x7B },
	{ "cuda", "e5m2", 1, 0xFFC00000, 0x7F }, { "cuda", "e5m2", 0, 0x47700000, 0x7C },
	{ "cuda", "e5m2", 0, 0x476FFFFF, 0x7B }, { "cuda", "e5m2", 0, 0xFF800000, 0xFC },
	{ "cuda", "e5m2", 0, 0x7FC00000, 0x7F },
	/* FP4 via CUDA: NaN becomes the positive maximum, inf saturates */
	{ "cuda", "e2m1", 1, 0x7FC00000, 0x7 }, { "cuda", "e2m1", 1, 0xFFC00000, 0x7 },
	{ "cuda", "e2m1", 1, 0x7F800000, 0x7 }, { "cuda", "e2m1", 1, 0xFF800000, 0xF },
	/* half and bfloat16 NaN: 0x7FFF */
	{ "cuda", "f16", -1, 0xFFC00000, 0x7FFF }, { "cuda", "bf16", -1, 0x7FC00001, 0x7FFF },
	/* ONNX Cast, opsets 19-23, saturate=1 (default): inf clamps in E4M3FN/E5M2, is NaN in FNUZ */
	{ "onnx-cast-19", "e4m3", -1, 0x447A0000, 0x7E }, { "onnx-cast-19", "e4m3", -1, 0x7F800000, 0x7E },
	{ "onnx-cast-19", "e4m3", -1, 0xFF800000, 0xFE }, { "onnx-cast-19", "e5m2", -1, 0x7F800000, 0x7B },
	{ "onnx-cast-19", "e4m3fnuz", -1, 0x7F800000, 0x80 }, { "onnx-cast-19", "e4m3fnuz", -1, 0xFF800000, 0x80 },
	{ "onnx-cast-19", "e4m3fnuz", -1, 0x447A0000, 0x7F }, { "onnx-cast-19", "e4m3fnuz", -1, 0x80000000, 0x00 },
	{ "onnx-cast-19", "e5m2fnuz", -1, 0x7F800000, 0x80 }, { "onnx-cast-19", "e5m2fnuz", -1, 0x497423F0, 0x7F },
	/* saturate=0 */
	{ "onnx-cast-19", "e4m3", 0, 0x447A0000, 0x7F }, { "onnx-cast-19", "e4m3", 0, 0x7F800000, 0x7F },
	{ "onnx-cast-19", "e5m2", 0, 0x7F800000, 0x7C }, { "onnx-cast-19", "e5m2", 0, 0x497423F0, 0x7C },
	{ "onnx-cast-19", "e4m3fnuz", 0, 0x447A0000, 0x80 }, { "onnx-cast-19", "e4m3fnuz", 0, 0x7F800000, 0x80 },
	/* opsets 24-25: inf clamps in all four; E8M0 rounds up */
	{ "onnx-cast-24", "e4m3fnuz", -1, 0x7F800000, 0x7F }, { "onnx-cast-24", "e4m3fnuz", -1, 0xFF800000, 0xFF },
	{ "onnx-cast-24", "e5m2fnuz", -1, 0x7F800000, 0x7F }, { "onnx-cast-24", "e4m3", -1, 0x7F800000, 0x7E },
	{ "onnx-cast-24", "e8m0", -1, 0x40400000, 0x81 }, { "onnx-cast-24", "e8m0", -1, 0x40A00000, 0x82 },
	{ "onnx-cast-24", "e4m3fnuz", 0, 0x7F800000, 0x80 },
	/* ml_dtypes: NaN on overflow in E4M3FN and FNUZ, inf in E5M2, FP4/FP6 clamp; E8M0 zero is NaN */
	{ "ml_dtypes", "e4m3", -1, 0x447A0000, 0x7F }, { "ml_dtypes", "e4m3fnuz", -1, 0x447A0000, 0x80 },
	{ "ml_dtypes", "e5m2", -1, 0x497423F0, 0x7C }, { "ml_dtypes", "e2m1", -1, 0x42C80000, 0x7 },
	{ "ml_dtypes", "e3m2", -1, 0x42C80000, 0x1F }, { "ml_dtypes", "e2m3", -1, 0x42C80000, 0x1F },
	{ "ml_dtypes", "e8m0", -1, 0x00000000, 0xFF },
	/* found by sweeping ml_dtypes 0.6 itself: FP4/FP6 turn NaN into zero with the sign bit inverted,
	 * and E8M0 sends a nonzero value that rounds to zero to its least value 2^-127 */
	{ "ml_dtypes", "e2m1", -1, 0x7FC00000, 0x8 }, { "ml_dtypes", "e2m1", -1, 0xFFC00000, 0x0 },
	{ "ml_dtypes", "e2m3", -1, 0x7FC00000, 0x20 }, { "ml_dtypes", "e3m2", -1, 0xFFC00000, 0x00 },
	{ "ml_dtypes", "e8m0", -1, 0x00000001, 0x00 }, { "ml_dtypes", "e8m0", -1, 0x80000001, 0xFF },
	{ "ml_dtypes", "e8m0", -1, 0x40400000, 0x81 }, { "ml_dtypes", "e8m0", -1, 0x3FC00000, 0x80 },
	/* OCP OFP8: SAT and NONSAT; MX E8M0 NaN 0xFF */
	{ "ocp", "e4m3", 1, 0x7F800000, 0x7E }, { "ocp", "e4m3", 1, 0x7FC00000, 0x7F },
	{ "ocp", "e5m2", 1, 0x7F800000, 0x7B }, { "ocp", "e4m3", 0, 0x447A0000, 0x7F },
	{ "ocp", "e5m2", 0, 0x497423F0, 0x7C }, { "ocp", "e8m0", 0, 0x7FC00000, 0xFF },
};

START_TEST(profile_cells)
{
	const struct cell *c = &cells[_i];
	struct fpref_format f32 = test_format("f32"), to = test_format(c->to);
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_profile_apply(c->profile, &to, &env), 0);
	if (c->overflow >= 0)
		env.overflow = c->overflow ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	for (int engine = 0; engine < 2; engine++) {
		uint64_t out = 0;
		unsigned flags = 0;
		int r = engine ? fpref_emu_convert(&f32, c->in, &to, &env, 0, &out, &flags)
			       : fpref_ref_convert(&f32, c->in, &to, &env, 0, &out, &flags);
		ck_assert_msg(r == 0 && out == c->want, "%s %s%s %08x (%s): got %llx, want %llx", c->profile, c->to,
			      c->overflow < 0 ? "" : c->overflow ? " sat" : " ieee", (unsigned)c->in,
			      engine ? "emu" : "ref", (unsigned long long)out, (unsigned long long)c->want);
	}
	/* and through the array path (vector or table or generic) */
	struct fpref_emu_converter *conv = fpref_emu_converter_new(&f32, &to, &env);
	uint64_t out = 0;
	fpref_emu_convert_array(conv, &c->in, &out, 1, NULL, 0);
	fpref_emu_converter_free(conv);
	ck_assert_msg(out == c->want, "%s %s %08x (array): got %llx", c->profile, c->to, (unsigned)c->in,
		      (unsigned long long)out);
}
END_TEST

/* Cells that need the source format or a rounding mode: conversions that
 * CUDA's headers treat apart (cuda_fp8.hpp, cuda_bf16.hpp; every expected
 * value read off the header's code, and swept by tests/check_cuda_host.cc
 * where g++ finds the headers). */
struct conversion_cell {
	const char *profile, *from, *to;
	int overflow; /* as in struct cell */
	enum fpref_rounding rounding;
	uint64_t in, want;
};

static const struct conversion_cell conversion_cells[] = {
	/* __nv_cvt_double_to_fp8: E4M3 NaN keeps its sign, E5M2 NaN 0x7E | sign | double mantissa bit 50 */
	{ "cuda", "f64", "e4m3", 0, FPREF_RNE, 0xFFF8000000000000u, 0xFF },
	{ "cuda", "f64", "e4m3", 1, FPREF_RNE, 0x7FF8000000000000u, 0x7F },
	{ "cuda", "f64", "e5m2", 0, FPREF_RNE, 0x7FF8000000000000u, 0x7E },
	{ "cuda", "f64", "e5m2", 1, FPREF_RNE, 0x7FFC000000000000u, 0x7F },
	{ "cuda", "f64", "e5m2", 0, FPREF_RNE, 0xFFF4000000000000u, 0xFF },
	{ "cuda", "f64", "e5m2", 0, FPREF_RNE, 0x7FF0000000000001u, 0x7E },
	/* the float form makes every NaN 0x7FFFFFFF first */
	{ "cuda", "f32", "e5m2", 0, FPREF_RNE, 0xFFA00000u, 0x7F },
	{ "cuda", "f32", "e4m3", 0, FPREF_RNE, 0xFFC00000u, 0x7F },
	/* __bfloat162float shifts the bits: sign, payload and signaling kept; __half2float: 0x7FFFFFFF */
	{ "cuda", "bf16", "f32", -1, FPREF_RNE, 0x7F81, 0x7F810000 },
	{ "cuda", "bf16", "f32", -1, FPREF_RNE, 0xFFC1, 0xFFC10000 },
	{ "cuda", "bf16", "f32", -1, FPREF_RNE, 0x7FFF, 0x7FFF0000 },
	{ "cuda", "f16", "f32", -1, FPREF_RNE, 0xFE01, 0x7FFFFFFF },
	/* __nv_cvt_*_to_e8m0: |x|; zero and anything below 2^-127 give 0x00 also without SATFINITE */
	{ "cuda", "f32", "e8m0", 0, FPREF_RTZ, 0x00000000, 0x00 },
	{ "cuda", "f32", "e8m0", 0, FPREF_RUP, 0x80000000, 0x00 },
	{ "cuda", "f32", "e8m0", 0, FPREF_RTZ, 0x00000001, 0x00 },
	{ "cuda", "f32", "e8m0", 0, FPREF_RTZ, 0xC0400000, 0x80 },
	{ "cuda", "f32", "e8m0", 0, FPREF_RUP, 0xC0400000, 0x81 },
	{ "cuda", "f32", "e8m0", 1, FPREF_RUP, 0x809B2DE0, 0x02 },
	{ "cuda", "f32", "e8m0", 0, FPREF_RTZ, 0xFF800000, 0xFF },
	{ "cuda", "f32", "e8m0", 1, FPREF_RTZ, 0xFF800000, 0xFE },
	{ "cuda", "f32", "e8m0", 0, FPREF_RUP, 0x7F000001, 0xFF },
	{ "cuda", "f32", "e8m0", 0, FPREF_RUP, 0xFFC00000, 0xFF },
	{ "cuda", "bf16", "e8m0", 0, FPREF_RUP, 0x0041, 0x01 },
	{ "cuda", "f64", "e8m0", 0, FPREF_RTZ, 0x0000000000000001u, 0x00 },
	/* ml_dtypes keeps zero as NaN and negative values out of range */
	{ "ml_dtypes", "f32", "e8m0", -1, FPREF_RNE, 0x00000000, 0xFF },
	{ "ml_dtypes", "f32", "e8m0", -1, FPREF_RNE, 0xC0400000, 0xFF },
};

START_TEST(profile_conversion_cells)
{
	const struct conversion_cell *c = &conversion_cells[_i];
	struct fpref_format from = test_format(c->from), to = test_format(c->to);
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_profile_apply_conversion(c->profile, &from, &to, &env), 0);
	if (c->overflow >= 0)
		env.overflow = c->overflow ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	env.rounding = c->rounding;
	for (int engine = 0; engine < 3; engine++) {
		uint64_t out = 0;
		unsigned flags = 0;
		int r = 0;
		if (engine == 0) {
			r = fpref_ref_convert(&from, c->in, &to, &env, 0, &out, &flags);
		} else if (engine == 1) {
			r = fpref_emu_convert(&from, c->in, &to, &env, 0, &out, &flags);
		} else {
			struct fpref_emu_converter *conv = fpref_emu_converter_new(&from, &to, &env);
			fpref_emu_convert_array(conv, &c->in, &out, 1, NULL, 0);
			fpref_emu_converter_free(conv);
		}
		ck_assert_msg(r == 0 && out == c->want, "%s %s->%s %s %llx (%s): got %llx, want %llx", c->profile,
			      c->from, c->to, fpref_rounding_name(c->rounding), (unsigned long long)c->in,
			      engine == 0 ? "ref" : engine == 1 ? "emu" : "array", (unsigned long long)out,
			      (unsigned long long)c->want);
	}
}
END_TEST

/* The source-blind form leaves the source-specific rows out. */
START_TEST(profile_without_source)
{
	struct fpref_format f32 = test_format("f32");
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_profile_apply("cuda", &f32, &env), 0);
	ck_assert_int_eq(env.nan_style, FPREF_NAN_POSITIVE_ALL_ONES);
}
END_TEST

START_TEST(unknown_profile)
{
	struct fpref_format e4m3 = test_format("e4m3");
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_profile_apply("tensorflow", &e4m3, &env), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("profiles");
	TCase *tc = tcase_create("cells");
	tcase_add_loop_test(tc, profile_cells, 0, (int)(sizeof cells / sizeof cells[0]));
	tcase_add_loop_test(tc, profile_conversion_cells, 0, (int)(sizeof conversion_cells / sizeof conversion_cells[0]));
	tcase_add_test(tc, profile_without_source);
	tcase_add_test(tc, unknown_profile);
	suite_add_tcase(s, tc);
	return test_run(s);
}
