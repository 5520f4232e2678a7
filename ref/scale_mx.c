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

/* RULE_CEIL is TE's rceil (nv-ceil); RULE_EXP_CEIL torchao's CEIL;
 * RULE_LOG2_CEIL the ceiling of an FP32 log2 of fl(amax / max). */
enum scale_rule { RULE_FLOOR, RULE_CEIL, RULE_RNE, RULE_EXP_CEIL, RULE_LOG2_CEIL };

/* The libraries' MX recipes, written out from their sources
 * (docs/scaling-mx.md, "MX recipes"). */
enum mx_recipe { MX_OCP, MX_TORCHAO, MX_MODELOPT, MX_MODELOPT_FP4 };

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
	if (mpfr_inf_p(amax)) /* torchao: an inf's FP32 exponent field reads as 2^128; log2 inf = inf */
		return rule == RULE_CEIL || rule == RULE_LOG2_CEIL ? SCALE_EXP_MAX : clamp_scale(128 - row->emax);
	if (rule == RULE_LOG2_CEIL) { /* fl(amax / max), then log2 rounded to FP32, then its ceiling */
		mpfr_set_ui_2exp(o->b, row->max_num, row->max_exp, MPFR_RNDN);
		uint32_t d = f32_op(o, FPREF_OP_DIV, f32_round(o, amax), f32_round(o, o->b));
		f32_value(o, d, o->b);
		if (mpfr_zero_p(o->b))
			return SCALE_EXP_MIN;
		mpfr_t l;
		mpfr_init2(l, 200);
		mpfr_log2(l, o->b, MPFR_RNDN);
		f32_value(o, f32_round(o, l), l);
		mpfr_ceil(l, l);
		long e = mpfr_get_si(l, MPFR_RNDN);
		mpfr_clear(l);
		return clamp_scale(e);
	}
	if (rule == RULE_EXP_CEIL)
		return mpfr_zero_p(amax) ? SCALE_EXP_MIN
		       : clamp_scale(floor_log2(amax) + (mpfr_cmp_ui_2exp(amax, 1, floor_log2(amax)) != 0) - row->emax);
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

/* OCP: a block with an inf or a NaN gets the NaN scale and zero codes.
 * torchao: a NaN gives FF (codes: torch_nan_block_code), an inf a scale
 * from its arithmetic and computed codes; floor-type rules divide by
 * max(2^s, 2^-126).  ModelOpt: a NaN amax gives scale 00 (log2 only where
 * amax / 448 > 0), an inf FE, and every rceil code multiplies by 2^-s, 2^127
 * for code 00.  ModelOpt's MXFP4: an inf or a NaN gives scale 00 and codes
 * of the sign bit alone. */
/* The element code of a NaN input (its sign kept), for a format with NaN. */
static uint64_t round_nan(struct oracle *o, uint32_t x)
{
	uint64_t out = 0;
	unsigned flags = 0;
	struct fpref_env env = o->rne;
	env.overflow = FPREF_OVERFLOW_SAT;
	fpref_ref_convert(&o->f32, x, &o->element, &env, 0, &out, &flags);
	return out;
}

static int element_value(struct oracle *o, uint8_t code, mpfr_ptr out);

/* ModelOpt's MXFP4 cast as its source writes it: the magnitude code is the
 * number of midpoints between neighbouring element values strictly below
 * |y|, and the sign bit is (2 - sign(y)) // 2, set for y <= 0. */
static uint8_t modelopt_fp4_code(struct oracle *o, mpfr_srcptr y)
{
	unsigned sign = 1u << (o->element.exp_bits + o->element.man_bits), count = 0;
	mpfr_t lo, hi;
	mpfr_inits2(FPREF_REF_WORK_PREC, lo, hi, (mpfr_ptr)0);
	for (unsigned k = 0; k + 1 < sign; k++) {
		element_value(o, (uint8_t)k, lo);
		element_value(o, (uint8_t)(k + 1), hi);
		mpfr_add(lo, lo, hi, MPFR_RNDN);
		mpfr_div_2ui(lo, lo, 1, MPFR_RNDN);
		if (mpfr_cmpabs(y, lo) > 0)
			count++;
	}
	mpfr_clears(lo, hi, (mpfr_ptr)0);
	return (uint8_t)(count | (mpfr_sgn(y) > 0 ? 0 : sign));
}

/* torchao's element code for an FP32 NaN with bits y.  FP8 (a format with
 * NaN): torch's cast gives the all-ones magnitude, y's sign kept.  FP6 and
 * FP4: torchao's cast reads the bit pattern as a normal number, 2^(field -
 * 127) (1 + fraction / 2^23) with the exponent field 255, rounds it to the
 * element's precision (nearest, ties to even), writes the exponent with the
 * element's bias 2^(ebits-1) - 1 above the fraction field, keeps the low 8
 * bits and sets y's sign. */
static uint8_t torch_nan_code(const struct fpref_format *f, uint32_t y)
{
	unsigned ebits = (unsigned)f->exp_bits, mbits = (unsigned)f->man_bits;
	unsigned sign = (y >> 31) << (ebits + mbits);
	if (fpref_format_has_nan(f))
		return (uint8_t)(((1u << (ebits + mbits)) - 1) | sign);
	mpfr_t v;
	mpfr_init2(v, (mpfr_prec_t)(mbits + 1));
	long field = (long)((y >> 23) & 0xFFu);
	mpfr_set_ui_2exp(v, (y & 0x7FFFFFu) | 0x800000u, field - 127 - 23, MPFR_RNDN); /* rounds to mbits + 1 bits */
	long e = (long)mpfr_get_exp(v) - 1; /* v = 1.f 2^e */
	mpfr_mul_2si(v, v, (long)mbits - e, MPFR_RNDN);
	long frac = (long)mpfr_get_ui(v, MPFR_RNDN) - (1L << mbits);
	mpfr_clear(v);
	long code = ((e + (1L << (ebits - 1)) - 1) << mbits) + frac;
	return (uint8_t)(((unsigned long)code & 0xFFu) | sign);
}

/* torchao's code for x in a NaN-amax block (scale FF).  The floor rules
 * divide by FF read as an FP32 scale, +inf: a number gives a signed zero,
 * a NaN stays itself, an inf gives x86's invalid-operation NaN 0xFFC00000.
 * The rceil rules multiply by amax / max, which is the block amax's NaN
 * 0x7FC00000 (torch.amax on the CPU), and the product is that NaN for
 * every x, a NaN x included (as torch 2.15 computes it). */
static uint8_t torch_nan_block_code(struct oracle *o, bool rceil, uint32_t x)
{
	bool x_nan = (x & 0x7FFFFFFFu) > 0x7F800000u, x_inf = (x & 0x7FFFFFFFu) == 0x7F800000u;
	if (rceil)
		return torch_nan_code(&o->element, 0x7FC00000u);
	if (x_nan)
		return torch_nan_code(&o->element, x | 0x00400000u);
	if (x_inf)
		return torch_nan_code(&o->element, 0xFFC00000u);
	return (uint8_t)((x >> 31) << (o->element.exp_bits + o->element.man_bits));
}

static void quantize_block(struct oracle *o, enum scale_rule rule, enum mx_recipe recipe, enum fpref_rounding rounding,
			   const uint32_t *x, size_t n, uint8_t *codes, uint8_t *scale)
{
	mpfr_t amax, y;
	mpfr_inits2(FPREF_REF_WORK_PREC, amax, y, (mpfr_ptr)0);
	mpfr_set_zero(amax, 1);
	bool nan = false, inf = false;
	for (size_t i = 0; i < n; i++) {
		f32_value(o, x[i], y);
		nan = nan || mpfr_nan_p(y);
		inf = inf || mpfr_inf_p(y);
		if (mpfr_number_p(y) && mpfr_cmpabs(y, amax) > 0)
			mpfr_abs(amax, y, MPFR_RNDN);
	}
	if (inf && !nan)
		mpfr_set_inf(amax, 1);
	bool rceil = rule == RULE_CEIL || rule == RULE_LOG2_CEIL;
	if ((nan || inf) && recipe == MX_MODELOPT_FP4) { /* uint8(log2 inf or NaN) is 0; x / inf, NaN: sign(0) */
		*scale = 0;
		memset(codes, (int)(1u << (o->element.exp_bits + o->element.man_bits)), n);
	} else if ((nan || inf) && recipe == MX_OCP) {
		*scale = E8M0_NAN;
		memset(codes, 0, n);
	} else if (nan && recipe == MX_TORCHAO) {
		*scale = E8M0_NAN;
		for (size_t i = 0; i < n; i++)
			codes[i] = torch_nan_block_code(o, rceil, x[i]);
	} else {
		long s = nan ? SCALE_EXP_MIN : shared_exponent(o, rule, amax);
		*scale = (uint8_t)(s + E8M0_BIAS);
		for (size_t i = 0; i < n; i++) {
			f32_value(o, x[i], y);
			if (rceil) { /* FP32 product with 2^-s, or with 1 for code 0 (not ModelOpt) */
				if (s != SCALE_EXP_MIN || recipe == MX_MODELOPT || recipe == MX_MODELOPT_FP4)
					mpfr_mul_2si(y, y, -s, MPFR_RNDN);
				f32_value(o, f32_round(o, y), y);
			} else {
				long d = recipe == MX_TORCHAO && s < -126 ? -126 : s;
				mpfr_mul_2si(y, y, -d, MPFR_RNDN);
			}
			codes[i] = mpfr_nan_p(y) ? 0 : recipe == MX_MODELOPT_FP4 ? modelopt_fp4_code(o, y)
									   : element_code(o, y, rounding);
			if (mpfr_nan_p(y)) /* ModelOpt's 00 block: a NaN element is the element's NaN */
				codes[i] = (uint8_t)round_nan(o, x[i]);
		}
	}
	mpfr_clears(amax, y, (mpfr_ptr)0);
}

static int parse_rule(const char *name, enum scale_rule *rule, char *err, size_t errlen)
{
	if (name && strcmp(name, "ceil") == 0)
		*rule = RULE_EXP_CEIL;
	else if (name && strcmp(name, "rceil-log2") == 0)
		*rule = RULE_LOG2_CEIL;
	else if (name && strcmp(name, "ocp-floor") == 0)
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
	return fpref_ref_mx_recipe_quantize(element, scale_rule, "ocp", element_rounding, x_f32, rows, cols, codes,
					    scales_e8m0, err, errlen);
}

int fpref_ref_mx_recipe_quantize(const char *element, const char *scale_rule, const char *recipe_name,
				 enum fpref_rounding element_rounding, const uint32_t *x_f32, size_t rows, size_t cols,
				 uint8_t *codes, uint8_t *scales_e8m0, char *err, size_t errlen)
{
	enum scale_rule rule;
	if (parse_rule(scale_rule, &rule, err, errlen) != 0)
		return -1;
	static const char *const recipes[] = { "ocp", "torchao", "modelopt" };
	int recipe = -1;
	for (int i = 0; i < 3; i++)
		if (recipe_name && strcmp(recipe_name, recipes[i]) == 0)
			recipe = i;
	if (recipe < 0) {
		snprintf(err, errlen, "unknown MX recipe '%s', or an element it does not have",
			 recipe_name ? recipe_name : "(none)");
		return -1;
	}
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
	if (recipe == MX_MODELOPT && !o.row->int8 && fpref_format_is(&o.element, FPREF_FORMAT_FLOAT4_E2M1FN))
		recipe = MX_MODELOPT_FP4; /* MXFP4QTensor, not MXFP8QTensor */
	if (recipe == MX_MODELOPT && (o.row->int8 || !fpref_format_is(&o.element, FPREF_FORMAT_FLOAT8_E4M3FN))) {
		snprintf(err, errlen, "unknown MX recipe '%s', or an element it does not have", recipe_name);
		oracle_clear(&o);
		return -1;
	}
	size_t per_row = (cols + MX_BLOCK - 1) / MX_BLOCK;
	for (size_t r = 0; r < rows; r++) {
		for (size_t b = 0; b < per_row; b++) {
			size_t c0 = b * MX_BLOCK, n = cols - c0 < MX_BLOCK ? cols - c0 : MX_BLOCK;
			quantize_block(&o, rule, (enum mx_recipe)recipe, element_rounding, x_f32 + r * cols + c0, n, codes + r * cols + c0,
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

/* ---- NVFP4 ----
 * Each recipe is written out below as its source writes it (docs/scaling-mx.md),
 * one FP32 rounding per operation by the oracle's own arithmetic. */

#define F32_ONE 0x3F800000u
#define F32_SIX 0x40C00000u
#define F32_2688 0x45280000u

struct nvfp4_oracle {
	struct oracle o;
	const struct fpref_ref_nvfp4 *p;
	struct fpref_format bf16;
	struct fpref_env sat, ieee; /* E4M3 casts: satfinite, or torch's NaN on overflow */
	uint32_t bound;             /* Four Over Six's M */
	uint32_t T, S_rcp6, S_rcp;  /* the tensor scale; TE's S * (1/6) and 1/S */
};

/* NV_TORCHAO is torchao 0.18, NV_TORCHAO_OLD its commit 02a1bc44, NV_TORCHAO_1
 * 0.18 without a tensor scale; NV_MODELOPT is ModelOpt 0.47, NV_MODELOPT_OLD
 * its commit 0ad6e5f0. */
enum nv_recipe { NV_TE, NV_TORCHAO, NV_MODELOPT, NV_46, NV_TORCHAO_OLD, NV_TORCHAO_1, NV_MODELOPT_OLD };

static bool nv_torchao(enum nv_recipe r)
{
	return r == NV_TORCHAO || r == NV_TORCHAO_OLD || r == NV_TORCHAO_1;
}

static bool nv_modelopt(enum nv_recipe r)
{
	return r == NV_MODELOPT || r == NV_MODELOPT_OLD;
}

/* The current releases compute on x86 in the order their sources give, and
 * x86 decides the NaNs: an invalid operation gives the negative default NaN
 * 0xFFC00000, a NaN operand passes its own (the first) on. */
static bool nv_x86(enum nv_recipe r)
{
	return r == NV_TORCHAO || r == NV_TORCHAO_1 || r == NV_MODELOPT;
}

static int nv_recipe(const char *name, enum nv_recipe *r)
{
	static const char *const names[] = { "te", "torchao", "modelopt", "fouroversix", "torchao-02a1bc44",
					     "torchao-1level", "modelopt-0ad6e5f0" };
	for (int i = 0; i < 7; i++)
		if (name && strcmp(name, names[i]) == 0) {
			*r = (enum nv_recipe)i;
			return 0;
		}
	return -1;
}

static size_t nvfp4_block(bool two_d, size_t cols, size_t i)
{
	size_t across = (cols + NVFP4_BLOCK - 1) / NVFP4_BLOCK, r = i / cols;
	return (two_d ? r / NVFP4_BLOCK : r) * across + (i % cols) / NVFP4_BLOCK;
}

static size_t nvfp4_blocks(bool two_d, size_t rows, size_t cols)
{
	return (two_d ? (rows + NVFP4_BLOCK - 1) / NVFP4_BLOCK : rows) * ((cols + NVFP4_BLOCK - 1) / NVFP4_BLOCK);
}

static bool f32_nan(struct oracle *o, uint32_t x)
{
	f32_value(o, x, o->a);
	return mpfr_nan_p(o->a) != 0;
}

/* x compared with y (both non-NaN): <0, 0, >0. */
static int f32_cmp(struct oracle *o, uint32_t x, uint32_t y)
{
	f32_value(o, x, o->a);
	f32_value(o, y, o->b);
	return mpfr_cmp(o->a, o->b);
}

/* min(x, FLT_MAX) for a non-NaN x. */
static uint32_t f32_min_max_finite(struct oracle *o, uint32_t x)
{
	f32_value(o, x, o->a);
	mpfr_set_ui_2exp(o->b, 0xFFFFFF, 104, MPFR_RNDN); /* FLT_MAX = (2^24 - 1) * 2^104 */
	return mpfr_cmp(o->a, o->b) > 0 ? 0x7F7FFFFFu : x;
}

static uint32_t f32_abs(uint32_t x)
{
	return x & 0x7FFFFFFFu;
}

static uint32_t decode_f32(struct oracle *o, const struct fpref_format *f, uint8_t code)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_ref_convert(f, code, &o->f32, &o->rne, 0, &out, &flags);
	return (uint32_t)out;
}

static uint8_t to_e4m3(struct nvfp4_oracle *n, uint32_t x, const struct fpref_env *env)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_ref_convert(&n->o.f32, x, &n->o.e4m3, env, 0, &out, &flags);
	return (uint8_t)out;
}

/* The 16-point Hadamard matrix by Sylvester's doubling: H(2n) = [H H; H -H]. */
static void sylvester16(int h[16][16])
{
	h[0][0] = 1;
	for (int n = 1; n < 16; n *= 2)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				h[i][j + n] = h[i][j];
				h[i + n][j] = h[i][j];
				h[i + n][j + n] = -h[i][j];
			}
}

/* x @ (diag(signs) H / 4) on each 16 of a row, FP32 sums from +0 in order,
 * then BF16 if asked; inverse: y @ (H diag(signs) / 4), in FP32. */
static void rht(struct nvfp4_oracle *n, bool inverse, const uint32_t *x, size_t count, uint32_t *out)
{
	struct oracle *o = &n->o;
	int h[16][16];
	sylvester16(h);
	for (size_t g = 0; g + 16 <= count; g += 16)
		for (int k = 0; k < 16; k++) {
			uint32_t acc = 0;
			for (int j = 0; j < 16; j++) {
				int sign = (n->p->rht_signs >> (inverse ? k : j)) & 1u ? -h[j][k] : h[j][k];
				uint32_t quarter = sign > 0 ? 0x3E800000u : 0xBE800000u;
				acc = f32_op(o, FPREF_OP_ADD, acc, f32_op(o, FPREF_OP_MUL, x[g + (size_t)j], quarter));
			}
			if (n->p->rht_bf16 && !inverse) {
				uint64_t b = 0;
				unsigned flags = 0;
				fpref_ref_convert(&o->f32, acc, &n->bf16, &o->rne, 0, &b, &flags);
				fpref_ref_convert(&n->bf16, b, &o->f32, &o->rne, 0, &b, &flags);
				acc = (uint32_t)b;
			}
			out[g + (size_t)k] = acc;
		}
}

/* |x| of largest magnitude in each block (amax[b]) and in the tensor
 * (returned), by exact comparisons; NaNs pass (TE's fmaxf) or win (torch). */
static uint32_t block_maxima(struct nvfp4_oracle *n, bool nan_wins, const uint32_t *x, size_t rows, size_t cols,
			     uint32_t *amax)
{
	struct oracle *o = &n->o;
	uint32_t global = 0;
	bool global_nan = false;
	bool *block_nan = calloc(nvfp4_blocks(n->p->two_d, rows, cols) + 1, sizeof *block_nan);
	for (size_t i = 0; i < rows * cols; i++) {
		size_t b = nvfp4_block(n->p->two_d, cols, i);
		if (f32_nan(o, x[i])) {
			global_nan = global_nan || nan_wins;
			block_nan[b] = block_nan[b] || nan_wins;
			continue;
		}
		if (f32_cmp(o, f32_abs(x[i]), amax[b]) > 0)
			amax[b] = f32_abs(x[i]);
		if (f32_cmp(o, f32_abs(x[i]), global) > 0)
			global = f32_abs(x[i]);
	}
	for (size_t b = 0; b < nvfp4_blocks(n->p->two_d, rows, cols); b++)
		if (block_nan[b])
			amax[b] = QUIET_NAN_F32;
	free(block_nan);
	return global_nan ? QUIET_NAN_F32 : global;
}

/* The tensor scale from the tensor's amax. */
static uint32_t tensor_scale(struct nvfp4_oracle *n, enum nv_recipe r, uint32_t amax)
{
	struct oracle *o = &n->o;
	if (r == NV_TORCHAO_1)
		return F32_ONE;
	if (nv_torchao(r) || nv_modelopt(r)) { /* amax / (448 * 6) */
		/* torch.max's NaN on the CPU: all ones (torchao); ModelOpt's
		 * torch.maximum of two 0-d NaNs, and any BF16 result: 0x7FC00000 */
		if (nv_x86(r) && f32_nan(o, amax))
			return r == NV_MODELOPT || n->p->torch_bf16 ? QUIET_NAN_F32 : 0xFFFFFFFFu;
		return f32_op(o, FPREF_OP_DIV, amax, F32_2688);
	}
	if (r == NV_46)
		return amax;
	f32_value(o, amax, o->a);
	if (mpfr_zero_p(o->a)) /* TE: S = min(2688 / amax, FLT_MAX), 1 for amax 0 or an S of 0 */
		return F32_ONE;
	uint32_t q = f32_min_max_finite(o, f32_op(o, FPREF_OP_DIV, F32_2688, amax));
	f32_value(o, q, o->a);
	return mpfr_zero_p(o->a) ? F32_ONE : q;
}

/* torch.clamp(x, lo, hi): NaN stays NaN. */
static uint32_t clamp(struct oracle *o, uint32_t x, uint32_t lo, uint32_t hi)
{
	if (f32_nan(o, x))
		return x;
	return f32_cmp(o, x, lo) < 0 ? lo : f32_cmp(o, x, hi) > 0 ? hi : x;
}

/* x op y in FP32; for the x86 recipes, the NaN x86 gives. */
static uint32_t nan_x86(struct nvfp4_oracle *n, enum nv_recipe r, enum fpref_op op, uint32_t x, uint32_t y)
{
	struct oracle *o = &n->o;
	uint32_t z = f32_op(o, op, x, y);
	if (!nv_x86(r) || !f32_nan(o, z))
		return z;
	if (f32_nan(o, x))
		return x | 0x00400000u;
	return f32_nan(o, y) ? y | 0x00400000u : 0xFFC00000u;
}

/* The block's E4M3 scale (four: Four Over Six's candidate that scales to 4). */
static uint8_t block_scale(struct nvfp4_oracle *n, enum nv_recipe r, uint32_t m, bool four)
{
	struct oracle *o = &n->o;
	uint32_t t;
	switch (r) {
	case NV_TE:
		return to_e4m3(n, f32_op(o, FPREF_OP_MUL, m, n->S_rcp6), &n->sat);
	case NV_TORCHAO:
	case NV_TORCHAO_OLD:
	case NV_TORCHAO_1: /* (amax_b / 6) / D, clamped to [2^-6, 448] */
		t = nan_x86(n, r, FPREF_OP_DIV, f32_op(o, FPREF_OP_DIV, m, F32_SIX), n->T);
		return to_e4m3(n, clamp(o, t, 0x3C800000u, 0x43E00000u), &n->sat);
	case NV_MODELOPT:
	case NV_MODELOPT_OLD: /* amax_b / (6 * D); a 0 becomes 1; 0.47 then clamps to [2^-9, 448] */
		t = nan_x86(n, r, FPREF_OP_DIV, m, f32_op(o, FPREF_OP_MUL, F32_SIX, n->T));
		f32_value(o, t, o->a);
		if (mpfr_zero_p(o->a))
			t = F32_ONE;
		if (r == NV_MODELOPT)
			return to_e4m3(n, clamp(o, t, 0x3B000000u, 0x43E00000u), &n->sat);
		return to_e4m3(n, t, &n->ieee);
	default: /* amax_b * M / amax, times 1.5 for 4 */
		t = f32_op(o, FPREF_OP_DIV, f32_op(o, FPREF_OP_MUL, m, n->bound), n->T);
		return to_e4m3(n, four ? f32_op(o, FPREF_OP_MUL, t, 0x3FC00000u) : t, &n->ieee);
	}
}

/* x ready for the E2M1 rounding, in the block of scale code sb. */
static uint32_t scaled(struct nvfp4_oracle *n, enum nv_recipe r, uint8_t sb, uint32_t x)
{
	struct oracle *o = &n->o;
	uint32_t s = decode_f32(o, &o->e4m3, sb);
	if (r == NV_TE) {
		uint32_t dec = f32_op(o, FPREF_OP_MUL, s, n->S_rcp);
		return f32_op(o, FPREF_OP_MUL, x, f32_min_max_finite(o, f32_op(o, FPREF_OP_DIV, F32_ONE, dec)));
	}
	if ((r == NV_TORCHAO || r == NV_TORCHAO_1) && (sb & 0x7Fu) == 0x7Fu) {
		/* A NaN scale, read by torch's cast as 0x7FF00000 with the code's
		 * sign; the factor's NaN is x86's, and x times it is that NaN for
		 * every x (as torch 2.15 computes it on the CPU). */
		uint32_t s_nan = ((uint32_t)(sb >> 7) << 31) | 0x7FF00000u;
		return nan_x86(n, r, FPREF_OP_DIV, nan_x86(n, r, FPREF_OP_DIV, F32_ONE, n->T), s_nan);
	}
	if (r == NV_TORCHAO || r == NV_TORCHAO_1) /* 0.18: x * ((1 / D) / s); 0 * inf is x86's NaN */
		return nan_x86(n, r, FPREF_OP_MUL, x, f32_op(o, FPREF_OP_DIV, f32_op(o, FPREF_OP_DIV, F32_ONE, n->T), s));
	if (r == NV_TORCHAO_OLD || nv_modelopt(r))
		return f32_op(o, FPREF_OP_DIV, x, f32_op(o, FPREF_OP_MUL, n->T, s));
	f32_value(o, s, o->a);
	if (mpfr_zero_p(o->a))
		return 0;
	uint32_t top = f32_op(o, FPREF_OP_MUL, f32_op(o, FPREF_OP_MUL, x, F32_SIX), n->bound);
	return f32_op(o, FPREF_OP_DIV, top, f32_op(o, FPREF_OP_MUL, n->T, s));
}

static uint8_t e2m1_code(struct nvfp4_oracle *n, enum nv_recipe r, uint32_t y, const struct fpref_env *env,
			 uint64_t random)
{
	struct oracle *o = &n->o;
	if (nv_modelopt(r) && y == 0x80000000u) /* sign bit from (x < 0): -0 is +0 */
		return 0;
	f32_value(o, y, o->a);
	if (mpfr_nan_p(o->a) && (r == NV_TORCHAO || r == NV_TORCHAO_1))
		return torch_nan_code(&o->e2m1, y); /* torchao's cast of the NaN's bits */
	if (mpfr_nan_p(o->a))
		return 0x7; /* satfinite: a NaN is +6 */
	return (uint8_t)round_exact(o, o->a, &o->e2m1, env, random);
}

/* Four Over Six's dequantised value ((v * s) * amax) / (6 M). */
static uint32_t dequant_46(struct nvfp4_oracle *n, uint8_t code, uint32_t s)
{
	struct oracle *o = &n->o;
	uint32_t six_m = f32_op(o, FPREF_OP_MUL, F32_SIX, n->bound);
	uint32_t v = f32_op(o, FPREF_OP_MUL, f32_op(o, FPREF_OP_MUL, decode_f32(o, &o->e2m1, code), s), n->T);
	return f32_op(o, FPREF_OP_DIV, v, six_m);
}

/* One candidate over the block's n elements at idx: scale, codes, error. */
static uint32_t candidate(struct nvfp4_oracle *n, const uint32_t *x, const size_t *idx, size_t count, uint32_t m,
			  bool four, uint8_t *scale, uint8_t *codes)
{
	struct oracle *o = &n->o;
	*scale = block_scale(n, NV_46, m, four);
	uint32_t s = decode_f32(o, &o->e4m3, *scale), err = 0;
	bool nan = false;
	for (size_t i = 0; i < count; i++) {
		codes[i] = e2m1_code(n, NV_46, scaled(n, NV_46, *scale, x[idx[i]]), &n->sat, 0);
		uint32_t d = f32_op(o, FPREF_OP_SUB, dequant_46(n, codes[i], s), x[idx[i]]);
		if (strcmp(n->p->choice, "abs_max") == 0) {
			nan = nan || f32_nan(o, d);
			if (!nan && f32_cmp(o, f32_abs(d), err) > 0)
				err = f32_abs(d);
		} else {
			uint32_t t = strcmp(n->p->choice, "mae") == 0 ? f32_abs(d) : f32_op(o, FPREF_OP_MUL, d, d);
			err = f32_op(o, FPREF_OP_ADD, err, t);
		}
	}
	return nan ? QUIET_NAN_F32 : err;
}

/* Transformer Engine's random byte for element i: its cast hands
 * cvt.rs.satfinite.e2m1x4 the elements 4k+3, 4k+2, 4k+1, 4k as operands
 * a, b, e, f with word k of the thread's Philox stream, and the
 * instruction rounds a with bits 31:24 of the word, b with 15:8, e with
 * 23:16 and f with 7:0 (docs/stochastic-rounding.md). */
static uint64_t te_philox_byte(const struct fpref_ref_nvfp4 *p, size_t i)
{
	static const unsigned operand_shift[4] = { 24, 8, 16, 0 }; /* a, b, e, f */
	uint32_t word = fpref_philox_stream_word(p->seed, p->philox_thread, p->philox_offset,
						 p->philox_rounds ? p->philox_rounds : 10, i / 4);
	unsigned operand = 3 - (unsigned)(i % 4); /* element 4k + j is operand 3 - j */
	return (word >> operand_shift[operand]) & 0xFFu;
}

static int nvfp4_setup(struct nvfp4_oracle *n, const struct fpref_ref_nvfp4 *p, enum nv_recipe *r, size_t cols,
		       char *err, size_t errlen)
{
	if (nv_recipe(p->recipe, r) != 0 || (*r == NV_46 && (!p->choice || (strcmp(p->choice, "abs_max") != 0 &&
							     strcmp(p->choice, "mae") != 0 && strcmp(p->choice, "mse") != 0)))) {
		snprintf(err, errlen, "unknown NVFP4 recipe or Four Over Six rule");
		return -1;
	}
	if (p->rht && cols % 16 != 0) {
		snprintf(err, errlen, "the Hadamard transform needs rows of a multiple of 16");
		return -1;
	}
	oracle_init(&n->o);
	n->p = p;
	n->bf16 = *fpref_format_get(FPREF_FORMAT_BFLOAT16);
	n->sat = n->o.rne;
	n->sat.overflow = FPREF_OVERFLOW_SAT;
	n->ieee = n->o.rne;
	n->bound = p->scale_bound == 448 ? 0x43E00000u : 0x43800000u;
	return 0;
}

int fpref_ref_nvfp4_recipe_quantize(const struct fpref_ref_nvfp4 *p, const uint32_t *x_in, size_t rows, size_t cols,
				    uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
				    char *err, size_t errlen)
{
	struct nvfp4_oracle n;
	enum nv_recipe r;
	if (nvfp4_setup(&n, p, &r, cols, err, errlen) != 0)
		return -1;
	struct oracle *o = &n.o;
	size_t count = rows * cols, blocks = nvfp4_blocks(p->two_d, rows, cols);
	uint32_t *amax = calloc(blocks ? blocks : 1, sizeof *amax);
	uint32_t *xr = malloc((count ? count : 1) * sizeof *xr);
	if (!amax || !xr) {
		free(amax);
		free(xr);
		oracle_clear(o);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (p->rht)
		rht(&n, false, x_in, count, xr);
	else
		memcpy(xr, x_in, count * sizeof *xr);
	n.T = tensor_scale(&n, r, block_maxima(&n, r != NV_TE, xr, rows, cols, amax));
	/* ModelOpt's torch.maximum(|max|, |min|) over the blocks in memory order:
	 * AVX-512's 16 lanes write a NaN as all ones, its scalar tail (n mod 16
	 * blocks) as the default NaN; BF16 results are 0x7FC0 either way. */
	size_t nb = nvfp4_blocks(p->two_d, rows, cols);
	for (size_t b = 0; r == NV_MODELOPT && !p->torch_bf16 && b < nb - nb % 16; b++)
		if (f32_nan(&n.o, amax[b]))
			amax[b] = 0xFFFFFFFFu;
	n.S_rcp6 = f32_op(o, FPREF_OP_MUL, n.T, f32_op(o, FPREF_OP_DIV, F32_ONE, F32_SIX));
	n.S_rcp = f32_op(o, FPREF_OP_DIV, F32_ONE, n.T);
	struct fpref_env element = n.sat;
	if (p->stochastic) {
		element.rounding = FPREF_SR;
		element.sr_width = p->philox ? 8 : 32;
	}
	size_t idx[256];
	uint8_t c4[256], c6[256];
	for (size_t b = 0; b < blocks; b++) {
		size_t m = 0; /* the block's elements, in row-major order */
		for (size_t i = 0; i < count; i++)
			if (nvfp4_block(p->two_d, cols, i) == b)
				idx[m++] = i;
		if (r == NV_46) {
			uint8_t s4, s6;
			uint32_t e6 = candidate(&n, xr, idx, m, amax[b], false, &s6, c6);
			uint32_t e4 = candidate(&n, xr, idx, m, amax[b], true, &s4, c4);
			bool four = !f32_nan(o, e4) && !f32_nan(o, e6) && f32_cmp(o, e4, e6) < 0; /* ties keep 6 */
			block_scales_e4m3[b] = four ? s4 : s6;
			for (size_t i = 0; i < m; i++)
				codes[idx[i]] = four ? c4[i] : c6[i];
			continue;
		}
		block_scales_e4m3[b] = block_scale(&n, r, amax[b], false);
		for (size_t i = 0; i < m; i++) {
			uint64_t random = !p->stochastic ? 0
					  : p->philox ? te_philox_byte(p, idx[i])
						      : fpref_sr_stream(p->seed, idx[i]) >> 32;
			codes[idx[i]] = e2m1_code(&n, r, scaled(&n, r, block_scales_e4m3[b], xr[idx[i]]), &element, random);
		}
	}
	*tensor_scale_f32 = n.T;
	free(amax);
	free(xr);
	oracle_clear(o);
	return 0;
}

int fpref_ref_nvfp4_recipe_dequantize(const struct fpref_ref_nvfp4 *p, const uint8_t *codes,
				      const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
				      size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4_oracle n;
	enum nv_recipe r;
	if (nvfp4_setup(&n, p, &r, cols, err, errlen) != 0)
		return -1;
	struct oracle *o = &n.o;
	n.T = tensor_scale_f32;
	uint32_t decode = f32_op(o, FPREF_OP_DIV, F32_ONE, tensor_scale_f32);
	int status = 0;
	for (size_t i = 0; i < rows * cols; i++) {
		if (codes[i] > 0xF) {
			snprintf(err, errlen, "code 0x%02X at element %zu is not an E2M1 pattern", codes[i], i);
			status = -1;
			break;
		}
		uint32_t s = decode_f32(o, &o->e4m3, block_scales_e4m3[nvfp4_block(p->two_d, cols, i)]);
		uint32_t v = decode_f32(o, &o->e2m1, codes[i]), out;
		if (nv_modelopt(r) && codes[i] == 0x8) /* ModelOpt's table: code 8 is +0 */
			v = 0;
		if (r == NV_TE)
			out = f32_op(o, FPREF_OP_MUL, v, f32_op(o, FPREF_OP_MUL, s, decode));
		else if (r == NV_46)
			out = dequant_46(&n, codes[i], s);
		else
			out = f32_op(o, FPREF_OP_MUL, v, f32_op(o, FPREF_OP_MUL, tensor_scale_f32, s));
		out_f32[i] = f32_nan(o, out) ? QUIET_NAN_F32 : out;
	}
	uint32_t *back = p->rht && status == 0 ? malloc((rows * cols + 1) * sizeof *back) : NULL;
	if (back) { /* to x's domain */
		rht(&n, true, out_f32, rows * cols, back);
		memcpy(out_f32, back, rows * cols * sizeof *back);
	}
	free(back);
	oracle_clear(o);
	return status;
}

int fpref_ref_nvfp4_quantize(bool two_d, bool stochastic, uint64_t seed, const uint32_t *x_f32, size_t rows,
			     size_t cols, uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32,
			     char *err, size_t errlen)
{
	struct fpref_ref_nvfp4 p = { .recipe = "te", .two_d = two_d, .stochastic = stochastic, .seed = seed };
	return fpref_ref_nvfp4_recipe_quantize(&p, x_f32, rows, cols, codes, block_scales_e4m3, tensor_scale_f32, err,
					       errlen);
}

int fpref_ref_nvfp4_dequantize(bool two_d, const uint8_t *codes, const uint8_t *block_scales_e4m3,
			       uint32_t tensor_scale_f32, size_t rows, size_t cols, uint32_t *out_f32, char *err,
			       size_t errlen)
{
	struct fpref_ref_nvfp4 p = { .recipe = "te", .two_d = two_d };
	return fpref_ref_nvfp4_recipe_dequantize(&p, codes, block_scales_e4m3, tensor_scale_f32, rows, cols, out_f32,
						 err, errlen);
}
