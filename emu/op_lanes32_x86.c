/* The FP32 route's x86 steps (emu/op_lanes32.c says what they compute
 * and why): intrinsics behind the context's instruction set, F16C's
 * conversions, AVX-512's rounding in the instruction, its masked stores.
 * Each is compiled for its own target; the caller checks the CPU. */
#if defined(__GNUC__) && defined(__x86_64__)
#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "op_lanes32_x86.h"

/* q[j] = sqrt(u[j]), j < n (-0 for -0; NaN below, for the core): by the instruction where the CPU has a
 * vector one (GCC keeps sqrtf scalar while it may set errno, and the
 * clones' no-math-errno does not reach it) */
__attribute__((target("avx512f"))) void fpref_emu_op32_roots_avx512(const float *u, float *q, size_t n)
{
	size_t j = 0;
	for (; j + 16 <= n; j += 16)
		_mm512_storeu_ps(q + j, _mm512_sqrt_ps(_mm512_loadu_ps(u + j)));
	for (; j < n; j++)
		q[j] = sqrtf(u[j]);
}

__attribute__((target("avx"))) void fpref_emu_op32_roots_avx(const float *u, float *q, size_t n)
{
	size_t j = 0;
	for (; j + 8 <= n; j += 8)
		_mm256_storeu_ps(q + j, _mm256_sqrt_ps(_mm256_loadu_ps(u + j)));
	for (; j < n; j++)
		q[j] = sqrtf(u[j]);
}

/* FP16 to FP32 by F16C, exact */
__attribute__((target("avx512f,f16c"))) void fpref_emu_op32_halves_avx512(const uint16_t *a, size_t n, float *y)
{
	size_t j = 0;
	for (; j + 16 <= n; j += 16)
		_mm512_storeu_ps(y + j, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(a + j))));
	for (; j < n; j++)
		y[j] = _cvtsh_ss(a[j]);
}

__attribute__((target("avx,f16c"))) void fpref_emu_op32_halves_f16c(const uint16_t *a, size_t n, float *y)
{
	size_t j = 0;
	for (; j + 8 <= n; j += 8)
		_mm256_storeu_ps(y + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(a + j))));
	for (; j < n; j++)
		y[j] = _cvtsh_ss(a[j]);
}

/* FP16 to FP32 by F16C in one pass with the marks of NaN and inf */
__attribute__((target("avx512f,avx512bw,avx512vl,f16c"))) void fpref_emu_op32_binary16_avx512(const uint16_t *a, size_t n,
										      float *y, uint8_t *special)
{
	const __m256i field = _mm256_set1_epi16(0x7C00);
	size_t j = 0;
	for (; j + 16 <= n; j += 16) {
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(a + j));
		_mm512_storeu_ps(y + j, _mm512_cvtph_ps(h));
		for (unsigned t = _mm256_cmpeq_epi16_mask(_mm256_and_si256(h, field), field); t; t &= t - 1)
			special[j + (unsigned)__builtin_ctz(t)] = 1;
	}
	for (; j < n; j++) {
		y[j] = _cvtsh_ss(a[j]);
		special[j] |= (uint8_t)((a[j] & 0x7C00) == 0x7C00);
	}
}

/* Sixteen 16-bit elements or bytes from p, the lanes off m zero: a plain
 * load where the step is whole, the masked one only at an array's end.
 * Masked loads do not lead the hardware's prefetcher on the Zen 5 host:
 * with them in every step BF16 div ran at 9.4e8 elements/s, 1.7e9 with
 * plain ones (mul 1.2e9 -> 1.9e9, add 1.4e9 -> 3.1e9). */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl"))) __m256i
load_halves(const uint16_t *p, __mmask16 m)
{
	return m == 0xFFFF ? _mm256_loadu_si256((const __m256i *)(const void *)p) : _mm256_maskz_loadu_epi16(m, p);
}

static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl"))) __m128i
load_bytes(const uint8_t *p, __mmask16 m)
{
	return m == 0xFFFF ? _mm_loadu_si128((const __m128i *)(const void *)p) : _mm_maskz_loadu_epi8(m, p);
}

/* AVX-512's rounding in the instruction: op's result rounded toward
 * zero, its last bit set where the results rounded down and up differ
 * (the exact value is not representable): rounded to odd at FP32's
 * precision, on its subnormal grid too, without TwoSum, remainders or
 * exact products.  Toward zero is the one of the two whose sign is the
 * exact value's (down where down is not negative, else up: an exact zero
 * sum, -0 rounded down, takes up's +0 as toward zero does), so each
 * element costs two roundings, not three.  rare[] gets the elements for
 * the core as in run; w (where not NULL) those beyond FP32's range and
 * below its normals (struct wide_out), whose y is then 0.  (For FP16 and
 * the bytes, faster than run for fma only: three divisions or roots cost
 * more than one and a remainder.) */
#define R_DN (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define R_UP (_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define R_ZERO (_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define TWO(OP)                                                                                                   \
	do {                                                                                                     \
		dn = OP(R_DN);                                                                                   \
		up = OP(R_UP);                                                                                   \
	} while (0)
#define ADD(R) _mm512_add_round_ps(a, b, R)
#define SUB(R) _mm512_sub_round_ps(a, b, R)
#define MUL(R) _mm512_mul_round_ps(a, b, R)
#define DIV(R) _mm512_div_round_ps(a, b, R)
#define SQRT(R) _mm512_sqrt_round_ps(a, R)
#define FMA(R) _mm512_fmadd_round_ps(a, b, c, R)

/* A value of binade 2^t (t below -126) from its FP32 bits at another
 * exponent (those of sig_bits' significand, the sign kept): rounded to
 * odd on FP32's subnormal grid, 2^-149, as the FP32 bits of a subnormal
 * (2^-149 itself for every value below it).  16 places below BF16's least
 * subnormal, where 2 suffice, so that the conversion lanes round it as the
 * value (they take FP32's subnormals themselves: BF16's bias is FP32's);
 * an integer step, no instruction rounding below FP32's normals (see
 * mul_step) */
static inline __attribute__((always_inline, target("avx512f"))) __m512i subnormal_odd(__m512i sig_bits, __m512i t)
{
	const __m512i man = _mm512_set1_epi32(0x7FFFFF), implicit = _mm512_set1_epi32(0x800000);
	__m512i sig = _mm512_or_si512(_mm512_and_si512(sig_bits, man), implicit);
	__m512i shift = _mm512_sub_epi32(_mm512_set1_epi32(-126), t); /* 1 and up; 32 and up shift all out */
	__m512i k = _mm512_srlv_epi32(sig, shift);
	__mmask16 sticky = _mm512_cmpneq_epi32_mask(_mm512_sllv_epi32(k, shift), sig);
	k = _mm512_mask_or_epi32(k, sticky, k, _mm512_set1_epi32(1));
	return _mm512_or_si512(k, _mm512_and_si512(sig_bits, _mm512_set1_epi32((int)0x80000000)));
}

/* Sixteen elements from j (lanes m) of operands a, b, c (b and c zero
 * where the op has none): their results into y and w as above; the mask
 * of elements for the core */
static inline __attribute__((always_inline, target("avx512f,avx512dq"))) __mmask16
odd_step(enum fpref_op op, bool rdn, __m512 a, __m512 b, __m512 c, __mmask16 m, __mmask16 r, size_t j, uint32_t *y,
	 struct wide_out *w)
{
	const __m512 zero = _mm512_setzero_ps(), inf = _mm512_set1_ps(INFINITY);
	const __m512i one = _mm512_set1_epi32(1);
	const bool sum = op == FPREF_OP_ADD || op == FPREF_OP_SUB || op == FPREF_OP_FMA;
	__m512 dn, up;
	switch (op) {
	case FPREF_OP_ADD: TWO(ADD); break;
	case FPREF_OP_SUB: TWO(SUB); break;
	case FPREF_OP_MUL: TWO(MUL); break;
	case FPREF_OP_DIV:
		TWO(DIV);
		r |= _mm512_cmp_ps_mask(b, zero, _CMP_EQ_OQ);
		break;
	case FPREF_OP_SQRT:
		TWO(SQRT);
		r |= _mm512_cmp_ps_mask(a, zero, _CMP_LT_OQ);
		break;
	default: TWO(FMA); break;
	}
	__m512 z = _mm512_mask_mov_ps(dn, _mm512_movepi32_mask(_mm512_castps_si512(dn)), up);
	if (rdn && sum)
		r |= _mm512_cmp_ps_mask(z, zero, _CMP_EQ_OQ); /* the sign of an exact zero sum */
	__mmask16 inexact = _mm512_cmp_ps_mask(dn, up, _CMP_NEQ_UQ);
	__m512i bits = _mm512_castps_si512(z);
	bits = _mm512_mask_or_epi32(bits, inexact, bits, one);
	if (w) {
		/* rounded up to +inf or down to -inf: the exact value is beyond
		 * FLT_MAX; 2^128 or more where half of it, rounded toward zero,
		 * is 2^127 or more (halving a and c is exact); those between
		 * round as no value beyond them does (rtz: max, no overflow),
		 * and go to the core.  (Without w, y's FLT_MAX there has the
		 * code of every value from it up: the plan's codes_in_y.) */
		__mmask16 pos = _mm512_cmp_ps_mask(up, inf, _CMP_EQ_OQ) & m,
			  neg = _mm512_cmp_ps_mask(dn, _mm512_sub_ps(zero, inf), _CMP_EQ_OQ) & m;
		if (pos | neg) {
			__m512 h = _mm512_set1_ps(0.5f), half;
			a = _mm512_mul_ps(a, h);
			switch (op) {
			case FPREF_OP_ADD: half = _mm512_add_round_ps(a, _mm512_mul_ps(b, h), R_ZERO); break;
			case FPREF_OP_SUB: half = _mm512_sub_round_ps(a, _mm512_mul_ps(b, h), R_ZERO); break;
			case FPREF_OP_MUL: half = MUL(R_ZERO); break;
			case FPREF_OP_DIV: half = DIV(R_ZERO); break;
			case FPREF_OP_SQRT: half = zero; break; /* never beyond */
			default: half = _mm512_fmadd_round_ps(a, b, _mm512_mul_ps(c, h), R_ZERO); break;
			}
			__mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(half), _mm512_set1_ps(0x1p127f), _CMP_GE_OQ);
			r |= (pos | neg) & ~big;
			pos &= big;
			neg &= big;
		}
		w->over_pos[j / 16] = (uint16_t)pos;
		w->over_neg[j / 16] = (uint16_t)neg;
		/* the least subnormal, every exact value below it (rounded to odd
		 * there), by sign; the subnormals above it stay in y */
		__m512i mag = _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF));
		__mmask16 tiny = _mm512_mask_cmpeq_epi32_mask(m, mag, one), negative = _mm512_movepi32_mask(bits);
		w->tiny_pos[j / 16] = (uint16_t)(tiny & ~negative);
		w->tiny_neg[j / 16] = (uint16_t)(tiny & negative);
	}
	_mm512_mask_storeu_epi32(y + j, m, bits);
	return r & m;
}

/* BF16 mul: its products are exact wherever they are FP32 normals, and
 * every product is found without a rounding below them (on Zen 4 a
 * multiplication that rounds there, even to nearest, takes several times
 * as long, and at random BF16 operands a third of the products lie
 * there): first the operands scaled by 2^64 each (by scalef: exact, or
 * inf from 2^64 up; a multiplication by 2^64 costs as much again where an
 * operand is subnormal), whose product is 2^128 times the exact one: an
 * FP32 normal for every product of 2^-254 or more (below, of a subnormal
 * operand, a value below 2^-149 whatever it rounds to), inf from 1 up;
 * then, where that is not finite, the operands themselves rounded toward
 * zero (masked: the other lanes, which may lie below the normals, are not
 * computed): exact (2^-69 or more where an operand is 2^64 or more), or
 * FLT_MAX at 2^128 or more.  Results: the normals' exponent fields less
 * 128; those below, on FP32's subnormal grid (2^-149, 2^-21 once scaled),
 * as 4 plus the scaled product's magnitude rounded toward zero, whose
 * last 23 bits are the grid's integer (4's ulp is 2^-21), made odd where
 * rounding up differs (the exact value is not on the grid), with the
 * sign: rounded to odd there, zeros and values below 2^-149 included;
 * y's values for the classes as odd_step leaves them. */
static inline __attribute__((always_inline, target("avx512f,avx512dq"))) __mmask16
mul_step(__m512 a, __m512 b, __mmask16 m, __mmask16 r, size_t j, uint32_t *y, struct wide_out *w)
{
	const __m512 e64 = _mm512_set1_ps(64), four = _mm512_set1_ps(4), inf = _mm512_set1_ps(INFINITY);
	const __m512i sign = _mm512_set1_epi32((int)0x80000000);
	__m512 scaled = _mm512_mul_ps(_mm512_scalef_ps(a, e64), _mm512_scalef_ps(b, e64)), mag = _mm512_abs_ps(scaled);
	__mmask16 big = _mm512_cmp_ps_mask(mag, inf, _CMP_NLT_UQ) & m; /* inf, or NaN: 0 times inf */
	/* rounded toward zero: exact, or FLT_MAX (y's value there) where the
	 * product is 2^128 or more */
	__m512 big_p = _mm512_maskz_mul_round_ps(big, a, b, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
	__mmask16 low = _mm512_cmp_ps_mask(mag, four, _CMP_LT_OQ);
	__m512 dn = _mm512_add_round_ps(mag, four, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
	       up = _mm512_add_round_ps(mag, four, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
	__m512i k = _mm512_sub_epi32(_mm512_castps_si512(dn), _mm512_castps_si512(four));
	k = _mm512_mask_or_epi32(k, _mm512_cmp_ps_mask(dn, up, _CMP_NEQ_OQ), k, _mm512_set1_epi32(1));
	if (w) {
		/* tiny: those rounded to odd to the least subnormal, 2^-149 (below
		 * 2^-148, where every mode treats them alike: BF16's least
		 * subnormal is 2^-133) */
		__mmask16 over = _mm512_mask_cmp_ps_mask(big, _mm512_abs_ps(big_p), _mm512_set1_ps(FLT_MAX), _CMP_EQ_OQ),
			  tiny = _mm512_mask_cmpeq_epi32_mask(low & m, k, _mm512_set1_epi32(1)),
			  negative = _mm512_movepi32_mask(_mm512_castps_si512(_mm512_mask_mov_ps(scaled, big, big_p)));
		w->over_pos[j / 16] = (uint16_t)(over & ~negative);
		w->over_neg[j / 16] = (uint16_t)(over & negative);
		w->tiny_pos[j / 16] = (uint16_t)(tiny & ~negative);
		w->tiny_neg[j / 16] = (uint16_t)(tiny & negative);
	}
	/* the normals scaled back (their exponent fields less 128), those
	 * below with the scaled product's sign (k | sign), the products of the
	 * operands themselves */
	__m512i res = _mm512_sub_epi32(_mm512_castps_si512(scaled), _mm512_set1_epi32(128 << 23));
	res = _mm512_mask_mov_epi32(res, low, _mm512_ternarylogic_epi32(k, _mm512_castps_si512(scaled), sign, 0xF8));
	res = _mm512_mask_mov_epi32(res, big, _mm512_castps_si512(big_p));
	_mm512_mask_storeu_epi32(y + j, m, res);
	return r & m;
}

/* BF16 div: the operands' significands in [1, 2) (with their signs) and
 * their exponents apart, the exponents' difference taken as an integer:
 * the significands' quotient is never beyond FP32's normals, so that no
 * instruction here rounds below them (see mul_step), and where the result
 * lies follows from exponents: beyond FLT_MAX (2^128 or more: the quotient
 * rounded is 2^k or more where the exact one is), below FP32's normals
 * (rounded to odd on its subnormal grid by subnormal_odd), or an FP32
 * normal (scaled by its exponent, exact).  The quotient rounded to
 * nearest at 24 bits stands for the exact one (no rounding to odd): of
 * 8-bit significands A and B, A / B is either on the grid of 9-bit
 * significands (BF16's values and the midpoints between them) or
 * 1 / (2^8 B) >= 2^-16 from it, relative, while rounding moves it by at
 * most 2^-24: on the same side of every point of that grid, off it where
 * the exact one is. */
static inline __attribute__((always_inline, target("avx512f,avx512dq"))) __mmask16
div_step(__m512 a, __m512 b, __mmask16 m, __mmask16 r, size_t j, uint32_t *y, struct wide_out *w)
{
	const __m512 zero = _mm512_setzero_ps();
	__m512 sa = _mm512_getmant_ps(a, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src),
	       sb = _mm512_getmant_ps(b, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
	__mmask16 zeros = _mm512_cmp_ps_mask(a, zero, _CMP_EQ_OQ);
	r |= _mm512_cmp_ps_mask(b, zero, _CMP_EQ_OQ);
	__m512 e = _mm512_sub_ps(_mm512_getexp_ps(a), _mm512_getexp_ps(b)), v = _mm512_div_ps(sa, sb);
	zeros &= (__mmask16)~r;
	__m512 top = _mm512_add_ps(e, _mm512_getexp_ps(v)); /* the result's binade */
	__mmask16 low = _mm512_cmp_ps_mask(top, _mm512_set1_ps(-126), _CMP_LT_OQ) & m & ~zeros;
	if (w) {
		__mmask16 over = _mm512_cmp_ps_mask(top, _mm512_set1_ps(128), _CMP_GE_OQ) & m & ~zeros,
			  tiny = _mm512_mask_cmp_ps_mask(low, top, _mm512_set1_ps(-150), _CMP_LE_OQ),
			  negative = _mm512_movepi32_mask(_mm512_castps_si512(v));
		w->over_pos[j / 16] = (uint16_t)(over & ~negative);
		w->over_neg[j / 16] = (uint16_t)(over & negative);
		w->tiny_pos[j / 16] = (uint16_t)(tiny & ~negative);
		w->tiny_neg[j / 16] = (uint16_t)(tiny & negative);
	}
	/* the normals scaled (their exponents only: no lane rounds; toward
	 * zero, so that those beyond FLT_MAX are FLT_MAX), those below them
	 * rounded to odd on FP32's subnormal grid (the least subnormal for the
	 * tiny), the zeros signed as the operands' signs say */
	__m512i res = _mm512_castps_si512(_mm512_scalef_round_ps(v, _mm512_maskz_mov_ps((__mmask16)~(low | zeros), e),
								 _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
	res = _mm512_mask_mov_epi32(res, low, subnormal_odd(_mm512_castps_si512(v), _mm512_cvtps_epi32(top)));
	res = _mm512_mask_and_epi32(res, zeros, _mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)),
				    _mm512_set1_epi32((int)0x80000000));
	_mm512_mask_storeu_epi32(y + j, m, res);
	return r & m;
}

/* FP16 (by F16C) or a byte format (its fields placed in FP16's, then
 * F16C, times half_scale: op_lanes32.c's as_halves) decoded in the
 * registers, sixteen elements from j, their NaN and inf marked in
 * *special; exact */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,f16c"))) __m512
half_lanes(const struct dec *d, bool bytes, const void *x, size_t j, __mmask16 m, __mmask16 *special)
{
	if (!bytes) {
		__m256i h = load_halves((const uint16_t *)x + j, m);
		const __m256i field = _mm256_set1_epi16(0x7C00);
		*special |= _mm256_cmpeq_epi16_mask(_mm256_and_si256(h, field), field);
		return _mm512_cvtph_ps(h);
	}
	const __m256i mag = _mm256_set1_epi16((short)d->mag_mask), from = _mm256_set1_epi16((short)d->special_from),
		      odd = _mm256_set1_epi16(d->odd_special > 0xFF ? -1 : (short)d->odd_special),
		      beyond = _mm256_set1_epi16((short)d->beyond);
	const __m128i sign_shift = _mm_cvtsi32_si128((int)d->sign_shift), up = _mm_cvtsi32_si128((int)(10 - d->m));
	__m256i v = _mm256_cvtepu8_epi16(load_bytes((const uint8_t *)x + j, m));
	__m256i mg = _mm256_and_si256(v, mag);
	__m256i h = _mm256_or_si256(_mm256_slli_epi16(_mm256_srl_epi16(v, sign_shift), 15), _mm256_sll_epi16(mg, up));
	*special |= _mm256_cmpge_epu16_mask(mg, from) | _mm256_cmpeq_epi16_mask(v, odd) | _mm256_cmpgt_epu16_mask(v, beyond);
	return _mm512_mul_ps(_mm512_cvtph_ps(h), _mm512_set1_ps(d->half_scale));
}

/* rare[] from a register's mask r at j, written only from the chunk's
 * first rare register on (zeros before it): the caller reads it only
 * where some element is rare */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl"))) void
mark_rare(uint8_t *rare, size_t j, __mmask16 m, __mmask16 r, __mmask16 *any)
{
	if (r | *any) {
		if (!*any)
			memset(rare, 0, j);
		_mm_mask_storeu_epi8(rare + j, m, _mm_maskz_set1_epi8(r, 1));
		*any |= r;
	}
}

static inline __attribute__((always_inline, target("avx512f,avx512dq,avx512bw,avx512vl,f16c"))) bool
fma_loop(const struct dec *d, bool bytes, bool rdn, const void *x0, const void *x1, const void *x2, size_t n,
	 uint32_t *y, uint8_t *rare)
{
	__mmask16 any = 0;
	for (size_t j = 0; j < n; j += 16) {
		__mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1), special = 0;
		__m512 a = half_lanes(d, bytes, x0, j, m, &special), b = half_lanes(d, bytes, x1, j, m, &special),
		       c = half_lanes(d, bytes, x2, j, m, &special);
		mark_rare(rare, j, m, odd_step(FPREF_OP_FMA, rdn, a, b, c, m, special & m, j, y, NULL), &any);
	}
	return any != 0;
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,f16c"))) bool
fpref_emu_op32_fma_avx512(const struct dec *d, bool bytes, bool rdn, const void *x0, const void *x1, const void *x2,
			  size_t n, uint32_t *y, uint8_t *rare)
{
	if (bytes)
		return rdn ? fma_loop(d, true, true, x0, x1, x2, n, y, rare) : fma_loop(d, true, false, x0, x1, x2, n, y, rare);
	return rdn ? fma_loop(d, false, true, x0, x1, x2, n, y, rare) : fma_loop(d, false, false, x0, x1, x2, n, y, rare);
}

/* BF16 operands (FP32's upper halves, exact) decoded in the registers,
 * NaN and inf among them marked rare; one pass, no decoded arrays */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl"))) __m512
bf16_lanes(const uint16_t *x, size_t j, __mmask16 m, __mmask16 *special)
{
	const __m256i field = _mm256_set1_epi16(0x7F80);
	__m256i h = load_halves(x + j, m);
	*special |= _mm256_cmpeq_epi16_mask(_mm256_and_si256(h, field), field);
	return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* one op's loop, op a constant where it is inlined, so that each op's
 * steps are compiled apart */
static inline __attribute__((always_inline, target("avx512f,avx512dq,avx512bw,avx512vl"))) bool
bf16_loop(enum fpref_op op, bool rdn, const uint16_t *x0, const uint16_t *x1, const uint16_t *x2, size_t n,
	  uint32_t *y, uint8_t *rare, struct wide_out *w)
{
	const __m512 zero = _mm512_setzero_ps();
	const int arity = op == FPREF_OP_SQRT ? 1 : op == FPREF_OP_FMA ? 3 : 2;
	__mmask16 any = 0;
	for (size_t j = 0; j < n; j += 16) {
		__mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1), special = 0;
		__m512 a = bf16_lanes(x0, j, m, &special), b = zero, c = zero;
		if (arity > 1)
			b = bf16_lanes(x1, j, m, &special);
		if (arity > 2)
			c = bf16_lanes(x2, j, m, &special);
		special &= m;
		__mmask16 r = op == FPREF_OP_MUL   ? mul_step(a, b, m, special, j, y, w)
			      : op == FPREF_OP_DIV ? div_step(a, b, m, special, j, y, w)
						   : odd_step(op, rdn, a, b, c, m, special, j, y, w);
		mark_rare(rare, j, m, r, &any);
	}
	return any != 0;
}

/* each op's loop compiled apart, with and without w (without it the
 * classes are y's values: see odd_step) */
#define BF16_LOOP(OP, RDN) (w ? bf16_loop(OP, RDN, x0, x1, x2, n, y, rare, w) : bf16_loop(OP, RDN, x0, x1, x2, n, y, rare, NULL))
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) bool
fpref_emu_op32_bf16_odd_avx512(enum fpref_op op, bool rdn, const uint16_t *x0, const uint16_t *x1, const uint16_t *x2,
			       size_t n, uint32_t *y, uint8_t *rare, struct wide_out *w)
{
	switch (op) {
	case FPREF_OP_ADD: return rdn ? BF16_LOOP(FPREF_OP_ADD, true) : BF16_LOOP(FPREF_OP_ADD, false);
	case FPREF_OP_SUB: return rdn ? BF16_LOOP(FPREF_OP_SUB, true) : BF16_LOOP(FPREF_OP_SUB, false);
	case FPREF_OP_FMA: return rdn ? BF16_LOOP(FPREF_OP_FMA, true) : BF16_LOOP(FPREF_OP_FMA, false);
	case FPREF_OP_MUL: return BF16_LOOP(FPREF_OP_MUL, false);
	case FPREF_OP_DIV: return BF16_LOOP(FPREF_OP_DIV, false);
	default: return BF16_LOOP(FPREF_OP_SQRT, false);
	}
}
#undef BF16_LOOP
#undef TWO
#undef ADD
#undef SUB
#undef MUL
#undef DIV
#undef SQRT
#undef FMA
#undef R_DN
#undef R_UP
#undef R_ZERO

/* as_halves then F16C in one pass on AVX-512 BW: 32 bytes a step, their
 * specials ORed into special[] */
__attribute__((target("avx512f,avx512bw,avx512vl,f16c"))) void fpref_emu_op32_bytes_avx512(const struct dec *d, const uint8_t *a,
										    size_t n, float *y, uint8_t *special)
{
	const __m512i mag = _mm512_set1_epi16((short)d->mag_mask), from = _mm512_set1_epi16((short)d->special_from),
		      odd = _mm512_set1_epi16(d->odd_special > 0xFF ? -1 : (short)d->odd_special),
		      beyond = _mm512_set1_epi16((short)d->beyond);
	const __m128i sign_shift = _mm_cvtsi32_si128((int)d->sign_shift), up = _mm_cvtsi32_si128((int)(10 - d->m));
	size_t j = 0;
	for (; j + 32 <= n; j += 32) {
		__m512i v = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(a + j)));
		__m512i m = _mm512_and_si512(v, mag);
		__m512i h = _mm512_or_si512(_mm512_slli_epi16(_mm512_srl_epi16(v, sign_shift), 15), _mm512_sll_epi16(m, up));
		__mmask32 sp = _mm512_cmpge_epu16_mask(m, from) | _mm512_cmpeq_epi16_mask(v, odd) |
			       _mm512_cmpgt_epu16_mask(v, beyond);
		__m256i old = _mm256_loadu_si256((const __m256i *)(void *)(special + j));
		_mm256_storeu_si256((__m256i *)(void *)(special + j),
				    _mm256_or_si256(old, _mm256_and_si256(_mm256_movm_epi8(sp), _mm256_set1_epi8(1))));
		_mm512_storeu_ps(y + j, _mm512_cvtph_ps(_mm512_castsi512_si256(h)));
		_mm512_storeu_ps(y + j + 16, _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1)));
	}
	if (j < n) { /* the last bytes through a zero-padded step */
		uint8_t in[32] = { 0 }, sp[32] = { 0 };
		float out[32];
		memcpy(in, a + j, n - j);
		fpref_emu_op32_bytes_avx512(d, in, 32, out, sp);
		memcpy(y + j, out, (n - j) * sizeof *y);
		for (size_t t = 0; t < n - j; t++)
			special[j + t] |= sp[t];
	}
}


/* Two BF16 significands' product has at most 16 bits, so it is exact in
 * FP32 wherever it is an FP32 normal (rounded to nearest, a finite result
 * from a product of 2^128 or more is impossible); a nonzero product that
 * lands below the normals or at inf, or a NaN, makes the whole chunk
 * false, for the FP64 route: one mask test a chunk, no per-lane classes */
__attribute__((target("avx512f,avx512bw,avx512vl"))) bool fpref_emu_op32_bf16_products_avx512(const uint16_t *a,
												   const uint16_t *b, size_t n,
												   uint32_t *y)
{
	const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), least = _mm512_set1_epi32(0x00800000),
		      span = _mm512_set1_epi32(0x7F800000 - 0x00800000);
	for (size_t j = 0; j < n; j += 16) {
		__mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
		__m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load_halves(a + j, m)), 16),
			v = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load_halves(b + j, m)), 16);
		__m512i r = _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(u), _mm512_castsi512_ps(v)));
		__m512i mag = _mm512_and_si512(r, abs);
		/* normal: mag - least below inf - least, unsigned */
		__mmask16 normal = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(mag, least), span);
		__mmask16 zero = _mm512_testn_epi32_mask(mag, mag) &
				 (_mm512_testn_epi32_mask(u, abs) | _mm512_testn_epi32_mask(v, abs));
		if (m & ~(normal | zero))
			return false; /* at once: a chunk of random patterns fails in its first lanes */
		_mm512_mask_storeu_epi32(y + j, m, r);
	}
	return true;
}

/* BF16 quotients rounded to odd at 24 bits: q = a / b rounded to nearest,
 * the exact remainder a - q b by one fma, q moved to its odd neighbour
 * toward the quotient where that is not 0 (op_lanes32.c's to_odd32).
 * The remainder is a multiple of ulp(q) ulp(b) >= 2^(ea - 31), exact where
 * |a| >= 2^-100 and b is normal; q in [2^-125, 2^127) keeps the odd
 * neighbour an FP32 normal.  A lane outside (nor a zero a over such a b)
 * makes the chunk false, as above. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) bool fpref_emu_op32_bf16_quotients_avx512(const uint16_t *a,
												    const uint16_t *b, size_t n,
												    uint32_t *y)
{
	const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1),
		      least = _mm512_set1_epi32(0x00800000), normals = _mm512_set1_epi32(0x7F800000 - 0x00800000),
		      q_least = _mm512_set1_epi32(0x01000000), q_span = _mm512_set1_epi32(0x7F000000 - 0x01000000),
		      a_least = _mm512_set1_epi32(0x0D800000); /* 2^-100 */
	for (size_t j = 0; j < n; j += 16) {
		__mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
		__m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load_halves(a + j, m)), 16),
			v = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load_halves(b + j, m)), 16);
		__m512 x = _mm512_castsi512_ps(u), d = _mm512_castsi512_ps(v), q = _mm512_div_ps(x, d);
		__m512 r = _mm512_fnmadd_ps(q, d, x); /* a - q b, exact */
		__m512i qi = _mm512_castps_si512(q), ri = _mm512_castps_si512(r), ua = _mm512_and_si512(u, abs);
		__mmask16 fine = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(_mm512_and_si512(v, abs), least), normals) &
				 ((_mm512_cmplt_epu32_mask(_mm512_sub_epi32(_mm512_and_si512(qi, abs), q_least), q_span) &
				   _mm512_cmpge_epu32_mask(ua, a_least)) |
				  _mm512_testn_epi32_mask(ua, ua));
		if (m & ~fine)
			return false;
		/* an even q with a remainder moves by one: down in magnitude where
		 * the signs of r, b and q say the quotient lies toward zero */
		__mmask16 step = _mm512_test_epi32_mask(ri, abs) & _mm512_testn_epi32_mask(qi, one),
			  toward_zero = _mm512_cmplt_epi32_mask(_mm512_xor_si512(_mm512_xor_si512(ri, v), qi), _mm512_setzero_si512());
		qi = _mm512_mask_sub_epi32(qi, step & toward_zero, qi, one);
		qi = _mm512_mask_add_epi32(qi, step & (__mmask16)~toward_zero, qi, one);
		_mm512_mask_storeu_epi32(y + j, m, qi);
	}
	return true;
}

/* The codes and flags of the elements of w's classes (beyond FLT_MAX,
 * the least subnormal; by sign: code[0..3] for over_pos, over_neg,
 * tiny_pos, tiny_neg) over out[0..n), sixteen at a time (BF16's two bytes
 * a code), without a test: at random operands it would be a coin toss */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void fpref_emu_op32_classes_avx512(const struct wide_out *w, const uint64_t code[4],
										    const uint8_t fl[4], uint16_t *o, uint8_t *flags,
										    size_t n)
{
	const __m256i c0 = _mm256_set1_epi16((short)code[0]), c1 = _mm256_set1_epi16((short)code[1]),
		      c2 = _mm256_set1_epi16((short)code[2]), c3 = _mm256_set1_epi16((short)code[3]);
	const __m128i f0 = _mm_set1_epi8((char)fl[0]), f1 = _mm_set1_epi8((char)fl[1]), f2 = _mm_set1_epi8((char)fl[2]),
		      f3 = _mm_set1_epi8((char)fl[3]);
	for (size_t k = 0; 16 * k < n; k++) {
		__mmask16 m = n - 16 * k >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - 16 * k)) - 1);
		__m256i v = _mm256_maskz_loadu_epi16(m, o + 16 * k);
		v = _mm256_mask_mov_epi16(v, w->over_pos[k], c0);
		v = _mm256_mask_mov_epi16(v, w->over_neg[k], c1);
		v = _mm256_mask_mov_epi16(v, w->tiny_pos[k], c2);
		v = _mm256_mask_mov_epi16(v, w->tiny_neg[k], c3);
		_mm256_mask_storeu_epi16(o + 16 * k, m, v);
		if (flags) {
			__m128i f = _mm_maskz_loadu_epi8(m, flags + 16 * k);
			f = _mm_mask_mov_epi8(f, w->over_pos[k], f0);
			f = _mm_mask_mov_epi8(f, w->over_neg[k], f1);
			f = _mm_mask_mov_epi8(f, w->tiny_pos[k], f2);
			f = _mm_mask_mov_epi8(f, w->tiny_neg[k], f3);
			_mm_mask_storeu_epi8(flags + 16 * k, m, f);
		}
	}
}
#else
/* ISO C wants a translation unit to declare something */
typedef int fpref_emu_op32_x86_none;
#endif
