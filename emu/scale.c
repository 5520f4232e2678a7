/* The emulator's scaling recipes (fpref_emu_scale.h).  Each FP32 step is
 * one fpref_emu_op call so that the rounding is the emulator's, and the
 * order of the steps is the recipe's (docs/scaling.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_scale.h"
#include "quant_lanes.h"

#define F32_NAN 0x7FC00000u
#define F32_SIGN 0x80000000u
#define F32_INF 0x7F800000u

/* What every recipe needs: FP32 arithmetic, the cast to the element format
 * and the element's largest finite value in FP32. */
struct f32_engine {
	struct fpref_format f32;
	struct fpref_env arith; /* rne, ieee overflow, subnormals kept (CUDA without fast math) */
	struct fpref_env cast;  /* __nv_cvt_float_to_fp8 with __NV_SATFINITE */
	const struct fpref_format *element;
	uint32_t fp8_max;
	/* the bulk path: products, quotients and comparisons by the host's
	 * FP32 arithmetic, a NaN result made again by the emulator */
	bool host;
};

static int engine_init(struct f32_engine *e, const struct fpref_format *element, char *err, size_t errlen)
{
	if (fpref_scale_element_check(element, err, errlen) != 0)
		return -1;
	e->f32 = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	fpref_env_default(&e->arith);
	e->cast = e->arith;
	fpref_profile_apply("cuda", element, &e->cast);
	e->cast.overflow = FPREF_OVERFLOW_SAT;
	e->element = element;
	e->host = false;
	uint64_t max = 0;
	unsigned flags = 0;
	fpref_emu_convert(element, fpref_format_max_bits(element, false), &e->f32, &e->arith, 0, &max, &flags);
	e->fp8_max = (uint32_t)max;
	return 0;
}

static uint32_t f32_op(const struct f32_engine *e, enum fpref_op op, uint32_t a, uint32_t b)
{
	if (e->host && (op == FPREF_OP_MUL || op == FPREF_OP_DIV || op == FPREF_OP_LT)) {
		float x = quant_f32(a), y = quant_f32(b);
		uint32_t r = op == FPREF_OP_LT ? x < y : quant_bits(op == FPREF_OP_MUL ? x * y : x / y);
		if (op == FPREF_OP_LT || !quant_is_nan(r))
			return r;
	}
	uint64_t in[2] = { a, b }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, &e->f32, in, &e->arith, 0, &out, &flags);
	return (uint32_t)out;
}

static bool f32_less(const struct f32_engine *e, uint32_t a, uint32_t b)
{
	return f32_op(e, FPREF_OP_LT, a, b) == 1;
}

static bool f32_is_nan(uint32_t a)
{
	return (a & ~F32_SIGN) > F32_INF;
}

static bool f32_is_inf(uint32_t a)
{
	return (a & ~F32_SIGN) == F32_INF;
}

static bool f32_is_zero(uint32_t a)
{
	return (a & ~F32_SIGN) == 0;
}

static uint8_t cast_to_element(const struct f32_engine *e, uint32_t v)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&e->f32, v, e->element, &e->cast, 0, &out, &flags);
	return (uint8_t)out;
}

static uint32_t element_to_f32(const struct f32_engine *e, uint8_t code)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(e->element, code, &e->f32, &e->arith, 0, &out, &flags);
	return (uint32_t)out;
}

/* Magnitudes of non-NaN FP32 patterns order like the integers they are. */
uint32_t fpref_emu_amax(const uint32_t *x, size_t n, bool ignore_nan)
{
	uint32_t amax = 0;
	for (size_t i = 0; i < n; i++) {
		if (f32_is_nan(x[i]) && ignore_nan)
			continue;
		if (f32_is_nan(x[i]))
			return F32_NAN;
		if ((x[i] & ~F32_SIGN) > amax)
			amax = x[i] & ~F32_SIGN;
	}
	return amax;
}

/* amax over rows [r0, r1) and columns [c0, c1) of a matrix cols wide. */
static uint32_t amax_region(const uint32_t *x, size_t cols, size_t r0, size_t r1, size_t c0, size_t c1,
			    bool ignore_nan)
{
	uint32_t amax = 0;
	for (size_t r = r0; r < r1; r++) {
		uint32_t row = fpref_emu_amax(x + r * cols + c0, c1 - c0, ignore_nan);
		if (f32_is_nan(row))
			return F32_NAN;
		if (row > amax)
			amax = row;
	}
	return amax;
}

static uint32_t te_scale(const struct f32_engine *e, uint32_t amax, uint32_t eps, bool pow2)
{
	if (f32_less(e, amax, eps))
		amax = eps;
	if (f32_is_inf(amax) || f32_is_zero(amax) || f32_is_nan(amax))
		return FPREF_F32_ONE;
	uint32_t scale = f32_op(e, FPREF_OP_DIV, e->fp8_max, amax);
	if (f32_is_inf(scale))
		scale = FPREF_F32_MAX;
	if (pow2)
		scale &= 0xFF800000u; /* TE keeps sign and exponent: rounds down to a power of two */
	return scale;
}

int fpref_emu_te_scale(const struct fpref_format *element, uint32_t amax, uint32_t eps, bool pow2, uint32_t *scale)
{
	struct f32_engine e;
	char err[256];
	if (engine_init(&e, element, err, sizeof err) != 0)
		return -1;
	*scale = te_scale(&e, amax, eps, pow2);
	return 0;
}

int fpref_emu_current_quantize_reference(const struct fpref_current_params *p, const uint32_t *x, size_t n,
					 uint8_t *codes, uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err,
					 size_t errlen)
{
	struct f32_engine e;
	if (fpref_current_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	uint32_t a = fpref_emu_amax(x, n, fpref_amax_nan_ignored(p->amax_nan, true));
	uint32_t s = te_scale(&e, a, p->eps, p->pow2);
	for (size_t i = 0; i < n; i++)
		codes[i] = cast_to_element(&e, f32_op(&e, FPREF_OP_MUL, x[i], s));
	if (amax)
		*amax = a;
	if (scale)
		*scale = s;
	if (scale_inv)
		*scale_inv = f32_op(&e, FPREF_OP_DIV, FPREF_F32_ONE, s);
	return 0;
}

/* The host's products value[code] * factor, vectorised; whether one is NaN. */
QUANT_CLONES static bool host_products(const uint32_t *value, const uint8_t *restrict codes, size_t n, float factor,
				       uint32_t *restrict out)
{
	uint32_t nan = 0;
	for (size_t i = 0; i < n; i++) {
		out[i] = quant_bits(quant_f32(value[codes[i]]) * factor);
		nan |= (uint32_t)((out[i] & ~F32_SIGN) > F32_INF);
	}
	return nan != 0;
}

/* out[i] = float32(codes[i]) * factor rounded once: by the host where its
 * arithmetic is IEEE's (each NaN made again by the emulator), else by the
 * emulator. */
static void dequantize_run(const struct f32_engine *e, const uint32_t *value, const uint8_t *codes, size_t n,
			   uint32_t factor, uint32_t *out)
{
	bool host = fpref_emu_quant_fpu_plain(), nan = host && host_products(value, codes, n, quant_f32(factor), out);
	for (size_t i = 0; i < n; i++)
		if (!host || (nan && quant_is_nan(out[i])))
			out[i] = f32_op(e, FPREF_OP_MUL, value[codes[i]], factor);
}

int fpref_emu_dequantize_scaled(const struct fpref_format *element, const uint8_t *codes, size_t n, uint32_t factor,
				uint32_t *out, char *err, size_t errlen)
{
	struct f32_engine e;
	uint32_t value[256];
	if (engine_init(&e, element, err, errlen) != 0)
		return -1;
	for (unsigned c = 0; c < 256; c++)
		value[c] = element_to_f32(&e, (uint8_t)c);
	dequantize_run(&e, value, codes, n, factor, out);
	return 0;
}

/* ---- the bulk path: the host's FP32 arithmetic gives the emulator's
 * bits for every result but a NaN (fpref_emu_quant_fpu_plain), so each
 * NaN it makes is made again by the emulator ---- */

/* n elements x op by (a product, or a quotient where divide) into y. */
static void scale_values(const struct f32_engine *e, const uint32_t *x, size_t n, uint32_t by, bool divide,
			 uint32_t *y)
{
	bool nan = fpref_emu_quant_scale(x, n, by, divide, y);
	for (size_t i = 0; nan && i < n; i++)
		if (quant_is_nan(y[i]))
			y[i] = f32_op(e, divide ? FPREF_OP_DIV : FPREF_OP_MUL, x[i], by);
}

/* codes[i] = cast(x[i] op by), a chunk at a time: 0, or -1 (no memory). */
static int scaled_cast(const struct f32_engine *e, const uint32_t *x, size_t n, uint32_t by, bool divide,
		       uint8_t *codes)
{
	struct quant_sink *sink = malloc(sizeof *sink);
	if (!sink || fpref_emu_quant_sink_open(sink, e->element, &e->cast, codes) != 0) {
		free(sink);
		return -1;
	}
	for (size_t i = 0; i < n; i += QUANT_CHUNK) {
		sink->n = n - i < QUANT_CHUNK ? n - i : QUANT_CHUNK;
		scale_values(e, x + i, sink->n, by, divide, sink->y);
		fpref_emu_quant_sink_flush(sink, i + QUANT_CHUNK);
	}
	fpref_emu_quant_sink_close(sink);
	free(sink);
	return 0;
}

int fpref_emu_current_quantize_lanes(const struct fpref_current_params *p, const uint32_t *x, size_t n,
				     uint8_t *codes, uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err,
				     size_t errlen)
{
	struct f32_engine e;
	if (fpref_current_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	uint32_t a = fpref_emu_quant_tensor_maxima(x, n, NULL);
	if (a > F32_INF) /* a NaN: the recipe's policy decides */
		a = fpref_emu_amax(x, n, fpref_amax_nan_ignored(p->amax_nan, true));
	uint32_t s = te_scale(&e, a, p->eps, p->pow2);
	if (scaled_cast(&e, x, n, s, false, codes) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (amax)
		*amax = a;
	if (scale)
		*scale = s;
	if (scale_inv)
		*scale_inv = f32_op(&e, FPREF_OP_DIV, FPREF_F32_ONE, s);
	return 0;
}

int fpref_emu_current_quantize(const struct fpref_current_params *p, const uint32_t *x, size_t n, uint8_t *codes,
			       uint32_t *amax, uint32_t *scale, uint32_t *scale_inv, char *err, size_t errlen)
{
	int status = fpref_emu_current_quantize_lanes(p, x, n, codes, amax, scale, scale_inv, err, errlen);
	return status == 1 ? fpref_emu_current_quantize_reference(p, x, n, codes, amax, scale, scale_inv, err, errlen)
			   : status;
}

/* TE's roll: slot i takes slot i+1, the last slot the newest amax, slot 0
 * resets; the max is fmaxf's, which passes over NaN. */
static uint32_t roll_history(const struct f32_engine *e, uint32_t *h, size_t L)
{
	uint32_t newest = h[0], max = 0;
	for (size_t i = 0; i < L; i++) {
		uint32_t a = i + 1 < L ? h[i + 1] : newest;
		if (!f32_is_nan(a) && f32_less(e, max, a))
			max = a;
		h[i] = i > 0 ? a : 0;
	}
	return max;
}

/* fp8_max * 2^-margin, as TE's host code forms it in float. */
static uint32_t scaled_max(const struct f32_engine *e, int margin)
{
	uint32_t pow = (uint32_t)(127 - margin) << 23;
	return f32_op(e, FPREF_OP_MUL, e->fp8_max, pow);
}

int fpref_emu_delayed_step(struct fpref_delayed_state *s, const uint32_t *x, size_t n, uint8_t *codes,
			   uint32_t *scale_inv_used, uint32_t *amax_recorded, char *err, size_t errlen)
{
	struct f32_engine e;
	if (!s->history) {
		snprintf(err, errlen, "delayed scaling state not initialised");
		return -1;
	}
	if (engine_init(&e, s->params.element, err, errlen) != 0)
		return -1;
	int bulk = fpref_emu_quant_fpu_plain() ? scaled_cast(&e, x, n, s->scale, false, codes) : 1;
	for (size_t i = 0; bulk == 1 && i < n; i++)
		codes[i] = cast_to_element(&e, f32_op(&e, FPREF_OP_MUL, x[i], s->scale));
	if (bulk < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (scale_inv_used)
		*scale_inv_used = s->scale_inv;
	s->history[0] = fpref_emu_amax(x, n, fpref_amax_nan_ignored(s->params.amax_nan, true));
	if (amax_recorded)
		*amax_recorded = s->history[0];
	uint32_t newest = s->history[0];
	uint32_t max = roll_history(&e, s->history, s->params.history_len);
	uint32_t amax = s->params.algo == FPREF_AMAX_MOST_RECENT ? newest : max;
	if (!f32_is_nan(amax) && !f32_is_inf(amax) && f32_less(&e, 0, amax))
		s->scale = f32_op(&e, FPREF_OP_DIV, scaled_max(&e, s->params.margin), amax);
	if (f32_is_inf(s->scale))
		s->scale = FPREF_F32_MAX;
	s->scale_inv = f32_op(&e, FPREF_OP_DIV, FPREF_F32_ONE, s->scale);
	s->steps++;
	return 0;
}

/* A block's dequantisation factor, and what its elements are multiplied
 * by (TE's scale) or divided by (DeepSeek's factor), from its amax. */
static uint32_t block_factor(const struct f32_engine *e, const struct fpref_block_params *p, uint32_t amax,
			     uint32_t *by)
{
	if (p->recipe == FPREF_BLOCK_DEEPSEEK) {
		if (f32_less(e, amax, p->eps))
			amax = p->eps;
		return *by = f32_op(e, FPREF_OP_DIV, amax, e->fp8_max);
	}
	*by = te_scale(e, amax, p->eps, p->pow2);
	return f32_op(e, FPREF_OP_DIV, FPREF_F32_ONE, *by);
}

static bool block_nan_ignored(const struct fpref_block_params *p)
{
	return fpref_amax_nan_ignored(p->amax_nan, p->recipe == FPREF_BLOCK_TE);
}

/* The quantisation of one block and its dequantisation factor. */
static uint32_t quantize_block(const struct f32_engine *e, const struct fpref_block_params *p, const uint32_t *x,
			       size_t cols, size_t r0, size_t r1, size_t c0, size_t c1, uint8_t *codes)
{
	uint32_t by, factor = block_factor(e, p, amax_region(x, cols, r0, r1, c0, c1, block_nan_ignored(p)), &by);
	for (size_t r = r0; r < r1; r++)
		for (size_t c = c0; c < c1; c++) {
			uint32_t v = f32_op(e, p->recipe == FPREF_BLOCK_DEEPSEEK ? FPREF_OP_DIV : FPREF_OP_MUL,
					    x[r * cols + c], by);
			codes[r * cols + c] = cast_to_element(e, v);
		}
	return factor;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

int fpref_emu_block_quantize_reference(const struct fpref_block_params *p, const uint32_t *x, size_t rows,
				       size_t cols, uint8_t *codes, uint32_t *factors, char *err, size_t errlen)
{
	struct f32_engine e;
	if (fpref_block_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	size_t grid_cols = fpref_scale_blocks(cols, p->block_cols);
	for (size_t r0 = 0; r0 < rows; r0 += p->block_rows)
		for (size_t c0 = 0; c0 < cols; c0 += p->block_cols)
			factors[(r0 / p->block_rows) * grid_cols + c0 / p->block_cols] =
				quantize_block(&e, p, x, cols, r0, min_size(rows, r0 + p->block_rows), c0,
					       min_size(cols, c0 + p->block_cols), codes);
	return 0;
}

/* The bulk path: each band of block rows read twice, for its blocks'
 * amax and then, row by row, for the scaled elements. */
int fpref_emu_block_quantize_lanes(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
				   uint8_t *codes, uint32_t *factors, char *err, size_t errlen)
{
	struct f32_engine e;
	if (fpref_block_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	e.host = true;
	size_t grid_cols = fpref_scale_blocks(cols, p->block_cols), bc = p->block_cols;
	bool divide = p->recipe == FPREF_BLOCK_DEEPSEEK;
	struct quant_sink *sink = malloc(sizeof *sink);
	uint32_t *am = malloc((grid_cols + 1) * sizeof *am), *by = malloc((grid_cols + 1) * sizeof *by);
	if (!sink || !am || !by || fpref_emu_quant_sink_open(sink, e.element, &e.cast, codes) != 0) {
		free(sink);
		free(am);
		free(by);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t r0 = 0; r0 < rows; r0 += p->block_rows) {
		size_t r1 = min_size(rows, r0 + p->block_rows);
		memset(am, 0, grid_cols * sizeof *am);
		for (size_t r = r0; r < r1; r++)
			for (size_t j = 0; j < grid_cols; j++) {
				uint32_t m = fpref_emu_quant_magnitude_max(x + r * cols + j * bc, min_size(cols, j * bc + bc) - j * bc);
				am[j] = m > am[j] ? m : am[j];
			}
		for (size_t j = 0; j < grid_cols; j++) {
			uint32_t a = am[j] > F32_INF ? amax_region(x, cols, r0, r1, j * bc, min_size(cols, j * bc + bc),
								   block_nan_ignored(p))
						     : am[j];
			factors[(r0 / p->block_rows) * grid_cols + j] = block_factor(&e, p, a, &by[j]);
		}
		for (size_t r = r0; r < r1; r++)
			for (size_t j = 0; j < grid_cols; j++) {
				size_t first = r * cols + j * bc, n = min_size(cols, j * bc + bc) - j * bc;
				if (sink->n + n > QUANT_CHUNK)
					fpref_emu_quant_sink_flush(sink, first);
				scale_values(&e, x + first, n, by[j], divide, sink->y + sink->n);
				sink->n += n;
			}
	}
	fpref_emu_quant_sink_flush(sink, 0);
	fpref_emu_quant_sink_close(sink);
	free(sink);
	free(am);
	free(by);
	return 0;
}

int fpref_emu_block_quantize(const struct fpref_block_params *p, const uint32_t *x, size_t rows, size_t cols,
			     uint8_t *codes, uint32_t *factors, char *err, size_t errlen)
{
	int status = fpref_emu_block_quantize_lanes(p, x, rows, cols, codes, factors, err, errlen);
	return status == 1 ? fpref_emu_block_quantize_reference(p, x, rows, cols, codes, factors, err, errlen)
			   : status;
}

int fpref_emu_block_dequantize(const struct fpref_block_params *p, const uint8_t *codes, const uint32_t *factors,
			       size_t rows, size_t cols, uint32_t *out, char *err, size_t errlen)
{
	struct f32_engine e;
	if (fpref_block_params_check(p, err, errlen) != 0 || engine_init(&e, p->element, err, errlen) != 0)
		return -1;
	size_t grid_cols = fpref_scale_blocks(cols, p->block_cols);
	uint32_t value[256];
	for (unsigned c = 0; c < 256; c++)
		value[c] = element_to_f32(&e, (uint8_t)c);
	for (size_t r = 0; r < rows; r++)
		for (size_t c0 = 0; c0 < cols; c0 += p->block_cols)
			dequantize_run(&e, value, codes + r * cols + c0, min_size(cols - c0, p->block_cols),
				       factors[(r / p->block_rows) * grid_cols + c0 / p->block_cols], out + r * cols + c0);
	return 0;
}
