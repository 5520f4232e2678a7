/* NVFP4 in the emulator: Four Over Six in bulk, a band at a time: both
 * candidates' FP32 scales (fpref_emu_nvfp4_block_scale_value, the host's products and
 * quotients) rounded to E4M3 by one call of the converter; each element's
 * ((x * 6) * M) / (T s_b) for both by the host and rounded to E2M1 by the
 * converter; each block's errors by the host in the element path's order
 * (fpref_emu_nvfp4_dequant_46's steps, a difference, a running sum from +0 or the largest
 * magnitude, each a statement of its own: no contraction; the dequantised
 * values from a table of every scale code and element code made once a
 * tensor by the same steps), the smaller kept; in rows of whole blocks and
 * bands of 16 whole rows of 16x16 blocks, eight blocks at a time in
 * vectors.  A block whose amax, scales, scaled values or differences hold a
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
	free(f->deq);
	free(f->hp);
	free(f->y);
	free(f->raw);
	free(f->sc);
	free(f->c);
	free(f->idx);
	free(f->xg);
	free(f->members);
}

/* Once a tensor (q->T made): 6 M, each E4M3 code's scale and each E2M1
 * code's value by the emulator, then deq, fpref_emu_nvfp4_dequant_46's
 * steps by the host for every scale code and element code (a lookup a
 * block and element, not a division). */
void fpref_emu_nvfp4_four_six_tables(const struct nvfp4 *q, struct four_six *f)
{
	f->six_m = f32_op(&q->a, FPREF_OP_MUL, F32_SIX, q->bound);
	for (unsigned c = 0; c < 256; c++)
		f->scale[c] = fpref_emu_nvfp4_e4m3_value(q, (uint8_t)c);
	for (unsigned c = 0; c < 16; c++) {
		uint64_t v = 0;
		unsigned flags = 0;
		fpref_emu_convert(&q->e2m1, c, &q->a.f32, &q->a.env, 0, &v, &flags);
		f->value[c] = (uint32_t)v;
	}
	float t = quant_f32(q->T), sm = quant_f32(f->six_m);
	for (unsigned c = 0; f->deq && c < 256; c++)
		for (unsigned k = 0; k < 16; k++) {
			float v = quant_f32(f->value[k]);
			float vs = v * quant_f32(f->scale[c]);
			float vst = vs * t;
			f->deq[16 * c + k] = vst / sm;
		}
}

typedef int32_t s32x16 __attribute__((vector_size(64)));
typedef int32_t s32x8 __attribute__((vector_size(32)));
typedef float f32x8 __attribute__((vector_size(32)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));

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

/* scaled_46 of nb whole blocks of 16 at xb for both candidates, block i's
 * into y + 32 i (6's scale, code sc[2 i]) and y + 32 i + 16 (4's): two
 * vectors of eight a block, not a call a block and candidate (eight lanes:
 * GCC 12 compares sixteen-lane vectors in its AVX2 clone a lane at a
 * time); whether a value is NaN.  ahead: as band_elements'
 * (scale_nvfp4_bulk.c). */
QUANT_CLONES static bool scaled_46_blocks(const struct nvfp4 *q, const struct four_six *f,
					  const uint32_t *restrict xb, size_t nb, size_t ahead, uint32_t *restrict y)
{
	const size_t B = FPREF_NVFP4_BLOCK;
	const float T = quant_f32(q->T), bound = quant_f32(q->bound);
	s32x8 nan = { 0 }; /* signed: a magnitude's bits are below 2^31, and AVX2 compares no unsigned words */
	for (size_t i = 0; i < nb; i++) {
		if (i * B < ahead) /* the next band's line toward the cache */
			__builtin_prefetch(xb + (nb + i) * B, 0, 2);
		f32x8 num[2];
		for (unsigned h = 0; h < 2; h++) {
			f32x8 x;
			memcpy(&x, xb + i * B + 8 * h, sizeof x);
			f32x8 x6 = x * 6.0f;
			num[h] = x6 * bound;
		}
		for (unsigned k = 0; k < 2; k++) {
			uint32_t s = f->scale[f->sc[2 * i + k]];
			float den = T * quant_f32(s);
			for (unsigned h = 0; h < 2; h++) {
				f32x8 r = { 0 };
				if (s & F32_ABS_MASK)
					r = num[h] / den;
				s32x8 bits;
				memcpy(&bits, &r, sizeof bits);
				nan |= (bits & (int32_t)F32_ABS_MASK) > (int32_t)F32_INF;
				memcpy(y + (2 * i + k) * B + 8 * h, &r, sizeof r);
			}
		}
	}
	uint32_t any = 0;
	for (unsigned k = 0; k < 8; k++)
		any |= (uint32_t)nan[k];
	return any != 0;
}

/* Both candidates' errors over a block's m elements (xs gathered; codes c6
 * and c4 under the scale codes s6 and s4), each difference
 * fpref_emu_nvfp4_dequant_46(c, s) - x (the deq table's value less x),
 * summed from +0 in order of the elements or its largest magnitude taken,
 * the two chains side by side; false where either error is NaN (a NaN
 * difference makes its chain's: a sum's NaN stays, and a NaN's magnitude as
 * bits is above every other). */
static inline __attribute__((always_inline)) bool host_errors_46_as(enum fpref_nvfp4_choice choice, const float *deq,
								     const uint32_t *restrict xs,
								     const uint8_t *restrict c6,
								     const uint8_t *restrict c4, size_t m, uint8_t s6,
								     uint8_t s4, float *e6, float *e4)
{
	const float *d6 = deq + 16 * s6, *d4 = deq + 16 * s4;
	float a6 = 0.0f, a4 = 0.0f;
	uint32_t l6 = 0, l4 = 0;
	for (size_t i = 0; i < m; i++) {
		float x = quant_f32(xs[i]);
		float t6 = d6[c6[i] & 15u] - x;
		float t4 = d4[c4[i] & 15u] - x;
		uint32_t g6 = quant_bits(t6) & F32_ABS_MASK, g4 = quant_bits(t4) & F32_ABS_MASK;
		if (choice == FPREF_NVFP4_ABS_MAX) {
			l6 = g6 > l6 ? g6 : l6;
			l4 = g4 > l4 ? g4 : l4;
			continue;
		}
		float u6, u4;
		if (choice == FPREF_NVFP4_MAE) {
			u6 = quant_f32(g6);
			u4 = quant_f32(g4);
		} else {
			u6 = t6 * t6;
			u4 = t4 * t4;
		}
		a6 = a6 + u6;
		a4 = a4 + u4;
	}
	*e6 = choice == FPREF_NVFP4_ABS_MAX ? quant_f32(l6) : a6;
	*e4 = choice == FPREF_NVFP4_ABS_MAX ? quant_f32(l4) : a4;
	return !quant_is_nan(quant_bits(*e6)) && !quant_is_nan(quant_bits(*e4));
}

/* host_errors_46_as with the choice a constant in each. */
QUANT_CLONES static bool host_errors_46(enum fpref_nvfp4_choice choice, const float *deq, const uint32_t *xs,
					const uint8_t *c6, const uint8_t *c4, size_t m, uint8_t s6, uint8_t s4, float *e6,
					float *e4)
{
	if (choice == FPREF_NVFP4_ABS_MAX)
		return host_errors_46_as(FPREF_NVFP4_ABS_MAX, deq, xs, c6, c4, m, s6, s4, e6, e4);
	if (choice == FPREF_NVFP4_MAE)
		return host_errors_46_as(FPREF_NVFP4_MAE, deq, xs, c6, c4, m, s6, s4, e6, e4);
	return host_errors_46_as(FPREF_NVFP4_MSE, deq, xs, c6, c4, m, s6, s4, e6, e4);
}

/* differences_46 of one block of 16 into *diff, element k in lane k;
 * quad: the codes of four blocks as 16 words, this block's the words
 * 4 part to 4 part + 3 (its bytes in order).  GCC, little-endian
 * (element k's code the byte k % 4 of word k / 4): the words spread over
 * the lanes by one permutation and shifted, and the block's 16 dequantised
 * values permuted by the codes' low four bits (a permutation reads no
 * more), where GCC 12 would widen 16 bytes to 16 words one at a time. */
static inline __attribute__((always_inline)) void differences_46_block(const float *deq, const uint32_t *restrict xs,
								       const u32x16 *quad, unsigned part, f32x16 *diff)
{
	f32x16 v = { 0 }, x;
#if defined(__GNUC__) && !defined(__clang__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const u32x16 byte_shift = { 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24 };
	u32x16 spread;
	f32x16 table;
	switch (part) { /* the word of lane k: 4 part + k / 4 */
	case 0:
		spread = __builtin_shufflevector(*quad, *quad, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
		break;
	case 1:
		spread = __builtin_shufflevector(*quad, *quad, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
		break;
	case 2:
		spread = __builtin_shufflevector(*quad, *quad, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11);
		break;
	default:
		spread = __builtin_shufflevector(*quad, *quad, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15,
						 15, 15);
		break;
	}
	memcpy(&table, deq, sizeof table);
	v = __builtin_shuffle(table, spread >> byte_shift);
#else
	const uint8_t *code = (const uint8_t *)quad + 16 * part;
	for (unsigned k = 0; k < FPREF_NVFP4_BLOCK; k++)
		v[k] = deq[code[k] & 15u];
#endif
	memcpy(&x, xs, sizeof x);
	*diff = v - x;
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

typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));

/* Blocks 2 t and 2 t + 1 of a group (their chains' codes of a row,
 * quads[t]): each one's 16 codes of the candidate that four (lanes 4 t and
 * 4 t + 2) picks, to cb. */
#define PICK_46(t)                                                                                            \
	do {                                                                                                  \
		u32x8 six_ = __builtin_shufflevector(quads[t], quads[t], 0, 1, 2, 3, 8, 9, 10, 11);           \
		u32x8 four_ = __builtin_shufflevector(quads[t], quads[t], 4, 5, 6, 7, 12, 13, 14, 15);        \
		u32x8 m_ = __builtin_shufflevector(pick, pick, 4 * (t), 4 * (t), 4 * (t), 4 * (t), 4 * (t) + 2, \
						   4 * (t) + 2, 4 * (t) + 2, 4 * (t) + 2);                    \
		u32x8 r_ = (four_ & m_) | (six_ & ~m_);                                                       \
		memcpy(cb + 32 * (t), &r_, sizeof r_);                                                        \
	} while (0)


/* Errors of chains 2i (6's) and 2i + 1 (4's) of eight blocks from block g0
 * of the band (chains past `chains` zero): for each row of the blocks in
 * turn, each chain's differences in a register, transposed so that element
 * k of every chain shares a register, then host_errors_46's sums and maxima
 * in order of the elements, sixteen chains in the lanes of a vector.  A NaN
 * difference makes the error NaN: a sum's NaN stays, and a NaN's magnitude
 * as bits is above every other.  With all sixteen chains, each block's
 * codes and scale code (to sb) are then its candidate's of the smaller
 * error, ties keeping 6's, and the result has a bit for each block the
 * caller must make again (a NaN error, or raw above inf); with fewer, the
 * errors go to err and every block is the caller's. */
static inline __attribute__((always_inline)) unsigned group_46_as(const struct four_six *f,
								   enum fpref_nvfp4_choice choice, size_t rows,
								   const struct band_46 *w, size_t g0, size_t chains,
								   const uint8_t *sc, const uint32_t *raw, uint8_t *sb,
								   float *err)
{
	const size_t B = FPREF_NVFP4_BLOCK;
	f32x16 acc = { 0 };
	u32x16 largest = { 0 };
	for (size_t r = 0; r < rows; r++) {
		f32x16 d[16];
		u32x16 quads[4]; /* the codes of chains 4i to 4i + 3 (f->c has room for 16 chains past the last) */
		memcpy(quads, w->c + B * (2 * w->nb * r + 2 * g0), sizeof quads);
		const uint32_t *xr = w->x + r * w->stride + g0 * B;
		_Pragma("GCC unroll 16") for (unsigned j = 0; j < 16; j++)
		{
			d[j] = (f32x16){ 0 };
			if (j < chains)
				differences_46_block(f->deq + 16 * sc[j], xr + j / 2 * B, &quads[j / 4], j % 4, &d[j]);
		}
		T46_STEP(d, 1)
		T46_STEP(d, 2)
		T46_STEP(d, 4)
		T46_STEP(d, 8)
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
	}
	f32x16 e;
	if (choice == FPREF_NVFP4_ABS_MAX)
		memcpy(&e, &largest, sizeof e);
	else
		e = acc;
	if (chains < 16) {
		for (unsigned j = 0; j < chains; j++)
			err[j] = e[j];
		return (1u << (chains + 1) / 2) - 1;
	}
	f32x16 e6 = __builtin_shufflevector(e, e, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14);
	f32x16 e4 = __builtin_shufflevector(e, e, 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15);
	s32x16 four = e4 < e6, nan = e != e; /* lanes 2 i and 2 i + 1: block i's */
	u32x16 pick;
	memcpy(&pick, &four, sizeof pick);
	for (size_t r = 0; r < rows; r++) {
		u32x16 quads[4];
		memcpy(quads, w->c + B * (2 * w->nb * r + 2 * g0), sizeof quads);
		uint8_t *cb = w->codes + r * w->stride + g0 * B;
		PICK_46(0);
		PICK_46(1);
		PICK_46(2);
		PICK_46(3);
	}
	/* each block's scale code by one byte shuffle, and whether any block
	 * is the caller's by two words (lanes one at a time, an extraction
	 * each, were a quarter of the group's instructions) */
#if defined(__GNUC__) && !defined(__clang__)
	u8x16 scv, four_lanes = __builtin_convertvector(pick & 1u, u8x16);
	memcpy(&scv, sc, sizeof scv);
	u8x16 at = __builtin_shufflevector(four_lanes, four_lanes, 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14) +
		   (u8x16){ 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14 };
	u8x16 picked = __builtin_shuffle(scv, at);
	memcpy(sb, &picked, 8);
#else
	for (unsigned i = 0; i < 8; i++)
		sb[i] = sc[2 * i + (pick[2 * i] & 1u)];
#endif
	u32x8 rawv;
	memcpy(&rawv, raw, sizeof rawv);
	u8x16 bad = __builtin_convertvector((u32x16)nan & 1u, u8x16);
	u8x8 over = __builtin_convertvector((u32x8)(rawv > F32_INF) & 1u, u8x8);
	uint64_t words[2], o;
	memcpy(words, &bad, sizeof words);
	memcpy(&o, &over, sizeof o);
	if ((words[0] | words[1] | o) == 0)
		return 0;
	unsigned again = 0;
	for (unsigned i = 0; i < 8; i++)
		again |= (unsigned)((nan[2 * i] | nan[2 * i + 1]) != 0 || raw[i] > F32_INF) << i;
	return again;
}

/* AS(f, choice, rows, ...) with the choice and the rows (1 or 16) a
 * constant in each call. */
#define GROUP_46_CONSTANTS(AS)                                                                                   \
	do {                                                                                                         \
		if (w->rows == 1) {                                                                                  \
			if (choice == FPREF_NVFP4_ABS_MAX)                                                           \
				return AS(f, FPREF_NVFP4_ABS_MAX, 1, w, g0, chains, sc, raw, sb, err);               \
			if (choice == FPREF_NVFP4_MAE)                                                               \
				return AS(f, FPREF_NVFP4_MAE, 1, w, g0, chains, sc, raw, sb, err);                   \
			return AS(f, FPREF_NVFP4_MSE, 1, w, g0, chains, sc, raw, sb, err);                           \
		}                                                                                                    \
		if (choice == FPREF_NVFP4_ABS_MAX)                                                                   \
			return AS(f, FPREF_NVFP4_ABS_MAX, FPREF_NVFP4_BLOCK, w, g0, chains, sc, raw, sb, err);       \
		if (choice == FPREF_NVFP4_MAE)                                                                       \
			return AS(f, FPREF_NVFP4_MAE, FPREF_NVFP4_BLOCK, w, g0, chains, sc, raw, sb, err);           \
		return AS(f, FPREF_NVFP4_MSE, FPREF_NVFP4_BLOCK, w, g0, chains, sc, raw, sb, err);                   \
	} while (0)

/* group_46_as with the choice and the rows a constant in each. */
QUANT_CLONES unsigned fpref_emu_nvfp4_group_46(const struct four_six *f, enum fpref_nvfp4_choice choice,
					      const struct band_46 *w, size_t g0, size_t chains, const uint8_t *sc,
					      const uint32_t *raw, uint8_t *sb, float *err)
{
	GROUP_46_CONSTANTS(group_46_as);
}

/* An 8 x 8 transpose of r in registers, by the shuffles AVX has one
 * instruction for (unpacks, then shufps, then vperm2f128): column k of
 * the rows to r[k]. */
static inline __attribute__((always_inline)) void transpose_8(f32x8 r[8])
{
	f32x8 t[8], u[8];
	for (unsigned i = 0; i < 8; i += 2) {
		t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
		t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
	}
	for (unsigned i = 0; i < 8; i += 4)
		for (unsigned h = 0; h < 2; h++) {
			u[i + 2 * h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
			u[i + 2 * h + 1] = __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
		}
	for (unsigned k = 0; k < 4; k++) {
		r[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
		r[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
	}
}

/* group_46_as at eight lanes, for a CPU without AVX-512 (GCC 12 lowers
 * group_46's sixteen-lane permutations for AVX2 a lane at a time, some
 * 1500 inserts and extracts): the same sums in the same order, chains 0 to
 * 7 and then 8 to 15, each chain's differences as two halves of eight
 * elements, transposed in two 8 x 8 steps; the choice and the codes then
 * block by block. */
static inline __attribute__((always_inline)) unsigned group_46_eight_as(const struct four_six *f,
									 enum fpref_nvfp4_choice choice, size_t rows,
									 const struct band_46 *w, size_t g0, size_t chains,
									 const uint8_t *sc, const uint32_t *raw,
									 uint8_t *sb, float *err)
{
	const size_t B = FPREF_NVFP4_BLOCK;
	float e[16];
	for (unsigned half = 0; half < 2; half++) {
		f32x8 acc = { 0 };
		u32x8 largest = { 0 };
		for (size_t r = 0; r < rows; r++) {
			f32x8 d[2][8]; /* d[h][j]: chain 8 half + j's elements 8 h to 8 h + 7 */
			const uint8_t *cr = w->c + B * (2 * w->nb * r + 2 * g0);
			const uint32_t *xr = w->x + r * w->stride + g0 * B;
			_Pragma("GCC unroll 8") for (unsigned j = 0; j < 8; j++)
			{
				unsigned chain = 8 * half + j;
				d[0][j] = d[1][j] = (f32x8){ 0 };
				if (chain >= chains)
					continue;
				f32x8 lo, hi, x;
				memcpy(&lo, f->deq + 16 * sc[chain], sizeof lo);
				memcpy(&hi, f->deq + 16 * sc[chain] + 8, sizeof hi);
				for (unsigned h = 0; h < 2; h++) {
					uint8_t code[8];
					memcpy(code, cr + B * chain + 8 * h, sizeof code);
					u32x8 at = { code[0], code[1], code[2], code[3], code[4], code[5], code[6], code[7] };
					memcpy(&x, xr + chain / 2 * B + 8 * h, sizeof x);
#if defined(__GNUC__) && !defined(__clang__)
					f32x8 v = __builtin_shuffle(lo, hi, at & 15u);
#else
					f32x8 v = { 0 };
					for (unsigned k = 0; k < 8; k++)
						v[k] = (at[k] & 8u) ? hi[at[k] & 7u] : lo[at[k] & 7u];
#endif
					d[h][j] = v - x;
				}
			}
			transpose_8(d[0]);
			transpose_8(d[1]);
			_Pragma("GCC unroll 16") for (unsigned k = 0; k < 16; k++)
			{
				const f32x8 *t = &d[k / 8][k % 8];
				u32x8 mag;
				memcpy(&mag, t, sizeof mag);
				mag &= F32_ABS_MASK;
				if (choice == FPREF_NVFP4_ABS_MAX) {
					for (unsigned j = 0; j < 8; j++)
						largest[j] = mag[j] > largest[j] ? mag[j] : largest[j];
					continue;
				}
				f32x8 term;
				if (choice == FPREF_NVFP4_MAE)
					memcpy(&term, &mag, sizeof term);
				else
					term = *t * *t;
				acc = acc + term;
			}
		}
		if (choice == FPREF_NVFP4_ABS_MAX)
			memcpy(e + 8 * half, &largest, sizeof largest);
		else
			memcpy(e + 8 * half, &acc, sizeof acc);
	}
	if (chains < 16) {
		for (unsigned j = 0; j < chains; j++)
			err[j] = e[j];
		return (1u << (chains + 1) / 2) - 1;
	}
	unsigned again = 0;
	for (unsigned i = 0; i < 8; i++) {
		unsigned four = e[2 * i + 1] < e[2 * i + 0]; /* ties keep 6 */
		sb[i] = sc[2 * i + four];
		again |= (unsigned)(e[2 * i] != e[2 * i] || e[2 * i + 1] != e[2 * i + 1] || raw[i] > F32_INF) << i;
		for (size_t r = 0; r < rows; r++)
			memcpy(w->codes + r * w->stride + (g0 + i) * B, w->c + B * (2 * w->nb * r + 2 * g0 + 2 * i + four),
			       B);
	}
	return again;
}

/* group_46_eight_as with the choice and the rows a constant in each. */
QUANT_CLONES unsigned fpref_emu_nvfp4_group_46_eight(const struct four_six *f, enum fpref_nvfp4_choice choice,
						    const struct band_46 *w, size_t g0, size_t chains,
						    const uint8_t *sc, const uint32_t *raw, uint8_t *sb, float *err)
{
	GROUP_46_CONSTANTS(group_46_eight_as);
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

/* band_46 for rows of whole blocks of 16 (1x16), or a band of 16 whole
 * rows of 16x16 blocks (rows 16): each block's rows side by side in x,
 * no gathering; the same steps, a row of every block at a time. */
static void band_46_rows(struct nvfp4 *q, const struct fpref_nvfp4_params *p, const struct nvfp4_bulk *b,
			 struct four_six *f, const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t nb,
			 size_t brows, uint8_t *codes, uint8_t *scales)
{
	const size_t B = FPREF_NVFP4_BLOCK, first = (p->two_d ? r0 / B : r0) * cols / B;
	const struct band_46 w = { x + r0 * cols, f->c, codes + r0 * cols, nb, brows, cols };
	bool nan = false;
	for (size_t r = 0; r < brows; r++)
		nan = scaled_46_blocks(q, f, w.x + r * cols, nb, r + 1 == brows ? b->ahead : 0, f->y + r * 2 * nb * B) ||
		      nan;
	memcpy(f->raw, b->amax, nb * sizeof *f->raw);
	for (size_t i = 0; nan && i < nb; i++) /* above inf: the element path's block */
		for (size_t r = 0; r < brows; r++)
			for (size_t k = 0; k < 2 * B; k++)
				f->raw[i] = quant_is_nan(f->y[(r * 2 * nb + 2 * i) * B + k]) ? 0xFFFFFFFFu : f->raw[i];
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * nb * B * brows, NULL, 0);
	for (size_t j = 0; j < 2 * nb; j += 16) { /* sixteen chains: eight blocks' two candidates */
		size_t g = j / 2; /* the group's first block */
		size_t chains = 2 * nb - j < 16 ? 2 * nb - j : 16;
		unsigned again = f->eight_lanes ? fpref_emu_nvfp4_group_46_eight(f, p->choice, &w, g, chains, f->sc + j,
										  f->raw + g, scales + first + g, f->err + j)
						: fpref_emu_nvfp4_group_46(f, p->choice, &w, g, chains, f->sc + j, f->raw + g,
									   scales + first + g, f->err + j);
		for (size_t i = g; again; i++, again >>= 1) {
			if (!(again & 1u))
				continue;
			float e6 = f->err[2 * i], e4 = f->err[2 * i + 1];
			if (2 * nb - j >= 16 || f->raw[i] > F32_INF || quant_is_nan(quant_bits(e6)) ||
			    quant_is_nan(quant_bits(e4))) {
				size_t idx[MAX_BLOCK], m = fpref_emu_nvfp4_block_members(p, rows, cols, first + i, idx);
				element_block_46(q, p, b->amax[i], x, rows, cols, first + i, idx, m, scales, codes);
				continue;
			}
			size_t chain = 2 * i + (e4 < e6 ? 1 : 0); /* ties keep 6 */
			scales[first + i] = f->sc[chain];
			for (size_t r = 0; r < brows; r++)
				memcpy(w.codes + r * cols + i * B, f->c + (2 * nb * r + chain) * B, B);
		}
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
	if (f->err && (!p->two_d || r1 - r0 == FPREF_NVFP4_BLOCK)) {
		band_46_rows(q, p, b, f, x, rows, cols, r0, nb, p->two_d ? FPREF_NVFP4_BLOCK : 1, codes, scales);
		return;
	}
	/* both candidates' scaled values, block after block, and their codes;
	 * each block's members and gathered values kept for its errors */
	size_t at = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t m = fpref_emu_nvfp4_block_members(p, rows, cols, first + i, f->idx + at);
		uint32_t *xs = f->xg + at;
		for (size_t k = 0; k < m; k++)
			xs[k] = x[f->idx[at + k]];
		bool nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i]], f->y + 2 * at);
		nan = scaled_46(q, xs, m, f->scale[f->sc[2 * i + 1]], f->y + 2 * at + m) || nan;
		f->raw[i] = nan ? 0xFFFFFFFFu : b->amax[i]; /* above inf: the element path's block */
		f->members[i] = m;
		at += m;
	}
	fpref_emu_convert_array(b->sink->c, f->y, f->c, 2 * at, NULL, 0);
	at = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t m = f->members[i], *idx = f->idx + at;
		const uint32_t *xs = f->xg + at;
		float e6 = 0, e4 = 0;
		const uint8_t *c6 = f->c + 2 * at, *c4 = c6 + m;
		at += m;
		if (f->raw[i] > F32_INF ||
		    !host_errors_46(p->choice, f->deq, xs, c6, c4, m, f->sc[2 * i], f->sc[2 * i + 1], &e6, &e4)) {
			element_block_46(q, p, b->amax[i], x, rows, cols, first + i, idx, m, scales, codes);
			continue;
		}
		bool four = e4 < e6; /* ties keep 6 */
		scales[first + i] = f->sc[2 * i + (four ? 1 : 0)];
		for (size_t k = 0; k < m; k++)
			codes[idx[k]] = four ? c4[k] : c6[k];
	}
}
