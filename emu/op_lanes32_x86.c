/* The FP32 route's x86 steps (emu/op_lanes32.c says what they compute
 * and why): intrinsics behind the context's instruction set, F16C's
 * conversions, AVX-512's rounding in the instruction, its masked stores.
 * Each is compiled for its own target; the caller checks the CPU. */
#if defined(__GNUC__) && defined(__x86_64__)
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

/* BF16 to FP32 (its upper half, exact), NaN and inf marked in special[] */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void fpref_emu_op32_bfloat16_avx512(const uint16_t *a, size_t n, float *y,
										     uint8_t *special)
{
	const __m256i field = _mm256_set1_epi16(0x7F80);
	size_t j = 0;
	for (; j + 16 <= n; j += 16) {
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(a + j));
		_mm512_storeu_ps(y + j, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
		__mmask16 sp = _mm256_cmpeq_epi16_mask(_mm256_and_si256(h, field), field);
		for (unsigned t = sp; t; t &= t - 1)
			special[j + (unsigned)__builtin_ctz(t)] = 1;
	}
	for (; j < n; j++) {
		uint32_t w = (uint32_t)a[j] << 16;
		memcpy(&y[j], &w, sizeof w);
		special[j] |= (uint8_t)((a[j] & 0x7F80) == 0x7F80);
	}
}

/* AVX-512's rounding in the instruction: op's result rounded toward
 * zero, its last bit set where the results rounded down and up differ
 * (the exact value is not representable): rounded to odd at FP32's
 * precision, on its subnormal grid too, without TwoSum, remainders or
 * exact products; on floats already decoded (times scale).  rare[] gets
 * the elements for the core as in run; w (where not NULL) those beyond
 * FP32's range and below its normals (struct wide_out), whose y is then
 * 0; whether any element is rare.  (For FP16 and the bytes, faster
 * than run for fma only: three divisions or roots cost more than one and
 * a remainder.) */
#define R_DN (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define R_UP (_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define R_ZERO (_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define THREE(OP)                                                                                                 \
	do {                                                                                                     \
		dn = OP(R_DN);                                                                                   \
		up = OP(R_UP);                                                                                   \
		z = OP(R_ZERO);                                                                                  \
	} while (0)
#define ADD(R) _mm512_add_round_ps(a, b, R)
#define SUB(R) _mm512_sub_round_ps(a, b, R)
#define MUL(R) _mm512_mul_round_ps(a, b, R)
#define DIV(R) _mm512_div_round_ps(a, b, R)
#define SQRT(R) _mm512_sqrt_round_ps(a, R)
#define FMA(R) _mm512_fmadd_round_ps(a, b, c, R)
__attribute__((target("avx512f,avx512dq"))) bool fpref_emu_op32_odd_avx512(enum fpref_op op, bool rdn, float scale, const float *x0,
							   const float *x1, const float *x2, size_t n, uint32_t *y,
							   uint8_t *rare, struct wide_out *w)
{
	const __m512 s = _mm512_set1_ps(scale), zero = _mm512_setzero_ps(), inf = _mm512_set1_ps(INFINITY);
	const __m512i one = _mm512_set1_epi32(1),
		      iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	size_t lows = 0;
	const bool sum = op == FPREF_OP_ADD || op == FPREF_OP_SUB || op == FPREF_OP_FMA;
	for (size_t j = 0; j < n; j += 16) {
		__mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
		__m512 a = _mm512_maskz_loadu_ps(m, x0 + j), b = zero, c = zero, dn, up, z;
		if (x1)
			b = _mm512_maskz_loadu_ps(m, x1 + j);
		if (x2)
			c = _mm512_maskz_loadu_ps(m, x2 + j);
		if (scale != 1) {
			a = _mm512_mul_ps(a, s);
			b = _mm512_mul_ps(b, s);
			c = _mm512_mul_ps(c, s);
		}
		__mmask16 r = 0;
		switch (op) {
		case FPREF_OP_ADD: THREE(ADD); break;
		case FPREF_OP_SUB: THREE(SUB); break;
		case FPREF_OP_MUL: THREE(MUL); break;
		case FPREF_OP_DIV:
			THREE(DIV);
			r = _mm512_cmp_ps_mask(b, zero, _CMP_EQ_OQ);
			break;
		case FPREF_OP_SQRT:
			THREE(SQRT);
			r = _mm512_cmp_ps_mask(a, zero, _CMP_LT_OQ);
			break;
		default: THREE(FMA); break;
		}
		if (rdn && sum)
			r |= _mm512_cmp_ps_mask(z, zero, _CMP_EQ_OQ); /* the sign of an exact zero sum */
		__mmask16 inexact = _mm512_cmp_ps_mask(dn, up, _CMP_NEQ_UQ);
		__m512i bits = _mm512_castps_si512(z);
		bits = _mm512_mask_or_epi32(bits, inexact, bits, one);
		for (unsigned t = r & m; t; t &= t - 1)
			rare[j + (unsigned)__builtin_ctz(t)] = 1;
		if (w) {
			/* rounded up to +inf or down to -inf: the exact value is beyond
			 * FLT_MAX; 2^128 or more where half of it, rounded toward zero,
			 * is 2^127 or more (halving a and c is exact); those between
			 * round as no value beyond them does (rtz: max, no overflow),
			 * and go to the core */
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
				for (unsigned t = (pos | neg) & ~big; t; t &= t - 1)
					rare[j + (unsigned)__builtin_ctz(t)] = 1;
				pos &= big;
				neg &= big;
			}
			w->over_pos[j / 16] = (uint16_t)pos;
			w->over_neg[j / 16] = (uint16_t)neg;
			/* nonzero, below 2^-126 */
			__m512i mag = _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF));
			__mmask16 low = _mm512_mask_cmplt_epu32_mask(_mm512_test_epi32_mask(mag, mag) & m, mag,
								     _mm512_set1_epi32(0x00800000)),
				  tiny = _mm512_mask_cmpeq_epi32_mask(low, mag, one),
				  negative = _mm512_movepi32_mask(bits);
			w->tiny_pos[j / 16] = (uint16_t)(tiny & ~negative);
			w->tiny_neg[j / 16] = (uint16_t)(tiny & negative);
			low &= (__mmask16)~tiny;
			/* compressed in registers, stored whole (the buffers have 16
			 * places to spare): Zen 4's compress to memory is microcoded */
			_mm512_storeu_ps(w->low + lows, _mm512_maskz_compress_ps(low, _mm512_castsi512_ps(bits)));
			_mm512_storeu_si512(w->at + lows, _mm512_maskz_compress_epi32(
								  low, _mm512_add_epi32(_mm512_set1_epi32((int)j), iota)));
			lows += (size_t)__builtin_popcount(low);
			bits = _mm512_maskz_mov_epi32((__mmask16)~low, bits);
		}
		_mm512_mask_storeu_epi32(y + j, m, bits);
	}
	if (w)
		w->lows = lows;
	uint64_t any = 0; /* eight flags a word */
	size_t t = 0;
	for (; t + 8 <= n; t += 8) {
		uint64_t w;
		memcpy(&w, rare + t, 8);
		any |= w;
	}
	for (; t < n; t++)
		any |= rare[t];
	return any != 0;
}
#undef THREE
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
		__m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, a + j)), 16),
			v = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, b + j)), 16);
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
		__m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, a + j)), 16),
			v = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, b + j)), 16);
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

/* The codes of the elements of a class (beyond FLT_MAX, the least
 * subnormal), sixteen at a time (BF16's two bytes a code) */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void fpref_emu_op32_classes_avx512(const uint16_t *pos_mask,
										    const uint16_t *neg_mask,
										    const uint64_t code[2],
										    const uint8_t fl[2], uint16_t *o,
										    uint8_t *flags)
{
	const __m256i pos = _mm256_set1_epi16((short)code[0]), neg = _mm256_set1_epi16((short)code[1]);
	const __m128i fpos = _mm_set1_epi8((char)fl[0]), fneg = _mm_set1_epi8((char)fl[1]);
	for (size_t k = 0; k < OP_LANES_CHUNK / 16; k++) {
		if (!(pos_mask[k] | neg_mask[k]))
			continue;
		_mm256_mask_storeu_epi16(o + 16 * k, pos_mask[k], pos);
		_mm256_mask_storeu_epi16(o + 16 * k, neg_mask[k], neg);
		if (flags) {
			_mm_mask_storeu_epi8(flags + 16 * k, pos_mask[k], fpos);
			_mm_mask_storeu_epi8(flags + 16 * k, neg_mask[k], fneg);
		}
	}
}
#else
/* ISO C wants a translation unit to declare something */
typedef int fpref_emu_op32_x86_none;
#endif
