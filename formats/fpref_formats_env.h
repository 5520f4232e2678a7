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
	FPREF_OVERFLOW_SAT   /* clamp to max finite; NaN stays NaN */
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

/* Stochastic rounding: with r = sr_width random bits R = sr_random, a value
 * rounds away from zero exactly when the first r discarded bits, read as an
 * integer, plus R reach 2^r.  When sr_seeded is set, R for the i-th value of
 * a batch is fpref_sr_stream(sr_seed, i) masked to r bits instead. */
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
};

/* rne, ieee overflow, no ftz/daz, tininess after rounding, sr 32 zero bits. */
void fpref_env_default(struct fpref_env *env);

const char *fpref_rounding_name(enum fpref_rounding r);
int fpref_rounding_parse(const char *s, enum fpref_rounding *out);
const char *fpref_rounding_choices(void);

/* Parse the argument of --sr-bits: hex random bits "0x3a" or "3a" (width =
 * 4 bits per digit written), "W:HEX" for an explicit width of W bits, or
 * "seed=N" / "W:seed=N" for the counter-based stream.  0 or -1 with a message. */
int fpref_env_parse_sr(const char *s, struct fpref_env *env, char *err, size_t errlen);

/* The random bits that value number index of a batch rounds with. */
uint64_t fpref_env_sr_random(const struct fpref_env *env, uint64_t index);
/* Counter-based generator: the same (seed, index) gives the same bits on any
 * machine and any thread count. */
uint64_t fpref_sr_stream(uint64_t seed, uint64_t index);

/* Profiles: the environment that reproduces a known implementation when
 * converting to `target` (README.md tables them).  Sets rounding, overflow
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
