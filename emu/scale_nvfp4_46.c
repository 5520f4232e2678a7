/* NVFP4 in the emulator: Four Over Six in bulk, a band at a time: both
 * candidates' FP32 scales (fpref_emu_nvfp4_block_scale_value, the host's products and
 * quotients) rounded to E4M3 by one call of the converter; each element's
 * ((x * 6) * M) / (T s_b) for both by the host and rounded to E2M1 by the
 * converter; each block's errors by the host in the element path's order
 * (fpref_emu_nvfp4_dequant_46's steps, a difference, a running sum from +0 or the largest
 * magnitude, each a statement of its own: no contraction), the smaller
 * kept.  A block whose amax, scales, scaled values or differences hold a
 * NaN is the element path's (fpref_emu_nvfp4_block_46).  (Four Over Six has no stochastic
 * rounding: its recipe row refuses it.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "scale_nvfp4.h"
#include "torch_nan.h"

void fpref_emu_nvfp4_four_six_free(struct four_six *f)
{
	free(f->err);
	free(f->hp);
	free(f->y);
	free(f->raw);
	free(f->sc);
	free(f->c);
	free(f->idx);
}

/* ((x * 6) * M) / (T s) for the n values xs, or 0 where s is zero; whether one is NaN. */
QUANT_CLONES static bool scaled_46(const struct nvfp4 *q, const uint32_t *restrict xs, size_t n, uint32_t s,
				   uint32_t *restrict y)
{
	float den = quant_f32(q->T) * quant_f32(s), bound = quant_f32(q->bound);
	if ((s & F32_ABS_MASK) == 0) {
		memset(y, 0, n * sizeof *y);
		return false;
	}
	uint32_t nan = 0;
	for (size_t i = 0; i < n; i++) {
		float x6 = quant_f32(xs[i]) * 6.0f;
		float num = x6 * bound;
		y[i] = quant_bits(num / den);
		nan |= (uint32_t)((y[i] & F32_ABS_MASK) > F32_INF);
	}
	return nan != 0;
}

/* The differences fpref_emu_nvfp4_dequant_46(c[i], s) - xs[i] of a block's m elements. */
QUANT_CLONES static void differences_46(const struct nvfp4 *q, const uint32_t *value, uint32_t six_m,
					const uint32_t *restrict xs, const uint8_t *restrict c, size_t m, uint32_t s,
					float *restrict d)
{
	float sf = quant_f32(s), t = quant_f32(q->T), sm = quant_f32(six_m);
	for (size_t i = 0; i < m; i++) {
		float v = quant_f32(value[c[i] & 15u]);
		float vs = v * sf;
		float vst = vs * t;
		float deq = vst / sm;
		d[i] = deq - quant_f32(xs[i]);
	}
}

/* A candidate's error over the block's m elements (xs gathered, codes c),
 * scale s: false where a NaN arises. */
static bool host_error_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const struct four_six *f,
			  const uint32_t *xs, const uint8_t *c, size_t m, uint32_t s, float *err)
{
	float diff[MAX_BLOCK], acc = 0.0f;
	uint32_t largest = 0;
	differences_46(q, f->value, f->six_m, xs, c, m, s, diff);
	for (size_t i = 0; i < m; i++) {
		float d = diff[i];
		uint32_t mag = quant_bits(d) & F32_ABS_MASK;
		if (mag > F32_INF)
			return false;
		if (p->choice == FPREF_NVFP4_ABS_MAX) {
			largest = mag > largest ? mag : largest;
			continue;
		}
		float term = p->choice == FPREF_NVFP4_MAE ? quant_f32(mag) : d * d;
		acc = acc + term;
	}
	*err = p->choice == FPREF_NVFP4_ABS_MAX ? quant_f32(largest) : acc;
	return !quant_is_nan(quant_bits(*err));
}

/* differences_46 of one block of 16 into *diff, element k in lane k. */
static inline __attribute__((always_inline)) void differences_46_block(const struct nvfp4 *q, const uint32_t *value,
								       uint32_t six_m, const uint32_t *restrict xs,
								       const uint8_t *restrict c, uint32_t s,
								       f32x16 *diff)
{
	f32x16 v = { 0 }, x;
#if defined(__GNUC__) && !defined(__clang__) /* E2M1's 16 values permuted by the codes, not 16 loads */
	typedef uint8_t u8x16 __attribute__((vector_size(16)));
	u8x16 code;
	f32x16 table;
	memcpy(&code, c, sizeof code);
	memcpy(&table, value, sizeof table);
	v = __builtin_shuffle(table, __builtin_convertvector(code, u32x16) & 15u);
#else
	for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++)
		v[k] = quant_f32(value[c[k] & 15u]);
#endif
	memcpy(&x, xs, sizeof x);
	f32x16 vs = v * quant_f32(s);
	f32x16 vst = vs * quant_f32(q->T);
	f32x16 deq = vst / quant_f32(six_m);
	*diff = deq - x;
}

/* One step of a 16 x 16 transpose in registers: rows r and r + h (h = 2^s)
 * trade the lanes c whose bit s differs from their row's. */
#define T46_LO(h) T46_IDX_##h##_LO
#define T46_HI(h) T46_IDX_##h##_HI
#define T46_IDX_1_LO 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define T46_IDX_1_HI 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#define T46_IDX_2_LO 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define T46_IDX_2_HI 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define T46_IDX_4_LO 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define T46_IDX_4_HI 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define T46_IDX_8_LO 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define T46_IDX_8_HI 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define T46_STEP(d, h)                                                                                        \
	_Pragma("GCC unroll 16") for (unsigned r_ = 0; r_ < 16; r_++)                                        \
	{                                                                                                     \
		if (r_ & (h))                                                                                 \
			continue;                                                                             \
		f32x16 lo_ = __builtin_shufflevector(d[r_], d[r_ + (h)], T46_LO(h));                          \
		f32x16 hi_ = __builtin_shufflevector(d[r_], d[r_ + (h)], T46_HI(h));                          \
		d[r_] = lo_;                                                                                  \
		d[r_ + (h)] = hi_;                                                                            \
	}

/* Errors of chains 2i (6's) and 2i + 1 (4's) of eight blocks of 16 at xb
 * (chains past `chains` zero): each chain's differences in a register,
 * transposed so that element k of every chain shares a register, then
 * host_error_46's sums and maxima in order of the elements, sixteen
 * chains in the lanes of a vector.  A NaN difference makes the error NaN:
 * a sum's NaN stays, and a NaN's magnitude as bits is above every other. */
static inline __attribute__((always_inline)) void group_errors_46_as(const struct nvfp4 *q, const struct four_six *f,
								      enum fpref_nvfp4_choice choice, const uint32_t *xb,
								      const uint8_t *c, const uint8_t *sc, size_t chains,
								      float *err)
{
	const size_t B = FPREF_NVFP4_BLOCK;
	f32x16 d[16];
	_Pragma("GCC unroll 16") for (unsigned j = 0; j < 16; j++)
	{
		d[j] = (f32x16){ 0 };
		if (j < chains)
			differences_46_block(q, f->value, f->six_m, xb + j / 2 * B, c + j * B, f->scale[sc[j]], &d[j]);
	}
	T46_STEP(d, 1)
	T46_STEP(d, 2)
	T46_STEP(d, 4)
	T46_STEP(d, 8)
	f32x16 acc = { 0 };
	u32x16 largest = { 0 };
	_Pragma("GCC unroll 16") for (unsigned k = 0; k < 16; k++)
	{
		u32x16 mag;
		memcpy(&mag, &d[k], sizeof mag);
		mag &= F32_ABS_MASK;
		if (choice == FPREF_NVFP4_ABS_MAX) {
			for (unsigned j = 0; j < 16; j++) /* a lane's maximum: one instruction where vectorised */
				largest[j] = mag[j] > largest[j] ? mag[j] : largest[j];
			continue;
		}
		f32x16 term;
		if (choice == FPREF_NVFP4_MAE)
			memcpy(&term, &mag, sizeof term);
		else
			term = d[k] * d[k];
		acc = acc + term;
	}
	f32x16 e;
	if (choice == FPREF_NVFP4_ABS_MAX)
		memcpy(&e, &largest, sizeof e);
	else
		e = acc;
	for (unsigned j = 0; j < chains; j++)
		err[j] = e[j];
}

/* group_errors_46_as with the choice a constant in each. */
QUANT_CLONES static void group_errors_46(const struct nvfp4 *q, const struct four_six *f,
					 enum fpref_nvfp4_choice choice, const uint32_t *xb, const uint8_t *c,
					 const uint8_t *sc, size_t chains, float *err)
{
	if (choice == FPREF_NVFP4_ABS_MAX)
		group_errors_46_as(q, f, FPREF_NVFP4_ABS_MAX, xb, c, sc, chains, err);
	else if (choice == FPREF_NVFP4_MAE)
		group_errors_46_as(q, f, FPREF_NVFP4_MAE, xb, c, sc, chains, err);
	else
		group_errors_46_as(q, f, FPREF_NVFP4_MSE, xb, c, sc, chains, err);
}

/* Block blk (its m elements at idx, its amax as bits amax) by the element
 * path, where the bulk path met a NaN: a NaN amax reduced again as the
 * element path reduces it. */
static void element_block_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, uint32_t amax,
			     const uint32_t *x, size_t rows, size_t cols, size_t blk, const size_t *idx, size_t m,
			     uint8_t *scales, uint8_t *codes)
{
	uint32_t m_b = f32_is_nan(amax) ? fpref_emu_nvfp4_nan_block_amax(q, p, x, 0, rows, cols, blk) : amax;
	fpref_emu_nvfp4_block_46(q, p, x, idx, m, m_b, &scales[blk], codes);
}

/* band_46 for rows of whole blocks of 16 (1x16): each block's elements
 * side by side in x, no gathering; the same steps. */
static void band_46_flat(struct nvfp4 *q, const struct fpref_nvfp4_params *p, const struct nvfp4_bulk *b,
			 struct four_six *f, const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t nb,
			 uint8_t *codes, uint8_t *scales)
{
	const size_t B = FPREF_NVFP4_BLOCK, first = r0 * cols / B;
	const uint32_t *xb = x + r0 * cols;
	uint8_t *cb = codes + r0 * cols;
	for (size_t i = 0; i < nb; i++) {
		if (i * B < b->ahead) /* the next band's line toward the cache (band_elements, scale_nvfp4_bulk.c) */
			__builtin_prefetch(xb + (nb + i) * B, 0, 2);
		bool nan = scaled_46(q, xb + i * B, B, f->scale[f->sc[2 * i]], f->y + 2 * i * B);
		nan = scaled_46(q, xb + i * B, B, f->scale[f->sc[2 * i + 1]], f->y + 2 * i * B + B) || nan;
		f->raw[i] = nan ? 0xFFFFFFFFu : b->amax[i];
	}
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * nb * B, NULL, 0);
	for (size_t j = 0; j < 2 * nb; j += 16) /* sixteen chains: eight blocks' two candidates */
		group_errors_46(q, f, p->choice, xb + j / 2 * B, f->c + j * B, f->sc + j, 2 * nb - j < 16 ? 2 * nb - j : 16,
				f->err + j);
	for (size_t i = 0; i < nb; i++) {
		float e6 = f->err[2 * i], e4 = f->err[2 * i + 1];
		if (f->raw[i] > F32_INF || quant_is_nan(quant_bits(e6)) || quant_is_nan(quant_bits(e4))) {
			size_t idx[FPREF_NVFP4_BLOCK], m = fpref_emu_nvfp4_block_members(p, rows, cols, first + i, idx);
			element_block_46(q, p, b->amax[i], x, rows, cols, first + i, idx, m, scales, codes);
			continue;
		}
		bool four = e4 < e6; /* ties keep 6 */
		scales[first + i] = f->sc[2 * i + (four ? 1 : 0)];
		memcpy(cb + i * B, f->c + (2 * i + (four ? 1 : 0)) * B, B);
	}
}

/* Both candidates' FP32 scales of nb blocks, fpref_emu_nvfp4_block_scale_value's (m * M) /
 * T and its times 1.5 by the host, into hp[2i], hp[2i + 1]; false (hp
 * then the caller's to make) where an amax or a scale is NaN. */
QUANT_CLONES static bool scales_46(const struct nvfp4 *q, const uint32_t *restrict amax, size_t nb,
				   uint32_t *restrict hp)
{
	if (q->row->block != BS_BOUND_DIV_A || q->row->zero_scale_is_one || q->row->scale_floor)
		return false;
	float M = quant_f32(q->bound), T = quant_f32(q->T);
	uint32_t nan = 0;
	for (size_t i = 0; i < nb; i++) {
		float mM = quant_f32(amax[i]) * M;
		float six = mM / T;
		float four = six * 1.5f;
		hp[2 * i] = quant_bits(six);
		hp[2 * i + 1] = quant_bits(four);
		nan |= (uint32_t)((amax[i] & F32_ABS_MASK) > F32_INF) |
		       (uint32_t)((hp[2 * i] & F32_ABS_MASK) > F32_INF) |
		       (uint32_t)((hp[2 * i + 1] & F32_ABS_MASK) > F32_INF);
	}
	return nan == 0;
}

void fpref_emu_nvfp4_band_46(struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b,
			     struct four_six *f, const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t r1,
			     uint8_t *codes, uint8_t *scales)
{
	size_t across = fpref_scale_blocks(cols, FPREF_NVFP4_BLOCK);
	size_t first = (p->two_d ? r0 / FPREF_NVFP4_BLOCK : r0) * across, nb = p->two_d ? across : (r1 - r0) * across;
	memset(b->amax, 0, nb * sizeof *b->amax);
	fpref_emu_nvfp4_band_maxima(p, x + r0 * cols, r1 - r0, cols, b->amax);
	q->a.host = true;
	bool made = scales_46(q, b->amax, nb, f->hp);
	for (size_t i = 0; !made && i < nb; i++) {
		uint32_t m = f32_is_nan(b->amax[i]) ? fpref_emu_nvfp4_nan_block_amax(q, p, x, 0, rows, cols, first + i)
						    : b->amax[i];
		f->hp[2 * i] = fpref_emu_nvfp4_block_scale_value(q, m, false);
		f->hp[2 * i + 1] = fpref_emu_nvfp4_block_scale_value(q, m, true);
	}
	q->a.host = false;
	fpref_emu_convert_array(b->scales, f->hp, f->sc, 2 * nb, NULL, 0);
	if (f->err) {
		band_46_flat(q, p, b, f, x, rows, cols, r0, nb, codes, scales);
		return;
	}
	/* both candidates' scaled values, block after block, and their codes */
	size_t at = 0;
	uint32_t xs[MAX_BLOCK];
	for (size_t i = 0; i < nb; i++) {
		size_t m = fpref_emu_nvfp4_block_members(p, rows, cols, first + i, f->idx + at);
		for (size_t k = 0; k < m; k++)
			xs[k] = x[f->idx[at + k]];
		bool nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i]], f->y + 2 * at);
		nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i + 1]], f->y + 2 * at + m) || nan;
		f->raw[i] = nan ? 0xFFFFFFFFu : b->amax[i]; /* above inf: the element path's block */
		at += m;
	}
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * at, NULL, 0);
	at = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t m = fpref_emu_nvfp4_block_members(p, rows, cols, first + i, f->idx + at), *idx = f->idx + at;
		for (size_t k = 0; k < m; k++)
			xs[k] = x[idx[k]];
		float e6 = 0, e4 = 0;
		const uint8_t *c6 = f->c + 2 * at, *c4 = c6 + m;
		at += m;
		if (f->raw[i] > F32_INF || !host_error_46(q, p, f, xs, c6, m, f->scale[f->sc[2 * i]], &e6) ||
		    !host_error_46(q, p, f, xs, c4, m, f->scale[f->sc[2 * i + 1]], &e4)) {
			element_block_46(q, p, b->amax[i], x, rows, cols, first + i, idx, m, scales, codes);
			continue;
		}
		bool four = e4 < e6; /* ties keep 6 */
		scales[first + i] = f->sc[2 * i + (four ? 1 : 0)];
		for (size_t k = 0; k < m; k++)
			codes[idx[k]] = four ? c4[k] : c6[k];
	}
}
