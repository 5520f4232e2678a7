/* fpref — the E8M0 scale rules as one matrix: every way a library or an
 * instruction turns an FP32 value (or a block's amax) into an E8M0 code,
 * each a row of data that both engines read (emu/fpref_emu_e8m0.h,
 * ref/fpref_ref_e8m0.h).  docs/scaling-mx.md gives each row's source.
 *
 * A rule is applied in this order:
 *   1. source: the FP32 input is first rounded to BF16 (ties to even)
 *      when the row's source is bfloat16 (a kernel that casts first);
 *   2. NaN gives 0xFF; a negative value is taken as its magnitude, or
 *      gives 0xFF (negative = NaN);
 *   3. input: the value itself, or an amax turned into a ratio for an MX
 *      element (amax * 2^-emax exactly, after rounding amax to the
 *      element's precision, or amax * (1/max) in FP32 arithmetic);
 *   4. +inf gives 0xFE when the row saturates infinities, else 0xFF;
 *      zero gives 0x00 (2^-127) or 0xFF;
 *   5. the value is rounded (direction of the row) onto a grid of powers
 *      of two: E8M0's own values 2^-127..2^127 (a value below 2^-127 gives
 *      2^-127), or, for the rules that round FP32's bit pattern (ONNX,
 *      PyTorch), the grid {0, 2^-126, ..., 2^127} whose zero is code 0x00,
 *      which E8M0 then reads as 2^-127;
 *   6. past 2^127: 0xFE when the row saturates, else 0xFF. */
#ifndef FPREF_FORMATS_E8M0_H
#define FPREF_FORMATS_E8M0_H

#include <stdbool.h>
#include <stddef.h>

#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

enum fpref_e8m0_input {
	FPREF_E8M0_VALUE,         /* the input itself (a conversion) */
	FPREF_E8M0_AMAX_POW2,     /* amax * 2^-emax_elem, exact */
	FPREF_E8M0_AMAX_ELEM_RNE, /* amax rounded to the element's precision (ties to even), then * 2^-emax_elem */
	FPREF_E8M0_AMAX_RCP_F32   /* fl32(amax * fl32(1 / max_elem)) */
};

enum fpref_e8m0_grid {
	FPREF_E8M0_GRID_VALUE,  /* E8M0's values; below 2^-127 gives 2^-127 */
	FPREF_E8M0_GRID_PATTERN /* {0, 2^-126, ..., 2^127}, zero stored as code 0x00 */
};

struct fpref_e8m0_rule {
	const char *name;
	const char *who; /* the implementation the row models */
	enum fpref_e8m0_input input;
	enum fpref_rounding rounding; /* FPREF_RDN, FPREF_RUP or FPREF_RNE (a tie goes to the larger power, or to 0 on the pattern grid) */
	enum fpref_e8m0_grid grid;
	bool saturate;       /* past 2^127: 0xFE (else 0xFF) */
	bool inf_saturates;  /* +inf: 0xFE (else 0xFF) */
	bool zero_nan;       /* zero: 0xFF (else 0x00) */
	bool negative_nan;   /* x < 0: 0xFF (else |x|) */
	enum fpref_format_id source; /* FPREF_FORMAT_FLOAT32, or FPREF_FORMAT_BFLOAT16: rounded to BF16 first */
};

#define FPREF_E8M0_NAN_CODE 0xFF
#define FPREF_E8M0_MAX_CODE 0xFE

size_t fpref_e8m0_rule_count(void);
const struct fpref_e8m0_rule *fpref_e8m0_rule_at(size_t index);
/* A row by name (any case), or an alias of one ("ocp-floor" is floor,
 * "nv-ceil" rceil, "rne" even); "NAME/bf16" is the row with source
 * bfloat16.  0, or -1 with a message naming the token. */
int fpref_e8m0_rule_parse(const char *name, struct fpref_e8m0_rule *out, char *err, size_t errlen);
/* The row's name as fpref_e8m0_rule_parse reads it ("ceil/bf16"). */
void fpref_e8m0_rule_spelling(const struct fpref_e8m0_rule *r, char *buf, size_t len);
const char *fpref_e8m0_rule_choices(void);
/* Whether the rule reads an MX element (its input is an amax). */
bool fpref_e8m0_rule_needs_element(const struct fpref_e8m0_rule *r);
/* The element must be one of the OCP MX element types (float8_e4m3fn,
 * float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, or MXINT8 as
 * mxint8 or mxint8_sym): 0, or -1. */
int fpref_e8m0_element_check(const struct fpref_format *element, char *err, size_t errlen);
/* The pattern grid as a format: e8m0, unsigned, zero at code 0, no
 * subnormals, 0xFF NaN. */
void fpref_e8m0_pattern_grid(struct fpref_format *out);

#ifdef __cplusplus
}
#endif
#endif
