/* Loss scalers: the update rules of PyTorch's GradScaler
 * (_amp_update_scale_), DeepSpeed's DynamicLossScaler.update_scale, Apex
 * amp's LossScaler.update_scale and a static scale.  Every product,
 * quotient and comparison of scales goes through the emulator in the
 * format the framework computes in, so that the scales are bit-exact. */
#include <stdio.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_lossscale.h"

#define F64_ONE 0x3FF0000000000000ull
#define F64_TWO 0x4000000000000000ull
#define F64_HALF 0x3FE0000000000000ull

static const char *const scaler_names[] = { "pytorch", "deepspeed", "apex", "static" };

const char *fpref_emu_scaler_name(enum fpref_scaler_kind k)
{
	return scaler_names[k];
}

int fpref_emu_scaler_parse(const char *name, enum fpref_scaler_kind *k)
{
	for (int i = 0; i <= FPREF_SCALER_STATIC; i++)
		if (strcmp(name, scaler_names[i]) == 0) {
			*k = (enum fpref_scaler_kind)i;
			return 0;
		}
	return -1;
}

static uint64_t f64_power_of_two(int e)
{
	return (uint64_t)(1023 + e) << 52;
}

void fpref_emu_scaler_config_default(enum fpref_scaler_kind kind, struct fpref_scaler_config *c)
{
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->init_scale = f64_power_of_two(16);
	c->growth_factor = F64_TWO;
	c->backoff_factor = F64_HALF;
	c->interval = kind == FPREF_SCALER_DEEPSPEED ? 1000 : 2000;
	c->hysteresis = 2;
	c->raise_at_min = true;
	c->min_scale = kind == FPREF_SCALER_DEEPSPEED ? F64_ONE : 0;
	c->max_scale = f64_power_of_two(24);
	c->static_skips = true;
	if (kind == FPREF_SCALER_STATIC)
		c->init_scale = F64_ONE;
}

/* ---- arithmetic in the framework's formats, through the emulator ---- */

static uint64_t binary(const struct fpref_format *f, enum fpref_op op, uint64_t a, uint64_t b)
{
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t in[2] = { a, b }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, f, in, &env, 0, &out, &flags);
	return out;
}

static uint64_t convert(const struct fpref_format *from, const struct fpref_format *to, uint64_t bits)
{
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(from, bits, to, &env, 0, &out, &flags);
	return out;
}

static bool is_finite(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	fpref_decode(f, bits, &u);
	return u.cls != FPREF_CLASS_INF && u.cls != FPREF_CLASS_NAN;
}

static bool positive_finite(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) == FPREF_DECODE_OK && !u.negative &&
	       (u.cls == FPREF_CLASS_NORMAL || u.cls == FPREF_CLASS_SUBNORMAL);
}

/* Python's max(a, b) and min(a, b): the first argument unless the second
 * compares strictly greater (smaller). */
static uint64_t python_max(const struct fpref_format *f, uint64_t a, uint64_t b)
{
	return binary(f, FPREF_OP_LT, a, b) ? b : a;
}

static uint64_t python_min(const struct fpref_format *f, uint64_t a, uint64_t b)
{
	return binary(f, FPREF_OP_LT, b, a) ? b : a;
}

/* float(double(scale) * factor): C++'s float * double in double, stored
 * back into a float tensor. */
static uint64_t fp32_times_double(const struct fpref_scaler *s, uint64_t scale32, uint64_t factor64)
{
	uint64_t wide = convert(&s->f32, &s->f64, scale32);
	return convert(&s->f64, &s->f32, binary(&s->f64, FPREF_OP_MUL, wide, factor64));
}

const struct fpref_format *fpref_emu_scaler_scale_format(const struct fpref_scaler *s)
{
	return s->cfg.kind == FPREF_SCALER_PYTORCH ? &s->f32 : &s->f64;
}

static int bad_config(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

int fpref_emu_scaler_init(struct fpref_scaler *s, const struct fpref_scaler_config *c, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->cfg = *c;
	if (fpref_format_parse("float32", &s->f32, err, errlen) != 0 || fpref_format_parse("float64", &s->f64, err, errlen) != 0)
		return -1;
	if (!positive_finite(&s->f64, c->init_scale))
		return bad_config(err, errlen, "the initial scale must be positive and finite");
	if (c->interval < 1 || c->interval > INT32_MAX)
		return bad_config(err, errlen, "the growth interval (window) must be an integer from 1 to 2147483647");
	if (c->hysteresis < 1 || c->hysteresis > INT32_MAX)
		return bad_config(err, errlen, "hysteresis must be an integer from 1 to 2147483647");
	if (!positive_finite(&s->f64, c->growth_factor) || !positive_finite(&s->f64, c->backoff_factor))
		return bad_config(err, errlen, "the growth and backoff factors must be positive and finite");
	if ((c->min_scale && !positive_finite(&s->f64, c->min_scale)) || !positive_finite(&s->f64, c->max_scale))
		return bad_config(err, errlen, "the minimum and maximum scales must be positive and finite");
	struct fpref_env probe;
	fpref_env_default(&probe);
	if (c->profile && fpref_profile_apply(c->profile, &s->f32, &probe) != 0) {
		snprintf(err, errlen, "unknown profile '%s' (%s)", c->profile, fpref_profile_choices());
		return -1;
	}
	s->scale = c->init_scale;
	if (c->kind == FPREF_SCALER_PYTORCH)
		s->scale = convert(&s->f64, &s->f32, c->init_scale); /* torch.full((), init_scale, dtype=float32) */
	if (c->kind == FPREF_SCALER_APEX)
		s->scale = python_min(&s->f64, c->max_scale, c->init_scale);
	s->last_overflow_iter = -1;
	s->cur_hysteresis = c->hysteresis;
	return 0;
}

/* _amp_update_scale_: backoff and reset on inf/NaN; otherwise the tracker
 * counts, and at exactly growth_interval the grown scale is kept only if
 * it is finite in FP32. */
static void update_pytorch(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out)
{
	if (overflow) {
		s->scale = fp32_times_double(s, s->scale, s->cfg.backoff_factor);
		s->growth_tracker = 0;
		out->backed_off = true;
		return;
	}
	int64_t successful = s->growth_tracker + 1;
	if (successful != s->cfg.interval) {
		s->growth_tracker = successful;
		return;
	}
	uint64_t grown = fp32_times_double(s, s->scale, s->cfg.growth_factor);
	if (is_finite(&s->f32, grown)) {
		s->scale = grown;
		out->grew = true;
	} else {
		out->growth_refused = true;
	}
	s->growth_tracker = 0;
}

/* DynamicLossScaler.update_scale, with Python floats (FP64). */
static void update_deepspeed(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out)
{
	const struct fpref_scaler_config *c = &s->cfg;
	if (overflow) {
		if (c->hysteresis == 1 || s->cur_hysteresis == 1) {
			if (c->raise_at_min && binary(&s->f64, FPREF_OP_EQ, s->scale, c->min_scale)) {
				out->raised = true;
				s->stopped = true;
				return;
			}
			uint64_t half = binary(&s->f64, FPREF_OP_DIV, s->scale, F64_TWO);
			s->scale = python_max(&s->f64, half, c->min_scale);
			out->backed_off = true;
			out->clamped = s->scale != half;
		} else {
			s->cur_hysteresis--;
			out->hysteresis_spent = true;
		}
		s->last_overflow_iter = s->cur_iter;
	} else {
		if (c->consecutive_hysteresis)
			s->cur_hysteresis = c->hysteresis;
		int64_t stable_interval = s->cur_iter - s->last_overflow_iter - 1;
		if (stable_interval > 0 && stable_interval % c->interval == 0) {
			if (!c->consecutive_hysteresis)
				s->cur_hysteresis = c->hysteresis;
			s->scale = binary(&s->f64, FPREF_OP_MUL, s->scale, F64_TWO);
			out->grew = true;
		}
	}
	s->cur_iter++;
}

/* amp's LossScaler.update_scale: a min of 0 counts as none (Python's
 * `if self._min_loss_scale`). */
static void update_apex(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out)
{
	const struct fpref_scaler_config *c = &s->cfg;
	if (overflow) {
		uint64_t half = binary(&s->f64, FPREF_OP_DIV, s->scale, F64_TWO);
		s->scale = c->min_scale ? python_max(&s->f64, c->min_scale, half) : half;
		out->clamped = s->scale != half;
		out->backed_off = true;
		s->growth_tracker = 0;
	} else {
		s->growth_tracker++;
	}
	if (s->growth_tracker == c->interval) {
		uint64_t before = s->scale, twice = binary(&s->f64, FPREF_OP_MUL, s->scale, F64_TWO);
		s->scale = python_min(&s->f64, c->max_scale, twice);
		out->clamped = s->scale != twice;
		out->grew = s->scale != before;
		s->growth_tracker = 0;
	}
}

/* The counters: an iteration either steps the optimizer or is skipped. */
static void count(struct fpref_scaler *s, struct fpref_scaler_step *out)
{
	out->scale_next = s->scale;
	if (out->raised)
		return;
	out->applied = !out->overflow || (s->cfg.kind == FPREF_SCALER_STATIC && !s->cfg.static_skips);
	s->iterations++;
	if (out->applied)
		s->optimizer_steps++;
	else
		s->skipped_steps++;
}

static bool begin(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out)
{
	memset(out, 0, sizeof *out);
	out->scale_used = s->scale;
	out->overflow = overflow;
	out->raised = s->stopped;
	out->scale_next = s->scale;
	return !s->stopped;
}

void fpref_emu_scaler_update(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out)
{
	if (!begin(s, overflow, out))
		return;
	switch (s->cfg.kind) {
	case FPREF_SCALER_PYTORCH:
		update_pytorch(s, overflow, out);
		break;
	case FPREF_SCALER_DEEPSPEED:
		update_deepspeed(s, overflow, out);
		break;
	case FPREF_SCALER_APEX:
		update_apex(s, overflow, out);
		break;
	case FPREF_SCALER_STATIC:
		break;
	}
	count(s, out);
}

void fpref_emu_scaler_set_scale(struct fpref_scaler *s, uint64_t fp64_bits)
{
	s->scale = s->cfg.kind == FPREF_SCALER_PYTORCH ? convert(&s->f64, &s->f32, fp64_bits) : fp64_bits;
}

void fpref_emu_scaler_update_to(struct fpref_scaler *s, bool overflow, uint64_t fp64_bits, struct fpref_scaler_step *out)
{
	if (!begin(s, overflow, out))
		return;
	fpref_emu_scaler_set_scale(s, fp64_bits);
	count(s, out);
}

uint64_t fpref_emu_scaler_scale_fp32(const struct fpref_scaler *s)
{
	return s->cfg.kind == FPREF_SCALER_PYTORCH ? s->scale : convert(&s->f64, &s->f32, s->scale);
}

uint64_t fpref_emu_scaler_inverse_fp32(const struct fpref_scaler *s)
{
	uint64_t wide = s->cfg.kind == FPREF_SCALER_PYTORCH ? convert(&s->f32, &s->f64, s->scale) : s->scale;
	return convert(&s->f64, &s->f32, binary(&s->f64, FPREF_OP_DIV, F64_ONE, wide));
}
