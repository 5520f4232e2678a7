/* The emulator against the oracle, bit for bit and flag for flag, through
 * the test driver (driver.h: its formats, environments and compare
 * routine), and the emulator's fast paths against its own generic core. */
#include <stdio.h>
#include <string.h>

#include "driver.h"

#define NFORMATS drv_format_count()

/* Sources of 8 bits or fewer: every pattern to every format under every environment. */
START_TEST(narrow_sources_exhaustive)
{
	struct fpref_format from = drv_format((size_t)_i);
	if (fpref_format_container_bits(&from) > 8)
		return;
	struct env_case envs[DRV_MAX_ENVS], kept[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_ALL, envs);
	struct drv_sweep sweep = drv_sweep_from_env();
	struct drv_stats st = { 0 };
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = drv_format(t);
		for (uint64_t b = 0; b < ((uint64_t)1 << fpref_format_container_bits(&from)); b++) {
			if (!drv_owns_case(&sweep, (uint64_t)_i * NFORMATS + t, b))
				continue;
			size_t n = 0;
			for (size_t c = 0; c < nenv; c++)
				if (drv_keep(&sweep, (((uint64_t)_i << 8 | t) << 8 | b) * nenv + c, &envs[c]))
					kept[n++] = envs[c];
			drv_compare_convert(&st, &from, b, &to, kept, n);
		}
	}
	drv_report(&st, "every pattern converted", from.name);
}
END_TEST

/* Sources of 9 to 16 bits: every pattern to every format, every mode, each
 * policy and the knobs (the LIGHT set; every combination of policies is
 * the campaign golden/sweeps/sixteen-bit-sources, make check-exhaustive). */
START_TEST(sixteen_bit_sources_exhaustive)
{
	struct fpref_format from = drv_format((size_t)_i);
	int bits = fpref_format_container_bits(&from);
	if (bits <= 8 || bits > 16)
		return;
	struct drv_sweep sweep = drv_sweep_from_env();
	struct env_case envs[DRV_MAX_ENVS], kept[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_LIGHT, envs);
	struct drv_stats st = { 0 };
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = drv_format(t);
		for (uint64_t b = 0; b < ((uint64_t)1 << bits); b++) {
			if (!drv_owns_case(&sweep, (uint64_t)_i * NFORMATS + t, b))
				continue;
			size_t n = 0;
			for (size_t c = 0; c < nenv; c++)
				if (drv_keep(&sweep, (((uint64_t)_i << 8 | t) << 16 | b) * nenv + c, &envs[c]))
					kept[n++] = envs[c];
			drv_compare_convert(&st, &from, b, &to, kept, n);
		}
	}
	drv_report(&st, "every pattern converted", from.name);
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
	return drv_random(state);
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

/* Sources wider than 16 bits: structured patterns aimed at each target. */
START_TEST(wide_sources_structured)
{
	struct fpref_format from = drv_format((size_t)_i);
	if (fpref_format_container_bits(&from) <= 16)
		return;
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_ALL, envs);
	struct drv_sweep sweep = drv_sweep_from_env();
	unsigned long per_target = (sweep.exhaustive ? 40000 : 2500) / sweep.stride;
	struct drv_stats st = { 0 };
	uint64_t state = 42 + (uint64_t)_i;
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = drv_format(t);
		for (unsigned long k = 0; k < per_target; k++) {
			uint64_t b = structured_pattern(&from, &to, &state);
			/* every shard draws every pattern (the generator is a sequence) and compares its own */
			if (!drv_owns_case(&sweep, (uint64_t)_i * NFORMATS + t, k))
				continue;
			for (size_t c = 0; c < nenv; c += 1 + (k % 7))
				drv_compare_convert(&st, &from, b, &to, &envs[c], 1);
		}
	}
	ck_assert_uint_gt(st.compared, 100000 / sweep.stride / sweep.shard.count);
	drv_report(&st, "structured patterns converted", from.name);
}
END_TEST

/* ---- fast paths against the generic core ---- */

/* n elements through the converter and through the core: n, the count compared. */
static size_t check_array_against_core(const struct fpref_format *from, const struct fpref_format *to,
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
	ck_assert_msg(bad == 0, "%s -> %s on %s: %lu elements differ from the core", from->name, to->name,
		      fpref_emu_converter_isa(c), bad);
	free(out);
	free(out_flags_run);
	free(flags);
	fpref_emu_converter_free(c);
	return n;
}

/* The fp32-vector path on every instruction set this CPU has gives the
 * bits of the converter's own choice, which check_array_against_core holds
 * against the core: so each of them matches the core. */
static void check_isas_agree(const struct fpref_format *to, const struct fpref_env *env, const uint32_t *in, size_t n)
{
	static const char *const isas[] = { "base", "avx2", "avx512" };
	struct fpref_format f32 = test_format("f32");
	size_t ob = fpref_emu_element_bytes(to);
	unsigned char *want = malloc(n * ob), *got = malloc(n * ob);
	struct fpref_emu_converter *c = fpref_emu_converter_new(&f32, to, env);
	const char *own = fpref_emu_converter_isa(c);
	fpref_emu_convert_array(c, in, want, n, NULL, 0);
	for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
		if (fpref_emu_converter_use_isa(c, isas[k]) != 0)
			continue; /* not on this CPU */
		fpref_emu_convert_array(c, in, got, n, NULL, 0);
		ck_assert_msg(memcmp(want, got, n * ob) == 0, "f32 -> %s: %s differs from %s", to->name, isas[k], own);
	}
	fpref_emu_converter_free(c);
	free(want);
	free(got);
}

START_TEST(table_path_matches_core)
{
	struct fpref_format from = drv_format((size_t)_i);
	if (fpref_format_container_bits(&from) > 8)
		return;
	uint8_t in[256];
	for (int b = 0; b < 256; b++)
		in[b] = (uint8_t)b;
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_LIGHT, envs);
	struct drv_sweep sweep = drv_sweep_from_env();
	unsigned long long compared = 0;
	for (size_t t = 0; t < NFORMATS; t++) {
		struct fpref_format to = drv_format(t);
		if (!drv_owns(&sweep, (uint64_t)_i * NFORMATS + t))
			continue;
		for (size_t c = 0; c < nenv; c++)
			/* explicit stochastic bits are one R for every element: tabled too */
			compared += check_array_against_core(&from, &to, &envs[c].env, in, 256,
							     envs[c].env.sr_seeded || envs[c].env.sr_lanes ? "generic" : "table");
	}
	printf("driver: table path against the core %s: %llu comparisons\n", from.name, compared);
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
	struct drv_sweep sweep = drv_sweep_from_env();
	bool exhaustive = sweep.exhaustive;
	unsigned long long compared = 0;
	static const uint32_t low[] = { 0, 1, 0x3FF, 0x400, 0x401, 0x7FF, 0x155, 0x6AA };
	size_t chunk = 1u << 20;
	uint32_t *in = malloc(chunk * sizeof *in);
	/* ieee, sat, and the ml_dtypes profile: its NaN-to-flipped-zero knob
	 * sends NaNs to targets without one through the core, lane by lane */
	for (int sat = 0; sat < 3; sat++) {
		struct fpref_env env;
		fpref_env_default(&env);
		env.overflow = sat == 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		const char *want_path = "fp32-vector";
		if (sat == 2)
			fpref_profile_apply_conversion("ml_dtypes", &f32, &to, &env);
		uint64_t total = exhaustive ? UINT64_C(1) << 32 : (UINT64_C(1) << 21) * (sizeof low / sizeof low[0]);
		/* reduced: every stride-th high part, so that signs and exponents are all still reached;
		 * the profile, a sample beside the two full passes, every eighth of those */
		uint64_t stride = exhaustive ? 1 : test_sample_stride() * (sat == 2 ? 8 : 1);
		total /= stride;
		for (uint64_t start = 0; start < total; start += chunk) {
			if (!drv_owns(&sweep, (uint64_t)_i + 2 * (start / chunk) + (uint64_t)sat))
				continue;
			for (size_t i = 0; i < chunk; i++) {
				uint64_t k = start + i;
				in[i] = exhaustive ? (uint32_t)k
						   : (uint32_t)((k / (sizeof low / sizeof low[0]) * stride) << 11 |
								low[k % (sizeof low / sizeof low[0])]);
			}
			compared += check_array_against_core(&f32, &to, &env, in, chunk, want_path);
			check_isas_agree(&to, &env, in, chunk);
			/* lengths that are no multiple of a register's 8 or 16 lanes (nor of
			 * 64), from an odd offset: the partial register after the whole ones */
			static const size_t tails[] = { 1, 7, 9, 15, 17, 63, 77, 1000 + 35 };
			for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
				const uint32_t *from = in + 1 + (start / chunk) % 61;
				compared += check_array_against_core(&f32, &to, &env, from, tails[t], want_path);
				check_isas_agree(&to, &env, from, tails[t]);
			}
		}
	}
	free(in);
	printf("driver: fp32 vector path against the core %s: %llu comparisons\n", to.name, compared);
}
END_TEST

/* Stochastic arrays: the seeded stream gives the same bits whatever the
 * split of the array into calls (the lanes, each with its own R). */
START_TEST(seeded_stream_is_split_invariant)
{
	struct drv_sweep sweep = drv_sweep_from_env();
	if (!drv_owns(&sweep, 0)) /* a few cases: the first shard's */
		return;
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
	check_array_against_core(&f32, &bf16, &env, in, N, "fp32-vector");
}
END_TEST

/* Stochastic rounding's tininess after rounding: the value rounded with an
 * unbounded exponent by the same rule and the same R (IEEE 754 7.5 for
 * the rule; docs/rounding.md, "Rules the tables leave implicit").  E4M3, r = 4:
 * 0x1.f8p-7 rounds up to the least normal 2^-6 at R = 8, both bounded (T =
 * 14 of the subnormal step) and unbounded (T = 12), so it is not tiny;
 * 0x1.ep-7 is exact at precision 4 with an unbounded exponent, so it is
 * tiny whatever R, though its bounded rounding reaches 2^-6 too.  Both
 * engines. */
START_TEST(sr_tininess)
{
	struct drv_sweep sweep = drv_sweep_from_env();
	if (!drv_owns(&sweep, 0)) /* hand-worked cases: the first shard's */
		return;
	struct fpref_format f32 = test_format("f32"), e4m3 = test_format("e4m3");
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = FPREF_SR;
	env.sr_width = 4;
	static const struct {
		uint32_t in;
		uint64_t R, bits;
		unsigned flags;
		bool before;
	} cases[] = {
		{ 0x3C7C0000, 8, 0x08, 0x01, false }, { 0x3C7C0000, 8, 0x08, 0x03, true },
		{ 0x3C7C0000, 0, 0x07, 0x03, false }, { 0x3C700000, 8, 0x08, 0x03, false },
		{ 0x3C700000, 15, 0x08, 0x03, false }, { 0x3C700000, 1, 0x07, 0x03, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int engine = 0; engine < 2; engine++) {
			env.tininess = cases[i].before ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
			uint64_t out = 0;
			unsigned flags = 0;
			if (engine)
				fpref_emu_convert(&f32, cases[i].in, &e4m3, &env, cases[i].R, &out, &flags);
			else
				fpref_ref_convert(&f32, cases[i].in, &e4m3, &env, cases[i].R, &out, &flags);
			ck_assert_msg(out == cases[i].bits && flags == cases[i].flags, "%s case %zu: %llx/%02x, want %llx/%02x",
				      engine ? "emu" : "ref", i, (unsigned long long)out, flags,
				      (unsigned long long)cases[i].bits, cases[i].flags);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu");
	TCase *narrow = tcase_create("narrow");
	tcase_add_loop_test(narrow, narrow_sources_exhaustive, 0, (int)NFORMATS);
	TCase *sixteen_bit = tcase_create("sixteen");
	tcase_add_loop_test(sixteen_bit, sixteen_bit_sources_exhaustive, 0, (int)NFORMATS);
	TCase *wide_sources = tcase_create("wide");
	tcase_add_loop_test(wide_sources, wide_sources_structured, 0, (int)NFORMATS);
	TCase *fast = tcase_create("fast");
	tcase_add_loop_test(fast, table_path_matches_core, 0, (int)NFORMATS);
	tcase_add_loop_test(fast, fp32_vector_path_matches_core, 0, (int)(sizeof vector_targets / sizeof vector_targets[0]));
	tcase_add_test(fast, seeded_stream_is_split_invariant);
	tcase_add_test(fast, sr_tininess);
	TCase *cases[] = { narrow, sixteen_bit, wide_sources, fast };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tcase_set_timeout(cases[i], 900);
		suite_add_tcase(s, cases[i]);
	}
	return test_run(s);
}
