/* Arithmetic: the emulator against the oracle, bit for bit and flag for
 * flag, on every operand pair of the narrow formats and on structured and
 * random operands of the wide ones. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* This file builds three programs, each registering some of the tests. */
#pragma GCC diagnostic ignored "-Wunused-variable"

/* Every mode (stochastic with two random words) under the default
 * policies, and every combination of the policies under rne and rup. */
static size_t op_envs(struct env_case *out, bool all_combinations)
{
	static const struct {
		unsigned width;
		uint64_t R;
	} sr[] = { { 4, 7 }, { 13, 0x1234 }, { 64, UINT64_C(0xfedcba9876543210) } };
	size_t n = 0;
	/* first the default policies under every mode, then the combinations */
	for (int bits = 0; bits < 16; bits++)
		for (int mode = FPREF_RNE; mode <= FPREF_SR; mode++)
			for (size_t w = 0; w < (mode == FPREF_SR ? sizeof sr / sizeof sr[0] : 1u); w++) {
				bool every = all_combinations || mode == FPREF_RNE || mode == FPREF_RUP;
				if (bits != 0 && !every)
					continue;
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
	struct env_case *c = &out[n++];
	fpref_env_default(&c->env);
	c->env.nan_style = FPREF_NAN_POSITIVE_ALL_ONES;
	c->env.overflow = FPREF_OVERFLOW_SAT;
	c->env.sat_inf_to_nan = true;
	c->R = 0;
	c = &out[n++];
	fpref_env_default(&c->env);
	c->env.nan_to_flipped_zero = true;
	c->env.underflow_to_least = true;
	c->R = 0;
	return n;
}

static unsigned long mismatches, compared;

static void compare_op(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct env_case *c)
{
	uint64_t want = 0, got = 0;
	unsigned want_flags = 0, got_flags = 0;
	int rr = fpref_ref_op(op, f, in, &c->env, c->R, &want, &want_flags);
	int re = fpref_emu_op(op, f, in, &c->env, c->R, &got, &got_flags);
	compared++;
	if (rr == re && want == got && want_flags == got_flags)
		return;
	if (mismatches++ < 20) {
		char envtext[160];
		fpref_env_describe(&c->env, envtext, sizeof envtext);
		fprintf(stderr, "%s %s(%llx, %llx, %llx) [%s R=%llx]: oracle %llx/%02x (%d), emulator %llx/%02x (%d)\n",
			f->name, fpref_op_name(op), (unsigned long long)in[0], (unsigned long long)in[1],
			(unsigned long long)in[2], envtext, (unsigned long long)c->R, (unsigned long long)want,
			want_flags, rr, (unsigned long long)got, got_flags, re);
	}
}

static const char *const narrow[] = {
	"float8_e4m3fn", "float8_e5m2", "float8_e4m3", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
	"float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
	"e4m3,subnormals=off", "e2m2,specials=none,unsigned", "e3m1,specials=fn,bias=2",
};

/* Every operand pair (every operand for sqrt) of a narrow format through
 * every operation; fma on every triple of the formats of 6 bits or fewer.
 * Under FPREF_TEST_SAMPLE=reduced, a seeded sample of the (operands,
 * environment) cases. */
START_TEST(narrow_every_pair)
{
	struct fpref_format f = test_format(narrow[_i]);
	struct env_case envs[512];
	size_t nenv = op_envs(envs, true);
	uint64_t codes = (uint64_t)1 << fpref_format_container_bits(&f);
	unsigned stride = test_sample_stride();
	mismatches = compared = 0;
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		int arity = fpref_op_arity((enum fpref_op)op);
		bool rounds = op < FPREF_OP_MIN;
		if (arity == 3 && codes > 64)
			continue;
		uint64_t total = arity == 1 ? codes : arity == 2 ? codes * codes : codes * codes * codes;
		for (uint64_t k = 0; k < total; k++) {
			uint64_t in[3] = { k % codes, (k / codes) % codes, k / codes / codes };
			for (size_t c = 0; c < nenv; c++) {
				/* min, max and the comparisons never round: two environments (daz or not) suffice */
				if (!rounds && c > 0 && !(envs[c].env.daz && envs[c].env.rounding == FPREF_RNE &&
							  !envs[c].env.ftz && envs[c].env.overflow == FPREF_OVERFLOW_IEEE &&
							  envs[c].env.tininess == FPREF_TININESS_AFTER))
					continue;
				if (!test_sample_keep(stride, (((uint64_t)_i << 8 | (uint64_t)op) << 40 | k) * nenv + c))
					continue;
				compare_op((enum fpref_op)op, &f, in, &envs[c]);
			}
		}
	}
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu results differ (first ones on stderr)", f.name, mismatches,
		      compared);
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

/* A structured operand of f: zeros, infinities, NaNs, the extremes and
 * their neighbours, subnormals, powers of two, runs of ones, or random. */
static uint64_t structured(const struct fpref_format *f, uint64_t *state)
{
	uint64_t r = next_random(state);
	int M = f->man_bits, E = f->exp_bits;
	uint64_t mant_mask = (UINT64_C(1) << M) - 1, top = (UINT64_C(1) << E) - 1;
	uint64_t sign = (r >> 63) ? UINT64_C(1) << (E + M) : 0;
	uint64_t field, mant;
	uint64_t pick = (r >> 4) & 15;
	uint64_t rm = next_random(state);
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
	return (sign | field << M | mant) << f->pad_bits;
}

/* The second operand is often tied to the first: equal, negated, a unit
 * apart, or scaled, to reach cancellation and ties. */
static uint64_t partner(const struct fpref_format *f, uint64_t a, uint64_t *state)
{
	uint64_t r = next_random(state);
	uint64_t sign = UINT64_C(1) << (f->exp_bits + f->man_bits + f->pad_bits);
	uint64_t unit = UINT64_C(1) << f->pad_bits;
	switch (r & 7) {
	case 0: return a;
	case 1: return a ^ sign;
	case 2: return (a ^ sign) + unit;
	case 3: return (a ^ sign) - unit;
	case 4: return a + ((r >> 8) & 3) * (unit << f->man_bits);
	default: return structured(f, state);
	}
}

static const char *const wide_formats[] = { "float16", "bfloat16", "tf32", "float32", "float64" };

/* 16-bit formats: a million structured cases per operation, each under
 * every rounding mode; wider formats: a million per operation, the modes
 * taken in turn.  Every 32nd case also runs under every policy
 * combination of rne and rup. */
START_TEST(wide_structured)
{
	struct fpref_format f = test_format(wide_formats[_i]);
	struct env_case envs[512];
	size_t nenv = op_envs(envs, false);
	size_t nbase = 9; /* rne rna rtz rup rdn rod and three stochastic words: the default policies */
	bool sixteen = fpref_format_container_bits(&f) <= 16;
	unsigned long per_op = (getenv("FPREF_EXHAUSTIVE") ? 20000000 : 1000000) / test_sample_stride();
	uint64_t mask = fpref_format_container_bits(&f) >= 64 ? ~UINT64_C(0)
							     : (UINT64_C(1) << fpref_format_container_bits(&f)) - 1;
	uint64_t state = 1000 + (uint64_t)_i;
	mismatches = compared = 0;
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		bool rounds = op < FPREF_OP_MIN;
		unsigned long cases = rounds ? per_op : per_op / 10;
		for (unsigned long k = 0; k < cases; k++) {
			uint64_t in[3];
			in[0] = structured(&f, &state);
			in[1] = partner(&f, in[0], &state) & mask;
			in[2] = (next_random(&state) & 1 ? partner(&f, in[0], &state) : structured(&f, &state)) & mask;
			if (sixteen || !rounds) {
				for (size_t c = 0; c < nbase; c++)
					compare_op((enum fpref_op)op, &f, in, &envs[c]);
			} else {
				compare_op((enum fpref_op)op, &f, in, &envs[k % nbase]);
			}
			if (k % 32 == 0)
				for (size_t c = nbase; c < nenv; c++)
					compare_op((enum fpref_op)op, &f, in, &envs[c]);
		}
	}
	ck_assert_uint_ge(compared, 6 * per_op);
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu results differ (first ones on stderr)", f.name, mismatches,
		      compared);
}
END_TEST

/* Every float16 and bfloat16 square root, every environment. */
START_TEST(sqrt_sixteen_bit_exhaustive)
{
	struct fpref_format f = test_format(_i ? "bfloat16" : "float16");
	struct env_case envs[512];
	size_t nenv = op_envs(envs, false);
	unsigned stride = test_sample_stride();
	mismatches = compared = 0;
	for (uint64_t a = 0; a < 65536; a++)
		for (size_t c = 0; c < nenv; c++)
			if (test_sample_keep(stride, ((uint64_t)_i << 40 | a) * nenv + c))
				compare_op(FPREF_OP_SQRT, &f, (uint64_t[3]){ a, 0, 0 }, &envs[c]);
	ck_assert_msg(mismatches == 0, "%s: %lu of %lu square roots differ", f.name, mismatches, compared);
}
END_TEST

/* make check-exhaustive only: every FP16 operand pair through add, sub, mul
 * and div under every rounding mode (2^32 pairs each; FPREF_SHARD splits). */
START_TEST(f16_every_pair)
{
	if (!getenv("FPREF_EXHAUSTIVE"))
		return;
	static const enum fpref_op binary[] = { FPREF_OP_ADD, FPREF_OP_SUB, FPREF_OP_MUL, FPREF_OP_DIV };
	struct test_shard shard = test_shard_from_env();
	struct fpref_format f = test_format("float16");
	struct env_case envs[512];
	op_envs(envs, false);
	mismatches = compared = 0;
	unsigned long long chunk = 0;
	for (size_t o = 0; o < 4; o++)
		for (size_t c = 0; c < 9; c++)
			for (uint64_t a = 0; a < 65536; a++, chunk++) {
				if (!test_shard_owns(shard, chunk))
					continue;
				for (uint64_t b = 0; b < 65536; b++)
					compare_op(binary[o], &f, (uint64_t[3]){ a, b, 0 }, &envs[c]);
			}
	ck_assert_msg(mismatches == 0, "float16: %lu of %lu results differ", mismatches, compared);
}
END_TEST

/* The array API (tables for narrow formats) against fpref_emu_op. */
START_TEST(op_array_matches_op)
{
	struct fpref_format f = test_format(narrow[_i]);
	struct env_case envs[512];
	size_t nenv = op_envs(envs, false);
	unsigned codes = 1u << fpref_format_container_bits(&f);
	size_t n = (size_t)codes * codes;
	uint8_t *a = malloc(n), *b = malloc(n), *out = malloc(n), *flags = malloc(n);
	for (size_t k = 0; k < n; k++) {
		a[k] = (uint8_t)(k % codes);
		b[k] = (uint8_t)(k / codes);
	}
	unsigned long bad = 0;
	unsigned stride = test_sample_stride();
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		if (fpref_op_arity((enum fpref_op)op) == 3)
			continue;
		for (size_t c = 0; c < nenv; c += 5) {
			struct fpref_emu_op_context *ctx = fpref_emu_op_context_new((enum fpref_op)op, &f, &envs[c].env);
			ck_assert_ptr_nonnull(ctx);
			fpref_emu_op_array(ctx, a, b, NULL, out, n, flags, 0);
			fpref_emu_op_context_free(ctx);
			for (size_t k = 0; k < n; k++) {
				if (!test_sample_keep(stride, ((uint64_t)op << 32 | c) * n + k))
					continue;
				uint64_t in[3] = { a[k], b[k], 0 }, want = 0;
				unsigned want_flags = 0;
				fpref_emu_op((enum fpref_op)op, &f, in, &envs[c].env,
					     fpref_env_sr_random(&envs[c].env, k), &want, &want_flags);
				if ((out[k] != want || flags[k] != want_flags) && bad++ < 10)
					fprintf(stderr, "%s %s(%x, %x): array %x/%02x, op %llx/%02x\n", f.name,
						fpref_op_name((enum fpref_op)op), a[k], b[k], out[k], flags[k],
						(unsigned long long)want, want_flags);
			}
		}
	}
	free(a);
	free(b);
	free(out);
	free(flags);
	ck_assert_msg(bad == 0, "%s: %lu array elements differ", f.name, bad);
}
END_TEST

/* The fixed-point path of 16-bit add, sub and mul (rne, bits only)
 * against fpref_emu_op: 2^22 structured and random pairs per operation,
 * policy and format here, every pair of FP16 in make check-exhaustive. */
static const char *const fixed_formats[] = {
	"float16", "e5m10,specials=fn", "e5m10,specials=fnuz,bias=16", "custom:e4m9", "e5m8,specials=none",
};

START_TEST(fixed_point_path_matches_op)
{
	struct fpref_format f = test_format(fixed_formats[_i]);
	static const enum fpref_op ops[] = { FPREF_OP_ADD, FPREF_OP_SUB, FPREF_OP_MUL };
	bool exhaustive = getenv("FPREF_EXHAUSTIVE") != NULL && _i == 0;
	struct test_shard shard = test_shard_from_env();
	size_t n = (size_t)1 << 20;
	uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *out = malloc(n * 2);
	uint64_t state = 77, mask = (UINT64_C(1) << fpref_format_container_bits(&f)) - 1;
	unsigned long bad = 0;
	unsigned stride = exhaustive ? 1 : test_sample_stride();
	for (int sat = 0; sat < 2; sat++)
		for (size_t o = 0; o < 3; o++) {
			struct fpref_env env;
			fpref_env_default(&env);
			env.overflow = sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
			struct fpref_emu_op_context *ctx = fpref_emu_op_context_new(ops[o], &f, &env);
			uint64_t blocks = exhaustive ? 4096 : 4;
			for (uint64_t blk = 0; blk < blocks; blk++) {
				if (exhaustive && !test_shard_owns(shard, blk + 4096 * (o + 3 * (uint64_t)sat)))
					continue;
				for (size_t i = 0; i < n; i++) {
					if (exhaustive) {
						uint64_t k = blk * n + i;
						a[i] = (uint16_t)(k >> 16), b[i] = (uint16_t)k;
					} else if (i % 2) {
						a[i] = (uint16_t)(structured(&f, &state) & mask);
						b[i] = (uint16_t)(partner(&f, a[i], &state) & mask);
					} else {
						a[i] = (uint16_t)(next_random(&state) & mask);
						b[i] = (uint16_t)(next_random(&state) & mask);
					}
				}
				fpref_emu_op_array(ctx, a, b, NULL, out, n, NULL, 0);
				for (size_t i = 0; i < n; i++) {
					if (!test_sample_keep(stride, (blk * 6 + o + 3 * (uint64_t)sat) * n + i))
						continue;
					uint64_t in[3] = { a[i], b[i], 0 }, want = 0;
					unsigned fl = 0;
					fpref_emu_op(ops[o], &f, in, &env, 0, &want, &fl);
					if (out[i] != want && bad++ < 10)
						fprintf(stderr, "%s %s%s(%04x, %04x): fixed %04x, core %04llx\n", f.name,
							fpref_op_name(ops[o]), sat ? " sat" : "", a[i], b[i], out[i],
							(unsigned long long)want);
				}
			}
			fpref_emu_op_context_free(ctx);
		}
	free(a);
	free(b);
	free(out);
	ck_assert_msg(bad == 0, "%s: %lu elements differ from the core", f.name, bad);
}
END_TEST

/* Hand-worked cases of the rules in README.md. */
START_TEST(rules)
{
	struct fpref_format f16 = test_format("f16"), e4m3 = test_format("e4m3"), e2m1 = test_format("e2m1");
	struct fpref_env env;
	fpref_env_default(&env);
	struct {
		enum fpref_op op;
		const struct fpref_format *f;
		uint64_t a, b, c;
		bool rdn, sat;
		uint64_t want;
		unsigned flags;
	} cases[] = {
		{ FPREF_OP_ADD, &f16, 0x3C00, 0xBC00, 0, 0, 0, 0x0000, 0x00 },  /* 1 - 1 = +0 */
		{ FPREF_OP_ADD, &f16, 0x3C00, 0xBC00, 0, 1, 0, 0x8000, 0x00 },  /* ... -0 toward -inf */
		{ FPREF_OP_ADD, &f16, 0x8000, 0x8000, 0, 0, 0, 0x8000, 0x00 },  /* -0 + -0 = -0 */
		{ FPREF_OP_ADD, &f16, 0x7C00, 0xFC00, 0, 0, 0, 0x7E00, 0x10 },  /* inf - inf: invalid */
		{ FPREF_OP_ADD, &f16, 0x7BFF, 0x7BFF, 0, 0, 0, 0x7C00, 0x05 },  /* overflow */
		{ FPREF_OP_ADD, &f16, 0x7BFF, 0x7BFF, 0, 0, 1, 0x7BFF, 0x05 },  /* saturated */
		{ FPREF_OP_ADD, &f16, 0x3C00, 0x0001, 0, 0, 0, 0x3C00, 0x01 },  /* swamped */
		{ FPREF_OP_ADD, &f16, 0x6800, 0x3C00, 0, 0, 0, 0x6800, 0x01 },  /* 2048 + 1: the seed's swamping tie */
		{ FPREF_OP_ADD, &f16, 0x6800, 0x4000, 0, 0, 0, 0x6801, 0x00 },  /* 2048 + 2 */
		{ FPREF_OP_MUL, &f16, 0x0000, 0x7C00, 0, 0, 0, 0x7E00, 0x10 },  /* 0 * inf */
		{ FPREF_OP_MUL, &f16, 0x0400, 0x3800, 0, 0, 0, 0x0200, 0x00 },  /* exact subnormal: no underflow */
		{ FPREF_OP_MUL, &f16, 0x0001, 0x3800, 0, 0, 0, 0x0000, 0x03 },  /* half the least subnormal: tie to 0 */
		{ FPREF_OP_DIV, &f16, 0x3C00, 0x0000, 0, 0, 0, 0x7C00, 0x08 },  /* 1/0 */
		{ FPREF_OP_DIV, &f16, 0xBC00, 0x0000, 0, 0, 0, 0xFC00, 0x08 },
		{ FPREF_OP_DIV, &f16, 0x0000, 0x0000, 0, 0, 0, 0x7E00, 0x10 },
		{ FPREF_OP_DIV, &f16, 0x3C00, 0x4200, 0, 0, 0, 0x3555, 0x01 },  /* 1/3 */
		{ FPREF_OP_SQRT, &f16, 0x8000, 0, 0, 0, 0, 0x8000, 0x00 },       /* sqrt(-0) = -0 */
		{ FPREF_OP_SQRT, &f16, 0xBC00, 0, 0, 0, 0, 0x7E00, 0x10 },
		{ FPREF_OP_SQRT, &f16, 0x4400, 0, 0, 0, 0, 0x4000, 0x00 },       /* sqrt(4) = 2 */
		{ FPREF_OP_FMA, &f16, 0x0000, 0x7C00, 0x7E00, 0, 0, 0x7E00, 0x10 }, /* 0*inf + qNaN: invalid */
		{ FPREF_OP_FMA, &f16, 0x3C00, 0x3C00, 0xBC00, 0, 0, 0x0000, 0x00 },
		{ FPREF_OP_MIN, &f16, 0x0000, 0x8000, 0, 0, 0, 0x8000, 0x00 },  /* -0 < +0 */
		{ FPREF_OP_MAX, &f16, 0x8000, 0x0000, 0, 0, 0, 0x0000, 0x00 },
		{ FPREF_OP_MIN, &f16, 0x3C00, 0x7E00, 0, 0, 0, 0x7E00, 0x00 },  /* NaN propagates */
		{ FPREF_OP_MAX, &f16, 0x3C00, 0x7D00, 0, 0, 0, 0x7E00, 0x10 },  /* signaling */
		{ FPREF_OP_EQ, &f16, 0x0000, 0x8000, 0, 0, 0, 1, 0x00 },
		{ FPREF_OP_EQ, &f16, 0x7E00, 0x7E00, 0, 0, 0, 0, 0x00 },        /* quiet */
		{ FPREF_OP_LT, &f16, 0x7E00, 0x3C00, 0, 0, 0, 0, 0x10 },        /* signaling */
		{ FPREF_OP_LE, &f16, 0xFC00, 0x7C00, 0, 0, 0, 1, 0x00 },
		{ FPREF_OP_ADD, &e4m3, 0x7E, 0x7E, 0, 0, 0, 0x7F, 0x05 },       /* 448 + 448: NaN */
		{ FPREF_OP_ADD, &e4m3, 0x7E, 0x7E, 0, 0, 1, 0x7E, 0x05 },
		{ FPREF_OP_DIV, &e4m3, 0x38, 0x00, 0, 0, 0, 0x7F, 0x18 },       /* 1/0: no inf, so NaN */
		{ FPREF_OP_DIV, &e4m3, 0x38, 0x80, 0, 0, 1, 0xFE, 0x0D },       /* 1/-0 saturated */
		{ FPREF_OP_MUL, &e2m1, 0x7, 0x7, 0, 0, 0, 0x7, 0x05 },          /* 6*6: max, nothing else */
		{ FPREF_OP_DIV, &e2m1, 0x0, 0x0, 0, 0, 0, 0x7, 0x10 },          /* 0/0: no NaN, +max */
		{ FPREF_OP_SUB, &e2m1, 0x2, 0x2, 0, 0, 0, 0x0, 0x00 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		env.rounding = cases[i].rdn ? FPREF_RDN : FPREF_RNE;
		env.overflow = cases[i].sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
		uint64_t in[3] = { cases[i].a, cases[i].b, cases[i].c };
		for (int engine = 0; engine < 2; engine++) {
			uint64_t out = 0;
			unsigned flags = 0;
			int r = engine ? fpref_emu_op(cases[i].op, cases[i].f, in, &env, 0, &out, &flags)
				       : fpref_ref_op(cases[i].op, cases[i].f, in, &env, 0, &out, &flags);
			ck_assert_msg(r == 0 && out == cases[i].want && flags == cases[i].flags,
				      "case %zu %s (%s): got %llx/%02x, want %llx/%02x", i, fpref_op_name(cases[i].op),
				      engine ? "emu" : "ref", (unsigned long long)out, flags,
				      (unsigned long long)cases[i].want, cases[i].flags);
		}
	}
	/* Too wide for the arithmetic: refused by both engines. */
	struct fpref_format wide = test_format("custom:e8m55");
	uint64_t in[3] = { 0, 0, 0 }, out;
	unsigned flags = 0;
	ck_assert_int_eq(fpref_ref_op(FPREF_OP_ADD, &wide, in, &env, 0, &out, &flags), -1);
	ck_assert_int_eq(fpref_emu_op(FPREF_OP_ADD, &wide, in, &env, 0, &out, &flags), -1);
}
END_TEST

/* NaN signs, both engines: a NaN operand of either sign in every position
 * of every operation that returns a number gives the canonical NaN with the
 * first NaN's sign (invalid when it signals); fma(0, inf, c) and
 * fma(inf, 0, c) are invalid operations and give +NaN whatever c is. */
START_TEST(nan_signs)
{
	struct fpref_format f16 = test_format("f16");
	struct fpref_env env;
	fpref_env_default(&env);
	static const enum fpref_op ops[] = { FPREF_OP_ADD, FPREF_OP_SUB, FPREF_OP_MUL, FPREF_OP_DIV,
					     FPREF_OP_SQRT, FPREF_OP_FMA, FPREF_OP_MIN, FPREF_OP_MAX };
	static const uint64_t nans[] = { 0x7E00, 0xFE00, 0x7D00, 0xFD00 }; /* +q, -q, +s, -s */
	unsigned checked = 0;
	for (int engine = 0; engine < 2; engine++) {
		for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
			int n = fpref_op_arity(ops[o]);
			for (int pos = 0; pos < n; pos++)
				for (size_t k = 0; k < 4; k++) {
					/* the other operands 1.5; a second NaN of the other sign after it */
					for (int second = 0; second < 2 && (second == 0 || pos + 1 < n); second++) {
						uint64_t in[3] = { 0x3E00, 0x3E00, 0x3E00 }, out = 0;
						in[pos] = nans[k];
						if (second)
							in[pos + 1] = 0x7E00 ^ (nans[k] & 0x8000) ^ 0x8000;
						unsigned flags = 0;
						int r = engine ? fpref_emu_op(ops[o], &f16, in, &env, 0, &out, &flags)
							       : fpref_ref_op(ops[o], &f16, in, &env, 0, &out, &flags);
						uint64_t want = 0x7E00 | (nans[k] & 0x8000);
						unsigned want_flags = k >= 2 ? FPREF_FLAG_INVALID : 0;
						ck_assert_msg(r == 0 && out == want && flags == want_flags,
							      "%s %s(%04llx, %04llx, %04llx): %04llx/%02x, want %04llx/%02x",
							      engine ? "emu" : "ref", fpref_op_name(ops[o]),
							      (unsigned long long)in[0], (unsigned long long)in[1],
							      (unsigned long long)in[2], (unsigned long long)out, flags,
							      (unsigned long long)want, want_flags);
						checked++;
					}
				}
		}
		/* fma(+-0, +-inf, NaN c) and fma(+-inf, +-0, c): +NaN, invalid, for every c */
		for (int swap = 0; swap < 2; swap++)
			for (int signs = 0; signs < 4; signs++)
				for (size_t k = 0; k < 4; k++) {
					uint64_t zero = signs & 1 ? 0x8000 : 0x0000, inf = signs & 2 ? 0xFC00 : 0x7C00;
					uint64_t in[3] = { swap ? inf : zero, swap ? zero : inf, nans[k] }, out = 0;
					unsigned flags = 0;
					int r = engine ? fpref_emu_op(FPREF_OP_FMA, &f16, in, &env, 0, &out, &flags)
						       : fpref_ref_op(FPREF_OP_FMA, &f16, in, &env, 0, &out, &flags);
					ck_assert_msg(r == 0 && out == 0x7E00 && flags == FPREF_FLAG_INVALID,
						      "%s fma(%04llx, %04llx, %04llx): %04llx/%02x, want 7e00/10",
						      engine ? "emu" : "ref", (unsigned long long)in[0],
						      (unsigned long long)in[1], (unsigned long long)in[2],
						      (unsigned long long)out, flags);
					checked++;
				}
	}
	ck_assert_uint_eq(checked, 2 * (4 * (2 + 2 + 2 + 2 + 1 + 3 + 2 + 2) + 4 * (1 + 1 + 1 + 1 + 0 + 2 + 1 + 1) + 32));
}
END_TEST

/* The narrow sweep is the longest: it is built into two more programs,
 * each taking half of the formats, so that make -j2 check runs them side by
 * side (FPREF_OPS_NARROW_PART is 0 or 1 there). */
int main(void)
{
	Suite *s = suite_create("ops");
	TCase *cases[8];
	size_t ncases = 0;
#ifdef FPREF_OPS_NARROW_PART
	TCase *narrow_case = tcase_create("narrow");
	for (int i = FPREF_OPS_NARROW_PART; i < (int)(sizeof narrow / sizeof narrow[0]); i += 2)
		tcase_add_loop_test(narrow_case, narrow_every_pair, i, i + 1);
	cases[ncases++] = narrow_case;
#else
	TCase *rules_case = tcase_create("rules");
	tcase_add_test(rules_case, rules);
	tcase_add_test(rules_case, nan_signs);
	TCase *wide_case = tcase_create("wide");
	tcase_add_loop_test(wide_case, wide_structured, 0, (int)(sizeof wide_formats / sizeof wide_formats[0]));
	tcase_add_loop_test(wide_case, sqrt_sixteen_bit_exhaustive, 0, 2);
	TCase *array_case = tcase_create("array");
	tcase_add_loop_test(array_case, op_array_matches_op, 0, (int)(sizeof narrow / sizeof narrow[0]));
	tcase_add_loop_test(array_case, fixed_point_path_matches_op, 0,
			    (int)(sizeof fixed_formats / sizeof fixed_formats[0]));
	TCase *every = tcase_create("f16-every-pair");
	tcase_add_test(every, f16_every_pair);
	cases[ncases++] = rules_case;
	cases[ncases++] = wide_case;
	cases[ncases++] = array_case;
	cases[ncases++] = every;
#endif
	for (size_t i = 0; i < ncases; i++) {
		tcase_set_timeout(cases[i], 1800);
		suite_add_tcase(s, cases[i]);
	}
	return test_run(s);
}
