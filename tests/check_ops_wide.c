/* Arithmetic on the wide formats, emulator against oracle through the
 * test driver (driver.h): structured operands of every format wider than 8
 * bits on the driver's list, the special operands of every format in every
 * position (checked against the special-value rules as well), every
 * float16 and bfloat16 square root; the fixed-point path; hand-worked
 * rules.  The narrow formats are check_ops's. */
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* Formats the arithmetic takes that check_ops does not sweep whole. */
static bool is_wide(const struct fpref_format *f)
{
	return fpref_format_container_bits(f) > 8 && f->man_bits <= FPREF_OP_MAX_MAN_BITS;
}

/* The catalogue's formats of 16 bits (FP16, BF16): a million structured
 * cases per operation, each under every rounding mode; wider formats and
 * the custom rows (e6m9, e8m3): a million per operation, the modes taken
 * in turn.  Every 32nd case also runs under every policy combination of
 * rne and rup, the knobs and a sample of the P3109 rows. */
START_TEST(wide_structured)
{
	struct fpref_format f = drv_format((size_t)_i);
	if (!is_wide(&f))
		return;
	struct env_case modes[DRV_MAX_ENVS], policies[DRV_MAX_ENVS], kept[DRV_MAX_ENVS];
	size_t nmodes = drv_envs(DRV_ENVS_MODES, modes), npolicies = drv_envs(DRV_ENVS_OPS_POLICIES, policies);
	bool sixteen = fpref_format_container_bits(&f) <= 16 && (size_t)_i < fpref_format_count();
	struct drv_sweep sweep = drv_sweep_from_env();
	struct drv_sweep one = sweep; /* the cases are sampled already (per_op) */
	one.stride = 1;
	unsigned long per_op = (sweep.exhaustive ? 20000000 : 1000000) / sweep.stride;
	uint64_t mask = fpref_format_container_bits(&f) >= 64 ? ~UINT64_C(0)
							     : (UINT64_C(1) << fpref_format_container_bits(&f)) - 1;
	uint64_t state = 1000 + (uint64_t)_i;
	struct drv_stats st = { 0 };
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		bool rounds = op < FPREF_OP_MIN;
		unsigned long cases = rounds ? per_op : per_op / 10;
		for (unsigned long k = 0; k < cases; k++) {
			uint64_t in[3];
			in[0] = drv_structured(&f, &state);
			in[1] = drv_partner(&f, in[0], &state) & mask;
			in[2] = (drv_random(&state) & 1 ? drv_partner(&f, in[0], &state) : drv_structured(&f, &state)) & mask;
			/* every shard draws every case (the generator is a sequence) and compares its own */
			if (!drv_owns_case(&sweep, (uint64_t)_i * FPREF_OP_COUNT + (uint64_t)op, k))
				continue;
			if (sixteen || !rounds)
				drv_compare_op(&st, (enum fpref_op)op, &f, in, modes, nmodes);
			else
				drv_compare_op(&st, (enum fpref_op)op, &f, in, &modes[k % nmodes], 1);
			if (k % 32 == 0) { /* the P3109 rows among them one time in DRV_P3109_STRIDE */
				size_t m = 0;
				for (size_t c = 0; c < npolicies; c++)
					if (drv_keep(&one, (((uint64_t)_i << 8 | (uint64_t)op) << 32 | k) * npolicies + c,
						     &policies[c]))
						kept[m++] = policies[c];
				drv_compare_op(&st, (enum fpref_op)op, &f, in, kept, m);
			}
		}
	}
	/* each of the six rounding operations' per_op cases, less a block per shard boundary */
	long long least = 6 * ((long long)(per_op / sweep.shard.count) - DRV_BLOCK);
	ck_assert_msg((long long)st.compared >= least, "%llu comparisons", st.compared);
	drv_report(&st, "structured operands", f.name);
}
END_TEST

/* The special operands (both zeros, both infinities, NaNs of both signs
 * and several payloads, quiet and signaling, the extremes) in every
 * position: every pair through every binary operation (formats of more
 * than 8 bits: check_ops has every pair of the others), every triple
 * through fma, under every mode and every policy combination of rne and
 * rup (fma: rne with and without daz). */
START_TEST(special_operands)
{
	struct fpref_format f = drv_format((size_t)_i);
	if (f.man_bits > FPREF_OP_MAX_MAN_BITS)
		return;
	struct env_case envs[DRV_MAX_ENVS], kept[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_MODES, envs);
	nenv += drv_envs(DRV_ENVS_OPS_POLICIES, envs + nenv);
	struct env_case fma_envs[2] = { envs[0], envs[0] };
	fma_envs[1].env.daz = true;
	uint64_t sp[DRV_MAX_SPECIALS];
	size_t n = drv_specials(&f, sp);
	struct drv_sweep sweep = drv_sweep_from_env();
	struct drv_stats st = { 0 };
	unsigned long long index = 0;
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		int arity = fpref_op_arity((enum fpref_op)op);
		if (arity < 3 && fpref_format_container_bits(&f) <= 8)
			continue;
		size_t total = arity == 1 ? n : arity == 2 ? n * n : n * n * n;
		for (size_t k = 0; k < total; k++, index++) {
			if (!drv_owns_case(&sweep, (uint64_t)_i * FPREF_OP_COUNT + (uint64_t)op, k))
				continue;
			uint64_t in[3] = { sp[k % n], sp[k / n % n], sp[k / n / n % n] };
			if (arity == 3) {
				drv_compare_op(&st, (enum fpref_op)op, &f, in, fma_envs, drv_sampled(&sweep, index) ? 2 : 0);
				continue;
			}
			size_t m = 0;
			for (size_t c = 0; c < nenv; c++)
				if (drv_keep(&sweep, index * nenv + c, &envs[c]))
					kept[m++] = envs[c];
			drv_compare_op(&st, (enum fpref_op)op, &f, in, kept, m);
		}
	}
	drv_report(&st, "special operands", f.name);
}
END_TEST

/* golden/'s structured operand sets (fpref_golden_op_structured: the
 * cases its edge generator writes, one generator for both) of every format
 * and operation that check_ops does not sweep whole (every operation of
 * the formats wider than 8 bits, fma of those of 7 and 8), under every
 * mode, every policy combination of rne and rup, the knobs and a sample of
 * the P3109 rows. */
struct golden_sweep {
	struct drv_stats st;
	struct drv_sweep sweep;
	enum fpref_op op;
	const struct fpref_format *f;
	const struct env_case *envs;
	size_t nenv;
	unsigned long long key, index;
	struct env_case kept[DRV_MAX_ENVS];
};

static void golden_case(void *ctx, const uint64_t in[3])
{
	struct golden_sweep *g = ctx;
	unsigned long long k = g->index++;
	if (!drv_owns_case(&g->sweep, g->key, k))
		return;
	size_t m = 0;
	for (size_t c = 0; c < g->nenv; c++)
		if (drv_keep(&g->sweep, (g->key << 32 | k) * g->nenv + c, &g->envs[c]))
			g->kept[m++] = g->envs[c];
	uint64_t operands[3] = { in[0], in[1], in[2] };
	drv_compare_op(&g->st, g->op, g->f, operands, g->kept, m);
}

START_TEST(golden_structured)
{
	struct fpref_format f = drv_format((size_t)_i);
	if (f.man_bits > FPREF_OP_MAX_MAN_BITS)
		return;
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_MODES, envs);
	nenv += drv_envs(DRV_ENVS_OPS_POLICIES, envs + nenv);
	struct golden_sweep g = { .sweep = drv_sweep_from_env(), .f = &f, .envs = envs, .nenv = nenv };
	int bits = fpref_format_container_bits(&f);
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		/* check_ops compares every operand tuple of these already */
		if (bits <= 6 || (bits <= 8 && fpref_op_arity((enum fpref_op)op) < 3))
			continue;
		g.op = (enum fpref_op)op;
		g.key = (unsigned long long)_i * FPREF_OP_COUNT + (unsigned long long)op;
		g.index = 0;
		/* the default suite's seed (golden/suites/default.suite) */
		fpref_golden_op_structured(g.op, &f, UINT64_C(20261130) + g.key, golden_case, &g);
	}
	drv_report(&g.st, "golden/'s structured operands", f.name);
}
END_TEST

/* Every float16 and bfloat16 square root, every mode and policy. */
START_TEST(sqrt_sixteen_bit_exhaustive)
{
	struct fpref_format f = test_format(_i ? "bfloat16" : "float16");
	struct env_case envs[DRV_MAX_ENVS], kept[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_MODES, envs);
	nenv += drv_envs(DRV_ENVS_OPS_POLICIES, envs + nenv);
	struct drv_sweep sweep = drv_sweep_from_env();
	struct drv_stats st = { 0 };
	for (uint64_t a = 0; a < 65536; a++) {
		if (!drv_owns_case(&sweep, (unsigned long long)_i, a))
			continue;
		size_t m = 0;
		for (size_t c = 0; c < nenv; c++)
			if (drv_keep(&sweep, ((uint64_t)_i << 40 | a) * nenv + c, &envs[c]))
				kept[m++] = envs[c];
		drv_compare_op(&st, FPREF_OP_SQRT, &f, (uint64_t[3]){ a, 0, 0 }, kept, m);
	}
	drv_report(&st, "every square root", f.name);
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
	struct drv_sweep sweep = drv_sweep_from_env();
	bool exhaustive = sweep.exhaustive && _i == 0;
	size_t n = (size_t)1 << 20;
	uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *out = malloc(n * 2);
	uint64_t state = 77, mask = (UINT64_C(1) << fpref_format_container_bits(&f)) - 1;
	unsigned long bad = 0;
	unsigned long long compared = 0;
	unsigned stride = exhaustive ? 1 : sweep.stride;
	for (int sat = 0; sat < 2; sat++)
		for (size_t o = 0; o < 3; o++) {
			struct fpref_env env;
			fpref_env_default(&env);
			env.overflow = sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
			struct fpref_emu_op_context *ctx = fpref_emu_op_context_new(ops[o], &f, &env);
			uint64_t blocks = exhaustive ? 4096 : 4;
			for (uint64_t blk = 0; blk < blocks; blk++) {
				bool owned = drv_owns(&sweep, (uint64_t)_i + blk + blocks * (o + 3 * (uint64_t)sat));
				if (exhaustive && !owned)
					continue;
				for (size_t i = 0; i < n; i++) {
					if (exhaustive) {
						uint64_t k = blk * n + i;
						a[i] = (uint16_t)(k >> 16), b[i] = (uint16_t)k;
					} else if (i % 2) {
						a[i] = (uint16_t)(drv_structured(&f, &state) & mask);
						b[i] = (uint16_t)(drv_partner(&f, a[i], &state) & mask);
					} else {
						a[i] = (uint16_t)(drv_random(&state) & mask);
						b[i] = (uint16_t)(drv_random(&state) & mask);
					}
				}
				if (!owned) /* drawn, for the sequence's sake; another shard compares it */
					continue;
				fpref_emu_op_array(ctx, a, b, NULL, out, n, NULL, 0);
				for (size_t i = 0; i < n; i++) {
					if (!test_sample_keep(stride, (blk * 6 + o + 3 * (uint64_t)sat) * n + i))
						continue;
					compared++;
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
	printf("driver: fixed-point path against the core %s: %llu comparisons\n", f.name, compared);
	ck_assert_msg(bad == 0, "%s: %lu elements differ from the core", f.name, bad);
}
END_TEST

/* Hand-worked cases of the rules in docs/rounding.md. */
START_TEST(rules)
{
	struct drv_sweep sweep = drv_sweep_from_env();
	if (!drv_owns(&sweep, 0)) /* hand-worked cases: the first shard's */
		return;
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
	struct drv_sweep sweep = drv_sweep_from_env();
	if (!drv_owns(&sweep, 0)) /* hand-worked cases: the first shard's */
		return;
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

int main(void)
{
	Suite *s = suite_create("ops_wide");
	TCase *rules_case = tcase_create("rules");
	tcase_add_test(rules_case, rules);
	tcase_add_test(rules_case, nan_signs);
	TCase *wide_case = tcase_create("wide");
	tcase_add_loop_test(wide_case, wide_structured, 0, (int)drv_format_count());
	tcase_add_loop_test(wide_case, sqrt_sixteen_bit_exhaustive, 0, 2);
	TCase *golden_case_set = tcase_create("golden");
	tcase_add_loop_test(golden_case_set, golden_structured, 0, (int)drv_format_count());
	TCase *special_case = tcase_create("specials");
	tcase_add_loop_test(special_case, special_operands, 0, (int)drv_format_count());
	TCase *array_case = tcase_create("array");
	tcase_add_loop_test(array_case, fixed_point_path_matches_op, 0,
			    (int)(sizeof fixed_formats / sizeof fixed_formats[0]));
	TCase *cases[] = { rules_case, wide_case, golden_case_set, special_case, array_case };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tcase_set_timeout(cases[i], 1800);
		suite_add_tcase(s, cases[i]);
	}
	return test_run(s);
}
