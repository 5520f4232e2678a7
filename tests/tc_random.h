/* Random operands for the tensor-core model suites (check_tc_model,
 * check_tc_blackwell): one seeded stream, patterns by field. */
#ifndef FPREF_TESTS_TC_RANDOM_H
#define FPREF_TESTS_TC_RANDOM_H

#include "testutil.h"

static inline uint64_t next_random(uint64_t *state)
{
	return fpref_sr_stream(2026, (*state)++);
}

/* A pattern of f with sign, biased exponent field and mantissa given. */
static inline uint64_t pattern(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	uint64_t bits = (field << f->man_bits) | (mantissa & ((1ull << f->man_bits) - 1));
	if (negative && f->is_signed)
		bits |= 1ull << (f->man_bits + f->exp_bits);
	return bits << f->pad_bits;
}

/* A finite value with biased exponent in [lo, hi] (0: subnormal or zero),
 * or, one time in `special_odds` (0: never), any pattern of the format. */
static inline uint64_t random_input(const struct fpref_format *f, uint64_t *state, int lo, int hi, unsigned special_odds)
{
	uint64_t r = next_random(state);
	if (special_odds && r % special_odds == 0)
		return pattern(f, r >> 63, (r >> 8) & ((1ull << f->exp_bits) - 1), r >> 20);
	uint64_t field = (uint64_t)lo + (r >> 8) % (uint64_t)(hi - lo + 1);
	uint64_t bits = pattern(f, (r >> 62) & 1, field, r >> 20);
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) != FPREF_DECODE_OK || u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF)
		bits = pattern(f, false, (uint64_t)lo, 0);
	return bits;
}

static inline int max_field(const struct fpref_format *f)
{
	return (1 << f->exp_bits) - 1 - (f->specials == FPREF_SPECIALS_IEEE ? 1 : 0);
}

/* A dot-product case: K operands of a over a random band of exponents,
 * of b over the whole range, now and then NaN or inf; returns c, zero
 * half of the time. */
static inline uint64_t random_case(const struct fpref_format *in, const struct fpref_format *out, uint64_t *state,
				   size_t K, uint64_t *a, uint64_t *b)
{
	int top = max_field(in), lo = (int)(next_random(state) % (unsigned)top);
	int hi = lo + (int)(next_random(state) % (unsigned)(top - lo + 1));
	for (size_t k = 0; k < K; k++) {
		a[k] = random_input(in, state, lo, hi, 97);
		b[k] = random_input(in, state, 0, top, 97);
	}
	return next_random(state) % 2 ? 0 : random_input(out, state, 0, max_field(out), 200);
}

#endif
