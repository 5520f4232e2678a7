/* Bulk conversion: a generic loop over the core, and two fast paths that
 * are checked exhaustively against it (tests/check_emu.c):
 *  - "table": a source of 8 bits or fewer has at most 256 patterns, so
 *    every result (bits and flags) is computed once by the core;
 *  - "fp32-vector": FP32 to a narrower format under round to nearest even,
 *    bits only, as branch-free integer arithmetic on eight lanes at once,
 *    compiled for AVX-512 (F, BW, VL), AVX2 and the base instruction set
 *    and chosen at run time by what the CPU has; the tests hold each one
 *    this CPU has against the others, and the converter's choice against
 *    the core. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "element.h"

enum path { PATH_GENERIC, PATH_TABLE, PATH_FP32_VECTOR };
/* The instruction sets the FP32 path is compiled for. */
enum isa { ISA_BASE, ISA_AVX2, ISA_AVX512 };

/* Constants of the FP32 fast path, all derived from the target's row. */
struct fp32_plan {
	uint32_t man_bits;
	int32_t bias;
	int32_t least_normal;  /* unbiased exponent of the target's least normal */
	uint32_t max_code;     /* positive max finite pattern */
	uint32_t inf_code;     /* pattern for overflow to "inf" (inf, NaN, or max) */
	uint32_t nan_code;     /* pattern for NaN inputs (sign added where the format keeps it) */
	uint32_t sign_shift;
	bool nan_signed;
	bool zero_unsigned;    /* fnuz: no -0 (its NaN already holds the sign bit) */
};

struct fpref_emu_converter {
	struct fpref_format from, to;
	struct fpref_env env;
	enum path path;
	enum isa isa;          /* of the fp32-vector path */
	size_t in_bytes, out_bytes;
	uint64_t table_bits[256];
	uint8_t table_flags[256];
	bool table_invalid[256];
	struct fp32_plan plan;
};

size_t fpref_emu_element_bytes(const struct fpref_format *f)
{
	int bits = fpref_format_container_bits(f);
	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

static bool is_float32(const struct fpref_format *f)
{
	return f->exp_bits == 8 && f->man_bits == 23 && f->bias == 127 && f->is_signed && f->has_zero &&
	       f->subnormals && f->specials == FPREF_SPECIALS_IEEE && f->pad_bits == 0;
}

/* The FP32 path covers targets whose whole range lies inside FP32's normal
 * range, with subnormals and zero, under rne without ftz/daz. */
static bool plan_fp32(const struct fpref_format *to, const struct fpref_env *env, struct fp32_plan *plan)
{
	uint64_t unused;
	/* ml_dtypes' NaN to a flipped zero (a per-lane sign) only where the target has no NaN */
	bool flipped_zero = env->nan_to_flipped_zero && !fpref_format_nan_bits(to, false, &unused);
	if (env->rounding != FPREF_RNE || env->ftz || env->daz || env->sat_inf_to_nan || flipped_zero || env->zero_positive ||
	    env->sat_keep_inf || env->p3109_sat_none || env->pre_scale || env->nan_to_signed_max ||
	    env->nan_style == FPREF_NAN_PROPAGATE || env->nan_style == FPREF_NAN_KEEP_BITS)
		return false; /* a NaN's payload is not in the lanes */
	if (!to->is_signed || to->integer || !to->has_zero || !to->subnormals || to->pad_bits != 0 || to->man_bits > 22 ||
	    fpref_format_container_bits(to) > 16)
		return false;
	int least = fpref_format_min_exponent(to) - to->man_bits;
	if (least < -149 || fpref_format_min_exponent(to) < -126 || fpref_format_max_exponent(to) > 127)
		return false;
	unsigned ignored = 0;
	uint64_t nan = 0;
	plan->man_bits = (uint32_t)to->man_bits;
	plan->bias = to->bias;
	plan->least_normal = fpref_format_min_exponent(to);
	plan->max_code = (uint32_t)fpref_format_max_bits(to, false);
	plan->sign_shift = (uint32_t)(to->exp_bits + to->man_bits);
	plan->nan_code = (uint32_t)fpref_emu_pack_nan(to, env, false, false, &ignored);
	plan->nan_signed = (to->specials == FPREF_SPECIALS_IEEE || to->specials == FPREF_SPECIALS_FN) &&
			   env->nan_style == FPREF_NAN_SIGNED_QUIET;
	plan->zero_unsigned = to->specials == FPREF_SPECIALS_FNUZ;
	/* Overflow under rne goes to inf, or NaN where there is no inf. */
	if (env->overflow == FPREF_OVERFLOW_SAT || to->specials == FPREF_SPECIALS_NONE)
		plan->inf_code = plan->max_code;
	else if (fpref_format_inf_bits(to, false, &nan))
		plan->inf_code = (uint32_t)nan;
	else if (fpref_format_nan_bits(to, false, &nan))
		plan->inf_code = (uint32_t)nan; /* the sign is added as for numbers */
	return true;
}

/* FP32 to the target, eight lanes at a time in GCC/Clang vector
 * extensions (per-lane shifts become single instructions with AVX2): round
 * the significand at the target's last place (deeper below its least
 * normal), rebias, then clamp. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi" /* the vector helpers are always inlined: no call passes a vector; GCC reports at the end of the file */
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));

static inline __attribute__((always_inline)) u32x8 pick(u32x8 mask, u32x8 yes, u32x8 no)
{
	return (mask & yes) | (~mask & no);
}

static inline __attribute__((always_inline)) u32x8 fp32_lanes(const struct fp32_plan *p, u32x8 x)
{
	const u32x8 zero = { 0 };
	u32x8 sign = x >> 31;
	u32x8 mag = x & 0x7FFFFFFFu;
	i32x8 biased = (i32x8)(mag >> 23);
	u32x8 normal = (u32x8)(biased != 0);
	u32x8 sig = (mag & 0x7FFFFFu) | (normal & 0x800000u);
	i32x8 unbiased = biased - (i32x8)(biased == 0) - 127; /* FP32 subnormals sit at exponent -126 */
	i32x8 below = p->least_normal - unbiased;
	below &= (i32x8)(below > 0);
	u32x8 shift = (u32x8)(below + (23 - (int32_t)p->man_bits));
	shift = pick((u32x8)(shift > 25u), zero + 25u, shift);
	u32x8 half = (1u << (shift - 1u)) - 1u;
	u32x8 k = (sig + half + ((sig >> shift) & 1u)) >> shift;
	i32x8 field = unbiased + (p->bias - 1);
	field &= (i32x8)(field > 0);
	u32x8 code = ((u32x8)field << p->man_bits) + k;
	code = pick((u32x8)(code > p->max_code), zero + p->inf_code, code);
	u32x8 nan = (u32x8)(mag > 0x7F800000u);
	code = pick(nan, zero + p->nan_code, code);
	u32x8 keep = ~nan | (zero + (p->nan_signed ? ~0u : 0u));
	keep &= ~((zero + (p->zero_unsigned ? ~0u : 0u)) & (u32x8)(code == 0u));
	return code | ((sign & keep & 1u) << p->sign_shift);
}

/* Every element through the lanes: whole blocks of eight, then the last
 * partial block through a zero-padded copy, so that one piece of code
 * computes every element.  The store width is fixed per loop, which keeps
 * each loop a straight run of vector instructions.  Compiled once per
 * instruction set below (the same source, so the same bits); the converter
 * runs the widest the CPU has, and the tests run each against the core. */
static inline __attribute__((always_inline)) void fp32_loop(const struct fp32_plan *p, const uint32_t *in, void *out,
							     size_t n, size_t out_bytes)
{
	size_t whole = n / 8 * 8;
	if (out_bytes == 1) {
		for (size_t i = 0; i < whole; i += 8) {
			u32x8 x;
			memcpy(&x, in + i, sizeof x);
			u8x8 y = __builtin_convertvector(fp32_lanes(p, x), u8x8);
			memcpy((uint8_t *)out + i, &y, sizeof y);
		}
	} else {
		for (size_t i = 0; i < whole; i += 8) {
			u32x8 x;
			memcpy(&x, in + i, sizeof x);
			u16x8 y = __builtin_convertvector(fp32_lanes(p, x), u16x8);
			memcpy((uint16_t *)out + i, &y, sizeof y);
		}
	}
	if (whole == n)
		return;
	u32x8 x = { 0 };
	memcpy(&x, in + whole, (n - whole) * sizeof *in);
	u32x8 r = fp32_lanes(p, x);
	for (size_t k = 0; k < n - whole; k++)
		fpref_element_store(out, whole + k, out_bytes, r[k]);
}

static void fp32_to_narrow_base(const struct fp32_plan *p, const uint32_t *in, void *out, size_t n, size_t out_bytes)
{
	fp32_loop(p, in, out, n, out_bytes);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define FP32_ISA_VARIANTS 1
__attribute__((target("avx2"))) static void fp32_to_narrow_avx2(const struct fp32_plan *p, const uint32_t *in,
								 void *out, size_t n, size_t out_bytes)
{
	fp32_loop(p, in, out, n, out_bytes);
}

/* AVX-512 BW and VL: the narrowing stores (vpmovdb, vpmovdw) and the
 * compares into mask registers, on the same eight lanes */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
fp32_to_narrow_avx512(const struct fp32_plan *p, const uint32_t *in, void *out, size_t n, size_t out_bytes)
{
	fp32_loop(p, in, out, n, out_bytes);
}
#endif

static const char *const isa_names[] = { "base", "avx2", "avx512" };

static bool isa_available(enum isa isa)
{
#ifdef FP32_ISA_VARIANTS
	__builtin_cpu_init();
	if (isa == ISA_AVX512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
	if (isa == ISA_AVX2)
		return __builtin_cpu_supports("avx2");
#endif
	return isa == ISA_BASE;
}

static void fp32_to_narrow(enum isa isa, const struct fp32_plan *p, const uint32_t *in, void *out, size_t n,
			   size_t out_bytes)
{
#ifdef FP32_ISA_VARIANTS
	if (isa == ISA_AVX512) {
		fp32_to_narrow_avx512(p, in, out, n, out_bytes);
		return;
	}
	if (isa == ISA_AVX2) {
		fp32_to_narrow_avx2(p, in, out, n, out_bytes);
		return;
	}
#endif
	fp32_to_narrow_base(p, in, out, n, out_bytes);
}

const char *fpref_emu_converter_isa(const struct fpref_emu_converter *c)
{
	return isa_names[c->isa];
}

int fpref_emu_converter_use_isa(struct fpref_emu_converter *c, const char *name)
{
	for (int i = 0; i < (int)(sizeof isa_names / sizeof isa_names[0]); i++)
		if (strcmp(name, isa_names[i]) == 0 && isa_available((enum isa)i)) {
			c->isa = (enum isa)i;
			return 0;
		}
	return -1;
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
	if (fpref_format_container_bits(from) <= 8 && env->rounding != FPREF_SR) {
		c->path = PATH_TABLE;
		for (uint64_t b = 0; b < 256; b++) {
			unsigned flags = 0;
			c->table_invalid[b] = fpref_emu_convert(from, b, to, env, 0, &c->table_bits[b], &flags) != 0;
			c->table_flags[b] = (uint8_t)flags;
		}
	} else if (is_float32(from) && plan_fp32(to, env, &c->plan)) {
		c->path = PATH_FP32_VECTOR;
	}
	c->isa = isa_available(ISA_AVX512) ? ISA_AVX512 : isa_available(ISA_AVX2) ? ISA_AVX2 : ISA_BASE;
	return c;
}

void fpref_emu_converter_free(struct fpref_emu_converter *c)
{
	free(c);
}

const char *fpref_emu_converter_path(const struct fpref_emu_converter *c)
{
	static const char *const names[] = { "generic", "table", "fp32-vector" };
	return names[c->path];
}

static uint64_t invalid_result(const struct fpref_format *to, const struct fpref_env *env)
{
	unsigned ignored = 0;
	return to->specials == FPREF_SPECIALS_NONE ? 0 : fpref_emu_pack_nan(to, env, false, false, &ignored);
}

size_t fpref_emu_convert_array(const struct fpref_emu_converter *c, const void *in, void *out, size_t n,
			       uint8_t *flags, uint64_t first_index)
{
	size_t invalid = 0;
	if (c->path == PATH_FP32_VECTOR && !flags) {
		fp32_to_narrow(c->isa, &c->plan, in, out, n, c->out_bytes);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t x = fpref_element_load(in, i, c->in_bytes), y;
		unsigned f = 0;
		bool bad;
		if (c->path == PATH_TABLE && x < 256) {
			y = c->table_bits[x];
			f = c->table_flags[x];
			bad = c->table_invalid[x];
		} else {
			bad = fpref_emu_convert(&c->from, x, &c->to, &c->env, fpref_env_sr_random(&c->env, first_index + i),
						&y, &f) != 0;
		}
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
