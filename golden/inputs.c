/* The inputs of a job, as bit patterns: the edge values of a format, NaNs
 * of many payloads, the source values around every rounding threshold of
 * a conversion's target, and seeded operands.  Apart from generate.c, which
 * runs them through both engines: these only choose patterns. */
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_golden.h"
#include "generate_internal.h"

/* ---- inputs ---- */

static uint64_t exponent_field_of(const struct fpref_format *f, uint64_t bits)
{
	return (bits >> (f->pad_bits + f->man_bits)) & ((1ull << f->exp_bits) - 1);
}

static void add_unique(uint64_t *v, size_t *n, size_t max, const struct fpref_format *f, uint64_t bits)
{
	if (!valid(f, bits) || *n == max)
		return;
	for (size_t i = 0; i < *n; i++)
		if (v[i] == bits)
			return;
	v[(*n)++] = bits;
}

/* The values where formats have their edges: zeros, the subnormal range,
 * the least normal, one and its neighbours, the largest finite, inf, NaNs;
 * both signs. */
static size_t edge_values(const struct fpref_format *f, uint64_t *v, size_t max)
{
	size_t n = 0;
	uint64_t mask = (1ull << f->man_bits) - 1, top = (1ull << f->exp_bits) - 1;
	for (int sign = 0; sign < 2; sign++) {
		bool neg = sign == 1;
		add_unique(v, &n, max, f, pattern(f, neg, 0, 0));
		add_unique(v, &n, max, f, pattern(f, neg, 0, 1));
		add_unique(v, &n, max, f, pattern(f, neg, 0, mask));
		add_unique(v, &n, max, f, pattern(f, neg, 1, 0));
		add_unique(v, &n, max, f, pattern(f, neg, 1, 1));
		struct fpref_unpacked one = { .cls = FPREF_CLASS_NORMAL, .negative = neg, .significand = 1, .exponent = 0 };
		uint64_t b;
		if (fpref_encode(f, &one, &b) == 0) {
			add_unique(v, &n, max, f, b);
			add_unique(v, &n, max, f, b + (1ull << f->pad_bits));
			add_unique(v, &n, max, f, b - (1ull << f->pad_bits));
		}
		uint64_t m = fpref_format_max_bits(f, neg);
		add_unique(v, &n, max, f, m);
		add_unique(v, &n, max, f, m - (1ull << f->pad_bits));
		if (fpref_format_inf_bits(f, neg, &b))
			add_unique(v, &n, max, f, b);
		if (fpref_format_nan_bits(f, neg, &b))
			add_unique(v, &n, max, f, b);
		add_unique(v, &n, max, f, pattern(f, neg, top, 1));    /* a signaling NaN where IEEE */
		add_unique(v, &n, max, f, pattern(f, neg, top, mask)); /* all ones */
	}
	return n;
}

/* NaNs of an IEEE format with many payloads, quiet and signaling, both
 * signs: into out (2 * NAN_PAYLOADS at most), their count. */
static size_t nan_patterns(const struct fpref_format *f, uint64_t *out)
{
	if (f->specials != FPREF_SPECIALS_IEEE || f->man_bits < 2)
		return 0;
	uint64_t quiet = 1ull << (f->man_bits - 1), top = (1ull << f->exp_bits) - 1, mask = (1ull << f->man_bits) - 1;
	const uint64_t payloads[NAN_PAYLOADS] = { quiet,
						  quiet | 1,
						  quiet | 2,
						  quiet | (quiet >> 1),
						  mask,
						  quiet | (0x5555555555555555ull & (quiet - 1)),
						  1,
						  2,
						  quiet >> 1,
						  quiet - 1,
						  0x2AAAAAAAAAAAAAAAull & (quiet - 1) };
	size_t n = 0;
	for (size_t i = 0; i < NAN_PAYLOADS; i++)
		for (int neg = 0; neg < 2; neg++)
			if (payloads[i] & mask)
				out[n++] = pattern(f, neg != 0, top, payloads[i]);
	return n;
}

size_t fpref_golden_edge_values(const struct fpref_format *f, uint64_t *out, size_t max)
{
	return edge_values(f, out, max);
}

size_t fpref_golden_nan_patterns(const struct fpref_format *f, uint64_t *out, size_t max)
{
	uint64_t nans[2 * NAN_PAYLOADS];
	size_t n = nan_patterns(f, nans);
	if (n > max)
		n = max;
	memcpy(out, nans, n * sizeof *out);
	return n;
}

/* ---- conversions: the source values nearest every rounding threshold ---- */

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void fpref_golden_sort_unique(struct values *s)
{
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof *s->v, compare_u64);
	size_t k = 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i] != s->v[k - 1])
			s->v[k++] = s->v[i];
	s->n = k;
}

/* A positive finite pattern of src (bits below its largest finite), both signs. */
static void push_both(struct values *s, const struct fpref_format *src, uint64_t bits)
{
	struct fpref_unpacked u;
	if (fpref_decode(src, bits, &u) != FPREF_DECODE_OK || u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF)
		return;
	push(s, bits);
	if (src->is_signed)
		push(s, bits | sign_of(src));
}

/* The source values on both sides of the exact positive value sig * 2^exp
 * (the one equal to it, where there is one), and `reach` more on each side. */
static void around(struct values *s, const struct fpref_format *src, uint64_t sig, int32_t exp, int reach)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.overflow = FPREF_OVERFLOW_SAT;
	unsigned flags = 0;
	env.rounding = FPREF_RDN;
	uint64_t below = fpref_emu_round_pack(src, &env, 0, false, exp, (fpref_u128)sig, false, &flags);
	env.rounding = FPREF_RUP;
	uint64_t above = fpref_emu_round_pack(src, &env, 0, false, exp, (fpref_u128)sig, false, &flags);
	uint64_t step = 1ull << src->pad_bits, top = fpref_format_max_bits(src, false);
	for (int k = 0; k <= reach; k++) {
		if (below >= (uint64_t)k * step)
			push_both(s, src, below - (uint64_t)k * step);
		if (above + (uint64_t)k * step <= top)
			push_both(s, src, above + (uint64_t)k * step);
	}
}

/* The target values whose neighbourhoods hold its thresholds: every
 * positive finite value of a format of 8 bits or fewer; for wider ones the
 * zero, subnormal, least-normal, one, mid-range and largest binades, with
 * even and odd last bits. */
static void anchors(const struct fpref_format *t, struct values *a)
{
	uint64_t top = fpref_format_max_bits(t, false), step = 1ull << t->pad_bits;
	if (fpref_format_width(t) <= 8) {
		for (uint64_t b = 0; b <= top; b += step)
			push(a, b);
		return;
	}
	uint64_t mask = (1ull << t->man_bits) - 1, half = 1ull << (t->man_bits - 1);
	uint64_t field_top = exponent_field_of(t, top), mid = (uint64_t)t->bias / 2;
	const uint64_t spots[][2] = {
		{ 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 0, 5 }, { 0, 6 }, { 0, 7 }, { 0, mask / 4 },
		{ 0, mask / 4 + 1 }, { 0, half - 1 }, { 0, half }, { 0, half + 1 }, { 0, mask - 1 },
		{ 0, mask }, { 1, 0 }, { 1, 1 }, { 1, 2 }, { mid, 0x5555555555555555ull & mask },
		{ mid, 0xAAAAAAAAAAAAAAAAull & mask }, { (uint64_t)t->bias - 1, mask }, { (uint64_t)t->bias, 0 },
		{ (uint64_t)t->bias, 1 }, { (uint64_t)t->bias, 2 }, { (uint64_t)t->bias, 3 },
		{ (uint64_t)t->bias + mid, 0x3333333333333333ull & mask }, { (uint64_t)t->bias + mid, 0xCCCCCCCCCCCCCCCCull & mask },
	};
	for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
		uint64_t b = pattern(t, false, spots[i][0], spots[i][1]);
		if (b <= top)
			push(a, b);
	}
	for (uint64_t k = 0; k < 4 && k * step <= top; k++)
		push(a, top - k * step);
	(void)field_top;
}

/* Source patterns around every rounding threshold of the target: each
 * anchor value itself and the midpoint above it, as the nearest source
 * values on both sides and their neighbours; the overflow tie, the band up
 * to the next binade, values far beyond; values below half the least
 * positive; the source's subnormals and NaNs of many payloads.  Both signs. */
void fpref_golden_threshold_values(const struct fpref_format *src, const struct fpref_format *tgt, unsigned omit,
				   struct values *s)
{
	struct values a = { 0 };
	anchors(tgt, &a);
	uint64_t tmax = fpref_format_max_bits(tgt, false);
	for (size_t i = 0; i < a.n; i++) {
		struct fpref_unpacked u;
		if ((a.v[i] & sign_of(tgt)) || fpref_decode(tgt, a.v[i], &u) != FPREF_DECODE_OK)
			continue;
		if ((u.cls == FPREF_CLASS_ZERO || (!tgt->has_zero && a.v[i] == 0)) && !(omit & FPREF_GOLDEN_OMIT_MIDPOINTS)) {
			struct fpref_unpacked least;
			fpref_format_min_positive(tgt, &least);
			around(s, src, 1, least.exponent - 1, 2);     /* the tie above zero */
			around(s, src, 3, least.exponent - 2, 1);     /* between it and the least */
			around(s, src, 1, least.exponent - 2, 1);     /* below it */
			around(s, src, 1, least.exponent - 4, 1);
			if (u.cls == FPREF_CLASS_ZERO)
				continue;
		}
		around(s, src, u.significand, u.exponent, 1);
		if (a.v[i] != tmax) {
			if (!(omit & FPREF_GOLDEN_OMIT_MIDPOINTS))
				around(s, src, 2 * u.significand + 1, u.exponent - 1, 2);
			continue;
		}
		if (omit & FPREF_GOLDEN_OMIT_OVERFLOW)
			continue;
		/* the overflow band: (max, tie), the tie, [tie, max + ulp), beyond */
		around(s, src, 4 * u.significand + 1, u.exponent - 2, 1);
		around(s, src, 2 * u.significand + 1, u.exponent - 1, 3);
		around(s, src, 4 * u.significand + 3, u.exponent - 2, 1);
		around(s, src, u.significand + 1, u.exponent, 2);
		around(s, src, u.significand, u.exponent + 1, 0);
		around(s, src, u.significand, u.exponent + 8, 0);
		push_both(s, src, fpref_format_max_bits(src, false));
	}
	free(a.v);
	s->failed = s->failed || a.failed;
	uint64_t mask = (1ull << src->man_bits) - 1;
	if (src->subnormals && src->man_bits > 0 && src->has_zero) {
		const uint64_t subs[] = { 1, 2, 3, mask / 3, mask / 2, mask / 2 + 1, mask - 1, mask };
		for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
			push_both(s, src, pattern(src, false, 0, subs[i]));
	}
	uint64_t nans[2 * NAN_PAYLOADS];
	size_t nn = nan_patterns(src, nans);
	for (size_t i = 0; i < nn; i++)
		push(s, nans[i]);
}

/* A seeded operand: one time in four any pattern, otherwise finite with a
 * random exponent (near `near` when that is not UINT64_MAX). */
uint64_t fpref_golden_random_operand(const struct fpref_format *f, uint64_t seed, uint64_t index, uint64_t near)
{
	uint64_t top = (1ull << f->exp_bits) - 1;
	for (uint64_t k = 0;; k++) {
		uint64_t r = fpref_sr_stream(seed, 8 * index + k);
		uint64_t bits;
		if (r % 4 == 0 && k < 4)
			bits = (r >> 8) & (fpref_format_width(f) >= 56 ? ~0ull : (1ull << fpref_format_width(f)) - 1);
		else {
			uint64_t field = (r >> 2) % (top + 1);
			if (near != UINT64_MAX && (r >> 20) % 2) {
				int64_t shifted = (int64_t)near + (int64_t)((r >> 24) % 7) - 3;
				field = shifted < 0 ? 0 : (uint64_t)shifted > top ? top : (uint64_t)shifted;
			}
			uint64_t mantissa = r >> 28;
			if ((r >> 12) % 8 == 0)
				mantissa = (r >> 15) % 2 ? ~0ull : 0;
			bits = pattern(f, (r >> 16) & 1, field, mantissa) >> f->pad_bits;
		}
		bits <<= f->pad_bits;
		if (valid(f, bits))
			return bits;
	}
}
