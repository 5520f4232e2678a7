/* The emulator's one rounding core, for the library's own sources
 * (emu/, and golden/ above it): not installed, so that the public headers
 * hold no 128-bit type (unsigned __int128 is a GCC/Clang extension). */
#ifndef FPREF_ROUND_CORE_H
#define FPREF_ROUND_CORE_H

#include "fpref_emu.h"

/* An unrounded significand: 128 bits, so that an operation can hand the
 * core the target's precision plus every stochastic-rounding bit and more. */
typedef unsigned __int128 fpref_u128;

/* The one rounding core.  Rounds (-1)^negative * (sig + sticky) * 2^exp to
 * format f under env, where sticky means "and something nonzero below bit
 * 0" (callers keep at least sr_width + 2 exact bits below the target's last
 * place whenever sticky is set).  sig == 0 with sticky clear is an exact
 * zero.  ORs the raised flags into *flags and returns the bits. */
uint64_t fpref_emu_round_pack(const struct fpref_format *f, const struct fpref_env *env, uint64_t sr_random,
			      bool negative, int32_t exp, fpref_u128 sig, bool sticky, unsigned *flags);

/* A format's constants for the core, for a caller that rounds many values
 * to one format (a GEMM rounds every block): computed once here, they spare
 * the core's common path its calls into the formats layer per value.  The
 * format must outlive it and stay unchanged. */
struct fpref_emu_round_target {
	const struct fpref_format *format;
	int emax;                 /* fpref_format_max_exponent */
	uint64_t max_significand; /* of max finite, with its leading bit */
};

void fpref_emu_round_target_init(struct fpref_emu_round_target *t, const struct fpref_format *f);

/* fpref_emu_round_pack to t's format: the same routine, the same bits and flags. */
uint64_t fpref_emu_round_pack_target(const struct fpref_emu_round_target *t, const struct fpref_env *env,
				     uint64_t sr_random, bool negative, int32_t exp, fpref_u128 sig, bool sticky,
				     unsigned *flags);

/* For the loops over many values (the batch rounding below, the GEMM's
 * tile kernels in tc_tile.c and tc_tile_tree.c), written so that
 * compilers vectorise them: the clones pick AVX-512 (x86-64-v4) or AVX2
 * where the machine has it.  Integer arithmetic: every clone gives the
 * same bits. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define FPREF_EMU_LANE_CLONES                                                          \
	__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"),            \
		       optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define FPREF_EMU_LANE_CLONES
#endif

/* A lane loop once per instruction set by hand, where the clones above
 * would all count leading bits one way: entry (the function's linkage,
 * type and name) calls name##_body(args..., search) in the variant the
 * CPU takes, search true where the leading bits should come from the
 * branch-free search below.  AVX-512 counts them in one instruction per
 * vector (__builtin_clz vectorises there), AVX2, which has no such
 * instruction, by the search (its loop vectorises), and the base
 * instruction set, whose loop does not vectorise at all, one scalar count
 * per value.  The bodies return nothing. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define FPREF_EMU_LANE_OPTIMIZE optimize("tree-vectorize", "vect-cost-model=dynamic")
#define FPREF_EMU_LANE_VARIANTS(entry, name, params, ...)                                            \
	__attribute__((target("arch=x86-64-v4"), FPREF_EMU_LANE_OPTIMIZE)) static void name##_v4 params \
	{                                                                                            \
		name##_body(__VA_ARGS__, false);                                                     \
	}                                                                                            \
	__attribute__((target("avx2"), FPREF_EMU_LANE_OPTIMIZE)) static void name##_avx2 params       \
	{                                                                                            \
		name##_body(__VA_ARGS__, true);                                                      \
	}                                                                                            \
	__attribute__((FPREF_EMU_LANE_OPTIMIZE)) static void name##_base params                      \
	{                                                                                            \
		name##_body(__VA_ARGS__, false);                                                     \
	}                                                                                            \
	entry params                                                                                 \
	{                                                                                            \
		if (__builtin_cpu_supports("x86-64-v4"))                                             \
			name##_v4(__VA_ARGS__);                                                      \
		else if (__builtin_cpu_supports("avx2"))                                             \
			name##_avx2(__VA_ARGS__);                                                    \
		else                                                                                 \
			name##_base(__VA_ARGS__);                                                    \
	}
#else
#define FPREF_EMU_LANE_VARIANTS(entry, name, params, ...)                                            \
	entry params                                                                                 \
	{                                                                                            \
		name##_body(__VA_ARGS__, false);                                                     \
	}
#endif

/* The core's parts inlined into it, and the core into its entry points
 * and the tile kernels' lane loops (round_word.h's rounding, which
 * tc_tile_tree.c takes too), so that a loop over many values keeps the
 * format's and environment's fields in registers. */
#if defined(__GNUC__)
#define CORE_INLINE __attribute__((always_inline)) inline
#else
#define CORE_INLINE inline
#endif

/* The fields of FP32 that the common case of a rounding reads (and only
 * those), as a constant whose fields a compiler folds: for loops whose
 * target is FP32 (the batch rounding's FP32 case, which checks that its
 * target has these fields, and tc_tile_tree.c's FP32 lanes, whose output
 * is FP32). */
static const struct fpref_format fpref_emu_binary32_fields = { .exp_bits = 8, .man_bits = 23, .bias = 127,
							       .is_signed = true, .has_zero = true };

/* The place of x's leading bit (x not 0), for those loops: a binary
 * search in selections, not a leading-zero count, which AVX2 has no
 * vector instruction for (a loop with __builtin_clz vectorises only in
 * the AVX-512 clone).  Written out step by step: a loop of the steps
 * inside theirs would stop the vectoriser. */
#define FPREF_EMU_LEAD_STEP(x, lead, bits, s)                              \
	do {                                                               \
		bool low_ = (x) >> ((bits) - (s)) == 0;                    \
		(lead) -= low_ ? (s) : 0;                                  \
		(x) = low_ ? (x) << (s) : (x);                             \
	} while (0)
/* the steps of 16 places and fewer, common to both widths */
#define FPREF_EMU_LEAD_STEPS(x, lead, bits)                                \
	do {                                                               \
		FPREF_EMU_LEAD_STEP(x, lead, bits, 16);                    \
		FPREF_EMU_LEAD_STEP(x, lead, bits, 8);                     \
		FPREF_EMU_LEAD_STEP(x, lead, bits, 4);                     \
		FPREF_EMU_LEAD_STEP(x, lead, bits, 2);                     \
		FPREF_EMU_LEAD_STEP(x, lead, bits, 1);                     \
	} while (0)

static inline int32_t fpref_emu_lead_bit32(uint32_t x)
{
	int32_t lead = 31;
	FPREF_EMU_LEAD_STEPS(x, lead, 32);
	return lead;
}

static inline int64_t fpref_emu_lead_bit64(uint64_t x)
{
	int64_t lead = 63;
	FPREF_EMU_LEAD_STEP(x, lead, 64, 32);
	FPREF_EMU_LEAD_STEPS(x, lead, 64);
	return lead;
}

/* sum[i] * 2^exp[i] for i below n (exact: no sticky bits) rounded to t's
 * format as fpref_emu_round_pack rounds them: the same routine in one loop,
 * so that a caller with many values (a GEMM's tile) pays for one call. */
void fpref_emu_round_pack_sums(const struct fpref_emu_round_target *t, const struct fpref_env *env, size_t n,
			       const int64_t *sum, const int32_t *exp, uint64_t *restrict out, unsigned *restrict flags);

/* fpref_emu_round_pack_sums for sums in 32 bits, to a format of 32 bits or
 * fewer: the same rounding, twice as many lanes per instruction. */
void fpref_emu_round_pack_sums32(const struct fpref_emu_round_target *t, const struct fpref_env *env, size_t n,
				 const int32_t *sum, const int32_t *exp, uint32_t *restrict out, unsigned *restrict flags);

#endif
