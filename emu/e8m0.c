/* E8M0 scale rules in the emulator (fpref_emu_e8m0.h).  Every rounding is
 * the shared core's (fpref_emu_convert, fpref_emu_op); the row decides
 * which, in the order of formats/fpref_formats_e8m0.h. */
#include <stdio.h>

#include "fpref_emu_e8m0.h"
#include "scale_f32.h"

static uint64_t convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
			const struct fpref_env *env)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(from, bits, to, env, 0, &out, &flags);
	return out;
}

/* v * 2^-shift as a float64 pattern: exact, since FP64's range holds
 * every FP32 value scaled by an MX element's emax. */
static uint64_t f64_scaled(const struct fpref_format *from, uint64_t v, int shift)
{
	struct fpref_unpacked u;
	uint64_t out = 0;
	fpref_decode(from, v, &u);
	u.exponent -= shift;
	fpref_encode(fpref_format_get(FPREF_FORMAT_FLOAT64), &u, &out);
	return out;
}

/* The ratio a rule rounds, as a float64 pattern (0 when it is zero). */
static uint64_t rule_input(const struct f32_arith *a, const struct fpref_e8m0_rule *r,
			   const struct fpref_format *element, uint32_t m, char *err, size_t errlen, int *status)
{
	const struct fpref_format *f64 = fpref_format_get(FPREF_FORMAT_FLOAT64);
	if (r->input == FPREF_E8M0_VALUE)
		return convert(&a->f32, m, f64, &a->env);
	if (fpref_e8m0_element_check(element, err, errlen) != 0) {
		*status = -1;
		return 0;
	}
	int emax = fpref_format_max_exponent(element);
	if (r->input == FPREF_E8M0_AMAX_POW2)
		return f64_scaled(&a->f32, m, emax);
	if (r->input == FPREF_E8M0_AMAX_ELEM_RNE) {
		/* FP32's range at the element's precision: 9 exponent bits hold every FP32 value */
		struct fpref_format grid;
		char spelling[32];
		snprintf(spelling, sizeof spelling, "custom:e9m%d", element->man_bits);
		if (fpref_format_parse(spelling, &grid, err, errlen) != 0) {
			*status = -1;
			return 0;
		}
		return f64_scaled(&grid, convert(&a->f32, m, &grid, &a->env), emax);
	}
	uint32_t max = (uint32_t)convert(element, fpref_format_max_bits(element, false), &a->f32, &a->env);
	uint32_t ratio = f32_op(a, FPREF_OP_MUL, m, f32_op(a, FPREF_OP_DIV, F32_ONE, max));
	return convert(&a->f32, ratio, f64, &a->env);
}

int fpref_emu_e8m0(const struct fpref_e8m0_rule *r, const struct fpref_format *element, uint32_t x, uint8_t *code,
		   char *err, size_t errlen)
{
	struct f32_arith a;
	f32_arith_init(&a);
	if (r->source == FPREF_FORMAT_BFLOAT16) {
		const struct fpref_format *bf16 = fpref_format_get(FPREF_FORMAT_BFLOAT16);
		x = (uint32_t)convert(bf16, convert(&a.f32, x, bf16, &a.env), &a.f32, &a.env);
	}
	uint32_t m = x & F32_ABS_MASK;
	int status = 0;
	if (f32_is_nan(x) || (x >> 31 && m != 0 && r->negative_nan)) {
		*code = FPREF_E8M0_NAN_CODE;
		return 0;
	}
	if (m == F32_INF) {
		*code = r->inf_saturates ? FPREF_E8M0_MAX_CODE : FPREF_E8M0_NAN_CODE;
		return 0;
	}
	uint64_t y = m == 0 ? 0 : rule_input(&a, r, element, m, err, errlen, &status);
	if (status != 0)
		return -1;
	if (y == 0) {
		*code = r->zero_nan ? FPREF_E8M0_NAN_CODE : 0;
		return 0;
	}
	struct fpref_format grid = *fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU);
	if (r->grid == FPREF_E8M0_GRID_PATTERN)
		fpref_e8m0_pattern_grid(&grid);
	struct fpref_env env = a.env;
	env.rounding = r->rounding;
	env.overflow = r->saturate ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	env.underflow_to_least = true; /* the value grid: below 2^-127 gives 2^-127 */
	*code = (uint8_t)convert(fpref_format_get(FPREF_FORMAT_FLOAT64), y, &grid, &env);
	return 0;
}
