/* Arithmetic on arrays.  A context is built once per (operation, format,
 * environment); for formats of 8 bits or fewer it holds every result of
 * the operation, computed by fpref_emu_op, so that each element is a
 * lookup (checked against fpref_emu_op on every operand pair in
 * tests/check_ops.c). */
#include <stdlib.h>

#include "fpref_emu.h"

struct fpref_emu_op_context {
	enum fpref_op op;
	struct fpref_format f;
	struct fpref_env env;
	size_t bytes;
	int arity;
	unsigned codes_bits;  /* container bits when tabled, else 0 */
	uint8_t *bits;        /* results, indexed a | b << codes_bits */
	uint8_t *flags;
};

static uint64_t load(const void *in, size_t i, size_t bytes)
{
	const unsigned char *p = (const unsigned char *)in + i * bytes;
	uint64_t v = 0;
	for (size_t b = 0; b < bytes; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

static void store(void *out, size_t i, size_t bytes, uint64_t v)
{
	unsigned char *p = (unsigned char *)out + i * bytes;
	for (size_t b = 0; b < bytes; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

struct fpref_emu_op_context *fpref_emu_op_context_new(enum fpref_op op, const struct fpref_format *f,
						      const struct fpref_env *env)
{
	char err[128];
	if (fpref_format_validate(f, err, sizeof err) != 0 || f->man_bits > FPREF_OP_MAX_MAN_BITS)
		return NULL;
	struct fpref_emu_op_context *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->op = op;
	c->f = *f;
	c->env = *env;
	c->bytes = fpref_emu_element_bytes(f);
	c->arity = fpref_op_arity(op);
	unsigned bits = (unsigned)fpref_format_container_bits(f);
	if (bits <= 8 && c->arity <= 2 && env->rounding != FPREF_SR) {
		size_t entries = (size_t)1 << (bits * (unsigned)c->arity);
		c->bits = malloc(entries);
		c->flags = malloc(entries);
		if (!c->bits || !c->flags) {
			fpref_emu_op_context_free(c);
			return NULL;
		}
		c->codes_bits = bits;
		uint64_t mask = ((uint64_t)1 << bits) - 1;
		for (size_t k = 0; k < entries; k++) {
			uint64_t in[3] = { k & mask, k >> bits, 0 }, out = 0;
			unsigned fl = 0;
			fpref_emu_op(op, f, in, env, 0, &out, &fl);
			c->bits[k] = (uint8_t)out;
			c->flags[k] = (uint8_t)fl;
		}
	}
	return c;
}

void fpref_emu_op_context_free(struct fpref_emu_op_context *c)
{
	if (!c)
		return;
	free(c->bits);
	free(c->flags);
	free(c);
}

size_t fpref_emu_op_array(const struct fpref_emu_op_context *c, const void *a, const void *b, const void *cc,
			  void *out, size_t n, uint8_t *flags, uint64_t first_index)
{
	const void *operands[3] = { a, b, cc };
	size_t invalid = 0;
	if (c->codes_bits && c->bytes == 1) {
		const uint8_t *x = a, *y = b;
		uint8_t *z = out;
		uint8_t mask = (uint8_t)((1u << c->codes_bits) - 1);
		size_t out_of_range = 0;
		for (size_t i = 0; i < n; i++) {
			size_t k = (size_t)(x[i] & mask) | (c->arity == 2 ? (size_t)(y[i] & mask) << c->codes_bits : 0);
			out_of_range += (x[i] & ~mask) != 0 || (c->arity == 2 && (y[i] & ~mask) != 0);
			z[i] = c->bits[k];
			if (flags)
				flags[i] = c->flags[k];
		}
		if (!out_of_range)
			return 0;
		/* rare: patterns outside the format; redo those elements below */
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t in[3] = { 0, 0, 0 }, result = 0;
		for (int j = 0; j < c->arity; j++)
			in[j] = load(operands[j], i, c->bytes);
		unsigned fl = 0;
		if (fpref_emu_op(c->op, &c->f, in, &c->env, fpref_env_sr_random(&c->env, first_index + i), &result, &fl) !=
		    0) {
			unsigned ignored = 0;
			result = c->f.specials == FPREF_SPECIALS_NONE ? 0
								       : fpref_emu_pack_nan(&c->f, &c->env, false, false, &ignored);
			fl = FPREF_FLAG_INVALID;
			invalid++;
		}
		store(out, i, c->bytes, result);
		if (flags)
			flags[i] = (uint8_t)fl;
	}
	return invalid;
}
