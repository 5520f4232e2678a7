/* The emulator's one rounding core: round, detect tininess and overflow,
 * apply the format's special-value rules, pack. */
#include "fpref_emu.h"
#include "round_core.h"


static int top_bit(fpref_u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)x);
}

static uint64_t low_mask(int bits)
{
	return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
}

static fpref_u128 mask128(int bits)
{
	return bits >= 128 ? ~(fpref_u128)0 : (((fpref_u128)1 << bits) - 1);
}

/* Exponent of the least normal, and of the top finite binade, and the
 * significand (with its leading bit) of max finite. */
static int least_normal_exp(const struct fpref_format *f)
{
	return (f->has_zero ? 1 : 0) - f->bias;
}

static int top_exp(const struct fpref_format *f)
{
	return fpref_format_max_exponent(f);
}

#define WORD uint64_t
#define SWORD int64_t
#define WINT int64_t
#define WORD_BITS 64
#define WORD_CLZ __builtin_clzll
#define W(name) name##64
#include "round_word.h"
#undef WORD
#undef SWORD
#undef WINT
#undef WORD_BITS
#undef WORD_CLZ
#undef W
#define WORD uint32_t
#define SWORD int32_t
#define WINT int32_t
#define WORD_BITS 32
#define WORD_CLZ __builtin_clz
#define W(name) name##32
#include "round_word.h"
#undef WORD
#undef SWORD
#undef WINT
#undef WORD_BITS
#undef WORD_CLZ
#undef W

static uint64_t max_significand(const struct fpref_format *f)
{
	struct fpref_unpacked max;
	fpref_format_max_finite(f, &max);
	return max.significand;
}

static CORE_INLINE uint64_t pack(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	if (f->integer) /* two's complement codes: the formats layer's mapping */
		return fpref_format_code(f, negative, field, mantissa);
	return pack_float64(f, negative, field, mantissa);
}

static uint64_t least_value(const struct fpref_format *f)
{
	return f->has_zero ? 0 : pack(f, false, 0, 0);
}

uint64_t fpref_emu_pack_nan(const struct fpref_format *f, const struct fpref_env *env, bool negative, bool signaling,
			    unsigned *flags)
{
	return fpref_emu_pack_nan_converted(f, env, negative, signaling, (uint64_t)1 << 63, flags);
}

uint64_t fpref_emu_pack_nan_converted(const struct fpref_format *f, const struct fpref_env *env, bool negative,
				      bool signaling, uint64_t payload, unsigned *flags)
{
	uint64_t bits;
	if (signaling)
		*flags |= FPREF_FLAG_INVALID;
	if (fpref_format_nan_converted(f, env, negative, payload, &bits))
		return bits;
	*flags |= FPREF_FLAG_INVALID; /* no NaN to give: +max (or signed), or ml_dtypes' zero of the other sign */
	if (env->nan_to_flipped_zero && f->has_zero)
		return pack(f, !negative, 0, 0);
	return pack(f, negative && env->nan_to_signed_max, (uint64_t)top_exp(f) + (uint64_t)f->bias,
		    max_significand(f) & low_mask(f->man_bits));
}

static uint64_t max_finite(const struct fpref_format *f, bool negative)
{
	return fpref_format_max_bits(f, negative); /* a signed integer's negative side reaches one step further */
}

/* The NaN that overflow or an unrepresentable value turns into: the
 * format's own, keeping the sign (profiles restyle only NaNs that came in
 * as NaN or from an invalid operation). */
static uint64_t signed_nan(const struct fpref_format *f, bool negative)
{
	uint64_t bits = 0;
	fpref_format_nan_bits(f, negative && f->is_signed, &bits);
	return bits;
}

/* A result that cannot be had: NaN and invalid where the format has NaN,
 * else the fallback value, still invalid. */
static uint64_t invalid_or(const struct fpref_format *f, bool negative, uint64_t fallback, unsigned *flags)
{
	*flags |= FPREF_FLAG_INVALID;
	return f->specials == FPREF_SPECIALS_NONE ? fallback : signed_nan(f, negative);
}

uint64_t fpref_emu_pack_zero(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			     unsigned *flags)
{
	if (f->has_zero)
		return pack(f, negative && f->specials != FPREF_SPECIALS_FNUZ && !env->zero_positive, 0, 0);
	if (env->overflow == FPREF_OVERFLOW_SAT || env->zero_to_least) {
		*flags |= FPREF_FLAG_INEXACT;
		return least_value(f);
	}
	return invalid_or(f, false, least_value(f), flags);
}

uint64_t fpref_emu_pack_inf(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			    unsigned *flags)
{
	if (negative && !f->is_signed && env->unsigned_magnitude)
		negative = false;
	if (negative && !f->is_signed) {
		if (env->overflow == FPREF_OVERFLOW_SAT) {
			*flags |= FPREF_FLAG_INEXACT;
			return least_value(f);
		}
		return invalid_or(f, false, least_value(f), flags);
	}
	uint64_t inf;
	bool has_inf = fpref_format_inf_bits(f, negative, &inf);
	if (env->overflow == FPREF_OVERFLOW_SAT && env->sat_keep_inf && has_inf)
		return inf; /* P3109 SatPropagate */
	if (env->overflow == FPREF_OVERFLOW_SAT && env->sat_inf_to_nan && f->specials != FPREF_SPECIALS_NONE)
		return invalid_or(f, negative, max_finite(f, negative), flags);
	if (env->overflow == FPREF_OVERFLOW_SAT) {
		*flags |= FPREF_FLAG_OVERFLOW | FPREF_FLAG_INEXACT;
		return max_finite(f, negative);
	}
	if (has_inf)
		return inf;
	return invalid_or(f, negative, max_finite(f, negative), flags);
}

/* Whether the grid point k * 2^q (the lower neighbour) has an odd code:
 * its last significand bit, or with code_parity and no fraction bits its
 * exponent field's last bit (zero is even). */
static bool odd_point(const struct fpref_format *f, fpref_u128 k, int32_t q)
{
	if (f->code_parity && f->man_bits == 0)
		return k != 0 && (((int64_t)q + f->bias) & 1);
	return k & 1;
}

/* Round sig * 2^exp (+ sticky) to a multiple of 2^q: returns the multiple,
 * with *inexact set when anything was discarded and *away when the
 * magnitude went up. */
static CORE_INLINE fpref_u128 round_to(const struct fpref_format *f, fpref_u128 sig, bool sticky, int32_t exp, int32_t q,
			  bool negative, const struct fpref_env *env, uint64_t sr_random, bool *inexact, bool *away)
{
	int64_t shift = (int64_t)q - exp;
	if (shift <= 0) {
		*inexact = sticky;
		fpref_u128 k = sig << -shift;
		/* Only a sticky remainder below: less than half a unit. */
		bool up = sticky && ((env->rounding == FPREF_RUP && !negative) ||
				     (env->rounding == FPREF_RDN && negative) ||
				     (env->rounding == FPREF_ROD && !odd_point(f, k, q)));
		*away = up;
		return k + up;
	}
	fpref_u128 k, dropped;
	bool guard, rest;
	if (shift < 64 && (uint64_t)(sig >> 64) == 0) { /* the common case, in 64-bit words */
		uint64_t s = (uint64_t)sig, k64 = s >> shift, dropped64 = s & low_mask((int)shift);
		guard = (s >> (shift - 1)) & 1;
		rest = ((s & low_mask((int)shift - 1)) != 0) | sticky; /* | and &, not || and &&: no branch guesses the bits */
		if (env->rounding != FPREF_SR) { /* in 64-bit words to the end */
			*inexact = (dropped64 != 0) | sticky;
			bool up = rounds_up64(env->rounding, negative, guard, rest, *inexact, odd_point(f, k64, q));
			*away = up;
			return k64 + up;
		}
		k = k64;
		dropped = dropped64;
	} else {
		k = shift >= 128 ? 0 : sig >> shift;
		dropped = shift >= 128 ? sig : sig & mask128((int)shift);
		guard = shift <= 128 && ((sig >> (shift - 1)) & 1);
		rest = (shift >= 2 && (shift > 128 ? sig != 0 : (sig & mask128((int)shift - 1)) != 0)) || sticky;
	}
	*inexact = (dropped != 0) | sticky;
	bool up = false;
	if (env->rounding != FPREF_SR) {
		up = rounds_up64(env->rounding, negative, guard, rest, *inexact, odd_point(f, k, q));
	} else {
		/* B looks at one bit more than it has random bits; C rounds
		 * the discarded bits to r, ties to even (fpref_formats_env.h) */
		unsigned r = env->sr_width + (env->sr_rule == FPREF_SR_B ? 1 : 0);
		fpref_u128 T;
		bool half = false, below = sticky;
		if (shift >= (int64_t)r) {
			int64_t cut = shift - r;
			T = cut >= 128 ? 0 : dropped >> cut;
			half = cut >= 1 && cut <= 128 && ((dropped >> (cut - 1)) & 1);
			below = below || (cut >= 2 && (dropped & mask128(cut - 1 >= 128 ? 128 : (int)cut - 1)) != 0);
		} else {
			T = dropped << (r - shift);
		}
		fpref_u128 R = sr_random;
		if (env->sr_rule == FPREF_SR_B)
			up = T + 2 * R + 1 >= ((fpref_u128)1 << r);
		else if (env->sr_rule == FPREF_SR_C)
			up = T + (half && (below || (T & 1))) + R >= ((fpref_u128)1 << r);
		else
			up = T + R >= ((fpref_u128)1 << r);
	}
	*away = up;
	return k + up;
}

/* The common case of the core (round_pack below): a value in 64 bits whose
 * leading bit lies in [emin, emax) of a floating-point format, the sign
 * one the format has.  Rounded by round_to, it can be neither tiny nor too
 * large (a carry reaches at most 2^emax with significand 1.0, which max
 * finite's is not below), so the checks round_pack makes after it would
 * all pass: the result is packed at once. */
static CORE_INLINE bool common_case(const struct fpref_format *f, const struct fpref_emu_round_target *t, bool negative,
				    fpref_u128 sig, int32_t lead)
{
	return !f->integer && (f->is_signed || !negative) && (uint64_t)(sig >> 64) == 0 && f->man_bits < 62 &&
	       lead >= least_normal_exp(f) && lead < (t ? t->emax : top_exp(f));
}

static CORE_INLINE uint64_t round_common(const struct fpref_format *f, const struct fpref_env *env, uint64_t sr_random,
					 bool negative, int32_t exp, fpref_u128 sig, bool sticky, int32_t lead,
					 unsigned *flags)
{
	uint64_t inexact = 0, r;
	if (env->rounding != FPREF_SR) {
		r = round_common64(f, env->rounding, negative, exp, (uint64_t)sig, sticky, lead, &inexact);
	} else {
		const int M = f->man_bits;
		bool sr_inexact, away;
		uint64_t k = (uint64_t)round_to(f, sig, sticky, exp, lead - M, negative, env, sr_random, &sr_inexact, &away);
		int carry = (int)(k >> (M + 1));
		r = pack_float64(f, negative, (uint64_t)(lead + carry + f->bias), (k >> carry) & low_mask(M));
		inexact = sr_inexact;
	}
	*flags |= inexact ? FPREF_FLAG_INEXACT : 0;
	return r;
}

/* The core itself, for both entry points below: t, where the caller has
 * one, holds f's constants, so that the common path does not ask the
 * formats layer for them on every value (t NULL: asked here). */
static CORE_INLINE uint64_t round_pack(const struct fpref_format *f, const struct fpref_emu_round_target *t,
				       const struct fpref_env *env, uint64_t sr_random, bool negative, int32_t exp,
				       fpref_u128 sig, bool sticky, unsigned *flags)
{
	if (sig == 0)
		return fpref_emu_pack_zero(f, env, negative, flags);
	/* the format's fields tested before the sign: in a loop over many
	 * values (fpref_emu_round_pack_sums) no branch then guesses the sign */
	if (!f->is_signed && negative && env->unsigned_magnitude)
		negative = false;
	/* P3109 SatNone rounds a negative value first (below) */
	bool round_negative_first = env->p3109_sat_none && env->overflow != FPREF_OVERFLOW_SAT;
	if (!f->is_signed && negative && !round_negative_first) {
		if (env->overflow == FPREF_OVERFLOW_SAT) {
			*flags |= FPREF_FLAG_INEXACT;
			return least_value(f);
		}
		return invalid_or(f, false, least_value(f), flags);
	}
	const int M = f->man_bits;
	const int emin = least_normal_exp(f);
	int32_t lead = exp + top_bit(sig);
	if (common_case(f, t, negative, sig, lead))
		return round_common(f, env, sr_random, negative, exp, sig, sticky, lead, flags);
	bool subnormal_grid = f->subnormals && f->has_zero;
	/* The grid's last place: below the least normal it is the subnormal
	 * step, or with no subnormals the least normal itself ({0, 2^emin}). */
	int32_t q = lead >= emin ? lead - M : subnormal_grid ? emin - M : emin;

	bool inexact, away;
	fpref_u128 k = round_to(f, sig, sticky, exp, q, negative, env, sr_random, &inexact, &away);
	if (!f->is_signed && negative) {
		/* P3109 SatNone: 0 where the negative value rounded to zero or
		 * the rounding points back into the range, else NaN */
		if (k == 0 || env->rounding == FPREF_RTZ || env->rounding == FPREF_RUP) {
			*flags |= FPREF_FLAG_INEXACT;
			return least_value(f);
		}
		return invalid_or(f, false, least_value(f), flags);
	}

	bool tiny;
	if (lead >= emin || f->integer) { /* an integer's small magnitudes are its grid, not an underflow */
		tiny = false;
	} else if (env->tininess == FPREF_TININESS_BEFORE || lead < emin - 1) {
		tiny = true;
	} else {
		/* Just below the least normal: tiny unless rounding at full
		 * precision carries into 2^emin. */
		bool ignored, ignored_too;
		fpref_u128 ku = round_to(f, sig, sticky, exp, lead - M, negative, env, sr_random, &ignored, &ignored_too);
		tiny = ku < ((fpref_u128)1 << (M + 1));
	}
	if (inexact)
		*flags |= FPREF_FLAG_INEXACT;
	if (inexact && tiny)
		*flags |= FPREF_FLAG_UNDERFLOW;
	if (env->ftz && tiny) {
		*flags |= FPREF_FLAG_UNDERFLOW | FPREF_FLAG_INEXACT;
		return fpref_emu_pack_zero(f, env, negative, flags);
	}
	if (k == 0 && !f->has_zero && env->underflow_to_least)
		return least_value(f);
	if (k == 0)
		return fpref_emu_pack_zero(f, env, negative, flags);

	/* Normalise k to M+1 bits where it is normal. */
	int32_t lead_r = q + top_bit(k);
	int emax = t ? t->emax : top_exp(f);
	uint64_t mantissa, field;
	if (lead_r >= emin) {
		fpref_u128 normal = top_bit(k) > M ? k >> (top_bit(k) - M) : k << (M - top_bit(k));
		/* -2^(n-1) of a two's complement integer: one step past the magnitudes */
		bool int_min = f->integer && f->is_signed && !f->symmetric && negative && lead_r == emax + 1 &&
			       normal == ((fpref_u128)1 << M);
		if (!int_min && (lead_r > emax || (lead_r == emax && normal > (t ? t->max_significand : max_significand(f))))) {
			*flags |= FPREF_FLAG_OVERFLOW | FPREF_FLAG_INEXACT;
			bool to_inf;
			switch (env->rounding) {
			case FPREF_RNE:
			case FPREF_RNA:
				to_inf = true;
				break;
			case FPREF_RUP:
				to_inf = !negative;
				break;
			case FPREF_RDN:
				to_inf = negative;
				break;
			case FPREF_SR:
				/* overflows toward inf only when it took the upper
				 * neighbour; P3109 SatNone whenever the rounded value
				 * is beyond max */
				to_inf = away || env->p3109_sat_none;
				break;
			case FPREF_ROD:
				/* IEEE 754 keeps round-to-odd finite; P3109 SatNone does
				 * not, but for unsigned formats with inf */
				to_inf = env->p3109_sat_none && !(!f->is_signed && fpref_format_has_inf(f));
				break;
			default:
				to_inf = false;
				break;
			}
			to_inf = to_inf || env->overflow == FPREF_OVERFLOW_INF;
			uint64_t inf;
			if (env->overflow == FPREF_OVERFLOW_SAT || !to_inf)
				return max_finite(f, negative);
			if (fpref_format_inf_bits(f, negative, &inf))
				return inf;
			if (f->specials == FPREF_SPECIALS_NONE)
				return max_finite(f, negative);
			return signed_nan(f, negative);
		}
		field = (uint64_t)(lead_r + f->bias);
		mantissa = (uint64_t)normal & low_mask(M);
	} else {
		field = 0;
		mantissa = (uint64_t)k; /* a subnormal: q is the subnormal step */
	}
	return pack(f, negative, field, mantissa);
}

uint64_t fpref_emu_round_pack(const struct fpref_format *f, const struct fpref_env *env, uint64_t sr_random,
			      bool negative, int32_t exp, fpref_u128 sig, bool sticky, unsigned *flags)
{
	return round_pack(f, NULL, env, sr_random, negative, exp, sig, sticky, flags);
}

void fpref_emu_round_target_init(struct fpref_emu_round_target *t, const struct fpref_format *f)
{
	t->format = f;
	t->emax = top_exp(f);
	t->max_significand = max_significand(f);
}

uint64_t fpref_emu_round_pack_target(const struct fpref_emu_round_target *t, const struct fpref_env *env,
				     uint64_t sr_random, bool negative, int32_t exp, fpref_u128 sig, bool sticky,
				     unsigned *flags)
{
	return round_pack(t->format, t, env, sr_random, negative, exp, sig, sticky, flags);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint64_t round_pack_rare(const struct fpref_emu_round_target *t, const struct fpref_env *env, bool negative,
				int32_t exp, uint64_t mag, unsigned *flags)
{
	return round_pack(t->format, t, env, 0, negative, exp, mag, false, flags);
}

#define binary32 fpref_emu_binary32_fields
static const struct fpref_emu_round_target binary32_target = { &binary32, 127, 0xFFFFFF };

/* Whether t's format has those fields' values (then binary32_target's
 * constants give the same bits). */
static bool is_binary32(const struct fpref_emu_round_target *t)
{
	const struct fpref_format *f = t->format;
	return f->exp_bits == binary32.exp_bits && f->man_bits == binary32.man_bits && f->bias == binary32.bias &&
	       f->pad_bits == 0 && f->is_signed && f->has_zero && !f->code_parity && !f->integer &&
	       t->emax == binary32_target.emax;
}

/* fpref_emu_round_pack_sums' loop for one rounding direction, a constant
 * where the caller gives one, so that no switch on it runs per value; the
 * common case reads lt's format (t's, or constants of the same fields). */
static CORE_INLINE void round_sums(const struct fpref_emu_round_target *t, const struct fpref_emu_round_target *lt,
				   const struct fpref_env *env, enum fpref_rounding rounding, size_t n, const int64_t *sum,
				   const int32_t *exp, uint64_t *restrict out, unsigned *restrict flags, bool search)
{
	/* copies that no store to out can change and no call sees, so that
	 * their fields stay in registers */
	const struct fpref_format f = *t->format;
	const struct fpref_emu_round_target c = *t;
	unsigned raised = 0; /* ORed into *flags once: no store per value */
	/* the common case for every value, without a branch (the loop
	 * vectorises), where the rounding has one (not sr); the rest, and
	 * every value under sr, out of line after it */
	/* common_case, its tests of the format taken out of the loop (and the
	 * format read through the pointer, not the copy, whose bool fields
	 * the vectoriser does not take) */
	uint64_t lanes = rounding != FPREF_SR && !lt->format->integer && lt->format->man_bits < 62, any_rare = 1,
		 inexact_any = 0;
	if (lanes)
		round_lanes64(lt, rounding, n, sum, exp, out, &inexact_any, &any_rare, search);
	raised |= inexact_any ? FPREF_FLAG_INEXACT : 0;
	for (size_t i = 0; any_rare && i < n; i++) {
		uint64_t sign = 0 - ((uint64_t)sum[i] >> 63);
		uint64_t mag = ((uint64_t)sum[i] ^ sign) - sign;
		int32_t lead = exp[i] + 63 - __builtin_clzll(mag | 1);
		if (!lanes || mag == 0 || !common_case(&f, &c, sign & 1, mag, lead)) {
			unsigned rare = 0;
			out[i] = round_pack_rare(t, env, sign & 1, exp[i], mag, &rare);
			raised |= rare;
		}
	}
	*flags |= raised;
}

static CORE_INLINE void round_pack_sums_body(const struct fpref_emu_round_target *t, const struct fpref_env *env,
					     size_t n, const int64_t *sum, const int32_t *exp, uint64_t *restrict out,
					     unsigned *restrict flags, bool search)
{
	/* FP32 by ties to even (the CDNA1/2 path's every addition, the block
	 * models' FP32 output) with the fields the common case reads as
	 * constants: shifts by immediates, no registers held for them */
	if (env->rounding == FPREF_RNE && is_binary32(t)) {
		round_sums(t, &binary32_target, env, FPREF_RNE, n, sum, exp, out, flags, search);
		return;
	}
	switch (env->rounding) { /* the tensor-core models' two */
	case FPREF_RNE:
		round_sums(t, t, env, FPREF_RNE, n, sum, exp, out, flags, search);
		break;
	case FPREF_RTZ:
		round_sums(t, t, env, FPREF_RTZ, n, sum, exp, out, flags, search);
		break;
	default:
		round_sums(t, t, env, env->rounding, n, sum, exp, out, flags, search);
		break;
	}
}

/* round_sums for 32-bit sums to a format of 32 bits or fewer: the same
 * common case in 32-bit words (round_word.h), the rest as there. */
static CORE_INLINE void round_sums32(const struct fpref_emu_round_target *t, const struct fpref_emu_round_target *lt,
				     const struct fpref_env *env, enum fpref_rounding rounding, size_t n, const int32_t *sum,
				     const int32_t *exp, uint32_t *restrict out, unsigned *restrict flags, bool search)
{
	unsigned raised = 0;
	/* M below 30: the rounded significand and its carry in a word */
	const struct fpref_format *g = lt->format;
	uint32_t lanes = rounding != FPREF_SR && !g->integer && g->man_bits < 30 &&
			 1 + g->exp_bits + g->man_bits + g->pad_bits <= 32,
		 any_rare = 1, inexact_any = 0;
	if (lanes)
		round_lanes32(lt, rounding, n, sum, exp, out, &inexact_any, &any_rare, search);
	raised |= inexact_any ? FPREF_FLAG_INEXACT : 0;
	for (size_t i = 0; any_rare && i < n; i++) {
		uint64_t sign = (uint64_t)(sum[i] < 0), mag = sum[i] < 0 ? (uint64_t)-(int64_t)sum[i] : (uint64_t)sum[i];
		int32_t lead = exp[i] + 63 - __builtin_clzll(mag | 1);
		if (!lanes || mag == 0 || !common_case(t->format, t, sign, mag, lead)) {
			unsigned rare = 0;
			out[i] = (uint32_t)round_pack_rare(t, env, sign, exp[i], mag, &rare);
			raised |= rare;
		}
	}
	*flags |= raised;
}

static CORE_INLINE void round_pack_sums32_body(const struct fpref_emu_round_target *t, const struct fpref_env *env,
					       size_t n, const int32_t *sum, const int32_t *exp, uint32_t *restrict out,
					       unsigned *restrict flags, bool search)
{
	if (env->rounding == FPREF_RNE && is_binary32(t)) {
		round_sums32(t, &binary32_target, env, FPREF_RNE, n, sum, exp, out, flags, search);
		return;
	}
	switch (env->rounding) {
	case FPREF_RNE:
		round_sums32(t, t, env, FPREF_RNE, n, sum, exp, out, flags, search);
		break;
	case FPREF_RTZ:
		round_sums32(t, t, env, FPREF_RTZ, n, sum, exp, out, flags, search);
		break;
	default:
		round_sums32(t, t, env, env->rounding, n, sum, exp, out, flags, search);
		break;
	}
}

/* Each batch rounding once per instruction set (FPREF_EMU_LANE_VARIANTS,
 * round_core.h), the leading bits counted as each does best. */
FPREF_EMU_LANE_VARIANTS(void fpref_emu_round_pack_sums, round_pack_sums,
	      (const struct fpref_emu_round_target *t, const struct fpref_env *env, size_t n, const int64_t *sum,
	       const int32_t *exp, uint64_t *restrict out, unsigned *restrict flags),
	      t, env, n, sum, exp, out, flags)
FPREF_EMU_LANE_VARIANTS(void fpref_emu_round_pack_sums32, round_pack_sums32,
	      (const struct fpref_emu_round_target *t, const struct fpref_env *env, size_t n, const int32_t *sum,
	       const int32_t *exp, uint32_t *restrict out, unsigned *restrict flags),
	      t, env, n, sum, exp, out, flags)
