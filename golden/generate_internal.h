/* What golden/'s generation files share (inputs.c, op_cases.c and
 * generate.c): the bit-pattern helpers every family of inputs builds on,
 * and the inputs of conversions and seeded operands that generate.c turns
 * into vectors.  Internal: not installed. */
#ifndef FPREF_GOLDEN_GENERATE_INTERNAL_H
#define FPREF_GOLDEN_GENERATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fpref_golden.h"

/* the payloads of nan_patterns (inputs.c): 2 * NAN_PAYLOADS NaNs at most */
#define NAN_PAYLOADS 11

static inline uint64_t pattern(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	uint64_t bits = field << f->man_bits | (mantissa & ((1ull << f->man_bits) - 1));
	if (negative && f->is_signed)
		bits |= 1ull << (f->exp_bits + f->man_bits);
	return bits << f->pad_bits;
}

static inline bool valid(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) == FPREF_DECODE_OK;
}

static inline uint64_t sign_of(const struct fpref_format *f)
{
	return f->is_signed ? 1ull << (f->exp_bits + f->man_bits + f->pad_bits) : 0;
}

/* A growing set of source patterns, sorted and made unique at the end. */
struct values {
	uint64_t *v;
	size_t n, cap;
	bool failed;
};

static inline void push(struct values *s, uint64_t bits)
{
	if (s->failed)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *bigger = realloc(s->v, cap * sizeof *bigger);
		if (!bigger) {
			s->failed = true;
			return;
		}
		s->v = bigger;
		s->cap = cap;
	}
	s->v[s->n++] = bits;
}

void fpref_golden_sort_unique(struct values *s);

/* Source patterns around every rounding threshold of the target (inputs.c). */
void fpref_golden_threshold_values(const struct fpref_format *src, const struct fpref_format *tgt, unsigned omit,
				   struct values *s);

/* A seeded operand (inputs.c). */
uint64_t fpref_golden_random_operand(const struct fpref_format *f, uint64_t seed, uint64_t index, uint64_t near);

#endif
