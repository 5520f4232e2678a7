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
#include "element.h"

enum path { PATH_GENERIC, PATH_TABLE, PATH_FP32_VECTOR };
/* The instruction sets the FP32 path is compiled for. */
enum isa { ISA_BASE, ISA_AVX2, ISA_AVX512 };

/* Constants of the FP32 fast path, all derived from the target's row. */
struct fp32_plan {
	uint32_t rebias;       /* FP32's exponent field less the target's: (127 - bias) << 23 */
	uint32_t normal_from;  /* the least |x| bits with a normal result: (127 + least normal) << 23, or 0 */
	int32_t up_from;       /* 32 minus the lane's shift: FP32's exponent field plus this, */
	int32_t up_least;      /* at least this (a shift of 25 clears a subnormal's significand), */
	int32_t up_most;       /* at most this (the shift to the target's last place) */
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
	int m = to->man_bits, least_normal = fpref_format_min_exponent(to);
	if (least_normal != 1 - to->bias || least_normal < -126 || fpref_format_max_exponent(to) > 127)
		return false;
	/* Below the least normal a lane rounds FP32's significand with the
	 * implicit bit set, FP32's subnormals and zero included, at the shift
	 * of exponent -126 or deeper (up_from counts FP32's field 0 as -127,
	 * one place deeper still).  That is exact where all of FP32's
	 * subnormals lie within half the target's least subnormal, so that
	 * their results are zero whatever the lane makes of them (the shift
	 * then reaches the cap of 25: rounding any 24-bit significand to 0), or
	 * where there is no rebias: bias 127, all of |x| through the normal
	 * rounding, FP32's subnormals landing on the target's own. */
	bool no_rebias = to->bias == 127;
	if (!no_rebias && least_normal - m < -125)
		return false;
	unsigned ignored = 0;
	uint64_t nan = 0;
	uint32_t max_code = (uint32_t)fpref_format_max_bits(to, false);
	plan->rebias = (uint32_t)(127 - to->bias) << 23;
	plan->normal_from = no_rebias ? 0 : (uint32_t)(127 + least_normal) << 23;
	/* shift = (23 - m) + (least_normal - (field - 127)), clamped to
	 * [23 - m, 25]; the lanes keep 32 - shift, which also gives half an
	 * ulp less one as 0x7FFFFFFF >> (32 - shift) */
	plan->up_from = m - least_normal - 118;
	plan->up_most = 9 + m;
	plan->up_least = no_rebias ? plan->up_most : 7;
	plan->sign_shift = (uint32_t)(to->exp_bits + to->man_bits);
	plan->nan_code = (uint32_t)fpref_emu_pack_nan(to, env, false, false, &ignored);
	plan->nan_signed = (to->specials == FPREF_SPECIALS_IEEE || to->specials == FPREF_SPECIALS_FN) &&
			   env->nan_style == FPREF_NAN_SIGNED_QUIET;
	plan->zero_unsigned = to->specials == FPREF_SPECIALS_FNUZ;
	/* Overflow under rne goes to inf, or NaN where there is no inf. */
	if (env->overflow == FPREF_OVERFLOW_SAT || to->specials == FPREF_SPECIALS_NONE)
		plan->inf_code = max_code;
	else if (fpref_format_inf_bits(to, false, &nan))
		plan->inf_code = (uint32_t)nan;
	else if (fpref_format_nan_bits(to, false, &nan))
		plan->inf_code = (uint32_t)nan; /* the sign is added as for numbers */
	else
		return false;
	/* the lanes clamp with min(): every pattern above max must land on inf_code */
	return plan->inf_code == max_code || plan->inf_code == max_code + 1;
}

/* FP32 to the target in GCC/Clang vector extensions, eight lanes (sixteen
 * with AVX-512) at a time.  One round-to-nearest-even shift per lane: a
 * result in the target's normal range rounds |x| itself, rebiased, at the
 * target's last place, so that a carry out of the significand steps the
 * exponent; one below it rounds FP32's significand deeper.  Each lane
 * picks its operand and its shift, and everything after the shift is the
 * same for both; the lanes are checked against the core (tests/check_emu.c).
 * The operation count is what sets the speed: with one FP32 element of 4
 * bytes in and 1 out, even a few dozen vector operations per register
 * keep a core below its memory bandwidth. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi" /* the vector helpers are always inlined: no call passes a vector; GCC reports at the end of the file */
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));
/* sixteen lanes: one AVX-512 register */
typedef uint32_t u32x16 __attribute__((vector_size(64)));
typedef int32_t i32x16 __attribute__((vector_size(64)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint8_t u8x16 __attribute__((vector_size(16)));

/* mask ? yes : no, lane by lane (masks are all ones or all zeros); GCC
 * turns the compare-and-pick forms into blends and min/max instructions */
#define PICK(mask, yes, no) (((mask) & (yes)) | (~(mask) & (no)))
#define LANE_MIN(a, b) PICK((a) < (b), a, b)
#define LANE_MAX(a, b) PICK((a) > (b), a, b)

/* The lanes' arithmetic, once for each width (U unsigned, I signed lanes):
 * the same source, so the same bits.  Every value compared is below 2^31
 * (magnitudes, codes of 16 bits or fewer), so the compares are signed
 * ones, which AVX2 has (an unsigned compare costs it three more
 * instructions).  p is a copy (in registers: no store
 * can alias it); nan_signed and zero_unsigned are the plan's own, passed
 * as constants where the caller knows them so that the dead steps vanish. */
#define FP32_LANES(NAME, U, I)                                                                                     \
	static inline __attribute__((always_inline)) U NAME(const struct fp32_plan p, bool nan_signed,               \
							  bool zero_unsigned, U x)                                   \
	{                                                                                                            \
		const U zero = { 0 };                                                                                \
		const I izero = { 0 };                                                                               \
		U mag = x & 0x7FFFFFFFu;                                                                             \
		/* 32 minus the shift, from the exponent field (see plan_fp32) */                                    \
		I up = (I)(mag >> 23) + p.up_from;                                                                   \
		up = LANE_MAX(up, izero + p.up_least);                                                               \
		up = LANE_MIN(up, izero + p.up_most);                                                                \
		U shift = 32u - (U)up;                                                                               \
		U r = PICK((U)((I)mag >= (int32_t)p.normal_from), mag - p.rebias, (mag & 0x7FFFFFu) | 0x800000u);    \
		/* + half an ulp less one, + the kept lsb: ties to even */                                           \
		U q = (r + (0x7FFFFFFFu >> (U)up) + ((r >> shift) & 1u)) >> shift;                                   \
		q = (U)LANE_MIN((I)q, izero + (int32_t)p.inf_code); /* beyond max: max + 1 or max (plan_fp32) */   \
		U nan = (U)((I)mag > 0x7F800000);                                                                    \
		q = PICK(nan, zero + p.nan_code, q);                                                                 \
		U sign = (x >> (31 - p.sign_shift)) & (1u << p.sign_shift);                                          \
		if (!nan_signed)                                                                                     \
			sign &= ~nan;                                                                                \
		if (zero_unsigned)                                                                                   \
			sign &= (U)(q != 0u);                                                                        \
		return q | sign;                                                                                     \
	}
FP32_LANES(fp32_lanes8, u32x8, i32x8)
FP32_LANES(fp32_lanes16, u32x16, i32x16)

/* The whole registers of a loop below through LANES, stored as T from
 * the narrow vector NARROW by way of 16-bit lanes U16: GCC narrows eight
 * 32-bit lanes to bytes in one step with some thirty scalar instructions
 * on AVX2, and in two steps with two packs */
#define FP32_WHOLE(LANES, U, W, T, NARROW, U16)                                                                    \
	for (size_t i = 0; i < whole; i += W) {                                                                      \
		U x;                                                                                                 \
		memcpy(&x, in + i, sizeof x);                                                                        \
		NARROW y = __builtin_convertvector(                                                                  \
			__builtin_convertvector(LANES(p, nan_signed, zero_unsigned, x), U16), NARROW);              \
		memcpy((T *)out + i, &y, sizeof y);                                                                  \
	}

/* Every element through the lanes: whole registers, then the last partial
 * one through a zero-padded copy, so that one piece of code computes every
 * element.  The store width is fixed per loop, which keeps each loop a
 * straight run of vector instructions. */
#define FP32_LOOP(NAME, LANES, U, W, U8, U16)                                                                      \
	static inline __attribute__((always_inline)) void NAME(const struct fp32_plan *plan, bool nan_signed,        \
							     bool zero_unsigned, const uint32_t *in, void *out,      \
							     size_t n, size_t out_bytes)                             \
	{                                                                                                            \
		const struct fp32_plan p = *plan;                                                                    \
		size_t whole = n / W * W;                                                                            \
		if (out_bytes == 1)                                                                                  \
			FP32_WHOLE(LANES, U, W, uint8_t, U8, U16)                                                    \
		else                                                                                                 \
			FP32_WHOLE(LANES, U, W, uint16_t, U16, U16)                                                  \
		if (whole == n)                                                                                      \
			return;                                                                                      \
		U x = { 0 };                                                                                         \
		memcpy(&x, in + whole, (n - whole) * sizeof *in);                                                    \
		U r = LANES(p, nan_signed, zero_unsigned, x);                                                        \
		for (size_t k = 0; k < n - whole; k++)                                                               \
			fpref_element_store(out, whole + k, out_bytes, r[k]);                                        \
	}
FP32_LOOP(fp32_loop8, fp32_lanes8, u32x8, 8, u8x8, u16x8)
FP32_LOOP(fp32_loop16, fp32_lanes16, u32x16, 16, u8x16, u16x16)

/* The loop with the plan's sign rules as constants for the usual targets
 * (IEEE-style NaN keeps its sign; FNUZ has neither -0 nor a signed NaN),
 * and as variables for the rest. */
#define FP32_SIGN_RULES(LOOP, p, in, out, n, out_bytes)                                                            \
	do {                                                                                                         \
		if ((p)->nan_signed && !(p)->zero_unsigned)                                                          \
			LOOP(p, true, false, in, out, n, out_bytes);                                                 \
		else if (!(p)->nan_signed && (p)->zero_unsigned)                                                     \
			LOOP(p, false, true, in, out, n, out_bytes);                                                 \
		else                                                                                                 \
			LOOP(p, (p)->nan_signed, (p)->zero_unsigned, in, out, n, out_bytes);                         \
	} while (0)

/* Compiled once per instruction set (the same source, so the same bits);
 * the converter runs the widest the CPU has, and the tests run each
 * against the core. */
static void fp32_to_narrow_base(const struct fp32_plan *p, const uint32_t *in, void *out, size_t n, size_t out_bytes)
{
	FP32_SIGN_RULES(fp32_loop8, p, in, out, n, out_bytes);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define FP32_ISA_VARIANTS 1
__attribute__((target("avx2"))) static void fp32_to_narrow_avx2(const struct fp32_plan *p, const uint32_t *in,
								 void *out, size_t n, size_t out_bytes)
{
	FP32_SIGN_RULES(fp32_loop8, p, in, out, n, out_bytes);
}

/* AVX-512 BW and VL: sixteen lanes a register, the compares into mask
 * registers and the narrowing stores (vpmovdb, vpmovdw) */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
fp32_to_narrow_avx512(const struct fp32_plan *p, const uint32_t *in, void *out, size_t n, size_t out_bytes)
{
	FP32_SIGN_RULES(fp32_loop16, p, in, out, n, out_bytes);
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
