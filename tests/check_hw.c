/* The MPFR oracle against an independent computation: the host's own
 * floating point.
 *
 *   - x86-64 SSE converts double to float in every IEEE mode, with tininess
 *     detected after rounding, and raises the IEEE flags in MXCSR.
 *   - GCC 12 lowers _Float16 conversions to libgcc's soft-fp routines, which
 *     read the SSE rounding mode and raise the SSE flags.  That is probed at
 *     run time (host_f16_probe), so a host that does not is compared in rne
 *     only, bits only, instead of failing for the wrong reason.
 *   - glibc's strtod/strtof round correctly in the current rounding mode.
 *
 * The oracle never goes through float or double, so agreement is evidence
 * for both sides.  Every comparison counts all mismatches and prints the
 * first few, so one failing run shows the pattern.  FPREF_EXHAUSTIVE=1
 * multiplies the random sweeps and adds a strided sweep over float32. */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define PRINT_LIMIT 20
#define TIMEOUT_S 300 /* per test case; the suite takes seconds, this only catches hangs */

/* Random cases per sweep, before the exhaustive multiplier. */
#define N_F64_F32 500000
#define N_F32_F16 200000
#define N_F64_F16 200000
#define N_DECIMAL 100000
#define N_NEAR_TIE 20000
#define EXHAUSTIVE_FACTOR 100
#define F32_SWEEP_STRIDE 257 /* prime, so the low bits of the patterns visited vary */

static bool exhaustive(void)
{
	const char *e = getenv("FPREF_EXHAUSTIVE");
	return e && strcmp(e, "1") == 0;
}

static long count(long n)
{
	return exhaustive() ? n * EXHAUSTIVE_FACTOR : n;
}

/* ---- deterministic random numbers (splitmix64) ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform enough below n: the modulo bias is 2^-40 at worst here. */
static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return rng_next(s) % n;
}

static uint64_t low_mask(int n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* ---- rounding modes and flags ---- */

struct mode {
	enum fpref_rounding rounding;
	int host;
	const char *name;
};

static const struct mode modes[] = {
	{ FPREF_RNE, FE_TONEAREST, "rne" },
	{ FPREF_RTZ, FE_TOWARDZERO, "rtz" },
	{ FPREF_RUP, FE_UPWARD, "rup" },
	{ FPREF_RDN, FE_DOWNWARD, "rdn" },
};
#define NMODES ((int)(sizeof modes / sizeof modes[0]))

/* What x86 does: IEEE overflow, no ftz/daz, tininess after rounding. */
static struct fpref_env env_for(const struct mode *m)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = m->rounding;
	env.overflow = FPREF_OVERFLOW_IEEE;
	env.tininess = FPREF_TININESS_AFTER;
	env.ftz = false;
	env.daz = false;
	return env;
}

static unsigned host_flags(void)
{
	int e = fetestexcept(FE_ALL_EXCEPT);
	unsigned f = 0;
	if (e & FE_INEXACT)
		f |= FPREF_FLAG_INEXACT;
	if (e & FE_UNDERFLOW)
		f |= FPREF_FLAG_UNDERFLOW;
	if (e & FE_OVERFLOW)
		f |= FPREF_FLAG_OVERFLOW;
	if (e & FE_DIVBYZERO)
		f |= FPREF_FLAG_INFINITE;
	if (e & FE_INVALID)
		f |= FPREF_FLAG_INVALID;
	return f;
}

static void host_enter(int mode)
{
	fesetround(mode);
	feclearexcept(FE_ALL_EXCEPT);
}

static unsigned host_leave(void)
{
	unsigned f = host_flags();
	fesetround(FE_TONEAREST);
	return f;
}

/* ---- host values as bits (memcpy: no arithmetic, so sNaN stays quiet) ---- */

static double d_from(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static uint64_t d_bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

static float f_from(uint64_t b)
{
	uint32_t w = (uint32_t)b;
	float f;
	memcpy(&f, &w, sizeof f);
	return f;
}

static uint64_t f_bits(float f)
{
	uint32_t w;
	memcpy(&w, &f, sizeof w);
	return w;
}

static _Float16 h_from(uint64_t b)
{
	uint16_t w = (uint16_t)b;
	_Float16 h;
	memcpy(&h, &w, sizeof h);
	return h;
}

static uint64_t h_bits(_Float16 h)
{
	uint16_t w;
	memcpy(&w, &h, sizeof w);
	return w;
}

/* ---- host conversions ----
 * Each loads its operand from a volatile object after setting the mode and
 * stores the result to one before reading the flags.  GCC (without
 * -frounding-math, and it ignores FENV_ACCESS) can then neither fold the
 * conversion at compile time nor move it across the fenv calls. */

typedef uint64_t host_conv_fn(uint64_t in, int mode, unsigned *flags);

static uint64_t host_f64_to_f32(uint64_t in, int mode, unsigned *flags)
{
	volatile double src = d_from(in);
	host_enter(mode);
	volatile float dst = (float)src;
	*flags = host_leave();
	return f_bits(dst);
}

static uint64_t host_f32_to_f16(uint64_t in, int mode, unsigned *flags)
{
	volatile float src = f_from(in);
	host_enter(mode);
	volatile _Float16 dst = (_Float16)src;
	*flags = host_leave();
	return h_bits(dst);
}

static uint64_t host_f64_to_f16(uint64_t in, int mode, unsigned *flags)
{
	volatile double src = d_from(in);
	host_enter(mode);
	volatile _Float16 dst = (_Float16)src;
	*flags = host_leave();
	return h_bits(dst);
}

static uint64_t host_f16_to_f32(uint64_t in, int mode, unsigned *flags)
{
	volatile _Float16 src = h_from(in);
	host_enter(mode);
	volatile float dst = (float)src;
	*flags = host_leave();
	return f_bits(dst);
}

static uint64_t host_f16_to_f64(uint64_t in, int mode, unsigned *flags)
{
	volatile _Float16 src = h_from(in);
	host_enter(mode);
	volatile double dst = (double)src;
	*flags = host_leave();
	return d_bits(dst);
}

static uint64_t host_f32_to_f64(uint64_t in, int mode, unsigned *flags)
{
	volatile float src = f_from(in);
	host_enter(mode);
	volatile double dst = (double)src;
	*flags = host_leave();
	return d_bits(dst);
}

/* Does the host's _Float16 conversion honour the rounding mode and raise
 * flags?  1 + 2^-11 lies halfway between 1 and the next float16: upward it
 * must become 0x3c01 and raise inexact. */
struct f16_support {
	bool modes;
	bool flags;
};

static struct f16_support host_f16_probe(void)
{
	unsigned up_flags, near_flags;
	uint64_t up = host_f32_to_f16(f_bits(1.0f + 0x1p-11f), FE_UPWARD, &up_flags);
	uint64_t near = host_f32_to_f16(f_bits(1.0f + 0x1p-11f), FE_TONEAREST, &near_flags);
	struct f16_support s = {
		.modes = up == 0x3c01 && near == 0x3c00,
		.flags = up_flags == FPREF_FLAG_INEXACT && near_flags == FPREF_FLAG_INEXACT,
	};
	if (!s.modes || !s.flags)
		fprintf(stderr, "note: host _Float16 conversion %s; comparing %s\n",
			s.modes ? "raises no flags" : "ignores the rounding mode",
			s.modes ? "bits only" : "rne bits only");
	return s;
}

/* ---- counting mismatches ---- */

struct tally {
	const char *what;
	long cases;
	long bad;
};

static void tally_mismatch(struct tally *t, const char *input, const char *mode, const char *to,
			   uint64_t host_bits, unsigned host_fl, uint64_t ref_bits, unsigned ref_fl)
{
	t->bad++;
	if (t->bad > PRINT_LIMIT)
		return;
	char hf[96], rf[96];
	fpref_flags_describe(host_fl, hf, sizeof hf);
	fpref_flags_describe(ref_fl, rf, sizeof rf);
	fprintf(stderr, "%s: in=%s mode=%s to=%s host=0x%llx [%s] fpref=0x%llx [%s]\n", t->what, input, mode, to,
		(unsigned long long)host_bits, hf, (unsigned long long)ref_bits, rf);
}

static void tally_finish(const struct tally *t)
{
	fprintf(stderr, "%s: %ld cases, %ld mismatches\n", t->what, t->cases, t->bad);
	ck_assert_msg(t->bad == 0, "%s: %ld of %ld cases disagree with the host (first %d on stderr)", t->what,
		      t->bad, t->cases, PRINT_LIMIT);
}

/* ---- conversions: host cast against fpref_ref_round ---- */

struct conv {
	const char *name;
	const char *from, *to;
	host_conv_fn *host;
	int nmodes;        /* 1: rne only (host ignores the mode) */
	bool flags;        /* false: the host raises no flags, compare bits */
};

struct conv_run {
	const struct conv *c;
	struct fpref_format from, to;
	struct fpref_ref_value v;
	struct tally tally;
};

static void conv_start(struct conv_run *r, const struct conv *c)
{
	r->c = c;
	r->from = test_format(c->from);
	r->to = test_format(c->to);
	fpref_ref_value_init(&r->v);
	r->tally = (struct tally){ c->name, 0, 0 };
}

static void conv_finish(struct conv_run *r)
{
	fpref_ref_value_clear(&r->v);
	tally_finish(&r->tally);
}

static bool is_nan(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) != FPREF_DECODE_INVALID && u.cls == FPREF_CLASS_NAN;
}

static unsigned sign_of(const struct fpref_format *f, uint64_t bits)
{
	return (unsigned)(bits >> (fpref_format_width(f) - 1)) & 1;
}

/* The host keeps NaN payloads where fpref returns the canonical quiet NaN:
 * for NaN only NaN-ness and the sign must agree. */
static bool results_agree(const struct fpref_format *f, uint64_t host, uint64_t ref)
{
	if (is_nan(f, host) || is_nan(f, ref))
		return is_nan(f, host) && is_nan(f, ref) && sign_of(f, host) == sign_of(f, ref);
	return host == ref;
}

static void conv_case(struct conv_run *r, uint64_t in)
{
	if (fpref_ref_from_bits(&r->from, in, false, &r->v) != 0)
		ck_abort_msg("%s: fpref rejects input 0x%llx", r->c->name, (unsigned long long)in);
	for (int i = 0; i < r->c->nmodes; i++) {
		struct fpref_env env = env_for(&modes[i]);
		unsigned host_fl = 0, ref_fl = 0;
		uint64_t host = r->c->host(in, modes[i].host, &host_fl);
		uint64_t ref = 0;
		fpref_ref_round(&r->v, &r->to, &env, 0, &ref, &ref_fl, NULL);
		if (!r->c->flags)
			host_fl = ref_fl;
		r->tally.cases++;
		if (!results_agree(&r->to, host, ref) || host_fl != ref_fl) {
			char input[24];
			snprintf(input, sizeof input, "0x%llx", (unsigned long long)in);
			tally_mismatch(&r->tally, input, modes[i].name, r->c->to, host, host_fl, ref, ref_fl);
		}
	}
}

/* The source pattern of a value given as an exact double. */
static uint64_t source_bits(const struct fpref_format *from, double v)
{
	if (from->exp_bits == 11)
		return d_bits(v);
	float f = (float)v;
	ck_assert_msg((double)f == v || isnan(v), "structured value %a is not a float", v);
	return f_bits(f);
}

/* The values where rounding to format t changes behaviour, as exact
 * doubles: around overflow, the normal/subnormal boundary, the least
 * subnormal and its half, subnormal and normal ties.  Writes at most 64. */
static size_t boundaries(const struct fpref_format *t, double *out)
{
	int p = fpref_format_precision(t);
	int emin = fpref_format_min_exponent(t), emax = fpref_format_max_exponent(t);
	double sub = ldexp(1, emin - p + 1); /* least subnormal */
	double normal = ldexp(1, emin);
	double max = ldexp(2 - ldexp(1, 1 - p), emax);
	double half_top_ulp = ldexp(1, emax - p);
	size_t n = 0;
	double fixed[] = {
		0, INFINITY, 1, 1 + ldexp(1, -p), 1 + 3 * ldexp(1, -p), 1 - ldexp(1, -p - 1), 2 - ldexp(1, -p),
		max, max + half_top_ulp, max - half_top_ulp, ldexp(1, emax + 1), ldexp(1, emax),
		ldexp(1, emax) + half_top_ulp / 2, ldexp(1, emax + 2),
		normal, normal - sub, normal - sub / 2, normal + sub / 2, normal + sub, normal - sub / 4,
		sub, sub / 2, sub / 4, 3 * sub / 4, 3 * sub / 2, 5 * sub / 2, 7 * sub / 2, sub * 1.25,
		normal / 2 + sub / 2, normal / 2 - sub / 2, 1023 * sub + sub / 2, ldexp(1, emin - p - 3),
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		out[n++] = fixed[i];
	for (int k = 0; k < 8; k++)
		out[n++] = (k + 0.5) * sub; /* subnormal ties, to even both ways */
	return n;
}

/* One structured value, its neighbours in the source format, both signs. */
static void conv_value_and_neighbours(struct conv_run *r, double v)
{
	uint64_t b = source_bits(&r->from, v);
	uint64_t sign = (uint64_t)1 << (fpref_format_width(&r->from) - 1);
	uint64_t inf = 0;
	fpref_format_inf_bits(&r->from, false, &inf);
	uint64_t around[3] = { b, b + 1, b - 1 };
	for (int i = 0; i < 3; i++) {
		if (around[i] > inf || (b == 0 && i == 2))
			continue; /* past inf is NaN, below +0 is -0's neighbour: covered elsewhere */
		conv_case(r, around[i]);
		conv_case(r, around[i] | sign);
	}
}

/* NaNs of the source format: quiet and signaling, payload in the top bit,
 * the lowest bit, everywhere, both signs. */
static void conv_nans(struct conv_run *r)
{
	int m = r->from.man_bits;
	uint64_t inf = 0, sign = (uint64_t)1 << (fpref_format_width(&r->from) - 1);
	fpref_format_inf_bits(&r->from, false, &inf);
	uint64_t quiet = (uint64_t)1 << (m - 1);
	uint64_t payloads[] = { quiet, quiet | 1, 1, quiet >> 1, low_mask(m), quiet - 1, (uint64_t)1 << (m / 2) };
	for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
		conv_case(r, inf | payloads[i]);
		conv_case(r, inf | payloads[i] | sign);
	}
}

static void conv_structured(struct conv_run *r)
{
	double v[64];
	size_t n = boundaries(&r->to, v);
	for (size_t i = 0; i < n; i++)
		conv_value_and_neighbours(r, v[i]);
	/* The source's own extremes: far beyond the target's range. */
	uint64_t sign = (uint64_t)1 << (fpref_format_width(&r->from) - 1);
	uint64_t extremes[] = { 1, fpref_format_max_bits(&r->from, false) };
	for (int i = 0; i < 2; i++) {
		conv_case(r, extremes[i]);
		conv_case(r, extremes[i] | sign);
	}
	conv_nans(r);
}

/* Low d bits of a significand: random, exact, a tie, just above or below
 * a tie, all ones.  Ties and near ties are what a wrong rounding misses. */
static uint64_t tail_pattern(uint64_t *s, int d, uint64_t random)
{
	uint64_t tie = (uint64_t)1 << (d - 1);
	switch (rng_below(s, 10)) {
	case 0: return 0;
	case 1: return tie;
	case 2: return tie + 1;
	case 3: return tie - 1;
	case 4: return low_mask(d);
	default: return random & low_mask(d);
	}
}

/* A source pattern whose exponent lies in the target's range (a few
 * binades beyond it both ways), or one time in 16 anywhere at all. */
static uint64_t random_source(uint64_t *s, const struct fpref_format *from, const struct fpref_format *to)
{
	int ms = from->man_bits, width = fpref_format_width(from);
	uint64_t sign = (rng_next(s) & 1) << (width - 1);
	if (rng_below(s, 16) == 0)
		return rng_next(s) & low_mask(width);
	int least = fpref_format_min_exponent(to) - to->man_bits; /* exponent of the least subnormal */
	int lo = least - 3, hi = fpref_format_max_exponent(to) + 3;
	int e = lo + (int)rng_below(s, (uint64_t)(hi - lo + 1));
	int ulp = e - to->man_bits > least ? e - to->man_bits : least;
	int d = ulp - (e - ms); /* source significand bits below the target's last place */
	uint64_t man = rng_next(s) & low_mask(ms);
	if (rng_below(s, 8) == 0)
		man |= low_mask(ms); /* kept bits all ones: rounding up carries into the next binade */
	if (d >= 1 && d <= ms)
		man = (man & ~low_mask(d)) | tail_pattern(s, d, man);
	else if (d == ms + 1 && rng_below(s, 2) == 0)
		man = rng_below(s, 2); /* half the least subnormal, or just above it */
	return sign | ((uint64_t)(e + from->bias) << ms) | man;
}

static void conv_random(struct conv_run *r, long n, uint64_t seed)
{
	uint64_t s = seed;
	for (long i = 0; i < n; i++)
		conv_case(r, random_source(&s, &r->from, &r->to));
}

static void conv_sweep(const struct conv *c, long n_random, uint64_t seed)
{
	struct conv_run r;
	conv_start(&r, c);
	conv_structured(&r);
	conv_random(&r, n_random, seed);
	conv_finish(&r);
}

START_TEST(f64_to_f32)
{
	struct conv c = { "float64->float32", "float64", "float32", host_f64_to_f32, NMODES, true };
	conv_sweep(&c, count(N_F64_F32), 0x6466343266333201u);
}
END_TEST

static struct conv f16_conv(const char *name, const char *from, host_conv_fn *host)
{
	struct f16_support s = host_f16_probe();
	return (struct conv){ name, from, "float16", host, s.modes ? NMODES : 1, s.flags };
}

START_TEST(f32_to_f16)
{
	struct conv c = f16_conv("float32->float16", "float32", host_f32_to_f16);
	conv_sweep(&c, count(N_F32_F16), 0x6633326631360001u);
}
END_TEST

START_TEST(f64_to_f16)
{
	struct conv c = f16_conv("float64->float16", "float64", host_f64_to_f16);
	conv_sweep(&c, count(N_F64_F16), 0x6636346631360001u);
}
END_TEST

/* Exhaustive only: every stride-th float32 pattern to float16, so every
 * sign and exponent is visited with many mantissas, not only the target's
 * range. */
START_TEST(f32_to_f16_strided)
{
	struct conv c = f16_conv("float32->float16 (strided)", "float32", host_f32_to_f16);
	struct conv_run r;
	conv_start(&r, &c);
	for (uint64_t b = 0; b <= 0xffffffffu; b += F32_SWEEP_STRIDE)
		conv_case(&r, b);
	conv_finish(&r);
}
END_TEST

/* Widening is exact: every float16 in every mode, no flags but invalid for
 * a signaling NaN. */
static void f16_widening(const char *name, const char *to, host_conv_fn *host)
{
	struct conv c = { name, "float16", to, host, NMODES, host_f16_probe().flags };
	struct conv_run r;
	conv_start(&r, &c);
	for (uint64_t b = 0; b <= 0xffff; b++)
		conv_case(&r, b);
	conv_finish(&r);
}

START_TEST(f16_to_f32)
{
	f16_widening("float16->float32", "float32", host_f16_to_f32);
}
END_TEST

START_TEST(f16_to_f64)
{
	f16_widening("float16->float64", "float64", host_f16_to_f64);
}
END_TEST

/* ---- decoding: fpref_ref_from_bits against the host's value ---- */

/* The host's value of a pattern as a double, and whether widening it
 * raised invalid (the host's own verdict on "signaling"). */
typedef double host_decode_fn(uint64_t bits, bool *signaling);

static double host_decode_f16(uint64_t bits, bool *signaling)
{
	unsigned fl;
	double d = d_from(host_f16_to_f64(bits, FE_TONEAREST, &fl));
	*signaling = (fl & FPREF_FLAG_INVALID) != 0;
	return d;
}

/* bfloat16 is the top half of a float32. */
static double host_decode_bf16(uint64_t bits, bool *signaling)
{
	unsigned fl;
	double d = d_from(host_f32_to_f64(bits << 16, FE_TONEAREST, &fl));
	*signaling = (fl & FPREF_FLAG_INVALID) != 0;
	return d;
}

static bool decode_agrees(const struct fpref_ref_value *v, double host, bool host_signaling)
{
	if (isnan(host) || mpfr_nan_p(v->x))
		return isnan(host) && mpfr_nan_p(v->x) && !signbit(host) == !mpfr_signbit(v->x) &&
		       host_signaling == v->signaling;
	return mpfr_cmp_d(v->x, host) == 0 && !signbit(host) == !mpfr_signbit(v->x) && !v->inexact &&
	       !host_signaling;
}

static void decode_all(const char *name, host_decode_fn *host)
{
	struct fpref_format f = test_format(name);
	struct fpref_ref_value v;
	struct tally t = { name, 0, 0 };
	fpref_ref_value_init(&v);
	for (uint64_t b = 0; b <= 0xffff; b++) {
		bool host_signaling;
		double h = host(b, &host_signaling);
		t.cases++;
		if (fpref_ref_from_bits(&f, b, false, &v) != 0 || !decode_agrees(&v, h, host_signaling)) {
			char input[24], got[48];
			snprintf(input, sizeof input, "0x%04llx", (unsigned long long)b);
			mpfr_snprintf(got, sizeof got, "%Ra%s", v.x, v.signaling ? " (signaling)" : "");
			t.bad++;
			if (t.bad <= PRINT_LIMIT)
				fprintf(stderr, "decode %s: in=%s host=%a%s fpref=%s\n", name, input, h,
					host_signaling ? " (signaling)" : "", got);
		}
	}
	fpref_ref_value_clear(&v);
	tally_finish(&t);
}

START_TEST(decode_f16)
{
	decode_all("float16", host_decode_f16);
}
END_TEST

START_TEST(decode_bf16)
{
	decode_all("bfloat16", host_decode_bf16);
}
END_TEST

/* ---- parsing: fpref_ref_parse + fpref_ref_round against strtod/strtof ---- */

struct parse_run {
	struct fpref_format f64, f32;
	struct fpref_ref_value v;
	struct tally tally;
};

static void parse_start(struct parse_run *p, const char *what)
{
	p->f64 = test_format("float64");
	p->f32 = test_format("float32");
	fpref_ref_value_init(&p->v);
	p->tally = (struct tally){ what, 0, 0 };
}

static void parse_finish(struct parse_run *p)
{
	fpref_ref_value_clear(&p->v);
	tally_finish(&p->tally);
}

static void parse_compare(struct parse_run *p, const char *text, const struct mode *m, const struct fpref_format *f,
			  uint64_t host)
{
	struct fpref_env env = env_for(m);
	uint64_t ref = 0;
	unsigned ref_fl = 0;
	fpref_ref_round(&p->v, f, &env, 0, &ref, &ref_fl, NULL);
	p->tally.cases++;
	/* Bits only: glibc does not promise strtod's flags. */
	if (host != ref)
		tally_mismatch(&p->tally, text, m->name, f->name, host, 0, ref, 0);
}

static void parse_case(struct parse_run *p, const char *text)
{
	char err[256];
	if (fpref_ref_parse(text, &p->v, err, sizeof err) != 0)
		ck_abort_msg("fpref_ref_parse: %s", err);
	for (int i = 0; i < NMODES; i++) {
		fesetround(modes[i].host);
		double d = strtod(text, NULL);
		float f = strtof(text, NULL);
		fesetround(FE_TONEAREST);
		parse_compare(p, text, &modes[i], &p->f64, d_bits(d));
		parse_compare(p, text, &modes[i], &p->f32, f_bits(f));
	}
}

/* A random decimal of 1 to 40 significant digits about 10^e10, with the
 * point anywhere among the digits ("0.0123e-5", "12.5e3", "125e2"). */
static void random_decimal(uint64_t *s, int lo10, int hi10, char *buf, size_t len)
{
	char digits[41];
	int nd = 1 + (int)rng_below(s, 40);
	digits[0] = (char)('1' + rng_below(s, 9));
	for (int i = 1; i < nd; i++)
		digits[i] = (char)('0' + rng_below(s, 10));
	digits[nd] = '\0';
	int e10 = lo10 + (int)rng_below(s, (uint64_t)(hi10 - lo10 + 1));
	int point = (int)rng_below(s, (uint64_t)nd + 1); /* digits before the point */
	const char *sign = rng_below(s, 2) ? "-" : "";
	if (point == 0)
		snprintf(buf, len, "%s0.%se%d", sign, digits, e10 + 1);
	else if (point == nd)
		snprintf(buf, len, "%s%se%d", sign, digits, e10 - nd + 1);
	else
		snprintf(buf, len, "%s%.*s.%se%d", sign, point, digits, digits + point, e10 - point + 1);
}

/* "[-]DIGITSeE" for the integer m times 10^e10. */
static char *decimal_string(bool negative, mpz_srcptr m, long e10)
{
	char *digits = mpz_get_str(NULL, 10, m);
	size_t len = strlen(digits) + 32;
	char *out = malloc(len);
	ck_assert_ptr_nonnull(out);
	snprintf(out, len, "%s%se%ld", negative ? "-" : "", digits, e10);
	void (*free_fn)(void *, size_t);
	mp_get_memory_functions(NULL, NULL, &free_fn);
	free_fn(digits, strlen(digits) + 1);
	return out;
}

/* The midpoint above the finite positive pattern b of f, exactly in
 * decimal: b's value is m * 2^e, the midpoint (2m + 1) * 2^(e - 1), and
 * k * 2^-n = k * 5^n * 10^-n. */
static void exact_midpoint(const struct fpref_format *f, uint64_t b, mpz_ptr m, long *e10)
{
	struct fpref_unpacked u;
	fpref_decode(f, b, &u);
	mpz_set_ui(m, (unsigned long)(u.significand >> 32));
	mpz_mul_2exp(m, m, 32);
	mpz_add_ui(m, m, (unsigned long)(u.significand & 0xffffffffu));
	long e = u.cls == FPREF_CLASS_ZERO ? fpref_format_min_exponent(f) - f->man_bits : u.exponent;
	mpz_mul_2exp(m, m, 1);
	mpz_add_ui(m, m, 1);
	e -= 1;
	*e10 = 0;
	if (e >= 0) {
		mpz_mul_2exp(m, m, (mp_bitcnt_t)e);
		return;
	}
	mpz_t five;
	mpz_init(five);
	mpz_ui_pow_ui(five, 5, (unsigned long)-e);
	mpz_mul(m, m, five);
	mpz_clear(five);
	*e10 = e;
}

/* The exact midpoint, and it cut to n significant digits (below it) and
 * that plus one unit in the last digit (above it). */
static void midpoint_strings(struct parse_run *p, const struct fpref_format *f, uint64_t b, bool negative, int n)
{
	mpz_t m, cut, ten;
	long e10;
	mpz_inits(m, cut, ten, (mpz_ptr)0);
	exact_midpoint(f, b, m, &e10);
	char *text = decimal_string(negative, m, e10);
	parse_case(p, text);
	free(text);
	size_t len = mpz_sizeinbase(m, 10); /* exact or one more */
	if (len > (size_t)n + 1) {
		size_t drop = len - (size_t)n;
		mpz_ui_pow_ui(ten, 10, drop);
		mpz_tdiv_q(cut, m, ten);
		text = decimal_string(negative, cut, e10 + (long)drop);
		parse_case(p, text);
		free(text);
		mpz_add_ui(cut, cut, 1);
		text = decimal_string(negative, cut, e10 + (long)drop);
		parse_case(p, text);
		free(text);
	}
	mpz_clears(m, cut, ten, (mpz_ptr)0);
}

/* A random finite positive pattern of f, any exponent, subnormals included. */
static uint64_t random_finite(uint64_t *s, const struct fpref_format *f)
{
	uint64_t field = rng_below(s, low_mask(f->exp_bits)); /* never all ones */
	return (field << f->man_bits) | (rng_next(s) & low_mask(f->man_bits));
}

static void parse_ties(struct parse_run *p, const struct fpref_format *f, long n, uint64_t seed)
{
	uint64_t s = seed;
	/* The midpoints that decide overflow, flush to zero and the normal boundary. */
	uint64_t fixed[] = { 0, 1, low_mask(f->man_bits), fpref_format_max_bits(f, false) };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		for (int neg = 0; neg < 2; neg++)
			midpoint_strings(p, f, fixed[i], neg, f->man_bits > 30 ? 17 : 9);
	for (long i = 0; i < n; i++) {
		int digits = (f->man_bits > 30 ? 16 : 8) + (int)rng_below(&s, 25);
		midpoint_strings(p, f, random_finite(&s, f), rng_below(&s, 2), digits);
	}
}

START_TEST(parse_random)
{
	struct parse_run p;
	parse_start(&p, "parse random decimals");
	uint64_t s = 0x7061727365000001u;
	char buf[96];
	const char *fixed[] = { "0", "-0", "1", "0.1", "1e400", "-1e400", "1e-400", "-1e-400", "123456789e-333" };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		parse_case(&p, fixed[i]);
	long n = count(N_DECIMAL);
	for (long i = 0; i < n; i++) {
		/* Alternately the float64 range and the float32 range, each a little beyond both ends. */
		if (i % 2 == 0)
			random_decimal(&s, -345, 310, buf, sizeof buf);
		else
			random_decimal(&s, -48, 40, buf, sizeof buf);
		parse_case(&p, buf);
	}
	parse_finish(&p);
}
END_TEST

START_TEST(parse_near_ties)
{
	struct parse_run p;
	parse_start(&p, "parse exact and near ties");
	parse_ties(&p, &p.f64, count(N_NEAR_TIE), 0x7469657336340001u);
	parse_ties(&p, &p.f32, count(N_NEAR_TIE), 0x7469657333320001u);
	parse_finish(&p);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);
	/* Check's default of 4 s is too short for these sweeps; a timeout set in
	 * the environment (make check-exhaustive: none) wins. */
	if (!getenv("CK_DEFAULT_TIMEOUT"))
		tcase_set_timeout(tc, exhaustive() ? TIMEOUT_S * EXHAUSTIVE_FACTOR : TIMEOUT_S);
	tcase_add_test(tc, test);
	return tc;
}

static Suite *hw_suite(void)
{
	Suite *s = suite_create("hw");
	suite_add_tcase(s, tcase("f64_to_f32", f64_to_f32));
	suite_add_tcase(s, tcase("f32_to_f16", f32_to_f16));
	suite_add_tcase(s, tcase("f64_to_f16", f64_to_f16));
	suite_add_tcase(s, tcase("f16_to_f32", f16_to_f32));
	suite_add_tcase(s, tcase("f16_to_f64", f16_to_f64));
	suite_add_tcase(s, tcase("decode_f16", decode_f16));
	suite_add_tcase(s, tcase("decode_bf16", decode_bf16));
	suite_add_tcase(s, tcase("parse_random", parse_random));
	suite_add_tcase(s, tcase("parse_near_ties", parse_near_ties));
	if (exhaustive())
		suite_add_tcase(s, tcase("f32_to_f16_strided", f32_to_f16_strided));
	return s;
}

int main(void)
{
	return test_run(hw_suite());
}
