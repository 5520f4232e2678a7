/* NVFP4 in the emulator, the bulk path (the transform first, where asked:
 * fpref_emu_nvfp4_hadamard_bulk, its output the tensor quantised; Four
 * Over Six's bands: scale_nvfp4_46.c).  One pass gives the tensor's amax
 * as the element path's reduction does (a NaN skipped by TE's fmaxf,
 * winning in the others).  Then a band of rows at a time (about a chunk of
 * elements, 16 rows for 16x16 blocks, so that the second reading of x
 * comes from the cache): each block's amax (a block holding a NaN reduced
 * as the element path reduces it), its FP32 scale as the element path
 * makes it (the products and quotients by the host) and the band's scales
 * rounded to E4M3 by one call of the converter; each element's product or
 * quotient by its scale code's factor (made once by the emulator) by the
 * host, and its rounding by the converter (under stochastic rounding with
 * the element's index in the stream).  A stretch of a block whose scaled
 * values hold a NaN (a NaN element, a NaN scale, 0 times inf) is the
 * element path's, stretch by stretch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "scale_nvfp4.h"
#include "torch_nan.h"

static void bulk_free(struct nvfp4_bulk *b)
{
	free(b->amax);
	if (b->sink && b->sink->c)
		fpref_emu_quant_sink_close(b->sink);
	free(b->sink);
	fpref_emu_converter_free(b->scales);
}

/* y = x times (or divided by) by, for n values (a constant where inlined). */
static inline __attribute__((always_inline)) void block_scaled(const uint32_t *restrict x, size_t n, float by,
							       bool divide, uint32_t *restrict y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = quant_bits(divide ? quant_f32(x[i]) / by : quant_f32(x[i]) * by);
}

/* Rounds the chunk gathered, then gives each stretch of 16 (or the row's
 * last, shorter one) holding a NaN scaled value to the element path. */
static void bulk_flush(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b,
		       const uint32_t *x, size_t cols, const uint8_t *scales, size_t next)
{
	struct quant_sink *s = b->sink;
	size_t at = s->at, n = s->n, idx[FPREF_NVFP4_BLOCK];
	fpref_emu_quant_sink_flush(s, next);
	if (fpref_emu_quant_magnitude_max(s->y, n) <= F32_INF)
		return;
	for (size_t k = 0; k < n; k++) {
		if (!quant_is_nan(s->y[k]))
			continue;
		size_t i = at + k, r = i / cols, c0 = i % cols / FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK;
		size_t m = cols - c0 < FPREF_NVFP4_BLOCK ? cols - c0 : FPREF_NVFP4_BLOCK;
		for (size_t j = 0; j < m; j++)
			idx[j] = r * cols + c0 + j;
		fpref_emu_nvfp4_block_codes(q, x, b->origin, idx, m, scales[fpref_emu_nvfp4_block_of(p, cols, r, c0)],
					    s->codes);
		k = r * cols + c0 + m - 1 - at; /* on past the stretch */
	}
}

/* The elements of rows [r0, r1) into the sink, scaled by their blocks' factors. */
QUANT_CLONES static void band_elements(const struct nvfp4 *q, const struct fpref_nvfp4_params *p,
				       struct nvfp4_bulk *b, const uint32_t *x, size_t r0, size_t r1, size_t cols,
				       const uint8_t *scales)
{
	struct quant_sink *sink = b->sink;
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), span = (r1 - r0) * cols;
	for (size_t r = r0; r < r1; r++) {
		const uint8_t *srow = scales + (p->two_d ? r / FPREF_NVFP4_BLOCK : r) * across;
		for (size_t j = 0; j < across; j++) {
			size_t c0 = j * FPREF_NVFP4_BLOCK, first = r * cols + c0;
			size_t n = cols - c0 < FPREF_NVFP4_BLOCK ? cols - c0 : FPREF_NVFP4_BLOCK;
			if (sink->n + n > QUANT_CHUNK)
				bulk_flush(q, p, b, x, cols, scales, first);
			float f = quant_f32(b->factor[srow[j]]);
			uint32_t *y = sink->y + sink->n;
			const uint32_t *xb = x + (first - b->origin);
			/* the next band's line toward the cache: the hardware's prefetcher stops
			 * with the reads, and the next band's maxima would wait on memory */
			if (first - r0 * cols < b->ahead)
				__builtin_prefetch(xb + span, 0, 2);
			if (n < FPREF_NVFP4_BLOCK)
				block_scaled(xb, n, f, b->divide, y);
			else if (b->divide)
				block_scaled(xb, FPREF_NVFP4_BLOCK, f, true, y);
			else
				block_scaled(xb, FPREF_NVFP4_BLOCK, f, false, y);
			sink->n += n;
		}
	}
}

/* The scales of rows [r0, r1) (a whole band of 16 for 16x16 blocks), then
 * their elements. */
static void band(struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b, const uint32_t *x,
		 size_t rows, size_t cols, size_t r0, size_t r1, uint8_t *scales)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK);
	size_t first = (p->two_d ? r0 / FPREF_NVFP4_BLOCK : r0) * across, n = p->two_d ? across : (r1 - r0) * across;
	memset(b->amax, 0, n * sizeof *b->amax);
	fpref_emu_nvfp4_band_maxima(p, x + (r0 * cols - b->origin), r1 - r0, cols, b->amax);
	q->a.host = true;
	/* TE's m * (S / 6): a NaN only from a NaN m */
	if (q->row->block != BS_MUL_S_RCP6 || q->row->zero_scale_is_one || q->row->scale_floor ||
	    fpref_emu_quant_magnitude_max(b->amax, n) > F32_INF ||
	    fpref_emu_quant_scale(b->amax, n, q->block_encode, false, b->amax))
		for (size_t i = 0; i < n; i++)
			b->amax[i] = fpref_emu_nvfp4_block_scale_value(
				q,
				f32_is_nan(b->amax[i])
					? fpref_emu_nvfp4_nan_block_amax(q, p, x, b->origin, rows, cols, first + i)
					: b->amax[i],
				false);
	q->a.host = false;
	fpref_emu_convert_array(b->scales, b->amax, scales + first, n, NULL, 0);
	band_elements(q, p, b, x, r0, r1, cols, scales);
}

int fpref_emu_nvfp4_quantize_lanes(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows, size_t cols,
				   uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
				   size_t errlen)
{
	struct nvfp4 q;
	if (fpref_emu_nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK), step = QUANT_CHUNK / (cols ? cols : 1);
	step = p->two_d ? FPREF_NVFP4_BLOCK : step ? step : 1;
	bool four_six = p->recipe == FPREF_NVFP4_FOUR_OVER_SIX;
	/* The transformed tensor, a band at a time into a buffer of one band
	 * (to quantise it; its maxima first, below), not a buffer of
	 * the whole tensor, whose first writing costs more than the transform;
	 * Four Over Six's bands read it whole. */
	bool banded = p->rht && !four_six;
	const uint32_t *x_in = x;
	struct fpref_emu_converter *to_bf16 =
		p->rht && p->rht_bf16 ? fpref_emu_converter_new(&q.a.f32, &q.bf16, &q.a.env) : NULL;
	uint32_t *rht = p->rht ? malloc(((banded ? step * cols : rows * cols) + 1) * sizeof *rht) : NULL;
	if (p->rht && (!rht || (p->rht_bf16 && !to_bf16))) {
		free(rht);
		fpref_emu_converter_free(to_bf16);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (p->rht && !banded) {
		fpref_emu_nvfp4_hadamard_bulk(&q, p, false, to_bf16, x, rows * cols, rht, 0);
		x = rht; /* the transformed tensor is quantised */
	}
	struct nvfp4_bulk b = { malloc((step * across + 1) * sizeof *b.amax), { 0 }, false, malloc(sizeof *b.sink),
				fpref_emu_converter_new(&q.a.f32, &q.e4m3, &q.scale_env), 0, 0 };
	struct four_six f = { 0 };
	size_t band_blocks = p->two_d ? across : step * across, band_elements_max = step * cols + 1;
	if (four_six) {
		f.eight_lanes = !quant_sixteen_lanes();
		f.hp = malloc(2 * band_blocks * sizeof *f.hp);
		f.raw = malloc(band_blocks * sizeof *f.raw);
		f.sc = malloc(2 * band_blocks);
		f.y = malloc(2 * band_elements_max * sizeof *f.y);
		f.c = calloc(2 * band_elements_max + 16 * FPREF_NVFP4_BLOCK, 1); /* group_errors_46 reads 16 chains */
		f.idx = malloc(band_elements_max * sizeof *f.idx);
		f.deq = malloc(256 * 16 * sizeof *f.deq);
		if (cols % FPREF_NVFP4_BLOCK == 0) /* rows of whole blocks, and whole 16x16 blocks' bands */
			f.err = malloc(2 * band_blocks * sizeof *f.err);
		f.xg = malloc(band_elements_max * sizeof *f.xg);
		f.members = malloc(band_blocks * sizeof *f.members);
	}
	if (!b.amax || !b.sink || !b.scales || fpref_emu_quant_sink_open(b.sink, &q.e2m1, &q.element, codes) ||
	    (four_six && (!f.hp || !f.raw || !f.sc || !f.y || !f.c || !f.idx || !f.deq ||
			  !f.xg || !f.members || (cols % FPREF_NVFP4_BLOCK == 0 && !f.err)))) {
		bulk_free(&b);
		fpref_emu_nvfp4_four_six_free(&f);
		free(rht);
		fpref_emu_converter_free(to_bf16);
		snprintf(err, errlen, "out of memory for %zu blocks", step * across);
		return -1;
	}
	/* The tensor's largest magnitude after the transform: BF16's RNE is
	 * monotone and odd, so the largest of the rounded outputs' magnitudes is
	 * the largest magnitude rounded (inf and BF16's overflow to inf included;
	 * -0's magnitude is +0's); the transform's largest alone, then rounded
	 * by the converter.  A NaN output: the transform a band at a time as it
	 * is quantised (fpref_emu_nvfp4_hadamard_bulk), for the largest but NaN's. */
	const bool eight = !quant_sixteen_lanes();
	uint32_t not_nan = 0,
		 global = banded ? fpref_emu_nvfp4_hadamard_host_max((unsigned)p->rht_signs, x_in, rows * cols, eight) : 0;
	if (banded && global <= F32_INF && to_bf16) {
		uint16_t rounded;
		fpref_emu_convert_array(to_bf16, &global, &rounded, 1, NULL, 0);
		global = (uint32_t)rounded << 16;
	}
	for (size_t r0 = 0; banded && global > F32_INF && r0 < rows; r0 += step) {
		size_t n = ((r0 + step < rows ? r0 + step : rows) - r0) * cols;
		uint32_t band_not_nan;
		fpref_emu_nvfp4_hadamard_bulk(&q, p, false, to_bf16, x_in + r0 * cols, n, rht, 0);
		uint32_t band_max = fpref_emu_quant_tensor_maxima(rht, n, &band_not_nan);
		global = band_max > global ? band_max : global;
		not_nan = band_not_nan > not_nan ? band_not_nan : not_nan;
	}
	if (!banded)
		global = fpref_emu_quant_tensor_maxima(x, rows * cols, &not_nan);
	if (global > F32_INF)
		global = q.row->amax_nan_propagates ? F32_QUIET_NAN : not_nan;
	q.T = fpref_emu_nvfp4_tensor_scale(&q, global);
	q.block_encode = f32_op(&q.a, FPREF_OP_MUL, q.T, f32_op(&q.a, FPREF_OP_DIV, F32_ONE, F32_SIX));
	q.tensor_decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, q.T);
	for (unsigned c = 0; c < 256; c++)
		b.factor[c] = fpref_emu_nvfp4_element_factor(&q, (uint8_t)c, &b.divide);
	b.sink->minus_zero_to_plus = q.row->minus_zero_to_plus;
	if (four_six)
		fpref_emu_nvfp4_four_six_tables(&q, &f);
	for (size_t r0 = 0; r0 < rows; r0 += step) {
		size_t r1 = r0 + step < rows ? r0 + step : rows;
		if (banded) { /* the band's elements alone in rht, their NaN stretches flushed with them */
			fpref_emu_nvfp4_hadamard_bulk(&q, p, false, to_bf16, x_in + r0 * cols, (r1 - r0) * cols, rht,
						      (rows - r1) * cols);
			x = rht;
			b.origin = r0 * cols;
		}
		b.ahead = banded ? 0 : (rows - r1) * cols;
		if (four_six)
			fpref_emu_nvfp4_band_46(&q, p, &b, &f, x, rows, cols, r0, r1, codes, block_scales_e4m3);
		else
			band(&q, p, &b, x, rows, cols, r0, r1, block_scales_e4m3);
		if (banded)
			bulk_flush(&q, p, &b, x, cols, block_scales_e4m3, r1 * cols);
	}
	bulk_flush(&q, p, &b, x, cols, block_scales_e4m3, 0);
	bulk_free(&b);
	fpref_emu_nvfp4_four_six_free(&f);
	free(rht);
	fpref_emu_converter_free(to_bf16);
	*tensor_scale_f32 = q.T;
	return 0;
}

int fpref_emu_nvfp4_quantize(const struct fpref_nvfp4_params *p, const uint32_t *x_f32, size_t rows, size_t cols,
			     uint8_t *codes, uint8_t *block_scales_e4m3, uint32_t *tensor_scale_f32, char *err,
			     size_t errlen)
{
	int status = fpref_emu_nvfp4_quantize_lanes(p, x_f32, rows, cols, codes, block_scales_e4m3, tensor_scale_f32,
						    err, errlen);
	return status == 1 ? fpref_emu_nvfp4_quantize_reference(p, x_f32, rows, cols, codes, block_scales_e4m3,
								 tensor_scale_f32, err, errlen)
			   : status;
}

/* The bulk path: each block scale code's factor (Four Over Six: its
 * value) and each E2M1 code's value made once by the emulator, each
 * product and quotient by the host as the element path orders them (a NaN
 * is the quiet NaN either way), then the transform's inverse in bulk; a
 * code outside E2M1 is the element path's to report. */
int fpref_emu_nvfp4_dequantize_lanes(const struct fpref_nvfp4_params *p, const uint8_t *codes,
				     const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows,
				     size_t cols, uint32_t *out_f32, char *err, size_t errlen)
{
	struct nvfp4 q;
	if (fpref_emu_nvfp4_init(&q, p, rows, cols, err, errlen) != 0)
		return -1;
	if (!fpref_emu_quant_fpu_plain())
		return 1;
	bool four_six = q.row->tensor == TS_AMAX; /* ((v * s) * T) / (6 * M), as fpref_emu_nvfp4_dequant_46 */
	uint32_t decode = f32_op(&q.a, FPREF_OP_DIV, F32_ONE, tensor_scale_f32), factor[256], value[16];
	for (unsigned c = 0; c < 256; c++)
		factor[c] = four_six ? fpref_emu_nvfp4_e4m3_value(&q, (uint8_t)c)
			    : q.row->tensor == TS_ENCODE
				    ? f32_op(&q.a, FPREF_OP_MUL, fpref_emu_nvfp4_e4m3_value(&q, (uint8_t)c), decode)
				    : f32_op(&q.a, FPREF_OP_MUL, tensor_scale_f32,
					     fpref_emu_nvfp4_e4m3_value(&q, (uint8_t)c));
	float T = quant_f32(tensor_scale_f32), six_m = quant_f32(f32_op(&q.a, FPREF_OP_MUL, F32_SIX, q.bound));
	for (unsigned c = 0; c < 16; c++) {
		uint64_t v = 0;
		unsigned flags = 0;
		fpref_emu_convert(&q.e2m1, c, &q.a.f32, &q.a.env, 0, &v, &flags);
		value[c] = q.row->minus_zero_to_plus && v == 0x80000000u ? 0 : (uint32_t)v;
	}
	uint8_t high = 0;
	for (size_t i = 0; i < rows * cols; i++)
		high |= codes[i];
	if (high >= 16)
		return 1;
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			size_t i = r * cols + c;
			float f = quant_f32(factor[block_scales_e4m3[fpref_emu_nvfp4_block_of(p, cols, r, c)]]);
			float vf = quant_f32(value[codes[i]]) * f;
			uint32_t out = quant_bits(four_six ? vf * T / six_m : vf);
			out_f32[i] = f32_is_nan(out) ? F32_QUIET_NAN : out;
		}
	/* back to x's domain, a chunk (whole groups of 16) at a time */
	_Static_assert(QUANT_CHUNK % FPREF_NVFP4_BLOCK == 0, "a chunk holds whole groups of the transform");
	uint32_t t[QUANT_CHUNK];
	for (size_t i = 0; p->rht && i < rows * cols; i += QUANT_CHUNK) {
		size_t m = rows * cols - i < QUANT_CHUNK ? rows * cols - i : QUANT_CHUNK;
		fpref_emu_nvfp4_hadamard_bulk(&q, p, true, NULL, out_f32 + i, m, t, 0);
		memcpy(out_f32 + i, t, m * sizeof *t);
	}
	return 0;
}

int fpref_emu_nvfp4_dequantize(const struct fpref_nvfp4_params *p, const uint8_t *codes,
			       const uint8_t *block_scales_e4m3, uint32_t tensor_scale_f32, size_t rows, size_t cols,
			       uint32_t *out_f32, char *err, size_t errlen)
{
	int status = fpref_emu_nvfp4_dequantize_lanes(p, codes, block_scales_e4m3, tensor_scale_f32, rows, cols,
						      out_f32, err, errlen);
	return status == 1 ? fpref_emu_nvfp4_dequantize_reference(p, codes, block_scales_e4m3, tensor_scale_f32, rows,
								   cols, out_f32, err, errlen)
			   : status;
}
