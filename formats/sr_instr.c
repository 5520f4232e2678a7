/* Stochastic rounding as hardware instructions do it: which random bits
 * round which lane, as rows of data over the one rule (P3109's A: away
 * from zero when the first r discarded bits plus R reach 2^r), and the
 * Philox4x32-10 stream Transformer Engine feeds them from.  The layouts
 * and their sources are in docs/stochastic-rounding.md. */
#include <stdio.h>
#include <string.h>

#include "fpref_formats_env.h"

/* One instruction's form for one target format.  width 0: as many random
 * bits as the conversion discards from a normal source value (source
 * mantissa bits minus target mantissa bits: AMD's drop mask). */
struct sr_row {
	const char *name;   /* the --round word */
	const char *target; /* the target format's name */
	const char *source; /* the only source it converts from; NULL: any */
	unsigned width, word_bits, lanes;
	uint8_t shift[4]; /* lane j of a word takes bits shift[j] .. shift[j] + width - 1 */
	enum fpref_overflow overflow;
	enum fpref_nan_style nan_style;
	bool philox;
	/* shift[j] counts from the word's top: lane j takes bits
	 * word_bits - shift[j] - width .. word_bits - shift[j] - 1 (a width that
	 * depends on the formats, its bits still the word's most significant) */
	bool from_top;
	bool nan_signed_max; /* env's nan_to_signed_max */
};

/* PTX lanes are the operands in order (a, b, e, f; a, b for x2); Transformer
 * Engine hands cvt.rs.satfinite.e2m1x4 its elements 3, 2, 1, 0 as a, b, e,
 * f (ptx.cuh), so its element j takes the bits of lane f, e, b, a. */
static const struct sr_row rows[] = {
	/* cvt.rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4}.f32: a, b the upper 16 bits, e, f the lower;
	 * a byte each in d's order (inferred: the ISA's figure 41 is not in its text) */
	{ "ptx-rs", "float8_e4m3fn", NULL, 8, 32, 4, { 24, 16, 8, 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_POSITIVE_ALL_ONES,
	  false, false, false },
	{ "ptx-rs", "float8_e5m2", NULL, 8, 32, 4, { 24, 16, 8, 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_POSITIVE_ALL_ONES,
	  false, false, false },
	{ "ptx-rs", "float6_e2m3fn", NULL, 8, 32, 4, { 24, 16, 8, 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET,
	  false, false, false },
	{ "ptx-rs", "float6_e3m2fn", NULL, 8, 32, 4, { 24, 16, 8, 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET,
	  false, false, false },
	/* cvt.rs.satfinite.e2m1x4.f32: a, b the upper bytes of the two halves, e, f the lower ones */
	{ "ptx-rs", "float4_e2m1fn", NULL, 8, 32, 4, { 24, 8, 16, 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET,
	  false, false, false },
	/* cvt.rs.{f16x2,bf16x2}.f32: a the upper half (13 low bits of it for f16), b the lower */
	{ "ptx-rs", "float16", NULL, 13, 32, 2, { 16, 0 }, FPREF_OVERFLOW_IEEE, FPREF_NAN_POSITIVE_ALL_ONES,
	  false, false, false },
	{ "ptx-rs", "bfloat16", NULL, 16, 32, 2, { 16, 0 }, FPREF_OVERFLOW_IEEE, FPREF_NAN_POSITIVE_ALL_ONES,
	  false, false, false },
	/* Transformer Engine's NVFP4 kernels: one Philox word per four elements */
	{ "te-nvfp4", "float4_e2m1fn", NULL, 8, 32, 4, { 0, 16, 8, 24 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET,
	  true, false, false },
	/* VCVTBIASPH2BF8 / VCVTBIASPH2HF8: the low byte of each 16-bit word of the bias source;
	 * a result beyond max is inf (BF8) or NaN (HF8) whatever the rounding */
	{ "avx10-bias", "float8_e5m2", "float16", 8, 16, 1, { 0 }, FPREF_OVERFLOW_INF, FPREF_NAN_PROPAGATE,
	  false, false, false },
	{ "avx10-bias", "float8_e4m3fn", "float16", 8, 16, 1, { 0 }, FPREF_OVERFLOW_INF, FPREF_NAN_SIGNED_QUIET,
	  false, false, false },
	/* VCVTBIASPH2BF8S / VCVTBIASPH2HF8S: saturating */
	{ "avx10-bias-s", "float8_e5m2", "float16", 8, 16, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_PROPAGATE,
	  false, false, false },
	{ "avx10-bias-s", "float8_e4m3fn", "float16", 8, 16, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET,
	  false, false, false },
	/* v_cvt_scalef32_sr_{fp8,bf8}_*, _sr_pk_fp4_*, _sr_pk32_{fp6,bf6}_*: the TOP r bits of the
	 * 32-bit random operand, r = source mantissa bits - target's, added below the target's last
	 * place (AMD's gfx950 OCP host reference, amd_hip_ocp_host.hpp from_float_sr: seed >>
	 * (32 - source mantissa bits + target's)).  Beyond max: E4M3 NaN whatever the rounding
	 * (its saturating path returns S.1111.111), E5M2 max (saturating), FP6/FP4 max; a NaN into
	 * FP6/FP4 is max with the NaN's sign */
	{ "amd-sr", "float8_e4m3fn", NULL, 0, 32, 1, { 0 }, FPREF_OVERFLOW_INF, FPREF_NAN_SIGNED_QUIET, false, true,
	  false },
	{ "amd-sr", "float8_e5m2", NULL, 0, 32, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, false, true,
	  false },
	{ "amd-sr", "float4_e2m1fn", NULL, 0, 32, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, false, true,
	  true },
	{ "amd-sr", "float6_e2m3fn", NULL, 0, 32, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, false, true,
	  true },
	{ "amd-sr", "float6_e3m2fn", NULL, 0, 32, 1, { 0 }, FPREF_OVERFLOW_SAT, FPREF_NAN_SIGNED_QUIET, false, true,
	  true },
};
#define NROWS (sizeof rows / sizeof rows[0])

const char *fpref_env_sr_instruction_choices(void)
{
	return "ptx-rs, te-nvfp4, avx10-bias, avx10-bias-s, amd-sr";
}

const char *fpref_env_sr_instruction_name(const struct fpref_env *env)
{
	return env->sr_instruction >= 1 && env->sr_instruction <= NROWS ? rows[env->sr_instruction - 1].name : NULL;
}

int fpref_env_sr_instruction(const char *name, const struct fpref_format *source,
			     const struct fpref_format *target, struct fpref_env *env, char *err, size_t errlen)
{
	bool known = false;
	for (size_t i = 0; i < NROWS; i++)
		known = known || strcmp(rows[i].name, name) == 0;
	if (!known) {
		snprintf(err, errlen, "unknown stochastic-rounding instruction '%s' (choices: %s)", name,
			 fpref_env_sr_instruction_choices());
		return -2;
	}
	if (!target) {
		snprintf(err, errlen, "%s needs a target format (its random-bit layout depends on it)", name);
		return -1;
	}
	for (size_t i = 0; i < NROWS; i++) {
		const struct sr_row *r = &rows[i];
		if (strcmp(r->name, name) != 0 || strcmp(r->target, target->name) != 0)
			continue;
		if (source && r->source && strcmp(r->source, source->name) != 0) {
			snprintf(err, errlen, "%s converts from %s only, not %s", name, r->source, source->name);
			return -1;
		}
		int source_man = source ? source->man_bits : r->source ? 10 : 23;
		unsigned width = r->width ? r->width : (unsigned)(source_man - target->man_bits);
		if (width < 1 || width > 32) {
			snprintf(err, errlen, "%s: %s has no more mantissa bits than %s", name,
				 source ? source->name : "float32", target->name);
			return -1;
		}
		env->rounding = FPREF_SR;
		env->sr_rule = FPREF_SR_A;
		env->sr_width = width;
		env->sr_word_bits = r->word_bits;
		env->sr_lanes = r->lanes;
		memcpy(env->sr_lane_shift, r->shift, sizeof env->sr_lane_shift);
		for (unsigned j = 0; r->from_top && j < r->lanes; j++)
			env->sr_lane_shift[j] = (uint8_t)(r->word_bits - r->shift[j] - width);
		env->overflow = r->overflow;
		env->nan_style = r->nan_style;
		env->nan_to_signed_max = r->nan_signed_max;
		env->sr_philox = r->philox;
		env->sr_seeded = r->philox; /* Transformer Engine's stream by default: seed 0, offset 0, thread 0 */
		env->sr_seed = env->sr_offset = env->sr_subsequence = 0;
		env->sr_philox_rounds = 10;
		env->sr_random = 0;
		env->sr_instruction = (unsigned)i + 1;
		return 0;
	}
	snprintf(err, errlen, "%s has no form that converts to %s", name, target->name);
	return -1;
}

/* Philox4x32: per round, the products of the multipliers with words 0
 * and 2 give two words each (high, low); the high halves are mixed with
 * words 3 and 1 and the round key; the key is bumped by the Weyl
 * constants between rounds.  Constants from the paper (section 5). */
void fpref_philox4x32(const uint32_t ctr[4], const uint32_t key[2], unsigned rounds, uint32_t out[4])
{
	const uint64_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
	uint32_t x[4] = { ctr[0], ctr[1], ctr[2], ctr[3] };
	uint32_t k0 = key[0], k1 = key[1];
	for (unsigned round = 0; round < rounds; round++) {
		uint64_t p0 = m0 * x[0], p1 = m1 * x[2];
		uint32_t y[4] = { (uint32_t)(p1 >> 32) ^ x[1] ^ k0, (uint32_t)p1, (uint32_t)(p0 >> 32) ^ x[3] ^ k1,
				  (uint32_t)p0 };
		memcpy(x, y, sizeof x);
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	memcpy(out, x, sizeof x);
}

void fpref_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	fpref_philox4x32(ctr, key, 10, out);
}

uint32_t fpref_philox_stream_word(uint64_t seed, uint64_t subsequence, uint64_t offset, unsigned rounds, uint64_t k)
{
	/* the counter is 128 bits: offset + block in the low 64 (carrying
	 * into the high), the subsequence in the high 64 */
	uint64_t lo = offset + k / 4;
	uint64_t hi = subsequence + (lo < offset);
	uint32_t ctr[4] = { (uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32) };
	uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
	uint32_t out[4];
	fpref_philox4x32(ctr, key, rounds, out);
	return out[k % 4];
}
