/* The emulator against the oracle, bit for bit and flag for flag, and the
 * emulator's fast paths against its own generic core. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Every named format and custom rows that exercise each option. */
static const char *const all_formats[] = {
	"float64", "float32", "tf32", "bfloat16", "float16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3",
	"float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4", "float8_e8m0fnu",
	"float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "e4m3,subnormals=off", "e2m2,specials=none,unsigned",
	"e5m0,specials=fn,unsigned,zero=off,subnormals=off", "e3m1,specials=fn,bias=2", "custom:e6m9",
	"e8m3,bias=120,specials=fnuz",
};
#define NFORMATS (sizeof all_formats / sizeof all_formats[0])

/* Every mode (stochastic with several random words and widths), both
 * overflow policies, ftz, daz, both tininess rules. */
static size_t full_envs(struct env_case *out)
{
	static const struct {
		unsigned width;
		uint64_t R;
	} sr[] = { { 4, 0 }, { 4, 8 }, { 4, 15 }, { 13, 0x1234 }, { 64, UINT64_C(0x8000000000000000) } };
	size_t n = 0;
	for (int mode = FPREF_RNE; mode <= FPREF_SR; mode++)
		for (size_t w = 0; w < (mode == FPREF_SR ? sizeof sr / sizeof sr[0] : 1u); w++)
			for (int bits = 0; bits < 16; bits++) {
				struct env_case *c = &out[n++];
				fpref_env_default(&c->env);
				c->env.rounding = (enum fpref_rounding)mode;
				c->env.overflow = bits & 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
				c->env.ftz = bits & 2;
				c->env.daz = bits & 4;
				c->env.tininess = bits & 8 ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
				c->env.sr_width = mode == FPREF_SR ? sr[w].width : 32;
				c->R = mode == FPREF_SR ? sr[w].R : 0;
			}
	/* the profiles' knobs: CUDA's NaN, ONNX's inf under saturation, ml_dtypes' NaN and underflow */
	for (int k = 0; k < 3; k++) {
		struct env_case *c = &out[n++];
		fpref_env_default(&c->env);
		c->env.nan_style = k < 2 ? FPREF_NAN_POSITIVE_ALL_ONES : FPREF_NAN_SIGNED_QUIET;
		c->env.overflow = k == 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		c->env.sat_inf_to_nan = k == 1;
		c->env.nan_to_flipped_zero = k == 2;
		c->env.underflow_to_least = k == 2;
		c->R = 0;
	}
	/* CUDA's E8M0 knobs, and the NaN styles that keep a payload, under rup (ieee) and rtz (sat) */
	for (int k = 0; k < 2; k++) {
		struct env_case *c = &out[n++];
		fpref_env_default(&c->env);
		c->env.rounding = k ? FPREF_RTZ : FPREF_RUP;
		c->env.overflow = k ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		c->env.nan_style = k ? FPREF_NAN_KEEP_BITS : FPREF_NAN_PROPAGATE;
		c->env.zero_to_least = true;
		c->env.unsigned_magnitude = true;
		c->R = 0;
	}
	return n;
}

/* Every mode under the default policies, and each policy alone under rne
 * and one directed mode. */
static size_t light_envs(struct env_case *out)
{
	struct env_case all[256];
	size_t total = full_envs(all), n = 0;
	for (size_t i = 0; i < total; i++) {
		const struct fpref_env *e = &all[i].env;
		int policies = (e->overflow == FPREF_OVERFLOW_SAT) + e->ftz + e->daz + (e->tininess == FPREF_TININESS_BEFORE);
		bool keep = policies == 0 ||
			    (policies == 1 && (e->rounding == FPREF_RNE || e->rounding == FPREF_RUP)) ||
			    (policies == 4 && e->rounding == FPREF_RDN);
		if (e->nan_style != FPREF_NAN_SIGNED_QUIET || e->sat_inf_to_nan || e->nan_to_flipped_zero)
			keep = true;
		if (keep && !(e->rounding == FPREF_SR && all[i].R == 8 && policies > 0))
			out[n++] = all[i];
	}
	return n;
}

static unsigned long mismatches;

static void compare_convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
			    const struct env_case *c)
{
	uint64_t want = 0, got = 0;
	unsigned want_flags = 0, got_flags = 0;
	int rr = fpref_ref_convert(from, bits, to, &c->env, c->R, &want, &want_flags);
	int re = fpref_emu_convert(from, bits, to, &c->env, c->R, &got, &got_flags);
	if (rr == re && want == got && want_flags == got_flags)
		return;
	if (mismatches++ < 20) {
		char envtext[160];
		fpref_env_describe(&c->env, envtext, sizeof envtext);
		fprintf(stderr, "%s %llx -> %s [%s R=%llx]: oracle %llx/%02x (%d), emulator %llx/%02x (%d)\n", from->name,
			(unsigned long long)bits, to->name, envtext, (unsigned long long)c->R, (unsigned long long)want,
			want_flags, rr, (unsigned long long)got, got_flags, re);
	}
}

/* Sources of 8 bits or fewer: every pattern to every format under every environment. */
START_TEST(narrow_sources_exhaustive)
{
	struct fpref_format from = test_format(all_formats[_i]);
	if (fpref_format_container_bits(&from) > 8)
		return;
	struct env_case envs[256];
	size_t nenv = full_envs(envs);
	unsigned stride = test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = test_format(all_formats[t]);
		for (uint64_t b = 0; b < ((uint64_t)1 << fpref_format_container_bits(&from)); b++)
			for (size_t c = 0; c < nenv; c++)
				if (test_sample_keep(stride, (((uint64_t)_i << 8 | t) << 8 | b) * nenv + c)) {
					compare_convert(&from, b, &to, &envs[c]);
					cases++;
				}
	}
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu conversions differ (first ones on stderr)", from.name,
		      mismatches, cases);
}
END_TEST

/* 16-bit sources: every pattern to every format, every mode, each policy. */
static const char *const sixteen[] = { "float16", "bfloat16", "custom:e6m9" };

START_TEST(sixteen_bit_sources_exhaustive)
{
	struct fpref_format from = test_format(sixteen[_i]);
	struct env_case envs[256];
	size_t nenv = light_envs(envs);
	if (getenv("FPREF_EXHAUSTIVE"))
		nenv = full_envs(envs);
	unsigned stride = test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = test_format(all_formats[t]);
		for (uint64_t b = 0; b < 65536; b++)
			for (size_t c = 0; c < nenv; c++)
				if (test_sample_keep(stride, (((uint64_t)_i << 8 | t) << 16 | b) * nenv + c)) {
					compare_convert(&from, b, &to, &envs[c]);
					cases++;
				}
	}
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu conversions differ (first ones on stderr)", from.name,
		      mismatches, cases);
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
	*state += UINT64_C(0x9e3779b97f4a7c15);
	uint64_t z = *state;
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A pattern of `from` aimed at the interesting places of `to`: exponents
 * around its least subnormal, least normal and max finite, or anywhere;
 * mantissas random, or with a tie or near-tie at the target's last place. */
static uint64_t structured_pattern(const struct fpref_format *from, const struct fpref_format *to, uint64_t *state)
{
	uint64_t r = next_random(state);
	int M = from->man_bits, m = to->man_bits;
	int targets[4] = { fpref_format_min_exponent(to) - m, fpref_format_min_exponent(to),
			   fpref_format_max_exponent(to), (int)(r >> 40 & 0xff) - 128 };
	int e = targets[r & 3] + (int)((r >> 2) & 7) - 3;
	int field = e + from->bias;
	int top = (1 << from->exp_bits) - 1;
	if (field < 0)
		field = 0;
	if (field > top)
		field = top;
	uint64_t mant = next_random(state) & ((M >= 64 ? 0 : (UINT64_C(1) << M)) - 1);
	int cut = M - m; /* bits below the target's last place (normal range) */
	if (cut > 1 && cut < 64 && ((r >> 5) & 3) != 0) {
		uint64_t below = (UINT64_C(1) << cut) - 1, half = UINT64_C(1) << (cut - 1);
		switch ((r >> 5) & 3) {
		case 1: mant = (mant & ~below) | half; break;           /* tie */
		case 2: mant = (mant & ~below) | (half - 1); break;     /* just below */
		default: mant = (mant & ~below) | (half + 1); break;    /* just above */
		}
	}
	uint64_t sign = from->is_signed && (r >> 9 & 1) ? UINT64_C(1) << (from->exp_bits + M) : 0;
	return (sign | ((uint64_t)field << M) | mant) << from->pad_bits;
}

static const char *const wide[] = { "tf32", "float32", "float64" };

START_TEST(wide_sources_structured)
{
	struct fpref_format from = test_format(wide[_i]);
	struct env_case envs[256];
	size_t nenv = full_envs(envs);
	unsigned long per_target = (getenv("FPREF_EXHAUSTIVE") ? 40000 : 2500) / test_sample_stride();
	mismatches = 0;
	unsigned long cases = 0;
	uint64_t state = 42 + (uint64_t)_i;
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = test_format(all_formats[t]);
		for (unsigned long k = 0; k < per_target; k++) {
			uint64_t b = structured_pattern(&from, &to, &state);
			for (size_t c = 0; c < nenv; c += 1 + (k % 7), cases++)
				compare_convert(&from, b, &to, &envs[c]);
		}
	}
	ck_assert_uint_gt(cases, 100000 / test_sample_stride());
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu conversions differ (first ones on stderr)", from.name,
		      mismatches, cases);
}
END_TEST

/* ---- fast paths against the generic core ---- */

static void check_array_against_core(const struct fpref_format *from, const struct fpref_format *to,
				     const struct fpref_env *env, const void *in, size_t n, const char *want_path)
{
	struct fpref_emu_converter *c = fpref_emu_converter_new(from, to, env);
	ck_assert_ptr_nonnull(c);
	if (want_path)
		ck_assert_str_eq(fpref_emu_converter_path(c), want_path);
	size_t ob = fpref_emu_element_bytes(to), ib = fpref_emu_element_bytes(from);
	unsigned char *out = malloc(n * ob), *out_flags_run = malloc(n * ob);
	uint8_t *flags = malloc(n);
	fpref_emu_convert_array(c, in, out, n, NULL, 0);
	fpref_emu_convert_array(c, in, out_flags_run, n, flags, 0);
	unsigned long bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = 0, got = 0, got2 = 0, want = 0;
		memcpy(&x, (const unsigned char *)in + i * ib, ib);
		memcpy(&got, out + i * ob, ob);
		memcpy(&got2, out_flags_run + i * ob, ob);
		unsigned want_flags = 0;
		if (fpref_emu_convert(from, x, to, env, fpref_env_sr_random(env, i), &want, &want_flags) != 0) {
			/* the documented result for a pattern the source does not have */
			want_flags = FPREF_FLAG_INVALID;
			if (!fpref_format_nan_result(to, env, false, &want))
				want = 0;
		}
		if ((got != want || got2 != want || flags[i] != want_flags) && bad++ < 10)
			fprintf(stderr, "%s %llx -> %s via %s: %llx/%llx flags %02x, core %llx flags %02x\n", from->name,
				(unsigned long long)x, to->name, fpref_emu_converter_path(c), (unsigned long long)got,
				(unsigned long long)got2, flags[i], (unsigned long long)want, want_flags);
	}
	ck_assert_msg(bad == 0, "%s -> %s: %lu elements differ from the core", from->name, to->name, bad);
	free(out);
	free(out_flags_run);
	free(flags);
	fpref_emu_converter_free(c);
}

START_TEST(table_path_matches_core)
{
	struct fpref_format from = test_format(all_formats[_i]);
	if (fpref_format_container_bits(&from) > 8)
		return;
	uint8_t in[256];
	for (int b = 0; b < 256; b++)
		in[b] = (uint8_t)b;
	struct env_case envs[256];
	size_t nenv = light_envs(envs);
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = test_format(all_formats[t]);
		for (size_t c = 0; c < nenv; c++)
			check_array_against_core(&from, &to, &envs[c].env, in, 256,
						 envs[c].env.rounding == FPREF_SR ? "generic" : "table");
	}
}
END_TEST

/* FP32 to each narrow format, rne, ieee and sat: every pattern whose low
 * 11 bits are one of a set that holds ties and their neighbours for every
 * target (every pattern in make check-exhaustive). */
static const char *const vector_targets[] = {
	"bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e4m3fnuz", "float8_e5m2fnuz",
	"float8_e4m3", "float8_e3m4", "float6_e2m3fn", "float6_e3m2fn", "float8_e4m3b11fnuz", "custom:e6m5",
	"e3m3,specials=fn,bias=2",
};

START_TEST(fp32_vector_path_matches_core)
{
	struct fpref_format f32 = test_format("f32"), to = test_format(vector_targets[_i]);
	bool exhaustive = getenv("FPREF_EXHAUSTIVE") != NULL;
	static const uint32_t low[] = { 0, 1, 0x3FF, 0x400, 0x401, 0x7FF, 0x155, 0x6AA };
	size_t chunk = 1u << 20;
	uint32_t *in = malloc(chunk * sizeof *in);
	for (int sat = 0; sat < 2; sat++) {
		struct fpref_env env;
		fpref_env_default(&env);
		env.overflow = sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		uint64_t total = exhaustive ? UINT64_C(1) << 32 : (UINT64_C(1) << 21) * (sizeof low / sizeof low[0]);
		/* reduced: every stride-th high part, so that signs and exponents are all still reached */
		uint64_t stride = exhaustive ? 1 : test_sample_stride();
		total /= stride;
		for (uint64_t start = 0; start < total; start += chunk) {
			for (size_t i = 0; i < chunk; i++) {
				uint64_t k = start + i;
				in[i] = exhaustive ? (uint32_t)k
						   : (uint32_t)((k / (sizeof low / sizeof low[0]) * stride) << 11 |
								low[k % (sizeof low / sizeof low[0])]);
			}
			check_array_against_core(&f32, &to, &env, in, chunk, "fp32-vector");
		}
	}
	free(in);
}
END_TEST

/* make check-exhaustive only: every FP32 pattern to every format of 16
 * bits or fewer under every rounding mode, emulator against oracle.  About
 * 4.3e9 oracle calls per (format, mode): run it in shards (FPREF_SHARD). */
START_TEST(fp32_every_pattern)
{
	if (!getenv("FPREF_EXHAUSTIVE"))
		return;
	struct test_shard shard = test_shard_from_env();
	struct fpref_format f32 = test_format("f32"), to = test_format(all_formats[_i]);
	if (fpref_format_container_bits(&to) > 16)
		return;
	struct env_case envs[256];
	size_t nenv = full_envs(envs);
	mismatches = 0;
	unsigned long long chunk = 0;
	for (size_t c = 0; c < nenv; c++) {
		if (envs[c].env.overflow != FPREF_OVERFLOW_IEEE || envs[c].env.ftz || envs[c].env.daz ||
		    envs[c].env.tininess != FPREF_TININESS_AFTER || envs[c].env.nan_style != FPREF_NAN_SIGNED_QUIET ||
		    envs[c].env.nan_to_flipped_zero)
			continue; /* every mode, default policies; the policies are swept on 16-bit sources */
		for (uint64_t hi = 0; hi < 65536; hi++, chunk++) {
			if (!test_shard_owns(shard, chunk))
				continue;
			for (uint64_t lo = 0; lo < 65536; lo++)
				compare_convert(&f32, hi << 16 | lo, &to, &envs[c]);
			if (hi % 4096 == 4095)
				fprintf(stderr, "fp32 -> %s, %s R=%llx: %llu/65536 blocks\n", to.name,
					fpref_rounding_name(envs[c].env.rounding), (unsigned long long)envs[c].R,
					(unsigned long long)hi + 1);
		}
	}
	ck_assert_msg(mismatches == 0, "f32 -> %s: %lu conversions differ", to.name, mismatches);
}
END_TEST

/* Stochastic arrays: the seeded stream gives the same bits whatever the
 * split of the array into calls. */
START_TEST(seeded_stream_is_split_invariant)
{
	struct fpref_format f32 = test_format("f32"), bf16 = test_format("bf16");
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = FPREF_SR;
	env.sr_seeded = true;
	env.sr_seed = 2024;
	env.sr_width = 16;
	enum { N = 1000 };
	uint32_t in[N];
	uint16_t whole[N], parts[N];
	uint64_t state = 7;
	for (int i = 0; i < N; i++)
		in[i] = (uint32_t)next_random(&state);
	struct fpref_emu_converter *c = fpref_emu_converter_new(&f32, &bf16, &env);
	fpref_emu_convert_array(c, in, whole, N, NULL, 0);
	fpref_emu_convert_array(c, in, parts, 333, NULL, 0);
	fpref_emu_convert_array(c, in + 333, parts + 333, N - 333, NULL, 333);
	ck_assert_mem_eq(whole, parts, sizeof whole);
	fpref_emu_converter_free(c);
	check_array_against_core(&f32, &bf16, &env, in, N, "generic");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu");
	TCase *narrow = tcase_create("narrow");
	tcase_add_loop_test(narrow, narrow_sources_exhaustive, 0, (int)NFORMATS);
	TCase *sixteen_bit = tcase_create("sixteen");
	tcase_add_loop_test(sixteen_bit, sixteen_bit_sources_exhaustive, 0, (int)(sizeof sixteen / sizeof sixteen[0]));
	TCase *wide_sources = tcase_create("wide");
	tcase_add_loop_test(wide_sources, wide_sources_structured, 0, (int)(sizeof wide / sizeof wide[0]));
	TCase *fast = tcase_create("fast");
	tcase_add_loop_test(fast, table_path_matches_core, 0, (int)NFORMATS);
	tcase_add_loop_test(fast, fp32_vector_path_matches_core, 0, (int)(sizeof vector_targets / sizeof vector_targets[0]));
	tcase_add_test(fast, seeded_stream_is_split_invariant);
	TCase *every = tcase_create("fp32-every-pattern");
	tcase_add_loop_test(every, fp32_every_pattern, 0, (int)NFORMATS);
	TCase *cases[] = { narrow, sixteen_bit, wide_sources, fast, every };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tcase_set_timeout(cases[i], 900);
		suite_add_tcase(s, cases[i]);
	}
	return test_run(s);
}
