/* The test driver of the exactness suites: see driver.h. */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "fpref_golden.h"

/* ---- formats ---- */

/* Rows the catalogue lacks, one per option: subnormals off, no specials
 * and unsigned, no zero (E8M0-like, narrower), fn with a bias of its own,
 * a 16-bit layout of no standard, fnuz with a bias far from the usual;
 * and P3109 rows, whose inf below the NaN and parity ties no other has. */
static const char *const custom_formats[] = {
	"e4m3,subnormals=off", "e2m2,specials=none,unsigned", "e5m0,specials=fn,unsigned,zero=off,subnormals=off",
	"e3m1,specials=fn,bias=2", "custom:e6m9", "e8m3,bias=120,specials=fnuz",
	/* IEEE P3109: extended signed and unsigned, P = 1 (ties by the code's
	 * parity), finite, and a 16-bit one */
	"binary8p3se", "binary5p1ue", "binary5p2sf", "binary3p3ue", "binary16p7se",
};
#define NCUSTOM (sizeof custom_formats / sizeof custom_formats[0])

size_t drv_format_count(void)
{
	return fpref_format_count() + NCUSTOM;
}

struct fpref_format drv_format(size_t i)
{
	if (i < fpref_format_count())
		return *fpref_format_at(i);
	return test_format(custom_formats[i - fpref_format_count()]);
}

/* ---- environments ---- */

static const struct {
	unsigned width;
	uint64_t R;
	bool conversion_only; /* aimed at r = 4's thresholds: R = 0 never rounds up, 1 and 15 at the extremes, 8 halfway */
} sr_words[] = {
	{ 4, 7, false },
	{ 13, 0x1234, false },
	{ 64, UINT64_C(0xfedcba9876543210), false },
	{ 4, 0, true },
	{ 4, 1, true },
	{ 4, 8, true },
	{ 4, 15, true },
	{ 64, UINT64_C(0x8000000000000000), true },
};
#define NWORDS (sizeof sr_words / sizeof sr_words[0])

static int policy_count(const struct fpref_env *e)
{
	return (e->overflow == FPREF_OVERFLOW_SAT) + e->ftz + e->daz + (e->tininess == FPREF_TININESS_BEFORE);
}

static bool is_knob(const struct fpref_env *e)
{
	return e->nan_style != FPREF_NAN_SIGNED_QUIET || e->sat_inf_to_nan || e->nan_to_flipped_zero ||
	       e->underflow_to_least || e->zero_to_least || e->unsigned_magnitude;
}

/* IEEE P3109's rows: StochasticB and C with the words the operations
 * take, SatPropagate and SatNone under the modes whose rows differ. */
static size_t p3109_envs(struct env_case *out)
{
	size_t n = 0;
	for (int rule = FPREF_SR_B; rule <= FPREF_SR_C; rule++)
		for (size_t w = 0; w < NWORDS; w++) {
			if (sr_words[w].conversion_only && sr_words[w].width != 4)
				continue;
			struct env_case *c = &out[n++];
			fpref_env_default(&c->env);
			c->env.rounding = FPREF_SR;
			c->env.sr_rule = (enum fpref_sr_rule)rule;
			c->env.sr_width = sr_words[w].width;
			c->R = sr_words[w].R;
		}
	static const enum fpref_rounding modes[] = { FPREF_RNE, FPREF_RTZ, FPREF_RUP, FPREF_RDN, FPREF_ROD, FPREF_SR };
	for (int none = 0; none < 2; none++)
		for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
			struct env_case *c = &out[n++];
			fpref_env_default(&c->env);
			c->env.rounding = modes[m];
			c->env.sr_width = modes[m] == FPREF_SR ? 4 : 32;
			c->R = modes[m] == FPREF_SR ? 7 : 0;
			c->env.overflow = none ? FPREF_OVERFLOW_IEEE : FPREF_OVERFLOW_SAT;
			c->env.p3109_sat_none = none;
			c->env.sat_keep_inf = !none;
		}
	return n;
}

static bool is_p3109(const struct fpref_env *e)
{
	return e->sr_rule != FPREF_SR_A || e->sat_keep_inf || e->p3109_sat_none;
}

/* The one list, before any subset. */
static size_t all_envs(struct env_case *out, bool *conversion_only)
{
	size_t n = 0;
	for (int bits = 0; bits < 16; bits++)
		for (int mode = FPREF_RNE; mode <= FPREF_SR; mode++)
			for (size_t w = 0; w < (mode == FPREF_SR ? NWORDS : 1u); w++) {
				struct env_case *c = &out[n];
				fpref_env_default(&c->env);
				c->env.rounding = (enum fpref_rounding)mode;
				c->env.overflow = bits & 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
				c->env.ftz = bits & 2;
				c->env.daz = bits & 4;
				c->env.tininess = bits & 8 ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
				c->env.sr_width = mode == FPREF_SR ? sr_words[w].width : 32;
				c->R = mode == FPREF_SR ? sr_words[w].R : 0;
				conversion_only[n++] = mode == FPREF_SR && sr_words[w].conversion_only;
			}
	/* the profiles' knobs: CUDA's NaN, ONNX's inf under saturation, ml_dtypes' NaN and underflow */
	for (int k = 0; k < 3; k++) {
		struct env_case *c = &out[n];
		fpref_env_default(&c->env);
		c->env.nan_style = k < 2 ? FPREF_NAN_POSITIVE_ALL_ONES : FPREF_NAN_SIGNED_QUIET;
		c->env.overflow = k == 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		c->env.sat_inf_to_nan = k == 1;
		c->env.nan_to_flipped_zero = k == 2;
		c->env.underflow_to_least = k == 2;
		c->R = 0;
		conversion_only[n++] = false;
	}
	/* CUDA's E8M0 knobs, and the NaN styles that keep a payload, under rup (ieee) and rtz (sat) */
	for (int k = 0; k < 2; k++) {
		struct env_case *c = &out[n];
		fpref_env_default(&c->env);
		c->env.rounding = k ? FPREF_RTZ : FPREF_RUP;
		c->env.overflow = k ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		c->env.nan_style = k ? FPREF_NAN_KEEP_BITS : FPREF_NAN_PROPAGATE;
		c->env.zero_to_least = true;
		c->env.unsigned_magnitude = true;
		c->R = 0;
		conversion_only[n++] = false;
	}
	size_t p = p3109_envs(out + n);
	for (size_t i = 0; i < p; i++)
		conversion_only[n++] = false;
	return n;
}

size_t drv_envs(enum drv_envset set, struct env_case *out)
{
	struct env_case all[DRV_MAX_ENVS];
	bool conversion_only[DRV_MAX_ENVS];
	size_t total = all_envs(all, conversion_only), n = 0;
	for (size_t i = 0; i < total; i++) {
		const struct fpref_env *e = &all[i].env;
		int policies = policy_count(e);
		bool knob = is_knob(e), p3109 = is_p3109(e), keep = false;
		switch (set) {
		case DRV_ENVS_ALL:
			keep = true;
			break;
		case DRV_ENVS_OPS:
			keep = !conversion_only[i];
			break;
		case DRV_ENVS_LIGHT:
			keep = p3109 || knob || policies == 0 ||
			       (policies == 1 && (e->rounding == FPREF_RNE || e->rounding == FPREF_RUP)) ||
			       (policies == 4 && e->rounding == FPREF_RDN);
			break;
		case DRV_ENVS_MODES:
			keep = !conversion_only[i] && !knob && !p3109 && policies == 0;
			break;
		case DRV_ENVS_ALL_MODES:
			keep = !knob && !p3109 && policies == 0;
			break;
		case DRV_ENVS_OPS_POLICIES:
			keep = p3109 || knob || (policies > 0 && (e->rounding == FPREF_RNE || e->rounding == FPREF_RUP));
			break;
		case DRV_ENVS_DECIMAL:
			keep = !knob && !e->daz && (e->rounding != FPREF_SR || e->sr_width == 4);
			break;
		}
		if (keep)
			out[n++] = all[i];
	}
	return n;
}

/* ---- operands ---- */

size_t drv_specials(const struct fpref_format *f, uint64_t *out)
{
	size_t n = fpref_golden_edge_values(f, out, DRV_MAX_SPECIALS / 2);
	uint64_t nans[DRV_MAX_SPECIALS / 2];
	size_t nn = fpref_golden_nan_patterns(f, nans, DRV_MAX_SPECIALS / 2);
	for (size_t i = 0; i < nn; i++) {
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = out[k] == nans[i];
		if (!seen)
			out[n++] = nans[i];
	}
	return n;
}

uint64_t drv_random(uint64_t *state)
{
	*state += UINT64_C(0x9e3779b97f4a7c15);
	uint64_t z = *state;
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t drv_structured(const struct fpref_format *f, uint64_t *state)
{
	uint64_t r = drv_random(state);
	int M = f->man_bits, E = f->exp_bits;
	uint64_t mant_mask = (UINT64_C(1) << M) - 1, top = (UINT64_C(1) << E) - 1;
	uint64_t sign = (r >> 63) ? UINT64_C(1) << (E + M) : 0;
	uint64_t field, mant;
	uint64_t pick = (r >> 4) & 15;
	uint64_t rm = drv_random(state);
	switch (pick) {
	case 0: field = 0; mant = 0; break;                                     /* zero */
	case 1: field = top; mant = (r & 1) ? 0 : rm & mant_mask; break;        /* inf, NaN */
	case 2: field = 0; mant = rm & mant_mask; break;                         /* subnormal */
	case 3: field = 0; mant = (r >> 8 & 1) ? mant_mask : 1; break;          /* subnormal extremes */
	case 4: field = 1 + (r >> 8 & 1); mant = rm & mant_mask; break;         /* near the least normal */
	case 5: field = top - 1 - (r >> 8 & 1); mant = rm & mant_mask; break;   /* near max */
	case 6: field = top - 1; mant = mant_mask; break;                        /* max */
	case 7: field = (r >> 8) % top; mant = 0; break;                         /* power of two */
	case 8: field = (r >> 8) % top; mant = mant_mask; break;                 /* all ones */
	case 9: field = (r >> 8) % top; mant = mant_mask ^ ((rm & 3)); break;
	case 10: field = (top >> 1) + ((r >> 8) & 7) - 3; mant = rm & mant_mask; break; /* near 1 */
	case 11: field = (top >> 1) + ((r >> 8) & 63) - 31; mant = rm & mant_mask; break;
	default: field = (r >> 8) % (top + 1); mant = rm & mant_mask; break;    /* anywhere */
	}
	if (!f->is_signed)
		sign = 0;
	return (sign | (field & top) << M | mant) << f->pad_bits;
}

uint64_t drv_partner(const struct fpref_format *f, uint64_t a, uint64_t *state)
{
	uint64_t r = drv_random(state);
	uint64_t sign = f->is_signed ? UINT64_C(1) << (f->exp_bits + f->man_bits + f->pad_bits) : 0;
	uint64_t unit = UINT64_C(1) << f->pad_bits;
	switch (r & 7) {
	case 0: return a;
	case 1: return a ^ sign;
	case 2: return (a ^ sign) + unit;
	case 3: return (a ^ sign) - unit;
	case 4: return a + ((r >> 8) & 3) * (unit << f->man_bits);
	default: return drv_structured(f, state);
	}
}

/* ---- sampling and sharding ---- */

struct drv_sweep drv_sweep_from_env(void)
{
	struct drv_sweep s = { test_sample_stride(), test_shard_from_env(), getenv("FPREF_EXHAUSTIVE") != NULL };
	return s;
}

bool drv_sampled(const struct drv_sweep *s, unsigned long long case_index)
{
	return test_sample_keep(s->stride, case_index);
}

bool drv_keep(const struct drv_sweep *s, unsigned long long case_index, const struct env_case *c)
{
	return test_sample_keep(s->stride * (is_p3109(&c->env) ? DRV_P3109_STRIDE : 1), case_index);
}

bool drv_owns(const struct drv_sweep *s, unsigned long long chunk)
{
	return test_shard_owns(s->shard, chunk);
}

bool drv_owns_case(const struct drv_sweep *s, unsigned long long key, unsigned long long index)
{
	return test_shard_owns(s->shard, key + index / DRV_BLOCK);
}

/* ---- compare and report ---- */

static void describe_env(const struct env_case *c, char *buf, size_t len)
{
	char text[160];
	fpref_env_describe(&c->env, text, sizeof text);
	snprintf(buf, len, "[%s R=%llx]", text, (unsigned long long)c->R);
}

static void mismatch(struct drv_stats *st, const char *what)
{
	if (st->mismatches++ == 0)
		snprintf(st->first, sizeof st->first, "%s", what);
	if (st->mismatches <= 10)
		fprintf(stderr, "%s\n", what);
}

void drv_compare_convert(struct drv_stats *st, const struct fpref_format *from, uint64_t bits,
			 const struct fpref_format *to, const struct env_case *envs, size_t n)
{
	struct fpref_ref_value v[2];
	int status[2];
	bool read[2] = { false, false };
	for (size_t i = 0; i < n; i++) {
		const struct env_case *c = &envs[i];
		int d = c->env.daz ? 1 : 0;
		if (!read[d]) {
			fpref_ref_value_init(&v[d]);
			status[d] = fpref_ref_from_bits(from, bits, c->env.daz, &v[d]);
			read[d] = true;
		}
		uint64_t want = 0, got = 0;
		unsigned want_flags = 0, got_flags = 0;
		if (status[d] == 0)
			fpref_ref_round(&v[d], to, &c->env, c->R, &want, &want_flags, NULL);
		int re = fpref_emu_convert(from, bits, to, &c->env, c->R, &got, &got_flags);
		st->compared++;
		if (status[d] == re && want == got && want_flags == got_flags)
			continue;
		char envtext[200], line[512];
		describe_env(c, envtext, sizeof envtext);
		snprintf(line, sizeof line, "convert %s %llx -> %s %s: oracle %llx/%02x (%d), emulator %llx/%02x (%d)",
			 from->name, (unsigned long long)bits, to->name, envtext, (unsigned long long)want, want_flags,
			 status[d], (unsigned long long)got, got_flags, re);
		mismatch(st, line);
	}
	for (int d = 0; d < 2; d++)
		if (read[d])
			fpref_ref_value_clear(&v[d]);
}

/* The special-value rules, from the operands' classes alone: whether the
 * result must be a NaN (its sign in *negative) and whether the operation
 * raises invalid.  Formats with IEEE specials only. */
static bool nan_rule(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, bool daz, bool *negative,
		     bool *invalid)
{
	int n = fpref_op_arity(op);
	enum fpref_class cls[3] = { FPREF_CLASS_ZERO, FPREF_CLASS_ZERO, FPREF_CLASS_ZERO };
	bool neg[3] = { false, false, false }, signaling = false;
	int first_nan = -1;
	for (int i = 0; i < n; i++) {
		struct fpref_unpacked u;
		fpref_decode(f, in[i], &u);
		cls[i] = u.cls == FPREF_CLASS_SUBNORMAL && daz ? FPREF_CLASS_ZERO : u.cls;
		neg[i] = u.negative;
		if (cls[i] == FPREF_CLASS_NAN) {
			signaling = signaling || u.signaling;
			if (first_nan < 0)
				first_nan = i;
		}
	}
#define IS(i, k) (cls[i] == FPREF_CLASS_##k)
	bool product_invalid = n >= 2 && ((IS(0, ZERO) && IS(1, INF)) || (IS(0, INF) && IS(1, ZERO)));
	bool by_values = false;
	switch (op) {
	case FPREF_OP_ADD:
	case FPREF_OP_SUB:
		by_values = IS(0, INF) && IS(1, INF) && (neg[0] != neg[1]) == (op == FPREF_OP_ADD);
		break;
	case FPREF_OP_MUL:
		by_values = product_invalid;
		break;
	case FPREF_OP_DIV:
		by_values = (IS(0, ZERO) && IS(1, ZERO)) || (IS(0, INF) && IS(1, INF));
		break;
	case FPREF_OP_SQRT:
		by_values = neg[0] && !IS(0, ZERO) && !IS(0, NAN);
		break;
	case FPREF_OP_FMA:
		by_values = product_invalid ||
			    (first_nan < 0 && (IS(0, INF) || IS(1, INF)) && IS(2, INF) && (neg[0] != neg[1]) != neg[2]);
		break;
	default:
		break;
	}
#undef IS
	*invalid = signaling || by_values;
	if (op == FPREF_OP_FMA && product_invalid) {
		*negative = false; /* 0 * inf is invalid whatever c is: the invalid operation's +NaN */
		return true;
	}
	if (first_nan >= 0) {
		*negative = neg[first_nan];
		return true;
	}
	*negative = false;
	return by_values;
}

static void check_rule(struct drv_stats *st, enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
		       const struct env_case *c, const char *engine, uint64_t got, unsigned flags)
{
	if (f->specials != FPREF_SPECIALS_IEEE || c->env.nan_style != FPREF_NAN_SIGNED_QUIET ||
	    c->env.nan_to_flipped_zero || op >= FPREF_OP_MIN)
		return;
	bool negative, invalid, nan = nan_rule(op, f, in, c->env.daz, &negative, &invalid);
	uint64_t want = got;
	if (nan)
		fpref_format_nan_bits(f, negative, &want);
	if (want == got && invalid == ((flags & FPREF_FLAG_INVALID) != 0))
		return;
	char envtext[200], line[512];
	describe_env(c, envtext, sizeof envtext);
	snprintf(line, sizeof line,
		 "rule: %s %s(%llx, %llx, %llx) %s: %s gives %llx/%02x; the special-value rules want %llx%s", f->name,
		 fpref_op_name(op), (unsigned long long)in[0], (unsigned long long)in[1], (unsigned long long)in[2],
		 envtext, engine, (unsigned long long)got, flags, (unsigned long long)want,
		 invalid ? " with invalid" : " without invalid");
	mismatch(st, line);
}

void drv_compare_op(struct drv_stats *st, enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
		    const struct env_case *envs, size_t n)
{
	/* the unrounded result per (daz, rdn): the only parts of an
	 * environment the exact computation reads */
	struct fpref_ref_value v[4];
	unsigned op_flags[4];
	int status[4];
	bool done[4] = { false, false, false, false };
	bool rounds = op < FPREF_OP_MIN;
	for (size_t i = 0; i < n; i++) {
		const struct env_case *c = &envs[i];
		uint64_t want = 0, got = 0;
		unsigned want_flags = 0, got_flags = 0;
		int rr;
		if (rounds) {
			int k = (c->env.daz ? 2 : 0) + (c->env.rounding == FPREF_RDN);
			if (!done[k]) {
				fpref_ref_value_init(&v[k]);
				op_flags[k] = 0;
				status[k] = fpref_ref_op_unrounded(op, f, in, &c->env, &v[k], &op_flags[k]);
				done[k] = true;
			}
			rr = status[k];
			want_flags = op_flags[k];
			if (rr == 0)
				fpref_ref_round(&v[k], f, &c->env, c->R, &want, &want_flags, NULL);
		} else {
			rr = fpref_ref_op(op, f, in, &c->env, c->R, &want, &want_flags);
		}
		int re = fpref_emu_op(op, f, in, &c->env, c->R, &got, &got_flags);
		st->compared++;
		if (rr == re && want == got && want_flags == got_flags) {
			if (rr == 0)
				check_rule(st, op, f, in, c, "both engines", got, got_flags);
			continue;
		}
		char envtext[200], line[512];
		describe_env(c, envtext, sizeof envtext);
		snprintf(line, sizeof line, "%s %s(%llx, %llx, %llx) %s: oracle %llx/%02x (%d), emulator %llx/%02x (%d)",
			 f->name, fpref_op_name(op), (unsigned long long)in[0], (unsigned long long)in[1],
			 (unsigned long long)in[2], envtext, (unsigned long long)want, want_flags, rr,
			 (unsigned long long)got, got_flags, re);
		mismatch(st, line);
	}
	for (int k = 0; k < 4; k++)
		if (done[k])
			fpref_ref_value_clear(&v[k]);
}

void drv_report(const struct drv_stats *st, const char *what, const char *format_name)
{
	printf("driver: %s %s: %llu comparisons, %llu mismatches\n", what, format_name, st->compared, st->mismatches);
	fflush(stdout);
	ck_assert_msg(st->mismatches == 0, "%s %s: %llu of %llu differ; the first: %s", what, format_name,
		      st->mismatches, st->compared, st->first);
}
