/* OCP MX and NVFP4 block quantisers: the emulator against the MPFR oracle
 * bit for bit (codes, scales, tensor scale, dequantised values), and worked
 * examples whose expected values are worked out by hand from the OCP MX
 * v1.0 algorithm and Transformer Engine's NVFP4 recipe (docs/scaling-mx.md). */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_ref_scale_mx.h"

static const char *const elements[] = { "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn",
					"float4_e2m1fn", "int8" };
static const enum fpref_mx_scale_rule rules[] = { FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_SCALE_NV_CEIL,
						  FPREF_MX_SCALE_RNE, FPREF_MX_SCALE_CEIL, FPREF_MX_SCALE_RCEIL_LOG2 };
static const enum fpref_mx_recipe recipes[] = { FPREF_MX_OCP, FPREF_MX_TORCHAO, FPREF_MX_MODELOPT };
static const enum fpref_rounding roundings[] = { FPREF_RNE, FPREF_RNA };

static uint32_t f32(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

#define F32_NAN 0x7FC00000u
#define F32_INF 0x7F800000u
#define F32_ONE 0x3F800000u
#define F32_MAX 0x7F7FFFFFu
#define F32_TRUE_MIN 0x00000001u

/* ---- test tensors ---- */

/* A random FP32 value of magnitude about 2^(base - k), k in 0..span. */
static uint32_t random_near(uint64_t seed, uint64_t i, int base, int span)
{
	uint64_t r = fpref_sr_stream(seed, i);
	int e = base - (int)(r % (uint64_t)(span + 1));
	uint32_t sign = (uint32_t)(r >> 63) << 31;
	uint32_t mantissa = (uint32_t)(r >> 20) & 0x7FFFFFu;
	if (e < -149)
		return sign;
	if (e < -126) /* FP32 subnormal: keep the bits that exist */
		return sign | ((mantissa | 0x800000u) >> (-126 - e + 1));
	if (e > 127)
		e = 127;
	return sign | (uint32_t)(e + 127) << 23 | mantissa;
}

/* Rows whose blocks sit at binades across FP32's range (including its
 * subnormals and the top), some blocks spread over 30 binades so that
 * elements flush and fall subnormal, values on element ties. */
static void fill_random(uint32_t *x, size_t rows, size_t cols, size_t block, uint64_t seed)
{
	for (size_t r = 0; r < rows; r++) {
		for (size_t c0 = 0; c0 < cols; c0 += block) {
			uint64_t pick = fpref_sr_stream(seed ^ 0x5eed, r * cols + c0);
			int base = (int)(pick % 300) - 160; /* -160..139: clamped above to 127 */
			int span = (int)((pick >> 16) % 4) == 0 ? 30 : (int)((pick >> 20) % 8);
			for (size_t c = c0; c < cols && c < c0 + block; c++) {
				uint64_t i = r * cols + c;
				uint32_t v = random_near(seed, i, base, span);
				if (((pick >> 24) & 3) == 0) /* few mantissa bits: exact ties in the elements */
					v &= 0xFFF00000u;
				x[i] = v;
			}
		}
	}
}

/* ---- comparisons ---- */

static void check_mx_case(const struct fpref_mx_params *p, const uint32_t *x, size_t rows, size_t cols,
			  const char *what)
{
	size_t n = rows * cols, ns = fpref_emu_mx_scale_count(rows, cols);
	uint8_t *ce = malloc(n + 1), *cr = malloc(n + 1), *se = malloc(ns + 1), *sr = malloc(ns + 1);
	uint32_t *de = malloc(4 * n + 4), *dr = malloc(4 * n + 4);
	ck_assert(ce && cr && se && sr && de && dr);
	char err[256] = "";
	const char *rule = fpref_emu_mx_scale_rule_name(p->rule);
	ck_assert_msg(fpref_emu_mx_quantize(p, x, rows, cols, ce, se, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_mx_recipe_quantize(p->element, rule, fpref_emu_mx_recipe_name(p->recipe),
						   p->element_rounding, x, rows, cols, cr, sr, err, sizeof err) == 0, "%s", err);
	for (size_t b = 0; b < ns; b++)
		ck_assert_msg(se[b] == sr[b], "%s %s %s %s: scale %zu emu 0x%02X ref 0x%02X", what, p->element, rule,
			      fpref_rounding_name(p->element_rounding), b, se[b], sr[b]);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ce[i] == cr[i], "%s %s %s %s: element %zu (x 0x%08X, scale 0x%02X) emu 0x%02X ref 0x%02X",
			      what, p->element, rule, fpref_rounding_name(p->element_rounding), i, x[i],
			      se[(i / cols) * (ns / rows) + (i % cols) / 32], ce[i], cr[i]);
	ck_assert_msg(fpref_emu_mx_dequantize(p, ce, se, rows, cols, de, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_mx_dequantize(p->element, ce, se, rows, cols, dr, err, sizeof err) == 0, "%s", err);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(de[i] == dr[i], "%s %s dequantise %zu: emu 0x%08X ref 0x%08X", what, p->element, i, de[i],
			      dr[i]);
	free(ce), free(cr), free(se), free(sr), free(de), free(dr);
}

static void check_mx_all(const uint32_t *x, size_t rows, size_t cols, const char *what)
{
	for (size_t e = 0; e < sizeof elements / sizeof elements[0]; e++)
		for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
			for (size_t k = 0; k < sizeof roundings / sizeof roundings[0]; k++)
				for (size_t m = 0; m < sizeof recipes / sizeof recipes[0]; m++) {
					struct fpref_mx_params p = { elements[e], rules[r], roundings[k], recipes[m] };
					char err[256];
					if (fpref_emu_mx_params_check(&p, err, sizeof err) != 0)
						continue; /* no library computes it (test mx_recipe_refusals) */
					check_mx_case(&p, x, rows, cols, what);
				}
}

static void check_nvfp4_case(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
			     const char *what)
{
	size_t n = rows * cols, ns = fpref_emu_nvfp4_scale_count(p, rows, cols);
	uint8_t *ce = malloc(n + 1), *cr = malloc(n + 1), *se = malloc(ns + 1), *sr = malloc(ns + 1);
	uint32_t *de = malloc(4 * n + 4), *dr = malloc(4 * n + 4), te = 0, tr = 0;
	ck_assert(ce && cr && se && sr && de && dr);
	char err[256] = "";
	ck_assert_msg(fpref_emu_nvfp4_quantize(p, x, rows, cols, ce, se, &te, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_nvfp4_quantize(p->two_d, p->stochastic, p->seed, x, rows, cols, cr, sr, &tr, err,
					       sizeof err) == 0, "%s", err);
	ck_assert_msg(te == tr, "%s: tensor scale emu 0x%08X ref 0x%08X", what, te, tr);
	for (size_t b = 0; b < ns; b++)
		ck_assert_msg(se[b] == sr[b], "%s: block scale %zu emu 0x%02X ref 0x%02X", what, b, se[b], sr[b]);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ce[i] == cr[i], "%s: element %zu (x 0x%08X) emu 0x%02X ref 0x%02X", what, i, x[i], ce[i],
			      cr[i]);
	ck_assert_msg(fpref_emu_nvfp4_dequantize(p, ce, se, te, rows, cols, de, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_ref_nvfp4_dequantize(p->two_d, ce, se, te, rows, cols, dr, err, sizeof err) == 0, "%s",
		      err);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(de[i] == dr[i], "%s: dequantise %zu emu 0x%08X ref 0x%08X", what, i, de[i], dr[i]);
	free(ce), free(cr), free(se), free(sr), free(de), free(dr);
}

static void check_nvfp4_all(const uint32_t *x, size_t rows, size_t cols, const char *what)
{
	for (int two_d = 0; two_d < 2; two_d++)
		for (int sr = 0; sr < 2; sr++) {
			struct fpref_nvfp4_params p = { .two_d = two_d, .stochastic = sr, .seed = 0x1234u + (uint64_t)two_d };
			check_nvfp4_case(&p, x, rows, cols, what);
		}
}

/* ---- emu against ref ---- */

/* Seeds per sweep: a few in make check, many in make check-exhaustive. */
static uint64_t sweep_seeds(uint64_t quick)
{
	return getenv("FPREF_EXHAUSTIVE") ? 100 * quick : quick;
}

START_TEST(mx_random_tensors)
{
	enum { ROWS = 24, COLS = 96 };
	static uint32_t x[ROWS * COLS];
	for (uint64_t seed = 1; seed <= sweep_seeds(4); seed++) {
		fill_random(x, ROWS, COLS, 32, seed);
		check_mx_all(x, ROWS, COLS, "random");
	}
}
END_TEST

START_TEST(mx_partial_blocks)
{
	enum { ROWS = 5, COLS = 45 }; /* one full block and one of 13 per row */
	static uint32_t x[ROWS * COLS];
	fill_random(x, ROWS, COLS, 13, 99);
	check_mx_all(x, ROWS, COLS, "partial");
}
END_TEST

/* One block per row, 32 wide: the structured cases. */
enum { STRUCT_ROWS = 10 };

static void structured_rows(uint32_t x[STRUCT_ROWS][32])
{
	for (int c = 0; c < 32; c++) {
		x[0][c] = c % 2 ? 0x80000000u : 0;                              /* amax zero, with -0 */
		x[1][c] = f32((float)(c - 16) * 0.37f);                         /* a NaN in the block */
		x[2][c] = f32((float)(c + 1) * 1.5f);                           /* an inf in the block */
		x[3][c] = f32(ldexpf(1.0f + (float)c / 32.0f, -c));             /* elements fall subnormal and flush */
		x[4][c] = f32((float)(c + 1) * (1.9375f * 8.0f / 32.0f));        /* amax 1.9375*8: saturates under floor */
		x[5][c] = F32_TRUE_MIN * (uint32_t)(c + 1);                     /* FP32 subnormals: scale 2^-127 */
		x[6][c] = F32_MAX - (uint32_t)c * 0x10000u;                     /* scale near 2^127 */
		x[7][c] = (uint32_t)c << 26 | (c % 3 ? 0 : 0x80000000u);        /* every binade, both signs */
		x[8][c] = f32((float)c * 0.25f + 0.125f);                       /* ties of the fine elements */
		x[9][c] = f32(-(float)c * 0.0625f - 0.03125f);                  /* ties, negative */
	}
	x[1][5] = F32_NAN;
	x[2][30] = F32_INF | 0x80000000u;
	x[6][3] = F32_MAX;
}

START_TEST(mx_structured)
{
	static uint32_t x[STRUCT_ROWS][32];
	structured_rows(x);
	check_mx_all(&x[0][0], STRUCT_ROWS, 32, "structured");
}
END_TEST

START_TEST(nvfp4_random_tensors)
{
	enum { ROWS = 40, COLS = 48 }; /* 2-D: 3 x 3 blocks, the last row of blocks 8 high */
	static uint32_t x[ROWS * COLS];
	for (uint64_t seed = 1; seed <= sweep_seeds(3); seed++) {
		fill_random(x, ROWS, COLS, 16, seed);
		check_nvfp4_all(x, ROWS, COLS, "random");
		for (size_t i = 0; i < ROWS * COLS; i++) /* a narrower range: all blocks live */
			x[i] = random_near(seed, i, 3, 20);
		check_nvfp4_all(x, ROWS, COLS, "narrow");
	}
}
END_TEST

START_TEST(nvfp4_structured)
{
	static uint32_t x[STRUCT_ROWS][32];
	structured_rows(x);
	check_nvfp4_all(&x[0][0], STRUCT_ROWS, 32, "structured");
	/* rows that isolate the tensor scale's edges: all zero; tiny (S overflows to FLT_MAX); inf (S 1) */
	uint32_t t[3][20];
	for (int c = 0; c < 20; c++) {
		t[0][c] = c % 2 ? 0x80000000u : 0;
		t[1][c] = F32_TRUE_MIN * (uint32_t)c;
		t[2][c] = f32((float)c - 9.5f);
	}
	check_nvfp4_all(&t[0][0], 1, 20, "zero");
	check_nvfp4_all(&t[1][0], 1, 20, "tiny");
	t[2][7] = F32_INF;
	t[2][8] = F32_NAN;
	check_nvfp4_all(&t[2][0], 1, 20, "inf and NaN");
}
END_TEST

/* ---- worked examples: expected values by hand from the documents ---- */

static void quantize_one_block(enum fpref_mx_scale_rule rule, const char *element, enum fpref_rounding rounding,
			       const uint32_t *x, size_t n, uint8_t *codes, uint8_t *scale)
{
	struct fpref_mx_params p = { element, rule, rounding, FPREF_MX_OCP };
	char err[256];
	ck_assert_msg(fpref_emu_mx_quantize(&p, x, 1, n, codes, scale, err, sizeof err) == 0, "%s", err);
	uint8_t rc[32], rs;
	ck_assert(fpref_ref_mx_quantize(element, fpref_emu_mx_scale_rule_name(rule), rounding, x, 1, n, rc, &rs, err,
					sizeof err) == 0);
	ck_assert(memcmp(rc, codes, n) == 0 && rs == *scale);
}

/* amax 1000 in E4M3: OCP X = 2^(floor(log2 1000) - 8) = 2^1, 1000/2 = 500
 * clamps to 448 (0x7E), 3/2 = 1.5 (0x3C); NVIDIA X = 2^ceil(log2(1000/448))
 * = 2^2, 1000/4 = 250 rounds to 256 (0x78), 3/4 = 0.75 (0x34); rne: 1000
 * to 4 bits is 1024, X = 2^(10 - 8) = 2^2. */
START_TEST(example_e4m3_scale_rules)
{
	uint32_t x[3] = { f32(1000.0f), f32(3.0f), f32(-0.0f) };
	uint8_t c[3], s;
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "float8_e4m3fn", FPREF_RNE, x, 3, c, &s);
	ck_assert_uint_eq(s, 128);
	ck_assert_uint_eq(c[0], 0x7E);
	ck_assert_uint_eq(c[1], 0x3C);
	ck_assert_uint_eq(c[2], 0x80);
	quantize_one_block(FPREF_MX_SCALE_NV_CEIL, "float8_e4m3fn", FPREF_RNE, x, 3, c, &s);
	ck_assert_uint_eq(s, 129);
	ck_assert_uint_eq(c[0], 0x78);
	ck_assert_uint_eq(c[1], 0x34);
	quantize_one_block(FPREF_MX_SCALE_RNE, "float8_e4m3fn", FPREF_RNE, x, 3, c, &s);
	ck_assert_uint_eq(s, 129);
	ck_assert_uint_eq(c[0], 0x78);
}
END_TEST

/* MXFP4 with amax 6: X = 2^(2 - 2) = 1.  1.25 is a tie between 1 (0x2)
 * and 1.5 (0x3): rne keeps the even 0x2, rna goes away to 0x3; 0.25 ties
 * 0 and 0.5: 0x0 or 0x1; -5 ties 4 and 6: 0xE (-4) or 0xF (-6). */
START_TEST(example_e2m1_ties)
{
	uint32_t x[4] = { f32(6.0f), f32(1.25f), f32(0.25f), f32(-5.0f) };
	uint8_t c[4], s;
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "float4_e2m1fn", FPREF_RNE, x, 4, c, &s);
	ck_assert_uint_eq(s, 127);
	ck_assert_uint_eq(c[0], 0x7);
	ck_assert_uint_eq(c[1], 0x2);
	ck_assert_uint_eq(c[2], 0x0);
	ck_assert_uint_eq(c[3], 0xE);
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "float4_e2m1fn", FPREF_RNA, x, 4, c, &s);
	ck_assert_uint_eq(c[1], 0x3);
	ck_assert_uint_eq(c[2], 0x1);
	ck_assert_uint_eq(c[3], 0xF);
}
END_TEST

/* MXINT8: emax 0, elements k * 2^-6.  amax 1.5 gives X = 1; 1.5 -> 96
 * (0x60), -0.5 -> -32 (0xE0), 0.0078125 = 0.5/64 ties 0 and 1: rne 0.
 * FLT_MAX gives X = 2^127 and 1.99999988 * 64 rounds to 128, clamped to 127. */
START_TEST(example_int8)
{
	uint32_t x[3] = { f32(1.5f), f32(-0.5f), f32(0.0078125f) };
	uint8_t c[3], s;
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "int8", FPREF_RNE, x, 3, c, &s);
	ck_assert_uint_eq(s, 127);
	ck_assert_uint_eq(c[0], 0x60);
	ck_assert_uint_eq(c[1], 0xE0);
	ck_assert_uint_eq(c[2], 0x00);
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "int8", FPREF_RNA, x, 3, c, &s);
	ck_assert_uint_eq(c[2], 0x01);
	uint32_t big[2] = { F32_MAX, f32(-1.0f) };
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "int8", FPREF_RNE, big, 2, c, &s);
	ck_assert_uint_eq(s, 254);
	ck_assert_uint_eq(c[0], 0x7F);
	ck_assert_uint_eq(c[1], 0x00); /* -2^-127 is far below 2^-6: zero (int8 has no -0) */
}
END_TEST

/* The E8M0 range's ends, the NaN scale and the zero block. */
START_TEST(example_scale_range_and_specials)
{
	uint32_t tiny[1] = { F32_TRUE_MIN }, top[1] = { F32_MAX }, zero[2] = { 0, 0x80000000u };
	uint32_t nan[3] = { f32(1.0f), F32_NAN, f32(2.0f) }, inf[2] = { f32(1.0f), F32_INF };
	uint8_t c[3], s;
	for (size_t r = 0; r < 3; r++) {
		quantize_one_block(rules[r], "float8_e4m3fn", FPREF_RNE, tiny, 1, c, &s);
		ck_assert_uint_eq(s, 0); /* 2^-149: below 2^-127 in every rule */
		quantize_one_block(rules[r], "float8_e4m3fn", FPREF_RNE, zero, 2, c, &s);
		ck_assert_uint_eq(s, 0);
		ck_assert_uint_eq(c[0], 0x00);
		ck_assert_uint_eq(c[1], 0x80);
		quantize_one_block(rules[r], "float8_e5m2", FPREF_RNE, nan, 3, c, &s);
		ck_assert_uint_eq(s, 0xFF);
		ck_assert_uint_eq(c[0] | c[1] | c[2], 0);
		quantize_one_block(rules[r], "float6_e3m2fn", FPREF_RNE, inf, 2, c, &s);
		ck_assert_uint_eq(s, 0xFF);
	}
	quantize_one_block(FPREF_MX_SCALE_OCP_FLOOR, "float8_e4m3fn", FPREF_RNE, top, 1, c, &s);
	ck_assert_uint_eq(s, 127 + 127 - 8); /* floor(log2 FLT_MAX) = 127 */
	ck_assert_uint_eq(c[0], 0x7E);       /* 1.99999988 * 2^8 clamps to 448 */
	quantize_one_block(FPREF_MX_SCALE_NV_CEIL, "float8_e4m3fn", FPREF_RNE, top, 1, c, &s);
	ck_assert_uint_eq(s, 127 + 120);     /* FLT_MAX / 448 is just under 2^119.2: 2^120 */
}
END_TEST

/* Dequantising: X * P, a NaN scale gives NaN everywhere. */
START_TEST(example_dequantize)
{
	struct fpref_mx_params p = { "float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_OCP };
	uint8_t codes[33] = { 0x7E, 0x3C, 0x80, 0x01 }, scales[2] = { 128, 0xFF };
	uint32_t out[33];
	char err[256];
	ck_assert(fpref_emu_mx_dequantize(&p, codes, scales, 1, 33, out, err, sizeof err) == 0);
	ck_assert_uint_eq(out[0], f32(896.0f));
	ck_assert_uint_eq(out[1], f32(3.0f));
	ck_assert_uint_eq(out[2], 0x80000000u);
	ck_assert_uint_eq(out[3], f32(0x1p-8f)); /* least subnormal 2^-9, times 2 */
	ck_assert_uint_eq(out[32], F32_NAN);
	struct fpref_mx_params q = { "float4_e2m1fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_OCP };
	uint8_t bad = 0x10;
	ck_assert(fpref_emu_mx_dequantize(&q, &bad, scales, 1, 1, out, err, sizeof err) == -1);
	ck_assert(fpref_ref_mx_dequantize("float4_e2m1fn", &bad, scales, 1, 1, out, err, sizeof err) == -1);
}
END_TEST

/* NVFP4 with amax 2688 = 448 * 6: S = 1, block 0 scale e4m3(2688/6) = 448
 * (0x7E), 2688 -> 6 (0x7), 1344 -> 3 (0x5).  Block 1 with amax 1:
 * s_b = e4m3(0.16666667) = 0.171875 (0x23, nearer than 0.15625), elements
 * times 1/0.171875 = 5.8181...: 1 -> 5.82 -> 6 (0x7), 0.5 -> 2.91 -> 3
 * (0x5), 0.25 -> 1.45 -> 1.5 (0x3), -0.1 -> -0.58 -> -0.5 (0x9). */
START_TEST(example_nvfp4)
{
	uint32_t x[32] = { 0 };
	x[0] = f32(2688.0f);
	x[1] = f32(1344.0f);
	x[16] = f32(1.0f);
	x[17] = f32(0.5f);
	x[18] = f32(0.25f);
	x[19] = f32(-0.1f);
	struct fpref_nvfp4_params p = { .two_d = false };
	uint8_t c[32], s[2];
	uint32_t S;
	char err[256];
	ck_assert(fpref_emu_nvfp4_quantize(&p, x, 1, 32, c, s, &S, err, sizeof err) == 0);
	ck_assert_uint_eq(S, f32(1.0f));
	ck_assert_uint_eq(s[0], 0x7E);
	ck_assert_uint_eq(s[1], 0x23);
	ck_assert_uint_eq(c[0], 0x7);
	ck_assert_uint_eq(c[1], 0x5);
	ck_assert_uint_eq(c[2], 0x0);
	ck_assert_uint_eq(c[16], 0x7);
	ck_assert_uint_eq(c[17], 0x5);
	ck_assert_uint_eq(c[18], 0x3);
	ck_assert_uint_eq(c[19], 0x9);
	check_nvfp4_case(&p, x, 1, 32, "example");
	/* amax 0: S = 1, scales 0, codes 0 */
	uint32_t z[16] = { 0 };
	ck_assert(fpref_emu_nvfp4_quantize(&p, z, 1, 16, c, s, &S, err, sizeof err) == 0);
	ck_assert_uint_eq(S, f32(1.0f));
	ck_assert_uint_eq(s[0], 0);
	ck_assert_uint_eq(c[5], 0);
}
END_TEST

/* The order of FP32 operations decides bits.  Expected values worked out
 * with exact rationals rounded to FP32 at each step (a Python Fraction
 * model, outside this code).
 * NVFP4: global amax 0x3F80003F gives S = fl(2688/amax) = 0x4527FFAD and
 * S * fl(1/6) = 0x43DFFF92; a block with amax 0x3E04928B has
 * amax * 0x43DFFF92 = 58.0000038, just above the E4M3 tie 58, so s_b = 60
 * (0x67), where fl(S/6) would have given exactly 58 and the even 56
 * (0x66).  Its elements: 0x3E04928B * fl(1/(60/S)) = 5.8 -> 6 (0x7),
 * 0x3DC6DBD0 -> 4.35 -> 4 (0x6).
 * MXINT8 under nv-ceil: amax 0x3FFE0001 = 127/64 + 2^-23 times fl(64/127)
 * rounds to exactly 1.0 in FP32, so the scale is 2^0 (127) and the element
 * 127.000008 clamps to 127 (0x7F); exact division would give 2^1 (128). */
START_TEST(example_recipe_order)
{
	uint32_t x[32] = { 0 };
	x[0] = 0x3F80003Fu;
	x[1] = 0x3F00003Fu;
	x[16] = 0x3E04928Bu;
	x[17] = 0x3DC6DBD0u;
	struct fpref_nvfp4_params p = { .two_d = false };
	uint8_t c[32], s[2];
	uint32_t S;
	char err[256];
	ck_assert(fpref_emu_nvfp4_quantize(&p, x, 1, 32, c, s, &S, err, sizeof err) == 0);
	ck_assert_uint_eq(S, 0x4527FFADu);
	ck_assert_uint_eq(s[0], 0x7E);
	ck_assert_uint_eq(s[1], 0x67);
	ck_assert_uint_eq(c[0], 0x7);
	ck_assert_uint_eq(c[1], 0x5);
	ck_assert_uint_eq(c[16], 0x7);
	ck_assert_uint_eq(c[17], 0x6);
	check_nvfp4_case(&p, x, 1, 32, "order");
	uint32_t y[2] = { 0x3FFE0001u, f32(-0.5f) };
	quantize_one_block(FPREF_MX_SCALE_NV_CEIL, "int8", FPREF_RNE, y, 2, c, s);
	ck_assert_uint_eq(s[0], 127);
	ck_assert_uint_eq(c[0], 0x7F);
	ck_assert_uint_eq(c[1], 0xE0);
}
END_TEST

/* Stochastic rounding: the same seed gives the same codes, and over many
 * draws a value 1/4 of the way from 2 to 3 rounds up about 1/4 of the time. */
START_TEST(nvfp4_stochastic_rate)
{
	enum { N = 4096 };
	static uint32_t x[N];
	static uint8_t c[N], s[N / 16];
	for (size_t i = 0; i < N; i++)
		x[i] = i % 16 == 0 ? f32(2688.0f) : f32(2.25f * 448.0f); /* S = 1, s_b = 448: 2.25 before rounding */
	struct fpref_nvfp4_params p = { .stochastic = true, .seed = 7 };
	uint32_t S;
	char err[256];
	ck_assert(fpref_emu_nvfp4_quantize(&p, x, 1, N, c, s, &S, err, sizeof err) == 0);
	size_t up = 0, total = 0;
	for (size_t i = 0; i < N; i++) {
		if (i % 16 == 0)
			continue;
		ck_assert(c[i] == 0x4 || c[i] == 0x5);
		up += c[i] == 0x5;
		total++;
	}
	double rate = (double)up / (double)total;
	ck_assert_msg(rate > 0.2 && rate < 0.3, "round-up rate %g", rate);
}
END_TEST

START_TEST(bad_parameters)
{
	uint32_t x[1] = { 0 };
	uint8_t c[1], s[1];
	char err[256];
	struct fpref_mx_params p = { "float8_e4m3", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_OCP }; /* the IEEE-like one */
	ck_assert(fpref_emu_mx_quantize(&p, x, 1, 1, c, s, err, sizeof err) == -1);
	ck_assert(strstr(err, "unknown MX element") != NULL);
	p.element = "e4m3";
	ck_assert(fpref_emu_mx_quantize(&p, x, 1, 1, c, s, err, sizeof err) == 0);
	p.element_rounding = FPREF_RTZ;
	ck_assert(fpref_emu_mx_quantize(&p, x, 1, 1, c, s, err, sizeof err) == -1);
	ck_assert(fpref_ref_mx_quantize("e4m3", "ocp-floor", FPREF_RTZ, x, 1, 1, c, s, err, sizeof err) == -1);
	ck_assert(fpref_ref_mx_quantize("e4m3", "floor", FPREF_RNE, x, 1, 1, c, s, err, sizeof err) == -1);
	enum fpref_mx_scale_rule r;
	ck_assert(fpref_emu_mx_scale_rule_parse("nv-ceil", &r) == 0 && r == FPREF_MX_SCALE_NV_CEIL);
	ck_assert(fpref_emu_mx_scale_rule_parse("ceiling", &r) == -1);
	p.element_rounding = FPREF_RNE;
	ck_assert(fpref_emu_mx_quantize(&p, x, SIZE_MAX / 2, 3, c, s, err, sizeof err) == -1);
}
END_TEST

/* The libraries' recipes (docs/scaling-mx.md, "MX recipes"), by hand from
 * their sources (torchao 0.18 mx_tensor.py to_mx, ModelOpt 0.47
 * mxfp8_tensor.py), each also checked against the oracle:
 * - M1, E4M3 FLOOR, {2^-130, 2^-135, 0...}: floor(log2 amax) - 8 = -138
 *   clamps to -127 (00).  torchao divides by max(2^-127, 2^-126) = 2^-126:
 *   2^-4 (0x18) and 2^-9 (0x01, E4M3's least subnormal); OCP by 2^-127:
 *   2^-3 (0x20), 2^-8 (0x02).
 * - M2, {inf, 1, 0...}: torchao FLOOR reads inf's exponent field as 2^128:
 *   s = 128 - 8 = 120 (0xF7), inf / 2^120 clamps to 448 (0x7E), 1 / 2^120
 *   is 0.  E2M1: 128 - 2 = 126 (0xFD), codes 7 and 0.  rceil: FE, inf
 *   2^-127 clamps (0x7E).  OCP: FF and zero codes.
 * - ModelOpt, {NaN, 1, 0...}: descale > 0 is false for NaN, so log2 is
 *   replaced by -127: scale 00; 1 * 2^127 clamps to 448 (0x7E), the NaN
 *   stays NaN (0x7F).
 * - M3, {0x6A600001, 0...} = 448 * 2^77 + one ulp: fl(amax / 448) = 2^77 (1
 *   + 2^-23), whose log2 77 + 1.7e-7 lies within half an ulp of 77 (3.8e-6):
 *   the FP32 log2 is 77, scale 77 (0xCC), and x * 2^-77 = 448.00003 clamps
 *   to 448 (0x7E).  The exact rule (nv-ceil) takes 78 (0xCD) and 224 (0x76).
 * - CEIL, E4M3 {300, 0...}: ceil(log2 300) - 8 = 1 (0x80); 150 lies between
 *   144 and 160: 144 (0x71). */
static void mx_expect(const char *element, enum fpref_mx_scale_rule rule, enum fpref_mx_recipe recipe,
		      const uint32_t *x, uint8_t scale, uint8_t c0, uint8_t c1)
{
	struct fpref_mx_params p = { element, rule, FPREF_RNE, recipe };
	uint8_t c[32], s;
	char err[256];
	ck_assert_msg(fpref_emu_mx_quantize(&p, x, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(s == scale && c[0] == c0 && c[1] == c1, "%s %s %s: scale 0x%02X codes 0x%02X 0x%02X", element,
		      fpref_emu_mx_scale_rule_name(rule), fpref_emu_mx_recipe_name(recipe), s, c[0], c[1]);
	check_mx_case(&p, x, 1, 32, "recipe example");
}

START_TEST(example_library_recipes)
{
	uint32_t tiny[32] = { 0x00080000u /* 2^-130 */, 0x00004000u /* 2^-135 */ };
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_TORCHAO, tiny, 0x00, 0x18, 0x01);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_OCP, tiny, 0x00, 0x20, 0x02);
	uint32_t inf[32] = { 0x7F800000u, F32_ONE };
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_TORCHAO, inf, 0xF7, 0x7E, 0x00);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_CEIL, FPREF_MX_TORCHAO, inf, 0xF7, 0x7E, 0x00);
	mx_expect("float4_e2m1fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_TORCHAO, inf, 0xFD, 0x7, 0x0);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_NV_CEIL, FPREF_MX_TORCHAO, inf, 0xFE, 0x7E, 0x00);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_MX_MODELOPT, inf, 0xFE, 0x7E, 0x00);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_OCP, inf, 0xFF, 0x00, 0x00);
	uint32_t nan[32] = { 0x7FC00000u, F32_ONE };
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_MX_MODELOPT, nan, 0x00, 0x7F, 0x7E);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_TORCHAO, nan, 0xFF, 0x7F, 0x00);
	uint32_t m3[32] = { 0x6A600001u };
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_MX_TORCHAO, m3, 0xCC, 0x7E, 0x00);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_NV_CEIL, FPREF_MX_TORCHAO, m3, 0xCD, 0x76, 0x00);
	uint32_t c300[32] = { 0x43960000u /* 300 */ };
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_CEIL, FPREF_MX_TORCHAO, c300, 0x80, 0x71, 0x00);
	mx_expect("float8_e4m3fn", FPREF_MX_SCALE_CEIL, FPREF_MX_OCP, c300, 0x80, 0x71, 0x00);
}
END_TEST

/* torchao 0.18's codes in a block whose amax is NaN (scale FF), for x =
 * {+qNaN, -qNaN, 0x7FC10001, 0xFFC10001, 1, -1, inf, -inf, 0, -0,
 * 0xFFFF0000 (the NaN torch's BF16 cast writes), 2...}, worked by hand:
 * - Floor rules divide by FF read as FP32, +inf: numbers give signed zeros
 *   (00, the sign bit), a NaN passes on itself, inf / inf is 0xFFC00000.
 *   RCEIL multiplies by amax / max, the NaN 0x7FC00000, and every product
 *   is that NaN.
 * - FP8 casts write 7F with the NaN's sign (E4M3 and E5M2 alike).
 * - FP6/FP4: the NaN's bits rounded as a normal number.  E2M1, 0x7FC00000:
 *   2^128 * 1.5 has one fraction bit, 1; exponent 128 + bias 1 = 129; (129
 *   << 1) + 1 = 0x103, low byte 03.  E2M3: 1.5 = 1.100b, (129 << 3) + 4 =
 *   0x40C: 0C.  E3M2 (bias 3): (131 << 2) + 2 = 0x20E: 0E.  0xFFFF0000:
 *   1.11111111b rounds up to 2, exponent 129: E2M1 (130 << 1) = 0x104: 04,
 *   with the sign 0C; E2M3 (130 << 3) = 0x410 and E3M2 (132 << 2) = 0x210:
 *   10, with the sign 30.
 * torchao itself gave these bytes (torch 2.15 CPU, to_mx, FP32 and BF16). */
START_TEST(example_torchao_nan_blocks)
{
	static const uint32_t x[32] = { 0x7FC00000u, 0xFFC00000u, 0x7FC10001u, 0xFFC10001u, F32_ONE, 0xBF800000u,
					0x7F800000u, 0xFF800000u, 0, 0x80000000u, 0xFFFF0000u, 0x40000000u };
	static const struct {
		const char *element;
		uint8_t floor[12], rceil;
	} want[] = {
		{ "float8_e4m3fn", { 0x7F, 0xFF, 0x7F, 0xFF, 0, 0x80, 0xFF, 0xFF, 0, 0x80, 0xFF, 0 }, 0x7F },
		{ "float8_e5m2", { 0x7F, 0xFF, 0x7F, 0xFF, 0, 0x80, 0xFF, 0xFF, 0, 0x80, 0xFF, 0 }, 0x7F },
		{ "float6_e2m3fn", { 0x0C, 0x2C, 0x0C, 0x2C, 0, 0x20, 0x2C, 0x2C, 0, 0x20, 0x30, 0 }, 0x0C },
		{ "float6_e3m2fn", { 0x0E, 0x2E, 0x0E, 0x2E, 0, 0x20, 0x2E, 0x2E, 0, 0x20, 0x30, 0 }, 0x0E },
		{ "float4_e2m1fn", { 0x3, 0xB, 0x3, 0xB, 0, 0x8, 0xB, 0xB, 0, 0x8, 0xC, 0 }, 0x3 },
	};
	static const enum fpref_mx_scale_rule rules[] = { FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_SCALE_RNE, FPREF_MX_SCALE_CEIL,
							  FPREF_MX_SCALE_RCEIL_LOG2, FPREF_MX_SCALE_NV_CEIL };
	for (size_t e = 0; e < sizeof want / sizeof want[0]; e++)
		for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
			struct fpref_mx_params p = { want[e].element, rules[r], FPREF_RNE, FPREF_MX_TORCHAO };
			bool rceil = rules[r] == FPREF_MX_SCALE_RCEIL_LOG2 || rules[r] == FPREF_MX_SCALE_NV_CEIL;
			uint8_t c[32], s;
			char err[256];
			ck_assert_msg(fpref_emu_mx_quantize(&p, x, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
			ck_assert_uint_eq(s, 0xFF);
			for (int i = 0; i < 32; i++) {
				uint8_t w = rceil ? want[e].rceil : i < 12 ? want[e].floor[i] : 0;
				ck_assert_msg(c[i] == w, "%s %s x[%d]: code 0x%02X, torchao 0x%02X", want[e].element,
					      fpref_emu_mx_scale_rule_name(rules[r]), i, c[i], w);
			}
			check_mx_case(&p, x, 1, 32, "torchao NaN block");
			p.recipe = FPREF_MX_OCP; /* OCP leaves the codes zero */
			ck_assert_msg(fpref_emu_mx_quantize(&p, x, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
			for (int i = 0; i < 32; i++)
				ck_assert_uint_eq(c[i], 0);
		}
}
END_TEST

/* ModelOpt 0.47's MXFP4QTensor, worked by hand from its source:
 * - {6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, -0.75, -3.5, 0...}: d = fl(6 /
 *   6) = 1, ceil(log2 1) = 0, scale 0x7F.  Each midpoint (0.25, 0.75, 1.25,
 *   1.75, 2.5, 3.5, 5) counts only strictly below |y|, so every tie goes
 *   toward zero: 7, 0, 1, 2, 3, 4, 5, 6, then 9 and D.  Ties to even (OCP)
 *   give 7 0 2 2 4 4 6 6, A and E.  The zeros of the block are 8: sign(0) = 0
 *   and (2 - 0) // 2 = 1.
 * - {2^-100, -2^-100, -0, 0...} with 3 at the end: scale ceil(log2 0.5) =
 *   -1 (0x7E); 2^-99 rounds to +0 (code 0), its negative and every zero to 8,
 *   and 3 to 6 (7).
 * - {inf, 1, 0...} and {NaN, 1, 0...}: scale 00 (uint8 of inf or NaN), and
 *   every code 8 (x / inf is a zero, inf / inf and NaN are NaN, sign 0).
 * - {0 x 32}: log2 0 = -inf, max(-inf, -127) = -127: scale 00, codes 8. */
START_TEST(example_modelopt_mxfp4)
{
	struct fpref_mx_params p = { "float4_e2m1fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_RNE, FPREF_MX_MODELOPT };
	struct fpref_mx_params ocp = p;
	ocp.recipe = FPREF_MX_OCP;
	uint32_t ties[32] = { 0x40C00000u, 0x3E800000u, 0x3F400000u, 0x3FA00000u, 0x3FE00000u,
			      0x40200000u, 0x40600000u, 0x40A00000u, 0xBF400000u, 0xC0600000u };
	static const uint8_t want_mo[10] = { 7, 0, 1, 2, 3, 4, 5, 6, 9, 0xD }, want_ocp[10] = { 7, 0, 2, 2, 4, 4, 6, 6, 0xA, 0xE };
	uint32_t tiny[32] = { 0x0D800000u, 0x8D800000u, 0x80000000u };
	tiny[31] = 0x40400000u;
	uint32_t inf[32] = { 0x7F800000u, F32_ONE }, nan[32] = { 0xFFC00000u, F32_ONE }, zero[32] = { 0 };
	uint8_t c[32], s;
	char err[256];
	ck_assert_msg(fpref_emu_mx_quantize(&p, ties, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(s, 0x7F);
	for (int i = 0; i < 32; i++)
		ck_assert_msg(c[i] == (i < 10 ? want_mo[i] : 8), "modelopt tie %d: code 0x%X", i, c[i]);
	ck_assert_msg(fpref_emu_mx_quantize(&ocp, ties, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
	for (int i = 0; i < 32; i++)
		ck_assert_msg(c[i] == (i < 10 ? want_ocp[i] : 0), "ocp tie %d: code 0x%X", i, c[i]);
	ck_assert_msg(fpref_emu_mx_quantize(&p, tiny, 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(s, 0x7E);
	ck_assert_msg(c[0] == 0 && c[1] == 8 && c[2] == 8 && c[3] == 8 && c[31] == 7, "tiny: %X %X %X %X %X", c[0],
		      c[1], c[2], c[3], c[31]);
	const uint32_t *special[] = { inf, nan, zero };
	for (int k = 0; k < 3; k++) {
		ck_assert_msg(fpref_emu_mx_quantize(&p, special[k], 1, 32, c, &s, err, sizeof err) == 0, "%s", err);
		ck_assert_msg(s == 0x00, "special %d: scale 0x%02X", k, s);
		for (int i = 0; i < 32; i++)
			ck_assert_msg(c[i] == 8, "special %d element %d: 0x%X", k, i, c[i]);
		check_mx_case(&p, special[k], 1, 32, "modelopt mxfp4 special");
	}
	check_mx_case(&p, ties, 1, 32, "modelopt mxfp4 ties");
	check_mx_case(&p, tiny, 1, 32, "modelopt mxfp4 tiny");
}
END_TEST

/* Recipe x rule x element combinations no library computes are refused
 * with what the recipe has; those it has pass. */
START_TEST(mx_recipe_refusals)
{
	static const struct {
		const char *element;
		enum fpref_mx_scale_rule rule;
		enum fpref_rounding rounding;
		enum fpref_mx_recipe recipe;
		bool ok;
	} cases[] = {
		{ "float8_e4m3fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_RNE, FPREF_MX_MODELOPT, true },
		{ "float4_e2m1fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_RNE, FPREF_MX_MODELOPT, true },
		{ "float8_e4m3fn", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_MODELOPT, false },
		{ "float4_e2m1fn", FPREF_MX_SCALE_NV_CEIL, FPREF_RNE, FPREF_MX_MODELOPT, false },
		{ "float8_e5m2", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_RNE, FPREF_MX_MODELOPT, false },
		{ "float8_e4m3fn", FPREF_MX_SCALE_RCEIL_LOG2, FPREF_RNA, FPREF_MX_MODELOPT, false },
		{ "float6_e3m2fn", FPREF_MX_SCALE_CEIL, FPREF_RNE, FPREF_MX_TORCHAO, true },
		{ "float4_e2m1fn", FPREF_MX_SCALE_NV_CEIL, FPREF_RNE, FPREF_MX_TORCHAO, true },
		{ "int8", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_TORCHAO, false },
		{ "float8_e5m2", FPREF_MX_SCALE_RNE, FPREF_RNA, FPREF_MX_TORCHAO, false },
		{ "int8", FPREF_MX_SCALE_CEIL, FPREF_RNA, FPREF_MX_OCP, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fpref_mx_params p = { cases[i].element, cases[i].rule, cases[i].rounding, cases[i].recipe };
		char err[256] = "";
		int rc = fpref_emu_mx_params_check(&p, err, sizeof err);
		ck_assert_msg((rc == 0) == cases[i].ok, "case %zu: %d %s", i, rc, err);
		uint32_t x[32] = { F32_ONE };
		uint8_t c[32], s;
		ck_assert_int_eq(fpref_emu_mx_quantize(&p, x, 1, 32, c, &s, err, sizeof err), rc);
	}
	struct fpref_mx_params p = { "float8_e5m2", FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_MODELOPT };
	char err[256];
	ck_assert_int_eq(fpref_emu_mx_params_check(&p, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "elements e4m3, e2m1; rules rceil-log2") != NULL, "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("scale_mx");
	TCase *cross = tcase_create("emu_vs_ref");
	tcase_set_timeout(cross, 600);
	tcase_add_test(cross, mx_random_tensors);
	tcase_add_test(cross, mx_partial_blocks);
	tcase_add_test(cross, mx_structured);
	tcase_add_test(cross, nvfp4_random_tensors);
	tcase_add_test(cross, nvfp4_structured);
	suite_add_tcase(s, cross);
	TCase *ex = tcase_create("examples");
	tcase_add_test(ex, example_e4m3_scale_rules);
	tcase_add_test(ex, example_e2m1_ties);
	tcase_add_test(ex, example_int8);
	tcase_add_test(ex, example_scale_range_and_specials);
	tcase_add_test(ex, example_dequantize);
	tcase_add_test(ex, example_nvfp4);
	tcase_add_test(ex, example_recipe_order);
	tcase_add_test(ex, nvfp4_stochastic_rate);
	tcase_add_test(ex, bad_parameters);
	tcase_add_test(ex, example_library_recipes);
	tcase_add_test(ex, example_modelopt_mxfp4);
	tcase_add_test(ex, example_torchao_nan_blocks);
	tcase_add_test(ex, mx_recipe_refusals);
	suite_add_tcase(s, ex);
	return test_run(s);
}
