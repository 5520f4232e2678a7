/* The named formats.  Adding a format is adding a row. */
#include "fpref_formats.h"

#define ROW(nm, al, e, m, b, sgn, zero, sub, sp, pad, why) \
	{ nm, al, e, m, b, sgn, zero, sub, sp, pad, why, false, false }

/* Indexed by enum fpref_format_id (fpref_formats.h), so that a row and its
 * constant cannot part. */
static const struct fpref_format catalog[FPREF_FORMAT_COUNT] = {
	[FPREF_FORMAT_FLOAT64] = ROW("float64", "f64", 11, 52, 1023, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary64"),
	[FPREF_FORMAT_FLOAT32] = ROW("float32", "f32", 8, 23, 127, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary32"),
	[FPREF_FORMAT_TF32] = ROW("tf32", "", 8, 10, 127, true, true, true, FPREF_SPECIALS_IEEE, 13,
	    "NVIDIA TensorFloat-32, stored in the top 19 bits of an FP32 word"),
	[FPREF_FORMAT_BFLOAT16] = ROW("bfloat16", "bf16", 8, 7, 127, true, true, true, FPREF_SPECIALS_IEEE, 0, "brain floating point"),
	[FPREF_FORMAT_FLOAT16] = ROW("float16", "f16", 5, 10, 15, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE 754 binary16"),
	[FPREF_FORMAT_FLOAT8_E5M2] = ROW("float8_e5m2", "e5m2", 5, 2, 15, true, true, true, FPREF_SPECIALS_IEEE, 0, "OCP OFP8 E5M2"),
	[FPREF_FORMAT_FLOAT8_E4M3FN] = ROW("float8_e4m3fn", "e4m3", 4, 3, 7, true, true, true, FPREF_SPECIALS_FN, 0,
	    "OCP OFP8 E4M3: no inf, NaN only at S.1111.111"),
	[FPREF_FORMAT_FLOAT8_E4M3] = ROW("float8_e4m3", "", 4, 3, 7, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE-like E4M3 with inf (ml_dtypes)"),
	[FPREF_FORMAT_FLOAT8_E4M3FNUZ] = ROW("float8_e4m3fnuz", "e4m3fnuz", 4, 3, 8, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "AMD/Graphcore E4M3: NaN at the -0 pattern"),
	[FPREF_FORMAT_FLOAT8_E5M2FNUZ] = ROW("float8_e5m2fnuz", "e5m2fnuz", 5, 2, 16, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "AMD/Graphcore E5M2: NaN at the -0 pattern"),
	[FPREF_FORMAT_FLOAT8_E4M3B11FNUZ] = ROW("float8_e4m3b11fnuz", "e4m3b11fnuz", 4, 3, 11, true, true, true, FPREF_SPECIALS_FNUZ, 0,
	    "Graphcore/TPU E4M3 with bias 11"),
	[FPREF_FORMAT_FLOAT8_E3M4] = ROW("float8_e3m4", "e3m4", 3, 4, 3, true, true, true, FPREF_SPECIALS_IEEE, 0, "IEEE-like E3M4 (ml_dtypes)"),
	[FPREF_FORMAT_FLOAT8_E8M0FNU] = ROW("float8_e8m0fnu", "e8m0", 8, 0, 127, false, false, false, FPREF_SPECIALS_FN, 0,
	    "OCP MX scale: powers of two 2^-127..2^127, 0xFF NaN, no zero, no sign"),
	[FPREF_FORMAT_FLOAT6_E2M3FN] = ROW("float6_e2m3fn", "e2m3", 2, 3, 1, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP6 E2M3: finite only"),
	[FPREF_FORMAT_FLOAT6_E3M2FN] = ROW("float6_e3m2fn", "e3m2", 3, 2, 3, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP6 E3M2: finite only"),
	[FPREF_FORMAT_FLOAT4_E2M1FN] = ROW("float4_e2m1fn", "e2m1", 2, 1, 1, true, true, true, FPREF_SPECIALS_NONE, 0, "OCP MX FP4 E2M1: finite only"),
};

size_t fpref_format_count(void)
{
	return sizeof catalog / sizeof catalog[0];
}

const struct fpref_format *fpref_format_at(size_t index)
{
	return index < fpref_format_count() ? &catalog[index] : NULL;
}

const struct fpref_format *fpref_format_get(enum fpref_format_id id)
{
	return &catalog[id];
}

bool fpref_format_same(const struct fpref_format *a, const struct fpref_format *b)
{
	return a->exp_bits == b->exp_bits && a->man_bits == b->man_bits && a->bias == b->bias &&
	       a->is_signed == b->is_signed && a->has_zero == b->has_zero && a->subnormals == b->subnormals &&
	       a->specials == b->specials && a->pad_bits == b->pad_bits;
}

bool fpref_format_is(const struct fpref_format *f, enum fpref_format_id id)
{
	return fpref_format_same(f, fpref_format_get(id));
}
