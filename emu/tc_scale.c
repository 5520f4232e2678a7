/* The tensor-core dot product's entries: with block scales (the scales
 * decoded and multiplied per chunk of products; fpref_emu_tc_dot_scaled,
 * which picks the model's path), without (fpref_emu_tc_dot, split-K), and
 * with the FP32 promotion of partial sums every nc products.  Apart from
 * tc_dot.c so that the scales' handling reads in one place, and above it:
 * this file calls tc_dot.c's paths, never the reverse. */
#include <stdint.h>
#include <stdlib.h>

#include "tc_internal.h"

/* One scale as sig * 2^(exp - man), UE4M3 read without its sign. */
int fpref_emu_tc_decode_scale(const struct fpref_format *f, uint64_t bits, struct scale_pair *s)
{
	struct fpref_unpacked u;
	if (f->is_signed)
		bits &= ~(1ull << (f->man_bits + f->exp_bits + f->pad_bits));
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	s->kind = u.cls == FPREF_CLASS_NAN ? NOT_A_NUMBER : u.cls == FPREF_CLASS_ZERO ? ZERO : FINITE;
	s->sig = s->kind == FINITE ? u.significand : 0;
	s->exp = s->kind == FINITE ? u.exponent + f->man_bits : 0;
	s->man = f->man_bits;
	return 0;
}

/* The products of each chunk's two scales (chunks of the model's group,
 * or of its block), for K products: NULL on a bad pattern or no memory. */
static struct scale_pair *scale_pairs(const struct fpref_tc_model *m, const struct fpref_tc_scales *s, size_t K)
{
	size_t unit = (size_t)(m->group > 0 ? m->group : m->block), chunks = (K + unit - 1) / unit;
	struct scale_pair *pairs = malloc((chunks ? chunks : 1) * sizeof *pairs);
	for (size_t j = 0; pairs && j < chunks; j++) {
		struct scale_pair x, y;
		size_t i = j * unit / s->every;
		if (fpref_emu_tc_decode_scale(s->format, s->a[i], &x) != 0 ||
		    fpref_emu_tc_decode_scale(s->format, s->b[i], &y) != 0) {
			free(pairs);
			return NULL;
		}
		pairs[j] = scale_product(&x, &y);
	}
	return pairs;
}

int fpref_emu_tc_dot_scaled(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			    uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	struct plan p;
	struct fpref_unpacked z;
	if (fpref_emu_tc_plan_init(&p, m, in_a, in_b, output) != 0 || fpref_decode(output, c, &z) == FPREF_DECODE_INVALID ||
			 !fpref_tc_scales_ok(m, scales) || (scales && fpref_tc_lowered(m, output)))
		return -1;
	int status = 0;
	if (fpref_tc_lowered(m, output)) {
		status = fpref_emu_tc_lowered_dot(m, in_a, in_b, a, b, K, c, output, d);
	} else if (m->tree > 0) {
		status = fpref_emu_tc_tree_dot(m, in_a, in_b, a, b, K, c, d);
	} else {
		struct scale_pair *pairs = scales ? scale_pairs(m, scales, K) : NULL;
		struct operands all, x, y;
		if ((scales && !pairs) || fpref_emu_tc_decode_pair(in_a, in_b, a, b, K, &all, &x, &y) != 0) {
			free(pairs);
			return -1;
		}
		*d = fpref_emu_tc_chain(&p, &x, &y, K, c, pairs);
		operands_free(&all);
		free(pairs);
	}
	if (status == 0)
		*d = fpref_tc_model_nan(m, output, *d);
	return status;
}

/* The promoted accumulation of one chunk's partial sum with scales. */
static uint64_t promote(const struct fpref_format *f32, const struct fpref_env *env, uint64_t scale_a,
			uint64_t scale_b, uint64_t partial, uint64_t acc)
{
	uint64_t scales[3] = { scale_a, scale_b, 0 }, s = 0;
	unsigned flags = 0;
	fpref_emu_op(FPREF_OP_MUL, f32, scales, env, 0, &s, &flags);
	uint64_t args[3] = { s, partial, acc };
	fpref_emu_op(FPREF_OP_FMA, f32, args, env, 0, &acc, &flags);
	return acc;
}

static const uint64_t fp32_one = 0x3F800000;

uint64_t fpref_emu_tc_chain_promoted(const struct plan *p, const struct fpref_env *env, const struct operands *a,
				     const struct operands *b, size_t K, size_t nc, const uint64_t *scale_a,
				     const uint64_t *scale_b, uint64_t acc)
{
	for (size_t k = 0, j = 0; k < K; k += nc, j++) {
		struct operands x = operands_at(a, k), y = operands_at(b, k);
		uint64_t partial = fpref_emu_tc_chain(p, &x, &y, K - k < nc ? K - k : nc, 0, NULL);
		acc = promote(p->output, env, scale_a ? scale_a[j] : fp32_one, scale_b ? scale_b[j] : fp32_one, partial,
			      acc);
	}
	return acc;
}

int fpref_emu_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const uint64_t *a, const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a,
			      const uint64_t *scale_b, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct plan p;
	struct fpref_unpacked z;
	if (nc == 0 || fpref_emu_tc_plan_init(&p, m, in_a, in_b, f32) != 0 || fpref_tc_lowered(m, f32) || m->tree > 0 ||
			 fpref_decode(f32, c, &z) == FPREF_DECODE_INVALID)
		return -1; /* promotion of lowered partial sums is not modelled */
	struct fpref_env env; /* FP32 arithmetic on ordinary cores: rne */
	fpref_env_default(&env);
	struct operands all, x, y;
	if (fpref_emu_tc_decode_pair(in_a, in_b, a, b, K, &all, &x, &y) != 0)
		return -1;
	*d = fpref_tc_model_nan(m, f32, fpref_emu_tc_chain_promoted(&p, &env, &x, &y, K, nc, scale_a, scale_b, c));
	operands_free(&all);
	return 0;
}

/* The entries without scales: the dot product (fpref_emu_tc_dot_scaled
 * with unit scales) and cuBLASLt's split-K order of it. */
int fpref_emu_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		     const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output,
		     uint64_t *d)
{
	return fpref_emu_tc_dot_scaled(m, in_a, in_b, a, b, K, NULL, c, output, d);
}

int fpref_emu_tc_dot_splitk(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			    const uint64_t *a, const uint64_t *b, size_t K, size_t S, uint64_t c, uint64_t *d)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_unpacked z;
	if (S == 0 || fpref_tc_lowered(m, f32) || fpref_decode(f32, c, &z) == FPREF_DECODE_INVALID)
		return -1;
	struct fpref_env env; /* the reduction kernel's FP32 arithmetic: rne */
	fpref_env_default(&env);
	uint64_t acc = 0, part = 0;
	unsigned flags = 0;
	for (size_t k = 0; k < K; k += S) {
		if (fpref_emu_tc_dot(m, in_a, in_b, a + k, b + k, K - k < S ? K - k : S, 0, f32, &part) != 0)
			return -1;
		uint64_t args[3] = { acc, part, 0 };
		fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, &acc, &flags);
	}
	uint64_t args[3] = { acc, c, 0 };
	fpref_emu_op(FPREF_OP_ADD, f32, args, &env, 0, d, &flags);
	*d = fpref_tc_model_nan(m, f32, *d);
	return 0;
}
