/* The vectorised bulk conversion: an IEEE-style source of 16, 32 or 64
 * bits (FP16, BF16, FP32, FP64) to a narrower floating-point format, every
 * rounding (rne, rna, rtz, rup, rdn, rod, stochastic A/B/C with explicit
 * bits, and from the seeded stream for 16- and 32-bit sources, each lane
 * its own R), every overflow policy, flags where asked.  One lane sequence in
 * GCC/Clang vector extensions, eight or sixteen lanes a register, whose
 * rounding is data of the plan (struct lanes_k): each lane picks its
 * operand and its shift, adds the increment the rounding gives for its
 * sign and dropped bits, and shifts once.  The plan is checked against the
 * core as it is made (the whole codes of NaN, inf and overflow for each
 * sign), and what the lanes do not model (a NaN style that keeps
 * payloads, the underflow flag, stochastic rounding's far tail under rule
 * C or with R wider than 32 bits: plan_deep) is marked per lane and
 * converted by the core, element by element.  FP64 sources
 * take the 32-bit lanes after rounding to odd into FP32, chunk by chunk,
 * where the target is narrow enough (struct lanes_plan's via32), and FP32
 * itself under rne the host's conversion where the FPU allows (host_f32).
 * tests/check_emu.c holds the
 * whole against the core, every FP32 pattern in make check-exhaustive. */
#include <string.h>

#include "convert_lanes.h"
#include "element.h"
#include "host_fpu.h"
#include "round_core.h"

const char *const fpref_emu_lanes_isa_names[3] = { "base", "avx2", "avx512" };

static bool ieee_source(const struct fpref_format *f)
{
	int bits = fpref_format_container_bits(f);
	return f->is_signed && f->has_zero && f->subnormals && f->specials == FPREF_SPECIALS_IEEE && f->pad_bits == 0 &&
	       !f->integer && !f->inf_at_top && (bits == 16 || bits == 32 || bits == 64) &&
	       1 + f->exp_bits + f->man_bits == bits;
}

/* The sign a lane puts on a result q (magnitude code, or the whole NaN or
 * inf code a special takes), as the lanes do: the source's sign, but none
 * on a NaN unless nan_signed, nor on a zero without -0. */
static uint64_t lane_signed(const struct lanes_k *k, bool negative, uint64_t q, bool nan)
{
	uint64_t sign = negative ? (uint64_t)1 << k->sign_shift : 0;
	if (nan && !k->nan_signed)
		sign = 0;
	if (k->zero_unsigned && q == 0)
		sign = 0;
	return q | sign;
}

/* The core's result for a source pattern. */
static uint64_t core(const struct lanes_plan *p, uint64_t bits)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(&p->from, bits, &p->to, &p->env, fpref_env_sr_random(&p->env, 0), &out, &flags);
	return out;
}

/* The rounding as data (struct lanes_k); false for a stream the lanes do
 * not have (seeded or per-instruction stochastic bits). */
static bool plan_rounding(const struct fpref_env *env, unsigned word_bits, struct lanes_k *k)
{
	const uint64_t all = ~(uint64_t)0;
	switch (env->rounding) {
	case FPREF_RNE:
		k->near = all, k->even = 1;
		break;
	case FPREF_RNA:
		k->near = all, k->away = 1;
		break;
	case FPREF_RTZ:
		break;
	case FPREF_RUP:
		k->dir_pos = all;
		break;
	case FPREF_RDN:
		k->dir_neg = all;
		break;
	case FPREF_ROD:
		k->odd = 1;
		break;
	case FPREF_SR: {
		if (env->sr_seeded || env->sr_lanes || env->sr_width < 1 || env->sr_width > 64)
			return false;
		/* B: one bit more, R centred (2R + 1); the others R itself */
		unsigned r = env->sr_width + (env->sr_rule == FPREF_SR_B ? 1 : 0);
		fpref_u128 R = env->sr_rule == FPREF_SR_B ? 2 * (fpref_u128)env->sr_random + 1 : env->sr_random;
		/* a shift never reaches word_bits - 1, so R's bits below that
		 * many places under the top add nothing: floor(floor(R / 2^a) /
		 * 2^b) = floor(R / 2^(a + b)) (and rule C differs from A only
		 * where the shift exceeds r) */
		unsigned most = word_bits - 1;
		if (r > most) {
			R >>= r - most;
			r = most;
		}
		k->sr_r = (uint64_t)R;
		k->sr_bits = r;
		k->sr_c = env->sr_rule == FPREF_SR_C ? all : 0;
		break;
	}
	}
	return true;
}

/* Whether an FP64 plan may take the FP32 lanes on values rounded to odd
 * into FP32 (struct lanes_plan's via32): the target's precision p and
 * least subnormal 2 places (stochastic: r + 3) above FP32's, and an FP32
 * plan for it; that plan's fields into p->p32. */
static void plan_via32(struct lanes_plan *p)
{
	const struct fpref_format *to = &p->to;
	if (p->word_bits != 64)
		return;
	int extra = p->env.rounding == FPREF_SR ? (int)p->env.sr_width + 3 : 2;
	if (to->man_bits + 1 + extra > 24 || fpref_format_min_exponent(to) - to->man_bits - extra < -149)
		return;
	struct lanes_plan q;
	if (!fpref_emu_lanes_plan(fpref_format_get(FPREF_FORMAT_FLOAT32), to, &p->env, &q))
		return;
	p->via32 = true;
	p->p32.rne_fast = q.rne_fast;
	p->p32.rne_nan_signed = q.rne_nan_signed;
	p->p32.rne_zero_unsigned = q.rne_zero_unsigned;
	p->p32.sr = q.sr;
	p->p32.rare = q.rare;
	p->p32.mag = q.mag;
	p->p32.mag_fixed = q.mag_fixed;
	p->p32.deep_fixed = q.deep_fixed;
	p->p32.k = q.k;
	p->p32.kd = q.kd;
	p->p32.sr_top = q.sr_top;
}

/* Stochastic rounding's deep tail in the lanes (struct lanes_k's
 * deep_lanes) for the seeded stream's plans (stream), whose lanes each read
 * their R' (R, or rule B's 2R + 1, of r bits) at the top of a 32-bit word,
 * R' 2^(32 - r): rules A and B, r <= 32, 32-bit words.  Below the shift's
 * cap the core's T is the whole value at r places below the least
 * subnormal, floor(sig 2^(r - s)) at the core's shift s, and it rounds up
 * to the least subnormal where T + R' >= 2^r: where T 2^(32 - r) +
 * R' 2^(32 - r) carries out of 32 bits, that is, where floor(sig 2^(32 - s))
 * + R' 2^(32 - r) does (adding fewer than 2^(32 - r) to a multiple of it
 * carries no further).  Rule C rounds T itself to r places: its lanes stay
 * the core's.  A fixed R's plan keeps its deep lanes for the core too:
 * measured, the decision in every register cost its conversions a quarter
 * of their rate, and their values seldom lie there (NVFP4's scaled values
 * mostly do). */
static void plan_deep(const struct fpref_env *env, unsigned w, bool stream, struct lanes_k *k)
{
	unsigned r = env->sr_width + (env->sr_rule == FPREF_SR_B ? 1u : 0u);
	if (!stream || !k->deep_rare || w != 32 || env->sr_rule == FPREF_SR_C || r > 32)
		return;
	k->deep_lanes = ~(uint64_t)0;
	k->deep_rare = 0;
}

static bool plan_impl(const struct fpref_format *from, const struct fpref_format *to, const struct fpref_env *env,
		      bool stream, struct lanes_plan *p);

bool fpref_emu_lanes_plan(const struct fpref_format *from, const struct fpref_format *to, const struct fpref_env *env,
		      struct lanes_plan *p)
{
	return plan_impl(from, to, env, false, p);
}

/* stream: the seeded stream's plan (R 0 here, each lane's its own) */
static bool plan_impl(const struct fpref_format *from, const struct fpref_format *to, const struct fpref_env *env,
		      bool stream, struct lanes_plan *p)
{
	memset(p, 0, sizeof *p);
	p->from = *from;
	p->to = *to;
	p->env = *env;
	struct lanes_k *k = &p->k;
	const uint64_t all = ~(uint64_t)0;
	if (!ieee_source(from) || env->ftz || env->daz || env->zero_positive || env->pre_scale)
		return false;
	int to_bits = fpref_format_container_bits(to), m = to->man_bits, sm = from->man_bits;
	if (!to->is_signed || to->integer || !to->has_zero || !to->subnormals || to->pad_bits != 0 || m < 1 ||
	    m > sm - 1 || to_bits > 32)
		return false;
	int least_normal = fpref_format_min_exponent(to), src_bias = from->bias, src_emin = 1 - src_bias;
	if (least_normal != 1 - to->bias)
		return false;
	unsigned w = fpref_format_container_bits(from) == 64 ? 64 : 32;
	/* in 32-bit words r = |x| - rebias stays below 2^31 */
	if (fpref_format_container_bits(from) == 32 && to->bias > src_bias)
		return false;
	if (!plan_rounding(env, w, k))
		return false;
	p->word_bits = w;
	p->in_bytes = (unsigned)fpref_format_container_bits(from) / 8;
	p->out_bytes = to_bits <= 8 ? 1 : to_bits <= 16 ? 2 : 4; /* fpref_emu_element_bytes, which array.c (above) holds */
	k->sign_at = fpref_format_container_bits(from) - 1;
	k->src_man = sm;
	k->abs_mask = k->sign_at == 63 ? all >> 1 : ((uint64_t)1 << k->sign_at) - 1;
	k->inf_pattern = (((uint64_t)1 << from->exp_bits) - 1) << sm;
	k->man_mask = ((uint64_t)1 << sm) - 1;
	k->implicit = (uint64_t)1 << sm;
	/* The shift.  A result in the target's normal range rounds |x|
	 * itself, rebiased, at the target's last place, so that a carry out
	 * of the significand steps the exponent; one below it rounds the
	 * source's significand with its implicit bit set, at
	 *   shift = (sm - m) + (least normal - exponent),
	 * clamped to [sm - m, sm + 2] (the source's field 0 counted as
	 * exponent -bias, one place deeper).  At the cap any significand
	 * rounds as a value in (0, half the least subnormal) does, which is
	 * exact for every rounding but the stochastic ones where all the
	 * source's subnormals lie within half the target's least subnormal;
	 * or, with no rebias (the same bias), |x| goes through unchanged,
	 * the source's subnormals landing on the target's own.  Otherwise
	 * the source's subnormals go to the core. */
	bool no_rebias = to->bias == src_bias;
	bool subnormals_below = least_normal - m >= src_emin + 1;
	k->rebias = (uint64_t)(int64_t)(src_bias - to->bias) << sm;
	k->normal_from = no_rebias ? 0 : (int64_t)(src_bias + least_normal) * ((int64_t)1 << sm);
	k->up_from = (int64_t)w - sm + m - least_normal - src_bias;
	k->up_most = (int64_t)w - (sm - m);
	k->up_least = no_rebias ? k->up_most : (int64_t)w - (sm + 2);
	bool sr = env->rounding == FPREF_SR;
	k->sub_rare = !no_rebias && (!subnormals_below || sr) ? all : 0;
	k->deep_rare = !no_rebias && sr ? all : 0;
	plan_deep(env, w, stream, k);
	/* R 2^(shift - r) is R_s >> (smax - shift) with R_s = R 2^(smax - r),
	 * smax the greatest shift (up_least's): one variable shift a lane (a
	 * floor of a floor where r > smax) */
	int64_t smax = (int64_t)w - k->up_least;
	k->sr_scaled = k->sr_bits <= smax ? k->sr_r << (smax - k->sr_bits) : k->sr_r >> (k->sr_bits - smax);
	/* results */
	k->max_code = (int64_t)fpref_format_max_bits(to, false);
	k->min_normal = (int64_t)1 << m;
	k->sign_shift = (uint64_t)(to->exp_bits + to->man_bits);
	k->zero_unsigned = to->specials == FPREF_SPECIALS_FNUZ ? all : 0;
	uint64_t sign_bit = (uint64_t)1 << k->sign_at, quiet = k->inf_pattern | (k->implicit >> 1);
	if (lane_signed(k, true, 0, false) != core(p, sign_bit))
		return false; /* -0 not as the lanes make it */
	/* NaN: one code for each sign, as the core gives it (nan_pos,
	 * nan_neg); the plain rne plan signs one magnitude (nan_mag) by one
	 * of two rules, nan_signed or not.  Payload styles go to the core. */
	k->nan_mag = core(p, quiet);
	k->nan_pos = core(p, quiet);
	k->nan_neg = core(p, quiet | sign_bit);
	const uint64_t nans[] = { quiet, quiet | 1, k->inf_pattern | 1, k->inf_pattern | (k->man_mask >> 1) };
	bool nan_ok = env->nan_style != FPREF_NAN_PROPAGATE && env->nan_style != FPREF_NAN_KEEP_BITS;
	for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
		nan_ok = nan_ok && core(p, nans[i]) == k->nan_pos && core(p, nans[i] | sign_bit) == k->nan_neg;
	bool nan_rule = false;
	for (int signed_nan = 1; signed_nan >= 0 && !nan_rule; signed_nan--) {
		k->nan_signed = signed_nan ? all : 0;
		nan_rule = lane_signed(k, false, k->nan_mag, true) == k->nan_pos &&
			   lane_signed(k, true, k->nan_mag, true) == k->nan_neg;
	}
	k->nan_rare = nan_ok ? 0 : all;
	/* inf: the core's code for each sign; the plain rne plan's one
	 * magnitude, signed (inf_ok where that gives them) */
	k->inf_pos = core(p, k->inf_pattern);
	k->inf_neg = core(p, k->inf_pattern | sign_bit);
	k->inf_mag = k->inf_pos & ~((uint64_t)1 << k->sign_shift);
	bool inf_ok = lane_signed(k, false, k->inf_mag, false) == k->inf_pos &&
		      lane_signed(k, true, k->inf_mag, false) == k->inf_neg;
	/* Beyond max finite a lane takes the code the core gives there, sign
	 * and all (max, inf, or NaN where there is no inf, unsigned in FNUZ);
	 * stochastic rounding's depends on the direction it took, as the
	 * nearest modes' where it rounded up (or under P3109's SatNone), as
	 * rtz's where it did not.  The plain rne plan clamps by min() to a
	 * magnitude that takes the lane's sign: over_ok where that gives them. */
	int emax = fpref_format_max_exponent(to);
	struct fpref_env away = *env, trunc = *env;
	away.rounding = FPREF_RNE;
	trunc.rounding = env->p3109_sat_none ? FPREF_RNE : FPREF_RTZ;
	const struct fpref_env *envs[2] = { sr ? &trunc : env, sr ? &away : env };
	uint64_t *codes[4] = { &k->over_pos, &k->over_neg, &k->over_away_pos, &k->over_away_neg };
	int64_t *clamps[2] = { &k->clamp_pos, &k->clamp_neg };
	bool over_ok = true;
	for (int i = 0; i < 4; i++) {
		unsigned flags = 0;
		bool negative = i & 1;
		uint64_t over = fpref_emu_round_pack(to, envs[i / 2], 0, negative, emax + 2, 1, false, &flags);
		*codes[i] = over;
		if (i < 2) {
			int64_t c = (int64_t)(over & ~((uint64_t)1 << k->sign_shift));
			*clamps[i] = c;
			over_ok = over_ok && lane_signed(k, negative, (uint64_t)c, false) == over;
		}
	}
	/* the magnitude plan: every code beyond max (stochastic rounding's for
	 * each direction too), inf's and NaN's a magnitude the lane's sign rule
	 * signs, the codes beyond max reached from any q > max_code by min() */
	bool mag_ok = nan_rule || k->nan_rare;
	int64_t *ends[5] = { &k->mclamp_pos, &k->mclamp_neg, &k->clamp_away_pos, &k->clamp_away_neg, &k->inf_m };
	for (int i = 0; i < 5; i++) {
		bool negative = i & 1;
		uint64_t code = i < 4 ? *codes[i] : k->inf_pos;
		/* the magnitude, or the whole code where the sign is in it (FNUZ's NaN) */
		int64_t c = (int64_t)(code & ~((uint64_t)1 << k->sign_shift));
		if (lane_signed(k, negative, (uint64_t)c, false) != code)
			c = (int64_t)code;
		*ends[i] = c;
		mag_ok = mag_ok && lane_signed(k, negative, (uint64_t)c, false) == code &&
			 (i == 4 || c == k->max_code || c == k->max_code + 1);
	}
	mag_ok = mag_ok && lane_signed(k, true, (uint64_t)k->inf_m, false) == k->inf_neg;
	p->mag = mag_ok;
	k->sr_away = sr && (k->clamp_away_pos != k->mclamp_pos || k->clamp_away_neg != k->mclamp_neg);
	/* a zero reaches the cap with r the implicit bit alone, or |x| itself
	 * with no rebias: rne, rna and rtz give 0 there, the others may not */
	bool zero_low = (k->normal_from > 0 && k->up_from <= k->up_least) || (k->normal_from <= 0 && k->rebias == 0);
	k->lift_zero = k->dir_pos || k->dir_neg || k->odd || !zero_low;
	/* sub: field 0, below the implicit bit; deep: up below up_least */
	uint64_t deep_below = k->up_least > k->up_from ? (uint64_t)(k->up_least - k->up_from) << sm : 0;
	k->rare_below = k->sub_rare ? k->implicit : 0;
	if (k->deep_rare && deep_below > k->rare_below)
		k->rare_below = deep_below;
	k->inf_clamps = k->inf_m == k->mclamp_pos && k->inf_m == k->mclamp_neg && !k->sr_away && emax <= src_bias;
	k->sign_down = (uint64_t)k->sign_at - k->sign_shift;
	k->sign_out = (uint64_t)1 << k->sign_shift;
	/* rne on FP32 or FP64 with nothing for the core: the shorter sequence,
	 * inf through the clamp by min() as any value beyond max */
	p->rne_fast = env->rounding == FPREF_RNE && fpref_format_container_bits(from) >= 32 && nan_ok && nan_rule && inf_ok &&
		      over_ok && !k->sub_rare && k->clamp_pos == k->clamp_neg && (int64_t)k->inf_mag == k->clamp_pos &&
		      (k->clamp_pos == k->max_code || k->clamp_pos == k->max_code + 1) &&
		      fpref_format_max_exponent(to) <= src_bias;
	p->rne_nan_signed = k->nan_signed != 0;
	p->sr = sr;
	p->rare = k->nan_rare || k->sub_rare || k->deep_rare;
	p->rne_zero_unsigned = k->zero_unsigned != 0;
	/* (with the same bias in source and target, as FP16 to E5M2, no lane is
	 * the core's: sub_rare, deep_rare and rare_below all 0) */
	p->mag_fixed = sr && !stream && p->mag && !k->sr_c && !k->deep_lanes && !k->sr_away && k->inf_clamps &&
		       !k->zero_unsigned && k->mclamp_neg == k->mclamp_pos && !k->nan_rare &&
		       ((k->sub_rare && k->deep_rare && k->rare_below != 0) ||
			(!k->sub_rare && !k->deep_rare && k->rare_below == 0));
	/* (plan_deep's conditions; r <= 31: R' whole at the top of 32 bits) */
	if (p->mag_fixed && k->deep_rare && w == 32 && !k->sr_c &&
	    (int64_t)(env->sr_width + (env->sr_rule == FPREF_SR_B ? 1u : 0u)) == k->sr_bits && k->sr_bits <= 31) {
		p->deep_fixed = true;
		p->kd = *k;
		p->kd.deep_lanes = all;
		p->kd.deep_rare = 0;
		p->kd.rare_below = k->implicit; /* (sub_rare: every plan with deep_rare has it) */
		p->sr_top = (uint32_t)(k->sr_r << (32 - k->sr_bits));
	}
	plan_via32(p);
	p->host_f32 = fpref_format_is(from, FPREF_FORMAT_FLOAT64) && fpref_format_is(to, FPREF_FORMAT_FLOAT32) &&
		      p->rne_fast && !p->rne_zero_unsigned && (uint64_t)k->clamp_pos == k->inf_mag &&
		      k->clamp_pos == k->max_code + 1; /* beyond max: inf */
	return true;
}

bool fpref_emu_lanes_plan_stream(const struct fpref_format *from, const struct fpref_format *to,
				 const struct fpref_env *env, struct lanes_plan *p)
{
	if (env->rounding != FPREF_SR || !env->sr_seeded || env->sr_lanes || env->sr_philox)
		return fpref_emu_lanes_plan(from, to, env, p);
	/* the plan of R = 0: each lane adds its own R's term */
	struct fpref_env fixed = *env;
	fixed.sr_seeded = false;
	fixed.sr_random = 0;
	if (env->sr_width + (env->sr_rule == FPREF_SR_B ? 1u : 0u) > 64 || !plan_impl(from, to, &fixed, true, p) ||
	    p->word_bits != 32)
		return false;
	p->env = *env;
	p->sr_stream = true;
	const struct lanes_k *k = &p->k;
	p->mag_usual = p->mag && k->deep_lanes && !k->sr_away && k->inf_clamps && !k->zero_unsigned &&
		       k->mclamp_neg == k->mclamp_pos && !k->nan_rare && k->sub_rare && k->rare_below == k->implicit &&
		       env->sr_width >= 32;
	return true;
}

/* Each element's R' (R, or rule B's 2R + 1, of r bits) at the top of a
 * 32-bit word, R' 2^(32 - r), or its top 32 bits where r > 32: the
 * stream's top 32 bits, those below the R's width cleared (keep) and rule
 * B's 1 set (half).  The lanes make it themselves (LANES_STEP), from the
 * stream's body (fpref_sr_stream_inline) less its first product: element
 * e's counter term is seed + (e + 1) C, made for the first register's
 * lanes and stepped by L C from one register to the next (sr_z);
 * tests/check_lanes holds every lane to fpref_sr_stream by way of the
 * core. */
#define SR_C UINT64_C(0x9e3779b97f4a7c15)
static void sr_keep_half(const struct lanes_plan *p, uint32_t *keep, uint32_t *half)
{
	unsigned width = p->env.sr_width;
	bool b = p->env.sr_rule == FPREF_SR_B;
	*keep = width >= 32 ? ~(uint32_t)0 : ~(((uint32_t)1 << (32 - width)) - 1);
	*half = b && width < 32 ? (uint32_t)1 << (31 - width) : 0;
}

/* One element by the core, where a lane marked it. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void lanes_fix(const struct lanes_plan *p, const void *in, void *out, uint8_t *flags, size_t i)
{
	uint64_t x = fpref_element_load(in, i, p->in_bytes), y = 0;
	unsigned f = 0;
	fpref_emu_convert(&p->from, x, &p->to, &p->env, fpref_env_sr_random(&p->env, p->first_index + i), &y, &f);
	fpref_element_store(out, i, p->out_bytes, y);
	if (flags)
		flags[i] = (uint8_t)f;
}

/* Whether the magnitude plan's lanes mark x for the core, as they do
 * (LANES' may_rare): a nonzero |x| below rare_below, or a NaN where
 * nan_rare; found again only in a block where a lane was marked, so that
 * the lanes store no mark per element.  The seeded stream's plans alone
 * (their marks seldom: measured, 9 % on NVFP4's --sr; a fixed R's deep
 * lanes, in most blocks, made the scan cost more than the marks). */
static inline bool mag_rare(const struct lanes_k *k, uint64_t x)
{
	uint64_t mag = x & k->abs_mask;
	return (k->rare_below && mag - 1 < k->rare_below - 1) || (k->nan_rare && mag > k->inf_pattern);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi" /* the vector helpers are always inlined: no call passes a vector; GCC reports at the end of the file */
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));
typedef int32_t i32x16 __attribute__((vector_size(64)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef uint64_t u64x4 __attribute__((vector_size(32)));
typedef int64_t i64x4 __attribute__((vector_size(32)));
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint16_t u16x4 __attribute__((vector_size(8)));
typedef uint8_t u8x4 __attribute__((vector_size(4)));
typedef uint64_t u64x8 __attribute__((vector_size(64)));
typedef int64_t i64x8 __attribute__((vector_size(64)));

/* mask ? yes : no, lane by lane (masks are all ones or all zeros), which
 * GCC makes a blend; LANE_MIN and LANE_MAX stay a compare and a blend
 * under GCC 12 (written lane by lane to get one min or max instruction,
 * they stopped GCC 12.2 with an internal compiler error in this file) */
#define PICK(mask, yes, no) (((mask) & (yes)) | (~(mask) & (no)))
#define LANE_MIN(a, b) PICK((a) < (b), a, b)
#define LANE_MAX(a, b) PICK((a) > (b), a, b)

/* Stochastic rounding's deep tail in 32-bit lanes (plan_deep): where up is
 * below the cap, q is 1 (the least subnormal) where T = floor(r 2^up) and
 * the lane's R' 2^(32 - r), srt, carry out of the word, else 0; deep marks
 * those lanes (a zero's and the source's subnormals' aside, which keep
 * their ways: a zero's q is forced to 0 after, and sub_core, a constant,
 * says the subnormals go to the core).  T in one variable shift: r 2^(up_least - 1) is below 2^30
 * (r of the source's precision, up_least its place under the word's top
 * less 2), then down by the depth, at most 31 places (0 past them); a lane
 * not deep shifts by 31 too, unsigned, and is not picked. */
#define LANES_DEEP(U, I, T, ST, k, up, r, srt, mag, q, deep, sub_core)                                              \
	do {                                                                                                         \
		const U uz_ = { 0 };                                                                                 \
		U d_ = (U)((ST)((k)->up_least - 1) - (up));                                                          \
		d_ = PICK(d_ < 31u, d_, uz_ + 31u);                                                                  \
		U t_ = ((r) << (T)((k)->up_least - 1)) >> d_;                                                        \
		(deep) = (U)((up) < (ST)(k)->up_least);                                                              \
		if (!(sub_core)) /* (where the source's subnormals go to the core, their lanes' q is not read) */   \
			(deep) &= ~(U)(((mag) >> (T)(k)->src_man) == 0u);                                            \
		(q) = PICK((deep), (U)((srt) + t_ < (srt)) & 1u, (q));                                               \
	} while (0)

/* The lane sequence, once per word (U unsigned, I signed lanes of T and
 * ST, W bits): the same source, so the same bits.  Every value compared
 * is below 2^(W-1), so the compares are signed ones, which AVX2 has.  rne
 * (a constant where called) takes the shorter sequence of the plain rne
 * plan, whose sign rules ns and zu are then constants too; otherwise the
 * rounding comes from k and *rare marks the lanes for the core, and with
 * want_flags *fl holds each lane's flags.  srv is each lane's stochastic
 * term, k->sr_scaled or its own from the stream, and srt the stream's R' at
 * the top of 32 bits for the deep tail.  usual (a constant) is the
 * magnitude plan whose branches on k go the usual way, known here, so
 * that its loop tests nothing: the stream's (struct lanes_plan's
 * mag_usual, its deep tail in the lanes) or a fixed R's (mag_fixed, its
 * deep tail the core's); NOT_USUAL reads them from k. */
enum { NOT_USUAL, USUAL_STREAM, USUAL_FIXED, USUAL_FIXED_DEEP };
#define LANES(NAME, U, I, T, ST, W)                                                                                  \
	static inline __attribute__((always_inline)) U NAME(const struct lanes_k *k, bool rne, bool ns, bool zu,      \
							  bool mg, int usual, bool sr, bool sr_c, bool may_rare,     \
							  bool want_flags, U x, U srv, U srt, U *rare, U *fl)       \
	{                                                                                                            \
		const U zero = { 0 };                                                                                \
		const I izero = { 0 };                                                                               \
		const U ones = zero + (T)~(T)0;                                                                      \
		U mag = x & (T)k->abs_mask;                                                                          \
		I up = (I)(mag >> (T)k->src_man) + (ST)k->up_from;                                                   \
		I upc = LANE_MAX(up, izero + (ST)k->up_least);                                                       \
		upc = LANE_MIN(upc, izero + (ST)k->up_most);                                                         \
		U shift = (T)W - (U)upc;                                                                             \
		U r = PICK((U)((I)mag >= (ST)k->normal_from), mag - (T)k->rebias, (mag & (T)k->man_mask) | (T)k->implicit); \
		U negm = zero - ((x >> (T)k->sign_at) & 1u);                                                         \
		if (mg) {                                                                                            \
			/* the branches on k go the same way for the whole call: each leaves out a term \
			 * the plan's rounding or codes do not need */                                              \
			U low = ones >> (U)upc, inc = zero + (T)k->away;                                             \
			if (sr) {                                                                                    \
				inc = srv >> (U)(upc - (ST)k->up_least);                                             \
				if (sr_c) {                                                                          \
					/* the full path's term, c = shift - sr_bits: where c > 0, h = 2^(c-1) - 1   \
					 * plus r's bit c, which is max(h, r >> 1 & 2^(c-1)); else 0 = h = top */   \
					U top = low >> (T)k->sr_bits, h = top >> 1u, b = (r >> 1u) & (top - h);     \
					inc += PICK((U)((I)b > (I)h), b, h);                                         \
				}                                                                                    \
			} else if (k->near) {                                                                        \
				inc += low >> 1u;                                                                    \
				if (k->even)                                                                         \
					inc += (r >> shift) & 1u;                                                    \
			} else if (k->dir_pos | k->dir_neg) { /* rup: the positive lanes, rdn the negative */       \
				inc = low & (negm ^ (T)k->dir_pos);                                                  \
			}                                                                                            \
			U q = (r + inc) >> shift;                                                                    \
			if (W == 32 && sr && (usual == USUAL_STREAM || usual == USUAL_FIXED_DEEP || (!usual && k->deep_lanes))) {           \
				U deep_;                                                                             \
				LANES_DEEP(U, I, T, ST, k, up, r, srt, mag, q, deep_, usual);                           \
			}                                                                                            \
			if (!sr && k->odd)                                                                           \
				q |= (U)((r & low) != 0) & 1u;                                                       \
			if (sr || k->lift_zero) /* a zero's r is the implicit bit: the rounding may lift it */     \
				q = PICK((U)(mag == 0), zero, q);                                                    \
			U cl = zero + (T)k->mclamp_pos;                                                              \
			if (!usual && k->mclamp_neg != k->mclamp_pos)                                                \
				cl = PICK(negm, zero + (T)k->mclamp_neg, cl);                                        \
			if (sr && !usual && k->sr_away)                                                              \
				cl = PICK((U)(q != (r >> shift)),                                                    \
					  PICK(negm, zero + (T)k->clamp_away_neg, zero + (T)k->clamp_away_pos), cl); \
			q = (U)LANE_MIN((I)q, (I)cl);                                                                \
			/* inf and NaN: inf through the clamp where its code is the clamp's */                      \
			U nan = (U)((I)mag > (ST)k->inf_pattern);                                                    \
			if (!usual && !k->inf_clamps)                                                                \
				q = PICK((U)(mag == (T)k->inf_pattern), zero + (T)k->inf_m, q);                      \
			q = PICK(nan, zero + (T)k->nan_mag, q);                                                      \
			U sign = (x >> (T)k->sign_down) & (T)k->sign_out;                                            \
			if (!k->nan_signed) /* (a branch: the vector units are this loop's bound) */               \
				sign &= ~nan;                                                                        \
			if (!usual && k->zero_unsigned)                                                              \
				sign &= (U)(q != 0u);                                                                \
			if (may_rare) { /* the marked subnormal and deep lanes: |x| in [1, rare_below) */            \
				U rr = zero;                                                                         \
				if (usual || k->rare_below)                                                          \
					rr = (U)(mag - 1u < (T)(k->rare_below - 1));                                 \
				if (!usual && k->nan_rare)                                                           \
					rr |= nan;                                                                   \
				*rare = rr;                                                                          \
			}                                                                                            \
			return q | sign;                                                                             \
		}                                                                                                    \
		U q, dropped = zero, away = zero, in_deep = zero;                                                     \
		if (rne) { /* + half an ulp less one, + the kept lsb: ties to even */                               \
			q = (r + ((ones >> 1u) >> (U)upc) + ((r >> shift) & 1u)) >> shift;                          \
		} else {                                                                                             \
			U low = ones >> (U)upc; /* the dropped places */                                             \
			U inc = ((low >> 1u) & (T)k->near) + (((r >> shift) & 1u) & (T)k->even) + (T)k->away +       \
				(low & PICK(negm, zero + (T)k->dir_neg, zero + (T)k->dir_pos));                      \
			if (sr) { /* R at the place sr_bits below the last kept one */                         \
				inc += srv >> (U)(upc - (ST)k->up_least);                                            \
				if (sr_c) { /* rule C: the dropped bits below those rounded to nearest even */  \
					I c = (I)shift - (ST)k->sr_bits;                                             \
					U cu = (U)LANE_MAX(c, izero), cm = (U)LANE_MAX(c - 1, izero);                \
					inc += (U)(c > 0) & (((zero + 1u) << cm) - 1u + ((r >> cu) & 1u));           \
				}                                                                                    \
			}                                                                                            \
			q = (r + inc) >> shift;                                                                      \
			if (W == 32 && sr && k->deep_lanes)                                                          \
				LANES_DEEP(U, I, T, ST, k, up, r, srt, mag, q, in_deep, false);                         \
			away = (U)(q != (r >> shift));                                                               \
			dropped = (U)((r & low) != 0);                                                               \
			if (!sr) /* round to odd is no stochastic rounding */                                        \
				q |= dropped & (T)k->odd;                                                            \
			q = PICK((U)(mag == 0), zero, q);                                                            \
		}                                                                                                    \
		U over = (U)((I)q > (ST)k->max_code);                                                                \
		/* beyond max: the code the core gives there, sign and all (fpref_emu_lanes_plan), put in place of  \
		 * the signed result at the end; in the plain rne plan the code after max or max itself, so that    \
		 * min() clamps */                                                                                   \
		U clamp = rne ? zero + (T)k->clamp_pos : PICK(negm, zero + (T)k->over_neg, zero + (T)k->over_pos);   \
		if (sr)                                                                                              \
			clamp = PICK(away, PICK(negm, zero + (T)k->over_away_neg, zero + (T)k->over_away_pos), clamp); \
		if (rne)                                                                                             \
			q = (U)LANE_MIN((I)q, (I)clamp);                                                             \
		U nan = (U)((I)mag > (ST)k->inf_pattern);                                                            \
		U inf = (U)(mag == (T)k->inf_pattern);                                                               \
		if (!rne)                                                                                            \
			over &= ~(nan | inf);                                                                        \
		if (rne)                                                                                             \
			q = PICK(nan, zero + (T)k->nan_mag, q);                                                      \
		U sign = ((x >> (T)k->sign_at) & 1u) << (T)k->sign_shift;                                            \
		if (rne) {                                                                                           \
			if (!ns)                                                                                     \
				sign &= ~nan;                                                                        \
			if (zu)                                                                                      \
				sign &= (U)(q != 0u);                                                                \
		} else {                                                                                             \
			sign &= (U)(q != 0u) | ~(T)k->zero_unsigned;                                                 \
			U special = nan | inf;                                                                       \
			U rr = zero;                                                                                 \
			if (may_rare) {                                                                              \
				U sub = (U)((mag >> (T)k->src_man) == 0u) & ~(U)(mag == 0u);                         \
				U deep = (U)(up < (ST)k->up_least) & ~(U)(mag == 0u);                                \
				rr = (nan & (T)k->nan_rare) | (sub & (T)k->sub_rare) | (deep & (T)k->deep_rare);    \
			}                                                                                            \
			if (want_flags) {                                                                            \
				/* specials and the underflow flag's candidates (at most the least normal, inexact) \
				 * from the core */                                                                  \
				rr |= special | ((U)((I)q <= (ST)k->min_normal) & dropped & ~in_deep);               \
				/* a deep lane: inexact, and tiny however tininess is read (its value \
				 * below half the least subnormal) */                                               \
				*fl = ((dropped | over) & 1u) | (over & 4u) | (in_deep & 2u);                        \
			}                                                                                            \
			*rare = rr;                                                                                  \
		}                                                                                                    \
		if (rne)                                                                                             \
			return q | sign;                                                                             \
		/* beyond max, inf and NaN: the core's whole codes for the lane's sign */                             \
		U inf_code = PICK(negm, zero + (T)k->inf_neg, zero + (T)k->inf_pos);                                 \
		U nan_code = PICK(negm, zero + (T)k->nan_neg, zero + (T)k->nan_pos);                                 \
		return PICK(over | nan | inf, PICK(nan, nan_code, PICK(inf, inf_code, clamp)), q | sign);            \
	}
LANES(lanes32x8, u32x8, i32x8, uint32_t, int32_t, 32)
LANES(lanes32x16, u32x16, i32x16, uint32_t, int32_t, 32)
LANES(lanes64x4, u64x4, i64x4, uint64_t, int64_t, 64)
LANES(lanes64x8, u64x8, i64x8, uint64_t, int64_t, 64)

/* The top 32-bit halves of the 64-bit words of a then b, as one vector
 * of L words (a and b as vectors of words): one permutation, no shifts. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SR_HI 0
#else
#define SR_HI 1
#endif
#define SR_TOPS_4(a, b) __builtin_shufflevector(a, b, SR_HI, 2 + SR_HI, 4 + SR_HI, 6 + SR_HI)
#define SR_TOPS_8(a, b) __builtin_shufflevector(a, b, SR_HI, 2 + SR_HI, 4 + SR_HI, 6 + SR_HI, 8 + SR_HI, 10 + SR_HI, \
						12 + SR_HI, 14 + SR_HI)
#define SR_TOPS_16(a, b)                                                                                          \
	__builtin_shufflevector(a, b, SR_HI, 2 + SR_HI, 4 + SR_HI, 6 + SR_HI, 8 + SR_HI, 10 + SR_HI, 12 + SR_HI,  \
				14 + SR_HI, 16 + SR_HI, 18 + SR_HI, 20 + SR_HI, 22 + SR_HI, 24 + SR_HI, 26 + SR_HI,      \
				28 + SR_HI, 30 + SR_HI)

/* Whether any lane of the mask v is set: narrowed to a byte a lane (FLAG_V)
 * and read as words, not lane by lane (a lane's extraction is an
 * instruction of its own). */
#define ANY_LANE(v, FLAG_V, acc)                                                                                      \
	do {                                                                                                         \
		FLAG_V b_ = __builtin_convertvector((v), FLAG_V);                                                    \
		uint64_t w_[(sizeof b_ + 7) / 8] = { 0 };                                                            \
		memcpy(w_, &b_, sizeof b_);                                                                          \
		for (size_t k_ = 0; k_ < sizeof w_ / sizeof w_[0]; k_++)                                             \
			(acc) |= w_[k_];                                                                             \
	} while (0)

/* One register of L lanes at element i: loaded from IN_T elements (IN_V
 * a vector of L of them, widened to U), stored as OUT_T through OUT_V by
 * way of NARROW (GCC narrows 32-bit lanes to bytes in one step with some
 * thirty scalar instructions on AVX2, in two with two packs), flags as
 * bytes; count below L: a zero-padded partial register, stored element by
 * element.  The lanes for the core are marked in rb (a byte each, from
 * element b) and ORed into any, for after the block. */
#define LANES_STEP(LANES, U, L, IN_T, IN_V, OUT_T, OUT_V, NARROW, FLAG_V, R_V, i, count)                            \
	do {                                                                                                         \
		U x_, rare_ = { 0 }, fl_ = { 0 }, srv_ = (U){ 0 } + (__typeof__(((U){ 0 })[0]))k.sr_scaled;          \
		/* the deep tail's R': the stream's (plan_deep), or the fixed one in the deep redo */               \
		U srt_ = (U){ 0 } + (__typeof__(((U){ 0 })[0]))sr_top;                                               \
		if (stream) { /* each lane's R' at the top of 32 bits (R_V: L of them), its term */                 \
			SRH za_ = sr_lo, zb_ = sr_hi; /* element i's: the steps go in order, L elements apart */    \
			sr_lo += (uint64_t)(L) * SR_C;                                                               \
			sr_hi += (uint64_t)(L) * SR_C;                                                               \
			za_ = (za_ ^ (za_ >> 30u)) * UINT64_C(0xbf58476d1ce4e5b9);                                    \
			zb_ = (zb_ ^ (zb_ >> 30u)) * UINT64_C(0xbf58476d1ce4e5b9);                                    \
			za_ = (za_ ^ (za_ >> 27u)) * UINT64_C(0x94d049bb133111eb);                                    \
			zb_ = (zb_ ^ (zb_ >> 27u)) * UINT64_C(0x94d049bb133111eb);                                    \
			/* the top half of z ^ (z >> 31): h ^ (h >> 31), h z's top half, picked as words */         \
			R_V rv_ = SR_TOPS_##L((SRW)za_, (SRW)zb_);                                                   \
			rv_ ^= rv_ >> 31u;                                                                           \
			if (!usual && (sr_keep != ~(uint32_t)0 || sr_half)) /* R narrower than 32 bits, or rule B */ \
				rv_ = (rv_ & sr_keep) | sr_half;                                                     \
			srt_ = __builtin_convertvector(rv_, U);                                                      \
			srv_ = srt_ >> (__typeof__(((U){ 0 })[0]))k.up_least; /* R' 2^(smax - r), smax = 32 - up_least */ \
		}                                                                                                    \
		if ((count) == (L)) {                                                                                \
			IN_V v_;                                                                                     \
			memcpy(&v_, (const IN_T *)in + (i), sizeof v_);                                              \
			x_ = __builtin_convertvector(v_, U);                                                         \
		} else {                                                                                             \
			IN_T part_[L] = { 0 };                                                                       \
			memcpy(part_, (const IN_T *)in + (i), (count) * sizeof(IN_T));                               \
			IN_V v_;                                                                                     \
			memcpy(&v_, part_, sizeof v_);                                                               \
			x_ = __builtin_convertvector(v_, U);                                                         \
		}                                                                                                    \
		U y_ = LANES(&k, rne, ns, zu, mg, usual, sr, sr_c, may_rare, want_flags, x_, srv_, srt_, &rare_, &fl_); \
		if ((count) == (L)) {                                                                                \
			OUT_V o_;                                                                                    \
			if (sizeof(y_) == 64) /* AVX-512: one narrowing store (vpmovdb, vpmovdw, vpmovqb) */        \
				o_ = __builtin_convertvector(y_, OUT_V);                                             \
			else                                                                                         \
				o_ = __builtin_convertvector(__builtin_convertvector(y_, NARROW), OUT_V);            \
			memcpy((OUT_T *)out + (i), &o_, sizeof o_);                                                  \
			if (want_flags) {                                                                            \
				FLAG_V f_ = __builtin_convertvector(fl_, FLAG_V);                                    \
				memcpy(flags + (i), &f_, sizeof f_);                                                 \
			}                                                                                            \
		} else {                                                                                             \
			for (size_t j_ = 0; j_ < (count); j_++) {                                                    \
				((OUT_T *)out)[(i) + j_] = (OUT_T)y_[j_];                                            \
				if (want_flags)                                                                      \
					flags[(i) + j_] = (uint8_t)fl_[j_];                                          \
			}                                                                                            \
		}                                                                                                    \
		if (may_rare || want_flags) {                                                                        \
			if (!mg || !stream) { /* the stream's magnitude plans': found again (mag_rare) */            \
				/* (a mark is any nonzero byte: from the mask's top bits, which GCC 12 narrows \
				 * in one instruction where it built the mask itself lane by lane) */         \
				FLAG_V r_ = __builtin_convertvector(rare_ >> 31u, FLAG_V);                           \
				memcpy(rb + ((i) - b), &r_, sizeof r_);                                              \
			}                                                                                            \
			any |= rare_;                                                                                \
		}                                                                                                    \
	} while (0)

/* Every element, in blocks of LANES_BLOCK: whole registers, then the last
 * partial one; then the block's lanes for the core.  No call inside a
 * block, so that the plan's constants stay in registers. */
enum { LANES_BLOCK = 512 };
#define LANES_LOOP(NAME, LANES, U, L, IN_T, IN_V, OUT_T, OUT_V, NARROW, FLAG_V, R_V)                                \
	static inline __attribute__((always_inline)) void NAME(const struct lanes_plan *plan, bool rne, bool ns,      \
							     bool zu, bool mg, int usual, bool sr, bool sr_c,        \
							     bool may_rare,                                          \
							     bool want_flags,                                        \
							     const void *in, void *out, size_t n, uint8_t *flags)    \
	{                                                                                                            \
		const struct lanes_k k = *(usual == USUAL_FIXED_DEEP ? &plan->kd : &plan->k);                       \
		const uint32_t sr_top = usual == USUAL_FIXED_DEEP ? plan->sr_top : 0;                                \
		/* the stream's 64-bit words in two registers' worth, lanes [0, L/2) and [L/2, L) (one of         \
		 * L words would be kept in memory), and as 32-bit words */                                        \
		typedef uint64_t SRH __attribute__((vector_size((L) * 4)));                                          \
		typedef uint32_t SRW __attribute__((vector_size((L) * 4)));                                          \
		/* the plan's fields read in the loop, as locals: the stores to out might alias the plan */          \
		const bool stream = sr && (usual == USUAL_STREAM || (!usual && plan->sr_stream));                    \
		SRH sr_lo = { 0 }, sr_hi = { 0 }; /* the next step's counter terms, lane j's element's */             \
		uint32_t sr_keep = 0, sr_half = 0;                                                                   \
		if (stream) {                                                                                        \
			for (unsigned j_ = 0; j_ < (L) / 2; j_++) {                                                  \
				sr_lo[j_] = plan->env.sr_seed + (plan->first_index + j_ + 1) * SR_C;                 \
				sr_hi[j_] = plan->env.sr_seed + (plan->first_index + (L) / 2 + j_ + 1) * SR_C;       \
			}                                                                                            \
			sr_keep_half(plan, &sr_keep, &sr_half);                                                      \
		}                                                                                                    \
		for (size_t b = 0; b < n; b += LANES_BLOCK) {                                                        \
			size_t end = n - b < LANES_BLOCK ? n : b + LANES_BLOCK, whole = b + (end - b) / (L) * (L);   \
			uint8_t rb[LANES_BLOCK + (L)];                                                               \
			U any = { 0 };                                                                               \
			for (size_t i = b; i < whole; i += (L))                                                      \
				LANES_STEP(LANES, U, L, IN_T, IN_V, OUT_T, OUT_V, NARROW, FLAG_V, R_V, i, (size_t)(L)); \
			if (whole < end)                                                                             \
				LANES_STEP(LANES, U, L, IN_T, IN_V, OUT_T, OUT_V, NARROW, FLAG_V, R_V, whole, end - whole); \
			if (may_rare || want_flags) {                                                                \
				uint64_t any_ = 0;                                                                   \
				ANY_LANE(any, FLAG_V, any_);                                                         \
				for (size_t j_ = b; any_ && j_ < end; j_++)                                          \
					if (mg && stream ? mag_rare(&k, fpref_element_load(in, j_, sizeof(IN_T)))              \
								  : rb[j_ - b] != 0)                           \
						lanes_fix(plan, in, out, flags, j_);                                 \
			}                                                                                            \
		}                                                                                                    \
	}

/* The loops of one register width: by the source's and the target's
 * element sizes. */
#define LANES_LOOPS(P, L, U32, U64, L64, I16V, I32V, I64V, O8, O16, O32, N16, O8_64, O16_64, O32_64, N16_64, F8, F8_64) \
	LANES_LOOP(P##_16_8, lanes32x##L, U32, L, uint16_t, I16V, uint8_t, O8, N16, F8, I32V)                     \
	LANES_LOOP(P##_16_16, lanes32x##L, U32, L, uint16_t, I16V, uint16_t, O16, N16, F8, I32V)                  \
	LANES_LOOP(P##_16_32, lanes32x##L, U32, L, uint16_t, I16V, uint32_t, O32, U32, F8, I32V)                  \
	LANES_LOOP(P##_32_8, lanes32x##L, U32, L, uint32_t, I32V, uint8_t, O8, N16, F8, I32V)                     \
	LANES_LOOP(P##_32_16, lanes32x##L, U32, L, uint32_t, I32V, uint16_t, O16, N16, F8, I32V)                  \
	LANES_LOOP(P##_32_32, lanes32x##L, U32, L, uint32_t, I32V, uint32_t, O32, U32, F8, I32V)                  \
	LANES_LOOP(P##_64_8, lanes64x##L64, U64, L64, uint64_t, I64V, uint8_t, O8_64, N16_64, F8_64, O32_64)      \
	LANES_LOOP(P##_64_16, lanes64x##L64, U64, L64, uint64_t, I64V, uint16_t, O16_64, N16_64, F8_64, O32_64)   \
	LANES_LOOP(P##_64_32, lanes64x##L64, U64, L64, uint64_t, I64V, uint32_t, O32_64, O32_64, F8_64, O32_64)
LANES_LOOPS(loop8, 8, u32x8, u64x4, 4, u16x8, u32x8, u64x4, u8x8, u16x8, u32x8, u16x8, u8x4, u16x4, u32x4, u16x4, u8x8,
	    u8x4)
LANES_LOOPS(loop16, 16, u32x16, u64x8, 8, u16x16, u32x16, u64x8, u8x16, u16x16, u32x16, u16x16, u8x8, u16x8, u32x8,
	    u16x8, u8x16, u8x8)

/* Whether a fixed R's plan (deep_fixed: 16- or 32-bit sources) marks
 * any of the n values at in for the core (a nonzero |x| below rare_below:
 * the deep tail and the source's subnormals), L at a time (the lanes'
 * width: GCC 12 makes a compare of a vector wider than the instruction
 * set's one compare a lane in general registers).  |x| - 1 < below
 * unsigned is a signed compare with both sides offset by 2^31: AVX2 and
 * SSE2 have no unsigned one. */
#define ANY_RARE(NAME, L, U, I, H)                                                                                  \
	static inline __attribute__((always_inline)) bool NAME(const struct lanes_plan *p, const void *in, size_t n) \
	{                                                                                                            \
		const uint32_t abs = (uint32_t)p->k.abs_mask, below = (uint32_t)p->k.rare_below - 1u;                \
		const int32_t below_signed = (int32_t)(below ^ 0x80000000u);                                         \
		U hit = { 0 };                                                                                       \
		size_t i = 0;                                                                                        \
		if (p->in_bytes == 2) {                                                                              \
			for (; i + (L) <= n; i += (L)) {                                                             \
				H v;                                                                                 \
				memcpy(&v, (const uint16_t *)in + i, sizeof v);                                      \
				hit |= (U)((I)((__builtin_convertvector(v, U) & abs) + 0x7FFFFFFFu) < below_signed); \
			}                                                                                            \
		} else {                                                                                             \
			for (; i + (L) <= n; i += (L)) {                                                             \
				U v;                                                                                 \
				memcpy(&v, (const uint32_t *)in + i, sizeof v);                                      \
				hit |= (U)((I)((v & abs) + 0x7FFFFFFFu) < below_signed);                             \
			}                                                                                            \
		}                                                                                                    \
		uint32_t any = 0;                                                                                    \
		for (unsigned j = 0; j < (L); j++)                                                                   \
			any |= hit[j];                                                                               \
		for (; i < n; i++)                                                                                   \
			any |= (uint32_t)(((uint32_t)fpref_element_load(in, i, p->in_bytes) & abs) - 1u < below);    \
		return any != 0;                                                                                     \
	}
ANY_RARE(any_rare8, 8, u32x8, i32x8, u16x8)
ANY_RARE(any_rare16, 16, u32x16, i32x16, u16x16)

/* The loop for the plan's sizes and variant: with flags, everything; else
 * rne_fast with its sign rules as constants for the usual targets
 * (IEEE-style NaN keeps its sign; FNUZ has neither -0 nor a signed NaN);
 * else the magnitude plan, the stochastic terms (rule C's apart, and the
 * seeded stream's usual shape, mag_usual, apart: NVFP4's --sr, whose
 * loop then tests nothing on k; a fixed R's, mag_fixed, apart too: the
 * saturating conversions with explicit bits) and the lanes for the core only where the
 * plan has them; else the whole codes.
 * SR, a constant, is the plan's sr: the stochastic variants are compiled
 * in functions of their own (lanes_sr_*), so that their longer sequences
 * leave the others' registers as they were. */
#define LANES_VARIANT(LOOP, p, in, out, n, flags, SR)                                                              \
	do {                                                                                                         \
		bool c_ = (SR) && (p)->k.sr_c != 0;                                                                  \
		if (flags)                                                                                           \
			LOOP(p, false, false, false, false, false, SR, c_, true, true, in, out, n, flags);                  \
		else if (!(SR) && (p)->rne_fast && (p)->rne_nan_signed && !(p)->rne_zero_unsigned)                   \
			LOOP(p, true, true, false, false, false, false, false, false, false, in, out, n, NULL);             \
		else if (!(SR) && (p)->rne_fast && !(p)->rne_nan_signed && (p)->rne_zero_unsigned)                   \
			LOOP(p, true, false, true, false, false, false, false, false, false, in, out, n, NULL);             \
		else if (!(SR) && (p)->rne_fast)                                                                     \
			LOOP(p, true, (p)->rne_nan_signed, (p)->rne_zero_unsigned, false, false, false, false, false, false, in, \
			     out, n, NULL);                                                                          \
		else if ((SR) && (p)->mag_usual && !c_)                                                              \
			LOOP(p, false, false, false, true, USUAL_STREAM, true, false, true, false, in, out, n, NULL);       \
		else if ((SR) && (p)->mag_fixed && !(p)->rare)                                                       \
			LOOP(p, false, false, false, true, USUAL_FIXED, true, false, false, false, in, out, n, NULL);       \
		else if ((SR) && (p)->mag_fixed)                                                                     \
			LOOP(p, false, false, false, true, USUAL_FIXED, true, false, true, false, in, out, n, NULL);        \
		else if ((SR) && (p)->mag && c_)                                                                     \
			LOOP(p, false, false, false, true, false, true, true, true, false, in, out, n, NULL);               \
		else if ((SR) && (p)->mag)                                                                           \
			LOOP(p, false, false, false, true, false, true, false, true, false, in, out, n, NULL);              \
		else if (!(SR) && (p)->mag && (p)->rare)                                                             \
			LOOP(p, false, false, false, true, false, false, false, true, false, in, out, n, NULL);             \
		else if (!(SR) && (p)->mag)                                                                          \
			LOOP(p, false, false, false, true, false, false, false, false, false, in, out, n, NULL);            \
		else                                                                                                 \
			LOOP(p, false, false, false, false, false, SR, c_, true, false, in, out, n, NULL);                  \
	} while (0)

#define LANES_DISPATCH(P, p, in, out, n, flags, SR)                                                                \
	do {                                                                                                         \
		unsigned sizes_ = (p)->in_bytes * 8 + (p)->out_bytes;                                                \
		switch (sizes_) {                                                                                    \
		case 2 * 8 + 1: LANES_VARIANT(P##_16_8, p, in, out, n, flags, SR); break;                          \
		case 2 * 8 + 2: LANES_VARIANT(P##_16_16, p, in, out, n, flags, SR); break;                         \
		case 2 * 8 + 4: LANES_VARIANT(P##_16_32, p, in, out, n, flags, SR); break;                         \
		case 4 * 8 + 1: LANES_VARIANT(P##_32_8, p, in, out, n, flags, SR); break;                          \
		case 4 * 8 + 2: LANES_VARIANT(P##_32_16, p, in, out, n, flags, SR); break;                         \
		case 4 * 8 + 4: LANES_VARIANT(P##_32_32, p, in, out, n, flags, SR); break;                         \
		case 8 * 8 + 1: LANES_VARIANT(P##_64_8, p, in, out, n, flags, SR); break;                          \
		case 8 * 8 + 2: LANES_VARIANT(P##_64_16, p, in, out, n, flags, SR); break;                         \
		default: LANES_VARIANT(P##_64_32, p, in, out, n, flags, SR); break;                                \
		}                                                                                                    \
	} while (0)

/* A fixed R's plan with deep_fixed, block by block: the deep tail in the
 * lanes (kd, USUAL_FIXED_DEEP) in a block with any value for the core,
 * the loop without marks elsewhere.  Compiled in functions of their own
 * (lanes_deep_avx512): beside the other variants, GCC 12 kept their constants
 * on the stack and the loop of mag_fixed ran at half its rate. */
#define LANES_DEEP_BLOCKS(LOOP, p, in, out, n)                                                                     \
	for (size_t b_ = 0; b_ < (n); b_ += LANES_BLOCK) {                                                           \
		size_t m_ = (n) - b_ < LANES_BLOCK ? (n) - b_ : LANES_BLOCK;                                         \
		const void *in_ = (const unsigned char *)(in) + b_ * (p)->in_bytes;                                  \
		void *out_ = (unsigned char *)(out) + b_ * (p)->out_bytes;                                           \
		if (any_rare16(p, in_, m_))                                                                          \
			LOOP(p, false, false, false, true, USUAL_FIXED_DEEP, true, false, true, false, in_, out_, m_, NULL); \
		else                                                                                                 \
			LOOP(p, false, false, false, true, USUAL_FIXED, true, false, false, false, in_, out_, m_, NULL);   \
	}

/* The same split with each block's loop a function of its own (ATTR
 * noinline, P's loops) on AVX2 and base: a call a block.  (The first
 * version, on AVX2 in one function, halved the loop on values in range;
 * the cause was any_rare's compare, one a lane, not the split.) */
#define LANES_FIXED_SIZES(P, p, in, out, n, USUAL, MAY_RARE)                                                        \
	switch ((p)->in_bytes * 8 + (p)->out_bytes) {                                                                \
	case 2 * 8 + 1: P##_16_8(p, false, false, false, true, USUAL, true, false, MAY_RARE, false, in, out, n, NULL); break; \
	case 2 * 8 + 2: P##_16_16(p, false, false, false, true, USUAL, true, false, MAY_RARE, false, in, out, n, NULL); break; \
	case 4 * 8 + 1: P##_32_8(p, false, false, false, true, USUAL, true, false, MAY_RARE, false, in, out, n, NULL); break; \
	default: P##_32_16(p, false, false, false, true, USUAL, true, false, MAY_RARE, false, in, out, n, NULL); break;  \
	}
#define LANES_DEEP_SPLIT(NAME, ATTR, P)                                                                             \
	ATTR __attribute__((noinline)) static void NAME##_in_range(const struct lanes_plan *p, const void *in,      \
								   void *out, size_t n)                             \
	{                                                                                                            \
		LANES_FIXED_SIZES(P, p, in, out, n, USUAL_FIXED, false)                                              \
	}                                                                                                            \
	ATTR __attribute__((noinline)) static void NAME##_deep(const struct lanes_plan *p, const void *in, void *out, \
							       size_t n)                                             \
	{                                                                                                            \
		LANES_FIXED_SIZES(P, p, in, out, n, USUAL_FIXED_DEEP, true)                                          \
	}                                                                                                            \
	ATTR static void NAME(const struct lanes_plan *p, const void *in, void *out, size_t n)                      \
	{                                                                                                            \
		for (size_t b_ = 0; b_ < n; b_ += LANES_BLOCK) {                                                     \
			size_t m_ = n - b_ < LANES_BLOCK ? n - b_ : LANES_BLOCK;                                     \
			const void *in_ = (const unsigned char *)in + b_ * p->in_bytes;                              \
			void *out_ = (unsigned char *)out + b_ * p->out_bytes;                                       \
			(any_rare8(p, in_, m_) ? NAME##_deep : NAME##_in_range)(p, in_, out_, m_);                   \
		}                                                                                                    \
	}

#define LANES_DEEP_DISPATCH(P, p, in, out, n)                                                                      \
	do {                                                                                                         \
		switch ((p)->in_bytes * 8 + (p)->out_bytes) {                                                        \
		case 2 * 8 + 1: LANES_DEEP_BLOCKS(P##_16_8, p, in, out, n); break;                                 \
		case 2 * 8 + 2: LANES_DEEP_BLOCKS(P##_16_16, p, in, out, n); break;                                \
		case 4 * 8 + 1: LANES_DEEP_BLOCKS(P##_32_8, p, in, out, n); break;                                 \
		default: LANES_DEEP_BLOCKS(P##_32_16, p, in, out, n); break;                                       \
		}                                                                                                    \
	} while (0)

/* Compiled once per instruction set (the same source, so the same bits),
 * the stochastic plans' apart; the converter runs the widest the CPU has,
 * and the tests run each against the core. */
static void lanes_base(const struct lanes_plan *p, const void *in, void *out, size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop8, p, in, out, n, flags, false);
}

static void lanes_sr_base(const struct lanes_plan *p, const void *in, void *out, size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop8, p, in, out, n, flags, true);
}

LANES_DEEP_SPLIT(lanes_deep_base, , loop8)

#if defined(__GNUC__) && defined(__x86_64__)
#define LANES_ISA_VARIANTS 1
__attribute__((target("avx2"))) static void lanes_avx2(const struct lanes_plan *p, const void *in, void *out,
							size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop8, p, in, out, n, flags, false);
}

__attribute__((target("avx2"))) static void lanes_sr_avx2(const struct lanes_plan *p, const void *in, void *out,
							   size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop8, p, in, out, n, flags, true);
}

LANES_DEEP_SPLIT(lanes_deep_avx2, __attribute__((target("avx2"))), loop8)

/* AVX-512 BW and VL: sixteen lanes a register, the compares into mask
 * registers and the narrowing stores (vpmovdb, vpmovdw, vpmovqb) */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
lanes_avx512(const struct lanes_plan *p, const void *in, void *out, size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop16, p, in, out, n, flags, false);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static void
lanes_deep_avx512(const struct lanes_plan *p, const void *in, void *out, size_t n)
{
	LANES_DEEP_DISPATCH(loop16, p, in, out, n);
}

/* the stochastic ones with DQ too: the seeded stream's 64-bit products in
 * one instruction (vpmullq), not three */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static void
lanes_sr_avx512(const struct lanes_plan *p, const void *in, void *out, size_t n, uint8_t *flags)
{
	LANES_DISPATCH(loop16, p, in, out, n, flags, true);
}
#endif

bool fpref_emu_lanes_isa_available(enum lanes_isa isa)
{
#ifdef LANES_ISA_VARIANTS
	__builtin_cpu_init();
	if (isa == LANES_ISA_AVX512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
	if (isa == LANES_ISA_AVX2)
		return __builtin_cpu_supports("avx2");
#endif
	return isa == LANES_ISA_BASE;
}

static void lanes_isa_convert(enum lanes_isa isa, const struct lanes_plan *p, const void *in, void *out, size_t n,
			      uint8_t *flags);

int fpref_emu_lanes_isa_parse(const char *name, enum lanes_isa *isa)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, fpref_emu_lanes_isa_names[i]) == 0 && fpref_emu_lanes_isa_available((enum lanes_isa)i)) {
			*isa = (enum lanes_isa)i;
			return 0;
		}
	return -1;
}

/* FP64 values x[0..n) rounded to odd into FP32 y[0..n): true where every
 * one is a zero or has |x| in [2^-126, 2^128), where the FP32 value is
 * the truncation with the sticky bit ORed into its last place.  In 32-bit
 * halves, sixteen at a time: for such x, ((|x| - (896 << 52)) >> 29) is
 * (hi << 3 | lo >> 29) + 0x40000000 mod 2^32, and its bit 31 is clear, so
 * the XOR leaves bits 30..0 as the sum does and bit 31 takes the sign.
 * ahead: how many values follow x[n), whose first n are fetched toward the
 * cache as x's are read. */
#define NARROW_LEAST ((uint64_t)(1023 - 126) << 52)
#define NARROW_SPAN ((uint64_t)(128 + 126) << 52)

/* narrow_to_odd's values from j on, one at a time. */
static inline bool narrow_to_odd_tail(const uint64_t *x, uint32_t *y, size_t j, size_t n)
{
	const uint64_t rebias = (uint64_t)(1023 - 127) << 52;
	uint64_t out = 0;
	for (; j < n; j++) {
		uint64_t v = x[j], a = v & ~((uint64_t)1 << 63), sign = (v >> 32) & 0x80000000u;
		out |= (uint64_t)(a - NARROW_LEAST >= NARROW_SPAN) & (uint64_t)(a != 0);
		uint64_t b = ((a - rebias) >> 29) | (uint64_t)((a & 0x1FFFFFFF) != 0);
		y[j] = (uint32_t)(sign | (a ? b : 0));
	}
	return !out;
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static bool narrow_to_odd(const uint64_t *x, uint32_t *y, size_t n, size_t ahead)
{
	/* eight at a time, 32-byte vectors: GCC 12 makes a compare of 64-byte
	 * ones a compare a lane in general registers on AVX2 (its clone had 32) */
	const uint64_t least = NARROW_LEAST, span = NARROW_SPAN;
	u32x8 outside = { 0 };
	size_t j = 0;
	for (; j + 8 <= n; j += 8) {
		u32x8 a, b;
		if (j % 16 == 0 && j + 16 <= ahead) { /* the next chunk's two lines toward the cache */
			__builtin_prefetch(x + n + j, 0, 0);
			__builtin_prefetch(x + n + j + 8, 0, 0);
		}
		memcpy(&a, x + j, sizeof a);
		memcpy(&b, x + j + 4, sizeof b);
		u32x8 lo = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
		u32x8 hi = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
		u32x8 ah = hi & 0x7FFFFFFFu, zero = (u32x8)((ah | lo) == 0u);
		/* ah - least >= span unsigned, as a signed compare offset by 2^31 (AVX2 has no unsigned one) */
		outside |= (u32x8)((i32x8)((ah - (uint32_t)(least >> 32)) ^ 0x80000000u) >=
				   (int32_t)((uint32_t)(span >> 32) ^ 0x80000000u)) &
			   ~zero;
		u32x8 t = ((hi << 3u) | (lo >> 29u)) ^ 0x40000000u;
		u32x8 v = (hi & 0x80000000u) | (t & 0x7FFFFFFFu) | ((u32x8)((lo & 0x1FFFFFFFu) != 0u) & 1u);
		v = (zero & hi) | (~zero & v);
		memcpy(y + j, &v, sizeof v);
	}
	uint64_t out = 0;
	for (size_t w = 0; w < 8; w++)
		out |= outside[w];
	return !out && narrow_to_odd_tail(x, y, j, n);
}

#ifdef LANES_ISA_VARIANTS
/* narrow_to_odd in AVX-512F's mask registers: the generic one's three
 * compares each became a compare and a widening to a vector under GCC 12,
 * a third of its instructions (in cache, FP64 -> FP32 rounded to odd
 * 9.4e9 -> 1.25e10 values/s on a Zen 5 core). */
__attribute__((target("avx512f"))) static bool narrow_to_odd_avx512(const uint64_t *x, uint32_t *y, size_t n,
								    size_t ahead)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
		      odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31),
		      magnitude = _mm512_set1_epi32(0x7FFFFFFF), least = _mm512_set1_epi32((int)(NARROW_LEAST >> 32)),
		      span = _mm512_set1_epi32((int)(NARROW_SPAN >> 32)), flip = _mm512_set1_epi32(0x40000000),
		      dropped = _mm512_set1_epi32(0x1FFFFFFF), one = _mm512_set1_epi32(1);
	__mmask16 outside = 0;
	size_t j = 0;
	for (; j + 16 <= n; j += 16) {
		if (j + 16 <= ahead) {
			__builtin_prefetch(x + n + j, 0, 0);
			__builtin_prefetch(x + n + j + 8, 0, 0);
		}
		__m512i a = _mm512_loadu_si512(x + j), b = _mm512_loadu_si512(x + j + 8);
		__m512i lo = _mm512_permutex2var_epi32(a, even, b), hi = _mm512_permutex2var_epi32(a, odd, b);
		__m512i ah = _mm512_and_si512(hi, magnitude), any = _mm512_or_si512(ah, lo);
		__mmask16 nonzero = _mm512_test_epi32_mask(any, any);
		outside |= _mm512_mask_cmpge_epu32_mask(nonzero, _mm512_sub_epi32(ah, least), span);
		/* (hi << 3 | lo >> 29) ^ 2^30 under the magnitude's bits, hi's sign */
		__m512i t = _mm512_ternarylogic_epi32(_mm512_slli_epi32(hi, 3), _mm512_srli_epi32(lo, 29), flip, 0x1E);
		__m512i v = _mm512_ternarylogic_epi32(magnitude, t, hi, 0xCA); /* magnitude ? t : hi, bitwise */
		v = _mm512_mask_or_epi32(v, _mm512_test_epi32_mask(lo, dropped), v, one);
		_mm512_storeu_si512(y + j, _mm512_mask_mov_epi32(hi, nonzero, v));
	}
	return !outside && narrow_to_odd_tail(x, y, j, n);
}
#endif

/* FP64 x[0..n) to FP32 y[0..n) by the host's conversion (struct
 * lanes_plan's host_f32), eight at a time, a NaN given the plan's code:
 * nan_mag, with the NaN's sign where sign is 2^31.  Once per instruction
 * set, as the lanes; STREAM: from y's first 32-byte boundary on, each
 * eight stored past the cache (vmovntdq), the stores fenced at the end. */
#define HOST_F32(NAME, ATTR, STREAM)                                                                               \
	ATTR static void NAME(const uint64_t *x, uint32_t *y, size_t n, uint32_t nan_mag, uint32_t sign)           \
	{                                                                                                            \
		typedef double d8 __attribute__((vector_size(64)));                                                  \
		typedef float f8 __attribute__((vector_size(32)));                                                   \
		size_t j = 0;                                                                                        \
		if (STREAM) /* up to the boundary as the tail below */                                               \
			j = ((32 - (uintptr_t)y % 32) % 32) / sizeof *y;                                             \
		host_f32_one(x, y, j < n ? j : n, nan_mag, sign);                                                     \
		for (; j + 8 <= n; j += 8) {                                                                         \
			d8 d;                                                                                        \
			memcpy(&d, x + j, sizeof d);                                                                 \
			f8 f = __builtin_convertvector(d, f8);                                                       \
			u32x8 b;                                                                                     \
			memcpy(&b, &f, sizeof b);                                                                    \
			u32x8 nan = (u32x8)((b & 0x7FFFFFFFu) > 0x7F800000u);                                        \
			b = PICK(nan, (b & sign) | nan_mag, b);                                                      \
			HOST_F32_STORE_##STREAM(y + j, b);                                                           \
		}                                                                                                    \
		host_f32_one(x + j, y + j, n > j ? n - j : 0, nan_mag, sign);                                         \
		HOST_F32_FENCE_##STREAM();                                                                           \
	}
#define HOST_F32_STORE_0(at, b) memcpy((at), &(b), sizeof(b))
#define HOST_F32_STORE_1(at, b) _mm256_stream_si256((__m256i *)(void *)(at), (__m256i)(b))
#define HOST_F32_FENCE_0() (void)0
#define HOST_F32_FENCE_1() _mm_sfence()

/* HOST_F32's values one at a time. */
static inline void host_f32_one(const uint64_t *x, uint32_t *y, size_t n, uint32_t nan_mag, uint32_t sign)
{
	for (size_t j = 0; j < n; j++) {
		double d;
		float f;
		uint32_t b;
		memcpy(&d, x + j, sizeof d);
		f = (float)d;
		memcpy(&b, &f, sizeof b);
		y[j] = (b & 0x7FFFFFFFu) > 0x7F800000u ? (b & sign) | nan_mag : b;
	}
}

HOST_F32(host_f32_base, , 0)
#ifdef LANES_ISA_VARIANTS
HOST_F32(host_f32_avx2, __attribute__((target("avx2"))), 0)
HOST_F32(host_f32_avx512, __attribute__((target("avx512f,avx512vl"))), 0)
HOST_F32(host_f32_stream_avx2, __attribute__((target("avx2"))), 1)
HOST_F32(host_f32_stream_avx512, __attribute__((target("avx512f,avx512vl"))), 1)
#endif

/* An output of this many bytes or more goes past the cache: the
 * last-level cache of the hosts measured (32 MiB a CCX on Zen 4 and 5),
 * whatever reads it next would have found little of it there;
 * FP64 -> FP32 of 2^24 values, bound by memory, then writes without
 * first reading each line (3.4e9 -> 4.4e9 values/s on a Zen 5 core). */
#define HOST_F32_STREAM_BYTES ((size_t)32 << 20)

static void host_f32(enum lanes_isa isa, const struct lanes_plan *p, const void *in, void *out, size_t n)
{
	uint32_t nan_mag = (uint32_t)p->k.nan_mag, sign = p->rne_nan_signed ? 0x80000000u : 0;
#ifdef LANES_ISA_VARIANTS
	bool stream = n >= HOST_F32_STREAM_BYTES / sizeof(uint32_t) && (uintptr_t)out % sizeof(uint32_t) == 0;
	if (isa == LANES_ISA_AVX512) {
		(stream ? host_f32_stream_avx512 : host_f32_avx512)(in, out, n, nan_mag, sign);
		return;
	}
	if (isa == LANES_ISA_AVX2) {
		(stream ? host_f32_stream_avx2 : host_f32_avx2)(in, out, n, nan_mag, sign);
		return;
	}
#endif
	(void)isa;
	host_f32_base(in, out, n, nan_mag, sign);
}

void fpref_emu_lanes_convert(enum lanes_isa isa, const struct lanes_plan *p, const void *in, void *out, size_t n,
			 uint8_t *flags)
{
	if (p->host_f32 && !flags && host_fpu_plain()) {
		host_f32(isa, p, in, out, n);
		return;
	}
	if (p->via32 && !flags) {
		struct lanes_plan q = *p;
		q.from = *fpref_format_get(FPREF_FORMAT_FLOAT32);
		q.word_bits = 32;
		q.in_bytes = 4;
		q.rne_fast = p->p32.rne_fast;
		q.rne_nan_signed = p->p32.rne_nan_signed;
		q.rne_zero_unsigned = p->p32.rne_zero_unsigned;
		q.sr = p->p32.sr;
		q.rare = p->p32.rare;
		q.mag = p->p32.mag;
		q.mag_fixed = p->p32.mag_fixed;
		q.deep_fixed = p->p32.deep_fixed;
		q.kd = p->p32.kd;
		q.sr_top = p->p32.sr_top;
		q.k = p->p32.k;
		q.via32 = false;
		enum { CHUNK = 512 };
		uint32_t y[CHUNK];
		for (size_t i = 0; i < n; i += CHUNK) {
			size_t m = n - i < CHUNK ? n - i : CHUNK;
			const uint64_t *x = (const uint64_t *)in + i;
			void *o = (unsigned char *)out + i * p->out_bytes;
			/* the next chunk fetched toward the cache as this one is read: on a Zen 5 host (48 KiB
			 * of L1d a core, VP2INTERSECT) f64 -> e4m3 rne 1.0-1.7e9 -> 2.1-2.3e9, f64 -> e2m1 sra
			 * 1.0-1.4e9 -> 2.0-2.3e9; on a Zen 4 one it had cost 7 % (its prefetcher followed the
			 * stream) */
#ifdef LANES_ISA_VARIANTS
			bool odd = isa == LANES_ISA_AVX512 ? narrow_to_odd_avx512(x, y, m, n - i - m)
							   : narrow_to_odd(x, y, m, n - i - m);
#else
			bool odd = narrow_to_odd(x, y, m, n - i - m);
#endif
			lanes_isa_convert(isa, odd ? &q : p, odd ? (const void *)y : (const void *)x, o, m, NULL);
		}
		return;
	}
	lanes_isa_convert(isa, p, in, out, n, flags);
}

static void lanes_isa_convert(enum lanes_isa isa, const struct lanes_plan *p, const void *in, void *out, size_t n,
			      uint8_t *flags)
{
	bool deep = p->deep_fixed && !flags;
#ifdef LANES_ISA_VARIANTS
	if (isa == LANES_ISA_AVX512 && (!p->sr || __builtin_cpu_supports("avx512dq"))) {
		if (deep)
			lanes_deep_avx512(p, in, out, n);
		else
			(p->sr ? lanes_sr_avx512 : lanes_avx512)(p, in, out, n, flags);
		return;
	}
	if (isa == LANES_ISA_AVX512) /* AVX-512 without DQ: the stochastic lanes of AVX2 */
		isa = LANES_ISA_AVX2;
	if (isa == LANES_ISA_AVX2) {
		if (deep)
			lanes_deep_avx2(p, in, out, n);
		else
			(p->sr ? lanes_sr_avx2 : lanes_avx2)(p, in, out, n, flags);
		return;
	}
#endif
	(void)isa;
	if (deep)
		lanes_deep_base(p, in, out, n);
	else
		(p->sr ? lanes_sr_base : lanes_base)(p, in, out, n, flags);
}
