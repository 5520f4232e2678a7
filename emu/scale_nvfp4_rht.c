/* NVFP4 in the emulator: the random Hadamard transform in bulk, for the
 * bulk path (scale_nvfp4_bulk.c), by the host's FP32 arithmetic in the
 * element path's order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"
#include "scale_nvfp4.h"
#include "torch_nan.h"

/* The transform or its inverse in bulk: each group of 16 as
 * fpref_emu_nvfp4_hadamard (scale_nvfp4.c) makes it, by the host's FP32
 * arithmetic (each product by +-1/4 and each sum, in order of j from +0,
 * rounded once: a statement each, and no contraction, C11's default). */

/* Row j: the signs of x_j's terms, times 1/4: H16's row j (a sign bit
 * where j & k has odd parity; Sylvester's: row j + b, b a power of two
 * above j, is row j with the lanes k & b negated) on +-1/4, the sign of j
 * (inverse: of k).  Vector operations: a band's call, not 256 popcounts. */
static inline __attribute__((always_inline)) void hadamard_rows(unsigned signs, bool inverse,
								 f32x16 m[FPREF_NVFP4_BLOCK])
{
	const u32x16 zero = { 0 }, lane = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	u32x16 h[FPREF_NVFP4_BLOCK], quarter = 0x3E800000u | ((zero + signs) >> lane & 1u) << 31;
	h[0] = zero;
	for (unsigned b = 1; b < FPREF_NVFP4_BLOCK; b *= 2)
		for (unsigned j = 0; j < b; j++)
			h[j + b] = h[j] ^ (lane & b) << (31 - __builtin_ctz(b));
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++) {
		u32x16 row = h[j] ^ (inverse ? quarter : zero + (0x3E800000u | ((signs >> j) & 1u) << 31));
		memcpy(&m[j], &row, sizeof row);
	}
}

/* most: the largest magnitudes as bits so far, lane by lane, with v's. */
static inline __attribute__((always_inline)) void fold_magnitudes(u32x16 *most, const f32x16 *v)
{
	u32x16 u;
	memcpy(&u, v, sizeof u);
	for (unsigned i = 0; i < 16; i++) /* a lane's maximum: one instruction where vectorised */
		(*most)[i] = (u[i] & F32_ABS_MASK) > (*most)[i] ? u[i] & F32_ABS_MASK : (*most)[i];
}

/* A group's sums folded into most, and stored where out is given. */
static inline __attribute__((always_inline)) void hadamard_fold(u32x16 *most, uint32_t *out, const f32x16 *v)
{
	fold_magnitudes(most, v);
	if (out)
		memcpy(out, v, sizeof *v);
}

/* The largest of most's lanes. */
static inline __attribute__((always_inline)) uint32_t largest_lane(const u32x16 *most)
{
	uint32_t m = 0;
	for (unsigned k = 0; k < 16; k++)
		m = (*most)[k] > m ? (*most)[k] : m;
	return m;
}

/* Groups x[0..16), x[16..32) ... of h (1 to 4; past h, the first again):
 * four groups' sums side by side, four chains of additions; their
 * magnitudes folded into most, and where out is given, stored there (h a
 * constant where inlined: registers, not a copy). */
static inline __attribute__((always_inline)) void hadamard_four(const f32x16 m[FPREF_NVFP4_BLOCK], const uint32_t *x,
								 size_t h, u32x16 *most, uint32_t *out)
{
	const uint32_t *x0 = x, *x1 = x0 + (h > 1 ? FPREF_NVFP4_BLOCK : 0);
	const uint32_t *x2 = x0 + (h > 2 ? 2 * FPREF_NVFP4_BLOCK : 0), *x3 = x0 + (h > 3 ? 3 * FPREF_NVFP4_BLOCK : 0);
	f32x16 a0 = { 0 }, a1 = a0, a2 = a0, a3 = a0;
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++) { /* out_k for the 16 k, in lanes */
		f32x16 p0 = quant_f32(x0[j]) * m[j], p1 = quant_f32(x1[j]) * m[j];
		f32x16 p2 = quant_f32(x2[j]) * m[j], p3 = quant_f32(x3[j]) * m[j];
		a0 = a0 + p0;
		a1 = a1 + p1;
		a2 = a2 + p2;
		a3 = a3 + p3;
	}
	hadamard_fold(most, out, &a0);
	if (h > 1) /* each written out: registers, not a loop over an array in memory */
		hadamard_fold(most, out ? out + FPREF_NVFP4_BLOCK : NULL, &a1);
	if (h > 2)
		hadamard_fold(most, out ? out + 2 * FPREF_NVFP4_BLOCK : NULL, &a2);
	if (h > 3)
		hadamard_fold(most, out ? out + 3 * FPREF_NVFP4_BLOCK : NULL, &a3);
}

typedef float f32x8 __attribute__((vector_size(32)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));

/* hadamard_four at eight lanes, for a CPU without AVX-512 (quant_sixteen_lanes;
 * GCC 12 keeps hadamard_four's sixteen-lane rows and sums for AVX2 in memory,
 * inserted and extracted a lane at a time): each group's sums as two
 * halves, out_0..7 and out_8..15, the same products and sums in the same
 * order; the rows m8[j][half] read from memory as operands, two halves of
 * four groups in the sixteen registers. */
static inline __attribute__((always_inline)) void hadamard_four_eight(const f32x8 m8[FPREF_NVFP4_BLOCK][2],
								       const uint32_t *x, size_t h, u32x8 most[2],
								       uint32_t *out)
{
	f32x8 a[4][2] = { { { 0 } } };
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++)
		_Pragma("GCC unroll 4") for (unsigned g = 0; g < 4; g++)
		{
			float xj = quant_f32(x[(g < h ? g : 0) * FPREF_NVFP4_BLOCK + j]);
			for (unsigned half = 0; half < 2; half++) {
				f32x8 p = xj * m8[j][half];
				a[g][half] = a[g][half] + p;
			}
		}
	_Pragma("GCC unroll 4") for (unsigned g = 0; g < 4; g++)
	{
		if (g >= h)
			continue;
		for (unsigned half = 0; half < 2; half++) {
			u32x8 u;
			memcpy(&u, &a[g][half], sizeof u);
			u &= F32_ABS_MASK;
			for (unsigned k = 0; k < 8; k++) /* a lane's maximum: one instruction where vectorised */
				most[half][k] = u[k] > most[half][k] ? u[k] : most[half][k];
			if (out)
				memcpy(out + g * FPREF_NVFP4_BLOCK + 8 * half, &a[g][half], sizeof a[g][half]);
		}
	}
}

/* m's rows as halves of eight, for hadamard_four_eight. */
static inline __attribute__((always_inline)) void rows_in_halves(const f32x16 m[FPREF_NVFP4_BLOCK],
								  f32x8 m8[FPREF_NVFP4_BLOCK][2])
{
	for (unsigned j = 0; j < FPREF_NVFP4_BLOCK; j++)
		memcpy(m8[j], &m[j], sizeof m8[j]);
}

/* The largest of both halves' lanes. */
static inline __attribute__((always_inline)) uint32_t largest_of_halves(const u32x8 most[2])
{
	uint32_t m = 0;
	for (unsigned half = 0; half < 2; half++)
		for (unsigned k = 0; k < 8; k++)
			m = most[half][k] > m ? most[half][k] : m;
	return m;
}

/* The transform of x[0..n) into out, at eight lanes where eight (the same
 * results); whether an output is NaN (folded in, not a pass over out).  ahead: how many of x's elements follow x[n), of
 * which the first n are fetched toward the cache as x's are read, so that
 * the next band's reading from memory overlaps this band's rounding and
 * quantising (the hardware's prefetcher stops with the reads). */
QUANT_CLONES bool fpref_emu_nvfp4_hadamard_host(unsigned signs, bool inverse, const uint32_t *x, size_t n,
					       uint32_t *out, size_t ahead, bool eight)
{
	f32x16 m[FPREF_NVFP4_BLOCK];
	hadamard_rows(signs, inverse, m);
	f32x8 m8[FPREF_NVFP4_BLOCK][2];
	rows_in_halves(m, m8);
	u32x16 most = { 0 };
	u32x8 most8[2] = { { 0 } };
	size_t groups = n / FPREF_NVFP4_BLOCK, g = 0;
	for (; g + 4 <= groups; g += 4) {
		if ((g + 4) * FPREF_NVFP4_BLOCK <= ahead) /* a line of 16 each */
			for (size_t k = 0; k < 4; k++)
				__builtin_prefetch(x + n + (g + k) * FPREF_NVFP4_BLOCK, 0, 2);
		if (eight)
			hadamard_four_eight(m8, x + g * FPREF_NVFP4_BLOCK, 4, most8, out + g * FPREF_NVFP4_BLOCK);
		else
			hadamard_four(m, x + g * FPREF_NVFP4_BLOCK, 4, &most, out + g * FPREF_NVFP4_BLOCK);
	}
	if (g < groups && eight)
		hadamard_four_eight(m8, x + g * FPREF_NVFP4_BLOCK, groups - g, most8, out + g * FPREF_NVFP4_BLOCK);
	else if (g < groups)
		hadamard_four(m, x + g * FPREF_NVFP4_BLOCK, groups - g, &most, out + g * FPREF_NVFP4_BLOCK);
	return (eight ? largest_of_halves(most8) : largest_lane(&most)) > F32_INF;
}

/* The largest magnitude as bits of the forward transform's outputs for
 * x[0..n) (fpref_emu_nvfp4_hadamard_host's, not stored), or a NaN's (some
 * magnitude above inf's) once one is met.  The tensor's maxima need only this: a group
 * whose outputs cannot exceed the largest so far, M, is skipped, 16 groups
 * at a time.  Why a group is skipped safely: its products' magnitudes are
 * a_j = fl(|x_j| / 4) (RNE is odd), and a sum's |fl(s + p_j)| = fl(|s +
 * p_j|) <= fl(|s| + a_j) (RNE is monotone), so every |out_k| <= B, the
 * a_j summed from +0 in order of j, each sum rounded.  With S their exact
 * sum and u = 2^-24 (a sum is exact where it is subnormal), while no sum
 * overflows, B <= S (1 + u)^15, and C, the a_j summed in pairs (four
 * levels), >= S (1 - u)^4: B < C (1 + 2^-19).  So C <= L = fl(M (1 -
 * 2^-17)), M finite and >= 2^-100 (L then normal), gives B < M, each
 * partial sum too by the same argument on its prefix (so none rounds to
 * inf: M <= FLT_MAX), and every |out_k| < M.  A NaN or infinite x_j makes C
 * NaN or inf, above L: never skipped. */
QUANT_CLONES uint32_t fpref_emu_nvfp4_hadamard_host_max(unsigned signs, const uint32_t *x, size_t n, bool eight)
{
	enum { TILE = 16 * FPREF_NVFP4_BLOCK };
	f32x16 m[FPREF_NVFP4_BLOCK];
	hadamard_rows(signs, false, m);
	f32x8 m8[FPREF_NVFP4_BLOCK][2];
	rows_in_halves(m, m8);
	u32x16 most = { 0 };
	u32x8 most8[2] = { { 0 } };
	uint32_t limit = 0, largest = 0; /* limit: L's bits, 0 while none */
	size_t whole = n / FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK;
	for (size_t i = 0; i < whole; i += TILE) {
		size_t t = whole - i < TILE ? whole - i : TILE;
		/* the tile four ahead toward the cache, a line of 16 at a time: this pass reads the
		 * tensor from memory first, and most tiles are skipped (on a Zen 5 host the rht row
		 * 8.8-8.9e8 -> 9.5e8-1.0e9 in a scratch driver; 2 to 16 tiles ahead alike) */
		for (size_t k = 0; k < TILE && i + 4 * TILE + k < whole; k += 16)
			__builtin_prefetch(x + i + 4 * TILE + k, 0, 0);
		if (limit && t == TILE) { /* C of each of the 16 groups, its largest as bits */
			float a[TILE], b[TILE / 2];
			for (size_t k = 0; k < TILE; k++)
				a[k] = quant_f32(x[i + k] & F32_ABS_MASK) * 0.25f;
			for (size_t k = 0; k < TILE / 2; k++) /* pairs, then pairs of pairs ... */
				b[k] = a[2 * k] + a[2 * k + 1];
			for (size_t k = 0; k < TILE / 4; k++)
				a[k] = b[2 * k] + b[2 * k + 1];
			for (size_t k = 0; k < TILE / 8; k++)
				b[k] = a[2 * k] + a[2 * k + 1];
			for (size_t k = 0; k < TILE / 16; k++)
				a[k] = b[2 * k] + b[2 * k + 1];
			uint32_t c = 0;
			for (size_t k = 0; k < 16; k++) { /* each >= +0 or NaN: its bits order it */
				uint32_t v = quant_bits(a[k]);
				c = v > c ? v : c;
			}
			if (c <= limit)
				continue;
		}
		for (size_t g = 0; g < t; g += 4 * FPREF_NVFP4_BLOCK) {
			size_t h = (t - g) / FPREF_NVFP4_BLOCK < 4 ? (t - g) / FPREF_NVFP4_BLOCK : 4;
			if (eight)
				hadamard_four_eight(m8, x + i + g, h, most8, NULL);
			else
				hadamard_four(m, x + i + g, h, &most, NULL);
		}
		largest = eight ? largest_of_halves(most8) : largest_lane(&most);
		if (largest > F32_INF)
			return largest;
		limit = largest >= 0x0D800000u && largest < F32_INF ? quant_bits(quant_f32(largest) * (1.0f - 0x1p-17f))
								    : 0;
	}
	return largest;
}

/* BF16 to FP32: exact, but a NaN's (made again by fpref_emu_nvfp4_hadamard_bulk). */
QUANT_CLONES static void bf16_widen(const uint16_t *restrict b, size_t n, uint32_t *restrict out)
{
	for (size_t k = 0; k < n; k++)
		out[k] = (uint32_t)b[k] << 16;
}

/* fpref_emu_nvfp4_hadamard_host, rounded to BF16 by the converter to_bf16 where one is
 * given (FP32 to BF16, rne: the forward transform's, as asked); a group
 * whose outputs hold a NaN is the emulator's (fpref_emu_nvfp4_hadamard), whose NaNs are
 * its own. */
void fpref_emu_nvfp4_hadamard_bulk(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse,
			  const struct fpref_emu_converter *to_bf16, const uint32_t *x, size_t n, uint32_t *out,
			  size_t ahead)
{
	bool eight = !quant_sixteen_lanes(), nan = fpref_emu_nvfp4_hadamard_host((unsigned)p->rht_signs, inverse, x, n,
										 out, ahead, eight);
	uint16_t b[QUANT_CHUNK];
	for (size_t i = 0; to_bf16 && i < n; i += QUANT_CHUNK) {
		size_t m = n - i < QUANT_CHUNK ? n - i : QUANT_CHUNK;
		fpref_emu_convert_array(to_bf16, out + i, b, m, NULL, 0);
		bf16_widen(b, m, out + i);
	}
	for (size_t g = 0; nan && g + FPREF_NVFP4_BLOCK <= n; g += FPREF_NVFP4_BLOCK) {
		bool here = false;
		for (size_t k = 0; k < FPREF_NVFP4_BLOCK; k++)
			here = here || quant_is_nan(out[g + k]);
		if (here)
			fpref_emu_nvfp4_hadamard(q, p, inverse, x + g, FPREF_NVFP4_BLOCK, out + g);
	}
}
