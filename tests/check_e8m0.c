/* The E8M0 scale rules (formats/fpref_formats_e8m0.h): the emulator
 * against the MPFR oracle bit for bit over every BF16 pattern and a
 * structured and random FP32 sample (every FP32 pattern is the campaign
 * golden/sweeps/e8m0-fp32, make check-exhaustive), the rows against the MX
 * quantiser's scale, and hand-worked cases showing where rules differ. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_e8m0.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_ref_e8m0.h"

static const enum fpref_format_id elements[] = { FPREF_FORMAT_FLOAT8_E4M3FN, FPREF_FORMAT_FLOAT8_E5M2,
						 FPREF_FORMAT_FLOAT6_E2M3FN, FPREF_FORMAT_FLOAT6_E3M2FN,
						 FPREF_FORMAT_FLOAT4_E2M1FN };
#define NFLOAT_ELEMENTS (sizeof elements / sizeof elements[0])
#define NELEMENTS (NFLOAT_ELEMENTS + 1) /* and MXINT8 */

static struct fpref_format element_at(size_t i)
{
	return i < NFLOAT_ELEMENTS ? *fpref_format_get(elements[i]) : test_format("mxint8_sym");
}

/* Every row, from FP32 and through BF16, with each element where it takes one. */
struct rule_case {
	struct fpref_e8m0_rule rule;
	const struct fpref_format *element;
	struct fpref_format element_row; /* what element points at */
};

#define MAX_CASES 256

static size_t all_cases(struct rule_case *cases)
{
	size_t n = 0;
	for (size_t i = 0; i < fpref_e8m0_rule_count(); i++) {
		for (int bf16 = 0; bf16 < 2; bf16++) {
			struct fpref_e8m0_rule r = *fpref_e8m0_rule_at(i);
			r.source = bf16 ? FPREF_FORMAT_BFLOAT16 : FPREF_FORMAT_FLOAT32;
			size_t ne = fpref_e8m0_rule_needs_element(&r) ? NELEMENTS : 1;
			for (size_t e = 0; e < ne && n < MAX_CASES; e++) {
				cases[n].rule = r;
				cases[n].element_row = element_at(e);
				cases[n].element = NULL;
				n++;
			}
		}
	}
	for (size_t i = 0; i < n; i++) /* pointers into the array, once it stops moving */
		if (fpref_e8m0_rule_needs_element(&cases[i].rule))
			cases[i].element = &cases[i].element_row;
	return n;
}

static void compare(const struct rule_case *c, uint32_t x)
{
	uint8_t emu = 0, ref = 0;
	char err[256], spelling[64];
	/* ck_abort only on a failure: every ck_assert writes to Check's pipe, a system call per case */
	if (fpref_emu_e8m0(&c->rule, c->element, x, &emu, err, sizeof err) != 0 ||
	    fpref_ref_e8m0(&c->rule, c->element, x, &ref, err, sizeof err) != 0)
		ck_abort_msg("rule %s element %s: %s", c->rule.name, c->element ? c->element->name : "-", err);
	if (emu != ref) {
		fpref_e8m0_rule_spelling(&c->rule, spelling, sizeof spelling);
		ck_abort_msg("rule %s element %s input %08X: emu %02X, ref %02X", spelling,
			     c->element ? c->element->name : "-", (unsigned)x, emu, ref);
	}
}

static void compare_all(const struct rule_case *cases, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		compare(&cases[i], x);
}

START_TEST(bf16_exhaustive)
{
	struct rule_case cases[MAX_CASES];
	size_t n = all_cases(cases);
	unsigned stride = test_sample_stride();
	for (uint32_t b = 0; b < 0x10000u; b++)
		if (test_sample_keep(stride, b))
			compare_all(cases, n, b << 16);
}
END_TEST

/* Mantissas at the places the rules decide: the bit-22 tie (1.5), the bits
 * beside it, BF16's rounding position (bit 15) and its ties, the ends. */
static const uint32_t mantissas[] = { 0x000000, 0x000001, 0x000002, 0x1FFFFF, 0x200000, 0x200001, 0x3FFFFF,
				      0x400000, 0x400001, 0x500000, 0x5FFFFF, 0x600000, 0x600001, 0x7FFFFE,
				      0x7FFFFF, 0x007FFF, 0x008000, 0x008001, 0x018000, 0x3F8000, 0x3F7FFF,
				      0x3FC000, 0x7F8000, 0x7F7FFF, 0x7FC000, 0x408000 };

START_TEST(f32_structured)
{
	struct rule_case cases[MAX_CASES];
	size_t n = all_cases(cases);
	unsigned stride = test_sample_stride();
	unsigned long long k = 0;
	for (uint32_t e = 0; e < 256; e++)
		for (size_t m = 0; m < sizeof mantissas / sizeof mantissas[0]; m++)
			for (uint32_t s = 0; s < 2; s++)
				if (test_sample_keep(stride, k++))
					compare_all(cases, n, s << 31 | e << 23 | mantissas[m]);
	/* each element's max times a power of two, and one FP32 step either side (rceil's FP32 product) */
	for (size_t i = 0; i < NELEMENTS; i++) {
		struct fpref_env env;
		fpref_env_default(&env);
		struct fpref_format row = element_at(i);
		const struct fpref_format *el = &row;
		uint64_t max = 0;
		unsigned flags = 0;
		fpref_emu_convert(el, fpref_format_max_bits(el, false), fpref_format_get(FPREF_FORMAT_FLOAT32), &env, 0,
				  &max, &flags);
		for (int shift = -140; shift <= 130; shift++) {
			int64_t exp = (int64_t)(max >> 23) + shift;
			if (exp < 1 || exp > 254)
				continue;
			uint32_t v = (uint32_t)exp << 23 | ((uint32_t)max & 0x7FFFFF);
			for (int d = -2; d <= 2; d++)
				if (test_sample_keep(stride, k++))
					compare_all(cases, n, v + (uint32_t)d);
		}
	}
	uint32_t random_count = 20000 / stride;
	for (uint32_t i = 0; i < random_count; i++)
		compare_all(cases, n, (uint32_t)fpref_sr_stream(0xE8E0, i));
}
END_TEST

/* The amax rules on a one-element block give the MX quantiser's scale
 * (emu/scale_mx.c), a second computation in the emulator. */
START_TEST(rows_match_mx_quantizer)
{
	static const struct {
		const char *row;
		enum fpref_mx_scale_rule mx;
	} pairs[] = { { "floor", FPREF_MX_SCALE_OCP_FLOOR }, { "rceil", FPREF_MX_SCALE_NV_CEIL },
		      { "even", FPREF_MX_SCALE_RNE } };
	for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
		struct fpref_e8m0_rule r;
		char err[256];
		ck_assert(fpref_e8m0_rule_parse(pairs[p].row, &r, err, sizeof err) == 0);
		for (size_t i = 0; i < NELEMENTS; i++) {
			struct fpref_format row = element_at(i);
			const struct fpref_format *el = &row;
			struct fpref_mx_params params = { i < NFLOAT_ELEMENTS ? el->name : "int8", pairs[p].mx, FPREF_RNE, FPREF_MX_OCP };
			for (uint32_t e = 0; e < 255; e++) {
				for (size_t m = 0; m < sizeof mantissas / sizeof mantissas[0]; m++) {
					uint32_t x = e << 23 | mantissas[m];
					uint8_t code = 0, scale = 0, row = 0;
					ck_assert(fpref_emu_mx_quantize(&params, &x, 1, 1, &code, &scale, err, sizeof err) == 0);
					ck_assert(fpref_emu_e8m0(&r, el, x, &row, err, sizeof err) == 0);
					ck_assert_msg(row == scale, "%s %s %08X: row %02X, quantiser %02X", pairs[p].row, el->name,
						      (unsigned)x, row, scale);
				}
			}
		}
	}
}
END_TEST

/* Worked by hand from each implementation's definition (the comment of
 * each row), not from fpref's code.  Inputs are FP32 patterns. */
static const struct hand_case {
	const char *rule;
	enum fpref_format_id element; /* FPREF_FORMAT_COUNT: none; FPREF_FORMAT_COUNT + 1: mxint8_sym */
	uint32_t x;
	uint8_t code;
	const char *why;
} hand[] = {
#define NONE FPREF_FORMAT_COUNT
	/* 3 = 1.5 * 2^1: down keeps 2^1 (0x80); up and nearest (3 >= 1.5 * 2) give 2^2 (0x81) */
	{ "cvt-rz", NONE, 0x40400000, 0x80, "3: toward zero 2^1" },
	{ "onnx-down", NONE, 0x40400000, 0x80, "3: FP32 exponent field 0x80" },
	{ "cvt-rp", NONE, 0x40400000, 0x81, "3: up 2^2" },
	{ "onnx-up", NONE, 0x40400000, 0x81, "3: fraction bits set, exponent + 1" },
	{ "onnx-nearest", NONE, 0x40400000, 0x81, "3: guard bit 22 set, round up" },
	{ "pytorch", NONE, 0x40400000, 0x81, "3: guard bit set" },
	{ "ml_dtypes", NONE, 0x40400000, 0x81, "3: nearest power is 4 (3 - 2 = 1 = 4 - 3, a tie, up)" },
	/* 2.5 = 1.25 * 2^1: nearest 2^1 */
	{ "pytorch", NONE, 0x40200000, 0x80, "2.5: guard bit clear" },
	{ "onnx-up", NONE, 0x40200000, 0x81, "2.5: fraction set" },
	/* 1.5: the tie between 1 and 2 goes up in every nearest rule */
	{ "pytorch", NONE, 0x3FC00000, 0x80, "1.5: g = 1, r = s = 0, lsb = 1 (normal): up to 2" },
	{ "onnx-nearest", NONE, 0x3FC00000, 0x80, "1.5: as PyTorch" },
	{ "ml_dtypes", NONE, 0x3FC00000, 0x80, "1.5: tie, up" },
	/* 2^-127 = 0x00400000, a subnormal that E8M0 holds exactly (code 0) */
	{ "cvt-rp", NONE, 0x00400000, 0x00, "2^-127 exact" },
	{ "onnx-up", NONE, 0x00400000, 0x01, "mantissa nonzero: exponent 0 + 1, 2^-126 (differs from cvt-rp)" },
	{ "pytorch", NONE, 0x00400000, 0x00, "g = 1, r = s = 0, lsb = 0 (exponent 0): no round up" },
	{ "onnx-down", NONE, 0x00400000, 0x00, "exponent field 0" },
	/* 1.25 * 2^-127 = 0x00500000 */
	{ "pytorch", NONE, 0x00500000, 0x01, "g = 1, s = 1: up to exponent 1, 2^-126" },
	{ "ml_dtypes", NONE, 0x00500000, 0x00, "value 1.25 * 2^-127 is nearer 2^-127 (differs from pytorch)" },
	/* 1.5 * 2^127 = 0x7F400000 */
	{ "pytorch", NONE, 0x7F400000, 0xFF, "g = 1, lsb = 1: exponent 254 + 1 = 255, NaN" },
	{ "onnx-nearest", NONE, 0x7F400000, 0xFE, "saturate keeps 0xFE (differs from pytorch)" },
	{ "onnx-nearest-nosat", NONE, 0x7F400000, 0xFF, "as pytorch" },
	/* (1 + 2^-23) * 2^127 = 0x7F000001 */
	{ "cvt-rp", NONE, 0x7F000001, 0xFE, "up to 2^128, satfinite 2^127" },
	{ "onnx-up", NONE, 0x7F000001, 0xFE, "saturate" },
	{ "onnx-up-nosat", NONE, 0x7F000001, 0xFF, "254 + 1 = NaN (differs from onnx-up)" },
	{ "onnx-down-nosat", NONE, 0x7F000001, 0xFE, "down never overflows" },
	/* specials */
	{ "cvt-rp", NONE, 0x7F800000, 0xFE, "+inf under satfinite: the largest" },
	{ "onnx-up", NONE, 0x7F800000, 0xFF, "+inf: exponent field 0xFF, NaN (differs from cvt-rp)" },
	{ "onnx-up", NONE, 0x00000000, 0x00, "zero: exponent field 0, read as 2^-127" },
	{ "cvt-rp", NONE, 0x00000000, 0x00, "zero clipped to 2^-127" },
	{ "ml_dtypes", NONE, 0x00000000, 0xFF, "zero: NaN (differs from onnx-up)" },
	{ "pytorch", NONE, 0xC0400000, 0x81, "-3: the sign bit is not read" },
	{ "cvt-rz", NONE, 0xC0400000, 0x80, "-3: |x| toward zero" },
	{ "ml_dtypes", NONE, 0xC0400000, 0xFF, "-3: no sign in E8M0, NaN" },
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x7FC00000, 0xFF, "NaN" },
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x7F800000, 0xFF, "inf amax: the block's scale is NaN" },
	/* through BF16 first: 1 + 2^-8 is the tie between BF16's 1 and 1 + 2^-7, which goes to 1 (even) */
	{ "onnx-up", NONE, 0x3F808000, 0x80, "1 + 2^-8 up: 2" },
	{ "onnx-up/bf16", NONE, 0x3F808000, 0x7F, "BF16 1.0, exact: 1 (differs from FP32)" },
	/* 1.5 - 2^-23 = 0x3FBFFFFF: below the tie in FP32, 1.5 in BF16 */
	{ "pytorch", NONE, 0x3FBFFFFF, 0x7F, "guard bit set? no: mantissa 0x3FFFFF < 0x400000, down to 1" },
	{ "pytorch/bf16", NONE, 0x3FBFFFFF, 0x80, "BF16 rounds it to 1.5, the tie goes up to 2" },
	/* MX, E4M3 (emax 8, max 448), amax 1000 = 1.953125 * 2^9 */
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x447A0000, 0x80, "floor(log2 1000) = 9, 9 - 8 = 1" },
	{ "ceil", FPREF_FORMAT_FLOAT8_E4M3FN, 0x447A0000, 0x81, "ceil(log2 1000) = 10, 10 - 8 = 2" },
	{ "rceil", FPREF_FORMAT_FLOAT8_E4M3FN, 0x447A0000, 0x81, "1000/448 = 2.23, up to 4 = 2^2" },
	{ "even", FPREF_FORMAT_FLOAT8_E4M3FN, 0x447A0000, 0x81, "1.111|101 * 2^9 to 4 bits: 2^10, 10 - 8 = 2" },
	/* amax 300 = 1.171875 * 2^8 */
	{ "ceil", FPREF_FORMAT_FLOAT8_E4M3FN, 0x43960000, 0x80, "ceil(log2 300) = 9, 9 - 8 = 1" },
	{ "rceil", FPREF_FORMAT_FLOAT8_E4M3FN, 0x43960000, 0x7F, "300/448 < 1: 2^0 (differs from ceil)" },
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x43960000, 0x7F, "8 - 8 = 0" },
	/* amax 500 = 1.953125 * 2^8 */
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x43FA0000, 0x7F, "8 - 8 = 0" },
	{ "even", FPREF_FORMAT_FLOAT8_E4M3FN, 0x43FA0000, 0x80, "1.111|1010 to 4 bits: 2^9, 9 - 8 = 1 (differs from floor)" },
	/* MXFP4 E2M1 (emax 2, max 6), amax 6 = 1.5 * 2^2 */
	{ "floor", FPREF_FORMAT_FLOAT4_E2M1FN, 0x40C00000, 0x7F, "2 - 2 = 0" },
	{ "ceil", FPREF_FORMAT_FLOAT4_E2M1FN, 0x40C00000, 0x80, "ceil(log2 6) = 3, 3 - 2 = 1" },
	{ "rceil", FPREF_FORMAT_FLOAT4_E2M1FN, 0x40C00000, 0x7F,
	  "fl(1/6) = 1/6 + 2^-26/3, 6 * fl(1/6) = 1 + 2^-25 rounds to 1 in FP32: 2^0" },
	/* MXINT8 (mxint8_sym: emax 0, max 127/64), amax 1.5 */
	{ "floor", FPREF_FORMAT_COUNT + 1, 0x3FC00000, 0x7F, "floor(log2 1.5) = 0, 0 - 0 = 0" },
	{ "ceil", FPREF_FORMAT_COUNT + 1, 0x3FC00000, 0x80, "ceil(log2 1.5) = 1" },
	{ "rceil", FPREF_FORMAT_COUNT + 1, 0x3FC00000, 0x7F, "1.5 * 64/127 = 0.756, up to 2^0" },
	/* tiny and zero amax */
	{ "floor", FPREF_FORMAT_FLOAT8_E4M3FN, 0x00000001, 0x00, "2^-149 * 2^-8 below 2^-127: the least" },
	{ "rceil", FPREF_FORMAT_FLOAT8_E4M3FN, 0x00000000, 0x00, "amax 0: code 0" },
#undef NONE
};

START_TEST(hand_worked)
{
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct fpref_e8m0_rule r;
		char err[256];
		ck_assert_msg(fpref_e8m0_rule_parse(h->rule, &r, err, sizeof err) == 0, "%s", err);
		struct fpref_format int8 = test_format("mxint8_sym");
		const struct fpref_format *el = h->element == FPREF_FORMAT_COUNT	   ? NULL
						: h->element == FPREF_FORMAT_COUNT + 1 ? &int8
										       : fpref_format_get(h->element);
		uint8_t emu = 0, ref = 0;
		ck_assert(fpref_emu_e8m0(&r, el, h->x, &emu, err, sizeof err) == 0);
		ck_assert(fpref_ref_e8m0(&r, el, h->x, &ref, err, sizeof err) == 0);
		ck_assert_msg(emu == h->code && ref == h->code, "%s %08X (%s): expected %02X, emu %02X, ref %02X", h->rule,
			      (unsigned)h->x, h->why, h->code, emu, ref);
	}
}
END_TEST

START_TEST(names)
{
	struct fpref_e8m0_rule r;
	char err[256], sp[64];
	ck_assert(fpref_e8m0_rule_parse("OCP-Floor", &r, err, sizeof err) == 0 && strcmp(r.name, "floor") == 0);
	ck_assert(fpref_e8m0_rule_parse("nv-ceil", &r, err, sizeof err) == 0 && strcmp(r.name, "rceil") == 0);
	ck_assert(fpref_e8m0_rule_parse("rne", &r, err, sizeof err) == 0 && strcmp(r.name, "even") == 0);
	ck_assert(fpref_e8m0_rule_parse("ceil/bf16", &r, err, sizeof err) == 0 && r.source == FPREF_FORMAT_BFLOAT16);
	fpref_e8m0_rule_spelling(&r, sp, sizeof sp);
	ck_assert_str_eq(sp, "ceil/bf16");
	ck_assert(fpref_e8m0_rule_parse("ceil/fp16", &r, err, sizeof err) != 0 && strstr(err, "'ceil/fp16'"));
	ck_assert(fpref_e8m0_rule_parse("round", &r, err, sizeof err) != 0 && strstr(err, "'round'"));
	ck_assert(fpref_e8m0_rule_parse("floor", &r, err, sizeof err) == 0);
	uint8_t code;
	ck_assert(fpref_emu_e8m0(&r, NULL, 0x3F800000, &code, err, sizeof err) != 0 && strstr(err, "MX element"));
	ck_assert(fpref_ref_e8m0(&r, fpref_format_get(FPREF_FORMAT_FLOAT16), 0x3F800000, &code, err, sizeof err) != 0);
	for (size_t i = 0; i < fpref_e8m0_rule_count(); i++) /* every row is reachable by its name */
		ck_assert(fpref_e8m0_rule_parse(fpref_e8m0_rule_at(i)->name, &r, err, sizeof err) == 0 &&
			  strstr(fpref_e8m0_rule_choices(), fpref_e8m0_rule_at(i)->name));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e8m0");
	TCase *tc = tcase_create("e8m0");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, names);
	tcase_add_test(tc, hand_worked);
	tcase_add_test(tc, rows_match_mx_quantizer);
	tcase_add_test(tc, bf16_exhaustive);
	tcase_add_test(tc, f32_structured);
	suite_add_tcase(s, tc);
	return test_run(s);
}
