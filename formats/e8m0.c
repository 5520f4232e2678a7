/* The E8M0 scale rules as rows (fpref_formats_e8m0.h); the arithmetic is
 * in emu/e8m0.c and, independently, ref/e8m0.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fpref_formats_e8m0.h"

#define F32 FPREF_FORMAT_FLOAT32

/* name, who, input, rounding, grid, saturate, inf_saturates, zero_nan, negative_nan, source */
static const struct fpref_e8m0_rule rules[] = {
	/* MX scales from a block's amax (docs/scaling-mx.md) */
	{ "floor", "OCP MX v1.0 (2^(floor(log2 amax) - emax)), torchao FLOOR", FPREF_E8M0_AMAX_POW2, FPREF_RDN,
	  FPREF_E8M0_GRID_VALUE, true, false, false, false, F32 },
	{ "ceil", "torchao CEIL (2^(ceil(log2 amax) - emax))", FPREF_E8M0_AMAX_POW2, FPREF_RUP, FPREF_E8M0_GRID_VALUE,
	  true, false, false, false, F32 },
	{ "rceil", "cuBLAS/TE MXFP8, torchao RCEIL: cvt.rp.satfinite.ue8m0x2.f32 of amax * (1/max)",
	  FPREF_E8M0_AMAX_RCP_F32, FPREF_RUP, FPREF_E8M0_GRID_VALUE, true, false, false, false, F32 },
	{ "even", "torchao EVEN, Mojo even: floor(log2(amax rounded to the element's precision)) - emax",
	  FPREF_E8M0_AMAX_ELEM_RNE, FPREF_RDN, FPREF_E8M0_GRID_VALUE, true, false, false, false, F32 },
	/* conversions of a value */
	{ "cvt-rp", "PTX cvt.rp.satfinite.ue8m0x2.f32, CUDA __nv_cvt_float_to_e8m0(cudaRoundPosInf, __NV_SATFINITE)",
	  FPREF_E8M0_VALUE, FPREF_RUP, FPREF_E8M0_GRID_VALUE, true, true, false, false, F32 },
	{ "cvt-rz", "PTX cvt.rz.satfinite.ue8m0x2.f32, CUDA __nv_cvt_float_to_e8m0(cudaRoundZero, __NV_SATFINITE)",
	  FPREF_E8M0_VALUE, FPREF_RDN, FPREF_E8M0_GRID_VALUE, true, true, false, false, F32 },
	{ "onnx-up", "ONNX Cast-25 round_mode=up saturate=1 (the defaults)", FPREF_E8M0_VALUE, FPREF_RUP,
	  FPREF_E8M0_GRID_PATTERN, true, false, false, false, F32 },
	{ "onnx-up-nosat", "ONNX Cast-25 round_mode=up saturate=0", FPREF_E8M0_VALUE, FPREF_RUP, FPREF_E8M0_GRID_PATTERN,
	  false, false, false, false, F32 },
	{ "onnx-down", "ONNX Cast-25 round_mode=down saturate=1", FPREF_E8M0_VALUE, FPREF_RDN, FPREF_E8M0_GRID_PATTERN,
	  true, false, false, false, F32 },
	{ "onnx-down-nosat", "ONNX Cast-25 round_mode=down saturate=0 (never overflows: the same codes)",
	  FPREF_E8M0_VALUE, FPREF_RDN, FPREF_E8M0_GRID_PATTERN, false, false, false, false, F32 },
	{ "onnx-nearest", "ONNX Cast-25 round_mode=nearest saturate=1", FPREF_E8M0_VALUE, FPREF_RNE,
	  FPREF_E8M0_GRID_PATTERN, true, false, false, false, F32 },
	{ "onnx-nearest-nosat", "ONNX Cast-25 round_mode=nearest saturate=0", FPREF_E8M0_VALUE, FPREF_RNE,
	  FPREF_E8M0_GRID_PATTERN, false, false, false, false, F32 },
	{ "pytorch", "PyTorch x.to(torch.float8_e8m0fnu) (c10 fp8e8m0fnu_from_fp32_value)", FPREF_E8M0_VALUE, FPREF_RNE,
	  FPREF_E8M0_GRID_PATTERN, false, false, false, false, F32 },
	{ "ml_dtypes", "ml_dtypes 0.6 astype(float8_e8m0fnu)", FPREF_E8M0_VALUE, FPREF_RNE, FPREF_E8M0_GRID_VALUE, false,
	  false, true, true, F32 },
};

static const struct {
	const char *alias, *name;
} rule_aliases[] = { { "ocp-floor", "floor" }, { "nv-ceil", "rceil" }, { "rne", "even" } };

size_t fpref_e8m0_rule_count(void)
{
	return sizeof rules / sizeof rules[0];
}

const struct fpref_e8m0_rule *fpref_e8m0_rule_at(size_t index)
{
	return index < fpref_e8m0_rule_count() ? &rules[index] : NULL;
}

int fpref_e8m0_rule_parse(const char *name, struct fpref_e8m0_rule *out, char *err, size_t errlen)
{
	char base[64];
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : strlen(name);
	bool bf16 = slash && strcasecmp(slash + 1, "bf16") == 0;
	if (n < sizeof base && (!slash || bf16)) {
		memcpy(base, name, n);
		base[n] = '\0';
		for (size_t i = 0; i < sizeof rule_aliases / sizeof rule_aliases[0]; i++)
			if (strcasecmp(base, rule_aliases[i].alias) == 0)
				snprintf(base, sizeof base, "%s", rule_aliases[i].name);
		for (size_t i = 0; i < fpref_e8m0_rule_count(); i++) {
			if (strcasecmp(base, rules[i].name) == 0) {
				*out = rules[i];
				out->source = bf16 ? FPREF_FORMAT_BFLOAT16 : F32;
				return 0;
			}
		}
	}
	snprintf(err, errlen, "unknown E8M0 scale rule '%s' (choices: %s)", name, fpref_e8m0_rule_choices());
	return -1;
}

void fpref_e8m0_rule_spelling(const struct fpref_e8m0_rule *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", r->name, r->source == FPREF_FORMAT_BFLOAT16 ? "/bf16" : "");
}

const char *fpref_e8m0_rule_choices(void)
{
	return "floor, ceil, rceil, even, cvt-rp, cvt-rz, onnx-up, onnx-up-nosat, onnx-down, onnx-down-nosat, "
	       "onnx-nearest, onnx-nearest-nosat, pytorch, ml_dtypes (aliases ocp-floor, nv-ceil, rne; NAME/bf16: "
	       "the input rounded to bfloat16 first)";
}

bool fpref_e8m0_rule_needs_element(const struct fpref_e8m0_rule *r)
{
	return r->input != FPREF_E8M0_VALUE;
}

int fpref_e8m0_element_check(const struct fpref_format *element, char *err, size_t errlen)
{
	static const enum fpref_format_id ok[] = { FPREF_FORMAT_FLOAT8_E4M3FN, FPREF_FORMAT_FLOAT8_E5M2,
						   FPREF_FORMAT_FLOAT6_E2M3FN, FPREF_FORMAT_FLOAT6_E3M2FN,
						   FPREF_FORMAT_FLOAT4_E2M1FN };
	for (size_t i = 0; element && i < sizeof ok / sizeof ok[0]; i++)
		if (fpref_format_is(element, ok[i]))
			return 0;
	struct fpref_format int8;
	for (int sym = 0; element && sym < 2; sym++) /* MXINT8: emax 0, max 127/64 */
		if (fpref_format_int(sym ? "mxint8_sym" : "mxint8", &int8) == 0 && fpref_format_same(element, &int8))
			return 0;
	snprintf(err, errlen, "an MX scale rule needs an MX element (float8_e4m3fn, float8_e5m2, float6_e2m3fn, "
		 "float6_e3m2fn, float4_e2m1fn, mxint8, mxint8_sym), not %s", element ? element->name : "(none)");
	return -1;
}

void fpref_e8m0_pattern_grid(struct fpref_format *out)
{
	*out = *fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU);
	snprintf(out->name, sizeof out->name, "e8m0_pattern_grid");
	out->alias[0] = '\0';
	out->has_zero = true;
	out->note = "FP32's exponent field as a format: code 0 is zero";
}
