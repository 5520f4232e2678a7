/* Integer element formats (formats/int.c): every code decoded by both
 * engines and by a decoder written here from the definition (two's
 * complement k, value k * 2^-frac); conversions into every integer format
 * from every FP16 and BF16 pattern and a structured and random FP32
 * sample, emulator against the MPFR oracle bit for bit (bits and flags)
 * under every rounding and both overflow policies; hand-worked cases. */
#include <math.h>
#include <string.h>

#include "testutil.h"

/* The rows as their definitions give them, not as formats/int.c builds them. */
static const struct int_def {
	const char *name;
	int bits;
	bool is_signed, symmetric;
	int frac;
} defs[] = {
	{ "int8", 8, true, false, 0 },	  { "int4", 4, true, false, 0 },     { "int2", 2, true, false, 0 },
	{ "uint8", 8, false, false, 0 },  { "uint4", 4, false, false, 0 },   { "uint2", 2, false, false, 0 },
	{ "int8_sym", 8, true, true, 0 }, { "int4_sym", 4, true, true, 0 },  { "int2_sym", 2, true, true, 0 },
	{ "mxint8", 8, true, false, 6 },  { "mxint8_sym", 8, true, true, 6 },
};
#define NDEFS (sizeof defs / sizeof defs[0])

START_TEST(decode_every_code)
{
	const struct fpref_format *f64 = fpref_format_get(FPREF_FORMAT_FLOAT64);
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t d = 0; d < NDEFS; d++) {
		struct fpref_format f = test_format(defs[d].name);
		ck_assert_int_eq(fpref_format_width(&f), defs[d].bits);
		for (uint64_t c = 0; c < ((uint64_t)1 << defs[d].bits); c++) {
			long k = defs[d].is_signed && c >= ((uint64_t)1 << (defs[d].bits - 1)) ? (long)c - (1L << defs[d].bits)
											 : (long)c;
			double want = ldexp((double)k, -defs[d].frac);
			uint64_t e = 0, r = 0;
			unsigned fe = 0, fr = 0;
			ck_assert(fpref_emu_convert(&f, c, f64, &env, 0, &e, &fe) == 0);
			ck_assert(fpref_ref_convert(&f, c, f64, &env, 0, &r, &fr) == 0);
			double got;
			memcpy(&got, &e, sizeof got);
			ck_assert_msg(e == r && fe == fr && got == want, "%s code %llX: emu %g, ref %llX, want %g", f.name,
				      (unsigned long long)c, got, (unsigned long long)r, want);
			struct fpref_unpacked u;
			enum fpref_decode_status st = fpref_decode(&f, c, &u);
			bool never = defs[d].symmetric && k == -(1L << (defs[d].bits - 1));
			ck_assert_int_eq(st, never ? FPREF_DECODE_NONCANONICAL : FPREF_DECODE_OK);
		}
	}
}
END_TEST

/* The environments swept: six roundings and stochastic rounding, IEEE
 * overflow (no specials: the largest magnitude) and saturation. */
static const enum fpref_rounding roundings[] = { FPREF_RNE, FPREF_RNA, FPREF_RTZ, FPREF_RUP,
						 FPREF_RDN, FPREF_ROD, FPREF_SR };
#define NENVS (2 * sizeof roundings / sizeof roundings[0])

static struct fpref_env env_at(size_t i)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = roundings[i / 2];
	env.overflow = i % 2 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	env.sr_width = 8;
	return env;
}

static void compare(const struct fpref_format *from, uint64_t x, const struct fpref_format *to,
		    const struct fpref_env *env, uint64_t R)
{
	uint64_t e = 0, r = 0;
	unsigned fe = 0, fr = 0;
	int se = fpref_emu_convert(from, x, to, env, R, &e, &fe);
	int sr = fpref_ref_convert(from, x, to, env, R, &r, &fr);
	/* ck_abort only on a failure: every ck_assert is a system call */
	if (se != sr || e != r || fe != fr)
		ck_abort_msg("%s %llX -> %s (%s, %s, R %llX): emu %llX flags %02X, ref %llX flags %02X", from->name,
			     (unsigned long long)x, to->name, fpref_rounding_name(env->rounding),
			     env->overflow == FPREF_OVERFLOW_SAT ? "sat" : "ieee", (unsigned long long)R,
			     (unsigned long long)e, fe, (unsigned long long)r, fr);
}

/* Every 16-bit pattern into every integer format: one environment per
 * (pattern, format), rotating so that every environment meets every
 * format (every environment is the campaign golden/sweeps/int-16, make
 * check-exhaustive). */
START_TEST(from_16_bit_exhaustive)
{
	static const enum fpref_format_id sources[] = { FPREF_FORMAT_FLOAT16, FPREF_FORMAT_BFLOAT16 };
	unsigned stride = test_sample_stride();
	unsigned long long k = 0;
	for (size_t s = 0; s < 2; s++) {
		const struct fpref_format *from = fpref_format_get(sources[s]);
		for (size_t d = 0; d < NDEFS; d++) {
			struct fpref_format to = test_format(defs[d].name);
			for (uint64_t x = 0; x < 0x10000; x++) {
				for (size_t i = 0; i < NENVS; i++) {
					if (i != (x + d) % NENVS)
						continue;
					if (!test_sample_keep(stride, k++))
						continue;
					struct fpref_env env = env_at(i);
					compare(from, x, &to, &env, fpref_sr_stream(x, i) & 0xFF);
				}
			}
		}
	}
}
END_TEST

/* FP32 at, one step either side of, and at the midpoints of the grid
 * points near each format's ends, both signs; then random patterns. */
START_TEST(from_float32_sampled)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	unsigned stride = test_sample_stride();
	unsigned long long n = 0;
	for (size_t d = 0; d < NDEFS; d++) {
		struct fpref_format to = test_format(defs[d].name);
		long top = 1L << (defs[d].bits - (defs[d].is_signed ? 1 : 0));
		for (long k2 = -2 * top - 6; k2 <= 2 * top + 6; k2++) { /* k2 / 2 steps: the grid and its midpoints */
			float v = ldexpf((float)k2, -defs[d].frac - 1);
			uint32_t b;
			memcpy(&b, &v, sizeof b);
			for (int delta = -1; delta <= 1; delta++) {
				uint32_t x = (b & 0x7FFFFFFF) == 0 ? b : b + (uint32_t)delta;
				for (size_t i = 0; i < NENVS; i++)
					if (test_sample_keep(stride, n++)) {
						struct fpref_env env = env_at(i);
						compare(f32, x, &to, &env, fpref_sr_stream(x, i) & 0xFF);
					}
			}
		}
		static const uint32_t specials[] = { 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F7FFFFF,
						     0xFF7FFFFF, 0x00000001, 0x80000001, 0x80000000, 0x00000000 };
		for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++)
			for (size_t i = 0; i < NENVS; i++) {
				struct fpref_env env = env_at(i);
				compare(f32, specials[s], &to, &env, 0x80);
			}
		for (uint64_t r = 0; r < 4000 / stride; r++) {
			uint64_t z = fpref_sr_stream(0x1A7 + d, r);
			/* magnitudes near the format's range: exponents within 2^-12 .. 2^12 of its steps */
			uint32_t x = ((uint32_t)z & 0x807FFFFF) | (uint32_t)(127 - defs[d].frac - 4 + (int)(z % 20)) << 23;
			struct fpref_env env = env_at(r % NENVS);
			compare(f32, x, &to, &env, z >> 8 & 0xFF);
		}
	}
}
END_TEST

/* Worked by hand: two's complement codes, ties to even on the integer,
 * saturation at the ends, -2^(n-1) on the negative side only. */
static const struct hand {
	const char *to;
	const char *value; /* a decimal: exact in FP32 */
	enum fpref_rounding rounding;
	bool sat;
	uint64_t code;
} hand[] = {
	{ "int8", "2.5", FPREF_RNE, true, 0x02 },          /* tie 2|3: even 2 */
	{ "int8", "3.5", FPREF_RNE, true, 0x04 },          /* tie 3|4: even 4 */
	{ "int8", "-2.5", FPREF_RNA, true, 0xFD },         /* away: -3 = 0xFD */
	{ "int8", "-2.5", FPREF_RUP, true, 0xFE },         /* toward +inf: -2 */
	{ "int8", "-2.25", FPREF_RDN, true, 0xFD },        /* toward -inf: -3 */
	{ "int8", "127.5", FPREF_RNE, true, 0x7F },        /* tie 127|128: even 128 > 127: saturate */
	{ "int8", "-128.5", FPREF_RNE, true, 0x80 },       /* tie -128|-129: even -128 = 0x80 */
	{ "int8", "-127.5", FPREF_RNE, true, 0x80 },       /* tie -127|-128: even -128 */
	{ "int8", "-1000", FPREF_RNE, false, 0x80 },       /* no specials: the largest negative */
	{ "int8_sym", "-127.5", FPREF_RNE, true, 0x81 },   /* symmetric: -128 is not produced, -127 */
	{ "int8_sym", "-128", FPREF_RNE, true, 0x81 },
	{ "int4", "-8", FPREF_RNE, true, 0x8 },
	{ "int4", "7.5", FPREF_RNE, true, 0x7 },          /* even 8 > 7 */
	{ "int4_sym", "-8", FPREF_RNE, true, 0x9 },       /* -7 = 1001 */
	{ "int2", "-1.5", FPREF_RNE, true, 0x2 },         /* tie -1|-2: even -2 = 10 */
	{ "int2", "1.5", FPREF_RNE, true, 0x1 },          /* even 2 > 1: saturate */
	{ "int2_sym", "-1.5", FPREF_RNE, true, 0x3 },     /* -1 = 11 */
	{ "uint8", "255.5", FPREF_RNE, true, 0xFF },      /* even 256 > 255 */
	{ "uint8", "-3", FPREF_RNE, true, 0x00 },         /* negative into unsigned: 0 */
	{ "uint4", "9.5", FPREF_RTZ, true, 0x9 },
	{ "uint2", "2.5", FPREF_RNE, true, 0x2 },
	{ "mxint8", "0.4", FPREF_RNE, true, 0x1A },       /* 0.4 * 64 = 25.6: 26 = 0x1A */
	{ "mxint8", "-0.4", FPREF_RNE, true, 0xE6 },      /* -26 = 0xE6 */
	{ "mxint8", "-2", FPREF_RNE, true, 0x80 },        /* -128 * 2^-6 */
	{ "mxint8_sym", "-2", FPREF_RNE, true, 0x81 },    /* -127 * 2^-6 */
	{ "mxint8", "1.9921875", FPREF_RNE, true, 0x7F }, /* 127.5 / 64: even 128 > 127 */
	{ "mxint8", "0.0078125", FPREF_RNE, true, 0x00 }, /* 0.5 / 64: tie 0|1, even 0 */
	{ "mxint8", "0.0078125", FPREF_RNA, true, 0x01 },
};

START_TEST(hand_worked)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		struct fpref_format to = test_format(hand[i].to);
		float v = strtof(hand[i].value, NULL);
		uint32_t x;
		memcpy(&x, &v, sizeof x);
		struct fpref_env env;
		fpref_env_default(&env);
		env.rounding = hand[i].rounding;
		env.overflow = hand[i].sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		uint64_t e = 0, r = 0;
		unsigned fe = 0, fr = 0;
		fpref_emu_convert(f32, x, &to, &env, 0, &e, &fe);
		fpref_ref_convert(f32, x, &to, &env, 0, &r, &fr);
		ck_assert_msg(e == hand[i].code && r == hand[i].code, "%s %s (%s): want %llX, emu %llX, ref %llX", hand[i].to,
			      hand[i].value, fpref_rounding_name(hand[i].rounding), (unsigned long long)hand[i].code,
			      (unsigned long long)e, (unsigned long long)r);
	}
}
END_TEST

START_TEST(names_and_rows)
{
	struct fpref_format f;
	char err[256];
	ck_assert(fpref_format_parse("INT8", &f, err, sizeof err) == 0 && f.integer && !f.symmetric);
	ck_assert(fpref_format_parse("mxint8_sym", &f, err, sizeof err) == 0 && f.symmetric);
	ck_assert(fpref_format_validate(&f, err, sizeof err) == 0);
	f.specials = FPREF_SPECIALS_FN;
	ck_assert(fpref_format_validate(&f, err, sizeof err) != 0);
	size_t n = 0;
	while (fpref_format_int_at(n))
		n++;
	ck_assert_uint_eq(n, NDEFS);
	for (size_t i = 0; i < n; i++) { /* each row's descriptor reads back as the same format */
		char d[128];
		struct fpref_format back;
		fpref_format_descriptor(fpref_format_int_at(i), d, sizeof d);
		ck_assert_msg(fpref_format_parse(d, &back, err, sizeof err) == 0 && fpref_format_same(&back, fpref_format_int_at(i)),
			      "%s: %s", d, err);
	}
	ck_assert(!fpref_format_has_negative_zero(fpref_format_int_at(0)));
}
END_TEST

/* fpref_format_int_range and fpref_format_int_k, which table and explain
 * print, against the definitions above; k against the row's decode (the
 * value k * 2^-frac, read from the unpacked triple). */
START_TEST(integer_view)
{
	for (size_t i = 0; i < NDEFS; i++) {
		const struct int_def *d = &defs[i];
		struct fpref_format f;
		struct fpref_int_range r;
		char err[128];
		ck_assert(fpref_format_parse(d->name, &f, err, sizeof err) == 0);
		ck_assert(fpref_format_int_range(&f, &r) == 0);
		int64_t top = (int64_t)1 << (d->bits - d->is_signed);
		ck_assert_msg(r.bits == d->bits && r.is_signed == d->is_signed && r.symmetric == d->symmetric &&
				      r.frac == d->frac,
			      "%s", d->name);
		ck_assert_int_eq(r.k_max, top - 1);
		ck_assert_int_eq(r.k_min, !d->is_signed ? 0 : d->symmetric ? 1 - top : -top);
		for (uint64_t code = 0; code < (UINT64_C(1) << d->bits); code++) {
			struct fpref_unpacked u;
			enum fpref_decode_status st = fpref_decode(&f, code, &u);
			int64_t k = fpref_format_int_k(&f, code);
			ck_assert(k >= r.k_min - 1 && k <= r.k_max);
			if (st == FPREF_DECODE_NONCANONICAL) {
				ck_assert(d->symmetric && k == r.k_min - 1);
				continue;
			}
			/* |value| = significand * 2^exponent = |k| * 2^-frac */
			double v = ldexp((double)u.significand, u.exponent) * (u.negative ? -1 : 1);
			ck_assert_msg(u.cls == FPREF_CLASS_ZERO ? k == 0 : v == ldexp((double)k, -d->frac), "%s code %llu", d->name,
				      (unsigned long long)code);
		}
	}
	struct fpref_int_range r;
	ck_assert(fpref_format_int_range(fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN), &r) == -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("int");
	TCase *tc = tcase_create("int");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, names_and_rows);
	tcase_add_test(tc, integer_view);
	tcase_add_test(tc, decode_every_code);
	tcase_add_test(tc, hand_worked);
	tcase_add_test(tc, from_16_bit_exhaustive);
	tcase_add_test(tc, from_float32_sampled);
	suite_add_tcase(s, tc);
	return test_run(s);
}
