/* What the quantisers' bulk paths share (emu/quant_lanes.h): the FPU's
 * state, read as emu/op_lanes.c reads it, and the chunk of scaled values
 * that the array converter rounds to the element. */
#include <fenv.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "quant_lanes.h"

bool fpref_emu_quant_fpu_plain(void)
{
	if (fegetround() != FE_TONEAREST)
		return false;
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	if (_mm_getcsr() & 0x8040u) /* FTZ (bit 15), DAZ (bit 6) */
		return false;
#elif defined(__aarch64__) && defined(__GNUC__)
	uint64_t fpcr;
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	if (fpcr & (UINT64_C(1) << 24)) /* FZ: subnormal operands and results flushed */
		return false;
#endif
	return true;
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
