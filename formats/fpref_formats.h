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
	int exp_bits;              /* 1..15 */
	int man_bits;              /* stored fraction bits, 0..62 */
	int bias;
	bool is_signed;            /* false: no sign bit (E8M0) */
	bool has_zero;             /* false: exponent field 0 is an ordinary binade (E8M0) */
	bool subnormals;           /* false: exponent field 0 holds only zero */
	enum fpref_specials specials;
	int pad_bits;              /* zero bits below the mantissa in the container (TF32 in FP32: 13) */
	const char *note;          /* where the row comes from; NULL for custom formats */
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
size_t fpref_format_count(void);
const struct fpref_format *fpref_format_at(size_t index);
/* Look up a name, an alias, or a custom spelling "eXmY[,bias=N][,specials=ieee|fn|fnuz|none]
 * [,subnormals=on|off][,unsigned][,zero=off]".  Returns 0, or -1 with a message in err. */
int fpref_format_parse(const char *spelling, struct fpref_format *out, char *err, size_t errlen);
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
