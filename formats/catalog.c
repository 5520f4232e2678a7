/* The named formats.  Adding a format is adding a row. */
#include "fpref_formats.h"

#define ROW(nm, al, e, m, b, sgn, zero, sub, sp, pad, why) \
	{ nm, al, e, m, b, sgn, zero, sub, sp, pad, why }

static const struct fpref_format catalog[] = {
	ROW("float64", "f64", 11, 52, 1023, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary64"),
	ROW("float32", "f32", 8, 23, 127, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary32"),
	ROW("tf32", "", 8, 10, 127, true, true, true, FPREF_SPECIALS_IEEE, 13,
	    "NVIDIA TensorFloat-32, stored in the top 19 bits of an FP32 word"),
	ROW("bfloat16", "bf16", 8, 7, 127, true, true, true, FPREF_SPECIALS_IEEE, 0, "brain floating point"),
	ROW("float16", "f16", 5, 10, 15, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary16"),
	ROW("float8_e5m2", "e5m2", 5, 2, 15, true, true, true, FPREF_SPECIALS_IEEE, 0, "OCP OFP8 E5M2"),
	ROW("float8_e4m3fn", "e4m3", 4, 3, 7, true, true, true, FPREF_SPECIALS_FN, 0,
	    "OCP OFP8 E4M3: no inf, NaN only at S.1111.111"),
	ROW("float8_e4m3", "", 4, 3, 7, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE-like E4M3 with inf (ml_dtypes)"),
	ROW("float8_e4m3fnuz", "e4m3fnuz", 4, 3, 8, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "AMD/Graphcore E4M3: NaN at the -0 pattern"),
	ROW("float8_e5m2fnuz", "e5m2fnuz", 5, 2, 16, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "AMD/Graphcore E5M2: NaN at the -0 pattern"),
	ROW("float8_e4m3b11fnuz", "e4m3b11fnuz", 4, 3, 11, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "Graphcore/TPU E4M3 with bias 11"),
	ROW("float8_e3m4", "e3m4", 3, 4, 3, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE-like E3M4 (ml_dtypes)"),
	ROW("float8_e8m0fnu", "e8m0", 8, 0, 127, false, false, false, FPREF_SPECIALS_FN, 0,
	    "OCP MX scale: powers of two 2^-127..2^127, 0xFF NaN, no zero, no sign"),
	ROW("float6_e2m3fn", "e2m3", 2, 3, 1, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP6 E2M3: finite only"),
	ROW("float6_e3m2fn", "e3m2", 3, 2, 3, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP6 E3M2: finite only"),
	ROW("float4_e2m1fn", "e2m1", 2, 1, 1, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP4 E2M1: finite only"),
};

size_t fpref_format_count(void)
{
	return sizeof catalog / sizeof catalog[0];
}

const struct fpref_format *fpref_format_at(size_t index)
{
	return index < fpref_format_count() ? &catalog[index] : NULL;
}
