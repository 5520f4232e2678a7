/* The integer element formats as rows (fpref_formats.h, the integer
 * field): two's complement (or unsigned) codes k of value k * 2^-frac,
 * whose magnitudes the shared rounding core sees as a float grid of one
 * exponent bit whose subnormal step is 2^-frac. */
#include <stdint.h>
#include <strings.h>

#include "fpref_formats.h"

/* n bits, signed, symmetric, value = code * 2^-frac */
#define INT_ROW(nm, n, sg, sym, frac, why)                                                                         \
	{ nm, "", 1, (n) - ((sg) ? 2 : 1), ((sg) ? 3 : 2) - (n) + (frac), sg, true, true, FPREF_SPECIALS_NONE, 0, why, \
	  false, false, true, sym }

static const struct fpref_format int_rows[] = {
	INT_ROW("int8", 8, true, false, 0, "8-bit two's complement integer, -128..127 (ONNX INT8)"),
	INT_ROW("int4", 4, true, false, 0, "4-bit two's complement integer, -8..7 (ONNX INT4)"),
	INT_ROW("int2", 2, true, false, 0, "2-bit two's complement integer, -2..1 (ONNX INT2)"),
	INT_ROW("uint8", 8, false, false, 0, "8-bit unsigned integer, 0..255 (ONNX UINT8)"),
	INT_ROW("uint4", 4, false, false, 0, "4-bit unsigned integer, 0..15 (ONNX UINT4)"),
	INT_ROW("uint2", 2, false, false, 0, "2-bit unsigned integer, 0..3 (ONNX UINT2)"),
	INT_ROW("int8_sym", 8, true, true, 0, "INT8 on the symmetric range -127..127"),
	INT_ROW("int4_sym", 4, true, true, 0, "INT4 on the symmetric range -7..7"),
	INT_ROW("int2_sym", 2, true, true, 0, "INT2 on the symmetric range -1..1"),
	INT_ROW("mxint8", 8, true, false, 6, "OCP MX INT8 element: two's complement k * 2^-6, -2..127/64"),
	INT_ROW("mxint8_sym", 8, true, true, 6, "OCP MX INT8 as the MX quantiser writes it: |k| <= 127"),
};
#undef INT_ROW

int fpref_format_int(const char *spelling, struct fpref_format *out)
{
	for (size_t i = 0; i < sizeof int_rows / sizeof int_rows[0]; i++) {
		if (strcasecmp(spelling, int_rows[i].name) == 0) {
			*out = int_rows[i];
			return 0;
		}
	}
	return 1;
}

const struct fpref_format *fpref_format_int_at(size_t index)
{
	return index < sizeof int_rows / sizeof int_rows[0] ? &int_rows[index] : NULL;
}

int fpref_format_int_range(const struct fpref_format *f, struct fpref_int_range *r)
{
	if (!f->integer)
		return -1;
	r->bits = fpref_format_width(f);
	r->is_signed = f->is_signed;
	r->symmetric = f->symmetric;
	/* INT_ROW's bias is 3 - n + frac signed, 2 - n + frac unsigned */
	r->frac = f->bias - (f->is_signed ? 3 : 2) + r->bits;
	int64_t top = (int64_t)1 << (r->bits - (f->is_signed ? 1 : 0));
	r->k_max = top - 1;
	r->k_min = !f->is_signed ? 0 : f->symmetric ? -(top - 1) : -top;
	return 0;
}

int64_t fpref_format_int_k(const struct fpref_format *f, uint64_t code)
{
	int n = fpref_format_width(f);
	uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
	code &= mask;
	if (f->is_signed && n < 64 && (code >> (n - 1)) & 1)
		return -(int64_t)((UINT64_C(1) << n) - code); /* two's complement, without a signed shift */
	return (int64_t)code;
}
