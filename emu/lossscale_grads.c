/* The FP16 gradient path a loss scaler guards: scale in FP32, cast to FP16,
 * the framework's inf/NaN test, unscale in FP32; and what underflows in
 * FP16 with and without the scale.  Everything through the emulator. */
#include "fpref_emu.h"
#include "fpref_emu_lossscale.h"

#define F32_ONE 0x3F800000u

static enum fpref_class class_of(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	fpref_decode(f, bits, &u);
	return u.cls;
}

static bool nonfinite(enum fpref_class c)
{
	return c == FPREF_CLASS_INF || c == FPREF_CLASS_NAN;
}

/* Where one value lands: counts and the FP16 pattern of the scaled value. */
struct one_value {
	uint64_t h32;   /* FP16(FP32(g * S)) widened back to FP32 (exact) */
	uint64_t u;     /* unscaled FP32 */
};

static int pass_one(const struct fpref_scaler *s, const struct fpref_format *f16, const struct fpref_env *env,
		    uint64_t g, uint64_t S, uint64_t inv, struct one_value *v, struct fpref_grad_stats *st)
{
	unsigned flags = 0;
	uint64_t in[2] = { g, S }, scaled = 0, h = 0, plain = 0;
	enum fpref_class gc = class_of(&s->f32, g);
	if (fpref_emu_op(FPREF_OP_MUL, &s->f32, in, env, 0, &scaled, &flags) != 0 ||
	    fpref_emu_convert(&s->f32, scaled, f16, env, 0, &h, &flags) != 0 ||
	    fpref_emu_convert(f16, h, &s->f32, env, 0, &v->h32, &flags) != 0)
		return -1;
	enum fpref_class hc = class_of(f16, h);
	bool counted = gc == FPREF_CLASS_NORMAL || gc == FPREF_CLASS_SUBNORMAL;
	st->values++;
	st->nonfinite_scaled += nonfinite(hc);
	v->u = v->h32;
	/* PyTorch's kernel returns the value itself when inv_scale == 1.0f. */
	if (!(s->cfg.kind == FPREF_SCALER_PYTORCH && inv == F32_ONE)) {
		in[0] = v->h32;
		in[1] = inv;
		fpref_emu_op(FPREF_OP_MUL, &s->f32, in, env, 0, &v->u, &flags);
	}
	if (!counted)
		return 0;
	fpref_emu_convert(&s->f32, g, f16, env, 0, &plain, &flags);
	enum fpref_class pc = class_of(f16, plain);
	st->nonzero++;
	st->zero_unscaled += pc == FPREF_CLASS_ZERO;
	st->subnormal_unscaled += pc == FPREF_CLASS_SUBNORMAL;
	st->zero_scaled += hc == FPREF_CLASS_ZERO;
	st->subnormal_scaled += hc == FPREF_CLASS_SUBNORMAL;
	st->zero_recovered += class_of(&s->f32, v->u) == FPREF_CLASS_ZERO;
	return 0;
}

int fpref_emu_scaler_check_tensor(const struct fpref_scaler *s, const uint64_t *g, size_t n, uint64_t *unscaled,
			      struct fpref_grad_stats *st)
{
	struct fpref_format f16;
	char err[128];
	if (fpref_format_parse("float16", &f16, err, sizeof err) != 0)
		return -1;
	struct fpref_env env;
	fpref_env_default(&env);
	if (s->cfg.profile && fpref_profile_apply(s->cfg.profile, &f16, &env) != 0)
		return -1;
	uint64_t S = fpref_emu_scaler_scale_fp32(s), inv = fpref_emu_scaler_inverse_fp32(s);
	uint64_t sum = 0; /* DeepSpeed: x.float().sum() from +0 */
	size_t bad_before = st->nonfinite_scaled;
	for (size_t i = 0; i < n; i++) {
		struct one_value v;
		if (pass_one(s, &f16, &env, g[i], S, inv, &v, st) != 0)
			return -1;
		if (unscaled)
			unscaled[i] = v.u;
		if (s->cfg.kind == FPREF_SCALER_DEEPSPEED) {
			uint64_t in[2] = { sum, v.h32 };
			unsigned flags = 0;
			fpref_emu_op(FPREF_OP_ADD, &s->f32, in, &env, 0, &sum, &flags);
		}
	}
	if (s->cfg.kind == FPREF_SCALER_DEEPSPEED)
		st->overflow |= nonfinite(class_of(&s->f32, sum));
	else
		st->overflow |= st->nonfinite_scaled > bad_before;
	return 0;
}
