/* Bulk conversion: a generic loop over the core, and two fast paths that
 * are checked exhaustively against it (tests/check_emu.c):
 *  - "table": a source of 8 bits or fewer has at most 256 patterns, so
 *    every result (bits and flags) is computed once by the core;
 *  - "fp32-vector": FP32 to a narrower format under round to nearest even,
 *    bits only, as branch-free integer arithmetic on eight lanes at once
 *    (sixteen with AVX-512), compiled for AVX-512 (F, BW, VL), AVX2 and
 *    the base instruction set and chosen at run time by what the CPU has;
 *    the tests hold each one this CPU has against the others, and the
 *    converter's choice against the core. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "convert_lanes.h"
#include "element.h"

enum path { PATH_GENERIC, PATH_TABLE, PATH_VECTOR };

struct fpref_emu_converter {
	struct fpref_format from, to;
	struct fpref_env env;
	enum path path;
	enum lanes_isa isa;    /* of the vector path */
	size_t in_bytes, out_bytes;
	uint64_t table_bits[256];
	uint8_t table_flags[256];
	bool table_invalid[256], any_invalid;
	uint8_t table8[256];   /* table_bits, narrowed: the loops' */
	uint16_t table16[256];
	uint32_t table32[256];
	struct lanes_plan plan;
};

size_t fpref_emu_element_bytes(const struct fpref_format *f)
{
	int bits = fpref_format_container_bits(f);
	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

const char *fpref_emu_converter_isa(const struct fpref_emu_converter *c)
{
	return fpref_emu_lanes_isa_names[c->isa];
}

int fpref_emu_converter_use_isa(struct fpref_emu_converter *c, const char *name)
{
	return fpref_emu_lanes_isa_parse(name, &c->isa);
}

static uint64_t invalid_result(const struct fpref_format *to, const struct fpref_env *env)
{
	unsigned ignored = 0;
	return to->specials == FPREF_SPECIALS_NONE ? 0 : fpref_emu_pack_nan(to, env, false, false, &ignored);
}

struct fpref_emu_converter *fpref_emu_converter_new(const struct fpref_format *from, const struct fpref_format *to,
						    const struct fpref_env *env)
{
	char err[128];
	if (fpref_format_validate(from, err, sizeof err) != 0 || fpref_format_validate(to, err, sizeof err) != 0)
		return NULL;
	struct fpref_emu_converter *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->from = *from;
	c->to = *to;
	c->env = *env;
	c->in_bytes = fpref_emu_element_bytes(from);
	c->out_bytes = fpref_emu_element_bytes(to);
	c->path = PATH_GENERIC;
	/* explicit stochastic bits are one R for every element: a table too */
	bool same_r = env->rounding != FPREF_SR || (!env->sr_seeded && !env->sr_lanes);
	if (fpref_format_container_bits(from) <= 8 && same_r) {
		c->path = PATH_TABLE;
		for (uint64_t b = 0; b < 256; b++) {
			unsigned flags = 0;
			c->table_invalid[b] = fpref_emu_convert(from, b, to, env, fpref_env_sr_random(env, 0), &c->table_bits[b],
								&flags) != 0;
			if (c->table_invalid[b]) {
				c->table_bits[b] = invalid_result(to, env);
				flags = FPREF_FLAG_INVALID;
				c->any_invalid = true;
			}
			c->table_flags[b] = (uint8_t)flags;
			c->table8[b] = (uint8_t)c->table_bits[b];
			c->table16[b] = (uint16_t)c->table_bits[b];
			c->table32[b] = (uint32_t)c->table_bits[b];
		}
	} else if (fpref_emu_lanes_plan_stream(from, to, env, &c->plan)) {
		c->path = PATH_VECTOR;
	}
	c->isa = fpref_emu_lanes_isa_available(LANES_ISA_AVX512) ? LANES_ISA_AVX512
		 : fpref_emu_lanes_isa_available(LANES_ISA_AVX2) ? LANES_ISA_AVX2
							     : LANES_ISA_BASE;
	return c;
}

void fpref_emu_converter_free(struct fpref_emu_converter *c)
{
	free(c);
}

const char *fpref_emu_converter_path(const struct fpref_emu_converter *c)
{
	if (c->path != PATH_VECTOR)
		return c->path == PATH_TABLE ? "table" : "generic";
	if (c->in_bytes != 2)
		return c->in_bytes == 4 ? "fp32-vector" : c->plan.host_f32 ? "fp64-host-vector" : "fp64-vector";
	return c->from.man_bits == 10 ? "fp16-vector" : c->from.man_bits == 7 ? "bf16-vector" : "16-bit-vector";
}

/* The table path's loop for one output width: a load, a lookup and a
 * store per element, which compilers keep in registers. */
#define TABLE_LOOP(T, table)                                                                                       \
	do {                                                                                                         \
		const uint8_t *x_ = in;                                                                              \
		T *y_ = out;                                                                                         \
		for (size_t i = 0; i < n; i++)                                                                       \
			y_[i] = (table)[x_[i]];                                                                      \
	} while (0)

static size_t table_convert(const struct fpref_emu_converter *c, const void *in, void *out, size_t n, uint8_t *flags)
{
	switch (c->out_bytes) {
	case 1:
		TABLE_LOOP(uint8_t, c->table8);
		break;
	case 2:
		TABLE_LOOP(uint16_t, c->table16);
		break;
	case 4:
		TABLE_LOOP(uint32_t, c->table32);
		break;
	default:
		TABLE_LOOP(uint64_t, c->table_bits);
		break;
	}
	const uint8_t *x = in;
	if (flags)
		for (size_t i = 0; i < n; i++)
			flags[i] = c->table_flags[x[i]];
	size_t invalid = 0;
	for (size_t i = 0; c->any_invalid && i < n; i++)
		invalid += c->table_invalid[x[i]];
	return invalid;
}

size_t fpref_emu_convert_array(const struct fpref_emu_converter *c, const void *in, void *out, size_t n,
			       uint8_t *flags, uint64_t first_index)
{
	size_t invalid = 0;
	if (c->path == PATH_VECTOR && c->plan.sr_stream) { /* every source pattern valid; R made in the lanes */
		struct lanes_plan p = c->plan;
		p.first_index = first_index;
		fpref_emu_lanes_convert(c->isa, &p, in, out, n, flags);
		return 0;
	}
	if (c->path == PATH_VECTOR) { /* every source pattern valid */
		fpref_emu_lanes_convert(c->isa, &c->plan, in, out, n, flags);
		return 0;
	}
	if (c->path == PATH_TABLE)
		return table_convert(c, in, out, n, flags);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = fpref_element_load(in, i, c->in_bytes), y;
		unsigned f = 0;
		bool bad = fpref_emu_convert(&c->from, x, &c->to, &c->env, fpref_env_sr_random(&c->env, first_index + i), &y,
					     &f) != 0;
		if (bad) {
			y = invalid_result(&c->to, &c->env);
			f = FPREF_FLAG_INVALID;
			invalid++;
		}
		fpref_element_store(out, i, c->out_bytes, y);
		if (flags)
			flags[i] = (uint8_t)f;
	}
	return invalid;
}

/* One thread's slice of a threaded conversion. */
struct convert_part {
	const struct fpref_emu_converter *c;
	const void *in;
	void *out;
	size_t n;
	uint8_t *flags;
	uint64_t first_index;
	size_t invalid;
};

static void *convert_part_run(void *arg)
{
	struct convert_part *p = arg;
	p->invalid = fpref_emu_convert_array(p->c, p->in, p->out, p->n, p->flags, p->first_index);
	return NULL;
}

size_t fpref_emu_convert_array_threads(const struct fpref_emu_converter *c, const void *in, void *out, size_t n,
				       uint8_t *flags, uint64_t first_index, unsigned threads)
{
	enum { MAX_THREADS = 256, LEAST_SLICE = 4096 }; /* below a few thousand elements a thread costs more than it saves */
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads > n / LEAST_SLICE)
		threads = (unsigned)(n / LEAST_SLICE);
	if (threads <= 1)
		return fpref_emu_convert_array(c, in, out, n, flags, first_index);
	struct convert_part parts[MAX_THREADS];
	pthread_t ids[MAX_THREADS];
	bool started[MAX_THREADS] = { false };
	for (unsigned t = 0; t < threads; t++) {
		size_t first = n / threads * t, last = t + 1 == threads ? n : n / threads * (t + 1);
		parts[t] = (struct convert_part){ c, (const unsigned char *)in + first * c->in_bytes,
						  (unsigned char *)out + first * c->out_bytes, last - first,
						  flags ? flags + first : NULL, first_index + first, 0 };
	}
	for (unsigned t = 1; t < threads; t++)
		started[t] = pthread_create(&ids[t], NULL, convert_part_run, &parts[t]) == 0;
	convert_part_run(&parts[0]);
	size_t invalid = parts[0].invalid;
	for (unsigned t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(ids[t], NULL);
		else /* no thread to be had: this one converts the slice */
			convert_part_run(&parts[t]);
		invalid += parts[t].invalid;
	}
	return invalid;
}
