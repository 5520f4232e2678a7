/* Plain accumulations of a dot product, each step an operation of the
 * emulator rounded in the accumulator's format under the environment:
 * recursive, pairwise, blocked, an fma chain, and Kahan's compensated sum.
 * Products a_k * b_k are rounded to the accumulator first (except in the
 * fma chain); inputs are converted to it first (exact when it is wider). */
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_tc.h"

static uint64_t op2(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env, uint64_t x,
		    uint64_t y, unsigned *flags)
{
	uint64_t in[3] = { x, y, 0 }, out = 0;
	fpref_emu_op(op, f, in, env, env->sr_random, &out, flags);
	return out;
}

static uint64_t pairwise(const struct fpref_format *f, const struct fpref_env *env, const uint64_t *p, size_t n,
			 unsigned *flags)
{
	if (n == 1)
		return p[0];
	size_t half = n / 2;
	return op2(FPREF_OP_ADD, f, env, pairwise(f, env, p, half, flags), pairwise(f, env, p + half, n - half, flags),
		   flags);
}

int fpref_emu_dot(enum fpref_sum_order order, size_t block, const struct fpref_format *in_a, const struct fpref_format *in_b,
		  const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *acc,
		  const struct fpref_env *env, uint64_t *d, unsigned *flags)
{
	if (acc->man_bits > FPREF_OP_MAX_MAN_BITS || (order == FPREF_SUM_BLOCKED && block == 0))
		return -1;
	uint64_t *x = malloc((2 * K + 1) * sizeof *x);
	if (!x)
		return -1;
	uint64_t *y = x + K, *p = x + K; /* products overwrite y once x_k * y_k is formed */
	struct fpref_env exact = *env;
	for (size_t k = 0; k < K; k++) {
		if (fpref_emu_convert(in_a, a[k], acc, &exact, 0, &x[k], flags) != 0 ||
		    fpref_emu_convert(in_b, b[k], acc, &exact, 0, &y[k], flags) != 0) {
			free(x);
			return -1;
		}
	}
	uint64_t s = c;
	if (order == FPREF_SUM_FMA_CHAIN) {
		for (size_t k = 0; k < K; k++) {
			uint64_t args[3] = { x[k], y[k], s };
			fpref_emu_op(FPREF_OP_FMA, acc, args, env, env->sr_random, &s, flags);
		}
		*d = s;
		free(x);
		return 0;
	}
	for (size_t k = 0; k < K; k++)
		p[k] = op2(FPREF_OP_MUL, acc, env, x[k], y[k], flags);
	switch (order) {
	case FPREF_SUM_RECURSIVE:
		for (size_t k = 0; k < K; k++)
			s = op2(FPREF_OP_ADD, acc, env, s, p[k], flags);
		break;
	case FPREF_SUM_PAIRWISE:
		if (K > 0)
			s = op2(FPREF_OP_ADD, acc, env, s, pairwise(acc, env, p, K, flags), flags);
		break;
	case FPREF_SUM_BLOCKED:
		for (size_t k = 0; k < K; k += block) {
			uint64_t t = p[k];
			for (size_t j = k + 1; j < K && j < k + block; j++)
				t = op2(FPREF_OP_ADD, acc, env, t, p[j], flags);
			s = op2(FPREF_OP_ADD, acc, env, s, t, flags);
		}
		break;
	case FPREF_SUM_KAHAN: {
		uint64_t comp = fpref_format_zero_bits(acc, false);
		for (size_t k = 0; k < K; k++) {
			uint64_t yk = op2(FPREF_OP_SUB, acc, env, p[k], comp, flags);
			uint64_t t = op2(FPREF_OP_ADD, acc, env, s, yk, flags);
			comp = op2(FPREF_OP_SUB, acc, env, op2(FPREF_OP_SUB, acc, env, t, s, flags), yk, flags);
			s = t;
		}
		break;
	}
	case FPREF_SUM_FMA_CHAIN:
		break;
	}
	*d = s;
	free(x);
	return 0;
}
