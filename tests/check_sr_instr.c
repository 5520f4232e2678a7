/* Stochastic rounding as instructions (formats/sr_instr.c,
 * docs/stochastic-rounding.md): Philox4x32-10 against the published
 * known answers, every lane of each instruction against cases worked by
 * hand from the vendors' text (AMD's scale step too), emulator = MPFR
 * oracle on seeded sweeps (with scales),
 * and a seeded array conversion that does not depend on its chunking. */
#include "testutil.h"

static struct fpref_env instruction(const char *name, const char *from, const char *to)
{
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_format f = test_format(from), t = test_format(to);
	char err[256];
	if (fpref_env_sr_instruction(name, &f, &t, &env, err, sizeof err) != 0)
		ck_abort_msg("%s %s -> %s: %s", name, from, to, err);
	return env;
}

static void set_word(struct fpref_env *env, const char *text)
{
	char err[256];
	if (fpref_env_parse_sr(text, env, err, sizeof err) != 0)
		ck_abort_msg("--sr-bits %s: %s", text, err);
}

/* Value `index` of a batch through both engines; they must agree, and the
 * emulator's answer is returned. */
static uint64_t both(const char *from, uint64_t bits, const char *to, const struct fpref_env *env, uint64_t index)
{
	struct fpref_format f = test_format(from), t = test_format(to);
	uint64_t R = fpref_env_sr_random(env, index), e = 0, r = 0;
	unsigned fe = 0, fr = 0;
	fpref_emu_convert(&f, bits, &t, env, R, &e, &fe);
	fpref_ref_convert(&f, bits, &t, env, R, &r, &fr);
	ck_assert_msg(e == r && fe == fr, "%s %llx -> %s (R %llx): emu %llx/%x, ref %llx/%x", from,
		      (unsigned long long)bits, to, (unsigned long long)R, (unsigned long long)e, fe,
		      (unsigned long long)r, fr);
	return e;
}

/* Four values (a, b, e, f in that order, or elements 0..3) under one word. */
static void four(const char *name, const char *to, uint64_t x, const char *word, const uint64_t want[4])
{
	struct fpref_env env = instruction(name, "float32", to);
	set_word(&env, word);
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t got = both("float32", x, to, &env, i);
		ck_assert_msg(got == want[i], "%s -> %s, word %s, lane %llu: %llx, want %llx", name, to, word,
			      (unsigned long long)i, (unsigned long long)got, (unsigned long long)want[i]);
	}
}

/* Random123's kat_vectors (Salmon et al., "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11; Random123 1.09 tests/kat_vectors, the
 * philox4x32 10 lines): zero, all ones, and the digits of pi. */
START_TEST(philox_known_answers)
{
	static const uint32_t kat[3][10] = {
		{ 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
		{ 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
		  0xa20bc7c6, 0x6d5451fd },
		{ 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
		  0x5001e420, 0x24126ea1 },
	};
	for (int i = 0; i < 3; i++) {
		uint32_t out[4];
		fpref_philox4x32_10(kat[i], kat[i] + 4, out);
		for (int j = 0; j < 4; j++)
			ck_assert_msg(out[j] == kat[i][6 + j], "vector %d word %d: %08x, want %08x", i, j, out[j],
				      kat[i][6 + j]);
	}
}
END_TEST

/* curanddx's init(seed, subsequence, offset): key = seed, counter =
 * (offset lo, offset hi, subsequence lo, subsequence hi); each generate4
 * steps the counter by one and the kernel takes x, y, z, w in turn. */
START_TEST(philox_stream_order)
{
	uint64_t seed = 0x0123456789abcdefull, sub = 0x1122334455667788ull, off = 7;
	for (uint64_t k = 0; k < 12; k++) {
		uint32_t ctr[4] = { (uint32_t)(off + k / 4), 0, (uint32_t)sub, (uint32_t)(sub >> 32) };
		uint32_t key[2] = { 0x89abcdefu, 0x01234567u }, out[4];
		fpref_philox4x32_10(ctr, key, out);
		ck_assert_uint_eq(fpref_philox_stream_word(seed, sub, off, 10, k), out[k % 4]);
	}
	/* the offset's 64 bits carry into the subsequence's */
	uint32_t ctr[4] = { 0, 0, 6, 0 }, key[2] = { 5, 0 }, out[4];
	fpref_philox4x32_10(ctr, key, out);
	ck_assert_uint_eq(fpref_philox_stream_word(5, 5, UINT64_MAX, 10, 5), out[1]);
	/* NVTE_BUILD_NUM_PHILOX_ROUNDS=3 builds: three rounds, a different stream */
	uint32_t zero[4] = { 0, 0, 0, 0 }, three[4];
	fpref_philox4x32(zero, zero, 3, three);
	ck_assert_uint_eq(fpref_philox_stream_word(0, 0, 0, 3, 2), three[2]);
	ck_assert_uint_ne(three[0], 0x6627e8d5u);
	/* the zero vector above is TE's first word for seed 0, offset 0, thread 0 */
	ck_assert_uint_eq(fpref_philox_stream_word(0, 0, 0, 10, 0), 0x6627e8d5u);
	ck_assert_uint_eq(fpref_philox_stream_word(0, 0, 0, 10, 3), 0x9b00dbd8u);
}
END_TEST

/* cvt.rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4}.f32 with rbits 0x807FFF00:
 * a byte each, a = [31:24] ... f = [7:0].  Each x lies half a last place
 * plus 2^-9 of one above a grid point, so the first 8 discarded bits are
 * 0x80: away exactly when the lane's byte is >= 0x80 (a, e). */
START_TEST(ptx_fp8_fp6_lanes)
{
	/* 1 + 2^-4 + 2^-12 under E4M3/E2M3 (last place 2^-3): 1 = 0x38 / 0x08 */
	const uint64_t e4m3[4] = { 0x39, 0x38, 0x39, 0x38 }, e2m3[4] = { 0x09, 0x08, 0x09, 0x08 };
	four("ptx-rs", "float8_e4m3fn", 0x3F880800, "807FFF00", e4m3);
	four("ptx-rs", "float6_e2m3fn", 0x3F880800, "807FFF00", e2m3);
	/* 1 + 2^-3 + 2^-11 under E5M2/E3M2 (last place 2^-2): 1 = 0x3C / 0x0C */
	const uint64_t e5m2[4] = { 0x3D, 0x3C, 0x3D, 0x3C }, e3m2[4] = { 0x0D, 0x0C, 0x0D, 0x0C };
	four("ptx-rs", "float8_e5m2", 0x3F901000, "807FFF00", e5m2);
	four("ptx-rs", "float6_e3m2fn", 0x3F901000, "807FFF00", e3m2);
	/* -x rounds its magnitude the same way; 1000 saturates; NaN is 0x7F */
	const uint64_t neg[4] = { 0xB9, 0xB8, 0xB9, 0xB8 }, sat[4] = { 0x7E, 0x7E, 0x7E, 0x7E };
	four("ptx-rs", "float8_e4m3fn", 0xBF880800, "807FFF00", neg);
	four("ptx-rs", "float8_e4m3fn", 0x447A0000, "FFFFFFFF", sat);
	const uint64_t nan[4] = { 0x7F, 0x7F, 0x7F, 0x7F };
	four("ptx-rs", "float8_e4m3fn", 0xFFC00000, "807FFF00", nan);
}
END_TEST

/* cvt.rs.satfinite.e2m1x4.f32: a, b the upper bytes of the two 16-bit
 * halves ([31:24], [15:8]), e, f the lower ones ([23:16], [7:0]).  1.25 is
 * half way from 1 to 1.5: the first 8 discarded bits are 0x80. */
START_TEST(ptx_e2m1_lanes)
{
	const uint64_t want[4] = { 0x3, 0x3, 0x2, 0x2 }; /* a: 0x80, b: 0xFF up; e: 0x7F, f: 0x00 down */
	four("ptx-rs", "float4_e2m1fn", 0x3FA00000, "807FFF00", want);
	const uint64_t swapped[4] = { 0x2, 0x2, 0x3, 0x3 }; /* a: 0x00, b: 0x7F down; e: 0xFF, f: 0x80 up */
	four("ptx-rs", "float4_e2m1fn", 0x3FA00000, "00FF7F80", swapped);
	/* satfinite: NaN is +6 whatever its sign (no NaN in E2M1), -inf is -6 */
	const uint64_t nan[4] = { 0x7, 0x7, 0x7, 0x7 }, ninf[4] = { 0xF, 0xF, 0xF, 0xF };
	four("ptx-rs", "float4_e2m1fn", 0xFFC00000, "807FFF00", nan);
	four("ptx-rs", "float4_e2m1fn", 0xFF800000, "807FFF00", ninf);
}
END_TEST

/* Transformer Engine calls cvt.rs.satfinite.e2m1x4 with {in3, in2, in1,
 * in0}: element 0 is lane f ([7:0]), 1 is e ([23:16]), 2 is b ([15:8]),
 * 3 is a ([31:24]). */
START_TEST(te_element_order)
{
	const uint64_t want[4] = { 0x2, 0x2, 0x3, 0x3 }; /* 0x00, 0x7F down; 0xFF, 0x80 up */
	four("te-nvfp4", "float4_e2m1fn", 0x3FA00000, "807FFF00", want);
	/* seeded: element 4j + i takes word j of the thread's stream */
	struct fpref_env env = instruction("te-nvfp4", "float32", "float4_e2m1fn");
	set_word(&env, "philox=42:3:17");
	for (uint64_t i = 0; i < 16; i++) {
		static const unsigned shift[4] = { 0, 16, 8, 24 };
		uint32_t w = fpref_philox_stream_word(42, 17, 3, 10, i / 4);
		ck_assert_uint_eq(fpref_env_sr_random(&env, i), (w >> shift[i % 4]) & 0xFF);
	}
}
END_TEST

/* cvt.rs.{f16x2,bf16x2}.f32: a takes the upper half (for f16 its 13 low
 * bits: the 3 above are ignored), b the lower. */
START_TEST(ptx_x2_lanes)
{
	/* 1 + 2^-11: half a float16 place, discarded bits 0x1000 of 13 */
	struct fpref_env env = instruction("ptx-rs", "float32", "float16");
	set_word(&env, "F000EFFF"); /* a: 0x1000 (up), b: 0x0FFF (down) */
	ck_assert_uint_eq(both("float32", 0x3F801000, "float16", &env, 0), 0x3C01);
	ck_assert_uint_eq(both("float32", 0x3F801000, "float16", &env, 1), 0x3C00);
	/* 1 + 2^-8: half a bfloat16 place, discarded bits 0x8000 of 16 */
	env = instruction("ptx-rs", "float32", "bfloat16");
	set_word(&env, "80007FFF");
	ck_assert_uint_eq(both("float32", 0x3F808000, "bfloat16", &env, 0), 0x3F81);
	ck_assert_uint_eq(both("float32", 0x3F808000, "bfloat16", &env, 1), 0x3F80);
}
END_TEST

/* VCVTBIASPH2BF8[S] / VCVTBIASPH2HF8[S]: the bias (the low byte of the
 * 16-bit word) added below the FP8 last place, then truncation. */
static uint64_t bias(const char *name, const char *to, uint64_t x, const char *word)
{
	struct fpref_env env = instruction(name, "float16", to);
	set_word(&env, word);
	return both("float16", x, to, &env, 0);
}

START_TEST(avx10_bias)
{
	/* BF8: 0x3C55 keeps 0x3C, drops 0x55; away when 0x55 + b >= 0x100, b >= 0xAB */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0x3C55, "00AA"), 0x3C);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0x3C55, "12AB"), 0x3D); /* the upper byte is not read */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0xBC55, "00AB"), 0xBD);
	/* 0x7BFF + 1 carries into 0x7C: inf, or max under S */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0x7BFF, "0001"), 0x7C);
	ck_assert_uint_eq(bias("avx10-bias-s", "float8_e5m2", 0x7BFF, "0001"), 0x7B);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0x7BFF, "0000"), 0x7B);
	/* NaN: quiet, sign and upper payload kept; inf: inf, or max under S */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0x7D00, "00FF"), 0x7F);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e5m2", 0xFE01, "0000"), 0xFE);
	ck_assert_uint_eq(bias("avx10-bias-s", "float8_e5m2", 0xFC00, "0000"), 0xFB);
	/* HF8, normal: 1 + 85/1024 is 85/128 of a place (2^-3); (b >> 1) + 85 >= 128 from b = 0x56 */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x3C55, "0055"), 0x38);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x3C55, "0056"), 0x39);
	/* HF8, subnormal: 2^-8 + 2^-12 is 2 + 1/8 places of 2^-9; 32 + b >= 256 from b = 0xE0 */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x1C40, "00DF"), 0x02);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x1C40, "00E0"), 0x03);
	/* HF8 beyond 448: 480 is NaN even truncated, max under S; 464 + half a place */
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x5F80, "0000"), 0x7F);
	ck_assert_uint_eq(bias("avx10-bias-s", "float8_e4m3fn", 0x5F80, "0000"), 0x7E);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x5F40, "007F"), 0x7E);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x5F40, "0080"), 0x7F);
	ck_assert_uint_eq(bias("avx10-bias", "float8_e4m3fn", 0x7C00, "0000"), 0x7F);
	ck_assert_uint_eq(bias("avx10-bias-s", "float8_e4m3fn", 0xFC00, "0000"), 0xFE);
}
END_TEST

/* Intel's statement as bit operations, written apart from fpref's rule A:
 * BF8 adds the bias to the FP16 pattern and keeps its upper byte; HF8 adds
 * bias >> 1 to the pattern of a normal input (|x| >= 2^-6, FP16 exponent
 * field > 8) and rebiases, and below 2^-6 adds bias * 2^-17 to the value
 * and counts steps of 2^-9 (all in units of 2^-24).  sat: the S forms. */
static uint64_t intel_bf8(unsigned x, unsigned b, bool sat)
{
	unsigned s = (x >> 8) & 0x80, m = x & 0x7FFF;
	if (m >= 0x7C00)
		return m == 0x7C00 ? (sat ? s | 0x7B : x >> 8) : (x >> 8) | 0x02;
	unsigned r = (m + b) >> 8;
	return s | (r >= 0x7C ? (sat ? 0x7B : 0x7C) : r);
}

static uint64_t intel_hf8(unsigned x, unsigned b, bool sat)
{
	unsigned s = (x >> 8) & 0x80, m = x & 0x7FFF, e16 = m >> 10;
	if (m >= 0x7C00)
		return m == 0x7C00 && sat ? s | 0x7E : s | 0x7F;
	if (e16 > 8) {
		unsigned t = m + (b >> 1), e = (t >> 10) - 8, man = (t >> 7) & 7;
		if (e > 15 || (e == 15 && man == 7))
			return s | (sat ? 0x7E : 0x7F);
		return s | e << 3 | man;
	}
	unsigned v = e16 == 0 ? m : (0x400u | (m & 0x3FF)) << (e16 - 1);
	return s | (v + (b << 7)) >> 15; /* 8 steps of 2^-9 is 2^-6, code 0x08 */
}

/* Every FP16 pattern under 16 biases (every bias in make check-exhaustive). */
START_TEST(avx10_bit_model)
{
	struct fpref_format f16 = test_format("float16"), bf8 = test_format("float8_e5m2"),
			    hf8 = test_format("float8_e4m3fn");
	bool all = getenv("FPREF_EXHAUSTIVE") != NULL;
	unsigned stride = test_sample_stride();
	struct test_shard shard = test_shard_from_env(); /* check-exhaustive's shards split the biases */
	for (int form = 0; form < 4; form++) {
		bool sat = form & 1, is_bf8 = form < 2;
		const struct fpref_format *to = is_bf8 ? &bf8 : &hf8;
		struct fpref_env env = instruction(sat ? "avx10-bias-s" : "avx10-bias", "float16", to->name);
		for (unsigned b = 0; b < 256; b += all ? 1 : 17)
			for (unsigned x = 0; x < 65536 && test_shard_owns(shard, b); x++) {
				if (!test_sample_keep(stride, (uint64_t)form << 24 | b << 16 | x))
					continue;
				uint64_t got = 0, want = is_bf8 ? intel_bf8(x, b, sat) : intel_hf8(x, b, sat);
				unsigned flags = 0;
				fpref_emu_convert(&f16, x, to, &env, b, &got, &flags);
				if (got != want) /* not ck_assert: it writes to Check's pipe on every pass */
					ck_abort_msg("%s %s: FP16 %04x, bias %02x: %02llx, want %02llx", sat ? "S" : "",
						     to->name, x, b, (unsigned long long)got, (unsigned long long)want);
			}
	}
}
END_TEST

/* v_cvt_scalef32_sr_*, as AMD's gfx950 OCP host reference writes it
 * (amd_hip_ocp_host.hpp, from_float_sr): the source's mantissa field plus
 * seed >> (32 - source mantissa bits + target's), then truncation; that is
 * rule A with r = source - target mantissa bits and R the TOP r bits of
 * the word.  Each case below is worked from that statement: T the r
 * discarded bits (the target's subnormal grid first drops bits below it),
 * a carry exactly when T + R >= 2^r.  x rounds with each word in turn. */
static uint64_t amd(const char *from, const char *to, int scale_code, uint64_t x, const char *word)
{
	struct fpref_env env = instruction("amd-sr", from, to);
	set_word(&env, word);
	if (scale_code >= 0) {
		env.pre_scale = true;
		env.pre_scale_code = (uint8_t)scale_code;
	}
	return both(from, x, to, &env, 0);
}

START_TEST(amd_top_bits)
{
	ck_assert_uint_eq(instruction("amd-sr", "float32", "float8_e4m3fn").sr_width, 20);
	ck_assert_uint_eq(instruction("amd-sr", "float32", "float8_e4m3fn").sr_lane_shift[0], 12);
	ck_assert_uint_eq(instruction("amd-sr", "float16", "float8_e4m3fn").sr_lane_shift[0], 25);
	/* E4M3, r = 20, R = word >> 12.  0x3F880001 = 1 + 2^-4 + 2^-23: field
	 * 0x080001 keeps 000 and drops T = 0x80001; carry iff R >= 0x7FFFF.
	 * 0x7FFFEFFF: R = 0x7FFFE, down (its low 20 bits 0xFEFFF would carry);
	 * 0x7FFFF000: R = 0x7FFFF, up; 0x80000000: R = 0x80000, up (low bits 0) */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3F880001, "7FFFEFFF"), 0x38);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3F880001, "7FFFF000"), 0x39);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3F880001, "80000000"), 0x39);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0xBF880001, "80000000"), 0xB9); /* the magnitude's */
	/* E5M2, r = 21, R = word >> 11.  0x3F900002 = 1 + 2^-3 + 2^-22: T =
	 * 0x100002, carry iff R >= 0x200000 - 0x100002 = 0xFFFFE.  0x7FFFEFFF:
	 * R = 0xFFFFD, down; 0x7FFFF000: R = 0xFFFFE, up */
	ck_assert_uint_eq(amd("float32", "float8_e5m2", -1, 0x3F900002, "7FFFEFFF"), 0x3C);
	ck_assert_uint_eq(amd("float32", "float8_e5m2", -1, 0x3F900002, "7FFFF000"), 0x3D);
	/* E2M1, r = 22, R = word >> 10.  1.25: T = 2^21, carry iff R >= 2^21.
	 * 0x7FFFFFFF: R = 0x1FFFFF, down to 1 (2); 0x80000000: R = 2^21, up to 1.5 (3) */
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", -1, 0x3FA00000, "7FFFFFFF"), 0x2);
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", -1, 0x3FA00000, "80000000"), 0x3);
	/* float16 -> E4M3, r = 7, R = word >> 25.  0x3C55 = 1 + 85/1024: T = 85,
	 * carry iff R >= 43.  0x55FFFFFF: R = 42, down; 0x56000000: R = 43, up */
	ck_assert_uint_eq(amd("float16", "float8_e4m3fn", -1, 0x3C55, "55FFFFFF"), 0x38);
	ck_assert_uint_eq(amd("float16", "float8_e4m3fn", -1, 0x3C55, "56000000"), 0x39);
	/* bfloat16 -> E2M3, r = 4, R = word >> 28.  0x3F88 = 1 + 8/128: T = 8,
	 * carry iff R >= 8.  0x7FFFFFFF: R = 7, down to 1 (0x08); 0x80000000: up to 1.125 */
	ck_assert_uint_eq(amd("bfloat16", "float6_e2m3fn", -1, 0x3F88, "7FFFFFFF"), 0x08);
	ck_assert_uint_eq(amd("bfloat16", "float6_e2m3fn", -1, 0x3F88, "80000000"), 0x09);
	/* E4M3 subnormal: 0x3B880000 = 2^-8 + 2^-12, exponent 2 below E4M3's
	 * least normal: (1.0001b << 20) >> 2 = 0x220000 keeps 2 steps of 2^-9
	 * and drops T = 0x20000; carry iff R >= 0xE0000.  0xDFFFFFFF: R =
	 * 0xDFFFF, down (0x02); 0xE0000000: up (0x03).  0x3B880002 adds 2^-30,
	 * a bit the shift drops: the same T, the same answers */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3B880000, "DFFFFFFF"), 0x02);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3B880000, "E0000000"), 0x03);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3B880002, "DFFFFFFF"), 0x02);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3B880002, "E0000000"), 0x03);
	/* beyond max: E4M3's 464 (0x43E80000, half a place above 448) is NaN
	 * up (R = 0x80000 carries T = 0x80000) and 448 down; 480 (0x43F00000) is
	 * S.1111.111, NaN, even truncated; E5M2 and E2M1 saturate */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x43E80000, "7FFFFFFF"), 0x7E);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x43E80000, "80000000"), 0x7F);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0xC3F00000, "00000000"), 0xFF);
	ck_assert_uint_eq(amd("float32", "float8_e5m2", -1, 0x477FF000, "FFFFFFFF"), 0x7B); /* 65520, up */
	ck_assert_uint_eq(amd("float32", "float8_e5m2", -1, 0xFF800000, "00000000"), 0xFB); /* -inf */
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", -1, 0x41000000, "00000000"), 0x7); /* 8 */
	/* NaN: E4M3 S.1111.111, E5M2 S.11111.10; FP4 max with the NaN's sign */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0xFFC00000, "00000000"), 0xFF);
	ck_assert_uint_eq(amd("float32", "float8_e5m2", -1, 0xFFC00000, "00000000"), 0xFE);
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", -1, 0xFFC00000, "00000000"), 0xF);
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", -1, 0x7FC00000, "00000000"), 0x7);
}
END_TEST

/* The scale step: the value divided by 2^(code - 127) before rounding. */
START_TEST(amd_scale)
{
	/* 4.0 with code 128 is 2.0 (0x40), exact: no word rounds it */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 128, 0x40800000, "FFFFFFFF"), 0x40);
	/* code 255, E8M0's NaN: every value NaN with its sign, zero and inf too */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 255, 0x40800000, "00000000"), 0x7F);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 255, 0x80000000, "00000000"), 0xFF);
	ck_assert_uint_eq(amd("float32", "float8_e5m2", 255, 0x7F800000, "00000000"), 0x7E);
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", 255, 0xBF800000, "00000000"), 0xF);
	/* subnormal only after scaling: 0x3C880000 = 2^-6 + 2^-10 is normal
	 * (0x08 plus half a place); code 129 divides by 4 to 2^-8 + 2^-12, the
	 * subnormal case above: T = 0x20000, carry iff R >= 0xE0000 */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x3C880000, "DFFFFFFF"), 0x09);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 129, 0x3C880000, "DFFFFFFF"), 0x02);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 129, 0x3C880000, "E0000000"), 0x03);
	/* overflow only after scaling: code 126 doubles.  240 (0x43700000) ->
	 * 480, NaN even truncated; 224 -> 448 exact; 40000 -> 80000 saturates
	 * E5M2; E2M1 4 -> 8, max 6 */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", -1, 0x43700000, "00000000"), 0x77);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 126, 0x43700000, "00000000"), 0x7F);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 126, 0x43600000, "FFFFFFFF"), 0x7E);
	ck_assert_uint_eq(amd("float32", "float8_e5m2", 126, 0x471C4000, "00000000"), 0x7B);
	ck_assert_uint_eq(amd("float32", "float4_e2m1fn", 126, 0x40800000, "00000000"), 0x7);
	/* an FP32 subnormal source, normalised: 0x00440000 = 2^-127 (1 + 2^-4);
	 * code 0 multiplies by 2^127 to 1.0625, T = 0x80000: carry iff R >=
	 * 0x80000.  0x00000001 = 2^-149 becomes 2^-22: 2^-13 of E4M3's step
	 * 2^-9, T = 2^7, carry iff R >= 0xFFF80 */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 0, 0x00440000, "7FFFFFFF"), 0x38);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 0, 0x00440000, "80000000"), 0x39);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 0, 0x00000001, "FFF7FFFF"), 0x00);
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 0, 0x00000001, "FFF80000"), 0x01);
	/* code 127 is no scale at all */
	ck_assert_uint_eq(amd("float32", "float8_e4m3fn", 127, 0x3F880001, "7FFFEFFF"), 0x38);
}
END_TEST

/* Emulator = oracle under scales, for every amd-sr target and a plain
 * mode, and the array converter = one conversion at a time. */
START_TEST(scale_emu_equals_ref)
{
	static const char *const targets[][2] = {
		{ "float32", "float8_e4m3fn" }, { "float32", "float8_e5m2" },   { "float32", "float4_e2m1fn" },
		{ "float32", "float6_e2m3fn" }, { "float16", "float6_e3m2fn" }, { "bfloat16", "float8_e4m3fn" },
	};
	static const uint8_t codes[] = { 0, 1, 100, 117, 120, 126, 127, 128, 131, 140, 200, 254, 255 };
	unsigned stride = test_sample_stride();
	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
		for (int plain = 0; plain < 2; plain++)
			for (size_t c = 0; c < sizeof codes; c++) {
				struct fpref_env env = instruction("amd-sr", targets[t][0], targets[t][1]);
				set_word(&env, "seed=2027");
				if (plain) /* rne, ieee overflow: the scale step does not depend on the rounding */
					fpref_env_default(&env);
				env.pre_scale = true;
				env.pre_scale_code = codes[c];
				struct fpref_format f = test_format(targets[t][0]);
				for (uint64_t i = 0; i < 120; i++) {
					if (!test_sample_keep(stride, (t * 2 + (size_t)plain) * 4096 + c * 128 + i))
						continue;
					uint64_t r = fpref_sr_stream(300 + t, c * 128 + i), x = r >> 32;
					if (f.man_bits != 23)
						x >>= 16;
					both(targets[t][0], x, targets[t][1], &env, i);
				}
			}
	/* the bulk converter (its FP32 fast path is rne only) */
	struct fpref_format from = test_format("float32"), to = test_format("float8_e4m3fn");
	struct fpref_env env;
	fpref_env_default(&env);
	env.pre_scale = true;
	env.pre_scale_code = 131;
	uint32_t in[64];
	uint8_t out[64];
	for (size_t i = 0; i < 64; i++)
		in[i] = (uint32_t)(fpref_sr_stream(9, i) >> 32);
	in[0] = 0x43E00000; /* 448 / 16 = 28 = 2^4 * 1.75: field 4 + 7, mantissa 110, 0x5E */
	struct fpref_emu_converter *cv = fpref_emu_converter_new(&from, &to, &env);
	ck_assert_ptr_nonnull(cv);
	fpref_emu_convert_array(cv, in, out, 64, NULL, 0);
	ck_assert_uint_eq(out[0], 0x5E);
	for (size_t i = 0; i < 64; i++)
		ck_assert_uint_eq(out[i], both("float32", in[i], "float8_e4m3fn", &env, i));
	fpref_emu_converter_free(cv);
}
END_TEST

START_TEST(pre_scale_parse)
{
	struct fpref_env env;
	fpref_env_default(&env);
	char err[256];
	static const char *const bad[] = { "", "256", "-1", "+3", " 3", "0x", "0x100", "12a", "1.5", "1e2" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(fpref_env_parse_pre_scale(bad[i], &env, err, sizeof err) != 0, "'%s' accepted", bad[i]);
	ck_assert(!env.pre_scale);
	ck_assert_int_eq(fpref_env_parse_pre_scale("0127", &env, err, sizeof err), 0); /* decimal, not octal */
	ck_assert(env.pre_scale && env.pre_scale_code == 127);
	ck_assert_int_eq(fpref_env_parse_pre_scale("0xFF", &env, err, sizeof err), 0);
	ck_assert_uint_eq(env.pre_scale_code, 255);
}
END_TEST

/* Every row: emulator = oracle on seeded inputs (random patterns of the
 * source, so zeros, subnormals, overflow and NaN come up) and seeded words. */
START_TEST(emu_equals_ref)
{
	static const char *const cases[][3] = {
		{ "ptx-rs", "float32", "float8_e4m3fn" },     { "ptx-rs", "float32", "float8_e5m2" },
		{ "ptx-rs", "float32", "float6_e2m3fn" },     { "ptx-rs", "float32", "float6_e3m2fn" },
		{ "ptx-rs", "float32", "float4_e2m1fn" },     { "ptx-rs", "float32", "float16" },
		{ "ptx-rs", "float32", "bfloat16" },          { "te-nvfp4", "float32", "float4_e2m1fn" },
		{ "avx10-bias", "float16", "float8_e5m2" },   { "avx10-bias", "float16", "float8_e4m3fn" },
		{ "avx10-bias-s", "float16", "float8_e5m2" }, { "avx10-bias-s", "float16", "float8_e4m3fn" },
		{ "amd-sr", "float32", "float8_e4m3fn" },     { "amd-sr", "float32", "float8_e5m2" },
		{ "amd-sr", "float32", "float4_e2m1fn" },     { "amd-sr", "bfloat16", "float6_e2m3fn" },
		{ "amd-sr", "float16", "float6_e3m2fn" },
	};
	unsigned stride = test_sample_stride();
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct fpref_env env = instruction(cases[c][0], cases[c][1], cases[c][2]);
		set_word(&env, env.sr_philox ? "philox=2026:5:9" : "seed=2026");
		struct fpref_format f = test_format(cases[c][1]);
		for (uint64_t i = 0; i < 3000; i++) {
			if (!test_sample_keep(stride, c * 3000 + i))
				continue;
			uint64_t r = fpref_sr_stream(77 + c, i), x;
			/* the source's patterns, half of them within a few binades of the target's range */
			if (f.man_bits == 23)
				x = i & 1 ? r >> 32 : (r >> 32 & 0x807FFFFF) | (uint64_t)(127 - 12 + (r & 31)) << 23;
			else
				x = r >> 48;
			if (f.man_bits == 7)
				x = (x & 0x807F) | (uint64_t)(127 - 8 + (r & 15)) << 7;
			both(cases[c][1], x, cases[c][2], &env, i);
		}
	}
}
END_TEST

/* A seeded array conversion gives the same bits whatever its chunking:
 * value i takes word i / lanes of the stream wherever a chunk starts. */
START_TEST(chunking)
{
	enum { N = 1000 };
	static const char *const modes[][2] = { { "ptx-rs", "float8_e4m3fn" }, { "te-nvfp4", "float4_e2m1fn" },
						{ "amd-sr", "float8_e5m2" } };
	struct fpref_format from = test_format("float32");
	uint32_t in[N];
	for (size_t i = 0; i < N; i++)
		in[i] = (uint32_t)(fpref_sr_stream(5, i) >> 40) | 0x3F000000u; /* [0.5, 1) with 24 random bits */
	for (size_t m = 0; m < 3; m++) {
		struct fpref_env env = instruction(modes[m][0], "float32", modes[m][1]);
		set_word(&env, env.sr_philox ? "philox=1:2:3" : "seed=11");
		struct fpref_format to = test_format(modes[m][1]);
		struct fpref_emu_converter *c = fpref_emu_converter_new(&from, &to, &env);
		ck_assert_ptr_nonnull(c);
		uint8_t whole[N], part[N];
		fpref_emu_convert_array(c, in, whole, N, NULL, 0);
		static const size_t chunks[] = { 1, 3, 7, 64, 333 };
		size_t ups = 0;
		for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
			for (size_t at = 0; at < N; at += chunks[k]) {
				size_t n = at + chunks[k] > N ? N - at : chunks[k];
				fpref_emu_convert_array(c, in + at, part + at, n, NULL, at);
			}
			ck_assert_msg(memcmp(whole, part, N) == 0, "%s: chunks of %zu differ", modes[m][0], chunks[k]);
		}
		/* and the words do reach the result: a fixed word would round every
		 * value the same way; these round some up, some down */
		for (size_t i = 0; i < N; i++) {
			uint64_t down = 0;
			unsigned fl = 0;
			struct fpref_env rtz = env;
			rtz.rounding = FPREF_RTZ;
			fpref_emu_convert(&from, in[i], &to, &rtz, 0, &down, &fl);
			ups += whole[i] != down;
		}
		ck_assert_msg(ups > N / 10 && ups < N - N / 10, "%s: %zu of %d rounded up", modes[m][0], ups, N);
		fpref_emu_converter_free(c);
	}
}
END_TEST

START_TEST(bad_names)
{
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_format f32 = test_format("float32"), bf16 = test_format("bfloat16"), e5 = test_format("float8_e5m2");
	char err[256];
	ck_assert_int_eq(fpref_env_sr_instruction("ptx", &f32, &e5, &env, err, sizeof err), -2);
	ck_assert_int_eq(fpref_env_sr_instruction("amd-sr", &f32, &bf16, &env, err, sizeof err), -1);
	ck_assert_int_eq(fpref_env_sr_instruction("avx10-bias", &f32, &e5, &env, err, sizeof err), -1);
	ck_assert_int_eq(fpref_env_sr_instruction("ptx-rs", &f32, &e5, &env, err, sizeof err), 0);
	ck_assert_int_ne(fpref_env_parse_sr("123456789", &env, err, sizeof err), 0); /* 33 bits */
	ck_assert_int_ne(fpref_env_parse_sr("philox=", &env, err, sizeof err), 0);
	ck_assert_int_ne(fpref_env_parse_sr("philox=1:2:3:4:5", &env, err, sizeof err), 0);
	ck_assert_int_eq(fpref_env_parse_sr("philox=1:2", &env, err, sizeof err), 0);
	ck_assert(env.sr_philox && env.sr_seed == 1 && env.sr_offset == 2 && env.sr_subsequence == 0);
	ck_assert_uint_eq(env.sr_philox_rounds, 10);
	ck_assert_int_eq(fpref_env_parse_sr("philox=1:2:3:7", &env, err, sizeof err), 0);
	ck_assert_uint_eq(env.sr_philox_rounds, 7);
	ck_assert_int_ne(fpref_env_parse_sr("philox=1:2:3:0", &env, err, sizeof err), 0);
	ck_assert_int_ne(fpref_env_parse_sr("philox=1:", &env, err, sizeof err), 0);
	/* a plain mode forgets the instruction */
	ck_assert_int_eq(fpref_env_parse_rounding("sra", &env), 0);
	ck_assert_uint_eq(env.sr_lanes, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sr_instr");
	TCase *tc = tcase_create("sr_instr");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, philox_known_answers);
	tcase_add_test(tc, philox_stream_order);
	tcase_add_test(tc, ptx_fp8_fp6_lanes);
	tcase_add_test(tc, ptx_e2m1_lanes);
	tcase_add_test(tc, te_element_order);
	tcase_add_test(tc, ptx_x2_lanes);
	tcase_add_test(tc, avx10_bias);
	tcase_add_test(tc, avx10_bit_model);
	tcase_add_test(tc, amd_top_bits);
	tcase_add_test(tc, amd_scale);
	tcase_add_test(tc, scale_emu_equals_ref);
	tcase_add_test(tc, pre_scale_parse);
	tcase_add_test(tc, emu_equals_ref);
	tcase_add_test(tc, chunking);
	tcase_add_test(tc, bad_names);
	suite_add_tcase(s, tc);
	return test_run(s);
}
