/* The exact engine (ref/exact_dot.c) against MPFR: fpref_ref_exact_dot
 * beside fpref_ref_dot_value_scaled (mpfr_sum of each exact term) on every
 * format the engine takes, every pair of them (A of one, B of another),
 * random patterns, cancellations, the largest and least magnitudes, zeros
 * of both signs, NaN and infinities, block scales (E8M0, UE4M3 with its
 * zeros and sign bit) and C in three formats: the same number, NaN for
 * NaN, the same sign of zero.  Then the bound from decoded operands
 * (fpref_ref_exact_tc_bound) beside fpref_ref_tc_bound_scaled, bit for
 * bit, on every preset, input, --promote, split-K and MX scales; the
 * bounds' upward sum against mpfr_add, and the scan for specials. */
#include <mpfr.h>

#include "testutil.h"
#include "fpref_ref.h"
#include "fpref_ref_exact.h"
#include "tc_random.h"

/* Any pattern of f; NaN and inf one time in `special_odds` (0: never). */
static uint64_t any_pattern(const struct fpref_format *f, uint64_t *state, unsigned special_odds)
{
	int width = f->man_bits + f->exp_bits + f->pad_bits + (f->is_signed ? 1 : 0);
	for (;;) {
		uint64_t r = next_random(state), bits = (r & ((1ull << width) - 1)) & ~((1ull << f->pad_bits) - 1);
		struct fpref_unpacked u;
		if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
			continue;
		bool special = u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF;
		if (!special || (special_odds && (r >> 50) % special_odds == 0))
			return bits;
	}
}

static uint64_t sign_mask(const struct fpref_format *f)
{
	return fpref_format_zero_bits(f, true) ^ fpref_format_zero_bits(f, false);
}

/* The same value: equal numbers with the same sign (zeros too), or both NaN. */
static bool same_value(mpfr_srcptr x, mpfr_srcptr y)
{
	if (mpfr_nan_p(x) || mpfr_nan_p(y))
		return mpfr_nan_p(x) && mpfr_nan_p(y);
	return mpfr_equal_p(x, y) && mpfr_signbit(x) == mpfr_signbit(y);
}

/* One dot product both ways; the engine must take it (status 0). */
static void check_dot(const struct fpref_format *fa, const struct fpref_format *fb, const uint64_t *a,
		      const uint64_t *b, size_t K, const struct fpref_tc_scales *sc, const struct fpref_format *acc,
		      uint64_t c, const char *what)
{
	struct fpref_exact_format xa, xb;
	ck_assert_int_eq(fpref_ref_exact_format(fa, &xa), 0);
	ck_assert_int_eq(fpref_ref_exact_format(fb, &xb), 0);
	struct fpref_exact_operand *da = malloc((K + 1) * sizeof *da), *db = malloc((K + 1) * sizeof *db);
	ck_assert_ptr_nonnull(da);
	ck_assert_ptr_nonnull(db);
	size_t bad = 0;
	ck_assert_msg(fpref_ref_exact_decode(&xa, a, K, 1, da, &bad) == 0, "%s: A[%zu] = %llx is no %s pattern", what, bad,
		      (unsigned long long)a[bad], fa->name);
	ck_assert_msg(fpref_ref_exact_decode(&xb, b, K, 1, db, &bad) == 0, "%s: B[%zu] = %llx is no %s pattern", what, bad,
		      (unsigned long long)b[bad], fb->name);
	mpfr_t got, want;
	mpfr_inits2(64, got, want, (mpfr_ptr)0);
	int s1 = fpref_ref_exact_dot(&xa, da, &xb, db, K, sc, acc, c, got);
	int s2 = fpref_ref_dot_value_scaled(fa, fb, a, b, K, sc, c, acc, want);
	ck_assert_msg(s1 == 0 && s2 == 0, "%s: %s x %s, K %zu: status %d (engine), %d (MPFR)", what, fa->name, fb->name, K,
		      s1, s2);
	if (!same_value(got, want))
		ck_abort_msg("%s: %s x %s + %s, K %zu: engine %s, MPFR %s", what, fa->name, fb->name, acc->name, K,
			     mpfr_nan_p(got) ? "NaN" : "a number", mpfr_nan_p(want) ? "NaN" : "a number");
	mpfr_clears(got, want, (mpfr_ptr)0);
	free(da);
	free(db);
}

/* The formats the engine takes: the catalogue's (FP64 aside) and a few
 * named ones (IEEE P3109, integers). */
static size_t engine_formats(const struct fpref_format **out, struct fpref_format *named, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < fpref_format_count() && n < max; i++) {
		struct fpref_exact_format x;
		if (fpref_ref_exact_format(fpref_format_at(i), &x) == 0 && !fpref_format_is(fpref_format_at(i), FPREF_FORMAT_FLOAT8_E8M0FNU))
			out[n++] = fpref_format_at(i);
	}
	static const char *const extra[] = { "binary8p3se", "binary8p4sf", "binary8p1ue", "int8", "uint4", "custom:e3m3" };
	for (size_t i = 0; i < sizeof extra / sizeof extra[0] && n < max; i++) {
		char err[256];
		struct fpref_exact_format x;
		if (fpref_format_parse(extra[i], &named[i], err, sizeof err) == 0 &&
		    fpref_ref_exact_format(&named[i], &x) == 0)
			out[n++] = &named[i];
	}
	return n;
}

START_TEST(engine_takes_the_narrow_and_wide_formats_not_fp64)
{
	struct fpref_exact_format x;
	ck_assert_int_eq(fpref_ref_exact_format(fpref_format_get(FPREF_FORMAT_FLOAT64), &x), -1);
	ck_assert_int_eq(fpref_ref_exact_format(fpref_format_get(FPREF_FORMAT_FLOAT32), &x), 0);
	ck_assert(!x.fixed);
	ck_assert_int_eq(fpref_ref_exact_format(fpref_format_get(FPREF_FORMAT_FLOAT16), &x), 0);
	ck_assert(x.fixed); /* 2^-24 .. 65504: 40 bits */
	ck_assert_int_eq(x.q, -24);
	ck_assert_int_eq(x.width, 40);
	ck_assert_int_eq(fpref_ref_exact_format(fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN), &x), 0);
	ck_assert_int_eq(x.q, -9); /* 2^-9 .. 448 = 7 2^6 */
	ck_assert_int_eq(x.width, 18);
}
END_TEST

/* Every pair, random patterns (specials one time in 40), K across the
 * narrow sums' limits, C of three formats. */
START_TEST(every_pair_random)
{
	const struct fpref_format *fs[40];
	struct fpref_format named[8];
	size_t nf = engine_formats(fs, named, 40);
	ck_assert_uint_ge(nf, 18);
	const struct fpref_format *accs[] = { fpref_format_get(FPREF_FORMAT_FLOAT32), fpref_format_get(FPREF_FORMAT_FLOAT16),
					      fpref_format_get(FPREF_FORMAT_BFLOAT16) };
	static const size_t Ks[] = { 1, 3, 32, 257 };
	uint64_t state = 1, a[257], b[257];
	for (size_t i = 0; i < nf; i++)
		for (size_t j = 0; j < nf; j++)
			for (size_t t = 0; t < 8; t++) {
				size_t K = Ks[t % 4];
				const struct fpref_format *acc = accs[t % 3];
				for (size_t k = 0; k < K; k++) {
					a[k] = any_pattern(fs[i], &state, t < 4 ? 0 : 40);
					b[k] = any_pattern(fs[j], &state, t < 4 ? 0 : 40);
				}
				check_dot(fs[i], fs[j], a, b, K, NULL, acc, any_pattern(acc, &state, 20), "random");
			}
}
END_TEST

/* Each format at its edges: the largest values times the largest (wide
 * sums, many carries), the least subnormals, exact cancellation (the
 * second half the first with B's signs flipped: zero, or C alone), zeros
 * of both signs (an exact zero is -0 only when every term is), inf - inf,
 * inf times 0. */
START_TEST(edges)
{
	const struct fpref_format *fs[40];
	struct fpref_format named[8];
	size_t nf = engine_formats(fs, named, 40);
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t state = 7;
	enum { K = 600 };
	uint64_t *a = malloc(40000 * sizeof *a), *b = malloc(40000 * sizeof *b);
	for (size_t i = 0; i < nf; i++) {
		const struct fpref_format *f = fs[i];
		struct fpref_unpacked u;
		uint64_t top, low, neg0 = fpref_format_zero_bits(f, true), pos0 = fpref_format_zero_bits(f, false);
		fpref_format_max_finite(f, &u);
		ck_assert_int_eq(fpref_encode(f, &u, &top), 0);
		low = top;
		for (uint64_t bits = 1; bits < 1u << 12; bits++) { /* the least positive pattern value */
			struct fpref_unpacked v;
			if (fpref_decode(f, bits << f->pad_bits, &v) == FPREF_DECODE_OK &&
			    (v.cls == FPREF_CLASS_NORMAL || v.cls == FPREF_CLASS_SUBNORMAL)) {
				low = bits << f->pad_bits;
				break;
			}
		}
		/* the largest squared, K times, into C = the largest FP32 and into C = -0 */
		for (size_t k = 0; k < K; k++) {
			a[k] = top;
			b[k] = k % 3 == 2 && f->is_signed ? top | sign_mask(f) : top;
		}
		check_dot(f, f, a, b, K, NULL, f32, 0x7F7FFFFF, "largest");
		check_dot(f, f, a, b, K, NULL, f32, 0x80000000, "largest");
		/* the least, against the least FP32 subnormal */
		for (size_t k = 0; k < K; k++)
			a[k] = b[k] = low;
		check_dot(f, f, a, b, K, NULL, f32, 0x00000001, "least");
		/* the largest and the least together */
		for (size_t k = 0; k < K; k++)
			b[k] = k % 2 ? low : top;
		check_dot(f, f, a, b, K, NULL, f32, 0x80000001, "largest with least");
		/* cancellation */
		if (f->is_signed) {
			for (size_t k = 0; k < K / 2; k++) {
				a[k] = a[K / 2 + k] = any_pattern(f, &state, 0);
				b[k] = any_pattern(f, &state, 0);
				b[K / 2 + k] = b[k] ^ sign_mask(f);
			}
			check_dot(f, f, a, b, K, NULL, f32, 0, "cancellation to +0");
			check_dot(f, f, a, b, K, NULL, f32, 0x80000000, "cancellation, C -0");
			check_dot(f, f, a, b, K, NULL, f32, 0x3F800000, "cancellation, C 1");
		}
		/* zeros: all -0 terms give -0; one +0 gives +0 */
		for (size_t k = 0; k < 5; k++) {
			a[k] = f->is_signed ? neg0 : pos0;
			b[k] = pos0;
		}
		check_dot(f, f, a, b, 5, NULL, f32, 0x80000000, "zeros");
		check_dot(f, f, a, b, 5, NULL, f32, 0, "zeros");
		a[2] = pos0;
		check_dot(f, f, a, b, 5, NULL, f32, 0x80000000, "zeros");
		/* specials */
		uint64_t inf, nan;
		if (fpref_format_inf_bits(f, false, &inf)) {
			a[0] = inf;
			b[0] = top;
			check_dot(f, f, a, b, 5, NULL, f32, 0, "inf");
			b[1] = top | sign_mask(f);
			a[1] = inf;
			check_dot(f, f, a, b, 5, NULL, f32, 0, "inf - inf");
			b[1] = pos0;
			check_dot(f, f, a, b, 5, NULL, f32, 0, "inf times 0");
			b[1] = top;
			check_dot(f, f, a, b, 5, NULL, f32, 0xFF800000, "inf, C -inf");
		}
		if (fpref_format_nan_bits(f, false, &nan)) {
			a[3] = nan;
			check_dot(f, f, a, b, 5, NULL, f32, 0, "NaN");
		}
	}
	/* FP32's buckets emptied before they overflow: 40000 products of
	 * 2^24 - 1 squared at one place: 2^63 over after 2^15 of them */
	for (size_t k = 0; k < 40000; k++)
		a[k] = b[k] = 0x4B7FFFFF;
	check_dot(f32, f32, a, b, 40000, NULL, f32, 0, "FP32 many at one place");
	for (size_t k = 0; k < 40000; k++)
		b[k] = k % 2 ? 0x4B7FFFFF : 0xCB7FFFFE;
	check_dot(f32, f32, a, b, 40000, NULL, f32, 0, "FP32 many, alternating");
	free(a);
	free(b);
}
END_TEST

/* Block scales: E8M0 (any pattern: 2^-127 .. 2^127 and NaN) and UE4M3
 * (its zeros, sign bit, NaN, subnormals), per 16 and 32 products. */
START_TEST(scaled)
{
	static const char *const inputs[] = { "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn",
					      "float4_e2m1fn", "bfloat16", "float16", "float32" };
	const struct fpref_format *e8m0 = fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU),
				  *ue4m3 = fpref_format_get(FPREF_FORMAT_FLOAT8_E4M3FN), *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t state = 11, a[200], b[200], sa[16], sb[16];
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
		for (size_t j = 0; j < sizeof inputs / sizeof inputs[0]; j++) {
			struct fpref_format fa = test_format(inputs[i]), fb = test_format(inputs[j]);
			for (int t = 0; t < 12; t++) {
				const struct fpref_format *sf = t % 2 ? ue4m3 : e8m0;
				size_t every = t % 4 < 2 ? 16 : 32, K = t < 6 ? 200 : 37;
				for (size_t k = 0; k < K; k++) {
					a[k] = any_pattern(&fa, &state, t % 3 ? 0 : 50);
					b[k] = any_pattern(&fb, &state, t % 3 ? 0 : 50);
				}
				for (size_t q = 0; q < 16; q++) {
					uint64_t r = next_random(&state);
					sa[q] = r % 40 == 0 ? 0xFF : r >> 8 & 0xFF;
					sb[q] = r % 41 == 0 ? 0x7F : r >> 16 & 0xFF;
					if (sf == e8m0 && t % 3 && (sa[q] == 0xFF || sb[q] == 0xFF))
						sa[q] = sb[q] = 127;
				}
				struct fpref_tc_scales sc = { sf, sa, sb, every };
				check_dot(&fa, &fb, a, b, K, &sc, f32, any_pattern(f32, &state, 30), "scaled");
			}
		}
}
END_TEST

/* The bounds' upward sum against mpfr_add (64 bits, MPFR_RNDU): sequences
 * of terms of up to 128 bits, at places near each other (the 128-bit path)
 * and far apart (the wide window, a term wholly below the sum's last
 * place), from zero; then the carries that round up to 2^64. */
START_TEST(upward_sum_is_mpfrs)
{
	uint64_t state = 5;
	mpfr_t want, term;
	mpfr_init2(want, 64);
	mpfr_init2(term, 128);
	for (int seq = 0; seq < 4000; seq++) {
		uint64_t m = 0;
		long e = 0;
		mpfr_set_zero(want, 1);
		for (int i = 0; i < 12; i++) {
			uint64_t r = next_random(&state), hi = next_random(&state), lo = next_random(&state);
			int bits = 1 + (int)(r % 128);
			if (bits <= 64) {
				lo &= bits == 64 ? ~0ull : (1ull << bits) - 1;
				hi = 0;
			} else
				hi &= bits == 128 ? ~0ull : (1ull << (bits - 64)) - 1;
			if (r >> 40 & 1) /* trailing zeros */
				lo &= ~0ull << (r >> 41 & 31);
			long ev = seq % 2 ? (long)((r >> 8) % 64) - 32 : (long)((r >> 16) % 600) - 300;
			if (!hi && !lo)
				lo = 1;
			fpref_ref_exact_add_up(&m, &e, hi, lo, ev);
			mpfr_set_ui_2exp(term, (unsigned long)hi, ev + 64, MPFR_RNDN);
			mpfr_t low;
			mpfr_init2(low, 64);
			mpfr_set_ui_2exp(low, (unsigned long)lo, ev, MPFR_RNDN);
			mpfr_add(term, term, low, MPFR_RNDN); /* exact: 128 bits */
			mpfr_clear(low);
			mpfr_add(want, want, term, MPFR_RNDU);
			mpfr_t got;
			mpfr_init2(got, 64);
			mpfr_set_ui_2exp(got, (unsigned long)m, e, MPFR_RNDN);
			ck_assert_msg(mpfr_equal_p(got, want), "sequence %d, term %d: %llx 2^%ld", seq, i, (unsigned long long)m, e);
			mpfr_clear(got);
		}
	}
	/* the carries that end on 2^64 exactly: a 65-bit term of ones from
	 * zero, a term wholly below a sum of 64 ones, and the 256-bit
	 * window's sum of 64 ones and a sticky bit */
	static const struct {
		uint64_t m;
		long e;
		uint64_t hi, lo;
		long ev;
	} edge[] = { { 0, 0, 1, ~0ull, 0 },
		     { ~0ull, 0, 1, 0, -200 },
		     { ~0ull - (1ull << 27), 0, 1ull << 63, 1, -100 } };
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
		uint64_t m = edge[i].m;
		long e = edge[i].e;
		fpref_ref_exact_add_up(&m, &e, edge[i].hi, edge[i].lo, edge[i].ev);
		mpfr_set_ui_2exp(term, (unsigned long)edge[i].hi, edge[i].ev + 64, MPFR_RNDN);
		mpfr_t x;
		mpfr_init2(x, 64);
		mpfr_set_ui_2exp(x, (unsigned long)edge[i].lo, edge[i].ev, MPFR_RNDN);
		mpfr_add(term, term, x, MPFR_RNDN); /* exact: 128 bits */
		mpfr_set_ui_2exp(want, (unsigned long)edge[i].m, edge[i].e, MPFR_RNDN);
		mpfr_add(want, want, term, MPFR_RNDU);
		mpfr_set_ui_2exp(x, (unsigned long)m, e, MPFR_RNDN);
		ck_assert_msg(mpfr_equal_p(x, want), "edge %zu: %llx 2^%ld", i, (unsigned long long)m, e);
		mpfr_clear(x);
	}
	mpfr_clear(want);
	mpfr_clear(term);
}
END_TEST

static bool same_bound(mpfr_srcptr x, mpfr_srcptr y)
{
	return (mpfr_nan_p(x) && mpfr_nan_p(y)) || (!mpfr_nan_p(x) && !mpfr_nan_p(y) && mpfr_equal_p(x, y));
}

/* The next (model, input) pair, model-major from *at, whose bound with
 * FP32 output the engine and MPFR take; *at then past it.  False past
 * the last. */
static bool next_bound_pair(size_t *at, const struct fpref_tc_model **m, const struct fpref_format **f,
			    struct fpref_exact_format *x)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	mpfr_t bound;
	mpfr_init2(bound, 64);
	bool found = false;
	for (; !found && *at < fpref_tc_model_count() * fpref_format_count(); ++*at) {
		uint64_t zero = 0;
		*m = fpref_tc_model_at(*at / fpref_format_count());
		*f = fpref_format_at(*at % fpref_format_count());
		found = fpref_ref_exact_format(*f, x) == 0 && fpref_ref_tc_bound(*m, *f, *f, &zero, &zero, 1, 0, f32, 0, bound) == 0;
	}
	mpfr_clear(bound);
	return found;
}

/* The bound from decoded operands is fpref_ref_tc_bound_scaled's, bit for
 * bit: every preset and input it takes, inputs at three scales
 * (all near one place; spread over the whole range, specials one time in
 * 200), C from zero to large, with and without --promote, and MX scales. */
START_TEST(bound_from_decoded_operands)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t state = 3, a[300], b[300], sa[64], sb[64];
	size_t checked = 0;
	mpfr_t got, want;
	mpfr_inits2(64, got, want, (mpfr_ptr)0);
	const struct fpref_tc_model *m;
	const struct fpref_format *f;
	struct fpref_exact_format x;
	for (size_t at = 0; next_bound_pair(&at, &m, &f, &x);) {
		struct fpref_exact_operand da[300], db[300];
		for (int t = 0; t < 12; t++) {
			size_t K = t % 4 == 3 ? 300 : (size_t)(17 + 23 * t), nc = t % 3 == 2 ? 64 : 0;
			int lo = t % 2 ? 0 : 1 + (int)(next_random(&state) % (unsigned)max_field(f)), hi = t % 2 ? max_field(f) : lo;
			for (size_t k = 0; k < K; k++) {
				a[k] = t == 5 ? any_pattern(f, &state, 200) : random_input(f, &state, lo, hi, 0);
				b[k] = random_input(f, &state, t % 2 ? 0 : lo, t % 2 ? max_field(f) : hi, 0);
				if (t == 7) /* the lower half of the binades: a wide block spread past 120 bits, no overflow */
					a[k] = random_input(f, &state, 1, max_field(f) / 2, 0), b[k] = random_input(f, &state, 1, max_field(f) / 2, 0);
			}
			uint64_t c = t % 4 == 0 ? 0 : any_pattern(f32, &state, 0) >> (t % 4 == 1 ? 3 : 0);
			/* E8M0 per block; on the group path (NVFP4) UE4M3 per group half the time, its
			 * zeros and sign bit included */
			bool ue4m3 = m->group > 0 && t % 2;
			struct fpref_tc_scales sc = { fpref_format_get(ue4m3 ? FPREF_FORMAT_FLOAT8_E4M3FN : FPREF_FORMAT_FLOAT8_E8M0FNU),
						      sa, sb, ue4m3 ? (size_t)m->group : (size_t)m->block };
			for (size_t q = 0; q < 64; q++) {
				uint64_t r = next_random(&state);
				sa[q] = ue4m3 ? (r % 10 == 0 ? 0 : r % 127) | (r >> 20 & 0x80) : 100 + r % 55;
				sb[q] = ue4m3 ? (r >> 8) % 127 : 100 + (r >> 8) % 55;
			}
			bool scaled = (t % 3 == 1 || ue4m3) && fpref_tc_scales_ok(m, &sc) && K <= 64 * sc.every;
			size_t bad = 0;
			ck_assert_msg(fpref_ref_exact_decode(&x, a, K, 1, da, &bad) == 0, "A[%zu] = %llx", bad, (unsigned long long)a[bad]);
			ck_assert_msg(fpref_ref_exact_decode(&x, b, K, 1, db, &bad) == 0, "%s B[%zu] = %llx", f->name, bad, (unsigned long long)b[bad]);
			int s1 = fpref_ref_exact_tc_bound(m, &x, da, a, &x, db, b, K, scaled ? &sc : NULL, c, f32, nc, got);
			int s2 = fpref_ref_tc_bound_scaled(m, f, f, a, b, K, scaled ? &sc : NULL, c, f32, nc, want);
			ck_assert_int_eq(s1, s2);
			if (s2 == 0 && !same_bound(got, want))
				ck_abort_msg("bound of %s on %s, K %zu, promote %zu%s: decoded %.17g, MPFR %.17g", m->gpu, f->name,
					     K, nc, scaled ? ", scaled" : "", mpfr_get_d(got, MPFR_RNDN), mpfr_get_d(want, MPFR_RNDN));
			checked++;
			if (!scaled && nc == 0) { /* cuBLASLt's split-K over slices of 48 */
				s1 = fpref_ref_exact_tc_bound_splitk(m, &x, da, a, &x, db, b, K, 48, c, got);
				s2 = fpref_ref_tc_bound_splitk(m, f, f, a, b, K, 48, c, want);
				ck_assert_int_eq(s1, s2);
				if (s2 == 0 && !same_bound(got, want))
					ck_abort_msg("split-K bound of %s on %s, K %zu: decoded %.17g, MPFR %.17g", m->gpu, f->name, K,
						     mpfr_get_d(got, MPFR_RNDN), mpfr_get_d(want, MPFR_RNDN));
			}
		}
	}
	ck_assert_uint_ge(checked, 200);
	mpfr_clears(got, want, (mpfr_ptr)0);
}
END_TEST

/* A NaN or inf operand makes the bound NaN before an invalid C or scale
 * pattern is an error, as fpref_ref_tc_bound_scaled orders them; without
 * one the error stands: every preset and input, a special among zeros and
 * among nonzero products. */
START_TEST(bound_specials_before_errors)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	uint64_t state = 11, a[40], b[40], sa[2] = { 127, 127 }, sb[2] = { 127, 0x1ff }; /* 0x1ff: no E8M0 pattern */
	size_t checked = 0;
	mpfr_t got, want;
	mpfr_inits2(64, got, want, (mpfr_ptr)0);
	const struct fpref_tc_model *m;
	const struct fpref_format *f;
	struct fpref_exact_format x;
	for (size_t at = 0; next_bound_pair(&at, &m, &f, &x);) {
		uint64_t special = 0;
		for (int tries = 0; tries < 4000 && !special; tries++) {
			uint64_t p = any_pattern(f, &state, 1);
			struct fpref_unpacked u;
			fpref_decode(f, p, &u);
			special = u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF ? p : 0;
		}
		if (!special)
			continue; /* no NaN or inf in f */
		struct fpref_tc_scales sc = { fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU), sa, sb, 20 };
		for (int t = 0; t < 8; t++) { /* a special in t / 2 odd; a bad scale (else C) from 4 */
			bool has_special = t / 2 % 2;
			for (size_t k = 0; k < 40; k++) {
				a[k] = t % 2 ? fpref_format_zero_bits(f, false) : random_input(f, &state, 1, max_field(f), 0);
				b[k] = random_input(f, &state, 1, max_field(f), 0);
			}
			if (has_special)
				a[t * 4] = special;
			bool scaled = t >= 4 && fpref_tc_scales_ok(m, &sc);
			uint64_t c = scaled ? 0 : (uint64_t)1 << 40; /* no FP32 pattern */
			struct fpref_exact_operand da[40], db[40];
			ck_assert_int_eq(fpref_ref_exact_decode(&x, a, 40, 1, da, NULL), 0);
			ck_assert_int_eq(fpref_ref_exact_decode(&x, b, 40, 1, db, NULL), 0);
			mpfr_set_zero(got, 1);
			mpfr_set_zero(want, 1);
			int s1 = fpref_ref_exact_tc_bound(m, &x, da, a, &x, db, b, 40, scaled ? &sc : NULL, c, f32, 0, got);
			int s2 = fpref_ref_tc_bound_scaled(m, f, f, a, b, 40, scaled ? &sc : NULL, c, f32, 0, want);
			ck_assert_msg(s1 == s2, "%s on %s, case %d: status %d (decoded), %d (MPFR)", m->gpu, f->name, t, s1, s2);
			ck_assert_msg(s2 != 0 || same_bound(got, want), "%s on %s, case %d", m->gpu, f->name, t);
			ck_assert_int_eq(s2, has_special ? 0 : -1);
			checked++;
		}
	}
	ck_assert_uint_ge(checked, 50);
	mpfr_clears(got, want, (mpfr_ptr)0);
}
END_TEST

/* The scan for specials: a NaN or an infinity at each place of A or B,
 * K odd and even, is found; none, not. */
START_TEST(specials_found_anywhere)
{
	struct fpref_exact_operand a[7], b[7];
	for (size_t K = 0; K <= 7; K++)
		for (size_t at = 0; at <= 2 * K; at++)
			for (uint8_t cls = FPREF_EXACT_NAN; cls <= FPREF_EXACT_INF; cls++) {
				for (size_t k = 0; k < K; k++) {
					a[k] = (struct fpref_exact_operand){ (int64_t)k + 1, 0, FPREF_EXACT_FINITE, false };
					b[k] = a[k];
				}
				if (at < 2 * K) /* at == 2K: none */
					(at % 2 ? b : a)[at / 2].cls = cls;
				ck_assert_msg(fpref_ref_exact_any_special(a, b, K) == (at < 2 * K), "K %zu, special at %zu", K, at);
			}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("exact engine");
	TCase *tc = tcase_create("exact");
	tcase_add_test(tc, engine_takes_the_narrow_and_wide_formats_not_fp64);
	tcase_add_test(tc, every_pair_random);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, scaled);
	tcase_add_test(tc, upward_sum_is_mpfrs);
	tcase_add_test(tc, specials_found_anywhere);
	tcase_add_test(tc, bound_specials_before_errors);
	tcase_add_test(tc, bound_from_decoded_operands);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
