/* The Blackwell and AMD CDNA1-3 instruction presets (formats/tc_model.c,
 * docs/accumulation.md): emulator against oracle on every preset, with and
 * without block scales, and hand-worked cases that pin what tells each
 * preset apart (the 35-bit accumulator, a scale per group of 16, the FNUZ
 * NaN, the round-down dot-add, CDNA1/2's pairwise FP32 groups and flushing,
 * CDNA4's OCP inputs and its scales applied before the accumulation), each worked from the published model's
 * rules, not from either engine.  make check compares 20,000 cases per
 * preset (a sixteenth under FPREF_TEST_SAMPLE=reduced); make
 * check-exhaustive (FPREF_EXHAUSTIVE) 200,000. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_tc.h"
#include "tc_random.h"

static const struct {
	const char *model, *input;
} presets[] = {
	{ "tcgen05", "float16" },          { "tcgen05", "bfloat16" },        { "tcgen05", "tf32" },
	{ "tcgen05", "float8_e4m3fn" },    { "tcgen05", "float8_e5m2" },     { "tcgen05", "float6_e3m2fn" },
	{ "tcgen05", "float6_e2m3fn" },    { "tcgen05", "float4_e2m1fn" },   { "tcgen05-mxf8f6f4", "float8_e4m3fn" },
	{ "tcgen05-mxf8f6f4", "float8_e5m2" }, { "tcgen05-mxf8f6f4", "float6_e3m2fn" },
	{ "tcgen05-mxf8f6f4", "float4_e2m1fn" }, { "tcgen05-mxf4nvf4", "float4_e2m1fn" },
	{ "mma-sm100", "float16" },        { "mma-sm100", "bfloat16" },      { "mma-sm100", "tf32" },
	{ "mma-sm100", "float8_e4m3fn" },  { "mma-sm100", "float8_e5m2" },   { "mma-sm120", "float16" },
	{ "mma-sm120", "tf32" },           { "mma-sm120", "float8_e4m3fn" }, { "mma-sm120", "float4_e2m1fn" },
	{ "mfma-cdna3", "float16" },       { "mfma-cdna3", "bfloat16" },     { "mfma-cdna3", "tf32" },
	{ "mfma-cdna3", "float8_e4m3fnuz" }, { "mfma-cdna3", "float8_e5m2fnuz" }, { "mfma-cdna1", "float16" },
	{ "mfma-cdna1", "bfloat16" },      { "mfma-cdna2", "float16" },      { "mfma-cdna2", "bfloat16" },
	{ "mfma-cdna2-legacy", "bfloat16" },
	{ "mfma-cdna4", "float16" },       { "mfma-cdna4", "bfloat16" },     { "mfma-cdna4", "float8_e4m3fn" },
	{ "mfma-cdna4", "float8_e5m2" },   { "mfma-cdna4", "float6_e2m3fn" }, { "mfma-cdna4", "float6_e3m2fn" },
	{ "mfma-cdna4", "float4_e2m1fn" }, { "mfma-cdna4-scale", "float8_e4m3fn" },
	{ "mfma-cdna4-scale", "float8_e5m2" }, { "mfma-cdna4-scale", "float6_e2m3fn" },
	{ "mfma-cdna4-scale", "float6_e3m2fn" }, { "mfma-cdna4-scale", "float4_e2m1fn" },
};

static unsigned long cases_per_preset(void)
{
	unsigned long n = getenv("FPREF_EXHAUSTIVE") ? 200000 : 20000;
	return n / test_sample_stride();
}

static const struct fpref_tc_model *preset(const char *model, const struct fpref_format *in)
{
	const struct fpref_tc_model *m = fpref_tc_model_find(model, in);
	ck_assert_msg(m != NULL, "no preset %s for %s", model, in->name);
	return m;
}

typedef int (*scaled_dot)(const struct fpref_tc_model *, const struct fpref_format *, const struct fpref_format *, const uint64_t *,
			  const uint64_t *, size_t, const struct fpref_tc_scales *, uint64_t, const struct fpref_format *,
			  uint64_t *);
static const scaled_dot engines[2] = { fpref_emu_tc_dot_scaled, fpref_ref_tc_dot_scaled };

/* Random scales of a format: mostly near 1, now and then anything
 * (NaN included). */
static uint64_t random_scale(const struct fpref_format *f, uint64_t *state)
{
	uint64_t r = next_random(state);
	if (r % 50 == 0)
		return r >> 8 & 0xFF;
	int mid = f->bias, spread = fpref_format_is(f, FPREF_FORMAT_FLOAT8_E8M0FNU) ? 40 : 6;
	int field = mid - spread + (int)((r >> 8) % (unsigned)(2 * spread + 1));
	return (uint64_t)field << f->man_bits | ((r >> 24) & ((1u << f->man_bits) - 1));
}

/* Emulator against oracle: inputs over the whole range, K up to three
 * blocks and a bit, C nonzero half of the time, both outputs where the
 * preset has them; the block-scaled presets with random scales of every
 * format and size they take, and without (unit scales). */
START_TEST(preset_against_oracle)
{
	struct fpref_format in = test_format(presets[_i].input);
	const struct fpref_tc_model *m = preset(presets[_i].model, &in);
	uint64_t state = 0xb1ac0000u + ((uint64_t)_i << 32);
	unsigned long want_cases = cases_per_preset(), cases = 0, scaled = 0;
	bool block_scaled = strstr(m->gpu, "mx") != NULL || strstr(m->gpu, "-scale") != NULL;
	struct fpref_format e8m0 = test_format("float8_e8m0fnu"), e4m3 = test_format("float8_e4m3fn");
	for (unsigned long rep = 0; rep < want_cases; rep++) {
		struct fpref_format out = test_format(rep % 2 ? "float16" : "float32");
		if (!fpref_tc_output_ok(m, &in, &out))
			out = test_format("float32");
		size_t K = 1 + next_random(&state) % (size_t)(3 * m->block + 2);
		uint64_t a[200], b[200], sa[200], sb[200];
		uint64_t c = random_case(&in, &out, &state, K, a, b);
		struct fpref_tc_scales s = { &e8m0, sa, sb, 32 };
		bool use_scales = block_scaled && rep % 4 != 0;
		if (use_scales) {
			if (m->group > 0 && rep % 3 == 0)
				s.format = &e4m3; /* UE4M3 per 16: NVFP4 */
			s.every = m->group > 0 && (rep % 2 || s.format == &e4m3) ? 16 : 32;
			for (size_t j = 0; j <= K / s.every; j++) {
				sa[j] = random_scale(s.format, &state);
				sb[j] = random_scale(s.format, &state);
			}
			scaled++;
		}
		uint64_t got = 0, want = 0;
		ck_assert_int_eq(engines[1](m, &in, &in, a, b, K, use_scales ? &s : NULL, c, &out, &want), 0);
		ck_assert_int_eq(engines[0](m, &in, &in, a, b, K, use_scales ? &s : NULL, c, &out, &got), 0);
		if (got != want) { /* the case, for fpref dot */
			for (size_t k = 0; k < 2 * K; k++)
				fprintf(stderr, "%llx ", (unsigned long long)(k < K ? a[k] : b[k - K]));
			fprintf(stderr, "%llx\n", (unsigned long long)c);
		}
		ck_assert_msg(got == want, "%s %s -> %s K=%zu case %lu%s: emulator %llx, oracle %llx", m->gpu, in.name,
			      out.name, K, rep, use_scales ? " (scaled)" : "", (unsigned long long)got,
			      (unsigned long long)want);
		cases++;
	}
	printf("%-18s %-16s %lu cases (%lu with scales), emulator = oracle\n", m->gpu, in.name, cases, scaled);
	ck_assert_uint_eq(cases, want_cases);
}
END_TEST

static uint64_t dot_both(const struct fpref_tc_model *m, const struct fpref_format *in, const uint64_t *a,
			 const uint64_t *b, size_t K, const struct fpref_tc_scales *s, uint64_t c,
			 const struct fpref_format *out)
{
	uint64_t d[2] = { 1, 2 };
	for (int e = 0; e < 2; e++)
		ck_assert_int_eq(engines[e](m, in, in, a, b, K, s, c, out, &d[e]), 0);
	ck_assert_msg(d[0] == d[1], "%s: emulator %llx, oracle %llx", m->gpu, (unsigned long long)d[0],
		      (unsigned long long)d[1]);
	return d[0];
}

/* The 35-bit accumulator of kind::mxf4nvf4.  C = -1 and, in each of the
 * four groups of 16, one product 0.5 * 0.5 with E8M0 scales 2^-12 each:
 * four terms of 2^-26.  The alignment exponent is C's (0): 35 bits keep
 * every term, the sum -(1 - 2^-24) is an FP32 (BF7FFFFF).  kind::mxf8f6f4
 * keeps 25 bits below the same exponent: each term is lost and d = -1
 * (BF800000). */
START_TEST(accumulator_35_bits)
{
	struct fpref_format e2m1 = test_format("float4_e2m1fn"), e8m0 = test_format("float8_e8m0fnu"),
			    f32 = test_format("float32");
	uint64_t a[64] = { 0 }, b[64] = { 0 }, sa[4], sb[4];
	for (int g = 0; g < 4; g++) {
		a[16 * g] = b[16 * g] = 0x1; /* 0.5 */
		sa[g] = sb[g] = 127 - 12;
	}
	struct fpref_tc_scales s16 = { &e8m0, sa, sb, 16 }, s32 = { &e8m0, sa, sb, 32 };
	ck_assert_uint_eq(dot_both(preset("tcgen05-mxf4nvf4", &e2m1), &e2m1, a, b, 64, &s16, 0xBF800000, &f32),
			  0xBF7FFFFF);
	ck_assert_uint_eq(dot_both(preset("tcgen05-mxf8f6f4", &e2m1), &e2m1, a, b, 64, &s32, 0xBF800000, &f32),
			  0xBF800000);
}
END_TEST

/* A scale per group of 16 (NVFP4: UE4M3 per 16).  C = 0; group 0: 0.5 *
 * 0.5 with scales 2^-9 each (0x01, the least subnormal): 2^-20, aligned at
 * the scales' place -12; group 1: 1 * 1 with scales 1.5 (0x3C) and 1.5:
 * 2.25, at place 0; groups 2 and 3 zero.  d = 2.25 + 2^-20 (40100004).
 * Group 3's scales 448 and 448 (0x7E, place 16) move the alignment to 16
 * although its sum is zero: 2^-20 falls below 2^(16 - 35) and d = 2.25
 * (40100000).  Had group 1 taken group 0's scales (a scale per 32), it
 * would be 2^-18 and d = 2^-18 + 2^-20 (36A00000). */
START_TEST(scale_per_group_of_16)
{
	struct fpref_format e2m1 = test_format("float4_e2m1fn"), e4m3 = test_format("float8_e4m3fn"),
			    f32 = test_format("float32");
	const struct fpref_tc_model *m = preset("tcgen05-mxf4nvf4", &e2m1);
	uint64_t a[64] = { 0 }, b[64] = { 0 }, sa[4] = { 0x01, 0x3C, 0x38, 0x38 }, sb[4] = { 0x01, 0x3C, 0x38, 0x38 };
	a[0] = b[0] = 0x1;   /* 0.5 */
	a[16] = b[16] = 0x2; /* 1 */
	struct fpref_tc_scales s = { &e4m3, sa, sb, 16 };
	ck_assert_uint_eq(dot_both(m, &e2m1, a, b, 64, &s, 0, &f32), 0x40100004);
	sa[3] = sb[3] = 0x7E;
	ck_assert_uint_eq(dot_both(m, &e2m1, a, b, 64, &s, 0, &f32), 0x40100000);
	sa[3] = sb[3] = 0x38;
	sa[1] = sb[1] = 0x01;
	ck_assert_uint_eq(dot_both(m, &e2m1, a, b, 64, &s, 0, &f32), 0x36A00000);
	/* a NaN scale (0x7F) gives NaN; the sign bit of a UE4M3 scale is ignored */
	sa[2] = 0x7F;
	ck_assert_uint_eq(dot_both(m, &e2m1, a, b, 64, &s, 0, &f32) & 0x7FC00000, 0x7FC00000);
	sa[2] = 0xB8; /* -1 read as 1 */
	ck_assert_uint_eq(dot_both(m, &e2m1, a, b, 64, &s, 0, &f32), 0x36A00000);
}
END_TEST

/* Blackwell's FP8 unit keeps 25 bits where Hopper's keeps 13: C = 1 and
 * 32 products 2^-9 * 2^-9 (sum 2^-13) give 1 + 2^-13 (3F800400) on
 * tcgen05 kind::f8f6f4 and on sm_120's native mma.sync, 1 (3F800000) on
 * h100-wgmma.  mma.sync on sm_100 lowers to FP16 blocks (the SASS): the
 * products sum exactly there too. */
START_TEST(fp8_25_bits)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), f32 = test_format("float32");
	uint64_t a[32], b[32];
	for (int k = 0; k < 32; k++)
		a[k] = b[k] = 0x01;
	ck_assert_uint_eq(dot_both(preset("tcgen05", &e4m3), &e4m3, a, b, 32, NULL, 0x3F800000, &f32), 0x3F800400);
	ck_assert_uint_eq(dot_both(preset("mma-sm120", &e4m3), &e4m3, a, b, 32, NULL, 0x3F800000, &f32), 0x3F800400);
	ck_assert_uint_eq(dot_both(preset("mma-sm100", &e4m3), &e4m3, a, b, 32, NULL, 0x3F800000, &f32), 0x3F800400);
	ck_assert_uint_eq(dot_both(preset("h100-wgmma", &e4m3), &e4m3, a, b, 32, NULL, 0x3F800000, &f32), 0x3F800000);
	ck_assert(fpref_tc_lowered(preset("mma-sm100", &e4m3), &f32));
	ck_assert(!fpref_tc_lowered(preset("mma-sm120", &e4m3), &f32));
}
END_TEST

/* The FNUZ NaN: 0x80 is NaN in float8_e4m3fnuz (CDNA3) and -0 in OCP
 * float8_e4m3fn (Blackwell): one product 0x80 * 1 with C = 1 gives NaN
 * (7FC00000) on mfma-cdna3 and 1 (3F800000) on tcgen05. */
START_TEST(fnuz_nan)
{
	struct fpref_format fnuz = test_format("float8_e4m3fnuz"), fn = test_format("float8_e4m3fn"),
			    f32 = test_format("float32");
	uint64_t a[16] = { 0x80 }, b[16] = { 0x40 }; /* 0x40: 1 in e4m3fnuz, 2 in e4m3fn */
	ck_assert_uint_eq(dot_both(preset("mfma-cdna3", &fnuz), &fnuz, a, b, 16, NULL, 0x3F800000, &f32), 0x7FC00000);
	ck_assert_uint_eq(dot_both(preset("tcgen05", &fn), &fn, a, b, 16, NULL, 0x3F800000, &f32), 0x3F800000);
}
END_TEST

/* CDNA3's round-down dot-add.  FP16: the product 1 * 1 and C = -2^-30
 * (B0800000): aligned at 0, C floored to 24 fraction bits is -2^-24, and
 * d = 1 - 2^-24 (3F7FFFFF), where truncation would give 1 and one correct
 * rounding 1 (3F800000).  FP8 (FNUZ): C is dropped when its place is below
 * the alignment's minus 25: C = -2^-30 gives 1 (3F800000), C = -2^-25
 * (B3000000) is floored to -2^-24 and d = 3F7FFFFF. */
START_TEST(round_down_dot_add)
{
	struct fpref_format f16 = test_format("float16"), fnuz = test_format("float8_e4m3fnuz"),
			    f32 = test_format("float32");
	uint64_t a[16] = { 0x3C00 }, b[16] = { 0x3C00 };
	const struct fpref_tc_model *m = preset("mfma-cdna3", &f16);
	ck_assert_uint_eq(dot_both(m, &f16, a, b, 8, NULL, 0xB0800000, &f32), 0x3F7FFFFF);
	ck_assert_uint_eq(dot_both(m, &f16, a, b, 8, NULL, 0x30800000, &f32), 0x3F800000); /* + 2^-30: floored to 0 */
	uint64_t x[16] = { 0x40 }, y[16] = { 0x40 }; /* 1 * 1 in e4m3fnuz */
	const struct fpref_tc_model *f8 = preset("mfma-cdna3", &fnuz);
	ck_assert_uint_eq(dot_both(f8, &fnuz, x, y, 16, NULL, 0xB0800000, &f32), 0x3F800000);
	ck_assert_uint_eq(dot_both(f8, &fnuz, x, y, 16, NULL, 0xB3000000, &f32), 0x3F7FFFFF);
	/* no FP16 output, so no bound for it */
	struct fpref_format h = test_format("float16");
	uint64_t d;
	ck_assert(!fpref_tc_output_ok(m, &f16, &h));
	ck_assert_int_eq(fpref_emu_tc_dot(m, &f16, &f16, a, b, 8, 0, &h, &d), -1);
	mpfr_t bound;
	mpfr_init2(bound, 64);
	ck_assert_int_eq(fpref_ref_tc_bound(m, &f16, &f16, a, b, 8, 0, &h, 0, bound), -1);
	mpfr_clear(bound);
}
END_TEST

/* No alignment floor on the Blackwell presets but mma-sm100, which keeps
 * the H100's (-133 for FP32 output, -21 for FP16).  FP32 output, bf16
 * and tf32: products 2^-75 * 2^-74 = 2^-149 and -(2^-80 * 2^-80) =
 * -2^-160, C = 0.  Without a floor the block aligns at -149 and keeps
 * -2^-160 (25 bits reach 2^-174): the sum lies below 2^-149 and rtz
 * gives 0.  With the floor it aligns at -133, 25 bits reach 2^-158 only,
 * -2^-160 is truncated away and d = 2^-149 (00000001).  FP16 output,
 * f16: 2^-12 * 2^-13 = 2^-25, a tie between 0 and 2^-24, plus 2^-24 *
 * 2^-24 = 2^-48: without a floor (kept) rne goes up to 2^-24 (0001); with
 * -21 (bits to 2^-46 only) the tie stays and goes to even, 0. */
START_TEST(no_floor)
{
	struct fpref_format bf16 = test_format("bfloat16"), tf32 = test_format("tf32"), f16 = test_format("float16"),
			    f32 = test_format("float32");
	uint64_t a16[2] = { 0x1A00, 0x9780 }, b16[2] = { 0x1A80, 0x1780 };
	uint64_t a32[2] = { 0x1A000000, 0x97800000 }, b32[2] = { 0x1A800000, 0x17800000 };
	uint64_t ah[2] = { 0x0C00, 0x0001 }, bh[2] = { 0x0800, 0x0001 };
	static const char *const floorless[] = { "tcgen05", "mma-sm120" };
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(dot_both(preset(floorless[i], &bf16), &bf16, a16, b16, 2, NULL, 0, &f32), 0);
		ck_assert_uint_eq(dot_both(preset(floorless[i], &tf32), &tf32, a32, b32, 2, NULL, 0, &f32), 0);
		ck_assert_uint_eq(dot_both(preset(floorless[i], &f16), &f16, ah, bh, 2, NULL, 0, &f16), 0x0001);
	}
	ck_assert_uint_eq(dot_both(preset("mma-sm100", &bf16), &bf16, a16, b16, 2, NULL, 0, &f32), 0x00000001);
	ck_assert_uint_eq(dot_both(preset("mma-sm100", &tf32), &tf32, a32, b32, 2, NULL, 0, &f32), 0x00000001);
	ck_assert_uint_eq(dot_both(preset("mma-sm100", &f16), &f16, ah, bh, 2, NULL, 0, &f16), 0);
}
END_TEST

/* CDNA2: FP32 pairwise sums of each group; CDNA1: each group's exact sum.
 * f16 products 1, 0, 2^-24, 2^-24 (2^-12 = 0x0C00 squared), C = 0: (1 +
 * 0) + (2^-24 + 2^-24) = 1 + 2^-23 (3F800001), the exact sum too, where a
 * recursive FP32 sum gives 1 (each 2^-24 a tie to even).  CDNA2 flushes: a subnormal input 2^-24 (0x0001) times 1 gives
 * 2^-24 (33800000) on CDNA1 and 0 on CDNA2; a subnormal C (00000001) with
 * no products stays on CDNA1 and reads as +0 on CDNA2; the bf16 product
 * -2^-70 * 2^-70 is the FP32 subnormal -2^-140 (80000200) on CDNA1,
 * flushed on CDNA2 (-0, and +0 once added to C = +0). */
START_TEST(cdna12_pairwise_and_flush)
{
	struct fpref_format f16 = test_format("float16"), bf16 = test_format("bfloat16"), f32 = test_format("float32");
	const struct fpref_tc_model *c1 = preset("mfma-cdna1", &f16), *c2 = preset("mfma-cdna2", &f16);
	uint64_t a[4] = { 0x3C00, 0, 0x0C00, 0x0C00 };
	ck_assert_uint_eq(dot_both(c1, &f16, a, a, 4, NULL, 0, &f32), 0x3F800001);
	ck_assert_uint_eq(dot_both(c2, &f16, a, a, 4, NULL, 0, &f32), 0x3F800001);
	uint64_t x[1] = { 0x0001 }, one[1] = { 0x3C00 }, zero[1] = { 0 };
	ck_assert_uint_eq(dot_both(c1, &f16, x, one, 1, NULL, 0, &f32), 0x33800000);
	ck_assert_uint_eq(dot_both(c2, &f16, x, one, 1, NULL, 0, &f32), 0);
	ck_assert_uint_eq(dot_both(c1, &f16, zero, zero, 1, NULL, 1, &f32), 1);
	ck_assert_uint_eq(dot_both(c2, &f16, zero, zero, 1, NULL, 1, &f32), 0);
	uint64_t p[1] = { 0x9C80 }, q[1] = { 0x1C80 }; /* -2^-70, 2^-70 */
	ck_assert_uint_eq(dot_both(preset("mfma-cdna1", &bf16), &bf16, p, q, 1, NULL, 0, &f32), 0x80000200);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna2", &bf16), &bf16, p, q, 1, NULL, 0, &f32), 0);
}
END_TEST

/* CDNA1 (fused): each group of 4 f16 (2 bf16) products and C summed
 * exactly, rounded once to FP32, as the independent model has it from
 * mmasim 2.0.0 on (docs/accumulation.md).  Issue 37's example, worked
 * with exact rationals (Python's fractions, not fpref): K = 8 f16, C =
 * C2964C28 = -75.14874267578125.  Group 1: products -460597/1024,
 * 1636417536, -716079/2048, 122831/32; C plus them is
 * 1636420499.87..., to FP32 1636420480 (4EC31397).  Group 2: products
 * -1648151/4096, -2301407232, 2312339/16384, -2312339/16384; the sum
 * with 1636420480 is -664987154.38..., 64's ulp: -10390424.28 ulps, to
 * -664987136 = CE1E8B98.  FP32 steps (the pairwise tree, CDNA2's
 * arithmetic on these inputs) lose -402.38 against -2301407232 (ulp 256):
 * CE1E8B9C.  In bf16, C = 2^-24 plus products 1 and 2^-24 is 1 + 2^-23
 * (3F800001), where FP32 steps tie to 1 twice; a zero sum of -0 terms
 * alone stays -0, of mixed zeros +0; +inf against a -inf C is the
 * default NaN, -inf against 1 stays -inf.  Terms 266 places apart (the
 * word array's case): C = 1 with 2^-24 is a tie, and 2^-133 * 2^-133 =
 * 2^-266 beside them decides it: up (3F800001), or, negative, down
 * (3F800000).  The same 59 places apart (the 128-bit sum's case): f16 C =
 * 1024 with 2^-14 (0400 * 3C00) is a tie, 2^-24 * 2^-24 = 2^-48 decides
 * it: 44800001, or 44800000. */
START_TEST(cdna1_fused_groups)
{
	struct fpref_format f16 = test_format("float16"), bf16 = test_format("bfloat16"), f32 = test_format("float32");
	const struct fpref_tc_model *c1 = preset("mfma-cdna1", &f16), *c2 = preset("mfma-cdna2", &f16);
	ck_assert(c1->fused && c1->tree > 0 && !c2->fused);
	uint64_t a[8] = { 0x7903, 0xF89E, 0x728D, 0x7B10, 0x6E5B, 0x799D, 0xF6A3, 0x76A3 };
	uint64_t b[8] = { 0xA19C, 0xF948, 0xA6AC, 0x2C3F, 0xABEA, 0xFA1C, 0x9D51, 0x9D51 };
	ck_assert_uint_eq(dot_both(c1, &f16, a, b, 8, NULL, 0xC2964C28, &f32), 0xCE1E8B98);
	ck_assert_uint_eq(dot_both(c2, &f16, a, b, 8, NULL, 0xC2964C28, &f32), 0xCE1E8B9C);
	const struct fpref_tc_model *b1 = preset("mfma-cdna1", &bf16);
	uint64_t x[3] = { 0x3F80, 0x3380, 0x3380 }, one[3] = { 0x3F80, 0x3F80, 0x3F80 };
	ck_assert_uint_eq(dot_both(b1, &bf16, x, one, 2, NULL, 0x33800000, &f32), 0x3F800001);
	uint64_t nz[2] = { 0x8000, 0x8000 }, pz[2] = { 0x3F80, 0x8000 };
	ck_assert_uint_eq(dot_both(b1, &bf16, nz, one, 2, NULL, 0x80000000, &f32), 0x80000000);
	ck_assert_uint_eq(dot_both(b1, &bf16, nz, pz, 2, NULL, 0x80000000, &f32), 0);
	uint64_t tie[2] = { 0x3380, 0x0001 }, far[2] = { 0x3F80, 0x0001 }, nfar[2] = { 0x3F80, 0x8001 };
	ck_assert_uint_eq(dot_both(b1, &bf16, tie, far, 2, NULL, 0x3F800000, &f32), 0x3F800001);
	ck_assert_uint_eq(dot_both(b1, &bf16, tie, nfar, 2, NULL, 0x3F800000, &f32), 0x3F800000);
	uint64_t tie16[2] = { 0x0400, 0x0001 }, far16[2] = { 0x3C00, 0x0001 }, nfar16[2] = { 0x3C00, 0x8001 };
	ck_assert_uint_eq(dot_both(c1, &f16, tie16, far16, 2, NULL, 0x44800000, &f32), 0x44800001);
	ck_assert_uint_eq(dot_both(c1, &f16, tie16, nfar16, 2, NULL, 0x44800000, &f32), 0x44800000);
	uint64_t inf[2] = { 0x7F80, 0xFF80 };
	ck_assert_uint_eq(dot_both(b1, &bf16, inf, one, 1, NULL, 0xFF800000, &f32), 0x7FC00000);
	ck_assert_uint_eq(dot_both(b1, &bf16, inf + 1, one, 1, NULL, 0x3F800000, &f32), 0xFF800000);
}
END_TEST

/* kind::f8f6f4 with FP4 operands and FP16 output (the PTX ISA's .f16
 * accumulator for every f8f6f4 type), the FP8 pairs' FP16 rounding, rne.
 * Worked by hand: e2m1 products 2 * 1 (0x4 * 0x2) and 0.5 * 2 (0x1 * 0x4)
 * sum to 3; with C = 2048 (6800), 2051 lies halfway between 2050 (6801,
 * odd) and 2052 (6802): to even, 6802, where truncation would give 6801. */
START_TEST(f8f6f4_fp4_fp16_output)
{
	struct fpref_format e2m1 = test_format("float4_e2m1fn"), f16 = test_format("float16");
	uint64_t a[2] = { 0x4, 0x1 }, b[2] = { 0x2, 0x4 };
	ck_assert_uint_eq(dot_both(preset("tcgen05", &e2m1), &e2m1, a, b, 2, NULL, 0x6800, &f16), 0x6802);
	ck_assert_uint_eq(dot_both(preset("mma-sm120", &e2m1), &e2m1, a, b, 2, NULL, 0x6800, &f16), 0x6802);
}
END_TEST

/* CDNA2's legacy bf16 instructions (v_mfma_f32_*bf16 without _1k):
 * CDNA1's groups of 2 in FP32 arithmetic with CDNA2's flushing.  Worked by
 * hand, bf16 products 1, 2^-24, 2^-25, 2^-25 (3F80, 3380, 3300, 3300
 * times 1) and C = -1: FP32 groups of 2 give 1 + 2^-24 = 1 (a tie, to
 * even), C + 1 = +0, then 2^-25 + 2^-25 = 2^-24 added: 33800000; the _1k
 * group of 4 sums (1 + 2^-24) + 2^-24 = 1 first, so C + 1 = +0:
 * 00000000.  CDNA1's exact groups: -1 + 1 + 2^-24 = 2^-24, then 2^-24 +
 * 2^-25 + 2^-25 = 2^-23: 34000000.  A subnormal bf16 2^-133 (0001) times 2^127 (7F00) is 2^-6
 * (3C800000) on CDNA1, +0 on the legacy row (flushed as CDNA2 reads it). */
START_TEST(cdna2_legacy_bf16)
{
	struct fpref_format bf16 = test_format("bfloat16"), f32 = test_format("float32");
	const struct fpref_tc_model *legacy = preset("mfma-cdna2-legacy", &bf16);
	ck_assert_int_eq(legacy->block, 2);
	ck_assert(legacy->flush && legacy->tree > 0);
	uint64_t a[4] = { 0x3F80, 0x3380, 0x3300, 0x3300 }, one[4] = { 0x3F80, 0x3F80, 0x3F80, 0x3F80 };
	ck_assert_uint_eq(dot_both(legacy, &bf16, a, one, 4, NULL, 0xBF800000, &f32), 0x33800000);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna1", &bf16), &bf16, a, one, 4, NULL, 0xBF800000, &f32), 0x34000000);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna2", &bf16), &bf16, a, one, 4, NULL, 0xBF800000, &f32), 0);
	uint64_t tiny[1] = { 0x0001 }, big[1] = { 0x7F00 };
	ck_assert_uint_eq(dot_both(preset("mfma-cdna1", &bf16), &bf16, tiny, big, 1, NULL, 0, &f32), 0x3C800000);
	ck_assert_uint_eq(dot_both(legacy, &bf16, tiny, big, 1, NULL, 0, &f32), 0);
	/* its instructions' K (2 to 8) never split its group of 2 */
	char err[256];
	struct fpref_tc_model m = *legacy;
	ck_assert_msg(fpref_tc_model_shape(&m, &f32, "32x32x2", err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(m.block, 2);
	ck_assert_int_ne(fpref_tc_model_shape(&m, &f32, "32x32x8", err, sizeof err), 0); /* a _1k shape */
}
END_TEST

/* CDNA4's OCP inputs (mfma-cdna4, the encodings AMD documents for CDNA4;
 * the arithmetic is CDNA3's FP8 row, inferred).  0x80 is -0 in
 * float8_e4m3fn: -0 * 2 (0x40) with C = 1 gives 1 (3F800000), where the
 * FNUZ 0x80 of CDNA3 is NaN; 0x7F is e4m3fn's NaN: NaN (7FC00000); e5m2's
 * 0x7C is +inf: +inf * 1 (0x3C) gives +inf (7F800000).  The largest FP6
 * and FP4 values squared are exact in FP32: e2m1 6 * 6 = 36 (42100000),
 * e2m3 7.5 * 7.5 = 56.25 = 1.7578125 * 2^5 (42610000), e3m2 28 * 28 = 784
 * = 1.53125 * 2^9 (44440000).  The round-down dot-add carried over: the
 * e2m1 product 1 * 1 (0x2) and C = -2^-25 (B3000000), aligned at 0: C's
 * place -25 is not below 0 - 25, so C is floored to 24 fraction bits,
 * -2^-24, and d = 1 - 2^-24 (3F7FFFFF), where one correct rounding of
 * 1 - 2^-25 ties to even, 1 (3F800000); C = -2^-26 (B2800000) lies below
 * 2^-25 and is dropped: d = 1. */
START_TEST(cdna4_ocp_inputs)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), e5m2 = test_format("float8_e5m2"),
			    e2m1 = test_format("float4_e2m1fn"), e2m3 = test_format("float6_e2m3fn"),
			    e3m2 = test_format("float6_e3m2fn"), f32 = test_format("float32");
	uint64_t a[16] = { 0x80 }, b[16] = { 0x40 };
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e4m3), &e4m3, a, b, 16, NULL, 0x3F800000, &f32), 0x3F800000);
	a[0] = 0x7F;
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e4m3), &e4m3, a, b, 16, NULL, 0x3F800000, &f32), 0x7FC00000);
	a[0] = 0x7C;
	b[0] = 0x3C;
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e5m2), &e5m2, a, b, 16, NULL, 0x3F800000, &f32), 0x7F800000);
	a[0] = b[0] = 0x7;
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e2m1), &e2m1, a, b, 16, NULL, 0, &f32), 0x42100000);
	a[0] = b[0] = 0x1F;
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e2m3), &e2m3, a, b, 16, NULL, 0, &f32), 0x42610000);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e3m2), &e3m2, a, b, 16, NULL, 0, &f32), 0x44440000);
	a[0] = b[0] = 0x2;
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e2m1), &e2m1, a, b, 16, NULL, 0xB3000000, &f32), 0x3F7FFFFF);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &e2m1), &e2m1, a, b, 16, NULL, 0xB2800000, &f32), 0x3F800000);
}
END_TEST

/* v_mfma_scale_*: "the scales are applied after the normal dot product and
 * prior to output/accumulation" (AMD), one E8M0 scale per 32.  The e4m3
 * product 1 * 1 (0x38) with scales 2^5 (132) and 1 (127) is a sum of 32,
 * aligned at 5, when C is added: C = -2^-20 (B5800000) is floored to 24
 * fraction bits below 2^5, -2^-19, and d = 32 - 2^-19 (41FFFFFF), where
 * one correct rounding of 32 - 2^-20 ties to even, 32 (42000000); with
 * unit scales the sum 1 aligns at 0, C = -2^-20 is kept exactly and d =
 * 1 - 2^-20 (3F7FFFF0).  C = -2^-21 lies below 2^(5 - 25) and is dropped:
 * d = 32.  A scale per 32, not per instruction: a second product 1 * 1 at
 * k = 32 with scales {1, 2^5} gives 1 + 32 = 33 (42040000), where one
 * scale for all 64 would give 2 (40000000).  A NaN scale (0xFF) gives NaN;
 * scales per 24 products (no multiple of the block) are refused.  With
 * unit scales the preset is mfma-cdna4 (checked on random cases). */
START_TEST(cdna4_scale_before_accumulation)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), e8m0 = test_format("float8_e8m0fnu"),
			    f32 = test_format("float32");
	const struct fpref_tc_model *m = preset("mfma-cdna4-scale", &e4m3), *plain = preset("mfma-cdna4", &e4m3);
	uint64_t a[64] = { 0x38 }, b[64] = { 0x38 }, sa[2] = { 132, 127 }, sb[2] = { 127, 127 };
	struct fpref_tc_scales s = { &e8m0, sa, sb, 32 };
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 32, &s, 0xB5800000, &f32), 0x41FFFFFF);
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 32, &s, 0xB5000000, &f32), 0x42000000);
	sa[0] = 127;
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 32, &s, 0xB5800000, &f32), 0x3F7FFFF0);
	a[32] = b[32] = 0x38;
	sa[1] = 132;
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 64, &s, 0, &f32), 0x42040000);
	sa[1] = 127;
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 64, &s, 0, &f32), 0x40000000);
	sb[1] = 0xFF;
	ck_assert_uint_eq(dot_both(m, &e4m3, a, b, 64, &s, 0, &f32) & 0x7FC00000, 0x7FC00000);
	sb[1] = 127;
	struct fpref_tc_scales bad = { &e8m0, sa, sb, 24 };
	uint64_t d;
	for (int e = 0; e < 2; e++)
		ck_assert_int_eq(engines[e](m, &e4m3, &e4m3, a, b, 64, &bad, 0, &f32, &d), -1);
	uint64_t state = 4, x[64], y[64], unit[4] = { 127, 127, 127, 127 };
	struct fpref_tc_scales ones = { &e8m0, unit, unit, 32 };
	for (int rep = 0; rep < 300; rep++) {
		size_t K = 1 + next_random(&state) % 64;
		uint64_t c = random_case(&e4m3, &f32, &state, K, x, y), d1 = 0, d2 = 1;
		ck_assert_int_eq(fpref_emu_tc_dot_scaled(m, &e4m3, &e4m3, x, y, K, &ones, c, &f32, &d1), 0);
		ck_assert_int_eq(fpref_ref_tc_dot(plain, &e4m3, &e4m3, x, y, K, c, &f32, &d2), 0);
		ck_assert_uint_eq(d1, d2);
	}
}
END_TEST

/* Block scales as fpref dot --scale-a takes them (golden's parser and its
 * scaled model dot) against the oracle: "2^-3, 0x80 ,4,0.5" is E8M0 124,
 * 128, 129, 126 (2^(code - 127)); 3, -2, an empty entry, 2^x and 0x100 are
 * refused; random cases with scales written as patterns agree with
 * fpref_ref_tc_dot_scaled on mfma-cdna4-scale and tcgen05-mxf8f6f4. */
START_TEST(scales_from_text_against_oracle)
{
	struct fpref_format e8m0 = test_format("float8_e8m0fnu"), f32 = test_format("float32");
	uint64_t *codes = NULL;
	size_t n = 0;
	char err[256];
	ck_assert_int_eq(fpref_golden_scales_parse(&e8m0, "2^-3, 0x80 ,4,0.5", &codes, &n, err, sizeof err), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(codes[0], 124);
	ck_assert_uint_eq(codes[1], 128);
	ck_assert_uint_eq(codes[2], 129);
	ck_assert_uint_eq(codes[3], 126);
	free(codes);
	const char *bad[] = { "3", "-2", "1,,2", "2^x", "0x100", "0" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(fpref_golden_scales_parse(&e8m0, bad[i], &codes, &n, err, sizeof err) == -1, "'%s' taken",
			      bad[i]);
	const char *models[2] = { "mfma-cdna4-scale", "tcgen05-mxf8f6f4" }, *inputs[2] = { "float8_e4m3fn", "float4_e2m1fn" };
	uint64_t state = 77;
	for (int rep = 0; rep < 400; rep++) {
		struct fpref_format in = test_format(inputs[rep % 2]);
		struct fpref_accum_model m = { .kind = FPREF_ACCUM_TC, .tc = *preset(models[(rep / 2) % 2], &in) };
		size_t K = 1 + next_random(&state) % 100, chunks = (K + 31) / 32;
		uint64_t a[100], b[100], sa[4], sb[4], *pa = NULL, *pb = NULL, d[2] = { 1, 2 };
		uint64_t c = random_case(&in, &f32, &state, K, a, b);
		char ta[64] = "", tb[64] = "";
		for (size_t j = 0; j < chunks; j++) {
			sa[j] = random_scale(&e8m0, &state);
			sb[j] = random_scale(&e8m0, &state);
			snprintf(ta + strlen(ta), sizeof ta - strlen(ta), "%s0x%02X", j ? "," : "", (unsigned)sa[j]);
			snprintf(tb + strlen(tb), sizeof tb - strlen(tb), "%s0x%02X", j ? "," : "", (unsigned)sb[j]);
		}
		size_t na = 0, nb = 0;
		ck_assert_int_eq(fpref_golden_scales_parse(&e8m0, ta, &pa, &na, err, sizeof err), 0);
		ck_assert_int_eq(fpref_golden_scales_parse(&e8m0, tb, &pb, &nb, err, sizeof err), 0);
		ck_assert_uint_eq(na, chunks);
		struct fpref_tc_scales text = { &e8m0, pa, pb, 32 }, direct = { &e8m0, sa, sb, 32 };
		struct fpref_env env;
		fpref_env_default(&env);
		ck_assert_int_eq(fpref_golden_model_dot_scaled(&m, &in, &in, a, b, K, &text, c, &f32, &env, &d[0]), 0);
		ck_assert_int_eq(fpref_ref_tc_dot_scaled(&m.tc, &in, &in, a, b, K, &direct, c, &f32, &d[1]), 0);
		ck_assert_msg(d[0] == d[1], "%s %s K=%zu: %llx, oracle %llx", m.tc.gpu, in.name, K,
			      (unsigned long long)d[0], (unsigned long long)d[1]);
		free(pa);
		free(pb);
	}
}
END_TEST

/* The a priori bounds of the paths added for these presets (ref/tc_bound.c
 * derives each: the group path's scales, the two-stage dot-add's floors,
 * CDNA1/2's FP32 operations and flushing, block scales, split-K): on
 * random cases, narrow or wide magnitudes (subnormals included), one sign
 * or both, K up to 300, C now and then, with scales where the preset
 * takes them, split-K slices of 64 or 128 and promotion every few blocks,
 * |d - exact| never exceeds the bound (compared exactly; the exact value
 * with its scales summed in MPFR without rounding). */
static const struct {
	const char *model, *input;
} bounded[] = {
	{ "mfma-cdna3", "float16" },       { "mfma-cdna3", "bfloat16" },     { "mfma-cdna3", "tf32" },
	{ "mfma-cdna3", "float8_e4m3fnuz" }, { "mfma-cdna3", "float8_e5m2fnuz" }, { "mfma-cdna4", "float8_e4m3fn" },
	{ "mfma-cdna4", "float4_e2m1fn" }, { "mfma-cdna4", "float6_e3m2fn" }, { "mfma-cdna4-scale", "float8_e5m2" },
	{ "mfma-cdna4-scale", "float6_e2m3fn" }, { "mfma-cdna1", "float16" }, { "mfma-cdna1", "bfloat16" },
	{ "mfma-cdna2", "float16" },       { "mfma-cdna2", "bfloat16" },     { "mfma-cdna2-legacy", "bfloat16" },
	{ "tcgen05-mxf4nvf4", "float4_e2m1fn" },
	{ "tcgen05-mxf8f6f4", "float8_e4m3fn" }, { "tcgen05", "float8_e5m2" }, { "h100-wgmma", "float8_e4m3fn" },
};

START_TEST(new_path_bounds_hold)
{
	struct fpref_format in = test_format(bounded[_i].input), f32 = test_format("float32");
	struct fpref_format e8m0 = test_format("float8_e8m0fnu"), e4m3 = test_format("float8_e4m3fn");
	const struct fpref_tc_model *m = preset(bounded[_i].model, &in);
	bool takes_scales = m->tree == 0 && (strstr(m->gpu, "mx") || strstr(m->gpu, "-scale"));
	uint64_t state = 0xb0d0000u + ((uint64_t)_i << 32);
	unsigned long held = 0, finite = 0;
	double worst = 0;
	mpfr_t bound, exact, term, w, err;
	mpfr_inits2(64, bound, term, w, (mpfr_ptr)0);
	mpfr_inits2(2400, exact, err, (mpfr_ptr)0);
	struct fpref_ref_value x, y, v;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	fpref_ref_value_init(&v);
	for (int rep = 0; rep < 300; rep++) {
		size_t K = 1 + next_random(&state) % 300;
		int top = max_field(&in), mid = in.bias;
		bool wide = rep % 4 == 3, same_sign = rep % 2 == 0;
		int lo = wide ? 0 : (mid - 3 > 0 ? mid - 3 : 0), hi = wide ? top : (mid + 1 < top ? mid + 1 : top);
		uint64_t a[300], b[300], sa[20], sb[20], d = 0;
		uint64_t sign = 1ull << (in.man_bits + in.exp_bits + in.pad_bits);
		for (size_t k = 0; k < K; k++) {
			a[k] = random_input(&in, &state, lo, hi, 0) & (same_sign ? ~sign : ~(uint64_t)0);
			b[k] = random_input(&in, &state, lo, hi, 0) & (same_sign ? ~sign : ~(uint64_t)0);
		}
		uint64_t c = rep % 3 == 0 ? random_input(&f32, &state, 127 - 2, 127 + 4, 0) : 0;
		int mode = rep % 3; /* 0: dot (scaled where the preset takes scales), 1: split-K, 2: promoted */
		struct fpref_tc_scales s = { &e8m0, sa, sb, 32 };
		bool scaled = mode == 0 && takes_scales && rep % 2 == 1;
		if (scaled) {
			if (m->group > 0 && rep % 5 == 0)
				s.format = &e4m3;
			s.every = m->group > 0 && (rep % 3 == 1 || s.format == &e4m3) ? 16 : 32;
			for (size_t j = 0; j <= K / s.every; j++) {
				sa[j] = random_scale(s.format, &state) & 0x7F; /* no NaN scale: it has no bound */
				sb[j] = random_scale(s.format, &state) & 0x7F;
			}
		}
		size_t S = (size_t)(rep % 2 ? 64 : 128), nc = (size_t)(1 + rep % 3) * (size_t)m->block;
		int rc;
		if (mode == 1) {
			ck_assert_int_eq(fpref_emu_tc_dot_splitk(m, &in, &in, a, b, K, S, c, &d), 0);
			rc = fpref_ref_tc_bound_splitk(m, &in, &in, a, b, K, S, c, bound);
		} else if (mode == 2 && m->tree == 0) {
			ck_assert_int_eq(fpref_emu_tc_dot_promoted(m, &in, &in, a, b, K, nc, NULL, NULL, c, &d), 0);
			rc = fpref_ref_tc_bound(m, &in, &in, a, b, K, c, &f32, nc, bound);
		} else {
			ck_assert_int_eq(fpref_emu_tc_dot_scaled(m, &in, &in, a, b, K, scaled ? &s : NULL, c, &f32, &d), 0);
			rc = fpref_ref_tc_bound_scaled(m, &in, &in, a, b, K, scaled ? &s : NULL, c, &f32, 0, bound);
		}
		ck_assert_int_eq(rc, 0);
		held++;
		if (!mpfr_number_p(bound))
			continue; /* may overflow: no finite bound claimed */
		mpfr_set_zero(exact, 1);
		for (size_t k = 0; k < K; k++) {
			ck_assert_int_eq(fpref_ref_from_bits(&in, a[k], false, &x) | fpref_ref_from_bits(&in, b[k], false, &y), 0);
			mpfr_mul(term, x.x, y.x, MPFR_RNDN); /* exact: 22 bits */
			if (scaled) {
				mpfr_set_ui(w, 1, MPFR_RNDN);
				uint64_t both[2] = { sa[k / s.every], sb[k / s.every] };
				for (int j = 0; j < 2; j++) {
					ck_assert_int_eq(fpref_ref_from_bits(s.format, both[j], false, &v), 0);
					mpfr_mul(w, w, v.x, MPFR_RNDN); /* exact: 8 bits */
				}
				mpfr_mul(term, term, w, MPFR_RNDN); /* exact: 30 bits */
			}
			ck_assert_int_eq(mpfr_add(exact, exact, term, MPFR_RNDN), 0);
		}
		ck_assert_int_eq(fpref_ref_from_bits(&f32, c, false, &v), 0);
		ck_assert_int_eq(mpfr_add(exact, exact, v.x, MPFR_RNDN), 0);
		ck_assert_int_eq(fpref_ref_from_bits(&f32, d, false, &v), 0);
		ck_assert_msg(mpfr_number_p(v.x), "%s %s: d = %llx with a finite bound", m->gpu, in.name,
			      (unsigned long long)d);
		ck_assert_int_eq(mpfr_sub(err, v.x, exact, MPFR_RNDN), 0);
		mpfr_abs(err, err, MPFR_RNDN);
		ck_assert_msg(mpfr_cmp(err, bound) <= 0, "%s %s K=%zu mode %d%s: error %g above the bound %g", m->gpu,
			      in.name, K, mode, scaled ? " (scaled)" : "", mpfr_get_d(err, MPFR_RNDU),
			      mpfr_get_d(bound, MPFR_RNDD));
		if (!mpfr_zero_p(bound) && mpfr_get_d(err, MPFR_RNDN) / mpfr_get_d(bound, MPFR_RNDN) > worst)
			worst = mpfr_get_d(err, MPFR_RNDN) / mpfr_get_d(bound, MPFR_RNDN);
		finite++;
	}
	printf("%-18s %-16s bound held on %lu of %lu cases (finite); error/bound max %.3g\n", m->gpu, in.name, finite,
	       held, worst);
	ck_assert_uint_gt(finite, 200);
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	fpref_ref_value_clear(&v);
	mpfr_clears(bound, exact, term, w, err, (mpfr_ptr)0);
}
END_TEST

/* cuBLASLt's split-K order: emulator against oracle on random FP8 and FP16
 * cases (slices of 128 and 64, the granularities the issue cites), and
 * worked by hand: two slices of 32 each summing to 1 (a single product
 * 1 * 1), C = 2^24: split-K adds the slices first (2) and then C:
 * 2^24 + 2 (4B800001); promotion every 32 adds each slice to C in turn,
 * and 2^24 + 1 ties to even twice: 2^24 (4B800000). */
START_TEST(cublaslt_splitk)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), f16 = test_format("float16"), f32 = test_format("float32");
	uint64_t a[64] = { 0 }, b[64] = { 0 }, d[2];
	a[0] = b[0] = a[32] = b[32] = 0x38;
	const struct fpref_tc_model *wg = preset("h100-wgmma", &e4m3);
	ck_assert_int_eq(fpref_emu_tc_dot_splitk(wg, &e4m3, &e4m3, a, b, 64, 32, 0x4B800000, &d[0]), 0);
	ck_assert_int_eq(fpref_ref_tc_dot_splitk(wg, &e4m3, &e4m3, a, b, 64, 32, 0x4B800000, &d[1]), 0);
	ck_assert_uint_eq(d[0], 0x4B800001);
	ck_assert_uint_eq(d[1], 0x4B800001);
	ck_assert_int_eq(fpref_emu_tc_dot_promoted(wg, &e4m3, &e4m3, a, b, 64, 32, NULL, NULL, 0x4B800000, &d[0]), 0);
	ck_assert_uint_eq(d[0], 0x4B800000);
	uint64_t state = 99, x[600], y[600];
	const struct fpref_format *ins[2] = { &e4m3, &f16 };
	for (int rep = 0; rep < 400; rep++) {
		const struct fpref_format *in = ins[rep % 2];
		const struct fpref_tc_model *m = preset(rep % 4 < 2 ? "h100-wgmma" : "tcgen05", in);
		size_t K = 1 + next_random(&state) % 600, S = in == &e4m3 ? 128 : 64;
		for (size_t k = 0; k < K; k++) {
			x[k] = random_input(in, &state, 0, max_field(in), 97);
			y[k] = random_input(in, &state, 0, max_field(in), 97);
		}
		uint64_t c = random_input(&f32, &state, 100, 150, 50);
		ck_assert_int_eq(fpref_emu_tc_dot_splitk(m, in, in, x, y, K, S, c, &d[0]), 0);
		ck_assert_int_eq(fpref_ref_tc_dot_splitk(m, in, in, x, y, K, S, c, &d[1]), 0);
		ck_assert_msg(d[0] == d[1], "%s %s K=%zu: emulator %llx, oracle %llx", m->gpu, in->name, K,
			      (unsigned long long)d[0], (unsigned long long)d[1]);
	}
	ck_assert_int_eq(fpref_emu_tc_dot_splitk(preset("h100-mma", &e4m3), &e4m3, &e4m3, a, b, 64, 32, 0, &d[0]), -1);
}
END_TEST

/* The chips' names stand for their instruction presets (CDNA4's inferred
 * ones too: docs/accumulation.md). */
START_TEST(chip_aliases)
{
	struct fpref_format e4m3 = test_format("float8_e4m3fn"), f16 = test_format("float16"),
			    e2m1 = test_format("float4_e2m1fn");
	ck_assert_ptr_eq(fpref_tc_model_find("b200", &e4m3), fpref_tc_model_find("tcgen05", &e4m3));
	ck_assert_ptr_eq(fpref_tc_model_find("gb200", &f16), fpref_tc_model_find("tcgen05", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("rtx-pro-6000", &e4m3), fpref_tc_model_find("mma-sm120", &e4m3));
	ck_assert_ptr_eq(fpref_tc_model_find("mi300x", &f16), fpref_tc_model_find("mfma-cdna3", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("mi100", &f16), fpref_tc_model_find("mfma-cdna1", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("mi250", &f16), fpref_tc_model_find("mfma-cdna2", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("tcgen05-mxf4", &e2m1), fpref_tc_model_find("tcgen05-mxf4nvf4", &e2m1));
	ck_assert_ptr_eq(fpref_tc_model_find("mi355x", &e4m3), fpref_tc_model_find("mfma-cdna4", &e4m3));
	ck_assert_ptr_eq(fpref_tc_model_find("mi350x", &e2m1), fpref_tc_model_find("mfma-cdna4", &e2m1));
	ck_assert_ptr_nonnull(fpref_tc_model_find("mi355x", &e2m1));
	ck_assert_ptr_null(fpref_tc_model_find("mi300x", &e4m3)); /* CDNA3 takes FNUZ FP8, not OCP */
	/* Hopper, Ada, GA100 and GV100 parts by name, and names in any case */
	ck_assert_ptr_eq(fpref_tc_model_find("h200", &e4m3), fpref_tc_model_find("h100", &e4m3));
	ck_assert_ptr_eq(fpref_tc_model_find("GH200", &f16), fpref_tc_model_find("h100", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("H100", &f16), fpref_tc_model_find("h100", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("L40S", &e4m3), fpref_tc_model_find("ada", &e4m3));
	ck_assert_ptr_eq(fpref_tc_model_find("rtx-4090", &f16), fpref_tc_model_find("ada", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("a800", &f16), fpref_tc_model_find("a100", &f16));
	ck_assert_ptr_eq(fpref_tc_model_find("Tcgen05-MXF4", &e2m1), fpref_tc_model_find("tcgen05-mxf4nvf4", &e2m1));
	ck_assert_ptr_nonnull(fpref_tc_model_find("h200", &e4m3));
	ck_assert_ptr_null(fpref_tc_model_find("h2000", &f16));
	ck_assert_ptr_null(fpref_tc_model_find("h10", &f16));
	enum fpref_sum_order order;
	ck_assert_int_eq(fpref_sum_order_parse("Kahan", &order), 0);
	ck_assert_int_eq(order, FPREF_SUM_KAHAN);
	ck_assert_int_eq(fpref_sum_order_parse("kahan2", &order), -1);
	struct fpref_format fnuz = test_format("float8_e4m3fnuz");
	ck_assert_ptr_null(fpref_tc_model_find("mi355x", &fnuz)); /* CDNA4 takes OCP FP8, not FNUZ */
	const char *target;
	for (size_t i = 0; fpref_tc_model_alias_at(i, &target); i++)
		ck_assert_str_ne(fpref_tc_model_alias(fpref_tc_model_alias_at(i, &target)), fpref_tc_model_alias_at(i, &target));
	/* scales the model does not take are refused by both engines */
	struct fpref_format e8m0 = test_format("float8_e8m0fnu"), f32 = test_format("float32");
	uint64_t a[64] = { 0 }, s1[4] = { 127, 127, 127, 127 }, d;
	struct fpref_tc_scales bad = { &e8m0, s1, s1, 24 }, ue4m3 = { &e4m3, s1, s1, 32 };
	const struct fpref_tc_model *mx8 = preset("tcgen05-mxf8f6f4", &e4m3);
	for (int e = 0; e < 2; e++) {
		ck_assert_int_eq(engines[e](mx8, &e4m3, &e4m3, a, a, 32, &bad, 0, &f32, &d), -1);
		ck_assert_int_eq(engines[e](mx8, &e4m3, &e4m3, a, a, 32, &ue4m3, 0, &f32, &d), -1);
	}
}
END_TEST

/* CDNA3's zero sign (issue 37, Z2): a0 = bf16 8001 (-2^-133) times b0 =
 * 3080 (2^-30), the rest zero, C = +0, K = 8: the sum -2^-163 is floored to
 * 31 bits below its own exponent (exact) and rounds to nearest even in
 * FP32 to zero: IEEE's sign, -0 (80000000), as the model validated on CDNA3
 * gives it; fpref's rows forced +0 before.  An exact cancellation (x plus
 * -x) is +0 under rne. */
START_TEST(cdna3_zero_sign)
{
	struct fpref_format bf16 = test_format("bfloat16"), f32 = test_format("float32");
	uint64_t a[8] = { 0x8001 }, b[8] = { 0x3080 };
	ck_assert_uint_eq(dot_both(preset("mfma-cdna3", &bf16), &bf16, a, b, 8, NULL, 0, &f32), 0x80000000);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &bf16), &bf16, a, b, 8, NULL, 0, &f32), 0x80000000);
	uint64_t x[8] = { 0x3F80, 0xBF80 }, y[8] = { 0x3F80, 0x3F80 };
	ck_assert_uint_eq(dot_both(preset("mfma-cdna3", &bf16), &bf16, x, y, 8, NULL, 0, &f32), 0x00000000);
}
END_TEST

/* Issue 37, class O1: CDNA3's bf16 and xf32 multipliers give a product of
 * 2^128 or more as an infinity before the sum.  The examples with
 * the independent model's answers (Xie et al., validated on CDNA3): 2^128
 * - 2^128 is NaN, not 0; 2^128 plus C = -2^127 is inf, not 2^127.  Beside
 * them, worked by hand: a product just below 2^128 (bf16 5F7F x 5F80 =
 * 1.9921875 x 2^127) stays finite, and with C = -max (FF7FFFFF) the exact
 * sum -(2^120 - 2^104) = -(2^16 - 1) x 2^104 is an FP32: FB7FFF00.  The
 * same row without the field gives the exact sums' answers (0, 7F000000).
 * Then products near 2^128 at random, the emulator's GEMM (its tile
 * kernel's slow lanes) against the dot products of both engines. */
START_TEST(cdna3_product_overflow)
{
	struct fpref_format bf16 = test_format("bfloat16"), tf32 = test_format("tf32"), f32 = test_format("float32");
	const struct fpref_tc_model *cdna3 = preset("mfma-cdna3", &bf16);
	uint64_t a[8] = { 0x7180, 0x7180 }, b[8] = { 0x7180, 0xF180 };
	uint64_t x[8] = { 0x5F80 }, y[8] = { 0x5F80 }, below[8] = { 0x5F7F };
	ck_assert_uint_eq(dot_both(cdna3, &bf16, a, b, 8, NULL, 0, &f32), 0x7FC00000);
	ck_assert_uint_eq(dot_both(cdna3, &bf16, x, y, 8, NULL, 0xFF000000, &f32), 0x7F800000);
	ck_assert_uint_eq(dot_both(cdna3, &bf16, below, y, 8, NULL, 0xFF7FFFFF, &f32), 0xFB7FFF00);
	ck_assert_uint_eq(dot_both(preset("mfma-cdna4", &bf16), &bf16, a, b, 8, NULL, 0, &f32), 0x7FC00000);
	uint64_t tx[4] = { 0x5F800000 }, ty[4] = { 0xDF800000 };
	ck_assert_uint_eq(dot_both(preset("mfma-cdna3", &tf32), &tf32, tx, ty, 4, NULL, 0x7F000000, &f32), 0xFF800000);
	struct fpref_tc_model exact_products = *cdna3;
	exact_products.product_inf = false;
	ck_assert_uint_eq(dot_both(&exact_products, &bf16, a, b, 8, NULL, 0, &f32), 0x00000000);
	ck_assert_uint_eq(dot_both(&exact_products, &bf16, x, y, 8, NULL, 0xFF000000, &f32), 0x7F000000);

	enum { M = 3, N = 19, K = 24 };
	uint64_t A[M * K], B[K * N], C[M * N], D[M * N], state = 0x0f10f10full;
	unsigned infinite = 0;
	for (int rep = 0; rep < 40; rep++) {
		for (size_t i = 0; i < M * K; i++) /* exponents 2^60..2^67: products about 2^120..2^135 */
			A[i] = (next_random(&state) & 0x807F) | (uint64_t)(187 + next_random(&state) % 8) << 7;
		for (size_t i = 0; i < K * N; i++) /* now and then as large, else near 1 */
			B[i] = (next_random(&state) & 0x807F) |
			       (uint64_t)(next_random(&state) % 20 ? 124 + next_random(&state) % 8 : 187 + next_random(&state) % 8) << 7;
		for (size_t i = 0; i < M * N; i++)
			C[i] = next_random(&state) % 8 ? random_input(&f32, &state, 0, 254, 200) : 0x7F800000 | (next_random(&state) & 0x80000000);
		ck_assert_int_eq(fpref_emu_tc_gemm(cdna3, &bf16, &bf16, &f32, M, N, K, A, B, C, 0, D), 0);
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < N; j++) {
				uint64_t col[K];
				for (size_t k = 0; k < K; k++)
					col[k] = B[k * N + j];
				uint64_t d = dot_both(cdna3, &bf16, A + i * K, col, K, NULL, C[i * N + j], &f32);
				ck_assert_msg(D[i * N + j] == d, "GEMM (%zu, %zu): %llx, dot %llx", i, j,
					      (unsigned long long)D[i * N + j], (unsigned long long)d);
				infinite += (d & 0x7F800000) == 0x7F800000;
			}
	}
	printf("mfma-cdna3 bfloat16: products near 2^128, GEMM = dot on both engines: %u of %d results infinite\n",
	       infinite, 40 * M * N);
	/* the cases reach both sides of 2^128 */
	ck_assert_uint_gt(infinite, 40 * M * N / 8);
	ck_assert_uint_lt(infinite, 40 * M * N * 7 / 8);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("Blackwell and CDNA3 presets");
	TCase *tc = tcase_create("presets");
	tcase_add_loop_test(tc, preset_against_oracle, 0, (int)(sizeof presets / sizeof presets[0]));
	tcase_add_test(tc, accumulator_35_bits);
	tcase_add_test(tc, scale_per_group_of_16);
	tcase_add_test(tc, fp8_25_bits);
	tcase_add_test(tc, no_floor);
	tcase_add_test(tc, fnuz_nan);
	tcase_add_test(tc, round_down_dot_add);
	tcase_add_test(tc, cdna12_pairwise_and_flush);
	tcase_add_test(tc, cdna1_fused_groups);
	tcase_add_test(tc, f8f6f4_fp4_fp16_output);
	tcase_add_test(tc, cdna2_legacy_bf16);
	tcase_add_test(tc, cdna4_ocp_inputs);
	tcase_add_test(tc, cdna4_scale_before_accumulation);
	tcase_add_test(tc, scales_from_text_against_oracle);
	tcase_add_loop_test(tc, new_path_bounds_hold, 0, (int)(sizeof bounded / sizeof bounded[0]));
	tcase_add_test(tc, cublaslt_splitk);
	tcase_add_test(tc, chip_aliases);
	tcase_add_test(tc, cdna3_zero_sign);
	tcase_add_test(tc, cdna3_product_overflow);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return test_run(s);
}
