/* Seeded test data: values of a distribution rounded to a format, from
 * integers only, so that a seed gives the same bits on every machine. */
#include <string.h>

#include "fpref_emu.h"

static const char *const dist_names[] = { "normal", "uniform", "positive" };

const char *fpref_emu_dist_name(enum fpref_dist d)
{
	return dist_names[d];
}

int fpref_emu_dist_parse(const char *s, enum fpref_dist *d)
{
	for (int i = 0; i <= FPREF_DIST_POSITIVE; i++)
		if (strcmp(s, dist_names[i]) == 0) {
			*d = (enum fpref_dist)i;
			return 0;
		}
	return -1;
}

size_t fpref_emu_random(const struct fpref_format *f, const struct fpref_env *env, enum fpref_dist d, int scale_log2,
			uint64_t seed, uint64_t first, size_t n, uint64_t *out)
{
	const uint64_t half = 1ull << 52; /* a uniform u in [0, 2^53) is u / 2^53 in [0, 1) */
	size_t inexact = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t index = first + i;
		uint64_t sum; /* the value times 2^53, offset by `center` */
		uint64_t center;
		if (d == FPREF_DIST_NORMAL) {
			/* Irwin-Hall: twelve uniforms minus 6, mean 0, variance 1, within +-6 */
			sum = 0;
			for (uint64_t j = 0; j < 12; j++)
				sum += fpref_sr_stream(seed, 12 * index + j) >> 11;
			center = 12 * half;
		} else if (d == FPREF_DIST_UNIFORM) {
			sum = (fpref_sr_stream(seed, index) >> 11) << 1; /* 2u - 1 in [-1, 1) */
			center = 2 * half;
		} else {
			sum = fpref_sr_stream(seed, index) >> 11; /* u in [0, 1) */
			center = 0;
		}
		bool negative = sum < center;
		uint64_t magnitude = negative ? center - sum : sum - center;
		unsigned flags = 0;
		out[i] = fpref_emu_round_pack(f, env, fpref_sr_stream(~seed, index), negative, scale_log2 - 53,
					      (fpref_u128)magnitude, false, &flags);
		inexact += (flags & FPREF_FLAG_INEXACT) != 0;
	}
	return inexact;
}
