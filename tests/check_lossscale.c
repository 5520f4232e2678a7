/* Loss scalers: the seed's trace and underflow example (expected values
 * from seed 000's text), traces worked by hand from PyTorch's, DeepSpeed's
 * and Apex's published update rules, and the gradient path and the scale
 * arithmetic recomputed with the MPFR oracle. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_lossscale.h"

#define F32_1024 0x44800000u
#define F32_2048 0x45000000u

static uint64_t f64_bits(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof b); /* test constants only: the host's double is IEEE binary64 */
	return b;
}

static double f64_value(uint64_t b)
{
	double x;
	memcpy(&x, &b, sizeof x);
	return x;
}

static struct fpref_scaler make(enum fpref_scaler_kind kind, double init, int64_t interval)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(kind, &c);
	c.init_scale = f64_bits(init);
	c.interval = interval;
	struct fpref_scaler s;
	char err[256];
	ck_assert_msg(fpref_emu_scaler_init(&s, &c, err, sizeof err) == 0, "%s", err);
	return s;
}

static struct fpref_scaler make_from(const struct fpref_scaler_config *c)
{
	struct fpref_scaler s;
	char err[256];
	ck_assert_msg(fpref_emu_scaler_init(&s, c, err, sizeof err) == 0, "%s", err);
	return s;
}

static struct fpref_scaler_step step(struct fpref_scaler *s, bool overflow)
{
	struct fpref_scaler_step st;
	fpref_emu_scaler_update(s, overflow, &st);
	return st;
}

/* Seed 000: growth_interval 3, an inf at step 4: "Step 1: scale=1024.0,
 * applied ... Step 3: scale=2048.0 ... Step 4: scale=1024.0, skipped ...
 * Step 5: scale=1024.0, applied" (the scale printed after the update). */
START_TEST(seed_trace)
{
	struct fpref_scaler s = make(FPREF_SCALER_PYTORCH, 1024.0, 3);
	const uint64_t want[5] = { F32_1024, F32_1024, F32_2048, F32_1024, F32_1024 };
	const bool applied[5] = { true, true, true, false, true };
	for (int i = 0; i < 5; i++) {
		struct fpref_scaler_step st = step(&s, i == 3);
		ck_assert_uint_eq(st.scale_next, want[i]);
		ck_assert_int_eq(st.applied, applied[i]);
	}
	ck_assert_uint_eq(s.optimizer_steps, 4);
	ck_assert_uint_eq(s.skipped_steps, 1);
	ck_assert_int_eq(s.growth_tracker, 1);
}
END_TEST

/* PyTorch: growth after exactly growth_interval clean steps, the tracker
 * reset by an overflow, and the backoff (defaults 2^16, 2, 0.5, 2000). */
START_TEST(pytorch_interval_and_reset)
{
	struct fpref_scaler s = make(FPREF_SCALER_PYTORCH, 65536.0, 2000);
	for (int i = 0; i < 1999; i++)
		ck_assert_uint_eq(step(&s, false).scale_next, 0x47800000); /* 2^16 */
	ck_assert_int_eq(s.growth_tracker, 1999);
	struct fpref_scaler_step st = step(&s, false);
	ck_assert(st.grew);
	ck_assert_uint_eq(st.scale_next, 0x48000000); /* 2^17 */
	ck_assert_int_eq(s.growth_tracker, 0);
	for (int i = 0; i < 1000; i++)
		step(&s, false);
	st = step(&s, true);
	ck_assert(st.backed_off && !st.applied);
	ck_assert_uint_eq(st.scale_used, 0x48000000);
	ck_assert_uint_eq(st.scale_next, 0x47800000);
	ck_assert_int_eq(s.growth_tracker, 0);
	for (int i = 0; i < 1999; i++)
		ck_assert(!step(&s, false).grew);
	ck_assert_uint_eq(step(&s, false).scale_next, 0x48000000);
	ck_assert_uint_eq(s.iterations, 5001);
	ck_assert_uint_eq(s.skipped_steps, 1);
}
END_TEST

/* "Do not grow the scale past fp32 bounds to inf": from 2^127 the grown
 * scale 2^128 is inf in FP32 and is not kept, and the tracker resets;
 * FLT_MAX times 1.0000001 rounds to inf as well. */
START_TEST(pytorch_fp32_ceiling)
{
	struct fpref_scaler s = make(FPREF_SCALER_PYTORCH, 0x1p127, 1);
	struct fpref_scaler_step st = step(&s, false);
	ck_assert(st.growth_refused && !st.grew && st.applied);
	ck_assert_uint_eq(st.scale_next, 0x7F000000);
	ck_assert_int_eq(s.growth_tracker, 0);
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
	c.init_scale = f64_bits(3.4028234663852886e38);
	c.growth_factor = f64_bits(1.0000001);
	c.interval = 1;
	s = make_from(&c);
	ck_assert_uint_eq(s.scale, 0x7F7FFFFF);
	ck_assert(step(&s, false).growth_refused);
	ck_assert_uint_eq(s.scale, 0x7F7FFFFF);
}
END_TEST

/* The scale times a double factor is one double product rounded to float:
 * 0.1f * 0.1 is 0.0100000001490116 in double, which rounds to 0x3C23D70A
 * (0.00999999977648), where float arithmetic (0.1f * 0.1f) would give
 * 0x3C23D70B. */
START_TEST(pytorch_double_factor)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
	c.init_scale = f64_bits(1.0);
	c.backoff_factor = f64_bits(0.1);
	struct fpref_scaler s = make_from(&c);
	ck_assert_uint_eq(step(&s, true).scale_next, 0x3DCCCCCD);
	ck_assert_uint_eq(step(&s, true).scale_next, 0x3C23D70A);
}
END_TEST

/* update(new_scale): fills the FP32 tensor (1e-3 -> 0x3A83126F) instead
 * of the update rule, so the tracker stays as it was even after an
 * overflow; the inverse is float(1 / double(scale)). */
START_TEST(pytorch_new_scale_and_inverse)
{
	struct fpref_scaler s = make(FPREF_SCALER_PYTORCH, 1024.0, 10);
	step(&s, false);
	step(&s, false);
	struct fpref_scaler_step st;
	fpref_emu_scaler_update_to(&s, true, f64_bits(1e-3), &st);
	ck_assert(!st.applied);
	ck_assert_uint_eq(st.scale_used, F32_1024);
	ck_assert_uint_eq(s.scale, 0x3A83126F);
	ck_assert_int_eq(s.growth_tracker, 2);
	ck_assert_uint_eq(s.skipped_steps, 1);
	s.scale = F32_1024;
	ck_assert_uint_eq(fpref_emu_scaler_inverse_fp32(&s), 0x3A800000); /* 2^-10 */
	s.scale = 0x40400000; /* 3: float(1/3.0) = 0x3EAAAAAB */
	ck_assert_uint_eq(fpref_emu_scaler_inverse_fp32(&s), 0x3EAAAAAB);
}
END_TEST

/* DeepSpeed, worked by hand from update_scale: init 16, window 3,
 * hysteresis 2, min 1.  stable_interval = cur_iter - last_overflow_iter - 1
 * reaches the window on the fourth clean iteration; an overflow with
 * hysteresis left only spends it; without consecutive_hysteresis it comes
 * back only with a growth. */
static const bool ds_overflow[13] = { 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1 };

START_TEST(deepspeed_hysteresis)
{
	const double off[13] = { 16, 16, 16, 32, 32, 32, 16, 8, 8, 8, 8, 16, 16 };
	const double on[13] = { 16, 16, 16, 32, 32, 32, 32, 16, 16, 16, 16, 32, 32 };
	for (int consecutive = 0; consecutive <= 1; consecutive++) {
		struct fpref_scaler_config c;
		fpref_emu_scaler_config_default(FPREF_SCALER_DEEPSPEED, &c);
		c.init_scale = f64_bits(16);
		c.interval = 3;
		c.consecutive_hysteresis = consecutive;
		struct fpref_scaler s = make_from(&c);
		for (int i = 0; i < 13; i++) {
			struct fpref_scaler_step st = step(&s, ds_overflow[i]);
			ck_assert_msg(f64_value(st.scale_next) == (consecutive ? on : off)[i], "consecutive %d iteration %d: %g",
				      consecutive, i, f64_value(st.scale_next));
			ck_assert_int_eq(st.applied, !ds_overflow[i]);
		}
		ck_assert_int_eq(s.cur_hysteresis, 1);
		ck_assert_int_eq(s.cur_iter, 13);
		ck_assert_int_eq(s.last_overflow_iter, 12);
		ck_assert_uint_eq(s.skipped_steps, 4);
		ck_assert_uint_eq(s.optimizer_steps, 9);
	}
}
END_TEST

/* The default window of 1000: the first growth comes on the 1001st clean
 * iteration (stable_interval 1000 at cur_iter 1000), one later than
 * PyTorch's growth_interval would. */
START_TEST(deepspeed_window)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_DEEPSPEED, &c);
	struct fpref_scaler s = make_from(&c);
	ck_assert(f64_value(s.scale) == 65536.0);
	for (int i = 0; i < 1000; i++)
		ck_assert(!step(&s, false).grew);
	struct fpref_scaler_step st = step(&s, false);
	ck_assert(st.grew);
	ck_assert(f64_value(st.scale_next) == 131072.0);
}
END_TEST

/* min_loss_scale: max(scale / 2, min); at the minimum an overflow raises
 * (raise_error_at_min_scale) and the run stops, or keeps the minimum. */
START_TEST(deepspeed_min_scale)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_DEEPSPEED, &c);
	c.init_scale = f64_bits(4);
	c.hysteresis = 1;
	c.raise_at_min = false;
	struct fpref_scaler s = make_from(&c);
	const double want[4] = { 2, 1, 1, 1 };
	for (int i = 0; i < 4; i++)
		ck_assert(f64_value(step(&s, true).scale_next) == want[i]);
	ck_assert_uint_eq(s.skipped_steps, 4);

	c.raise_at_min = true;
	s = make_from(&c);
	step(&s, true);
	step(&s, true);
	struct fpref_scaler_step st = step(&s, true);
	ck_assert(st.raised && !st.applied);
	ck_assert(s.stopped);
	ck_assert_uint_eq(s.iterations, 2);
	ck_assert(step(&s, false).raised);
	ck_assert_uint_eq(s.iterations, 2);

	c.min_scale = f64_bits(3);
	c.raise_at_min = true;
	s = make_from(&c);
	st = step(&s, true);
	ck_assert(st.clamped);
	ck_assert(f64_value(st.scale_next) == 3.0); /* max(2, 3) */
}
END_TEST

/* Apex: window 2, max 2^24 caps the growth; min_loss_scale floors the
 * backoff; a min of 0 means none. */
START_TEST(apex_rules)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_APEX, &c);
	c.init_scale = f64_bits(0x1p25); /* min(max, init) = 2^24 */
	c.interval = 2;
	struct fpref_scaler s = make_from(&c);
	ck_assert(f64_value(s.scale) == 0x1p24);
	step(&s, false);
	struct fpref_scaler_step st = step(&s, false);
	ck_assert(!st.grew && st.clamped);
	ck_assert(f64_value(st.scale_next) == 0x1p24);
	ck_assert(f64_value(step(&s, true).scale_next) == 0x1p23);
	ck_assert_int_eq(s.growth_tracker, 0);
	step(&s, false);
	st = step(&s, false);
	ck_assert(st.grew);
	ck_assert(f64_value(st.scale_next) == 0x1p24);
	c.min_scale = f64_bits(0x1p23);
	s = make_from(&c);
	step(&s, true);
	ck_assert(f64_value(step(&s, true).scale_next) == 0x1p23);
}
END_TEST

START_TEST(static_scale)
{
	struct fpref_scaler s = make(FPREF_SCALER_STATIC, 128.0, 1);
	ck_assert(!step(&s, true).applied);
	ck_assert(step(&s, false).applied);
	ck_assert(f64_value(s.scale) == 128.0);
	s.cfg.static_skips = false;
	struct fpref_scaler_step st = step(&s, true);
	ck_assert(st.applied && st.overflow);
	ck_assert_uint_eq(s.optimizer_steps, 2);
	ck_assert_uint_eq(s.skipped_steps, 1);
}
END_TEST

START_TEST(bad_configs)
{
	struct fpref_scaler_config c;
	struct fpref_scaler s;
	char err[256];
	fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
	c.interval = 0;
	ck_assert_int_eq(fpref_emu_scaler_init(&s, &c, err, sizeof err), -1);
	fpref_emu_scaler_config_default(FPREF_SCALER_DEEPSPEED, &c);
	c.init_scale = f64_bits(-1.0);
	ck_assert_int_eq(fpref_emu_scaler_init(&s, &c, err, sizeof err), -1);
	c.init_scale = 0x7FF0000000000000ull;
	ck_assert_int_eq(fpref_emu_scaler_init(&s, &c, err, sizeof err), -1);
	fpref_emu_scaler_config_default(FPREF_SCALER_DEEPSPEED, &c);
	c.hysteresis = 0;
	ck_assert_int_eq(fpref_emu_scaler_init(&s, &c, err, sizeof err), -1);
}
END_TEST

/* Seed 000's worked example: 1e-8 (FP32 0x322BCC77) is 0.0 in FP16; scaled
 * by 1024 it is 1.0251998901367188e-05 (FP16 0x00AC, a subnormal) and it
 * comes back as 1.0011717677116394e-08 (172 * 2^-34 = 0x322C0000).  The
 * seed's exercise: the smallest power-of-two scale that lifts it above
 * half of 2^-24 (5.96e-8) is 4; 2 leaves 2e-8, which rounds to 0. */
START_TEST(seed_underflow)
{
	const uint64_t g = 0x322BCC77;
	struct fpref_scaler s = make(FPREF_SCALER_PYTORCH, 1024.0, 2000);
	struct fpref_grad_stats st = { 0 };
	uint64_t u = 0;
	ck_assert_int_eq(fpref_emu_scaler_check_tensor(&s, &g, 1, &u, &st), 0);
	ck_assert_uint_eq(u, 0x322C0000);
	ck_assert_uint_eq(st.nonzero, 1);
	ck_assert_uint_eq(st.zero_unscaled, 1);
	ck_assert_uint_eq(st.zero_scaled, 0);
	ck_assert_uint_eq(st.subnormal_scaled, 1);
	ck_assert(!st.overflow);
	for (int scale = 2; scale <= 4; scale += 2) {
		s = make(FPREF_SCALER_PYTORCH, scale, 2000);
		memset(&st, 0, sizeof st);
		fpref_emu_scaler_check_tensor(&s, &g, 1, &u, &st);
		ck_assert_uint_eq(st.zero_scaled, scale == 2);
		ck_assert_uint_eq(st.zero_recovered, scale == 2);
	}
}
END_TEST

/* Overflow verdicts: 70000 * 1 is inf in FP16 for every scaler; DeepSpeed
 * sees +inf + -inf as a NaN sum. */
START_TEST(overflow_verdicts)
{
	const uint64_t g[3] = { 0x3F800000, 0x4788B800 /* 70000 */, 0xC788B800 };
	for (int k = FPREF_SCALER_PYTORCH; k <= FPREF_SCALER_STATIC; k++) {
		struct fpref_scaler s = make((enum fpref_scaler_kind)k, 1.0, 10);
		struct fpref_grad_stats st = { 0 };
		ck_assert_int_eq(fpref_emu_scaler_check_tensor(&s, g, 3, NULL, &st), 0);
		ck_assert(st.overflow);
		ck_assert_uint_eq(st.nonfinite_scaled, 2);
		memset(&st, 0, sizeof st);
		fpref_emu_scaler_check_tensor(&s, g, 1, NULL, &st);
		ck_assert(!st.overflow);
	}
}
END_TEST

/* ---- PyTorch itself: 2.11.0+cu130 on an H200 (tests/data/lossscale-torch.py) ---- */

/* torch._amp_update_scale_ on CUDA and on the CPU printed these scales
 * (after each of three clean steps, growth_interval 1). */
START_TEST(torch_measured_traces)
{
	struct fpref_scaler_config c;
	fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
	c.init_scale = f64_bits(3.0);
	c.growth_factor = f64_bits(1.1);
	c.interval = 1;
	struct fpref_scaler s = make_from(&c);
	const uint64_t want[3] = { 0x40533333, 0x406851EB, 0x407F8D4F };
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(step(&s, false).scale_next, want[i]);
	s = make(FPREF_SCALER_PYTORCH, 3.4028234663852886e38, 1);
	step(&s, false);
	ck_assert_uint_eq(step(&s, true).scale_next, 0x7EFFFFFF);
}
END_TEST

/* The gradient path against PyTorch's kernels on the GPU: h = (g * S)
 * .half().float(), unscaled by _amp_foreach_non_finite_check_and_unscale_,
 * for 1043 values and six scales, bit for bit under the cuda profile
 * (whose NaN is 0x7FFFFFFF, as the GPU gives it). */
START_TEST(torch_measured_gradients)
{
	const char *path = FPREF_TEST_DATA "/lossscale-torch-h200.txt";
	FILE *in = fopen(path, "r");
	ck_assert_msg(in != NULL, "cannot open %s", path);
	enum { MAXV = 1100, SCALES = 6 };
	static uint64_t g[MAXV], want[SCALES][MAXV], got[MAXV];
	unsigned scale[SCALES], inv[SCALES];
	int found[SCALES], ns = 0;
	size_t n = 0;
	char line[256];
	while (fgets(line, sizeof line, in)) {
		unsigned v[7];
		if (line[0] == '#')
			continue;
		if (sscanf(line, "scale %x %x %d", &scale[ns], &inv[ns], &found[ns]) == 3) {
			ck_assert_int_lt(ns, SCALES);
			ns++;
		} else {
			ck_assert_int_eq(sscanf(line, "%x %x %x %x %x %x %x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]), 7);
			ck_assert_uint_lt(n, MAXV);
			g[n] = v[0];
			for (int k = 0; k < SCALES; k++)
				want[k][n] = v[k + 1];
			n++;
		}
	}
	fclose(in);
	ck_assert_int_eq(ns, SCALES);
	ck_assert_uint_eq(n, 1043);
	struct fpref_format f32 = test_format("f32"), f64 = test_format("f64");
	struct fpref_env env;
	fpref_env_default(&env);
	for (int k = 0; k < SCALES; k++) {
		struct fpref_scaler_config c;
		fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
		unsigned fl = 0;
		fpref_emu_convert(&f32, scale[k], &f64, &env, 0, &c.init_scale, &fl);
		c.profile = "cuda";
		struct fpref_scaler s = make_from(&c);
		ck_assert_uint_eq(fpref_emu_scaler_inverse_fp32(&s), inv[k]);
		struct fpref_grad_stats st = { 0 };
		ck_assert_int_eq(fpref_emu_scaler_check_tensor(&s, g, n, got, &st), 0);
		ck_assert_int_eq(st.overflow, found[k]);
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(got[i] == want[k][i], "scale %08x value %zu (g %08llx): %08llx, PyTorch %08llx", scale[k], i,
				      (unsigned long long)g[i], (unsigned long long)got[i], (unsigned long long)want[k][i]);
	}
}
END_TEST

/* ---- the oracle recomputes the gradient path and the scale products ---- */

static enum fpref_class cls(const struct fpref_format *f, uint64_t b)
{
	struct fpref_unpacked u;
	fpref_decode(f, b, &u);
	return u.cls;
}

START_TEST(grads_against_oracle)
{
	struct fpref_format f32 = test_format("f32"), f16 = test_format("f16");
	struct fpref_env env;
	fpref_env_default(&env);
	enum { N = 3000 };
	static uint64_t g[N], u[N];
	const double scales[] = { 1.0, 1024.0, 65536.0, 0x1p24, 3.0, 0.5 };
	for (int k = FPREF_SCALER_PYTORCH; k <= FPREF_SCALER_STATIC; k++)
		for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
			int log2 = -30 + 4 * (int)si;
			fpref_emu_random(&f32, &env, FPREF_DIST_NORMAL, log2, 7 + si, 0, N, g);
			g[0] = 0; /* a zero, an inf and a NaN among them */
			g[1] = si % 2 ? 0x7F800000 : 0x00000001;
			g[2] = si == 5 ? 0x7FC00000 : 0x80000000;
			struct fpref_scaler s = make((enum fpref_scaler_kind)k, scales[si], 2000);
			struct fpref_grad_stats st = { 0 };
			ck_assert_int_eq(fpref_emu_scaler_check_tensor(&s, g, N, u, &st), 0);
			uint64_t S = 0, inv = 0, one = 0x3FF0000000000000ull, x = 0;
			unsigned fl = 0;
			struct fpref_format f64 = test_format("f64");
			uint64_t wide = k == FPREF_SCALER_PYTORCH ? 0 : f64_bits(scales[si]);
			if (k == FPREF_SCALER_PYTORCH)
				fpref_ref_convert(&f32, s.scale, &f64, &env, 0, &wide, &fl);
			fpref_ref_convert(&f64, wide, &f32, &env, 0, &S, &fl);
			uint64_t q[2] = { one, wide };
			fpref_ref_op(FPREF_OP_DIV, &f64, q, &env, 0, &x, &fl);
			fpref_ref_convert(&f64, x, &f32, &env, 0, &inv, &fl);
			size_t nonzero = 0, zu = 0, zs = 0, ss = 0, bad = 0;
			uint64_t sum = 0;
			for (size_t i = 0; i < N; i++) {
				uint64_t in[2] = { g[i], S }, scaled, h, h32, plain, want;
				fpref_ref_op(FPREF_OP_MUL, &f32, in, &env, 0, &scaled, &fl);
				fpref_ref_convert(&f32, scaled, &f16, &env, 0, &h, &fl);
				fpref_ref_convert(&f16, h, &f32, &env, 0, &h32, &fl);
				uint64_t m[2] = { h32, inv }, a[2] = { sum, h32 };
				want = h32;
				if (!(k == FPREF_SCALER_PYTORCH && inv == 0x3F800000))
					fpref_ref_op(FPREF_OP_MUL, &f32, m, &env, 0, &want, &fl);
				ck_assert_msg(u[i] == want, "scaler %d scale %g element %zu: %llx, oracle %llx", k, scales[si], i,
					      (unsigned long long)u[i], (unsigned long long)want);
				fpref_ref_op(FPREF_OP_ADD, &f32, a, &env, 0, &sum, &fl);
				enum fpref_class gc = cls(&f32, g[i]), hc = cls(&f16, h);
				bad += hc == FPREF_CLASS_INF || hc == FPREF_CLASS_NAN;
				if (gc != FPREF_CLASS_NORMAL && gc != FPREF_CLASS_SUBNORMAL)
					continue;
				fpref_ref_convert(&f32, g[i], &f16, &env, 0, &plain, &fl);
				nonzero++;
				zu += cls(&f16, plain) == FPREF_CLASS_ZERO;
				zs += hc == FPREF_CLASS_ZERO;
				ss += hc == FPREF_CLASS_SUBNORMAL;
			}
			ck_assert_uint_eq(st.nonzero, nonzero);
			ck_assert_uint_eq(st.zero_unscaled, zu);
			ck_assert_uint_eq(st.zero_scaled, zs);
			ck_assert_uint_eq(st.subnormal_scaled, ss);
			ck_assert_uint_eq(st.nonfinite_scaled, bad);
			bool sum_bad = cls(&f32, sum) == FPREF_CLASS_INF || cls(&f32, sum) == FPREF_CLASS_NAN;
			ck_assert_int_eq(st.overflow, k == FPREF_SCALER_DEEPSPEED ? sum_bad : bad > 0);
			ck_assert_msg(zu > 0 || log2 > -20, "the sample must underflow somewhere (scale %g)", scales[si]);
		}
}
END_TEST

/* PyTorch's float(float * double) on random scales and factors, against
 * the oracle's FP64 product rounded to FP32. */
START_TEST(scale_products_against_oracle)
{
	struct fpref_format f32 = test_format("f32"), f64 = test_format("f64");
	struct fpref_env env;
	fpref_env_default(&env);
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t r = fpref_sr_stream(42, i);
		uint64_t scale = (r & 0x7FFFFFFF) % 0x7F800000; /* positive finite FP32, or +0 */
		if (scale == 0)
			continue;
		uint64_t factor = fpref_sr_stream(43, i) >> 12 | (uint64_t)(1023 - 3 + (int)(i % 7)) << 52;
		struct fpref_scaler_config c;
		fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &c);
		c.backoff_factor = factor;
		struct fpref_scaler s = make_from(&c);
		s.scale = scale;
		uint64_t got = step(&s, true).scale_next, wide = 0, prod = 0, want = 0;
		unsigned fl = 0;
		fpref_ref_convert(&f32, scale, &f64, &env, 0, &wide, &fl);
		uint64_t in[2] = { wide, factor };
		fpref_ref_op(FPREF_OP_MUL, &f64, in, &env, 0, &prod, &fl);
		fpref_ref_convert(&f64, prod, &f32, &env, 0, &want, &fl);
		ck_assert_msg(got == want, "scale %llx factor %llx: %llx, oracle %llx", (unsigned long long)scale,
			      (unsigned long long)factor, (unsigned long long)got, (unsigned long long)want);
	}
}
END_TEST

static Suite *lossscale_suite(void)
{
	Suite *s = suite_create("lossscale");
	TCase *t = tcase_create("scalers");
	tcase_add_test(t, seed_trace);
	tcase_add_test(t, pytorch_interval_and_reset);
	tcase_add_test(t, pytorch_fp32_ceiling);
	tcase_add_test(t, pytorch_double_factor);
	tcase_add_test(t, pytorch_new_scale_and_inverse);
	tcase_add_test(t, deepspeed_hysteresis);
	tcase_add_test(t, deepspeed_window);
	tcase_add_test(t, deepspeed_min_scale);
	tcase_add_test(t, apex_rules);
	tcase_add_test(t, static_scale);
	tcase_add_test(t, bad_configs);
	suite_add_tcase(s, t);
	TCase *g = tcase_create("gradients");
	tcase_set_timeout(g, 120);
	tcase_add_test(g, seed_underflow);
	tcase_add_test(g, overflow_verdicts);
	tcase_add_test(g, grads_against_oracle);
	tcase_add_test(g, scale_products_against_oracle);
	tcase_add_test(g, torch_measured_traces);
	tcase_add_test(g, torch_measured_gradients);
	suite_add_tcase(s, g);
	return s;
}

int main(void)
{
	return test_run(lossscale_suite());
}
