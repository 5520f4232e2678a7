/* The oracle's OCP MX and NVFP4 quantisers (docs/scaling-mx.md): the
 * recipes' exact steps (amax, log2, scaling by powers of two) in MPFR, and
 * every rounding by the oracle's own rounding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpref_ref.h"
#include "fpref_ref_scale_mx.h"

#define E8M0_BIAS 127
#define E8M0_NAN 0xFF
#define SCALE_EXP_MIN (-127)
#define SCALE_EXP_MAX 127
#define MX_BLOCK 32
#define NVFP4_BLOCK 16
#define QUIET_NAN_F32 0x7FC00000u

/* The element types of OCP MX v1.0, from the spec's tables: emax, the
 * significant bits, and the largest magnitude max_num * 2^max_exp. */
struct element_row {
	enum fpref_format_id format; /* the catalogue's row, where not int8 */
	bool int8;
	int emax;
	int precision;
	unsigned max_num;
	int max_exp;
};

static const struct element_row element_rows[] = {
	{ FPREF_FORMAT_FLOAT8_E4M3FN, false, 8, 4, 7, 6 },  /* 448 */
	{ FPREF_FORMAT_FLOAT8_E5M2, false, 15, 3, 7, 13 },  /* 57344 */
	{ FPREF_FORMAT_FLOAT6_E2M3FN, false, 2, 4, 15, -1 }, /* 7.5 */
	{ FPREF_FORMAT_FLOAT6_E3M2FN, false, 4, 3, 7, 2 },  /* 28 */
	{ FPREF_FORMAT_FLOAT4_E2M1FN, false, 2, 2, 3, 1 },  /* 6 */
	{ 0, true, 0, 7, 127, -6 },                         /* int8, 127/64: two's complement k * 2^-6, |k| <= 127 */
};

enum scale_rule { RULE_FLOOR, RULE_CEIL, RULE_RNE };

/* Scratch for one call: formats, the FP32 environment, a rounding operand. */
struct oracle {
	struct fpref_format f32, e4m3, e2m1, element;
	const struct element_row *row;
	struct fpref_env rne;
	struct fpref_ref_value v;
	mpfr_t a, b;
};

static void oracle_init(struct oracle *o)
{
	fpref_env_default(&o->rne);
	o->f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	o->e4m3 = *fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN);
	o->e2m1 = *fpref_format_get(FPREF_FORMAT_FLOAT4_E2M1FN);
	fpref_ref_value_init(&o->v);
	mpfr_inits2(FPREF_REF_WORK_PREC, o->a, o->b, (mpfr_ptr)0);
}

static void oracle_clear(struct oracle *o)
{
	fpref_ref_value_clear(&o->v);
	mpfr_clears(o->a, o->b, (mpfr_ptr)0);
}

static int element_lookup(struct oracle *o, const char *name, char *err, size_t errlen)
{
	char why[256];
	bool int8 = name && strcasecmp(name, "int8") == 0;
	bool parsed = !int8 && name && fpref_format_parse(name, &o->element, why, sizeof why) == 0;
	for (size_t i = 0; (int8 || parsed) && i < sizeof element_rows / sizeof element_rows[0]; i++) {
		const struct element_row *r = &element_rows[i];
		if (int8 ? r->int8 : !r->int8 && fpref_format_is(&o->element, r->format)) {
			o->row = &element_rows[i];
			return 0;
		}
	}
	snprintf(err, errlen, "unknown MX element '%s'", name ? name : "(none)");
	return -1;
}

/* An exact value rounded to format f under env. */
static uint64_t round_exact(struct oracle *o, mpfr_srcptr x, const struct fpref_format *f,
			    const struct fpref_env *env, uint64_t sr_random)
{
	uint64_t bits = 0;
	unsigned flags = 0;
	mpfr_set(o->v.x, x, MPFR_RNDN); /* exact: every value here has far fewer bits */
	o->v.signaling = false;
	o->v.inexact = false;
	fpref_ref_round(&o->v, f, env, sr_random, &bits, &flags, NULL);
	return bits;
}

static uint32_t f32_round(struct oracle *o, mpfr_srcptr x)
{
	return (uint32_t)round_exact(o, x, &o->f32, &o->rne, 0);
}

static uint32_t f32_op(struct oracle *o, enum fpref_op op, uint32_t x, uint32_t y)
{
	uint64_t in[2] = { x, y }, out = 0;
	unsigned flags = 0;
	fpref_ref_op(op, &o->f32, in, &o->rne, 0, &out, &flags);
	return (uint32_t)out;
}

static void f32_value(struct oracle *o, uint32_t bits, mpfr_ptr out)
{
	fpref_ref_from_bits(&o->f32, bits, false, &o->v);
	mpfr_set(out, o->v.x, MPFR_RNDN);
}

static long clamp_scale(long s)
{
	return s < SCALE_EXP_MIN ? SCALE_EXP_MIN : s > SCALE_EXP_MAX ? SCALE_EXP_MAX : s;
}

/* floor(log2 |x|) of a nonzero number. */
static long floor_log2(mpfr_srcptr x)
{
	return (long)mpfr_get_exp(x) - 1;
}

/* The scale exponent of a block of finite values with largest magnitude amax. */
static long shared_exponent(struct oracle *o, enum scale_rule rule, mpfr_srcptr amax)
{
	const struct element_row *row = o->row;
	if (rule == RULE_CEIL) {
		mpfr_set_ui_2exp(o->b, row->max_num, row->max_exp, MPFR_RNDN);
		uint32_t rcp = f32_op(o, FPREF_OP_DIV, 0x3F800000u, f32_round(o, o->b));
		f32_value(o, rcp, o->b);
		mpfr_mul(o->b, o->b, amax, MPFR_RNDN); /* exact: 24 x 24 bits */
		f32_value(o, f32_round(o, o->b), o->b);
		if (mpfr_zero_p(o->b))
			return SCALE_EXP_MIN;
		long e = floor_log2(o->b);
		bool power_of_two = mpfr_cmp_ui_2exp(o->b, 1, e) == 0;
		return clamp_scale(power_of_two ? e : e + 1);
	}
	if (mpfr_zero_p(amax))
		return SCALE_EXP_MIN;
	if (rule == RULE_FLOOR)
		return clamp_scale(floor_log2(amax) - row->emax);
	mpfr_t r;
	mpfr_init2(r, row->precision);
	mpfr_set(r, amax, MPFR_RNDN); /* to the element's precision, ties to even */
	long e = floor_log2(r);
	mpfr_clear(r);
	return clamp_scale(e - row->emax);
}

/* The element code of the exact value y (already divided by the scale). */
static uint8_t element_code(struct oracle *o, mpfr_ptr y, enum fpref_rounding rounding)
{
	if (!o->row->int8) {
		struct fpref_env env = o->rne;
		env.rounding = rounding;
		env.overflow = FPREF_OVERFLOW_SAT;
		return (uint8_t)round_exact(o, y, &o->element, &env, 0);
	}
	mpfr_mul_2ui(y, y, 6, MPFR_RNDN);
	if (rounding == FPREF_RNA)
		mpfr_round(y, y);
	else
		mpfr_rint(y, y, MPFR_RNDN);
	long k = mpfr_get_si(y, MPFR_RNDN);
	k = k > 127 ? 127 : k < -127 ? -127 : k;
	return (uint8_t)(k < 0 ? k + 256 : k);
}

static void quantize_block(struct oracle *o, enum scale_rule rule, enum fpref_rounding rounding,
			   const uint32_t *x, size_t n, uint8_t *codes, uint8_t *scale)
{
	mpfr_t amax, y;
	mpfr_inits2(FPREF_REF_WORK_PREC, amax, y, (mpfr_ptr)0);
	mpfr_set_zero(amax, 1);
	bool special = false;
	for (size_t i = 0; i < n; i++) {
		f32_value(o, x[i], y);
		special = special || !mpfr_number_p(y);
		if (mpfr_number_p(y) && mpfr_cmpabs(y, amax) > 0)
			mpfr_abs(amax, y, MPFR_RNDN);
	}
	if (special) {
		*scale = E8M0_NAN;
		memset(codes, 0, n);
	} else {
		long s = shared_exponent(o, rule, amax);
		*scale = (uint8_t)(s + E8M0_BIAS);
		for (size_t i = 0; i < n; i++) {
			f32_value(o, x[i], y);
			if (rule == RULE_CEIL) { /* FP32 product with 2^-s, or with 1 for code 0 */
				if (s != SCALE_EXP_MIN)
					mpfr_mul_2si(y, y, -s, MPFR_RNDN);
				f32_value(o, f32_round(o, y), y);
			} else {
				mpfr_mul_2si(y, y, -s, MPFR_RNDN);
			}
			codes[i] = element_code(o, y, rounding);
		}
	}
	mpfr_clears(amax, y, (mpfr_ptr)0);
}

static int parse_rule(const char *name, enum scale_rule *rule, char *err, size_t errlen)
{
	if (name && strcmp(name, "ocp-floor") == 0)
		*rule = RULE_FLOOR;
	else if (name && strcmp(name, "nv-ceil") == 0)
		*rule = RULE_CEIL;
	else if (name && strcmp(name, "rne") == 0)
		*rule = RULE_RNE;
	else {
		snprintf(err, errlen, "unknown MX scale rule '%s'", name ? name : "(none)");
		return -1;
	}
	return 0;
}

int fpref_ref_mx_quantize(const char *element, const char *scale_rule, enum fpref_rounding element_rounding,
			  const uint32_t *x_f32, size_t rows, size_t cols, uint8_t *codes, uint8_t *scales_e8m0,
			  char *err, size_t errlen)
{
	enum scale_rule rule;
	if (parse_rule(scale_rule, &rule, err, errlen) != 0)
		return -1;
	if (element_rounding != FPREF_RNE && element_rounding != FPREF_RNA) {
		snprintf(err, errlen, "MX element rounding must be rne or rna");
		return -1;
	}
	struct oracle o;
	oracle_init(&o);
	if (element_lookup(&o, element, err, errlen) != 0) {
		oracle_clear(&o);
		return -1;
	}
	size_t per_row = (cols + MX_BLOCK - 1) / MX_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		for (size_t b = 0; b < per_row; b++) {
			size_t c0 = b * MX_BLOCK, n = cols - c0 < MX_BLOCK ? cols - c0 : MX_BLOCK;
			quantize_block(&o, rule, element_rounding, x_f32 + r * cols + c0, n, codes + r * cols + c0,
				       scales_e8m0 + r * per_row + b);
		}
	}
	oracle_clear(&o);
	return 0;
}

/* The exact value of an element code; -1 for a pattern outside the element. */
static int element_value(struct oracle *o, uint8_t code, mpfr_ptr out)
{
	if (o->row->int8) {
		mpfr_set_si_2exp(out, code < 128 ? code : code - 256, -6, MPFR_RNDN);
		return 0;
	}
	if (fpref_ref_from_bits(&o->element, code, false, &o->v) != 0)
		return -1;
	mpfr_set(out, o->v.x, MPFR_RNDN);
	return 0;
}

int fpref_ref_mx_dequantize(const char *element, const uint8_t *codes, const uint8_t *scales, size_t rows,
			    size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct oracle o;
	oracle_init(&o);
	int status = element_lookup(&o, element, err, errlen);
	size_t per_row = (cols + MX_BLOCK - 1) / MX_BLOCK;
	for (size_t i = 0; status == 0 && i < rows * cols; i++) {
		uint8_t e = scales[(i / cols) * per_row + (i % cols) / MX_BLOCK];
		if (element_value(&o, codes[i], o.a) != 0) {
			snprintf(err, errlen, "code 0x%02X at element %zu is not a %s pattern", codes[i], i, element);
			status = -1;
		} else if (e == E8M0_NAN || mpfr_nan_p(o.a)) {
			out_f32[i] = QUIET_NAN_F32;
		} else {
			mpfr_mul_2si(o.a, o.a, (long)e - E8M0_BIAS, MPFR_RNDN);
			out_f32[i] = f32_round(&o, o.a);
		}
	}
	oracle_clear(&o);
	return status;
}

/* ---- NVFP4 ---- */

static size_t nvfp4_block(bool two_d, size_t cols, size_t i)
{
	size_t across = (cols + NVFP4_BLOCK - 1) / NVFP4_BLOCK, r = i / cols;
	return (two_d ? r / NVFP4_BLOCK : r) * across + (i % cols) / NVFP4_BLOCK;
}

static size_t nvfp4_blocks(bool two_d, size_t rows, size_t cols)
{
	return (two_d ? (rows + NVFP4_BLOCK - 1) / NVFP4_BLOCK : rows) * ((cols + NVFP4_BLOCK - 1) / NVFP4_BLOCK);
}

/* The FP32 product of two FP32 patterns: exact in MPFR, rounded once. */
static uint32_t f32_mul(struct oracle *o, uint32_t x, uint32_t y)
{
	f32_value(o, x, o->a);
	f32_value(o, y, o->b);
	if (mpfr_nan_p(o->a) || mpfr_nan_p(o->b))
		return QUIET_NAN_F32;
	mpfr_mul(o->a, o->a, o->b, MPFR_RNDN);
	return f32_round(o, o->a);
}

/* min(x, FLT_MAX) for a non-NaN x. */
static uint32_t f32_min_max_finite(struct oracle *o, uint32_t x)
{
	f32_value(o, x, o->a);
	mpfr_set_ui_2exp(o->b, 0xFFFFFF, 104, MPFR_RNDN); /* FLT_MAX = (2^24 - 1) * 2^104 */
	return mpfr_cmp(o->a, o->b) > 0 ? 0x7F7FFFFFu : x;
}

static uint32_t decode_f32(struct oracle *o, const struct fpref_format *f, uint8_t code)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_ref_convert(f, code, &o->f32, &o->rne, 0, &out, &flags);
	return (uint32_t)out;
}

/* The element of largest magnitude in each block (amax[b], as its FP32
 * bits) and in the tensor (returned), by exact comparisons; NaNs take no
 * part, as with fmaxf. */
static uint32_t block_maxima(struct oracle *o, bool two_d, const uint32_t *x, size_t rows, size_t cols,
			     uint32_t *amax)
{
	uint32_t global = 0;
	for (size_t i = 0; i < rows * cols; i++) {
		f32_value(o, x[i], o->a);
		if (mpfr_nan_p(o->a))
			continue;
		uint32_t *m = &amax[nvfp4_block(two_d, cols, i)];
		f32_value(o, *m, o->b);
		if (mpfr_cmpabs(o->a, o->b) > 0)
			*m = x[i];
		f32_value(o, global, o->b);
		if (mpfr_cmpabs(o->a, o->b) > 0)
			global = x[i];
	}
	return global;
}

/* S = min(2688 / amax, FLT_MAX), or 1 for an amax of 0 or an S of 0. */
static uint32_t tensor_scale(struct oracle *o, uint32_t amax)
{
	f32_value(o, amax, o->a);
	if (mpfr_zero_p(o->a))
		return 0x3F800000u;
	mpfr_abs(o->a, o->a, MPFR_RNDN);
	uint32_t q = f32_min_max_finite(o, f32_op(o, FPREF_OP_DIV, 0x45280000u /* 2688 */, f32_round(o, o->a)));
	return q == 0 ? 0x3F800000u : q;
}

int fpref_ref_nvfp4_quantize(bool two_d, bool stochastic, uint64_t seed, const uint32_t *x_f32, size_t rows,
			     size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
			     char *err, size_t errlen)
{
	struct oracle o;
	oracle_init(&o);
	size_t blocks = nvfp4_blocks(two_d, rows, cols);
	uint32_t *per_block = calloc(blocks ? blocks : 1, sizeof *per_block); /* amax, then the multiplier */
	if (!per_block) {
		oracle_clear(&o);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint32_t S = tensor_scale(&o, block_maxima(&o, two_d, x_f32, rows, cols, per_block));
	uint32_t block_encode = f32_mul(&o, S, f32_op(&o, FPREF_OP_DIV, 0x3F800000u, 0x40C00000u /* 6 */));
	uint32_t tensor_decode = f32_op(&o, FPREF_OP_DIV, 0x3F800000u, S);
	struct fpref_env sat = o.rne;
	sat.overflow = FPREF_OVERFLOW_SAT;
	for (size_t b = 0; b < blocks; b++) {
		f32_value(&o, f32_mul(&o, per_block[b] & 0x7FFFFFFFu, block_encode), o.a);
		block_scales_e4m3[b] = (uint8_t)round_exact(&o, o.a, &o.e4m3, &sat, 0);
		uint32_t decode = f32_mul(&o, decode_f32(&o, &o.e4m3, block_scales_e4m3[b]), tensor_decode);
		per_block[b] = f32_min_max_finite(&o, f32_op(&o, FPREF_OP_DIV, 0x3F800000u, decode));
	}
	struct fpref_env element = sat;
	if (stochastic) {
		element.rounding = FPREF_SR;
		element.sr_width = 32;
	}
	for (size_t i = 0; i < rows * cols; i++) {
		f32_value(&o, f32_mul(&o, x_f32[i], per_block[nvfp4_block(two_d, cols, i)]), o.a);
		uint64_t random = stochastic ? fpref_sr_stream(seed, i) >> 32 : 0;
		codes[i] = (uint8_t)round_exact(&o, o.a, &o.e2m1, &element, random);
	}
	*tensor_scale_f32 = S;
	free(per_block);
	oracle_clear(&o);
	return 0;
}

int fpref_ref_nvfp4_dequantize(bool two_d, const uint8_t *codes, const uint8_t *block_scales_e4m3,
			       uint32_t tensor_scale_f32, size_t rows, size_t cols, uint32_t *out_f32, char *err,
			       size_t errlen)
{
	struct oracle o;
	oracle_init(&o);
	uint32_t decode = f32_op(&o, FPREF_OP_DIV, 0x3F800000u, tensor_scale_f32);
	int status = 0;
	for (size_t i = 0; i < rows * cols; i++) {
		if (codes[i] > 0xF) {
			snprintf(err, errlen, "code 0x%02X at element %zu is not an E2M1 pattern", codes[i], i);
			status = -1;
			break;
		}
		uint32_t scale = f32_mul(&o, decode_f32(&o, &o.e4m3, block_scales_e4m3[nvfp4_block(two_d, cols, i)]),
					 decode);
		out_f32[i] = f32_mul(&o, decode_f32(&o, &o.e2m1, codes[i]), scale);
	}
	oracle_clear(&o);
	return status;
}
