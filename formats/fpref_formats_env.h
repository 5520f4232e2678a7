/* fpref — the environment every operation runs under (DESIGN.md, "The
 * environment"), and the five IEEE flags in Berkeley SoftFloat's order. */
#ifndef FPREF_ENV_H
#define FPREF_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum fpref_rounding {
	FPREF_RNE, /* nearest, ties to even */
	FPREF_RNA, /* nearest, ties away from zero */
	FPREF_RTZ, /* toward zero */
	FPREF_RUP, /* toward +inf */
	FPREF_RDN, /* toward -inf */
	FPREF_ROD, /* round to odd: truncate, then set the last bit if inexact */
	FPREF_SR   /* stochastic, from explicit random bits */
};

enum fpref_overflow {
	FPREF_OVERFLOW_IEEE, /* inf or max finite as the mode says; NaN where the format has no inf */
	FPREF_OVERFLOW_SAT,  /* clamp to max finite; NaN stays NaN */
	FPREF_OVERFLOW_INF   /* inf whatever the rounding mode (NVIDIA's tensor cores, even under rtz); NaN where the format has no inf */
};

enum fpref_tininess {
	FPREF_TININESS_AFTER,  /* after rounding (x86, SoftFloat's default) */
	FPREF_TININESS_BEFORE  /* before rounding (Arm) */
};

enum fpref_flag {
	FPREF_FLAG_INEXACT = 1,
	FPREF_FLAG_UNDERFLOW = 2,
	FPREF_FLAG_OVERFLOW = 4,
	FPREF_FLAG_INFINITE = 8,
	FPREF_FLAG_INVALID = 16
};

/* Stochastic rounding: with r = sr_width random bits R = sr_random and ν the
 * discarded fraction of a last place (0 <= ν < 1), a value rounds away from
 * zero exactly when (the rules of IEEE P3109's StochasticA, B and C)
 *   A: floor(ν 2^r) + R >= 2^r   (the first r discarded bits plus R)
 *   B: floor(ν 2^(r+1)) + 2R + 1 >= 2^(r+1)   (one more bit, R centred)
 *   C: rne(ν 2^r) + R >= 2^r     (the discarded bits rounded to r, ties even)
 * When sr_seeded is set, R for the i-th value of a batch is
 * fpref_sr_stream(sr_seed, i) masked to r bits instead. */
enum fpref_sr_rule {
	FPREF_SR_A, /* the default, and fpref's sr before P3109 named it */
	FPREF_SR_B,
	FPREF_SR_C
};

/* Which NaN a result takes (profiles of known implementations differ). */
enum fpref_nan_style {
	FPREF_NAN_SIGNED_QUIET,      /* the canonical quiet NaN, keeping the sign where the format has one */
	FPREF_NAN_POSITIVE_ALL_ONES, /* positive, all mantissa bits set (CUDA: 0x7FFF, 0x7F) */
	/* A converted NaN keeps its sign and leading payload bits and gets the
	 * quiet bit (IEEE 754's recommendation; CUDA's __nv_cvt_double_to_fp8). */
	FPREF_NAN_PROPAGATE,
	/* A converted NaN keeps its sign, quiet bit and leading payload bits as
	 * they are, a signaling NaN staying signaling; the quiet bit is set only
	 * where nothing of the payload would be left (CUDA's __bfloat162float
	 * shifts the bits). */
	FPREF_NAN_KEEP_BITS
};

struct fpref_env {
	enum fpref_rounding rounding;
	enum fpref_overflow overflow;
	bool ftz;
	bool daz;
	enum fpref_tininess tininess;
	unsigned sr_width;   /* 1..64 */
	uint64_t sr_random;
	bool sr_seeded;
	uint64_t sr_seed;
	enum fpref_nan_style nan_style;
	bool sat_inf_to_nan;     /* under sat, an infinite input becomes NaN where the format has NaN (ONNX opsets 19-23, FNUZ) */
	bool nan_to_flipped_zero; /* formats without NaN: a NaN becomes zero with its sign bit inverted (ml_dtypes), not +max */
	bool underflow_to_least;  /* formats without zero: a nonzero value that rounds to zero gives the least value (ml_dtypes E8M0) */
	bool zero_to_least;       /* formats without zero: any zero, an input one too, gives the least value, never NaN (CUDA E8M0) */
	bool unsigned_magnitude;  /* formats without a sign convert |x|: a negative value is not out of range (CUDA E8M0) */
	bool zero_positive;       /* a zero result is +0 whatever the sign it rounds from (the H200's tensor cores) */
	enum fpref_sr_rule sr_rule; /* which comparison sr makes (above) */
	/* IEEE P3109's saturation modes are overflow policies plus these:
	 * SatFinite is overflow=sat; SatPropagate is overflow=sat with
	 * sat_keep_inf (an infinite input stays inf where the format has
	 * one); SatNone is overflow=ieee with p3109_sat_none, whose rows
	 * differ from IEEE 754's in two places: round-to-odd overflows to inf
	 * (or NaN) like the nearest modes, except into unsigned formats with
	 * inf, where it clamps; and a negative value into an unsigned format
	 * is rounded first: a zero result, or rounding toward zero or +inf,
	 * gives 0, anything else NaN (-inf gives NaN). */
	bool sat_keep_inf;
	bool p3109_sat_none;
	/* Stochastic rounding as a hardware instruction does it (set by
	 * fpref_env_sr_instruction; docs/stochastic-rounding.md): random
	 * words of sr_word_bits bits, each rounding sr_lanes consecutive
	 * values; value i of a batch takes word i / sr_lanes and, as R, its
	 * sr_width bits from bit sr_lane_shift[i % sr_lanes] up (rule A).
	 * sr_lanes = 0: one R per value, as above.  The words are sr_random
	 * (one word for every group), or with sr_seeded the counter-based
	 * stream fpref_sr_stream, or with sr_philox too the Philox4x32-10
	 * stream of (sr_seed, sr_subsequence, sr_offset, sr_philox_rounds) that Transformer
	 * Engine's curanddx state gives one CUDA thread. */
	unsigned sr_lanes;
	unsigned sr_word_bits;
	uint8_t sr_lane_shift[4];
	bool sr_philox;
	unsigned sr_philox_rounds; /* 10, or a build's NVTE_BUILD_NUM_PHILOX_ROUNDS */
	uint64_t sr_offset;
	uint64_t sr_subsequence;
	unsigned sr_instruction; /* which named instruction (1 + its row), 0: none */
	/* A conversion's scale step, as AMD's v_cvt_scalef32_* take an E8M0
	 * scale: with pre_scale set, the value is divided by
	 * 2^(pre_scale_code - 127) (exactly: the exponent moves) before it is
	 * rounded, and code 255 (E8M0's NaN) makes every result NaN, zeros and
	 * infinities too.  Conversions read it (fpref_emu_convert, the array
	 * converter, fpref_ref_convert, fpref_ref_convert_value); operations
	 * do not. */
	bool pre_scale;
	uint8_t pre_scale_code;
	/* formats without NaN: a NaN becomes max finite with the NaN's sign
	 * (AMD's OCP host reference), not +max */
	bool nan_to_signed_max;
};

/* rne, ieee overflow, no ftz/daz, tininess after rounding, sr 32 zero bits. */
void fpref_env_default(struct fpref_env *env);

const char *fpref_rounding_name(enum fpref_rounding r);
int fpref_rounding_parse(const char *s, enum fpref_rounding *out);
const char *fpref_rounding_choices(void);
/* The --round argument: a rounding name, or sra / srb / src (sr with
 * P3109's rule A, B or C).  Sets rounding and sr_rule; 0, or -1. */
int fpref_env_parse_rounding(const char *s, struct fpref_env *env);
const char *fpref_env_rounding_choices(void);
/* The --overflow argument: ieee, sat, or P3109's satfinite, satpropagate,
 * satnone.  Sets overflow, sat_keep_inf and p3109_sat_none; 0, or -1. */
int fpref_env_parse_overflow(const char *s, struct fpref_env *env);
const char *fpref_env_overflow_choices(void);

/* Parse the argument of --sr-bits: hex random bits "0x3a" or "3a" (width =
 * 4 bits per digit written), "W:HEX" for an explicit width of W bits, or
 * "seed=N" / "W:seed=N" for the counter-based stream.  0 or -1 with a message. */
int fpref_env_parse_sr(const char *s, struct fpref_env *env, char *err, size_t errlen);

/* Stochastic rounding as an instruction: name (fpref_env_sr_instruction_choices)
 * for a conversion from source (NULL: float32, or float16 for the AVX10.2
 * forms) to target.  Sets rounding = sr, rule A, the width and lane layout
 * of the random bits and the instruction's overflow and NaN behaviour;
 * 0; -2 for an unknown name; -1 for no form for these formats (target NULL:
 * none named); with a message either way. */
int fpref_env_sr_instruction(const char *name, const struct fpref_format *source,
			     const struct fpref_format *target, struct fpref_env *env, char *err, size_t errlen);
const char *fpref_env_sr_instruction_choices(void);
/* The name of env's instruction, or NULL. */
const char *fpref_env_sr_instruction_name(const struct fpref_env *env);
/* The argument of --pre-scale: an E8M0 code, decimal 0..255 or hex 0xNN.
 * Sets pre_scale and pre_scale_code; 0, or -1 with a message. */
int fpref_env_parse_pre_scale(const char *s, struct fpref_env *env, char *err, size_t errlen);
/* Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11): one block of four
 * words from counter ctr[0..3] and key key[0..1]; fpref_philox4x32 with
 * another number of rounds (Transformer Engine's NVTE_BUILD_NUM_PHILOX_ROUNDS). */
void fpref_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
void fpref_philox4x32(const uint32_t ctr[4], const uint32_t key[2], unsigned rounds, uint32_t out[4]);
/* Word number k of the stream a curanddx philox4x32_native_state gives
 * after init(seed, subsequence, offset): block k / 4 at counter
 * subsequence * 2^64 + offset + k / 4, its word k % 4 (x, y, z, w). */
uint32_t fpref_philox_stream_word(uint64_t seed, uint64_t subsequence, uint64_t offset, unsigned rounds, uint64_t k);

/* The random bits that value number index of a batch rounds with. */
uint64_t fpref_env_sr_random(const struct fpref_env *env, uint64_t index);
/* Counter-based generator: the same (seed, index) gives the same bits on any
 * machine and any thread count. */
uint64_t fpref_sr_stream(uint64_t seed, uint64_t index);
/* Its body (the SplitMix64 finaliser applied to the counter: no state, so
 * any value of a batch can be computed alone); emu/convert_lanes.c's
 * lanes compute the same steps on registers of counters. */
static inline uint64_t fpref_sr_stream_inline(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Profiles: the environment that reproduces a known implementation when
 * converting to `target` (docs/profiles.md tables them).  Sets rounding, overflow
 * and the NaN and inf knobs; 0, or -1 for an unknown name. */
int fpref_profile_apply(const char *name, const struct fpref_format *target, struct fpref_env *env);
/* The same for a conversion from `source` (NULL: unknown), where a profile
 * reproduces functions that treat some source formats apart. */
int fpref_profile_apply_conversion(const char *name, const struct fpref_format *source,
				   const struct fpref_format *target, struct fpref_env *env);
const char *fpref_profile_choices(void);

/* The NaN pattern a result takes in format f under env (false: f has no NaN). */
bool fpref_format_nan_result(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			     uint64_t *bits);
/* The same for a NaN converted from another format, whose payload
 * (struct fpref_unpacked's nan_payload) the propagating styles keep. */
bool fpref_format_nan_converted(const struct fpref_format *f, const struct fpref_env *env, bool negative,
				uint64_t payload, uint64_t *bits);

/* Flags as words ("inexact underflow"), "none" for 0. */
void fpref_flags_describe(unsigned flags, char *buf, size_t len);
/* One line describing the environment, e.g. "round=rne overflow=ieee". */
void fpref_env_describe(const struct fpref_env *env, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
