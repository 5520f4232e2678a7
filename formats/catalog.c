/* The named formats.  Adding a format is adding a row. */
#include <string.h>
#include <strings.h>

#include "fpref_formats.h"

#define ROW(nm, al, e, m, b, sgn, zero, sub, sp, pad, why) \
	{ nm, al, e, m, b, sgn, zero, sub, sp, pad, why, false, false, false, false }

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

/* Other spellings users bring from PyTorch, NumPy, JAX/ml_dtypes and ONNX,
 * and common shorthands; matched without regard to case.  A spelling maps
 * to a catalogue name, never to a second row. */
static const struct fpref_format_alias aliases[] = {
	/* NumPy and C */
	{ "half", "float16" },
	{ "single", "float32" },
	{ "double", "float64" },
	{ "float", "float32" }, /* ONNX FLOAT and C's float; NumPy's Python float would be float64 */
	/* ONNX TensorProto data types (FLOAT16 and BFLOAT16 are the catalogue names in upper case) */
	{ "FLOAT8E4M3FN", "float8_e4m3fn" },
	{ "FLOAT8E4M3FNUZ", "float8_e4m3fnuz" },
	{ "FLOAT8E5M2", "float8_e5m2" },
	{ "FLOAT8E5M2FNUZ", "float8_e5m2fnuz" },
	{ "FLOAT8E8M0", "float8_e8m0fnu" },
	{ "FLOAT4E2M1", "float4_e2m1fn" },
	/* PyTorch and ml_dtypes short forms */
	{ "e4m3fn", "float8_e4m3fn" },
	{ "e8m0fnu", "float8_e8m0fnu" },
	{ "e2m3fn", "float6_e2m3fn" },
	{ "e3m2fn", "float6_e3m2fn" },
	{ "e2m1fn", "float4_e2m1fn" },
	/* shorthands */
	{ "fp64", "float64" },
	{ "fp32", "float32" },
	{ "fp16", "float16" },
	{ "fp8_e4m3", "float8_e4m3fn" },
	{ "fp8_e4m3fn", "float8_e4m3fn" },
	{ "fp8_e5m2", "float8_e5m2" },
	{ "fp8_e4m3fnuz", "float8_e4m3fnuz" },
	{ "fp8_e5m2fnuz", "float8_e5m2fnuz" },
	{ "fp8_e8m0", "float8_e8m0fnu" },
	{ "fp6_e2m3", "float6_e2m3fn" },
	{ "fp6_e3m2", "float6_e3m2fn" },
	{ "fp4_e2m1", "float4_e2m1fn" },
	{ "fp4", "float4_e2m1fn" },
};

/* Spellings of element formats fpref does not model, each with the reason. */
static const struct fpref_format_alias refused[] = {
	{ "float4_e2m1fn_x2", "PyTorch's float4_e2m1fn_x2 packs two FP4 elements in a byte; fpref reads one element "
			      "per item: unpack the nibbles (low nibble first) and use float4_e2m1fn" },
};

size_t fpref_format_alias_count(void)
{
	return sizeof aliases / sizeof aliases[0];
}

const struct fpref_format_alias *fpref_format_alias_at(size_t index)
{
	return index < fpref_format_alias_count() ? &aliases[index] : NULL;
}

const char *fpref_format_spelling(const struct fpref_format *f, size_t k)
{
	for (size_t i = 0; i < fpref_format_alias_count(); i++)
		if (strcmp(aliases[i].name, f->name) == 0 && k-- == 0)
			return aliases[i].spelling;
	return NULL;
}

const char *fpref_format_refused(const char *spelling)
{
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (strcasecmp(spelling, refused[i].spelling) == 0)
			return refused[i].name;
	return NULL;
}

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
	       a->specials == b->specials && a->pad_bits == b->pad_bits && a->inf_at_top == b->inf_at_top &&
	       a->code_parity == b->code_parity && a->integer == b->integer && a->symmetric == b->symmetric;
}

bool fpref_format_is(const struct fpref_format *f, enum fpref_format_id id)
{
	return fpref_format_same(f, fpref_format_get(id));
}
