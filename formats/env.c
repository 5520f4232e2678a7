/* The environment: names, the stochastic-rounding stream, flag words. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_formats_env.h"

static const char *const rounding_names[] = { "rne", "rna", "rtz", "rup", "rdn", "rod", "sr" };

void fpref_env_default(struct fpref_env *env)
{
	memset(env, 0, sizeof *env);
	env->rounding = FPREF_RNE;
	env->overflow = FPREF_OVERFLOW_IEEE;
	env->tininess = FPREF_TININESS_AFTER;
	env->sr_width = 32;
}

const char *fpref_rounding_name(enum fpref_rounding r)
{
	return rounding_names[r];
}

const char *fpref_rounding_choices(void)
{
	return "rne, rna, rtz, rup, rdn, rod, sr";
}

int fpref_rounding_parse(const char *s, enum fpref_rounding *out)
{
	for (int i = 0; i <= FPREF_SR; i++)
		if (strcmp(s, rounding_names[i]) == 0) {
			*out = (enum fpref_rounding)i;
			return 0;
		}
	return -1;
}

int fpref_env_parse_rounding(const char *s, struct fpref_env *env)
{
	static const char *const sr_rules[] = { "sra", "srb", "src" };
	env->sr_lanes = 0; /* a plain mode: no instruction's lanes */
	env->sr_instruction = 0;
	env->sr_philox = false;
	for (int i = 0; i < 3; i++)
		if (strcmp(s, sr_rules[i]) == 0) {
			env->rounding = FPREF_SR;
			env->sr_rule = (enum fpref_sr_rule)i;
			return 0;
		}
	if (fpref_rounding_parse(s, &env->rounding) != 0)
		return -1;
	env->sr_rule = FPREF_SR_A;
	return 0;
}

const char *fpref_env_rounding_choices(void)
{
	return "rne, rna, rtz, rup, rdn, rod, sr (= sra), sra, srb, src";
}

/* name, overflow, sat_keep_inf, p3109_sat_none */
static const struct overflow_row {
	const char *name;
	enum fpref_overflow overflow;
	bool keep_inf, sat_none;
} overflow_rows[] = {
	{ "ieee", FPREF_OVERFLOW_IEEE, false, false },
	{ "sat", FPREF_OVERFLOW_SAT, false, false },
	{ "satfinite", FPREF_OVERFLOW_SAT, false, false },
	{ "satpropagate", FPREF_OVERFLOW_SAT, true, false },
	{ "satnone", FPREF_OVERFLOW_IEEE, false, true },
};

int fpref_env_parse_overflow(const char *s, struct fpref_env *env)
{
	for (size_t i = 0; i < sizeof overflow_rows / sizeof overflow_rows[0]; i++)
		if (strcmp(s, overflow_rows[i].name) == 0) {
			env->overflow = overflow_rows[i].overflow;
			env->sat_keep_inf = overflow_rows[i].keep_inf;
			env->p3109_sat_none = overflow_rows[i].sat_none;
			return 0;
		}
	return -1;
}

const char *fpref_env_overflow_choices(void)
{
	return "ieee, sat, satfinite (= sat), satpropagate, satnone";
}

static int parse_hex_u64(const char *s, uint64_t *out, int *digits)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	size_t n = strlen(s);
	if (n == 0 || n > 16)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int c = tolower((unsigned char)s[i]);
		if (!isxdigit(c))
			return -1;
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*out = v;
	*digits = (int)n;
	return 0;
}

/* The N of seed=N (text after "seed="; whole names the argument). */
static int parse_seed(const char *text, const char *whole, uint64_t *seed, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || end == text || *end != '\0' || text[0] == '-') {
		snprintf(err, errlen, "bad --sr-bits '%s': seed=N needs a non-negative integer", whole);
		return -1;
	}
	*seed = v;
	return 0;
}

/* --sr-bits under an instruction: its random word in hex, seed=N (words
 * of fpref_sr_stream), or philox=SEED[:OFFSET[:THREAD]] (Transformer
 * Engine's stream, ROUNDS 10 unless a build says otherwise). */
static int parse_instruction_bits(const char *s, struct fpref_env *env, char *err, size_t errlen)
{
	const char *name = fpref_env_sr_instruction_name(env);
	if (strncmp(s, "philox=", 7) == 0) {
		/* SEED[:OFFSET[:THREAD[:ROUNDS]]] */
		unsigned long long v[4] = { 0, 0, 0, 10 };
		const char *p = s + 7;
		bool bad = false, done = false;
		for (int n = 0; n < 4 && !bad && !done; n++) {
			char *end;
			errno = 0;
			v[n] = strtoull(p, &end, 0);
			bad = errno || end == p || *p == '-' || (*end != ':' && *end != '\0');
			done = *end == '\0';
			p = end + !done;
		}
		if (bad || !done || v[3] < 1 || v[3] > 64) {
			snprintf(err, errlen, "bad --sr-bits '%s' (expected philox=SEED[:OFFSET[:THREAD[:ROUNDS]]], "
				 "non-negative integers, ROUNDS 1..64)", s);
			return -1;
		}
		env->sr_seeded = env->sr_philox = true;
		env->sr_seed = v[0];
		env->sr_offset = v[1];
		env->sr_subsequence = v[2];
		env->sr_philox_rounds = (unsigned)v[3];
		return 0;
	}
	if (strncmp(s, "seed=", 5) == 0) {
		if (parse_seed(s + 5, s, &env->sr_seed, err, errlen) != 0)
			return -1;
		env->sr_seeded = true;
		env->sr_philox = false;
		return 0;
	}
	uint64_t bits;
	int digits;
	if (parse_hex_u64(s, &bits, &digits) != 0 || (env->sr_word_bits < 64 && bits >> env->sr_word_bits)) {
		snprintf(err, errlen, "bad --sr-bits '%s': %s takes a %u-bit random word in hex, seed=N or "
			 "philox=SEED[:OFFSET[:THREAD[:ROUNDS]]]", s, name, env->sr_word_bits);
		return -1;
	}
	env->sr_seeded = env->sr_philox = false;
	env->sr_random = bits;
	return 0;
}

int fpref_env_parse_sr(const char *s, struct fpref_env *env, char *err, size_t errlen)
{
	if (env->sr_lanes)
		return parse_instruction_bits(s, env, err, errlen);
	const char *colon = strchr(s, ':');
	long width = -1;
	const char *body = s;
	if (colon) {
		char *end;
		errno = 0;
		width = strtol(s, &end, 10);
		if (errno || end != colon || width < 1 || width > 64) {
			snprintf(err, errlen, "bad --sr-bits '%s': the width before ':' must be 1..64", s);
			return -1;
		}
		body = colon + 1;
	}
	if (strncmp(body, "seed=", 5) == 0) {
		if (parse_seed(body + 5, s, &env->sr_seed, err, errlen) != 0)
			return -1;
		env->sr_seeded = true;
		if (width > 0)
			env->sr_width = (unsigned)width;
		return 0;
	}
	uint64_t bits;
	int digits;
	if (parse_hex_u64(body, &bits, &digits) != 0) {
		snprintf(err, errlen, "bad --sr-bits '%s' (expected hex random bits such as 0x3a5, "
			 "WIDTH:HEX such as 12:3a5, seed=N or WIDTH:seed=N)", s);
		return -1;
	}
	if (width < 0)
		width = 4 * digits;
	if (width < 64 && (bits >> width) != 0) {
		snprintf(err, errlen, "bad --sr-bits '%s': 0x%llx does not fit in %ld bits", s,
			 (unsigned long long)bits, width);
		return -1;
	}
	env->sr_seeded = false;
	env->sr_width = (unsigned)width;
	env->sr_random = bits;
	return 0;
}

int fpref_env_parse_pre_scale(const char *s, struct fpref_env *env, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); /* never octal: 0127 is 127 */
	unsigned long v = strtoul(s, &end, hex ? 16 : 10);
	if (errno || end == s || *end != '\0' || s[0] == '-' || s[0] == '+' || isspace((unsigned char)s[0]) ||
	    v > 255) {
		snprintf(err, errlen, "bad --pre-scale '%s': an E8M0 code, 0..255 (decimal, or hex 0xNN); 127 divides "
			 "by 1, 255 is NaN", s);
		return -1;
	}
	env->pre_scale = true;
	env->pre_scale_code = (uint8_t)v;
	return 0;
}

uint64_t fpref_sr_stream(uint64_t seed, uint64_t index)
{
	return fpref_sr_stream_inline(seed, index);
}

/* An instruction's lane: word index / lanes, its bits from the lane's shift up. */
static uint64_t lane_random(const struct fpref_env *env, uint64_t index)
{
	uint64_t k = index / env->sr_lanes, word = env->sr_random;
	if (env->sr_philox)
		word = fpref_philox_stream_word(env->sr_seed, env->sr_subsequence, env->sr_offset,
						env->sr_philox_rounds ? env->sr_philox_rounds : 10, k); /* 0: unset */
	else if (env->sr_seeded)
		word = fpref_sr_stream(env->sr_seed, k) >> (64 - env->sr_word_bits);
	word >>= env->sr_lane_shift[index % env->sr_lanes];
	return env->sr_width >= 64 ? word : word & ((UINT64_C(1) << env->sr_width) - 1);
}

uint64_t fpref_env_sr_random(const struct fpref_env *env, uint64_t index)
{
	if (env->sr_lanes)
		return lane_random(env, index);
	if (!env->sr_seeded)
		return env->sr_random;
	uint64_t r = fpref_sr_stream(env->sr_seed, index);
	return env->sr_width >= 64 ? r : r >> (64 - env->sr_width);
}

void fpref_flags_describe(unsigned flags, char *buf, size_t len)
{
	static const char *const words[] = { "inexact", "underflow", "overflow", "infinite", "invalid" };
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < 5; i++)
		if (flags & (1u << i)) {
			int w = snprintf(buf + n, len - n, "%s%s", n ? " " : "", words[i]);
			if (w < 0 || (size_t)w >= len - n)
				return;
			n += (size_t)w;
		}
	if (n == 0)
		snprintf(buf, len, "none");
}

void fpref_env_describe(const struct fpref_env *env, char *buf, size_t len)
{
	int n = snprintf(buf, len, "round=%s overflow=%s ftz=%s daz=%s tininess=%s",
			 fpref_rounding_name(env->rounding),
			 env->overflow == FPREF_OVERFLOW_SAT   ? "sat"
			 : env->overflow == FPREF_OVERFLOW_INF ? "inf"
							       : "ieee",
			 env->ftz ? "on" : "off",
			 env->daz ? "on" : "off", env->tininess == FPREF_TININESS_BEFORE ? "before" : "after");
	if (n < 0 || (size_t)n >= len)
		return;
	static const char *const nan_words[] = { "", " nan=positive-all-ones", " nan=propagate", " nan=keep-bits" };
	if (env->nan_style != FPREF_NAN_SIGNED_QUIET)
		n += snprintf(buf + n, len - (size_t)n, "%s", nan_words[env->nan_style]);
	if (env->sat_inf_to_nan && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " sat-inf=nan");
	if (env->nan_to_flipped_zero && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " nan-without-nan=flipped-zero");
	if (env->underflow_to_least && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " underflow-without-zero=least");
	if (env->zero_positive && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " zero=positive");
	if (env->zero_to_least && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " zero-without-zero=least");
	if (env->unsigned_magnitude && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " negative-to-unsigned=magnitude");
	if (env->sat_keep_inf && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " sat-inf=keep");
	if (env->p3109_sat_none && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " p3109=satnone");
	if (env->nan_to_signed_max && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " nan-without-nan=signed-max");
	if (env->pre_scale && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " pre-scale=%u", env->pre_scale_code);
	if (env->rounding == FPREF_SR && env->sr_rule != FPREF_SR_A && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " sr-rule=%c", "ABC"[env->sr_rule]);
	if (n < 0 || (size_t)n >= len || env->rounding != FPREF_SR)
		return;
	if (env->sr_lanes) {
		const char *name = fpref_env_sr_instruction_name(env);
		if (env->sr_philox)
			snprintf(buf + n, len - (size_t)n, " sr=%s:philox=%llu:%llu:%llu:%u", name ? name : "?",
				 (unsigned long long)env->sr_seed, (unsigned long long)env->sr_offset,
				 (unsigned long long)env->sr_subsequence, env->sr_philox_rounds);
		else if (env->sr_seeded)
			snprintf(buf + n, len - (size_t)n, " sr=%s:seed=%llu", name ? name : "?",
				 (unsigned long long)env->sr_seed);
		else
			snprintf(buf + n, len - (size_t)n, " sr=%s:%llx", name ? name : "?",
				 (unsigned long long)env->sr_random);
		return;
	}
	if (env->sr_seeded)
		snprintf(buf + n, len - (size_t)n, " sr=%u:seed=%llu", env->sr_width, (unsigned long long)env->sr_seed);
	else
		snprintf(buf + n, len - (size_t)n, " sr=%u:%llx", env->sr_width, (unsigned long long)env->sr_random);
}

bool fpref_format_nan_result(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			     uint64_t *bits)
{
	if (!fpref_format_nan_bits(f, negative && f->is_signed, bits))
		return false;
	if (env->nan_style == FPREF_NAN_POSITIVE_ALL_ONES && f->specials == FPREF_SPECIALS_IEEE) {
		fpref_format_inf_bits(f, false, bits);
		*bits |= (((uint64_t)1 << f->man_bits) - 1) << f->pad_bits;
	} else if (env->nan_style == FPREF_NAN_POSITIVE_ALL_ONES) {
		fpref_format_nan_bits(f, false, bits);
	}
	return true;
}

bool fpref_format_nan_converted(const struct fpref_format *f, const struct fpref_env *env, bool negative,
				uint64_t payload, uint64_t *bits)
{
	bool keeps_payload = env->nan_style == FPREF_NAN_PROPAGATE || env->nan_style == FPREF_NAN_KEEP_BITS;
	/* formats without a quiet bit have one NaN per sign: nothing to keep */
	if (!keeps_payload || f->specials != FPREF_SPECIALS_IEEE || f->man_bits == 0)
		return fpref_format_nan_result(f, env, negative, bits);
	uint64_t quiet = (uint64_t)1 << (f->man_bits - 1);
	uint64_t mantissa = payload >> (64 - f->man_bits);
	if (env->nan_style == FPREF_NAN_PROPAGATE || mantissa == 0)
		mantissa |= quiet;
	fpref_format_inf_bits(f, negative, bits);
	*bits |= mantissa << f->pad_bits;
	return true;
}

/* Profiles as data: rows for a profile apply in order; a row may match
 * only FNUZ targets or only zero-free (E8M0-like) targets, and only a
 * conversion from one named format to another (from/to: NULL for any).
 * -1 leaves a field as the previous row set it. */
enum profile_match { MATCH_ANY, MATCH_FNUZ, MATCH_NO_ZERO };

static const struct profile_row {
	const char *name;
	enum profile_match match;
	const char *from, *to;
	int rounding, overflow, nan_style, sat_inf_to_nan, nan_to_flipped_zero, underflow_to_least;
	int zero_to_least, unsigned_magnitude;
} profile_rows[] = {
	/* CUDA __nv_cvt_*: rne; NaN becomes 0x7F / 0x7FFF whatever its sign; --sat is __NV_SATFINITE */
	{ "cuda", MATCH_ANY, NULL, NULL, FPREF_RNE, FPREF_OVERFLOW_IEEE, FPREF_NAN_POSITIVE_ALL_ONES, 0, 0, 0, 0, 0 },
	/* __nv_cvt_*_to_e8m0 (cuda_fp8.hpp) converts |x|, and clips zero and every result below 2^-127
	 * to 2^-127 (0x00) with or without __NV_SATFINITE (found by tests/check_cuda_host.cc) */
	{ "cuda", MATCH_NO_ZERO, NULL, NULL, -1, -1, -1, -1, -1, 1, 1, 1 },
	/* __nv_cvt_double_to_fp8 keeps a NaN's sign and its leading payload bit (E5M2), unlike the
	 * float, half and bfloat16 forms, which make every NaN 0x7F first; __bfloat162float shifts
	 * the bits, signaling NaNs included, where __half2float gives 0x7FFFFFFF (check_cuda_host.cc) */
	{ "cuda", MATCH_ANY, "float64", "float8_e4m3fn", -1, -1, FPREF_NAN_PROPAGATE, -1, -1, -1, -1, -1 },
	{ "cuda", MATCH_ANY, "float64", "float8_e5m2", -1, -1, FPREF_NAN_PROPAGATE, -1, -1, -1, -1, -1 },
	{ "cuda", MATCH_ANY, "bfloat16", "float32", -1, -1, FPREF_NAN_KEEP_BITS, -1, -1, -1, -1, -1 },
	/* ONNX Cast, saturate=1 by default (--overflow ieee: saturate=0); opsets 19-23 send inf to NaN in FNUZ */
	{ "onnx-cast-19", MATCH_ANY, NULL, NULL, FPREF_RNE, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, 0, 0, 0, 0, 0 },
	{ "onnx-cast-19", MATCH_FNUZ, NULL, NULL, -1, -1, -1, 1, -1, -1, -1, -1 },
	/* opsets 24-25: inf saturates in all four FP8 types; E8M0 rounds up by default */
	{ "onnx-cast-24", MATCH_ANY, NULL, NULL, FPREF_RNE, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, 0, 0, 0, 0, 0 },
	{ "onnx-cast-24", MATCH_NO_ZERO, NULL, NULL, FPREF_RUP, -1, -1, -1, -1, -1, -1, -1 },
	/* ml_dtypes 0.6 casts: rne, NaN (or inf) on overflow, FP4/FP6 clamp (they have neither) and
	 * turn NaN into zero with the sign bit inverted; E8M0 sends tiny nonzero values to 2^-127
	 * (found by sweeping ml_dtypes itself, see docs/profiles.md) */
	{ "ml_dtypes", MATCH_ANY, NULL, NULL, FPREF_RNE, FPREF_OVERFLOW_IEEE, FPREF_NAN_SIGNED_QUIET, 0, 1, 1, 0, 0 },
	/* OCP OFP8 and MX: round to nearest even; --sat is the SAT mode */
	{ "ocp", MATCH_ANY, NULL, NULL, FPREF_RNE, FPREF_OVERFLOW_IEEE, FPREF_NAN_SIGNED_QUIET, 0, 0, 0, 0, 0 },
};

const char *fpref_profile_choices(void)
{
	return "cuda, onnx-cast-19, onnx-cast-24, ml_dtypes, ocp";
}

static bool names_format(const char *name, const struct fpref_format *f)
{
	return name == NULL || (f != NULL && strcmp(name, f->name) == 0);
}

int fpref_profile_apply(const char *name, const struct fpref_format *target, struct fpref_env *env)
{
	return fpref_profile_apply_conversion(name, NULL, target, env);
}

int fpref_profile_apply_conversion(const char *name, const struct fpref_format *source,
				   const struct fpref_format *target, struct fpref_env *env)
{
	bool known = false;
	for (size_t i = 0; i < sizeof profile_rows / sizeof profile_rows[0]; i++) {
		const struct profile_row *r = &profile_rows[i];
		if (strcmp(r->name, name) != 0)
			continue;
		known = true;
		if ((r->match == MATCH_FNUZ && target->specials != FPREF_SPECIALS_FNUZ) ||
		    (r->match == MATCH_NO_ZERO && target->has_zero) || !names_format(r->from, source) ||
		    !names_format(r->to, target))
			continue;
		if (r->rounding >= 0)
			env->rounding = (enum fpref_rounding)r->rounding;
		if (r->overflow >= 0)
			env->overflow = (enum fpref_overflow)r->overflow;
		if (r->nan_style >= 0)
			env->nan_style = (enum fpref_nan_style)r->nan_style;
		if (r->sat_inf_to_nan >= 0)
			env->sat_inf_to_nan = r->sat_inf_to_nan;
		if (r->nan_to_flipped_zero >= 0)
			env->nan_to_flipped_zero = r->nan_to_flipped_zero;
		if (r->underflow_to_least >= 0)
			env->underflow_to_least = r->underflow_to_least;
		if (r->zero_to_least >= 0)
			env->zero_to_least = r->zero_to_least;
		if (r->unsigned_magnitude >= 0)
			env->unsigned_magnitude = r->unsigned_magnitude;
	}
	return known ? 0 : -1;
}
