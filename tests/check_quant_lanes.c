/* The quantisers' bulk paths (emu/quant_lanes.h: block amax and scale in
 * one pass, the scaled elements rounded by the array converter's lanes)
 * against their element-by-element paths, which stay the specification:
 * codes, scales and the tensor scale bit for bit, on edge-heavy tensors
 * (zeros of both signs, subnormals, values whose scaled result is
 * subnormal or overflows, powers of two and their neighbours, max finite,
 * NaN and inf in some blocks), for every MX element, scale rule, recipe
 * and rounding, every NVFP4 recipe (1x16 and 16x16 blocks), per-tensor
 * and delayed FP8 and DeepSeek-V3 / TE tiles and blocks; the dequantised
 * values and the error report (its host binary64) too. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_nvfp4.h"

#define F32_NAN 0x7FC00000u
#define F32_INF 0x7F800000u

/* A shape: rows x cols, a short last block where cols is not a multiple. */
static const struct {
	size_t rows, cols;
} shapes[] = { { 33, 100 }, { 20, 37 }, { 3, 256 }, { 130, 130 }, { 1, 5 } };
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Element i of an edge-heavy tensor: each run of 16 has its own scale of
 * magnitude (from FP32's least subnormal to its top), and holds its edges:
 * zeros, powers of two and their neighbours, values far below the run's
 * top (whose scaled value is subnormal), subnormals, max finite; specials
 * (NaN, inf) where asked, in some runs only. */
static uint32_t edge_value(uint64_t seed, size_t i, bool specials)
{
	uint64_t run = fpref_sr_stream(seed, i / 16), r = fpref_sr_stream(seed + 1, i);
	int top = (int)(run % 280) - 150; /* 2^-150 .. 2^129, clamped below */
	uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)(r >> 20) & 0x7FFFFFu;
	int e = top - (int)((r >> 8) % (run & 64 ? 40 : 6));
	switch ((r >> 4) % 16) {
	case 0:
		return sign;
	case 1:
		man = 0; /* a power of two */
		break;
	case 2:
		man = 0x7FFFFFu;
		break;
	case 3:
		man = 1;
		break;
	case 4:
		return sign | (man >> (r >> 32) % 23); /* a subnormal */
	case 5:
		if (specials && (run >> 20) % 4 == 0)
			return (r >> 40) & 1 ? sign | F32_INF : sign | F32_NAN | (man & 0x3FFFFF);
		break;
	case 6:
		return sign | 0x7F7FFFFFu;
	default:
		break;
	}
	if (e > 127)
		e = 127;
	if (e < -126)
		return sign | ((0x800000u | man) >> (e < -150 ? 24 : -126 - e + 1));
	return sign | (uint32_t)(e + 127) << 23 | man;
}

static uint32_t *edge_tensor(uint64_t seed, size_t n, bool specials)
{
	uint32_t *x = malloc((n ? n : 1) * sizeof *x);
	ck_assert_ptr_nonnull(x);
	for (size_t i = 0; i < n; i++)
		x[i] = edge_value(seed, i, specials);
	return x;
}

/* n bytes that must be equal; the first difference reported. */
static void same_bytes(const char *what, const char *how, const uint8_t *got, const uint8_t *want, size_t n,
		       const uint32_t *x)
{
	if (memcmp(got, want, n) == 0)
		return; /* (Check records each assertion it passes: one a tensor, not one a byte) */
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "%s (%s): %s %zu is 0x%02X, the element path's 0x%02X (x 0x%08X)",
			      how, what, x ? "code" : "scale", i, got[i], want[i], x ? x[i] : 0u);
}

static void same_words(const char *what, const char *how, const uint32_t *got, const uint32_t *want, size_t n)
{
	if (memcmp(got, want, n * sizeof *got) == 0)
		return;
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "%s (%s): %zu is 0x%08X, the element path's 0x%08X", how, what, i, got[i],
			      want[i]);
}

/* The report of the bulk path (the host's binary64) against the emulator's, every figure's bits. */
static void same_report(const char *how, const uint32_t *x, const uint32_t *dq, size_t n,
			const struct fpref_format *element, const uint8_t *codes)
{
	struct fpref_quant_report got, want;
	memset(&got, 0, sizeof got);
	memset(&want, 0, sizeof want);
	ck_assert_int_eq(fpref_emu_quant_report_compute_reference(x, dq, n, element, codes, &want), 0);
	ck_assert_int_eq(fpref_emu_quant_report_compute(x, dq, n, element, codes, &got), 0);
	ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
		      "%s: report max_abs %a mean_abs %a max_rel %a mean_rel %a compared %zu saturated %zu, the element "
		      "path's %a %a %a %a %zu %zu",
		      how, got.max_abs, got.mean_abs, got.max_rel, got.mean_rel, got.compared, got.saturated,
		      want.max_abs, want.mean_abs, want.max_rel, want.mean_rel, want.compared, want.saturated);
}

/* ---- MX ---- */

static const char *const mx_elements[] = { "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn",
					   "float4_e2m1fn", "int8" };
static const enum fpref_mx_scale_rule mx_rules[] = { FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_SCALE_NV_CEIL,
						     FPREF_MX_SCALE_RNE, FPREF_MX_SCALE_CEIL,
						     FPREF_MX_SCALE_RCEIL_LOG2 };
static const enum fpref_mx_recipe mx_recipes[] = { FPREF_MX_OCP, FPREF_MX_TORCHAO, FPREF_MX_MODELOPT };

START_TEST(mx_against_element_path)
{
	const char *element = mx_elements[_i];
	char err[256], how[160];
	for (size_t sh = 0; sh < NSHAPES; sh++) {
		size_t rows = shapes[sh].rows, cols = shapes[sh].cols, n = rows * cols;
		size_t ns = fpref_emu_mx_scale_count(rows, cols);
		uint32_t *x = edge_tensor(100 + sh, n, sh % 2 == 0);
		uint8_t *c = malloc(n), *cw = malloc(n), *s = malloc(ns), *sw = malloc(ns);
		uint32_t *d = malloc(n * sizeof *d), *dw = malloc(n * sizeof *dw);
		ck_assert(c && cw && s && sw && d && dw);
		for (size_t ru = 0; ru < sizeof mx_rules / sizeof mx_rules[0]; ru++)
			for (size_t re = 0; re < sizeof mx_recipes / sizeof mx_recipes[0]; re++)
				for (int rna = 0; rna < 2; rna++) {
					struct fpref_mx_params p = { element, mx_rules[ru], rna ? FPREF_RNA : FPREF_RNE,
								     mx_recipes[re] };
					int want = fpref_emu_mx_quantize_reference(&p, x, rows, cols, cw, sw, err, sizeof err);
					int got = fpref_emu_mx_quantize_lanes(&p, x, rows, cols, c, s, err, sizeof err);
					snprintf(how, sizeof how, "%s %s %s %s %zux%zu", element,
						 fpref_emu_mx_scale_rule_name(p.rule), fpref_emu_mx_recipe_name(p.recipe),
						 rna ? "rna" : "rne", rows, cols);
					ck_assert_msg(got == want, "%s: bulk path %d, element path %d", how, got, want);
					if (want != 0)
						continue; /* a combination the recipe lacks: refused both ways */
					same_bytes("MX", how, s, sw, ns, NULL);
					same_bytes("MX", how, c, cw, n, x);
					if ((ru != 0 && p.recipe != FPREF_MX_MODELOPT) || rna)
						continue; /* the dequantisation and the report read codes and scales alone */
					ck_assert_int_eq(fpref_emu_mx_dequantize_reference(&p, cw, sw, rows, cols, dw, err,
											   sizeof err), 0);
					ck_assert_int_eq(fpref_emu_mx_dequantize_lanes(&p, cw, sw, rows, cols, d, err,
										       sizeof err), 0);
					same_words("MX dequantised", how, d, dw, n);
					struct fpref_format f;
					bool int8 = strcmp(element, "int8") == 0;
					if (!int8)
						ck_assert_int_eq(fpref_format_parse(element, &f, err, sizeof err), 0);
					same_report(how, x, dw, n, int8 ? NULL : &f, cw);
				}
		/* a code outside the element: the element path's error */
		if (strcmp(element, "float4_e2m1fn") == 0 || strcmp(element, "float6_e2m3fn") == 0) {
			struct fpref_mx_params p = { element, FPREF_MX_SCALE_OCP_FLOOR, FPREF_RNE, FPREF_MX_OCP };
			sw[0] = FPREF_E8M0_NAN; /* a NaN scale over codes that are not zero */
			cw[0] = 1;
			ck_assert_int_eq(fpref_emu_mx_dequantize_reference(&p, cw, sw, rows, cols, dw, err, sizeof err), 0);
			ck_assert_int_eq(fpref_emu_mx_dequantize_lanes(&p, cw, sw, rows, cols, d, err, sizeof err), 0);
			same_words("MX dequantised, NaN scale", element, d, dw, n);
			cw[n - 1] = 0xFF;
			ck_assert_int_eq(fpref_emu_mx_dequantize_lanes(&p, cw, sw, rows, cols, d, err, sizeof err), 1);
			ck_assert_int_eq(fpref_emu_mx_dequantize(&p, cw, sw, rows, cols, d, err, sizeof err), -1);
		}
		free(x);
		free(c);
		free(cw);
		free(s);
		free(sw);
		free(d);
		free(dw);
	}
}
END_TEST

/* Blocks of 32 whose amax is 6 * 2^e and whose others are multiples of
 * 2^(e - 2) up to it: after the scale, a tie of E2M1 in most places (0.25,
 * 0.75 ... 5), where ModelOpt's cast (ties toward zero) and rne part. */
START_TEST(mx_ties_against_element_path)
{
	size_t rows = 7, cols = 200, n = rows * cols, ns = fpref_emu_mx_scale_count(rows, cols);
	uint32_t *x = malloc(n * sizeof *x);
	uint8_t *c = malloc(2 * (n + ns)); /* one block: codes, scales */
	ck_assert(x && c);
	uint8_t *cw = c + n, *s = cw + n, *sw = s + ns;
	char err[256];
	for (size_t i = 0; i < n; i++) {
		uint64_t r = fpref_sr_stream(5, i);
		int e = (int)(fpref_sr_stream(6, i / 32) % 60) - 30;
		float v = i % 32 == 0 ? 6.0f : (float)(r % 25) * 0.25f;
		v = ldexpf((r >> 32) & 1 ? -v : v, e);
		memcpy(&x[i], &v, sizeof v);
	}
	for (size_t re = 0; re < sizeof mx_recipes / sizeof mx_recipes[0]; re++) {
		enum fpref_mx_scale_rule rule = mx_recipes[re] == FPREF_MX_MODELOPT ? FPREF_MX_SCALE_RCEIL_LOG2
										    : FPREF_MX_SCALE_OCP_FLOOR;
		struct fpref_mx_params p = { "float4_e2m1fn", rule, FPREF_RNE, mx_recipes[re] };
		ck_assert_int_eq(fpref_emu_mx_quantize_reference(&p, x, rows, cols, cw, sw, err, sizeof err), 0);
		ck_assert_int_eq(fpref_emu_mx_quantize_lanes(&p, x, rows, cols, c, s, err, sizeof err), 0);
		same_bytes("MX ties", fpref_emu_mx_recipe_name(p.recipe), s, sw, ns, NULL);
		same_bytes("MX ties", fpref_emu_mx_recipe_name(p.recipe), c, cw, n, x);
	}
	free(x);
	free(c);
}
END_TEST

/* ---- NVFP4 ---- */

static const enum fpref_nvfp4_recipe nvfp4_recipes[] = { FPREF_NVFP4_TE, FPREF_NVFP4_TORCHAO, FPREF_NVFP4_MODELOPT,
							 FPREF_NVFP4_TORCHAO_02A1BC44, FPREF_NVFP4_TORCHAO_1LEVEL,
							 FPREF_NVFP4_MODELOPT_0AD6E5F0, FPREF_NVFP4_FOUR_OVER_SIX };

/* Tensors of one magnitude (runs over 2^-40 of its top, the scaled
 * values' subnormals and flushes included) and of FP32's whole range, some
 * with NaN and inf; TE's under stochastic rounding too (the seeded stream
 * and the Philox one).  The bulk path takes them all. */
START_TEST(nvfp4_against_element_path)
{
	enum fpref_nvfp4_recipe recipe = nvfp4_recipes[_i];
	char err[256], how[160];
	for (size_t sh = 0; sh < NSHAPES; sh++)
		for (int k = 0; k < (recipe == FPREF_NVFP4_TE ? 18 : 6); k++) {
			struct fpref_nvfp4_params p;
			memset(&p, 0, sizeof p);
			p.rht = k >= 12; /* TE's transform: rows of a multiple of 16, BF16 or FP32, stochastic or not */
			p.rht_signs = k % 3 ? 0xD7E8u : 0x1234u;
			p.rht_bf16 = k % 4 != 1;
			size_t rows = shapes[sh].rows, cols = shapes[sh].cols;
			cols = p.rht ? (cols + 15) / 16 * 16 : cols;
			size_t n = rows * cols;
			p.recipe = recipe;
			p.two_d = k % 2 && (recipe == FPREF_NVFP4_TE || recipe == FPREF_NVFP4_FOUR_OVER_SIX);
			p.choice = (enum fpref_nvfp4_choice)(k % 3); /* Four Over Six: abs_max, mae, mse; bound 256 or 448 */
			p.scale_bound = recipe == FPREF_NVFP4_FOUR_OVER_SIX && k % 4 >= 2 ? 448 : 0;
			/* torch's BF16 reductions' NaN, on a tensor with NaN */
			p.torch_bf16 = k == 5 && (recipe == FPREF_NVFP4_TORCHAO || recipe == FPREF_NVFP4_TORCHAO_1LEVEL ||
						  recipe == FPREF_NVFP4_MODELOPT);
			p.stochastic = k >= 6 && k != 12 && k != 13 && k != 14;
			p.seed = 77 + (uint64_t)k;
			if (k >= 9 && k < 12)
				ck_assert_int_eq(fpref_emu_nvfp4_parse_philox("philox=12345:3:1", &p, err, sizeof err), 0);
			uint32_t *x = edge_tensor(300 + sh * 8 + (size_t)k, n, k % 6 >= 4);
			if (k % 6 == 2 || k % 6 == 3) /* one magnitude: FP32's range shifted near 2^e */
				for (size_t i = 0; i < n; i++)
					if ((x[i] & 0x7F800000u) != 0x7F800000u && (x[i] & 0x7F800000u) > 0x3F800000u)
						x[i] = (x[i] & 0x807FFFFFu) | (uint32_t)(0x3F800000u + (x[i] & 0x0F800000u));
			size_t ns = fpref_emu_nvfp4_scale_count(&p, rows, cols);
			uint8_t *c = malloc(n), *cw = malloc(n), *s = malloc(ns), *sw = malloc(ns);
			ck_assert(c && cw && s && sw);
			uint32_t t = 0, tw = 0;
			ck_assert_int_eq(fpref_emu_nvfp4_quantize_reference(&p, x, rows, cols, cw, sw, &tw, err, sizeof err), 0);
			int got = fpref_emu_nvfp4_quantize_lanes(&p, x, rows, cols, c, s, &t, err, sizeof err);
			snprintf(how, sizeof how, "nvfp4 %s %s%s%s %zux%zu case %d", fpref_emu_nvfp4_recipe_name(recipe),
				 p.two_d ? "16x16" : "1x16", p.philox ? " sr philox" : p.stochastic ? " sr" : "",
				 p.rht ? " rht" : p.torch_bf16 ? " torch bf16" : "", rows, cols, k);
			if (recipe == FPREF_NVFP4_FOUR_OVER_SIX)
				snprintf(how + strlen(how), sizeof how - strlen(how), " %s/%u",
					 fpref_emu_nvfp4_choice_name(p.choice), p.scale_bound);
			ck_assert_msg(got == 0, "%s: the bulk path gave %d", how, got);
			ck_assert_msg(t == tw, "%s: tensor scale 0x%08X, the element path's 0x%08X", how, t, tw);
			same_bytes("NVFP4", how, s, sw, ns, NULL);
			same_bytes("NVFP4", how, c, cw, n, x);
			uint32_t *d = malloc(n * sizeof *d), *dw = malloc(n * sizeof *dw);
			ck_assert(d && dw);
			ck_assert_int_eq(fpref_emu_nvfp4_dequantize_reference(&p, cw, sw, tw, rows, cols, dw, err, sizeof err), 0);
			/* the transform's inverse and Four Over Six's too */
			ck_assert_int_eq(fpref_emu_nvfp4_dequantize_lanes(&p, cw, sw, tw, rows, cols, d, err, sizeof err), 0);
			same_words("NVFP4 dequantised", how, d, dw, n);
			same_report(how, x, dw, n, fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN), cw);
			free(d);
			free(dw);
			free(x);
			free(c);
			free(cw);
			free(s);
			free(sw);
		}
}
END_TEST

/* The bulk path's codes, scales and tensor scale against the element path's. */
static void nvfp4_same_as_element_path(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
				       const char *how)
{
	char err[256];
	size_t n = rows * cols, ns = fpref_emu_nvfp4_scale_count(p, rows, cols);
	uint8_t *c = malloc(n), *cw = malloc(n), *s = malloc(ns), *sw = malloc(ns);
	ck_assert(c && cw && s && sw);
	uint32_t t = 0, tw = 0;
	ck_assert_int_eq(fpref_emu_nvfp4_quantize_reference(p, x, rows, cols, cw, sw, &tw, err, sizeof err), 0);
	ck_assert_int_eq(fpref_emu_nvfp4_quantize_lanes(p, x, rows, cols, c, s, &t, err, sizeof err), 0);
	ck_assert_msg(t == tw, "%s: tensor scale 0x%08X, the element path's 0x%08X", how, t, tw);
	same_bytes("NVFP4", how, s, sw, ns, NULL);
	same_bytes("NVFP4", how, c, cw, n, x);
	free(c);
	free(cw);
	free(s);
	free(sw);
}

/* Four Over Six where the two candidates' errors tie or nearly do: each
 * block's elements are multiples of amax / 24 (amax among a few
 * magnitudes), so that both scalings often land on E2M1's grid and the
 * choice turns on equal errors (6 kept) or on the last bit of a step of
 * the error.  Rows of whole blocks (1x16), a ragged row and 16x16 blocks
 * (bands of four blocks, of eight and more, of ten, a last band of four
 * rows); every choice and bound; and a tensor of signed zeros,
 * whose scales are 0 / 0 (the emulator's NaN, not the host's). */
START_TEST(nvfp4_four_over_six_near_ties)
{
	static const struct {
		size_t rows, cols;
		bool two_d;
	} shape[] = { { 64, 256, false }, { 16, 250, false }, { 32, 64, true },  { 5, 48, false },
		      { 3, 80, false },	  { 1, 112, false }, { 32, 256, true }, { 16, 160, true },
		      { 20, 128, true } };
	static const uint32_t amax[] = { 0x40C00000u, 0x40A00000u, 0x40F00000u, 0x3DCCCCCDu, 0x4E6E6B28u }; /* 6 5 7.5 0.1 1e9 */
	char how[128];
	for (size_t sh = 0; sh < sizeof shape / sizeof shape[0]; sh++)
		for (int k = 0; k < 6; k++) {
			struct fpref_nvfp4_params p;
			memset(&p, 0, sizeof p);
			p.recipe = FPREF_NVFP4_FOUR_OVER_SIX;
			p.choice = (enum fpref_nvfp4_choice)(k % 3);
			p.scale_bound = k >= 3 ? 448 : 256;
			p.two_d = shape[sh].two_d;
			size_t rows = shape[sh].rows, cols = shape[sh].cols, n = rows * cols;
			uint32_t *x = malloc(n * sizeof *x);
			ck_assert_ptr_nonnull(x);
			for (size_t i = 0; i < n; i++) {
				uint64_t r = fpref_sr_stream(900 + (uint64_t)k, i);
				if (k == 5 && sh == 0) { /* a tensor of zeros: amax 0, 0 / 0 a NaN scale */
					x[i] = (uint32_t)(r & 1) << 31;
					continue;
				}
				size_t blk = (i / cols) / (p.two_d ? 16 : 1) * cols + i % cols / 16; /* one amax a block */
				float a = quant_f32(amax[fpref_sr_stream(950 + (uint64_t)k, blk) % 5]);
				float v = i % 16 == 3 ? a : a * (float)(r % 25) / 24.0f;
				x[i] = quant_bits(v) | (uint32_t)((r >> 40) & 1) << 31;
			}
			snprintf(how, sizeof how, "four over six near ties %zux%zu%s %s/%u", rows, cols, p.two_d ? " 16x16" : "",
				 fpref_emu_nvfp4_choice_name(p.choice), p.scale_bound);
			nvfp4_same_as_element_path(&p, x, rows, cols, how);
			free(x);
		}
}
END_TEST

/* Four Over Six's table of dequantised values (fpref_emu_nvfp4_four_six_tables:
 * the host's FP32 steps), which both bulk paths' errors read, against the
 * element path's fpref_emu_nvfp4_dequant_46 (the emulator's): every scale
 * code and element code, both bounds, tensor scales from +0 and the least
 * subnormal to FLT_MAX and inf; the same bits, or both NaN (a NaN error
 * sends its block to the element path). */
START_TEST(nvfp4_four_six_table)
{
	static const uint32_t tensor[] = { 0x00000000u, 0x00000001u, 0x00800000u, 0x3DCCCCCDu, 0x3F800000u,
					   0x40C00000u, 0x4E6E6B28u, 0x7F7FFFFFu, 0x7F800000u };
	char err[256];
	for (int bound = 0; bound < 2; bound++)
		for (size_t t = 0; t < sizeof tensor / sizeof tensor[0]; t++) {
			struct fpref_nvfp4_params p;
			memset(&p, 0, sizeof p);
			p.recipe = FPREF_NVFP4_FOUR_OVER_SIX;
			p.scale_bound = bound ? 448 : 0;
			struct nvfp4 q;
			ck_assert_int_eq(fpref_emu_nvfp4_init(&q, &p, 16, 16, err, sizeof err), 0);
			ck_assert(!q.a.host); /* the element path's steps by the emulator, not the host */
			q.T = tensor[t];
			struct four_six f;
			memset(&f, 0, sizeof f);
			f.deq = malloc(256 * 16 * sizeof *f.deq);
			ck_assert_ptr_nonnull(f.deq);
			fpref_emu_nvfp4_four_six_tables(&q, &f);
			for (unsigned c = 0; c < 256; c++)
				for (unsigned k = 0; k < 16; k++) {
					uint32_t got = quant_bits(f.deq[16 * c + k]);
					uint32_t want = fpref_emu_nvfp4_dequant_46(&q, (uint8_t)k, f.scale[c]);
					ck_assert_msg(got == want || (quant_is_nan(got) && quant_is_nan(want)),
						      "bound %s, T 0x%08X, scale code 0x%02X, element code %u: table 0x%08X, "
						      "the element path's 0x%08X",
						      bound ? "448" : "256", tensor[t], c, k, got, want);
				}
			fpref_emu_nvfp4_four_six_free(&f);
		}
}
END_TEST

/* Dequantised values that overflow to +-inf in one group of 16: the
 * transform's inverse sums inf and -inf, whose NaN the host gives
 * negative (x86's default NaN) and the emulator its own; the bulk path must
 * give the emulator's.  T tiny: 1/T near FLT_MAX, so +-6 * 448 / T
 * overflows. */
START_TEST(nvfp4_rht_inverse_of_infinities)
{
	char err[256];
	struct fpref_nvfp4_params p;
	memset(&p, 0, sizeof p);
	p.recipe = FPREF_NVFP4_TE;
	p.rht = true;
	p.rht_signs = 0xD7E8u;
	p.rht_bf16 = true;
	enum { ROWS = 2, COLS = 32 };
	uint8_t codes[ROWS * COLS], scales[ROWS * COLS / 16];
	for (size_t i = 0; i < ROWS * COLS; i++)
		codes[i] = i % 16 < 2 ? (uint8_t)(i % 2 ? 0xF : 0x7) : (uint8_t)(i % 8); /* +6, -6, then smaller */
	for (size_t b = 0; b < ROWS * COLS / 16; b++)
		scales[b] = b % 2 ? 0x7E : 0x30; /* 448, 1 */
	static const uint32_t tensor_scales[] = { 0x00800000u, 0x01000000u, 0x3F800000u };
	for (size_t t = 0; t < sizeof tensor_scales / sizeof tensor_scales[0]; t++) {
		uint32_t d[ROWS * COLS], dw[ROWS * COLS];
		ck_assert_int_eq(fpref_emu_nvfp4_dequantize_reference(&p, codes, scales, tensor_scales[t], ROWS, COLS, dw, err,
								      sizeof err), 0);
		ck_assert_int_eq(fpref_emu_nvfp4_dequantize_lanes(&p, codes, scales, tensor_scales[t], ROWS, COLS, d, err,
								  sizeof err), 0);
		char how[64];
		snprintf(how, sizeof how, "rht inverse, tensor scale 0x%08X", tensor_scales[t]);
		same_words("NVFP4 dequantised", how, d, dw, ROWS * COLS);
	}
}
END_TEST

/* Group g of x made so that the transform's output 0 is t (normal, from
 * 2^-100): x_0..x_3 = A (t's top 12 bits) and x_4 = 4 (t - A), each signed
 * as the sign vector's bit j, so that output 0 sums A / 4 four times, then
 * t - A, each sum exact; the others zeros.  wide: x_j = t (FP32's top: the
 * sum overflows).  Output 0 as the host sums it, in order from +0. */
static uint32_t transform_peak(uint32_t *x, size_t g, uint32_t t, bool wide, unsigned signs)
{
	float top = quant_f32(t & 0xFFFFF000u), low = quant_f32(t) - top, sum = 0;
	for (unsigned j = 0; j < 16; j++) {
		float v = wide || j < 4 ? (wide ? quant_f32(t) : top) : j == 4 ? 4 * low : 0;
		x[16 * g + j] = quant_bits(v) | ((signs >> j) & 1u) << 31;
		sum = sum + quant_f32(x[16 * g + j]) * (((signs >> j) & 1u) ? -0.25f : 0.25f);
	}
	return quant_bits(sum);
}

/* The tensor's largest magnitude after the transform (the bulk path's
 * first pass, which rounds only that maximum to BF16 and skips groups
 * bounded below the largest so far) against the element path: maxima on
 * BF16's ties (down and up), just below and at BF16's overflow, FP32's
 * overflow to inf, NaN groups (a NaN input, inf - inf) beside a tie, a
 * tensor of signed zeros, and a tie one float above an earlier maximum;
 * (each sum checked by the host); the peak in the first 16 groups, in a later 16 (skipped but for it) and
 * in the last, shorter run of groups; BF16 and FP32 outputs, 1x16 and 16x16. */
START_TEST(nvfp4_rht_tensor_maxima)
{
	static const uint32_t peak[] = { 0x3F808000u, 0x3F818000u, 0x7F7F7FFFu, 0x7F7F8000u, 0x7F7FFFFFu,
					 0x7F7FFFFFu, 0x3F818000u, 0x3F818000u, 0,	    0x3F818000u };
	static const size_t at[] = { 0, 17, 60, 100 };
	enum { ROWS = 37, COLS = 48, N = ROWS * COLS }; /* 111 groups: six of 16, then 15 */
	const unsigned signs = 0xD7E8u;
	char how[128];
	uint32_t *x = malloc(N * sizeof *x);
	ck_assert_ptr_nonnull(x);
	for (int k = 0; k < (int)(sizeof peak / sizeof peak[0]); k++)
		for (size_t a = 0; a < sizeof at / sizeof at[0]; a++)
			for (int v = 0; v < 4; v++) {
				for (size_t i = 0; i < N; i++) { /* below 2^-3 after the transform */
					uint64_t r = fpref_sr_stream(4000 + (uint64_t)k, i);
					x[i] = k == 8 ? (uint32_t)(r & 1) << 31 /* signed zeros */
						      : (uint32_t)(r >> 63) << 31 | (uint32_t)(107 + r % 15) << 23 |
								(uint32_t)(r >> 8 & 0x7FFFFF);
				}
				if (k == 9) /* an earlier maximum just below, rounded down to BF16 */
					ck_assert_uint_eq(transform_peak(x, 5, 0x3F817000u, false, signs), 0x3F817000u);
				if (k == 6)
					x[16 * 40 + 3] = F32_NAN;
				if (k == 7) { /* inf - inf in some outputs */
					x[16 * 80] = F32_INF;
					x[16 * 80 + 1] = F32_INF;
				}
				if (k != 8) /* the peak, and where it overflows, inf */
					ck_assert_uint_eq(transform_peak(x, at[a], peak[k], k == 5, signs),
							  k == 5 ? F32_INF : peak[k]);
				struct fpref_nvfp4_params p;
				memset(&p, 0, sizeof p);
				p.recipe = FPREF_NVFP4_TE;
				p.rht = true;
				p.rht_signs = signs;
				p.rht_bf16 = v % 2 == 0;
				p.two_d = v >= 2;
				snprintf(how, sizeof how, "rht maxima: peak 0x%08X%s in group %zu, %s, %s", peak[k],
					 k == 5 ? " (overflow to inf)" : k == 6 || k == 7 ? " beside NaN" : "", at[a],
					 p.rht_bf16 ? "bf16" : "fp32", p.two_d ? "16x16" : "1x16");
				nvfp4_same_as_element_path(&p, x, ROWS, COLS, how);
			}
	free(x);
}
END_TEST

/* The skip's margin: a tile whose outputs the pairwise bound C puts at
 * the largest so far (1.5) but whose in-order sums round up fifteen times
 * above it (out_0 of group 16: 1.5 - 8 2^-23, then fifteen terms just above
 * half an ulp each), FP32 output (BF16 would round it back to 1.5): a
 * bound without the margin skips that tile and misses its maximum. */
START_TEST(nvfp4_rht_skip_margin)
{
	enum { ROWS = 32, COLS = 256 };
	const unsigned signs = 0xD7E8u;
	uint32_t *x = calloc(ROWS * COLS, sizeof *x);
	ck_assert_ptr_nonnull(x);
	x[0] = 0x40C00000u | (signs & 1u) << 31; /* 6: every output of group 0 +-1.5 */
	for (unsigned j = 0; j < 16; j++) {
		float a = j == 0 ? 1.5f - 8 * 0x1p-23f : 0x1p-24f + 0x1p-34f, v = 4 * a;
		memcpy(&x[256 + j], &v, sizeof v);
		x[256 + j] |= ((signs >> j) & 1u) << 31;
	}
	float out0 = 0; /* output 0 of group 16 by the host, in order: above 1.5 */
	for (unsigned j = 0; j < 16; j++)
		out0 = out0 + quant_f32(x[256 + j]) * (((signs >> j) & 1u) ? -0.25f : 0.25f);
	ck_assert_uint_eq(quant_bits(out0), 0x3FC00007u);
	struct fpref_nvfp4_params p;
	memset(&p, 0, sizeof p);
	p.recipe = FPREF_NVFP4_TE;
	p.rht = true;
	p.rht_signs = signs;
	nvfp4_same_as_element_path(&p, x, ROWS, COLS, "rht maxima: fifteen roundings up past the largest so far");
	free(x);
}
END_TEST

/* The transform at sixteen lanes (an AVX-512 CPU's) and at eight (an AVX2
 * CPU's): the same outputs (bits, or both NaN: a NaN's payload is the
 * order of an addition's operands, and the bulk path makes a NaN group
 * again by the emulator), the same answer to whether one is NaN, and the
 * same tensor maximum (bits, or both above inf), forward and inverse, for
 * counts of groups that end a run of four anywhere and span several tiles
 * of the maximum's skip; values edge-heavy with and without NaN and inf,
 * and runs of small values after a large one (tiles skipped).  Only one
 * runs in the element-path tests on a given CPU; this holds the other to
 * it. */
START_TEST(nvfp4_rht_eight_lanes_agree)
{
	static const size_t groups[] = { 1, 2, 3, 4, 5, 7, 16, 17, 33, 80, 161 };
	const size_t most = 161 * 16;
	uint32_t *x = malloc(most * sizeof *x), *out[2];
	out[0] = malloc(most * sizeof *out[0]);
	out[1] = malloc(most * sizeof *out[1]);
	ck_assert(x && out[0] && out[1]);
	for (unsigned trial = 0; trial < 12; trial++) {
		uint64_t seed = 9000 + trial;
		for (size_t i = 0; i < most; i++) {
			x[i] = edge_value(seed, i, trial % 3 == 1);
			if (trial % 3 == 2) /* small after a large first group: the maximum's tiles skipped */
				x[i] = i < 16 ? 0x4B000000u : (x[i] & 0x807FFFFFu) | 0x3C000000u;
		}
		unsigned signs = (unsigned)fpref_sr_stream(seed, most) & 0xFFFFu;
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
			size_t n = 16 * groups[g];
			for (int inverse = 0; inverse < 2; inverse++) {
				bool nan[2];
				for (int w8 = 0; w8 < 2; w8++) {
					memset(out[w8], 0xEE, most * sizeof *out[w8]);
					nan[w8] = fpref_emu_nvfp4_hadamard_host(signs, inverse, x, n, out[w8], 0, w8);
				}
				ck_assert_msg(nan[0] == nan[1], "trial %u, %zu groups%s: NaN %d at sixteen lanes, %d at eight",
					      trial, groups[g], inverse ? ", inverse" : "", nan[0], nan[1]);
				for (size_t i = 0; i < most; i++)
					ck_assert_msg(out[0][i] == out[1][i] ||
							      (i < n && quant_is_nan(out[0][i]) && quant_is_nan(out[1][i])),
						      "trial %u, %zu groups%s, output %zu: 0x%08X at sixteen lanes, 0x%08X at eight",
						      trial, groups[g], inverse ? ", inverse" : "", i, out[0][i], out[1][i]);
			}
			uint32_t m16 = fpref_emu_nvfp4_hadamard_host_max(signs, x, n, false);
			uint32_t m8 = fpref_emu_nvfp4_hadamard_host_max(signs, x, n, true);
			ck_assert_msg(m16 == m8 || (m16 > F32_INF && m8 > F32_INF),
				      "trial %u, %zu groups: maximum 0x%08X at sixteen lanes, 0x%08X at eight", trial,
				      groups[g], m16, m8);
		}
	}
	free(out[0]);
	free(out[1]);
	free(x);
}
END_TEST

/* ---- FP8: per-tensor, tiles and blocks ---- */

/* float32(code) * factor rounded once, by the emulator's conversion and product. */
static uint32_t emu_dequant(const struct fpref_format *el, uint8_t code, uint32_t factor)
{
	struct fpref_env env;
	fpref_env_default(&env);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t v = 0, in[2], out = 0;
	unsigned flags = 0;
	fpref_emu_convert(el, code, f32, &env, 0, &v, &flags);
	in[0] = v;
	in[1] = factor;
	fpref_emu_op(FPREF_OP_MUL, f32, in, &env, 0, &out, &flags);
	return (uint32_t)out;
}

static const char *const fp8_elements[] = { "float8_e4m3fn", "float8_e5m2" };
static const enum fpref_amax_nan nan_policies[] = { FPREF_AMAX_NAN_DEFAULT, FPREF_AMAX_NAN_IGNORE,
						    FPREF_AMAX_NAN_PROPAGATE };

/* Whole tensors (amax near FP32's top), and slices of one run or a few
 * (each with an amax of its own, over FP32's range). */
START_TEST(fp8_tensor_against_element_path)
{
	struct fpref_format el;
	char err[256];
	ck_assert_int_eq(fpref_format_parse(fp8_elements[_i % 2], &el, err, sizeof err), 0);
	const size_t N = 4000;
	uint32_t *x = edge_tensor(7 + (uint64_t)_i, N, _i >= 2);
	uint8_t *c = malloc(N), *cw = malloc(N);
	ck_assert(c && cw);
	const uint32_t eps[] = { 0, 0x3F800000u, 0x00000001u };
	for (size_t k = 0; k < 180; k++) {
		size_t first = k < 4 ? 0 : 16 * k, n = k < 4 ? N : 1 + k % 40;
		struct fpref_current_params p = { &el, k % 2 == 1, eps[k % 3], nan_policies[(k / 3) % 3] };
		uint32_t a[3], aw[3];
		ck_assert_int_eq(fpref_emu_current_quantize_reference(&p, x + first, n, cw, &aw[0], &aw[1], &aw[2], err,
								      sizeof err), 0);
		ck_assert_int_eq(fpref_emu_current_quantize_lanes(&p, x + first, n, c, &a[0], &a[1], &a[2], err, sizeof err),
				 0);
		char how[160];
		snprintf(how, sizeof how, "%s tensor of %zu at %zu pow2 %d eps 0x%08X", el.name, n, first, (int)p.pow2,
			 p.eps);
		for (int f = 0; f < 3; f++)
			ck_assert_msg(a[f] == aw[f], "%s: amax/scale/scale_inv %d 0x%08X, the element path's 0x%08X", how, f,
				      a[f], aw[f]);
		same_bytes("FP8", how, c, cw, n, x + first);
		uint32_t d[4000], dw[4000] = { 0 };
		ck_assert_int_eq(fpref_emu_dequantize_scaled(&el, cw, n, aw[2], d, err, sizeof err), 0);
		for (size_t i = 0; i < n; i++)
			dw[i] = emu_dequant(&el, cw[i], aw[2]);
		same_words("FP8 dequantised", how, d, dw, n);
		same_report(how, x + first, dw, n, &el, cw);
	}
	free(x);
	free(c);
	free(cw);
}
END_TEST

START_TEST(fp8_blocks_against_element_path)
{
	struct fpref_format el;
	char err[256];
	ck_assert_int_eq(fpref_format_parse(fp8_elements[_i % 2], &el, err, sizeof err), 0);
	const size_t rows = 260, cols = 300, n = rows * cols;
	uint32_t *x = edge_tensor(11 + (uint64_t)_i, n, true);
	uint8_t *c = malloc(n), *cw = malloc(n);
	uint32_t *f = malloc(n * sizeof *f), *fw = malloc(n * sizeof *fw);
	ck_assert(c && cw && f && fw);
	for (int k = 0; k < 12; k++) {
		bool te = k % 2 || _i == 1, pow2 = te && (k / 2) % 2; /* DeepSeek-V3's element is E4M3 */
		size_t block_rows = k % 4 < 2 ? 1 : 128;
		struct fpref_block_params p = { &el,  te ? FPREF_BLOCK_TE : FPREF_BLOCK_DEEPSEEK, block_rows, 128, pow2,
						k >= 8 ? 0 : te ? 0x00800000u : FPREF_F32_DEEPSEEK_EPS, nan_policies[k % 3] };
		ck_assert_msg(fpref_emu_block_quantize_reference(&p, x, rows, cols, cw, fw, err, sizeof err) == 0, "%d: %s", k, err);
		ck_assert_int_eq(fpref_emu_block_quantize_lanes(&p, x, rows, cols, c, f, err, sizeof err), 0);
		size_t nf = fpref_scale_blocks(rows, block_rows) * fpref_scale_blocks(cols, 128);
		char how[160];
		snprintf(how, sizeof how, "%s %s %zux128 pow2 %d eps 0x%08X", el.name, te ? "te" : "deepseek", block_rows,
			 (int)pow2, p.eps);
		for (size_t b = 0; b < nf && memcmp(f, fw, nf * sizeof *f) != 0; b++)
			ck_assert_msg(f[b] == fw[b], "%s: factor %zu 0x%08X, the element path's 0x%08X", how, b, f[b], fw[b]);
		same_bytes("FP8 blocks", how, c, cw, n, x);
		uint32_t *d = malloc(n * sizeof *d), *dw = malloc(n * sizeof *dw);
		ck_assert(d && dw);
		ck_assert_int_eq(fpref_emu_block_dequantize(&p, cw, fw, rows, cols, d, err, sizeof err), 0);
		for (size_t i = 0; i < n; i++)
			dw[i] = emu_dequant(&el, cw[i], fw[(i / cols / block_rows) * fpref_scale_blocks(cols, 128) + i % cols / 128]);
		same_words("FP8 blocks dequantised", how, d, dw, n);
		free(d);
		free(dw);
	}
	free(x);
	free(c);
	free(cw);
	free(f);
	free(fw);
}
END_TEST

/* Delayed scaling's steps: the bulk path against the element path, which
 * every quantiser takes where the FPU does not round to nearest (so that
 * this also holds the step-aside to the element path). */
START_TEST(delayed_against_element_path)
{
	struct fpref_format el;
	char err[256];
	ck_assert_int_eq(fpref_format_parse(fp8_elements[_i], &el, err, sizeof err), 0);
	const size_t N = 600, T = 12;
	uint32_t *x = edge_tensor(21 + (uint64_t)_i, N * T, true);
	uint8_t c[600], cw[600];
	struct fpref_delayed_params p = { &el, 4, FPREF_AMAX_MAX, 0, FPREF_AMAX_NAN_DEFAULT };
	struct fpref_delayed_state s, sw;
	ck_assert_int_eq(fpref_delayed_init(&s, &p, err, sizeof err), 0);
	ck_assert_int_eq(fpref_delayed_init(&sw, &p, err, sizeof err), 0);
	for (size_t t = 0; t < T; t++) {
		uint32_t used, usedw, a, aw;
		ck_assert(fpref_emu_quant_fpu_plain());
		ck_assert_int_eq(fpref_emu_delayed_step(&s, x + t * N, N, c, &used, &a, err, sizeof err), 0);
		ck_assert_int_eq(fesetround(FE_UPWARD), 0);
		ck_assert(!fpref_emu_quant_fpu_plain());
		int status = fpref_emu_delayed_step(&sw, x + t * N, N, cw, &usedw, &aw, err, sizeof err);
		uint8_t cb[600];
		struct fpref_current_params cp = { &el, false, 0, FPREF_AMAX_NAN_DEFAULT };
		int stepped_aside = fpref_emu_current_quantize_lanes(&cp, x + t * N, N, cb, NULL, NULL, NULL, err, sizeof err);
		ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
		ck_assert_int_eq(status, 0);
		ck_assert_int_eq(stepped_aside, 1);
		ck_assert_msg(used == usedw && a == aw, "step %zu: scale_inv 0x%08X amax 0x%08X, the element path's 0x%08X 0x%08X",
			      t, used, a, usedw, aw);
		same_bytes("delayed", el.name, c, cw, N, x + t * N);
	}
	fpref_delayed_free(&s);
	fpref_delayed_free(&sw);
	free(x);
}
END_TEST

/* The stretches' maxima (sixteen at a time by halving steps, the rest one
 * by one) against each stretch's largest magnitude found element by
 * element: every count from 0 to 40 (so that a group of sixteen and a tail
 * are met), each stretch's largest in every lane in turn, NaN and inf
 * among them, and a previous maximum above or below each. */
START_TEST(stretch_maxima_each_lane)
{
	enum { MAXC = 40 };
	static uint32_t x[MAXC * 16];
	uint64_t draw = 0;
	static const uint32_t peaks[] = { 0x7FC00001u, 0xFF800000u, 0x7F7FFFFFu, 0x00000001u, 0x80000000u, 0x3F800000u };
	for (size_t count = 0; count <= MAXC; count++)
		for (unsigned lane = 0; lane < 16; lane++) {
			uint32_t most[MAXC], had[MAXC];
			for (size_t i = 0; i < count * 16; i++) /* below every peak but the smallest */
				x[i] = (uint32_t)(fpref_sr_stream(99, draw++) >> 32) & 0x807FFFFFu;
			for (size_t j = 0; j < count; j++) {
				x[16 * j + (lane + j) % 16] = peaks[(j + lane) % (sizeof peaks / sizeof peaks[0])];
				had[j] = most[j] = j % 3 == 0 ? 0x3F800001u : 0;
			}
			fpref_emu_quant_stretch_maxima(x, count, most);
			for (size_t j = 0; j < count; j++) {
				uint32_t want = had[j];
				for (unsigned k = 0; k < 16; k++)
					want = (x[16 * j + k] & 0x7FFFFFFFu) > want ? x[16 * j + k] & 0x7FFFFFFFu : want;
				ck_assert_msg(most[j] == want, "count %zu, lane %u: stretch %zu's largest 0x%08X, want 0x%08X",
					      count, lane, j, most[j], want);
			}
		}
}
END_TEST

/* Four Over Six's errors and choice for eight blocks at sixteen lanes
 * (fpref_emu_nvfp4_group_46, which an AVX-512 CPU runs) and at eight
 * (fpref_emu_nvfp4_group_46_eight, which an AVX2 CPU runs): the same
 * returned bits, scale codes, element codes and errors (as bits), for each
 * choice, rows of whole blocks and 16x16 blocks, every count of chains
 * from 1 to 16 (errors equal as bits or both NaN: a NaN's payload is the
 * order of an addition's operands, and its block the element path's), values with NaN and inf among them, dequantised values a
 * real table's (T 1) with NaN, inf and -0 written over some, and amaxes
 * above inf.  Only one runs in the element-path tests on a given CPU;
 * this holds the other to it. */
START_TEST(nvfp4_four_six_groups_agree)
{
	enum { NB = 8, B = FPREF_NVFP4_BLOCK, STRIDE = NB * B + 16 };
	static const enum fpref_nvfp4_choice choices[] = { FPREF_NVFP4_MSE, FPREF_NVFP4_MAE, FPREF_NVFP4_ABS_MAX };
	static const float specials[] = { NAN, INFINITY, -INFINITY, -0.0f, 0x1p-149f, 3.0e38f };
	char err[256];
	struct fpref_nvfp4_params p;
	memset(&p, 0, sizeof p);
	p.recipe = FPREF_NVFP4_FOUR_OVER_SIX;
	struct nvfp4 q;
	ck_assert_int_eq(fpref_emu_nvfp4_init(&q, &p, 16, 16, err, sizeof err), 0);
	q.T = 0x3F800000u;
	struct four_six f;
	memset(&f, 0, sizeof f);
	f.deq = malloc(256 * 16 * sizeof *f.deq);
	uint32_t *x = malloc(B * STRIDE * sizeof *x);
	uint8_t *c = malloc(2 * NB * B * B + 16 * B), *codes[2];
	codes[0] = malloc(B * STRIDE);
	codes[1] = malloc(B * STRIDE);
	ck_assert(f.deq && x && c && codes[0] && codes[1]);
	fpref_emu_nvfp4_four_six_tables(&q, &f);
	uint64_t seed = 46;
	for (unsigned trial = 0; trial < 48; trial++) {
		bool wild = trial % 3 == 2; /* specials in the values, the table and the amaxes */
		for (size_t i = 0; i < (size_t)B * STRIDE; i++) {
			uint64_t r = fpref_sr_stream(seed, i);
			x[i] = edge_value(seed, i, wild);
			if (!wild && (r & 3))
				x[i] = quant_bits(f.deq[16 * (r >> 8 & 255) + (r >> 16 & 15)]); /* a candidate's value: a tie */
		}
		for (size_t i = 0; i < 2 * NB * B * B + 16 * B; i++)
			c[i] = (uint8_t)fpref_sr_stream(seed + 1, i);
		uint8_t sc[16];
		uint32_t raw[NB];
		for (unsigned j = 0; j < 16; j++)
			sc[j] = (uint8_t)(fpref_sr_stream(seed + 2, j) % 127); /* a finite scale: NaN's rows come below */
		for (unsigned i = 0; i < NB; i++)
			raw[i] = wild && i == trial % NB ? 0xFFFFFFFFu : 0x40000000u;
		if (wild)
			for (unsigned j = 0; j < 16; j += 5) /* some entries of the rows in use */
				f.deq[16 * sc[j] + j % 16] = specials[(trial + j) % (sizeof specials / sizeof specials[0])];
		for (size_t ch = 0; ch < sizeof choices / sizeof choices[0]; ch++)
			for (size_t rows = 1; rows <= B; rows += B - 1)
				for (size_t chains = 1; chains <= 16; chains++) {
					uint8_t sb[2][NB];
					float e[2][16];
					unsigned again[2];
					for (int w8 = 0; w8 < 2; w8++) {
						memset(codes[w8], 0xEE, B * STRIDE);
						memset(sb[w8], 0xEE, NB);
						memset(e[w8], 0xEE, sizeof e[w8]);
						const struct band_46 w = { x, c, codes[w8], NB, rows, STRIDE };
						again[w8] = (w8 ? fpref_emu_nvfp4_group_46_eight
								: fpref_emu_nvfp4_group_46)(&f, choices[ch], &w, 0, chains, sc, raw,
											   sb[w8], e[w8]);
					}
					bool same_errors = true; /* the same bits, or both NaN (a NaN's block is the element path's) */
					for (size_t j = 0; chains < 16 && j < chains; j++)
						same_errors = same_errors && (quant_bits(e[0][j]) == quant_bits(e[1][j]) ||
									      (e[0][j] != e[0][j] && e[1][j] != e[1][j]));
					ck_assert_msg(again[0] == again[1] && !memcmp(sb[0], sb[1], NB) &&
							      !memcmp(codes[0], codes[1], B * STRIDE) &&
							      same_errors,
						      "trial %u, choice %d, rows %zu, chains %zu: sixteen lanes' result "
						      "0x%02X, eight lanes' 0x%02X (or their scales, codes or errors differ)",
						      trial, (int)choices[ch], rows, chains, again[0], again[1]);
				}
		if (wild)
			fpref_emu_nvfp4_four_six_tables(&q, &f);
		seed += 3;
	}
	free(codes[0]);
	free(codes[1]);
	free(c);
	free(x);
	fpref_emu_nvfp4_four_six_free(&f);
}
END_TEST

/* A tensor's largest magnitude and its largest but NaN's
 * (fpref_emu_quant_tensor_maxima, vectors of eight and a scalar tail, the
 * lines ahead fetched) against a loop here: every count to 80 and counts
 * about the fetch's distance, each holding its largest, an inf or a NaN
 * (quiet and signalling) in each place in turn, the rest edge-heavy values
 * without specials. */
START_TEST(tensor_maxima_each_place)
{
	static const size_t counts[] = { 4095, 4111, 4112, 4113, 4127, 4128, 8209 };
	static const uint32_t special[] = { 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFBFFFFFu, 0x7F800001u };
	uint32_t *x = malloc(8209 * sizeof *x);
	ck_assert_ptr_nonnull(x);
	for (size_t c = 0; c < 80 + sizeof counts / sizeof counts[0]; c++) {
		size_t n = c < 80 ? c : counts[c - 80];
		for (size_t at = 0; at < n; at += c < 80 ? 1 : 97)
			for (size_t k = 0; k <= sizeof special / sizeof special[0]; k++) {
				for (size_t i = 0; i < n; i++)
					x[i] = edge_value(77 + c, i, false);
				if (k < sizeof special / sizeof special[0])
					x[at] = special[k];
				else /* the largest: above every other */
					x[at] = (x[at] & 0x80000000u) | 0x7F7FFFFFu;
				uint32_t want = 0, want_finite = 0, finite = 0xEEEEEEEEu;
				for (size_t i = 0; i < n; i++) {
					uint32_t v = x[i] & 0x7FFFFFFFu;
					want = v > want ? v : want;
					if (v <= F32_INF)
						want_finite = v > want_finite ? v : want_finite;
				}
				uint32_t got = fpref_emu_quant_tensor_maxima(x, n, &finite);
				ck_assert_msg(got == want && finite == want_finite,
					      "%zu values, 0x%08X at %zu: 0x%08X and 0x%08X, want 0x%08X and 0x%08X", n, x[at],
					      at, got, finite, want, want_finite);
				ck_assert_uint_eq(fpref_emu_quant_tensor_maxima(x, n, NULL), want);
			}
	}
	free(x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("quant_lanes");
	TCase *mx = tcase_create("mx");
	tcase_set_timeout(mx, 120);
	tcase_add_loop_test(mx, mx_against_element_path, 0, (int)(sizeof mx_elements / sizeof mx_elements[0]));
	tcase_add_test(mx, mx_ties_against_element_path);
	suite_add_tcase(s, mx);
	TCase *nv = tcase_create("nvfp4");
	tcase_set_timeout(nv, 120);
	tcase_add_loop_test(nv, nvfp4_against_element_path, 0, (int)(sizeof nvfp4_recipes / sizeof nvfp4_recipes[0]));
	tcase_add_test(nv, nvfp4_rht_inverse_of_infinities);
	tcase_add_test(nv, nvfp4_rht_tensor_maxima);
	tcase_add_test(nv, nvfp4_rht_skip_margin);
	tcase_add_test(nv, nvfp4_rht_eight_lanes_agree);
	tcase_add_test(nv, nvfp4_four_over_six_near_ties);
	tcase_add_test(nv, nvfp4_four_six_table);
	tcase_add_test(nv, nvfp4_four_six_groups_agree);
	tcase_add_test(nv, stretch_maxima_each_lane);
	tcase_add_test(nv, tensor_maxima_each_place);
	suite_add_tcase(s, nv);
	TCase *fp8 = tcase_create("fp8");
	tcase_set_timeout(fp8, 120);
	tcase_add_loop_test(fp8, fp8_tensor_against_element_path, 0, 4);
	tcase_add_loop_test(fp8, fp8_blocks_against_element_path, 0, 2);
	tcase_add_loop_test(fp8, delayed_against_element_path, 0, 2);
	suite_add_tcase(s, fp8);
	return test_run(s);
}
