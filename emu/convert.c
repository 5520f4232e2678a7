/* Conversion of one bit pattern: decode exactly, apply the environment's
 * scale step, then the rounding core. */
#include "fpref_emu.h"
#include "round_core.h"

int fpref_emu_convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
		      const struct fpref_env *env, uint64_t sr_random, uint64_t *out, unsigned *flags)
{
	struct fpref_unpacked u;
	if (fpref_decode(from, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	if (env->pre_scale && env->pre_scale_code == 255) {
		/* E8M0's NaN scale: NaN whatever the value, as an invalid operation gives it */
		*out = fpref_emu_pack_nan(to, env, u.negative, false, flags);
		*flags |= FPREF_FLAG_INVALID;
		return 0;
	}
	switch (u.cls) {
	case FPREF_CLASS_NAN:
		*out = fpref_emu_pack_nan_converted(to, env, u.negative, u.signaling, u.nan_payload, flags);
		return 0;
	case FPREF_CLASS_INF:
		*out = fpref_emu_pack_inf(to, env, u.negative, flags);
		return 0;
	case FPREF_CLASS_ZERO:
		*out = fpref_emu_pack_zero(to, env, u.negative, flags);
		return 0;
	case FPREF_CLASS_SUBNORMAL:
		if (env->daz) {
			*out = fpref_emu_pack_zero(to, env, u.negative, flags);
			return 0;
		}
		break;
	case FPREF_CLASS_NORMAL:
		break;
	}
	/* dividing by 2^(code - 127) moves the exponent only: the core sees
	 * the exact quotient (decoded significands are integers, so a subnormal
	 * source needs no normalising first) */
	int32_t exp = u.exponent - (env->pre_scale ? (int32_t)env->pre_scale_code - 127 : 0);
	*out = fpref_emu_round_pack(to, env, sr_random, u.negative, exp, u.significand, false, flags);
	return 0;
}
