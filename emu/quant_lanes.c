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

typedef uint32_t quant_u32x16 __attribute__((vector_size(64)));

/* Lane by lane, the larger of *a and *b (one vpmaxud where vectorised). */
static inline __attribute__((always_inline)) void quant_larger_into(quant_u32x16 *a, const quant_u32x16 *b)
{
	for (unsigned k = 0; k < 16; k++)
		(*a)[k] = (*b)[k] > (*a)[k] ? (*b)[k] : (*a)[k];
}

/* The halving step's lanes of two vectors, a's 0..15 and b's 16..31:
 * those t with t mod 2g below g (LO), the others (HI). */
#define QUANT_LO_8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define QUANT_HI_8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define QUANT_LO_4 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27
#define QUANT_HI_4 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31
#define QUANT_LO_2 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29
#define QUANT_HI_2 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31
#define QUANT_LO_1 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define QUANT_HI_1 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
/* v[i] = the larger of v[2i]'s and v[2i + 1]'s LO and HI lanes, i below n */
#define QUANT_HALVE(v, n, g)                                                                                  \
	_Pragma("GCC unroll 8") for (unsigned i_ = 0; i_ < (n); i_++)                                        \
	{                                                                                                     \
		quant_u32x16 lo_ = __builtin_shufflevector(v[2 * i_], v[2 * i_ + 1], QUANT_LO_##g);           \
		quant_u32x16 hi_ = __builtin_shufflevector(v[2 * i_], v[2 * i_ + 1], QUANT_HI_##g);           \
		quant_larger_into(&lo_, &hi_);                                                                \
		v[i_] = lo_;                                                                                  \
	}

/* The largest magnitudes of sixteen stretches of 16 at x, as bits, lane j
 * stretch j's, into *most where larger: four halving steps, each pairing
 * vectors and keeping the larger of each lane's two candidates (45
 * operations, not sixteen reductions across a vector's lanes). */
static inline __attribute__((always_inline)) void quant_stretch_maxima16(const uint32_t *x, quant_u32x16 *most)
{
	quant_u32x16 v[16];
	_Pragma("GCC unroll 16") for (unsigned s = 0; s < 16; s++)
	{
		memcpy(&v[s], x + 16 * s, sizeof v[s]);
		v[s] &= 0x7FFFFFFFu;
	}
	QUANT_HALVE(v, 8, 8)
	QUANT_HALVE(v, 4, 4)
	QUANT_HALVE(v, 2, 2)
	QUANT_HALVE(v, 1, 1)
	quant_larger_into(most, &v[0]);
}

QUANT_CLONES void fpref_emu_quant_stretch_maxima(const uint32_t *x, size_t count, uint32_t *most)
{
	size_t j = 0;
	for (; j + 16 <= count; j += 16) {
		quant_u32x16 m;
		memcpy(&m, most + j, sizeof m);
		quant_stretch_maxima16(x + 16 * j, &m);
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
