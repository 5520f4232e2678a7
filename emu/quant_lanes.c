/* What the quantisers' bulk paths share (emu/quant_lanes.h): the FPU's
 * state, read as emu/op_lanes.c reads it, and the chunk of scaled values
 * that the array converter rounds to the element. */
#include <string.h>

#include "host_fpu.h"
#include "quant_lanes.h"

bool fpref_emu_quant_fpu_plain(void)
{
	return host_fpu_plain();
}

int fpref_emu_quant_sink_open(struct quant_sink *s, const struct fpref_format *element, const struct fpref_env *env,
			      uint8_t *codes)
{
	s->c = fpref_emu_converter_new(fpref_format_get(FPREF_FORMAT_FLOAT32), element, env);
	s->codes = codes;
	s->at = s->n = 0;
	s->minus_zero_to_plus = false;
	return s->c ? 0 : -1;
}

void fpref_emu_quant_sink_flush(struct quant_sink *s, size_t next)
{
	if (s->n)
		fpref_emu_convert_array(s->c, s->y, s->codes + s->at, s->n, NULL, s->at);
	for (size_t i = 0; s->minus_zero_to_plus && i < s->n; i++)
		if (s->y[i] == 0x80000000u)
			s->codes[s->at + i] = 0;
	s->at = next;
	s->n = 0;
}

void fpref_emu_quant_sink_close(struct quant_sink *s)
{
	fpref_emu_converter_free(s->c);
	s->c = NULL;
}

QUANT_CLONES uint32_t fpref_emu_quant_magnitude_max(const uint32_t *x, size_t n)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = x[i] & 0x7FFFFFFFu;
		m = v > m ? v : m;
	}
	return m;
}

typedef uint32_t quant_u32x8 __attribute__((vector_size(32)));

/* Lane by lane, the larger of *a and *b (one vpmaxud where vectorised). */
static inline __attribute__((always_inline)) void quant_larger_into(quant_u32x8 *a, const quant_u32x8 *b)
{
	for (unsigned k = 0; k < 8; k++)
		(*a)[k] = (*b)[k] > (*a)[k] ? (*b)[k] : (*a)[k];
}

typedef int32_t quant_i32x8 __attribute__((vector_size(32)));

/* A line of 16 a step, in two vectors of eight, each step fetching the
 * line TENSOR_AHEAD elements on toward the cache: more lines on their way
 * than the hardware's prefetcher keeps (a Zen 5 core, scratch driver, 64
 * MiB: 30-34 GB/s without, 45-47 with 16 KiB ahead).  NaN or not by a
 * signed compare: a magnitude's bits are below 2^31, and AVX2 compares no
 * unsigned words. */
enum { TENSOR_AHEAD = 4096 };
QUANT_CLONES uint32_t fpref_emu_quant_tensor_maxima(const uint32_t *x, size_t n, uint32_t *not_nan)
{
	quant_u32x8 most = { 0 }, finite = { 0 };
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		if (n - i >= TENSOR_AHEAD + 16)
			__builtin_prefetch(x + i + TENSOR_AHEAD, 0, 3);
		for (unsigned h = 0; h < 2; h++) {
			quant_u32x8 v;
			memcpy(&v, x + i + 8 * h, sizeof v);
			v &= 0x7FFFFFFFu;
			quant_i32x8 s;
			memcpy(&s, &v, sizeof s);
			quant_u32x8 w = v & (quant_u32x8)(s <= (int32_t)0x7F800000);
			quant_larger_into(&most, &v);
			quant_larger_into(&finite, &w);
		}
	}
	uint32_t m = 0, f = 0;
	for (unsigned k = 0; k < 8; k++) {
		m = most[k] > m ? most[k] : m;
		f = finite[k] > f ? finite[k] : f;
	}
	for (; i < n; i++) {
		uint32_t v = x[i] & 0x7FFFFFFFu, w = v <= 0x7F800000u ? v : 0;
		m = v > m ? v : m;
		f = w > f ? w : f;
	}
	if (not_nan)
		*not_nan = f;
	return m;
}

/* The largest magnitudes of eight stretches of 16 at x, as bits, lane j
 * stretch j's, into *most where larger: each stretch's two halves' larger
 * lanes, then three halving steps, each pairing vectors and keeping the
 * larger of each lane's two candidates (not eight reductions across a
 * vector's lanes).  Eight lanes, 32-byte vectors: at sixteen, GCC 12 made
 * the shuffles and compares one lane at a time in the AVX2 clone (192 lane
 * inserts and extracts), and on AVX-512 eight are as fast (scratch ./q
 * plain and 46, three pairs). */
static inline __attribute__((always_inline)) void quant_stretch_maxima8(const uint32_t *x, quant_u32x8 *most)
{
	quant_u32x8 v[8];
	_Pragma("GCC unroll 8") for (unsigned s = 0; s < 8; s++)
	{
		quant_u32x8 a, b;
		memcpy(&a, x + 16 * s, sizeof a);
		memcpy(&b, x + 16 * s + 8, sizeof b);
		a &= 0x7FFFFFFFu;
		b &= 0x7FFFFFFFu;
		quant_larger_into(&a, &b);
		v[s] = a;
	}
	/* lanes 4 apart, then 2, then 1: stretch j's candidates into lane j */
	_Pragma("GCC unroll 4") for (unsigned i = 0; i < 4; i++)
	{
		quant_u32x8 lo = __builtin_shufflevector(v[2 * i], v[2 * i + 1], 0, 1, 2, 3, 8, 9, 10, 11);
		quant_u32x8 hi = __builtin_shufflevector(v[2 * i], v[2 * i + 1], 4, 5, 6, 7, 12, 13, 14, 15);
		quant_larger_into(&lo, &hi);
		v[i] = lo;
	}
	_Pragma("GCC unroll 2") for (unsigned i = 0; i < 2; i++)
	{
		quant_u32x8 lo = __builtin_shufflevector(v[2 * i], v[2 * i + 1], 0, 1, 4, 5, 8, 9, 12, 13);
		quant_u32x8 hi = __builtin_shufflevector(v[2 * i], v[2 * i + 1], 2, 3, 6, 7, 10, 11, 14, 15);
		quant_larger_into(&lo, &hi);
		v[i] = lo;
	}
	quant_u32x8 lo = __builtin_shufflevector(v[0], v[1], 0, 2, 4, 6, 8, 10, 12, 14);
	quant_u32x8 hi = __builtin_shufflevector(v[0], v[1], 1, 3, 5, 7, 9, 11, 13, 15);
	quant_larger_into(&lo, &hi);
	quant_larger_into(most, &lo);
}

QUANT_CLONES void fpref_emu_quant_stretch_maxima(const uint32_t *x, size_t count, uint32_t *most)
{
	size_t j = 0;
	for (; j + 8 <= count; j += 8) {
		quant_u32x8 m;
		memcpy(&m, most + j, sizeof m);
		quant_stretch_maxima8(x + 16 * j, &m);
		memcpy(most + j, &m, sizeof m);
	}
	for (; j < count; j++) {
		uint32_t m = fpref_emu_quant_magnitude_max(x + 16 * j, 16);
		most[j] = m > most[j] ? m : most[j];
	}
}

QUANT_CLONES bool fpref_emu_quant_scale(const uint32_t *x, size_t n, uint32_t by, bool divide, uint32_t *y)
{
	float f = quant_f32(by);
	uint32_t nan = 0;
	if (divide)
		for (size_t i = 0; i < n; i++) {
			y[i] = quant_bits(quant_f32(x[i]) / f);
			nan |= quant_is_nan(y[i]);
		}
	else
		for (size_t i = 0; i < n; i++) {
			y[i] = quant_bits(quant_f32(x[i]) * f);
			nan |= quant_is_nan(y[i]);
		}
	return nan != 0;
}
