/* The IEEE P3109 family: names by rule, decoding against the interim
 * report's definition written out here, emulator = MPFR oracle on every
 * conversion into and out of every format of K <= 8 bits under every
 * projection specification, and cases worked by hand from the report's
 * definitions. */
#include <math.h>

#include "testutil.h"

/* The formats of K <= 8 bits: K 3..8, signed P 1..K-1, unsigned P 1..K,
 * each extended and finite (120 formats). */
#define MAX_FORMATS 128
static size_t p3109_formats(struct fpref_format *out)
{
	size_t n = 0;
	char name[32];
	for (int k = 3; k <= 8; k++)
		for (int u = 0; u < 2; u++)
			for (int p = 1; p <= (u ? k : k - 1); p++)
				for (int d = 0; d < 2; d++) {
					snprintf(name, sizeof name, "binary%dp%d%c%c", k, p, u ? 'u' : 's', d ? 'f' : 'e');
					out[n++] = test_format(name);
				}
	return n;
}

/* The interim report's decoding, written from its definition and not
 * from fpref's codec: the value of code c of Binary{K,P,Σ,Δ} as a double
 * (exact for K <= 8). */
static double report_value(int k, int p, bool is_signed, bool extended, unsigned c)
{
	unsigned half = 1u << (k - 1), all = (1u << k) - 1;
	if (is_signed && c == half)
		return NAN;
	if (!is_signed && c == all)
		return NAN;
	if (extended && is_signed && (c == half - 1 || c == all))
		return c == all ? -INFINITY : INFINITY;
	if (extended && !is_signed && c == all - 1)
		return INFINITY;
	bool negative = is_signed && c >= half;
	unsigned mag = is_signed ? c & (half - 1) : c;
	int w = is_signed ? k - p : k - p + 1; /* exponent bits */
	int bias = 1 << (w - 1);
	unsigned t = mag & ((1u << (p - 1)) - 1), e = mag >> (p - 1);
	double v = e == 0 ? ldexp(t, 1 - bias - (p - 1)) : ldexp((1u << (p - 1)) + t, (int)e - bias - (p - 1));
	return negative ? -v : v;
}

START_TEST(names_by_rule)
{
	struct fpref_format f = test_format("binary8p4se"), g;
	ck_assert_int_eq(f.exp_bits, 4);
	ck_assert_int_eq(f.man_bits, 3);
	ck_assert_int_eq(f.bias, 8);
	ck_assert(f.inf_at_top && f.is_signed && f.specials == FPREF_SPECIALS_FNUZ);
	/* the report's capitalised spelling, and the family's corners */
	ck_assert_str_eq(test_format("Binary8p3sf").name, "binary8p3sf");
	ck_assert_int_eq(test_format("binary16p1ue").exp_bits, 16);
	ck_assert_int_eq(test_format("binary3p3uf").exp_bits, 1);
	char err[256];
	ck_assert_int_eq(fpref_format_parse("binary8p8se", &g, err, sizeof err), -1); /* signed P <= K-1 */
	ck_assert_msg(strstr(err, "binary8p8se") != NULL, "%s", err);
	ck_assert_int_eq(fpref_format_parse("binary17p3se", &g, err, sizeof err), -1);
	ck_assert_int_eq(fpref_format_parse("binary2p1ue", &g, err, sizeof err), -1);
	ck_assert_int_eq(fpref_format_parse("binary8p4sx", &g, err, sizeof err), -1); /* not the family: unknown */
	ck_assert_msg(strstr(err, "unknown format") != NULL, "%s", err);
	/* every name of the family parses: 3 <= K <= 16 */
	size_t count = 0;
	for (int k = 3; k <= 16; k++)
		for (int p = 1; p <= k; p++)
			for (int s = 0; s < 4; s++) {
				char name[32];
				snprintf(name, sizeof name, "binary%dp%d%s", k, p, (const char *[]){ "se", "sf", "ue", "uf" }[s]);
				bool want = s >= 2 || p <= k - 1;
				ck_assert_msg((fpref_format_parse(name, &g, err, sizeof err) == 0) == want, "%s", name);
				count += want;
			}
	ck_assert_uint_eq(count, 504); /* the sum over K of 2(K-1) signed and 2K unsigned */
}
END_TEST

/* Every code of every K <= 8 format: the report's value, through fpref's
 * decoder and through both engines' conversion to float64 (exact). */
START_TEST(decode_every_code)
{
	struct fpref_format fs[MAX_FORMATS];
	size_t n = p3109_formats(fs);
	ck_assert_uint_eq(n, 120);
	struct fpref_format f64 = test_format("float64");
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t i = 0; i < n; i++) {
		const struct fpref_format *f = &fs[i];
		int k = fpref_format_width(f), p = f->man_bits + 1;
		for (unsigned c = 0; c < (1u << k); c++) {
			double want = report_value(k, p, f->is_signed, f->inf_at_top, c);
			uint64_t e = 0, r = 0;
			unsigned ef = 0, rf = 0;
			ck_assert_int_eq(fpref_emu_convert(f, c, &f64, &env, 0, &e, &ef), 0);
			ck_assert_int_eq(fpref_ref_convert(f, c, &f64, &env, 0, &r, &rf), 0);
			double got;
			memcpy(&got, &e, sizeof got);
			ck_assert_msg(e == r && ef == rf, "%s %02X: emu %016llX, ref %016llX", f->name, c,
				      (unsigned long long)e, (unsigned long long)r);
			ck_assert_msg(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want),
				      "%s %02X: %a, the report gives %a", f->name, c, got, want);
		}
	}
	/* Binary{8,4,s,f} and Binary{8,3,s,f} are the FNUZ FP8 formats */
	const char *same[][2] = { { "binary8p4sf", "float8_e4m3fnuz" }, { "binary8p3sf", "float8_e5m2fnuz" } };
	for (int j = 0; j < 2; j++) {
		struct fpref_format a = test_format(same[j][0]), b = test_format(same[j][1]);
		for (unsigned c = 0; c < 256; c++) {
			struct fpref_unpacked ua, ub;
			fpref_decode(&a, c, &ua);
			fpref_decode(&b, c, &ub);
			ck_assert(ua.cls == ub.cls && ua.negative == ub.negative && ua.significand == ub.significand &&
				  ua.exponent == ub.exponent);
		}
	}
}
END_TEST

/* The projection specifications: six roundings and three stochastic rules,
 * each with the three saturation modes (27).  Stochastic ones draw their
 * width N and random bits R per case. */
#define NSPECS 27
static struct fpref_env spec_env(int s)
{
	static const char *const rounds[] = { "rne", "rna", "rup", "rdn", "rtz", "rod", "sra", "srb", "src" };
	static const char *const sats[] = { "satfinite", "satpropagate", "satnone" };
	struct fpref_env env;
	fpref_env_default(&env);
	ck_assert(fpref_env_parse_rounding(rounds[s / 3], &env) == 0);
	ck_assert(fpref_env_parse_overflow(sats[s % 3], &env) == 0);
	return env;
}

static uint64_t mix(uint64_t z)
{
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static unsigned long mismatches;

static void compare(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
		    struct fpref_env *env, uint64_t key)
{
	uint64_t R = 0;
	if (env->rounding == FPREF_SR) {
		uint64_t h = mix(key);
		env->sr_width = 1 + (unsigned)(h % 16);
		R = (h >> 8) & ((UINT64_C(1) << env->sr_width) - 1);
	}
	uint64_t e = 0, r = 0;
	unsigned ef = 0, rf = 0;
	int er = fpref_emu_convert(from, bits, to, env, R, &e, &ef);
	int rr = fpref_ref_convert(from, bits, to, env, R, &r, &rf);
	if (er != rr || e != r || ef != rf) {
		if (mismatches++ < 10) {
			char text[256];
			fpref_env_describe(env, text, sizeof text);
			fprintf(stderr, "%s %llX -> %s [%s R=%llX]: emu %llX/%02X ref %llX/%02X\n", from->name,
				(unsigned long long)bits, to->name, text, (unsigned long long)R, (unsigned long long)e, ef,
				(unsigned long long)r, rf);
		}
	}
}

/* Which specifications a (source, target) pair is swept under: three,
 * rotating with the pair so that every specification meets every source
 * and a third of the targets, and every target meets nine specifications
 * over the sources.  All of them, with every random width, are the
 * campaign golden/sweeps/p3109-k8 (make check-exhaustive); here each
 * stochastic case draws its width. */
static bool spec_chosen(size_t pair, int s)
{
	return (size_t)s % 9 == pair % 9;
}

static const char *const sources16[] = { "float16", "bfloat16" };

START_TEST(from_16_bit_exhaustive)
{
	struct fpref_format fs[MAX_FORMATS];
	size_t n = p3109_formats(fs);
	struct fpref_format from = test_format(sources16[_i]);
	unsigned stride = test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	for (size_t t = 0; t < n; t++)
		for (int s = 0; s < NSPECS; s++) {
			if (!spec_chosen(t, s))
				continue;
			struct fpref_env env = spec_env(s);
			for (uint64_t b = 0; b < 65536; b++) {
				uint64_t key = ((((uint64_t)_i << 8 | t) << 8 | (uint64_t)s) << 16) | b;
				if (!test_sample_keep(stride, key))
					continue;
				compare(&from, b, &fs[t], &env, key);
				cases++;
			}
		}
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu conversions differ", from.name, mismatches, cases);
}
END_TEST

/* FP32 into every format: near every grid point of the target (the point,
 * one FP32 step either side, the midpoint to the next and a step either
 * side of it), both signs, the specials, and random patterns. */
START_TEST(from_float32_structured)
{
	struct fpref_format fs[MAX_FORMATS];
	size_t n = p3109_formats(fs);
	struct fpref_format f32 = test_format("float32");
	unsigned stride = test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	uint32_t inputs[256 * 10 + 600];
	for (size_t t = 0; t < n; t++) {
		const struct fpref_format *to = &fs[t];
		size_t m = 0;
		struct fpref_env plain;
		fpref_env_default(&plain);
		unsigned codes = 1u << fpref_format_width(to);
		unsigned limit = to->is_signed ? codes / 2 : codes; /* the negative half by the sign below */
		for (unsigned c = 0; c < limit; c++) {
			uint64_t a = 0, b = 0;
			unsigned fl = 0;
			fpref_ref_convert(to, c, &f32, &plain, 0, &a, &fl);
			fpref_ref_convert(to, c + 1 < codes ? c + 1 : c, &f32, &plain, 0, &b, &fl);
			float fa, fb;
			uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
			memcpy(&fa, &ua, 4);
			memcpy(&fb, &ub, 4);
			if (!isfinite(fa))
				continue;
			/* the next grid point past the top finite one: as far again */
			if (!isfinite(fb) || fb <= fa)
				fb = fa + (fa - (c ? fa / 2 : 0));
			float mid = fa / 2 + fb / 2;
			uint32_t um;
			memcpy(&um, &mid, 4);
			uint32_t cand[] = { ua, ua + 1, ua - 1, um, um + 1, um - 1 };
			for (size_t j = 0; j < 6; j++) {
				inputs[m++] = cand[j];
				inputs[m++] = cand[j] | 0x80000000u;
			}
			if (m > 256 * 10)
				break;
		}
		uint32_t specials[] = { 0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F7FFFFFu, 1 };
		for (size_t j = 0; j < 8; j++)
			inputs[m++] = specials[j];
		for (size_t j = 0; j < 400; j++)
			inputs[m++] = (uint32_t)mix(t << 20 | j);
		for (int s = 0; s < NSPECS; s++) {
			struct fpref_env env = spec_env(s);
			for (size_t j = 0; j < m; j++) {
				uint64_t key = ((uint64_t)t << 40) | ((uint64_t)s << 32) | j;
				if (!test_sample_keep(stride, key))
					continue;
				compare(&f32, inputs[j], to, &env, key);
				cases++;
			}
		}
	}
	ck_assert_msg(mismatches == 0, "%lu of %lu conversions differ", mismatches, cases);
}
END_TEST

/* Every code of every K <= 8 format into every other one and into every
 * catalogue format (P3109 out to the rest, and the FP8 and smaller formats
 * in), under rotating specifications. */
START_TEST(between_formats)
{
	struct fpref_format fs[MAX_FORMATS + 32];
	size_t n = p3109_formats(fs), all = n;
	for (size_t i = 0; i < fpref_format_count(); i++)
		fs[all++] = *fpref_format_at(i);
	unsigned stride = test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	for (size_t a = 0; a < all; a++)
		for (size_t b = 0; b < all; b++) {
			if ((a >= n && b >= n) || fpref_format_container_bits(&fs[a]) > 8)
				continue; /* pairs without a P3109 side are check_emu's; wide sources are swept above */
			for (int s = 0; s < NSPECS; s++) {
				if (!spec_chosen(a * all + b, s))
					continue;
				struct fpref_env env = spec_env(s);
				for (uint64_t c = 0; c < (UINT64_C(1) << fpref_format_container_bits(&fs[a])); c++) {
					uint64_t key = (((uint64_t)a << 8 | b) << 8 | (uint64_t)s) << 8 | c;
					if (!test_sample_keep(stride, key))
						continue;
					compare(&fs[a], c, &fs[b], &env, key);
					cases++;
				}
			}
		}
	ck_assert_msg(mismatches == 0, "%lu of %lu conversions differ", mismatches, cases);
}
END_TEST

/* Cases worked by hand from the report's definitions: round to precision P
 * on the unbounded-exponent grid first, then saturate. */
struct hand_case {
	const char *to, *round, *sat;
	uint32_t f32;     /* the input, FP32 */
	unsigned width;   /* stochastic: N */
	uint64_t R;
	uint64_t want;
	const char *why;
};

static const struct hand_case hand[] = {
	/* binary8p4se: 3 fraction bits, bias 8.  Max finite 0x7E = 1.110b 2^7 = 224;
	 * the next point of the P = 4 grid is 1.111b 2^7 = 240, whose code 0x7F is +inf. */
	{ "binary8p4se", "rne", "satfinite", 0x436B0000u /* 235 */, 0, 0, 0x7E,
	  "235 is nearer 240 than 224 (midpoint 232): rounds to 240, above max, SatFinite clamps" },
	{ "binary8p4se", "rne", "satpropagate", 0x436B0000u, 0, 0, 0x7E, "a finite input clamps under SatPropagate" },
	{ "binary8p4se", "rne", "satnone", 0x436B0000u, 0, 0, 0x7F, "SatNone: 240 > 224 overflows to +inf" },
	{ "binary8p4se", "rne", "satnone", 0x43680000u /* 232 */, 0, 0, 0x7E,
	  "232 is the midpoint of 224 (1.110) and 240 (1.111): ties to the even 224" },
	{ "binary8p4se", "rna", "satnone", 0x43680000u, 0, 0, 0x7F, "ties away: 240, +inf under SatNone" },
	{ "binary8p4se", "rtz", "satnone", 0x447A0000u /* 1000 */, 0, 0, 0x7E,
	  "toward zero points back into range: max finite under SatNone" },
	{ "binary8p4se", "rdn", "satnone", 0xC47A0000u /* -1000 */, 0, 0, 0xFF, "toward -inf: -1000 goes to -inf (0xFF)" },
	{ "binary8p4se", "rup", "satnone", 0xC47A0000u, 0, 0, 0xFE, "toward +inf: -1000 stays at -224 (0xFE)" },
	{ "binary8p4se", "rne", "satfinite", 0x7F800000u /* +inf */, 0, 0, 0x7E, "SatFinite clamps inf too" },
	{ "binary8p4se", "rne", "satpropagate", 0xFF800000u, 0, 0, 0xFF, "SatPropagate keeps -inf" },
	{ "binary8p4sf", "rne", "satfinite", 0x7F800000u, 0, 0, 0x7F, "finite format: max 0x7F = 1.111b 2^7 = 240" },
	{ "binary8p4sf", "rne", "satnone", 0x7F800000u, 0, 0, 0x80, "finite format, SatNone: inf is NaN (0x80)" },
	{ "binary8p4se", "rne", "satnone", 0x80000000u /* -0 */, 0, 0, 0x00, "one zero: -0 is 0x00" },
	{ "binary8p4se", "rne", "satnone", 0x3A800000u /* 2^-10 */, 0, 0, 0x01,
	  "least subnormal 2^(1-8) 2^-3 = 2^-10 is code 1" },
	/* ToOdd: truncate to P bits, set the last bit when inexact */
	{ "binary8p4se", "rod", "satnone", 0x43610000u /* 225 */, 0, 0, 0x7F,
	  "225 truncates to 224 (1.110, even) and is inexact: 1.111 = 240, above max: +inf" },
	{ "binary8p4se", "rod", "satfinite", 0x43610000u, 0, 0, 0x7E, "the same, clamped" },
	{ "binary8p4se", "rod", "satnone", 0x43960000u /* 300 */, 0, 0, 0x7F,
	  "300 = 1.0010110b 2^8 truncates to 1.001b 2^8 = 288, odd already: above max, +inf" },
	/* binary8p4ue: 5 exponent bits, bias 16; max 0xFD = 1.101b 2^15 = 53248, +inf 0xFE, NaN 0xFF */
	{ "binary8p4ue", "rod", "satnone", 0x476A6000u /* 60000 */, 0, 0, 0xFD,
	  "unsigned extended ToOdd overflow clamps under SatNone (the report's row)" },
	{ "binary8p4ue", "rne", "satnone", 0x476A6000u, 0, 0, 0xFE, "nearest: 60000 rounds to 61440, +inf" },
	{ "binary8p4ue", "rod", "satnone", 0x4753E800u /* 54248 */, 0, 0, 0xFD,
	  "54248 truncates to 53248 = 1.101b 2^15, odd: in range" },
	/* negative values into an unsigned format */
	{ "binary8p4ue", "rne", "satfinite", 0xBF800000u /* -1 */, 0, 0, 0x00, "SatFinite: below M^lo = 0 clamps to 0" },
	{ "binary8p4ue", "rne", "satpropagate", 0xFF800000u /* -inf */, 0, 0, 0x00, "SatPropagate: -inf has no code: 0" },
	{ "binary8p4ue", "rne", "satnone", 0xBF800000u, 0, 0, 0xFF, "SatNone: -1 is NaN" },
	{ "binary8p4ue", "rtz", "satnone", 0xBF800000u, 0, 0, 0x00, "SatNone toward zero points back: 0" },
	{ "binary8p4ue", "rup", "satnone", 0xBF800000u, 0, 0, 0x00, "SatNone toward +inf points back: 0" },
	{ "binary8p4ue", "rdn", "satnone", 0xBF800000u, 0, 0, 0xFF, "SatNone toward -inf: NaN" },
	{ "binary8p4ue", "rne", "satnone", 0xB0800000u /* -2^-30 */, 0, 0, 0x00,
	  "-2^-30 rounds to zero (least subnormal 2^-18) before saturation: 0" },
	{ "binary8p4ue", "rdn", "satnone", 0xB0800000u, 0, 0, 0xFF, "toward -inf it is -2^-18 first: NaN" },
	{ "binary8p4ue", "rtz", "satnone", 0xFF800000u, 0, 0, 0xFF, "-inf under SatNone is NaN whatever the rounding" },
	/* Stochastic rules on binary8p3se (2 fraction bits, bias 16): 1.0 is 0x40, 1.25 is
	 * 0x41, and x = 1 + ν/4 has discarded fraction ν.  N = 2 random bits. */
	{ "binary8p3se", "sra", "satnone", 0x3F960000u /* ν = 11/16 */, 2, 1, 0x40, "A: floor(2.75) + 1 = 3 < 4: down" },
	{ "binary8p3se", "sra", "satnone", 0x3F960000u, 2, 2, 0x41, "A: 2 + 2 = 4: away" },
	{ "binary8p3se", "srb", "satnone", 0x3F960000u, 2, 0, 0x40, "B: floor(5.5) + 0 + 1 = 6 < 8: down" },
	{ "binary8p3se", "srb", "satnone", 0x3F960000u, 2, 1, 0x41, "B: 5 + 2 + 1 = 8: away" },
	{ "binary8p3se", "src", "satnone", 0x3F960000u, 2, 1, 0x41, "C: rne(2.75) = 3, + 1 = 4: away" },
	{ "binary8p3se", "src", "satnone", 0x3F940000u /* ν = 5/8 */, 2, 1, 0x40,
	  "C: rne(2.5) = 2 (tie to even), + 1 = 3 < 4: down" },
	{ "binary8p3se", "sra", "satnone", 0x3F940000u, 2, 1, 0x40, "A: floor(2.5) + 1 = 3: down" },
	{ "binary8p3se", "srb", "satnone", 0x3F940000u, 2, 1, 0x41, "B: floor(5) + 2 + 1 = 8: away" },
	{ "binary8p3se", "src", "satnone", 0x3F9C0000u /* ν = 7/8 */, 2, 0, 0x41,
	  "C: rne(3.5) = 4 = 2^N: away even with R = 0" },
	{ "binary8p3se", "srb", "satnone", 0x3F9C0000u, 2, 0, 0x41, "B: floor(7) + 0 + 1 = 8: away with R = 0" },
	{ "binary8p3se", "sra", "satnone", 0x3F9C0000u, 2, 0, 0x40, "A: floor(3.5) + 0 = 3: down with R = 0" },
	/* 1000 into binary8p4se: the P = 4 grid at 2^9 has step 64, so the neighbours are
	 * 960 and 1024 and ν = 40/64 = 0.625; A with N = 2, R = 0: floor(2.5) = 2 < 4, down
	 * to 960, still beyond 224: SatNone overflows whichever neighbour was taken */
	{ "binary8p4se", "sra", "satnone", 0x447A0000u, 2, 0, 0x7F, "960 > 224 after rounding: +inf" },
	{ "binary8p4se", "sra", "satfinite", 0x447A0000u, 2, 0, 0x7E, "clamped" },
	/* P = 1: no fraction bits, bias 2^(K-2); binary8p1se codes 1..126 are 2^(c-64) */
	{ "binary8p1se", "rne", "satnone", 0x3FA00000u /* 1.25 */, 0, 0, 0x40, "1.25 is nearer 1 = 2^0, code 64" },
	{ "binary8p1se", "rup", "satnone", 0x3FA00000u, 0, 0, 0x41, "toward +inf: 2, code 65" },
	/* binary4p1se: bias 4, code c = 2^(c-4) for c = 1..6.  A tie between two
	 * powers of two goes to the even code (the exponent field): the report's
	 * rule as the formal model runs it, not IEEE's "larger magnitude" */
	{ "binary4p1se", "rne", "satnone", 0x3F400000u /* 0.75 */, 0, 0, 0x4,
	  "0.75 is the midpoint of 0.5 (code 3) and 1 (code 4): the even code, 1" },
	{ "binary4p1se", "rne", "satnone", 0x3EC00000u /* 0.375 */, 0, 0, 0x2,
	  "0.375 is the midpoint of 0.25 (code 2) and 0.5 (code 3): the even code, 0.25" },
	{ "binary4p1se", "rod", "satnone", 0x3EC00000u, 0, 0, 0x3, "ToOdd: 0.25 has an even code, so 0.5 (code 3)" },
	{ "binary4p1se", "rod", "satnone", 0x3F400000u, 0, 0, 0x3, "ToOdd: 0.5 has an odd code already" },
	{ "binary4p1se", "rne", "satnone", 0x3D800000u /* 2^-4 */, 0, 0, 0x0,
	  "2^-4 is the midpoint of 0 and the least value 2^-3: zero is even" },
	{ "binary4p1se", "rod", "satnone", 0x3D800000u, 0, 0, 0x1, "ToOdd from zero: the least value, code 1" },
};

START_TEST(hand_worked)
{
	struct fpref_format f32 = test_format("float32");
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct fpref_format to = test_format(h->to);
		struct fpref_env env;
		fpref_env_default(&env);
		ck_assert(fpref_env_parse_rounding(h->round, &env) == 0);
		ck_assert(fpref_env_parse_overflow(h->sat, &env) == 0);
		if (h->width)
			env.sr_width = h->width;
		uint64_t e = 0, r = 0;
		unsigned ef = 0, rf = 0;
		fpref_emu_convert(&f32, h->f32, &to, &env, h->R, &e, &ef);
		fpref_ref_convert(&f32, h->f32, &to, &env, h->R, &r, &rf);
		ck_assert_msg(e == h->want && r == h->want, "%s %s %s %08X R=%llu: emu %02llX ref %02llX, want %02llX (%s)",
			      h->to, h->round, h->sat, h->f32, (unsigned long long)h->R, (unsigned long long)e,
			      (unsigned long long)r, (unsigned long long)h->want, h->why);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("p3109");
	TCase *tc = tcase_create("p3109");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, names_by_rule);
	tcase_add_test(tc, decode_every_code);
	tcase_add_test(tc, hand_worked);
	tcase_add_loop_test(tc, from_16_bit_exhaustive, 0, 2);
	tcase_add_test(tc, from_float32_structured);
	tcase_add_test(tc, between_formats);
	suite_add_tcase(s, tc);
	return test_run(s);
}
