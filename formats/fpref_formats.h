/* fpref — what a number format is: a row of data, and exact encode/decode.
 *
 * A format never carries rounding logic.  Decoding a bit pattern gives an
 * exact value  (-1)^sign * significand * 2^exponent  or a special; encoding
 * accepts only values the format represents exactly. */
#ifndef FPREF_FORMAT_H
#define FPREF_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the all-ones exponent field (and negative zero) are spent. */
enum fpref_specials {
	FPREF_SPECIALS_IEEE, /* all-ones exponent: inf (mantissa 0) or NaN */
	FPREF_SPECIALS_FN,   /* no inf; NaN only where exponent and mantissa are all ones */
	FPREF_SPECIALS_FNUZ, /* no inf, no -0; the -0 pattern is the only NaN */
	FPREF_SPECIALS_NONE  /* finite numbers only, no NaN, no inf */
};

#define FPREF_NAME_MAX 64

struct fpref_format {
	char name[FPREF_NAME_MAX]; /* ml_dtypes-style, or a custom spelling */
	char alias[16];            /* short name, "" for none */
	int exp_bits;              /* 1..16 (16: only the unsigned P3109 binary16p1) */
	int man_bits;              /* stored fraction bits, 0..62 */
	int bias;
	bool is_signed;            /* false: no sign bit (E8M0) */
	bool has_zero;             /* false: exponent field 0 is an ordinary binade (E8M0) */
	bool subnormals;           /* false: exponent field 0 holds only zero */
	enum fpref_specials specials;
	int pad_bits;              /* zero bits below the mantissa in the container (TF32 in FP32: 13) */
	const char *note;          /* where the row comes from; NULL for custom formats */
	/* The greatest non-NaN magnitude code holds inf instead of a number
	 * (+inf, and -inf where there is a sign): IEEE P3109's extended
	 * formats, with fnuz (signed) or fn (unsigned) specials.  Last, so
	 * that rows written in order need not name it. */
	bool inf_at_top;
	/* Ties to even and round to odd read the parity of the code rather
	 * than of the significand: the same wherever there are fraction bits,
	 * but with none (P = 1) the exponent field's last bit decides, where
	 * IEEE-style rounding sends every tie up (the lower neighbour's only
	 * significand bit is 1).  IEEE P3109's rule; E8M0 keeps the other. */
	bool code_parity;
	/* An integer element (INT8/4/2, UINT8/4/2, MXINT8): the code is the
	 * integer k, two's complement where signed, of value k * 2^-f.  The
	 * other fields describe its magnitudes as a float grid for the one
	 * rounding core: one exponent bit, zero and subnormals on, no
	 * specials, and a bias that makes the subnormal step 2^-f (n-bit
	 * signed: e1m(n-2), bias 3-n+f; unsigned: e1m(n-1), bias 2-n+f), so
	 * that the largest magnitude is 2^(n-1)-1 (or 2^n-1) steps.  Signed,
	 * the code -2^(n-1) is one step beyond, on the negative side only. */
	bool integer;
	/* Signed integers only: the range is symmetric, [-(2^(n-1)-1),
	 * 2^(n-1)-1] (MXINT8 as quantisers write it): -2^(n-1) is never
	 * produced and decodes as noncanonical. */
	bool symmetric;
};

enum fpref_class {
	FPREF_CLASS_ZERO,
	FPREF_CLASS_SUBNORMAL,
	FPREF_CLASS_NORMAL,
	FPREF_CLASS_INF,
	FPREF_CLASS_NAN
};

/* value = (-1)^negative * significand * 2^exponent for finite classes. */
struct fpref_unpacked {
	enum fpref_class cls;
	bool negative;
	bool signaling;      /* NaN only: quiet bit clear (IEEE formats) */
	int32_t exponent;
	uint64_t significand;
	/* NaN only: the mantissa field, quiet bit first, moved up to bit 63, so
	 * that any format's leading payload bits read alike; NaNs of formats
	 * without a quiet bit (FN, FNUZ, E8M0) read as the quiet bit alone.
	 * The NaN styles that keep a payload use it (fpref_formats_env.h). */
	uint64_t nan_payload;
};

/* Result of decoding a bit pattern. */
enum fpref_decode_status {
	FPREF_DECODE_OK = 0,
	FPREF_DECODE_NONCANONICAL = 1, /* valid but never produced: nonzero mantissa with exponent 0 when subnormals are off (reads as zero) */
	FPREF_DECODE_INVALID = -1      /* bits outside the container, or nonzero pad bits */
};

/* ---- the catalogue ---- */
/* The catalogue's rows, in its order: code that needs one particular
 * format takes its row by constant (a lookup that cannot fail) and asks
 * fpref_format_is, never compares names. */
enum fpref_format_id {
	FPREF_FORMAT_FLOAT64,
	FPREF_FORMAT_FLOAT32,
	FPREF_FORMAT_TF32,
	FPREF_FORMAT_BFLOAT16,
	FPREF_FORMAT_FLOAT16,
	FPREF_FORMAT_FLOAT8_E5M2,
	FPREF_FORMAT_FLOAT8_E4M3FN,
	FPREF_FORMAT_FLOAT8_E4M3,
	FPREF_FORMAT_FLOAT8_E4M3FNUZ,
	FPREF_FORMAT_FLOAT8_E5M2FNUZ,
	FPREF_FORMAT_FLOAT8_E4M3B11FNUZ,
	FPREF_FORMAT_FLOAT8_E3M4,
	FPREF_FORMAT_FLOAT8_E8M0FNU,
	FPREF_FORMAT_FLOAT6_E2M3FN,
	FPREF_FORMAT_FLOAT6_E3M2FN,
	FPREF_FORMAT_FLOAT4_E2M1FN,
	FPREF_FORMAT_COUNT
};
size_t fpref_format_count(void);
const struct fpref_format *fpref_format_at(size_t index);
/* The catalogue's row for a constant. */
const struct fpref_format *fpref_format_get(enum fpref_format_id id);
/* Whether two rows are the same format: the same data (fields, specials,
 * container), whatever their names: "e5m10" is float16. */
bool fpref_format_same(const struct fpref_format *a, const struct fpref_format *b);
/* fpref_format_same(f, fpref_format_get(id)). */
bool fpref_format_is(const struct fpref_format *f, enum fpref_format_id id);
/* The IEEE P3109 family Binary{K,P,signedness,domain} (interim report):
 * a name binaryKpP{s,u}{e,f} for 3 <= K <= 16 and 1 <= P <= K-1 (signed)
 * or P <= K (unsigned) gives its row.  Returns 0, 1 when the spelling is
 * not of that shape, or -1 with a message when it is but K or P is out of
 * range. */
int fpref_format_p3109(const char *spelling, struct fpref_format *out, char *err, size_t errlen);
/* One line stating the family rule, for `fpref formats`. */
const char *fpref_format_p3109_rule(void);
/* The integer elements (formats/int.c): int8, int4, int2, uint8, uint4,
 * uint2, the symmetric int8_sym, int4_sym, int2_sym, and MXINT8's k * 2^-6
 * as mxint8 (two's complement) and mxint8_sym; any case.  Returns 0, or 1
 * when the spelling is none of them. */
int fpref_format_int(const char *spelling, struct fpref_format *out);
/* The integer rows, for `fpref formats`: NULL after the last. */
const struct fpref_format *fpref_format_int_at(size_t index);
/* An integer format as integers, for the commands that show one (table,
 * explain) in its own terms rather than as its float grid: n bits,
 * two's complement or unsigned, the codes' integers k_min..k_max (the
 * symmetric range leaves -2^(n-1) out), each of value k * 2^-frac. */
struct fpref_int_range {
	int bits;
	bool is_signed, symmetric;
	int frac;
	int64_t k_min, k_max;
};
/* 0, or -1 when f is not an integer format. */
int fpref_format_int_range(const struct fpref_format *f, struct fpref_int_range *r);
/* The integer k of a code of integer format f: two's complement where signed. */
int64_t fpref_format_int_k(const struct fpref_format *f, uint64_t code);
/* Other spellings of catalogue formats (PyTorch, NumPy, ONNX, shorthands). */
struct fpref_format_alias {
	const char *spelling;
	const char *name; /* the catalogue name it stands for */
};
size_t fpref_format_alias_count(void);
const struct fpref_format_alias *fpref_format_alias_at(size_t index);
/* The k-th other spelling of catalogue row f (k = 0, 1, ...), or NULL
 * after the last. */
const char *fpref_format_spelling(const struct fpref_format *f, size_t k);
/* Why a known spelling of a format fpref does not model is refused, or NULL. */
const char *fpref_format_refused(const char *spelling);
/* Look up a name, an alias or another spelling (any case, with or without a
 * "torch.", "np.", "jnp.", "ml_dtypes." or "TensorProto." prefix), or a
 * P3109 name (fpref_format_p3109), or a custom format written deliberately: "custom:eXmY[,options]" or
 * "eXmY,option[,option...]" with options bias=N, specials=ieee|fn|fnuz|none,
 * subnormals=on|off, unsigned, zero=on|off.  A bare "eXmY" that names no
 * catalogue format is refused with the nearest named one, so that a typo
 * (e4m4 for e4m3) is not silently a new format.  Returns 0, or -1 with a
 * message in err. */
int fpref_format_parse(const char *spelling, struct fpref_format *out, char *err, size_t errlen);
/* Every field of f spelt out as a custom spelling that reads back as the
 * same format: "e4m3,bias=7,specials=fn,subnormals=on,zero=on" (",unsigned"
 * when it has no sign bit; TF32's pad bits are not spellable and left out). */
void fpref_format_descriptor(const struct fpref_format *f, char *buf, size_t len);
/* Check a hand-built row for consistency; 0 or -1 with a message. */
int fpref_format_validate(const struct fpref_format *f, char *err, size_t errlen);

/* ---- geometry, all exact ---- */
int fpref_format_width(const struct fpref_format *f);          /* sign + exponent + mantissa bits */
int fpref_format_container_bits(const struct fpref_format *f); /* width + pad bits */
int fpref_format_precision(const struct fpref_format *f);      /* man_bits + 1 */
int fpref_format_min_exponent(const struct fpref_format *f);   /* exponent of the least normal, as a power of two */
int fpref_format_max_exponent(const struct fpref_format *f);   /* exponent of the binade of the largest finite */
bool fpref_format_has_inf(const struct fpref_format *f);
bool fpref_format_has_nan(const struct fpref_format *f);
bool fpref_format_has_negative_zero(const struct fpref_format *f);

/* Constants as exact unpacked values (positive). */
void fpref_format_max_finite(const struct fpref_format *f, struct fpref_unpacked *out);
/* The largest finite magnitude of that sign: max finite, except for a
 * signed integer's negative side (-2^(n-1) steps, unless symmetric). */
void fpref_format_max_magnitude(const struct fpref_format *f, bool negative, struct fpref_unpacked *out);
/* The bit pattern of a sign, exponent field and mantissa field: for an
 * integer format, the two's complement code of that magnitude (the field
 * may be one above the top, for -2^(n-1)). */
uint64_t fpref_format_code(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa);
void fpref_format_min_normal(const struct fpref_format *f, struct fpref_unpacked *out);
void fpref_format_min_positive(const struct fpref_format *f, struct fpref_unpacked *out); /* least subnormal, or least normal */
void fpref_format_epsilon(const struct fpref_format *f, struct fpref_unpacked *out);      /* 2^-man_bits */

/* Encodings.  Return false when the format has no such value. */
bool fpref_format_nan_bits(const struct fpref_format *f, bool negative, uint64_t *bits); /* canonical quiet NaN */
bool fpref_format_inf_bits(const struct fpref_format *f, bool negative, uint64_t *bits);
uint64_t fpref_format_max_bits(const struct fpref_format *f, bool negative);
uint64_t fpref_format_zero_bits(const struct fpref_format *f, bool negative); /* -0 becomes +0 where it does not exist */

/* ---- encode / decode ---- */
enum fpref_decode_status fpref_decode(const struct fpref_format *f, uint64_t bits, struct fpref_unpacked *out);
/* Encode an exactly representable value (any scaling of the significand).
 * NaN encodes as the canonical NaN of its sign (signaling ones keep the quiet bit clear).
 * Returns 0, or -1 when the value is not representable exactly. */
int fpref_encode(const struct fpref_format *f, const struct fpref_unpacked *v, uint64_t *bits);

/* A pattern in upper-case hex, as many digits as the container needs, no
 * 0x (TestFloat's spelling). */
void fpref_format_hex(const struct fpref_format *f, uint64_t bits, char *buf, size_t len);
/* Parse a pattern of f written in hex, with or without 0x.  0, or -1 with
 * a message naming the text. */
int fpref_format_parse_bits(const struct fpref_format *f, const char *text, uint64_t *bits, char *err, size_t errlen);

/* Split a pattern into its fields (for display). */
void fpref_fields(const struct fpref_format *f, uint64_t bits, unsigned *sign, uint64_t *exponent, uint64_t *mantissa);

const char *fpref_class_name(enum fpref_class c);
const char *fpref_specials_name(enum fpref_specials s);

#ifdef __cplusplus
}
#endif
#endif
