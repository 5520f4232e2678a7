/* The quantisation report (fpref_emu_quant_report.h), in binary64 through the
 * emulator's operations. */
#include <math.h>
#include <string.h>

#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_emu_quant_report.h"
#include "quant_lanes.h"

#define F32_SIGN 0x80000000u
#define F32_INF 0x7F800000u
#define F64_SIGN ((uint64_t)1 << 63)

struct f64_engine {
	struct fpref_format f32, f64;
	struct fpref_env env;
};

static uint64_t f64_op(const struct f64_engine *e, enum fpref_op op, uint64_t a, uint64_t b)
{
	uint64_t in[2] = { a, b }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, &e->f64, in, &e->env, 0, &out, &flags);
	return out;
}

static uint64_t f32_to_f64(const struct f64_engine *e, uint32_t v)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&e->f32, v, &e->f64, &e->env, 0, &out, &flags);
	return out;
}

/* A count as binary64 (exact below 2^53, rounded by the core above). */
static uint64_t count_to_f64(const struct f64_engine *e, size_t count)
{
	unsigned flags = 0;
	return fpref_emu_round_pack(&e->f64, &e->env, 0, false, 0, (fpref_u128)count, false, &flags);
}

static double f64_value(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

/* Larger of two non-NaN nonnegative binary64 patterns: they order as integers. */
static uint64_t f64_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static bool f32_finite(uint32_t v)
{
	return (v & ~F32_SIGN) < F32_INF;
}

static bool f32_zero(uint32_t v)
{
	return (v & ~F32_SIGN) == 0;
}

static double fraction(const struct f64_engine *e, size_t part, size_t whole)
{
	if (whole == 0)
		return 0.0;
	return f64_value(f64_op(e, FPREF_OP_DIV, count_to_f64(e, part), count_to_f64(e, whole)));
}

struct sums {
	uint64_t max_abs, sum_abs, max_rel, sum_rel;
};

static void add_error(const struct f64_engine *e, uint32_t x, uint32_t dq, struct sums *s,
		      struct fpref_quant_report *r)
{
	uint64_t xd = f32_to_f64(e, x);
	uint64_t abs_err = f64_op(e, FPREF_OP_SUB, f32_to_f64(e, dq), xd) & ~F64_SIGN;
	r->compared++;
	s->max_abs = f64_max(s->max_abs, abs_err);
	s->sum_abs = f64_op(e, FPREF_OP_ADD, s->sum_abs, abs_err);
	if (f32_zero(x))
		return;
	uint64_t rel = f64_op(e, FPREF_OP_DIV, abs_err, xd & ~F64_SIGN);
	r->compared_nonzero++;
	s->max_rel = f64_max(s->max_rel, rel);
	s->sum_rel = f64_op(e, FPREF_OP_ADD, s->sum_rel, rel);
}

static bool code_saturated(const struct fpref_format *element, uint8_t code)
{
	return code == fpref_format_max_bits(element, false) ||
	       (element->is_signed && code == fpref_format_max_bits(element, true));
}

/* The bulk path: the same binary64 figures by the host, where its
 * arithmetic is IEEE's (fpref_emu_quant_fpu_plain): each operand is a
 * finite FP32 value, exact in binary64, and each difference, quotient and
 * running sum a finite binary64 result rounded once, to nearest even, in
 * the same order, so the bits are the emulator's. */
static double f64_of(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return (double)f;
}

static uint64_t f64_bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

QUANT_CLONES static void host_errors(const uint32_t *x, const uint32_t *dequant, size_t n,
				     const struct fpref_format *element, const uint8_t *codes, struct sums *s,
				     struct fpref_quant_report *r)
{
	double max_abs = 0, sum_abs = 0, max_rel = 0, sum_rel = 0;
	uint8_t top = element ? (uint8_t)fpref_format_max_bits(element, false) : 0;
	uint8_t top_neg = element && element->is_signed ? (uint8_t)fpref_format_max_bits(element, true) : top;
	for (size_t i = 0; i < n; i++) {
		if (codes && element)
			r->saturated += codes[i] == top || codes[i] == top_neg;
		if (!f32_finite(x[i])) {
			r->nonfinite_inputs++;
			continue;
		}
		if (!f32_zero(x[i])) {
			r->nonzero_inputs++;
			r->flushed += f32_zero(dequant[i]);
		}
		if (!f32_finite(dequant[i])) {
			r->nonfinite_outputs++;
			continue;
		}
		double xd = f64_of(x[i]), abs_err = fabs(f64_of(dequant[i]) - xd);
		r->compared++;
		max_abs = abs_err > max_abs ? abs_err : max_abs;
		sum_abs += abs_err;
		if (f32_zero(x[i]))
			continue;
		double rel = abs_err / fabs(xd);
		r->compared_nonzero++;
		max_rel = rel > max_rel ? rel : max_rel;
		sum_rel += rel;
	}
	s->max_abs = f64_bits(max_abs);
	s->sum_abs = f64_bits(sum_abs);
	s->max_rel = f64_bits(max_rel);
	s->sum_rel = f64_bits(sum_rel);
}

static int report_compute(const uint32_t *x, const uint32_t *dequant, size_t n, const struct fpref_format *element,
			  const uint8_t *codes, struct fpref_quant_report *r, bool host)
{
	struct f64_engine e;
	memset(r, 0, sizeof *r);
	if (element && fpref_format_container_bits(element) > 8)
		return -1;
	e.f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	e.f64 = *fpref_format_get(FPREF_FORMAT_FLOAT64);
	fpref_env_default(&e.env);
	struct sums s = { 0, 0, 0, 0 };
	r->count = n;
	if (host)
		host_errors(x, dequant, n, element, codes, &s, r);
	for (size_t i = 0; !host && i < n; i++) {
		if (codes && element && code_saturated(element, codes[i]))
			r->saturated++;
		if (!f32_finite(x[i])) {
			r->nonfinite_inputs++;
			continue;
		}
		if (!f32_zero(x[i])) {
			r->nonzero_inputs++;
			r->flushed += f32_zero(dequant[i]);
		}
		if (!f32_finite(dequant[i]))
			r->nonfinite_outputs++;
		else
			add_error(&e, x[i], dequant[i], &s, r);
	}
	r->max_abs = f64_value(s.max_abs);
	r->max_rel = f64_value(s.max_rel);
	r->mean_abs = r->compared ? f64_value(f64_op(&e, FPREF_OP_DIV, s.sum_abs, count_to_f64(&e, r->compared))) : 0.0;
	r->mean_rel = r->compared_nonzero
			      ? f64_value(f64_op(&e, FPREF_OP_DIV, s.sum_rel, count_to_f64(&e, r->compared_nonzero)))
			      : 0.0;
	r->flushed_fraction = fraction(&e, r->flushed, r->nonzero_inputs);
	r->saturated_fraction = fraction(&e, r->saturated, r->count);
	return 0;
}

int fpref_emu_quant_report_compute(const uint32_t *x, const uint32_t *dequant, size_t n,
				   const struct fpref_format *element, const uint8_t *codes, struct fpref_quant_report *r)
{
	return report_compute(x, dequant, n, element, codes, r, fpref_emu_quant_fpu_plain());
}

int fpref_emu_quant_report_compute_reference(const uint32_t *x, const uint32_t *dequant, size_t n,
					     const struct fpref_format *element, const uint8_t *codes,
					     struct fpref_quant_report *r)
{
	return report_compute(x, dequant, n, element, codes, r, false);
}

void fpref_emu_quant_abs_errors(const uint32_t *x, const uint32_t *dequant, size_t n, double *out)
{
	struct f64_engine e;
	e.f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	e.f64 = *fpref_format_get(FPREF_FORMAT_FLOAT64);
	fpref_env_default(&e.env);
	uint64_t nan_bits = 0x7FF8000000000000u;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = nan_bits;
		if (f32_finite(x[i]) && f32_finite(dequant[i]))
			d = f64_op(&e, FPREF_OP_SUB, f32_to_f64(&e, dequant[i]), f32_to_f64(&e, x[i])) & ~F64_SIGN;
		out[i] = f64_value(d);
	}
}
