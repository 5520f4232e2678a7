/* The NVFP4 recipe family: Transformer Engine, torchao, ModelOpt and Four
 * Over Six, with and without the random Hadamard transform.  The emulator's
 * recipe rows against the oracle's recipes written out in MPFR, bit for bit
 * (codes, block scales, tensor scale, dequantised values) on structured and
 * seeded random tensors; then inputs on which the stacks differ, with each
 * recipe's answer worked by hand from its source's formula
 * (docs/scaling-mx.md: the FP32 steps are listed there with their values). */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_ref_scale_mx.h"

#define F32_NAN 0x7FC00000u
#define F32_ONE 0x3F800000u

static uint32_t f32(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

/* The oracle's spelling of the emulator's parameters. */
static struct fpref_ref_nvfp4 ref_params(const struct fpref_nvfp4_params *p)
{
	struct fpref_ref_nvfp4 r = { fpref_emu_nvfp4_recipe_name(p->recipe), p->two_d, p->stochastic, p->seed,
				     fpref_emu_nvfp4_choice_name(p->choice), p->scale_bound, p->rht, p->rht_bf16,
				     p->rht_signs, p->philox, p->philox_offset, p->philox_thread, p->philox_rounds,
				     p->torch_bf16 };
	return r;
}

static void check_case(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
		       const char *what)
{
	size_t n = rows * cols, ns = fpref_emu_nvfp4_scale_count(p, rows, cols);
	uint8_t *ce = malloc(n + 1), *cr = malloc(n + 1), *se = malloc(ns + 1), *sr = malloc(ns + 1);
	uint32_t *de = malloc(4 * n + 4), *dr = malloc(4 * n + 4), te = 0, tr = 0;
	ck_assert(ce && cr && se && sr && de && dr);
	struct fpref_ref_nvfp4 rp = ref_params(p);
	char err[256] = "", name[96];
	snprintf(name, sizeof name, "%s %s%s%s%s %s/%u", what, rp.recipe, p->two_d ? " 2d" : "", p->stochastic ? " sr" : "",
		 p->rht ? (p->rht_bf16 ? " rht-bf16" : " rht") : "", rp.choice, p->scale_bound);
	ck_assert_msg(fpref_emu_nvfp4_quantize(p, x, rows, cols, ce, se, &te, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_nvfp4_recipe_quantize(&rp, x, rows, cols, cr, sr, &tr, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(te == tr, "%s: tensor scale emu 0x%08X ref 0x%08X", name, te, tr);
	for (size_t b = 0; b < ns; b++)
		ck_assert_msg(se[b] == sr[b], "%s: scale %zu emu 0x%02X ref 0x%02X", name, b, se[b], sr[b]);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ce[i] == cr[i], "%s: element %zu (x 0x%08X) emu 0x%X ref 0x%X", name, i, x[i], ce[i], cr[i]);
	ck_assert_msg(fpref_emu_nvfp4_dequantize(p, ce, se, te, rows, cols, de, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_nvfp4_recipe_dequantize(&rp, ce, se, te, rows, cols, dr, err, sizeof err) == 0, "%s",
		      err);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(de[i] == dr[i], "%s: dequantised %zu emu 0x%08X ref 0x%08X", name, i, de[i], dr[i]);
	free(ce), free(cr), free(se), free(sr), free(de), free(dr);
}

#define TE FPREF_NVFP4_TE
#define TA FPREF_NVFP4_TORCHAO
#define MO FPREF_NVFP4_MODELOPT
#define FOS FPREF_NVFP4_FOUR_OVER_SIX

/* Every recipe, and the options each has. */
static const struct fpref_nvfp4_params configs[] = {
	{ .recipe = TE },
	{ .recipe = TE, .two_d = true },
	{ .recipe = TE, .stochastic = true, .seed = 99 },
	{ .recipe = TE, .stochastic = true, .seed = 1234, .philox = true, .philox_offset = 5, .philox_thread = 3 },
	{ .recipe = TE, .stochastic = true, .seed = 7, .philox = true, .philox_thread = 1, .philox_rounds = 3,
	  .two_d = true },
	{ .recipe = TE, .rht = true, .rht_signs = FPREF_NVFP4_TE_RHT_SIGNS, .rht_bf16 = true },
	{ .recipe = TE, .rht = true, .rht_signs = 0x1234, .two_d = true },
	{ .recipe = TA },
	{ .recipe = MO },
	{ .recipe = TA, .torch_bf16 = true },
	{ .recipe = MO, .torch_bf16 = true },
	{ .recipe = FPREF_NVFP4_TORCHAO_02A1BC44 },
	{ .recipe = FPREF_NVFP4_TORCHAO_1LEVEL },
	{ .recipe = FPREF_NVFP4_MODELOPT_0AD6E5F0 },
	{ .recipe = FOS, .choice = FPREF_NVFP4_ABS_MAX, .scale_bound = 256 },
	{ .recipe = FOS, .choice = FPREF_NVFP4_MAE, .scale_bound = 256 },
	{ .recipe = FOS, .choice = FPREF_NVFP4_MSE, .scale_bound = 256 },
	{ .recipe = FOS, .choice = FPREF_NVFP4_MSE, .scale_bound = 448 },
	{ .recipe = FOS, .choice = FPREF_NVFP4_ABS_MAX, .scale_bound = 448, .two_d = true },
	{ .recipe = FOS, .choice = FPREF_NVFP4_MAE, .rht = true, .rht_signs = FPREF_NVFP4_TE_RHT_SIGNS, .rht_bf16 = true },
};

static void check_all(const uint32_t *x, size_t rows, size_t cols, const char *what)
{
	for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
		if (!configs[c].rht || cols % 16 == 0)
			check_case(&configs[c], x, rows, cols, what);
}

/* Seeded tensors: blocks at a random binade with a random spread (so that
 * block scales fall subnormal, saturate or hit E4M3 ties), a few specials. */
static void fill(uint32_t *x, size_t n, uint64_t seed, bool specials)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = fpref_sr_stream(seed, i), blk = fpref_sr_stream(seed + 1, i / 16);
		int e = (int)(blk % 200) - 100 - (int)((r >> 8) % (1 + (blk >> 8) % 24));
		uint32_t sign = (uint32_t)(r >> 63) << 31, mant = (uint32_t)(r >> 30) & 0x7FFFFFu;
		if ((blk >> 16) % 3 == 0)
			mant &= 0x700000u; /* few bits: exact E2M1 ties */
		x[i] = e < -126 ? sign | (mant >> 3) : sign | (uint32_t)(e + 127) << 23 | mant;
		if (specials && (r >> 40) % 97 == 0)
			x[i] = (r >> 48) % 3 == 0 ? 0x7F800000u | sign : (r >> 48) % 3 == 1 ? F32_NAN | sign : sign;
	}
}

START_TEST(recipes_random)
{
	enum { ROWS = 24, COLS = 48 };
	static uint32_t x[ROWS * COLS];
	unsigned stride = test_sample_stride();
	for (uint64_t seed = 1; seed <= 4; seed++) {
		if (!test_sample_keep(stride > 1 ? 2 : 1, seed))
			continue;
		fill(x, ROWS * COLS, seed, seed % 2 == 0);
		check_all(x, ROWS, COLS, "random");
	}
}
END_TEST

START_TEST(recipes_structured)
{
	/* a tensor scale near each edge: all zero, FP32 subnormals, FLT_MAX, a block of zeros,
	 * short blocks (cols 20), values on E2M1 ties */
	uint32_t t[5][32];
	for (int c = 0; c < 32; c++) {
		t[0][c] = c % 2 ? 0x80000000u : 0;
		t[1][c] = (uint32_t)c * 3u;
		t[2][c] = c == 5 ? 0x7F7FFFFFu : f32((float)c * 1e30f);
		t[3][c] = c < 16 ? f32((float)(c - 8) * 0.75f) : 0;
		t[4][c] = f32((float)((c % 8) * 2 + 1) * 0.25f) | (c % 3 ? 0 : 0x80000000u);
	}
	check_all(&t[0][0], 1, 32, "zero");
	check_all(&t[1][0], 1, 32, "subnormal");
	check_all(&t[2][0], 1, 32, "huge");
	check_all(&t[3][0], 1, 32, "zero block");
	check_all(&t[4][0], 1, 32, "ties");
	check_all(&t[4][0], 1, 20, "short");
	check_all(&t[0][0], 5, 32, "mixed");
}
END_TEST

/* ---- inputs on which the stacks differ, each recipe's answer by hand ---- */

static void quantize(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t cols, uint8_t *c, uint8_t *s,
		     uint32_t *T)
{
	char err[256];
	ck_assert_msg(fpref_emu_nvfp4_quantize(p, x, 1, cols, c, s, T, err, sizeof err) == 0, "%s", err);
	check_case(p, x, 1, cols, "example");
}

/* Two blocks: {g, 0...} and {m, fl(0.77 m), fl(-0.3 m), 0...}. */
static void two_blocks(uint32_t g, uint32_t m, uint32_t *x)
{
	memset(x, 0, 32 * sizeof *x);
	float mf;
	memcpy(&mf, &m, sizeof mf);
	x[0] = g;
	x[16] = m;
	x[17] = f32(mf * 0.77f);
	x[18] = f32(mf * -0.3f);
}

static void expect_block1(enum fpref_nvfp4_recipe r, const uint32_t *x, uint32_t T, uint8_t scale, uint8_t c18)
{
	struct fpref_nvfp4_params p = { .recipe = r };
	uint8_t c[32], s[2];
	uint32_t t;
	quantize(&p, x, 32, c, s, &t);
	ck_assert_msg(t == T && s[0] == 0x7E && s[1] == scale, "%s: T 0x%08X scales 0x%02X 0x%02X",
		      fpref_emu_nvfp4_recipe_name(r), t, s[0], s[1]);
	ck_assert_msg(c[0] == 0x7 && c[16] == 0x7 && c[17] == 0x6 && c[18] == c18, "%s: codes %X %X %X %X",
		      fpref_emu_nvfp4_recipe_name(r), c[0], c[16], c[17], c[18]);
}

/* Two inputs near an E4M3 tie, each recipe's block 1 (tensor scale, scale,
 * code of the third element):
 * - g = 0x3FC76F07, m = 0x3F4E8E6B: 448 m / g = 231.99999 lies just below
 *   the tie 232 (224 | 240).  TE: S = fl(2688 / g) = 0x44D7A68F, S *
 *   fl(1/6) = 0x438FC460, m * that = 232.000015 (above the tie): 240, 0x77.
 *   torchao: D = fl(g / 2688) = 0x3A17F312, fl(m / 6) / D = 231.99997: 224,
 *   0x76.  ModelOpt: m / fl(6 D) = 231.99997: 224.  The third element
 *   -0.24206 then lands on -1.5 (TE, 0xB) or -2 (the others, 0xC).
 * - g = 0x3FD68DB9, m = 0x3E5E375B: 448 m / g = 57.9999999, below the tie
 *   58 (56 | 60).  TE: m * fl(S * fl(1/6)) = 58.0 exactly, ties to even: 56
 *   (0x66).  torchao: fl(m / 6) / D = 58.0: 56.  ModelOpt: fl(6 D) =
 *   0.0037415177, m / that = 58.0000038: 60 (0x67), and the third element
 *   goes to -1.5 (0xB) where the others give -2 (0xC). */
START_TEST(recipes_differ_near_ties)
{
	static const struct {
		uint32_t g, m;
		struct { uint32_t T; uint8_t scale, code; } te, torchao, modelopt;
	} cases[] = {
		{ 0x3FC76F07u, 0x3F4E8E6Bu, { 0x44D7A68Fu, 0x77, 0xB }, { 0x3A17F312u, 0x76, 0xC }, { 0x3A17F312u, 0x76, 0xC } },
		{ 0x3FD68DB9u, 0x3E5E375Bu, { 0x44C87412u, 0x66, 0xC }, { 0x3A23782Bu, 0x66, 0xC }, { 0x3A23782Bu, 0x67, 0xB } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t x[32];
		two_blocks(cases[i].g, cases[i].m, x);
		expect_block1(TE, x, cases[i].te.T, cases[i].te.scale, cases[i].te.code);
		expect_block1(TA, x, cases[i].torchao.T, cases[i].torchao.scale, cases[i].torchao.code);
		expect_block1(MO, x, cases[i].modelopt.T, cases[i].modelopt.scale, cases[i].modelopt.code);
	}
}
END_TEST

/* {2688, -0, 0...} | {0 x 16}: amax 2688, S = 1 (TE), D = 1 (the others);
 * block 0's scale is 448 everywhere.  The zero block: TE e4m3(0) = 0x00;
 * torchao clamps 0 to 2^-6 (0x08); ModelOpt turns 0 into 1 (0x38).  The
 * -0: TE and torchao keep its sign (0x8), ModelOpt's sign (x < 0) drops it. */
START_TEST(zero_block_and_minus_zero)
{
	uint32_t x[32] = { f32(2688.0f), 0x80000000u };
	static const uint8_t zero_scale[3] = { 0x00, 0x08, 0x38 }, minus_zero[3] = { 0x8, 0x8, 0x0 };
	for (int r = TE; r <= MO; r++) {
		struct fpref_nvfp4_params p = { .recipe = (enum fpref_nvfp4_recipe)r };
		uint8_t c[32], s[2];
		uint32_t T;
		quantize(&p, x, 32, c, s, &T);
		ck_assert_int_eq(T, F32_ONE);
		ck_assert_int_eq(s[0], 0x7E);
		ck_assert_int_eq(s[1], zero_scale[r]);
		ck_assert_int_eq(c[0], 0x7);
		ck_assert_int_eq(c[1], minus_zero[r]);
		ck_assert_int_eq(c[16], 0x0);
	}
}
END_TEST

/* An all-zero tensor: TE takes S = 1 and gives zero scales and zeros back.
 * torchao (at 02a1bc44, NaN signs not modelled): D = 0, (0 / 6) / 0 = NaN,
 * which the clamp keeps: scale 0x7F and every value NaN.  ModelOpt (at
 * 0ad6e5f0): 0 / (6 * 0) = NaN (not 0, so not made 1): 0x7F, NaN.  A NaN
 * element: TE's amax passes over it; torch.amax takes it, so torchao's and
 * ModelOpt's D and every scale are NaN. */
START_TEST(zero_tensor_and_nan)
{
	uint32_t z[16] = { 0 }, nan[32] = { f32(2688.0f), F32_NAN }, d[32], T;
	uint8_t c[32], s[2];
	char err[128];
	static const enum fpref_nvfp4_recipe recipes[] = { TE, FPREF_NVFP4_TORCHAO_02A1BC44, FPREF_NVFP4_MODELOPT_0AD6E5F0 };
	for (size_t k = 0; k < 3; k++) {
		enum fpref_nvfp4_recipe r = recipes[k];
		struct fpref_nvfp4_params p = { .recipe = r };
		quantize(&p, z, 16, c, s, &T);
		ck_assert_int_eq(s[0], r == TE ? 0x00 : 0x7F);
		ck_assert(fpref_emu_nvfp4_dequantize(&p, c, s, T, 1, 16, d, err, sizeof err) == 0);
		ck_assert_int_eq(d[3], r == TE ? 0 : F32_NAN);
		nan[16] = F32_ONE;
		quantize(&p, nan, 32, c, s, &T);
		ck_assert_int_eq(s[0], r == TE ? 0x7E : 0x7F);
		ck_assert_int_eq(s[1], r == TE ? 0x23 : 0x7F); /* TE: e4m3(1 * fl(1/6)) = 0.171875 */
	}
}
END_TEST

/* The same tensors under the current releases, whose FP32 steps run on x86
 * (crosscheck-torchao found the NaN signs): an invalid operation gives the
 * negative default NaN 0xFFC00000, a NaN operand passes its own on, and
 * torch.max of a tensor holding a NaN gives 0xFFFFFFFF (ModelOpt's
 * torch.maximum of the 0-d |max| and |min| gives the default NaN 0x7FC00000).
 * - All zero: torchao (0 / 6) / 0 and ModelOpt 0 / (6 * 0) are 0 / 0, the
 *   default NaN, which neither the clamp nor ModelOpt's "== 0" changes:
 *   E4M3 0xFF (negative NaN).
 * - {2688, NaN, 0...} | {1, 0...}: torchao D = 0xFFFFFFFF / 2688 keeps
 *   that NaN.  Block 0's amax is torch.amax of |x|, +NaN 0x7FC00000, and
 *   (+NaN / 6) / D passes on the first NaN: 0x7F.  Block 1: (1 / 6) / D is
 *   D's negative NaN: 0xFF.  ModelOpt: D = 0x7FC00000 / 2688, positive;
 *   two blocks lie in the scalar tail of torch.maximum (below 16 lanes), so
 *   block 0's amax is 0x7FC00000 too: both blocks 0x7F. */
START_TEST(x86_nan_signs)
{
	uint32_t z[16] = { 0 }, nan[32] = { f32(2688.0f), F32_NAN }, T;
	uint8_t c[32], s[2];
	nan[16] = F32_ONE;
	static const struct { enum fpref_nvfp4_recipe r; uint8_t zero, s0, s1; uint32_t T; } want[] = {
		{ TA, 0xFF, 0x7F, 0xFF, 0xFFFFFFFFu },
		/* single level: 0 / 6 clamps to 2^-6 (0x08); 1 / 6 = 1.333 * 2^-3 rounds to 1.375 * 2^-3 (0x23) */
		{ FPREF_NVFP4_TORCHAO_1LEVEL, 0x08, 0x7F, 0x23, F32_ONE },
		{ MO, 0xFF, 0x7F, 0x7F, 0x7FC00000u },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		struct fpref_nvfp4_params p = { .recipe = want[k].r };
		quantize(&p, z, 16, c, s, &T);
		ck_assert_msg(s[0] == want[k].zero, "%s zero: 0x%02X", fpref_emu_nvfp4_recipe_name(p.recipe), s[0]);
		quantize(&p, nan, 32, c, s, &T);
		ck_assert_msg(s[0] == want[k].s0 && s[1] == want[k].s1 && T == want[k].T, "%s NaN: 0x%02X 0x%02X T 0x%08X",
			      fpref_emu_nvfp4_recipe_name(p.recipe), s[0], s[1], T);
	}
}
END_TEST

/* torchao 0.18's codes where its element factor fl(fl(1/D) / s_b) or the
 * product is NaN, worked by hand and given byte for byte by torchao itself
 * (torch 2.15 on the CPU).  Every element of such a block becomes the
 * factor's NaN (x * NaN is the factor's NaN, a NaN x included); 0 * inf is
 * x86's default NaN 0xFFC00000.  torch reads an E4M3 NaN scale as
 * 0x7FF00000 with its sign.  torchao's FP4 cast rounds a NaN's bit pattern
 * as a number 2^128 (1.f): 0x7FC00000 is 1.1b, code (129 << 1) + 1 = 0x103,
 * kept 3; 0x7FF00000 and 0xFFFFFFFF round up to 2 * 2^128, (130 << 1) =
 * 0x104, kept 4; a negative NaN adds the sign: B, C.
 * - 48 elements, a NaN in block 0 (torch_nan_lanes' x with 2 in blocks 1
 *   and 2), two levels: D = 0xFFFFFFFF (torch.max), 1/D passes it on: every
 *   code C.  With torch_bf16, D = 0x7FC00000: every code 3.  One level: block
 *   0's scale 7F reads 0x7FF00000, 1 / it: code 4.
 * - 32 zeros, two levels: D = 0, 0 / 0 is 0xFFC00000, scales FF (0xFFF00000):
 *   inf / it is it, code C.
 * - {0x10, 0, -0, 0x1, 0 x 12} and 16 zeros, two levels: D = 0 (2^-145 /
 *   2688 underflows); block 0's scale clamps inf to 448 (7E), 1/D / 448 is
 *   inf: 0x10 and 0x1 give inf, 6 (7); 0 and -0 give 0 * inf, 0xFFC00000
 *   (B).  Block 1 as the zeros above (C). */
START_TEST(torchao_nan_codes)
{
	uint32_t x[48], T;
	uint8_t c[48], s[3];
	for (int i = 0; i < 48; i++)
		x[i] = 0x40000000u;
	x[0] = F32_NAN;
	x[1] = 0xBF800000u;
	static const struct { bool two, bf16; uint8_t s0, code0; } nan_cases[] = {
		{ true, false, 0x7F, 0xC }, { true, true, 0x7F, 0x3 }, { false, false, 0x7F, 0x4 }, { false, true, 0x7F, 0x4 },
	};
	for (size_t k = 0; k < sizeof nan_cases / sizeof nan_cases[0]; k++) {
		struct fpref_nvfp4_params p = { .recipe = nan_cases[k].two ? TA : FPREF_NVFP4_TORCHAO_1LEVEL,
						.torch_bf16 = nan_cases[k].bf16 };
		quantize(&p, x, 48, c, s, &T);
		ck_assert_uint_eq(s[0], nan_cases[k].s0);
		for (int i = 0; i < (nan_cases[k].two ? 48 : 16); i++)
			ck_assert_msg(c[i] == nan_cases[k].code0, "case %zu element %d: 0x%X", k, i, c[i]);
	}
	struct fpref_nvfp4_params p = { .recipe = TA };
	uint32_t z[32] = { 0 }, sub[32] = { 0x10u, 0, 0x80000000u, 0x1u };
	quantize(&p, z, 32, c, s, &T);
	ck_assert(s[0] == 0xFF && s[1] == 0xFF);
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(c[i], 0xC);
	quantize(&p, sub, 32, c, s, &T);
	ck_assert(s[0] == 0x7E && s[1] == 0xFF);
	for (int i = 0; i < 32; i++)
		ck_assert_msg(c[i] == (i >= 16 ? 0xC : i == 0 || i == 3 ? 0x7 : 0xB), "sub %d: 0x%X", i, c[i]);
}
END_TEST

/* torch's NaN as the lanes and the dtype make it (docs/scaling-mx.md, "NaN
 * patterns"), on 1 x 272 (17 blocks) of 1.0 with a NaN at elements 3 (block
 * 0) and 259 (block 16):
 * - ModelOpt, FP32: D = 0x7FC00000 / 2688 = 0x7FC00000 (positive).  Block
 *   amaxes come from torch.maximum over the 17 blocks: blocks 0..15 fill
 *   AVX-512's 16 lanes, whose NaN is all ones, so block 0's amax is
 *   0xFFFFFFFF and fl(m / fl(6 D)) passes it on: 0xFF; block 16 lies in the
 *   scalar tail: 0x7FC00000, 0x7F.  The finite blocks: 1 / fl(6 D) is D's
 *   NaN, 0x7F.
 * - ModelOpt, torch_bf16: every NaN is 0x7FC0: all 0x7F.
 * - torchao, FP32: D = 0xFFFFFFFF (torch.max); the NaN blocks' amax
 *   (torch.amax) 0x7FC00000 comes first in (m / 6) / D: 0x7F; the finite
 *   blocks take D's: 0xFF.  torch_bf16: D = 0x7FC00000, all 0x7F. */
START_TEST(torch_nan_lanes)
{
	uint32_t x[272], T;
	uint8_t c[272], s[17];
	for (int i = 0; i < 272; i++)
		x[i] = F32_ONE;
	x[3] = x[259] = F32_NAN;
	static const struct { enum fpref_nvfp4_recipe r; bool bf16; uint8_t s0, s1, s16; uint32_t T; } want[] = {
		{ MO, false, 0xFF, 0x7F, 0x7F, 0x7FC00000u },
		{ MO, true, 0x7F, 0x7F, 0x7F, 0x7FC00000u },
		{ TA, false, 0x7F, 0xFF, 0x7F, 0xFFFFFFFFu },
		{ TA, true, 0x7F, 0x7F, 0x7F, 0x7FC00000u },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		struct fpref_nvfp4_params p = { .recipe = want[k].r, .torch_bf16 = want[k].bf16 };
		quantize(&p, x, 272, c, s, &T);
		ck_assert_msg(s[0] == want[k].s0 && s[1] == want[k].s1 && s[16] == want[k].s16 && T == want[k].T,
			      "%s%s: 0x%02X 0x%02X 0x%02X T 0x%08X", fpref_emu_nvfp4_recipe_name(p.recipe),
			      want[k].bf16 ? " bf16" : "", s[0], s[1], s[16], T);
	}
	struct fpref_nvfp4_params te = { .recipe = TE, .torch_bf16 = true };
	char err[160];
	ck_assert_int_eq(fpref_emu_nvfp4_params_check(&te, 16, err, sizeof err), -1);
}
END_TEST

/* N1, torchao 0.18 against its commit 02a1bc44: {x0 = 0x45698D22, 0...} |
 * {x16 = 0x42B7812D, x17 = 0x4298EBA6, 0...}.  D = fl(x0 / 2688) =
 * 0x3FB1F1A0; block 1: fl(fl(x16 / 6) / D) = 11 exactly (E4M3 0x53).  0.18:
 * fl(1 / D) = 0x3F3825E2, / 11 = 0x3D85ED01, x17 * that = 5.0, the E2M1 tie
 * between 4 and 6: 4 (0x6).  02a1bc44: fl(D * 11) = 0x4174AC3C, x17 / that
 * = 5.0000005: 6 (0x7).  (FP32 steps as numpy float32 operations.) */
START_TEST(torchao_element_step)
{
	uint32_t x[32] = { 0x45698D22u }, T;
	x[16] = 0x42B7812Du;
	x[17] = 0x4298EBA6u;
	uint8_t c[32], s[2];
	struct fpref_nvfp4_params now = { .recipe = TA }, old = { .recipe = FPREF_NVFP4_TORCHAO_02A1BC44 };
	quantize(&now, x, 32, c, s, &T);
	ck_assert_msg(T == 0x3FB1F1A0u && s[1] == 0x53 && c[17] == 0x6, "0.18: T 0x%08X s 0x%02X c 0x%X", T, s[1], c[17]);
	quantize(&old, x, 32, c, s, &T);
	ck_assert_msg(T == 0x3FB1F1A0u && s[1] == 0x53 && c[17] == 0x7, "02a1bc44: T 0x%08X s 0x%02X c 0x%X", T, s[1],
		      c[17]);
}
END_TEST

/* ModelOpt 0.47 clamps the block scale to [2^-9, 448] after making 0 into 1;
 * commit 0ad6e5f0 did not.  {2688, 0...} | {2^-20, -0.1 * 2^-20 ...}: D =
 * 1, block 1's value 2^-20 / 6 is far below E4M3's least subnormal 2^-9:
 * 0.47 gives 2^-9 (0x01), 0ad6e5f0 rounds it to 0 (0x00).  Under 0.47 the
 * element 2^-20 / 2^-9 = 2^-11 rounds to 0 (0x0), and -0.1 * 2^-20 likewise,
 * whose sign (x < 0) makes code 0x8, which ModelOpt's table reads back as +0. */
START_TEST(modelopt_scale_floor)
{
	uint32_t x[32] = { f32(2688.0f) }, T, d[32];
	x[16] = 0x35800000u; /* 2^-20 */
	x[17] = f32(-0.1f * 0x1p-20f);
	uint8_t c[32], s[2];
	char err[128];
	struct fpref_nvfp4_params now = { .recipe = MO }, old = { .recipe = FPREF_NVFP4_MODELOPT_0AD6E5F0 };
	quantize(&now, x, 32, c, s, &T);
	ck_assert_msg(T == F32_ONE && s[1] == 0x01 && c[16] == 0x0 && c[17] == 0x8, "0.47: s 0x%02X c %X %X", s[1],
		      c[16], c[17]);
	ck_assert(fpref_emu_nvfp4_dequantize(&now, c, s, T, 1, 32, d, err, sizeof err) == 0);
	ck_assert_int_eq(d[17], 0);
	quantize(&old, x, 32, c, s, &T);
	ck_assert_msg(s[1] == 0x00, "0ad6e5f0: s 0x%02X", s[1]);
}
END_TEST

/* Four Over Six (M = 256), one block {1, 0.77, 0.5, 0.25, 0...}, amax 1:
 * scale to 6: e4m3(1 * 256 / 1) = 256 (0x78), elements 6x = 6, 4.62, 3,
 * 1.5, codes 7 6 5 3, decoded v * 256 / 1536: 1, 0.6667, 0.5, 0.25 (max
 * error 0.10333).  Scale to 4: e4m3(256 * 1.5) = 384 (0x7C), elements 4x
 * = 4, 3.08, 2, 1, codes 6 5 4 2, decoded v / 4: 1, 0.75, 0.5, 0.25 (max
 * error 0.02).  Every rule keeps 4.  With M = 448 the 4-candidate's scale
 * 672 overflows E4M3 (torch's cast: NaN), its error is NaN, and 6 stays:
 * 448 (0x7E) and codes 7 6 5 3. */
START_TEST(four_over_six_choice)
{
	uint32_t x[16] = { F32_ONE, f32(0.77f), f32(0.5f), f32(0.25f) }, d[16], T;
	uint8_t c[16], s[1];
	char err[128];
	for (int rule = FPREF_NVFP4_ABS_MAX; rule <= FPREF_NVFP4_MSE; rule++) {
		struct fpref_nvfp4_params p = { .recipe = FOS, .choice = (enum fpref_nvfp4_choice)rule, .scale_bound = 256 };
		quantize(&p, x, 16, c, s, &T);
		ck_assert_int_eq(T, F32_ONE);
		ck_assert_int_eq(s[0], 0x7C);
		ck_assert(c[0] == 6 && c[1] == 5 && c[2] == 4 && c[3] == 2 && c[4] == 0);
		ck_assert(fpref_emu_nvfp4_dequantize(&p, c, s, T, 1, 16, d, err, sizeof err) == 0);
		ck_assert(d[0] == F32_ONE && d[1] == f32(0.75f) && d[2] == f32(0.5f) && d[3] == f32(0.25f));
		p.scale_bound = 448;
		quantize(&p, x, 16, c, s, &T);
		ck_assert_int_eq(s[0], 0x7E);
		ck_assert(c[0] == 7 && c[1] == 6 && c[2] == 5 && c[3] == 3);
	}
}
END_TEST

/* The tie rule: {1536, 0...}: to 6, scale 256 and 1536 * 6 * 256 / (1536 *
 * 256) = 6 exactly; to 4, scale 384 and 4 exactly; both errors 0, and a tie
 * keeps 6 (the reference's select is err4 < err6): 0x78, code 7. */
START_TEST(four_over_six_tie)
{
	uint32_t x[16] = { f32(1536.0f) }, T;
	uint8_t c[16], s[1];
	for (int rule = FPREF_NVFP4_ABS_MAX; rule <= FPREF_NVFP4_MSE; rule++) {
		struct fpref_nvfp4_params p = { .recipe = FOS, .choice = (enum fpref_nvfp4_choice)rule };
		quantize(&p, x, 16, c, s, &T);
		ck_assert_int_eq(s[0], 0x78);
		ck_assert_int_eq(c[0], 0x7);
	}
}
END_TEST

/* A block on which the rules disagree: 4's largest error 0.120126 beats 6's
 * 0.121730 (abs_max keeps 4, scale 0x7C), while 6's sums are the smaller
 * (mae 0.66795 against 0.78648, mse 0.044657 against 0.058153: scale 0x78).
 * Errors by the reference's FP32 steps in an independent model (notes in
 * docs/scaling-mx.md). */
START_TEST(four_over_six_rules_disagree)
{
	static const uint32_t x[16] = { 0x3f800000, 0xbe1ff2a1, 0x3f7ad9d4, 0xbea0ae65, 0x3f658b7c, 0xbec0e589,
					0xbf24d5e4, 0x3f1ec096, 0xbedcc524, 0x3f6fba43, 0xbf7a50ed, 0xbf0c65f0,
					0x3f49d45a, 0xbca445f6, 0x3d7616fb, 0xbeeeb860 };
	static const uint8_t four[16] = { 6, 9, 6, 0xb, 6, 0xb, 0xd, 4, 0xb, 6, 0xe, 0xc, 5, 8, 0, 0xc };
	static const uint8_t six[16] = { 7, 0xa, 7, 0xc, 7, 0xc, 0xe, 6, 0xd, 7, 0xf, 0xd, 6, 8, 1, 0xd };
	uint8_t c[16], s[1];
	uint32_t T;
	for (int rule = FPREF_NVFP4_ABS_MAX; rule <= FPREF_NVFP4_MSE; rule++) {
		struct fpref_nvfp4_params p = { .recipe = FOS, .choice = (enum fpref_nvfp4_choice)rule };
		quantize(&p, x, 16, c, s, &T);
		ck_assert_int_eq(s[0], rule == FPREF_NVFP4_ABS_MAX ? 0x7C : 0x78);
		ck_assert(memcmp(c, rule == FPREF_NVFP4_ABS_MAX ? four : six, 16) == 0);
	}
}
END_TEST

/* The 16-point transform: out_k = sum_j x_j s_j H[j][k] / 4, H[j][k] =
 * (-1)^popcount(j & k).  x = e_0: every out_k = +1/4 (s_0 = +1); TE then
 * has amax 1/4, S = 2688 * 4 = 10752 (0x46280000), scale e4m3(1/4 * 10752 /
 * 6) = 448, codes 7.  x = e_3 with TE's signs (s_3 = -1, bit 3 of 0xD7E8):
 * out_k = -H[3][k] / 4, negative where popcount(3 & k) is even (k mod 4 = 0
 * or 3): codes F 7 7 F ...; with no signs (0x0000), the reverse.  x = (1 +
 * 2^-10) e_0: out_k = 1/4 + 2^-12, which BF16 rounds to 1/4 (S 0x46280000);
 * without the BF16 rounding S = fl(2688 / (1/4 + 2^-12)) = 0x4627D60A. */
START_TEST(hadamard_examples)
{
	uint32_t x[16] = { F32_ONE }, T;
	uint8_t c[16], s[1];
	struct fpref_nvfp4_params p = { .rht = true, .rht_signs = FPREF_NVFP4_TE_RHT_SIGNS, .rht_bf16 = true };
	quantize(&p, x, 16, c, s, &T);
	ck_assert_int_eq(T, 0x46280000u);
	ck_assert_int_eq(s[0], 0x7E);
	for (int k = 0; k < 16; k++)
		ck_assert_int_eq(c[k], 0x7);
	x[0] = 0;
	x[3] = F32_ONE;
	quantize(&p, x, 16, c, s, &T);
	for (int k = 0; k < 16; k++)
		ck_assert_int_eq(c[k], k % 4 == 0 || k % 4 == 3 ? 0xF : 0x7);
	p.rht_signs = 0;
	quantize(&p, x, 16, c, s, &T);
	for (int k = 0; k < 16; k++)
		ck_assert_int_eq(c[k], k % 4 == 0 || k % 4 == 3 ? 0x7 : 0xF);
	x[3] = 0;
	x[0] = 0x3F802000u; /* 1 + 2^-10 */
	quantize(&p, x, 16, c, s, &T);
	ck_assert_int_eq(T, 0x46280000u);
	p.rht_bf16 = false;
	quantize(&p, x, 16, c, s, &T);
	ck_assert_int_eq(T, 0x4627D60Au);
}
END_TEST

/* Transformer Engine's Philox stream: element i of the tensor rounds as
 * value i of `fpref convert --round te-nvfp4 --sr-bits philox=...`.  Block
 * 0 holds 2688 (so S = 2688 / 2688 = 1) and every other block has amax 6,
 * whose scale fl(6 * fl(1/6)) = 1 is exact in E4M3: those elements reach
 * E2M1 unchanged (x * 1), and their codes must be the conversion's of x. */
START_TEST(te_philox_stream)
{
	enum { N = 128 };
	uint32_t x[N], T;
	uint8_t c[N], s[N / 16];
	for (size_t i = 0; i < N; i++) {
		uint64_t r = fpref_sr_stream(42, i);
		float v = (float)((double)(r >> 40) / (double)(1u << 24) * 12.0 - 6.0); /* in [-6, 6) */
		x[i] = f32(i % 16 == 15 ? 6.0f : v);
	}
	x[5] = f32(2688.0f);
	for (size_t i = 16; i < 24; i++) /* the docs' 0.3: 0.6 of E2M1's subnormal place */
		x[i] = f32(0.3f);
	const char *streams[] = { "philox=1234:0:0", "philox=1234:5:3", "philox=99:0x100000000:7:3" };
	struct fpref_nvfp4_params p = { .stochastic = true };
	for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++) {
		struct fpref_env env;
		char err[256];
		fpref_env_default(&env);
		ck_assert(fpref_env_sr_instruction("te-nvfp4", fpref_format_get(FPREF_FORMAT_FLOAT32),
						   fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN), &env, err, sizeof err) == 0);
		ck_assert_msg(fpref_env_parse_sr(streams[k], &env, err, sizeof err) == 0, "%s", err);
		p.philox = true;
		p.seed = env.sr_seed;
		p.philox_offset = env.sr_offset;
		p.philox_thread = env.sr_subsequence;
		p.philox_rounds = env.sr_philox_rounds;
		quantize(&p, x, N, c, s, &T);
		ck_assert_int_eq(T, F32_ONE);
		for (size_t b = 1; b < N / 16; b++)
			ck_assert_msg(s[b] == 0x38, "%s: block %zu scale 0x%02X, not 1", streams[k], b, s[b]);
		unsigned ups = 0;
		for (size_t i = 16; i < N; i++) {
			uint64_t want = 0;
			unsigned flags = 0;
			fpref_emu_convert(fpref_format_get(FPREF_FORMAT_FLOAT32), x[i],
					  fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN), &env, fpref_env_sr_random(&env, i),
					  &want, &flags);
			ck_assert_msg(c[i] == want, "%s: element %zu (0x%08X) code 0x%X, convert 0x%X", streams[k], i, x[i],
				      c[i], (unsigned)want);
			ups += i < 24 && c[i] == 1;
		}
		ck_assert_msg(ups > 0 && ups < 8, "%s: 0.3 rounded up %u of 8 times", streams[k], ups);
	}
	/* the same stream as fpref's own, which takes 32 bits of fpref_sr_stream: other codes */
	uint8_t c2[N];
	p.philox = false;
	quantize(&p, x, N, c2, s, &T);
	ck_assert(memcmp(c, c2, N) != 0);
}
END_TEST

START_TEST(refused_options)
{
	uint32_t x[20] = { F32_ONE }, T;
	uint8_t c[20], s[2];
	char err[160];
	struct fpref_nvfp4_params bad[] = {
		{ .recipe = TA, .two_d = true }, { .recipe = MO, .stochastic = true }, { .recipe = TA, .rht = true },
		{ .recipe = FOS, .stochastic = true }, { .recipe = FOS, .scale_bound = 300 },
		{ .recipe = TE, .rht = true }, { .recipe = (enum fpref_nvfp4_recipe)9 },
		{ .recipe = TE, .philox = true }, { .recipe = TE, .stochastic = true, .philox = true, .philox_rounds = 65 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(fpref_emu_nvfp4_quantize(&bad[i], x, 1, 20, c, s, &T, err, sizeof err) == -1, "case %zu", i);
		ck_assert(err[0] != '\0');
	}
	enum fpref_nvfp4_recipe r;
	enum fpref_nvfp4_choice ch;
	ck_assert(fpref_emu_nvfp4_recipe_parse("modelopt", &r) == 0 && r == MO);
	ck_assert(fpref_emu_nvfp4_recipe_parse("nvidia", &r) == -1);
	ck_assert(fpref_emu_nvfp4_choice_parse("mae", &ch) == 0 && ch == FPREF_NVFP4_MAE);
	ck_assert(fpref_emu_nvfp4_choice_parse("l2", &ch) == -1);
	struct fpref_ref_nvfp4 rp = { .recipe = "fouroversix", .choice = "l2" };
	ck_assert(fpref_ref_nvfp4_recipe_quantize(&rp, x, 1, 20, c, s, &T, err, sizeof err) == -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvfp4_recipes");
	TCase *cross = tcase_create("emu_vs_ref");
	tcase_set_timeout(cross, 600);
	tcase_add_test(cross, recipes_random);
	tcase_add_test(cross, recipes_structured);
	suite_add_tcase(s, cross);
	TCase *ex = tcase_create("stacks_differ");
	tcase_add_test(ex, recipes_differ_near_ties);
	tcase_add_test(ex, zero_block_and_minus_zero);
	tcase_add_test(ex, zero_tensor_and_nan);
	tcase_add_test(ex, x86_nan_signs);
	tcase_add_test(ex, torch_nan_lanes);
	tcase_add_test(ex, torchao_nan_codes);
	tcase_add_test(ex, torchao_element_step);
	tcase_add_test(ex, modelopt_scale_floor);
	tcase_add_test(ex, four_over_six_choice);
	tcase_add_test(ex, four_over_six_tie);
	tcase_add_test(ex, four_over_six_rules_disagree);
	tcase_add_test(ex, hadamard_examples);
	tcase_add_test(ex, te_philox_stream);
	tcase_add_test(ex, refused_options);
	suite_add_tcase(s, ex);
	return test_run(s);
}
