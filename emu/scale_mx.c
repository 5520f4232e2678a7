/* OCP MX v1.0 block quantisation in the emulator: blocks of 32 along each
 * row, one E8M0 scale per block, by one of five scale rules, as OCP,
 * torchao or ModelOpt treats specials and tiny scales (docs/scaling-mx.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "torch_nan.h"

#define E8M0_BIAS 127
#define E8M0_MIN_EXP (-127)
#define E8M0_MAX_EXP 127

/* An MX element type.  INT8 is the integer row mxint8_sym (formats/int.c):
 * two's complement k * 2^-6, rounded by the shared core and written with
 * |k| <= 127, as the MX quantisers write it. */
struct mx_element {
	struct fpref_format format;    /* the element */
	int emax;                      /* exponent of the largest normal */
	uint32_t max_f32;              /* the largest magnitude, in FP32 */
	struct fpref_format amax_grid; /* FP32's range at the element's precision (rne rule) */
	struct fpref_format e8m0;
};

static const enum fpref_format_id mx_float_elements[] = { FPREF_FORMAT_FLOAT8_E4M3FN, FPREF_FORMAT_FLOAT8_E5M2,
							  FPREF_FORMAT_FLOAT6_E2M3FN, FPREF_FORMAT_FLOAT6_E3M2FN,
							  FPREF_FORMAT_FLOAT4_E2M1FN };

static int unknown_element(const char *name, char *err, size_t errlen)
{
	snprintf(err, errlen, "unknown MX element '%s' (choices: float8_e4m3fn, float8_e5m2, float6_e2m3fn, "
		 "float6_e3m2fn, float4_e2m1fn, int8)", name ? name : "(none)");
	return -1;
}

static int mx_element_init(const struct f32_arith *a, const char *name, struct mx_element *el, char *err,
			   size_t errlen)
{
	memset(el, 0, sizeof *el);
	char why[256];
	bool int8 = name && strcasecmp(name, "int8") == 0;
	if (!name || fpref_format_parse(int8 ? "mxint8_sym" : name, &el->format, why, sizeof why) != 0)
		return unknown_element(name, err, errlen);
	bool listed = int8;
	for (size_t i = 0; i < sizeof mx_float_elements / sizeof mx_float_elements[0]; i++)
		listed = listed || fpref_format_is(&el->format, mx_float_elements[i]);
	if (!listed)
		return unknown_element(name, err, errlen);
	el->emax = fpref_format_max_exponent(&el->format);
	int precision = fpref_format_precision(&el->format);
	uint64_t max = 0;
	unsigned flags = 0;
	fpref_emu_convert(&el->format, fpref_format_max_bits(&el->format, false), &a->f32, &a->env, 0, &max, &flags);
	el->max_f32 = (uint32_t)max;
	char grid[32];
	snprintf(grid, sizeof grid, "custom:e9m%d", precision - 1);
	if (fpref_format_parse(grid, &el->amax_grid, err, errlen) != 0)
		return -1;
	el->e8m0 = *fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU);
	return 0;
}

static int check_size(size_t rows, size_t cols, char *err, size_t errlen)
{
	if (cols != 0 && rows > SIZE_MAX / cols) {
		snprintf(err, errlen, "tensor of %zu x %zu elements is too large", rows, cols);
		return -1;
	}
	return 0;
}

/* What a library does beside the scale rule.  The rows rest on the
 * sources named in docs/scaling-mx.md ("MX recipes").  A recipe may have a
 * row per element where the library has a quantiser per element
 * (ModelOpt's MXFP8QTensor and MXFP4QTensor). */
struct mx_recipe_row {
	enum fpref_mx_recipe id;
	const char *name;
	/* The elements (an mx_float_elements index, 5 for INT8) and rules
	 * (1 << enum fpref_mx_scale_rule) the library has; others are refused. */
	unsigned elements, rules;
	/* A block holding an inf or a NaN: OCP's NaN scale with zero codes; or,
	 * as the library's arithmetic goes, an infinite amax read by its FP32
	 * exponent field (2^128, so s = 128 - emax under the floor rules) or as
	 * ceil(log2 inf) = 127 (FE) under the rceil rules, its codes computed. */
	bool specials_computed;
	/* A NaN amax gives scale 00 (ModelOpt: log2 only where descale > 0), else FF. */
	bool nan_scale_zero;
	/* The floor-type rules divide by max(2^s, 2^-126): torchao clamps the
	 * FP32 scale to the least normal before dividing. */
	bool divisor_min_normal;
	/* The rceil rules multiply by 2^-s, taking 1 for code 00 (TE, torchao);
	 * ModelOpt multiplies by 2^127 there. */
	bool code0_multiplies_by_one;
	/* ModelOpt's MXFP4 cast: an element's magnitude code counts the
	 * midpoints strictly below |y| (nearest, ties toward zero), and the sign
	 * bit is set unless y > 0 (torch.sign of 0 and of NaN is 0, and (2 - 0)
	 * // 2 is 1).  A block holding an inf or a NaN gets scale 00 (ceil(log2)
	 * of inf or NaN cast to uint8) and every code the sign bit alone
	 * (x / inf is a zero, inf / inf a NaN). */
	bool ties_toward_zero;
	/* A NaN block's codes as torchao's arithmetic makes them (they decode to
	 * NaN under scale FF either way): see torch_nan_block_code. */
	bool nan_codes_computed;
};

#define MX_ALL_FLOATS 0x1Fu
#define MX_ALL_ELEMENTS 0x3Fu
#define MX_ELEMENT_E4M3 0x01u
#define MX_ELEMENT_E2M1 0x10u
#define MX_ALL_RULES 0x1Fu

static const struct mx_recipe_row mx_recipes[] = {
	{ FPREF_MX_OCP, "ocp", MX_ALL_ELEMENTS, MX_ALL_RULES, false, false, false, true, false, false },
	{ FPREF_MX_TORCHAO, "torchao", MX_ALL_FLOATS, MX_ALL_RULES, true, false, true, true, false, true },
	{ FPREF_MX_MODELOPT, "modelopt", MX_ELEMENT_E4M3, 1u << FPREF_MX_SCALE_RCEIL_LOG2, true, true, false, false,
	  false, false },
	{ FPREF_MX_MODELOPT, "modelopt", MX_ELEMENT_E2M1, 1u << FPREF_MX_SCALE_RCEIL_LOG2, false, false, false, false,
	  true, false },
};

/* The index of an element in mx_float_elements, 5 for INT8, -1 for none. */
static int element_index(const char *name)
{
	struct fpref_format f;
	if (name && strcasecmp(name, "int8") == 0)
		return 5;
	if (!name || fpref_format_parse(name, &f, NULL, 0) != 0)
		return -1;
	for (size_t i = 0; i < sizeof mx_float_elements / sizeof mx_float_elements[0]; i++)
		if (fpref_format_is(&f, mx_float_elements[i]))
			return (int)i;
	return -1;
}

/* The recipe's row for the element (its first row if it has not the element). */
static const struct mx_recipe_row *mx_recipe_row(enum fpref_mx_recipe id, const char *element)
{
	const struct mx_recipe_row *first = NULL;
	int e = element_index(element);
	for (size_t i = 0; i < sizeof mx_recipes / sizeof mx_recipes[0]; i++)
		if (mx_recipes[i].id == id) {
			if (e >= 0 && (mx_recipes[i].elements >> e & 1u))
				return &mx_recipes[i];
			first = first ? first : &mx_recipes[i];
		}
	return first;
}

const char *fpref_emu_mx_recipe_name(enum fpref_mx_recipe r)
{
	const struct mx_recipe_row *row = mx_recipe_row(r, NULL);
	return row ? row->name : "?";
}

int fpref_emu_mx_recipe_parse(const char *name, enum fpref_mx_recipe *r)
{
	for (size_t i = 0; i < sizeof mx_recipes / sizeof mx_recipes[0]; i++)
		if (strcasecmp(name, mx_recipes[i].name) == 0) {
			*r = mx_recipes[i].id;
			return 0;
		}
	return -1;
}

static bool rule_is_rceil(enum fpref_mx_scale_rule rule)
{
	return rule == FPREF_MX_SCALE_NV_CEIL || rule == FPREF_MX_SCALE_RCEIL_LOG2;
}

/* What the recipe has, for a refusal: "elements e4m3, e2m1; rules rceil-log2". */
static void recipe_support(enum fpref_mx_recipe id, char *out, size_t len)
{
	static const char *const short_names[] = { "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "int8" };
	unsigned elements = 0, rules = 0;
	for (size_t i = 0; i < sizeof mx_recipes / sizeof mx_recipes[0]; i++)
		if (mx_recipes[i].id == id) {
			elements |= mx_recipes[i].elements;
			rules |= mx_recipes[i].rules;
		}
	size_t n = (size_t)snprintf(out, len, "elements");
	const char *sep = " ";
	for (int e = 0; e < 6 && n < len; e++)
		if (elements >> e & 1u) {
			n += (size_t)snprintf(out + n, len - n, "%s%s", sep, short_names[e]);
			sep = ", ";
		}
	if (n < len)
		n += (size_t)snprintf(out + n, len - n, "; rules");
	sep = " ";
	for (int r = 0; r <= FPREF_MX_SCALE_RCEIL_LOG2 && n < len; r++)
		if (rules >> r & 1u) {
			n += (size_t)snprintf(out + n, len - n, "%s%s", sep,
					      fpref_emu_mx_scale_rule_name((enum fpref_mx_scale_rule)r));
			sep = ", ";
		}
	if (n < len && id != FPREF_MX_OCP)
		snprintf(out + n, len - n, "; element rounding rne (the library's own)");
}

int fpref_emu_mx_params_check(const struct fpref_mx_params *p, char *err, size_t errlen)
{
	if (p->element_rounding != FPREF_RNE && p->element_rounding != FPREF_RNA) {
		snprintf(err, errlen, "MX element rounding must be rne or rna, not %s",
			 fpref_rounding_name(p->element_rounding));
		return -1;
	}
	if ((unsigned)p->rule > FPREF_MX_SCALE_RCEIL_LOG2) {
		snprintf(err, errlen, "unknown MX scale rule %d", (int)p->rule);
		return -1;
	}
	const struct mx_recipe_row *row = mx_recipe_row(p->recipe, p->element);
	if (!row) {
		snprintf(err, errlen, "unknown MX recipe %d", (int)p->recipe);
		return -1;
	}
	int e = element_index(p->element);
	if (e < 0)
		return unknown_element(p->element, err, errlen);
	char has[160];
	recipe_support(p->recipe, has, sizeof has);
	if (!(row->elements >> e & 1u) || !(row->rules >> p->rule & 1u) ||
	    (p->recipe != FPREF_MX_OCP && p->element_rounding != FPREF_RNE)) {
		snprintf(err, errlen, "MX recipe %s has no %s with rule %s and element rounding %s (it has %s)",
			 row->name, p->element, fpref_emu_mx_scale_rule_name(p->rule),
			 fpref_rounding_name(p->element_rounding), has);
		return -1;
	}
	return 0;
}

static int check_params(const struct fpref_mx_params *p, size_t rows, size_t cols, char *err, size_t errlen)
{
	if (fpref_emu_mx_params_check(p, err, errlen) != 0)
		return -1;
	return check_size(rows, cols, err, errlen);
}

const char *fpref_emu_mx_scale_rule_name(enum fpref_mx_scale_rule rule)
{
	switch (rule) {
	case FPREF_MX_SCALE_OCP_FLOOR:
		return "ocp-floor";
	case FPREF_MX_SCALE_NV_CEIL:
		return "nv-ceil";
	case FPREF_MX_SCALE_RNE:
		return "rne";
	case FPREF_MX_SCALE_CEIL:
		return "ceil";
	case FPREF_MX_SCALE_RCEIL_LOG2:
		return "rceil-log2";
	}
	return "?";
}

int fpref_emu_mx_scale_rule_parse(const char *name, enum fpref_mx_scale_rule *rule)
{
	static const enum fpref_mx_scale_rule all[] = { FPREF_MX_SCALE_OCP_FLOOR, FPREF_MX_SCALE_NV_CEIL,
							FPREF_MX_SCALE_RNE, FPREF_MX_SCALE_CEIL,
							FPREF_MX_SCALE_RCEIL_LOG2 };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (strcasecmp(name, fpref_emu_mx_scale_rule_name(all[i])) == 0) {
			*rule = all[i];
			return 0;
		}
	}
	return -1;
}

const char *fpref_emu_mx_scale_rule_choices(void)
{
	return "ocp-floor, nv-ceil, rne, ceil, rceil-log2";
}

size_t fpref_emu_mx_scale_count(size_t rows, size_t cols)
{
	return rows * ((cols + FPREF_MX_BLOCK - 1) / FPREF_MX_BLOCK);
}

/* floor(log2 |v|) of a finite nonzero pattern of f. */
static int floor_log2(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	fpref_decode(f, bits, &u);
	return u.exponent + 63 - __builtin_clzll(u.significand);
}

/* ceil(fl32(log2 d)) for a positive finite FP32 d, log2 rounded to FP32
 * ties to even.  With d = m 2^e (1 <= m < 2), log2 d = e + log2 m rounds
 * down to e exactly when log2 m is below half the gap from e to the next
 * FP32 number above it, 2^-q; and log2 m < 2^-q exactly when m^(2^q) < 2,
 * decided here by q squarings in fixed point with 62 fraction bits (the
 * truncation error is far below the distance of m^(2^q) from 2 for every
 * 24-bit m: the thresholds (2^(2^-q) - 1) 2^23 for q = 18..25 lie 0.09 or
 * more from an integer). */
static int ceil_f32_log2(const struct fpref_format *f32, uint32_t d)
{
	struct fpref_unpacked u;
	fpref_decode(f32, d, &u);
	int top = 63 - __builtin_clzll(u.significand);
	int e = u.exponent + top;
	uint64_t frac = u.significand << (63 - top) >> 1; /* m in 1.62 fixed point */
	if (frac == (uint64_t)1 << 62)
		return e; /* a power of two: log2 is exact */
	if (e == 0)
		return 1; /* log2 m itself, far above FP32's least subnormal */
	unsigned mag = (unsigned)(e < 0 ? -e : e);
	int p = 31 - __builtin_clz(mag);
	/* gap above e: ulp(e) for e > 0; below |e| for e < 0 (half as wide at a power of two) */
	int gap = p - 23 - (e < 0 && (mag & (mag - 1)) == 0 ? 1 : 0);
	int q = -(gap - 1);
	unsigned __int128 v = frac;
	for (int i = 0; i < q; i++) {
		v = (v * v) >> 62;
		if (v >= (unsigned __int128)2 << 62)
			return e + 1;
	}
	return e;
}

/* The scale's exponent s (X = 2^s) for a block of values whose largest
 * magnitude is amax (+inf for a block holding one, where the recipe
 * computes a scale for it). */
static int shared_exponent(const struct f32_arith *a, const struct mx_element *el, enum fpref_mx_scale_rule rule,
			   uint32_t amax)
{
	uint64_t out = 0;
	unsigned flags = 0;
	int s;
	if (amax == F32_INF) /* the library's arithmetic: FP32's exponent field, or ceil(log2 inf) */
		return rule_is_rceil(rule) ? E8M0_MAX_EXP : 128 - el->emax > E8M0_MAX_EXP ? E8M0_MAX_EXP : 128 - el->emax;
	if (rule == FPREF_MX_SCALE_RCEIL_LOG2) {
		uint32_t d = f32_op(a, FPREF_OP_DIV, amax, el->max_f32);
		s = d == 0 ? E8M0_MIN_EXP : ceil_f32_log2(&a->f32, d);
		return s < E8M0_MIN_EXP ? E8M0_MIN_EXP : s > E8M0_MAX_EXP ? E8M0_MAX_EXP : s;
	}
	if (rule == FPREF_MX_SCALE_NV_CEIL) {
		/* TE: amax * (1/max) in FP32, then cvt.rp.satfinite.ue8m0,
		 * which maps 0 and everything up to 2^-127 to code 0. */
		uint32_t v = f32_op(a, FPREF_OP_MUL, amax, f32_op(a, FPREF_OP_DIV, F32_ONE, el->max_f32));
		struct fpref_env up = a->env;
		up.rounding = FPREF_RUP;
		up.overflow = FPREF_OVERFLOW_SAT;
		fpref_emu_convert(&a->f32, v, &el->e8m0, &up, 0, &out, &flags);
		return (int)out - E8M0_BIAS;
	}
	if (amax == 0)
		return E8M0_MIN_EXP;
	if (rule == FPREF_MX_SCALE_RNE) {
		fpref_emu_convert(&a->f32, amax, &el->amax_grid, &a->env, 0, &out, &flags);
		s = floor_log2(&el->amax_grid, out) - el->emax;
	} else if (rule == FPREF_MX_SCALE_CEIL) {
		struct fpref_unpacked u;
		fpref_decode(&a->f32, amax, &u);
		bool power_of_two = (u.significand & (u.significand - 1)) == 0;
		s = floor_log2(&a->f32, amax) + (power_of_two ? 0 : 1) - el->emax;
	} else {
		s = floor_log2(&a->f32, amax) - el->emax;
	}
	return s < E8M0_MIN_EXP ? E8M0_MIN_EXP : s > E8M0_MAX_EXP ? E8M0_MAX_EXP : s;
}

/* An FP32 value already divided by the scale, rounded to the element. */
static uint8_t element_code(const struct f32_arith *a, const struct mx_element *el, const struct fpref_env *env,
			    uint32_t y)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&a->f32, y, &el->format, env, 0, &out, &flags);
	return (uint8_t)out;
}

/* How the rounding to the element goes. */
static struct fpref_env element_env(const struct f32_arith *a, const struct fpref_mx_params *p)
{
	struct fpref_env env = a->env;
	env.rounding = p->element_rounding;
	env.overflow = FPREF_OVERFLOW_SAT;
	return env;
}

/* The power of two t by which the recipe scales an element: x 2^-s, with
 * 1 for code 0 (TE, torchao), under the rceil rules; x / max(2^s, 2^-126)
 * (torchao) or x / 2^s under the others.  Either is x 2^t rounded once. */
static int scaled_shift(enum fpref_mx_scale_rule rule, const struct mx_recipe_row *row, int s)
{
	if (rule_is_rceil(rule))
		return s == E8M0_MIN_EXP && row->code0_multiplies_by_one ? 0 : -s;
	return -(row->divisor_min_normal && s < -126 ? -126 : s);
}

/* x scaled as the recipe does it, in its own FP32 operation. */
static uint32_t scaled_value(const struct f32_arith *a, enum fpref_mx_scale_rule rule, const struct mx_recipe_row *row,
			     int s, uint32_t x)
{
	int t = scaled_shift(rule, row, s);
	if (rule_is_rceil(rule))
		return f32_op(a, FPREF_OP_MUL, x, f32_pow2(t));
	return f32_op(a, FPREF_OP_DIV, x, f32_pow2(-t));
}

/* ModelOpt's MXFP4 cast of y (already divided by the scale): nearest, a
 * tie toward zero, from the core's roundings toward zero and to nearest
 * away (they differ only above a midpoint, and a tie is the point where 2y
 * equals the sum of the two neighbours, exact in FP32 for these small
 * elements); the sign bit unless y > 0. */
static uint8_t element_code_ties_toward_zero(const struct f32_arith *a, const struct mx_element *el,
					     const struct fpref_env *env, uint32_t y)
{
	uint8_t sign = (uint8_t)(1u << (el->format.exp_bits + el->format.man_bits));
	bool positive = !f32_is_nan(y) && !(y & ~F32_ABS_MASK) && y != 0;
	if (f32_is_nan(y))
		return sign;
	uint32_t mag = y & F32_ABS_MASK;
	struct fpref_env e = *env;
	e.rounding = FPREF_RTZ;
	uint8_t lo = element_code(a, el, &e, mag);
	e.rounding = FPREF_RNA;
	uint8_t hi = element_code(a, el, &e, mag);
	if (lo != hi) {
		uint64_t vlo = 0, vhi = 0;
		unsigned flags = 0;
		fpref_emu_convert(&el->format, lo, &a->f32, &a->env, 0, &vlo, &flags);
		fpref_emu_convert(&el->format, hi, &a->f32, &a->env, 0, &vhi, &flags);
		if (f32_op(a, FPREF_OP_ADD, mag, mag) == f32_op(a, FPREF_OP_ADD, (uint32_t)vlo, (uint32_t)vhi))
			hi = lo;
	}
	return (uint8_t)(hi | (positive ? 0 : sign));
}

/* torchao's code for x in a block whose amax is NaN (scale FF).  The floor
 * rules divide by the FF scale read as FP32, +inf: a finite x gives a signed
 * zero, a NaN passes on itself, inf / inf is x86's default NaN 0xFFC00000.
 * The rceil rules multiply by amax / max, the block amax's NaN (0x7FC00000
 * from torch.amax on the CPU, FP32 or BF16), and the product is that NaN
 * whatever x is (measured with torch 2.15: a NaN x does not pass). */
static uint8_t torch_nan_block_code(const struct mx_element *el, enum fpref_mx_scale_rule rule, uint32_t x)
{
	uint32_t y;
	if (rule_is_rceil(rule))
		y = F32_QUIET_NAN;
	else if (f32_is_nan(x))
		y = x | 0x00400000u;
	else if ((x & F32_ABS_MASK) == F32_INF)
		y = 0xFFC00000u;
	else
		return (uint8_t)((x >> 31) << (el->format.exp_bits + el->format.man_bits));
	return fpref_torch_nan_code(&el->format, y);
}

static void quantize_block(const struct f32_arith *a, const struct mx_element *el, const struct fpref_mx_params *p,
			   const struct mx_recipe_row *row, const uint32_t *x, size_t n, uint8_t *codes, uint8_t *scale)
{
	uint32_t amax = 0;
	bool nan = false, inf = false;
	for (size_t i = 0; i < n; i++) {
		nan = nan || f32_is_nan(x[i]);
		inf = inf || (x[i] & F32_ABS_MASK) == F32_INF;
		amax = f32_amax_update(amax, x[i]);
	}
	if ((nan || inf) && row->ties_toward_zero) { /* ModelOpt's MXFP4: scale 00, every code -0 */
		*scale = 0;
		memset(codes, (int)element_code_ties_toward_zero(a, el, &a->env, F32_QUIET_NAN), n);
		return;
	}
	/* OCP: the block's scale is NaN, its elements immaterial (zero codes).
	 * torchao's NaN scale too, its codes as its arithmetic makes them. */
	if ((nan || inf) && (!row->specials_computed || (nan && !row->nan_scale_zero))) {
		*scale = FPREF_E8M0_NAN;
		for (size_t i = 0; i < n; i++)
			codes[i] = row->nan_codes_computed ? torch_nan_block_code(el, p->rule, x[i]) : 0;
		return;
	}
	int s = nan ? E8M0_MIN_EXP : shared_exponent(a, el, p->rule, amax); /* ModelOpt: a NaN amax gives 00 */
	*scale = (uint8_t)(s + E8M0_BIAS);
	struct fpref_env env = element_env(a, p);
	for (size_t i = 0; i < n; i++)
		{
		uint32_t y = scaled_value(a, p->rule, row, s, x[i]);
		codes[i] = row->ties_toward_zero ? element_code_ties_toward_zero(a, el, &env, y)
						 : element_code(a, el, &env, y);
	}
}

int fpref_emu_mx_quantize_reference(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
				    uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen)
{
	struct f32_arith a;
	struct mx_element el;
	f32_arith_init(&a);
	if (check_params(p, rows, cols, err, errlen) != 0 || mx_element_init(&a, p->element, &el, err, errlen) != 0)
		return -1;
	const struct mx_recipe_row *row = mx_recipe_row(p->recipe, p->element);
	size_t per_row = (cols + FPREF_MX_BLOCK - 1) / FPREF_MX_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		for (size_t b = 0; b < per_row; b++) {
			size_t first = r * cols + b * FPREF_MX_BLOCK;
			size_t n = cols - b * FPREF_MX_BLOCK < FPREF_MX_BLOCK ? cols - b * FPREF_MX_BLOCK : FPREF_MX_BLOCK;
			quantize_block(&a, &el, p, row, x_f32 + first, n, codes + first, scales_e8m0 + r * per_row + b);
		}
	}
	return 0;
}

/* The bulk path.  A rule's scale exponent rises with amax, at most a step
 * per binade for FP32 amax of one exponent field (checked as the table is
 * made, binade by binade as blocks meet them): its start and the least
 * amax of the step, found by bisection with shared_exponent itself.  A
 * binade of more steps, or subnormal amax, asks shared_exponent. */
struct exp_table {
	uint8_t state[256]; /* 0: not made; 1: made; 2: shared_exponent's */
	int s[256];
	uint32_t step[256]; /* the least amax of s + 1 (0xFFFFFFFF: none) */
};

static int table_exponent(const struct f32_arith *a, const struct mx_element *el, enum fpref_mx_scale_rule rule,
			  struct exp_table *t, uint32_t amax)
{
	unsigned e = amax >> 23;
	if (e == 0 || e == 255)
		return shared_exponent(a, el, rule, amax);
	if (!t->state[e]) {
		uint32_t lo = e << 23, hi = lo | 0x7FFFFFu;
		int slo = shared_exponent(a, el, rule, lo), shi = shared_exponent(a, el, rule, hi);
		t->s[e] = slo;
		t->step[e] = 0xFFFFFFFFu;
		t->state[e] = shi == slo || shi == slo + 1 ? 1 : 2;
		while (shi == slo + 1 && hi - lo > 1) { /* s(lo) = slo, s(hi) = slo + 1 */
			uint32_t mid = lo + (hi - lo) / 2;
			if (shared_exponent(a, el, rule, mid) > slo)
				hi = mid;
			else
				lo = mid;
			t->step[e] = hi;
		}
	}
	if (t->state[e] == 2)
		return shared_exponent(a, el, rule, amax);
	return t->s[e] + (amax >= t->step[e]);
}

/* One block of n (constant where inlined for a whole block, so that the
 * loops vectorise): its scale, and each element times 2^t into y, which
 * is exact, an exponent field moved, wherever the result is a normal
 * number (or x is zero); elsewhere the recipe's FP32 operation.  false for
 * a block holding an inf or a NaN, left to quantize_block. */
static inline __attribute__((always_inline)) bool block_lanes(const struct f32_arith *a, const struct mx_element *el,
							      const struct fpref_mx_params *p,
							      const struct mx_recipe_row *row, struct exp_table *t,
							      const uint32_t *restrict x, size_t n, uint32_t *restrict y,
							      uint8_t *scale)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = x[i] & F32_ABS_MASK;
		m = v > m ? v : m;
	}
	if (m >= F32_INF)
		return false;
	int s = table_exponent(a, el, p->rule, t, m), shift = scaled_shift(p->rule, row, s);
	*scale = (uint8_t)(s + E8M0_BIAS);
	uint32_t add = (uint32_t)shift << 23, bad = 0;
	for (size_t i = 0; i < n; i++) { /* branch-free, in 32-bit lanes */
		uint32_t v = x[i], e = v >> 23 & 0xFFu, nonzero = (uint32_t)((v & F32_ABS_MASK) != 0);
		uint32_t moved = e + (uint32_t)shift; /* a normal exponent field: 1 ... 254 */
		bad |= nonzero & ((uint32_t)(e == 0) | (uint32_t)(moved - 1u > 253u));
		y[i] = v + (add & (0u - nonzero));
	}
	for (size_t i = 0; bad && i < n; i++) {
		uint32_t e = x[i] >> 23 & 0xFFu, moved = e + (uint32_t)shift;
		if ((x[i] & F32_ABS_MASK) != 0 && (e == 0 || moved - 1u > 253u))
			y[i] = scaled_value(a, p->rule, row, s, x[i]);
	}
	return true;
}

/* An element code's value in FP32 (exact), or -1 for a code outside it. */
static int element_value(const struct f32_arith *a, const struct mx_element *el, uint8_t code, uint32_t *value)
{
	uint64_t out = 0;
	unsigned flags = 0;
	if (fpref_emu_convert(&el->format, code, &a->f32, &a->env, 0, &out, &flags) != 0)
		return -1;
	*value = (uint32_t)out;
	return 0;
}

/* ModelOpt's MXFP4 cast in bulk (element_code_ties_toward_zero's
 * result): nearest, a tie toward zero, is the rounding to nearest even but
 * where that went up from a tie, and a tie rounded up to code h is where
 * 2|y| is the sum of the values of codes h - 1 and h (made once by the
 * emulator; 2|y| exact by the host); the sign bit unless y > 0. */
struct ties_toward_zero {
	uint32_t twice_mid[16]; /* [h]: the FP32 sum of code h - 1's value and code h's; [0] none */
	uint32_t sign;
	/* FP32's fraction bits below the element's precision and one place
	 * more: zero in a tie (a normal number), and in +0, whose code the
	 * rounding to nearest even does not give; any other y's code is its */
	uint32_t below_mid;
};

static void ties_init(const struct f32_arith *a, const struct mx_element *el, struct ties_toward_zero *z)
{
	z->sign = 1u << (el->format.exp_bits + el->format.man_bits);
	z->below_mid = (1u << (23 - el->format.man_bits - 1)) - 1u;
	z->twice_mid[0] = 0xFFFFFFFFu; /* a NaN's pattern: no 2|y| of a number */
	for (unsigned h = 1; h < 16; h++) {
		uint32_t v = 0, w = 0;
		if (h >= z->sign || element_value(a, el, (uint8_t)(h - 1), &v) != 0 ||
		    element_value(a, el, (uint8_t)h, &w) != 0)
			v = w = 0xFFFFFFFFu;
		z->twice_mid[h] = v == 0xFFFFFFFFu ? v : f32_op(a, FPREF_OP_ADD, v, w);
	}
}

/* codes[i], y[i] rounded to nearest even, made ModelOpt's: sixteen lanes
 * a step (the last step's padded), the table looked up by a shuffle. */
typedef uint32_t tz_u32x16 __attribute__((vector_size(64)));
typedef int32_t tz_i32x16 __attribute__((vector_size(64)));
typedef float tz_f32x16 __attribute__((vector_size(64)));
typedef uint16_t tz_u16x16 __attribute__((vector_size(32)));
typedef uint8_t tz_u8x16 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) void ties16(const tz_u32x16 *table, uint32_t sign,
							 const uint32_t *y, uint8_t *codes)
{
	tz_u32x16 v, h, mag, twice;
	tz_u8x16 c8;
	memcpy(&v, y, sizeof v);
	memcpy(&c8, codes, sizeof c8);
	h = __builtin_convertvector(__builtin_convertvector(c8, tz_u16x16), tz_u32x16) & ((sign - 1u) & 15u);
	mag = v & F32_ABS_MASK;
	twice = (tz_u32x16)((tz_f32x16)mag + (tz_f32x16)mag);
#if defined(__clang__) /* no variable shuffle: the lookup lane by lane */
	tz_u32x16 mid = { 0 };
	for (int k = 0; k < 16; k++)
		mid[k] = (*table)[h[k]];
#else
	tz_u32x16 mid = __builtin_shuffle(*table, h);
#endif
	tz_u32x16 tie = (tz_u32x16)(twice == mid) & 1u;
	tz_u32x16 nan = (tz_u32x16)(mag > F32_INF) & 1u;
	tz_u32x16 positive = (tz_u32x16)((tz_i32x16)v > 0) & (nan ^ 1u);
	tz_u32x16 c = (h - tie) | (sign & (positive - 1u));
	c = (c & (nan - 1u)) | (sign & (0u - nan));
	c8 = __builtin_convertvector(__builtin_convertvector(c, tz_u16x16), tz_u8x16);
	memcpy(codes, &c8, sizeof c8);
}

QUANT_CLONES static void ties_codes(const struct ties_toward_zero *z, const uint32_t *restrict y, size_t n,
				    uint8_t *restrict codes)
{
	tz_u32x16 table;
	memcpy(&table, z->twice_mid, sizeof table);
	size_t whole = n / 16 * 16;
	for (size_t i = 0; i < whole; i += 16)
		ties16(&table, z->sign, y + i, codes + i);
	if (whole < n) {
		uint32_t part[16] = { 0 };
		uint8_t out[16] = { 0 };
		memcpy(part, y + whole, (n - whole) * sizeof *part);
		memcpy(out, codes + whole, n - whole);
		ties16(&table, z->sign, part, out);
		memcpy(codes + whole, out, n - whole);
	}
}

/* Whether some y[i] may be a tie or +0: its bits under below_mid zero. */
QUANT_CLONES static bool ties_may(uint32_t below_mid, const uint32_t *y, size_t n)
{
	uint32_t any = 0;
	for (size_t i = 0; i < n; i++)
		any |= (uint32_t)((y[i] & below_mid) == 0);
	return any != 0;
}

/* The sink's flush, then ModelOpt's MXFP4 cast where asked. */
static void mx_flush(struct quant_sink *sink, const struct ties_toward_zero *z, size_t next)
{
	uint8_t *codes = sink->codes + sink->at;
	size_t n = sink->n;
	fpref_emu_quant_sink_flush(sink, next);
	if (z && ties_may(z->below_mid, sink->y, n))
		ties_codes(z, sink->y, n, codes);
}

/* The blocks of rows [r0, r1): a whole block's n a constant. */
QUANT_CLONES static void rows_lanes(const struct f32_arith *a, const struct mx_element *el,
				 const struct fpref_mx_params *p, const struct mx_recipe_row *row, struct exp_table *t,
				 const uint32_t *x, size_t r0, size_t r1, size_t cols, struct quant_sink *sink,
				 const struct ties_toward_zero *z, uint8_t *scales)
{
	size_t per_row = (cols + FPREF_MX_BLOCK - 1) / FPREF_MX_BLOCK;
	for (size_t r = r0; r < r1; r++)
		for (size_t b = 0; b < per_row; b++) {
			size_t first = r * cols + b * FPREF_MX_BLOCK, n = cols - b * FPREF_MX_BLOCK;
			uint8_t *scale = scales + r * per_row + b;
			n = n < FPREF_MX_BLOCK ? n : FPREF_MX_BLOCK;
			if (sink->n + n > QUANT_CHUNK)
				mx_flush(sink, z, first);
			bool done = n == FPREF_MX_BLOCK
					    ? block_lanes(a, el, p, row, t, x + first, FPREF_MX_BLOCK, sink->y + sink->n, scale)
					    : block_lanes(a, el, p, row, t, x + first, n, sink->y + sink->n, scale);
			if (done) {
				sink->n += n;
				continue;
			}
			mx_flush(sink, z, first + n);
			quantize_block(a, el, p, row, x + first, n, sink->codes + first, scale);
		}
}

int fpref_emu_mx_quantize_lanes(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
				uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen)
{
	struct f32_arith a;
	struct mx_element el;
	f32_arith_init(&a);
	if (check_params(p, rows, cols, err, errlen) != 0 || mx_element_init(&a, p->element, &el, err, errlen) != 0)
		return -1;
	const struct mx_recipe_row *row = mx_recipe_row(p->recipe, p->element);
	struct fpref_env env = element_env(&a, p);
	struct ties_toward_zero ties;
	if (row->ties_toward_zero) {
		ties_init(&a, &el, &ties);
		env.rounding = FPREF_RNE;
	}
	struct quant_sink *sink = malloc(sizeof *sink);
	struct exp_table *t = calloc(1, sizeof *t);
	if (!sink || !t || fpref_emu_quant_sink_open(sink, &el.format, &env, codes) != 0) {
		if (sink && sink->c)
			fpref_emu_quant_sink_close(sink);
		free(sink);
		free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	const struct ties_toward_zero *z = row->ties_toward_zero ? &ties : NULL;
	rows_lanes(&a, &el, p, row, t, x_f32, 0, rows, cols, sink, z, scales_e8m0);
	mx_flush(sink, z, 0);
	fpref_emu_quant_sink_close(sink);
	free(sink);
	free(t);
	return 0;
}

int fpref_emu_mx_quantize(const struct fpref_mx_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			  uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen)
{
	int status = fpref_emu_mx_quantize_lanes(p, x_f32, rows, cols, codes, scales_e8m0, err, errlen);
	return status == 1 ? fpref_emu_mx_quantize_reference(p, x_f32, rows, cols, codes, scales_e8m0, err, errlen)
			   : status;
}

/* The bulk path: each code's value once, each product by the host (an
 * exact power of two's: a NaN only from a NaN value, which the element
 * path makes the quiet NaN too); a code outside the element is the
 * element path's to report. */
int fpref_emu_mx_dequantize_lanes(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
				  size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct f32_arith a;
	struct mx_element el;
	f32_arith_init(&a);
	if (check_size(rows, cols, err, errlen) != 0 || mx_element_init(&a, p->element, &el, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	uint32_t value[256];
	uint8_t valid[256];
	for (unsigned c = 0; c < 256; c++)
		valid[c] = element_value(&a, &el, (uint8_t)c, &value[c]) == 0;
	uint8_t all = 1;
	for (size_t i = 0; i < rows * cols; i++)
		all &= valid[codes[i]];
	if (!all)
		return 1;
	size_t per_row = (cols + FPREF_MX_BLOCK - 1) / FPREF_MX_BLOCK;
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			size_t i = r * cols + c;
			uint8_t e = scales[r * per_row + c / FPREF_MX_BLOCK];
			uint32_t v = quant_bits(quant_f32(value[codes[i]]) * quant_f32(f32_pow2(e - E8M0_BIAS)));
			out_f32[i] = e == FPREF_E8M0_NAN || f32_is_nan(v) ? F32_QUIET_NAN : v;
		}
	return 0;
}

int fpref_emu_mx_dequantize(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
			    size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	int status = fpref_emu_mx_dequantize_lanes(p, codes, scales, rows, cols, out_f32, err, errlen);
	return status == 1 ? fpref_emu_mx_dequantize_reference(p, codes, scales, rows, cols, out_f32, err, errlen)
			   : status;
}

int fpref_emu_mx_dequantize_reference(const struct fpref_mx_params *p, const uint8_t *codes, const uint8_t *scales,
				      size_t rows, size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct f32_arith a;
	struct mx_element el; /* the scale rule and the rounding play no part here */
	f32_arith_init(&a);
	if (check_size(rows, cols, err, errlen) != 0 || mx_element_init(&a, p->element, &el, err, errlen) != 0)
		return -1;
	size_t per_row = (cols + FPREF_MX_BLOCK - 1) / FPREF_MX_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < cols; c++) {
			size_t i = r * cols + c;
			uint8_t e = scales[r * per_row + c / FPREF_MX_BLOCK];
			uint32_t v;
			if (element_value(&a, &el, codes[i], &v) != 0) {
				snprintf(err, errlen, "code 0x%02X at element %zu is not a %s pattern", codes[i], i,
					 el.format.name);
				return -1;
			}
			bool nan = e == FPREF_E8M0_NAN || f32_is_nan(v);
			out_f32[i] = nan ? F32_QUIET_NAN : f32_op(&a, FPREF_OP_MUL, v, f32_pow2(e - E8M0_BIAS));
		}
	}
	return 0;
}
