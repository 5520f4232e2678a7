/* The vectorised bulk conversion (emu/convert_lanes.c): an IEEE-style
 * source of 16, 32 or 64 bits to a narrower floating-point format, every
 * rounding (stochastic rounding's random bits explicit or from the seeded
 * stream, made in the lanes), as branch-free integer lanes
 * whose rounding increment is data of the plan; the values the lanes do
 * not model (marked per plan: NaN styles, underflow flags, stochastic
 * rounding's deep tail under rule C or R wider than 32 bits ...) go to the
 * one rounding core, element by element.  Internal to emu/: the converter (array.c) holds a plan. */
#ifndef FPREF_EMU_CONVERT_LANES_H
#define FPREF_EMU_CONVERT_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_emu.h"

/* The instruction sets the lanes are compiled for. */
enum lanes_isa { LANES_ISA_BASE, LANES_ISA_AVX2, LANES_ISA_AVX512 };

/* What a lane reads, derived once from (from, to, env), in the lane's
 * word (32 bits for 16- and 32-bit sources, 64 for FP64); the fields named
 * as masks are all ones or zero. */
struct lanes_k {
	/* the source's layout */
	uint64_t abs_mask, inf_pattern, man_mask, implicit;
	int64_t sign_at, src_man;
	/* the lane's shift: 32 (64) minus it is the source's exponent field
	 * plus up_from, clamped to [up_least, up_most] (plan_shift) */
	uint64_t rebias;
	int64_t normal_from, up_from, up_least, up_most;
	/* the results */
	/* beyond max a lane's result is over_pos or over_neg, the core's whole
	 * code for each sign, or under stochastic rounding, where the
	 * direction decides, over_away_* where it rounded up; the plain rne
	 * plan clamps magnitudes to clamp_* (then signed) */
	int64_t max_code, clamp_pos, clamp_neg, min_normal;
	uint64_t over_pos, over_neg, over_away_pos, over_away_neg;
	uint64_t nan_pos, nan_neg, inf_pos, inf_neg; /* the core's codes for NaN and inf of each sign */
	uint64_t nan_mag, inf_mag, sign_shift;       /* the plain rne plan's magnitudes, signed as lane_signed */
	uint64_t nan_signed, zero_unsigned; /* masks */
	/* the rounding as data: the increment added at the lane's shift is
	 * (half - 1 & near) + (the kept last bit & even) + away
	 * + (all the dropped places & dir[sign]) + R 2^(shift - sr_bits)
	 * (+ with sr_c, rule C's rounding of the dropped bits to sr_bits),
	 * then the result's last bit | (inexact & odd) */
	uint64_t near, even, away, dir_pos, dir_neg, odd, sr_r, sr_c;
	uint64_t sr_scaled; /* R 2^(smax - sr_bits), smax the greatest shift: R's term is it >> (smax - shift) */
	int64_t sr_bits;
	/* lanes that go to the core (masks) */
	uint64_t nan_rare, sub_rare, deep_rare;
	/* the magnitude plan's (struct lanes_plan's mag): the increment as
	 * above, each term only where the rounding has it (a zero's result
	 * forced to 0 where lift_zero); beyond max a magnitude mclamp_*
	 * (clamp_away_* where stochastic rounding rounded up, if sr_away), inf
	 * inf_m (through the clamp where inf_clamps), NaN nan_mag; the sign is
	 * (x >> sign_down) & sign_out */
	uint64_t sign_down, sign_out;
	int64_t mclamp_pos, mclamp_neg, clamp_away_pos, clamp_away_neg, inf_m;
	bool sr_away, lift_zero, inf_clamps;
	uint64_t rare_below; /* the sub_rare and deep_rare lanes: nonzero |x| below it */
	/* stochastic rounding's deep tail decided in the lanes instead, from
	 * each lane's R' of the stream (a mask; plan_deep in convert_lanes.c) */
	uint64_t deep_lanes;
};

struct lanes_plan {
	struct fpref_format from, to;
	struct fpref_env env;
	unsigned word_bits, in_bytes, out_bytes;
	/* rne with every lane exact, no core: a shorter sequence (the fp32 path
	 * before the other roundings joined it), its sign rules constants */
	bool rne_fast, rne_nan_signed, rne_zero_unsigned;
	/* the other variants' constants: stochastic rounding, any lane for the core */
	bool sr, rare;
	/* every special result a signed magnitude (struct lanes_k): the
	 * shorter ending of the general lanes */
	bool mag;
	struct lanes_k k;
	/* FP64 sources, bits only: each chunk of 512 rounded to odd into
	 * FP32 (exact where it can be: zeros and |x| in [2^-126, 2^128)) and
	 * converted by the 32-bit lanes of the FP32 plan below, twice the
	 * lanes a register; a chunk with any other value keeps this plan.
	 * A value rounded to odd at 24 bits rounds to p bits as the exact one
	 * does for p + 2 <= 24 (stochastic rounding with r bits: p + r + 3 <=
	 * 24), as in emu/op_lanes.c. */
	bool via32;
	/* IEEE binary64 to binary32 under rne, overflow to inf: the host's
	 * own conversion, which is the core's but for a NaN's payload, where
	 * the FPU rounds to nearest, keeps subnormals and traps nothing
	 * (host_fpu_plain); a NaN then takes the plan's code (nan_mag, signed
	 * as rne_nan_signed says).  Bits only. */
	bool host_f32;
	struct {
		bool rne_fast, rne_nan_signed, rne_zero_unsigned, sr, rare, mag, mag_fixed, deep_fixed;
		struct lanes_k k, kd;
		uint32_t sr_top;
	} p32;
	/* Stochastic rounding from the seeded stream, one R a value
	 * (fpref_emu_lanes_plan_stream): the plan's own R is 0 and each lane
	 * reads its R' (R, or rule B's 2R + 1, of r bits) at the top of 32 bits,
	 * R' 2^(32 - r) (its top 32 bits where r > 32), made from the stream
	 * in the lanes for elements first_index on, and adds its term
	 * (k.sr_scaled's form, R' 2^(smax - r)); a lane for the core takes
	 * element first_index + i of the stream. */
	bool sr_stream;
	uint64_t first_index;
	/* the stream's magnitude plan in its usual shape (R of 32 bits or
	 * more, its deep tail in the lanes; inf through the clamp, one clamp
	 * for both signs and either direction, -0 kept, no NaN for the core,
	 * the source's subnormals, and they alone, for the core): a loop of its
	 * own, which tests none of these (LANES' usual) */
	bool mag_usual;
	/* The same shape under a fixed R (the plan's, not the stream's), rule
	 * A or B: inf through the clamp, one clamp, -0 kept, no NaN for the
	 * core, the source's subnormals and the deep tail (whose lanes stay
	 * the core's under a fixed R: plan_deep) for the core: a loop of its
	 * own as well (LANES' usual, USUAL_FIXED). */
	bool mag_fixed;
	/* On AVX-512, a block of that loop with a lane for the core is
	 * converted by kd instead: k with the deep tail in the lanes, every lane's R' the fixed
	 * one (sr_top, R' 2^(32 - r); rules A and B, r <= 31, 32-bit words), the source's
	 * subnormals alone left for the core (USUAL_FIXED_DEEP).  Values in
	 * the deep tail are common (gradients, scaled values below a format's
	 * least subnormal), and one by one through the core they ran at
	 * 1/20 to 1/100 of the loop's rate; in every register the decision
	 * cost the loop a quarter of it (plan_deep). */
	bool deep_fixed;
	struct lanes_k kd;
	uint32_t sr_top;
};

/* Whether the lanes take this conversion; fills p. */
bool fpref_emu_lanes_plan(const struct fpref_format *from, const struct fpref_format *to, const struct fpref_env *env,
		      struct lanes_plan *p);

/* As fpref_emu_lanes_plan, and stochastic rounding from the seeded stream
 * too (sr_stream: 32-bit lanes, r bits and rule B's one within 64). */
bool fpref_emu_lanes_plan_stream(const struct fpref_format *from, const struct fpref_format *to,
				 const struct fpref_env *env, struct lanes_plan *p);

/* Converts n elements (flags may be NULL) on isa; the elements the lanes
 * leave go through fpref_emu_convert. */
void fpref_emu_lanes_convert(enum lanes_isa isa, const struct lanes_plan *p, const void *in, void *out, size_t n,
			 uint8_t *flags);

bool fpref_emu_lanes_isa_available(enum lanes_isa isa);
/* The instruction set named (fpref_emu_lanes_isa_names) into *isa where
 * this build and CPU have it: 0, else -1 (*isa unchanged). */
int fpref_emu_lanes_isa_parse(const char *name, enum lanes_isa *isa);
extern const char *const fpref_emu_lanes_isa_names[3];

#endif
