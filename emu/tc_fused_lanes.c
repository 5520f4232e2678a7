/* The fused groups' fast path (CDNA1's f16 and bf16 rows, tc_fused.c's
 * word array the reference): a group of FP16 or BF16 products and an FP32
 * accumulator summed on the host FPU in binary64, sixteen GEMM columns at
 * a time or one group of a dot product, and rounded once to FP32.  Why it
 * gives the word array's bits:
 *  - every FP16 and BF16 value is a double; a product of two has at most
 *    22 significant bits (FP16: 11 x 11; BF16: 8 x 8) and a magnitude in
 *    [2^-266, 2^256]: an exact, normal double.  The FP32 C is a double;
 *  - the products are added in order and each addition's error recovered
 *    by TwoSum: a lane whose partial sums are not all exact goes to the
 *    word array (so does every NaN or inf operand or C: its error, or the
 *    final sum, is NaN or inf).  The sum S of the products is then exact;
 *  - S + C by TwoSum: t = S + C rounded to nearest and its exact error e,
 *    so t + e is the exact group sum; to_odd makes it the exact sum
 *    rounded to odd at 53 bits (a nonzero exact sum is a multiple of the
 *    least term's last place, >= 2^-300, and below 2^258: far from
 *    double's subnormals and overflow, where rounding to odd would fail);
 *  - that double converted to FP32 by the FPU (nearest even) is the exact
 *    sum rounded once to FP32, 24 + 2 <= 53 (op_lanes.c's argument: the
 *    odd bit stands for the discarded rest), FP32 subnormals and overflow
 *    to inf included;
 *  - an exact zero: IEEE's sum under nearest is -0 only when every addend
 *    is -0, partial sums included; a product's zero carries the operands'
 *    signs' exclusive or; so the sum is -0 exactly when every product and
 *    C are -0, tc_fused.c's rule.
 * That holds only while the FPU rounds to nearest without flushing
 * subnormals (fpref_emu_quant_fpu_plain, op_lanes.c's check, read by
 * each call): otherwise every group goes to the word array. */
#include <stdlib.h>
#include <string.h>

#include "host_fpu.h"
#include "quant_lanes.h"
#include "tc_internal.h"
#include "tc_tile.h"

static bool takes(const struct fpref_format *f)
{
	return fpref_format_is(f, FPREF_FORMAT_FLOAT16) || fpref_format_is(f, FPREF_FORMAT_BFLOAT16);
}

/* An FP16 or BF16 pattern's value (NaN and inf as themselves). */
static double value_of(bool half, uint64_t bits)
{
	uint32_t h = (uint32_t)bits & 0xFFFF, f32;
	if (!half) {
		f32 = h << 16; /* BF16 is FP32's upper half */
	} else {
		uint32_t e = (h >> 10) & 31, m = h & 0x3FF, sign = (h >> 15) << 31;
		if (e == 0) { /* a subnormal (or zero): m 2^-24, exact */
			double v = (double)m * 0x1p-24;
			return sign ? -v : v;
		}
		f32 = sign | (e == 31 ? 0x7F800000 | m << 13 : (e + 112) << 23 | m << 13);
	}
	return (double)quant_f32(f32);
}

/* out[j] = bits of c[j] plus the len products a[q] * b[q * ld + j],
 * rounded once to FP32, for the lanes j < width; bad[j] where the lane
 * is the word array's to decide (out[j] then meaningless). */
static inline __attribute__((always_inline)) void group_body(const double *a, const double *b, size_t ld, size_t len,
							   const float *c, float *out, uint8_t *bad, size_t width)
{
	double s[TILE];
	uint8_t miss[TILE];
	for (size_t j = 0; j < width; j++) {
		s[j] = a[0] * b[j];
		miss[j] = 0;
	}
	for (size_t q = 1; q < len; q++)
		for (size_t j = 0; j < width; j++) {
			double p = a[q] * b[q * ld + j], t = s[j] + p, pp = t - s[j];
			double e = (s[j] - (t - pp)) + (p - pp); /* TwoSum */
			miss[j] |= (uint8_t)(e != 0);    /* NaN too */
			s[j] = t;
		}
	for (size_t j = 0; j < width; j++) {
		double x = c[j], t = s[j] + x, xx = t - s[j];
		double e = (s[j] - (t - xx)) + (x - xx);
		bad[j] = (uint8_t)(miss[j] | !(t - t == 0)); /* t NaN or inf: so was an operand */
		out[j] = (float)to_odd(t, e != 0, e > 0);
	}
}

/* TILE columns' chains from group k0 on (a: row i's values; b: the
 * columns' values, TILE of each k): c advanced group by group until one
 * whose bad lanes are left to the caller, whose k0 it returns (K: none);
 * c holds that group's results in its other lanes. */
HOST_FPU_CLONES static size_t chain_lanes(const double *a, const double *b, size_t k0, size_t K, size_t n,
					     float *c, uint8_t *bad)
{
	for (; k0 < K; k0 += n) {
		size_t len = K - k0 < n ? K - k0 : n;
		float out[TILE];
		group_body(a + k0, b + k0 * TILE, TILE, len, c, out, bad, TILE);
		uint8_t any = 0;
		for (size_t j = 0; j < TILE; j++) {
			any |= bad[j];
			c[j] = bad[j] ? c[j] : out[j];
		}
		if (any)
			return k0;
	}
	return K;
}

/* D's row i in columns t .. t + width - 1 (a: row i's values; b: the
 * tile's, TILE of each k), the groups the lanes leave to the word array
 * from the decoded operands. */
static void row_tile(const struct gemm_job *g, const double *a, const double *b, size_t i, size_t t, size_t width)
{
	size_t N = g->N, K = g->K, n = (size_t)g->p->block;
	float c[TILE] = { 0 };
	uint8_t bad[TILE];
	for (size_t j = 0; g->C && j < width; j++)
		c[j] = quant_f32((uint32_t)g->C[i * N + t + j]);
	for (size_t k0 = 0; (k0 = chain_lanes(a, b, k0, K, n, c, bad)) < K; k0 += n) {
		size_t len = K - k0 < n ? K - k0 : n;
		for (size_t j = 0; j < width; j++) {
			if (!bad[j])
				continue;
			uint32_t bits;
			memcpy(&bits, &c[j], sizeof bits);
			struct operands x = operands_at(&g->a, i * K + k0), y = operands_at(&g->b, (t + j) * K + k0);
			bits = (uint32_t)fpref_emu_tc_fused_group(g->p, &x, &y, len, bits);
			memcpy(&c[j], &bits, sizeof bits);
		}
	}
	for (size_t j = 0; j < width; j++) {
		uint32_t bits;
		memcpy(&bits, &c[j], sizeof bits);
		g->D[i * N + t + j] = bits;
	}
}

/* A's rows converted ROWS at a time (each block then meets every tile of
 * B, which is converted once: memory about B's columns', not A's). */
enum { ROWS = 64 };

int fpref_emu_tc_fused_columns(const struct gemm_job *g, size_t j0, size_t j1)
{
	size_t M = g->M, N = g->N, K = g->K, tiles = (j1 - j0 + TILE - 1) / TILE;
	if (!takes(g->in_a) || !takes(g->in_b) || !fpref_emu_quant_fpu_plain())
		return 1;
	bool half_a = fpref_format_is(g->in_a, FPREF_FORMAT_FLOAT16), half_b = fpref_format_is(g->in_b, FPREF_FORMAT_FLOAT16);
	double *db = malloc((tiles * TILE + ROWS) * K * sizeof *db + 1);
	if (!db)
		return -1;
	double *da = db + tiles * TILE * K;
	for (size_t q = 0; q < tiles; q++)
		for (size_t k = 0; k < K; k++)
			for (size_t j = 0, col = j0 + q * TILE; j < TILE; j++) /* padding lanes: zero products */
				db[(q * K + k) * TILE + j] = col + j < j1 ? value_of(half_b, g->B[k * N + col + j]) : 0;
	for (size_t i0 = 0; i0 < M; i0 += ROWS) {
		size_t rows = M - i0 < ROWS ? M - i0 : ROWS;
		for (size_t i = 0; i < rows * K; i++)
			da[i] = value_of(half_a, g->A[i0 * K + i]);
		for (size_t q = 0; q < tiles; q++) {
			size_t t = j0 + q * TILE, width = j1 - t < TILE ? j1 - t : TILE;
			for (size_t i = 0; i < rows; i++)
				row_tile(g, da + i * K, db + q * K * TILE, i0 + i, t, width);
		}
	}
	free(db);
	return 0;
}

int fpref_emu_tc_fused_fast_step(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
				 const uint64_t *b, size_t bstride, size_t len, uint64_t *acc)
{
	if (!takes(in_a) || !takes(in_b) || len == 0 || len > FPREF_TC_MAX_BLOCK || !fpref_emu_quant_fpu_plain())
		return 1;
	bool half_a = fpref_format_is(in_a, FPREF_FORMAT_FLOAT16), half_b = fpref_format_is(in_b, FPREF_FORMAT_FLOAT16);
	double x[FPREF_TC_MAX_BLOCK], y[FPREF_TC_MAX_BLOCK];
	uint64_t wide = *acc >> 32; /* a pattern wider than its format: the word array refuses it */
	for (size_t i = 0; i < len; i++)
		wide |= (a[i] | b[i * bstride]) >> 16;
	if (wide)
		return 1;
	for (size_t i = 0; i < len; i++) {
		x[i] = value_of(half_a, a[i]);
		y[i] = value_of(half_b, b[i * bstride]);
	}
	float c = quant_f32((uint32_t)*acc), out;
	uint8_t bad;
	group_body(x, y, 1, len, &c, &out, &bad, 1);
	if (bad)
		return 1;
	uint32_t bits;
	memcpy(&bits, &out, sizeof bits);
	*acc = bits;
	return 0;
}
