/* The format catalogue: published constants, every encoding of every
 * format of 16 bits or fewer round-trips, names and custom spellings. */
#include <math.h>

#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "testutil.h"

/* The value of a finite unpacked number as a double (exact for every
 * constant checked here: they are all doubles). */
static double unpacked_value(const struct fpref_unpacked *u)
{
	double v = ldexp((double)u->significand, u->exponent);
	return u->negative ? -v : v;
}

static double bits_value(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	ck_assert_int_eq(fpref_decode(f, bits, &u), FPREF_DECODE_OK);
	ck_assert(u.cls != FPREF_CLASS_NAN && u.cls != FPREF_CLASS_INF);
	return unpacked_value(&u);
}

struct published {
	const char *name;
	double max_finite, min_normal, min_positive;
	long long inf_bits; /* -1: none */
	long long nan_bits; /* canonical positive NaN, -1: none */
	int nan_patterns;   /* how many encodings are NaN */
};

/* Figures from the OCP OFP8 and MX specifications, IEEE 754, NVIDIA's
 * documentation and ml_dtypes, typed in from those sources. */
static const struct published published[] = {
	{ "float16", 65504.0, 0x1p-14, 0x1p-24, 0x7C00, 0x7E00, 2 * 1023 },
	{ "bfloat16", 0x1.fep127, 0x1p-126, 0x1p-133, 0x7F80, 0x7FC0, 2 * 127 },
	{ "float32", 0x1.fffffep127, 0x1p-126, 0x1p-149, 0x7F800000, 0x7FC00000, 2 * 8388607 },
	{ "tf32", 0x1.ffcp127, 0x1p-126, 0x1p-136, 0x7F800000, 0x7FC00000, 2 * 1023 },
	{ "float8_e5m2", 57344.0, 0x1p-14, 0x1p-16, 0x7C, 0x7E, 6 },
	{ "float8_e4m3fn", 448.0, 0x1p-6, 0x1p-9, -1, 0x7F, 2 },
	{ "float8_e4m3", 240.0, 0x1p-6, 0x1p-9, 0x78, 0x7C, 14 },
	{ "float8_e4m3fnuz", 240.0, 0x1p-7, 0x1p-10, -1, 0x80, 1 },
	{ "float8_e5m2fnuz", 57344.0, 0x1p-15, 0x1p-17, -1, 0x80, 1 },
	{ "float8_e4m3b11fnuz", 30.0, 0x1p-10, 0x1p-13, -1, 0x80, 1 },
	{ "float8_e3m4", 15.5, 0.25, 0x1p-6, 0x70, 0x78, 30 },
	{ "float8_e8m0fnu", 0x1p127, 0x1p-127, 0x1p-127, -1, 0xFF, 1 },
	{ "float6_e2m3fn", 7.5, 1.0, 0.125, -1, -1, 0 },
	{ "float6_e3m2fn", 28.0, 0.25, 0.0625, -1, -1, 0 },
	{ "float4_e2m1fn", 6.0, 1.0, 0.5, -1, -1, 0 },
};

START_TEST(published_constants)
{
	const struct published *p = &published[_i];
	struct fpref_format f = test_format(p->name);
	struct fpref_unpacked u;
	fpref_format_max_finite(&f, &u);
	ck_assert_msg(unpacked_value(&u) == p->max_finite, "%s max %a", p->name, unpacked_value(&u));
	ck_assert(bits_value(&f, fpref_format_max_bits(&f, false)) == p->max_finite);
	fpref_format_min_normal(&f, &u);
	ck_assert_msg(unpacked_value(&u) == p->min_normal, "%s min normal %a", p->name, unpacked_value(&u));
	fpref_format_min_positive(&f, &u);
	ck_assert_msg(unpacked_value(&u) == p->min_positive, "%s min positive %a", p->name, unpacked_value(&u));
	fpref_format_epsilon(&f, &u);
	ck_assert(unpacked_value(&u) == ldexp(1.0, -f.man_bits));

	uint64_t bits;
	ck_assert_int_eq(fpref_format_inf_bits(&f, false, &bits), p->inf_bits >= 0);
	if (p->inf_bits >= 0)
		ck_assert_uint_eq(bits, (uint64_t)p->inf_bits);
	ck_assert_int_eq(fpref_format_nan_bits(&f, false, &bits), p->nan_bits >= 0);
	if (p->nan_bits >= 0)
		ck_assert_uint_eq(bits, (uint64_t)p->nan_bits);

	/* Count NaN encodings over the whole code space (32-bit: skip). */
	int container = fpref_format_container_bits(&f);
	if (container <= 20) {
		int nans = 0;
		for (uint64_t c = 0; c < ((uint64_t)1 << container); c++) {
			if (fpref_decode(&f, c, &u) == FPREF_DECODE_OK && u.cls == FPREF_CLASS_NAN)
				nans++;
		}
		ck_assert_msg(nans == p->nan_patterns, "%s has %d NaN patterns", p->name, nans);
	}
}
END_TEST

START_TEST(specific_encodings)
{
	struct fpref_format e4m3 = test_format("e4m3"), e5m2 = test_format("e5m2");
	struct fpref_format fnuz = test_format("float8_e4m3fnuz"), e8m0 = test_format("e8m0");
	struct fpref_unpacked u;
	/* E4M3: NaN only at S.1111.111; S.1111.110 is 448, S.0000.001 is 2^-9. */
	ck_assert_int_eq(fpref_decode(&e4m3, 0xFF, &u), FPREF_DECODE_OK);
	ck_assert_int_eq(u.cls, FPREF_CLASS_NAN);
	ck_assert(bits_value(&e4m3, 0xFE) == -448.0);
	ck_assert(bits_value(&e4m3, 0x78) == 256.0);
	ck_assert(bits_value(&e4m3, 0x01) == 0x1p-9);
	ck_assert(bits_value(&e4m3, 0x08) == 0x1p-6);
	/* E5M2 follows IEEE: 0x7C inf, 0x7D signaling NaN, 0x7E quiet NaN. */
	fpref_decode(&e5m2, 0x7C, &u);
	ck_assert_int_eq(u.cls, FPREF_CLASS_INF);
	fpref_decode(&e5m2, 0x7D, &u);
	ck_assert(u.cls == FPREF_CLASS_NAN && u.signaling);
	fpref_decode(&e5m2, 0xFE, &u);
	ck_assert(u.cls == FPREF_CLASS_NAN && !u.signaling && u.negative);
	/* FNUZ: 0x80 is the only NaN, no -0. */
	fpref_decode(&fnuz, 0x80, &u);
	ck_assert_int_eq(u.cls, FPREF_CLASS_NAN);
	ck_assert(!fpref_format_has_negative_zero(&fnuz));
	ck_assert_uint_eq(fpref_format_zero_bits(&fnuz, true), 0x00);
	u = (struct fpref_unpacked){ .cls = FPREF_CLASS_ZERO, .negative = true };
	uint64_t bits;
	ck_assert_int_eq(fpref_encode(&fnuz, &u, &bits), -1);
	/* E8M0: 0x00 is 2^-127, 0x7F is 1, 0xFE is 2^127, 0xFF NaN, no zero, no sign. */
	ck_assert(bits_value(&e8m0, 0x00) == 0x1p-127);
	ck_assert(bits_value(&e8m0, 0x7F) == 1.0);
	ck_assert(bits_value(&e8m0, 0xFE) == 0x1p127);
	fpref_decode(&e8m0, 0xFF, &u);
	ck_assert_int_eq(u.cls, FPREF_CLASS_NAN);
	u = (struct fpref_unpacked){ .cls = FPREF_CLASS_ZERO };
	ck_assert_int_eq(fpref_encode(&e8m0, &u, &bits), -1);
	u = (struct fpref_unpacked){ .cls = FPREF_CLASS_NORMAL, .negative = true, .significand = 1 };
	ck_assert_int_eq(fpref_encode(&e8m0, &u, &bits), -1);
	ck_assert_int_eq(fpref_decode(&e8m0, 0x100, &u), FPREF_DECODE_INVALID);
	/* TF32 lives in the top 19 bits of an FP32 word. */
	struct fpref_format tf32 = test_format("tf32");
	ck_assert(bits_value(&tf32, 0x3F800000) == 1.0);
	ck_assert(bits_value(&tf32, 0x3F802000) == 1.0 + 0x1p-10);
	ck_assert_int_eq(fpref_decode(&tf32, 0x3F801000, &u), FPREF_DECODE_INVALID);
	/* Encoding needs exactness: 1 + 2^-11 is not a float16. */
	struct fpref_format f16 = test_format("f16");
	u = (struct fpref_unpacked){ .cls = FPREF_CLASS_NORMAL, .significand = 2049, .exponent = -11 };
	ck_assert_int_eq(fpref_encode(&f16, &u, &bits), -1);
	u.significand = 2050; /* 1 + 2^-10, written with a spare factor of two */
	ck_assert_int_eq(fpref_encode(&f16, &u, &bits), 0);
	ck_assert_uint_eq(bits, 0x3C01);
	u = (struct fpref_unpacked){ .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = 16 };
	ck_assert_int_eq(fpref_encode(&f16, &u, &bits), -1); /* 65536 overflows */
}
END_TEST

/* Formats swept in full: every named one of 20 bits or fewer, and custom
 * rows that exercise each option. */
static const char *const swept[] = {
	"tf32", "bfloat16", "float16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3", "float8_e4m3fnuz",
	"float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn",
	"float6_e3m2fn", "float4_e2m1fn", "e4m3,subnormals=off", "e5m2,bias=10,specials=fn",
	"e3m2,specials=fnuz,bias=4", "e2m2,specials=none,unsigned", "e5m0,specials=fn,unsigned,zero=off,subnormals=off",
	"custom:e6m9", "e1m3,specials=none", "e3m0,specials=none,subnormals=off",
};

/* Every pattern decodes and re-encodes to itself (NaNs to the canonical
 * NaN of the same sign and kind); positive values rise strictly with the
 * pattern, negatives mirror them; the extremes are the published constants. */
START_TEST(every_encoding_round_trips)
{
	struct fpref_format f = test_format(swept[_i]);
	int container = fpref_format_container_bits(&f);
	uint64_t step = (uint64_t)1 << f.pad_bits;
	uint64_t sign = f.is_signed ? (uint64_t)1 << (container - 1) : 0;
	double previous = -INFINITY;
	uint64_t finite = 0, noncanonical = 0;
	for (uint64_t c = 0; c < ((uint64_t)1 << container); c += step) {
		struct fpref_unpacked u, back;
		enum fpref_decode_status st = fpref_decode(&f, c, &u);
		ck_assert_msg(st != FPREF_DECODE_INVALID, "%s %llx invalid", f.name, (unsigned long long)c);
		if (st == FPREF_DECODE_NONCANONICAL) {
			noncanonical++;
			ck_assert_int_eq(u.cls, FPREF_CLASS_ZERO);
			continue;
		}
		uint64_t bits;
		ck_assert_msg(fpref_encode(&f, &u, &bits) == 0, "%s %llx does not encode", f.name, (unsigned long long)c);
		if (u.cls == FPREF_CLASS_NAN) {
			ck_assert_int_eq(fpref_decode(&f, bits, &back), FPREF_DECODE_OK);
			ck_assert(back.cls == FPREF_CLASS_NAN && back.negative == u.negative && back.signaling == u.signaling);
			continue;
		}
		ck_assert_msg(bits == c, "%s %llx re-encodes as %llx", f.name, (unsigned long long)c,
			      (unsigned long long)bits);
		if (u.cls == FPREF_CLASS_INF)
			continue;
		finite++;
		double v = unpacked_value(&u);
		if (c < sign || !sign) {
			ck_assert_msg(v > previous || (v == 0 && previous == -INFINITY), "%s not increasing at %llx",
				      f.name, (unsigned long long)c);
			previous = v;
		} else {
			struct fpref_unpacked mirror;
			if (fpref_decode(&f, c - sign, &mirror) == FPREF_DECODE_OK && mirror.cls != FPREF_CLASS_NAN)
				ck_assert_msg(v == -unpacked_value(&mirror) && signbit(v), "%s %llx is not -(%llx)",
					      f.name, (unsigned long long)c, (unsigned long long)(c - sign));
		}
	}
	struct fpref_unpacked maxv;
	fpref_format_max_finite(&f, &maxv);
	ck_assert_msg(previous == unpacked_value(&maxv), "%s: largest decoded %a, max_finite %a", f.name, previous,
		      unpacked_value(&maxv));
	ck_assert(finite > 0);
	if (!f.subnormals && f.has_zero)
		ck_assert_uint_eq(noncanonical, (f.is_signed ? 2 : 1) * (((uint64_t)1 << f.man_bits) - 1));
	else
		ck_assert_uint_eq(noncanonical, 0);
}
END_TEST

START_TEST(names_and_aliases)
{
	for (size_t i = 0; i < fpref_format_count(); i++) {
		const struct fpref_format *row = fpref_format_at(i);
		char err[512];
		ck_assert_msg(fpref_format_validate(row, err, sizeof err) == 0, "%s: %s", row->name, err);
		struct fpref_format f = test_format(row->name);
		ck_assert_str_eq(f.name, row->name);
		if (row->alias[0]) {
			f = test_format(row->alias);
			ck_assert_str_eq(f.name, row->name);
		}
	}
	ck_assert_str_eq(test_format("E4M3").name, "float8_e4m3fn");
	ck_assert_str_eq(test_format("BF16").name, "bfloat16");
	ck_assert_ptr_null(fpref_format_at(fpref_format_count()));
}
END_TEST

/* The catalogue constants name the rows they say (the names below are
 * ml_dtypes' spellings, written here, not read from the table), and
 * fpref_format_same compares data, not names. */
START_TEST(catalogue_constants)
{
	static const struct {
		enum fpref_format_id id;
		const char *name;
	} rows[] = {
		{ FPREF_FORMAT_FLOAT64, "float64" }, { FPREF_FORMAT_FLOAT32, "float32" },
		{ FPREF_FORMAT_TF32, "tf32" }, { FPREF_FORMAT_BFLOAT16, "bfloat16" },
		{ FPREF_FORMAT_FLOAT16, "float16" }, { FPREF_FORMAT_FLOAT8_E5M2, "float8_e5m2" },
		{ FPREF_FORMAT_FLOAT8_E4M3FN, "float8_e4m3fn" }, { FPREF_FORMAT_FLOAT8_E4M3, "float8_e4m3" },
		{ FPREF_FORMAT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz" }, { FPREF_FORMAT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz" },
		{ FPREF_FORMAT_FLOAT8_E4M3B11FNUZ, "float8_e4m3b11fnuz" }, { FPREF_FORMAT_FLOAT8_E3M4, "float8_e3m4" },
		{ FPREF_FORMAT_FLOAT8_E8M0FNU, "float8_e8m0fnu" }, { FPREF_FORMAT_FLOAT6_E2M3FN, "float6_e2m3fn" },
		{ FPREF_FORMAT_FLOAT6_E3M2FN, "float6_e3m2fn" }, { FPREF_FORMAT_FLOAT4_E2M1FN, "float4_e2m1fn" },
	};
	ck_assert_uint_eq(sizeof rows / sizeof rows[0], FPREF_FORMAT_COUNT);
	ck_assert_uint_eq(fpref_format_count(), FPREF_FORMAT_COUNT);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ck_assert_str_eq(fpref_format_get(rows[i].id)->name, rows[i].name);
		for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) /* no two rows alike */
			ck_assert(fpref_format_is(fpref_format_get(rows[k].id), rows[i].id) == (i == k));
	}
	struct fpref_format f;
	ck_assert_int_eq(fpref_format_parse("custom:e5m10", &f, NULL, 0), 0);
	ck_assert(fpref_format_is(&f, FPREF_FORMAT_FLOAT16));
	ck_assert(!fpref_format_is(&f, FPREF_FORMAT_BFLOAT16));
	ck_assert_int_eq(fpref_format_parse("e4m3,specials=fn", &f, NULL, 0), 0);
	ck_assert(fpref_format_is(&f, FPREF_FORMAT_FLOAT8_E4M3FN));
	ck_assert(!fpref_format_is(&f, FPREF_FORMAT_FLOAT8_E4M3)); /* the specials differ */
	ck_assert_int_eq(fpref_format_parse("custom:e8m10", &f, NULL, 0), 0);
	ck_assert(!fpref_format_is(&f, FPREF_FORMAT_TF32)); /* the container differs */
	ck_assert_int_eq(fpref_format_parse("binary8p4se", &f, NULL, 0), 0);
	ck_assert(!fpref_format_is(&f, FPREF_FORMAT_FLOAT8_E4M3FNUZ)); /* 0x7f is inf, not 240 */
}
END_TEST

START_TEST(custom_spellings)
{
	struct fpref_format f = test_format("e4m3,bias=8,specials=fnuz");
	ck_assert_str_eq(f.name, "e4m3,bias=8,specials=fnuz");
	struct fpref_format named = test_format("float8_e4m3fnuz");
	ck_assert_int_eq(f.exp_bits, named.exp_bits);
	ck_assert_int_eq(f.bias, named.bias);
	ck_assert_int_eq(f.specials, named.specials);
	f = test_format("e5m2,specials=ieee");
	ck_assert_str_eq(f.name, "custom:e5m2"); /* canonical spelling drops defaults, keeps "custom:" */
	ck_assert_int_eq(f.bias, 15);
	ck_assert_str_eq(test_format(f.name).name, "custom:e5m2"); /* and reads back as itself */
	f = test_format("e4m3,specials=ieee"); /* not float8_e4m3fn, whose alias is e4m3 */
	ck_assert_int_eq(test_format(f.name).specials, FPREF_SPECIALS_IEEE);
	ck_assert_str_eq(test_format("CUSTOM:E6M9").name, "custom:e6m9");
	ck_assert_str_eq(test_format("e6m9,bias=31").name, "custom:e6m9");
	f = test_format("custom:e7m5");
	ck_assert_int_eq(f.bias, 63);
	ck_assert_int_eq(fpref_format_width(&f), 13);
	f = test_format("e2m1,specials=none,subnormals=off,unsigned");
	ck_assert(!f.is_signed && !f.subnormals);
}
END_TEST

static void expect_error(const char *spelling, const char *needle)
{
	struct fpref_format f;
	char err[1024] = "";
	ck_assert_msg(fpref_format_parse(spelling, &f, err, sizeof err) == -1, "%s accepted", spelling);
	ck_assert_msg(strstr(err, needle) != NULL, "%s: message '%s' lacks '%s'", spelling, err, needle);
}

START_TEST(bad_names)
{
	expect_error("float8_e4m3fx", "unknown format 'float8_e4m3fx'");
	expect_error("float8_e4m3fx", "e4m3"); /* lists the choices */
	expect_error("e4m3,bias=x", "bad format option 'bias=x'");
	expect_error("e4m3,colour=red", "bad format option 'colour=red'");
	expect_error("e4m3,specials=odd", "bad format option 'specials=odd'");
	expect_error("custom:e0m3", "exponent bits must be 1..15");
	expect_error("custom:e4m70", "mantissa bits 0..62");
	expect_error("custom:e4m0", "specials=ieee needs");
	expect_error("custom:float16", "unknown format");
	expect_error("e4m3,specials=fnuz,unsigned", "needs a sign bit");
	expect_error("e8m0,specials=fn,zero=off", "add subnormals=off");
	expect_error("e15m62,bias=16383", "fit in 64 bits");
	expect_error("", "unknown format ''");
}
END_TEST

/* A bare eXmY that names nothing is a typo until written as custom. */
START_TEST(bare_custom_names_are_refused)
{
	expect_error("e4m4", "unknown format 'e4m4'");
	expect_error("e4m4", "nearest is e4m3, float8_e4m3fn");
	expect_error("e4m4", "custom:e4m4");
	expect_error("e5m3", "nearest is e5m2");
	expect_error("e6m9", "nearest is f16");
	expect_error("e8m22", "nearest is f32");
	expect_error("E4M4", "custom:e4m4");
	expect_error("float8_e4m3fm", "did you mean float8_e4m3fn?");
	expect_error("float4_e2m1fn_x2", "two FP4 elements in a byte");
	expect_error("torch.float4_e2m1fn_x2", "float4_e2m1fn");
	struct fpref_format f = test_format("custom:e4m4");
	ck_assert_int_eq(f.exp_bits, 4);
	ck_assert_int_eq(f.man_bits, 4);
	ck_assert_int_eq(f.bias, 7);
	ck_assert_int_eq(f.specials, FPREF_SPECIALS_IEEE);
	f = test_format("e4m4,specials=fn");
	ck_assert_int_eq(f.specials, FPREF_SPECIALS_FN);
}
END_TEST

/* The spellings of PyTorch, NumPy, JAX/ml_dtypes, ONNX and shorthands, each
 * with the geometry it must have (written out here, not read from the
 * catalogue), in any case and with a framework prefix. */
static const struct {
	const char *spelling, *name;
	int e, m, bias;
	enum fpref_specials specials;
} spellings[] = {
	{ "float8_e4m3fn", "float8_e4m3fn", 4, 3, 7, FPREF_SPECIALS_FN },
	{ "e4m3fn", "float8_e4m3fn", 4, 3, 7, FPREF_SPECIALS_FN },
	{ "float8_e5m2fnuz", "float8_e5m2fnuz", 5, 2, 16, FPREF_SPECIALS_FNUZ },
	{ "float8_e4m3fnuz", "float8_e4m3fnuz", 4, 3, 8, FPREF_SPECIALS_FNUZ },
	{ "float8_e5m2", "float8_e5m2", 5, 2, 15, FPREF_SPECIALS_IEEE },
	{ "float8_e8m0fnu", "float8_e8m0fnu", 8, 0, 127, FPREF_SPECIALS_FN },
	{ "e8m0fnu", "float8_e8m0fnu", 8, 0, 127, FPREF_SPECIALS_FN },
	{ "torch.float8_e4m3fn", "float8_e4m3fn", 4, 3, 7, FPREF_SPECIALS_FN },
	{ "half", "float16", 5, 10, 15, FPREF_SPECIALS_IEEE },
	{ "float16", "float16", 5, 10, 15, FPREF_SPECIALS_IEEE },
	{ "single", "float32", 8, 23, 127, FPREF_SPECIALS_IEEE },
	{ "double", "float64", 11, 52, 1023, FPREF_SPECIALS_IEEE },
	{ "np.float16", "float16", 5, 10, 15, FPREF_SPECIALS_IEEE },
	{ "jnp.bfloat16", "bfloat16", 8, 7, 127, FPREF_SPECIALS_IEEE },
	{ "ml_dtypes.float8_e4m3b11fnuz", "float8_e4m3b11fnuz", 4, 3, 11, FPREF_SPECIALS_FNUZ },
	{ "float8_e3m4", "float8_e3m4", 3, 4, 3, FPREF_SPECIALS_IEEE },
	{ "float8_e4m3", "float8_e4m3", 4, 3, 7, FPREF_SPECIALS_IEEE },
	{ "float6_e2m3fn", "float6_e2m3fn", 2, 3, 1, FPREF_SPECIALS_NONE },
	{ "float6_e3m2fn", "float6_e3m2fn", 3, 2, 3, FPREF_SPECIALS_NONE },
	{ "float4_e2m1fn", "float4_e2m1fn", 2, 1, 1, FPREF_SPECIALS_NONE },
	{ "FLOAT8E4M3FN", "float8_e4m3fn", 4, 3, 7, FPREF_SPECIALS_FN },
	{ "FLOAT8E4M3FNUZ", "float8_e4m3fnuz", 4, 3, 8, FPREF_SPECIALS_FNUZ },
	{ "FLOAT8E5M2", "float8_e5m2", 5, 2, 15, FPREF_SPECIALS_IEEE },
	{ "FLOAT8E5M2FNUZ", "float8_e5m2fnuz", 5, 2, 16, FPREF_SPECIALS_FNUZ },
	{ "FLOAT4E2M1", "float4_e2m1fn", 2, 1, 1, FPREF_SPECIALS_NONE },
	{ "FLOAT8E8M0", "float8_e8m0fnu", 8, 0, 127, FPREF_SPECIALS_FN },
	{ "FLOAT16", "float16", 5, 10, 15, FPREF_SPECIALS_IEEE },
	{ "BFLOAT16", "bfloat16", 8, 7, 127, FPREF_SPECIALS_IEEE },
	{ "FLOAT", "float32", 8, 23, 127, FPREF_SPECIALS_IEEE },
	{ "TensorProto.FLOAT8E5M2", "float8_e5m2", 5, 2, 15, FPREF_SPECIALS_IEEE },
	{ "fp16", "float16", 5, 10, 15, FPREF_SPECIALS_IEEE },
	{ "FP32", "float32", 8, 23, 127, FPREF_SPECIALS_IEEE },
	{ "fp8_e4m3", "float8_e4m3fn", 4, 3, 7, FPREF_SPECIALS_FN },
	{ "fp8_e5m2", "float8_e5m2", 5, 2, 15, FPREF_SPECIALS_IEEE },
	{ "bf16", "bfloat16", 8, 7, 127, FPREF_SPECIALS_IEEE },
	{ "tf32", "tf32", 8, 10, 127, FPREF_SPECIALS_IEEE },
	{ "Fp4_E2M1", "float4_e2m1fn", 2, 1, 1, FPREF_SPECIALS_NONE },
};

START_TEST(other_spellings)
{
	struct fpref_format f = test_format(spellings[_i].spelling);
	ck_assert_str_eq(f.name, spellings[_i].name);
	ck_assert_int_eq(f.exp_bits, spellings[_i].e);
	ck_assert_int_eq(f.man_bits, spellings[_i].m);
	ck_assert_int_eq(f.bias, spellings[_i].bias);
	ck_assert_int_eq(f.specials, spellings[_i].specials);
}
END_TEST

/* Every alias row names a catalogue format, and no alias hides another name. */
START_TEST(alias_rows_resolve)
{
	for (size_t i = 0; i < fpref_format_alias_count(); i++) {
		const struct fpref_format_alias *a = fpref_format_alias_at(i);
		struct fpref_format f = test_format(a->name);
		ck_assert_str_eq(f.name, a->name);
		for (size_t k = 0; k < fpref_format_count(); k++) {
			const struct fpref_format *row = fpref_format_at(k);
			ck_assert_msg(strcasecmp(a->spelling, row->name) != 0 && strcasecmp(a->spelling, row->alias) != 0,
				      "alias %s shadows %s", a->spelling, row->name);
		}
	}
	ck_assert_ptr_null(fpref_format_alias_at(fpref_format_alias_count()));
}
END_TEST

START_TEST(sr_options)
{
	struct fpref_env env;
	char err[256];
	fpref_env_default(&env);
	ck_assert_int_eq(fpref_env_parse_sr("0x3a5", &env, err, sizeof err), 0);
	ck_assert_uint_eq(env.sr_width, 12);
	ck_assert_uint_eq(env.sr_random, 0x3a5);
	ck_assert_int_eq(fpref_env_parse_sr("5:1f", &env, err, sizeof err), 0);
	ck_assert_uint_eq(env.sr_width, 5);
	ck_assert_int_eq(fpref_env_parse_sr("4:1f", &env, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "does not fit in 4 bits"));
	ck_assert_int_eq(fpref_env_parse_sr("xyz", &env, err, sizeof err), -1);
	ck_assert_int_eq(fpref_env_parse_sr("65:1", &env, err, sizeof err), -1);
	ck_assert_int_eq(fpref_env_parse_sr("16:seed=42", &env, err, sizeof err), 0);
	ck_assert(env.sr_seeded && env.sr_seed == 42 && env.sr_width == 16);
	ck_assert_uint_lt(fpref_env_sr_random(&env, 7), 1u << 16);
	ck_assert_int_eq(fpref_env_parse_sr("seed=-1", &env, err, sizeof err), -1);
}
END_TEST

/* The counter-based stream is SplitMix64 read at a counter: its published
 * first outputs from state 0 are these. */
START_TEST(sr_stream_is_splitmix64)
{
	ck_assert_uint_eq(fpref_sr_stream(0, 0), UINT64_C(0xe220a8397b1dcdaf));
	ck_assert_uint_eq(fpref_sr_stream(0, 1), UINT64_C(0x6e789e6aa1b965f4));
	ck_assert_uint_eq(fpref_sr_stream(0, 2), UINT64_C(0x06c45d188009454f));
}
END_TEST

/* .npy: files laid out as the format's description says (magic, version,
 * header length, dict, data), version 1.0 and a big-endian 2.0, our writer
 * read back, and every malformed file refused with a message. */
static void write_npy(const char *path, int version, const char *dict, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	size_t len = strlen(dict) + 1;
	unsigned char pre[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0,
				  (unsigned char)len, (unsigned char)(len >> 8), 0, 0 };
	fwrite(pre, 1, version == 1 ? 10 : 12, f);
	fprintf(f, "%s\n", dict);
	fwrite(data, 1, n, f);
	fclose(f);
}

/* A version 1.0 file whose header is exactly dict: no newline, no data. */
static void write_npy_exact(const char *path, const char *dict)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	size_t len = strlen(dict);
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)len, (unsigned char)(len >> 8) };
	fwrite(pre, 1, sizeof pre, f);
	fwrite(dict, 1, len, f);
	fclose(f);
}

START_TEST(npy_files)
{
	char dir[] = "/tmp/fpref-npy.XXXXXX", path[256], err[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/a.npy", dir);
	static const unsigned char u2[] = { 1, 0, 2, 0, 0, 0x80 };
	write_npy(path, 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", u2, sizeof u2);
	struct fpref_npy a;
	ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), 0);
	ck_assert_int_eq(a.kind, 'u');
	ck_assert_uint_eq(a.item_bytes, 2);
	ck_assert_int_eq(a.ndim, 1);
	ck_assert_uint_eq(a.count, 3);
	const uint16_t *u = a.data;
	ck_assert_uint_eq(u[0], 1);
	ck_assert_uint_eq(u[2], 0x8000);
	fpref_npy_free(&a);
	/* big-endian >f4, shape (1, 2): 1.0 and -2.0, swapped on reading */
	static const unsigned char f4[] = { 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0 };
	write_npy(path, 2, "{\"descr\": \">f4\", \"fortran_order\": False, \"shape\": (1, 2)}", f4, sizeof f4);
	ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), 0);
	ck_assert_int_eq(a.ndim, 2);
	ck_assert_uint_eq(a.shape[1], 2);
	const uint32_t *w = a.data;
	ck_assert_uint_eq(w[0], 0x3F800000);
	ck_assert_uint_eq(w[1], 0xC0000000);
	fpref_npy_free(&a);
	/* our writer, read back; the data starts on a 64-byte boundary */
	uint16_t items[6] = { 1, 2, 3, 4, 5, 6 };
	size_t shape[2] = { 2, 3 };
	ck_assert_int_eq(fpref_npy_write(path, "<f2", shape, 2, items, 2, err, sizeof err), 0);
	ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), 0);
	ck_assert_uint_eq(a.shape[0], 2);
	ck_assert_uint_eq(a.shape[1], 3);
	ck_assert_int_eq(memcmp(a.data, items, sizeof items), 0);
	fpref_npy_free(&a);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	ck_assert_int_eq(ftell(f), 128 + 12);
	fclose(f);
	/* refused: each names the file and the problem */
	static const struct {
		int version;
		const char *dict;
		size_t data_bytes;
		const char *says;
	} bad[] = {
		{ 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", 5, "truncated" },
		{ 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", 7, "more data" },
		{ 1, "{'descr': '<u2', 'fortran_order': True, 'shape': (3,), }", 6, "Fortran" },
		{ 1, "{'descr': '|O8', 'fortran_order': False, 'shape': (3,), }", 24, "descr" },
		{ 1, "{'descr': [('x', '<u2')], 'fortran_order': False, 'shape': (3,), }", 6, "structured" },
		{ 1, "{'descr': '<u2', 'fortran_order': False}", 0, "shape" },
		{ 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (-3,), }", 0, "shape" },
		{ 9, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", 6, "version" },
	};
	static const unsigned char zeros[32] = { 0 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_npy(path, bad[i].version, bad[i].dict, zeros, bad[i].data_bytes);
		err[0] = '\0';
		ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), -1);
		ck_assert_msg(strstr(err, bad[i].says) && strstr(err, "a.npy"), "case %zu: '%s'", i, err);
	}
	/* headers that end inside descr, with no newline or padding after
	 * them: each byte is read only after the one before it was checked */
	static const char *const cut[] = { "{'shape': (3,), 'fortran_order': False, 'descr': '",
					   "{'shape': (3,), 'fortran_order': False, 'descr': '<",
					   "{'shape': (3,), 'fortran_order': False, 'descr': '<u",
					   "{'shape': (3,), 'fortran_order': False, 'descr': '<u2" };
	for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
		write_npy_exact(path, cut[i]);
		err[0] = '\0';
		ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), -1);
		ck_assert_msg(strstr(err, i < 2 ? "unreadable descr" : "unsupported descr"),
			      "cut %zu: '%s'", i, err);
	}
	/* a huge shape in a small file: refused as truncated before its buffer
	 * is allocated; a product that overflows, and signs and blanks that
	 * strtoull would take */
	static const struct {
		const char *dict, *says;
	} huge[] = {
		{ "{'descr': '<u2', 'fortran_order': False, 'shape': (1099511627776,), }", "truncated" },
		{ "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "truncated" },
		{ "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 18446744073709551615), }", "truncated" },
		{ "{'descr': '<u2', 'fortran_order': False, 'shape': ( -3,), }", "shape" },
		{ "{'descr': '<u2', 'fortran_order': False, 'shape': (\t-3,), }", "shape" },
		{ "{'descr': '<u2', 'fortran_order': False, 'shape': (+3,), }", "shape" },
		{ "{'descr': '<u 2', 'fortran_order': False, 'shape': (3,), }", "descr" },
		{ "{'descr': '<u2\", 'fortran_order': False, 'shape': (3,), }", "descr" },
	};
	for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
		write_npy(path, 1, huge[i].dict, zeros, 6);
		err[0] = '\0';
		ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), -1);
		ck_assert_msg(strstr(err, huge[i].says), "huge %zu: '%s'", i, err);
	}
	ck_assert_int_eq(fpref_npy_read(dir, &a, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "is a directory"), "'%s'", err);
	f = fopen(path, "wb");
	fputs("GIF89a", f);
	fclose(f);
	ck_assert_int_eq(fpref_npy_read(path, &a, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "magic"));
	ck_assert_int_eq(fpref_npy_read("/nonexistent/x.npy", &a, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "x.npy"));
	/* an unwritable place: an error, and nothing left behind */
	snprintf(path, sizeof path, "%s/missing/b.npy", dir);
	ck_assert_int_eq(fpref_npy_write(path, "<f2", shape, 2, items, 2, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "b.npy"));
	snprintf(path, sizeof path, "%s/a.npy", dir);
	remove(path);
	ck_assert_int_eq(rmdir(dir), 0); /* empty: no temporary file was left */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("formats");
	TCase *tc = tcase_create("catalogue");
	tcase_add_loop_test(tc, published_constants, 0, (int)(sizeof published / sizeof published[0]));
	tcase_add_test(tc, specific_encodings);
	tcase_add_loop_test(tc, every_encoding_round_trips, 0, (int)(sizeof swept / sizeof swept[0]));
	tcase_add_test(tc, names_and_aliases);
	tcase_add_test(tc, catalogue_constants);
	tcase_add_test(tc, custom_spellings);
	tcase_add_test(tc, bad_names);
	tcase_add_test(tc, bare_custom_names_are_refused);
	tcase_add_loop_test(tc, other_spellings, 0, (int)(sizeof spellings / sizeof spellings[0]));
	tcase_add_test(tc, alias_rows_resolve);
	tcase_add_test(tc, sr_options);
	tcase_add_test(tc, sr_stream_is_splitmix64);
	tcase_add_test(tc, npy_files);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return test_run(s);
}
